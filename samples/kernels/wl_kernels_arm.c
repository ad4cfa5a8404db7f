// SPDX-License-Identifier: MIT
/*
 * The workload kernels in ARM-state assembly (ARMv6 instructions, the divide kernel ARMv7),
 * then the table of what each retires.
 */
#if defined(__arm__)
#include <setjmp.h>
#include <signal.h>
#include <sys/auxv.h>

#include "wl_isa.h"

__asm__(BEGIN_ASM
FN(wl_k_empty)
	"\tbx lr\n"
END(wl_k_empty)

/* r0 = args: r1 iterations, r2 head; r3 walks the list. */
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

/* ip counts the '1' bytes; r4, r5 walk the array, r3 the passes. */
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

/* Loops i (r5), j (r7), k (r10); r4 is a row's bytes, the step down a column of B. */
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

/* Loops i (r5), k (r9), j (r7), C's row zeroed first (r7 counting too). */
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

/* r4 sums the loads; r5 steps by the stride r3, r6 counts them, ip the passes. */
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

/* Hazards: per iteration a block of 8 operations, then the loop branch. */
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

/*
 * What each kernel above retires: per formula, the coefficients of the kernel's monomials
 * (wl_kernels.c) and, in the comment, the instructions behind each, "|" between monomials.
 * Branches include the return; loads count every load instruction, a pop too.
 */
const struct wl_coefs wl_coefs[WL_KERNELS] = {
	/* N*I per node, I per traversal, 1 fixed. */
	[WL_CHASE] = {
		.inst = { 3, 3, 3 },		/* ldr, cmp, bne | mov, subs, bne | 2 ldr, bx */
		.branches = { 1, 1, 1 },	/* bne | bne | bx */
		.loads = { 1, 0, 2 },		/* ldr | - | 2 ldr */
	},
	/* S*I per byte, K*I per '1' byte, I per pass, 1 fixed. */
	[WL_MISP] = {
		.inst = { 5, 1, 4, 8 },		/* ldrb, cmp, bne, subs, bne | add |
						 * 2 mov, subs, bne | push, 3 ldr, mov, str, pop, bx
						 */
		.branches = { 2, 0, 1, 1 },	/* 2 bne | - | bne | bx */
		.loads = { 1, 0, 0, 4 },	/* ldrb | - | - | 3 ldr, pop */
	},
	/* i, j, k: N^3 per k, N^2 per j, N per i, 1 fixed. */
	[WL_MM_TEXTBOOK] = {
		.inst = { 5, 8, 5, 9 },		/* 2 ldr, mla, subs, bne |
						 * 4 mov, str, add, subs, bne |
						 * 2 mov, add, subs, bne |
						 * push, 4 ldr, lsl, mov, pop, bx
						 */
		.branches = { 1, 1, 1, 1 },	/* bne | bne | bne | bx */
		.loads = { 2, 0, 0, 5 },	/* 2 ldr | - | - | 4 ldr, pop */
	},
	/* i, k, j: N^3 per j, N^2 per k and per element of C zeroed, N per i, 1 fixed. */
	[WL_MM_INTERCHANGE] = {
		.inst = { 6, 8, 8, 9 },		/* 2 ldr, mla, str, subs, bne |
						 * ldr, 2 mov, subs, bne + str, subs, bne |
						 * 5 mov, add, subs, bne |
						 * push, 4 ldr, lsl, mov, pop, bx
						 */
		.branches = { 1, 2, 1, 1 },	/* bne | 2 bne | bne | bx */
		.loads = { 2, 1, 0, 5 },	/* 2 ldr | ldr | - | 4 ldr, pop */
	},
	/* C*I per load, I per pass, 1 fixed. */
	[WL_WALK] = {
		.inst = { 4, 4, 9 },		/* ldr, add, subs, bne | 2 mov, subs, bne |
						 * push, 4 ldr, mov, str, pop, bx
						 */
		.branches = { 1, 1, 1 },	/* bne | bne | bx */
		.loads = { 1, 0, 5 },		/* ldr | - | 4 ldr, pop */
	},
	/* The hazard kernels: I per iteration, 1 fixed. */
	[WL_RAW_CHAIN] = {
		.inst = { 10, 5 },		/* 8 operations, subs, bne |
						 * ldr, 2 mov, str, bx
						 */
		.branches = { 1, 1 },		/* bne | bx */
		.loads = { 0, 1 },		/* - | ldr */
	},
	/* The others use 8 registers, saved by a push and restored by a pop. */
	[WL_RAW_INDEP ... WL_MUL_INDEP] = {
		.inst = { 10, 7 },		/* 8 operations, subs, bne |
						 * push, ldr, 2 mov, str, pop, bx
						 */
		.branches = { 1, 1 },		/* bne | bx */
		.loads = { 0, 2 },		/* - | ldr, pop */
	},
};

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

#endif
