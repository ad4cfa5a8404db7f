// SPDX-License-Identifier: MIT
/*
 * The library in the guest: every counter index reads its own counter, regions are exact
 * under -icount on every backend, backends are chosen (and overridden) as documented and the
 * perf backends take over when the module is gone.
 */
#include <math.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "pmuser_test.h"

/* k instructions exactly, nothing else: the region's payload. */
#define NOPS(k) __asm__ __volatile__(".rept " #k "\n\tnop\n\t.endr" ::: "memory")

static int open_set(enum pmuser_backend b, bool cycles, const uint32_t *ev, unsigned int n,
		    uint32_t flags, struct pmuser_counters **c)
{
	struct pmuser_counters_attr a;
	char why[256];
	unsigned int i;
	int ret;

	pmuser_counters_attr_init(&a);
	a.backend = b;
	a.flags = flags | (cycles ? PMUSER_COUNTERS_CYCLES : 0);
	a.nr_events = n;
	for (i = 0; i < n; i++)
		a.events[i].event = ev[i];
	ret = pmuser_counters_open(&a, c, why, sizeof(why));
	if (ret)
		fprintf(stderr, "# open %s: %s (%s)\n", pmuser_backend_name(b), strerror(-ret), why);
	return ret;
}

/* The perf backends this architecture has besides the module. */
static bool has_perf_mmap(void)
{
#if defined(__aarch64__)
	return true;
#else
	return false;
#endif
}

TEST(every_counter_index_reads_its_counter)
{
	struct pmuser_cpu_info ci;
	struct pmuser_config cfg;
	uint32_t ev[PMUSER_MAX_EVENTS];
	unsigned int i, n;
	int fd;

	ASSERT_EQ(0, pmuser_thread_pin(0));
	fd = pmuser_device_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pmuser_device_cpu_info(fd, 0, &ci));
	n = ci.nr_counters;
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++)
		ev[i] = EV_SW_INCR;
	config_events(&cfg, 1, ev, n);
	for (i = 0; i < n; i++)
		cfg.events[i].flags = PMUSER_COUNT_MASK;	/* increments are made at EL1 */
	ASSERT_EQ(0, pmuser_device_configure(fd, &cfg));
	ASSERT_EQ(0, pmuser_device_grant(fd, 0));
	ASSERT_EQ(0, test_page_map(fd));
	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_device_reset(fd));
	/* A distinct count per counter: any index mix-up reads some other counter's value. */
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, pmuser_device_swinc(fd, 1U << cfg.events[i].hw_counter, 100 * (i + 1) + i));
	for (i = 0; i < n; i++) {
		const volatile struct pmuser_page_slot *s = &pmuser_page_cpu(&test_page, 0)->slot[i];
		unsigned int hw = cfg.events[i].hw_counter;

		EXPECT_EQ(hw, s->hw);
		EXPECT_EQ(100 * (i + 1) + i, pmuser_page_value(s, pmuser_counter_read(hw)))
			TH_LOG("counter %u", hw);
		EXPECT_EQ(100 * (i + 1) + i, pmuser_page_value(s, pmuser_counter_read_serial(hw)));
	}
	pmuser_page_unmap(&test_page);
	close(fd);
}

/*
 * name(c, r): a region around body that no context switch touched, in at most 20 tries. The
 * module flags a switch itself, but perf's per-thread counts stay the thread's own while the
 * switch still costs the lazy FP trap (see fp_touch). One function per block keeps each
 * function small: GCC sizes an asm statement by its lines, not by its .rept count, and would
 * otherwise place ARM literal pools out of reach of a large function's loads.
 */
#define QUIET_REGION_FN(name, body)						\
static __attribute__((noinline)) void name(struct pmuser_counters *c, struct pmuser_region *r) \
{										\
	unsigned int tries = 0;							\
	unsigned long sw;							\
										\
	do {									\
		sw = thread_switches();						\
		fp_touch();							\
		PMUSER_REGION(c, r) {						\
			body;							\
		}								\
	} while ((!r->valid || thread_switches() != sw) && ++tries < 20);	\
}

QUIET_REGION_FN(quiet_empty, )
QUIET_REGION_FN(quiet_nops_1, NOPS(1))
QUIET_REGION_FN(quiet_nops_100, NOPS(100))
QUIET_REGION_FN(quiet_nops_300, NOPS(300))

/* Empty region 0, k-instruction block k, for INST_RETIRED (and cycles on the module). */
static void region_exact(struct __test_metadata *_metadata, enum pmuser_backend b)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_counters *c;
	struct pmuser_region r;
	bool cycles = b == PMUSER_BACKEND_MODULE;
	unsigned int inst = cycles ? 1 : 0;

	ASSERT_EQ(0, pmuser_thread_pin(0));
	ASSERT_EQ(0, open_set(b, cycles, ev, 1, 0, &c));
	ASSERT_EQ(b, pmuser_counters_backend(c));
	ASSERT_EQ(0, pmuser_region_calibrate(c, 200));
	TH_LOG("%s: bias %llu instructions", pmuser_backend_name(b),
	       (unsigned long long)pmuser_region_bias(c, inst));
	EXPECT_LT(0, pmuser_region_bias(c, inst));
	if (!getenv("PMUSER_ICOUNT_EXACT")) {
		pmuser_counters_close(c);
		SKIP(return, "exact counts need -icount");
	}
	/* QEMU counts another vCPU's turn inside a region on this one's counters too. */
	other_cpus_set(0);
	quiet_empty(c, &r);
	EXPECT_TRUE(r.valid);
	EXPECT_EQ(0, r.delta[inst]);
	quiet_nops_1(c, &r);
	EXPECT_EQ(1, r.delta[inst]);
	quiet_nops_100(c, &r);
	EXPECT_EQ(100, r.delta[inst]);
	if (cycles)
		EXPECT_EQ(100, r.delta[0]);
	quiet_nops_300(c, &r);
	other_cpus_set(1);
	EXPECT_EQ(300, r.delta[inst]);
	EXPECT_EQ(300 + pmuser_region_bias(c, inst), r.raw[inst]);
	pmuser_counters_close(c);
}

TEST(region_exact_module)
{
	REQUIRE_COUNTING();
	region_exact(_metadata, PMUSER_BACKEND_MODULE);
}

TEST(region_exact_perf_read)
{
	REQUIRE_COUNTING();
	region_exact(_metadata, PMUSER_BACKEND_PERF_READ);
}

/*
 * A module set given other events (pmu-stat's rotation): it counts from 0 again, with the new
 * events' names and counters, exact regions once calibrated again (the bias is dropped); a
 * reconfiguration perf has no room for leaves it holding nothing, every read failing and
 * every region invalid, until one succeeds; bad arguments leave it as it was, and a perf
 * set's events stay fixed.
 */
