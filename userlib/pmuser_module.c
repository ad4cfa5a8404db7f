// SPDX-License-Identifier: MIT
/*
 * The module backend: counters held through /dev/pmuser and read inline, their meaning from
 * the counter page. The readers chosen for a set's layout are in pmuser_module_read.c.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmuser_internal.h"

static sigjmp_buf probe_env;

static void probe_sigill(int sig)
{
	siglongjmp(probe_env, sig);
}

int pmuser_counter_probe(unsigned int hw, uint64_t *value)
{
	struct sigaction sa = { .sa_handler = probe_sigill }, old;
	volatile int ret = -EPERM;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGILL, &sa, &old))
		return -errno;
	if (!sigsetjmp(probe_env, 1)) {
		*value = pmuser_counter_read_serial(hw);
		ret = 0;
	}
	sigaction(SIGILL, &old, NULL);
	return ret;
}

/* Reads every held counter once: false if the instruction traps. */
static bool module_reads_work(struct pmuser_counters *c)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		if (c->ctr[i].supported && pmuser_counter_probe(c->ctr[i].hw, &c->ctr[i].last))
			return false;
	return true;
}

/*
 * Appends what failed and why (request: the ioctl that failed, whose cause is named, or 0 for
 * other steps) and returns ret.
 */
static int module_why(int ret, char *why, size_t whylen, const char *what, unsigned long request)
{
	char cause[256];

	pmuser_device_why(request, ret, cause, sizeof(cause));
	pmuser__why_add(why, whylen, "module: %s: %s; ", what, cause);
	return ret;
}

/*
 * Each held counter's width as the page publishes it (the module asks perf for whole 64-bit
 * event counters where the core has them, PMUv3p5); raw reads mean what the page says.
 */
static void page_widths(struct pmuser_counters *c, unsigned int cpu)
{
	const volatile struct pmuser_page_cpu *rec;
	unsigned int i, bits;

	if (cpu >= c->page.nr_cpus)
		return;
	rec = pmuser_page_cpu(&c->page, cpu);
	for (i = 0; i < c->nr; i++) {
		bits = rec->slot[c->ctr[i].slot].bits;
		if (c->ctr[i].supported && bits)
			c->ctr[i].bits = bits;
	}
}

/* PMUv3's CPU_CYCLES: counts cycles on an event counter where the cycle counter is not read. */
#define EVENT_CPU_CYCLES 0x11

/* 1 where ctr[0] is the cycle counter, held with PMUSER_CONFIG_CYCLES. */
static unsigned int cycles_first(const struct pmuser_counters *c)
{
	return c->attr.flags & PMUSER_COUNTERS_CYCLES && !c->cycles_on_event ? 1 : 0;
}

/*
 * The set as the module configures it: the cycle counter first when asked for, then every
 * event this CPU counts (the others dropped where the set allows, else an error).
 */
static int config_build(struct pmuser_counters *c, const struct pmuser_cpu_info *ci,
			struct pmuser_config *cfg, char *why, size_t whylen)
{
	unsigned int i, first = cycles_first(c);

	if (first) {
		cfg->flags = PMUSER_CONFIG_CYCLES;
		cfg->cycle_flags = c->ctr[0].flags;
		c->ctr[0].hw = PMUSER_HW_CYCLE;
		c->ctr[0].slot = PMUSER_PAGE_CYCLE_SLOT;
		c->ctr[0].bits = ci->cycle_bits;
	}
	for (i = first; i < c->nr; i++) {
		struct pmuser_ctr *ctr = &c->ctr[i];

		if (ctr->is_cycles)
			ctr->event = EVENT_CPU_CYCLES;
		if (!pmuser_event_supported(ci, ctr->event)) {
			if (!(c->attr.flags & PMUSER_COUNTERS_OPTIONAL))
				return module_why(-EOPNOTSUPP, why, whylen, ctr->name, 0);
			ctr->supported = false;
			continue;
		}
		ctr->bits = ci->counter_bits;
		ctr->slot = cfg->nr_events;
		cfg->events[cfg->nr_events].event = ctr->event;
		cfg->events[cfg->nr_events].flags = ctr->flags;
		cfg->nr_events++;
	}
	return 0;
}

/*
 * The hardware counters CONFIGURE chose, and what a read of all counters takes from the page,
 * fixed from here on.
 */
static void config_layout(struct pmuser_counters *c, const struct pmuser_config *cfg)
{
	unsigned int i, k, first = cycles_first(c);

	for (i = first, k = 0; i < c->nr; i++)
		if (c->ctr[i].supported)
			c->ctr[i].hw = cfg->events[k++].hw_counter;
	c->nr_read = 0;
	for (i = 0; i < c->nr; i++) {
		if (!c->ctr[i].supported)
			continue;
		c->read_idx[c->nr_read] = i;
		c->read_slot[c->nr_read++] = c->ctr[i].slot;
	}
}

