/* SPDX-License-Identifier: MIT */
/* Shared by pmu-lat and pmu-sweep: system warnings, progress and JSON strings. */
#ifndef PMUSER_LAT_OUT_H
#define PMUSER_LAT_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum lat_format { LAT_TEXT, LAT_CSV, LAT_JSON };

int lat_format_parse(const char *s, enum lat_format *out);

/* The MIDR of cpu from sysfs (arm64), or 0 when unknown. */
uint32_t lat_cpu_midr(int cpu);

/*
 * Prints "warning: ..." lines to f about what makes latencies unstable or unrepresentative:
 * a cpufreq governor other than performance on cpu, and cores that differ (MIDR or maximum
 * frequency). Returns how many warnings it printed.
 */
int lat_warn_system(FILE *f, const char *tool, int cpu);

/* Progress on stderr, shown once a run has taken more than a couple of seconds. */
struct lat_progress {
	const char *tool;
	uint64_t t0;
	bool shown, tty;
};

void lat_progress_init(struct lat_progress *p, const char *tool);
void lat_progress(struct lat_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void lat_progress_done(struct lat_progress *p);

/*
 * An icount prediction (lat_predict_single(), lat_predict_loop()) as text in buf: the number,
 * or none when there is no prediction (0).
 */
const char *lat_predicted(char *buf, size_t len, double pred, const char *none);

#endif
