// SPDX-License-Identifier: MIT
/*
 * pmu-stat's event sets: the user's -e sets, or a library preset split into sets that fit
 * the counters, then perf stat's -d events, each event in its mode and named as perf names
 * it; and the metrics the library derives from the counts (IPC, CPI, rates per thousand
 * instructions, ratios).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat.h"

static void add_event(struct stat_setup *s, const struct pmuser_evspec_entry *spec,
		      unsigned int set, const char *name)
{
	struct stat_event *e = &s->ev[s->nr_events++];

	memset(e, 0, sizeof(*e));
	e->spec = *spec;
	e->set = set;
	e->supported = true;
	snprintf(e->name, sizeof(e->name), "%s", name);
}

/* The mode of events written without one: the caller's default, user mode if it set none. */
static uint32_t default_mode(const struct stat_opts *o)
{
	return o->default_mode & PMUSER_COUNT_MASK ? o->default_mode & PMUSER_COUNT_MASK :
						     PMUSER_COUNT_USER;
}

/*
 * Whether the element el[0..len) gives its mode: after a plain name or number a colon starts
 * the modifiers; a PMU's event ("pmu/term/") has them after its closing slash.
 */
static bool element_has_mode(const char *el, size_t len, bool *pmu)
{
	const char *slash = memchr(el, '/', len), *close;

	*pmu = slash != NULL;
	if (!slash)
		return memchr(el, ':', len) != NULL;
	close = memchr(slash + 1, '/', len - (size_t)(slash + 1 - el));
	return close && close + 1 < el + len;
}

/*
 * perf's name for the generic or cache event el[0..len) spells, which perf stat derives its
 * metrics from, into e->perf_name; empty if it is none.
 */
static void set_perf_name(struct stat_event *e, const char *el, size_t len)
{
	char spelled[64];

	e->perf_name[0] = '\0';
	if (len >= sizeof(spelled))
		return;
	memcpy(spelled, el, len);
	spelled[len] = '\0';
	if (pmuser_evspec_perf_name(spelled, e->perf_name, sizeof(e->perf_name)))
		e->perf_name[0] = '\0';
}

#define SPEC_QUOTE	60

/*
 * One event set: the library parses it (and words every error); each event is then named as
 * perf names it, as written, and one written without a mode gets mode, which its name then
 * shows as perf shows a modifier: "instructions:uk", "armv8_pmuv3/event=0x8/u". In a group
 * given a mode (moded) an event's own one is refused: perf would count both modes' union.
 */
static int add_set(struct stat_setup *s, uint32_t mode, bool moded, const char *spec, char *err,
		   size_t errlen)
{
	struct pmuser_evspec_entry ent[STAT_MAX_EVENTS];
	char why[200], name[sizeof(s->ev[0].name)];
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
	for (i = 0; i < n; i++) {
		const char *el = spec + ent[i].offset;
		size_t len = ent[i].length;
		bool pmu;

		if (element_has_mode(el, len, &pmu) && moded) {
			return stat_fail(-EINVAL, err, errlen,
				    "event set %u ('%.*s%s'): %.*s has a mode of its own in a group given one: write the mode in one place",
				    s->nr_sets, SPEC_QUOTE, spec, cut, (int)len, el);
		} else if (element_has_mode(el, len, &pmu)) {
			snprintf(name, sizeof(name), "%.*s", (int)len, el);
		} else {
			ent[i].flags = mode;
			snprintf(name, sizeof(name), "%.*s%s%s", (int)len, el, pmu ? "" : ":",
				 stat_mode_suffix(mode));
		}
		add_event(s, &ent[i], s->nr_sets, name);
		if (!pmu)
			set_perf_name(&s->ev[s->nr_events - 1], el, strcspn(el, ":,"));
	}
	s->nr_sets++;
	return 0;
}

/* A group's modifier text[0..len): u, k or both, each once, as an event's are written. */
static int group_mode(const char *text, size_t len, uint32_t *mode)
{
	uint32_t bit;
	size_t i;

	*mode = 0;
	for (i = 0; i < len; i++) {
		bit = text[i] == 'u' ? PMUSER_COUNT_USER : text[i] == 'k' ? PMUSER_COUNT_KERNEL : 0;
		if (!bit || *mode & bit)
			return -EINVAL;
		*mode |= bit;
	}
	return len ? 0 : -EINVAL;
}

/* The set spec[0..len) in mode (a group's when moded), through a copy that ends there. */
static int add_part(struct stat_setup *s, uint32_t mode, bool moded, const char *spec,
		    size_t len, char *err, size_t errlen)
{
	char *part = strndup(spec, len);
	int ret;

	if (!part)
		return stat_fail(-ENOMEM, err, errlen, "out of memory");
	ret = add_set(s, mode, moded, part, err, errlen);
	free(part);
	return ret;
}

/*
 * One -e argument. Without braces it is one set. With perf's groups, "{a,b},{c,d}:k" is one
 * set per group, a modifier after the closing brace giving the mode of its events written
 * without one, and the events between groups ("a,{b,c},d") each run of them a set too.
 */
