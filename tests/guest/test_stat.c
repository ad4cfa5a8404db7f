// SPDX-License-Identifier: MIT
/*
 * pmu-stat in the guest. pmu-spin runs an asm loop of exactly 2 instructions per iteration,
 * so under QEMU's -icount its count is predictable; an independent perf_event_open counter
 * in this program (enabled on exec, like perf stat) measures the same workload run bare.
 *
 *  - instructions: pmu-stat (perf and module backends) vs the prediction (0.1 %) and vs the
 *    bare count (0.5 %); the perturbation (pmu-stat's count over bare) is printed and
 *    asserted to be at most 0.5 %;
 *  - multiplexing: more copies of INST_RETIRED than counters (perf) and more sets than one
 *    (module TDM): every scaled count within 2 % of the full-time count;
 *  - perf's event names (instructions:u, armv8_pmuv3_0/event=0x8/u) count exactly what
 *    inst_retired counts beside them; every tool's --version;
 *  - period file and plot; CSV, JSON; per-CPU sums;
 *  - bad input: clear message, exit status != 0, the workload never started (it would have
 *    created a marker file); exit status and signals passed through.
 */
#include <fcntl.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "pmuser_test.h"

#define OUT_FILE	"/tmp/pmu-stat.out"
#define CSV_FILE	"/tmp/pmu-stat.csv"
#define MARKER		"/tmp/pmu-stat-workload-ran"
#define SPIN_ITER	25000000ULL	/* 5e7 instructions: start-up is < 0.05 % of it */
#define SPIN_ARG	"25000000"
#define STAT_ROWS_MAX	32

/*
 * Starts argv as uid (0: as this process is) with its stdout and stderr in path: its pid, or
 * -1. With fixed the address space is laid out without randomisation, so that a command's
 * user-mode count does not vary from run to run: the C library's string functions take a
 * few instructions more or less by the 16-byte alignment of a randomised stack.
 */
static pid_t spawn(const char *path, uid_t uid, bool fixed, char *const argv[])
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			_exit(98);
		dup2(fd, 1);
		dup2(fd, 2);
		if (uid && (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
			_exit(97);
		if (fixed && personality(ADDR_NO_RANDOMIZE) < 0)
			_exit(96);
		execvp(argv[0], argv);
		_exit(99);
	}
	return pid;
}

/* Starts argv with stdout and stderr into OUT_FILE; returns its pid. */
static pid_t start(char *const argv[])
{
	return spawn(OUT_FILE, 0, false, argv);
}

/* Runs argv with stdout and stderr into OUT_FILE; returns the wait status. */
static int run(char *const argv[])
{
	int status = -1;
	pid_t pid = start(argv);

	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

/* Whether the file path contains text; when it does not and log is set, its contents are logged. */
static int path_search(const char *path, const char *text, int log)
{
	char buf[16384];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (strstr(buf, text))
		return 1;
	if (log)
		fprintf(stderr, "# expected '%s' in %s:\n%s\n", text, path, buf);
	return 0;
}

static int output_has(const char *text)
{
	return path_search(OUT_FILE, text, 1);
}

/* For text that must not be there: no log. */
static int output_contains(const char *text)
{
	return path_search(OUT_FILE, text, 0);
}

static int output_search_in(const char *path, const char *text)
{
	return path_search(path, text, 1);
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

struct csv_row {
	char set[16], cpu[16];
	unsigned long long raw;
	double scaled, duty;
	unsigned int periods;
};

/*
 * Reads the event rows named name (and cpu, e.g. "all") of pmu-stat's CSV report into rows;
 * returns how many.
 */
static int csv_rows(const char *path, const char *name, const char *cpu, struct csv_row *rows,
		    int max)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < max) {
		char kind[16], ev[64];
		struct csv_row r;

		if (sscanf(line, "%15[^,],%63[^,],%15[^,],%15[^,],%llu,%lf,%lf,%u", kind, ev, r.set,
			   r.cpu, &r.raw, &r.scaled, &r.duty, &r.periods) != 8)
			continue;
		if (strcmp(kind, "event") || strcasecmp(ev, name) || strcmp(r.cpu, cpu))
			continue;
		rows[n++] = r;
	}
	fclose(f);
	return n;
}

/*
 * The workload run bare on CPU 0, counted by this program: user-mode instructions from exec
 * on. Workloads are pinned to CPU 0 for comparisons: QEMU's INST_RETIRED follows the global
 * -icount, which on an SMP guest also advances while the other vCPU runs (its kernel ticks
 * leak tens of thousands of instructions into a counter of a task on CPU 1, where CPU 0
 * does the timekeeping).
 */
static long long bare_instructions(char *const argv[])
{
	struct perf_event_attr pa;
	int go[2], fd, status;
	long long count = -1;
	char byte = 'g';
	pid_t pid;

	if (pipe(go))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (pmuser_thread_pin(0) || read(go[0], &byte, 1) != 1)
			_exit(98);
		execvp(argv[0], argv);
		_exit(99);
	}
	close(go[0]);
	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_HARDWARE;
	pa.config = hw_config_on(PERF_COUNT_HW_INSTRUCTIONS, 0);
	pa.exclude_kernel = 1;
	pa.exclude_hv = 1;
	pa.inherit = 1;
	pa.disabled = 1;
	pa.enable_on_exec = 1;
	fd = (int)syscall(SYS_perf_event_open, &pa, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (write(go[1], &byte, 1) != 1)
		fd = -1;
	close(go[1]);
	waitpid(pid, &status, 0);
	if (fd >= 0 && WIFEXITED(status) && !WEXITSTATUS(status) &&
	    read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
		count = -1;
	if (fd >= 0)
		close(fd);
	return count;
}

static unsigned int cpu0_counters(void)
{
	struct pmuser_cpu_info ci;

	return cpu_info_of(0, &ci) ? 0 : ci.nr_counters;
}

static double rel(double a, double b)
{
	return (a - b) / b;
}

/* ---- bad input: runs everywhere, armel included --------------------------------------- */

TEST(bad_input_never_starts_the_workload)
{
	char *unknown[] = { "pmu-stat", "-e", "inst_retired,no_such_event", "--", "touch", MARKER, NULL };
	char *no_cmd[] = { "pmu-stat", "-e", "inst_retired", NULL };
	char *no_cmd2[] = { "pmu-stat", "--", NULL };
	char *not_found[] = { "pmu-stat", "--", "no-such-command-pmuser", NULL };
	char *not_found_path[] = { "pmu-stat", "--", "/nonexistent/bin/x", NULL };
	char *not_exec[] = { "pmu-stat", "--", "/etc/pmuser/env", NULL };
	char *bad_interval[] = { "pmu-stat", "-I", "0", "--", "touch", MARKER, NULL };
	char *bad_backend[] = { "pmu-stat", "--backend", "gpu", "--", "touch", MARKER, NULL };
	char *bad_cpus[] = { "pmu-stat", "-C", "1-0", "--", "touch", MARKER, NULL };
	char *bad_preset[] = { "pmu-stat", "--preset", "nope", "--", "touch", MARKER, NULL };
	char *bad_format[] = { "pmu-stat", "-f", "xml", "--", "touch", MARKER, NULL };
	char *bad_cpu[] = { "pmu-stat", "-C", "63", "--", "touch", MARKER, NULL };

	unlink(MARKER);
	EXPECT_EQ(2, exit_code(run(unknown)));
	EXPECT_TRUE(output_has("no_such_event"));
	EXPECT_EQ(2, exit_code(run(no_cmd)));
	EXPECT_TRUE(output_has("no command"));
	EXPECT_EQ(2, exit_code(run(no_cmd2)));
	EXPECT_EQ(127, exit_code(run(not_found)));
	EXPECT_TRUE(output_has("no-such-command-pmuser: command not found"));
	EXPECT_EQ(127, exit_code(run(not_found_path)));
	EXPECT_TRUE(output_has("command not found"));
	EXPECT_EQ(126, exit_code(run(not_exec)));
	EXPECT_TRUE(output_has("not executable"));
	EXPECT_EQ(2, exit_code(run(bad_interval)));
	EXPECT_TRUE(output_has("-I '0'"));
	EXPECT_EQ(2, exit_code(run(bad_backend)));
	EXPECT_EQ(2, exit_code(run(bad_cpus)));
	EXPECT_EQ(2, exit_code(run(bad_preset)));
	EXPECT_EQ(2, exit_code(run(bad_format)));
	EXPECT_TRUE(output_has("want text, csv or json"));
	EXPECT_EQ(2, exit_code(run(bad_cpu)));
	EXPECT_TRUE(output_has("CPU 63 is not online"));
	EXPECT_FALSE(file_exists(MARKER));
}

/*
 * perf's names that name nothing here: exit status 2 with the cause, the workload not run.
 * Each case has one fault, in names every core knows (ARM1176 has cycles only).
 */
TEST(bad_perf_names_say_why)
{
	static const struct {
		const char *spec, *cause;
	} cases[] = {
		{ "cycles,armv8_pmuv3_0/no_such_event/", "no event of that name on this core" },
		{ "arm_dsu_0/event=0x11/", "'arm_dsu_0' is not a CPU PMU" },
		{ "cycles:p", "bad modifier ':p'" },
		{ "armv8_pmuv3_0/config1=1/", "term 'config1=1' is not supported" },
	};
	char *argv[] = { "pmu-stat", "-e", NULL, "--", "touch", MARKER, NULL };
	size_t i;

	unlink(MARKER);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		argv[2] = (char *)cases[i].spec;
		EXPECT_EQ(2, exit_code(run(argv))) TH_LOG("-e %s", cases[i].spec);
		EXPECT_TRUE(output_has(cases[i].cause)) TH_LOG("-e %s", cases[i].spec);
	}
	EXPECT_FALSE(file_exists(MARKER));
}

