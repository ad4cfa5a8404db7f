// SPDX-License-Identifier: MIT
/*
 * pmuser: the module backend's readers, chosen once at open for the set's layout.
 *
 * A set's hardware counters are fixed when it is configured (pmuser_event_config.hw_counter),
 * and perf, with nothing else running, hands out the cycle counter and event counters from 0
 * up. For those layouts the readers here name every register in the instruction itself: a
 * raw read of n counters is "isb; n reads; isb", and a read of all counters through the page
 * loads each slot once, reads, and checks one sequence. Any other layout, or a page that says
 * perf moved a counter, takes the general path (pmuser_page_read()), which is slower and
 * equally exact.
 */
#include <errno.h>
#include <stddef.h>

#include "pmuser_internal.h"

/* A slot's hw and bits, adjacent and 8-byte aligned, compared in one load. */
typedef uint64_t __attribute__((may_alias)) hw_word_t;

/*
 * A raw counter value. AArch32 counters are 32 bits wide (pmuser__module_readers() checks),
 * so their arithmetic stays in one register, and of a slot's base only the low half counts.
 */
#if defined(PMUSER_FAST_A64)
typedef uint64_t ctr_t;
#define SLOT_BASE(s) ((s)->base)
#else
typedef uint32_t ctr_t;
typedef uint32_t __attribute__((may_alias)) half_t;
#define SLOT_BASE(s)								\
	(((const volatile half_t *)&(s)->base)[__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__])
#endif

static uint64_t hw_word(uint32_t hw, uint32_t bits)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (uint64_t)hw << 32 | bits;
#else
	return (uint64_t)bits << 32 | hw;
#endif
}

/*
 * One pass of the reads of a layout, without barriers: true when it lost the race with the
 * kernel's counter selections (PMUv2), and the caller reads another way. PMUv3 in AArch32
 * names every event counter in the instruction and selects nothing.
 */
static inline __attribute__((always_inline)) bool
fixed_batch(unsigned int n, const unsigned int hw[], uint64_t raw[], bool reverse, bool pmuv3)
{
#if defined(PMUSER_FAST_V7)
	unsigned int i, k;

	if (pmuv3) {
		_Pragma("GCC unroll 8")
		for (k = 0; k < n; k++) {
			i = reverse ? n - 1 - k : k;
			raw[i] = pmuser__evcntr_read_pmuv3(hw[i]);
		}
		return false;
	}
	return pmuser__evcntr_once(n, hw, raw, reverse) != 0;
#else
	(void)pmuv3;
	pmuser__evcntr_batch(n, hw, raw, reverse);
	return false;
#endif
}

/*
 * One try of a read of every counter through the page, for hardware counters hw[] known at
 * compile time: 0, or -EAGAIN when the general path has to decide (a switch, a publication,
 * a reload still pending, a counter that is not where the set was configured, or a thread
 * without an rseq area). The CPU is the thread's rseq cpu_id: chosen only where glibc
 * registered rseq, so the read calls nothing.
 */
static inline __attribute__((always_inline)) int
fixed_read(const struct pmuser_counters *c, uint64_t values[], unsigned int n,
	   const unsigned int hw[], bool pmuv3)
{
	uint64_t word[PMUSER_FAST_LAYOUT_MAX], count[PMUSER_FAST_LAYOUT_MAX];
	uint64_t raw[PMUSER_FAST_LAYOUT_MAX];
	ctr_t base[PMUSER_FAST_LAYOUT_MAX];
	const volatile struct pmuser_page_cpu *rec;
	int cpu = pmuser__rseq_cpu();
	unsigned int i;
	uint32_t seq;
	bool lost;

	if ((unsigned int)cpu >= c->page.nr_cpus)
		return -EAGAIN;
	rec = pmuser_page_cpu(&c->page, (unsigned int)cpu);
	seq = rec->seq;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	_Pragma("GCC unroll 8")
	for (i = 0; i < n; i++) {
		const volatile struct pmuser_page_slot *s = (const volatile struct pmuser_page_slot *)
			((const volatile char *)rec + c->read_off[i]);

		word[i] = *(const volatile hw_word_t *)&s->hw;
		base[i] = SLOT_BASE(s);
		count[i] = s->count;
	}
	pmuser__isb();
	lost = fixed_batch(n, hw, raw, false, pmuv3);
	pmuser__isb();
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (lost || rec->seq != seq || (seq & 1) || pmuser__rseq_cpu() != cpu)
		return -EAGAIN;
	_Pragma("GCC unroll 8")
	for (i = 0; i < n; i++) {
		ctr_t mask = (ctr_t)c->read_mask[i], r = (ctr_t)raw[i] & mask;

		/* Below base or all ones: perf reloaded the counter, its interrupt is to come. */
		if (word[i] != c->read_word[i] || r < base[i] || r == mask)
			return -EAGAIN;
		values[i] = count[i] + (ctr_t)((r - base[i]) & mask);
	}
	return 0;
}

/*
 * Raw reads between barriers, nothing else between them (the stores follow the closing one);
 * a region's start reads the cycle counter (index 0) last, its stop first. true when the pass
 * lost the race with the kernel's selections, values unset: the caller reads another way.
 */
static inline __attribute__((always_inline)) bool
fixed_raw(uint64_t values[], unsigned int n, const unsigned int hw[], bool reverse, bool pmuv3)
{
	uint64_t raw[PMUSER_FAST_LAYOUT_MAX];
	unsigned int i;
	bool lost;

	pmuser__isb();
	lost = fixed_batch(n, hw, raw, reverse, pmuv3);
	pmuser__isb();
	if (lost)
		return true;
	_Pragma("GCC unroll 8")
	for (i = 0; i < n; i++)
		values[i] = raw[i];
	return false;
}

