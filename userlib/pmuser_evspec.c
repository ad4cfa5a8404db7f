// SPDX-License-Identifier: MIT
/*
 * Event-spec parser: "inst_retired,cpu_cycles:u,0x11,l1d_cache_refill:k,r1b", and perf's
 * forms of the same: "instructions:u", "armv8_pmuv3_0/inst_retired/", "armv8_pmuv3_0/event=0x8/k".
 *
 * Numbers must be hex, as 0x1b or as perf's raw r1b: a bare "11" could be meant in either base,
 * and guessing wrong would silently count a different event. Inside a PMU's slashes perf reads
 * event=8 as decimal, so there a number means what it means to perf.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pmuser.h"

#define EVENT_MAX	0xffff
/* Longer than any event name in the tables, so a longer word cannot name an event. */
#define NAME_LEN_MAX	64
/* How much of an offending element a message quotes. */
#define QUOTE_MAX	48

struct element {
	const char *text;	/* not NUL-terminated: ends at the comma */
	size_t len;
	size_t pos;		/* 1-based, for messages */
	char *err;
	size_t errlen;
};

static int quote_len(size_t len)
{
	return len < QUOTE_MAX ? (int)len : QUOTE_MAX;
}

/* Writes "event N 'text': reason" (or just the reason without el) and returns ret. */
static int __attribute__((format(printf, 5, 6)))
fail(char *err, size_t errlen, const struct element *el, int ret, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!err || !errlen)
		return ret;
	if (el)
		n = snprintf(err, errlen, "event %zu '%.*s%s': ", el->pos, quote_len(el->len),
			     el->text, el->len > QUOTE_MAX ? "..." : "");
	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - n, fmt, ap);
		va_end(ap);
	}
	return ret;
}

#define el_fail(el, ret, ...) fail((el)->err, (el)->errlen, el, ret, __VA_ARGS__)

static int bad_char(const struct element *el, char c, const char *where)
{
	if (isprint((unsigned char)c))
		return el_fail(el, -EINVAL, "unexpected '%c' %s", c, where);
	return el_fail(el, -EINVAL, "unexpected byte 0x%02x %s", (unsigned char)c, where);
}

static unsigned int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	return (c | 0x20) - 'a' + 10;
}

/* Reads hex digits from s[0..len); *val stops growing once above EVENT_MAX, so cannot wrap. */
static size_t hex_parse(const char *s, size_t len, uint32_t *val)
{
	uint32_t v = 0;
	size_t i;

	for (i = 0; i < len && isxdigit((unsigned char)s[i]); i++)
		if (v <= EVENT_MAX)
			v = v * 16 + hex_digit(s[i]);
	*val = v;
	return i;
}

static bool is_raw(const char *s, size_t len)
{
	uint32_t val;

	return len > 1 && (s[0] == 'r' || s[0] == 'R') && hex_parse(s + 1, len - 1, &val) == len - 1;
}

static int number_parse(const struct element *el, size_t len, size_t prefix, uint32_t midr,
			struct pmuser_evspec_entry *e)
{
	const char *digits = el->text + prefix;
	size_t n;
	uint32_t val;

	n = hex_parse(digits, len - prefix, &val);
	if (!n)
		return el_fail(el, -EINVAL, "no hex digits after '%.*s'", (int)prefix, el->text);
	if (prefix + n < len)
		return bad_char(el, digits[n], "after the number");
	if (val > EVENT_MAX)
		return el_fail(el, -ERANGE, "event number above 0x%x", EVENT_MAX);
	e->event = val;
	e->name = pmuser_event_name(midr, val);
	return 0;
}

/*
 * perf's generic hardware events (PERF_COUNT_HW_*), the columns of the maps below, and the
 * names perf takes for them.
 */
