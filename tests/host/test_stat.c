// SPDX-License-Identifier: MIT
/*
 * Host tests of pmu-stat's parts (samples/stat/stat_*.c): the command line (perf stat's
 * options as perf means them) and every refusal, CPU lists, event sets and presets for an A72
 * and an ARM1176, their modes and names, the default mode, metrics and the rpistat-style
 * numbers, the launcher (exit status, signals, exec failures), a whole run on the clock
 * backend (the only one an x86 box without a PMU has), and the report formats: perf stat's
 * -x, -I and -v lines among them.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "stat.h"
#include "../tool_run.h"

#define STAT_BIN PMUSER_TOP "/build/host/bin/pmu-stat"

#define MIDR_A72	0x410fd083
#define MIDR_1176	0x410fb767

#define ARGV(...) ((char *[]){ "pmu-stat", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "pmu-stat", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, err, ...) stat_opts_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o), (err), sizeof(err))

TEST(options_defaults_and_command)
{
	struct stat_opts o;
	char err[256];

	char *ls[] = { "pmu-stat", "ls", "-l", NULL };

	ASSERT_EQ(0, stat_opts_parse(3, ls, &o, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(2, o.argc);
	EXPECT_STREQ("ls", o.argv[0]);
	EXPECT_STREQ("-l", o.argv[1]);	/* the command's options stay its own */
	EXPECT_EQ(STAT_DEFAULT_INTERVAL_MS, o.interval_ms);
	EXPECT_EQ(STAT_AUTO, o.backend);
	EXPECT_EQ(STAT_TEXT, o.format);
	EXPECT_EQ(0U, o.nr_event_args);
	EXPECT_EQ(NULL, o.preset);

	ASSERT_EQ(0, PARSE(&o, err, "-e", "inst_retired", "--event", "l1d_cache,l1d_cache_refill",
			   "--read-period", "10", "-o", "r.txt", "-f", "json", "--per-cpu", "--pin-cpus",
			   "0,2-3", "--backend", "perf-read", "--periods", "p.csv", "--svg", "p.svg", "--",
			   "x", "--y"));
	EXPECT_EQ(2U, o.nr_event_args);
	EXPECT_STREQ("l1d_cache,l1d_cache_refill", o.event_args[1]);
	EXPECT_EQ(10U, o.interval_ms);
	EXPECT_EQ(0U, o.print_ms);
	EXPECT_STREQ("r.txt", o.output);
	EXPECT_EQ(STAT_JSON, o.format);
	EXPECT_TRUE(o.per_cpu);
	EXPECT_EQ(STAT_PERF_READ, o.backend);
	EXPECT_EQ(3U, o.nr_pin_cpus);
	EXPECT_EQ(0U, o.nr_cpus);
	EXPECT_STREQ("p.csv", o.periods_file);
	EXPECT_STREQ("p.svg", o.svg_file);
	EXPECT_EQ(2, o.argc);
	EXPECT_EQ(EINVAL, -PARSE(&o, err, "--backend", "module", "--pin-cpus", "0,1", "--", "x"));
	EXPECT_TRUE(strstr(err, "one CPU") != NULL);
	ASSERT_EQ(0, PARSE(&o, err, "--backend", "module", "--pin-cpus", "1", "--preset", "tlb",
			   "x"));
	EXPECT_EQ(1U, o.nr_pin_cpus);
	EXPECT_EQ(1, o.pin_cpus[0]);
	EXPECT_STREQ("tlb", o.preset);
}

/* The options perf stat has mean what they mean there. */
TEST(options_as_perf_stat_has_them)
{
	struct stat_opts o;
	char err[256];

	ASSERT_EQ(0, PARSE(&o, err, "-I", "100", "-x", ";", "-a", "-A", "-r", "1", "-o", "f",
			   "--no-big-num", "-v", "-e", "instructions", "sleep", "1"));
	EXPECT_EQ(100U, o.print_ms);
	EXPECT_EQ(100U, o.interval_ms);		/* read every interval */
	EXPECT_EQ(STAT_SEP, o.format);
	EXPECT_STREQ(";", o.separator);
	EXPECT_TRUE(o.all_cpus);
	EXPECT_TRUE(o.no_aggr);
	EXPECT_TRUE(o.no_big_num);
	EXPECT_TRUE(o.verbose);
	EXPECT_TRUE(stat_system_wide(&o));
	EXPECT_EQ(0U, o.nr_pin_cpus);
	ASSERT_EQ(0, PARSE(&o, err, "-C", "1,3", "--interval-print", "10", "x"));
	EXPECT_EQ(2U, o.nr_cpus);
	EXPECT_EQ(3, o.cpus[1]);
	EXPECT_EQ(10U, o.print_ms);
	EXPECT_TRUE(stat_system_wide(&o));
	ASSERT_EQ(0, PARSE(&o, err, "-p", "12,34", "--per-thread", "x"));
	EXPECT_EQ(2U, o.nr_pids);
	EXPECT_EQ(34, o.pids[1]);
	EXPECT_FALSE(o.pids_are_tids);
	EXPECT_TRUE(o.per_thread);
	EXPECT_FALSE(stat_system_wide(&o));
	ASSERT_EQ(0, PARSE(&o, err, "--tid", "56", "x"));
	EXPECT_EQ(1U, o.nr_pids);
	EXPECT_TRUE(o.pids_are_tids);
	/* Options whose meaning differs from perf's have names of their own. */
	ASSERT_EQ(0, PARSE(&o, err, "--read-period", "7", "--pin-cpus", "0", "x"));
	EXPECT_EQ(7U, o.interval_ms);
	EXPECT_EQ(0U, o.print_ms);
	EXPECT_EQ(0U, o.nr_cpus);
	EXPECT_EQ(1U, o.nr_pin_cpus);
}

TEST(options_refused)
{
	static const struct {
		const char *a, *b, *c, *msg;
	} bad[] = {
		{ "--", NULL, NULL, "no command" },
		{ "-e", "inst_retired", NULL, "no command" },
		{ "-I", "0", "x", "-I '0'" },
		{ "-I", "9", "x", "10 to 60000 milliseconds (perf's least is 10)" },
		{ "-I", "60001", "x", "10 to 60000" },
		{ "--read-period", "0", "x", "1 to 60000" },
		{ "-p", "0", "x", "-p '0'" },
		{ "-t", "1,", "x", "-t '1,'" },
		{ "-a", NULL, NULL, "-a, -C, -p and -t count while a command runs" },
		{ "-p", "1", NULL, "-a, -C, -p and -t count while a command runs" },
		{ "-I", "10ms", "x", "-I '10ms'" },
		{ "-I", "-5", "x", "-I '-5'" },
		{ "-C", "", "x", "-C ''" },
		{ "-C", "3-1", "x", "-C '3-1'" },
		{ "-C", "0,", "x", "-C '0,'" },
		{ "-C", "64", "x", "-C '64'" },
		{ "-C", "a", "x", "-C 'a'" },
		{ "--backend", "gpu", "x",
		  "--backend 'gpu': unknown backend (want auto, module, perf-read or clock)" },
		{ "--backend", "perf", "x", "--backend 'perf': unknown backend" },
		{ "--backend", "perf-mmap", "x", "reads only the calling thread's own counters" },
		{ "-f", "xml", "x", "-f 'xml': unknown format (want text, csv or json)" },
		{ "--csv", "x", NULL, "unknown option '--csv'" },
		{ "--preset", "nope", "x", "unknown preset 'nope'" },
		{ "-e", "", "x", "-e ''" },
		{ "--bogus", "x", NULL, "unknown option '--bogus'" },
		{ "-Z", "x", NULL, "unknown option '-Z'" },
		{ "-e", NULL, NULL, "needs an argument" },
	};
	struct stat_opts o;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "pmu-stat", (char *)bad[i].a, (char *)bad[i].b, (char *)bad[i].c,
				 NULL };
		int argc = 2 + !!bad[i].b + !!(bad[i].b && bad[i].c);

		EXPECT_EQ(-EINVAL, stat_opts_parse(argc, argv, &o, err, sizeof(err)))
			TH_LOG("case %zu", i);
		EXPECT_TRUE(strstr(err, bad[i].msg) != NULL)
			TH_LOG("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
	}
	/* A per-CPU breakdown the backend cannot give is refused, not left out. */
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "--per-cpu", "--backend", "module", "x"));
	EXPECT_TRUE(strstr(err, "--per-cpu: the module backend counts one CPU") != NULL)
		TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "--per-cpu", "--backend", "clock", "x"));
	EXPECT_TRUE(strstr(err, "--per-cpu: the clock backend counts no events") != NULL)
		TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "--backend", "clock", "--periods", "p.csv", "x"));
	EXPECT_TRUE(strstr(err, "--periods: the clock backend counts no events") != NULL)
		TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "--backend", "clock", "--svg", "p.svg", "x"));
	EXPECT_TRUE(strstr(err, "--svg: the clock backend counts no events") != NULL)
		TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "-f", "csv", "-x", ",", "x"));
	EXPECT_TRUE(strstr(err, "give -f or -x, not both") != NULL) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "--format", "text", "-x", ",", "x"));
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "-r", "0", "x"));
	EXPECT_TRUE(strstr(err, "-r '0'") != NULL) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "-r", "2", "--periods", "p.csv", "x"));
	EXPECT_TRUE(strstr(err, "not with -r") != NULL) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "-x", "", "x"));
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "-e", "inst_retired", "--preset", "ipc", "x"));
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "--preset", "ipc", "--preset", "tlb", "x"));
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "--backend", "clock", "-e", "inst_retired", "x"));
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "-e", "a", "-e", "a", "-e", "a", "-e", "a", "-e", "a",
				 "-e", "a", "-e", "a", "-e", "a", "-e", "a", "-e", "a", "-e", "a",
				 "-e", "a", "-e", "a", "-e", "a", "-e", "a", "-e", "a", "-e", "a",
				 "x"));
	EXPECT_TRUE(strstr(err, "too many event sets") != NULL);
}

