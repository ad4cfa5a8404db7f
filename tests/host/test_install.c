// SPDX-License-Identifier: MIT
/*
 * make install into a DESTDIR: every part lands where a package would put it, a program
 * outside the tree and pmu-hello build against the installed pmuser.pc and run, the library
 * exports only the API, every tool's man page renders without warnings and names every
 * option its --help lists, and make uninstall takes it all away again.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../tool_run.h"

/* Inside this checkout's build tree: two checkouts on one machine never share it. */
#define DEST PMUSER_TOP "/build/host/install-test"
#define MAKE_INSTALL "make -s -C " PMUSER_TOP " OUT=" PMUSER_TOP "/build/host CROSS_COMPILE= " \
	"PREFIX=/usr DESTDIR=" DEST
#define OUT_MAX 65536

static const char *const tools[] = {
	"pmu-chase", "pmu-hazards", "pmu-hello", "pmu-info", "pmu-lat", "pmu-matrix",
	"pmu-misp", "pmu-overhead", "pmu-spin", "pmu-stat", "pmu-sweep", "pmu-walk",
};

static bool exists(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), DEST "/%s", rel);
	return access(path, F_OK) == 0;
}

FIXTURE(installed) {
	char out[OUT_MAX];
};

FIXTURE_SETUP(installed)
{
	ASSERT_EQ(0, tool_run("rm -rf " DEST " && " MAKE_INSTALL " install 2>&1", false,
			      self->out, sizeof(self->out))) TH_LOG("%s", self->out);
}

FIXTURE_TEARDOWN(installed)
{
	tool_run("rm -rf " DEST, false, self->out, sizeof(self->out));
}

/* make install and man take seconds each on a busy 2-core box. */
TEST_F_TIMEOUT(installed, every_part_in_place, 300)
{
	static const char *const files[] = {
		"usr/lib/libpmuser.a", "usr/lib/libpmuser.so", "usr/lib/libpmuser.so.0",
		"usr/include/pmuser.h", "usr/include/pmuser/fast.h", "usr/include/linux/pmuser.h",
		"usr/lib/pkgconfig/pmuser.pc", "usr/share/man/man7/pmuser.7",
		"usr/share/man/man3/pmuser_counters_open.3",
		"usr/share/man/man3/pmuser_region.3", "usr/share/man/man3/pmuser_counter_read.3",
		"usr/share/man/man3/pmuser_device_open.3", "usr/share/man/man3/pmuser_device_why.3",
		"usr/share/man/man3/pmuser_thread_cpu.3",
		"etc/udev/rules.d/60-pmuser.rules", "etc/modules-load.d/pmuser.conf",
		"etc/sysctl.d/60-pmuser.conf", "etc/modprobe.d/pmuser.conf",
		"usr/src/pmuser-" PMUSER_VERSION "/dkms.conf",
		"usr/src/pmuser-" PMUSER_VERSION "/Kbuild",
		"usr/src/pmuser-" PMUSER_VERSION "/module/pmuser_main.c",
		"usr/src/pmuser-" PMUSER_VERSION "/uapi/linux/pmuser.h",
	};
	char rel[128];

	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		EXPECT_TRUE(exists(files[k])) TH_LOG("missing %s", files[k]);
	}
	for (size_t k = 0; k < sizeof(tools) / sizeof(tools[0]); k++) {
		snprintf(rel, sizeof(rel), "usr/bin/%s", tools[k]);
		EXPECT_TRUE(exists(rel)) TH_LOG("missing %s", rel);
		snprintf(rel, sizeof(rel), "usr/share/man/man1/%s.1", tools[k]);
		EXPECT_TRUE(exists(rel)) TH_LOG("missing %s", rel);
	}
	/* The udev rule gives the device to a group by name. */
	EXPECT_EQ(0, tool_run("grep -q 'GROUP=\"pmuser\"' " DEST "/etc/udev/rules.d/60-pmuser.rules",
			      false, self->out, sizeof(self->out)));
}

