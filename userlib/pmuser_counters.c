// SPDX-License-Identifier: MIT
/*
 * Counter sets: the attributes, the choice of a backend (struct pmuser__backend_ops: module
 * in pmuser_module.c, perf in pmuser_perf.c, clock in pmuser_backend.c), and the reads and
 * regions every backend shares.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmuser_internal.h"
#include "pmuser_now.h"

void pmuser_counters_attr_init(struct pmuser_counters_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cpu = -1;
}

/* ---- opening ------------------------------------------------------------------------------ */

/* Backends other than the module read no raw registers of their own. */
static int no_read_raw(struct pmuser_counters *c, uint64_t values[])
{
	(void)c;
	(void)values;
	return -EOPNOTSUPP;
}

/* Every counter as no backend has touched it yet. */
static void ctr_reset(struct pmuser_counters *c)
{
	unsigned int i, p;

	for (i = 0; i < c->nr; i++) {
		c->ctr[i].supported = true;
		for (p = 0; p < PMUSER__PERF_PMUS; p++) {
			c->ctr[i].fd[p] = -1;
			c->ctr[i].page[p] = NULL;
		}
		c->ctr[i].bits = 64;
		c->ctr[i].last = 0;
		if (c->ctr[i].is_cycles)
			snprintf(c->ctr[i].name, sizeof(c->ctr[i].name), "cycles");
	}
}

static void backend_reset(struct pmuser_counters *c)
{
	ctr_reset(c);
	c->dev_fd = -1;
	c->read_all = pmuser__read_general;
	c->read_raw = no_read_raw;
	c->raw_start = NULL;
	c->raw_stop = NULL;
	c->region_stop = pmuser__region_stop_general;
	pmuser_page_unmap(&c->page);
	c->leader = -1;
	c->nr_pmus = 1;
	c->pmu_type[0] = 0;
	c->timer[0] = '\0';
}

static int open_backend(struct pmuser_counters *c, enum pmuser_backend b, char *why,
			size_t whylen)
{
	static const struct pmuser__backend_ops *const ops[] = {
		[PMUSER_BACKEND_MODULE] = &pmuser__module_ops,
		[PMUSER_BACKEND_PERF_MMAP] = &pmuser__perf_mmap_ops,
		[PMUSER_BACKEND_PERF_READ] = &pmuser__perf_read_ops,
		[PMUSER_BACKEND_CLOCK] = &pmuser__clock_ops,
	};
	int ret;

	if ((unsigned int)b >= sizeof(ops) / sizeof(ops[0]) || !ops[b])
		return -EINVAL;
	backend_reset(c);
	c->backend = b;
	c->ops = ops[b];
	ret = c->ops->open(c, why, whylen);
	if (!ret)
		c->t_base = now_ns(CLOCK_MONOTONIC_RAW);
	return ret;
}

/* NULL, or what is wrong with the attributes. */
static const char *check_attr(const struct pmuser_counters_attr *a)
{
	const uint32_t known = PMUSER_COUNTERS_CYCLES | PMUSER_COUNTERS_OPTIONAL |
			       PMUSER_COUNTERS_NO_GROUP | PMUSER_COUNTERS_INHERIT |
			       PMUSER_COUNTERS_ENABLE_ON_EXEC | PMUSER_COUNTERS_DISABLED;
	size_t i;

	if (a->flags & ~known)
		return "unknown flags";
	if (a->backend > PMUSER_BACKEND_CLOCK)
		return "unknown backend";
	if (a->nr_events > PMUSER_MAX_EVENTS)
		return "more events than PMUSER_MAX_EVENTS";
	if (a->cycle_flags & ~PMUSER_COUNT_MASK)
		return "unknown cycle_flags";
	if (!a->nr_events && !(a->flags & PMUSER_COUNTERS_CYCLES))
		return "no counters: neither events nor PMUSER_COUNTERS_CYCLES";
	if (a->pid < -1 || a->cpu < -1 || (a->pid == -1 && a->cpu == -1))
		return "bad pid or cpu (pid -1 needs a cpu)";
	for (i = 0; i < a->nr_events; i++)
		if (a->events[i].event > 0xffff || a->events[i].flags & ~PMUSER_COUNT_MASK)
			return "an event number above 0xffff or unknown event flags";
	return NULL;
}

