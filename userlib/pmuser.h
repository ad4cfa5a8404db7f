/* SPDX-License-Identifier: MIT */
/*
 * pmuser: read ARM PMU counters from user space with one instruction.
 *
 * The one public header. Fast path (inline): pmuser_cycles_read*(), pmuser_counter_read*().
 * Slow path (libpmuser.a): opening the device, configuring counters, backends, event tables.
 * Every slow-path function returns 0 or a negative errno.
 */
#ifndef PMUSER_H
#define PMUSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/pmuser.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- fast path: inline counter reads ------------------------------------------------------ */

/*
 * The instruction set used by the fast path, fixed at compile time:
 * AArch64 (ARMv8 PMUv3), AArch32 ARMv7+ (c9 registers), ARMv6 ARM1176 (c15 registers).
 */
#if defined(__aarch64__)
#define PMUSER_FAST_A64 1
#define PMUSER_FAST_ARCH PMUSER_ARCH_ARMV8_A64
#elif defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7
#define PMUSER_FAST_V7 1
#define PMUSER_FAST_ARCH PMUSER_ARCH_ARMV7
#elif defined(__arm__)
#define PMUSER_FAST_V6 1
#define PMUSER_FAST_ARCH PMUSER_ARCH_ARMV6_1176
#else
#define PMUSER_FAST_ARCH PMUSER_ARCH_NONE
#endif

/* Event counters on AArch32 ARMv7 and ARM1176 are 32 bits, the cycle counter too. */
#if defined(PMUSER_FAST_A64)
#define PMUSER_CYCLE_BITS 64
#else
#define PMUSER_CYCLE_BITS 32
#endif

#if defined(PMUSER_FAST_A64)
#define pmuser__isb() __asm__ __volatile__("isb" ::: "memory")
#define pmuser__mrs(reg) ({						\
	uint64_t pmuser__v;						\
	__asm__ __volatile__("mrs %0, " #reg : "=r"(pmuser__v));	\
	pmuser__v; })
#elif defined(PMUSER_FAST_V7)
#define pmuser__isb() __asm__ __volatile__("isb" ::: "memory")
#elif defined(PMUSER_FAST_V6)
/* ARMv6 has no ISB instruction; the CP15 prefetch flush is its user-mode equivalent. */
#define pmuser__isb() __asm__ __volatile__("mcr p15, 0, %0, c7, c5, 4" :: "r"(0) : "memory")
#else
#define pmuser__isb() __asm__ __volatile__("" ::: "memory")
#endif

/* Raw cycle counter read: one instruction, may be reordered with surrounding work. */
static inline uint64_t pmuser_cycles_read(void)
{
#if defined(PMUSER_FAST_A64)
	return pmuser__mrs(pmccntr_el0);
#elif defined(PMUSER_FAST_V7)
	uint32_t v;

	__asm__ __volatile__("mrc p15, 0, %0, c9, c13, 0" : "=r"(v));
	return v;
#elif defined(PMUSER_FAST_V6)
	uint32_t v;

	__asm__ __volatile__("mrc p15, 0, %0, c15, c12, 1" : "=r"(v));
	return v;
#else
	return 0;
#endif
}

/* Serialised cycle counter read: everything before it has completed when it reads. */
static inline uint64_t pmuser_cycles_read_serial(void)
{
	pmuser__isb();
	return pmuser_cycles_read();
}

#if defined(PMUSER_FAST_A64)
/* Event counter n is system register PMEVCNTR<n>_EL0 (op0 3, op1 3, CRn 14, CRm 8 + n / 8,
 * op2 n % 8); each needs its own instruction, so a constant n folds to one MRS.
 */
