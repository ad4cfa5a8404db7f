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

const char *lat_opt_pattern(const char *arg, void *ctx)
{
	struct lat_opts *o = ctx;

	return lat_pattern_parse(arg, &o->pattern) ?
	       "unknown pattern (want chase, stride, page or random)" : NULL;
}

const char *lat_opt_hugepages(const char *arg, void *ctx)
{
	struct lat_opts *o = ctx;

	if (lat_pages_parse(arg, &o->pages) || o->pages == LAT_PAGES_BASE)
		return "want thp or hugetlb";
	return NULL;
}

const char *lat_opt_cpu(const char *arg, void *ctx)
{
	static char why[128];
	struct lat_opts *o = ctx;
	cpu_set_t allowed;
	uint64_t v;

	/* The spelling pmu-stat's --pin-cpus shares; a latency is measured on one CPU. */
	if (strpbrk(arg, ",-"))
		return "a latency is measured on one CPU: give one, not a list";
	if (tool_parse_u64(arg, false, 0, CPU_SETSIZE - 1, &v, why, sizeof(why)))
		return why;
	/* Known before any output is opened: a CPU the tool cannot be pinned to. */
	if (!sched_getaffinity(0, sizeof(allowed), &allowed) && !CPU_ISSET((int)v, &allowed)) {
		snprintf(why, sizeof(why), "CPU %llu is not online or not allowed for this process",
			 (unsigned long long)v);
		return why;
	}
	o->cpu = (int)v;
	return NULL;
}

const char *lat_opt_seed(const char *arg, void *ctx)
{
	static char why[128];
	struct lat_opts *o = ctx;

	o->seed_set = true;
	return tool_parse_u64(arg, false, 0, UINT64_MAX, &o->seed, why, sizeof(why));
}

const char *lat_opts_check(const struct lat_opts *o, char *why, size_t len)
{
	const char *bad = NULL;

	if (o->stride && o->pattern != LAT_STRIDE)
		bad = "--stride applies to --pattern stride only";
	else if (o->seed_set && o->pattern == LAT_STRIDE)
		bad = "--seed shuffles the layout: --pattern stride has none";
	if (bad)
		snprintf(why, len, "%s", bad);
	return bad ? why : NULL;
}

const char *lat_opt_backend(const char *arg, void *ctx)
{
	struct lat_opts *o = ctx;

	return pmuser_backend_parse(arg, &o->backend) ?
	       "unknown backend (want auto, module, perf-mmap, perf-read or clock)" : NULL;
}

const char *lat_opt_format(const char *arg, void *ctx)
{
	struct lat_opts *o = ctx;

	return lat_format_parse(arg, &o->format) ? "unknown format (want text, csv or json)" : NULL;
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
