// SPDX-License-Identifier: MIT
/*
 * The workload kernels in ARM-state assembly (ARMv6 instructions, the divide kernel ARMv7),
 * each followed by the formula of what it retires.
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
	wl_pred_set(&c->inst, 3, T(3, "N*I", nodes * it), T(3, "I", it), T(3, "", 1));
	wl_pred_set(&c->branches, 3, T(1, "N*I", nodes * it), T(1, "I", it), T(1, "", 1));
	wl_pred_set(&c->loads, 2, T(1, "N*I", nodes * it), T(2, "", 1));
}

void wl_predict_misp(uint64_t size, uint64_t ones, uint64_t it, struct wl_counts *c)
{
	wl_pred_set(&c->inst, 4, T(5, "S*I", size * it), T(1, "K*I", ones * it), T(4, "I", it),
		 T(8, "", 1));
	wl_pred_set(&c->branches, 3, T(2, "S*I", size * it), T(1, "I", it), T(1, "", 1));
	wl_pred_set(&c->loads, 2, T(1, "S*I", size * it), T(4, "", 1));
}

void wl_predict_mm_textbook(uint64_t n, struct wl_counts *c)
{
	wl_pred_set(&c->inst, 4, T(5, "N^3", n * n * n), T(8, "N^2", n * n), T(5, "N", n),
		 T(9, "", 1));
	wl_pred_set(&c->branches, 4, T(1, "N^3", n * n * n), T(1, "N^2", n * n), T(1, "N", n),
		 T(1, "", 1));
	wl_pred_set(&c->loads, 2, T(2, "N^3", n * n * n), T(5, "", 1));
}

void wl_predict_mm_interchange(uint64_t n, struct wl_counts *c)
{
	wl_pred_set(&c->inst, 4, T(6, "N^3", n * n * n), T(8, "N^2", n * n), T(8, "N", n),
		 T(9, "", 1));
	wl_pred_set(&c->branches, 4, T(1, "N^3", n * n * n), T(2, "N^2", n * n), T(1, "N", n),
		 T(1, "", 1));
	wl_pred_set(&c->loads, 3, T(2, "N^3", n * n * n), T(1, "N^2", n * n), T(5, "", 1));
}

void wl_predict_walk(uint64_t count, uint64_t it, struct wl_counts *c)
{
	wl_pred_set(&c->inst, 3, T(4, "C*I", count * it), T(4, "I", it), T(9, "", 1));
	wl_pred_set(&c->branches, 3, T(1, "C*I", count * it), T(1, "I", it), T(1, "", 1));
	wl_pred_set(&c->loads, 2, T(1, "C*I", count * it), T(5, "", 1));
}

static void predict_hazard(uint64_t it, uint64_t fixed, uint64_t fixed_loads, struct wl_counts *c)
{
	wl_pred_set(&c->inst, 2, T(10, "I", it), T(fixed, "", 1));
	wl_pred_set(&c->branches, 2, T(1, "I", it), T(1, "", 1));
	wl_pred_set(&c->loads, 1, T(fixed_loads, "", 1));
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

#endif
