/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pmuser: user-space access to ARM PMU counters.
 *
 * The one ABI header, shared by the kernel module and user space. Every ioctl struct starts
 * with size, the caller's sizeof, and flags; reserved fields and unknown flags must be zero.
 * The ioctl numbers do not encode a size, so a struct can grow at its end without a new
 * number: the module accepts any size from the struct's first version (PMUSER_*_SIZE_VER0)
 * up to PAGE_SIZE, treats fields an older caller lacks as zero, refuses a larger struct whose
 * tail it does not know with E2BIG unless that tail is zero (copy_struct_from_user()), and
 * writes back at most the caller's size, setting size to how much of the struct it filled
 * (the smaller of the caller's and its own). Fields marked out are the module's answer and
 * are ignored on input, so a struct one call filled may be passed to the next as it is.
 */
#ifndef _UAPI_PMUSER_H
#define _UAPI_PMUSER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PMUSER_ABI_VERSION	3
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
};

/* pmuser_info.access_flags */
/*
 * The user-enable bit that lets a thread read the counters also lets it write every PMU
 * register (ARMv7 PMUv2, ARM1176): a thread with access can stop, reset or reprogram any
 * counter on its CPU, other perf users' included. Clear where the PMU has read-only enables
 * (AArch64, PMUv3 in AArch32).
 */
#define PMUSER_INFO_USER_WRITES	0x1

/* pmuser_info.page_flags */
#define PMUSER_PAGE_AWAY	0x1	/* the page keeps pmuser_page_cpu.away */

/*
 * pmuser_info.rights: what the calling thread may do now, by perf's rules for its own
 * credentials or the administrator's opt-in (pmuser(7), "Privilege").
 */
/* Count user mode CPU-wide: CONFIGURE, GRANT and map the counter page. */
#define PMUSER_RIGHT_COUNT	0x1
/* Count kernel mode: needed wherever the configuration counts it, to hold or to read. */
#define PMUSER_RIGHT_KERNEL	0x2
/* Be granted where user access also writes the PMU (PMUSER_INFO_USER_WRITES). */
#define PMUSER_RIGHT_PROGRAM	0x4
/* COUNT comes from the device's group (module parameter group_user_counting=1), not perf. */
#define PMUSER_RIGHT_BY_GROUP	0x8

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
	/* out: bytes to mmap() for the counter page, and each CPU's offset step in it */
	__u32 page_size;
	__u32 page_cpu_stride;
	__u32 access_flags;		/* out: PMUSER_INFO_* */
	__u32 page_flags;		/* out: PMUSER_PAGE_* */
	__u32 rights;			/* out: PMUSER_RIGHT_* of the calling thread */
	__u32 reserved2;		/* out: 0 */
};

#define PMUSER_INFO_SIZE_VER0		168

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
	/* out: hardware counters pmuser's events occupy now, as perf placed them (bit 31:
	 * cycles); read on that CPU, which also publishes any placement change to the page
	 */
	__u32 held_mask;
	__u32 user_enable;		/* out: user-enable register as read on that CPU */
	__u32 unplaced;			/* out: configured counters perf has on no counter now */
	/* out: the CPU's counter page sequence afterwards (it also moves at switches) */
	__u32 page_seq;
	/* out: PMUSER_CPU_EL0_* facts that decide what perf lets EL0 read (from VER1) */
	__u32 el0_flags;
	__u32 reserved;			/* out: 0 */
	/*
	 * out: PMUACR_EL1 as read on that CPU where el0_flags has PMUSER_CPU_EL0_PMUV3P9, else
	 * 0: bit n lets EL0 read event counter n, bit 31 the cycle counter, bit 32 PMICNTR_EL0,
	 * while PMUSERENR_EL0.UEN (user_enable bit 4) is set
	 */
	__u64 pmuacr;
};

#define PMUSER_CPU_INFO_SIZE_VER0	80
#define PMUSER_CPU_INFO_SIZE_VER1	104	/* adds el0_flags and pmuacr */

/*
 * pmuser_cpu_info.el0_flags (arm64 only; 0 on 32-bit kernels, where none of this exists).
 * FEAT_PMUv3p9 (ID_AA64DFR0_EL1.PMUVer 0b1001 and up): PMUSERENR_EL0.UEN and PMUACR_EL1
 * exist. perf from Linux 6.13 sets UEN on such a core and lets EL0 read only the counters of
 * the running thread's own user-readable events, which pmuser's CPU-wide counters are not.
 */
#define PMUSER_CPU_EL0_PMUV3P9		0x1
/*
 * A core perf (Linux 7.3) never places CPU_CYCLES on PMCCNTR_EL0 on, nor lets EL0 read that
 * register (PMUSERENR_EL0.CR clear): one in the kernel's list of cores whose PMCCNTR_EL0
 * counts unlike the CPU_CYCLES event (NVIDIA Olympus), or a core with SMT siblings. The lists
 * live in the kernel; the module mirrors 7.3's and reports it on every kernel, since counting
 * cycles on an event counter is right on older ones too.
 */