/* Every tool's --version: its name and a version on standard output, exit status 0. */
TEST(every_tool_prints_its_version)
{
	static const char *const tools[] = {
		"pmu-chase", "pmu-hazards", "pmu-hello", "pmu-info", "pmu-lat", "pmu-matrix",
		"pmu-misp", "pmu-overhead", "pmu-scale", "pmu-spin", "pmu-stat", "pmu-sweep",
		"pmu-walk",
	};
	char *argv[] = { NULL, "--version", NULL }, want[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tools); i++) {
		argv[0] = (char *)tools[i];
		EXPECT_EQ(0, exit_code(run(argv))) TH_LOG("%s --version", tools[i]);
		snprintf(want, sizeof(want), "%s 0.", tools[i]);
		EXPECT_TRUE(output_has(want)) TH_LOG("%s --version", tools[i]);
	}
}

/* A set the module cannot hold at once is refused before anything runs. */
TEST(module_set_too_large)
{
	unsigned int n = cpu0_counters(), i;
	char spec[256] = "", *argv[] = { "pmu-stat", "--backend", "module", "-e", spec, "--",
					 "touch", MARKER, NULL };

	ASSERT_LT(0, n) TH_LOG("no counters reported for CPU 0");
	ASSERT_GT(30, n);
	for (i = 0; i <= n; i++)
		strcat(spec, i ? ",0x08" : "0x08");
	unlink(MARKER);
	EXPECT_EQ(1, exit_code(run(argv)));
	EXPECT_TRUE(output_has("event counters"));
	EXPECT_FALSE(file_exists(MARKER));
}

/* Where inline reads trap (ARM1176 under QEMU), the module backend refuses before the run. */
TEST(module_without_counting_fails_cleanly)
{
	char *argv[] = { "pmu-stat", "--backend", "module", "-e", "0x07", "--", "touch", MARKER,
			 NULL };

	if (counters_move())
		SKIP(return, "counters work here: covered by the counting tests");
	unlink(MARKER);
	EXPECT_EQ(1, exit_code(run(argv)));
	EXPECT_TRUE(output_has("inline counter reads do not work"));
	EXPECT_FALSE(file_exists(MARKER));
}

TEST(exit_status_passes_through)
{
	char *seven[] = { "pmu-stat", "-o", "/dev/null", "--", "sh", "-c", "exit 7", NULL };
	char *killed[] = { "pmu-stat", "-o", "/dev/null", "--", "sh", "-c", "kill -9 $$", NULL };
	char *ok[] = { "pmu-stat", "-o", "/dev/null", "--", "true", NULL };

	EXPECT_EQ(7, exit_code(run(seven)));
	EXPECT_EQ(128 + SIGKILL, exit_code(run(killed)));
	EXPECT_EQ(0, exit_code(run(ok)));
}

/* SIGTERM to pmu-stat reaches the workload, which dies of it; pmu-stat reports and exits 143. */
TEST(signals_are_forwarded)
{
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int fd = open(OUT_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		dup2(fd, 2);
		execlp("pmu-stat", "pmu-stat", "--", "sleep", "30", (char *)NULL);
		_exit(99);
	}
	ASSERT_LT(0, pid);
	nanosleep(&pause, NULL);
	kill(pid, SIGTERM);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(128 + SIGTERM, exit_code(status));
	EXPECT_TRUE(output_has("killed by signal 15"));
}

/* ---- counting ------------------------------------------------------------------------- */

/*
 * pmu-stat's INST_RETIRED for pmu-spin with one backend: within 0.1 % of 2 x iterations,
 * within 0.5 % of the bare count, and at most 0.5 % above it.
 */
static void check_instructions(struct __test_metadata *_metadata, const char *backend)
{
	char *spin[] = { "pmu-spin", SPIN_ARG, NULL };
	char *argv[] = { "pmu-stat", "--backend", (char *)backend, "--pin-cpus", "0", "-e",
			 "inst_retired:u", "-f", "csv", "-o", CSV_FILE, "--", "pmu-spin", SPIN_ARG, NULL };
	double predicted = 2.0 * SPIN_ITER;
	long long bare = bare_instructions(spin);
	struct csv_row row;

	ASSERT_LT(0, bare) TH_LOG("perf_event_open counter for the bare run failed");
	ASSERT_EQ(0, exit_code(run(argv)));
	ASSERT_EQ(1, csv_rows(CSV_FILE, "inst_retired:u", "all", &row, 1));
	ksft_print_msg("perturbation (%s backend): pmu-spin %s: bare %lld instructions, under pmu-stat %llu (%+.4f %%); predicted %.0f (%+.4f %%)\n",
		       backend, SPIN_ARG, bare, row.raw, 100 * rel((double)row.raw, (double)bare),
		       predicted, 100 * rel((double)row.raw, predicted));
	EXPECT_LT(0.999, row.duty);	/* one event: counted full time */
	EXPECT_GT(0.005, fabs(rel((double)row.raw, (double)bare)));
	EXPECT_GE(0.005, rel((double)row.raw, (double)bare));
	if (getenv("PMUSER_ICOUNT_EXACT")) {
		EXPECT_GT(0.001, fabs(rel((double)row.raw, predicted)));
		EXPECT_GT(0.001, fabs(rel((double)bare, predicted)));
	}
}

TEST(instructions_perf_backend)
{
	REQUIRE_COUNTING();
	check_instructions(_metadata, "perf-read");
}

TEST(instructions_module_backend)
{
	REQUIRE_COUNTING();
	check_instructions(_metadata, "module");
}

/*
 * perf's names count what the architectural names do: instructions:u, inst_retired and a CPU
 * PMU's event=0x8 in one set count the same run together, so their counts are equal; under
 * an exact -icount they are the prediction too.
 */
TEST(perf_names_count_as_the_architectural_ones)
{
	char *argv[] = { "pmu-stat", "--pin-cpus", "0", "-e",
			 "instructions:u,inst_retired:u,armv8_pmuv3_0/event=0x8/u", "-f", "csv", "-o",
			 CSV_FILE, "--", "pmu-spin", SPIN_ARG, NULL };
	double predicted = 2.0 * SPIN_ITER;
	struct csv_row rows[3];

	REQUIRE_COUNTING();
	ASSERT_EQ(0, exit_code(run(argv)));
	/* Each row is named as its event was written. */
	ASSERT_EQ(1, csv_rows(CSV_FILE, "instructions:u", "all", &rows[0], 1));
	ASSERT_EQ(1, csv_rows(CSV_FILE, "inst_retired:u", "all", &rows[1], 1));
	ASSERT_EQ(1, csv_rows(CSV_FILE, "armv8_pmuv3_0/event=0x8/u", "all", &rows[2], 1));
	ksft_print_msg("instructions:u %llu, inst_retired %llu, armv8_pmuv3_0/event=0x8/u %llu\n",
		       rows[0].raw, rows[1].raw, rows[2].raw);
	EXPECT_LT(0.999, rows[0].duty);
	EXPECT_LT(0.999, rows[1].duty);
	EXPECT_EQ(rows[1].raw, rows[0].raw);
	EXPECT_EQ(rows[1].raw, rows[2].raw);
	if (getenv("PMUSER_ICOUNT_EXACT"))
		EXPECT_GT(0.001, fabs(rel((double)rows[0].raw, predicted)));
}

/*
 * perf's generic cycles count beside pmu-stat's own cycle counter on every core: on ARMv7,
 * whose perf driver puts them on the cycle counter, they are the CPU_CYCLES event, so both
 * events of the set count the whole run; under an exact -icount a cycle is an instruction.
 */
TEST(generic_cycles_count_beside_the_cycle_counter)
{
	char *argv[] = { "pmu-stat", "--pin-cpus", "0", "-e", "cycles:u,instructions:u", "-f",
			 "csv", "-o", CSV_FILE, "--", "pmu-spin", SPIN_ARG, NULL };
	struct csv_row rows[2];

	REQUIRE_COUNTING();
	ASSERT_EQ(0, exit_code(run(argv)));
	ASSERT_EQ(1, csv_rows(CSV_FILE, "cycles:u", "all", &rows[0], 1));
	ASSERT_EQ(1, csv_rows(CSV_FILE, "instructions:u", "all", &rows[1], 1));
	ksft_print_msg("cycles:u %llu (duty %.3f), instructions:u %llu (duty %.3f)\n",
		       rows[0].raw, rows[0].duty, rows[1].raw, rows[1].duty);
	EXPECT_LT(0.999, rows[0].duty);
	EXPECT_LT(0.999, rows[1].duty);
	EXPECT_LT(0ULL, rows[0].raw);
	if (getenv("PMUSER_ICOUNT_EXACT")) {
		EXPECT_GT(0.001, fabs(rel((double)rows[1].raw, 2.0 * SPIN_ITER)));
		EXPECT_GT(0.001, fabs(rel((double)rows[0].raw, (double)rows[1].raw)));
	}
}

/*
 * counters + extra INST_RETIRED copies on CPU 0: perf multiplexes them and each scales to the
 * full count, per CPU too with per_cpu.
 */