/* What perf stat does but pmu-stat cannot is refused with why, never done some other way. */
TEST(perf_options_refused_with_why)
{
	static const struct {
		const char *args[6], *msg;
	} bad[] = {
		{ { "-A", "x" }, "-A (--no-aggr) gives a row per CPU of -a or -C" },
		{ { "-I", "100", "-f", "csv", "x" }, "not -f csv or json" },
		{ { "-I", "100", "-r", "2", "x" }, "-I with -r is not implemented" },
		{ { "-I", "100", "--read-period", "10", "x" }, "drop --read-period" },
		{ { "-I", "100", "--per-cpu", "x" }, "-I with --per-cpu is not implemented" },
		{ { "-a", "--per-cpu", "x" }, "with -a or -C, -A gives a row per CPU" },
		{ { "-p", "1", "-a", "x" }, "give one of them" },
		{ { "-p", "1", "-t", "2", "x" }, "give -p or -t, not both" },
		{ { "-p", "1", "--per-cpu", "x" }, "not with -p/-t" },
		{ { "--per-thread", "x" }, "--per-thread gives a row per thread of -p or -t" },
		{ { "-p", "1", "--per-thread", "-f", "json", "x" }, "not in -f csv or json" },
		{ { "--backend", "module", "-a", "x" }, "the module backend counts the one CPU" },
		{ { "--backend", "module", "-I", "100", "x" }, "-I: the module backend time-shares" },
	};
	struct stat_opts o;
	char err[300];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[8] = { "pmu-stat" };
		int argc = 1;

		while (argc < 7 && bad[i].args[argc - 1])
			argv[argc] = (char *)bad[i].args[argc - 1], argc++;
		EXPECT_EQ(-EINVAL, stat_opts_parse(argc, argv, &o, err, sizeof(err)))
			TH_LOG("case %zu", i);
		EXPECT_TRUE(strstr(err, bad[i].msg) != NULL)
			TH_LOG("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
	}
}

TEST(cpu_lists)
{
	int cpus[STAT_MAX_CPUS];

	ASSERT_EQ(4, stat_parse_cpus("3,0-2", cpus, STAT_MAX_CPUS));
	EXPECT_EQ(0, cpus[0]);
	EXPECT_EQ(3, cpus[3]);
	ASSERT_EQ(2, stat_parse_cpus("5,5,1", cpus, STAT_MAX_CPUS));
	EXPECT_EQ(1, cpus[0]);
	EXPECT_EQ(5, cpus[1]);
	EXPECT_EQ(64, stat_parse_cpus("0-63", cpus, STAT_MAX_CPUS));
	EXPECT_EQ(-EINVAL, stat_parse_cpus("0-63", cpus, 8));
	EXPECT_EQ(-EINVAL, stat_parse_cpus("1--2", cpus, STAT_MAX_CPUS));
	EXPECT_EQ(-EINVAL, stat_parse_cpus(",1", cpus, STAT_MAX_CPUS));
	EXPECT_EQ(-EINVAL, stat_parse_cpus("99999999999999999999", cpus, STAT_MAX_CPUS));
}

static void opts_with(struct stat_opts *o, const char *preset, const char *e0, const char *e1)
{
	memset(o, 0, sizeof(*o));
	o->interval_ms = STAT_DEFAULT_INTERVAL_MS;
	o->preset = preset;
	if (e0)
		o->event_args[o->nr_event_args++] = e0;
	if (e1)
		o->event_args[o->nr_event_args++] = e1;
}

TEST(event_sets)
{
	struct stat_setup s;
	struct stat_opts o;
	char err[300], many[400] = "", many2[1400] = "";
	int i;

	opts_with(&o, NULL, "inst_retired,l1d_cache_refill:k", "0x11");
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	EXPECT_EQ(2U, s.nr_sets);
	EXPECT_EQ(3U, s.nr_events);
	/* Named as written, with the mode: the default (user mode here) when none is given. */
	EXPECT_STREQ("inst_retired:u", s.ev[0].name);
	EXPECT_STREQ("l1d_cache_refill:k", s.ev[1].name);
	EXPECT_STREQ("INST_RETIRED", s.ev[0].spec.name);
	EXPECT_EQ(1U, s.ev[2].set);
	EXPECT_EQ(0x11U, s.ev[2].spec.event);
	/* Asked for by name: one the CPU lacks is an error, not a row "not supported". */
	for (i = 0; i < (int)s.nr_events; i++)
		EXPECT_FALSE(s.ev[i].optional);
	EXPECT_EQ(NULL, s.preset);

	opts_with(&o, NULL, "inst_retired,no_such_event", NULL);
	EXPECT_EQ(-ENOENT, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "no_such_event") != NULL) TH_LOG("%s", err);
	opts_with(&o, NULL, "inst_retired,,", NULL);
	EXPECT_EQ(-EINVAL, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	opts_with(&o, NULL, "0x10000", NULL);
	EXPECT_EQ(-ERANGE, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	/* ARM1176 names are not ARMv8's. */
	opts_with(&o, NULL, "inst_retired", NULL);
	EXPECT_EQ(-ENOENT, stat_setup_events(&o, MIDR_1176, 0, &s, err, sizeof(err)));

	for (i = 0; i < STAT_MAX_EVENTS + 1; i++)
		strcat(many, i ? ",0x08" : "0x08");
	opts_with(&o, NULL, many, NULL);
	EXPECT_EQ(-E2BIG, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "more than 31 events") != NULL) TH_LOG("%s", err);
	/* However long the list, the reason is not cut off. */
	for (i = 0; i < 100; i++)
		strcat(many2, i ? ",inst_retired" : "inst_retired");
	opts_with(&o, NULL, many2, NULL);
	EXPECT_EQ(-E2BIG, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "...'): more than 31 events") != NULL) TH_LOG("%s", err);
}

/*
 * perf's groups: each {...} is a set, a modifier after its brace the mode of its events
 * written without one; the events between groups make sets of their own. Malformed groups
 * are refused with the place named.
 */
TEST(perf_groups_are_sets)
{
	static const struct {
		const char *arg, *why;
	} bad[] = {
		{ "{inst_retired", "'{' at 1 has no '}'" },
		{ "inst_retired}", "'}' at 13 closes no group" },
		{ "{a,{b}}", "'{' at 4 opens a group inside a group" },
		{ "{inst_retired}x", "'x' after a group" },
		{ "{inst_retired}:p", "':p' after a group" },
		{ "{inst_retired}:", "':' after a group" },
		{ "inst_retired{cpu_cycles}", "a group at 13 follows no comma" },
		{ "{inst_retired},", "ends in a comma" },
		{ ",{inst_retired}", "an empty event before the group at 2" },
		{ "{inst_retired}:uu", "':uu' after a group" },
		{ "{cycles:k,instructions}:u", "cycles:k has a mode of its own in a group given one" },
	};
	struct stat_setup s;
	struct stat_opts o;
	char err[300];
	unsigned int i;

	opts_with(&o, NULL, "{inst_retired,cpu_cycles}:k,{l1d_cache,l1d_cache_refill:k}",
		  "r8,{0x11},r1b,0x3");
	o.default_mode = PMUSER_COUNT_USER;
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(5U, s.nr_sets);
	ASSERT_EQ(8U, s.nr_events);
	EXPECT_STREQ("inst_retired:k", s.ev[0].name);
	EXPECT_EQ((uint32_t)PMUSER_COUNT_KERNEL, s.ev[0].spec.flags);
	EXPECT_STREQ("cpu_cycles:k", s.ev[1].name);
	EXPECT_EQ(0U, s.ev[1].set);
	EXPECT_STREQ("l1d_cache:u", s.ev[2].name);
	EXPECT_EQ(1U, s.ev[2].set);
	/* In a group without a mode of its own an event keeps its own. */
	EXPECT_STREQ("l1d_cache_refill:k", s.ev[3].name);
	EXPECT_EQ(1U, s.ev[3].set);
	EXPECT_STREQ("r8:u", s.ev[4].name);
	EXPECT_EQ(2U, s.ev[4].set);
	EXPECT_EQ(0x11U, s.ev[5].spec.event);
	EXPECT_EQ(3U, s.ev[5].set);
	EXPECT_STREQ("r1b:u", s.ev[6].name);
	EXPECT_EQ(4U, s.ev[6].set);
	EXPECT_EQ(4U, s.ev[7].set);
	/* perf's own spelling of a group in both modes. */
	opts_with(&o, NULL, "{instructions,cycles}:uk", NULL);
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(1U, s.nr_sets);
	EXPECT_STREQ("cycles:uk", s.ev[1].name);
	EXPECT_STREQ("cycles", s.ev[1].perf_name);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		opts_with(&o, NULL, bad[i].arg, NULL);
		EXPECT_EQ(-EINVAL, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)))
			TH_LOG("%s", bad[i].arg);
		EXPECT_TRUE(strstr(err, bad[i].why) != NULL) TH_LOG("%s: %s", bad[i].arg, err);
	}
}

/*
 * Every event names its mode as perf writes modifiers: as written when given, else with the
 * default mode's, after a colon or right after a PMU's closing slash. The cycle counter
 * takes the events' mode when they share one, so that IPC is of one mode.
 */
TEST(events_name_their_mode)
{
	struct stat_setup s;
	struct stat_opts o;
	char err[300];

	opts_with(&o, NULL, "instructions,inst_retired:k,armv8_pmuv3_0/event=0x8/,"
		  "armv8_pmuv3_0/inst_retired/uk,r1b,CYCLES:u", NULL);
	o.default_mode = PMUSER_COUNT_MASK;
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(6U, s.nr_events);
	EXPECT_STREQ("instructions:uk", s.ev[0].name);
	EXPECT_EQ((uint32_t)PMUSER_COUNT_MASK, s.ev[0].spec.flags);
	EXPECT_STREQ("inst_retired:k", s.ev[1].name);
	EXPECT_EQ((uint32_t)PMUSER_COUNT_KERNEL, s.ev[1].spec.flags);
	EXPECT_STREQ("armv8_pmuv3_0/event=0x8/uk", s.ev[2].name);
	EXPECT_EQ((uint32_t)PMUSER_COUNT_MASK, s.ev[2].spec.flags);
	EXPECT_STREQ("armv8_pmuv3_0/inst_retired/uk", s.ev[3].name);
	EXPECT_STREQ("r1b:uk", s.ev[4].name);
	EXPECT_STREQ("CYCLES:u", s.ev[5].name);
	EXPECT_EQ((uint32_t)PMUSER_COUNT_USER, s.ev[5].spec.flags);
	/* perf's generic names, which its metrics are of, in any case. */
	EXPECT_STREQ("instructions", s.ev[0].perf_name);
	EXPECT_STREQ("", s.ev[1].perf_name);
	EXPECT_STREQ("", s.ev[2].perf_name);
	EXPECT_STREQ("cycles", s.ev[5].perf_name);
	/* Modes differ: the cycle counter counts the default mode. */
	EXPECT_EQ((uint32_t)PMUSER_COUNT_MASK, s.cycle_mode);

	opts_with(&o, NULL, "instructions:u", "branch-misses:u,r10:u");
	o.default_mode = PMUSER_COUNT_MASK;
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ((uint32_t)PMUSER_COUNT_USER, s.cycle_mode);

	/* A preset's events: the library's names with the default mode. */
	opts_with(&o, "ipc", NULL, NULL);
	o.default_mode = PMUSER_COUNT_USER;
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("INST_RETIRED:u", s.ev[0].name);
	EXPECT_EQ((uint32_t)PMUSER_COUNT_USER, s.cycle_mode);
	EXPECT_STREQ("u", stat_mode_suffix(PMUSER_COUNT_USER));
	EXPECT_STREQ("k", stat_mode_suffix(PMUSER_COUNT_KERNEL));
	EXPECT_STREQ("uk", stat_mode_suffix(PMUSER_COUNT_MASK));
}

