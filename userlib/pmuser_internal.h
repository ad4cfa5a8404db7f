/* SPDX-License-Identifier: MIT */
/* pmuser library internals shared by the backends; not installed. */
#ifndef PMUSER_USERLIB_INTERNAL_H
#define PMUSER_USERLIB_INTERNAL_H

#include <linux/perf_event.h>

#include "pmuser.h"

/*
 * CPU PMUs a perf set spans. A thread's event counts only on the CPUs of the PMU it was
 * opened on, so where perf registers several (big.LITTLE: one per cluster) a per-thread set
 * opens each counter once per CPU PMU and sums them.
 */
#define PMUSER__PERF_PMUS	8

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
	/* perf: the counter's event on each CPU PMU of the set (pmuser_counters.pmu_type) */
	int fd[PMUSER__PERF_PMUS];
	uint64_t id[PMUSER__PERF_PMUS];
	struct perf_event_mmap_page *page[PMUSER__PERF_PMUS];
};

struct pmuser_counters;
/*
 * A read of every counter (pmuser_counters_read()): the reader chosen for the set tries its
 * layout and, when that does not hold, ends in pmuser__read_general().
 */
typedef int pmuser__read_fn(struct pmuser_counters *c, uint64_t values[]);
/* Module backend, raw reads of every counter between barriers. */
typedef void pmuser__raw_fn(const struct pmuser_counters *c, uint64_t values[]);
/* pmuser_region_stop(): the reads first, then pmuser__region_end(). */
typedef void pmuser__region_fn(struct pmuser_counters *c, struct pmuser_region *r);

/* Layouts up to this many counters get readers with every register fixed in the code. */
#define PMUSER_FAST_LAYOUT_MAX	5

struct pmuser__backend_ops;

struct pmuser_counters {
	/*
	 * Readers chosen at open: module (pmuser_module_read.c), perf-mmap (pmuser_perf.c). They
	 * and what the module's readers load come first, within the immediate offset of a
	 * 32-bit ARM load (below 4096).
	 */
	pmuser__read_fn *read_all;	/* never NULL: pmuser__read_general at the least */
	pmuser__read_fn *read_raw;	/* never NULL: pmuser_counters_read_raw() */
	pmuser__raw_fn *raw_start;	/* a region's start: the cycle counter read last */
	pmuser__raw_fn *raw_stop;	/* a region's stop: the cycle counter read first */
	pmuser__region_fn *region_stop;	/* never NULL: pmuser__region_stop_general at the least */
	/*
	 * module, where a layout's reader is chosen: the thread's struct rseq from the TLS base.
	 * The AArch64 readers load it and page.base, which follows it, in one instruction.
	 */
	ptrdiff_t rseq_off;
	struct pmuser_page page;	/* module: the counter page */
	enum pmuser_backend backend;
	const struct pmuser__backend_ops *ops;
	struct pmuser_counters_attr attr;
	unsigned int nr;
	struct pmuser_ctr ctr[PMUSER_COUNTERS_MAX];
	uint64_t bias[PMUSER_COUNTERS_MAX];
	int dev_fd;			/* module */
	unsigned int nr_read;		/* module: supported counters, read through the page */
	unsigned int read_slot[PMUSER_COUNTERS_MAX];	/* their page slots */
	unsigned int read_idx[PMUSER_COUNTERS_MAX];	/* their indices in ctr[] */
	bool cycles_on_event;		/* module: cycles counted by an event counter (CPU_CYCLES) */
	unsigned int mmap_rechoose;	/* perf-mmap: general reads until the next look */
	int leader;			/* perf: index of the group leader, -1 without a group */
	unsigned int nr_pmus;		/* perf: CPU PMUs the events are opened on (>= 1) */
	uint32_t pmu_type[PMUSER__PERF_PMUS];	/* their perf types; 0: perf routes the event */
	bool enabled;			/* perf: counting since the library last started the set */
	bool lost;			/* module: a reconfiguration failed, nothing is held */
	uint32_t ctl_gen;		/* perf: moves at every enable, disable and reset;
					 * clock: at every reset */
	uint64_t t_base;		/* module, clock: CLOCK_MONOTONIC_RAW ns at open/reset */
	char timer[96];
	/*
	 * module: the device and the CPU the set counts on (the open's CPU for a set without
	 * one) as the open found them, for reconfigurations
	 */
	struct pmuser_info dev_info;
	struct pmuser_cpu_info dev_ci;
};

/*
 * In gaps, per counter, how long perf has had it enabled but not on a counter
 * (PMUSER_GAP_OFF: not on a counter at this read): a region whose gaps differ at its ends
 * was multiplexed. Backends without multiplexing report 0.
 */
#define PMUSER_GAP_OFF	UINT64_MAX

/*
 * A backend, chosen at open (pmuser_counters.ops). Reads chosen for the set's layout
 * (read_all, raw_start, raw_stop) come first where the backend has them; the inline reads
 * of pmuser.h never come here.
 */
