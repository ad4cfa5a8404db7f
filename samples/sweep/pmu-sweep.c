// SPDX-License-Identifier: MIT
/*
 * pmu-sweep: memory-hierarchy latency sweep with automatic tier detection.
 *
 * For each working-set size: a pointer chain with one node per cache line (Sattolo single
 * cycle by default), one full warm-up traversal, then --repeat timed runs of an unrolled
 * chase loop whose length fills the time budget; latency per load = (window - empty window)
 * / loads, reported as the minimum and median over the runs. Tier detection (tiers.c) then
 * names the plateaus. --from FILE redoes the analysis on a saved CSV without measuring.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lat_buf.h"
#include "lat_opts.h"
#include "lat_out.h"
#include "lat_timer.h"
#include "pmuser.h"
#include "size_suffix.h"
#include "sweep_svg.h"
#include "sweepcsv.h"
#include "tiers.h"
#include "tool_stop.h"
#include "tool_text.h"

#define TOOL "pmu-sweep"
#define MAX_SIZES 512
#define DEFAULT_EVENTS "l1d_cache_refill,l2d_cache_refill,l1d_tlb_refill"

struct opts {
	struct lat_opts lat;
	uint64_t min, max, reps;
	double budget;
	uint64_t sizes[MAX_SIZES];
	size_t nr_sizes;		/* explicit --sizes */
	const char *events, *svg, *from;
	bool measuring_opt;		/* an option that only a measurement uses */
	bool min_set, max_set;
};

struct point {
	uint64_t size;
	double min, median, ns;		/* per load */
	double ev[PMUSER_MAX_EVENTS];	/* per load; NAN when not counted */
	uint64_t loads;
};

static void notes(FILE *f)
{
	fputs("SIGINT or SIGTERM stops after the size being measured and reports the sizes done;\n"
	      "the exit status is then 128 + the signal.\n", f);
}

/* --sizes: comma-separated, increasing. */
static const char *parse_sizes(const char *arg, void *ctx)
{
	static char why[160];
	struct opts *o = ctx;
	const char *tok, *next;

	o->nr_sizes = 0;
	/* Split by hand: strtok would pass over an empty item ("4K,,8K") silently. */
	for (tok = arg; tok; tok = next) {
		size_t len = strcspn(tok, ",");
		char item[32];

		next = tok[len] ? tok + len + 1 : NULL;
		if (!len)
			return "empty item in --sizes (want e.g. 4K,64K,1M)";
		if (o->nr_sizes == MAX_SIZES)
			return "more than 512 sizes";
		snprintf(item, sizeof(item), "%.*s", (int)len, tok);
		if (len >= sizeof(item) || lat_parse_size(item, &o->sizes[o->nr_sizes])) {
			snprintf(why, sizeof(why), "bad size '%.*s' (want positive byte counts, e.g. 4K,64K,1M)",
				 (int)len, tok);
			return why;
		}
		if (o->nr_sizes && o->sizes[o->nr_sizes] <= o->sizes[o->nr_sizes - 1]) {
			snprintf(why, sizeof(why), "--sizes must increase ('%s')", item);
			return why;
		}
		o->nr_sizes++;
	}
	return NULL;
}

static const char *parse_min(const char *arg, void *ctx)
{
	struct opts *o = ctx;

	o->min_set = true;
	return lat_parse_size(arg, &o->min) ? "want a positive byte count, e.g. 1K" : NULL;
}

static const char *parse_max(const char *arg, void *ctx)
{
	struct opts *o = ctx;

	o->max_set = true;
	return lat_parse_size(arg, &o->max) ? "want a positive byte count, e.g. 256M" : NULL;
}

static const char *parse_budget(const char *arg, void *ctx)
{
	struct opts *o = ctx;
	char *end;

	errno = 0;
	o->budget = strtod(arg, &end);
	if (errno || end == arg || *end || !(o->budget > 0) || o->budget > 86400)
		return "want seconds, > 0 and at most 86400";
	return NULL;
}

static const char *parse_events(const char *arg, void *ctx)
{
	struct opts *o = ctx;

	o->events = strcmp(arg, "default") ? arg : DEFAULT_EVENTS;
	return *arg ? NULL : "an empty event list";
}

