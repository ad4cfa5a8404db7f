// SPDX-License-Identifier: MIT
/*
 * Every ioctl refuses bad input with its documented errno and changes nothing: short or
 * oversized structs with a non-zero tail, unknown flags, non-zero reserved fields, bad CPUs,
 * too many or unsupported events, unknown commands and bad pointers.
 */
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>

#include "kselftest_harness.h"
#include "pmuser_test.h"

FIXTURE(ioctl) {
	int fd;
	struct pmuser_info info;
	struct pmuser_config cfg;
};

FIXTURE_SETUP(ioctl)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };

	self->fd = pmuser_device_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pmuser_device_info(self->fd, &self->info));
	config_events(&self->cfg, 1, ev, 1);
	self->cfg.size = sizeof(self->cfg);
}

FIXTURE_TEARDOWN(ioctl)
{
	close(self->fd);
}

static int raw_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? errno : 0;
}

/*
 * The counter page maps read-only and stays so: no write or exec mapping, no mprotect() that
 * adds either, no offset, no more than page_size.
 */
TEST_F(ioctl, page_maps_read_only)
{
	size_t len = self->info.page_size, pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t over = (len + pg - 1) / pg * pg + pg;
	void *p;

	ASSERT_GT(len, 0U);
	EXPECT_TRUE(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0) == MAP_FAILED);
	EXPECT_EQ(EPERM, errno);
	EXPECT_TRUE(mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd, 0) == MAP_FAILED);
	EXPECT_EQ(EPERM, errno);
	EXPECT_TRUE(mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, (off_t)pg) == MAP_FAILED);
	EXPECT_EQ(EINVAL, errno);
	EXPECT_TRUE(mmap(NULL, over, PROT_READ, MAP_SHARED, self->fd, 0) == MAP_FAILED);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_TRUE(p != MAP_FAILED) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(-1, mprotect(p, len, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(p, len, PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(0, mprotect(p, len, PROT_READ));
	munmap(p, len);
}

/* Whether the mapping at p is executable, by /proc/self/maps: 1, 0, or -1 if not found. */
static int mapped_exec(const void *p)
{
	char line[512];
	unsigned long lo, hi;
	char perm[5];
	int ret = -1;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && ret < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) == 3 && (unsigned long)p >= lo &&
		    (unsigned long)p < hi)
			ret = perm[2] == 'x';
	if (f)
		fclose(f);
	return ret;
}

/*
 * A process whose personality makes readable mappings executable (READ_IMPLIES_EXEC)
 * maps the page all the same, without exec, and cannot add exec later either.
 */
TEST_F(ioctl, page_not_executable_under_read_implies_exec)
{
	size_t len = self->info.page_size;
	int old = personality(0xffffffff);
	void *p;

	ASSERT_LE(0, old);
	ASSERT_LE(0, personality((unsigned long)old | READ_IMPLIES_EXEC));
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, 0);
	if (p != MAP_FAILED) {
		EXPECT_EQ(0, mapped_exec(p));
		EXPECT_EQ(-1, mprotect(p, len, PROT_READ | PROT_EXEC));
		EXPECT_EQ(0, mprotect(p, len, PROT_READ));
		EXPECT_EQ(0, mapped_exec(p));
		munmap(p, len);
	}
	personality((unsigned long)old);
	ASSERT_TRUE(p != MAP_FAILED) TH_LOG("mmap: %s", strerror(errno));
}

TEST_F(ioctl, unknown_command_is_enotty)
{
	EXPECT_EQ(ENOTTY, raw_ioctl(self->fd, _IO(PMUSER_IOC_MAGIC, 0x7f), NULL));
	EXPECT_EQ(ENOTTY, raw_ioctl(self->fd, _IOWR('x', 0x00, struct pmuser_info), &self->info));
}