static uint32_t count_flags(uint32_t flags)
{
	flags = flags ? flags : PMUSER_COUNT_USER;
#if defined(PMUSER_FAST_V6)
	/* ARM1176 has no mode filter: it always counts every mode. */
	flags = PMUSER_COUNT_MASK;
#endif
	return flags;
}

/* The counters c->attr asks for: the cycle counter first, then the events in order. */
static void ctr_fill(struct pmuser_counters *c)
{
	const struct pmuser_counters_attr *attr = &c->attr;
	size_t i;

	memset(c->ctr, 0, sizeof(c->ctr));
	c->nr = 0;
	if (attr->flags & PMUSER_COUNTERS_CYCLES) {
		c->ctr[0].is_cycles = true;
		c->ctr[0].flags = count_flags(attr->cycle_flags);
		c->nr = 1;
	}
	for (i = 0; i < attr->nr_events; i++) {
		struct pmuser_ctr *ctr = &c->ctr[c->nr++];
		const struct pmuser_evspec_entry *e = &attr->events[i];

		ctr->event = e->event;
		ctr->flags = count_flags(e->flags);
		if (e->name)
			snprintf(ctr->name, sizeof(ctr->name), "%s", e->name);
		else
			snprintf(ctr->name, sizeof(ctr->name), "0x%x", e->event);
	}
}

/* Reasons are joined with "; ": drops the last separator. */
static void why_end(char *why, size_t whylen)
{
	size_t len;

	if (!why || !whylen)
		return;
	len = strnlen(why, whylen);
	if (len >= 2 && !strcmp(why + len - 2, "; "))
		why[len - 2] = '\0';
}

