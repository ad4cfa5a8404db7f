// SPDX-License-Identifier: MIT
/*
 * pmu-stat: run a command and count it, like the seed's rpistat (launch in a child, count
 * more event sets than there are counters by multiplexing, scale raw counts to full
 * duty-cycle estimates, report counts, CPI, PTI rates and ratios), on today's machines:
 * per task through perf wherever the command runs, or rpistat's own TDM on one CPU through
 * the pmuser module; clock-only where there is no PMU.
 *
 * usage: pmu-stat [-e EVENTS]... [--preset NAME] [-o FILE] [-f FMT|-x SEP] [-r N]
 *                 [-I MS] [-a|-C CPUS [-A]|-p PIDS|-t TIDS [--per-thread]] [--no-big-num]
 *                 [-v] [--per-cpu] [--pin-cpus CPUS] [--read-period MS] [--backend B]
 *                 [--periods FILE] [--svg FILE] -- command args
 *
 * The options perf stat has too mean what they mean in perf stat; events count perf's
 * default mode (user and kernel where this user may count kernel mode, else user) and every
 * row names its mode.
 *
 * Everything that can be wrong (options, event names, set sizes, the command's path, the
 * counters) is found before the command runs; the command starts only once every counter
 * is in place. pmu-stat exits with the command's status (128 + signal if it was killed, or
 * if a signal to pmu-stat ended -r early).
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "stat.h"
#include "tool_opts.h"

/*
 * Opens an output before anything runs: NULL with the reason said if it cannot be written.
 * The command inherits none of them: close-on-exec, and never on descriptors 0 to 2, which
 * the caller may have left closed for the command to find closed.
 */
static FILE *open_file(const char *path, const char *what)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	FILE *f = NULL;

	if (fd >= 0 && fd <= STDERR_FILENO) {
		int high = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);

		close(fd);
		fd = high;
	}
	if (fd >= 0) {
		f = fdopen(fd, "w");
		if (!f)
			close(fd);
	}
	if (!f)
		fprintf(stderr, "pmu-stat: %s %s: %s\n", what, path, strerror(errno));
	return f;
}

/* Writes into f (from open_file()) and closes it. */
static int write_file(FILE *f, const char *path, const char *what,
		      int (*writer)(FILE *, void *), void *arg)
{
	int ret;

	errno = 0;
	ret = writer(f, arg);
	/* A write that failed inside the writer left its errno (ENOSPC, EFBIG, ...). */
	if (ret == -EIO && errno)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		fprintf(stderr, "pmu-stat: writing %s %s: %s\n", what, path, strerror(-ret));
	return ret;
}

struct run {
	struct stat_opts o;
	struct stat_setup s;
	struct stat_sys sys;
	struct stat_result r;
};

static int write_report(FILE *f, void *arg)
{
	struct run *x = arg;

	switch (x->o.format) {
	case STAT_CSV:
		return stat_report_csv(f, &x->o, &x->s, &x->sys, &x->r);
	case STAT_JSON:
		return stat_report_json(f, &x->o, &x->s, &x->sys, &x->r);
	case STAT_SEP:
		return stat_report_sep(f, &x->o, &x->s, &x->r);
	default:
		return stat_report_text(f, &x->o, &x->s, &x->sys, &x->r);
	}
}

static int write_nothing(FILE *f, void *arg)
{
	(void)arg;
	return ferror(f) ? -EIO : 0;
}

static int write_periods(FILE *f, void *arg)
{
	struct run *x = arg;

	return stat_periods_write(f, &x->s, &x->r);
}

static int write_plot(FILE *f, void *arg)
{
	struct run *x = arg;
	char title[300];

	snprintf(title, sizeof(title), "pmu-stat: %s", x->o.argv[0]);
	return stat_periods_plot(f, &x->s, &x->r, title);
}

