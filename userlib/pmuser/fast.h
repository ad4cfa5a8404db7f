/* SPDX-License-Identifier: MIT */
/*
 * pmuser: the inline fast path of <pmuser.h>, the bodies of the static inline functions it
 * declares and documents (the PMU register reads, the calling thread's CPU and the counter
 * page's readers) and the helpers they need. <pmuser.h> includes this file at its end, after
 * the types and declarations it uses; programs include <pmuser.h> and never this file. The
 * helpers' names have two underscores (pmuser__*, PMUSER__*): they are no part of the API,
 * though the library's own readers use some of them.
 */
/* Included without <pmuser.h>, whose types it uses: one error, not a cascade of them. */
#ifndef PMUSER_H
#error "pmuser/fast.h is a part of <pmuser.h>: include <pmuser.h> instead"
#elif !defined(PMUSER_FAST_H)
#define PMUSER_FAST_H

/* glibc's rseq area, for pmuser_thread_cpu(): present from glibc 2.35. */
#if defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * pmuser__isb(): the barrier of the serialised reads. pmuser__mrs(v, reg): one MRS of the
 * AArch64 system register reg into v; the register is part of the instruction, so each
 * register has its own.
 */
#if defined(PMUSER_FAST_A64)
#define pmuser__isb() __asm__ __volatile__("isb" ::: "memory")
#define pmuser__mrs(v, reg) __asm__ __volatile__("mrs %0, " #reg : "=r"(v))
#elif defined(PMUSER_FAST_V7)
#define pmuser__isb() __asm__ __volatile__("isb" ::: "memory")
#elif defined(PMUSER_FAST_V6)
/* ARMv6 has no ISB instruction; the CP15 prefetch flush is its user-mode equivalent. */
#define pmuser__isb() __asm__ __volatile__("mcr p15, 0, %0, c7, c5, 4" :: "r"(0) : "memory")
#else
#define pmuser__isb() __asm__ __volatile__("" ::: "memory")
#endif

/*
 * Unrolls the loop that follows, so that a constant count of reads comes out as straight-line
 * code. Only when optimising: GCC warns that it ignores the request at -O0.
 */
#if defined(__OPTIMIZE__)
#define PMUSER__UNROLL _Pragma("GCC unroll 32")
#else
#define PMUSER__UNROLL
#endif

/* ---- the register reads ------------------------------------------------------------------- */

static inline uint64_t pmuser_cycles_read(void)
{
#if defined(PMUSER_FAST_A64)
	uint64_t v;

	pmuser__mrs(v, pmccntr_el0);
	return v;
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

static inline uint64_t pmuser_cycles_read_serial(void)
{
	pmuser__isb();
	return pmuser_cycles_read();
}

#if defined(PMUSER_FAST_A64)
/* Event counter n is system register PMEVCNTR<n>_EL0 (op0 3, op1 3, CRn 14, CRm 8 + n / 8,
 * op2 n % 8); each needs its own instruction, so a constant n folds to one MRS.
 */
#define PMUSER__EVCNTR_CASE(n) case n: pmuser__mrs(v, pmevcntr##n##_el0); return v
static inline __attribute__((always_inline)) uint64_t pmuser__evcntr_read(unsigned int n)
{
	uint64_t v;

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
	case PMUSER_HW_CYCLE: pmuser__mrs(v, pmccntr_el0); return v;
	default: return 0;
	}
}
#undef PMUSER__EVCNTR_CASE
#elif defined(PMUSER_FAST_V7)
/*
 * ARMv7 reaches event counters through PMSELR (c9, c12, 5) and PMXEVCNTR (c9, c13, 2). The
 * kernel's perf driver selects counters too, from interrupts that can land between the two
 * instructions: read PMSELR back and retry if the value came from another counter. A read
 * that loses the race every time returns all ones, the value the page's readers refuse.
 */
static inline __attribute__((always_inline)) uint64_t pmuser__evcntr_read(unsigned int n)
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
	/* All ones is a value no reader accepts (pmuser_page_raw_usable()): flagged, not wrong. */
	return sel == n ? v : UINT32_MAX;
}

/*
 * PMUv3 in AArch32 (an ARMv8 core under a 32-bit kernel: pmuser_cpu_info.pmu_version 3 to
 * 14) also names each event counter n in the instruction, PMEVCNTR<n> (c14, c8 + n / 8,
 * n % 8): one read, nothing selected. PMUv2 cores (Cortex-A7/A9/A15) trap it.
 */
