/*
 * fuzz_usb_mcs7780.c: the MCS7780 receive parser on arbitrary bulk IN
 * transfers, alone and through the core.
 *
 * A frame the parser accepts must carry a good FCS (checked bit by bit
 * here, not with the library's CRCs), fit the frame buffer, and come back
 * unchanged from its own transmit framing parsed again.  Through the core
 * (opened and set to the speed by an auto-answering host) the same
 * transfer must give the same frame, or a counted drop.
 *
 * Input: byte 0 picks the speed, the rest is the transfer.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcs7780.h"
#include "usb_dongle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint32_t speeds[] = {
	2400, 9600, 19200, 38400, 57600, 115200, 576000, 1152000, 4000000,
};

static bool crc16_good(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xFFFF;

	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc & 1) ? (uint16_t)((crc >> 1) ^ 0x8408) : (uint16_t)(crc >> 1);
	}
	return crc == 0xF0B8;
}

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

/* --- an auto-answering host: every register reads 0 --- */

struct host {
	struct usb_xfer ctrl;
	bool ctrl_pending;
	size_t frames;
	uint8_t frame[MCS7780_FRAME_MAX];
	size_t frame_len;
};

static void h_submit(void *ctx, const struct usb_xfer *x)
{
	struct host *h = ctx;

	if (x->tag == MCS7780_TAG_CTRL) {
		h->ctrl = *x;
		h->ctrl_pending = true;
	}
}

static void h_cancel(void *ctx, uint32_t tag)
{
	(void)ctx;
	(void)tag;
}

static void h_frame(void *ctx, const struct usb_rx_frame *f)
{
	struct host *h = ctx;

	if (f->len > sizeof(h->frame))
		abort();
	memcpy(h->frame, f->data, f->len);
	h->frame_len = f->len;
	h->frames++;
}

static void h_event(void *ctx, enum usb_dongle_event ev, int err)
{
	(void)ctx;
	if (ev == USB_EVENT_FAILED || ev == USB_EVENT_GONE)
		abort();
	(void)err;
}

static void answer_controls(struct usb_dongle *d, struct host *h)
{
	static const uint8_t zero[2];

	for (int guard = 0; h->ctrl_pending && guard < 1000; guard++) {
		h->ctrl_pending = false;
		struct usb_completion c = {
			.tag = MCS7780_TAG_CTRL, .status = USB_STATUS_OK,
			.data = zero, .actual = h->ctrl.setup.length,
		};
		usb_dongle_complete(d, &c, 0);
	}
	if (h->ctrl_pending)
		abort();
}

static void through_core(uint32_t baud, const uint8_t *in, size_t n, int rc,
			 const uint8_t *frame)
{
	struct host h = { 0 };
	struct usb_dongle_config cfg = {
		.ep = { .bulk_in = 0x81, .bulk_out = 0x01 },
		.host = { h_submit, h_cancel, h_frame, h_event, &h },
	};
	struct usb_dongle *d;
	char err[128];

	if (usb_dongle_new(&mcs7780_family, &cfg, NULL, &d, err, sizeof err) < 0)
		abort();
	usb_dongle_open(d, 0);
	answer_controls(d, &h);
	if (usb_dongle_set_speed(d, baud, 0) < 0)
		abort();
	answer_controls(d, &h);
	struct usb_completion c = {
		.tag = MCS7780_TAG_RX, .status = USB_STATUS_OK, .data = in, .actual = n,
	};
	usb_dongle_complete(d, &c, 1);
	const struct usb_dongle_counters *k = usb_dongle_counters(d);
	if (rc >= 0 && (h.frames != 1 || h.frame_len != (size_t)rc ||
			memcmp(h.frame, frame, (size_t)rc) != 0))
		abort();
	if (rc < 0 && (h.frames != 0 || k->rx_empty + k->rx_fcs_errors + k->rx_malformed +
						 k->rx_oversize != 1))
		abort();
	usb_dongle_free(d);
}

/* The frame's own TX framing, length and (at SIR) XBOF/BOF/EOF removed,
 * parses back to the frame. */
static void round_trip(uint32_t baud, const uint8_t *frame, size_t len)
{
	static uint8_t tx[MCS7780_TX_MAX];
	uint8_t again[MCS7780_FRAME_MAX + MCS7780_FCS_MAX];
	struct usb_tx_frame f = { .data = frame, .len = len };
	struct wcursor w;

	wcursor_init(&w, tx, sizeof tx);
	int n = mcs7780_tx_frame(baud, &f, &w);
	if (n < 4 || (tx[0] | tx[1] << 8) != n)
		abort();
	size_t skip = 2, trim = 0;
	if (baud <= 115200) {
		if (tx[2] != 0xC0 || tx[n - 1] != 0xC1)
			abort();
		skip = 3;
		trim = 1;
	}
	struct cursor in;
	struct wcursor out;
	cursor_init(&in, tx + skip, (size_t)n - skip - trim);
	wcursor_init(&out, again, sizeof again);
	if (mcs7780_rx_frame(baud, &in, &out) != (int)len || memcmp(again, frame, len) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint32_t baud = speeds[data[0] % (sizeof(speeds) / sizeof(speeds[0]))];
	size_t n = size - 1;
	uint8_t *in = malloc(n ? n : 1);	/* exactly n bytes: ASan sees overreads */
	if (!in)
		return 0;
	if (n)
		memcpy(in, data + 1, n);

	uint8_t frame[MCS7780_FRAME_MAX + MCS7780_FCS_MAX];
	struct cursor c;
	struct wcursor w;
	cursor_init(&c, in, n);
	wcursor_init(&w, frame, sizeof frame);
	int rc = mcs7780_rx_frame(baud, &c, &w);
	if (rc >= 0) {
		size_t fcs = baud == 4000000 ? 4 : 2;
		size_t whole = (size_t)rc + fcs;
		if (rc < 2 || whole > sizeof frame || wcursor_len(&w) != whole)
			abort();
		if (fcs == 4 ? !crc32_good(frame, whole) : !crc16_good(frame, whole))
			abort();
		round_trip(baud, frame, (size_t)rc);
	} else if (rc != -ENODATA && rc != -EPROTO && rc != -EBADMSG && rc != -EMSGSIZE) {
		abort();
	}
	through_core(baud, in, n, rc, frame);
	free(in);
	return 0;
}
