// SPDX-License-Identifier: MIT
/*
 * Host tests of what every tool does with its command line: --help is the usage on standard
 * output with status 0, an unknown option is an error on standard error with status 2, output
 * that cannot be written is an error with status 1, a size takes the same suffixes in every
 * tool, and text from outside a tool keeps its JSON and SVG outputs well formed.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../tool_run.h"
#include "tool_text.h"
#include "wl_harness.h"

#define BIN PMUSER_TOP "/build/host/bin/"

static const char *const tools[] = {
	"pmu-chase", "pmu-hazards", "pmu-hello", "pmu-info", "pmu-lat", "pmu-matrix",
	"pmu-misp", "pmu-overhead", "pmu-spin", "pmu-stat", "pmu-sweep", "pmu-walk",
};

TEST(help_is_usage_on_stdout)
{
	char cmd[512], out[16384];

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		snprintf(cmd, sizeof(cmd), BIN "%s --help 2>pmuser-cli.err", tools[i]);
		EXPECT_EQ(0, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", tools[i]);
		EXPECT_NE(NULL, strstr(out, "usage")) TH_LOG("%s --help: %s", tools[i], out);
		EXPECT_NE(NULL, strstr(out, "--help")) TH_LOG("%s --help lists no --help", tools[i]);
		EXPECT_EQ(0, tool_run("cat pmuser-cli.err", false, out, sizeof(out)));
		EXPECT_STREQ("", out) TH_LOG("%s --help wrote to stderr", tools[i]);
	}
}

/*
 * What an option given an argument it takes none of is told: pmu-hello, the program to copy,
 * parses with getopt_long() alone and says what that says.
 */
static const char *no_argument_message(const char *tool)
{
	return strcmp(tool, "pmu-hello") ? "takes no argument" : "doesn't allow an argument";
}

