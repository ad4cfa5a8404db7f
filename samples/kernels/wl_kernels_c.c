// SPDX-License-Identifier: MIT
/*
 * The workload kernels in C, with the same semantics and no formulas, where there is no
 * assembly for the ISA (an x86 box).
 */
#if !defined(__aarch64__) && !defined(__arm__)
#include "wl_kernels.h"

void wl_k_empty(void *args)
{
	(void)args;
}

void wl_k_chase(void *args)
{
	struct wl_chase_args *a = args;
	uintptr_t it;

	for (it = a->iterations; it; it--) {
		void *volatile *p = (void *volatile *)a->head;

		while (p)
			p = (void *volatile *)*p;
	}
}

void wl_k_misp(void *args)
{
	struct wl_misp_args *a = args;
	const volatile char *s = (const volatile char *)a->array;
	uintptr_t it, i, ones = 0;

	for (it = a->iterations; it; it--)
		for (i = 0; i < a->size; i++)
			if (s[i] == '1')
				ones++;
	a->ones = ones;
}

void wl_k_mm_textbook(void *args)
{
	struct wl_matrix_args *a = args;
	const int32_t *A = (const int32_t *)a->a, *B = (const int32_t *)a->b;
	int32_t *C = (int32_t *)a->c;
	size_t n = a->n, i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			uint32_t sum = 0;

			for (k = 0; k < n; k++)
				sum += (uint32_t)A[i * n + k] * (uint32_t)B[k * n + j];
			C[i * n + j] = (int32_t)sum;
		}
}

void wl_k_mm_interchange(void *args)
{
	struct wl_matrix_args *a = args;
	const int32_t *A = (const int32_t *)a->a, *B = (const int32_t *)a->b;
	int32_t *C = (int32_t *)a->c;
	size_t n = a->n, i, j, k;

	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++)
			C[i * n + j] = 0;
		for (k = 0; k < n; k++) {
			uint32_t r = (uint32_t)A[i * n + k];

			for (j = 0; j < n; j++)
				C[i * n + j] = (int32_t)((uint32_t)C[i * n + j] +
							 r * (uint32_t)B[k * n + j]);
		}
	}
}

void wl_k_walk(void *args)
{
	struct wl_walk_args *a = args;
	uintptr_t it, i;
	uint32_t sum = 0;

	for (it = a->iterations; it; it--)
		for (i = 0; i < a->count; i++)
			sum += *(const volatile uint32_t *)(a->base + i * a->stride);
	a->sum = sum;
}

void wl_k_raw_chain(void *args)
{
	struct wl_hazard_args *a = args;
	volatile uintptr_t x = 0;
	uintptr_t it;

	for (it = a->iterations; it; it--)
		x = x + 1;
	a->out = x;
}

void wl_k_raw_indep(void *args)
{
	wl_k_raw_chain(args);
}

void wl_k_div_indep(void *args)
{
	struct wl_hazard_args *a = args;
	volatile uint32_t d = 7, x = 0;
	uintptr_t it;

	for (it = a->iterations; it; it--)
		x = UINT32_MAX / d;
	a->out = x;
}

void wl_k_mul_indep(void *args)
{
	struct wl_hazard_args *a = args;
	volatile uint32_t d = 7, x = 0;
	uintptr_t it;

	for (it = a->iterations; it; it--)
		x = UINT32_MAX * d;
	a->out = x;
}

bool wl_have_divide(const char **why)
{
	*why = NULL;
	return true;
}

void wl_ovh_null(void *unused)
{
	(void)unused;
}

void wl_ovh_raw(void *unused)
{
	(void)unused;
}

void wl_ovh_serial(void *unused)
{
	(void)unused;
}

void wl_ovh_cntvct(void *unused)
{
	(void)unused;
}

uint64_t wl_cntvct_read(void)
{
	return 0;
}

uint64_t wl_cntfrq_read(void)
{
	return 0;
}

bool wl_cntvct_usable(const char **why)
{
	*why = "no generic timer on this architecture";
	return false;
}

#endif
