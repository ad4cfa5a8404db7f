// SPDX-License-Identifier: MIT
/*
 * pmu-stat's reports: text laid out like rpistat.txt (raw counts, [scaled] full duty-cycle
 * estimates, periods, CPI, PTI rates, ratios, thousands separators), perf stat's -x and -I
 * lines and -v counts, CSV and JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "stat.h"
#include "tool_text.h"

bool stat_big_num = true;

const char *stat_group(char *buf, size_t len, uint64_t v)
{
	const struct lconv *lc = localeconv();
	const char *sep = !stat_big_num ? "" :
			  lc && lc->thousands_sep && *lc->thousands_sep ? lc->thousands_sep : ",";
	char digits[32];
	size_t nd, i, o = 0, seplen = strlen(sep);

	nd = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	for (i = 0; i < nd && o + seplen + 2 < len; i++) {
		if (i && (nd - i) % 3 == 0) {
			memcpy(buf + o, sep, seplen);
			o += seplen;
		}
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

static uint64_t round_u64(double v)
{
	return v <= 0 ? 0 : (uint64_t)(v + 0.5);
}

static void command_line(char *buf, size_t len, const struct stat_opts *o)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < o->argc && used + 1 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", o->argv[i]);
}

static const char *status_text(char *buf, size_t len, int status)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "%d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s), pmu-stat exits %d", WTERMSIG(status),
			 strsignal(WTERMSIG(status)), 128 + WTERMSIG(status));
	else
		snprintf(buf, len, "unknown (0x%x)", status);
	return buf;
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* "label:" padded to rpistat's column. */
static void label(FILE *f, const char *name)
{
	int pad = 21 - (int)strlen(name);

	fprintf(f, "  %s:%*s", name, pad > 1 ? pad : 1, "");
}

static void print_count(FILE *f, const struct stat_event *e, bool show_scaled, unsigned int runs)
{
	char a[40], b[40];

	label(f, e->name);
	if (!e->supported) {
		fprintf(f, "not supported (not implemented by this CPU)\n");
		return;
	}
	/* perf's <not counted>: a raw 0 here would be a count nobody measured. */
	if (e->duty <= 0) {
		fprintf(f, "not counted (never on a counter: the counters were time-shared away from it for the whole run)\n");
		return;
	}
	fprintf(f, "%s", stat_group(a, sizeof(a), e->raw));
	if (show_scaled)
		fprintf(f, "  [%s]", stat_group(b, sizeof(b), round_u64(e->scaled)));
	if (e->duty < 0.99995)
		fprintf(f, "  duty %.1f %%", 100.0 * e->duty);
	if (e->unconfirmed && !e->raw)
		fprintf(f, "  (no PMCEID to confirm the event: this CPU may not count it)");
	if (runs > 1)
		fprintf(f, "  ( +- %.2f%% )", e->stderr_pct);
	fputc('\n', f);
}

/* The closing lines perf stat prints, for readers and scripts used to them. */
static void times(FILE *f, const struct stat_result *r)
{
	fprintf(f, "\n%17.9f seconds time elapsed", (double)r->elapsed_ns / 1e9);
	if (r->runs > 1)
		fprintf(f, "  ( +- %.2f%% )", r->elapsed_stderr_pct);
	/* With -r, user and system time are means over the runs, as elapsed is. */
	fprintf(f, "\n\n%17.9f seconds user\n%17.9f seconds sys\n", tv_s(&r->ru.ru_utime),
		tv_s(&r->ru.ru_stime));
}

