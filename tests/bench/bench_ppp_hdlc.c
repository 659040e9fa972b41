/*
 * bench_ppp_hdlc.c: RFC 1662 async HDLC encoder and decoder throughput on
 * 1500-byte frames of random bytes, side by side with the transmit ACCM
 * the IrNET helper uses (0xffffffff: about 13 % of random bytes escaped)
 * and with ACCM 0 (under 1 %).  Prints
 *   bench: ppp_hdlc_encode_throughput VALUE MB/s        (frame bytes in, ACCM all)
 *   bench: ppp_hdlc_encode_accm0_throughput VALUE MB/s  (frame bytes in, ACCM 0)
 *   bench: ppp_hdlc_decode_throughput VALUE MB/s        (line bytes in, ACCM all)
 *   bench: ppp_hdlc_decode_accm0_throughput VALUE MB/s  (line bytes in, ACCM 0)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"
#include "ppp_hdlc.h"

#define FRAME 1500
#define FRAMES 256
#define CHUNK 4096


static void on_frame(void *ctx, const uint8_t *f, size_t n)
{
	(void)f;
	*(uint64_t *)ctx += n;
}

/* Encodes every frame again and again for 0.5 s; leaves one pass in line. */
static int encode_run(uint32_t accm, uint8_t (*frames)[FRAME], uint8_t *line,
		      size_t cap, size_t *line_len, const char *name)
{
	struct ppp_hdlc_encoder e;
	struct wcursor w;
	uint64_t in = 0;
	double t0 = bench_seconds(), t;

	ppp_hdlc_encoder_init(&e, accm);
	do {
		wcursor_init(&w, line, cap);
		for (size_t i = 0; i < FRAMES; i++)
			if (ppp_hdlc_encode(&e, &w, frames[i], FRAME, 0) < 0)
				return -1;
		in += (uint64_t)FRAMES * FRAME;
		t = bench_seconds();
	} while (t - t0 < 0.5);
	*line_len = wcursor_len(&w);
	printf("bench: %s %.1f MB/s\n", name, (double)in / (t - t0) / 1e6);
	return 0;
}

static int decode_run(const uint8_t *line, size_t line_len, const char *name)
{
	uint64_t delivered = 0, in = 0;
	struct ppp_hdlc_decoder_config cfg = { .on_frame = on_frame, .ctx = &delivered };
	struct ppp_hdlc_decoder *d = ppp_hdlc_decoder_new(&cfg);
	if (!d)
		return -1;
	double t0 = bench_seconds(), t;
	do {
		for (size_t at = 0; at < line_len; at += CHUNK)
			ppp_hdlc_decoder_feed(d, line + at,
					      line_len - at < CHUNK ? line_len - at : CHUNK);
		in += line_len;
		t = bench_seconds();
	} while (t - t0 < 0.5);
	ppp_hdlc_decoder_free(d);
	if (delivered != in / line_len * FRAMES * FRAME) {
		fprintf(stderr, "bench_ppp_hdlc: decoder lost frames\n");
		return -1;
	}
	printf("bench: %s %.1f MB/s\n", name, (double)in / (t - t0) / 1e6);
	return 0;
}

int main(void)
{
	static uint8_t frames[FRAMES][FRAME];
	size_t cap = FRAMES * ppp_hdlc_encoded_max(FRAME);
	uint8_t *all = malloc(cap), *none = malloc(cap);
	if (!all || !none)
		return 1;
	uint32_t s = 12345;
	for (size_t i = 0; i < FRAMES; i++)
		bench_random_bytes(frames[i], FRAME, &s);
	size_t all_len = 0, none_len = 0;
	if (encode_run(PPP_HDLC_ACCM_ALL, frames, all, cap, &all_len,
		       "ppp_hdlc_encode_throughput") < 0 ||
	    encode_run(0, frames, none, cap, &none_len,
		       "ppp_hdlc_encode_accm0_throughput") < 0 ||
	    decode_run(all, all_len, "ppp_hdlc_decode_throughput") < 0 ||
	    decode_run(none, none_len, "ppp_hdlc_decode_accm0_throughput") < 0)
		return 1;
	free(all);
	free(none);
	return 0;
}
