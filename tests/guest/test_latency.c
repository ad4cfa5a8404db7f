// SPDX-License-Identifier: MIT
/*
 * pmu-lat and pmu-sweep end to end in the guest. Under QEMU's -icount, cycles are
 * instructions and there is no cache model, so the bias-corrected latency of every chase is
 * the instruction cost the tools predict: exactly 1 for pmu-lat's single load and 10 / 8 =
 * 1.25 per load for pmu-sweep's unrolled loop, at every size and for every chained pattern.
 * Bad input must give a message and a non-zero exit, never a crash.
 */

#include "kselftest_harness.h"
#include "pmuser_test.h"
#include "../tool_run.h"

#define OUT_MAX (256 * 1024)

/* Runs cmd with stderr joined to stdout into out; returns its exit status, -1 on a signal. */
static int run(const char *cmd, char *out, size_t len)
{
	return tool_run(cmd, true, out, len);
}

/* The value of a "# key=value" line, or NULL. */
static const char *meta(const char *out, const char *key, char *val, size_t len)
{
	char pat[64];
	const char *s;

	snprintf(pat, sizeof(pat), "\n# %s=", key);
	s = strstr(out, pat);
	if (!s)
		return NULL;
	s += strlen(pat);
	snprintf(val, len, "%.*s", (int)strcspn(s, "\n"), s);
	return val;
}

static long long meta_ll(const char *out, const char *key)
{
	char v[64];

	return meta(out, key, v, sizeof(v)) ? atoll(v) : -999999;
}

static int icount_exact(void)
{
	return getenv("PMUSER_ICOUNT_EXACT") != NULL;
}

/* pmu-lat in CSV: single-load latencies must all be exactly the predicted 1 instruction. */
static void check_lat(struct __test_metadata *_metadata, const char *args)
{
	static char out[OUT_MAX];
	char cmd[512], v[200], t[200];
	int ret;

	snprintf(cmd, sizeof(cmd), "pmu-lat --backend module -f csv --samples 1000 -w 100 %s",
		 args);
	/* Exact to the instruction: no other vCPU's turn may land in a window. */
	other_cpus_set(0);
	ret = run(cmd, out, sizeof(out));
	other_cpus_set(1);
	ASSERT_EQ(0, ret) TH_LOG("%s:\n%s", cmd, out);
	ASSERT_TRUE(NULL != meta(out, "backend", v, sizeof(v))) TH_LOG("%s", out);
	EXPECT_STREQ("module", v);
	ASSERT_TRUE(NULL != meta(out, "timer", t, sizeof(t)));
	ASSERT_TRUE(NULL != meta(out, "sample", v, sizeof(v)));
	/*
	 * The asm window reads the cycle counter; a core that keeps it from user reads (cycles
	 * on an event counter) takes the library's region reads, and says why.
	 */
	if (strstr(t, "counting CPU_CYCLES")) {
		EXPECT_TRUE(NULL != strstr(v, "the set's cycles are on an event counter"))
			TH_LOG("%s", v);
	} else {
		EXPECT_TRUE(NULL != strstr(v, "one asm block")) TH_LOG("%s", v);
	}
	EXPECT_EQ(1, meta_ll(out, "predicted"));
	EXPECT_EQ(1000, meta_ll(out, "samples"));
	EXPECT_LT(0, meta_ll(out, "bias"));
	if (!icount_exact())
		SKIP(return, "the exact latency checks need QEMU's -icount (PMUSER_ICOUNT=1)");
	/* min and max too: every sample, not just the typical one */
	EXPECT_EQ(1, meta_ll(out, "min")) TH_LOG("%s", cmd);
	EXPECT_EQ(1, meta_ll(out, "mode"));
	EXPECT_EQ(1, meta_ll(out, "median"));
	EXPECT_EQ(1, meta_ll(out, "p99"));
	EXPECT_EQ(1, meta_ll(out, "max")) TH_LOG("%s", cmd);
	EXPECT_EQ(meta_ll(out, "bias"), meta_ll(out, "bias_median"));
	EXPECT_TRUE(NULL != strstr(out, "\nlatency,count\n1,1000\n")) TH_LOG("%s", out);
}

