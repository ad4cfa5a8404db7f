// SPDX-License-Identifier: GPL-2.0
/*
 * pmuser: the /dev/pmuser character device and its ioctls.
 *
 * Every ioctl struct is copied in with copy_struct_from_user() semantics: any size from the
 * struct's first version up to PAGE_SIZE, missing fields read as zero, a larger struct only
 * with a zero tail (E2BIG otherwise). Then every field is checked before anything changes,
 * and at most the caller's size is copied back. Unknown commands get -ENOTTY.
 */
#include <linux/cdev.h>
#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/stringify.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>

#include "pmuser_drv.h"
#include "pmuser_compat.h"
#include "pmuser_hw.h"

static bool global_access;
module_param(global_access, bool, 0444);
MODULE_PARM_DESC(global_access,
		 "32-bit ARM only: let every thread use the PMU instead of granted threads only (exposes, and on ARMv7 PMUv2/ARM1176 lets anyone change, other users' counts)");

static int group = -1;
module_param(group, int, 0444);
MODULE_PARM_DESC(group, "Group id allowed to open /dev/pmuser (mode 0660); default root only");

#define PMUSER_DRV_SWINC_MAX	SZ_1M
/* PMSWINC writes made with preemption off at a time. */
#define PMUSER_DRV_SWINC_CHUNK	SZ_4K

static dev_t pmuser_drv_devt;
static struct cdev pmuser_drv_cdev;
static struct class *pmuser_drv_class;
static struct device pmuser_drv_device;

/*
 * Copy a versioned struct in: size first, at least ver0 and at most PAGE_SIZE, then the rest
 * as copy_struct_from_user() does. Returns the caller's size (for the copy back) or -errno.
 */
