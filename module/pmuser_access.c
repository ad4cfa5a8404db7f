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
 * 32-bit ARM: the perf driver never touches the user-enable register; pmuser switches it
 * itself at every context switch (below), or sets it once everywhere with global_access=1.
 */
#include <linux/binfmts.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/irq_work.h>
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
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#ifdef CONFIG_ARM
#include <asm/thread_notify.h>
#endif

#include "pmuser_drv.h"
#include "pmuser_compat.h"
#include "pmuser_hw.h"

static u32 pmuser_drv_mode;
/* Each CPU's user-enable bits for reading its counters. */
static DEFINE_PER_CPU(u32, pmuser_drv_read_bits);
/* Some CPU's read bits let user space write the PMU too. */
static bool pmuser_drv_user_writes;

u32 pmuser_drv_access_mode(void)
{
	return pmuser_drv_mode;
}

u32 pmuser_drv_access_info_flags(void)
{
	return READ_ONCE(pmuser_drv_user_writes) ? PMUSER_INFO_USER_WRITES : 0;
}

/* Per-thread mode: the register as the thread running on this CPU is entitled to. */
static void pmuser_drv_userenr_refresh(void *unused);

/* Runs on the CPU: in its hotplug thread, or from CPU PM with interrupts off. */
void pmuser_drv_access_cpu_up(void)
{
	u32 bits = pmuser_drv_hw_userenr_read_bits();

	this_cpu_write(pmuser_drv_read_bits, bits);
	if (bits & PMUSER_DRV_USERENR_WRITES)
		WRITE_ONCE(pmuser_drv_user_writes, true);
	if (pmuser_drv_mode == PMUSER_ACCESS_GLOBAL)
		pmuser_drv_hw_userenr_write(bits);
	else
		pmuser_drv_userenr_refresh(NULL);
}

void pmuser_drv_access_cpu_down(void)
{
	/* perf owns the arm64 register; only pmuser sets the 32-bit one. */
	if (IS_ENABLED(CONFIG_ARM))
		pmuser_drv_hw_userenr_write(0);
}

/* Drops the calling thread's access after an exec that changed its credentials. */
static void pmuser_drv_access_exec_drop(void);

/*
 * perf detaches a task's events at an exec that makes the process not dumpable by its user
 * (setuid, setgid, file capabilities): monitoring by the old user ends there. A grant ends at
 * such an exec too, on every kernel: one the kernel runs in secure mode (AT_SECURE: setuid,
 * setgid, capabilities gained) or that leaves the effective ids apart from the real ones.
 * The sched_process_exec tracepoint fires after the new credentials are committed, on the
 * thread itself, with preemption off.
 */
static void pmuser_drv_exec_probe(void *data, struct task_struct *p, pid_t old_pid,
				  struct linux_binprm *bprm)
{
	if (bprm->secureexec || !uid_eq(current_euid(), current_uid()) ||
	    !gid_eq(current_egid(), current_gid()))
		pmuser_drv_access_exec_drop();
}

static struct tracepoint *pmuser_drv_exec_tp;

static void pmuser_drv_find_exec_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exec"))
		pmuser_drv_exec_tp = tp;
}

static int pmuser_drv_exec_hook_init(void)
{
	for_each_kernel_tracepoint(pmuser_drv_find_exec_tp, NULL);
	if (!pmuser_drv_exec_tp) {
		pr_err("pmuser: no sched_process_exec tracepoint: grants could not end at a setuid exec\n");
		return -EOPNOTSUPP;
	}
	return tracepoint_probe_register(pmuser_drv_exec_tp, pmuser_drv_exec_probe, NULL);
}

static void pmuser_drv_exec_hook_exit(void)
{
	tracepoint_probe_unregister(pmuser_drv_exec_tp, pmuser_drv_exec_probe, NULL);
	tracepoint_synchronize_unregister();
}

#ifdef CONFIG_ARM64

/* perf sets the register at its next PMU start on this CPU. */
static void pmuser_drv_userenr_refresh(void *unused)
{
}

/* Closes this CPU to user reads unless perf grants task reads for its own events. */
static inline void pmuser_drv_userenr_close_for(struct task_struct *task)
{
	if (!pmuser_drv_compat_task_perf_user(task))
		pmuser_drv_hw_userenr_write(0);
}

/* perf detached the thread's events, its anchor among them: close this CPU at once. */
static void pmuser_drv_access_exec_drop(void)
{
	pmuser_drv_userenr_close_for(current);
}

/* config1 bit 1 is the arm64 PMU's "rdpmc" format field. */
#define PMUSER_DRV_ATTR_RDPMC	BIT(1)

