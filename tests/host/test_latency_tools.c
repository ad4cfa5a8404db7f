// SPDX-License-Identifier: MIT
/*
 * Host tests of pmu-lat and pmu-sweep: the chain layouts (every pattern one cycle through
 * every node), size parsing and statistics in samples/lat/lat_*.c; pmu-sweep --from on the
 * seeds' published tables; and both tools end to end on the clock backend (no PMU on an x86
 * box), with their bad-input refusals. The tools are the x86 builds in build/host/bin.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "lat_buf.h"
#include "lat_timer.h"
#include "../tool_run.h"

#define KiB (1024ULL)
#define MiB (1024ULL * 1024)
#define DATA PMUSER_TOP "/tests/host/data/"
#define BIN PMUSER_TOP "/build/host/bin/"
#define OUT_MAX (256 * 1024)

/* Runs cmd with stderr joined to stdout into out; returns its exit status, -1 on a signal. */
static int run(const char *cmd, char *out, size_t len)
{
	return tool_run(cmd, true, out, len);
}

static int has(const char *out, const char *s)
{
	return strstr(out, s) != NULL;
}

/* ---- layouts --------------------------------------------------------------------------- */

/* Follows the chain from its start: every node once, back to the start after nodes steps. */
static void check_cycle(struct __test_metadata *_metadata, struct lat_buf *b,
			const struct lat_chain *c)
{
	char *seen = calloc(c->nodes, 1);
	void **p = c->start;

	ASSERT_TRUE(NULL != seen);
	for (size_t i = 0; i < c->nodes; i++) {
		size_t off = (size_t)((char *)p - (char *)b->mem);

		ASSERT_EQ(0U, off % c->step);
		ASSERT_LT(off / c->step, c->nodes);
		ASSERT_EQ(0, seen[off / c->step]) TH_LOG("node %zu visited twice", off / c->step);
		seen[off / c->step] = 1;
		p = *p;
	}
	EXPECT_EQ(c->start, p);
	free(seen);
}

TEST(chase_is_one_random_cycle)
{
	struct lat_buf b;
	struct lat_chain c;
	char err[200];
	size_t sequential = 0;

	ASSERT_EQ(0, lat_buf_alloc(&b, 1 * MiB, LAT_PAGES_BASE, err, sizeof(err))) TH_LOG("%s", err);
	for (uint64_t seed = 1; seed <= 4; seed++) {
		ASSERT_EQ(0, lat_chain_build(&b, LAT_CHASE, 64, seed, &c, err, sizeof(err)));
		EXPECT_EQ(16384U, c.nodes);
		check_cycle(_metadata, &b, &c);
	}
	/* random order: next-line neighbours are rare (expected about 1 in 16384 steps) */
	for (size_t i = 0; i < c.nodes; i++) {
		void **n = (void **)((char *)b.mem + i * 64);

		sequential += (char *)*n - (char *)n == 64;
	}
	EXPECT_GT(20U, sequential);
	b.size = 128;	/* two nodes: the smallest cycle */
	ASSERT_EQ(0, lat_chain_build(&b, LAT_CHASE, 64, 1, &c, err, sizeof(err)));
	check_cycle(_metadata, &b, &c);
	b.size = 64;
	EXPECT_EQ(-EINVAL, lat_chain_build(&b, LAT_CHASE, 64, 1, &c, err, sizeof(err)));
	EXPECT_TRUE(has(err, "fewer than 2 nodes"));
	lat_buf_free(&b);
}

