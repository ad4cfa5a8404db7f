// SPDX-License-Identifier: MIT
/*
 * pmu-stat's event sets: the user's -e sets, or a library preset split into sets that fit
 * the counters; and the metrics the library derives from the counts (IPC, CPI, rates per
 * thousand instructions, ratios).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stat.h"

static void add_event(struct stat_setup *s, const struct pmuser_evspec_entry *spec,
		      unsigned int set)
{
	struct stat_event *e = &s->ev[s->nr_events++];

	memset(e, 0, sizeof(*e));
	e->spec = *spec;
	e->set = set;
	e->supported = true;
	if (spec->name)
		snprintf(e->name, sizeof(e->name), "%s", spec->name);
	else
		snprintf(e->name, sizeof(e->name), "0x%x", spec->event);
	/* Mode suffixes other than the default show in the name. */
	if (spec->flags == PMUSER_COUNT_KERNEL)
		strncat(e->name, ":k", sizeof(e->name) - strlen(e->name) - 1);
	else if (spec->flags == PMUSER_COUNT_MASK)
		strncat(e->name, ":uk", sizeof(e->name) - strlen(e->name) - 1);
}

#define SPEC_QUOTE	60

static int add_set(struct stat_setup *s, const char *spec, char *err, size_t errlen)
{
	struct pmuser_evspec_entry ent[STAT_MAX_EVENTS];
	char why[200];
	size_t n, i, room = STAT_MAX_EVENTS - s->nr_events;
	const char *cut;
	int ret;

	if (s->nr_sets >= STAT_MAX_SETS)
		return stat_fail(-E2BIG, err, errlen, "more than %d event sets", STAT_MAX_SETS);
	ret = pmuser_evspec_parse(spec, s->midr, ent, room, &n, why, sizeof(why));
	/* A long spec is quoted in part, so the reason after it always fits the message. */
	cut = strlen(spec) > SPEC_QUOTE ? "..." : "";
	if (ret == -E2BIG)
		return stat_fail(ret, err, errlen,
			    "event set %u ('%.*s%s'): more than %d events in all sets together",
			    s->nr_sets, SPEC_QUOTE, spec, cut, STAT_MAX_EVENTS);
	if (ret)
		return stat_fail(ret, err, errlen, "event set %u ('%.*s%s'): %s", s->nr_sets,
			    SPEC_QUOTE, spec, cut, why);
	if (!n)
		return stat_fail(-EINVAL, err, errlen, "event set %u is empty", s->nr_sets);
	for (i = 0; i < n; i++)
		add_event(s, &ent[i], s->nr_sets);
	s->nr_sets++;
	return 0;
}

/*
 * Event counters per set when the device cannot say: the ARM1176 has two; four fits the
 * smallest common ARMv7/ARMv8 cores (Cortex-A7, A8).
 */
static unsigned int usual_counters(uint32_t midr)
{
	const char *core = pmuser_core_name(midr);

	return core && !strcmp(core, "ARM1176") ? 2 : 4;
}

/* The preset's slots the core has, in the library's sets, set by set in slot order. */
static int add_preset(struct stat_setup *s, unsigned int counters, char *err, size_t errlen)
{
	const struct pmuser_preset *p = s->preset;
	int set[PMUSER_PRESET_SLOTS], n, k;
	unsigned int i;

	n = pmuser_preset_sets(p, s->midr, NULL, counters ? counters : usual_counters(s->midr),
			       set);
	if (n < 0)
		return stat_fail(n, err, errlen, "preset '%s': no event of it is known on this core",
			    p->name);
	for (k = 0; k < n; k++) {
		for (i = 0; i < p->nr_slots; i++) {
			const struct pmuser_event *ev = pmuser_preset_event(p, i, s->midr, NULL);
			struct pmuser_evspec_entry spec;

			if (set[i] != k)
				continue;
			spec.event = ev->number;
			spec.flags = PMUSER_COUNT_USER;
			spec.name = ev->name;
			add_event(s, &spec, (unsigned int)k);
		}
	}
	s->nr_sets = (unsigned int)n;
	return 0;
}

int stat_setup_events(const struct stat_opts *o, uint32_t midr, unsigned int counters,
		      struct stat_setup *s, char *err, size_t errlen)
{
	const char *name = o->preset ? o->preset : "default";
	unsigned int i;
	int ret;

	memset(s, 0, sizeof(*s));
	s->midr = midr;
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
	s->preset = pmuser_preset_find(name);
	if (!s->preset)
		return stat_fail(-ENOENT, err, errlen, "unknown preset '%s'", name);
	s->optional = true;
	return add_preset(s, counters, err, errlen);
}

/* ---- metrics ------------------------------------------------------------------------------ */

/*
 * One estimate per event number, user mode only: the sum of the raw counts of every copy
 * over the sum of their duty cycles, so two half-time copies make one full-time estimate.
 * Returns false when the event was not counted.
 */
static bool event_estimate(const struct stat_setup *s, uint32_t number, double *out)
{
	double raw = 0, duty = 0;
	size_t i;

	for (i = 0; i < s->nr_events; i++) {
		const struct stat_event *e = &s->ev[i];

		if (e->spec.event != number || !e->supported || e->spec.flags != PMUSER_COUNT_USER)
			continue;
		raw += (double)e->raw;
		duty += e->duty;
	}
	if (duty <= 0)
		return false;
	*out = raw / duty;
	return true;
}

size_t stat_metrics(const struct stat_setup *s, const struct stat_result *r,
		    struct pmuser_metric_value *out, size_t max)
{
	struct pmuser_value v[STAT_MAX_EVENTS + 1];
	struct pmuser_metric_value all[STAT_MAX_METRICS];
	size_t nv = 0, n, i, k, kept = 0;

	/* A cycle counter that never moved (QEMU's ARM1176) gives no cycle metrics. */
	if (r->have_cycles && r->cycles.duty > 0 && r->cycles.scaled > 0)
		v[nv++] = (struct pmuser_value){ PMUSER_METRIC_CYCLES, r->cycles.scaled };
	/* Each user-mode event once, by its first copy's name (":k" names match no metric). */
	for (i = 0; i < s->nr_events; i++) {
		const struct stat_event *e = &s->ev[i];
		double est;

		if (e->spec.flags != PMUSER_COUNT_USER)
			continue;
		for (k = 0; k < i; k++)
			if (s->ev[k].spec.event == e->spec.event &&
			    s->ev[k].spec.flags == PMUSER_COUNT_USER)
				break;
		/* A 0 nothing confirms the CPU counts feeds no metric. */
		if (k == i && event_estimate(s, e->spec.event, &est) && !(e->unconfirmed && est <= 0))
			v[nv++] = (struct pmuser_value){ e->name, est };
	}
	/* Only what could be computed: a zero divisor leaves a metric out. */
	n = pmuser_metrics_eval(v, nv, all, STAT_MAX_METRICS);
	for (i = 0; i < n && kept < max; i++)
		if (!isnan(all[i].value))
			out[kept++] = all[i];
	return kept;
}
