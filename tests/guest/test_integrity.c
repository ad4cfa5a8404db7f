// SPDX-License-Identifier: MIT
/*
 * Counter integrity next to another perf user's pinned CPU-wide events, in every order:
 * pmuser configures before or after the other event arrives, the other closes first or
 * last, perf moves pmuser's event to another counter, pmuser counts kernel mode too.
 *
 * - pmuser never writes what perf owns: the other user's count over known loops is exact
 *   (its smallest difference over a few tries: QEMU's -icount may add the other vCPU's
 *   instructions to a window, never take any away) and starts near zero;
 * - no interrupt storm: PMU interrupts stay within a small budget and pmuser's counters
 *   keep counting at full rate;
 * - pmuser's page counts stay continuous, and a window spanning perf's restart or move of
 *   pmuser's counter is flagged by the counter page; CPU_INFO reports the placement perf
 *   has now.
 */
#include <sys/ioctl.h>

#include "kselftest_harness.h"
#include "pmuser_test.h"

#define N1	1000u
#define N2	11000u
/* Another perf user's pinned CPU-wide event on CPU 0 (user mode where the PMU can filter). */
static int other_pinned_open(__u32 type, __u64 config)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.pinned = 1,
		/* ARM1176's perf refuses any mode filter. */
		.exclude_kernel = COUNT_DEFAULT == PMUSER_COUNT_USER,
		.exclude_hv = COUNT_DEFAULT == PMUSER_COUNT_USER,
	};

	return perf_open(&attr, -1, 0);
}

/* Its INST_RETIRED. */
static int other_open(void)
{
	return other_pinned_open(PERF_TYPE_RAW, EV_INST_RETIRED);
}

static uint64_t other_read(int fd)
{
	uint64_t v = UINT64_MAX;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return UINT64_MAX;
	return v;
}

/* The other user's count over one loop of n iterations, the same code for every n. */
static __attribute__((noinline)) uint64_t other_loop(int fd, unsigned long n)
{
	uint64_t v0 = other_read(fd);

	spin2(n);
	return other_read(fd) - v0;
}

/*
 * The other user's count over loops of N1 and N2 iterations: the difference of the two
 * deltas is 2 (N2 - N1). Whatever else lands in a loop (another vCPU's turn under QEMU's
 * global -icount, another thread on the CPU) only adds to that loop's count, so the least
 * of each loop's count over up to 8 tries is that loop's alone: returns their difference,
 * stopping once it is exact.
 */
static uint64_t other_loop_diff(int fd)
{
	uint64_t least1 = UINT64_MAX, least2 = UINT64_MAX, d;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		d = other_loop(fd, N1);
		least1 = d < least1 ? d : least1;
		d = other_loop(fd, N2);
		least2 = d < least2 ? d : least2;
		if (least2 - least1 == 2 * (N2 - N1))
			break;
	}
	return least2 - least1;
}

FIXTURE(integrity) {
	int fd;
	struct pmuser_config cfg;
	struct pmuser_cpu_info ci;
	int other;
};

FIXTURE_SETUP(integrity)
{
	self->other = -1;
	self->fd = pmuser_device_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pmuser_thread_pin(0));
	ASSERT_EQ(0, pmuser_device_cpu_info(self->fd, 0, &self->ci));
}

FIXTURE_TEARDOWN(integrity)
{
	if (self->other >= 0)
		close(self->other);
	pmuser_page_unmap(&test_page);
	close(self->fd);
}

/* The same set-up, for the tests that need one arrangement only. */
FIXTURE(arrangement) {
	int fd;
	struct pmuser_config cfg;
};

FIXTURE_SETUP(arrangement)
{
	self->fd = pmuser_device_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pmuser_thread_pin(0));
}

FIXTURE_TEARDOWN(arrangement)
{
	pmuser_page_unmap(&test_page);
	close(self->fd);
}