/*
 * CPU PMUs a grant covers at most. perf registers one PMU per kind of core (big.LITTLE and
 * DynamIQ phones have two or three); each CPU's is learnt when it comes online, from a
 * CPU-bound event perf places on it.
 */
#define PMUSER_DRV_MAX_PMUS	8
static DEFINE_PER_CPU(u32, pmuser_drv_pmu_type);

void pmuser_drv_access_learn_pmu(unsigned int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.size = sizeof(attr),
		.disabled = 1,
	};
	struct perf_event *event;

	event = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(event))
		return;
	WRITE_ONCE(per_cpu(pmuser_drv_pmu_type, cpu), event->pmu->type);
	perf_event_release_kernel(event);
}

/* The distinct PMU types of the CPUs learnt so far; PERF_TYPE_RAW if none is known. */
static unsigned int pmuser_drv_pmu_types(u32 types[PMUSER_DRV_MAX_PMUS])
{
	unsigned int cpu, n = 0, i;

	for_each_possible_cpu(cpu) {
		u32 type = READ_ONCE(per_cpu(pmuser_drv_pmu_type, cpu));

		if (!type)
			continue;
		for (i = 0; i < n && types[i] != type; i++)
			;
		if (i == n && n < PMUSER_DRV_MAX_PMUS)
			types[n++] = type;
	}
	if (!n)
		types[n++] = PERF_TYPE_RAW;
	return n;
}

struct pmuser_drv_grant {
	struct list_head node;
	struct file *file;
	struct task_struct *task;
	/* One anchor per CPU PMU (cluster): perf grants reads only where its event's PMU is. */
	struct perf_event *anchor[PMUSER_DRV_MAX_PMUS];
	unsigned int nr_anchors;
#ifdef CONFIG_PREEMPT_NOTIFIERS
	struct preempt_notifier exit_hook;
	bool detached;		/* released while its thread ran on: the hook frees it */
	bool task_dead;		/* the thread has switched out for the last time */
	struct rcu_head rcu;
#endif
};

static LIST_HEAD(pmuser_drv_grants);
static DEFINE_MUTEX(pmuser_drv_grants_lock);

static void pmuser_drv_reap_fn(struct work_struct *work);
static DECLARE_WORK(pmuser_drv_reap_work, pmuser_drv_reap_fn);

#ifdef CONFIG_PREEMPT_NOTIFIERS
/*
 * A preempt notifier on each granted thread sees its last switch-out: a grant released while
 * its thread ran on is freed there, and any other grant of a dead thread is handed to the
 * reaper (pmuser_drv_reap_fn()), through an irq_work because the scheduler's locks are held
 * here. The scheduler walks the notifier list with interrupts off, so grants it may still be
 * walking are freed after an RCU grace period.
 */
static void pmuser_drv_reap_kick(struct irq_work *work)
{
	schedule_work(&pmuser_drv_reap_work);
}

static struct irq_work pmuser_drv_reap_irq_work;

static DEFINE_RAW_SPINLOCK(pmuser_drv_hook_lock);
static atomic_t pmuser_drv_hook_users = ATOMIC_INIT(0);

static notrace void pmuser_drv_hook_sched_in(struct preempt_notifier *pn, int cpu)
{
}

/* The thread's last switch-out: a grant released while the thread ran on is freed here. */
static noinline void pmuser_drv_hook_task_dead(struct pmuser_drv_grant *g)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pmuser_drv_hook_lock, flags);
	g->task_dead = true;
	if (g->detached) {
		put_task_struct(g->task);
		kfree_rcu(g, rcu);
		/* Module text outlives this: unloading waits for an RCU grace period. */
		module_put(THIS_MODULE);
	} else {
		irq_work_queue(&pmuser_drv_reap_irq_work);
	}
	raw_spin_unlock_irqrestore(&pmuser_drv_hook_lock, flags);
}

/* At every switch-out of a granted thread: kept to a leaf, it runs on the scheduler's path. */
static notrace void pmuser_drv_hook_sched_out(struct preempt_notifier *pn, struct task_struct *next)
{
	if (unlikely(READ_ONCE(current->__state) == TASK_DEAD))
		pmuser_drv_hook_task_dead(container_of(pn, struct pmuser_drv_grant, exit_hook));
}

static struct preempt_ops pmuser_drv_hook_ops = {
	.sched_in = pmuser_drv_hook_sched_in,
	.sched_out = pmuser_drv_hook_sched_out,
};

