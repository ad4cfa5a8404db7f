// SPDX-License-Identifier: MIT
/*
 * Event tables and core identification.
 *
 * ARMv8 names are spelt exactly as in the kernel's perf pmu-events JSON, so a name that works
 * with perf works here; tests/host/test_events.c checks every ARMv8 entry against that JSON.
 * ARMv7 tables reuse the same architectural mnemonics (the numbers are shared with ARMv8).
 * ARM1176 predates architected events; its numbers follow the kernel's ARMv6 PMU driver.
 * Core tables hold only what their architecture's common table does not, so a core's events
 * are the union of the two and no name or number appears twice.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pmuser.h"

#define TABLE(tname, array) {						\
	.name = tname,							\
	.events = array,						\
	.nr_events = sizeof(array) / sizeof((array)[0]),		\
}

/* PMUv3 common events the JSON names, in the ranges PMCEID0..3 can report. */
static const struct pmuser_event armv8_events[] = {
	{ 0x0000, "SW_INCR" },
	{ 0x0001, "L1I_CACHE_REFILL" },
	{ 0x0002, "L1I_TLB_REFILL" },
	{ 0x0003, "L1D_CACHE_REFILL" },
	{ 0x0004, "L1D_CACHE" },
	{ 0x0005, "L1D_TLB_REFILL" },
	{ 0x0006, "LD_RETIRED" },
	{ 0x0007, "ST_RETIRED" },
	{ 0x0008, "INST_RETIRED" },
	{ 0x0009, "EXC_TAKEN" },
	{ 0x000a, "EXC_RETURN" },
	{ 0x000b, "CID_WRITE_RETIRED" },
	{ 0x000c, "PC_WRITE_RETIRED" },
	{ 0x000d, "BR_IMMED_RETIRED" },
	{ 0x000e, "BR_RETURN_RETIRED" },
	{ 0x000f, "UNALIGNED_LDST_RETIRED" },
	{ 0x0010, "BR_MIS_PRED" },
	{ 0x0011, "CPU_CYCLES" },
	{ 0x0012, "BR_PRED" },
	{ 0x0013, "MEM_ACCESS" },
	{ 0x0014, "L1I_CACHE" },
	{ 0x0015, "L1D_CACHE_WB" },
	{ 0x0016, "L2D_CACHE" },
	{ 0x0017, "L2D_CACHE_REFILL" },
	{ 0x0018, "L2D_CACHE_WB" },
	{ 0x0019, "BUS_ACCESS" },
	{ 0x001a, "MEMORY_ERROR" },
	{ 0x001b, "INST_SPEC" },
	{ 0x001c, "TTBR_WRITE_RETIRED" },
	{ 0x001d, "BUS_CYCLES" },
	{ 0x001f, "L1D_CACHE_ALLOCATE" },
	{ 0x0020, "L2D_CACHE_ALLOCATE" },
	{ 0x0021, "BR_RETIRED" },
	{ 0x0022, "BR_MIS_PRED_RETIRED" },
	{ 0x0023, "STALL_FRONTEND" },
	{ 0x0024, "STALL_BACKEND" },
	{ 0x0025, "L1D_TLB" },
	{ 0x0026, "L1I_TLB" },
	{ 0x0029, "L3D_CACHE_ALLOCATE" },
	{ 0x002a, "L3D_CACHE_REFILL" },
	{ 0x002b, "L3D_CACHE" },
	{ 0x002d, "L2D_TLB_REFILL" },
	{ 0x002e, "L2I_TLB_REFILL" },
	{ 0x002f, "L2D_TLB" },
	{ 0x0030, "L2I_TLB" },
	{ 0x0031, "REMOTE_ACCESS" },
	{ 0x0034, "DTLB_WALK" },
	{ 0x0035, "ITLB_WALK" },
	{ 0x0036, "LL_CACHE_RD" },
	{ 0x0037, "LL_CACHE_MISS_RD" },
	{ 0x0038, "REMOTE_ACCESS_RD" },
	{ 0x0039, "L1D_CACHE_LMISS_RD" },
	{ 0x003a, "OP_RETIRED" },
	{ 0x003b, "OP_SPEC" },
	{ 0x003c, "STALL" },
	{ 0x003d, "STALL_SLOT_BACKEND" },
	{ 0x003e, "STALL_SLOT_FRONTEND" },
	{ 0x003f, "STALL_SLOT" },
	{ 0x4000, "SAMPLE_POP" },
	{ 0x4001, "SAMPLE_FEED" },
	{ 0x4002, "SAMPLE_FILTRATE" },
	{ 0x4003, "SAMPLE_COLLISION" },
	{ 0x4004, "CNT_CYCLES" },
	{ 0x4005, "STALL_BACKEND_MEM" },
	{ 0x4006, "L1I_CACHE_LMISS" },
	{ 0x4009, "L2D_CACHE_LMISS_RD" },
	{ 0x400b, "L3D_CACHE_LMISS_RD" },
	{ 0x400c, "TRB_WRAP" },
	{ 0x400d, "PMU_OVFS" },
	{ 0x400e, "TRB_TRIG" },
	{ 0x400f, "PMU_HOVFS" },
	{ 0x4010, "TRCEXTOUT0" },
	{ 0x4011, "TRCEXTOUT1" },
	{ 0x4012, "TRCEXTOUT2" },
	{ 0x4013, "TRCEXTOUT3" },
	{ 0x4018, "CTI_TRIGOUT4" },
	{ 0x4019, "CTI_TRIGOUT5" },
	{ 0x401a, "CTI_TRIGOUT6" },
	{ 0x401b, "CTI_TRIGOUT7" },
	{ 0x4020, "LDST_ALIGN_LAT" },
	{ 0x4021, "LD_ALIGN_LAT" },
	{ 0x4022, "ST_ALIGN_LAT" },
	{ 0x4024, "MEM_ACCESS_CHECKED" },
	{ 0x4025, "MEM_ACCESS_CHECKED_RD" },
	{ 0x4026, "MEM_ACCESS_CHECKED_WR" },
};