/*
 * The default mode is decided as perf decides it: user and kernel for a process with
 * CAP_PERFMON or CAP_SYS_ADMIN, or where perf_event_paranoid <= 1; else user only. A child
 * that gives up its capabilities (uid nobody) gets what the paranoid level says.
 */
TEST(default_mode_as_perf_decides_it)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int paranoid = 99, status = -1;
	char why[200];
	uint32_t mode;
	pid_t pid;

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 99;
		fclose(f);
	}
	mode = stat_default_mode(why, sizeof(why));
	if (mode == PMUSER_COUNT_MASK) {
		EXPECT_TRUE(strstr(why, "user and kernel") != NULL) TH_LOG("%s", why);
	} else {
		EXPECT_TRUE(strstr(why, "user only, as perf falls back to :u") != NULL)
			TH_LOG("%s", why);
	}
	if (geteuid() != 0)
		SKIP(return, "not root: no capabilities to give up");
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		mode = stat_default_mode(why, sizeof(why));
		if (paranoid <= 1)
			_exit(mode == PMUSER_COUNT_MASK && strstr(why, "perf_event_paranoid") ? 0 : 1);
		_exit(mode == PMUSER_COUNT_USER && strstr(why, "user only") ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("paranoid %d: status %#x", paranoid, status);
}

TEST(presets_resolve_on_every_family)
{
	static const uint32_t midrs[] = { MIDR_A72, 0x410fc0f0 /* A15 */, 0x410fd034 /* A53 */,
					   MIDR_1176, 0 /* unknown: ARMv8 names */ };
	const struct pmuser_preset *list;
	unsigned int np = pmuser_presets(&list);
	struct stat_setup s;
	struct stat_opts o;
	char err[300];
	size_t m, p, i;

	ASSERT_LE(8U, np);
	for (m = 0; m < sizeof(midrs) / sizeof(midrs[0]); m++) {
		for (p = 0; p < np; p++) {
			unsigned int per_set = midrs[m] == MIDR_1176 ? 2 : 4;

			opts_with(&o, list[p].name, NULL, NULL);
			ASSERT_EQ(0, stat_setup_events(&o, midrs[m], 0, &s, err, sizeof(err)))
				TH_LOG("preset %s on 0x%x: %s", list[p].name, midrs[m], err);
			EXPECT_TRUE(s.preset == &list[p]);
			EXPECT_LE(1U, s.nr_sets);
			/* Sets fit the core's usual counters and come in order. */
			for (i = 0; i < s.nr_events; i++) {
				unsigned int set = s.ev[i].set, k, in_set = 0;

				EXPECT_LE(i ? s.ev[i - 1].set : 0, set);
				EXPECT_TRUE(s.ev[i].optional);
				for (k = 0; k < s.nr_events; k++)
					in_set += s.ev[k].set == set;
				EXPECT_GE(per_set, in_set) TH_LOG("preset %s", list[p].name);
			}
		}
	}
	/* The ARM1176 default is rpistat's: four sets of two, instructions in the first. */
	opts_with(&o, NULL, NULL, NULL);
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_1176, 0, &s, err, sizeof(err)));
	EXPECT_STREQ("default", s.preset->name);
	EXPECT_EQ(4U, s.nr_sets);
	EXPECT_EQ(8U, s.nr_events);
	EXPECT_STREQ("INSTR_EXEC:u", s.ev[0].name);
	EXPECT_STREQ("IBUF_STALL:u", s.ev[1].name);
	EXPECT_EQ(1U, s.ev[2].set);
	EXPECT_STREQ("BR_MISPREDICT:u", s.ev[7].name);
	EXPECT_EQ(3U, s.ev[7].set);
	/* The counters the device reports decide the split: 12 A72 events in sets of 6, 4, 1. */
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 6, &s, err, sizeof(err)));
	EXPECT_EQ(12U, s.nr_events);
	EXPECT_EQ(2U, s.nr_sets);
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	EXPECT_EQ(3U, s.nr_sets);
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 1, &s, err, sizeof(err)));
	EXPECT_EQ(12U, s.nr_sets);
	/* Any case, like the library. */
	opts_with(&o, "IPC", NULL, NULL);
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	EXPECT_STREQ("ipc", s.preset->name);
	EXPECT_EQ(1U, s.nr_events);
	opts_with(&o, "nope", NULL, NULL);
	EXPECT_EQ(-ENOENT, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "unknown preset 'nope'") != NULL) TH_LOG("%s", err);
}

/*
 * -d, -dd and -ddd, as perf stat counts them (perf 6.1's builtin-stat.c appends them to the
 * events asked for, or to its defaults): how often given, at most 3.
 */
TEST(detailed_levels)
{
	struct stat_opts o;
	char err[256];

	ASSERT_EQ(0, PARSE(&o, err, "x"));
	EXPECT_EQ(0U, o.detailed);
	ASSERT_EQ(0, PARSE(&o, err, "-d", "x"));
	EXPECT_EQ(1U, o.detailed);
	ASSERT_EQ(0, PARSE(&o, err, "-dd", "-e", "instructions", "x"));
	EXPECT_EQ(2U, o.detailed);
	ASSERT_EQ(0, PARSE(&o, err, "-d", "--detailed", "-d", "x"));
	EXPECT_EQ(3U, o.detailed);
	ASSERT_EQ(0, PARSE(&o, err, "-dddd", "--preset", "ipc", "x"));
	EXPECT_EQ(3U, o.detailed);
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "--backend", "clock", "-d", "x"));
	EXPECT_TRUE(strstr(err, "drop -e/--preset/-d") != NULL) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, PARSE(&o, err, "--detailed=2", "x"));
}

/* The detailed events one set of setup s holds, "name=0x04 name=-" by set, into buf. */
static const char *set_events(const struct stat_setup *s, unsigned int set, char *buf,
			      size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < s->nr_events && used < len; i++) {
		const struct stat_event *e = &s->ev[i];

		if (e->set != set)
			continue;
		if (e->supported)
			used += (size_t)snprintf(buf + used, len - used, "%s%s=0x%02x", used ? " " : "",
						 e->name, e->spec.event);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%s=-", used ? " " : "",
						 e->name);
	}
	return buf;
}

/*
 * The sets -d makes after the others: perf's detailed events in the default mode, named as
 * perf prints them, a cache's loads and misses in one set, as many pairs in a set as the
 * counters hold; those the core's driver has no event for are there, not supported, in the
 * set of their pair; all optional (not supported where the CPU lacks them, as a preset's).
 */
TEST(detailed_sets)
{
	struct stat_setup s;
	struct stat_opts o;
	char err[300], buf[400];
	size_t i;

	opts_with(&o, NULL, NULL, NULL);
	o.detailed = 1;
	o.default_mode = PMUSER_COUNT_USER;
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	/* The default preset's 12 events in 3 sets, then -d's. */
	EXPECT_STREQ("default", s.preset->name);
	ASSERT_EQ(16U, s.nr_events);
	EXPECT_EQ(4U, s.nr_sets);
	EXPECT_STREQ("L1-dcache-loads:u=0x04 L1-dcache-load-misses:u=0x03 LLC-loads:u=0x36 "
		     "LLC-load-misses:u=0x37", set_events(&s, 3, buf, sizeof(buf)));
	for (i = 12; i < s.nr_events; i++) {
		EXPECT_TRUE(s.ev[i].optional);
		EXPECT_EQ((uint32_t)PMUSER_COUNT_USER, s.ev[i].spec.flags);
	}
	EXPECT_STREQ("L1-dcache-load-misses", s.ev[13].perf_name);
	EXPECT_STREQ("L1D_CACHE_REFILL", s.ev[13].spec.name);

	/* -dd and -ddd after -e's sets; the A72 has no prefetch events for perf. */
	opts_with(&o, NULL, "instructions:k", NULL);
	o.detailed = 3;
	o.default_mode = PMUSER_COUNT_MASK;
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(13U, s.nr_events);
	EXPECT_EQ(4U, s.nr_sets);
	EXPECT_FALSE(s.ev[0].optional);
	EXPECT_STREQ("L1-icache-loads:uk=0x14 L1-icache-load-misses:uk=0x01 dTLB-loads:uk=0x25 "
		     "dTLB-load-misses:uk=0x05", set_events(&s, 2, buf, sizeof(buf)));
	EXPECT_STREQ("iTLB-loads:uk=0x26 iTLB-load-misses:uk=0x02 L1-dcache-prefetches:uk=- "
		     "L1-dcache-prefetch-misses:uk=-", set_events(&s, 3, buf, sizeof(buf)));
	EXPECT_STREQ("L1-dcache-prefetches", s.ev[11].perf_name);
	/* Modes differ: the cycle counter counts the default mode. */
	EXPECT_EQ((uint32_t)PMUSER_COUNT_MASK, s.cycle_mode);

	/* The counters the device reports decide the split, pairs whole. */
	o.detailed = 2;
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 6, &s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(3U, s.nr_sets);
	EXPECT_EQ(1U, s.ev[6].set);
	EXPECT_EQ(2U, s.ev[10].set);
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 3, &s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(6U, s.nr_sets);

	/* The ARM1176's two counters, and its driver's map: many not supported. */
	opts_with(&o, NULL, "instr_exec", NULL);
	o.detailed = 3;
	o.default_mode = PMUSER_COUNT_USER;
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_1176, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(13U, s.nr_events);
	EXPECT_EQ(4U, s.nr_sets);
	EXPECT_STREQ("L1-dcache-loads:u=0x0a L1-dcache-load-misses:u=0x0b LLC-loads:u=- "
		     "LLC-load-misses:u=-", set_events(&s, 1, buf, sizeof(buf)));
	EXPECT_STREQ("L1-icache-loads:u=- L1-icache-load-misses:u=0x00 dTLB-loads:u=- "
		     "dTLB-load-misses:u=0x04", set_events(&s, 2, buf, sizeof(buf)));
	EXPECT_STREQ("iTLB-loads:u=- iTLB-load-misses:u=0x03 L1-dcache-prefetches:u=- "
		     "L1-dcache-prefetch-misses:u=-", set_events(&s, 3, buf, sizeof(buf)));

	/* No room left: refused, naming -d. */
	opts_with(&o, NULL, "0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,"
		  "0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08,0x08",
		  NULL);
	o.detailed = 2;
	EXPECT_EQ(-E2BIG, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "-d: more than 31 events") != NULL) TH_LOG("%s", err);
	opts_with(&o, NULL, NULL, NULL);
	for (i = 0; i < STAT_MAX_SETS; i++)
		o.event_args[o.nr_event_args++] = "0x08";
	o.detailed = 1;
	EXPECT_EQ(-E2BIG, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "-d: more than 16 event sets") != NULL) TH_LOG("%s", err);
}

