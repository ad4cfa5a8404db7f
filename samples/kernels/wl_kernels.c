// SPDX-License-Identifier: MIT
/*
 * The workload kernels in assembly, each followed by the formula of what it retires. A
 * formula counts every instruction of the function, its return included, so a change to the
 * code must change the formula next to it. Loop counters are tested at the bottom (do-while),
 * hence the ">= 1" on every count.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include "wl_kernels.h"

/* The assembly reads the argument blocks at fixed word offsets. */
#define WORD sizeof(uintptr_t)
_Static_assert(offsetof(struct wl_chase_args, iterations) == 1 * WORD, "chase layout");
_Static_assert(offsetof(struct wl_misp_args, ones) == 3 * WORD, "misp layout");
_Static_assert(offsetof(struct wl_matrix_args, n) == 3 * WORD, "matrix layout");
_Static_assert(offsetof(struct wl_walk_args, sum) == 4 * WORD, "walk layout");
_Static_assert(offsetof(struct wl_hazard_args, out) == 1 * WORD, "hazard layout");

/* ---- formulas ----------------------------------------------------------------------------- */

uint64_t wl_pred_total(const struct wl_pred *p)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < p->nterms; i++)
		sum += p->term[i].coef * p->term[i].value;
	return sum;
}

void wl_pred_formula(const struct wl_pred *p, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;

	if (!len)
		return;
	buf[0] = '\0';
	if (!p->known) {
		snprintf(buf, len, "n/a");
		return;
	}
	for (i = 0; i < p->nterms && used < len; i++) {
		const struct wl_term *t = &p->term[i];
		int n;

		if (!t->sym[0])
			n = snprintf(buf + used, len - used, "%s%" PRIu64, i ? " + " : "", t->coef);
		else if (t->coef == 1)
			n = snprintf(buf + used, len - used, "%s%s", i ? " + " : "", t->sym);
		else
			n = snprintf(buf + used, len - used, "%s%" PRIu64 "*%s", i ? " + " : "",
				     t->coef, t->sym);
		if (n < 0)
			return;
		used += (size_t)n;
	}
}

/* pred_set(p, n, coef0, sym0, value0, ...): a formula of n terms. */
static void pred_set(struct wl_pred *p, unsigned int n, ...)
{
	va_list ap;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->known = WL_PREDICTS;
	p->nterms = n;
	va_start(ap, n);
	for (i = 0; i < n && i < WL_TERMS_MAX; i++) {
		p->term[i].coef = va_arg(ap, uint64_t);
		p->term[i].sym = va_arg(ap, const char *);
		p->term[i].value = va_arg(ap, uint64_t);
	}
	va_end(ap);
}

#define T(coef, sym, value) (uint64_t)(coef), (const char *)(sym), (uint64_t)(value)

/* ---- assembly helpers --------------------------------------------------------------------- */

#define FN(name) ".balign 64\n\t.global " #name "\n\t.type " #name ", %function\n" #name ":\n"
#define END(name) "\t.size " #name ", .-" #name "\n"

#if defined(__aarch64__)
#define BEGIN_ASM ".pushsection .text\n"
#define END_ASM ".popsection\n"
#elif defined(__arm__)
/* ARM state for every kernel; back to the compiler's state afterwards. */
#define BEGIN_ASM ".pushsection .text\n\t.syntax unified\n\t.arm\n"
#if defined(__thumb__)
#define END_ASM ".popsection\n\t.thumb\n"
#else
#define END_ASM ".popsection\n"
#endif
#endif

/* ---- AArch64 ------------------------------------------------------------------------------ */
#if defined(__aarch64__)

