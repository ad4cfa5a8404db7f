// SPDX-License-Identifier: MIT
/* The workload tools' measurement harness and report; see wl_harness.h. */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmuser_now.h"
#include "wl_harness.h"

#define CALIBRATION_ROUNDS	200
/* Calibrations tried, 5 ms apart, before the tool says perf keeps the events off. */
#define CALIBRATION_TRIES	20
#define HARNESS_ROUNDS		20

/* The core's MIDR, for event names: from the module, else sysfs (arm64), else 0 (ARMv8). */
static uint32_t current_midr(void)
{
	struct pmuser_cpu_info ci;
	unsigned long long v;
	char path[96];
	int fd = pmuser_device_open(), cpu = sched_getcpu();
	FILE *f;

	if (cpu < 0)
		cpu = 0;
	if (fd >= 0) {
		int ret = pmuser_device_cpu_info(fd, (unsigned int)cpu, &ci);

		close(fd);
		if (!ret)
			return ci.midr;
	}
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/regs/identification/midr_el1",
		 cpu);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llx", &v) != 1)
			v = 0;
		fclose(f);
		return (uint32_t)v;
	}
	return 0;
}

/*
 * The tools name events by their ARMv8/ARMv7 numbers; ARM1176 numbers its own: the nearest
 * equivalents there (it counts every mode, has no BR_RETIRED but counts executed branches).
 */
static const struct {
	uint32_t arch, arm1176;
} v6_events[] = {
	{ WL_EV_INST_RETIRED, 0x07 },		/* INSTR_EXEC */
	{ WL_EV_BR_RETIRED, 0x05 },		/* BR_EXEC */
	{ WL_EV_BR_MIS_PRED, 0x06 },		/* BR_MISPREDICT */
	{ WL_EV_L1D_CACHE, 0x0a },		/* DCACHE_ACCESS */
	{ WL_EV_L1D_CACHE_REFILL, 0x0b },	/* DCACHE_MISS */
	{ WL_EV_STALL_FRONTEND, 0x01 },		/* IBUF_STALL */
	{ WL_EV_STALL_BACKEND, 0x02 },		/* DDEP_STALL */
};

static uint32_t native_event(uint32_t arch)
{
#if defined(PMUSER_FAST_V6)
	for (size_t i = 0; i < sizeof(v6_events) / sizeof(v6_events[0]); i++)
		if (v6_events[i].arch == arch)
			return v6_events[i].arm1176;
#endif
	(void)v6_events;
	return arch;
}

static uint32_t arch_event(uint32_t native)
{
#if defined(PMUSER_FAST_V6)
	for (size_t i = 0; i < sizeof(v6_events) / sizeof(v6_events[0]); i++)
		if (v6_events[i].arm1176 == native)
			return v6_events[i].arch;
#endif
	return native;
}

/*
 * How long the tool keeps running a region the library flags (another thread ran on the CPU,
 * perf reloaded or moved a counter, or perf had the events off the counters): at least
 * REGION_TRIES tries and REGION_SECONDS_MIN, so that short regions outlast perf's rotation
 * of multiplexed events (a few milliseconds a turn), and at most REGION_SECONDS_MAX, so that
 * regions longer than a turn, which perf multiplexing flags every time, end soon.
 */
#define REGION_TRIES		100
#define REGION_SECONDS_MIN	0.5
#define REGION_SECONDS_MAX	5.0


/*
 * Everything between the region reads is this function's own code and the kernel. A flagged
 * region is run again, within the bounds above; then the tool stops with the cause rather
 * than print a count it did not measure.
 */
static __attribute__((noinline)) void run_between_reads(struct pmuser_counters *c,
							struct pmuser_region *r,
							wl_kernel_fn fn, void *args)
{
	enum pmuser_backend b = pmuser_counters_backend(c);
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	unsigned int tries;
	double s = 0;

	for (tries = 1;; tries++) {
		pmuser_region_start(c, r);
		fn(args);
		pmuser_region_stop(c, r);
		if (r->valid)
			return;
		s = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
		if ((tries >= REGION_TRIES && s >= REGION_SECONDS_MIN) || s >= REGION_SECONDS_MAX)
			break;
	}
	fprintf(stderr, "%u of %u regions flagged in %.1f s: %s (%s backend); nothing measured\n",
		tries, tries, s, pmuser_backend_invalid_why(b), pmuser_backend_name(b));
	exit(1);
}