TEST_F(ioctl, bad_pointer_is_efault)
{
	EXPECT_EQ(EFAULT, raw_ioctl(self->fd, PMUSER_IOC_INFO, NULL));
	EXPECT_EQ(EFAULT, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, (void *)8));
	EXPECT_EQ(EFAULT, raw_ioctl(self->fd, PMUSER_IOC_CPU_INFO, (void *)-4096L));
}

/* Below a struct's first version is EINVAL; above PAGE_SIZE is E2BIG. */
TEST_F(ioctl, short_size_is_einval_huge_is_e2big)
{
	struct pmuser_info info = { .size = PMUSER_INFO_SIZE_VER0 - 8 };
	static unsigned char huge[65536 + 8];
	long page = sysconf(_SC_PAGESIZE);

	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_INFO, &info));
	self->cfg.size = 4;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
	ASSERT_GE((long)sizeof(huge), page + 8);
	memset(huge, 0, sizeof(huge));
	*(uint32_t *)huge = (uint32_t)page + 8;
	EXPECT_EQ(E2BIG, raw_ioctl(self->fd, PMUSER_IOC_INFO, huge));
	*(uint32_t *)huge = (uint32_t)page;
	EXPECT_EQ(0, raw_ioctl(self->fd, PMUSER_IOC_INFO, huge));
}

/*
 * An older binary's struct (each ioctl's first version) is accepted, fields it lacks read as
 * zero, and the module writes back no more than its size.
 */
TEST_F(ioctl, older_smaller_struct_is_accepted)
{
	union {
		struct pmuser_info info;
		unsigned char bytes[sizeof(struct pmuser_info) + 64];
	} u;
	union {
		struct pmuser_cpu_info ci;
		unsigned char bytes[sizeof(struct pmuser_cpu_info) + 64];
	} v;
	unsigned int i;

	memset(&u, 0xa5, sizeof(u));
	memset(&u.info, 0, PMUSER_INFO_SIZE_VER0);
	u.info.size = PMUSER_INFO_SIZE_VER0;
	ASSERT_EQ(0, raw_ioctl(self->fd, PMUSER_IOC_INFO, &u));
	EXPECT_EQ(PMUSER_INFO_SIZE_VER0, u.info.size);
	EXPECT_EQ(PMUSER_ABI_VERSION, u.info.abi_version);
	for (i = PMUSER_INFO_SIZE_VER0; i < sizeof(u.bytes); i++)
		ASSERT_EQ(0xa5, u.bytes[i]) TH_LOG("byte %u written past the caller's size", i);

	memset(&v, 0x5a, sizeof(v));
	memset(&v.ci, 0, PMUSER_CPU_INFO_SIZE_VER0);
	v.ci.size = PMUSER_CPU_INFO_SIZE_VER0;
	ASSERT_EQ(0, raw_ioctl(self->fd, PMUSER_IOC_CPU_INFO, &v));
	EXPECT_EQ(1, v.ci.online);
	for (i = PMUSER_CPU_INFO_SIZE_VER0; i < sizeof(v.bytes); i++)
		ASSERT_EQ(0x5a, v.bytes[i]) TH_LOG("byte %u written past the caller's size", i);
}

/* A newer caller's larger struct is fine with a zero tail and E2BIG with a non-zero one. */
TEST_F(ioctl, larger_struct_needs_zero_tail)
{
	struct {
		struct pmuser_info info;
		uint64_t tail;
	} big;

	memset(&big, 0, sizeof(big));
	big.info.size = sizeof(big);
	EXPECT_EQ(0, raw_ioctl(self->fd, PMUSER_IOC_INFO, &big));
	EXPECT_EQ(PMUSER_ABI_VERSION, big.info.abi_version);
	/* size says how much the module filled: its own struct, not the caller's tail. */
	EXPECT_EQ(sizeof(big.info), big.info.size);
	memset(&big, 0, sizeof(big));
	big.info.size = sizeof(big);
	big.tail = 1;
	EXPECT_EQ(E2BIG, raw_ioctl(self->fd, PMUSER_IOC_INFO, &big));
}

