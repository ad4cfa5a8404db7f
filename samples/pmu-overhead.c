// SPDX-License-Identifier: MIT
/*
 * pmu-overhead: what reading counters costs, for every way of reading, side by side in one
 * run: the inline reads, pmuser_counters_read() of a module set, perf's mmap self-read and
 * read() through this library, Linux's libperf and PAPI (where linked in), the clocks, and
 * what a granted thread adds to every context switch, timed by the clock (pingpong_main()).
 *
 * Every counter method reads the same three counters: cycles, INST_RETIRED user-only and
 * INST_RETIRED user+kernel. Each method is called N times in a loop between region reads of
 * a module counter set of those three; the same loop calling a function that only returns
 * is subtracted, leaving the read itself. Minimum of R runs, which drops runs an interrupt
 * landed in. read() spends most of its instructions in the kernel, so the ratios use the
 * user+kernel count.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmuser_now.h"
#include "wl_harness.h"
#include "ovh_peers.h"

#define TOOL "pmu-overhead"
#define BIAS_ROUNDS 200

/* Measuring set: counter 0 cycles (user+kernel), then INST_RETIRED :u and :uk. */
#define M_INST_U 1
#define M_INST_UK 2
#define SET_N 3

static const char notes[] =
	"\nmethods (the method= key of -f kv lines):\n"
	"  raw        inline read of the cycle counter (pmuser_cycles_read)\n"
	"  serial     the same after a barrier (pmuser_cycles_read_serial)\n"
	"  inline3    pmuser_counter_read_n() of the 3 counters, constant registers\n"
	"  all        pmuser_counters_read() of the 3 counters, module backend\n"
	"  allraw     pmuser_counters_read_raw() of the same: registers, not extended\n"
	"  mmap       the library's perf-mmap backend, 3 events by self-read\n"
	"  read       the library's perf-read backend, 3 events, one read() each\n"
	"  readgroup  the same as one perf group, one read()\n"
	"  libperf    Linux's libperf, perf_evsel__read() of 3 events (mmap self-read)\n"
	"  papi       PAPI_read() of an event set of the 3 events\n"
	"  clock      clock_gettime(CLOCK_MONOTONIC) through the vDSO\n"
	"  cntvct     the generic timer's virtual count\n"
	"  switch     ns per context switch by CLOCK_MONOTONIC_RAW (unit=ns; under QEMU\n"
	"             -icount shift=0 one per guest instruction, the kernel's included, which\n"
	"             the PMU would miss while perf switches with it stopped) of two\n"
	"             SCHED_BATCH threads that ping-pong through pipes on one CPU: plain;\n"
	"             each granted inline reads (granted; per_switch_total = granted -\n"
	"             plain); each holding perf's own user-access event, a disabled rdpmc\n"
	"             event on arm64 (perf_user; else perf_user_why); per_switch_pmuser =\n"
	"             granted - perf_user, pmuser's share above perf's own mechanism\n"
	"             (pmuser_against=perf_user; on 32-bit ARM, whose perf opens no counters\n"
	"             to user space, granted - plain: pmuser_against=plain); both inheriting\n"
	"             one PMUSER_ACCESS_PROCESS grant (inherited, per_switch_inherited; else\n"
	"             inherited_why). The least over runs of 100 round trips, 3 turns of\n"
	"             4 x R runs per variant. What every thread pays while the module is\n"
	"             loaded (the counter page's sequence; on 32-bit ARM the switch hook's\n"
	"             lookup of the next thread's grant) is in plain too\n"
	"keys: counters (values per read), inst_u, inst_uk, cycles (per read; ns instead on the\n"
	"clock backend), per_counter\n"
	"(inst_uk / counters), bias (an empty region bracketed by the method, widest counter),\n"
	"ratio_all (inst_uk over the all method's), why (when available=0).\n";

typedef void (*read_fn)(void *ctx);

struct method {
	const char *key;		/* the method= key of -f kv lines */
	const char *name;
	unsigned int counters;		/* values one read returns */
	char detail[96];
	read_fn fn;
	void *ctx;
	bool available;
	char why[640];
	/* per read, call loop removed */
	double cycles, inst_u, inst_uk;
	bool have_cycles, have_inst;
	/* an empty region (two back-to-back reads) measured by the method itself */
	bool have_bias;
	double bias;
	const char *bias_unit;
};

enum { RAW, SERIAL, INLINE, ALL, ALLRAW, MMAP, READ, READG, LIBPERF, PAPI, CLOCK, CNTVCT,
	NMETHODS };

struct set_ctx {
	struct pmuser_counters *c;
	uint64_t values[PMUSER_COUNTERS_MAX];
};

static void read_set(void *ctx)
{
	struct set_ctx *s = ctx;

	pmuser_counters_read(s->c, s->values);
}

static void read_set_raw(void *ctx)
{
	struct set_ctx *s = ctx;

	pmuser_counters_read_raw(s->c, s->values);
}

/* The layout the inline method is compiled for: the cycle counter, event counters 0 and 1. */
static const unsigned int inline_hw[SET_N] = { PMUSER_HW_CYCLE, 0, 1 };

static __attribute__((noinline)) void read_inline(void *ctx)
{
	pmuser_counter_read_n(SET_N, inline_hw, ctx);
}

static void read_clock(void *ctx)
{
	clock_gettime(CLOCK_MONOTONIC, ctx);
}

