/*
 * usb_model_irda_class.c: a USB IrDA Bridge class device (interface
 * class 0xFE, subclass 0x02) as the host sees it (usb-irda-digest 2.1):
 * the class descriptor behind GET_CLASS_DESC, one bulk OUT endpoint
 * taking a 1-byte header and a bare IrLAP frame per transfer, one bulk
 * IN endpoint giving the status header (media busy, current speed) and
 * a bare frame, and the interrupt IN pipe many such devices have and no
 * driver uses.  The device wraps and checks the FCS itself, so the
 * optical side sees exactly the bytes after the header.
 *
 * A header's speed and BOF count take effect after the frame that
 * carries it (SPEC 5.4.2.2), or before it on a device with the speed bug
 * (IUC_SPEED_BUG: ACTiSYS, IBM, KC, ESI); a header alone is a pure
 * change.  Only SIR is modelled on the optical side: a frame at a higher
 * speed counts as a bad transfer.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "irda_class.h"
#include "usb_model.h"

#define CONFIG_LEN (9 + 9 + 3 * 7)

struct class_model {
	struct usb_model base;	/* first */
	uint8_t descriptors[18 + CONFIG_LEN];
	uint8_t class_desc[IRDA_CLASS_DESC_LEN];
	bool speed_bug;
	uint32_t baud, xbofs;
	uint64_t class_desc_reads;
};

static struct class_model *model_of(struct usb_model *m)
{
	return (struct class_model *)m;
}

static const struct class_model *const_model_of(const struct usb_model *m)
{
	return (const struct class_model *)m;
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v & 0xFF);
	p[1] = (uint8_t)(v >> 8);
}

/* Device descriptor, then configuration: interface FE/02/00 with bulk
 * IN, bulk OUT and interrupt IN, 64-byte packets, full speed. */
static void build_descriptors(struct class_model *cm, uint16_t vid, uint16_t pid)
{
	static const uint8_t device[18] = { 18, 1, 0x10, 0x01, 0, 0, 0, 64, 0, 0, 0, 0,
					    0x00, 0x01, 0, 0, 0, 1 };
	static const uint8_t config[CONFIG_LEN] = {
		9, 2, CONFIG_LEN, 0, 1, 1, 0, 0x80, 50,
		9, 4, 0, 0, 3, IRDA_CLASS_IFACE_CLASS, IRDA_CLASS_IFACE_SUBCLASS, 0, 0,
		7, 5, USB_MODEL_IRDA_CLASS_EP_IN, 2, 64, 0, 0,
		7, 5, USB_MODEL_IRDA_CLASS_EP_OUT, 2, 64, 0, 0,
		7, 5, USB_MODEL_IRDA_CLASS_EP_INTR, 3, 8, 0, 16,
	};

	memcpy(cm->descriptors, device, sizeof(device));
	put_le16(cm->descriptors + 8, vid);
	put_le16(cm->descriptors + 10, pid);
	memcpy(cm->descriptors + sizeof(device), config, sizeof(config));
}

/* What an ACT-IR2000U-like device announces: 64..2048-byte frames, 1..7
 * frame windows, 1 ms turnaround, 2400 .. 4 Mbit/s, any BOF count. */
static void build_class_desc(struct class_model *cm)
{
	static const uint8_t desc[IRDA_CLASS_DESC_LEN] = {
		IRDA_CLASS_DESC_LEN, IRDA_CLASS_DESC_TYPE, 0x00, 0x01, 0x3F, 0x7F, 0x04,
		0xFF, 0x01, 0xFF, 0x00, 0x00,
	};

	memcpy(cm->class_desc, desc, sizeof(desc));
}

static int class_control(struct usb_model *m, const struct usb_model_setup *s,
			 const uint8_t *out, uint8_t *in, size_t in_cap)
{
	struct class_model *cm = model_of(m);
	uint8_t type = s->request_type, req = s->request;
	uint16_t value = s->value, index = s->index, length = s->length;
	size_t n;

	(void)out;
	if (type != (USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE) ||
	    req != IRDA_CLASS_REQ_GET_DESC || value != 0 || index != 0)
		return -EPIPE;
	/* a short wLength gets a short reply, as from a device */
	n = length < sizeof(cm->class_desc) ? length : sizeof(cm->class_desc);
	n = n < in_cap ? n : in_cap;
	memcpy(in, cm->class_desc, n);
	cm->class_desc_reads++;
	return (int)n;
}

