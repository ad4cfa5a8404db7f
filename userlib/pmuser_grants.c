// SPDX-License-Identifier: MIT
/*
 * Which reader path is safe for a module-backend set, from what the module reports perf
 * grants EL0 on each CPU (struct pmuser_cpu_info). A pure function: no system calls, so host
 * tests feed it recorded states.
 *
 * arm64, where perf owns PMUSERENR_EL0 and sets it while a granted thread runs:
 * - ER lets EL0 read every event counter, CR the cycle counter (EN both, and writes).
 * - With UEN set (FEAT_PMUv3p9, perf from Linux 6.13), ER and CR no longer grant reads:
 *   PMUACR_EL1 does, counter by counter, and perf puts there only the counters of the
 *   running thread's own user-readable events. pmuser's CPU-wide counters are never among
 *   them, so the set needs the per-task perf backend there.
 * - A core perf keeps off PMCCNTR_EL0 (PMUSER_CPU_EL0_CYCLES_OFF_PMCCNTR) gets no CR: cycles
 *   are then read from an event counter that counts CPU_CYCLES.
 * A state read while the thread was not granted shows none of EN, ER, CR or UEN: it is
 * predicted from the core's flags as Linux 7.3 would grant it (UEN with an empty PMUACR on
 * PMUv3p9, no CR where perf keeps cycles off PMCCNTR).
 *
 * 32-bit ARM: the module sets the user-enable register itself for granted threads.
 */
#include <stdio.h>

#include "pmuser_internal.h"

#define UE_EN	0x01u
#define UE_SW	0x02u
#define UE_CR	0x04u
#define UE_ER	0x08u
#define UE_UEN	0x10u
#define ACR_CYCLES	(1ull << 31)

/* The grant as perf makes it for a granted thread: recorded, or predicted from the flags. */
static void grant_effective(const struct pmuser__grant_state *s, uint32_t *ue, uint64_t *acr,
			    bool *predicted)
{
	*ue = s->user_enable;
	*acr = s->pmuacr;
	*predicted = !(*ue & (UE_EN | UE_ER | UE_CR | UE_UEN));
	if (!*predicted)
		return;
	*ue = UE_ER;
	*acr = 0;
	if (!(s->el0_flags & PMUSER_CPU_EL0_CYCLES_OFF_PMCCNTR))
		*ue |= UE_CR;
	if (s->el0_flags & PMUSER_CPU_EL0_PMUV3P9)
		*ue |= UE_UEN;
}

/* PMUv3p9 with UEN: PMUACR_EL1 alone says which counters EL0 reads. */
static enum pmuser__reader_path decide_pmuacr(const struct pmuser__grant_state *s, uint64_t acr,
					      const struct pmuser__grant_need *need,
					      bool predicted, char *why, size_t whylen)
{
	uint64_t want = need->event_mask | (need->cycles ? ACR_CYCLES : 0);

	if ((acr & want) == want) {
		snprintf(why, whylen, "cpu %u: PMUv3p9: PMUACR_EL1 0x%llx grants the set's counters",
			 s->cpu, (unsigned long long)acr);
		return PMUSER__PATH_INLINE;
	}
	snprintf(why, whylen,
		 "cpu %u: PMUv3p9 per-counter EL0 access (PMUSERENR_EL0.UEN): perf lets EL0 read only the counters of the thread's own user-readable events (PMUACR_EL1 0x%llx%s), not the module's CPU-wide counters (0x%llx): use the perf per-task backend",
		 s->cpu, (unsigned long long)acr, predicted ? " as Linux 7.3 sets it" : "",
		 (unsigned long long)want);
	return PMUSER__PATH_PERF_TASK;
}

/* One arm64 CPU. */
static enum pmuser__reader_path decide_a64(const struct pmuser__grant_state *s,
					   const struct pmuser__grant_need *need, char *why,
					   size_t whylen)
{
	uint32_t ue;
	uint64_t acr;
	bool predicted;

	grant_effective(s, &ue, &acr, &predicted);
	if ((ue & UE_UEN) && (s->el0_flags & PMUSER_CPU_EL0_PMUV3P9))
		return decide_pmuacr(s, acr, need, predicted, why, whylen);
	if (need->event_mask && !(ue & (UE_ER | UE_EN))) {
		snprintf(why, whylen,
			 "cpu %u: perf grants no event counter reads (PMUSERENR_EL0 0x%x): use the perf per-task backend",
			 s->cpu, ue);
		return PMUSER__PATH_PERF_TASK;
	}
	if (!need->cycles || (ue & (UE_CR | UE_EN))) {
		snprintf(why, whylen, "cpu %u: PMUSERENR_EL0 0x%x%s grants the set's counters",
			 s->cpu, ue, predicted ? " (predicted)" : "");
		return PMUSER__PATH_INLINE;
	}
	if ((ue & UE_ER) && (unsigned int)__builtin_popcount(need->event_mask) < s->nr_counters) {
		snprintf(why, whylen,
			 "cpu %u: no PMCCNTR_EL0 reads (PMUSERENR_EL0.CR clear%s): cycles from an event counter counting CPU_CYCLES",
			 s->cpu, s->el0_flags & PMUSER_CPU_EL0_CYCLES_OFF_PMCCNTR ?
			 ": perf keeps cycles off PMCCNTR on this core" : "");
		return PMUSER__PATH_CYCLES_EVENT;
	}
	snprintf(why, whylen,
		 "cpu %u: cycles not readable inline: PMUSERENR_EL0.CR clear and no event counter left for CPU_CYCLES: use the perf per-task backend",
		 s->cpu);
	return PMUSER__PATH_PERF_TASK;
}

enum pmuser__reader_path pmuser__reader_decide(const struct pmuser__grant_state cpus[],
					       unsigned int n,
					       const struct pmuser__grant_need *need, char *why,
					       size_t whylen)
{
	enum pmuser__reader_path worst = PMUSER__PATH_INLINE, p;
	char one[320];
	unsigned int i;

	if (why && whylen)
		why[0] = '\0';
	for (i = 0; i < n; i++) {
		if (cpus[i].arch != PMUSER_ARCH_ARMV8_A64) {
			snprintf(one, sizeof(one),
				 "cpu %u: 32-bit ARM: the module sets the user-enable register for granted threads",
				 cpus[i].cpu);
			p = PMUSER__PATH_INLINE;
		} else {
			p = decide_a64(&cpus[i], need, one, sizeof(one));
		}
		if ((i == 0 || p > worst) && why && whylen)
			snprintf(why, whylen, "%s", one);
		if (p > worst)
			worst = p;
	}
	return worst;
}
