// SPDX-License-Identifier: MIT
/*
 * The privilege model (pmuser(7), "Privilege"), tried as an unprivileged user: uid 1000 in the
 * device's group and outside it, at perf_event_paranoid -1, 2 (upstream, Raspberry Pi OS) and 3
 * (Debian), with the module loaded plainly and with group_user_counting=1, while root holds
 * user-only and kernel-mode counters. Nobody reads what perf would refuse them: CPU-wide
 * counting needs perf's rule or the group opt-in, kernel-mode counts need perf's kernel rule
 * for every reader, a grant that can write the PMU needs CAP_PERFMON, a setuid exec ends a
 * grant, an exited thread's grant is freed, and RELEASE leaves nothing in the page.
 */
#include <grp.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "pmuser_test.h"

#define USER_ID		1000
#define GROUP_ID	990
#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"
#define HELPER		"/tmp/pmuser-priv-helper"
#define HELPER_ENV	"PMUSER_PRIV_HELPER"
/* The ARM1176 cannot filter by mode: every configuration counts kernel mode there. */
#if defined(PMUSER_FAST_V6)
#define COUNTS_KERNEL_ALWAYS	1
#else
#define COUNTS_KERNEL_ALWAYS	0
#endif

/*
 * The setuid helper: this binary run again as root from uid 1000 with HELPER_ENV naming a
 * hardware counter. It exits 0 if an inline read of it traps, 3 if it reads.
 */
__attribute__((constructor)) static void priv_helper(void)
{
	const char *hw = getenv(HELPER_ENV);

	if (!hw)
		return;
	sigill_count_install();
	_exit(read_traps((unsigned int)strtoul(hw, NULL, 0)) ? 0 : 3);
}

/* pmuser reloaded with extra parameters, its node given to GROUP_ID as the udev rule does. */
static int module_reload_grouped(const char *extra)
{
	int ret = module_reload(extra);

	if (ret)
		return ret;
	if (chown(PMUSER_DEVICE, 0, GROUP_ID) || chmod(PMUSER_DEVICE, 0660))
		return -errno;
	return 0;
}

static int paranoid_set(int level)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", level);
	return sysctl_write(PARANOID, v);
}

/* What uid 1000 got, filled in by a child and read by the test. */
struct probe {
	int open_err;
	uint32_t rights;
	uint32_t user_writes;
	int map_err;
	int cfg_user_err;
	int cfg_kernel_err;
	int grant_err;
	int read_traps;		/* -1: no read tried */
	int lib_backend;	/* -1: library not tried */
	char why[256];
};

enum probe_mode {
	PROBE_OWN,		/* configure its own counters */
	PROBE_ROOTS,		/* read the counters root holds (hw in probe_arg) */
	PROBE_LIBRARY,		/* also open a counter set through the library (auto) */
};

struct probe_arg {
	enum probe_mode mode;
	unsigned int hw;
};

static void probe_run(const struct probe_arg *a, struct probe *p)
{
	struct pmuser_config cfg = { .size = sizeof(cfg) };
	struct pmuser_info info = { 0 };
	void *page;
	int fd;

	p->read_traps = -1;
	p->lib_backend = -1;
	fd = pmuser_device_open();
	if (fd < 0) {
		p->open_err = -fd;
		return;
	}
	if (!pmuser_device_info(fd, &info)) {
		p->rights = info.rights;
		p->user_writes = info.access_flags & PMUSER_INFO_USER_WRITES;
	}
	page = mmap(NULL, info.page_size, PROT_READ, MAP_SHARED, fd, 0);
	p->map_err = page == MAP_FAILED ? errno : 0;
	if (page != MAP_FAILED)
		munmap(page, info.page_size);
	if (a->mode == PROBE_OWN || a->mode == PROBE_LIBRARY) {
		config_events(&cfg, 1, (const uint32_t[]){ EV_INST_RETIRED }, 1);
		cfg.cycle_flags = cfg.events[0].flags = COUNT_DEFAULT;
		p->cfg_user_err = -pmuser_device_configure(fd, &cfg);
		if (!p->cfg_user_err)
			pmuser_device_release(fd);
		config_events(&cfg, 1, (const uint32_t[]){ EV_INST_RETIRED }, 1);
		cfg.cycle_flags = cfg.events[0].flags = PMUSER_COUNT_MASK;
		p->cfg_kernel_err = -pmuser_device_configure(fd, &cfg);
		if (!p->cfg_kernel_err)
			pmuser_device_release(fd);
		/* Counters of its own to read, where it may hold them. */
		config_events(&cfg, 1, (const uint32_t[]){ EV_INST_RETIRED }, 1);
		cfg.cycle_flags = cfg.events[0].flags = COUNT_DEFAULT;
		if (pmuser_device_configure(fd, &cfg) == 0)
			p->read_traps = 0;
	}
	p->grant_err = -pmuser_device_grant(fd, 0);
	if (!p->grant_err && (a->mode == PROBE_ROOTS || p->read_traps == 0)) {
		sigill_count_install();
		p->read_traps = read_traps(a->mode == PROBE_ROOTS ? a->hw :
					   cfg.events[0].hw_counter);
	}
	close(fd);
	if (a->mode == PROBE_LIBRARY) {
		struct pmuser_counters_attr attr;
		struct pmuser_counters *c;

		pmuser_counters_attr_init(&attr);
		attr.nr_events = 1;
		attr.events[0].event = EV_INST_RETIRED;
		if (!pmuser_counters_open(&attr, &c, p->why, sizeof(p->why))) {
			p->lib_backend = pmuser_counters_backend(c);
			pmuser_counters_close(c);
		}
	}
}

