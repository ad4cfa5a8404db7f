// SPDX-License-Identifier: GPL-2.0
/*
 * pmuser: hold PMU counters through the kernel's perf subsystem, and publish what a raw read
 * of them means.
 *
 * Each held counter is a pinned, CPU-bound in-kernel perf event, so perf never gives its
 * counter to another user while pmuser holds it. pmuser never writes a counter itself: perf
 * owns the values. perf rewrites a counter at every period end, whenever it starts the event
 * again (another user's pinned CPU-wide event rescheduling the CPU, a cgroup switch,
 * unthrottling, CPU power-down) and may then place it on another hardware counter.
 *
 * Why user space finds out: pmuser's events sample with period 1 and, in pmuser's overflow
 * handler, get one long period (2^(bits-1) events) through perf's own stop and start, after
 * which the remaining period is left at 0. Any later start by perf therefore loads all ones
 * (period 1 again), so the first event the counter counts afterwards raises perf's overflow
 * interrupt and brings perf back to the handler, which re-arms the long period and publishes
 * in the counter page where the event is now (hardware index), the raw value it was given
 * (base) and perf's count at that value, under a sequence number. This is the only place
 * pmuser touches an event's state: inside perf's overflow path for that very event, on its
 * CPU, with the event active on the counter perf reports, through perf's stop/start (which
 * disable the counter and clear its overflow flag before reloading it) - the same sequence
 * perf itself uses to change a period. Placement at CONFIGURE, RESET and CPU_INFO runs it on
 * the CPU in a cross-call, interrupts off, after checking that perf has the event active.
 *
 * Interrupt cost: one per 2^(bits-1) counted events, as for a non-sampling perf event, plus
 * one per restart or move. A restart loads all ones, so a raw read of all ones, or below the
 * published base, means "reloaded, interrupt pending": readers treat it as unusable.
 *
 * What is detected rather than prevented: between perf's restart or move of an event and its
 * first counted event the page still shows the old placement; a read of the old counter in
 * that window is not flagged. With kernel-mode counting the window closes before the kernel
 * returns to user space (the interrupt is pending as soon as interrupts are on again); with
 * user-only counting it lasts until the first user-mode event of that kind. CPU_INFO reads
 * the placement on the CPU and republishes a change at once. An event perf cannot place at
 * all (no free counter for a pinned event) is published as on no counter by CPU_INFO, which
 * also enables it again so that perf places it once a counter is free.
 *
 * perf tells no one when it cannot place a pinned event again (another user's older pinned
 * events, enabled later, took every counter): the overflow handler, the sched_switch probe
 * and a per-CPU timer every 0.5 s each publish a slot whose event perf took off its counter
 * as on none (pmuser_drv_cpu_check()).
 *
 * A PMU without an overflow interrupt (the BCM2835's ARM1176) never calls the handler: the
 * per-CPU timer then does its work every 0.5 s, in hard interrupt context on that CPU.
 *
 * Other threads: pmuser's events count everything on their CPU in the modes configured, so a
 * thread's two raw reads with another thread's time between them do not measure the thread
 * alone. A probe on the scheduler's sched_switch tracepoint advances the CPU's sequence at
 * every context switch there, so a window a thread was switched out of reads as changed,
 * like one perf reloaded a counter in.
 */
#include <linux/cpu.h>
#include <linux/cpu_pm.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/perf/arm_pmu.h>
#include <linux/personality.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#include "pmuser_drv.h"
#include "pmuser_compat.h"
#include "pmuser_hw.h"

struct pmuser_drv_counter {
	struct perf_event *event;
	unsigned int slot;
	/* perf's count when the page's count was last zero (CONFIGURE or RESET). */
	u64 zero;
	/* Whether this counter's slot in the page is pmuser's to publish. */
	bool publish;
	/* perf's index of the counter the page puts the slot on (pmuser_drv_cpu_check()). */
	int idx;
};

#define PMUSER_DRV_NR_SLOTS		PMUSER_PAGE_SLOTS

struct pmuser_drv_cpu {
	struct pmuser_drv_counter ctr[PMUSER_DRV_NR_SLOTS];
	/*
	 * A PMU without an overflow interrupt never brings perf back to pmuser: this timer
	 * does what the interrupt would, often enough that fewer than 2^31 events pass. With
	 * an interrupt it only looks for displaced events (pmuser_drv_cpu_check()) on a CPU that
	 * neither switches nor overflows.
	 */
	struct hrtimer poll;
	bool polling;
	bool no_irq;
	/* The slots the page puts on a counter: the ones pmuser_drv_cpu_check() verifies. */
	unsigned long on;
};

/* At most 2^31 events between two polls: 0.5 s is 4.3 GHz of 32-bit events. */
#define PMUSER_DRV_POLL_NS		(500 * NSEC_PER_MSEC)

static DEFINE_PER_CPU(struct pmuser_drv_cpu, pmuser_drv_pcpu);
static DEFINE_MUTEX(pmuser_drv_cfg_lock);
static struct file *pmuser_drv_owner;
/*
 * Whether event counters are whole 64-bit "long" events: only when every online CPU's are 64
 * bits wide (PMUv3p5). One width for all CPUs, as a reader chooses its width once for the
 * set; and perf decides per PMU, from one CPU's version, whether a long event chains two
 * counters, which it never does when every CPU has the wide ones.
 */
static bool pmuser_drv_wide_events;
static struct pmuser_config pmuser_drv_cfg;
static struct cpumask pmuser_drv_cpus;
static int pmuser_drv_hp_state;

/* The counter page: one record per possible CPU, mapped read-only by user space. */
static void *pmuser_drv_page;
static size_t pmuser_drv_page_bytes;
#define PMUSER_DRV_PAGE_STRIDE	2048

