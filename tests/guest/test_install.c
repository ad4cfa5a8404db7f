// SPDX-License-Identifier: MIT
/*
 * The README's board flow with what make install delivers, at Debian's default
 * perf_event_paranoid (3): the module loaded with the installed modprobe.d options, the
 * boot-time udev rule giving /dev/pmuser to the group pmuser, and a program built outside the
 * tree against the installed pmuser.pc (tests/install/pmuser-oot.c, built by emu/build.sh)
 * counting as an ordinary user in that group. A user outside the group is refused. The rule is
 * applied here as udev would apply it (the guest runs no udev), and the options as modprobe
 * would pass them.
 */
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "pmuser_test.h"

#define RULE "/etc/udev/rules.d/60-pmuser.rules"
#define OPTIONS "/etc/modprobe.d/pmuser.conf"
#define OOT "/bin/pmuser-oot"
#define USER_ID 1000
#define GROUP_ID 990

/* Runs OOT as uid USER_ID with the supplementary groups given; its exit status, output in out. */
static int run_as_user(const gid_t *groups, size_t n, char *out, size_t len)
{
	int fd[2], status;
	size_t used = 0;
	ssize_t got;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		if (setgroups(n, groups) || setgid(USER_ID) || setuid(USER_ID))
			_exit(125);
		execl(OOT, OOT, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (used + 1 < len && (got = read(fd[0], out + used, len - 1 - used)) > 0)
		used += (size_t)got;
	out[used] = '\0';
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The udev rule's group and mode, as installed: 0, or -1 if it does not say both. */
static int rule_read(char *group, size_t len, unsigned int *mode)
{
	char line[256];
	FILE *f = fopen(RULE, "r");
	bool found = false;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *g = strstr(line, "GROUP=\""), *m = strstr(line, "MODE=\"");

		if (line[0] == '#' || !strstr(line, "KERNEL==\"pmuser\"") || !g || !m)
			continue;
		g += 7;
		snprintf(group, len, "%.*s", (int)strcspn(g, "\""), g);
		*mode = (unsigned int)strtoul(m + 6, NULL, 8);
		found = true;
	}
	fclose(f);
	return found ? 0 : -1;
}

/* The parameters the installed modprobe.d file gives pmuser, space-separated. */
static int options_read(char *params, size_t len)
{
	char line[256];
	FILE *f = fopen(OPTIONS, "r");
	size_t used = 0;

	if (!f)
		return -1;
	params[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "options pmuser ", 15))
			continue;
		line[strcspn(line, "\n")] = '\0';
		used += (size_t)snprintf(params + used, len - used, "%s ", line + 15);
		if (used >= len)
			break;
	}
	fclose(f);
	return 0;
}

TEST(installed_program_reads_as_group_member)
{
	char group[64], out[1024], denied[1024];
	unsigned long long cycles = 0, inst = 0;
	unsigned int mode = 0, tries;
	int valid = 0, rc = -1, fd;
	char params[256], backend[32] = "";
	struct pmuser_info info;
	gid_t gid = GROUP_ID;
	struct stat st;
	FILE *f;

#if defined(PMUSER_FAST_V6)
	SKIP(return, "QEMU's ARM1176 traps inline counter reads: no backend counts there");
#endif
	ASSERT_EQ(0, access(OOT, X_OK)) TH_LOG("%s: not built (emu/build.sh)", OOT);
	ASSERT_EQ(0, rule_read(group, sizeof(group), &mode)) TH_LOG("%s: no rule for pmuser", RULE);
	EXPECT_STREQ("pmuser", group);
	EXPECT_EQ(0660U, mode);
	ASSERT_EQ(0, options_read(params, sizeof(params))) TH_LOG("%s: missing", OPTIONS);
	EXPECT_TRUE(strstr(params, "group_user_counting=1") != NULL) TH_LOG("%s: %s", OPTIONS, params);
	ASSERT_EQ(0, module_reload(params)) TH_LOG("loading pmuser with '%s'", params);
	ASSERT_EQ(0, sysctl_write("/proc/sys/kernel/perf_event_paranoid", "3"));
	fd = pmuser_device_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pmuser_device_info(fd, &info));
	close(fd);
	/* groupadd pmuser (undone below), and the rule applied as udev applies it. */
	ASSERT_EQ(0, system("cp /etc/group /tmp/group.saved 2>/dev/null || : >/tmp/group.saved"));
	f = fopen("/etc/group", "a");
	ASSERT_TRUE(f != NULL);
	fprintf(f, "%s:x:%u:\n", group, (unsigned int)gid);
	fclose(f);
	ASSERT_EQ(0, stat("/dev/pmuser", &st));
	ASSERT_EQ(0, chown("/dev/pmuser", 0, gid));
	ASSERT_EQ(0, chmod("/dev/pmuser", mode));

	/* A region can come back invalid when the program migrates: a few runs at most. */
	for (tries = 0; tries < 5 && valid != 1; tries++) {
		rc = run_as_user(&gid, 1, out, sizeof(out));
		if (rc || sscanf(out, "backend %31s valid %d cycles %llu inst %llu", backend, &valid,
				 &cycles, &inst) != 4)
			break;
	}
	/* Outside the group the device stays closed, and nothing falls back silently. */
	setenv("PMUSER_BACKEND", "module", 1);
	EXPECT_EQ(1, run_as_user(NULL, 0, denied, sizeof(denied)));
	unsetenv("PMUSER_BACKEND");
	EXPECT_TRUE(strstr(denied, "ermission denied") != NULL) TH_LOG("%s", denied);

	sysctl_write("/proc/sys/kernel/perf_event_paranoid", "-1");
	module_reload("");
	system("cp /tmp/group.saved /etc/group");
	if (info.access_flags & PMUSER_INFO_USER_WRITES) {
		/*
		 * PMUv2: a grant there could reprogram every counter, so it needs CAP_PERFMON, and
		 * Debian's paranoid 3 refuses the user perf itself: the program says so.
		 */
		EXPECT_EQ(1, rc);
		EXPECT_TRUE(strstr(out, "a grant needs CAP_PERFMON") != NULL) TH_LOG("%s", out);
		return;
	}
	ASSERT_EQ(0, rc) TH_LOG("%s", out);
	EXPECT_STREQ("module", backend);
	ASSERT_EQ(1, valid) TH_LOG("%u runs: %s", tries, out);
	ksft_print_msg("as uid %d in group %s: %s", USER_ID, group, out);
	EXPECT_GT(cycles, 0ULL);
	/* 1000 iterations of a loop of several instructions each. */
	EXPECT_GE(inst, 1000ULL);
}

TEST_HARNESS_MAIN
