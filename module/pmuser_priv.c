// SPDX-License-Identifier: GPL-2.0
/*
 * pmuser: who may do what, decided here and nowhere else.
 *
 * pmuser's counters are CPU-bound perf events: whoever holds or reads them sees everything
 * that runs on their CPUs in the modes they count. So each caller that holds or reads them
 * needs what perf would need to count the same itself, checked with that caller's own
 * credentials when it asks, as perf checks the task that opens an event:
 * - COUNT, counting user mode CPU-wide: CONFIGURE, GRANT and mapping the counter page.
 *   perf's rule for CPU-bound events (perf_event_paranoid <= 0 or CAP_PERFMON, and the
 *   security module's hook), asked of perf itself: CONFIGURE creates its events as the
 *   caller, readers are asked with a disabled CPU-bound dummy event created as the caller.
 *   Or, where the administrator opted in with group_user_counting=1, membership of the group
 *   that owns the device node (never the root group).
 * - KERNEL, counts that include kernel mode, wherever the configuration has them (always on
 *   the ARM1176, which cannot filter by mode): perf's kernel-mode rule
 *   (pmuser_drv_compat_allow_kernel()). The group never gives it.
 * - PROGRAM: on a PMU whose user-enable bit also lets user space write every PMU register
 *   (ARMv7 PMUv2, ARM1176) a grant is the right to reprogram any counter of the CPU, other
 *   perf users' included: it needs CAP_PERFMON (or CAP_SYS_ADMIN).
 * Opening the device lets a caller ask INFO and CPU_INFO, nothing more.
 *
 * A file through which a caller without KERNEL mapped the page or was granted is a user-mode
 * reader until it is closed: a configuration that counts kernel mode is refused (EBUSY) while
 * one exists, and such a caller may neither map nor be granted while one is in force. The
 * checks and the state they rest on change only under pmuser_drv_priv_lock, which CONFIGURE,
 * GRANT and mmap hold across their check and their effect.
 */
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

#include "pmuser_drv.h"
#include "pmuser_compat.h"
#include "pmuser_hw.h"

static bool group_user_counting;
module_param(group_user_counting, bool, 0444);
MODULE_PARM_DESC(group_user_counting,
		 "Members of the group that owns /dev/pmuser may count and read user-mode events CPU-wide, whatever perf_event_paranoid says (kernel mode still needs what perf needs)");

static DEFINE_MUTEX(pmuser_drv_priv_lock);
/* Open files through which a caller without KERNEL mapped the page or was granted. */
static unsigned int pmuser_drv_user_readers;

struct pmuser_drv_file {
	bool user_reader;
};

int pmuser_drv_priv_open(struct file *file)
{
	struct pmuser_drv_file *pf = kzalloc(sizeof(*pf), GFP_KERNEL);

	file->private_data = pf;
	return pf ? 0 : -ENOMEM;
}

void pmuser_drv_priv_release(struct file *file)
{
	struct pmuser_drv_file *pf = file->private_data;

	mutex_lock(&pmuser_drv_priv_lock);
	if (pf->user_reader)
		pmuser_drv_user_readers--;
	mutex_unlock(&pmuser_drv_priv_lock);
	kfree(pf);
}

/* perf's own answer for CPU-wide counting by the caller: a disabled dummy event it creates. */
static bool pmuser_drv_perf_allows_cpu(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = sizeof(attr),
		.disabled = 1,
	};
	struct perf_event *event;
	unsigned int tries;

	/* The CPU only has to be online while perf looks: a CPU gone meanwhile is asked again. */
	for (tries = 0; tries < 3; tries++) {
		event = perf_event_create_kernel_counter(&attr, raw_smp_processor_id(), NULL,
							 NULL, NULL);
		if (!IS_ERR(event)) {
			perf_event_release_kernel(event);
			return true;
		}
		if (PTR_ERR(event) != -ENODEV)
			break;
	}
	return false;
}

/* The group that owns the node the file was opened through, when that is not root's. */
static bool pmuser_drv_in_device_group(const struct file *file)
{
	kgid_t gid = file_inode(file)->i_gid;

	return gid_valid(gid) && !gid_eq(gid, GLOBAL_ROOT_GID) && in_group_p(gid);
}

/*
 * The caller's rights. creating: the caller is about to create CPU-bound events, which runs
 * perf's whole CPU-wide check (the security module's included) for a caller not entitled by
 * the group, so no probe of pmuser's is needed first: CONFIGURE, which a rotation of sets
 * calls every few milliseconds, stays as quick as perf's own check.
 */
static u32 pmuser_drv_rights(const struct file *file, bool creating)
{
	u32 rights = 0;

	if (creating && perfmon_capable())
		rights |= PMUSER_RIGHT_COUNT;
	else if (group_user_counting && pmuser_drv_in_device_group(file))
		rights |= PMUSER_RIGHT_COUNT | PMUSER_RIGHT_BY_GROUP;
	else if (creating || pmuser_drv_perf_allows_cpu())
		rights |= PMUSER_RIGHT_COUNT;
	if (!pmuser_drv_compat_allow_kernel())
		rights |= PMUSER_RIGHT_KERNEL;
	if (perfmon_capable())
		rights |= PMUSER_RIGHT_PROGRAM;
	return rights;
}