static struct pmuser_page_cpu *pmuser_drv_page_cpu(unsigned int cpu)
{
	return pmuser_drv_page + cpu * PMUSER_DRV_PAGE_STRIDE;
}

/*
 * A CPU's record is written only on that CPU with interrupts off, so writers never overlap.
 * Readers on other CPUs pair their loads with these barriers: an odd sequence is seen before
 * any field changes, and the fields before the even one.
 */
static void pmuser_drv_page_begin(struct pmuser_page_cpu *p)
{
	WRITE_ONCE(p->seq, p->seq + 1);
	smp_wmb(); /* odd sequence before the fields */
}

/*
 * The slots this CPU publishes that are not on the hardware counter of their own number or
 * whose base is not the one pmuser_drv_counter_arm() gets from perf (half the counter's range,
 * which readers that assume it test with the top bit), or all of them when it publishes none
 * (nothing configured here).
 */
static u64 pmuser_drv_half_base(u32 bits)
{
	return bits == 64 ? BIT_ULL(63) + 1 : BIT_ULL(31) + 1;
}

static u32 pmuser_drv_page_away(const struct pmuser_page_cpu *p)
{
	const struct pmuser_drv_cpu *pc = this_cpu_ptr(&pmuser_drv_pcpu);
	unsigned int slot;
	bool any = false;
	u32 away = 0;

	for (slot = 0; slot < PMUSER_DRV_NR_SLOTS; slot++) {
		if (!pc->ctr[slot].publish)
			continue;
		any = true;
		if (p->slot[slot].hw != slot ||
		    p->slot[slot].base != pmuser_drv_half_base(p->slot[slot].bits))
			away |= BIT(slot);
	}
	return any ? away : U32_MAX;
}

static void pmuser_drv_page_end(struct pmuser_page_cpu *p)
{
	WRITE_ONCE(p->away, pmuser_drv_page_away(p));
	smp_wmb(); /* fields before the even sequence */
	WRITE_ONCE(p->seq, p->seq + 1);
	p->publications++;
}

/*
 * Puts slot on counter hw (PMUSER_HW_NONE: on none) in the page; inside begin/end. The
 * access part learns whether any of pmuser's counters is in use on the CPU: perf starts the
 * PMU at every switch there then, and rewrites the user-enable register.
 */
static void pmuser_drv_slot_publish(struct pmuser_page_cpu *p, unsigned int slot, u32 hw)
{
	struct pmuser_drv_cpu *pc = this_cpu_ptr(&pmuser_drv_pcpu);
	bool was = pc->on;

	WRITE_ONCE(p->slot[slot].hw, hw);
	if (hw == PMUSER_HW_NONE)
		__clear_bit(slot, &pc->on);
	else
		__set_bit(slot, &pc->on);
	if (was != !!pc->on)
		pmuser_drv_access_counters_live(smp_processor_id(), pc->on);
}

static struct tracepoint *pmuser_drv_switch_tp;

static void pmuser_drv_find_switch_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		pmuser_drv_switch_tp = tp;
}

static bool pmuser_drv_slot_used(unsigned int slot)
{
	if (slot == PMUSER_PAGE_CYCLE_SLOT)
		return pmuser_drv_cfg.flags & PMUSER_CONFIG_CYCLES;
	return slot < pmuser_drv_cfg.nr_events;
}

static unsigned int pmuser_drv_event_bits(struct perf_event *event)
{
	return event->hw.flags & ARMPMU_EVT_64BIT ? 64 : 32;
}

/* perf marks a throttled event's hw.interrupts with this (MAX_INTERRUPTS, kernel/events). */
#define PMUSER_DRV_PERF_THROTTLED	(~0ULL)

/* Whether perf has the event on a counter, counting, on this CPU right now. */
static bool pmuser_drv_event_placed(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	return event->state == PERF_EVENT_STATE_ACTIVE && hwc->idx >= 0 &&
	       !(hwc->state & PERF_HES_STOPPED) && hwc->interrupts != PMUSER_DRV_PERF_THROTTLED;
}

/* The architecture's SW_INCR event number (ARMv6 has none; PMUSER_DRV_HAS_SWINC says so). */
#define PMUSER_DRV_EVENT_SW_INCR	0x00

bool pmuser_drv_counters_owned_by(const struct file *file)
{
	return READ_ONCE(pmuser_drv_owner) == file;
}

u32 pmuser_drv_counters_swinc_mask(const struct file *owner)
{
	const struct pmuser_drv_cpu *pc = this_cpu_ptr(&pmuser_drv_pcpu);
	unsigned int slot;
	u32 mask = 0;

	lockdep_assert_irqs_disabled();
	if (!pmuser_drv_counters_owned_by(owner))
		return 0;
	for (slot = 0; slot < PMUSER_DRV_NR_SLOTS; slot++) {
		struct perf_event *event = READ_ONCE(pc->ctr[slot].event);

		if (event && event->attr.type == PERF_TYPE_RAW &&
		    event->attr.config == PMUSER_DRV_EVENT_SW_INCR &&
		    pmuser_drv_event_placed(event))
			mask |= BIT(pmuser_drv_compat_idx_to_hw(event->hw.idx));
	}
	return mask;
}

/*
 * Give the event one long period through perf's stop and start, leave its remaining period
 * at 0 (so perf's next start of it loads all ones), and publish it. On the event's CPU with
 * interrupts off, inside pmuser_drv_page_begin/end. An event perf has on no counter, or has
 * throttled or stopped, is published as on none and left alone: perf restarts it with all
 * ones later, and its first event brings it back here.
 */