static const struct pmuser_event cortex_a53_events[] = {
	{ 0x60, "BUS_ACCESS_RD" },
	{ 0x61, "BUS_ACCESS_WR" },
	{ 0x7a, "BR_INDIRECT_SPEC" },
	{ 0x86, "EXC_IRQ" },
	{ 0x87, "EXC_FIQ" },
	{ 0xc0, "EXT_MEM_REQ" },
	{ 0xc1, "EXT_MEM_REQ_NC" },
	{ 0xc2, "PREFETCH_LINEFILL" },
	{ 0xc3, "PREFETCH_LINEFILL_DROP" },
	{ 0xc4, "READ_ALLOC_ENTER" },
	{ 0xc5, "READ_ALLOC" },
	{ 0xc6, "PRE_DECODE_ERR" },
	{ 0xc7, "STALL_SB_FULL" },
	{ 0xc8, "EXT_SNOOP" },
	{ 0xc9, "BR_COND" },
	{ 0xca, "BR_INDIRECT_MISPRED" },
	{ 0xcb, "BR_INDIRECT_MISPRED_ADDR" },
	{ 0xcc, "BR_COND_MISPRED" },
	{ 0xd0, "L1I_CACHE_ERR" },
	{ 0xd1, "L1D_CACHE_ERR" },
	{ 0xd2, "TLB_ERR" },
	{ 0xe0, "OTHER_IQ_DEP_STALL" },
	{ 0xe1, "IC_DEP_STALL" },
	{ 0xe2, "IUTLB_DEP_STALL" },
	{ 0xe3, "DECODE_DEP_STALL" },
	{ 0xe4, "OTHER_INTERLOCK_STALL" },
	{ 0xe5, "AGU_DEP_STALL" },
	{ 0xe6, "SIMD_DEP_STALL" },
	{ 0xe7, "LD_DEP_STALL" },
	{ 0xe8, "ST_DEP_STALL" },
};

/*
 * The ARMv8 "recommended" events 0x40..0x7e as the A57/A72 implements them; the Cortex-A15
 * has the same ones but CRYPTO_SPEC (0x77). Two runs, so every table stays sorted.
 */
