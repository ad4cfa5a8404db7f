// SPDX-License-Identifier: MIT
/*
 * Counter sets: backend selection, the module and clock backends, and the backend-neutral
 * reads. The perf backends are in pmuser_perf.c, the backends' names in pmuser_backend.c.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmuser_internal.h"

uint64_t pmuser__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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

void pmuser_counters_attr_init(struct pmuser_counters_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cpu = -1;
}

/* Appends "name: reason; " to why. */
static void __attribute__((format(printf, 3, 4)))
why_add(char *why, size_t whylen, const char *fmt, ...)
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

/* ---- module backend ----------------------------------------------------------------------- */

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

/* request: the ioctl that failed (its cause is named), or 0 for other steps. */
static int module_fail_req(struct pmuser_counters *c, int ret, char *why, size_t whylen,
			   const char *what, unsigned long request)
{
	char cause[256];

	pmuser_device_why(request, ret, cause, sizeof(cause));
	why_add(why, whylen, "module: %s: %s; ", what, cause);
	pmuser_page_unmap(&c->page);
	if (c->dev_fd >= 0)
		close(c->dev_fd);
	c->dev_fd = -1;
	return ret;
}

static int module_fail(struct pmuser_counters *c, int ret, char *why, size_t whylen,
		       const char *what)
{
	return module_fail_req(c, ret, why, whylen, what, 0);
}

/*
 * Each held counter's width as the page publishes it: perf gives events 32-bit counters even
 * where the PMU's are 64 bits wide (PMUv3p5), and raw reads mean what the page says.
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

int pmuser__module_open(struct pmuser_counters *c, char *why, size_t whylen)
{
	const struct pmuser_counters_attr *a = &c->attr;
	struct pmuser_config cfg = { 0 };
	struct pmuser_cpu_info ci;
	struct pmuser_info info;
	unsigned int i, cpu, first = c->attr.flags & PMUSER_COUNTERS_CYCLES ? 1 : 0;
	int ret;

	if (PMUSER_FAST_ARCH == PMUSER_ARCH_NONE) {
		why_add(why, whylen, "module: no inline reads on this architecture; ");
		return -EOPNOTSUPP;
	}
	if (a->pid != 0 || a->flags & (PMUSER_COUNTERS_INHERIT | PMUSER_COUNTERS_ENABLE_ON_EXEC)) {
		why_add(why, whylen, "module: counts only the calling thread's CPU; ");
		return -EOPNOTSUPP;
	}
	c->dev_fd = pmuser_device_open();
	if (c->dev_fd < 0) {
		ret = c->dev_fd;
		c->dev_fd = -1;
		return module_fail(c, ret, why, whylen, PMUSER_DEVICE);
	}
	ret = pmuser_device_info(c->dev_fd, &info);
	if (ret)
		return module_fail(c, ret, why, whylen, "PMUSER_IOC_INFO");
	if (info.arch != PMUSER_FAST_ARCH)
		return module_fail(c, -EOPNOTSUPP, why, whylen, "module and program architectures differ");
	if (info.access_mode == PMUSER_ACCESS_NONE)
		return module_fail(c, -EPERM, why, whylen, "the module grants no inline access (access mode none)");
	if (a->cpu >= 0) {
		if ((unsigned int)a->cpu >= info.nr_cpus || a->cpu >= PMUSER_MAX_CPUS)
			return module_fail(c, -EINVAL, why, whylen, "CPU number");
		cfg.cpus[a->cpu / 64] = 1ULL << (a->cpu % 64);
		ret = pmuser_thread_pin(a->cpu);
		if (ret)
			return module_fail(c, ret, why, whylen, "pinning to the CPU");
	}
	cpu = a->cpu >= 0 ? (unsigned int)a->cpu : (unsigned int)sched_getcpu();
	ret = pmuser_device_cpu_info(c->dev_fd, cpu, &ci);
	if (ret)
		return module_fail(c, ret, why, whylen, "PMUSER_IOC_CPU_INFO");

	if (first) {
		cfg.flags = PMUSER_CONFIG_CYCLES;
		cfg.cycle_flags = c->ctr[0].flags;
		c->ctr[0].hw = PMUSER_HW_CYCLE;
		c->ctr[0].slot = PMUSER_PAGE_CYCLE_SLOT;
		c->ctr[0].bits = ci.cycle_bits;
	}
	for (i = first; i < c->nr; i++) {
		struct pmuser_ctr *ctr = &c->ctr[i];

		if (!pmuser_event_supported(&ci, ctr->event)) {
			if (!(a->flags & PMUSER_COUNTERS_OPTIONAL))
				return module_fail(c, -EOPNOTSUPP, why, whylen, ctr->name);
			ctr->supported = false;
			continue;
		}
		ctr->bits = ci.counter_bits;
		ctr->slot = cfg.nr_events;
		cfg.events[cfg.nr_events].event = ctr->event;
		cfg.events[cfg.nr_events].flags = ctr->flags;
		cfg.nr_events++;
	}
	ret = pmuser_device_configure(c->dev_fd, &cfg);
	if (ret)
		return module_fail_req(c, ret, why, whylen, "PMUSER_IOC_CONFIGURE",
				       PMUSER_IOC_CONFIGURE);
	for (i = first, cpu = 0; i < c->nr; i++)
		if (c->ctr[i].supported)
			c->ctr[i].hw = cfg.events[cpu++].hw_counter;
	/* What a read of all counters takes from the page, fixed from here on. */
	c->nr_read = 0;
	for (i = 0; i < c->nr; i++) {
		if (!c->ctr[i].supported)
			continue;
		c->read_idx[c->nr_read] = i;
		c->read_slot[c->nr_read++] = c->ctr[i].slot;
	}
	ret = pmuser_page_map(c->dev_fd, &c->page);
	if (ret)
		return module_fail(c, ret, why, whylen, "mapping the counter page");
	page_widths(c, (unsigned int)sched_getcpu());
	pmuser__module_readers(c, ci.pmu_version);
	ret = pmuser_device_grant(c->dev_fd, 0);
	if (ret)
		return module_fail_req(c, ret, why, whylen, "PMUSER_IOC_GRANT", PMUSER_IOC_GRANT);
	if (!module_reads_work(c))
		return module_fail(c, -EPERM, why, whylen, "inline read traps (SIGILL)");
	snprintf(c->timer, sizeof(c->timer), "%s inline (%u-bit, 1 cycle)",
		 PMUSER_FAST_ARCH == PMUSER_ARCH_ARMV8_A64 ? "PMCCNTR_EL0" :
		 PMUSER_FAST_ARCH == PMUSER_ARCH_ARMV7 ? "PMCCNTR (c9)" : "CCNT (c15)",
		 ci.cycle_bits);
	return 0;
}