static void pmuser_drv_counter_arm(struct pmuser_drv_counter *c, struct perf_event *event,
				   struct pmuser_page_cpu *p, bool zero)
{
	struct hw_perf_event *hwc = &event->hw;
	struct pmuser_page_slot *s = &p->slot[c->slot];
	unsigned int bits = pmuser_drv_event_bits(event);
	u64 mask = bits == 64 ? U64_MAX : U32_MAX;

	if (!pmuser_drv_event_placed(event)) {
		if (zero)
			c->zero = local64_read(&event->count);
		if (c->publish)
			pmuser_drv_slot_publish(p, c->slot, PMUSER_HW_NONE);
		return;
	}
	event->pmu->stop(event, PERF_EF_UPDATE);
	local64_set(&hwc->period_left, mask >> 1);
	event->pmu->start(event, PERF_EF_RELOAD);
	local64_set(&hwc->period_left, 0);
	if (zero)
		c->zero = local64_read(&event->count);
	if (!c->publish)
		return;
	s->bits = bits;
	s->base = local64_read(&hwc->prev_count) & mask;
	s->count = local64_read(&event->count) - c->zero;
	p->offset[c->slot] = s->count - s->base;
	c->idx = hwc->idx;
	pmuser_drv_slot_publish(p, c->slot, pmuser_drv_compat_idx_to_hw(hwc->idx));
}

/* Publishes the slots in gone as on no counter: on the CPU, interrupts off. */
static noinline void pmuser_drv_cpu_unpublish(struct pmuser_page_cpu *p, unsigned long gone)
{
	unsigned int slot;

	pmuser_drv_page_begin(p);
	for_each_set_bit(slot, &gone, PMUSER_DRV_NR_SLOTS)
		pmuser_drv_slot_publish(p, slot, PMUSER_HW_NONE);
	pmuser_drv_page_end(p);
}

/*
 * perf tells no one when it cannot place a pinned event again: another user's pinned events,
 * older than pmuser's but enabled after it configured, are placed first at the reschedule
 * and may take every counter, and the counter pmuser's event had then counts theirs. perf
 * gives an event it takes off a counter the index -1 (armpmu_del()) and the counter it puts
 * it on next its own index, so every slot the page puts on a counter whose event perf no
 * longer has there under that index is published as on none, until the event's next start
 * brings it back to the overflow handler. A slot is in on only while its event exists: the
 * teardown publishes every slot as on none on the CPU before it drops the events. On the
 * CPU, interrupts off; kept to loads, as it runs at every context switch.
 */
static __always_inline void pmuser_drv_cpu_check(struct pmuser_drv_cpu *pc,
						 struct pmuser_page_cpu *p)
{
	unsigned long on, gone = 0;

	for (on = pc->on; on; on &= on - 1) {
		unsigned int slot = __ffs(on);
		const struct perf_event *event = pc->ctr[slot].event;

		if (READ_ONCE(event->hw.idx) != pc->ctr[slot].idx)
			gone |= BIT(slot);
	}
	if (unlikely(gone))
		pmuser_drv_cpu_unpublish(p, gone);
}

/* perf's overflow path for one of pmuser's events: hardirq, on its CPU. */
static void pmuser_drv_overflow(struct perf_event *event, struct perf_sample_data *data,
				struct pt_regs *regs)
{
	struct pmuser_drv_counter *c = event->overflow_handler_context;
	struct pmuser_page_cpu *p = pmuser_drv_page_cpu(smp_processor_id());

	pmuser_drv_page_begin(p);
	pmuser_drv_counter_arm(c, event, p, false);
	pmuser_drv_page_end(p);
	/* A reschedule that restarted this event may have left a sibling without a counter. */
	pmuser_drv_cpu_check(this_cpu_ptr(&pmuser_drv_pcpu), p);
}

/*
 * sched_switch, on the CPU with interrupts off like every other writer of its record: the
 * sequence moves by 2, so it stays even and no field changes, after the slots perf no
 * longer has on their counters are published as on none (a reschedule that displaced all
 * of pmuser's events here raises no overflow of theirs).
 */
static void pmuser_drv_switch_probe(void *data, bool preempt, struct task_struct *prev,
				    struct task_struct *next, unsigned int prev_state)
{
	struct pmuser_page_cpu *p = pmuser_drv_page_cpu(smp_processor_id());

	pmuser_drv_cpu_check(this_cpu_ptr(&pmuser_drv_pcpu), p);
	WRITE_ONCE(p->seq, p->seq + 2);
	pmuser_drv_access_switch(prev, next);
}

/*
 * Whether perf reloaded a placed counter since its publication (its overflow interrupt is
 * still to come): perf's own read brings its count up to date and shows the raw value.
 */
static bool pmuser_drv_counter_reloaded(struct perf_event *event, struct pmuser_page_slot *s)
{
	u64 mask = pmuser_drv_event_bits(event) == 64 ? U64_MAX : U32_MAX, raw;

	event->pmu->read(event);
	raw = local64_read(&event->hw.prev_count) & mask;
	return raw < s->base || raw == mask;
}

struct pmuser_drv_place_req {
	bool zero;
	/* out: what perf has now */
	u32 held_mask;
	u32 unplaced;
	u32 seq;
};

/*
 * On the CPU, interrupts off: arm and publish every held counter (zero: count from 0 again).
 * Without zero, only counters whose placement differs from the page are re-armed.
 */