/*
 * A grant's reference on the scheduler's preempt notifiers, taken and dropped with no pmuser
 * lock held: the static key behind them takes cpus_read_lock(), which CONFIGURE holds while
 * it takes pmuser_drv_grants_lock (pmuser_drv_access_counters_gone()).
 */
static void pmuser_drv_hook_get(void)
{
	preempt_notifier_inc();
	atomic_inc(&pmuser_drv_hook_users);
}

static void pmuser_drv_hook_put(unsigned int n)
{
	for (; n; n--) {
		preempt_notifier_dec();
		atomic_dec(&pmuser_drv_hook_users);
	}
}

/* On the granted thread itself, its reference taken (pmuser_drv_hook_get()). */
static void pmuser_drv_hook_add(struct pmuser_drv_grant *g)
{
	preempt_notifier_init(&g->exit_hook, &pmuser_drv_hook_ops);
	preempt_disable();
	preempt_notifier_register(&g->exit_hook);
	preempt_enable();
}

/*
 * Whether the grant may be freed now, and its reference dropped (pmuser_drv_hook_put(), with no
 * lock held); if not, the hook frees it when its thread dies.
 */
static bool pmuser_drv_hook_remove(struct pmuser_drv_grant *g)
{
	unsigned long flags;
	bool free_now = true;

	raw_spin_lock_irqsave(&pmuser_drv_hook_lock, flags);
	if (g->task == current) {
		preempt_notifier_unregister(&g->exit_hook);
		/*
		 * Released by the thread itself, maybe from do_exit() closing its files: the hook
		 * is gone before the last switch-out, so close this CPU now (interrupts are off),
		 * unless perf grants the thread reads for its own events (the anchor is gone).
		 */
		pmuser_drv_userenr_close_for(current);
	} else if (!g->task_dead) {
		/* Only the thread itself may unlink its notifier. */
		g->detached = true;
		__module_get(THIS_MODULE);
		free_now = false;
	}
	raw_spin_unlock_irqrestore(&pmuser_drv_hook_lock, flags);
	return free_now;
}

static void pmuser_drv_grant_kfree(struct pmuser_drv_grant *g)
{
	put_task_struct(g->task);
	kfree_rcu(g, rcu);
}

static void pmuser_drv_hook_init(void)
{
	init_irq_work(&pmuser_drv_reap_irq_work, pmuser_drv_reap_kick);
}

static void pmuser_drv_hook_exit(void)
{
	irq_work_sync(&pmuser_drv_reap_irq_work);
	/* Notifiers the hook freed itself still count as preempt notifier users. */
	while (atomic_dec_return(&pmuser_drv_hook_users) >= 0)
		preempt_notifier_dec();
}
#else
static void pmuser_drv_hook_get(void)
{
}

static void pmuser_drv_hook_put(unsigned int n)
{
}

static void pmuser_drv_hook_add(struct pmuser_drv_grant *g)
{
}

static bool pmuser_drv_hook_remove(struct pmuser_drv_grant *g)
{
	return true;
}

static void pmuser_drv_grant_kfree(struct pmuser_drv_grant *g)
{
	put_task_struct(g->task);
	kfree(g);
}

static void pmuser_drv_hook_init(void)
{
}

static void pmuser_drv_hook_exit(void)
{
}
#endif

/* Whether a counter of pmuser's is in use on each CPU, as the counters part reports it. */
static DEFINE_PER_CPU(bool, pmuser_drv_counters_live);

/*
 * perf opens the register for a thread only by starting the PMU while that thread runs, and
 * does not always close it when the thread leaves: perf before 6.2 detaches an exiting
 * thread's events without restarting the PMU, a setuid exec detaches a thread's events the
 * same way, and on a CPU where no counter is in use perf starts the PMU at no switch. So at
 * every switch the CPU is closed for a next thread perf does not grant reads to: the value
 * perf itself would give it. perf opens it again, at its own start, for a thread it grants.
 */
void pmuser_drv_access_switch(struct task_struct *prev, struct task_struct *next)
{
	if (pmuser_drv_hw_userenr_read() && !pmuser_drv_compat_task_perf_user(next))
		pmuser_drv_hw_userenr_write(0);
}

static struct pmuser_drv_grant *pmuser_drv_grant_find(struct task_struct *task)
{
	struct pmuser_drv_grant *g;

	list_for_each_entry(g, &pmuser_drv_grants, node)
		if (g->task == task)
			return g;
	return NULL;
}

static void pmuser_drv_anchors_release(struct pmuser_drv_grant *g)
{
	unsigned int i;

	for (i = 0; i < g->nr_anchors; i++)
		perf_event_release_kernel(g->anchor[i]);
	g->nr_anchors = 0;
}

