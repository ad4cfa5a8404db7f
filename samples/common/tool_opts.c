// SPDX-License-Identifier: MIT
/* One option parser and usage printer for every tool; see tool_opts.h. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "size_suffix.h"
#include "tool_opts.h"

/*
 * Options per table; long-only options get getopt values from LONG_ONLY up, --version the one
 * below, which no short option can take.
 */
enum { OPTS_MAX = 40, LONG_ONLY = 256, VERSION_KEY = LONG_ONLY - 1 };

/* The package's version, from the Makefile's VERSION: one definition for every tool. */
#ifndef PMUSER_VERSION
#error "PMUSER_VERSION is the Makefile's VERSION, given with -D"
#endif

int tool_bad(const char *tool, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static const char *exit_tool;

static void stdout_check(void)
{
	if (fflush(stdout)) {
		fprintf(stderr, "%s: writing standard output: %s\n", exit_tool, strerror(errno));
		_exit(1);
	}
	/*
	 * A write failed before and nothing was left to write: the tools that write their
	 * results to stdout themselves have said why already.
	 */
	if (ferror(stdout))
		_exit(1);
}


int tool_outputs_distinct(const char *tool, FILE *const f[], const char *const what[], size_t n)
{
	struct stat a, b;

	for (size_t i = 0; i < n; i++) {
		if (!f[i] || fstat(fileno(f[i]), &a) || !S_ISREG(a.st_mode))
			continue;
		for (size_t j = i + 1; j < n; j++)
			if (f[j] && !fstat(fileno(f[j]), &b) && S_ISREG(b.st_mode) &&
			    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
				return tool_bad(tool, "%s and %s name the same file", what[i], what[j]);
	}
	return 0;
}

/* Bad input: into cli->err when the caller collects it, else on stderr. Returns 2. */
static int __attribute__((format(printf, 2, 3))) fail(const struct tool_cli *cli,
						      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (cli->err && cli->errlen) {
		vsnprintf(cli->err, cli->errlen, fmt, ap);
	} else {
		fprintf(stderr, "%s: ", cli->tool);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
	return 2;
}

const char *tool_parse_u64(const char *arg, bool size, uint64_t min, uint64_t max,
			   uint64_t *out, char *reason, size_t len)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;
	int s;

	if (!*arg || *arg < '0' || *arg > '9') {
		snprintf(reason, len, "not an unsigned number");
		return reason;
	}
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno) {
		snprintf(reason, len, "not an unsigned number in range");
		return reason;
	}
	if (size && *end && (s = size_suffix_shift(end)) >= 0) {
		shift = (unsigned int)s;
		end += strlen(end);
	}
	if (*end) {
		snprintf(reason, len, "trailing characters%s",
			 size ? " (a size may end in K, KB, KiB, M, MB, MiB, G, GB or GiB)" : "");
		return reason;
	}
	if (shift && v > (UINT64_MAX >> shift)) {
		snprintf(reason, len, "too large");
		return reason;
	}
	v <<= shift;
	if (v < min || v > max) {
		snprintf(reason, len, "out of range [%" PRIu64 ", %" PRIu64 "]", min, max);
		return reason;
	}
	*out = v;
	return NULL;
}

static int opt_key(const struct tool_opt *o, unsigned int i)
{
	return o->short_name ? o->short_name : LONG_ONLY + (int)i;
}

/* "-x, --name ARG" and the names of the options listed on its line. */
static void usage_left(char *left, size_t len, const struct tool_opt *o)
{
	int n = snprintf(left, len, "%c%c%c --%s%s%s", o->short_name ? '-' : ' ',
			 o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ', o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");

	for (const struct tool_opt *next = o + 1; next->name && !next->help && n > 0 &&
	     (size_t)n < len; next++)
		n += snprintf(left + n, len - (size_t)n, ", --%s", next->name);
}

/* One option's lines of the usage: its names, then its help in the column at width. */
static void usage_line(FILE *f, const struct tool_opt *p, int width)
{
	char left[80];

	usage_left(left, sizeof(left), p);
	/* A left side wider than the column gets its help on the lines below. */
	if ((int)strlen(left) > width)
		fprintf(f, "  %s\n  %-*s  ", left, width, "");
	else
		fprintf(f, "  %-*s  ", width, left);
	for (const char *h = p->help; *h; h++) {
		fputc(*h, f);
		if (*h == '\n')
			fprintf(f, "  %-*s  ", width, "");
	}
	fputc('\n', f);
}

void tool_usage(const struct tool_cli *cli, FILE *f)
{
	/* Every tool's own options, in a table of their own: usage_left() looks past each. */
	static const struct tool_opt own[] = {
		{ .name = "version", .help = "print the tool's name and version" },
		{ .name = "help", .short_name = 'h', .help = "this text" },
		{ .name = NULL },
	};
	char left[80];
	int width = 0;

	fprintf(f, "usage: %s %s\n", cli->tool, cli->synopsis ? cli->synopsis : "[options]");
	if (cli->about)
		fprintf(f, "%s\n", cli->about);
	for (const struct tool_opt *o = cli->opts; o->name; o++) {
		usage_left(left, sizeof(left), o);
		if (o->help && (int)strlen(left) > width)
			width = (int)strlen(left);
	}
	width = width < 16 ? 16 : width > 30 ? 30 : width;
	for (const struct tool_opt *o = cli->opts; o->name; o++)
		if (o->help)
			usage_line(f, o, width);
	/* --help last: the man pages' option list ends at it (man/tool-page.sh). */
	usage_line(f, &own[0], width);
	usage_line(f, &own[1], width);
	if (f == stdout && cli->notes)
		cli->notes(f);
}

/*
 * --help's usage on standard output. A usage longer than stdio's buffer is written in part
 * before its end, and a failed write there leaves nothing for the check at exit to flush:
 * said here, with the write's errno, and exit status 1.
 */
static void usage_out(const struct tool_cli *cli)
{
	errno = 0;
	tool_usage(cli, stdout);
	if (!fflush(stdout) && !ferror(stdout))
		return;
	fprintf(stderr, "%s: writing standard output: %s\n", cli->tool,
		strerror(errno ? errno : EIO));
	_exit(1);
}

/* The option as the user wrote it: "--name" when given long, else "-x". */
static void opt_spelling(char *buf, size_t len, const struct tool_opt *o, bool as_long)
{
	if (as_long || !o->short_name)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", o->short_name);
}

static int apply_choice(const struct tool_cli *cli, const struct tool_opt *o)
{
	char names[160];
	size_t n = 0;

	if (*o->choice < 0 || *o->choice == o->choice_value) {
		*o->choice = o->choice_value;
		return 0;
	}
	names[0] = '\0';
	for (const struct tool_opt *other = cli->opts; other->name; other++)
		if (other->kind == TOOL_OPT_CHOICE && other->choice == o->choice && n < sizeof(names))
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s--%s",
					      n ? " and " : "", other->name);
	return fail(cli, "%s exclude each other", names);
}

static int apply(const struct tool_cli *cli, const struct tool_opt *o, const char *arg,
		 const char *spelled)
{
	char reason[128];
	const char *why = NULL;

	switch (o->kind) {
	case TOOL_OPT_NUMBER:
	case TOOL_OPT_SIZE:
		why = tool_parse_u64(arg, o->kind == TOOL_OPT_SIZE, o->min, o->max, o->value,
				     reason, sizeof(reason));
		if (!why && o->multiple && *o->value % o->multiple) {
			snprintf(reason, sizeof(reason), "not a multiple of %" PRIu64, o->multiple);
			why = reason;
		}
		break;
	case TOOL_OPT_FLAG:
		*o->flag = true;
		break;
	case TOOL_OPT_COUNT:
		if (*o->value < o->max)
			(*o->value)++;
		break;
	case TOOL_OPT_CHOICE:
		return apply_choice(cli, o);
	case TOOL_OPT_STRING:
		if (!*arg)
			why = "empty";
		else
			*o->string = arg;
		break;
	case TOOL_OPT_PARSE:
		why = o->parse(arg, o->ctx);
		break;
	}
	if (!why)
		return 0;
	return fail(cli, "%s '%s': %s", spelled, arg, why);
}

/* getopt_long's tables for cli: the options, then -h/--help. */
static int build(const struct tool_cli *cli, struct option *longopts, char *shortopts)
{
	unsigned int n, s = 0;

	shortopts[s++] = cli->command ? '+' : ':';
	if (cli->command)
		shortopts[s++] = ':';
	for (n = 0; cli->opts[n].name; n++) {
		const struct tool_opt *o = &cli->opts[n];

		if (n == OPTS_MAX)
			return fail(cli, "internal error: more than %d options", OPTS_MAX);
		longopts[n] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					       NULL, opt_key(o, n) };
		if (o->short_name) {
			shortopts[s++] = o->short_name;
			if (o->arg)
				shortopts[s++] = ':';
		}
	}
	longopts[n] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n + 1] = (struct option){ "version", no_argument, NULL, VERSION_KEY };
	longopts[n + 2] = (struct option){ NULL, 0, NULL, 0 };
	shortopts[s++] = 'h';
	shortopts[s] = '\0';
	return 0;
}

