// SPDX-License-Identifier: MIT
/*
 * pmuser: the module backend's readers, chosen once at open for the set's layout.
 *
 * A set's hardware counters are fixed when it is configured (pmuser_event_config.hw_counter),
 * and perf, with nothing else running, hands out the cycle counter and event counters from 0
 * up. For those layouts the readers here name every register in the instruction itself: a
 * raw read of n counters is "isb; n reads; isb", and a read of all counters through the page
 * loads the CPU record's sequence and away mask in one word, reads, loads each slot's offset
 * and checks the sequence again. AArch64's readers of every layout here and ARMv7's of up to
 * three counters are written out in assembly. Any other layout, or a page that says perf
 * moved a counter, takes the general path (pmuser_page_read()), which is slower and equally
 * exact.
 */
#include <errno.h>
#include <stddef.h>

#include "pmuser_internal.h"

/*
 * A CPU record's seq and away, loaded as one word: the reader's layout holds while the word
 * is good (seq even, no slot away: slot s is on counter s with the half-range base) and its
 * seq (WORD_SEQ) is the same after the reads.
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
 * the readers take is 32 bits wide (pmuser__module_readers() checks the page's widths).
 */
#if defined(PMUSER_FAST_A64)
#define WIDE(hw) ((hw) == PMUSER_HW_CYCLE)
#define CYCLE_BITS 64U
#else
#define WIDE(hw) false
#define CYCLE_BITS 32U
#endif

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
 * or a thread without an rseq area). The checks are the written-out readers' (below): the
 * CPU is rseq's cpu_id_start, always a CPU number, and cpu_id after the reads must equal it;
 * the word is checked as soon as it is loaded, and afterwards only its seq is compared (away
 * changes only inside a publication, which changes seq); a read is in its slot's period when
 * its top bit is set and it is not all ones, and stands for offset + read. No barrier orders
 * the record's loads: every write of a record is made on its CPU, where the reader ran (its
 * CPU before and after the reads), so program order shows it any publication in between. A
 * try that fails may have written some of values[]; the general path then writes all of
 * them, or the read fails.
 */
