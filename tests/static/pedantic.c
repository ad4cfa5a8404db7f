// SPDX-License-Identifier: MIT
/*
 * <pmuser.h> alone, with each of its inline functions called once: the static test builds
 * this under -std=c11 -pedantic -Wall -Wextra -Werror at -O0, where only the functions called
 * are compiled, and at -O2, for every instruction set of the fast path.
 */
#include "pmuser.h"

uint64_t use_every_inline(const struct pmuser_page *pg, const volatile struct pmuser_page_slot *s,
			  uint64_t values[2]);
uint64_t use_every_inline(const struct pmuser_page *pg, const volatile struct pmuser_page_slot *s,
			  uint64_t values[2])
{
	static const unsigned int hw[] = { PMUSER_HW_CYCLE, 0 };
	uint64_t sum;

	sum = pmuser_cycles_read() + pmuser_cycles_read_serial();
	sum += pmuser_counter_read(1) + pmuser_counter_read_serial(2);
#if defined(PMUSER_FAST_V7)
	sum += pmuser_counter_read_pmuv3(3);
#endif
	pmuser_counter_read_n(2, hw, values);
	sum += (uint64_t)pmuser_thread_cpu();
	sum += pmuser_page_cpu(pg, 0)->seq;
	sum += pmuser_page_mask(s) + pmuser_page_value(s, values[1]);
	return pmuser_page_raw_usable(s, values[0]) ? sum : 0;
}
