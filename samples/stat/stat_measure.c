// SPDX-License-Identifier: MIT
/*
 * pmu-stat's backends. Every one prepares everything first, then spawns the command held
 * before exec, opens its counters, and only then lets the command run.
 *
 *  perf    per task (pid = the child), inherited by its children, enabled on exec; events
 *          that outnumber the counters are multiplexed by perf and scaled by its
 *          time_enabled / time_running.
 *  module  the seed's rpistat design on one CPU: the command is pinned to it, pmu-stat pins
 *          itself there too and rotates the event sets every period through the device
 *          (configure + reset), reading inline into 64-bit virtual counters. It counts
 *          everything that runs on that CPU in user mode (pmu-stat's own few reads included).
 *  clock   no PMU: wall time only.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stat.h"

/* 32-bit counters are read at least this often so 64-bit extension never misses a wrap. */
#define STAT_EXTEND_NS	(250ULL * 1000 * 1000)

int stat_periods_add(struct stat_periods *p, const struct stat_period *row)
{
	if (!p->keep)
		return 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		struct stat_period *rows = realloc(p->rows, cap * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		p->rows = rows;
		p->cap = cap;
	}
	p->rows[p->n++] = *row;
	return 0;
}

void stat_periods_free(struct stat_periods *p)
{
	free(p->rows);
	p->rows = NULL;
	p->n = p->cap = 0;
}

/*
 * Marks events the CPU does not implement (its PMCEID, read through the device): dropped
 * from a preset, an error for events asked for by name.
 */

static int check_supported(struct stat_setup *s, const struct stat_sys *sys, char *err,
			   size_t errlen)
{
	size_t i;

	if (!sys->have_pmceid)
		return 0;
	for (i = 0; i < s->nr_events; i++) {
		struct stat_event *e = &s->ev[i];

		if (pmuser_event_supported(&sys->cpu_info, e->spec.event))
			continue;
		if (!s->optional)
			return stat_fail(-EOPNOTSUPP, err, errlen,
				    "event %s (0x%x) is not implemented by this CPU (PMCEID%s); see pmu-info",
				    e->name, e->spec.event,
				    sys->have_cpu_info ? "" : ", as perf lists it in sysfs");
		e->supported = false;
	}
	return 0;
}

/* The library's reasons end in "; " for chaining; a report line ends without. */
static void trim_reason(char *why)
{
	size_t n = strlen(why);

	while (n && (why[n - 1] == ' ' || why[n - 1] == ';'))
		why[--n] = '\0';
}

/* Releases the child; an exec failure is recorded in r (the caller exits 126/127). */
static int release(struct stat_child *ch, struct stat_result *r, char *err, size_t errlen)
{
	int ret = stat_child_release(ch);

	if (ret) {
		r->exec_errno = -ret;
		stat_child_done(ch);
		return stat_fail(ret, err, errlen, "cannot run the command: %s", strerror(-ret));
	}
	return 0;
}

static void finish(struct stat_child *ch, struct stat_result *r, uint64_t t0)
{
	r->elapsed_ns = now_ns(CLOCK_MONOTONIC) - t0;
	r->wait_status = ch->status;
	r->ru = ch->ru;
	stat_child_done(ch);
}

/* ---- clock -------------------------------------------------------------------------------- */

static int measure_clock(const struct stat_opts *o, struct stat_setup *s,
			 struct stat_result *r, char *err, size_t errlen)
{
	struct stat_child ch;
	uint64_t t0;
	size_t i;
	int ret;

	for (i = 0; i < s->nr_events; i++)
		s->ev[i].supported = false;
	r->backend = STAT_CLOCK;
	snprintf(r->backend_desc, sizeof(r->backend_desc),
		 "clock: hardware counters are unavailable, wall time only");
	snprintf(r->timer, sizeof(r->timer), "CLOCK_MONOTONIC");
	ret = stat_child_spawn(&ch, o->argv, o->cpus, o->nr_cpus);
	if (ret)
		return stat_fail(ret, err, errlen, "fork: %s", strerror(-ret));
	t0 = now_ns(CLOCK_MONOTONIC);
	ret = release(&ch, r, err, errlen);
	if (ret)
		return ret;
	while (!stat_child_wait(&ch, (uint64_t)o->interval_ms * 1000000))
		r->total_periods++;
	r->total_periods++;
	finish(&ch, r, t0);
	return 0;
}

/* ---- perf --------------------------------------------------------------------------------- */

