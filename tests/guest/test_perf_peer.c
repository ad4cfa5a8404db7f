// SPDX-License-Identifier: GPL-2.0
/*
 * pmuser beside Debian's own perf (arm64 guests; run-guest.sh installs it as /bin/perf):
 * `perf stat -I 100 -e instructions,cycles` sessions run while the library's perf backends
 * and the tools do, with kernel.perf_user_access at 0 and at 1. The sessions count CPU-wide
 * (-a), CPU-wide pinned (:D, perf keeps them on counters or in error), or the test process
 * itself (-p, task-bound: its events and the library's share the task's turns). Two
 * CPU-wide sessions leave counters free; four take them all, and perf, which schedules
 * CPU-wide events before per-task ones, then gives the library's events none. No read goes backwards, a region perf kept off the
 * counters is invalid rather than wrong, and a tool either measures or exits non-zero naming
 * what it saw.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "pmuser_test.h"
#include "../tool_run.h"

#define PERF_BIN	"/bin/perf"
#define SYSCTL		"/proc/sys/kernel/perf_user_access"
#define SESSIONS	4

FIXTURE(peer) {
	pid_t perf[SESSIONS];
	bool have_sysctl;
};

enum session_kind { CPU_WIDE, PINNED, TASK };

FIXTURE_VARIANT(peer) {
	unsigned int sessions;
	enum session_kind kind;
	bool starved;		/* the sessions' events take every counter */
};

FIXTURE_VARIANT_ADD(peer, two_sessions) {
	.sessions = 2,
	.kind = CPU_WIDE,
	.starved = false,
};

FIXTURE_VARIANT_ADD(peer, four_sessions) {
	.sessions = 4,
	.kind = CPU_WIDE,
	.starved = true,
};

FIXTURE_VARIANT_ADD(peer, two_pinned_sessions) {
	.sessions = 2,
	.kind = PINNED,
	.starved = false,
};

FIXTURE_VARIANT_ADD(peer, two_task_sessions) {
	.sessions = 2,
	.kind = TASK,
	.starved = false,
};

FIXTURE_SETUP(peer)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	/* Events a session has open once it counts: two per CPU, or two on this thread. */
	int want = variant->kind == TASK ? 2 : 2 * ncpu;
	char pid[16];
	unsigned int i;

	if (access(PERF_BIN, X_OK))
		SKIP(return, "no Debian perf in this guest (setup.sh fetches it for arm64)");
	self->have_sysctl = !access(SYSCTL, W_OK);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (i = 0; i < variant->sessions; i++) {
		self->perf[i] = fork();
		ASSERT_LE(0, self->perf[i]);
		if (self->perf[i])
			continue;
		if (variant->kind == TASK)
			execl(PERF_BIN, "perf", "stat", "-p", pid, "-I", "100", "-e",
			      "instructions,cycles", "-o", "/dev/null", (char *)NULL);
		else
			execl(PERF_BIN, "perf", "stat", "-a", "-I", "100", "-e",
			      variant->kind == PINNED ? "instructions:D,cycles:D" :
			      "instructions,cycles", "-o", "/dev/null", "--", "sleep", "600",
			      (char *)NULL);
		_exit(127);
	}
	/* Every session has its events open before anything is measured. */
	for (i = 0; i < variant->sessions; i++) {
		unsigned int tries;

		for (tries = 0; tries < 300 && perf_fds(self->perf[i], NULL, 0) < want; tries++)
			usleep(100000);
		ASSERT_LE(want, perf_fds(self->perf[i], NULL, 0)) TH_LOG("perf stat %u", i);
		ASSERT_EQ(0, waitpid(self->perf[i], NULL, WNOHANG)) TH_LOG("perf stat %u exited", i);
	}
}

FIXTURE_TEARDOWN(peer)
{
	unsigned int i;

	for (i = 0; i < SESSIONS; i++) {
		if (self->perf[i] <= 0)
			continue;
		kill(self->perf[i], SIGINT);
		waitpid(self->perf[i], NULL, 0);
	}
	if (self->have_sysctl)
		sysctl_write(SYSCTL, "1");
}

