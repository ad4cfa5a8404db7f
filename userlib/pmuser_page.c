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
	/* Another ABI version lays the records out otherwise. */
	if (info.abi_version != PMUSER_ABI_VERSION || !info.page_size ||
	    info.page_cpu_stride < sizeof(struct pmuser_page_cpu) ||
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
	struct pmuser_page_mark m = { pmuser_thread_cpu(), 1 };

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
	return !(m.seq & 1) && m.cpu >= 0 && pmuser_thread_cpu() == m.cpu &&
	       pmuser_page_cpu(pg, (unsigned int)m.cpu)->seq == m.seq;
}

bool pmuser_page_delta(const struct pmuser_page *pg, struct pmuser_page_mark m,
		       const unsigned int slots[], const unsigned int hw[], unsigned int n,
		       const uint64_t before[], const uint64_t after[], uint64_t delta[])
{
	const volatile struct pmuser_page_cpu *rec;
	bool ok = true;
	unsigned int i;

	if (!pg->base || (m.seq & 1) || m.cpu < 0 || (unsigned int)m.cpu >= pg->nr_cpus ||
	    n > PMUSER_PAGE_SLOTS)
		return false;
	rec = pmuser_page_cpu(pg, (unsigned int)m.cpu);
	for (i = 0; i < n && ok; i++) {
		struct pmuser_page_slot s;

		if (slots[i] >= PMUSER_PAGE_SLOTS)
			return false;
		/* Each field loaded once: what is tested is what the delta is masked with. */
		s.hw = rec->slot[slots[i]].hw;
		s.bits = rec->slot[slots[i]].bits;
		s.base = rec->slot[slots[i]].base;
		/* A slot perf keeps on no counter keeps its last width and base: never counted. */
		ok = s.hw != PMUSER_HW_NONE && s.hw == hw[i] &&
		     pmuser_page_raw_usable(&s, before[i]) && pmuser_page_raw_usable(&s, after[i]);
		delta[i] = (after[i] - before[i]) & pmuser_page_mask(&s);
	}
	/* Last: the slots' fields belong to the marked sequence only if it is still the CPU's. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return ok && pmuser_thread_cpu() == m.cpu && rec->seq == m.seq;
}

int pmuser__thread_cpu_slow(void)
{
	return sched_getcpu();
}

/*
 * One attempt: 0, -EAGAIN (retry), or -ENOENT (a slot is on no counter). Everything taken
 * from the page is read before the sequence is checked again, into locals: the values are
 * computed from one publication only.
 */
static inline __attribute__((always_inline)) int
page_read_once(const struct pmuser_page *pg, const unsigned int slots[], unsigned int n,
	       uint64_t values[], int *cpu_out)
{
	uint64_t base[PMUSER_PAGE_SLOTS], count[PMUSER_PAGE_SLOTS], mask[PMUSER_PAGE_SLOTS];
	uint64_t raw[PMUSER_PAGE_SLOTS];
	uint32_t hw[PMUSER_PAGE_SLOTS];
	const volatile struct pmuser_page_cpu *rec;
	int cpu = pmuser_thread_cpu();
	bool none = false;
	unsigned int i;
	uint32_t seq;

	if (cpu < 0 || (unsigned int)cpu >= pg->nr_cpus)
		return -EAGAIN;
	rec = pmuser_page_cpu(pg, (unsigned int)cpu);
	seq = rec->seq;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++) {
		const volatile struct pmuser_page_slot *s = &rec->slot[slots[i]];
		uint32_t bits = s->bits;

		hw[i] = s->hw;
		base[i] = s->base;
		count[i] = s->count;
		mask[i] = bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1;
		none |= hw[i] == PMUSER_HW_NONE;
	}
	pmuser__isb();
	for (i = 0; i < n && !none; i++)
		raw[i] = pmuser_counter_read(hw[i]);
	pmuser__isb();
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((seq & 1) || rec->seq != seq || pmuser_thread_cpu() != cpu)
		return -EAGAIN;
	if (none)
		return -ENOENT;
	for (i = 0; i < n; i++) {
		uint64_t r = raw[i] & mask[i];

		/* Below base or all ones: perf reloaded the counter, its interrupt is to come. */
		if (r < base[i] || r == mask[i])
			return -EAGAIN;
		values[i] = count[i] + ((r - base[i]) & mask[i]);
	}
	*cpu_out = cpu;
	return 0;
}

typedef int page_read_fn(const struct pmuser_page *pg, const unsigned int slots[], unsigned int n,
			 uint64_t values[], int *cpu);

/* Readers for a set of a fixed size: the loops unroll, each counter read is one step. */
#define PAGE_READ_FIXED(k)							\
static int page_read_##k(const struct pmuser_page *pg, const unsigned int slots[],	\
			 unsigned int n, uint64_t values[], int *cpu)		\
{										\
	(void)n;								\
	return page_read_once(pg, slots, k, values, cpu);			\
}
PAGE_READ_FIXED(1)
PAGE_READ_FIXED(2)
PAGE_READ_FIXED(3)
PAGE_READ_FIXED(4)

static int page_read_any(const struct pmuser_page *pg, const unsigned int slots[], unsigned int n,
			 uint64_t values[], int *cpu)
{
	return page_read_once(pg, slots, n, values, cpu);
}

int pmuser_page_read(const struct pmuser_page *pg, const unsigned int slots[], unsigned int n,
		     uint64_t values[], int *cpu)
{
	static page_read_fn *const fixed[] = { page_read_any, page_read_1, page_read_2,
					       page_read_3, page_read_4 };
	page_read_fn *once = n < sizeof(fixed) / sizeof(fixed[0]) ? fixed[n] : page_read_any;
	struct pmuser_cpu_info ci;
	unsigned int tries, i;
	int ret = -EAGAIN;

	if (!pg->base || n > PMUSER_PAGE_SLOTS)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (slots[i] >= PMUSER_PAGE_SLOTS)
			return -EINVAL;
	for (tries = 0; tries < PAGE_TRIES; tries++) {
		ret = once(pg, slots, n, values, cpu);
		if (!ret)
			return 0;
		/*
		 * A reload whose interrupt waits for an event that does not come, or a slot
		 * perf moved or could not place: CPU_INFO looks on the CPU and republishes.
		 */
		if (tries % PAGE_TRIES_QUIET == PAGE_TRIES_QUIET - 1) {
			int c = pmuser_thread_cpu();

			if (c >= 0)
				pmuser_device_cpu_info(pg->fd, (unsigned int)c, &ci);
		}
	}
	return ret;
}
