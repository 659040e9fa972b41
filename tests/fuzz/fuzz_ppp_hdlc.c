/*
 * fuzz_ppp_hdlc.c: the async HDLC decoder on arbitrary bytes in arbitrary
 * chunks.  Invariants: no crash; every delivered frame is 1..max_frame
 * bytes, and encoding it again (with the ACCM that escapes everything and
 * with ACCM 0) and decoding that gives back exactly the frame, once; the
 * counters add up (bytes fed, frames delivered, and never more frame ends
 * than flags in the input).  The decoder's memory is fixed when it is
 * made, so a flagless flood cannot grow it.
 *
 * Input: byte 0 picks the frame cap, byte 1 the receive ACCM, byte 2
 * seeds the chunking, the rest is the line.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_chunks.h"
#include "ppp_hdlc.h"

/* The decoder's feed, as fuzz_feed_chunks calls it. */
static void feed_decoder(void *ctx, const uint8_t *b, size_t k)
{
	ppp_hdlc_decoder_feed(ctx, b, k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct echo {
	const uint8_t *want;
	size_t want_len;
	size_t got;
};

struct check {
	size_t max_frame;
	size_t delivered;
	struct ppp_hdlc_encoder enc[2];
	struct ppp_hdlc_decoder *again;	/* decodes the re-encoded frames */
	struct echo echo;
	uint8_t *line;
	size_t line_cap;
};

static void on_echo(void *ctx, const uint8_t *frame, size_t len)
{
	struct echo *e = ctx;

	if (len != e->want_len || memcmp(frame, e->want, len) != 0)
		abort();
	e->got++;
}

static void on_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct check *c = ctx;

	if (len < 1 || len > c->max_frame)
		abort();
	c->delivered++;
	for (size_t i = 0; i < 2; i++) {
		struct wcursor w;
		wcursor_init(&w, c->line, c->line_cap);
		int n = ppp_hdlc_encode(&c->enc[i], &w, frame, len, 0);
		if (n < 0 || (size_t)n > ppp_hdlc_encoded_max(len) ||
		    (size_t)n != ppp_hdlc_encoded_len(&c->enc[i], frame, len, 0))
			abort();
		c->echo = (struct echo){ .want = frame, .want_len = len };
		ppp_hdlc_decoder_feed(c->again, c->line, (size_t)n);
		if (c->echo.got != 1)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	static const uint32_t accms[] = { 0, PPP_HDLC_ACCM_ALL, 0x000A0000, 0x80000001 };
	size_t max_frame = 1 + (size_t)data[0] * 8;
	uint32_t rx_accm = accms[data[1] % 4];
	uint32_t seed = data[2] * 2654435761u + 1;
	const uint8_t *line = data + 3;
	size_t n = size - 3;

	struct check c = { .max_frame = max_frame };
	ppp_hdlc_encoder_init(&c.enc[0], PPP_HDLC_ACCM_ALL);
	ppp_hdlc_encoder_init(&c.enc[1], 0);
	c.line_cap = ppp_hdlc_encoded_max(max_frame);
	c.line = malloc(c.line_cap);
	/* frames sent with ACCM 0 keep their control characters: the echo
	 * decoder must not drop any */
	struct ppp_hdlc_decoder_config ecfg = {
		.max_frame = max_frame, .on_frame = on_echo, .ctx = &c.echo,
	};
	c.again = ppp_hdlc_decoder_new(&ecfg);
	struct ppp_hdlc_decoder_config cfg = {
		.max_frame = max_frame, .rx_accm = rx_accm, .on_frame = on_frame, .ctx = &c,
	};
	struct ppp_hdlc_decoder *d = ppp_hdlc_decoder_new(&cfg);
	if (!c.line || !c.again || !d)
		abort();

	fuzz_feed_chunks(line, n, seed, feed_decoder, d);
	const struct ppp_hdlc_rx_counters *cn = ppp_hdlc_decoder_counters(d);
	size_t flags = 0;
	for (size_t i = 0; i < n; i++)
		flags += line[i] == PPP_HDLC_FLAG;
	if (cn->bytes != n || cn->frames != c.delivered ||
	    cn->frames + cn->fcs_errors + cn->runts + cn->empty + cn->aborts > flags)
		abort();
	ppp_hdlc_decoder_free(d);
	ppp_hdlc_decoder_free(c.again);
	free(c.line);
	return 0;
}
