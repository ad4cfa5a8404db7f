/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuser: PMU register access, one block per instruction set. Every function runs on the CPU
 * whose registers it touches, with preemption disabled.
 */
#ifndef PMUSER_DRV_HW_H
#define PMUSER_DRV_HW_H

#include <linux/types.h>
#include <asm/cputype.h>
#include <uapi/linux/pmuser.h>

#if defined(CONFIG_ARM64)
#include <asm/sysreg.h>
#elif defined(CONFIG_ARM)

#define pmuser_drv_cp15_read(crn, op1, crm, op2) ({				\
	u32 __v;							\
	asm volatile("mrc p15, " #op1 ", %0, " #crn ", " #crm ", " #op2	\
		     : "=r" (__v));					\
	__v; })
#define pmuser_drv_cp15_write(crn, op1, crm, op2, v) ({			\
	asm volatile("mcr p15, " #op1 ", %0, " #crn ", " #crm ", " #op2	\
		     : : "r" ((u32)(v)));					\
})

#endif

#if defined(CONFIG_ARM64)

#define PMUSER_DRV_ARCH			PMUSER_ARCH_ARMV8_A64
#define PMUSER_DRV_CYCLE_BITS		64
/* EL0 may read event counters (ER) and the cycle counter (CR), as perf grants them. */
#define PMUSER_DRV_USERENR_READ		(BIT(3) | BIT(2))
/* perf never sets EN, so EL0 never writes the PMU. */
#define PMUSER_DRV_USERENR_WRITES	0
#define PMUSER_DRV_HAS_SWINC		1
#define PMUSER_DRV_HAS_MODE_FILTER	1

static inline u32 pmuser_drv_hw_pmu_version(void)
{
	return (read_sysreg(id_aa64dfr0_el1) >> 8) & 0xf;
}

static inline u32 pmuser_drv_hw_nr_counters(void)
{
	return (read_sysreg(pmcr_el0) >> 11) & 0x1f;
}

/* PMUv3p5 (version 6) makes event counters 64 bits wide. */
static inline u32 pmuser_drv_hw_counter_bits(u32 pmu_version)
{
	return pmu_version >= 6 && pmu_version != 0xf ? 64 : 32;
}

static inline bool pmuser_drv_hw_read_pmceid(u64 pmceid[2])
{
	u64 ceid0 = read_sysreg(pmceid0_el0);
	u64 ceid1 = read_sysreg(pmceid1_el0);

	/* Low halves describe events 0x00..0x3f, high halves 0x4000..0x403f. */
	pmceid[0] = lower_32_bits(ceid0) | (u64)lower_32_bits(ceid1) << 32;
	pmceid[1] = upper_32_bits(ceid0) | (u64)upper_32_bits(ceid1) << 32;
	return true;
}

static inline u32 pmuser_drv_hw_userenr_read(void)
{
	return read_sysreg(pmuserenr_el0);
}

static inline u32 pmuser_drv_hw_userenr_read_bits(void)
{
	return PMUSER_DRV_USERENR_READ;
}

static inline void pmuser_drv_hw_userenr_write(u32 val)
{
	write_sysreg(val, pmuserenr_el0);
	isb();
}

static inline void pmuser_drv_hw_swinc(u32 mask)
{
	write_sysreg(mask, pmswinc_el0);
}

/* By encoding: the headers of kernels before 6.13 name neither register. */
#define PMUSER_DRV_SYS_PMUACR_EL1	sys_reg(3, 0, 9, 14, 4)
#define PMUSER_DRV_PMUVER_V3P9		9
#define PMUSER_DRV_DFR1_PMICNTR_SHIFT	36
/* NVIDIA Olympus, implementer 0x4e part 0x010: older headers lack MIDR_NVIDIA_OLYMPUS. */
#define PMUSER_DRV_MIDR_NVIDIA_OLYMPUS	MIDR_CPU_MODEL(0x4e, 0x010)

/*
 * PMUSER_CPU_EL0_* of this CPU. Only ID registers are read here, which every ARMv8.0 core
 * implements (ID_AA64DFR1_EL1 reads as zero before the fields existed).
 */
static inline u32 pmuser_drv_hw_el0_flags(u32 pmu_version, bool smt)
{
	u32 flags = 0;

	if (pmu_version >= PMUSER_DRV_PMUVER_V3P9 && pmu_version != 0xf)
		flags |= PMUSER_CPU_EL0_PMUV3P9;
	if (((read_sysreg(id_aa64dfr1_el1) >> PMUSER_DRV_DFR1_PMICNTR_SHIFT) & 0xf) != 0)
		flags |= PMUSER_CPU_EL0_ICNTR;
	if ((read_cpuid_id() & MIDR_CPU_MODEL_MASK) == PMUSER_DRV_MIDR_NVIDIA_OLYMPUS || smt)
		flags |= PMUSER_CPU_EL0_CYCLES_OFF_PMCCNTR;
	return flags;
}

/* Read only where the flags say PMUACR_EL1 exists: the encoding is UNDEFINED elsewhere. */
static inline u64 pmuser_drv_hw_pmuacr_read(u32 el0_flags)
{
	if (!(el0_flags & PMUSER_CPU_EL0_PMUV3P9))
		return 0;
	return read_sysreg_s(PMUSER_DRV_SYS_PMUACR_EL1);
}