static int add_arg(struct stat_setup *s, const struct stat_opts *o, const char *arg, char *err,
		   size_t errlen)
{
	const char *p = arg, *close, *open, *end;
	uint32_t mode;
	size_t len;
	int ret;

	if (!strpbrk(arg, "{}"))
		return add_set(s, default_mode(o), false, arg, err, errlen);
	while (*p) {
		mode = default_mode(o);
		if (*p != '{') {
			open = strchr(p, '{');
			end = open ? open : p + strlen(p);
			close = memchr(p, '}', (size_t)(end - p));
			if (close)
				return stat_fail(-EINVAL, err, errlen,
					    "-e '%s': '}' at %zu closes no group", arg,
					    (size_t)(close - arg) + 1);
			/* The run of events before a group ends with the comma before it. */
			len = (size_t)(end - p);
			if (open && p[len - 1] != ',')
				return stat_fail(-EINVAL, err, errlen,
					    "-e '%s': a group at %zu follows no comma", arg,
					    (size_t)(open - arg) + 1);
			if (open && len == 1)
				return stat_fail(-EINVAL, err, errlen,
					    "-e '%s': an empty event before the group at %zu", arg,
					    (size_t)(open - arg) + 1);
			ret = add_part(s, mode, false, p, open ? len - 1 : len, err, errlen);
			if (ret)
				return ret;
			p = end;
			continue;
		}
		close = strchr(p + 1, '}');
		open = strchr(p + 1, '{');
		if (!close)
			return stat_fail(-EINVAL, err, errlen, "-e '%s': '{' at %zu has no '}'", arg,
				    (size_t)(p - arg) + 1);
		if (open && open < close)
			return stat_fail(-EINVAL, err, errlen,
				    "-e '%s': '{' at %zu opens a group inside a group", arg,
				    (size_t)(open - arg) + 1);
		end = close + 1;
		len = strcspn(end, ",");
		if (len && (*end != ':' || group_mode(end + 1, len - 1, &mode)))
			return stat_fail(-EINVAL, err, errlen,
				    "-e '%s': '%.*s' after a group: a group ends in '}', ':u', ':k' or ':uk'",
				    arg, (int)len, end);
		ret = add_part(s, mode, len > 0, p + 1, (size_t)(close - p - 1), err, errlen);
		if (ret)
			return ret;
		p = end + len;
		if (*p == ',' && !*++p)
			return stat_fail(-EINVAL, err, errlen, "-e '%s': ends in a comma", arg);
	}
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

/*
 * The preset's slots the core has, in the library's sets, set by set in slot order; each in
 * the default mode, named by the library with it ("INST_RETIRED:u").
 */
static int add_preset(struct stat_setup *s, const struct stat_opts *o, unsigned int counters,
		      char *err, size_t errlen)
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
			char name[sizeof(s->ev[0].name)];

			if (set[i] != k)
				continue;
			spec.event = ev->number;
			spec.flags = default_mode(o);
			spec.name = ev->name;
			snprintf(name, sizeof(name), "%s:%s", ev->name, stat_mode_suffix(spec.flags));
			add_event(s, &spec, (unsigned int)k, name);
			s->ev[s->nr_events - 1].optional = true;
		}
	}
	s->nr_sets = (unsigned int)n;
	return 0;
}

/*
 * perf stat's -d, -dd and -ddd (Debian's perf 6.1, tools/perf/builtin-stat.c: detailed_attrs,
 * very_detailed_attrs, very_very_detailed_attrs): a cache's loads and load misses, and the
 * pairs each level adds, detailed_pairs[level] of them in all.
 */
static const char *const detailed_events[][2] = {
	{ "L1-dcache-loads", "L1-dcache-load-misses" },			/* -d */
	{ "LLC-loads", "LLC-load-misses" },
	{ "L1-icache-loads", "L1-icache-load-misses" },			/* -dd */
	{ "dTLB-loads", "dTLB-load-misses" },
	{ "iTLB-loads", "iTLB-load-misses" },
	{ "L1-dcache-prefetches", "L1-dcache-prefetch-misses" },	/* -ddd */
};
static const unsigned int detailed_pairs[] = { 0, 2, 5, 6 };

/*
 * One of -d's events, in the default mode, named as perf prints it with that mode
 * ("LLC-loads:u"). One the core's driver has no event for is there, not supported, as perf
 * prints it <not supported>; like a preset's, one the CPU lacks is not supported either.
 */
static void add_detailed_event(struct stat_setup *s, const struct stat_opts *o,
			       const char *perf, const struct pmuser_evspec_entry *spec)
{
	struct pmuser_evspec_entry none = { .event = 0 };
	char name[sizeof(s->ev[0].name)];
	struct stat_event *e;

	snprintf(name, sizeof(name), "%s:%s", perf, stat_mode_suffix(default_mode(o)));
	add_event(s, spec ? spec : &none, s->nr_sets - 1, name);
	e = &s->ev[s->nr_events - 1];
	e->spec.flags = default_mode(o);
	e->supported = spec != NULL;
	e->optional = true;
	snprintf(e->perf_name, sizeof(e->perf_name), "%s", perf);
}

