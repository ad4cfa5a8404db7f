// SPDX-License-Identifier: MIT
/*
 * pmu-stat's child: forked first and held on a pipe before exec, so the counters can be
 * opened for its pid and the command never runs half-configured; a second, close-on-exec
 * pipe tells the parent whether exec worked (EOF) or why it failed (the errno).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stat.h"

static int check_file(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	return access(path, X_OK) ? -errno : 0;
}

int stat_command_check(const char *cmd, char *path, size_t pathlen)
{
	const char *dirs = getenv("PATH"), *p;
	int best = -ENOENT, ret;

	if (!cmd || !*cmd) {
		/* Said as a shell says it: an empty name is not no name. */
		snprintf(path, pathlen, "%s", "''");
		return -ENOENT;
	}
	if (strchr(cmd, '/')) {
		snprintf(path, pathlen, "%s", cmd);
		ret = check_file(cmd);
		return ret == -ENOENT || ret == -ENOTDIR ? -ENOENT : ret ? -EACCES : 0;
	}
	/* execvp's default search path when PATH is unset. */
	if (!dirs)
		dirs = "/bin:/usr/bin";
	snprintf(path, pathlen, "%s", cmd);
	for (p = dirs;; p++) {
		size_t len = strcspn(p, ":");
		char cand[4096];

		/* An empty element means the current directory. */
		snprintf(cand, sizeof(cand), "%.*s%s%s", (int)len, len ? p : ".", "/", cmd);
		ret = check_file(cand);
		if (!ret) {
			snprintf(path, pathlen, "%s", cand);
			return 0;
		}
		if (ret != -ENOENT && ret != -ENOTDIR && best == -ENOENT) {
			best = -EACCES;
			snprintf(path, pathlen, "%s", cand);
		}
		p += len;
		if (!*p)
			break;
	}
	return best;
}

/*
 * SIGCHLD and the stop signals pmu-stat does not ignore: a blocked signal is queued even if
 * ignored, and one pmu-stat was started to ignore (nohup, a background job of a
 * non-interactive shell) must neither reach the command nor end the repeats.
 */
static void block_signals(sigset_t *set)
{
	static const int stop[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	unsigned int i;

	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	for (i = 0; i < sizeof(stop) / sizeof(stop[0]); i++)
		if (sigaction(stop[i], NULL, &sa) || sa.sa_handler != SIG_IGN)
			sigaddset(set, stop[i]);
}

/* While held: the mask pmu-stat started with (its commands get it), and the stop signal. */
static bool held;
static sigset_t held_mask;
static int stop_sig;

void stat_signals_hold(void)
{
	sigset_t set;

	block_signals(&set);
	sigprocmask(SIG_BLOCK, &set, &held_mask);
	held = true;
}

/* Takes a stop signal that is pending (one that came while no command ran). */
static void take_pending(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t set;
	int sig;

	block_signals(&set);
	sigdelset(&set, SIGCHLD);
	while ((sig = sigtimedwait(&set, NULL, &zero)) > 0)
		if (!stop_sig)
			stop_sig = sig;
}

int stat_stop_signal(void)
{
	if (held)
		take_pending();
	return stop_sig;
}

void stat_signals_release(void)
{
	if (!held)
		return;
	/* Left pending, a SIGTERM would end pmu-stat as soon as it is unblocked, unreported. */
	take_pending();
	held = false;
	sigprocmask(SIG_SETMASK, &held_mask, NULL);
}

int stat_child_spawn(struct stat_child *ch, char **argv, const int *cpus, unsigned int nr_cpus)
{
	int go[2], ex[2];
	sigset_t set;
	unsigned int i;

	memset(ch, 0, sizeof(*ch));
	ch->go_fd = ch->exec_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ex, O_CLOEXEC)) {
		int ret = -errno;

		close(go[0]);
		close(go[1]);
		return ret;
	}
	block_signals(&set);
	sigprocmask(SIG_BLOCK, &set, &ch->old_mask);
	fflush(NULL);
	ch->pid = fork();
	if (ch->pid < 0) {
		int ret = -errno;

		sigprocmask(SIG_SETMASK, &ch->old_mask, NULL);
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return ret;
	}
	if (ch->pid == 0) {
		int err = 0;
		char byte;

		close(go[1]);
		close(ex[0]);
		if (nr_cpus) {
			cpu_set_t cs;

			CPU_ZERO(&cs);
			for (i = 0; i < nr_cpus; i++)
				CPU_SET(cpus[i], &cs);
			if (sched_setaffinity(0, sizeof(cs), &cs))
				err = errno;
		}
		/*
		 * Held here until the counters are ready; EOF means setup failed. The stop
		 * signals stay blocked until the exec: one sent to the whole process group
		 * meanwhile (a Ctrl-C) ends the command as it starts, counted as a run.
		 */
		if (read(go[0], &byte, 1) != 1)
			_exit(STAT_EXIT_SETUP);
		sigprocmask(SIG_SETMASK, held ? &held_mask : &ch->old_mask, NULL);
		if (!err) {
			execvp(argv[0], argv);
			err = errno;
		}
		if (write(ex[1], &err, sizeof(err)) != (ssize_t)sizeof(err))
			_exit(STAT_EXIT_NOEXEC);
		_exit(err == ENOENT ? STAT_EXIT_NOTFOUND : STAT_EXIT_NOEXEC);
	}
	close(go[0]);
	close(ex[1]);
	ch->go_fd = go[1];
	ch->exec_fd = ex[0];
	return 0;
}

