// SPDX-License-Identifier: MIT
/*
 * What the workload kernels of every ISA share: the formulas' arithmetic and text, and the
 * layout of the argument blocks the assembly reads. The kernels and their formulas are in
 * wl_kernels_a64.c (AArch64), wl_kernels_arm.c (ARM state, ARMv7 and ARMv6) and
 * wl_kernels_c.c (C, elsewhere).
 */
#include <inttypes.h>
#include <stdarg.h>
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

void wl_pred_set(struct wl_pred *p, unsigned int n, ...)
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

void wl_predict_empty(struct wl_counts *c)
{
	wl_pred_set(&c->inst, 1, T(1, "", 1));
	wl_pred_set(&c->branches, 1, T(1, "", 1));
	wl_pred_set(&c->loads, 1, T(0, "", 1));
}
