// SPDX-License-Identifier: MIT
/*
 * Presets and metrics, the one definition for the library and pmu-stat: the measurement sets
 * of the seed's pe_cortex_a72 (instructions, data access, TLB, branch), rpistat's (default on
 * the ARM1176), cache, ipc and stalls. Slots name events by architectural mnemonic with the
 * ARM1176 spelling as the alternative, so one preset serves every core; metrics name events
 * the same way, so they apply to whatever was counted.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pmuser_internal.h"

/*
 * Slots shared by several presets. Group numbers only need to differ within a preset; the
 * default preset's order and groups make the ARM1176 come out as rpistat's four sets.
 */
#define INSTRUCTIONS_EVENTS	"INST_RETIRED|INSTR_EXEC"
#define INSTRUCTIONS(g)		{ "Instructions", INSTRUCTIONS_EVENTS, g }
#define L1D(g)			{ "L1D accesses", "L1D_CACHE|DCACHE_ACCESS", g }, \
				{ "L1D refills", "L1D_CACHE_REFILL|DCACHE_MISS", g }
#define L1I(g)			{ "L1I accesses", "L1I_CACHE", g }, \
				{ "L1I refills", "L1I_CACHE_REFILL|ICACHE_MISS", g }
#define L2(g)			{ "L2 accesses", "L2D_CACHE", g }, \
				{ "L2 refills", "L2D_CACHE_REFILL", g }
#define BRANCHES(g)		{ "Branches", "BR_PRED|BR_EXEC", g }, \
				{ "Mispredicted branches", "BR_MIS_PRED|BR_MISPREDICT", g }
#define FRONTEND_STALLS(g)	{ "Front-end stall cycles", "STALL_FRONTEND|IBUF_STALL", g }

static const struct pmuser_preset presets[] = {
	{
		.name = "default",
		.summary = "instructions, front-end stalls, L1D/L1I/L2 caches, TLBs, branches",
		/*
		 * L1I accesses have no ARM1176 event and its L1I refills are left out here, so
		 * the ARM1176 counts rpistat's eight events in four pairs.
		 */
		.slot = { INSTRUCTIONS(0), FRONTEND_STALLS(0), L1D(1),
			  { "L1I accesses", "L1I_CACHE", 2 }, { "L1I refills", "L1I_CACHE_REFILL", 2 },
			  L2(3),
			  { "L1D TLB refills", "L1D_TLB_REFILL|DTLB_MISS", 4 },
			  { "L2 TLB refills", "L2D_TLB_REFILL|MAIN_TLB_MISS", 4 },
			  BRANCHES(5) },
		.nr_slots = 12,
	},
	{
		.name = "ipc",
		.summary = "instructions alone (IPC and CPI with the cycle counter), counted full time",
		.slot = { INSTRUCTIONS(0) },
		.nr_slots = 1,
	},
	{
		.name = "instructions",
		.summary = "retired and speculated instructions: IPC, retired/speculated",
		.slot = { INSTRUCTIONS(0), { "Speculated instructions", "INST_SPEC", 0 } },
		.nr_slots = 2,
	},
	{
		.name = "data",
		.summary = "L1D and L2 accesses and refills: miss ratios and rates",
		.slot = { INSTRUCTIONS(0), L1D(1), L2(2) },
		.nr_slots = 5,
	},
	{
		.name = "cache",
		.summary = "L1 data and instruction caches and L2: miss ratios and rates",
		.slot = { INSTRUCTIONS(0), L1D(1), L1I(2), L2(3) },
		.nr_slots = 7,
	},
	{
		.name = "tlb",
		.summary = "instruction, data and main TLB refills per thousand instructions",
		.slot = { INSTRUCTIONS(0), { "L1I TLB refills", "L1I_TLB_REFILL|ITLB_MISS", 1 },
			  /* the main TLB serves the data micro TLB's misses: rpistat's pair */
			  { "L1D TLB refills", "L1D_TLB_REFILL|DTLB_MISS", 2 },
			  { "L2 TLB refills", "L2D_TLB_REFILL|MAIN_TLB_MISS", 2 } },
		.nr_slots = 4,
	},
	{
		.name = "branch",
		.summary = "predicted and mispredicted branches: mispredict ratio and rates",
		.slot = { INSTRUCTIONS(0), BRANCHES(1) },
		.nr_slots = 3,
	},
	{
		.name = "stalls",
		.summary = "front-end and back-end stall cycles as a share of all cycles",
		.slot = { INSTRUCTIONS(0), FRONTEND_STALLS(1),
			  { "Back-end stall cycles", "STALL_BACKEND|DDEP_STALL", 1 } },
		.nr_slots = 3,
	},
};

