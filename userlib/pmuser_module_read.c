// SPDX-License-Identifier: MIT
/*
 * pmuser: the module backend's readers, chosen once at open for the set's layout.
 *
 * A set's hardware counters are fixed when it is configured (pmuser_event_config.hw_counter),
 * and perf, with nothing else running, hands out the cycle counter and event counters from 0
 * up. For those layouts the readers here name every register in the instruction itself: a
 * raw read of n counters is "isb; n reads; isb", and a read of all counters through the page
 * loads the CPU record's sequence and away mask in one word, reads, loads each slot once and
 * checks the sequence again. Any other layout, or a page that says perf moved a counter, takes
 * the general path (pmuser_page_read()), which is slower and equally exact.
 */
#include <errno.h>
#include <stddef.h>

#include "pmuser_internal.h"

/*
 * A CPU record's seq and away, loaded as one word: the reader's layout holds while the word
 * is good (seq even, no slot away: slot s is on counter s) and its seq (WORD_SEQ) is the
 * same after the reads.
 */
typedef uint64_t __attribute__((may_alias)) word_mem_t;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define WORD_BAD 0x00000001ffffffffULL	/* seq's low bit, all of away */
#define WORD_SEQ(word) ((uint32_t)((word) >> 32))
#else
#define WORD_BAD 0xffffffff00000001ULL
#define WORD_SEQ(word) ((uint32_t)(word))
#endif

/* The stride of the module's CPU records that the readers build into their addresses. */
#define FAST_STRIDE_SHIFT 11

/*
 * Whether counter hw is read 64 bits wide: the cycle counter on AArch64. Every other counter
 * the readers take is 32 bits wide (pmuser__module_readers() checks the page's widths), and
 * of its slot's base only the low half counts.
 */
#if defined(PMUSER_FAST_A64)
#define WIDE(hw) ((hw) == PMUSER_HW_CYCLE)
#define CYCLE_BITS 64U
#else
#define WIDE(hw) false
#define CYCLE_BITS 32U
#endif
typedef uint32_t __attribute__((may_alias)) half_t;
#define SLOT_LOW(s)								\
	(((const volatile half_t *)&(s)->base)[__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__])

/* A record's word, then (ordered after it) the reads and loads of its slots. */
static inline __attribute__((always_inline)) uint64_t
word_acquire(const volatile struct pmuser_page_cpu *rec)
{
#if defined(PMUSER_FAST_A64)
	uint64_t word = __atomic_load_n((const volatile word_mem_t *)&rec->seq, __ATOMIC_ACQUIRE);

	__asm__ __volatile__("" ::: "memory");
	return word;
#else
	uint64_t word = *(const volatile word_mem_t *)&rec->seq;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return word;
#endif
}

typedef struct {
	uint64_t w[2];
} __attribute__((may_alias)) pair_t;