/*
 * "--pre" that getopt_long refused: names the options it could mean when it abbreviates more
 * than one, else is an unknown option.
 */
static int ambiguous(const struct tool_cli *cli, const char *given)
{
	size_t len = strcspn(given + 2, "="), n = 0, count = 0;
	unsigned int nopts = 0;
	char names[256];

	names[0] = '\0';
	while (cli->opts[nopts].name)
		nopts++;
	/* The table's options, then --help and --version, which every tool has. */
	for (unsigned int i = 0; i < nopts + 2; i++) {
		const char *name = i < nopts ? cli->opts[i].name : i == nopts ? "help" : "version";

		if (!strncmp(name, given + 2, len) && n < sizeof(names)) {
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s--%s",
					      count ? ", " : "", name);
			count++;
		}
	}
	if (count > 1)
		return fail(cli, "option '--%.*s' is ambiguous: %s", (int)len, given + 2, names);
	return fail(cli, "unknown option '--%.*s' (see --help)", (int)len, given + 2);
}

/*
 * getopt_long's ':' (a missing argument) and '?' (anything else it refused), named as given.
 * Inside a cluster of short options optind has not moved on, so the letter is named from
 * optopt; a long option given a value it does not take comes back with optopt its key.
 */
static int unknown(const struct tool_cli *cli, int c, char **argv)
{
	const char *given = argv[optind - 1];
	char name[48];
	unsigned int i;

	for (i = 0; optopt && cli->opts[i].name; i++)
		if (optopt == opt_key(&cli->opts[i], i))
			break;
	if (optopt && cli->opts[i].name && c == '?')
		return fail(cli, "option '--%s' takes no argument", cli->opts[i].name);
	if (optopt == 'h' && c == '?' && given[1] == '-')
		return fail(cli, "option '--help' takes no argument");
	if (optopt == VERSION_KEY && c == '?')
		return fail(cli, "option '--version' takes no argument");
	if (!optopt && c == '?' && given[0] == '-' && given[1] == '-')
		return ambiguous(cli, given);
	if (optopt && optopt < LONG_ONLY && (!cli->opts[i].name || given[1] != '-')) {
		snprintf(name, sizeof(name), "-%c", optopt);
		given = name;
	} else if (optopt && cli->opts[i].name) {
		snprintf(name, sizeof(name), "--%s", cli->opts[i].name);
		given = name;
	}
	if (c == ':')
		return fail(cli, "option '%s' needs an argument", given);
	return fail(cli, "unknown option '%s' (see --help)", given);
}

