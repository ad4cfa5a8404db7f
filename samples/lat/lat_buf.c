// SPDX-License-Identifier: MIT
/* Buffers, cache geometry and access patterns for pmu-lat and pmu-sweep; see lat_buf.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lat_buf.h"
#include "size_suffix.h"

int lat_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

int lat_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift;

	if (!s || !*s || strspn(s, "0123456789") == 0)
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || !v)
		return -EINVAL;
	shift = size_suffix_shift(end);
	if (shift < 0 || v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

/* ---- geometry ------------------------------------------------------------------------- */

static uint64_t parse_cache_size(const char *s)
{
	uint64_t v;

	/* sysfs says "32K", "1024K", "8M". */
	return lat_parse_size(s, &v) ? 0 : v;
}

void lat_geometry_read(int cpu, struct lat_geometry *g)
{
	char path[128], buf[64];
	long v;

	memset(g, 0, sizeof(*g));
	g->page = (size_t)sysconf(_SC_PAGESIZE);
	if (cpu < 0)
		cpu = 0;
	for (unsigned int i = 0; i < 16 && g->nr_caches < LAT_MAX_CACHES; i++) {
		struct lat_cache *c = &g->cache[g->nr_caches];
		const char *base = "/sys/devices/system/cpu/cpu%d/cache/index%u/%s";

		snprintf(path, sizeof(path), base, cpu, i, "type");
		if (lat_read_line(path, c->type, sizeof(c->type)))
			break;
		if (!strcmp(c->type, "Instruction"))
			continue;
		snprintf(path, sizeof(path), base, cpu, i, "level");
		if (lat_read_line(path, buf, sizeof(buf)))
			continue;
		c->level = (unsigned int)atoi(buf);
		snprintf(path, sizeof(path), base, cpu, i, "size");
		if (lat_read_line(path, buf, sizeof(buf)) || !(c->size = parse_cache_size(buf)))
			continue;
		if (!g->line) {
			snprintf(path, sizeof(path), base, cpu, i, "coherency_line_size");
			if (!lat_read_line(path, buf, sizeof(buf)) && atoi(buf) >= 16) {
				g->line = (unsigned int)atoi(buf);
				g->line_source = "sysfs";
			}
		}
		g->nr_caches++;
	}
	if (!g->line) {
		v = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
		if (v >= 16 && v <= 4096) {
			g->line = (unsigned int)v;
			g->line_source = "sysconf";
		}
	}
#if defined(__aarch64__)
	if (!g->line) {
		uint64_t ctr;

		/* CTR_EL0.DminLine: log2 of words in the smallest data line (Linux emulates it). */
		__asm__ __volatile__("mrs %0, ctr_el0" : "=r"(ctr));
		g->line = 4u << ((ctr >> 16) & 0xf);
		g->line_source = "CTR_EL0";
	}
#endif
	if (!g->line) {
		g->line = 64;
		g->line_source = "assumed: no sysfs or sysconf value";
	}
}

/* ---- buffers -------------------------------------------------------------------------- */

static const char *const pages_names[] = { "base", "thp", "hugetlb" };

const char *lat_pages_name(enum lat_pages p)
{
	return (unsigned int)p < 3 ? pages_names[p] : "?";
}

int lat_pages_parse(const char *s, enum lat_pages *out)
{
	for (unsigned int i = 0; i < 3; i++)
		if (!strcmp(s, pages_names[i])) {
			*out = (enum lat_pages)i;
			return 0;
		}
	return -EINVAL;
}

/* Size of the huge page in "key: N kB" of /proc/meminfo, or from the THP sysfs file. */
static size_t hugetlb_page_size(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	unsigned long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return (size_t)kb * 1024;
}

static size_t thp_page_size(char *why, size_t len)
{
	char buf[128];

	if (lat_read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf))) {
		snprintf(why, len, "this kernel has no transparent huge pages "
			 "(/sys/kernel/mm/transparent_hugepage/enabled missing)");
		return 0;
	}
	if (strstr(buf, "[never]")) {
		snprintf(why, len, "transparent huge pages are disabled ([never] in "
			 "/sys/kernel/mm/transparent_hugepage/enabled)");
		return 0;
	}
	if (!lat_read_line("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", buf, sizeof(buf)) &&
	    atol(buf) > 0)
		return (size_t)atol(buf);
	return 2u << 20;
}

size_t lat_pages_size(enum lat_pages pages, char *err, size_t len)
{
	char why[160] = "";
	size_t page = 0;

	switch (pages) {
	case LAT_PAGES_BASE:
		return (size_t)sysconf(_SC_PAGESIZE);
	case LAT_PAGES_THP:
		page = thp_page_size(why, sizeof(why));
		if (!page)
			snprintf(err, len, "--hugepages=thp: %s", why);
		return page;
	case LAT_PAGES_HUGETLB:
		page = hugetlb_page_size();
		if (!page)
			snprintf(err, len, "--hugepages=hugetlb: this kernel has no hugetlb pages "
				 "(no Hugepagesize in /proc/meminfo)");
		return page;
	}
	snprintf(err, len, "unknown page kind");
	return 0;
}

