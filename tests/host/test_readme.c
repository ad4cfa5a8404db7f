// SPDX-License-Identifier: MIT
/*
 * The README's library example, exactly as shown: the fenced block after the marker
 * "<!-- example: readme-hello.c -->" compiles as C11 with every warning an error, links
 * against the host library and runs to exit status 0 (on a host without a PMU the library
 * takes the clock backend), and compiles for arm64, armhf and the ARM1176 with the cross
 * compilers the emulated targets use.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../tool_run.h"

#define MARKER "<!-- example: readme-hello.c -->"
#define SOURCE "readme-hello.c"
#define CFLAGS_STRICT "-std=c11 -Wall -Wextra -Werror -O2 -I" PMUSER_TOP "/uapi -I" \
	PMUSER_TOP "/userlib"
#define OUT_MAX 16384

/*
 * Writes the README's example to SOURCE in the working directory (each test binary runs in
 * a scratch directory of its own): the lines between the "```c" right after MARKER and the
 * closing "```". Returns the number of lines written, 0 if the README has no such block.
 */
static int extract_example(void)
{
	char line[512];
	int state = 0, lines = 0;	/* 0 before the marker, 1 at the fence, 2 inside */
	FILE *in = fopen(PMUSER_TOP "/README.md", "r");
	FILE *out = fopen(SOURCE, "w");

	while (in && out && fgets(line, sizeof(line), in)) {
		if (state == 0 && strncmp(line, MARKER, strlen(MARKER)) == 0) {
			state = 1;
		} else if (state == 1) {
			if (strcmp(line, "```c\n") != 0)
				break;
			state = 2;
		} else if (state == 2) {
			if (strcmp(line, "```\n") == 0) {
				state = 3;
				break;
			}
			fputs(line, out);
			lines++;
		}
	}
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	return state == 3 ? lines : 0;
}

/* Sized so that the commands built from them fit tool_run()'s. */
#define PATH_LEN 400
#define CMD_LEN 1536

/* The host library of the build this test belongs to: OUT/tests/host/test_readme. */
static bool host_library(char buf[PATH_LEN + 16])
{
	char exe[PATH_LEN];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	int k;

	if (n <= 0)
		return false;
	exe[n] = '\0';
	for (k = 0; k < 3; k++) {
		slash = strrchr(exe, '/');
		if (!slash)
			return false;
		*slash = '\0';
	}
	snprintf(buf, PATH_LEN + 16, "%s/libpmuser.a", exe);
	return access(buf, R_OK) == 0;
}

FIXTURE(readme) {
	char out[OUT_MAX];
};

FIXTURE_SETUP(readme)
{
	ASSERT_LT(20, extract_example())
		TH_LOG("README.md has no ```c block right after the line %s", MARKER);
}

FIXTURE_TEARDOWN(readme)
{
}

/* Compiled on a busy 2-core host; each compile takes a second or two when it is idle. */
TEST_F_TIMEOUT(readme, example_builds_and_runs_on_the_host, 120)
{
	char lib[PATH_LEN + 16], cmd[CMD_LEN];

	ASSERT_TRUE(host_library(lib)) TH_LOG("no host library beside this test");
	snprintf(cmd, sizeof(cmd), "gcc " CFLAGS_STRICT " -o readme-hello " SOURCE " %s -lm", lib);
	ASSERT_EQ(0, tool_run(cmd, true, self->out, sizeof(self->out)))
		TH_LOG("%s\n%s", cmd, self->out);

	/* The backend the library finds here, whichever it is: the README says it exits 0. */
	EXPECT_EQ(0, tool_run("./readme-hello", true, self->out, sizeof(self->out)))
		TH_LOG("%s", self->out);
	EXPECT_EQ(0, strncmp(self->out, "backend: ", 9)) TH_LOG("%s", self->out);

	/* Without a PMU: time in ns, and the two events kept but not counted. */
	EXPECT_EQ(0, tool_run("PMUSER_BACKEND=clock ./readme-hello", true, self->out,
			      sizeof(self->out))) TH_LOG("%s", self->out);
	EXPECT_EQ(0, strncmp(self->out, "backend: clock\nns ", 18)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "\nINST_RETIRED     not counted on this machine\n"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "\nBR_MIS_PRED      not counted on this machine\n"))
		TH_LOG("%s", self->out);
}

/* Compiles the example with cross compiler cc and its flags, or skips where cc is absent. */
static void cross_compile(struct __test_metadata *_metadata, char *out, size_t len,
			  const char *cc, const char *flags)
{
	char cmd[CMD_LEN];

	snprintf(cmd, sizeof(cmd), "command -v %s", cc);
	if (tool_run(cmd, true, out, len) != 0)
		SKIP(return, "no %s on this host", cc);
	snprintf(cmd, sizeof(cmd), "%s %s " CFLAGS_STRICT " -c -o readme-hello.o " SOURCE, cc,
		 flags);
	EXPECT_EQ(0, tool_run(cmd, true, out, len)) TH_LOG("%s\n%s", cmd, out);
}

TEST_F_TIMEOUT(readme, example_compiles_for_arm64, 120)
{
	cross_compile(_metadata, self->out, sizeof(self->out), "aarch64-linux-gnu-gcc", "");
}

TEST_F_TIMEOUT(readme, example_compiles_for_armhf, 120)
{
	cross_compile(_metadata, self->out, sizeof(self->out), "arm-linux-gnueabihf-gcc", "");
}

/* The ARM1176 (armel), as emu/targets.sh builds for it. */
TEST_F_TIMEOUT(readme, example_compiles_for_arm1176, 120)
{
	cross_compile(_metadata, self->out, sizeof(self->out), "arm-linux-gnueabi-gcc",
		      "-march=armv6 -marm");
}

TEST_HARNESS_MAIN