#define NR_PRESETS (sizeof(presets) / sizeof(presets[0]))

#define PCT		100.0, "%"
#define PTI		1000.0, "PTI"

/* Every metric any preset or pmu-stat reports, rpistat's and the seed's pe_cortex_a72's. */
static const struct pmuser_metric metrics[] = {
	{ "IPC", INSTRUCTIONS_EVENTS, PMUSER_METRIC_CYCLES, 1.0, "" },
	{ "CPI", PMUSER_METRIC_CYCLES, INSTRUCTIONS_EVENTS, 1.0, "" },
	{ "rate", PMUSER_METRIC_EACH, INSTRUCTIONS_EVENTS, PTI },
	{ "Retired/speculated ratio", "INST_RETIRED", "INST_SPEC", 1.0, "" },
	{ "Frontend stall percent", "STALL_FRONTEND", PMUSER_METRIC_CYCLES, PCT },
	{ "Backend stall percent", "STALL_BACKEND", PMUSER_METRIC_CYCLES, PCT },
	/* ARM1176: instruction buffer and data dependency stalls (rpistat's IBUF) */
	{ "IBUF stall percent", "IBUF_STALL", PMUSER_METRIC_CYCLES, PCT },
	{ "DDEP stall percent", "DDEP_STALL", PMUSER_METRIC_CYCLES, PCT },
	{ "L1D miss ratio", "L1D_CACHE_REFILL|DCACHE_MISS", "L1D_CACHE|DCACHE_ACCESS", PCT },
	{ "L1I miss ratio", "L1I_CACHE_REFILL", "L1I_CACHE", PCT },
	{ "L2D miss ratio", "L2D_CACHE_REFILL", "L2D_CACHE", PCT },
	{ "L3D miss ratio", "L3D_CACHE_REFILL", "L3D_CACHE", PCT },
	{ "LL read miss ratio", "LL_CACHE_MISS_RD", "LL_CACHE_RD", PCT },
	{ "L1D TLB miss ratio", "L1D_TLB_REFILL", "L1D_TLB", PCT },
	{ "L1I TLB miss ratio", "L1I_TLB_REFILL", "L1I_TLB", PCT },
	{ "Mispredict ratio", "BR_MIS_PRED|BR_MISPREDICT", "BR_PRED|BR_EXEC", PCT },
	{ "Retired mispredict ratio", "BR_MIS_PRED_RETIRED", "BR_RETIRED", PCT },
};

#define NR_METRICS (sizeof(metrics) / sizeof(metrics[0]))

unsigned int pmuser_presets(const struct pmuser_preset **list)
{
	*list = presets;
	return NR_PRESETS;
}

unsigned int pmuser_metrics(const struct pmuser_metric **list)
{
	*list = metrics;
	return NR_METRICS;
}