static void multiplexed_copies(struct __test_metadata *_metadata, unsigned int extra,
			       bool per_cpu)
{
	unsigned int n = cpu0_counters() + extra, i, multiplexed = 0;
	/* Without per_cpu, the command line from argv[1] on, which then names the tool. */
	char spec[400] = "", *argv[] = { "pmu-stat", "--per-cpu", "--backend", "perf-read",
					 "--pin-cpus", "0", "-e", spec, "-f", "csv", "-o", CSV_FILE,
					 "--", "pmu-spin", "50000000", NULL };
	struct csv_row rows[STAT_ROWS_MAX], all[STAT_ROWS_MAX];
	double full = 2.0 * 50000000;

	REQUIRE_COUNTING();
	ASSERT_LT(2, n);
	ASSERT_GE(STAT_ROWS_MAX, n);
	for (i = 0; i < n; i++)
		strcat(spec, i ? ",inst_retired:u" : "inst_retired:u");
	if (!per_cpu)
		argv[1] = argv[0];
	ASSERT_EQ(0, exit_code(run(argv + !per_cpu)));
	ASSERT_EQ((int)n, csv_rows(CSV_FILE, "inst_retired:u", "all", all, STAT_ROWS_MAX));
	if (per_cpu)
		ASSERT_EQ((int)n, csv_rows(CSV_FILE, "inst_retired:u", "0", rows, STAT_ROWS_MAX));
	for (i = 0; i < n; i++) {
		if (all[i].duty < 0.99)
			multiplexed++;
		ksft_print_msg("copy %u: duty %.3f scaled %.0f (%+.3f %% of full time)\n", i,
			       all[i].duty, all[i].scaled, 100 * rel(all[i].scaled, full));
		EXPECT_GT(0.02, fabs(rel(all[i].scaled, full)));
		if (!per_cpu)
			continue;
		ksft_print_msg("  CPU 0: raw %llu scaled %.0f (%+.3f %% of full time)\n",
			       rows[i].raw, rows[i].scaled, 100 * rel(rows[i].scaled, full));
		EXPECT_GT(0.02, fabs(rel(rows[i].scaled, full)));
	}
	EXPECT_LT(0U, multiplexed) TH_LOG("%u events on %u counters were never multiplexed", n,
					  n - extra);
}

/* More INST_RETIRED copies than counters: perf multiplexes; each scales to the full count. */
TEST(perf_multiplexing_scales)
{
	multiplexed_copies(_metadata, 2, false);
}

/*
 * rpistat's TDM through the module: four sets rotated every 10 ms, each scaled to full time
 * by its share of the cycles (which every set counts). Under -icount a cycle is an
 * instruction, so that scaling is exact here and the sum of the sets' raw counts (the whole
 * run, each moment counted by exactly one set) is what tests the rotation.
 */
TEST(module_tdm_scales)
{
	char *argv[] = { "pmu-stat", "--backend", "module", "--read-period", "10", "-e",
			 "inst_retired:u", "-e", "inst_retired:u", "-e", "inst_retired:u", "-e",
			 "inst_retired:u", "-f", "csv", "-o", CSV_FILE, "--", "pmu-spin", "300000000",
			 NULL };
	struct csv_row rows[4], cyc;
	/* Long enough for several turns each where CONFIGURE is slow (PREEMPT_RT: ~40 ms). */
	double full = 2.0 * 300000000, sum = 0;
	int i;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, exit_code(run(argv)));
	ASSERT_EQ(4, csv_rows(CSV_FILE, "inst_retired:u", "all", rows, 4));
	/* The cycle counter counts the mode every event counts. */
	ASSERT_EQ(1, csv_rows(CSV_FILE, "cycles:u", "all", &cyc, 1));
	for (i = 0; i < 4; i++) {
		ksft_print_msg("module set %d: raw %llu periods %u duty %.3f scaled %.0f (%+.3f %% of full time)\n",
			       i, rows[i].raw, rows[i].periods, rows[i].duty, rows[i].scaled,
			       100 * rel(rows[i].scaled, full));
		EXPECT_LT(0.1, rows[i].duty);
		EXPECT_GT(0.5, rows[i].duty);
		EXPECT_LE(2U, rows[i].periods);
		EXPECT_GT(0.02, fabs(rel(rows[i].scaled, full)));
		sum += (double)rows[i].raw;
	}
	/* The sets took turns: together they saw the whole run once. */
	EXPECT_GT(0.005, fabs(rel(sum, full)));
	/* The cycle counter runs in every set; under -icount a cycle is an instruction. */
	if (getenv("PMUSER_ICOUNT_EXACT"))
		EXPECT_GT(0.005, fabs(rel((double)cyc.raw, full)));
}

/*
 * Every set of the rotation is configured before the command runs, CPU_CYCLES as an event
 * too (the module holds the cycle counter, so perf gives it an event counter): the rotation
 * counts the whole command.
 */
TEST(module_every_set_checked_before_the_run)
{
	char *argv[] = { "pmu-stat", "--backend", "module", "--read-period", "10", "-e",
			 "inst_retired:u", "-e", "cpu_cycles:u", "-f", "csv", "-o", CSV_FILE, "--", "sh",
			 "-c", "pmu-spin 100000000 && touch " MARKER, NULL };
	double full = 2.0 * 100000000;
	struct csv_row row;

	REQUIRE_COUNTING();
	unlink(MARKER);
	ASSERT_EQ(0, exit_code(run(argv)));
	EXPECT_TRUE(file_exists(MARKER));
	ASSERT_EQ(1, csv_rows(CSV_FILE, "inst_retired:u", "all", &row, 1));
	ksft_print_msg("module rotation: INST_RETIRED raw %llu duty %.3f scaled %.0f (%+.3f %% of full time)\n",
		       row.raw, row.duty, row.scaled, 100 * rel(row.scaled, full));
	EXPECT_GT(0.9, row.duty);
	EXPECT_GT(0.02, fabs(rel(row.scaled, full)));
}

/*
 * Another perf user takes counters on the module's CPU mid-run (pinned events of this
 * program's, re-enabled until perf places them while the small set counts): the large set
 * that configured before the run cannot be configured any more. The command runs on to its
 * end (it used to be killed: exit 137, no report), the small set counts alone from then on,
 * its count never more than the command did, the report is written and says it is incomplete,
 * and pmu-stat exits 1.
 */
TEST(module_lost_set_keeps_counting)
{
	unsigned int n = cpu0_counters(), i, attempt;
	char spec[400] = "", *argv[] = { "pmu-stat", "--backend", "module", "--pin-cpus", "0",
					 "--read-period", "10", "-e", "inst_retired:u", "-e",
					 spec, "-f", "csv", "-o", CSV_FILE, "--", "sh", "-c",
					 "touch " MARKER ".started && pmu-spin 300000000 && touch "
					 MARKER, NULL };
	struct timespec ms = { 0, 1000 * 1000 };
	double full = 2.0 * 300000000;
	bool incomplete = false;
	struct csv_row row;
	int fd[32], status = -1;
	cpu_set_t all;

	REQUIRE_COUNTING();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "the other perf user runs beside pmu-stat, on CPU 1");
	ASSERT_LT(1, n);
	ASSERT_GE(32U, n);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	for (i = 0; i < n; i++)
		strcat(spec, i ? ",inst_retired:u" : "inst_retired:u");
	/* Perf places the other user's events at its own pace: a few tries at most. */
	for (attempt = 0; attempt < 3 && !incomplete; attempt++) {
		struct perf_event_attr pa = { .type = PERF_TYPE_HARDWARE, .size = sizeof(pa),
					      .config = PERF_COUNT_HW_INSTRUCTIONS,
					      .exclude_kernel = 1, .pinned = 1 };
		unsigned int waited = 0;
		pid_t pid;

		unlink(MARKER);
		unlink(MARKER ".started");
		/* pmu-stat leaves with every CPU allowed; this program then moves off its CPU. */
		ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
		pid = start(argv);
		ASSERT_LT(0, pid);
		ASSERT_EQ(0, pmuser_thread_pin(1));
		while (!file_exists(MARKER ".started") && waited++ < 30000 &&
		       !waitpid(pid, &status, WNOHANG))
			nanosleep(&ms, NULL);
		/* One counter fewer than the CPU has: the large set no longer fits, the small does. */
		for (i = 0; i + 1 < n; i++) {
			fd[i] = perf_open(&pa, -1, 0);
			ASSERT_LE(0, fd[i]) TH_LOG("perf_event_open: %s", strerror(errno));
		}
		while (!waitpid(pid, &status, WNOHANG)) {
			for (i = 0; i + 1 < n; i++)
				ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
			nanosleep(&ms, NULL);
		}
		for (i = 0; i + 1 < n; i++)
			close(fd[i]);
		incomplete = output_contains("counting incomplete");
		if (!incomplete)
			ksft_print_msg("try %u: exit status %d, the large set always found its counters\n",
				       attempt, exit_code(status));
	}
	unlink(MARKER ".started");
	ASSERT_TRUE(output_has("counting incomplete"));
	EXPECT_EQ(1, exit_code(status));
	EXPECT_TRUE(file_exists(MARKER));
	EXPECT_TRUE(output_has("set 0 counted alone from then on"));
	/* The small set is the first INST_RETIRED row; the large set's copies follow. */
	ASSERT_LE(1, csv_rows(CSV_FILE, "inst_retired:u", "all", &row, 1));
	ksft_print_msg("set 0 counting on alone: raw %llu duty %.3f scaled %.0f (%+.3f %% of full time)\n",
		       row.raw, row.duty, row.scaled, 100 * rel(row.scaled, full));
	/*
	 * Flagged incomplete: nothing counts while the lost set's CONFIGURE fails and set 0's
	 * is made again (17-19 % of this run on 7.3-rt, none on 6.12), so the estimate may fall
	 * short; what was counted is no more than the command did, beside the shell and
	 * pmu-stat's own reads on the CPU (the 2 % the other module tests allow).
	 */
	EXPECT_LT(0ULL, row.raw);
	EXPECT_GT(0.02, rel(row.scaled, full));
}

