// SPDX-License-Identifier: MIT
/* pmu-stat's command line. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "stat.h"
#include "tool_opts.h"


const char *stat_backend_label(enum stat_backend b)
{
	switch (b) {
	case STAT_PERF: return "perf";
	case STAT_MODULE: return "module";
	case STAT_CLOCK: return "clock";
	default: return "auto";
	}
}

int stat_fail(int ret, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* A decimal number in [0, max] spanning the whole string. */
static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int stat_parse_cpus(const char *s, int *cpus, unsigned int max)
{
	bool seen[STAT_MAX_CPUS] = { false };
	unsigned int n = 0, c;
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	while (*p) {
		unsigned long lo, hi;
		char num[16];
		size_t len = strcspn(p, ",-");

		if (!len || len >= sizeof(num))
			return -EINVAL;
		memcpy(num, p, len);
		num[len] = '\0';
		if (parse_uint(num, STAT_MAX_CPUS - 1, &lo))
			return -EINVAL;
		p += len;
		hi = lo;
		if (*p == '-') {
			p++;
			len = strcspn(p, ",");
			if (!len || len >= sizeof(num))
				return -EINVAL;
			memcpy(num, p, len);
			num[len] = '\0';
			if (parse_uint(num, STAT_MAX_CPUS - 1, &hi) || hi < lo)
				return -EINVAL;
			p += len;
		}
		if (*p == ',' && !*++p)
			return -EINVAL;	/* trailing comma */
		for (c = lo; c <= hi; c++)
			seen[c] = true;
	}
	for (c = 0; c < STAT_MAX_CPUS; c++) {
		if (!seen[c])
			continue;
		if (n >= max)
			return -EINVAL;
		cpus[n++] = (int)c;
	}
	return (int)n;
}

/* Each -e is one event set. */
static const char *parse_events(const char *arg, void *ctx)
{
	static char why[64];
	struct stat_opts *o = ctx;

	if (!*arg)
		return "an empty event list";
	if (o->nr_event_args >= STAT_MAX_SETS) {
		snprintf(why, sizeof(why), "too many event sets (-e given more than %d times)",
			 STAT_MAX_SETS);
		return why;
	}
	o->event_args[o->nr_event_args++] = arg;
	return NULL;
}

static const char *parse_interval(const char *arg, void *ctx)
{
	static char why[64];
	struct stat_opts *o = ctx;
	unsigned long v;

	if (parse_uint(arg, STAT_MAX_INTERVAL_MS, &v) || v < 1) {
		snprintf(why, sizeof(why), "the period must be 1 to %u milliseconds",
			 STAT_MAX_INTERVAL_MS);
		return why;
	}
	o->interval_ms = (unsigned int)v;
	o->interval_given = true;
	return NULL;
}

static const char *parse_cpus(const char *arg, void *ctx)
{
	static char why[64];
	struct stat_opts *o = ctx;
	int n = stat_parse_cpus(arg, o->cpus, STAT_MAX_CPUS);

	if (n <= 0) {
		snprintf(why, sizeof(why), "expected CPU numbers below %d like 0 or 0,2-3",
			 STAT_MAX_CPUS);
		return why;
	}
	o->nr_cpus = (unsigned int)n;
	return NULL;
}

static const char *parse_backend(const char *arg, void *ctx)
{
	static const char *const names[] = {
		[STAT_AUTO] = "auto", [STAT_PERF] = "perf", [STAT_MODULE] = "module",
		[STAT_CLOCK] = "clock",
	};
	struct stat_opts *o = ctx;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i] && !strcmp(arg, names[i])) {
			o->backend = (enum stat_backend)i;
			return NULL;
		}
	return "expected auto, perf, module or clock";
}

static const char *parse_separator(const char *arg, void *ctx)
{
	struct stat_opts *o = ctx;

	if (!*arg)
		return "an empty separator";
	o->separator = arg;
	return NULL;
}

static void notes(FILE *f)
{
	const struct pmuser_preset *presets;
	unsigned int n = pmuser_presets(&presets), i;

	fprintf(f, "Presets:");
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : " ", presets[i].name);
	fprintf(f,
		"\nExit status: the command's (128 + signal if it was killed, or if a signal to\n"
		"pmu-stat ended -r early); 1 counters could not be set up (or, the report written,\n"
		"counting stopped part-way), 2 bad usage, 126 command not executable, 127 command\n"
		"not found.\n");
	fprintf(f,
		"Events: a name pmu-info --events lists (any case); perf's generic names cycles,\n"
		"cpu-cycles, instructions, branches, branch-instructions, branch-misses,\n"
		"cache-references, cache-misses, bus-cycles, stalled-cycles-frontend and\n"
		"stalled-cycles-backend, as the events Linux's ARMv8 PMU driver counts for them (a\n"
		"core without that event says the name is not supported on it); a hex number, 0x1b\n"
		"or perf's raw r1b; or a CPU PMU's event as perf writes it,\n"
		"armv8_pmuv3_0/inst_retired/ or armv8_cortex_a72/event=0x8/ (event= is decimal\n"
		"unless 0x). Modifiers: :u user mode (the default, where perf's is both), :k kernel\n"
		"mode, :uk both; after a PMU's closing slash as /u, /k or /uk.\n"
		"Examples:\n"
		"  pmu-stat -e instructions:u,cycles -- ./prog\n"
		"  pmu-stat -e inst_retired,armv8_pmuv3_0/event=0x3/k -e branch-misses -- ./prog\n"
		"  pmu-stat -x, -e r1b:uk -- ./prog\n"
		"  pmu-stat --preset cache -r 5 -- ./prog\n");
}