static void pmuser_drv_cpu_place(void *arg)
{
	struct pmuser_drv_place_req *req = arg;
	struct pmuser_drv_cpu *pc = this_cpu_ptr(&pmuser_drv_pcpu);
	struct pmuser_page_cpu *p = pmuser_drv_page_cpu(smp_processor_id());
	unsigned long rearm = 0;
	unsigned int slot;

	/* What changed first: the page (and readers' regions) stays as it is otherwise. */
	for (slot = 0; slot < PMUSER_DRV_NR_SLOTS; slot++) {
		struct perf_event *event = pc->ctr[slot].event;
		u32 hw;

		if (!event)
			continue;
		hw = pmuser_drv_event_placed(event) ? pmuser_drv_compat_idx_to_hw(event->hw.idx) :
						  PMUSER_HW_NONE;
		if (req->zero || hw != READ_ONCE(p->slot[slot].hw) ||
		    (hw != PMUSER_HW_NONE && pmuser_drv_counter_reloaded(event, &p->slot[slot])))
			rearm |= BIT(slot);
	}
	if (rearm) {
		pmuser_drv_page_begin(p);
		for_each_set_bit(slot, &rearm, PMUSER_DRV_NR_SLOTS) {
			struct pmuser_drv_counter *c = &pc->ctr[slot];

			if (req->zero)
				c->publish = true;
			pmuser_drv_counter_arm(c, c->event, p, req->zero);
		}
		pmuser_drv_page_end(p);
	}
	for (slot = 0; slot < PMUSER_DRV_NR_SLOTS; slot++) {
		u32 hw = READ_ONCE(p->slot[slot].hw);

		/* A configured slot without an event (its CPU's re-setup failed) counts nowhere. */
		if (!pc->ctr[slot].event) {
			if (pmuser_drv_slot_used(slot))
				req->unplaced++;
			continue;
		}
		if (hw == PMUSER_HW_NONE)
			req->unplaced++;
		else
			req->held_mask |= BIT(hw);
	}
	req->seq = READ_ONCE(p->seq);
}

/* The poll (struct pmuser_drv_cpu): on its CPU, hard interrupt context. */
static enum hrtimer_restart pmuser_drv_poll(struct hrtimer *t)
{
	struct pmuser_drv_cpu *pc = container_of(t, struct pmuser_drv_cpu, poll);
	struct pmuser_drv_place_req req = {};

	if (pc->no_irq)
		pmuser_drv_cpu_place(&req);
	else
		pmuser_drv_cpu_check(pc, pmuser_drv_page_cpu(smp_processor_id()));
	hrtimer_forward_now(t, ns_to_ktime(PMUSER_DRV_POLL_NS));
	return HRTIMER_RESTART;
}

static void pmuser_drv_poll_start(void *unused)
{
	struct pmuser_drv_cpu *pc = this_cpu_ptr(&pmuser_drv_pcpu);

	hrtimer_start(&pc->poll, ns_to_ktime(PMUSER_DRV_POLL_NS), HRTIMER_MODE_REL_PINNED_HARD);
}

/* A slot that describes no counter keeps no count of the configuration it described. */
static void pmuser_drv_slot_clear(struct pmuser_page_cpu *p, unsigned int slot)
{
	p->slot[slot].bits = 0;
	p->slot[slot].base = 0;
	p->slot[slot].count = 0;
	p->offset[slot] = 0;
}

/*
 * On the CPU: the page no longer describes any counter of pmuser's here, nor what they
 * counted, so the next holder's readers see nothing of the last one's.
 */
static void pmuser_drv_cpu_quiesce(void *unused)
{
	struct pmuser_drv_cpu *pc = this_cpu_ptr(&pmuser_drv_pcpu);
	struct pmuser_page_cpu *p = pmuser_drv_page_cpu(smp_processor_id());
	unsigned int slot;

	pmuser_drv_page_begin(p);
	for (slot = 0; slot < PMUSER_DRV_NR_SLOTS; slot++) {
		pc->ctr[slot].publish = false;
		pmuser_drv_slot_publish(p, slot, PMUSER_HW_NONE);
		pmuser_drv_slot_clear(p, slot);
	}
	pmuser_drv_page_end(p);
}

struct pmuser_drv_cpu_caps {
	u32 nr_hw;
	u32 counter_bits;		/* event counters' width */
	bool have_pmceid;
	u64 pmceid[2];
};

static void pmuser_drv_read_caps(void *info)
{
	struct pmuser_drv_cpu_caps *caps = info;

	caps->nr_hw = pmuser_drv_hw_nr_counters();
	caps->counter_bits = pmuser_drv_hw_counter_bits(pmuser_drv_hw_pmu_version());
	caps->have_pmceid = pmuser_drv_hw_read_pmceid(caps->pmceid);
}

/*
 * wide: the CPU's event counters are 64 bits (PMUv3p5). perf then gives an arm64 "long"
 * event one whole counter, whose raw reads need no extension; on other cores long events
 * chain two counters, which pmuser does not ask for.
 */
static struct perf_event *pmuser_drv_event_create(unsigned int cpu, unsigned int slot,
						  struct pmuser_drv_counter *c, bool wide)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.pinned = 1,
		.disabled = 1,
		/* Any start by perf then loads all ones: see the top of this file. */
		.sample_period = 1,
	};
	struct perf_event *event;
	u32 flags;

	if (slot == PMUSER_PAGE_CYCLE_SLOT) {
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_CPU_CYCLES;
		/* arm64 "long" events: the whole 64-bit cycle counter. */
		attr.config1 = IS_ENABLED(CONFIG_ARM64);
		flags = pmuser_drv_cfg.cycle_flags;
	} else {
		attr.type = PERF_TYPE_RAW;
		attr.config = pmuser_drv_cfg.events[slot].event;
		attr.config1 = IS_ENABLED(CONFIG_ARM64) && wide;
		flags = pmuser_drv_cfg.events[slot].flags;
	}
	/* ARM1176 has no mode filtering; perf rejects any exclude bit there. */
	if (PMUSER_DRV_HAS_MODE_FILTER) {
		attr.exclude_user = !(flags & PMUSER_COUNT_USER);
		attr.exclude_kernel = !(flags & PMUSER_COUNT_KERNEL);
		attr.exclude_hv = 1;
	}
	/* In-kernel sampling events are taken even by a PMU without an interrupt (see poll). */
	event = perf_event_create_kernel_counter(&attr, cpu, NULL, pmuser_drv_overflow, c);
	if (IS_ERR(event))
		return event;
	c->event = event;
	perf_event_enable(event);
	return event;
}

