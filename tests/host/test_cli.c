// SPDX-License-Identifier: MIT
/*
 * Host tests of what every tool does with its command line: --help is the usage on standard
 * output with status 0, an unknown option is an error on standard error with status 2, and a
 * size takes the same suffixes in every tool.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../tool_run.h"

#define BIN PMUSER_TOP "/build/host/bin/"

static const char *const tools[] = {
	"pmu-chase", "pmu-hazards", "pmu-hello", "pmu-info", "pmu-lat", "pmu-matrix",
	"pmu-misp", "pmu-overhead", "pmu-spin", "pmu-stat", "pmu-sweep", "pmu-walk",
};

TEST(help_is_usage_on_stdout)
{
	char cmd[512], out[16384];

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		snprintf(cmd, sizeof(cmd), BIN "%s --help 2>/tmp/pmuser-cli.err", tools[i]);
		EXPECT_EQ(0, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", tools[i]);
		EXPECT_NE(NULL, strstr(out, "usage")) TH_LOG("%s --help: %s", tools[i], out);
		EXPECT_NE(NULL, strstr(out, "--help")) TH_LOG("%s --help lists no --help", tools[i]);
		EXPECT_EQ(0, tool_run("cat /tmp/pmuser-cli.err", false, out, sizeof(out)));
		EXPECT_STREQ("", out) TH_LOG("%s --help wrote to stderr", tools[i]);
	}
}

TEST(unknown_option_is_a_usage_error)
{
	char cmd[512], out[16384];

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		snprintf(cmd, sizeof(cmd), BIN "%s --no-such-option 2>&1 >/dev/null", tools[i]);
		EXPECT_EQ(2, tool_run(cmd, false, out, sizeof(out))) TH_LOG("%s", tools[i]);
		EXPECT_NE(0U, strlen(out)) TH_LOG("%s said nothing on stderr", tools[i]);
	}
}

/* 16K, 16KB and 16KiB are one size everywhere; a wrong suffix names the ones allowed. */
TEST(sizes_take_one_syntax)
{
	static const char *const sizes[] = { "16K", "16KB", "16KiB", "16kib" };
	char cmd[512], out[16384];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(cmd, sizeof(cmd), BIN "pmu-chase -s %s -i 2", sizes[i]);
		EXPECT_EQ(0, tool_run(cmd, true, out, sizeof(out))) TH_LOG("pmu-chase -s %s: %s",
									 sizes[i], out);
		snprintf(cmd, sizeof(cmd), BIN "pmu-sweep --sizes 4K,%s,64K -t 0.01 -r 1", sizes[i]);
		EXPECT_EQ(0, tool_run(cmd, true, out, sizeof(out))) TH_LOG("pmu-sweep %s: %s",
									 sizes[i], out);
	}
	EXPECT_EQ(2, tool_run(BIN "pmu-chase -s 16Kx -i 2", true, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "K, KB, KiB")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