int lat_buf_alloc(struct lat_buf *b, size_t size, enum lat_pages pages, char *err, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m;

	memset(b, 0, sizeof(*b));
	b->size = size;
	b->pages = pages;
	switch (pages) {
	case LAT_PAGES_BASE:
		b->page = page;
		b->map_len = (size + page - 1) / page * page;
		m = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			goto fail_errno;
		b->map = b->mem = m;
		/* Base pages by default: the TLB step must not depend on khugepaged's mood. */
		if (madvise(m, b->map_len, MADV_NOHUGEPAGE) && errno != EINVAL) {
			snprintf(err, len, "madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
			lat_buf_free(b);
			return -EIO;
		}
		return 0;
	case LAT_PAGES_THP:
		b->page = lat_pages_size(pages, err, len);
		if (!b->page)
			return -EOPNOTSUPP;
		/* Over-map so the buffer can start on a huge-page boundary. */
		b->map_len = (size + b->page - 1) / b->page * b->page + b->page;
		m = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			goto fail_errno;
		b->map = m;
		b->mem = (void *)(((uintptr_t)m + b->page - 1) & ~(uintptr_t)(b->page - 1));
		if (madvise(b->mem, b->map_len - b->page, MADV_HUGEPAGE)) {
			snprintf(err, len, "--hugepages=thp: madvise(MADV_HUGEPAGE): %s", strerror(errno));
			lat_buf_free(b);
			return -EOPNOTSUPP;
		}
		return 0;
	case LAT_PAGES_HUGETLB:
		b->page = lat_pages_size(pages, err, len);
		if (!b->page)
			return -EOPNOTSUPP;
		b->map_len = (size + b->page - 1) / b->page * b->page;
		m = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (m == MAP_FAILED) {
			int e = errno;

			snprintf(err, len, "--hugepages=hugetlb: no huge pages available for %zu bytes "
				 "(mmap MAP_HUGETLB: %s); reserve %zu with "
				 "'echo %zu > /proc/sys/vm/nr_hugepages'", b->map_len, strerror(e),
				 b->map_len / b->page, b->map_len / b->page);
			memset(b, 0, sizeof(*b));
			return -e;
		}
		b->map = b->mem = m;
		return 0;
	}
	snprintf(err, len, "unknown page kind");
	return -EINVAL;

fail_errno:
	snprintf(err, len, "mmap of %zu bytes: %s", b->map_len, strerror(errno));
	memset(b, 0, sizeof(*b));
	return -ENOMEM;
}

void lat_buf_free(struct lat_buf *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	memset(b, 0, sizeof(*b));
}

/* ---- patterns ------------------------------------------------------------------------- */

static const char *const pattern_names[] = { "chase", "stride", "page", "random" };

const char *lat_pattern_name(enum lat_pattern p)
{
	return (unsigned int)p < 4 ? pattern_names[p] : "?";
}

int lat_pattern_parse(const char *s, enum lat_pattern *out)
{
	for (unsigned int i = 0; i < 4; i++)
		if (!strcmp(s, pattern_names[i])) {
			*out = (enum lat_pattern)i;
			return 0;
		}
	return -EINVAL;
}

uint64_t lat_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) without modulo bias worth mentioning (n << 2^64). */
static size_t rand_below(uint64_t *state, size_t n)
{
	return (size_t)(lat_rand(state) % n);
}

/*
 * Sattolo's algorithm: next[] becomes a random cyclic permutation of 0..n-1 with exactly one
 * cycle (plain Fisher-Yates would leave short cycles that a chase could get stuck in).
 */
static void sattolo(uint32_t *next, size_t n, uint64_t *state)
{
	for (size_t i = 0; i < n; i++)
		next[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rand_below(state, i);	/* j < i: never a fixed point */
		uint32_t t = next[i];

		next[i] = next[j];
		next[j] = t;
	}
}

static void **node(const struct lat_buf *b, size_t step, size_t i)
{
	return (void **)((char *)b->mem + i * step);
}

int lat_page_layout_check(size_t size, size_t page, size_t step, char *err, size_t len)
{
	if (page / step >= 2 && size % page == 0)
		return 0;
	snprintf(err, len, "pattern page: size %zu must be a multiple of the %zu-byte page, "
		 "with at least 2 lines a page", size, page);
	return -EINVAL;
}

int lat_chain_build(struct lat_buf *b, enum lat_pattern pattern, size_t step, uint64_t seed,
		    struct lat_chain *chain, char *err, size_t len)
{
	uint64_t state = seed;
	size_t n, per_page, pages;
	uint32_t *next;

	if (step < sizeof(void *) || step % sizeof(void *)) {
		snprintf(err, len, "stride %zu: must be a multiple of the %zu-byte pointer", step,
			 sizeof(void *));
		return -EINVAL;
	}
	n = b->size / step;
	if (n < 2) {
		snprintf(err, len, "size %zu holds fewer than 2 nodes %zu bytes apart", b->size, step);
		return -EINVAL;
	}
	if (n > UINT32_MAX) {
		snprintf(err, len, "size %zu: more than 2^32 nodes", b->size);
		return -EINVAL;
	}
	chain->nodes = n;
	chain->step = step;
	chain->start = node(b, step, 0);
	if (pattern == LAT_STRIDE) {
		for (size_t i = 0; i < n; i++)
			*node(b, step, i) = node(b, step, (i + 1) % n);
		return 0;
	}
	if (pattern == LAT_PAGE && lat_page_layout_check(b->size, b->page, step, err, len))
		return -EINVAL;
	per_page = pattern == LAT_PAGE ? b->page / step : n;
	next = malloc(per_page * sizeof(*next));
	if (!next) {
		snprintf(err, len, "out of memory for %zu nodes", per_page);
		return -ENOMEM;
	}
	pages = n / per_page;
	for (size_t p = 0; p < pages; p++) {
		size_t base = p * per_page, i = 0;

		sattolo(next, per_page, &state);
		/* Walk this page's cycle from its first line; its last node leaves for the next page. */
		do {
			size_t to = next[i] ? base + next[i] : (base + per_page) % n;

			*node(b, step, base + i) = node(b, step, to);
			i = next[i];
		} while (i);
	}
	free(next);
	return 0;
}
