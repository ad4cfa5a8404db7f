// SPDX-License-Identifier: MIT
/*
 * One function per hardware counter index, each a single inline read. The static test
 * disassembles this object and checks every function reads the register its index names.
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