/* pmuser on CPU 0: cycles and INST_RETIRED in the given modes. */
static int integrity_configure(struct pmuser_config *cfg, int fd, uint32_t count)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	int ret;

	config_events(cfg, 1, ev, 1);
	if (COUNT_DEFAULT == PMUSER_COUNT_USER) {
		cfg->cycle_flags = count;
		cfg->events[0].flags = count;
	}
	cfg->cpus[0] = 1;
	ret = pmuser_device_configure(fd, cfg);
	if (!ret)
		ret = pmuser_device_grant(fd, 0);
	if (!ret)
		ret = test_page_map(fd);
	return ret;
}

FIXTURE_VARIANT(integrity) {
	int pmuser_first;		/* pmuser configures before the other event opens */
	int other_closes_first;		/* the other event closes before pmuser releases */
	uint32_t count;			/* PMUSER_COUNT_* for pmuser's counters */
};

FIXTURE_VARIANT_ADD(integrity, pmuser_first_other_closes_first) {
	.pmuser_first = 1, .other_closes_first = 1, .count = PMUSER_COUNT_MASK,
};
FIXTURE_VARIANT_ADD(integrity, pmuser_first_other_closes_last) {
	.pmuser_first = 1, .other_closes_first = 0, .count = PMUSER_COUNT_MASK,
};
FIXTURE_VARIANT_ADD(integrity, other_first_other_closes_first) {
	.pmuser_first = 0, .other_closes_first = 1, .count = PMUSER_COUNT_MASK,
};
FIXTURE_VARIANT_ADD(integrity, other_first_other_closes_last) {
	.pmuser_first = 0, .other_closes_first = 0, .count = PMUSER_COUNT_MASK,
};
FIXTURE_VARIANT_ADD(integrity, user_only) {
	.pmuser_first = 1, .other_closes_first = 1, .count = PMUSER_COUNT_USER,
};

/*
 * Both users count side by side: the other's count is exact and starts near zero, pmuser's
 * page counts follow a long loop at full rate, and the PMU interrupts stay few.
 */
TEST_F_TIMEOUT(integrity, other_user_exact_no_storm, 300)
{
	const unsigned int slots[2] = { PMUSER_PAGE_CYCLE_SLOT, 0 };
	const unsigned long long big = 50000000;
	uint64_t start, diff, a[2], b[2];
	struct pmuser_page_mark m;
	unsigned long irq0, irqs;
	int cpu, tries;
	bool alone;

	REQUIRE_COUNTING();
	if (!getenv("PMUSER_ICOUNT_EXACT"))
		SKIP(return, "not under -icount");
	if (!variant->pmuser_first) {
		self->other = other_open();
		ASSERT_LE(0, self->other) TH_LOG("perf_event_open: %s", strerror(errno));
	}
	ASSERT_EQ(0, integrity_configure(&self->cfg, self->fd, variant->count));
	if (variant->pmuser_first) {
		self->other = other_open();
		ASSERT_LE(0, self->other) TH_LOG("perf_event_open: %s", strerror(errno));
	}
	start = other_read(self->other);
	/* A counter pmuser wrote would start at an arbitrary value (2^31 and more). */
	EXPECT_GT(10000000ull, start);
	diff = other_loop_diff(self->other);
	EXPECT_EQ(2 * (N2 - N1), diff);

	/*
	 * pmuser's counters count every thread on CPU 0: a window above the bound that another
	 * thread ran in (a switch moves the page's seq), such as the boot's crypto self-tests and
	 * workers, is tried again, a bounded number of times. Every window counts at least the
	 * loop; one the loop had to itself counts at most the loop and the kernel's ticks.
	 */
	for (tries = 0; tries < 8; tries++) {
		irq0 = pmu_interrupts();
		m = pmuser_page_mark(&test_page);
		ASSERT_EQ(0, pmuser_page_read(&test_page, slots, 2, a, &cpu));
		spin2(big);
		ASSERT_EQ(0, pmuser_page_read(&test_page, slots, 2, b, &cpu));
		irqs = pmu_interrupts() - irq0;
		alone = pmuser_page_unchanged(&test_page, m);
		TH_LOG("%llu-iteration loop: %llu cycles, %llu instructions, %lu PMU interrupts%s",
		       big, (unsigned long long)(b[0] - a[0]), (unsigned long long)(b[1] - a[1]),
		       irqs, alone ? "" : " (another thread ran)");
		EXPECT_LE(2 * big, b[1] - a[1]);
		EXPECT_LE(2 * big, b[0] - a[0]);
		if (alone || b[1] - a[1] < 2 * big + big / 4)
			break;
	}
	EXPECT_GT(2 * big + big / 4, b[1] - a[1]);
	EXPECT_GT(20, irqs);

	if (variant->other_closes_first) {
		close(self->other);
		self->other = -1;
		ASSERT_EQ(0, pmuser_page_read(&test_page, slots, 2, a, &cpu));
		spin2(N2);
		ASSERT_EQ(0, pmuser_page_read(&test_page, slots, 2, b, &cpu));
		EXPECT_LE(2 * N2, b[1] - a[1]);
	} else {
		ASSERT_EQ(0, pmuser_device_release(self->fd));
		EXPECT_EQ(2 * (N2 - N1), other_loop_diff(self->other));
	}
}

