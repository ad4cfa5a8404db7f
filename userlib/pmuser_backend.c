// SPDX-License-Identifier: MIT
/*
 * What every backend shares: the backends by name (what pmuser_backend_parse() takes and the
 * reports print), reasons, the clock, and the clock backend itself.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pmuser_internal.h"
#include "pmuser_now.h"

static const char *const backend_names[] = {
	[PMUSER_BACKEND_AUTO] = "auto",
	[PMUSER_BACKEND_MODULE] = "module",
	[PMUSER_BACKEND_PERF_MMAP] = "perf-mmap",
	[PMUSER_BACKEND_PERF_READ] = "perf-read",
	[PMUSER_BACKEND_CLOCK] = "clock",
};

const char *pmuser_backend_name(enum pmuser_backend backend)
{
	if ((unsigned int)backend < sizeof(backend_names) / sizeof(backend_names[0]))
		return backend_names[backend];
	return "unknown";
}

const char *pmuser_backend_invalid_why(enum pmuser_backend backend)
{
	switch (backend) {
	case PMUSER_BACKEND_MODULE:
		/* The counters count every thread on their CPU, and perf owns them. */
		return "another thread kept running on the CPU, or perf kept reloading or moving the counters";
	case PMUSER_BACKEND_PERF_MMAP:
	case PMUSER_BACKEND_PERF_READ:
		/* perf counts per thread: only its scheduling of the events disturbs a region. */
		return "perf kept the events off the counters: other perf users' events hold them (perf schedules CPU-wide events before per-task ones), or perf is multiplexing the events, or the set is not enabled";
	default:
		return "nothing disturbs this backend's regions";
	}
}

int pmuser_backend_parse(const char *name, enum pmuser_backend *out)
{
	unsigned int i;

	if (!name || !out)
		return -EINVAL;
	for (i = 0; i < sizeof(backend_names) / sizeof(backend_names[0]); i++) {
		if (!strcmp(name, backend_names[i])) {
			*out = (enum pmuser_backend)i;
			return 0;
		}
	}
	return -EINVAL;
}

int pmuser_thread_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

void pmuser__why_add(char *why, size_t whylen, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!why || !whylen)
		return;
	used = strnlen(why, whylen);
	if (used + 1 >= whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why + used, whylen - used, fmt, ap);
	va_end(ap);
}

int pmuser__read_general(struct pmuser_counters *c, uint64_t values[])
{
	uint64_t raw[PMUSER_COUNTERS_MAX];
	unsigned int i;
	int ret;

	if (c->ops->read)
		return c->ops->read(c, values);
	ret = c->ops->read_raw(c, raw, NULL, false);
	if (ret)
		return ret;
	for (i = 0; i < c->nr; i++) {
		struct pmuser_ctr *ctr = &c->ctr[i];

		/* Extend to 64 bits: add the distance travelled since the last read. */
		ctr->last += (raw[i] - ctr->last) & pmuser__width_mask(ctr->bits);
		values[i] = ctr->supported ? ctr->last : 0;
	}
	return 0;
}

void pmuser__region_end(struct pmuser_counters *c, struct pmuser_region *r, const uint64_t end[],
			const uint64_t gaps[])
{
	uint64_t raw[PMUSER_COUNTERS_MAX];
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		raw[i] = (end[i] - r->start[i]) & pmuser__width_mask(c->ctr[i].bits);
	r->valid = c->ops->region_valid(c, r, end, gaps, raw);
	for (i = 0; i < c->nr; i++) {
		r->raw[i] = raw[i];
		r->delta[i] = (int64_t)(r->raw[i] - c->bias[i]);
	}
}

/*
 * With raw readers for the set (the module's), they read before anything else, into r->raw
 * (made deltas in place); other backends read through their own read_raw.
 */
void pmuser__region_stop_general(struct pmuser_counters *c, struct pmuser_region *r)
{
	uint64_t end[PMUSER_COUNTERS_MAX], gaps[PMUSER_COUNTERS_MAX];

	if (c->raw_stop) {
		c->raw_stop(c, r->raw);
		pmuser__region_end(c, r, r->raw, NULL);
		return;
	}
	if (c->ops->read_raw(c, end, gaps, false)) {
		/* Nothing read at the stop: no count, and raw and deltas say 0. */
		memset(r->raw, 0, c->nr * sizeof(r->raw[0]));
		memset(r->delta, 0, c->nr * sizeof(r->delta[0]));
		r->valid = false;
		return;
	}
	pmuser__region_end(c, r, end, gaps);
}

/* ---- clock backend: wall time as the cycle counter, nothing else -------------------------- */

static int clock_open(struct pmuser_counters *c, char *why, size_t whylen)
{
	struct timespec res = { 0 };
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		if (c->ctr[i].is_cycles) {
			snprintf(c->ctr[i].name, sizeof(c->ctr[i].name), "ns");
			c->ctr[i].bits = 64;
			continue;
		}
		if (!(c->attr.flags & PMUSER_COUNTERS_OPTIONAL)) {
			pmuser__why_add(why, whylen, "clock: cannot count %s; ", c->ctr[i].name);
			return -EOPNOTSUPP;
		}
		c->ctr[i].supported = false;
	}
	clock_getres(CLOCK_MONOTONIC_RAW, &res);
	snprintf(c->timer, sizeof(c->timer), "CLOCK_MONOTONIC_RAW (resolution %ld ns)",
		 (long)res.tv_nsec + (long)res.tv_sec * 1000000000L);
	return 0;
}

static int clock_read_raw(struct pmuser_counters *c, uint64_t values[], uint64_t gaps[],
			  bool reverse)
{
	unsigned int i;

	(void)reverse;
	for (i = 0; i < c->nr; i++) {
		values[i] = 0;
		if (gaps)
			gaps[i] = 0;
	}
	if (c->nr && c->ctr[0].is_cycles)
		values[0] = now_ns(CLOCK_MONOTONIC_RAW) - c->t_base;
	return 0;
}

/* The clock runs as long as the set is open; a reset moves its base and ctl_gen. */
static int clock_ctl(struct pmuser_counters *c, unsigned long request)
{
	if (request == PERF_EVENT_IOC_DISABLE)
		return -EOPNOTSUPP;
	if (request == PERF_EVENT_IOC_RESET)
		c->ctl_gen++;
	return 0;
}

/* Only a reset disturbs a region of wall time: the reads on its two sides have other bases. */
static bool clock_region_valid(const struct pmuser_counters *c, const struct pmuser_region *r,
			       const uint64_t end[], const uint64_t gaps[], uint64_t raw[])
{
	(void)end, (void)gaps, (void)raw;
	return r->seq == c->ctl_gen;
}

const struct pmuser__backend_ops pmuser__clock_ops = {
	.open = clock_open,
	.read_raw = clock_read_raw,
	.ctl = clock_ctl,
	.region_valid = clock_region_valid,
};