const struct pmuser_preset *pmuser_preset_find(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < NR_PRESETS; i++)
		if (!strcasecmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

/*
 * Calls visit on each '|'-separated alternative (not NUL-terminated: name, len) until it
 * returns true; returns whether one did.
 */
static bool each_alternative(const char *alternatives,
			     bool (*visit)(const char *name, size_t len, void *arg), void *arg)
{
	const char *p = alternatives;

	for (;;) {
		size_t len = strcspn(p, "|");

		if (len && visit(p, len, arg))
			return true;
		if (!p[len])
			return false;
		p += len + 1;
	}
}

struct slot_lookup {
	uint32_t midr;
	const struct pmuser_cpu_info *ci;
	const struct pmuser_event *ev;
};

static bool known_event(const char *alt, size_t len, void *arg)
{
	struct slot_lookup *l = arg;
	char name[64];

	if (len >= sizeof(name))
		return false;
	memcpy(name, alt, len);
	name[len] = '\0';
	return !pmuser_event_lookup(l->midr, name, &l->ev) &&
	       (!l->ci || pmuser_event_supported(l->ci, l->ev->number));
}

const struct pmuser_event *pmuser_preset_event(const struct pmuser_preset *p, unsigned int s,
					       uint32_t midr, const struct pmuser_cpu_info *ci)
{
	struct slot_lookup l = { .midr = midr, .ci = ci };

	if (s >= p->nr_slots)
		return NULL;
	return each_alternative(p->slot[s].events, known_event, &l) ? l.ev : NULL;
}

int pmuser_preset_attr(const struct pmuser_preset *p, uint32_t midr,
		       const struct pmuser_cpu_info *ci, struct pmuser_counters_attr *attr)
{
	unsigned int i;

	if (!p || !attr)
		return -EINVAL;
	attr->flags |= PMUSER_COUNTERS_CYCLES;
	attr->nr_events = 0;
	for (i = 0; i < p->nr_slots; i++) {
		const struct pmuser_event *ev = pmuser_preset_event(p, i, midr, ci);
		struct pmuser_evspec_entry *e;

		if (!ev)
			continue;
		e = &attr->events[attr->nr_events++];
		e->event = ev->number;
		e->flags = PMUSER_COUNT_USER;
		e->name = ev->name;
	}
	return attr->nr_events ? 0 : -ENOENT;
}

int pmuser_preset_sets(const struct pmuser_preset *p, uint32_t midr,
		       const struct pmuser_cpu_info *ci, unsigned int per_set,
		       int set[PMUSER_PRESET_SLOTS])
{
	unsigned int used[PMUSER_PRESET_SLOTS] = { 0 };	/* events in each set so far */
	bool placed[PMUSER_PRESET_SLOTS] = { false };
	unsigned int nr_sets = 0, s, t, k;

	if (!per_set)
		return -EINVAL;
	for (s = 0; s < p->nr_slots; s++)
		set[s] = pmuser_preset_event(p, s, midr, ci) ? 0 : -1;
	for (s = 0; s < p->nr_slots; s++) {
		unsigned int size = 0;

		if (set[s] < 0 || placed[s])
			continue;
		/* The group of slot s: the slots after it with its group number. */
		for (t = s; t < p->nr_slots; t++)
			size += set[t] >= 0 && p->slot[t].group == p->slot[s].group;
		for (k = 0; k < nr_sets && used[k] + size > per_set; k++)
			;
		for (t = s; t < p->nr_slots; t++) {
			if (set[t] < 0 || p->slot[t].group != p->slot[s].group)
				continue;
			/* Too big for any set: each slot takes the first set with room. */
			if (size > per_set)
				for (k = 0; k < nr_sets && used[k] >= per_set; k++)
					;
			if (k == nr_sets)
				nr_sets++;
			set[t] = (int)k;
			used[k]++;
			placed[t] = true;
		}
	}
	return nr_sets ? (int)nr_sets : -ENOENT;
}

/* ---- metrics ------------------------------------------------------------------------------ */

struct value_lookup {
	const struct pmuser_value *values;
	size_t n;
	size_t found;			/* index into values */
};

static bool named_value(const char *alt, size_t len, void *arg)
{
	struct value_lookup *l = arg;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (!strncasecmp(l->values[i].name, alt, len) && !l->values[i].name[len]) {
			l->found = i;
			return true;
		}
	}
	return false;
}

/* The index of the value an operand names, or -1. */
static long operand_index(const char *operand, const struct pmuser_value values[], size_t n)
{
	struct value_lookup l = { .values = values, .n = n };

	return each_alternative(operand, named_value, &l) ? (long)l.found : -1;
}

static double ratio(const struct pmuser_metric *m, double num, double den)
{
	if (isnan(num) || isnan(den) || den == 0.0)
		return NAN;
	return m->scale * num / den;
}

static void put(struct pmuser_metric_value out[], size_t max, size_t *nr,
		const struct pmuser_metric *m, const char *event, double value)
{
	struct pmuser_metric_value *v;

	if (*nr >= max)
		return;
	v = &out[(*nr)++];
	v->metric = m;
	if (event)
		snprintf(v->label, sizeof(v->label), "%s %s", event, m->label);
	else
		snprintf(v->label, sizeof(v->label), "%s", m->label);
	v->value = value;
}

/* Whether values[i] is the first value of its name. */
static bool first_of_name(const struct pmuser_value values[], size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (!strcasecmp(values[k].name, values[i].name))
			return false;
	return true;
}

size_t pmuser_metrics_eval(const struct pmuser_value values[], size_t n,
			   struct pmuser_metric_value out[], size_t max)
{
	size_t nr = 0, i, k;

