/*
 * kingsun.c: the KingSun cores (KS-959, Dazzle, KingSun/DonShine).  See
 * kingsun.h; every number here is from usb-irda-digest 2.4 to 2.7.
 *
 * The three chips differ only in how the host's SIR stream crosses USB,
 * so there is one core (states, SIR wrapping and decoding, speed change
 * after the frame in flight, close) and one small transport per family
 * (struct ks_kind): the endpoint check, how the receive transfer is
 * posted and its bytes turned into stream bytes, and how the next piece
 * of a wrapped frame is submitted.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "kingsun.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sir.h"

/* --- framing ------------------------------------------------------------------ */

uint8_t ks959_mask(size_t len)
{
	static const char key[] = "wangshuofei19710";

	return (uint8_t)(key[(len & 0x0F) ^ 0x06] ^ 0x55);
}

size_t ks959_padded_len(size_t len)
{
	return ((len + 7) & ~(size_t)7) + 16;
}

struct usb_setup ks959_fragment_setup(size_t len)
{
	struct usb_setup s = {
		.request_type = USB_TYPE_CLASS | USB_RECIP_INTERFACE,
		.request = 0x09,
		.value = (uint16_t)len,
		.index = 0,
		.length = (uint16_t)ks959_padded_len(len),
	};
	return s;
}

int ks959_fragment(const uint8_t *clear, size_t n, struct wcursor *w)
{
	if (n == 0 || n > KS959_FRAG_MAX)
		return -EINVAL;
	size_t padded = ks959_padded_len(n);
	if (wcursor_room(w) < padded)
		return -ENOSPC;
	uint8_t mask = ks959_mask(n);
	for (size_t i = 0; i < n; i++)
		wcursor_u8(w, clear[i] ^ mask);
	wcursor_fill(w, 0, padded - n);
	return (int)padded;
}

struct usb_setup ks959_poll_setup(void)
{
	struct usb_setup s = {
		.request_type = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
		.request = 0x01,
		.value = 0x0200,
		.index = 0,
		.length = KS959_RX_LEN,
	};
	return s;
}

size_t ks959_deobfuscate(uint8_t *k, struct cursor *in, struct wcursor *out)
{
	size_t n = 0;
	uint8_t b;

	while (wcursor_room(out) > 0 && cursor_u8(in, &b)) {
		*k = (uint8_t)(*k + 1);
		if (*k == 0)
			continue;	/* every 256th byte is filler */
		wcursor_u8(out, (uint8_t)(b ^ *k ^ 0x55));
		n++;
	}
	return n;
}

struct usb_setup kingsun_speed_setup(void)
{
	struct usb_setup s = {
		.request_type = USB_TYPE_CLASS | USB_RECIP_INTERFACE,
		.request = 0x09,
		.value = 0x0200,
		.index = 0x0001,
		.length = 8,
	};
	return s;
}

void kingsun_speed_record(uint32_t baud, uint8_t out[8])
{
	out[0] = (uint8_t)(baud & 0xFF);
	out[1] = (uint8_t)((baud >> 8) & 0xFF);
	out[2] = (uint8_t)((baud >> 16) & 0xFF);
	out[3] = (uint8_t)(baud >> 24);
	out[4] = 0x03;	/* 8 data bits */
	out[5] = out[6] = out[7] = 0;
}

size_t ksdazzle_packet(struct cursor *in, uint8_t out[KSDAZZLE_PACKET])
{
	size_t n = cursor_remaining(in);

	if (n > KSDAZZLE_PIECE_MAX)
		n = KSDAZZLE_PIECE_MAX;
	memset(out, 0, KSDAZZLE_PACKET);
	if (n == 0)
		return 0;
	out[0] = (uint8_t)(0xF8 + n);
	cursor_copy(in, out + 1, n);
	return n;
}

int kingsun_report(struct cursor *in, size_t max_packet, const uint8_t **payload)
{
	uint8_t count;

	if (!cursor_u8(in, &count) || count == 0)
		return -ENODATA;
	if (count >= max_packet || !cursor_view(in, count, payload))
		return -EPROTO;
	return count;
}