enum perf_hw {
	HW_CYCLES, HW_INSTRUCTIONS, HW_CACHE_REFERENCES, HW_CACHE_MISSES, HW_BRANCHES,
	HW_BRANCH_MISSES, HW_BUS_CYCLES, HW_STALLED_FRONTEND, HW_STALLED_BACKEND, NR_HW
};

static const struct generic {
	const char *perf;
	enum perf_hw hw;
} generics[] = {
	{ "cycles", HW_CYCLES },
	{ "cpu-cycles", HW_CYCLES },
	{ "instructions", HW_INSTRUCTIONS },
	{ "branches", HW_BRANCHES },
	{ "branch-instructions", HW_BRANCHES },
	{ "branch-misses", HW_BRANCH_MISSES },
	{ "cache-references", HW_CACHE_REFERENCES },
	{ "cache-misses", HW_CACHE_MISSES },
	{ "bus-cycles", HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", HW_STALLED_FRONTEND },
	{ "stalled-cycles-backend", HW_STALLED_BACKEND },
};

/* perf's map has no event for the name (the kernel's HW_OP_UNSUPPORTED): not supported. */
#define NONE	(-1)
/* ARMv6 perf's cycles: the driver places event 0xff on the cycle counter, only there. */
#define CCNT	0xff
/*
 * ARMv7 cycles. perf's driver places them on the cycle counter (as event 0xff). A counter
 * set holds that counter for its own cycle count, and a second event for it could never be
 * scheduled beside it: the name takes the architected CPU_CYCLES event (0x11) instead, which
 * counts the same cycles on an event counter, as ARMv8's map does.
 */
#define V7_CYCLES	0x11

/*
 * The event Linux's perf driver for a core counts for each generic name: the driver's map,
 * in PERF_COUNT_HW_* order. ARMv7 cores: perf_event_v7.c (arch/arm/kernel/ in 6.1,
 * drivers/perf/arm_v7_pmu.c in 6.12 and 7.3, the maps the same); the ARM1176:
 * perf_event_v6.c (arm_v6_pmu.c in 6.12 and 7.3). Both drivers take the map the PMU's
 * devicetree compatible names, that of the core, so here the core's name picks it.
 */
struct perf_map {
	const char *cores[2];		/* as pmuser_core_name() names them */
	int event[NR_HW];
};

static const struct perf_map perf_maps[] = {
	/*  cycles  instr  c-ref  c-miss branch br-miss bus   st-fe  st-be */
	/*
	 * armv6_perf_map. No cache-references or cache-misses: the caches are Harvard and the
	 * PMU has no event counting I and D accesses together. Front-end stalls are the
	 * instruction buffer's (0x01), back-end ones the load/store unit's being full (0x11).
	 */
	{ { "ARM1176" },
	  { CCNT,   0x07,  NONE,  NONE,  0x05,  0x06,   NONE, 0x01,  0x11 } },
	/*
	 * ARMv7: cache-references and cache-misses are the L1 D-cache's accesses (0x04) and
	 * refills (0x03); branches are PC writes (0x0c) unless a row says otherwise: the
	 * driver's equivalent of branch instructions (taken branches, other writes of the PC,
	 * exception-generating instructions). Where a row has NONE the map has no event.
	 */
	/* armv7_a5_perf_map. */
	{ { "Cortex-A5" },
	  { V7_CYCLES, 0x08,  0x04,  0x03,  0x0c,  0x10,   NONE, NONE,  NONE } },
	/* armv7_a7_perf_map. */
	{ { "Cortex-A7" },
	  { V7_CYCLES, 0x08,  0x04,  0x03,  0x0c,  0x10,   0x1d, NONE,  NONE } },
	/* armv7_a8_perf_map: front-end stalls are the A8's instruction-side stalls (0x56). */
	{ { "Cortex-A8" },
	  { V7_CYCLES, 0x08,  0x04,  0x03,  0x0c,  0x10,   NONE, 0x56,  NONE } },
	/*
	 * armv7_a9_perf_map: instructions are those leaving the A9's register-renaming stage
	 * (0x68); the stalls are its instruction-cache (0x60) and dispatch (0x66) stalls.
	 */
	{ { "Cortex-A9" },
	  { V7_CYCLES, 0x68,  0x04,  0x03,  0x0c,  0x10,   NONE, 0x60,  0x66 } },
	/*
	 * armv7_a12_perf_map (the A17's too: its driver setup is the A12's) and
	 * armv7_a15_perf_map: branches are speculatively executed PC writes (0x76).
	 */
	{ { "Cortex-A12", "Cortex-A17" },
	  { V7_CYCLES, 0x08,  0x04,  0x03,  0x76,  0x10,   0x1d, NONE,  NONE } },
	{ { "Cortex-A15" },
	  { V7_CYCLES, 0x08,  0x04,  0x03,  0x76,  0x10,   0x1d, NONE,  NONE } },
};

/*
 * Every ARMv8 core: drivers/perf/arm_pmuv3.c's armv8_pmuv3_perf_map. Branches are BR_RETIRED
 * where PMCEID reports it, else PC_WRITE_RETIRED (6.1's driver, in
 * arch/arm64/kernel/perf_event.c, takes PC_WRITE_RETIRED always): the parser knows the core,
 * not its PMCEID, and takes BR_RETIRED, which the ARMv8 tables list. The driver also refuses
 * a generic event PMCEID does not report, which pmuser_event_supported() tells. A 32-bit
 * kernel whose devicetree gives an ARMv8 core an ARMv7 PMU's compatible counts with that
 * ARMv7 map instead, which the MIDR does not tell.
 */
static const struct perf_map armv8_map = {
	{ NULL },
	{ 0x11,   0x08,  0x04,  0x03,  0x21,  0x10,   0x1d, 0x23,  0x24 },
};

/* The map of midr's core, or NULL where the core is not known well enough to choose one. */
static const struct perf_map *perf_map_find(uint32_t midr)
{
	const struct pmuser_event_table *tables[PMUSER_CORE_TABLES];
	const char *core = pmuser_core_name(midr);
	size_t i, k;

	for (i = 0; core && i < sizeof(perf_maps) / sizeof(perf_maps[0]); i++)
		for (k = 0; k < 2 && perf_maps[i].cores[k]; k++)
			if (!strcmp(perf_maps[i].cores[k], core))
				return &perf_maps[i];
	if (pmuser_core_tables(midr, tables) && !strcmp(tables[0]->name, "armv8"))
		return &armv8_map;
	return NULL;
}

static int core_fail(const struct element *el, uint32_t midr, int ret, const char *what)
{
	const char *core = pmuser_core_name(midr);

	if (core)
		return el_fail(el, ret, "%s on this core (%s)", what, core);
	return el_fail(el, ret, "%s on this core (MIDR 0x%08x)", what, midr);
}

/* 1 if s[0..len) is one of perf's generic names (then 0 or -ENOENT in *ret), else 0. */
static int generic_parse(const struct element *el, const char *s, size_t len, uint32_t midr,
			 struct pmuser_evspec_entry *e, int *ret)
{
	const struct perf_map *map;
	size_t i;

	for (i = 0; i < sizeof(generics) / sizeof(generics[0]); i++) {
		const struct generic *g = &generics[i];

		if (strlen(g->perf) != len || strncasecmp(g->perf, s, len))
			continue;
		map = perf_map_find(midr);
		if (!map || map->event[g->hw] == NONE) {
			*ret = core_fail(el, midr, -ENOENT, "perf's name is not supported");
			return 1;
		}
		e->event = (uint32_t)map->event[g->hw];
		e->name = pmuser_event_name(midr, e->event);
		*ret = 0;
		return 1;
	}
	return 0;
}

/* The event named by s[0..len): a name of the core's tables or one of perf's generic names. */
static int name_parse(const struct element *el, const char *s, size_t len, uint32_t midr,
		      struct pmuser_evspec_entry *e)
{
	const struct pmuser_event *ev;
	char name[NAME_LEN_MAX];
	size_t i;
	int ret;

	if (generic_parse(el, s, len, midr, e, &ret))
		return ret;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!(isalpha((unsigned char)c) || c == '_' || (i && isdigit((unsigned char)c))))
			return bad_char(el, c, i ? "in the event name" : "at the start");
	}
	if (len < sizeof(name)) {
		memcpy(name, s, len);
		name[len] = '\0';
		if (!pmuser_event_lookup(midr, name, &ev)) {
			e->event = ev->number;
			e->name = ev->name;
			return 0;
		}
	}
	return core_fail(el, midr, -ENOENT, "no event of that name");
}

