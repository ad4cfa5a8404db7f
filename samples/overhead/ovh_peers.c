// SPDX-License-Identifier: MIT
/*
 * pmu-overhead's real peers, reading cycles, INST_RETIRED user-only and INST_RETIRED
 * user+kernel of the calling thread through their own APIs: Linux's libperf
 * (perf_evsel__read(), which self-reads through the event's mmap page where the kernel lets
 * it) and PAPI (PAPI_read() of one event set).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovh_peers.h"

#define PEER_EVENTS 3

#if defined(PMUSER_HAVE_LIBPERF)
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#endif
#if defined(PMUSER_HAVE_PAPI)
#include <papi.h>
#endif

struct ovh_peer {
	enum { PEER_LIBPERF, PEER_PAPI } kind;
	char detail[64];
#if defined(PMUSER_HAVE_LIBPERF)
	struct perf_thread_map *threads;
	struct perf_evsel *evsel[PEER_EVENTS];
	struct perf_counts_values counts[PEER_EVENTS];
#endif
#if defined(PMUSER_HAVE_PAPI)
	int eventset;
	long long values[PEER_EVENTS];
#endif
};

#if defined(PMUSER_HAVE_LIBPERF)
static int libperf_quiet(enum libperf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static void libperf_free(struct ovh_peer *p)
{
	unsigned int i;

	for (i = 0; i < PEER_EVENTS; i++) {
		if (!p->evsel[i])
			continue;
		perf_evsel__munmap(p->evsel[i]);
		perf_evsel__close(p->evsel[i]);
		perf_evsel__delete(p->evsel[i]);
	}
	if (p->threads)
		perf_thread_map__put(p->threads);
	free(p);
}

struct ovh_peer *ovh_libperf_open(char *why, size_t len)
{
	/* CPU_CYCLES and INST_RETIRED as raw ARM events; :u excludes the kernel. */
	static const struct { uint64_t config; int exclude_kernel; } ev[PEER_EVENTS] = {
		{ 0x11, 0 }, { 0x08, 1 }, { 0x08, 0 },
	};
	struct ovh_peer *p = calloc(1, sizeof(*p));
	unsigned int i;
	int ret;

	if (!p) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	p->kind = PEER_LIBPERF;
	libperf_init(libperf_quiet);
	p->threads = perf_thread_map__new_dummy();
	if (!p->threads) {
		snprintf(why, len, "libperf: perf_thread_map__new_dummy failed");
		goto err;
	}
	perf_thread_map__set_pid(p->threads, 0, 0);
	for (i = 0; i < PEER_EVENTS; i++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_RAW,
			.size = sizeof(attr),
			.config = ev[i].config,
			/* arm64: the event's counter readable at EL0 (PMU format "rdpmc"). */
			.config1 = 0x2,
			.exclude_kernel = ev[i].exclude_kernel,
			.exclude_hv = ev[i].exclude_kernel,
			.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				       PERF_FORMAT_TOTAL_TIME_RUNNING,
		};

		p->evsel[i] = perf_evsel__new(&attr);
		if (!p->evsel[i]) {
			snprintf(why, len, "libperf: perf_evsel__new failed");
			goto err;
		}
		ret = perf_evsel__open(p->evsel[i], NULL, p->threads);
		if (ret) {
			snprintf(why, len, "libperf: perf_evsel__open: %s", strerror(-ret));
			goto err;
		}
		ret = perf_evsel__mmap(p->evsel[i], 0);
		if (ret) {
			snprintf(why, len, "libperf: perf_evsel__mmap: %s", strerror(-ret));
			goto err;
		}
	}
	snprintf(p->detail, sizeof(p->detail), "3 evsels, mmap self-read");
	return p;
err:
	libperf_free(p);
	return NULL;
}
#else
struct ovh_peer *ovh_libperf_open(char *why, size_t len)
{
	snprintf(why, len, "built without libperf (emu/setup.sh builds it for arm64 from the kernel source)");
	return NULL;
}
#endif