/* -1 to go on, or the exit status: 0 after --help, 2 after bad input. */
static int parse(int argc, char **argv, struct opts *o)
{
	bool *m = &o->measuring_opt;
	const struct tool_opt opts[] = {
		{ "min", 0, "BYTES", "smallest size (default 1K); with --max, 2^k and 1.5 * 2^k"
		  "\nplus dense steps around the cache sizes sysfs reports",
		  TOOL_OPT_PARSE, .parse = parse_min, .ctx = o, .seen = m },
		{ "max", 0, "BYTES", "largest size (default 256M)", TOOL_OPT_PARSE,
		  .parse = parse_max, .ctx = o, .seen = m },
		{ "sizes", 0, "LIST", "explicit comma-separated sizes instead, each a multiple of"
		  "\nthe node spacing (of the page for --pattern page)", TOOL_OPT_PARSE,
		  .parse = parse_sizes, .ctx = o, .seen = m },
		LAT_OPTS_PATTERN(&o->lat, m, "chase (Sattolo cycle, default), stride (address order),"
				 "\npage (random within each page: separates TLB from cache),"
				 "\nrandom (independent loads at random lines)"),
		{ "repeat", 'r', "N", "timed runs per size (default 5): min and median",
		  TOOL_OPT_NUMBER, 1, 1000, .value = &o->reps, .seen = m },
		{ "budget", 0, "SECONDS", "time for all timed runs together (default 20)",
		  TOOL_OPT_PARSE, .parse = parse_budget, .ctx = o, .seen = m },
		{ "event", 'e', "SPEC", "events per load when the PMU has them, e.g. default"
		  "\n(" DEFAULT_EVENTS ")", TOOL_OPT_PARSE, .parse = parse_events, .ctx = o,
		  .seen = m },
		LAT_OPTS_COMMON(&o->lat, m, "text (default), csv (the --from format), json",
				"report there instead of stdout",
				"every timed run: size,rep,loads,raw,bias,latency,ns"),
		{ "svg", 0, "FILE", "plot: latency against size, log2 axes, tiers marked",
		  TOOL_OPT_STRING, .string = &o->svg },
		{ "from", 0, "FILE", "re-analyse a CSV saved with -f csv instead of measuring",
		  TOOL_OPT_STRING, .string = &o->from },
		{ NULL },
	};
	const struct tool_cli cli = {
		.tool = TOOL, .opts = opts, .notes = notes,
		.about = "Load latency against working-set size, and the cache and TLB tiers it shows.",
		.synopsis = "[options]            measure, then detect tiers\n"
			    "       " TOOL " --from FILE [-f FMT] [-o FILE] [--svg FILE]   re-analyse a saved CSV",
	};
	char why[128];
	int first, ret;

	*o = (struct opts){ .min = 1024, .max = 256u << 20, .reps = 5, .budget = 20 };
	lat_opts_init(&o->lat);
	ret = tool_parse(&cli, argc, argv, &first);
	if (ret >= 0)
		return ret;
	if (o->from && o->measuring_opt)
		return tool_bad(TOOL, "--from re-analyses a saved file: only --format, --output and --svg apply");
	if (lat_opts_check(&o->lat, why, sizeof(why)))
		return tool_bad(TOOL, "%s", why);
	if (o->nr_sizes && (o->min_set || o->max_set))
		return tool_bad(TOOL, "--sizes names every size: --%s does not apply",
				o->min_set ? "min" : "max");
	if (o->min > o->max) {
		char lo[32], hi[32];

		return tool_bad(TOOL, "--min %s is above %s %s", size_format(lo, sizeof(lo), o->min),
				o->max_set ? "--max" : "the default --max",
				size_format(hi, sizeof(hi), o->max));
	}
	return -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The sizes to measure: --sizes as given (plan() checks them), or 2^k and 1.5 * 2^k in
 * [min, max], plus 3/4, 7/8, 1, 9/8, 5/4 of each cache size sysfs reports (the transitions
 * are where detail matters), each rounded to a multiple of the node spacing within [min,
 * max] (down, else up; dropped if neither is). Returns the count.
 */
static size_t plan_sizes(const struct opts *o, const struct lat_geometry *g, uint64_t unit,
			 uint64_t *out)
{
	static const double dense[] = { 0.75, 0.875, 1.0, 1.125, 1.25 };
	size_t n = 0, k = 0;

	if (o->nr_sizes) {
		memcpy(out, o->sizes, o->nr_sizes * sizeof(*out));
		n = o->nr_sizes;
	} else {
		for (uint64_t p = 1; p && p <= o->max && n + 2 < MAX_SIZES; p *= 2) {
			if (p >= o->min)
				out[n++] = p;
			if (p + p / 2 >= o->min && p + p / 2 <= o->max && p >= 2)
				out[n++] = p + p / 2;
		}
		for (unsigned int c = 0; c < g->nr_caches; c++)
			for (size_t d = 0; d < sizeof(dense) / sizeof(dense[0]) && n < MAX_SIZES; d++) {
				uint64_t s = (uint64_t)(g->cache[c].size * dense[d]);

				if (s >= o->min && s <= o->max)
					out[n++] = s;
			}
	}
	for (size_t i = 0; i < n && !o->nr_sizes; i++) {
		uint64_t down = out[i] / unit * unit, up = down + (out[i] % unit ? unit : 0);

		out[i] = down >= o->min ? down : up <= o->max ? up : 0;
	}
	qsort(out, n, sizeof(*out), cmp_u64);
	for (size_t i = 0; i < n; i++)	/* drop zeros and duplicates */
		if (out[i] && (!k || out[i] != out[k - 1]))
			out[k++] = out[i];
	return k;
}

static const char *unit_of(const struct sweepcsv *c)
{
	return sweepcsv_unit_name(c->unit);
}

/* The report both modes share: tier table (text) or tiers object (JSON). */
static void print_tiers_json(FILE *f, const struct tiers_result *r, bool ok)
{
	fprintf(f, " \"tiers\": [");
	for (size_t i = 0; ok && i < r->n; i++) {
		const struct tiers_level *l = &r->level[i];

		fprintf(f, "%s\n  {\"label\": \"%s\", \"latency\": %.6g, \"first_size\": %llu, "
			"\"last_size\": %llu, \"capacity\": %llu, \"capacity_open\": %s, "
			"\"sysfs_level\": %u, \"step\": %.4g}", i ? "," : "",
			l->label, l->latency, (unsigned long long)l->first_size,
			(unsigned long long)l->last_size, (unsigned long long)l->capacity,
			l->open ? "true" : "false", l->cache_level, l->step);
	}
	fprintf(f, "],\n \"tlb\": ");
	if (ok && r->tlb.found)
		fprintf(f, "{\"tier\": \"%s\", \"size_before\": %llu, \"size_after\": %llu, "
			"\"step\": %.4g}", r->level[r->tlb.tier].label,
			(unsigned long long)r->tlb.size_before, (unsigned long long)r->tlb.size_after,
			r->tlb.step);
	else
		fprintf(f, "null");
}

/* Opens --svg's file: NULL with the reason said when it cannot be written. */
static FILE *open_svg(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, TOOL ": --svg %s: %s\n", path, strerror(errno));
	return f;
}

