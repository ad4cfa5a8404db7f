// SPDX-License-Identifier: MIT
/*
 * pmu-hello: the smallest complete pmuser program, to copy (<pmuser.h> alone: cc -O2 pmu-hello.c
 * $(pkg-config --cflags --libs pmuser)). It holds the cycle counter and INST_RETIRED, reads
 * them inline around loops and prints only the deltas the counter page vouches for as exact.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <pmuser.h>

#ifndef PMUSER_VERSION
#define PMUSER_VERSION "(unknown version)"	/* the Makefile passes the package's */
#endif

static const char usage[] =
	"usage: pmu-hello [options]\n"
	"Times loops with inline reads of the cycle counter and INST_RETIRED. Prints only the\n"
	"counts the counter page vouches for: one CPU, no switch, no reload in between.\n"
	"      --version     print the tool's name and version\n"
	"  -h, --help        this text\n";
static volatile unsigned int sink;

/* Cycles and instructions of a loop of n iterations into d[]; false if 100 windows failed. */
static bool measure(const struct pmuser_page *pg, const unsigned int hw[2], unsigned int n,
		    uint64_t d[2])
{
	static const unsigned int slot[2] = { PMUSER_PAGE_CYCLE_SLOT, 0 };	/* 0: events[0] */

	for (int tries = 0; tries < 100; tries++) {
		struct pmuser_page_mark m = pmuser_page_mark(pg);	/* before the first read */
		uint64_t a[2], b[2];

		pmuser_counter_read_n(2, hw, a);
		for (unsigned int j = 0; j < n; j++)
			sink += j;
		pmuser_counter_read_n(2, hw, b);
		/*
		 * After the last read: one CPU, no switch, nothing republished, perf still has
		 * each event on hw[i] and reloaded it before neither read; d[] at the slots' width.
		 */
		if (pmuser_page_delta(pg, m, slot, hw, 2, a, b, d))
			return true;
	}
	return false;
}

/* Says what failed and why (an ioctl's error as the library explains it); returns 1. */
static int fail(const char *what, unsigned long request, int err)
{
	char why[320];

	fprintf(stderr, "pmu-hello: %s: %s\n", what,
		request ? pmuser_device_why(request, err, why, sizeof(why)) : strerror(-err));
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' }, { 0 }
	};
	struct pmuser_config cfg = {
		.flags = PMUSER_CONFIG_CYCLES, .cycle_flags = PMUSER_COUNT_USER, .nr_events = 1,
		.events = { { .event = 0x08 /* INST_RETIRED */, .flags = PMUSER_COUNT_USER } },
	};
	struct pmuser_page pg;
	unsigned int hw[2];
	uint64_t d[2];
	int fd, ret, opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == '?')
			return 2;	/* getopt_long() said which option, and what is wrong */
		if (opt == 'h')
			fputs(usage, stdout);
		else
			printf("pmu-hello %s\n", PMUSER_VERSION);
		return fflush(stdout) ? fail("writing standard output", 0, -errno) : 0;
	}
	if (optind < argc) {
		fprintf(stderr, "pmu-hello: unexpected operand '%s' (see --help)\n", argv[optind]);
		return 2;
	}
#if defined(PMUSER_FAST_V6)
	cfg.cycle_flags = cfg.events[0].flags = PMUSER_COUNT_MASK;	/* ARM1176: no filter */
#endif
	fd = pmuser_device_open();
	if (fd < 0)
		return fail(PMUSER_DEVICE, 0, fd);
	ret = pmuser_device_configure(fd, &cfg);
	if (ret)
		return fail("PMUSER_IOC_CONFIGURE", PMUSER_IOC_CONFIGURE, ret);
	ret = pmuser_page_map(fd, &pg);
	if (ret)
		return fail("mapping the counter page", 0, ret);
	ret = pmuser_device_grant(fd, 0);	/* this thread only */
	if (ret)
		return fail("PMUSER_IOC_GRANT", PMUSER_IOC_GRANT, ret);
	/* On one CPU, fewer windows fail, and the probe below holds for every read. */
	ret = pmuser_thread_pin(pmuser_thread_cpu());
	if (ret)
		return fail("pinning the thread to its CPU", 0, ret);
	hw[0] = cfg.cycle_hw_counter;
	hw[1] = cfg.events[0].hw_counter;
	for (int i = 0; !ret && i < 2; i++)
		ret = pmuser_counter_probe(hw[i], &d[i]);	/* -EPERM: the read traps */
	if (ret)
		return fail("an inline counter read on this CPU", 0, ret);
	for (unsigned int n = 1000; n <= 1000000; n *= 10) {
		if (!measure(&pg, hw, n, d))
			return fail("100 windows in a row were switched out, moved or reloaded", 0,
				    -EAGAIN);
		printf("loop of %7u: %9llu instructions, %9llu cycles\n", n,
		       (unsigned long long)d[1], (unsigned long long)d[0]);
	}
	pmuser_page_unmap(&pg);
	close(fd);	/* drops the grant and the counters */
	return fflush(stdout) ? fail("writing standard output", 0, -errno) : 0;
}