static int modifiers_parse(const struct element *el, const char *mod, size_t len, uint32_t *flags)
{
	uint32_t f = 0, bit;
	size_t i;

	for (i = 0; i < len; i++) {
		bit = mod[i] == 'u' ? PMUSER_COUNT_USER : mod[i] == 'k' ? PMUSER_COUNT_KERNEL : 0;
		if (!bit || (f & bit))
			break;
		f |= bit;
	}
	if (!len || i < len)
		return el_fail(el, -EINVAL, "bad modifier ':%.*s' (use :u, :k or :uk)",
			       quote_len(len), mod);
	*flags = f;
	return 0;
}

/* A CPU PMU as Linux names it: armv6_1176, armv7_cortex_a15, armv8_pmuv3_0, armv8_cortex_a72. */
static bool is_cpu_pmu(const char *s, size_t len)
{
	return len > 6 && !strncmp(s, "armv", 4) && isdigit((unsigned char)s[4]) && s[5] == '_';
}

/*
 * The N of event=N, as perf reads it: hex after 0x, else decimal. A leading 0 is refused, as
 * perf would read the digits as octal.
 */
static int term_number(const struct element *el, const char *s, size_t len, uint32_t midr,
		       struct pmuser_evspec_entry *e)
{
	uint32_t v = 0;
	size_t i = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		i = hex_parse(s + 2, len - 2, &v);
		if (!i)
			return el_fail(el, -EINVAL, "no hex digits after 'event=0x'");
		i += 2;
	} else if (len > 1 && s[0] == '0') {
		return el_fail(el, -EINVAL, "perf reads event=0N as octal: write hex, as event=0x8");
	} else {
		for (; i < len && isdigit((unsigned char)s[i]); i++)
			if (v <= EVENT_MAX)
				v = v * 10 + (uint32_t)(s[i] - '0');
		if (!i)
			return el_fail(el, -EINVAL, "event= needs a number, as event=0x8");
	}
	if (i < len)
		return bad_char(el, s[i], "after the number");
	if (v > EVENT_MAX)
		return el_fail(el, -ERANGE, "event number above 0x%x", EVENT_MAX);
	e->event = v;
	e->name = pmuser_event_name(midr, v);
	return 0;
}