/* Per-period rows add up to the totals; the plot has a panel per event. */
TEST(periods_and_plot)
{
	char *argv[] = { "pmu-stat", "--backend", "module", "--read-period", "10", "-e",
			 "inst_retired:u", "-f", "csv", "-o", CSV_FILE, "--periods", "/tmp/p.csv",
			 "--svg", "/tmp/p.svg", "--", "pmu-spin", "10000000", "3", "30", NULL };
	unsigned long long sum = 0, delta;
	char line[256], ev[64], cpu[16], set[16], svg[16384];
	struct csv_row row;
	int rows = 0;
	double t, len, running;
	FILE *f;
	size_t n;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, exit_code(run(argv)));
	ASSERT_EQ(1, csv_rows(CSV_FILE, "inst_retired:u", "all", &row, 1));
	f = fopen("/tmp/p.csv", "r");
	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lf,%lf,%15[^,],%15[^,],%63[^,],%llu,%lf", &t, &len, cpu, set, ev,
			   &delta, &running) != 7 || strcmp(ev, "inst_retired:u"))
			continue;
		sum += delta;
		rows++;
	}
	fclose(f);
	EXPECT_EQ(row.raw, sum);
	EXPECT_LE(5, rows);	/* 3 x 20 ms of spinning and 2 x 30 ms of sleep at 10 ms */
	f = fopen("/tmp/p.svg", "r");
	ASSERT_TRUE(f != NULL);
	n = fread(svg, 1, sizeof(svg) - 1, f);
	fclose(f);
	svg[n] = '\0';
	EXPECT_EQ(0, strncmp(svg, "<svg", 4));
	EXPECT_TRUE(strstr(svg, "inst_retired:u") != NULL);
	EXPECT_TRUE(strstr(svg, "</svg>") != NULL);
}

/*
 * perf: a set the PMU holds at once is one group, read in one go each period, so a period's
 * counts come from one moment: under -icount cycles, CPU_CYCLES and INST_RETIRED are equal in
 * every row. Read one by one, the reads lay up to a time slice of the other vCPU apart.
 */
TEST(perf_period_rows_of_a_set_agree)
{
	char *argv[] = { "pmu-stat", "--backend", "perf-read", "--read-period", "20", "-e",
			 "cpu_cycles:u,inst_retired:u", "--periods", "/tmp/p.csv", "--pin-cpus", "1",
			 "--", "pmu-spin", "20000000", NULL };
	unsigned long long d[3] = { 0 }, sum = 0, delta;
	char line[256], ev[64], cpu[16], set[16];
	double t, len, running, row_t = -1;
	int rows = 0, seen = 0;
	FILE *f;

	REQUIRE_COUNTING();
	if (!getenv("PMUSER_ICOUNT_EXACT"))
		SKIP(return, "cycles equal instructions only under -icount");
	/* The command on CPU 1, pmu-stat free to run beside it: reads reach across. */
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		argv[10] = "0";
	ASSERT_EQ(0, exit_code(run(argv)));
	EXPECT_TRUE(output_has("perf counts the set as one group"));
	f = fopen("/tmp/p.csv", "r");
	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		int k;

		if (sscanf(line, "%lf,%lf,%15[^,],%15[^,],%63[^,],%llu,%lf", &t, &len, cpu, set, ev,
			   &delta, &running) != 7)
			continue;
		k = !strcmp(ev, "cycles:u") ? 0 : !strcmp(ev, "cpu_cycles:u") ? 1 :
		    !strcmp(ev, "inst_retired:u") ? 2 : -1;
		ASSERT_LE(0, k) TH_LOG("unexpected row: %s", line);
		if (t != row_t) {
			row_t = t;
			seen = 0;
		}
		d[k] = delta;
		seen |= 1 << k;
		if (seen == 7) {
			EXPECT_EQ(d[0], d[1]) TH_LOG("period ending at %.6f s", t);
			EXPECT_EQ(d[0], d[2]) TH_LOG("period ending at %.6f s", t);
			sum += d[2];
			rows++;
		}
	}
	fclose(f);
	EXPECT_LE(2, rows);
	EXPECT_LE(40000000ULL, sum);
}

/* Per-CPU counts of a task that runs on several CPUs sum to its total. */
TEST(per_cpu_sums)
{
	char *argv[] = { "pmu-stat", "--per-cpu", "-e", "inst_retired:u", "-f", "csv", "-o", CSV_FILE,
			 "--", "sh", "-c", "pmu-spin 5000000 & pmu-spin 10000000; wait", NULL };
	struct csv_row total, cpus[STAT_ROWS_MAX];
	unsigned long long sum = 0;
	char cpu[16];
	int i, n = 0;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, exit_code(run(argv)));
	ASSERT_EQ(1, csv_rows(CSV_FILE, "inst_retired:u", "all", &total, 1));
	for (i = 0; i < STAT_ROWS_MAX; i++) {
		snprintf(cpu, sizeof(cpu), "%d", i);
		if (csv_rows(CSV_FILE, "inst_retired:u", cpu, &cpus[n], 1) == 1)
			sum += cpus[n++].raw;
	}
	EXPECT_LE(1, n);
	EXPECT_EQ(total.raw, sum);
	/* Both spins (2 x 15e6 instructions) and the shell, counted through inheritance. */
	EXPECT_LE(30000000ULL, total.raw);
	EXPECT_GT(0.05, rel((double)total.raw, 30000000.0));
}

/*
 * --per-cpu with more INST_RETIRED copies than counters: perf multiplexes every copy, so no
 * counter's time_running is the task's time on the CPU; the task-clock is, and each copy
 * scales to the full count (it was ~10 % short, with duty 1).
 */
TEST(per_cpu_multiplexing_scales)
{
	multiplexed_copies(_metadata, 1, true);
}

TEST(json_report)
{
	char *argv[] = { "pmu-stat", "-f", "json", "-o", "/tmp/s.json", "--preset", "ipc", "--",
			 "pmu-spin", "1000", NULL };
	char buf[8192];
	FILE *f;
	size_t n;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, exit_code(run(argv)));
	f = fopen("/tmp/s.json", "r");
	ASSERT_TRUE(f != NULL);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	EXPECT_TRUE(strstr(buf, "\"backend\": \"perf-read\"") != NULL);
	EXPECT_TRUE(strstr(buf, "\"name\": \"IPC\"") != NULL);
	EXPECT_TRUE(strstr(buf, "\"preset\": \"ipc\"") != NULL);
}

/*
 * More event sets than counters on a run shorter than perf's rotation: the sets perf never
 * put on a counter are "not counted", never a count of 0.
 */
TEST(never_scheduled_is_not_counted)
{
	unsigned int n = cpu0_counters() + 3, i, k = 0;
	char *argv[2 * 40 + 8];

	REQUIRE_COUNTING();
	ASSERT_GE(40U, n);
	argv[k++] = "pmu-stat";
	argv[k++] = "--backend";
	argv[k++] = "perf-read";
	for (i = 0; i < n; i++) {
		argv[k++] = "-e";
		argv[k++] = "inst_retired";
	}
	argv[k++] = "--";
	argv[k++] = "true";
	argv[k] = NULL;
	ASSERT_EQ(0, exit_code(run(argv)));
	EXPECT_FALSE(output_contains("inst_retired:uk:       0"));
	EXPECT_FALSE(output_contains("inst_retired:u:        0"));
	EXPECT_FALSE(output_contains(" 0 [0]"));
	if (!output_contains("not counted (never on a counter"))
		ksft_print_msg("every set got a counter during the run\n");
}

/*
 * Without the module, arm64 perf lists in sysfs exactly the common events PMCEID reports:
 * an event the CPU lacks is refused by name instead of counted as 0 (QEMU implements no
 * L1D_CACHE_REFILL and no SAMPLE_POP), and a preset says "not supported".
 */
TEST(unimplemented_events_without_module)
{
	char *ev[] = { "pmu-stat", "--backend", "perf-read", "-e", "l1d_cache_refill:u,br_mis_pred:u",
		       "--", "pmu-spin", "1000", NULL };
	char *raw[] = { "pmu-stat", "--backend", "perf-read", "-e", "0x4000,0x4001,0x4004", "--",
			"true", NULL };
	char *preset[] = { "pmu-stat", "--backend", "perf-read", "--", "pmu-spin", "1000", NULL };
	char cmd[256];
	const char *params = getenv("PMUSER_MODPARAMS");

#if !defined(__aarch64__)
	SKIP(return, "perf lists PMCEID's events in sysfs on arm64 only");
#endif
	REQUIRE_COUNTING();
	ASSERT_EQ(0, system("rmmod pmuser"));
	EXPECT_NE(0, exit_code(run(ev)));
	EXPECT_TRUE(output_has("l1d_cache_refill:u (0x3) is not implemented by this CPU (PMCEID, as perf lists it in sysfs)"));
	EXPECT_NE(0, exit_code(run(raw)));
	EXPECT_TRUE(output_has("is not implemented by this CPU"));
	EXPECT_EQ(0, exit_code(run(preset)));
	EXPECT_TRUE(output_has("not supported"));
	EXPECT_FALSE(output_contains(" 0 [0]"));
	snprintf(cmd, sizeof(cmd), "insmod /lib/modules/pmuser.ko %s", params ? params : "");
	ASSERT_EQ(0, system(cmd));
}

/*
 * The machine formats flag each of the text report's n unconfirmed zeros too: -x prints
 * <unconfirmed> for the value, CSV rows of kind "unconfirmed", JSON "unconfirmed": true. No
 * 0 is left as a plain count.
 */
static void unconfirmed_in_machine_formats(struct __test_metadata *_metadata, unsigned int n)
{
	char *argv[][9] = {
		{ "pmu-stat", "-o", OUT_FILE, "-x", ",", "--", "pmu-spin", "100000", NULL },
		{ "pmu-stat", "-o", OUT_FILE, "-f", "csv", "--", "pmu-spin", "100000", NULL },
		{ "pmu-stat", "-o", OUT_FILE, "-f", "json", "--", "pmu-spin", "100000", NULL },
	};
	unsigned int k, flagged, zeros;
	char line[1024];
	FILE *f;

	for (k = 0; k < 3; k++) {
		ASSERT_EQ(0, exit_code(run(argv[k]))) TH_LOG("%s %s", argv[k][3], argv[k][4]);
		f = fopen(OUT_FILE, "r");
		ASSERT_TRUE(f != NULL);
		flagged = 0;
		zeros = 0;
		while (fgets(line, sizeof(line), f)) {
			switch (k) {
			case 0:
				flagged += !strncmp(line, "<unconfirmed>,", 14);
				zeros += !strncmp(line, "0,", 2);
				break;
			case 1:
				flagged += !strncmp(line, "unconfirmed,", 12);
				zeros += !strncmp(line, "event,", 6) && strstr(line, ",all,0,");
				break;
			default:
				flagged += strstr(line, "\"unconfirmed\": true") != NULL;
				zeros += strstr(line, "\"raw\": 0,") &&
					 !strstr(line, "\"unconfirmed\": true");
			}
		}
		fclose(f);
		EXPECT_EQ(n, flagged) TH_LOG("%s", argv[k][3]);
		EXPECT_EQ(0U, zeros) TH_LOG("%s: a bare 0", argv[k][3]);
	}
}

