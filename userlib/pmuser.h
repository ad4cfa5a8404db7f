/* SPDX-License-Identifier: MIT */
/*
 * pmuser: read ARM PMU counters from user space with one instruction.
 *
 * The one header programs include: the API's types, constants and declarations. Fast path
 * (inline): pmuser_cycles_read*(), pmuser_counter_read*(), pmuser_thread_cpu() and the
 * counter page's readers, defined in pmuser/fast.h, which this header includes (programs do
 * not include it themselves). Slow path (libpmuser.a, libpmuser.so): opening the device,
 * configuring counters, backends, event tables, presets and metrics. Each public function
 * has its man page (section 3).
 *
 * Return values. A function that can fail returns an int: a negative errno on failure (errors
 * are returned, not reported through errno), and on success 0 or the value it names: a file
 * descriptor (pmuser_device_open()), a hardware counter (pmuser_counters_hw()), a number of
 * sets (pmuser_preset_sets()). The other functions cannot fail and say "none" in their own
 * type: lookups returning a pointer give NULL where they find nothing (pmuser_core_name(),
 * pmuser_event_name(), pmuser_preset_find(), ...), pmuser_cpu_midr() gives 0 and
 * pmuser_thread_cpu() -1 (the one int that is not an errno); bool functions answer a
 * question, counts (unsigned int, size_t) are counts, and void functions report nothing: a
 * region's start and stop say in pmuser_region.valid whether its deltas hold.
 */
#ifndef PMUSER_H
#define PMUSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/pmuser.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- fast path: inline counter reads ------------------------------------------------------ */
/*
 * The functions declared static inline here and in the counter page's section below are
 * defined in pmuser/fast.h, which this header includes at its end.
 */

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

/* Raw cycle counter read: one instruction, may be reordered with surrounding work. */
static inline uint64_t pmuser_cycles_read(void);
/* Serialised cycle counter read: everything before it has completed when it reads. */
static inline uint64_t pmuser_cycles_read_serial(void);

/*
 * Raw read of hardware counter hw (0..30 event counters, PMUSER_HW_CYCLE the cycle counter),
 * as reported in pmuser_event_config.hw_counter. A constant hw compiles to one instruction on
 * AArch64 (two plus an ISB on ARMv7, which selects the counter first). On ARMv7 all ones
 * from an event counter is not a count: the kernel kept re-selecting under the read.
 */
static inline uint64_t pmuser_counter_read(unsigned int hw);
/* Serialised read of counter hw: everything before it has completed when it reads. */
static inline uint64_t pmuser_counter_read_serial(unsigned int hw);

#if defined(PMUSER_FAST_V7)
/*
 * Raw read of counter hw on a PMUv3 core in AArch32 (pmuser_cpu_info.pmu_version 3 to 14):
 * one instruction for a constant hw, where pmuser_counter_read() selects first.
 */
static inline uint64_t pmuser_counter_read_pmuv3(unsigned int hw);
#endif

/*
 * Raw reads of hardware counters hw[0..n-1] (from pmuser_counters_hw()) between one pair of
 * barriers, for the tightest region. With n and hw[] compile-time constants it compiles to
 * the barrier, n reads and the barrier: n + 2 instructions on AArch64. The values are the
 * hardware's own: whether the delta of two such reads is a count, and the count, is
 * pmuser_page_delta()'s answer for a pmuser_page_mark() taken before the first read.
 */
static inline void pmuser_counter_read_n(unsigned int n, const unsigned int hw[],
					 uint64_t values[]);

/*
 * A serialised read of counter hw with SIGILL caught, for finding out whether inline reads
 * work here at all (without access, or on QEMU's ARM1176, they trap): 0 and *value, or
 * -EPERM if the instruction trapped. Not thread-safe (it swaps the SIGILL handler).
 */
int pmuser_counter_probe(unsigned int hw, uint64_t *value);

/*
 * The CPU the calling thread runs on, for checks around raw reads: the kernel's rseq cpu_id
 * (one load through glibc's __rseq_offset, glibc 2.35 and later) where the thread has an rseq
 * area, sched_getcpu() otherwise; -1 if neither knows.
 */
static inline int pmuser_thread_cpu(void);

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
/*
 * What an ioctl's -errno means here, naming the setting behind it where one is (e.g. GRANT's
 * EPERM on arm64 with kernel.perf_user_access 0); strerror's text otherwise. Returns buf.
 */
