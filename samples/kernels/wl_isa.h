/* SPDX-License-Identifier: MIT */
/*
 * What each ISA's kernels file (wl_kernels_a64.c, wl_kernels_arm.c) uses: the assembly's
 * function frame and section, and the formulas next to the code. A formula counts every
 * instruction of its function, the return included, so a change to the code must change the
 * formula next to it. Loop counters are tested at the bottom (do-while), hence the ">= 1" on
 * every count.
 */
#ifndef WL_ISA_H
#define WL_ISA_H

#include <stdint.h>

#include "wl_kernels.h"

/* wl_pred_set(p, n, T(coef0, sym0, value0), ...): a formula of n terms (wl_kernels.c). */
void wl_pred_set(struct wl_pred *p, unsigned int n, ...);
#define T(coef, sym, value) (uint64_t)(coef), (const char *)(sym), (uint64_t)(value)

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

#endif /* WL_ISA_H */
