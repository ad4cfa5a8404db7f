// SPDX-License-Identifier: MIT
/*
 * pmu-matrix: integer matrix multiply C = A x B, textbook (i, j, k) order against the loop
 * interchange (i, k, j) that walks B and C by rows. Instructions and branches are predicted
 * in closed form (cubic in N); cycles, IPC and cache refills show what the access order does.
 * Both results are checked against a plain C product.
 *
 * usage: pmu-matrix [--order N] [--seed N] [-f FMT]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "size_suffix.h"
#include "wl_harness.h"

#define TOOL "pmu-matrix"
#define MAX_ORDER 700	/* 6 * N^3 stays below 2^31 instructions */
#define MAX_ORDER_TEXT "700"
_Static_assert(MAX_ORDER == 700, "MAX_ORDER_TEXT must spell MAX_ORDER");

/* The product in plain C, for checking both kernels (wrapping 32-bit arithmetic). */
static void reference(const int32_t *a, const int32_t *b, int32_t *c, size_t n)
{
	size_t i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			uint32_t s = 0;

			for (k = 0; k < n; k++)
				s += (uint32_t)a[i * n + k] * (uint32_t)b[k * n + j];
			c[i * n + j] = (int32_t)s;
		}
}

int main(int argc, char **argv)
{
	static const uint32_t events[] = {
		WL_EV_INST_RETIRED, WL_EV_BR_RETIRED, WL_EV_L1D_CACHE_REFILL,
		WL_EV_STALL_FRONTEND, WL_EV_STALL_BACKEND,
	};
	uint64_t n = 128, seed = 1, i;
	bool kv;
	const struct tool_opt opts[] = {
		{ "order", 0, "N", "matrix order: N x N int32 (default 128, at most "
		  MAX_ORDER_TEXT ")", TOOL_OPT_NUMBER, 1, MAX_ORDER, .value = &n },
		{ "seed", 0, "N", "random fill seed (default 1)",
		  TOOL_OPT_NUMBER, 0, UINT64_MAX, .value = &seed },
		{ NULL },
	};
	struct wl_column cols[2] = { { .label = "textbook" }, { .label = "interchange" } };
	struct wl_matrix_args args;
	struct wl_harness h;
	struct wl_rng rng;
	int32_t *a, *b, *c, *ref;
	size_t bytes;
	char what[160], legend[80], sizebuf[32];
	int status, k;

	status = wl_parse_options(TOOL,
				  "Integer matrix multiply in (i, j, k) and (i, k, j) order, counted against the\n"
				  "prediction.",
				  "report", opts, argc, argv, &kv);
	if (status >= 0)
		return status;
	bytes = (size_t)(n * n) * sizeof(int32_t);
	a = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	b = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	c = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	ref = malloc(bytes);
	if (!a || !b || !c || !ref) {
		fprintf(stderr, TOOL ": out of memory for order %" PRIu64 "\n", n);
		return 1;
	}
	wl_rng_seed(&rng, seed);
	for (i = 0; i < n * n; i++) {
		a[i] = (int32_t)wl_rng_below(&rng, 1000) - 500;
		b[i] = (int32_t)wl_rng_below(&rng, 1000) - 500;
	}
	reference(a, b, ref, (size_t)n);
	wl_predict(WL_MM_TEXTBOOK, n, 0, 0, &cols[0].pred);
	wl_predict(WL_MM_INTERCHANGE, n, 0, 0, &cols[1].pred);
	if (wl_check_budget(TOOL, "the textbook product", &cols[0].pred) ||
	    wl_check_budget(TOOL, "the interchanged product", &cols[1].pred))
		return 2;

	if (wl_open(&h, TOOL, kv, events, sizeof(events) / sizeof(events[0])))
		return 1;
	args = (struct wl_matrix_args){ (uintptr_t)a, (uintptr_t)b, (uintptr_t)c, n };
	for (k = 0; k < 2; k++) {
		wl_kernel_fn fn = k ? wl_k_mm_interchange : wl_k_mm_textbook;

		memset(c, 0x5a, bytes);	/* both kernels must write every element */
		wl_measure(&h, fn, &args, &cols[k]);
		if (tool_stop_signal)
			break;
		if (memcmp(c, ref, bytes)) {
			fprintf(stderr, TOOL ": the %s product differs from the reference\n",
				cols[k].label);
			wl_close(&h);
			return 1;
		}
	}

	snprintf(what, sizeof(what), "C = A x B, %" PRIu64 " x %" PRIu64 " int32 (%s each), "
		 "textbook (i, j, k) vs loop interchange (i, k, j); both checked", n, n,
		 size_format(sizebuf, sizeof(sizebuf), bytes));
	snprintf(legend, sizeof(legend), "N=%" PRIu64 " matrix order", n);
	wl_report(&h, what, cols, 2, legend);
	if (!kv && wl_measured(cols, 2) == 2 && cols[0].value[WL_CYCLES] > 0 &&
	    cols[1].value[WL_CYCLES] > 0)
		printf("\ninterchange vs textbook: %.3fx the %s (Cortex-A72 in the seed, -O0 code: "
		       "IPC 0.909 vs 2.053)\n",
		       (double)cols[1].value[WL_CYCLES] / (double)cols[0].value[WL_CYCLES],
		       pmuser_counters_backend(h.c) == PMUSER_BACKEND_CLOCK ? "time" : "cycles");
	wl_close(&h);
	free(a);
	free(b);
	free(c);
	free(ref);
	return tool_stop_status(0);
}
