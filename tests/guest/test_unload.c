// SPDX-License-Identifier: MIT
/*
 * Load/unload: UNLOAD_CYCLES times, with pmuser configured and one granted reader thread per
 * CPU reading inline, unloading fails with EWOULDBLOCK while a file descriptor is open (every
 * open file holds a module reference); once the fd is closed unloading succeeds under the still
 * running readers, after which an inline read traps on every CPU. After the last unload the
 * probe module shows the user-enable register 0 on every CPU and perf counts a known loop
 * exactly. The 32-bit guests also load pmuser with global_access=1 and check that every
 * thread reads without a grant, and that unloading closes access again. pmuser is loaded again
 * at the end, as the suite runner expects.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>

#include "kselftest_harness.h"
#include "pmuser_test.h"

#define UNLOAD_CYCLES	50
#define UNLOAD_LOOP	1000
#define MAX_CPUS	64
#define MODULE_PATH	"/lib/modules/pmuser.ko"
#define PROBE_PATH	"/lib/modules/pmuser_probe.ko"
#define PROBE_FILE	"/sys/kernel/debug/pmuser_probe/userenr"

static int load(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, params ? params : "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int unload(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

#if defined(__aarch64__)
/*
 * A granted thread keeps pmuser loaded until its last switch-out (its exit hook lives in the
 * module); after pthread_join() that is a moment away.
 */
static int unload_when_threads_gone(const char *name)
{
	int ret, tries;

	for (tries = 0; tries < 200; tries++) {
		ret = unload(name);
		if (ret != -EWOULDBLOCK)
			break;
		usleep(5000);
	}
	return ret;
}
#endif

static const char *modparams(void)
{
	const char *p = getenv("PMUSER_MODPARAMS");

	return p ? p : "";
}

struct unload_reader {
	pthread_t thread;
	int cpu;
	int fd;
	unsigned int hw;
	int counting;
	/* 0: count with access; 1: wait; 2: module gone, read until a trap; 3: stop */
	volatile int phase;
	int grant_ret;
	volatile int ready;
	unsigned long exact, inexact, traps_before, traps_after;
};

static void *unload_reader_main(void *arg)
{
	struct unload_reader *r = arg;
	int ret;

	r->grant_ret = pmuser_thread_pin(r->cpu);
	if (!r->grant_ret && r->fd >= 0)	/* fd -1: a thread after the unload */
		r->grant_ret = pmuser_device_grant(r->fd, 0);
	r->ready = 1;
	if (r->grant_ret)
		return NULL;
	while (r->phase == 0) {
		if (!r->counting || r->exact + r->inexact >= 3) {
			usleep(1000);
			continue;
		}
		ret = loop_judge(r->hw, UNLOAD_LOOP);
		if (ret < 0)
			continue;
		if (ret)
			r->exact++;
		else
			r->inexact++;
		r->traps_before = sigill_count;
	}
	while (r->phase == 1)
		usleep(1000);
	while (r->phase == 2 && !r->traps_after) {
		if (read_traps(r->hw))
			r->traps_after++;
		else
			usleep(1000);
	}
	return NULL;
}

/*
 * perf's own count of a task-bound INST_RETIRED (user only) event over loops of n1, n2, on
 * the PMU of the CPU the caller is pinned to.
 */
static int perf_loop_counts(unsigned int n1, unsigned int n2, uint64_t *c1, uint64_t *c2)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_RAW,
		.config = EV_INST_RETIRED,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	uint64_t *out[2] = { c1, c2 };
	unsigned int n[2] = { n1, n2 }, k;
	int fd;

	attr.type = raw_type_on(sched_getcpu());
	fd = perf_open(&attr, 0, -1);
	if (fd < 0)
		return -errno;
	for (k = 0; k < 2; k++) {
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		spin2(n[k]);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, out[k], sizeof(*out[k])) != sizeof(*out[k])) {
			close(fd);
			return -EIO;
		}
	}
	close(fd);
	return 0;
}

FIXTURE(unload) {
	int ncpus;
	int counting;
};

FIXTURE_SETUP(unload)
{
	if (access(MODULE_PATH, R_OK))
		SKIP(return, "%s missing: not in the test guest", MODULE_PATH);
	self->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (self->ncpus > MAX_CPUS)
		self->ncpus = MAX_CPUS;
	self->counting = counters_move() && getenv("PMUSER_ICOUNT_EXACT");
	sigill_count_install();
}

FIXTURE_TEARDOWN(unload)
{
	/* The suite expects pmuser loaded with the target's parameters. */
	load(MODULE_PATH, modparams());
}

