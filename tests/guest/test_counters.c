// SPDX-License-Identifier: MIT
/*
 * Inline counter reads with exact counts: INST_RETIRED over a known asm loop (deterministic
 * under QEMU's -icount), SW_INCR counting exactly the software increments, and every held
 * counter returning its own count.
 */
#include "kselftest_harness.h"
#include "pmuser_test.h"

FIXTURE(counters) {
	int fd;
	struct pmuser_info info;
	struct pmuser_config cfg;
};

FIXTURE_SETUP(counters)
{
	static const uint32_t ev[] = { EV_INST_RETIRED, EV_SW_INCR };

	ASSERT_EQ(0, pmuser_thread_pin(0));
	self->fd = pmuser_device_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", PMUSER_DEVICE, strerror(-self->fd));
	ASSERT_EQ(0, pmuser_device_info(self->fd, &self->info));
	if (self->info.access_mode == PMUSER_ACCESS_NONE)
		SKIP(return, "module loaded without any user access mode");
	config_events(&self->cfg, 1, ev, 2);
	/* PMUSER_IOC_SWINC writes PMSWINC from the kernel: count EL1 for SW_INCR. */
	self->cfg.events[1].flags = PMUSER_COUNT_USER | PMUSER_COUNT_KERNEL;
	ASSERT_EQ(0, pmuser_device_configure(self->fd, &self->cfg));
	ASSERT_EQ(0, pmuser_device_grant(self->fd, 0));
}

FIXTURE_TEARDOWN(counters)
{
	close(self->fd);
}

TEST_F(counters, abi_version)
{
	EXPECT_EQ(PMUSER_ABI_VERSION, self->info.abi_version);
	EXPECT_EQ(PMUSER_FAST_ARCH, self->info.arch);
	EXPECT_EQ(PMUSER_HW_CYCLE, self->cfg.cycle_hw_counter);
	EXPECT_NE(PMUSER_HW_NONE, self->cfg.events[0].hw_counter);
	EXPECT_NE(self->cfg.events[0].hw_counter, self->cfg.events[1].hw_counter);
}

TEST_F(counters, inst_retired_exact)
{
	unsigned int hw = self->cfg.events[0].hw_counter;
	static const uint64_t lengths[] = { 1, 2, 10, 1000, 123457 };
	unsigned int i;

	REQUIRE_COUNTING();
	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		uint64_t d = loop_delta_alone(hw, lengths[i]);

		EXPECT_EQ(2 * lengths[i] + LOOP_OVERHEAD, d)
			TH_LOG("loop of %llu iterations", (unsigned long long)lengths[i]);
	}
}

/* QEMU derives the cycle counter from virtual time; with -icount shift=0 that is 1 ns (one
 * cycle at its 1 GHz) per instruction, so cycles match instructions exactly too.
 */
TEST_F(counters, cycles_exact_under_icount)
{
	uint64_t d;

	REQUIRE_COUNTING();
	d = loop_delta(PMUSER_HW_CYCLE, 5000);
	if (!getenv("PMUSER_ICOUNT_EXACT"))
		SKIP(return, "not under -icount");
	EXPECT_EQ(2 * 5000 + LOOP_OVERHEAD, d);
}

TEST_F(counters, sw_incr_counts_writes)
{
	unsigned int hw = self->cfg.events[1].hw_counter;
	uint64_t before, after;
	int ret;

	REQUIRE_COUNTING();
	before = pmuser_counter_read_serial(hw);
	ret = pmuser_device_swinc(self->fd, 1U << hw, 777);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "no software increment on this PMU");
	ASSERT_EQ(0, ret);
	after = pmuser_counter_read_serial(hw);
	EXPECT_EQ(777, (uint32_t)(after - before));
}

TEST_F(counters, reset_zeroes)
{
	unsigned int hw = self->cfg.events[1].hw_counter;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_device_swinc(self->fd, 1U << hw, 5));
	ASSERT_EQ(0, pmuser_device_reset(self->fd));
	EXPECT_EQ(0, (uint32_t)pmuser_counter_read_serial(hw));
}

