/*
 * sir.c: SIR wrapping and the incremental unwrapper.  See sir.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sir.h"

#include <errno.h>
#include <stdlib.h>

#include "fcs.h"

static bool needs_escape(uint8_t b)
{
	return b == SIR_BOF || b == SIR_EOF || b == SIR_CE;
}

size_t sir_encoded_max(size_t frame_len, size_t xbofs)
{
	return xbofs + 1 + 2 * (frame_len + SIR_FCS_LEN) + 1;
}

static void put_escaped(struct wcursor *w, uint8_t b)
{
	if (needs_escape(b)) {
		wcursor_u8(w, SIR_CE);
		wcursor_u8(w, b ^ SIR_ESC_XOR);
	} else {
		wcursor_u8(w, b);
	}
}

int sir_encode(struct wcursor *w, const uint8_t *frame, size_t frame_len,
	       size_t xbofs)
{
	if (frame_len < SIR_MIN_FRAME)
		return -EINVAL;
	size_t start = wcursor_len(w);
	uint16_t fcs = fcs_compute(frame, frame_len);

	wcursor_fill(w, SIR_XBOF, xbofs);
	wcursor_u8(w, SIR_BOF);
	for (size_t i = 0; i < frame_len; i++)
		put_escaped(w, frame[i]);
	put_escaped(w, (uint8_t)(fcs & 0xFF));
	put_escaped(w, (uint8_t)(fcs >> 8));
	wcursor_u8(w, SIR_EOF);
	if (!wcursor_ok(w))
		return -ENOSPC;
	size_t n = wcursor_len(w) - start;
	return n > (size_t)INT32_MAX ? -EOVERFLOW : (int)n;
}

size_t sir_mtt_padding(uint32_t baud, uint32_t mtt_us)
{
	uint64_t bits_x_us = (uint64_t)baud * mtt_us;

	return (size_t)((bits_x_us + 9999999) / 10000000);
}

uint64_t sir_line_time_us(uint32_t baud, uint64_t n)
{
	if (baud == 0)
		return UINT64_MAX;
	return (n * 10000000ull + baud - 1) / baud;
}

/* ------------------------------------------------------------------ */

struct sir_decoder {
	enum sir_rx_state state;
	uint8_t *buf;
	size_t cap;		/* A + C + max I-field + FCS */
	size_t len;
	uint16_t fcs;		/* running, over every stored byte */
	bool media_busy;
	bool debug;		/* log transitions (set per feed call) */
	struct sir_counters n;
	struct sir_decoder_config cfg;
};

static const char *const state_names[] = {
	[SIR_RX_OUTSIDE] = "OUTSIDE",
	[SIR_RX_BEGIN] = "BEGIN",
	[SIR_RX_INSIDE] = "INSIDE",
	[SIR_RX_ESCAPE] = "ESCAPE",
};

const char *sir_rx_state_name(enum sir_rx_state s)
{
	return (unsigned)s < sizeof(state_names) / sizeof(state_names[0]) ?
		state_names[s] : "?";
}

struct sir_decoder *sir_decoder_new(const struct sir_decoder_config *cfg)
{
	if (!cfg || !cfg->on_frame)
		return NULL;
	struct sir_decoder *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->cfg = *cfg;
	if (d->cfg.max_ifield == 0)
		d->cfg.max_ifield = SIR_MAX_IFIELD;
	d->cap = SIR_MIN_FRAME + d->cfg.max_ifield + SIR_FCS_LEN;
	d->buf = malloc(d->cap);
	if (!d->buf) {
		free(d);
		return NULL;
	}
	d->state = SIR_RX_OUTSIDE;
	return d;
}

void sir_decoder_free(struct sir_decoder *d)
{
	if (!d)
		return;
	free(d->buf);
	free(d);
}

static void go(struct sir_decoder *d, enum sir_rx_state to, const char *event)
{
	if (d->debug && to != d->state)
		log_msg(d->cfg.log, LOG_LEVEL_DEBUG, "sir: %s --%s--> %s",
			state_names[d->state], event, state_names[to]);
	d->state = to;
}

static void media_busy(struct sir_decoder *d)
{
	d->media_busy = true;
	d->n.media_busy++;
	if (d->cfg.on_media_busy)
		d->cfg.on_media_busy(d->cfg.ctx);
}

static void begin_frame(struct sir_decoder *d)
{
	d->len = 0;
	d->fcs = FCS_INIT;
}

static void store(struct sir_decoder *d, uint8_t b)
{
	if (d->len == d->cap) {
		d->n.overflows++;
		log_msg(d->cfg.log, LOG_LEVEL_DEBUG,
			"sir: frame longer than %zu bytes dropped", d->cap);
		go(d, SIR_RX_OUTSIDE, "overflow");
		media_busy(d);
		return;
	}
	d->buf[d->len++] = b;
	d->fcs = fcs_update_byte(d->fcs, b);
	go(d, SIR_RX_INSIDE, "data");
}