const char *pmuser_device_why(unsigned long request, int err, char *buf, size_t len);

/* ---- the counter page (pmuser_page.c) ------------------------------------------------------ */
/*
 * The module's read-only counter page (uapi: struct pmuser_page_cpu): per CPU, where perf has
 * each held counter now and what its raw reads mean. Raw reads are not continuous (perf
 * reloads the counters); page values are, and a read the page cannot vouch for is refused.
 */
struct pmuser_page {
	const volatile unsigned char *base;
	size_t size;
	unsigned int stride;
	unsigned int nr_cpus;
	int fd;				/* the device, not owned: CPU_INFO republishes */
};

/* Maps the page of the device fd (kept for republishing): 0, or -errno. */
int pmuser_page_map(int fd, struct pmuser_page *pg);
void pmuser_page_unmap(struct pmuser_page *pg);

/* CPU cpu's record in the page. */
static inline const volatile struct pmuser_page_cpu *pmuser_page_cpu(const struct pmuser_page *pg,
								     unsigned int cpu);
/* The mask of slot s's raw reads: s->bits ones. */
static inline uint64_t pmuser_page_mask(const volatile struct pmuser_page_slot *s);
/* Whether a raw read of slot s lies in its published period (else a reload is pending). */
static inline bool pmuser_page_raw_usable(const volatile struct pmuser_page_slot *s, uint64_t raw);
/* The continuous count a usable raw read of slot s stands for. */
static inline uint64_t pmuser_page_value(const volatile struct pmuser_page_slot *s, uint64_t raw);

/* The calling CPU and its page sequence, taken before a window of raw reads. */
struct pmuser_page_mark {
	int cpu;
	uint32_t seq;
};

struct pmuser_page_mark pmuser_page_mark(const struct pmuser_page *pg);
/*
 * Whether raw reads made since m are comparable: the thread is on the same CPU, was not
 * switched out there (the counters count every thread on the CPU) and nothing was
 * republished there. Always true for an unmapped page (pg->base NULL). One part of
 * pmuser_page_delta()'s rule, which programs use to decide a window.
 */
bool pmuser_page_unchanged(const struct pmuser_page *pg, struct pmuser_page_mark m);
/*
 * Whether a window of raw reads counts, and its counts: the rule of the ABI, the one the
 * library's regions apply. The window is counters hw[0..n-1] of page slots slots[0..n-1]
 * (pmuser_counters_hw() and pmuser_counters_slot() for a counter set), read into before[]
 * and after[] (pmuser_counter_read_n(), pmuser_counters_read_raw() or asm of one's own)
 * after the mark m. It counts when the mark's CPU is one the page covers and its sequence
 * was stable, the thread is still on that CPU and the CPU's page has not changed since the
 * mark (no switch, nothing republished), every slot still names hw[i] as its counter (never
 * PMUSER_HW_NONE), and both reads of each lie in the slot's published period
 * (pmuser_page_raw_usable(): not a read perf's reload overtook, nor ARMv7's all ones). Then
 * it returns true with delta[i] after[i] - before[i] masked to the slot's width (32 bits, or
 * 64 for a 64-bit counter); otherwise false, delta[] unspecified, as for an unmapped page, n
 * above PMUSER_PAGE_SLOTS or a slot number not below it. Call it after the last read. pg is
 * a mapped or unmapped page, never NULL. One case the page cannot show: a read of a counter
 * perf has just moved, before its first counted event (pmuser_counter_read(3), NOTES).
 */
bool pmuser_page_delta(const struct pmuser_page *pg, struct pmuser_page_mark m,
		       const unsigned int slots[], const unsigned int hw[], unsigned int n,
		       const uint64_t before[], const uint64_t after[], uint64_t delta[]);

/*
 * Counts of n slots (uapi slot numbers) read together on the calling CPU, continuous across
 * perf's reloads and moves: 0 and values[], *cpu the CPU read on; -ENOENT if perf has a slot
 * on no counter; -EAGAIN if no consistent read came about (retried, with a republish).
 */
int pmuser_page_read(const struct pmuser_page *pg, const unsigned int slots[], unsigned int n,
		     uint64_t values[], int *cpu);

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

