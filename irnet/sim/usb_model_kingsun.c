/*
 * usb_model_kingsun.c: a KingSun/DonShine (07c0:4200) as the host sees it
 * over USB (usb-irda-digest 2.4), written from the digest apart from the
 * core (irnet/usb/kingsun.c): interrupt IN 0x81 and interrupt OUT 0x02;
 * one interrupt OUT carries the host's whole SIR-wrapped frame; each IN
 * read gives one report of exactly wMaxPacketSize (8) bytes, byte 0 the
 * count of stream bytes that follow (1..7), the rest stale.  The dongle
 * does not clear its buffer after a read, so a report is read twice
 * before the model waits for more (once, not forever, so that an
 * emulated host's polls do not spin).  It has no speed command: 9600.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sir.h"
#include "usb_model.h"

#define REPORT 8u
#define REPORT_DATA (REPORT - 1u)

struct kingsun_model {
	struct usb_model base;	/* first */
	struct sir_decoder *sir;
	struct usb_model_stream rx;
	uint8_t report[REPORT];
	bool repeat;	/* the last report is still in the dongle's buffer */
	uint64_t reports, repeats;
};

/* 07c0:4200, one vendor interface: interrupt IN 0x81 first, then
 * interrupt OUT 0x02 (the order the driver checks), 8-byte packets. */
static const uint8_t kingsun_descriptors[] = {
	18, 1, 0x10, 0x01, 0, 0, 0, 8, 0xc0, 0x07, 0x00, 0x42, 0x00, 0x01, 0, 0, 0, 1,
	9, 2, 32, 0, 1, 1, 0, 0x80, 50,
	9, 4, 0, 0, 2, 0xFF, 0, 0, 0,
	7, 5, USB_MODEL_KINGSUN_EP_IN, 3, REPORT, 0, 1,
	7, 5, USB_MODEL_KINGSUN_EP_OUT, 3, REPORT, 0, 1,
};

static struct kingsun_model *model_of(struct usb_model *m)
{
	return (struct kingsun_model *)m;
}

static int kingsun_control(struct usb_model *m, const struct usb_model_setup *s,
			   const uint8_t *out, uint8_t *in, size_t in_cap)
{
	(void)m;
	(void)s;
	(void)out;
	(void)in;
	(void)in_cap;
	return -EPIPE;	/* no vendor or class request is known */
}

static int kingsun_bulk_out(struct usb_model *m, uint8_t ep, const uint8_t *data, size_t len)
{
	struct kingsun_model *km = model_of(m);

	if (ep != USB_MODEL_KINGSUN_EP_OUT)
		return -EPIPE;
	sir_decoder_reset(km->sir);
	sir_decoder_feed(km->sir, data, len);
	return (int)len;
}

static int kingsun_bulk_in(struct usb_model *m, uint8_t ep, uint8_t *buf, size_t cap)
{
	struct kingsun_model *km = model_of(m);
	int n;

	if (ep != USB_MODEL_KINGSUN_EP_IN)
		return -EPIPE;
	if (cap < REPORT)
		return -EOVERFLOW;
	n = usb_model_stream_read(m, &km->rx, km->report + 1, REPORT_DATA);
	if (n > 0) {
		/* a new report; the bytes after the count keep what the
		 * buffer held (stale), as the dongle's do */
		km->report[0] = (uint8_t)n;
		km->reports++;
		km->repeat = true;
	} else if (km->repeat) {
		km->repeat = false;
		km->repeats++;
	} else {
		return -EAGAIN;
	}
	memcpy(buf, km->report, REPORT);
	return (int)REPORT;
}

static uint32_t kingsun_speed(const struct usb_model *m)
{
	(void)m;
	return 9600;
}

static void kingsun_destroy(struct usb_model *m)
{
	struct kingsun_model *km = model_of(m);

	sir_decoder_free(km->sir);
	free(km);
}

static const struct usb_model_ops kingsun_model_ops = {
	.control = kingsun_control,
	.bulk_out = kingsun_bulk_out,
	.bulk_in = kingsun_bulk_in,
	.speed = kingsun_speed,
	.destroy = kingsun_destroy,
};

struct usb_model *usb_model_kingsun_new(void)
{
	struct kingsun_model *km = calloc(1, sizeof(*km));

	if (!km)
		return NULL;
	usb_model_init(&km->base, &kingsun_model_ops, "kingsun", kingsun_descriptors,
		       sizeof(kingsun_descriptors));
	km->sir = usb_model_sir_decoder_new(&km->base);
	if (!km->sir) {
		free(km);
		return NULL;
	}
	return &km->base;
}

uint64_t usb_model_kingsun_repeats(const struct usb_model *m)
{
	return ((const struct kingsun_model *)m)->repeats;
}