TEST_F(ioctl, unknown_flags_and_reserved_are_einval)
{
	struct pmuser_info info = { .size = sizeof(info), .flags = 1 };
	struct pmuser_access acc = { .size = sizeof(acc), .flags = 0x80 };
	struct pmuser_reset rst = { .size = sizeof(rst), .flags = 2 };

	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_INFO, &info));
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_GRANT, &acc));
	acc.flags = 0;
	acc.reserved = 1;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_REVOKE, &acc));
	/* REVOKE drops a grant and all it covers: a grant's flags mean nothing there. */
	acc.reserved = 0;
	acc.flags = PMUSER_ACCESS_PROCESS;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_REVOKE, &acc));
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_RESET, &rst));
	self->cfg.flags |= 0x100;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
	self->cfg.flags &= ~0x100U;
	self->cfg.events[0].reserved = 1;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
	self->cfg.events[0].reserved = 0;
	self->cfg.reserved = 1;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
}

TEST_F(ioctl, bad_cpu_is_einval)
{
	struct pmuser_cpu_info ci = { .size = sizeof(ci), .cpu = self->info.nr_cpus };

	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CPU_INFO, &ci));
	ci.cpu = 0xffffffff;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CPU_INFO, &ci));
	/* A CPU set naming a CPU that cannot exist. */
	self->cfg.cpus[PMUSER_CPU_WORDS - 1] = 1ULL << 63;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
}

/*
 * VER1's fields: the flags follow the ID registers (the module reads PMUACR_EL1 only where
 * PMUv3p9 says it exists), and 32-bit kernels have none of them.
 */
TEST_F(ioctl, cpu_info_el0_fields_follow_the_pmu)
{
	const uint32_t known = PMUSER_CPU_EL0_PMUV3P9 | PMUSER_CPU_EL0_CYCLES_OFF_PMCCNTR |
			       PMUSER_CPU_EL0_ICNTR;
	struct pmuser_cpu_info ci;
	unsigned int cpu;
	bool p9;

	for (cpu = 0; cpu < self->info.nr_cpus; cpu++) {
		if (pmuser_device_cpu_info(self->fd, cpu, &ci) || !ci.online)
			continue;
		EXPECT_EQ(PMUSER_CPU_INFO_SIZE_VER1, ci.size);
		EXPECT_EQ(0, ci.reserved);
		EXPECT_EQ(0, ci.el0_flags & ~known);
		p9 = self->info.arch == PMUSER_ARCH_ARMV8_A64 && ci.pmu_version >= 9 &&
		     ci.pmu_version != 0xf;
		EXPECT_EQ(p9, !!(ci.el0_flags & PMUSER_CPU_EL0_PMUV3P9)) TH_LOG("cpu%u", cpu);
		if (!p9)
			EXPECT_EQ(0, ci.pmuacr) TH_LOG("cpu%u", cpu);
		if (self->info.arch != PMUSER_ARCH_ARMV8_A64)
			EXPECT_EQ(0, ci.el0_flags) TH_LOG("cpu%u", cpu);
	}
}