/*
 * The MIDR of cpu as the OS tells it without the module: arm64's sysfs, else (32-bit ARM)
 * /proc/cpuinfo's fields for the first processor. 0 if neither says.
 */
uint32_t pmuser_cpu_midr(int cpu);
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
 * its ranges; true otherwise (ci NULL too), as the tables list only what a core implements.
 */
bool pmuser_event_supported(const struct pmuser_cpu_info *ci, uint32_t number);

/* One element of an event spec. */
struct pmuser_evspec_entry {
	uint32_t event;			/* event number, at most 0xffff */
	uint32_t flags;			/* PMUSER_COUNT_USER and/or PMUSER_COUNT_KERNEL */
	const char *name;		/* canonical name, NULL if the core's tables have none */
	/* pmuser_evspec_parse(): the element as written, spec[offset..offset + length) */
	uint32_t offset, length;
};

/*
 * Parses a comma-separated event spec for the core, e.g.
 * "inst_retired,cpu_cycles:u,0x11,l1d_cache_refill:k,r1b": each event is a name (any case) or
 * a hex number as 0x1b or r1b (decimal is refused as ambiguous), optionally followed by :u
 * (user, the default), :k (kernel) or :uk. perf's forms are taken too: its generic names
 * (cycles, instructions, branches, branch-misses, cache-references, cache-misses, bus-cycles,
 * stalled-cycles-frontend, ...) and hardware cache names (L1-dcache-loads,
 * L1-dcache-load-misses, LLC-loads, dTLB-load-misses, iTLB-loads, branch-loads, ..., in
 * perf's aliases too: l1d-misses) as the events the core's Linux PMU driver counts for them,
 * and a CPU PMU's "armv8_pmuv3_0/inst_retired/" or "armv8_cortex_a72/event=0x8/u" (event= is
 * hex after 0x, else decimal, as perf reads it; the modifiers follow the slash, with or
 * without a colon). Stores at most max entries in out and their count in *count. Returns 0,
 * or -EINVAL (syntax), -ENOENT (unknown name, a perf name the core has no event for, a PMU
 * that is not a CPU's), -ERANGE (number above 0xffff) or -E2BIG (more than max events), with
 * a message naming the offending event by position and text in err (errlen bytes; err may be
 * NULL).
 */
int pmuser_evspec_parse(const char *spec, uint32_t midr, struct pmuser_evspec_entry *out,
			size_t max, size_t *count, char *err, size_t errlen);
/*
 * perf's own name for the generic or hardware cache event name (without modifiers) spells,
 * as perf prints it: "cycles" for "cpu-cycles", "L1-dcache-load-misses" for "l1d-misses".
 * Returns 0 with the name in buf (size bytes), -ENOENT if name is none of perf's names,
 * -ENOSPC if buf is too small, -EINVAL for a NULL name.
 */
int pmuser_evspec_perf_name(const char *name, char *buf, size_t size);

/* ---- counters: one API over four backends (pmuser_counters.c, pmuser_perf.c) ------------ */
/*
 * A counter set is an optional cycle counter (index 0 when asked for) followed by events.
 * Backends, in the order automatic selection tries them:
 *  module     inline MRS/MRC reads of counters held by /dev/pmuser (this thread granted);
 *  perf-mmap  perf_event_open + the mmap page's seqlock and an inline read (arm64 with
 *             kernel.perf_user_access=1, own thread only);
 *  perf-read  perf_event_open + read() (any Linux with a PMU perf knows, x86 included);
 *  clock      no PMU: the "cycle counter" is CLOCK_MONOTONIC_RAW in ns, events unsupported.
 * PMUSER_BACKEND_AUTO takes the environment variable PMUSER_BACKEND (module, perf-mmap,
 * perf-read, clock) as an override; naming a backend that cannot work is an error, not a
 * silent fallback.
 */
enum pmuser_backend {
	PMUSER_BACKEND_AUTO = 0,
	PMUSER_BACKEND_MODULE = 1,
	PMUSER_BACKEND_PERF_MMAP = 2,
	PMUSER_BACKEND_PERF_READ = 3,
	PMUSER_BACKEND_CLOCK = 4,
};

#define PMUSER_COUNTERS_MAX	(PMUSER_MAX_EVENTS + 1)

