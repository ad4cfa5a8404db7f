/* SPDX-License-Identifier: MIT */
/*
 * pmu-stat: count a whole command, rpistat-style (seed 001), on today's machines.
 *
 *  stat_opts.c     command line (perf stat's options where it has them)
 *  stat_events.c   event sets (-e or the library's presets, and -d's), their modes and names,
 *                  metrics
 *  stat_sys.c      system information (CPUs, MIDR, PMU), the default mode, -p/-t threads
 *  stat_launch.c   the child: blocked until the counters are ready, exec status, waiting
 *  stat_measure.c  the backends: perf-read (per task), module (own TDM on one CPU), clock
 *  stat_report.c   text (rpistat.txt-like), perf stat -x and -I lines, CSV and JSON reports
 *  stat_periods.c  per-period data file and SVG plot
 */
#ifndef PMUSER_STAT_H
#define PMUSER_STAT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "pmuser.h"
#include "pmuser_now.h"

#define STAT_MAX_SETS		16
#define STAT_MAX_EVENTS		PMUSER_MAX_EVENTS	/* all sets together */
#define STAT_MAX_CPUS		64			/* per-CPU breakdown */
/* Counter sets of one run: one per CPU (-a, -C, --per-cpu) or per thread (-p, -t). */
#define STAT_MAX_TARGETS	64
#define STAT_DEFAULT_INTERVAL_MS 100
#define STAT_MAX_INTERVAL_MS	60000
#define STAT_MIN_PRINT_MS	10			/* -I, as perf stat takes it */

/* Exit statuses of pmu-stat itself (otherwise it exits with the workload's status). */
#define STAT_EXIT_SETUP		1	/* counters could not be set up */
#define STAT_EXIT_USAGE		2	/* bad command line or event spec */
#define STAT_EXIT_NOEXEC	126	/* command found but not executable */
#define STAT_EXIT_NOTFOUND	127	/* command not found */

/* STAT_SEP: perf stat -x lines, fields joined by stat_opts.separator. */
enum stat_format { STAT_TEXT, STAT_CSV, STAT_JSON, STAT_SEP };

/* The library's backends pmu-stat counts with, named by pmuser_backend_name(). */
enum stat_backend { STAT_AUTO, STAT_PERF_READ, STAT_MODULE, STAT_CLOCK };

/* Writes the message to err (errlen bytes; err may be NULL) and returns ret. */
int __attribute__((format(printf, 4, 5)))
stat_fail(int ret, char *err, size_t errlen, const char *fmt, ...);

#define STAT_MAX_REPEAT 100000

struct stat_opts {
	const char *event_args[STAT_MAX_SETS];	/* each -e is one event set */
	unsigned int nr_event_args;
	const char *preset;			/* --preset; NULL: "default" unless -e given */
	uint64_t detailed;			/* -d, -dd, -ddd: perf stat's detailed levels */
	unsigned int interval_ms;		/* --read-period: reads, and the module's turns */
	bool interval_given;
	unsigned int print_ms;			/* -I: perf's interval lines every print_ms; 0 none */
	const char *output;			/* -o; NULL: stderr */
	enum stat_format format;
	bool per_cpu;				/* --per-cpu: the command's counts by CPU */
	int pin_cpus[STAT_MAX_CPUS];		/* --pin-cpus, ascending, no duplicates */
	unsigned int nr_pin_cpus;
	/*
	 * -C, ascending, no duplicates; -a leaves it empty until main() fills in every CPU
	 * pmu-stat may use. Either counts every task on those CPUs (system-wide), as perf does.
	 */
	int cpus[STAT_MAX_CPUS];
	unsigned int nr_cpus;
	bool all_cpus;				/* -a */
	bool no_aggr;				/* -A: a row per CPU */
	pid_t pids[STAT_MAX_TARGETS];		/* -p (processes) or -t (threads) */
	unsigned int nr_pids;
	bool pids_are_tids;			/* -t */
	bool per_thread;			/* --per-thread: a row per thread of -p/-t */
	bool no_big_num;			/* --no-big-num: no thousands separators */
	bool verbose;				/* -v: each counter's raw count and times */
	enum stat_backend backend;		/* --backend */
	const char *periods_file;		/* --periods */
	const char *svg_file;			/* --svg: a plot of the periods */
	uint64_t repeat;			/* -r: runs of the command, 1 to STAT_MAX_REPEAT */
	const char *separator;			/* -x: STAT_SEP's field separator */
	char **argv;				/* the command */
	int argc;
	/*
	 * Set by main(), not by the command line: the mode of events written without one
	 * (PMUSER_COUNT_*; 0 stands for user mode) and why, from stat_default_mode(); where
	 * -I's lines go as they come.
	 */
	uint32_t default_mode;
	char mode_why[200];
	FILE *print_file;
};