#define RECOMMENDED_0x40_0x76 \
	{ 0x40, "L1D_CACHE_RD" }, \
	{ 0x41, "L1D_CACHE_WR" }, \
	{ 0x42, "L1D_CACHE_REFILL_RD" }, \
	{ 0x43, "L1D_CACHE_REFILL_WR" }, \
	{ 0x46, "L1D_CACHE_WB_VICTIM" }, \
	{ 0x47, "L1D_CACHE_WB_CLEAN" }, \
	{ 0x48, "L1D_CACHE_INVAL" }, \
	{ 0x4c, "L1D_TLB_REFILL_RD" }, \
	{ 0x4d, "L1D_TLB_REFILL_WR" }, \
	{ 0x50, "L2D_CACHE_RD" }, \
	{ 0x51, "L2D_CACHE_WR" }, \
	{ 0x52, "L2D_CACHE_REFILL_RD" }, \
	{ 0x53, "L2D_CACHE_REFILL_WR" }, \
	{ 0x56, "L2D_CACHE_WB_VICTIM" }, \
	{ 0x57, "L2D_CACHE_WB_CLEAN" }, \
	{ 0x58, "L2D_CACHE_INVAL" }, \
	{ 0x60, "BUS_ACCESS_RD" }, \
	{ 0x61, "BUS_ACCESS_WR" }, \
	{ 0x62, "BUS_ACCESS_SHARED" }, \
	{ 0x63, "BUS_ACCESS_NOT_SHARED" }, \
	{ 0x64, "BUS_ACCESS_NORMAL" }, \
	{ 0x65, "BUS_ACCESS_PERIPH" }, \
	{ 0x66, "MEM_ACCESS_RD" }, \
	{ 0x67, "MEM_ACCESS_WR" }, \
	{ 0x68, "UNALIGNED_LD_SPEC" }, \
	{ 0x69, "UNALIGNED_ST_SPEC" }, \
	{ 0x6a, "UNALIGNED_LDST_SPEC" }, \
	{ 0x6c, "LDREX_SPEC" }, \
	{ 0x6d, "STREX_PASS_SPEC" }, \
	{ 0x6e, "STREX_FAIL_SPEC" }, \
	{ 0x70, "LD_SPEC" }, \
	{ 0x71, "ST_SPEC" }, \
	{ 0x72, "LDST_SPEC" }, \
	{ 0x73, "DP_SPEC" }, \
	{ 0x74, "ASE_SPEC" }, \
	{ 0x75, "VFP_SPEC" }, \
	{ 0x76, "PC_WRITE_SPEC" },

#define RECOMMENDED_0x78_0x7e \
	{ 0x78, "BR_IMMED_SPEC" }, \
	{ 0x79, "BR_RETURN_SPEC" }, \
	{ 0x7a, "BR_INDIRECT_SPEC" }, \
	{ 0x7c, "ISB_SPEC" }, \
	{ 0x7d, "DSB_SPEC" }, \
	{ 0x7e, "DMB_SPEC" },

/* perf describes the A57 and the A72 with one set of events; so does this table. */
static const struct pmuser_event cortex_a57_a72_events[] = {
	RECOMMENDED_0x40_0x76
	{ 0x77, "CRYPTO_SPEC" },
	RECOMMENDED_0x78_0x7e
	{ 0x81, "EXC_UNDEF" },
	{ 0x82, "EXC_SVC" },
	{ 0x83, "EXC_PABORT" },
	{ 0x84, "EXC_DABORT" },
	{ 0x86, "EXC_IRQ" },
	{ 0x87, "EXC_FIQ" },
	{ 0x88, "EXC_SMC" },
	{ 0x8a, "EXC_HVC" },
	{ 0x8b, "EXC_TRAP_PABORT" },
	{ 0x8c, "EXC_TRAP_DABORT" },
	{ 0x8d, "EXC_TRAP_OTHER" },
	{ 0x8e, "EXC_TRAP_IRQ" },
	{ 0x8f, "EXC_TRAP_FIQ" },
	{ 0x90, "RC_LD_SPEC" },
	{ 0x91, "RC_ST_SPEC" },
};