int kingsun_wrap(uint32_t baud, const struct usb_tx_frame *f, struct wcursor *w)
{
	if (f->len < SIR_MIN_FRAME)
		return -EINVAL;
	if (f->len > KINGSUN_FRAME_MAX)
		return -EMSGSIZE;
	size_t xbofs = (size_t)f->xbofs + sir_mtt_padding(baud, f->mtt_us);
	if (xbofs > SIR_MAX_XBOFS)
		xbofs = SIR_MAX_XBOFS;
	int n = sir_encode(w, f->data, f->len, xbofs);
	return n < 0 ? -ENOSPC : n;
}

/* --- the core ------------------------------------------------------------------- */

enum ks_state {
	KS_CLOSED,
	KS_OPENING,	/* the 9600 speed request is out */
	KS_READY,
	KS_CHANGING,	/* the speed request is out, or waits for the frame in flight */
	KS_CLOSING,	/* waiting for cancelled transfers */
	KS_FAILED,	/* gave up or the device went away: waiting for close */
};

static const char *const state_names[] = {
	[KS_CLOSED] = "CLOSED", [KS_OPENING] = "OPENING", [KS_READY] = "READY",
	[KS_CHANGING] = "CHANGING", [KS_CLOSING] = "CLOSING", [KS_FAILED] = "FAILED",
};

struct ks;

/* What one family does differently. */
struct ks_kind {
	const char *name;
	bool speed_request;	/* has the 8-byte speed request (else 9600 only) */
	int (*check)(const struct usb_dongle_config *cfg, char *err, size_t errlen);
	void (*post_rx)(struct ks *k);
	/* turns a good receive transfer into stream bytes for the decoder */
	void (*rx)(struct ks *k, const struct usb_completion *c);
	/* submits the piece of the wrapped frame at tx_off, moves tx_off past it */
	void (*send_piece)(struct ks *k);
};

/* Largest KingSun report kept to spot a stale repeat (wMaxPacketSize
 * <= 255, byte 0 the count). */
#define KINGSUN_REPORT_MAX 254u

struct ks {
	struct usb_dongle base;		/* first: usb_dongle.c casts */
	const struct ks_kind *kind;
	enum ks_state state;
	struct sir_decoder *sir;
	struct sir_counters seen;	/* the decoder's counters already counted */
	uint64_t now_us;		/* the completion being decoded */
	uint32_t target;		/* the speed being set */
	bool pending_speed;		/* a change waits for the frame in flight */
	uint8_t tx[KINGSUN_TX_MAX];	/* the wrapped frame */
	size_t tx_len, tx_off;
	uint8_t piece[KS959_PADDED_MAX];	/* the fragment or packet in flight */
	uint8_t speed_rec[8];
	uint8_t counter;		/* KS-959: the session's de-obfuscation counter */
	uint8_t rx[KS959_RX_LEN];	/* KS-959: a poll de-obfuscated */
	uint8_t last[KINGSUN_REPORT_MAX];	/* KingSun: the last report's bytes */
	size_t last_len;
};

static struct ks *to_ks(struct usb_dongle *d)
{
	return (struct ks *)d;
}

static void go(struct ks *k, enum ks_state to, const char *event)
{
	log_msg(k->base.cfg.log, LOG_LEVEL_DEBUG, "%s: %s --%s--> %s", k->kind->name,
		state_names[k->state], event, state_names[to]);
	k->state = to;
}

static bool receiving(const struct ks *k)
{
	return k->state == KS_READY || k->state == KS_CHANGING;
}

static void fail(struct ks *k, int err, const char *why)
{
	if (k->state == KS_FAILED || k->state == KS_CLOSING || k->state == KS_CLOSED)
		return;
	bool gone = err == -ENODEV;
	log_msg(k->base.cfg.log, gone ? LOG_LEVEL_INFO : LOG_LEVEL_ERROR, "%s: %s: %s",
		k->kind->name, why, gone ? "the device is gone" : strerror(-err));
	go(k, KS_FAILED, gone ? "gone" : "error");
	k->base.deadline_us = USB_NO_DEADLINE;
	k->base.tx_busy = true;	/* nothing more goes out until close */
	k->pending_speed = false;
	usb_dongle_emit(&k->base, gone ? USB_EVENT_GONE : USB_EVENT_FAILED, err);
}