#elif defined(CONFIG_ARM) && __LINUX_ARM_ARCH__ >= 7

#define PMUSER_DRV_ARCH			PMUSER_ARCH_ARMV7
#define PMUSER_DRV_CYCLE_BITS		32
/*
 * PMUv2 (ARMv7) has only EN: user space may then read, and also write, every PMU register.
 * PMUv3 in AArch32 adds ER (PMSELR and event counter reads) and CR (cycle counter reads).
 */
#define PMUSER_DRV_USERENR_EN		BIT(0)
#define PMUSER_DRV_USERENR_V3_READ	(BIT(3) | BIT(2))
#define PMUSER_DRV_USERENR_WRITES	PMUSER_DRV_USERENR_EN
#define PMUSER_DRV_HAS_SWINC		1
#define PMUSER_DRV_HAS_MODE_FILTER	1

static inline u32 pmuser_drv_hw_pmu_version(void)
{
	/* ID_DFR0.PerfMon: 2 = PMUv2 (ARMv7), 3 = PMUv3 (ARMv8 AArch32). */
	return (pmuser_drv_cp15_read(c0, 0, c1, 2) >> 24) & 0xf;
}

static inline u32 pmuser_drv_hw_nr_counters(void)
{
	return (pmuser_drv_cp15_read(c9, 0, c12, 0) >> 11) & 0x1f;
}

static inline u32 pmuser_drv_hw_counter_bits(u32 pmu_version)
{
	return 32;
}

/* PMCEID0/1 exist from PMUv3 on; reading them on a PMUv2 core is UNDEFINED. */
static inline bool pmuser_drv_hw_read_pmceid(u64 pmceid[2])
{
	if (pmuser_drv_hw_pmu_version() < 3 || pmuser_drv_hw_pmu_version() == 0xf)
		return false;
	pmceid[0] = pmuser_drv_cp15_read(c9, 0, c12, 6) |
		    (u64)pmuser_drv_cp15_read(c9, 0, c12, 7) << 32;
	pmceid[1] = 0;
	return true;
}

static inline u32 pmuser_drv_hw_userenr_read(void)
{
	return pmuser_drv_cp15_read(c9, 0, c14, 0);
}

/* The fewest bits that let user space read this CPU's counters. */
static inline u32 pmuser_drv_hw_userenr_read_bits(void)
{
	u32 v = pmuser_drv_hw_pmu_version();

	return v >= 3 && v != 0xf ? PMUSER_DRV_USERENR_V3_READ : PMUSER_DRV_USERENR_EN;
}

static inline void pmuser_drv_hw_userenr_write(u32 val)
{
	pmuser_drv_cp15_write(c9, 0, c14, 0, val);
	isb();
}

static inline void pmuser_drv_hw_swinc(u32 mask)
{
	pmuser_drv_cp15_write(c9, 0, c12, 4, mask);
}

#elif defined(CONFIG_ARM) && __LINUX_ARM_ARCH__ == 6

#define PMUSER_DRV_ARCH			PMUSER_ARCH_ARMV6_1176
#define PMUSER_DRV_CYCLE_BITS		32
/*
 * V bit of the Secure User and Non-secure Access Validation Control register: user space may
 * then read and write every c15 PMU register.
 */
#define PMUSER_DRV_USERENR_READ		BIT(0)
#define PMUSER_DRV_USERENR_WRITES	PMUSER_DRV_USERENR_READ
#define PMUSER_DRV_HAS_SWINC		0
#define PMUSER_DRV_HAS_MODE_FILTER	0

static inline u32 pmuser_drv_hw_pmu_version(void)
{
	return 0;
}

static inline u32 pmuser_drv_hw_nr_counters(void)
{
	return 2;
}

static inline u32 pmuser_drv_hw_counter_bits(u32 pmu_version)
{
	return 32;
}

static inline bool pmuser_drv_hw_read_pmceid(u64 pmceid[2])
{
	return false;
}

static inline u32 pmuser_drv_hw_userenr_read(void)
{
	return pmuser_drv_cp15_read(c15, 0, c9, 0);
}

static inline u32 pmuser_drv_hw_userenr_read_bits(void)
{
	return PMUSER_DRV_USERENR_READ;
}

static inline void pmuser_drv_hw_userenr_write(u32 val)
{
	pmuser_drv_cp15_write(c15, 0, c9, 0, val);
}

static inline void pmuser_drv_hw_swinc(u32 mask)
{
}

#else
#error "pmuser supports ARMv8 AArch64, ARMv7 and ARMv6 (ARM1176) kernels"
#endif

#if defined(CONFIG_ARM)
/* 32-bit kernels: neither PMUACR, PMICNTR nor perf's PMCCNTR avoidance exist. */
static inline u32 pmuser_drv_hw_el0_flags(u32 pmu_version, bool smt)
{
	return 0;
}

static inline u64 pmuser_drv_hw_pmuacr_read(u32 el0_flags)
{
	return 0;
}
#endif

#endif /* PMUSER_DRV_HW_H */
