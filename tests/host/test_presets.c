// SPDX-License-Identifier: MIT
/*
 * Presets resolve on every core family and split into counter sets by group (rpistat's on the
 * ARM1176); metrics are computed over named values (the seeds' numbers) and printed rpistat
 * style.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "pmuser.h"

#define MIDR_A72	0x410fd083
#define MIDR_A53	0x410fd034
#define MIDR_A15	0x412fc0f1
#define MIDR_ARM1176	0x410fb767

TEST(every_preset_fills_every_slot_on_armv8)
{
	const uint32_t midrs[] = { MIDR_A72, MIDR_A53 };
	const struct pmuser_preset *list;
	unsigned int n = pmuser_presets(&list), i, k;

	ASSERT_LE(8, n);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < n; i++) {
			struct pmuser_counters_attr a;

			pmuser_counters_attr_init(&a);
			ASSERT_EQ(0, pmuser_preset_attr(&list[i], midrs[k], NULL, &a));
			EXPECT_EQ(list[i].nr_slots, a.nr_events)
				TH_LOG("preset %s on MIDR 0x%x", list[i].name, midrs[k]);
			EXPECT_TRUE(a.flags & PMUSER_COUNTERS_CYCLES);
		}
	}
}

/* ARMv7 has no stall events and no L2 TLB refill event. */
TEST(armv7_presets_leave_out_what_it_lacks)
{
	static const struct {
		const char *name;
		unsigned int events;
	} expect[] = {
		{ "default", 10 }, { "ipc", 1 }, { "instructions", 2 }, { "data", 5 },
		{ "cache", 7 }, { "tlb", 3 }, { "branch", 3 }, { "stalls", 1 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		const struct pmuser_preset *p = pmuser_preset_find(expect[i].name);
		struct pmuser_counters_attr a;

		ASSERT_TRUE(p != NULL);
		pmuser_counters_attr_init(&a);
		ASSERT_EQ(0, pmuser_preset_attr(p, MIDR_A15, NULL, &a));
		EXPECT_EQ(expect[i].events, a.nr_events) TH_LOG("preset %s", expect[i].name);
	}
}

TEST(arm1176_uses_its_own_names)
{
	const struct pmuser_preset *p = pmuser_preset_find("BRANCH");
	struct pmuser_counters_attr a;

	ASSERT_TRUE(p != NULL);
	/* NULL is no preset and no place to fill, not a crash. */
	EXPECT_TRUE(pmuser_preset_find(NULL) == NULL);
	EXPECT_EQ(-EINVAL, pmuser_preset_attr(p, MIDR_ARM1176, NULL, NULL));
	EXPECT_EQ(-EINVAL, pmuser_preset_attr(NULL, MIDR_ARM1176, NULL, &a));
	EXPECT_TRUE(pmuser_event_supported(NULL, 0x08));
	pmuser_counters_attr_init(&a);
	ASSERT_EQ(0, pmuser_preset_attr(p, MIDR_ARM1176, NULL, &a));
	ASSERT_EQ(3, a.nr_events);
	EXPECT_EQ(0x07, a.events[0].event);	/* INSTR_EXEC */
	EXPECT_EQ(0x05, a.events[1].event);	/* BR_EXEC */
	EXPECT_EQ(0x06, a.events[2].event);	/* BR_MISPREDICT */
	EXPECT_TRUE(pmuser_preset_find("no-such-preset") == NULL);
}

TEST(pmceid_drops_unsupported_slots)
{
	const struct pmuser_preset *p = pmuser_preset_find("instructions");
	struct pmuser_cpu_info ci = { .midr = MIDR_A72, .pmceid_source = PMUSER_PMCEID_HW };
	struct pmuser_counters_attr a;

	/* QEMU's PMU: INST_RETIRED, CPU_CYCLES and SW_INCR only. */
	ci.pmceid[0] = 1ULL << 0x08 | 1ULL << 0x11 | 1ULL << 0x00;
	pmuser_counters_attr_init(&a);
	ASSERT_EQ(0, pmuser_preset_attr(p, MIDR_A72, &ci, &a));
	ASSERT_EQ(1, a.nr_events);
	EXPECT_STREQ("INST_RETIRED", a.events[0].name);
	ci.pmceid[0] = 1ULL << 0x11;
	EXPECT_EQ(-ENOENT, pmuser_preset_attr(p, MIDR_A72, &ci, &a));
}

TEST(thousands_separators_follow_the_locale)
{
	char buf[32];

	ASSERT_TRUE(setlocale(LC_NUMERIC, "en_US.UTF-8") != NULL);
	EXPECT_STREQ("45,999,735,845", pmuser_fmt_count(buf, sizeof(buf), 45999735845.0));
	EXPECT_STREQ("999", pmuser_fmt_count(buf, sizeof(buf), 999.4));
	setlocale(LC_NUMERIC, "C");
	EXPECT_STREQ("1234567", pmuser_fmt_count(buf, sizeof(buf), 1234567.0));
}

/* On the clock backend nothing but time is counted: slots say so, metrics are n/a. */
TEST(print_marks_unsupported_never_zero)
{
	const struct pmuser_preset *p = pmuser_preset_find("default");
	struct pmuser_count counts[PMUSER_COUNTERS_MAX];
	struct pmuser_value v[PMUSER_COUNTERS_MAX];
	struct pmuser_metric_value m[64];
	struct pmuser_counters_attr a;
	struct pmuser_counters *c;
	char why[256], *text = NULL;
	size_t len = 0, nv, nm, i;
	FILE *f;

	pmuser_counters_attr_init(&a);
	ASSERT_EQ(0, pmuser_preset_attr(p, MIDR_A72, NULL, &a));
	a.backend = PMUSER_BACKEND_CLOCK;
	a.flags |= PMUSER_COUNTERS_OPTIONAL;
	ASSERT_EQ(0, pmuser_counters_open(&a, &c, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, pmuser_counters_read_full(c, counts));
	/* Nothing counted: every metric of the preset is there, and NAN. */
	nv = pmuser_values_fill(c, counts, v);
	ASSERT_EQ(pmuser_counters_nr(c), nv);
	EXPECT_STREQ("cycles", v[0].name);
	nm = pmuser_metrics_eval(v, nv, m, sizeof(m) / sizeof(m[0]));
	ASSERT_LE(2U, nm);
	EXPECT_STREQ("IPC", m[0].label);
	for (i = 0; i < nm; i++)
		EXPECT_TRUE(isnan(m[i].value)) TH_LOG("%s", m[i].label);
	f = open_memstream(&text, &len);
	ASSERT_TRUE(f != NULL);
	pmuser_preset_print(f, p, c, counts);
	fclose(f);
	EXPECT_TRUE(strstr(text, "Time (ns)") != NULL) TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "Instructions") && strstr(text, "not supported by this PMU"));
	EXPECT_TRUE(strstr(text, "IPC") && strstr(text, "n/a"));
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	ASSERT_TRUE(f != NULL);
	pmuser_counters_print(f, c, counts);
	fclose(f);
	EXPECT_TRUE(strstr(text, "ns ") && strstr(text, "INST_RETIRED") &&
		    strstr(text, "not supported by this PMU")) TH_LOG("%s", text);
	free(text);
	text = NULL;
	/* A counter that never ran (perf's <not counted>) prints no count of 0. */
	counts[0].value = 0;
	counts[0].enabled = 1000000;
	counts[0].running = 0;
	f = open_memstream(&text, &len);
	ASSERT_TRUE(f != NULL);
	pmuser_counters_print(f, c, counts);
	fclose(f);
	EXPECT_TRUE(strstr(text, "ns") && strstr(text, "not counted (never on a counter)"))
		TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, " 0\n") == NULL) TH_LOG("%s", text);
	free(text);
	pmuser_counters_close(c);
}