static const struct pmuser_event cortex_a76_events[] = {
	{ 0x40, "L1D_CACHE_RD" },
	{ 0x41, "L1D_CACHE_WR" },
	{ 0x42, "L1D_CACHE_REFILL_RD" },
	{ 0x43, "L1D_CACHE_REFILL_WR" },
	{ 0x44, "L1D_CACHE_REFILL_INNER" },
	{ 0x45, "L1D_CACHE_REFILL_OUTER" },
	{ 0x46, "L1D_CACHE_WB_VICTIM" },
	{ 0x47, "L1D_CACHE_WB_CLEAN" },
	{ 0x48, "L1D_CACHE_INVAL" },
	{ 0x4c, "L1D_TLB_REFILL_RD" },
	{ 0x4d, "L1D_TLB_REFILL_WR" },
	{ 0x4e, "L1D_TLB_RD" },
	{ 0x4f, "L1D_TLB_WR" },
	{ 0x50, "L2D_CACHE_RD" },
	{ 0x51, "L2D_CACHE_WR" },
	{ 0x52, "L2D_CACHE_REFILL_RD" },
	{ 0x53, "L2D_CACHE_REFILL_WR" },
	{ 0x56, "L2D_CACHE_WB_VICTIM" },
	{ 0x57, "L2D_CACHE_WB_CLEAN" },
	{ 0x58, "L2D_CACHE_INVAL" },
	{ 0x5c, "L2D_TLB_REFILL_RD" },
	{ 0x5d, "L2D_TLB_REFILL_WR" },
	{ 0x5e, "L2D_TLB_RD" },
	{ 0x5f, "L2D_TLB_WR" },
	{ 0x60, "BUS_ACCESS_RD" },
	{ 0x61, "BUS_ACCESS_WR" },
	{ 0x66, "MEM_ACCESS_RD" },
	{ 0x67, "MEM_ACCESS_WR" },
	{ 0x68, "UNALIGNED_LD_SPEC" },
	{ 0x69, "UNALIGNED_ST_SPEC" },
	{ 0x6a, "UNALIGNED_LDST_SPEC" },
	{ 0x6c, "LDREX_SPEC" },
	{ 0x6d, "STREX_PASS_SPEC" },
	{ 0x6e, "STREX_FAIL_SPEC" },
	{ 0x6f, "STREX_SPEC" },
	{ 0x70, "LD_SPEC" },
	{ 0x71, "ST_SPEC" },
	{ 0x72, "LDST_SPEC" },
	{ 0x73, "DP_SPEC" },
	{ 0x74, "ASE_SPEC" },
	{ 0x75, "VFP_SPEC" },
	{ 0x76, "PC_WRITE_SPEC" },
	{ 0x77, "CRYPTO_SPEC" },
	{ 0x78, "BR_IMMED_SPEC" },
	{ 0x79, "BR_RETURN_SPEC" },
	{ 0x7a, "BR_INDIRECT_SPEC" },
	{ 0x7c, "ISB_SPEC" },
	{ 0x7d, "DSB_SPEC" },
	{ 0x7e, "DMB_SPEC" },
	{ 0x81, "EXC_UNDEF" },
	{ 0x82, "EXC_SVC" },
	{ 0x83, "EXC_PABORT" },
	{ 0x84, "EXC_DABORT" },
	{ 0x86, "EXC_IRQ" },
	{ 0x87, "EXC_FIQ" },
	{ 0x88, "EXC_SMC" },
	{ 0x8a, "EXC_HVC" },
	{ 0x8b, "EXC_TRAP_PABORT" },
	{ 0x8c, "EXC_TRAP_DABORT" },
	{ 0x8d, "EXC_TRAP_OTHER" },
	{ 0x8e, "EXC_TRAP_IRQ" },
	{ 0x8f, "EXC_TRAP_FIQ" },
	{ 0x90, "RC_LD_SPEC" },
	{ 0x91, "RC_ST_SPEC" },
	{ 0xa0, "L3D_CACHE_RD" },
};