/* Sums over the runs of -r: per event (the cycle counter last) its counted runs. */
struct runs_acc {
	double sum[STAT_MAX_EVENTS + 1], sumsq[STAT_MAX_EVENTS + 1];
	double raw[STAT_MAX_EVENTS + 1], duty[STAT_MAX_EVENTS + 1];
	double enabled[STAT_MAX_EVENTS + 1], running[STAT_MAX_EVENTS + 1];
	unsigned int counted[STAT_MAX_EVENTS + 1];
	double elapsed, elapsed_sq;
	uint64_t user_us, system_us;
	unsigned int runs;
};

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000u + (uint64_t)tv->tv_usec;
}

static struct timeval us_tv(uint64_t us)
{
	return (struct timeval){ .tv_sec = (time_t)(us / 1000000u),
				 .tv_usec = (suseconds_t)(us % 1000000u) };
}

static void acc_event(struct runs_acc *a, size_t i, const struct stat_event *e)
{
	if (!e->supported || e->duty <= 0)
		return;
	a->sum[i] += e->scaled;
	a->sumsq[i] += e->scaled * e->scaled;
	a->raw[i] += (double)e->raw;
	a->duty[i] += e->duty;
	a->enabled[i] += e->enabled_ns;
	a->running[i] += e->running_ns;
	a->counted[i]++;
}

/*
 * The relative standard error of the mean of n values, in %, as perf stat -r prints it:
 * the sample standard deviation over the square root of n, over the mean.
 */
static double rel_stderr(double sum, double sumsq, unsigned int n)
{
	double mean = n ? sum / n : 0, var;

	if (n < 2 || mean <= 0)
		return 0;
	var = (sumsq - n * mean * mean) / (n - 1);
	return var > 0 ? 100.0 * sqrt(var / n) / mean : 0;
}

/*
 * An event's mean over the runs it was counted in, its duty over all runs: an event missing
 * from some runs shows it. Never counted stays not counted.
 */
static void mean_event(const struct runs_acc *a, size_t i, unsigned int runs,
		       struct stat_event *e)
{
	unsigned int n = a->counted[i];

	if (!n) {
		e->raw = 0;
		e->scaled = e->duty = e->enabled_ns = e->running_ns = 0;
		return;
	}
	e->scaled = a->sum[i] / n;
	e->raw = (uint64_t)(a->raw[i] / n + 0.5);
	e->duty = a->duty[i] / runs;
	/* perf stat -r's times are means too. */
	e->enabled_ns = a->enabled[i] / n;
	e->running_ns = a->running[i] / n;
	e->stderr_pct = rel_stderr(a->sum[i], a->sumsq[i], n);
}

/* Puts back the state of the last run kept (last, ev), in place of the run that followed. */
static void keep_last_run(struct run *x, const struct stat_result *last,
			  const struct stat_event *ev)
{
	stat_periods_free(&x->r.periods);
	x->r = *last;
	memcpy(x->s.ev, ev, sizeof(x->s.ev));
}

/* Adds a run's counts and times to the sums. */
static void acc_run(struct runs_acc *a, const struct run *x)
{
	size_t i;

	for (i = 0; i < x->s.nr_events; i++)
		acc_event(a, i, &x->s.ev[i]);
	acc_event(a, STAT_MAX_EVENTS, &x->r.cycles);
	a->elapsed += (double)x->r.elapsed_ns;
	a->elapsed_sq += (double)x->r.elapsed_ns * (double)x->r.elapsed_ns;
	a->user_us += tv_us(&x->r.ru.ru_utime);
	a->system_us += tv_us(&x->r.ru.ru_stime);
	a->runs++;
}

/*
 * Runs the command o.repeat times, leaving the means in x (one run: its counts as they are).
 * Later runs count through the backend the first one took. A run that fails, exits non-zero
 * or is counted only in part (r.incomplete) ends the repeats; a later run that exits
 * non-zero or that a stop signal came in is left out of the means (r.dropped_run), its
 * status kept. 0, or the first failure's -errno with the reason in err; x then holds the
 * x->r.runs runs before it, as they were reported.
 */
