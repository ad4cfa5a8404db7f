// SPDX-License-Identifier: MIT
/*
 * Coexistence with other perf users: while a helper process keeps opening, enabling, reading
 * and closing perf events on the same CPUs (task-bound on itself and on the readers, CPU-wide
 * flexible and pinned; more than the PMU has counters so perf multiplexes), one granted
 * reader pinned to each CPU keeps reading for COEXIST_SECONDS of guest time, with pmuser
 * counting user mode, or user and kernel mode: no read traps, every page count (the raw
 * counter made continuous through the counter page) only moves forward and can always be
 * read, and with user-mode counting INST_RETIRED over a known loop is exact whenever the
 * reader was not switched out and the page did not change during the loop (perf's restarts
 * reload the counters: such windows are flagged, never wrong).
 *
 * On arm64 the cycle counter is read around each loop to recognise the loops QEMU's
 * round-robin let the other vCPU into (loop_pair_verdict()); anything else inexact fails.
 */
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "pmuser_test.h"

#define COEXIST_SECONDS		10
#define COEXIST_MIN_READS	1000000ul
#define COEXIST_LOOP		1000
#define MAX_READERS		2

struct reader {
	pthread_t thread;
	int cpu;
	int fd;
	unsigned int hw;
	unsigned int counter_bits;
	volatile int *stop;
	uint64_t ran_ns;
	int grant_ret;
	pid_t tid;
	volatile int started;
	int exact_loops;		/* judge loops (user-mode counting only) */
	unsigned long reads, sigill, backwards, exact, inexact, switched, shared, migrated;
	unsigned long flagged, unreadable;
	uint64_t bad_cyc;
	uint64_t bad_delta, back_prev, back_cur;
	int back_cycles;
};

/* What the helper did, in memory shared with the test process. */
struct helper_stats {
	unsigned long rounds, opened, open_failed, multiplexed;
	uint64_t ran_ns;
	/* Set by the helper when it is done: the readers stop then. */
	volatile int done;
};

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static const unsigned int reader_slots[2] = { PMUSER_PAGE_CYCLE_SLOT, 0 };

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	uint64_t pv[2] = { 0, 0 }, v[2], c, t0 = now_ns(CLOCK_MONOTONIC);
	struct pmuser_page_mark m;
	unsigned long sw;
	enum loop_verdict verdict;
	uint64_t cyc;
	unsigned int i;
	int cpu;

	r->tid = gettid_();
	if (pmuser_thread_pin(r->cpu)) {
		r->grant_ret = -EINVAL;
		r->started = 1;
		return NULL;
	}
	r->grant_ret = pmuser_device_grant(r->fd, 0);
	r->started = 1;
	if (r->grant_ret)
		return NULL;
	while (!*r->stop || r->reads < COEXIST_MIN_READS) {
		for (i = 0; i < COEXIST_LOOP; i++) {
			if (pmuser_page_read(&test_page, reader_slots, 2, v, &cpu)) {
				r->unreadable++;
				continue;
			}
			if ((v[0] < pv[0] || v[1] < pv[1]) && !r->backwards++) {
				r->back_cycles = v[0] < pv[0];
				r->back_prev = r->back_cycles ? pv[0] : pv[1];
				r->back_cur = r->back_cycles ? v[0] : v[1];
			}
			pv[0] = v[0];
			pv[1] = v[1];
		}
		r->reads += 2 * COEXIST_LOOP;
		if (sched_getcpu() != r->cpu)
			r->migrated++;
		if (!r->exact_loops)
			continue;
		sw = thread_switches();
		m = page_mark();
#if defined(__aarch64__)
		c = loop_delta_pair(r->hw, COEXIST_LOOP, &cyc);
		verdict = loop_pair_verdict(c, cyc, COEXIST_LOOP);
#else
		/* One CPU on the 32-bit guests: no other vCPU to share the count with. */
		c = loop_delta(r->hw, COEXIST_LOOP);
		cyc = 0;
		verdict = c == 2 * COEXIST_LOOP + LOOP_OVERHEAD ? LOOP_EXACT : LOOP_INEXACT;
#endif
		r->reads += 4;
		if (thread_switches() != sw) {
			/* The helper may have run in the window: only counts as a read. */
			r->switched++;
		} else if (!page_unchanged(m)) {
			r->flagged++;
		} else if (verdict == LOOP_EXACT) {
			r->exact++;
		} else if (verdict == LOOP_SHARED) {
			r->shared++;
		} else if (!r->inexact++) {
			r->bad_delta = c;
			r->bad_cyc = cyc;
		}
	}
	r->sigill = sigill_count;
	r->ran_ns = now_ns(CLOCK_MONOTONIC) - t0;
	return NULL;
}