TEST(module_set_reconfigures)
{
	static const uint32_t one[] = { EV_INST_RETIRED };
	struct pmuser_evspec_entry ev[PMUSER_MAX_EVENTS];
	uint64_t v[PMUSER_COUNTERS_MAX];
	struct pmuser_counters *c, *p;
	struct pmuser_cpu_info ci;
	struct pmuser_region r;
	unsigned int i, n;
	char why[320];
	int fd, ret;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_thread_pin(0));
	fd = pmuser_device_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pmuser_device_cpu_info(fd, 0, &ci));
	close(fd);
	n = ci.nr_counters;
	ASSERT_LT(0U, n);
	ASSERT_GT(PMUSER_MAX_EVENTS, n);
	for (i = 0; i < PMUSER_MAX_EVENTS; i++)
		ev[i] = (struct pmuser_evspec_entry){ .event = EV_INST_RETIRED,
						      .name = "INST_RETIRED" };
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_MODULE, true, one, 1, 0, &c));
	ASSERT_EQ(0, pmuser_region_calibrate(c, 200));
	spin2(500000);

	/* Bad arguments change nothing. */
	EXPECT_EQ(-EINVAL, pmuser_counters_reconfigure(c, NULL, 1, why, sizeof(why)));
	EXPECT_EQ(-EINVAL, pmuser_counters_reconfigure(c, ev, PMUSER_MAX_EVENTS + 1, why,
						       sizeof(why)));
	EXPECT_TRUE(strstr(why, "PMUSER_MAX_EVENTS") != NULL) TH_LOG("%s", why);
	EXPECT_EQ(2U, pmuser_counters_nr(c));
	EXPECT_LT(0, pmuser_region_bias(c, 1));
	ASSERT_EQ(0, pmuser_counters_read(c, v));
	EXPECT_LE(1000000, v[1]);

	ASSERT_EQ(0, pmuser_counters_reconfigure(c, ev, 2, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, pmuser_counters_read(c, v));
	EXPECT_EQ(3U, pmuser_counters_nr(c));
	EXPECT_STREQ("cycles", pmuser_counters_name(c, 0));
	EXPECT_STREQ("INST_RETIRED", pmuser_counters_name(c, 2));
	EXPECT_EQ(0, pmuser_region_bias(c, 1));
	for (i = 1; i < 3; i++) {
		EXPECT_GT(100000, v[i]) TH_LOG("counter %u after the reconfiguration", i);
		EXPECT_LE(0, pmuser_counters_hw(c, i));
		EXPECT_LE(0, pmuser_counters_slot(c, i));
	}
	EXPECT_NE(pmuser_counters_hw(c, 1), pmuser_counters_hw(c, 2));
	ASSERT_EQ(0, pmuser_region_calibrate(c, 200));
	if (getenv("PMUSER_ICOUNT_EXACT")) {
		/* QEMU counts another vCPU's turn inside a region on this one's counters too. */
		other_cpus_set(0);
		quiet_nops_100(c, &r);
		other_cpus_set(1);
		EXPECT_TRUE(r.valid);
		EXPECT_EQ(100, r.delta[0]);
		EXPECT_EQ(100, r.delta[1]);
		EXPECT_EQ(100, r.delta[2]);
	}

	/* One event more than the CPU has counters: the set holds nothing. */
	ret = pmuser_counters_reconfigure(c, ev, n + 1, why, sizeof(why));
	TH_LOG("%u events on %u counters: %s (%s)", n + 1, n, strerror(-ret), why);
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_TRUE(strstr(why, "module: PMUSER_IOC_CONFIGURE: ") != NULL) TH_LOG("%s", why);
	EXPECT_FALSE(pmuser_counters_supported(c, 0));
	EXPECT_FALSE(pmuser_counters_supported(c, 1));
	EXPECT_EQ(-ENODATA, pmuser_counters_read(c, v));
	EXPECT_EQ(-ENODATA, pmuser_counters_read_raw(c, v));
	EXPECT_EQ(-ENODATA, pmuser_counters_reset(c));
	EXPECT_EQ(-ENODATA, pmuser_counters_enable(c));
	EXPECT_TRUE(strstr(pmuser_counters_timer(c), "none") != NULL);
	pmuser_region_start(c, &r);
	pmuser_region_stop(c, &r);
	EXPECT_FALSE(r.valid);

	/* And back. */
	ASSERT_EQ(0, pmuser_counters_reconfigure(c, ev, 1, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(2U, pmuser_counters_nr(c));
	EXPECT_TRUE(pmuser_counters_supported(c, 1));
	ASSERT_EQ(0, pmuser_counters_read(c, v));
	spin2(5000);
	ASSERT_EQ(0, pmuser_counters_read(c, r.start));
	EXPECT_LE(v[1] + 10000, r.start[1]);
	pmuser_counters_close(c);

	/* A perf set's events are fixed at its open. */
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_PERF_READ, true, one, 1, 0, &p));
	EXPECT_EQ(-EOPNOTSUPP, pmuser_counters_reconfigure(p, ev, 2, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "perf-read") != NULL) TH_LOG("%s", why);
	EXPECT_EQ(2U, pmuser_counters_nr(p));
	EXPECT_EQ(0, pmuser_counters_read(p, v));
	pmuser_counters_close(p);
}

/*
 * A set of one event that perf puts on the cycle counter (PMUv3's CPU_CYCLES, ARMv7's 0xff),
 * without the set's own cycle count: the module holds it there and reads it at the width the
 * page gives. Each is configured alone; an event this core lacks may be refused as such.
 */
TEST(cycle_event_alone_takes_the_cycle_counter)
{
	static const uint32_t ev[] = { EV_CPU_CYCLES, 0xff };
	unsigned int i, on_cycle = 0;
	struct pmuser_counters *c;
	struct pmuser_region r;
	int ret;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_thread_pin(0));
	for (i = 0; i < 2; i++) {
		ret = open_set(PMUSER_BACKEND_MODULE, false, &ev[i], 1, 0, &c);
		if (ret == -EOPNOTSUPP)
			continue;
		ASSERT_EQ(0, ret) TH_LOG("event 0x%x", ev[i]);
		TH_LOG("event 0x%x on counter %d", ev[i], pmuser_counters_hw(c, 0));
		if (pmuser_counters_hw(c, 0) != PMUSER_HW_CYCLE) {
			pmuser_counters_close(c);
			continue;
		}
		on_cycle++;
		ASSERT_EQ(0, pmuser_region_calibrate(c, 200));
		if (getenv("PMUSER_ICOUNT_EXACT")) {
			/* Under -icount a cycle is an instruction. */
			quiet_nops_100(c, &r);
			EXPECT_TRUE(r.valid);
			EXPECT_EQ(100, r.delta[0]) TH_LOG("event 0x%x", ev[i]);
		}
		pmuser_counters_close(c);
	}
	EXPECT_EQ(1U, on_cycle);
}

/*
 * pmuser_counter_read_n() with constant counters around a block, checked by the page: every
 * counter's window holds the same instructions (both reads go in the same order), so an empty
 * region and a 100-instruction one differ by exactly 100 in each.
 */
static const unsigned int inline_hw[] = { PMUSER_HW_CYCLE, 0, 1 };

/* read_n of inline_hw, or the library's raw reader of the set: 0 once read. */
#define READ_N(c, v) (pmuser_counter_read_n(3, inline_hw, v), 0)
#define READ_RAW(c, v) pmuser_counters_read_raw(c, v)