/* An empty CPU set resets every configured CPU, also when only some are configured. */
TEST(reset_of_a_partial_configuration)
{
	static const uint32_t ev[] = { EV_SW_INCR };
	struct pmuser_config cfg;
	int fd = pmuser_device_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pmuser_thread_pin(0));
	config_events(&cfg, 0, ev, 1);
	cfg.events[0].flags = PMUSER_COUNT_MASK;
	cfg.cpus[0] = 1;
	ASSERT_EQ(0, pmuser_device_configure(fd, &cfg));
	ASSERT_EQ(0, pmuser_device_grant(fd, 0));
	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_device_swinc(fd, 1U << cfg.events[0].hw_counter, 9));
	EXPECT_EQ(9, (uint32_t)pmuser_counter_read_serial(cfg.events[0].hw_counter));
	ASSERT_EQ(0, pmuser_device_reset(fd));
	EXPECT_EQ(0, (uint32_t)pmuser_counter_read_serial(cfg.events[0].hw_counter));
	close(fd);
}

/*
 * 32-bit event counters wrap every 2^32 events (about 4 s of guest time at QEMU's icount rate),
 * with perf's overflow interrupt. Run the counter up to just below the wrap, then time a known
 * loop across it: the modular delta of the raw reads is exact.
 */
#define WRAP_LOOP	2000000u

TEST_F_TIMEOUT(counters, inst_retired_exact_across_wrap, 300)
{
	unsigned int hw = self->cfg.events[0].hw_counter;
	unsigned int tries, exact = 0, inexact = 0;
	uint64_t d = 0;
	unsigned long sw;

	REQUIRE_COUNTING();
	if (!getenv("PMUSER_ICOUNT_EXACT"))
		SKIP(return, "not under -icount");
	for (tries = 0; tries < 4 && !exact; tries++) {
		/* Wait for the window [2^32 - 3 WRAP_LOOP, 2^32 - 2 WRAP_LOOP) ... */
		while ((uint32_t)pmuser_counter_read(hw) < -3 * WRAP_LOOP ||
		       (uint32_t)pmuser_counter_read(hw) >= -2 * WRAP_LOOP)
			;
		/* ... from which a loop of 2 WRAP_LOOP + 2 instructions crosses the wrap. */
		sw = thread_switches();
		d = loop_delta_alone(hw, WRAP_LOOP);
		if (thread_switches() != sw)
			continue;
		if ((uint32_t)d == 2 * WRAP_LOOP + LOOP_OVERHEAD)
			exact++;
		else
			inexact++;
	}
	EXPECT_EQ(0, inexact) TH_LOG("delta %llu", (unsigned long long)(uint32_t)d);
	EXPECT_EQ(1, exact) TH_LOG("%u windows switched out", tries);
}

/* Free-running reads across a wrap (2^32 events and a bit more) never step back mod 2^32. */
TEST_F_TIMEOUT(counters, inst_retired_monotonic_across_wrap, 300)
{
	unsigned int hw = self->cfg.events[0].hw_counter;
	uint32_t prev, cur, back = 0, first_prev = 0, first_cur = 0;
	uint64_t total = 0;

	REQUIRE_COUNTING();
	if (!getenv("PMUSER_ICOUNT_EXACT"))
		SKIP(return, "not under -icount");
	prev = (uint32_t)pmuser_counter_read(hw);
	while (total < (1ull << 32) + (1ull << 28)) {
		cur = (uint32_t)pmuser_counter_read(hw);
		if ((uint32_t)(cur - prev) > (1u << 31)) {
			if (!back++) {
				first_prev = prev;
				first_cur = cur;
			}
		} else {
			total += (uint32_t)(cur - prev);
		}
		prev = cur;
	}
	EXPECT_EQ(0, back) TH_LOG("first step back: %#x then %#x", first_prev, first_cur);
}

TEST_HARNESS_MAIN