bool wl_counts_here(const struct wl_harness *h, unsigned int i)
{
	return i < h->nr && pmuser_counters_supported(h->c, i) && !h->dead[i];
}

/*
 * Marks the event counters that stay at 0 over work that causes every event the tools ask
 * for: loads, branches and coin-flip mispredicts (the scan, which also stalls both ends of
 * the pipeline) and L1 refills (a walk of 512 KiB, larger than any L1, done twice).
 */
static int probe_events(struct wl_harness *h)
{
	const size_t bytes = 512 << 10, scanned = 128 << 10;
	struct pmuser_region r;
	struct wl_misp_args scan;
	struct wl_walk_args walk;
	struct wl_rng rng;
	unsigned int i;
	char *buf = malloc(bytes);

	if (!buf)
		return -1;
	wl_rng_seed(&rng, 7);
	for (i = 0; i < bytes; i++)
		buf[i] = (wl_rng_next(&rng) >> 32) & 1 ? '1' : '0';
	/*
	 * A region flagged invalid (an event off its counter for part of it) may read 0 for an
	 * event that counts: only a valid one marks events dead, and none marks none.
	 */
	for (unsigned int tries = 0; tries < 8; tries++) {
		scan = (struct wl_misp_args){ (uintptr_t)buf, scanned, 1, 0 };
		walk = (struct wl_walk_args){ (uintptr_t)buf, bytes / 64, 64, 2, 0 };
		pmuser_region_start(h->c, &r);
		wl_k_misp(&scan);
		wl_k_walk(&walk);
		pmuser_region_stop(h->c, &r);
		if (r.valid)
			break;
	}
	for (i = 1; i < h->nr; i++)
		h->dead[i] = r.valid && pmuser_counters_supported(h->c, i) && r.raw[i] == 0;
	free(buf);
	return 0;
}

int wl_index(const struct wl_harness *h, uint32_t event)
{
	unsigned int i;

	for (i = 0; i < h->nr; i++)
		if (h->event[i] == event)
			return (int)i;
	return -1;
}

bool wl_value(const struct wl_harness *h, const struct wl_column *col, uint32_t event,
	      int64_t *value)
{
	int i = wl_index(h, event);

	if (i < 0 || !wl_counts_here(h, (unsigned int)i))
		return false;
	*value = col->value[i];
	return true;
}

/* What the empty kernel itself retires of counter i (a lone return; one cycle assumed). */
static int64_t empty_own(const struct wl_harness *h, unsigned int i)
{
	struct wl_counts own;

	wl_predict_empty(&own);
	switch (h->event[i]) {
	case WL_EV_INST_RETIRED:
		return (int64_t)wl_pred_total(&own.inst);
	case WL_EV_BR_RETIRED:
		return (int64_t)wl_pred_total(&own.branches);
	case WL_EV_CPU_CYCLES:
		return pmuser_counters_backend(h->c) == PMUSER_BACKEND_CLOCK ? 0 : 1;
	default:
		return 0;
	}
}

int wl_open(struct wl_harness *h, const char *tool, bool kv, const uint32_t *events,
	    unsigned int n)
{
	char spec[256];
	size_t used = 0;
	unsigned int i;

	spec[0] = '\0';
	for (i = 0; i < n && used < sizeof(spec); i++)
		used += (size_t)snprintf(spec + used, sizeof(spec) - used, "%s0x%x", i ? "," : "",
					 native_event(events[i]));
	return wl_open_spec(h, tool, kv, spec, 0);
}

/*
 * The bias of an empty region (bounded: perf may have the events off the counters for a
 * while, or for good) and the harness's own counts around the kernel: 0, or -1 after saying
 * why.
 */
static int calibrate(struct wl_harness *h)
{
	int64_t best[PMUSER_COUNTERS_MAX];
	struct pmuser_region r;
	unsigned int i, k;
	int ret = -EAGAIN;

	for (k = 0; k < CALIBRATION_TRIES; k++) {
		ret = pmuser_region_calibrate(h->c, CALIBRATION_ROUNDS);
		if (ret != -EAGAIN)
			break;
		usleep(5000);
	}
	if (ret == -EAGAIN) {
		enum pmuser_backend b = pmuser_counters_backend(h->c);

		fprintf(stderr, "%s: not one valid region in %u tries on the %s backend: %s\n",
			h->tool, CALIBRATION_TRIES * CALIBRATION_ROUNDS, pmuser_backend_name(b),
			pmuser_backend_invalid_why(b));
		return -1;
	}
	if (ret) {
		fprintf(stderr, "%s: calibrating the region bias: %s\n", h->tool, strerror(-ret));
		return -1;
	}
	for (i = 0; i < h->nr; i++)
		best[i] = INT64_MAX;
	for (k = 0; k < HARNESS_ROUNDS; k++) {
		run_between_reads(h->c, &r, wl_k_empty, NULL);
		for (i = 0; i < h->nr; i++)
			if (r.delta[i] < best[i])
				best[i] = r.delta[i];
	}
	for (i = 0; i < h->nr; i++)
		h->harness[i] = pmuser_counters_supported(h->c, i) ? best[i] - empty_own(h, i) : 0;
	return 0;
}