/* Whether the window of the set's three counters counts, by pmuser_page_delta(): d[]. */
static bool window_counts(struct pmuser_counters *c, struct pmuser_page_mark m,
			  const uint64_t a[3], const uint64_t b[3], uint64_t d[3])
{
	unsigned int i, slot[3], hw[3];

	for (i = 0; i < 3; i++) {
		slot[i] = (unsigned int)pmuser_counters_slot(c, i);
		hw[i] = (unsigned int)pmuser_counters_hw(c, i);
	}
	return pmuser_page_delta(pmuser_counters_page(c), m, slot, hw, 3, a, b, d);
}

#define WINDOW_FN(name, read, body)						\
static __attribute__((noinline)) bool name(struct pmuser_counters *c, uint64_t a[3],	\
					   uint64_t b[3], uint64_t d[3])		\
{											\
	struct pmuser_page_mark m = pmuser_page_mark(pmuser_counters_page(c));	\
											\
	if (read(c, a))									\
		return false;								\
	body;										\
	if (read(c, b))									\
		return false;								\
	return window_counts(c, m, a, b, d);					\
}
WINDOW_FN(inline_empty, READ_N, )
WINDOW_FN(inline_nops_100, READ_N, NOPS(100))
WINDOW_FN(raw_empty, READ_RAW, )
WINDOW_FN(raw_nops_100, READ_RAW, NOPS(100))

typedef bool region_fn(struct pmuser_counters *c, uint64_t a[3], uint64_t b[3],
		       uint64_t d[3]);

/* The deltas of a quiet inline region (at most 20 tries): true if one came about. */
static bool inline_deltas(struct pmuser_counters *c, region_fn *fn, uint64_t d[3])
{
	uint64_t a[3], b[3];
	unsigned int tries;

	for (tries = 0; tries < 20; tries++) {
		unsigned long sw = thread_switches();

		fp_touch();
		if (fn(c, a, b, d) && thread_switches() == sw)
			return true;
	}
	return false;
}

static const uint32_t inline_ev[] = { EV_INST_RETIRED, EV_INST_RETIRED };

/* Why the module set of inline_hw cannot be tested exactly here, or NULL. */
static const char *inline_set_unusable(const struct pmuser_counters *c)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (pmuser_counters_hw(c, i) != (int)inline_hw[i])
			return "the set is not on the cycle counter and event counters 0, 1";
	if (!getenv("PMUSER_ICOUNT_EXACT"))
		return "exact counts need -icount";
	return NULL;
}

/*
 * The empty and the 100-instruction windows (e, k) of a module set of inline_hw, each
 * bracketed by the reads empty and nops make: NULL, or why they cannot be measured here.
 */
static const char *inline_windows(struct __test_metadata *_metadata, region_fn *empty,
				  region_fn *nops, uint64_t e[3], uint64_t k[3])
{
	struct pmuser_counters *c;
	const char *why;

	ASSERT_EQ(0, pmuser_thread_pin(0));
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_MODULE, true, inline_ev, 2, 0, &c));
	why = inline_set_unusable(c);
	if (!why) {
		bool measured;

		/* QEMU counts another vCPU's turn inside a window on this one's counters too. */
		other_cpus_set(0);
		measured = inline_deltas(c, empty, e) && inline_deltas(c, nops, k);
		other_cpus_set(1);
		ASSERT_TRUE(measured);
		TH_LOG("empty window: %llu %llu %llu", (unsigned long long)e[0],
		       (unsigned long long)e[1], (unsigned long long)e[2]);
	}
	pmuser_counters_close(c);
	return why;
}

TEST(inline_read_n_exact)
{
	uint64_t e[3], k[3];
	const char *why;
	unsigned int i;

	REQUIRE_COUNTING();
	why = inline_windows(_metadata, inline_empty, inline_nops_100, e, k);
	if (why)
		SKIP(return, "%s", why);
	for (i = 0; i < 3; i++) {
#if defined(__aarch64__)
		/*
		 * Between a counter's two reads: the other two reads, three barriers and the
		 * first read's stores (two): 2N + 1 for N = 3, the same for every counter.
		 */
		EXPECT_GE(7, e[i]);
		EXPECT_EQ(e[0], e[i]);
#endif
		EXPECT_EQ(e[i] + 100, k[i]);
	}
}

/*
 * pmuser_counters_read_raw() reads the registers read_n reads: a 100-instruction block reads
 * exactly 100 more, and on arm64 every counter's window is the same (the reader chosen for
 * the layout reads them back to back). Other backends refuse it.
 */
TEST(read_raw_exact)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_counters *c;
	uint64_t e[3], k[3], v[2];
	const char *why;
	unsigned int i;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_PERF_READ, true, ev, 1, 0, &c));
	EXPECT_EQ(-EOPNOTSUPP, pmuser_counters_read_raw(c, v));
	pmuser_counters_close(c);
	why = inline_windows(_metadata, raw_empty, raw_nops_100, e, k);
	if (why)
		SKIP(return, "%s", why);
	for (i = 0; i < 3; i++) {
#if defined(__aarch64__)
		EXPECT_EQ(e[0], e[i]);
#endif
		EXPECT_EQ(e[i] + 100, k[i]);
	}
}

/*
 * A region whose thread moved to another CPU between start and stop is flagged, and the next
 * region, wholly on the new CPU, is exact: the counts are the page's, kept per CPU.
 */
TEST(region_migrated_is_flagged)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_counters *c;
	struct pmuser_region r;

	REQUIRE_COUNTING();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: nowhere to migrate to");
	ASSERT_EQ(0, pmuser_thread_pin(0));
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_MODULE, true, ev, 1, 0, &c));
	ASSERT_EQ(0, pmuser_region_calibrate(c, 200));
	pmuser_region_start(c, &r);
	ASSERT_EQ(0, pmuser_thread_pin(1));
	pmuser_region_stop(c, &r);
	EXPECT_EQ(1, pmuser_thread_cpu());
	EXPECT_FALSE(r.valid) TH_LOG("a region from CPU 0 to CPU 1 was taken as valid");
	if (getenv("PMUSER_ICOUNT_EXACT")) {
		quiet_nops_100(c, &r);
		EXPECT_TRUE(r.valid);
		EXPECT_EQ(100, r.delta[1]);
	}
	pmuser_counters_close(c);
}

/* 32-bit perf masks event numbers to 8 bits: a wider one is refused, not counted as another. */
TEST(perf_refuses_wider_event_numbers_on_32_bit)
{
	static const uint32_t ev[] = { 0x4004 };
	struct pmuser_counters *c;

#if !defined(__arm__)
	SKIP(return, "arm64 event numbers are 16 bits");
#endif
	REQUIRE_COUNTING();
	EXPECT_EQ(-EOPNOTSUPP, open_set(PMUSER_BACKEND_PERF_READ, true, ev, 1, 0, &c));
}

/* Self-read and read() measure the same region identically. */
TEST(region_exact_perf_mmap)
{
	if (!has_perf_mmap())
		SKIP(return, "perf self-read is arm64 only");
	region_exact(_metadata, PMUSER_BACKEND_PERF_MMAP);
}

