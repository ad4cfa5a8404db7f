// SPDX-License-Identifier: MIT
/*
 * pmu-overhead: what one counter read costs, for every way of reading, side by side in one
 * run: the inline raw and serialised reads, pmuser_counters_read() of a whole module set, the
 * perf mmap self-read, perf read() of one event and of a group, clock_gettime() and the
 * generic timer (CNTVCT).
 *
 * Each method is called N times in a loop between region reads of a module counter set
 * (cycles, INST_RETIRED user, INST_RETIRED user+kernel); the same loop calling a function
 * that only returns is subtracted, leaving the read itself. Minimum of R runs, which drops
 * runs an interrupt landed in. read() spends most of its instructions in the kernel, so the
 * ratios use the user+kernel count.
 *
 * usage: pmu-overhead [-n READS] [-r RUNS] [-p]
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wl_harness.h"

#define TOOL "pmu-overhead"
#define BIAS_ROUNDS 200

/* Measuring set: counter 0 cycles (user+kernel), then INST_RETIRED :u and :uk. */
#define M_INST_U 1
#define M_INST_UK 2

typedef void (*read_fn)(void *ctx);

struct method {
	const char *key;		/* parsable name */
	const char *name;
	char detail[96];
	read_fn fn;
	void *ctx;
	bool available;
	char why[640];
	/* per read, call loop removed */
	double cycles, inst_u, inst_uk;
	bool have_cycles, have_inst;
	/* an empty region (two back-to-back reads) measured by the method itself */
	bool have_bias;
	double bias;
	const char *bias_unit;
};

struct set_ctx {
	struct pmuser_counters *c;
	uint64_t values[PMUSER_COUNTERS_MAX];
};

static void read_set(void *ctx)
{
	struct set_ctx *s = ctx;

	pmuser_counters_read(s->c, s->values);
}

static void read_clock(void *ctx)
{
	clock_gettime(CLOCK_MONOTONIC, ctx);
}

static __attribute__((noinline)) void read_loop(read_fn fn, void *ctx, unsigned long n)
{
	while (n--)
		fn(ctx);
}

/* Runs a flagged region may take the place of, in all, before the tool gives up. */
#define FLAGGED_MAX	64

/*
 * Per counter, the smallest delta of runs loops of n calls to fn. Regions the library flags
 * (another thread ran on the CPU, or perf multiplexed, reloaded or moved a counter meanwhile)
 * are dropped and run again; when
 * too many are, the tool stops with that cause rather than print what it did not measure.
 */
static void measure_loop(struct wl_harness *h, read_fn fn, void *ctx, unsigned long n,
			 unsigned int runs, int64_t best[])
{
	struct pmuser_region r;
	unsigned int i, k, flagged = 0;

	for (i = 0; i < h->nr; i++)
		best[i] = INT64_MAX;
	for (k = 0; k < runs;) {
		pmuser_region_start(h->c, &r);
		read_loop(fn, ctx, n);
		pmuser_region_stop(h->c, &r);
		if (!r.valid) {
			if (++flagged > FLAGGED_MAX) {
				enum pmuser_backend b = pmuser_counters_backend(h->c);

				fprintf(stderr, "pmu-overhead: %u of %u regions flagged: %s (%s backend); nothing measured\n",
					flagged, flagged + k, pmuser_backend_invalid_why(b),
					pmuser_backend_name(b));
				exit(1);
			}
			continue;
		}
		k++;
		for (i = 0; i < h->nr; i++)
			if (r.delta[i] < best[i])
				best[i] = r.delta[i];
	}
}

/* Opens a counter set on one backend for a method, or says why it cannot. */
static struct pmuser_counters *open_set(struct method *m, enum pmuser_backend backend,
					const char *spec, const char *what)
{
	struct pmuser_counters_attr attr;
	struct pmuser_counters *c;
	char err[160], why[512];
	size_t count;
	int ret;

	pmuser_counters_attr_init(&attr);
	attr.backend = backend;
	attr.flags = PMUSER_COUNTERS_OPTIONAL;
	ret = pmuser_evspec_parse(spec, 0, attr.events, PMUSER_MAX_EVENTS, &count, err,
				  sizeof(err));
	if (ret) {
		snprintf(m->why, sizeof(m->why), "event spec %s: %s", spec, err);
		return NULL;
	}
	attr.nr_events = count;
	ret = pmuser_counters_open(&attr, &c, why, sizeof(why));
	if (ret) {
		snprintf(m->why, sizeof(m->why), "%s", why);
		return NULL;
	}
	if (!pmuser_counters_supported(c, 0)) {
		snprintf(m->why, sizeof(m->why), "%s backend cannot count %s", what,
			 pmuser_counters_name(c, 0));
		pmuser_counters_close(c);
		return NULL;
	}
	return c;
}

