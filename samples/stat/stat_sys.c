// SPDX-License-Identifier: MIT
/*
 * System information for pmu-stat's report: CPUs and their MIDRs (from the pmuser device
 * when it is loaded, else sysfs or /proc/cpuinfo), the PMU, the machine; the mode perf counts
 * events in by default for this process; the threads of -p's processes.
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

int stat_online_cpus(int *cpus, unsigned int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char line[256];
	int n = -ENOENT;

	if (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		n = stat_parse_cpus(line, cpus, max);
	}
	if (f)
		fclose(f);
	return n;
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

/* ---- the default mode --------------------------------------------------------------------- */

const char *stat_mode_suffix(uint32_t mode)
{
	switch (mode & PMUSER_COUNT_MASK) {
	case PMUSER_COUNT_KERNEL: return "k";
	case PMUSER_COUNT_MASK: return "uk";
	default: return "u";
	}
}

/* The effective capabilities (CapEff of /proc/self/status), 0 if unknown. */
static uint64_t effective_caps(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long caps = 0;
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps;
}

#define CAP_BIT_SYS_ADMIN	21
#define CAP_BIT_PERFMON		38

uint32_t stat_default_mode(char *why, size_t len)
{
	uint64_t caps = effective_caps();
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int paranoid = 0;
	bool known = f && fscanf(f, "%d", &paranoid) == 1;

	if (f)
		fclose(f);
	/* The kernel's rule for counting kernel mode (perf_allow_kernel()), which perf follows. */
	if (caps & (1ULL << CAP_BIT_PERFMON | 1ULL << CAP_BIT_SYS_ADMIN)) {
		snprintf(why, len, "user and kernel, as perf counts them (this process has %s)",
			 caps & 1ULL << CAP_BIT_PERFMON ? "CAP_PERFMON" : "CAP_SYS_ADMIN");
		return PMUSER_COUNT_MASK;
	}
	if (known && paranoid <= 1) {
		snprintf(why, len, "user and kernel, as perf counts them (perf_event_paranoid %d)",
			 paranoid);
		return PMUSER_COUNT_MASK;
	}
	/* perf reads an unknown level as the strictest. */
	if (known)
		snprintf(why, len, "user only, as perf falls back to :u: perf_event_paranoid %d and no CAP_PERFMON or CAP_SYS_ADMIN keep kernel mode from this user",
			 paranoid);
	else
		snprintf(why, len, "user only, as perf falls back to :u: perf_event_paranoid cannot be read and this process has no CAP_PERFMON or CAP_SYS_ADMIN");
	return PMUSER_COUNT_USER;
}

/* ---- -p and -t ---------------------------------------------------------------------------- */

int stat_threads(pid_t pid, pid_t *tids, unsigned int max)
{
	char path[64];
	struct dirent *e;
	unsigned int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((e = readdir(d))) {
		long tid = strtol(e->d_name, NULL, 10);

		if (tid <= 0)
			continue;
		if (n == max) {
			closedir(d);
			return -E2BIG;
		}
		tids[n++] = (pid_t)tid;
	}
	closedir(d);
	return n ? (int)n : -ESRCH;
}

void stat_thread_comm(pid_t tid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	f = fopen(path, "re");
	if (!f || !fgets(buf, (int)len, f))
		snprintf(buf, len, "?");
	else
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

unsigned int stat_set_counters(const struct pmuser_cpu_info *ci)
{
	if (ci->el0_flags & PMUSER_CPU_EL0_CYCLES_OFF_PMCCNTR && ci->nr_counters)
		return ci->nr_counters - 1;
	return ci->nr_counters;
}
