/* SPDX-License-Identifier: MIT */
/* pmuser library internals shared by the backends; not installed. */
#ifndef PMUSER_USERLIB_INTERNAL_H
#define PMUSER_USERLIB_INTERNAL_H

#include <linux/perf_event.h>

#include "pmuser.h"

struct pmuser_ctr {
	char name[48];
	bool is_cycles;
	bool supported;
	uint32_t event;			/* ARM event number (events only) */
	uint32_t flags;			/* PMUSER_COUNT_* actually counted */
	unsigned int bits;		/* hardware width: raw deltas are modulo 2^bits */
	uint64_t last;			/* software 64-bit extension of the last raw read */
	/* module */
	unsigned int hw;
	unsigned int slot;		/* counter page slot (uapi) */
	/* perf */
	int fd;
	uint64_t id;
	struct perf_event_mmap_page *page;
};

struct pmuser_counters;
/* One try of a read of every counter, chosen at open: 0, or -EAGAIN for the general path. */
typedef int pmuser__read_fn(const struct pmuser_counters *c, uint64_t values[]);
/* Module backend, raw reads of every counter between barriers. */
typedef void pmuser__raw_fn(const struct pmuser_counters *c, uint64_t values[]);

/* Layouts up to this many counters get readers with every register fixed in the code. */
#define PMUSER_FAST_LAYOUT_MAX	5

struct pmuser_counters {
	enum pmuser_backend backend;
	struct pmuser_counters_attr attr;
	unsigned int nr;
	struct pmuser_ctr ctr[PMUSER_COUNTERS_MAX];
	uint64_t bias[PMUSER_COUNTERS_MAX];
	int dev_fd;			/* module */
	struct pmuser_page page;	/* module: the counter page */
	unsigned int nr_read;		/* module: supported counters, read through the page */
	unsigned int read_slot[PMUSER_COUNTERS_MAX];	/* their page slots */
	unsigned int read_idx[PMUSER_COUNTERS_MAX];	/* their indices in ctr[] */
	uint32_t read_off[PMUSER_COUNTERS_MAX];	/* their slots' offsets in a CPU's record */
	uint64_t read_word[PMUSER_COUNTERS_MAX];	/* their page hw and bits, as configured */
	uint64_t read_mask[PMUSER_COUNTERS_MAX];	/* their raw width masks */
	/* Readers chosen at open: module (pmuser_module_read.c), perf-mmap (pmuser_perf.c). */
	pmuser__read_fn *fast_read;	/* NULL: every read takes the general path */
	pmuser__raw_fn *raw_start;	/* a region's start: the cycle counter read last */
	pmuser__raw_fn *raw_stop;	/* a region's stop: the cycle counter read first */
	int leader;			/* perf: index of the group leader, -1 without a group */
	uint64_t t_base;		/* module, clock: CLOCK_MONOTONIC_RAW ns at open/reset */
	char timer[96];
};

/* Backend openers: 0, or -errno with the reason in why. */
int pmuser__module_open(struct pmuser_counters *c, char *why, size_t whylen);
int pmuser__perf_open(struct pmuser_counters *c, bool mmap_read, char *why, size_t whylen);
void pmuser__perf_close(struct pmuser_counters *c);
/*
 * Raw (not extended) reads of every counter; perf-mmap falls back to read() per counter.
 * gaps (may be NULL) gets, per counter, how long perf has had it enabled but not on a
 * counter (PMUSER_GAP_OFF: not on a counter at this read): a region whose gaps differ at its
 * ends was multiplexed.
 */
#define PMUSER_GAP_OFF	UINT64_MAX
int pmuser__perf_read_raw(struct pmuser_counters *c, uint64_t values[], uint64_t gaps[]);
int pmuser__perf_read_full(struct pmuser_counters *c, struct pmuser_count counts[]);
int pmuser__perf_ioctl(struct pmuser_counters *c, unsigned long request);
uint64_t pmuser__now_ns(void);
/* kernel.perf_user_access: 0 or 1; -1 if there is no such sysctl; -2 if it cannot be read. */
int pmuser__perf_user_access(void);
/*
 * Chooses the module backend's readers for the set's layout and the PMU (pmu_version as in
 * pmuser_cpu_info), after the page is mapped.
 */
void pmuser__module_readers(struct pmuser_counters *c, unsigned int pmu_version);
int pmuser__read_raw(struct pmuser_counters *c, uint64_t values[], uint64_t gaps[], bool reverse);

#endif /* PMUSER_USERLIB_INTERNAL_H */
