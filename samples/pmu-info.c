// SPDX-License-Identifier: MIT
/*
 * pmu-info: what a user needs to know before measuring: is the module there (and if not,
 * why), which access mode it grants, and per CPU the core, PMU version, counters, widths and
 * supported events.
 *
 * usage: pmu-info [--events] [--presets]
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmuser.h"
#include "tool_opts.h"

/* What this user may do, and which rule says so (pmuser(7), "Privilege"). */
static void print_rights(uint32_t r, bool writes)
{
	printf("you may:  count user mode CPU-wide: %s\n",
	       !(r & PMUSER_RIGHT_COUNT) ? "no (needs perf_event_paranoid <= 0 or CAP_PERFMON, or the device's group with the module's group_user_counting=1)" :
	       r & PMUSER_RIGHT_BY_GROUP ? "yes (the device's group, group_user_counting=1)" :
	       "yes (perf's rule: perf_event_paranoid <= 0 or CAP_PERFMON)");
	printf("          count kernel mode: %s\n", r & PMUSER_RIGHT_KERNEL ? "yes (perf's rule)" :
	       "no (needs perf_event_paranoid <= 1 or CAP_PERFMON)");
	if (writes)
		printf("          be granted reads that can write the PMU: %s\n",
		       r & PMUSER_RIGHT_PROGRAM ? "yes (CAP_PERFMON)" : "no (needs CAP_PERFMON)");
}

