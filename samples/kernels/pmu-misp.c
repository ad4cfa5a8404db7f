// SPDX-License-Identifier: MIT
/*
 * pmu-misp: the branch-mispredict test kernel. Counts the '1' bytes of an array of random
 * '0'/'1' bytes; the branch on each byte is a coin flip no predictor can learn, while the
 * loop branch is always predicted. Half of the data branches, so a quarter of all branches,
 * should mispredict. Branch counts are predicted exactly; the mispredict rate is hardware's.
 *
 * usage: pmu-misp [-s SIZE] [--iterations N] [--seed N] [--ones | --zeros] [-f FMT]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "wl_harness.h"

#define TOOL "pmu-misp"

/* After the report: the data-dependent branches, and the share of them mispredicted. */
static void print_branches(struct wl_harness *h, const struct wl_column *col, uint64_t size,
			   uint64_t ones, uint64_t iterations, int fill, bool kv)
{
	int64_t mis, br;
	char b1[32], b2[32];

	/* The C kernel of other architectures may count without a branch: no branch facts. */
	if (!WL_PREDICTS) {
		if (!kv)
			printf("\ndata-dependent branches: not known: the C kernel of this architecture "
			       "may compile to none\n");
		return;
	}
	if (kv) {
		printf("wl tool=" TOOL " data_branches=%" PRIu64 " taken=%" PRIu64 "\n",
		       size * iterations, (size - ones) * iterations);
		return;
	}
	printf("\ndata-dependent branches: %s (S*I), taken (byte not '1'): %s\n",
	       wl_group(b1, sizeof(b1), size * iterations),
	       wl_group(b2, sizeof(b2), (size - ones) * iterations));
	printf("expected mispredicts: %s\n", fill >= 0 ?
	       "about 0 (every branch goes one way)" :
	       "about half the data branches, 25% of all branches (Cortex-A72: 0.250)");
	if (wl_value(h, col, WL_EV_BR_MIS_PRED, &mis) && wl_value(h, col, WL_EV_BR_RETIRED, &br) &&
	    br > 0)
		printf("measured mispredict ratio: %.3f of all branches, %.3f of data branches\n",
		       (double)mis / (double)br, (double)mis / (double)(size * iterations));
	else
		printf("measured mispredict ratio: not supported by this PMU (%s)\n",
		       wl_index(h, WL_EV_BR_MIS_PRED) >= 0 &&
		       wl_counts_here(h, (unsigned int)wl_index(h, WL_EV_BR_MIS_PRED)) ?
		       "no BR_RETIRED" : "no BR_MIS_PRED");
}

int main(int argc, char **argv)
{
	static const uint32_t events[] = {
		WL_EV_INST_RETIRED, WL_EV_BR_RETIRED, WL_EV_BR_MIS_PRED, WL_EV_STALL_FRONTEND,
	};
	uint64_t size = 256 << 10, iterations = 4, seed = 1, ones = 0, i;
	int fill = -1, status;	/* fill: -1 random, else the only byte */
	bool kv, seed_set = false;
	const struct tool_opt opts[] = {
		{ "size", 's', "SIZE", "array bytes, K/M/G suffixes (default 256K)",
		  TOOL_OPT_SIZE, 1, 1ULL << 30, .value = &size },
		{ "iterations", 0, "N", "passes over the array (default 4)",
		  TOOL_OPT_NUMBER, 1, UINT32_MAX, .value = &iterations },
		{ "seed", 0, "N", "random fill seed (default 1)",
		  TOOL_OPT_NUMBER, 0, UINT64_MAX, .value = &seed, .seen = &seed_set },
		{ "ones", 0, NULL, "fill with '1' (or '0') only: every branch predictable",
		  TOOL_OPT_CHOICE, .choice = &fill, .choice_value = '1' },
		{ "zeros", 0, NULL, NULL, TOOL_OPT_CHOICE, .choice = &fill, .choice_value = '0' },
		{ NULL },
	};
	struct wl_misp_args args;
	struct wl_harness h;
	struct wl_column col = { .label = "misp" };
	struct wl_rng rng;
	char *array, what[200], legend[200], b1[32];

	status = wl_parse_options(TOOL,
				  "Branch-mispredict kernel: counts the '1' bytes of a random array of '0'/'1' bytes,\n"
				  "one unpredictable branch per byte.",
				  "report", opts, argc, argv, &kv);
	if (status >= 0)
		return status;
	if (fill >= 0 && seed_set)
		return tool_bad(TOOL, "--seed chooses the random fill: --%s has none",
				fill == '1' ? "ones" : "zeros");
	array = malloc((size_t)size);
	if (!array) {
		fprintf(stderr, TOOL ": out of memory for %" PRIu64 " bytes\n", size);
		return 1;
	}
	wl_rng_seed(&rng, seed);
	for (i = 0; i < size; i++) {
		array[i] = fill >= 0 ? (char)fill : (wl_rng_next(&rng) >> 32) & 1 ? '1' : '0';
		ones += array[i] == '1';
	}
	wl_predict(WL_MISP, size, ones, iterations, &col.pred);
	if (wl_check_budget(TOOL, "the scan", &col.pred))
		return 2;

	if (wl_open(&h, TOOL, kv, events, sizeof(events) / sizeof(events[0])))
		return 1;
	args = (struct wl_misp_args){ .array = (uintptr_t)array, .size = size, .iterations = 1 };
	wl_k_misp(&args);	/* warm the caches, untimed */
	args.iterations = iterations;
	wl_measure(&h, wl_k_misp, &args, &col);
	if (col.measured && args.ones != (uintptr_t)(ones * iterations)) {
		fprintf(stderr, TOOL ": kernel counted %" PRIu64 " '1' bytes, expected %" PRIu64 "\n",
			(uint64_t)args.ones, ones * iterations);
		wl_close(&h);
		return 1;
	}

	snprintf(what, sizeof(what), "%s bytes, %s, %" PRIu64 " passes",
		 wl_group(b1, sizeof(b1), size),
		 fill == '1' ? "all '1'" : fill == '0' ? "all '0'" : "random '0'/'1'", iterations);
	snprintf(legend, sizeof(legend), "S=%" PRIu64 " bytes, K=%" PRIu64 " of them '1', I=%"
		 PRIu64 " passes", size, ones, iterations);
	wl_report(&h, what, &col, 1, legend);
	if (col.measured)
		print_branches(&h, &col, size, ones, iterations, fill, kv);
	wl_close(&h);
	free(array);
	return tool_stop_status(0);
}
