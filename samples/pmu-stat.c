// SPDX-License-Identifier: MIT
/*
 * pmu-stat: run a command and count it, like the seed's rpistat (launch in a child, count
 * more event sets than there are counters by multiplexing, scale raw counts to full
 * duty-cycle estimates, report counts, CPI, PTI rates and ratios), on today's machines:
 * per task through perf wherever the command runs, or rpistat's own TDM on one CPU through
 * the pmuser module; clock-only where there is no PMU.
 *
 * usage: pmu-stat [-e EVENTS]... [-p PRESET] [-I MS] [-o FILE] [--csv|--json] [--per-cpu]
 *                 [-C CPUS] [--backend B] [--periods FILE] [--plot FILE.svg] -- command args
 *
 * Everything that can be wrong (options, event names, set sizes, the command's path, the
 * counters) is found before the command runs; the command starts only once every counter
 * is in place. pmu-stat exits with the command's status (128 + signal if it was killed).
 */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat.h"

/* Opens an output before anything runs: NULL with the reason said if it cannot be written. */
static FILE *open_file(const char *path, const char *what)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, "pmu-stat: %s %s: %s\n", what, path, strerror(errno));
	return f;
}

/* Writes into f (from open_file()) and closes it. */
static int write_file(FILE *f, const char *path, const char *what,
		      int (*writer)(FILE *, void *), void *arg)
{
	int ret;

	ret = writer(f, arg);
	if (fclose(f) && !ret)
		ret = -EIO;
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
	default:
		return stat_report_text(f, &x->o, &x->s, &x->sys, &x->r);
	}
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

int main(int argc, char **argv)
{
	struct run *x = calloc(1, sizeof(*x));
	char err[600], path[4096];
	FILE *out[3] = { NULL, NULL, NULL };	/* report, periods, plot */
	int ret, code, i;

	if (!x) {
		fprintf(stderr, "pmu-stat: out of memory\n");
		return STAT_EXIT_SETUP;
	}
	setlocale(LC_ALL, "");
	ret = stat_opts_parse(argc, argv, &x->o, err, sizeof(err));
	if (ret == 1)
		return 0;
	if (ret) {
		fprintf(stderr, "pmu-stat: %s\n", err);
		return STAT_EXIT_USAGE;
	}
	stat_sys_collect(&x->sys);
	/* Presets split into sets the CPU's counters hold; the device says how many. */
	ret = stat_setup_events(&x->o, stat_sys_midr(&x->sys),
				x->sys.have_cpu_info ? x->sys.cpu_info.nr_counters : 0, &x->s, err,
				sizeof(err));
	if (ret) {
		fprintf(stderr, "pmu-stat: %s\n", err);
		return STAT_EXIT_USAGE;
	}
	ret = stat_command_check(x->o.argv[0], path, sizeof(path));
	if (ret) {
		fprintf(stderr, "pmu-stat: %s: %s\n", path,
			ret == -ENOENT ? "command not found" : "not executable");
		return ret == -ENOENT ? STAT_EXIT_NOTFOUND : STAT_EXIT_NOEXEC;
	}
	/* Every output is opened before the command runs: a bad path costs no run. */
	if ((x->o.output && !(out[0] = open_file(x->o.output, "report"))) ||
	    (x->o.periods_file && !(out[1] = open_file(x->o.periods_file, "period file"))) ||
	    (x->o.plot_file && !(out[2] = open_file(x->o.plot_file, "plot")))) {
		for (i = 0; i < 3; i++)
			if (out[i])
				fclose(out[i]);
		return STAT_EXIT_USAGE;
	}
	ret = stat_measure(&x->o, &x->s, &x->sys, &x->r, err, sizeof(err));
	if (ret) {
		for (i = 0; i < 3; i++)
			if (out[i])
				fclose(out[i]);
		fprintf(stderr, "pmu-stat: %s\n", err);
		if (x->r.exec_errno)
			return x->r.exec_errno == ENOENT ? STAT_EXIT_NOTFOUND : STAT_EXIT_NOEXEC;
		/* A command cut short by a failed reconfiguration still has a status. */
		return x->r.elapsed_ns ? stat_exit_code(x->r.wait_status) : STAT_EXIT_SETUP;
	}
	code = stat_exit_code(x->r.wait_status);
	if (out[0])
		ret = write_file(out[0], x->o.output, "report", write_report, x);
	else
		ret = write_report(stderr, x);
	if (out[1])
		ret |= write_file(out[1], x->o.periods_file, "period file", write_periods, x);
	if (out[2])
		ret |= write_file(out[2], x->o.plot_file, "plot", write_plot, x);
	stat_periods_free(&x->r.periods);
	free(x);
	/* The workload's status wins; a report that could not be written is a failure of ours. */
	return ret && !code ? STAT_EXIT_SETUP : code;
}