__asm__(BEGIN_ASM
FN(wl_k_empty)
	"\tret\n"
END(wl_k_empty)

/* x0 = args. Per node: ldr, cbnz. Per traversal: mov, subs, b.ne. Fixed: 2 ldr, ret. */
FN(wl_k_chase)
	"\tldr x1, [x0, #8]\n"
	"\tldr x2, [x0]\n"
"1:\tmov x3, x2\n"
"2:\tldr x3, [x3]\n"
	"\tcbnz x3, 2b\n"
	"\tsubs x1, x1, #1\n"
	"\tb.ne 1b\n"
	"\tret\n"
END(wl_k_chase)

/* Per byte: ldrb, cmp, b.ne, subs, b.ne, plus add for a '1'. Per pass: 2 mov, subs, b.ne.
 * Fixed: 3 ldr, mov, str, ret.
 */
FN(wl_k_misp)
	"\tldr x1, [x0]\n"
	"\tldr x2, [x0, #8]\n"
	"\tldr x3, [x0, #16]\n"
	"\tmov x4, #0\n"
"1:\tmov x5, x1\n"
	"\tmov x6, x2\n"
"2:\tldrb w7, [x5], #1\n"
	"\tcmp w7, #'1'\n"
	"\tb.ne 3f\n"
	"\tadd x4, x4, #1\n"
"3:\tsubs x6, x6, #1\n"
	"\tb.ne 2b\n"
	"\tsubs x3, x3, #1\n"
	"\tb.ne 1b\n"
	"\tstr x4, [x0, #24]\n"
	"\tret\n"
END(wl_k_misp)

/* i, j, k: per k: 2 ldr, add, madd, subs, b.ne. Per j: 4 mov, str, add, subs, b.ne.
 * Per i: 2 mov, add, subs, b.ne. Fixed: 4 ldr, lsl, mov, ret.
 */
FN(wl_k_mm_textbook)
	"\tldr x1, [x0]\n"
	"\tldr x2, [x0, #8]\n"
	"\tldr x3, [x0, #16]\n"
	"\tldr x4, [x0, #24]\n"
	"\tlsl x5, x4, #2\n"
	"\tmov x6, x4\n"
"1:\tmov x8, x2\n"
	"\tmov x9, x4\n"
"2:\tmov x10, x1\n"
	"\tmov x11, x8\n"
	"\tmov x12, x4\n"
	"\tmov w13, #0\n"
"3:\tldr w14, [x10], #4\n"
	"\tldr w15, [x11]\n"
	"\tadd x11, x11, x5\n"
	"\tmadd w13, w14, w15, w13\n"
	"\tsubs x12, x12, #1\n"
	"\tb.ne 3b\n"
	"\tstr w13, [x3], #4\n"
	"\tadd x8, x8, #4\n"
	"\tsubs x9, x9, #1\n"
	"\tb.ne 2b\n"
	"\tadd x1, x1, x5\n"
	"\tsubs x6, x6, #1\n"
	"\tb.ne 1b\n"
	"\tret\n"
END(wl_k_mm_textbook)

/* i, k, j: per j: 2 ldr, madd, str, subs, b.ne. Per k: ldr, 2 mov, subs, b.ne. Per element
 * of C zeroed: str, subs, b.ne. Per i: 4 mov, add, subs, b.ne. Fixed: 4 ldr, lsl, mov, ret.
 * A and B are walked in memory order by post-increment.
 */
FN(wl_k_mm_interchange)
	"\tldr x1, [x0]\n"
	"\tldr x2, [x0, #8]\n"
	"\tldr x3, [x0, #16]\n"
	"\tldr x4, [x0, #24]\n"
	"\tlsl x5, x4, #2\n"
	"\tmov x6, x4\n"
"1:\tmov x7, x3\n"
	"\tmov x9, x4\n"
"2:\tstr wzr, [x7], #4\n"
	"\tsubs x9, x9, #1\n"
	"\tb.ne 2b\n"
	"\tmov x8, x2\n"
	"\tmov x9, x4\n"
"3:\tldr w14, [x1], #4\n"
	"\tmov x7, x3\n"
	"\tmov x12, x4\n"
"4:\tldr w15, [x8], #4\n"
	"\tldr w13, [x7]\n"
	"\tmadd w13, w14, w15, w13\n"
	"\tstr w13, [x7], #4\n"
	"\tsubs x12, x12, #1\n"
	"\tb.ne 4b\n"
	"\tsubs x9, x9, #1\n"
	"\tb.ne 3b\n"
	"\tadd x3, x3, x5\n"
	"\tsubs x6, x6, #1\n"
	"\tb.ne 1b\n"
	"\tret\n"
END(wl_k_mm_interchange)

/* Per load: ldr, add, add, subs, b.ne. Per pass: 2 mov, subs, b.ne. Fixed: 4 ldr, mov, str,
 * ret.
 */
FN(wl_k_walk)
	"\tldr x1, [x0]\n"
	"\tldr x2, [x0, #8]\n"
	"\tldr x3, [x0, #16]\n"
	"\tldr x4, [x0, #24]\n"
	"\tmov w7, #0\n"
"1:\tmov x5, x1\n"
	"\tmov x6, x2\n"
"2:\tldr w8, [x5]\n"
	"\tadd w7, w7, w8\n"
	"\tadd x5, x5, x3\n"
	"\tsubs x6, x6, #1\n"
	"\tb.ne 2b\n"
	"\tsubs x4, x4, #1\n"
	"\tb.ne 1b\n"
	"\tstr x7, [x0, #32]\n"
	"\tret\n"
END(wl_k_walk)

/* Hazards: per iteration 8 operations, subs, b.ne. Fixed: ldr, 2 mov, str, ret. */
FN(wl_k_raw_chain)
	"\tldr x1, [x0]\n"
	"\tmov x2, #1\n"
	"\tmov x3, #0\n"
"1:\tadd x3, x3, x2\n\tadd x3, x3, x2\n\tadd x3, x3, x2\n\tadd x3, x3, x2\n"
	"\tadd x3, x3, x2\n\tadd x3, x3, x2\n\tadd x3, x3, x2\n\tadd x3, x3, x2\n"
	"\tsubs x1, x1, #1\n"
	"\tb.ne 1b\n"
	"\tstr x3, [x0, #8]\n"
	"\tret\n"
END(wl_k_raw_chain)

FN(wl_k_raw_indep)
	"\tldr x1, [x0]\n"
	"\tmov x2, #1\n"
	"\tmov x3, #0\n"
"1:\tadd x3, x3, x2\n\tadd x4, x4, x2\n\tadd x5, x5, x2\n\tadd x6, x6, x2\n"
	"\tadd x7, x7, x2\n\tadd x8, x8, x2\n\tadd x9, x9, x2\n\tadd x10, x10, x2\n"
	"\tsubs x1, x1, #1\n"
	"\tb.ne 1b\n"
	"\tstr x3, [x0, #8]\n"
	"\tret\n"
END(wl_k_raw_indep)

FN(wl_k_div_indep)
	"\tldr x1, [x0]\n"
	"\tmov w2, #-1\n"
	"\tmov w11, #7\n"
"1:\tudiv w3, w2, w11\n\tudiv w4, w2, w11\n\tudiv w5, w2, w11\n\tudiv w6, w2, w11\n"
	"\tudiv w7, w2, w11\n\tudiv w8, w2, w11\n\tudiv w9, w2, w11\n\tudiv w10, w2, w11\n"
	"\tsubs x1, x1, #1\n"
	"\tb.ne 1b\n"
	"\tstr x3, [x0, #8]\n"
	"\tret\n"
END(wl_k_div_indep)

FN(wl_k_mul_indep)
	"\tldr x1, [x0]\n"
	"\tmov w2, #-1\n"
	"\tmov w11, #7\n"
"1:\tmul w3, w2, w11\n\tmul w4, w2, w11\n\tmul w5, w2, w11\n\tmul w6, w2, w11\n"
	"\tmul w7, w2, w11\n\tmul w8, w2, w11\n\tmul w9, w2, w11\n\tmul w10, w2, w11\n"
	"\tsubs x1, x1, #1\n"
	"\tb.ne 1b\n"
	"\tstr x3, [x0, #8]\n"
	"\tret\n"
END(wl_k_mul_indep)

FN(wl_ovh_null)
	"\tret\n"
END(wl_ovh_null)
FN(wl_ovh_raw)
	"\tmrs x0, pmccntr_el0\n"
	"\tret\n"
END(wl_ovh_raw)
FN(wl_ovh_serial)
	"\tisb\n"
	"\tmrs x0, pmccntr_el0\n"
	"\tret\n"
END(wl_ovh_serial)
FN(wl_ovh_cntvct)
	"\tmrs x0, cntvct_el0\n"
	"\tret\n"
END(wl_ovh_cntvct)
END_ASM);

