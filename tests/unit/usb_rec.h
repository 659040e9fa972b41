/*
 * usb_rec.h: the recording host the USB family core tests share: it
 * keeps each transfer a core submits (with the first 256 bytes of OUT
 * data), each cancel, the last frame received and every event, for the
 * test to check in order.  Header-only: each test is one program.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TESTS_UNIT_USB_REC_H
#define TESTS_UNIT_USB_REC_H

#include <stdbool.h>
#include <string.h>

#include "usb_dongle.h"

#define MAX_XFERS 512

struct rec_xfer {
	struct usb_xfer x;
	uint8_t data[256];	/* a copy of the OUT data (first 256 bytes) */
};

struct rec {
	struct rec_xfer xfer[MAX_XFERS];
	size_t n_xfers, next;	/* next: the first not yet checked */
	uint32_t cancelled[8];
	size_t n_cancelled;
	uint8_t frame[4096];
	size_t frame_len, n_frames;
	uint32_t frame_baud;
	enum usb_dongle_event ev[64];
	int ev_err[64];
	size_t n_ev;
};

static void on_submit(void *ctx, const struct usb_xfer *x)
{
	struct rec *r = ctx;

	assert_true(r->n_xfers < MAX_XFERS);
	struct rec_xfer *rx = &r->xfer[r->n_xfers++];
	rx->x = *x;
	if (x->data)
		memcpy(rx->data, x->data, x->length < sizeof(rx->data) ? x->length : sizeof(rx->data));
}

static void on_cancel(void *ctx, uint32_t tag)
{
	struct rec *r = ctx;

	assert_true(r->n_cancelled < 8);
	r->cancelled[r->n_cancelled++] = tag;
}

static void on_frame(void *ctx, const struct usb_rx_frame *f)
{
	struct rec *r = ctx;

	assert_true(f->len <= sizeof(r->frame));
	memcpy(r->frame, f->data, f->len);
	r->frame_len = f->len;
	r->frame_baud = f->baud;
	r->n_frames++;
}

static void on_event(void *ctx, enum usb_dongle_event ev, int err)
{
	struct rec *r = ctx;

	assert_true(r->n_ev < 64);
	r->ev[r->n_ev] = ev;
	r->ev_err[r->n_ev++] = err;
}

static bool saw_event(const struct rec *r, enum usb_dongle_event ev, int err)
{
	for (size_t i = 0; i < r->n_ev; i++)
		if (r->ev[i] == ev && r->ev_err[i] == err)
			return true;
	return false;
}

#endif
