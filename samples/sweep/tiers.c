// SPDX-License-Identifier: MIT
/*
 * Tier detection. Works on y = ln(latency); sizes only give the order of the points.
 *
 * 1. Median-of-3 filter, with Tukey's end-point rule at both ends, so that a lone outlier
 *    cannot form a plateau of its own; a monotone staircase passes through unchanged. (So a
 *    lone end point is kept only if it continues the trend of its two neighbours.)
 * 2. Optimal piecewise-constant segmentation by dynamic programming: minimise the squared
 *    error plus TIERS_PENALTY per segment. The penalty is small: only points within ~20%
 *    of each other share a segment, so transitional points get segments of their own.
 * 3. A two-point segment that is not flatter than its edges is a ramp and is split.
 * 4. Merge the adjacent pair of segments with the closest medians while their ratio is below
 *    TIERS_MIN_STEP; two lone points are never paired. Gradual rises within a level (TLB
 *    misses, the "weird" point just below capacity) and ramp points that are near a level
 *    join that plateau.
 * 5. A lone point still between two segments is a transition, not a tier: it is dropped.
 * 6. Step 4 again, across the dropped points (the two sides may be one level around a spike),
 *    and until at most TIERS_MAX tiers remain.
 *
 * Tier latency = median of the raw latencies on the plateau. Capacity = the plateau's last
 * size, i.e. the largest size still measured at plateau latency (no interpolation into the
 * transition, whose shape depends on replacement policy and prefetchers, not capacity).
 * Labels: L1, L2, L3/SLC, L4, L? in order; the last of several tiers is DRAM only if the
 * sweep reaches at least 4x (two octaves) past the previous tier's capacity, as nearer than
 * that it may be one more cache. A lone tier is "flat": no step (e.g. under emulation).
 * TLB reach, best effort: in each tier of >= 2 * TIERS_TLB_SIDE points, the split (>=
 * TIERS_TLB_SIDE points a side) with the largest ratio of side medians counts if that ratio
 * is >= TIERS_TLB_STEP and, in ln, at least twice the spread of either side (a step, not a
 * ramp). The largest such step over all tiers is reported.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "size_suffix.h"
#include "tiers.h"

#define TIERS_PENALTY	0.02	/* DP cost per segment, in ln(latency)^2 */
#define TIERS_TLB_STEP	1.15
#define TIERS_TLB_SIDE	3