TEST_F_TIMEOUT(installed, program_builds_against_pkg_config, 300)
{
	static const char prog[] =
		"#include <pmuser.h>\n"
		"#include <stdio.h>\n"
		"int main(void)\n{\n"
		"\tstruct pmuser_counters_attr attr;\n\tstruct pmuser_counters *c;\n"
		"\tuint64_t v[1];\n\tchar why[256];\n\n"
		"\tpmuser_counters_attr_init(&attr);\n"
		"\tattr.backend = PMUSER_BACKEND_CLOCK;\n\tattr.flags = PMUSER_COUNTERS_CYCLES;\n"
		"\tif (pmuser_counters_open(&attr, &c, why, sizeof(why)))\n\t\treturn 1;\n"
		"\tif (pmuser_counters_read(c, v))\n\t\treturn 1;\n"
		"\tprintf(\"backend %s\\n\", pmuser_backend_name(pmuser_counters_backend(c)));\n"
		"\tpmuser_counters_close(c);\n\treturn 0;\n}\n";
	FILE *f = fopen(DEST "/prog.c", "w");

	ASSERT_NE(NULL, f);
	fputs(prog, f);
	fclose(f);
	ASSERT_EQ(0, tool_run("cd " DEST " && export PKG_CONFIG_SYSROOT_DIR=" DEST
			      " PKG_CONFIG_LIBDIR=" DEST "/usr/lib/pkgconfig && "
			      "cc -Wall -Werror -o prog prog.c $(pkg-config --cflags --libs pmuser) 2>&1 && "
			      "LD_LIBRARY_PATH=" DEST "/usr/lib ./prog 2>&1", false, self->out,
			      sizeof(self->out))) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "backend clock")) TH_LOG("%s", self->out);
	/* pmu-hello, the program to copy, needs nothing but what is installed. */
	ASSERT_EQ(0, tool_run("cd " DEST " && export PKG_CONFIG_SYSROOT_DIR=" DEST
			      " PKG_CONFIG_LIBDIR=" DEST "/usr/lib/pkgconfig && "
			      "cc -O2 -Wall -Wextra -Werror -o hello " PMUSER_TOP
			      "/samples/pmu-hello.c $(pkg-config --cflags --libs pmuser) 2>&1 && "
			      "LD_LIBRARY_PATH=" DEST "/usr/lib ./hello --help 2>&1", false, self->out,
			      sizeof(self->out))) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "usage: pmu-hello")) TH_LOG("%s", self->out);
	/*
	 * The soname is versioned, and the library exports the API only: of the internal
	 * pmuser__ functions only the one the header's inline pmuser_thread_cpu() calls
	 * (tests/static checks the list against the header).
	 */
	ASSERT_EQ(0, tool_run("readelf -d " DEST "/usr/lib/libpmuser.so | grep SONAME", false,
			      self->out, sizeof(self->out)));
	EXPECT_NE(NULL, strstr(self->out, "[libpmuser.so.0]")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, tool_run("nm -D --defined-only " DEST "/usr/lib/libpmuser.so | awk "
			      "'$3 !~ /^(pmuser_[a-z]|pmuser__thread_cpu_slow@|PMUSER_)/ { print }'",
			      false, self->out, sizeof(self->out)));
	EXPECT_STREQ("", self->out) TH_LOG("exported beyond the API: %s", self->out);
}

TEST_F_TIMEOUT(installed, man_pages_render_and_name_every_option, 300)
{
	static char help[OUT_MAX], page[OUT_MAX];
	char cmd[1024];

	for (size_t k = 0; k < sizeof(tools) / sizeof(tools[0]); k++) {
		unsigned int options = 0;

		snprintf(cmd, sizeof(cmd), "MANWIDTH=200 man --warnings -l " DEST
			 "/usr/share/man/man1/%s.1 2>&1 >/dev/null", tools[k]);
		ASSERT_EQ(0, tool_run(cmd, false, page, sizeof(page)));
		EXPECT_STREQ("", page) TH_LOG("%s.1 renders with warnings", tools[k]);
		snprintf(cmd, sizeof(cmd), "MANWIDTH=200 man -l " DEST "/usr/share/man/man1/%s.1 "
			 "2>/dev/null", tools[k]);
		ASSERT_EQ(0, tool_run(cmd, false, page, sizeof(page)));
		snprintf(cmd, sizeof(cmd), DEST "/usr/bin/%s --help", tools[k]);
		ASSERT_EQ(0, tool_run(cmd, false, help, sizeof(help)));
		for (char *p = strstr(help, "--"); p; p = strstr(p + 2, "--")) {
			size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
			char opt[64];

			if (!n || n + 3 > sizeof(opt))
				continue;
			snprintf(opt, sizeof(opt), "--%.*s", (int)n, p + 2);
			EXPECT_NE(NULL, strstr(page, opt)) TH_LOG("%s.1 lacks %s", tools[k], opt);
			options++;
		}
		EXPECT_NE(0U, options) TH_LOG("%s --help lists no option", tools[k]);
	}
	for (const char *const *p = (const char *const[]){ "man7/pmuser.7",
			"man3/pmuser_counters_open.3", "man3/pmuser_region.3",
			"man3/pmuser_counter_read.3", "man3/pmuser_counters_enable.3",
			"man3/pmuser_device_open.3", "man3/pmuser_page_map.3",
			"man3/pmuser_evspec_parse.3", "man3/pmuser_presets.3",
			"man3/pmuser_thread_pin.3", "man3/pmuser_device_why.3", NULL }; *p; p++) {
		snprintf(cmd, sizeof(cmd), "cd " DEST "/usr/share/man && MANWIDTH=80 man --warnings "
			 "-l %s 2>&1 >/dev/null", *p);
		ASSERT_EQ(0, tool_run(cmd, false, page, sizeof(page)));
		EXPECT_STREQ("", page) TH_LOG("%s renders with warnings", *p);
	}
}

TEST_F_TIMEOUT(installed, uninstall_leaves_no_file, 300)
{
	ASSERT_EQ(0, tool_run(MAKE_INSTALL " uninstall 2>&1 && find " DEST
			      " ! -type d ! -name prog.c", false, self->out, sizeof(self->out)));
	EXPECT_STREQ("", self->out) TH_LOG("left behind: %s", self->out);
}

TEST_HARNESS_MAIN