/* The metric labelled label among m[0..n) of the calling test. */
#define FIND(label)	pmuser_metric_value_find(m, n, label)

/*
 * rpistat's naive matrix multiply, scaled counts from the seed: 1,245,571,856 instructions,
 * 11,794,467,561 cycles -> CPI 9.469; DC 18,587,014 accesses, 3,735,024 misses -> 20.095 %
 * (rpistat's "DC miss ratio", the library's L1D miss ratio);
 * micro TLB 904,166 -> 0.726 PTI; branches 135,335,622 -> 108.653 PTI, mispredicted
 * 1,485,457 -> 1.098 %.
 */
TEST(metrics_reproduce_rpistat)
{
	static const struct {
		const char *name;
		uint64_t raw, scaled;
	} seed[] = {
		{ "INSTR_EXEC", 316920650, 1245571856 }, { "IBUF_STALL", 69764851, 274192088 },
		{ "DCACHE_ACCESS", 4619258, 18587014 }, { "DCACHE_MISS", 928231, 3735024 },
		{ "DTLB_MISS", 224704, 904166 }, { "MAIN_TLB_MISS", 164438, 661667 },
		{ "BR_EXEC", 33633705, 135335622 }, { "BR_MISPREDICT", 369167, 1485457 },
	};
	struct pmuser_metric_value m[STAT_MAX_METRICS];
	struct stat_result *r = calloc(1, sizeof(*r));
	struct stat_setup s;
	struct stat_opts o;
	char err[300];
	size_t n, i;

	ASSERT_TRUE(r != NULL);
	opts_with(&o, "default", NULL, NULL);
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_1176, 0, &s, err, sizeof(err)));
	for (i = 0; i < s.nr_events; i++) {
		ASSERT_STREQ(seed[i].name, s.ev[i].spec.name);
		s.ev[i].raw = seed[i].raw;
		s.ev[i].scaled = (double)seed[i].scaled;
		s.ev[i].duty = (double)seed[i].raw / (double)seed[i].scaled;
	}
	r->backend = STAT_MODULE;
	r->have_cycles = true;
	r->cycles.raw = 11794467561ULL;
	r->cycles.scaled = (double)r->cycles.raw;
	r->cycles.duty = 1;
	n = stat_metrics(&s, r, m, STAT_MAX_METRICS);
	ASSERT_TRUE(FIND("CPI") != NULL);
	EXPECT_EQ(9469, (int)lround(FIND("CPI")->value * 1000));
	EXPECT_EQ(20095, (int)lround(FIND("L1D miss ratio")->value * 1000));
	EXPECT_EQ(726, (int)lround(FIND("DTLB_MISS rate")->value * 1000));
	EXPECT_EQ(531, (int)lround(FIND("MAIN_TLB_MISS rate")->value * 1000));
	EXPECT_EQ(108653, (int)lround(FIND("BR_EXEC rate")->value * 1000));
	EXPECT_EQ(1098, (int)lround(FIND("Mispredict ratio")->value * 1000));
	EXPECT_EQ(2325, (int)lround(FIND("IBUF stall percent")->value * 1000));
	EXPECT_STREQ("PTI", FIND("BR_EXEC rate")->metric->unit);
	EXPECT_STREQ("%", FIND("L1D miss ratio")->metric->unit);
	EXPECT_EQ(220, (int)lround(FIND("IBUF_STALL rate")->value));
	free(r);
}

TEST(duplicate_events_combine)
{
	struct pmuser_metric_value m[STAT_MAX_METRICS];
	struct stat_result *r = calloc(1, sizeof(*r));
	struct stat_setup s;
	struct stat_opts o;
	char err[300];
	size_t n;

	ASSERT_TRUE(r != NULL);
	/* Two half-time copies of INST_RETIRED make one full-time estimate. */
	opts_with(&o, NULL, "inst_retired", "inst_retired");
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	s.ev[0].raw = 600;
	s.ev[0].duty = 0.6;
	s.ev[1].raw = 400;
	s.ev[1].duty = 0.4;
	r->have_cycles = true;
	r->cycles.scaled = 2000;
	r->cycles.duty = 1;
	n = stat_metrics(&s, r, m, STAT_MAX_METRICS);
	ASSERT_TRUE(FIND("IPC") != NULL);
	EXPECT_EQ(500, (int)lround(FIND("IPC")->value * 1000));
	/* No instructions: no rates. */
	s.ev[0].duty = s.ev[1].duty = 0;
	EXPECT_EQ(0U, stat_metrics(&s, r, m, STAT_MAX_METRICS));
	free(r);
}

TEST(thousands_separators)
{
	char buf[40];

	EXPECT_STREQ("0", stat_group(buf, sizeof(buf), 0));
	EXPECT_STREQ("999", stat_group(buf, sizeof(buf), 999));
	EXPECT_STREQ("1,000", stat_group(buf, sizeof(buf), 1000));
	EXPECT_STREQ("11,794,467,561", stat_group(buf, sizeof(buf), 11794467561ULL));
	EXPECT_STREQ("18,446,744,073,709,551,615", stat_group(buf, sizeof(buf), UINT64_MAX));
	/* Too small a buffer truncates, never overflows. */
	EXPECT_GT(6U, strlen(stat_group(buf, 6, 1234567)));
}

TEST(command_lookup)
{
	char path[4096];

	EXPECT_EQ(0, stat_command_check("sh", path, sizeof(path)));
	EXPECT_TRUE(strchr(path, '/') != NULL);
	EXPECT_EQ(-ENOENT, stat_command_check("no-such-command-pmuser", path, sizeof(path)));
	EXPECT_EQ(-ENOENT, stat_command_check("/nonexistent/x", path, sizeof(path)));
	EXPECT_EQ(-EACCES, stat_command_check("/etc/passwd", path, sizeof(path)));
	EXPECT_EQ(-EACCES, stat_command_check("/", path, sizeof(path)));
	EXPECT_EQ(-ENOENT, stat_command_check("", path, sizeof(path)));
}

/* The launcher: held until released, statuses passed through, exec failures reported. */
TEST(launcher)
{
	char *exit5[] = { "sh", "-c", "exit 5", NULL };
	char *killself[] = { "sh", "-c", "kill -USR1 $$", NULL };
	char *missing[] = { "/nonexistent/x", NULL };
	char *marker[] = { "sh", "-c", "touch pmu-stat-host-marker", NULL };
	char *sleeper[] = { "sleep", "30", NULL };
	struct stat_child ch;

	ASSERT_EQ(0, stat_child_spawn(&ch, exit5, NULL, 0));
	ASSERT_EQ(0, stat_child_release(&ch));
	while (!stat_child_wait(&ch, 1000000000ULL))
		;
	stat_child_done(&ch);
	EXPECT_EQ(5, stat_exit_code(ch.status));

	ASSERT_EQ(0, stat_child_spawn(&ch, killself, NULL, 0));
	ASSERT_EQ(0, stat_child_release(&ch));
	while (!stat_child_wait(&ch, 1000000000ULL))
		;
	stat_child_done(&ch);
	EXPECT_EQ(128 + SIGUSR1, stat_exit_code(ch.status));

	ASSERT_EQ(0, stat_child_spawn(&ch, missing, NULL, 0));
	EXPECT_EQ(-ENOENT, stat_child_release(&ch));
	stat_child_done(&ch);

	/* Aborted setup: the command never runs. */
	unlink("pmu-stat-host-marker");
	ASSERT_EQ(0, stat_child_spawn(&ch, marker, NULL, 0));
	stat_child_abort(&ch);
	EXPECT_EQ(STAT_EXIT_SETUP, stat_exit_code(ch.status));
	EXPECT_NE(0, access("pmu-stat-host-marker", F_OK));

	/* A SIGTERM to pmu-stat reaches the child. */
	ASSERT_EQ(0, stat_child_spawn(&ch, sleeper, NULL, 0));
	ASSERT_EQ(0, stat_child_release(&ch));
	EXPECT_EQ(0, stat_child_wait(&ch, 20000000ULL));
	kill(getpid(), SIGTERM);
	while (!stat_child_wait(&ch, 1000000000ULL))
		;
	stat_child_done(&ch);
	EXPECT_EQ(128 + SIGTERM, stat_exit_code(ch.status));
}

static char *report(int (*fn)(FILE *, const struct stat_opts *, const struct stat_setup *,
			      const struct stat_sys *, const struct stat_result *),
		    const struct stat_opts *o, const struct stat_setup *s,
		    const struct stat_sys *sys, const struct stat_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fn(f, o, s, sys, r);
	fclose(f);
	return buf;
}