static const struct {
	__u32 type;
	__u64 config;
} helper_events[] = {
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ PERF_TYPE_RAW, EV_INST_RETIRED },
	{ PERF_TYPE_RAW, EV_CPU_CYCLES },
};
#define HELPER_PER_TARGET	8
#define HELPER_MAX_FDS		64

static int helper_open(int *fds, int *n, pid_t pid, int cpu, unsigned int k, int pinned,
		       struct helper_stats *st)
{
	struct perf_event_attr attr;
	unsigned int j = k % (sizeof(helper_events) / sizeof(helper_events[0]));
	int fd;

	if (*n >= HELPER_MAX_FDS)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = helper_events[j].type;
	attr.config = helper_events[j].config;
	attr.disabled = 1;
	attr.pinned = pinned;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = perf_open(&attr, pid, cpu);
	if (fd < 0) {
		st->open_failed++;
		return -1;
	}
	st->opened++;
	fds[(*n)++] = fd;
	return 0;
}

/*
 * One round on one CPU: open HELPER_PER_TARGET events on the reader pinned there, on the
 * helper itself and CPU-wide on that CPU (one pinned on arm64), enable them all, work a little,
 * read them, close them. Staying on the CPU keeps perf's cross-calls local: under QEMU's
 * round-robin vCPUs an IPI waits for the other vCPU's time slice.
 */
/*
 * Another user's pinned CPU-wide event makes perf restart pmuser's counters (all ones until
 * their overflow interrupt republishes them): one per round and CPU.
 */
#define HELPER_PINNED(k)	((k) == 0)

static void helper_round(pid_t tid, int cpu, struct helper_stats *st)
{
	int fds[HELPER_MAX_FDS], n = 0, i;
	unsigned int k;
	volatile unsigned long spin;
	uint64_t v[3];

	for (k = 0; k < HELPER_PER_TARGET; k++) {
		helper_open(fds, &n, tid, -1, k, 0, st);
		helper_open(fds, &n, 0, -1, k + 1, 0, st);
		helper_open(fds, &n, -1, cpu, k + 2, HELPER_PINNED(k), st);
	}
	for (i = 0; i < n; i++)
		ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
	for (spin = 0; spin < 2000; spin++)
		;
	for (i = 0; i < n; i++) {
		if (read(fds[i], v, sizeof(v)) == sizeof(v) && v[2] < v[1])
			st->multiplexed++;
		close(fds[i]);
	}
	st->rounds++;
}

static void helper_main(const pid_t *tids, int nr, struct helper_stats *st)
{
	uint64_t start = now_ns(CLOCK_MONOTONIC), end = start + COEXIST_SECONDS * 1000000000ull;
	int cpu = 0;

	while (now_ns(CLOCK_MONOTONIC) < end) {
		/* Every CPU in turn, so task-bound events start and stop on each. */
		pmuser_thread_pin(cpu);
		helper_round(tids[cpu], cpu, st);
		cpu = (cpu + 1) % nr;
	}
	st->ran_ns = now_ns(CLOCK_MONOTONIC) - start;
	st->done = 1;
}

FIXTURE(coexist) {
	int fd;
	struct pmuser_info info;
	struct pmuser_config cfg;
	struct pmuser_cpu_info ci;
};

FIXTURE_VARIANT(coexist) {
	uint32_t count;			/* PMUSER_COUNT_* for pmuser's counters */
};

FIXTURE_VARIANT_ADD(coexist, user) {
	.count = PMUSER_COUNT_USER,
};

FIXTURE_VARIANT_ADD(coexist, user_and_kernel) {
	.count = PMUSER_COUNT_MASK,
};

FIXTURE_SETUP(coexist)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };

	self->fd = pmuser_device_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pmuser_device_info(self->fd, &self->info));
	ASSERT_EQ(0, pmuser_device_cpu_info(self->fd, 0, &self->ci));
	config_events(&self->cfg, 1, ev, 1);
	/* ARM1176 cannot filter by mode: it always counts both. */
	if (COUNT_DEFAULT == PMUSER_COUNT_USER) {
		self->cfg.cycle_flags = variant->count;
		self->cfg.events[0].flags = variant->count;
	}
	ASSERT_EQ(0, pmuser_device_configure(self->fd, &self->cfg));
	ASSERT_EQ(0, test_page_map(self->fd));
}

