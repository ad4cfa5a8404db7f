// SPDX-License-Identifier: MIT
/*
 * pmu-stat's event sets: presets written with the event tables' names, the user's -e sets,
 * and the metrics derived from the counts (IPC, CPI, rates per thousand instructions, ratios).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stat.h"

/*
 * A preset is one list of sets per event-name family: the ARMv7/ARMv8 architected events
 * (shared names), and the ARM1176's own (2 event counters: rpistat's four sets). Sets hold at
 * most four events so they fit every ARMv7/ARMv8 core's six counters with room to spare.
 */
struct preset {
	const char *name;
	const char *description;
	const char *arch[STAT_MAX_SETS];	/* ARMv7 / ARMv8, NULL-terminated */
	const char *arm1176[STAT_MAX_SETS];
};

static const struct preset presets[] = {
	{ "default", "instructions, branches, L1/L2 caches and TLBs in three sets",
	  { "INST_RETIRED,BR_PRED,BR_MIS_PRED",
	    "L1D_CACHE,L1D_CACHE_REFILL,L1I_CACHE,L1I_CACHE_REFILL",
	    "L2D_CACHE,L2D_CACHE_REFILL,L1D_TLB_REFILL,L1I_TLB_REFILL" },
	  /* rpistat's sets */
	  { "INSTR_EXEC,IBUF_STALL", "DCACHE_ACCESS,DCACHE_MISS", "DTLB_MISS,MAIN_TLB_MISS",
	    "BR_EXEC,BR_MISPREDICT" } },
	{ "ipc", "instructions (with the cycle counter: IPC and CPI), counted full time",
	  { "INST_RETIRED" }, { "INSTR_EXEC" } },
	{ "cache", "L1 data and instruction caches, L2",
	  { "INST_RETIRED,L1D_CACHE,L1D_CACHE_REFILL",
	    "L1I_CACHE,L1I_CACHE_REFILL,L2D_CACHE,L2D_CACHE_REFILL" },
	  { "INSTR_EXEC,ICACHE_MISS", "DCACHE_ACCESS,DCACHE_MISS" } },
	{ "tlb", "instruction and data TLB refills",
	  { "INST_RETIRED,L1D_TLB_REFILL,L1I_TLB_REFILL" },
	  { "INSTR_EXEC,ITLB_MISS", "DTLB_MISS,MAIN_TLB_MISS" } },
	{ "branch", "branches and mispredictions",
	  { "INST_RETIRED,BR_PRED,BR_MIS_PRED" },
	  { "INSTR_EXEC", "BR_EXEC,BR_MISPREDICT" } },
};

#define NR_PRESETS (sizeof(presets) / sizeof(presets[0]))

const char *const stat_preset_names[] = { "default", "ipc", "cache", "tlb", "branch", NULL };

const char *stat_preset_description(const char *name)
{
	size_t i;

	for (i = 0; i < NR_PRESETS; i++)
		if (!strcmp(presets[i].name, name))
			return presets[i].description;
	return NULL;
}