	for (i = 0; i < NR_METRICS; i++) {
		const struct pmuser_metric *m = &metrics[i];
		long den = operand_index(m->den, values, n), num;

		if (den < 0)
			continue;
		if (strcmp(m->num, PMUSER_METRIC_EACH)) {
			num = operand_index(m->num, values, n);
			if (num >= 0)
				put(out, max, &nr, m, NULL,
				    ratio(m, values[num].value, values[den].value));
			continue;
		}
		/* Not for the denominator's event in any spelling, nor for cycles. */
		for (k = 0; k < n; k++)
			if (operand_index(m->den, &values[k], 1) < 0 &&
			    strcmp(values[k].name, PMUSER_METRIC_CYCLES) && first_of_name(values, k))
				put(out, max, &nr, m, values[k].name,
				    ratio(m, values[k].value, values[den].value));
	}
	return nr;
}

const struct pmuser_metric_value *pmuser_metric_value_find(const struct pmuser_metric_value m[],
							   size_t n, const char *label)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(m[i].label, label))
			return &m[i];
	return NULL;
}

size_t pmuser_values_fill(const struct pmuser_counters *c, const struct pmuser_count counts[],
			  struct pmuser_value out[])
{
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		const struct pmuser_ctr *ctr = &c->ctr[i];
		bool counted = ctr->supported && counts[i].running &&
			       !(ctr->is_cycles && c->backend == PMUSER_BACKEND_CLOCK);

		out[i].name = ctr->is_cycles ? PMUSER_METRIC_CYCLES : ctr->name;
		out[i].value = counted ? pmuser_count_scaled(&counts[i]) : NAN;
	}
	return c->nr;
}

const char *pmuser_fmt_count(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%'.0f", v);
	return buf;
}

static void print_count(FILE *f, const char *label, const struct pmuser_count *cnt)
{
	char raw[32], scaled[32];

	if (!cnt->running) {
		/* perf's <not counted>: a 0 here would be a count nobody measured. */
		fprintf(f, "  %-26s %16s\n", label, "not counted (never on a counter)");
		return;
	}
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

/* The counter holding slot s (its event, by name), or -1. */
static int slot_counter(const struct pmuser_preset *p, unsigned int s,
			const struct pmuser_counters *c)
{
	struct pmuser_value v[PMUSER_COUNTERS_MAX];
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		v[i].name = c->ctr[i].is_cycles || !c->ctr[i].supported ? "" : c->ctr[i].name;
		v[i].value = 0;
	}
	return (int)operand_index(p->slot[s].events, v, c->nr);
}

void pmuser_preset_print(FILE *f, const struct pmuser_preset *p, const struct pmuser_counters *c,
			 const struct pmuser_count counts[])
{
	struct pmuser_metric_value m[PMUSER_COUNTERS_MAX + NR_METRICS];
	struct pmuser_value v[PMUSER_COUNTERS_MAX];
	size_t nm, n, i;
	int k;

	fprintf(f, "Preset %s: %s\n", p->name, p->summary);
	fprintf(f, "  [ ... ] = scaled to the whole run (multiplexed)\n");
	fprintf(f, "  PTI     = per thousand instructions\n\n");
	if (c->nr && c->ctr[0].is_cycles && c->ctr[0].supported)
		print_count(f, c->backend == PMUSER_BACKEND_CLOCK ? "Time (ns)" : "Cycles", &counts[0]);
	for (i = 0; i < p->nr_slots; i++) {
		if (i && p->slot[i].group != p->slot[i - 1].group)
			fputc('\n', f);
		k = slot_counter(p, (unsigned int)i, c);
		if (k >= 0)
			print_count(f, p->slot[i].label, &counts[k]);
		else
			fprintf(f, "  %-26s %16s\n", p->slot[i].label, "not supported by this PMU");
	}
	fputc('\n', f);
	n = pmuser_values_fill(c, counts, v);
	nm = pmuser_metrics_eval(v, n, m, sizeof(m) / sizeof(m[0]));
	for (i = 0; i < nm; i++) {
		if (isnan(m[i].value))
			fprintf(f, "  %-26s %16s\n", m[i].label, "n/a");
		else
			fprintf(f, "  %-26s %16.3f %s\n", m[i].label, m[i].value, m[i].metric->unit);
	}
}