/*
 * perf moves pmuser's event: an older pinned event holds a counter when pmuser configures;
 * it closes and a new pinned event arrives, so perf schedules the CPU's pinned events again
 * in age order and pmuser's, now the oldest, takes another counter. The new event counts
 * exactly from zero, CPU_INFO and the page name pmuser's new counter, a window across the
 * move is flagged, and the page count goes on.
 */
TEST_F_TIMEOUT(arrangement, moved_counter_is_detected_not_written, 300)
{
	uint64_t before, after, start, raw0;
	unsigned int old_hw, new_hw;
	struct pmuser_cpu_info ci;
	struct pmuser_page_mark m;
	unsigned long irq0, irqs;
	int older, newer;

	REQUIRE_COUNTING();
	if (!getenv("PMUSER_ICOUNT_EXACT"))
		SKIP(return, "not under -icount");
	older = other_open();
	ASSERT_LE(0, older) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, integrity_configure(&self->cfg, self->fd, PMUSER_COUNT_MASK));
	old_hw = self->cfg.events[0].hw_counter;
	ASSERT_NE(PMUSER_HW_NONE, old_hw);
	/* away: slot 0 is on counter 0 or not; the cycle slot is on the cycle counter. */
	EXPECT_EQ(old_hw != 0, pmuser_page_cpu(&test_page, 0)->away);
	before = page_count(0);
	m = page_mark();
	raw0 = pmuser_counter_read(old_hw);
	close(older);
	irq0 = pmu_interrupts();
	newer = other_open();
	ASSERT_LE(0, newer) TH_LOG("perf_event_open: %s", strerror(errno));
	start = other_read(newer);
	spin2(N1);
	after = page_count(0);
	irqs = pmu_interrupts() - irq0;
	ASSERT_EQ(0, pmuser_device_cpu_info(self->fd, 0, &ci));
	new_hw = pmuser_page_cpu(&test_page, 0)->slot[0].hw;
	TH_LOG("pmuser's INST_RETIRED: counter %u, then %u (held %#x, %u unplaced); %lu interrupts",
	       old_hw, new_hw, ci.held_mask, ci.unplaced, irqs);
	EXPECT_NE(old_hw, new_hw) TH_LOG("perf did not move the event: nothing was tested");
	EXPECT_EQ(1u << PMUSER_HW_CYCLE | 1u << new_hw, ci.held_mask);
	EXPECT_EQ(0, ci.unplaced);
	EXPECT_EQ(new_hw != 0, pmuser_page_cpu(&test_page, 0)->away);
	/* The window from before the move is flagged. */
	EXPECT_FALSE(page_unchanged(m)) TH_LOG("raw %#llx", (unsigned long long)raw0);
	/* The other user's counter was never written: it counts from zero, exactly. */
	EXPECT_GT(10000000ull, start);
	EXPECT_EQ(2 * (N2 - N1), other_loop_diff(newer));
	EXPECT_NE(UINT64_MAX, before);
	EXPECT_NE(UINT64_MAX, after);
	EXPECT_LE(before + 2 * N1, after);
	EXPECT_GT(10, irqs);
	close(newer);
	/* A record that describes no configuration has every slot away. */
	ASSERT_EQ(0, pmuser_device_release(self->fd));
	EXPECT_EQ(UINT32_MAX, pmuser_page_cpu(&test_page, 0)->away);
}