/* Runs the probe as uid USER_ID, in the device's group or not; the child's exit status. */
static int probe_as_user(bool member, const struct probe_arg *a, struct probe *out)
{
	struct probe *p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	gid_t gid = GROUP_ID;
	int status = -1;
	pid_t pid;

	if (p == MAP_FAILED)
		return -1;
	memset(p, 0, sizeof(*p));
	pid = fork();
	if (!pid) {
		if (setgroups(member ? 1 : 0, &gid) || setgid(USER_ID) || setuid(USER_ID))
			_exit(125);
		probe_run(a, p);
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		*out = *p;
	munmap(p, sizeof(*p));
	return status;
}

/*
 * Becomes uid USER_ID in the device's group; with perfmon, keeping CAP_PERFMON alone (what a
 * grant on a PMU whose user access writes it needs). 0 or -1.
 */
static int become_user(bool perfmon)
{
	struct { uint32_t version; int pid; } hdr = { 0x20080522, 0 };
	struct { uint32_t effective, permitted, inheritable; } data[2] = { 0 };
	gid_t gid = GROUP_ID;

	if (perfmon && prctl(PR_SET_KEEPCAPS, 1L, 0L, 0L, 0L))
		return -1;
	if (setgroups(1, &gid) || setgid(USER_ID) || setuid(USER_ID))
		return -1;
	if (!perfmon)
		return 0;
	/* CAP_PERFMON is capability 38: bit 6 of the second word. */
	data[1].effective = data[1].permitted = 1u << 6;
	return syscall(__NR_capset, &hdr, data) ? -1 : 0;
}

static bool user_writes(int fd)
{
	struct pmuser_info info;

	return !pmuser_device_info(fd, &info) && info.access_flags & PMUSER_INFO_USER_WRITES;
}

FIXTURE(priv) {
	int fd;
};

FIXTURE_SETUP(priv)
{
	self->fd = -1;
	ASSERT_EQ(0, module_reload_grouped("")) TH_LOG("reloading pmuser");
}

FIXTURE_TEARDOWN(priv)
{
	if (self->fd >= 0)
		close(self->fd);
	paranoid_set(-1);
	module_reload("");
	chown(PMUSER_DEVICE, 0, 0);
	chmod(PMUSER_DEVICE, 0600);
}

/*
 * Without the opt-in, the device's group is only the right to open it: at paranoid 2 and 3
 * perf refuses uid 1000 CPU-wide counting, and so does pmuser (CONFIGURE, GRANT and the page
 * alike). The library then counts through perf per task, saying why. At -1 perf allows it.
 */
TEST_F(priv, group_alone_gives_what_perf_gives)
{
	static const int levels[] = { -1, 2, 3 };
	struct probe_arg a = { .mode = PROBE_LIBRARY };
	unsigned int i;
	struct probe p;

	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		ASSERT_EQ(0, paranoid_set(levels[i]));
		ASSERT_EQ(0, probe_as_user(true, &a, &p));
		TH_LOG("paranoid %d: rights 0x%x map %d configure %d/%d grant %d backend %d (%s)",
		       levels[i], p.rights, p.map_err, p.cfg_user_err, p.cfg_kernel_err,
		       p.grant_err, p.lib_backend, p.why);
		EXPECT_EQ(0, p.open_err);
		EXPECT_EQ(0U, p.rights & PMUSER_RIGHT_BY_GROUP);
		if (levels[i] < 0) {
			/* 6.1 exports no kernel-mode check: only CAP_PERFMON gives it there. */
			bool kernel = p.rights & PMUSER_RIGHT_KERNEL;

			EXPECT_EQ(PMUSER_RIGHT_COUNT, p.rights & PMUSER_RIGHT_COUNT);
			EXPECT_EQ(0, p.map_err);
			EXPECT_EQ(COUNTS_KERNEL_ALWAYS && !kernel ? EACCES : 0, p.cfg_user_err);
			EXPECT_EQ(kernel ? 0 : EACCES, p.cfg_kernel_err);
			EXPECT_EQ(p.user_writes ? EACCES : 0, p.grant_err);
			continue;
		}
		EXPECT_EQ(0U, p.rights & (PMUSER_RIGHT_COUNT | PMUSER_RIGHT_KERNEL));
		EXPECT_EQ(EACCES, p.map_err);
		EXPECT_EQ(EACCES, p.cfg_user_err);
		EXPECT_EQ(EACCES, p.cfg_kernel_err);
		EXPECT_EQ(EACCES, p.grant_err);
		EXPECT_NE(PMUSER_BACKEND_MODULE, p.lib_backend);
		EXPECT_TRUE(strstr(p.why, "CPU-wide") != NULL) TH_LOG("why: %s", p.why);
	}
	/* Outside the group the device stays closed. */
	ASSERT_EQ(0, probe_as_user(false, &a, &p));
	EXPECT_EQ(EACCES, p.open_err);
}

