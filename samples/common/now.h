/* SPDX-License-Identifier: MIT */
/* The tools' wall clock: CLOCK_MONOTONIC in nanoseconds (budgets, periods, progress). */
#ifndef PMUSER_SAMPLES_NOW_H
#define PMUSER_SAMPLES_NOW_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