static void grant_state(struct pmuser__grant_state *s, const struct pmuser_info *info,
			const struct pmuser_cpu_info *ci)
{
	s->cpu = ci->cpu;
	s->arch = info->arch;
	s->pmu_version = ci->pmu_version;
	s->nr_counters = ci->nr_counters;
	s->user_enable = ci->user_enable;
	/* A module before VER1 leaves them 0: the grants then read as PMUSERENR_EL0 alone. */
	s->el0_flags = ci->el0_flags;
	s->pmuacr = ci->pmuacr;
}

/*
 * Before CONFIGURE: the path every CPU the set may run on allows (the pinned one, else every
 * online CPU), with the events assumed on counters 0 up. Sets c->cycles_on_event.
 */
static int grants_before(struct pmuser_counters *c, const struct pmuser_info *info,
			 const struct pmuser_cpu_info *ci, char *why, size_t whylen)
{
	struct pmuser__grant_need need = { 0 };
	struct pmuser__grant_state *st;
	struct pmuser_cpu_info other;
	unsigned int cpu, n = 0, nr = info->nr_cpus;
	enum pmuser__reader_path path;
	char reason[320];

	if (nr > PMUSER_MAX_CPUS)
		nr = PMUSER_MAX_CPUS;

	st = calloc(c->attr.cpu >= 0 ? 1 : nr, sizeof(*st));
	if (!st)
		return module_why(-ENOMEM, why, whylen, "grant states", 0);
	if (c->attr.cpu >= 0)
		grant_state(&st[n++], info, ci);
	for (cpu = 0; c->attr.cpu < 0 && cpu < nr; cpu++)
		if (!pmuser_device_cpu_info(c->dev_fd, cpu, &other) && other.online)
			grant_state(&st[n++], info, &other);
	need.cycles = c->attr.flags & PMUSER_COUNTERS_CYCLES;
	need.event_mask = (uint32_t)((1ull << (c->nr - (need.cycles ? 1 : 0))) - 1);
	path = pmuser__reader_decide(st, n, &need, reason, sizeof(reason));
	free(st);
	if (path == PMUSER__PATH_PERF_TASK)
		return module_why(-EOPNOTSUPP, why, whylen, reason, 0);
	c->cycles_on_event = path == PMUSER__PATH_CYCLES_EVENT;
	return 0;
}

/* After GRANT: the calling CPU's grant as perf made it for this thread, and the real layout. */
static int grants_after(struct pmuser_counters *c, const struct pmuser_info *info, char *why,
			size_t whylen)
{
	struct pmuser__grant_need need = { 0 };
	struct pmuser__grant_state st;
	struct pmuser_cpu_info ci;
	char reason[320];
	unsigned int i;

	if (pmuser_device_cpu_info(c->dev_fd, (unsigned int)sched_getcpu(), &ci))
		return 0;
	grant_state(&st, info, &ci);
	for (i = 0; i < c->nr; i++) {
		if (!c->ctr[i].supported)
			continue;
		if (c->ctr[i].hw == PMUSER_HW_CYCLE)
			need.cycles = true;
		else if (c->ctr[i].hw < PMUSER_HW_CYCLE)
			need.event_mask |= 1u << c->ctr[i].hw;
	}
	if (pmuser__reader_decide(&st, 1, &need, reason, sizeof(reason)) == PMUSER__PATH_PERF_TASK)
		return module_why(-EPERM, why, whylen, reason, 0);
	return 0;
}

/* The timer behind the set's cycles, for pmuser_counters_timer(). */
static void module_timer(struct pmuser_counters *c, const struct pmuser_cpu_info *ci)
{
	if (c->cycles_on_event)
		snprintf(c->timer, sizeof(c->timer), "PMEVCNTR%u_EL0 counting CPU_CYCLES inline",
			 c->ctr[0].hw);
	else
		snprintf(c->timer, sizeof(c->timer), "%s inline (%u-bit, 1 cycle)",
			 PMUSER_FAST_ARCH == PMUSER_ARCH_ARMV8_A64 ? "PMCCNTR_EL0" :
			 PMUSER_FAST_ARCH == PMUSER_ARCH_ARMV7 ? "PMCCNTR (c9)" : "CCNT (c15)",
			 ci->cycle_bits);
}

