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
	case STAT_PERF_READ: return pmuser_backend_name(PMUSER_BACKEND_PERF_READ);
	case STAT_MODULE: return pmuser_backend_name(PMUSER_BACKEND_MODULE);
	case STAT_CLOCK: return pmuser_backend_name(PMUSER_BACKEND_CLOCK);
	default: return pmuser_backend_name(PMUSER_BACKEND_AUTO);
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

int stat_parse_pids(const char *s, pid_t *pids, unsigned int max)
{
	unsigned int n = 0;
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	while (*p) {
		unsigned long v;
		char num[16];
		size_t len = strcspn(p, ",");

		if (!len || len >= sizeof(num) || n >= max)
			return -EINVAL;
		memcpy(num, p, len);
		num[len] = '\0';
		if (parse_uint(num, INT_MAX, &v) || !v)
			return -EINVAL;
		pids[n++] = (pid_t)v;
		p += len;
		if (*p == ',' && !*++p)
			return -EINVAL;	/* trailing comma */
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

static const char *parse_print(const char *arg, void *ctx)
{
	static char why[80];
	struct stat_opts *o = ctx;
	unsigned long v;

	if (parse_uint(arg, STAT_MAX_INTERVAL_MS, &v) || v < STAT_MIN_PRINT_MS) {
		snprintf(why, sizeof(why), "the interval must be %u to %u milliseconds (perf's least is %u)",
			 STAT_MIN_PRINT_MS, STAT_MAX_INTERVAL_MS, STAT_MIN_PRINT_MS);
		return why;
	}
	o->print_ms = (unsigned int)v;
	return NULL;
}

static const char *cpus_into(const char *arg, int *cpus, unsigned int *nr)
{
	static char why[64];
	int n = stat_parse_cpus(arg, cpus, STAT_MAX_CPUS);

	if (n <= 0) {
		snprintf(why, sizeof(why), "expected CPU numbers below %d like 0 or 0,2-3",
			 STAT_MAX_CPUS);
		return why;
	}
	*nr = (unsigned int)n;
	return NULL;
}

static const char *parse_cpus(const char *arg, void *ctx)
{
	struct stat_opts *o = ctx;

	return cpus_into(arg, o->cpus, &o->nr_cpus);
}

static const char *parse_pin_cpus(const char *arg, void *ctx)
{
	struct stat_opts *o = ctx;

	return cpus_into(arg, o->pin_cpus, &o->nr_pin_cpus);
}

static const char *pids_into(struct stat_opts *o, const char *arg, bool tids)
{
	static char why[64];
	int n = stat_parse_pids(arg, o->pids, STAT_MAX_TARGETS);

	if (n <= 0) {
		snprintf(why, sizeof(why), "expected up to %d %s ids like 123 or 123,456",
			 STAT_MAX_TARGETS, tids ? "thread" : "process");
		return why;
	}
	o->nr_pids = (unsigned int)n;
	o->pids_are_tids = tids;
	return NULL;
}

static const char *parse_pids(const char *arg, void *ctx)
{
	return pids_into(ctx, arg, false);
}

static const char *parse_tids(const char *arg, void *ctx)
{
	return pids_into(ctx, arg, true);
}

/* The library's backend names (pmuser_backend_parse()), but for perf-mmap. */
static const char *parse_backend(const char *arg, void *ctx)
{
	struct stat_opts *o = ctx;
	enum pmuser_backend b;

	if (pmuser_backend_parse(arg, &b))
		return "unknown backend (want auto, module, perf-read or clock)";
	switch (b) {
	case PMUSER_BACKEND_PERF_MMAP:
		return "perf's mmap self-read reads only the calling thread's own counters, and "
		       "pmu-stat counts another process: use perf-read";
	case PMUSER_BACKEND_PERF_READ:
		o->backend = STAT_PERF_READ;
		break;
	case PMUSER_BACKEND_MODULE:
		o->backend = STAT_MODULE;
		break;
	case PMUSER_BACKEND_CLOCK:
		o->backend = STAT_CLOCK;
		break;
	default:
		o->backend = STAT_AUTO;
		break;
	}
	return NULL;
}

/* -f: the report's format; given, it excludes -x, perf stat's lines. */
static const char *parse_format(const char *arg, void *ctx)
{
	static const char *const names[] = {
		[STAT_TEXT] = "text", [STAT_CSV] = "csv", [STAT_JSON] = "json",
	};
	int *format = ctx;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(arg, names[i])) {
			*format = (int)i;
			return NULL;
		}
	return "unknown format (want text, csv or json)";
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
		"stalled-cycles-backend, and its cache names as perf composes them\n"
		"(L1-dcache-loads, L1-dcache-load-misses, L1-dcache-stores, L1-icache-loads,\n"
		"LLC-loads, LLC-load-misses, dTLB-loads, iTLB-load-misses, branch-loads, ..., and\n"
		"perf's other spellings: l1d-misses), as the events Linux's PMU driver for the\n"
		"core counts for them (ARMv8's; on ARMv7 cores and the ARM1176 that core's map,\n"
		"with ARMv7's cycles the CPU_CYCLES event); a name the core's map has no event for\n"
		"is not supported on it; a hex number, 0x1b or perf's raw r1b; or a CPU PMU's\n"
		"event as perf writes it, armv8_pmuv3_0/inst_retired/ or\n"
		"armv8_cortex_a72/event=0x8/ (event= is decimal unless 0x).\n"
		"Detailed: -d, -dd and -ddd add perf stat's detailed events (Debian's perf 6.1's)\n"
		"to the events -e or the preset (the default one without -e) asks for:\n"
		"L1-dcache-loads, L1-dcache-load-misses, LLC-loads and LLC-load-misses; with -dd\n"
		"also L1-icache-, dTLB- and iTLB-loads and -load-misses; with -ddd also\n"
		"L1-dcache-prefetches and -prefetch-misses. Each counts the default mode, in sets\n"
		"of their own after the others, a cache's loads and misses in one set. One the\n"
		"core's driver has no event for, or the CPU does not implement, is reported not\n"
		"supported, as perf prints <not supported>; none is dropped.\n"
		"Modes: :u user, :k kernel, :uk both (after a PMU's closing slash /u, /k, /uk).\n"
		"Without one an event counts perf's default: user and kernel where the kernel lets\n"
		"this user count kernel mode (perf_event_paranoid <= 1, CAP_PERFMON or\n"
		"CAP_SYS_ADMIN), else user only, as perf falls back to :u. Every row names its\n"
		"mode: instructions:uk, instructions:u.\n"
		"What is counted: by default the command and its children, wherever they run. -a\n"
		"and -C count every task on the CPUs instead (perf's system-wide, which needs\n"
		"perf_event_paranoid <= 0 or CAP_PERFMON), -p and -t those threads; each for as long\n"
		"as the command runs (perf's count until Ctrl-C, without a command, is refused).\n"
		"How often counts are read is --read-period MS; the CPUs the command may run on,\n"
		"--pin-cpus LIST. Each -e is one event set, and so is each of perf's groups in it\n"
		"({a,b}, {a,b}:u); perf opens a set as one group where the PMU holds it at once,\n"
		"the module backend takes sets in turns.\n"
		"Examples:\n"
		"  pmu-stat -e instructions:u,cycles:u -- ./prog\n"
		"  pmu-stat -e inst_retired,armv8_pmuv3_0/event=0x3/k -e branch-misses -- ./prog\n"
		"  pmu-stat -x, -e r1b:uk -- ./prog\n"
		"  pmu-stat -e '{instructions,cycles}:u,{branches,branch-misses}:u' -- ./prog\n"
		"  pmu-stat -a -A -I 1000 -x, -e instructions -- sleep 5\n"
		"  pmu-stat -dd -- ./prog\n"
		"  pmu-stat --preset cache -r 5 -- ./prog\n");
}

