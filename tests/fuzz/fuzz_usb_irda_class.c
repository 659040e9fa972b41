/*
 * fuzz_usb_irda_class.c: the Bridge class descriptor parser and receive
 * parser on arbitrary bytes, alone and through the core.
 *
 * Input: byte 0 even: the rest is a GET_CLASS_DESC reply; odd: a bulk
 * IN transfer.  A descriptor the parser accepts must have been at least
 * 12 bytes of type 0x21 listing 9600, and the core must open with it (or
 * fail with -EPROTO when the parser refused it).  An IN transfer the
 * parser accepts must be header + frame of 2..2050 bytes, handed through
 * unchanged by an opened core; a refused one is counted once.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "irda_class.h"
#include "usb_dongle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* digest 4.2's synthetic descriptor */
static const uint8_t desc_42[] = {
	0x0C, 0x21, 0x00, 0x01, 0x3F, 0x7F, 0x07, 0xFF, 0x01, 0x80, 0x00, 0x00,
};

struct host {
	uint32_t last_tag;
	size_t frames, frame_len;
	const uint8_t *frame;
	bool opened, failed;
	int fail_err;
};

static void h_submit(void *ctx, const struct usb_xfer *x)
{
	struct host *h = ctx;

	h->last_tag = x->tag;
}

static void h_cancel(void *ctx, uint32_t tag)
{
	(void)ctx;
	(void)tag;
}

static void h_frame(void *ctx, const struct usb_rx_frame *f)
{
	struct host *h = ctx;

	h->frames++;
	h->frame = f->data;
	h->frame_len = f->len;
}

static void h_event(void *ctx, enum usb_dongle_event ev, int err)
{
	struct host *h = ctx;

	if (ev == USB_EVENT_OPENED)
		h->opened = true;
	if (ev == USB_EVENT_FAILED || ev == USB_EVENT_GONE) {
		h->failed = true;
		h->fail_err = err;
	}
}

static void complete(struct usb_dongle *d, uint32_t tag, const uint8_t *p, size_t n)
{
	struct usb_completion c = { .tag = tag, .status = USB_STATUS_OK, .data = p, .actual = n };
	usb_dongle_complete(d, &c, 0);
}

/* Opens a core answering GET_CLASS_DESC with desc. */
static struct usb_dongle *open_core(struct host *h, const uint8_t *desc, size_t n)
{
	struct usb_dongle_config cfg = {
		.ep = { .bulk_in = 0x81, .bulk_out = 0x01, .out_max_packet = 64 },
		.host = { h_submit, h_cancel, h_frame, h_event, h },
	};
	struct usb_dongle *d;
	char err[160];

	if (usb_dongle_new(&irda_class_family, &cfg, NULL, &d, err, sizeof err) < 0)
		abort();
	usb_dongle_open(d, 0);
	complete(d, IRDA_CLASS_TAG_CTRL, desc, n);
	if (!h->failed)
		complete(d, IRDA_CLASS_TAG_TX, NULL, 1);	/* the 9600 speed frame */
	return d;
}

static void fuzz_descriptor(const uint8_t *in, size_t n)
{
	struct cursor c;
	struct irda_class_desc desc;
	char why[96];
	struct host h = { 0 };

	cursor_init(&c, in, n);
	int rc = irda_class_parse_desc(&c, &desc, why, sizeof why);
	if (rc == 0 && (n < 12 || in[0] < 12 || in[1] != 0x21 || !(in[7] & 0x02)))
		abort();
	if (rc != 0 && rc != -EPROTO)
		abort();
	struct usb_dongle *d = open_core(&h, in, n);
	if (rc == 0 ? (!h.opened || h.failed) : (h.opened || h.fail_err != -EPROTO))
		abort();
	if (rc == 0 && (irda_class_qos(d).baud_bits & ~0x01FFu))
		abort();
	usb_dongle_free(d);
}

static void fuzz_rx(const uint8_t *in, size_t n)
{
	struct cursor c;
	struct irda_class_rx rx;
	struct host h = { 0 };

	cursor_init(&c, in, n);
	int rc = irda_class_rx_frame(&c, &rx);
	if (rc >= 0 && (rc < 2 || rc > 2050 || (size_t)rc + 1 != n || rx.frame != in + 1))
		abort();
	if (rc < 0 && rc != -ENODATA && rc != -EPROTO && rc != -EMSGSIZE)
		abort();
	struct usb_dongle *d = open_core(&h, desc_42, sizeof desc_42);
	if (!h.opened)
		abort();
	complete(d, IRDA_CLASS_TAG_RX, in, n);
	const struct usb_dongle_counters *k = usb_dongle_counters(d);
	if (rc >= 0 && (h.frames != 1 || h.frame_len != (size_t)rc ||
			memcmp(h.frame, in + 1, (size_t)rc) != 0))
		abort();
	if (rc < 0 && (h.frames != 0 || k->rx_empty + k->rx_malformed + k->rx_oversize != 1))
		abort();
	if (h.last_tag != IRDA_CLASS_TAG_RX)	/* the next IN transfer went out */
		abort();
	usb_dongle_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t n = size - 1;
	uint8_t *in = malloc(n ? n : 1);	/* exactly n bytes: ASan sees overreads */
	if (!in)
		return 0;
	if (n)
		memcpy(in, data + 1, n);
	if (data[0] & 1)
		fuzz_rx(in, n);
	else
		fuzz_descriptor(in, n);
	free(in);
	return 0;
}
