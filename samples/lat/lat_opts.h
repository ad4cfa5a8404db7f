/* SPDX-License-Identifier: MIT */
/*
 * Shared by pmu-lat and pmu-sweep: the options both take (pattern, stride, page kind, CPU,
 * backend, seed, report format and files), their parsing and messages, and where the report
 * goes.
 */
#ifndef PMUSER_LAT_OPTS_H
#define PMUSER_LAT_OPTS_H

#include <stdint.h>
#include <stdio.h>

#include "lat_buf.h"
#include "lat_out.h"
#include "pmuser.h"
#include "tool_opts.h"

struct lat_opts {
	uint64_t stride, seed;		/* stride 0: the cache line */
	bool seed_set;			/* --seed given */
	enum lat_pattern pattern;
	enum lat_pages pages;
	enum pmuser_backend backend;
	enum lat_format format;
	int cpu;			/* -1: the CPU the tool starts on */
	const char *output, *raw;	/* NULL: stdout, no raw file */
};

/* Parsers of the shared options' arguments, for the table entries below (ctx: lat_opts). */
const char *lat_opt_pattern(const char *arg, void *ctx);
const char *lat_opt_hugepages(const char *arg, void *ctx);
const char *lat_opt_cpu(const char *arg, void *ctx);
const char *lat_opt_seed(const char *arg, void *ctx);
const char *lat_opt_backend(const char *arg, void *ctx);
const char *lat_opt_format(const char *arg, void *ctx);

/*
 * The shared options as tool_opt table entries (tool_opts.h), for o, a struct lat_opts *;
 * *given is set when one is given. The access pattern and its stride come first in a usage,
 * the rest after the tool's own options.
 */
#define LAT_OPTS_PATTERN(o, given, pattern_help)					\
	{ "pattern", 0, "NAME", pattern_help, TOOL_OPT_PARSE, .parse = lat_opt_pattern,	\
	  .ctx = (o), .seen = (given) },							\
	{ "stride", 0, "BYTES", "node spacing for stride (default: the cache line); a\n"	\
	  "multiple of the pointer size, each node holds the next's address",		\
	  TOOL_OPT_SIZE, 1, UINT64_MAX, sizeof(void *),				\
	  .value = &(o)->stride, .seen = (given) }
#define LAT_OPTS_COMMON(o, given, format_help, output_help, raw_help)			\
	{ "hugepages", 0, "KIND", "thp or hugetlb (default: base pages, MADV_NOHUGEPAGE)",	\
	  TOOL_OPT_PARSE, .parse = lat_opt_hugepages, .ctx = (o), .seen = (given) },	\
	{ "pin-cpus", 0, "CPU", "pin to this one CPU (default: the CPU it starts on)",	\
	  TOOL_OPT_PARSE, .parse = lat_opt_cpu, .ctx = (o), .seen = (given) },		\
	{ "backend", 0, "NAME", "auto, module, perf-mmap, perf-read, clock (default auto;"	\
	  "\nenv PMUSER_BACKEND)", TOOL_OPT_PARSE, .parse = lat_opt_backend, .ctx = (o),	\
	  .seen = (given) },								\
	{ "seed", 0, "N", "layout seed (default 1; not for --pattern stride)", TOOL_OPT_PARSE,	\
	  .parse = lat_opt_seed, .ctx = (o), .seen = (given) },				\
	{ "format", 'f', "FMT", format_help, TOOL_OPT_PARSE, .parse = lat_opt_format,	\
	  .ctx = (o) },									\
	{ "output", 'o', "FILE", output_help, TOOL_OPT_STRING, .string = &(o)->output },	\
	{ "raw", 0, "FILE", raw_help, TOOL_OPT_STRING, .string = &(o)->raw, .seen = (given) }

/* The defaults: seed 1, CPU -1, everything else zero. */
void lat_opts_init(struct lat_opts *o);

/*
 * The checks of the shared options against each other: NULL, or the reason (exit status 2)
 * in why.
 */
const char *lat_opts_check(const struct lat_opts *o, char *why, size_t len);

/* Fills in the CPU when none was given, reads its geometry; returns the node spacing. */
uint64_t lat_opts_place(struct lat_opts *o, struct lat_geometry *g);

/* Opens path for the report (stdout when NULL): 0, or -1 after printing why. */
int lat_output_open(const char *tool, const char *path, FILE **out);
/* Closes the report (flushes stdout): 0 or EOF. */
int lat_output_close(FILE *out);

#endif
