// SPDX-License-Identifier: MIT
/*
 * pmu-info: what a user needs to know before measuring: is the module there (and if not,
 * why), which access mode it grants, and per CPU the core, PMU version, counters, widths and
 * supported events.
 *
 * usage: pmu-info [--events]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmuser.h"

static const char *access_name(uint32_t mode)
{
	switch (mode) {
	case PMUSER_ACCESS_PER_THREAD: return "per-thread (granted threads only)";
	case PMUSER_ACCESS_GLOBAL: return "global (every thread; module parameter global_access=1)";
	case PMUSER_ACCESS_NONE: return "none (no per-thread switch on this kernel; load with global_access=1)";
	default: return "unknown";
	}
}

static const char *arch_name(uint32_t arch)
{
	switch (arch) {
	case PMUSER_ARCH_ARMV8_A64: return "ARMv8 AArch64 (MRS)";
	case PMUSER_ARCH_ARMV7: return "ARMv7 AArch32 (MRC c9)";
	case PMUSER_ARCH_ARMV6_1176: return "ARMv6 ARM1176 (MRC c15)";
	default: return "none";
	}
}

/* Lists the core's known events; with all, also the ones its PMCEID says it lacks. */
static void print_events(const struct pmuser_cpu_info *ci, int all)
{
	const struct pmuser_event_table *tables[PMUSER_CORE_TABLES];
	unsigned int nt = pmuser_core_tables(ci->midr, tables), t;
	size_t i, col = 0;

	for (t = 0; t < nt; t++) {
		for (i = 0; i < tables[t]->nr_events; i++) {
			const struct pmuser_event *ev = &tables[t]->events[i];
			int ok = pmuser_event_supported(ci, ev->number);

			if (!ok && !all)
				continue;
			col += printf("%s%s(0x%x)%s", col ? " " : "      ", ev->name, ev->number,
				      ok ? "" : "[unsupported]");
			if (col > 90) {
				putchar('\n');
				col = 0;
			}
		}
	}
	if (col)
		putchar('\n');
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pmuser_info info;
	int all_events = 0, fd, ret, c;
	unsigned int cpu;

	while ((c = getopt_long(argc, argv, "eh", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			all_events = 1;
			break;
		case 'h':
			printf("usage: %s [--events]\n  --events  list every known event, marking the unsupported ones\n",
			       argv[0]);
			return 0;
		default:
			fprintf(stderr, "usage: %s [--events]\n", argv[0]);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
		return 2;
	}

	fd = pmuser_device_open();
	if (fd < 0) {
		printf("module:   not available: %s: %s%s\n", PMUSER_DEVICE, strerror(-fd),
		       fd == -ENOENT ? " (insmod pmuser.ko)" :
		       fd == -EACCES ? " (root, or the group given by module parameter group=)" : "");
		printf("backend:  none (the perf_event_open fallback is not built yet)\n");
		return 1;
	}
	ret = pmuser_device_info(fd, &info);
	if (ret) {
		fprintf(stderr, "pmu-info: PMUSER_IOC_INFO: %s\n", strerror(-ret));
		return 1;
	}
	printf("module:   pmuser %u.%u.%u, ABI %u (this program: ABI %u)\n",
	       info.module_version >> 16, (info.module_version >> 8) & 0xff,
	       info.module_version & 0xff, info.abi_version, PMUSER_ABI_VERSION);
	printf("backend:  module, inline reads: %s\n", arch_name(info.arch));
	printf("access:   %s\n", access_name(info.access_mode));
	printf("held:     %u event counter(s)%s\n", info.nr_events,
	       info.cycles_held ? " + cycle counter" : "");
	for (cpu = 0; cpu < info.nr_cpus; cpu++) {
		struct pmuser_cpu_info ci;
		const char *core;

		ret = pmuser_device_cpu_info(fd, cpu, &ci);
		if (ret == -EINVAL)
			continue;	/* not a possible CPU */
		if (ret) {
			fprintf(stderr, "pmu-info: cpu%u: %s\n", cpu, strerror(-ret));
			return 1;
		}
		if (!ci.online) {
			printf("cpu%u:     offline\n", cpu);
			continue;
		}
		core = pmuser_core_name(ci.midr);
		printf("cpu%u:     %s (MIDR 0x%08x), PMU version %u, %u counters x %u bits + %u-bit cycle counter, user-enable 0x%x, held 0x%x\n",
		       cpu, core ? core : "unknown core", ci.midr, ci.pmu_version,
		       ci.nr_counters, ci.counter_bits, ci.cycle_bits, ci.user_enable,
		       ci.held_mask);
		/* Same core as the previous CPU: its events were listed already. */
		if (cpu == 0 || all_events) {
			printf("  events%s:\n", ci.pmceid_source == PMUSER_PMCEID_HW ?
			       " (PMCEID)" : " (core table; no PMCEID register)");
			print_events(&ci, all_events);
		}
	}
	close(fd);
	return 0;
}
