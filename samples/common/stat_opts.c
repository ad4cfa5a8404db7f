// SPDX-License-Identifier: MIT
/* pmu-stat's command line. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "stat.h"

void stat_usage(FILE *f)
{
	const struct pmuser_preset *presets;
	unsigned int n = pmuser_presets(&presets), i;

	fprintf(f,
		"usage: pmu-stat [options] [--] command [args...]\n"
		"Counts a whole command (and its children) and writes an rpistat-style report.\n"
		"  -e, --events SPEC   one event set, e.g. inst_retired,l1d_cache_refill (repeat -e for\n"
		"                      more sets; names from pmu-info --events, or 0x1b / r1b)\n"
		"  -p, --preset NAME   a named group of events, split into sets that fit the\n"
		"                      counters (default when no -e; pmu-info --presets):");
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "\n                      ", presets[i].name);
	fprintf(f,
		"\n"
		"  -I, --interval MS   measurement period (default %u): the module backend rotates\n"
		"                      event sets every period; periods are the rows of --periods\n"
		"  -o, --output FILE   write the report there (default: standard error)\n"
		"      --csv, --json   report format (default: text, like rpistat.txt)\n"
		"      --per-cpu       per-CPU breakdown (perf: one counter per CPU and event)\n"
		"  -C, --cpus LIST     run the command on these CPUs, e.g. 0 or 0,2-3; the module\n"
		"                      backend counts exactly one CPU (default 0)\n"
		"      --backend B     auto (perf, else clock), perf, module or clock\n"
		"      --periods FILE  per-period data: time, CPU, set, event, delta\n"
		"      --plot FILE     SVG plot of event rates over time\n"
		"  -h, --help\n"
		"Exit status: the command's (128 + signal if it was killed); 1 counters could not be\n"
		"set up, 2 bad usage, 126 command not executable, 127 command not found.\n",
		STAT_DEFAULT_INTERVAL_MS);
}

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

enum { OPT_CSV = 256, OPT_JSON, OPT_PER_CPU, OPT_BACKEND, OPT_PERIODS, OPT_PLOT };

int stat_opts_parse(int argc, char **argv, struct stat_opts *o, char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "preset", required_argument, NULL, 'p' },
		{ "interval", required_argument, NULL, 'I' },
		{ "output", required_argument, NULL, 'o' },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
		{ "cpus", required_argument, NULL, 'C' },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "periods", required_argument, NULL, OPT_PERIODS },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool format_given = false;
	unsigned long v;
	int c, n;

	memset(o, 0, sizeof(*o));
	o->interval_ms = STAT_DEFAULT_INTERVAL_MS;
	o->backend = STAT_AUTO;
	if (err && errlen)
		err[0] = '\0';
	/* 0, not 1: glibc then re-reads the "+" ordering too, even after an earlier getopt. */
	optind = 0;
	opterr = 0;
	/* "+": stop at the command, so its options are its own; ":": report missing arguments. */
	while ((c = getopt_long(argc, argv, "+:e:p:I:o:C:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (o->nr_event_args >= STAT_MAX_SETS)
				return stat_fail(-EINVAL, err, errlen, "too many event sets (-e given more than %d times)",
					    STAT_MAX_SETS);
			if (!*optarg)
				return stat_fail(-EINVAL, err, errlen, "-e needs an event list");
			o->event_args[o->nr_event_args++] = optarg;
			break;
		case 'p':
			if (o->preset)
				return stat_fail(-EINVAL, err, errlen, "-p given twice");
			o->preset = optarg;
			break;
		case 'I':
			if (parse_uint(optarg, STAT_MAX_INTERVAL_MS, &v) || v < 1)
				return stat_fail(-EINVAL, err, errlen, "-I '%s': the period must be 1 to %u milliseconds",
					    optarg, STAT_MAX_INTERVAL_MS);
			o->interval_ms = (unsigned int)v;
			o->interval_given = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_CSV:
		case OPT_JSON:
			if (format_given)
				return stat_fail(-EINVAL, err, errlen, "give at most one of --csv and --json");
			format_given = true;
			o->format = c == OPT_CSV ? STAT_CSV : STAT_JSON;
			break;
		case OPT_PER_CPU:
			o->per_cpu = true;
			break;
		case 'C':
			n = stat_parse_cpus(optarg, o->cpus, STAT_MAX_CPUS);
			if (n <= 0)
				return stat_fail(-EINVAL, err, errlen, "-C '%s': expected CPU numbers below %d like 0 or 0,2-3",
					    optarg, STAT_MAX_CPUS);
			o->nr_cpus = (unsigned int)n;
			break;
		case OPT_BACKEND:
			if (!strcmp(optarg, "auto"))
				o->backend = STAT_AUTO;
			else if (!strcmp(optarg, "perf"))
				o->backend = STAT_PERF;
			else if (!strcmp(optarg, "module"))
				o->backend = STAT_MODULE;
			else if (!strcmp(optarg, "clock"))
				o->backend = STAT_CLOCK;
			else
				return stat_fail(-EINVAL, err, errlen, "--backend '%s': expected auto, perf, module or clock",
					    optarg);
			break;
		case OPT_PERIODS:
			o->periods_file = optarg;
			break;
		case OPT_PLOT:
			o->plot_file = optarg;
			break;
		case 'h':
			stat_usage(stdout);
			return 1;
		case ':':
			return stat_fail(-EINVAL, err, errlen, "option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				return stat_fail(-EINVAL, err, errlen, "unknown option '-%c'", optopt);
			return stat_fail(-EINVAL, err, errlen, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->preset && o->nr_event_args)
		return stat_fail(-EINVAL, err, errlen, "give either -e or -p, not both");
	if (o->preset && !pmuser_preset_find(o->preset))
		return stat_fail(-EINVAL, err, errlen, "unknown preset '%s' (see --help)", o->preset);
	if (o->backend == STAT_MODULE && o->nr_cpus > 1)
		return stat_fail(-EINVAL, err, errlen, "the module backend counts one CPU: give -C with a single CPU");
	if (o->backend == STAT_CLOCK && (o->nr_event_args || o->preset))
		return stat_fail(-EINVAL, err, errlen, "the clock backend counts no events: drop -e/-p");
	if (optind >= argc)
		return stat_fail(-EINVAL, err, errlen, "no command to run (usage: pmu-stat [options] -- command [args])");
	o->argv = argv + optind;
	o->argc = argc - optind;
	return 0;
}
