/* SPDX-License-Identifier: MIT */
/*
 * What each ISA's kernels file (wl_kernels_a64.c, wl_kernels_arm.c) uses: the assembly's
 * function frame and section, and the table of formulas it keeps after the code. A formula
 * counts every instruction of its function, the return included, so a change to the code must
 * change its row of the table. Loop counters are tested at the bottom (do-while), hence the
 * ">= 1" on every count.
 */
#ifndef WL_ISA_H
#define WL_ISA_H

#include <stdint.h>

#include "wl_kernels.h"

/* Terms a kernel's formulas have at most: its monomials (wl_kernels.c lists them). */
#define WL_MONOS 4

/*
 * A kernel's formulas on one ISA: the coefficient of each of its monomials, in the order
 * wl_kernels.c lists them; 0 leaves the term out.
 */
struct wl_coefs {
	uint32_t inst[WL_MONOS];
	uint32_t branches[WL_MONOS];
	uint32_t loads[WL_MONOS];
};

/* The ISA's formulas, by enum wl_kernel: the one table wl_predict() reads. */
extern const struct wl_coefs wl_coefs[WL_KERNELS];

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