int stat_opts_parse(int argc, char **argv, struct stat_opts *o, char *err, size_t errlen)
{
	int format = -1, first, ret;
	char interval_help[160];
	const struct tool_opt opts[] = {
		{ "events", 'e', "SPEC", "one event set, e.g. inst_retired,l1d_cache_refill (repeat -e"
		  "\nfor more sets): names from pmu-info --events, perf's names"
		  "\n(instructions, armv8_pmuv3_0/event=0x8/), 0x1b or r1b; modes"
		  "\n:u (default), :k, :uk (see Events below)",
		  TOOL_OPT_PARSE, .parse = parse_events, .ctx = o },
		{ "preset", 0, "NAME", "a named group of events, split into sets that fit the"
		  "\ncounters (default when no -e; the list below, pmu-info --presets)",
		  TOOL_OPT_STRING, .string = &o->preset, .once = true },
		{ "interval", 'I', "MS", interval_help, TOOL_OPT_PARSE, .parse = parse_interval,
		  .ctx = o },
		{ "output", 'o', "FILE", "write the report there (default: standard error)",
		  TOOL_OPT_STRING, .string = &o->output },
		{ "csv", 0, NULL, "report format (default: text, like rpistat.txt)",
		  TOOL_OPT_CHOICE, .choice = &format, .choice_value = STAT_CSV },
		{ "json", 0, NULL, NULL, TOOL_OPT_CHOICE, .choice = &format,
		  .choice_value = STAT_JSON },
		{ "field-separator", 'x', "SEP", "perf stat -x lines: value, unit, event, [+- %,]"
		  "\nrunning ns, % running (<not counted>, <not supported>)",
		  TOOL_OPT_PARSE, .parse = parse_separator, .ctx = o },
		{ "repeat", 'r', "N", "run the command N times; counts are the means, with their"
		  "\nrelative standard error (a run that fails ends them; after the first run, it is"
		  "\nleft out of the means)",
		  TOOL_OPT_NUMBER, 1, STAT_MAX_REPEAT, .value = &o->repeat },
		{ "per-cpu", 0, NULL, "per-CPU breakdown (perf: one counter per CPU and event)",
		  TOOL_OPT_FLAG, .flag = &o->per_cpu },
		{ "cpus", 'C', "LIST", "run the command on these CPUs, e.g. 0 or 0,2-3; the module"
		  "\nbackend counts exactly one CPU (default 0)",
		  TOOL_OPT_PARSE, .parse = parse_cpus, .ctx = o },
		{ "backend", 0, "B", "auto (perf, else clock), perf, module or clock",
		  TOOL_OPT_PARSE, .parse = parse_backend, .ctx = o },
		{ "periods", 0, "FILE", "per-period data: time, CPU, set, event, delta",
		  TOOL_OPT_STRING, .string = &o->periods_file },
		{ "plot", 0, "FILE", "SVG plot of event rates over time", TOOL_OPT_STRING,
		  .string = &o->plot_file },
		{ NULL },
	};
	const struct tool_cli cli = {
		.tool = "pmu-stat", .synopsis = "[options] [--] command [args...]",
		.about = "Counts a whole command (and its children) and writes an rpistat-style report.",
		.opts = opts, .notes = notes, .command = true, .err = err, .errlen = errlen,
	};

	memset(o, 0, sizeof(*o));
	o->interval_ms = STAT_DEFAULT_INTERVAL_MS;
	o->backend = STAT_AUTO;
	o->repeat = 1;
	snprintf(interval_help, sizeof(interval_help),
		 "measurement period (default %u): the module backend rotates\n"
		 "event sets every period; periods are the rows of --periods",
		 STAT_DEFAULT_INTERVAL_MS);
	ret = tool_parse(&cli, argc, argv, &first);
	if (ret == 0)
		return 1;
	if (ret == 2)
		return -EINVAL;
	if (format >= 0 && o->separator)
		return stat_fail(-EINVAL, err, errlen, "give at most one of --csv, --json and -x");
	if (format >= 0)
		o->format = (enum stat_format)format;
	if (o->separator)
		o->format = STAT_SEP;
	if (o->repeat > 1 && (o->periods_file || o->plot_file || o->per_cpu))
		return stat_fail(-EINVAL, err, errlen, "--periods, --plot and --per-cpu describe one run: not with -r");
	if (o->preset && o->nr_event_args)
		return stat_fail(-EINVAL, err, errlen, "give either -e or --preset, not both");
	if (o->preset && !pmuser_preset_find(o->preset))
		return stat_fail(-EINVAL, err, errlen, "unknown preset '%s' (see --help)", o->preset);
	if (o->backend == STAT_MODULE && o->nr_cpus > 1)
		return stat_fail(-EINVAL, err, errlen, "the module backend counts one CPU: give -C with a single CPU");
	if (o->backend == STAT_CLOCK && (o->nr_event_args || o->preset))
		return stat_fail(-EINVAL, err, errlen, "the clock backend counts no events: drop -e/--preset");
	if (o->per_cpu && o->backend == STAT_MODULE)
		return stat_fail(-EINVAL, err, errlen, "--per-cpu: the module backend counts one CPU, its counts are that CPU's");
	if (o->per_cpu && o->backend == STAT_CLOCK)
		return stat_fail(-EINVAL, err, errlen, "--per-cpu: the clock backend counts no events");
	if ((o->periods_file || o->plot_file) && o->backend == STAT_CLOCK)
		return stat_fail(-EINVAL, err, errlen, "--%s: the clock backend counts no events",
				 o->periods_file ? "periods" : "plot");
	o->argv = argv + first;
	o->argc = argc - first;
	return 0;
}
