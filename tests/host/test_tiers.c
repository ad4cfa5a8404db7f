// SPDX-License-Identifier: MIT
/*
 * Host tests of tier detection (samples/sweep/tiers.c) and the pmu-sweep CSV format
 * (samples/sweep/sweepcsv.c): published measurements from the seed documents, synthetic
 * noisy staircases, a flat line, and every CSV error.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "size_suffix.h"
#include "sweepcsv.h"
#include "tiers.h"

#define KiB (1024ULL)
#define MiB (1024ULL * 1024)
#define DATA PMUSER_TOP "/tests/host/data/"

/* Reads a data file and detects its tiers; a failure is reported in the caller's test. */
static int detect_file(const char *path, struct sweepcsv *csv, struct tiers_result *res)
{
	char err[200];
	FILE *f = fopen(path, "r");
	int ret;

	if (!f) {
		fprintf(stderr, "# %s: %s\n", path, strerror(errno));
		return -errno;
	}
	ret = sweepcsv_read(f, csv, err, sizeof(err));
	fclose(f);
	if (ret) {
		fprintf(stderr, "# %s: %s\n", path, err);
		return ret;
	}
	ret = tiers_detect(csv->pts, csv->n, res);
	if (!ret)
		tiers_print(stderr, res, sweepcsv_unit_name(csv->unit));
	return ret;
}

/*
 * Raspberry Pi 4 (seed 000): latency = CPU cycles / L1D reads per array size. The author
 * reads a 32 KB L1D and a 1 MB L2 ("dramatic breakpoint at 1MB"): the 1 MB run already
 * misses L2 35% of the time, so it is a transition and the L2 plateau ends at 512 KB.
 */
TEST(seed_a72_rpi4)
{
	struct sweepcsv csv;
	struct tiers_result r;

	ASSERT_EQ(0, detect_file(DATA "rpi4-a72.csv", &csv, &r));
	ASSERT_EQ(3U, r.n);
	EXPECT_STREQ("L1", r.level[0].label);
	EXPECT_EQ(2 * KiB, r.level[0].first_size);
	EXPECT_EQ(32 * KiB, r.level[0].capacity);	/* the "weird" 32 KB run stays in L1 */
	EXPECT_EQ(64 * KiB, r.level[1].first_size);
	EXPECT_STREQ("L2", r.level[1].label);
	EXPECT_EQ(512 * KiB, r.level[1].capacity);
	EXPECT_EQ(2 * MiB, r.level[2].first_size);	/* 1 MB: between the plateaus */
	EXPECT_STREQ("DRAM", r.level[2].label);
	EXPECT_LT(3.5, r.level[0].latency);
	EXPECT_GT(5.0, r.level[0].latency);
	EXPECT_LT(18.0, r.level[1].latency);
	EXPECT_GT(27.0, r.level[1].latency);
	EXPECT_LT(180.0, r.level[2].latency);
	EXPECT_GT(210.0, r.level[2].latency);
	EXPECT_FALSE(r.tlb.found);
	sweepcsv_free(&csv);
}

/*
 * iPhone 3GS (seed 002), sizes as the author labelled them. A careful reading: L1 ~4.5
 * cycles up to the 8KB row, an L2 plateau of 11-13 cycles at 16KB and 32KB, the 64KB row
 * (26-29) half way to memory, and ~70-85 cycles from 128KB on. The harness indexes an int
 * array (size = 1 << log2_size ints) and the rows run from 2^22 ("4MB") down, so the true
 * footprints are 4x the labels: 32 KiB L1D and a 256 KiB L2 whose capacity is reached at
 * the "64KB" row -- the iPhone 3GS's published 32 KB L1D / 256 KB L2. Detection only sees
 * log2(size) steps, so it is checked against the labels.
 */