/* Whether o counts every task on CPUs (-a, -C), as perf stat does. */
static inline bool stat_system_wide(const struct stat_opts *o)
{
	return o->all_cpus || o->nr_cpus;
}

/* Parses argv into o. 0, or -EINVAL with a message in err; 1 for --help (usage printed). */
int stat_opts_parse(int argc, char **argv, struct stat_opts *o, char *err, size_t errlen);
const char *stat_backend_label(enum stat_backend b);
/* Parses "0,2-3" into ascending unique CPU numbers: count, or -EINVAL. */
int stat_parse_cpus(const char *s, int *cpus, unsigned int max);
/* Parses "123,456" into process or thread ids: count, or -EINVAL. */
int stat_parse_pids(const char *s, pid_t *pids, unsigned int max);

/*
 * perf's default mode for events written without one: user and kernel where the kernel lets
 * this process count kernel mode (perf_event_paranoid <= 1, or CAP_PERFMON or CAP_SYS_ADMIN),
 * else user only, as perf then falls back to :u. PMUSER_COUNT_*, with why in why.
 */
uint32_t stat_default_mode(char *why, size_t len);
/* "u", "k" or "uk": a mode as perf's modifiers write it. */
const char *stat_mode_suffix(uint32_t mode);

/* One counted event; the cycle counter is kept separately (struct stat_result.cycles). */
struct stat_event {
	struct pmuser_evspec_entry spec;
	/*
	 * As perf names it: as written, with its mode, "instructions:u", "r1b:uk",
	 * "armv8_pmuv3/event=0x8/u"; a preset's by the library's name, "INST_RETIRED:u".
	 */
	char name[96];
	/*
	 * perf's generic or hardware cache event it was written as, by the name perf prints
	 * ("cycles" for "cpu-cycles", "L1-dcache-load-misses" for "l1d-misses"), or empty
	 */
	char perf_name[32];
	unsigned int set;
	bool supported;
	/*
	 * From a preset or -d: where the CPU lacks it, it is not supported (as perf prints
	 * <not supported>); one asked for with -e is an error then.
	 */
	bool optional;
	int perf_ctr;			/* perf backend: its counter in the open sets, 0 cycles */
	/*
	 * Known only from the core's event table: no PMCEID register confirms the CPU counts
	 * it (ARMv7, QEMU's Cortex-A15), so a 0 may be an event the CPU lacks.
	 */
	bool unconfirmed;
	/* results, summed over the counted CPUs */
	uint64_t raw;
	double scaled;
	double duty;			/* fraction of the run it was counted: 0..1 */
	double enabled_ns, running_ns;	/* perf's times (summed over CPUs, threads); module:
					 * the run, and the time its set was on */
	double stderr_pct;		/* -r: relative standard error of scaled's mean, in % */
	unsigned int periods;		/* module: periods its set was on; perf: 0 */
	/* By row of the breakdown (struct stat_result.rows) */
	uint64_t cpu_raw[STAT_MAX_TARGETS];
	double cpu_scaled[STAT_MAX_TARGETS];	/* NAN: the task ran there, never counted */
	double cpu_enabled[STAT_MAX_TARGETS], cpu_running[STAT_MAX_TARGETS];
};

/* Events, grouped in sets, resolved for one core. */
struct stat_setup {
	uint32_t midr;
	struct stat_event ev[STAT_MAX_EVENTS];
	size_t nr_events;
	unsigned int nr_sets;
	const struct pmuser_preset *preset;	/* the library's preset, or NULL for -e */
	/*
	 * The cycle counter's mode: the events' own when they all have one, else the default
	 * mode. Metrics take the events of that mode only, so that IPC is of one mode.
	 */
	uint32_t cycle_mode;
};

/*
 * Builds the event sets from -e, or from the --preset preset (default: "default") split by the
 * library into sets of at most counters events (0: the core's usual, 2 on the ARM1176, else
 * 4), then -d's in sets of their own as many as fit, for the core midr: 0, or
 * -EINVAL/-ENOENT/-E2BIG with a message naming the offending event or preset in err.
 */
int stat_setup_events(const struct stat_opts *o, uint32_t midr, unsigned int counters,
		      struct stat_setup *s, char *err, size_t errlen);

#define STAT_MAX_METRICS	(STAT_MAX_EVENTS + 32)

/*
 * The estimate metrics take for an event number: of its copies in the cycle counter's mode,
 * the sum of their raw counts over the sum of their duty cycles (one copy: its scaled
 * count). false if none was counted.
 */