int pmuser_counters_open(const struct pmuser_counters_attr *attr, struct pmuser_counters **out,
			 char *why, size_t whylen)
{
	static const enum pmuser_backend order[] = {
		PMUSER_BACKEND_MODULE, PMUSER_BACKEND_PERF_MMAP, PMUSER_BACKEND_PERF_READ,
		PMUSER_BACKEND_CLOCK,
	};
	enum pmuser_backend want;
	struct pmuser_counters *c;
	const char *env, *bad;
	unsigned int i;
	int ret;

	if (why && whylen)
		why[0] = '\0';
	if (!attr || !out) {
		pmuser__why_add(why, whylen, "invalid arguments: %s is NULL", attr ? "out" : "attr");
		return -EINVAL;
	}
	want = attr->backend;
	bad = check_attr(attr);
	if (bad) {
		pmuser__why_add(why, whylen, "invalid counter attributes: %s", bad);
		return -EINVAL;
	}
	env = getenv("PMUSER_BACKEND");
	if (want == PMUSER_BACKEND_AUTO && env && *env) {
		if (pmuser_backend_parse(env, &want)) {
			pmuser__why_add(why, whylen, "PMUSER_BACKEND='%s' is not auto, module, perf-mmap, perf-read or clock",
				env);
			return -EINVAL;
		}
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->attr = *attr;
	ctr_fill(c);

	if (want != PMUSER_BACKEND_AUTO) {
		ret = open_backend(c, want, why, whylen);
	} else {
		/*
		 * A set too big for the PMU's counters (the module's, or a perf group) is the
		 * caller's to split: the clock must not take it in its place. perf may still
		 * open what the module cannot (one event per group).
		 */
		bool too_big = false;

		ret = -ENODEV;
		for (i = 0; i < sizeof(order) / sizeof(order[0]) && ret; i++) {
			if (order[i] == PMUSER_BACKEND_CLOCK && too_big) {
				ret = -ENOSPC;
				break;
			}
			ret = open_backend(c, order[i], why, whylen);
			too_big |= ret == -ENOSPC;
		}
		if (ret && ret != -EOPNOTSUPP && ret != -ENOSPC)
			ret = -ENODEV;
	}
	why_end(why, whylen);
	if (ret) {
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

int pmuser_counters_reconfigure(struct pmuser_counters *c,
				const struct pmuser_evspec_entry events[], size_t nr_events,
				char *why, size_t whylen)
{
	struct pmuser_counters_attr attr;
	const char *bad;
	int ret;

	if (why && whylen)
		why[0] = '\0';
	if (!c || (nr_events && !events)) {
		pmuser__why_add(why, whylen, "invalid arguments: %s is NULL", c ? "events" : "c");
		return -EINVAL;
	}
	if (!c->ops->reconfigure) {
		pmuser__why_add(why, whylen, "%s: a set's events are fixed when it is opened",
				pmuser_backend_name(c->backend));
		return -EOPNOTSUPP;
	}
	if (nr_events > PMUSER_MAX_EVENTS) {
		pmuser__why_add(why, whylen, "invalid counter attributes: more events than PMUSER_MAX_EVENTS");
		return -EINVAL;
	}
	attr = c->attr;
	attr.nr_events = nr_events;
	if (nr_events)
		memcpy(attr.events, events, nr_events * sizeof(events[0]));
	bad = check_attr(&attr);
	if (bad) {
		pmuser__why_add(why, whylen, "invalid counter attributes: %s", bad);
		return -EINVAL;
	}
	c->attr = attr;
	ctr_fill(c);
	ctr_reset(c);
	memset(c->bias, 0, sizeof(c->bias));
	ret = c->ops->reconfigure(c, why, whylen);
	why_end(why, whylen);
	c->t_base = now_ns(CLOCK_MONOTONIC_RAW);
	return ret;
}

void pmuser_counters_close(struct pmuser_counters *c)
{
	if (!c)
		return;
	if (c->ops->close)
		c->ops->close(c);
	pmuser_page_unmap(&c->page);
	if (c->dev_fd >= 0)
		close(c->dev_fd);
	free(c);
}

/* ---- accessors ---------------------------------------------------------------------------- */

enum pmuser_backend pmuser_counters_backend(const struct pmuser_counters *c)
{
	return c->backend;
}

unsigned int pmuser_counters_nr(const struct pmuser_counters *c)
{
	return c->nr;
}

const char *pmuser_counters_name(const struct pmuser_counters *c, unsigned int i)
{
	return i < c->nr ? c->ctr[i].name : NULL;
}

bool pmuser_counters_supported(const struct pmuser_counters *c, unsigned int i)
{
	return i < c->nr && c->ctr[i].supported;
}

const struct pmuser_page *pmuser_counters_page(const struct pmuser_counters *c)
{
	return &c->page;
}

int pmuser_counters_hw(const struct pmuser_counters *c, unsigned int i)
{
	if (c->backend != PMUSER_BACKEND_MODULE || i >= c->nr || !c->ctr[i].supported)
		return -EOPNOTSUPP;
	return (int)c->ctr[i].hw;
}

int pmuser_counters_slot(const struct pmuser_counters *c, unsigned int i)
{
	if (c->backend != PMUSER_BACKEND_MODULE || i >= c->nr || !c->ctr[i].supported)
		return -EOPNOTSUPP;
	return (int)c->ctr[i].slot;
}

const char *pmuser_counters_timer(const struct pmuser_counters *c)
{
	return c->timer;
}

/* ---- reads -------------------------------------------------------------------------------- */

/*
 * Raw reads, in reverse order for a region's start so that each counter's window nests inside
 * the previous one's: counter 0 (the cycle counter) is read closest to the measured code.
 */
static int read_raw(struct pmuser_counters *c, uint64_t values[], uint64_t gaps[], bool reverse)
{
	return c->ops->read_raw(c, values, gaps, reverse);
}

/* The reader chosen at open for the set (module layouts, perf self-read), else the general one. */
int pmuser_counters_read(struct pmuser_counters *c, uint64_t values[])
{
	return c->read_all(c, values);
}

/* The module backend's raw reader chosen at open; the other backends have no raw registers. */
int pmuser_counters_read_raw(struct pmuser_counters *c, uint64_t values[])
{
	return c->read_raw(c, values);
}

int pmuser_counters_read_full(struct pmuser_counters *c, struct pmuser_count counts[])
{
	uint64_t values[PMUSER_COUNTERS_MAX], t;
	unsigned int i;
	int ret;

	if (c->ops->read_full)
		return c->ops->read_full(c, counts);
	ret = pmuser_counters_read(c, values);
	if (ret)
		return ret;
	t = now_ns(CLOCK_MONOTONIC_RAW) - c->t_base;
	for (i = 0; i < c->nr; i++) {
		counts[i].value = values[i];
		counts[i].enabled = t;
		counts[i].running = c->ctr[i].supported ? t : 0;
	}
	return 0;
}

double pmuser_count_scaled(const struct pmuser_count *count)
{
	if (!count->running)
		return 0.0;
	if (count->running >= count->enabled)
		return (double)count->value;
	return (double)count->value * ((double)count->enabled / (double)count->running);
}

int pmuser_counters_enable(struct pmuser_counters *c)
{
	return c->ops->ctl(c, PERF_EVENT_IOC_ENABLE);
}

int pmuser_counters_disable(struct pmuser_counters *c)
{
	return c->ops->ctl(c, PERF_EVENT_IOC_DISABLE);
}

int pmuser_counters_reset(struct pmuser_counters *c)
{
	uint64_t raw[PMUSER_COUNTERS_MAX];
	unsigned int i;
	int ret;

	ret = c->ops->ctl(c, PERF_EVENT_IOC_RESET);
	if (ret)
		return ret;
	c->t_base = now_ns(CLOCK_MONOTONIC_RAW);
	ret = read_raw(c, raw, NULL, false);
	for (i = 0; !ret && i < c->nr; i++)
		c->ctr[i].last = raw[i];
	return ret;
}

/* ---- regions ------------------------------------------------------------------------------ */

/*
 * With readers chosen for the set (the module's), a region's start marks the CPU and its page
 * sequence and reads last of all; other backends read through their own read_raw. Kept
 * apart from its callers here, as pmuser_region_stop() is.
 */
PMUSER__NOIPA void pmuser_region_start(struct pmuser_counters *c,
						   struct pmuser_region *r)
{
	if (c->raw_start) {
		r->cpu = pmuser_thread_cpu();
		r->seq = r->cpu >= 0 && (unsigned int)r->cpu < c->page.nr_cpus ?
			 pmuser_page_cpu(&c->page, (unsigned int)r->cpu)->seq : 1;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		c->raw_start(c, r->start);
		return;
	}
	r->seq = c->ctl_gen;
	/* A read that failed left the gaps off: the stop pairs with no earlier start. */
	read_raw(c, r->start, r->gap, true);
}

/*
 * The stop chosen for the set (module layouts), else the general one. Kept apart from its
 * callers here (PMUSER__NOIPA), so that pmuser_region_calibrate() measures the call a program
 * makes.
 */
PMUSER__NOIPA void pmuser_region_stop(struct pmuser_counters *c,
						  struct pmuser_region *r)
{
	c->region_stop(c, r);
}

int pmuser_region_calibrate(struct pmuser_counters *c, unsigned int rounds)
{
	uint64_t best[PMUSER_COUNTERS_MAX];
	struct pmuser_region r;
	unsigned int i, k;

	if (!rounds)
		return -EINVAL;
	for (i = 0; i < c->nr; i++) {
		best[i] = UINT64_MAX;
		c->bias[i] = 0;
	}
	for (k = 0; k < rounds; k++) {
		pmuser_region_start(c, &r);
		pmuser_region_stop(c, &r);
		if (!r.valid)
			continue;
		for (i = 0; i < c->nr; i++)
			if (r.raw[i] < best[i])
				best[i] = r.raw[i];
	}
	for (i = 0; i < c->nr; i++) {
		/* Not one usable region: perf kept reloading the counters. */
		if (c->ctr[i].supported && best[i] == UINT64_MAX)
			return -EAGAIN;
		c->bias[i] = c->ctr[i].supported ? best[i] : 0;
	}
	return 0;
}

uint64_t pmuser_region_bias(const struct pmuser_counters *c, unsigned int i)
{
	return i < c->nr ? c->bias[i] : 0;
}