/*
 * perf's "pmu/term/": the PMU must be a CPU one, the term an event name or event=N. *end is
 * the length up to and with the closing slash, where the modifiers start.
 */
static int pmu_parse(const struct element *el, uint32_t midr, struct pmuser_evspec_entry *e,
		     size_t *end)
{
	const char *s = el->text, *t = (const char *)memchr(s, '/', el->len) + 1;
	const char *close;
	size_t plen = (size_t)(t - 1 - s), tlen;

	close = memchr(t, '/', el->len - plen - 1);
	if (!plen)
		return el_fail(el, -EINVAL, "missing PMU name before '/'");
	if (!is_cpu_pmu(s, plen))
		return el_fail(el, -ENOENT,
			       "'%.*s' is not a CPU PMU (those are armvN_..., as armv8_pmuv3_0)",
			       quote_len(plen), s);
	if (!close)
		return el_fail(el, -EINVAL, "no closing '/' after the event");
	tlen = (size_t)(close - t);
	*end = (size_t)(close - s) + 1;
	if (!tlen)
		return el_fail(el, -EINVAL, "no event between the slashes");
	if (memchr(t, ',', tlen))
		return el_fail(el, -EINVAL, "one term between the slashes: an event name or event=");
	if (tlen >= 6 && !strncmp(t, "event=", 6))
		return term_number(el, t + 6, tlen - 6, midr, e);
	if (memchr(t, '=', tlen))
		return el_fail(el, -EINVAL, "term '%.*s' is not supported (use event= or a name)",
			       quote_len(tlen), t);
	return name_parse(el, t, tlen, midr, e);
}