static void end_frame(struct sir_decoder *d)
{
	go(d, SIR_RX_OUTSIDE, "EOF");
	if (d->len < SIR_MIN_FRAME + SIR_FCS_LEN) {
		d->n.runts++;
		media_busy(d);
		return;
	}
	if (d->fcs != FCS_GOOD_RESIDUE) {
		d->n.fcs_errors++;
		log_msg(d->cfg.log, LOG_LEVEL_DEBUG,
			"sir: %zu-byte frame with bad FCS (residue 0x%04x)",
			d->len, d->fcs);
		media_busy(d);
		return;
	}
	d->n.frames++;
	d->cfg.on_frame(d->cfg.ctx, d->buf, d->len - SIR_FCS_LEN);
}

static void abort_frame(struct sir_decoder *d, const char *why)
{
	d->n.aborts++;
	log_msg(d->cfg.log, LOG_LEVEL_DEBUG, "sir: frame of %zu bytes aborted (%s)",
		d->len, why);
	media_busy(d);
}

static void rx_outside(struct sir_decoder *d, uint8_t b)
{
	if (b == SIR_BOF) {
		begin_frame(d);
		go(d, SIR_RX_BEGIN, "BOF");
	} else if (b != SIR_XBOF) {
		/* a lost BOF, a stray EOF or CE, or plain noise */
		d->n.noise++;
		media_busy(d);
	}
}

/* A BOF inside a frame: the frame is lost, a new one starts here. */
static void restart(struct sir_decoder *d, const char *why)
{
	abort_frame(d, why);
	begin_frame(d);
	go(d, SIR_RX_BEGIN, "BOF");
}

/* BEGIN and INSIDE differ only in what another BOF means. */
static void rx_in_frame(struct sir_decoder *d, uint8_t b)
{
	switch (b) {
	case SIR_BOF:
		if (d->state != SIR_RX_BEGIN)	/* repeated BOFs are allowed */
			restart(d, "BOF inside frame");
		break;
	case SIR_EOF:
		end_frame(d);	/* from BEGIN: empty, a runt */
		break;
	case SIR_CE:
		go(d, SIR_RX_ESCAPE, "CE");
		break;
	default:
		store(d, b);
		break;
	}
}

static void rx_escape(struct sir_decoder *d, uint8_t b)
{
	switch (b) {
	case SIR_BOF:
		restart(d, "BOF after CE");
		break;
	case SIR_EOF:
		/* never sent either; even if the FCS happened to match, a
		 * byte was lost, so the frame is not delivered */
		abort_frame(d, "EOF after CE");
		go(d, SIR_RX_OUTSIDE, "EOF");
		break;
	case SIR_CE:
		/* never sent by a transmitter: the frame is damaged */
		abort_frame(d, "CE after CE");
		go(d, SIR_RX_OUTSIDE, "CE");
		break;
	default:
		store(d, b ^ SIR_ESC_XOR);
		break;
	}
}

void sir_decoder_feed(struct sir_decoder *d, const uint8_t *bytes, size_t n)
{
	d->debug = log_enabled(d->cfg.log, LOG_LEVEL_DEBUG);
	d->n.bytes += n;
	for (size_t i = 0; i < n; i++) {
		uint8_t b = bytes[i];

		switch (d->state) {
		case SIR_RX_OUTSIDE:
			rx_outside(d, b);
			break;
		case SIR_RX_BEGIN:
			rx_in_frame(d, b);
			break;
		case SIR_RX_INSIDE:
			/* the common case, kept short */
			if (b != SIR_BOF && b != SIR_EOF && b != SIR_CE &&
			    d->len < d->cap) {
				d->buf[d->len++] = b;
				d->fcs = fcs_update_byte(d->fcs, b);
			} else {
				rx_in_frame(d, b);
			}
			break;
		case SIR_RX_ESCAPE:
			rx_escape(d, b);
			break;
		}
	}
}

void sir_decoder_reset(struct sir_decoder *d)
{
	go(d, SIR_RX_OUTSIDE, "reset");
	d->len = 0;
}

enum sir_rx_state sir_decoder_state(const struct sir_decoder *d)
{
	return d->state;
}

bool sir_decoder_in_frame(const struct sir_decoder *d)
{
	return d->state != SIR_RX_OUTSIDE;
}

size_t sir_decoder_frame_len(const struct sir_decoder *d)
{
	return d->state == SIR_RX_OUTSIDE ? 0 : d->len;
}

const uint8_t *sir_decoder_frame(const struct sir_decoder *d)
{
	return d->buf;
}

const struct sir_counters *sir_decoder_counters(const struct sir_decoder *d)
{
	return &d->n;
}

bool sir_decoder_take_media_busy(struct sir_decoder *d)
{
	bool was = d->media_busy;

	d->media_busy = false;
	return was;
}