/*
 * Counters that read but never move (QEMU's ARM1176) would report zeros: 0 if the cycle
 * counter and INST_RETIRED count a known loop, else -1 after saying so.
 */
static int counters_move(struct wl_harness *h)
{
	struct wl_hazard_args busy = { .iterations = 1000 };
	struct pmuser_region r;
	unsigned int i;

	run_between_reads(h->c, &r, wl_k_raw_chain, &busy);
	for (i = 0; i < h->nr; i++) {
		if (!pmuser_counters_supported(h->c, i))
			continue;
		if ((i == WL_CYCLES || h->event[i] == WL_EV_INST_RETIRED) && r.delta[i] <= 0) {
			fprintf(stderr, "%s: %s does not count on this machine (%s backend: a "
				"10,000-instruction loop measured %" PRId64 "); nothing to measure\n",
				h->tool, pmuser_counters_name(h->c, i),
				pmuser_backend_name(pmuser_counters_backend(h->c)), r.delta[i]);
			return -1;
		}
	}
	return 0;
}

int wl_open_spec(struct wl_harness *h, const char *tool, bool kv, const char *spec,
		 uint32_t cycle_flags)
{
	struct pmuser_counters_attr attr;
	char err[256], why[512];
	size_t count = 0;
	unsigned int i;
	int cpu, ret;

	memset(h, 0, sizeof(*h));
	h->tool = tool;
	h->kv = kv;
	pmuser_counters_attr_init(&attr);
	attr.flags = PMUSER_COUNTERS_CYCLES | PMUSER_COUNTERS_OPTIONAL;
	attr.cycle_flags = cycle_flags;
	ret = pmuser_evspec_parse(spec, current_midr(), attr.events, PMUSER_MAX_EVENTS, &count,
				  err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: events %s: %s\n", tool, spec, err);
		return -1;
	}
	attr.nr_events = count;

	/* Module counters are read on the CPU the reader runs on: stay on one. */
	cpu = sched_getcpu();
	ret = pmuser_thread_pin(cpu < 0 ? 0 : cpu);
	if (ret) {
		fprintf(stderr, "%s: pinning to CPU %d: %s\n", tool, cpu, strerror(-ret));
		return -1;
	}
	ret = pmuser_counters_open(&attr, &h->c, why, sizeof(why));
	if (ret) {
		fprintf(stderr, "%s: no counters: %s (%s)\n", tool, strerror(-ret), why);
		return -1;
	}
	h->nr = pmuser_counters_nr(h->c);
	h->event[0] = WL_EV_CPU_CYCLES;
	for (i = 1; i < h->nr; i++)
		h->event[i] = arch_event(attr.events[i - 1].event);
	if (calibrate(h))
		goto err_close;
	if (probe_events(h)) {
		fprintf(stderr, "%s: out of memory for the event probe\n", tool);
		goto err_close;
	}
	if (counters_move(h))
		goto err_close;
	return 0;

err_close:
	wl_close(h);
	return -1;
}

void wl_close(struct wl_harness *h)
{
	pmuser_counters_close(h->c);
	h->c = NULL;
}

int wl_check_budget(const char *tool, const char *label, const struct wl_counts *pred)
{
	uint64_t total = wl_pred_total(&pred->inst);
	char buf[32];

	if (!pred->inst.known || total < (1ULL << 31))
		return 0;
	fprintf(stderr, "%s: %s would retire %s instructions, more than a 32-bit counter holds "
		"safely (2^31): use smaller sizes or fewer iterations\n", tool, label,
		total == UINT64_MAX ? "2^64 or more" : wl_group(buf, sizeof(buf), total));
	return -1;
}

