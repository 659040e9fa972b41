/*
 * mir.c: MIR bit-stuffed HDLC framing (see mir.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <string.h>

#include "fcs.h"
#include "mir.h"

size_t mir_encoded_max_bits(size_t frame_len, unsigned nflags)
{
	size_t body = (frame_len + MIR_FCS_LEN) * 8;

	return (size_t)nflags * 8 + body + body / 5 + 8;
}

size_t mir_encoded_max_bytes(size_t frame_len, unsigned nflags)
{
	return (mir_encoded_max_bits(frame_len, nflags) + 7) / 8;
}

uint64_t mir_air_time_us(uint32_t baud, uint64_t nbits)
{
	if (baud == 0)
		return UINT64_MAX;
	return (nbits * 1000000u + baud - 1) / baud;
}

/* A bit sink over out[0..cap); sink == NULL only counts. */
struct bitw {
	uint8_t *out;
	size_t cap;
	size_t n;	/* bits written */
	int full;
};

static void put_bit(struct bitw *w, unsigned b)
{
	if (w->out) {
		size_t i = w->n / 8;
		if (i >= w->cap) {
			w->full = 1;
			return;
		}
		if (w->n % 8 == 0)
			w->out[i] = 0;
		w->out[i] |= (uint8_t)((b & 1u) << (w->n % 8));
	}
	w->n++;
}

static void put_flag(struct bitw *w)
{
	for (int i = 0; i < 8; i++)
		put_bit(w, (MIR_FLAG >> i) & 1u);
}

static void put_stuffed(struct bitw *w, uint8_t byte, unsigned *ones)
{
	for (int i = 0; i < 8; i++) {
		unsigned b = (byte >> i) & 1u;
		put_bit(w, b);
		if (b) {
			if (++*ones == 5) {
				put_bit(w, 0);
				*ones = 0;
			}
		} else {
			*ones = 0;
		}
	}
}

static void encode(struct bitw *w, const uint8_t *frame, size_t len, unsigned nflags)
{
	unsigned ones = 0;
	uint16_t fcs = fcs_compute(frame, len);

	for (unsigned f = 0; f < nflags; f++)
		put_flag(w);
	for (size_t i = 0; i < len; i++)
		put_stuffed(w, frame[i], &ones);
	put_stuffed(w, (uint8_t)(fcs & 0xFF), &ones);
	put_stuffed(w, (uint8_t)(fcs >> 8), &ones);
	put_flag(w);
}

size_t mir_air_bits(const uint8_t *frame, size_t frame_len, unsigned nflags)
{
	struct bitw w = { 0 };

	encode(&w, frame, frame_len, nflags);
	return w.n;
}

long mir_encode(uint8_t *out, size_t cap, const uint8_t *frame,
		size_t frame_len, unsigned nflags)
{
	struct bitw w = { .out = out, .cap = cap };

	if (nflags < MIR_MIN_FLAGS || frame_len > MIR_MAX_FRAME ||
	    (frame_len && !frame) || !out)
		return -EINVAL;
	encode(&w, frame, frame_len, nflags);
	if (w.full)
		return -ENOSPC;
	return (long)w.n;
}

/* ---- decoding ----------------------------------------------------- */

int mir_decoder_init(struct mir_decoder *d, uint8_t *buf, size_t buf_len,
		     mir_frame_fn on_frame, void *ctx)
{
	if (!d || !buf || !on_frame || buf_len < MIR_FCS_LEN)
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->on_frame = on_frame;
	d->ctx = ctx;
	d->buf = buf;
	d->cap = buf_len;
	d->state = MIR_RX_HUNT;
	return 0;
}

static void start_frame(struct mir_decoder *d)
{
	d->state = MIR_RX_FRAME;
	d->nbits = 0;
	d->len = 0;
	d->acc = d->accn = 0;
}

void mir_decoder_reset(struct mir_decoder *d)
{
	d->state = MIR_RX_HUNT;
	d->ones = 0;
	d->nbits = 0;
	d->len = 0;
	d->acc = d->accn = 0;
}

/* Stores one data bit; false if the frame overflowed (then HUNT). */
static int store(struct mir_decoder *d, unsigned b)
{
	d->acc |= (b & 1u) << d->accn;
	d->nbits++;
	if (++d->accn == 8) {
		if (d->len >= d->cap) {
			d->cnt.overflows++;
			d->state = MIR_RX_HUNT;
			return 0;
		}
		d->buf[d->len++] = (uint8_t)d->acc;
		d->acc = d->accn = 0;
	}
	return 1;
}

/* A closing flag: the last stored bit is the flag's leading 0. */
static void end_frame(struct mir_decoder *d)
{
	uint64_t data = d->nbits ? d->nbits - 1 : 0;

	if (data < 8)
		return;		/* repeated flags, idle fill */
	if (data % 8) {
		d->cnt.misaligned++;
		return;
	}
	if (d->len < MIR_FCS_LEN) {
		d->cnt.runts++;
		return;
	}
	if (!fcs_check(d->buf, d->len)) {
		d->cnt.fcs_errors++;
		return;
	}
	d->cnt.frames++;
	d->on_frame(d->ctx, d->buf, d->len - MIR_FCS_LEN);
}

static void bit_in(struct mir_decoder *d, unsigned b)
{
	d->cnt.bits++;
	if (b) {
		if (++d->ones == 7 && d->state == MIR_RX_FRAME) {
			if (d->nbits > 0)
				d->cnt.aborts++;
			d->state = MIR_RX_HUNT;
		}
		if (d->ones > 7)
			d->ones = 7;
		return;
	}
	unsigned ones = d->ones;
	d->ones = 0;
	if (ones == 6) {		/* a flag */
		if (d->state == MIR_RX_FRAME)
			end_frame(d);
		start_frame(d);
		return;
	}
	if (d->state != MIR_RX_FRAME)
		return;
	for (unsigned i = 0; i < ones; i++)
		if (!store(d, 1))
			return;
	if (ones == 5)
		return;			/* a stuffed 0 */
	store(d, 0);
}

void mir_decoder_feed_bits(struct mir_decoder *d, const uint8_t *bytes, size_t nbits)
{
	for (size_t i = 0; i < nbits; i++)
		bit_in(d, (bytes[i / 8] >> (i % 8)) & 1u);
}

void mir_decoder_feed(struct mir_decoder *d, const uint8_t *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 8; k++)
			bit_in(d, (bytes[i] >> k) & 1u);
}

enum mir_rx_state mir_decoder_state(const struct mir_decoder *d)
{
	return d->state;
}

const struct mir_counters *mir_decoder_counters(const struct mir_decoder *d)
{
	return &d->cnt;
}