#define PMUSER_CPU_EL0_CYCLES_OFF_PMCCNTR	0x2
/* FEAT_PMUv3_ICNTR (ID_AA64DFR1_EL1.PMICNTR): the fixed instruction counter PMICNTR_EL0. */
#define PMUSER_CPU_EL0_ICNTR		0x4

/* Privilege filters (pmuser_event_config.flags and pmuser_config.cycle_flags). */
#define PMUSER_COUNT_USER	0x1	/* count at EL0 / user mode */
#define PMUSER_COUNT_KERNEL	0x2	/* count at EL1 / kernel mode */
#define PMUSER_COUNT_MASK	(PMUSER_COUNT_USER | PMUSER_COUNT_KERNEL)

/*
 * pmuser never writes a counter: perf reloads it at every period end and whenever it starts
 * the event again, and may move it to another hardware counter. What a raw read means is
 * published per CPU in the counter page (struct pmuser_page_cpu): the delta (b - a) mod 2^bits
 * of two raw reads on one CPU is exact when the page's seq did not change between them and
 * both reads lie in [base, 2^bits - 1) of the slot (see struct pmuser_page_slot).
 */
struct pmuser_event_config {
	__u32 event;			/* in: event number (PMEVTYPER.evtCount) */
	__u32 flags;			/* in: PMUSER_COUNT_*, at least one */
	__u32 hw_counter;		/* out: hardware counter carrying it on every CPU */
	__u32 reserved;			/* in: 0 */
};

/*
 * pmuser_config.flags. perf places the event that counts cycles (PMUv3's CPU_CYCLES, ARMv7's
 * 0xff) on the cycle counter when it is free: without PMUSER_CONFIG_CYCLES such an event's
 * hw_counter may be PMUSER_HW_CYCLE, read at the width its page slot gives.
 */
#define PMUSER_CONFIG_CYCLES	0x1	/* also hold the cycle counter */
#define PMUSER_CONFIG_FLAGS	PMUSER_CONFIG_CYCLES

/*
 * PMUSER_IOC_CONFIGURE: hold counters on a set of CPUs through the kernel's perf subsystem,
 * so no other perf user is given or reprograms them. Replaces any configuration this file
 * held; fails with EBUSY while another file holds one. A request refused before anything is
 * replaced (more events than a CPU's counters, ENOSPC; an event a CPU lacks, EOPNOTSUPP)
 * leaves the previous configuration counting; one that fails later leaves it held again,
 * counting from 0 and perhaps on other counters, where perf has room for it, else nothing.
 * Released by PMUSER_IOC_RELEASE or when the file is closed. The caller needs the right to
 * count CPU-wide, and to count kernel mode if the configuration does (PMUSER_RIGHT_*, EACCES
 * otherwise); a configuration that counts kernel mode fails with EBUSY while a file through
 * which a caller without that right mapped the page or was granted is open. On arm64 perf
 * grants reads only while counters are in use on a CPU: a granted thread switched back in
 * while a replacement is under way traps on an inline read until the new counters are held
 * (SIGILL), so replace a configuration with no other thread reading inline.
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

#define PMUSER_CONFIG_SIZE_VER0		648

/*
 * PMUSER_IOC_RESET: count from zero again on a set of CPUs. The page's counts restart at 0
 * (raw counters are perf's and are not written).
 */
struct pmuser_reset {
	__u32 size;
	__u32 flags;			/* in: 0 */
	__u64 cpus[PMUSER_CPU_WORDS];	/* in: all zero = every configured CPU */
};

#define PMUSER_RESET_SIZE_VER0		136

/* pmuser_access.flags */
/*
 * The calling thread and the threads and processes it creates afterwards (perf inheritance
 * on clone and fork); threads that already exist, and threads they create, are not granted.
 */
#define PMUSER_ACCESS_PROCESS	0x1
#define PMUSER_ACCESS_FLAGS	PMUSER_ACCESS_PROCESS

/*
 * PMUSER_IOC_GRANT / PMUSER_IOC_REVOKE: inline read access for the calling thread. A thread
 * granted already gets 0 from GRANT if its grant was made through this file with the same
 * flags, else EEXIST (the grant in place stays: REVOKE it through its file first). REVOKE
 * drops only a grant made through this file (ENOENT otherwise). GRANT needs the right to
 * count CPU-wide, to count kernel mode while the configuration in force does, and on a PMU
 * whose user access writes it (PMUSER_INFO_USER_WRITES) the right to program it (EACCES);
 * EPERM when perf will not let the thread read (arm64 kernel.perf_user_access=0). A grant ends
 * at REVOKE, at the close of its file, when its thread exits, and at an exec that changes the
 * thread's credentials (setuid, setgid, capabilities).
 */
struct pmuser_access {
	__u32 size;
	__u32 flags;			/* in: PMUSER_ACCESS_* for GRANT, 0 for REVOKE */
	__u32 access_mode;		/* out: enum pmuser_access_mode now in force */
	__u32 reserved;			/* in: 0 */
};

#define PMUSER_ACCESS_SIZE_VER0		16