/*
 * Where no PMCEID register says which events the CPU counts (ARMv7: QEMU's Cortex-A15 counts
 * none of the cache events its table lists), a 0 is flagged as unconfirmed, never printed
 * bare, and feeds no metric.
 */
TEST(unconfirmed_zero_is_flagged)
{
	char *argv[] = { "pmu-stat", "-o", OUT_FILE, "--", "pmu-spin", "100000", NULL };
	struct pmuser_cpu_info ci = { 0 };
	unsigned int flagged = 0;
	bool metrics = false;
	char line[512];
	FILE *f;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, cpu_info_of(0, &ci));
	if (ci.pmceid_source != PMUSER_PMCEID_NONE)
		SKIP(return, "this CPU's PMCEID says which events it counts");
	ASSERT_EQ(0, exit_code(run(argv)));
	f = fopen(OUT_FILE, "r");
	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		bool zero = strstr(line, ":") && strstr(line, "  0  [0]");

		if (zero)
			EXPECT_TRUE(strstr(line, "no PMCEID to confirm") != NULL) TH_LOG("%s", line);
		flagged += zero;
		if (strstr(line, "Metrics ("))
			metrics = true;
		else if (line[0] == '\n')
			metrics = false;
		if (metrics)
			EXPECT_TRUE(strstr(line, " 0.000 ") == NULL) TH_LOG("a metric of a 0: %s", line);
	}
	fclose(f);
	/* The default preset's cache events count 0 under QEMU: the check ran on some. */
	EXPECT_LT(0U, flagged);
	unconfirmed_in_machine_formats(_metadata, flagged);
}

/*
 * perf stat -x and -r: one line per event asked for, no cycle counter of pmu-stat's (value,
 * unit, event, +- %, running ns, % running), the value the mean of three runs of a loop whose
 * count is known, the spread tiny.
 */
TEST(perf_style_lines_over_repeated_runs)
{
	char *argv[] = { "pmu-stat", "--backend", "perf-read", "--pin-cpus", "0", "-e",
			 "inst_retired:u", "-x", ",", "-r", "3", "-o", CSV_FILE, "--", "pmu-spin",
			 SPIN_ARG, NULL };
	double predicted = 2.0 * SPIN_ITER, value = 0, spread = -1, pct = 0;
	char line[256], name[64];
	unsigned long long ns = 0;
	bool cycles = false, inst = false;
	FILE *f;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, exit_code(run(argv)));
	f = fopen(CSV_FILE, "r");
	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		double v, sd, p;
		unsigned long long t;

		/* -o: perf's file starts with the date and a blank line. */
		if (!strncmp(line, "# started on ", 13) || !strcmp(line, "\n"))
			continue;
		ASSERT_EQ(5, sscanf(line, "%lf,,%63[^,],%lf%%,%llu,%lf,,", &v, name, &sd, &t, &p))
			TH_LOG("not a perf stat -x line of a counted event: %s", line);
		cycles |= !strncmp(name, "cycles", 6);
		if (strcmp(name, "inst_retired:u"))
			continue;
		inst = true;
		value = v;
		spread = sd;
		ns = t;
		pct = p;
	}
	fclose(f);
	EXPECT_FALSE(cycles);
	ASSERT_TRUE(inst);
	ksft_print_msg("inst_retired:u mean of 3 runs %.0f ( +- %.3f%% ), predicted %.0f\n", value,
		       spread, predicted);
	EXPECT_GT(ns, 0ULL);
	EXPECT_LT(99.99, pct);
	EXPECT_GT(0.005, fabs(rel(value, predicted)));
	if (getenv("PMUSER_ICOUNT_EXACT")) {
		EXPECT_GT(0.001, fabs(rel(value, predicted)));
		EXPECT_GT(0.1, spread);
	}
}

/* ---- beside Debian's perf stat ---------------------------------------------------------- */

#define PERF_BIN	"/bin/perf"
#define PERF_OUT	"/tmp/perf-stat.out"
#define PS_OUT		"/tmp/pmu-stat.x"
#define XLINES_MAX	64
#define USER_ID		1000
#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"

/*
 * One perf stat -x line, split at the separator: the prefix fields (-I's time, -A's CPU,
 * --per-thread's thread) and then perf's columns: value, unit, event, [+- %,] run time,
 * % running, metric value, metric unit.
 */
struct xline {
	char prefix[2][48];
	char value[32], unit[16], event[96], noise[16], mvalue[32], munit[48];
	unsigned long long run;
	double pct;
};