static void text_system(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
			const struct stat_sys *sys, const struct stat_result *r)
{
	char buf[200];
	size_t i;

	fprintf(f, "System information\n");
	label(f, "Number of processors");
	fprintf(f, "%u online\n", sys->nr_online);
	for (i = 0; i < sys->nr_cpu; i++) {
		const char *core = pmuser_core_name(sys->cpu[i].midr);

		snprintf(buf, sizeof(buf), "CPU %d", sys->cpu[i].cpu);
		label(f, buf);
		if (sys->cpu[i].midr)
			fprintf(f, "%s (MIDR 0x%08x)\n", core ? core : "unknown core",
				sys->cpu[i].midr);
		else
			fprintf(f, "%s (no MIDR)\n", sys->machine);
	}
	label(f, "PMU");
	fprintf(f, "%s\n", sys->pmu);
	label(f, "Backend");
	fprintf(f, "%s\n", r->backend_desc);
	if (r->fallback[0]) {
		label(f, "Counters unavailable");
		fprintf(f, "%s\n", r->fallback);
	}
	if (s->preset) {
		label(f, "Preset");
		fprintf(f, "%s: %s\n", s->preset->name, s->preset->summary);
	}
	if (o->mode_why[0]) {
		label(f, "Default mode");
		fprintf(f, "%s\n", o->mode_why);
	}
	if (r->runs > 1) {
		label(f, "Runs");
		fprintf(f, "%u: counts are means, +- their relative standard error\n", r->runs);
	}
	label(f, "Elapsed");
	fprintf(f, "%.3f s (user %.3f s, system %.3f s)\n", (double)r->elapsed_ns / 1e9,
		tv_s(&r->ru.ru_utime), tv_s(&r->ru.ru_stime));
	label(f, "Exit status");
	fprintf(f, "%s\n", status_text(buf, sizeof(buf), r->wait_status));
}

/* The counts, set by set, and how each set was counted. */
static void text_events(FILE *f, const struct stat_setup *s, const struct stat_result *r)
{
	char buf[64];
	unsigned int set;
	size_t i;

	fprintf(f, "\nPerformance events\n");
	if (!r->cycles.raw && r->elapsed_ns > 1000000)
		fprintf(f, "  WARNING: the cycle counter never moved while the command ran for %.3f s: this\n"
			"  machine's PMU does not count (QEMU's ARM1176 is one); the counts below are meaningless\n",
			(double)r->elapsed_ns / 1e9);
	fprintf(f, "  [ ... ] = scaled event count (full duty-cycle estimate); metrics are of these\n");
	fprintf(f, "  PTI     = per thousand instructions\n");
	label(f, "Period");
	fprintf(f, "%u ms\n", r->interval_ms);
	label(f, "Total periods");
	fprintf(f, "%u\n\n", r->total_periods);
	/* Scaled as every event is: the metrics divide by the cycles' estimate. */
	print_count(f, &r->cycles, true, r->runs);
	for (set = 0; set < s->nr_sets; set++) {
		fputc('\n', f);
		for (i = 0; i < s->nr_events; i++)
			if (s->ev[i].set == set)
				print_count(f, &s->ev[i], true, r->runs);
		snprintf(buf, sizeof(buf), "Set %u periods", set);
		label(f, buf);
		if (r->backend == STAT_MODULE)
			fprintf(f, "%u (duty %.1f %%)\n", r->set_periods[set],
				100.0 * r->set_duty[set]);
		else if (r->perf_grouped)
			fprintf(f, "%u (perf counts the set as one group)\n", r->total_periods);
		else
			fprintf(f, "%u (perf multiplexes each event on its own)\n",
				r->total_periods);
	}
}

/* The breakdown's row c as perf labels it: "CPU1", or a thread's "comm-tid". */
static const char *row_label(char *buf, size_t len, const struct stat_result *r, unsigned int c)
{
	if (r->rows_are_threads)
		snprintf(buf, len, "%s-%d", r->thread_comm[c], r->counted_cpus[c]);
	else
		snprintf(buf, len, "CPU%d", r->counted_cpus[c]);
	return buf;
}

static void text_per_cpu(FILE *f, const struct stat_setup *s, const struct stat_result *r)
{
	char buf[40], a[40], row[48];
	unsigned int c;
	size_t i;

	fprintf(f, "\nPer %s (raw [scaled])\n", r->rows_are_threads ? "thread" : "CPU");
	/* The cycle counter first, as in the counts above. */
	for (i = 0; i <= s->nr_events; i++) {
		const struct stat_event *e = i ? &s->ev[i - 1] : &r->cycles;

		if (!e->supported)
			continue;
		label(f, e->name);
		for (c = 0; c < r->nr_counted_cpus; c++)
			if (isnan(e->cpu_scaled[c]))
				fprintf(f, "  %s not counted", row_label(row, sizeof(row), r, c));
			else
				fprintf(f, "  %s %s [%s]", row_label(row, sizeof(row), r, c),
					stat_group(buf, sizeof(buf), e->cpu_raw[c]),
					stat_group(a, sizeof(a), round_u64(e->cpu_scaled[c])));
		fputc('\n', f);
	}
}

