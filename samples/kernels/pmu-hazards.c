// SPDX-License-Identifier: MIT
/*
 * pmu-hazards: one kernel pair per class of pipeline hazard, each pair the same instruction
 * count with and without the hazard, so the difference in cycles is the hazard's cost:
 *   data (read after write)  8 dependent adds per iteration   vs 8 independent adds
 *   structural               8 independent divides (one divider unit) vs 8 multiplies
 *   control                  the mispredict scan over random '0'/'1' vs all '1' bytes
 * Reports cycles, instructions (predicted exactly), IPC, and the stall and mispredict events
 * where the PMU has them.
 *
 * usage: pmu-hazards [--iterations N] [-s SIZE] [-f FMT]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_harness.h"

#define TOOL "pmu-hazards"
#define RUNS 6

/*
 * One summary cell: the event's count (below 0 as measured, when the harness's own count
 * taken off was the larger), or why there is none.
 */
static void cell(const struct wl_harness *h, const struct wl_column *col, uint32_t event)
{
	char buf[32], neg[34];
	int64_t v;

	if (!wl_value(h, col, event, &v)) {
		printf(" %15s", "unsupported");
	} else if (v < 0) {
		snprintf(neg, sizeof(neg), "-%s", wl_group(buf, sizeof(buf), -(uint64_t)v));
		printf(" %15s", neg);
	} else {
		printf(" %15s", wl_group(buf, sizeof(buf), (uint64_t)v));
	}
}

/* The scans' bytes: random '0'/'1' bytes (their '1's counted) and all '1's. */
struct scans {
	char *random, *ones_only;
	uint64_t size, ones;
};

static int scans_make(struct scans *sc, uint64_t size)
{
	struct wl_rng rng;

	sc->size = size;
	sc->ones = 0;
	sc->random = malloc((size_t)size);
	sc->ones_only = malloc((size_t)size);
	if (!sc->random || !sc->ones_only) {
		free(sc->random);
		free(sc->ones_only);
		fprintf(stderr, TOOL ": out of memory for %" PRIu64 " bytes\n", size);
		return -1;
	}
	wl_rng_seed(&rng, 1);
	for (uint64_t i = 0; i < size; i++) {
		sc->random[i] = (wl_rng_next(&rng) >> 32) & 1 ? '1' : '0';
		sc->ones += sc->random[i] == '1';
	}
	memset(sc->ones_only, '1', (size_t)size);
	return 0;
}

/* Each kernel pair, predicted and measured, into cols: the number of columns. */
static unsigned int run_pairs(struct wl_harness *h, uint64_t iterations, const struct scans *sc,
			      bool have_div, struct wl_column cols[RUNS])
{
	struct wl_hazard_args ha = { .iterations = iterations };
	struct wl_misp_args random_args = { (uintptr_t)sc->random, sc->size, 1, 0 };
	struct wl_misp_args ones_args = { (uintptr_t)sc->ones_only, sc->size, 1, 0 };
	unsigned int n = 2;

	wl_predict(WL_RAW_CHAIN, iterations, 0, 0, &cols[0].pred);
	wl_measure(h, wl_k_raw_chain, &ha, &cols[0]);
	wl_predict(WL_RAW_INDEP, iterations, 0, 0, &cols[1].pred);
	wl_measure(h, wl_k_raw_indep, &ha, &cols[1]);
	if (have_div) {
		wl_predict(WL_DIV_INDEP, iterations, 0, 0, &cols[n].pred);
		wl_measure(h, wl_k_div_indep, &ha, &cols[n++]);
	}
	cols[n].label = cols[3].label;
	wl_predict(WL_MUL_INDEP, iterations, 0, 0, &cols[n].pred);
	wl_measure(h, wl_k_mul_indep, &ha, &cols[n++]);
	cols[n].label = cols[4].label;
	wl_k_misp(&random_args);	/* warm the caches, untimed */
	wl_predict(WL_MISP, sc->size, sc->ones, 1, &cols[n].pred);
	wl_measure(h, wl_k_misp, &random_args, &cols[n++]);
	cols[n].label = cols[5].label;
	wl_k_misp(&ones_args);
	wl_predict(WL_MISP, sc->size, sc->size, 1, &cols[n].pred);
	wl_measure(h, wl_k_misp, &ones_args, &cols[n++]);
	return n;
}