TEST(stride_and_page_patterns)
{
	struct lat_buf b;
	struct lat_chain c;
	char err[200];
	void **p;

	ASSERT_EQ(0, lat_buf_alloc(&b, 256 * KiB, LAT_PAGES_BASE, err, sizeof(err)));
	ASSERT_EQ(0, lat_chain_build(&b, LAT_STRIDE, 256, 1, &c, err, sizeof(err)));
	EXPECT_EQ(1024U, c.nodes);
	check_cycle(_metadata, &b, &c);
	EXPECT_EQ((char *)b.mem + 256, (char *)*c.start);

	ASSERT_EQ(0, lat_chain_build(&b, LAT_PAGE, 64, 3, &c, err, sizeof(err)));
	check_cycle(_metadata, &b, &c);
	/* every page's lines are visited together, pages in address order */
	p = c.start;
	for (size_t page = 0; page < b.size / b.page; page++)
		for (size_t i = 0; i < b.page / 64; i++) {
			ASSERT_EQ(page, (size_t)((char *)p - (char *)b.mem) / b.page);
			p = *p;
		}
	EXPECT_EQ(-EINVAL, lat_chain_build(&b, LAT_STRIDE, 12, 1, &c, err, sizeof(err)));
	EXPECT_TRUE(has(err, "must be a multiple of the 8-byte pointer")) TH_LOG("%s", err);
	b.size = 6000;
	EXPECT_EQ(-EINVAL, lat_chain_build(&b, LAT_PAGE, 64, 1, &c, err, sizeof(err)));
	EXPECT_TRUE(has(err, "multiple of the 4096-byte page")) TH_LOG("%s", err);
	b.size = 256 * KiB;
	lat_buf_free(&b);
}

TEST(parse_sizes)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "4096", 4096 }, { "64K", 65536 }, { "64k", 65536 }, { "1M", MiB },
		{ "2MiB", 2 * MiB }, { "3MB", 3 * MiB }, { "1G", 1024 * MiB },
	};
	static const char *const bad[] = { "", "0", "-1", "K", "12Q", "1.5M", "1 M", "99999999999G",
					   "18446744073709551616" };
	uint64_t v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		EXPECT_EQ(0, lat_parse_size(good[i].s, &v)) TH_LOG("%s", good[i].s);
		EXPECT_EQ(good[i].v, v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, lat_parse_size(bad[i], &v)) TH_LOG("'%s'", bad[i]);
	}
}

TEST(stats)
{
	int64_t v[] = { 9, 1, 3, 3, 100, 3, 2, 1, 4, 5 };
	struct lat_stats s;

	lat_stats_compute(v, 10, &s);
	EXPECT_EQ(1, s.min);
	EXPECT_EQ(100, s.max);
	EXPECT_EQ(3, s.mode);
	EXPECT_EQ(3, s.median);
	EXPECT_EQ(9, s.p90);
	EXPECT_EQ(100, s.p99);
	EXPECT_EQ(13.1, s.mean);
}

TEST(geometry_has_a_line_size)
{
	struct lat_geometry g;

	lat_geometry_read(0, &g);
	EXPECT_LE(16U, g.line);
	EXPECT_EQ(0U, g.line & (g.line - 1));
	EXPECT_TRUE(NULL != g.line_source);
}

/* ---- pmu-sweep --from on published tables ----------------------------------------------- */

TEST(from_rpi4_a72)
{
	static char out[OUT_MAX];

	ASSERT_EQ(0, run(BIN "pmu-sweep --from " DATA "rpi4-a72.csv --svg pmuser-a72.svg",
			 out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "\nL1          32 KiB  2 KiB .. 32 KiB ")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "\nL2         512 KiB  64 KiB .. 512 KiB "));
	EXPECT_TRUE(has(out, "\nDRAM             -  2 MiB .. "));
	ASSERT_EQ(0, run("grep -c 'stroke-dasharray=\"6,4\"' pmuser-a72.svg; "
			 "grep -o '>L2 [^<]*<' pmuser-a72.svg", out, sizeof(out)));
	EXPECT_TRUE(has(out, "3\n>L2 ")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "cycles, 512 KiB<")) TH_LOG("%s", out);
}