static inline __attribute__((always_inline)) int
fixed_read(const struct pmuser_counters *c, uint64_t values[], unsigned int n,
	   const unsigned int hw[], bool pmuv3)
{
	uint64_t raw[PMUSER_FAST_LAYOUT_MAX];
	const volatile struct pmuser_page_cpu *rec;
	const volatile uint32_t *rs = (const volatile uint32_t *)
		((const char *)__builtin_thread_pointer() + c->rseq_off);
	uint32_t cpu = rs[0];
	uint64_t word;
	unsigned int i;
	uint32_t seq;

	rec = (const volatile struct pmuser_page_cpu *)
		(c->page.base + ((size_t)cpu << FAST_STRIDE_SHIFT));
	/* Held in one register, not rebuilt from page.base and the CPU with both kept live. */
	__asm__("" : "+r"(rec));
	word = *(const volatile word_mem_t *)&rec->seq;
	if (word & WORD_BAD)
		return -EAGAIN;
	seq = WORD_SEQ(word);
	__asm__("" : "+r"(seq));	/* the one half kept for the check after the loads */
	pmuser__isb();
	if (fixed_batch(n, hw, raw, false, pmuv3))
		return -EAGAIN;
	pmuser__isb();
	if (rs[1] != cpu)
		return -EAGAIN;
	_Pragma("GCC unroll 8")
	for (i = 0; i < n; i++) {
		if (WIDE(hw[i])) {
			if ((int64_t)raw[i] >= -1)
				return -EAGAIN;
			values[i] = rec->offset[hw[i]] + raw[i];
		} else {
			if ((int32_t)(uint32_t)raw[i] >= -1)
				return -EAGAIN;
			values[i] = rec->offset[hw[i]] + (uint32_t)raw[i];
		}
	}
	if (rec->seq != seq)
		return -EAGAIN;
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
 *   path, and one that moved between the loads is caught. (A vfork() child, which shares its
 *   parent's thread area unregistered, sees the parent's CPU in both: such a child may only
 *   exec or _exit, and never reads counters.)
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
	       offsetof(struct pmuser_page_cpu, away) == 4 &&
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

#if defined(PMUSER_FAST_V7) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * ARMv7's readers of layouts of up to three counters, written out (pmuser_counters_read(),
 * a region's start and stop, pmuser_counters_read_raw()), in Thumb-2 as the library is built
 * and in ARM state alike (an IT instruction assembles to nothing there). PMUv2 selects each
 * event counter (PMSELR), reads it through PMXEVCNTR and reads PMSELR back: a read is lost
 * when the kernel's perf driver selected another counter in between, so every read-back is
 * checked. PMUv3 in AArch32 names counter n in the instruction (PMEVCNTR<n>).
 *
 * The read of every counter through the page makes fixed_read()'s checks:
 * - The CPU is rseq's cpu_id_start, always a CPU number (0 while the thread has no rseq
 *   area), so its record's address needs no check; cpu_id, loaded after the reads, must
 *   equal it: -1 or -2 never does, and a thread that moved between the loads is caught.
 * - One load multiple takes the record's seq, away, publications and the first two event
 *   slots' offsets; the word is tested at once (seq even, no slot away: one ORRS of away and
 *   seq's low bit, whose zero then selects event counter 0 and is the return value). The
 *   offset of the cycle slot (or of a third event's) is loaded after the reads, before seq
 *   again.
 * - A slot not away has base 2^31 + 1 (uapi), so a read is in its period when its top bit is
 *   set and it is not all ones: CMN r, #2 says "le" (signed r <= -2). A32 has no ccmp:
 *   conditional compares (IT blocks) chain the reload checks, "le" while they hold, a failed
 *   one leaving "gt" for the rest; the CPU's compare, made only under "le", turns the chain
 *   to "eq" (skipped, it leaves "gt", which is "ne"), and seq again and the read-backs go on
 *   under "eq". One branch goes to the general path.
 * - No barrier orders the record's loads: every write of a CPU's record is made on that CPU
 *   with interrupts off, and the reader's CPU before and after the reads is that one, so
 *   program order shows it any publication in between (an interrupt is taken between two
 *   instructions, every earlier load done, every later one not begun); a reader that moved
 *   and came back runs on only through the scheduler, whose switches moved seq there.
 * - Each value is offset + read, stored with one store multiple.
 * Registers: r1 values; r2 struct rseq, then cpu_id, then the late offset; r3 the CPU, then
 * the late offset's high half; ip the record, then seq again; r4 seq; r5 away, then event 0;
 * r6 the cycle counter (event 2 without one); r7 event 1; r8 to r11 the offsets of events 0
 * and 1, then their values; r0 the zero that selects event 0, then its read-back; lr the
 * selection of event 1, then its read-back (with a third event, folded into r0 first, lr
 * selects event 2 and takes its read-back). Nothing is left for a fourth counter: larger
 * layouts take fixed_read().
 *
 * A region's start and stop and the raw read hold only the reads between their barriers
 * (PMUv2: select, barrier, read, read back), in the order a region needs; the read-backs are
 * checked after the closing barrier and become, with the selection of event 0, the zero high
 * halves of one store multiple (PMUv3 sets its zeros; its stop and raw read, which need no
 * saved register, store each read beside a zero). A start that lost the race stores all ones
 * (region_lost()), a stop too before pmuser__region_end(), a raw read reads again counter by
 * counter.
 */
#if defined(__thumb2__)
#define V7_T32 "1"
#else
#define V7_T32 "0"
#endif
__asm__(
"	.set	.Lpmuser_v7_t32, " V7_T32 "\n"
/* n conditional instructions under cond (Thumb-2 IT; nothing in ARM state) */
"	.macro	pmuser_v7_it cond, n\n"
"	.if	\\n == 1\n"
"	it	\\cond\n"
"	.elseif	\\n == 2\n"
"	itt	\\cond\n"
"	.elseif	\\n == 3\n"
"	ittt	\\cond\n"
"	.endif\n"
"	.endm\n"
/* branch to lost when reg is not zero */
"	.macro	pmuser_v7_nz reg, lost\n"
"	.if	.Lpmuser_v7_t32\n"
"	cbnz	\\reg, \\lost\n"
"	.else\n"
"	cmp	\\reg, #0\n"
"	bne	\\lost\n"
"	.endif\n"
"	.endm\n"
/* two words at base + off into lo, hi: one LDRD in Thumb-2 (ARM's reaches 255 bytes, and pairs) */
"	.macro	pmuser_v7_ld2 lo, hi, base, off\n"
"	.if	.Lpmuser_v7_t32\n"
"	ldrd	\\lo, \\hi, [\\base, #(\\off)]\n"
"	.else\n"
"	ldr	\\lo, [\\base, #(\\off)]\n"
"	ldr	\\hi, [\\base, #(\\off) + 4]\n"
"	.endif\n"
"	.endm\n"
"	.macro	pmuser_v7_cyc v\n"
"	mrc	p15, 0, \\v, c9, c13, 0\n"
"	.endm\n"
/* event counter n into v: PMUv3 names it; PMUv2 selects it with k and reads PMSELR into s */
"	.macro	pmuser_v7_ev v3, n, v, k, s\n"
"	.if	\\v3\n"
"	mrc	p15, 0, \\v, c14, c8, \\n\n"
"	.else\n"
"	mcr	p15, 0, \\k, c9, c12, 5\n"
"	isb\n"
"	mrc	p15, 0, \\v, c9, c13, 2\n"
"	mrc	p15, 0, \\s, c9, c12, 5\n"
"	.endif\n"
"	.endm\n"
/*
 * One pass of raw reads between barriers, reverse (rev) or forward: the cycle counter into
 * cv, events 0 to 2 into e0 to e2. PMUv2 selects event i with ki (set here, k0 to 0), reads
 * event 0's selection back into s0 and event i's into ki, and after the closing barrier
 * branches to lost unless every one is its own: then s0 and each ki are 0.
 */
"	.macro	pmuser_v7_pass v3, rev, cyc, nev, cv, e0, e1, e2, k0, k1, k2, s0, lost\n"
"	.if	\\v3 == 0 && \\nev >= 1\n"
"	mov	\\k0, #0\n"
"	.endif\n"
"	.if	\\v3 == 0 && \\nev >= 2\n"
"	mov	\\k1, #1\n"
"	.endif\n"
"	.if	\\v3 == 0 && \\nev >= 3\n"
"	mov	\\k2, #2\n"
"	.endif\n"
"	isb\n"
"	.if	\\rev\n"
"	.if	\\nev >= 3\n"
"	pmuser_v7_ev \\v3, 2, \\e2, \\k2, \\k2\n"
"	.endif\n"
"	.if	\\nev >= 2\n"
"	pmuser_v7_ev \\v3, 1, \\e1, \\k1, \\k1\n"
"	.endif\n"
"	.if	\\nev >= 1\n"
"	pmuser_v7_ev \\v3, 0, \\e0, \\k0, \\s0\n"
"	.endif\n"
"	.if	\\cyc\n"
"	pmuser_v7_cyc \\cv\n"
"	.endif\n"
"	.else\n"
"	.if	\\cyc\n"
"	pmuser_v7_cyc \\cv\n"
"	.endif\n"
"	.if	\\nev >= 1\n"
"	pmuser_v7_ev \\v3, 0, \\e0, \\k0, \\s0\n"
"	.endif\n"
"	.if	\\nev >= 2\n"
"	pmuser_v7_ev \\v3, 1, \\e1, \\k1, \\k1\n"
"	.endif\n"
"	.if	\\nev >= 3\n"
"	pmuser_v7_ev \\v3, 2, \\e2, \\k2, \\k2\n"
"	.endif\n"
"	.endif\n"
"	isb\n"
"	.if	\\v3 == 0 && \\nev == 1\n"
"	pmuser_v7_nz \\s0, \\lost\n"
"	.elseif	\\v3 == 0 && \\nev >= 2\n"
"	eor	\\k1, \\k1, #1\n"
"	.if	\\nev >= 3\n"
"	eor	\\k2, \\k2, #2\n"
"	orr	\\s0, \\s0, \\k2\n"
"	.endif\n"
"	orrs	\\s0, \\s0, \\k1\n"
"	bne	\\lost\n"
"	.endif\n"
"	.endm\n"
/*
 * A pass into the layout's slots 0 to n - 1 of registers v0/z0, v1/z1, v2/z2 (a store
 * multiple's order), each z left 0: by the pass (PMUv2) or set here (PMUv3, or no event).
 * x: a low register that is no slot's.
 */
"	.macro	pmuser_v7_slots v3, rev, cyc, nev, v0, z0, v1, z1, v2, z2, x, lost\n"
"	.if	\\v3 || \\nev == 0\n"
"	mov	\\z0, #0\n"
"	.if	\\cyc + \\nev >= 2\n"
"	mov	\\z1, #0\n"
"	.endif\n"
"	.if	\\cyc + \\nev >= 3\n"
"	mov	\\z2, #0\n"
"	.endif\n"
"	.endif\n"
"	.if	\\cyc\n"
"	pmuser_v7_pass \\v3, \\rev, 1, \\nev, \\v0, \\v1, \\v2, , \\z0, \\z2, , \\z1, \\lost\n"
"	.elseif	\\nev == 1\n"
"	pmuser_v7_pass \\v3, \\rev, 0, 1, , \\v0, , , \\z0, , , \\x, \\lost\n"
"	.else\n"
"	pmuser_v7_pass \\v3, \\rev, 0, \\nev, , \\v0, \\v1, \\v2, \\z0, \\z1, \\z2, \\x, \\lost\n"
"	.endif\n"
"	.endm\n"
/* A PMUv3 pass, forward, of the layout's counters into a, b, c in turn. */
"	.macro	pmuser_v7_slots3 cyc, nev, a, b, c\n"
"	.if	\\cyc\n"
"	pmuser_v7_pass 1, 0, 1, \\nev, \\a, \\b, \\c, , , , , , \n"
"	.else\n"
"	pmuser_v7_pass 1, 0, 0, \\nev, , \\a, \\b, \\c, , , , , \n"
"	.endif\n"
"	.endm\n"
/* A region's start: values[] of n slots at r1, all ones where the race was lost. */
"	.macro	pmuser_v7_start v3, cyc, nev\n"
"	push	{r4-r7, lr}\n"
"	pmuser_v7_slots \\v3, 1, \\cyc, \\nev, r0, r2, r3, r4, r5, r6, r7, 9f\n"
"	.if	\\cyc + \\nev == 1\n"
"	stm	r1, {r0, r2}\n"
"	.elseif	\\cyc + \\nev == 2\n"
"	stm	r1, {r0, r2-r4}\n"
"	.else\n"
"	stm	r1, {r0, r2-r6}\n"
"	.endif\n"
"	pop	{r4-r7, pc}\n"
"9:	mvn	r2, #0\n"
"	mov	r3, #0\n"
"	strd	r2, r3, [r1]\n"
"	.if	\\cyc + \\nev >= 2\n"
"	strd	r2, r3, [r1, #8]\n"
"	.endif\n"
"	.if	\\cyc + \\nev >= 3\n"
"	strd	r2, r3, [r1, #16]\n"
"	.endif\n"
"	pop	{r4-r7, pc}\n"
"	.endm\n"
/* A region's stop: r->raw at r1 + raw, then pmuser__region_end(c, r, r->raw, NULL). */
"	.macro	pmuser_v7_stop v3, cyc, nev, raw\n"
"	.if	\\v3\n"
"	pmuser_v7_slots3 \\cyc, \\nev, r2, r3, ip\n"
"	str	r2, [r1, #(\\raw)]\n"
"	.if	\\cyc + \\nev >= 2\n"
"	str	r3, [r1, #(\\raw) + 8]\n"
"	.endif\n"
"	.if	\\cyc + \\nev >= 3\n"
"	str	ip, [r1, #(\\raw) + 16]\n"
"	.endif\n"
"	mov	r3, #0\n"
"	str	r3, [r1, #(\\raw) + 4]\n"
"	.if	\\cyc + \\nev >= 2\n"
"	str	r3, [r1, #(\\raw) + 12]\n"
"	.endif\n"
"	.if	\\cyc + \\nev >= 3\n"
"	str	r3, [r1, #(\\raw) + 20]\n"
"	.endif\n"
"	add	r2, r1, #(\\raw)\n"
"	b	pmuser__region_end\n"
"	.exitm\n"
"	.endif\n"
"	push	{r4-r7}\n"
"	pmuser_v7_slots \\v3, 0, \\cyc, \\nev, r3, r4, r5, r6, r7, ip, r2, 9f\n"
"	add	r2, r1, #(\\raw)\n"
"	.if	\\cyc + \\nev == 1\n"
"	stm	r2, {r3, r4}\n"
"	.elseif	\\cyc + \\nev == 2\n"
"	stm	r2, {r3-r6}\n"
"	.else\n"
"	stm	r2, {r3-r7, ip}\n"
"	.endif\n"
"	mov	r3, #0\n"
"	pop	{r4-r7}\n"
"	b	pmuser__region_end\n"
"9:	add	r2, r1, #(\\raw)\n"
"	mvn	r4, #0\n"
"	mov	r5, #0\n"
"	strd	r4, r5, [r2]\n"
"	.if	\\cyc + \\nev >= 2\n"
"	strd	r4, r5, [r2, #8]\n"
"	.endif\n"
"	.if	\\cyc + \\nev >= 3\n"
"	strd	r4, r5, [r2, #16]\n"
"	.endif\n"
"	mov	r3, #0\n"
"	pop	{r4-r7}\n"
"	b	pmuser__region_end\n"
"	.endm\n"
/* The raw read: values[] at r1, returning 0 if ret; one that lost the race ends in lost. */
"	.macro	pmuser_v7_raw v3, cyc, nev, ret, lost\n"
"	.if	\\v3 && .Lpmuser_v7_t32\n"
"	pmuser_v7_slots3 \\cyc, \\nev, r2, r3, ip\n"
"	mov	r0, #0\n"
"	strd	r2, r0, [r1]\n"
"	.if	\\cyc + \\nev >= 2\n"
"	strd	r3, r0, [r1, #8]\n"
"	.endif\n"
"	.if	\\cyc + \\nev >= 3\n"
"	strd	ip, r0, [r1, #16]\n"
"	.endif\n"
"	bx	lr\n"
"	.exitm\n"
"	.endif\n"
"	push	{r4-r7, lr}\n"
"	.if	\\cyc || \\nev != 1\n"
"	pmuser_v7_slots \\v3, 0, \\cyc, \\nev, r2, r3, r4, r5, r6, r7, ip, 9f\n"
"	.else\n"
"	pmuser_v7_slots \\v3, 0, 0, 1, r2, r3, , , , , r5, 9f\n"
"	.endif\n"
"	.if	\\cyc + \\nev == 1\n"
"	stm	r1, {r2, r3}\n"
"	.elseif	\\cyc + \\nev == 2\n"
"	stm	r1, {r2-r5}\n"
"	.else\n"
"	stm	r1, {r2-r7}\n"
"	.endif\n"
"	.if	\\ret\n"
"	mov	r0, #0\n"
"	.endif\n"
"	pop	{r4-r7, pc}\n"
"9:	pop	{r4-r7, lr}\n"
"	b	\\lost\n"
"	.endm\n"
/* The read of every counter through the page (above); the general path is fail. */
"	.macro	pmuser_v7_read_all v3, cyc, nev, ctx, sh, offs, fail\n"
"	push	{r0, r4-r11, lr}\n"
"	mrc	p15, 0, r2, c13, c0, 3\n"
"	pmuser_v7_ld2 r3, ip, r0, \\ctx\n"
"	add	r2, r2, r3\n"
"	ldr	r3, [r2]\n"
"	add	ip, ip, r3, lsl #(\\sh)\n"
"	.if	\\nev == 0\n"
"	ldrd	r4, r5, [ip]\n"
"	.elseif	\\nev == 1\n"
"	ldm	ip, {r4-r9}\n"
"	.else\n"
"	ldm	ip, {r4-r11}\n"
"	.endif\n"
"	orrs	r0, r5, r4, lsl #31\n"
"	.if	\\v3 == 0 && \\nev >= 2\n"
"	mov	lr, #1\n"
"	.endif\n"
"	bne	9f\n"
"	isb\n"
"	.if	\\cyc\n"
"	pmuser_v7_cyc r6\n"
"	.endif\n"
"	.if	\\nev >= 1\n"
"	pmuser_v7_ev \\v3, 0, r5, r0, r0\n"
"	.endif\n"
"	.if	\\nev >= 2\n"
"	pmuser_v7_ev \\v3, 1, r7, lr, lr\n"
"	.endif\n"
"	.if	\\nev >= 3\n"
"	.if	\\v3 == 0\n"
"	eor	lr, lr, #1\n"
"	orr	r0, r0, lr\n"
"	mov	lr, #2\n"
"	.endif\n"
"	pmuser_v7_ev \\v3, 2, r6, lr, lr\n"
"	.endif\n"
"	isb\n"
"	ldr	r2, [r2, #4]\n"
"	.if	\\cyc\n"
"	cmn	r6, #2\n"
"	.else\n"
"	cmn	r5, #2\n"
"	.endif\n"
"	pmuser_v7_it le, \\cyc + \\nev\n"
"	.if	\\cyc && \\nev >= 1\n"
"	cmnle	r5, #2\n"
"	.endif\n"
"	.if	\\nev >= 2\n"
"	cmnle	r7, #2\n"
"	.endif\n"
"	.if	\\nev >= 3\n"
"	cmnle	r6, #2\n"
"	.endif\n"
"	cmple	r2, r3\n"
"	.if	\\cyc\n"
"	pmuser_v7_ld2 r2, r3, ip, \\offs + 8 * 31\n"
"	.elseif	\\nev >= 3\n"
"	pmuser_v7_ld2 r2, r3, ip, \\offs + 16\n"
"	.endif\n"
"	ldr	ip, [ip]\n"
"	.if	\\v3 || \\nev == 0\n"
"	it	eq\n"
"	.elseif	\\nev == 1\n"
"	itt	eq\n"
"	.else\n"
"	ittt	eq\n"
"	.endif\n"
"	cmpeq	ip, r4\n"
"	.if	\\v3 == 0 && \\nev >= 1\n"
"	cmpeq	r0, #0\n"
"	.endif\n"
"	.if	\\v3 == 0 && \\nev >= 2\n"
"	cmpeq	lr, #(\\nev - 1)\n"
"	.endif\n"
"	bne	9f\n"
"	.if	\\nev >= 2\n"
"	adds	r10, r10, r7\n"
"	adc	r11, r11, #0\n"
"	.endif\n"
"	.if	\\nev >= 1\n"
"	adds	r8, r8, r5\n"
"	adc	r9, r9, #0\n"
"	.endif\n"
"	.if	\\cyc\n"
"	adds	r6, r6, r2\n"
"	adc	r7, r3, #0\n"
"	.endif\n"
"	.if	\\nev >= 3\n"
"	adds	ip, r6, r2\n"
"	adc	lr, r3, #0\n"
"	.endif\n"
"	.if	\\cyc == 0\n"
"	.if	\\nev == 1\n"
"	stm	r1, {r8, r9}\n"
"	.elseif	\\nev == 2\n"
"	stm	r1, {r8-r11}\n"
"	.else\n"
"	stm	r1, {r8-r11, ip, lr}\n"
"	.endif\n"
"	.elseif	\\nev == 0\n"
"	stm	r1, {r6, r7}\n"
"	.elseif	\\nev == 1\n"
"	stm	r1, {r6-r9}\n"
"	.else\n"
"	stm	r1, {r6-r11}\n"
"	.endif\n"
"	pop	{r2, r4-r11, pc}\n"
"9:	pop	{r0, r4-r11, lr}\n"
"	b	\\fail\n"
"	.endm\n");

/* The offsets the written-out readers build in, as numbers for their text. */
#define V7_CTX 20	/* struct pmuser_counters: rseq_off, then page.base */
#define V7_OFFS 16	/* struct pmuser_page_cpu: offset[] */
#define V7_RAW 256	/* struct pmuser_region: raw[] */
_Static_assert(offsetof(struct pmuser_counters, rseq_off) == V7_CTX &&
	       offsetof(struct pmuser_counters, page) == V7_CTX + 4 &&
	       offsetof(struct pmuser_page, base) == 0, "rseq_off and page.base in one load");
_Static_assert(offsetof(struct pmuser_page_cpu, seq) == 0 &&
	       offsetof(struct pmuser_page_cpu, away) == 4 &&
	       offsetof(struct pmuser_page_cpu, publications) == 8 &&
	       offsetof(struct pmuser_page_cpu, offset) == V7_OFFS,
	       "the record's word, publications and offsets in one load multiple");
_Static_assert(offsetof(struct pmuser_region, raw) == V7_RAW, "a region's raw reads");
#define V7_STR(x) #x
#define V7_XSTR(x) V7_STR(x)
#define V7_ARGS(v3, cyc, nev) #v3 ", " #cyc ", " #nev
/*
 * A layout's readers in its text, for PMUv2 (v3 0) or PMUv3 (1). The lost reads of stop_ and
 * raw_ go on in any_stop() and any_read_raw() (below), named in the text.
 */
#define NAKED(type, fn, a, b) static __attribute__((naked)) type fn(a __attribute__((unused)), \
								     b __attribute__((unused)))