#define PMUSER__EVCNTR_CASE(n) case n: return pmuser__mrs(pmevcntr##n##_el0)
static inline uint64_t pmuser__evcntr_read(unsigned int n)
{
	switch (n) {
	PMUSER__EVCNTR_CASE(0); PMUSER__EVCNTR_CASE(1); PMUSER__EVCNTR_CASE(2);
	PMUSER__EVCNTR_CASE(3); PMUSER__EVCNTR_CASE(4); PMUSER__EVCNTR_CASE(5);
	PMUSER__EVCNTR_CASE(6); PMUSER__EVCNTR_CASE(7); PMUSER__EVCNTR_CASE(8);
	PMUSER__EVCNTR_CASE(9); PMUSER__EVCNTR_CASE(10); PMUSER__EVCNTR_CASE(11);
	PMUSER__EVCNTR_CASE(12); PMUSER__EVCNTR_CASE(13); PMUSER__EVCNTR_CASE(14);
	PMUSER__EVCNTR_CASE(15); PMUSER__EVCNTR_CASE(16); PMUSER__EVCNTR_CASE(17);
	PMUSER__EVCNTR_CASE(18); PMUSER__EVCNTR_CASE(19); PMUSER__EVCNTR_CASE(20);
	PMUSER__EVCNTR_CASE(21); PMUSER__EVCNTR_CASE(22); PMUSER__EVCNTR_CASE(23);
	PMUSER__EVCNTR_CASE(24); PMUSER__EVCNTR_CASE(25); PMUSER__EVCNTR_CASE(26);
	PMUSER__EVCNTR_CASE(27); PMUSER__EVCNTR_CASE(28); PMUSER__EVCNTR_CASE(29);
	PMUSER__EVCNTR_CASE(30);
	case PMUSER_HW_CYCLE: return pmuser__mrs(pmccntr_el0);
	default: return 0;
	}
}
#undef PMUSER__EVCNTR_CASE
#elif defined(PMUSER_FAST_V7)
/*
 * ARMv7 reaches event counters through PMSELR (c9, c12, 5) and PMXEVCNTR (c9, c13, 2). The
 * kernel's perf driver selects counters too, from interrupts that can land between the two
 * instructions: read PMSELR back and retry if the value came from another counter.
 */
static inline uint64_t pmuser__evcntr_read(unsigned int n)
{
	uint32_t v, sel;
	unsigned int tries = 0;

	if (n == PMUSER_HW_CYCLE)
		return pmuser_cycles_read();
	/* Bounded: two interrupts in a row re-selecting are already vanishingly rare. */
	do {
		__asm__ __volatile__("mcr p15, 0, %0, c9, c12, 5" :: "r"(n));
		pmuser__isb();
		__asm__ __volatile__("mrc p15, 0, %0, c9, c13, 2" : "=r"(v));
		__asm__ __volatile__("mrc p15, 0, %0, c9, c12, 5" : "=r"(sel));
	} while (sel != n && ++tries < 8);
	return v;
}
#elif defined(PMUSER_FAST_V6)
/* ARM1176 has two event counters: PMN0 (c15, c12, 2) and PMN1 (c15, c12, 3). */
static inline uint64_t pmuser__evcntr_read(unsigned int n)
{
	uint32_t v = 0;

	if (n == 0)
		__asm__ __volatile__("mrc p15, 0, %0, c15, c12, 2" : "=r"(v));
	else if (n == 1)
		__asm__ __volatile__("mrc p15, 0, %0, c15, c12, 3" : "=r"(v));
	else if (n == PMUSER_HW_CYCLE)
		v = (uint32_t)pmuser_cycles_read();
	return v;
}
#else
static inline uint64_t pmuser__evcntr_read(unsigned int n)
{
	(void)n;
	return 0;
}
#endif

/*
 * Raw read of hardware counter hw (0..30 event counters, PMUSER_HW_CYCLE the cycle counter),
 * as reported in pmuser_event_config.hw_counter. A constant hw compiles to one instruction on
 * AArch64 (two plus an ISB on ARMv7, which selects the counter first).
 */
static inline uint64_t pmuser_counter_read(unsigned int hw)
{
	return pmuser__evcntr_read(hw);
}

