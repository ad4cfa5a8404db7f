// SPDX-License-Identifier: MIT
/*
 * pmu-chase: pointer chasing through a linked list of cache-line nodes laid out in a random
 * order (so prefetchers cannot follow), walked end to end repeatedly. Prints the predicted
 * instruction, branch and load counts of the kernel next to the measured ones, and the
 * cycles per load: the latency of the memory level the list fits in.
 *
 * usage: pmu-chase [-s SIZE] [--iterations N] [-l LINE] [--seed N] [--sequential] [-f FMT]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_harness.h"

#define TOOL "pmu-chase"

/*
 * The list: nodes of line bytes, each pointing to the next in a shuffled order (address
 * order if sequential), checked to be one chain through every node. The memory (free it),
 * with the first node in *head; NULL after saying why.
 */
static char *build_list(uint64_t nodes, uint64_t line, uint64_t seed, bool sequential,
			uintptr_t *head)
{
	uint64_t *perm = malloc((size_t)nodes * sizeof(*perm)), i, n;
	size_t align = 64;
	struct wl_rng rng;
	char *mem = NULL;
	void *p;

	/* The first node on a cache line (and a page for lines that big); a power of two. */
	while (align < line)
		align <<= 1;
	if (posix_memalign(&p, align, (size_t)(nodes * line)) == 0)
		mem = p;
	if (!mem || !perm) {
		fprintf(stderr, TOOL ": out of memory for %" PRIu64 " nodes\n", nodes);
		free(mem);
		free(perm);
		return NULL;
	}
	memset(mem, 0, (size_t)(nodes * line));
	for (i = 0; i < nodes; i++)
		perm[i] = i;
	wl_rng_seed(&rng, seed);
	/* Fisher-Yates: every order equally likely, so no stride for a prefetcher to learn. */
	for (i = nodes - 1; !sequential && i > 0; i--) {
		uint64_t j = wl_rng_below(&rng, i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < nodes; i++)
		*(void **)(mem + perm[i] * line) = i + 1 < nodes ? mem + perm[i + 1] * line : NULL;
	*head = (uintptr_t)(mem + perm[0] * line);
	free(perm);

	/* The list must be one chain through every node, or the prediction is wrong. */
	for (n = 0, p = (void *)*head; p; p = *(void **)p)
		n++;
	if (n != nodes) {
		fprintf(stderr, TOOL ": internal error: list has %" PRIu64 " of %" PRIu64 " nodes\n",
			n, nodes);
		free(mem);
		return NULL;
	}
	return mem;
}

int main(int argc, char **argv)
{
	static const uint32_t events[] = {
		WL_EV_INST_RETIRED, WL_EV_BR_RETIRED, WL_EV_L1D_CACHE, WL_EV_L1D_CACHE_REFILL,
		WL_EV_STALL_BACKEND,
	};
	uint64_t size = 32 << 10, iterations = 0, line = 64, seed = 1, nodes;
	bool sequential = false, seed_set = false, kv;
	const struct tool_opt opts[] = {
		{ "size", 's', "SIZE", "list size in bytes, K/M/G suffixes (default 32K)",
		  TOOL_OPT_SIZE, 1, 1ULL << 30, .value = &size },
		{ "iterations", 0, "N", "traversals of the whole list (default: about 1M loads)",
		  TOOL_OPT_NUMBER, 1, UINT32_MAX, .value = &iterations },
		{ "line", 'l', "BYTES", "node size: one cache line (default 64)",
		  TOOL_OPT_NUMBER, sizeof(void *), 4096, sizeof(void *), .value = &line },
		{ "seed", 0, "N", "shuffle seed (default 1)",
		  TOOL_OPT_NUMBER, 0, UINT64_MAX, .value = &seed, .seen = &seed_set },
		{ "sequential", 0, NULL, "nodes in address order instead of shuffled",
		  TOOL_OPT_FLAG, .flag = &sequential },
		{ NULL },
	};
	struct wl_chase_args args;
	struct wl_harness h;
	struct wl_column col = { .label = "chase" };
	char *mem, what[200], legend[160], buf[32];
	int status;

	status = wl_parse_options(TOOL,
				  "Pointer chase through cache-line nodes in a random order, counted against the\n"
				  "prediction.",
				  "report", opts, argc, argv, &kv);
	if (status >= 0)
		return status;
	if (sequential && seed_set)
		return tool_bad(TOOL, "--seed shuffles the list: --sequential has no shuffle");
	nodes = size / line;
	if (!nodes) {
		fprintf(stderr, TOOL ": --size %" PRIu64 " holds no node of %" PRIu64 " bytes\n",
			size, line);
		return 2;
	}
	if (!iterations)
		iterations = wl_passes_for_1m(nodes);
	wl_predict(WL_CHASE, nodes, iterations, 0, &col.pred);
	if (wl_check_budget(TOOL, "the chase", &col.pred))
		return 2;

	mem = build_list(nodes, line, seed, sequential, &args.head);
	if (!mem)
		return 1;

	if (wl_open(&h, TOOL, kv, events, sizeof(events) / sizeof(events[0]))) {
		free(mem);
		return 1;
	}
	args.iterations = 1;
	wl_k_chase(&args);	/* warm the caches and TLBs, untimed */
	args.iterations = iterations;
	wl_measure(&h, wl_k_chase, &args, &col);

	snprintf(what, sizeof(what), "%" PRIu64 " nodes of %" PRIu64 " B (%s bytes), %s order, "
		 "%" PRIu64 " traversals", nodes, line, wl_group(buf, sizeof(buf), nodes * line),
		 sequential ? "address" : "shuffled", iterations);
	snprintf(legend, sizeof(legend), "N=%" PRIu64 " nodes, I=%" PRIu64 " traversals", nodes,
		 iterations);
	wl_report(&h, what, &col, 1, legend);
	if (!kv && col.measured)
		wl_print_per_load(&h, "latency: ", col.value[WL_CYCLES], nodes * iterations);
	wl_close(&h);
	free(mem);
	return tool_stop_status(0);
}