/* The ARMv7 architected events (PMUv2); the same numbers and meanings as in ARMv8. */
static const struct pmuser_event armv7_events[] = {
	{ 0x00, "SW_INCR" },
	{ 0x01, "L1I_CACHE_REFILL" },
	{ 0x02, "L1I_TLB_REFILL" },
	{ 0x03, "L1D_CACHE_REFILL" },
	{ 0x04, "L1D_CACHE" },
	{ 0x05, "L1D_TLB_REFILL" },
	{ 0x06, "LD_RETIRED" },
	{ 0x07, "ST_RETIRED" },
	{ 0x08, "INST_RETIRED" },
	{ 0x09, "EXC_TAKEN" },
	{ 0x0a, "EXC_RETURN" },
	{ 0x0b, "CID_WRITE_RETIRED" },
	{ 0x0c, "PC_WRITE_RETIRED" },
	{ 0x0d, "BR_IMMED_RETIRED" },
	{ 0x0e, "BR_RETURN_RETIRED" },
	{ 0x0f, "UNALIGNED_LDST_RETIRED" },
	{ 0x10, "BR_MIS_PRED" },
	{ 0x11, "CPU_CYCLES" },
	{ 0x12, "BR_PRED" },
	{ 0x13, "MEM_ACCESS" },
	{ 0x14, "L1I_CACHE" },
	{ 0x15, "L1D_CACHE_WB" },
	{ 0x16, "L2D_CACHE" },
	{ 0x17, "L2D_CACHE_REFILL" },
	{ 0x18, "L2D_CACHE_WB" },
	{ 0x19, "BUS_ACCESS" },
	{ 0x1a, "MEMORY_ERROR" },
	{ 0x1b, "INST_SPEC" },
	{ 0x1c, "TTBR_WRITE_RETIRED" },
	{ 0x1d, "BUS_CYCLES" },
};

/* Cortex-A7 TRM: the A53 inherited most of these, so they carry the A53's perf names. */
static const struct pmuser_event cortex_a7_events[] = {
	{ 0x60, "BUS_ACCESS_RD" },
	{ 0x61, "BUS_ACCESS_WR" },
	{ 0x86, "EXC_IRQ" },
	{ 0x87, "EXC_FIQ" },
	{ 0xc0, "EXT_MEM_REQ" },
	{ 0xc1, "EXT_MEM_REQ_NC" },
	{ 0xc2, "PREFETCH_LINEFILL" },
	{ 0xc3, "PREFETCH_LINEFILL_DROP" },
	{ 0xc4, "READ_ALLOC_ENTER" },
	{ 0xc5, "READ_ALLOC" },
	{ 0xc7, "ETM_EXT_OUT0" },
	{ 0xc8, "ETM_EXT_OUT1" },
	{ 0xc9, "STALL_SB_FULL" },
	{ 0xca, "EXT_SNOOP" },
};

/* Cortex-A15 TRM: the events ARMv8 later made its recommended ones, under those names. */
static const struct pmuser_event cortex_a15_events[] = {
	RECOMMENDED_0x40_0x76
	RECOMMENDED_0x78_0x7e
};

/* ARM1176 EVTSEL values; 0xff makes an event counter count cycles. */
static const struct pmuser_event arm1176_events[] = {
	{ 0x00, "ICACHE_MISS" },
	{ 0x01, "IBUF_STALL" },
	{ 0x02, "DDEP_STALL" },
	{ 0x03, "ITLB_MISS" },
	{ 0x04, "DTLB_MISS" },
	{ 0x05, "BR_EXEC" },
	{ 0x06, "BR_MISPREDICT" },
	{ 0x07, "INSTR_EXEC" },
	{ 0x09, "DCACHE_HIT" },
	{ 0x0a, "DCACHE_ACCESS" },
	{ 0x0b, "DCACHE_MISS" },
	{ 0x0c, "DCACHE_WBACK" },
	{ 0x0d, "SW_PC_CHANGE" },
	{ 0x0f, "MAIN_TLB_MISS" },
	{ 0x10, "EXPL_D_ACCESS" },
	{ 0x11, "LSU_FULL_STALL" },
	{ 0x12, "WBUF_DRAINED" },
	{ 0xff, "CPU_CYCLES" },
};

