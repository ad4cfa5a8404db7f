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

#include "tool_opts.h"

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

/* Operand i of argv (from first) as a number in [min, max], or dflt when absent. */
static int operand(char **argv, int argc, int i, const char *name, uint64_t min, uint64_t max,
		   uint64_t *out)
{
	char why[128];

	if (i >= argc)
		return 0;
	if (tool_parse_u64(argv[i], false, min, max, out, why, sizeof(why)))
		return tool_bad("pmu-spin", "%s '%s': %s", name, argv[i], why);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct tool_opt opts[] = { { NULL } };
	static const struct tool_cli cli = {
		.tool = "pmu-spin", .synopsis = "ITERATIONS [PHASES [SLEEP_MS]]",
		.about = "Runs PHASES (default 1) x ITERATIONS iterations of a two-instruction loop,\n"
			 "with SLEEP_MS (default 0) of sleep between phases.",
		.opts = opts, .operands = 3,
	};
	uint64_t n, phases = 1, sleep_ms = 0, p;
	int first, ret = tool_parse(&cli, argc, argv, &first);

	if (ret >= 0)
		return ret;
	if (first >= argc)
		return tool_bad(cli.tool, "no ITERATIONS (usage: pmu-spin %s)", cli.synopsis);
	if (operand(argv, argc, first, "ITERATIONS", 0, MAX_ITERATIONS, &n) ||
	    operand(argv, argc, first + 1, "PHASES", 1, 1000000, &phases) ||
	    operand(argv, argc, first + 2, "SLEEP_MS", 0, 3600000, &sleep_ms))
		return 2;
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