/* Splits line at ',' into at most max fields (the line's newline dropped): how many. */
static int split_fields(char *line, char *field[], int max)
{
	int n = 0;
	char *p = line;

	line[strcspn(line, "\n")] = '\0';
	while (n < max) {
		field[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

/*
 * The -x lines of path with nprefix prefix fields and, with noise, -r's +- % field: how many,
 * or -1. Other lines (perf's "# started on", the blank line after it, messages) are skipped.
 */
static int xlines_read(const char *path, int nprefix, bool noise, struct xline *x, int max)
{
	int want = nprefix + 7 + noise, n = 0;
	char line[512], *f[16];
	FILE *fp = fopen(path, "r");

	if (!fp)
		return -1;
	while (n < max && fgets(line, sizeof(line), fp)) {
		struct xline *l = &x[n];
		int k, i = 0;

		if (line[0] == '#' || split_fields(line, f, 16) != want)
			continue;
		memset(l, 0, sizeof(*l));
		for (k = 0; k < nprefix; k++)
			snprintf(l->prefix[k], sizeof(l->prefix[k]), "%s", f[i++]);
		snprintf(l->value, sizeof(l->value), "%s", f[i++]);
		snprintf(l->unit, sizeof(l->unit), "%s", f[i++]);
		snprintf(l->event, sizeof(l->event), "%s", f[i++]);
		if (noise)
			snprintf(l->noise, sizeof(l->noise), "%s", f[i++]);
		l->run = strtoull(f[i++], NULL, 10);
		l->pct = strtod(f[i++], NULL);
		snprintf(l->mvalue, sizeof(l->mvalue), "%s", f[i++]);
		snprintf(l->munit, sizeof(l->munit), "%s", f[i++]);
		n++;
	}
	fclose(fp);
	return n;
}

static long long xvalue(const struct xline *l)
{
	return l->value[0] >= '0' && l->value[0] <= '9' ? strtoll(l->value, NULL, 10) : -1;
}

/* Why perf stat cannot be compared with here, when it cannot. */
static const char *perf_why = "no perf in this guest (the arm64 guests have Debian's)";

/*
 * Whether Debian's perf stat is here to compare with. Not on big.LITTLE: its tool (6.1) opens
 * a generic event once, and the kernel gives it to one CPU PMU, which counts only while the
 * command runs on that PMU's CPUs; pmu-stat opens it on every CPU PMU.
 */
static bool have_perf(void)
{
	if (access(PERF_BIN, X_OK))
		return false;
	if (cpu_pmus() > 1) {
		perf_why = "perf stat (6.1) counts a generic event on one CPU PMU of several";
		return false;
	}
	return true;
}

/* Guest seconds a command of these tests may take: each takes at most about 2. */
#define RUN_LIMIT_S	8

/*
 * The exit status of child pid running argv, or -2 when it ran past RUN_LIMIT_S: then it
 * is killed and named, so that a hung command fails its test by name, not the harness's
 * timeout.
 */
static int wait_bounded(pid_t pid, char *const argv[])
{
	const struct timespec tick = { 0, 10000000 };
	uint64_t end = now_ns(CLOCK_MONOTONIC) + RUN_LIMIT_S * 1000000000ULL;
	int status = -1;
	pid_t r;

	while ((r = waitpid(pid, &status, WNOHANG)) == 0 || (r < 0 && errno == EINTR)) {
		if (now_ns(CLOCK_MONOTONIC) > end) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			ksft_print_msg("%s %s ... did not finish in %d s: killed\n", argv[0],
				       argv[1] ? argv[1] : "", RUN_LIMIT_S);
			return -2;
		}
		nanosleep(&tick, NULL);
	}
	return r < 0 ? -1 : exit_code(status);
}

/*
 * Runs argv as uid (0: as this process is) with its stdout and stderr in path, laid out
 * without randomisation (spawn()), bounded (wait_bounded()): the exit status, or -1. perf
 * and pmu-stat both write -x lines to stderr.
 */
static int run_into(const char *path, uid_t uid, char *const argv[])
{
	pid_t pid = spawn(path, uid, true, argv);

	return pid < 0 ? -1 : wait_bounded(pid, argv);
}

/* Logs a file's text, for a failed comparison. */
static void log_file(const char *what, const char *path)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	ksft_print_msg("%s:\n%s", what, buf);
}

/*
 * pmu-stat's and perf's -x lines of one command, as uid (0: root): both counted, and the
 * lines in *ps and *pf. The command's argv follows "--" in both.
 */
static void both_x(struct __test_metadata *_metadata, uid_t uid, const char *spec,
		   const char *iterations, struct xline *ps, int *nps, struct xline *pf,
		   int *npf)
{
	char *ps_argv[] = { "pmu-stat", "-x", ",", "-e", (char *)spec, "--", "pmu-spin",
			    (char *)iterations, NULL };
	char *pf_argv[] = { PERF_BIN, "stat", "-x", ",", "-e", (char *)spec, "--", "pmu-spin",
			    (char *)iterations, NULL };

	ASSERT_EQ(0, run_into(PS_OUT, uid, ps_argv)) log_file("pmu-stat", PS_OUT);
	ASSERT_EQ(0, run_into(PERF_OUT, uid, pf_argv)) log_file("perf", PERF_OUT);
	*nps = xlines_read(PS_OUT, 0, false, ps, XLINES_MAX);
	*npf = xlines_read(PERF_OUT, 0, false, pf, XLINES_MAX);
}

/*
 * Both tools' lines for spec agree: as many, the same events by name in the same order,
 * the same empty unit, both counted full time (100.00 %), run times of the counters, the
 * same metric. Counts of user mode (:u) over two loop lengths: the difference of the two is
 * 2 per iteration to the instruction in pmu-stat, and within 10,000 of it in perf; each
 * count is within 10,000 of perf's (perf's environment takes the loader 890 instructions
 * more, and some of perf's runs a few thousand more than its others). The two
 * lengths are written with as many digits, so that the command's arguments and stack are
 * laid out alike and only the loop differs.
 */
static void x_lines_agree(struct __test_metadata *_metadata, uid_t uid, const char *spec)
{
	struct xline ps[2][XLINES_MAX], pf[2][XLINES_MAX];
	static const char *const iters[2] = { "1000000", "2000000" };
	int nps[2], npf[2], i, k;

	for (k = 0; k < 2; k++) {
		both_x(_metadata, uid, spec, iters[k], ps[k], &nps[k], pf[k], &npf[k]);
		ASSERT_LT(0, nps[k]) log_file("pmu-stat", PS_OUT);
		ASSERT_EQ(npf[k], nps[k]) {
			log_file("pmu-stat", PS_OUT);
			log_file("perf", PERF_OUT);
		}
	}
	for (i = 0; i < nps[1]; i++) {
		const struct xline *a = &ps[1][i], *b = &pf[1][i];
		long long da = xvalue(a) - xvalue(&ps[0][i]), db = xvalue(b) - xvalue(&pf[0][i]);

		ksft_print_msg("%s (uid %u): pmu-stat %s,%s,%s,%llu,%.2f,%s,%s | perf %s,%s,%s,%llu,%.2f,%s,%s\n",
			       spec, (unsigned int)uid, a->value, a->unit, a->event, a->run, a->pct,
			       a->mvalue, a->munit, b->value, b->unit, b->event, b->run, b->pct,
			       b->mvalue, b->munit);
		EXPECT_STREQ(b->event, a->event);
		EXPECT_STREQ(b->unit, a->unit);
		EXPECT_STREQ(b->munit, a->munit);
		EXPECT_LT(0ULL, a->run);
		EXPECT_LT(0ULL, b->run);
		EXPECT_EQ(100.0, a->pct);
		EXPECT_EQ(100.0, b->pct);
		if (b->mvalue[0]) {
			EXPECT_GT(0.015, fabs(strtod(a->mvalue, NULL) - strtod(b->mvalue, NULL)));
		}
		if (strlen(a->event) < 2 || strcmp(a->event + strlen(a->event) - 2, ":u"))
			continue;
		ksft_print_msg("  +1e6 iterations: pmu-stat %+lld, perf %+lld; pmu-stat - perf %+lld\n",
			       da, db, xvalue(a) - xvalue(b));
		/*
		 * pmu-stat's difference is exact. perf's runs are not: some count up to 3,300
		 * user instructions more than the others (arm64-6.12, arm64-7.3-rt), so perf's
		 * difference and the tools' counts are held to 10,000.
		 */
		EXPECT_GT(10000, llabs(xvalue(a) - xvalue(b)));
		if (getenv("PMUSER_ICOUNT_EXACT"))
			EXPECT_EQ(2000000, da);
		EXPECT_GT(10000, llabs(db - 2000000));
	}
}

/*
 * -x beside perf stat -x, on the same commands: the columns, the events' names and modes,
 * perf's metric of its generic events (IPC of instructions and cycles in one mode, none
 * across modes), and the counts. Everything runs on CPU 0: QEMU's instruction count of a
 * task on CPU 1 takes in some of CPU 0's ticks.
 */
TEST(x_lines_match_perf_stat)
{
	REQUIRE_COUNTING();
	if (!have_perf())
		SKIP(return, "%s", perf_why);
	ASSERT_EQ(0, pmuser_thread_pin(0));
	x_lines_agree(_metadata, 0, "instructions:u,cycles:u");
	x_lines_agree(_metadata, 0, "r8:u,instructions:u,cycles:k");
	x_lines_agree(_metadata, 0, "instructions:uk,cycles:uk");
}

/*
 * More events than counters: perf multiplexes them for both tools, and both lines give the
 * share of the run each counter ran (below 100 % for some), its running time, and counts
 * scaled to the whole run. pmu-stat's are within 2 % of it (2 instructions per iteration).
 * perf's are printed beside them and not held to that: perf stat scales each count once by
 * the whole run's enabled and running times, and with ten rotations of the counters in the
 * run its estimate misses by more than 2 % on the 7.x kernels, where pmu-stat's does not.
 */
TEST(x_lines_under_multiplexing_match_perf_stat)
{
	unsigned int n = cpu0_counters() + 2, i;
	char spec[400] = "instructions:u,cycles:u";
	char *ps_argv[] = { "pmu-stat", "-x", ",", "-e", spec, "--", "pmu-spin", "20000000",
			    NULL };
	char *pf_argv[] = { PERF_BIN, "stat", "-x", ",", "-e", spec, "--", "pmu-spin",
			    "20000000", NULL };
	struct xline ps[XLINES_MAX], pf[XLINES_MAX];
	int nps, npf, k, below[2] = { 0, 0 };

	REQUIRE_COUNTING();
	ASSERT_GE(30U, n);
	ASSERT_EQ(0, pmuser_thread_pin(0));
	for (i = 0; i < n; i++)
		strcat(spec, ",r8:u");
	ASSERT_EQ(0, run_into(PS_OUT, 0, ps_argv)) log_file("pmu-stat", PS_OUT);
	nps = xlines_read(PS_OUT, 0, false, ps, XLINES_MAX);
	ASSERT_EQ((int)n + 2, nps) log_file("pmu-stat", PS_OUT);
	for (k = 0; k < nps; k++) {
		below[0] += ps[k].pct < 99.99;
		EXPECT_LT(0ULL, ps[k].run);
		EXPECT_GT(0.02, fabs(rel((double)xvalue(&ps[k]), 4e7))) TH_LOG("%s", ps[k].event);
	}
	EXPECT_LT(0, below[0]) log_file("pmu-stat", PS_OUT);
	/* perf's IPC is of the scaled counts, and so is pmu-stat's. */
	EXPECT_STREQ("insn per cycle", ps[0].munit);
	EXPECT_GT(0.015, fabs(strtod(ps[0].mvalue, NULL) -
			      (double)xvalue(&ps[0]) / (double)xvalue(&ps[1])));
	if (!have_perf())
		SKIP(return, "%s", perf_why);
	ASSERT_EQ(0, run_into(PERF_OUT, 0, pf_argv)) log_file("perf", PERF_OUT);
	npf = xlines_read(PERF_OUT, 0, false, pf, XLINES_MAX);
	ASSERT_EQ(nps, npf) log_file("perf", PERF_OUT);
	for (k = 0; k < npf; k++) {
		below[1] += pf[k].pct < 99.99;
		EXPECT_STREQ(pf[k].event, ps[k].event);
		EXPECT_STREQ(pf[k].munit, ps[k].munit);
		EXPECT_LT(0ULL, pf[k].run);
		ksft_print_msg("%s: pmu-stat %s (%.2f %%, %+.2f %% off), perf %s (%.2f %%, %+.2f %% off)\n",
			       ps[k].event, ps[k].value, ps[k].pct,
			       100 * rel((double)xvalue(&ps[k]), 4e7), pf[k].value, pf[k].pct,
			       100 * rel((double)xvalue(&pf[k]), 4e7));
	}
	EXPECT_LT(0, below[1]) log_file("perf", PERF_OUT);
}

static int paranoid_set(int level)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", level);
	return sysctl_write(PARANOID, v);
}

/* The first -x line's event name and value in path, or "" and -1. */
static long long first_x(const char *path, char *event, size_t len)
{
	struct xline x[4];
	int n = xlines_read(path, 0, false, x, 4);

	snprintf(event, len, "%s", n > 0 ? x[0].event : "");
	return n > 0 ? xvalue(&x[0]) : -1;
}

/*
 * The default mode, decided as perf decides it: root counts user and kernel, and so does
 * uid 1000 at perf_event_paranoid 1; at 2 the kernel refuses that user kernel mode and perf
 * falls back to user mode, naming the event instructions:u, as pmu-stat does. pmu-stat
 * names the mode always (perf writes nothing for both); its count is of what perf counts.
 * -a needs paranoid 0 or less: refused with the reason at 2, as perf refuses it.
 */