void wl_predict_chase(uint64_t nodes, uint64_t it, struct wl_counts *c)
{
	pred_set(&c->inst, 3, T(2, "N*I", nodes * it), T(3, "I", it), T(3, "", 1));
	pred_set(&c->branches, 3, T(1, "N*I", nodes * it), T(1, "I", it), T(1, "", 1));
	pred_set(&c->loads, 2, T(1, "N*I", nodes * it), T(2, "", 1));
}

void wl_predict_misp(uint64_t size, uint64_t ones, uint64_t it, struct wl_counts *c)
{
	pred_set(&c->inst, 4, T(5, "S*I", size * it), T(1, "K*I", ones * it), T(4, "I", it),
		 T(6, "", 1));
	pred_set(&c->branches, 3, T(2, "S*I", size * it), T(1, "I", it), T(1, "", 1));
	pred_set(&c->loads, 2, T(1, "S*I", size * it), T(3, "", 1));
}

void wl_predict_mm_textbook(uint64_t n, struct wl_counts *c)
{
	pred_set(&c->inst, 4, T(6, "N^3", n * n * n), T(8, "N^2", n * n), T(5, "N", n),
		 T(7, "", 1));
	pred_set(&c->branches, 4, T(1, "N^3", n * n * n), T(1, "N^2", n * n), T(1, "N", n),
		 T(1, "", 1));
	pred_set(&c->loads, 2, T(2, "N^3", n * n * n), T(4, "", 1));
}