/* A slot's base (only its low half where the counter is 32 bits wide) and count. */
static inline __attribute__((always_inline)) void
slot_load(const volatile struct pmuser_page_slot *s, bool wide, uint64_t *base, uint64_t *count)
{
#if defined(PMUSER_FAST_A64) && !defined(__clang__)
	/*
	 * Both in one load (GCC's "Ump": an address a load pair takes): the low half of base is
	 * the low half of the register.
	 */
	(void)wide;
	__asm__ __volatile__("ldp %0, %1, %2"
			     : "=r"(*base), "=r"(*count)
			     : "Ump"(*(const volatile pair_t *)&s->base));
#elif defined(PMUSER_FAST_A64)
	(void)wide;
	*base = s->base;
	*count = s->count;
#elif defined(__thumb2__)
	/* Thumb-2's load pair takes any two registers: count in one load. */
	*base = wide ? s->base : SLOT_LOW(s);
	*count = s->count;
#else
	const volatile half_t *cnt = (const volatile half_t *)&s->count;
	bool be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	/* Halves of 32 bits each: in ARM state a 64-bit load ties an even register pair up. */
	*base = wide ? s->base : SLOT_LOW(s);
	*count = (uint64_t)cnt[!be] << 32 | cnt[be];
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
 * compile time, each in the slot of its own number: 0, or -EAGAIN when the general path has
 * to decide (a switch, a publication, a reload still pending, a slot away from its counter,
 * or a thread without an rseq area). The CPU is the thread's rseq cpu_id: chosen only where
 * glibc registered rseq, so the read calls nothing. The word is checked as soon as it is
 * loaded, and afterwards only its seq is compared: away changes only inside a publication,
 * which changes seq. The CPU is checked right after the reads: a thread that left the CPU
 * and came back before that check had a switch there after the word was loaded (out, or
 * back in), and every switch moves the CPU's seq. A try that fails may have written some of
 * values[]; the general path then writes all of them, or the read fails.
 */
static inline __attribute__((always_inline)) int
fixed_read(const struct pmuser_counters *c, uint64_t values[], unsigned int n,
	   const unsigned int hw[], bool pmuv3)
{
	uint64_t raw[PMUSER_FAST_LAYOUT_MAX];
	const volatile struct pmuser_page_cpu *rec;
	const volatile int *cpu_id = (const volatile int *)
		((const char *)__builtin_thread_pointer() + c->rseq_off + 4);
	int cpu = *cpu_id;
	uint64_t word;
	unsigned int i;
	bool bad = false;
	uint32_t seq;

	/*
	 * The kernel's CPU numbers are below the page's nr_cpus (pmuser_info, nr_cpu_ids), so only
	 * glibc's values for a thread it did not register (or failed to) are out of range.
	 */
	if (cpu < 0)
		return -EAGAIN;
	rec = (const volatile struct pmuser_page_cpu *)
		(c->page.base + ((size_t)cpu << FAST_STRIDE_SHIFT));
	/* Held in one register, not rebuilt from page.base and the CPU with both kept live. */
	__asm__("" : "+r"(rec));
	word = word_acquire(rec);
	if (word & WORD_BAD)
		return -EAGAIN;
	seq = WORD_SEQ(word);
	__asm__("" : "+r"(seq));	/* the one half kept for the check after the loads */
	pmuser__isb();
	if (fixed_batch(n, hw, raw, false, pmuv3))
		return -EAGAIN;
	pmuser__isb();
	if (*cpu_id != cpu)
		return -EAGAIN;
	_Pragma("GCC unroll 8")
	for (i = 0; i < n; i++) {
		uint64_t base, count;
		bool reloaded;

		slot_load(&rec->slot[hw[i]], WIDE(hw[i]), &base, &count);
		/*
		 * Below base or all ones, that is raw + 1 (wrapping) at most base: perf reloaded
		 * the counter and its interrupt is to come.
		 */
		if (WIDE(hw[i])) {
			reloaded = raw[i] + 1 <= base;
			raw[i] = count + (raw[i] - base);
		} else {
			reloaded = (uint32_t)(raw[i] + 1) <= (uint32_t)base;
			raw[i] = count + (uint32_t)((uint32_t)raw[i] - (uint32_t)base);
		}
		/*
		 * AArch64 chains the checks into one branch (ccmp) and stores after the seq check.
		 * A 32-bit core branches on each and stores each value here: held until the seq
		 * check, the values need more registers than it has.
		 */
#if defined(PMUSER_FAST_A64)
		bad |= reloaded;
#else
		if (reloaded)
			return -EAGAIN;
		values[i] = raw[i];
#endif
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (bad || rec->seq != seq)
		return -EAGAIN;
#if defined(PMUSER_FAST_A64)
	_Pragma("GCC unroll 8")
	for (i = 0; i < n; i++)
		values[i] = raw[i];
#endif
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

/*
 * A region's read that lost the race with the kernel's counter selections (ARMv7 PMUv2): read
 * again, it would put other instructions in the region than the calibrated bias holds, so its
 * values are all ones, which the region's check refuses (pmuser_page_raw_usable()).
 */
static inline __attribute__((always_inline)) void region_lost(uint64_t values[], unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		values[i] = UINT32_MAX;
}


#if defined(PMUSER_FAST_A64) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * AArch64's read of every counter through the page, written out: the same checks as
 * fixed_read() in as few instructions as they take, one try.
 * - The CPU is rseq's cpu_id_start, always a CPU number (0 while the thread has no rseq
 *   area), so its record's address needs no check. cpu_id, loaded after the reads, must
 *   equal it: -1 or -2 never does, so a thread without rseq falls through to the general
 *   path, and one that moved between the loads is caught.
 * - The record's word is tested at once (seq even, no slot away) and the flags carried to
 *   the end; seq is loaded again after the slots' offsets.
 * - A slot not away has base 2^(bits-1) + 1 (uapi), so a raw read is in its period when its
 *   top bit is set and it is not all ones, as a signed compare "below -1" says. It also
 *   takes 2^(bits-1), one below base, which no counter holds: perf loads base or all ones,
 *   and one that counts on from all ones wraps to 0 and is republished by its interrupt. The
 *   value is the read plus the slot's offset (count - base).
 * - The conditions are chained with ccmp/ccmn into one branch to the general path.
 * - No barrier orders the offsets' and seq's loads: every write of a CPU's record is made on
 *   that CPU, where the reader then ran (its CPU before and after the reads), so program
 *   order shows it any publication; a reader that moved runs on afterwards only through the
 *   scheduler, whose ordering shows it the switch that moved the seq.
 * Registers: x2 the record, x3 its word, w4 the CPU, x8 and x9 rseq and the CPU again and
 * seq again, x10 the cycle counter and x11 to x14 event counters 0 to 3 (then their values),
 * x5 the cycle slot's offset, x6, x7, x15, x16 the event slots'.
 */
__asm__(
"	.macro	pmuser_st v, off, a, b, rest:vararg\n"
"	.ifnb	\\b\n"
"	stp	\\a, \\b, [\\v, #(\\off)]\n"
"	pmuser_st \\v, (\\off + 16), \\rest\n"
"	.else\n"
"	.ifnb	\\a\n"
"	str	\\a, [\\v, #(\\off)]\n"
"	.endif\n"
"	.endif\n"
"	.endm\n"
"	.macro	pmuser_evchk ew, r, first\n"
"	.if	\\first\n"
"	ccmn	\\ew\\()\\r, #1, #0, eq\n"
"	.else\n"
"	ccmn	\\ew\\()\\r, #1, #0, lt\n"
"	.endif\n"
"	.endm\n"
"	.macro	pmuser_evval ew, r, off\n"
"	.ifc	\\ew, w\n"
"	add	x\\r, \\off, w\\r, uxtw\n"
"	.else\n"
"	add	x\\r, \\off, x\\r\n"
"	.endif\n"
"	.endm\n"
"	.macro	pmuser_read_all c, v, ctx, sh, offs, cyc, nev, ew, fail\n"
"	ldp	x8, x2, [\\c, #(\\ctx)]\n"
"	mrs	x9, tpidr_el0\n"
"	add	x9, x9, x8\n"
"	ldr	w4, [x9]\n"
"	add	x2, x2, x4, lsl #(\\sh)\n"
"	ldar	x3, [x2]\n"
"	tst	x3, #0xffffffff00000001\n"
"	isb\n"
"	.if	\\cyc\n"
"	mrs	x10, pmccntr_el0\n"
"	.endif\n"
"	.if	\\nev >= 1\n"
"	mrs	x11, pmevcntr0_el0\n"
"	.endif\n"
"	.if	\\nev >= 2\n"
"	mrs	x12, pmevcntr1_el0\n"
"	.endif\n"
"	.if	\\nev >= 3\n"
"	mrs	x13, pmevcntr2_el0\n"
"	.endif\n"
"	.if	\\nev >= 4\n"
"	mrs	x14, pmevcntr3_el0\n"
"	.endif\n"
"	isb\n"
"	ldr	w8, [x9, #4]\n"
"	.if	\\cyc\n"
"	ldr	x5, [x2, #(\\offs + 8 * 31)]\n"
"	.endif\n"
"	.if	\\nev == 1\n"
"	ldr	x6, [x2, #(\\offs)]\n"
"	.elseif	\\nev >= 2\n"
"	ldp	x6, x7, [x2, #(\\offs)]\n"
"	.endif\n"
"	.if	\\nev == 3\n"
"	ldr	x15, [x2, #(\\offs + 16)]\n"
"	.elseif	\\nev == 4\n"
"	ldp	x15, x16, [x2, #(\\offs + 16)]\n"
"	.endif\n"
"	ldr	w9, [x2]\n"
"	ccmp	w8, w4, #0, eq\n"
"	ccmp	w9, w3, #0, eq\n"
"	.if	\\cyc\n"
"	ccmn	x10, #1, #0, eq\n"
"	.endif\n"
"	.if	\\nev >= 1\n"
"	pmuser_evchk \\ew, 11, !(\\cyc)\n"
"	.endif\n"
"	.if	\\nev >= 2\n"
"	pmuser_evchk \\ew, 12, 0\n"
"	.endif\n"
"	.if	\\nev >= 3\n"
"	pmuser_evchk \\ew, 13, 0\n"
"	.endif\n"
"	.if	\\nev >= 4\n"
"	pmuser_evchk \\ew, 14, 0\n"
"	.endif\n"
"	b.ge	\\fail\n"
"	.if	\\cyc\n"
"	add	x10, x10, x5\n"
"	.endif\n"
"	.if	\\nev >= 1\n"
"	pmuser_evval \\ew, 11, x6\n"
"	.endif\n"
"	.if	\\nev >= 2\n"
"	pmuser_evval \\ew, 12, x7\n"
"	.endif\n"
"	.if	\\nev >= 3\n"
"	pmuser_evval \\ew, 13, x15\n"
"	.endif\n"
"	.if	\\nev >= 4\n"
"	pmuser_evval \\ew, 14, x16\n"
"	.endif\n"
"	.if	\\cyc\n"
"	.if	\\nev == 0\n"
"	pmuser_st \\v, 0, x10\n"
"	.elseif	\\nev == 1\n"
"	pmuser_st \\v, 0, x10, x11\n"
"	.elseif	\\nev == 2\n"
"	pmuser_st \\v, 0, x10, x11, x12\n"
"	.elseif	\\nev == 3\n"
"	pmuser_st \\v, 0, x10, x11, x12, x13\n"
"	.else\n"
"	pmuser_st \\v, 0, x10, x11, x12, x13, x14\n"
"	.endif\n"
"	.else\n"
"	.if	\\nev == 1\n"
"	pmuser_st \\v, 0, x11\n"
"	.elseif	\\nev == 2\n"
"	pmuser_st \\v, 0, x11, x12\n"
"	.elseif	\\nev == 3\n"
"	pmuser_st \\v, 0, x11, x12, x13\n"
"	.else\n"
"	pmuser_st \\v, 0, x11, x12, x13, x14\n"
"	.endif\n"
"	.endif\n"
"	.endm\n");

_Static_assert(offsetof(struct pmuser_counters, page) ==
	       offsetof(struct pmuser_counters, rseq_off) + 8 &&
	       offsetof(struct pmuser_page, base) == 0, "rseq_off and page.base in one load");
_Static_assert(offsetof(struct pmuser_page_cpu, seq) == 0 &&
	       offsetof(struct pmuser_page_cpu, offset) + 16 <= 504,
	       "the record's word and offset pairs within a load pair's reach");

/* One try of a layout of cyc (0 or 1) cycle counters and nev event counters from 0 up. */
#define ASM_READ(c, values, cyc, nev, ew, fail)					\
	__asm__ goto("pmuser_read_all %[c], %[v], %c[ctx], %c[sh], %c[offs], "	\
		     #cyc ", " #nev ", " #ew ", %l[" #fail "]"			\
		     :								\
		     : [c] "r"(c), [v] "r"(values),				\
		       [ctx] "i"(offsetof(struct pmuser_counters, rseq_off)),	\
		       [sh] "i"(FAST_STRIDE_SHIFT),				\
		       [offs] "i"(offsetof(struct pmuser_page_cpu, offset))	\
		     : "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11",	\
		       "x12", "x13", "x14", "x15", "x16", "cc", "memory"		\
		     : fail)
/* Event counters read 32 bits wide (w) or, where perf gives them 64 bits, whole (x). */
#define READ_ALL(name, sfx, v3, cyc, nev)					\
static int read_##name##sfx(struct pmuser_counters *c, uint64_t values[])	\
{										\
	ASM_READ(c, values, cyc, nev, w, general);				\
	return 0;								\
general:									\
	return pmuser__read_general(c, values);					\
}										\
static int read_##name##sfx##_x(struct pmuser_counters *c, uint64_t values[])	\
{										\
	ASM_READ(c, values, cyc, nev, x, general);				\
	return 0;								\
general:									\
	return pmuser__read_general(c, values);					\
}
#define WIDE_EVENTS 1
#define READ_WIDE(name) read_##name##_x
#else
#define WIDE_EVENTS 0
#define READ_WIDE(name) read_##name
#define READ_ALL(name, sfx, v3, cyc, nev)					\
static int read_##name##sfx(struct pmuser_counters *c, uint64_t values[])	\
{										\
	if (!fixed_read(c, values, NR(name), hw_##name, v3))			\
		return 0;							\
	return pmuser__read_general(c, values);					\
}
#endif

#define C PMUSER_HW_CYCLE
#define NR(name) (sizeof(hw_##name) / sizeof(hw_##name[0]))
#define READERS(name, sfx, v3, cyc, nev)					\
READ_ALL(name, sfx, v3, cyc, nev)						\
static void start_##name##sfx(const struct pmuser_counters *c, uint64_t values[]) \
{										\
	(void)c;								\
	if (fixed_raw(values, NR(name), hw_##name, true, v3))			\
		region_lost(values, NR(name));					\
}										\
static inline __attribute__((always_inline)) void					\
stop_##name##sfx(const struct pmuser_counters *c, uint64_t values[])		\
{										\
	if (fixed_raw(values, NR(name), hw_##name, false, v3))			\
		any_raw(c, values, false);					\
}										\
static void region_stop_##name##sfx(struct pmuser_counters *c, struct pmuser_region *r) \
{										\
	if (fixed_raw(r->raw, NR(name), hw_##name, false, v3))			\
		region_lost(r->raw, NR(name));					\
	pmuser__region_end(c, r, r->raw, NULL);					\
}										\
/* pmuser_counters_read_raw(): a region stop's reads. */			\
static int raw_##name##sfx(struct pmuser_counters *c, uint64_t values[])	\
{										\
	stop_##name##sfx(c, values);						\
	return 0;								\
}
/* A layout: cyc cycle counters (0 or 1), then nev event counters from 0 up, as hw lists them. */
#if defined(PMUSER_FAST_V7)
#define LAYOUT(name, cyc, nev, ...)						\
static const unsigned int hw_##name[] = { __VA_ARGS__ };			\
READERS(name, , false, cyc, nev)						\
READERS(name, _v3, true, cyc, nev)
#define ENTRY(name) { hw_##name, NR(name), { read_##name, read_##name##_v3 },	\
		      { raw_##name, raw_##name##_v3 },					\
		      { start_##name, start_##name##_v3 }, { stop_##name, stop_##name##_v3 },	\
		      { region_stop_##name, region_stop_##name##_v3 } }
#else
#define LAYOUT(name, cyc, nev, ...)						\
static const unsigned int hw_##name[] = { __VA_ARGS__ };			\
READERS(name, , false, cyc, nev)
#define ENTRY(name) { hw_##name, NR(name), { read_##name, READ_WIDE(name) },	\
		      { raw_##name, raw_##name },					\
		      { start_##name, start_##name }, { stop_##name, stop_##name },	\
		      { region_stop_##name, region_stop_##name } }
#endif

LAYOUT(c, 1, 0, C)
LAYOUT(c0, 1, 1, C, 0)
LAYOUT(c01, 1, 2, C, 0, 1)
LAYOUT(c012, 1, 3, C, 0, 1, 2)
LAYOUT(c0123, 1, 4, C, 0, 1, 2, 3)
LAYOUT(e0, 0, 1, 0)
LAYOUT(e01, 0, 2, 0, 1)
LAYOUT(e012, 0, 3, 0, 1, 2)
LAYOUT(e0123, 0, 4, 0, 1, 2, 3)
#undef C

/*
 * Per layout, its readers and region stop in two variants: in AArch32 for PMUv2 [0] and PMUv3
 * [1]; on AArch64 for 32-bit [0] and 64-bit [1] event counters (only the read of all counters
 * differs: raw reads are whole registers either way).
 */
static const struct {
	const unsigned int *hw;
	unsigned int n;
	pmuser__read_fn *read[2], *raw[2];
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

static int any_read_raw(struct pmuser_counters *c, uint64_t values[])
{
	any_stop(c, values);
	return 0;
}

/*
 * The width the set's event counters share (32, or 64 where the AArch64 readers take whole
 * registers) when the fixed readers' assumptions hold for it (see fixed_read()), else 0.
 */
static unsigned int fixed_event_bits(const struct pmuser_counters *c, uint32_t page_flags)
{
	unsigned int i, bits = 0;

	if (c->nr_read != c->nr || !(page_flags & PMUSER_PAGE_AWAY) ||
	    c->page.stride != 1U << FAST_STRIDE_SHIFT || !pmuser__rseq_usable())
		return 0;
	for (i = 0; i < c->nr; i++) {
		const struct pmuser_ctr *ctr = &c->ctr[i];

		if (ctr->slot != ctr->hw)
			return 0;
		if (ctr->hw == PMUSER_HW_CYCLE) {
			if (ctr->bits != CYCLE_BITS)
				return 0;
			continue;
		}
		if ((ctr->bits != 32 && (ctr->bits != 64 || !WIDE_EVENTS)) ||
		    (bits && ctr->bits != bits))
			return 0;
		bits = ctr->bits;
	}
	return bits ? bits : 32;
}

void pmuser__module_readers(struct pmuser_counters *c, unsigned int pmu_version,
			    uint32_t page_flags)
{
	/* ID_DFR0.PerfMon: 3 and up PMUv3, 15 an IMPLEMENTATION DEFINED PMU. */
	unsigned int v3 = PMUSER_FAST_ARCH == PMUSER_ARCH_ARMV7 && pmu_version >= 3 &&
			  pmu_version < 15;
	unsigned int i, k, bits = fixed_event_bits(c, page_flags);

	c->read_all = pmuser__read_general;
	c->read_raw = any_read_raw;
	c->raw_start = any_start;
	c->raw_stop = any_stop;
	c->region_stop = pmuser__region_stop_general;
	if (!bits)
		return;
	if (bits == 64)
		v3 = 1;		/* the AArch64 variant for 64-bit event counters */
#if defined(RSEQ_SIG)
	_Static_assert(offsetof(struct rseq, cpu_id_start) == 0 &&
		       offsetof(struct rseq, cpu_id) == 4, "the readers' rseq fields");
	c->rseq_off = __rseq_offset;
#endif
	for (k = 0; k < sizeof(layouts) / sizeof(layouts[0]); k++) {
		if (layouts[k].n != c->nr)
			continue;
		for (i = 0; i < c->nr && layouts[k].hw[i] == c->ctr[i].hw; i++)
			;
		if (i < c->nr)
			continue;
		c->read_all = layouts[k].read[v3];
		c->read_raw = layouts[k].raw[v3];
		c->raw_start = layouts[k].start[v3];
		c->raw_stop = layouts[k].stop[v3];
		c->region_stop = layouts[k].region_stop[v3];
		return;
	}
}
