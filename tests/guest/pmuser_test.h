/* SPDX-License-Identifier: MIT */
/* Helpers shared by the in-guest tests. */
#ifndef PMUSER_TEST_H
#define PMUSER_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "pmuser.h"
#include "pmuser_now.h"

/* Architectural event numbers used by the tests (ARMv8 and ARMv7 agree on these). */
#define EV_SW_INCR	0x00
#define EV_INST_RETIRED	0x08
#define EV_CPU_CYCLES	0x11

/*
 * Context switches of the calling thread so far. Counters are CPU-bound: a window in which
 * the thread was switched out also counts whatever ran meanwhile, so exact-count checks use
 * only windows without a switch.
 */
static inline unsigned long thread_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* Writes a sysctl: 0 or -errno. */
static inline int sysctl_write(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		return -errno;
	if (fputs(val, f) < 0)
		ret = -EIO;
	if (fclose(f))
		ret = -errno;
	return ret;
}

/*
 * 32-bit ARM kernels hand the FP unit over lazily: after a context switch the thread's next
 * VFP instruction traps, and QEMU counts the trapping instruction as retired in user mode. A
 * window that must count exactly touches the FP unit just before it, so the trap lands outside.
 */
static inline void fp_touch(void)
{
	volatile double x = 1.0;

	x = x + 1.0;
}

/*
 * Counting traps: the SIGILL handler counts per thread and steps over the trapping read (one
 * 4-byte instruction in A64, ARM and Thumb-2 alike), so a reader keeps going and reports how
 * many reads trapped instead of dying on the first.
 */
static __thread volatile unsigned long sigill_count;

static void sigill_skip(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	sigill_count++;
#if defined(__aarch64__)
	uc->uc_mcontext.pc += 4;
#elif defined(__arm__)
	uc->uc_mcontext.arm_pc += 4;
#else
	(void)uc;
#endif
}

static inline void sigill_count_install(void)
{
	struct sigaction sa = { .sa_sigaction = sigill_skip, .sa_flags = SA_SIGINFO };

	sigaction(SIGILL, &sa, NULL);
}

/* Does an inline read of counter hw trap on this thread, now? */
static inline int read_traps(unsigned int hw)
{
	unsigned long before = sigill_count;

	pmuser_counter_read_serial(hw);
	return sigill_count != before;
}

static inline int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, -1, 0);
}

/* How many perf events process pid has open; the first max of their descriptors in fds. */
static inline int perf_fds(pid_t pid, int *fds, int max)
{
	char dir[64], path[320], link[64];
	struct dirent *d;
	int n = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	dp = opendir(dir);
	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		ssize_t len;

		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (strcmp(link, "anon_inode:[perf_event]"))
			continue;
		if (n < max)
			fds[n] = atoi(d->d_name);
		n++;
	}
	closedir(dp);
	return n;
}