TEST(from_a8_tables_and_formats)
{
	static const char *const files[] = { "a8-iphone3gs-strided.csv",
					     "a8-iphone3gs-strided-rand.csv" };
	static char out[OUT_MAX];
	char cmd[1024];

	for (size_t i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), BIN "pmu-sweep --from " DATA "%s -f json", files[i]);
		ASSERT_EQ(0, run(cmd, out, sizeof(out))) TH_LOG("%s", out);
		EXPECT_TRUE(has(out, "{\"label\": \"L1\"") && has(out, "\"capacity\": 8192"))
			TH_LOG("%s", out);
		EXPECT_TRUE(has(out, "{\"label\": \"L2\"") && has(out, "\"capacity\": 32768"));
		EXPECT_TRUE(has(out, "{\"label\": \"DRAM\""));
	}
	/* CSV out of --from reads back in with the same tiers */
	ASSERT_EQ(0, run(BIN "pmu-sweep --from " DATA "a8-iphone3gs-random.csv -f csv -o "
			 "pmuser-a8.csv && " BIN "pmu-sweep --from pmuser-a8.csv", out,
			 sizeof(out))) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "\nDRAM ")) TH_LOG("%s", out);
}

/* A noisy synthetic staircase written as a CSV: the tool reports its three levels. */
TEST(from_synthetic_staircase)
{
	static char out[OUT_MAX];
	FILE *f = fopen("pmuser-stair.csv", "w");
	uint64_t state = 7;

	ASSERT_TRUE(NULL != f);
	fprintf(f, "# pmu-sweep v1 unit=ns\nsize_bytes,latency\n");
	for (uint64_t s = KiB; s <= 64 * MiB; s *= 2) {
		double lat = s <= 64 * KiB ? 1.2 : s <= 2 * MiB ? 5 : 90;
		double noise = 1 + 0.04 * ((double)(lat_rand(&state) % 1000) / 500 - 1);

		fprintf(f, "%llu,%.4f\n", (unsigned long long)s, lat * noise);
	}
	fclose(f);
	ASSERT_EQ(0, run(BIN "pmu-sweep --from pmuser-stair.csv", out, sizeof(out)));
	EXPECT_TRUE(has(out, "\nL1          64 KiB  1 KiB .. 64 KiB ")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "\nL2           2 MiB  128 KiB .. 2 MiB ")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "\nDRAM             -  4 MiB .. 64 MiB ")) TH_LOG("%s", out);
}

/* ---- end to end on the clock backend ------------------------------------------------------ */

TEST(lat_clock_backend)
{
	static char out[OUT_MAX];
	long long n = 0, sum = 0, v, c;
	const char *s;

	ASSERT_EQ(0, run(BIN "pmu-lat --backend clock --samples 3000 -w 100 -f csv --raw pmuser-lat.raw",
			 out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "# pmu-lat v1 unit=ns\n# backend=clock\n# timer=CLOCK_MONOTONIC_RAW"));
	EXPECT_TRUE(has(out, "# sample=library region reads (clock backend"));
	EXPECT_TRUE(has(out, "# predicted=none\n"));
	s = strstr(out, "latency,count\n");
	ASSERT_TRUE(NULL != s);
	for (s = strchr(s, '\n') + 1; sscanf(s, "%lld,%lld", &v, &c) == 2; s = strchr(s, '\n') + 1) {
		EXPECT_LE(0, v);
		n++;
		sum += c;
	}
	EXPECT_LT(0, n);
	EXPECT_EQ(3000, sum);
	ASSERT_EQ(0, run("wc -l < pmuser-lat.raw", out, sizeof(out)));
	EXPECT_EQ(3002, atoi(out));
	/* Every row's latency is its own raw sample less the bias in the header. */
	ASSERT_EQ(0, run("awk -F, 'NR == 1 { split($0, h, \"bias=\"); b = h[2] } "
			 "NR > 2 && $4 != $2 - b { bad++ } END { print bad + 0, NR }' "
			 "pmuser-lat.raw", out, sizeof(out)));
	EXPECT_STREQ("0 3002\n", out);
	ASSERT_EQ(0, run(BIN "pmu-lat --backend clock --samples 500 --pattern page -s 1M -f json", out,
			 sizeof(out)));
	EXPECT_TRUE(has(out, "\"pattern\": \"page\"") && has(out, "\"histogram\": [[")) TH_LOG("%s", out);
	/* The JSON says, as the CSV's "# resolved" does, whether the timer resolved the loads. */
	EXPECT_TRUE(has(out, "\"resolved\": ")) TH_LOG("%s", out);
}

