// SPDX-License-Identifier: GPL-2.0
/*
 * pmuser: who may read the counters from user space.
 *
 * arm64: the perf driver rewrites PMUSERENR_EL0 every time it starts the PMU, from context
 * switches, multiplexing timers, IPIs and its own overflow interrupt. It sets the read bits
 * only while the current task's perf context holds an event that asked for user access
 * (config1 "rdpmc") and sysctl kernel.perf_user_access is 1, and clears them otherwise.
 * So a granted thread gets a disabled, task-bound rdpmc event: it never occupies a counter,
 * but makes perf itself enable reads whenever, and only while, that thread runs. Any value
 * pmuser wrote itself would be undone at the next such start.
 *
 * 32-bit ARM: the perf driver never touches the user-enable register, and Debian's kernels
 * have no preempt notifiers to switch it per thread, so access is global (module parameter
 * global_access=1) or none.
 */
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "pmuser.h"
#include "pmuser_compat.h"
#include "pmuser_hw.h"

static u32 pmuser_mode;

u32 pmuser_access_mode(void)
{
	return pmuser_mode;
}

void pmuser_access_cpu_up(void)
{
	if (pmuser_mode == PMUSER_ACCESS_GLOBAL)
		pmuser_hw_userenr_write(PMUSER_USERENR_READ);
}

void pmuser_access_cpu_down(void)
{
	if (pmuser_mode == PMUSER_ACCESS_GLOBAL)
		pmuser_hw_userenr_write(0);
}

#ifdef CONFIG_ARM64

/* config1 bit 1 is the arm64 PMU's "rdpmc" format field. */
#define PMUSER_ATTR_RDPMC	BIT(1)

struct pmuser_grant {
	struct list_head node;
	struct file *file;
	struct task_struct *task;
	struct perf_event *anchor;
#ifdef CONFIG_PREEMPT_NOTIFIERS
	struct preempt_notifier exit_hook;
	bool detached;		/* released while its thread ran on: the hook frees it */
	bool task_dead;		/* the thread has switched out for the last time */
	struct rcu_head rcu;
#endif
};

static LIST_HEAD(pmuser_grants);
static DEFINE_MUTEX(pmuser_grants_lock);

#ifdef CONFIG_PREEMPT_NOTIFIERS
/*
 * perf 6.1 can leave a granted thread's read bits set for the next thread on its CPU: it
 * detaches an exiting thread's events without restarting the PMU (later kernels restart it),
 * and an ungranted sibling alternating with a granted thread on one CPU was seen reading for
 * one time slice when their process started right after another granting one had ended. A
 * preempt notifier on the granted thread closes the CPU at each switch-out to a thread perf
 * does not itself grant reads to (perf restarts the PMU for those it does, or swaps in a
 * cloned context that may read). The scheduler walks the notifier list with interrupts off,
 * so grants it may still be walking are freed after an RCU grace period.
 */
static DEFINE_RAW_SPINLOCK(pmuser_hook_lock);
static atomic_t pmuser_hook_users = ATOMIC_INIT(0);

static void pmuser_hook_sched_in(struct preempt_notifier *pn, int cpu)
{
}

static void pmuser_hook_sched_out(struct preempt_notifier *pn, struct task_struct *next)
{
	struct pmuser_grant *g = container_of(pn, struct pmuser_grant, exit_hook);
	unsigned long flags;

	if (!pmuser_compat_task_perf_user(next))
		pmuser_hw_userenr_write(0);
	if (READ_ONCE(current->__state) != TASK_DEAD)
		return;
	raw_spin_lock_irqsave(&pmuser_hook_lock, flags);
	g->task_dead = true;
	if (g->detached) {
		put_task_struct(g->task);
		kfree_rcu(g, rcu);
		/* Module text outlives this: unloading waits for an RCU grace period. */
		module_put(THIS_MODULE);
	}
	raw_spin_unlock_irqrestore(&pmuser_hook_lock, flags);
}