/* The events of each set of preset name on the core, as "A,B|C,D": sets by '|'. */
static int sets_text(const char *name, uint32_t midr, unsigned int per_set, char *out,
		     size_t len)
{
	const struct pmuser_preset *p = pmuser_preset_find(name);
	int set[PMUSER_PRESET_SLOTS], n, k;
	unsigned int s;
	size_t used = 0;

	n = pmuser_preset_sets(p, midr, NULL, per_set, set);
	out[0] = '\0';
	for (k = 0; k < n; k++) {
		bool first = true;

		for (s = 0; s < p->nr_slots; s++) {
			if (set[s] != k)
				continue;
			used += snprintf(out + used, len - used, "%s%s", first ? (k ? "|" : "") : ",",
					 pmuser_preset_event(p, s, midr, NULL)->name);
			first = false;
		}
	}
	return n;
}

/* Two counters: rpistat's four pairs, in its order; the others pair up sensibly too. */
TEST(arm1176_sets_are_rpistats)
{
	char text[512];

	ASSERT_EQ(4, sets_text("default", MIDR_ARM1176, 2, text, sizeof(text)));
	EXPECT_STREQ("INSTR_EXEC,IBUF_STALL|DCACHE_ACCESS,DCACHE_MISS|DTLB_MISS,MAIN_TLB_MISS|"
		     "BR_EXEC,BR_MISPREDICT", text);
	ASSERT_EQ(2, sets_text("cache", MIDR_ARM1176, 2, text, sizeof(text)));
	EXPECT_STREQ("INSTR_EXEC,ICACHE_MISS|DCACHE_ACCESS,DCACHE_MISS", text);
	ASSERT_EQ(2, sets_text("tlb", MIDR_ARM1176, 2, text, sizeof(text)));
	EXPECT_STREQ("INSTR_EXEC,ITLB_MISS|DTLB_MISS,MAIN_TLB_MISS", text);
	ASSERT_EQ(2, sets_text("branch", MIDR_ARM1176, 2, text, sizeof(text)));
	EXPECT_STREQ("INSTR_EXEC|BR_EXEC,BR_MISPREDICT", text);
	ASSERT_EQ(1, sets_text("ipc", MIDR_ARM1176, 2, text, sizeof(text)));
	EXPECT_STREQ("INSTR_EXEC", text);
}

