// SPDX-License-Identifier: MIT
/*
 * The counters API on a machine without ARM counters: attribute validation, the backend
 * override, and the clock backend that keeps tools usable on a developer's x86 box.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "pmuser.h"

static int open_attr(struct pmuser_counters_attr *a, struct pmuser_counters **c, char *why,
		     size_t whylen)
{
	return pmuser_counters_open(a, c, why, whylen);
}

TEST(invalid_attributes_are_refused)
{
	struct pmuser_counters_attr a;
	struct pmuser_counters *c;
	char why[256];

	pmuser_counters_attr_init(&a);
	EXPECT_EQ(-EINVAL, open_attr(NULL, &c, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "attr is NULL") != NULL) TH_LOG("%s", why);
	a.flags = PMUSER_COUNTERS_CYCLES;
	EXPECT_EQ(-EINVAL, open_attr(&a, NULL, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "out is NULL") != NULL) TH_LOG("%s", why);
	a.flags = 0;
	EXPECT_EQ(-EINVAL, open_attr(&a, &c, why, sizeof(why)));	/* no counters at all */
	a.flags = PMUSER_COUNTERS_CYCLES | 0x8000;
	EXPECT_EQ(-EINVAL, open_attr(&a, &c, why, sizeof(why)));
	a.flags = PMUSER_COUNTERS_CYCLES;
	a.cycle_flags = 0x4;
	EXPECT_EQ(-EINVAL, open_attr(&a, &c, why, sizeof(why)));
	a.cycle_flags = 0;
	a.nr_events = PMUSER_MAX_EVENTS + 1;
	EXPECT_EQ(-EINVAL, open_attr(&a, &c, why, sizeof(why)));
	a.nr_events = 1;
	a.events[0].event = 0x10000;
	EXPECT_EQ(-EINVAL, open_attr(&a, &c, why, sizeof(why)));
	a.events[0].event = 0x08;
	a.pid = -1;
	EXPECT_EQ(-EINVAL, open_attr(&a, &c, why, sizeof(why)));	/* CPU-wide needs a CPU */
	a.pid = 0;
	a.backend = 99;
	EXPECT_EQ(-EINVAL, open_attr(&a, &c, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "invalid") != NULL);
}

TEST(backend_names_round_trip)
{
	enum pmuser_backend b;
	unsigned int i;

	for (i = PMUSER_BACKEND_AUTO; i <= PMUSER_BACKEND_CLOCK; i++) {
		ASSERT_EQ(0, pmuser_backend_parse(pmuser_backend_name(i), &b));
		EXPECT_EQ(i, b);
	}
	EXPECT_EQ(-EINVAL, pmuser_backend_parse("perf", &b));
	EXPECT_EQ(-EINVAL, pmuser_backend_parse("", &b));
	EXPECT_EQ(-EINVAL, pmuser_backend_parse(NULL, &b));
	EXPECT_EQ(-EINVAL, pmuser_backend_parse("clock", NULL));
}

TEST(bad_environment_override_is_an_error)
{
	struct pmuser_counters_attr a;
	struct pmuser_counters *c;
	char why[256];

	pmuser_counters_attr_init(&a);
	a.flags = PMUSER_COUNTERS_CYCLES;
	setenv("PMUSER_BACKEND", "fast", 1);
	EXPECT_EQ(-EINVAL, open_attr(&a, &c, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "PMUSER_BACKEND='fast'") != NULL) TH_LOG("%s", why);
	unsetenv("PMUSER_BACKEND");
}