void wl_predict_mm_interchange(uint64_t n, struct wl_counts *c)
{
	pred_set(&c->inst, 4, T(6, "N^3", n * n * n), T(8, "N^2", n * n), T(7, "N", n),
		 T(7, "", 1));
	pred_set(&c->branches, 4, T(1, "N^3", n * n * n), T(2, "N^2", n * n), T(1, "N", n),
		 T(1, "", 1));
	pred_set(&c->loads, 3, T(2, "N^3", n * n * n), T(1, "N^2", n * n), T(4, "", 1));
}

void wl_predict_walk(uint64_t count, uint64_t it, struct wl_counts *c)
{
	pred_set(&c->inst, 3, T(5, "C*I", count * it), T(4, "I", it), T(7, "", 1));
	pred_set(&c->branches, 3, T(1, "C*I", count * it), T(1, "I", it), T(1, "", 1));
	pred_set(&c->loads, 2, T(1, "C*I", count * it), T(4, "", 1));
}

static void predict_hazard(uint64_t it, uint64_t fixed, uint64_t fixed_loads, struct wl_counts *c)
{
	pred_set(&c->inst, 2, T(10, "I", it), T(fixed, "", 1));
	pred_set(&c->branches, 2, T(1, "I", it), T(1, "", 1));
	pred_set(&c->loads, 1, T(fixed_loads, "", 1));
}

void wl_predict_raw_chain(uint64_t it, struct wl_counts *c) { predict_hazard(it, 5, 1, c); }
void wl_predict_raw_indep(uint64_t it, struct wl_counts *c) { predict_hazard(it, 5, 1, c); }
void wl_predict_div_indep(uint64_t it, struct wl_counts *c) { predict_hazard(it, 5, 1, c); }
void wl_predict_mul_indep(uint64_t it, struct wl_counts *c) { predict_hazard(it, 5, 1, c); }

bool wl_have_divide(const char **why)
{
	*why = NULL;
	return true;
}

uint64_t wl_cntvct_read(void)
{
	uint64_t v;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}

uint64_t wl_cntfrq_read(void)
{
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}

/* Linux lets EL0 read CNTVCT_EL0 on arm64 (the vDSO depends on it). */
bool wl_cntvct_usable(const char **why)
{
	*why = NULL;
	return true;
}

/* ---- AArch32 (ARM state; ARMv6 instructions, the divide kernel ARMv7) -------------------- */
#elif defined(__arm__)