/*
 * group_user_counting=1: a member counts and reads user mode CPU-wide at paranoid 2 and 3, as
 * perf's perf_users group with CAP_PERFMON would, but never kernel mode; a grant that would
 * also write the PMU (PMUv2, ARM1176) still needs CAP_PERFMON. Outside the group nothing.
 */
TEST_F(priv, group_opt_in_counts_user_mode_only)
{
	static const int levels[] = { 2, 3 };
	struct probe_arg a = { .mode = PROBE_OWN };
	unsigned int i;
	struct probe p;

	ASSERT_EQ(0, module_reload_grouped("group_user_counting=1"));
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		ASSERT_EQ(0, paranoid_set(levels[i]));
		ASSERT_EQ(0, probe_as_user(true, &a, &p));
		TH_LOG("paranoid %d: rights 0x%x map %d configure %d/%d grant %d traps %d",
		       levels[i], p.rights, p.map_err, p.cfg_user_err, p.cfg_kernel_err,
		       p.grant_err, p.read_traps);
		EXPECT_EQ(PMUSER_RIGHT_COUNT | PMUSER_RIGHT_BY_GROUP,
			  p.rights & (PMUSER_RIGHT_COUNT | PMUSER_RIGHT_BY_GROUP | PMUSER_RIGHT_KERNEL));
		EXPECT_EQ(0, p.map_err);
		/* The ARM1176 counts every mode: nothing is user-only there. */
		EXPECT_EQ(COUNTS_KERNEL_ALWAYS ? EACCES : 0, p.cfg_user_err);
		EXPECT_EQ(EACCES, p.cfg_kernel_err);
		if (p.user_writes) {
			EXPECT_EQ(EACCES, p.grant_err);
		} else {
			EXPECT_EQ(0, p.grant_err);
			EXPECT_EQ(0, p.read_traps);
		}
	}
	ASSERT_EQ(0, probe_as_user(false, &a, &p));
	EXPECT_EQ(EACCES, p.open_err);
}

/*
 * Root's kernel-mode counts are not a member's to read: GRANT and the page are refused while
 * they are in force, and a configuration counting kernel mode is refused while a member that
 * may not count it has the page mapped.
 */