/* A whole run as on an x86 box: the clock backend, wall time, the workload's exit status. */
/*
 * Ctrl-C on a terminal: the kernel sends SIGINT to the whole foreground process group, so the
 * workload has it already and pmu-stat must not send it again. pmu-stat runs as the
 * foreground group of a pseudo-terminal; the workload (Python, whose handler runs for each
 * signal it gets) waits for the first SIGINT (up to 60 s), counts any more for 1 s after it
 * and writes the count.
 */
#define CTRL_C_COUNT "pmuser-stat-ctrl-c"
TEST(terminal_interrupt_reaches_the_workload_once)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	char buf[64], *slave;
	int master, status;
	FILE *f;
	pid_t pid;

	unlink(CTRL_C_COUNT);
	master = posix_openpt(O_RDWR | O_NOCTTY);
	ASSERT_LE(0, master);
	ASSERT_EQ(0, grantpt(master));
	ASSERT_EQ(0, unlockpt(master));
	ASSERT_EQ(0, fcntl(master, F_SETFL, O_NONBLOCK));
	slave = ptsname(master);
	ASSERT_TRUE(slave != NULL);
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		/* A session of its own, with the pty as its terminal and itself in front. */
		if (setsid() < 0 || (fd = open(slave, O_RDWR)) < 0 || ioctl(fd, TIOCSCTTY, 0) < 0)
			_exit(98);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(STAT_BIN, "pmu-stat", "-o", "/dev/null", "--", "python3", "-c",
		      "import signal, time\n"
		      "n = [0]\n"
		      "signal.signal(signal.SIGINT, lambda *a: n.__setitem__(0, n[0] + 1))\n"
		      "open('" CTRL_C_COUNT ".ready', 'w').close()\n"
		      "end = time.monotonic() + 60\n"
		      "while n[0] == 0 and time.monotonic() < end:\n"
		      "    time.sleep(0.01)\n"
		      "end = time.monotonic() + 1\n"
		      "while time.monotonic() < end:\n"
		      "    time.sleep(0.01)\n"
		      "open('" CTRL_C_COUNT "', 'w').write('%d\\n' % n[0])\n", (char *)NULL);
		_exit(99);
	}
	/* Bounded wait for the workload's trap to be set. */
	for (int i = 0; i < 1500 && access(CTRL_C_COUNT ".ready", F_OK); i++)
		nanosleep(&pause, NULL);
	ASSERT_EQ(0, access(CTRL_C_COUNT ".ready", F_OK));
	ASSERT_EQ(1, write(master, "\003", 1));
	/* Drain the pty while waiting, so that nothing blocks on a full terminal. */
	while (waitpid(pid, &status, WNOHANG) == 0)
		if (read(master, buf, sizeof(buf)) <= 0)
			nanosleep(&pause, NULL);
	close(master);
	unlink(CTRL_C_COUNT ".ready");
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("status %#x", status);
	f = fopen(CTRL_C_COUNT, "r");
	ASSERT_TRUE(f != NULL);
	ASSERT_TRUE(fgets(buf, sizeof(buf), f) != NULL);
	fclose(f);
	EXPECT_STREQ("1\n", buf);
}

TEST(clock_run_and_reports)
{
	struct stat_result *r = calloc(1, sizeof(*r));
	struct stat_sys sys;
	struct stat_setup s;
	struct stat_opts o;
	char err[600], *text;

	/* o keeps pointers into argv: an array that outlives the statement. */
	char *argv[] = { "pmu-stat", "--backend", "clock", "--read-period", "5", "--", "sh", "-c",
			 "sleep 0.2; exit 3", NULL };
	char *argv_module[] = { "pmu-stat", "--backend", "module", "-e", "inst_retired", "--",
				"touch", "pmu-stat-host-marker", NULL };

	ASSERT_TRUE(r != NULL);
	ASSERT_EQ(0, stat_opts_parse(9, argv, &o, err, sizeof(err)));
	stat_sys_collect(&sys);
	EXPECT_LE(1U, sys.nr_cpu);
	ASSERT_EQ(0, stat_setup_events(&o, stat_sys_midr(&sys), 0, &s, err, sizeof(err)));
	ASSERT_EQ(0, stat_measure(&o, &s, &sys, r, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(STAT_CLOCK, r->backend);
	EXPECT_EQ(3, stat_exit_code(r->wait_status));
	EXPECT_LE(20000000ULL, r->elapsed_ns);
	EXPECT_LE(3U, r->total_periods);

	text = report(stat_report_text, &o, &s, &sys, r);
	ASSERT_TRUE(text != NULL);
	EXPECT_TRUE(strstr(text, "pmu-stat: sh -c sleep 0.2; exit 3") != NULL);
	EXPECT_TRUE(strstr(text, "hardware counters are unavailable") != NULL) TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "Exit status:") != NULL);
	free(text);
	text = report(stat_report_csv, &o, &s, &sys, r);
	EXPECT_TRUE(strstr(text, "# backend=clock") != NULL);
	EXPECT_TRUE(strstr(text, "# exit_status=3") != NULL);
	/* Wall time only: the rows say so rather than leave the events out. */
	EXPECT_TRUE(strstr(text, "\nnot_supported,cycles,all,all,,,,\n") != NULL) TH_LOG("%s", text);
	free(text);
	text = report(stat_report_json, &o, &s, &sys, r);
	EXPECT_TRUE(strstr(text, "\"backend\": \"clock\"") != NULL);
	EXPECT_TRUE(strstr(text, "\"command\": [\"sh\", \"-c\", \"sleep 0.2; exit 3\"]") != NULL)
		TH_LOG("%s", text);
	free(text);

	/* Asked for by name, a backend that cannot work here fails before the command runs. */
	if (access("/dev/pmuser", F_OK)) {
		ASSERT_EQ(0, stat_opts_parse(8, argv_module, &o, err, sizeof(err)));
		unlink("pmu-stat-host-marker");
		ASSERT_EQ(0, stat_setup_events(&o, stat_sys_midr(&sys), 0, &s, err, sizeof(err)));
		EXPECT_GT(0, stat_measure(&o, &s, &sys, r, err, sizeof(err)));
		EXPECT_TRUE(strstr(err, "module backend") != NULL) TH_LOG("%s", err);
		EXPECT_NE(0, access("pmu-stat-host-marker", F_OK));
	}
	free(r);
}

/* Reports and period files from synthetic module-backend results: numbers and layout. */
TEST(reports_and_periods)
{
	struct stat_result *r = calloc(1, sizeof(*r));
	struct stat_period row = { 0 };
	struct stat_sys sys;
	struct stat_setup s;
	struct stat_opts o;
	char err[300], *text, *buf = NULL;
	size_t len = 0;
	FILE *f;
	int k;

	char *argv[] = { "pmu-stat", "-e", "inst_retired", "-e", "br_pred,br_mis_pred", "x", NULL };

	ASSERT_TRUE(r != NULL);
	ASSERT_EQ(0, stat_opts_parse(6, argv, &o, err, sizeof(err)));
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err)));
	memset(&sys, 0, sizeof(sys));
	sys.nr_online = sys.nr_cpu = 1;
	sys.cpu[0].midr = MIDR_A72;
	snprintf(sys.pmu, sizeof(sys.pmu), "test PMU");
	r->backend = STAT_MODULE;
	r->module_cpu = 0;
	r->interval_ms = 100;
	r->have_cycles = true;
	r->cycles.supported = true;
	snprintf(r->cycles.name, sizeof(r->cycles.name), "cycles:u");
	r->cycles.raw = 2000000;
	r->cycles.scaled = 2000000;
	r->cycles.duty = 1;
	r->total_periods = 4;
	r->set_periods[0] = r->set_periods[1] = 2;
	r->set_duty[0] = r->set_duty[1] = 0.5;
	s.ev[0].raw = 500000;
	s.ev[1].raw = 50000;
	s.ev[2].raw = 1000;
	for (k = 0; k < 3; k++) {
		s.ev[k].duty = 0.5;
		s.ev[k].scaled = 2.0 * (double)s.ev[k].raw;
		s.ev[k].periods = 2;
	}
	text = report(stat_report_text, &o, &s, &sys, r);
	ASSERT_TRUE(text != NULL);
	EXPECT_TRUE(strstr(text, "  cycles:u:             2,000,000  [2,000,000]\n") != NULL)
		TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "  inst_retired:u:       500,000  [1,000,000]  duty 50.0 %") != NULL);
	EXPECT_TRUE(strstr(text, "  Set 1 periods:        2 (duty 50.0 %)") != NULL);
	EXPECT_TRUE(strstr(text, "  CPI:                  2.000") != NULL);
	EXPECT_TRUE(strstr(text, "  BR_PRED rate:         100.000 PTI") != NULL);
	EXPECT_TRUE(strstr(text, "  Mispredict ratio:     2.000 %") != NULL);
	EXPECT_TRUE(strstr(text, "Cortex-A72 (MIDR 0x410fd083)") != NULL);
	free(text);
	text = report(stat_report_csv, &o, &s, &sys, r);
	EXPECT_TRUE(strstr(text, "event,inst_retired:u,0,all,500000,1000000,0.500000,2\n") != NULL)
		TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "metric,IPC,,,,0.500000,,\n") != NULL);
	free(text);

	/* No count is never a 0: an event never on a counter, a CPU it was never counted on. */
	s.ev[2].duty = 0;
	r->nr_counted_cpus = 2;
	r->counted_cpus[0] = 0;
	r->counted_cpus[1] = 1;
	r->cycles.cpu_raw[0] = r->cycles.raw;
	r->cycles.cpu_scaled[0] = r->cycles.scaled;
	r->cycles.cpu_scaled[1] = NAN;
	s.ev[0].cpu_raw[0] = s.ev[0].raw;
	s.ev[0].cpu_scaled[0] = s.ev[0].scaled;
	s.ev[0].cpu_scaled[1] = NAN;
	text = report(stat_report_text, &o, &s, &sys, r);
	EXPECT_TRUE(strstr(text, "CPU0 500,000 [1,000,000]  CPU1 not counted\n") != NULL)
		TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "CPU0 2,000,000 [2,000,000]  CPU1 not counted\n") != NULL)
		TH_LOG("%s", text);
	free(text);
	text = report(stat_report_csv, &o, &s, &sys, r);
	EXPECT_TRUE(strstr(text, "event,inst_retired:u,0,0,500000,1000000,0.500000,4\n") != NULL)
		TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "not_counted,inst_retired:u,0,1,,,,\n") != NULL) TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "not_counted,br_mis_pred:u,1,all,,,,\n") != NULL)
		TH_LOG("%s", text);
	free(text);
	text = report(stat_report_json, &o, &s, &sys, r);
	EXPECT_TRUE(strstr(text, "{\"cpu\": 1, \"counted\": false}") != NULL) TH_LOG("%s", text);
	free(text);
	r->nr_counted_cpus = 0;
	s.ev[2].duty = 0.5;

	r->periods.keep = true;
	for (k = 0; k < 4; k++) {
		row.t_ns = (uint64_t)(k + 1) * 100000000;
		row.len_ns = row.running_ns = 100000000;
		row.cpu = 0;
		row.set = k % 2;
		row.ev = -1;
		row.delta = 500000;
		ASSERT_EQ(0, stat_periods_add(&r->periods, &row));
		row.ev = k % 2 ? 1 : 0;
		row.delta = k % 2 ? 25000 : 250000;
		ASSERT_EQ(0, stat_periods_add(&r->periods, &row));
	}
	r->elapsed_ns = 400000000;
	f = open_memstream(&buf, &len);
	ASSERT_EQ(0, stat_periods_write(f, &s, r));
	fclose(f);
	EXPECT_TRUE(strstr(buf, "time_s,period_s,cpu,set,event,delta,running_s\n") != NULL);
	EXPECT_TRUE(strstr(buf, "0.200000,0.100000,0,1,br_pred:u,25000,0.100000\n") != NULL)
		TH_LOG("%s", buf);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ASSERT_EQ(0, stat_periods_plot(f, &s, r, "pmu-stat: <x> & y"));
	fclose(f);
	EXPECT_EQ(0, strncmp(buf, "<svg", 4));
	EXPECT_TRUE(strstr(buf, "&lt;x&gt; &amp; y") != NULL);
	EXPECT_TRUE(strstr(buf, ">br_pred:u<") != NULL);
	EXPECT_TRUE(strstr(buf, "max 2.5M/s") != NULL) TH_LOG("%s", buf);
	EXPECT_TRUE(strstr(buf, "</svg>\n") != NULL);
	free(buf);
	stat_periods_free(&r->periods);
	free(r);
}

