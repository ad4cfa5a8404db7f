/* SPDX-License-Identifier: MIT */
/* Running a tool from a test (guest or host) and capturing what it prints. */
#ifndef PMUSER_TOOL_RUN_H
#define PMUSER_TOOL_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/wait.h>

/*
 * Runs cmd through the shell with its stdout (and its stderr too when join_stderr) in out,
 * NUL-terminated and cut at len - 1 bytes. Returns the exit status, or -1 when the command
 * could not run or was killed by a signal.
 */
static inline int tool_run(const char *cmd, bool join_stderr, char *out, size_t len)
{
	char full[2048];
	size_t used = 0, got;
	FILE *p;
	int st;

	snprintf(full, sizeof(full), "%s%s", cmd, join_stderr ? " 2>&1" : "");
	p = popen(full, "r");
	if (!p)
		return -1;
	while (used + 1 < len && (got = fread(out + used, 1, len - 1 - used, p)) > 0)
		used += got;
	out[used] = '\0';
	st = pclose(p);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

#endif