TEST_F(ioctl, bad_event_config)
{
	struct pmuser_cpu_info ci;
	struct pmuser_info after;
	unsigned int i;

	/* No privilege level, unknown privilege bit, event number out of range. */
	self->cfg.events[0].flags = 0;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
	self->cfg.events[0].flags = 0x4;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
	self->cfg.events[0].flags = COUNT_DEFAULT;
	self->cfg.events[0].event = 0x10000;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
	/* Nothing to hold; more slots than the ABI has; junk in an unused slot. */
	self->cfg.events[0].event = EV_INST_RETIRED;
	self->cfg.flags = 0;
	self->cfg.cycle_flags = 0;
	self->cfg.nr_events = 0;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
	self->cfg.nr_events = PMUSER_MAX_EVENTS + 1;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
	self->cfg.nr_events = 1;
	self->cfg.events[5].event = 0x11;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
	self->cfg.events[5].event = 0;
	/* More events than the CPU has counters. */
	ASSERT_EQ(0, pmuser_device_cpu_info(self->fd, 0, &ci));
	self->cfg.nr_events = ci.nr_counters + 1;
	for (i = 0; i < self->cfg.nr_events; i++) {
		self->cfg.events[i].event = EV_CPU_CYCLES;
		self->cfg.events[i].flags = COUNT_DEFAULT;
	}
	if (self->cfg.nr_events <= PMUSER_MAX_EVENTS)
		EXPECT_EQ(ENOSPC, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
	/* A common event the CPU's PMCEID says it lacks (QEMU implements very few). */
	if (ci.pmceid_source == PMUSER_PMCEID_HW && !(ci.pmceid[0] & (1ULL << 0x03))) {
		memset(self->cfg.events, 0, sizeof(self->cfg.events));
		self->cfg.nr_events = 1;
		self->cfg.events[0].event = 0x03;	/* L1D_CACHE_REFILL */
		self->cfg.events[0].flags = COUNT_DEFAULT;
		EXPECT_EQ(EOPNOTSUPP, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
	}
#if !defined(__aarch64__)
	/* 32-bit event numbers are 8 bits: perf would count 0x4004's low byte. */
	memset(self->cfg.events, 0, sizeof(self->cfg.events));
	self->cfg.nr_events = 1;
	self->cfg.events[0].event = 0x4004;
	self->cfg.events[0].flags = COUNT_DEFAULT;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
#endif
	/* None of it left anything held. */
	ASSERT_EQ(0, pmuser_device_info(self->fd, &after));
	EXPECT_EQ(0, after.nr_events);
	EXPECT_EQ(0, after.cycles_held);
}

#if !defined(PMUSER_FAST_V6)
TEST_F(ioctl, kernel_only_filter_is_accepted)
{
	self->cfg.events[0].flags = PMUSER_COUNT_KERNEL;
	EXPECT_EQ(0, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
}
#else
TEST_F(ioctl, arm1176_cannot_filter_modes)
{
	self->cfg.events[0].flags = PMUSER_COUNT_USER;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
}
#endif

TEST_F(ioctl, second_owner_is_ebusy_and_release_frees)
{
	int other = pmuser_device_open();

	ASSERT_LE(0, other);
	ASSERT_EQ(0, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, &self->cfg));
	EXPECT_EQ(-EBUSY, pmuser_device_configure(other, &self->cfg));
	EXPECT_EQ(-ENOENT, pmuser_device_release(other));
	EXPECT_EQ(-ENOENT, pmuser_device_reset(other));
	EXPECT_EQ(0, pmuser_device_release(self->fd));
	EXPECT_EQ(0, pmuser_device_configure(other, &self->cfg));
	close(other);	/* closing releases */
	EXPECT_EQ(0, pmuser_device_configure(self->fd, &self->cfg));
}

TEST_F(ioctl, bad_swinc)
{
	struct pmuser_swinc req = { .size = sizeof(req), .mask = 1, .count = 0 };

	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_SWINC, &req));
	req.count = (1U << 20) + 1;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_SWINC, &req));
	req.count = 1;
	req.mask = 1U << PMUSER_HW_CYCLE;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_SWINC, &req));
	req.mask = 1;
	req.reserved = 1;
	EXPECT_EQ(EINVAL, raw_ioctl(self->fd, PMUSER_IOC_SWINC, &req));
}

/*
 * SWINC changes counts: only the file that holds the configuration may. An out field left
 * over from an earlier reply is ignored.
 */