/* Sets event i's results: raw, scaled, and perf's enabled and running ns. */
static void counted(struct stat_event *e, uint64_t raw, double scaled, double enabled,
		    double running)
{
	e->raw = raw;
	e->scaled = scaled;
	e->enabled_ns = enabled;
	e->running_ns = running;
	e->duty = enabled > 0 ? running / enabled : 0;
}

/* Text an output function wrote into memory. */
static char *sep_text(const struct stat_opts *o, const struct stat_setup *s,
		      const struct stat_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	stat_report_sep(f, o, s, r);
	fclose(f);
	return buf;
}

/*
 * -x lines as perf stat writes them: value, unit, event, run time (the counter's running
 * ns), % running, and perf's metric of its generic events in the same mode; only the events
 * asked for, no cycle counter of pmu-stat's; <not counted> and <not supported> as perf
 * prints them; with -r the mean's error after the event; with -A a row per CPU, rows within
 * events. The text report scales the cycles as every count, so IPC follows from them.
 */
TEST(perf_stat_x_lines)
{
	char *argv[] = { "pmu-stat", "-x", ",", "-e",
			 "instructions:u,cycles:u,branches:u,branch-misses:u,r8:u,cycles:k", "x",
			 NULL };
	char *argv_a[] = { "pmu-stat", "-x", ";", "-C", "0,1", "-A", "-e",
			   "instructions:u,cycles:u", "x", NULL };
	struct stat_result *r = calloc(1, sizeof(*r));
	struct stat_sys sys = { .nr_online = 1, .nr_cpu = 1 };
	struct stat_setup s;
	struct stat_opts o;
	char err[300], *text;

	ASSERT_TRUE(r != NULL);
	ASSERT_EQ(0, stat_opts_parse(6, argv, &o, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	r->backend = STAT_PERF_READ;
	r->runs = 1;
	r->have_cycles = true;
	r->cycles.supported = true;
	snprintf(r->cycles.name, sizeof(r->cycles.name), "cycles:u");
	counted(&r->cycles, 500, 1000, 4e6, 2e6);
	counted(&s.ev[0], 1000, 2000, 4e6, 2e6);
	counted(&s.ev[1], 500, 1000, 4e6, 2e6);
	counted(&s.ev[2], 100, 100, 4e6, 4e6);
	counted(&s.ev[3], 5, 5, 4e6, 4e6);
	counted(&s.ev[4], 0, 0, 4e6, 0);		/* never on a counter */
	s.ev[5].supported = false;
	text = sep_text(&o, &s, r);
	ASSERT_TRUE(text != NULL);
	EXPECT_STREQ("2000,,instructions:u,2000000,50.00,2.00,insn per cycle\n"
		     "1000,,cycles:u,2000000,50.00,,\n"
		     "100,,branches:u,4000000,100.00,,\n"
		     "5,,branch-misses:u,4000000,100.00,5.00,of all branches\n"
		     "<not counted>,,r8:u,0,0.00,,\n"
		     "<not supported>,,cycles:k,0,100.00,,\n", text);
	free(text);

	/* -r: the relative standard error of the mean after the event. */
	r->runs = 3;
	s.ev[0].stderr_pct = 0.126;
	text = sep_text(&o, &s, r);
	EXPECT_TRUE(strstr(text, "2000,,instructions:u,0.13%,2000000,50.00,2.00,insn per cycle\n") != NULL)
		TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "<not counted>,,r8:u,,0,0.00,,\n") != NULL) TH_LOG("%s", text);
	free(text);
	r->runs = 1;

	/* The text report: every count scaled, the cycles too; IPC is of the scaled counts. */
	text = report(stat_report_text, &o, &s, &sys, r);
	ASSERT_TRUE(text != NULL);
	EXPECT_TRUE(strstr(text, "  cycles:u:             500  [1,000]  duty 50.0 %\n") != NULL)
		TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "  instructions:u:       1,000  [2,000]  duty 50.0 %\n") != NULL)
		TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "  IPC:                  2.000") != NULL) TH_LOG("%s", text);
	free(text);
	stat_big_num = false;
	text = report(stat_report_text, &o, &s, &sys, r);
	stat_big_num = true;
	EXPECT_TRUE(strstr(text, "  instructions:u:       1000  [2000]  duty 50.0 %\n") != NULL)
		TH_LOG("%s", text);
	free(text);

	/* -A: a row per CPU, each with its own metric; CPUs within events, as perf orders. */
	ASSERT_EQ(0, stat_opts_parse(9, argv_a, &o, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	r->nr_counted_cpus = 2;
	r->counted_cpus[0] = 0;
	r->counted_cpus[1] = 1;
	s.ev[0].cpu_scaled[0] = 300, s.ev[0].cpu_scaled[1] = 50;
	s.ev[1].cpu_scaled[0] = 100, s.ev[1].cpu_scaled[1] = NAN;
	for (int k = 0; k < 2; k++) {
		s.ev[0].cpu_raw[k] = (uint64_t)s.ev[0].cpu_scaled[k];
		s.ev[0].cpu_enabled[k] = s.ev[0].cpu_running[k] = 1000;
		s.ev[1].cpu_raw[k] = k ? 0 : 100;
		s.ev[1].cpu_enabled[k] = 1000;
		s.ev[1].cpu_running[k] = k ? 0 : 1000;
	}
	counted(&s.ev[0], 350, 350, 2000, 2000);
	counted(&s.ev[1], 100, 200, 2000, 1000);
	text = sep_text(&o, &s, r);
	EXPECT_STREQ("CPU0;300;;instructions:u;1000;100.00;3.00;insn per cycle\n"
		     "CPU1;50;;instructions:u;1000;100.00;;\n"
		     "CPU0;100;;cycles:u;1000;100.00;;\n"
		     "CPU1;<not counted>;;cycles:u;0;0.00;;\n", text);
	free(text);

	/* -o: perf's file starts with when the run started. */
	o.output = "f";
	r->started = 1;
	text = sep_text(&o, &s, r);
	EXPECT_EQ(0, strncmp(text, "# started on ", 13)) TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "\n\nCPU0;300;") != NULL) TH_LOG("%s", text);
	free(text);
	free(r);
}

/*
 * perf stat's cache metrics beside a cache's load misses, over its loads of the same mode
 * (Debian's perf 6.1, tools/perf/util/stat-shadow.c): "of all L1-dcache accesses", "of all
 * L1-icache accesses", "of all LL-cache accesses", "of all dTLB cache accesses", "of all iTLB
 * cache accesses", whichever of perf's spellings named them; not over stores, nor over loads
 * of another mode.
 */