u32 pmuser_drv_priv_rights(const struct file *file)
{
	return pmuser_drv_rights(file, false);
}

/* Refuses what rights lack of need, naming the rule in the kernel log. */
static int pmuser_drv_priv_need(u32 rights, u32 need, const char *what)
{
	u32 missing = need & ~rights;

	if (!missing)
		return 0;
	if (missing & PMUSER_RIGHT_COUNT)
		pr_info_ratelimited("pmuser: %s[%d] may not %s: counting CPU-wide needs perf_event_paranoid <= 0 or CAP_PERFMON, or the device's group with group_user_counting=1\n",
				    current->comm, task_pid_nr(current), what);
	else if (missing & PMUSER_RIGHT_KERNEL)
		pr_info_ratelimited("pmuser: %s[%d] may not %s: counting kernel mode needs perf_event_paranoid <= 1 or CAP_PERFMON\n",
				    current->comm, task_pid_nr(current), what);
	else
		pr_info_ratelimited("pmuser: %s[%d] may not %s: this PMU's user access also writes it, so a grant needs CAP_PERFMON\n",
				    current->comm, task_pid_nr(current), what);
	return -EACCES;
}

struct pmuser_drv_configure_work {
	struct work_struct work;
	struct file *file;
	struct pmuser_config *cfg;
	const struct cpumask *cpus;
	int ret;
};

static int pmuser_drv_configure_now(struct file *file, struct pmuser_config *cfg,
				    const struct cpumask *cpus)
{
	int ret;

	cpus_read_lock();
	ret = pmuser_drv_counters_configure(file, cfg, cpus);
	cpus_read_unlock();
	return ret;
}

static void pmuser_drv_configure_fn(struct work_struct *work)
{
	struct pmuser_drv_configure_work *w =
		container_of(work, struct pmuser_drv_configure_work, work);

	w->ret = pmuser_drv_configure_now(w->file, w->cfg, w->cpus);
}

/*
 * A caller whom only the group entitles creates the events from a kernel worker: perf checks
 * the creating task's credentials for CPU-bound events, and the check that counts for pmuser
 * is the one above.
 */
int pmuser_drv_priv_configure(struct file *file, struct pmuser_config *cfg,
			      const struct cpumask *cpus)
{
	bool kernel = pmuser_drv_counters_config_kernel(cfg);
	u32 rights = pmuser_drv_rights(file, true);
	struct pmuser_drv_configure_work w;
	int ret;

	ret = pmuser_drv_priv_need(rights, PMUSER_RIGHT_COUNT | (kernel ? PMUSER_RIGHT_KERNEL : 0),
				   kernel ? "count kernel mode" : "count CPU-wide");
	if (ret)
		return ret;
	mutex_lock(&pmuser_drv_priv_lock);
	if (kernel && pmuser_drv_user_readers) {
		pr_info_ratelimited("pmuser: %s[%d]: a configuration counting kernel mode waits until no reader without kernel-mode rights has the device open\n",
				    current->comm, task_pid_nr(current));
		ret = -EBUSY;
		goto unlock;
	}
	if (!(rights & PMUSER_RIGHT_BY_GROUP)) {
		/* perf's own check of the caller decides CPU-wide counting here. */
		ret = pmuser_drv_configure_now(file, cfg, cpus);
		if (ret == -EACCES)
			pmuser_drv_priv_need(0, PMUSER_RIGHT_COUNT, "count CPU-wide");
		goto unlock;
	}
	INIT_WORK_ONSTACK(&w.work, pmuser_drv_configure_fn);
	w.file = file;
	w.cfg = cfg;
	w.cpus = cpus;
	queue_work(system_unbound_wq, &w.work);
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	ret = w.ret;
unlock:
	mutex_unlock(&pmuser_drv_priv_lock);
	return ret;
}

int pmuser_drv_priv_read_begin(struct file *file, bool grant)
{
	u32 rights = pmuser_drv_priv_rights(file), need = PMUSER_RIGHT_COUNT;
	int ret;

	if (grant && (pmuser_drv_access_info_flags() & PMUSER_INFO_USER_WRITES))
		need |= PMUSER_RIGHT_PROGRAM;
	mutex_lock(&pmuser_drv_priv_lock);
	if (pmuser_drv_counters_count_kernel())
		need |= PMUSER_RIGHT_KERNEL;
	ret = pmuser_drv_priv_need(rights, need, grant ? "be granted inline reads" :
				"map the counter page");
	if (ret) {
		mutex_unlock(&pmuser_drv_priv_lock);
		return ret;
	}
	/* Held until pmuser_drv_priv_read_end(): a caller without KERNEL is a reader from now. */
	if (!(rights & PMUSER_RIGHT_KERNEL)) {
		struct pmuser_drv_file *pf = file->private_data;

		if (!pf->user_reader)
			pmuser_drv_user_readers++;
		pf->user_reader = true;
	}
	return 0;
}

void pmuser_drv_priv_read_end(void)
{
	mutex_unlock(&pmuser_drv_priv_lock);
}

void pmuser_drv_priv_init(void)
{
	if (group_user_counting)
		pr_info("pmuser: group_user_counting=1: members of the device's group may count user mode CPU-wide\n");
}