static void check_a8(struct __test_metadata *_metadata, const char *path, uint64_t first)
{
	struct sweepcsv csv;
	struct tiers_result r;

	ASSERT_EQ(0, detect_file(path, &csv, &r));
	ASSERT_EQ(3U, r.n);
	EXPECT_EQ(first, r.level[0].first_size);
	EXPECT_EQ(8 * KiB, r.level[0].capacity);
	EXPECT_EQ(16 * KiB, r.level[1].first_size);
	EXPECT_EQ(32 * KiB, r.level[1].capacity);
	EXPECT_EQ(128 * KiB, r.level[2].first_size);	/* 64KB: transition */
	EXPECT_STREQ("L1", r.level[0].label);
	EXPECT_STREQ("L2", r.level[1].label);
	EXPECT_STREQ("DRAM", r.level[2].label);
	EXPECT_LT(4.0, r.level[0].latency);
	EXPECT_GT(5.0, r.level[0].latency);
	EXPECT_LT(10.0, r.level[1].latency);
	EXPECT_GT(14.0, r.level[1].latency);
	EXPECT_LT(75.0, r.level[2].latency);
	EXPECT_GT(86.0, r.level[2].latency);
	sweepcsv_free(&csv);
}

TEST(seed_a8_strided)
{
	check_a8(_metadata, DATA "a8-iphone3gs-strided.csv", 2 * KiB);
}

TEST(seed_a8_strided_rand)
{
	check_a8(_metadata, DATA "a8-iphone3gs-strided-rand.csv", 4 * KiB);
}

/*
 * Random access (third table, rows log2(size) = 10..22) has no clean L2 plateau: the L1 hit
 * rate falls gradually past the L1 and rand() adds ~55 cycles to every iteration. Best
 * effort: the first tier ends near the L1 (label 8KB; the 16KB and 32KB rows are only 6% and
 * 18% slower, so they may stay on it) and the last is memory at ~220 cycles.
 */
TEST(seed_a8_random)
{
	struct sweepcsv csv;
	struct tiers_result r;

	ASSERT_EQ(0, detect_file(DATA "a8-iphone3gs-random.csv", &csv, &r));
	ASSERT_LE(2U, r.n);
	EXPECT_LE(8 * KiB, r.level[0].capacity);
	EXPECT_GE(32 * KiB, r.level[0].capacity);
	EXPECT_LT(70.0, r.level[0].latency);
	EXPECT_GT(80.0, r.level[0].latency);
	EXPECT_LT(200.0, r.level[r.n - 1].latency);
	EXPECT_STREQ("DRAM", r.level[r.n - 1].label);
	sweepcsv_free(&csv);
}

/* ---- synthetic staircases -------------------------------------------------------------- */

static uint64_t rng_state;