/* Per pair: the hazard, IPC and the stall and misprediction counts. */
static void print_hazards(struct wl_harness *h, const struct wl_column *cols, unsigned int n,
			  bool have_div)
{
	static const char *const hazard[RUNS] = {
		"data (RAW)", "none", "structural", "none", "control", "none",
	};

	printf("\n%-12s %-12s %8s %15s %15s %15s\n", "hazard", "kernel", "IPC", "STALL_FRONTEND",
	       "STALL_BACKEND", "BR_MIS_PRED");
	for (unsigned int k = 0; k < n; k++) {
		int64_t inst = 0, cyc = cols[k].value[WL_CYCLES];
		unsigned int which = k + (!have_div && k >= 2);

		printf("%-12s %-12s", hazard[which], cols[k].label);
		if (wl_value(h, &cols[k], WL_EV_INST_RETIRED, &inst) && cyc > 0 &&
		    pmuser_counters_backend(h->c) != PMUSER_BACKEND_CLOCK)
			printf(" %8.3f", (double)inst / (double)cyc);
		else
			printf(" %8s", "n/a");
		cell(h, &cols[k], WL_EV_STALL_FRONTEND);
		cell(h, &cols[k], WL_EV_STALL_BACKEND);
		cell(h, &cols[k], WL_EV_BR_MIS_PRED);
		putchar('\n');
	}
	printf("unsupported: not supported by this PMU. Under QEMU -icount a cycle is an "
	       "instruction, so every IPC is 1: the hazards show on hardware.\n");
}

int main(int argc, char **argv)
{
	static const uint32_t events[] = {
		WL_EV_INST_RETIRED, WL_EV_STALL_FRONTEND, WL_EV_STALL_BACKEND, WL_EV_BR_MIS_PRED,
		WL_EV_BR_RETIRED,
	};
	uint64_t iterations = 100000, size = 64 << 10;
	bool kv, have_div;
	const struct tool_opt opts[] = {
		{ "iterations", 0, "N", "iterations of the 8-operation blocks (default 100000)",
		  TOOL_OPT_NUMBER, 1, 100000000, .value = &iterations },
		{ "size", 's', "SIZE", "bytes scanned by the control-hazard pair (default 64K)",
		  TOOL_OPT_SIZE, 1, 64 << 20, .value = &size },
		{ NULL },
	};
	struct wl_column cols[RUNS] = {
		{ .label = "raw_chain" }, { .label = "raw_indep" }, { .label = "div_indep" },
		{ .label = "mul_indep" }, { .label = "misp_random" }, { .label = "misp_ones" },
	};
	struct wl_harness h;
	struct scans sc;
	const char *no_div;
	char what[200], legend[200];
	unsigned int ncols;
	int status;

	status = wl_parse_options(TOOL,
				  "Pipeline hazard kernels in pairs, one with the hazard and one without, of about the\n"
				  "same instructions (each counted against its prediction): compare a pair's IPC.\n"
				  "The asm kernels (AArch64, ARM) make such pairs; the C ones elsewhere do not.",
				  "report", opts, argc, argv, &kv);
	if (status >= 0)
		return status;
	if (scans_make(&sc, size))
		return 1;
	have_div = wl_have_divide(&no_div);
	if (wl_open(&h, TOOL, kv, events, sizeof(events) / sizeof(events[0]))) {
		free(sc.random);
		free(sc.ones_only);
		return 1;
	}
	ncols = run_pairs(&h, iterations, &sc, have_div, cols);

	snprintf(what, sizeof(what), "data, structural and control hazards, %" PRIu64
		 " iterations of 8 operations; scans of %" PRIu64 " bytes", iterations, size);
	snprintf(legend, sizeof(legend), "I=%" PRIu64 " iterations; scans: S=%" PRIu64
		 " bytes, K='1' bytes, I=1 pass", iterations, size);
	wl_report(&h, what, cols, ncols, legend);
	if (!have_div && !kv)
		printf("\ndiv_indep: skipped: %s\n", no_div);
	else if (!have_div)
		printf("wl tool=" TOOL " run=div_indep skipped=\"%s\"\n", no_div);
	if (!kv && wl_measured(cols, ncols))
		print_hazards(&h, cols, wl_measured(cols, ncols), have_div);
	wl_close(&h);
	free(sc.random);
	free(sc.ones_only);
	return tool_stop_status(0);
}