/*
 * PMUSER_IOC_SWINC: write PMSWINC count times with mask, on the calling CPU, from the kernel.
 * AArch64 EL0 may not write PMSWINC_EL0 under the kernel's perf driver (it grants reads only),
 * so this is how software increments are driven there. The writes are made at EL1: an SW_INCR
 * counter configured without PMUSER_COUNT_KERNEL does not count them. mask may name only the
 * counters that hold this configuration's SW_INCR events on the calling CPU (-EBUSY
 * otherwise, nothing written; -EAGAIN when perf moved one part-way, count not all written):
 * a counter perf gave to another user is never written. Only the file that holds the
 * configuration may write (-ENOENT for any other).
 */
struct pmuser_swinc {
	__u32 size;
	__u32 flags;			/* in: 0 */
	__u32 mask;			/* in: event counters to increment (bits 0..30) */
	__u32 count;			/* in: number of writes, at most 1 << 20 */
	__u32 cpu;			/* out: CPU the writes were made on */
	__u32 reserved;			/* in: 0 */
};

#define PMUSER_SWINC_SIZE_VER0		24

/*
 * The counter page: mmap(NULL, info.page_size, PROT_READ, MAP_SHARED, fd, 0) of /dev/pmuser
 * (read-only: PROT_WRITE or PROT_EXEC is EPERM, a non-zero offset or a length over
 * page_size EINVAL, and mprotect() cannot add either). CPU c's record is at offset
 * c * info.page_cpu_stride. pmuser writes a CPU's record only on that CPU with interrupts
 * off: when it places its counters, when perf's overflow interrupt reaches them (every
 * 2^(bits-1) events, and at the first counted event after perf restarted or moved one), at
 * RESET, and when CPU_INFO finds a change.
 * A reader retries while seq is odd or changed across its reads.
 * seq also advances by 2 at every context switch on the CPU: pmuser's counters count every
 * thread there, so two raw reads measure the reading thread alone only if seq is unchanged
 * between them (and both were made on this CPU).
 */
#define PMUSER_PAGE_SLOTS	32	/* slot i: pmuser_config.events[i]; slot 31: cycles */
#define PMUSER_PAGE_CYCLE_SLOT	31

struct pmuser_page_slot {
	__u32 hw;		/* hardware counter now; PMUSER_HW_NONE: on none (not counting) */
	__u32 bits;		/* width of raw reads: mask them to this many bits */
	/*
	 * The raw value that corresponded to count. Reads from base up to all ones but one
	 * are in the published period: value = count + ((raw - base) mod 2^bits). A read
	 * below base or of all ones means perf reloaded the counter since (a period end or a
	 * restart) and its interrupt is still to come: the read is not usable. perf gives
	 * pmuser's counters half their range, so base is 2^(bits-1) + 1 (a slot whose base
	 * is not is away): a counter that restarted at all ones wraps to 0 and raises its
	 * interrupt long before it could count up to 2^(bits-1), so a reader that assumes
	 * this base may test the top bit (and all ones) instead of comparing with base.
	 */
	__u64 base;
	__u64 count;		/* events since CONFIGURE or RESET, at base */
};

struct pmuser_page_cpu {
	__u32 seq;		/* odd while being written; changes at publications, switches */
	/*
	 * Bit s: slot s holds a counter of the current configuration that is not on hardware
	 * counter s (on another, or on none), or whose base is not 2^(bits-1) + 1; all ones
	 * while the record describes no configuration. Slots outside the configuration are
	 * never away, so a reader that assumes slot s on counter s (and the base) checks this
	 * word instead of every slot only for a configuration it holds. Kept where
	 * pmuser_info.page_flags has PMUSER_PAGE_AWAY.
	 */
	__u32 away;
	__u64 publications;	/* how often this CPU's record was republished */
	/*
	 * Slot s's count - base (mod 2^64), kept with it: a usable raw read r (masked to the
	 * slot's bits) stands for the value offset[s] + r. Kept apart from the slots so that a
	 * reader loads the offsets of neighbouring slots together.
	 */
	__u64 offset[PMUSER_PAGE_SLOTS];
	struct pmuser_page_slot slot[PMUSER_PAGE_SLOTS];
};

/* Free in Linux's Documentation/userspace-api/ioctl/ioctl-number.rst (tests/static checks). */
#define PMUSER_IOC_MAGIC	0xBB
#define PMUSER_IOC_INFO		_IO(PMUSER_IOC_MAGIC, 0x10)
#define PMUSER_IOC_CPU_INFO	_IO(PMUSER_IOC_MAGIC, 0x11)
#define PMUSER_IOC_CONFIGURE	_IO(PMUSER_IOC_MAGIC, 0x12)
#define PMUSER_IOC_RESET	_IO(PMUSER_IOC_MAGIC, 0x13)
#define PMUSER_IOC_RELEASE	_IO(PMUSER_IOC_MAGIC, 0x14)
#define PMUSER_IOC_GRANT	_IO(PMUSER_IOC_MAGIC, 0x15)
#define PMUSER_IOC_REVOKE	_IO(PMUSER_IOC_MAGIC, 0x16)
#define PMUSER_IOC_SWINC	_IO(PMUSER_IOC_MAGIC, 0x17)

#endif /* _UAPI_PMUSER_H */