bool stat_event_estimate(const struct stat_setup *s, uint32_t number, double *out);

/* System information. */
struct stat_cpu {
	int cpu;
	uint32_t midr;			/* 0 if unknown */
};

struct stat_sys {
	unsigned int nr_online;
	struct stat_cpu cpu[STAT_MAX_CPUS];
	unsigned int nr_cpu;
	char pmu[160];			/* "PMUv3 (version 4), 6 counters x 32 bits, ..." or why not */
	char machine[64];		/* uname -m */
	bool have_device;
	bool have_cpu_info;		/* cpu_info: the device's view of the first CPU */
	/*
	 * cpu_info.pmceid holds the common events the CPU implements: from the device, or
	 * without it from the events arm64 perf lists in sysfs (it lists exactly PMCEID's).
	 */
	bool have_pmceid;
	struct pmuser_cpu_info cpu_info;
};

void stat_sys_collect(struct stat_sys *sys);
/* The MIDR of the CPUs (the first known one), 0 if none is known. */
uint32_t stat_sys_midr(const struct stat_sys *sys);
/* Whether cpu is online and allowed for pmu-stat. */
bool stat_sys_has_cpu(const struct stat_sys *sys, int cpu);
/*
 * The event counters a set has beside its cycle count on a CPU: all of them, one fewer where
 * the core keeps cycles off the cycle counter (perf and the library count them on an event
 * counter there).
 */
unsigned int stat_set_counters(const struct pmuser_cpu_info *ci);
/* The online CPUs (sysfs), whatever pmu-stat may run on: count, or -errno. */
int stat_online_cpus(int *cpus, unsigned int max);

/* One measurement period of one event on one CPU; ev -1 is the cycle counter. */
struct stat_period {
	uint64_t t_ns;			/* period end, from the workload's start */
	uint64_t len_ns;		/* period length */
	int cpu;			/* -1: the task wherever it ran */
	int set;
	int ev;
	uint64_t delta;
	uint64_t running_ns;		/* time the event counted within the period */
};

struct stat_periods {
	struct stat_period *rows;
	size_t n, cap;
	bool keep;			/* only collected when a file or plot was asked for */
};

int stat_periods_add(struct stat_periods *p, const struct stat_period *row);
void stat_periods_free(struct stat_periods *p);

struct stat_result {
	enum stat_backend backend;
	int exec_errno;			/* the command could not be executed: errno */
	bool usage_error;		/* the failure is the command line's: exit STAT_EXIT_USAGE */
	/*
	 * Counting went wrong while the command ran (it ran on to its end): why, also in
	 * backend_desc. The report holds what was counted; pmu-stat then exits 1.
	 */
	char incomplete[200];
	char backend_desc[400];		/* what was counted, for the report */
	char fallback[400];		/* why auto did not take a counting backend */
	char timer[96];
	time_t started;			/* the run's start (perf -o's "# started on") */
	int module_cpu;			/* module: the counted CPU */
	unsigned int interval_ms;
	uint64_t elapsed_ns;
	unsigned int runs;		/* -r: runs the counts are the means of */
	unsigned int dropped_run;	/* -r: the run (from 1) left out, non-zero exit; or 0 */
	double elapsed_stderr_pct;
	struct rusage ru;
	int wait_status;
	bool have_cycles;
	bool perf_grouped;		/* perf: each period's counts read together, as one group */
	struct stat_event cycles;
	unsigned int total_periods;
	unsigned int set_periods[STAT_MAX_SETS];
	double set_duty[STAT_MAX_SETS];
	/*
	 * The breakdown's rows (--per-cpu, -A: CPUs; --per-thread: threads), in the order of
	 * each event's cpu_* arrays: CPU numbers, or thread ids with their names.
	 */
	int counted_cpus[STAT_MAX_TARGETS];
	unsigned int nr_counted_cpus;
	bool rows_are_threads;
	char thread_comm[STAT_MAX_TARGETS][20];
	struct stat_periods periods;
};

/* One -I interval: each event's (the cycle counter last) deltas on each row, perf's times. */
struct stat_interval {
	uint64_t t_ns;			/* the interval's end, from the start */
	unsigned int nr_rows;		/* counter sets: one, or one per CPU or thread */
	struct pmuser_count d[STAT_MAX_EVENTS + 1][STAT_MAX_TARGETS];
	bool counted;			/* false: no counters (the clock backend) */
};

/* The launched command. */
struct stat_child {
	pid_t pid;
	int go_fd;			/* write end: one byte releases the child */
	int exec_fd;			/* read end: the exec errno, or EOF when exec succeeded */
	sigset_t old_mask;
	bool exited;
	int status;
	struct rusage ru;
};