TEST(armv8_sets_follow_the_counter_count)
{
	char text[512];

	ASSERT_EQ(3, sets_text("default", MIDR_A72, 4, text, sizeof(text)));
	EXPECT_STREQ("INST_RETIRED,STALL_FRONTEND,L1D_CACHE,L1D_CACHE_REFILL|"
		     "L1I_CACHE,L1I_CACHE_REFILL,L2D_CACHE,L2D_CACHE_REFILL|"
		     "L1D_TLB_REFILL,L2D_TLB_REFILL,BR_PRED,BR_MIS_PRED", text);
	ASSERT_EQ(2, sets_text("default", MIDR_A72, 6, text, sizeof(text)));
	EXPECT_STREQ("INST_RETIRED,STALL_FRONTEND,L1D_CACHE,L1D_CACHE_REFILL,L1I_CACHE,"
		     "L1I_CACHE_REFILL|L2D_CACHE,L2D_CACHE_REFILL,L1D_TLB_REFILL,L2D_TLB_REFILL,"
		     "BR_PRED,BR_MIS_PRED", text);
	ASSERT_EQ(1, sets_text("default", MIDR_A72, PMUSER_MAX_EVENTS, text, sizeof(text)));
	/* A group larger than a set spreads over sets, first fit slot by slot. */
	ASSERT_EQ(3, sets_text("stalls", MIDR_A72, 1, text, sizeof(text)));
	EXPECT_STREQ("INST_RETIRED|STALL_FRONTEND|STALL_BACKEND", text);
	ASSERT_EQ(2, sets_text("tlb", MIDR_A72, 2, text, sizeof(text)));
	EXPECT_STREQ("INST_RETIRED,L1I_TLB_REFILL|L1D_TLB_REFILL,L2D_TLB_REFILL", text);
	EXPECT_EQ(-EINVAL, sets_text("default", MIDR_A72, 0, text, sizeof(text)));
}

TEST(sets_leave_out_what_the_cpu_lacks)
{
	const struct pmuser_preset *p = pmuser_preset_find("instructions");
	struct pmuser_cpu_info ci = { .midr = MIDR_A72, .pmceid_source = PMUSER_PMCEID_HW };
	int set[PMUSER_PRESET_SLOTS];

	ci.pmceid[0] = 1ULL << 0x08 | 1ULL << 0x11;
	ASSERT_EQ(1, pmuser_preset_sets(p, MIDR_A72, &ci, 4, set));
	EXPECT_EQ(0, set[0]);
	EXPECT_EQ(-1, set[1]);		/* INST_SPEC */
	EXPECT_TRUE(pmuser_preset_event(p, 1, MIDR_A72, &ci) == NULL);
	EXPECT_TRUE(pmuser_preset_event(p, 9, MIDR_A72, NULL) == NULL);
	ci.pmceid[0] = 1ULL << 0x11;
	EXPECT_EQ(-ENOENT, pmuser_preset_sets(p, MIDR_A72, &ci, 4, set));
}

/* Every event a slot or metric names is some core's (catches misspellings). */
TEST(every_named_event_exists)
{
	static const uint32_t midrs[] = { MIDR_A72, MIDR_A53, MIDR_A15, MIDR_ARM1176,
					  0x414fd0b1 /* A76 */ };
	const struct pmuser_preset *list;
	const struct pmuser_metric *metrics;
	unsigned int np = pmuser_presets(&list), nm = pmuser_metrics(&metrics), i, s, k;
	const char *names[PMUSER_PRESET_SLOTS * 16 + 64 * 2];
	size_t nn = 0, j;

	for (i = 0; i < np; i++)
		for (s = 0; s < list[i].nr_slots; s++)
			names[nn++] = list[i].slot[s].events;
	for (i = 0; i < nm; i++) {
		names[nn++] = metrics[i].num;
		names[nn++] = metrics[i].den;
	}
	ASSERT_GE(sizeof(names) / sizeof(names[0]), nn);
	for (j = 0; j < nn; j++) {
		char buf[200], *save = NULL, *alt;

		if (!strcmp(names[j], PMUSER_METRIC_CYCLES) || !strcmp(names[j], PMUSER_METRIC_EACH))
			continue;
		snprintf(buf, sizeof(buf), "%s", names[j]);
		for (alt = strtok_r(buf, "|", &save); alt; alt = strtok_r(NULL, "|", &save)) {
			const struct pmuser_event *ev;
			bool known = false;

			for (k = 0; k < sizeof(midrs) / sizeof(midrs[0]); k++)
				known |= !pmuser_event_lookup(midrs[k], alt, &ev);
			EXPECT_TRUE(known) TH_LOG("%s (in %s)", alt, names[j]);
		}
	}
}