static int measure_runs(struct run *x, char *err, size_t errlen)
{
	struct runs_acc *a = calloc(1, sizeof(*a));
	struct stat_result *last = malloc(sizeof(*last));
	struct stat_event *ev = malloc(sizeof(x->s.ev));
	char fallback[sizeof(x->r.fallback)] = "";
	unsigned int k;
	size_t i;
	int ret = 0;

	if (!a || !last || !ev) {
		free(a);
		free(last);
		free(ev);
		return stat_fail(-ENOMEM, err, errlen, "out of memory");
	}
	for (k = 0; k < x->o.repeat; k++) {
		if (k && stat_stop_signal())
			break;
		if (k) {
			/* What a failing run would clear: the last good run's state. */
			*last = x->r;
			memset(&last->periods, 0, sizeof(last->periods));
			memcpy(ev, x->s.ev, sizeof(x->s.ev));
			stat_periods_free(&x->r.periods);
			for (i = 0; i < x->s.nr_events; i++) {
				struct stat_event *e = &x->s.ev[i];

				e->raw = 0;
				e->scaled = e->duty = e->enabled_ns = e->running_ns = 0;
				e->periods = 0;
			}
		}
		ret = stat_measure(&x->o, &x->s, &x->sys, &x->r, err, errlen);
		if (ret) {
			if (k)
				keep_last_run(x, last, ev);
			break;
		}
		/* perf -v's counts, run by run. */
		if (x->o.verbose)
			stat_report_verbose(stderr, &x->o, &x->s, &x->r);
		if (!k && x->o.backend == STAT_AUTO) {
			/* Why auto took it, said once for all the runs. */
			memcpy(fallback, x->r.fallback, sizeof(fallback));
			x->o.backend = x->r.backend;
		}
		if (k && (stat_exit_code(x->r.wait_status) || stat_stop_signal())) {
			/*
			 * A later run that failed or was killed is not the command the runs before
			 * it measured, and may have been cut short, as is one a stop signal came in
			 * (checked before it began): the means leave it out.
			 */
			int status = x->r.wait_status;

			keep_last_run(x, last, ev);
			x->r.wait_status = status;
			x->r.dropped_run = k + 1;
			break;
		}
		acc_run(a, x);
		if (stat_exit_code(x->r.wait_status) || x->r.incomplete[0])
			break;
	}
	if (x->o.repeat > 1 && a->runs) {
		for (i = 0; i < x->s.nr_events; i++)
			mean_event(a, i, a->runs, &x->s.ev[i]);
		mean_event(a, STAT_MAX_EVENTS, a->runs, &x->r.cycles);
		x->r.elapsed_ns = (uint64_t)(a->elapsed / a->runs + 0.5);
		x->r.elapsed_stderr_pct = rel_stderr(a->elapsed, a->elapsed_sq, a->runs);
		x->r.ru.ru_utime = us_tv((a->user_us + a->runs / 2) / a->runs);
		x->r.ru.ru_stime = us_tv((a->system_us + a->runs / 2) / a->runs);
	}
	x->r.runs = a->runs;
	if (!x->r.fallback[0])
		memcpy(x->r.fallback, fallback, sizeof(fallback));
	free(a);
	free(last);
	free(ev);
	return ret;
}