/*
 * A period end (2^31 events) under kernel-mode counting with another user's pinned event
 * present: page counts continue and the interrupts stay a handful.
 */
TEST_F_TIMEOUT(arrangement, period_end_with_kernel_counting_and_pinned_other, 300)
{
	uint64_t first, prev, cur, back = 0;
	unsigned long irq0, irqs;

	int other;

	REQUIRE_COUNTING();
	if (!getenv("PMUSER_ICOUNT_EXACT"))
		SKIP(return, "not under -icount");
	ASSERT_EQ(0, integrity_configure(&self->cfg, self->fd, PMUSER_COUNT_MASK));
	other = other_open();
	ASSERT_LE(0, other);
	irq0 = pmu_interrupts();
	first = prev = page_count(0);
	ASSERT_NE(UINT64_MAX, first);
	while (prev - first < (1ull << 31) + (1ull << 27)) {
		spin2(1u << 20);
		cur = page_count(0);
		ASSERT_NE(UINT64_MAX, cur);
		back += cur < prev;
		prev = cur;
	}
	irqs = pmu_interrupts() - irq0;
	TH_LOG("%llu instructions, %lu PMU interrupts", (unsigned long long)(prev - first), irqs);
	EXPECT_EQ(0, back);
	EXPECT_GT(20, irqs);
	EXPECT_EQ(2 * (N2 - N1), other_loop_diff(other));
	close(other);
}

/*
 * Another user's pinned events older than pmuser's but disabled when pmuser configures, and
 * enabled afterwards: perf schedules the CPU's pinned events again in age order, so the
 * older ones take every event counter and pmuser's INST_RETIRED finds none (perf puts it in
 * error). The counter it had now counts another user's event: pmuser's count must then be
 * refused, never read from that counter, and CPU_INFO says the event is unplaced. With the
 * cycle counter configured too, its restart's overflow finds the displaced sibling; alone,
 * the next context switch on the CPU does, or without one the module's check every 0.5 s.
 */