/* pmuser_counters_attr.flags */
#define PMUSER_COUNTERS_CYCLES		0x01	/* counter 0 is the cycle counter */
/* Events the backend cannot count are kept and marked unsupported instead of failing. */
#define PMUSER_COUNTERS_OPTIONAL	0x02
/* perf: each event in its own group, so perf multiplexes them one by one. */
#define PMUSER_COUNTERS_NO_GROUP	0x04
/* perf: count the target's future children too (a group read sums theirs in). */
#define PMUSER_COUNTERS_INHERIT		0x08
/* perf: open disabled, start counting when the target calls exec (pmu-stat's launch). */
#define PMUSER_COUNTERS_ENABLE_ON_EXEC	0x10
/* Open disabled; pmuser_counters_enable() starts them. */
#define PMUSER_COUNTERS_DISABLED	0x20

struct pmuser_counters_attr {
	uint32_t backend;		/* enum pmuser_backend */
	uint32_t flags;			/* PMUSER_COUNTERS_* */
	uint32_t cycle_flags;		/* PMUSER_COUNT_*; 0 means PMUSER_COUNT_USER */
	int pid;			/* perf: 0 = calling thread, > 0 that task, -1 = CPU-wide */
	/*
	 * CPU to count on, or -1 for wherever the target runs. Module: the CPU the counters are
	 * held on (-1: all CPUs) and the calling thread is pinned there; reads are of the CPU the
	 * reader runs on: a region an unpinned reader migrated in comes back invalid.
	 */
	int cpu;
	size_t nr_events;
	struct pmuser_evspec_entry events[PMUSER_MAX_EVENTS];	/* flags 0: PMUSER_COUNT_USER */
};

struct pmuser_counters;

/* Fills attr with the defaults: automatic backend, calling thread, any CPU, no counters. */
void pmuser_counters_attr_init(struct pmuser_counters_attr *attr);
/*
 * Opens the counter set; returns 0 and *out, or -errno: -ENODEV (no backend works),
 * -EOPNOTSUPP (an event the backend cannot count, without PMUSER_COUNTERS_OPTIONAL),
 * -EINVAL (bad attr or PMUSER_BACKEND value), or the backend's own error when one was asked
 * for by name. why (whylen bytes, may be NULL) says which backends were tried and why each
 * was not taken.
 */
int pmuser_counters_open(const struct pmuser_counters_attr *attr, struct pmuser_counters **out,
			 char *why, size_t whylen);
void pmuser_counters_close(struct pmuser_counters *c);
/*
 * Module backend: replaces the set's events with events[0..nr_events-1] (as in
 * pmuser_counters_attr.events), keeping its cycle counter, CPU, modes and flags, on the
 * counters the module holds for it. For rotating event sets through a PMU with fewer
 * counters, each set in turn, at a period of the caller's choosing. Counts restart at 0,
 * pmuser_counters_nr() and the names follow the new events, the calibrated bias is dropped,
 * and the hardware counters and slots may move: take pmuser_counters_hw() and _slot() again.
 * Call it from the thread that opened the set, still on the set's CPU where it has one: it
 * probes the new counters there with pmuser_counter_probe(), so it is not thread-safe, and
 * on arm64 another thread reading inline meanwhile may trap (SIGILL) until it returns.
 * Returns 0, or -errno with why (whylen bytes, may be NULL) naming the step that failed:
 * -EINVAL (bad arguments; the set is unchanged), -EOPNOTSUPP on the other backends (the set
 * is unchanged) or for an event the CPU does not count without PMUSER_COUNTERS_OPTIONAL,
 * -ENOSPC for more events than the CPU has counters, -EBUSY where perf has no counters for
 * the events (another perf user holds them), -EPERM where the new counters' reads trap, or
 * the error of a device call. After a failure past the argument checks the set holds
 * nothing: every counter reads as unsupported, pmuser_counters_read(), _read_raw(),
 * _enable() and _reset() fail with -ENODATA, regions are invalid and the timer says none,
 * until a reconfiguration succeeds.
 */
int pmuser_counters_reconfigure(struct pmuser_counters *c,
				const struct pmuser_evspec_entry events[], size_t nr_events,
				char *why, size_t whylen);