/* Under pmuser_drv_grants_lock: the count of notifier references to drop once it is released. */
static unsigned int pmuser_drv_grant_free(struct pmuser_drv_grant *g)
{
	list_del(&g->node);
	pmuser_drv_anchors_release(g);
	if (!pmuser_drv_hook_remove(g))
		return 0;
	pmuser_drv_grant_kfree(g);
	return 1;
}

void pmuser_drv_access_counters_live(unsigned int cpu, bool live)
{
	WRITE_ONCE(per_cpu(pmuser_drv_counters_live, cpu), live);
}

/*
 * A grant outlives its thread only while threads that inherited it live: perf frees their
 * copies of the anchor with it.
 */
static bool pmuser_drv_grant_dead(struct pmuser_drv_grant *g)
{
	bool dead = true;
	unsigned int i;

	if (!READ_ONCE(g->task->exit_state))
		return false;
	for (i = 0; i < g->nr_anchors && dead; i++) {
		struct perf_event *anchor = g->anchor[i];

		if (!anchor->attr.inherit)
			continue;
		mutex_lock(&anchor->child_mutex);
		dead = list_empty(&anchor->child_list);
		mutex_unlock(&anchor->child_mutex);
	}
	return dead;
}

/* Under pmuser_drv_grants_lock: frees the grants of exited threads; references to drop. */
static unsigned int pmuser_drv_grants_reap(void)
{
	struct pmuser_drv_grant *g, *tmp;
	unsigned int put = 0;

	list_for_each_entry_safe(g, tmp, &pmuser_drv_grants, node)
		if (pmuser_drv_grant_dead(g))
			put += pmuser_drv_grant_free(g);
	return put;
}

/* Kernel memory follows the live threads: each grant goes when its thread has exited. */
static void pmuser_drv_reap_fn(struct work_struct *work)
{
	unsigned int put;

	mutex_lock(&pmuser_drv_grants_lock);
	put = pmuser_drv_grants_reap();
	mutex_unlock(&pmuser_drv_grants_lock);
	pmuser_drv_hook_put(put);
}

/* On the CPU: whether perf opened it to this thread, if perf started the PMU here. */
static bool pmuser_drv_grant_reads(const struct pmuser_drv_grant *g, bool *known)
{
	unsigned int i;
	bool ok;

	preempt_disable();
	*known = READ_ONCE(*this_cpu_ptr(&pmuser_drv_counters_live));
	for (i = 0; i < g->nr_anchors; i++)
		*known |= READ_ONCE(g->anchor[i]->state) == PERF_EVENT_STATE_ACTIVE &&
			  READ_ONCE(g->anchor[i]->oncpu) == smp_processor_id();
	ok = (pmuser_drv_hw_userenr_read() & PMUSER_DRV_USERENR_READ) == PMUSER_DRV_USERENR_READ;
	preempt_enable();
	return ok;
}

/*
 * Whether perf lets the granted thread read: it opens the register only with
 * kernel.perf_user_access=1, at a start of the PMU while the thread runs. Installing the
 * anchors restarts the PMU of this CPU only through the anchor of that PMU, and only if a
 * counter is in use there; so unless the register is open already, the anchors count for a
 * moment (flexible task events, which take no counter from anyone) and perf's start of the
 * PMU they land on shows the answer.
 */
static bool pmuser_drv_grant_effective(const struct pmuser_drv_grant *g)
{
	unsigned int i;
	bool known, ok;

	if (pmuser_drv_grant_reads(g, &known))
		return true;
	for (i = 0; i < g->nr_anchors; i++)
		perf_event_enable(g->anchor[i]);
	ok = pmuser_drv_grant_reads(g, &known);
	for (i = 0; i < g->nr_anchors; i++)
		perf_event_disable(g->anchor[i]);
	/* Moved to another CPU or found no free counter: perf starts nothing to look at. */
	return ok || !known;
}