static inline uint64_t pmuser_counter_read_serial(unsigned int hw)
{
	pmuser__isb();
	return pmuser__evcntr_read(hw);
}

/* ---- slow path: the device ---------------------------------------------------------------- */

/* Opens PMUSER_DEVICE; returns the file descriptor or -errno. */
int pmuser_device_open(void);
/* Thin, validated wrappers over the ioctls; return 0 or -errno. */
int pmuser_device_info(int fd, struct pmuser_info *info);
int pmuser_device_cpu_info(int fd, unsigned int cpu, struct pmuser_cpu_info *ci);
int pmuser_device_configure(int fd, struct pmuser_config *cfg);
int pmuser_device_reset(int fd);
int pmuser_device_release(int fd);
int pmuser_device_grant(int fd, uint32_t flags);
int pmuser_device_revoke(int fd, uint32_t flags);
int pmuser_device_swinc(int fd, uint32_t mask, uint32_t count);

/* ---- events: names, tables, specs (pmuser_events.c) --------------------------------------- */
/*
 * Event names are upper case as perf spells them (ARMv8: the kernel's pmu-events JSON; ARMv7:
 * the same architectural mnemonics; ARM1176: its own); lookups ignore case. A core is named by
 * its MIDR; its events are its architecture's common table plus, for some cores, its own.
 */
struct pmuser_event {
	uint16_t number;		/* PMEVTYPER evtCount (EVTSEL on ARM1176) */
	const char *name;
};

struct pmuser_event_table {
	const char *name;		/* "armv8", "armv7", "cortex-a53", "cortex-a57-a72", ... */
	const struct pmuser_event *events;	/* ascending by number */
	size_t nr_events;
};

#define PMUSER_CORE_TABLES	2

/* The core's name, e.g. "Cortex-A72", or NULL if the MIDR is not known. */
const char *pmuser_core_name(uint32_t midr);
/*
 * Stores the core's event tables, common one first, and returns how many (0 to
 * PMUSER_CORE_TABLES). Unknown Arm parts get their architecture's (0xdXX ARMv8, 0xcXX ARMv7,
 * older ones none); other implementers, and MIDR 0, get ARMv8's.
 */
unsigned int pmuser_core_tables(uint32_t midr,
				const struct pmuser_event_table *tables[PMUSER_CORE_TABLES]);
/* Finds an event of the core by name, ignoring case: 0, or -ENOENT. */
int pmuser_event_lookup(uint32_t midr, const char *name, const struct pmuser_event **ev);
/* The name of event number on the core, or NULL if its tables have none. */
const char *pmuser_event_name(uint32_t midr, uint32_t number);
/*
 * Whether the CPU counts event number, by PMCEID where the CPU reports it and the number is in
 * its ranges; true otherwise, as the tables list only what a core implements.
 */
bool pmuser_event_supported(const struct pmuser_cpu_info *ci, uint32_t number);

/* One element of an event spec. */
struct pmuser_evspec_entry {
	uint32_t event;			/* event number, at most 0xffff */
	uint32_t flags;			/* PMUSER_COUNT_USER and/or PMUSER_COUNT_KERNEL */
	const char *name;		/* canonical name, NULL if the core's tables have none */
};

/*
 * Parses a comma-separated event spec for the core, e.g.
 * "inst_retired,cpu_cycles:u,0x11,l1d_cache_refill:k,r1b": each event is a name (any case) or
 * a hex number as 0x1b or r1b (decimal is refused as ambiguous), optionally followed by :u
 * (user, the default), :k (kernel) or :uk. Stores at most max entries in out and their count
 * in *count. Returns 0, or -EINVAL (syntax), -ENOENT (unknown name), -ERANGE (number above
 * 0xffff) or -E2BIG (more than max events), with a message naming the offending event by
 * position and text in err (errlen bytes; err may be NULL).
 */
int pmuser_evspec_parse(const char *spec, uint32_t midr, struct pmuser_evspec_entry *out,
			size_t max, size_t *count, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PMUSER_H */
