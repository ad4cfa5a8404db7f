// SPDX-License-Identifier: MIT
/* The workload kernels in AArch64 assembly, each followed by the formula of what it retires. */
#if defined(__aarch64__)
#include "wl_isa.h"

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
	wl_pred_set(&c->inst, 3, T(2, "N*I", nodes * it), T(3, "I", it), T(3, "", 1));
	wl_pred_set(&c->branches, 3, T(1, "N*I", nodes * it), T(1, "I", it), T(1, "", 1));
	wl_pred_set(&c->loads, 2, T(1, "N*I", nodes * it), T(2, "", 1));
}

void wl_predict_misp(uint64_t size, uint64_t ones, uint64_t it, struct wl_counts *c)
{
	wl_pred_set(&c->inst, 4, T(5, "S*I", size * it), T(1, "K*I", ones * it), T(4, "I", it),
		 T(6, "", 1));
	wl_pred_set(&c->branches, 3, T(2, "S*I", size * it), T(1, "I", it), T(1, "", 1));
	wl_pred_set(&c->loads, 2, T(1, "S*I", size * it), T(3, "", 1));
}

void wl_predict_mm_textbook(uint64_t n, struct wl_counts *c)
{
	wl_pred_set(&c->inst, 4, T(6, "N^3", n * n * n), T(8, "N^2", n * n), T(5, "N", n),
		 T(7, "", 1));
	wl_pred_set(&c->branches, 4, T(1, "N^3", n * n * n), T(1, "N^2", n * n), T(1, "N", n),
		 T(1, "", 1));
	wl_pred_set(&c->loads, 2, T(2, "N^3", n * n * n), T(4, "", 1));
}

void wl_predict_mm_interchange(uint64_t n, struct wl_counts *c)
{
	wl_pred_set(&c->inst, 4, T(6, "N^3", n * n * n), T(8, "N^2", n * n), T(7, "N", n),
		 T(7, "", 1));
	wl_pred_set(&c->branches, 4, T(1, "N^3", n * n * n), T(2, "N^2", n * n), T(1, "N", n),
		 T(1, "", 1));
	wl_pred_set(&c->loads, 3, T(2, "N^3", n * n * n), T(1, "N^2", n * n), T(4, "", 1));
}

void wl_predict_walk(uint64_t count, uint64_t it, struct wl_counts *c)
{
	wl_pred_set(&c->inst, 3, T(5, "C*I", count * it), T(4, "I", it), T(7, "", 1));
	wl_pred_set(&c->branches, 3, T(1, "C*I", count * it), T(1, "I", it), T(1, "", 1));
	wl_pred_set(&c->loads, 2, T(1, "C*I", count * it), T(4, "", 1));
}

static void predict_hazard(uint64_t it, uint64_t fixed, uint64_t fixed_loads, struct wl_counts *c)
{
	wl_pred_set(&c->inst, 2, T(10, "I", it), T(fixed, "", 1));
	wl_pred_set(&c->branches, 2, T(1, "I", it), T(1, "", 1));
	wl_pred_set(&c->loads, 1, T(fixed_loads, "", 1));
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

#endif