int pmuser_drv_access_grant(struct file *file, u32 flags)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(attr),
		.config = 0x11,		/* CPU_CYCLES; never counts, the event stays disabled */
		.config1 = PMUSER_DRV_ATTR_RDPMC,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.inherit = !!(flags & PMUSER_ACCESS_PROCESS),
	};
	struct pmuser_drv_grant *g, *old;
	u32 types[PMUSER_DRV_MAX_PMUS];
	unsigned int put = 0, n, i;
	int ret = 0;

	/*
	 * The anchors and the notifier reference are made before pmuser_drv_grants_lock is taken:
	 * both may enable a static key, which takes cpus_read_lock(), while CONFIGURE holds
	 * that and then waits for pmuser_drv_grants_lock (pmuser_drv_access_counters_gone()).
	 */
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	n = pmuser_drv_pmu_types(types);
	for (i = 0; i < n; i++) {
		struct perf_event *anchor;

		attr.type = types[i];
		anchor = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
		if (IS_ERR(anchor)) {
			ret = PTR_ERR(anchor);
			goto err_anchors;
		}
		g->anchor[g->nr_anchors++] = anchor;
	}
	pmuser_drv_hook_get();
	mutex_lock(&pmuser_drv_grants_lock);
	put = pmuser_drv_grants_reap();
	old = pmuser_drv_grant_find(current);
	/* An anchor perf detached at a setuid exec grants nothing: a new grant replaces it. */
	if (old && READ_ONCE(old->anchor[0]->state) == PERF_EVENT_STATE_EXIT) {
		put += pmuser_drv_grant_free(old);
		old = NULL;
	}
	if (old) {
		if (old->file != file || old->anchor[0]->attr.inherit != attr.inherit)
			ret = -EEXIST;
		goto err_granted;
	}
	g->file = file;
	g->task = get_task_struct(current);
	pmuser_drv_hook_add(g);
	list_add(&g->node, &pmuser_drv_grants);
	if (!pmuser_drv_grant_effective(g)) {
		pr_warn_ratelimited("pmuser: inline reads need sysctl kernel.perf_user_access=1\n");
		put += pmuser_drv_grant_free(g);
		ret = -EPERM;
	}
	mutex_unlock(&pmuser_drv_grants_lock);
	pmuser_drv_hook_put(put);
	return ret;

err_granted:
	/*
	 * Granted already: the grant in place stays. It is this grant only if it was made through
	 * this file with these flags; another one ends at another file's close, or covers other
	 * threads.
	 */
	mutex_unlock(&pmuser_drv_grants_lock);
	pmuser_drv_hook_put(put + 1);
err_anchors:
	pmuser_drv_anchors_release(g);
	kfree(g);
	return ret;
}

static void pmuser_drv_userenr_close_current(void *unused)
{
	pmuser_drv_userenr_close_for(current);
}

/*
 * After grants are freed: perf removes an event without starting the PMU, so the read bits
 * stay set on every CPU where a thread ran whose grant (its own, or a copy it inherited
 * through PMUSER_ACCESS_PROCESS) went with them, for whichever thread runs there next. Each
 * CPU is closed unless perf grants its running thread reads: a live grant's anchor, or the
 * thread's own rdpmc events.
 */
static void pmuser_drv_access_close_freed(void)
{
	on_each_cpu(pmuser_drv_userenr_close_current, NULL, 1);
}

int pmuser_drv_access_revoke(struct file *file)
{
	struct pmuser_drv_grant *g;
	unsigned int put = 0;
	int ret = 0;

	mutex_lock(&pmuser_drv_grants_lock);
	g = pmuser_drv_grant_find(current);
	if (g && g->file == file)
		put = pmuser_drv_grant_free(g);
	else
		ret = -ENOENT;
	mutex_unlock(&pmuser_drv_grants_lock);
	pmuser_drv_hook_put(put);
	if (!ret)
		pmuser_drv_access_close_freed();
	return ret;
}

void pmuser_drv_access_release(struct file *file)
{
	struct pmuser_drv_grant *g, *tmp;
	unsigned int put = 0;
	bool freed = false;

	mutex_lock(&pmuser_drv_grants_lock);
	list_for_each_entry_safe(g, tmp, &pmuser_drv_grants, node)
		if (g->file == file) {
			put += pmuser_drv_grant_free(g);
			freed = true;
		}
	mutex_unlock(&pmuser_drv_grants_lock);
	pmuser_drv_hook_put(put);
	if (freed)
		pmuser_drv_access_close_freed();
}

/*
 * Closes a CPU unless perf grants its running thread reads for some rdpmc event other than
 * the anchors of the thread's own grant: its own perf self-monitoring events, or an anchor it
 * inherited from a PMUSER_ACCESS_PROCESS grant (perf keeps that thread's reads open as its
 * own). Runs on each CPU while the caller holds pmuser_drv_grants_lock, so the list is stable.
 */
static void pmuser_drv_userenr_clear(void *unused)
{
	const struct pmuser_drv_grant *g = pmuser_drv_grant_find(current);

	if (pmuser_drv_compat_task_nr_user(current) <= (g ? g->nr_anchors : 0))
		pmuser_drv_hw_userenr_write(0);
}

