// SPDX-License-Identifier: MIT
/*
 * System information for pmu-stat's report: CPUs and their MIDRs (from the pmuser device
 * when it is loaded, else sysfs or /proc/cpuinfo), the PMU, the machine.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "stat.h"

/* The perf PMU of the CPU, by its event source name ("armv8_cortex_a72", "armv7_cortex_a15"). */
static void pmu_from_sysfs(char *buf, size_t len)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *de;

	buf[0] = '\0';
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strncmp(de->d_name, "armv", 4) || !strncmp(de->d_name, "arm1176", 7) ||
		    !strncmp(de->d_name, "arm_", 4)) {
			snprintf(buf, len, "perf PMU %.100s", de->d_name);
			break;
		}
	}
	closedir(d);
}

void stat_sys_collect(struct stat_sys *sys)
{
	cpu_set_t set;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	struct utsname u;
	int fd, cpu;

	memset(sys, 0, sizeof(*sys));
	sys->nr_online = online > 0 ? (unsigned int)online : 1;
	if (!uname(&u))
		snprintf(sys->machine, sizeof(sys->machine), "%.60s", u.machine);
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		CPU_SET(0, &set);
	fd = pmuser_device_open();
	sys->have_device = fd >= 0;
	for (cpu = 0; cpu < STAT_MAX_CPUS; cpu++) {
		struct stat_cpu *c;
		struct pmuser_cpu_info ci;

		if (!CPU_ISSET(cpu, &set))
			continue;
		c = &sys->cpu[sys->nr_cpu++];
		c->cpu = cpu;
		if (fd >= 0 && !pmuser_device_cpu_info(fd, (unsigned int)cpu, &ci) && ci.online) {
			c->midr = ci.midr;
			if (!sys->have_cpu_info) {
				sys->cpu_info = ci;
				sys->have_cpu_info = true;
			}
			if (!sys->pmu[0])
				snprintf(sys->pmu, sizeof(sys->pmu),
					 "PMU version %u, %u event counters x %u bits + %u-bit cycle counter%s",
					 ci.pmu_version, ci.nr_counters, ci.counter_bits,
					 ci.cycle_bits,
					 ci.pmceid_source == PMUSER_PMCEID_HW ? ", events per PMCEID" : "");
			continue;
		}
		c->midr = pmuser_cpu_midr(cpu);
	}
	if (fd >= 0)
		close(fd);
	if (!sys->pmu[0])
		pmu_from_sysfs(sys->pmu, sizeof(sys->pmu));
	if (!sys->pmu[0])
		snprintf(sys->pmu, sizeof(sys->pmu), "none found (no ARM PMU in perf, no %s)",
			 PMUSER_DEVICE);
}

uint32_t stat_sys_midr(const struct stat_sys *sys)
{
	unsigned int i;

	for (i = 0; i < sys->nr_cpu; i++)
		if (sys->cpu[i].midr)
			return sys->cpu[i].midr;
	return 0;
}
