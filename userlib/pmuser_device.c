// SPDX-License-Identifier: MIT
/*
 * pmuser: the device. Opening it (the descriptor or -errno), thin wrappers over its ioctls
 * (0 or -errno), and what their errors mean.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pmuser_internal.h"

static int pmuser_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

int pmuser_device_open(void)
{
	int fd = open(PMUSER_DEVICE, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int pmuser_device_info(int fd, struct pmuser_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return pmuser_ioctl(fd, PMUSER_IOC_INFO, info);
}

int pmuser_device_cpu_info(int fd, unsigned int cpu, struct pmuser_cpu_info *ci)
{
	memset(ci, 0, sizeof(*ci));
	ci->size = sizeof(*ci);
	ci->cpu = cpu;
	return pmuser_ioctl(fd, PMUSER_IOC_CPU_INFO, ci);
}

int pmuser_device_configure(int fd, struct pmuser_config *cfg)
{
	cfg->size = sizeof(*cfg);
	return pmuser_ioctl(fd, PMUSER_IOC_CONFIGURE, cfg);
}

int pmuser_device_reset(int fd)
{
	struct pmuser_reset req = { .size = sizeof(req) };

	return pmuser_ioctl(fd, PMUSER_IOC_RESET, &req);
}

int pmuser_device_release(int fd)
{
	return ioctl(fd, PMUSER_IOC_RELEASE) < 0 ? -errno : 0;
}

int pmuser_device_grant(int fd, uint32_t flags)
{
	struct pmuser_access req = { .size = sizeof(req), .flags = flags };

	return pmuser_ioctl(fd, PMUSER_IOC_GRANT, &req);
}

int pmuser_device_revoke(int fd, uint32_t flags)
{
	struct pmuser_access req = { .size = sizeof(req), .flags = flags };

	return pmuser_ioctl(fd, PMUSER_IOC_REVOKE, &req);
}

int pmuser_device_swinc(int fd, uint32_t mask, uint32_t count)
{
	struct pmuser_swinc req = { .size = sizeof(req), .mask = mask, .count = count };

	return pmuser_ioctl(fd, PMUSER_IOC_SWINC, &req);
}

int pmuser__perf_user_access(void)
{
	int fd = open("/proc/sys/kernel/perf_user_access", O_RDONLY | O_CLOEXEC);
	char c = 0;

	if (fd < 0)
		return errno == ENOENT ? -1 : -2;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '0' ? 0 : c == '1' ? 1 : -2;
}

/* Which of pmuser's privilege rules (pmuser(7)) refused the caller, by its rights now. */
static const char *refused_rule(unsigned long request)
{
	struct pmuser_info info;
	uint32_t rights;
	int fd = pmuser_device_open();

	if (fd < 0 || pmuser_device_info(fd, &info) ||
	    info.size < offsetof(struct pmuser_info, rights) + sizeof(info.rights)) {
		if (fd >= 0)
			close(fd);
		return "refused by pmuser's privilege rules (pmuser(7))";
	}
	close(fd);
	rights = info.rights;
	if (!(rights & PMUSER_RIGHT_COUNT))
		return "counting CPU-wide needs what perf needs for it (perf_event_paranoid <= 0, or CAP_PERFMON), or membership of the device's group where the module has group_user_counting=1";
	if (request == PMUSER_IOC_GRANT && info.access_flags & PMUSER_INFO_USER_WRITES &&
	    !(rights & PMUSER_RIGHT_PROGRAM))
		return "this PMU's user access also writes it (ARMv7 PMUv2, ARM1176): a grant needs CAP_PERFMON";
	if (!(rights & PMUSER_RIGHT_KERNEL))
		return "counting kernel mode, or reading counters that count it, needs what perf needs for it (perf_event_paranoid <= 1, or CAP_PERFMON)";
	return "refused by pmuser's privilege rules (pmuser(7))";
}

const char *pmuser_device_why(unsigned long request, int err, char *buf, size_t len)
{
	if (request == PMUSER_IOC_GRANT && err == -EPERM &&
	    pmuser__perf_user_access() == 0)
		snprintf(buf, len, "%s: kernel.perf_user_access is 0 (perf grants user reads only with it set to 1: sysctl kernel.perf_user_access=1)",
			 strerror(-err));
	else if ((request == PMUSER_IOC_CONFIGURE || request == PMUSER_IOC_GRANT) &&
		 err == -EACCES)
		snprintf(buf, len, "%s: %s", strerror(-err), refused_rule(request));
	else if (request == PMUSER_IOC_CONFIGURE && err == -EBUSY)
		snprintf(buf, len, "%s: another file holds pmuser's counters, another perf user's pinned events hold the counters asked for, or (counting kernel mode) a reader without kernel-mode rights has the device open",
			 strerror(-err));
	else
		snprintf(buf, len, "%s", strerror(-err));
	return buf;
}
