/* SPDX-License-Identifier: MIT */
/*
 * pmu-stat: count a whole command, rpistat-style (seed 001), on today's machines.
 *
 *  stat_opts.c     command line
 *  stat_events.c   event sets (-e, or the library's presets), metrics (the library's)
 *  stat_sys.c      system information (CPUs, MIDR, PMU)
 *  stat_launch.c   the child: blocked until the counters are ready, exec status, waiting
 *  stat_measure.c  the backends: perf (per task), module (own TDM on one CPU), clock
 *  stat_report.c   text (rpistat.txt-like), CSV and JSON reports
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

#include "pmuser.h"
#include "pmuser_now.h"

#define STAT_MAX_SETS		16
#define STAT_MAX_EVENTS		PMUSER_MAX_EVENTS	/* all sets together */
#define STAT_MAX_CPUS		64			/* per-CPU breakdown */
#define STAT_DEFAULT_INTERVAL_MS 100
#define STAT_MAX_INTERVAL_MS	60000

/* Exit statuses of pmu-stat itself (otherwise it exits with the workload's status). */
#define STAT_EXIT_SETUP		1	/* counters could not be set up */
#define STAT_EXIT_USAGE		2	/* bad command line or event spec */
#define STAT_EXIT_NOEXEC	126	/* command found but not executable */
#define STAT_EXIT_NOTFOUND	127	/* command not found */

/* STAT_SEP: perf stat -x lines, fields joined by stat_opts.separator. */
enum stat_format { STAT_TEXT, STAT_CSV, STAT_JSON, STAT_SEP };

enum stat_backend { STAT_AUTO, STAT_PERF, STAT_MODULE, STAT_CLOCK };

/* Writes the message to err (errlen bytes; err may be NULL) and returns ret. */
int __attribute__((format(printf, 4, 5)))
stat_fail(int ret, char *err, size_t errlen, const char *fmt, ...);

#define STAT_MAX_REPEAT 100000

struct stat_opts {
	const char *event_args[STAT_MAX_SETS];	/* each -e is one event set */
	unsigned int nr_event_args;
	const char *preset;			/* -p; NULL: "default" unless -e given */
	unsigned int interval_ms;		/* -I */
	bool interval_given;
	const char *output;			/* -o; NULL: stderr */
	enum stat_format format;
	bool per_cpu;
	int cpus[STAT_MAX_CPUS];		/* -C, ascending, no duplicates */
	unsigned int nr_cpus;
	enum stat_backend backend;
	const char *periods_file;
	const char *plot_file;
	uint64_t repeat;			/* -r: runs of the command, 1 to STAT_MAX_REPEAT */
	const char *separator;			/* -x: STAT_SEP's field separator */
	char **argv;				/* the command */
	int argc;
};

/* Parses argv into o. 0, or -EINVAL with a message in err; 1 for --help (usage printed). */
int stat_opts_parse(int argc, char **argv, struct stat_opts *o, char *err, size_t errlen);
const char *stat_backend_label(enum stat_backend b);
/* Parses "0,2-3" into ascending unique CPU numbers: count, or -EINVAL. */
int stat_parse_cpus(const char *s, int *cpus, unsigned int max);

/* One counted event; the cycle counter is kept separately (struct stat_result.cycles). */
struct stat_event {
	struct pmuser_evspec_entry spec;
	char name[48];
	unsigned int set;
	bool supported;
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
	double stderr_pct;		/* -r: relative standard error of scaled's mean, in % */
	unsigned int periods;		/* module: periods its set was on; perf: 0 */
	uint64_t cpu_raw[STAT_MAX_CPUS];
	double cpu_scaled[STAT_MAX_CPUS];	/* NAN: the task ran there, never counted */
};

/* Events, grouped in sets, resolved for one core. */
struct stat_setup {
	uint32_t midr;
	struct stat_event ev[STAT_MAX_EVENTS];
	size_t nr_events;
	unsigned int nr_sets;
	bool optional;			/* from a preset: events the CPU lacks are dropped */
	const struct pmuser_preset *preset;	/* the library's preset, or NULL for -e */
};

/*
 * Builds the event sets from -e, or from the -p preset (default: "default") split by the
 * library into sets of at most counters events (0: the core's usual, 2 on the ARM1176, else
 * 4), for the core midr: 0, or -EINVAL/-ENOENT/-E2BIG with a message naming the offending
 * event or preset in err.
 */
int stat_setup_events(const struct stat_opts *o, uint32_t midr, unsigned int counters,
		      struct stat_setup *s, char *err, size_t errlen);

#define STAT_MAX_METRICS	(STAT_MAX_EVENTS + 32)

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
	int counted_cpus[STAT_MAX_CPUS];	/* per-CPU breakdown columns */
	unsigned int nr_counted_cpus;
	struct stat_periods periods;
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

/* Reports; 0 or -EIO. */
int stat_report_text(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		     const struct stat_sys *sys, const struct stat_result *r);
int stat_report_sep(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		    const struct stat_result *r);
int stat_report_csv(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		    const struct stat_sys *sys, const struct stat_result *r);
int stat_report_json(FILE *f, const struct stat_opts *o, const struct stat_setup *s,
		     const struct stat_sys *sys, const struct stat_result *r);
/* 1234567 -> "1,234,567" with the locale's thousands separator (',' if it has none). */
const char *stat_group(char *buf, size_t len, uint64_t v);

/* Period file (CSV) and SVG plot of rates over time; 0 or -errno. */
int stat_periods_write(FILE *f, const struct stat_setup *s, const struct stat_result *r);
int stat_periods_plot(FILE *f, const struct stat_setup *s, const struct stat_result *r,
		      const char *title);

#endif