/*
 * A torn-down event is disabled at once (its counter is free and it raises no interrupt) but
 * released only once the operation that tore it down has set up and zeroed what replaces
 * it: under PREEMPT_RT perf_event_release_kernel() waits for an RCU grace period per event,
 * and a counted workload on the CPU must not run uncounted meanwhile. The caller releases
 * synchronously, so no release is left to contend with the next operation for perf's
 * context locks.
 */
struct pmuser_drv_dead_event {
	struct llist_node node;
	struct perf_event *event;
};

static LLIST_HEAD(pmuser_drv_dead_events);

static void pmuser_drv_release_dead(void)
{
	struct llist_node *list = llist_del_all(&pmuser_drv_dead_events);
	struct pmuser_drv_dead_event *d, *tmp;

	llist_for_each_entry_safe(d, tmp, list, node) {
		perf_event_release_kernel(d->event);
		kfree(d);
	}
}

/* Disables a torn-down event for pmuser_drv_release_dead(), or releases it if out of memory. */
static void pmuser_drv_event_retire(struct perf_event *event)
{
	struct pmuser_drv_dead_event *d = kmalloc(sizeof(*d), GFP_KERNEL);

	if (!d) {
		perf_event_release_kernel(event);
		return;
	}
	perf_event_disable(event);
	d->event = event;
	llist_add(&d->node, &pmuser_drv_dead_events);
}

static void pmuser_drv_cpu_teardown(unsigned int cpu)
{
	struct pmuser_drv_cpu *pc = per_cpu_ptr(&pmuser_drv_pcpu, cpu);
	unsigned int slot;

	if (pc->polling) {
		hrtimer_cancel(&pc->poll);
		pc->polling = false;
	}
	if (cpu_online(cpu)) {
		smp_call_function_single(cpu, pmuser_drv_cpu_quiesce, NULL, 1);
	} else {
		/* Nothing writes an offline CPU's record but this. */
		struct pmuser_page_cpu *p = pmuser_drv_page_cpu(cpu);

		pmuser_drv_access_counters_live(cpu, false);
		for (slot = 0; slot < PMUSER_DRV_NR_SLOTS; slot++)
			pmuser_drv_slot_clear(p, slot);
	}
	for (slot = 0; slot < PMUSER_DRV_NR_SLOTS; slot++) {
		struct perf_event *event = pc->ctr[slot].event;

		/* Unpublished before it may be freed: SWINC reads the pointer locklessly. */
		WRITE_ONCE(pc->ctr[slot].event, NULL);
		pc->ctr[slot].publish = false;
		if (event)
			pmuser_drv_event_retire(event);
	}
}

static int pmuser_drv_cpu_setup(unsigned int cpu)
{
	struct pmuser_drv_cpu *pc = per_cpu_ptr(&pmuser_drv_pcpu, cpu);
	struct pmuser_drv_place_req req = { .zero = true };
	struct pmuser_drv_cpu_caps caps = {};
	struct perf_event *event;
	bool no_irq = false;
	unsigned int k, slot;
	u32 hw;
	int ret;

	/*
	 * The cycle slot first: perf puts a CPU_CYCLES event on the cycle counter whenever it
	 * is free, so an event slot asking for CPU_CYCLES gets an event counter only when the
	 * cycle counter is taken by then. Without the cycle slot such an event takes the cycle
	 * counter itself; its slot says so (hw, and perf's width for the event in bits).
	 */
	smp_call_function_single(cpu, pmuser_drv_read_caps, &caps, 1);
	for (k = 0; k < PMUSER_DRV_NR_SLOTS; k++) {
		struct pmuser_drv_counter *c;

		slot = (k + PMUSER_PAGE_CYCLE_SLOT) % PMUSER_DRV_NR_SLOTS;
		c = &pc->ctr[slot];
		if (!pmuser_drv_slot_used(slot))
			continue;
		c->slot = slot;
		event = pmuser_drv_event_create(cpu, slot, c,
						pmuser_drv_wide_events && caps.counter_bits == 64);
		if (IS_ERR(event)) {
			ret = PTR_ERR(event);
			goto err_teardown;
		}
		/* A pinned event perf could not place is in error state: the counter is taken. */
		if (event->state != PERF_EVENT_STATE_ACTIVE) {
			ret = -EBUSY;
			goto err_teardown;
		}
		no_irq |= event->pmu->capabilities & PERF_PMU_CAP_NO_INTERRUPT;
		hw = pmuser_drv_compat_idx_to_hw(event->hw.idx);
		/* The cycle slot elsewhere than the cycle counter would need chaining: refuse. */
		if (hw == PMUSER_HW_NONE ||
		    (slot == PMUSER_PAGE_CYCLE_SLOT && hw != PMUSER_HW_CYCLE)) {
			ret = -EBUSY;
			goto err_teardown;
		}
	}
	smp_call_function_single(cpu, pmuser_drv_cpu_place, &req, 1);
	pc->no_irq = no_irq;
	pc->polling = true;
	smp_call_function_single(cpu, pmuser_drv_poll_start, NULL, 1);
	return 0;

err_teardown:
	pmuser_drv_cpu_teardown(cpu);
	return ret;
}

