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

/* arm64 publishes each CPU's MIDR_EL1 in sysfs. */
static uint32_t midr_sysfs(int cpu)
{
	char path[96];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/regs/identification/midr_el1",
		 cpu);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llx", &v) != 1)
		v = 0;
	fclose(f);
	return (uint32_t)v;
}

/*
 * 32-bit ARM: /proc/cpuinfo spells the MIDR out field by field. The first processor's is
 * taken for every CPU (big.LITTLE 32-bit boards are rare; the device gives exact values).
 */
static uint32_t midr_cpuinfo(void)
{
	unsigned int impl = 0, variant = 0, arch = 0, part = 0, rev = 0, seen = 0;
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && seen != 0x1f) {
		char *colon = strchr(line, ':');
		unsigned int v;

		if (!colon)
			continue;
		if (sscanf(colon + 1, " %i", &v) != 1)
			continue;
		if (!strncmp(line, "CPU implementer", 15) && !(seen & 1))
			impl = v, seen |= 1;
		else if (!strncmp(line, "CPU variant", 11) && !(seen & 2))
			variant = v, seen |= 2;
		else if (!strncmp(line, "CPU architecture", 16) && !(seen & 4))
			arch = v, seen |= 4;
		else if (!strncmp(line, "CPU part", 8) && !(seen & 8))
			part = v, seen |= 8;
		else if (!strncmp(line, "CPU revision", 12) && !(seen & 16))
			rev = v, seen |= 16;
	}
	fclose(f);
	if (!(seen & 1) || !(seen & 8))
		return 0;
	/* "CPU architecture: 7" means the CPUID scheme (architecture field 0xf). */
	arch = arch >= 7 ? 0xf : arch;
	return impl << 24 | (variant & 0xf) << 20 | (arch & 0xf) << 16 | (part & 0xfff) << 4 |
	       (rev & 0xf);
}

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
	uint32_t fallback_midr = 0;
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
		c->midr = midr_sysfs(cpu);
		if (!c->midr) {
			if (!fallback_midr)
				fallback_midr = midr_cpuinfo();
			c->midr = fallback_midr;
		}
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