/*
 * The estimate the metrics take for an event counted by several copies, which is none of
 * the copies' own: so that every metric follows from numbers the report shows.
 */
static void text_combined(FILE *f, const struct stat_setup *s)
{
	char buf[40];
	double est;
	size_t i, k;

	for (i = 0; i < s->nr_events; i++) {
		const struct stat_event *e = &s->ev[i];
		unsigned int copies = 0;

		if (e->spec.flags != s->cycle_mode || !e->spec.name)
			continue;
		for (k = 0; k < s->nr_events; k++)
			if (s->ev[k].spec.event == e->spec.event && s->ev[k].spec.flags == e->spec.flags) {
				if (k < i)
					break;
				copies++;
			}
		if (k < s->nr_events || copies < 2 || !stat_event_estimate(s, e->spec.event, &est))
			continue;
		fprintf(f, "  %s and its %u other copies, combined: [%s] (their raw counts over their duty cycles)\n",
			e->name, copies - 1, stat_group(buf, sizeof(buf), round_u64(est)));
	}
}

int stat_report_text(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		     const struct stat_sys *sys, const struct stat_result *r)
{
	struct pmuser_metric_value m[STAT_MAX_METRICS];
	char cmd[512], tbuf[64];
	time_t started = r->started ? r->started : time(NULL);
	size_t nm, k;

	command_line(cmd, sizeof(cmd), o);
	strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y", localtime(&started));
	fprintf(f, "***************************************************************\n");
	fprintf(f, "pmu-stat: %s\n%s\n", cmd, tbuf);
	fprintf(f, "***************************************************************\n\n");
	text_system(f, o, s, sys, r);
	if (r->backend != STAT_PERF_READ && r->backend != STAT_MODULE) {
		fprintf(f, "\nPerformance events\n  none: hardware counters are unavailable (wall time only)\n");
		if (o->per_cpu)
			fprintf(f, "  per CPU: not counted (no counters)\n");
		times(f, r);
		return ferror(f) ? -EIO : 0;
	}
	text_events(f, s, r);
	nm = stat_metrics(s, r, m, STAT_MAX_METRICS);
	if (nm) {
		fprintf(f, "\nMetrics (from scaled counts)\n");
		text_combined(f, s);
	}
	for (k = 0; k < nm; k++) {
		label(f, m[k].label);
		fprintf(f, "%.3f %s\n", m[k].value, m[k].metric->unit);
	}
	if (r->nr_counted_cpus)
		text_per_cpu(f, s, r);
	times(f, r);
	return ferror(f) ? -EIO : 0;
}

/* ---- perf stat's lines: -x, -I, -v -------------------------------------------------------- */

/*
 * The metrics perf stat prints beside its generic hardware and cache events, each over
 * another of them asked for in the same mode (perf keeps its shadow counts apart by mode),
 * both by the names perf prints (struct stat_event's perf_name). fmt is -x's, text the text
 * line's, both perf's: Debian's perf 6.1, tools/perf/util/stat-shadow.c. Its cache metrics
 * are a cache's load misses over its loads (the reads it keys by cache alone), no other
 * operation's.
 */
static const struct perf_metric_rule {
	const char *event, *other;	/* other: the divisor */
	double scale;
	const char *fmt, *text, *unit;
} perf_rules[] = {
	{ "instructions", "cycles", 1.0, "%.2f", "%7.2f ", "insn per cycle" },
	{ "branch-misses", "branches", 100.0, "%.2f", "%7.2f%%", "of all branches" },
	{ "cache-misses", "cache-references", 100.0, "%.3f", "%8.3f %%", "of all cache refs" },
	{ "stalled-cycles-frontend", "cycles", 100.0, "%.2f", "%7.2f%%", "frontend cycles idle" },
	{ "stalled-cycles-backend", "cycles", 100.0, "%.2f", "%7.2f%%", "backend cycles idle" },
	{ "L1-dcache-load-misses", "L1-dcache-loads", 100.0, "%.2f", "%7.2f%%",
	  "of all L1-dcache accesses" },
	{ "L1-icache-load-misses", "L1-icache-loads", 100.0, "%.2f", "%7.2f%%",
	  "of all L1-icache accesses" },
	{ "LLC-load-misses", "LLC-loads", 100.0, "%.2f", "%7.2f%%", "of all LL-cache accesses" },
	{ "dTLB-load-misses", "dTLB-loads", 100.0, "%.2f", "%7.2f%%",
	  "of all dTLB cache accesses" },
	{ "iTLB-load-misses", "iTLB-loads", 100.0, "%.2f", "%7.2f%%",
	  "of all iTLB cache accesses" },
};