TEST(perf_stat_cache_metrics)
{
	char *argv[] = { "pmu-stat", "-x", ",", "-e",
			 "L1-dcache-loads:u,l1d-misses:u,LLC:u,LLC-load-misses:u,dTLB-loads:u,"
			 "d-tlb-load-misses:u,iTLB-loads:u,iTLB-load-misses:u,L1-icache-loads:u,"
			 "L1-icache-load-misses:u,L1-dcache-store-misses:u,dTLB-load-misses:k", "x",
			 NULL };
	static const uint64_t counts[] = { 400, 10, 50, 5, 200, 2, 100, 1, 300, 30, 7, 9 };
	struct stat_result *r = calloc(1, sizeof(*r));
	struct stat_setup s;
	struct stat_opts o;
	char err[300], *text;
	size_t i;

	ASSERT_TRUE(r != NULL);
	ASSERT_EQ(0, stat_opts_parse(6, argv, &o, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(12U, s.nr_events);
	EXPECT_STREQ("L1-dcache-load-misses", s.ev[1].perf_name);
	EXPECT_STREQ("LLC-loads", s.ev[2].perf_name);
	EXPECT_STREQ("dTLB-load-misses", s.ev[5].perf_name);
	r->backend = STAT_PERF_READ;
	r->runs = 1;
	r->have_cycles = true;
	r->cycles.supported = true;
	for (i = 0; i < s.nr_events; i++)
		counted(&s.ev[i], counts[i], (double)counts[i], 1e6, 1e6);
	text = sep_text(&o, &s, r);
	ASSERT_TRUE(text != NULL);
	EXPECT_STREQ("400,,L1-dcache-loads:u,1000000,100.00,,\n"
		     "10,,l1d-misses:u,1000000,100.00,2.50,of all L1-dcache accesses\n"
		     "50,,LLC:u,1000000,100.00,,\n"
		     "5,,LLC-load-misses:u,1000000,100.00,10.00,of all LL-cache accesses\n"
		     "200,,dTLB-loads:u,1000000,100.00,,\n"
		     "2,,d-tlb-load-misses:u,1000000,100.00,1.00,of all dTLB cache accesses\n"
		     "100,,iTLB-loads:u,1000000,100.00,,\n"
		     "1,,iTLB-load-misses:u,1000000,100.00,1.00,of all iTLB cache accesses\n"
		     "300,,L1-icache-loads:u,1000000,100.00,,\n"
		     "30,,L1-icache-load-misses:u,1000000,100.00,10.00,of all L1-icache accesses\n"
		     "7,,L1-dcache-store-misses:u,1000000,100.00,,\n"
		     "9,,dTLB-load-misses:k,1000000,100.00,,\n", text);
	free(text);
	/* -d's events get their metrics too. */
	{
		char *argv_d[] = { "pmu-stat", "-x", ",", "-d", "-e", "instructions:u", "x", NULL };
		struct stat_setup sd;
		struct stat_opts od;

		ASSERT_EQ(0, stat_opts_parse(7, argv_d, &od, err, sizeof(err))) TH_LOG("%s", err);
		od.default_mode = PMUSER_COUNT_USER;
		ASSERT_EQ(0, stat_setup_events(&od, MIDR_A72, 0, &sd, err, sizeof(err)))
			TH_LOG("%s", err);
		ASSERT_EQ(5U, sd.nr_events);
		for (i = 0; i < sd.nr_events; i++)
			counted(&sd.ev[i], counts[i] * 10, (double)counts[i] * 10, 1e6, 1e6);
		text = sep_text(&od, &sd, r);
		EXPECT_STREQ("4000,,instructions:u,1000000,100.00,,\n"
			     "100,,L1-dcache-loads:u,1000000,100.00,,\n"
			     "500,,L1-dcache-load-misses:u,1000000,100.00,500.00,of all L1-dcache accesses\n"
			     "50,,LLC-loads:u,1000000,100.00,,\n"
			     "2000,,LLC-load-misses:u,1000000,100.00,4000.00,of all LL-cache accesses\n",
			     text);
		free(text);
	}
	/* Loads never counted, or counted 0: no metric, as for perf's other metrics. */
	counted(&s.ev[0], 0, 0, 1e6, 1e6);
	counted(&s.ev[2], 0, 0, 1e6, 0);
	text = sep_text(&o, &s, r);
	EXPECT_TRUE(strstr(text, "10,,l1d-misses:u,1000000,100.00,,\n") != NULL) TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "5,,LLC-load-misses:u,1000000,100.00,,\n") != NULL)
		TH_LOG("%s", text);
	free(text);
	free(r);
}

/*
 * -I: each interval's deltas as perf stat -I prints them, scaled by the interval's own
 * times: -x lines after the time, or text under perf's header; -A rows; and -v's counts.
 */
