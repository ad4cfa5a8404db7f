// SPDX-License-Identifier: MIT
/*
 * pmu-lat: latency histogram of single dependent loads.
 *
 * Each sample is one window around exactly one `ldr x, [x]` on a pointer chain (module
 * backend with the cycle counter: one asm block, serialised cycle-counter reads on both
 * sides); the bias is the same window without the load, sampled alternately with the loads
 * and subtracted (its minimum).
 * Raw values are kept (--raw). Between samples the chain advances --gap untimed steps.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lat_buf.h"
#include "lat_opts.h"
#include "lat_out.h"
#include "lat_timer.h"
#include "pmuser.h"
#include "tool_stop.h"
#include "size_suffix.h"
#include "tool_text.h"

#define TOOL "pmu-lat"
#define MAX_SAMPLES (100u * 1000 * 1000)

struct opts {
	struct lat_opts lat;
	uint64_t size, samples, warmup, gap;
	bool gap_set;
};

/* -1 to go on, or the exit status: 0 after --help, 2 after bad input. */
static void notes(FILE *f)
{
	fputs("SIGINT or SIGTERM stops the sampling and reports the samples taken; the exit status\n"
	      "is then 128 + the signal.\n", f);
}

static int parse(int argc, char **argv, struct opts *o)
{
	bool any = false;
	const struct tool_opt opts[] = {
		{ "size", 's', "BYTES", "buffer size (default 16K)", TOOL_OPT_SIZE, 1, UINT64_MAX,
		  .value = &o->size },
		LAT_OPTS_PATTERN(&o->lat, &any, "chase (random single cycle, default), stride, page"
				 "\n(random within each page), random (independent lines)"),
		{ "samples", 0, "N", "samples (default 10000)", TOOL_OPT_NUMBER, 1, MAX_SAMPLES,
		  .value = &o->samples },
		{ "warmup", 'w', "N", "unrecorded samples first (default 1000)", TOOL_OPT_NUMBER, 0,
		  MAX_SAMPLES, .value = &o->warmup },
		{ "gap", 0, "N", "untimed chase steps between samples (default min(nodes, 64))",
		  TOOL_OPT_NUMBER, 0, UINT32_MAX, .value = &o->gap, .seen = &o->gap_set },
		LAT_OPTS_COMMON(&o->lat, &any,
				"text (default), csv (histogram rows, summary in # lines), json",
				"write the report there instead of stdout",
				"every sample: index,raw,bias_raw,latency"),
		{ NULL },
	};
	const struct tool_cli cli = {
		.tool = TOOL, .opts = opts, .notes = notes,
		.about = "Histogram of single-load latencies: one dependent load per sample between two\n"
			 "serialised counter reads, minus the bias of the same sequence without the load.",
	};
	char why[128];
	int first, ret;

	*o = (struct opts){ .size = 16384, .samples = 10000, .warmup = 1000 };
	lat_opts_init(&o->lat);
	ret = tool_parse(&cli, argc, argv, &first);
	if (ret >= 0)
		return ret;
	if (lat_opts_check(&o->lat, why, sizeof(why)))
		return tool_bad(TOOL, "%s", why);
	if (o->gap_set && o->lat.pattern == LAT_RANDOM)
		return tool_bad(TOOL, "--gap is chase steps between samples: --pattern random loads at random lines and has none");
	tool_stop_catch();
	return -1;
}

struct result {
	int64_t *lat;		/* corrected, sorted by lat_stats_compute */
	uint64_t *raw, *bias_raw;
	struct lat_stats st, bias_st;
	uint64_t bias;
};

static void print_hist(FILE *f, const struct result *r, const char *unit)
{
	int64_t lo = r->st.min, hi = r->st.p99 > lo ? r->st.p99 : r->st.max;
	int64_t width = (hi - lo) / 40 + 1;
	size_t i = 0, above = 0, peak = 0, nb = (size_t)((hi - lo) / width + 1);
	size_t *count = calloc(nb, sizeof(*count));

	if (!count)
		return;
	for (i = 0; i < r->st.n; i++) {
		if (r->lat[i] > hi) {
			above++;
			continue;
		}
		size_t b = (size_t)((r->lat[i] - lo) / width);

		if (++count[b] > peak)
			peak = count[b];
	}
	fprintf(f, "histogram (%s, bias-corrected):\n", unit);
	for (size_t b = 0; b < nb; b++) {
		int bar = (int)((count[b] * 50 + peak - 1) / peak);

		if (!count[b])
			continue;
		if (width == 1)
			fprintf(f, "  %10lld  %9zu  %.*s\n", (long long)(lo + (int64_t)b),
				count[b], bar, "##################################################");
		else
			fprintf(f, "  %5lld..%-5lld %8zu  %.*s\n", (long long)(lo + (int64_t)b * width),
				(long long)(lo + (int64_t)(b + 1) * width - 1), count[b], bar,
				"##################################################");
	}
	if (above)
		fprintf(f, "  %10s  %9zu  (above %lld, up to %lld)\n", "tail", above, (long long)hi,
			(long long)r->st.max);
	free(count);
}

