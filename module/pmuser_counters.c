// SPDX-License-Identifier: GPL-2.0
/*
 * pmuser: hold PMU counters through the kernel's perf subsystem.
 *
 * Each held counter is a pinned, CPU-bound in-kernel perf event. Pinned CPU events are
 * scheduled before everything else and stay on their hardware counter while other perf users
 * come and go, so perf never gives that counter to anyone else. User space reads the hardware
 * counter directly; this file keeps the raw value it sees continuous where perf would rewrite
 * it. perf reloads a counter with minus its remaining period whenever it starts the event:
 * after each overflow interrupt, after a CPU power-down, and when another user's pinned
 * CPU-wide event makes it schedule the CPU's events out and in again. pmuser's events sample
 * with period 1 and pmuser keeps the remaining period at 1, so perf calls pmuser's overflow
 * handler at every wrap, and any other reload (all ones) overflows on the next counted event
 * and comes back through that handler too. The handler puts back the continued value; perf's
 * own count is never disturbed.
 */
#include <linux/cpu.h>
#include <linux/cpu_pm.h>
#include <linux/cpuhotplug.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/smp.h>

#include "pmuser.h"
#include "pmuser_compat.h"
#include "pmuser_hw.h"

struct pmuser_counter {
	struct perf_event *event;
	u32 hw;
	u32 bits;
	/* The raw value user space saw at the last sync, and perf's count at that moment. */
	u64 last_raw;
	u64 last_count;
	/* Set on the counter's CPU once it has been synced: the overflow handler acts from then. */
	bool synced;
};

/* Slot PMUSER_MAX_EVENTS is the cycle counter; slots below it follow pmuser_config.events. */
#define PMUSER_CYCLE_SLOT	PMUSER_MAX_EVENTS

struct pmuser_cpu {
	struct pmuser_counter ctr[PMUSER_MAX_EVENTS + 1];
	/* Set on the CPU once its counters are set up, so notifiers see whole state only. */
	bool live;
};

static DEFINE_PER_CPU(struct pmuser_cpu, pmuser_pcpu);
static DEFINE_MUTEX(pmuser_cfg_lock);
static struct file *pmuser_owner;
static struct pmuser_config pmuser_cfg;
static struct cpumask pmuser_cpus;
static int pmuser_hp_state;

#define PMUSER_NR_SLOTS		(PMUSER_CYCLE_SLOT + 1)
#define PMUSER_SAMPLE_PERIOD	1

static bool pmuser_slot_used(unsigned int slot)
{
	if (slot == PMUSER_CYCLE_SLOT)
		return pmuser_cfg.flags & PMUSER_CONFIG_CYCLES;
	return slot < pmuser_cfg.nr_events;
}

/*
 * Make the hardware counter show raw from now on and tell perf: its deltas stay right, and a
 * remaining period of 1 makes the next overflow, whatever caused it, call pmuser_overflow().
 * (perf cannot tell a full wrap from a small step, so a period matched to the distance to
 * the wrap would be missed when the counter starts near zero.)
 */
static void pmuser_counter_sync(struct pmuser_counter *c, u64 raw)
{
	struct perf_event *event = c->event;

	pmuser_hw_counter_write(c->hw, raw);
	local64_set(&event->hw.prev_count, raw);
	local64_set(&event->hw.period_left, 1);
	c->last_raw = raw;
	c->last_count = local64_read(&event->count);
	WRITE_ONCE(c->synced, true);
}

static void pmuser_counter_set(struct pmuser_counter *c, u64 raw)
{
	c->event->pmu->read(c->event);
	pmuser_counter_sync(c, raw);
}

/* The value user space would see now had perf never rewritten the counter. */
static u64 pmuser_counter_continued(struct pmuser_counter *c)
{
	u64 raw = c->last_raw + (local64_read(&c->event->count) - c->last_count);

	return c->bits == 64 ? raw : lower_32_bits(raw);
}

/*
 * The counter overflowed (a wrap, or right after a reload by perf) and perf has just reloaded
 * it: put back the value user space would see had perf never touched it. perf's count is
 * exact modulo the counter's width, which is all the continued value needs. The PMU is
 * stopped while this runs on arm64.
 */
static void pmuser_overflow(struct perf_event *event, struct perf_sample_data *data,
			    struct pt_regs *regs)
{
	struct pmuser_counter *c = event->overflow_handler_context;

	if (!READ_ONCE(c->synced))
		return;
	/* ARMv7 keeps counting in its interrupt: take what perf's update left out. */
	event->pmu->read(event);
	pmuser_counter_sync(c, pmuser_counter_continued(c));
}