/*
 * perf starts the PMU only while some counter is in use, so once pmuser's counters are gone
 * from cpus nothing would clear the read bits a granted thread left there: the next thread
 * could read stale counters. Granted threads get them back from perf when counters return.
 */
void pmuser_drv_access_counters_gone(const struct cpumask *cpus)
{
	mutex_lock(&pmuser_drv_grants_lock);
	on_each_cpu_mask(cpus, pmuser_drv_userenr_clear, NULL, 1);
	mutex_unlock(&pmuser_drv_grants_lock);
}

int pmuser_drv_access_init(bool global)
{
	if (global) {
		pr_err("pmuser: global_access is for 32-bit ARM; arm64 grants per thread\n");
		return -EINVAL;
	}
	pmuser_drv_hook_init();
	pmuser_drv_mode = PMUSER_ACCESS_PER_THREAD;
	return pmuser_drv_exec_hook_init();
}

void pmuser_drv_access_exit(void)
{
	pmuser_drv_exec_hook_exit();
	/* Granted threads that ran last may have left the read bits set on idle CPUs. */
	pmuser_drv_access_counters_gone(cpu_online_mask);
	pmuser_drv_hook_exit();
	cancel_work_sync(&pmuser_drv_reap_work);
}

#else /* 32-bit ARM */

/* perf's 32-bit drivers never open the register: grants need no anchor of perf's. */
void pmuser_drv_access_learn_pmu(unsigned int cpu)
{
}

/* The thread notifier below writes the register at every switch. */
void pmuser_drv_access_switch(struct task_struct *prev, struct task_struct *next)
{
}

/* The 32-bit register is pmuser's alone: a grant holds whether or not counters are live. */
void pmuser_drv_access_counters_live(unsigned int cpu, bool live)
{
}

/*
 * The perf drivers for ARMv7 and the ARM1176 never touch the user-enable register, and the
 * kernel calls the thread_notify_head chain for every thread: from __switch_to() with the next
 * thread (THREAD_NOTIFY_SWITCH: interrupts off, the runqueue lock held), from copy_thread()
 * with each new thread while current is its creator (THREAD_NOTIFY_COPY), and from
 * exit_thread() when a thread exits or a fork fails after copy_thread() (THREAD_NOTIFY_EXIT).
 * At every switch the register gets this CPU's read bits if the next thread is granted, 0
 * otherwise, so a grant holds exactly while its thread runs.
 *
 * Grants live in a hash table keyed by the address of the thread's thread_info, which the
 * chain passes. The switch path looks its thread up under the RCU read lock the chain holds,
 * taking no lock. Entries change under a raw spinlock (never sleeps, also under PREEMPT_RT)
 * and are freed after a grace period. A thread's entry is removed at its EXIT, before its
 * thread_info can be freed and its address reused, so a key never names another thread.
 */
struct pmuser_drv_grant {
	struct hlist_node node;		/* in pmuser_drv_grants, RCU */
	struct list_head dead;		/* removed, to be freed once the lock is dropped */
	const struct thread_info *ti;
	struct file *file;		/* file the originating GRANT was made through */
	u64 origin;			/* that GRANT's number, shared by the threads it covers */
	bool own;			/* granted by this thread itself, not inherited */
	bool inherit;			/* PMUSER_ACCESS_PROCESS: threads it creates get one too */
	struct rcu_head rcu;
};

/* 256 buckets: a bucket holds one entry or two up to a few hundred granted threads. */
static DEFINE_HASHTABLE(pmuser_drv_grants, 8);
static DEFINE_RAW_SPINLOCK(pmuser_drv_grants_lock);
static u64 pmuser_drv_grant_seq;		/* under pmuser_drv_grants_lock */

/* Under the RCU read lock or pmuser_drv_grants_lock. */
static struct pmuser_drv_grant *pmuser_drv_grant_lookup(const struct thread_info *ti)
{
	struct pmuser_drv_grant *g;

	hash_for_each_possible_rcu(pmuser_drv_grants, g, node, (unsigned long)ti,
				   lockdep_is_held(&pmuser_drv_grants_lock))
		if (g->ti == ti)
			return g;
	return NULL;
}

/* Gives this CPU's register the value for a thread that is granted or not. */
static void pmuser_drv_userenr_switch(bool granted)
{
	u32 want = granted ? this_cpu_read(pmuser_drv_read_bits) : 0;

	if (pmuser_drv_hw_userenr_read() != want)
		pmuser_drv_hw_userenr_write(want);
}

