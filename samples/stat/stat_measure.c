// SPDX-License-Identifier: MIT
/*
 * pmu-stat's backends. Every one prepares everything first, then spawns the command held
 * before exec, opens its counters, and only then lets the command run.
 *
 *  perf    per task (pid = the child), inherited by its children, enabled on exec; events
 *          that outnumber the counters are multiplexed by perf and scaled by its
 *          time_enabled / time_running. Or, as perf stat -a/-C/-p/-t, every task on CPUs or
 *          given threads, enabled from just before the command starts until it exits.
 *  module  the seed's rpistat design on one CPU: the command is pinned to it, pmu-stat pins
 *          itself there too and rotates the event sets every period through the library's
 *          module counter set (pmuser_counters_reconfigure()), reading inline into the
 *          counter page's 64-bit counts. It counts everything that runs on that CPU in the
 *          events' modes (pmu-stat's own few reads included).
 *  clock   no PMU: wall time only.
 */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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
 * Marks events the CPU does not implement (its PMCEID, read through the device): not
 * supported where optional (a preset's, -d's), an error for events asked for with -e.
 */

static int check_supported(struct stat_setup *s, const struct stat_sys *sys, char *err,
			   size_t errlen)
{
	size_t i;

	if (!sys->have_pmceid)
		return 0;
	for (i = 0; i < s->nr_events; i++) {
		struct stat_event *e = &s->ev[i];

		if (!e->supported || pmuser_event_supported(&sys->cpu_info, e->spec.event))
			continue;
		if (!e->optional)
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
	struct stat_interval *iv = NULL;
	unsigned int printed = 0;
	struct stat_child ch;
	uint64_t t0;
	size_t i;
	int ret, done;

	for (i = 0; i < s->nr_events; i++)
		s->ev[i].supported = false;
	r->backend = STAT_CLOCK;
	snprintf(r->backend_desc, sizeof(r->backend_desc),
		 "clock: hardware counters are unavailable, wall time only");
	snprintf(r->timer, sizeof(r->timer), "CLOCK_MONOTONIC");
	if (o->print_ms) {
		iv = calloc(1, sizeof(*iv));
		if (!iv)
			return stat_fail(-ENOMEM, err, errlen, "out of memory");
	}
	ret = stat_child_spawn(&ch, o->argv, o->pin_cpus, o->nr_pin_cpus);
	if (ret) {
		free(iv);
		return stat_fail(ret, err, errlen, "fork: %s", strerror(-ret));
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	ret = release(&ch, r, err, errlen);
	if (ret) {
		free(iv);
		return ret;
	}
	/* -I: every interval's lines say that nothing is counted, as perf's would. */
	do {
		done = stat_child_wait(&ch, (uint64_t)o->interval_ms * 1000000);
		r->total_periods++;
		if (iv && o->print_file) {
			iv->t_ns = now_ns(CLOCK_MONOTONIC) - t0;
			stat_report_interval(o->print_file, o, s, r, iv, &printed);
		}
	} while (!done);
	finish(&ch, r, t0);
	free(iv);
	return 0;
}

/* ---- perf --------------------------------------------------------------------------------- */

/*
 * Counter sets, one per target: the command wherever it runs; the command on each CPU
 * (--per-cpu); every task on each CPU (-a, -C); or each thread of -p/-t.
 */
struct perf_state {
	struct pmuser_counters *c[STAT_MAX_TARGETS];
	int cpu[STAT_MAX_TARGETS];		/* -1: wherever the task runs */
	pid_t pid[STAT_MAX_TARGETS];		/* 0: the command; -1: every task on the CPU */
	unsigned int n;
	/*
	 * Counting what runs beside the command (-a, -C, -p, -t): opened disabled, enabled
	 * just before the command is let go and disabled once it has exited, as perf stat
	 * does; the command's own counters are enabled by its exec instead.
	 */
	bool attached;
	bool task_cpus;				/* --per-cpu */
	bool grouped;				/* one group per target: one read per period */
	struct pmuser_count prev[STAT_MAX_TARGETS][PMUSER_COUNTERS_MAX];
	/* --per-cpu: the task's time on each CPU (task-clock, never multiplexed); else -1 */
	int clock_fd[STAT_MAX_TARGETS];
	struct stat_interval iv;		/* -I: the interval just read */
	unsigned int printed;			/* -I: intervals printed */
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

	for (k = 0; k < STAT_MAX_TARGETS; k++) {
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

/* Whether an event is optional: perf may then leave events it cannot open unsupported. */
static bool some_optional(const struct stat_setup *s)
{
	size_t i;

	for (i = 0; i < s->nr_events; i++)
		if (s->ev[i].optional)
			return true;
	return false;
}

/*
 * Opens the events for every target (the command is child): 0, or -errno with why. As one
 * group per target (cycles leading) when asked: perf then schedules and reads them together,
 * all of a period's counts from one moment, but refuses a group the PMU cannot hold at once.
 * Otherwise one group per event, which perf multiplexes one by one.
 */
static int perf_open(struct perf_state *p, struct stat_setup *s, pid_t child,
		     bool cycles_only, bool group, char *why, size_t whylen)
{
	struct pmuser_counters_attr a;
	size_t i;
	unsigned int k;
	int ret;

	pmuser_counters_attr_init(&a);
	a.backend = PMUSER_BACKEND_PERF_READ;
	a.flags = PMUSER_COUNTERS_CYCLES;
	a.cycle_flags = s->cycle_mode;
	/* A group member perf could not place would pass for an unsupported event. */
	if (!group)
		a.flags |= PMUSER_COUNTERS_NO_GROUP;
	if (some_optional(s) && !group)
		a.flags |= PMUSER_COUNTERS_OPTIONAL;
	for (i = 0; !cycles_only && i < s->nr_events; i++)
		if (s->ev[i].supported)
			a.events[a.nr_events++] = s->ev[i].spec;
	for (k = 0; k < p->n; k++) {
		a.flags &= ~(uint32_t)(PMUSER_COUNTERS_INHERIT | PMUSER_COUNTERS_ENABLE_ON_EXEC |
				       PMUSER_COUNTERS_DISABLED);
		/* Tasks' children are counted too; a CPU's counters count every task anyway. */
		if (p->pid[k] >= 0)
			a.flags |= PMUSER_COUNTERS_INHERIT;
		a.flags |= p->attached ? PMUSER_COUNTERS_DISABLED : PMUSER_COUNTERS_ENABLE_ON_EXEC;
		a.pid = p->pid[k] ? p->pid[k] : child;
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
	 * it, unsupported) is not supported, not a count of 0, where it is optional itself, and
	 * refuses the run where it was asked for with -e, as without optional events.
	 */
	for (i = 0, k = 1; i < s->nr_events; i++) {
		struct stat_event *e = &s->ev[i];

		e->perf_ctr = e->supported ? (int)k++ : -1;
		if (!e->supported || !p->n || pmuser_counters_supported(p->c[0], (unsigned int)e->perf_ctr))
			continue;
		if (!e->optional) {
			perf_close(p);
			snprintf(why, whylen, "%s: perf cannot count it here", e->name);
			return -EOPNOTSUPP;
		}
		e->supported = false;
	}
	return 0;
}

/* Counter index of event i in the open sets (0 is cycles), or -1 if it was not opened. */
static int perf_index(const struct stat_setup *s, size_t i)
{
	return s->ev[i].supported ? s->ev[i].perf_ctr : -1;
}

/* Event index (s->nr_events: the cycle counter) of counter j, or -1 for none. */
static long perf_event_of(const struct stat_setup *s, unsigned int j)
{
	size_t i;

	if (!j)
		return (long)s->nr_events;
	for (i = 0; i < s->nr_events; i++)
		if (perf_index(s, i) == (int)j)
			return (long)i;
	return -1;
}

/* One period's deltas: into the period rows and, for -I, the interval. */
static void perf_period(struct perf_state *p, const struct stat_setup *s, struct stat_result *r,
			uint64_t t, uint64_t len)
{
	struct pmuser_count now[PMUSER_COUNTERS_MAX];
	unsigned int k, j, nc;

	memset(p->iv.d, 0, sizeof(p->iv.d));
	p->iv.t_ns = t;
	p->iv.nr_rows = p->n;
	p->iv.counted = true;
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
			long i = perf_event_of(s, j);

			/* A counter perf could not open (optional set): no event, no row. */
			if (i < 0) {
				p->prev[k][j] = now[j];
				continue;
			}
			p->iv.d[i][k] = (struct pmuser_count){
				.value = row.delta, .running = row.running_ns,
				.enabled = now[j].enabled - p->prev[k][j].enabled,
			};
			p->prev[k][j] = now[j];
			if (j > 0) {
				row.ev = (int)i;
				row.set = (int)s->ev[i].set;
			}
			stat_periods_add(&r->periods, &row);
		}
	}
	r->total_periods++;
}

/*
 * Totals. Counts over several counter sets add up, and perf scales the sum by the sums of
 * its time_enabled and time_running. A per-CPU counter of the command (--per-cpu) is
 * "enabled" whenever the task runs, on any CPU, but runs only on its own, so there the
 * reference is the task's time on that CPU, its task-clock there.
 */
static void perf_totals(struct perf_state *p, struct stat_setup *s, struct stat_result *r)
{
	struct pmuser_count (*cnt)[PMUSER_COUNTERS_MAX] = calloc(STAT_MAX_TARGETS, sizeof(*cnt));
	double ref[STAT_MAX_TARGETS], enabled, running, scaled;
	unsigned int k, j, nc;
	size_t i;

	if (!cnt)
		return;
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
		scaled = enabled = running = 0;
		for (k = 0; k < p->n; k++) {
			const struct pmuser_count *c = &cnt[k][idx];
			double sc, en = (double)c->enabled;

			if (!p->task_cpus) {
				/* A row that never ran has no count: perf's <not counted>. */
				sc = c->running ? pmuser_count_scaled(c) : NAN;
			} else if (c->running) {
				en = ref[k];
				sc = (double)c->value * ref[k] / (double)c->running;
			} else {
				/* The task ran there, perf never had the event on a counter: no count. */
				en = ref[k];
				missed |= ref[k] > 0;
				sc = ref[k] > 0 ? NAN : 0;
			}
			enabled += en;
			running += (double)c->running;
			scaled += isnan(sc) ? 0 : sc;
			e->raw += c->value;
			e->cpu_raw[k] = c->value;
			e->cpu_scaled[k] = sc;
			e->cpu_enabled[k] = en;
			e->cpu_running[k] = (double)c->running;
		}
		e->enabled_ns = enabled;
		e->running_ns = running;
		e->duty = enabled > 0 ? running / enabled : 0;
		if (!p->task_cpus)
			e->scaled = running > 0 ? (double)e->raw * enabled / running : 0;
		/* A CPU without a count: the total is estimated over the whole run, as perf does. */
		else if (missed && running > 0)
			e->scaled = (double)e->raw * enabled / running;
		else
			e->scaled = scaled;
	}
	free(cnt);
}

/*
 * The targets: -a/-C every task on each CPU; -p each thread of the processes (as they are
 * now: threads started later are counted by inheritance from the thread that starts them),
 * -t the threads; --per-cpu the command on each CPU; else the command. The rows of the
 * breakdown are the CPUs of --per-cpu and -A, the threads of --per-thread. 0, or -errno
 * with why.
 */
static int perf_targets(struct perf_state *p, const struct stat_opts *o,
			const struct stat_sys *sys, struct stat_result *r, char *err,
			size_t errlen)
{
	pid_t tids[STAT_MAX_TARGETS];
	unsigned int k, t;
	int n;

	p->n = 0;
	if (stat_system_wide(o)) {
		p->attached = true;
		for (k = 0; k < o->nr_cpus; k++) {
			p->pid[p->n] = -1;
			p->cpu[p->n++] = o->cpus[k];
		}
	} else if (o->nr_pids) {
		p->attached = true;
		for (k = 0; k < o->nr_pids; k++) {
			n = o->pids_are_tids ? (tids[0] = o->pids[k], 1) :
			    stat_threads(o->pids[k], tids, STAT_MAX_TARGETS);
			if (n == -E2BIG)
				return stat_fail(n, err, errlen, "-p %d: more than %d threads",
						 (int)o->pids[k], STAT_MAX_TARGETS);
			if (n < 0 || (o->pids_are_tids && kill(o->pids[k], 0) && errno == ESRCH)) {
				r->usage_error = true;
				return stat_fail(-ESRCH, err, errlen, "%s %d: no such %s",
						 o->pids_are_tids ? "-t" : "-p", (int)o->pids[k],
						 o->pids_are_tids ? "thread" : "process");
			}
			for (t = 0; t < (unsigned int)n; t++) {
				if (p->n == STAT_MAX_TARGETS)
					return stat_fail(-E2BIG, err, errlen,
							 "-p/-t: more than %d threads",
							 STAT_MAX_TARGETS);
				p->pid[p->n] = tids[t];
				p->cpu[p->n++] = -1;
			}
		}
	} else if (o->per_cpu) {
		p->task_cpus = true;
		for (k = 0; !o->nr_pin_cpus && k < sys->nr_cpu; k++) {
			p->pid[p->n] = 0;
			p->cpu[p->n++] = sys->cpu[k].cpu;
		}
		for (k = 0; k < o->nr_pin_cpus; k++) {
			p->pid[p->n] = 0;
			p->cpu[p->n++] = o->pin_cpus[k];
		}
	} else {
		p->pid[0] = 0;
		p->cpu[p->n++] = -1;
	}
	if (o->per_cpu || o->no_aggr)
		for (k = 0; k < p->n; k++)
			r->counted_cpus[r->nr_counted_cpus++] = p->cpu[k];
	if (o->per_thread) {
		r->rows_are_threads = true;
		for (k = 0; k < p->n; k++) {
			r->counted_cpus[r->nr_counted_cpus] = p->pid[k];
			stat_thread_comm(p->pid[k], r->thread_comm[r->nr_counted_cpus++],
					 sizeof(r->thread_comm[0]));
		}
	}
	return 0;
}

/* The CPUs of -a/-C as perf lists them: "0-3", "1,3". */
static void cpu_list(char *buf, size_t len, const int *cpus, unsigned int n)
{
	size_t used = 0;
	unsigned int k = 0, end;

	buf[0] = '\0';
	while (k < n && used < len) {
		for (end = k; end + 1 < n && cpus[end + 1] == cpus[end] + 1; end++)
			;
		if (end > k)
			used += (size_t)snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "",
						 cpus[k], cpus[end]);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "",
						 cpus[k]);
		k = end + 1;
	}
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int level = INT_MAX;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = INT_MAX;
		fclose(f);
	}
	return level;
}