/* Regions around a 2n-instruction loop on one perf backend: invalid ones counted, none wrong. */
static void regions_beside_perf(struct __test_metadata *_metadata, enum pmuser_backend b,
				bool starved)
{
	static const uint32_t ev[] = { EV_INST_RETIRED, EV_CPU_CYCLES, EV_INST_RETIRED };
	struct pmuser_counters_attr a;
	struct pmuser_counters *c;
	struct pmuser_region r;
	uint64_t v[3], prev[3] = { 0 };
	unsigned int k, i, valid = 0, invalid = 0, back = 0, wrong = 0;
	char why[512] = "";
	int ret;

	pmuser_counters_attr_init(&a);
	a.backend = b;
	a.nr_events = 3;
	for (i = 0; i < 3; i++)
		a.events[i].event = ev[i];
	ret = pmuser_counters_open(&a, &c, why, sizeof(why));
	if (b == PMUSER_BACKEND_PERF_MMAP && !access(SYSCTL, R_OK) && ret) {
		FILE *f = fopen(SYSCTL, "r");
		int on = 0;

		if (f) {
			if (fscanf(f, "%d", &on) != 1)
				on = 0;
			fclose(f);
		}
		/* Refused only with the sysctl off, and saying so. */
		EXPECT_EQ(0, on) TH_LOG("refused with the sysctl on: %s", why);
		EXPECT_TRUE(strstr(why, "kernel.perf_user_access is 0") != NULL) TH_LOG("%s", why);
		return;
	}
	ASSERT_EQ(0, ret) TH_LOG("%s", why);
	/*
	 * perf schedules the sessions' CPU-wide events before per-task ones, so these may get
	 * no counter at all: then not even an empty region is valid, and calibration says so.
	 */
	for (k = 0; k < 20 && (ret = pmuser_region_calibrate(c, 200)) == -EAGAIN; k++)
		usleep(5000);
	ASSERT_TRUE(ret == 0 || ret == -EAGAIN) TH_LOG("calibration: %d", ret);
	for (k = 0; k < 200; k++) {
		pmuser_region_start(c, &r);
		spin2(20000);
		pmuser_region_stop(c, &r);
		if (!r.valid) {
			invalid++;
			continue;
		}
		valid++;
		/* A valid region counted the whole loop: 40,000 user instructions, or more. */
		wrong += r.raw[0] < 40000 || r.raw[2] < 40000 || r.raw[1] == 0;
	}
	for (k = 0; k < 2000; k++) {
		ASSERT_EQ(0, pmuser_counters_read(c, v));
		for (i = 0; i < 3; i++) {
			back += v[i] < prev[i];
			prev[i] = v[i];
		}
	}
	pmuser_counters_close(c);
	TH_LOG("%s: %u valid regions, %u invalid (perf multiplexing)%s", pmuser_backend_name(b),
	       valid, invalid, ret ? "; calibration found no valid empty region" : "");
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(0, back);
	EXPECT_EQ(200, valid + invalid);
	/* perf serves the sessions' CPU-wide events first: with all counters theirs, none. */
	if (starved) {
		EXPECT_EQ(0, valid);
	} else {
		EXPECT_LT(0, valid);
	}
}

TEST_F(peer, perf_read_regions)
{
	regions_beside_perf(_metadata, PMUSER_BACKEND_PERF_READ, variant->starved);
}

TEST_F(peer, perf_mmap_regions_sysctl_on)
{
	if (!self->have_sysctl)
		SKIP(return, "no kernel.perf_user_access");
	ASSERT_EQ(0, sysctl_write(SYSCTL, "1"));
	regions_beside_perf(_metadata, PMUSER_BACKEND_PERF_MMAP, variant->starved);
}

