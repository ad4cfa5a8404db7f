/* SPDX-License-Identifier: MIT */
/*
 * Shared by pmu-lat and pmu-sweep: the memory being chased. Cache geometry from the system,
 * buffers with explicit page kinds, and the access patterns laid out as pointer chains (each
 * node holds the address of the next, one node per cache line).
 */
#ifndef PMUSER_LAT_BUF_H
#define PMUSER_LAT_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAT_MAX_CACHES	8

/* Cache geometry of one CPU, from sysfs where present. */
struct lat_cache {
	unsigned int level;
	char type[16];		/* "Data", "Unified", "Instruction" */
	uint64_t size;
};

struct lat_geometry {
	unsigned int line;		/* bytes per cache line */
	const char *line_source;	/* "sysfs", "sysconf", "CTR_EL0", "assumed" */
	unsigned int nr_caches;		/* data and unified caches only */
	struct lat_cache cache[LAT_MAX_CACHES];
	size_t page;			/* base page size */
};

/* Fills g for cpu (line size never 0). */
void lat_geometry_read(int cpu, struct lat_geometry *g);

enum lat_pages { LAT_PAGES_BASE, LAT_PAGES_THP, LAT_PAGES_HUGETLB };

/* "base", "thp", "hugetlb"; parse returns 0 or -EINVAL. */
const char *lat_pages_name(enum lat_pages p);
int lat_pages_parse(const char *s, enum lat_pages *out);

struct lat_buf {
	void *mem;
	size_t size;		/* bytes asked for */
	size_t map_len;		/* bytes mapped */
	size_t page;		/* page size of the mapping */
	enum lat_pages pages;
	void *map;		/* start of the mapping (mem may be aligned inside it) */
};

/*
 * Maps size bytes: base pages with MADV_NOHUGEPAGE, transparent huge pages (aligned,
 * MADV_HUGEPAGE; fails if THP is disabled) or MAP_HUGETLB (fails if none are reserved).
 * Returns 0 or -errno with a message in err.
 */
int lat_buf_alloc(struct lat_buf *b, size_t size, enum lat_pages pages, char *err, size_t len);

/* The size of one page of the kind, as lat_buf_alloc() maps it: 0 with the reason in err. */
size_t lat_pages_size(enum lat_pages pages, char *err, size_t len);

void lat_buf_free(struct lat_buf *b);

enum lat_pattern {
	LAT_CHASE,	/* one random cycle through every line (Sattolo) */
	LAT_STRIDE,	/* dependent chain in address order, stride bytes apart */
	LAT_PAGE,	/* random cycle inside each page, pages in address order */
	LAT_RANDOM,	/* independent loads at random lines (seed 002's random index) */
};

const char *lat_pattern_name(enum lat_pattern p);
int lat_pattern_parse(const char *s, enum lat_pattern *out);

struct lat_chain {
	void **start;		/* first node; following *node from it visits every node once */
	size_t nodes;
	size_t step;		/* bytes between node slots (line or stride) */
};

/* Deterministic generator (splitmix64) so runs can be repeated with --seed. */
uint64_t lat_rand(uint64_t *state);

/*
 * Lays out pattern over b with node slots step bytes apart (line size, or the stride for
 * LAT_STRIDE). LAT_RANDOM gets a chase layout too: its loads pick nodes at random, and the
 * chain serves warm-up. Returns 0, -EINVAL with a message (sizes, step), or -ENOMEM.
 */
int lat_chain_build(struct lat_buf *b, enum lat_pattern pattern, size_t step, uint64_t seed,
		    struct lat_chain *chain, char *err, size_t len);

/*
 * Whether LAT_PAGE can lay out size bytes over pages of page bytes with nodes step bytes
 * apart (whole pages, at least 2 nodes a page): 0, or -EINVAL with a message in err.
 */
int lat_page_layout_check(size_t size, size_t page, size_t step, char *err, size_t len);

/*
 * Parses "4096", "64K", "1M", "2G" (also KiB/MiB/GiB, KB/MB/GB as binary units): 0 or
 * -EINVAL. Rejects 0, garbage and overflow.
 */
int lat_parse_size(const char *s, uint64_t *out);

/* Reads the first line of a (sysfs) file into buf without the newline: 0 or -1. */
int lat_read_line(const char *path, char *buf, size_t len);

#endif