/* What is counted, for the report. */
static void perf_describe(const struct perf_state *p, const struct stat_opts *o,
			  const struct stat_setup *s, struct stat_result *r)
{
	char what[200], cpus[120];

	if (stat_system_wide(o)) {
		cpu_list(cpus, sizeof(cpus), o->cpus, o->nr_cpus);
		snprintf(what, sizeof(what), "system-wide, every task on CPU%s %s%s while the command runs",
			 o->nr_cpus > 1 ? "s" : "", cpus, o->no_aggr ? " (a row per CPU)" : "");
	} else if (o->nr_pids) {
		snprintf(what, sizeof(what), "%u thread%s of %s %d%s while the command runs%s",
			 p->n, p->n == 1 ? "" : "s", o->pids_are_tids ? "thread" : "process",
			 (int)o->pids[0], o->nr_pids > 1 ? " and more" : "",
			 o->per_thread ? " (a row per thread)" : "");
	} else {
		snprintf(what, sizeof(what), "per task, the command and its children wherever they run%s",
			 o->per_cpu ? ", one counter per CPU" : "");
	}
	snprintf(r->backend_desc, sizeof(r->backend_desc), "perf: %s; cycles %s mode; %s", what,
		 s->cycle_mode == PMUSER_COUNT_MASK ? "user+kernel" :
		 s->cycle_mode == PMUSER_COUNT_KERNEL ? "kernel" : "user",
		 p->grouped ? "the events as one group, read together" :
		 "perf multiplexes events that outnumber the counters");
}