TEST(perf_stat_interval_lines)
{
	char *argv_x[] = { "pmu-stat", "-I", "100", "-x", ",", "-e", "instructions:u,cycles:u", "x",
			   NULL };
	char *argv_t[] = { "pmu-stat", "-I", "100", "-e", "instructions:u,cycles:u", "x", NULL };
	char *argv_a[] = { "pmu-stat", "-I", "100", "-x", ",", "-a", "-A", "-e", "instructions:u",
			   "x", NULL };
	struct stat_interval *iv = calloc(1, sizeof(*iv));
	struct stat_result *r = calloc(1, sizeof(*r));
	struct stat_setup s;
	struct stat_opts o;
	unsigned int printed = 0;
	char err[300], *buf = NULL;
	const char *head;
	size_t len = 0;
	FILE *f;

	ASSERT_TRUE(iv && r);
	ASSERT_EQ(0, stat_opts_parse(8, argv_x, &o, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	r->backend = STAT_PERF_READ;
	r->runs = 1;
	iv->t_ns = 100123456;
	iv->nr_rows = 1;
	iv->counted = true;
	iv->d[0][0] = (struct pmuser_count){ .value = 1000, .enabled = 100, .running = 50 };
	iv->d[1][0] = (struct pmuser_count){ .value = 1000, .enabled = 100, .running = 100 };
	f = open_memstream(&buf, &len);
	ASSERT_EQ(0, stat_report_interval(f, &o, &s, r, iv, &printed));
	iv->t_ns = 150000000;
	iv->d[0][0].running = 0;
	ASSERT_EQ(0, stat_report_interval(f, &o, &s, r, iv, &printed));
	fclose(f);
	EXPECT_STREQ("     0.100123456,2000,,instructions:u,50,50.00,2.00,insn per cycle\n"
		     "     0.100123456,1000,,cycles:u,100,100.00,,\n"
		     "     0.150000000,<not counted>,,instructions:u,0,0.00,,\n"
		     "     0.150000000,1000,,cycles:u,100,100.00,,\n", buf);
	free(buf);

	/* Text: perf's header, then the count, the event and the metric as perf lays them out. */
	ASSERT_EQ(0, stat_opts_parse(6, argv_t, &o, err, sizeof(err))) TH_LOG("%s", err);
	iv->t_ns = 100123456;
	iv->d[0][0].running = 100;
	printed = 0;
	buf = NULL;
	f = open_memstream(&buf, &len);
	ASSERT_EQ(0, stat_report_interval(f, &o, &s, r, iv, &printed));
	fclose(f);
	head = "#           time             counts unit events\n"
	       "     0.100123456              1,000      instructions:u   ";
	EXPECT_EQ(0, strncmp(buf, head, strlen(head))) TH_LOG("%s", buf);
	EXPECT_TRUE(strstr(buf, " #    1.00  insn per cycle\n") != NULL) TH_LOG("%s", buf);
	free(buf);

	/* -A: a row per CPU after the time. */
	ASSERT_EQ(0, stat_opts_parse(10, argv_a, &o, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, stat_setup_events(&o, MIDR_A72, 0, &s, err, sizeof(err))) TH_LOG("%s", err);
	r->nr_counted_cpus = 2;
	r->counted_cpus[0] = 0;
	r->counted_cpus[1] = 1;
	iv->nr_rows = 2;
	iv->d[0][0] = (struct pmuser_count){ .value = 428, .enabled = 61439856, .running = 61439856 };
	iv->d[0][1] = (struct pmuser_count){ .value = 60044531, .enabled = 61439632,
					     .running = 61439632 };
	printed = 0;
	buf = NULL;
	f = open_memstream(&buf, &len);
	ASSERT_EQ(0, stat_report_interval(f, &o, &s, r, iv, &printed));
	fclose(f);
	EXPECT_STREQ("     0.100123456,CPU0,428,,instructions:u,61439856,100.00,,\n"
		     "     0.100123456,CPU1,60044531,,instructions:u,61439632,100.00,,\n", buf);
	free(buf);

	/* -v: perf's "event: count enabled running". */
	counted(&s.ev[0], 17712, 17712, 282752, 282752);
	buf = NULL;
	f = open_memstream(&buf, &len);
	stat_report_verbose(f, &o, &s, r);
	fclose(f);
	EXPECT_TRUE(strstr(buf, "\ninstructions:u: 17712 282752 282752\n") != NULL)
		TH_LOG("%s", buf);
	free(buf);
	free(iv);
	free(r);
}

/*
 * -r on a command that fails: the repeats end there, and pmu-stat says so (as it says which
 * later run it leaves out); its status is the command's.
 */
TEST(repeats_end_at_a_failing_command_said)
{
	char out[4096], cmd[512];

	snprintf(cmd, sizeof(cmd), "%s --backend clock -r 3 -o /dev/null -- sh -c 'exit 3'",
		 STAT_BIN);
	EXPECT_EQ(3, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_STREQ("pmu-stat: run 1 of 3 exited with status 3: no more runs; the counts are of the 1 run done\n",
		     out);
	snprintf(cmd, sizeof(cmd), "%s --backend clock -r 3 -o /dev/null -- sh -c 'kill $$'",
		 STAT_BIN);
	EXPECT_EQ(143, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_TRUE(strstr(out, "run 1 of 3 was killed by signal 15 (Terminated): no more runs") !=
		    NULL) TH_LOG("%s", out);
}

/*
 * An output that cannot be written is found before the command runs (which would otherwise
 * have run and lost its result and status); a written report keeps the command's status.
 */
TEST(outputs_opened_before_the_command_runs)
{
	char out[4096], cmd[512];
	const char *marker = "pmuser-stat-ran";

	unlink(marker);
	snprintf(cmd, sizeof(cmd), "%s --svg /nonexistent/x.svg -- touch %s", STAT_BIN, marker);
	EXPECT_EQ(2, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_TRUE(strstr(out, "/nonexistent/x.svg") != NULL) TH_LOG("%s", out);
	EXPECT_NE(0, access(marker, F_OK)) TH_LOG("the command ran");
	snprintf(cmd, sizeof(cmd), "%s -o /nonexistent/r.txt -- touch %s", STAT_BIN, marker);
	EXPECT_EQ(2, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(0, access(marker, F_OK)) TH_LOG("the command ran");
	snprintf(cmd, sizeof(cmd), "%s -o pmuser-stat-r.txt --svg pmuser-stat.svg -- sh -c 'exit 3'",
		 STAT_BIN);
	EXPECT_EQ(3, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_EQ(0, access("pmuser-stat-r.txt", F_OK));
	EXPECT_EQ(0, access("pmuser-stat.svg", F_OK));
	/* An empty command name is said to be one, as a shell says it. */
	snprintf(cmd, sizeof(cmd), "%s --backend clock ''", STAT_BIN);
	EXPECT_EQ(127, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_STREQ("pmu-stat: '': command not found\n", out);
	/* A report that could not be written says why, and is a failure of pmu-stat's. */
	snprintf(cmd, sizeof(cmd), "%s --backend clock -o /dev/full -- true", STAT_BIN);
	EXPECT_EQ(1, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "writing report /dev/full: No space left on device"))
		TH_LOG("%s", out);
}

/*
 * The command inherits none of pmu-stat's outputs: not as extra descriptors, and not as a
 * standard stream the caller closed (the report would get the command's output).
 */
TEST(command_inherits_no_output)
{
	char out[4096], cmd[512], report[4096];
	FILE *f;
	size_t n;

	snprintf(cmd, sizeof(cmd), "%s -o pmuser-r.txt --periods pmuser-p.csv "
		 "-- sh -c 'ls -l /proc/self/fd/ 2>&1 | grep -c pmuser-' ", STAT_BIN);
	EXPECT_EQ(1, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_STREQ("0\n", out);
	unlink("pmuser-r.txt");
	snprintf(cmd, sizeof(cmd), "%s --backend clock -o pmuser-r.txt -- "
		 "sh -c 'echo marker-$((6 * 7))' >&-", STAT_BIN);
	tool_run(cmd, false, out, sizeof(out));
	f = fopen("pmuser-r.txt", "r");
	ASSERT_NE(NULL, f);
	n = fread(report, 1, sizeof(report) - 1, f);
	report[n] = 0;
	fclose(f);
	EXPECT_EQ(NULL, strstr(report, "marker-42")) TH_LOG("%s", report);
	EXPECT_NE(NULL, strstr(report, "seconds time elapsed")) TH_LOG("%s", report);
	/* Without -o the report is standard error's: no other output may name that file. */
	snprintf(cmd, sizeof(cmd), "%s --periods /dev/stderr -- true 2>pmuser-e.txt; "
		 "echo $?; cat pmuser-e.txt", STAT_BIN);
	tool_run(cmd, false, out, sizeof(out));
	EXPECT_EQ(0, strncmp(out, "2\n", 2)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "standard error (the report) and --periods name the same file"))
		TH_LOG("%s", out);
}

/*
 * A SIGTERM to pmu-stat during -r ends the repeats, whether it comes while a run is on (it
 * goes on to the command) or between two runs: the runs done are reported and pmu-stat exits
 * as interrupted (bounded: a signal lost would leave it repeating for minutes). A nohup'ed
 * pmu-stat (SIGHUP ignored) goes on through a hangup.
 */
TEST(signal_ends_repeats_with_a_report)
{
	char out[8192], cmd[1024];

	/* The command ignores the signal: only pmu-stat's own handling ends the repeats. */
	snprintf(cmd, sizeof(cmd), "rm -f pmuser-m; timeout -s KILL 15 %s -r 100000 -- "
		 "sh -c 'trap \"\" TERM; touch pmuser-m' 2>pmuser-e.txt & p=$!; i=0; "
		 "while [ ! -e pmuser-m ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done; "
		 "sleep 0.2; kill -TERM $p; wait $p; echo rc=$?; cat pmuser-e.txt", STAT_BIN);
	tool_run(cmd, false, out, sizeof(out));
	EXPECT_TRUE(strncmp(out, "rc=143\n", 7) == 0) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "stopped by signal 15 (Terminated) after run ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "seconds time elapsed")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "trap '' HUP; %s -r 5 -- sh -c 'kill -HUP $PPID' "
		 "2>pmuser-e.txt; echo rc=$?; grep -c stopped pmuser-e.txt", STAT_BIN);
	tool_run(cmd, false, out, sizeof(out));
	EXPECT_STREQ("rc=0\n0\n", out);
}

/*
 * A later run that a stop signal came in is left out of the means even when the command
 * exits 0 on it: it was cut short. The signal comes once run 2 has begun (bounded waits).
 */
TEST(run_cut_short_by_a_signal_left_out)
{
	char out[8192], cmd[1024];

	snprintf(cmd, sizeof(cmd), "rm -f pmuser-m pmuser-m2; timeout -s KILL 15 %s -r 5 -f json -- "
		 "sh -c 'trap \"exit 0\" TERM; if [ -e pmuser-m ]; then touch pmuser-m2; "
		 "sleep 5 & wait; else touch pmuser-m; fi' >pmuser-o.txt 2>pmuser-e.txt & p=$!; "
		 "i=0; while [ ! -e pmuser-m2 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); "
		 "done; sleep 0.1; kill -TERM $p; wait $p; echo rc=$?; cat pmuser-e.txt pmuser-o.txt",
		 STAT_BIN);
	tool_run(cmd, false, out, sizeof(out));
	EXPECT_EQ(0, strncmp(out, "rc=143\n", 7)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "run 2 of 5 was cut short by signal 15 (Terminated): the "
			       "counts are the means of the 1 before it")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "stopped by signal 15 (Terminated) after run 2 of 5"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"runs\": 1,")) TH_LOG("%s", out);
}

/* With -r the CSV and JSON reports say how many runs their means are of. */
TEST(machine_reports_name_their_runs)
{
	char out[16384], cmd[512];

	snprintf(cmd, sizeof(cmd), "%s -r 3 -f csv -- true", STAT_BIN);
	ASSERT_EQ(0, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\n# runs=3\n")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "%s -r 2 -f json -- true", STAT_BIN);
	ASSERT_EQ(0, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"runs\": 2,")) TH_LOG("%s", out);
}

/*
 * A later run that is killed or fails is not one of the runs the means are of: it may have
 * been cut short. pmu-stat says which run it left out, the report's means are those of the
 * runs before it, and the exit status is that run's.
 */
TEST(killed_run_left_out_of_the_means)
{
	char out[16384], cmd[1024], *tail;
	double elapsed = 0;

	unlink("pmuser-once");
	snprintf(cmd, sizeof(cmd), "%s -r 4 -f json -- sh -c '[ -e pmuser-once ] && kill -KILL $$; "
		 "touch pmuser-once' 2>pmuser-e.txt; echo rc=$?; cat pmuser-e.txt", STAT_BIN);
	tool_run(cmd, false, out, sizeof(out));
	EXPECT_EQ(0, strncmp(out, "rc=137\n", 7)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"runs\": 1,")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"exit_status\": 137,")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "pmu-stat: run 2 of 4 was killed by signal 9 (Killed): the "
			       "counts are the means of the 1 before it\n")) TH_LOG("%s", out);
	unlink("pmuser-once");
	snprintf(cmd, sizeof(cmd), "%s -r 4 -- sh -c '[ -e pmuser-once ] && exit 3; "
		 "touch pmuser-once; sleep 0.1' 2>pmuser-e.txt; echo rc=$?; cat pmuser-e.txt",
		 STAT_BIN);
	tool_run(cmd, false, out, sizeof(out));
	EXPECT_EQ(0, strncmp(out, "rc=3\n", 5)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "run 2 of 4 exited with status 3: the counts are the means "
			       "of the 1 before it\n")) TH_LOG("%s", out);
	/* The one run kept slept 0.1 s: the elapsed mean is its, not halved by the failed run. */
	tail = strstr(out, "seconds time elapsed");
	ASSERT_NE(NULL, tail) TH_LOG("%s", out);
	while (tail > out && tail[-1] != '\n')
		tail--;
	ASSERT_EQ(1, sscanf(tail, " %lf seconds time elapsed", &elapsed)) TH_LOG("%s", tail);
	EXPECT_GE(elapsed, 0.1);
	unlink("pmuser-once");
}

/*
 * With -r, user and system seconds are means over the runs as elapsed is, not the last
 * run's: of 8 runs only the first spins, so the mean is an eighth of a spin's user time,
 * where the last run's would be next to nothing and a sum a whole spin. A shared machine's
 * CPU time for the same spin varies by up to about 1.7 times; each bound leaves twice that.
 */
TEST(repeats_report_mean_user_time)
{
	char out[16384], cmd[1024];
	const char *spin = "i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done";
	double one = -1, mean = -1;
	const char *p;

	snprintf(cmd, sizeof(cmd), "%s -f json -- sh -c '%s'", STAT_BIN, spin);
	ASSERT_EQ(0, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	p = strstr(out, "\"user_s\": ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	ASSERT_EQ(1, sscanf(p, "\"user_s\": %lf", &one));
	ASSERT_GT(one, 0.05) TH_LOG("the spin took %f s of user time", one);
	unlink("pmuser-once");
	snprintf(cmd, sizeof(cmd), "%s -r 8 -f json -- sh -c '[ -e pmuser-once ] || { %s; }; "
		 "touch pmuser-once'", STAT_BIN, spin);
	ASSERT_EQ(0, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	p = strstr(out, "\"user_s\": ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	ASSERT_EQ(1, sscanf(p, "\"user_s\": %lf", &mean));
	EXPECT_LT(mean, 0.4 * one) TH_LOG("mean %f s, one spin %f s", mean, one);
	EXPECT_GT(mean, 0.035 * one) TH_LOG("mean %f s, one spin %f s", mean, one);
	unlink("pmuser-once");
}

/*
 * -x: perf stat's lines of the events asked for; without counters every one says so, none is
 * a 0. The clock backend counts nothing at all, so it has no line.
 */
TEST(separator_lines_without_counters)
{
	char out[8192], cmd[512];

	snprintf(cmd, sizeof(cmd), "%s --backend clock -x ';' -r 2 -- true", STAT_BIN);
	ASSERT_EQ(0, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_STREQ("", out);
	snprintf(cmd, sizeof(cmd), "%s -x ';' -r 2 -e instructions:u -- true", STAT_BIN);
	ASSERT_EQ(0, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	if (strncmp(out, "<not supported>", 15))
		SKIP(return, "this host counts: %.200s", out);
	EXPECT_STREQ("<not supported>;;instructions:u;;0;100.00;;\n", out);
}

/* The text report ends as perf stat's does: elapsed, user and system seconds. */
TEST(text_report_ends_like_perf_stat)
{
	char out[8192], cmd[512], *tail;
	double elapsed = 0, user = -1, sys = -1;

	snprintf(cmd, sizeof(cmd), "%s -- sleep 0.2", STAT_BIN);
	ASSERT_EQ(0, tool_run(cmd, true, out, sizeof(out))) TH_LOG("%s", out);
	tail = strstr(out, "seconds time elapsed");
	ASSERT_NE(NULL, tail) TH_LOG("%s", out);
	while (tail > out && tail[-1] != '\n')
		tail--;
	ASSERT_EQ(3, sscanf(tail, " %lf seconds time elapsed %lf seconds user %lf seconds sys",
			    &elapsed, &user, &sys)) TH_LOG("%s", tail);
	EXPECT_GE(elapsed, 0.2);
	EXPECT_LT(elapsed, 30.0);
	EXPECT_GE(user, 0.0);
	EXPECT_GE(sys, 0.0);
}

TEST_HARNESS_MAIN