TEST_F(peer, perf_mmap_regions_sysctl_off)
{
	if (!self->have_sysctl)
		SKIP(return, "no kernel.perf_user_access");
	ASSERT_EQ(0, sysctl_write(SYSCTL, "0"));
	regions_beside_perf(_metadata, PMUSER_BACKEND_PERF_MMAP, variant->starved);
}

/*
 * pmu-overhead on each perf backend, sysctl off and on: a table of non-negative costs, or an
 * exit status other than 0 with a cause that names what was seen.
 */
TEST_F(peer, overhead_measures_or_names_the_cause)
{
	static const char *const backends[] = { "perf-read", "perf-mmap" };
	static const char *const sysctl[] = { "0", "1" };
	char cmd[256], out[16384];
	unsigned int b, s;

	for (s = 0; s < 2; s++) {
		if (self->have_sysctl)
			ASSERT_EQ(0, sysctl_write(SYSCTL, sysctl[s]));
		for (b = 0; b < 2; b++) {
			int st;

			snprintf(cmd, sizeof(cmd),
				 "PMUSER_BACKEND=%s pmu-overhead -f kv --reads 200 -r 3", backends[b]);
			st = tool_run(cmd, true, out, sizeof(out));
			TH_LOG("sysctl %s, %s: status %d: %.300s", sysctl[s], backends[b], st,
			       st ? out : "");
			if (st) {
				/*
				 * The cause seen: the sysctl, perf keeping the events off, or perf
				 * multiplexing them (pmu-overhead's own sets add events of its own).
				 */
				EXPECT_EQ(1, st) TH_LOG("%s", out);
				EXPECT_TRUE(strstr(out, "kernel.perf_user_access is 0") ||
					    strstr(out, "perf kept the events off the counters") ||
					    strstr(out, "perf is multiplexing the events"))
					TH_LOG("%s", out);
				if (s == 1)
					EXPECT_TRUE(strstr(out, "perf_user_access is 0") == NULL)
						TH_LOG("%s", out);
				continue;
			}
			EXPECT_TRUE(strstr(out, "=-") == NULL) TH_LOG("a negative cost: %s", out);
			EXPECT_FALSE(variant->starved) TH_LOG("measured with no counter: %s", out);
			EXPECT_TRUE(strstr(out, "method=read available=1") != NULL) TH_LOG("%s", out);
		}
	}
}

/*
 * The latency and workload tools on each perf backend (sysctl 1): a result, or status 1 with
 * the cause seen. With every counter the sessions', none can measure.
 */
TEST_F_TIMEOUT(peer, tools_measure_or_name_the_cause, 120)
{
	static const char *const backends[] = { "perf-read", "perf-mmap" };
	static const char *const cmds[] = {
		"pmu-lat --samples 200", "pmu-sweep --max 64K --budget 0.05 -r 1",
		"pmu-chase -s 16K --iterations 2", "pmu-matrix --order 16",
		"pmu-walk -s 16K --iterations 2", "pmu-misp --iterations 1000",
		"pmu-hazards --iterations 100",
	};
	char cmd[256], out[16384];
	unsigned int b, k;

	if (self->have_sysctl)
		ASSERT_EQ(0, sysctl_write(SYSCTL, "1"));
	for (b = 0; b < 2; b++) {
		for (k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
			int st;

			snprintf(cmd, sizeof(cmd), "PMUSER_BACKEND=%s %s", backends[b], cmds[k]);
			st = tool_run(cmd, true, out, sizeof(out));
			if (!st) {
				EXPECT_FALSE(variant->starved) TH_LOG("%s measured with no counter",
								       cmd);
				continue;
			}
			EXPECT_EQ(1, st) TH_LOG("%s: %s", cmd, out);
			EXPECT_TRUE(strstr(out, "perf kept the events off the counters") ||
				    strstr(out, "perf is multiplexing the events"))
				TH_LOG("%s: %s", cmd, out);
		}
	}
}

TEST_HARNESS_MAIN