/* A piece's timeout: its line time at the current speed (the dongle
 * may hold the transfer while it sends) plus a margin. */
static uint32_t piece_timeout_ms(const struct ks *k, size_t clear)
{
	uint64_t us = sir_line_time_us(k->base.baud ? k->base.baud : 9600, clear);

	return (uint32_t)(us / 1000u) + KINGSUN_CTRL_TIMEOUT_MS;
}

/* --- decoding --- */

static void on_sir_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct ks *k = ctx;

	usb_dongle_deliver(&k->base, frame, len, k->now_us);
}

/* Moves what the decoder counted since the last feed into the core's
 * counters and reports media busy once per transfer. */
static void account(struct ks *k)
{
	const struct sir_counters *s = sir_decoder_counters(k->sir);
	uint64_t fcs = s->fcs_errors - k->seen.fcs_errors;
	uint64_t big = s->overflows - k->seen.overflows;

	k->base.n.rx_fcs_errors += fcs;
	k->base.n.rx_oversize += big;
	k->base.n.rx_malformed += (s->aborts - k->seen.aborts) + (s->runts - k->seen.runts);
	k->seen = *s;
	if (sir_decoder_take_media_busy(k->sir))
		usb_dongle_emit(&k->base, USB_EVENT_MEDIA_BUSY,
				fcs ? -EBADMSG : big ? -EMSGSIZE : -EPROTO);
}

static void feed(struct ks *k, const uint8_t *p, size_t n)
{
	if (n == 0) {
		k->base.n.rx_empty++;
		return;
	}
	sir_decoder_feed(k->sir, p, n);
	account(k);
}

/* --- KS-959: everything on the control pipe --- */

static int ks959_check(const struct usb_dongle_config *cfg, char *err, size_t errlen)
{
	(void)cfg;
	(void)err;
	(void)errlen;
	return 0;	/* control only: its interrupt IN endpoint is a dummy */
}

static void ks959_post_rx(struct ks *k)
{
	struct usb_setup s = ks959_poll_setup();
	struct usb_xfer x = usb_control_xfer(KINGSUN_TAG_RX, &s, KINGSUN_CTRL_TIMEOUT_MS);

	usb_dongle_submit(&k->base, &x);
}

static void ks959_rx(struct ks *k, const struct usb_completion *c)
{
	struct cursor in;

	cursor_init(&in, c->data, c->actual);
	if (c->actual == 0) {
		feed(k, NULL, 0);
		return;
	}
	while (cursor_remaining(&in) > 0) {
		struct wcursor out;
		wcursor_init(&out, k->rx, sizeof(k->rx));
		size_t n = ks959_deobfuscate(&k->counter, &in, &out);
		if (n > 0)
			feed(k, k->rx, n);
	}
}

static void ks959_send_piece(struct ks *k)
{
	size_t n = k->tx_len - k->tx_off;
	struct wcursor w;

	if (n > KS959_FRAG_MAX)
		n = KS959_FRAG_MAX;
	wcursor_init(&w, k->piece, sizeof(k->piece));
	int padded = ks959_fragment(k->tx + k->tx_off, n, &w);	/* n in 1..240: fits */
	struct usb_setup s = ks959_fragment_setup(n);
	struct usb_xfer x = usb_control_xfer(KINGSUN_TAG_TX, &s, piece_timeout_ms(k, n));
	x.data = k->piece;
	x.length = (size_t)padded;
	k->tx_off += n;
	usb_dongle_submit(&k->base, &x);
}

/* --- KingSun and Dazzle: two interrupt endpoints --- */

static int interrupt_check(const struct usb_dongle_config *cfg, char *err, size_t errlen,
			   const char *name)
{
	if (!usb_endpoint_is(cfg->ep.intr_in, true) || !usb_endpoint_is(cfg->ep.intr_out, false)) {
		snprintf(err, errlen,
			 "%s: needs an interrupt IN and an interrupt OUT endpoint (given IN 0x%02x, OUT 0x%02x)",
			 name, cfg->ep.intr_in, cfg->ep.intr_out);
		return -EINVAL;
	}
	if (cfg->ep.in_max_packet <= 1 || cfg->ep.in_max_packet > 255) {
		snprintf(err, errlen,
			 "%s: the interrupt IN endpoint's wMaxPacketSize must be 2..255 (given %u)",
			 name, cfg->ep.in_max_packet);
		return -EINVAL;
	}
	return 0;
}