TEST_F(priv, kernel_counts_only_for_kernel_readers)
{
	struct pmuser_config cfg = { .size = sizeof(cfg) };
	struct probe_arg a = { .mode = PROBE_ROOTS };
	int sync[2], go[2], status;
	struct probe p;
	pid_t pid;
	char c;

#if defined(PMUSER_FAST_V6)
	SKIP(return, "the ARM1176 counts every mode: no configuration is user-only");
#endif
	ASSERT_EQ(0, module_reload_grouped("group_user_counting=1"));
	ASSERT_EQ(0, paranoid_set(2));
	self->fd = pmuser_device_open();
	ASSERT_LE(0, self->fd);
	config_events(&cfg, 1, (const uint32_t[]){ EV_INST_RETIRED }, 1);
	cfg.cycle_flags = cfg.events[0].flags = PMUSER_COUNT_MASK;
	ASSERT_EQ(0, pmuser_device_configure(self->fd, &cfg));
	a.hw = cfg.events[0].hw_counter;
	ASSERT_EQ(0, probe_as_user(true, &a, &p));
	EXPECT_EQ(EACCES, p.grant_err);
	EXPECT_EQ(EACCES, p.map_err);
	EXPECT_EQ(-1, p.read_traps);

	/* User-only: the member reads root's counters (where a grant cannot write the PMU). */
	config_events(&cfg, 1, (const uint32_t[]){ EV_INST_RETIRED }, 1);
	cfg.cycle_flags = cfg.events[0].flags = PMUSER_COUNT_USER;
	ASSERT_EQ(0, pmuser_device_configure(self->fd, &cfg));
	a.hw = cfg.events[0].hw_counter;
	ASSERT_EQ(0, probe_as_user(true, &a, &p));
	EXPECT_EQ(0, p.map_err);
	EXPECT_EQ(user_writes(self->fd) ? EACCES : 0, p.grant_err);
	if (!p.grant_err)
		EXPECT_EQ(0, p.read_traps);

	/* A member holding the page open keeps kernel-mode counting away until it closes it. */
	ASSERT_EQ(0, pipe(sync));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		gid_t gid = GROUP_ID;
		struct pmuser_info info;
		int fd;

		if (setgroups(1, &gid) || setgid(USER_ID) || setuid(USER_ID))
			_exit(125);
		fd = pmuser_device_open();
		if (fd < 0 || pmuser_device_info(fd, &info) ||
		    mmap(NULL, info.page_size, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED)
			_exit(1);
		write(sync[1], "r", 1);
		read(go[0], &c, 1);
		_exit(0);
	}
	ASSERT_EQ(1, read(sync[0], &c, 1));
	cfg.cycle_flags = cfg.events[0].flags = PMUSER_COUNT_MASK;
	EXPECT_EQ(-EBUSY, pmuser_device_configure(self->fd, &cfg));
	write(go[1], "g", 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	EXPECT_EQ(0, pmuser_device_configure(self->fd, &cfg));
}

/* After RELEASE the next opener's page shows nothing of what the last holder counted. */
TEST_F(priv, release_leaves_nothing_in_the_page)
{
	struct pmuser_config cfg = { .size = sizeof(cfg) };
	struct pmuser_info info;
	const struct pmuser_page_cpu *pc;
	unsigned int cpu, slot;
	int fd;
	void *page;

	self->fd = pmuser_device_open();
	ASSERT_LE(0, self->fd);
	config_events(&cfg, 1, (const uint32_t[]){ EV_INST_RETIRED }, 1);
	ASSERT_EQ(0, pmuser_device_configure(self->fd, &cfg));
	spin2(100000);
	ASSERT_EQ(0, pmuser_device_cpu_info(self->fd, (unsigned int)sched_getcpu(),
					    &(struct pmuser_cpu_info){ 0 }));
	ASSERT_EQ(0, pmuser_device_release(self->fd));
	fd = pmuser_device_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pmuser_device_info(fd, &info));
	page = mmap(NULL, info.page_size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_TRUE(page != MAP_FAILED);
	for (cpu = 0; cpu < info.nr_cpus; cpu++) {
		pc = (const void *)((const char *)page + cpu * info.page_cpu_stride);
		for (slot = 0; slot < PMUSER_PAGE_SLOTS; slot++) {
			EXPECT_EQ(PMUSER_HW_NONE, pc->slot[slot].hw);
			EXPECT_EQ(0ULL, pc->slot[slot].count) TH_LOG("cpu %u slot %u", cpu, slot);
			EXPECT_EQ(0ULL, pc->slot[slot].base);
		}
	}
	munmap(page, info.page_size);
	close(fd);
}

/*
 * A setuid exec ends a grant, as it ends perf's monitoring of the task: the thread's own
 * grant, and one a child inherited through PMUSER_ACCESS_PROCESS. The helper is this binary,
 * setuid root, reading inline right after the exec. Where a grant can write the PMU, uid 1000
 * keeps CAP_PERFMON to be granted at all.
 */
TEST_F(priv, setuid_exec_ends_a_grant)
{
	struct pmuser_config cfg = { .size = sizeof(cfg) };
	static const uint32_t flags[] = { 0, PMUSER_ACCESS_PROCESS };
	char hw[16], self_path[256];
	unsigned int i;
	bool perfmon;
	ssize_t n;

	REQUIRE_COUNTING();
	self->fd = pmuser_device_open();
	ASSERT_LE(0, self->fd);
	config_events(&cfg, 1, (const uint32_t[]){ EV_INST_RETIRED }, 1);
	ASSERT_EQ(0, pmuser_device_configure(self->fd, &cfg));
	snprintf(hw, sizeof(hw), "%u", cfg.events[0].hw_counter);
	n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	ASSERT_LT(0, n);
	self_path[n] = '\0';
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "cp '%s' " HELPER " && chown 0:0 " HELPER
			 " && chmod 4755 " HELPER, self_path);
		ASSERT_EQ(0, system(cmd));
	}
	perfmon = user_writes(self->fd);
	for (i = 0; i < 2; i++) {
		int status;
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid) {
			int fd;

			if (become_user(perfmon))
				_exit(125);
			/* Kept across the exec: the grant's file stays open in the new program. */
			fd = open(PMUSER_DEVICE, O_RDWR);
			sigill_count_install();
			if (fd < 0 || pmuser_device_grant(fd, flags[i]))
				_exit(10);
			if (read_traps(cfg.events[0].hw_counter))
				_exit(11);
			setenv(HELPER_ENV, hw, 1);
			if (flags[i] & PMUSER_ACCESS_PROCESS) {
				pid_t child = fork();

				if (!child) {
					execl(HELPER, HELPER, (char *)NULL);
					_exit(12);
				}
				if (child < 0 || waitpid(child, &status, 0) != child)
					_exit(13);
				_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 14);
			}
			execl(HELPER, HELPER, (char *)NULL);
			_exit(12);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		/* 0: the setuid program's read trapped; 3: it read; 1x: the setup failed. */
		EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("grant flags 0x%x", flags[i]);
	}
	unlink(HELPER);
}

