// SPDX-License-Identifier: MIT
/* The backends by name: what pmuser_backend_parse() takes and the reports print. */
#include <errno.h>
#include <string.h>

#include "pmuser.h"

static const char *const backend_names[] = {
	[PMUSER_BACKEND_AUTO] = "auto",
	[PMUSER_BACKEND_MODULE] = "module",
	[PMUSER_BACKEND_PERF_MMAP] = "perf-mmap",
	[PMUSER_BACKEND_PERF_READ] = "perf-read",
	[PMUSER_BACKEND_CLOCK] = "clock",
};

const char *pmuser_backend_name(enum pmuser_backend backend)
{
	if ((unsigned int)backend < sizeof(backend_names) / sizeof(backend_names[0]))
		return backend_names[backend];
	return "unknown";
}

const char *pmuser_backend_invalid_why(enum pmuser_backend backend)
{
	switch (backend) {
	case PMUSER_BACKEND_MODULE:
		/* The counters count every thread on their CPU, and perf owns them. */
		return "another thread kept running on the CPU, or perf kept reloading or moving the counters";
	case PMUSER_BACKEND_PERF_MMAP:
	case PMUSER_BACKEND_PERF_READ:
		/* perf counts per thread: only its scheduling of the events disturbs a region. */
		return "perf kept the events off the counters: other perf users' events hold them (perf schedules CPU-wide events before per-task ones), or perf is multiplexing the events";
	default:
		return "nothing disturbs this backend's regions";
	}
}

int pmuser_backend_parse(const char *name, enum pmuser_backend *out)
{
	unsigned int i;

	for (i = 0; i < sizeof(backend_names) / sizeof(backend_names[0]); i++) {
		if (!strcmp(name, backend_names[i])) {
			*out = (enum pmuser_backend)i;
			return 0;
		}
	}
	return -EINVAL;
}
