/*
 * fuzz_usb_stir4200_duplex.c: the STIr4200 core's half duplex under an
 * arbitrary sequence of requests, completions (any status, any data),
 * cancels and ticks.
 *
 * The host here checks what the chip needs whatever happens: never two
 * transfers of one tag in flight, the bulk OUT never while the IN
 * transfer is out and the reverse, no FIFO read while receiving, nothing
 * submitted while closed, CLOSED only with nothing in flight, and a
 * close always ending in CLOSED once everything is back.
 *
 * Input: a list of operations, each a byte (and the bytes it takes).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "stir4200.h"
#include "usb_dongle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct host {
	bool pending[USB_DONGLE_TAGS];
	bool cancelled[USB_DONGLE_TAGS];
	bool ctrl_in;
	bool closed_seen, closing;
	bool failed;		/* FAILED or GONE: only a close is owed */
};

static void h_submit(void *ctx, const struct usb_xfer *x)
{
	struct host *h = ctx;

	if (x->tag >= USB_DONGLE_TAGS || h->pending[x->tag] || h->closing)
		abort();
	if (x->tag == STIR4200_TAG_TX && h->pending[STIR4200_TAG_RX])
		abort();	/* sending while the IN transfer is out */
	if (x->tag == STIR4200_TAG_RX && h->pending[STIR4200_TAG_TX])
		abort();
	bool in = x->type == USB_XFER_CONTROL && (x->setup.request_type & USB_DIR_IN);
	if (in && h->pending[STIR4200_TAG_RX])
		abort();	/* the FIFO read belongs to the transmit side */
	if (x->tag == STIR4200_TAG_CTRL)
		h->ctrl_in = in;
	h->pending[x->tag] = true;
	h->cancelled[x->tag] = false;
}

static void h_cancel(void *ctx, uint32_t tag)
{
	struct host *h = ctx;

	if (tag >= USB_DONGLE_TAGS || !h->pending[tag])
		abort();
	h->cancelled[tag] = true;
}

static void h_frame(void *ctx, const struct usb_rx_frame *f)
{
	(void)ctx;
	if (f->len < 2 || f->len > STIR4200_FRAME_MAX)
		abort();
}

static void h_event(void *ctx, enum usb_dongle_event ev, int err)
{
	struct host *h = ctx;

	(void)err;
	if (ev == USB_EVENT_FAILED || ev == USB_EVENT_GONE)
		h->failed = true;
	if (ev == USB_EVENT_CLOSED) {
		for (size_t i = 0; i < USB_DONGLE_TAGS; i++)
			if (h->pending[i])
				abort();
		h->closed_seen = true;
	}
}

struct run {
	struct host h;
	struct usb_dongle *d;
	struct cursor in;
	uint64_t now;
};

static uint8_t next(struct run *r)
{
	uint8_t b = 0;

	cursor_u8(&r->in, &b);
	return b;
}

static void complete(struct run *r, uint32_t tag, enum usb_status st)
{
	uint8_t buf[64];
	size_t n = 0;

	if (!r->h.pending[tag])
		return;
	if (tag == STIR4200_TAG_RX || (tag == STIR4200_TAG_CTRL && r->h.ctrl_in)) {
		n = next(r) % (sizeof buf + 1);
		for (size_t i = 0; i < n; i++)
			buf[i] = next(r);
	}
	r->h.pending[tag] = false;
	struct usb_completion c = { .tag = tag, .status = st, .data = buf, .actual = n };
	usb_dongle_complete(r->d, &c, r->now);
}

static const uint32_t speeds[] = {
	2400, 9600, 19200, 38400, 57600, 115200, 576000, 4000000,
};

static void op_send(struct run *r)
{
	uint8_t frame[64];
	size_t len = next(r) % sizeof frame;

	for (size_t i = 0; i < len; i++)
		frame[i] = next(r);
	struct usb_tx_frame f = {
		.data = frame, .len = len, .xbofs = next(r) % 200, .mtt_us = next(r) * 100u,
	};
	bool could = usb_dongle_can_send(r->d);
	int rc = usb_dongle_send(r->d, &f, r->now);
	if (could && !r->h.failed && !r->h.closing && len >= 2 && rc != 0)
		abort();
	if (!could && rc != -EBUSY)
		abort();
}

static void op(struct run *r, uint8_t code)
{
	uint32_t tag = STIR4200_TAG_CTRL + next(r) % 3;

	switch (code % 8) {
	case 0:
		op_send(r);
		break;
	case 1:
		usb_dongle_set_speed(r->d, speeds[next(r) % 8], r->now);
		break;
	case 2:	/* mostly OK: the core should get somewhere */
		complete(r, tag, next(r) % 4 ? USB_STATUS_OK :
				 (enum usb_status)(next(r) % (USB_STATUS_ERROR + 1)));
		break;
	case 3:
		if (usb_dongle_deadline(r->d) != USB_NO_DEADLINE) {
			if (usb_dongle_deadline(r->d) > r->now)
				r->now = usb_dongle_deadline(r->d);
			usb_dongle_tick(r->d, r->now);
		}
		break;
	case 4:
		r->now += next(r) * 100u;
		usb_dongle_tick(r->d, r->now);
		break;
	case 5:
		if (r->h.cancelled[tag])
			complete(r, tag, USB_STATUS_CANCELLED);
		break;
	case 6:
		if (usb_dongle_close(r->d, r->now) == 0 && !r->h.closed_seen)
			r->h.closing = true;
		break;
	case 7:
		if (r->h.closed_seen) {
			r->h.closed_seen = r->h.closing = r->h.failed = false;
			if (usb_dongle_open(r->d, r->now) != 0)
				abort();
		}
		break;
	}
	r->now++;
}

/* Close and hand everything back: CLOSED must come. */
static void finish(struct run *r)
{
	if (!r->h.closed_seen) {
		usb_dongle_close(r->d, r->now);
		r->h.closing = true;
	}
	for (uint32_t tag = 0; tag < USB_DONGLE_TAGS; tag++)
		if (r->h.pending[tag]) {
			r->h.pending[tag] = false;
			struct usb_completion c = { .tag = tag, .status = USB_STATUS_CANCELLED };
			usb_dongle_complete(r->d, &c, r->now);
		}
	if (!r->h.closed_seen)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run r;
	struct usb_dongle_config cfg = {
		.ep = { .bulk_in = STIR4200_EP_IN, .bulk_out = STIR4200_EP_OUT },
		.host = { h_submit, h_cancel, h_frame, h_event, &r.h },
	};
	char err[128];

	memset(&r, 0, sizeof r);
	if (usb_dongle_new(&stir4200_family, &cfg, NULL, &r.d, err, sizeof err) < 0)
		abort();
	cursor_init(&r.in, data, size);
	if (usb_dongle_open(r.d, 0) != 0)
		abort();
	while (cursor_remaining(&r.in) > 0)
		op(&r, next(&r));
	finish(&r);
	usb_dongle_free(r.d);
	return 0;
}