/* Writes the plot into f (opened by open_svg()) and closes it. */
static int write_svg(FILE *f, const char *path, const struct tiers_point *pts, size_t n,
		     const char *unit, const struct tiers_result *res, const char *title)
{
	int ret, err;

	errno = 0;
	ret = sweep_svg_write(f, pts, n, unit, res, title);
	err = ret ? errno : 0;
	if (fclose(f) && !err)
		err = errno;
	if (ret || err) {
		fprintf(stderr, TOOL ": writing %s: %s\n", path, strerror(err ? err : EIO));
		return -EIO;
	}
	return 0;
}

/* How many sizes have a minimum of 0 or less: a timer that did not resolve them, no tiers. */
static size_t count_unresolved(const struct tiers_point *pts, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += !(pts[i].latency > 0);
	return k;
}

static void say_unresolved(FILE *f, size_t unresolved)
{
	fprintf(f, "tiers: not detected: %zu sizes have a minimum of 0 or less, which the timer "
		"did not resolve\n", unresolved);
}

/* The same on standard error, before the report. */
static void warn_unresolved(size_t unresolved)
{
	fprintf(stderr, TOOL ": %zu sizes have a minimum latency of 0 or less (the timer did not "
		"resolve them): no tiers detected\n", unresolved);
}

/*
 * A plot that is not drawn: svg (from open_svg()) is closed, removed if it is a file it
 * created (never a device or pipe it was given), and why is said.
 */
static void svg_not_written(const char *path, FILE *svg, size_t n)
{
	struct stat st;

	if (!fstat(fileno(svg), &st) && S_ISREG(st.st_mode))
		unlink(path);
	fclose(svg);
	if (n < TIERS_MIN_POINTS)
		fprintf(stderr, TOOL ": --svg %s: not written: %zu sizes measured, the plot needs at least %d\n",
			path, n, TIERS_MIN_POINTS);
	else
		fprintf(stderr, TOOL ": --svg %s: not written: no tiers found to plot\n", path);
}

/* --from's report and plot, into out and svg (closed here): 0, or 1 after saying why. */
static int from_report(const struct opts *o, const struct sweepcsv *csv,
		       const struct tiers_result *r, size_t unresolved, FILE *out, FILE *svg)
{
	int ret = 0;

	switch (o->lat.format) {
	case LAT_TEXT:
		fprintf(out, "from: %s (%zu sizes, %s)\n", o->from, csv->n, unit_of(csv));
		for (size_t i = 0; i < csv->nmeta; i++)
			fprintf(out, "  # %s\n", csv->meta[i]);
		if (unresolved)
			say_unresolved(out, unresolved);
		else
			tiers_print(out, r, unit_of(csv));
		break;
	case LAT_CSV:
		sweepcsv_write(out, csv);
		break;
	case LAT_JSON:
		fprintf(out, "{\"tool\": \"pmu-sweep\", \"from\": ");
		tool_json_string(out, o->from);
		fprintf(out, ", \"unit\": \"%s\",\n \"points\": [", unit_of(csv));
		for (size_t i = 0; i < csv->n; i++)
			fprintf(out, "%s{\"size_bytes\": %llu, \"latency\": %.6g}", i ? ", " : "",
				(unsigned long long)csv->pts[i].size, csv->pts[i].latency);
		fprintf(out, "],\n");
		print_tiers_json(out, r, !unresolved);
		fprintf(out, "}\n");
		break;
	}
	/* The plot does not depend on the report: each is written, or said to have failed. */
	if (lat_output_close(out)) {
		fprintf(stderr, TOOL ": writing the report to %s: %s\n",
			o->lat.output ? o->lat.output : "standard output", strerror(errno));
		ret = 1;
	}
	if (svg && unresolved) {
		svg_not_written(o->svg, svg, csv->n);
		ret = 1;
	} else if (svg && write_svg(svg, o->svg, csv->pts, csv->n, unit_of(csv), r, o->from)) {
		ret = 1;
	}
	return ret;
}