FIXTURE_TEARDOWN(coexist)
{
	pmuser_page_unmap(&test_page);
	close(self->fd);
}

TEST_F_TIMEOUT(coexist, readers_survive_perf_churn, 400)
{
	struct reader readers[MAX_READERS];
	struct helper_stats *st;
	pid_t tids[MAX_READERS], helper;
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN), i, status;
	unsigned long irq0 = pmu_interrupts(), irqs;

	REQUIRE_COUNTING();
	if (ncpus > MAX_READERS)
		ncpus = MAX_READERS;
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(st != MAP_FAILED);
	memset(st, 0, sizeof(*st));
	sigill_count_install();
	memset(readers, 0, sizeof(readers));
	for (i = 0; i < ncpus; i++) {
		readers[i].cpu = i;
		readers[i].fd = self->fd;
		readers[i].hw = self->cfg.events[0].hw_counter;
		readers[i].counter_bits = self->ci.counter_bits;
		readers[i].exact_loops = variant->count == PMUSER_COUNT_USER;
		readers[i].stop = &st->done;
		ASSERT_EQ(0, pthread_create(&readers[i].thread, NULL, reader_main, &readers[i]));
		while (!readers[i].started)
			sched_yield();
		tids[i] = readers[i].tid;
	}
	helper = fork();
	ASSERT_LE(0, helper);
	if (!helper) {
		helper_main(tids, ncpus, st);
		_exit(0);
	}
	for (i = 0; i < ncpus; i++)
		pthread_join(readers[i].thread, NULL);
	ASSERT_EQ(helper, waitpid(helper, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	irqs = pmu_interrupts() - irq0;

	TH_LOG("helper: %lu rounds in %.1f s guest time, %lu events opened (%lu refused), %lu multiplexed",
	       st->rounds, st->ran_ns / 1e9, st->opened, st->open_failed, st->multiplexed);
	EXPECT_LE(COEXIST_SECONDS * 1000000000ull, st->ran_ns);
	EXPECT_LT(0, st->rounds);
	/* More events than counters: perf must have time-shared some of them. */
	EXPECT_LT(0, st->multiplexed);
	/*
	 * Interrupt budget: perf restarts pmuser's two counters on a CPU at most at each of the
	 * helper's event operations there (open, enable, close), and each restart costs one
	 * interrupt; a storm would be thousands per second.
	 */
	TH_LOG("%lu PMU interrupts for %lu events opened", irqs, st->opened);
	EXPECT_LE(irqs, 8 * st->rounds + 100);
	for (i = 0; i < ncpus; i++) {
		struct reader *r = &readers[i];

		TH_LOG("cpu%d: %.1f s, %lu reads (%lu unreadable), %lu SIGILL, %lu/%lu exact loops (%lu more switched out, %lu shared, %lu flagged)",
		       r->cpu, r->ran_ns / 1e9, r->reads, r->unreadable, r->sigill, r->exact,
		       r->exact + r->inexact, r->switched, r->shared, r->flagged);
		if (r->inexact)
			TH_LOG("cpu%d: first inexact loop: %llu, cycles %llu", r->cpu,
			       (unsigned long long)r->bad_delta, (unsigned long long)r->bad_cyc);
		if (r->backwards)
			TH_LOG("cpu%d: %lu steps back, first of %s: %#llx then %#llx", r->cpu,
			       r->backwards, r->back_cycles ? "cycles" : "INST_RETIRED",
			       (unsigned long long)r->back_prev, (unsigned long long)r->back_cur);
		ASSERT_EQ(0, r->grant_ret);
		EXPECT_LE(COEXIST_MIN_READS, r->reads);
		EXPECT_LE(COEXIST_SECONDS * 1000000000ull, r->ran_ns);
		EXPECT_EQ(0, r->sigill);
		EXPECT_EQ(0, r->backwards);
		EXPECT_EQ(0, r->migrated);
		EXPECT_EQ(0, r->unreadable);
		if (!r->exact_loops)
			continue;
		EXPECT_LT(0, r->exact);
		if (getenv("PMUSER_ICOUNT_EXACT"))
			EXPECT_EQ(0, r->inexact);
	}
	munmap(st, sizeof(*st));
}

TEST_HARNESS_MAIN
