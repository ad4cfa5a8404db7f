// SPDX-License-Identifier: MIT
/*
 * pmuser_page_delta(), the one rule that decides whether a window of raw reads counts, on a
 * counter page laid out here: a window every condition holds for counts, with each delta
 * masked to its slot's width, and each condition broken alone refuses it.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "pmuser.h"

/* The bases perf's half-range periods give 32-bit and 64-bit counters. */
#define BASE32	((1ULL << 31) + 1)
#define BASE64	((1ULL << 63) + 1)

/* The window's counters: the cycle counter, a 32-bit event counter, a 64-bit one perf moved. */
static const unsigned int slots[3] = { PMUSER_PAGE_CYCLE_SLOT, 0, 1 };
static const unsigned int hw[3] = { PMUSER_HW_CYCLE, 0, 3 };

FIXTURE(page)
{
	struct pmuser_page pg;
	struct pmuser_page_cpu *rec;	/* the calling thread's CPU's record */
	uint64_t before[3], after[3], delta[3];
};

FIXTURE_SETUP(page)
{
	int cpu = sched_getcpu();
	struct pmuser_page_cpu *recs;

	ASSERT_LE(0, cpu);
	ASSERT_EQ(0, pmuser_thread_pin(cpu));
	recs = calloc((size_t)cpu + 1, sizeof(*recs));
	ASSERT_TRUE(recs != NULL);
	self->pg.base = (const volatile unsigned char *)recs;
	self->pg.size = ((size_t)cpu + 1) * sizeof(*recs);
	self->pg.stride = sizeof(*recs);
	self->pg.nr_cpus = (unsigned int)cpu + 1;
	self->pg.fd = -1;
	self->rec = &recs[cpu];
	self->rec->seq = 4;
	self->rec->slot[PMUSER_PAGE_CYCLE_SLOT] =
		(struct pmuser_page_slot){ .hw = PMUSER_HW_CYCLE, .bits = 64, .base = BASE64 };
	self->rec->slot[0] = (struct pmuser_page_slot){ .hw = 0, .bits = 32, .base = BASE32 };
	self->rec->slot[1] = (struct pmuser_page_slot){ .hw = 3, .bits = 64, .base = BASE64 };
	/* Register bits above a 32-bit counter's width are not the count's. */
	self->before[0] = BASE64 + 10;
	self->after[0] = BASE64 + 1010;
	self->before[1] = 0xdead000000000000ULL | (BASE32 + 5);
	self->after[1] = BASE32 + 105;
	/* More than 2^32 events: a 64-bit counter's delta is not cut to 32 bits. */
	self->before[2] = BASE64;
	self->after[2] = BASE64 + (1ULL << 32) + 7;
}

FIXTURE_TEARDOWN(page)
{
	free((void *)self->pg.base);
}

/* The window as the fixture leaves it, or as a test changed it, after a fresh mark. */
static bool window(FIXTURE_DATA(page) *self, unsigned int n)
{
	struct pmuser_page_mark m = pmuser_page_mark(&self->pg);

	return pmuser_page_delta(&self->pg, m, slots, hw, n, self->before, self->after,
				 self->delta);
}

TEST_F(page, window_counts_at_each_slots_width)
{
	ASSERT_TRUE(window(self, 3));
	EXPECT_EQ(1000, self->delta[0]);
	EXPECT_EQ(100, self->delta[1]);
	EXPECT_EQ((1ULL << 32) + 7, self->delta[2]);
	/* No counter: the window counts if the page is unchanged. */
	EXPECT_TRUE(window(self, 0));
}

TEST_F(page, page_changed_since_the_mark)
{
	struct pmuser_page_mark m = pmuser_page_mark(&self->pg);

	self->rec->seq += 2;	/* a switch or a publication on the CPU */
	EXPECT_FALSE(pmuser_page_delta(&self->pg, m, slots, hw, 3, self->before, self->after,
				       self->delta));
	m = pmuser_page_mark(&self->pg);
	EXPECT_TRUE(pmuser_page_delta(&self->pg, m, slots, hw, 3, self->before, self->after,
				      self->delta));
}