static const char *access_name(uint32_t mode)
{
	switch (mode) {
	case PMUSER_ACCESS_PER_THREAD: return "per-thread (granted threads only)";
	case PMUSER_ACCESS_GLOBAL: return "global (every thread; module parameter global_access=1)";
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

/* Whether PMCEID describes event number (the common events and their 0x4000 extension). */
static int in_pmceid(uint32_t number)
{
	return number < 0x40 || (number >= 0x4000 && number < 0x4040);
}

/*
 * Lists the core's known events: those PMCEID describes (with all, also the ones it says the
 * core lacks), then the implementation-defined ones, which only the core's table vouches for.
 */
static void print_events(const struct pmuser_cpu_info *ci, int all)
{
	const struct pmuser_event_table *tables[PMUSER_CORE_TABLES];
	unsigned int nt = pmuser_core_tables(ci->midr, tables), t, pass;
	size_t i, col;

	for (pass = 0; pass < 2; pass++) {
		if (pass == 1 && ci->pmceid_source == PMUSER_PMCEID_HW)
			printf("    not described by PMCEID (from the core's table):\n");
		col = 0;
		for (t = 0; t < nt; t++) {
			for (i = 0; i < tables[t]->nr_events; i++) {
				const struct pmuser_event *ev = &tables[t]->events[i];
				int ok = pmuser_event_supported(ci, ev->number);
				int described = ci->pmceid_source == PMUSER_PMCEID_HW &&
						in_pmceid(ev->number);

				if ((pass == 0) != (described || ci->pmceid_source != PMUSER_PMCEID_HW))
					continue;
				if (!ok && !all)
					continue;
				col += printf("%s%s(0x%x)%s", col ? " " : "      ", ev->name,
					      ev->number, ok ? "" : "[unsupported]");
				if (col > 90) {
					putchar('\n');
					col = 0;
				}
			}
		}
		if (col)
			putchar('\n');
	}
}

/* Which backend a counting program would get here, and why the better ones were not taken. */
static void print_backend(void)
{
	struct pmuser_counters_attr attr;
	struct pmuser_counters *c;
	char why[512];
	int ret;

	pmuser_counters_attr_init(&attr);
	attr.flags = PMUSER_COUNTERS_CYCLES;
	ret = pmuser_counters_open(&attr, &c, why, sizeof(why));
	if (ret) {
		printf("backend:  none: %s (%s)\n", strerror(-ret), why);
		return;
	}
	printf("backend:  %s%s; timer: %s\n", pmuser_backend_name(pmuser_counters_backend(c)),
	       getenv("PMUSER_BACKEND") ? " (from PMUSER_BACKEND)" : "", pmuser_counters_timer(c));
	if (why[0])
		printf("          not taken: %s\n", why);
	pmuser_counters_close(c);
}

/* Without the module: what perf and sysfs say. */
static void print_without_module(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF), cpu;

	print_backend();
	for (cpu = 0; cpu < n; cpu++) {
		uint32_t midr = pmuser_cpu_midr((int)cpu);
		const char *core = midr ? pmuser_core_name(midr) : NULL;

		if (midr)
			printf("cpu%ld:     %s (MIDR 0x%08x)\n", cpu, core ? core : "unknown core",
			       midr);
	}
}

/* The metrics a preset yields when every slot is counted, whichever alternative a core has. */
static void print_preset_metrics(const struct pmuser_preset *p)
{
	static char names[PMUSER_PRESET_SLOTS * 4][48];
	struct pmuser_value v[PMUSER_PRESET_SLOTS * 4 + 1];
	struct pmuser_metric_value m[128];
	size_t nv = 0, nm, i, k;
	unsigned int s;

	v[nv++] = (struct pmuser_value){ PMUSER_METRIC_CYCLES, 1.0 };
	for (s = 0; s < p->nr_slots; s++) {
		const char *alt = p->slot[s].events;

		while (*alt && nv < sizeof(v) / sizeof(v[0])) {
			size_t len = strcspn(alt, "|");

			snprintf(names[nv - 1], sizeof(names[0]), "%.*s", (int)len, alt);
			v[nv] = (struct pmuser_value){ names[nv - 1], 1.0 };
			nv++;
			alt += len + (alt[len] == '|');
		}
	}
	nm = pmuser_metrics_eval(v, nv, m, sizeof(m) / sizeof(m[0]));
	printf("                metrics: ");
	for (i = 0; i < nm; i++) {
		/* Per-event metrics (rates) once, by their definition. */
		for (k = 0; k < i && m[k].metric != m[i].metric; k++)
			;
		if (k < i)
			continue;
		if (!strcmp(m[i].metric->num, PMUSER_METRIC_EACH))
			printf("%seach event's %s (%s)", i ? ", " : "", m[i].metric->label,
			       m[i].metric->unit);
		else
			printf("%s%s", i ? ", " : "", m[i].label);
	}
	putchar('\n');
}

static void print_presets(void)
{
	const struct pmuser_preset *list;
	unsigned int n = pmuser_presets(&list), i, k;

	printf("presets (pmu-stat --preset NAME): one line per group of events, counted in one set when\n"
	       "counters are time-shared; A|B is the first of A and B the core has\n");
	for (i = 0; i < n; i++) {
		printf("  %-13s %s", list[i].name, list[i].summary);
		for (k = 0; k < list[i].nr_slots; k++)
			printf("%s%s", k && list[i].slot[k].group == list[i].slot[k - 1].group ?
			       ", " : "\n                ", list[i].slot[k].events);
		putchar('\n');
		print_preset_metrics(&list[i]);
	}
}

/* Without the device: why, and what this machine offers instead. */
static void print_no_module(int err, bool all_events, bool presets)
{
	if (PMUSER_FAST_ARCH == PMUSER_ARCH_NONE && err == -ENOENT)
		printf("module:   not available: pmuser is for ARM cores, not this architecture\n");
	else
		printf("module:   not available: %s: %s%s\n", PMUSER_DEVICE, strerror(-err),
		       err == -ENOENT ? " (modprobe pmuser, or insmod pmuser.ko)" :
		       err == -EACCES ? " (root, or a member of the device's group: pmuser where the "
					"udev rule is installed, or module parameter group=)" : "");
	if (all_events)
		printf("events:   not listed: the list is the module's (PMCEID read on each core); 'perf list' shows perf's\n");
	print_without_module();
	if (presets)
		print_presets();
}

/*
 * What EL0 may read on the CPU and why: the user-enable bits by name as read there now (perf
 * sets them on arm64 only while a granted thread runs), and what decides them beyond.
 */
static void print_el0(const struct pmuser_info *info, const struct pmuser_cpu_info *ci)
{
	static const char *const names[] = { "EN", "SW", "CR", "ER", "UEN" };
	unsigned int b, n = 0;

	printf("  EL0 reads: user-enable");
	for (b = 0; info->arch != PMUSER_ARCH_ARMV6_1176 && b < 5; b++)
		if (ci->user_enable & (1u << b))
			n += printf(" %s", names[b]) > 0;
	printf("%s (0x%x, as read now)", n ? "" : " none", ci->user_enable);
	if (ci->size < PMUSER_CPU_INFO_SIZE_VER1) {
		printf("; the module reports nothing more\n");
		return;
	}
	if (ci->el0_flags & PMUSER_CPU_EL0_PMUV3P9)
		printf("; PMUv3p9: PMUACR_EL1 0x%llx decides each counter while UEN is set, and perf puts there only a thread's own user-readable events",
		       (unsigned long long)ci->pmuacr);
	if (ci->el0_flags & PMUSER_CPU_EL0_CYCLES_OFF_PMCCNTR)
		printf("; perf keeps cycles off PMCCNTR on this core");
	if (ci->el0_flags & PMUSER_CPU_EL0_ICNTR)
		printf("; PMICNTR_EL0 present (perf 7.3 never lets EL0 read it)");
	printf("\n");
}

/* Each CPU's core and PMU, and each core type's events once: 0, or 1 after saying why. */
static int print_cpus(int fd, const struct pmuser_info *info, bool all_events)
{
	uint32_t listed[PMUSER_MAX_CPUS];
	unsigned int cpu, nr_listed = 0, k;
	int ret;

	for (cpu = 0; cpu < info->nr_cpus; cpu++) {
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
		print_el0(info, &ci);
		/* Events are listed once per core type (big.LITTLE systems have two). */
		for (k = 0; k < nr_listed && listed[k] != ci.midr; k++)
			;
		if (k == nr_listed) {
			listed[nr_listed++] = ci.midr;
			printf("  events of %s%s:\n", core ? core : "this core",
			       ci.pmceid_source == PMUSER_PMCEID_HW ?
			       " (PMCEID)" : " (core table; no PMCEID register)");
			print_events(&ci, all_events);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool all_events = false, presets = false;
	const struct tool_opt opts[] = {
		{ "events", 0, NULL, "list every known event, marking the unsupported ones",
		  TOOL_OPT_FLAG, .flag = &all_events },
		{ "presets", 0, NULL, "list the event presets (pmu-stat --preset, pmuser_preset_find)",
		  TOOL_OPT_FLAG, .flag = &presets },
		{ NULL },
	};
	const struct tool_cli cli = {
		.tool = "pmu-info", .opts = opts,
		.about = "Whether the module is there (and if not, why), the access it grants, and per CPU\n"
			 "the core, PMU version, counters, widths and supported events.",
	};
	struct pmuser_info info;
	int fd, ret, first;

	ret = tool_parse(&cli, argc, argv, &first);
	if (ret >= 0)
		return ret;
	fd = pmuser_device_open();
	if (fd < 0) {
		print_no_module(fd, all_events, presets);
		return 0;
	}
	ret = pmuser_device_info(fd, &info);
	if (ret) {
		fprintf(stderr, "pmu-info: PMUSER_IOC_INFO: %s\n", strerror(-ret));
		close(fd);
		return 1;
	}
	printf("module:   pmuser %u.%u.%u, ABI %u (this program: ABI %u)\n",
	       info.module_version >> 16, (info.module_version >> 8) & 0xff,
	       info.module_version & 0xff, info.abi_version, PMUSER_ABI_VERSION);
	printf("reads:    %s\n", arch_name(info.arch));
	printf("access:   %s\n", access_name(info.access_mode));
	if (info.size > offsetof(struct pmuser_info, access_flags) &&
	    (info.access_flags & PMUSER_INFO_USER_WRITES))
		printf("          access also lets user space write the PMU (stop, reset or reprogram any counter): this PMU has no read-only user enable\n");
	if (info.size >= offsetof(struct pmuser_info, rights) + sizeof(info.rights))
		print_rights(info.rights, info.access_flags & PMUSER_INFO_USER_WRITES);
	printf("held:     %u event counter(s)%s\n", info.nr_events,
	       info.cycles_held ? " + cycle counter" : "");
	ret = print_cpus(fd, &info, all_events);
	close(fd);
	if (ret)
		return ret;
	print_backend();
	if (presets)
		print_presets();
	return 0;
}