static struct preempt_ops pmuser_hook_ops = {
	.sched_in = pmuser_hook_sched_in,
	.sched_out = pmuser_hook_sched_out,
};

/* On the granted thread itself. */
static void pmuser_hook_add(struct pmuser_grant *g)
{
	preempt_notifier_inc();
	atomic_inc(&pmuser_hook_users);
	preempt_notifier_init(&g->exit_hook, &pmuser_hook_ops);
	preempt_disable();
	preempt_notifier_register(&g->exit_hook);
	preempt_enable();
}

/* Whether the grant may be freed now; if not, the hook frees it when its thread dies. */
static bool pmuser_hook_remove(struct pmuser_grant *g)
{
	unsigned long flags;
	bool free_now = true;

	raw_spin_lock_irqsave(&pmuser_hook_lock, flags);
	if (g->task == current) {
		preempt_notifier_unregister(&g->exit_hook);
		/*
		 * Released by the thread itself, maybe from do_exit() closing its files: the hook
		 * is gone before the last switch-out, so close this CPU now (interrupts are off).
		 */
		pmuser_hw_userenr_write(0);
	} else if (!g->task_dead) {
		/* Only the thread itself may unlink its notifier. */
		g->detached = true;
		__module_get(THIS_MODULE);
		free_now = false;
	}
	raw_spin_unlock_irqrestore(&pmuser_hook_lock, flags);
	if (free_now) {
		preempt_notifier_dec();
		atomic_dec(&pmuser_hook_users);
	}
	return free_now;
}

static void pmuser_grant_kfree(struct pmuser_grant *g)
{
	put_task_struct(g->task);
	kfree_rcu(g, rcu);
}

static void pmuser_hook_exit(void)
{
	/* Notifiers the hook freed itself still count as preempt notifier users. */
	while (atomic_dec_return(&pmuser_hook_users) >= 0)
		preempt_notifier_dec();
}
#else
static void pmuser_hook_add(struct pmuser_grant *g)
{
}

static bool pmuser_hook_remove(struct pmuser_grant *g)
{
	return true;
}

static void pmuser_grant_kfree(struct pmuser_grant *g)
{
	put_task_struct(g->task);
	kfree(g);
}

static void pmuser_hook_exit(void)
{
}
#endif

static struct pmuser_grant *pmuser_grant_find(struct task_struct *task)
{
	struct pmuser_grant *g;

	list_for_each_entry(g, &pmuser_grants, node)
		if (g->task == task)
			return g;
	return NULL;
}

static void pmuser_grant_free(struct pmuser_grant *g)
{
	list_del(&g->node);
	perf_event_release_kernel(g->anchor);
	if (pmuser_hook_remove(g))
		pmuser_grant_kfree(g);
}

/*
 * Installing the anchor restarted the PMU on this CPU. If pmuser counters are live here,
 * perf ran its start path and the read bits show whether perf_user_access allowed them.
 */
static bool pmuser_grant_effective(void)
{
	bool ok;

	preempt_disable();
	ok = !pmuser_counters_live_local() ||
	     (pmuser_hw_userenr_read() & PMUSER_USERENR_READ) == PMUSER_USERENR_READ;
	preempt_enable();
	return ok;
}

int pmuser_access_grant(struct file *file, u32 flags)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(attr),
		.config = 0x11,		/* CPU_CYCLES; never counts, the event stays disabled */
		.config1 = PMUSER_ATTR_RDPMC,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.inherit = !!(flags & PMUSER_ACCESS_PROCESS),
	};
	struct pmuser_grant *g;
	int ret = 0;

	mutex_lock(&pmuser_grants_lock);
	if (pmuser_grant_find(current))
		goto unlock;
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g) {
		ret = -ENOMEM;
		goto unlock;
	}
	g->anchor = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	if (IS_ERR(g->anchor)) {
		ret = PTR_ERR(g->anchor);
		goto err_free;
	}
	g->file = file;
	g->task = get_task_struct(current);
	pmuser_hook_add(g);
	list_add(&g->node, &pmuser_grants);
	if (!pmuser_grant_effective()) {
		pr_warn_ratelimited("pmuser: inline reads need sysctl kernel.perf_user_access=1\n");
		pmuser_grant_free(g);
		ret = -EPERM;
	}
	mutex_unlock(&pmuser_grants_lock);
	return ret;