/* Histogram rows for CSV/JSON: (value, count) runs of the sorted latencies. */
static void each_value(const struct result *r, FILE *f, const char *fmt_first,
		       const char *fmt_rest)
{
	size_t i = 0, k = 0;

	while (i < r->st.n) {
		size_t j = i;

		while (j < r->st.n && r->lat[j] == r->lat[i])
			j++;
		fprintf(f, k++ ? fmt_rest : fmt_first, (long long)r->lat[i], j - i);
		i = j;
	}
}

/* Why the clock cannot resolve these latencies, for stderr and the text report alike. */
static const char *lat_unresolved_why(char *buf, size_t len, int64_t median, int64_t quantum)
{
	if (quantum)
		snprintf(buf, len, "the median latency (%lld ns) is no more than the smallest step the clock shows (%lld ns): these latencies are below what the timer resolves",
			 (long long)median, (long long)quantum);
	else
		snprintf(buf, len, "the clock did not move across any sample: these latencies are below what the timer resolves");
	return buf;
}

/* Refuses sizes the pattern cannot lay out: 0, or the exit status 2 after saying why. */
static int check_size(const struct opts *o, uint64_t step)
{
	char why[160];

	if (o->lat.pattern == LAT_STRIDE && o->lat.stride > o->size / 2) {
		fprintf(stderr, TOOL ": stride %llu is more than half the size %llu\n",
			(unsigned long long)o->lat.stride, (unsigned long long)o->size);
		return 2;
	}
	if (o->size / step < 2) {
		fprintf(stderr, TOOL ": size %llu is too small: need at least 2 nodes of %llu bytes\n",
			(unsigned long long)o->size, (unsigned long long)step);
		return 2;
	}
	if (o->lat.pattern == LAT_PAGE) {
		size_t page = lat_pages_size(o->lat.pages, why, sizeof(why));

		if (!page || lat_page_layout_check(o->size, page, step, why, sizeof(why))) {
			fprintf(stderr, TOOL ": %s\n", why);
			return 2;
		}
	}
	if (o->size > (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE) / 2) {
		fprintf(stderr, TOOL ": size %llu is more than half the machine's memory\n",
			(unsigned long long)o->size);
		return 2;
	}
	return 0;
}

/*
 * One full traversal warms caches and TLBs; then warm-up samples are thrown away. Each sample
 * is a timed load and the same window without it. Returns the samples recorded: all of them,
 * or those before SIGINT or SIGTERM asked to stop.
 */
static uint64_t take_samples(const struct opts *o, struct lat_timer *t, const struct lat_buf *buf,
			     const struct lat_chain *chain, struct result *r)
{
	uint64_t state = o->lat.seed ^ 0x5eed;
	void **p = lat_chase(chain->start, chain->nodes);

	for (uint64_t i = 0; i < o->warmup + o->samples; i++) {
		uint64_t raw, empty;

		if (tool_stop_signal)
			return i > o->warmup ? i - o->warmup : 0;
		if (o->lat.pattern == LAT_RANDOM) {
			void **q = (void **)((char *)buf->mem +
					     (lat_rand(&state) % chain->nodes) * chain->step);

			raw = lat_time_load(t, &q);
		} else {
			p = lat_chase(p, o->gap);
			raw = lat_time_load(t, &p);
		}
		empty = lat_time_empty(t);
		if (i >= o->warmup) {
			r->raw[i - o->warmup] = raw;
			r->bias_raw[i - o->warmup] = empty;
		}
	}
	return o->samples;
}

/*
 * Takes the samples; o->samples becomes the number taken when SIGINT or SIGTERM stopped the
 * sampling, which is said. Whether there are any to report.
 */