static void post_interrupt_in(struct ks *k, size_t len)
{
	struct usb_xfer x = {
		.type = USB_XFER_INTERRUPT, .tag = KINGSUN_TAG_RX,
		.endpoint = k->base.cfg.ep.intr_in, .length = len,
	};
	usb_dongle_submit(&k->base, &x);
}

static void submit_interrupt_out(struct ks *k, const uint8_t *data, size_t len, size_t clear)
{
	struct usb_xfer x = {
		.type = USB_XFER_INTERRUPT, .tag = KINGSUN_TAG_TX,
		.endpoint = k->base.cfg.ep.intr_out, .data = data, .length = len,
		.timeout_ms = piece_timeout_ms(k, clear),
	};
	usb_dongle_submit(&k->base, &x);
}

/* Dazzle */

static int ksdazzle_check(const struct usb_dongle_config *cfg, char *err, size_t errlen)
{
	return interrupt_check(cfg, err, errlen, "ksdazzle");
}

static void ksdazzle_post_rx(struct ks *k)
{
	post_interrupt_in(k, KSDAZZLE_RX_LEN);
}

/* The raw stream, 0..8 bytes a read. */
static void ksdazzle_rx(struct ks *k, const struct usb_completion *c)
{
	feed(k, c->data, c->actual);
}

/* A single big write "won't work": one 8-byte packet at a time. */
static void ksdazzle_send_piece(struct ks *k)
{
	struct cursor in;

	cursor_init(&in, k->tx + k->tx_off, k->tx_len - k->tx_off);
	size_t n = ksdazzle_packet(&in, k->piece);
	k->tx_off += n;
	submit_interrupt_out(k, k->piece, KSDAZZLE_PACKET, n);
}

/* KingSun 07c0:4200 */

static int kingsun_check(const struct usb_dongle_config *cfg, char *err, size_t errlen)
{
	return interrupt_check(cfg, err, errlen, "kingsun");
}

static void kingsun_post_rx(struct ks *k)
{
	post_interrupt_in(k, k->base.cfg.ep.in_max_packet);
}

static bool has_delimiter(const uint8_t *p, size_t n)
{
	return memchr(p, SIR_BOF, n) != NULL || memchr(p, SIR_EOF, n) != NULL;
}

/*
 * The dongle does not clear its buffer after a read, so a report can
 * come again.  The SIR decoder absorbs most repeats (a repeated frame
 * start restarts the frame, a repeated frame end falls outside one),
 * but a report holding a whole short frame would deliver it twice and a
 * repeated tail would count as noise.  So a report equal to the one
 * before it is dropped when it holds a BOF or an EOF: in a valid stream
 * a delimiter cannot recur without a frame between, so this can only
 * lose an exact copy of a frame sent back to back.  Repeats of
 * delimiter-free reports are left to the decoder (the FCS catches them),
 * as the digest describes: dropping those would corrupt runs of equal
 * data bytes.
 */
static bool stale_repeat(struct ks *k, const uint8_t *p, size_t n)
{
	bool same = n == k->last_len && memcmp(p, k->last, n) == 0;

	memcpy(k->last, p, n);	/* n < wMaxPacketSize <= 255 */
	k->last_len = n;
	return same && has_delimiter(p, n);
}

static void kingsun_rx(struct ks *k, const struct usb_completion *c)
{
	struct cursor in;
	const uint8_t *payload;

	cursor_init(&in, c->data, c->actual);
	int n = kingsun_report(&in, k->base.cfg.ep.in_max_packet, &payload);
	if (n < 0) {
		/* "uninitialised": not something heard, so no media busy */
		log_msg(k->base.cfg.log, LOG_LEVEL_DEBUG, "kingsun: %zu-byte report discarded",
			c->actual);
		k->base.n.rx_empty++;
		return;
	}
	if (stale_repeat(k, payload, (size_t)n)) {
		k->base.n.rx_empty++;
		return;
	}
	feed(k, payload, (size_t)n);
}

