/*
 * usb_model_mcs7780.c: a MosChip MCS7780 as the host sees it over USB
 * (usb-irda-digest 2.3): 16-bit registers behind vendor requests 0x0E
 * (write) and 0x0F (read), one bulk OUT endpoint taking length-prefixed
 * SIR-wrapped frames, one bulk IN endpoint giving escaped frames without
 * BOF/EOF.  The transmitter is never busy (RESV reads 0).  Only SIR is
 * modelled on the optical side; MIR/FIR transfers count as bad.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "mcs7780.h"
#include "sir.h"
#include "usb_model.h"

struct mcs7780_model {
	struct usb_model base;	/* first */
	uint16_t reg[MCS7780_NREGS];
	struct usb_model_reg_write writes[USB_MODEL_MCS7780_LOG];
	size_t n_writes;
	struct sir_decoder *sir;
};

/* Device descriptor (18 bytes), then configuration (9), interface (9,
 * vendor class), bulk IN 0x81 and bulk OUT 0x01 (7 each, 64-byte
 * packets, full speed). */
static const uint8_t mcs7780_descriptors[] = {
	18, 1, 0x10, 0x01, 0, 0, 0, 64, 0x10, 0x97, 0x80, 0x77, 0x00, 0x01, 0, 0, 0, 1,
	9, 2, 32, 0, 1, 1, 0, 0x80, 50,
	9, 4, 0, 0, 2, 0xFF, 0, 0, 0,
	7, 5, USB_MODEL_MCS7780_EP_IN, 2, 64, 0, 0,
	7, 5, USB_MODEL_MCS7780_EP_OUT, 2, 64, 0, 0,
};

static struct mcs7780_model *model_of(struct usb_model *m)
{
	return (struct mcs7780_model *)m;
}

static void log_write(struct mcs7780_model *mm, uint16_t reg, uint16_t value)
{
	if (mm->n_writes < USB_MODEL_MCS7780_LOG)
		mm->writes[mm->n_writes] = (struct usb_model_reg_write){ reg, value };
	mm->n_writes++;
}

static int vendor_request(struct mcs7780_model *mm, uint8_t type, uint8_t req, uint16_t value,
			  uint16_t index, uint16_t length, uint8_t *in, size_t in_cap)
{
	if (index >= MCS7780_NREGS)
		return -EPIPE;
	if (type == USB_TYPE_VENDOR && req == MCS7780_REQ_WRITE && length == 0) {
		mm->reg[index] = value;
		log_write(mm, index, value);
		return 0;
	}
	if (type == (USB_DIR_IN | USB_TYPE_VENDOR) && req == MCS7780_REQ_READ && length >= 2 &&
	    in_cap >= 2) {
		in[0] = (uint8_t)(mm->reg[index] & 0xFF);
		in[1] = (uint8_t)(mm->reg[index] >> 8);
		return 2;
	}
	return -EPIPE;
}

static int mcs7780_control(struct usb_model *m, const struct usb_model_setup *s,
			   const uint8_t *out, uint8_t *in, size_t in_cap)
{
	(void)out;
	return vendor_request(model_of(m), s->request_type, s->request, s->value, s->index,
			      s->length, in, in_cap);
}

static bool mode_is_sir(const struct mcs7780_model *mm)
{
	uint16_t speed = (mm->reg[MCS7780_REG_MODE] & MCS7780_MODE_SPEED_MASK) >>
			 MCS7780_MODE_SPEED_SHIFT;

	return !(mm->reg[MCS7780_REG_MODE] & MCS7780_MODE_FIR) && speed <= 5;
}

static int mcs7780_bulk_out(struct usb_model *m, uint8_t ep, const uint8_t *data, size_t len)
{
	struct mcs7780_model *mm = model_of(m);
	struct cursor c;
	uint16_t counted = 0;
	const uint8_t *body;

	if (ep != USB_MODEL_MCS7780_EP_OUT)
		return -EPIPE;
	cursor_init(&c, data, len);
	cursor_le16(&c, &counted);
	/* the length counts its own two bytes */
	if (!cursor_ok(&c) || counted != len || !mode_is_sir(mm) ||
	    !cursor_view(&c, cursor_remaining(&c), &body)) {
		mm->base.bad_transfers++;
		return (int)len;
	}
	sir_decoder_reset(mm->sir);
	sir_decoder_feed(mm->sir, body, len - 2);
	return (int)len;
}

