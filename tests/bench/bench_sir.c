/*
 * bench_sir.c: SIR encoder and decoder throughput, on 2048-byte I-fields
 * of random bytes (about 1.2 % need escaping).  Prints
 *   bench: sir_encode_throughput VALUE MB/s   (frame bytes in)
 *   bench: sir_decode_throughput VALUE MB/s   (line bytes in)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"
#include "sir.h"

#define FRAME 2050
#define FRAMES 256


static size_t delivered;

static void on_frame(void *ctx, const uint8_t *f, size_t n)
{
	delivered += n;
}

int main(void)
{
	static uint8_t frames[FRAMES][FRAME];
	size_t cap = FRAMES * sir_encoded_max(FRAME, 0);
	uint8_t *line = malloc(cap);
	if (!line)
		return 1;
	uint32_t s = 12345;
	for (size_t i = 0; i < FRAMES; i++)
		bench_random_bytes(frames[i], FRAME, &s);

	/* encode: repeat until 0.5 s have passed */
	struct wcursor w;
	size_t line_len = 0;
	double t0 = bench_seconds(), t;
	uint64_t in = 0;
	do {
		wcursor_init(&w, line, cap);
		for (size_t i = 0; i < FRAMES; i++)
			if (sir_encode(&w, frames[i], FRAME, 0) < 0)
				return 1;
		in += (uint64_t)FRAMES * FRAME;
		line_len = wcursor_len(&w);
		t = bench_seconds();
	} while (t - t0 < 0.5);
	printf("bench: sir_encode_throughput %.1f MB/s\n", (double)in / (t - t0) / 1e6);

	struct sir_decoder_config cfg = { .on_frame = on_frame };
	struct sir_decoder *d = sir_decoder_new(&cfg);
	if (!d)
		return 1;
	in = 0;
	t0 = bench_seconds();
	do {
		for (size_t at = 0; at < line_len; at += 4096)
			sir_decoder_feed(d, line + at, line_len - at < 4096 ? line_len - at : 4096);
		in += line_len;
		t = bench_seconds();
	} while (t - t0 < 0.5);
	if (delivered != in / line_len * FRAMES * FRAME) {
		fprintf(stderr, "bench_sir: decoder lost frames\n");
		return 1;
	}
	printf("bench: sir_decode_throughput %.1f MB/s\n", (double)in / (t - t0) / 1e6);
	sir_decoder_free(d);
	free(line);
	return 0;
}
