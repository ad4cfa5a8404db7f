/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pmuser: user-space access to ARM PMU counters.
 *
 * The one ABI header, shared by the kernel module and user space. Every ioctl struct starts
 * with size (the caller's sizeof, so old and new binaries interoperate as with
 * copy_struct_from_user()) and flags; reserved fields and unknown flags must be zero.
 */
#ifndef _UAPI_PMUSER_H
#define _UAPI_PMUSER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PMUSER_ABI_VERSION	1
#define PMUSER_DEVICE		"/dev/pmuser"

#define PMUSER_MAX_CPUS		1024
#define PMUSER_CPU_WORDS	(PMUSER_MAX_CPUS / 64)
/* Architectural maximum of event counters (PMCR.N is 5 bits, 31 is the cycle counter). */
#define PMUSER_MAX_EVENTS	31

/* Hardware counter numbers: 0..30 are event counters, this is the cycle counter. */
#define PMUSER_HW_CYCLE		31
#define PMUSER_HW_NONE		0xffffffffU

enum pmuser_arch {
	PMUSER_ARCH_NONE = 0,
	PMUSER_ARCH_ARMV8_A64 = 1,	/* AArch64, PMUv3: MRS PMCCNTR_EL0, PMEVCNTR<n>_EL0 */
	PMUSER_ARCH_ARMV7 = 2,		/* AArch32 PMUv2/v3: MRC p15, 0, Rt, c9, ... */
	PMUSER_ARCH_ARMV6_1176 = 3,	/* ARM1176: MRC p15, 0, Rt, c15, c12, ... */
};

/* How inline reads are authorised (pmuser_info.access_mode). */
enum pmuser_access_mode {
	/* Only threads granted with PMUSER_IOC_GRANT read counters; others trap. */
	PMUSER_ACCESS_PER_THREAD = 1,
	/*
	 * Module parameter global_access=1 (32-bit ARM): every thread on every CPU may read, and
	 * where access_flags has PMUSER_INFO_USER_WRITES also write.
	 */
	PMUSER_ACCESS_GLOBAL = 2,
	/* Nobody reads: older modules on 32-bit ARM, loaded without global_access=1. */
	PMUSER_ACCESS_NONE = 3,
};

/* pmuser_info.access_flags */
/*
 * The user-enable bit that lets a thread read the counters also lets it write every PMU
 * register (ARMv7 PMUv2, ARM1176): a thread with access can stop, reset or reprogram any
 * counter on its CPU, other perf users' included. Clear where the PMU has read-only enables
 * (AArch64, PMUv3 in AArch32).
 */
#define PMUSER_INFO_USER_WRITES	0x1

/* PMUSER_IOC_INFO: module-wide facts. */
struct pmuser_info {
	__u32 size;
	__u32 flags;			/* in: 0 */
	__u32 abi_version;		/* out: PMUSER_ABI_VERSION */
	__u32 module_version;		/* out: major << 16 | minor << 8 | patch */
	__u32 arch;			/* out: enum pmuser_arch */
	__u32 access_mode;		/* out: enum pmuser_access_mode */
	__u32 nr_cpus;			/* out: CPU numbers are below this (nr_cpu_ids) */
	__u32 nr_events;		/* out: event counters held by the current configuration */
	__u32 cycles_held;		/* out: 1 if the configuration holds a cycle counter */
	__u32 reserved;			/* out: 0 */
	__u64 configured_cpus[PMUSER_CPU_WORDS];	/* out */
	/* Filled when the returned size covers them (older modules return the smaller size). */
	__u32 access_flags;		/* out: PMUSER_INFO_* */
	__u32 reserved2;		/* out: 0 */
};

/* Size of struct pmuser_info before access_flags; callers may still pass it (see below). */
#define PMUSER_INFO_SIZE_VER0	168

/* Where pmuser_cpu_info.pmceid came from. */
enum pmuser_pmceid_source {
	PMUSER_PMCEID_NONE = 0,		/* no register: user space uses per-core event tables */
	PMUSER_PMCEID_HW = 1,		/* read from PMCEID0..3 on that CPU */
};

/* PMUSER_IOC_CPU_INFO: one CPU's PMU, read on that CPU. */
struct pmuser_cpu_info {
	__u32 size;
	__u32 flags;			/* in: 0 */
	__u32 cpu;			/* in */
	__u32 online;			/* out: 0 = offline, remaining fields are zero */
	__u32 midr;			/* out: MIDR(_EL1), names the core (e.g. 0x410fd083 A72) */
	__u32 pmu_version;		/* out: ID_AA64DFR0_EL1.PMUVer or ID_DFR0.PerfMon */
	__u32 nr_counters;		/* out: event counters implemented (PMCR.N, 2 on ARM1176) */
	__u32 counter_bits;		/* out: event counter width: 32 or 64 */
	__u32 cycle_bits;		/* out: cycle counter width: 64 on ARMv8, else 32 */
	__u32 pmceid_source;		/* out: enum pmuser_pmceid_source */
	/* out: supported common events: bit n of [0] is event n (0x00..0x3f), bit n of [1] is
	 * event 0x4000 + n; [2] and [3] are reserved (0).
	 */
	__u64 pmceid[4];
	__u32 held_mask;		/* out: counters pmuser holds here (bit 31: cycles) */
	__u32 user_enable;		/* out: user-enable register as read on that CPU */
};

