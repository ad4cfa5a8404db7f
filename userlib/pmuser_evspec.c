// SPDX-License-Identifier: MIT
/*
 * Event-spec parser: "inst_retired,cpu_cycles:u,0x11,l1d_cache_refill:k,r1b".
 *
 * Numbers must be hex, as 0x1b or as perf's raw r1b: a bare "11" could be meant in either base,
 * and guessing wrong would silently count a different event.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

static int name_parse(const struct element *el, size_t len, uint32_t midr,
		      struct pmuser_evspec_entry *e)
{
	const struct pmuser_event *ev;
	char name[NAME_LEN_MAX];
	const char *core;
	size_t i;

	for (i = 0; i < len; i++) {
		char c = el->text[i];

		if (!(isalpha((unsigned char)c) || c == '_' || (i && isdigit((unsigned char)c))))
			return bad_char(el, c, i ? "in the event name" : "at the start");
	}
	if (len < sizeof(name)) {
		memcpy(name, el->text, len);
		name[len] = '\0';
		if (!pmuser_event_lookup(midr, name, &ev)) {
			e->event = ev->number;
			e->name = ev->name;
			return 0;
		}
	}
	core = pmuser_core_name(midr);
	if (core)
		return el_fail(el, -ENOENT, "no event of that name on %s", core);
	return el_fail(el, -ENOENT, "no event of that name on MIDR 0x%08x", midr);
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

static int element_parse(const struct element *el, uint32_t midr, struct pmuser_evspec_entry *e)
{
	const char *s = el->text, *colon = memchr(s, ':', el->len);
	size_t len = colon ? (size_t)(colon - s) : el->len;
	int ret;

	if (!len)
		return el_fail(el, -EINVAL, "missing event name or number");
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		ret = number_parse(el, len, 2, midr, e);
	else if (is_raw(s, len))
		ret = number_parse(el, len, 1, midr, e);
	else if (len >= 3 && (s[0] == 'r' || s[0] == 'R') && s[1] == '0' &&
		 (s[2] == 'x' || s[2] == 'X'))
		ret = el_fail(el, -EINVAL, "a raw number is r and hex digits, as r1b (or 0x1b)");
	else if (isdigit((unsigned char)s[0]))
		ret = el_fail(el, -EINVAL,
			      "numbers must be hex, as 0x1b or r1b (decimal would be ambiguous)");
	else
		ret = name_parse(el, len, midr, e);
	if (ret)
		return ret;
	e->flags = PMUSER_COUNT_USER;
	if (colon)
		return modifiers_parse(el, colon + 1, el->len - len - 1, &e->flags);
	return 0;
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
		el.len = strcspn(el.text, ",");
		if (!el.len)
			return el_fail(&el, -EINVAL, "empty element");
		if (n == max)
			return el_fail(&el, -E2BIG, "more than %zu events", max);
		ret = element_parse(&el, midr, &out[n]);
		if (ret)
			return ret;
		n++;
		if (!el.text[el.len])
			break;
		el.text += el.len + 1;
		el.pos++;
	}
	*count = n;
	return 0;
}
