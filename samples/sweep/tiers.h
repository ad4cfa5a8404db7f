/* SPDX-License-Identifier: MIT */
/*
 * Memory-hierarchy tier detection for pointer-chase sweeps (pmu-sweep).
 *
 * Input: (size, latency) points with strictly increasing sizes. Output: the plateaus
 * ("tiers") of the latency curve, labelled L1, L2, L3/SLC, L4, DRAM, plus a best-effort
 * TLB-reach step. See tiers.c for the method and its constants.
 */
#ifndef PMUSER_TIERS_H
#define PMUSER_TIERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TIERS_MAX		8	/* more plateaus than this are merged */
#define TIERS_MIN_POINTS	3	/* fewer points cannot show a step */
#define TIERS_MIN_STEP		1.5	/* adjacent tiers differ at least this much */

struct tiers_point {
	uint64_t size;		/* working-set size in bytes */
	double latency;		/* per load, cycles or ns (> 0) */
};

struct tiers_level {
	const char *label;	/* "L1", "L2", "L3/SLC", "L4", "L?", "DRAM" or "flat" */
	double latency;		/* median latency of the plateau */
	uint64_t first_size;	/* first size on the plateau */
	uint64_t last_size;	/* last size on the plateau */
	uint64_t capacity;	/* estimate: last_size (largest size still on the plateau) */
	double step;		/* next tier's latency / this latency; 0 for the last tier */
	size_t first, last;	/* indexes of first_size and last_size in the input */
	int open;		/* the sweep ended on it: capacity is only a lower bound */
	unsigned int cache_level;	/* the sysfs level it was matched to, 0 if none */
};

struct tiers_tlb {
	int found;
	size_t tier;		/* index into tiers_result.level */
	uint64_t size_before;	/* last size before the step */
	uint64_t size_after;	/* first size after the step */
	double step;		/* latency ratio across the step */
};

/* A data or unified cache as sysfs reports it. */
struct tiers_cache {
	unsigned int level;
	uint64_t size;
};

struct tiers_result {
	size_t n;
	struct tiers_level level[TIERS_MAX];
	struct tiers_tlb tlb;
	/* After tiers_reconcile(): the caches compared, and the tier each matched (-1: none). */
	size_t nr_caches;
	struct tiers_cache cache[TIERS_MAX];
	int cache_tier[TIERS_MAX];
	uint64_t swept;		/* the largest size measured */
	uint64_t swept_from;	/* the smallest */
};

/*
 * Finds the tiers of pts[0..n-1]. Returns 0, -EINVAL (n < TIERS_MIN_POINTS, sizes not
 * strictly increasing, latency not finite and > 0) or -ENOMEM.
 */
int tiers_detect(const struct tiers_point *pts, size_t n, struct tiers_result *res);

/*
 * Labels the tiers with the cache levels sysfs reports (caches sorted by size, at most
 * TIERS_MAX): a tier that ends near a cache's size (its plateau ends at no less than half of
 * it and the next tier starts at no more than twice it) takes that level's name; one that
 * ends near none is "L?"; caches passed over (below the sweep, or inside a plateau with no
 * step of their own) match no tier. The last tier is DRAM when the sweep went past twice the
 * largest cache. tiers_print() then says where measurement and sysfs disagree.
 */
void tiers_reconcile(struct tiers_result *res, const struct tiers_cache *caches, size_t nr);

/* Per-level summary table; unit is printed after latencies ("cycles", "ns"). */
void tiers_print(FILE *f, const struct tiers_result *res, const char *unit);

#endif