TEST(default_mode_as_perf_chooses_it)
{
	char *ps_argv[] = { "pmu-stat", "-x", ",", "-e", "instructions", "--", "pmu-spin",
			    "1000000", NULL };
	char *pf_argv[] = { PERF_BIN, "stat", "-x", ",", "-e", "instructions", "--", "pmu-spin",
			    "1000000", NULL };
	char *ps_u[] = { "pmu-stat", "-x", ",", "-e", "instructions:u", "--", "pmu-spin",
			 "1000000", NULL };
	char *ps_all[] = { "pmu-stat", "-x", ",", "-a", "-e", "instructions", "--", "true",
			   NULL };
	char *pf_all[] = { PERF_BIN, "stat", "-x", ",", "-a", "-e", "instructions", "--", "true",
			   NULL };
	char ev[96], evp[96];
	long long user, both, perf_both;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_thread_pin(0));
	/* root: user and kernel */
	ASSERT_EQ(0, run_into(PS_OUT, 0, ps_u));
	user = first_x(PS_OUT, ev, sizeof(ev));
	ASSERT_EQ(0, run_into(PS_OUT, 0, ps_argv)) log_file("pmu-stat", PS_OUT);
	both = first_x(PS_OUT, ev, sizeof(ev));
	EXPECT_STREQ("instructions:uk", ev);
	EXPECT_LT(user, both);
	ksft_print_msg("root: instructions:u %lld, instructions:uk %lld\n", user, both);
	if (have_perf()) {
		ASSERT_EQ(0, run_into(PERF_OUT, 0, pf_argv)) log_file("perf", PERF_OUT);
		perf_both = first_x(PERF_OUT, evp, sizeof(evp));
		ksft_print_msg("root: perf's instructions %lld\n", perf_both);
		EXPECT_STREQ("instructions", evp);
		EXPECT_LT(user, perf_both);
	}
	/* uid 1000 at paranoid 1: the same */
	ASSERT_EQ(0, paranoid_set(1));
	EXPECT_EQ(0, run_into(PS_OUT, USER_ID, ps_argv)) log_file("pmu-stat", PS_OUT);
	first_x(PS_OUT, ev, sizeof(ev));
	EXPECT_STREQ("instructions:uk", ev);
	if (have_perf()) {
		EXPECT_EQ(0, run_into(PERF_OUT, USER_ID, pf_argv)) log_file("perf", PERF_OUT);
		first_x(PERF_OUT, evp, sizeof(evp));
		EXPECT_STREQ("instructions", evp);
	}
	/* uid 1000 at paranoid 2: user mode, perf's fallback */
	ASSERT_EQ(0, paranoid_set(2));
	EXPECT_EQ(0, run_into(PS_OUT, USER_ID, ps_argv)) log_file("pmu-stat", PS_OUT);
	both = first_x(PS_OUT, ev, sizeof(ev));
	EXPECT_STREQ("instructions:u", ev);
	ksft_print_msg("uid %d, paranoid 2: %s %lld\n", USER_ID, ev, both);
	EXPECT_GT(5000, llabs(both - user));
	EXPECT_NE(0, run_into(PS_OUT, USER_ID, ps_all));
	EXPECT_TRUE(output_search_in(PS_OUT, "perf_event_paranoid <= 0 (it is 2 here)"));
	if (have_perf()) {
		EXPECT_EQ(0, run_into(PERF_OUT, USER_ID, pf_argv)) log_file("perf", PERF_OUT);
		perf_both = first_x(PERF_OUT, evp, sizeof(evp));
		EXPECT_STREQ(evp, ev);
		ksft_print_msg("uid %d, paranoid 2: perf's %s %lld\n", USER_ID, evp, perf_both);
		EXPECT_GT(5000, llabs(both - perf_both));
		EXPECT_NE(0, run_into(PERF_OUT, USER_ID, pf_all));
	}
	paranoid_set(-1);
}

/*
 * The count per nanosecond of the -I lines' second interval (lines 2 and 3, after the first
 * two): its count over the time between its line's stamp and the first interval's.
 */
static double second_interval_rate(const struct xline *l)
{
	double t = strtod(l[2].prefix[0], NULL) - strtod(l[0].prefix[0], NULL);

	return t > 0 ? (double)xvalue(&l[2]) / (t * 1e9) : 0;
}

/*
 * -I beside perf stat -I: lines of the time (perf's %6lu.%09lu) and the -x columns, every
 * interval, with the metric; the intervals add up to the whole run's count (the last,
 * partial one included), to 0.01 % of another run's (QEMU counts a few thousand user
 * instructions more or less in a run this long, with or without -I). A whole interval inside
 * the loop counts at the same rate in both, to 1 %, per nanosecond of its stamps: perf
 * sleeps the interval between reads, so its intervals run a few milliseconds long.
 */
TEST(interval_lines_match_perf_stat)
{
	char *ps_argv[] = { "pmu-stat", "-x", ",", "-I", "100", "-e", "instructions:u,cycles:u",
			    "--", "pmu-spin", "150000000", NULL };
	char *ps_total[] = { "pmu-stat", "-x", ",", "-e", "instructions:u,cycles:u", "--",
			     "pmu-spin", "150000000", NULL };
	char *pf_argv[] = { PERF_BIN, "stat", "-x", ",", "-I", "100", "-e",
			    "instructions:u,cycles:u", "--", "pmu-spin", "150000000", NULL };
	struct xline ps[XLINES_MAX], pf[XLINES_MAX], total[2];
	long long sum = 0;
	double last = 0;
	int nps, npf, k;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_thread_pin(0));
	ASSERT_EQ(0, run_into(PS_OUT, 0, ps_argv)) log_file("pmu-stat", PS_OUT);
	nps = xlines_read(PS_OUT, 1, false, ps, XLINES_MAX);
	ASSERT_LE(6, nps) log_file("pmu-stat", PS_OUT);
	ASSERT_EQ(0, nps % 2) log_file("pmu-stat", PS_OUT);
	for (k = 0; k < nps; k++) {
		double t = strtod(ps[k].prefix[0], NULL);

		EXPECT_EQ(16U, strlen(ps[k].prefix[0])) TH_LOG("'%s'", ps[k].prefix[0]);
		EXPECT_STREQ(k % 2 ? "cycles:u" : "instructions:u", ps[k].event);
		if (k % 2)
			continue;
		EXPECT_LT(last, t);
		last = t;
		if (xvalue(&ps[k]) > 0)
			sum += xvalue(&ps[k]);
		if (xvalue(&ps[k]) > 0 && xvalue(&ps[k + 1]) > 0)
			EXPECT_STREQ("insn per cycle", ps[k].munit);
	}
	ASSERT_EQ(0, run_into(PS_OUT, 0, ps_total)) log_file("pmu-stat", PS_OUT);
	ASSERT_EQ(2, xlines_read(PS_OUT, 0, false, total, 2));
	ksft_print_msg("%d intervals add up to %lld, the whole run counts %lld\n", nps / 2, sum,
		       xvalue(&total[0]));
	EXPECT_GT(0.0001, fabs(rel((double)sum, (double)xvalue(&total[0]))));
	if (!have_perf())
		SKIP(return, "%s", perf_why);
	ASSERT_EQ(0, run_into(PERF_OUT, 0, pf_argv)) log_file("perf", PERF_OUT);
	npf = xlines_read(PERF_OUT, 1, false, pf, XLINES_MAX);
	ASSERT_LE(6, npf) log_file("perf", PERF_OUT);
	/*
	 * The last interval is cut short by the command's exit at a moment of its own in each
	 * tool, and perf prints no metric for one whose count is 0: metrics compare on the
	 * whole intervals before it.
	 */
	for (k = 0; k < npf && k < nps; k++) {
		EXPECT_EQ(strlen(pf[k].prefix[0]), strlen(ps[k].prefix[0]));
		EXPECT_STREQ(pf[k].event, ps[k].event);
		if (k + 2 < npf && k + 2 < nps)
			EXPECT_STREQ(pf[k].munit, ps[k].munit) TH_LOG("line %d of %d", k, npf);
	}
	ksft_print_msg("second interval: pmu-stat %s in %s..%s s, perf %s in %s..%s s\n",
		       ps[2].value, ps[0].prefix[0], ps[2].prefix[0], pf[2].value, pf[0].prefix[0],
		       pf[2].prefix[0]);
	EXPECT_LT(0.5, second_interval_rate(ps));
	EXPECT_GT(0.01, fabs(rel(second_interval_rate(ps), second_interval_rate(pf))))
		TH_LOG("per ns: pmu-stat %.4f, perf %.4f", second_interval_rate(ps),
		       second_interval_rate(pf));
}

/*
 * -a, -C and -A beside perf: every task on the CPUs is counted (the command's loop among
 * them), rows per CPU named as perf names them, the whole as one line without -A; -I with
 * -A puts the CPU after the time, as perf does.
 */
TEST(system_wide_rows_match_perf_stat)
{
	char *ps_argv[] = { "pmu-stat", "-x", ",", "-A", "-C", "0,1", "-e", "instructions:u",
			    "--", "pmu-spin", "5000000", NULL };
	char *pf_argv[] = { PERF_BIN, "stat", "-x", ",", "-A", "-C", "0,1", "-e",
			    "instructions:u", "--", "pmu-spin", "5000000", NULL };
	char *ps_all[] = { "pmu-stat", "-x", ",", "-a", "-e", "instructions:u", "--", "pmu-spin",
			   "5000000", NULL };
	char *ps_iv[] = { "pmu-stat", "-x", ",", "-I", "100", "-a", "-A", "-e", "instructions:u",
			  "--", "pmu-spin", "5000000", NULL };
	struct xline ps[XLINES_MAX], pf[XLINES_MAX];
	int nps, npf, k, ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	long long sum = 0;

	REQUIRE_COUNTING();
	if (ncpu < 2) {
		ps_argv[5] = "0";
		pf_argv[6] = "0";
	}
	ASSERT_EQ(0, run_into(PS_OUT, 0, ps_argv)) log_file("pmu-stat", PS_OUT);
	nps = xlines_read(PS_OUT, 1, false, ps, XLINES_MAX);
	ASSERT_EQ(ncpu < 2 ? 1 : 2, nps) log_file("pmu-stat", PS_OUT);
	for (k = 0; k < nps; k++) {
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "CPU%d", k);
		EXPECT_STREQ(cpu, ps[k].prefix[0]);
		EXPECT_STREQ("instructions:u", ps[k].event);
		sum += xvalue(&ps[k]);
	}
	EXPECT_LE(10000000LL, sum);
	ASSERT_EQ(0, run_into(PS_OUT, 0, ps_all)) log_file("pmu-stat", PS_OUT);
	ASSERT_EQ(1, xlines_read(PS_OUT, 0, false, ps, XLINES_MAX)) log_file("pmu-stat", PS_OUT);
	EXPECT_LE(10000000LL, xvalue(&ps[0]));
	ASSERT_EQ(0, run_into(PS_OUT, 0, ps_iv)) log_file("pmu-stat", PS_OUT);
	nps = xlines_read(PS_OUT, 2, false, ps, XLINES_MAX);
	ASSERT_LE(ncpu, nps) log_file("pmu-stat", PS_OUT);
	EXPECT_STREQ("CPU0", ps[0].prefix[1]);
	if (!have_perf())
		SKIP(return, "%s", perf_why);
	ASSERT_EQ(0, run_into(PS_OUT, 0, ps_argv)) log_file("pmu-stat", PS_OUT);
	nps = xlines_read(PS_OUT, 1, false, ps, XLINES_MAX);
	ASSERT_EQ(0, run_into(PERF_OUT, 0, pf_argv)) log_file("perf", PERF_OUT);
	npf = xlines_read(PERF_OUT, 1, false, pf, XLINES_MAX);
	ASSERT_EQ(nps, npf) log_file("perf", PERF_OUT);
	for (k = 0; k < npf; k++) {
		EXPECT_STREQ(pf[k].prefix[0], ps[k].prefix[0]);
		EXPECT_STREQ(pf[k].event, ps[k].event);
		EXPECT_EQ(100.0, pf[k].pct);
		EXPECT_EQ(100.0, ps[k].pct);
	}
}