/* How the last run ended, when it failed: "exited with status 3". */
static void run_failure(char *why, size_t len, int st, int stop)
{
	if (WIFSIGNALED(st))
		snprintf(why, len, "was killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else if (stat_exit_code(st))
		snprintf(why, len, "exited with status %d", stat_exit_code(st));
	else
		snprintf(why, len, "was cut short by signal %d (%s)", stop, strsignal(stop));
}

/* Says which run the means leave out, and why. */
static void report_dropped(const struct run *x)
{
	char why[80];

	run_failure(why, sizeof(why), x->r.wait_status, stat_stop_signal());
	fprintf(stderr, "pmu-stat: run %u of %llu %s: the counts are the means of the %u before it\n",
		x->r.dropped_run, (unsigned long long)x->o.repeat, why, x->r.runs);
}

/*
 * -r: the command failed on a run the means keep (the first), which ends the repeats: says
 * so, rather than report fewer runs than asked for without a word.
 */
static void report_stopped(const struct run *x)
{
	char why[80];

	/* A stop signal's end is said on its own. */
	if (x->o.repeat < 2 || x->r.runs >= x->o.repeat || x->r.dropped_run ||
	    !stat_exit_code(x->r.wait_status) || stat_stop_signal())
		return;
	run_failure(why, sizeof(why), x->r.wait_status, 0);
	fprintf(stderr, "pmu-stat: run %u of %llu %s: no more runs; the counts are of the %u run%s done\n",
		x->r.runs, (unsigned long long)x->o.repeat, why, x->r.runs,
		x->r.runs == 1 ? "" : "s");
}

/*
 * Whether every CPU --pin-cpus names is one pmu-stat may run on, and every CPU -C names is
 * online (counting a CPU is not running on it): false after saying which is not. -a alone
 * stands for every online CPU, as in perf.
 */
static bool cpus_available(struct run *x)
{
	int online[STAT_MAX_CPUS], n = stat_online_cpus(online, STAT_MAX_CPUS);
	unsigned int i;
	int k;

	/* Without sysfs, the CPUs pmu-stat may run on are the ones it knows of. */
	if (n <= 0)
		for (n = 0; (unsigned int)n < x->sys.nr_cpu; n++)
			online[n] = x->sys.cpu[n].cpu;
	for (i = 0; i < x->o.nr_cpus; i++) {
		for (k = 0; k < n && online[k] != x->o.cpus[i]; k++)
			;
		if (k == n) {
			fprintf(stderr, "pmu-stat: -C: CPU %d is not online\n", x->o.cpus[i]);
			return false;
		}
	}
	for (i = 0; i < x->o.nr_pin_cpus; i++)
		if (!stat_sys_has_cpu(&x->sys, x->o.pin_cpus[i])) {
			fprintf(stderr, "pmu-stat: --pin-cpus: CPU %d is not online or not allowed for pmu-stat\n",
				x->o.pin_cpus[i]);
			return false;
		}
	if (x->o.all_cpus && !x->o.nr_cpus) {
		memcpy(x->o.cpus, online, (size_t)n * sizeof(online[0]));
		x->o.nr_cpus = (unsigned int)n;
	}
	return true;
}

/*
 * Every output is opened before the command runs, so that a bad path costs no run: the
 * report (-o, else standard error), the periods and the plot. 0, or -1 after saying why.
 */
static int open_outputs(const struct run *x, FILE *out[3])
{
	const char *report = x->o.output ? "-o" : "standard error (the report)";
	int i;

	if ((x->o.output && !(out[0] = open_file(x->o.output, "report"))) ||
	    (x->o.periods_file && !(out[1] = open_file(x->o.periods_file, "period file"))) ||
	    (x->o.svg_file && !(out[2] = open_file(x->o.svg_file, "plot"))) ||
	    tool_outputs_distinct("pmu-stat",
				  (FILE *const[]){ out[0] ? out[0] : stderr, out[1], out[2] },
				  (const char *const[]){ report, "--periods", "--svg" }, 3)) {
		for (i = 0; i < 3; i++)
			if (out[i])
				fclose(out[i]);
		return -1;
	}
	return 0;
}

/*
 * Everything before the outputs are opened: the command line, the default mode, the system,
 * the event sets, the command's path. -1 to go on, else the status to exit with (said why).
 */
static int prepare(struct run *x, int argc, char **argv)
{
	char err[600], path[4096];
	size_t i;
	int ret;

	ret = stat_opts_parse(argc, argv, &x->o, err, sizeof(err));
	if (ret == 1)
		return 0;
	if (ret) {
		fprintf(stderr, "pmu-stat: %s\n", err);
		return STAT_EXIT_USAGE;
	}
	stat_big_num = !x->o.no_big_num;
	x->o.default_mode = stat_default_mode(x->o.mode_why, sizeof(x->o.mode_why));
	stat_sys_collect(&x->sys);
	if (!cpus_available(x))
		return STAT_EXIT_USAGE;
	/* Presets split into sets the CPU's counters hold; the device says how many. */
	ret = stat_setup_events(&x->o, stat_sys_midr(&x->sys),
				x->sys.have_cpu_info ? stat_set_counters(&x->sys.cpu_info) : 0,
				&x->s, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "pmu-stat: %s\n", err);
		return STAT_EXIT_USAGE;
	}
	for (i = 0; i < x->s.nr_events; i++)
		x->s.ev[i].unconfirmed = !x->sys.have_pmceid;
	ret = stat_command_check(x->o.argv[0], path, sizeof(path));
	if (ret) {
		fprintf(stderr, "pmu-stat: %s: %s\n", path,
			ret == -ENOENT ? "command not found" : "not executable");
		return ret == -ENOENT ? STAT_EXIT_NOTFOUND : STAT_EXIT_NOEXEC;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct run *x = calloc(1, sizeof(*x));
	FILE *out[3] = { NULL, NULL, NULL };	/* report, periods, plot */
	char err[600];
	bool failed;
	int ret, code, stop, i;

	if (!x) {
		fprintf(stderr, "pmu-stat: out of memory\n");
		return STAT_EXIT_SETUP;
	}
	setlocale(LC_ALL, "");
	ret = prepare(x, argc, argv);
	if (ret >= 0)
		return ret;
	if (open_outputs(x, out))
		return STAT_EXIT_USAGE;
	/* -I's lines go where the report would, as they come. */
	x->o.print_file = out[0] ? out[0] : stderr;
	stat_signals_hold();
	ret = measure_runs(x, err, sizeof(err));
	stat_signals_release();
	if (ret && !x->r.runs) {
		for (i = 0; i < 3; i++)
			if (out[i])
				fclose(out[i]);
		fprintf(stderr, "pmu-stat: %s\n", err);
		if (x->r.exec_errno)
			return x->r.exec_errno == ENOENT ? STAT_EXIT_NOTFOUND : STAT_EXIT_NOEXEC;
		/* The command never ran: a failure of ours, never a status of its. */
		return x->r.usage_error ? STAT_EXIT_USAGE : STAT_EXIT_SETUP;
	}
	/* A later run that could not be counted: the runs before it are still reported. */
	failed = ret != 0;
	if (failed)
		fprintf(stderr, "pmu-stat: run %u of %llu: %s; reporting the %u before it\n",
			x->r.runs + 1, (unsigned long long)x->o.repeat, err, x->r.runs);
	if (x->r.dropped_run)
		report_dropped(x);
	report_stopped(x);
	/* A run counted in part is reported too, and is a failure of ours all the same. */
	failed |= x->r.incomplete[0] != '\0';
	code = stat_exit_code(x->r.wait_status);
	/* Repeats a signal cut short end as interrupted, unless the last run's status says more. */
	stop = stat_stop_signal();
	if (stop && x->r.runs < x->o.repeat) {
		fprintf(stderr, "pmu-stat: stopped by signal %d (%s) after run %u of %llu\n", stop,
			strsignal(stop), x->r.dropped_run ? x->r.dropped_run : x->r.runs,
			(unsigned long long)x->o.repeat);
		if (!code)
			code = 128 + stop;
	}
	/* With -I the intervals were the report, as perf stat -I prints no totals. */
	if (out[0])
		ret = write_file(out[0], x->o.output, "report",
				 x->o.print_ms ? write_nothing : write_report, x);
	else
		ret = x->o.print_ms ? write_nothing(stderr, x) : write_report(stderr, x);
	if (out[1])
		ret |= write_file(out[1], x->o.periods_file, "period file", write_periods, x);
	if (out[2])
		ret |= write_file(out[2], x->o.svg_file, "plot", write_plot, x);
	if (x->r.incomplete[0])
		fprintf(stderr, "pmu-stat: counting incomplete: %s\n", x->r.incomplete);
	stat_periods_free(&x->r.periods);
	free(x);
	/*
	 * The workload's status wins; a report that could not be written, or a run that could
	 * not be counted, is a failure of ours.
	 */
	return (ret || failed) && !code ? STAT_EXIT_SETUP : code;
}
