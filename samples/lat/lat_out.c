// SPDX-License-Identifier: MIT
/* Output helpers for pmu-lat and pmu-sweep; see lat_out.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lat_buf.h"
#include "lat_out.h"
#include "lat_timer.h"

int lat_format_parse(const char *s, enum lat_format *out)
{
	static const char *const names[] = { "text", "csv", "json" };

	for (unsigned int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum lat_format)i;
			return 0;
		}
	return -EINVAL;
}

uint32_t lat_cpu_midr(int cpu)
{
	char path[96], buf[32];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/regs/identification/midr_el1",
		 cpu < 0 ? 0 : cpu);
	if (lat_read_line(path, buf, sizeof(buf)))
		return 0;
	return (uint32_t)strtoull(buf, NULL, 16);
}

int lat_warn_system(FILE *f, const char *tool, int cpu)
{
	char path[96], buf[64], first_freq[64] = "";
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	uint32_t midr0 = 0;
	int warned = 0, differ = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
		 cpu < 0 ? 0 : cpu);
	if (!lat_read_line(path, buf, sizeof(buf)) && strcmp(buf, "performance")) {
		fprintf(f, "%s: warning: CPU %d runs the '%s' cpufreq governor: cycles per load "
			"hold, ns per load follow the clock (use 'performance' for stable ns)\n",
			tool, cpu, buf);
		warned++;
	}
	for (long i = 0; i < ncpu && i < 4096; i++) {
		uint32_t m = lat_cpu_midr((int)i);

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/cpufreq/cpuinfo_max_freq", i);
		if (!lat_read_line(path, buf, sizeof(buf))) {
			if (!first_freq[0])
				snprintf(first_freq, sizeof(first_freq), "%s", buf);
			else if (strcmp(first_freq, buf))
				differ = 1;
		}
		/* An offline CPU shows no MIDR: only the cores that do are compared. */
		if (!m)
			continue;
		if (!midr0)
			midr0 = m;
		else if (m != midr0)
			differ = 1;
	}
	if (differ) {
		fprintf(f, "%s: warning: the cores differ (MIDR or maximum frequency): results are for "
			"CPU %d only; measure others with --pin-cpus\n", tool, cpu);
		warned++;
	}
	return warned;
}

void lat_progress_init(struct lat_progress *p, const char *tool)
{
	p->tool = tool;
	p->t0 = now_ns(CLOCK_MONOTONIC);
	p->shown = false;
	p->tty = isatty(STDERR_FILENO);
}

void lat_progress(struct lat_progress *p, const char *fmt, ...)
{
	va_list ap;

	if (now_ns(CLOCK_MONOTONIC) - p->t0 < 2000000000ULL)
		return;
	fprintf(stderr, "%s%s: ", p->tty ? "\r\033[K" : "", p->tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (!p->tty)
		fputc('\n', stderr);
	p->shown = true;
}

void lat_progress_done(struct lat_progress *p)
{
	if (p->shown && p->tty)
		fputc('\n', stderr);
}

const char *lat_predicted(char *buf, size_t len, double pred, const char *none)
{
	if (pred > 0)
		snprintf(buf, len, "%g", pred);
	else
		snprintf(buf, len, "%s", none);
	return buf;
}