/*
 * Holds the set's counters (ctr[], from attr) through CONFIGURE, which replaces what the file
 * held, and chooses their readers. At open (first) it learns the set's CPU, maps the page and
 * grants the thread. A reconfiguration of a set with a CPU asks the device nothing before
 * CONFIGURE: the CPU's PMU is as the open found it, and the time of every call between the
 * old set's last read and the new set's start goes uncounted (a CPU_INFO takes tens of ms
 * on PREEMPT_RT). After CONFIGURE it rechecks the grants only where they are per counter
 * (PMUv3p9); elsewhere the probe proves the new counters' reads.
 */
static int module_hold(struct pmuser_counters *c, bool first, char *why, size_t whylen)
{
	const struct pmuser_counters_attr *a = &c->attr;
	const struct pmuser_info *info = &c->dev_info;
	const struct pmuser_cpu_info *ci = &c->dev_ci;
	struct pmuser_config cfg = { 0 };
	unsigned int cpu;
	int ret;

	if (a->cpu >= 0)
		cfg.cpus[a->cpu / 64] = 1ULL << (a->cpu % 64);
	cpu = a->cpu >= 0 ? (unsigned int)a->cpu : (unsigned int)sched_getcpu();
	if (first || a->cpu < 0) {
		ret = pmuser_device_cpu_info(c->dev_fd, cpu, &c->dev_ci);
		if (ret)
			return module_why(ret, why, whylen, "PMUSER_IOC_CPU_INFO",
					  PMUSER_IOC_CPU_INFO);
	}
	ret = grants_before(c, info, ci, why, whylen);
	if (!ret)
		ret = config_build(c, ci, &cfg, why, whylen);
	if (ret)
		return ret;
	ret = pmuser_device_configure(c->dev_fd, &cfg);
	if (ret)
		return module_why(ret, why, whylen, "PMUSER_IOC_CONFIGURE", PMUSER_IOC_CONFIGURE);
	config_layout(c, &cfg);
	if (first) {
		ret = pmuser_page_map(c->dev_fd, &c->page);
		if (ret)
			return module_why(ret, why, whylen, "mapping the counter page", 0);
	}
	page_widths(c, (unsigned int)sched_getcpu());
	pmuser__module_readers(c, ci->pmu_version, info->page_flags);
	/*
	 * EEXIST: the program granted this thread itself (through another file, or for the
	 * threads it creates too); reads work while that grant lasts. A grant outlives the
	 * configurations that replace each other under it.
	 */
	if (first) {
		ret = pmuser_device_grant(c->dev_fd, 0);
		if (ret && ret != -EEXIST)
			return module_why(ret, why, whylen, "PMUSER_IOC_GRANT", PMUSER_IOC_GRANT);
	}
	if (first || ci->el0_flags & PMUSER_CPU_EL0_PMUV3P9) {
		ret = grants_after(c, info, why, whylen);
		if (ret)
			return ret;
	}
	if (!module_reads_work(c))
		return module_why(-EPERM, why, whylen, "inline read traps (SIGILL)", 0);
	module_timer(c, ci);
	return 0;
}

static int module_open(struct pmuser_counters *c, char *why, size_t whylen)
{
	const struct pmuser_counters_attr *a = &c->attr;
	struct pmuser_info *info = &c->dev_info;
	int ret;

	if (PMUSER_FAST_ARCH == PMUSER_ARCH_NONE) {
		pmuser__why_add(why, whylen, "module: no inline reads on this architecture; ");
		return -EOPNOTSUPP;
	}
	if (a->pid != 0 || a->flags & (PMUSER_COUNTERS_INHERIT | PMUSER_COUNTERS_ENABLE_ON_EXEC)) {
		pmuser__why_add(why, whylen, "module: counts only the calling thread's CPU; ");
		return -EOPNOTSUPP;
	}
	c->dev_fd = pmuser_device_open();
	if (c->dev_fd < 0) {
		ret = c->dev_fd;
		c->dev_fd = -1;
		return module_why(ret, why, whylen, PMUSER_DEVICE, 0);
	}
	ret = pmuser_device_info(c->dev_fd, info);
	if (ret) {
		module_why(ret, why, whylen, "PMUSER_IOC_INFO", PMUSER_IOC_INFO);
		goto fail;
	}
	if (info->abi_version != PMUSER_ABI_VERSION) {
		char what[96];

		snprintf(what, sizeof(what), "the module's ABI is %u, this library's %u",
			 info->abi_version, PMUSER_ABI_VERSION);
		ret = module_why(-EPROTO, why, whylen, what, 0);
		goto fail;
	}
	if (info->arch != PMUSER_FAST_ARCH) {
		ret = module_why(-EOPNOTSUPP, why, whylen,
				 "module and program architectures differ", 0);
		goto fail;
	}
	if (a->cpu >= 0) {
		if ((unsigned int)a->cpu >= info->nr_cpus || a->cpu >= PMUSER_MAX_CPUS) {
			ret = module_why(-EINVAL, why, whylen, "CPU number", 0);
			goto fail;
		}
		ret = pmuser_thread_pin(a->cpu);
		if (ret) {
			module_why(ret, why, whylen, "pinning to the CPU", 0);
			goto fail;
		}
	}
	ret = module_hold(c, true, why, whylen);
	if (ret)
		goto fail;
	return 0;
fail:
	pmuser_page_unmap(&c->page);
	close(c->dev_fd);
	c->dev_fd = -1;
	return ret;
}