/* What the chip hands up for a frame: escaped with its FCS, without the
 * XBOFs, BOF and EOF. */
static int chip_rx_bytes(const uint8_t *frame, size_t len, uint8_t *buf, size_t cap)
{
	uint8_t wrapped[2 * USB_MODEL_FRAME_MAX + 8];
	struct wcursor w;
	int n;

	wcursor_init(&w, wrapped, sizeof(wrapped));
	n = sir_encode(&w, frame, len, 0);
	if (n < 2)
		return n < 0 ? n : -EINVAL;
	if ((size_t)n - 2 > cap)
		return -EMSGSIZE;
	memcpy(buf, wrapped + 1, (size_t)n - 2);
	return n - 2;
}

static int mcs7780_bulk_in(struct usb_model *m, uint8_t ep, uint8_t *buf, size_t cap)
{
	struct usb_model_ring *r = &m->to_host;
	size_t len = 0;
	const uint8_t *frame = usb_model_ring_peek(r, &len);
	int n;

	if (ep != USB_MODEL_MCS7780_EP_IN)
		return -EPIPE;
	if (!frame)
		return -EAGAIN;
	n = chip_rx_bytes(frame, len, buf, cap);
	usb_model_ring_pop(r);
	return n;
}

static void mcs7780_destroy(struct usb_model *m)
{
	struct mcs7780_model *mm = model_of(m);

	sir_decoder_free(mm->sir);
	free(mm);
}

/* MODE's speed field as mcs7780.h's table codes it: 2400 .. 115200 at
 * SIR, 576000 and 1152000 at MIR; with the FIR bit, 4000000 whatever the
 * field holds. */
static uint32_t mcs7780_speed(const struct usb_model *m)
{
	static const uint32_t by_field[] = { 2400, 9600, 19200, 38400, 57600,
					     115200, 576000, 1152000 };
	uint16_t mode = ((const struct mcs7780_model *)m)->reg[MCS7780_REG_MODE];

	if (mode & MCS7780_MODE_FIR)
		return 4000000;
	return by_field[(mode & MCS7780_MODE_SPEED_MASK) >> MCS7780_MODE_SPEED_SHIFT];
}

static const struct usb_model_ops mcs7780_model_ops = {
	.control = mcs7780_control,
	.bulk_out = mcs7780_bulk_out,
	.bulk_in = mcs7780_bulk_in,
	.speed = mcs7780_speed,
	.destroy = mcs7780_destroy,
};

struct usb_model *usb_model_mcs7780_new(void)
{
	struct mcs7780_model *mm = calloc(1, sizeof(*mm));

	if (!mm)
		return NULL;
	usb_model_init(&mm->base, &mcs7780_model_ops, "mcs7780", mcs7780_descriptors,
		       sizeof(mcs7780_descriptors));
	mm->sir = usb_model_sir_decoder_new(&mm->base);
	if (!mm->sir) {
		free(mm);
		return NULL;
	}
	return &mm->base;
}

uint16_t usb_model_mcs7780_reg(const struct usb_model *m, unsigned reg)
{
	const struct mcs7780_model *mm = (const struct mcs7780_model *)m;

	return reg < MCS7780_NREGS ? mm->reg[reg] : 0;
}

const struct usb_model_reg_write *usb_model_mcs7780_writes(const struct usb_model *m, size_t *n)
{
	const struct mcs7780_model *mm = (const struct mcs7780_model *)m;

	*n = mm->n_writes < USB_MODEL_MCS7780_LOG ? mm->n_writes : USB_MODEL_MCS7780_LOG;
	return mm->writes;
}
