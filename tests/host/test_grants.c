// SPDX-License-Identifier: MIT
/*
 * The module backend's reader choice (pmuser__reader_decide()) over recorded per-CPU grant
 * states: what PMUSERENR_EL0, PMUACR_EL1 and the module's el0_flags say on cores QEMU does not
 * model (PMUv3p9, cores perf keeps cycles off PMCCNTR_EL0 on), and on the ones it does.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "pmuser_internal.h"

/* PMUSERENR_EL0 bits as perf sets them. */
#define EN	0x01u
#define CR	0x04u
#define ER	0x08u
#define UEN	0x10u

#define A64(ue, flags, acr) \
	{ .cpu = 0, .arch = PMUSER_ARCH_ARMV8_A64, .pmu_version = 1, .nr_counters = 6, \
	  .user_enable = (ue), .el0_flags = (flags), .pmuacr = (acr) }

static enum pmuser__reader_path decide1(struct pmuser__grant_state s, uint32_t mask, bool cycles,
					char *why, size_t whylen)
{
	struct pmuser__grant_need need = { .event_mask = mask, .cycles = cycles };

	return pmuser__reader_decide(&s, 1, &need, why, whylen);
}

#define HAS(why, text) EXPECT_TRUE(strstr(why, text) != NULL) TH_LOG("reason: %s", why)

TEST(er_only_reads_cycles_from_an_event_counter)
{
	char why[320];

	EXPECT_EQ(PMUSER__PATH_CYCLES_EVENT, decide1((struct pmuser__grant_state)A64(ER, 0, 0),
						     0x3, true, why, sizeof(why)));
	HAS(why, "cpu 0: no PMCCNTR_EL0 reads (PMUSERENR_EL0.CR clear): cycles from an event counter counting CPU_CYCLES");
	EXPECT_EQ(PMUSER__PATH_INLINE, decide1((struct pmuser__grant_state)A64(ER, 0, 0), 0x3,
					       false, why, sizeof(why)));
	HAS(why, "cpu 0: PMUSERENR_EL0 0x8 grants the set's counters");
}

TEST(er_and_cr_read_inline)
{
	char why[320];

	EXPECT_EQ(PMUSER__PATH_INLINE, decide1((struct pmuser__grant_state)A64(ER | CR, 0, 0), 0x7,
					       true, why, sizeof(why)));
	HAS(why, "cpu 0: PMUSERENR_EL0 0xc grants the set's counters");
}

TEST(cr_without_er_reads_no_event_counter)
{
	char why[320];

	EXPECT_EQ(PMUSER__PATH_PERF_TASK, decide1((struct pmuser__grant_state)A64(CR, 0, 0), 0x1,
						  true, why, sizeof(why)));
	HAS(why, "cpu 0: perf grants no event counter reads (PMUSERENR_EL0 0x4): use the perf per-task backend");
}

TEST(pmuv3p9_pmuacr_covering_the_counters_reads_inline)
{
	struct pmuser__grant_state s = A64(ER | CR | UEN, PMUSER_CPU_EL0_PMUV3P9, 0x80000007ull);
	char why[320];

	s.pmu_version = 9;
	EXPECT_EQ(PMUSER__PATH_INLINE, decide1(s, 0x3, true, why, sizeof(why)));
	HAS(why, "cpu 0: PMUv3p9: PMUACR_EL1 0x80000007 grants the set's counters");
}

TEST(pmuv3p9_pmuacr_missing_the_counters_takes_perf)
{
	struct pmuser__grant_state s = A64(ER | CR | UEN, PMUSER_CPU_EL0_PMUV3P9, 0x4);
	char why[320];

	s.pmu_version = 9;
	EXPECT_EQ(PMUSER__PATH_PERF_TASK, decide1(s, 0x3, false, why, sizeof(why)));
	HAS(why, "cpu 0: PMUv3p9 per-counter EL0 access (PMUSERENR_EL0.UEN): perf lets EL0 read only the counters of the thread's own user-readable events (PMUACR_EL1 0x4), not the module's CPU-wide counters (0x3): use the perf per-task backend");
	/* The cycle counter is PMUACR_EL1.C, bit 31: ER or CR do not stand in for it. */
	s.pmuacr = 0x3;
	EXPECT_EQ(PMUSER__PATH_PERF_TASK, decide1(s, 0x3, true, why, sizeof(why)));
	HAS(why, "(0x80000003)");
}

TEST(pmuv3p9_read_ungranted_is_predicted_as_linux_7_3)
{
	struct pmuser__grant_state s = A64(0, PMUSER_CPU_EL0_PMUV3P9, 0x1f);
	char why[320];

	s.pmu_version = 9;
	EXPECT_EQ(PMUSER__PATH_PERF_TASK, decide1(s, 0x1, false, why, sizeof(why)));
	HAS(why, "(PMUACR_EL1 0x0 as Linux 7.3 sets it)");
}