TEST(clock_backend_times_in_ns)
{
	struct pmuser_counters_attr a;
	struct pmuser_counters *c;
	struct pmuser_region r;
	struct timespec nap = { 0, 2000000 };
	char why[256];

	pmuser_counters_attr_init(&a);
	a.flags = PMUSER_COUNTERS_CYCLES;
	a.nr_events = 1;
	a.events[0].event = 0x08;
	setenv("PMUSER_BACKEND", "clock", 1);
	/* An event it cannot count fails, unless the caller accepts it as unsupported. */
	EXPECT_EQ(-EOPNOTSUPP, open_attr(&a, &c, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "clock: cannot count 0x8") != NULL) TH_LOG("%s", why);
	a.flags |= PMUSER_COUNTERS_OPTIONAL;
	ASSERT_EQ(0, open_attr(&a, &c, why, sizeof(why))) TH_LOG("%s", why);
	unsetenv("PMUSER_BACKEND");
	EXPECT_EQ(PMUSER_BACKEND_CLOCK, pmuser_counters_backend(c));
	EXPECT_EQ(2, pmuser_counters_nr(c));
	EXPECT_STREQ("ns", pmuser_counters_name(c, 0));
	EXPECT_TRUE(pmuser_counters_supported(c, 0));
	EXPECT_FALSE(pmuser_counters_supported(c, 1));
	EXPECT_EQ(-EOPNOTSUPP, pmuser_counters_hw(c, 0));
	EXPECT_TRUE(strstr(pmuser_counters_timer(c), "CLOCK_MONOTONIC_RAW") != NULL);
	ASSERT_EQ(0, pmuser_region_calibrate(c, 100));
	PMUSER_REGION(c, &r) {
		nanosleep(&nap, NULL);
	}
	EXPECT_TRUE(r.valid);
	EXPECT_LE(2000000, r.delta[0]);
	EXPECT_EQ(0, r.delta[1]);
	/* A reset moves the clock's base: a region across it is invalid, not 2^64 - t. */
	nanosleep(&nap, NULL);
	PMUSER_REGION(c, &r) {
		ASSERT_EQ(0, pmuser_counters_reset(c));
	}
	EXPECT_FALSE(r.valid) TH_LOG("delta %lld", (long long)r.delta[0]);
	PMUSER_REGION(c, &r) {
		nanosleep(&nap, NULL);
	}
	EXPECT_TRUE(r.valid);
	pmuser_counters_close(c);
}

/* Only the module's sets take other events: the clock's keeps its own, and says so. */
TEST(reconfigure_is_the_module_backends)
{
	struct pmuser_evspec_entry ev[1] = { { .event = 0x08 } };
	struct pmuser_counters_attr a;
	struct pmuser_counters *c;
	uint64_t v[1];
	char why[256];

	pmuser_counters_attr_init(&a);
	a.backend = PMUSER_BACKEND_CLOCK;
	a.flags = PMUSER_COUNTERS_CYCLES;
	ASSERT_EQ(0, open_attr(&a, &c, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(-EINVAL, pmuser_counters_reconfigure(NULL, ev, 1, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "c is NULL") != NULL) TH_LOG("%s", why);
	EXPECT_EQ(-EINVAL, pmuser_counters_reconfigure(c, NULL, 1, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "events is NULL") != NULL) TH_LOG("%s", why);
	EXPECT_EQ(-EOPNOTSUPP, pmuser_counters_reconfigure(c, ev, 1, why, sizeof(why)));
	EXPECT_STREQ("clock: a set's events are fixed when it is opened", why);
	EXPECT_EQ(-EOPNOTSUPP, pmuser_counters_reconfigure(c, ev, 1, NULL, 0));
	EXPECT_EQ(1, pmuser_counters_nr(c));
	EXPECT_STREQ("ns", pmuser_counters_name(c, 0));
	EXPECT_EQ(0, pmuser_counters_read(c, v));
	pmuser_counters_close(c);
}

TEST(auto_always_finds_a_backend_for_cycles)
{
	struct pmuser_counters_attr a;
	struct pmuser_counters *c;
	uint64_t v[1], w[1];
	char why[512];

	pmuser_counters_attr_init(&a);
	a.flags = PMUSER_COUNTERS_CYCLES;
	ASSERT_EQ(0, open_attr(&a, &c, why, sizeof(why))) TH_LOG("%s", why);
	TH_LOG("backend %s, timer %s; not taken: %s", pmuser_backend_name(pmuser_counters_backend(c)),
	       pmuser_counters_timer(c), why);
	ASSERT_EQ(0, pmuser_counters_read(c, v));
	ASSERT_EQ(0, pmuser_counters_read(c, w));
	EXPECT_LE(v[0], w[0]);
	pmuser_counters_close(c);
}

TEST_HARNESS_MAIN