static int from_file(const struct opts *o)
{
	struct tiers_result r = { 0 };
	struct sweepcsv csv;
	char err[256];
	FILE *in, *out = stdout, *svg = NULL;
	size_t unresolved;
	int ret;

	in = strcmp(o->from, "-") ? fopen(o->from, "r") : stdin;
	if (!in) {
		fprintf(stderr, TOOL ": %s: %s\n", o->from, strerror(errno));
		return 1;
	}
	ret = sweepcsv_read(in, &csv, err, sizeof(err));
	if (in != stdin)
		fclose(in);
	if (ret) {
		fprintf(stderr, TOOL ": %s: %s\n", o->from, ret == -EINVAL ? err : strerror(-ret));
		return 1;
	}
	unresolved = count_unresolved(csv.pts, csv.n);
	ret = unresolved ? 0 : tiers_detect(csv.pts, csv.n, &r);
	if (ret) {
		fprintf(stderr, TOOL ": %s: tier detection: %s\n", o->from, strerror(-ret));
		sweepcsv_free(&csv);
		return 1;
	}
	if (unresolved)
		warn_unresolved(unresolved);
	/* A path that cannot be opened is bad input, as pmu-stat has it: exit status 2. */
	if (lat_output_open(TOOL, o->lat.output, &out)) {
		sweepcsv_free(&csv);
		return 2;
	}
	if (o->svg && !(svg = open_svg(o->svg))) {
		lat_output_close(out);
		sweepcsv_free(&csv);
		return 2;
	}
	if (tool_outputs_distinct(TOOL, (FILE *const[]){ out, svg }, (const char *const[]){
			o->lat.output ? "-o" : "standard output", "--svg" }, 2)) {
		if (svg)
			fclose(svg);
		lat_output_close(out);
		sweepcsv_free(&csv);
		return 2;
	}
	ret = from_report(o, &csv, &r, unresolved, out, svg);
	sweepcsv_free(&csv);
	return ret;
}

/* ---- measuring ------------------------------------------------------------------------ */

struct sweep {
	struct opts *o;
	struct lat_timer t;
	struct lat_geometry geo;
	struct lat_buf buf;
	uint64_t step, bias;
	struct pmuser_evspec_entry ev[PMUSER_MAX_EVENTS];
	size_t nr_ev;
	FILE *raw;
	uint64_t state;
};

/* One timed run of loads (a multiple of LAT_UNROLL); returns the raw window. */
static uint64_t timed_run(struct sweep *s, struct lat_chain *ch, void ***p, uint64_t loads,
			  uint64_t *ev)
{
	if (s->o->lat.pattern == LAT_RANDOM)
		return lat_time_random(&s->t, (void **)s->buf.mem, ch->nodes, ch->step, loads,
				       &s->state, ev);
	return lat_time_chase(&s->t, p, loads / LAT_UNROLL, ev);
}

/* The empty window's minimum over a few tries: what a run costs with no loads. */
static uint64_t measure_bias(struct sweep *s)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 64; i++) {
		uint64_t e = lat_time_empty(&s->t);

		if (e < best)
			best = e;
	}
	return best;
}

static int measure_size(struct sweep *s, uint64_t size, double per_run_ns, struct point *pt)
{
	struct lat_buf view = s->buf;
	struct lat_chain ch;
	uint64_t ev[PMUSER_MAX_EVENTS], ev_sum[PMUSER_MAX_EVENTS] = { 0 }, loads, t0, d;
	double lat[1000], ns[1000], est;
	char err[256];
	void **p;
	int ret;

	view.size = size;
	ret = lat_chain_build(&view, s->o->lat.pattern, s->step, s->o->lat.seed, &ch, err, sizeof(err));
	if (ret) {
		fprintf(stderr, TOOL ": %s\n", err);
		return ret;
	}
	p = lat_chase(ch.start, ch.nodes);	/* warm-up: one traversal */
	/* Pilot: grow the run until it takes 1 ms, to learn the time per load. */
	for (loads = 64 * LAT_UNROLL;; loads *= 4) {
		t0 = now_ns(CLOCK_MONOTONIC);
		timed_run(s, &ch, &p, loads, NULL);
		d = now_ns(CLOCK_MONOTONIC) - t0;
		if (d >= 1000000 || loads >= (1ULL << 30))
			break;
	}
	est = (double)(d ? d : 1) / (double)loads;
	loads = (uint64_t)(per_run_ns / est);
	/* 32-bit cycle counters: keep a run under 2^31 cycles even at 4 GHz (0.5 s). */
	if (loads * est > 5e8)
		loads = (uint64_t)(5e8 / est);
	if (loads < 64 * LAT_UNROLL)
		loads = 64 * LAT_UNROLL;
	loads -= loads % LAT_UNROLL;
	for (uint64_t r = 0; r < s->o->reps; r++) {
		uint64_t bias = measure_bias(s);

		t0 = now_ns(CLOCK_MONOTONIC);
		d = timed_run(s, &ch, &p, loads, ev);
		ns[r] = (double)(now_ns(CLOCK_MONOTONIC) - t0) / (double)loads;
		lat[r] = ((double)d - (double)bias) / (double)loads;
		for (size_t e = 0; e < s->nr_ev; e++)
			ev_sum[e] += ev[e];
		if (s->raw)
			fprintf(s->raw, "%llu,%llu,%llu,%llu,%llu,%.6f,%.4f\n",
				(unsigned long long)size, (unsigned long long)r,
				(unsigned long long)loads, (unsigned long long)d,
				(unsigned long long)bias, lat[r], ns[r]);
	}
	pt->size = size;
	pt->loads = loads;
	pt->median = lat_median_double(lat, s->o->reps);	/* sorts lat */
	pt->min = lat[0];
	pt->ns = lat_median_double(ns, s->o->reps);
	for (size_t e = 0; e < s->nr_ev; e++)
		pt->ev[e] = pmuser_counters_supported(s->t.ctr, (unsigned int)e + 1) ?
			    (double)ev_sum[e] / (double)(loads * s->o->reps) : NAN;
	return 0;
}