/* The empty-region bias of a counter set, counter 0 (INST_RETIRED user+kernel). */
static void set_bias(struct method *m, struct pmuser_counters *c)
{
	if (pmuser_region_calibrate(c, BIAS_ROUNDS))
		return;
	m->have_bias = true;
	m->bias = (double)pmuser_region_bias(c, 0);
	m->bias_unit = "instructions (user+kernel)";
}

int main(int argc, char **argv)
{
	enum { RAW, SERIAL, ALL, MMAP, READ1, READG, CLOCK, CNTVCT, NMETHODS };
	struct method methods[NMETHODS] = {
		[RAW] = { "raw", "inline raw read", "", wl_ovh_raw, NULL },
		[SERIAL] = { "serial", "inline serialised read", "", wl_ovh_serial, NULL },
		[ALL] = { "all", "all counters (pmuser_counters_read)", "", read_set, NULL },
		[MMAP] = { "mmap", "perf mmap self-read", "", read_set, NULL },
		[READ1] = { "read1", "perf read(), one event", "", read_set, NULL },
		[READG] = { "readgroup", "perf read(), group", "", read_set, NULL },
		[CLOCK] = { "clock", "clock_gettime(MONOTONIC)", "vDSO", read_clock, NULL },
		[CNTVCT] = { "cntvct", "generic timer CNTVCT", "", wl_ovh_cntvct, NULL },
	};
	uint64_t reads = 1000, runs = 5, v;
	bool parsable, module, clock_only;
	const struct wl_opt opts[] = {
		{ "reads", 'n', "N", "reads per measurement (default 1000)",
		  WL_OPT_NUMBER, 1, 1000000, .value = &reads },
		{ "runs", 'r', "R", "measurements per method, minimum kept (default 5)",
		  WL_OPT_NUMBER, 1, 1000, .value = &runs },
		{ NULL },
	};
	int64_t null_best[PMUSER_COUNTERS_MAX], best[PMUSER_COUNTERS_MAX];
	struct set_ctx all_ctx, set_ctx;
	struct timespec ts;
	struct wl_harness h;
	const char *why;
	unsigned int k, i;
	double base_raw, base_serial;
	int status;

	status = wl_parse_options(TOOL, "table", opts, argc, argv, &parsable);
	if (status >= 0)
		return status;

#if defined(PMUSER_FAST_V6)
	/* ARM1176 counts every mode: both counters count the same. */
#define INST_SPEC "instr_exec,instr_exec"
#else
#define INST_SPEC "inst_retired:u,inst_retired:uk"
#endif
	if (wl_open_spec(&h, TOOL, parsable, INST_SPEC,
			 PMUSER_COUNT_USER | PMUSER_COUNT_KERNEL))
		return 1;
	module = pmuser_counters_backend(h.c) == PMUSER_BACKEND_MODULE;
	clock_only = pmuser_counters_backend(h.c) == PMUSER_BACKEND_CLOCK;

	/* Which methods can run here, and their contexts. */
#if defined(__aarch64__)
	snprintf(methods[RAW].detail, sizeof(methods[RAW].detail), "mrs pmccntr_el0");
	snprintf(methods[SERIAL].detail, sizeof(methods[SERIAL].detail), "isb; mrs pmccntr_el0");
	snprintf(methods[CNTVCT].detail, sizeof(methods[CNTVCT].detail), "mrs cntvct_el0");
#elif defined(__arm__) && __ARM_ARCH >= 7
	snprintf(methods[RAW].detail, sizeof(methods[RAW].detail), "mrc PMCCNTR");
	snprintf(methods[SERIAL].detail, sizeof(methods[SERIAL].detail), "isb; mrc PMCCNTR");
	snprintf(methods[CNTVCT].detail, sizeof(methods[CNTVCT].detail), "mrrc CNTVCT");
#elif defined(__arm__)
	snprintf(methods[RAW].detail, sizeof(methods[RAW].detail), "mrc CCNT");
	snprintf(methods[SERIAL].detail, sizeof(methods[SERIAL].detail), "flush; mrc CCNT");
#endif
	for (k = 0; k < NMETHODS; k++)
		methods[k].available = true;
	if (!module) {
		for (k = RAW; k <= ALL; k++) {
			methods[k].available = false;
			snprintf(methods[k].why, sizeof(methods[k].why),
				 "needs the module backend (counters use %s)",
				 pmuser_backend_name(pmuser_counters_backend(h.c)));
		}
	}
	all_ctx.c = h.c;
	methods[ALL].ctx = &all_ctx;
	if (module)
		snprintf(methods[ALL].detail, sizeof(methods[ALL].detail), "module, %u counters",
			 pmuser_counters_nr(h.c));
	methods[CLOCK].ctx = &ts;
	if (!wl_cntvct_usable(&why)) {
		methods[CNTVCT].available = false;
		snprintf(methods[CNTVCT].why, sizeof(methods[CNTVCT].why), "%s", why);
	}
	if (clock_only) {
		for (k = 0; k < NMETHODS; k++)
			if (k >= MMAP && k <= READG) {
				methods[k].available = false;
				snprintf(methods[k].why, sizeof(methods[k].why),
					 "no PMU for perf here (counters use the clock backend)");
			}
	}

	/* The call loop alone, then each method; one method's own counter set open at a time. */
	measure_loop(&h, wl_ovh_null, NULL, (unsigned long)reads, (unsigned int)runs, null_best);
	for (k = 0; k < NMETHODS; k++) {
		struct method *m = &methods[k];
		struct pmuser_counters *own = NULL;

		if (!m->available)
			continue;
		if (k == MMAP || k == READ1 || k == READG) {
#if defined(PMUSER_FAST_V6)
			/* ARM1176: INSTR_EXEC, BR_EXEC, DCACHE_ACCESS (every mode). */
			static const char *const spec[] = { "0x7", "0x7", "0x7,0x5,0xa" };
#else
			static const char *const spec[] = {
				"inst_retired:uk", "inst_retired:uk",
				"inst_retired:uk,cpu_cycles:uk,inst_retired:u",
			};
#endif
			own = open_set(m, k == MMAP ? PMUSER_BACKEND_PERF_MMAP :
				       PMUSER_BACKEND_PERF_READ, spec[k - MMAP],
				       k == MMAP ? "perf-mmap" : "perf-read");
			if (!own) {
				m->available = false;
				continue;
			}
			set_ctx.c = own;
			m->ctx = &set_ctx;
			snprintf(m->detail, sizeof(m->detail), "%u event%s", pmuser_counters_nr(own),
				 pmuser_counters_nr(own) > 1 ? "s" : "");
		}
		measure_loop(&h, m->fn, m->ctx, (unsigned long)reads, (unsigned int)runs, best);
		m->have_cycles = wl_counts_here(&h, WL_CYCLES);
		m->cycles = (double)(best[WL_CYCLES] - null_best[WL_CYCLES]) / (double)reads;
		m->have_inst = wl_counts_here(&h, M_INST_U) &&
			       wl_counts_here(&h, M_INST_UK);
		m->inst_u = (double)(best[M_INST_U] - null_best[M_INST_U]) / (double)reads;
		m->inst_uk = (double)(best[M_INST_UK] - null_best[M_INST_UK]) / (double)reads;

		/* What an empty region measures when this method brackets it. */
		if (own) {
			set_bias(m, own);
			pmuser_counters_close(own);
		} else if (k == ALL) {
			m->have_bias = true;
			m->bias = (double)pmuser_region_bias(h.c, M_INST_UK);
			m->bias_unit = "instructions (user+kernel)";
		} else if (k == RAW || k == SERIAL || k == CLOCK || k == CNTVCT) {
			uint64_t lo = UINT64_MAX, a = 0, b = 0;
			struct timespec t0, t1;

			for (i = 0; i < BIAS_ROUNDS; i++) {
				if (k == RAW) {
					a = pmuser_cycles_read();
					b = pmuser_cycles_read();
				} else if (k == SERIAL) {
					a = pmuser_cycles_read_serial();
					b = pmuser_cycles_read_serial();
				} else if (k == CLOCK) {
					clock_gettime(CLOCK_MONOTONIC, &t0);
					clock_gettime(CLOCK_MONOTONIC, &t1);
					a = (uint64_t)t0.tv_sec * 1000000000u + (uint64_t)t0.tv_nsec;
					b = (uint64_t)t1.tv_sec * 1000000000u + (uint64_t)t1.tv_nsec;
				} else {
					a = wl_cntvct_read();
					b = wl_cntvct_read();
				}
				if (b - a < lo)
					lo = b - a;
			}
			m->have_bias = true;
			m->bias = (double)lo;
			m->bias_unit = k == CLOCK ? "ns" : k == CNTVCT ? "ticks" : "cycles";
			if (k == CNTVCT && wl_cntfrq_read()) {
				static char unit[48];

				snprintf(unit, sizeof(unit), "ticks of %.1f MHz",
					 (double)wl_cntfrq_read() / 1e6);
				m->bias_unit = unit;
			}
		}
	}

	base_raw = methods[RAW].available && methods[RAW].have_inst ? methods[RAW].inst_uk : 0;
	base_serial = methods[SERIAL].available && methods[SERIAL].have_inst ?
		      methods[SERIAL].inst_uk : 0;
	if (parsable) {
		printf("wl tool=" TOOL " backend=%s reads=%" PRIu64 " runs=%" PRIu64 "\n",
		       pmuser_backend_name(pmuser_counters_backend(h.c)), reads, runs);
		for (k = 0; k < NMETHODS; k++) {
			struct method *m = &methods[k];

			printf("wl tool=" TOOL " method=%s available=%d", m->key, m->available);
			if (m->available && m->have_inst)
				printf(" inst_u=%.3f inst_uk=%.3f", m->inst_u, m->inst_uk);
			if (m->available && m->have_cycles)
				printf(" cycles=%.3f", m->cycles);
			if (m->available && m->have_bias)
				printf(" bias=%.0f", m->bias);
			if (!m->available)
				printf(" why=\"%s\"", m->why);
			putchar('\n');
		}
		wl_close(&h);
		return 0;
	}

	printf(TOOL ": cost of one counter read, %" PRIu64 " reads per measurement, minimum of %"
	       PRIu64 " runs, an empty call loop subtracted\n", reads, runs);
	printf("measured with: %s backend, %s; instructions: INST_RETIRED user-only (u) and "
	       "user+kernel (u+k); cycles count user+kernel\n",
	       pmuser_backend_name(pmuser_counters_backend(h.c)), pmuser_counters_timer(h.c));
	printf("ratios: u+k instructions per read over the inline raw / serialised read's (the "
	       "kernel side of read() counts)\n\n");
	printf("%-36s %-22s %9s %9s %10s %8s %8s  %s\n", "method", "", "inst(u)", "inst(u+k)",
	       clock_only ? "ns" : "cycles", "x raw", "x serial", "empty-region bias");
	for (k = 0; k < NMETHODS; k++) {
		struct method *m = &methods[k];

		printf("%-36s %-22s", m->name, m->detail);
		if (!m->available) {
			printf(" not available: %s\n", m->why);
			continue;
		}
		if (m->have_inst)
			printf(" %9.1f %9.1f", m->inst_u, m->inst_uk);
		else
			printf(" %9s %9s", "n/s", "n/s");
		printf(" %10.1f", m->cycles);
		if (m->have_inst && base_raw > 0)
			printf(" %8.1f", m->inst_uk / base_raw);
		else
			printf(" %8s", "-");
		if (m->have_inst && base_serial > 0)
			printf(" %8.1f", m->inst_uk / base_serial);
		else
			printf(" %8s", "-");
		if (m->have_bias)
			printf("  %.0f %s", m->bias, m->bias_unit);
		putchar('\n');
	}
	if (!methods[RAW].have_inst)
		printf("n/s: INST_RETIRED not supported by this PMU (or backend): no instruction "
		       "counts or ratios\n");
	v = (uint64_t)lround(base_serial);
	if (base_serial > 0 && methods[MMAP].available && methods[READ1].available)
		printf("\nserialised inline read: %" PRIu64 " instructions; perf mmap self-read %.0fx "
		       "and read() %.0fx as many\n", v, methods[MMAP].inst_uk / base_serial,
		       methods[READ1].inst_uk / base_serial);
	wl_close(&h);
	return 0;
}