static const struct perf_metric_rule *perf_metric_at(const struct stat_setup *s, size_t i,
						     const double values[], double *value)
{
	const struct stat_event *e = &s->ev[i];
	size_t r, k;

	for (r = 0; e->perf_name[0] && r < sizeof(perf_rules) / sizeof(perf_rules[0]); r++) {
		const struct perf_metric_rule *rule = &perf_rules[r];

		if (strcmp(rule->event, e->perf_name) || isnan(values[i]))
			continue;
		for (k = 0; k < s->nr_events; k++)
			if (!strcmp(rule->other, s->ev[k].perf_name) &&
			    s->ev[k].spec.flags == e->spec.flags && !isnan(values[k]))
				break;
		if (k == s->nr_events || values[k] <= 0)
			return NULL;
		*value = rule->scale * values[i] / values[k];
		return rule;
	}
	return NULL;
}

bool stat_perf_metric(const struct stat_setup *s, size_t i, const double values[],
		      double *value, const char **fmt, const char **unit)
{
	const struct perf_metric_rule *rule = perf_metric_at(s, i, values, value);

	if (!rule)
		return false;
	*fmt = rule->fmt;
	*unit = rule->unit;
	return true;
}

/* A count perf would print as is: counted, supported, not a 0 nothing confirms. */
enum sep_value { SEP_COUNT, SEP_NOT_SUPPORTED, SEP_NOT_COUNTED, SEP_UNCONFIRMED };

/*
 * One line as perf stat -x SEP writes it: [prefix,] value, unit, event, the relative
 * standard error of the mean with -r, the counter's running time in ns, the share of its
 * enabled time it ran (100.00 where the two are equal, 0 included, as perf has it), and
 * the metric's value and unit (empty without one). Values perf would not print are
 * <not counted> and <not supported>; a 0 of an event no PMCEID confirms is <unconfirmed>,
 * since this CPU may not count it.
 */
static void sep_line(FILE *f, const char *sep, const char *prefix, const char *name,
		     enum sep_value kind, double value, double enabled, double running,
		     const struct stat_result *r, double noise, const struct stat_setup *s,
		     size_t i, const double values[])
{
	static const char *const shown[] = {
		[SEP_NOT_SUPPORTED] = "<not supported>", [SEP_NOT_COUNTED] = "<not counted>",
		[SEP_UNCONFIRMED] = "<unconfirmed>",
	};
	const char *fmt, *unit;
	double metric;

	if (prefix)
		fprintf(f, "%s%s", prefix, sep);
	if (kind == SEP_COUNT)
		fprintf(f, "%.0f", value);
	else
		fputs(shown[kind], f);
	fprintf(f, "%s%s%s", sep, sep, name);
	if (r->runs > 1 && kind == SEP_COUNT)
		fprintf(f, "%s%.2f%%", sep, noise);
	else if (r->runs > 1)
		fputs(sep, f);
	fprintf(f, "%s%.0f%s%.2f", sep, running, sep,
		running == enabled ? 100.0 : 100.0 * running / enabled);
	if (kind == SEP_COUNT && s && stat_perf_metric(s, i, values, &metric, &fmt, &unit)) {
		fputs(sep, f);
		fprintf(f, fmt, metric);
		fprintf(f, "%s%s\n", sep, unit);
	} else {
		fprintf(f, "%s%s\n", sep, sep);
	}
}

/* How event e's count on row c (-1: the total) is printed, and its value. */
static enum sep_value sep_kind(const struct stat_event *e, int c, bool counted, double *value)
{
	double v = c < 0 ? e->scaled : e->cpu_scaled[c];
	double running = c < 0 ? e->running_ns : e->cpu_running[c];
	uint64_t raw = c < 0 ? e->raw : e->cpu_raw[c];

