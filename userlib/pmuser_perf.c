// SPDX-License-Identifier: MIT
/*
 * The perf_event_open backends: perf-read (read() on the file descriptors) and perf-mmap
 * (self-read through the event's mmap page: the kernel publishes which hardware counter the
 * event sits on and an offset, under a sequence count, and the counter is read inline).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmuser_internal.h"

/* arm64 PMU format field in perf_event_attr.config1: user access to the event's counter. */
#define ARM64_CONFIG1_RDPMC	0x2

static int perf_event_open(struct perf_event_attr *attr, int pid, int cpu, int group,
			   unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

#if !defined(__arm__) && !defined(__aarch64__)
/* Elsewhere (a developer's x86 box) the common ARM events map onto perf's generic ones. */
static const struct {
	uint16_t arm;
	uint32_t type;
	uint64_t config;
} generic_events[] = {
	{ 0x01, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1I |
		PERF_COUNT_HW_CACHE_OP_READ << 8 | PERF_COUNT_HW_CACHE_RESULT_MISS << 16 },
	{ 0x02, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_ITLB |
		PERF_COUNT_HW_CACHE_OP_READ << 8 | PERF_COUNT_HW_CACHE_RESULT_MISS << 16 },
	{ 0x03, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D |
		PERF_COUNT_HW_CACHE_OP_READ << 8 | PERF_COUNT_HW_CACHE_RESULT_MISS << 16 },
	{ 0x04, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D |
		PERF_COUNT_HW_CACHE_OP_READ << 8 | PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16 },
	{ 0x05, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_DTLB |
		PERF_COUNT_HW_CACHE_OP_READ << 8 | PERF_COUNT_HW_CACHE_RESULT_MISS << 16 },
	{ 0x08, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ 0x10, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ 0x11, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ 0x21, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ 0x23, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ 0x24, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
};
#endif

#if defined(__aarch64__)
#define RAW_CPU_CYCLES	0x11	/* CPU_CYCLES: perf places it on the cycle counter when free */
#else
#define RAW_CPU_CYCLES	0xff	/* perf's cycle counter event on ARMv6 and ARMv7 */
#endif

/*
 * Fills type/config for counter ctr on the CPU PMU of perf type pmu_type (0: the one perf
 * routes the event to): false if perf has no way to name it here.
 */
static bool event_attr(const struct pmuser_ctr *ctr, uint32_t pmu_type, struct perf_event_attr *pa)
{
#if defined(__arm__) || defined(__aarch64__)
	if (pmu_type) {
		/* A PMU named by its type takes raw event numbers, the cycle event's too. */
		pa->type = pmu_type;
		pa->config = ctr->is_cycles ? RAW_CPU_CYCLES : ctr->event;
#if defined(__arm__)
		return ctr->is_cycles || ctr->event <= 0xff;
#else
		return true;
#endif
	}
#else
	(void)pmu_type;
#endif
	if (ctr->is_cycles) {
		pa->type = PERF_TYPE_HARDWARE;
		pa->config = PERF_COUNT_HW_CPU_CYCLES;
		return true;
	}
#if defined(__arm__)
	/* 32-bit event numbers are 8 bits (as the module has them): perf masks the rest off. */
	if (ctr->event > 0xff)
		return false;
#endif
#if defined(__arm__) || defined(__aarch64__)
	pa->type = PERF_TYPE_RAW;
	pa->config = ctr->event;
	return true;
#else
	for (size_t i = 0; i < sizeof(generic_events) / sizeof(generic_events[0]); i++) {
		if (generic_events[i].arm == ctr->event) {
			pa->type = generic_events[i].type;
			pa->config = generic_events[i].config;
			return true;
		}
	}
	return false;
#endif
}

static int perf_read_raw(struct pmuser_counters *c, uint64_t values[], uint64_t gaps[],
			 bool reverse);

/* Closes counter i's event on PMU p. */
static void close_event(struct pmuser_counters *c, unsigned int i, unsigned int p)
{
	struct pmuser_ctr *ctr = &c->ctr[i];

	if (ctr->page[p])
		munmap(ctr->page[p], (size_t)sysconf(_SC_PAGESIZE));
	if (ctr->fd[p] >= 0)
		close(ctr->fd[p]);
	ctr->page[p] = NULL;
	ctr->fd[p] = -1;
}

static void perf_close(struct pmuser_counters *c)
{
	unsigned int i, p;

	/* Members first: closing a leader first would promote them to singletons. */
	for (p = 0; p < PMUSER__PERF_PMUS; p++)
		for (i = c->nr; i-- > 0;)
			close_event(c, i, p);
	c->leader = -1;
}

static int perf_fail(struct pmuser_counters *c, int ret, char *why, size_t whylen,
		     const char *fmt, const char *what)
{
	size_t used = why ? strnlen(why, whylen) : 0;

	if (why && used + 1 < whylen) {
		snprintf(why + used, whylen - used, "%s: ", pmuser_backend_name(c->backend));
		used = strnlen(why, whylen);
		snprintf(why + used, whylen - used, fmt, what, strerror(-ret));
	}
	perf_close(c);
	return ret;
}

#if defined(__aarch64__)
/*
 * Why this thread cannot read the events' counters itself, or NULL if it can. A page shows
 * whether perf grants user reads only once perf has scheduled the event: an event that has
 * not run yet (perf is multiplexing, or other users hold the counters) says nothing, and its
 * reads go through read() until it runs. So the causes told apart are the sysctl, and perf
 * refusing user reads of an event that did run (started: the set is counting).
 */
static int perf_read_pmu(struct pmuser_counters *c, unsigned int p, struct pmuser_count counts[]);

static const char *mmap_reads_problem(struct pmuser_counters *c, bool started)
{
	struct pmuser_count counts[PMUSER_COUNTERS_MAX];
	uint64_t v[PMUSER_COUNTERS_MAX];
	unsigned int i, p;

	switch (pmuser__perf_user_access()) {
	case 0:
		return "kernel.perf_user_access is 0: perf grants no user counter reads";
	case -1:
		return "no kernel.perf_user_access: this kernel's perf has no user counter reads";
	}
	if (!started)
		return NULL;
	if (perf_read_raw(c, v, NULL, false))
		return "reading the events failed";
	for (p = 0; p < c->nr_pmus; p++) {
		if (perf_read_pmu(c, p, counts))
			return "reading the events failed";
		for (i = 0; i < c->nr; i++) {
			struct perf_event_mmap_page *pg = c->ctr[i].page[p];

			if (pg && !pg->cap_user_rdpmc && counts[i].running)
				return "perf offers no user reads of these events (cap_user_rdpmc 0)";
		}
	}
	return NULL;
}
#endif

#if defined(__aarch64__)
/*
 * Event counter n (0..30) or the cycle counter (31), at the same cost for every n: a branch
 * into a table of equal entries (each a BTI landing pad, the read, and the way out). perf
 * moves a set's events between counters as it multiplexes them, and a region's bias, measured
 * once, must hold wherever they are; a compiler's switch costs more for some cases than others.
 */
#define UNIFORM_ENTRY(reg) "hint #36\n\tmrs %0, " #reg "\n\tb 2f\n\tnop\n\t"
#define UNIFORM_EIGHT(a, b, c, d, e, f, g, h)						\
	UNIFORM_ENTRY(pmevcntr##a##_el0) UNIFORM_ENTRY(pmevcntr##b##_el0)		\
	UNIFORM_ENTRY(pmevcntr##c##_el0) UNIFORM_ENTRY(pmevcntr##d##_el0)		\
	UNIFORM_ENTRY(pmevcntr##e##_el0) UNIFORM_ENTRY(pmevcntr##f##_el0)		\
	UNIFORM_ENTRY(pmevcntr##g##_el0) UNIFORM_ENTRY(pmevcntr##h##_el0)
static inline __attribute__((always_inline)) uint64_t evcntr_read_uniform(unsigned int n)
{
	uint64_t v, at;

	__asm__ __volatile__("adr %1, 1f\n\t"
			     "add %1, %1, %2, lsl #4\n\t"
			     "br %1\n"
			     "1:\n\t"
			     UNIFORM_EIGHT(0, 1, 2, 3, 4, 5, 6, 7)
			     UNIFORM_EIGHT(8, 9, 10, 11, 12, 13, 14, 15)
			     UNIFORM_EIGHT(16, 17, 18, 19, 20, 21, 22, 23)
			     UNIFORM_ENTRY(pmevcntr24_el0) UNIFORM_ENTRY(pmevcntr25_el0)
			     UNIFORM_ENTRY(pmevcntr26_el0) UNIFORM_ENTRY(pmevcntr27_el0)
			     UNIFORM_ENTRY(pmevcntr28_el0) UNIFORM_ENTRY(pmevcntr29_el0)
			     UNIFORM_ENTRY(pmevcntr30_el0) UNIFORM_ENTRY(pmccntr_el0)
			     "2:"
			     : "=&r"(v), "=&r"(at) : "r"((uint64_t)(n & 31)));
	return v;
}
#undef UNIFORM_EIGHT
#undef UNIFORM_ENTRY

/*
 * The self-read protocol: the kernel bumps lock around every update of the page; the count
 * is offset plus the hardware counter sign-extended from pmc_width bits. index 0 means the
 * event is not on a counter now (multiplexed out or not yet scheduled): -EAGAIN, read() it.
 * gap (may be NULL) gets enabled minus running as perf last published them.
 */
static inline __attribute__((always_inline)) int
mmap_read(volatile struct perf_event_mmap_page *pg, uint64_t *value, uint64_t *gap)
{
	uint32_t seq, idx;
	uint64_t count, pmc;
	unsigned int width;

	do {
		seq = pg->lock;
		__asm__ __volatile__("" ::: "memory");
		idx = pg->index;
		count = (uint64_t)pg->offset;
		/*
		 * Indices above 32 name counters outside PMEVCNTR<n> and PMCCNTR (the instruction
		 * counter is 33 where perf would offer it): read() them rather than misread.
		 */
		if (!pg->cap_user_rdpmc || !idx || idx > 32)
			return -EAGAIN;
		/* The times perf last published: they part only when it takes the counter away. */
		if (gap)
			*gap = pg->time_enabled - pg->time_running;
		width = pg->pmc_width;
		pmc = evcntr_read_uniform(idx - 1);
		if (width < 64) {
			pmc <<= 64 - width;
			pmc = (uint64_t)((int64_t)pmc >> (64 - width));
		}
		count += pmc;
		__asm__ __volatile__("" ::: "memory");
	} while (pg->lock != seq);
	*value = count;
	return 0;
}

/* perf's user index of hardware counter hw: the cycle counter is 32, event counter n is n + 1. */
#define USER_INDEX(hw) ((hw) == PMUSER_HW_CYCLE ? 32u : (hw) + 1u)

/* A page's lock and index, adjacent, read in one load. */
typedef uint64_t __attribute__((may_alias)) lock_index_t;

static inline __attribute__((always_inline)) uint64_t
lock_index(const volatile struct perf_event_mmap_page *pg)
{
	return *(const volatile lock_index_t *)&pg->lock;
}

/* The index half of such a word. */
static inline __attribute__((always_inline)) uint32_t index_of(uint64_t li)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (uint32_t)li;
#else
	return (uint32_t)(li >> 32);
#endif
}

/*
 * Runs: the placements perf makes. It gives the cycle counter to a cpu_cycles event when free
 * and every other event the lowest free event counter, so a set's events sit on the cycle
 * counter (cyc: event 0 only) and then on event counters first, first + 1, ... above those
 * other users hold. A reader is compiled for each run up to these bounds.
 */
#define RUN_FIRST_MAX	4	/* first event counter 0..3 */
#define RUN_LEN_MAX	4	/* up to 4 events */

/*
 * One try of a self-read of every event, for the run (cyc, first, n) compiled in. Each
 * page's lock and index are read before its offset, the counters are read only when every
 * index is the run's (perf's protocol: an index of 0 means no user reads), and each lock and
 * index are read again after the counters, so each event's offset and counter belong
 * together. perf rewrites a page from this CPU, between instructions of this thread or while
 * it is switched out, or from this thread's own calls (mmap, reset): as in perf's protocol, a
 * set is read by one thread. An event that perf moved or took off its counter fails the read:
 * -EAGAIN, and the general path decides. On arm64 perf publishes a non-zero index exactly when
 * it offers user reads (cap_user_rdpmc, in the same update), so the index covers both. Every
 * counter, the cycle counter too, is 32 bits wide in the pages of the events the set opens.
 */
static inline __attribute__((always_inline)) int
mmap_run(const struct pmuser_counters *c, uint64_t values[], bool cyc, unsigned int first,
	 unsigned int n)
{
	const volatile struct perf_event_mmap_page *pg[RUN_LEN_MAX];
	uint64_t li[RUN_LEN_MAX], raw[RUN_LEN_MAX];
	int64_t off[RUN_LEN_MAX];
	unsigned int hw[RUN_LEN_MAX], i;

	_Pragma("GCC unroll 8")
	for (i = 0; i < n; i++) {
		hw[i] = cyc && !i ? PMUSER_HW_CYCLE : first + i - cyc;
		pg[i] = c->ctr[i].page[0];
		li[i] = lock_index(pg[i]);
	}
	__asm__ __volatile__("" ::: "memory");
	_Pragma("GCC unroll 8")
	for (i = 0; i < n; i++) {
		if (index_of(li[i]) != USER_INDEX(hw[i]))
			return -EAGAIN;
		off[i] = pg[i]->offset;
	}
	pmuser__isb();
	pmuser__evcntr_batch(n, hw, raw, false);
	pmuser__isb();
	__asm__ __volatile__("" ::: "memory");
	_Pragma("GCC unroll 8")
	for (i = 0; i < n; i++) {
		if (lock_index(pg[i]) != li[i])
			return -EAGAIN;
		values[i] = (uint64_t)off[i] + (uint64_t)(int64_t)(int32_t)raw[i];
	}
	return 0;
}

#define RUN_FN(cyc, first, n)							\
static int mmap_run_##cyc##_##first##_##n(struct pmuser_counters *c, uint64_t values[]) \
{										\
	if (!mmap_run(c, values, cyc, first, n))				\
		return 0;							\
	return pmuser__read_general(c, values);					\
}
#define RUN_ENTRY(cyc, first, n) [cyc][first][n - 1] = mmap_run_##cyc##_##first##_##n,
/* Every run: a lone cycle counter event has no first event counter. */
#define RUNS_N(X, cyc, first) X(cyc, first, 2) X(cyc, first, 3) X(cyc, first, 4)
#define RUNS_FIRST(X, cyc)							\
	RUNS_N(X, cyc, 0) RUNS_N(X, cyc, 1) RUNS_N(X, cyc, 2) RUNS_N(X, cyc, 3)
#define RUNS(X)									\
	X(0, 0, 1) X(0, 1, 1) X(0, 2, 1) X(0, 3, 1) RUNS_FIRST(X, 0)		\
	X(1, 0, 1) RUNS_FIRST(X, 1)
RUNS(RUN_FN)
static pmuser__read_fn *const mmap_runs[2][RUN_FIRST_MAX][RUN_LEN_MAX] = { RUNS(RUN_ENTRY) };
#undef RUNS
#undef RUNS_FIRST
#undef RUNS_N
#undef RUN_ENTRY
#undef RUN_FN

/*
 * The run reader for where the pages show the events now, or NULL: an event off its counter,
 * without user reads, at another width than the runs assume, events not in a run, or events
 * on several CPU PMUs.
 */
static pmuser__read_fn *mmap_run_for(struct pmuser_counters *c)
{
	unsigned int i, cyc, first, idx[RUN_LEN_MAX];

	if (!c->nr || c->nr > RUN_LEN_MAX || c->nr_pmus != 1)
		return NULL;
	for (i = 0; i < c->nr; i++) {
		const volatile struct perf_event_mmap_page *pg = c->ctr[i].page[0];

		idx[i] = pg->index;
		if (!idx[i] || !pg->cap_user_rdpmc)
			return NULL;
		if (pg->pmc_width != 32)
			return NULL;
	}
	cyc = idx[0] == 32;
	first = c->nr > cyc ? idx[cyc] - 1 : 0;
	if (first >= RUN_FIRST_MAX)
		return NULL;
	for (i = cyc; i < c->nr; i++)
		if (idx[i] != first + 1 + i - cyc)
			return NULL;
	return mmap_runs[cyc][first][c->nr - 1];
}

/*
 * The reader for a set all of whose events have pages: the run reader for where perf has the
 * events now (enabled and on their counters), else the general path (each event by its page
 * or, off its counter, by read()).
 */
static void mmap_choose_reader(struct pmuser_counters *c)
{
	pmuser__read_fn *run = NULL;
	unsigned int i;

	for (i = 0; i < c->nr && c->ctr[i].supported && c->ctr[i].page[0]; i++)
		;
	if (i == c->nr)
		run = mmap_run_for(c);
	c->read_all = run ? run : pmuser__read_general;
}
#endif

/* Self-read is possible only for the calling thread on any CPU, and only on arm64. */
static bool mmap_possible(const struct pmuser_counters_attr *a, char *why, size_t whylen)
{
	const char *problem = NULL;

#if defined(__aarch64__)
	if (a->pid != 0 || a->cpu != -1 ||
	    a->flags & (PMUSER_COUNTERS_INHERIT | PMUSER_COUNTERS_ENABLE_ON_EXEC))
		problem = "perf-mmap: self-read needs the calling thread on any CPU; ";
#else
	(void)a;
	problem = "perf-mmap: user counter reads need arm64; ";
#endif
	if (problem)
		pmuser__why_add(why, whylen, "%s", problem);
	return !problem;
}

/*
 * The attributes of counter i of the set on PMU p: false when the event has no perf encoding
 * there. The leader (or, ungrouped, every counter) carries the set's start state and the
 * group read.
 */
static bool counter_attr(const struct pmuser_counters *c, unsigned int i, unsigned int p,
			 struct perf_event_attr *pa, bool mmap_read)
{
	const struct pmuser_counters_attr *a = &c->attr;
	const struct pmuser_ctr *ctr = &c->ctr[i];
	bool group = !(a->flags & PMUSER_COUNTERS_NO_GROUP);
	bool leads = group && (c->leader < 0 || c->leader == (int)i);

	memset(pa, 0, sizeof(*pa));
	pa->size = sizeof(*pa);
	if (!event_attr(ctr, c->pmu_type[p], pa))
		return false;
	pa->exclude_user = !(ctr->flags & PMUSER_COUNT_USER);
	pa->exclude_kernel = !(ctr->flags & PMUSER_COUNT_KERNEL);
	/* ARMv6 can filter no mode at all: exclude nothing unless asked to. */
	pa->exclude_hv = pa->exclude_kernel;
	pa->inherit = !!(a->flags & PMUSER_COUNTERS_INHERIT);
	pa->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			  PERF_FORMAT_ID;
	if (leads)
		pa->read_format |= PERF_FORMAT_GROUP;
	if (leads || !group) {
		pa->disabled = !!(a->flags & (PMUSER_COUNTERS_DISABLED |
					      PMUSER_COUNTERS_ENABLE_ON_EXEC));
		pa->enable_on_exec = !!(a->flags & PMUSER_COUNTERS_ENABLE_ON_EXEC);
	}
#if defined(__aarch64__)
	/*
	 * Cycles too as a 32-bit event: a 64-bit one that user space reads may only take the
	 * cycle counter (perf does not chain counters for user reads), so it would never run
	 * while another user's pinned event (a perf stat -a, the hard-lockup watchdog) holds
	 * that counter; the 32-bit event takes an event counter then.
	 */
	if (mmap_read)
		pa->config1 = ARM64_CONFIG1_RDPMC;
#else
	(void)mmap_read;
#endif
	return true;
}

/*
 * Whether an event perf refused as a member of the set's group (EINVAL) opens on its own:
 * then what perf could not take is the group (more events than counters), not the event.
 */
static bool opens_alone(const struct perf_event_attr *member, const struct pmuser_counters_attr *a)
{
	struct perf_event_attr pa = *member;
	int fd;

	pa.disabled = 1;
	pa.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
	fd = perf_event_open(&pa, a->pid, a->cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

#if defined(__arm__) || defined(__aarch64__)
/*
 * The CPU PMUs of a per-thread set, by perf type in ascending order: every PMU perf lists
 * with a cpus file (how perf's own tool tells CPU PMUs from the others), when there are
 * several (big.LITTLE). With one, or for a set bound to one CPU, perf routes each event to
 * the PMU that has it: type 0.
 */
static int perf_cpu_pmus(struct pmuser_counters *c, char *why, size_t whylen)
{
	static const char dir[] = "/sys/bus/event_source/devices";
	uint32_t types[PMUSER__PERF_PMUS], t;
	unsigned int n = 0, k;
	char path[320];
	struct dirent *e;
	DIR *d;

	c->nr_pmus = 1;
	c->pmu_type[0] = 0;
	d = c->attr.cpu == -1 ? opendir(dir) : NULL;
	while (d && (e = readdir(d))) {
		FILE *f;
		int got;

		snprintf(path, sizeof(path), "%s/%s/cpus", dir, e->d_name);
		if (e->d_name[0] == '.' || access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", dir, e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		got = fscanf(f, "%u", &t);
		fclose(f);
		if (got != 1)
			continue;
		if (n == PMUSER__PERF_PMUS) {
			closedir(d);
			pmuser__why_add(why, whylen, "%s: more than %u CPU PMUs in %s; ",
					pmuser_backend_name(c->backend), PMUSER__PERF_PMUS, dir);
			return -E2BIG;
		}
		for (k = n++; k > 0 && types[k - 1] > t; k--)
			types[k] = types[k - 1];
		types[k] = t;
	}
	if (d)
		closedir(d);
	if (n > 1) {
		memcpy(c->pmu_type, types, n * sizeof(types[0]));
		c->nr_pmus = n;
	}
	return 0;
}
#else
static int perf_cpu_pmus(struct pmuser_counters *c, char *why, size_t whylen)
{
	(void)why, (void)whylen;
	c->nr_pmus = 1;
	c->pmu_type[0] = 0;
	return 0;
}
#endif

/*
 * Counter i has no event on some CPU PMU: closes its events on the PMUs before p, so that it
 * counts nowhere rather than on some CPUs only. 0, or -EOPNOTSUPP for the group's leader.
 */
static int drop_counter(struct pmuser_counters *c, unsigned int i, unsigned int p)
{
	if (c->leader == (int)i)
		return -EOPNOTSUPP;
	while (p-- > 0)
		close_event(c, i, p);
	c->ctr[i].supported = false;
	return 0;
}

/* Opens counter i's event on PMU p, mapping its page for self-reads: 0 or -errno. */
static int open_event(struct pmuser_counters *c, unsigned int i, unsigned int p, bool mmap_read,
		      char *why, size_t whylen)
{
	const struct pmuser_counters_attr *a = &c->attr;
	bool group = !(a->flags & PMUSER_COUNTERS_NO_GROUP);
	bool optional = (a->flags & PMUSER_COUNTERS_OPTIONAL) && !c->ctr[i].is_cycles;
	struct pmuser_ctr *ctr = &c->ctr[i];
	int leader_fd = c->leader >= 0 ? c->ctr[c->leader].fd[p] : -1;
	struct perf_event_attr pa;
	char what[80];
	void *pg;
	int err;

	if (c->nr_pmus > 1)
		snprintf(what, sizeof(what), "%s (perf type %u)", ctr->name, c->pmu_type[p]);
	else
		snprintf(what, sizeof(what), "%s", ctr->name);
	if (!counter_attr(c, i, p, &pa, mmap_read)) {
		if (optional && !drop_counter(c, i, p))
			return 0;
		return perf_fail(c, -EOPNOTSUPP, why, whylen, "%s: %s; ", what);
	}
	ctr->fd[p] = perf_event_open(&pa, a->pid, a->cpu, group ? leader_fd : -1,
				     PERF_FLAG_FD_CLOEXEC);
	if (ctr->fd[p] < 0) {
		err = -errno;
		ctr->fd[p] = -1;
		if (err == -EINVAL && leader_fd >= 0 && group && opens_alone(&pa, a))
			return perf_fail(c, -ENOSPC, why, whylen,
					 "perf_event_open %s: %s (the group would hold more "
					 "events than the PMU has counters; "
					 "PMUSER_COUNTERS_NO_GROUP opens them one by one); ", what);
		/* ENOENT/EOPNOTSUPP/EINVAL: this PMU cannot count the event. */
		if (optional && (err == -ENOENT || err == -EOPNOTSUPP || err == -EINVAL) &&
		    !drop_counter(c, i, p))
			return 0;
		return perf_fail(c, err, why, whylen, "perf_event_open %s: %s; ", what);
	}
	if (ioctl(ctr->fd[p], PERF_EVENT_IOC_ID, &ctr->id[p]) < 0)
		return perf_fail(c, -errno, why, whylen, "PERF_EVENT_IOC_ID %s: %s; ", what);
	if (group && c->leader < 0)
		c->leader = (int)i;
	if (!mmap_read)
		return 0;
	pg = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, ctr->fd[p], 0);
	if (pg == MAP_FAILED)
		return perf_fail(c, -errno, why, whylen, "mmap %s: %s; ", what);
	ctr->page[p] = pg;
	return 0;
}

static int perf_open(struct pmuser_counters *c, bool mmap_read, char *why, size_t whylen)
{
	const struct pmuser_counters_attr *a = &c->attr;
	unsigned int i, p;
	size_t n;
	int ret;

	if (mmap_read && !mmap_possible(a, why, whylen))
		return -EOPNOTSUPP;
	ret = perf_cpu_pmus(c, why, whylen);
	if (ret)
		return ret;
	c->enabled = !(a->flags & (PMUSER_COUNTERS_DISABLED | PMUSER_COUNTERS_ENABLE_ON_EXEC));
	for (p = 0; p < c->nr_pmus; p++) {
		for (i = 0; i < c->nr; i++) {
			if (!c->ctr[i].supported)
				continue;
			ret = open_event(c, i, p, mmap_read, why, whylen);
			if (ret)
				return ret;
		}
	}
	if (mmap_read) {
#if defined(__aarch64__)
		bool start_disabled = a->flags & (PMUSER_COUNTERS_DISABLED |
						  PMUSER_COUNTERS_ENABLE_ON_EXEC);
		const char *problem = mmap_reads_problem(c, !start_disabled);

		if (problem)
			return perf_fail(c, -EPERM, why, whylen, "%s (%s); ", problem);
		snprintf(c->timer, sizeof(c->timer),
			 "perf mmap self-read, on the counters perf schedules the events on");
		mmap_choose_reader(c);
#endif
	} else {
		snprintf(c->timer, sizeof(c->timer), "perf read() of PERF_COUNT_HW_CPU_CYCLES");
	}
	n = strnlen(c->timer, sizeof(c->timer));
	if (c->nr_pmus > 1)
		snprintf(c->timer + n, sizeof(c->timer) - n, ", summed over %u CPU PMUs",
			 c->nr_pmus);
	return 0;
}

/* One event's count from read(): value, enabled, running, id. */
static int read_one(const struct pmuser_ctr *ctr, unsigned int p, struct pmuser_count *out)
{
	uint64_t buf[4];
	ssize_t n = read(ctr->fd[p], buf, sizeof(buf));

	if (n < 0)
		return -errno;
	if (n < (ssize_t)sizeof(buf))
		return -EIO;
	out->value = buf[0];
	out->enabled = buf[1];
	out->running = buf[2];
	return 0;
}

/* PMU p's group in one read(): nr, enabled, running, then value and id per member. */
static int read_group(struct pmuser_counters *c, unsigned int p, struct pmuser_count counts[])
{
	uint64_t buf[3 + 2 * PMUSER_COUNTERS_MAX];
	ssize_t n = read(c->ctr[c->leader].fd[p], buf, sizeof(buf));
	unsigned int i, k;

	if (n < 0)
		return -errno;
	if (n < 24 || (size_t)n < (3 + 2 * buf[0]) * sizeof(uint64_t))
		return -EIO;
	for (i = 0; i < c->nr; i++) {
		counts[i].value = 0;
		counts[i].enabled = buf[1];
		counts[i].running = c->ctr[i].supported ? buf[2] : 0;
		for (k = 0; k < buf[0]; k++) {
			if (c->ctr[i].supported && buf[4 + 2 * k] == c->ctr[i].id[p]) {
				counts[i].value = buf[3 + 2 * k];
				break;
			}
		}
	}
	return 0;
}

/* The counts of the events on PMU p. */
static int perf_read_pmu(struct pmuser_counters *c, unsigned int p, struct pmuser_count counts[])
{
	unsigned int i;
	int ret;

	if (c->leader >= 0)
		return read_group(c, p, counts);
	for (i = 0; i < c->nr; i++) {
		memset(&counts[i], 0, sizeof(counts[i]));
		if (!c->ctr[i].supported)
			continue;
		ret = read_one(&c->ctr[i], p, &counts[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The counts summed over the CPU PMUs: each PMU's event counts while the thread runs on that
 * PMU's CPUs, so the times running add up, and the time enabled is the longest (the events
 * were enabled one after another and stay enabled together).
 */
static int perf_read_full(struct pmuser_counters *c, struct pmuser_count counts[])
{
	struct pmuser_count more[PMUSER_COUNTERS_MAX];
	unsigned int i, p;
	int ret;

	ret = perf_read_pmu(c, 0, counts);
	for (p = 1; !ret && p < c->nr_pmus; p++) {
		ret = perf_read_pmu(c, p, more);
		for (i = 0; !ret && i < c->nr; i++) {
			counts[i].value += more[i].value;
			counts[i].running += more[i].running;
			if (more[i].enabled > counts[i].enabled)
				counts[i].enabled = more[i].enabled;
		}
	}
	return ret;
}

/* A failed read: no region may pair with it. */
static int read_failed(const struct pmuser_counters *c, uint64_t gaps[], int err)
{
	unsigned int i;

	for (i = 0; gaps && i < c->nr; i++)
		gaps[i] = PMUSER_GAP_OFF;
	return err;
}

#if defined(__aarch64__)
/*
 * Every event of the set by its page, or by read() where its page shows it off a counter
 * (multiplexed out, or on big.LITTLE an event of a PMU this CPU does not have): each counter's
 * count is the sum over the PMUs. Its gap is that of the one event read from its counter,
 * tagged with that event's PMU, so that a region pairs only reads of the same event that
 * perf kept on a counter all the time between; with no such event, or more, the gap is off.
 */
static int mmap_read_raw(struct pmuser_counters *c, uint64_t values[], uint64_t gaps[])
{
	struct pmuser_count counts[PMUSER__PERF_PMUS][PMUSER_COUNTERS_MAX];
	uint64_t gap[PMUSER_COUNTERS_MAX], v, g;
	unsigned int i, p, on, have = 0;
	int ret;

	pmuser__isb();
	for (i = 0; i < c->nr; i++) {
		values[i] = 0;
		gap[i] = 0;
		if (!c->ctr[i].supported)
			continue;
		for (p = 0, on = 0; p < c->nr_pmus; p++) {
			if (!mmap_read(c->ctr[i].page[p], &v, &g)) {
				values[i] += v;
				gap[i] = g << 3 | p;
				on++;
				continue;
			}
			/* Off its counter now: perf's read(), once per PMU for all its events. */
			if (!(have & 1U << p)) {
				ret = perf_read_pmu(c, p, counts[p]);
				if (ret)
					return read_failed(c, gaps, ret);
				have |= 1U << p;
			}
			values[i] += counts[p][i].value;
		}
		if (on != 1)
			gap[i] = PMUSER_GAP_OFF;
	}
	pmuser__isb();
	if (gaps)
		memcpy(gaps, gap, c->nr * sizeof(gap[0]));
	return 0;
}
#endif

static int perf_read_raw(struct pmuser_counters *c, uint64_t values[], uint64_t gaps[],
			 bool reverse)
{
	struct pmuser_count counts[PMUSER_COUNTERS_MAX];
	unsigned int i;
	int ret;

	(void)reverse;
#if defined(__aarch64__)
	if (c->backend == PMUSER_BACKEND_PERF_MMAP)
		return mmap_read_raw(c, values, gaps);
#endif
	ret = perf_read_full(c, counts);
	if (ret)
		return read_failed(c, gaps, ret);
	for (i = 0; i < c->nr; i++) {
		values[i] = counts[i].value;
		if (gaps)
			gaps[i] = counts[i].enabled - counts[i].running;
	}
	return 0;
}

static int perf_ioctl(struct pmuser_counters *c, unsigned long request)
{
	unsigned int i, p;

	for (p = 0; p < c->nr_pmus; p++) {
		if (c->leader >= 0) {
			if (ioctl(c->ctr[c->leader].fd[p], request, PERF_IOC_FLAG_GROUP) < 0)
				return -errno;
			continue;
		}
		for (i = 0; i < c->nr; i++)
			if (c->ctr[i].fd[p] >= 0 && ioctl(c->ctr[i].fd[p], request, 0) < 0)
				return -errno;
	}
	return 0;
}

/*
 * Every call moves ctl_gen, so that a region around it is invalid. perf's reset reads a
 * running event's counter into its count, which leaves its last raw value zero-extended
 * where the page's offset expects it as perf loaded it (sign-extended, as the self-read
 * extends the counter): self-reads would be 2^32 off until perf next loads the counter. So a
 * counting perf-mmap set is reset off its counters, and the enable after it loads them and
 * publishes a page that agrees with them.
 */
static int perf_ctl(struct pmuser_counters *c, unsigned long request)
{
	int ret, ret_enable;

	c->ctl_gen++;
	if (request == PERF_EVENT_IOC_RESET && c->backend == PMUSER_BACKEND_PERF_MMAP &&
	    c->enabled) {
		ret = perf_ctl(c, PERF_EVENT_IOC_DISABLE);
		if (ret)
			return ret;
		ret = perf_ioctl(c, PERF_EVENT_IOC_RESET);
		ret_enable = perf_ctl(c, PERF_EVENT_IOC_ENABLE);
		return ret ? ret : ret_enable;
	}
	/*
	 * Not counting from any disable on, even one that fails half-way; counting again once an
	 * enable reached every event.
	 */
	if (request == PERF_EVENT_IOC_DISABLE)
		c->enabled = false;
	ret = perf_ioctl(c, request);
	if (ret || request != PERF_EVENT_IOC_ENABLE)
		return ret;
	c->enabled = true;
#if defined(__aarch64__)
	/* Enabled, the events are on their counters: the reader for where perf put them. */
	if (c->backend == PMUSER_BACKEND_PERF_MMAP)
		mmap_choose_reader(c);
#endif
	return 0;
}

/*
 * perf backends: the set counted from start to stop, nothing started, stopped or reset it
 * between (a disabled event's times stand still, so its gap alone would not tell), and every
 * counter was on a counter at both ends and all the time between.
 */
static bool perf_region_valid(const struct pmuser_counters *c, const struct pmuser_region *r,
			      const uint64_t end[], const uint64_t gap[], uint64_t raw[])
{
	unsigned int i;

	(void)end, (void)raw;
	if (!c->enabled || r->seq != c->ctl_gen)
		return false;
	for (i = 0; i < c->nr; i++)
		if (c->ctr[i].supported &&
		    (r->gap[i] == PMUSER_GAP_OFF || gap[i] != r->gap[i]))
			return false;
	return true;
}

#if defined(__aarch64__)
/* Reads without a run reader between two looks for one. */
#define MMAP_RECHOOSE	64

/*
 * The general read: each event by its page or, off its counter, by read(). It runs when the
 * chosen reader's run no longer holds (each context switch schedules the events again around
 * other users' events, and perf may place them elsewhere) or when there was none: the reader
 * for where the events are now is chosen for the next reads, at once after a run reader
 * failed, else every MMAP_RECHOOSE reads.
 */
static int mmap_read_moved(struct pmuser_counters *c, uint64_t values[])
{
	unsigned int i;
	int ret;

	if (c->read_all != pmuser__read_general || !c->mmap_rechoose--) {
		c->mmap_rechoose = MMAP_RECHOOSE;
		mmap_choose_reader(c);
	}
	ret = perf_read_raw(c, values, NULL, false);
	for (i = 0; !ret && i < c->nr; i++)
		if (!c->ctr[i].supported)
			values[i] = 0;
	return ret;
}
#endif

static int perf_mmap_open(struct pmuser_counters *c, char *why, size_t whylen)
{
	return perf_open(c, true, why, whylen);
}

static int perf_read_open(struct pmuser_counters *c, char *why, size_t whylen)
{
	return perf_open(c, false, why, whylen);
}

const struct pmuser__backend_ops pmuser__perf_mmap_ops = {
	.open = perf_mmap_open,
	.close = perf_close,
	.read_raw = perf_read_raw,
#if defined(__aarch64__)
	.read = mmap_read_moved,
#endif
	.read_full = perf_read_full,
	.ctl = perf_ctl,
	.region_valid = perf_region_valid,
};

const struct pmuser__backend_ops pmuser__perf_read_ops = {
	.open = perf_read_open,
	.close = perf_close,
	.read_raw = perf_read_raw,
	.read_full = perf_read_full,
	.ctl = perf_ctl,
	.region_valid = perf_region_valid,
};