__asm__(BEGIN_ASM
FN(wl_k_empty)
	"\tbx lr\n"
END(wl_k_empty)

/* r0 = args. Per node: ldr, cmp, bne. Per traversal: mov, subs, bne. Fixed: 2 ldr, bx. */
FN(wl_k_chase)
	"\tldr r1, [r0, #4]\n"
	"\tldr r2, [r0]\n"
"1:\tmov r3, r2\n"
"2:\tldr r3, [r3]\n"
	"\tcmp r3, #0\n"
	"\tbne 2b\n"
	"\tsubs r1, r1, #1\n"
	"\tbne 1b\n"
	"\tbx lr\n"
END(wl_k_chase)

/* Per byte: ldrb, cmp, bne, subs, bne, plus add for a '1'. Per pass: 2 mov, subs, bne.
 * Fixed: push, 3 ldr, mov, str, pop, bx.
 */
FN(wl_k_misp)
	"\tpush {r4, r5, r6}\n"
	"\tldr r1, [r0]\n"
	"\tldr r2, [r0, #4]\n"
	"\tldr r3, [r0, #8]\n"
	"\tmov ip, #0\n"
"1:\tmov r4, r1\n"
	"\tmov r5, r2\n"
"2:\tldrb r6, [r4], #1\n"
	"\tcmp r6, #'1'\n"
	"\tbne 3f\n"
	"\tadd ip, ip, #1\n"
"3:\tsubs r5, r5, #1\n"
	"\tbne 2b\n"
	"\tsubs r3, r3, #1\n"
	"\tbne 1b\n"
	"\tstr ip, [r0, #12]\n"
	"\tpop {r4, r5, r6}\n"
	"\tbx lr\n"
END(wl_k_misp)

/* i, j, k: per k: 2 ldr, mla, subs, bne. Per j: 4 mov, str, add, subs, bne. Per i: 2 mov,
 * add, subs, bne. Fixed: push, 4 ldr, lsl, mov, pop, bx.
 */
FN(wl_k_mm_textbook)
	"\tpush {r4-r11, lr}\n"
	"\tldr r1, [r0, #4]\n"
	"\tldr r2, [r0, #8]\n"
	"\tldr r3, [r0, #12]\n"
	"\tldr r0, [r0]\n"
	"\tlsl r4, r3, #2\n"
	"\tmov r5, r3\n"
"1:\tmov r6, r1\n"
	"\tmov r7, r3\n"
"2:\tmov r8, r0\n"
	"\tmov r9, r6\n"
	"\tmov r10, r3\n"
	"\tmov r11, #0\n"
"3:\tldr ip, [r8], #4\n"
	"\tldr lr, [r9], r4\n"
	"\tmla r11, ip, lr, r11\n"
	"\tsubs r10, r10, #1\n"
	"\tbne 3b\n"
	"\tstr r11, [r2], #4\n"
	"\tadd r6, r6, #4\n"
	"\tsubs r7, r7, #1\n"
	"\tbne 2b\n"
	"\tadd r0, r0, r4\n"
	"\tsubs r5, r5, #1\n"
	"\tbne 1b\n"
	"\tpop {r4-r11, lr}\n"
	"\tbx lr\n"
END(wl_k_mm_textbook)

/* i, k, j: per j: 2 ldr, mla, str, subs, bne. Per k: ldr, 2 mov, subs, bne. Per element of
 * C zeroed: str, subs, bne. Per i: 5 mov, add, subs, bne. Fixed: push, 4 ldr, lsl, mov, pop,
 * bx.
 */
FN(wl_k_mm_interchange)
	"\tpush {r4-r11, lr}\n"
	"\tldr r1, [r0, #4]\n"
	"\tldr r2, [r0, #8]\n"
	"\tldr r3, [r0, #12]\n"
	"\tldr r0, [r0]\n"
	"\tlsl r4, r3, #2\n"
	"\tmov r5, r3\n"
"1:\tmov r6, r2\n"
	"\tmov r7, r3\n"
	"\tmov ip, #0\n"
"2:\tstr ip, [r6], #4\n"
	"\tsubs r7, r7, #1\n"
	"\tbne 2b\n"
	"\tmov r6, r1\n"
	"\tmov r9, r3\n"
"3:\tldr r10, [r0], #4\n"
	"\tmov r11, r2\n"
	"\tmov r7, r3\n"
"4:\tldr ip, [r6], #4\n"
	"\tldr lr, [r11]\n"
	"\tmla lr, r10, ip, lr\n"
	"\tstr lr, [r11], #4\n"
	"\tsubs r7, r7, #1\n"
	"\tbne 4b\n"
	"\tsubs r9, r9, #1\n"
	"\tbne 3b\n"
	"\tadd r2, r2, r4\n"
	"\tsubs r5, r5, #1\n"
	"\tbne 1b\n"
	"\tpop {r4-r11, lr}\n"
	"\tbx lr\n"
END(wl_k_mm_interchange)

/* Per load: ldr (post-increment by the stride), add, subs, bne. Per pass: 2 mov, subs, bne.
 * Fixed: push, 4 ldr, mov, str, pop, bx.
 */
FN(wl_k_walk)
	"\tpush {r4-r7}\n"
	"\tldr r1, [r0]\n"
	"\tldr r2, [r0, #4]\n"
	"\tldr r3, [r0, #8]\n"
	"\tldr ip, [r0, #12]\n"
	"\tmov r4, #0\n"
"1:\tmov r5, r1\n"
	"\tmov r6, r2\n"
"2:\tldr r7, [r5], r3\n"
	"\tadd r4, r4, r7\n"
	"\tsubs r6, r6, #1\n"
	"\tbne 2b\n"
	"\tsubs ip, ip, #1\n"
	"\tbne 1b\n"
	"\tstr r4, [r0, #16]\n"
	"\tpop {r4-r7}\n"
	"\tbx lr\n"
END(wl_k_walk)

/* Hazards: per iteration 8 operations, subs, bne. Fixed: ldr, 2 mov, str, bx (chain), plus
 * push and pop for the others, which need 8 registers.
 */
FN(wl_k_raw_chain)
	"\tldr r1, [r0]\n"
	"\tmov r2, #1\n"
	"\tmov r3, #0\n"
"1:\tadd r3, r3, r2\n\tadd r3, r3, r2\n\tadd r3, r3, r2\n\tadd r3, r3, r2\n"
	"\tadd r3, r3, r2\n\tadd r3, r3, r2\n\tadd r3, r3, r2\n\tadd r3, r3, r2\n"
	"\tsubs r1, r1, #1\n"
	"\tbne 1b\n"
	"\tstr r3, [r0, #4]\n"
	"\tbx lr\n"
END(wl_k_raw_chain)

FN(wl_k_raw_indep)
	"\tpush {r4-r10}\n"
	"\tldr r1, [r0]\n"
	"\tmov r2, #1\n"
	"\tmov r3, #0\n"
"1:\tadd r3, r3, r2\n\tadd r4, r4, r2\n\tadd r5, r5, r2\n\tadd r6, r6, r2\n"
	"\tadd r7, r7, r2\n\tadd r8, r8, r2\n\tadd r9, r9, r2\n\tadd r10, r10, r2\n"
	"\tsubs r1, r1, #1\n"
	"\tbne 1b\n"
	"\tstr r3, [r0, #4]\n"
	"\tpop {r4-r10}\n"
	"\tbx lr\n"
END(wl_k_raw_indep)

FN(wl_k_mul_indep)
	"\tpush {r4-r10}\n"
	"\tldr r1, [r0]\n"
	"\tmvn r2, #0\n"
	"\tmov ip, #7\n"
"1:\tmul r3, r2, ip\n\tmul r4, r2, ip\n\tmul r5, r2, ip\n\tmul r6, r2, ip\n"
	"\tmul r7, r2, ip\n\tmul r8, r2, ip\n\tmul r9, r2, ip\n\tmul r10, r2, ip\n"
	"\tsubs r1, r1, #1\n"
	"\tbne 1b\n"
	"\tstr r3, [r0, #4]\n"
	"\tpop {r4-r10}\n"
	"\tbx lr\n"
END(wl_k_mul_indep)

#if __ARM_ARCH >= 7
	"\t.arch_extension idiv\n"
FN(wl_k_div_indep)
	"\tpush {r4-r10}\n"
	"\tldr r1, [r0]\n"
	"\tmvn r2, #0\n"
	"\tmov ip, #7\n"
"1:\tudiv r3, r2, ip\n\tudiv r4, r2, ip\n\tudiv r5, r2, ip\n\tudiv r6, r2, ip\n"
	"\tudiv r7, r2, ip\n\tudiv r8, r2, ip\n\tudiv r9, r2, ip\n\tudiv r10, r2, ip\n"
	"\tsubs r1, r1, #1\n"
	"\tbne 1b\n"
	"\tstr r3, [r0, #4]\n"
	"\tpop {r4-r10}\n"
	"\tbx lr\n"
END(wl_k_div_indep)
#endif

FN(wl_ovh_null)
	"\tbx lr\n"
END(wl_ovh_null)
#if __ARM_ARCH >= 7
FN(wl_ovh_raw)
	"\tmrc p15, 0, r0, c9, c13, 0\n"
	"\tbx lr\n"
END(wl_ovh_raw)
FN(wl_ovh_serial)
	"\tisb\n"
	"\tmrc p15, 0, r0, c9, c13, 0\n"
	"\tbx lr\n"
END(wl_ovh_serial)
FN(wl_ovh_cntvct)
	"\tmrrc p15, 1, r0, r1, c14\n"
	"\tbx lr\n"
END(wl_ovh_cntvct)
#else
/* ARM1176: CCNT is c15, and the prefetch flush (c7, c5, 4) stands in for ISB. */
FN(wl_ovh_raw)
	"\tmrc p15, 0, r0, c15, c12, 1\n"
	"\tbx lr\n"
END(wl_ovh_raw)
FN(wl_ovh_serial)
	"\tmcr p15, 0, r0, c7, c5, 4\n"
	"\tmrc p15, 0, r0, c15, c12, 1\n"
	"\tbx lr\n"
END(wl_ovh_serial)
/* No generic timer before ARMv7: never called (wl_cntvct_usable() says no). */
FN(wl_ovh_cntvct)
	"\tmov r0, #0\n"
	"\tmov r1, #0\n"
	"\tbx lr\n"
END(wl_ovh_cntvct)
#endif
END_ASM);

