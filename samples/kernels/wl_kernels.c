// SPDX-License-Identifier: MIT
/*
 * What the workload kernels of every ISA share: the formulas' monomials, arithmetic and text,
 * and the layout of the argument blocks the assembly reads. The kernels and the tables of
 * their formulas' coefficients are in wl_kernels_a64.c (AArch64) and wl_kernels_arm.c (ARM
 * state, ARMv7 and ARMv6); wl_kernels_c.c has the kernels in C, with no formulas, elsewhere.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "wl_isa.h"
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
	uint64_t sum = 0, t;
	unsigned int i;

	for (i = 0; i < p->nterms; i++)
		if (__builtin_mul_overflow(p->term[i].coef, p->term[i].value, &t) ||
		    __builtin_add_overflow(sum, t, &sum))
			return UINT64_MAX;
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

/* The empty kernel is one return on every ISA: 1 instruction, 1 branch, no load. */
void wl_predict_empty(struct wl_counts *c)
{
	*c = (struct wl_counts){
		.inst = { WL_PREDICTS, 1, { { 1, "", 1 } } },
		.branches = { WL_PREDICTS, 1, { { 1, "", 1 } } },
		.loads = { WL_PREDICTS, 1, { { 0, "", 1 } } },
	};
}

#if WL_PREDICTS
_Static_assert(WL_MONOS <= WL_TERMS_MAX, "a formula's terms fit a prediction");

/* A monomial: the product of a kernel's parameters x, y, z, each to its power, and its text. */
struct wl_mono {
	const char *sym;
	uint8_t pow[3];
};

/*
 * Each kernel's monomials, highest first (enum wl_kernel names the letters): the terms its
 * formulas are made of, whose coefficients the ISA's table wl_coefs gives in this order.
 */
static const struct wl_mono monos[WL_KERNELS][WL_MONOS] = {
	[WL_CHASE] = { { "N*I", { 1, 1, 0 } }, { "I", { 0, 1, 0 } }, { "", { 0, 0, 0 } } },
	[WL_MISP] = { { "S*I", { 1, 0, 1 } }, { "K*I", { 0, 1, 1 } }, { "I", { 0, 0, 1 } },
		      { "", { 0, 0, 0 } } },
	[WL_MM_TEXTBOOK] = { { "N^3", { 3, 0, 0 } }, { "N^2", { 2, 0, 0 } }, { "N", { 1, 0, 0 } },
			     { "", { 0, 0, 0 } } },
	[WL_MM_INTERCHANGE] = { { "N^3", { 3, 0, 0 } }, { "N^2", { 2, 0, 0 } },
				{ "N", { 1, 0, 0 } }, { "", { 0, 0, 0 } } },
	[WL_WALK] = { { "C*I", { 1, 1, 0 } }, { "I", { 0, 1, 0 } }, { "", { 0, 0, 0 } } },
	[WL_RAW_CHAIN ... WL_MUL_INDEP] = { { "I", { 1, 0, 0 } }, { "", { 0, 0, 0 } } },
};

/* The formula with coefficient coef[i] for monomial m[i] of the parameters x[]. */
static void formula(struct wl_pred *p, const struct wl_mono m[], const uint32_t coef[],
		    const uint64_t x[3])
{
	unsigned int i, j, e;

	p->known = true;
	for (i = 0; i < WL_MONOS && m[i].sym; i++) {
		uint64_t v = 1;

		if (!coef[i])
			continue;
		for (j = 0; j < 3; j++)
			for (e = 0; e < m[i].pow[j]; e++)
				v *= x[j];
		p->term[p->nterms++] = (struct wl_term){ coef[i], m[i].sym, v };
	}
}
#endif

void wl_predict(enum wl_kernel k, uint64_t x, uint64_t y, uint64_t z, struct wl_counts *c)
{
	memset(c, 0, sizeof(*c));
#if WL_PREDICTS
	const uint64_t v[3] = { x, y, z };

	formula(&c->inst, monos[k], wl_coefs[k].inst, v);
	formula(&c->branches, monos[k], wl_coefs[k].branches, v);
	formula(&c->loads, monos[k], wl_coefs[k].loads, v);
#else
	(void)k, (void)x, (void)y, (void)z;
#endif
}