/* A set whose reconfiguration failed: no counter is read, no read or region counts. */
static int module_lost_read_raw(struct pmuser_counters *c, uint64_t values[])
{
	(void)c;
	(void)values;
	return -ENODATA;
}

static int module_reconfigure(struct pmuser_counters *c, char *why, size_t whylen)
{
	unsigned int i;
	int ret;

	ret = module_hold(c, false, why, whylen);
	c->lost = ret != 0;
	if (!ret)
		return 0;
	/*
	 * The module may have put the previous configuration back, on other counters: the set
	 * reads none of them.
	 */
	for (i = 0; i < c->nr; i++)
		c->ctr[i].supported = false;
	c->nr_read = 0;
	pmuser__module_readers(c, 0, 0);
	c->read_raw = module_lost_read_raw;
	snprintf(c->timer, sizeof(c->timer), "none: the set holds no counters");
	return ret;
}

/* Module backend: counts through the counter page, continuous across perf's reloads. */
static int module_read(struct pmuser_counters *c, uint64_t values[])
{
	uint64_t v[PMUSER_COUNTERS_MAX];
	unsigned int i;
	int cpu, ret;

	if (c->lost)
		return -ENODATA;
	ret = pmuser_page_read(&c->page, c->read_slot, c->nr_read, v, &cpu);
	if (ret)
		return ret;
	if (c->nr_read == c->nr) {
		for (i = 0; i < c->nr; i++)
			values[i] = v[i];
		return 0;
	}
	for (i = 0; i < c->nr; i++)
		values[i] = 0;
	for (i = 0; i < c->nr_read; i++)
		values[c->read_idx[i]] = v[i];
	return 0;
}

/*
 * Module backend: a region counts by the rule of pmuser_page_delta(), its start the mark,
 * and its supported counters' deltas are masked to the widths the page gives the CPU it ran
 * on (unsupported counters read 0 and keep theirs).
 */
static bool module_region_valid(const struct pmuser_counters *c, const struct pmuser_region *r,
				const uint64_t end[], const uint64_t gaps[], uint64_t raw[])
{
	uint64_t a[PMUSER_COUNTERS_MAX], b[PMUSER_COUNTERS_MAX], d[PMUSER_COUNTERS_MAX];
	struct pmuser_page_mark m = { r->cpu, r->seq };
	unsigned int hw[PMUSER_COUNTERS_MAX], i;

	(void)gaps;
	if (c->lost)
		return false;
	for (i = 0; i < c->nr_read; i++) {
		hw[i] = c->ctr[c->read_idx[i]].hw;
		a[i] = r->start[c->read_idx[i]];
		b[i] = end[c->read_idx[i]];
	}
	if (!pmuser_page_delta(&c->page, m, c->read_slot, hw, c->nr_read, a, b, d))
		return false;
	for (i = 0; i < c->nr_read; i++)
		raw[c->read_idx[i]] = d[i];
	return true;
}

/* Raw reads through the readers chosen at open; the module never multiplexes. */
static int module_read_raw(struct pmuser_counters *c, uint64_t values[], uint64_t gaps[],
			   bool reverse)
{
	if (gaps)
		memset(gaps, 0, c->nr * sizeof(gaps[0]));
	(reverse ? c->raw_start : c->raw_stop)(c, values);
	return 0;
}

/*
 * The module's counters run as long as they are held; a reset restarts them at 0. A set
 * that holds nothing has nothing to start or reset.
 */
static int module_ctl(struct pmuser_counters *c, unsigned long request)
{
	if (c->lost)
		return -ENODATA;
	switch (request) {
	case PERF_EVENT_IOC_ENABLE:
		return 0;
	case PERF_EVENT_IOC_RESET:
		return pmuser_device_reset(c->dev_fd);
	default:
		return -EOPNOTSUPP;
	}
}

const struct pmuser__backend_ops pmuser__module_ops = {
	.open = module_open,
	.reconfigure = module_reconfigure,
	.read_raw = module_read_raw,
	.read = module_read,
	.ctl = module_ctl,
	.region_valid = module_region_valid,
};