TEST_F(ioctl, swinc_is_the_holders_only)
{
	static const uint32_t ev[] = { EV_SW_INCR };
	struct pmuser_swinc req = { .size = sizeof(req), .count = 3, .cpu = 12345 };
	struct pmuser_config cfg;
	int other, ret;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_thread_pin(0));
	config_events(&cfg, 0, ev, 1);
	cfg.events[0].flags = PMUSER_COUNT_MASK;
	ASSERT_EQ(0, pmuser_device_configure(self->fd, &cfg));
	req.mask = 1U << cfg.events[0].hw_counter;
	ret = raw_ioctl(self->fd, PMUSER_IOC_SWINC, &req);
	if (ret == EOPNOTSUPP)
		SKIP(return, "no software increment on this PMU");
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0U, req.cpu);
	other = pmuser_device_open();
	ASSERT_LE(0, other);
	EXPECT_EQ(ENOENT, raw_ioctl(other, PMUSER_IOC_SWINC, &req));
	close(other);
}

/*
 * SWINC writes only counters that hold this configuration's SW_INCR events: with none among
 * the events held, a mask naming every counter is refused and another perf user's pinned
 * SW_INCR event on the CPU (kernel mode counted, so it would see the writes) stays at 0.
 */
TEST_F(ioctl, swinc_never_writes_another_users_counter)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_RAW, .size = sizeof(attr),
					.config = EV_SW_INCR, .pinned = 1 };
	struct pmuser_swinc req = { .size = sizeof(req), .count = 1000 };
	struct pmuser_cpu_info ci;
	uint64_t before = 0, after = 0;
	int pfd;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_thread_pin(0));
	ASSERT_EQ(0, pmuser_device_cpu_info(self->fd, 0, &ci));
	ASSERT_EQ(0, pmuser_device_configure(self->fd, &self->cfg));
	pfd = perf_open(&attr, -1, 0);
	ASSERT_LE(0, pfd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(sizeof(before), read(pfd, &before, sizeof(before)));
	req.mask = (1u << ci.nr_counters) - 1;
	EXPECT_EQ(EBUSY, raw_ioctl(self->fd, PMUSER_IOC_SWINC, &req));
	ASSERT_EQ(sizeof(after), read(pfd, &after, sizeof(after)));
	EXPECT_EQ(before, after);
	close(pfd);
}

/*
 * CPU_CYCLES as an event beside the cycle counter: perf would put it on the cycle counter
 * when free; pmuser takes that first, so the event gets event counter 0.
 */
TEST_F(ioctl, cpu_cycles_event_beside_the_cycle_counter)
{
	static const uint32_t ev[] = { EV_CPU_CYCLES };
	struct pmuser_config cfg;

	REQUIRE_COUNTING();
	config_events(&cfg, 1, ev, 1);
	cfg.size = sizeof(cfg);
	ASSERT_EQ(0, pmuser_device_configure(self->fd, &cfg));
	EXPECT_EQ(0U, cfg.events[0].hw_counter);
	EXPECT_EQ(0, pmuser_device_release(self->fd));
}

/*
 * A CONFIGURE whose reply cannot be written (the struct is in a read-only page) fails with
 * EFAULT and holds nothing: another file may configure right after.
 */
TEST_F(ioctl, configure_whose_reply_faults_holds_nothing)
{
	long page = sysconf(_SC_PAGESIZE);
	struct pmuser_config *ro;
	struct pmuser_info info;
	int other;

	REQUIRE_COUNTING();
	ro = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(ro != MAP_FAILED);
	memcpy(ro, &self->cfg, sizeof(*ro));
	ASSERT_EQ(0, mprotect(ro, page, PROT_READ));
	EXPECT_EQ(EFAULT, raw_ioctl(self->fd, PMUSER_IOC_CONFIGURE, ro));
	ASSERT_EQ(0, pmuser_device_info(self->fd, &info));
	EXPECT_EQ(0U, info.nr_events + info.cycles_held);
	other = pmuser_device_open();
	ASSERT_LE(0, other);
	EXPECT_EQ(0, pmuser_device_configure(other, &self->cfg));
	close(other);
	munmap(ro, page);
}

