/*
 * fuzz_usb_stir4200.c: the STIr4200 receive path on an arbitrary IN
 * byte stream, at SIR and at FIR.
 *
 * The FIR decoder must give the same frames and errors however the
 * stream is split; a frame it accepts must carry a good CRC-32 (checked
 * bit by bit here, not with the library's CRC) and come back unchanged
 * from its own TX framing decoded again.  Through the core (opened and
 * set to the speed by an auto-answering host), the stream cut into IN
 * transfers must give the same frames as the decoder alone (sir_decoder
 * at SIR, the FIR decoder at FIR) and every refused frame counted.
 *
 * Input: byte 0 bit 0 picks the speed (9600 or 4 Mbit/s), its other bits
 * seed the chunking; the rest is the stream.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_chunks.h"
#include "sir.h"
#include "stir4200.h"
#include "usb_dongle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool crc32_good(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xFFFFFFFFu;

	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
	}
	return crc == 0xDEBB20E3u;	/* the CRC-32 residue */
}

/* What a decoder produced: frames (hashed in order) and drops. */
struct tally {
	size_t frames, drops;
	uint64_t hash;
};

static void tally_frame(struct tally *t, const uint8_t *p, size_t n)
{
	t->hash ^= n;
	t->hash *= 0x100000001B3u;
	for (size_t i = 0; i < n; i++) {
		t->hash ^= p[i];
		t->hash *= 0x100000001B3u;
	}
	t->frames++;
}

/* --- the FIR decoder alone --- */

static void round_trip_fir(const uint8_t *frame, size_t len)
{
	static uint8_t tx[STIR4200_TX_MAX];
	struct wcursor w;
	struct cursor in;
	struct stir4200_fir_rx rx;

	wcursor_init(&w, tx, sizeof tx);
	int n = stir4200_wrap_fir(frame, len, &w);
	if (n < (int)STIR4200_HEADER_LEN || tx[0] != 0x55 || tx[1] != 0xAA ||
	    (size_t)(tx[2] | tx[3] << 8) != (size_t)n - STIR4200_HEADER_LEN)
		abort();
	stir4200_fir_rx_reset(&rx);
	cursor_init(&in, tx + STIR4200_HEADER_LEN, (size_t)n - STIR4200_HEADER_LEN);
	if (stir4200_fir_rx_feed(&rx, &in) != (int)len ||
	    memcmp(stir4200_fir_rx_frame(&rx), frame, len) != 0)
		abort();
}

struct fir_run {
	struct stir4200_fir_rx rx;
	struct tally t;
	bool check;
};

static void fir_feed(void *ctx, const uint8_t *b, size_t k)
{
	struct fir_run *f = ctx;
	struct cursor in;
	int rc;

	cursor_init(&in, b, k);
	while ((rc = stir4200_fir_rx_feed(&f->rx, &in)) != 0) {
		if (rc < 0) {
			if (rc != -EBADMSG && rc != -EPROTO && rc != -EMSGSIZE)
				abort();
			f->t.drops++;
			continue;
		}
		const uint8_t *p = stir4200_fir_rx_frame(&f->rx);
		if (rc < 2 || (size_t)rc > STIR4200_FRAME_MAX)
			abort();
		if (f->check) {
			if (!crc32_good(p, (size_t)rc + STIR4200_FCS32_LEN))
				abort();
			round_trip_fir(p, (size_t)rc);
		}
		tally_frame(&f->t, p, (size_t)rc);
	}
}

static struct tally fir_alone(const uint8_t *in, size_t n, uint32_t seed)
{
	static struct fir_run whole, chunked;

	memset(&whole, 0, sizeof whole);
	memset(&chunked, 0, sizeof chunked);
	stir4200_fir_rx_reset(&whole.rx);
	stir4200_fir_rx_reset(&chunked.rx);
	whole.check = true;
	fir_feed(&whole, in, n);
	fuzz_feed_chunks(in, n, seed, fir_feed, &chunked);
	if (whole.t.frames != chunked.t.frames || whole.t.drops != chunked.t.drops ||
	    whole.t.hash != chunked.t.hash)
		abort();
	return whole.t;
}

/* --- sir_decoder alone --- */

static void sir_frame(void *ctx, const uint8_t *frame, size_t len)
{
	tally_frame(ctx, frame, len);
}

static struct tally sir_alone(const uint8_t *in, size_t n)
{
	struct tally t = { 0 };
	struct sir_decoder_config cfg = { .on_frame = sir_frame, .ctx = &t };
	struct sir_decoder *d = sir_decoder_new(&cfg);

	if (!d)
		abort();
	sir_decoder_feed(d, in, n);
	const struct sir_counters *k = sir_decoder_counters(d);
	t.drops = (size_t)(k->fcs_errors + k->overflows + k->aborts + k->runts);
	sir_decoder_free(d);
	return t;
}

/* --- through the core: an auto-answering host --- */

