/*
 * fuzz_sir.c: the incremental SIR decoder against a whole-buffer
 * reference unwrapper written separately here, on arbitrary bytes in
 * arbitrary chunks.  Every delivered frame must be one the reference
 * finds, carry a good FCS (checked bit by bit, not with the table) and
 * respect the I-field cap.
 *
 * Input: byte 0 picks the cap, byte 1 seeds the chunking, the rest is
 * the line.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_chunks.h"
#include "sir.h"

/* The decoder's feed, as fuzz_feed_chunks calls it. */
static void feed_decoder(void *ctx, const uint8_t *b, size_t k)
{
	sir_decoder_feed(ctx, b, k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_REF_FRAMES 4096

struct ref {
	size_t count;
	size_t off[MAX_REF_FRAMES];	/* into buf */
	size_t len[MAX_REF_FRAMES];
	uint8_t *buf;
};

struct check {
	const struct ref *ref;
	size_t next;
	size_t cap;
	const uint8_t *line;
};

static uint16_t crc_bitwise(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xFFFF;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc & 1) ? (uint16_t)((crc >> 1) ^ 0x8408) : (uint16_t)(crc >> 1);
	}
	return crc;
}

/* The rules of sir.h, restated: frames run from a BOF (repeats allowed)
 * to an EOF; CE escapes the next byte; a BOF, CE CE or CE EOF inside
 * a frame abandons it; frames over the cap are dropped; a frame needs A,
 * C and two FCS bytes and a good residue. */
static void reference(const uint8_t *p, size_t n, size_t cap, struct ref *r)
{
	size_t i = 0;
	size_t out = 0;

	r->count = 0;
	while (i < n) {
		if (p[i] != 0xC0) {
			i++;
			continue;
		}
		while (i < n && p[i] == 0xC0)
			i++;
		size_t start = out, len = 0;
		bool ok = true, done = false;
		while (i < n && !done) {
			uint8_t b = p[i];
			if (b == 0xC0)
				break;		/* restart at this BOF */
			i++;
			if (b == 0xC1) {
				done = true;
				break;
			}
			if (b == 0x7D) {
				if (i == n)
					break;
				b = p[i];
				if (b == 0xC0)
					break;
				i++;
				if (b == 0x7D || b == 0xC1) {
					ok = false;	/* abort: back to hunting */
					break;
				}
				b ^= 0x20;
			}
			if (len == cap + 4) {
				ok = false;	/* overflow: rest is noise */
				break;
			}
			r->buf[out++] = b;
			len++;
		}
		if (done && ok && len >= 4 && crc_bitwise(r->buf + start, len) == 0xF0B8 &&
		    r->count < MAX_REF_FRAMES) {
			r->off[r->count] = start;
			r->len[r->count] = len - 2;
			r->count++;
		} else {
			out = start;
		}
	}
}

static void on_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct check *c = ctx;

	if (len < 2 || len > c->cap + 2)
		abort();
	if (c->next >= c->ref->count)
		abort();
	size_t k = c->next++;
	if (c->ref->len[k] != len ||
	    memcmp(c->ref->buf + c->ref->off[k], frame, len) != 0)
		abort();
	/* the reference kept the FCS bytes: check the residue again */
	if (crc_bitwise(c->ref->buf + c->ref->off[k], len + 2) != 0xF0B8)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t cap = 1 + (size_t)data[0] * 8;
	uint32_t seed = data[1] * 2654435761u + 1;
	const uint8_t *line = data + 2;
	size_t n = size - 2;

	struct ref r;
	r.buf = malloc(n + 1);
	if (!r.buf)
		return 0;
	reference(line, n, cap, &r);
	if (r.count == MAX_REF_FRAMES) {
		free(r.buf);
		return 0;
	}

	struct check c = { .ref = &r, .cap = cap, .line = line };
	struct sir_decoder_config cfg = { .max_ifield = cap, .on_frame = on_frame, .ctx = &c };
	struct sir_decoder *d = sir_decoder_new(&cfg);
	if (!d) {
		free(r.buf);
		return 0;
	}
	fuzz_feed_chunks(line, n, seed, feed_decoder, d);
	if (c.next != r.count)
		abort();
	const struct sir_counters *cn = sir_decoder_counters(d);
	if (cn->frames != r.count || cn->bytes != n)
		abort();
	sir_decoder_free(d);
	free(r.buf);
	return 0;
}