static int __attribute__((format(printf, 4, 5)))
fail(int ret, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* The core's instruction event: INST_RETIRED (ARMv7/ARMv8) or INSTR_EXEC (ARM1176). */
static int instructions_event(uint32_t midr)
{
	const struct pmuser_event *ev;

	if (!pmuser_event_lookup(midr, "INST_RETIRED", &ev) ||
	    !pmuser_event_lookup(midr, "INSTR_EXEC", &ev))
		return ev->number;
	return -1;
}

static int add_set(struct stat_setup *s, const char *spec, char *err, size_t errlen)
{
	struct pmuser_evspec_entry ent[STAT_MAX_EVENTS];
	char why[200];
	size_t n, i, room = STAT_MAX_EVENTS - s->nr_events;
	int ret;

	if (s->nr_sets >= STAT_MAX_SETS)
		return fail(-E2BIG, err, errlen, "more than %d event sets", STAT_MAX_SETS);
	ret = pmuser_evspec_parse(spec, s->midr, ent, room, &n, why, sizeof(why));
	if (ret == -E2BIG)
		return fail(ret, err, errlen,
			    "event set %u ('%s'): more than %d events in all sets together",
			    s->nr_sets, spec, STAT_MAX_EVENTS);
	if (ret)
		return fail(ret, err, errlen, "event set %u ('%s'): %s", s->nr_sets, spec, why);
	if (!n)
		return fail(-EINVAL, err, errlen, "event set %u is empty", s->nr_sets);
	for (i = 0; i < n; i++) {
		struct stat_event *e = &s->ev[s->nr_events++];

		memset(e, 0, sizeof(*e));
		e->spec = ent[i];
		e->set = s->nr_sets;
		e->supported = true;
		if (ent[i].name)
			snprintf(e->name, sizeof(e->name), "%s", ent[i].name);
		else
			snprintf(e->name, sizeof(e->name), "0x%x", ent[i].event);
		/* Mode suffixes other than the default show in the name. */
		if (ent[i].flags == PMUSER_COUNT_KERNEL)
			strncat(e->name, ":k", sizeof(e->name) - strlen(e->name) - 1);
		else if (ent[i].flags == PMUSER_COUNT_MASK)
			strncat(e->name, ":uk", sizeof(e->name) - strlen(e->name) - 1);
	}
	s->nr_sets++;
	return 0;
}

int stat_setup_events(const struct stat_opts *o, uint32_t midr, struct stat_setup *s,
		      char *err, size_t errlen)
{
	unsigned int i;
	int ret;

	memset(s, 0, sizeof(*s));
	s->midr = midr;
	s->inst_event = instructions_event(midr);
	if (err && errlen)
		err[0] = '\0';
	if (o->backend == STAT_CLOCK)
		return 0;
	if (o->nr_event_args) {
		for (i = 0; i < o->nr_event_args; i++) {
			ret = add_set(s, o->event_args[i], err, errlen);
			if (ret)
				return ret;
		}
		return 0;
	}
	s->preset = o->preset ? o->preset : "default";
	s->optional = true;
	for (i = 0; i < NR_PRESETS; i++) {
		const char *const *sets = presets[i].arch;

		if (strcmp(presets[i].name, s->preset))
			continue;
		if (s->inst_event >= 0 && s->inst_event != 0x08)
			sets = presets[i].arm1176;
		for (; *sets; sets++) {
			ret = add_set(s, *sets, err, errlen);
			if (ret)
				return ret;
		}
		return 0;
	}
	return fail(-ENOENT, err, errlen, "unknown preset '%s'", s->preset);
}

/* ---- metrics ------------------------------------------------------------------------------ */

/*
 * One estimate per event number: the sum of the raw counts of every copy over the sum of
 * their duty cycles, so two half-time copies make one full-time estimate. Returns false
 * when the event was not counted.
 */
static bool event_estimate(const struct stat_setup *s, int number, double *out)
{
	double raw = 0, duty = 0;
	size_t i;

	for (i = 0; i < s->nr_events; i++) {
		const struct stat_event *e = &s->ev[i];

		if ((int)e->spec.event != number || !e->supported ||
		    e->spec.flags != PMUSER_COUNT_USER)
			continue;
		raw += (double)e->raw;
		duty += e->duty;
	}
	if (duty <= 0)
		return false;
	*out = raw / duty;
	return true;
}

static bool named_estimate(const struct stat_setup *s, const struct stat_result *r,
			   const char *name, double *out)
{
	const struct pmuser_event *ev;

	if (!strcmp(name, "cycles")) {
		if (!r->have_cycles || r->cycles.duty <= 0)
			return false;
		*out = r->cycles.scaled;
		return true;
	}
	if (pmuser_event_lookup(s->midr, name, &ev))
		return false;
	return event_estimate(s, ev->number, out);
}

/* Ratios that mean something whenever both events were counted: numerator / denominator. */
static const struct {
	const char *name, *num, *den;
} ratios[] = {
	{ "L1D miss ratio", "L1D_CACHE_REFILL", "L1D_CACHE" },
	{ "L1I miss ratio", "L1I_CACHE_REFILL", "L1I_CACHE" },
	{ "L2D miss ratio", "L2D_CACHE_REFILL", "L2D_CACHE" },
	{ "L3D miss ratio", "L3D_CACHE_REFILL", "L3D_CACHE" },
	{ "LL read miss ratio", "LL_CACHE_MISS_RD", "LL_CACHE_RD" },
	{ "L1D TLB miss ratio", "L1D_TLB_REFILL", "L1D_TLB" },
	{ "L1I TLB miss ratio", "L1I_TLB_REFILL", "L1I_TLB" },
	{ "Mispredict ratio", "BR_MIS_PRED", "BR_PRED" },
	{ "Retired mispredict ratio", "BR_MIS_PRED_RETIRED", "BR_RETIRED" },
	{ "Frontend stall percent", "STALL_FRONTEND", "cycles" },
	{ "Backend stall percent", "STALL_BACKEND", "cycles" },
	/* ARM1176 (rpistat's) */
	{ "DC miss ratio", "DCACHE_MISS", "DCACHE_ACCESS" },
	{ "Mispredict ratio", "BR_MISPREDICT", "BR_EXEC" },
	{ "IBUF stall percent", "IBUF_STALL", "cycles" },
};

static void put(struct stat_metric *out, size_t max, size_t *n, const char *name, double value,
		const char *unit)
{
	if (*n >= max)
		return;
	snprintf(out[*n].name, sizeof(out[*n].name), "%s", name);
	out[*n].value = value;
	out[*n].unit = unit;
	(*n)++;
}

size_t stat_metrics(const struct stat_setup *s, const struct stat_result *r,
		    struct stat_metric *out, size_t max)
{
	double inst = 0, cyc = 0, num, den;
	bool have_inst = s->inst_event >= 0 && event_estimate(s, s->inst_event, &inst) && inst > 0;
	bool have_cyc = named_estimate(s, r, "cycles", &cyc) && cyc > 0;
	char name[64];
	size_t n = 0, i, k;

	if (have_inst && have_cyc) {
		put(out, max, &n, "IPC", inst / cyc, "");
		put(out, max, &n, "CPI", cyc / inst, "");
	}
	/* Per thousand instructions: each other event number once, user-mode counts only. */
	for (i = 0; have_inst && i < s->nr_events; i++) {
		const struct stat_event *e = &s->ev[i];
		double v;

		if ((int)e->spec.event == s->inst_event || e->spec.flags != PMUSER_COUNT_USER)
			continue;
		for (k = 0; k < i; k++)
			if (s->ev[k].spec.event == e->spec.event)
				break;
		if (k < i || !event_estimate(s, (int)e->spec.event, &v))
			continue;
		snprintf(name, sizeof(name), "%s rate", e->name);
		put(out, max, &n, name, v * 1000.0 / inst, "PTI");
	}
	for (i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++) {
		if (!named_estimate(s, r, ratios[i].num, &num) ||
		    !named_estimate(s, r, ratios[i].den, &den) || den <= 0)
			continue;
		put(out, max, &n, ratios[i].name, 100.0 * num / den, "%");
	}
	return n;
}