/* The perf-mmap backend opened with its reason at hand: 0 or -errno, why filled. */
static int open_mmap_why(struct pmuser_counters **c, char *why, size_t len, uint32_t flags)
{
	static const uint32_t ev[] = { EV_INST_RETIRED, EV_CPU_CYCLES, EV_INST_RETIRED };
	struct pmuser_counters_attr a;
	unsigned int i;

	pmuser_counters_attr_init(&a);
	a.backend = PMUSER_BACKEND_PERF_MMAP;
	a.flags = flags;
	a.nr_events = 3;
	for (i = 0; i < 3; i++)
		a.events[i].event = ev[i];
	why[0] = '\0';
	return pmuser_counters_open(&a, c, why, len);
}

/* With kernel.perf_user_access 0 the perf-mmap backend refuses, and says that is why. */
TEST(perf_mmap_refusal_names_the_sysctl)
{
	const char *sysctl = "/proc/sys/kernel/perf_user_access";
	struct pmuser_counters *c;
	char why[512], why_disabled[512];
	int ret, ret_disabled;

	if (!has_perf_mmap())
		SKIP(return, "perf self-read is arm64 only");
	if (access(sysctl, W_OK))
		SKIP(return, "no kernel.perf_user_access");
	ASSERT_EQ(0, sysctl_write(sysctl, "0"));
	ret = open_mmap_why(&c, why, sizeof(why), 0);
	/* Opened disabled, nothing has run yet: the sysctl says as much already. */
	ret_disabled = open_mmap_why(&c, why_disabled, sizeof(why_disabled),
				     PMUSER_COUNTERS_DISABLED);
	ASSERT_EQ(0, sysctl_write(sysctl, "1"));
	ASSERT_EQ(-EPERM, ret);
	EXPECT_TRUE(strstr(why, "kernel.perf_user_access is 0") != NULL) TH_LOG("%s", why);
	ASSERT_EQ(-EPERM, ret_disabled);
	EXPECT_TRUE(strstr(why_disabled, "kernel.perf_user_access is 0") != NULL)
		TH_LOG("%s", why_disabled);
}

/*
 * Other users' CPU-wide events outnumber the counters, so perf multiplexes and the new
 * events may not be on a counter when they open: that is no reason to refuse (reads go
 * through read() while an event is off its counter), and no read goes backwards.
 */
TEST(perf_mmap_opens_beside_multiplexing)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(attr),
		.config = EV_INST_RETIRED,
	};
	uint64_t v[3], prev[3] = { 0 };
	struct pmuser_counters *c;
	unsigned int k, i, back = 0;
	char why[512];
	int fds[16], others = 0, ret;

	if (!has_perf_mmap())
		SKIP(return, "perf self-read is arm64 only");
	ASSERT_EQ(0, pmuser_thread_pin(0));
	for (k = 0; k < 16; k++) {
		fds[k] = perf_open(&attr, -1, 0);
		others += fds[k] >= 0;
	}
	ASSERT_LT(0, others);
	ret = open_mmap_why(&c, why, sizeof(why), 0);
	EXPECT_EQ(0, ret) TH_LOG("%s", why);
	for (k = 0; !ret && k < 2000; k++) {
		ASSERT_EQ(0, pmuser_counters_read(c, v));
		for (i = 0; i < 3; i++) {
			back += v[i] < prev[i];
			prev[i] = v[i];
		}
	}
	if (!ret)
		pmuser_counters_close(c);
	for (k = 0; k < 16; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	EXPECT_EQ(0, back);
}

/*
 * Another user's pinned CPU-wide cycles event holds the cycle counter: the set's cycles take
 * an event counter and the set counts (a 64-bit cycles event that user space reads could
 * only take the cycle counter, and would never run).
 */
TEST(perf_mmap_counts_beside_another_users_cycles)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.pinned = 1,
	};
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_count a[2], b[2];
	struct pmuser_counters *c;
	int other;

	if (!has_perf_mmap())
		SKIP(return, "perf self-read is arm64 only");
	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_thread_pin(0));
	other = perf_open(&attr, -1, 0);
	ASSERT_LE(0, other) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_PERF_MMAP, true, ev, 1, 0, &c));
	ASSERT_EQ(0, pmuser_counters_read_full(c, a));
	NOPS(100);
	ASSERT_EQ(0, pmuser_counters_read_full(c, b));
	EXPECT_LT(a[0].running, b[0].running);
	EXPECT_LT(a[0].value, b[0].value);
	EXPECT_LE(a[1].value + 100, b[1].value);
	pmuser_counters_close(c);
	close(other);
}

/* Opened disabled, no event is on a counter yet: reads fall back to read(), group included. */
TEST(perf_mmap_reads_before_enable)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_counters *c;
	uint64_t v[2] = { 1, 1 };

	if (!has_perf_mmap())
		SKIP(return, "perf self-read is arm64 only");
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_PERF_MMAP, true, ev, 1, PMUSER_COUNTERS_DISABLED, &c));
	ASSERT_EQ(0, pmuser_counters_read(c, v));
	EXPECT_EQ(0, v[0]);
	EXPECT_EQ(0, v[1]);
	ASSERT_EQ(0, pmuser_counters_enable(c));
	ASSERT_EQ(0, pmuser_counters_read(c, v));
	EXPECT_LT(0, v[1]);
	pmuser_counters_close(c);
}

/*
 * A perf region measures only while the set counts: a disabled event's times stand still, so
 * its gaps agree at both ends while the block goes uncounted. Opened disabled, disabled, or
 * enabled, disabled or reset between start and stop, the region is invalid.
 */
TEST(perf_regions_only_while_the_set_counts)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	static const enum pmuser_backend b[] = { PMUSER_BACKEND_PERF_READ,
						 PMUSER_BACKEND_PERF_MMAP };
	struct pmuser_count cnt[1];
	struct pmuser_value val[1];
	struct pmuser_counters *c;
	struct pmuser_region r;
	unsigned int k;

	REQUIRE_COUNTING();
	for (k = 0; k < 2; k++) {
		if (b[k] == PMUSER_BACKEND_PERF_MMAP && !has_perf_mmap())
			continue;
		TH_LOG("%s", pmuser_backend_name(b[k]));
		ASSERT_EQ(0, open_set(b[k], false, ev, 1, PMUSER_COUNTERS_DISABLED, &c));
		quiet_nops_100(c, &r);
		EXPECT_FALSE(r.valid);
		/* Never on a counter yet: no value of 0 for the metrics. */
		ASSERT_EQ(0, pmuser_counters_read_full(c, cnt));
		EXPECT_EQ(0, cnt[0].running);
		ASSERT_EQ(1, pmuser_values_fill(c, cnt, val));
		EXPECT_TRUE(isnan(val[0].value));
		ASSERT_EQ(0, pmuser_counters_enable(c));
		quiet_nops_100(c, &r);
		EXPECT_TRUE(r.valid);
		EXPECT_LE(100, r.raw[0]);
		pmuser_region_start(c, &r);
		ASSERT_EQ(0, pmuser_counters_reset(c));
		pmuser_region_stop(c, &r);
		EXPECT_FALSE(r.valid);
		pmuser_region_start(c, &r);
		ASSERT_EQ(0, pmuser_counters_disable(c));
		ASSERT_EQ(0, pmuser_counters_enable(c));
		pmuser_region_stop(c, &r);
		EXPECT_FALSE(r.valid);
		quiet_nops_100(c, &r);
		EXPECT_TRUE(r.valid);
		ASSERT_EQ(0, pmuser_counters_disable(c));
		quiet_nops_100(c, &r);
		EXPECT_FALSE(r.valid);
		pmuser_counters_close(c);
	}
}

