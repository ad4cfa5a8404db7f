// SPDX-License-Identifier: MIT
/*
 * libFuzzer entry point for the pmu-sweep CSV reader (pmu-sweep --from); built and run by
 * tests/fuzz/run.sh. Whatever it accepts must keep the format's promises, be something tier
 * detection takes, and write back out.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sweepcsv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tiers_result res;
	struct sweepcsv s;
	char err[128], *text = NULL;
	size_t len = 0, i;
	FILE *in, *out;
	int ret;

	in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	ret = sweepcsv_read(in, &s, err, sizeof(err));
	fclose(in);
	if (ret)
		return 0;
	if (s.n < TIERS_MIN_POINTS)
		abort();
	for (i = 0; i < s.n; i++)
		if ((i && s.pts[i].size <= s.pts[i - 1].size) || !isfinite(s.pts[i].latency))
			abort();
	for (i = 0; i < s.n && s.pts[i].latency > 0; i++)
		;
	/* Tiers come from positive latencies only; the rest is refused, not a crash. */
	if (i == s.n ? tiers_detect(s.pts, s.n, &res) || !res.n || res.n > TIERS_MAX :
	    tiers_detect(s.pts, s.n, &res) != -EINVAL)
		abort();
	out = open_memstream(&text, &len);
	if (out) {
		if (sweepcsv_write(out, &s))
			abort();
		fclose(out);
		free(text);
	}
	sweepcsv_free(&s);
	return 0;
}