/* What a command line asks for that pmu-stat refuses, or NULL; format: -f's, or -1. */
static const char *refused(const struct stat_opts *o, int format)
{
	bool sys = stat_system_wide(o), tables = format == STAT_CSV || format == STAT_JSON;

	if (format >= 0 && o->separator)
		return "give -f or -x, not both (-x writes perf stat's lines)";
	if (o->repeat > 1 && (o->periods_file || o->svg_file || o->per_cpu))
		return "--periods, --svg and --per-cpu describe one run: not with -r";
	if (o->preset && o->nr_event_args)
		return "give either -e or --preset, not both";
	if (o->print_ms && tables)
		return "-I prints perf stat's interval lines, as text or with -x, not -f csv or json (--periods FILE keeps every period's counts)";
	if (o->print_ms && o->repeat > 1)
		return "-I with -r is not implemented: give one of them";
	if (o->print_ms && o->interval_given)
		return "-I reads the counters every interval: drop --read-period";
	if (o->print_ms && o->per_cpu)
		return "-I with --per-cpu is not implemented (with -a or -C, -A gives a row per CPU)";
	if (o->no_aggr && !sys)
		return "-A (--no-aggr) gives a row per CPU of -a or -C, as in perf (--per-cpu breaks the command's own counts down by CPU)";
	if (o->per_cpu && sys)
		return "--per-cpu breaks the command's counts down by CPU: with -a or -C, -A gives a row per CPU";
	if (o->nr_pids && sys)
		return "-p/-t count those threads, -a/-C every task on CPUs: give one of them";
	if (o->nr_pids && o->per_cpu)
		return "--per-cpu breaks the command's counts down by CPU: not with -p/-t";
	if (o->per_thread && !o->nr_pids)
		return "--per-thread gives a row per thread of -p or -t (perf's per-thread counting of every task, without them, is not implemented)";
	if (o->per_thread && tables)
		return "--per-thread rows are in the text report and -x lines, not in -f csv or json";
	if (o->backend == STAT_MODULE && (sys || o->nr_pids))
		return "the module backend counts the one CPU it pins the command to (--pin-cpus); -a, -C, -p and -t count through perf (--backend perf-read)";
	if (o->backend == STAT_MODULE && o->print_ms)
		return "-I: the module backend time-shares its event sets, so an interval would count some of them only: use --backend perf-read";
	if (o->backend == STAT_MODULE && o->nr_pin_cpus > 1)
		return "the module backend counts one CPU: give --pin-cpus with a single CPU";
	if (o->backend == STAT_CLOCK && (o->nr_event_args || o->preset || o->detailed))
		return "the clock backend counts no events: drop -e/--preset/-d";
	if (o->per_cpu && o->backend == STAT_MODULE)
		return "--per-cpu: the module backend counts one CPU, its counts are that CPU's";
	if (o->per_cpu && o->backend == STAT_CLOCK)
		return "--per-cpu: the clock backend counts no events";
	if (o->periods_file && o->backend == STAT_CLOCK)
		return "--periods: the clock backend counts no events";
	if (o->svg_file && o->backend == STAT_CLOCK)
		return "--svg: the clock backend counts no events";
	return NULL;
}