/*
 * perf's reset reads a counting event into its count and republishes the page with the raw
 * value zero-extended, while the self-read sign-extends the counter: read through the page
 * right after, the count would be 2^32 off until perf next loaded the counter. Counts after
 * a reset start again from 0, on every perf backend.
 */
TEST(reset_counts_from_zero)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	static const enum pmuser_backend b[] = { PMUSER_BACKEND_PERF_READ,
						 PMUSER_BACKEND_PERF_MMAP };
	struct pmuser_counters *c;
	uint64_t v[3][2];
	unsigned int k;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_thread_pin(0));
	for (k = 0; k < 2; k++) {
		if (b[k] == PMUSER_BACKEND_PERF_MMAP && !has_perf_mmap())
			continue;
		ASSERT_EQ(0, open_set(b[k], true, ev, 1, 0, &c));
		spin2(500000);
		ASSERT_EQ(0, pmuser_counters_read(c, v[0]));
		ASSERT_EQ(0, pmuser_counters_reset(c));
		ASSERT_EQ(0, pmuser_counters_read(c, v[1]));
		spin2(5000);
		ASSERT_EQ(0, pmuser_counters_read(c, v[2]));
		TH_LOG("%s: instructions %llu before the reset, %llu and %llu after",
		       pmuser_backend_name(b[k]), (unsigned long long)v[0][1],
		       (unsigned long long)v[1][1], (unsigned long long)v[2][1]);
		EXPECT_LE(1000000, v[0][1]);
		EXPECT_GT(100000, v[1][1]);
		EXPECT_LE(v[1][1] + 10000, v[2][1]);
		EXPECT_GT(100000 + v[1][1], v[2][1]);
		EXPECT_GT(1ULL << 40, v[1][0]);
		EXPECT_LE(v[1][0], v[2][0]);
		pmuser_counters_close(c);
	}
}

/* A thread's count over loops of n on CPU 0 and then n on CPU 1 (user mode), or -errno. */
static int64_t count_on_both_cpus(struct pmuser_counters *c, unsigned long n)
{
	uint64_t v0[1], v1[1];

	if (pmuser_thread_pin(0) || pmuser_counters_read(c, v0))
		return -EIO;
	spin2(n);
	if (pmuser_thread_pin(1))
		return -EIO;
	spin2(n);
	if (pmuser_counters_read(c, v1))
		return -EIO;
	return (int64_t)(v1[0] - v0[0]);
}

/*
 * On big.LITTLE a perf set counts on every cluster: a thread that runs a loop on each of two
 * CPUs of different CPU PMUs gets both loops counted. The difference between two such runs
 * is their extra instructions exactly; another vCPU's turn inside a loop only adds (QEMU's
 * -icount counts globally), so the least of a few tries is the loops' own.
 */
TEST(perf_set_counts_on_every_cluster)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	enum pmuser_backend b[2] = { PMUSER_BACKEND_PERF_READ, PMUSER_BACKEND_PERF_MMAP };
	struct pmuser_counters *c;
	unsigned int k, i;

	REQUIRE_COUNTING();
	if (cpu_pmus() < 2)
		SKIP(return, "one CPU PMU: not big.LITTLE");
	for (k = 0; k < (has_perf_mmap() ? 2U : 1U); k++) {
		int64_t least1 = INT64_MAX, least2 = INT64_MAX, d;

		ASSERT_EQ(0, open_set(b[k], false, ev, 1, 0, &c));
		for (i = 0; i < 8 && least2 - least1 != 2 * 2 * 10000; i++) {
			d = count_on_both_cpus(c, 1000);
			ASSERT_LT(0, d);
			least1 = d < least1 ? d : least1;
			d = count_on_both_cpus(c, 11000);
			ASSERT_LT(0, d);
			least2 = d < least2 ? d : least2;
		}
		TH_LOG("%s: %lld and %lld instructions (least of %u tries)", pmuser_backend_name(b[k]),
		       (long long)least1, (long long)least2, i);
		EXPECT_EQ(2 * 2 * 10000, least2 - least1);
		pmuser_counters_close(c);
	}
}

/* A region whose start read nothing does not pair its stop with an earlier start. */
TEST(perf_region_with_a_failed_start_is_invalid)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_counters *c;
	struct pmuser_region r;
	int fds[4], saved[4], null_fd, n, i;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_PERF_READ, true, ev, 1, 0, &c));
	n = perf_fds(getpid(), fds, 4);
	/* The cycles and the event, on each CPU PMU. */
	ASSERT_EQ(2 * (int)(cpu_pmus() > 1 ? cpu_pmus() : 1), n);
	quiet_nops_100(c, &r);
	ASSERT_TRUE(r.valid);
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, null_fd);
	for (i = 0; i < n; i++) {
		saved[i] = dup(fds[i]);
		ASSERT_LE(0, saved[i]);
		ASSERT_EQ(fds[i], dup2(null_fd, fds[i]));
	}
	pmuser_region_start(c, &r);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(fds[i], dup2(saved[i], fds[i]));
		close(saved[i]);
	}
	close(null_fd);
	NOPS(100);
	pmuser_region_stop(c, &r);
	EXPECT_FALSE(r.valid);
	quiet_nops_100(c, &r);
	EXPECT_TRUE(r.valid);
	pmuser_counters_close(c);
}

/*
 * The instructions (INST_RETIRED:u, counter k) from one pmuser_counters_read() to the next,
 * with nothing or 100 instructions between them; a try that a context switch touched or a
 * read that failed is made again (at most 20 tries). 0 when no try came about.
 */
#define READ_GAP_FN(name, body)							\
static __attribute__((noinline)) uint64_t name(struct pmuser_counters *c, unsigned int k) \
{										\
	uint64_t a[3], b[3];							\
	unsigned int tries;							\
	unsigned long sw;							\
										\
	for (tries = 0; tries < 20; tries++) {					\
		sw = thread_switches();						\
		fp_touch();							\
		if (pmuser_counters_read(c, a))					\
			continue;						\
		body;								\
		if (!pmuser_counters_read(c, b) && thread_switches() == sw)	\
			return b[k] - a[k];					\
	}									\
	return 0;								\
}
READ_GAP_FN(read_gap_empty, )
READ_GAP_FN(read_gap_100, NOPS(100))

/*
 * Pinned CPU-wide INST_RETIRED events on cpu, as another perf user holds them: perf gives
 * them the lowest event counters before any task's events.
 */
static int pinned_events(int cpu, int *fds, unsigned int n)
{
	struct perf_event_attr pa;
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(&pa, 0, sizeof(pa));
		pa.size = sizeof(pa);
		pa.type = PERF_TYPE_RAW;
		pa.config = EV_INST_RETIRED;
		pa.pinned = 1;
		pa.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		fds[i] = perf_open(&pa, -1, cpu);
		if (fds[i] < 0)
			return -errno;
	}
	return 0;
}