/*
 * arm64: perf lets EL0 read only with kernel.perf_user_access=1. Without it a grant could not
 * work, so GRANT says so (EPERM), whether or not counters are held on the CPU.
 */
TEST_F(priv, grant_refused_while_perf_refuses_user_reads)
{
	struct pmuser_config cfg;

#if !defined(__aarch64__)
	SKIP(return, "perf_user_access is arm64's");
#endif
	self->fd = pmuser_device_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, sysctl_write("/proc/sys/kernel/perf_user_access", "0"));
	EXPECT_EQ(-EPERM, pmuser_device_grant(self->fd, 0));
	config_events(&cfg, 1, (const uint32_t[]){ EV_INST_RETIRED }, 1);
	EXPECT_EQ(0, pmuser_device_configure(self->fd, &cfg));
	EXPECT_EQ(-EPERM, pmuser_device_grant(self->fd, 0));
	ASSERT_EQ(0, sysctl_write("/proc/sys/kernel/perf_user_access", "1"));
	EXPECT_EQ(0, pmuser_device_release(self->fd));
	EXPECT_EQ(0, pmuser_device_grant(self->fd, 0));
	sigill_count_install();
	EXPECT_EQ(0, pmuser_device_configure(self->fd, &cfg));
	EXPECT_EQ(0, read_traps(cfg.events[0].hw_counter));
}

#define GRANT_THREADS	10000

static void *grant_and_exit(void *arg)
{
	int fd = *(int *)arg;

	return (void *)(intptr_t)pmuser_device_grant(fd, 0);
}

static long slab_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* Every exited thread's grant is freed: kernel memory follows the live threads. */
/* PREEMPT_RT frees each perf event after an RCU grace period: 10,000 take a while there. */
TEST_F_TIMEOUT(priv, exited_threads_keep_no_grant, 240)
{
	long before, after;
	unsigned int i, failed = 0;
	int tries;

	self->fd = pmuser_device_open();
	ASSERT_LE(0, self->fd);
	/* Warm up the caches the grants use, then measure. */
	for (i = 0; i < 200; i++) {
		pthread_t t;
		void *ret;

		ASSERT_EQ(0, pthread_create(&t, NULL, grant_and_exit, &self->fd));
		pthread_join(t, &ret);
	}
	usleep(200000);
	before = slab_kb();
	for (i = 0; i < GRANT_THREADS; i++) {
		pthread_t t;
		void *ret;

		ASSERT_EQ(0, pthread_create(&t, NULL, grant_and_exit, &self->fd));
		pthread_join(t, &ret);
		failed += ret != NULL;
	}
	EXPECT_EQ(0U, failed);
	/* The reaper and RCU free them a moment after the threads are gone. */
	for (tries = 0, after = slab_kb(); tries < 50 && after - before > 2048; tries++) {
		usleep(100000);
		after = slab_kb();
	}
	ksft_print_msg("Slab before %ld kB, after %d threads' grants %ld kB\n", before,
		       GRANT_THREADS, after);
	/* Kept, the grants would hold about 7 KB each: 70 MB. */
	EXPECT_GT(4096, after - before);
}

TEST_HARNESS_MAIN
