/* SPDX-License-Identifier: GPL-2.0 */
/* pmuser: the kernel-version differences, all in one place (6.1 to 7.3). */
#ifndef PMUSER_DRV_COMPAT_H
#define PMUSER_DRV_COMPAT_H

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <uapi/linux/pmuser.h>

/* Kbuild passes the target kernel's VERSION * 256 + PATCHLEVEL (see Kbuild). */
#define PMUSER_DRV_KERNEL_AT_LEAST(major, minor) \
	((major) * 256 + (minor) <= PMUSER_DRV_KERNEL)

/*
 * Before 6.11 the arm PMU drivers numbered the cycle counter 0 and event counter n as n + 1;
 * since then the PMUv3 and ARMv7 drivers use the hardware number with the cycle counter at
 * 31. The ARMv6 driver keeps the old numbering (arm_v6_pmu.c in 6.12), and pmuser builds
 * for ARMv6 alone where the kernel is built for it (pmuser_hw.h).
 */
static inline u32 pmuser_drv_compat_idx_to_hw(int idx)
{
#if PMUSER_DRV_KERNEL_AT_LEAST(6, 11) && !(defined(CONFIG_ARM) && __LINUX_ARM_ARCH__ == 6)
	return idx == PMUSER_HW_CYCLE ? PMUSER_HW_CYCLE :
	       idx >= 0 && idx < PMUSER_HW_CYCLE ? idx : PMUSER_HW_NONE;
#else
	return idx == 0 ? PMUSER_HW_CYCLE :
	       idx > 0 && idx <= PMUSER_HW_CYCLE ? idx - 1 : PMUSER_HW_NONE;
#endif
}

#if PMUSER_DRV_KERNEL_AT_LEAST(6, 4)
#define pmuser_drv_compat_class_create(name)	class_create(name)
#else
#define pmuser_drv_compat_class_create(name)	class_create(THIS_MODULE, name)
#endif

#if PMUSER_DRV_KERNEL_AT_LEAST(6, 2)
#define PMUSER_DRV_COMPAT_DEVNODE_CONST const
#else
#define PMUSER_DRV_COMPAT_DEVNODE_CONST
#endif

/* 6.3 made vm_flags read-only outside the vm_flags_*() helpers. */
static inline void pmuser_drv_compat_vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
#if PMUSER_DRV_KERNEL_AT_LEAST(6, 3)
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * Kernel-mode counting follows perf's rule: where perf exports its own check (perf_event_paranoid
 * and the LSM hook; Kbuild finds which form the headers declare) pmuser asks it; elsewhere only
 * CAP_PERFMON (or CAP_SYS_ADMIN) allows it, which is never more than perf would allow.
 */
static inline int pmuser_drv_compat_allow_kernel(void)
{
#if defined(PMUSER_DRV_PERF_ALLOW_KERNEL) && PMUSER_DRV_PERF_ALLOW_KERNEL == 1
	return perf_allow_kernel();
#elif defined(PMUSER_DRV_PERF_ALLOW_KERNEL) && PMUSER_DRV_PERF_ALLOW_KERNEL == 2
	struct perf_event_attr attr = { .size = sizeof(attr) };

	return perf_allow_kernel(&attr);
#else
	return perfmon_capable() ? 0 : -EACCES;
#endif
}

/* 6.13 folded hrtimer_init() and the function assignment into hrtimer_setup(). */
static inline void pmuser_drv_compat_hrtimer_setup(struct hrtimer *t,
						   enum hrtimer_restart (*fn)(struct hrtimer *))
{
#if PMUSER_DRV_KERNEL_AT_LEAST(6, 13)
	hrtimer_setup(t, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
#else
	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	t->function = fn;
#endif
}

/* Whether interrupts-off leaves pseudo-NMIs (arm64 GICv3 priority masking) unmasked. */
static inline bool pmuser_drv_compat_pseudo_nmi(void)
{
#ifdef CONFIG_ARM64
	return system_uses_irq_prio_masking();
#else
	return false;
#endif
}

/*
 * A task's hardware perf context, under the RCU read lock (6.2 merged the per-PMU-type task
 * contexts into one).
 */
static inline struct perf_event_context *pmuser_drv_compat_task_ctx(struct task_struct *task)
{
#if PMUSER_DRV_KERNEL_AT_LEAST(6, 2)
	return READ_ONCE(task->perf_event_ctxp);
#else
	return READ_ONCE(task->perf_event_ctxp[perf_hw_context]);
#endif
}

/*
 * Whether perf itself manages user counter access for a task: it has events that asked. A
 * test of its own, not pmuser_drv_compat_task_nr_user() > 0: it runs at every context switch.
 */
static inline bool pmuser_drv_compat_task_perf_user(struct task_struct *task)
{
	struct perf_event_context *ctx;
	bool ret;

	rcu_read_lock();
	ctx = pmuser_drv_compat_task_ctx(task);
	ret = ctx && READ_ONCE(ctx->nr_user);
	rcu_read_unlock();
	return ret;
}

/* How many of a task's perf events asked for user counter access. */
static inline int pmuser_drv_compat_task_nr_user(struct task_struct *task)
{
	struct perf_event_context *ctx;
	int ret;

	rcu_read_lock();
	ctx = pmuser_drv_compat_task_ctx(task);
	ret = ctx ? READ_ONCE(ctx->nr_user) : 0;
	rcu_read_unlock();
	return ret;
}

#endif /* PMUSER_DRV_COMPAT_H */