enum pmuser_backend pmuser_counters_backend(const struct pmuser_counters *c);
/* The counter page of a module-backend set (unmapped, base NULL, on other backends). */
const struct pmuser_page *pmuser_counters_page(const struct pmuser_counters *c);
/* "module", "perf-mmap", "perf-read", "clock". */
const char *pmuser_backend_name(enum pmuser_backend backend);
/* What makes regions on this backend come back invalid, for a tool's message. */
const char *pmuser_backend_invalid_why(enum pmuser_backend backend);
/* Parses a backend name (as above, or "auto"): 0 and *out, or -EINVAL. */
int pmuser_backend_parse(const char *name, enum pmuser_backend *out);
/* Number of counters: the cycle counter (if asked for) plus the events. */
unsigned int pmuser_counters_nr(const struct pmuser_counters *c);
/* Counter i's display name: "cycles" ("ns" on the clock backend) or the event's name/number. */
const char *pmuser_counters_name(const struct pmuser_counters *c, unsigned int i);
/* Whether counter i counts (false only with PMUSER_COUNTERS_OPTIONAL). */
bool pmuser_counters_supported(const struct pmuser_counters *c, unsigned int i);
/* Module backend: the hardware counter for pmuser_counter_read(); else -EOPNOTSUPP. */
int pmuser_counters_hw(const struct pmuser_counters *c, unsigned int i);
/* Module backend: counter i's slot in pmuser_counters_page(); else -EOPNOTSUPP. */
int pmuser_counters_slot(const struct pmuser_counters *c, unsigned int i);
/*
 * One line describing the timer behind counter 0 or the cycle counter, e.g. "PMCCNTR_EL0
 * inline (64-bit, 1 cycle)" or "CLOCK_MONOTONIC_RAW (resolution 1 ns)".
 */
const char *pmuser_counters_timer(const struct pmuser_counters *c);

/*
 * Reads every counter as a 64-bit monotonic value (32-bit hardware counters are extended in
 * software, so read at least once per 2^32 events). Unsupported counters read 0; check
 * pmuser_counters_supported(). Module backend: the counters of the CPU the caller runs on.
 * perf backends: counts while perf had the event on a counter; where perf may multiplex
 * the set, pmuser_counters_read_full() says whether it did. Returns 0, or -errno with
 * values[] unspecified.
 */
int pmuser_counters_read(struct pmuser_counters *c, uint64_t values[]);

/*
 * Module backend: every counter's hardware register, the values pmuser_counter_read_n()
 * returns, read by a reader chosen at open for the set's layout (on AArch64 the barrier, the
 * reads and the barrier); not extended and not checked. pmuser_page_delta() of
 * pmuser_counters_page(), with a pmuser_page_mark() taken before the first read and each
 * counter's pmuser_counters_slot() and pmuser_counters_hw(), says whether the deltas of two
 * such reads are counts, and gives them. Unsupported counters read 0.
 * Returns 0, or -EOPNOTSUPP on the other backends.
 */
int pmuser_counters_read_raw(struct pmuser_counters *c, uint64_t values[]);

/* A count with perf's multiplexing times; running < enabled means it was multiplexed. */
struct pmuser_count {
	uint64_t value;
	uint64_t enabled;		/* ns the counter was enabled */
	uint64_t running;		/* ns it was on a hardware counter */
};

/* Like pmuser_counters_read() with times (module and clock: running == enabled). */
int pmuser_counters_read_full(struct pmuser_counters *c, struct pmuser_count counts[]);
/* value scaled to the whole enabled time (the estimate perf stat prints); 0 if never ran. */
double pmuser_count_scaled(const struct pmuser_count *count);

/*
 * Prints one line per counter: name, count with the locale's thousands separators, and the
 * scaled estimate with its share of time when multiplexed; "not supported by this PMU" for
 * counters the backend could not count, "not counted" for those that never ran.
 */
void pmuser_counters_print(FILE *f, const struct pmuser_counters *c,
			   const struct pmuser_count counts[]);

/*
 * Start, stop and zero counting (perf: ioctls on the group, a counting perf-mmap set reset
 * off its counters and enabled again; module: reset is global).
 */
int pmuser_counters_enable(struct pmuser_counters *c);
int pmuser_counters_disable(struct pmuser_counters *c);
int pmuser_counters_reset(struct pmuser_counters *c);