/*
 * The caller that leaves CPUs without counters calls pmuser_drv_access_counters_gone() for them
 * after it. A CONFIGURE that holds counters again leaves the granted threads' access alone:
 * perf restores it whenever it starts the PMU with the new counters.
 */
static void pmuser_drv_teardown_all(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		pmuser_drv_cpu_teardown(cpu);
}

/* Common events the CPU's PMCEID says it lacks are refused; others perf may still refuse. */
static bool pmuser_drv_event_supported(const struct pmuser_drv_cpu_caps *caps, u32 event)
{
	if (!caps->have_pmceid)
		return true;
	if (event < 0x40)
		return caps->pmceid[0] & BIT_ULL(event);
	if (event >= 0x4000 && event < 0x4040)
		return caps->pmceid[1] & BIT_ULL(event - 0x4000);
	return true;
}

static int pmuser_drv_check_cpu(unsigned int cpu, const struct pmuser_config *cfg)
{
	struct pmuser_drv_cpu_caps caps = {};
	unsigned int i;

	smp_call_function_single(cpu, pmuser_drv_read_caps, &caps, 1);
	if (cfg->nr_events > caps.nr_hw)
		return -ENOSPC;
	for (i = 0; i < cfg->nr_events; i++)
		if (!pmuser_drv_event_supported(&caps, cfg->events[i].event))
			return -EOPNOTSUPP;
	return 0;
}

/* The hardware counter perf placed slot on, as published on that CPU. */
static u32 pmuser_drv_slot_hw(unsigned int cpu, unsigned int slot)
{
	return READ_ONCE(pmuser_drv_page_cpu(cpu)->slot[slot].hw);
}

/* Every configured CPU must carry each event on the same counter for inline reads to work. */
static int pmuser_drv_collect_hw(unsigned int cpu, struct pmuser_config *cfg, bool first)
{
	unsigned int i;

	for (i = 0; i < cfg->nr_events; i++) {
		if (first)
			cfg->events[i].hw_counter = pmuser_drv_slot_hw(cpu, i);
		else if (cfg->events[i].hw_counter != pmuser_drv_slot_hw(cpu, i))
			return -EBUSY;
	}
	return 0;
}

/* Hold cfg's counters on cpus; on failure nothing is held. */
static int pmuser_drv_counters_apply(struct file *owner, struct pmuser_config *cfg,
				     const struct cpumask *cpus)
{
	unsigned int cpu, i;
	bool first = true;
	int ret;

	for (i = 0; i < cfg->nr_events; i++)
		cfg->events[i].hw_counter = PMUSER_HW_NONE;
	cfg->cycle_hw_counter = cfg->flags & PMUSER_CONFIG_CYCLES ?
				PMUSER_HW_CYCLE : PMUSER_HW_NONE;
	pmuser_drv_cfg = *cfg;
	cpumask_copy(&pmuser_drv_cpus, cpus);
	WRITE_ONCE(pmuser_drv_owner, owner);
	for_each_cpu_and(cpu, cpus, cpu_online_mask) {
		ret = pmuser_drv_cpu_setup(cpu);
		if (!ret)
			ret = pmuser_drv_collect_hw(cpu, cfg, first);
		if (ret)
			goto err_release;
		first = false;
	}
	pmuser_drv_cfg = *cfg;
	return 0;

err_release:
	pmuser_drv_teardown_all();
	WRITE_ONCE(pmuser_drv_owner, NULL);
	cpumask_clear(&pmuser_drv_cpus);
	memset(&pmuser_drv_cfg, 0, sizeof(pmuser_drv_cfg));
	return ret;
}

int pmuser_drv_counters_configure(struct file *owner, struct pmuser_config *cfg,
				  const struct cpumask *cpus)
{
	struct pmuser_config *prev = NULL;
	struct cpumask *prev_cpus = NULL;
	unsigned int cpu;
	int ret, again;

	mutex_lock(&pmuser_drv_cfg_lock);
	if (pmuser_drv_owner && pmuser_drv_owner != owner) {
		ret = -EBUSY;
		goto unlock;
	}
	for_each_cpu_and(cpu, cpus, cpu_online_mask) {
		ret = pmuser_drv_check_cpu(cpu, cfg);
		if (ret)
			goto unlock;
	}
	pmuser_drv_wide_events = true;
	for_each_online_cpu(cpu) {
		struct pmuser_drv_cpu_caps caps = {};

		smp_call_function_single(cpu, pmuser_drv_read_caps, &caps, 1);
		if (caps.counter_bits != 64)
			pmuser_drv_wide_events = false;
	}
	if (pmuser_drv_owner) {
		prev = kmemdup(&pmuser_drv_cfg, sizeof(*prev), GFP_KERNEL);
		prev_cpus = kmemdup(&pmuser_drv_cpus, sizeof(*prev_cpus), GFP_KERNEL);
		if (!prev || !prev_cpus) {
			ret = -ENOMEM;
			goto unlock;
		}
	}
	pmuser_drv_teardown_all();
	ret = pmuser_drv_counters_apply(owner, cfg, cpus);
	/*
	 * A failed configuration leaves the previous one in force, counting from 0 again, if
	 * perf still has room for it.
	 */
	again = ret;
	if (ret && prev) {
		again = pmuser_drv_counters_apply(owner, prev, prev_cpus);
		if (again)
			pr_warn("pmuser: the previous configuration could not be restored (%d)\n",
				again);
	}
	/*
	 * CPUs left without counters are closed: those held before and not now, and those
	 * the failed configuration set up for a moment (where perf may have opened reads).
	 */
	if (again)
		pmuser_drv_access_counters_gone(cpu_online_mask);
	else if (prev && cpumask_andnot(prev_cpus, cpu_online_mask, &pmuser_drv_cpus))
		pmuser_drv_access_counters_gone(prev_cpus);
unlock:
	mutex_unlock(&pmuser_drv_cfg_lock);
	pmuser_drv_release_dead();
	kfree(prev_cpus);
	kfree(prev);
	return ret;
}