TEST(lat_l1_chase_is_one_instruction)
{
	REQUIRE_COUNTING();
	check_lat(_metadata, "-s 16K");
}

TEST(lat_every_size_and_pattern_same)
{
	static const char *const args[] = {
		"-s 2K", "-s 1M", "-s 8M", "--pattern stride -s 256K", "--pattern stride --stride 4K -s 1M",
		"--pattern page -s 512K", "--pattern random -s 4M",
	};

	REQUIRE_COUNTING();
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++)
		check_lat(_metadata, args[i]);
}

TEST(lat_text_report)
{
	static char out[OUT_MAX];

	int ret;

	REQUIRE_COUNTING();
	other_cpus_set(0);
	ret = run("pmu-lat --backend module --samples 500 -w 10", out, sizeof(out));
	other_cpus_set(1);
	ASSERT_EQ(0, ret) TH_LOG("%s", out);
	EXPECT_TRUE(NULL != strstr(out, "backend: module; timer: "));
	EXPECT_TRUE(NULL != strstr(out, "bias (same sequence without the load): min "));
	EXPECT_TRUE(NULL != strstr(out, "icount prediction: 1 instruction per sample"));
	EXPECT_TRUE(NULL != strstr(out, "histogram (cycles, bias-corrected):"));
	if (icount_exact()) {
		EXPECT_TRUE(NULL != strstr(out, "  min 1  mode 1  median 1  p90 1  p99 1  max 1  "))
			TH_LOG("%s", out);
	}
}

/*
 * pmu-sweep in CSV: every size's min and median must be the loop's 1.25 instructions/load.
 * With a neighbour, another process shares CPU 0 (the only CPU online), spinning briefly
 * every 4 ms: pmuser's cycle counter counts it too, so every window it ran in must have been
 * flagged by the module's switch marker and measured again.
 */
static void sweep_run(struct __test_metadata *_metadata, const char *args, size_t min_rows,
		      bool neighbour)
{
	static char out[OUT_MAX];
	char cmd[512], v[128];
	const char *s;
	size_t rows = 0;
	pid_t pid = -1;
	int ret;

	snprintf(cmd, sizeof(cmd), "pmu-sweep --backend module -f csv -r 3 --budget 0.1 %s", args);
	other_cpus_set(0);
	if (neighbour) {
		pid = fork();
		if (pid == 0) {
			execlp("pmu-spin", "pmu-spin", "500", "1000000", "4", (char *)NULL);
			_exit(127);
		}
	}
	ret = run(cmd, out, sizeof(out));
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	other_cpus_set(1);
	if (neighbour)
		ASSERT_LT(0, pid) TH_LOG("fork: %s", strerror(errno));
	ASSERT_EQ(0, ret) TH_LOG("%s:\n%s", cmd, out);
	ASSERT_TRUE(NULL != meta(out, "backend", v, sizeof(v))) TH_LOG("%s", out);
	EXPECT_STREQ("module", v);
	ASSERT_TRUE(NULL != meta(out, "predicted", v, sizeof(v)));
	EXPECT_STREQ("1.25", v);
	if (neighbour) {
		s = strstr(out, "note: ");
		EXPECT_TRUE(s && strtoul(s + 6, NULL, 10) > 0 &&
			    strstr(s, " measurement windows were disturbed (another thread ran"))
			TH_LOG("no window flagged beside the neighbour:\n%s", out);
	}
	s = strstr(out, "\nsize_bytes,latency,median,ns_per_load,loads\n");
	ASSERT_TRUE(NULL != s) TH_LOG("%s", out);
	s = strchr(s + 1, '\n') + 1;
	for (; *s && *s != '\n'; s = strchr(s, '\n') + 1) {
		unsigned long long size, loads;
		double lat, med, ns;

		ASSERT_EQ(5, sscanf(s, "%llu,%lf,%lf,%lf,%llu", &size, &lat, &med, &ns, &loads))
			TH_LOG("row '%.60s'", s);
		EXPECT_LE(512, loads);
		EXPECT_EQ(0, loads % 8);
		if (icount_exact()) {
			EXPECT_EQ(1.25, lat) TH_LOG("%s: size %llu: row %.60s", cmd, size, s);
			EXPECT_EQ(1.25, med) TH_LOG("%s: size %llu: row %.60s", cmd, size, s);
		} else {
			EXPECT_LT(0, lat);
		}
		rows++;
		if (!strchr(s, '\n'))
			break;
	}
	EXPECT_LE(min_rows, rows) TH_LOG("%s", out);
}