struct pmuser__backend_ops {
	/* 0, or -errno with the reason appended to why ("name: reason; "). */
	int (*open)(struct pmuser_counters *c, char *why, size_t whylen);
	/* What open acquired beyond the device and page, which close releases for all. */
	void (*close)(struct pmuser_counters *c);
	/*
	 * The set's counters (ctr[], from attr, as at open) replace the held ones: 0, or -errno
	 * with the reason appended to why, the set then holding nothing. NULL: fixed at open.
	 */
	int (*reconfigure)(struct pmuser_counters *c, char *why, size_t whylen);
	/*
	 * Raw reads of every counter, last to first for a region's start; gaps may be NULL. A
	 * read that fails (-errno) leaves every gap PMUSER_GAP_OFF, so that no region pairs it.
	 */
	int (*read_raw)(struct pmuser_counters *c, uint64_t values[], uint64_t gaps[],
			bool reverse);
	/* 64-bit counts kept by the backend; NULL: read_raw extended in software. */
	int (*read)(struct pmuser_counters *c, uint64_t values[]);
	/* Counts with times enabled and running; NULL: read, both times since the open. */
	int (*read_full)(struct pmuser_counters *c, struct pmuser_count counts[]);
	/* PERF_EVENT_IOC_ENABLE, _DISABLE or _RESET, or -EOPNOTSUPP. */
	int (*ctl)(struct pmuser_counters *c, unsigned long request);
	/*
	 * Whether a region's reads (start in r, end and gaps at the stop) are a count. raw[]
	 * comes with each counter's delta masked to its width at open; a backend that knows the
	 * width on the CPU the region ran on (the module's page) masks to that instead.
	 */
	bool (*region_valid)(const struct pmuser_counters *c, const struct pmuser_region *r,
			     const uint64_t end[], const uint64_t gaps[], uint64_t raw[]);
};

extern const struct pmuser__backend_ops pmuser__module_ops;	/* pmuser_module.c */
extern const struct pmuser__backend_ops pmuser__perf_mmap_ops;	/* pmuser_perf.c */
extern const struct pmuser__backend_ops pmuser__perf_read_ops;	/* pmuser_perf.c */
extern const struct pmuser__backend_ops pmuser__clock_ops;	/* pmuser_backend.c */

/*
 * The general read of every counter (pmuser_backend.c): the backend's own 64-bit counts, or
 * its raw reads extended in software. Where every chosen reader ends when its layout fails.
 */
int pmuser__read_general(struct pmuser_counters *c, uint64_t values[]);

/*
 * A region's end (pmuser_backend.c): each counter's raw delta and its validity by the
 * backend (which may mask the deltas otherwise), then the deltas less the bias. end may be
 * r->raw.
 */
void pmuser__region_end(struct pmuser_counters *c, struct pmuser_region *r, const uint64_t end[],
			const uint64_t gaps[]);
/* The general stop: the raw readers chosen for the set, else the backend's read_raw. */
void pmuser__region_stop_general(struct pmuser_counters *c, struct pmuser_region *r);

/*
 * perf's generic or hardware cache event name s[0..len) (pmuser_perfnames.c), as the event
 * the core's Linux PMU driver counts for it: 0 with the event in *event; 1 when s is none of
 * perf's names; -ENOENT with why empty when the core's map has no event for it (or the core's
 * map is not known); -ENOENT or -EINVAL with why (whylen bytes) for a cache event name perf
 * does not take.
 */
int pmuser__perf_event(const char *s, size_t len, uint32_t midr, uint32_t *event, char *why,
		       size_t whylen);

/* Neither inlined nor analysed across the call by its callers in the library. */
#if defined(__clang__)
#define PMUSER__NOIPA __attribute__((noinline))
#else
#define PMUSER__NOIPA __attribute__((noipa))
#endif

/* The mask of a counter's raw width: raw deltas are modulo 2^bits. */
static inline uint64_t pmuser__width_mask(unsigned int bits)
{
	return bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1;
}

/* Appends the formatted reason to why (whylen bytes, may be NULL). */
void __attribute__((format(printf, 3, 4)))
pmuser__why_add(char *why, size_t whylen, const char *fmt, ...);
/* kernel.perf_user_access: 0 or 1; -1 if there is no such sysctl; -2 if it cannot be read. */
int pmuser__perf_user_access(void);
/*
 * Chooses the module backend's readers for the set's layout and the PMU (pmu_version as in
 * pmuser_cpu_info, page_flags as in pmuser_info), after the page is mapped.
 */
void pmuser__module_readers(struct pmuser_counters *c, unsigned int pmu_version,
			    uint32_t page_flags);

/* One CPU's EL0 grants as the module reports them (struct pmuser_cpu_info, VER1). */
struct pmuser__grant_state {
	unsigned int cpu;
	uint32_t arch;			/* enum pmuser_arch (pmuser_info.arch) */
	uint32_t pmu_version;
	uint32_t nr_counters;
	uint32_t user_enable;		/* 0 where read while the thread was not granted */
	uint32_t el0_flags;		/* PMUSER_CPU_EL0_*; 0 from a module before VER1 */
	uint64_t pmuacr;
};

/* What a set reads inline. */
struct pmuser__grant_need {
	uint32_t event_mask;		/* event counters its events sit on (bit n: counter n) */
	bool cycles;			/* it counts cycles */
};

/* Reader paths, safest last: a set takes the last any of its CPUs needs. */
enum pmuser__reader_path {
	PMUSER__PATH_INLINE,		/* the module's counters, read inline where placed */
	PMUSER__PATH_CYCLES_EVENT,	/* inline, cycles from an event counter (CPU_CYCLES) */
	PMUSER__PATH_PERF_TASK,		/* inline reads would trap: perf's per-task events */
};

/*
 * The reader path safe on every CPU in cpus[] (pmuser_grants.c), with the reason of the CPU
 * that decided it in why (overwritten, whylen bytes, may be NULL). No system calls.
 */
enum pmuser__reader_path pmuser__reader_decide(const struct pmuser__grant_state cpus[],
					       unsigned int n,
					       const struct pmuser__grant_need *need, char *why,
					       size_t whylen);

#endif /* PMUSER_USERLIB_INTERNAL_H */