void wl_predict_chase(uint64_t nodes, uint64_t it, struct wl_counts *c)
{
	pred_set(&c->inst, 3, T(3, "N*I", nodes * it), T(3, "I", it), T(3, "", 1));
	pred_set(&c->branches, 3, T(1, "N*I", nodes * it), T(1, "I", it), T(1, "", 1));
	pred_set(&c->loads, 2, T(1, "N*I", nodes * it), T(2, "", 1));
}

void wl_predict_misp(uint64_t size, uint64_t ones, uint64_t it, struct wl_counts *c)
{
	pred_set(&c->inst, 4, T(5, "S*I", size * it), T(1, "K*I", ones * it), T(4, "I", it),
		 T(8, "", 1));
	pred_set(&c->branches, 3, T(2, "S*I", size * it), T(1, "I", it), T(1, "", 1));
	pred_set(&c->loads, 2, T(1, "S*I", size * it), T(4, "", 1));
}

void wl_predict_mm_textbook(uint64_t n, struct wl_counts *c)
{
	pred_set(&c->inst, 4, T(5, "N^3", n * n * n), T(8, "N^2", n * n), T(5, "N", n),
		 T(9, "", 1));
	pred_set(&c->branches, 4, T(1, "N^3", n * n * n), T(1, "N^2", n * n), T(1, "N", n),
		 T(1, "", 1));
	pred_set(&c->loads, 2, T(2, "N^3", n * n * n), T(5, "", 1));
}