/* ---- regions: bias-corrected deltas around a block of code (pmuser_counters.c) ----------- */
/*
 * pmuser_region_start/stop read all counters with barriers around the block; the bias, what
 * an empty region measures with the identical sequence, is calibrated once per counter set
 * (minimum over rounds) and subtracted. Under QEMU's -icount an empty region then measures
 * 0 instructions and a k-instruction block k.
 *
 * valid is false when the deltas cannot be trusted: on the module backend, the thread
 * changed CPU or was switched out (its CPU's counters then counted other threads too), or
 * perf reloaded, moved or stopped a counter in between (the counter page says so); on the
 * perf backends, the set was not counting at the start (opened disabled or disabled since),
 * was enabled, disabled or reset in between, a read at either end failed, or perf had an
 * event off its counter at either end or for part of the time between (multiplexing). Drop
 * such regions: their deltas are not counts.
 * A switch leaves a perf-backend region valid, since perf counts per thread, yet the block
 * still pays for it: cold caches, and on 32-bit kernels the lazy FP trap at the thread's next
 * VFP instruction (QEMU counts that instruction as retired twice).
 */
struct pmuser_region {
	uint64_t start[PMUSER_COUNTERS_MAX];
	uint64_t raw[PMUSER_COUNTERS_MAX];	/* uncorrected deltas of the last stop */
	int64_t delta[PMUSER_COUNTERS_MAX];	/* raw minus bias; may be negative from noise */
	bool valid;
	int cpu;				/* module: CPU of the start */
	uint32_t seq;				/* module: that CPU's page sequence at the start;
						   perf: the set's enable/disable/reset count */
	uint64_t gap[PMUSER_COUNTERS_MAX];	/* perf: enabled minus running at the start */
};

/* Measures the empty-region bias (rounds >= 1, e.g. 1000); 0 or -errno. */
int pmuser_region_calibrate(struct pmuser_counters *c, unsigned int rounds);
/* The calibrated bias of counter i (0 before calibration). */
uint64_t pmuser_region_bias(const struct pmuser_counters *c, unsigned int i);
void pmuser_region_start(struct pmuser_counters *c, struct pmuser_region *r);
void pmuser_region_stop(struct pmuser_counters *c, struct pmuser_region *r);

/* for-statement around a block: PMUSER_REGION(c, &r) { work(); } then read r.delta[]. */
#define PMUSER_REGION(c, r)							\
	for (int pmuser__once = (pmuser_region_start((c), (r)), 1); pmuser__once;	\
	     pmuser__once = (pmuser_region_stop((c), (r)), 0))

/* ---- presets and metrics (pmuser_presets.c) ------------------------------------------------ */
/*
 * A preset lists slots: a label and the event names that fill it, "INST_RETIRED|INSTR_EXEC"
 * meaning the first the core knows, so one preset serves ARMv8, ARMv7 and ARM1176. Slots of
 * one group belong in one counter set when the counters must be time-shared (a ratio's two
 * events then see the same duty cycle). Counter sets opened from a preset always hold the
 * cycle counter as counter 0.
 *
 * Metrics are defined once, over event names rather than presets, so they apply to any
 * counted events: a metric is computed whenever its operands were counted.
 */
#define PMUSER_PRESET_SLOTS	16

struct pmuser_preset_slot {
	const char *label;		/* "L1D refills" */
	const char *events;		/* "L1D_CACHE_REFILL|DCACHE_MISS" */
	unsigned int group;		/* slots with equal group are counted together */
};

struct pmuser_preset {
	const char *name;		/* "default", "ipc", "instructions", "data", ... */
	const char *summary;
	struct pmuser_preset_slot slot[PMUSER_PRESET_SLOTS];
	unsigned int nr_slots;
};

/* All presets: returns how many and stores the array in *list. */
unsigned int pmuser_presets(const struct pmuser_preset **list);
/* The preset called name (any case), or NULL. */
const struct pmuser_preset *pmuser_preset_find(const char *name);
/*
 * The event filling slot s on the core with midr: the first alternative its tables know and,
 * if ci is not NULL, its PMCEID reports. NULL if there is none.
 */
const struct pmuser_event *pmuser_preset_event(const struct pmuser_preset *p, unsigned int s,
					       uint32_t midr, const struct pmuser_cpu_info *ci);
/*
 * Fills attr (PMUSER_COUNTERS_CYCLES plus one event per slot the core has, user mode) for the
 * core with midr; ci as in pmuser_preset_event(). Slots left out are reported unsupported by
 * pmuser_preset_print(). Returns 0, -ENOENT if no slot is left, or -EINVAL for a NULL p or
 * attr.
 */