static int pmuser_drv_copy_in(void *dst, size_t ksize, size_t ver0, const void __user *uarg)
{
	u32 usize;
	int ret;

	if (get_user(usize, (const u32 __user *)uarg))
		return -EFAULT;
	if (usize < ver0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(dst, ksize, uarg, usize);
	return ret ? ret : usize;
}

/*
 * Copy back what the caller's struct has room for; size says how much of it the module
 * filled (the smaller of the two), so a newer caller tells an unknown field from a zero one.
 */
static int pmuser_drv_copy_out(void __user *uarg, void *src, size_t ksize, u32 usize)
{
	*(u32 *)src = min_t(u32, usize, ksize);
	return copy_to_user(uarg, src, min_t(size_t, ksize, usize)) ? -EFAULT : 0;
}

/* A CPU set from user space: all zero means every possible CPU; impossible CPUs are refused. */
static int pmuser_drv_cpus_from_user(const __u64 words[PMUSER_CPU_WORDS], struct cpumask *mask)
{
	unsigned int cpu;
	bool any = false;

	cpumask_clear(mask);
	for (cpu = 0; cpu < PMUSER_MAX_CPUS; cpu++) {
		if (!(words[cpu / 64] & BIT_ULL(cpu % 64)))
			continue;
		if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
			return -EINVAL;
		cpumask_set_cpu(cpu, mask);
		any = true;
	}
	if (!any)
		cpumask_copy(mask, cpu_possible_mask);
	return 0;
}

static int pmuser_drv_ioctl_info(struct file *file, void __user *uarg)
{
	struct pmuser_info info;
	int usize;

	usize = pmuser_drv_copy_in(&info, sizeof(info), PMUSER_INFO_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	if (info.flags)
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	info.abi_version = PMUSER_ABI_VERSION;
	info.module_version = PMUSER_VERSION_MAJOR << 16 | PMUSER_VERSION_MINOR << 8 |
			      PMUSER_VERSION_PATCH;
	info.arch = PMUSER_DRV_ARCH;
	info.access_mode = pmuser_drv_access_mode();
	info.access_flags = pmuser_drv_access_info_flags();
	info.nr_cpus = nr_cpu_ids;
	info.rights = pmuser_drv_priv_rights(file);
	pmuser_drv_counters_fill_info(&info);
	return pmuser_drv_copy_out(uarg, &info, sizeof(info), usize);
}

static void pmuser_drv_read_cpu_info(void *arg)
{
	struct pmuser_cpu_info *ci = arg;
	u64 pmceid[2] = {};
	bool smt;

	ci->midr = read_cpuid_id();
	ci->pmu_version = pmuser_drv_hw_pmu_version();
	ci->nr_counters = pmuser_drv_hw_nr_counters();
	ci->counter_bits = pmuser_drv_hw_counter_bits(ci->pmu_version);
	ci->cycle_bits = PMUSER_DRV_CYCLE_BITS;
	if (pmuser_drv_hw_read_pmceid(pmceid)) {
		ci->pmceid_source = PMUSER_PMCEID_HW;
		ci->pmceid[0] = pmceid[0];
		ci->pmceid[1] = pmceid[1];
	}
	ci->user_enable = pmuser_drv_hw_userenr_read();
	/* perf (arm_pmu.c) keeps cycles off PMCCNTR_EL0 on cores with SMT siblings. */
	smt = cpumask_weight(topology_sibling_cpumask(smp_processor_id())) > 1;
	ci->el0_flags = pmuser_drv_hw_el0_flags(ci->pmu_version, smt);
	ci->pmuacr = pmuser_drv_hw_pmuacr_read(ci->el0_flags);
}

static int pmuser_drv_ioctl_cpu_info(void __user *uarg)
{
	struct pmuser_cpu_info ci;
	unsigned int cpu;
	int usize;

	usize = pmuser_drv_copy_in(&ci, sizeof(ci), PMUSER_CPU_INFO_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	if (ci.flags || ci.cpu >= nr_cpu_ids || !cpu_possible(ci.cpu))
		return -EINVAL;
	cpu = ci.cpu;
	memset(&ci, 0, sizeof(ci));
	ci.cpu = cpu;
	cpus_read_lock();
	if (cpu_online(cpu)) {
		ci.online = 1;
		smp_call_function_single(cpu, pmuser_drv_read_cpu_info, &ci, 1);
		pmuser_drv_counters_fill_cpu_info(&ci);
	}
	cpus_read_unlock();
	return pmuser_drv_copy_out(uarg, &ci, sizeof(ci), usize);
}

/* Largest event number the instruction set's event type register holds. */
#define PMUSER_DRV_EVENT_MAX	(IS_ENABLED(CONFIG_ARM64) ? 0xffff : 0xff)

static bool pmuser_drv_count_flags_valid(u32 flags)
{
	if (!flags || (flags & ~PMUSER_COUNT_MASK))
		return false;
	/* ARM1176 counts in every mode; it cannot filter. */
	return PMUSER_DRV_HAS_MODE_FILTER || flags == PMUSER_COUNT_MASK;
}

static int pmuser_drv_config_validate(const struct pmuser_config *cfg)
{
	unsigned int i;

	if (cfg->flags & ~PMUSER_CONFIG_FLAGS || cfg->reserved)
		return -EINVAL;
	if (cfg->nr_events > PMUSER_MAX_EVENTS)
		return -EINVAL;
	if (!cfg->nr_events && !(cfg->flags & PMUSER_CONFIG_CYCLES))
		return -EINVAL;
	if (cfg->flags & PMUSER_CONFIG_CYCLES) {
		if (!pmuser_drv_count_flags_valid(cfg->cycle_flags))
			return -EINVAL;
	} else if (cfg->cycle_flags) {
		return -EINVAL;
	}
	for (i = 0; i < PMUSER_MAX_EVENTS; i++) {
		const struct pmuser_event_config *ev = &cfg->events[i];

		if (ev->reserved)
			return -EINVAL;
		if (i >= cfg->nr_events) {
			if (ev->event || ev->flags)
				return -EINVAL;
			continue;
		}
		if (ev->event > PMUSER_DRV_EVENT_MAX || !pmuser_drv_count_flags_valid(ev->flags))
			return -EINVAL;
	}
	return 0;
}

static int pmuser_drv_ioctl_configure(struct file *file, void __user *uarg)
{
	struct pmuser_config *cfg;
	struct cpumask *cpus;
	int ret, usize;

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	cpus = kzalloc(cpumask_size(), GFP_KERNEL);
	if (!cfg || !cpus) {
		ret = -ENOMEM;
		goto out;
	}
	usize = pmuser_drv_copy_in(cfg, sizeof(*cfg), PMUSER_CONFIG_SIZE_VER0, uarg);
	if (usize < 0) {
		ret = usize;
		goto out;
	}
	ret = pmuser_drv_config_validate(cfg);
	if (ret)
		goto out;
	ret = pmuser_drv_cpus_from_user(cfg->cpus, cpus);
	if (ret)
		goto out;
	ret = pmuser_drv_priv_configure(file, cfg, cpus);
	if (ret)
		goto out;
	ret = pmuser_drv_copy_out(uarg, cfg, sizeof(*cfg), usize);
	if (ret) {
		/* The caller learns where its counters are, or holds none: no half success. */
		cpus_read_lock();
		pmuser_drv_counters_release(file);
		cpus_read_unlock();
	}
out:
	kfree(cpus);
	kfree(cfg);
	return ret;
}

static int pmuser_drv_ioctl_reset(struct file *file, void __user *uarg)
{
	struct pmuser_reset req;
	struct cpumask *cpus;
	int ret;

	ret = pmuser_drv_copy_in(&req, sizeof(req), PMUSER_RESET_SIZE_VER0, uarg);
	if (ret < 0)
		return ret;
	if (req.flags)
		return -EINVAL;
	/* No CPU named: every configured CPU, whichever those are. */
	if (!memchr_inv(req.cpus, 0, sizeof(req.cpus))) {
		cpus_read_lock();
		ret = pmuser_drv_counters_reset(file, NULL);
		cpus_read_unlock();
		return ret;
	}
	cpus = kzalloc(cpumask_size(), GFP_KERNEL);
	if (!cpus)
		return -ENOMEM;
	ret = pmuser_drv_cpus_from_user(req.cpus, cpus);
	if (ret)
		goto out;
	cpus_read_lock();
	ret = pmuser_drv_counters_reset(file, cpus);
	cpus_read_unlock();
out:
	kfree(cpus);
	return ret;
}

static int pmuser_drv_ioctl_release(struct file *file)
{
	int ret;

	cpus_read_lock();
	ret = pmuser_drv_counters_release(file);
	cpus_read_unlock();
	return ret;
}

static int pmuser_drv_ioctl_access(struct file *file, void __user *uarg, bool grant)
{
	struct pmuser_access req;
	int ret, usize;

	usize = pmuser_drv_copy_in(&req, sizeof(req), PMUSER_ACCESS_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	if (req.flags & ~(grant ? PMUSER_ACCESS_FLAGS : 0) || req.reserved)
		return -EINVAL;
	if (grant) {
		ret = pmuser_drv_priv_read_begin(file, true);
		if (ret)
			return ret;
		ret = pmuser_drv_access_grant(file, req.flags);
		pmuser_drv_priv_read_end();
	} else {
		ret = pmuser_drv_access_revoke(file);
	}
	if (ret)
		return ret;
	req.access_mode = pmuser_drv_access_mode();
	return pmuser_drv_copy_out(uarg, &req, sizeof(req), usize);
}

static int pmuser_drv_ioctl_swinc(struct file *file, void __user *uarg)
{
	struct pmuser_swinc req;
	u32 done, i, n;
	int usize, ret = 0;

	usize = pmuser_drv_copy_in(&req, sizeof(req), PMUSER_SWINC_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	if (req.flags || req.reserved)
		return -EINVAL;
	if (!req.mask || req.mask & BIT(PMUSER_HW_CYCLE) || !req.count ||
	    req.count > PMUSER_DRV_SWINC_MAX)
		return -EINVAL;
	if (!PMUSER_DRV_HAS_SWINC)
		return -EOPNOTSUPP;
	/* Another file's counts are not this file's to change. */
	if (!pmuser_drv_counters_owned_by(file))
		return -ENOENT;
	/*
	 * Every write on one CPU, interrupts off for each chunk (bounded latency, RT too): the
	 * counters are checked in the same section as the writes, so only pmuser's own SW_INCR
	 * counters are written, never one perf moved to another user in between.
	 */
	migrate_disable();
	req.cpu = raw_smp_processor_id();
	if (req.mask >= BIT(pmuser_drv_hw_nr_counters())) {
		ret = -EINVAL;
		goto out;
	}
	for (done = 0; done < req.count; done += n) {
		unsigned long flags;

		n = min_t(u32, req.count - done, PMUSER_DRV_SWINC_CHUNK);
		local_irq_save(flags);
		if (req.mask & ~pmuser_drv_counters_swinc_mask(file)) {
			local_irq_restore(flags);
			ret = done ? -EAGAIN : -EBUSY;
			goto out;
		}
		for (i = 0; i < n; i++)
			pmuser_drv_hw_swinc(req.mask);
		local_irq_restore(flags);
		cond_resched();
	}
out:
	migrate_enable();
	if (ret)
		return ret;
	return pmuser_drv_copy_out(uarg, &req, sizeof(req), usize);
}

static long pmuser_drv_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case PMUSER_IOC_INFO:
		return pmuser_drv_ioctl_info(file, uarg);
	case PMUSER_IOC_CPU_INFO:
		return pmuser_drv_ioctl_cpu_info(uarg);
	case PMUSER_IOC_CONFIGURE:
		return pmuser_drv_ioctl_configure(file, uarg);
	case PMUSER_IOC_RESET:
		return pmuser_drv_ioctl_reset(file, uarg);
	case PMUSER_IOC_RELEASE:
		return pmuser_drv_ioctl_release(file);
	case PMUSER_IOC_GRANT:
		return pmuser_drv_ioctl_access(file, uarg, true);
	case PMUSER_IOC_REVOKE:
		return pmuser_drv_ioctl_access(file, uarg, false);
	case PMUSER_IOC_SWINC:
		return pmuser_drv_ioctl_swinc(file, uarg);
	default:
		return -ENOTTY;
	}
}

static int pmuser_drv_open(struct inode *inode, struct file *file)
{
	int ret = pmuser_drv_priv_open(file);

	return ret ? ret : nonseekable_open(inode, file);
}

static int pmuser_drv_release(struct inode *inode, struct file *file)
{
	pmuser_drv_access_release(file);
	pmuser_drv_ioctl_release(file);
	pmuser_drv_priv_release(file);
	return 0;
}

static int pmuser_drv_mmap(struct file *file, struct vm_area_struct *vma)
{
	int ret = pmuser_drv_priv_read_begin(file, false);

	if (ret)
		return ret;
	ret = pmuser_drv_counters_mmap(vma);
	pmuser_drv_priv_read_end();
	return ret;
}

static const struct file_operations pmuser_drv_fops = {
	.owner = THIS_MODULE,
	.open = pmuser_drv_open,
	.release = pmuser_drv_release,
	.mmap = pmuser_drv_mmap,
	.unlocked_ioctl = pmuser_drv_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static char *pmuser_drv_devnode(PMUSER_DRV_COMPAT_DEVNODE_CONST struct device *dev, umode_t *mode,
				kuid_t *uid, kgid_t *gid)
{
	if (mode)
		*mode = group >= 0 ? 0660 : 0600;
	if (gid && group >= 0)
		*gid = KGIDT_INIT(group);
	return NULL;
}

static const struct device_type pmuser_drv_device_type = {
	.name = "pmuser",
	.devnode = pmuser_drv_devnode,
};

static void pmuser_drv_device_free(struct device *dev)
{
}

static int pmuser_drv_chrdev_create(void)
{
	int ret;

	ret = alloc_chrdev_region(&pmuser_drv_devt, 0, 1, "pmuser");
	if (ret)
		return ret;
	cdev_init(&pmuser_drv_cdev, &pmuser_drv_fops);
	ret = cdev_add(&pmuser_drv_cdev, pmuser_drv_devt, 1);
	if (ret)
		goto err_region;
	pmuser_drv_class = pmuser_drv_compat_class_create("pmuser");
	if (IS_ERR(pmuser_drv_class)) {
		ret = PTR_ERR(pmuser_drv_class);
		goto err_cdev;
	}
	device_initialize(&pmuser_drv_device);
	pmuser_drv_device.devt = pmuser_drv_devt;
	pmuser_drv_device.class = pmuser_drv_class;
	pmuser_drv_device.type = &pmuser_drv_device_type;
	pmuser_drv_device.release = pmuser_drv_device_free;
	ret = dev_set_name(&pmuser_drv_device, "pmuser");
	if (!ret)
		ret = device_add(&pmuser_drv_device);
	if (ret)
		goto err_device;
	return 0;

err_device:
	put_device(&pmuser_drv_device);
	class_destroy(pmuser_drv_class);
err_cdev:
	cdev_del(&pmuser_drv_cdev);
err_region:
	unregister_chrdev_region(pmuser_drv_devt, 1);
	return ret;
}

static void pmuser_drv_chrdev_destroy(void)
{
	device_del(&pmuser_drv_device);
	put_device(&pmuser_drv_device);
	class_destroy(pmuser_drv_class);
	cdev_del(&pmuser_drv_cdev);
	unregister_chrdev_region(pmuser_drv_devt, 1);
}

static int __init pmuser_drv_init(void)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct pmuser_info) < PMUSER_INFO_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct pmuser_cpu_info) != PMUSER_CPU_INFO_SIZE_VER1);
	BUILD_BUG_ON(sizeof(struct pmuser_config) != PMUSER_CONFIG_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct pmuser_reset) != PMUSER_RESET_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct pmuser_access) != PMUSER_ACCESS_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct pmuser_swinc) != PMUSER_SWINC_SIZE_VER0);

	if (group < -1 || (group >= 0 && !gid_valid(KGIDT_INIT(group)))) {
		pr_err("pmuser: group=%d is not a valid group id\n", group);
		return -EINVAL;
	}
	pmuser_drv_priv_init();
	ret = pmuser_drv_access_init(global_access);
	if (ret)
		return ret;
	ret = pmuser_drv_counters_init();
	if (ret)
		goto err_access;
	ret = pmuser_drv_chrdev_create();
	if (ret)
		goto err_counters;
	return 0;

err_counters:
	pmuser_drv_counters_exit();
err_access:
	pmuser_drv_access_exit();
	return ret;
}

static void __exit pmuser_drv_exit(void)
{
	pmuser_drv_chrdev_destroy();
	pmuser_drv_counters_exit();
	pmuser_drv_access_exit();
}

module_init(pmuser_drv_init);
module_exit(pmuser_drv_exit);

MODULE_DESCRIPTION("User-space access to ARM PMU counters, held through perf");
MODULE_LICENSE("GPL");
MODULE_VERSION(__stringify(PMUSER_VERSION_MAJOR) "." __stringify(PMUSER_VERSION_MINOR) "."
	       __stringify(PMUSER_VERSION_PATCH));