static void print_value(FILE *f, const char *fmt, double v, const char *none)
{
	if (isnan(v))
		fputs(none, f);
	else
		fprintf(f, fmt, v);
}

/* What every report format is made of. */
struct sweep_report {
	const struct sweep *s;
	const struct point *pts;
	const struct tiers_point *tp;	/* the minima the tiers are detected from */
	size_t n;
	double pred;			/* icount prediction per load, 0: none */
	const struct tiers_result *r;
	bool ok;			/* tiers detected */
	size_t unresolved;		/* sizes whose minimum is not above 0: no tiers */
};

static void report_text(FILE *out, const struct sweep_report *x)
{
	const struct sweep *s = x->s;
	const struct opts *o = s->o;
	char a[32];

	fprintf(out, "backend: %s; timer: %s\n", pmuser_backend_name(s->t.backend), s->t.timer);
	fprintf(out, "run: %s\n", o->lat.pattern == LAT_RANDOM ?
		"library region reads around a C loop of independent random-index loads" :
		s->t.loop_method);
	fprintf(out, "layout: pattern %s, nodes %llu bytes apart (line %u bytes, %s), "
		"%s pages (%zu bytes), seed %llu, CPU %d, %llu runs per size\n",
		lat_pattern_name(o->lat.pattern), (unsigned long long)s->step, s->geo.line,
		s->geo.line_source, lat_pages_name(o->lat.pages), s->buf.page,
		(unsigned long long)o->lat.seed, o->lat.cpu, (unsigned long long)o->reps);
	for (unsigned int c = 0; c < s->geo.nr_caches; c++)
		fprintf(out, "%s L%u %s %s", c ? "," : "sysfs caches:", s->geo.cache[c].level,
			s->geo.cache[c].type, size_format(a, sizeof(a), s->geo.cache[c].size));
	fprintf(out, "%s", s->geo.nr_caches ? "\n" : "sysfs caches: none reported\n");
	if (x->pred > 0)
		fprintf(out, "icount prediction: %g %s per load (%d instructions per "
			"iteration / %d loads)\n", x->pred, s->t.unit, LAT_LOOP_INSNS, LAT_UNROLL);
	else
		fprintf(out, "icount prediction: none (no inline asm window on this path)\n");
	fprintf(out, "%10s %12s %12s %10s", "size", "min", "median", "ns/load");
	for (size_t e = 0; e < s->nr_ev; e++)
		fprintf(out, " %18.18s", pmuser_counters_name(s->t.ctr, (unsigned int)e + 1));
	fprintf(out, "   (%s per load, bias-corrected)\n", s->t.unit);
	for (size_t i = 0; i < x->n; i++) {
		fprintf(out, "%10s %12.4f %12.4f %10.3f", size_format(a, sizeof(a), x->pts[i].size),
			x->pts[i].min, x->pts[i].median, x->pts[i].ns);
		for (size_t e = 0; e < s->nr_ev; e++)
			print_value(out, " %18.4f", x->pts[i].ev[e], "                n/a");
		fputc('\n', out);
	}
	if (x->ok)
		tiers_print(out, x->r, s->t.unit);
	else if (x->unresolved)
		say_unresolved(out, x->unresolved);
	else
		fprintf(out, "tiers: need at least %d sizes\n", TIERS_MIN_POINTS);
}