TEST_F(page, marked_while_written)
{
	self->rec->seq = 5;
	EXPECT_FALSE(window(self, 3));
	EXPECT_FALSE(window(self, 0));
}

TEST_F(page, mark_of_another_cpu)
{
	struct pmuser_page_mark m = pmuser_page_mark(&self->pg);

	m.cpu = -1;
	EXPECT_FALSE(pmuser_page_delta(&self->pg, m, slots, hw, 3, self->before, self->after,
				       self->delta));
	/* A CPU the page does not cover, and one it covers that the thread is not on. */
	m = pmuser_page_mark(&self->pg);
	m.cpu = (int)self->pg.nr_cpus;
	EXPECT_FALSE(pmuser_page_delta(&self->pg, m, slots, hw, 3, self->before, self->after,
				       self->delta));
	if (self->pg.nr_cpus > 1) {
		struct pmuser_page_cpu *cpu0 = self->rec - (self->pg.nr_cpus - 1);

		*cpu0 = *self->rec;
		m.cpu = 0;
		EXPECT_FALSE(pmuser_page_delta(&self->pg, m, slots, hw, 3, self->before,
					       self->after, self->delta));
	}
}

TEST_F(page, slot_moved_or_off)
{
	self->rec->slot[1].hw = 2;
	EXPECT_FALSE(window(self, 3));
	self->rec->slot[1].hw = PMUSER_HW_NONE;
	EXPECT_FALSE(window(self, 3));
	/* The window of the counters before it still counts. */
	EXPECT_TRUE(window(self, 2));
}

/* A caller's PMUSER_HW_NONE (a counter it was never given) matches no slot, even one off. */
TEST_F(page, no_counter_never_counts)
{
	static const unsigned int none[1] = { PMUSER_HW_NONE };

	self->rec->slot[0].hw = PMUSER_HW_NONE;
	EXPECT_FALSE(pmuser_page_delta(&self->pg, pmuser_page_mark(&self->pg), &slots[1], none, 1,
				       &self->before[1], &self->after[1], self->delta));
}

TEST_F(page, read_outside_the_period)
{
	self->before[1] = BASE32 - 1;	/* reloaded, the interrupt still to come */
	EXPECT_FALSE(window(self, 3));
	self->before[1] = BASE32;
	EXPECT_TRUE(window(self, 3));
	self->after[1] = UINT32_MAX;	/* ARMv7's read that lost to the kernel's selection */
	EXPECT_FALSE(window(self, 3));
	self->after[1] = BASE32 + 105;
	self->after[2] = UINT64_MAX;
	EXPECT_FALSE(window(self, 3));
	self->after[2] = BASE64 - 1;
	EXPECT_FALSE(window(self, 3));
}

TEST_F(page, arguments_out_of_range)
{
	static const unsigned int bad[1] = { PMUSER_PAGE_SLOTS };
	struct pmuser_page_mark m = pmuser_page_mark(&self->pg);
	const volatile unsigned char *base = self->pg.base;

	EXPECT_FALSE(pmuser_page_delta(&self->pg, m, bad, hw, 1, self->before, self->after,
				       self->delta));
	EXPECT_FALSE(pmuser_page_delta(&self->pg, m, slots, hw, PMUSER_PAGE_SLOTS + 1,
				       self->before, self->after, self->delta));
	self->pg.base = NULL;	/* unmapped: nothing vouches for the reads */
	EXPECT_FALSE(pmuser_page_delta(&self->pg, m, slots, hw, 3, self->before, self->after,
				       self->delta));
	self->pg.base = base;
}

/* A counter set's slots come from the module backend only. */
TEST(counters_slot_off_the_module)
{
	struct pmuser_counters_attr a;
	struct pmuser_counters *c;

	pmuser_counters_attr_init(&a);
	a.backend = PMUSER_BACKEND_CLOCK;
	a.flags = PMUSER_COUNTERS_CYCLES;
	ASSERT_EQ(0, pmuser_counters_open(&a, &c, NULL, 0));
	EXPECT_EQ(-EOPNOTSUPP, pmuser_counters_slot(c, 0));
	EXPECT_EQ(-EOPNOTSUPP, pmuser_counters_slot(c, 1));
	pmuser_counters_close(c);
}

TEST_HARNESS_MAIN
