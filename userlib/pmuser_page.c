// SPDX-License-Identifier: MIT
/*
 * pmuser: the module's counter page. perf reloads and may move the counters pmuser holds; the
 * page tells, per CPU and counter, where each is now and what its raw reads stand for, under
 * a sequence number the module changes with every publication (uapi/linux/pmuser.h).
 */
#include <errno.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "pmuser.h"

/* Reads before asking the module to republish, and in all. */
#define PAGE_TRIES_QUIET	64
#define PAGE_TRIES		256

int pmuser_page_map(int fd, struct pmuser_page *pg)
{
	struct pmuser_info info;
	void *p;
	int ret;

	ret = pmuser_device_info(fd, &info);
	if (ret)
		return ret;
	if (!info.page_size || info.page_cpu_stride < sizeof(struct pmuser_page_cpu) ||
	    (uint64_t)info.nr_cpus * info.page_cpu_stride > info.page_size)
		return -EPROTO;
	p = mmap(NULL, info.page_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	pg->base = p;
	pg->size = info.page_size;
	pg->stride = info.page_cpu_stride;
	pg->nr_cpus = info.nr_cpus;
	pg->fd = fd;
	return 0;
}

void pmuser_page_unmap(struct pmuser_page *pg)
{
	if (pg->base)
		munmap((void *)pg->base, pg->size);
	pg->base = NULL;
}

struct pmuser_page_mark pmuser_page_mark(const struct pmuser_page *pg)
{
	struct pmuser_page_mark m = { sched_getcpu(), 1 };

	if (pg->base && m.cpu >= 0 && (unsigned int)m.cpu < pg->nr_cpus)
		m.seq = pmuser_page_cpu(pg, (unsigned int)m.cpu)->seq;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return m;
}

bool pmuser_page_unchanged(const struct pmuser_page *pg, struct pmuser_page_mark m)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (!pg->base)
		return true;
	return !(m.seq & 1) && m.cpu >= 0 && sched_getcpu() == m.cpu &&
	       pmuser_page_cpu(pg, (unsigned int)m.cpu)->seq == m.seq;
}

/* One attempt: 0, -EAGAIN (retry), or -ENOENT (a slot is on no counter). */
static int page_read_once(const struct pmuser_page *pg, const unsigned int slots[], unsigned int n,
			  uint64_t values[], int *cpu_out)
{
	const volatile struct pmuser_page_cpu *rec;
	struct pmuser_page_slot snap[PMUSER_PAGE_SLOTS];
	uint64_t raw[PMUSER_PAGE_SLOTS];
	uint32_t seq;
	unsigned int i;
	bool none = false;
	int cpu = sched_getcpu();

	if (cpu < 0 || (unsigned int)cpu >= pg->nr_cpus)
		return -EAGAIN;
	rec = pmuser_page_cpu(pg, cpu);
	seq = rec->seq;
	if (seq & 1)
		return -EAGAIN;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	/* Everything used from the page is taken before the sequence is checked again. */
	for (i = 0; i < n; i++) {
		snap[i].hw = rec->slot[slots[i]].hw;
		snap[i].bits = rec->slot[slots[i]].bits;
		snap[i].base = rec->slot[slots[i]].base;
		snap[i].count = rec->slot[slots[i]].count;
		none |= snap[i].hw == PMUSER_HW_NONE;
	}
	pmuser__isb();
	for (i = 0; i < n && !none; i++)
		raw[i] = pmuser_counter_read(snap[i].hw);
	pmuser__isb();
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (rec->seq != seq || sched_getcpu() != cpu)
		return -EAGAIN;
	if (none)
		return -ENOENT;
	for (i = 0; i < n; i++) {
		if (!pmuser_page_raw_usable(&snap[i], raw[i]))
			return -EAGAIN;
		values[i] = pmuser_page_value(&snap[i], raw[i]);
	}
	*cpu_out = cpu;
	return 0;
}

int pmuser_page_read(const struct pmuser_page *pg, const unsigned int slots[], unsigned int n,
		     uint64_t values[], int *cpu)
{
	struct pmuser_cpu_info ci;
	unsigned int tries, i;
	int ret = -EAGAIN;

	if (!pg->base || n > PMUSER_PAGE_SLOTS)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (slots[i] >= PMUSER_PAGE_SLOTS)
			return -EINVAL;
	for (tries = 0; tries < PAGE_TRIES; tries++) {
		ret = page_read_once(pg, slots, n, values, cpu);
		if (!ret)
			return 0;
		/*
		 * A reload whose interrupt waits for an event that does not come, or a slot
		 * perf moved or could not place: CPU_INFO looks on the CPU and republishes.
		 */
		if (tries % PAGE_TRIES_QUIET == PAGE_TRIES_QUIET - 1) {
			int c = sched_getcpu();

			if (c >= 0)
				pmuser_device_cpu_info(pg->fd, (unsigned int)c, &ci);
		}
	}
	return ret;
}