void wl_predict_mm_interchange(uint64_t n, struct wl_counts *c)
{
	pred_set(&c->inst, 4, T(6, "N^3", n * n * n), T(8, "N^2", n * n), T(8, "N", n),
		 T(9, "", 1));
	pred_set(&c->branches, 4, T(1, "N^3", n * n * n), T(2, "N^2", n * n), T(1, "N", n),
		 T(1, "", 1));
	pred_set(&c->loads, 3, T(2, "N^3", n * n * n), T(1, "N^2", n * n), T(5, "", 1));
}

void wl_predict_walk(uint64_t count, uint64_t it, struct wl_counts *c)
{
	pred_set(&c->inst, 3, T(4, "C*I", count * it), T(4, "I", it), T(9, "", 1));
	pred_set(&c->branches, 3, T(1, "C*I", count * it), T(1, "I", it), T(1, "", 1));
	pred_set(&c->loads, 2, T(1, "C*I", count * it), T(5, "", 1));
}

static void predict_hazard(uint64_t it, uint64_t fixed, uint64_t fixed_loads, struct wl_counts *c)
{
	pred_set(&c->inst, 2, T(10, "I", it), T(fixed, "", 1));
	pred_set(&c->branches, 2, T(1, "I", it), T(1, "", 1));
	pred_set(&c->loads, 1, T(fixed_loads, "", 1));
}

void wl_predict_raw_chain(uint64_t it, struct wl_counts *c) { predict_hazard(it, 5, 1, c); }
void wl_predict_raw_indep(uint64_t it, struct wl_counts *c) { predict_hazard(it, 7, 2, c); }
void wl_predict_div_indep(uint64_t it, struct wl_counts *c) { predict_hazard(it, 7, 2, c); }
void wl_predict_mul_indep(uint64_t it, struct wl_counts *c) { predict_hazard(it, 7, 2, c); }

#if __ARM_ARCH < 7
void wl_k_div_indep(void *args)
{
	(void)args;
}
#endif

bool wl_have_divide(const char **why)
{
#if __ARM_ARCH >= 7
	/* ARMv7-A made the divide instructions optional (HWCAP_IDIVA: A32 state). */
	if (getauxval(AT_HWCAP) & (1UL << 17)) {
		*why = NULL;
		return true;
	}
	*why = "this CPU has no A32 divide instruction";
#else
	*why = "ARMv6 has no divide instruction";
#endif
	return false;
}

#if __ARM_ARCH >= 7
uint64_t wl_cntvct_read(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("isb\n\tmrrc p15, 1, %0, %1, c14" : "=r"(lo), "=r"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

uint64_t wl_cntfrq_read(void)
{
	uint32_t v;

	__asm__ __volatile__("mrc p15, 0, %0, c14, c0, 0" : "=r"(v));
	return v;
}

static sigjmp_buf cntvct_env;

static void cntvct_sigill(int sig)
{
	siglongjmp(cntvct_env, sig);
}

/* EL0 access to CNTVCT depends on the kernel setting CNTKCTL.PL0VCTEN: try it. */
bool wl_cntvct_usable(const char **why)
{
	struct sigaction sa = { .sa_handler = cntvct_sigill }, old;
	volatile bool ok = false;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGILL, &sa, &old)) {
		*why = "cannot catch SIGILL to probe CNTVCT";
		return false;
	}
	if (!sigsetjmp(cntvct_env, 1)) {
		(void)wl_cntfrq_read();
		(void)wl_cntvct_read();
		ok = true;
	}
	sigaction(SIGILL, &old, NULL);
	*why = ok ? NULL : "CNTVCT is not readable from user space (the kernel traps it)";
	return ok;
}
#else
uint64_t wl_cntvct_read(void)
{
	return 0;
}

uint64_t wl_cntfrq_read(void)
{
	return 0;
}

bool wl_cntvct_usable(const char **why)
{
	*why = "ARMv6 has no generic timer";
	return false;
}
#endif

/* ---- elsewhere: C with the same semantics, no predictions -------------------------------- */
#else

void wl_k_empty(void *args)
{
	(void)args;
}

void wl_k_chase(void *args)
{
	struct wl_chase_args *a = args;
	uintptr_t it;

	for (it = a->iterations; it; it--) {
		void *volatile *p = (void *volatile *)a->head;

		while (p)
			p = (void *volatile *)*p;
	}
}

