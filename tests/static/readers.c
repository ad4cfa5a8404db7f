// SPDX-License-Identifier: MIT
/*
 * One function per hardware counter index, each a single inline read. The static test
 * disassembles this object and checks every function reads the register its index names,
 * and that a constant read of n counters is the barrier, n reads and the barrier.
 */
#include "pmuser.h"

#define READER(n)							\
	uint64_t read_counter_##n(void);				\
	uint64_t read_counter_##n(void) { return pmuser_counter_read(n); }

READER(0) READER(1) READER(2) READER(3) READER(4) READER(5) READER(6) READER(7)
READER(8) READER(9) READER(10) READER(11) READER(12) READER(13) READER(14) READER(15)
READER(16) READER(17) READER(18) READER(19) READER(20) READER(21) READER(22) READER(23)
READER(24) READER(25) READER(26) READER(27) READER(28) READER(29) READER(30)
READER(31)

#if defined(PMUSER_FAST_V7)
/* PMUv3 in AArch32: the direct PMEVCNTR<n> registers. */
#define READER_V3(n)							\
	uint64_t read_pmuv3_##n(void);					\
	uint64_t read_pmuv3_##n(void) { return pmuser_counter_read_pmuv3(n); }

READER_V3(0) READER_V3(1) READER_V3(2) READER_V3(3) READER_V3(4) READER_V3(5) READER_V3(6)
READER_V3(7) READER_V3(8) READER_V3(9) READER_V3(10) READER_V3(11) READER_V3(12)
READER_V3(13) READER_V3(14) READER_V3(15) READER_V3(16) READER_V3(17) READER_V3(18)
READER_V3(19) READER_V3(20) READER_V3(21) READER_V3(22) READER_V3(23) READER_V3(24)
READER_V3(25) READER_V3(26) READER_V3(27) READER_V3(28) READER_V3(29) READER_V3(30)
READER_V3(31)
#endif

uint64_t read_cycles(void);
uint64_t read_cycles(void)
{
	return pmuser_cycles_read();
}

uint64_t read_cycles_serial(void);
uint64_t read_cycles_serial(void)
{
	return pmuser_cycles_read_serial();
}

void read_n3(uint64_t values[3]);
void read_n3(uint64_t values[3])
{
	static const unsigned int hw[] = { PMUSER_HW_CYCLE, 0, 1 };

	pmuser_counter_read_n(3, hw, values);
}