/* Why perf refused the counters, with what perf asks for where that is the reason. */
static int perf_refused(int ret, const struct stat_opts *o, const char *why, char *err,
			size_t errlen)
{
	bool denied = ret == -EACCES || ret == -EPERM;

	if (denied && stat_system_wide(o))
		return stat_fail(ret, err, errlen,
				 "perf: -a/-C count every task on the CPUs, which perf allows only at kernel.perf_event_paranoid <= 0 (it is %d here) or with CAP_PERFMON or CAP_SYS_ADMIN: %s",
				 paranoid_level(), why);
	if (denied && o->nr_pids)
		return stat_fail(ret, err, errlen,
				 "perf: %s: counting another user's threads needs ptrace rights over them (or CAP_PERFMON): %s",
				 o->pids_are_tids ? "-t" : "-p", why);
	return stat_fail(ret, err, errlen, "perf: cannot count the events: %s", why);
}

/*
 * Waits for the command until deadline: 1 when it has exited, 0 at the deadline (now).
 * The counters of -a/-C/-p/-t stop as it exits, before the last read.
 */
static int perf_wait(struct perf_state *p, struct stat_child *ch, uint64_t deadline)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	unsigned int k;
	int done = stat_child_wait(ch, deadline > now ? deadline - now : 0);

	for (k = 0; done && p->attached && k < p->n; k++)
		pmuser_counters_disable(p->c[k]);
	return done;
}