TEST_F_TIMEOUT(unload, load_unload_cycles_under_readers, 600)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct unload_reader r[MAX_CPUS];
	struct pmuser_config cfg;
	struct pmuser_info info;
	unsigned int cycle;
	unsigned long exact = 0;
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	int fd, i, ret;
	char line[128];
	FILE *f;
	uint64_t c1, c2;

	/* The runner loaded pmuser before this binary. */
	ret = unload("pmuser");
	ASSERT_TRUE(ret == 0 || ret == -ENOENT);
	for (cycle = 0; cycle < UNLOAD_CYCLES; cycle++) {
		ASSERT_EQ(0, load(MODULE_PATH, modparams())) TH_LOG("cycle %u", cycle);
		fd = pmuser_device_open();
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, pmuser_device_info(fd, &info));
		config_events(&cfg, 1, ev, 1);
		ASSERT_EQ(0, pmuser_device_configure(fd, &cfg));
		memset(r, 0, sizeof(r));
		for (i = 0; i < self->ncpus; i++) {
			r[i].cpu = i;
			r[i].fd = fd;
			r[i].hw = cfg.events[0].hw_counter;
			r[i].counting = self->counting;
			ASSERT_EQ(0, pthread_create(&r[i].thread, NULL, unload_reader_main, &r[i]));
			/*
			 * Sleep, not sched_yield(): a yielding waiter switched with the reader
			 * already counting on its CPU at every turn, each switch voiding that
			 * reader's loop (it retries), and under QEMU such switches cost about 30
			 * times their guest time in host time (3.8 s of a cycle's 4 s).
			 */
			while (!r[i].ready)
				usleep(1000);
			ASSERT_EQ(0, r[i].grant_ret);
		}
		/* Let every reader count a few loops with the module in place. */
		for (i = 0; i < self->ncpus && self->counting; i++)
			while (r[i].exact + r[i].inexact < 3)
				usleep(1000);
		/* Busy while the fd is open; the readers' threads live on through the unload. */
		EXPECT_EQ(-EWOULDBLOCK, unload("pmuser"));
		for (i = 0; i < self->ncpus; i++)
			r[i].phase = 1;
		close(fd);
#if defined(__aarch64__)
		/*
		 * Closed, but threads it granted still run: rmmod is refused until they exit
		 * (their exit hook lives in the module). They trap from now on.
		 */
		EXPECT_EQ(-EWOULDBLOCK, unload("pmuser")) TH_LOG("cycle %u", cycle);
#else
		/*
		 * The grants ended with the file and nothing per thread lives in the module:
		 * it unloads at once, under the still running readers.
		 */
		ASSERT_EQ(0, unload("pmuser")) TH_LOG("cycle %u", cycle);
#endif
		for (i = 0; i < self->ncpus; i++)
			r[i].phase = 2;
		for (i = 0; i < self->ncpus; i++) {
			while (!r[i].traps_after)
				usleep(1000);
			r[i].phase = 3;
			pthread_join(r[i].thread, NULL);
			EXPECT_EQ(0, r[i].inexact) TH_LOG("cycle %u cpu%d", cycle, i);
			EXPECT_EQ(0, r[i].traps_before) TH_LOG("cycle %u cpu%d", cycle, i);
			exact += r[i].exact;
		}
#if defined(__aarch64__)
		ASSERT_EQ(0, unload_when_threads_gone("pmuser")) TH_LOG("cycle %u", cycle);
#endif
		/* Gone: a fresh thread on every CPU traps too. */
		for (i = 0; i < self->ncpus; i++) {
			memset(&r[i], 0, sizeof(r[i]));
			r[i].cpu = i;
			r[i].fd = -1;
			r[i].hw = cfg.events[0].hw_counter;
			r[i].phase = 2;
			ASSERT_EQ(0, pthread_create(&r[i].thread, NULL, unload_reader_main, &r[i]));
			while (!r[i].traps_after)
				usleep(1000);
			r[i].phase = 3;
			pthread_join(r[i].thread, NULL);
		}
	}
	TH_LOG("%u load/unload cycles in %.1f s guest time, %lu exact loops by the readers", cycle,
	       (now_ns(CLOCK_MONOTONIC) - t0) / 1e9, exact);
	if (self->counting)
		EXPECT_LT(0, exact);

	/* pmuser is gone: the probe reads the user-enable register on every CPU. */
	ASSERT_EQ(0, load(PROBE_PATH, "")) TH_LOG("%s: the probe module must be built (emu/build.sh)",
						   PROBE_PATH);
	f = fopen(PROBE_FILE, "r");
	ASSERT_TRUE(f != NULL);
	i = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned int cpu, val;

		ASSERT_EQ(2, sscanf(line, "cpu%u %x", &cpu, &val));
		EXPECT_EQ(0, val) TH_LOG("cpu%u user-enable %#x after unload", cpu, val);
		i++;
	}
	fclose(f);
	EXPECT_EQ(self->ncpus, i);
	EXPECT_EQ(0, unload("pmuser_probe"));

	/*
	 * perf counts normally: the loop's difference is its extra instructions exactly. Another
	 * vCPU's turn inside a loop only adds to its count (QEMU's -icount counts globally), so
	 * the least of each loop's count over a few tries is that loop's alone.
	 */
	if (self->counting) {
		uint64_t least1 = UINT64_MAX, least2 = UINT64_MAX;

		ASSERT_EQ(0, pmuser_thread_pin(0));
		for (i = 0; i < 8 && least2 - least1 != 2 * 10000; i++) {
			ASSERT_EQ(0, perf_loop_counts(1000, 11000, &c1, &c2));
			least1 = c1 < least1 ? c1 : least1;
			least2 = c2 < least2 ? c2 : least2;
		}
		TH_LOG("perf: %llu and %llu instructions (least of %d tries)",
		       (unsigned long long)least1, (unsigned long long)least2, i);
		/* Same code around both loops: they differ by 10000 iterations of two. */
		EXPECT_LT(2 * 1000, least1);
		EXPECT_EQ(2 * 10000, least2 - least1);
	}
}