int pmuser_drv_counters_reset(struct file *owner, const struct cpumask *cpus)
{
	unsigned int cpu;
	int ret = 0;

	mutex_lock(&pmuser_drv_cfg_lock);
	if (pmuser_drv_owner != owner) {
		ret = -ENOENT;
		goto unlock;
	}
	if (!cpus)
		cpus = &pmuser_drv_cpus;
	if (!cpumask_subset(cpus, &pmuser_drv_cpus)) {
		ret = -EINVAL;
		goto unlock;
	}
	for_each_cpu_and(cpu, cpus, cpu_online_mask) {
		struct pmuser_drv_place_req req = { .zero = true };

		smp_call_function_single(cpu, pmuser_drv_cpu_place, &req, 1);
	}
unlock:
	mutex_unlock(&pmuser_drv_cfg_lock);
	return ret;
}

int pmuser_drv_counters_release(struct file *owner)
{
	int ret = 0;

	mutex_lock(&pmuser_drv_cfg_lock);
	if (pmuser_drv_owner == owner) {
		pmuser_drv_teardown_all();
		pmuser_drv_access_counters_gone(cpu_online_mask);
		WRITE_ONCE(pmuser_drv_owner, NULL);
		cpumask_clear(&pmuser_drv_cpus);
		memset(&pmuser_drv_cfg, 0, sizeof(pmuser_drv_cfg));
	} else {
		ret = -ENOENT;
	}
	mutex_unlock(&pmuser_drv_cfg_lock);
	pmuser_drv_release_dead();
	return ret;
}

void pmuser_drv_counters_fill_info(struct pmuser_info *info)
{
	unsigned int cpu;

	mutex_lock(&pmuser_drv_cfg_lock);
	info->nr_events = pmuser_drv_owner ? pmuser_drv_cfg.nr_events : 0;
	info->cycles_held = pmuser_drv_owner && (pmuser_drv_cfg.flags & PMUSER_CONFIG_CYCLES);
	for_each_cpu(cpu, &pmuser_drv_cpus)
		if (cpu < PMUSER_MAX_CPUS)
			info->configured_cpus[cpu / 64] |= BIT_ULL(cpu % 64);
	mutex_unlock(&pmuser_drv_cfg_lock);
	info->page_size = pmuser_drv_page_bytes;
	info->page_cpu_stride = PMUSER_DRV_PAGE_STRIDE;
	info->page_flags = PMUSER_PAGE_AWAY;
}

bool pmuser_drv_counters_config_kernel(const struct pmuser_config *cfg)
{
	unsigned int i;

	if (!PMUSER_DRV_HAS_MODE_FILTER)
		return true;
	if (cfg->flags & PMUSER_CONFIG_CYCLES && cfg->cycle_flags & PMUSER_COUNT_KERNEL)
		return true;
	for (i = 0; i < cfg->nr_events; i++)
		if (cfg->events[i].flags & PMUSER_COUNT_KERNEL)
			return true;
	return false;
}

bool pmuser_drv_counters_count_kernel(void)
{
	bool ret;

	mutex_lock(&pmuser_drv_cfg_lock);
	ret = pmuser_drv_owner && pmuser_drv_counters_config_kernel(&pmuser_drv_cfg);
	mutex_unlock(&pmuser_drv_cfg_lock);
	return ret;
}

/*
 * A pinned event perf found no counter for at a reschedule stays in error state until it is
 * enabled again; perf then places it if it can (process context, under pmuser_drv_cfg_lock).
 */
static void pmuser_drv_cpu_reenable(unsigned int cpu)
{
	struct pmuser_drv_cpu *pc = per_cpu_ptr(&pmuser_drv_pcpu, cpu);
	unsigned int slot;

	for (slot = 0; slot < PMUSER_DRV_NR_SLOTS; slot++) {
		struct perf_event *event = pc->ctr[slot].event;

		if (event && READ_ONCE(event->state) == PERF_EVENT_STATE_ERROR)
			perf_event_enable(event);
	}
}

void pmuser_drv_counters_fill_cpu_info(struct pmuser_cpu_info *ci)
{
	struct pmuser_drv_place_req req = {};

	mutex_lock(&pmuser_drv_cfg_lock);
	if (pmuser_drv_owner && cpumask_test_cpu(ci->cpu, &pmuser_drv_cpus)) {
		pmuser_drv_cpu_reenable(ci->cpu);
		smp_call_function_single(ci->cpu, pmuser_drv_cpu_place, &req, 1);
	} else {
		req.seq = READ_ONCE(pmuser_drv_page_cpu(ci->cpu)->seq);
	}
	mutex_unlock(&pmuser_drv_cfg_lock);
	ci->held_mask = req.held_mask;
	ci->unplaced = req.unplaced;
	ci->page_seq = req.seq;
}

/*
 * The page is data only pmuser writes: mapped read-only, never writable or executable, then
 * or later (mprotect() fails). A process whose personality makes every readable mapping
 * executable (READ_IMPLIES_EXEC) asked for no exec itself: its mapping is made without it,
 * and its mprotect(PROT_READ) adds none (the kernel adds exec only with VM_MAYEXEC).
 */