/*
 * The counters open, the command held: lets it run, reads every period until it exits
 * (periods end on the period's grid, so -I's lines come every interval, not drifting), and
 * takes the totals. 0, or the exec failure's -errno.
 */
static int perf_run(struct perf_state *p, const struct stat_opts *o, struct stat_setup *s,
		    struct stat_result *r, struct stat_child *ch, char *err, size_t errlen)
{
	uint64_t t0, last, next, now, period = (uint64_t)o->interval_ms * 1000000;
	unsigned int k;
	int ret, done;

	/* As perf stat: the counters of what runs beside the command start just before it. */
	for (k = 0; p->attached && k < p->n; k++)
		pmuser_counters_enable(p->c[k]);
	t0 = last = now_ns(CLOCK_MONOTONIC);
	ret = release(ch, r, err, errlen);
	if (ret)
		return ret;
	next = t0 + period;
	do {
		done = perf_wait(p, ch, next);
		now = now_ns(CLOCK_MONOTONIC);
		perf_period(p, s, r, now - t0, now - last);
		if (o->print_ms && o->print_file &&
		    stat_report_interval(o->print_file, o, s, r, &p->iv, &p->printed) &&
		    !r->incomplete[0])
			snprintf(r->incomplete, sizeof(r->incomplete),
				 "-I: writing an interval's lines failed");
		last = now;
		while (next <= now)
			next += period;
	} while (!done);
	finish(ch, r, t0);
	perf_totals(p, s, r);
	return 0;
}

