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

/*
 * The common events arm64 perf lists for its PMU in sysfs: it shows an event there only if
 * the CPU's PMCEID registers report it, so this is PMCEID read without the module. ARMv7 and
 * ARM1176 lists are fixed tables: false there (and when nothing is listed).
 */
static bool pmceid_from_sysfs(__u64 pmceid[2])
{
	const char *base = "/sys/bus/event_source/devices";
	char path[1024], line[64];
	DIR *d = opendir(base), *ev;
	struct dirent *de, *e;
	unsigned int n;
	bool found = false;
	FILE *f;

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (strncmp(de->d_name, "armv8", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s/events", base, de->d_name);
		ev = opendir(path);
		if (!ev)
			continue;
		while ((e = readdir(ev))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/events/%s", base, de->d_name, e->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(line, sizeof(line), f) && sscanf(line, "event=%x", &n) == 1) {
				if (n < 0x40)
					pmceid[0] |= 1ULL << n;
				else if (n >= 0x4000 && n < 0x4040)
					pmceid[1] |= 1ULL << (n - 0x4000);
				found = true;
			}
			fclose(f);
		}
		closedir(ev);
	}
	closedir(d);
	return found;
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
	sys->have_pmceid = sys->have_cpu_info &&
			   sys->cpu_info.pmceid_source == PMUSER_PMCEID_HW;
	if (!sys->have_pmceid && !sys->have_cpu_info &&
	    pmceid_from_sysfs(sys->cpu_info.pmceid)) {
		sys->cpu_info.pmceid_source = PMUSER_PMCEID_HW;
		sys->have_pmceid = true;
	}
	if (!sys->pmu[0])
		pmu_from_sysfs(sys->pmu, sizeof(sys->pmu));
	if (!sys->pmu[0])
		snprintf(sys->pmu, sizeof(sys->pmu), "none found (no ARM PMU in perf, no %s)",
			 PMUSER_DEVICE);
}

bool stat_sys_has_cpu(const struct stat_sys *sys, int cpu)
{
	unsigned int i;

	for (i = 0; i < sys->nr_cpu; i++)
		if (sys->cpu[i].cpu == cpu)
			return true;
	return false;
}

uint32_t stat_sys_midr(const struct stat_sys *sys)
{
	unsigned int i;

	for (i = 0; i < sys->nr_cpu; i++)
		if (sys->cpu[i].midr)
			return sys->cpu[i].midr;
	return 0;
}
