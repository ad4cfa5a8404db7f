// SPDX-License-Identifier: MIT
/* Presets resolve on every core family, metrics are computed and printed rpistat style. */
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

	ASSERT_LE(6, n);
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
		{ "default", 5 }, { "instructions", 2 }, { "data", 5 }, { "tlb", 3 },
		{ "branch", 3 }, { "stalls", 1 },
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
	struct pmuser_counters_attr a;
	struct pmuser_counters *c;
	char why[256], *text = NULL;
	size_t len = 0;
	FILE *f;

	pmuser_counters_attr_init(&a);
	ASSERT_EQ(0, pmuser_preset_attr(p, MIDR_A72, NULL, &a));
	a.backend = PMUSER_BACKEND_CLOCK;
	a.flags |= PMUSER_COUNTERS_OPTIONAL;
	ASSERT_EQ(0, pmuser_counters_open(&a, &c, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, pmuser_counters_read_full(c, counts));
	EXPECT_TRUE(isnan(pmuser_metric_eval(p, &p->metric[0], c, counts)));
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
	pmuser_counters_close(c);
}

TEST_HARNESS_MAIN