static __attribute__((noinline)) void read_loop(read_fn fn, void *ctx, unsigned long n)
{
	while (n--)
		fn(ctx);
}

/* Flagged regions the tool takes, in all, before it gives up. */
#define FLAGGED_MAX	64

/*
 * Per counter, the smallest delta per call of runs loops of up to n calls to fn. Regions the
 * library flags (another thread ran on the CPU, or perf multiplexed, reloaded or moved a
 * counter meanwhile) are dropped and run again with half as many calls, so that a slow method
 * still fits between two timer ticks; when too many are flagged, the tool stops with that
 * cause rather than print what it did not measure.
 */
static void measure_loop(struct wl_harness *h, const char *what, read_fn fn, void *ctx,
			 unsigned long n, unsigned int runs, double best[])
{
	struct pmuser_region r;
	unsigned int i, k, flagged = 0;
	unsigned long calls = n;

	for (i = 0; i < h->nr; i++)
		best[i] = INFINITY;
	for (k = 0; k < runs;) {
		pmuser_region_start(h->c, &r);
		read_loop(fn, ctx, calls);
		pmuser_region_stop(h->c, &r);
		if (!r.valid) {
			if (++flagged > FLAGGED_MAX) {
				enum pmuser_backend b = pmuser_counters_backend(h->c);

				fprintf(stderr, "pmu-overhead: %s: %u of %u regions flagged: %s (%s backend); nothing measured\n",
					what, flagged, flagged + k, pmuser_backend_invalid_why(b),
					pmuser_backend_name(b));
				exit(1);
			}
			calls = (calls + 1) / 2;
			continue;
		}
		k++;
		for (i = 0; i < h->nr; i++)
			if ((double)r.delta[i] / (double)calls < best[i])
				best[i] = (double)r.delta[i] / (double)calls;
	}
}

/* Opens a counter set on one backend for a method, or says why it cannot. */
static struct pmuser_counters *open_set(struct method *m, enum pmuser_backend backend,
					const char *spec, uint32_t flags, const char *what)
{
	struct pmuser_counters_attr attr;
	struct pmuser_counters *c;
	char err[160], why[512];
	size_t count;
	unsigned int i;
	int ret;

	pmuser_counters_attr_init(&attr);
	attr.backend = backend;
	attr.flags = PMUSER_COUNTERS_OPTIONAL | flags;
	ret = pmuser_evspec_parse(spec, 0, attr.events, PMUSER_MAX_EVENTS, &count, err,
				  sizeof(err));
	if (ret) {
		snprintf(m->why, sizeof(m->why), "event spec %s: %s", spec, err);
		return NULL;
	}
	attr.nr_events = count;
	ret = pmuser_counters_open(&attr, &c, why, sizeof(why));
	if (ret) {
		snprintf(m->why, sizeof(m->why), "%s", why);
		return NULL;
	}
	for (i = 0; i < pmuser_counters_nr(c); i++) {
		if (!pmuser_counters_supported(c, i)) {
			snprintf(m->why, sizeof(m->why), "%s backend cannot count %s", what,
				 pmuser_counters_name(c, i));
			pmuser_counters_close(c);
			return NULL;
		}
	}
	return c;
}

/* The empty-region bias of a counter set's widest counter (its last). */
static void set_bias(struct method *m, struct pmuser_counters *c)
{
	if (pmuser_region_calibrate(c, BIAS_ROUNDS))
		return;
	m->have_bias = true;
	m->bias = (double)pmuser_region_bias(c, pmuser_counters_nr(c) - 1);
	m->bias_unit = "instructions (user+kernel)";
}

/*
 * The empty region of the inline method (read_n) or of the library's raw read of the set
 * (lib): two reads under one page mark, each counter's least over the windows that count,
 * the widest counter's.
 */
static void inline_bias(struct method *m, const struct wl_harness *h, bool lib)
{
	const struct pmuser_page *pg = pmuser_counters_page(h->c);
	uint64_t a[SET_N], b[SET_N], ua[SET_N], ub[SET_N], d[SET_N], lo[SET_N], widest = 0;
	unsigned int i, k, n = 0, idx[SET_N], hw[SET_N], slot[SET_N];

	/* The counters the set counts (read_n's are all of them, or it is not available). */
	for (i = 0; i < SET_N; i++) {
		if (pmuser_counters_slot(h->c, i) < 0)
			continue;
		slot[n] = (unsigned int)pmuser_counters_slot(h->c, i);
		hw[n] = lib ? (unsigned int)pmuser_counters_hw(h->c, i) : inline_hw[i];
		lo[n] = UINT64_MAX;
		idx[n++] = i;
	}
	for (k = 0; k < BIAS_ROUNDS; k++) {
		struct pmuser_page_mark mark = pmuser_page_mark(pg);

		if (lib) {
			pmuser_counters_read_raw(h->c, a);
			pmuser_counters_read_raw(h->c, b);
		} else {
			pmuser_counter_read_n(SET_N, inline_hw, a);
			pmuser_counter_read_n(SET_N, inline_hw, b);
		}
		for (i = 0; i < n; i++) {
			ua[i] = a[idx[i]];
			ub[i] = b[idx[i]];
		}
		if (!pmuser_page_delta(pg, mark, slot, hw, n, ua, ub, d))
			continue;
		for (i = 0; i < n; i++)
			lo[i] = d[i] < lo[i] ? d[i] : lo[i];
	}
	for (i = 0; i < n; i++)
		widest = lo[i] > widest ? lo[i] : widest;
	if (!n || widest == UINT64_MAX)
		return;
	m->have_bias = true;
	m->bias = (double)widest;
	/* Under QEMU a cycle is an instruction; on a core the widest is mostly the cycles. */
	m->bias_unit = "events (the widest of cycles and instructions)";
}