static int measure_perf(const struct stat_opts *o, struct stat_setup *s,
			const struct stat_sys *sys, struct stat_result *r, char *err,
			size_t errlen)
{
	struct perf_state *p = calloc(1, sizeof(*p));
	struct stat_child ch;
	char why[400] = "";
	unsigned int nr, k;
	int ret;

	if (!p)
		return stat_fail(-ENOMEM, err, errlen, "out of memory");
	for (k = 0; k < STAT_MAX_TARGETS; k++)
		p->clock_fd[k] = -1;
	ret = perf_targets(p, o, sys, r, err, errlen);
	if (ret) {
		free(p);
		return ret;
	}
	ret = stat_child_spawn(&ch, o->argv, o->pin_cpus, o->nr_pin_cpus);
	if (ret) {
		free(p);
		return stat_fail(ret, err, errlen, "fork: %s", strerror(-ret));
	}
	/* One set: one group if the PMU holds it at once, else each event on its own. */
	nr = p->n;
	p->grouped = s->nr_sets == 1 && !perf_open(p, s, ch.pid, false, true, why, sizeof(why));
	why[0] = '\0';
	p->n = nr;
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
		return perf_refused(ret, o, why, err, errlen);
	}
	ret = p->task_cpus ? perf_clocks_open(p, ch.pid, why, sizeof(why)) : 0;
	if (ret) {
		stat_child_abort(&ch);
		perf_close(p);
		free(p);
		return stat_fail(ret, err, errlen,
				 "perf: --per-cpu needs the task's time on each CPU: %s", why);
	}
	r->backend = STAT_PERF_READ;
	r->have_cycles = true;
	r->cycles.supported = true;
	snprintf(r->timer, sizeof(r->timer), "%s", pmuser_counters_timer(p->c[0]));
	r->perf_grouped = p->grouped;
	perf_describe(p, o, s, r);
	ret = perf_run(p, o, s, r, &ch, err, errlen);
	perf_close(p);
	perf_clocks_close(p);
	free(p);
	return ret;
}

