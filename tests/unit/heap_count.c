/*
 * heap_count.c: see heap_count.h.  The program-wide counters are the one
 * global of this test helper: the allocator has no context to carry
 * them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <malloc.h>
#include <stddef.h>
#include <stdlib.h>

#include "heap_count.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static struct heap_count hc;

static void gained(void *p)
{
	if (!p)
		return;
	hc.blocks++;
	hc.bytes += (int64_t)malloc_usable_size(p);
	hc.allocs++;
	if (hc.blocks > hc.peak_blocks)
		hc.peak_blocks = hc.blocks;
	if (hc.bytes > hc.peak_bytes)
		hc.peak_bytes = hc.bytes;
}

static void lost(void *p)
{
	if (!p)
		return;
	hc.blocks--;
	hc.bytes -= (int64_t)malloc_usable_size(p);
	hc.frees++;
}

void *__wrap_malloc(size_t n)
{
	void *p = __real_malloc(n);
	gained(p);
	return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
	void *p = __real_calloc(n, size);
	gained(p);
	return p;
}

void *__wrap_realloc(void *p, size_t n)
{
	size_t old = p ? malloc_usable_size(p) : 0;
	void *q = __real_realloc(p, n);

	if (!p) {
		gained(q);
	} else if (q) {
		hc.bytes += (int64_t)malloc_usable_size(q) - (int64_t)old;
		if (hc.bytes > hc.peak_bytes)
			hc.peak_bytes = hc.bytes;
	} else if (n == 0) {
		/* glibc frees on realloc(p, 0) */
		hc.blocks--;
		hc.bytes -= (int64_t)old;
		hc.frees++;
	}
	return q;
}

void __wrap_free(void *p)
{
	lost(p);
	__real_free(p);
}

struct heap_count heap_count_get(void)
{
	return hc;
}

void heap_count_reset_peak(void)
{
	hc.peak_blocks = hc.blocks;
	hc.peak_bytes = hc.bytes;
}