int pmuser_drv_counters_mmap(struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if ((vma->vm_flags & VM_EXEC) && !(current->personality & READ_IMPLIES_EXEC))
		return -EPERM;
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start > PAGE_ALIGN(pmuser_drv_page_bytes))
		return -EINVAL;
	pmuser_drv_compat_vm_flags_clear(vma, VM_MAYWRITE | VM_EXEC | VM_MAYEXEC);
	vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
	return remap_vmalloc_range(vma, pmuser_drv_page, 0);
}

static int pmuser_drv_cpu_online(unsigned int cpu)
{
	int ret;

	pmuser_drv_access_learn_pmu(cpu);
	pmuser_drv_access_cpu_up();
	mutex_lock(&pmuser_drv_cfg_lock);
	if (pmuser_drv_owner && cpumask_test_cpu(cpu, &pmuser_drv_cpus)) {
		ret = pmuser_drv_cpu_setup(cpu);
		if (ret)
			pr_warn("pmuser: cpu%u: counters not re-established (%d)\n", cpu, ret);
	}
	mutex_unlock(&pmuser_drv_cfg_lock);
	pmuser_drv_release_dead();
	return 0;
}

static int pmuser_drv_cpu_offline(unsigned int cpu)
{
	mutex_lock(&pmuser_drv_cfg_lock);
	pmuser_drv_cpu_teardown(cpu);
	mutex_unlock(&pmuser_drv_cfg_lock);
	pmuser_drv_release_dead();
	pmuser_drv_access_cpu_down();
	return 0;
}

/*
 * After a CPU power-down perf's own notifier resets the counters and starts the events again
 * (all ones: their overflow republishes them); only user access needs restoring here.
 */
static int pmuser_drv_cpu_pm_notify(struct notifier_block *nb, unsigned long action, void *v)
{
	if (action == CPU_PM_EXIT || action == CPU_PM_ENTER_FAILED)
		pmuser_drv_access_cpu_up();
	return NOTIFY_OK;
}

static struct notifier_block pmuser_drv_cpu_pm_nb = {
	.notifier_call = pmuser_drv_cpu_pm_notify,
};

int pmuser_drv_counters_init(void)
{
	unsigned int cpu;
	int ret;

	BUILD_BUG_ON(sizeof(struct pmuser_page_cpu) > PMUSER_DRV_PAGE_STRIDE);
	/*
	 * With pseudo-NMIs perf's overflow handler can interrupt a cross-call that is writing
	 * the same CPU's page record; pmuser relies on interrupts-off excluding it.
	 */
	if (pmuser_drv_compat_pseudo_nmi()) {
		pr_err("pmuser: the PMU interrupt may be a pseudo-NMI here (irqchip.gicv3_pseudo_nmi=1): not supported\n");
		return -EOPNOTSUPP;
	}
	for_each_possible_cpu(cpu)
		pmuser_drv_compat_hrtimer_setup(&per_cpu_ptr(&pmuser_drv_pcpu, cpu)->poll,
						pmuser_drv_poll);
	pmuser_drv_page_bytes = PAGE_ALIGN(nr_cpu_ids * PMUSER_DRV_PAGE_STRIDE);
	pmuser_drv_page = vmalloc_user(pmuser_drv_page_bytes);
	if (!pmuser_drv_page)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		unsigned int slot;

		for (slot = 0; slot < PMUSER_DRV_NR_SLOTS; slot++)
			pmuser_drv_page_cpu(cpu)->slot[slot].hw = PMUSER_HW_NONE;
		pmuser_drv_page_cpu(cpu)->away = U32_MAX;
	}
	for_each_kernel_tracepoint(pmuser_drv_find_switch_tp, NULL);
	if (!pmuser_drv_switch_tp) {
		pr_err("pmuser: no sched_switch tracepoint (CONFIG_TRACEPOINTS): windows another thread ran in could not be flagged\n");
		ret = -EOPNOTSUPP;
		goto err_page;
	}
	ret = tracepoint_probe_register(pmuser_drv_switch_tp, pmuser_drv_switch_probe, NULL);
	if (ret)
		goto err_page;
	ret = cpu_pm_register_notifier(&pmuser_drv_cpu_pm_nb);
	if (ret)
		goto err_switch;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pmuser:online",
				pmuser_drv_cpu_online, pmuser_drv_cpu_offline);
	if (ret < 0)
		goto err_pm;
	pmuser_drv_hp_state = ret;
	return 0;

err_pm:
	cpu_pm_unregister_notifier(&pmuser_drv_cpu_pm_nb);
err_switch:
	tracepoint_probe_unregister(pmuser_drv_switch_tp, pmuser_drv_switch_probe, NULL);
	tracepoint_synchronize_unregister();
err_page:
	vfree(pmuser_drv_page);
	return ret;
}

void pmuser_drv_counters_exit(void)
{
	cpuhp_remove_state(pmuser_drv_hp_state);
	cpu_pm_unregister_notifier(&pmuser_drv_cpu_pm_nb);
	mutex_lock(&pmuser_drv_cfg_lock);
	pmuser_drv_teardown_all();
	WRITE_ONCE(pmuser_drv_owner, NULL);
	mutex_unlock(&pmuser_drv_cfg_lock);
	pmuser_drv_release_dead();
	tracepoint_probe_unregister(pmuser_drv_switch_tp, pmuser_drv_switch_probe, NULL);
	/* No CPU runs the probe, which writes the page, any more. */
	tracepoint_synchronize_unregister();
	vfree(pmuser_drv_page);
}
