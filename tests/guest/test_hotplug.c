// SPDX-License-Identifier: MIT
/*
 * CPU hotplug: HOTPLUG_CYCLES offline/online cycles of CPU 1 while one granted reader stays
 * pinned to CPU 0 and another keeps moving to CPU 1 whenever it is online. No read traps,
 * counters never step back between two reads on the same CPU and hotplug generation, and after
 * every online CPU 1 holds the configured counters again (PMUSER_IOC_CPU_INFO) and counts a
 * known loop exactly. arm64 only: the 32-bit guests have one CPU.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "pmuser_test.h"

#define HOTPLUG_CYCLES	100
#define HOTPLUG_LOOP	1000
/* Loops a reader may try once the cycles are over to get one comparable loop. */
#define SETTLE_TRIES	200
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

struct hp_reader {
	unsigned long reads, sigill, backwards, exact, inexact, on_cpu1, grant_failed;
	unsigned long settle_tries;
};

struct hp_shared {
	/* Odd while CPU 1 is being taken down or brought up. */
	volatile unsigned long gen;
	volatile int stop;
	struct hp_reader r[2];
};

/*
 * One loop judged (loop_judge(): no switch, same CPU and page) and tallied; a loop during
 * which CPU 1 went down or came up does not count.
 */
static void tally_loop(struct hp_reader *r, struct hp_shared *sh, unsigned int hw)
{
	unsigned long gen = __atomic_load_n(&sh->gen, __ATOMIC_SEQ_CST);
	int ret = loop_judge(hw, HOTPLUG_LOOP);

	if (gen & 1 || gen != __atomic_load_n(&sh->gen, __ATOMIC_SEQ_CST))
		ret = -1;
	if (ret == 1)
		r->exact++;
	else if (!ret)
		r->inexact++;
}

/* A reader process: pinned to CPU 0, or (mover) moving to CPU 1 whenever it can. */
static void reader_main(int fd, unsigned int hw, int mover, struct hp_shared *sh)
{
	struct hp_reader *r = &sh->r[mover];
	uint64_t prev = 0, cur;
	unsigned long gen, pgen = 1;
	struct pmuser_page_mark pm;
	uint32_t pseq = 1;
	int cpu, pcpu = -1;
	unsigned int i;

	sigill_count_install();
	if (pmuser_thread_pin(0) || pmuser_device_grant(fd, 0)) {
		r->grant_failed = 1;
		_exit(1);
	}
	while (!sh->stop) {
		if (mover)
			pmuser_thread_pin(1);	/* fails while CPU 1 is offline */
		for (i = 0; i < 1000; i++) {
			gen = __atomic_load_n(&sh->gen, __ATOMIC_SEQ_CST);
			pm = page_mark();
			cpu = pm.cpu;
			cur = (uint32_t)pmuser_counter_read(hw);
			/* Comparable: same CPU, hotplug generation and page sequence as before. */
			if (page_unchanged(pm) && cpu == pcpu && pm.seq == pseq && gen == pgen &&
			    !(gen & 1) && gen == __atomic_load_n(&sh->gen, __ATOMIC_SEQ_CST) &&
			    (uint32_t)(cur - prev) > (1u << 31))
				r->backwards++;
			prev = cur;
			pcpu = cpu;
			pgen = gen;
			pseq = pm.seq;
			r->reads++;
			r->on_cpu1 += cpu == 1;
		}
		tally_loop(r, sh, hw);
		r->sigill = sigill_count;
	}
	/*
	 * CPU 1 stays online from here on and nothing hotplugs: a reader that never got a
	 * comparable loop during the cycles (on a busy host QEMU may let the other vCPU into
	 * every one of them) tries a bounded number of times now, still on its own CPU.
	 */
	while ((!r->exact || (mover && !r->on_cpu1)) && r->settle_tries < SETTLE_TRIES) {
		r->settle_tries++;
		if (mover && pmuser_thread_pin(1))
			break;
		(void)pmuser_counter_read(hw);
		r->reads++;
		r->on_cpu1 += sched_getcpu() == 1;
		tally_loop(r, sh, hw);
	}
	r->sigill = sigill_count;
	_exit(0);
}

FIXTURE(hotplug) {
	int fd;
	struct pmuser_info info;
	struct pmuser_config cfg;
};

FIXTURE_SETUP(hotplug)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };

	if (sysconf(_SC_NPROCESSORS_CONF) < 2 || access(CPU1_ONLINE, W_OK))
		SKIP(return, "one CPU, or CPU 1 cannot go offline: nothing to hotplug");
	self->fd = pmuser_device_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pmuser_device_info(self->fd, &self->info));
	config_events(&self->cfg, 1, ev, 1);
	ASSERT_EQ(0, pmuser_device_configure(self->fd, &self->cfg));
	ASSERT_EQ(0, test_page_map(self->fd));
}

FIXTURE_TEARDOWN(hotplug)
{
	set_cpu_online(1, 1);
	pmuser_page_unmap(&test_page);
	close(self->fd);
}