static void reap(struct stat_child *ch)
{
	while (wait4(ch->pid, &ch->status, 0, &ch->ru) < 0 && errno == EINTR)
		;
	ch->exited = true;
}

void stat_child_abort(struct stat_child *ch)
{
	if (ch->go_fd >= 0)
		close(ch->go_fd);
	if (ch->exec_fd >= 0)
		close(ch->exec_fd);
	ch->go_fd = ch->exec_fd = -1;
	if (!ch->exited)
		reap(ch);
	stat_child_done(ch);
}

int stat_child_release(struct stat_child *ch)
{
	struct timespec zero = { 0, 0 };
	sigset_t pipe_set, old;
	ssize_t n;
	int err = 0;

	/* A child already gone makes the write fail (EPIPE), not end pmu-stat. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	n = write(ch->go_fd, "g", 1);
	if (n < 0 && errno == EPIPE)
		sigtimedwait(&pipe_set, NULL, &zero);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(ch->go_fd);
	ch->go_fd = -1;
	if (n != 1) {
		close(ch->exec_fd);
		ch->exec_fd = -1;
		reap(ch);
		return -EIO;
	}
	do
		n = read(ch->exec_fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(ch->exec_fd);
	ch->exec_fd = -1;
	if (n == 0)
		return 0;
	reap(ch);
	return n == (ssize_t)sizeof(err) && err ? -err : -EIO;
}

int stat_child_wait(struct stat_child *ch, uint64_t timeout_ns)
{
	uint64_t deadline = now_ns(CLOCK_MONOTONIC) + timeout_ns;
	siginfo_t info;
	sigset_t set;

	if (ch->exited)
		return 1;
	block_signals(&set);
	for (;;) {
		struct timespec ts;
		uint64_t now, left;
		pid_t pid;
		int sig;

		pid = wait4(ch->pid, &ch->status, WNOHANG, &ch->ru);
		if (pid == ch->pid) {
			ch->exited = true;
			return 1;
		}
		now = now_ns(CLOCK_MONOTONIC);
		if (now >= deadline)
			return 0;
		left = deadline - now;
		ts.tv_sec = (time_t)(left / 1000000000u);
		ts.tv_nsec = (long)(left % 1000000000u);
		sig = sigtimedwait(&set, &info, &ts);
		if (sig < 0) {
			if (errno == EAGAIN)
				return 0;
			continue;
		}
		/*
		 * The workload decides what an interrupt means; pmu-stat reports afterwards. A
		 * signal the kernel sent (the terminal's Ctrl-C, hangup) went to the whole
		 * foreground process group, the workload included: only a signal sent to
		 * pmu-stat alone is passed on, so the workload gets each one once.
		 */
		if (sig == SIGCHLD)
			continue;
		if (!stop_sig)
			stop_sig = sig;
		if (info.si_code != SI_KERNEL)
			kill(ch->pid, sig);
	}
}

void stat_child_done(struct stat_child *ch)
{
	sigprocmask(SIG_SETMASK, &ch->old_mask, NULL);
}

int stat_exit_code(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return STAT_EXIT_SETUP;
}