#define PMUSER__A32V3_CASE(n, crm, op2)						\
	case n: __asm__ __volatile__("mrc p15, 0, %0, c14, c" #crm ", " #op2 : "=r"(v)); break
static inline __attribute__((always_inline)) uint64_t pmuser__evcntr_read_pmuv3(unsigned int n)
{
	uint32_t v = 0;

	switch (n) {
	PMUSER__A32V3_CASE(0, 8, 0); PMUSER__A32V3_CASE(1, 8, 1); PMUSER__A32V3_CASE(2, 8, 2);
	PMUSER__A32V3_CASE(3, 8, 3); PMUSER__A32V3_CASE(4, 8, 4); PMUSER__A32V3_CASE(5, 8, 5);
	PMUSER__A32V3_CASE(6, 8, 6); PMUSER__A32V3_CASE(7, 8, 7); PMUSER__A32V3_CASE(8, 9, 0);
	PMUSER__A32V3_CASE(9, 9, 1); PMUSER__A32V3_CASE(10, 9, 2); PMUSER__A32V3_CASE(11, 9, 3);
	PMUSER__A32V3_CASE(12, 9, 4); PMUSER__A32V3_CASE(13, 9, 5); PMUSER__A32V3_CASE(14, 9, 6);
	PMUSER__A32V3_CASE(15, 9, 7); PMUSER__A32V3_CASE(16, 10, 0); PMUSER__A32V3_CASE(17, 10, 1);
	PMUSER__A32V3_CASE(18, 10, 2); PMUSER__A32V3_CASE(19, 10, 3); PMUSER__A32V3_CASE(20, 10, 4);
	PMUSER__A32V3_CASE(21, 10, 5); PMUSER__A32V3_CASE(22, 10, 6); PMUSER__A32V3_CASE(23, 10, 7);
	PMUSER__A32V3_CASE(24, 11, 0); PMUSER__A32V3_CASE(25, 11, 1); PMUSER__A32V3_CASE(26, 11, 2);
	PMUSER__A32V3_CASE(27, 11, 3); PMUSER__A32V3_CASE(28, 11, 4); PMUSER__A32V3_CASE(29, 11, 5);
	PMUSER__A32V3_CASE(30, 11, 6);
	case PMUSER_HW_CYCLE:
		__asm__ __volatile__("mrc p15, 0, %0, c9, c13, 0" : "=r"(v));
		break;
	default:
		break;
	}
	return v;
}
#undef PMUSER__A32V3_CASE
#elif defined(PMUSER_FAST_V6)
/* ARM1176 has two event counters: PMN0 (c15, c12, 2) and PMN1 (c15, c12, 3). */
static inline __attribute__((always_inline)) uint64_t pmuser__evcntr_read(unsigned int n)
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
static inline __attribute__((always_inline)) uint64_t pmuser__evcntr_read(unsigned int n)
{
	(void)n;
	return 0;
}
#endif

static inline uint64_t pmuser_counter_read(unsigned int hw)
{
	return pmuser__evcntr_read(hw);
}

static inline uint64_t pmuser_counter_read_serial(unsigned int hw)
{
	pmuser__isb();
	return pmuser__evcntr_read(hw);
}

#if defined(PMUSER_FAST_V7)
static inline uint64_t pmuser_counter_read_pmuv3(unsigned int hw)
{
	return pmuser__evcntr_read_pmuv3(hw);
}

/*
 * One pass of reads of hardware counters hw[0..n-1] into raw[], last to first if reverse,
 * without barriers: each event counter selected, read, and the selection read back. Non-zero
 * when a read lost the race with the kernel's selections (see pmuser__evcntr_read).
 */
static inline __attribute__((always_inline)) uint32_t
pmuser__evcntr_once(unsigned int n, const unsigned int hw[], uint64_t raw[], bool reverse)
{
	unsigned int i, k;
	uint32_t bad = 0;

	PMUSER__UNROLL
	for (k = 0; k < n && k < 32; k++) {
		uint32_t v, sel;

		i = reverse ? n - 1 - k : k;
		if (hw[i] == PMUSER_HW_CYCLE) {
			raw[i] = pmuser_cycles_read();
			continue;
		}
		__asm__ __volatile__("mcr p15, 0, %0, c9, c12, 5" :: "r"(hw[i]));
		pmuser__isb();
		__asm__ __volatile__("mrc p15, 0, %0, c9, c13, 2" : "=r"(v));
		__asm__ __volatile__("mrc p15, 0, %0, c9, c12, 5" : "=r"(sel));
		bad |= sel ^ hw[i];
		raw[i] = v;
	}
	return bad;
}
#endif

/*
 * Reads of hardware counters hw[0..n-1] into raw[], last to first if reverse, without
 * barriers. ARMv7 selects each event counter first; the race with the kernel's selections
 * (see pmuser__evcntr_read) is checked once for the whole batch, and a batch that loses it
 * every time returns all ones for each event counter.
 */
static inline __attribute__((always_inline)) void
pmuser__evcntr_batch(unsigned int n, const unsigned int hw[], uint64_t raw[], bool reverse)
{
	unsigned int k;
#if defined(PMUSER_FAST_V7)
	unsigned int tries = 0;
	uint32_t bad;

	do
		bad = pmuser__evcntr_once(n, hw, raw, reverse);
	while (bad && ++tries < 8);
	if (bad) {
		PMUSER__UNROLL
		for (k = 0; k < n && k < 32; k++)
			if (hw[k] != PMUSER_HW_CYCLE)
				raw[k] = UINT32_MAX;
	}
#else
	PMUSER__UNROLL
	for (k = 0; k < n && k < 32; k++) {
		unsigned int i = reverse ? n - 1 - k : k;

		raw[i] = pmuser__evcntr_read(hw[i]);
	}
#endif
}

static inline __attribute__((always_inline)) void
pmuser_counter_read_n(unsigned int n, const unsigned int hw[], uint64_t values[])
{
	uint64_t raw[32];
	unsigned int i;

	/* Into registers first: the stores come after the closing barrier, not between reads. */
	pmuser__isb();
	pmuser__evcntr_batch(n, hw, raw, false);
	pmuser__isb();
	PMUSER__UNROLL
	for (i = 0; i < n && i < 32; i++)
		values[i] = raw[i];
}

/* ---- the calling thread's CPU ------------------------------------------------------------- */

/* pmuser_thread_cpu()'s fallback: exported for it (libpmuser.map), not an API of its own. */
int pmuser__thread_cpu_slow(void);

/* Whether the kernel keeps this process's threads' rseq cpu_id (glibc registered rseq). */
static inline bool pmuser__rseq_usable(void)
{
#if defined(RSEQ_SIG) && (defined(__aarch64__) || defined(__arm__))
	return __rseq_size != 0;
#else
	return false;
#endif
}

/* The calling thread's rseq cpu_id where pmuser__rseq_usable(); negative if unregistered. */
static inline int pmuser__rseq_cpu(void)
{
#if defined(RSEQ_SIG) && (defined(__aarch64__) || defined(__arm__))
	const struct rseq *rs = (const struct rseq *)
		((char *)__builtin_thread_pointer() + __rseq_offset);

	return (int)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);
#else
	return -1;
#endif
}