/* The register as the thread running here is entitled to; interrupts or preemption off. */
static void pmuser_drv_userenr_refresh(void *unused)
{
	rcu_read_lock();
	pmuser_drv_userenr_switch(pmuser_drv_grant_lookup(current_thread_info()));
	rcu_read_unlock();
}

static void pmuser_drv_userenr_close(void *unused)
{
	pmuser_drv_hw_userenr_write(0);
}

static void pmuser_drv_grants_free(struct list_head *dead)
{
	struct pmuser_drv_grant *g, *tmp;

	list_for_each_entry_safe(g, tmp, dead, dead)
		kfree_rcu(g, rcu);
}

/* New threads of a thread with an inheriting grant are granted by the same GRANT. */
static void pmuser_drv_grant_copy(const struct thread_info *child)
{
	struct pmuser_drv_grant *parent, *g;
	unsigned long flags;

	parent = pmuser_drv_grant_lookup(current_thread_info());
	if (!parent || !READ_ONCE(parent->inherit))
		return;
	g = kzalloc(sizeof(*g), GFP_NOWAIT | __GFP_NOWARN);
	if (!g) {
		pr_warn_ratelimited("pmuser: out of memory: a thread created by %s[%d] does not inherit its grant\n",
				    current->comm, task_pid_nr(current));
		return;
	}
	raw_spin_lock_irqsave(&pmuser_drv_grants_lock, flags);
	parent = pmuser_drv_grant_lookup(current_thread_info());
	if (parent && parent->inherit) {
		g->ti = child;
		g->file = parent->file;
		g->origin = parent->origin;
		g->inherit = true;
		hash_add_rcu(pmuser_drv_grants, &g->node, (unsigned long)child);
		g = NULL;
	}
	raw_spin_unlock_irqrestore(&pmuser_drv_grants_lock, flags);
	kfree(g);
}

static void pmuser_drv_grant_exit(const struct thread_info *ti)
{
	struct pmuser_drv_grant *g;
	unsigned long flags;

	if (!pmuser_drv_grant_lookup(ti))
		return;
	raw_spin_lock_irqsave(&pmuser_drv_grants_lock, flags);
	g = pmuser_drv_grant_lookup(ti);
	if (g)
		hash_del_rcu(&g->node);
	raw_spin_unlock_irqrestore(&pmuser_drv_grants_lock, flags);
	if (g)
		kfree_rcu(g, rcu);
}

/* The thread's own entry goes, as perf's events go; threads it created keep theirs. */
static void pmuser_drv_access_exec_drop(void)
{
	pmuser_drv_grant_exit(current_thread_info());
	pmuser_drv_userenr_switch(false);
}

