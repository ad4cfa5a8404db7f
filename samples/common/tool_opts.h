/* SPDX-License-Identifier: MIT */
/*
 * Every tool's command line: one table of options is both what getopt_long() accepts and what
 * --help prints, so the usage documents every option there is. -h/--help is added to every
 * table: the usage on standard output, exit status 0. Bad input is one line on standard error
 * naming the option and the reason, exit status 2.
 */
#ifndef PMUSER_TOOL_OPTS_H
#define PMUSER_TOOL_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum tool_opt_kind {
	TOOL_OPT_NUMBER,	/* *value = an unsigned decimal in [min, max] */
	TOOL_OPT_SIZE,		/* the same, with a size suffix (size_suffix.h) allowed */
	TOOL_OPT_FLAG,		/* *flag = true */
	TOOL_OPT_COUNT,		/* *value counts the times the option is given, up to max
				 * (perf's -dd: more is max) */
	TOOL_OPT_CHOICE,	/* *choice = choice_value; the options sharing choice exclude
				 * each other (*choice starts below 0) */
	TOOL_OPT_STRING,	/* *string = the argument, which must not be empty */
	TOOL_OPT_PARSE,		/* parse(arg, ctx): NULL when taken, else the reason it is not */
};

struct tool_opt {
	const char *name;	/* long name without "--"; NULL ends the table */
	char short_name;	/* 0: long only */
	const char *arg;	/* the argument's name in the usage; NULL: the option takes none */
	const char *help;	/* lines after the first start with '\n'; NULL: listed on the
				 * line of the option before it */
	enum tool_opt_kind kind;
	uint64_t min, max;
	uint64_t multiple;	/* numbers must be a multiple of it (0: any) */
	uint64_t *value;
	bool *flag;
	int *choice;
	int choice_value;
	const char **string;
	const char *(*parse)(const char *arg, void *ctx);
	void *ctx;
	bool once;		/* given twice is an error */
	bool *seen;		/* not NULL: set when the option is given */
};

struct tool_cli {
	const char *tool;
	const char *synopsis;	/* after "usage: <tool> "; NULL: "[options]" */
	const char *about;	/* the line under the usage line; NULL: none */
	const struct tool_opt *opts;
	void (*notes)(FILE *f);	/* what --help prints after the options; NULL: nothing */
	bool command;		/* the operands are a command to run: the options end at its
				 * name, and one is required */
	unsigned int operands;	/* otherwise at most this many operands */
	char *err;		/* not NULL: bad input is described here, not on stderr */
	size_t errlen;
};

/*
 * Parses argv by cli's table. Returns -1 to go on (*first is the index of the first operand;
 * a tool without a command takes none), 0 after --help, 2 after bad input. The first call
 * also has standard output flushed and checked at exit: a tool whose output did not all
 * reach it (a full disk, a closed pipe's EPIPE with SIGPIPE ignored) says so and exits 1.
 */
int tool_parse(const struct tool_cli *cli, int argc, char **argv, int *first);

/* The usage: synopsis, options in table order, notes (on stdout only). */
void tool_usage(const struct tool_cli *cli, FILE *f);

/* "tool: " and the formatted reason on stderr; returns 2, the exit status of bad input. */
int tool_bad(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Whether the n files opened for outputs (NULL entries skipped) are distinct, what[i] naming
 * each for the message: 0, or 2 after saying which two are one regular file (where both
 * writes would interleave). Devices such as /dev/null may be named twice.
 */
int tool_outputs_distinct(const char *tool, FILE *const f[], const char *const what[], size_t n);

/*
 * Parses arg as an unsigned decimal (with a size suffix if size) within [min, max]: NULL, or
 * the reason it is not one, in reason (which is returned).
 */
const char *tool_parse_u64(const char *arg, bool size, uint64_t min, uint64_t max,
			   uint64_t *out, char *reason, size_t len);

#endif /* PMUSER_TOOL_OPTS_H */