/* Exactly two instructions per iteration. */
static inline void spin2(unsigned long n)
{
#if defined(__aarch64__)
	__asm__ __volatile__("1:\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
	__asm__ __volatile__("1:\tsubs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
#endif
}

/*
 * QEMU's -icount counts instructions globally and its cycle counter follows the virtual
 * clock, which any other vCPU's instructions also advance while this one waits its turn.
 * Tools whose windows must be exact run with only CPU 0 online: other_cpus_set(0), then 1.
 */
static inline void other_cpus_set(int online)
{
	unsigned int cpu;
	char path[64];
	FILE *f;

	for (cpu = 1; cpu < 64; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
		f = fopen(path, "w");
		if (!f)
			continue;
		fputs(online ? "1" : "0", f);
		fclose(f);
	}
}

/* Counter width as a mask, for modular deltas of raw reads. */
static inline uint64_t width_mask(unsigned int bits)
{
	return bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
}

/* ARM1176 cannot filter by mode: pmuser refuses anything but counting everywhere there. */
#if defined(PMUSER_FAST_V6)
#define COUNT_DEFAULT PMUSER_COUNT_MASK
#else
#define COUNT_DEFAULT PMUSER_COUNT_USER
#endif

/* Takes CPU cpu offline (on 0) or online: 0, or -errno. */
static inline int set_cpu_online(unsigned int cpu, int on)
{
	char path[64];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, on ? "1" : "0", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

/* CPU cpu's PMU as the module reports it, through a device file of its own: 0 or -errno. */
static inline int cpu_info_of(unsigned int cpu, struct pmuser_cpu_info *ci)
{
	int fd = pmuser_device_open(), ret;

	if (fd < 0)
		return fd;
	ret = pmuser_device_cpu_info(fd, cpu, ci);
	close(fd);
	return ret;
}

/* Fill cfg to hold the cycle counter (optional) and the given events, user mode if possible. */
static inline void config_events(struct pmuser_config *cfg, int cycles, const uint32_t *ev,
				 unsigned int n)
{
	unsigned int i;

	memset(cfg, 0, sizeof(*cfg));
	if (cycles) {
		cfg->flags = PMUSER_CONFIG_CYCLES;
		cfg->cycle_flags = COUNT_DEFAULT;
	}
	cfg->nr_events = n;
	for (i = 0; i < n; i++) {
		cfg->events[i].event = ev[i];
		cfg->events[i].flags = COUNT_DEFAULT;
	}
}

enum loop_verdict { LOOP_INEXACT, LOOP_EXACT, LOOP_SHARED };

/*
 * loop_delta(hw, n): counter hw's delta over exactly this sequence, in one asm block so the
 * compiler adds nothing: [read A] then n iterations of a two-instruction loop, a barrier,
 * [read B]. Under icount, INST_RETIRED gives exactly 2n + LOOP_OVERHEAD: read A itself and
 * the barrier before read B.
 */
#if defined(__aarch64__)
#define LOOP_OVERHEAD 2
#define LOOP_ASM(reg, n, a, b)						\
	__asm__ __volatile__("isb\n\tmrs %[a], " #reg "\n"		\
			     "1:\tsubs %[n], %[n], #1\n\tb.ne 1b\n"	\
			     "\tisb\n\tmrs %[b], " #reg			\
			     : [a] "=&r"(a), [b] "=&r"(b), [n] "+r"(n) : : "cc")
#define LOOP_CASE(i) case i: LOOP_ASM(pmevcntr##i##_el0, n, a, b); break
static inline uint64_t loop_delta(unsigned int hw, uint64_t n)
{
	uint64_t a = 0, b = 0;

	switch (hw) {
	LOOP_CASE(0); LOOP_CASE(1); LOOP_CASE(2); LOOP_CASE(3); LOOP_CASE(4);
	LOOP_CASE(5); LOOP_CASE(6); LOOP_CASE(7); LOOP_CASE(8); LOOP_CASE(9);
	LOOP_CASE(10); LOOP_CASE(11); LOOP_CASE(12); LOOP_CASE(13); LOOP_CASE(14);
	LOOP_CASE(15); LOOP_CASE(16); LOOP_CASE(17); LOOP_CASE(18); LOOP_CASE(19);
	LOOP_CASE(20); LOOP_CASE(21); LOOP_CASE(22); LOOP_CASE(23); LOOP_CASE(24);
	LOOP_CASE(25); LOOP_CASE(26); LOOP_CASE(27); LOOP_CASE(28); LOOP_CASE(29);
	LOOP_CASE(30);
	case PMUSER_HW_CYCLE: LOOP_ASM(pmccntr_el0, n, a, b); break;
	default: return UINT64_MAX;
	}
	return b - a;
}

/*
 * loop_delta_pair(hw, n, &cycles): as loop_delta for event counter hw, with the cycle counter
 * read just outside it, so the cycle window holds the event window (2n + LOOP_PAIR_OVERHEAD
 * instructions) plus the two event reads.
 */
#define LOOP_PAIR_OVERHEAD 2
#define LOOP_PAIR_CYCLES_EXTRA 2
#define LOOP_PAIR_ASM(reg, n, a, b, ca, cb)				\
	__asm__ __volatile__("isb\n\tmrs %[ca], pmccntr_el0\n\tmrs %[a], " #reg "\n"	\
			     "1:\tsubs %[n], %[n], #1\n\tb.ne 1b\n"	\
			     "\tisb\n\tmrs %[b], " #reg "\n\tmrs %[cb], pmccntr_el0"	\
			     : [a] "=&r"(a), [b] "=&r"(b), [ca] "=&r"(ca), [cb] "=&r"(cb),	\
			       [n] "+r"(n) : : "cc")
#define LOOP_PAIR_CASE(i) case i: LOOP_PAIR_ASM(pmevcntr##i##_el0, n, a, b, ca, cb); break
static inline uint64_t loop_delta_pair(unsigned int hw, uint64_t n, uint64_t *cycles)
{
	uint64_t a = 0, b = 0, ca = 0, cb = 0;

	*cycles = 0;
	switch (hw) {
	LOOP_PAIR_CASE(0); LOOP_PAIR_CASE(1); LOOP_PAIR_CASE(2); LOOP_PAIR_CASE(3);
	LOOP_PAIR_CASE(4); LOOP_PAIR_CASE(5); LOOP_PAIR_CASE(6); LOOP_PAIR_CASE(7);
	LOOP_PAIR_CASE(8); LOOP_PAIR_CASE(9); LOOP_PAIR_CASE(10); LOOP_PAIR_CASE(11);
	LOOP_PAIR_CASE(12); LOOP_PAIR_CASE(13); LOOP_PAIR_CASE(14); LOOP_PAIR_CASE(15);
	LOOP_PAIR_CASE(16); LOOP_PAIR_CASE(17); LOOP_PAIR_CASE(18); LOOP_PAIR_CASE(19);
	LOOP_PAIR_CASE(20); LOOP_PAIR_CASE(21); LOOP_PAIR_CASE(22); LOOP_PAIR_CASE(23);
	LOOP_PAIR_CASE(24); LOOP_PAIR_CASE(25); LOOP_PAIR_CASE(26); LOOP_PAIR_CASE(27);
	LOOP_PAIR_CASE(28); LOOP_PAIR_CASE(29); LOOP_PAIR_CASE(30);
	default: return UINT64_MAX;
	}
	*cycles = cb - ca;
	return (uint32_t)(b - a);
}

/*
 * Judges one loop_delta_pair() of n iterations on a CPU that runs the loop uninterrupted.
 * QEMU's -icount counts instructions globally: when its round-robin runs the other vCPU in
 * the middle, this vCPU's counters take in that vCPU's instructions too, the event counter
 * only those inside its own window, the cycle counter all of them. (With the windows side by
 * side instead, a slice landing between the two first reads counted for the event counter
 * alone and looked like a wrong count.) So an event delta is exact, or larger but by no more
 * than the cycle window's extra ("shared"), or wrong.
 */
static inline enum loop_verdict loop_pair_verdict(uint64_t delta, uint64_t cycles, uint64_t n)
{
	uint64_t want = 2 * n + LOOP_PAIR_OVERHEAD;

	if (delta == want)
		return LOOP_EXACT;
	if (delta > want && delta + LOOP_PAIR_CYCLES_EXTRA <= cycles)
		return LOOP_SHARED;
	return LOOP_INEXACT;
}

/* loop_delta() of an event counter, retried while QEMU lets the other vCPU into the window. */
static inline uint64_t loop_delta_alone(unsigned int hw, uint64_t n)
{
	uint64_t d = 0, cycles;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		d = loop_delta_pair(hw, n, &cycles);
		if (loop_pair_verdict(d, cycles, n) != LOOP_SHARED)
			break;
	}
	return d;
}
#elif defined(__arm__) && __ARM_ARCH >= 7
#define LOOP_OVERHEAD 2
/* Event counters are selected through PMSELR first; the selection is outside the window. */
static inline uint64_t loop_delta(unsigned int hw, uint64_t n64)
{
	uint32_t a, b, n = (uint32_t)n64;

	if (hw == PMUSER_HW_CYCLE) {
		__asm__ __volatile__("isb\n\tmrc p15, 0, %[a], c9, c13, 0\n"
				     "1:\tsubs %[n], %[n], #1\n\tbne 1b\n"
				     "\tisb\n\tmrc p15, 0, %[b], c9, c13, 0"
				     : [a] "=&r"(a), [b] "=&r"(b), [n] "+r"(n) : : "cc");
	} else {
		__asm__ __volatile__("mcr p15, 0, %[hw], c9, c12, 5\n\tisb\n"
				     "\tmrc p15, 0, %[a], c9, c13, 2\n"
				     "1:\tsubs %[n], %[n], #1\n\tbne 1b\n"
				     "\tisb\n\tmrc p15, 0, %[b], c9, c13, 2"
				     : [a] "=&r"(a), [b] "=&r"(b), [n] "+r"(n)
				     : [hw] "r"(hw) : "cc");
	}
	return (uint32_t)(b - a);
}
#else
#define LOOP_OVERHEAD 0
static inline uint64_t loop_delta(unsigned int hw, uint64_t n)
{
	(void)hw;
	(void)n;
	return UINT64_MAX;
}
#endif
#if !defined(__aarch64__)
/* The 32-bit guests have one CPU: nothing else runs in a window. */
#define loop_delta_alone loop_delta
#endif

/* PMU interrupts so far, all CPUs (the arm-pmu line of /proc/interrupts). */
static inline unsigned long pmu_interrupts(void)
{
	char line[512], *p, *end;
	unsigned long n = 0, v;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		p = strchr(line, ':');
		if (!strstr(line, "arm-pmu") || !p)
			continue;
		for (p++;; p = end) {
			v = strtoul(p, &end, 10);
			if (end == p)
				break;
			n += v;
		}
	}
	fclose(f);
	return n;
}

/*
 * The counter page, for tests that read raw counters: a window is comparable only if the
 * thread stayed on one CPU whose page did not change (perf reloaded, moved or ended a period
 * of no counter in between). Tests map it once with test_page_map().
 */
static struct pmuser_page test_page;

static inline int test_page_map(int fd)
{
	pmuser_page_unmap(&test_page);
	return pmuser_page_map(fd, &test_page);
}

#define page_mark()		pmuser_page_mark(&test_page)
#define page_unchanged(m)	pmuser_page_unchanged(&test_page, (m))

/* Continuous count of page slot on the calling CPU; UINT64_MAX if none could be read. */
static inline uint64_t page_count(unsigned int slot)
{
	uint64_t v;
	int cpu;

	return pmuser_page_read(&test_page, &slot, 1, &v, &cpu) ? UINT64_MAX : v;
}

/*
 * One loop of n iterations on counter hw, judged: 1 exact, 0 wrong, -1 not comparable (the
 * thread switched out during it, the counter page changed, or on arm64 QEMU ran the other
 * vCPU inside the window).
 */
static inline int loop_judge(unsigned int hw, uint64_t n)
{
	unsigned long sw = thread_switches();
	struct pmuser_page_mark m = page_mark();
	uint64_t d;
#if defined(__aarch64__)
	uint64_t cycles;
	enum loop_verdict v;

	if (hw != PMUSER_HW_CYCLE) {
		d = loop_delta_pair(hw, n, &cycles);
		v = loop_pair_verdict(d, cycles, n);
		if (thread_switches() != sw || !page_unchanged(m) || v == LOOP_SHARED)
			return -1;
		return v == LOOP_EXACT;
	}
#endif
	d = loop_delta(hw, n);
	if (thread_switches() != sw || !page_unchanged(m))
		return -1;
	return d == 2 * n + LOOP_OVERHEAD;
}

/* How many CPU PMUs perf registered: more than one on big.LITTLE (arm64-7.3-bl). */
static inline unsigned int cpu_pmus(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	unsigned int n = 0;
	struct dirent *e;
	char path[300];

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/cpus", e->d_name);
		n += !strncmp(e->d_name, "armv", 4) && !access(path, R_OK);
	}
	if (d)
		closedir(d);
	return n;
}