/*
 * REVOKE leaves the register alone for a thread perf grants reads for its own rdpmc event:
 * the thread's own self-monitoring still reads the cycle counter without a trap.
 */
TEST_F(ioctl, revoke_leaves_perfs_own_reads)
{
#if defined(__aarch64__)
	struct perf_event_attr attr = { .type = PERF_TYPE_HARDWARE, .size = sizeof(attr),
					.config = PERF_COUNT_HW_CPU_CYCLES, .config1 = 2,
					.exclude_kernel = 1, .exclude_hv = 1 };
	int pfd;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_thread_pin(0));
	sigill_count_install();
	attr.config = hw_config_on(PERF_COUNT_HW_CPU_CYCLES, 0);
	pfd = perf_open(&attr, 0, -1);
	ASSERT_LE(0, pfd) TH_LOG("perf_event_open: %s", strerror(errno));
	sched_yield();
	if (read_traps(PMUSER_HW_CYCLE))
		SKIP(close(pfd); return, "perf grants no user reads here (perf_user_access)");
	ASSERT_EQ(0, pmuser_device_grant(self->fd, 0));
	ASSERT_EQ(0, pmuser_device_revoke(self->fd, 0));
	EXPECT_EQ(0, read_traps(PMUSER_HW_CYCLE));
	close(pfd);
#else
	SKIP(return, "perf grants user reads on arm64 only");
#endif
}

/*
 * GRANT and REVOKE, CONFIGURE and CPU hotplug, each in a loop of its own for 20 s: every loop
 * keeps moving. A grant's notifier reference takes cpus_read_lock() inside, which CONFIGURE
 * holds while it waits for the grants' lock: taken under that lock, the three deadlock.
 */
static volatile int churn_stop;
static volatile unsigned long churn_done[3];

static void *churn_grants(void *arg)
{
	int fd = pmuser_device_open();

	for (; !churn_stop; churn_done[0]++) {
		pmuser_device_grant(fd, 0);
		pmuser_device_revoke(fd, 0);
	}
	close(fd);
	return arg;
}

static void *churn_configures(void *arg)
{
	static const uint32_t ev[] = { EV_INST_RETIRED, EV_SW_INCR };
	struct pmuser_config cfg;
	int fd = pmuser_device_open();

	for (; !churn_stop; churn_done[1]++) {
		config_events(&cfg, 1, ev, 1 + (churn_done[1] & 1));
		pmuser_device_configure(fd, &cfg);
	}
	close(fd);
	return arg;
}

static void *churn_hotplug(void *arg)
{
	for (; !churn_stop; churn_done[2]++)
		if (set_cpu_online(1, churn_done[2] & 1))
			break;
	set_cpu_online(1, true);
	return arg;
}

TEST_F_TIMEOUT(ioctl, grant_configure_and_hotplug_never_deadlock, 120)
{
	void *(*const fn[3])(void *) = { churn_grants, churn_configures, churn_hotplug };
	unsigned long last[3] = { 0 };
	unsigned int i, secs, still = 0;
	pthread_t t[3];

	REQUIRE_COUNTING();
	if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "CPU 1 cannot go offline here");
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, fn[i], NULL));
	for (secs = 0; secs < 20 && still < 10; secs++) {
		bool moved = false;

		sleep(1);
		for (i = 0; i < 3; i++) {
			moved |= churn_done[i] != last[i];
			last[i] = churn_done[i];
		}
		still = moved ? 0 : still + 1;
	}
	TH_LOG("%u s: %lu grants, %lu configures, %lu hotplug steps", secs, churn_done[0],
	       churn_done[1], churn_done[2]);
	ASSERT_GT(10U, still) TH_LOG("no loop moved for %u s", still);
	churn_stop = 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	EXPECT_LT(0UL, churn_done[2]);
}

TEST_HARNESS_MAIN