TEST_F_TIMEOUT(hotplug, cpu1_offline_online_under_readers, 600)
{
	unsigned int hw = self->cfg.events[0].hw_counter;
	uint32_t want = 1u << PMUSER_HW_CYCLE | 1u << hw;
	unsigned int cycle, held_ok = 0, exact_ok = 0, tries;
	struct pmuser_cpu_info ci;
	struct hp_shared *sh;
	cpu_set_t all;
	pid_t pid[2];
	int i, status, ret;
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	REQUIRE_COUNTING();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	sched_getaffinity(0, sizeof(all), &all);
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i])
			reader_main(self->fd, hw, i, sh);
	}
	ASSERT_EQ(0, pmuser_device_grant(self->fd, 0));
	for (cycle = 0; cycle < HOTPLUG_CYCLES; cycle++) {
		__atomic_add_fetch(&sh->gen, 1, __ATOMIC_SEQ_CST);
		ret = set_cpu_online(1, 0);
		if (!ret)
			ret = set_cpu_online(1, 1);
		__atomic_add_fetch(&sh->gen, 1, __ATOMIC_SEQ_CST);
		ASSERT_EQ(0, ret) TH_LOG("cycle %u: %s", cycle, strerror(-ret));
		ASSERT_EQ(0, pmuser_device_cpu_info(self->fd, 1, &ci));
		if (ci.online && ci.held_mask == want)
			held_ok++;
		else
			TH_LOG("cycle %u: cpu1 online %u, held %#x, want %#x", cycle, ci.online,
			       ci.held_mask, want);
		/* Count on CPU 1 right away; retry loops the other CPU or a reader disturbed. */
		ASSERT_EQ(0, pmuser_thread_pin(1));
		for (tries = 0; tries < 20; tries++) {
			ret = loop_judge(hw, HOTPLUG_LOOP);
			if (ret >= 0)
				break;
		}
		if (ret == 1)
			exact_ok++;
		else
			TH_LOG("cycle %u: no exact loop on cpu1 (%d)", cycle, ret);
		sched_setaffinity(0, sizeof(all), &all);
	}
	sh->stop = 1;
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	TH_LOG("%u cycles in %.1f s guest time: cpu1 re-established %u times, exact %u times",
	       cycle, (now_ns(CLOCK_MONOTONIC) - t0) / 1e9, held_ok, exact_ok);
	EXPECT_EQ(HOTPLUG_CYCLES, held_ok);
	EXPECT_EQ(HOTPLUG_CYCLES, exact_ok);
	for (i = 0; i < 2; i++) {
		struct hp_reader *r = &sh->r[i];

		TH_LOG("reader %s: %lu reads (%lu on cpu1), %lu SIGILL, %lu steps back, %lu/%lu exact loops, %lu tries after the cycles",
		       i ? "moving to cpu1" : "pinned to cpu0", r->reads, r->on_cpu1, r->sigill,
		       r->backwards, r->exact, r->exact + r->inexact, r->settle_tries);
		EXPECT_EQ(0, r->grant_failed);
		EXPECT_EQ(0, r->sigill);
		EXPECT_EQ(0, r->backwards);
		EXPECT_EQ(0, r->inexact);
		EXPECT_LT(0, r->exact);
	}
	EXPECT_EQ(0, sh->r[0].on_cpu1);
	EXPECT_LT(0, sh->r[1].on_cpu1);
}

/*
 * Another user's pinned CPU_CYCLES event on CPU 1 sits on an event counter while pmuser holds
 * the cycle counter; across an offline/online perf may give it the cycle counter first, and
 * pmuser's re-setup of CPU 1 then fails. Either way CPU_INFO accounts for every configured
 * counter: each is held or unplaced, and CPU 0 still holds both of its counters.
 */
TEST_F_TIMEOUT(hotplug, cpu_info_accounts_for_every_counter_after_online, 120)
{
	struct perf_event_attr pa = {
		.type = PERF_TYPE_RAW, .size = sizeof(pa), .config = 0x11, .pinned = 1,
	};
	struct pmuser_cpu_info ci;
	unsigned int round, held;
	int other;

	REQUIRE_COUNTING();
	other = perf_open(&pa, -1, 1);
	ASSERT_LE(0, other) TH_LOG("perf_event_open: %s", strerror(errno));
	for (round = 0; round < 4; round++) {
		ASSERT_EQ(0, set_cpu_online(1, 0));
		ASSERT_EQ(0, set_cpu_online(1, 1));
		ASSERT_EQ(0, pmuser_device_cpu_info(self->fd, 1, &ci));
		held = (unsigned int)__builtin_popcount(ci.held_mask);
		TH_LOG("round %u: cpu1 held %#x, %u unplaced", round, ci.held_mask, ci.unplaced);
		EXPECT_EQ(2U, held + ci.unplaced);
	}
	close(other);
	ASSERT_EQ(0, pmuser_device_cpu_info(self->fd, 0, &ci));
	EXPECT_EQ(0U, ci.unplaced);
	EXPECT_EQ(2, __builtin_popcount(ci.held_mask));
}

TEST_HARNESS_MAIN