/* "name", "0x1b" or "r1b", up to the modifiers' colon, whose offset *end gets. */
static int plain_parse(const struct element *el, uint32_t midr, struct pmuser_evspec_entry *e,
		       size_t *end)
{
	const char *s = el->text, *colon = memchr(s, ':', el->len);
	size_t len = colon ? (size_t)(colon - s) : el->len;

	*end = len;
	if (!len)
		return el_fail(el, -EINVAL, "missing event name or number");
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return number_parse(el, len, 2, midr, e);
	if (is_raw(s, len))
		return number_parse(el, len, 1, midr, e);
	if (len >= 3 && (s[0] == 'r' || s[0] == 'R') && s[1] == '0' &&
	    (s[2] == 'x' || s[2] == 'X'))
		return el_fail(el, -EINVAL, "a raw number is r and hex digits, as r1b (or 0x1b)");
	if (isdigit((unsigned char)s[0]))
		return el_fail(el, -EINVAL,
			       "numbers must be hex, as 0x1b or r1b (decimal would be ambiguous)");
	return name_parse(el, s, len, midr, e);
}

/*
 * One event and its modifiers: ":u" after a plain event; after a PMU's closing slash the
 * modifiers follow directly as perf writes them ("/u"), or after a colon.
 */
static int element_parse(const struct element *el, uint32_t midr, struct pmuser_evspec_entry *e)
{
	bool pmu = memchr(el->text, '/', el->len) != NULL;
	size_t end = 0;
	int ret;

	ret = pmu ? pmu_parse(el, midr, e, &end) : plain_parse(el, midr, e, &end);
	if (ret)
		return ret;
	e->flags = PMUSER_COUNT_USER;
	if (end == el->len)
		return 0;
	if (el->text[end] == ':' || !pmu)
		end++;
	return modifiers_parse(el, el->text + end, el->len - end, &e->flags);
}

/* An element ends at a comma outside a PMU's slashes. */
static size_t element_len(const char *s)
{
	bool inside = false;
	size_t i;

	for (i = 0; s[i] && (s[i] != ',' || inside); i++)
		if (s[i] == '/')
			inside = !inside;
	return i;
}

int pmuser_evspec_parse(const char *spec, uint32_t midr, struct pmuser_evspec_entry *out,
			size_t max, size_t *count, char *err, size_t errlen)
{
	struct element el = { .text = spec, .pos = 1, .err = err, .errlen = errlen };
	size_t n = 0;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!count || (max && !out))
		return fail(err, errlen, NULL, -EINVAL, "invalid arguments");
	if (!spec || !*spec)
		return fail(err, errlen, NULL, -EINVAL, "empty event spec");
	for (;;) {
		el.len = element_len(el.text);
		if (!el.len)
			return el_fail(&el, -EINVAL, "empty element");
		if (n == max)
			return el_fail(&el, -E2BIG, "more than %zu events", max);
		ret = element_parse(&el, midr, &out[n]);
		if (ret)
			return ret;
		out[n].offset = (uint32_t)(el.text - spec);
		out[n].length = (uint32_t)el.len;
		n++;
		if (!el.text[el.len])
			break;
		el.text += el.len + 1;
		el.pos++;
	}
	*count = n;
	return 0;
}