static int pmuser_drv_thread_notify(struct notifier_block *nb, unsigned long cmd, void *data)
{
	const struct thread_info *ti = data;

	switch (cmd) {
	case THREAD_NOTIFY_SWITCH:
		pmuser_drv_userenr_switch(pmuser_drv_grant_lookup(ti));
		break;
	case THREAD_NOTIFY_COPY:
		pmuser_drv_grant_copy(ti);
		break;
	case THREAD_NOTIFY_EXIT:
		pmuser_drv_grant_exit(ti);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block pmuser_drv_thread_nb = {
	.notifier_call = pmuser_drv_thread_notify,
};

/*
 * Removes the entries made through file (all of them if origin is 0, else those of that
 * GRANT), then lets every CPU drop access a removed thread running there still has.
 */
static void pmuser_drv_grants_remove(struct file *file, u64 origin)
{
	struct pmuser_drv_grant *g;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int bkt;
	LIST_HEAD(dead);

	raw_spin_lock_irqsave(&pmuser_drv_grants_lock, flags);
	hash_for_each_safe(pmuser_drv_grants, bkt, tmp, g, node) {
		if ((file && g->file != file) || (origin && g->origin != origin))
			continue;
		hash_del_rcu(&g->node);
		list_add(&g->dead, &dead);
	}
	raw_spin_unlock_irqrestore(&pmuser_drv_grants_lock, flags);
	if (list_empty(&dead))
		return;
	pmuser_drv_grants_free(&dead);
	on_each_cpu(pmuser_drv_userenr_refresh, NULL, 1);
}

int pmuser_drv_access_grant(struct file *file, u32 flags)
{
	struct pmuser_drv_grant *g, *old;
	unsigned long irqflags;
	u32 bits;

	if (pmuser_drv_mode != PMUSER_ACCESS_PER_THREAD)
		return 0;
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	raw_spin_lock_irqsave(&pmuser_drv_grants_lock, irqflags);
	old = pmuser_drv_grant_lookup(current_thread_info());
	if (old && old->own) {
		/* Granted already: see the arm64 pmuser_drv_access_grant(). */
		int ret = old->file == file && old->inherit == !!(flags & PMUSER_ACCESS_PROCESS) ?
			  0 : -EEXIST;

		raw_spin_unlock_irqrestore(&pmuser_drv_grants_lock, irqflags);
		kfree(g);
		return ret;
	}
	/* An inherited entry gives way to the thread's own grant. */
	if (old)
		hash_del_rcu(&old->node);
	g->ti = current_thread_info();
	g->file = file;
	g->origin = ++pmuser_drv_grant_seq;
	g->own = true;
	g->inherit = flags & PMUSER_ACCESS_PROCESS;
	hash_add_rcu(pmuser_drv_grants, &g->node, (unsigned long)g->ti);
	raw_spin_unlock_irqrestore(&pmuser_drv_grants_lock, irqflags);
	if (old)
		kfree_rcu(old, rcu);

	preempt_disable();
	pmuser_drv_userenr_switch(true);
	bits = this_cpu_read(pmuser_drv_read_bits);
	preempt_enable();
	if (bits & PMUSER_DRV_USERENR_WRITES)
		pr_warn_ratelimited("pmuser: %s[%d] granted: this PMU's user enable also lets it write every PMU register, other perf users' counters included\n",
				    current->comm, task_pid_nr(current));
	return 0;
}

int pmuser_drv_access_revoke(struct file *file)
{
	struct pmuser_drv_grant *g;
	unsigned long irqflags;
	u64 origin = 0;

	if (pmuser_drv_mode != PMUSER_ACCESS_PER_THREAD)
		return 0;
	raw_spin_lock_irqsave(&pmuser_drv_grants_lock, irqflags);
	g = pmuser_drv_grant_lookup(current_thread_info());
	if (g && g->own && g->file == file)
		origin = g->origin;
	raw_spin_unlock_irqrestore(&pmuser_drv_grants_lock, irqflags);
	if (!origin)
		return -ENOENT;
	/* Threads the grant was inherited by lose it too, as perf's inherited events go. */
	pmuser_drv_grants_remove(file, origin);
	return 0;
}

void pmuser_drv_access_release(struct file *file)
{
	if (pmuser_drv_mode == PMUSER_ACCESS_PER_THREAD)
		pmuser_drv_grants_remove(file, 0);
}

/*
 * The register follows the mode whether counters are held or not: global mode lets every
 * thread read whatever is counted, per-thread mode lets granted threads read.
 */
void pmuser_drv_access_counters_gone(const struct cpumask *cpus)
{
}

int pmuser_drv_access_init(bool global)
{
	u32 bits, writes;
	int ret;

	preempt_disable();
	bits = pmuser_drv_hw_userenr_read_bits();
	preempt_enable();
	writes = bits & PMUSER_DRV_USERENR_WRITES;
	/*
	 * perf's arm_pmuv3 driver (32-bit too from 6.4, where configured) rewrites the register
	 * whenever it starts the PMU, for its own rdpmc users only.
	 */
	if (IS_ENABLED(CONFIG_ARM_PMUV3) && !writes)
		pr_warn("pmuser: perf's PMUv3 driver rewrites the user-enable register when it starts the PMU: inline reads may trap until the thread next switches in (untested)\n");
	if (global) {
		pmuser_drv_mode = PMUSER_ACCESS_GLOBAL;
		pr_warn("pmuser: global_access=1: every thread on every CPU can read the PMU, including counts of other users' events%s\n",
			writes ? ", and write it: stop, reset or reprogram any counter" : "");
		return 0;
	}
	pmuser_drv_mode = PMUSER_ACCESS_PER_THREAD;
	ret = pmuser_drv_exec_hook_init();
	if (ret)
		return ret;
	ret = thread_register_notifier(&pmuser_drv_thread_nb);
	if (ret)
		pmuser_drv_exec_hook_exit();
	return ret;
}

void pmuser_drv_access_exit(void)
{
	if (pmuser_drv_mode == PMUSER_ACCESS_PER_THREAD) {
		pmuser_drv_exec_hook_exit();
		/* Returns once no CPU runs the notifier any more. */
		thread_unregister_notifier(&pmuser_drv_thread_nb);
		/* Closing each file removed its grants; this frees any still here. */
		pmuser_drv_grants_remove(NULL, 0);
	}
	on_each_cpu(pmuser_drv_userenr_close, NULL, 1);
}

#endif