void wl_measure(struct wl_harness *h, wl_kernel_fn fn, void *args, struct wl_column *col)
{
	struct pmuser_region r;
	unsigned int i;

	col->measured = false;
	if (tool_stop_signal)
		return;
	run_between_reads(h->c, &r, fn, args);
	for (i = 0; i < h->nr; i++)
		col->value[i] = wl_counts_here(h, i) ? r.delta[i] - h->harness[i] : 0;
	col->measured = !tool_stop_signal;
}

unsigned int wl_measured(const struct wl_column *cols, unsigned int n)
{
	unsigned int k = 0;

	while (k < n && cols[k].measured)
		k++;
	return k;
}

const char *wl_group(char *buf, size_t len, uint64_t v)
{
	char tmp[32];
	size_t n, i, o = 0;

	n = (size_t)snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	for (i = 0; i < n && o + 1 < len; i++) {
		if (i && (n - i) % 3 == 0 && o + 2 < len)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

static const char *sgroup(char *buf, size_t len, int64_t v)
{
	if (v >= 0)
		return wl_group(buf, len, (uint64_t)v);
	buf[0] = '-';
	wl_group(buf + 1, len - 1, (uint64_t)(-(v + 1)) + 1);
	return buf;
}

/* The prediction compared with counter event, if any. */
static const struct wl_pred *prediction_for(const struct wl_column *col, uint32_t event,
					    const char **what)
{
	switch (event) {
	case WL_EV_INST_RETIRED:
		*what = "instructions";
		return &col->pred.inst;
	case WL_EV_BR_RETIRED:
		*what = "branches";
		return &col->pred.branches;
	case WL_EV_L1D_CACHE:
		*what = "load instructions";
		return &col->pred.loads;
	default:
		*what = NULL;
		return NULL;
	}
}

static void report_kv(const struct wl_harness *h, const struct wl_column *cols,
		      unsigned int ncols)
{
	unsigned int i, k;

	printf("wl tool=%s backend=%s predicts=%d\n", h->tool,
	       pmuser_backend_name(pmuser_counters_backend(h->c)), WL_PREDICTS);
	for (i = 0; i < h->nr; i++) {
		if (wl_counts_here(h, i))
			printf("wl tool=%s harness counter=%s value=%" PRId64 "\n", h->tool,
			       pmuser_counters_name(h->c, i), h->harness[i]);
	}
	for (k = 0; k < ncols; k++) {
		for (i = 0; i < h->nr; i++) {
			const struct wl_pred *p;
			const char *what;

			printf("wl tool=%s run=%s counter=%s", h->tool, cols[k].label,
			       pmuser_counters_name(h->c, i));
			p = prediction_for(&cols[k], h->event[i], &what);
			if (p && p->known)
				printf(" predicted=%" PRIu64, wl_pred_total(p));
			else
				printf(" predicted=-");
			if (wl_counts_here(h, i))
				printf(" measured=%" PRId64 "\n", cols[k].value[i]);
			else
				printf(" measured=unsupported\n");
		}
	}
}

void wl_report(const struct wl_harness *h, const char *what, const struct wl_column *cols,
	       unsigned int ncols, const char *legend)
{
	enum pmuser_backend b = pmuser_counters_backend(h->c);
	char v[40], f[160];
	unsigned int i, k;
	int64_t inst, cyc;

	k = wl_measured(cols, ncols);
	if (k < ncols)
		fprintf(stderr, "%s: stopped by signal %d after %u of %u runs%s\n", h->tool,
			(int)tool_stop_signal, k, ncols, k ? ": reporting those" : ": nothing to report");
	ncols = k;
	if (!ncols)
		return;
	if (h->kv) {
		report_kv(h, cols, ncols);
		return;
	}
	printf("%s: %s\n", h->tool, what);
	printf("counters: %s backend, %s\n", pmuser_backend_name(b), pmuser_counters_timer(h->c));
	if (!WL_PREDICTS)
		printf("predictions: none here (%s kernels); they are for ARM (AArch64, A32) only\n",
		       WL_ISA);
	else
		printf("predictions: exact by construction from the %s kernels (%s)\n", WL_ISA,
		       legend);
	i = (unsigned int)wl_index(h, WL_EV_INST_RETIRED);
	if (wl_index(h, WL_EV_INST_RETIRED) >= 0 && wl_counts_here(h, i))
		printf("harness: %" PRId64 " instructions per measurement (the call into the kernel, "
		       "measured with one that only returns), subtracted below\n", h->harness[i]);
	for (k = 0; k < ncols; k++) {
		const struct wl_column *col = &cols[k];

		printf("\n%s\n", col->label);
		for (i = 0; i < h->nr; i++) {
			const char *name = pmuser_counters_name(h->c, i), *pwhat;
			const struct wl_pred *p = prediction_for(col, h->event[i], &pwhat);
			bool ok = wl_counts_here(h, i);

			if (p && p->known) {
				wl_pred_formula(p, f, sizeof(f));
				printf("  %-18s predicted %16s = %s\n", pwhat,
				       wl_group(v, sizeof(v), wl_pred_total(p)), f);
			}
			if (!ok) {
				printf("  %-18s measured  %16s\n", name, "not supported by this PMU");
				continue;
			}
			printf("  %-18s measured  %16s", name, sgroup(v, sizeof(v), col->value[i]));
			if (p && p->known && h->event[i] == WL_EV_L1D_CACHE)
				printf("  (hardware may count speculative and harness accesses)");
			else if (p && p->known) {
				int64_t d = col->value[i] - (int64_t)wl_pred_total(p);

				if (!d)
					printf("  exact");
				else
					printf("  %+" PRId64 " vs predicted", d);
			}
			putchar('\n');
		}
		if (wl_value(h, col, WL_EV_INST_RETIRED, &inst) &&
		    pmuser_counters_supported(h->c, WL_CYCLES) && b != PMUSER_BACKEND_CLOCK) {
			cyc = col->value[WL_CYCLES];
			if (cyc > 0)
				printf("  %-18s           %16.3f\n", "IPC", (double)inst / (double)cyc);
		}
	}
}

/* ---- options ------------------------------------------------------------------------------ */

const char *wl_usage_notes;

static void print_notes(FILE *f)
{
	if (wl_usage_notes)
		fputs(wl_usage_notes, f);
	fputs("SIGINT or SIGTERM stops before the next run and reports the runs done (a run the\n"
	      "signal arrived in is not reported); the exit status is then 128 + the signal.\n", f);
}

/* -f: the text report, or key=value lines. */
static const char *parse_format(const char *arg, void *ctx)
{
	bool *kv = ctx;

	if (strcmp(arg, "text") && strcmp(arg, "kv"))
		return "unknown format (want text or kv)";
	*kv = !strcmp(arg, "kv");
	return NULL;
}

int wl_parse_options(const char *tool, const char *about, const char *what,
		     const struct tool_opt *opts, int argc, char **argv, bool *kv)
{
	struct tool_opt all[WL_OPTS_MAX + 2] = { { NULL } };
	char help[80];
	unsigned int n;
	int first, ret;

	for (n = 0; opts[n].name; n++) {
		if (n == WL_OPTS_MAX)
			return tool_bad(tool, "internal error: more than %d options", WL_OPTS_MAX);
		all[n] = opts[n];
	}
	snprintf(help, sizeof(help), "text (the %s, default), kv (key=value lines)", what);
	*kv = false;
	all[n] = (struct tool_opt){ "format", 'f', "FMT", help, TOOL_OPT_PARSE,
				    .parse = parse_format, .ctx = kv };
	ret = tool_parse(&(struct tool_cli){ .tool = tool, .about = about, .opts = all,
					     .notes = print_notes }, argc, argv, &first);
	if (ret < 0)
		tool_stop_catch();
	return ret;
}

uint64_t wl_passes_for_1m(uint64_t n)
{
	return n >= (1 << 20) ? 1 : (1 << 20) / n;
}

void wl_print_per_load(const struct wl_harness *h, const char *prefix, int64_t value,
		       uint64_t loads)
{
	char buf[32];

	printf("\n%s%.3f %s per load (%s loads)\n", prefix, (double)value / (double)loads,
	       pmuser_counters_backend(h->c) == PMUSER_BACKEND_CLOCK ? "ns" : "cycles",
	       wl_group(buf, sizeof(buf), loads));
}

/* ---- PRNG --------------------------------------------------------------------------------- */

void wl_rng_seed(struct wl_rng *r, uint64_t seed)
{
	/* xorshift must not start at 0; mix the seed so nearby seeds differ at once. */
	r->s = seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	if (!r->s)
		r->s = 1;
}

uint64_t wl_rng_next(struct wl_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

uint64_t wl_rng_below(struct wl_rng *r, uint64_t n)
{
	/* Rejection keeps it unbiased: drop draws from the incomplete last block of n. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = wl_rng_next(r);
	while (x >= limit);
	return x % n;
}