/*
 * Runs tool in the background, sends it SIGTERM 0.3 s after it catches the signal (its
 * /proc status says so), and prints "rc=STATUS killed=1" (0: it had ended by itself), its
 * stderr then its stdout after a "--" line.
 */
#define STOP_RUN(tool)								\
	"sh -c '" BIN tool " >stop.out 2>stop.err & p=$!; "			\
	"until m=$(sed -n \"s/^SigCgt:[[:space:]]*//p\" /proc/$p/status 2>/dev/null) && "	\
	"[ -n \"$m\" ] && [ $((0x$m & 0x4000)) != 0 ]; do "			\
	"kill -0 $p 2>/dev/null || break; sleep 0.01; done; sleep 0.3; "	\
	"k=0; kill -TERM $p 2>/dev/null && k=1; wait $p; "			\
	"echo rc=$? killed=$k; cat stop.err; echo --; cat stop.out'"

/* SIGTERM stops the sampling; the samples taken are reported, and the status says why. */
TEST(lat_reports_what_it_has_on_sigterm)
{
	static char out[OUT_MAX];
	long long taken = -1, sum = 0, v, c;
	const char *s;

	ASSERT_EQ(0, run(STOP_RUN("pmu-lat --backend clock --samples 5000000 -s 1M -f csv"), out,
			 sizeof(out)));
	ASSERT_TRUE(has(out, "rc=143 killed=1\n")) TH_LOG("%s", out);
	s = strstr(out, "pmu-lat: stopped by signal 15 after ");
	ASSERT_TRUE(s != NULL) TH_LOG("%s", out);
	ASSERT_EQ(1, sscanf(s, "pmu-lat: stopped by signal 15 after %lld of 5000000 samples",
			    &taken)) TH_LOG("%s", out);
	if (!taken) {
		EXPECT_TRUE(has(out, "samples: nothing to report\n--\n")) TH_LOG("%s", out);
		return;
	}
	EXPECT_TRUE(has(s, "samples: reporting those\n")) TH_LOG("%s", out);
	s = strstr(out, "latency,count\n");
	ASSERT_TRUE(s != NULL) TH_LOG("%s", out);
	for (s = strchr(s, '\n') + 1; sscanf(s, "%lld,%lld", &v, &c) == 2; s = strchr(s, '\n') + 1)
		sum += c;
	EXPECT_EQ(taken, sum);
}

/* A workload tool stops before its next run and reports the runs it finished. */
TEST(workload_reports_the_runs_done_on_sigterm)
{
	static char out[OUT_MAX];
	unsigned int done = 7;
	const char *s;

	ASSERT_EQ(0, run(STOP_RUN("pmu-hazards --iterations 100000000"), out, sizeof(out)));
	if (has(out, "killed=0"))
		SKIP(return, "pmu-hazards ended before the signal");
	ASSERT_TRUE(has(out, "rc=143 killed=1\n")) TH_LOG("%s", out);
	s = strstr(out, "pmu-hazards: stopped by signal 15 after ");
	ASSERT_TRUE(s != NULL) TH_LOG("%s", out);
	ASSERT_EQ(1, sscanf(s, "pmu-hazards: stopped by signal 15 after %u of 6 runs", &done));
	EXPECT_GT(6, done);
	/* Each run reported has its own block; none after the last done. */
	EXPECT_EQ(done > 0, has(out, "\nraw_chain\n")) TH_LOG("%s", out);
	EXPECT_FALSE(has(out, "\nmisp_ones\n")) TH_LOG("%s", out);
}