/* What an empty region measures for the single-value methods, in their own unit. */
static void timer_bias(struct method *m, unsigned int k)
{
	uint64_t lo = UINT64_MAX, a = 0, b = 0;
	struct timespec t0, t1;
	unsigned int i;

	for (i = 0; i < BIAS_ROUNDS; i++) {
		if (k == RAW) {
			a = pmuser_cycles_read();
			b = pmuser_cycles_read();
		} else if (k == SERIAL) {
			a = pmuser_cycles_read_serial();
			b = pmuser_cycles_read_serial();
		} else if (k == CLOCK) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			a = (uint64_t)t0.tv_sec * 1000000000u + (uint64_t)t0.tv_nsec;
			b = (uint64_t)t1.tv_sec * 1000000000u + (uint64_t)t1.tv_nsec;
		} else {
			a = wl_cntvct_read();
			b = wl_cntvct_read();
		}
		if (b - a < lo)
			lo = b - a;
	}
	m->have_bias = true;
	m->bias = (double)lo;
	m->bias_unit = k == CLOCK ? "ns" : k == CNTVCT ? "ticks" : "cycles";
	if (k == CNTVCT && wl_cntfrq_read()) {
		static char unit[48];

		snprintf(unit, sizeof(unit), "ticks of %.1f MHz", (double)wl_cntfrq_read() / 1e6);
		m->bias_unit = unit;
	}
}

/* ---- the cost of per-thread access at a context switch ------------------------------------ */

/*
 * What each thread of a ping-pong pair holds: nothing, its own GRANT, perf's own user access
 * (a disabled rdpmc event of its own, arm64), or a copy of its creator's
 * PMUSER_ACCESS_PROCESS grant.
 */
enum pp_variant { PP_PLAIN, PP_OWN, PP_PERF, PP_INHERITED, PP_VARIANTS };

struct pingpong {
	int to_partner[2], to_main[2];
	unsigned long rounds;
	unsigned int runs;
	int cpu;
	enum pp_variant variant;
	uint64_t best;			/* ns of rounds round trips, least of runs */
	char why[384];
};

/*
 * What a thread of the pair holds for its variant: the file its GRANT went through, or its
 * perf events.
 */
struct pp_hold {
	int fd;
	struct pmuser_counters *perf;
};

/*
 * Opens on the calling thread what perf itself grants user reads for: through the library's
 * perf-mmap backend, a disabled CPU_CYCLES:u event per CPU PMU with config1 bit 1 (the arm64
 * PMU's "rdpmc" field), the attributes of pmuser's anchors. It never takes a counter; while
 * the thread runs, perf opens the counters to it whenever it starts the PMU, if
 * kernel.perf_user_access is 1. 0, or -1 with why.
 */
static int perf_user_open(struct pp_hold *hold, char *why, size_t len)
{
#if defined(__aarch64__)
	struct pmuser_counters_attr attr;
	char err[160], msg[256];
	size_t count;

	pmuser_counters_attr_init(&attr);
	attr.backend = PMUSER_BACKEND_PERF_MMAP;
	attr.flags = PMUSER_COUNTERS_DISABLED;
	if (pmuser_evspec_parse("cpu_cycles:u", 0, attr.events, PMUSER_MAX_EVENTS, &count, err,
				sizeof(err))) {
		snprintf(why, len, "cpu_cycles:u: %s", err);
		return -1;
	}
	attr.nr_events = count;
	if (pmuser_counters_open(&attr, &hold->perf, msg, sizeof(msg))) {
		snprintf(why, len, "a user-access event: %s", msg);
		return -1;
	}
	return 0;
#elif defined(__arm__)
	(void)hold;
	snprintf(why, len, "32-bit ARM: perf opens no counters to user space itself");
	return -1;
#else
	(void)hold;
	snprintf(why, len, "perf's user access is arm64's");
	return -1;
#endif
}

/*
 * Pins the calling thread and gives it what its variant holds (PP_INHERITED threads have
 * their creator's grant): 0, or -1 with pp->why. pingpong_thread_drop() lets go of it.
 */
static int pingpong_thread_setup(struct pingpong *pp, struct pp_hold *hold)
{
	int ret = pmuser_thread_pin(pp->cpu);

	hold->fd = -1;
	hold->perf = NULL;
	if (ret) {
		snprintf(pp->why, sizeof(pp->why), "pinning to CPU %d: %s", pp->cpu, strerror(-ret));
		return -1;
	}
	/*
	 * A woken SCHED_BATCH thread does not preempt the one that woke it, so every switch is
	 * a thread blocking in read(), two per round trip, along the same path for every pair.
	 * Under SCHED_OTHER whether a wakeup preempts the writer follows the pair's virtual
	 * runtimes, and a pair's path (and cost) differs from another's for as long as it lives.
	 */
	ret = pthread_setschedparam(pthread_self(), SCHED_BATCH, &(struct sched_param){ 0 });
	if (ret) {
		snprintf(pp->why, sizeof(pp->why), "SCHED_BATCH: %s", strerror(ret));
		return -1;
	}
	if (pp->variant == PP_PERF)
		return perf_user_open(hold, pp->why, sizeof(pp->why));
	if (pp->variant != PP_OWN)
		return 0;
	hold->fd = pmuser_device_open();
	if (hold->fd < 0) {
		snprintf(pp->why, sizeof(pp->why), "%s: %s", PMUSER_DEVICE, strerror(-hold->fd));
		return -1;
	}
	ret = pmuser_device_grant(hold->fd, 0);
	if (ret)
		pmuser_device_why(PMUSER_IOC_GRANT, ret, pp->why, sizeof(pp->why));
	return ret ? -1 : 0;
}