/*
 * perf-mmap reads follow perf's placement: another user's pinned events take the event
 * counters the set sat on, perf places the set's events above them, and the reads stay exact
 * (a 100-instruction block reads 100 more than nothing), never go back, and, once the reader
 * for the new placement is chosen, cost exactly what they cost before (the run readers differ
 * only in the registers they name). So again once the pinned events are closed and a switch
 * has let perf place the set's events anew.
 */
TEST(perf_mmap_reads_follow_moved_events)
{
	static const uint32_t ev[] = { EV_INST_RETIRED, EV_INST_RETIRED };
	struct pmuser_counters *c;
	uint64_t v[3], last[3] = { 0 }, e[3], g[3];
	int fds[2] = { -1, -1 };
	unsigned int i, j, k;

	if (!has_perf_mmap())
		SKIP(return, "perf self-read is arm64 only");
	REQUIRE_COUNTING();
	ASSERT_EQ(0, pmuser_thread_pin(0));
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_PERF_MMAP, true, ev, 2, 0, &c));
	for (k = 0; k < 3; k++) {
		if (k == 1)
			ASSERT_EQ(0, pinned_events(0, fds, 2));
		if (k == 2) {
			for (i = 0; i < 2; i++)
				close(fds[i]);
			usleep(2000);
		}
		/* The first reads after a move take the general path and choose again. */
		for (i = 0; i < 4; i++) {
			ASSERT_EQ(0, pmuser_counters_read(c, v));
			for (j = 0; j < 3; j++) {
				EXPECT_LE(last[j], v[j]) TH_LOG("counter %u went back", j);
				last[j] = v[j];
			}
		}
		/* QEMU counts another vCPU's turn inside a gap on this one's counters too. */
		other_cpus_set(0);
		e[k] = read_gap_empty(c, 1);
		g[k] = read_gap_100(c, 1);
		other_cpus_set(1);
		TH_LOG("%s: %llu instructions from read to read, %llu around 100",
		       k == 1 ? "beside 2 pinned events" : k ? "after they closed" : "alone",
		       (unsigned long long)e[k], (unsigned long long)g[k]);
		ASSERT_LT(0, e[k]);
		ASSERT_LT(0, g[k]);
		/* Pinned and on their counters all along: the set's events sat elsewhere. */
		for (i = 0; k == 1 && i < 2; i++) {
			uint64_t t[3];

			ASSERT_EQ(sizeof(t), read(fds[i], t, sizeof(t)));
			EXPECT_LT(0, t[2]);
			EXPECT_EQ(t[1], t[2]);
		}
	}
	pmuser_counters_close(c);
	if (!getenv("PMUSER_ICOUNT_EXACT"))
		SKIP(return, "exact counts need -icount");
	for (k = 0; k < 3; k++) {
		EXPECT_EQ(100, g[k] - e[k]);
		EXPECT_EQ(e[0], e[k]);
	}
}

/*
 * A perf self-monitoring program keeps its reads while another process configures and
 * releases pmuser counters (which closes user access on CPUs perf does not manage).
 */
TEST(perf_self_reader_survives_pmuser_users)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_counters *c;
	uint64_t v[2];
	unsigned int i;
	pid_t pid;
	int st;

	if (!has_perf_mmap())
		SKIP(return, "perf self-read is arm64 only");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, pmuser_thread_pin(0));
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_PERF_MMAP, false, ev, 1, 0, &c));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct pmuser_config cfg;
		int fd = pmuser_device_open();

		if (fd < 0 || pmuser_thread_pin(1))
			_exit(1);
		config_events(&cfg, 1, ev, 1);
		for (i = 0; i < 50; i++)
			if (pmuser_device_configure(fd, &cfg) || pmuser_device_release(fd))
				_exit(2);
		_exit(0);
	}
	/* Read (inline, through perf's mmap page) until the child is done. */
	while (waitpid(pid, &st, WNOHANG) == 0)
		ASSERT_EQ(0, pmuser_counters_read(c, v));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	for (i = 0; i < 1000; i++)
		ASSERT_EQ(0, pmuser_counters_read(c, v));
	pmuser_counters_close(c);
}

/*
 * A thread that pmuser grants and that also reads its own perf events inline keeps those
 * reads when pmuser's counters go: perf grants it reads for its own events, whatever pmuser
 * closes for the threads only pmuser granted.
 */
TEST(perf_self_reader_granted_by_pmuser_keeps_its_reads)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_config cfg;
	struct pmuser_counters *c;
	uint64_t v[2];
	unsigned int i;
	int fd;

	if (!has_perf_mmap())
		SKIP(return, "perf self-read is arm64 only");
	ASSERT_EQ(0, pmuser_thread_pin(0));
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_PERF_MMAP, false, ev, 1, 0, &c));
	fd = pmuser_device_open();
	ASSERT_LE(0, fd);
	config_events(&cfg, 1, ev, 1);
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, pmuser_device_configure(fd, &cfg));
		ASSERT_EQ(0, pmuser_device_grant(fd, 0));
		ASSERT_EQ(0, pmuser_counters_read(c, v));
		ASSERT_EQ(0, pmuser_device_release(fd));
		/* Inline, through perf's page: a closed CPU would trap here. */
		ASSERT_EQ(0, pmuser_counters_read(c, v));
		ASSERT_EQ(0, pmuser_device_revoke(fd, 0));
		ASSERT_EQ(0, pmuser_counters_read(c, v));
	}
	close(fd);
	pmuser_counters_close(c);
}

/* A thread the program granted itself (here for its future threads too) opens module sets. */
TEST(module_set_opens_in_a_thread_granted_already)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_counters *c;
	uint64_t v[2];
	int fd;

	REQUIRE_COUNTING();
	fd = pmuser_device_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pmuser_device_grant(fd, PMUSER_ACCESS_PROCESS));
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_MODULE, true, ev, 1, 0, &c));
	EXPECT_EQ(PMUSER_BACKEND_MODULE, pmuser_counters_backend(c));
	EXPECT_EQ(0, pmuser_counters_read(c, v));
	pmuser_counters_close(c);
	close(fd);
}

TEST(read_is_monotonic_64bit)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_counters *c;
	uint64_t a[2], b[2];
	volatile unsigned int i;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_MODULE, true, ev, 1, 0, &c));
	ASSERT_EQ(0, pmuser_counters_read(c, a));
	for (i = 0; i < 10000; i++)
		;
	ASSERT_EQ(0, pmuser_counters_read(c, b));
	EXPECT_LT(a[0], b[0]);
	EXPECT_LT(a[1] + 10000, b[1]);
	pmuser_counters_close(c);
}

#define ADV_SKEW 64

/*
 * n read-alls in a row of a set of the user-only cycle counter and INST_RETIRED, equal under
 * -icount: every read succeeds, and from each read to the next both move by the same amount,
 * up to where in the read each is taken. A value from another counter, or computed against a
 * period perf has ended, would set them apart. The other CPUs are offline meanwhile: QEMU
 * counts their instructions on this vCPU's counters too, one counter before the other at
 * times (thousands apart across one read). Returns the largest difference seen, or
 * UINT64_MAX after a read that failed or went back.
 */