static inline int pmuser_thread_cpu(void)
{
	if (pmuser__rseq_usable()) {
		int cpu = pmuser__rseq_cpu();

		if (cpu >= 0)
			return cpu;
	}
	return pmuser__thread_cpu_slow();
}

/* ---- the counter page's readers ----------------------------------------------------------- */

static inline const volatile struct pmuser_page_cpu *pmuser_page_cpu(const struct pmuser_page *pg,
								     unsigned int cpu)
{
	return (const volatile struct pmuser_page_cpu *)(pg->base + (size_t)cpu * pg->stride);
}

static inline uint64_t pmuser_page_mask(const volatile struct pmuser_page_slot *s)
{
	return s->bits >= 64 ? UINT64_MAX : (1ULL << s->bits) - 1;
}

static inline bool pmuser_page_raw_usable(const volatile struct pmuser_page_slot *s, uint64_t raw)
{
	uint64_t mask = pmuser_page_mask(s);

	raw &= mask;
	return raw >= s->base && raw != mask;
}

static inline uint64_t pmuser_page_value(const volatile struct pmuser_page_slot *s, uint64_t raw)
{
	return s->count + ((raw - s->base) & pmuser_page_mask(s));
}

#ifdef __cplusplus
}
#endif

#endif /* PMUSER_FAST_H */