struct perf_state {
	struct pmuser_counters *c[STAT_MAX_CPUS];
	int cpu[STAT_MAX_CPUS];			/* -1: wherever the task runs */
	unsigned int n;
	bool grouped;				/* one group per CPU: one read per period */
	struct pmuser_count prev[STAT_MAX_CPUS][PMUSER_COUNTERS_MAX];
	/* --per-cpu: the task's time on each CPU (task-clock, never multiplexed); else -1 */
	int clock_fd[STAT_MAX_CPUS];
};

static void perf_close(struct perf_state *p)
{
	unsigned int k;

	for (k = 0; k < p->n; k++)
		pmuser_counters_close(p->c[k]);
	p->n = 0;
}

static void perf_clocks_close(struct perf_state *p)
{
	unsigned int k;

	for (k = 0; k < STAT_MAX_CPUS; k++) {
		if (p->clock_fd[k] >= 0)
			close(p->clock_fd[k]);
		p->clock_fd[k] = -1;
	}
}

/*
 * A per-CPU counter's time_running is the task's time on that CPU only while perf never
 * multiplexes it; the task's software task-clock there, inherited and enabled on exec like
 * the counters, is that time whatever perf does with the hardware counters. 0, or -errno
 * with why.
 */
static int perf_clocks_open(struct perf_state *p, pid_t pid, char *why, size_t whylen)
{
	struct perf_event_attr pa;
	unsigned int k;
	int ret;

	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_SOFTWARE;
	pa.config = PERF_COUNT_SW_TASK_CLOCK;
	pa.disabled = 1;
	pa.inherit = 1;
	pa.enable_on_exec = 1;
	for (k = 0; k < p->n; k++) {
		if (p->cpu[k] < 0)
			continue;
		p->clock_fd[k] = (int)syscall(SYS_perf_event_open, &pa, pid, p->cpu[k], -1,
					      PERF_FLAG_FD_CLOEXEC);
		if (p->clock_fd[k] < 0) {
			ret = -errno;
			p->clock_fd[k] = -1;
			perf_clocks_close(p);
			snprintf(why, whylen, "task-clock on CPU %d: %s", p->cpu[k],
				 strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* The task's time on the k-th CPU so far, in ns; 0 if unknown. */
static double perf_clock_ns(const struct perf_state *p, unsigned int k)
{
	uint64_t v;

	if (p->clock_fd[k] < 0 ||
	    read(p->clock_fd[k], &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return (double)v;
}

/*
 * Opens the events for pid on each CPU of p->cpu[]: 0, or -errno with why. As one group
 * (cycles leading) when asked: perf then schedules and reads them together, all of a period's
 * counts from one moment, but refuses a group the PMU cannot hold at once. Otherwise one
 * group per event, which perf multiplexes one by one.
 */
static int perf_open(struct perf_state *p, struct stat_setup *s, pid_t pid,
		     bool cycles_only, bool group, char *why, size_t whylen)
{
	struct pmuser_counters_attr a;
	size_t i;
	unsigned int k;
	int ret;

	pmuser_counters_attr_init(&a);
	a.backend = PMUSER_BACKEND_PERF_READ;
	a.flags = PMUSER_COUNTERS_CYCLES | PMUSER_COUNTERS_INHERIT |
		  PMUSER_COUNTERS_ENABLE_ON_EXEC;
	/* A group member perf could not place would pass for an unsupported event. */
	if (!group)
		a.flags |= PMUSER_COUNTERS_NO_GROUP;
	if (s->optional && !group)
		a.flags |= PMUSER_COUNTERS_OPTIONAL;
	a.pid = pid;
	for (i = 0; !cycles_only && i < s->nr_events; i++)
		if (s->ev[i].supported)
			a.events[a.nr_events++] = s->ev[i].spec;
	for (k = 0; k < p->n; k++) {
		a.cpu = p->cpu[k];
		ret = pmuser_counters_open(&a, &p->c[k], why, whylen);
		if (ret) {
			p->n = k;	/* close the ones opened so far */
			perf_close(p);
			return ret;
		}
	}
	if (cycles_only)
		return 0;
	/*
	 * Each event's counter; one perf could not open in an optional set (the library keeps
	 * it, unsupported) is not supported, not a count of 0.
	 */
	for (i = 0, k = 1; i < s->nr_events; i++) {
		struct stat_event *e = &s->ev[i];

		e->perf_ctr = e->supported ? (int)k++ : -1;
		if (e->supported && p->n && !pmuser_counters_supported(p->c[0], (unsigned int)e->perf_ctr))
			e->supported = false;
	}
	return 0;
}

/* Counter index of event i in the open sets (0 is cycles), or -1 if it was not opened. */
static int perf_index(const struct stat_setup *s, size_t i)
{
	return s->ev[i].supported ? s->ev[i].perf_ctr : -1;
}

static void perf_period(struct perf_state *p, const struct stat_setup *s, struct stat_result *r,
			uint64_t t, uint64_t len)
{
	struct pmuser_count now[PMUSER_COUNTERS_MAX];
	unsigned int k, j, nc;

	for (k = 0; k < p->n; k++) {
		nc = pmuser_counters_nr(p->c[k]);
		if (pmuser_counters_read_full(p->c[k], now))
			continue;
		for (j = 0; j < nc; j++) {
			struct stat_period row = {
				.t_ns = t, .len_ns = len, .cpu = p->cpu[k], .set = -1, .ev = -1,
				.delta = now[j].value - p->prev[k][j].value,
				.running_ns = now[j].running - p->prev[k][j].running,
			};
			size_t i;

			p->prev[k][j] = now[j];
			if (j > 0) {
				for (i = 0; i < s->nr_events; i++)
					if (perf_index(s, i) == (int)j)
						break;
				/* A counter perf could not open (optional set): no event, no row. */
				if (i == s->nr_events)
					continue;
				row.ev = (int)i;
				row.set = (int)s->ev[i].set;
			}
			stat_periods_add(&r->periods, &row);
		}
	}
	r->total_periods++;
}

/*
 * Totals. Task-wide counters scale by perf's time_enabled / time_running. A per-CPU counter
 * of a task is "enabled" whenever the task runs, on any CPU, but runs only on its own, so
 * there the reference is the task's time on that CPU, its task-clock there.
 */
static void perf_totals(struct perf_state *p, struct stat_setup *s, struct stat_result *r)
{
	struct pmuser_count cnt[STAT_MAX_CPUS][PMUSER_COUNTERS_MAX];
	double ref[STAT_MAX_CPUS], enabled, running;
	unsigned int k, j, nc;
	size_t i;

	for (k = 0; k < p->n; k++) {
		nc = pmuser_counters_nr(p->c[k]);
		if (pmuser_counters_read_full(p->c[k], cnt[k]))
			memset(cnt[k], 0, sizeof(cnt[k]));
		ref[k] = perf_clock_ns(p, k);
		/* No counter runs longer than the task: where the two clocks differ, the longer. */
		for (j = 0; j < nc; j++)
			if ((double)cnt[k][j].running > ref[k])
				ref[k] = (double)cnt[k][j].running;
	}
	for (i = 0; i <= s->nr_events; i++) {
		struct stat_event *e = i < s->nr_events ? &s->ev[i] : &r->cycles;
		int idx = i < s->nr_events ? perf_index(s, i) : 0;
		bool missed = false;

		if (idx < 0)
			continue;
		e->raw = 0;
		e->scaled = 0;
		enabled = running = 0;
		for (k = 0; k < p->n; k++) {
			const struct pmuser_count *c = &cnt[k][idx];
			double sc;

			if (p->cpu[k] < 0) {
				sc = pmuser_count_scaled(c);
				enabled += (double)c->enabled;
			} else if (c->running) {
				sc = (double)c->value * ref[k] / (double)c->running;
				enabled += ref[k];
			} else {
				/* The task ran there, perf never had the event on a counter: no count. */
				missed |= ref[k] > 0;
				sc = ref[k] > 0 ? NAN : 0;
				enabled += ref[k];
			}
			running += (double)c->running;
			e->raw += c->value;
			e->scaled += isnan(sc) ? 0 : sc;
			e->cpu_raw[k] = c->value;
			e->cpu_scaled[k] = sc;
		}
		e->duty = enabled > 0 ? running / enabled : 0;
		/* A CPU without a count: the total is estimated over the whole run, as perf does. */
		if (missed && running > 0)
			e->scaled = (double)e->raw * enabled / running;
	}
}

/* Where perf counts: with --per-cpu one counter per CPU (the listed ones, else all), else -1. */
static void perf_cpus(struct perf_state *p, const struct stat_opts *o, const struct stat_sys *sys,
		      struct stat_result *r)
{
	unsigned int k;

	if (!o->per_cpu) {
		p->cpu[0] = -1;
		p->n = 1;
		return;
	}
	for (k = 0; !o->nr_cpus && k < sys->nr_cpu; k++)
		p->cpu[p->n++] = sys->cpu[k].cpu;
	for (k = 0; k < o->nr_cpus; k++)
		p->cpu[p->n++] = o->cpus[k];
	for (k = 0; k < p->n; k++)
		r->counted_cpus[r->nr_counted_cpus++] = p->cpu[k];
}

static int measure_perf(const struct stat_opts *o, struct stat_setup *s,
			const struct stat_sys *sys, struct stat_result *r, char *err,
			size_t errlen)
{
	struct perf_state *p = calloc(1, sizeof(*p));
	struct stat_child ch;
	char why[400] = "";
	uint64_t t0, last;
	unsigned int nr_cpu, k;
	int ret, done;

	if (!p)
		return stat_fail(-ENOMEM, err, errlen, "out of memory");
	for (k = 0; k < STAT_MAX_CPUS; k++)
		p->clock_fd[k] = -1;
	perf_cpus(p, o, sys, r);
	ret = stat_child_spawn(&ch, o->argv, o->cpus, o->nr_cpus);
	if (ret) {
		free(p);
		return stat_fail(ret, err, errlen, "fork: %s", strerror(-ret));
	}
	/* One set: one group if the PMU holds it at once, else each event on its own. */
	nr_cpu = p->n;
	p->grouped = s->nr_sets == 1 && !perf_open(p, s, ch.pid, false, true, why, sizeof(why));
	why[0] = '\0';
	p->n = nr_cpu;
	ret = p->grouped ? 0 : perf_open(p, s, ch.pid, false, false, why, sizeof(why));
	trim_reason(why);
	if (ret && o->backend == STAT_AUTO) {
		char why_cycles[400] = "";
		struct perf_state probe = { .cpu = { -1 }, .n = 1 };

		/* No PMU at all (the cycle counter fails too): wall time; else a real error. */
		if (perf_open(&probe, s, ch.pid, true, false, why_cycles, sizeof(why_cycles))) {
			stat_child_abort(&ch);
			free(p);
			snprintf(r->fallback, sizeof(r->fallback), "%s", why);
			return measure_clock(o, s, r, err, errlen);
		}
		perf_close(&probe);
	}
	if (ret) {
		stat_child_abort(&ch);
		free(p);
		return stat_fail(ret, err, errlen, "perf: cannot count the events: %s", why);
	}
	ret = o->per_cpu ? perf_clocks_open(p, ch.pid, why, sizeof(why)) : 0;
	if (ret) {
		stat_child_abort(&ch);
		perf_close(p);
		free(p);
		return stat_fail(ret, err, errlen,
				 "perf: --per-cpu needs the task's time on each CPU: %s", why);
	}
	r->backend = STAT_PERF;
	r->have_cycles = true;
	r->cycles.supported = true;
	snprintf(r->cycles.name, sizeof(r->cycles.name), "cycles");
	snprintf(r->timer, sizeof(r->timer), "%s", pmuser_counters_timer(p->c[0]));
	r->perf_grouped = p->grouped;
	snprintf(r->backend_desc, sizeof(r->backend_desc),
		 "perf: per task, the command and its children wherever they run, user mode%s; %s",
		 o->per_cpu ? ", one counter per CPU" : "",
		 p->grouped ? "the events as one group, read together" :
		 "perf multiplexes events that outnumber the counters");
	t0 = last = now_ns(CLOCK_MONOTONIC);
	ret = release(&ch, r, err, errlen);
	if (ret) {
		perf_close(p);
		perf_clocks_close(p);
		free(p);
		return ret;
	}
	do {
		uint64_t now;

		done = stat_child_wait(&ch, (uint64_t)o->interval_ms * 1000000);
		now = now_ns(CLOCK_MONOTONIC);
		perf_period(p, s, r, now - t0, now - last);
		last = now;
	} while (!done);
	finish(&ch, r, t0);
	perf_totals(p, s, r);
	perf_close(p);
	perf_clocks_close(p);
	free(p);
	return 0;
}

/* ---- module ------------------------------------------------------------------------------- */

struct module_state {
	int fd;
	int cpu;
	struct pmuser_cpu_info ci;
	uint32_t mode;				/* PMUSER_COUNT_* used for cycles */
	unsigned int rotation[STAT_MAX_SETS];	/* sets with something to count */
	unsigned int nr_rotation;
	unsigned int hw[STAT_MAX_EVENTS];	/* hardware counter of each event, current set */
	unsigned int slot[STAT_MAX_EVENTS];	/* its counter page slot */
	struct pmuser_page page;
	uint64_t last_cycles, last[STAT_MAX_EVENTS];
	uint64_t acc_cycles, acc[STAT_MAX_EVENTS];	/* this period */
	uint64_t set_cycles[STAT_MAX_SETS];
};

static uint32_t event_mode(uint32_t flags)
{
#if defined(PMUSER_FAST_V6)
	/* ARM1176 has no mode filter. */
	(void)flags;
	return PMUSER_COUNT_MASK;
#else
	return flags;
#endif
}

/*
 * Reads of the current set through the counter page (continuous 64-bit counts however perf
 * reloads the counters), added to the period's accumulators. A read the page cannot vouch
 * for is skipped: the next one takes in what it missed.
 */
static void module_read(struct module_state *m, const struct stat_setup *s, unsigned int set,
			bool baseline)
{
	unsigned int slots[STAT_MAX_EVENTS + 1], n = 0;
	uint64_t v[STAT_MAX_EVENTS + 1];
	size_t i;
	int cpu;

	slots[n++] = PMUSER_PAGE_CYCLE_SLOT;
	for (i = 0; i < s->nr_events; i++)
		if (s->ev[i].set == set && s->ev[i].supported)
			slots[n++] = m->slot[i];
	if (pmuser_page_read(&m->page, slots, n, v, &cpu))
		return;
	if (!baseline)
		m->acc_cycles += v[0] - m->last_cycles;
	m->last_cycles = v[0];
	for (i = 0, n = 1; i < s->nr_events; i++) {
		if (s->ev[i].set != set || !s->ev[i].supported)
			continue;
		if (!baseline)
			m->acc[i] += v[n] - m->last[i];
		m->last[i] = v[n++];
	}
}

/* Configures set, or when only >= 0 that one event of it alone (a diagnosis, never read). */
static int module_configure_events(struct module_state *m, const struct stat_setup *s,
				   unsigned int set, long only)
{
	struct pmuser_config cfg;
	size_t i;
	int ret;

	memset(&cfg, 0, sizeof(cfg));
	cfg.flags = PMUSER_CONFIG_CYCLES;
	cfg.cycle_flags = m->mode;
	cfg.cpus[m->cpu / 64] = 1ULL << (m->cpu % 64);
	for (i = 0; i < s->nr_events; i++) {
		if (s->ev[i].set != set || !s->ev[i].supported)
			continue;
		if (only >= 0 && i != (size_t)only)
			continue;
		cfg.events[cfg.nr_events].event = s->ev[i].spec.event;
		cfg.events[cfg.nr_events].flags = event_mode(s->ev[i].spec.flags);
		cfg.nr_events++;
	}
	ret = pmuser_device_configure(m->fd, &cfg);
	if (ret || only >= 0)
		return ret;
	for (i = 0, cfg.nr_events = 0; i < s->nr_events; i++)
		if (s->ev[i].set == set && s->ev[i].supported) {
			m->slot[i] = cfg.nr_events;
			m->hw[i] = cfg.events[cfg.nr_events++].hw_counter;
		}
	return 0;
}

static int module_configure(struct module_state *m, const struct stat_setup *s, unsigned int set)
{
	return module_configure_events(m, s, set, -1);
}

/*
 * An event perf places on the cycle counter only, which the module's own cycle count holds:
 * it cannot be counted beside it (the report's cycles line is that count). ARMv6/v7 perf's
 * 0xff is one; PMUv3's CPU_CYCLES takes an event counter when the cycle counter is taken.
 */
#define STAT_CYCLES_ONLY_EVENT	0xff

/*
 * Why set cannot be configured (ret): an event that cannot be placed even alone is named,
 * and when it is the cycle counter's event that is a usage problem (r->usage_error).
 */
static int module_set_fail(struct module_state *m, const struct stat_setup *s,
			   struct stat_result *r, unsigned int set, int ret, char *err,
			   size_t errlen)
{
	size_t i;

	for (i = 0; ret == -EBUSY && i < s->nr_events; i++) {
		const struct stat_event *e = &s->ev[i];

		if (e->set != set || !e->supported ||
		    module_configure_events(m, s, set, (long)i) != -EBUSY)
			continue;
		if (e->spec.event == STAT_CYCLES_ONLY_EVENT) {
			r->usage_error = true;
			return stat_fail(-EINVAL, err, errlen,
				    "module backend: event %s (0x%x) cannot be counted: perf places it on the cycle counter, which the module's own cycle count already holds (it is reported as cycles); leave %s out",
				    e->name, e->spec.event, e->name);
		}
		return stat_fail(ret, err, errlen,
			    "module backend: event set %u: event %s (0x%x) cannot be placed on CPU %d: %s (perf has no counter for it; another perf user?)",
			    set, e->name, e->spec.event, m->cpu, strerror(-ret));
	}
	return stat_fail(ret, err, errlen, "module backend: configuring event set %u on CPU %d: %s",
			 set, m->cpu, strerror(-ret));
}

/*
 * CONFIGURE starts the page's counts at 0: that is the new set's baseline, so whatever runs
 * between it and pmu-stat's next read (the command, if pmu-stat is preempted) is counted.
 */
static void module_zero(struct module_state *m)
{
	m->last_cycles = 0;
	memset(m->last, 0, sizeof(m->last));
}

/* Whether inline reads work here (ARM1176 under QEMU traps them). */
static bool module_probe(struct module_state *m, const struct stat_setup *s, unsigned int set)
{
	uint64_t v;
	size_t i;

	if (pmuser_counter_probe(PMUSER_HW_CYCLE, &v))
		return false;
	for (i = 0; i < s->nr_events; i++)
		if (s->ev[i].set == set && s->ev[i].supported && pmuser_counter_probe(m->hw[i], &v))
			return false;
	module_read(m, s, set, true);
	return true;
}

static int module_prepare(struct module_state *m, const struct stat_opts *o,
			  struct stat_setup *s, const struct stat_sys *sys, char *err,
			  size_t errlen)
{
	struct pmuser_info info;
	unsigned int set;
	size_t i;
	int ret;

	m->fd = -1;
	m->cpu = o->nr_cpus ? o->cpus[0] : sys->nr_cpu ? sys->cpu[0].cpu : 0;
	if (PMUSER_FAST_ARCH == PMUSER_ARCH_NONE)
		return stat_fail(-EOPNOTSUPP, err, errlen,
			    "module backend: no inline counter reads on this architecture");
	m->fd = pmuser_device_open();
	if (m->fd < 0) {
		ret = m->fd;
		m->fd = -1;
		return stat_fail(ret, err, errlen, "module backend: %s: %s%s", PMUSER_DEVICE,
			    strerror(-ret), ret == -ENOENT ? " (insmod pmuser.ko)" : "");
	}
	ret = pmuser_device_info(m->fd, &info);
	if (!ret && info.arch != PMUSER_FAST_ARCH)
		ret = -EOPNOTSUPP;
	if (!ret)
		ret = pmuser_device_cpu_info(m->fd, (unsigned int)m->cpu, &m->ci);
	if (!ret && !m->ci.online)
		ret = -ENODEV;
	if (!ret)
		ret = pmuser_page_map(m->fd, &m->page);
	if (ret)
		return stat_fail(ret, err, errlen, "module backend: CPU %d: %s", m->cpu, strerror(-ret));
	m->mode = event_mode(PMUSER_COUNT_USER);
	for (i = 0; i < s->nr_events; i++) {
		struct stat_event *e = &s->ev[i];

		if (pmuser_event_supported(&m->ci, e->spec.event))
			continue;
		if (!s->optional)
			return stat_fail(-EOPNOTSUPP, err, errlen,
				    "event %s (0x%x) is not implemented by CPU %d (PMCEID); see pmu-info",
				    e->name, e->spec.event, m->cpu);
		e->supported = false;
	}
	for (set = 0; set < s->nr_sets; set++) {
		unsigned int n = 0;

		for (i = 0; i < s->nr_events; i++)
			if (s->ev[i].set == set && s->ev[i].supported)
				n++;
		if (n > m->ci.nr_counters)
			return stat_fail(-E2BIG, err, errlen,
				    "event set %u has %u events but CPU %d has %u event counters: the module backend counts one set at a time, so split it with more -e options",
				    set, n, m->cpu, m->ci.nr_counters);
		if (n)
			m->rotation[m->nr_rotation++] = set;
	}
	/* Nothing countable: the cycle counter alone, in a set of its own. */
	if (!m->nr_rotation)
		m->rotation[m->nr_rotation++] = 0;
	/* The reader has to run where it counts; the child inherits the CPU. */
	ret = pmuser_thread_pin(m->cpu);
	if (ret)
		return stat_fail(ret, err, errlen, "module backend: pinning to CPU %d: %s", m->cpu,
			    strerror(-ret));
	return 0;
}

static void module_period_end(struct module_state *m, struct stat_setup *s,
			      struct stat_result *r, unsigned int set, uint64_t t, uint64_t len)
{
	struct stat_period row = { .t_ns = t, .len_ns = len, .cpu = m->cpu, .set = (int)set,
				   .ev = -1, .delta = m->acc_cycles, .running_ns = len };
	size_t i;

	stat_periods_add(&r->periods, &row);
	r->cycles.raw += m->acc_cycles;
	m->set_cycles[set] += m->acc_cycles;
	for (i = 0; i < s->nr_events; i++) {
		if (s->ev[i].set != set || !s->ev[i].supported)
			continue;
		row.ev = (int)i;
		row.delta = m->acc[i];
		stat_periods_add(&r->periods, &row);
		s->ev[i].raw += m->acc[i];
		s->ev[i].periods++;
		m->acc[i] = 0;
	}
	m->acc_cycles = 0;
	r->set_periods[set]++;
	r->total_periods++;
}

/*
 * The module backend's start, while the command waits to be released: every set of the
 * rotation configured once (the first last, as it counts first), so a set perf cannot place
 * is found before the command runs; reads granted and proven on the command's CPU; the
 * result described.
 */
static int module_start(struct module_state *m, const struct stat_opts *o, struct stat_setup *s,
			struct stat_result *r, char *err, size_t errlen)
{
	unsigned int set = m->rotation[0], k;
	int ret;

	for (k = m->nr_rotation; k-- > 0;) {
		ret = module_configure(m, s, m->rotation[k]);
		if (ret)
			return module_set_fail(m, s, r, m->rotation[k], ret, err, errlen);
	}
	ret = pmuser_device_grant(m->fd, 0);
	if (ret || !module_probe(m, s, set))
		return stat_fail(ret ? ret : -EPERM, err, errlen,
				 "module backend: inline counter reads do not work on CPU %d (%s)",
				 m->cpu, ret ? strerror(-ret) : "the read instruction traps");
	r->backend = STAT_MODULE;
	r->module_cpu = m->cpu;
	r->have_cycles = true;
	r->cycles.supported = true;
	snprintf(r->cycles.name, sizeof(r->cycles.name), "cycles");
	snprintf(r->timer, sizeof(r->timer), "inline cycle counter (%u-bit)", m->ci.cycle_bits);
	snprintf(r->backend_desc, sizeof(r->backend_desc),
		 "module: counts everything on CPU %d, %s mode (the command is pinned there); %u event set%s rotated every %u ms",
		 m->cpu, m->mode == PMUSER_COUNT_USER ? "user" : "user+kernel", m->nr_rotation,
		 m->nr_rotation == 1 ? "" : "s", o->interval_ms);
	module_read(m, s, set, true);
	return 0;
}

/*
 * A set that configured before the run fails now (another perf user took counters): the
 * command runs on, the set that counted goes on counting alone, and r->incomplete says so.
 * false when not even that set is back: nothing is counted from then on.
 */
static bool module_stuck(struct module_state *m, const struct stat_setup *s,
			 struct stat_result *r, unsigned int set, unsigned int failed, int ret,
			 uint64_t t)
{
	bool back = !module_configure(m, s, set);
	char then[64];
	size_t n;

	if (back)
		snprintf(then, sizeof(then), "set %u counted alone from then on", set);
	else
		snprintf(then, sizeof(then), "nothing was counted from then on");
	snprintf(r->incomplete, sizeof(r->incomplete),
		 "event set %u could not be configured %.3f s into the run (%s): %s",
		 failed, (double)t / 1e9, strerror(-ret), then);
	n = strlen(r->backend_desc);
	snprintf(r->backend_desc + n, sizeof(r->backend_desc) - n, "; INCOMPLETE: %s",
		 r->incomplete);
	if (back)
		module_zero(m);
	return back;
}

/*
 * Periods until the command ends, each set counting for one in turn. The command runs
 * released and is never cut short: a set that cannot be configured any more stops the
 * rotation (module_stuck()).
 */
static void module_periods(struct module_state *m, const struct stat_opts *o,
			   struct stat_setup *s, struct stat_result *r, struct stat_child *ch,
			   uint64_t t0)
{
	uint64_t period_ns = (uint64_t)o->interval_ms * 1000000, start = t0, now;
	unsigned int turn = 0, set = m->rotation[0], next;
	bool rotate = m->nr_rotation > 1;
	int ret, done;

	for (;;) {
		uint64_t left, wait;

		now = now_ns(CLOCK_MONOTONIC);
		left = start + period_ns > now ? start + period_ns - now : 0;
		wait = left < STAT_EXTEND_NS ? left : STAT_EXTEND_NS;
		done = stat_child_wait(ch, wait);
		module_read(m, s, set, false);
		now = now_ns(CLOCK_MONOTONIC);
		if (!done && now < start + period_ns)
			continue;
		module_period_end(m, s, r, set, now - t0, now - start);
		if (done)
			return;
		/* The next set counts from inside CONFIGURE on: its period starts there. */
		start = now_ns(CLOCK_MONOTONIC);
		if (!rotate)
			continue;
		next = m->rotation[(turn + 1) % m->nr_rotation];
		ret = module_configure(m, s, next);
		if (!ret) {
			turn = (turn + 1) % m->nr_rotation;
			set = next;
			module_zero(m);
			continue;
		}
		rotate = false;
		if (!module_stuck(m, s, r, set, next, ret, now_ns(CLOCK_MONOTONIC) - t0)) {
			while (!stat_child_wait(ch, 1000000000ULL))
				;
			return;
		}
		start = now_ns(CLOCK_MONOTONIC);
	}
}

/*
 * rpistat's scaling: every set counts the cycle counter too, so each set's share of all
 * cycles is its duty cycle, and raw / duty estimates the full-time count.
 */
static void module_scale(const struct module_state *m, struct stat_setup *s,
			 struct stat_result *r)
{
	unsigned int k, set;
	size_t i;

	r->cycles.scaled = (double)r->cycles.raw;
	r->cycles.duty = 1.0;
	for (k = 0; k < m->nr_rotation; k++) {
		set = m->rotation[k];
		r->set_duty[set] = r->cycles.raw ? (double)m->set_cycles[set] / (double)r->cycles.raw :
				   (double)r->set_periods[set] / (double)r->total_periods;
	}
	for (i = 0; i < s->nr_events; i++) {
		struct stat_event *e = &s->ev[i];

		if (!e->supported)
			continue;
		e->duty = r->set_duty[e->set];
		e->scaled = e->duty > 0 ? (double)e->raw / e->duty : 0;
	}
}

static int measure_module(const struct stat_opts *o, struct stat_setup *s,
			  const struct stat_sys *sys, struct stat_result *r, char *err,
			  size_t errlen)
{
	struct module_state *m = calloc(1, sizeof(*m));
	struct stat_child ch;
	int child_cpu[1];
	uint64_t t0;
	int ret;

	if (!m)
		return stat_fail(-ENOMEM, err, errlen, "out of memory");
	ret = module_prepare(m, o, s, sys, err, errlen);
	if (ret)
		goto out;
	child_cpu[0] = m->cpu;
	ret = stat_child_spawn(&ch, o->argv, child_cpu, 1);
	if (ret) {
		stat_fail(ret, err, errlen, "fork: %s", strerror(-ret));
		goto out;
	}
	ret = module_start(m, o, s, r, err, errlen);
	if (ret) {
		stat_child_abort(&ch);
		goto out;
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	ret = release(&ch, r, err, errlen);
	if (ret)
		goto out;
	module_periods(m, o, s, r, &ch, t0);
	finish(&ch, r, t0);
	module_scale(m, s, r);
out:
	pmuser_page_unmap(&m->page);
	if (m->fd >= 0)
		close(m->fd);
	free(m);
	return ret;
}

int stat_measure(const struct stat_opts *o, struct stat_setup *s, const struct stat_sys *sys,
		 struct stat_result *r, char *err, size_t errlen)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->interval_ms = o->interval_ms;
	r->periods.keep = o->periods_file || o->plot_file;
	r->module_cpu = -1;
	if (err && errlen)
		err[0] = '\0';
	if (o->backend == STAT_CLOCK)
		return measure_clock(o, s, r, err, errlen);
	if (o->backend == STAT_MODULE)
		return measure_module(o, s, sys, r, err, errlen);
	ret = check_supported(s, sys, err, errlen);
	if (ret)
		return ret;
	return measure_perf(o, s, sys, r, err, errlen);
}
