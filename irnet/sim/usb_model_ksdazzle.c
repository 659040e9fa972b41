/*
 * usb_model_ksdazzle.c: a KingSun "Dazzle" (07d0:4100) as the host sees
 * it over USB (usb-irda-digest 2.6), written from the digest apart from
 * the core (irnet/usb/kingsun.c) so that each checks the other: interrupt
 * IN 0x81 and interrupt OUT 0x02 of 8-byte packets; each OUT packet is
 * 0xF8 + n and n (1..7) bytes of the host's SIR-wrapped frame, the rest
 * of the packet ignored; each IN read gives up to 8 bytes of the raw
 * stream heard (here each frame SIR-wrapped as it was on the air); the
 * speed is set by the control request `21 09 00 02 01 00 08 00` with the
 * record {baud LE32, 0x03, 0, 0, 0}.  It starts at 9600.  Only SIR is
 * modelled: a speed above 115200 is refused with a stall.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "sir.h"
#include "usb_model.h"

#define PACKET 8u
#define PIECE_BASE 0xF8u
#define SET_REPORT_TYPE 0x21u	/* class, interface, host to device */
#define SET_REPORT 0x09u
#define SPEED_VALUE 0x0200u
#define SPEED_INDEX 0x0001u
#define SPEED_RECORD_LEN 8u
#define DATA_BITS_8 0x03u

struct dazzle_model {
	struct usb_model base;	/* first */
	struct sir_decoder *sir;
	struct usb_model_stream rx;
	uint32_t baud;
	uint64_t speed_requests;
};

/* 07d0:4100, one vendor interface: interrupt IN 0x81 first, then
 * interrupt OUT 0x02 (the order the driver checks), 8-byte packets. */
static const uint8_t dazzle_descriptors[] = {
	18, 1, 0x10, 0x01, 0, 0, 0, 8, 0xd0, 0x07, 0x00, 0x41, 0x00, 0x01, 0, 0, 0, 1,
	9, 2, 32, 0, 1, 1, 0, 0x80, 50,
	9, 4, 0, 0, 2, 0xFF, 0, 0, 0,
	7, 5, USB_MODEL_KSDAZZLE_EP_IN, 3, PACKET, 0, 1,
	7, 5, USB_MODEL_KSDAZZLE_EP_OUT, 3, PACKET, 0, 1,
};

static struct dazzle_model *model_of(struct usb_model *m)
{
	return (struct dazzle_model *)m;
}

/* The speed record: a SIR rate, 8 data bits. */
static int set_speed(struct dazzle_model *dm, const uint8_t *record)
{
	static const uint32_t sir[] = { 2400, 9600, 19200, 38400, 57600, 115200 };
	struct cursor c;
	uint32_t baud = 0;
	uint8_t bits = 0;

	cursor_init(&c, record, SPEED_RECORD_LEN);
	cursor_le32(&c, &baud);
	cursor_u8(&c, &bits);
	if (!cursor_ok(&c) || bits != DATA_BITS_8)
		return -EPIPE;
	for (size_t i = 0; i < sizeof(sir) / sizeof(sir[0]); i++)
		if (sir[i] == baud) {
			dm->baud = baud;
			dm->speed_requests++;
			return 0;
		}
	return -EPIPE;
}

static int dazzle_control(struct usb_model *m, const struct usb_model_setup *s,
			  const uint8_t *out, uint8_t *in, size_t in_cap)
{
	(void)in;
	(void)in_cap;
	if (s->request_type != SET_REPORT_TYPE || s->request != SET_REPORT ||
	    s->value != SPEED_VALUE || s->index != SPEED_INDEX || s->length != SPEED_RECORD_LEN ||
	    !out)
		return -EPIPE;
	return set_speed(model_of(m), out);
}

static int dazzle_bulk_out(struct usb_model *m, uint8_t ep, const uint8_t *data, size_t len)
{
	struct dazzle_model *dm = model_of(m);
	struct cursor c;
	uint8_t head = 0;
	const uint8_t *piece;

	if (ep != USB_MODEL_KSDAZZLE_EP_OUT)
		return -EPIPE;
	cursor_init(&c, data, len);
	cursor_u8(&c, &head);
	/* one packet per transfer: 0xF8 + n, n bytes, the rest ignored */
	if (!cursor_ok(&c) || len > PACKET || head <= PIECE_BASE ||
	    !cursor_view(&c, (size_t)(head - PIECE_BASE), &piece)) {
		m->bad_transfers++;
		return (int)len;
	}
	sir_decoder_feed(dm->sir, piece, (size_t)(head - PIECE_BASE));
	return (int)len;
}

static int dazzle_bulk_in(struct usb_model *m, uint8_t ep, uint8_t *buf, size_t cap)
{
	if (ep != USB_MODEL_KSDAZZLE_EP_IN)
		return -EPIPE;
	return usb_model_stream_read(m, &model_of(m)->rx, buf, cap < PACKET ? cap : PACKET);
}

static uint32_t dazzle_speed(const struct usb_model *m)
{
	return ((const struct dazzle_model *)m)->baud;
}

static void dazzle_destroy(struct usb_model *m)
{
	struct dazzle_model *dm = model_of(m);

	sir_decoder_free(dm->sir);
	free(dm);
}

static const struct usb_model_ops dazzle_model_ops = {
	.control = dazzle_control,
	.bulk_out = dazzle_bulk_out,
	.bulk_in = dazzle_bulk_in,
	.speed = dazzle_speed,
	.destroy = dazzle_destroy,
};

struct usb_model *usb_model_ksdazzle_new(void)
{
	struct dazzle_model *dm = calloc(1, sizeof(*dm));

	if (!dm)
		return NULL;
	usb_model_init(&dm->base, &dazzle_model_ops, "ksdazzle", dazzle_descriptors,
		       sizeof(dazzle_descriptors));
	dm->sir = usb_model_sir_decoder_new(&dm->base);
	if (!dm->sir) {
		free(dm);
		return NULL;
	}
	dm->baud = 9600;
	return &dm->base;
}

uint64_t usb_model_ksdazzle_speed_requests(const struct usb_model *m)
{
	return ((const struct dazzle_model *)m)->speed_requests;
}
