/*
 * bench_util.h: what the micro-benchmarks share: the monotonic clock
 * they time with, and the pseudo-random payload they push through.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_BENCH_UTIL_H
#define IRNET_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Seconds on CLOCK_MONOTONIC. */
static inline double bench_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* n pseudo-random bytes (a linear congruential generator in *state):
 * the same payload in every run, with the share of bytes that need
 * escaping that random data has. */
static inline void bench_random_bytes(uint8_t *buf, size_t n, uint32_t *state)
{
	for (size_t k = 0; k < n; k++) {
		*state = *state * 1103515245u + 12345u;
		buf[k] = (uint8_t)(*state >> 16);
	}
}

#endif