/* A header's speed and BOF codes; 0 is "no change" for both. */
static void apply_header(struct class_model *cm, uint8_t header)
{
	uint32_t baud = irda_class_speed_of_code(header & IRDA_CLASS_HDR_SPEED_MASK);
	uint32_t xbofs = irda_class_xbofs_of_code(header >> IRDA_CLASS_HDR_XBOF_SHIFT);

	if (baud)
		cm->baud = baud;
	if (xbofs != UINT32_MAX)
		cm->xbofs = xbofs;
}

static void send_frame(struct class_model *cm, const uint8_t *frame, size_t len)
{
	if (len < 2 || len > IRDA_CLASS_FRAME_MAX || cm->baud > 115200 ||
	    usb_model_ring_push(&cm->base.from_host, frame, len, cm->baud) < 0)
		cm->base.bad_transfers++;
}

static int class_bulk_out(struct usb_model *m, uint8_t ep, const uint8_t *data, size_t len)
{
	struct class_model *cm = model_of(m);
	struct cursor c;
	uint8_t header = 0;
	const uint8_t *frame = NULL;
	size_t frame_len;

	if (ep != USB_MODEL_IRDA_CLASS_EP_OUT)
		return -EPIPE;
	/* a zero-length packet only ends the transfer before it */
	if (len == 0)
		return 0;
	cursor_init(&c, data, len);
	cursor_u8(&c, &header);
	frame_len = cursor_remaining(&c);
	if (!cursor_ok(&c) || !cursor_view(&c, frame_len, &frame)) {
		cm->base.bad_transfers++;
		return (int)len;
	}
	if (frame_len == 0 || cm->speed_bug) {
		apply_header(cm, header);
		if (frame_len)
			send_frame(cm, frame, frame_len);
		return (int)len;
	}
	send_frame(cm, frame, frame_len);
	apply_header(cm, header);
	return (int)len;
}

static int class_bulk_in(struct usb_model *m, uint8_t ep, uint8_t *buf, size_t cap)
{
	struct usb_model_ring *r = &m->to_host;
	size_t len = 0;
	const uint8_t *frame = usb_model_ring_peek(r, &len);

	if (ep != USB_MODEL_IRDA_CLASS_EP_IN)
		return -EPIPE;
	if (!frame)
		return -EAGAIN;
	if (len + IRDA_CLASS_HDR_LEN > cap) {
		usb_model_ring_pop(r);
		return -EOVERFLOW;
	}
	buf[0] = irda_class_speed_code(model_of(m)->baud);
	memcpy(buf + IRDA_CLASS_HDR_LEN, frame, len);
	usb_model_ring_pop(r);
	return (int)(len + IRDA_CLASS_HDR_LEN);
}

static uint32_t class_speed(const struct usb_model *m)
{
	return const_model_of(m)->baud;
}

static void class_destroy(struct usb_model *m)
{
	free(model_of(m));
}

static const struct usb_model_ops class_model_ops = {
	.control = class_control,
	.bulk_out = class_bulk_out,
	.bulk_in = class_bulk_in,
	.speed = class_speed,
	.destroy = class_destroy,
};

struct usb_model *usb_model_irda_class_new(uint16_t vid, uint16_t pid, bool speed_bug)
{
	struct class_model *cm = calloc(1, sizeof(*cm));

	if (!cm)
		return NULL;
	build_descriptors(cm, vid, pid);
	build_class_desc(cm);
	cm->speed_bug = speed_bug;
	/* the spec's power-on state: 9600, 12 extra BOFs */
	cm->baud = 9600;
	cm->xbofs = 12;
	usb_model_init(&cm->base, &class_model_ops, "irda-class", cm->descriptors,
		       sizeof(cm->descriptors));
	return &cm->base;
}

uint32_t usb_model_irda_class_xbofs(const struct usb_model *m)
{
	return const_model_of(m)->xbofs;
}

uint64_t usb_model_irda_class_desc_reads(const struct usb_model *m)
{
	return const_model_of(m)->class_desc_reads;
}
