// SPDX-License-Identifier: MIT
/*
 * pmu-walk: the array walk. Sums one 32-bit word every STRIDE bytes of an array, repeatedly
 * (with the default 64-byte stride: one load per cache line, the classic memory-system loop).
 * Loads, instructions and branches are predicted exactly; cycles per load show how well the
 * hardware streams a regular pattern compared with pmu-chase's random one.
 *
 * usage: pmu-walk [-s SIZE] [--stride BYTES] [--iterations N] [-f FMT]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "wl_harness.h"

#define TOOL "pmu-walk"

int main(int argc, char **argv)
{
	static const uint32_t events[] = {
		WL_EV_INST_RETIRED, WL_EV_BR_RETIRED, WL_EV_L1D_CACHE, WL_EV_L1D_CACHE_REFILL,
		WL_EV_STALL_BACKEND,
	};
	uint64_t size = 64 << 10, stride = 64, iterations = 0, count, i, it;
	bool kv;
	const struct tool_opt opts[] = {
		{ "size", 's', "SIZE", "array bytes, K/M/G suffixes (default 64K)",
		  TOOL_OPT_SIZE, 4, 1ULL << 30, .value = &size },
		{ "stride", 0, "BYTES", "distance between loads, a multiple of 4 (default 64)",
		  TOOL_OPT_SIZE, 4, 1ULL << 30, 4, .value = &stride },
		{ "iterations", 0, "N", "passes over the array (default: about 1M loads)",
		  TOOL_OPT_NUMBER, 1, UINT32_MAX, .value = &iterations },
		{ NULL },
	};
	struct wl_walk_args args;
	struct wl_harness h;
	struct wl_column col = { .label = "walk" };
	uint32_t *array, sum = 0;
	char what[200], legend[160], b1[32];
	int status;

	status = wl_parse_options(TOOL,
				  "Array walk: one 32-bit load every STRIDE bytes, repeatedly, counted against the\n"
				  "prediction.",
				  "report", opts, argc, argv, &kv);
	if (status >= 0)
		return status;
	count = size / stride;
	if (!count) {
		fprintf(stderr, TOOL ": --stride %" PRIu64 " is larger than --size %" PRIu64 "\n",
			stride, size);
		return 2;
	}
	if (!iterations)
		iterations = wl_passes_for_1m(count);
	wl_predict(WL_WALK, count, iterations, 0, &col.pred);
	if (wl_check_budget(TOOL, "the walk", &col.pred))
		return 2;

	array = aligned_alloc(64, (size_t)((size + 63) & ~63ULL));
	if (!array) {
		fprintf(stderr, TOOL ": out of memory for %" PRIu64 " bytes\n", size);
		return 1;
	}
	for (i = 0; i < size / 4; i++)
		array[i] = (uint32_t)(i * 2654435761u);
	for (it = 0; it < iterations; it++)
		for (i = 0; i < count; i++)
			sum += array[i * stride / 4];

	if (wl_open(&h, TOOL, kv, events, sizeof(events) / sizeof(events[0])))
		return 1;
	args = (struct wl_walk_args){ (uintptr_t)array, count, stride, 1, 0 };
	wl_k_walk(&args);	/* warm the caches and TLBs, untimed */
	args.iterations = iterations;
	wl_measure(&h, wl_k_walk, &args, &col);
	if (col.measured && (uint32_t)args.sum != sum) {
		fprintf(stderr, TOOL ": kernel summed 0x%08x, expected 0x%08x\n",
			(uint32_t)args.sum, sum);
		wl_close(&h);
		return 1;
	}

	snprintf(what, sizeof(what), "%s bytes, one 32-bit load every %" PRIu64 " bytes (%"
		 PRIu64 " per pass), %" PRIu64 " passes", wl_group(b1, sizeof(b1), size), stride,
		 count, iterations);
	snprintf(legend, sizeof(legend), "C=%" PRIu64 " loads per pass, I=%" PRIu64 " passes",
		 count, iterations);
	wl_report(&h, what, &col, 1, legend);
	if (!kv && col.measured)
		wl_print_per_load(&h, "", col.value[WL_CYCLES], count * iterations);
	wl_close(&h);
	free(array);
	return tool_stop_status(0);
}
