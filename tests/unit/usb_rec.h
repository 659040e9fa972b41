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
#include <stdio.h>
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

/* --- checking what was recorded (static inline: each test uses some) --- */

/* "C0 01 00 00" -> bytes; spaces are ignored. */
static inline size_t rec_parse_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (*hex) {
		if (*hex == ' ') {
			hex++;
			continue;
		}
		unsigned v;
		assert_int_equal(sscanf(hex, "%2x", &v), 1);
		assert_true(n < cap);
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return n;
}

/* The next transfer not yet checked. */
static inline const struct rec_xfer *rec_take(struct rec *r)
{
	assert_true(r->next < r->n_xfers);
	return &r->xfer[r->next++];
}

static inline void rec_nothing_more(const struct rec *r)
{
	assert_int_equal(r->next, r->n_xfers);
}

/* The next transfer is of that type and tag, with exactly this setup
 * packet (the digest's notation). */
static inline void rec_expect_setup(struct rec *r, enum usb_xfer_type type, uint32_t tag,
				    const char *setup_hex)
{
	uint8_t want[8], got[8];
	const struct rec_xfer *t = rec_take(r);

	assert_int_equal(rec_parse_hex(setup_hex, want, sizeof want), 8);
	assert_int_equal(t->x.type, type);
	assert_int_equal(t->x.tag, tag);
	usb_setup_pack(&t->x.setup, got);
	if (memcmp(want, got, 8) != 0)
		fail_msg("setup %02x %02x %02x %02x %02x %02x %02x %02x, expected %s", got[0], got[1],
			 got[2], got[3], got[4], got[5], got[6], got[7], setup_hex);
}

static inline void rec_complete(struct usb_dongle *d, uint32_t tag, enum usb_status st,
				const uint8_t *data, size_t n, uint64_t now)
{
	struct usb_completion c = { .tag = tag, .status = st, .data = data, .actual = n };
	usb_dongle_complete(d, &c, now);
}

#endif