/*
 * -p and -t count a process that runs beside the command; --per-thread names each thread
 * comm-tid, as perf does (Debian's perf 6.1 takes --per-thread with -p; with -t it fails to
 * open the events, ESRCH).
 */
TEST(pid_rows_match_perf_stat)
{
	char pid[16], name[48];
	/* Spinning on while perf starts (seconds under QEMU), until killed. */
	char *spin[] = { "pmu-spin", sizeof(long) > 4 ? "40000000000" : "4000000000", NULL };
	char *ps_argv[] = { "pmu-stat", "-x", ",", "-p", pid, "-e", "instructions:u", "--",
			    "sleep", "0.2", NULL };
	char *ps_thr[] = { "pmu-stat", "-x", ",", "--per-thread", "-t", pid, "-e",
			   "instructions:u", "--", "sleep", "0.2", NULL };
	char *pf_thr[] = { PERF_BIN, "stat", "-x", ",", "--per-thread", "-p", pid, "-e",
			   "instructions:u", "--", "sleep", "0.2", NULL };
	struct xline ps[4], pf[4];
	pid_t p;

	REQUIRE_COUNTING();
	fflush(NULL);
	p = fork();
	ASSERT_LE(0, p);
	if (!p) {
		execvp(spin[0], spin);
		_exit(99);
	}
	snprintf(pid, sizeof(pid), "%d", (int)p);
	snprintf(name, sizeof(name), "pmu-spin-%d", (int)p);
	usleep(100000);
	EXPECT_EQ(0, run_into(PS_OUT, 0, ps_argv)) log_file("pmu-stat", PS_OUT);
	EXPECT_EQ(1, xlines_read(PS_OUT, 0, false, ps, 4)) log_file("pmu-stat", PS_OUT);
	ksft_print_msg("-p %s for 0.2 s: %s\n", pid, ps[0].value);
	EXPECT_LT(1000000LL, xvalue(&ps[0]));
	EXPECT_EQ(0, run_into(PS_OUT, 0, ps_thr)) log_file("pmu-stat", PS_OUT);
	EXPECT_EQ(1, xlines_read(PS_OUT, 1, false, ps, 4)) log_file("pmu-stat", PS_OUT);
	EXPECT_STREQ(name, ps[0].prefix[0]);
	EXPECT_LT(1000000LL, xvalue(&ps[0]));
	if (have_perf()) {
		EXPECT_EQ(0, run_into(PERF_OUT, 0, pf_thr)) log_file("perf", PERF_OUT);
		EXPECT_EQ(1, xlines_read(PERF_OUT, 1, false, pf, 4)) log_file("perf", PERF_OUT);
		EXPECT_STREQ(pf[0].prefix[0], ps[0].prefix[0]);
		EXPECT_STREQ(pf[0].event, ps[0].event);
	}
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
}

/*
 * -r on a command that fails: pmu-stat says so and stops there, its status the command's.
 * (Debian's perf 6.1 runs all the repeats of such a command and says nothing; the means of
 * a command that may have failed part-way are not pmu-stat's to give.)
 */
TEST(repeat_of_a_failing_command_says_so)
{
	char *argv[] = { "pmu-stat", "-r", "3", "-x", ",", "-e", "instructions:u", "--", "sh",
			 "-c", "exit 3", NULL };
	struct xline x[4];

	REQUIRE_COUNTING();
	EXPECT_EQ(3, run_into(PS_OUT, 0, argv));
	EXPECT_TRUE(output_search_in(PS_OUT, "pmu-stat: run 1 of 3 exited with status 3: no more runs; the counts are of the 1 run done"));
	/* One run: no +- of a mean. */
	EXPECT_EQ(1, xlines_read(PS_OUT, 0, false, x, 4)) log_file("pmu-stat", PS_OUT);
}

/* The number in the first [...] of line, or -1. */
static double bracketed(const char *line)
{
	const char *p = strchr(line, '[');
	char digits[40];
	size_t k = 0;

	if (!p)
		return -1;
	for (p++; *p && *p != ']' && k + 1 < sizeof(digits); p++)
		if (*p >= '0' && *p <= '9')
			digits[k++] = *p;
	digits[k] = '\0';
	return strtod(digits, NULL);
}

/*
 * The report of instructions:u and filler (copies of one event, more than the counters):
 * the cycle counter's estimate, the one the metrics take for instructions (its own, or the
 * copies' combined when filler is more of them), and IPC as printed.
 */
static void text_ipc(struct __test_metadata *_metadata, const char *filler, double *cycles,
		     double *inst, double *ipc)
{
	unsigned int n = cpu0_counters() + 2, i;
	char spec[400] = "instructions:u", line[512];
	char *argv[] = { "pmu-stat", "-o", OUT_FILE, "-e", spec, "--", "pmu-spin", "20000000",
			 NULL };
	FILE *f;

	*cycles = *inst = *ipc = -1;
	for (i = 0; i < n; i++)
		strcat(strcat(spec, ","), filler);
	ASSERT_EQ(0, exit_code(run(argv)));
	f = fopen(OUT_FILE, "r");
	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "  cycles:u:", 11) && *cycles < 0)
			*cycles = bracketed(line);
		else if (!strncmp(line, "  instructions:u:", 17) ||
			 !strncmp(line, "  instructions:u and its", 24))
			*inst = bracketed(line);
		else if (!strncmp(line, "  IPC:", 6))
			*ipc = strtod(line + 6, NULL);
	}
	fclose(f);
	ksft_print_msg("filler %s: cycles [%.0f], instructions [%.0f], IPC %.3f\n", filler,
		       *cycles, *inst, *ipc);
}

/*
 * The text report under multiplexing: every count is shown with its scaled estimate, the
 * cycle counter's too, and IPC is the quotient of the estimates shown; where copies of the
 * instructions event are combined, the combined estimate is shown.
 */
TEST(multiplexed_text_report_is_consistent)
{
	static const char *const fillers[] = { "r11:u", "r8:u" };
	double cycles, inst, ipc;
	size_t k;

	REQUIRE_COUNTING();
	for (k = 0; k < ARRAY_SIZE(fillers); k++) {
		text_ipc(_metadata, fillers[k], &cycles, &inst, &ipc);
		ASSERT_LT(0, cycles) log_file("report", OUT_FILE);
		ASSERT_LT(0, inst) log_file("report", OUT_FILE);
		EXPECT_GT(0.0006, fabs(ipc - inst / cycles)) log_file("report", OUT_FILE);
	}
}

/* -v: perf -v's "event: count enabled running" lines, the count the -x line's. */
TEST(verbose_lines_as_perf_prints_them)
{
	char *argv[] = { "pmu-stat", "-v", "-x", ",", "-e", "instructions:u", "--", "pmu-spin",
			 "1000", NULL };
	char *pf_argv[] = { PERF_BIN, "stat", "-v", "-x", ",", "-e", "instructions:u", "--",
			    "pmu-spin", "1000", NULL };
	unsigned long long v = 0, e = 0, r = 0;
	char line[256];
	struct xline x[2];
	bool found;
	FILE *f;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, run_into(PS_OUT, 0, argv));
	ASSERT_EQ(1, xlines_read(PS_OUT, 0, false, x, 2)) log_file("pmu-stat", PS_OUT);
	f = fopen(PS_OUT, "r");
	ASSERT_TRUE(f != NULL);
	for (found = false; !found && fgets(line, sizeof(line), f);)
		found = sscanf(line, "instructions:u: %llu %llu %llu", &v, &e, &r) == 3;
	fclose(f);
	EXPECT_TRUE(found) log_file("pmu-stat", PS_OUT);
	EXPECT_EQ((unsigned long long)xvalue(&x[0]), v);
	EXPECT_EQ(e, r);
	EXPECT_EQ(x[0].run, r);
	if (!have_perf())
		SKIP(return, "%s", perf_why);
	ASSERT_EQ(0, run_into(PERF_OUT, 0, pf_argv));
	f = fopen(PERF_OUT, "r");
	ASSERT_TRUE(f != NULL);
	for (found = false; !found && fgets(line, sizeof(line), f);)
		found = sscanf(line, "instructions:u: %llu %llu %llu", &v, &e, &r) == 3;
	fclose(f);
	EXPECT_TRUE(found) log_file("perf", PERF_OUT);
}

TEST_HARNESS_MAIN