/* ---- opening ------------------------------------------------------------------------------ */

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
			why_add(why, whylen, "clock: cannot count %s; ", c->ctr[i].name);
			return -EOPNOTSUPP;
		}
		c->ctr[i].supported = false;
	}
	clock_getres(CLOCK_MONOTONIC_RAW, &res);
	snprintf(c->timer, sizeof(c->timer), "CLOCK_MONOTONIC_RAW (resolution %ld ns)",
		 (long)res.tv_nsec + (long)res.tv_sec * 1000000000L);
	return 0;
}

static void backend_reset(struct pmuser_counters *c)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		c->ctr[i].supported = true;
		c->ctr[i].fd = -1;
		c->ctr[i].page = NULL;
		c->ctr[i].bits = 64;
		c->ctr[i].last = 0;
		if (c->ctr[i].is_cycles)
			snprintf(c->ctr[i].name, sizeof(c->ctr[i].name), "cycles");
	}
	c->dev_fd = -1;
	c->fast_read = NULL;
	c->raw_start = NULL;
	c->raw_stop = NULL;
	pmuser_page_unmap(&c->page);
	c->leader = -1;
	c->timer[0] = '\0';
}

static int open_backend(struct pmuser_counters *c, enum pmuser_backend b, char *why,
			size_t whylen)
{
	int ret;

	backend_reset(c);
	c->backend = b;
	switch (b) {
	case PMUSER_BACKEND_MODULE:
		ret = pmuser__module_open(c, why, whylen);
		break;
	case PMUSER_BACKEND_PERF_MMAP:
		ret = pmuser__perf_open(c, true, why, whylen);
		break;
	case PMUSER_BACKEND_PERF_READ:
		ret = pmuser__perf_open(c, false, why, whylen);
		break;
	case PMUSER_BACKEND_CLOCK:
		ret = clock_open(c, why, whylen);
		break;
	default:
		ret = -EINVAL;
	}
	if (!ret)
		c->t_base = pmuser__now_ns();
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

int pmuser_counters_open(const struct pmuser_counters_attr *attr, struct pmuser_counters **out,
			 char *why, size_t whylen)
{
	static const enum pmuser_backend order[] = {
		PMUSER_BACKEND_MODULE, PMUSER_BACKEND_PERF_MMAP, PMUSER_BACKEND_PERF_READ,
		PMUSER_BACKEND_CLOCK,
	};
	enum pmuser_backend want = attr->backend;
	struct pmuser_counters *c;
	const char *env, *bad;
	unsigned int i;
	int ret;

	if (why && whylen)
		why[0] = '\0';
	bad = check_attr(attr);
	if (bad) {
		why_add(why, whylen, "invalid counter attributes: %s", bad);
		return -EINVAL;
	}
	env = getenv("PMUSER_BACKEND");
	if (want == PMUSER_BACKEND_AUTO && env && *env) {
		if (pmuser_backend_parse(env, &want)) {
			why_add(why, whylen, "PMUSER_BACKEND='%s' is not auto, module, perf-mmap, perf-read or clock",
				env);
			return -EINVAL;
		}
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->attr = *attr;
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

	if (want != PMUSER_BACKEND_AUTO) {
		ret = open_backend(c, want, why, whylen);
	} else {
		ret = -ENODEV;
		for (i = 0; i < sizeof(order) / sizeof(order[0]) && ret; i++)
			ret = open_backend(c, order[i], why, whylen);
		if (ret && ret != -EOPNOTSUPP)
			ret = -ENODEV;
	}
	if (why && whylen) {
		size_t len = strnlen(why, whylen);

		/* Reasons are joined with "; "; drop the last separator. */
		if (len >= 2 && !strcmp(why + len - 2, "; "))
			why[len - 2] = '\0';
	}
	if (ret) {
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

void pmuser_counters_close(struct pmuser_counters *c)
{
	if (!c)
		return;
	if (c->backend == PMUSER_BACKEND_PERF_MMAP || c->backend == PMUSER_BACKEND_PERF_READ)
		pmuser__perf_close(c);
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

const char *pmuser_counters_timer(const struct pmuser_counters *c)
{
	return c->timer;
}

/* ---- reads -------------------------------------------------------------------------------- */

/*
 * Raw reads, in reverse order for a region's start so that each counter's window nests inside
 * the previous one's: counter 0 (the cycle counter) is read closest to the measured code.
 */
int pmuser__read_raw(struct pmuser_counters *c, uint64_t values[], uint64_t gaps[], bool reverse)
{
	unsigned int i;

	if (gaps && c->backend != PMUSER_BACKEND_PERF_MMAP && c->backend != PMUSER_BACKEND_PERF_READ)
		memset(gaps, 0, c->nr * sizeof(gaps[0]));
	switch (c->backend) {
	case PMUSER_BACKEND_MODULE:
		(reverse ? c->raw_start : c->raw_stop)(c, values);
		return 0;
	case PMUSER_BACKEND_PERF_MMAP:
	case PMUSER_BACKEND_PERF_READ:
		return pmuser__perf_read_raw(c, values, gaps);
	case PMUSER_BACKEND_CLOCK:
		for (i = 0; i < c->nr; i++)
			values[i] = 0;
		if (c->nr && c->ctr[0].is_cycles)
			values[0] = pmuser__now_ns() - c->t_base;
		return 0;
	default:
		return -EINVAL;
	}
}

static uint64_t width_mask(unsigned int bits)
{
	return bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1;
}

/* Module backend: counts through the counter page, continuous across perf's reloads. */
static int module_read(struct pmuser_counters *c, uint64_t values[])
{
	uint64_t v[PMUSER_COUNTERS_MAX];
	unsigned int i;
	int cpu, ret;

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

int pmuser_counters_read(struct pmuser_counters *c, uint64_t values[])
{
	uint64_t raw[PMUSER_COUNTERS_MAX];
	unsigned int i;
	int ret;

	/* The reader chosen at open for the set (module layouts, perf self-read). */
	if (c->fast_read && !c->fast_read(c, values))
		return 0;
	if (c->backend == PMUSER_BACKEND_MODULE)
		return module_read(c, values);
	ret = pmuser__read_raw(c, raw, NULL, false);
	if (ret)
		return ret;
	for (i = 0; i < c->nr; i++) {
		struct pmuser_ctr *ctr = &c->ctr[i];
		uint64_t mask = width_mask(ctr->bits);

		/* Extend to 64 bits: add the distance travelled since the last read. */
		ctr->last += (raw[i] - ctr->last) & mask;
		values[i] = ctr->supported ? ctr->last : 0;
	}
	return 0;
}

int pmuser_counters_read_full(struct pmuser_counters *c, struct pmuser_count counts[])
{
	uint64_t values[PMUSER_COUNTERS_MAX], t;
	unsigned int i;
	int ret;

	if (c->backend == PMUSER_BACKEND_PERF_MMAP || c->backend == PMUSER_BACKEND_PERF_READ)
		return pmuser__perf_read_full(c, counts);
	ret = pmuser_counters_read(c, values);
	if (ret)
		return ret;
	t = pmuser__now_ns() - c->t_base;
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
	if (c->backend == PMUSER_BACKEND_PERF_MMAP || c->backend == PMUSER_BACKEND_PERF_READ)
		return pmuser__perf_ioctl(c, PERF_EVENT_IOC_ENABLE);
	return 0;
}

int pmuser_counters_disable(struct pmuser_counters *c)
{
	if (c->backend == PMUSER_BACKEND_PERF_MMAP || c->backend == PMUSER_BACKEND_PERF_READ)
		return pmuser__perf_ioctl(c, PERF_EVENT_IOC_DISABLE);
	/* The module's counters run as long as they are held. */
	return -EOPNOTSUPP;
}

int pmuser_counters_reset(struct pmuser_counters *c)
{
	uint64_t raw[PMUSER_COUNTERS_MAX];
	unsigned int i;
	int ret = 0;

	switch (c->backend) {
	case PMUSER_BACKEND_PERF_MMAP:
	case PMUSER_BACKEND_PERF_READ:
		ret = pmuser__perf_ioctl(c, PERF_EVENT_IOC_RESET);
		break;
	case PMUSER_BACKEND_MODULE:
		ret = pmuser_device_reset(c->dev_fd);
		break;
	default:
		break;
	}
	if (ret)
		return ret;
	c->t_base = pmuser__now_ns();
	ret = pmuser__read_raw(c, raw, NULL, false);
	for (i = 0; !ret && i < c->nr; i++)
		c->ctr[i].last = raw[i];
	return ret;
}

/* ---- regions ------------------------------------------------------------------------------ */

/*
 * Module backend: the region's reads are usable if the thread stayed on one CPU, that CPU's
 * page did not change (no reload, move or period end was published) and every raw read lies
 * in its published period on the counter the page names.
 */
static bool module_region_valid(const struct pmuser_counters *c, const struct pmuser_region *r,
				const uint64_t end[])
{
	const volatile struct pmuser_page_cpu *rec;
	struct pmuser_page_slot s;
	unsigned int i;

	if (r->cpu < 0 || (unsigned int)r->cpu >= c->page.nr_cpus || pmuser_thread_cpu() != r->cpu ||
	    (r->seq & 1))
		return false;
	rec = pmuser_page_cpu(&c->page, (unsigned int)r->cpu);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (i = 0; i < c->nr; i++) {
		if (!c->ctr[i].supported)
			continue;
		s.hw = rec->slot[c->ctr[i].slot].hw;
		s.bits = rec->slot[c->ctr[i].slot].bits;
		s.base = rec->slot[c->ctr[i].slot].base;
		if (s.hw != c->ctr[i].hw || !pmuser_page_raw_usable(&s, r->start[i]) ||
		    !pmuser_page_raw_usable(&s, end[i]))
			return false;
	}
	/* What was compared belongs to the sequence the region started under. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return rec->seq == r->seq;
}

void pmuser_region_start(struct pmuser_counters *c, struct pmuser_region *r)
{
	if (c->backend == PMUSER_BACKEND_MODULE) {
		r->cpu = pmuser_thread_cpu();
		r->seq = r->cpu >= 0 && (unsigned int)r->cpu < c->page.nr_cpus ?
			 pmuser_page_cpu(&c->page, (unsigned int)r->cpu)->seq : 1;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		c->raw_start(c, r->start);
		return;
	}
	pmuser__read_raw(c, r->start, r->gap, true);
}

/* perf backends: every counter was on a counter at both ends and all the time between. */
static bool perf_region_valid(const struct pmuser_counters *c, const struct pmuser_region *r,
			      const uint64_t gap[])
{
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		if (c->ctr[i].supported &&
		    (r->gap[i] == PMUSER_GAP_OFF || gap[i] != r->gap[i]))
			return false;
	return true;
}

static void region_deltas(const struct pmuser_counters *c, struct pmuser_region *r,
			  const uint64_t end[])
{
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		r->raw[i] = (end[i] - r->start[i]) & width_mask(c->ctr[i].bits);
		r->delta[i] = (int64_t)(r->raw[i] - c->bias[i]);
	}
}

void pmuser_region_stop(struct pmuser_counters *c, struct pmuser_region *r)
{
	uint64_t end[PMUSER_COUNTERS_MAX], gap[PMUSER_COUNTERS_MAX];

	/*
	 * Module: the counters are read before anything else, into r->raw (made deltas in
	 * place), so that the bias holds only a call and this branch.
	 */
	if (c->raw_stop) {
		c->raw_stop(c, r->raw);
		r->valid = module_region_valid(c, r, r->raw);
		region_deltas(c, r, r->raw);
		return;
	}
	pmuser__read_raw(c, end, gap, false);
	switch (c->backend) {
	case PMUSER_BACKEND_PERF_MMAP:
	case PMUSER_BACKEND_PERF_READ:
		r->valid = perf_region_valid(c, r, gap);
		break;
	default:
		r->valid = true;
	}
	region_deltas(c, r, end);
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