int pmuser_preset_attr(const struct pmuser_preset *p, uint32_t midr,
		       const struct pmuser_cpu_info *ci, struct pmuser_counters_attr *attr);
/*
 * Partitions the slots the core has (midr, ci as in pmuser_preset_event()) into counter sets
 * of at most per_set events for time-division multiplexing: each group goes whole into the
 * first set with room for it (a group larger than per_set is spread slot by slot), in slot
 * order. Stores slot s's set in set[s] (-1: the core lacks it) and returns the number of sets,
 * or -EINVAL (per_set 0) or -ENOENT (no slot left). On the ARM1176 (2 counters) the default
 * preset comes out as rpistat's four sets.
 */
int pmuser_preset_sets(const struct pmuser_preset *p, uint32_t midr,
		       const struct pmuser_cpu_info *ci, unsigned int per_set,
		       int set[PMUSER_PRESET_SLOTS]);

/* Operand naming the cycle counter (event names are upper case, so it cannot clash). */
#define PMUSER_METRIC_CYCLES	"cycles"
/* Numerator standing for each counted event but the denominator: per-event rates. */
#define PMUSER_METRIC_EACH	"*"

struct pmuser_metric {
	const char *label;		/* "L1D miss ratio"; with PMUSER_METRIC_EACH the
					 * suffix after each event's name: "rate" */
	const char *num, *den;		/* event alternatives, PMUSER_METRIC_CYCLES or _EACH */
	double scale;			/* 1, 100 (percent) or 1000 (per thousand) */
	const char *unit;		/* "", "%", "PTI" */
};

/* A named count for metrics: an event's name (any case) or "cycles"; NAN if not counted. */
struct pmuser_value {
	const char *name;
	double value;
};

/* A metric computed over values. */
struct pmuser_metric_value {
	const struct pmuser_metric *metric;
	char label[64];			/* "IPC", "L1D miss ratio", "BR_PRED rate" */
	double value;			/* NAN if an operand is NAN or the divisor 0 */
};

/* All metric definitions, in report order: returns how many and stores them in *list. */
unsigned int pmuser_metrics(const struct pmuser_metric **list);
/*
 * Evaluates every metric whose operands are among the n values (PMUSER_METRIC_EACH: once per
 * other event name, first occurrence), in pmuser_metrics() order; stores at most max in out
 * and returns how many were stored. Scale counts to the same duty cycle first.
 */
size_t pmuser_metrics_eval(const struct pmuser_value values[], size_t n,
			   struct pmuser_metric_value out[], size_t max);
/* The metric labelled label (exact, e.g. "IPC") among m[0..n), or NULL. */
const struct pmuser_metric_value *pmuser_metric_value_find(const struct pmuser_metric_value m[],
							   size_t n, const char *label);
/*
 * The values of a counter set (counts[] from pmuser_counters_read_full()): scaled counts
 * named by event, the cycle counter as "cycles" (NAN on the clock backend, where counter 0
 * is time), NAN for unsupported counters and for those that never ran (running 0: perf never
 * had them on a counter). out has room for pmuser_counters_nr(c); returns n.
 */
size_t pmuser_values_fill(const struct pmuser_counters *c, const struct pmuser_count counts[],
			  struct pmuser_value out[]);
/*
 * Prints the counts (raw, then [scaled] when multiplexed) by slot label, a blank line between
 * groups, then the metrics (n/a where an operand was not counted), in rpistat's layout with
 * the locale's thousands separators (call setlocale(LC_NUMERIC, "")). counts[] are from
 * pmuser_counters_read_full() on a set opened from pmuser_preset_attr().
 */
void pmuser_preset_print(FILE *f, const struct pmuser_preset *p, const struct pmuser_counters *c,
			 const struct pmuser_count counts[]);
/* v with the locale's thousands separators ("1,234,567" in en_US), rounded to an integer. */
const char *pmuser_fmt_count(char *buf, size_t len, double v);

/* ---- small helpers ------------------------------------------------------------------------ */

/* Pins the calling thread to cpu: 0 or -errno. */
int pmuser_thread_pin(int cpu);

#ifdef __cplusplus
}
#endif

/* The inline fast path: the bodies of the static inline functions declared above. */
#include "pmuser/fast.h"

#endif /* PMUSER_H */