	*value = NAN;
	if (!counted || !e->supported)
		return SEP_NOT_SUPPORTED;
	if ((c < 0 && e->duty <= 0) || (c >= 0 && (isnan(v) || running <= 0)))
		return SEP_NOT_COUNTED;
	if (e->unconfirmed && !raw)
		return SEP_UNCONFIRMED;
	*value = v;
	return SEP_COUNT;
}

/* With -o: "# started on ..." and a blank line, as perf stat -o begins its file. */
static void sep_started(FILE *f, const struct stat_opts *o, const struct stat_result *r)
{
	char tbuf[64];

	if (!o->output)
		return;
	strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y", localtime(&r->started));
	fprintf(f, "# started on %s\n\n", tbuf);
}

/*
 * perf stat -x: a line per event asked for (the cycle counter pmu-stat adds for its own
 * metrics is not one), or with -A or --per-thread per event and row, rows within events as
 * perf orders them.
 */
int stat_report_sep(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		    const struct stat_result *r)
{
	bool counted = r->backend == STAT_PERF_READ || r->backend == STAT_MODULE;
	bool rows = (o->no_aggr || o->per_thread) && r->nr_counted_cpus;
	unsigned int c, nrows = rows ? r->nr_counted_cpus : 1;
	double values[STAT_MAX_EVENTS];
	char prefix[48];
	size_t i, k;

	sep_started(f, o, r);
	for (i = 0; i < s->nr_events; i++) {
		const struct stat_event *e = &s->ev[i];

		for (c = 0; c < nrows; c++) {
			int row = rows ? (int)c : -1;
			enum sep_value kind = SEP_COUNT;

			for (k = 0; k < s->nr_events; k++) {
				enum sep_value kk = sep_kind(&s->ev[k], row, counted, &values[k]);

				if (k == i)
					kind = kk;
			}
			sep_line(f, o->separator, rows ? row_label(prefix, sizeof(prefix), r, c) : NULL,
				 e->name, kind, values[i], rows ? e->cpu_enabled[c] : e->enabled_ns,
				 rows ? e->cpu_running[c] : e->running_ns, r, e->stderr_pct, s, i,
				 values);
		}
	}
	return ferror(f) ? -EIO : 0;
}

/*
 * -I: an event's count on one row of an interval, as perf scales a delta: by its own
 * enabled / running time. NAN when it never ran in the interval.
 */
static double interval_value(const struct pmuser_count *d)
{
	if (!d->running)
		return NAN;
	return d->enabled == d->running ? (double)d->value :
	       (double)d->value * (double)d->enabled / (double)d->running;
}

/*
 * The rows' deltas of event ev added up, or row c's alone: perf scales the sum of the counts
 * by the sums of the times.
 */
static struct pmuser_count interval_sum(const struct stat_interval *iv, size_t ev, int c)
{
	struct pmuser_count sum = { 0 };
	unsigned int k;

	if (c >= 0)
		return iv->d[ev][c];
	for (k = 0; k < iv->nr_rows; k++) {
		sum.value += iv->d[ev][k].value;
		sum.enabled += iv->d[ev][k].enabled;
		sum.running += iv->d[ev][k].running;
	}
	return sum;
}

/* One event's line of an interval, perf stat -I's layout (text, or -x's fields). */
static void interval_line(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
			  const struct stat_result *r, const struct stat_interval *iv, size_t i,
			  int c, const double values[])
{
	const struct stat_event *e = &s->ev[i];
	struct pmuser_count d = interval_sum(iv, i, c);
	enum sep_value kind = !iv->counted || !e->supported ? SEP_NOT_SUPPORTED :
			      isnan(values[i]) ? SEP_NOT_COUNTED :
			      e->unconfirmed && !d.value ? SEP_UNCONFIRMED : SEP_COUNT;
	const struct perf_metric_rule *rule = NULL;
	char ts[40], row[48], count[40];
	double metric = 0;

	snprintf(ts, sizeof(ts), "%6llu.%09llu", (unsigned long long)(iv->t_ns / 1000000000u),
		 (unsigned long long)(iv->t_ns % 1000000000u));
	if (c >= 0)
		row_label(row, sizeof(row), r, (unsigned int)c);
	if (o->format == STAT_SEP) {
		fprintf(f, "%s%s", ts, o->separator);
		sep_line(f, o->separator, c >= 0 ? row : NULL, e->name, kind, values[i],
			 (double)d.enabled, (double)d.running, r, 0, s, i, values);
		return;
	}
	if (kind == SEP_COUNT)
		stat_group(count, sizeof(count), round_u64(values[i]));
	else
		snprintf(count, sizeof(count), "%s", kind == SEP_NOT_SUPPORTED ? "<not supported>" :
			 kind == SEP_NOT_COUNTED ? "<not counted>" : "<unconfirmed>");
	fprintf(f, "%s ", ts);
	if (c >= 0)
		fprintf(f, "%-*s ", r->rows_are_threads ? 25 : 10, row);
	fprintf(f, "%18s %-4s %-32s", count, "", e->name);
	if (kind == SEP_COUNT)
		rule = perf_metric_at(s, i, values, &metric);
	if (rule) {
		fputs(" # ", f);
		fprintf(f, rule->text, metric);
		fprintf(f, " %s", rule->unit);
	}
	if (kind == SEP_COUNT && d.running < d.enabled)
		fprintf(f, "  (%.2f%%)", 100.0 * (double)d.running / (double)d.enabled);
	fputc('\n', f);
}