/* The whole wrapped frame in one interrupt OUT transfer. */
static void kingsun_send_piece(struct ks *k)
{
	k->tx_off = k->tx_len;
	submit_interrupt_out(k, k->tx, k->tx_len, k->tx_len);
}

static const struct ks_kind ks959_kind = {
	.name = "ks959", .speed_request = true, .check = ks959_check,
	.post_rx = ks959_post_rx, .rx = ks959_rx, .send_piece = ks959_send_piece,
};

static const struct ks_kind ksdazzle_kind = {
	.name = "ksdazzle", .speed_request = true, .check = ksdazzle_check,
	.post_rx = ksdazzle_post_rx, .rx = ksdazzle_rx, .send_piece = ksdazzle_send_piece,
};

static const struct ks_kind kingsun_kind = {
	.name = "kingsun", .speed_request = false, .check = kingsun_check,
	.post_rx = kingsun_post_rx, .rx = kingsun_rx, .send_piece = kingsun_send_piece,
};

/* --- the shared state machine --- */

static void post_rx(struct ks *k)
{
	k->base.deadline_us = USB_NO_DEADLINE;
	k->kind->post_rx(k);
}

static void speed_done(struct ks *k)
{
	bool opening = k->state == KS_OPENING;

	k->base.baud = k->target;
	k->base.tx_busy = false;
	go(k, KS_READY, opening ? "open done" : "speed set");
	if (opening) {
		post_rx(k);
		usb_dongle_emit(&k->base, USB_EVENT_OPENED, 0);
	} else {
		usb_dongle_emit(&k->base, USB_EVENT_SPEED, 0);
	}
}

static void start_speed(struct ks *k)
{
	k->pending_speed = false;
	if (!k->kind->speed_request) {
		speed_done(k);	/* 9600 only: already there */
		return;
	}
	struct usb_setup s = kingsun_speed_setup();
	struct usb_xfer x = usb_control_xfer(KINGSUN_TAG_CTRL, &s, KINGSUN_CTRL_TIMEOUT_MS);
	kingsun_speed_record(k->target, k->speed_rec);
	x.data = k->speed_rec;
	log_msg(k->base.cfg.log, LOG_LEVEL_DEBUG, "%s: speed request %u", k->kind->name,
		k->target);
	usb_dongle_submit(&k->base, &x);
}

static void control_done(struct ks *k, const struct usb_completion *c)
{
	if (k->state != KS_OPENING && k->state != KS_CHANGING)
		return;
	if (c->status != USB_STATUS_OK) {
		fail(k, usb_status_errno(c->status), "the speed request");
		return;
	}
	speed_done(k);
}

/* The frame's last piece is back (or one failed). */
static void frame_done(struct ks *k, int err)
{
	if (err == 0)
		k->base.n.tx_frames++;
	if (!receiving(k))
		return;
	if (!k->pending_speed)
		k->base.tx_busy = false;
	usb_dongle_emit(&k->base, USB_EVENT_TX_DONE, err);
	if (k->pending_speed)
		start_speed(k);	/* the frame left at the old speed */
}

static void tx_done(struct ks *k, const struct usb_completion *c)
{
	int err = usb_status_errno(c->status);

	if (c->status == USB_STATUS_NO_DEVICE) {
		fail(k, err, "sending a frame");
		return;
	}
	if (err != 0) {
		if (c->status != USB_STATUS_CANCELLED)
			log_msg(k->base.cfg.log, LOG_LEVEL_WARNING, "%s: frame lost: %s",
				k->kind->name, usb_status_name(c->status));
		frame_done(k, err);
		return;
	}
	if (k->tx_off < k->tx_len && receiving(k)) {
		k->kind->send_piece(k);
		return;
	}
	frame_done(k, 0);
}