static uint64_t reads_move_together(struct __test_metadata *_metadata, struct pmuser_counters *c,
				    unsigned int n)
{
	uint64_t v[2][2], skew = 0;
	unsigned int i;

	other_cpus_set(0);
	if (pmuser_counters_read(c, v[0]))
		skew = UINT64_MAX;
	for (i = 1; i <= n && skew != UINT64_MAX; i++) {
		const uint64_t *a = v[(i - 1) & 1];
		uint64_t *b = v[i & 1], dc, di, apart;

		if (pmuser_counters_read(c, b) || a[0] > b[0] || a[1] > b[1]) {
			TH_LOG("read %u failed or went back", i);
			skew = UINT64_MAX;
			break;
		}
		dc = b[0] - a[0];
		di = b[1] - a[1];
		apart = dc > di ? dc - di : di - dc;
		if (apart > ADV_SKEW && skew <= ADV_SKEW)
			TH_LOG("read %u: cycles %llu to %llu, instructions %llu to %llu", i,
			       (unsigned long long)a[0], (unsigned long long)b[0],
			       (unsigned long long)a[1], (unsigned long long)b[1]);
		if (apart > skew)
			skew = apart;
	}
	other_cpus_set(1);
	return skew;
}

/*
 * 300,000 read-alls in a row beside another user's sampling event: the reads cross pmuser's
 * period ends (reloads whose interrupt is still to come) and the other event's overflows,
 * whose handling selects counters (on ARMv7 between a reader's select and read when it lands
 * there).
 */
#define ADV_PERIOD 100003
#define ADV_READS 300000u
TEST(read_all_right_across_period_ends)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct perf_event_attr pa = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(pa),
		.config = EV_INST_RETIRED,
		.sample_period = ADV_PERIOD,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	struct pmuser_counters *c;
	unsigned long irq0, irqs;
	uint64_t skew;
	int other;

	REQUIRE_COUNTING();
	if (!getenv("PMUSER_ICOUNT_EXACT"))
		SKIP(return, "not under -icount");
	ASSERT_EQ(0, pmuser_thread_pin(0));
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_MODULE, true, ev, 1, 0, &c));
	/* On CPU 0's PMU: on big.LITTLE an event of another PMU would never run here. */
	pa.type = raw_type_on(0);
	other = perf_open(&pa, 0, -1);
	ASSERT_LE(0, other) TH_LOG("perf_event_open: %s", strerror(errno));
	irq0 = pmu_interrupts();
	skew = reads_move_together(_metadata, c, ADV_READS);
	irqs = pmu_interrupts() - irq0;
	close(other);
	pmuser_counters_close(c);
	TH_LOG("%u reads across %lu PMU interrupts: cycles and instructions at most %llu apart",
	       ADV_READS, irqs, (unsigned long long)skew);
	EXPECT_LT(0, irqs);
	EXPECT_GE(ADV_SKEW, skew);
}

/*
 * A set opened while glibc's rseq area serves the thread, read after the thread unregistered
 * it (its cpu_id is then negative): the reader chosen for the set must not take that for a
 * CPU, and every read goes the general way, right.
 */
TEST(read_all_without_rseq)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_counters *c;
	uint64_t skew;

	REQUIRE_COUNTING();
	if (!getenv("PMUSER_ICOUNT_EXACT"))
		SKIP(return, "not under -icount");
#if defined(RSEQ_SIG)
	if (!pmuser__rseq_usable())
		SKIP(return, "glibc registered no rseq area");
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_MODULE, true, ev, 1, 0, &c));
	/* This test's process ends with the test, so its thread need not register again. */
	ASSERT_EQ(0, syscall(__NR_rseq, (char *)__builtin_thread_pointer() + __rseq_offset,
			     __rseq_size, RSEQ_FLAG_UNREGISTER, RSEQ_SIG))
		TH_LOG("rseq unregister: %s", strerror(errno));
	ASSERT_GT(0, pmuser__rseq_cpu());
	skew = reads_move_together(_metadata, c, 10000);
	pmuser_counters_close(c);
	TH_LOG("10000 reads without rseq: cycles and instructions at most %llu apart",
	       (unsigned long long)skew);
	EXPECT_GE(ADV_SKEW, skew);
#else
	SKIP(return, "no <sys/rseq.h>");
#endif
}

TEST(auto_prefers_module_and_env_overrides)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_counters *c;
	char why[256];
	struct pmuser_counters_attr a;

	REQUIRE_COUNTING();

	ASSERT_EQ(0, open_set(PMUSER_BACKEND_AUTO, true, ev, 1, 0, &c));
	EXPECT_EQ(PMUSER_BACKEND_MODULE, pmuser_counters_backend(c));
	EXPECT_EQ(PMUSER_HW_CYCLE, pmuser_counters_hw(c, 0));
	EXPECT_STREQ("cycles", pmuser_counters_name(c, 0));
	pmuser_counters_close(c);

	setenv("PMUSER_BACKEND", "perf-read", 1);
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_AUTO, true, ev, 1, 0, &c));
	EXPECT_EQ(PMUSER_BACKEND_PERF_READ, pmuser_counters_backend(c));
	EXPECT_EQ(-EOPNOTSUPP, pmuser_counters_hw(c, 0));
	pmuser_counters_close(c);

	setenv("PMUSER_BACKEND", "clock", 1);
	EXPECT_EQ(-EOPNOTSUPP, open_set(PMUSER_BACKEND_AUTO, true, ev, 1, 0, &c));
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_AUTO, true, ev, 1, PMUSER_COUNTERS_OPTIONAL, &c));
	EXPECT_EQ(PMUSER_BACKEND_CLOCK, pmuser_counters_backend(c));
	EXPECT_STREQ("ns", pmuser_counters_name(c, 0));
	EXPECT_FALSE(pmuser_counters_supported(c, 1));
	pmuser_counters_close(c);

	setenv("PMUSER_BACKEND", "pmu", 1);
	pmuser_counters_attr_init(&a);
	a.flags = PMUSER_COUNTERS_CYCLES;
	EXPECT_EQ(-EINVAL, pmuser_counters_open(&a, &c, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "PMUSER_BACKEND='pmu'") != NULL);
	unsetenv("PMUSER_BACKEND");
}

/*
 * A group with more events than the PMU has counters: perf refuses the member that does not
 * fit with EINVAL, as it refuses an event it cannot count. The open says which it is, and an
 * optional set does not pass the event off as unsupported.
 */
