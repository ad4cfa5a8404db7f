// SPDX-License-Identifier: MIT
/*
 * A program from outside the tree, built only against an installed pmuser (pkg-config
 * pmuser): it holds the cycle counter and INST_RETIRED through the library, times a loop of
 * known length with a region, and prints the backend and the counts. tests/guest/test_install
 * runs it as a member of the pmuser group.
 */
#include <pmuser.h>
#include <stdio.h>

int main(void)
{
	struct pmuser_counters_attr attr;
	struct pmuser_counters *c;
	struct pmuser_region r;
	char why[256];
	int ret;

	pmuser_counters_attr_init(&attr);
	attr.flags = PMUSER_COUNTERS_CYCLES;
	attr.nr_events = 1;
	attr.events[0].event = 0x08;	/* INST_RETIRED */
	ret = pmuser_counters_open(&attr, &c, why, sizeof(why));
	if (ret) {
		fprintf(stderr, "pmuser-oot: %s\n", why);
		return 1;
	}
	pmuser_region_start(c, &r);
	for (volatile unsigned int i = 0; i < 1000; i++)
		;
	pmuser_region_stop(c, &r);
	printf("backend %s valid %d cycles %llu inst %llu\n",
	       pmuser_backend_name(pmuser_counters_backend(c)), r.valid,
	       (unsigned long long)r.raw[0], (unsigned long long)r.raw[1]);
	pmuser_counters_close(c);
	return 0;
}