#if defined(PMUSER_HAVE_PAPI)
struct ovh_peer *ovh_papi_open(char *why, size_t len)
{
	/*
	 * libpfm4's names for the core's own PMU where it knows the core, else its generic
	 * perf events; :u counts user mode only, no modifier every mode.
	 */
	static const char *const names[PEER_EVENTS][2] = {
		{ "CPU_CYCLES", "perf::CPU-CYCLES" },
		{ "INST_RETIRED:u", "perf::INSTRUCTIONS:u" },
		{ "INST_RETIRED", "perf::INSTRUCTIONS" },
	};
	struct ovh_peer *p;
	unsigned int i;
	int ret;

	ret = PAPI_library_init(PAPI_VER_CURRENT);
	if (ret != PAPI_VER_CURRENT) {
		snprintf(why, len, "PAPI_library_init: %s", ret < 0 ? PAPI_strerror(ret) :
			 "version mismatch");
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	p->kind = PEER_PAPI;
	p->eventset = PAPI_NULL;
	ret = PAPI_set_domain(PAPI_DOM_ALL);
	if (ret == PAPI_OK)
		ret = PAPI_create_eventset(&p->eventset);
	for (i = 0; ret == PAPI_OK && i < PEER_EVENTS; i++) {
		ret = PAPI_add_named_event(p->eventset, names[i][0]);
		if (ret != PAPI_OK)
			ret = PAPI_add_named_event(p->eventset, names[i][1]);
		if (ret != PAPI_OK) {
			snprintf(why, len, "PAPI_add_named_event %s or %s: %s", names[i][0],
				 names[i][1], PAPI_strerror(ret));
			goto err;
		}
	}
	if (ret == PAPI_OK)
		ret = PAPI_start(p->eventset);
	if (ret != PAPI_OK) {
		snprintf(why, len, "PAPI: %s", PAPI_strerror(ret));
		goto err;
	}
	snprintf(p->detail, sizeof(p->detail), "PAPI %d.%d.%d, 1 event set",
		 PAPI_VERSION_MAJOR(PAPI_VERSION), PAPI_VERSION_MINOR(PAPI_VERSION),
		 PAPI_VERSION_REVISION(PAPI_VERSION));
	return p;
err:
	if (p->eventset != PAPI_NULL) {
		PAPI_cleanup_eventset(p->eventset);
		PAPI_destroy_eventset(&p->eventset);
	}
	free(p);
	PAPI_shutdown();
	return NULL;
}
#else
struct ovh_peer *ovh_papi_open(char *why, size_t len)
{
	snprintf(why, len, "built without PAPI (emu/setup.sh unpacks Debian's for arm64)");
	return NULL;
}
#endif

void ovh_peer_read(void *peer)
{
	struct ovh_peer *p = peer;

#if defined(PMUSER_HAVE_LIBPERF)
	if (p->kind == PEER_LIBPERF) {
		unsigned int i;

		for (i = 0; i < PEER_EVENTS; i++)
			perf_evsel__read(p->evsel[i], 0, 0, &p->counts[i]);
		return;
	}
#endif
#if defined(PMUSER_HAVE_PAPI)
	if (p->kind == PEER_PAPI)
		PAPI_read(p->eventset, p->values);
#endif
	(void)p;
}

unsigned int ovh_peer_counters(const struct ovh_peer *p)
{
	(void)p;
	return PEER_EVENTS;
}

const char *ovh_peer_detail(const struct ovh_peer *p)
{
	return p->detail;
}

void ovh_peer_close(struct ovh_peer *p)
{
#if defined(PMUSER_HAVE_LIBPERF)
	if (p->kind == PEER_LIBPERF) {
		libperf_free(p);
		return;
	}
#endif
#if defined(PMUSER_HAVE_PAPI)
	if (p->kind == PEER_PAPI) {
		long long v[PEER_EVENTS];

		PAPI_stop(p->eventset, v);
		PAPI_cleanup_eventset(p->eventset);
		PAPI_destroy_eventset(&p->eventset);
		PAPI_shutdown();
	}
#endif
	free(p);
}
