// SPDX-License-Identifier: MIT
/*
 * Presets: the measurement sets of the seed's pe_cortex_a72 (instructions, data access, TLB,
 * branch) plus stalls, with their derived metrics. Slots name events by architectural
 * mnemonic with the ARM1176 spelling as the alternative, so one preset serves every core.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pmuser_internal.h"

#define INSTRUCTIONS	{ "Instructions", "INST_RETIRED|INSTR_EXEC" }
#define PCT		100.0, "%"
#define PTI		1000.0, "PTI"

static const struct pmuser_preset presets[] = {
	{
		.name = "default",
		.summary = "instructions, branches, L1D cache: IPC, mispredict and miss ratios",
		.slot = { INSTRUCTIONS, { "Branches", "BR_PRED|BR_EXEC" },
			  { "Mispredicted branches", "BR_MIS_PRED|BR_MISPREDICT" },
			  { "L1D accesses", "L1D_CACHE|DCACHE_ACCESS" },
			  { "L1D refills", "L1D_CACHE_REFILL|DCACHE_MISS" } },
		.nr_slots = 5,
		.metric = { { "IPC", 0, PMUSER_METRIC_CYCLES, 1.0, "" },
			    { "Branch mispredict ratio", 2, 1, PCT },
			    { "L1D miss ratio", 4, 3, PCT },
			    { "L1D refill rate", 4, 0, PTI } },
		.nr_metrics = 4,
	},
	{
		.name = "instructions",
		.summary = "retired and speculated instructions: IPC, retired/speculated",
		.slot = { INSTRUCTIONS, { "Speculated instructions", "INST_SPEC" } },
		.nr_slots = 2,
		.metric = { { "IPC", 0, PMUSER_METRIC_CYCLES, 1.0, "" },
			    { "Retired/speculated ratio", 0, 1, 1.0, "" } },
		.nr_metrics = 2,
	},
	{
		.name = "data",
		.summary = "L1D and L2 accesses and refills: miss ratios and rates",
		.slot = { INSTRUCTIONS, { "L1D accesses", "L1D_CACHE|DCACHE_ACCESS" },
			  { "L1D refills", "L1D_CACHE_REFILL|DCACHE_MISS" },
			  { "L2 accesses", "L2D_CACHE" }, { "L2 refills", "L2D_CACHE_REFILL" } },
		.nr_slots = 5,
		.metric = { { "L1D miss ratio", 2, 1, PCT }, { "L2 miss ratio", 4, 3, PCT },
			    { "L1D refill rate", 2, 0, PTI }, { "L2 refill rate", 4, 0, PTI } },
		.nr_metrics = 4,
	},
	{
		.name = "tlb",
		.summary = "instruction, data and main TLB refills per thousand instructions",
		.slot = { INSTRUCTIONS, { "L1I TLB refills", "L1I_TLB_REFILL|ITLB_MISS" },
			  { "L1D TLB refills", "L1D_TLB_REFILL|DTLB_MISS" },
			  { "L2 TLB refills", "L2D_TLB_REFILL|MAIN_TLB_MISS" } },
		.nr_slots = 4,
		.metric = { { "L1I TLB refill rate", 1, 0, PTI },
			    { "L1D TLB refill rate", 2, 0, PTI },
			    { "L2 TLB refill rate", 3, 0, PTI } },
		.nr_metrics = 3,
	},
	{
		.name = "branch",
		.summary = "predicted and mispredicted branches: mispredict ratio and rates",
		.slot = { INSTRUCTIONS, { "Branches", "BR_PRED|BR_EXEC" },
			  { "Mispredicted branches", "BR_MIS_PRED|BR_MISPREDICT" } },
		.nr_slots = 3,
		.metric = { { "Branch mispredict ratio", 2, 1, PCT },
			    { "Branch rate", 1, 0, PTI },
			    { "Mispredict rate", 2, 0, PTI } },
		.nr_metrics = 3,
	},
	{
		.name = "stalls",
		.summary = "front-end and back-end stall cycles as a share of all cycles",
		.slot = { INSTRUCTIONS, { "Front-end stall cycles", "STALL_FRONTEND|IBUF_STALL" },
			  { "Back-end stall cycles", "STALL_BACKEND|DDEP_STALL" } },
		.nr_slots = 3,
		.metric = { { "IPC", 0, PMUSER_METRIC_CYCLES, 1.0, "" },
			    { "Front-end stalled", 1, PMUSER_METRIC_CYCLES, PCT },
			    { "Back-end stalled", 2, PMUSER_METRIC_CYCLES, PCT } },
		.nr_metrics = 3,
	},
};

#define NR_PRESETS (sizeof(presets) / sizeof(presets[0]))

unsigned int pmuser_presets(const struct pmuser_preset **list)
{
	*list = presets;
	return NR_PRESETS;
}

const struct pmuser_preset *pmuser_preset_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < NR_PRESETS; i++)
		if (!strcasecmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

/* The first of the '|'-separated alternatives the core knows, or NULL. */
static const struct pmuser_event *slot_event(const char *alternatives, uint32_t midr)
{
	const struct pmuser_event *ev;
	char name[64];
	const char *p = alternatives, *bar;

	while (*p) {
		size_t len;

		bar = strchr(p, '|');
		len = bar ? (size_t)(bar - p) : strlen(p);
		if (len < sizeof(name)) {
			memcpy(name, p, len);
			name[len] = '\0';
			if (!pmuser_event_lookup(midr, name, &ev))
				return ev;
		}
		p += len + (bar ? 1 : 0);
	}
	return NULL;
}

