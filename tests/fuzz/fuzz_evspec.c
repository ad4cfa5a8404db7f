// SPDX-License-Identifier: MIT
/*
 * libFuzzer entry point for pmuser_evspec_parse(); built and run by tests/fuzz/run.sh.
 *
 * Input: byte 0 picks the core, byte 1 the entry limit and the size of the message buffer,
 * the rest is the spec. Besides not crashing, the parser must keep its promises: entries
 * within the limit and well formed, a NUL-terminated message on every error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmuser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint32_t midrs[] = {
	0, 0x410fd034, 0x410fd083, 0x414fd0b1, 0x410fc075, 0x412fc0f3, 0x410fb767, 0x410fb022,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmuser_evspec_entry out[PMUSER_MAX_EVENTS];
	const struct pmuser_event *ev;
	size_t max, errlen, count = 0, i;
	char err[96], *spec;
	uint32_t midr;
	int ret;

	if (size < 2)
		return 0;
	midr = midrs[data[0] % (sizeof(midrs) / sizeof(midrs[0]))];
	max = data[1] % 8;
	errlen = (size_t)(data[1] >> 3) * 3;	/* 0..93: includes none and too small */
	/* An exact-size copy, so reading past the terminator is caught by ASan. */
	spec = malloc(size - 1);
	if (!spec)
		return 0;
	memcpy(spec, data + 2, size - 2);
	spec[size - 2] = '\0';

	memset(err, 'x', sizeof(err));
	ret = pmuser_evspec_parse(spec, midr, max ? out : NULL, max, &count, errlen ? err : NULL,
				  errlen);
	if (ret == 0) {
		if (count < 1 || count > max)
			abort();
		for (i = 0; i < count; i++) {
			if (out[i].event > 0xffff || !out[i].flags ||
			    (out[i].flags & ~PMUSER_COUNT_MASK))
				abort();
			/* A canonical name must name the same event. */
			if (out[i].name && (pmuser_event_lookup(midr, out[i].name, &ev) ||
					    ev->number != out[i].event))
				abort();
		}
	} else {
		if (ret != -EINVAL && ret != -ENOENT && ret != -ERANGE && ret != -E2BIG)
			abort();
		if (errlen && !memchr(err, '\0', errlen))
			abort();
		if (errlen > 1 && !err[0])
			abort();
	}
	free(spec);
	return 0;
}