static void check_sweep(struct __test_metadata *_metadata, const char *args, size_t min_rows)
{
	sweep_run(_metadata, args, min_rows, false);
}

TEST(sweep_every_size_is_the_loop_cost)
{
	REQUIRE_COUNTING();
	check_sweep(_metadata, "--min 1K --max 2M", 21);	/* 2^k and 1.5 * 2^k */
}

/* Another process on the CPU: its time in a window is flagged, never counted as the loop's. */
TEST(sweep_exact_beside_another_process)
{
	REQUIRE_COUNTING();
	sweep_run(_metadata, "--min 1K --max 256K", 15, true);
}

TEST(sweep_patterns)
{
	REQUIRE_COUNTING();
	check_sweep(_metadata, "--pattern stride --sizes 4K,64K,1M", 3);
	check_sweep(_metadata, "--pattern stride --stride 256 --sizes 8K,128K,2M", 3);
	check_sweep(_metadata, "--pattern page --sizes 8K,64K,1M", 3);
}

/* Flat in emulation: one tier, at the predicted cost; the report names it. */
TEST(sweep_text_report_and_tiers)
{
	static char out[OUT_MAX];

	int ret;

	REQUIRE_COUNTING();
	other_cpus_set(0);
	ret = run("pmu-sweep --backend module -r 2 --budget 0.1 --max 512K --svg /tmp/sweep.svg "
		  "--raw /tmp/sweep.raw -e default", out, sizeof(out));
	other_cpus_set(1);
	ASSERT_EQ(0, ret) TH_LOG("%s", out);
	EXPECT_TRUE(NULL != strstr(out, "icount prediction: 1.25 cycles per load (10 instructions "
			       "per iteration / 8 loads)"));
	EXPECT_TRUE(NULL != strstr(out, "L1D_CACHE_REFILL"));
	if (icount_exact()) {
		EXPECT_TRUE(NULL != strstr(out, "\nflat             -  1 KiB .. 512 KiB         1.25 cycles\n"))
			TH_LOG("%s", out);
	}
	ASSERT_EQ(0, run("head -c 4 /tmp/sweep.svg; grep -c '^524288,' /tmp/sweep.raw", out,
			 sizeof(out)));
	EXPECT_STREQ("<svg2\n", out);
}

