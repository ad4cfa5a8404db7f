/* SPDX-License-Identifier: MIT */
/*
 * Known-good workload kernels (pmu-chase, pmu-misp, pmu-matrix, pmu-walk, pmu-hazards) and the
 * read methods of pmu-overhead.
 *
 * On ARM every kernel is a whole function in assembly, so its instruction and branch counts
 * are closed-form formulas of its parameters, exact by construction: wl_predict() evaluates
 * them from the ISA's table of coefficients, kept next to the code. AArch64 has its own code
 * (wl_kernels_a64.c); AArch32 ARMv7 and ARMv6 share ARM-mode code that uses ARMv6
 * instructions only, except the divide kernel, ARMv7 with the divide extension
 * (wl_kernels_arm.c). Elsewhere (x86) the kernels are C with the same semantics and no
 * predictions (wl_kernels_c.c): the tools then run clock-only.
 *
 * Every kernel takes one pointer to its argument block of uintptr_t fields (offsets fixed by
 * the assembly) and may write results back into it.
 */
#ifndef WL_KERNELS_H
#define WL_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__aarch64__)
#define WL_ISA "AArch64"
#define WL_PREDICTS 1
#elif defined(__arm__)
#define WL_ISA "ARM (A32)"
#define WL_PREDICTS 1
#else
#define WL_ISA "C fallback"
#define WL_PREDICTS 0
#endif

typedef void (*wl_kernel_fn)(void *args);

/* ---- predictions -------------------------------------------------------------------------- */

#define WL_TERMS_MAX 6

/* One term coef * value of a formula; sym names value, e.g. "N*I" ("" for a constant). */
struct wl_term {
	uint64_t coef;
	const char *sym;
	uint64_t value;
};

/* A count predicted in closed form: the sum of its terms. known false: no prediction here. */
struct wl_pred {
	bool known;
	unsigned int nterms;
	struct wl_term term[WL_TERMS_MAX];
};

uint64_t wl_pred_total(const struct wl_pred *p);
/* "5*N^3 + 8*N^2 + 5*N + 9"; "n/a" when not known. */
void wl_pred_formula(const struct wl_pred *p, char *buf, size_t len);

/* What a kernel retires: instructions, branches (returns included) and data loads. */
struct wl_counts {
	struct wl_pred inst;
	struct wl_pred branches;
	struct wl_pred loads;
};

/* ---- the kernels -------------------------------------------------------------------------- */

/* Only returns: the harness measures its own cost with it (1 instruction, 1 branch). */
void wl_k_empty(void *args);
void wl_predict_empty(struct wl_counts *c);

/* Pointer chase: iterations times, follow next from head until NULL. */
struct wl_chase_args {
	uintptr_t head;			/* first node; a node's first word is the next pointer */
	uintptr_t iterations;		/* >= 1 */
};
void wl_k_chase(void *args);

/* Branch mispredict: iterations times, count the '1' bytes of array[0..size-1]. */
struct wl_misp_args {
	uintptr_t array;
	uintptr_t size;			/* >= 1 */
	uintptr_t iterations;		/* >= 1 */
	uintptr_t ones;			/* out: '1' bytes counted over all iterations */
};
void wl_k_misp(void *args);

/* Integer matrix multiply C = A x B of n x n int32 (row-major), textbook (i, j, k) order or
 * with the loop interchange (i, k, j) that walks B and C by rows.
 */
struct wl_matrix_args {
	uintptr_t a, b, c;
	uintptr_t n;			/* >= 1 */
};
void wl_k_mm_textbook(void *args);
void wl_k_mm_interchange(void *args);

/* Strided walk: iterations times, sum count uint32 words at base, base + stride, ... */
struct wl_walk_args {
	uintptr_t base;
	uintptr_t count;		/* >= 1 loads per pass */
	uintptr_t stride;		/* bytes, a multiple of 4 */
	uintptr_t iterations;		/* >= 1 */
	uintptr_t sum;			/* out: 32-bit sum of every load */
};
void wl_k_walk(void *args);

/*
 * Hazard kernels: iterations times a block of 8 operations then the loop branch.
 *  raw_chain  8 adds, each needing the previous one's result (read-after-write)
 *  raw_indep  8 adds into 8 registers (no dependency within the block)
 *  div_indep  8 independent unsigned divides (one divider: a structural hazard)
 *  mul_indep  8 independent multiplies (pipelined: the same shape without the hazard)
 */
struct wl_hazard_args {
	uintptr_t iterations;		/* >= 1 */
	uintptr_t out;			/* out: one result, so the work is observable */
};
void wl_k_raw_chain(void *args);
void wl_k_raw_indep(void *args);
void wl_k_div_indep(void *args);
void wl_k_mul_indep(void *args);
/* Whether this CPU has the divide instruction wl_k_div_indep uses; why says why not. */
bool wl_have_divide(const char **why);

/* ---- what the kernels retire -------------------------------------------------------------- */

/*
 * The kernels with formulas, and the parameters wl_predict() takes for each as x, y and z
 * (0 where a kernel has fewer), with their letters in the formulas.
 */
enum wl_kernel {
	WL_CHASE,		/* x nodes (N), y iterations (I) */
	/* x size (S), y '1' bytes in the array (K: the data branch is taken for the others),
	 * z iterations (I)
	 */
	WL_MISP,
	WL_MM_TEXTBOOK,		/* x n (N) */
	WL_MM_INTERCHANGE,	/* x n (N) */
	WL_WALK,		/* x count (C), y iterations (I) */
	WL_RAW_CHAIN,		/* x iterations (I), as for each hazard kernel below */
	WL_RAW_INDEP,
	WL_DIV_INDEP,
	WL_MUL_INDEP,
	WL_KERNELS
};

/*
 * What kernel k retires for parameters x, y, z: its formulas from the ISA's table
 * (wl_kernels_a64.c, wl_kernels_arm.c); not known elsewhere (known false, no terms).
 */
void wl_predict(enum wl_kernel k, uint64_t x, uint64_t y, uint64_t z, struct wl_counts *c);

/* ---- pmu-overhead's inline reads: each a whole function "read; return" ------------------- */

/* Returns at once: the cost of the call itself. */
void wl_ovh_null(void *unused);
/* The cycle counter, raw (one MRS/MRC) and serialised (ISB first). */
void wl_ovh_raw(void *unused);
void wl_ovh_serial(void *unused);
/* The generic timer's virtual count (CNTVCT); wl_cntvct_usable() says if EL0 may read it. */
void wl_ovh_cntvct(void *unused);
/* Instructions in each of the above besides the shared return (1 on ARM); 0 elsewhere. */
#define WL_OVH_RAW_INST		1
#define WL_OVH_SERIAL_INST	2
uint64_t wl_cntvct_read(void);
uint64_t wl_cntfrq_read(void);
bool wl_cntvct_usable(const char **why);

#endif