/* Privilege filters (pmuser_event_config.flags and pmuser_config.cycle_flags). */
#define PMUSER_COUNT_USER	0x1	/* count at EL0 / user mode */
#define PMUSER_COUNT_KERNEL	0x2	/* count at EL1 / kernel mode */
#define PMUSER_COUNT_MASK	(PMUSER_COUNT_USER | PMUSER_COUNT_KERNEL)

/*
 * Raw reads are continuous modulo the counter's width (pmuser_cpu_info.counter_bits, 32 for
 * ARMv8.0-8.4 and 32-bit event counters; cycle_bits): pmuser puts back the value perf's reloads
 * would change, at wraps and when perf restarts its events. The delta (b - a) mod 2^bits of
 * two reads on the same CPU is exact provided fewer than 2^bits events happened between them
 * (2^32: about 4 s at 1 GHz); a longer window is ambiguous, so read at least that often.
 */
struct pmuser_event_config {
	__u32 event;			/* in: event number (PMEVTYPER.evtCount) */
	__u32 flags;			/* in: PMUSER_COUNT_*, at least one */
	__u32 hw_counter;		/* out: hardware event counter carrying it on every CPU */
	__u32 reserved;			/* in: 0 */
};

/* pmuser_config.flags */
#define PMUSER_CONFIG_CYCLES	0x1	/* also hold the cycle counter */
#define PMUSER_CONFIG_FLAGS	PMUSER_CONFIG_CYCLES

/*
 * PMUSER_IOC_CONFIGURE: hold counters on a set of CPUs through the kernel's perf subsystem,
 * so no other perf user is given or reprograms them. Replaces any configuration this file
 * held; fails with EBUSY while another file holds one. Released by PMUSER_IOC_RELEASE or
 * when the file is closed.
 */
struct pmuser_config {
	__u32 size;
	__u32 flags;			/* in: PMUSER_CONFIG_* */
	__u32 cycle_flags;		/* in: PMUSER_COUNT_* for the cycle counter */
	__u32 nr_events;		/* in: entries used in events[] */
	__u64 cpus[PMUSER_CPU_WORDS];	/* in: CPUs to hold counters on; all zero = every CPU */
	struct pmuser_event_config events[PMUSER_MAX_EVENTS];
	__u32 cycle_hw_counter;		/* out: PMUSER_HW_CYCLE, or PMUSER_HW_NONE if not held */
	__u32 reserved;			/* in: 0 */
};

/* PMUSER_IOC_RESET: zero the held counters on a set of CPUs. */
struct pmuser_reset {
	__u32 size;
	__u32 flags;			/* in: 0 */
	__u64 cpus[PMUSER_CPU_WORDS];	/* in: all zero = every configured CPU */
};

/* pmuser_access.flags */
/*
 * The calling thread and the threads and processes it creates afterwards (perf inheritance
 * on clone and fork); threads that already exist, and threads they create, are not granted.
 */
#define PMUSER_ACCESS_PROCESS	0x1
#define PMUSER_ACCESS_FLAGS	PMUSER_ACCESS_PROCESS

/* PMUSER_IOC_GRANT / PMUSER_IOC_REVOKE: inline read access for the calling thread. */
struct pmuser_access {
	__u32 size;
	__u32 flags;			/* in: PMUSER_ACCESS_* */
	__u32 access_mode;		/* out: enum pmuser_access_mode now in force */
	__u32 reserved;			/* in: 0 */
};

/*
 * PMUSER_IOC_SWINC: write PMSWINC count times with mask, on the calling CPU, from the kernel.
 * AArch64 EL0 may not write PMSWINC_EL0 under the kernel's perf driver (it grants reads only),
 * so this is how software increments are driven there. The writes are made at EL1: an SW_INCR
 * counter configured without PMUSER_COUNT_KERNEL does not count them.
 */
struct pmuser_swinc {
	__u32 size;
	__u32 flags;			/* in: 0 */
	__u32 mask;			/* in: event counters to increment (bits 0..30) */
	__u32 count;			/* in: number of writes, at most 1 << 20 */
	__u32 cpu;			/* out: CPU the writes were made on */
	__u32 reserved;			/* in: 0 */
};

#define PMUSER_IOC_MAGIC	0xB7
#define PMUSER_IOC_INFO		_IOWR(PMUSER_IOC_MAGIC, 0x00, struct pmuser_info)
#define PMUSER_IOC_CPU_INFO	_IOWR(PMUSER_IOC_MAGIC, 0x01, struct pmuser_cpu_info)
#define PMUSER_IOC_CONFIGURE	_IOWR(PMUSER_IOC_MAGIC, 0x02, struct pmuser_config)
#define PMUSER_IOC_RESET	_IOW(PMUSER_IOC_MAGIC, 0x03, struct pmuser_reset)
#define PMUSER_IOC_RELEASE	_IO(PMUSER_IOC_MAGIC, 0x04)
#define PMUSER_IOC_GRANT	_IOWR(PMUSER_IOC_MAGIC, 0x05, struct pmuser_access)
#define PMUSER_IOC_REVOKE	_IOWR(PMUSER_IOC_MAGIC, 0x06, struct pmuser_access)
#define PMUSER_IOC_SWINC	_IOWR(PMUSER_IOC_MAGIC, 0x07, struct pmuser_swinc)
/* PMUSER_IOC_INFO as numbered by callers built before access_flags (size in the number). */
#define PMUSER_IOC_INFO_VER0	_IOC(_IOC_READ | _IOC_WRITE, PMUSER_IOC_MAGIC, 0x00, \
				     PMUSER_INFO_SIZE_VER0)

#endif /* _UAPI_PMUSER_H */