static void displaced_event(struct __test_metadata *_metadata, int fd, bool cycles, bool wait)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_RAW,
		.config = EV_SW_INCR,	/* counts nothing here: no one writes PMSWINC */
		.pinned = 1,
		.disabled = 1,
		.exclude_kernel = COUNT_DEFAULT == PMUSER_COUNT_USER,
		.exclude_hv = COUNT_DEFAULT == PMUSER_COUNT_USER,
	};
	struct pmuser_config cfg;
	struct pmuser_cpu_info ci;
	uint64_t before, after;
	unsigned int n, i;
	int older[31];

	ASSERT_EQ(0, pmuser_device_cpu_info(fd, 0, &ci));
	n = ci.nr_counters < 31 ? ci.nr_counters : 31;
	for (i = 0; i < n; i++) {
		older[i] = perf_open(&attr, -1, 0);
		ASSERT_LE(0, older[i]) TH_LOG("perf_event_open: %s", strerror(errno));
	}
	config_events(&cfg, cycles, ev, 1);
	cfg.cpus[0] = 1;
	ASSERT_EQ(0, pmuser_device_configure(fd, &cfg));
	ASSERT_EQ(0, pmuser_device_grant(fd, 0));
	ASSERT_EQ(0, test_page_map(fd));
	ASSERT_NE(PMUSER_HW_NONE, cfg.events[0].hw_counter);
	before = page_count(0);
	ASSERT_NE(UINT64_MAX, before);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, ioctl(older[i], PERF_EVENT_IOC_ENABLE, 0));
	spin2(N2);
	if (wait) {
		/* No switch of its own, no overflow: the module's check every 0.5 s finds it. */
		uint64_t t0 = now_ns(CLOCK_MONOTONIC), t;
		unsigned long sw = thread_switches();

		while ((after = page_count(0)) != UINT64_MAX &&
		       now_ns(CLOCK_MONOTONIC) - t0 < 2000000000ull)
			spin2(100000);
		t = now_ns(CLOCK_MONOTONIC) - t0;
		TH_LOG("refused after %.3f s, %lu switches of the thread", t / 1e9,
		       thread_switches() - sw);
		EXPECT_GT(600000000ull, t);
	} else if (!cycles) {
		usleep(1000);
	}
	after = page_count(0);
	TH_LOG("%u older events enabled: pmuser's count %llu, then %llu", n,
	       (unsigned long long)before, (unsigned long long)after);
	EXPECT_EQ(UINT64_MAX, after)
		TH_LOG("pmuser's count read from another user's counter: %llu over a loop of %u instructions",
		       (unsigned long long)(after - before), 2 * N2);
	ASSERT_EQ(0, pmuser_device_cpu_info(fd, 0, &ci));
	EXPECT_EQ(1, ci.unplaced) TH_LOG("perf placed pmuser's event: nothing was tested");
	EXPECT_EQ(UINT64_MAX, page_count(0));
	for (i = 0; i < n; i++)
		close(older[i]);
}

TEST_F(arrangement, displaced_event_beside_the_cycle_counter_is_refused)
{
	REQUIRE_COUNTING();
	displaced_event(_metadata, self->fd, true, false);
}

TEST_F(arrangement, displaced_lone_event_is_refused_after_a_switch)
{
	REQUIRE_COUNTING();
	displaced_event(_metadata, self->fd, false, false);
}

TEST_F(arrangement, displaced_lone_event_is_refused_within_half_a_second)
{
	REQUIRE_COUNTING();
	displaced_event(_metadata, self->fd, false, true);
}

/*
 * A CONFIGURE that fails once the old counters are gone (another user's pinned event holds
 * the cycle counter) leaves the previous configuration in force.
 */
TEST_F(arrangement, failed_configure_keeps_the_previous_one)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_config cfg;
	struct pmuser_cpu_info ci;
	struct pmuser_info info;
	uint64_t a, b;
	int cycles, ret;

	config_events(&self->cfg, 0, ev, 1);
	self->cfg.cpus[0] = 1;
	ASSERT_EQ(0, pmuser_device_configure(self->fd, &self->cfg));
	cycles = other_pinned_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	ASSERT_LE(0, cycles) TH_LOG("perf_event_open: %s", strerror(errno));
	config_events(&cfg, 1, ev, 1);
	cfg.cpus[0] = 1;
	ret = pmuser_device_configure(self->fd, &cfg);
	close(cycles);
	EXPECT_EQ(-EBUSY, ret);
	ASSERT_EQ(0, pmuser_device_info(self->fd, &info));
	EXPECT_EQ(1, info.nr_events);
	EXPECT_EQ(0, info.cycles_held);
	ASSERT_EQ(0, pmuser_device_cpu_info(self->fd, 0, &ci));
	EXPECT_EQ(1u << self->cfg.events[0].hw_counter, ci.held_mask);
	ASSERT_EQ(0, pmuser_device_grant(self->fd, 0));
	ASSERT_EQ(0, test_page_map(self->fd));
	REQUIRE_COUNTING();
	a = page_count(0);
	spin2(N2);
	b = page_count(0);
	EXPECT_LE(2 * N2, b - a);
}

TEST_HARNESS_MAIN