/* The --from format: "latency" is each size's minimum, which the tiers are detected from. */
static void report_csv(FILE *out, const struct sweep_report *x)
{
	const struct sweep *s = x->s;
	const struct opts *o = s->o;
	char pred[32];

	fprintf(out, "# pmu-sweep v1 unit=%s\n# backend=%s\n# timer=%s\n# pattern=%s\n"
		"# step=%llu\n# line=%u\n# pages=%s\n# cpu=%d\n# reps=%llu\n# predicted=%s\n"
		"size_bytes,latency,median,ns_per_load,loads", s->t.unit,
		pmuser_backend_name(s->t.backend), s->t.timer, lat_pattern_name(o->lat.pattern),
		(unsigned long long)s->step, s->geo.line, lat_pages_name(o->lat.pages), o->lat.cpu,
		(unsigned long long)o->reps, lat_predicted(pred, sizeof(pred), x->pred, "none"));
	for (size_t e = 0; e < s->nr_ev; e++)
		fprintf(out, ",%s", pmuser_counters_name(s->t.ctr, (unsigned int)e + 1));
	fputc('\n', out);
	for (size_t i = 0; i < x->n; i++) {
		fprintf(out, "%llu,%.10g,%.10g,%.6g,%llu", (unsigned long long)x->pts[i].size,
			x->pts[i].min, x->pts[i].median, x->pts[i].ns,
			(unsigned long long)x->pts[i].loads);
		for (size_t e = 0; e < s->nr_ev; e++)
			print_value(out, ",%.6g", x->pts[i].ev[e], ",");
		fputc('\n', out);
	}
}

/* The same columns by the CSV's names: "latency" is the minimum. */
static void report_json(FILE *out, const struct sweep_report *x)
{
	const struct sweep *s = x->s;
	const struct opts *o = s->o;
	char pred[32];

	fprintf(out, "{\"tool\": \"pmu-sweep\", \"unit\": \"%s\", \"backend\": \"%s\", "
		"\"timer\": ", s->t.unit, pmuser_backend_name(s->t.backend));
	tool_json_string(out, s->t.timer);
	fprintf(out, ", \"pattern\": \"%s\", \"step\": %llu, \"line\": %u, \"pages\": \"%s\", "
		"\"cpu\": %d, \"reps\": %llu, \"predicted\": %s,\n \"points\": [",
		lat_pattern_name(o->lat.pattern), (unsigned long long)s->step, s->geo.line,
		lat_pages_name(o->lat.pages), o->lat.cpu, (unsigned long long)o->reps,
		lat_predicted(pred, sizeof(pred), x->pred, "null"));
	for (size_t i = 0; i < x->n; i++) {
		fprintf(out, "%s\n  {\"size_bytes\": %llu, \"latency\": %.6g, \"median\": %.6g, "
			"\"ns_per_load\": %.6g, \"loads\": %llu, \"events\": {", i ? "," : "",
			(unsigned long long)x->pts[i].size, x->pts[i].min, x->pts[i].median,
			x->pts[i].ns, (unsigned long long)x->pts[i].loads);
		for (size_t e = 0; e < s->nr_ev; e++) {
			fprintf(out, "%s", e ? ", " : "");
			tool_json_string(out, pmuser_counters_name(s->t.ctr, (unsigned int)e + 1));
			print_value(out, ": %.6g", x->pts[i].ev[e], ": null");
		}
		fprintf(out, "}}");
	}
	fprintf(out, "],\n");
	print_tiers_json(out, x->r, x->ok);
	fprintf(out, "}\n");
}

/* Tiers from the minima, named after the cache levels sysfs reports: false if too few. */
static bool detect(const struct sweep *s, const struct tiers_point *tp, size_t n,
		   struct tiers_result *r)
{
	struct tiers_cache caches[TIERS_MAX];
	size_t nc = 0;

	if (n < TIERS_MIN_POINTS || tiers_detect(tp, n, r))
		return false;
	/* sysfs lists the levels in order, each larger than the one before. */
	for (unsigned int c = 0; c < s->geo.nr_caches && nc < TIERS_MAX; c++)
		if (!nc || s->geo.cache[c].size > caches[nc - 1].size)
			caches[nc++] = (struct tiers_cache){ s->geo.cache[c].level,
							     s->geo.cache[c].size };
	tiers_reconcile(r, caches, nc);
	return true;
}

/*
 * The report into out, the plot into svg (closed here): 0, -ENODATA when the plot could not
 * be drawn or written (said why), or -errno.
 */
static int report(struct sweep *s, const struct point *pts, size_t n, FILE *out, FILE *svg)
{
	static void (*const formats[])(FILE *, const struct sweep_report *) = {
		[LAT_TEXT] = report_text, [LAT_CSV] = report_csv, [LAT_JSON] = report_json,
	};
	struct tiers_point *tp = calloc(n ? n : 1, sizeof(*tp));
	const struct opts *o = s->o;
	struct tiers_result r;
	struct sweep_report x;
	char title[160];
	int ret = 0;

	if (!tp)
		return -ENOMEM;
	x = (struct sweep_report){ .s = s, .pts = pts, .tp = tp, .n = n, .r = &r,
		.pred = o->lat.pattern == LAT_RANDOM ? 0 : lat_predict_loop(&s->t) };
	/* Tiers are steps between positive latencies: a minimum of 0 or less has none. */
	for (size_t i = 0; i < n; i++)
		tp[i] = (struct tiers_point){ pts[i].size, pts[i].min };
	x.unresolved = count_unresolved(tp, n);
	x.ok = !x.unresolved && detect(s, tp, n, &r);
	if (x.unresolved)
		warn_unresolved(x.unresolved);
	formats[o->lat.format](out, &x);
	if (svg && x.ok) {
		snprintf(title, sizeof(title), "pmu-sweep: %s, %s pages, %s backend",
			 lat_pattern_name(o->lat.pattern), lat_pages_name(o->lat.pages),
			 pmuser_backend_name(s->t.backend));
		if (write_svg(svg, o->svg, tp, n, s->t.unit, &r, title))
			ret = -ENODATA;	/* said why */
	} else if (svg) {
		/* Cut short, or no whole pages left (plan() refuses fewer sizes). */
		svg_not_written(o->svg, svg, n);
		ret = -ENODATA;
	}
	free(tp);
	return ret;
}

