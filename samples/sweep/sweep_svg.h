/* SPDX-License-Identifier: MIT */
/* pmu-sweep's plot of latency against working-set size. */
#ifndef PMUSER_SWEEP_SVG_H
#define PMUSER_SWEEP_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "tiers.h"

/*
 * SVG plot: latency (log2 axis) against size (log2 axis), points joined, tiers drawn as
 * dashed plateaus with labels and a vertical mark at each capacity. res may be NULL.
 */
int sweep_svg_write(FILE *f, const struct tiers_point *pts, size_t n, const char *unit,
		    const struct tiers_result *res, const char *title);

#endif