static void rx_done(struct ks *k, const struct usb_completion *c, uint64_t now_us)
{
	if (!receiving(k))
		return;
	switch (c->status) {
	case USB_STATUS_OK:
		k->now_us = now_us;
		k->kind->rx(k, c);
		post_rx(k);
		break;
	case USB_STATUS_NO_DEVICE:
		fail(k, -ENODEV, "receiving");
		break;
	case USB_STATUS_CANCELLED:
		break;
	default:
		log_msg(k->base.cfg.log, LOG_LEVEL_WARNING,
			"%s: receive transfer ended: %s; again in %u us", k->kind->name,
			usb_status_name(c->status), KINGSUN_RX_RETRY_US);
		k->base.deadline_us = now_us + KINGSUN_RX_RETRY_US;
		break;
	}
}

static void finish_close(struct ks *k)
{
	go(k, KS_CLOSED, "all transfers back");
	usb_dongle_closed(&k->base);
}

/* --- usb_dongle_ops --- */

static void ks_complete(struct usb_dongle *d, const struct usb_completion *c, uint64_t now_us)
{
	struct ks *k = to_ks(d);

	if (!usb_dongle_take(d, c->tag))
		return;
	if (k->state == KS_CLOSING) {
		if (usb_dongle_idle(d))
			finish_close(k);
		return;
	}
	switch (c->tag) {
	case KINGSUN_TAG_CTRL:
		control_done(k, c);
		break;
	case KINGSUN_TAG_TX:
		tx_done(k, c);
		break;
	default:
		rx_done(k, c, now_us);
		break;
	}
}

static int ks_open(struct usb_dongle *d, uint64_t now_us)
{
	struct ks *k = to_ks(d);

	(void)now_us;
	if (k->state != KS_CLOSED)
		return -EALREADY;
	sir_decoder_reset(k->sir);
	sir_decoder_take_media_busy(k->sir);
	k->counter = 0;		/* the KS-959's counter runs from the session's start */
	k->last_len = 0;
	k->pending_speed = false;
	k->target = 9600;
	k->base.tx_busy = true;
	go(k, KS_OPENING, "open");
	start_speed(k);
	return 0;
}

static int ks_set_speed(struct usb_dongle *d, uint32_t baud, uint64_t now_us)
{
	struct ks *k = to_ks(d);

	(void)now_us;
	if (!(usb_baud_bit(baud) & d->family->baud_bits))
		return -EINVAL;
	if (k->state == KS_CHANGING)
		return -EBUSY;
	if (k->state != KS_READY)
		return -ENOTCONN;
	k->target = baud;
	go(k, KS_CHANGING, "set speed");
	if (d->in_flight[KINGSUN_TAG_TX]) {
		k->pending_speed = true;
		return 0;
	}
	d->tx_busy = true;
	start_speed(k);
	return 0;
}

static int ks_send(struct usb_dongle *d, const struct usb_tx_frame *f, uint64_t now_us)
{
	struct ks *k = to_ks(d);
	struct wcursor w;

	(void)now_us;
	if (k->state != KS_READY)
		return -EBUSY;
	wcursor_init(&w, k->tx, sizeof(k->tx));
	int n = kingsun_wrap(d->baud, f, &w);
	if (n < 0)
		return n;
	k->tx_len = (size_t)n;
	k->tx_off = 0;
	d->tx_busy = true;
	k->kind->send_piece(k);
	return 0;
}

static void ks_tick(struct usb_dongle *d, uint64_t now_us)
{
	struct ks *k = to_ks(d);

	if (now_us < d->deadline_us)
		return;
	d->deadline_us = USB_NO_DEADLINE;
	if (receiving(k) && !d->in_flight[KINGSUN_TAG_RX])
		post_rx(k);
}

static int ks_close(struct usb_dongle *d, uint64_t now_us)
{
	struct ks *k = to_ks(d);

	(void)now_us;
	if (k->state == KS_CLOSED)
		return 0;
	if (k->state == KS_CLOSING)
		return -EINPROGRESS;
	go(k, KS_CLOSING, "close");
	d->deadline_us = USB_NO_DEADLINE;
	k->pending_speed = false;
	if (usb_dongle_idle(d)) {
		finish_close(k);
		return 0;
	}
	usb_dongle_cancel_all(d);
	return 0;
}

