// SPDX-License-Identifier: MIT
/*
 * pmu-spin: a workload with a known instruction count, for checking pmu-stat (and any
 * counter) against a prediction. It runs ITERATIONS of a two-instruction loop (decrement,
 * branch) written in asm so the compiler cannot change it: 2 x ITERATIONS instructions plus
 * the program's own start-up and exit, a few thousand. With PHASES > 1 it repeats the loop
 * PHASES times with SLEEP_MS of sleep between, so a rate plot shows the phases.
 *
 * usage: pmu-spin ITERATIONS [PHASES [SLEEP_MS]]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The loop counter is one register: 32 bits on 32-bit ARM. */
#if defined(__arm__)
#define MAX_ITERATIONS 0xffffffffULL
#else
#define MAX_ITERATIONS (UINT64_MAX / 2)
#endif

static void spin(uint64_t n)
{
	if (!n)
		return;
#if defined(__aarch64__)
	__asm__ __volatile__("1:\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#elif defined(__arm__)
	uint32_t k = (uint32_t)n;

	__asm__ __volatile__("1:\tsubs %0, %0, #1\n\tbne 1b" : "+r"(k) : : "cc");
#elif defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("1:\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
	volatile uint64_t k = n;

	while (k)
		k--;
#endif
}

static int parse(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	static const char usage[] =
		"usage: pmu-spin ITERATIONS [PHASES [SLEEP_MS]]\n"
		"  runs PHASES x ITERATIONS iterations of a two-instruction loop, with SLEEP_MS\n"
		"  of sleep between phases\n"
		"  -h, --help   this text\n";
	uint64_t n, phases = 1, sleep_ms = 0, p;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc < 2 || argc > 4 || parse(argv[1], MAX_ITERATIONS, &n) ||
	    (argc > 2 && (parse(argv[2], 1000000, &phases) || !phases)) ||
	    (argc > 3 && parse(argv[3], 3600000, &sleep_ms))) {
		fputs(usage, stderr);
		return 2;
	}
	for (p = 0; p < phases; p++) {
		if (p && sleep_ms) {
			struct timespec ts = { (time_t)(sleep_ms / 1000),
					       (long)(sleep_ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
		}
		spin(n);
	}
	return 0;
}
