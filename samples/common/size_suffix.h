/* SPDX-License-Identifier: MIT */
/* The size suffixes every tool accepts and prints, in one place. */
#ifndef PMUSER_SIZE_SUFFIX_H
#define PMUSER_SIZE_SUFFIX_H

#include <stdint.h>
#include <stdio.h>
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

/* "32 KiB", "1536 KiB", "4 MiB", "100 B" in buf: the largest binary unit that divides exactly. */
static inline const char *size_format(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;

	while (bytes && bytes % 1024 == 0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)bytes, units[u]);
	return buf;
}

#endif /* PMUSER_SIZE_SUFFIX_H */