#define READERS_ASM(name, sfx, v3, cyc, nev)					\
NAKED(int, read_##name##sfx, struct pmuser_counters *c, uint64_t values[])	\
{										\
	__asm__("pmuser_v7_read_all " V7_ARGS(v3, cyc, nev) ", " V7_XSTR(V7_CTX) ", "	\
		V7_XSTR(FAST_STRIDE_SHIFT) ", " V7_XSTR(V7_OFFS) ", pmuser__read_general"); \
}										\
NAKED(void, start_##name##sfx, const struct pmuser_counters *c, uint64_t values[]) \
{										\
	__asm__("pmuser_v7_start " V7_ARGS(v3, cyc, nev));			\
}										\
NAKED(void, stop_##name##sfx, const struct pmuser_counters *c, uint64_t values[]) \
{										\
	__asm__("pmuser_v7_raw " V7_ARGS(v3, cyc, nev) ", 0, any_stop");	\
}										\
NAKED(void, region_stop_##name##sfx, struct pmuser_counters *c, struct pmuser_region *r) \
{										\
	__asm__("pmuser_v7_stop " V7_ARGS(v3, cyc, nev) ", " V7_XSTR(V7_RAW));	\
}										\
NAKED(int, raw_##name##sfx, struct pmuser_counters *c, uint64_t values[])	\
{										\
	__asm__("pmuser_v7_raw " V7_ARGS(v3, cyc, nev) ", 1, any_read_raw");	\
}
#define LAYOUT3(name, cyc, nev, ...)						\
static const unsigned int hw_##name[] = { __VA_ARGS__ };			\
READERS_ASM(name, , 0, cyc, nev)						\
READERS_ASM(name, _v3, 1, cyc, nev)
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

/* Layouts of up to three counters: written out where the target has them (LAYOUT3). */
#if !defined(LAYOUT3)
#define LAYOUT3 LAYOUT
#endif
LAYOUT3(c, 1, 0, C)
LAYOUT3(c0, 1, 1, C, 0)
LAYOUT3(c01, 1, 2, C, 0, 1)
LAYOUT(c012, 1, 3, C, 0, 1, 2)
LAYOUT(c0123, 1, 4, C, 0, 1, 2, 3)
LAYOUT3(e0, 0, 1, 0)
LAYOUT3(e01, 0, 2, 0, 1)
LAYOUT3(e012, 0, 3, 0, 1, 2)
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