struct seg {
	size_t first, last;	/* inclusive point indexes */
	double med;		/* median of the filtered ln(latency) */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of v[first..last]; tmp holds at least the range. */
static double median(const double *v, size_t first, size_t last, double *tmp)
{
	size_t m = last - first + 1;

	memcpy(tmp, v + first, m * sizeof(*tmp));
	qsort(tmp, m, sizeof(*tmp), cmp_double);
	return m % 2 ? tmp[m / 2] : (tmp[m / 2 - 1] + tmp[m / 2]) / 2;
}

static double med3(double a, double b, double c)
{
	return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

/* End points are compared with the line through their two neighbours (Tukey). */
static void filter(const double *x, double *y, size_t n)
{
	for (size_t i = 1; i + 1 < n; i++)
		y[i] = med3(x[i - 1], x[i], x[i + 1]);
	y[0] = med3(x[0], x[1], 3 * x[1] - 2 * x[2]);
	y[n - 1] = med3(x[n - 1], x[n - 2], 3 * x[n - 2] - 2 * x[n - 3]);
}

/* Step 2: fills seg[] in order and returns the count. work holds 3 * (n + 1) doubles. */
static size_t segment(const double *y, size_t n, struct seg *seg, double *work, size_t *from)
{
	double *s1 = work, *s2 = work + n + 1, *best = work + 2 * (n + 1);
	size_t k = 0;

	s1[0] = s2[0] = best[0] = 0;
	for (size_t i = 0; i < n; i++) {
		s1[i + 1] = s1[i] + y[i];
		s2[i + 1] = s2[i] + y[i] * y[i];
	}
	/* best[j]: cost of y[0..j-1]; its last segment starts at from[j]. */
	for (size_t j = 1; j <= n; j++) {
		best[j] = INFINITY;
		for (size_t i = 0; i < j; i++) {
			double s = s1[j] - s1[i], sse = s2[j] - s2[i] - s * s / (j - i);
			double c = best[i] + fmax(sse, 0) + TIERS_PENALTY;

			if (c < best[j]) {
				best[j] = c;
				from[j] = i;
			}
		}
	}
	for (size_t j = n; j > 0; j = from[j])
		k++;
	for (size_t j = n, i = k; j > 0; j = from[j]) {
		seg[--i].first = from[j];
		seg[i].last = j - 1;
	}
	return k;
}

/*
 * Step 3. An interior pair that is not flatter than its edges (its internal step is more than
 * half the step into or out of it) is two points of a ramp, not a plateau: split it so each
 * point can join the plateau on its side.
 */
static size_t split_ramps(struct seg *s, size_t k, const double *y)
{
	for (size_t i = k - 1; i-- > 1;) {
		size_t f = s[i].first;

		if (s[i].last != f + 1 || 2 * fabs(y[f + 1] - y[f]) <=
		    fmin(fabs(y[f] - y[f - 1]), fabs(y[f + 2] - y[f + 1])))
			continue;
		memmove(&s[i + 1], &s[i], (k - i) * sizeof(*s));
		k++;
		s[i].last = f;
		s[i + 1].first = f + 1;
	}
	return k;
}

/*
 * Steps 4 and 6: merge the closest adjacent pair while it is closer than TIERS_MIN_STEP or
 * there are more than max segments. Two lone points never make a plateau by themselves.
 */
static size_t merge(struct seg *s, size_t k, size_t max, const double *y, double *tmp)
{
	for (;;) {
		size_t b = k;
		double d = INFINITY;

		for (size_t i = 0; i + 1 < k; i++)
			if (fabs(s[i + 1].med - s[i].med) < d &&
			    (k > max || s[i].last > s[i].first || s[i + 1].last > s[i + 1].first)) {
				d = fabs(s[i + 1].med - s[i].med);
				b = i;
			}
		if (b == k || (d >= log(TIERS_MIN_STEP) && k <= max))
			return k;
		s[b].last = s[b + 1].last;
		s[b].med = median(y, s[b].first, s[b].last, tmp);
		memmove(&s[b + 1], &s[b + 2], (k - b - 2) * sizeof(*s));
		k--;
	}
}

/* Step 5: a lone point between two segments is a transition. */
static size_t drop_transitions(struct seg *s, size_t k)
{
	size_t out = 0;

	for (size_t i = 0; i < k; i++)
		if (i == 0 || i == k - 1 || s[i].last > s[i].first)
			s[out++] = s[i];
	return out;
}

static void spread(const double *y, size_t first, size_t last, double *lo, double *hi)
{
	*lo = *hi = y[first];
	for (size_t i = first + 1; i <= last; i++) {
		*lo = fmin(*lo, y[i]);
		*hi = fmax(*hi, y[i]);
	}
}

static void find_tlb(const struct tiers_point *pts, const double *y, double *tmp,
		     struct tiers_result *res)
{
	double top = 0;

	for (size_t t = 0; t < res->n; t++) {
		const struct tiers_level *l = &res->level[t];

		/* c: first point right of the split */
		for (size_t c = l->first + TIERS_TLB_SIDE; c + TIERS_TLB_SIDE <= l->last + 1; c++) {
			double gap = median(y, c, l->last, tmp) - median(y, l->first, c - 1, tmp);
			double lo1, hi1, lo2, hi2;

			spread(y, l->first, c - 1, &lo1, &hi1);
			spread(y, c, l->last, &lo2, &hi2);
			if (gap < log(TIERS_TLB_STEP) || gap <= top ||
			    gap < 2 * fmax(hi1 - lo1, hi2 - lo2))
				continue;
			top = gap;
			res->tlb = (struct tiers_tlb){ 1, t, pts[c - 1].size, pts[c].size, exp(gap) };
		}
	}
}

static void fill(const struct tiers_point *pts, const double *lat, const struct seg *s,
		 size_t k, double *tmp, struct tiers_result *res)
{
	static const char *const names[] = { "L1", "L2", "L3/SLC", "L4" };

	res->n = k;
	for (size_t i = 0; i < k; i++) {
		struct tiers_level *l = &res->level[i];

		l->label = i < sizeof(names) / sizeof(names[0]) ? names[i] : "L?";
		l->latency = median(lat, s[i].first, s[i].last, tmp);
		l->first = s[i].first;
		l->last = s[i].last;
		l->first_size = pts[l->first].size;
		l->last_size = l->capacity = pts[l->last].size;
		l->step = 0;
		if (i > 0)
			res->level[i - 1].step = l->latency / res->level[i - 1].latency;
	}
	if (k == 1)
		res->level[0].label = "flat";
	else if (res->level[k - 1].last_size / 4 >= res->level[k - 2].capacity)
		res->level[k - 1].label = "DRAM";
	/* Nothing after the last tier was measured: where it ends is unknown. */
	res->level[k - 1].open = 1;
	res->swept = pts[res->level[k - 1].last].size;
	res->swept_from = pts[0].size;
}

static const char *level_name(unsigned int lv)
{
	static const char *const names[] = { "L?", "L1", "L2", "L3", "L4" };

	return lv < sizeof(names) / sizeof(names[0]) ? names[lv] : "L?";
}

void tiers_reconcile(struct tiers_result *res, const struct tiers_cache *caches, size_t nr)
{
	struct tiers_level *last = &res->level[res->n - 1];
	size_t n = res->n, next = 0;

	res->nr_caches = nr < TIERS_MAX ? nr : TIERS_MAX;
	for (size_t c = 0; c < res->nr_caches; c++) {
		res->cache[c] = caches[c];
		res->cache_tier[c] = -1;
	}
	/* One plateau ("flat") has no step to put a name to. */
	if (!res->nr_caches || n < 2)
		return;
	/* A plateau reaching past twice the largest cache is memory, all of it. */
	if (last->last_size >= 2 * res->cache[res->nr_caches - 1].size) {
		last->label = "DRAM";
		last->cache_level = 0;
		n--;
	}
	/*
	 * By size: a plateau that ends at no less than half a cache, followed by one that starts
	 * at no more than twice it, is that cache; the last plateau, whose end is unknown, is the
	 * first cache that holds its smallest size. Smaller caches passed over on the way were
	 * below the sweep, or inside the plateau with no step of their own.
	 */
	for (size_t i = 0; i < n; i++) {
		struct tiers_level *l = &res->level[i];
		uint64_t end = i + 1 < res->n ? res->level[i + 1].first_size : 0;

		l->cache_level = 0;
		l->label = "L?";
		for (size_t j = next; j < res->nr_caches; j++) {
			const struct tiers_cache *c = &res->cache[j];

			if (i + 1 == res->n ? c->size >= l->first_size :
			    c->size <= 2 * l->last_size && end <= 2 * c->size) {
				l->cache_level = c->level;
				l->label = level_name(c->level);
				res->cache_tier[j] = (int)i;
				next = j + 1;
				break;
			}
			if (c->size > 2 * l->last_size)
				break;	/* a later plateau's */
		}
	}
	/*
	 * By order: a plateau left between two named ones takes the one level sysfs lists
	 * between them; tiers_print() says that its size disagrees.
	 */
	for (size_t i = 0; i < n; i++) {
		struct tiers_level *l = &res->level[i];
		unsigned int lo = 0, hi = UINT32_MAX;
		size_t cand = TIERS_MAX, count = 0;

		if (l->cache_level)
			continue;
		for (size_t j = 0; j < i; j++)
			if (res->level[j].cache_level)
				lo = res->level[j].cache_level;
		for (size_t j = n; j-- > i + 1;)
			if (res->level[j].cache_level)
				hi = res->level[j].cache_level;
		for (size_t c = 0; c < res->nr_caches; c++)
			if (res->cache_tier[c] < 0 && res->cache[c].level > lo &&
			    res->cache[c].level < hi) {
				cand = c;
				count++;
			}
		if (count == 1) {
			l->cache_level = res->cache[cand].level;
			l->label = level_name(l->cache_level);
			res->cache_tier[cand] = (int)i;
		}
	}
}

int tiers_detect(const struct tiers_point *pts, size_t n, struct tiers_result *res)
{
	double *buf, *x, *y, *lat, *tmp, *work;
	struct seg *seg;
	size_t *from, k;

	if (n < TIERS_MIN_POINTS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(pts[i].latency) || pts[i].latency <= 0 ||
		    (i > 0 && pts[i].size <= pts[i - 1].size))
			return -EINVAL;
	buf = malloc((7 * n + 3) * sizeof(*buf));
	seg = malloc(n * sizeof(*seg));
	from = malloc((n + 1) * sizeof(*from));
	if (!buf || !seg || !from) {
		free(buf);
		free(seg);
		free(from);
		return -ENOMEM;
	}
	x = buf;
	y = x + n;
	lat = y + n;
	tmp = lat + n;
	work = tmp + n;
	for (size_t i = 0; i < n; i++) {
		lat[i] = pts[i].latency;
		x[i] = log(lat[i]);
	}
	filter(x, y, n);
	k = split_ramps(seg, segment(y, n, seg, work, from), y);
	for (size_t i = 0; i < k; i++)
		seg[i].med = median(y, seg[i].first, seg[i].last, tmp);
	k = merge(seg, k, n, y, tmp);
	k = drop_transitions(seg, k);
	k = merge(seg, k, TIERS_MAX, y, tmp);
	memset(res, 0, sizeof(*res));
	fill(pts, lat, seg, k, tmp, res);
	find_tlb(pts, y, tmp, res);
	free(buf);
	free(seg);
	free(from);
	return 0;
}

/* A sysfs cache no tier matched, inside the sweep: the plateau it lies in, if one holds it. */
static void print_no_step(FILE *f, const struct tiers_result *res, uint64_t size)
{
	char a[32], b[32];

	fprintf(f, "no latency step near it");
	for (size_t i = 0; i < res->n; i++) {
		const struct tiers_level *l = &res->level[i];

		if (size >= l->first_size && size <= l->last_size) {
			fprintf(f, " (inside the %s tier's plateau %s .. %s)", l->label,
				size_format(a, sizeof(a), l->first_size),
				size_format(b, sizeof(b), l->last_size));
			break;
		}
	}
	fprintf(f, ": measurement and sysfs disagree\n");
}

void tiers_print(FILE *f, const struct tiers_result *res, const char *unit)
{
	char a[32], b[32], c[80];

	fprintf(f, "%-7s %10s  %-24s %s\n", "level", "capacity", "plateau", "latency");
	for (size_t i = 0; i < res->n; i++) {
		const struct tiers_level *l = &res->level[i];
		int memory = !strcmp(l->label, "DRAM") || !strcmp(l->label, "flat");
		char cap[40];

		if (memory)
			snprintf(cap, sizeof(cap), "-");
		else
			snprintf(cap, sizeof(cap), "%s%s", l->open ? ">= " : "",
				 size_format(a, sizeof(a), l->capacity));
		snprintf(c, sizeof(c), "%s .. %s", size_format(a, sizeof(a), l->first_size),
			 size_format(b, sizeof(b), l->last_size));
		fprintf(f, "%-7s %10s  %-24s %.3g %s", l->label, cap, c, l->latency, unit);
		if (l->step > 0)
			fprintf(f, "  (next x%.2f)", l->step);
		fputc('\n', f);
	}
	if (res->tlb.found)
		fprintf(f, "TLB-reach step: x%.2f between %s and %s (within %s)\n", res->tlb.step,
			size_format(a, sizeof(a), res->tlb.size_before),
			size_format(b, sizeof(b), res->tlb.size_after),
			res->level[res->tlb.tier].label);
	else
		fprintf(f, "TLB-reach step: none found\n");
	for (size_t k = 0; k < res->nr_caches; k++) {
		const struct tiers_cache *cc = &res->cache[k];

		fprintf(f, "sysfs L%u %s: ", cc->level, size_format(a, sizeof(a), cc->size));
		if (res->cache_tier[k] >= 0) {
			const struct tiers_level *l = &res->level[res->cache_tier[k]];

			if (!l->open && (cc->size > 2 * l->last_size || cc->size < l->last_size / 2))
				fprintf(f, "the %s tier, but its plateau ends at %s: measurement and sysfs disagree\n",
					l->label, size_format(b, sizeof(b), l->last_size));
			else
				fprintf(f, "the %s tier\n", l->label);
		}
		else if (cc->size > res->swept)
			fprintf(f, "not reached: the sweep ended at %s\n",
				size_format(b, sizeof(b), res->swept));
		else if (cc->size <= res->swept_from)
			fprintf(f, "not measured: the sweep started at %s\n",
				size_format(b, sizeof(b), res->swept_from));
		else
			print_no_step(f, res, cc->size);
	}
	for (size_t i = 0; res->nr_caches && res->n > 1 && i < res->n; i++)
		if (!res->level[i].cache_level && strcmp(res->level[i].label, "DRAM"))
			fprintf(f, "tier ending at %s: no sysfs cache of about that size (noise, or a level sysfs does not list)\n",
				size_format(a, sizeof(a), res->level[i].last_size));
}
