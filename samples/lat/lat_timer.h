/* SPDX-License-Identifier: MIT */
/*
 * Shared by pmu-lat and pmu-sweep: timing loads with a pmuser counter set.
 *
 * With the module backend on ARM, where the set's cycles are on the cycle counter (always on
 * 32-bit ARM; on arm64 unless the core keeps that counter from user reads), every measurement
 * is ONE asm block that reads it itself (serialised: ISB then MRS/MRC), so nothing the
 * compiler emits lands inside the window. Other backends time the same load or loop through
 * the library's region API (perf-mmap: inline read with perf's seqlock; perf-read: read();
 * clock: clock_gettime).
 * The bias is always the identical measurement with the loads removed.
 */
#ifndef PMUSER_LAT_TIMER_H
#define PMUSER_LAT_TIMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmuser.h"
#include "pmuser_now.h"

/* The sweep's chase loop: LAT_UNROLL dependent loads, then a decrement and a branch. */
#define LAT_UNROLL		8
#define LAT_LOOP_INSNS		(LAT_UNROLL + 2)

/*
 * Times one window is measured at most: a window the library flags (another thread ran on
 * the CPU, or perf reloaded or moved a counter) is measured again.
 */
#define LAT_WINDOW_TRIES	100

struct lat_timer {
	struct pmuser_counters *ctr;
	enum pmuser_backend backend;
	bool inline_asm;	/* module backend: the window is one asm block */
	/* inline_asm: the set's counter page and the slot of its cycle counter in it */
	const struct pmuser_page *page;
	unsigned int cycle_slot;
	const char *unit;	/* "cycles" or "ns" */
	char method[160];	/* how a single load is timed */
	char loop_method[160];	/* how the chase loop is timed */
	unsigned int nr_events;	/* counters after the cycle counter */
	uint64_t tick;		/* smallest non-zero step seen between two reads (0: none) */
	/* Windows flagged and measured again. */
	unsigned long flagged;
	/* Some window was flagged LAT_WINDOW_TRIES times in a row: its value is not usable. */
	bool disturbed;
	char timer[192];	/* the library's timer line plus the observed tick */
};

/*
 * Opens the cycle counter (plus optional events, counted when supported) on backend (AUTO
 * honours PMUSER_BACKEND) with the calling thread pinned to cpu. 0 or -errno with err.
 */
int lat_timer_open(struct lat_timer *t, enum pmuser_backend backend, int cpu,
		   const struct pmuser_evspec_entry *events, size_t nr_events, char *err,
		   size_t len);
void lat_timer_close(struct lat_timer *t);

/*
 * 0 if every window so far was measured undisturbed; otherwise prints why on stderr, as
 * tool's message ending in outcome (what the tool reports now), and returns -EAGAIN.
 */
int lat_timer_check(const struct lat_timer *t, const char *tool, const char *outcome);

/* One dependent load at *p (p = *p) inside the window: raw counter delta. */
uint64_t lat_time_load(struct lat_timer *t, void ***p);
/* The identical window without the load: raw delta (the bias sample). */
uint64_t lat_time_empty(struct lat_timer *t);

/*
 * iters iterations of the unrolled chase loop (LAT_UNROLL loads each) from *p: raw delta of
 * the cycle counter; ev[] gets the events' deltas (may be NULL).
 */
uint64_t lat_time_chase(struct lat_timer *t, void ***p, uint64_t iters, uint64_t *ev);

/* Random-index loop: loads independent lines (for LAT_RANDOM); returns the raw delta. */
uint64_t lat_time_random(struct lat_timer *t, void **base, size_t nodes, size_t step,
			 uint64_t loads, uint64_t *state, uint64_t *ev);

/* Untimed chase of n steps (warm-up, gaps between samples). */
void **lat_chase(void **p, uint64_t n);

/*
 * What the window costs in instructions under QEMU's -icount (cycles == instructions there),
 * bias-corrected: exactly 1 for a single load (the ldr alone), LAT_LOOP_INSNS / LAT_UNROLL per
 * load for the chase loop. Only the inline-asm path is exact; 0 means no prediction.
 */
double lat_predict_single(const struct lat_timer *t);
double lat_predict_loop(const struct lat_timer *t);

/* ---- statistics ----------------------------------------------------------------------- */

struct lat_stats {
	size_t n;
	int64_t min, max, mode, median, p90, p99;
	double mean;
};

/* Sorts v (n > 0) in place and summarises it. */
void lat_stats_compute(int64_t *v, size_t n, struct lat_stats *s);
double lat_median_double(double *v, size_t n);

#endif