static void any_raw(const struct pmuser_counters *c, uint64_t values[], bool reverse);

#define C PMUSER_HW_CYCLE
#define NR(name) (sizeof(hw_##name) / sizeof(hw_##name[0]))
#define READERS(name, sfx, v3)							\
static int read_##name##sfx(struct pmuser_counters *c, uint64_t values[])	\
{										\
	if (!fixed_read(c, values, NR(name), hw_##name, v3))			\
		return 0;							\
	return pmuser__read_general(c, values);					\
}										\
static void start_##name##sfx(const struct pmuser_counters *c, uint64_t values[]) \
{										\
	if (fixed_raw(values, NR(name), hw_##name, true, v3))			\
		any_raw(c, values, true);					\
}										\
static void stop_##name##sfx(const struct pmuser_counters *c, uint64_t values[]) \
{										\
	if (fixed_raw(values, NR(name), hw_##name, false, v3))			\
		any_raw(c, values, false);					\
}										\
static void region_stop_##name##sfx(struct pmuser_counters *c, struct pmuser_region *r) \
{										\
	if (fixed_raw(r->raw, NR(name), hw_##name, false, v3))			\
		pmuser__region_stop_general(c, r);				\
	else									\
		pmuser__region_end(c, r, r->raw, NULL);				\
}
#if defined(PMUSER_FAST_V7)
#define LAYOUT(name, ...)							\
static const unsigned int hw_##name[] = { __VA_ARGS__ };			\
READERS(name, , false)								\
READERS(name, _v3, true)
#define ENTRY(name) { hw_##name, NR(name), { read_##name, read_##name##_v3 },	\
		      { start_##name, start_##name##_v3 }, { stop_##name, stop_##name##_v3 },	\
		      { region_stop_##name, region_stop_##name##_v3 } }
#else
#define LAYOUT(name, ...)							\
static const unsigned int hw_##name[] = { __VA_ARGS__ };			\
READERS(name, , false)
#define ENTRY(name) { hw_##name, NR(name), { read_##name, read_##name },	\
		      { start_##name, start_##name }, { stop_##name, stop_##name },	\
		      { region_stop_##name, region_stop_##name } }
#endif

LAYOUT(c, C)
LAYOUT(c0, C, 0)
LAYOUT(c01, C, 0, 1)
LAYOUT(c012, C, 0, 1, 2)
LAYOUT(c0123, C, 0, 1, 2, 3)
LAYOUT(e0, 0)
LAYOUT(e01, 0, 1)
LAYOUT(e012, 0, 1, 2)
LAYOUT(e0123, 0, 1, 2, 3)
#undef C

/* Per layout, its readers and region stop for PMUv2 [0] and, in AArch32, PMUv3 [1]. */
static const struct {
	const unsigned int *hw;
	unsigned int n;
	pmuser__read_fn *read[2];
	pmuser__raw_fn *start[2], *stop[2];
	pmuser__region_fn *region_stop[2];
} layouts[] = {
	ENTRY(c), ENTRY(c0), ENTRY(c01), ENTRY(c012), ENTRY(c0123),
	ENTRY(e0), ENTRY(e01), ENTRY(e012), ENTRY(e0123),
};

/* Raw reads of any layout: each counter's register is found at run time. */
static void any_raw(const struct pmuser_counters *c, uint64_t values[], bool reverse)
{
	unsigned int i, k;

	pmuser__isb();
	for (k = 0; k < c->nr; k++) {
		i = reverse ? c->nr - 1 - k : k;
		values[i] = c->ctr[i].supported ? pmuser_counter_read(c->ctr[i].hw) : 0;
	}
	pmuser__isb();
}

static void any_start(const struct pmuser_counters *c, uint64_t values[])
{
	any_raw(c, values, true);
}

static void any_stop(const struct pmuser_counters *c, uint64_t values[])
{
	any_raw(c, values, false);
}

void pmuser__module_readers(struct pmuser_counters *c, unsigned int pmu_version)
{
	/* ID_DFR0.PerfMon: 3 and up PMUv3, 15 an IMPLEMENTATION DEFINED PMU. */
	unsigned int v3 = PMUSER_FAST_ARCH == PMUSER_ARCH_ARMV7 && pmu_version >= 3 &&
			  pmu_version < 15;
	unsigned int i, k;

	c->read_all = pmuser__read_general;
	c->raw_start = any_start;
	c->raw_stop = any_stop;
	c->region_stop = pmuser__region_stop_general;
	for (i = 0; i < c->nr_read; i++) {
		const struct pmuser_ctr *ctr = &c->ctr[c->read_idx[i]];

		c->read_off[i] = (uint32_t)(offsetof(struct pmuser_page_cpu, slot) +
					    c->read_slot[i] * sizeof(struct pmuser_page_slot));
		c->read_word[i] = hw_word(ctr->hw, ctr->bits);
		c->read_mask[i] = ctr->bits >= 64 ? UINT64_MAX : (1ULL << ctr->bits) - 1;
	}
	if (c->nr_read != c->nr || !pmuser__rseq_usable())
		return;
	for (i = 0; i < c->nr; i++)
		if ((ctr_t)c->read_mask[i] != c->read_mask[i])
			return;
	for (k = 0; k < sizeof(layouts) / sizeof(layouts[0]); k++) {
		if (layouts[k].n != c->nr)
			continue;
		for (i = 0; i < c->nr && layouts[k].hw[i] == c->ctr[i].hw; i++)
			;
		if (i < c->nr)
			continue;
		c->read_all = layouts[k].read[v3];
		c->raw_start = layouts[k].start[v3];
		c->raw_stop = layouts[k].stop[v3];
		c->region_stop = layouts[k].region_stop[v3];
		return;
	}
}
