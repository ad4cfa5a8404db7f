// SPDX-License-Identifier: MIT
/* Timing single loads and chase loops for pmu-lat and pmu-sweep; see lat_timer.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lat_timer.h"

/* ---- the measured code ----------------------------------------------------------------- */
/*
 * Inline-asm windows (module backend). Read, ISB, work, ISB, read: the first ISB keeps the
 * load from issuing before the first read, the second keeps the second read from running
 * before the load is done. The empty window is the same text with the work removed, so
 * window - empty is the work alone: under icount exactly its instruction count.
 */
#define X8(s) s s s s s s s s

#if defined(PMUSER_FAST_A64)
#define HAVE_INLINE_WINDOW 1
#define WINDOW_TEXT "isb; mrs pmccntr_el0; isb; ldr x, [x]; isb; mrs pmccntr_el0"
static void window_load(void ***pp, uint64_t t[2])
{
	void **p = *pp;
	uint64_t t0, t1;

	__asm__ __volatile__("isb\n\tmrs %[t0], pmccntr_el0\n\tisb\n\t"
			     "ldr %[p], [%[p]]\n\t"
			     "isb\n\tmrs %[t1], pmccntr_el0"
			     : [t0] "=&r"(t0), [t1] "=&r"(t1), [p] "+r"(p) : : "memory");
	*pp = p;
	t[0] = t0;
	t[1] = t1;
}

static void window_empty(uint64_t t[2])
{
	uint64_t t0, t1;

	__asm__ __volatile__("isb\n\tmrs %[t0], pmccntr_el0\n\tisb\n\t"
			     "isb\n\tmrs %[t1], pmccntr_el0"
			     : [t0] "=&r"(t0), [t1] "=&r"(t1) : : "memory");
	t[0] = t0;
	t[1] = t1;
}

static void window_chase(void ***pp, uint64_t iters, uint64_t t[2])
{
	void **p = *pp;
	uint64_t t0, t1;

	__asm__ __volatile__("isb\n\tmrs %[t0], pmccntr_el0\n\tisb\n"
			     "1:\n\t" X8("ldr %[p], [%[p]]\n\t")
			     "subs %[n], %[n], #1\n\tb.ne 1b\n\t"
			     "isb\n\tmrs %[t1], pmccntr_el0"
			     : [t0] "=&r"(t0), [t1] "=&r"(t1), [p] "+r"(p), [n] "+r"(iters)
			     : : "memory", "cc");
	*pp = p;
	t[0] = t0;
	t[1] = t1;
}
#elif defined(PMUSER_FAST_V7) || defined(PMUSER_FAST_V6)
#define HAVE_INLINE_WINDOW 1
#if defined(PMUSER_FAST_V7)
#define SERIAL_READ(t) "isb\n\tmrc p15, 0, %[" t "], c9, c13, 0\n\t"
#define BARRIER "isb\n\t"
#define WINDOW_TEXT "isb; mrc p15 c9 c13 0; isb; ldr r, [r]; isb; mrc p15 c9 c13 0"
#else
/* ARMv6 has no ISB; the CP15 prefetch flush is the same barrier. */
#define SERIAL_READ(t) "mcr p15, 0, %[z], c7, c5, 4\n\tmrc p15, 0, %[" t "], c15, c12, 1\n\t"
#define BARRIER "mcr p15, 0, %[z], c7, c5, 4\n\t"
#define WINDOW_TEXT "flush; mrc p15 c15 c12 1; flush; ldr r, [r]; flush; mrc p15 c15 c12 1"
#endif
static void window_load(void ***pp, uint64_t t[2])
{
	void **p = *pp;
	uint32_t t0, t1;

	__asm__ __volatile__(SERIAL_READ("t0") BARRIER
			     "ldr %[p], [%[p]]\n\t"
			     SERIAL_READ("t1")
			     : [t0] "=&r"(t0), [t1] "=&r"(t1), [p] "+r"(p) : [z] "r"(0) : "memory");
	*pp = p;
	t[0] = t0;
	t[1] = t1;
}

static void window_empty(uint64_t t[2])
{
	uint32_t t0, t1;

	__asm__ __volatile__(SERIAL_READ("t0") BARRIER
			     SERIAL_READ("t1")
			     : [t0] "=&r"(t0), [t1] "=&r"(t1) : [z] "r"(0) : "memory");
	t[0] = t0;
	t[1] = t1;
}