/* The page pattern lays nodes out within pages: only sizes of whole pages. The count left. */
static size_t whole_pages(uint64_t *sizes, size_t n, size_t page)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (sizes[i] % page == 0 && sizes[i] / page >= 1)
			sizes[k++] = sizes[i];
	if (k < n)
		fprintf(stderr, TOOL ": pattern page: skipped %zu sizes that are not whole %zu-byte pages\n",
			n - k, page);
	if (!k)
		fprintf(stderr, TOOL ": pattern page: no size is a multiple of the %zu-byte page\n",
			page);
	return k;
}

/*
 * The sizes to measure (into sizes, their count in *n) and the events, checked: 0, or the
 * exit status 2 after saying why.
 */
static int plan(struct opts *o, struct sweep *s, uint64_t *sizes, size_t *n)
{
	uint64_t mem = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	char err[512], a[32];

	/* The default top size shrinks to a power of two within a quarter of small machines. */
	while (!o->max_set && o->max > mem / 4 && o->max > o->min)
		o->max /= 2;
	*n = plan_sizes(o, &s->geo, s->step, sizes);
	for (size_t i = 0; i < o->nr_sizes; i++)
		if (sizes[i] % s->step) {
			fprintf(stderr, TOOL ": --sizes: %llu is not a multiple of the %llu-byte node spacing\n",
				(unsigned long long)sizes[i], (unsigned long long)s->step);
			return 2;
		}
	if (o->lat.pattern == LAT_PAGE) {
		size_t page = lat_pages_size(o->lat.pages, err, sizeof(err));

		if (!page) {
			fprintf(stderr, TOOL ": %s\n", err);
			return 2;
		}
		for (size_t i = 0; i < o->nr_sizes; i++)
			if (lat_page_layout_check(sizes[i], page, s->step, err, sizeof(err))) {
				fprintf(stderr, TOOL ": --sizes: %s\n", err);
				return 2;
			}
		*n = whole_pages(sizes, *n, page);
		if (!*n)
			return 2;
	}
	if (!*n && !o->nr_sizes) {
		fprintf(stderr, TOOL ": no size to measure between --min %llu and --max %llu (the sweep takes 2^k and 1.5 * 2^k bytes, multiples of the %llu-byte node spacing)\n",
			(unsigned long long)o->min, (unsigned long long)o->max,
			(unsigned long long)s->step);
		return 2;
	}
	if (!*n || sizes[0] < 2 * s->step) {
		fprintf(stderr, TOOL ": sizes must hold at least 2 nodes of %llu bytes (smallest: %llu)\n",
			(unsigned long long)s->step, *n ? (unsigned long long)sizes[0] : 0ULL);
		return 2;
	}
	if (o->svg && *n < TIERS_MIN_POINTS) {
		fprintf(stderr, TOOL ": --svg: the plot needs at least %d sizes, these are %zu\n",
			TIERS_MIN_POINTS, *n);
		return 2;
	}
	if (sizes[*n - 1] > mem / 2) {
		fprintf(stderr, TOOL ": size %s is more than half the machine's memory; %s\n",
			size_format(a, sizeof(a), sizes[*n - 1]),
			o->nr_sizes ? "use smaller --sizes" : "lower --max");
		return 2;
	}
	/* A chain's node numbers are 32 bits wide (lat_chain_build()). */
	if (sizes[*n - 1] / s->step > UINT32_MAX) {
		fprintf(stderr, TOOL ": size %s holds more than 2^32 nodes %llu bytes apart; %s or widen --stride\n",
			size_format(a, sizeof(a), sizes[*n - 1]), (unsigned long long)s->step,
			o->nr_sizes ? "use smaller --sizes" : "lower --max");
		return 2;
	}
	if (o->events && pmuser_evspec_parse(o->events, lat_cpu_midr(o->lat.cpu), s->ev,
					     PMUSER_MAX_EVENTS, &s->nr_ev, err, sizeof(err))) {
		fprintf(stderr, TOOL ": --event: %s\n", err);
		return 2;
	}
	return 0;
}

/*
 * Measures each size in turn, until done or a stop signal: 0 and the sizes measured in *done,
 * or the failing measurement's error (said), the sizes measured before it in *done. Windows
 * disturbed every time at one size stop the sweep there (-EAGAIN): the sizes before it
 * stand.
 */