/* ---- module ------------------------------------------------------------------------------- */

struct module_state {
	int cpu;
	struct pmuser_cpu_info ci;
	uint32_t mode;				/* PMUSER_COUNT_* used for cycles */
	unsigned int rotation[STAT_MAX_SETS];	/* sets with something to count */
	unsigned int nr_rotation;
	/*
	 * The library's module counter set: the cycle counter, then the current set's events
	 * (idx[i]: event i's counter in it), replaced at every turn of the rotation.
	 */
	struct pmuser_counters *c;
	unsigned int idx[STAT_MAX_EVENTS];
	char why[320];				/* the library's reason for the last failure */
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
 * Reads of the current set (the counter page's continuous 64-bit counts however perf reloads
 * the counters), added to the period's accumulators. A read the page cannot vouch for is
 * skipped: the next one takes in what it missed.
 */
static void module_read(struct module_state *m, const struct stat_setup *s, unsigned int set,
			bool baseline)
{
	uint64_t v[PMUSER_COUNTERS_MAX];
	size_t i;

	if (pmuser_counters_read(m->c, v))
		return;
	if (!baseline)
		m->acc_cycles += v[0] - m->last_cycles;
	m->last_cycles = v[0];
	for (i = 0; i < s->nr_events; i++) {
		if (s->ev[i].set != set || !s->ev[i].supported)
			continue;
		if (!baseline)
			m->acc[i] += v[m->idx[i]] - m->last[i];
		m->last[i] = v[m->idx[i]];
	}
}

/*
 * Holds set, or when only >= 0 that one event of it alone (a diagnosis, never read), in the
 * library's counter set: its open the first time (which grants this thread and proves the
 * reads), a reconfiguration after.
 */
static int module_configure_events(struct module_state *m, const struct stat_setup *s,
				   unsigned int set, long only)
{
	struct pmuser_evspec_entry ev[STAT_MAX_EVENTS];
	struct pmuser_counters_attr a;
	unsigned int n = 0;
	size_t i;
	int ret;

	for (i = 0; i < s->nr_events; i++) {
		if (s->ev[i].set != set || !s->ev[i].supported)
			continue;
		if (only >= 0 && i != (size_t)only)
			continue;
		ev[n] = s->ev[i].spec;
		ev[n].flags = event_mode(ev[n].flags);
		m->idx[i] = ++n;
	}
	if (m->c)
		return pmuser_counters_reconfigure(m->c, ev, n, m->why, sizeof(m->why));
	pmuser_counters_attr_init(&a);
	a.backend = PMUSER_BACKEND_MODULE;
	a.flags = PMUSER_COUNTERS_CYCLES;
	a.cycle_flags = m->mode;
	a.cpu = m->cpu;
	a.nr_events = n;
	memcpy(a.events, ev, n * sizeof(ev[0]));
	ret = pmuser_counters_open(&a, &m->c, m->why, sizeof(m->why));
	if (ret)
		m->c = NULL;
	return ret;
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
 * Why set cannot be held (ret): reads that do not work here, or an event that cannot be
 * placed even alone, are named, and when it is the cycle counter's event that is a usage
 * problem (r->usage_error).
 */
static int module_set_fail(struct module_state *m, const struct stat_setup *s,
			   struct stat_result *r, unsigned int set, int ret, char *err,
			   size_t errlen)
{
	char why[sizeof(m->why)];
	size_t i;

	snprintf(why, sizeof(why), "%s", m->why[0] ? m->why : strerror(-ret));
	if (ret == -EPERM)
		return stat_fail(ret, err, errlen,
				 "module backend: inline counter reads do not work on CPU %d (%s)",
				 m->cpu, why);
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
	return stat_fail(ret, err, errlen, "module backend: event set %u on CPU %d: %s", set,
			 m->cpu, why);
}

/*
 * A set's counts start at 0 when it is held: that is its baseline, so whatever runs between
 * the reconfiguration and pmu-stat's next read (the command, if pmu-stat is preempted) is
 * counted.
 */
static void module_zero(struct module_state *m)
{
	m->last_cycles = 0;
	memset(m->last, 0, sizeof(m->last));
}

/*
 * What can be known before the command exists: the CPU's counters and events (CPU_INFO, a
 * query; the counters are held by the library's counter set at the start), the rotation,
 * and this thread pinned where it counts, which the command inherits.
 */
static int module_prepare(struct module_state *m, const struct stat_opts *o,
			  struct stat_setup *s, const struct stat_sys *sys, char *err,
			  size_t errlen)
{
	struct pmuser_info info;
	unsigned int set;
	size_t i;
	int fd, ret;

	m->cpu = o->nr_pin_cpus ? o->pin_cpus[0] : sys->nr_cpu ? sys->cpu[0].cpu : 0;
	if (PMUSER_FAST_ARCH == PMUSER_ARCH_NONE)
		return stat_fail(-EOPNOTSUPP, err, errlen,
			    "module backend: no inline counter reads on this architecture");
	fd = pmuser_device_open();
	if (fd < 0)
		return stat_fail(fd, err, errlen, "module backend: %s: %s%s", PMUSER_DEVICE,
			    strerror(-fd), fd == -ENOENT ? " (insmod pmuser.ko)" : "");
	ret = pmuser_device_info(fd, &info);
	if (!ret && info.arch != PMUSER_FAST_ARCH)
		ret = -EOPNOTSUPP;
	if (!ret)
		ret = pmuser_device_cpu_info(fd, (unsigned int)m->cpu, &m->ci);
	if (!ret && !m->ci.online)
		ret = -ENODEV;
	close(fd);
	if (ret)
		return stat_fail(ret, err, errlen, "module backend: CPU %d: %s", m->cpu, strerror(-ret));
	m->mode = event_mode(s->cycle_mode);
	for (i = 0; i < s->nr_events; i++) {
		struct stat_event *e = &s->ev[i];

		if (!e->supported || pmuser_event_supported(&m->ci, e->spec.event))
			continue;
		if (!e->optional)
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
		if (n > stat_set_counters(&m->ci))
			return stat_fail(-E2BIG, err, errlen,
				    "event set %u has %u events but CPU %d has %u event counters beside its cycles: the module backend counts one set at a time, so split it with more -e options",
				    set, n, m->cpu, stat_set_counters(&m->ci));
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
 * rotation held once (the first last, as it counts first), so a set perf cannot place is
 * found before the command runs; the first hold grants this thread and proves its reads on
 * the command's CPU; the result described.
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
	r->backend = STAT_MODULE;
	r->module_cpu = m->cpu;
	r->have_cycles = true;
	r->cycles.supported = true;
	snprintf(r->timer, sizeof(r->timer), "%s", pmuser_counters_timer(m->c));
	snprintf(r->backend_desc, sizeof(r->backend_desc),
		 "module: counts everything on CPU %d (the command is pinned there), cycles %s mode; %u event set%s rotated every %u ms",
		 m->cpu, m->mode == PMUSER_COUNT_USER ? "user" :
		 m->mode == PMUSER_COUNT_KERNEL ? "kernel" : "user+kernel", m->nr_rotation,
		 m->nr_rotation == 1 ? "" : "s", o->interval_ms);
	module_zero(m);
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
	r->cycles.enabled_ns = r->cycles.running_ns = (double)r->elapsed_ns;
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
		/* perf's times: the run, and the share of it its set was on. */
		e->enabled_ns = (double)r->elapsed_ns;
		e->running_ns = e->duty * (double)r->elapsed_ns;
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
	pmuser_counters_close(m->c);
	free(m);
	return ret;
}

int stat_measure(const struct stat_opts *o, struct stat_setup *s, const struct stat_sys *sys,
		 struct stat_result *r, char *err, size_t errlen)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->started = time(NULL);
	r->interval_ms = o->interval_ms;
	snprintf(r->cycles.name, sizeof(r->cycles.name), "cycles:%s",
		 stat_mode_suffix(s->cycle_mode));
	r->periods.keep = o->periods_file || o->svg_file;
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