static void window_chase(void ***pp, uint64_t iters, uint64_t t[2])
{
	void **p = *pp;
	uint32_t t0, t1, n = (uint32_t)iters;

	__asm__ __volatile__(SERIAL_READ("t0") BARRIER
			     "1:\n\t" X8("ldr %[p], [%[p]]\n\t")
			     "subs %[n], %[n], #1\n\tbne 1b\n\t"
			     SERIAL_READ("t1")
			     : [t0] "=&r"(t0), [t1] "=&r"(t1), [p] "+r"(p), [n] "+r"(n)
			     : [z] "r"(0) : "memory", "cc");
	*pp = p;
	t[0] = t0;
	t[1] = t1;
}
#else
#define HAVE_INLINE_WINDOW 0
#define WINDOW_TEXT "none"
#endif

/* The bare work, timed by the region API on the other backends. */
static inline void **one_load(void **p)
{
#if defined(__aarch64__) || defined(__arm__)
	__asm__ __volatile__("ldr %0, [%0]" : "+r"(p) : : "memory");
#elif defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("mov (%0), %0" : "+r"(p) : : "memory");
#else
	p = *(void **volatile *)p;
#endif
	return p;
}

static inline void **chase_loop(void **p, uint64_t iters)
{
#if defined(__aarch64__)
	__asm__ __volatile__("1:\n\t" X8("ldr %[p], [%[p]]\n\t")
			     "subs %[n], %[n], #1\n\tb.ne 1b"
			     : [p] "+r"(p), [n] "+r"(iters) : : "memory", "cc");
#elif defined(__arm__)
	uint32_t n = (uint32_t)iters;

	__asm__ __volatile__("1:\n\t" X8("ldr %[p], [%[p]]\n\t")
			     "subs %[n], %[n], #1\n\tbne 1b"
			     : [p] "+r"(p), [n] "+r"(n) : : "memory", "cc");
#elif defined(__x86_64__) || defined(__i386__)
	uintptr_t n = (uintptr_t)iters;

	__asm__ __volatile__("1:\n\t" X8("mov (%[p]), %[p]\n\t")
			     "sub $1, %[n]\n\tjnz 1b"
			     : [p] "+r"(p), [n] "+r"(n) : : "memory", "cc");
#else
	while (iters--)
		for (int k = 0; k < LAT_UNROLL; k++)
			p = *(void **volatile *)p;
#endif
	return p;
}

void **lat_chase(void **p, uint64_t n)
{
	while (n--)
		p = one_load(p);
	return p;
}

/*
 * The nominal resolution can hide a coarse clock (a 1 ns CLOCK_MONOTONIC_RAW that moves in
 * microseconds): report the smallest step two back-to-back reads actually show.
 */
static uint64_t observed_tick(struct pmuser_counters *c, char *none, size_t len)
{
	uint64_t a[PMUSER_COUNTERS_MAX], b[PMUSER_COUNTERS_MAX], best = 0;
	uint64_t deadline = now_ns(CLOCK_MONOTONIC) + 20000000;
	int i, ret;

	for (i = 0; i < 2000 && now_ns(CLOCK_MONOTONIC) < deadline; i++) {
		ret = pmuser_counters_read(c, a);
		if (!ret)
			ret = pmuser_counters_read(c, b);
		if (ret) {
			snprintf(none, len, "step not observed: a read failed (%s)", strerror(-ret));
			return 0;
		}
		if (b[0] > a[0] && (!best || b[0] - a[0] < best))
			best = b[0] - a[0];
	}
	snprintf(none, len, "no step observed in %d pairs of reads", i);
	return best;
}

/* ---- opening -------------------------------------------------------------------------- */