/*
 * -d's events after the others, in sets of their own: as many pairs in a set as the counters
 * hold (counters, 0: the core's usual), a cache's loads and misses always in one, events the
 * core has none for in the set of their pair.
 */
static int add_detailed(struct stat_setup *s, const struct stat_opts *o, unsigned int counters,
			char *err, size_t errlen)
{
	unsigned int per_set = counters ? counters : usual_counters(s->midr), used = 0, p, k, n;
	size_t level = o->detailed, one;
	struct pmuser_evspec_entry ent[2];
	bool have[2], open = false;

	if (level >= sizeof(detailed_pairs) / sizeof(detailed_pairs[0]))
		level = sizeof(detailed_pairs) / sizeof(detailed_pairs[0]) - 1;
	for (p = 0; p < detailed_pairs[level]; p++) {
		for (k = 0, n = 0; k < 2; k++) {
			have[k] = !pmuser_evspec_parse(detailed_events[p][k], s->midr, &ent[k], 1,
						       &one, NULL, 0);
			n += have[k];
		}
		if (open && (!n || used + n <= per_set || !used)) {
			used += n;
		} else if (s->nr_sets < STAT_MAX_SETS) {
			s->nr_sets++;
			used = n;
			open = true;
		} else {
			return stat_fail(-E2BIG, err, errlen, "-d: more than %d event sets",
					 STAT_MAX_SETS);
		}
		if (s->nr_events + 2 > STAT_MAX_EVENTS)
			return stat_fail(-E2BIG, err, errlen, "-d: more than %d events in all sets together",
					 STAT_MAX_EVENTS);
		for (k = 0; k < 2; k++)
			add_detailed_event(s, o, detailed_events[p][k], have[k] ? &ent[k] : NULL);
	}
	return 0;
}

/* The cycle counter's mode: the events' when they all share one, else the default. */
static uint32_t cycle_mode(const struct stat_setup *s, const struct stat_opts *o)
{
	size_t i;

	for (i = 1; i < s->nr_events; i++)
		if (s->ev[i].spec.flags != s->ev[0].spec.flags)
			return default_mode(o);
	return s->nr_events ? s->ev[0].spec.flags : default_mode(o);
}

int stat_setup_events(const struct stat_opts *o, uint32_t midr, unsigned int counters,
		      struct stat_setup *s, char *err, size_t errlen)
{
	const char *name = o->preset ? o->preset : "default";
	unsigned int i;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->midr = midr;
	if (err && errlen)
		err[0] = '\0';
	if (o->backend == STAT_CLOCK) {
		/* Nothing to count. */
	} else if (o->nr_event_args) {
		for (i = 0; i < o->nr_event_args && !ret; i++)
			ret = add_arg(s, o, o->event_args[i], err, errlen);
	} else {
		s->preset = pmuser_preset_find(name);
		if (!s->preset)
			return stat_fail(-ENOENT, err, errlen, "unknown preset '%s'", name);
		ret = add_preset(s, o, counters, err, errlen);
	}
	if (!ret && o->detailed && o->backend != STAT_CLOCK)
		ret = add_detailed(s, o, counters, err, errlen);
	s->cycle_mode = cycle_mode(s, o);
	return ret;
}

/* ---- metrics ------------------------------------------------------------------------------ */

/*
 * One estimate per event number, in the cycle counter's mode only: the sum of the raw counts
 * of every copy over the sum of their duty cycles, so two half-time copies make one
 * full-time estimate. Returns false when the event was not counted.
 */
bool stat_event_estimate(const struct stat_setup *s, uint32_t number, double *out)
{
	double raw = 0, duty = 0;
	size_t i;

	for (i = 0; i < s->nr_events; i++) {
		const struct stat_event *e = &s->ev[i];

		if (e->spec.event != number || !e->supported || e->spec.flags != s->cycle_mode)
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
	/*
	 * Each event of the cycle counter's mode once, by the library's name for it (the metrics
	 * name events so); an event of another mode, or a number the core's tables do not
	 * name, feeds no metric.
	 */
	for (i = 0; i < s->nr_events; i++) {
		const struct stat_event *e = &s->ev[i];
		double est;

		if (e->spec.flags != s->cycle_mode || !e->spec.name)
			continue;
		for (k = 0; k < i; k++)
			if (s->ev[k].spec.event == e->spec.event &&
			    s->ev[k].spec.flags == s->cycle_mode)
				break;
		/* A 0 nothing confirms the CPU counts feeds no metric. */
		if (k == i && stat_event_estimate(s, e->spec.event, &est) && !(e->unconfirmed && est <= 0))
			v[nv++] = (struct pmuser_value){ e->spec.name, est };
	}
	/* Only what could be computed: a zero divisor leaves a metric out. */
	n = pmuser_metrics_eval(v, nv, all, STAT_MAX_METRICS);
	for (i = 0; i < n && kept < max; i++)
		if (!isnan(all[i].value))
			out[kept++] = all[i];
	return kept;
}