/* What the tables' options write besides o. */
struct parse_extra {
	int format;				/* -f: STAT_TEXT, _CSV or _JSON, or -1 */
	bool p_given, t_given;
	char period_help[160];
};

/* The options perf stat has too, meaning what they mean there, into t: how many. */
static size_t perf_options(struct tool_opt *t, struct stat_opts *o, struct parse_extra *x)
{
	const struct tool_opt opts[] = {
		{ "event", 'e', "SPEC", "one event set, e.g. instructions,branch-misses (repeat"
		  "\n-e for more sets): perf's names, pmu-info --events names,"
		  "\n0x1b or r1b; modes :u, :k, :uk (see Modes below)",
		  TOOL_OPT_PARSE, .parse = parse_events, .ctx = o },
		{ "detailed", 'd', NULL, "perf stat's detailed events besides the others: -d"
		  "\nL1-dcache and LLC loads and load misses, -dd L1-icache,"
		  "\ndTLB and iTLB ones too, -ddd L1-dcache prefetches too"
		  "\n(see Detailed below)",
		  TOOL_OPT_COUNT, .max = 3, .value = &o->detailed },
		{ "field-separator", 'x', "SEP", "perf stat -x lines of the events asked for: value,"
		  "\nunit, event, [+- %,] run ns, % running, metric, unit",
		  TOOL_OPT_PARSE, .parse = parse_separator, .ctx = o },
		{ "output", 'o', "FILE", "write the report there (default: standard error)",
		  TOOL_OPT_STRING, .string = &o->output },
		{ "repeat", 'r', "N", "run the command N times; counts are the means, with their"
		  "\nrelative standard error (a failing run ends them, said on"
		  "\nstandard error; after the first, it is left out of the means)",
		  TOOL_OPT_NUMBER, 1, STAT_MAX_REPEAT, .value = &o->repeat },
		{ "interval-print", 'I', "MS", "print the counts of every MS ms (10 or more) as perf"
		  "\nstat -I, the last partial interval too, no totals; text or -x",
		  TOOL_OPT_PARSE, .parse = parse_print, .ctx = o },
		{ "all-cpus", 'a', NULL, "count every task on every CPU (system-wide)",
		  TOOL_OPT_FLAG, .flag = &o->all_cpus },
		{ "cpu", 'C', "LIST", "count every task on these CPUs, e.g. 0 or 0,2-3",
		  TOOL_OPT_PARSE, .parse = parse_cpus, .ctx = o },
		{ "no-aggr", 'A', NULL, "a row per CPU of -a or -C", TOOL_OPT_FLAG,
		  .flag = &o->no_aggr },
		{ "pid", 'p', "PIDS", "count these processes while the command runs",
		  TOOL_OPT_PARSE, .parse = parse_pids, .ctx = o, .seen = &x->p_given },
		{ "tid", 't', "TIDS", "count these threads while the command runs",
		  TOOL_OPT_PARSE, .parse = parse_tids, .ctx = o, .seen = &x->t_given },
		{ "per-thread", 0, NULL, "a row per thread of -p or -t", TOOL_OPT_FLAG,
		  .flag = &o->per_thread },
		{ "no-big-num", 0, NULL, "no thousands separators in the text report",
		  TOOL_OPT_FLAG, .flag = &o->no_big_num },
		{ "verbose", 'v', NULL, "each counter's count, enabled and running ns (perf -v's"
		  "\nlines) and why events count the default mode, on stderr",
		  TOOL_OPT_FLAG, .flag = &o->verbose },
	};

	memcpy(t, opts, sizeof(opts));
	return sizeof(opts) / sizeof(opts[0]);
}