static void ks_destroy(struct usb_dongle *d)
{
	struct ks *k = to_ks(d);

	sir_decoder_free(k->sir);
	free(k);
}

static int ks_create(const struct ks_kind *kind, const struct usb_dongle_config *cfg,
		     struct usb_dongle **out, char *err, size_t errlen)
{
	int rc = kind->check(cfg, err, errlen);
	if (rc < 0)
		return rc;
	struct ks *k = calloc(1, sizeof(*k));
	if (!k) {
		snprintf(err, errlen, "%s: out of memory", kind->name);
		return -ENOMEM;
	}
	struct sir_decoder_config sc = { .on_frame = on_sir_frame, .ctx = k, .log = cfg->log };
	k->sir = sir_decoder_new(&sc);
	if (!k->sir) {
		free(k);
		snprintf(err, errlen, "%s: out of memory", kind->name);
		return -ENOMEM;
	}
	k->kind = kind;
	k->state = KS_CLOSED;
	*out = &k->base;
	return 0;
}

static int ks959_create(const struct usb_dongle_config *cfg, const struct usb_id *id,
			struct usb_dongle **out, char *err, size_t errlen)
{
	(void)id;
	return ks_create(&ks959_kind, cfg, out, err, errlen);
}

static int ksdazzle_create(const struct usb_dongle_config *cfg, const struct usb_id *id,
			   struct usb_dongle **out, char *err, size_t errlen)
{
	(void)id;
	return ks_create(&ksdazzle_kind, cfg, out, err, errlen);
}

static int kingsun_create(const struct usb_dongle_config *cfg, const struct usb_id *id,
			  struct usb_dongle **out, char *err, size_t errlen)
{
	(void)id;
	return ks_create(&kingsun_kind, cfg, out, err, errlen);
}

static const struct usb_dongle_ops ks_ops = {
	.destroy = ks_destroy,
	.open = ks_open,
	.set_speed = ks_set_speed,
	.send = ks_send,
	.complete = ks_complete,
	.tick = ks_tick,
	.close = ks_close,
};

static const struct usb_id ks959_ids[] = { { KS959_VID, KS959_PID, 0 } };
static const struct usb_id ksdazzle_ids[] = { { KSDAZZLE_VID, KSDAZZLE_PID, 0 } };
static const struct usb_id kingsun_ids[] = { { KINGSUN_VID, KINGSUN_PID, 0 } };

/*
 * Minimum turnaround: the digest gives no figure for these chips; at
 * least 1 ms (bits 0x07: 10, 5 or 1 ms), as the MCS7780's default, for
 * a SIR transceiver behind a polled receive path.  Our own turnaround
 * before a frame is XBOF padding (digest 2.7), so any peer value works.
 */
#define KS_MIN_TAT_BITS 0x07

/* 2400..57600: the chip does 115200, but receiving large frames at
 * 115200 corrupted data with one phone (digest 2.5). */
const struct usb_family ks959_family = {
	.name = "ks959",
	.chip = "KingSun KS-959",
	.ids = ks959_ids,
	.n_ids = 1,
	.baud_bits = 0x001F,
	.min_tat_bits = KS_MIN_TAT_BITS,
	.create = ks959_create,
	.ops = &ks_ops,
};

/* 2400..115200: what the digest says its speed request is used for
 * (SIR up to 115200, digest 1.1); no report of trouble at 115200. */
const struct usb_family ksdazzle_family = {
	.name = "ksdazzle",
	.chip = "KingSun Dazzle",
	.ids = ksdazzle_ids,
	.n_ids = 1,
	.baud_bits = 0x003F,
	.min_tat_bits = KS_MIN_TAT_BITS,
	.create = ksdazzle_create,
	.ops = &ks_ops,
};

/* 9600 only: no speed command is known (digest 2.4). */
const struct usb_family kingsun_family = {
	.name = "kingsun",
	.chip = "KingSun/DonShine",
	.ids = kingsun_ids,
	.n_ids = 1,
	.baud_bits = 0x0002,
	.min_tat_bits = KS_MIN_TAT_BITS,
	.create = kingsun_create,
	.ops = &ks_ops,
};