/* Whether a cpulist ("0-3,6") names cpu. */
static inline int cpulist_has(const char *list, int cpu)
{
	long lo, hi;
	char *end;

	while (*list) {
		lo = strtol(list, &end, 10);
		if (end == list)
			return 0;
		hi = *end == '-' ? strtol(end + 1, &end, 10) : lo;
		if (cpu >= lo && cpu <= hi)
			return 1;
		list = *end == ',' ? end + 1 : end;
		if (*list == '\n')
			break;
	}
	return 0;
}

/*
 * The perf type of the PMU of CPU cpu where perf registers several CPU PMUs (big.LITTLE), else
 * 0. A thread's event there goes to one of them, which counts only on its own CPUs, unless
 * the event names its PMU: by type for raw events, by type above bit 32 of the config (perf's
 * extended hardware type) for generic ones.
 */
static inline unsigned int cpu_pmu_type(int cpu)
{
	char path[320], buf[256];
	unsigned int type = 0;
	struct dirent *e;
	FILE *f;
	DIR *d;

	if (cpu_pmus() < 2)
		return 0;
	d = opendir("/sys/bus/event_source/devices");
	while (d && !type && (e = readdir(d))) {
		if (strncmp(e->d_name, "armv", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/cpus", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && cpulist_has(buf, cpu)) {
			fclose(f);
			snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
				 e->d_name);
			f = fopen(path, "r");
			if (f && fscanf(f, "%u", &type) != 1)
				type = 0;
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return type;
}

/* The config of generic hardware event hw (PERF_COUNT_HW_*) counted on CPU cpu. */
static inline uint64_t hw_config_on(uint64_t hw, int cpu)
{
	return (uint64_t)cpu_pmu_type(cpu) << 32 | hw;
}

/* The type of a raw event counted on CPU cpu. */
static inline uint32_t raw_type_on(int cpu)
{
	unsigned int type = cpu_pmu_type(cpu);

	return type ? type : PERF_TYPE_RAW;
}

/*
 * pmuser loaded again with extra module parameters after the suite's own (PMUSER_MODPARAMS):
 * 0 or -errno. Unloading waits a moment for granted threads that are still exiting.
 */
static inline int module_reload(const char *extra)
{
	const char *base = getenv("PMUSER_MODPARAMS");
	char params[256];
	int fd, ret = 0, tries;

	for (tries = 0; tries < 200; tries++) {
		ret = syscall(__NR_delete_module, "pmuser", O_NONBLOCK) ? -errno : 0;
		if (ret != -EWOULDBLOCK)
			break;
		usleep(5000);
	}
	if (ret && ret != -ENOENT)
		return ret;
	snprintf(params, sizeof(params), "%s %s", base ? base : "", extra);
	fd = open("/lib/modules/pmuser.ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * QEMU's ARM1176 makes c15 read as zero at PL1 and undefined at PL0, so nothing can count
 * there. Only on ARMv6 may a counting test skip for that; elsewhere a trap is a real failure.
 */
#if defined(PMUSER_FAST_V6)
#include <setjmp.h>
#include <signal.h>

static sigjmp_buf counters_probe_env;

static void counters_probe_sigill(int sig)
{
	siglongjmp(counters_probe_env, sig);
}

static inline int counters_move(void)
{
	struct sigaction sa = { .sa_handler = counters_probe_sigill }, old;
	volatile unsigned int i;
	int moved = 0;
	uint64_t a;

	sigaction(SIGILL, &sa, &old);
	if (!sigsetjmp(counters_probe_env, 1)) {
		a = pmuser_cycles_read_serial();
		for (i = 0; i < 1000; i++)
			;
		moved = pmuser_cycles_read_serial() != a;
	}
	sigaction(SIGILL, &old, NULL);
	return moved;
}
#else
static inline int counters_move(void)
{
	return 1;
}
#endif

#define REQUIRE_COUNTING()						\
	do {								\
		if (!counters_move())					\
			SKIP(return, "the cycle counter cannot be read or does not move (QEMU's ARM1176 has no counters)"); \
	} while (0)

#endif /* PMUSER_TEST_H */