static bool sampled(struct opts *o, struct lat_timer *t, const struct lat_buf *buf,
		    const struct lat_chain *chain, struct result *r)
{
	uint64_t taken = take_samples(o, t, buf, chain, r);

	if (taken == o->samples)
		return true;
	fprintf(stderr, TOOL ": stopped by signal %d after %" PRIu64 " of %" PRIu64 " samples%s\n",
		(int)tool_stop_signal, taken, o->samples,
		taken ? ": reporting those" : ": nothing to report");
	o->samples = taken;
	return taken > 0;
}

/*
 * The bias is the cheapest empty window, as the load can never be faster than nothing; the
 * latencies are the samples less it. 0, or -ENOMEM.
 */
static int summarise(uint64_t n, struct result *r)
{
	int64_t *b = malloc(n * sizeof(*b));

	if (!b)
		return -ENOMEM;
	r->bias = UINT64_MAX;
	for (uint64_t i = 0; i < n; i++)
		if (r->bias_raw[i] < r->bias)
			r->bias = r->bias_raw[i];
	for (uint64_t i = 0; i < n; i++) {
		r->lat[i] = (int64_t)(r->raw[i] - r->bias);
		b[i] = (int64_t)r->bias_raw[i];
	}
	lat_stats_compute(b, n, &r->bias_st);
	free(b);
	lat_stats_compute(r->lat, n, &r->st);
	return 0;
}

