/*
 * bench_clock.h: the monotonic clock the micro-benchmarks time with.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_BENCH_CLOCK_H
#define IRNET_BENCH_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC. */
static inline double bench_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#endif
