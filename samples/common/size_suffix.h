/* SPDX-License-Identifier: MIT */
/* The size suffixes every tool accepts, in one place. */
#ifndef PMUSER_SIZE_SUFFIX_H
#define PMUSER_SIZE_SUFFIX_H

#include <strings.h>

/*
 * The shift a size suffix stands for: "" 0; K, KB, KiB 10; M, MB, MiB 20; G, GB, GiB 30, in
 * any case (binary units throughout, as cache sizes are). -1 for anything else.
 */
static inline int size_suffix_shift(const char *suffix)
{
	static const struct { const char *suffix; int shift; } units[] = {
		{ "", 0 }, { "K", 10 }, { "KB", 10 }, { "KiB", 10 }, { "M", 20 }, { "MB", 20 },
		{ "MiB", 20 }, { "G", 30 }, { "GB", 30 }, { "GiB", 30 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(suffix, units[i].suffix))
			return units[i].shift;
	return -1;
}

#endif /* PMUSER_SIZE_SUFFIX_H */