static int measure_all(struct sweep *s, const uint64_t *sizes, size_t n, struct point *pts,
		       size_t *done)
{
	struct lat_progress prog;
	char a[32];
	int ret;

	fprintf(stderr, TOOL ": %zu sizes from %s", n, size_format(a, sizeof(a), sizes[0]));
	fprintf(stderr, " to %s, %llu runs each, budget %g s, timer %s\n",
		size_format(a, sizeof(a), sizes[n - 1]), (unsigned long long)s->o->reps,
		s->o->budget, s->t.timer);
	s->state = s->o->lat.seed | 1;
	lat_progress_init(&prog, TOOL);
	for (*done = 0; *done < n; ++*done) {
		size_t i = *done;

		/* SIGINT or SIGTERM: the sizes measured so far are still reported. */
		if (tool_stop_signal) {
			lat_progress_done(&prog);
			fprintf(stderr, TOOL ": stopped by signal %d after %zu of %zu sizes: reporting those\n",
				(int)tool_stop_signal, i, n);
			return 0;
		}
		ret = measure_size(s, sizes[i], s->o->budget * 1e9 / (double)(n * s->o->reps),
				   &pts[i]);
		if (!ret && s->t.disturbed) {
			char outcome[96];

			lat_progress_done(&prog);
			snprintf(outcome, sizeof(outcome), "stopped at %s, %s",
				 size_format(a, sizeof(a), sizes[i]),
				 i ? "reporting the sizes before it" : "nothing reported");
			ret = lat_timer_check(&s->t, TOOL, outcome);
		}
		if (ret)
			return ret;
		lat_progress(&prog, "[%zu/%zu] %s: %.3f %s/load", i + 1, n,
			     size_format(a, sizeof(a), sizes[i]), pts[i].min, s->t.unit);
	}
	lat_progress_done(&prog);
	return 0;
}

int main(int argc, char **argv)
{
	static uint64_t sizes[MAX_SIZES];
	static struct point pts[MAX_SIZES];
	struct sweep s = { 0 };
	struct opts o;
	char err[512];
	size_t n, done;
	FILE *out = stdout, *svg = NULL;
	int ret, cut_short, status = 1;

	ret = parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (o.from)
		return from_file(&o);
	s.o = &o;
	s.step = lat_opts_place(&o.lat, &s.geo);
	ret = plan(&o, &s, sizes, &n);
	if (ret)
		return ret;
	/* Every output is opened before anything is measured: a bad path loses no run. */
	/* A path that cannot be opened is bad input, as pmu-stat has it: exit status 2. */
	if (lat_output_open(TOOL, o.lat.output, &out))
		return 2;
	if (o.svg && !(svg = open_svg(o.svg))) {
		lat_output_close(out);
		return 2;
	}
	if (o.lat.raw && !(s.raw = fopen(o.lat.raw, "w"))) {
		fprintf(stderr, TOOL ": %s: %s\n", o.lat.raw, strerror(errno));
		status = 2;
		goto out_files;
	}
	if (tool_outputs_distinct(TOOL, (FILE *const[]){ out, svg, s.raw }, (const char *const[]){
			o.lat.output ? "-o" : "standard output", "--svg", "--raw" }, 3)) {
		status = 2;
		goto out_files;
	}
	tool_stop_catch();
	ret = lat_timer_open(&s.t, o.lat.backend, o.lat.cpu, s.ev, s.nr_ev, err, sizeof(err));
	if (ret) {
		fprintf(stderr, TOOL ": %s\n", err);
		goto out_files;
	}
	ret = lat_buf_alloc(&s.buf, sizes[n - 1], o.lat.pages, err, sizeof(err));
	if (ret) {
		fprintf(stderr, TOOL ": %s\n", err);
		goto out_timer;
	}
	if (s.raw)
		fprintf(s.raw, "# pmu-sweep raw runs unit=%s\nsize,rep,loads,raw,bias,latency,ns\n",
			s.t.unit);
	lat_warn_system(stderr, TOOL, o.lat.cpu);
	ret = measure_all(&s, sizes, n, pts, &done);
	if (ret && !done)
		goto out_buf;
	/* A size that failed (said why) or was disturbed: the sizes before it are reported. */
	if (ret && ret != -EAGAIN)
		fprintf(stderr, TOOL ": reporting the %zu sizes measured before it\n", done);
	cut_short = ret;
	ret = report(&s, pts, done, out, svg);
	svg = NULL;	/* report() closed it */
	if (ret && ret != -ENODATA)
		fprintf(stderr, TOOL ": writing the report: %s\n", strerror(-ret));
	else
		status = tool_stop_status(ret || cut_short);
out_buf:
	lat_buf_free(&s.buf);
out_timer:
	lat_timer_close(&s.t);
out_files:
	if (s.raw && fclose(s.raw) && !status) {
		fprintf(stderr, TOOL ": %s: %s\n", o.lat.raw, strerror(errno));
		status = 1;
	}
	if (svg)
		fclose(svg);
	if (lat_output_close(out) && !status) {
		fprintf(stderr, TOOL ": writing the report: %s\n", strerror(errno));
		status = 1;
	}
	return status;
}