int lat_timer_open(struct lat_timer *t, enum pmuser_backend backend, int cpu,
		   const struct pmuser_evspec_entry *events, size_t nr_events, char *err,
		   size_t len)
{
	struct pmuser_counters_attr attr;
	char why[512], none[80];
	int ret;

	memset(t, 0, sizeof(*t));
	if (nr_events > PMUSER_MAX_EVENTS) {
		snprintf(err, len, "at most %d events", PMUSER_MAX_EVENTS);
		return -E2BIG;
	}
	if (cpu >= 0) {
		ret = pmuser_thread_pin(cpu);
		if (ret) {
			snprintf(err, len, "cannot pin to CPU %d: %s", cpu, strerror(-ret));
			return ret;
		}
	}
	pmuser_counters_attr_init(&attr);
	attr.backend = backend;
	/* Events the PMU lacks (QEMU counts only cycles and instructions) are shown as n/a. */
	attr.flags = PMUSER_COUNTERS_CYCLES | PMUSER_COUNTERS_OPTIONAL;
	attr.nr_events = nr_events;
	for (size_t i = 0; i < nr_events; i++)
		attr.events[i] = events[i];
	ret = pmuser_counters_open(&attr, &t->ctr, why, sizeof(why));
	if (ret) {
		snprintf(err, len, "no counter backend (%s): %s", strerror(-ret), why);
		return ret;
	}
	t->backend = pmuser_counters_backend(t->ctr);
	t->tick = observed_tick(t->ctr, none, sizeof(none));
	if (t->tick)
		snprintf(t->timer, sizeof(t->timer), "%s; smallest observed step %llu %s",
			 pmuser_counters_timer(t->ctr), (unsigned long long)t->tick,
			 t->backend == PMUSER_BACKEND_CLOCK ? "ns" : "cycles");
	else
		snprintf(t->timer, sizeof(t->timer), "%s; %s", pmuser_counters_timer(t->ctr), none);
	t->nr_events = (unsigned int)nr_events;
	t->unit = t->backend == PMUSER_BACKEND_CLOCK ? "ns" : "cycles";
	/* The window's asm reads the cycle counter: the set's counter 0 must be on it. */
	t->inline_asm = HAVE_INLINE_WINDOW && t->backend == PMUSER_BACKEND_MODULE &&
			pmuser_counters_hw(t->ctr, 0) == PMUSER_HW_CYCLE;
	if (t->inline_asm) {
		t->page = pmuser_counters_page(t->ctr);
		t->cycle_slot = (unsigned int)pmuser_counters_slot(t->ctr, 0);
		snprintf(t->method, sizeof(t->method), "one asm block: %s", WINDOW_TEXT);
		snprintf(t->loop_method, sizeof(t->loop_method),
			 "one asm block: serialised read, %d x ldr + subs + branch per iteration, "
			 "serialised read", LAT_UNROLL);
	} else {
		/* On the module backend the core keeps the cycle counter from user reads. */
		const char *no_window = HAVE_INLINE_WINDOW && t->backend == PMUSER_BACKEND_MODULE ?
			"; the set's cycles are on an event counter, the asm window reads the cycle counter" :
			", no inline window";

		snprintf(t->method, sizeof(t->method),
			 "library region reads (%s backend%s) around one load",
			 pmuser_backend_name(t->backend), no_window);
		snprintf(t->loop_method, sizeof(t->loop_method),
			 "library region reads (%s backend) around an asm loop of %d loads",
			 pmuser_backend_name(t->backend), LAT_UNROLL);
	}
	return 0;
}

void lat_timer_close(struct lat_timer *t)
{
	if (t->flagged && !t->disturbed)
		fprintf(stderr, "note: %lu measurement windows were disturbed (another thread ran on the CPU, or perf reloaded or moved a counter) and measured again\n",
			t->flagged);
	pmuser_counters_close(t->ctr);
	t->ctr = NULL;
}

int lat_timer_check(const struct lat_timer *t, const char *tool, const char *outcome)
{
	if (!t->disturbed)
		return 0;
	fprintf(stderr, "%s: a measurement window was disturbed %d times in a row (%s; %s backend): %s\n",
		tool, LAT_WINDOW_TRIES, pmuser_backend_invalid_why(t->backend),
		pmuser_backend_name(t->backend), outcome);
	return -EAGAIN;
}

/* ---- measuring ------------------------------------------------------------------------ */

/*
 * Whether to measure the window again: it was flagged, and it has not been flagged
 * LAT_WINDOW_TRIES times in a row yet (then lat_timer_check() says so).
 */
static bool window_again(struct lat_timer *t, bool flagged, unsigned int *tries)
{
	if (!flagged)
		return false;
	t->flagged++;
	if (++*tries < LAT_WINDOW_TRIES)
		return true;
	t->disturbed = true;
	return false;
}

#if HAVE_INLINE_WINDOW
/*
 * Whether an inline window counts, by pmuser_page_delta()'s rule, and its cycles in *d: the
 * thread stayed on its CPU and was not switched out, and perf neither moved the cycle slot
 * off the cycle counter nor reloaded it around either read (a reload inside the window shows
 * in the reads alone until the interrupt that republishes it is taken).
 */
static bool window_delta(const struct lat_timer *t, struct pmuser_page_mark m,
			 const uint64_t raw[2], uint64_t *d)
{
	static const unsigned int hw = PMUSER_HW_CYCLE;

	return pmuser_page_delta(t->page, m, &t->cycle_slot, &hw, 1, &raw[0], &raw[1], d);
}
#endif

uint64_t lat_time_load(struct lat_timer *t, void ***p)
{
	struct pmuser_region r;
	unsigned int tries = 0;

#if HAVE_INLINE_WINDOW
	if (t->inline_asm) {
		struct pmuser_page_mark m;
		uint64_t raw[2], d = 0;

		do {
			m = pmuser_page_mark(t->page);
			window_load(p, raw);
		} while (window_again(t, !window_delta(t, m, raw, &d), &tries));
		return d;
	}
#endif
	do {
		pmuser_region_start(t->ctr, &r);
		*p = one_load(*p);
		pmuser_region_stop(t->ctr, &r);
	} while (window_again(t, !r.valid, &tries));
	return r.raw[0];
}