int tool_parse(const struct tool_cli *cli, int argc, char **argv, int *first)
{
	struct option longopts[OPTS_MAX + 3];
	char shortopts[3 * OPTS_MAX + 5];
	bool seen[OPTS_MAX] = { false };
	int c, longindex;

	if (cli->err && cli->errlen)
		cli->err[0] = '\0';
	/* Every tool parses its command line first: standard output is checked at its exit. */
	if (!exit_tool) {
		exit_tool = cli->tool;
		atexit(stdout_check);
	}
	if (build(cli, longopts, shortopts))
		return 2;
	/* 0, not 1: glibc then re-reads the '+' ordering too, even after an earlier parse. */
	optind = 0;
	opterr = 0;
	for (longindex = -1; (c = getopt_long(argc, argv, shortopts, longopts, &longindex)) != -1;
	     longindex = -1) {
		const struct tool_opt *o = NULL;
		char spelled[48];
		unsigned int i;

		if (c == 'h') {
			usage_out(cli);
			return 0;
		}
		if (c == VERSION_KEY) {
			printf("%s %s\n", cli->tool, PMUSER_VERSION);
			return 0;
		}
		for (i = 0; cli->opts[i].name && !o; i++)
			if (c == opt_key(&cli->opts[i], i))
				o = &cli->opts[i];
		if (!o)
			return unknown(cli, c, argv);
		i--;
		opt_spelling(spelled, sizeof(spelled), o, longindex >= 0);
		if (o->once && seen[i])
			return fail(cli, "%s given twice", spelled);
		seen[i] = true;
		if (o->seen)
			*o->seen = true;
		if (apply(cli, o, optarg, spelled))
			return 2;
	}
	if (cli->command && optind >= argc)
		return fail(cli, "no command to run (usage: %s %s)", cli->tool,
			    cli->synopsis ? cli->synopsis : "[options] command");
	if (!cli->command && argc - optind > (int)cli->operands)
		return fail(cli, "unexpected argument '%s'", argv[optind + (int)cli->operands]);
	*first = optind;
	return -1;
}