/* The other backends run end to end through the region API and say so. */
TEST(other_backends)
{
	static char out[OUT_MAX];
	char v[160];

	REQUIRE_COUNTING();
	ASSERT_EQ(0, run("pmu-lat --backend perf-read -f csv --samples 200 -w 10", out, sizeof(out)))
		TH_LOG("%s", out);
	EXPECT_TRUE(NULL != meta(out, "sample", v, sizeof(v)));
	EXPECT_TRUE(NULL != strstr(v, "region reads (perf-read backend")) TH_LOG("%s", v);
	ASSERT_TRUE(NULL != meta(out, "predicted", v, sizeof(v)));
	EXPECT_STREQ("none", v);
	ASSERT_EQ(0, run("pmu-sweep --backend clock -f csv -r 2 --budget 0.05 --sizes 4K,8K,16K",
			 out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_TRUE(NULL != strstr(out, "# pmu-sweep v1 unit=ns\n"));
}

/*
 * The clock backend under QEMU steps in 16 ns (62.5 MHz) while a load costs 1 ns: pmu-lat
 * must say its latencies are below the timer's resolution rather than present them plainly.
 */
TEST(clock_backend_says_when_it_cannot_resolve)
{
	static char out[OUT_MAX];
	char v[32];

	ASSERT_EQ(0, run("pmu-lat --backend clock -f csv --samples 200 -w 10", out, sizeof(out)))
		TH_LOG("%s", out);
	ASSERT_TRUE(NULL != meta(out, "resolved", v, sizeof(v))) TH_LOG("%s", out);
	EXPECT_STREQ("no", v) TH_LOG("%s", out);
	EXPECT_TRUE(NULL != strstr(out, "these latencies are below what the timer resolves"))
		TH_LOG("%s", out);
}

/* SIGTERM mid-sweep: the sizes already measured reach the output file, exit 128 + 15. */
TEST(sweep_reports_what_it_measured_when_terminated)
{
	static char out[OUT_MAX];
	int ret, rows = 0;
	char line[256];
	FILE *f;

	/* The clock backend: what is tested is the signal path, on every target. */
	ret = run("(pmu-sweep --backend clock -f csv -r 3 --budget 20 --max 1M -o /tmp/term.csv & "
		  "pid=$!; sleep 2; kill -TERM $pid; wait $pid)", out, sizeof(out));
	EXPECT_EQ(128 + SIGTERM, ret) TH_LOG("%s", out);
	EXPECT_TRUE(NULL != strstr(out, "pmu-sweep: stopped by signal 15 after ")) TH_LOG("%s", out);
	f = fopen("/tmp/term.csv", "r");
	ASSERT_TRUE(NULL != f);
	while (fgets(line, sizeof(line), f))
		rows += line[0] >= '0' && line[0] <= '9' && strchr(line, ',') != NULL;
	fclose(f);
	EXPECT_LE(1, rows) TH_LOG("%s", out);
}

/* Bad input: a message naming the problem and exit status != 0, whatever the counters do. */
TEST(bad_input)
{
	static const struct { const char *cmd, *msg; } cases[] = {
		{ "pmu-lat -s 0", "-s '0': out of range" },
		{ "pmu-lat -s 12Q", "-s '12Q': trailing characters" },
		{ "pmu-lat -s 64", "too small" },
		{ "pmu-lat -s 99999999999G", "-s '99999999999G': too large" },
		{ "pmu-lat -s 64G", "more than half the machine's memory" },
		{ "pmu-lat --pattern bogus", "--pattern 'bogus': unknown pattern" },
		{ "pmu-lat --pattern stride --stride 6", "--stride '6': not a multiple of" },
		{ "pmu-lat --pattern stride --stride 1M -s 16K", "stride 1048576 is more than half" },
		{ "pmu-lat --stride 128", "--stride applies to --pattern stride only" },
		{ "pmu-lat --samples 0", "--samples '0': out of range" },
		{ "pmu-lat --hugepages huge", "--hugepages 'huge': want thp or hugetlb" },
		{ "pmu-lat --backend nope", "--backend 'nope': unknown backend" },
		{ "pmu-lat -f xml", "-f 'xml': unknown format" },
		{ "pmu-lat --what", "unknown option '--what'" },
		{ "pmu-sweep --min 1M --max 1K", "--min 1 MiB is above --max 1 KiB" },
		{ "pmu-sweep --sizes 4K,2K", "--sizes must increase" },
		{ "pmu-sweep --sizes 4K,x", "--sizes '4K,x': bad size 'x'" },
		{ "pmu-sweep --min 16", "sizes must hold at least 2 nodes" },
		{ "pmu-sweep --max 64G", "more than half the machine's memory" },
		{ "pmu-sweep --pattern zigzag", "--pattern 'zigzag': unknown pattern" },
		{ "pmu-sweep --pattern stride --stride 6 --sizes 4K,8K,16K", "--stride '6': not a multiple of" },
		{ "pmu-sweep --budget 0", "--budget '0': want seconds" },
		{ "pmu-sweep -r 0", "-r '0': out of range" },
		{ "pmu-sweep -e no_such_event --sizes 4K,8K,16K", "--event: " },
		{ "pmu-sweep --from /nonexistent.csv", "/nonexistent.csv: No such file" },
		{ "pmu-sweep --from /proc/version", "missing '# pmu-sweep v1" },
		{ "pmu-sweep --from x.csv -r 3", "only --format, --output and --svg apply" },
		{ "PMUSER_BACKEND=warp pmu-lat", "PMUSER_BACKEND='warp'" },
	};
	static char out[OUT_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run(cases[i].cmd, out, sizeof(out));

		EXPECT_LT(0, rc) TH_LOG("%s: exit %d\n%s", cases[i].cmd, rc, out);
		EXPECT_TRUE(NULL != strstr(out, cases[i].msg)) TH_LOG("%s: got '%s'", cases[i].cmd, out);
	}
}

/*
 * No huge pages reserved in the guest (or no hugetlb in the kernel at all, as on armhf):
 * hugetlb is refused with the reason.
 */
TEST(hugetlb_unavailable)
{
	static char out[OUT_MAX];
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "r");
	long reserved = 0;

	if (f) {
		if (fscanf(f, "%ld", &reserved) != 1)
			reserved = 0;
		fclose(f);
	}
	if (reserved > 0)
		SKIP(return, "huge pages are reserved (%ld): cannot test their absence", reserved);
	REQUIRE_COUNTING();
	EXPECT_EQ(1, run("pmu-lat --hugepages hugetlb --samples 10", out, sizeof(out)));
	EXPECT_TRUE(NULL != strstr(out, f ? "--hugepages=hugetlb: no huge pages available" :
				   "--hugepages=hugetlb: this kernel has no hugetlb pages"))
		TH_LOG("%s", out);
	if (f)
		EXPECT_TRUE(NULL != strstr(out, "/proc/sys/vm/nr_hugepages"));
	EXPECT_EQ(1, run("pmu-sweep --hugepages hugetlb --sizes 4K,8K,16K", out, sizeof(out)));
	EXPECT_TRUE(NULL != strstr(out, "--hugepages=hugetlb: ")) TH_LOG("%s", out);
}

/* THP either works (the report says thp) or is refused with the reason. */
TEST(thp_works_or_is_refused)
{
	static char out[OUT_MAX];
	int rc;

	REQUIRE_COUNTING();
	rc = run("pmu-lat --hugepages thp -s 4M --samples 100 -w 10", out, sizeof(out));
	if (rc == 0) {
		EXPECT_TRUE(NULL != strstr(out, "thp pages")) TH_LOG("%s", out);
	} else {
		EXPECT_TRUE(NULL != strstr(out, "--hugepages=thp: ")) TH_LOG("%s", out);
	}
	EXPECT_LE(0, rc);
}

/* Where counters cannot be read (QEMU's ARM1176), asking for the module fails cleanly. */
TEST(module_refusal_is_clean)
{
	static char out[OUT_MAX];
	int rc;

	if (counters_move())
		SKIP(return, "counters work here; the refusal path is for boards without them");
	rc = run("pmu-lat --backend module --samples 10", out, sizeof(out));
	EXPECT_EQ(1, rc) TH_LOG("%s", out);
	EXPECT_TRUE(NULL != strstr(out, "pmu-lat: no counter backend")) TH_LOG("%s", out);
	rc = run("pmu-sweep --backend module --sizes 4K,8K,16K", out, sizeof(out));
	EXPECT_EQ(1, rc) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
