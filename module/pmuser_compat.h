/* SPDX-License-Identifier: GPL-2.0 */
/* pmuser: the kernel-version differences, all in one place (6.1 to 7.3). */
#ifndef PMUSER_COMPAT_H
#define PMUSER_COMPAT_H

#include <linux/device.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <uapi/linux/pmuser.h>

/* Kbuild passes the target kernel's VERSION * 256 + PATCHLEVEL (see Kbuild). */
#define PMUSER_KERNEL_AT_LEAST(major, minor)	((major) * 256 + (minor) <= PMUSER_KERNEL)

/*
 * Before 6.11 the arm PMU drivers numbered the cycle counter 0 and event counter n as n + 1;
 * since then idx is the hardware number with the cycle counter at 31.
 */
static inline u32 pmuser_compat_idx_to_hw(int idx)
{
#if PMUSER_KERNEL_AT_LEAST(6, 11)
	return idx == PMUSER_HW_CYCLE ? PMUSER_HW_CYCLE :
	       idx >= 0 && idx < PMUSER_HW_CYCLE ? idx : PMUSER_HW_NONE;
#else
	return idx == 0 ? PMUSER_HW_CYCLE :
	       idx > 0 && idx <= PMUSER_HW_CYCLE ? idx - 1 : PMUSER_HW_NONE;
#endif
}

#if PMUSER_KERNEL_AT_LEAST(6, 4)
#define pmuser_compat_class_create(name)	class_create(name)
#else
#define pmuser_compat_class_create(name)	class_create(THIS_MODULE, name)
#endif

#if PMUSER_KERNEL_AT_LEAST(6, 2)
#define PMUSER_COMPAT_DEVNODE_CONST const
#else
#define PMUSER_COMPAT_DEVNODE_CONST
#endif

/*
 * Whether perf itself manages user counter access for a task: its hardware context holds
 * events that asked for it (6.2 merged the per-PMU-type task contexts into one).
 */
static inline bool pmuser_compat_task_perf_user(struct task_struct *task)
{
	struct perf_event_context *ctx;
	bool ret;

	rcu_read_lock();
#if PMUSER_KERNEL_AT_LEAST(6, 2)
	ctx = READ_ONCE(task->perf_event_ctxp);
#else
	ctx = READ_ONCE(task->perf_event_ctxp[perf_hw_context]);
#endif
	ret = ctx && READ_ONCE(ctx->nr_user);
	rcu_read_unlock();
	return ret;
}

#endif /* PMUSER_COMPAT_H */
