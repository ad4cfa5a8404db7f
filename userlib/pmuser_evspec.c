// SPDX-License-Identifier: MIT
/*
 * Event-spec parser: "inst_retired,cpu_cycles:u,0x11,l1d_cache_refill:k,r1b", and perf's
 * forms of the same: "instructions:u", "L1-dcache-load-misses", "armv8_pmuv3_0/inst_retired/",
 * "armv8_pmuv3_0/event=0x8/k" (perf's names: pmuser_perfnames.c).
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

#include "pmuser_internal.h"

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

static int core_fail(const struct element *el, uint32_t midr, int ret, const char *what)
{
	const char *core = pmuser_core_name(midr);

	if (core)
		return el_fail(el, ret, "%s on this core (%s)", what, core);
	return el_fail(el, ret, "%s on this core (MIDR 0x%08x)", what, midr);
}

/*
 * 1 if s[0..len) is one of perf's generic or hardware cache names (then 0 or -errno in *ret),
 * else 0.
 */
static int perf_name_parse(const struct element *el, const char *s, size_t len, uint32_t midr,
			   struct pmuser_evspec_entry *e, int *ret)
{
	char why[160];
	uint32_t event;
	int r = pmuser__perf_event(s, len, midr, &event, why, sizeof(why));

	if (r > 0)
		return 0;
	if (!r) {
		e->event = event;
		e->name = pmuser_event_name(midr, event);
		*ret = 0;
	} else if (why[0]) {
		*ret = el_fail(el, r, "%s", why);
	} else {
		*ret = core_fail(el, midr, r, "perf's name is not supported");
	}
	return 1;
}

/* The event named by s[0..len): a name of the core's tables or one of perf's names. */
static int name_parse(const struct element *el, const char *s, size_t len, uint32_t midr,
		      struct pmuser_evspec_entry *e)
{
	const struct pmuser_event *ev;
	char name[NAME_LEN_MAX];
	size_t i;
	int ret;

	if (perf_name_parse(el, s, len, midr, e, &ret))
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