TEST(perf_group_too_big_is_not_an_unsupported_event)
{
	uint32_t ev[PMUSER_MAX_EVENTS];
	struct pmuser_cpu_info ci;
	struct pmuser_counters_attr a;
	struct pmuser_counters *c;
	char why[512] = "";
	unsigned int i, n;

	REQUIRE_COUNTING();
	ASSERT_EQ(0, cpu_info_of(0, &ci));
	n = ci.nr_counters + 1;
	ASSERT_GE(PMUSER_MAX_EVENTS, n);
	for (i = 0; i < n; i++)
		ev[i] = EV_INST_RETIRED;
	pmuser_counters_attr_init(&a);
	a.backend = PMUSER_BACKEND_PERF_READ;
	a.flags = PMUSER_COUNTERS_CYCLES | PMUSER_COUNTERS_OPTIONAL;
	a.nr_events = n;
	for (i = 0; i < n; i++)
		a.events[i].event = ev[i];
	EXPECT_EQ(-ENOSPC, pmuser_counters_open(&a, &c, why, sizeof(why)));
	EXPECT_TRUE(strstr(why, "more events than the PMU has counters") != NULL) TH_LOG("%s", why);
	/* The automatic choice says so too: the clock does not take the set in its place. */
	a.backend = PMUSER_BACKEND_AUTO;
	EXPECT_EQ(-ENOSPC, pmuser_counters_open(&a, &c, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_TRUE(strstr(why, "more events than the PMU has counters") != NULL) TH_LOG("%s", why);
}

/* With more events than counters perf rotates them; scaled counts estimate the whole run. */
TEST(perf_multiplexed_counts_scale)
{
	uint32_t ev[10];
	struct pmuser_count cnt[10];
	struct pmuser_counters *c;
	unsigned int i, multiplexed = 0;
	uint64_t n = 20000000, expect = 2 * n;

	REQUIRE_COUNTING();
	for (i = 0; i < 10; i++)
		ev[i] = EV_INST_RETIRED;
	ASSERT_EQ(0, pmuser_thread_pin(0));
	ASSERT_EQ(0, open_set(PMUSER_BACKEND_PERF_READ, false, ev, 10,
			      PMUSER_COUNTERS_NO_GROUP | PMUSER_COUNTERS_DISABLED, &c));
	ASSERT_EQ(0, pmuser_counters_enable(c));
	__asm__ __volatile__(
#if defined(__aarch64__)
		"1:\tsubs %0, %0, #1\n\tb.ne 1b"
#else
		"1:\tsubs %0, %0, #1\n\tbne 1b"
#endif
		: "+r"(n) : : "cc");
	ASSERT_EQ(0, pmuser_counters_disable(c));
	ASSERT_EQ(0, pmuser_counters_read_full(c, cnt));
	for (i = 0; i < 10; i++) {
		double s = pmuser_count_scaled(&cnt[i]);

		EXPECT_LT(0, cnt[i].running);
		EXPECT_LE(cnt[i].running, cnt[i].enabled);
		multiplexed += cnt[i].running < cnt[i].enabled;
		EXPECT_GT(0.05, (s > expect ? s - expect : expect - s) / expect)
			TH_LOG("event %u: %llu raw, %.0f scaled, expected %llu", i,
			       (unsigned long long)cnt[i].value, s, (unsigned long long)expect);
	}
	EXPECT_LT(0, multiplexed);
	pmuser_counters_close(c);
}

/*
 * Another perf user's flexible events on this thread make perf rotate the library's group
 * off and on its counters: a region is valid only if the group stayed on throughout, and
 * then its delta is the loop's exactly (every valid region the same); the rest are flagged,
 * never reported as counts.
 */
static void multiplexed_regions(struct __test_metadata *_metadata, enum pmuser_backend b)
{
	static const uint32_t ev[] = { EV_INST_RETIRED, EV_INST_RETIRED, EV_INST_RETIRED };
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_RAW,
		.config = EV_INST_RETIRED,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	const unsigned long n = 200000;
	unsigned int k, i, valid = 0, flagged = 0, others = 0, differ = 0;
	struct pmuser_counters *c;
	struct pmuser_region r;
	int64_t first = -1;
	int fds[16];

	ASSERT_EQ(0, pmuser_thread_pin(0));
	ASSERT_EQ(0, open_set(b, false, ev, 3, 0, &c));
	ASSERT_EQ(0, pmuser_region_calibrate(c, 200));
	/* On CPU 0's PMU: on big.LITTLE events of another PMU would never run here. */
	attr.type = raw_type_on(0);
	for (k = 0; k < 16; k++) {
		fds[k] = perf_open(&attr, 0, -1);
		others += fds[k] >= 0;
	}
	ASSERT_LT(0, others);
	/* One vCPU: QEMU's global -icount would add the other's slices to some windows. */
	other_cpus_set(0);
	for (k = 0; k < 200; k++) {
		unsigned long sw = thread_switches();

		fp_touch();
		pmuser_region_start(c, &r);
		spin2(n);
		pmuser_region_stop(c, &r);
		if (!r.valid) {
			flagged++;
			continue;
		}
		/* Valid, but another thread ran in it: not the loop's exact count (fp_touch). */
		if (thread_switches() != sw)
			continue;
		valid++;
		for (i = 0; i < 3; i++) {
			if (first < 0)
				first = r.delta[i];
			differ += r.delta[i] != first;
		}
	}
	other_cpus_set(1);
	for (k = 0; k < 16; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	TH_LOG("%s: %u valid regions (%lld instructions), %u flagged", pmuser_backend_name(b),
	       valid, (long long)first, flagged);
	EXPECT_LT(0, valid);
	EXPECT_LT(0, flagged);
	if (getenv("PMUSER_ICOUNT_EXACT")) {
		EXPECT_EQ(0, differ);
		EXPECT_LE((int64_t)(2 * n), first);
		EXPECT_GE((int64_t)(2 * n + 4), first);
	}
	pmuser_counters_close(c);
}

TEST(multiplexed_regions_flagged_perf_read)
{
	REQUIRE_COUNTING();
	multiplexed_regions(_metadata, PMUSER_BACKEND_PERF_READ);
}

TEST(multiplexed_regions_flagged_perf_mmap)
{
	REQUIRE_COUNTING();
	if (!has_perf_mmap())
		SKIP(return, "perf self-read is arm64 only");
	multiplexed_regions(_metadata, PMUSER_BACKEND_PERF_MMAP);
}

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Without the module, the same program falls back to perf. Reloads it afterwards. */
TEST(fallback_without_module)
{
	static const uint32_t ev[] = { EV_INST_RETIRED };
	struct pmuser_counters *c;
	char why[512], cmd[256];
	struct pmuser_counters_attr a;
	int ret;

	ASSERT_EQ(0, run("rmmod pmuser"));
	pmuser_counters_attr_init(&a);
	a.flags = PMUSER_COUNTERS_CYCLES;
	a.nr_events = 1;
	a.events[0].event = ev[0];
	ret = pmuser_counters_open(&a, &c, why, sizeof(why));
	EXPECT_EQ(0, ret) TH_LOG("%s", why);
	if (!ret) {
		EXPECT_EQ(has_perf_mmap() ? PMUSER_BACKEND_PERF_MMAP : PMUSER_BACKEND_PERF_READ,
			  pmuser_counters_backend(c));
		EXPECT_TRUE(strstr(why, "module: " PMUSER_DEVICE) != NULL) TH_LOG("%s", why);
		pmuser_counters_close(c);
	}
	a.backend = PMUSER_BACKEND_MODULE;
	EXPECT_EQ(-ENOENT, pmuser_counters_open(&a, &c, why, sizeof(why)));
	snprintf(cmd, sizeof(cmd), "insmod /lib/modules/pmuser.ko %s",
		 getenv("PMUSER_MODPARAMS") ? getenv("PMUSER_MODPARAMS") : "");
	ASSERT_EQ(0, run(cmd));
}

TEST_HARNESS_MAIN