#if !defined(__aarch64__)
/* Global mode readers: started without a grant, they read until told to stop. */
static void *global_reader_main(void *arg)
{
	struct unload_reader *r = arg;

	while (r->phase == 0) {
		r->traps_before += read_traps(r->hw);
		r->exact++;
		sched_yield();
	}
	return NULL;
}

/*
 * global_access=1 on 32-bit: an explicit opt-in, logged at load. Every thread reads without a
 * grant, GRANT and REVOKE succeed and change nothing, and unloading closes access again.
 * global_access=0 is the default, per-thread mode.
 */
TEST_F(unload, global_access_lets_every_thread_read)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_access acc = { .size = sizeof(acc) };
	struct pmuser_cpu_info ci;
	struct pmuser_config cfg;
	struct pmuser_info info;
	struct unload_reader r[2];
	int fd, i;

	ASSERT_EQ(0, unload("pmuser"));
	ASSERT_EQ(0, load(MODULE_PATH, "global_access=0"));
	fd = pmuser_device_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pmuser_device_info(fd, &info));
	EXPECT_EQ(PMUSER_ACCESS_PER_THREAD, info.access_mode);
	close(fd);
	ASSERT_EQ(0, unload("pmuser"));

	ASSERT_EQ(0, load(MODULE_PATH, "global_access=1"));
	fd = pmuser_device_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pmuser_device_info(fd, &info));
	EXPECT_EQ(PMUSER_ACCESS_GLOBAL, info.access_mode);
	ASSERT_EQ(0, pmuser_device_cpu_info(fd, 0, &ci));
	/* Only PMUv3 has read-only enables; ARMv7 PMUv2 and the ARM1176 (version 0) do not. */
	EXPECT_EQ(ci.pmu_version >= 3 && ci.pmu_version != 0xf ? 0 : PMUSER_INFO_USER_WRITES,
		  info.access_flags);
	config_events(&cfg, 1, ev, 1);
	ASSERT_EQ(0, pmuser_device_configure(fd, &cfg));
	ASSERT_EQ(0, ioctl(fd, PMUSER_IOC_GRANT, &acc));
	EXPECT_EQ(PMUSER_ACCESS_GLOBAL, acc.access_mode);
	EXPECT_EQ(0, pmuser_device_revoke(fd, 0));
	if (counters_move()) {
		EXPECT_FALSE(read_traps(cfg.events[0].hw_counter));
		EXPECT_FALSE(read_traps(PMUSER_HW_CYCLE));
		memset(r, 0, sizeof(r));
		for (i = 0; i < 2; i++) {
			r[i].hw = i ? PMUSER_HW_CYCLE : cfg.events[0].hw_counter;
			ASSERT_EQ(0, pthread_create(&r[i].thread, NULL, global_reader_main, &r[i]));
		}
		for (i = 0; i < 2; i++)
			while (r[i].exact < 100)
				usleep(1000);
		for (i = 0; i < 2; i++) {
			r[i].phase = 1;
			pthread_join(r[i].thread, NULL);
			EXPECT_EQ(0, r[i].traps_before) TH_LOG("thread %d trapped in global mode", i);
		}
	} else {
		TH_LOG("reads not checked: the cycle counter cannot be read or does not move (QEMU's ARM1176 has no counters)");
	}
	close(fd);
	EXPECT_EQ(0, unload("pmuser"));
	EXPECT_TRUE(read_traps(cfg.events[0].hw_counter));
	EXPECT_TRUE(read_traps(PMUSER_HW_CYCLE));
}
#else
/* arm64 grants per thread: global access is refused at load. */
TEST_F(unload, global_access_refused)
{
	ASSERT_EQ(0, unload("pmuser"));
	EXPECT_EQ(-EINVAL, load(MODULE_PATH, "global_access=1"));
}
#endif

TEST_HARNESS_MAIN