void wl_k_misp(void *args)
{
	struct wl_misp_args *a = args;
	const volatile char *s = (const volatile char *)a->array;
	uintptr_t it, i, ones = 0;

	for (it = a->iterations; it; it--)
		for (i = 0; i < a->size; i++)
			if (s[i] == '1')
				ones++;
	a->ones = ones;
}

void wl_k_mm_textbook(void *args)
{
	struct wl_matrix_args *a = args;
	const int32_t *A = (const int32_t *)a->a, *B = (const int32_t *)a->b;
	int32_t *C = (int32_t *)a->c;
	size_t n = a->n, i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			uint32_t sum = 0;

			for (k = 0; k < n; k++)
				sum += (uint32_t)A[i * n + k] * (uint32_t)B[k * n + j];
			C[i * n + j] = (int32_t)sum;
		}
}

void wl_k_mm_interchange(void *args)
{
	struct wl_matrix_args *a = args;
	const int32_t *A = (const int32_t *)a->a, *B = (const int32_t *)a->b;
	int32_t *C = (int32_t *)a->c;
	size_t n = a->n, i, j, k;

	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++)
			C[i * n + j] = 0;
		for (k = 0; k < n; k++) {
			uint32_t r = (uint32_t)A[i * n + k];

			for (j = 0; j < n; j++)
				C[i * n + j] = (int32_t)((uint32_t)C[i * n + j] +
							 r * (uint32_t)B[k * n + j]);
		}
	}
}

void wl_k_walk(void *args)
{
	struct wl_walk_args *a = args;
	uintptr_t it, i;
	uint32_t sum = 0;

	for (it = a->iterations; it; it--)
		for (i = 0; i < a->count; i++)
			sum += *(const volatile uint32_t *)(a->base + i * a->stride);
	a->sum = sum;
}

void wl_k_raw_chain(void *args)
{
	struct wl_hazard_args *a = args;
	volatile uintptr_t x = 0;
	uintptr_t it;

	for (it = a->iterations; it; it--)
		x = x + 1;
	a->out = x;
}

void wl_k_raw_indep(void *args)
{
	wl_k_raw_chain(args);
}

void wl_k_div_indep(void *args)
{
	struct wl_hazard_args *a = args;
	volatile uint32_t d = 7, x = 0;
	uintptr_t it;

	for (it = a->iterations; it; it--)
		x = UINT32_MAX / d;
	a->out = x;
}

void wl_k_mul_indep(void *args)
{
	struct wl_hazard_args *a = args;
	volatile uint32_t d = 7, x = 0;
	uintptr_t it;

	for (it = a->iterations; it; it--)
		x = UINT32_MAX * d;
	a->out = x;
}

static void unknown(struct wl_counts *c)
{
	memset(c, 0, sizeof(*c));
}

void wl_predict_chase(uint64_t nodes, uint64_t it, struct wl_counts *c)
{
	(void)nodes, (void)it;
	unknown(c);
}

void wl_predict_misp(uint64_t size, uint64_t ones, uint64_t it, struct wl_counts *c)
{
	(void)size, (void)ones, (void)it;
	unknown(c);
}

void wl_predict_mm_textbook(uint64_t n, struct wl_counts *c)
{
	(void)n;
	unknown(c);
}

void wl_predict_mm_interchange(uint64_t n, struct wl_counts *c)
{
	(void)n;
	unknown(c);
}

void wl_predict_walk(uint64_t count, uint64_t it, struct wl_counts *c)
{
	(void)count, (void)it;
	unknown(c);
}

void wl_predict_raw_chain(uint64_t it, struct wl_counts *c) { (void)it; unknown(c); }
void wl_predict_raw_indep(uint64_t it, struct wl_counts *c) { (void)it; unknown(c); }
void wl_predict_div_indep(uint64_t it, struct wl_counts *c) { (void)it; unknown(c); }
void wl_predict_mul_indep(uint64_t it, struct wl_counts *c) { (void)it; unknown(c); }

bool wl_have_divide(const char **why)
{
	*why = NULL;
	return true;
}

void wl_ovh_null(void *unused)
{
	(void)unused;
}

void wl_ovh_raw(void *unused)
{
	(void)unused;
}

void wl_ovh_serial(void *unused)
{
	(void)unused;
}

void wl_ovh_cntvct(void *unused)
{
	(void)unused;
}

uint64_t wl_cntvct_read(void)
{
	return 0;
}

uint64_t wl_cntfrq_read(void)
{
	return 0;
}

bool wl_cntvct_usable(const char **why)
{
	*why = "no generic timer on this architecture";
	return false;
}
#endif

void wl_predict_empty(struct wl_counts *c)
{
	pred_set(&c->inst, 1, T(1, "", 1));
	pred_set(&c->branches, 1, T(1, "", 1));
	pred_set(&c->loads, 1, T(0, "", 1));
}