/* Every sample into --raw's file rf (opened before measuring), closed: 0, or -1 after saying why. */
static int write_raw(FILE *rf, const char *path, const char *unit, uint64_t n,
		     const struct result *r)
{
	fprintf(rf, "# pmu-lat raw samples unit=%s bias=%llu\nindex,raw,bias_raw,latency\n", unit,
		(unsigned long long)r->bias);
	/* r->lat is sorted: each sample's own latency is its raw value less the bias. */
	for (uint64_t i = 0; i < n; i++)
		fprintf(rf, "%llu,%llu,%llu,%lld\n", (unsigned long long)i,
			(unsigned long long)r->raw[i], (unsigned long long)r->bias_raw[i],
			(long long)(r->raw[i] - r->bias));
	if (fclose(rf)) {
		fprintf(stderr, TOOL ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The clock backend's samples come in the clock's steps (plus the reads' jitter). When the
 * median is no more than the smallest step the samples show, the clock cannot tell a load
 * from the next step: the histogram shows the clock, not latencies. NULL, or why in why.
 */
static const char *unresolved_why(const struct lat_timer *t, uint64_t n, const struct result *r,
				  char *why, size_t len)
{
	int64_t quantum = 0;

	for (uint64_t i = 0; i < n; i++) {
		int64_t v = r->lat[i] < 0 ? -r->lat[i] : r->lat[i];

		if (v && (!quantum || v < quantum))
			quantum = v;
	}
	if (t->backend != PMUSER_BACKEND_CLOCK || r->st.median > quantum)
		return NULL;
	return lat_unresolved_why(why, len, r->st.median, quantum);
}

/* What a report says besides the samples. */
struct report {
	const struct opts *o;
	const struct lat_timer *t;
	const struct lat_geometry *geo;
	const struct lat_buf *buf;
	const struct lat_chain *chain;
	const struct result *r;
	const char *unresolved;		/* NULL: the timer resolves the loads */
};

static void report_text(FILE *out, const struct report *x)
{
	const struct lat_stats *s = &x->r->st;
	double pred = lat_predict_single(x->t);
	char szb[32];

	fprintf(out, "backend: %s; timer: %s\n", pmuser_backend_name(x->t->backend), x->t->timer);
	fprintf(out, "sample: %s\n", x->t->method);
	fprintf(out, "buffer: %s, %zu nodes %zu bytes apart (line %u bytes, %s), "
		"pattern %s, %s pages (%zu bytes), seed %llu, CPU %d\n",
		size_format(szb, sizeof(szb), x->o->size), x->chain->nodes, x->chain->step,
		x->geo->line, x->geo->line_source, lat_pattern_name(x->o->lat.pattern),
		lat_pages_name(x->o->lat.pages), x->buf->page, (unsigned long long)x->o->lat.seed,
		x->o->lat.cpu);
	fprintf(out, "bias (same sequence without the load): min %lld, median %lld, "
		"max %lld %s; subtracted %llu\n", (long long)x->r->bias_st.min,
		(long long)x->r->bias_st.median, (long long)x->r->bias_st.max, x->t->unit,
		(unsigned long long)x->r->bias);
	if (pred > 0)
		fprintf(out, "icount prediction: %g instruction per sample (the load alone)\n", pred);
	else
		fprintf(out, "icount prediction: none (the samples are library region reads on the %s backend)\n",
			pmuser_backend_name(x->t->backend));
	fprintf(out, "latency (%s, bias-corrected), %zu samples after %llu warm-up:\n",
		x->t->unit, s->n, (unsigned long long)x->o->warmup);
	fprintf(out, "  min %lld  mode %lld  median %lld  p90 %lld  p99 %lld  max %lld  "
		"mean %.2f\n", (long long)s->min, (long long)s->mode, (long long)s->median,
		(long long)s->p90, (long long)s->p99, (long long)s->max, s->mean);
	if (x->unresolved)
		fprintf(out, "warning: %s\n", x->unresolved);
	print_hist(out, x->r, x->t->unit);
}

static void report_csv(FILE *out, const struct report *x)
{
	const struct lat_stats *s = &x->r->st;
	char pred[32];

	fprintf(out, "# pmu-lat v1 unit=%s\n# backend=%s\n# timer=%s\n# sample=%s\n"
		"# size=%llu\n# pattern=%s\n# step=%zu\n# line=%u\n# pages=%s\n"
		"# cpu=%d\n# samples=%zu\n# bias=%llu\n# bias_median=%lld\n"
		"# predicted=%s\n# min=%lld\n# mode=%lld\n# median=%lld\n# p90=%lld\n"
		"# p99=%lld\n# max=%lld\n# resolved=%s\nlatency,count\n", x->t->unit,
		pmuser_backend_name(x->t->backend), x->t->timer, x->t->method,
		(unsigned long long)x->o->size, lat_pattern_name(x->o->lat.pattern),
		x->chain->step, x->geo->line, lat_pages_name(x->o->lat.pages), x->o->lat.cpu, s->n,
		(unsigned long long)x->r->bias, (long long)x->r->bias_st.median,
		lat_predicted(pred, sizeof(pred), lat_predict_single(x->t), "none"),
		(long long)s->min, (long long)s->mode,
		(long long)s->median, (long long)s->p90, (long long)s->p99, (long long)s->max,
		x->unresolved ? "no" : "yes");
	each_value(x->r, out, "%lld,%zu\n", "%lld,%zu\n");
}

static void report_json(FILE *out, const struct report *x)
{
	const struct lat_stats *s = &x->r->st;
	char pred[32];

	fprintf(out, "{\"tool\": \"pmu-lat\", \"unit\": \"%s\", \"backend\": \"%s\", "
		"\"timer\": ", x->t->unit, pmuser_backend_name(x->t->backend));
	tool_json_string(out, x->t->timer);
	fprintf(out, ", \"sample\": ");
	tool_json_string(out, x->t->method);
	fprintf(out, ",\n \"size\": %llu, \"pattern\": \"%s\", \"step\": %zu, "
		"\"line\": %u, \"pages\": \"%s\", \"cpu\": %d,\n \"bias\": %llu, "
		"\"bias_median\": %lld, \"predicted\": %s,\n \"samples\": %zu, "
		"\"min\": %lld, \"mode\": %lld, \"median\": %lld, \"p90\": %lld, "
		"\"p99\": %lld, \"max\": %lld, \"mean\": %.3f,\n \"histogram\": [",
		(unsigned long long)x->o->size, lat_pattern_name(x->o->lat.pattern), x->chain->step,
		x->geo->line, lat_pages_name(x->o->lat.pages), x->o->lat.cpu,
		(unsigned long long)x->r->bias, (long long)x->r->bias_st.median,
		lat_predicted(pred, sizeof(pred), lat_predict_single(x->t), "null"), s->n,
		(long long)s->min, (long long)s->mode,
		(long long)s->median, (long long)s->p90, (long long)s->p99, (long long)s->max,
		s->mean);
	each_value(x->r, out, "[%lld, %zu]", ", [%lld, %zu]");
	/* As the CSV's "# resolved": whether the timer resolves these latencies, and why not. */
	fprintf(out, "],\n \"resolved\": %s", x->unresolved ? "false" : "true");
	if (x->unresolved) {
		fprintf(out, ", \"unresolved_why\": ");
		tool_json_string(out, x->unresolved);
	}
	fprintf(out, "}\n");
}

/* Room for every sample: latency, raw reading and bias reading. */
static int result_alloc(struct result *r, uint64_t samples)
{
	r->lat = malloc(samples * sizeof(*r->lat));
	r->raw = malloc(samples * sizeof(*r->raw));
	r->bias_raw = malloc(samples * sizeof(*r->bias_raw));
	if (r->lat && r->raw && r->bias_raw)
		return 0;
	fprintf(stderr, TOOL ": out of memory for %llu samples\n", (unsigned long long)samples);
	return -ENOMEM;
}

static void result_free(struct result *r)
{
	free(r->lat);
	free(r->raw);
	free(r->bias_raw);
}

int main(int argc, char **argv)
{
	static void (*const reports[])(FILE *, const struct report *) = {
		[LAT_TEXT] = report_text, [LAT_CSV] = report_csv, [LAT_JSON] = report_json,
	};
	char err[512], why[200];
	struct lat_geometry geo;
	struct lat_timer t;
	struct lat_buf buf;
	struct lat_chain chain;
	struct result r = { 0 };
	struct report x;
	struct opts o;
	uint64_t step;
	FILE *out = stdout, *rf = NULL;
	int ret, status = 1;

	ret = parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	step = lat_opts_place(&o.lat, &geo);
	ret = check_size(&o, step);
	if (ret)
		return ret;
	if (!o.gap_set)
		o.gap = o.size / step < 64 ? o.size / step : 64;

	/* Every output is opened before anything is measured: a bad path costs no run. */
	/* A path that cannot be opened is bad input, as pmu-stat has it: exit status 2. */
	if (o.lat.raw && !(rf = fopen(o.lat.raw, "w"))) {
		fprintf(stderr, TOOL ": %s: %s\n", o.lat.raw, strerror(errno));
		return 2;
	}
	if (lat_output_open(TOOL, o.lat.output, &out)) {
		status = 2;
		goto out_files;
	}
	if (tool_outputs_distinct(TOOL, (FILE *const[]){ rf, out }, (const char *const[]){
			"--raw", o.lat.output ? "-o" : "standard output" }, 2)) {
		status = 2;
		goto out_files;
	}
	ret = lat_timer_open(&t, o.lat.backend, o.lat.cpu, NULL, 0, err, sizeof(err));
	if (ret) {
		fprintf(stderr, TOOL ": %s\n", err);
		goto out_files;
	}
	ret = lat_buf_alloc(&buf, o.size, o.lat.pages, err, sizeof(err));
	if (!ret)
		ret = lat_chain_build(&buf, o.lat.pattern, step, o.lat.seed, &chain, err, sizeof(err));
	if (ret) {
		fprintf(stderr, TOOL ": %s\n", err);
		goto out_timer;
	}
	if (result_alloc(&r, o.samples))
		goto out_buf;
	lat_warn_system(stderr, TOOL, o.lat.cpu);
	status = tool_stop_status(1);	/* 128 + the signal once one stopped the sampling */
	if (!sampled(&o, &t, &buf, &chain, &r))
		goto out_buf;
	if (lat_timer_check(&t, TOOL, "nothing reported") || summarise(o.samples, &r))
		goto out_buf;
	x = (struct report){ &o, &t, &geo, &buf, &chain, &r,
			     unresolved_why(&t, o.samples, &r, why, sizeof(why)) };
	if (x.unresolved)
		fprintf(stderr, TOOL ": warning: %s; use the module or a perf backend (cycle counter)\n",
			x.unresolved);
	reports[o.lat.format](out, &x);
	ret = lat_output_close(out);
	out = NULL;
	status = tool_stop_status(0);
	if (ret) {
		fprintf(stderr, TOOL ": writing the report: %s\n", strerror(errno));
		status = 1;
	}
	/* After the report: a raw file that cannot be written loses no summary. */
	if (rf && write_raw(rf, o.lat.raw, t.unit, o.samples, &r))
		status = 1;
	rf = NULL;
out_buf:
	result_free(&r);
	lat_buf_free(&buf);
out_timer:
	lat_timer_close(&t);
out_files:
	if (rf)
		fclose(rf);
	if (out)
		lat_output_close(out);
	return status;
}
