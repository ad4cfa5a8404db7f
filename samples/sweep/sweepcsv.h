/* SPDX-License-Identifier: MIT */
/*
 * The pmu-sweep CSV format, saved by pmu-sweep and re-analysed by pmu-sweep --from FILE:
 *
 *	# pmu-sweep v1 unit=cycles		first line; unit=cycles or unit=ns
 *	# cpu=cortex-a72			optional comment lines (key=value metadata)
 *	size_bytes,latency			column header; further columns are ignored
 *	2048,3.19				rows: size in bytes, latency per load
 *
 * Sizes must be positive integers, strictly increasing; latencies finite and > 0; at least
 * TIERS_MIN_POINTS rows. Blank lines are skipped and '#' lines may appear anywhere after
 * the first line.
 */
#ifndef PMUSER_SWEEPCSV_H
#define PMUSER_SWEEPCSV_H

#include <stddef.h>
#include <stdio.h>

#include "tiers.h"

enum sweepcsv_unit { SWEEPCSV_CYCLES, SWEEPCSV_NS };

struct sweepcsv {
	enum sweepcsv_unit unit;
	struct tiers_point *pts;
	size_t n;
	char **meta;		/* comment lines without the leading "# "; no newlines */
	size_t nmeta;
};

/* "cycles" or "ns". */
const char *sweepcsv_unit_name(enum sweepcsv_unit unit);

/*
 * Parses f into *out (free with sweepcsv_free): sizes increase, latencies are finite (0 or
 * less where the timer did not resolve a size). Returns 0; -EINVAL with "line N: reason"
 * (or just the reason) in err; an errno of the read; -ENOMEM. On failure *out is empty.
 */
int sweepcsv_read(FILE *f, struct sweepcsv *out, char *err, size_t errlen);

/* Returns 0 or -EIO. */
int sweepcsv_write(FILE *f, const struct sweepcsv *s);

void sweepcsv_free(struct sweepcsv *s);

#endif
