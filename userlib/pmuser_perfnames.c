// SPDX-License-Identifier: MIT
/*
 * perf's generic event names: its hardware events ("cycles", "branch-misses") and hardware
 * cache events ("L1-dcache-load-misses", "dTLB-loads"), each resolved to the event number
 * Linux's PMU driver for the core counts for it, from that driver's maps as data, and each
 * named as perf prints it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pmuser_internal.h"

/* The maps' entry for a name they have no event for (the kernel's HW_OP_UNSUPPORTED). */
#define NONE	(-1)

/* ---- perf's names ------------------------------------------------------------------------- */

/* perf's generic hardware events (PERF_COUNT_HW_*), the columns of the maps below. */
enum perf_hw {
	HW_CYCLES, HW_INSTRUCTIONS, HW_CACHE_REFERENCES, HW_CACHE_MISSES, HW_BRANCHES,
	HW_BRANCH_MISSES, HW_BUS_CYCLES, HW_STALLED_FRONTEND, HW_STALLED_BACKEND, NR_HW
};

/* The name perf prints for each (its evsel__hw_names). */
static const char *const hw_names[NR_HW] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
};

/* Every name perf takes for them. */
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

/* perf's hardware cache events (PERF_TYPE_HW_CACHE): a cache, an operation, a result. */
enum perf_cache {
	CACHE_L1D, CACHE_L1I, CACHE_LL, CACHE_DTLB, CACHE_ITLB, CACHE_BPU, CACHE_NODE, NR_CACHE
};
enum perf_cache_op { OP_READ, OP_WRITE, OP_PREFETCH, NR_OP };
enum perf_cache_result { RES_ACCESS, RES_MISS, NR_RESULT };

#define WORDS_MAX	5

/*
 * The words perf makes those names of, from tools/perf/util/evsel.c (evsel__hw_cache,
 * evsel__hw_cache_op, evsel__hw_cache_result), compared in any case as perf compares them.
 * perf prints a cache by its first word, and an operation by its second ("loads") where the
 * result is an access, else by its first and the result's first ("load-misses").
 */
