/* SPDX-License-Identifier: MIT */
/*
 * Shared by pmu-lat and pmu-sweep: the options both take (pattern, stride, page kind, CPU,
 * backend, seed, report format and files), their parsing and messages, and where the report
 * goes.
 */
#ifndef PMUSER_LAT_OPTS_H
#define PMUSER_LAT_OPTS_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "lat_buf.h"
#include "lat_out.h"
#include "pmuser.h"

struct lat_opts {
	uint64_t stride, seed;		/* stride 0: the cache line */
	enum lat_pattern pattern;
	enum lat_pages pages;
	enum pmuser_backend backend;
	enum lat_format format;
	int cpu;			/* -1: the CPU the tool starts on */
	const char *output, *raw;	/* NULL: stdout, no raw file */
};

/*
 * getopt values of the shared long-only options; a tool numbers its own from 256 up to
 * LAT_OPT_STRIDE - 1.
 */
enum { LAT_OPT_STRIDE = 300, LAT_OPT_HUGE, LAT_OPT_SEED, LAT_OPT_RAW };

/* The shared options for getopt_long: short ones (with ':' first, opterr off), long ones. */
#define LAT_OPTS_SHORT ":p:c:b:f:o:h"
#define LAT_OPTS_LONG \
	{ "pattern", required_argument, NULL, 'p' }, \
	{ "stride", required_argument, NULL, LAT_OPT_STRIDE }, \
	{ "hugepages", required_argument, NULL, LAT_OPT_HUGE }, \
	{ "cpu", required_argument, NULL, 'c' }, { "backend", required_argument, NULL, 'b' }, \
	{ "seed", required_argument, NULL, LAT_OPT_SEED }, \
	{ "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' }, \
	{ "raw", required_argument, NULL, LAT_OPT_RAW }, { "help", no_argument, NULL, 'h' }

/* The defaults: seed 1, CPU -1, everything else zero. */
void lat_opts_init(struct lat_opts *o);

/* Prints "tool: " and fmt with arg on stderr; returns 2, the exit status of bad input. */
int lat_bad(const char *tool, const char *fmt, const char *arg);

/*
 * Handles getopt_long's c if it is a shared option or a getopt error: 0 taken, 2 bad input
 * (message printed), 1 not a shared option. -h prints usage() on stdout and exits 0.
 */
int lat_opts_parse(const char *tool, int c, char **argv, struct lat_opts *o,
		   void (*usage)(FILE *f));

/* After the getopt loop: 2 (message printed) for a left-over argument, else 0. */
int lat_opts_no_arguments(const char *tool, int argc, char **argv);

/* Fills in the CPU when none was given, reads its geometry; returns the node spacing. */
uint64_t lat_opts_place(struct lat_opts *o, struct lat_geometry *g);

/* Opens path for the report (stdout when NULL): 0, or -1 after printing why. */
int lat_output_open(const char *tool, const char *path, FILE **out);
/* Closes the report (flushes stdout): 0 or EOF. */
int lat_output_close(FILE *out);

#endif
