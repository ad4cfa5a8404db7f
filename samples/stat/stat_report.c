// SPDX-License-Identifier: MIT
/*
 * pmu-stat's reports: text laid out like rpistat.txt (raw counts, [scaled] full duty-cycle
 * estimates, periods, CPI, PTI rates, ratios, thousands separators), perf stat -x lines, CSV
 * and JSON.
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

const char *stat_group(char *buf, size_t len, uint64_t v)
{
	const struct lconv *lc = localeconv();
	const char *sep = lc && lc->thousands_sep && *lc->thousands_sep ? lc->thousands_sep : ",";
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

static void text_system(FILE *f, const struct stat_setup *s, const struct stat_sys *sys,
			const struct stat_result *r)
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
	fprintf(f, "  [ ... ] = scaled event count (full duty-cycle estimate)\n");
	fprintf(f, "  PTI     = per thousand instructions\n");
	label(f, "Period");
	fprintf(f, "%u ms\n", r->interval_ms);
	label(f, "Total periods");
	fprintf(f, "%u\n\n", r->total_periods);
	print_count(f, &r->cycles, false, r->runs);
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

static void text_per_cpu(FILE *f, const struct stat_setup *s, const struct stat_result *r)
{
	char buf[40], a[40];
	unsigned int c;
	size_t i;

	fprintf(f, "\nPer CPU (raw [scaled])\n");
	label(f, "cycles");
	for (c = 0; c < r->nr_counted_cpus; c++)
		if (isnan(r->cycles.cpu_scaled[c]))
			fprintf(f, "  cpu%d not counted", r->counted_cpus[c]);
		else
			fprintf(f, "  cpu%d %s", r->counted_cpus[c],
				stat_group(buf, sizeof(buf), r->cycles.cpu_raw[c]));
	fputc('\n', f);
	for (i = 0; i < s->nr_events; i++) {
		const struct stat_event *e = &s->ev[i];

		if (!e->supported)
			continue;
		label(f, e->name);
		for (c = 0; c < r->nr_counted_cpus; c++)
			if (isnan(e->cpu_scaled[c]))
				fprintf(f, "  cpu%d not counted", r->counted_cpus[c]);
			else
				fprintf(f, "  cpu%d %s [%s]", r->counted_cpus[c],
					stat_group(buf, sizeof(buf), e->cpu_raw[c]),
					stat_group(a, sizeof(a), round_u64(e->cpu_scaled[c])));
		fputc('\n', f);
	}
}

int stat_report_text(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		     const struct stat_sys *sys, const struct stat_result *r)
{
	struct pmuser_metric_value m[STAT_MAX_METRICS];
	char cmd[512], tbuf[64];
	time_t now = time(NULL);
	size_t nm, k;

	command_line(cmd, sizeof(cmd), o);
	strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y", localtime(&now));
	fprintf(f, "***************************************************************\n");
	fprintf(f, "pmu-stat: %s\n%s\n", cmd, tbuf);
	fprintf(f, "***************************************************************\n\n");
	text_system(f, s, sys, r);
	if (r->backend != STAT_PERF && r->backend != STAT_MODULE) {
		fprintf(f, "\nPerformance events\n  none: hardware counters are unavailable (wall time only)\n");
		if (o->per_cpu)
			fprintf(f, "  per CPU: not counted (no counters)\n");
		times(f, r);
		return ferror(f) ? -EIO : 0;
	}
	text_events(f, s, r);
	nm = stat_metrics(s, r, m, STAT_MAX_METRICS);
	if (nm)
		fprintf(f, "\nMetrics (from scaled counts)\n");
	for (k = 0; k < nm; k++) {
		label(f, m[k].label);
		fprintf(f, "%.3f %s\n", m[k].value, m[k].metric->unit);
	}
	if (r->nr_counted_cpus)
		text_per_cpu(f, s, r);
	times(f, r);
	return ferror(f) ? -EIO : 0;
}

/* ---- perf stat -x ------------------------------------------------------------------------ */

/*
 * One line per counter as perf stat -x SEP writes them: value, unit, event, the relative
 * standard error of the mean with -r, running time in ns, % of the run counted, and the two
 * metric fields (empty). Values perf would not print are <not counted> and <not supported>;
 * a 0 of an event no PMCEID confirms is <unconfirmed>, since this CPU may not count it.
 */
static void sep_event(FILE *f, const char *sep, const struct stat_event *e,
		      const struct stat_result *r, bool counted)
{
	bool measured = counted && e->supported && e->duty > 0;

	if (!counted || !e->supported)
		fprintf(f, "<not supported>");
	else if (!measured)
		fprintf(f, "<not counted>");
	else if (e->unconfirmed && !e->raw)
		fprintf(f, "<unconfirmed>");
	else
		fprintf(f, "%" PRIu64, round_u64(e->scaled));
	fprintf(f, "%s%s%s", sep, sep, e->name);
	if (r->runs > 1 && measured)
		fprintf(f, "%s%.2f%%", sep, e->stderr_pct);
	else if (r->runs > 1)
		fputs(sep, f);
	fprintf(f, "%s%" PRIu64 "%s%.2f%s%s\n", sep,
		round_u64(e->duty * (double)r->elapsed_ns), sep, 100.0 * e->duty, sep, sep);
}

int stat_report_sep(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		    const struct stat_result *r)
{
	bool counted = r->backend == STAT_PERF || r->backend == STAT_MODULE;
	struct stat_event cycles = r->cycles;
	size_t i;

	if (!counted)
		snprintf(cycles.name, sizeof(cycles.name), "cycles");
	sep_event(f, o->separator, &cycles, r, counted);
	for (i = 0; i < s->nr_events; i++)
		sep_event(f, o->separator, &s->ev[i], r, counted);
	return ferror(f) ? -EIO : 0;
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
	bool counted = r->backend == STAT_PERF || r->backend == STAT_MODULE;
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
