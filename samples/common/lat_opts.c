// SPDX-License-Identifier: MIT
/* The options pmu-lat and pmu-sweep share; see lat_opts.h. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "lat_opts.h"

void lat_opts_init(struct lat_opts *o)
{
	*o = (struct lat_opts){ .seed = 1, .cpu = -1 };
}

int lat_bad(const char *tool, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", tool);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 2;
}

int lat_opts_parse(const char *tool, int c, char **argv, struct lat_opts *o,
		   void (*usage)(FILE *f))
{
	uint64_t v;

	switch (c) {
	case 'p':
		if (lat_pattern_parse(optarg, &o->pattern))
			return lat_bad(tool, "unknown pattern '%s' (want chase, stride, page or random)",
				       optarg);
		return 0;
	case LAT_OPT_STRIDE:
		if (lat_parse_size(optarg, &o->stride))
			return lat_bad(tool, "bad stride '%s' (want a positive byte count)", optarg);
		return 0;
	case LAT_OPT_HUGE:
		if (lat_pages_parse(optarg, &o->pages) || o->pages == LAT_PAGES_BASE)
			return lat_bad(tool, "bad --hugepages '%s' (want thp or hugetlb)", optarg);
		return 0;
	case 'c':
		if (lat_parse_uint(optarg, 0, CPU_SETSIZE - 1, &v))
			return lat_bad(tool, "bad CPU '%s'", optarg);
		o->cpu = (int)v;
		return 0;
	case 'b':
		if (pmuser_backend_parse(optarg, &o->backend))
			return lat_bad(tool, "unknown backend '%s' (want auto, module, perf-mmap, "
				       "perf-read or clock)", optarg);
		return 0;
	case LAT_OPT_SEED:
		if (lat_parse_uint(optarg, 0, UINT64_MAX, &o->seed))
			return lat_bad(tool, "bad seed '%s'", optarg);
		return 0;
	case 'f':
		if (lat_format_parse(optarg, &o->format))
			return lat_bad(tool, "unknown format '%s' (want text, csv or json)", optarg);
		return 0;
	case 'o':
		o->output = optarg;
		return 0;
	case LAT_OPT_RAW:
		o->raw = optarg;
		return 0;
	case 'h':
		usage(stdout);
		exit(0);
	case ':':
		return lat_bad(tool, "option '%s' needs a value", argv[optind - 1]);
	case '?':
		return lat_bad(tool, "unknown option '%s' (see --help)", argv[optind - 1]);
	default:
		return 1;
	}
}

int lat_opts_no_arguments(const char *tool, int argc, char **argv)
{
	if (optind < argc)
		return lat_bad(tool, "unexpected argument '%s'", argv[optind]);
	return 0;
}

uint64_t lat_opts_place(struct lat_opts *o, struct lat_geometry *g)
{
	if (o->cpu < 0)
		o->cpu = sched_getcpu() < 0 ? 0 : sched_getcpu();
	lat_geometry_read(o->cpu, g);
	return o->stride ? o->stride : g->line;
}

int lat_output_open(const char *tool, const char *path, FILE **out)
{
	*out = stdout;
	if (path && !(*out = fopen(path, "w"))) {
		fprintf(stderr, "%s: %s: %s\n", tool, path, strerror(errno));
		return -1;
	}
	return 0;
}

int lat_output_close(FILE *out)
{
	return out != stdout ? fclose(out) : fflush(out);
}
