/*
 * heap_count.h: live heap blocks and bytes of a test program, counted by
 * wrapping the C allocator at link time (-Wl,--wrap=malloc,calloc,
 * realloc,free: every object linked into the program, the stack's
 * libraries included, calls the counting versions; libc's own internal
 * allocations are not seen, and the stack frees none of those).
 * Bytes are malloc_usable_size() of each block (what the allocator
 * really holds; the requested size under ASan).  Single-threaded.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_TESTS_HEAP_COUNT_H
#define IRNET_TESTS_HEAP_COUNT_H

#include <stdint.h>

struct heap_count {
	int64_t blocks, bytes;         /* live now */
	int64_t peak_blocks, peak_bytes;
	uint64_t allocs, frees;        /* calls that allocated / released a block */
};

/* The counters so far. */
struct heap_count heap_count_get(void);
/* Starts the peaks again from the live figures. */
void heap_count_reset_peak(void);

/* Link flags for a program that uses this (see tests/unit/local.mk). */
#define HEAP_COUNT_LDFLAGS "-Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc -Wl,--wrap=free"

#endif