struct host {
	bool ctrl, ctrl_in, rx, rx_cancel;
	struct tally t;
};

static void h_submit(void *ctx, const struct usb_xfer *x)
{
	struct host *h = ctx;

	if (x->tag == STIR4200_TAG_CTRL) {
		h->ctrl = true;
		h->ctrl_in = x->type == USB_XFER_CONTROL && (x->setup.request_type & USB_DIR_IN);
	} else if (x->tag == STIR4200_TAG_RX) {
		if (x->endpoint != STIR4200_EP_IN || x->length != STIR4200_RX_LEN)
			abort();
		h->rx = true;
	}
}

static void h_cancel(void *ctx, uint32_t tag)
{
	struct host *h = ctx;

	if (tag == STIR4200_TAG_RX)
		h->rx_cancel = true;
}

static void h_frame(void *ctx, const struct usb_rx_frame *f)
{
	struct host *h = ctx;

	tally_frame(&h->t, f->data, f->len);
}

static void h_event(void *ctx, enum usb_dongle_event ev, int err)
{
	(void)ctx;
	(void)err;
	if (ev == USB_EVENT_FAILED || ev == USB_EVENT_GONE)
		abort();
}

/* Answers control transfers (the FIFO reads EMPTY) and cancels until
 * the core waits for nothing but IN data. */
static void settle(struct usb_dongle *d, struct host *h, uint64_t now)
{
	static const uint8_t empty[3] = { STIR4200_FIFOCTL_EMPTY, 0, 0 };

	for (int guard = 0; guard < 100; guard++) {
		struct usb_completion c = { .status = USB_STATUS_OK };
		if (h->ctrl) {
			h->ctrl = false;
			c.tag = STIR4200_TAG_CTRL;
			if (h->ctrl_in) {
				c.data = empty;
				c.actual = sizeof empty;
			}
		} else if (h->rx_cancel && h->rx) {
			h->rx_cancel = h->rx = false;
			c.tag = STIR4200_TAG_RX;
			c.status = USB_STATUS_CANCELLED;
		} else {
			return;
		}
		usb_dongle_complete(d, &c, now);
	}
	abort();
}

struct core_run {
	struct usb_dongle *d;
	struct host *h;
	uint64_t now;
};

static void core_feed(void *ctx, const uint8_t *b, size_t k)
{
	struct core_run *r = ctx;

	if (!r->h->rx)
		abort();	/* the IN transfer must be posted again */
	r->h->rx = false;
	struct usb_completion c = {
		.tag = STIR4200_TAG_RX, .status = USB_STATUS_OK, .data = b, .actual = k,
	};
	usb_dongle_complete(r->d, &c, ++r->now);
	settle(r->d, r->h, r->now);
}

static void through_core(uint32_t baud, const uint8_t *in, size_t n, uint32_t seed,
			 const struct tally *want)
{
	struct host h = { 0 };
	struct usb_dongle_config cfg = {
		.ep = { .bulk_in = STIR4200_EP_IN, .bulk_out = STIR4200_EP_OUT },
		.host = { h_submit, h_cancel, h_frame, h_event, &h },
	};
	struct usb_dongle *d;
	char err[128];

	if (usb_dongle_new(&stir4200_family, &cfg, NULL, &d, err, sizeof err) < 0)
		abort();
	if (usb_dongle_open(d, 0) < 0)
		abort();
	settle(d, &h, 0);
	if (baud != 9600 && usb_dongle_set_speed(d, baud, 0) < 0)
		abort();
	settle(d, &h, 0);
	if (d->baud != baud)
		abort();
	struct core_run r = { d, &h, 0 };
	fuzz_feed_chunks(in, n, seed, core_feed, &r);
	const struct usb_dongle_counters *k = usb_dongle_counters(d);
	if (h.t.frames != want->frames || h.t.hash != want->hash || k->rx_frames != want->frames ||
	    k->rx_fcs_errors + k->rx_malformed + k->rx_oversize != want->drops)
		abort();
	/* a frame still goes out after whatever came in */
	static const uint8_t ua[] = { 0x03, 0x73 };
	struct usb_tx_frame f = { .data = ua, .len = sizeof ua };
	if (usb_dongle_send(d, &f, r.now + 1) < 0)
		abort();
	settle(d, &h, r.now + 1);
	if (!d->in_flight[STIR4200_TAG_TX])
		abort();
	usb_dongle_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint32_t baud = (data[0] & 1) ? 4000000 : 9600;
	uint32_t seed = 0x9E3779B9u ^ data[0];
	size_t n = size - 1;
	uint8_t *in = malloc(n ? n : 1);	/* exactly n bytes: ASan sees overreads */
	if (!in)
		return 0;
	if (n)
		memcpy(in, data + 1, n);
	struct tally want = baud == 9600 ? sir_alone(in, n) : fir_alone(in, n, seed);
	through_core(baud, in, n, seed, &want);
	free(in);
	return 0;
}