TEST(sweep_clock_backend_round_trip)
{
	static char out[OUT_MAX];

	ASSERT_EQ(0, run(BIN "pmu-sweep --backend clock -r 3 --budget 1 --min 4K --max 8M -e default "
			 "-f csv -o pmuser-sweep.csv --svg pmuser-sweep.svg", out, sizeof(out)))
		TH_LOG("%s", out);
	ASSERT_EQ(0, run("cat pmuser-sweep.csv", out, sizeof(out)));
	EXPECT_TRUE(has(out, "# pmu-sweep v1 unit=ns\n# backend=clock\n")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "size_bytes,latency,median,ns_per_load,loads,L1D_CACHE_REFILL,"));
	EXPECT_TRUE(has(out, "\n4096,") && has(out, "\n8388608,"));
	EXPECT_TRUE(has(out, ",,,\n"));		/* events: not counted on the clock */
	ASSERT_EQ(0, run(BIN "pmu-sweep --from pmuser-sweep.csv -f json", out, sizeof(out)))
		TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "\"unit\": \"ns\"") && has(out, "\"tiers\": [")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "{\"size_bytes\": 4096, \"latency\": ")) TH_LOG("%s", out);
	/* Measured JSON names its columns as the CSV does: size_bytes, latency (the minimum). */
	ASSERT_EQ(0, run(BIN "pmu-sweep --backend clock -r 1 --budget 0.2 --sizes 4K,64K,1M -f json",
			 out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "{\"size_bytes\": 4096, \"latency\": ")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "\"ns_per_load\": ") && !has(out, "\"min\"")) TH_LOG("%s", out);
	ASSERT_EQ(0, run("head -c 4 pmuser-sweep.svg", out, sizeof(out)));
	EXPECT_STREQ("<svg", out);
	/* A plot that cannot be written is said to be the plot, not the report. */
	EXPECT_EQ(1, run(BIN "pmu-sweep --backend clock -r 1 --budget 0.1 --sizes 4K,8K,16K "
			 "--svg /dev/full", out, sizeof(out)));
	EXPECT_TRUE(has(out, "writing /dev/full: No space left on device")) TH_LOG("%s", out);
	EXPECT_FALSE(has(out, "writing the report")) TH_LOG("%s", out);
	/* A report that cannot be written costs no plot. */
	unlink("pmuser-from.svg");
	EXPECT_EQ(1, run(BIN "pmu-sweep --from " DATA "rpi4-a72.csv -o /dev/full --svg "
			 "pmuser-from.svg", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_EQ(0, run("head -c 4 pmuser-from.svg", out, sizeof(out)));
	EXPECT_STREQ("<svg", out);
	/*
	 * A sweep whose timer did not resolve a size has its measured minimum of 0 in the CSV,
	 * which --from reads back: no tiers, said as such, and no plot.
	 */
	ASSERT_EQ(0, run("printf '# pmu-sweep v1 unit=ns\\nsize_bytes,latency\\n1024,1\\n"
			 "2048,0\\n4096,1\\n8192,5\\n' > pmuser-zero.csv", out, sizeof(out)));
	EXPECT_EQ(0, run(BIN "pmu-sweep --from pmuser-zero.csv", out, sizeof(out)));
	EXPECT_TRUE(has(out, "tiers: not detected: 1 sizes have a minimum of 0 or less"))
		TH_LOG("%s", out);
	EXPECT_EQ(1, run(BIN "pmu-sweep --from pmuser-zero.csv --svg pmuser-zero.svg", out,
			 sizeof(out)));
	EXPECT_TRUE(has(out, "--svg pmuser-zero.svg: not written")) TH_LOG("%s", out);
	EXPECT_NE(0, access("pmuser-zero.svg", F_OK));
	/* Sizes rounded to the node spacing stay within --min and --max. */
	ASSERT_EQ(0, run(BIN "pmu-sweep --backend clock --pattern stride --stride 1000 --min 2048 "
			 "--max 16K --budget 0.01 -r 1 -f csv", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "\n3000,") && !has(out, "\n2000,")) TH_LOG("%s", out);
	ASSERT_EQ(0, run(BIN "pmu-sweep --backend clock --pattern random -r 2 --budget 0.2 "
			 "--sizes 16K,1M,4M", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "independent random-index loads"));
}

TEST(bad_input_on_host)
{
	static const struct { const char *cmd, *msg; int rc; } cases[] = {
		{ BIN "pmu-lat -s 1X", "-s '1X'", 2 },
		{ BIN "pmu-lat --pattern spiral", "--pattern 'spiral': unknown pattern", 2 },
		{ BIN "pmu-lat --backend module", "no counter backend", 1 },
		{ BIN "pmu-lat --backend clock --pattern stride --stride 20",
		  "--stride '20': not a multiple of 8", 2 },
		{ BIN "pmu-sweep --from " DATA "missing.csv", "No such file", 1 },
		{ BIN "pmu-sweep --from " DATA, "Is a directory", 1 },
		{ BIN "pmu-sweep --from " DATA "rpi4-a72.csv --svg /dev/full",
		  "writing /dev/full: No space left on device", 1 },
		{ BIN "pmu-sweep --from " DATA "rpi4-a72.csv -o /dev/full",
		  "writing the report to /dev/full: No space left on device", 1 },
		{ BIN "pmu-sweep --from " PMUSER_TOP "/Makefile", "missing '# pmu-sweep v1", 1 },
		{ BIN "pmu-sweep --from " DATA "rpi4-a72.csv --min 1K", "only --format, --output", 2 },
		{ BIN "pmu-sweep --from " DATA "rpi4-a72.csv --max 1M", "only --format, --output", 2 },
		{ BIN "pmu-sweep --sizes 4K,4K", "--sizes must increase", 2 },
		{ BIN "pmu-sweep --sizes 4K,,8K", "empty item in --sizes", 2 },
		{ BIN "pmu-sweep --sizes 4K,8K,", "empty item in --sizes", 2 },
		{ BIN "pmu-sweep --backend clock --max 1T", "--max '1T'", 2 },
		{ BIN "pmu-sweep --backend clock --min 1000 --max 1000",
		  "no size to measure between --min 1000 and --max 1000", 2 },
		{ BIN "pmu-sweep --backend clock --sizes 4K,8K,512G", "memory; use smaller --sizes", 2 },
		{ BIN "pmu-sweep --backend clock --hugepages=tiny", "--hugepages 'tiny'", 2 },
		/* What would be measured is never changed behind the user's back. */
		{ BIN "pmu-sweep --backend clock --sizes 130,4K", "130 is not a multiple of the", 2 },
		{ BIN "pmu-sweep --backend clock --sizes 4K,8K --min 1M", "--min does not apply", 2 },
		{ BIN "pmu-sweep --backend clock --sizes 4K,8K --max 1M", "--max does not apply", 2 },
		{ BIN "pmu-sweep --backend clock --pattern page --sizes 4K,6K", "multiple of the", 2 },
		{ BIN "pmu-sweep --backend clock --pattern stride --seed 3", "--pattern stride has none", 2 },
		{ BIN "pmu-lat --backend clock --pattern stride --seed 3", "--pattern stride has none", 2 },
		{ BIN "pmu-lat --backend clock --pattern random --gap 5", "--pattern random", 2 },
		{ BIN "pmu-lat --backend clock --pin-cpus 1000", "CPU 1000 is not online or not allowed", 2 },
		{ BIN "pmu-sweep --backend clock --pin-cpus 0-1", "on one CPU: give one, not a list",
		  2 },
		{ BIN "pmu-chase --sequential --seed 3", "--sequential has no shuffle", 2 },
		{ BIN "pmu-misp --zeros --seed 3", "--zeros has none", 2 },
	};
	static char out[OUT_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_EQ(cases[i].rc, run(cases[i].cmd, out, sizeof(out))) TH_LOG("%s", cases[i].cmd);
		EXPECT_TRUE(has(out, cases[i].msg)) TH_LOG("%s: got '%s'", cases[i].cmd, out);
	}
}

/*
 * Outputs are opened before anything is measured: a bad path fails at once with the path
 * named, and costs no run (a default sweep measures for seconds).
 */
TEST(bad_output_paths_fail_before_measuring)
{
	static char out[OUT_MAX];
	static const char *const cmds[] = {
		BIN "pmu-sweep -o /nonexistent/x",
		BIN "pmu-sweep --svg /nonexistent/x.svg",
		BIN "pmu-lat --raw /nonexistent/raw.csv",
		/* No module here: a tool that opened the timer first would name that instead. */
		BIN "pmu-lat --backend module -o /nonexistent/x",
		BIN "pmu-lat --backend module --raw /nonexistent/raw.csv",
	};
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		uint64_t t0 = now_ns(CLOCK_MONOTONIC);

		EXPECT_EQ(2, run(cmds[i], out, sizeof(out))) TH_LOG("%s: %s", cmds[i], out);
		EXPECT_TRUE(has(out, "/nonexistent/")) TH_LOG("%s: %s", cmds[i], out);
		EXPECT_FALSE(has(out, "sizes from")) TH_LOG("%s measured: %s", cmds[i], out);
		/* Long enough for a busy machine, far short of a default sweep's 20 s budget. */
		EXPECT_GT(10000000000ull, now_ns(CLOCK_MONOTONIC) - t0) TH_LOG("%s", cmds[i]);
	}
}