static void pingpong_thread_drop(struct pp_hold *hold)
{
	if (hold->fd >= 0)
		close(hold->fd);
	if (hold->perf)
		pmuser_counters_close(hold->perf);
}

static void *pingpong_partner(void *arg)
{
	struct pingpong *pp = arg;
	unsigned long n = pp->rounds * pp->runs;
	struct pp_hold hold;
	char byte;

	if (pingpong_thread_setup(pp, &hold) == 0)
		while (n-- && read(pp->to_partner[0], &byte, 1) == 1 &&
		       write(pp->to_main[1], &byte, 1) == 1)
			;
	pingpong_thread_drop(&hold);
	close(pp->to_main[1]);
	return NULL;
}

/* The sysctl perf's user access needs, as read here ("?" when it cannot be read). */
static const char *perf_user_access_sysctl(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/perf_user_access", "re");

	snprintf(buf, len, "?");
	if (f) {
		if (!fgets(buf, (int)len, f))
			snprintf(buf, len, "?");
		buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	return buf;
}

/* Whether the calling thread reads inline as its variant says it does (pp->why if not). */
static bool pingpong_granted(struct pingpong *pp)
{
	char sysctl[16];
	uint64_t v;

	if (pp->variant == PP_PLAIN || !pmuser_counter_probe(PMUSER_HW_CYCLE, &v))
		return true;
	if (pp->variant == PP_PERF)
		snprintf(pp->why, sizeof(pp->why),
			 "the inline read of a thread with a user-access event trapped (kernel.perf_user_access is %s)",
			 perf_user_access_sysctl(sysctl, sizeof(sysctl)));
	else
		snprintf(pp->why, sizeof(pp->why), "a %s thread's inline read trapped",
			 pp->variant == PP_OWN ? "granted" : "grant-inheriting");
	return false;
}

/*
 * Times the round trips by CLOCK_MONOTONIC_RAW, not with the PMU: perf stops the PMU while it
 * switches a thread's events out and in, so counted instructions miss that work, and the
 * clock counts everything the CPU did meanwhile, the kernel's switches included.
 */
static void *pingpong_main(void *arg)
{
	struct pingpong *pp = arg;
	struct pp_hold hold;
	unsigned int run;
	char byte = 0;

	if (pingpong_thread_setup(pp, &hold) == 0 && pingpong_granted(pp)) {
		for (run = 0; run < pp->runs; run++) {
			uint64_t t0, t1;
			unsigned long i;

			t0 = now_ns(CLOCK_MONOTONIC_RAW);
			for (i = 0; i < pp->rounds; i++)
				if (write(pp->to_partner[1], &byte, 1) != 1 ||
				    read(pp->to_main[0], &byte, 1) != 1)
					break;
			t1 = now_ns(CLOCK_MONOTONIC_RAW);
			if (i < pp->rounds)
				break;
			if (t1 - t0 < pp->best)
				pp->best = t1 - t0;
		}
	}
	pingpong_thread_drop(&hold);
	close(pp->to_partner[1]);
	return NULL;
}

/* The two ping-pong threads, from start to end. */
static void *pingpong_pair(void *arg)
{
	struct pingpong *pp = arg;
	pthread_t a, b;

	if (pthread_create(&b, NULL, pingpong_partner, pp) ||
	    pthread_create(&a, NULL, pingpong_main, pp)) {
		fprintf(stderr, "pmu-overhead: pthread_create failed\n");
		exit(1);
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return NULL;
}

/* PP_INHERITED: a thread granted with PMUSER_ACCESS_PROCESS creates the pair. */
static void *pingpong_origin(void *arg)
{
	struct pingpong *pp = arg;
	int fd = pmuser_device_open(), ret = fd;

	if (fd < 0)
		snprintf(pp->why, sizeof(pp->why), "%s: %s", PMUSER_DEVICE, strerror(-fd));
	else
		ret = pmuser_device_grant(fd, PMUSER_ACCESS_PROCESS);
	if (fd >= 0 && ret)
		pmuser_device_why(PMUSER_IOC_GRANT, ret, pp->why, sizeof(pp->why));
	if (!ret) {
		pingpong_pair(pp);
	} else {
		/* The pair, which closes them, never ran. */
		close(pp->to_partner[1]);
		close(pp->to_main[1]);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* ns of pp->rounds round trips on pp->cpu, least of runs: 0, or -1 with pp->why. */
static int pingpong_run(struct pingpong *pp)
{
	pthread_t origin;

	if (pipe(pp->to_partner) || pipe(pp->to_main)) {
		snprintf(pp->why, sizeof(pp->why), "pipe: %s", strerror(errno));
		return -1;
	}
	pp->why[0] = '\0';
	pp->best = UINT64_MAX;
	if (pp->variant == PP_INHERITED) {
		if (pthread_create(&origin, NULL, pingpong_origin, pp)) {
			fprintf(stderr, "pmu-overhead: pthread_create failed\n");
			exit(1);
		}
		pthread_join(origin, NULL);
	} else {
		pingpong_pair(pp);
	}
	close(pp->to_partner[0]);
	close(pp->to_main[0]);
	if (pp->best == UINT64_MAX && !pp->why[0])
		snprintf(pp->why, sizeof(pp->why), "the ping-pong did not complete");
	return pp->best == UINT64_MAX ? -1 : 0;
}

struct switch_cost {
	bool available;
	char why[384];
	/*
	 * ns per switch by CLOCK_MONOTONIC_RAW, per variant (enum pp_variant); NAN where one
	 * was not measured (PP_PERF, PP_INHERITED), with its cause.
	 */
	double ns[PP_VARIANTS];
	char variant_why[PP_VARIANTS][384];
};

/*
 * Plain threads against those holding each kind of access, timed on the tool's CPU. A
 * variant other than PP_PLAIN and PP_OWN that cannot run leaves NAN and its cause.
 */
static void measure_switch(struct switch_cost *s, int cpu, unsigned int runs)
{
	/*
	 * Short runs, many of them: 100 round trips take less than a 250 Hz tick at 1 GHz, so
	 * the least of runs * 4 is a run no tick or other interrupt landed in.
	 */
	struct pingpong pp = { .rounds = 100, .runs = runs * 4, .cpu = cpu };
	struct pmuser_info info;
	unsigned int turn, v;
	int fd, ret;

	s->available = false;
	fd = pmuser_device_open();
	ret = fd < 0 ? fd : pmuser_device_info(fd, &info);
	if (fd >= 0)
		close(fd);
	if (ret) {
		snprintf(s->why, sizeof(s->why), "%s: %s", PMUSER_DEVICE, strerror(-ret));
		return;
	}
	if (info.access_mode != PMUSER_ACCESS_PER_THREAD) {
		snprintf(s->why, sizeof(s->why),
			 "the module grants access globally (global_access=1), not per thread");
		return;
	}
	/*
	 * The variants in turns, the least of each kept: what else ran on the guest only adds.
	 * A round trip is two switches.
	 */
	for (v = 0; v < PP_VARIANTS; v++)
		s->ns[v] = INFINITY;
	for (turn = 0; turn < 3 * PP_VARIANTS; turn++) {
		v = turn % PP_VARIANTS;
		pp.variant = v;
		if (isnan(s->ns[v]))
			continue;
		if (pingpong_run(&pp)) {
			if (v == PP_PLAIN || v == PP_OWN)
				break;
			/* Without it the other variants still say what per-thread access costs. */
			s->ns[v] = NAN;
			snprintf(s->variant_why[v], sizeof(s->variant_why[v]), "%s", pp.why);
			continue;
		}
		if ((double)pp.best / (2.0 * (double)pp.rounds) < s->ns[v])
			s->ns[v] = (double)pp.best / (2.0 * (double)pp.rounds);
	}
	s->available = turn == 3 * PP_VARIANTS;
	if (!s->available)
		snprintf(s->why, sizeof(s->why), "%s", pp.why);
}

/* ---- methods ------------------------------------------------------------------------------ */

/* Which methods can run here, and their contexts; h's backend decides the module's. */
static void methods_setup(struct method *methods, struct wl_harness *h, struct set_ctx *all_ctx,
			  struct timespec *ts, uint64_t *inline_values)
{
	bool module = pmuser_counters_backend(h->c) == PMUSER_BACKEND_MODULE;
	bool clock_only = pmuser_counters_backend(h->c) == PMUSER_BACKEND_CLOCK;
	const char *why;
	unsigned int k, i;

#if defined(__aarch64__)
	snprintf(methods[RAW].detail, sizeof(methods[RAW].detail), "mrs pmccntr_el0");
	snprintf(methods[SERIAL].detail, sizeof(methods[SERIAL].detail), "isb; mrs pmccntr_el0");
	snprintf(methods[INLINE].detail, sizeof(methods[INLINE].detail), "isb; 3 x mrs; isb");
	snprintf(methods[CNTVCT].detail, sizeof(methods[CNTVCT].detail), "mrs cntvct_el0");
#elif defined(__arm__) && __ARM_ARCH >= 7
	snprintf(methods[RAW].detail, sizeof(methods[RAW].detail), "mrc PMCCNTR");
	snprintf(methods[SERIAL].detail, sizeof(methods[SERIAL].detail), "isb; mrc PMCCNTR");
	snprintf(methods[INLINE].detail, sizeof(methods[INLINE].detail), "PMSELR + PMXEVCNTR");
	snprintf(methods[CNTVCT].detail, sizeof(methods[CNTVCT].detail), "mrrc CNTVCT");
#elif defined(__arm__)
	snprintf(methods[RAW].detail, sizeof(methods[RAW].detail), "mrc CCNT");
	snprintf(methods[SERIAL].detail, sizeof(methods[SERIAL].detail), "flush; mrc CCNT");
	snprintf(methods[INLINE].detail, sizeof(methods[INLINE].detail), "mrc CCNT, PMN0, PMN1");
#endif
	for (k = 0; k < NMETHODS; k++)
		methods[k].available = true;
	if (!module) {
		for (k = RAW; k <= ALLRAW; k++) {
			methods[k].available = false;
			snprintf(methods[k].why, sizeof(methods[k].why),
				 "needs the module backend (counters use %s)",
				 pmuser_backend_name(pmuser_counters_backend(h->c)));
		}
	}
	for (i = 0; module && i < SET_N; i++) {
		if (pmuser_counters_hw(h->c, i) != (int)inline_hw[i]) {
			methods[INLINE].available = false;
			snprintf(methods[INLINE].why, sizeof(methods[INLINE].why),
				 "compiled for the cycle counter and event counters 0, 1; perf gave %s counter %d",
				 pmuser_counters_name(h->c, i), pmuser_counters_hw(h->c, i));
		}
	}
	methods[INLINE].ctx = inline_values;
	all_ctx->c = h->c;
	methods[ALL].ctx = all_ctx;
	methods[ALLRAW].ctx = all_ctx;
	if (module) {
		snprintf(methods[ALL].detail, sizeof(methods[ALL].detail), "module, %u counters",
			 pmuser_counters_nr(h->c));
		snprintf(methods[ALLRAW].detail, sizeof(methods[ALLRAW].detail),
			 "module, %u registers", pmuser_counters_nr(h->c));
	}
	methods[CLOCK].ctx = ts;
	if (!wl_cntvct_usable(&why)) {
		methods[CNTVCT].available = false;
		snprintf(methods[CNTVCT].why, sizeof(methods[CNTVCT].why), "%s", why);
	}
	for (k = MMAP; k <= PAPI && clock_only; k++) {
		methods[k].available = false;
		snprintf(methods[k].why, sizeof(methods[k].why),
			 "no PMU for perf here (counters use the clock backend)");
	}
}

/* The counter set a library-backend method reads: 0, or -1 with m->why. */
static struct pmuser_counters *method_open(struct method *m, unsigned int k)
{
#if defined(PMUSER_FAST_V6)
	/* ARM1176: INSTR_EXEC (every mode), and two counters in all. */
	static const char spec[] = "0x7";
#else
	static const char spec[] = "cpu_cycles:uk,inst_retired:u,inst_retired:uk";
#endif
	struct pmuser_counters *c;

	c = open_set(m, k == MMAP ? PMUSER_BACKEND_PERF_MMAP : PMUSER_BACKEND_PERF_READ, spec,
		     k == READ ? PMUSER_COUNTERS_NO_GROUP : 0, k == MMAP ? "perf-mmap" : "perf-read");
	if (c)
		snprintf(m->detail, sizeof(m->detail), "%u event%s%s", pmuser_counters_nr(c),
			 pmuser_counters_nr(c) > 1 ? "s" : "",
			 k == READ ? ", 3 read()s" : k == READG ? ", 1 read()" : "");
	return c;
}

/* Measures method k (its own counter set open only meanwhile) into m. */
static void method_measure(struct wl_harness *h, struct method *m, unsigned int k,
			   unsigned long reads, unsigned int runs, const double null_best[])
{
	double best[PMUSER_COUNTERS_MAX];
	struct pmuser_counters *own = NULL;
	struct ovh_peer *peer = NULL;
	struct set_ctx set_ctx;

	if (k == MMAP || k == READ || k == READG) {
		own = method_open(m, k);
		if (!own) {
			m->available = false;
			return;
		}
		set_ctx.c = own;
		m->ctx = &set_ctx;
		m->counters = pmuser_counters_nr(own);
	} else if (k == LIBPERF || k == PAPI) {
		peer = k == LIBPERF ? ovh_libperf_open(m->why, sizeof(m->why)) :
				      ovh_papi_open(m->why, sizeof(m->why));
		if (!peer) {
			m->available = false;
			return;
		}
		m->fn = ovh_peer_read;
		m->ctx = peer;
		m->counters = ovh_peer_counters(peer);
		snprintf(m->detail, sizeof(m->detail), "%s", ovh_peer_detail(peer));
	}
	measure_loop(h, m->name, m->fn, m->ctx, reads, runs, best);
	m->have_cycles = wl_counts_here(h, WL_CYCLES);
	m->cycles = best[WL_CYCLES] - null_best[WL_CYCLES];
	m->have_inst = wl_counts_here(h, M_INST_U) && wl_counts_here(h, M_INST_UK);
	m->inst_u = best[M_INST_U] - null_best[M_INST_U];
	m->inst_uk = best[M_INST_UK] - null_best[M_INST_UK];

	/* What an empty region measures when this method brackets it. */
	if (own) {
		set_bias(m, own);
		pmuser_counters_close(own);
	} else if (peer) {
		ovh_peer_close(peer);
	} else if (k == ALL) {
		m->have_bias = true;
		m->bias = (double)pmuser_region_bias(h->c, M_INST_UK);
		m->bias_unit = "instructions (user+kernel)";
	} else if (k == INLINE || k == ALLRAW) {
		inline_bias(m, h, k == ALLRAW);
	} else {
		timer_bias(m, k);
	}
}

/*
 * What per_switch_pmuser is measured against: perf's own user access where perf has it; on
 * 32-bit ARM, where perf opens no counters to user space, a plain thread (all of the cost is
 * pmuser's). -1: not measured.
 */
static int switch_pmuser_against(const struct switch_cost *sw)
{
	if (!isnan(sw->ns[PP_PERF]))
		return PP_PERF;
#if defined(__arm__)
	return PP_PLAIN;
#else
	return -1;
#endif
}

static void print_switch_kv(const struct switch_cost *sw)
{
	const double *ns = sw->ns;
	int against = switch_pmuser_against(sw);

	printf("wl tool=" TOOL " method=switch available=%d", sw->available);
	if (!sw->available) {
		printf(" why=\"%s\"\n", sw->why);
		return;
	}
	printf(" unit=ns plain=%.1f granted=%.1f per_switch_total=%.1f", ns[PP_PLAIN],
	       ns[PP_OWN], ns[PP_OWN] - ns[PP_PLAIN]);
	if (isnan(ns[PP_PERF]))
		printf(" perf_user_why=\"%s\"", sw->variant_why[PP_PERF]);
	else
		printf(" perf_user=%.1f", ns[PP_PERF]);
	if (against >= 0)
		printf(" per_switch_pmuser=%.1f pmuser_against=%s", ns[PP_OWN] - ns[against],
		       against == PP_PERF ? "perf_user" : "plain");
	if (isnan(ns[PP_INHERITED]))
		printf(" inherited_why=\"%s\"", sw->variant_why[PP_INHERITED]);
	else
		printf(" inherited=%.1f per_switch_inherited=%.1f", ns[PP_INHERITED],
		       ns[PP_INHERITED] - ns[PP_PLAIN]);
	putchar('\n');
}

static void print_switch_table(const struct switch_cost *sw)
{
	const double *ns = sw->ns;
	int against = switch_pmuser_against(sw);

	if (!sw->available) {
		printf("\ncontext switch cost of per-thread access: not available: %s\n", sw->why);
		return;
	}
	printf("\ncontext switch, two SCHED_BATCH threads on one CPU, ns per switch by "
	       "CLOCK_MONOTONIC_RAW\n(under QEMU -icount shift=0: guest instructions, the "
	       "kernel's included):\n");
	printf("  %.1f plain, %.1f granted: per-thread access adds %.1f (per_switch_total)\n",
	       ns[PP_PLAIN], ns[PP_OWN], ns[PP_OWN] - ns[PP_PLAIN]);
	if (isnan(ns[PP_PERF]))
		printf("  holding perf's own user-access event: not measured: %s\n",
		       sw->variant_why[PP_PERF]);
	else
		printf("  %.1f holding perf's own user-access event instead\n", ns[PP_PERF]);
	if (against >= 0)
		printf("  pmuser's own share: %.1f above %s (per_switch_pmuser)\n",
		       ns[PP_OWN] - ns[against],
		       against == PP_PERF ? "perf's user access" : "a plain thread");
	if (isnan(ns[PP_INHERITED]))
		printf("  threads that inherited one PMUSER_ACCESS_PROCESS grant: not measured: %s\n",
		       sw->variant_why[PP_INHERITED]);
	else
		printf("  %.1f when both inherited one PMUSER_ACCESS_PROCESS grant: adds %.1f\n",
		       ns[PP_INHERITED], ns[PP_INHERITED] - ns[PP_PLAIN]);
}

static void print_kv(const struct wl_harness *h, const struct method *methods,
			   const struct switch_cost *sw, uint64_t reads, uint64_t runs)
{
	const struct method *all = &methods[ALL];
	/* Without counters the harness times in ns: the key says so. */
	bool clock_only = pmuser_counters_backend(h->c) == PMUSER_BACKEND_CLOCK;
	unsigned int k;

	printf("wl tool=" TOOL " backend=%s reads=%" PRIu64 " runs=%" PRIu64 "\n",
	       pmuser_backend_name(pmuser_counters_backend(h->c)), reads, runs);
	for (k = 0; k < NMETHODS; k++) {
		const struct method *m = &methods[k];

		printf("wl tool=" TOOL " method=%s available=%d", m->key, m->available);
		if (m->available)
			printf(" counters=%u", m->counters);
		if (m->available && m->have_inst)
			printf(" inst_u=%.3f inst_uk=%.3f per_counter=%.3f", m->inst_u, m->inst_uk,
			       m->inst_uk / m->counters);
		if (m->available && m->have_cycles)
			printf(" %s=%.3f", clock_only ? "ns" : "cycles", m->cycles);
		if (m->available && m->have_bias)
			printf(" bias=%.0f", m->bias);
		if (m->available && m->have_inst && all->available && all->have_inst &&
		    all->inst_uk > 0)
			printf(" ratio_all=%.2f", m->inst_uk / all->inst_uk);
		if (!m->available)
			printf(" why=\"%s\"", m->why);
		putchar('\n');
	}
	print_switch_kv(sw);
}

static void print_table(const struct wl_harness *h, const struct method *methods,
			const struct switch_cost *sw, uint64_t reads, uint64_t runs)
{
	bool clock_only = pmuser_counters_backend(h->c) == PMUSER_BACKEND_CLOCK;
	const struct method *all = &methods[ALL];
	bool any_inst = false;
	unsigned int k;

	for (k = 0; k < NMETHODS; k++)
		any_inst |= methods[k].available && methods[k].have_inst;
	printf(TOOL ": cost of a read, up to %" PRIu64 " reads per measurement, minimum of %"
	       PRIu64 " runs, an empty call loop subtracted\n", reads, runs);
	printf("measured with: %s backend, %s; instructions: INST_RETIRED user-only (u) and "
	       "user+kernel (u+k); cycles count user+kernel\n",
	       pmuser_backend_name(pmuser_counters_backend(h->c)), pmuser_counters_timer(h->c));
	printf("every counter method reads cycles, INST_RETIRED :u and :uk; x all: u+k "
	       "instructions over pmuser_counters_read()'s\n\n");
	printf("%-34s %-24s %3s %9s %9s %8s %10s %7s  %s\n", "method", "", "n", "inst(u)",
	       "inst(u+k)", "/counter", clock_only ? "ns" : "cycles", "x all", "empty-region bias");
	for (k = 0; k < NMETHODS; k++) {
		const struct method *m = &methods[k];

		printf("%-34s %-24s", m->name, m->detail);
		if (!m->available) {
			printf(" not available: %s\n", m->why);
			continue;
		}
		printf(" %3u", m->counters);
		if (m->have_inst)
			printf(" %9.1f %9.1f %8.1f", m->inst_u, m->inst_uk,
			       m->inst_uk / m->counters);
		else
			printf(" %9s %9s %8s", "n/s", "n/s", "n/s");
		printf(" %10.1f", m->cycles);
		if (m->have_inst && all->available && all->have_inst && all->inst_uk > 0)
			printf(" %7.2f", m->inst_uk / all->inst_uk);
		else
			printf(" %7s", "-");
		if (m->have_bias)
			printf("  %.0f %s", m->bias, m->bias_unit);
		putchar('\n');
	}
	print_switch_table(sw);
	if (!any_inst)
		printf("n/s: INST_RETIRED not supported by this PMU (or backend): no instruction "
		       "counts or ratios\n");
}

int main(int argc, char **argv)
{
	struct method methods[NMETHODS] = {
		[RAW] = { "raw", "inline raw read", 1, "", wl_ovh_raw, NULL },
		[SERIAL] = { "serial", "inline serialised read", 1, "", wl_ovh_serial, NULL },
		[INLINE] = { "inline3", "inline read of 3 (read_n)", SET_N, "", read_inline, NULL },
		[ALL] = { "all", "pmuser_counters_read()", SET_N, "", read_set, NULL },
		[ALLRAW] = { "allraw", "pmuser_counters_read_raw()", SET_N, "", read_set_raw, NULL },
		[MMAP] = { "mmap", "perf mmap self-read (pmuser)", SET_N, "", read_set, NULL },
		[READ] = { "read", "perf read() (pmuser)", SET_N, "", read_set, NULL },
		[READG] = { "readgroup", "perf read() of a group (pmuser)", SET_N, "", read_set,
			    NULL },
		[LIBPERF] = { "libperf", "libperf perf_evsel__read()", SET_N, "", NULL, NULL },
		[PAPI] = { "papi", "PAPI_read()", SET_N, "", NULL, NULL },
		[CLOCK] = { "clock", "clock_gettime(MONOTONIC)", 1, "vDSO", read_clock, NULL },
		[CNTVCT] = { "cntvct", "generic timer CNTVCT", 1, "", wl_ovh_cntvct, NULL },
	};
	uint64_t reads = 1000, runs = 5, inline_values[SET_N];
	const struct tool_opt opts[] = {
		{ "reads", 0, "N", "reads per measurement (default 1000; halved after a flagged one)",
		  TOOL_OPT_NUMBER, 1, 1000000, .value = &reads },
		{ "repeat", 'r', "R", "measurements per method, minimum kept (default 5)",
		  TOOL_OPT_NUMBER, 1, 1000, .value = &runs },
		{ NULL },
	};
	double null_best[PMUSER_COUNTERS_MAX];
	struct switch_cost sw = { 0 };
	struct set_ctx all_ctx;
	struct wl_harness h;
	struct timespec ts;
	unsigned int k;
	bool kv;
	int status;

	wl_usage_notes = notes;
	status = wl_parse_options(TOOL,
				  "What reading counters costs, for every way of reading, side by side in one run.",
				  "table", opts, argc, argv, &kv);
	if (status >= 0)
		return status;

#if defined(PMUSER_FAST_V6)
	/* ARM1176 counts every mode: both counters count the same. */
#define INST_SPEC "instr_exec,instr_exec"
#else
#define INST_SPEC "inst_retired:u,inst_retired:uk"
#endif
	if (wl_open_spec(&h, TOOL, kv, INST_SPEC,
			 PMUSER_COUNT_USER | PMUSER_COUNT_KERNEL))
		return 1;
	methods_setup(methods, &h, &all_ctx, &ts, inline_values);

	/* The call loop alone, then each method; one method's own counter set open at a time. */
	measure_loop(&h, "the empty call loop", wl_ovh_null, NULL, (unsigned long)reads, (unsigned int)runs, null_best);
	for (k = 0; k < NMETHODS; k++)
		if (methods[k].available)
			method_measure(&h, &methods[k], k, (unsigned long)reads, (unsigned int)runs,
				       null_best);
	if (pmuser_counters_backend(h.c) == PMUSER_BACKEND_MODULE)
		measure_switch(&sw, pmuser_thread_cpu(), (unsigned int)runs);
	else
		snprintf(sw.why, sizeof(sw.why), "needs the module (counters use %s)",
			 pmuser_backend_name(pmuser_counters_backend(h.c)));

	if (kv)
		print_kv(&h, methods, &sw, reads, runs);
	else
		print_table(&h, methods, &sw, reads, runs);
	wl_close(&h);
	return 0;
}