/* Table names match the perf JSON directories for the ARMv8 cores. */
static const struct pmuser_event_table armv8_table = TABLE("armv8", armv8_events);
static const struct pmuser_event_table cortex_a53_table = TABLE("cortex-a53", cortex_a53_events);
static const struct pmuser_event_table cortex_a57_a72_table =
	TABLE("cortex-a57-a72", cortex_a57_a72_events);
static const struct pmuser_event_table cortex_a76_table = TABLE("cortex-a76", cortex_a76_events);
static const struct pmuser_event_table armv7_table = TABLE("armv7", armv7_events);
static const struct pmuser_event_table cortex_a7_table = TABLE("cortex-a7", cortex_a7_events);
static const struct pmuser_event_table cortex_a15_table = TABLE("cortex-a15", cortex_a15_events);
static const struct pmuser_event_table arm1176_table = TABLE("arm1176", arm1176_events);

#define IMPL_ARM	0x41
#define IMPL_AMPERE	0xc0

struct core {
	uint8_t implementer;
	uint16_t part;
	const char *name;
	const struct pmuser_event_table *table;	/* the core's own events, or NULL */
};

static const struct core cores[] = {
	{ IMPL_ARM, 0xb76, "ARM1176", &arm1176_table },
	{ IMPL_ARM, 0xc05, "Cortex-A5", NULL },
	{ IMPL_ARM, 0xc07, "Cortex-A7", &cortex_a7_table },
	{ IMPL_ARM, 0xc08, "Cortex-A8", NULL },
	{ IMPL_ARM, 0xc09, "Cortex-A9", NULL },
	{ IMPL_ARM, 0xc0d, "Cortex-A12", NULL },
	{ IMPL_ARM, 0xc0e, "Cortex-A17", NULL },
	{ IMPL_ARM, 0xc0f, "Cortex-A15", &cortex_a15_table },
	{ IMPL_ARM, 0xd03, "Cortex-A53", &cortex_a53_table },
	{ IMPL_ARM, 0xd05, "Cortex-A55", NULL },
	{ IMPL_ARM, 0xd07, "Cortex-A57", &cortex_a57_a72_table },
	{ IMPL_ARM, 0xd08, "Cortex-A72", &cortex_a57_a72_table },
	{ IMPL_ARM, 0xd09, "Cortex-A73", NULL },
	{ IMPL_ARM, 0xd0a, "Cortex-A75", NULL },
	{ IMPL_ARM, 0xd0b, "Cortex-A76", &cortex_a76_table },
	/* Also the core of AWS Graviton2 and Ampere Altra, which report this MIDR. */
	{ IMPL_ARM, 0xd0c, "Neoverse-N1", NULL },
	/* Also AWS Graviton3. */
	{ IMPL_ARM, 0xd40, "Neoverse-V1", NULL },
	{ IMPL_ARM, 0xd49, "Neoverse-N2", NULL },
	{ IMPL_AMPERE, 0xac3, "AmpereOne", NULL },
};

static const struct core *core_find(uint32_t midr)
{
	unsigned int implementer = midr >> 24, part = (midr >> 4) & 0xfff;
	size_t i;

	for (i = 0; i < sizeof(cores) / sizeof(cores[0]); i++)
		if (cores[i].implementer == implementer && cores[i].part == part)
			return &cores[i];
	return NULL;
}

/*
 * Arm numbers its ARMv7 cores 0xcXX and its ARMv8 and later ones 0xdXX; older parts have no
 * architected events. Other implementers' cores that run this code are ARMv8 in practice.
 */
static const struct pmuser_event_table *midr_common_table(uint32_t midr)
{
	if (midr >> 24 != IMPL_ARM)
		return &armv8_table;
	switch ((midr >> 12) & 0xf) {
	case 0xd:
		return &armv8_table;
	case 0xc:
		return &armv7_table;
	default:
		return NULL;
	}
}

const char *pmuser_core_name(uint32_t midr)
{
	const struct core *core = core_find(midr);

	return core ? core->name : NULL;
}

