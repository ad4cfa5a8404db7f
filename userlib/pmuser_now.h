/* SPDX-License-Identifier: MIT */
/*
 * The one reading of a clock in nanoseconds, for the library, the tools and the tests. An
 * internal header: not installed, and static inline, so the library exports nothing for it.
 */
#ifndef PMUSER_NOW_H
#define PMUSER_NOW_H

#include <stdint.h>
#include <time.h>

/*
 * clock in nanoseconds. Each user names the clock it needs: CLOCK_MONOTONIC for the tools'
 * and tests' budgets, periods and durations (guest time under emulation), CLOCK_MONOTONIC_RAW
 * for what must not be slewed (the library's clock backend, pmu-overhead's round trips).
 */
static inline uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