int stat_report_interval(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
			 const struct stat_result *r, const struct stat_interval *iv,
			 unsigned int *printed)
{
	bool rows = (o->no_aggr || o->per_thread) && r->nr_counted_cpus;
	unsigned int c, nrows = rows ? r->nr_counted_cpus : 1;
	double values[STAT_MAX_EVENTS];
	size_t i, k;

	if (!*printed)
		sep_started(f, o, r);
	/* perf repeats the text header every 25 intervals. */
	if (o->format != STAT_SEP && *printed % 25 == 0)
		fprintf(f, "#           time %s%*s unit events\n",
			!rows ? "" : r->rows_are_threads ? "comm-tid                  " : "CPU        ",
			18, "counts");
	(*printed)++;
	for (i = 0; i < s->nr_events; i++) {
		for (c = 0; c < nrows; c++) {
			int row = rows ? (int)c : -1;

			for (k = 0; k < s->nr_events; k++) {
				struct pmuser_count d = interval_sum(iv, k, row);

				values[k] = iv->counted && s->ev[k].supported ?
					    interval_value(&d) : NAN;
			}
			interval_line(f, o, s, r, iv, i, row, values);
		}
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

void stat_report_verbose(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
			 const struct stat_result *r)
{
	size_t i;

	if (o->mode_why[0])
		fprintf(f, "pmu-stat: events without a mode count %s\n", o->mode_why);
	fprintf(f, "pmu-stat: %s\n", r->backend_desc);
	/* perf -v's "event: count enabled running", the cycle counter pmu-stat adds last. */
	for (i = 0; i <= s->nr_events; i++) {
		const struct stat_event *e = i < s->nr_events ? &s->ev[i] : &r->cycles;

		if (i == s->nr_events && !r->have_cycles)
			break;
		if (!e->supported)
			fprintf(f, "%s: not supported\n", e->name);
		else
			fprintf(f, "%s: %" PRIu64 " %.0f %.0f\n", e->name, e->raw, e->enabled_ns,
				e->running_ns);
	}
}

/* ---- CSV ---------------------------------------------------------------------------------- */

/*
 * An event's row. A 0 of an event no PMCEID confirms is of kind "unconfirmed", not "event":
 * this CPU may not count it at all.
 */
static void csv_event(FILE *f, const struct stat_event *e, const char *set, const char *cpu,
		      uint64_t raw, double scaled, double duty, unsigned int periods)
{
	fprintf(f, "%s,%s,%s,%s,%llu,%.0f,%.6f,%u\n",
		e->unconfirmed && !e->raw ? "unconfirmed" : "event", e->name, set, cpu,
		(unsigned long long)raw, scaled, duty, periods);
}

/*
 * The row of an event with no count, as -x has <not supported> and <not counted>: kind
 * not_supported (the CPU or the backend cannot count it) or not_counted (never on a
 * counter), the count fields empty.
 */
static void csv_uncounted(FILE *f, const struct stat_event *e, const char *set, const char *cpu,
			  bool supported)
{
	fprintf(f, "%s,%s,%s,%s,,,,\n", supported ? "not_counted" : "not_supported", e->name, set,
		cpu);
}

int stat_report_csv(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		    const struct stat_sys *sys, const struct stat_result *r)
{
	struct pmuser_metric_value m[STAT_MAX_METRICS];
	struct stat_event cycles = r->cycles;
	bool counted = r->have_cycles;
	char cmd[512], set[16], cpu[16];
	size_t nm, i, k;
	unsigned int c;

	command_line(cmd, sizeof(cmd), o);
	/* Metadata as comments; commas would break naive readers, so they become spaces. */
	for (i = 0; cmd[i]; i++)
		if (cmd[i] == ',' || cmd[i] == '\n')
			cmd[i] = ' ';
	fprintf(f, "# pmu-stat v1\n# command=%s\n# backend=%s\n# cpus_online=%u\n",
		cmd, stat_backend_label(r->backend), sys->nr_online);
	if (r->fallback[0]) {
		fprintf(f, "# counters_unavailable=");
		for (i = 0; r->fallback[i]; i++)
			fputc(r->fallback[i] == ',' || r->fallback[i] == '\n' ? ' ' : r->fallback[i],
			      f);
		fputc('\n', f);
	}
	if (r->backend == STAT_MODULE)
		fprintf(f, "# module_cpu=%d\n", r->module_cpu);
	/* With runs > 1 the counts and elapsed_ns are means over the runs. */
	fprintf(f, "# runs=%u\n# elapsed_ns=%llu\n# exit_status=%d\n# period_ms=%u\n# total_periods=%u\n",
		r->runs ? r->runs : 1, (unsigned long long)r->elapsed_ns,
		stat_exit_code(r->wait_status), r->interval_ms, r->total_periods);
	fprintf(f, "kind,name,set,cpu,raw,scaled,duty,periods\n");
	/* Wall time only (no counters): every event's row says it has no count. */
	if (!counted)
		snprintf(cycles.name, sizeof(cycles.name), "cycles");
	if (counted && cycles.duty > 0)
		csv_event(f, &cycles, "all", "all", cycles.raw, cycles.scaled, cycles.duty,
			  r->total_periods);
	else
		csv_uncounted(f, &cycles, "all", "all", counted);
	for (i = 0; i < s->nr_events; i++) {
		const struct stat_event *e = &s->ev[i];

		snprintf(set, sizeof(set), "%u", e->set);
		if (!counted || !e->supported || e->duty <= 0) {
			csv_uncounted(f, e, set, "all", counted && e->supported);
			continue;
		}
		csv_event(f, e, set, "all", e->raw, e->scaled, e->duty,
			  r->backend == STAT_MODULE ? e->periods : r->total_periods);
		for (c = 0; c < r->nr_counted_cpus; c++) {
			snprintf(cpu, sizeof(cpu), "%d", r->counted_cpus[c]);
			if (isnan(e->cpu_scaled[c]))
				csv_uncounted(f, e, set, cpu, true);
			else
				csv_event(f, e, set, cpu, e->cpu_raw[c], e->cpu_scaled[c],
					  e->cpu_scaled[c] > 0 ?
					  (double)e->cpu_raw[c] / e->cpu_scaled[c] : 0,
					  r->total_periods);
		}
	}
	nm = counted ? stat_metrics(s, r, m, STAT_MAX_METRICS) : 0;
	for (k = 0; k < nm; k++)
		fprintf(f, "metric,%s,,,,%.6f,,%s\n", m[k].label, m[k].value, m[k].metric->unit);
	return ferror(f) ? -EIO : 0;
}

/* ---- JSON --------------------------------------------------------------------------------- */

static void json_event(FILE *f, const struct stat_event *e, int set, const struct stat_result *r)
{
	unsigned int c;

	fprintf(f, "    {\"name\": ");
	tool_json_string(f, e->name);
	fprintf(f, ", \"set\": %d, \"supported\": %s, \"counted\": %s", set,
		e->supported ? "true" : "false", e->supported && e->duty > 0 ? "true" : "false");
	if (e->supported && e->duty > 0)
		fprintf(f, ", \"raw\": %llu, \"scaled\": %.0f, \"duty\": %.6f, \"periods\": %u",
			(unsigned long long)e->raw, e->scaled, e->duty,
			r->backend == STAT_MODULE && set >= 0 ? e->periods : r->total_periods);
	/* A 0 no PMCEID confirms: this CPU may not count the event at all. */
	if (e->supported && e->duty > 0 && e->unconfirmed && !e->raw)
		fprintf(f, ", \"unconfirmed\": true");
	if (e->supported && e->duty > 0 && r->nr_counted_cpus) {
		fprintf(f, ", \"per_cpu\": [");
		for (c = 0; c < r->nr_counted_cpus; c++)
			if (isnan(e->cpu_scaled[c]))
				fprintf(f, "%s{\"cpu\": %d, \"counted\": false}", c ? ", " : "",
					r->counted_cpus[c]);
			else
				fprintf(f, "%s{\"cpu\": %d, \"counted\": true, \"raw\": %llu, \"scaled\": %.0f}",
					c ? ", " : "", r->counted_cpus[c],
					(unsigned long long)e->cpu_raw[c], e->cpu_scaled[c]);
		fprintf(f, "]");
	}
	fprintf(f, "}");
}

int stat_report_json(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		     const struct stat_sys *sys, const struct stat_result *r)
{
	struct pmuser_metric_value m[STAT_MAX_METRICS];
	bool counted = r->backend == STAT_PERF_READ || r->backend == STAT_MODULE;
	size_t nm, i;
	int a;

	fprintf(f, "{\n  \"tool\": \"pmu-stat\",\n  \"command\": [");
	for (a = 0; a < o->argc; a++) {
		fprintf(f, "%s", a ? ", " : "");
		tool_json_string(f, o->argv[a]);
	}
	fprintf(f, "],\n  \"system\": {\"cpus_online\": %u, \"machine\": ", sys->nr_online);
	tool_json_string(f, sys->machine);
	fprintf(f, ", \"pmu\": ");
	tool_json_string(f, sys->pmu);
	fprintf(f, ", \"cpus\": [");
	for (i = 0; i < sys->nr_cpu; i++) {
		const char *core = pmuser_core_name(sys->cpu[i].midr);

		fprintf(f, "%s{\"cpu\": %d, \"midr\": \"0x%08x\", \"core\": ", i ? ", " : "",
			sys->cpu[i].cpu, sys->cpu[i].midr);
		if (core)
			tool_json_string(f, core);
		else
			fprintf(f, "null");
		fprintf(f, "}");
	}
	fprintf(f, "]},\n  \"backend\": ");
	tool_json_string(f, stat_backend_label(r->backend));
	fprintf(f, ",\n  \"backend_description\": ");
	tool_json_string(f, r->backend_desc);
	if (r->fallback[0]) {
		fprintf(f, ",\n  \"counters_unavailable\": ");
		tool_json_string(f, r->fallback);
	}
	if (r->backend == STAT_MODULE)
		fprintf(f, ",\n  \"module_cpu\": %d", r->module_cpu);
	if (s->preset) {
		fprintf(f, ",\n  \"preset\": ");
		tool_json_string(f, s->preset->name);
	}
	fprintf(f, ",\n  \"runs\": %u,\n  \"elapsed_ns\": %llu,\n  \"exit_status\": %d,\n  \"period_ms\": %u,\n  \"total_periods\": %u",
		r->runs ? r->runs : 1, (unsigned long long)r->elapsed_ns,
		stat_exit_code(r->wait_status), r->interval_ms, r->total_periods);
	fprintf(f, ",\n  \"user_s\": %.6f,\n  \"system_s\": %.6f", tv_s(&r->ru.ru_utime),
		tv_s(&r->ru.ru_stime));
	fprintf(f, ",\n  \"events\": [\n");
	if (counted) {
		json_event(f, &r->cycles, -1, r);
		for (i = 0; i < s->nr_events; i++) {
			fprintf(f, ",\n");
			json_event(f, &s->ev[i], (int)s->ev[i].set, r);
		}
		fputc('\n', f);
	}
	fprintf(f, "  ],\n  \"metrics\": [");
	nm = counted ? stat_metrics(s, r, m, STAT_MAX_METRICS) : 0;
	for (i = 0; i < nm; i++) {
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		tool_json_string(f, m[i].label);
		fprintf(f, ", \"value\": %.6f, \"unit\": ", m[i].value);
		tool_json_string(f, m[i].metric->unit);
		fprintf(f, "}");
	}
	fprintf(f, "%s]\n}\n", nm ? "\n  " : "");
	return ferror(f) ? -EIO : 0;
}