static void pmuser_cpu_zero(void *unused)
{
	struct pmuser_cpu *pc = this_cpu_ptr(&pmuser_pcpu);
	unsigned int slot;

	for (slot = 0; slot < PMUSER_NR_SLOTS; slot++)
		if (pc->ctr[slot].event)
			pmuser_counter_set(&pc->ctr[slot], 0);
	WRITE_ONCE(pc->live, true);
}

static void pmuser_cpu_quiesce(void *unused)
{
	WRITE_ONCE(this_cpu_ptr(&pmuser_pcpu)->live, false);
}

static struct perf_event *pmuser_event_create(unsigned int cpu, unsigned int slot,
					      struct pmuser_counter *c)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.pinned = 1,
	};
	struct perf_event *event;
	u32 flags;

	if (slot == PMUSER_CYCLE_SLOT) {
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_CPU_CYCLES;
		/* arm64 "long" events: the whole 64-bit cycle counter. */
		attr.config1 = IS_ENABLED(CONFIG_ARM64);
		flags = pmuser_cfg.cycle_flags;
	} else {
		attr.type = PERF_TYPE_RAW;
		attr.config = pmuser_cfg.events[slot].event;
		flags = pmuser_cfg.events[slot].flags;
	}
	/* ARM1176 has no mode filtering; perf rejects any exclude bit there. */
	if (PMUSER_HAS_MODE_FILTER) {
		attr.exclude_user = !(flags & PMUSER_COUNT_USER);
		attr.exclude_kernel = !(flags & PMUSER_COUNT_KERNEL);
		attr.exclude_hv = 1;
	}
	/*
	 * perf calls the overflow handler of sampling events only; a non-sampling event's counter
	 * is silently reloaded at every overflow. A PMU without an interrupt refuses sampling;
	 * its counters then wrap untouched and are reloaded only when perf restarts the event.
	 */
	attr.sample_period = PMUSER_SAMPLE_PERIOD;
	attr.disabled = 1;
	event = perf_event_create_kernel_counter(&attr, cpu, NULL, pmuser_overflow, c);
	if (PTR_ERR_OR_ZERO(event) == -EOPNOTSUPP) {
		attr.sample_period = 0;
		event = perf_event_create_kernel_counter(&attr, cpu, NULL, pmuser_overflow, c);
	}
	if (IS_ERR(event))
		return event;
	/*
	 * Created disabled so the first start does not load minus the sampling period (an
	 * overflow at once): start far from the wrap until pmuser_cpu_zero() syncs it.
	 */
	local64_set(&event->hw.period_left, S32_MAX);
	perf_event_enable(event);
	return event;
}

static void pmuser_cpu_teardown(unsigned int cpu)
{
	struct pmuser_cpu *pc = per_cpu_ptr(&pmuser_pcpu, cpu);
	unsigned int slot;

	if (cpu_online(cpu))
		smp_call_function_single(cpu, pmuser_cpu_quiesce, NULL, 1);
	else
		WRITE_ONCE(pc->live, false);
	for (slot = 0; slot < PMUSER_NR_SLOTS; slot++) {
		if (pc->ctr[slot].event)
			perf_event_release_kernel(pc->ctr[slot].event);
		pc->ctr[slot].event = NULL;
		pc->ctr[slot].synced = false;
	}
}

static int pmuser_cpu_setup(unsigned int cpu)
{
	struct pmuser_cpu *pc = per_cpu_ptr(&pmuser_pcpu, cpu);
	struct perf_event *event;
	bool want_cycle, on_cycle;
	unsigned int slot;
	int ret;

	for (slot = 0; slot < PMUSER_NR_SLOTS; slot++) {
		struct pmuser_counter *c = &pc->ctr[slot];

		if (!pmuser_slot_used(slot))
			continue;
		event = pmuser_event_create(cpu, slot, c);
		if (IS_ERR(event)) {
			ret = PTR_ERR(event);
			goto err_teardown;
		}
		c->event = event;
		/* A pinned event perf could not place is in error state: the counter is taken. */
		if (event->state != PERF_EVENT_STATE_ACTIVE) {
			ret = -EBUSY;
			goto err_teardown;
		}
		c->hw = pmuser_compat_idx_to_hw(event->hw.idx);
		want_cycle = slot == PMUSER_CYCLE_SLOT;
		on_cycle = c->hw == PMUSER_HW_CYCLE;
		c->bits = want_cycle ? PMUSER_CYCLE_BITS : pmuser_hw_counter_bits(0);
		/* Cycles elsewhere than the cycle counter would need chaining: refuse. */
		if (c->hw == PMUSER_HW_NONE || want_cycle != on_cycle) {
			ret = -EBUSY;
			goto err_teardown;
		}
	}
	smp_call_function_single(cpu, pmuser_cpu_zero, NULL, 1);
	return 0;

err_teardown:
	pmuser_cpu_teardown(cpu);
	return ret;
}