/* A PMUv3p9 core under a perf that does not use UEN (before 6.13): ER and CR grant. */
TEST(pmuv3p9_without_uen_reads_by_er_and_cr)
{
	struct pmuser__grant_state s = A64(ER | CR, PMUSER_CPU_EL0_PMUV3P9, 0);
	char why[320];

	s.pmu_version = 9;
	EXPECT_EQ(PMUSER__PATH_INLINE, decide1(s, 0x3, true, why, sizeof(why)));
	HAS(why, "PMUSERENR_EL0 0xc grants the set's counters");
}

TEST(cycles_off_pmccntr_counts_cycles_on_an_event_counter)
{
	char why[320];

	/* Granted: perf set ER and UEN, not CR. */
	EXPECT_EQ(PMUSER__PATH_CYCLES_EVENT,
		  decide1((struct pmuser__grant_state)A64(ER | UEN, PMUSER_CPU_EL0_CYCLES_OFF_PMCCNTR, 0),
			  0x1, true, why, sizeof(why)));
	HAS(why, "cpu 0: no PMCCNTR_EL0 reads (PMUSERENR_EL0.CR clear: perf keeps cycles off PMCCNTR on this core): cycles from an event counter counting CPU_CYCLES");
	/* Not granted yet: predicted the same way. */
	EXPECT_EQ(PMUSER__PATH_CYCLES_EVENT,
		  decide1((struct pmuser__grant_state)A64(0, PMUSER_CPU_EL0_CYCLES_OFF_PMCCNTR, 0),
			  0x1, true, why, sizeof(why)));
	HAS(why, "perf keeps cycles off PMCCNTR on this core");
	/* Every event counter taken: cycles have nowhere to go. */
	EXPECT_EQ(PMUSER__PATH_PERF_TASK,
		  decide1((struct pmuser__grant_state)A64(ER, PMUSER_CPU_EL0_CYCLES_OFF_PMCCNTR, 0),
			  0x3f, true, why, sizeof(why)));
	HAS(why, "cpu 0: cycles not readable inline: PMUSERENR_EL0.CR clear and no event counter left for CPU_CYCLES: use the perf per-task backend");
}

TEST(before_pmuv3p9_reads_inline)
{
	struct pmuser__grant_state s = A64(0, 0, 0);
	char why[320];

	/* Read without a grant: perf will set ER and CR. */
	s.pmu_version = 6;
	EXPECT_EQ(PMUSER__PATH_INLINE, decide1(s, 0x3, true, why, sizeof(why)));
	HAS(why, "cpu 0: PMUSERENR_EL0 0xc (predicted) grants the set's counters");
	/* UEN without the feature: PMUACR_EL1 does not exist and does not decide. */
	s.user_enable = ER | CR | UEN;
	EXPECT_EQ(PMUSER__PATH_INLINE, decide1(s, 0x3, true, why, sizeof(why)));
	/* EN grants reads (and writes) of every counter. */
	s.user_enable = EN;
	EXPECT_EQ(PMUSER__PATH_INLINE, decide1(s, 0x3, true, why, sizeof(why)));
}

TEST(arm32_reads_inline)
{
	struct pmuser__grant_state s = A64(0, 0, 0);
	char why[320];

	s.arch = PMUSER_ARCH_ARMV7;
	EXPECT_EQ(PMUSER__PATH_INLINE, decide1(s, 0x3, true, why, sizeof(why)));
	HAS(why, "cpu 0: 32-bit ARM: the module sets the user-enable register for granted threads");
	s.arch = PMUSER_ARCH_ARMV6_1176;
	EXPECT_EQ(PMUSER__PATH_INLINE, decide1(s, 0x1, true, why, sizeof(why)));
}

/* An unpinned set takes the safest path any CPU needs, and names that CPU. */
TEST(the_safest_cpu_decides)
{
	struct pmuser__grant_state s[4] = { A64(0, 0, 0), A64(0, PMUSER_CPU_EL0_CYCLES_OFF_PMCCNTR, 0),
					    A64(0, PMUSER_CPU_EL0_PMUV3P9, 0), A64(0, 0, 0) };
	struct pmuser__grant_need need = { .event_mask = 0x1, .cycles = true };
	char why[320];
	unsigned int i;

	for (i = 0; i < 4; i++)
		s[i].cpu = i;
	s[2].pmu_version = 9;
	EXPECT_EQ(PMUSER__PATH_CYCLES_EVENT, pmuser__reader_decide(s, 2, &need, why, sizeof(why)));
	HAS(why, "cpu 1: no PMCCNTR_EL0 reads");
	EXPECT_EQ(PMUSER__PATH_PERF_TASK, pmuser__reader_decide(s, 4, &need, why, sizeof(why)));
	HAS(why, "cpu 2: PMUv3p9 per-counter EL0 access");
	EXPECT_EQ(PMUSER__PATH_INLINE, pmuser__reader_decide(s, 1, &need, NULL, 0));
}

TEST_HARNESS_MAIN
