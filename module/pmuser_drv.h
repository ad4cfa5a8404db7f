/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuser: interfaces between the module's parts. The module's own names start pmuser_drv_
 * (PMUSER_DRV_ for macros), so none reads as one of the library's pmuser_ functions or types;
 * the pmuser_ names it shares with user space are the uapi header's, and the version below
 * is the whole project's.
 */
#ifndef PMUSER_DRV_H
#define PMUSER_DRV_H

#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/mm_types.h>
#include <uapi/linux/pmuser.h>

struct task_struct;

/*
 * pmuser's version, written only here: the Makefile reads it (make print-version) for the
 * library, the tools and the packages, and tests/static checks every other place that names
 * it.
 */
#define PMUSER_VERSION_MAJOR	0
#define PMUSER_VERSION_MINOR	1
#define PMUSER_VERSION_PATCH	0

/*
 * Privilege (pmuser_priv.c): every check of who may hold or read counters. CONFIGURE runs
 * through pmuser_drv_priv_configure(); GRANT and mmap run between pmuser_drv_priv_read_begin(),
 * which checks and on success holds the privilege lock, and pmuser_drv_priv_read_end().
 */
void pmuser_drv_priv_init(void);
int pmuser_drv_priv_open(struct file *file);
void pmuser_drv_priv_release(struct file *file);
u32 pmuser_drv_priv_rights(const struct file *file);
int pmuser_drv_priv_configure(struct file *file, struct pmuser_config *cfg,
			      const struct cpumask *cpus);
int pmuser_drv_priv_read_begin(struct file *file, bool grant);
void pmuser_drv_priv_read_end(void);

/* Counters held through perf (pmuser_counters.c). Callers hold cpus_read_lock(). */
int pmuser_drv_counters_init(void);
void pmuser_drv_counters_exit(void);
int pmuser_drv_counters_configure(struct file *owner, struct pmuser_config *cfg,
				  const struct cpumask *cpus);
int pmuser_drv_counters_reset(struct file *owner, const struct cpumask *cpus);
int pmuser_drv_counters_release(struct file *owner);
void pmuser_drv_counters_fill_info(struct pmuser_info *info);
/* Whether cfg counts kernel mode: asked for, or unavoidable on a core without mode filters. */
bool pmuser_drv_counters_config_kernel(const struct pmuser_config *cfg);
/* Whether the configuration in force counts kernel mode. */
bool pmuser_drv_counters_count_kernel(void);
/* Placement on ci->cpu (held_mask, unplaced, page_seq); republishes what changed. */
void pmuser_drv_counters_fill_cpu_info(struct pmuser_cpu_info *ci);
/* Maps the counter page read-only. */
int pmuser_drv_counters_mmap(struct vm_area_struct *vma);
/*
 * The hardware counters of this CPU that hold the SW_INCR events owner configured, right
 * now: the only ones its SWINC may write. Called with interrupts off, so perf moves none
 * before the write.
 */
u32 pmuser_drv_counters_swinc_mask(const struct file *owner);
/* Whether file holds the configuration (a moment's answer: SWINC checks again). */
bool pmuser_drv_counters_owned_by(const struct file *file);
/*
 * Inline read authorisation (pmuser_access.c). The counters part calls it, never the other
 * way round: it reports switches, hotplug and whether its counters are live on a CPU.
 */
int pmuser_drv_access_init(bool global);
void pmuser_drv_access_exit(void);
u32 pmuser_drv_access_mode(void);
/* PMUSER_INFO_* flags describing what inline access allows. */
u32 pmuser_drv_access_info_flags(void);
int pmuser_drv_access_grant(struct file *file, u32 flags);
int pmuser_drv_access_revoke(struct file *file);
void pmuser_drv_access_release(struct file *file);
/* At every context switch, on the CPU with interrupts off (sched_switch). */
void pmuser_drv_access_switch(struct task_struct *prev, struct task_struct *next);
/* Learns which of perf's PMUs serves cpu (process context, cpu online). */
void pmuser_drv_access_learn_pmu(unsigned int cpu);
/* Re-establish this CPU's user-enable register after hotplug or power-down. */
void pmuser_drv_access_cpu_up(void);
void pmuser_drv_access_cpu_down(void);
/* pmuser holds no counter on cpus any more: close user access perf left open there. */
void pmuser_drv_access_counters_gone(const struct cpumask *cpus);
/*
 * A counter of pmuser's is (or is no longer) in use on cpu, as the page publishes it: on that
 * CPU with interrupts off, or while it is offline.
 */
void pmuser_drv_access_counters_live(unsigned int cpu, bool live);

#endif /* PMUSER_DRV_H */