static void pmuser_teardown_all(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		pmuser_cpu_teardown(cpu);
	pmuser_access_counters_gone();
}

struct pmuser_cpu_caps {
	u32 nr_hw;
	bool have_pmceid;
	u64 pmceid[2];
};

static void pmuser_read_caps(void *info)
{
	struct pmuser_cpu_caps *caps = info;

	caps->nr_hw = pmuser_hw_nr_counters();
	caps->have_pmceid = pmuser_hw_read_pmceid(caps->pmceid);
}

/* Common events the CPU's PMCEID says it lacks are refused; others perf may still refuse. */
static bool pmuser_event_supported(const struct pmuser_cpu_caps *caps, u32 event)
{
	if (!caps->have_pmceid)
		return true;
	if (event < 0x40)
		return caps->pmceid[0] & BIT_ULL(event);
	if (event >= 0x4000 && event < 0x4040)
		return caps->pmceid[1] & BIT_ULL(event - 0x4000);
	return true;
}

static int pmuser_check_cpu(unsigned int cpu, const struct pmuser_config *cfg)
{
	struct pmuser_cpu_caps caps = {};
	unsigned int i;

	smp_call_function_single(cpu, pmuser_read_caps, &caps, 1);
	if (cfg->nr_events > caps.nr_hw)
		return -ENOSPC;
	for (i = 0; i < cfg->nr_events; i++)
		if (!pmuser_event_supported(&caps, cfg->events[i].event))
			return -EOPNOTSUPP;
	return 0;
}

/* Every configured CPU must carry each event on the same counter for inline reads to work. */
static int pmuser_collect_hw(unsigned int cpu, struct pmuser_config *cfg, bool first)
{
	struct pmuser_cpu *pc = per_cpu_ptr(&pmuser_pcpu, cpu);
	unsigned int i;

	for (i = 0; i < cfg->nr_events; i++) {
		if (first)
			cfg->events[i].hw_counter = pc->ctr[i].hw;
		else if (cfg->events[i].hw_counter != pc->ctr[i].hw)
			return -EBUSY;
	}
	return 0;
}

int pmuser_counters_configure(struct file *owner, struct pmuser_config *cfg,
			      const struct cpumask *cpus)
{
	unsigned int cpu, i;
	bool first = true;
	int ret;

	mutex_lock(&pmuser_cfg_lock);
	if (pmuser_owner && pmuser_owner != owner) {
		ret = -EBUSY;
		goto unlock;
	}
	for_each_cpu_and(cpu, cpus, cpu_online_mask) {
		ret = pmuser_check_cpu(cpu, cfg);
		if (ret)
			goto unlock;
	}
	pmuser_teardown_all();
	for (i = 0; i < cfg->nr_events; i++)
		cfg->events[i].hw_counter = PMUSER_HW_NONE;
	cfg->cycle_hw_counter = cfg->flags & PMUSER_CONFIG_CYCLES ?
				PMUSER_HW_CYCLE : PMUSER_HW_NONE;
	pmuser_cfg = *cfg;
	cpumask_copy(&pmuser_cpus, cpus);
	pmuser_owner = owner;
	for_each_cpu_and(cpu, cpus, cpu_online_mask) {
		ret = pmuser_cpu_setup(cpu);
		if (!ret)
			ret = pmuser_collect_hw(cpu, cfg, first);
		if (ret)
			goto err_release;
		first = false;
	}
	pmuser_cfg = *cfg;
	mutex_unlock(&pmuser_cfg_lock);
	return 0;

err_release:
	pmuser_teardown_all();
	pmuser_owner = NULL;
	cpumask_clear(&pmuser_cpus);
unlock:
	mutex_unlock(&pmuser_cfg_lock);
	return ret;
}

int pmuser_counters_reset(struct file *owner, const struct cpumask *cpus)
{
	unsigned int cpu;
	int ret = 0;

	mutex_lock(&pmuser_cfg_lock);
	if (pmuser_owner != owner) {
		ret = -ENOENT;
		goto unlock;
	}
	if (!cpus)
		cpus = &pmuser_cpus;
	if (!cpumask_subset(cpus, &pmuser_cpus)) {
		ret = -EINVAL;
		goto unlock;
	}
	for_each_cpu_and(cpu, cpus, cpu_online_mask)
		smp_call_function_single(cpu, pmuser_cpu_zero, NULL, 1);
unlock:
	mutex_unlock(&pmuser_cfg_lock);
	return ret;
}