/* The metric labelled label among m[0..n) of the calling test. */
#define FIND(label)		pmuser_metric_value_find(m, n, label)
#define METRIC_X1000(m, n, label) (FIND(label) ? lround(FIND(label)->value * 1000) : -1)

/*
 * The seed's pe_cortex_a72 run over a random 0/1 array: IPC 0.780, retired/speculated
 * 0.467, 174.189 branches PTI, mispredict ratio 0.250 (printed here in percent).
 */
TEST(metrics_reproduce_the_a72_seed)
{
	const struct pmuser_value v[] = {
		{ "cycles", 59010851259.0 }, { "INST_RETIRED", 45999735845.0 },
		{ "INST_SPEC", 98395483123.0 }, { "BR_PRED", 8012669711.0 },
		{ "BR_MIS_PRED", 2001934251.0 },
	};
	struct pmuser_metric_value m[32];
	size_t n = pmuser_metrics_eval(v, 5, m, 32);

	EXPECT_EQ(780, METRIC_X1000(m, n, "IPC"));
	EXPECT_EQ(1283, METRIC_X1000(m, n, "CPI"));
	EXPECT_EQ(467, METRIC_X1000(m, n, "Retired/speculated ratio"));
	EXPECT_EQ(174189, METRIC_X1000(m, n, "BR_PRED rate"));
	EXPECT_EQ(24985, METRIC_X1000(m, n, "Mispredict ratio"));
	EXPECT_STREQ("PTI", FIND("BR_PRED rate")->metric->unit);
	EXPECT_STREQ("%", FIND("Mispredict ratio")->metric->unit);
	/* No rate for the instructions themselves nor for cycles; nothing else applies. */
	EXPECT_TRUE(FIND("INST_RETIRED rate") == NULL);
	EXPECT_TRUE(FIND("cycles rate") == NULL);
	/* IPC, CPI, 3 rates (INST_SPEC, BR_PRED, BR_MIS_PRED), 2 ratios */
	EXPECT_EQ(7U, n);
	EXPECT_STREQ("IPC", m[0].label);
	EXPECT_STREQ("CPI", m[1].label);
	/* out is bounded by max. */
	EXPECT_EQ(3U, pmuser_metrics_eval(v, 5, m, 3));
}

/* rpistat's ARM1176 names, any case; a zero divisor or an uncounted operand gives NAN. */
TEST(metrics_over_arm1176_names_and_gaps)
{
	struct pmuser_value v[] = {
		{ "instr_exec", 1000.0 }, { "DCACHE_ACCESS", 200.0 }, { "DCACHE_MISS", 50.0 },
		{ "BR_EXEC", 0.0 }, { "BR_MISPREDICT", 3.0 }, { "IBUF_STALL", NAN },
		{ "DCACHE_MISS", 999.0 },
	};
	struct pmuser_metric_value m[32];
	size_t n = pmuser_metrics_eval(v, 7, m, 32);

	EXPECT_EQ(25000, METRIC_X1000(m, n, "L1D miss ratio"));
	EXPECT_EQ(50000, METRIC_X1000(m, n, "DCACHE_MISS rate"));
	EXPECT_TRUE(isnan(FIND("Mispredict ratio")->value));
	EXPECT_TRUE(isnan(FIND("IBUF_STALL rate")->value));
	/* No cycles: no IPC, CPI or stall percent. */
	EXPECT_TRUE(FIND("IPC") == NULL);
	EXPECT_TRUE(FIND("IBUF stall percent") == NULL);
	/* one rate per name: DCACHE_ACCESS, DCACHE_MISS, BR_EXEC, BR_MISPREDICT, IBUF_STALL */
	EXPECT_EQ(7U, n);
	/* No instructions: no rates at all. */
	v[0].name = "CPU_CYCLES";
	n = pmuser_metrics_eval(v, 7, m, 32);
	EXPECT_TRUE(FIND("DCACHE_MISS rate") == NULL);
	EXPECT_EQ(2U, n);
}

TEST_HARNESS_MAIN