static double rnd(void)	/* splitmix64, uniform in [0, 1) */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return ((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

struct level { uint64_t cap; double lat; };	/* cap 0: DRAM, beyond every cache */

struct stair {
	size_t n;
	struct tiers_point p[64];
	size_t last[8];		/* true index of each cache level's last point */
};

/*
 * Sizes 1 KiB .. max in half octaves (2^k and 1.5 * 2^k). After each capacity, `trans`
 * points ramp geometrically towards the next level. Noise is uniform multiplicative
 * +-noise; with outliers, one point per plateau away from its edges is x2.5 or x0.4.
 */
static void make_stair(struct stair *s, const struct level *lv, size_t nlv, uint64_t max,
		       int trans, double noise, int outliers, uint64_t seed)
{
	size_t l = 0, start;
	int ramp = 0;

	rng_state = seed;
	s->n = 0;
	for (uint64_t k = KiB; k <= max; k *= 2)
		for (uint64_t sz = k; sz <= max && sz < 2 * k; sz += k / 2) {
			double lat;

			while (l + 1 < nlv && sz > lv[l].cap) {
				s->last[l++] = s->n - 1;
				ramp = trans;
			}
			if (ramp)	/* fraction of the way up from the previous level */
				lat = lv[l - 1].lat *
				      pow(lv[l].lat / lv[l - 1].lat, 1.0 - (double)ramp-- / (trans + 1));
			else
				lat = lv[l].lat;
			s->p[s->n].size = sz;
			s->p[s->n++].latency = lat * (1 + noise * (2 * rnd() - 1));
		}
	for (size_t i = 0; outliers && i < nlv; i++) {
		size_t first = i ? s->last[i - 1] + 1 + trans : 0;
		size_t last = i + 1 < nlv ? s->last[i] : s->n - 1;

		if (last >= first + 6) {
			start = first + 2 + (size_t)(rnd() * (last - first - 4));
			s->p[start].latency *= rnd() < 0.5 ? 2.5 : 0.4;
		}
	}
}

static void check_stair(struct __test_metadata *_metadata, const struct level *lv, size_t nlv,
			uint64_t max)
{
	static const char *const labels[] = { "L1", "L2", "L3/SLC" };
	struct tiers_result r;
	struct stair s;
	int cases = 0;

	for (int trans = 0; trans <= 2; trans++)
		for (int out = 0; out <= 1; out++)
			for (double noise = 0.02; noise < 0.06; noise += 0.03)
				for (uint64_t seed = 1; seed <= 8; seed++) {
					make_stair(&s, lv, nlv, max, trans, noise, out, seed);
					ASSERT_EQ(0, tiers_detect(s.p, s.n, &r));
					if (r.n != nlv)
						tiers_print(stderr, &r, "cycles");
					ASSERT_EQ(nlv, r.n) TH_LOG("trans %d outliers %d noise %.2f seed %llu",
								   trans, out, noise, (unsigned long long)seed);
					for (size_t i = 0; i < nlv; i++) {
						EXPECT_LT(fabs(r.level[i].latency / lv[i].lat - 1), 0.1);
						EXPECT_STREQ(i + 1 < nlv ? labels[i] : "DRAM", r.level[i].label);
						if (i + 1 == nlv)
							break;
						/* within one step of the capacity and of the next plateau */
						EXPECT_GE(s.last[i] + 1, r.level[i].last);
						EXPECT_LE(s.last[i], r.level[i].last + 1);
						EXPECT_GE(s.last[i] + trans + 2, r.level[i + 1].first);
					}
					EXPECT_FALSE(r.tlb.found);
					cases++;
				}
	ASSERT_EQ(3 * 2 * 2 * 8, cases);
}

TEST(staircase_3_levels)	/* A72-like */
{
	static const struct level lv[] = { { 32 * KiB, 4 }, { MiB, 20 }, { 0, 180 } };

	check_stair(_metadata, lv, 3, 64 * MiB);
}

TEST(staircase_4_levels)
{
	static const struct level lv[] = { { 64 * KiB, 4 }, { 512 * KiB, 14 }, { 8 * MiB, 45 },
					   { 0, 160 } };

	check_stair(_metadata, lv, 4, 256 * MiB);
}

TEST(staircase_small_steps)	/* an SLC only 2x slower than L2 */
{
	static const struct level lv[] = { { 32 * KiB, 3 }, { 256 * KiB, 12 }, { 2 * MiB, 24 },
					   { 0, 100 } };

	check_stair(_metadata, lv, 4, 128 * MiB);
}

TEST(flat_line_is_one_tier)
{
	static const struct level lv[] = { { 0, 50 } };
	struct tiers_result r;
	struct stair s;

	for (uint64_t seed = 1; seed <= 16; seed++) {
		make_stair(&s, lv, 1, 64 * MiB, 0, 0.05, seed % 2, seed);
		if (seed % 4 == 0)	/* a slow drift, +30% over the sweep */
			for (size_t i = 0; i < s.n; i++)
				s.p[i].latency *= 1 + 0.3 * i / s.n;
		ASSERT_EQ(0, tiers_detect(s.p, s.n, &r));
		ASSERT_EQ(1U, r.n) TH_LOG("seed %llu", (unsigned long long)seed);
		EXPECT_STREQ("flat", r.level[0].label);
		EXPECT_EQ(0U, r.level[0].first);
		EXPECT_EQ(s.n - 1, r.level[0].last);
		EXPECT_LT(fabs(r.level[0].latency / 50 - 1), seed % 4 ? 0.05 : 0.2);
		EXPECT_EQ(0, r.level[0].step);
	}
	for (size_t i = 0; i < s.n; i++)	/* exactly constant */
		s.p[i].latency = 7;
	ASSERT_EQ(0, tiers_detect(s.p, s.n, &r));
	ASSERT_EQ(1U, r.n);
	EXPECT_EQ(7, r.level[0].latency);
}

TEST(tlb_step_in_dram)
{
	static const struct level lv[] = { { 32 * KiB, 4 }, { MiB, 20 }, { 0, 180 } };
	struct tiers_result r;
	struct stair s;

	for (uint64_t seed = 1; seed <= 8; seed++) {
		size_t before = 0;

		make_stair(&s, lv, 3, 256 * MiB, 1, 0.02, 0, seed);
		for (size_t i = 0; i < s.n; i++)
			if (s.p[i].size > 16 * MiB)
				s.p[i].latency *= 1.3;
			else
				before = i;
		ASSERT_EQ(0, tiers_detect(s.p, s.n, &r));
		ASSERT_EQ(3U, r.n);
		ASSERT_TRUE(r.tlb.found) TH_LOG("seed %llu", (unsigned long long)seed);
		EXPECT_EQ(2U, r.tlb.tier);
		EXPECT_LE(s.p[before - 1].size, r.tlb.size_before);
		EXPECT_GE(s.p[before + 1].size, r.tlb.size_before);
		EXPECT_LT(1.2, r.tlb.step);
		EXPECT_GT(1.4, r.tlb.step);
	}
}

/* The last tier is DRAM only if the sweep goes two octaves past the previous capacity. */
TEST(dram_label_needs_reach)
{
	struct tiers_point p[10];
	struct tiers_result r;

	for (int i = 0; i < 10; i++)
		p[i] = (struct tiers_point){ KiB << i, i < 6 ? 4 : 30 };	/* 1 KiB .. 512 KiB */
	ASSERT_EQ(0, tiers_detect(p, 10, &r));
	ASSERT_EQ(2U, r.n);
	EXPECT_EQ(32 * KiB, r.level[0].capacity);
	EXPECT_STREQ("DRAM", r.level[1].label);		/* 512 KiB >= 4 * 32 KiB */
	EXPECT_EQ(7.5, r.level[0].step);
	p[6].size = 48 * KiB;				/* now up to 64 KiB only */
	p[7].size = 64 * KiB;
	ASSERT_EQ(0, tiers_detect(p, 8, &r));
	ASSERT_EQ(2U, r.n);
	EXPECT_EQ(64 * KiB, r.level[1].last_size);
	EXPECT_STREQ("L2", r.level[1].label);
}

TEST(rejects_bad_input)
{
	struct tiers_point p[4] = { { 1024, 3 }, { 2048, 3 }, { 4096, 9 }, { 8192, 9 } };
	struct tiers_result r;

	EXPECT_EQ(0, tiers_detect(p, 4, &r));
	EXPECT_EQ(-EINVAL, tiers_detect(p, 2, &r));
	p[2].size = 2048;
	EXPECT_EQ(-EINVAL, tiers_detect(p, 4, &r));
	p[2].size = 4096;
	p[3].latency = -1;
	EXPECT_EQ(-EINVAL, tiers_detect(p, 4, &r));
	p[3].latency = NAN;
	EXPECT_EQ(-EINVAL, tiers_detect(p, 4, &r));
}

TEST(print_and_sizes)
{
	struct tiers_point p[6] = { { 16 * KiB, 4 }, { 32 * KiB, 4 }, { 48 * KiB, 4 },
				    { 64 * KiB, 40 }, { 128 * KiB, 40 }, { 256 * KiB, 40 } };
	struct tiers_result r;
	char *text = NULL, buf[32];
	size_t len = 0;
	FILE *f;

	EXPECT_STREQ("100 B", size_format(buf, sizeof(buf), 100));
	EXPECT_STREQ("1536 KiB", size_format(buf, sizeof(buf), 1536 * KiB));
	EXPECT_STREQ("4 GiB", size_format(buf, sizeof(buf), 4096 * MiB));
	ASSERT_EQ(0, tiers_detect(p, 6, &r));
	f = open_memstream(&text, &len);
	ASSERT_NE(NULL, f);
	tiers_print(f, &r, "ns");
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "L1          48 KiB  16 KiB .. 48 KiB         4 ns  (next x10.00)\n"));
	EXPECT_NE(NULL, strstr(text, "DRAM             -  64 KiB .. 256 KiB        40 ns\n"));
	EXPECT_NE(NULL, strstr(text, "TLB-reach step: none found"));
	free(text);
}