err_free:
	kfree(g);
unlock:
	mutex_unlock(&pmuser_grants_lock);
	return ret;
}

int pmuser_access_revoke(struct file *file, u32 flags)
{
	struct pmuser_grant *g;
	int ret = 0;

	mutex_lock(&pmuser_grants_lock);
	g = pmuser_grant_find(current);
	if (g && g->file == file)
		pmuser_grant_free(g);
	else
		ret = -ENOENT;
	mutex_unlock(&pmuser_grants_lock);
	/* perf leaves the register alone when no event is live on this CPU: close it here. */
	if (!ret) {
		preempt_disable();
		pmuser_hw_userenr_write(0);
		preempt_enable();
	}
	return ret;
}

void pmuser_access_release(struct file *file)
{
	struct pmuser_grant *g, *tmp;

	mutex_lock(&pmuser_grants_lock);
	list_for_each_entry_safe(g, tmp, &pmuser_grants, node)
		if (g->file == file)
			pmuser_grant_free(g);
	mutex_unlock(&pmuser_grants_lock);
}

/*
 * Leaves alone tasks perf grants access for its own events (perf self-monitoring): perf
 * switches those properly. pmuser's granted threads are closed too. Runs on each CPU while
 * the caller holds pmuser_grants_lock, so the list is stable.
 */
static void pmuser_userenr_clear(void *unused)
{
	if (!pmuser_compat_task_perf_user(current) || pmuser_grant_find(current))
		pmuser_hw_userenr_write(0);
}

/*
 * perf starts the PMU only while some counter is in use, so once pmuser's counters are gone
 * nothing would clear the read bits a granted thread left on its CPU: the next thread there
 * could read stale counters. Granted threads get them back from perf when counters return.
 */
void pmuser_access_counters_gone(void)
{
	mutex_lock(&pmuser_grants_lock);
	on_each_cpu(pmuser_userenr_clear, NULL, 1);
	mutex_unlock(&pmuser_grants_lock);
}

int pmuser_access_init(bool global)
{
	if (global) {
		pr_err("pmuser: global_access is for 32-bit ARM; arm64 grants per thread\n");
		return -EINVAL;
	}
	pmuser_mode = PMUSER_ACCESS_PER_THREAD;
	return 0;
}

void pmuser_access_exit(void)
{
	/* Granted threads that ran last may have left the read bits set on idle CPUs. */
	pmuser_access_counters_gone();
	pmuser_hook_exit();
}

#else /* 32-bit ARM */

int pmuser_access_grant(struct file *file, u32 flags)
{
	return pmuser_mode == PMUSER_ACCESS_GLOBAL ? 0 : -EOPNOTSUPP;
}

int pmuser_access_revoke(struct file *file, u32 flags)
{
	return pmuser_mode == PMUSER_ACCESS_GLOBAL ? 0 : -EOPNOTSUPP;
}

void pmuser_access_release(struct file *file)
{
}

/* Global mode: every thread may read whatever is counted, held or not (see README). */
void pmuser_access_counters_gone(void)
{
}

int pmuser_access_init(bool global)
{
	pmuser_mode = global ? PMUSER_ACCESS_GLOBAL : PMUSER_ACCESS_NONE;
	if (global)
		pr_warn("pmuser: global_access=1: every thread on every CPU can read the PMU, including counts of other users' events\n");
	return 0;
}

void pmuser_access_exit(void)
{
}

#endif