uint64_t lat_time_empty(struct lat_timer *t)
{
	struct pmuser_region r;
	unsigned int tries = 0;

#if HAVE_INLINE_WINDOW
	if (t->inline_asm) {
		struct pmuser_page_mark m;
		uint64_t raw[2], d = 0;

		do {
			m = pmuser_page_mark(t->page);
			window_empty(raw);
		} while (window_again(t, !window_delta(t, m, raw, &d), &tries));
		return d;
	}
#endif
	do {
		pmuser_region_start(t->ctr, &r);
		__asm__ __volatile__("" ::: "memory");
		pmuser_region_stop(t->ctr, &r);
	} while (window_again(t, !r.valid, &tries));
	return r.raw[0];
}

uint64_t lat_time_chase(struct lat_timer *t, void ***p, uint64_t iters, uint64_t *ev)
{
	uint64_t before[PMUSER_COUNTERS_MAX], after[PMUSER_COUNTERS_MAX], d;
	struct pmuser_region r;
	unsigned int tries = 0;

	if (!iters)
		return 0;
#if HAVE_INLINE_WINDOW
	if (t->inline_asm) {
		/* Events are read outside the cycle window so that it stays one asm block. */
		struct pmuser_page_mark m;
		bool events = t->nr_events && ev, lost;
		uint64_t raw[2];

		/* A read that fails flags its window like a switch does: retried, then disturbed. */
		d = 0;
		do {
			lost = events && pmuser_counters_read(t->ctr, before);
			m = pmuser_page_mark(t->page);
			window_chase(p, iters, raw);
			if (events && pmuser_counters_read(t->ctr, after))
				lost = true;
		} while (window_again(t, lost || !window_delta(t, m, raw, &d), &tries));
		for (unsigned int i = 0; events && i < t->nr_events; i++)
			ev[i] = lost ? 0 : after[i + 1] - before[i + 1];
		return d;
	}
#endif
	(void)before;
	(void)after;
	do {
		pmuser_region_start(t->ctr, &r);
		*p = chase_loop(*p, iters);
		pmuser_region_stop(t->ctr, &r);
	} while (window_again(t, !r.valid, &tries));
	d = r.raw[0];
	for (unsigned int i = 0; ev && i < t->nr_events; i++)
		ev[i] = r.raw[i + 1];
	return d;
}

uint64_t lat_time_random(struct lat_timer *t, void **base, size_t nodes, size_t step,
			 uint64_t loads, uint64_t *state, uint64_t *ev)
{
	size_t words = step / sizeof(void *);
	uint64_t x = *state | 1;
	uintptr_t sum = 0;
	struct pmuser_region r;
	unsigned int tries = 0;

	/* A flagged run is measured again on the next stretch of the random stream. */
	do {
		pmuser_region_start(t->ctr, &r);
		for (uint64_t i = 0; i < loads; i++) {
			/* xorshift64, then the top 32 bits scaled to [0, nodes) without a division */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			sum += (uintptr_t)base[(size_t)(((x >> 32) * nodes) >> 32) * words];
		}
		pmuser_region_stop(t->ctr, &r);
	} while (window_again(t, !r.valid, &tries));
	__asm__ __volatile__("" : : "r"(sum));
	*state = x;
	for (unsigned int i = 0; ev && i < t->nr_events; i++)
		ev[i] = r.raw[i + 1];
	return r.raw[0];
}

double lat_predict_single(const struct lat_timer *t)
{
	return t->inline_asm ? 1.0 : 0.0;
}

double lat_predict_loop(const struct lat_timer *t)
{
	return t->inline_asm ? (double)LAT_LOOP_INSNS / LAT_UNROLL : 0.0;
}

/* ---- statistics ----------------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v. */
static int64_t rank(const int64_t *v, size_t n, double p)
{
	size_t k = (size_t)(p * (double)n + 0.999999);

	return v[k ? k - 1 : 0];
}

void lat_stats_compute(int64_t *v, size_t n, struct lat_stats *s)
{
	size_t run = 0, best = 0;
	double sum = 0;

	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_i64);
	s->n = n;
	s->min = v[0];
	s->max = v[n - 1];
	s->median = n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
	s->p90 = rank(v, n, 0.90);
	s->p99 = rank(v, n, 0.99);
	for (size_t i = 0; i < n; i++) {
		sum += (double)v[i];
		run = i && v[i] == v[i - 1] ? run + 1 : 1;
		if (run > best) {	/* ties: the smaller value wins, it came first */
			best = run;
			s->mode = v[i];
		}
	}
	s->mean = sum / (double)n;
}

double lat_median_double(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