int pmuser_counters_release(struct file *owner)
{
	int ret = 0;

	mutex_lock(&pmuser_cfg_lock);
	if (pmuser_owner == owner) {
		pmuser_teardown_all();
		pmuser_owner = NULL;
		cpumask_clear(&pmuser_cpus);
		memset(&pmuser_cfg, 0, sizeof(pmuser_cfg));
	} else {
		ret = -ENOENT;
	}
	mutex_unlock(&pmuser_cfg_lock);
	return ret;
}

void pmuser_counters_fill_info(struct pmuser_info *info)
{
	unsigned int cpu;

	mutex_lock(&pmuser_cfg_lock);
	info->nr_events = pmuser_owner ? pmuser_cfg.nr_events : 0;
	info->cycles_held = pmuser_owner && (pmuser_cfg.flags & PMUSER_CONFIG_CYCLES);
	for_each_cpu(cpu, &pmuser_cpus)
		if (cpu < PMUSER_MAX_CPUS)
			info->configured_cpus[cpu / 64] |= BIT_ULL(cpu % 64);
	mutex_unlock(&pmuser_cfg_lock);
}

u32 pmuser_counters_held_mask(unsigned int cpu)
{
	struct pmuser_cpu *pc = per_cpu_ptr(&pmuser_pcpu, cpu);
	unsigned int slot;
	u32 mask = 0;

	mutex_lock(&pmuser_cfg_lock);
	for (slot = 0; slot < PMUSER_NR_SLOTS; slot++)
		if (pc->ctr[slot].event && pc->ctr[slot].hw != PMUSER_HW_NONE)
			mask |= BIT(pc->ctr[slot].hw);
	mutex_unlock(&pmuser_cfg_lock);
	return mask;
}

bool pmuser_counters_live_local(void)
{
	return READ_ONCE(this_cpu_ptr(&pmuser_pcpu)->live);
}

static int pmuser_cpu_online(unsigned int cpu)
{
	int ret;

	pmuser_access_cpu_up();
	mutex_lock(&pmuser_cfg_lock);
	if (pmuser_owner && cpumask_test_cpu(cpu, &pmuser_cpus)) {
		ret = pmuser_cpu_setup(cpu);
		if (ret)
			pr_warn("pmuser: cpu%u: counters not re-established (%d)\n", cpu, ret);
	}
	mutex_unlock(&pmuser_cfg_lock);
	return 0;
}

static int pmuser_cpu_offline(unsigned int cpu)
{
	mutex_lock(&pmuser_cfg_lock);
	pmuser_cpu_teardown(cpu);
	mutex_unlock(&pmuser_cfg_lock);
	pmuser_access_cpu_down();
	return 0;
}

/*
 * perf's own CPU PM notifier (registered at boot, so it runs before this one both ways)
 * stops the counters before power-down and reloads them with a fresh period afterwards.
 * Remember what user space saw and put it back.
 */
static int pmuser_cpu_pm_notify(struct notifier_block *nb, unsigned long action, void *v)
{
	struct pmuser_cpu *pc = this_cpu_ptr(&pmuser_pcpu);
	unsigned int slot;

	if (action == CPU_PM_EXIT || action == CPU_PM_ENTER_FAILED)
		pmuser_access_cpu_up();
	if (!READ_ONCE(pc->live))
		return NOTIFY_OK;
	for (slot = 0; slot < PMUSER_NR_SLOTS; slot++) {
		struct pmuser_counter *c = &pc->ctr[slot];

		if (!c->event)
			continue;
		if (action == CPU_PM_ENTER) {
			c->last_raw = pmuser_counter_continued(c);
			c->last_count = local64_read(&c->event->count);
		} else if (action == CPU_PM_EXIT || action == CPU_PM_ENTER_FAILED) {
			pmuser_counter_sync(c, c->last_raw);
		}
	}
	return NOTIFY_OK;
}

static struct notifier_block pmuser_cpu_pm_nb = {
	.notifier_call = pmuser_cpu_pm_notify,
};

int pmuser_counters_init(void)
{
	int ret;

	ret = cpu_pm_register_notifier(&pmuser_cpu_pm_nb);
	if (ret)
		return ret;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pmuser:online",
				pmuser_cpu_online, pmuser_cpu_offline);
	if (ret < 0)
		goto err_pm;
	pmuser_hp_state = ret;
	return 0;

err_pm:
	cpu_pm_unregister_notifier(&pmuser_cpu_pm_nb);
	return ret;
}

void pmuser_counters_exit(void)
{
	cpuhp_remove_state(pmuser_hp_state);
	cpu_pm_unregister_notifier(&pmuser_cpu_pm_nb);
	mutex_lock(&pmuser_cfg_lock);
	pmuser_teardown_all();
	pmuser_owner = NULL;
	mutex_unlock(&pmuser_cfg_lock);
}