unsigned int pmuser_core_tables(uint32_t midr,
				const struct pmuser_event_table *tables[PMUSER_CORE_TABLES])
{
	const struct core *core = core_find(midr);
	unsigned int n = 0;

	tables[n] = midr_common_table(midr);
	if (tables[n])
		n++;
	if (core && core->table)
		tables[n++] = core->table;
	return n;
}

int pmuser_event_lookup(uint32_t midr, const char *name, const struct pmuser_event **ev)
{
	const struct pmuser_event_table *tables[PMUSER_CORE_TABLES];
	unsigned int n, t;
	size_t i;

	if (!name || !ev)
		return -EINVAL;
	n = pmuser_core_tables(midr, tables);
	for (t = 0; t < n; t++) {
		for (i = 0; i < tables[t]->nr_events; i++) {
			if (!strcasecmp(tables[t]->events[i].name, name)) {
				*ev = &tables[t]->events[i];
				return 0;
			}
		}
	}
	return -ENOENT;
}

const char *pmuser_event_name(uint32_t midr, uint32_t number)
{
	const struct pmuser_event_table *tables[PMUSER_CORE_TABLES];
	unsigned int n, t;
	size_t i;

	n = pmuser_core_tables(midr, tables);
	for (t = 0; t < n; t++)
		for (i = 0; i < tables[t]->nr_events; i++)
			if (tables[t]->events[i].number == number)
				return tables[t]->events[i].name;
	return NULL;
}

bool pmuser_event_supported(const struct pmuser_cpu_info *ci, uint32_t number)
{
	unsigned int word;

	if (!ci || ci->pmceid_source != PMUSER_PMCEID_HW)
		return true;
	/* The uapi layout: [0] events 0x00..0x3f, [1] events 0x4000..0x403f. */
	if (number < 0x40)
		word = 0;
	else if (number >= 0x4000 && number < 0x4040)
		word = 1;
	else
		return true;
	return (ci->pmceid[word] >> (number % 64)) & 1;
}

/* ---- the running CPUs' MIDR, from the OS ---------------------------------------------- */

/* arm64 publishes each CPU's MIDR_EL1 in sysfs. */
static uint32_t midr_sysfs(int cpu)
{
	char path[96];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/regs/identification/midr_el1",
		 cpu);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llx", &v) != 1)
		v = 0;
	fclose(f);
	return (uint32_t)v;
}

/*
 * 32-bit ARM: /proc/cpuinfo spells the MIDR out field by field. The first processor's is
 * taken for every CPU (big.LITTLE 32-bit boards are rare; the device gives exact values).
 */
static uint32_t midr_cpuinfo(void)
{
	unsigned int impl = 0, variant = 0, arch = 0, part = 0, rev = 0, seen = 0;
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && seen != 0x1f) {
		char *colon = strchr(line, ':');
		unsigned int v;

		if (!colon)
			continue;
		if (sscanf(colon + 1, " %i", &v) != 1)
			continue;
		if (!strncmp(line, "CPU implementer", 15) && !(seen & 1))
			impl = v, seen |= 1;
		else if (!strncmp(line, "CPU variant", 11) && !(seen & 2))
			variant = v, seen |= 2;
		else if (!strncmp(line, "CPU architecture", 16) && !(seen & 4))
			arch = v, seen |= 4;
		else if (!strncmp(line, "CPU part", 8) && !(seen & 8))
			part = v, seen |= 8;
		else if (!strncmp(line, "CPU revision", 12) && !(seen & 16))
			rev = v, seen |= 16;
	}
	fclose(f);
	if (!(seen & 1) || !(seen & 8))
		return 0;
	/* "CPU architecture: 7" means the CPUID scheme (architecture field 0xf). */
	arch = arch >= 7 ? 0xf : arch;
	return impl << 24 | (variant & 0xf) << 20 | (arch & 0xf) << 16 | (part & 0xfff) << 4 |
	       (rev & 0xf);
}

uint32_t pmuser_cpu_midr(int cpu)
{
	uint32_t midr = midr_sysfs(cpu);

	return midr ? midr : midr_cpuinfo();
}
