// SPDX-License-Identifier: GPL-2.0
/*
 * pmuser_probe: a test-only module that shows each online CPU's PMU user-enable register
 * (PMUSERENR_EL0, ARMv7 PMUSERENR, ARM1176 c15 access control), read on that CPU, in
 * debugfs pmuser_probe/userenr as "cpuN 0xVALUE" lines. The guest tests load it after
 * pmuser is gone to prove the unload closed user access everywhere.
 */
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/smp.h>

static struct dentry *probe_dir;

static void probe_read(void *arg)
{
	u32 *val = arg;

#if defined(CONFIG_ARM64)
	*val = read_sysreg(pmuserenr_el0);
#elif __LINUX_ARM_ARCH__ >= 7
	asm volatile("mrc p15, 0, %0, c9, c14, 0" : "=r" (*val));
#else
	asm volatile("mrc p15, 0, %0, c15, c9, 0" : "=r" (*val));
#endif
}

static int probe_show(struct seq_file *m, void *unused)
{
	unsigned int cpu;
	u32 val;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		val = 0;
		smp_call_function_single(cpu, probe_read, &val, 1);
		seq_printf(m, "cpu%u %#x\n", cpu, val);
	}
	cpus_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(probe);

static int __init probe_init(void)
{
	probe_dir = debugfs_create_dir("pmuser_probe", NULL);
	debugfs_create_file("userenr", 0400, probe_dir, NULL, &probe_fops);
	return 0;
}

static void __exit probe_exit(void)
{
	debugfs_remove_recursive(probe_dir);
}

module_init(probe_init);
module_exit(probe_exit);

MODULE_DESCRIPTION("pmuser test probe: per-CPU PMU user-enable register in debugfs");
MODULE_LICENSE("GPL");
