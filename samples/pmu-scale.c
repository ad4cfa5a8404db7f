// SPDX-License-Identifier: MIT
/*
 * pmu-scale: what the module's per-call costs come to on this machine's CPU count. Times
 * CONFIGURE (cycles and INST_RETIRED on every CPU), RELEASE, GRANT with REVOKE, and CPU_INFO
 * of every CPU, as means over repeated calls on the clock, and prints one line:
 *   cpus=N configure_us=... release_us=... grant_us=... cpu_info_us=... page_bytes=...
 * cpu_info_us is one call's mean (the loop asks each online CPU in turn).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmuser.h"
#include "pmuser_now.h"
#include "tool_opts.h"

static double now_us(void)
{
	return (double)now_ns(CLOCK_MONOTONIC) / 1e3;
}

static int fail(const char *what, unsigned long request, int err)
{
	char why[256];

	fprintf(stderr, "pmu-scale: %s: %s\n", what,
		pmuser_device_why(request, err, why, sizeof(why)));
	return 1;
}

int main(int argc, char **argv)
{
	static uint64_t reps = 20;
	static const struct tool_opt opts[] = {
		{ "repeat", 'r', "N", "calls of each kind to average (default 20)",
		  TOOL_OPT_NUMBER, 1, 100000, .value = &reps },
		{ NULL }
	};
	static const struct tool_cli cli = {
		.tool = "pmu-scale", .opts = opts,
		.about = "Times the module's CONFIGURE (on every CPU), RELEASE, GRANT+REVOKE and\n"
			 "CPU_INFO calls, as means in microseconds, and prints one line.",
	};
	double t, configure = 0, release = 0, grant = 0, cpu_info = 0;
	struct pmuser_config cfg;
	struct pmuser_cpu_info ci;
	struct pmuser_info info;
	unsigned int online = 0, cpu, asked = 0;
	uint64_t i;
	int fd, ret, first;

	ret = tool_parse(&cli, argc, argv, &first);
	if (ret >= 0)
		return ret;
	fd = pmuser_device_open();
	if (fd < 0) {
		fprintf(stderr, "pmu-scale: %s: %s\n", PMUSER_DEVICE, strerror(-fd));
		return 1;
	}
	ret = pmuser_device_info(fd, &info);
	if (ret)
		return fail("PMUSER_IOC_INFO", PMUSER_IOC_INFO, ret);
	for (cpu = 0; cpu < info.nr_cpus; cpu++)
		if (!pmuser_device_cpu_info(fd, cpu, &ci) && ci.online)
			online++;
	for (i = 0; i < reps; i++) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.flags = PMUSER_CONFIG_CYCLES;
		cfg.cycle_flags = PMUSER_COUNT_USER;
		cfg.nr_events = 1;
		cfg.events[0].event = 0x08;	/* INST_RETIRED */
		cfg.events[0].flags = PMUSER_COUNT_USER;
#if defined(PMUSER_FAST_V6)
		cfg.cycle_flags = cfg.events[0].flags = PMUSER_COUNT_MASK;
#endif
		t = now_us();
		ret = pmuser_device_configure(fd, &cfg);
		configure += now_us() - t;
		if (ret)
			return fail("PMUSER_IOC_CONFIGURE", PMUSER_IOC_CONFIGURE, ret);
		t = now_us();
		ret = pmuser_device_grant(fd, 0);
		if (!ret)
			ret = pmuser_device_revoke(fd, 0);
		grant += now_us() - t;
		if (ret)
			return fail("PMUSER_IOC_GRANT", PMUSER_IOC_GRANT, ret);
		for (cpu = 0; cpu < info.nr_cpus; cpu++) {
			t = now_us();
			ret = pmuser_device_cpu_info(fd, cpu, &ci);
			cpu_info += now_us() - t;
			if (ret)
				return fail("PMUSER_IOC_CPU_INFO", PMUSER_IOC_CPU_INFO, ret);
			asked++;
		}
		t = now_us();
		ret = pmuser_device_release(fd);
		release += now_us() - t;
		if (ret)
			return fail("PMUSER_IOC_RELEASE", PMUSER_IOC_RELEASE, ret);
	}
	printf("cpus=%u configure_us=%.1f release_us=%.1f grant_us=%.1f cpu_info_us=%.1f page_bytes=%u\n",
	       online, configure / (double)reps, release / (double)reps, grant / (double)reps,
	       cpu_info / (double)asked, info.page_size);
	close(fd);
	return 0;
}