/* ---- CSV ------------------------------------------------------------------------------- */

TEST(csv_round_trip)
{
	struct tiers_point p[3] = { { 2048, 3.1875877 }, { 65536, 18.905 }, { 4 * MiB, 204.39 } };
	char m0[] = "cpu=cortex-a72", m1[] = "run=3 of 5";
	char *meta[] = { m0, m1 }, *text = NULL, err[200];
	struct sweepcsv in = { SWEEPCSV_NS, p, 3, meta, 2 }, out;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, sweepcsv_write(f, &in));
	fclose(f);
	EXPECT_EQ(0, strncmp(text, "# pmu-sweep v1 unit=ns\n# cpu=cortex-a72\n# run=3 of 5\n"
			     "size_bytes,latency\n2048,3.1875877\n", 84));
	f = fmemopen(text, len, "r");
	ASSERT_EQ(0, sweepcsv_read(f, &out, err, sizeof(err))) TH_LOG("%s", err);
	fclose(f);
	EXPECT_EQ(SWEEPCSV_NS, (int)out.unit);
	ASSERT_EQ(3U, out.n);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(p[i].size, out.pts[i].size);
		EXPECT_EQ(p[i].latency, out.pts[i].latency);
	}
	ASSERT_EQ(2U, out.nmeta);
	EXPECT_STREQ(m0, out.meta[0]);
	EXPECT_STREQ(m1, out.meta[1]);
	sweepcsv_free(&out);
	free(text);
}

