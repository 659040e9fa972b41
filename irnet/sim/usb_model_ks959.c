/*
 * usb_model_ks959.c: a KingSun KS-959 (07d0:4959) as the host sees it
 * over USB (usb-irda-digest 2.5), written from the digest apart from the
 * core (irnet/usb/kingsun.c) so that each checks the other.  Everything
 * moves on the control pipe; the one interrupt IN endpoint (0x81) is a
 * dummy that never answers.
 *
 *   send:  21 09 <clear len LE16> 00 00 <padded len LE16> + payload: at
 *          most 240 SIR-wrapped bytes XOR one mask ("wangshuofei19710"
 *          [(len & 0x0F) ^ 0x06] ^ 0x55), zeros up to
 *          ((len + 7) & ~7) + 16; the model unmasks them into its SIR
 *          decoder;
 *   speed: 21 09 00 02 01 00 08 00 + {baud LE32, 0x03, 0, 0, 0};
 *   poll:  A1 01 00 02 00 00 00 08: the raw stream heard (each frame
 *          SIR-wrapped), each byte sent as b ^ k ^ 0x55 with the 8-bit
 *          counter k incremented before each byte for the whole session;
 *          the byte at which k wraps to 0 is a filler (0x95 once
 *          decoded) the host must skip.  A poll with nothing to hear
 *          stays pending until there is (-EAGAIN, as a bulk IN does): our
 *          choice, so that an emulated host does not spin on empty polls
 *          (the digest does not say how long the dongle holds one).
 *
 * It starts at 9600.  Only SIR is modelled: a speed above 115200 stalls,
 * as does any setup that is not one of those three.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "sir.h"
#include "usb_model.h"

#define SET_REPORT_TYPE 0x21u	/* class, interface, host to device */
#define SET_REPORT 0x09u
#define GET_REPORT_TYPE 0xA1u	/* class, interface, device to host */
#define GET_REPORT 0x01u
#define SPEED_VALUE 0x0200u
#define SPEED_INDEX 0x0001u
#define SPEED_RECORD_LEN 8u
#define DATA_BITS_8 0x03u
#define POLL_VALUE 0x0200u
#define POLL_LEN 0x0800u
#define FRAG_MAX 240u
#define OBF_XOR 0x55u
#define FILLER 0x95u	/* a filler byte, de-obfuscated */

struct ks959_model {
	struct usb_model base;	/* first */
	struct sir_decoder *sir;
	struct usb_model_stream rx;
	uint8_t k;	/* the receive counter: the last k used */
	uint32_t baud;
	uint64_t speed_requests, fillers;
};

/* 07d0:4959, one vendor interface with one dummy interrupt IN. */
static const uint8_t ks959_descriptors[] = {
	18, 1, 0x10, 0x01, 0, 0, 0, 8, 0xd0, 0x07, 0x59, 0x49, 0x00, 0x01, 0, 0, 0, 1,
	9, 2, 25, 0, 1, 1, 0, 0x80, 50,
	9, 4, 0, 0, 1, 0xFF, 0, 0, 0,
	7, 5, USB_MODEL_KS959_EP_IN, 3, 8, 0, 1,
};

static struct ks959_model *model_of(struct usb_model *m)
{
	return (struct ks959_model *)m;
}

uint8_t usb_model_ks959_mask(size_t len)
{
	static const char key[] = "wangshuofei19710";

	return (uint8_t)((uint8_t)key[(len & 0x0Fu) ^ 0x06u] ^ OBF_XOR);
}

size_t usb_model_ks959_padded(size_t len)
{
	return ((len + 7u) & ~(size_t)7u) + 16u;
}

/* The speed record: a SIR rate, 8 data bits. */
static int set_speed(struct ks959_model *km, const uint8_t *record)
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
			km->baud = baud;
			km->speed_requests++;
			return 0;
		}
	return -EPIPE;
}

/* One send fragment of n clear bytes in a padded payload. */
static int take_fragment(struct ks959_model *km, const uint8_t *payload, size_t n,
			 size_t padded)
{
	uint8_t clear[FRAG_MAX];
	uint8_t mask = usb_model_ks959_mask(n);
	struct cursor c;
	const uint8_t *p;
	uint8_t z = 0;

	cursor_init(&c, payload, padded);
	if (!cursor_view(&c, n, &p))
		return -EPIPE;
	for (size_t i = 0; i < n; i++)
		clear[i] = (uint8_t)(p[i] ^ mask);
	/* the padding is zeros; anything else is a host bug worth counting */
	while (cursor_remaining(&c) > 0 && cursor_u8(&c, &z) && z == 0)
		;
	if (z != 0)
		km->base.bad_transfers++;
	sir_decoder_feed(km->sir, clear, n);
	return (int)padded;
}

