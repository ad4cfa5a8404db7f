// SPDX-License-Identifier: MIT
/*
 * pmu-hello: the smallest complete pmuser program. Holds the cycle counter and
 * INST_RETIRED, gets inline read access for this thread, and times a loop with one
 * instruction per read.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pmuser.h"
#include "tool_opts.h"

int main(int argc, char **argv)
{
	static const struct tool_opt opts[] = { { NULL } };
	static const struct tool_cli cli = {
		.tool = "pmu-hello", .opts = opts,
		.about = "Holds the cycle counter and INST_RETIRED, grants this thread inline reads and\n"
			 "times a loop with one read per iteration.",
	};
	struct pmuser_config cfg = {
		.flags = PMUSER_CONFIG_CYCLES,
		.cycle_flags = PMUSER_COUNT_USER,
		.nr_events = 1,
		.events = { { .event = 0x08 /* INST_RETIRED */, .flags = PMUSER_COUNT_USER } },
	};
	uint64_t c0, i0, c1, i1;
	volatile unsigned int sink = 0;
	unsigned int hw, k;
	char why[256];
	int fd, ret, first;

	ret = tool_parse(&cli, argc, argv, &first);
	if (ret >= 0)
		return ret;
#if defined(PMUSER_FAST_V6)
	/* ARM1176 counts every mode; it has no filter. */
	cfg.cycle_flags = cfg.events[0].flags = PMUSER_COUNT_MASK;
#endif
	fd = pmuser_device_open();
	if (fd < 0) {
		fprintf(stderr, "pmu-hello: %s: %s\n", PMUSER_DEVICE, strerror(-fd));
		return 1;
	}
	ret = pmuser_device_configure(fd, &cfg);
	if (ret) {
		fprintf(stderr, "pmu-hello: PMUSER_IOC_CONFIGURE: %s\n",
			pmuser_device_why(PMUSER_IOC_CONFIGURE, ret, why, sizeof(why)));
		return 1;
	}
	ret = pmuser_device_grant(fd, 0);
	if (ret) {
		fprintf(stderr, "pmu-hello: PMUSER_IOC_GRANT: %s\n",
			pmuser_device_why(PMUSER_IOC_GRANT, ret, why, sizeof(why)));
		return 1;
	}
	hw = cfg.events[0].hw_counter;
	printf("INST_RETIRED is on hardware counter %u, cycles on the cycle counter\n", hw);
	for (k = 1000; k <= 1000000; k *= 10) {
		unsigned int j;

		c0 = pmuser_cycles_read_serial();
		i0 = pmuser_counter_read_serial(hw);
		for (j = 0; j < k; j++)
			sink += j;
		i1 = pmuser_counter_read_serial(hw);
		c1 = pmuser_cycles_read_serial();
		printf("loop of %7u: %9llu instructions, %9llu cycles\n", k,
		       (unsigned long long)(uint32_t)(i1 - i0), (unsigned long long)(c1 - c0));
	}
	close(fd);
	return 0;
}