static const char *const cache_words[NR_CACHE][WORDS_MAX] = {
	[CACHE_L1D] = { "L1-dcache", "l1-d", "l1d", "L1-data" },
	[CACHE_L1I] = { "L1-icache", "l1-i", "l1i", "L1-instruction" },
	[CACHE_LL] = { "LLC", "L2" },
	[CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB" },
	[CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB" },
	[CACHE_BPU] = { "branch", "branches", "bpu", "btb", "bpc" },
	[CACHE_NODE] = { "node" },
};
static const char *const op_words[NR_OP][WORDS_MAX] = {
	[OP_READ] = { "load", "loads", "read" },
	[OP_WRITE] = { "store", "stores", "write" },
	[OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read", "speculative-load" },
};
static const char *const result_words[NR_RESULT][WORDS_MAX] = {
	[RES_ACCESS] = { "refs", "Reference", "ops", "access" },
	[RES_MISS] = { "misses", "miss" },
};

#define OP_BIT(op)	(1u << (op))
#define ALL_OPS		(OP_BIT(OP_READ) | OP_BIT(OP_WRITE) | OP_BIT(OP_PREFETCH))

/* The operations perf takes for each cache (evsel.c's evsel__hw_cache_stat). */
static const unsigned int cache_ops[NR_CACHE] = {
	[CACHE_L1D] = ALL_OPS,
	[CACHE_L1I] = OP_BIT(OP_READ) | OP_BIT(OP_PREFETCH),
	[CACHE_LL] = ALL_OPS,
	[CACHE_DTLB] = ALL_OPS,
	[CACHE_ITLB] = OP_BIT(OP_READ),
	[CACHE_BPU] = OP_BIT(OP_READ),
	[CACHE_NODE] = ALL_OPS,
};

/* ---- the drivers' maps -------------------------------------------------------------------- */

/* One entry of a driver's cache map: [cache][op][result] = event. */
struct cache_event {
	uint8_t cache, op, result;
	uint16_t event;
};

#define E(cache, op, result, ev)	{ CACHE_##cache, OP_##op, RES_##result, ev }
#define CACHE_END			{ NR_CACHE, 0, 0, 0 }

/*
 * The cache maps, entry for entry, but for those perf has no name for (iTLB writes in the
 * ARMv6 and ARMv7 maps, branch writes in the ARMv7 ones): drivers/perf/arm_v6_pmu.c and
 * arm_v7_pmu.c in 6.12 and 7.3, arch/arm/kernel/perf_event_v6.c and perf_event_v7.c in 6.1
 * (the same entries). Where the ARMv6 and ARMv7 maps give reads and writes one event, their
 * PMUs do not tell the two apart.
 */

/* armv6_perf_cache_map (the ARM1176's): DCACHE_ACCESS, DCACHE_MISS, the micro TLBs' misses. */
static const struct cache_event armv6_cache[] = {
	E(L1D, READ, ACCESS, 0x0a), E(L1D, READ, MISS, 0x0b),
	E(L1D, WRITE, ACCESS, 0x0a), E(L1D, WRITE, MISS, 0x0b),
	E(L1I, READ, MISS, 0x00),
	E(DTLB, READ, MISS, 0x04), E(DTLB, WRITE, MISS, 0x04),
	E(ITLB, READ, MISS, 0x03),
	CACHE_END
};

/* ARMv7 entries most maps share: L1 D-cache, TLB refills, branch predictions. */
#define V7_L1D	E(L1D, READ, ACCESS, 0x04), E(L1D, READ, MISS, 0x03), \
		E(L1D, WRITE, ACCESS, 0x04), E(L1D, WRITE, MISS, 0x03)
#define V7_TLB	E(DTLB, READ, MISS, 0x05), E(DTLB, WRITE, MISS, 0x05), E(ITLB, READ, MISS, 0x02)
#define V7_BPU	E(BPU, READ, ACCESS, 0x12), E(BPU, READ, MISS, 0x10)

/* armv7_a5_perf_cache_map: prefetch linefills (0xc2) and their drops (0xc3), I and D alike. */
static const struct cache_event a5_cache[] = {
	V7_L1D, E(L1D, PREFETCH, ACCESS, 0xc2), E(L1D, PREFETCH, MISS, 0xc3),
	E(L1I, READ, ACCESS, 0x14), E(L1I, READ, MISS, 0x01),
	E(L1I, PREFETCH, ACCESS, 0xc2), E(L1I, PREFETCH, MISS, 0xc3),
	V7_TLB, V7_BPU, CACHE_END
};

/* armv7_a7_perf_cache_map: the last level is the L2 (0x16, 0x17). */
static const struct cache_event a7_cache[] = {
	V7_L1D, E(L1I, READ, ACCESS, 0x14), E(L1I, READ, MISS, 0x01),
	E(LL, READ, ACCESS, 0x16), E(LL, READ, MISS, 0x17),
	E(LL, WRITE, ACCESS, 0x16), E(LL, WRITE, MISS, 0x17),
	V7_TLB, V7_BPU, CACHE_END
};

/* armv7_a8_perf_cache_map: the A8's own L1I access (0x50) and L2 events (0x43, 0x44). */
static const struct cache_event a8_cache[] = {
	V7_L1D, E(L1I, READ, ACCESS, 0x50), E(L1I, READ, MISS, 0x01),
	E(LL, READ, ACCESS, 0x43), E(LL, READ, MISS, 0x44),
	E(LL, WRITE, ACCESS, 0x43), E(LL, WRITE, MISS, 0x44),
	V7_TLB, V7_BPU, CACHE_END
};

/* armv7_a9_perf_cache_map: no L1I access, no last level. */
static const struct cache_event a9_cache[] = {
	V7_L1D, E(L1I, READ, MISS, 0x01), V7_TLB, V7_BPU, CACHE_END
};

/*
 * armv7_a12_perf_cache_map, the A17's too: L1D and L2 accesses by direction (0x40, 0x41,
 * 0x50, 0x51), refills not, and prefetch TLB refills (0xe7).
 */
static const struct cache_event a12_cache[] = {
	E(L1D, READ, ACCESS, 0x40), E(L1D, READ, MISS, 0x03),
	E(L1D, WRITE, ACCESS, 0x41), E(L1D, WRITE, MISS, 0x03),
	E(L1I, READ, ACCESS, 0x14), E(L1I, READ, MISS, 0x01),
	E(LL, READ, ACCESS, 0x50), E(LL, READ, MISS, 0x17),
	E(LL, WRITE, ACCESS, 0x51), E(LL, WRITE, MISS, 0x17),
	V7_TLB, E(DTLB, PREFETCH, MISS, 0xe7), V7_BPU, CACHE_END
};

/* armv7_a15_perf_cache_map: L1D, L2 and L1 data TLB events by direction. */
static const struct cache_event a15_cache[] = {
	E(L1D, READ, ACCESS, 0x40), E(L1D, READ, MISS, 0x42),
	E(L1D, WRITE, ACCESS, 0x41), E(L1D, WRITE, MISS, 0x43),
	E(L1I, READ, ACCESS, 0x14), E(L1I, READ, MISS, 0x01),
	E(LL, READ, ACCESS, 0x50), E(LL, READ, MISS, 0x52),
	E(LL, WRITE, ACCESS, 0x51), E(LL, WRITE, MISS, 0x53),
	E(DTLB, READ, MISS, 0x4c), E(DTLB, WRITE, MISS, 0x4d), E(ITLB, READ, MISS, 0x02),
	V7_BPU, CACHE_END
};

/*
 * ARMv8, drivers/perf/arm_pmuv3.c (arch/arm64/kernel/perf_event.c in 6.1, whose cache maps
 * and use of them are the same): armv8_pmuv3_perf_cache_map, the architected events, for
 * every core. The driver takes its event when PMCEID reports it, else the entry of the
 * core's own map below, where the core has one, else none.
 */
static const struct cache_event armv8_cache[] = {
	E(L1D, READ, ACCESS, 0x04), E(L1D, READ, MISS, 0x03),
	E(L1I, READ, ACCESS, 0x14), E(L1I, READ, MISS, 0x01),
	E(DTLB, READ, ACCESS, 0x25), E(DTLB, READ, MISS, 0x05),
	E(ITLB, READ, ACCESS, 0x26), E(ITLB, READ, MISS, 0x02),
	E(LL, READ, ACCESS, 0x36), E(LL, READ, MISS, 0x37),
	E(BPU, READ, ACCESS, 0x12), E(BPU, READ, MISS, 0x10),
	CACHE_END
};

/* armv8_a53_perf_cache_map: PREF_LINEFILL (0xc2), BUS_ACCESS_RD and _WR (0x60, 0x61). */
static const struct cache_event a53_cache[] = {
	E(L1D, PREFETCH, MISS, 0xc2),
	E(NODE, READ, ACCESS, 0x60), E(NODE, WRITE, ACCESS, 0x61),
	CACHE_END
};

/* armv8_a57_perf_cache_map: L1D_CACHE_RD/_WR, their refills, L1D_TLB_REFILL_RD/_WR, bus. */
static const struct cache_event a57_cache[] = {
	E(L1D, READ, ACCESS, 0x40), E(L1D, READ, MISS, 0x42),
	E(L1D, WRITE, ACCESS, 0x41), E(L1D, WRITE, MISS, 0x43),
	E(DTLB, READ, MISS, 0x4c), E(DTLB, WRITE, MISS, 0x4d),
	E(NODE, READ, ACCESS, 0x60), E(NODE, WRITE, ACCESS, 0x61),
	CACHE_END
};

/* armv8_a73_perf_cache_map: L1D_CACHE_RD and L1D_CACHE_WR. */
static const struct cache_event a73_cache[] = {
	E(L1D, READ, ACCESS, 0x40), E(L1D, WRITE, ACCESS, 0x41),
	CACHE_END
};

/* armv8_thunder_perf_cache_map: ThunderX's store misses and prefetches (0xe9 to 0xed). */
static const struct cache_event thunder_cache[] = {
	E(L1D, READ, ACCESS, 0x40), E(L1D, READ, MISS, 0x42),
	E(L1D, WRITE, ACCESS, 0x41), E(L1D, WRITE, MISS, 0xe9),
	E(L1D, PREFETCH, ACCESS, 0xea), E(L1D, PREFETCH, MISS, 0xeb),
	E(L1I, PREFETCH, ACCESS, 0xec), E(L1I, PREFETCH, MISS, 0xed),
	E(DTLB, READ, ACCESS, 0x4e), E(DTLB, READ, MISS, 0x4c),
	E(DTLB, WRITE, ACCESS, 0x4f), E(DTLB, WRITE, MISS, 0x4d),
	CACHE_END
};

/* armv8_vulcan_perf_cache_map. */
static const struct cache_event vulcan_cache[] = {
	E(L1D, READ, ACCESS, 0x40), E(L1D, READ, MISS, 0x42),
	E(L1D, WRITE, ACCESS, 0x41), E(L1D, WRITE, MISS, 0x43),
	E(DTLB, READ, ACCESS, 0x4e), E(DTLB, READ, MISS, 0x4c),
	E(DTLB, WRITE, ACCESS, 0x4f), E(DTLB, WRITE, MISS, 0x4d),
	E(NODE, READ, ACCESS, 0x60), E(NODE, WRITE, ACCESS, 0x61),
	CACHE_END
};

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
 * The events Linux's perf driver for a core counts for perf's names: its map of the generic
 * events, in PERF_COUNT_HW_* order, and its cache map. ARMv7 cores: perf_event_v7.c
 * (arch/arm/kernel/ in 6.1, drivers/perf/arm_v7_pmu.c in 6.12 and 7.3, the maps the same);
 * the ARM1176: perf_event_v6.c (arm_v6_pmu.c in 6.12 and 7.3). Both drivers take the maps the
 * PMU's devicetree compatible names, that of the core, so here the core's name picks them.
 */
struct perf_map {
	const char *cores[2];		/* as pmuser_core_name() names them */
	int event[NR_HW];
	const struct cache_event *cache;
};

static const struct perf_map perf_maps[] = {
	/*  cycles  instr  c-ref  c-miss branch br-miss bus   st-fe  st-be */
	/*
	 * armv6_perf_map. No cache-references or cache-misses: the caches are Harvard and the
	 * PMU has no event counting I and D accesses together. Front-end stalls are the
	 * instruction buffer's (0x01), back-end ones the load/store unit's being full (0x11).
	 */
	{ { "ARM1176" },
	  { CCNT,   0x07,  NONE,  NONE,  0x05,  0x06,   NONE, 0x01,  0x11 }, armv6_cache },
	/*
	 * ARMv7: cache-references and cache-misses are the L1 D-cache's accesses (0x04) and
	 * refills (0x03); branches are PC writes (0x0c) unless a row says otherwise: the
	 * driver's equivalent of branch instructions (taken branches, other writes of the PC,
	 * exception-generating instructions). Where a row has NONE the map has no event.
	 */
	/* armv7_a5_perf_map. */
	{ { "Cortex-A5" },
	  { V7_CYCLES, 0x08,  0x04,  0x03,  0x0c,  0x10,   NONE, NONE,  NONE }, a5_cache },
	/* armv7_a7_perf_map. */
	{ { "Cortex-A7" },
	  { V7_CYCLES, 0x08,  0x04,  0x03,  0x0c,  0x10,   0x1d, NONE,  NONE }, a7_cache },
	/* armv7_a8_perf_map: front-end stalls are the A8's instruction-side stalls (0x56). */
	{ { "Cortex-A8" },
	  { V7_CYCLES, 0x08,  0x04,  0x03,  0x0c,  0x10,   NONE, 0x56,  NONE }, a8_cache },
	/*
	 * armv7_a9_perf_map: instructions are those leaving the A9's register-renaming stage
	 * (0x68); the stalls are its instruction-cache (0x60) and dispatch (0x66) stalls.
	 */
	{ { "Cortex-A9" },
	  { V7_CYCLES, 0x68,  0x04,  0x03,  0x0c,  0x10,   NONE, 0x60,  0x66 }, a9_cache },
	/*
	 * armv7_a12_perf_map (the A17's too: its driver setup is the A12's) and
	 * armv7_a15_perf_map: branches are speculatively executed PC writes (0x76).
	 */
	{ { "Cortex-A12", "Cortex-A17" },
	  { V7_CYCLES, 0x08,  0x04,  0x03,  0x76,  0x10,   0x1d, NONE,  NONE }, a12_cache },
	{ { "Cortex-A15" },
	  { V7_CYCLES, 0x08,  0x04,  0x03,  0x76,  0x10,   0x1d, NONE,  NONE }, a15_cache },
};

/*
 * Every ARMv8 core: drivers/perf/arm_pmuv3.c's armv8_pmuv3_perf_map and cache map. Branches
 * are BR_RETIRED where PMCEID reports it, else PC_WRITE_RETIRED (6.1's driver takes
 * PC_WRITE_RETIRED always): the parser knows the core, not its PMCEID, and takes BR_RETIRED,
 * which the ARMv8 tables list. The driver also refuses a generic event PMCEID does not report
 * (a cache event it then looks up in the core's own map), which pmuser_event_supported()
 * tells. A 32-bit kernel whose devicetree gives an ARMv8 core an ARMv7 PMU's compatible
 * counts with that ARMv7 map instead, which the MIDR does not tell.
 */
static const struct perf_map armv8_map = {
	{ NULL },
	{ 0x11,   0x08,  0x04,  0x03,  0x21,  0x10,   0x1d, 0x23,  0x24 },
	armv8_cache,
};

/*
 * The ARMv8 cores whose devicetree compatible ("arm,cortex-a53-pmu", "cavium,thunder-pmu",
 * ...) has the driver take a cache map of their own beside the architected one, by MIDR
 * (implementer, part). The MIDR cannot tell a devicetree giving the core the generic
 * "arm,armv8-pmuv3" (QEMU's virt machine does) nor ACPI, where the driver takes the
 * architected map alone: there perf refuses the names only the core's map has an event for
 * (L1-dcache-stores on a Cortex-A72, for one), which pmuser counts. ThunderX 81xx and 83xx
 * (parts 0x0a2, 0x0a3), which no devicetree in the kernel names, take the architected map.
 */
static const struct {
	uint8_t implementer;
	uint16_t part;
	const struct cache_event *cache;
} armv8_core_maps[] = {
	{ 0x41, 0xd04, a53_cache },		/* Cortex-A35, as the driver has it */
	{ 0x41, 0xd03, a53_cache },		/* Cortex-A53 */
	{ 0x41, 0xd07, a57_cache },		/* Cortex-A57 */
	{ 0x41, 0xd08, a57_cache },		/* Cortex-A72, as the driver has it */
	{ 0x41, 0xd09, a73_cache },		/* Cortex-A73 */
	{ 0x43, 0x0a1, thunder_cache },		/* Cavium ThunderX 88xx */
	{ 0x42, 0x516, vulcan_cache },		/* Broadcom Vulcan */
	{ 0x43, 0x0af, vulcan_cache },		/* Cavium ThunderX2, Vulcan's successor */
};

/* The maps of midr's core, or NULL where the core is not known well enough to choose them. */
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

static int cache_map_event(const struct cache_event *map, unsigned int cache, unsigned int op,
			   unsigned int result)
{
	for (; map->cache != NR_CACHE; map++)
		if (map->cache == cache && map->op == op && map->result == result)
			return map->event;
	return NONE;
}

/* The event the driver counts for the cache event on midr's core (map: its maps), or NONE. */
static int cache_event(const struct perf_map *map, uint32_t midr, unsigned int cache,
		       unsigned int op, unsigned int result)
{
	int ev = cache_map_event(map->cache, cache, op, result);
	size_t i;

	if (ev != NONE || map != &armv8_map)
		return ev;
	for (i = 0; i < sizeof(armv8_core_maps) / sizeof(armv8_core_maps[0]); i++)
		if (armv8_core_maps[i].implementer == midr >> 24 &&
		    armv8_core_maps[i].part == ((midr >> 4) & 0xfff))
			return cache_map_event(armv8_core_maps[i].cache, cache, op, result);
	return NONE;
}

/* ---- reading the names -------------------------------------------------------------------- */

/* The generic hardware event s[0..len) names, in any case, or NR_HW. */
static enum perf_hw generic_find(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(generics) / sizeof(generics[0]); i++)
		if (strlen(generics[i].perf) == len && !strncasecmp(generics[i].perf, s, len))
			return generics[i].hw;
	return NR_HW;
}

/*
 * The row of words[] whose longest word s[0..len) starts with, in any case, up to a '-' or
 * its end; that word's length in *used. -1 if none.
 */
static int word_find(const char *s, size_t len, const char *const words[][WORDS_MAX],
		     int rows, size_t *used)
{
	int row, found = -1;
	size_t k, n;

	*used = 0;
	for (row = 0; row < rows; row++) {
		for (k = 0; k < WORDS_MAX && words[row][k]; k++) {
			n = strlen(words[row][k]);
			if (n > *used && n <= len && !strncasecmp(s, words[row][k], n) &&
			    (n == len || s[n] == '-')) {
				*used = n;
				found = row;
			}
		}
	}
	return found;
}

struct cache_name {
	int cache, op, result;
};

static int __attribute__((format(printf, 4, 5)))
why_fail(char *why, size_t whylen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* The operations perf takes for the cache, as "loads and prefetches". */
static const char *ops_list(int cache, char *buf, size_t len)
{
	unsigned int ops = cache_ops[cache];
	int op, n = 0, done = 0;

	for (op = 0; op < NR_OP; op++)
		n += !!(ops & OP_BIT(op));
	buf[0] = '\0';
	for (op = 0; op < NR_OP; op++) {
		if (!(ops & OP_BIT(op)))
			continue;
		done++;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 done == 1 ? "" : done == n ? " and " : ", ", op_words[op][1]);
	}
	return buf;
}

/*
 * One word after the cache's, s[0..len) up to a '-' or the end: an operation or a result,
 * into cn; its length in *used. 0, or -EINVAL with why.
 */
static int cache_word(const char *s, size_t len, struct cache_name *cn, size_t *used, char *why,
		      size_t whylen)
{
	int w = word_find(s, len, op_words, NR_OP, used);

	if (!len || s[0] == '-')
		return why_fail(why, whylen, -EINVAL, "an empty word in perf's cache event name");
	if (w >= 0) {
		if (cn->op >= 0)
			return why_fail(why, whylen, -EINVAL, "two operations in perf's cache event name");
		cn->op = w;
		return 0;
	}
	w = word_find(s, len, result_words, NR_RESULT, used);
	if (w >= 0) {
		if (cn->result >= 0)
			return why_fail(why, whylen, -EINVAL, "two results in perf's cache event name");
		cn->result = w;
		return 0;
	}
	for (*used = 0; *used < len && s[*used] != '-'; (*used)++)
		;
	return why_fail(why, whylen, -EINVAL,
			"'%.*s' is none of perf's cache operations (load, store, prefetch) or results (refs, misses)",
			(int)(*used < 32 ? *used : 32), s);
}

/*
 * s[0..len) as perf composes a cache event's name: a cache, then an operation, a result, or
 * both in either order, each word one of perf's for it (L1-dcache-load-misses, l1d-misses,
 * LLC-stores, dTLB); no operation is a read, no result an access, as in perf. 1 when s names
 * no cache; else 0 with the event in *cn, or -EINVAL (malformed) or -ENOENT (an operation
 * perf does not take for that cache) with why.
 */
static int cache_name_parse(const char *s, size_t len, struct cache_name *cn, char *why,
			    size_t whylen)
{
	size_t pos, used;
	int words, ret;
	char ops[48];

	cn->cache = word_find(s, len, cache_words, NR_CACHE, &pos);
	if (cn->cache < 0)
		return 1;
	cn->op = cn->result = -1;
	for (words = 0; pos < len; words++) {
		if (words == 2)
			return why_fail(why, whylen, -EINVAL,
					"perf's cache event name is a cache, an operation and a result, no more");
		if (pos + 1 == len)
			return why_fail(why, whylen, -EINVAL, "perf's cache event name ends in '-'");
		ret = cache_word(s + pos + 1, len - pos - 1, cn, &used, why, whylen);
		if (ret)
			return ret;
		pos += 1 + used;
	}
	if (cn->op < 0)
		cn->op = OP_READ;
	if (cn->result < 0)
		cn->result = RES_ACCESS;
	if (!(cache_ops[cn->cache] & OP_BIT(cn->op)))
		return why_fail(why, whylen, -ENOENT, "perf has no %s %s: it counts %s of it",
				cache_words[cn->cache][0], op_words[cn->op][1],
				ops_list(cn->cache, ops, sizeof(ops)));
	return 0;
}

int pmuser__perf_event(const char *s, size_t len, uint32_t midr, uint32_t *event, char *why,
		       size_t whylen)
{
	const struct perf_map *map = perf_map_find(midr);
	enum perf_hw hw = generic_find(s, len);
	struct cache_name cn;
	int ret, ev;

	if (why && whylen)
		why[0] = '\0';
	if (hw != NR_HW) {
		ev = map ? map->event[hw] : NONE;
	} else {
		ret = cache_name_parse(s, len, &cn, why, whylen);
		if (ret)
			return ret;
		ev = map ? cache_event(map, midr, (unsigned int)cn.cache, (unsigned int)cn.op,
				       (unsigned int)cn.result) : NONE;
	}
	if (ev == NONE)
		return -ENOENT;
	*event = (uint32_t)ev;
	return 0;
}

int pmuser_evspec_perf_name(const char *name, char *buf, size_t size)
{
	struct cache_name cn;
	enum perf_hw hw;
	size_t len;
	int n;

	if (!name || (!buf && size))
		return -EINVAL;
	len = strlen(name);
	hw = generic_find(name, len);
	if (hw != NR_HW)
		n = snprintf(buf, size, "%s", hw_names[hw]);
	else if (cache_name_parse(name, len, &cn, NULL, 0))
		return -ENOENT;
	else if (cn.result == RES_ACCESS)
		n = snprintf(buf, size, "%s-%s", cache_words[cn.cache][0], op_words[cn.op][1]);
	else
		n = snprintf(buf, size, "%s-%s-%s", cache_words[cn.cache][0], op_words[cn.op][0],
			     result_words[cn.result][0]);
	return n >= 0 && (size_t)n < size ? 0 : -ENOSPC;
}
