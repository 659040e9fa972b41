/*
 * fuzz_chunks.h: feeding a streaming decoder in pseudo-random chunks, for
 * the fuzz harnesses (a decoder must give the same result however its
 * input is split).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_FUZZ_CHUNKS_H
#define IRNET_FUZZ_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

/* Calls feed(ctx, bytes, k) over bytes[0..n) in chunks of 1..64 bytes
 * drawn from a xorshift32 generator started at seed (not 0). */
static inline void fuzz_feed_chunks(const uint8_t *bytes, size_t n, uint32_t seed,
				    void (*feed)(void *ctx, const uint8_t *b, size_t k), void *ctx)
{
	size_t at = 0;

	while (at < n) {
		size_t k;

		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		k = 1 + seed % 64;
		if (k > n - at)
			k = n - at;
		feed(ctx, bytes + at, k);
		at += k;
	}
}

#endif