/* pmu-stat's own options into t, the table's end after them: how many. */
static size_t own_options(struct tool_opt *t, struct stat_opts *o, struct parse_extra *x)
{
	const struct tool_opt opts[] = {
		{ "preset", 0, "NAME", "a named group of events, split into sets that fit the"
		  "\ncounters (default when no -e; the list below, pmu-info --presets)",
		  TOOL_OPT_STRING, .string = &o->preset, .once = true },
		{ "format", 'f', "FMT", "text (default: counts, rates and metrics), csv or json",
		  TOOL_OPT_PARSE, .parse = parse_format, .ctx = &x->format },
		{ "per-cpu", 0, NULL, "the command's counts by CPU (perf-read backend: a counter"
		  "\nper CPU and event)",
		  TOOL_OPT_FLAG, .flag = &o->per_cpu },
		{ "pin-cpus", 0, "LIST", "run the command on these CPUs, e.g. 0 or 0,2-3; the"
		  "\nmodule backend counts exactly one CPU (default 0)",
		  TOOL_OPT_PARSE, .parse = parse_pin_cpus, .ctx = o },
		{ "read-period", 0, "MS", x->period_help, TOOL_OPT_PARSE, .parse = parse_interval,
		  .ctx = o },
		{ "backend", 0, "NAME", "auto (default: perf-read, else clock), module,"
		  "\nperf-read, clock (perf-mmap reads its own thread only: refused)",
		  TOOL_OPT_PARSE, .parse = parse_backend, .ctx = o },
		{ "periods", 0, "FILE", "per-period data: time, CPU, set, event, delta",
		  TOOL_OPT_STRING, .string = &o->periods_file },
		{ "svg", 0, "FILE", "plot of event rates over time", TOOL_OPT_STRING,
		  .string = &o->svg_file },
		{ NULL },
	};

	memcpy(t, opts, sizeof(opts));
	return sizeof(opts) / sizeof(opts[0]);
}

int stat_opts_parse(int argc, char **argv, struct stat_opts *o, char *err, size_t errlen)
{
	struct tool_opt opts[40];
	struct parse_extra x = { .format = -1 };
	const struct tool_cli cli = {
		.tool = "pmu-stat", .synopsis = "[options] [--] command [args...]",
		.about = "Counts the events of a whole command (and its children): counts, rates, metrics.\n"
			 "The options perf stat has too mean what they mean there.",
		.opts = opts, .notes = notes, .command = true, .err = err, .errlen = errlen,
	};
	const char *why;
	int first, ret;

	memset(o, 0, sizeof(*o));
	o->interval_ms = STAT_DEFAULT_INTERVAL_MS;
	o->backend = STAT_AUTO;
	o->repeat = 1;
	snprintf(x.period_help, sizeof(x.period_help),
		 "how often counts are read (default %u ms): the module backend\n"
		 "rotates event sets every period; periods are the rows of --periods",
		 STAT_DEFAULT_INTERVAL_MS);
	own_options(opts + perf_options(opts, o, &x), o, &x);
	ret = tool_parse(&cli, argc, argv, &first);
	if (ret == 0)
		return 1;
	if (ret == 2 && (stat_system_wide(o) || o->nr_pids) && strstr(err, "no command to run"))
		return stat_fail(-EINVAL, err, errlen,
				 "-a, -C, -p and -t count while a command runs: give one, e.g. -- sleep 10 (perf's counting until Ctrl-C without a command is not implemented)");
	if (ret == 2)
		return -EINVAL;
	if (x.p_given && x.t_given)
		return stat_fail(-EINVAL, err, errlen, "give -p or -t, not both");
	why = refused(o, x.format);
	if (why)
		return stat_fail(-EINVAL, err, errlen, "%s", why);
	if (o->preset && !pmuser_preset_find(o->preset))
		return stat_fail(-EINVAL, err, errlen, "unknown preset '%s' (see --help)", o->preset);
	if (x.format >= 0)
		o->format = (enum stat_format)x.format;
	if (o->separator)
		o->format = STAT_SEP;
	if (o->print_ms)
		o->interval_ms = o->print_ms;
	o->argv = argv + first;
	o->argc = argc - first;
	return 0;
}