int pmuser_preset_attr(const struct pmuser_preset *p, uint32_t midr,
		       const struct pmuser_cpu_info *ci, struct pmuser_counters_attr *attr)
{
	unsigned int i;

	attr->flags |= PMUSER_COUNTERS_CYCLES;
	attr->nr_events = 0;
	for (i = 0; i < p->nr_slots; i++) {
		const struct pmuser_event *ev = slot_event(p->slot[i].events, midr);
		struct pmuser_evspec_entry *e;

		if (!ev || (ci && !pmuser_event_supported(ci, ev->number)))
			continue;
		e = &attr->events[attr->nr_events++];
		e->event = ev->number;
		e->flags = PMUSER_COUNT_USER;
		e->name = ev->name;
	}
	return attr->nr_events ? 0 : -ENOENT;
}

/* The counter holding slot s (by event name), or -1. */
static int slot_counter(const struct pmuser_preset *p, int s, const struct pmuser_counters *c)
{
	unsigned int i;

	if (s == PMUSER_METRIC_CYCLES)
		return c->nr && c->ctr[0].is_cycles && c->ctr[0].supported ? 0 : -1;
	for (i = 0; i < c->nr; i++) {
		const char *alt = p->slot[s].events, *hit;
		size_t len = strlen(c->ctr[i].name);

		if (c->ctr[i].is_cycles || !c->ctr[i].supported)
			continue;
		/* A whole alternative: bounded by the string's ends or '|'. */
		for (hit = strcasestr(alt, c->ctr[i].name); hit; hit = strcasestr(hit + 1, c->ctr[i].name))
			if ((hit == alt || hit[-1] == '|') && (hit[len] == '\0' || hit[len] == '|'))
				return (int)i;
	}
	return -1;
}

double pmuser_metric_eval(const struct pmuser_preset *p, const struct pmuser_metric *m,
			  const struct pmuser_counters *c, const struct pmuser_count counts[])
{
	int n = slot_counter(p, m->num, c), d = slot_counter(p, m->den, c);
	double den;

	if (n < 0 || d < 0)
		return NAN;
	den = pmuser_count_scaled(&counts[d]);
	if (den == 0.0)
		return NAN;
	return m->scale * pmuser_count_scaled(&counts[n]) / den;
}

const char *pmuser_fmt_count(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%'.0f", v);
	return buf;
}

static void print_count(FILE *f, const char *label, const struct pmuser_count *cnt)
{
	char raw[32], scaled[32];

	fprintf(f, "  %-26s %16s", label, pmuser_fmt_count(raw, sizeof(raw), (double)cnt->value));
	if (cnt->running < cnt->enabled)
		fprintf(f, "  [%s]  (%.1f%% of the time)",
			pmuser_fmt_count(scaled, sizeof(scaled), pmuser_count_scaled(cnt)),
			100.0 * (double)cnt->running / (double)cnt->enabled);
	fputc('\n', f);
}

void pmuser_counters_print(FILE *f, const struct pmuser_counters *c,
			   const struct pmuser_count counts[])
{
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		const char *name = c->ctr[i].name;

		if (c->ctr[i].supported)
			print_count(f, name, &counts[i]);
		else
			fprintf(f, "  %-26s %16s\n", name, "not supported by this PMU");
	}
}

void pmuser_preset_print(FILE *f, const struct pmuser_preset *p, const struct pmuser_counters *c,
			 const struct pmuser_count counts[])
{
	unsigned int i;
	int k;

	fprintf(f, "Preset %s: %s\n", p->name, p->summary);
	fprintf(f, "  [ ... ] = scaled to the whole run (multiplexed)\n");
	fprintf(f, "  PTI     = per thousand instructions\n\n");
	k = slot_counter(p, PMUSER_METRIC_CYCLES, c);
	if (k >= 0)
		print_count(f, c->backend == PMUSER_BACKEND_CLOCK ? "Time (ns)" : "Cycles", &counts[k]);
	for (i = 0; i < p->nr_slots; i++) {
		k = slot_counter(p, (int)i, c);
		if (k >= 0)
			print_count(f, p->slot[i].label, &counts[k]);
		else
			fprintf(f, "  %-26s %16s\n", p->slot[i].label, "not supported by this PMU");
	}
	fputc('\n', f);
	for (i = 0; i < p->nr_metrics; i++) {
		const struct pmuser_metric *m = &p->metric[i];
		double v = pmuser_metric_eval(p, m, c, counts);

		if (isnan(v))
			fprintf(f, "  %-26s %16s\n", m->label, "n/a");
		else
			fprintf(f, "  %-26s %16.3f %s\n", m->label, v, m->unit);
	}
}