/* One poll: up to cap obfuscated stream bytes, a filler where k wraps.
 * A filler goes out only with the byte after it. */
static int poll_stream(struct ks959_model *km, uint8_t *in, size_t cap)
{
	uint8_t clear[256];
	size_t pos = 0;

	while (pos < cap) {
		size_t want;
		int r;

		if ((uint8_t)(km->k + 1u) == 0) {
			if (cap - pos < 2)
				break;
			r = usb_model_stream_read(&km->base, &km->rx, clear, 1);
			if (r <= 0)
				break;
			km->k = 0;
			in[pos++] = (uint8_t)(FILLER ^ km->k ^ OBF_XOR);
			km->fillers++;
			km->k++;
			in[pos++] = (uint8_t)(clear[0] ^ km->k ^ OBF_XOR);
			continue;
		}
		want = 255u - km->k;	/* bytes before the next filler */
		if (want > cap - pos)
			want = cap - pos;
		r = usb_model_stream_read(&km->base, &km->rx, clear, want);
		if (r <= 0)
			break;
		for (int i = 0; i < r; i++) {
			km->k++;
			in[pos++] = (uint8_t)(clear[i] ^ km->k ^ OBF_XOR);
		}
	}
	return pos ? (int)pos : -EAGAIN;
}

static int ks959_control(struct usb_model *m, const struct usb_model_setup *s,
			 const uint8_t *out, uint8_t *in, size_t in_cap)
{
	struct ks959_model *km = model_of(m);

	if (s->request_type == GET_REPORT_TYPE && s->request == GET_REPORT &&
	    s->value == POLL_VALUE && s->index == 0 && s->length == POLL_LEN && in)
		return poll_stream(km, in, in_cap < POLL_LEN ? in_cap : POLL_LEN);
	if (s->request_type != SET_REPORT_TYPE || s->request != SET_REPORT || !out)
		return -EPIPE;
	if (s->value == SPEED_VALUE && s->index == SPEED_INDEX && s->length == SPEED_RECORD_LEN)
		return set_speed(km, out);
	if (s->index == 0 && s->value >= 1 && s->value <= FRAG_MAX &&
	    s->length == usb_model_ks959_padded(s->value))
		return take_fragment(km, out, s->value, s->length);
	return -EPIPE;
}

/* No bulk pipe; the interrupt IN is a dummy that never has data. */
static int ks959_bulk_out(struct usb_model *m, uint8_t ep, const uint8_t *data, size_t len)
{
	(void)m;
	(void)ep;
	(void)data;
	(void)len;
	return -EPIPE;
}

static int ks959_bulk_in(struct usb_model *m, uint8_t ep, uint8_t *buf, size_t cap)
{
	(void)m;
	(void)buf;
	(void)cap;
	return ep == USB_MODEL_KS959_EP_IN ? -EAGAIN : -EPIPE;
}

static uint32_t ks959_speed(const struct usb_model *m)
{
	return ((const struct ks959_model *)m)->baud;
}

static void ks959_destroy(struct usb_model *m)
{
	struct ks959_model *km = model_of(m);

	sir_decoder_free(km->sir);
	free(km);
}

static const struct usb_model_ops ks959_model_ops = {
	.control = ks959_control,
	.bulk_out = ks959_bulk_out,
	.bulk_in = ks959_bulk_in,
	.speed = ks959_speed,
	.destroy = ks959_destroy,
};

struct usb_model *usb_model_ks959_new(void)
{
	struct ks959_model *km = calloc(1, sizeof(*km));

	if (!km)
		return NULL;
	usb_model_init(&km->base, &ks959_model_ops, "ks959", ks959_descriptors,
		       sizeof(ks959_descriptors));
	km->sir = usb_model_sir_decoder_new(&km->base);
	if (!km->sir) {
		free(km);
		return NULL;
	}
	km->baud = 9600;
	return &km->base;
}

uint64_t usb_model_ks959_speed_requests(const struct usb_model *m)
{
	return ((const struct ks959_model *)m)->speed_requests;
}

uint64_t usb_model_ks959_fillers(const struct usb_model *m)
{
	return ((const struct ks959_model *)m)->fillers;
}