/*
 * Bad input found before anything is opened leaves an existing output as it was; two
 * outputs naming one file are refused in --from mode too.
 */
TEST(usage_errors_leave_outputs_alone)
{
	static const char *const cmds[] = {
		BIN "pmu-lat --backend clock --pattern page -s 6K -o pmuser-keep.txt",
		BIN "pmu-lat --backend clock --pin-cpus 1000 -o pmuser-keep.txt",
		BIN "pmu-sweep --backend clock --pattern page --sizes 1K,2K,3K -o pmuser-keep.txt",
		BIN "pmu-sweep --from " DATA "rpi4-a72.csv -o pmuser-keep.txt --svg pmuser-keep.txt",
	};
	static char out[OUT_MAX];
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ASSERT_EQ(0, run("echo kept > pmuser-keep.txt", out, sizeof(out)));
		EXPECT_EQ(2, run(cmds[i], out, sizeof(out))) TH_LOG("%s: %s", cmds[i], out);
		ASSERT_EQ(0, run("cat pmuser-keep.txt", out, sizeof(out)));
		if (!strstr(cmds[i], "--svg"))
			EXPECT_STREQ("kept\n", out) TH_LOG("%s", cmds[i]);
	}
}

/* A raw file that cannot be written costs the run its exit status, not its report. */
TEST(lat_raw_write_failure_keeps_the_report)
{
	static char out[OUT_MAX];

	EXPECT_EQ(1, run(BIN "pmu-lat --backend clock --samples 2000 -w 10 --raw /dev/full 2>/dev/null",
			 out, sizeof(out)));
	EXPECT_TRUE(has(out, "histogram")) TH_LOG("%s", out);
}

/* pmu-info off ARM: no module to load here, and --events says why it lists nothing. */
TEST(pmu_info_without_the_module_says_why)
{
	static char out[OUT_MAX];

	ASSERT_EQ(0, run(BIN "pmu-info --events", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "module:   not available: pmuser is for ARM cores")) TH_LOG("%s", out);
	EXPECT_FALSE(has(out, "insmod")) TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "events:   not listed: ")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