/*
 * Resolves argv[0] on PATH as execvp would: 0, -ENOENT (not found) or -EACCES (found, not
 * executable), with the path that failed in path.
 */
int stat_command_check(const char *cmd, char *path, size_t pathlen);
/*
 * The threads of process pid (from /proc/PID/task), at most max: count, or -errno.
 * stat_thread_comm() is a thread's name, "?" once it is gone.
 */
int stat_threads(pid_t pid, pid_t *tids, unsigned int max);
void stat_thread_comm(pid_t tid, char *buf, size_t len);

/*
 * Forks the command, blocked before exec until stat_child_release(); pinned to cpus when
 * nr_cpus > 0. Blocks SIGCHLD/SIGINT/SIGTERM/SIGHUP in the caller for stat_child_wait().
 */
int stat_child_spawn(struct stat_child *ch, char **argv, const int *cpus, unsigned int nr_cpus);
/* Setup failed: the child exits without exec, and is reaped. */
void stat_child_abort(struct stat_child *ch);
/* Lets the child exec: 0, or -errno of a failed exec (the child is reaped then). */
int stat_child_release(struct stat_child *ch);
/*
 * Waits at most timeout_ns for the child to exit, forwarding SIGINT/SIGTERM/SIGHUP to it:
 * 1 when it has exited (status and rusage stored), 0 on timeout.
 */
int stat_child_wait(struct stat_child *ch, uint64_t timeout_ns);
/* Restores the caller's signal mask. */
void stat_child_done(struct stat_child *ch);
/*
 * Around repeated runs: SIGINT/SIGTERM/SIGHUP stay blocked between the runs too (a command
 * still gets the mask pmu-stat started with), so that one arriving there ends the repeats
 * instead of pmu-stat, which reports the runs done. stat_stop_signal() is the first such
 * signal pmu-stat received (while a command ran, or between runs), or 0.
 */
void stat_signals_hold(void);
int stat_stop_signal(void);
void stat_signals_release(void);
/* The status pmu-stat exits with: the exit code, or 128 + signal. */
int stat_exit_code(int wait_status);

/*
 * Opens the backend for the workload, releases it, measures until it exits; o's CPUs are ones
 * pmu-stat may run on (stat_sys_has_cpu(), checked before any output is opened). 0, or -errno
 * with a message in err (the child is then aborted, never run half-configured). Once the
 * command runs it is never cut short: what goes wrong then is told in r->incomplete.
 */
int stat_measure(const struct stat_opts *o, struct stat_setup *s, const struct stat_sys *sys,
		 struct stat_result *r, char *err, size_t errlen);

/*
 * The library's metrics over the results (each event's full duty-cycle estimate, copies of
 * one event combined, user mode only): those that could be computed, at most max.
 */
size_t stat_metrics(const struct stat_setup *s, const struct stat_result *r,
		    struct pmuser_metric_value *out, size_t max);

/*
 * -I: one interval's lines, as perf stat -I prints them (with -x, or as text under a header
 * repeated every 25 intervals, *printed counting them). 0 or -EIO.
 */
int stat_report_interval(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
			 const struct stat_result *r, const struct stat_interval *iv,
			 unsigned int *printed);
/* -v: each counter's raw count, enabled and running ns, as perf stat -v prints them. */
void stat_report_verbose(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
			 const struct stat_result *r);
/*
 * perf stat's metric for event i beside the events asked for (values[k]: event k's count in
 * the same row, NAN if not counted), as perf derives it from its generic events of the same
 * mode (instructions per cycle, branch-misses of all branches, ...): true with the value, its
 * printf format and unit. Like perf's, only for events written as its generic names.
 */
bool stat_perf_metric(const struct stat_setup *s, size_t i, const double values[],
		      double *value, const char **fmt, const char **unit);

/* Reports; 0 or -EIO. */
int stat_report_text(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		     const struct stat_sys *sys, const struct stat_result *r);
int stat_report_sep(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		    const struct stat_result *r);
int stat_report_csv(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		    const struct stat_sys *sys, const struct stat_result *r);
int stat_report_json(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		     const struct stat_sys *sys, const struct stat_result *r);
/*
 * 1234567 -> "1,234,567" with the locale's thousands separator (',' if it has none); without
 * separators at all once stat_big_num is false (--no-big-num).
 */
extern bool stat_big_num;
const char *stat_group(char *buf, size_t len, uint64_t v);

/* Period file (CSV) and SVG plot of rates over time; 0 or -errno. */
int stat_periods_write(FILE *f, const struct stat_setup *s, const struct stat_result *r);
int stat_periods_plot(FILE *f, const struct stat_setup *s, const struct stat_result *r,
		      const char *title);

#endif