/* --version: "NAME VERSION" on standard output, status 0, the Makefile's VERSION everywhere. */
TEST(version_is_name_and_version)
{
	char cmd[512], out[16384], want[128];

	/* pmu-scale too, which the other tests here leave out. */
	for (size_t i = 0; i <= sizeof(tools) / sizeof(tools[0]); i++) {
		const char *tool = i < sizeof(tools) / sizeof(tools[0]) ? tools[i] : "pmu-scale";

		snprintf(cmd, sizeof(cmd), BIN "%s --version 2>pmuser-cli.err", tool);
		EXPECT_EQ(0, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", tool);
		snprintf(want, sizeof(want), "%s %s\n", tool, PMUSER_VERSION);
		EXPECT_STREQ(want, out) TH_LOG("%s --version", tool);
		EXPECT_EQ(0, tool_run("cat pmuser-cli.err", false, out, sizeof(out)));
		EXPECT_STREQ("", out) TH_LOG("%s --version wrote to stderr", tool);
		snprintf(cmd, sizeof(cmd), BIN "%s --version=1 2>&1 >/dev/null", tool);
		EXPECT_EQ(2, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", tool);
		EXPECT_TRUE(strstr(out, "option '--version' ") &&
			    strstr(out, no_argument_message(tool)))
			TH_LOG("%s --version=1: %s", tool, out);
		snprintf(cmd, sizeof(cmd), BIN "%s --help", tool);
		EXPECT_EQ(0, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", tool);
		EXPECT_NE(NULL, strstr(out, "\n      --version  ")) TH_LOG("%s --help", tool);
	}
}

TEST(unknown_option_is_a_usage_error)
{
	char cmd[512], out[16384];

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		snprintf(cmd, sizeof(cmd), BIN "%s --no-such-option 2>&1 >/dev/null", tools[i]);
		EXPECT_EQ(2, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", tools[i]);
		EXPECT_NE(0U, strlen(out)) TH_LOG("%s said nothing on stderr", tools[i]);
		snprintf(cmd, sizeof(cmd), BIN "%s --help=1 2>&1 >/dev/null", tools[i]);
		EXPECT_EQ(2, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", tools[i]);
		EXPECT_TRUE(strstr(out, "option '--help' ") &&
			    strstr(out, no_argument_message(tools[i])))
			TH_LOG("%s --help=1: %s", tools[i], out);
	}
}

/* An abbreviation of more than one long option names the options it could mean. */
TEST(ambiguous_abbreviation_names_the_candidates)
{
	char out[16384];

	EXPECT_EQ(2, tool_run(BIN "pmu-stat --per -- true 2>&1", false, out, sizeof(out)));
	EXPECT_STREQ("pmu-stat: option '--per' is ambiguous: --per-thread, --per-cpu, --periods\n",
		     out);
	EXPECT_EQ(2, tool_run(BIN "pmu-stat --no-such=3 -- true 2>&1", false, out, sizeof(out)));
	EXPECT_STREQ("pmu-stat: unknown option '--no-such' (see --help)\n", out);
	/* An abbreviation of one option is that option. */
	EXPECT_EQ(0, tool_run(BIN "pmu-stat --he 2>&1", false, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "usage: pmu-stat"));
}

/*
 * Output that cannot be written is an error: every tool's --help, and pmu-info's and
 * pmu-matrix's results, into a full device exit 1 and say why on stderr.
 */
TEST(unwritable_output_is_an_error)
{
	static const char *const runs[] = { "pmu-info", "pmu-matrix --order 8" };
	char cmd[512], out[16384];

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		snprintf(cmd, sizeof(cmd), BIN "%s --help 2>&1 >/dev/full", tools[i]);
		EXPECT_EQ(1, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", tools[i]);
		EXPECT_NE(NULL, strstr(out, "writing standard output: No space left on device"))
			TH_LOG("%s: %s", tools[i], out);
	}
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		snprintf(cmd, sizeof(cmd), BIN "%s 2>&1 >/dev/full", runs[i]);
		EXPECT_EQ(1, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", runs[i]);
		EXPECT_NE(NULL, strstr(out, "writing standard output")) TH_LOG("%s: %s", runs[i], out);
	}
}

/*
 * Usage errors found before any output is written: two outputs naming one file (they would
 * interleave), a stride that is no multiple of the pointer size, a page pattern over a size
 * of no whole pages, a plot of fewer sizes than tiers need, a CPU that is not online. Each
 * exits 2, naming the cause, and leaves the file -o names as it was.
 */
TEST(bad_outputs_and_layouts_are_usage_errors)
{
	static const char *const bad[][2] = {
		{ "pmu-stat -o pmuser-cli.keep --periods pmuser-cli.keep -- true",
		  "-o and --periods name the same file" },
		{ "pmu-stat -o pmuser-cli.keep --svg ./pmuser-cli.keep -- true",
		  "-o and --svg name the same file" },
		{ "pmu-lat --samples 100 -o pmuser-cli.keep --raw pmuser-cli.keep",
		  "--raw and -o name the same file" },
		{ "pmu-sweep --sizes 4K,8K,16K --budget 0.05 -r 1 -o pmuser-cli.keep "
		  "--svg pmuser-cli.keep", "-o and --svg name the same file" },
		{ "pmu-lat --pattern stride --stride 12 -o pmuser-cli.keep",
		  "--stride '12': not a multiple of" },
		{ "pmu-sweep --pattern stride --stride 12 --sizes 4K,8K,16K -o pmuser-cli.keep",
		  "--stride '12': not a multiple of" },
		{ "pmu-lat --pattern page -s 6000 -o pmuser-cli.keep",
		  "must be a multiple of the" },
		{ "pmu-stat -o pmuser-cli.keep -C 63 -- true",
		  "-C: CPU 63 is not online" },
		{ "pmu-stat -o pmuser-cli.keep --pin-cpus 63 -- true",
		  "--pin-cpus: CPU 63 is not online or not allowed" },
		{ "pmu-sweep --sizes 4K,8K -o pmuser-cli.keep --svg pmuser-cli.svg",
		  "--svg: the plot needs at least 3 sizes, these are 2" },
	};
	char cmd[512], out[16384];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(0, tool_run("echo keep > pmuser-cli.keep", false, out, sizeof(out)));
		snprintf(cmd, sizeof(cmd), BIN "%s 2>&1 >/dev/null", bad[i][0]);
		EXPECT_EQ(2, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", bad[i][0]);
		EXPECT_NE(NULL, strstr(out, bad[i][1])) TH_LOG("%s: %s", bad[i][0], out);
		if (!strstr(bad[i][1], "same file")) {
			EXPECT_EQ(0, tool_run("cat pmuser-cli.keep", false, out, sizeof(out)));
			EXPECT_STREQ("keep\n", out) TH_LOG("%s", bad[i][0]);
		}
	}
}

/*
 * Every long option a usage lists (its left column) is one the tool takes: given before
 * --help, none is an unknown option.
 */
TEST(help_lists_only_real_options)
{
	char cmd[512], out[16384], res[16384];

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		unsigned int checked = 0;

		snprintf(cmd, sizeof(cmd), BIN "%s --help", tools[i]);
		ASSERT_EQ(0, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", tools[i]);
		for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
			char *end, *p;

			if (strncmp(line, "  -", 3) && strncmp(line, "      --", 8))
				continue;
			end = strstr(line + strspn(line, " "), "  ");
			if (end)
				*end = '\0';
			for (p = strstr(line, "--"); p; p = strstr(p + 2, "--")) {
				size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
				bool arg = p[2 + n] == ' ' && p[3 + n] >= 'A' && p[3 + n] <= 'Z';
				int rc;

				if (!n || !strncmp(p, "--help", 6))
					continue;
				snprintf(cmd, sizeof(cmd), BIN "%s --%.*s%s --help 2>&1", tools[i],
					 (int)n, p + 2, arg ? "=1" : "");
				/* Ran, or refused the value: 0 or 2, never a crash. */
				rc = tool_run(cmd, false, res, sizeof(res));
				EXPECT_TRUE(rc == 0 || rc == 2) TH_LOG("%s: status %d", cmd, rc);
				EXPECT_EQ(NULL, strstr(res, "unknown option")) TH_LOG("%s: %s", cmd, res);
				checked++;
			}
		}
		if (strcmp(tools[i], "pmu-hello") && strcmp(tools[i], "pmu-spin"))
			EXPECT_NE(0U, checked) TH_LOG("%s: no options found in its usage", tools[i]);
	}
}

/* An option of a tool's usage: letter (0: long only), long name, whether it takes a value. */
struct usage_opt {
	const char *tool;
	char letter;
	char name[32];
	bool arg;
};

/*
 * The options of tool's --help into o (at most max), up to its -h/--help line: an option
 * line's left column is "-x, --name ARG" or "    --name ARG", then ", --other" for each
 * other name of the same option (long only, taking what the first takes). Returns how many.
 */
static size_t usage_opts(const char *tool, struct usage_opt *o, size_t max)
{
	static char out[16384];
	char cmd[512];
	size_t n = 0;

	snprintf(cmd, sizeof(cmd), BIN "%s --help", tool);
	if (tool_run(cmd, false, out, sizeof(out)))
		return 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char letter = 0, *end, *p;
		bool arg = false, first = true;

		if (!strncmp(line, "  -", 3) && line[3] != '-')
			letter = line[3];
		else if (strncmp(line, "      --", 8))
			continue;
		end = strstr(line + strspn(line, " "), "  ");
		if (end)
			*end = '\0';
		for (p = strstr(line, "--"); p && n < max; p = strstr(p + 2, "--"), first = false) {
			size_t len = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");

			if (first)
				arg = p[2 + len] == ' ' && p[3 + len] >= 'A' && p[3 + len] <= 'Z';
			o[n] = (struct usage_opt){ .tool = tool, .letter = first ? letter : 0,
						   .arg = arg };
			snprintf(o[n].name, sizeof(o[n].name), "%.*s", (int)len, p + 2);
			n++;
		}
		if (n && !strcmp(o[n - 1].name, "help"))
			break;
	}
	return n;
}

/*
 * perf stat's options that have a letter: a tool that takes one of these letters takes it
 * under perf's long name, with a value where perf's takes one.
 */
static const struct usage_opt perf_stat[] = {
	{ "perf", 'e', "event", true }, { "perf", 'x', "field-separator", true },
	{ "perf", 'I', "interval-print", true }, { "perf", 'r', "repeat", true },
	{ "perf", 'o', "output", true }, { "perf", 'C', "cpu", true },
	{ "perf", 'a', "all-cpus", false }, { "perf", 'p', "pid", true },
	{ "perf", 't', "tid", true }, { "perf", 'A', "no-aggr", false },
	{ "perf", 'v', "verbose", false }, { "perf", 'b', "bpf-prog", true },
	{ "perf", 'c', "scale", false }, { "perf", 'n', "null", false },
	{ "perf", 'd', "detailed", false }, { "perf", 'S', "sync", false },
	{ "perf", 'G', "cgroup", true }, { "perf", 'M', "metrics", true },
	{ "perf", 'T', "transaction", false }, { "perf", 'B', "big-num", false },
	{ "perf", 'D', "delay", true }, { "perf", 'j', "json-output", false },
	{ "perf", 'h', "help", false }, { "perf", 'i', "no-inherit", false },
};

static const char *letter_name(char letter, char *buf)
{
	if (!letter)
		return "long only";
	buf[0] = '-';
	buf[1] = letter;
	buf[2] = '\0';
	return buf;
}

/*
 * One vocabulary across the tools, perf stat's where it has the letter: a letter is one long
 * name in every tool, a long name has one letter (or none) in every tool, and a letter perf
 * stat has means there what it means in perf stat.
 */
TEST(one_option_vocabulary)
{
	static struct usage_opt all[1024];
	size_t n = 0, tools_n = sizeof(tools) / sizeof(tools[0]);
	char a[4], b[4];

	for (size_t t = 0; t <= tools_n; t++) {
		const char *tool = t < tools_n ? tools[t] : "pmu-scale";
		size_t got = usage_opts(tool, all + n, sizeof(all) / sizeof(all[0]) - n);

		EXPECT_LE(2U, got) TH_LOG("%s: no options found in its usage", tool);
		n += got;
	}
	for (size_t i = 0; i < n; i++) {
		const struct usage_opt *o = &all[i];

		for (size_t j = 0; j < i; j++) {
			const struct usage_opt *f = &all[j];

			if (o->letter && o->letter == f->letter)
				EXPECT_STREQ(f->name, o->name)
					TH_LOG("-%c is --%s in %s but --%s in %s", o->letter,
					       f->name, f->tool, o->name, o->tool);
			if (!strcmp(o->name, f->name))
				EXPECT_EQ(f->letter, o->letter)
					TH_LOG("--%s is %s in %s but %s in %s", o->name,
					       letter_name(f->letter, a), f->tool,
					       letter_name(o->letter, b), o->tool);
		}
		for (size_t k = 0; o->letter && k < sizeof(perf_stat) / sizeof(perf_stat[0]); k++) {
			const struct usage_opt *p = &perf_stat[k];

			if (p->letter != o->letter)
				continue;
			EXPECT_STREQ(p->name, o->name)
				TH_LOG("%s: -%c is --%s, perf stat's is --%s", o->tool, o->letter,
				       o->name, p->name);
			EXPECT_EQ(p->arg, o->arg)
				TH_LOG("%s: -%c takes %s, perf stat's -%c %s", o->tool, o->letter,
				       o->arg ? "a value" : "none", p->letter,
				       p->arg ? "takes one" : "takes none");
		}
	}
}

/* 16K, 16KB and 16KiB are one size everywhere; a wrong suffix names the ones allowed. */
TEST(sizes_take_one_syntax)
{
	static const char *const sizes[] = { "16K", "16KB", "16KiB", "16kib" };
	char cmd[512], out[16384];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(cmd, sizeof(cmd), BIN "pmu-chase -s %s --iterations 2", sizes[i]);
		EXPECT_EQ(0, tool_run(cmd, true, out, sizeof(out))) TH_LOG("pmu-chase -s %s: %s",
									 sizes[i], out);
		snprintf(cmd, sizeof(cmd), BIN "pmu-sweep --sizes 4K,%s,64K --budget 0.01 -r 1", sizes[i]);
		EXPECT_EQ(0, tool_run(cmd, true, out, sizeof(out))) TH_LOG("pmu-sweep %s: %s",
									 sizes[i], out);
	}
	EXPECT_EQ(2, tool_run(BIN "pmu-chase -s 16Kx --iterations 2", true, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "K, KB, KiB")) TH_LOG("%s", out);
}

/*
 * A kernel's predicted count that overflows 64 bits is over the budget, not wrapped below it
 * (pmu-misp -s 1G --ones --iterations 2863311529 would otherwise pass the check and run for
 * ages).
 */
TEST(instruction_budget_survives_overflow)
{
	struct wl_counts pred = { .inst = { .known = true, .nterms = 2, .term = {
		{ .coef = 6ULL * (1ULL << 30) + 4, .sym = "I", .value = 2863311529ULL },
		{ .coef = 6, .sym = "", .value = 1 } } } };

	EXPECT_EQ(UINT64_MAX, wl_pred_total(&pred.inst));
	EXPECT_EQ(-1, wl_check_budget("test", "the scan", &pred));
	pred.inst.term[0].value = 1;
	EXPECT_EQ(6ULL * (1ULL << 30) + 10, wl_pred_total(&pred.inst));
	EXPECT_EQ(-1, wl_check_budget("test", "the scan", &pred));
	pred.inst.term[0].coef = 100;
	EXPECT_EQ(0, wl_check_budget("test", "the scan", &pred));
}

/*
 * The workload tools say only what they measured or know: on the clock backend pmu-overhead
 * gives nanoseconds under an ns key, and the C kernels of other architectures claim no
 * data-dependent branches (the compiler may make none).
 */
TEST(workload_tools_name_their_units_and_claims)
{
	char out[16384];

	ASSERT_EQ(0, tool_run(BIN "pmu-overhead -f kv --reads 200 -r 2", true, out, sizeof(out)));
	if (strstr(out, "backend=clock")) {
		EXPECT_NE(NULL, strstr(out, "method=clock available=1 counters=1 ns="))
			TH_LOG("%s", out);
		EXPECT_EQ(NULL, strstr(out, "cycles=")) TH_LOG("%s", out);
	}
	if (!WL_PREDICTS) {
		ASSERT_EQ(0, tool_run(BIN "pmu-misp -s 1K --iterations 2", true, out, sizeof(out)));
		EXPECT_NE(NULL, strstr(out, "data-dependent branches: not known"))
			TH_LOG("%s", out);
		ASSERT_EQ(0, tool_run(BIN "pmu-misp -s 1K --iterations 2 -f kv", true, out, sizeof(out)));
		EXPECT_EQ(NULL, strstr(out, "data_branches=")) TH_LOG("%s", out);
	}
	ASSERT_EQ(0, tool_run(BIN "pmu-matrix --order 5", true, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "(100 B each)")) TH_LOG("%s", out);
}

/* What tool_json_string() or tool_xml_text() makes of s. */
static char *escaped(const char *s, bool json)
{
	static char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	if (!f)
		return NULL;
	if (json)
		tool_json_string(f, s);
	else
		tool_xml_text(f, s);
	fclose(f);
	return buf;
}

/*
 * Command names, paths and event names reach the JSON and SVG outputs as they are given:
 * quotes, markup and control characters are escaped, and bytes that are not UTF-8 (a
 * Latin-1 file name, a cut sequence, an overlong form, a surrogate) become U+FFFD, so the
 * output still parses.
 */
TEST(text_outputs_stay_well_formed)
{
	EXPECT_STREQ("\"a\\\"b\\\\c\\u0001\\u001f\x7f\"", escaped("a\"b\\c\x01\x1f\x7f", true));
	EXPECT_STREQ("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
		     escaped("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", true));
	EXPECT_STREQ("\"caf\xef\xbf\xbd.\xef\xbf\xbd\"", escaped("caf\xe9.\xc3", true));
	EXPECT_STREQ("\"\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"",
		     escaped("\xc0\xaf|\xed\xa0\x80", true));
	EXPECT_STREQ("&lt;x&gt; &amp; y\t\xef\xbf\xbdz", escaped("<x> & y\t\x1bz", false));
	EXPECT_STREQ("a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbc",
		     escaped("a\xef\xbf\xbe\xef\xbf\xbf\xef\xbf\xbc", false));
	EXPECT_STREQ("\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		     escaped("\xf4\x90\x80\x80", false));
	EXPECT_EQ(0U, tool_utf8_len("\xe0\x80\x80"));
	EXPECT_EQ(0U, tool_utf8_len("\xe2\x82"));
	EXPECT_EQ(3U, tool_utf8_len("\xe2\x82\xac"));
	EXPECT_EQ(4U, tool_utf8_len("\xf4\x8f\xbf\xbf"));
}

TEST_HARNESS_MAIN
