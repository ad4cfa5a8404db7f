// SPDX-License-Identifier: MIT
/* The workload kernels in AArch64 assembly, then the table of what each retires. */
#if defined(__aarch64__)
#include "wl_isa.h"

__asm__(BEGIN_ASM
FN(wl_k_empty)
	"\tret\n"
END(wl_k_empty)

/* x0 = args: x1 iterations, x2 head; x3 walks the list. */
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

/* x4 counts the '1' bytes; x5, x6 walk the array, x3 the passes. */
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

/* Loops i (x6), j (x9), k (x12); x5 is a row's bytes, the step down a column of B. */
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

/* Loops i (x6), k (x9), j (x12), C's row zeroed first; A and B are walked in memory order by
 * post-increment.
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

/* x7 sums the loads; x5 steps by the stride x3, x6 counts them, x4 the passes. */
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

/* Hazards: per iteration a block of 8 operations, then the loop branch. */
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

/*
 * What each kernel above retires: per formula, the coefficients of the kernel's monomials
 * (wl_kernels.c) and, in the comment, the instructions behind each, "|" between monomials.
 * Branches include the return; loads count every load instruction.
 */
const struct wl_coefs wl_coefs[WL_KERNELS] = {
	/* N*I per node, I per traversal, 1 fixed. */
	[WL_CHASE] = {
		.inst = { 2, 3, 3 },		/* ldr, cbnz | mov, subs, b.ne | 2 ldr, ret */
		.branches = { 1, 1, 1 },	/* cbnz | b.ne | ret */
		.loads = { 1, 0, 2 },		/* ldr | - | 2 ldr */
	},
	/* S*I per byte, K*I per '1' byte, I per pass, 1 fixed. */
	[WL_MISP] = {
		.inst = { 5, 1, 4, 6 },		/* ldrb, cmp, b.ne, subs, b.ne | add |
						 * 2 mov, subs, b.ne | 3 ldr, mov, str, ret
						 */
		.branches = { 2, 0, 1, 1 },	/* 2 b.ne | - | b.ne | ret */
		.loads = { 1, 0, 0, 3 },	/* ldrb | - | - | 3 ldr */
	},
	/* i, j, k: N^3 per k, N^2 per j, N per i, 1 fixed. */
	[WL_MM_TEXTBOOK] = {
		.inst = { 6, 8, 5, 7 },		/* 2 ldr, add, madd, subs, b.ne |
						 * 4 mov, str, add, subs, b.ne |
						 * 2 mov, add, subs, b.ne | 4 ldr, lsl, mov, ret
						 */
		.branches = { 1, 1, 1, 1 },	/* b.ne | b.ne | b.ne | ret */
		.loads = { 2, 0, 0, 4 },	/* 2 ldr | - | - | 4 ldr */
	},
	/* i, k, j: N^3 per j, N^2 per k and per element of C zeroed, N per i, 1 fixed. */
	[WL_MM_INTERCHANGE] = {
		.inst = { 6, 8, 7, 7 },		/* 2 ldr, madd, str, subs, b.ne |
						 * ldr, 2 mov, subs, b.ne + str, subs, b.ne |
						 * 4 mov, add, subs, b.ne | 4 ldr, lsl, mov, ret
						 */
		.branches = { 1, 2, 1, 1 },	/* b.ne | 2 b.ne | b.ne | ret */
		.loads = { 2, 1, 0, 4 },	/* 2 ldr | ldr | - | 4 ldr */
	},
	/* C*I per load, I per pass, 1 fixed. */
	[WL_WALK] = {
		.inst = { 5, 4, 7 },		/* ldr, add, add, subs, b.ne |
						 * 2 mov, subs, b.ne | 4 ldr, mov, str, ret
						 */
		.branches = { 1, 1, 1 },	/* b.ne | b.ne | ret */
		.loads = { 1, 0, 4 },		/* ldr | - | 4 ldr */
	},
	/* Every hazard kernel: I per iteration, 1 fixed. */
	[WL_RAW_CHAIN ... WL_MUL_INDEP] = {
		.inst = { 10, 5 },		/* 8 operations, subs, b.ne |
						 * ldr, 2 mov, str, ret
						 */
		.branches = { 1, 1 },		/* b.ne | ret */
		.loads = { 0, 1 },		/* - | ldr */
	},
};

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
