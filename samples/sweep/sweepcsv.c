// SPDX-License-Identifier: MIT
/* Reader and writer of the pmu-sweep CSV format; see sweepcsv.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sweepcsv.h"

#define HEADER "# pmu-sweep v1 unit=cycles|ns"

const char *sweepcsv_unit_name(enum sweepcsv_unit unit)
{
	return unit == SWEEPCSV_NS ? "ns" : "cycles";
}

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t len, unsigned long line, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(err, len, "line %lu: %s", line, msg);
	else
		snprintf(err, len, "%s", msg);
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (e > s && strchr(" \t\r\n", e[-1]))
		*--e = '\0';
	return s;
}

/* First line: "# pmu-sweep v1" then space-separated key=value; unit= is required. */
static int parse_header(char *line, struct sweepcsv *out, char *err, size_t len)
{
	const char *prefix = "# pmu-sweep ";
	char *tok, *save, *unit = NULL;

	if (strncmp(line, prefix, strlen(prefix)))
		return fail(err, len, 1, "missing '%s' header", HEADER);
	tok = strtok_r(line + strlen(prefix), " \t", &save);
	if (!tok || strcmp(tok, "v1"))
		return fail(err, len, 1, "unsupported version '%.16s' (want v1)", tok ? tok : "");
	while ((tok = strtok_r(NULL, " \t", &save)))
		if (!strncmp(tok, "unit=", 5))
			unit = tok + 5;
	if (!unit)
		return fail(err, len, 1, "header has no unit=cycles|ns");
	if (!strcmp(unit, "cycles"))
		out->unit = SWEEPCSV_CYCLES;
	else if (!strcmp(unit, "ns"))
		out->unit = SWEEPCSV_NS;
	else
		return fail(err, len, 1, "unknown unit '%.16s' (want cycles or ns)", unit);
	return 0;
}

/* Splits "a,b[,...]" into trimmed a and b; returns -1 without a comma. */
static int split2(char *line, char **a, char **b)
{
	char *c = strchr(line, ',');

	if (!c)
		return -1;
	*c = '\0';
	*a = trim(line);
	*b = c + 1;
	c = strchr(*b, ',');
	if (c)
		*c = '\0';
	*b = trim(*b);
	return 0;
}

static int parse_row(char *line, unsigned long ln, struct sweepcsv *out, size_t *cap,
		     char *err, size_t len)
{
	char *a, *b, *end;
	unsigned long long size;
	double lat;

	if (split2(line, &a, &b))
		return fail(err, len, ln, "expected 'size_bytes,latency', got '%.32s'", trim(line));
	errno = 0;
	size = strtoull(a, NULL, 10);
	if (!*a || strspn(a, "0123456789") != strlen(a) || errno || !size)
		return fail(err, len, ln, "size '%.32s' is not a positive integer", a);
	lat = strtod(b, &end);
	/* A measured minimum of 0 or less is kept: it is what pmu-sweep wrote (no tiers then). */
	if (!*b || *end || !isfinite(lat))
		return fail(err, len, ln, "latency '%.32s' is not a number", b);
	if (out->n && size <= out->pts[out->n - 1].size)
		return fail(err, len, ln, "size %llu not above the previous %llu (sizes must increase)",
			    size, (unsigned long long)out->pts[out->n - 1].size);
	if (out->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		struct tiers_point *p = realloc(out->pts, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		out->pts = p;
		*cap = ncap;
	}
	out->pts[out->n++] = (struct tiers_point){ size, lat };
	return 0;
}

static int add_meta(struct sweepcsv *out, const char *text)
{
	char **m = realloc(out->meta, (out->nmeta + 1) * sizeof(*m));

	if (!m)
		return -ENOMEM;
	out->meta = m;
	m[out->nmeta] = strdup(text);
	if (!m[out->nmeta])
		return -ENOMEM;
	out->nmeta++;
	return 0;
}

int sweepcsv_read(FILE *f, struct sweepcsv *out, char *err, size_t errlen)
{
	enum { WANT_COLUMNS, ROWS } state = WANT_COLUMNS;
	char *line = NULL, *s, *a, *b;
	size_t linecap = 0, cap = 0;
	unsigned long ln = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	snprintf(err, errlen, "%s", "");
	errno = 0;
	while (!ret && getline(&line, &linecap, f) >= 0) {
		s = trim(line);
		if (++ln == 1) {
			ret = parse_header(s, out, err, errlen);
		} else if (*s == '#') {
			ret = add_meta(out, trim(s + 1));
		} else if (!*s) {
			continue;
		} else if (state == WANT_COLUMNS) {
			if (split2(s, &a, &b) || strcmp(a, "size_bytes") || strcmp(b, "latency"))
				ret = fail(err, errlen, ln, "expected column header 'size_bytes,latency'");
			state = ROWS;
		} else {
			ret = parse_row(s, ln, out, &cap, err, errlen);
		}
	}
	free(line);
	/* A read that failed left its errno (EISDIR for a directory, EIO, ...). */
	if (!ret && ferror(f))
		ret = errno ? -errno : -EIO;
	else if (!ret && !ln)
		ret = fail(err, errlen, 1, "missing '%s' header", HEADER);
	else if (!ret && state == WANT_COLUMNS)
		ret = fail(err, errlen, 0, "missing column header 'size_bytes,latency'");
	else if (!ret && out->n < TIERS_MIN_POINTS)
		ret = fail(err, errlen, 0, "too few points: %zu (need at least %d)", out->n,
			   TIERS_MIN_POINTS);
	if (ret)
		sweepcsv_free(out);
	return ret;
}

int sweepcsv_write(FILE *f, const struct sweepcsv *s)
{
	fprintf(f, "# pmu-sweep v1 unit=%s\n", sweepcsv_unit_name(s->unit));
	for (size_t i = 0; i < s->nmeta; i++)
		fprintf(f, "# %s\n", s->meta[i]);
	fputs("size_bytes,latency\n", f);
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%llu,%.10g\n", (unsigned long long)s->pts[i].size, s->pts[i].latency);
	return ferror(f) ? -EIO : 0;
}

void sweepcsv_free(struct sweepcsv *s)
{
	for (size_t i = 0; i < s->nmeta; i++)
		free(s->meta[i]);
	free(s->meta);
	free(s->pts);
	memset(s, 0, sizeof(*s));
}
