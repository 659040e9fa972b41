/*
 * fir.c: FIR 4PPM framing (see fir.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <string.h>

#include "fcs32.h"
#include "fir.h"

static const uint8_t preamble[4] = { 0x8, 0x0, 0xA, 0x8 };
static const uint8_t start_flag[8] = { 0x0, 0xC, 0x0, 0xC, 0x6, 0x0, 0x6, 0x0 };
static const uint8_t stop_flag[8] = { 0x0, 0xC, 0x0, 0xC, 0x0, 0x6, 0x0, 0x6 };

uint64_t fir_air_chips(size_t frame_len)
{
	return 4u * (FIR_PREAMBLE_REPEAT * 4u + 8u + 8u) +
	       16u * ((uint64_t)frame_len + FIR_FCS_LEN);
}

uint64_t fir_air_time_us(uint64_t chips)
{
	return (chips + 7) / 8;
}

size_t fir_encoded_len(size_t frame_len)
{
	return (size_t)(fir_air_chips(frame_len) / 8);
}

static uint8_t sym_of(unsigned pair)
{
	return (uint8_t)(0x8u >> (pair & 3u));
}

/* Two output bytes for one data byte. */
static void put_byte(uint8_t *o, uint8_t b)
{
	o[0] = (uint8_t)(sym_of(b) << 4 | sym_of(b >> 2));
	o[1] = (uint8_t)(sym_of(b >> 4) << 4 | sym_of(b >> 6));
}

static size_t put_syms(uint8_t *o, const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n; i += 2)
		o[i / 2] = (uint8_t)(s[i] << 4 | s[i + 1]);
	return n / 2;
}

long fir_encode(uint8_t *out, size_t cap, const uint8_t *frame, size_t frame_len)
{
	size_t need, at = 0;
	uint32_t crc;

	if (frame_len > FIR_MAX_FRAME || (frame_len && !frame) || !out)
		return -EINVAL;
	need = fir_encoded_len(frame_len);
	if (cap < need)
		return -ENOSPC;
	for (int i = 0; i < FIR_PREAMBLE_REPEAT; i++)
		at += put_syms(out + at, preamble, sizeof(preamble));
	at += put_syms(out + at, start_flag, sizeof(start_flag));
	for (size_t i = 0; i < frame_len; i++, at += 2)
		put_byte(out + at, frame[i]);
	crc = fcs32_compute(frame, frame_len);
	for (int i = 0; i < 4; i++, at += 2)
		put_byte(out + at, (uint8_t)(crc >> (8 * i)));
	at += put_syms(out + at, stop_flag, sizeof(stop_flag));
	return (long)at;
}

/* ---- decoding ----------------------------------------------------- */

/* The last 12 symbols of a frame's opening: a preamble group, start flag. */
static uint64_t opening(void)
{
	uint64_t v = 0;
	for (int i = 0; i < 4; i++)
		v = v << 4 | preamble[i];
	for (int i = 0; i < 8; i++)
		v = v << 4 | start_flag[i];
	return v;
}

#define OPENING_MASK ((UINT64_C(1) << 48) - 1)

int fir_decoder_init(struct fir_decoder *d, uint8_t *buf, size_t buf_len,
		     fir_frame_fn on_frame, void *ctx)
{
	if (!d || !buf || !on_frame || buf_len < FIR_FCS_LEN)
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->on_frame = on_frame;
	d->ctx = ctx;
	d->buf = buf;
	d->cap = buf_len;
	d->prev = 0xF;
	d->state = FIR_RX_HUNT;
	return 0;
}

void fir_decoder_reset(struct fir_decoder *d)
{
	d->state = FIR_RX_HUNT;
	d->hist = 0;
	d->prev = 0xF;
	d->stop_pos = 0;
	d->len = 0;
	d->acc = d->accn = 0;
}

static void end_frame(struct fir_decoder *d)
{
	d->state = FIR_RX_HUNT;
	if (d->accn) {
		d->cnt.partial++;
		return;
	}
	if (d->len < FIR_FCS_LEN) {
		d->cnt.runts++;
		return;
	}
	if (fcs32_compute(d->buf, d->len - FIR_FCS_LEN) !=
	    ((uint32_t)d->buf[d->len - 4] | (uint32_t)d->buf[d->len - 3] << 8 |
	     (uint32_t)d->buf[d->len - 2] << 16 | (uint32_t)d->buf[d->len - 1] << 24)) {
		d->cnt.crc_errors++;
		return;
	}
	d->cnt.frames++;
	d->on_frame(d->ctx, d->buf, d->len - FIR_FCS_LEN);
}

static int data_pair(unsigned s)
{
	switch (s) {
	case 0x8: return 0;
	case 0x4: return 1;
	case 0x2: return 2;
	case 0x1: return 3;
	default: return -1;
	}
}

static void sym_in(struct fir_decoder *d, unsigned s)
{
	unsigned prev = d->prev;
	int pair;

	d->prev = s;
	d->hist = (d->hist << 4 | s) & OPENING_MASK;
	d->cnt.chips += 4;
	if (d->hist == opening()) {
		/* A new frame's opening inside one cannot happen without an
		 * illegal symbol first, so nothing is lost here. */
		d->state = FIR_RX_DATA;
		d->stop_pos = 0;
		d->len = 0;
		d->acc = d->accn = 0;
		return;
	}
	if (d->state == FIR_RX_HUNT)
		return;
	if (s == 0 && prev == 0) {
		d->cnt.aborts++;
		d->state = FIR_RX_HUNT;
		return;
	}
	pair = data_pair(s);
	if (d->state == FIR_RX_DATA && pair >= 0) {
		d->acc |= (unsigned)pair << (2 * d->accn);
		if (++d->accn == 4) {
			if (d->len >= d->cap) {
				d->cnt.overflows++;
				d->state = FIR_RX_HUNT;
				return;
			}
			d->buf[d->len++] = (uint8_t)d->acc;
			d->acc = d->accn = 0;
		}
		return;
	}
	if (s == stop_flag[d->stop_pos]) {
		d->state = FIR_RX_STOP;
		if (++d->stop_pos == sizeof(stop_flag))
			end_frame(d);
		return;
	}
	d->cnt.illegal++;
	d->state = FIR_RX_HUNT;
}

void fir_decoder_feed(struct fir_decoder *d, const uint8_t *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sym_in(d, bytes[i] >> 4);
		sym_in(d, bytes[i] & 0xF);
	}
}

enum fir_rx_state fir_decoder_state(const struct fir_decoder *d)
{
	return d->state;
}

const struct fir_counters *fir_decoder_counters(const struct fir_decoder *d)
{
	return &d->cnt;
}
