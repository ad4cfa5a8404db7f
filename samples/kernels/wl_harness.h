/* SPDX-License-Identifier: MIT */
/*
 * The measurement harness of the workload tools: a counter set (cycles + events, events the
 * PMU lacks kept as unsupported), the cost of the call sequence around a kernel, and the
 * predicted-vs-measured report (a table, or key=value lines with -f kv).
 *
 * Every kernel is measured by the same function: region start, an indirect call of the
 * kernel, region stop. The region API removes the cost of the reads themselves; what is left
 * is the call sequence, measured once with wl_k_empty (a lone return) and subtracted, so a
 * kernel's measured count is what the kernel itself retired, its return included.
 */
#ifndef WL_HARNESS_H
#define WL_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "pmuser.h"
#include "tool_opts.h"
#include "tool_stop.h"
#include "wl_kernels.h"

/*
 * Architectural event numbers (ARMv8 PMUv3; the ARMv7 ones agree where they exist). On
 * ARM1176 wl_open() counts the nearest ARM1176 events instead (wl_harness.c).
 */
#define WL_EV_L1D_CACHE_REFILL	0x03
#define WL_EV_L1D_CACHE		0x04
#define WL_EV_INST_RETIRED	0x08
#define WL_EV_BR_MIS_PRED	0x10
#define WL_EV_CPU_CYCLES	0x11
#define WL_EV_BR_RETIRED	0x21
#define WL_EV_STALL_FRONTEND	0x23
#define WL_EV_STALL_BACKEND	0x24

/* Counter index of the cycle counter in every harness set. */
#define WL_CYCLES 0

struct wl_harness {
	const char *tool;
	bool kv;
	struct pmuser_counters *c;
	unsigned int nr;
	uint32_t event[PMUSER_COUNTERS_MAX];	/* WL_EV_CPU_CYCLES for counter 0 */
	/* The call sequence's cost per counter: the empty kernel's delta minus its own. */
	int64_t harness[PMUSER_COUNTERS_MAX];
	/*
	 * Opened, but never counted in a probe that surely causes the event: without PMCEID
	 * (ARMv7) nothing else tells that a PMU lacks an event (QEMU's Cortex-A15 counts only
	 * cycles and instructions), and a lacking event must not be reported as 0.
	 */
	bool dead[PMUSER_COUNTERS_MAX];
};

/* What one kernel run measured, harness removed; value[i] meaningless if unsupported. */
struct wl_column {
	const char *label;
	struct wl_counts pred;
	int64_t value[PMUSER_COUNTERS_MAX];
	/* false: not run, or SIGINT/SIGTERM arrived during it (its counts hold the handler) */
	bool measured;
};

/*
 * Opens the counters (cycles plus events[0..n-1]), pins the thread to the CPU it runs on,
 * calibrates the region bias and the harness. Prints why and returns -1 on failure (no
 * backend, or counters that do not move, as on QEMU's ARM1176).
 */
int wl_open(struct wl_harness *h, const char *tool, bool kv, const uint32_t *events,
	    unsigned int n);
/*
 * The same from an event spec (pmuser_evspec_parse; ARM1176 event numbers on ARMv6) and the cycle counter's PMUSER_COUNT_*. */
int wl_open_spec(struct wl_harness *h, const char *tool, bool kv, const char *spec,
		 uint32_t cycle_flags);
void wl_close(struct wl_harness *h);

/*
 * Runs fn(args) once between region reads; stores the harness-corrected deltas in col. Once
 * SIGINT or SIGTERM asked to stop (caught from wl_parse_options() on), it runs nothing more,
 * and a run the signal arrived in is not measured: the report then has the runs before it.
 */
void wl_measure(struct wl_harness *h, wl_kernel_fn fn, void *args, struct wl_column *col);

/* How many of cols[0..n) lead measured; the exit status after the report: tool_stop_status(0). */
unsigned int wl_measured(const struct wl_column *cols, unsigned int n);

/*
 * Refuses (message, -1) a run predicted to retire 2^31 instructions or more: 32-bit event
 * counters would wrap inside one region.
 */
int wl_check_budget(const char *tool, const char *label, const struct wl_counts *pred);

/* Whether counter i counts here: supported by the backend and alive in the probe. */
bool wl_counts_here(const struct wl_harness *h, unsigned int i);

/* Counter index of event, or -1 if the set does not have it. */
int wl_index(const struct wl_harness *h, uint32_t event);
/* Whether the set counts event; *value is its measured count in col when it does. */
bool wl_value(const struct wl_harness *h, const struct wl_column *col, uint32_t event,
	      int64_t *value);

/*
 * Prints the header (workload description, backend, harness cost), then per column the
 * predicted and measured counts of every counter, IPC, and the formulas with the meaning of
 * their symbols (legend, e.g. "N=128 matrix order"): of the columns wl_measured() counts,
 * nothing when none was measured. A run a signal stopped short is said on stderr.
 */
void wl_report(const struct wl_harness *h, const char *what, const struct wl_column *cols,
	       unsigned int ncols, const char *legend);

/* "1,234,567" into buf. */
const char *wl_group(char *buf, size_t len, uint64_t v);

/* ---- options ------------------------------------------------------------------------------ */
/* Options per workload tool, besides -f/--format and -h/--help, which every one takes. */
#define WL_OPTS_MAX 16

/*
 * Parses argv by the table (tool_opts.h) with -f/--format FMT added, text or kv (*kv: the
 * key=value lines); about is the usage's line on what the tool does, "what" is what the
 * text format is ("report"). Returns -1 to go on, or the exit status: 0 after --help, 2
 * after bad input.
 */
int wl_parse_options(const char *tool, const char *about, const char *what,
		     const struct tool_opt *opts, int argc, char **argv, bool *kv);
/* Text --help prints after the options (what a tool's output keys mean); NULL: none. */
extern const char *wl_usage_notes;

/* Passes over N elements that make about a million loads (at least one pass). */
uint64_t wl_passes_for_1m(uint64_t n);

/*
 * After the report: "\n<prefix><value/loads> cycles per load (<loads> loads)", in ns when
 * the clock backend measured.
 */
void wl_print_per_load(const struct wl_harness *h, const char *prefix, int64_t value,
		       uint64_t loads);

/* ---- a small deterministic PRNG (xorshift64*) for shuffles and random data ---------------- */
struct wl_rng {
	uint64_t s;
};
void wl_rng_seed(struct wl_rng *r, uint64_t seed);
uint64_t wl_rng_next(struct wl_rng *r);
/* Uniform in [0, n), n >= 1. */
uint64_t wl_rng_below(struct wl_rng *r, uint64_t n);

#endif