static int read_text(const char *text, struct sweepcsv *out, char *err, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f)
		return -errno;
	ret = sweepcsv_read(f, out, err, len);
	fclose(f);
	return ret;
}

TEST(csv_accepts_variations)
{
	struct sweepcsv out;
	char err[200];

	ASSERT_EQ(0, read_text("# pmu-sweep v1 host=x unit=cycles\r\n\r\n"
			       " size_bytes , latency ,ipc\r\n1024, 3.5 ,0.9\r\n# mid-file note\n"
			       "\n2048,4,1\n4096,1e1\n", &out, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(SWEEPCSV_CYCLES, (int)out.unit);
	ASSERT_EQ(3U, out.n);
	EXPECT_EQ(1024U, out.pts[0].size);
	EXPECT_EQ(3.5, out.pts[0].latency);
	EXPECT_EQ(10, out.pts[2].latency);
	ASSERT_EQ(1U, out.nmeta);
	EXPECT_STREQ("mid-file note", out.meta[0]);
	sweepcsv_free(&out);
}

/* What sysfs reports on the x86 host the examples come from. */
static const struct tiers_cache host_caches[] = { { 1, 48 * KiB }, { 2, 1 * MiB },
						  { 3, 32 * MiB } };

/* The tiers of a clean staircase, then reconciled with the host's caches. */
static void reconciled(struct __test_metadata *_metadata, const struct level *lv, size_t nlv,
		       uint64_t max, struct tiers_result *r)
{
	struct stair s;

	make_stair(&s, lv, nlv, max, 1, 0.01, 0, 7);
	ASSERT_EQ(0, tiers_detect(s.p, s.n, r));
	tiers_reconcile(r, host_caches, sizeof(host_caches) / sizeof(host_caches[0]));
	tiers_print(stderr, r, "ns");
}

static int printed(const struct tiers_result *r, const char *text)
{
	char buf[4096] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	tiers_print(f, r, "ns");
	fclose(f);
	return strstr(buf, text) != NULL;
}

/* Steps where sysfs puts the caches: each tier takes its level's name, memory is DRAM. */
TEST(sysfs_names_the_tiers)
{
	static const struct level lv[] = { { 48 * KiB, 1 }, { 1 * MiB, 4 }, { 32 * MiB, 14 },
					   { 0, 180 } };
	struct tiers_result r;

	reconciled(_metadata, lv, 4, 256 * MiB, &r);
	ASSERT_EQ(4U, r.n);
	EXPECT_STREQ("L1", r.level[0].label);
	EXPECT_STREQ("L2", r.level[1].label);
	EXPECT_STREQ("L3", r.level[2].label);
	EXPECT_STREQ("DRAM", r.level[3].label);
	EXPECT_TRUE(printed(&r, "sysfs L3 32 MiB: the L3 tier\n"));
	EXPECT_FALSE(printed(&r, "disagree"));
}

/*
 * A shared last-level cache that holds far less than sysfs says (a busy or virtualised
 * host): the plateau between L2 and memory is still L3, and the report says the sizes differ.
 */
TEST(sysfs_disagreement_is_said)
{
	static const struct level lv[] = { { 48 * KiB, 1 }, { 1 * MiB, 4 }, { 4 * MiB, 14 },
					   { 0, 180 } };
	struct tiers_result r;

	reconciled(_metadata, lv, 4, 256 * MiB, &r);
	ASSERT_EQ(4U, r.n);
	EXPECT_STREQ("L3", r.level[2].label);
	EXPECT_STREQ("DRAM", r.level[3].label);
	EXPECT_TRUE(printed(&r, "sysfs L3 32 MiB: the L3 tier, but its plateau ends at 4 MiB: measurement and sysfs disagree"));
}

/* A step sysfs knows nothing of is not given a level's name. */
TEST(sysfs_unknown_step_is_unnamed)
{
	static const struct level lv[] = { { 48 * KiB, 1 }, { 1 * MiB, 4 }, { 3 * MiB, 9 },
					   { 32 * MiB, 20 }, { 0, 180 } };
	struct tiers_result r;

	reconciled(_metadata, lv, 5, 256 * MiB, &r);
	ASSERT_EQ(5U, r.n);
	EXPECT_STREQ("L?", r.level[2].label);
	EXPECT_STREQ("L3", r.level[3].label);
	EXPECT_TRUE(printed(&r, "tier ending at 3 MiB: no sysfs cache of about that size"));
}

/* A sweep that just passes twice the largest cache ends on DRAM, even close behind it. */
TEST(sysfs_memory_right_after_the_last_cache)
{
	static const struct level lv[] = { { 48 * KiB, 1 }, { 1 * MiB, 4 }, { 32 * MiB, 14 },
					   { 0, 180 } };
	struct tiers_result r;

	reconciled(_metadata, lv, 4, 64 * MiB, &r);
	ASSERT_EQ(4U, r.n);
	EXPECT_STREQ("L3", r.level[2].label);
	EXPECT_STREQ("DRAM", r.level[3].label);
	EXPECT_FALSE(printed(&r, "no sysfs cache"));
}

/* A sweep that ends inside a cache reports that cache's tier as open-ended, not sized. */
TEST(sweep_end_is_not_a_capacity)
{
	static const struct level lv[] = { { 48 * KiB, 1 }, { 1 * MiB, 4 } };
	struct tiers_result r;

	reconciled(_metadata, lv, 2, 256 * KiB, &r);
	ASSERT_EQ(2U, r.n);
	EXPECT_STREQ("L2", r.level[1].label);
	EXPECT_TRUE(r.level[1].open);
	EXPECT_TRUE(printed(&r, ">= 256 KiB"));
	EXPECT_TRUE(printed(&r, "sysfs L3 32 MiB: not reached: the sweep ended at 256 KiB"));
}

/*
 * A sweep that starts above L1 (pmu-sweep --min 64K or 128K): its tiers are L2, L3 and
 * memory, and L1 is said to be below the sweep, not a disagreement.
 */
TEST(sweep_from_above_l1_names_the_levels_it_saw)
{
	static const struct level lv[] = { { 48 * KiB, 1 }, { 1 * MiB, 4 }, { 32 * MiB, 14 },
					   { 0, 180 } };
	static const char *const said[] = {
		"sysfs L1 48 KiB: not measured: the sweep started at 64 KiB\n",
		"sysfs L1 48 KiB: not measured: the sweep started at 128 KiB\n",
	};
	struct tiers_result r;
	struct stair s;

	for (unsigned int m = 0; m < 2; m++) {
		size_t k = 0;

		make_stair(&s, lv, 4, 256 * MiB, 1, 0.01, 0, 7);
		for (size_t i = 0; i < s.n; i++)
			if (s.p[i].size >= (64 * KiB << m))
				s.p[k++] = s.p[i];
		ASSERT_EQ(0, tiers_detect(s.p, k, &r));
		tiers_reconcile(&r, host_caches, sizeof(host_caches) / sizeof(host_caches[0]));
		tiers_print(stderr, &r, "ns");
		ASSERT_EQ(3U, r.n);
		EXPECT_STREQ("L2", r.level[0].label);
		EXPECT_STREQ("L3", r.level[1].label);
		EXPECT_STREQ("DRAM", r.level[2].label);
		EXPECT_TRUE(printed(&r, said[m]));
		EXPECT_FALSE(printed(&r, "disagree"));
	}
}

/*
 * L2 and L3 at one latency (one plateau from L1 to L3's size): the step at L3's size is L3's,
 * and L2 is said to have no step of its own inside that plateau.
 */
TEST(merged_levels_name_the_step_they_end_at)
{
	static const struct level lv[] = { { 48 * KiB, 1 }, { 32 * MiB, 4 }, { 0, 180 } };
	struct tiers_result r;

	reconciled(_metadata, lv, 3, 256 * MiB, &r);
	ASSERT_EQ(3U, r.n);
	EXPECT_STREQ("L1", r.level[0].label);
	EXPECT_STREQ("L3", r.level[1].label);
	EXPECT_STREQ("DRAM", r.level[2].label);
	EXPECT_TRUE(printed(&r, "sysfs L2 1 MiB: no latency step near it (inside the L3 tier's "
			    "plateau 96 KiB .. 32 MiB)")) TH_LOG("see the table above");
	EXPECT_FALSE(printed(&r, "no sysfs cache of about that size"));
}

TEST(csv_errors)
{
#define H "# pmu-sweep v1 unit=cycles\nsize_bytes,latency\n"
	static const struct { const char *text, *msg; } bad[] = {
		{ "", "line 1: missing '# pmu-sweep v1 unit=cycles|ns' header" },
		{ "size_bytes,latency\n1,2\n", "line 1: missing '# pmu-sweep" },
		{ "# pmu-sweep v2 unit=ns\n", "line 1: unsupported version 'v2' (want v1)" },
		{ "# pmu-sweep v1\n", "line 1: header has no unit=cycles|ns" },
		{ "# pmu-sweep v1 unit=ms\n", "line 1: unknown unit 'ms' (want cycles or ns)" },
		{ "# pmu-sweep v1 unit=ns\n# a=b\n1024,3\n", "line 3: expected column header" },
		{ "# pmu-sweep v1 unit=ns\n# a=b\n", "missing column header 'size_bytes,latency'" },
		{ H "1024,3\n2k,4\n", "line 4: size '2k' is not a positive integer" },
		{ H "-1024,3\n", "line 3: size '-1024' is not a positive integer" },
		{ H "0,3\n", "line 3: size '0' is not a positive integer" },
		{ H "1024,fast\n", "line 3: latency 'fast' is not a number" },
		{ H "1024,\n", "line 3: latency '' is not a number" },
		{ H "1024,nan\n", "line 3: latency 'nan' is not a number" },
		{ H "1024\n", "line 3: expected 'size_bytes,latency', got '1024'" },
		{ H "1024,3\n2048,3\n\n2048,4\n", "line 6: size 2048 not above the previous 2048" },
		{ H "1024,3\n2048,3\n", "too few points: 2 (need at least 3)" },
	};
#undef H
	struct sweepcsv out;
	char err[200];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, read_text(bad[i].text, &out, err, sizeof(err)));
		EXPECT_NE(NULL, strstr(err, bad[i].msg)) TH_LOG("case %zu: got '%s'", i, err);
		EXPECT_EQ(0U, out.n);
		EXPECT_EQ(NULL, out.pts);
		EXPECT_EQ(NULL, out.meta);
	}
}

TEST_HARNESS_MAIN
