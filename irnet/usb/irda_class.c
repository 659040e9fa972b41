/*
 * irda_class.c: the USB IrDA Bridge class core.  See irda_class.h; every
 * number here is from usb-irda-digest section 2.1.
 *
 * Choices where the digest leaves room (docs/irnet-usb.md has the table):
 * - every speed change is a header-only frame sent once the frame in
 *   flight is back, and data frames carry speed code 0: that is right
 *   both for devices that apply the header after the frame (the spec)
 *   and for IUC_SPEED_BUG ones that apply it before, so the quirk needs
 *   no code path of its own;
 * - an extra-BOF change rides in the header of the data frame that
 *   first asks for it (as Linux's first frame 0x32 does), so on a spec
 *   device it takes effect from the next frame;
 * - open sets 9600 and 12 BOFs (0x32) with a header-only frame after the
 *   descriptor, so the device's state is known rather than assumed;
 * - the ZLP flag is set only when the OUT length is a multiple of
 *   wMaxPacketSize (or that size is unknown);
 * - the IN header's media-busy bit raises USB_EVENT_MEDIA_BUSY(0), on a
 *   frame or a header-only status transfer.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "irda_class.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEMS(t) (sizeof(t) / sizeof((t)[0]))

/* --- descriptor ---------------------------------------------------------------- */

#define BAUD_9600_BIT 0x0002u
#define QOS_BAUD_MASK 0x01FFu	/* 2400..4M: the speeds this stack has */

int irda_class_parse_desc(struct cursor *in, struct irda_class_desc *out, char *why,
			  size_t whylen)
{
	size_t n = cursor_remaining(in);
	uint8_t len = 0, type = 0;

	memset(out, 0, sizeof(*out));
	cursor_u8(in, &len);
	cursor_u8(in, &type);
	cursor_le16(in, &out->spec_revision);
	cursor_u8(in, &out->data_sizes);
	cursor_u8(in, &out->window_sizes);
	cursor_u8(in, &out->min_tat);
	cursor_le16(in, &out->baud_rates);
	cursor_u8(in, &out->xbofs);
	cursor_u8(in, &out->rate_sniff);
	cursor_u8(in, &out->unicast_list);
	if (!cursor_ok(in)) {
		snprintf(why, whylen, "class descriptor reply is %zu bytes, not %u", n,
			 IRDA_CLASS_DESC_LEN);
		return -EPROTO;
	}
	if (type != IRDA_CLASS_DESC_TYPE) {
		snprintf(why, whylen, "class descriptor type is 0x%02x, not 0x21", type);
		return -EPROTO;
	}
	if (len < IRDA_CLASS_DESC_LEN) {
		snprintf(why, whylen, "class descriptor bLength is %u, under 12", len);
		return -EPROTO;
	}
	if (!(out->baud_rates & BAUD_9600_BIT)) {
		snprintf(why, whylen, "wBaudRate 0x%04x lacks 9600, IrLAP's start speed",
			 out->baud_rates);
		return -EPROTO;
	}
	if (!out->data_sizes || !(out->window_sizes & 0x7F)) {
		snprintf(why, whylen, "class descriptor has no data size (0x%02x) or window (0x%02x)",
			 out->data_sizes, out->window_sizes);
		return -EPROTO;
	}
	return 0;
}

struct usb_dongle_qos irda_class_qos_of(const struct irda_class_desc *desc, uint32_t quirks)
{
	struct usb_dongle_qos q = {
		.baud_bits = desc->baud_rates & QOS_BAUD_MASK,
		.min_tat_bits = desc->min_tat,
		.window_bits = desc->window_sizes & 0x7F,
		.data_size_bits = desc->data_sizes & 0x3F,
		.xbof_bits = desc->xbofs,
	};
	if (quirks & IRDA_CLASS_NO_WINDOW)
		q.window_bits = 0x01;
	return q;
}

/* --- headers ---------------------------------------------------------------------- */

/* The speed code is the QoS bit number plus one. */
uint8_t irda_class_speed_code(uint32_t baud)
{
	uint16_t bit = usb_baud_bit(baud);

	for (uint8_t code = 1; bit != 0; code++, bit >>= 1)
		if (bit == 1)
			return code;
	return 0;
}

/* The BOF counts of codes 1..8, largest first. */
static const uint8_t xbof_counts[] = { 48, 24, 12, 6, 3, 2, 1, 0 };

uint8_t irda_class_xbof_code(uint32_t n)
{
	uint8_t code = 1;

	/* the smallest listed count still >= n */
	for (size_t i = 0; i < NELEMS(xbof_counts); i++)
		if (xbof_counts[i] >= n)
			code = (uint8_t)(i + 1);
	return code;
}

uint32_t irda_class_speed_of_code(uint8_t code)
{
	return code ? usb_baud_of_bit(code - 1u) : 0;
}

uint32_t irda_class_xbofs_of_code(uint8_t code)
{
	return code >= 1 && code <= NELEMS(xbof_counts) ? xbof_counts[code - 1] : UINT32_MAX;
}

uint8_t irda_class_header(uint8_t speed_code, uint8_t xbof_code)
{
	return (uint8_t)((xbof_code << IRDA_CLASS_HDR_XBOF_SHIFT) |
			 (speed_code & IRDA_CLASS_HDR_SPEED_MASK));
}

int irda_class_tx_frame(uint8_t header, const struct usb_tx_frame *f, struct wcursor *w)
{
	size_t start = wcursor_len(w);

	if (f->len < 2)
		return -EINVAL;
	if (f->len > IRDA_CLASS_FRAME_MAX)
		return -EMSGSIZE;
	wcursor_u8(w, header);
	wcursor_bytes(w, f->data, f->len);
	if (!wcursor_ok(w))
		return -ENOSPC;
	return (int)(wcursor_len(w) - start);
}

int irda_class_rx_frame(struct cursor *in, struct irda_class_rx *out)
{
	memset(out, 0, sizeof(*out));
	if (!cursor_u8(in, &out->status))
		return -ENODATA;
	size_t n = cursor_remaining(in);
	if (n == 0)
		return -ENODATA;
	if (n < 2)
		return -EPROTO;
	if (n > IRDA_CLASS_FRAME_MAX)
		return -EMSGSIZE;
	cursor_view(in, n, &out->frame);
	out->len = n;
	return (int)n;
}

/* --- the core ----------------------------------------------------------------------- */

enum cls_state {
	CLS_CLOSED,
	CLS_OPENING,	/* GET_CLASS_DESC, then the 9600 header-only frame */
	CLS_READY,
	CLS_CHANGING,	/* a speed frame is in flight or waits for the data frame */
	CLS_CLOSING,
	CLS_FAILED,
};

static const char *const state_names[] = {
	[CLS_CLOSED] = "CLOSED", [CLS_OPENING] = "OPENING", [CLS_READY] = "READY",
	[CLS_CHANGING] = "CHANGING", [CLS_CLOSING] = "CLOSING", [CLS_FAILED] = "FAILED",
};

/* Linux's first frame after ifup: 9600 and 12 extra BOFs (0x32). */
#define OPEN_BAUD 9600u
#define OPEN_XBOFS 12u
#define FIR_BAUD 4000000u

struct irda_class {
	struct usb_dongle base;		/* first: usb_dongle.c casts */
	enum cls_state state;
	uint32_t quirks;
	struct irda_class_desc desc;
	struct usb_dongle_qos qos;
	uint32_t target;		/* the speed being set */
	uint8_t xbof_code;		/* the BOF code the device has */
	bool pending_speed;		/* the speed frame waits for the data frame */
	bool speed_in_flight;		/* the TX tag carries a speed frame */
	uint8_t tx[IRDA_CLASS_TX_MAX];
	uint8_t speed_hdr[IRDA_CLASS_HDR_LEN];
};

static struct irda_class *to_cls(struct usb_dongle *d)
{
	return (struct irda_class *)d;
}

static void go(struct irda_class *k, enum cls_state to, const char *event)
{
	log_msg(k->base.cfg.log, LOG_LEVEL_DEBUG, "irda-class: %s --%s--> %s",
		state_names[k->state], event, state_names[to]);
	k->state = to;
}

static void submit(struct irda_class *k, const struct usb_xfer *x)
{
	usb_dongle_submit(&k->base, x);
}

static void fail(struct irda_class *k, int err, const char *why)
{
	if (k->state == CLS_FAILED || k->state == CLS_CLOSING || k->state == CLS_CLOSED)
		return;
	bool gone = err == -ENODEV;
	log_msg(k->base.cfg.log, gone ? LOG_LEVEL_INFO : LOG_LEVEL_ERROR, "irda-class: %s: %s",
		why, gone ? "the device is gone" : strerror(-err));
	go(k, CLS_FAILED, gone ? "gone" : "error");
	k->base.deadline_us = USB_NO_DEADLINE;
	usb_dongle_emit(&k->base, gone ? USB_EVENT_GONE : USB_EVENT_FAILED, err);
}

static uint32_t zlp_flag(const struct irda_class *k, size_t len)
{
	uint16_t mps = k->base.cfg.ep.out_max_packet;

	return mps == 0 || len % mps == 0 ? USB_XFER_ZERO_PACKET : 0;
}

static void submit_out(struct irda_class *k, const uint8_t *data, size_t len)
{
	struct usb_xfer x = {
		.type = USB_XFER_BULK, .tag = IRDA_CLASS_TAG_TX,
		.endpoint = k->base.cfg.ep.bulk_out, .data = data, .length = len,
		.flags = zlp_flag(k, len),
	};
	submit(k, &x);
}

static void post_rx(struct irda_class *k)
{
	struct usb_xfer x = {
		.type = USB_XFER_BULK, .tag = IRDA_CLASS_TAG_RX,
		.endpoint = k->base.cfg.ep.bulk_in, .length = IRDA_CLASS_RX_LEN,
	};
	k->base.deadline_us = USB_NO_DEADLINE;
	submit(k, &x);
}

static void get_class_desc(struct irda_class *k)
{
	struct usb_setup s = {
		.request_type = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
		.request = IRDA_CLASS_REQ_GET_DESC, .index = k->base.cfg.interface,
		.length = IRDA_CLASS_DESC_LEN,
	};
	struct usb_xfer x = usb_control_xfer(IRDA_CLASS_TAG_CTRL, &s, IRDA_CLASS_CTRL_TIMEOUT_MS);
	submit(k, &x);
}

/* The header-only frame that moves the device to k->target; at 4 Mbit
 * it also sets 0 BOFs, as Linux does. */
static void send_speed_frame(struct irda_class *k)
{
	uint8_t xbof = 0;

	if (k->state == CLS_OPENING)
		xbof = irda_class_xbof_code(OPEN_XBOFS);
	else if (k->target == FIR_BAUD)
		xbof = irda_class_xbof_code(0);
	if (xbof)
		k->xbof_code = xbof;
	k->pending_speed = false;
	k->speed_in_flight = true;
	k->base.tx_busy = true;
	k->speed_hdr[0] = irda_class_header(irda_class_speed_code(k->target), xbof);
	submit_out(k, k->speed_hdr, sizeof(k->speed_hdr));
}

static void desc_done(struct irda_class *k, const struct usb_completion *c)
{
	struct cursor in;
	char why[96];

	if (c->status != USB_STATUS_OK) {
		fail(k, usb_status_errno(c->status), "GET_CLASS_DESC");
		return;
	}
	cursor_init(&in, c->data, c->actual);
	int rc = irda_class_parse_desc(&in, &k->desc, why, sizeof(why));
	if (rc < 0) {
		fail(k, rc, why);
		return;
	}
	k->qos = irda_class_qos_of(&k->desc, k->quirks);
	log_msg(k->base.cfg.log, LOG_LEVEL_INFO,
		"irda-class: speeds 0x%03x, min turnaround 0x%02x, window 0x%02x, sizes 0x%02x",
		k->qos.baud_bits, k->qos.min_tat_bits, k->qos.window_bits, k->qos.data_size_bits);
	send_speed_frame(k);
}

/* The speed frame is back: the device is at the new speed. */
static void speed_done(struct irda_class *k)
{
	k->base.baud = k->target;
	k->base.tx_busy = false;
	bool opening = k->state == CLS_OPENING;
	go(k, CLS_READY, opening ? "open done" : "speed set");
	if (opening) {
		post_rx(k);
		usb_dongle_emit(&k->base, USB_EVENT_OPENED, 0);
	} else {
		usb_dongle_emit(&k->base, USB_EVENT_SPEED, 0);
	}
}

static void tx_done(struct irda_class *k, const struct usb_completion *c)
{
	int err = usb_status_errno(c->status);
	bool was_speed = k->speed_in_flight;

	k->speed_in_flight = false;
	if (c->status == USB_STATUS_NO_DEVICE) {
		fail(k, err, was_speed ? "changing speed" : "sending a frame");
		return;
	}
	if (was_speed) {
		if (err != 0)
			fail(k, err, "changing speed");
		else
			speed_done(k);
		return;
	}
	if (err == 0)
		k->base.n.tx_frames++;
	else if (c->status != USB_STATUS_CANCELLED)
		log_msg(k->base.cfg.log, LOG_LEVEL_WARNING, "irda-class: frame lost: %s",
			usb_status_name(c->status));
	if (k->state != CLS_READY && k->state != CLS_CHANGING)
		return;
	if (k->pending_speed)
		send_speed_frame(k);
	else
		k->base.tx_busy = false;
	usb_dongle_emit(&k->base, USB_EVENT_TX_DONE, err);
}

static void deliver(struct irda_class *k, const struct usb_completion *c, uint64_t now_us)
{
	struct cursor in;
	struct irda_class_rx rx;

	cursor_init(&in, c->data, c->actual);
	int rc = irda_class_rx_frame(&in, &rx);
	if (rx.status & IRDA_CLASS_STATUS_MEDIA_BUSY)
		usb_dongle_emit(&k->base, USB_EVENT_MEDIA_BUSY, 0);
	if (rc < 0) {
		usb_dongle_rx_dropped(&k->base, rc, c->actual);
		return;
	}
	usb_dongle_deliver(&k->base, rx.frame, rx.len, now_us);
}

static bool receiving(const struct irda_class *k)
{
	return k->state == CLS_READY || k->state == CLS_CHANGING;
}

static void rx_done(struct irda_class *k, const struct usb_completion *c, uint64_t now_us)
{
	if (!receiving(k))
		return;
	switch (c->status) {
	case USB_STATUS_OK:
		deliver(k, c, now_us);
		post_rx(k);
		break;
	case USB_STATUS_NO_DEVICE:
		fail(k, -ENODEV, "receiving");
		break;
	case USB_STATUS_CANCELLED:
		break;
	default:
		log_msg(k->base.cfg.log, LOG_LEVEL_WARNING,
			"irda-class: receive transfer ended: %s; again in %u us",
			usb_status_name(c->status), IRDA_CLASS_RX_RETRY_US);
		k->base.deadline_us = now_us + IRDA_CLASS_RX_RETRY_US;
		break;
	}
}

static bool nothing_in_flight(const struct irda_class *k)
{
	return usb_dongle_idle(&k->base);
}

static void finish_close(struct irda_class *k)
{
	go(k, CLS_CLOSED, "all transfers back");
	usb_dongle_closed(&k->base);
}

/* --- usb_dongle_ops --- */

static void cls_complete(struct usb_dongle *d, const struct usb_completion *c, uint64_t now_us)
{
	struct irda_class *k = to_cls(d);

	if (!usb_dongle_take(d, c->tag))
		return;
	if (k->state == CLS_CLOSING) {
		if (nothing_in_flight(k))
			finish_close(k);
		return;
	}
	if (k->state == CLS_FAILED)
		return;
	switch (c->tag) {
	case IRDA_CLASS_TAG_CTRL:
		desc_done(k, c);
		break;
	case IRDA_CLASS_TAG_TX:
		tx_done(k, c);
		break;
	default:
		rx_done(k, c, now_us);
		break;
	}
}

static int cls_open(struct usb_dongle *d, uint64_t now_us)
{
	struct irda_class *k = to_cls(d);

	(void)now_us;
	if (k->state != CLS_CLOSED)
		return -EALREADY;
	go(k, CLS_OPENING, "open");
	k->target = OPEN_BAUD;
	k->xbof_code = 0;
	memset(&k->qos, 0, sizeof(k->qos));
	d->tx_busy = true;
	get_class_desc(k);
	return 0;
}

static int cls_set_speed(struct usb_dongle *d, uint32_t baud, uint64_t now_us)
{
	struct irda_class *k = to_cls(d);

	(void)now_us;
	if (k->state == CLS_CHANGING)
		return -EBUSY;
	if (k->state != CLS_READY)
		return -ENOTCONN;
	if (!(usb_baud_bit(baud) & k->qos.baud_bits))
		return -EINVAL;	/* the descriptor does not list it */
	k->target = baud;
	go(k, CLS_CHANGING, "set speed");
	if (k->base.in_flight[IRDA_CLASS_TAG_TX]) {
		k->pending_speed = true;	/* after the frame: it left at the old speed */
		return 0;
	}
	send_speed_frame(k);
	return 0;
}

/* The data frame's header: speed 0 (speeds change by their own frame),
 * the BOF code when the frame asks for other BOFs than the device has. */
static uint8_t data_header(struct irda_class *k, const struct usb_tx_frame *f)
{
	uint8_t code = irda_class_xbof_code(f->xbofs);

	if (k->base.baud == FIR_BAUD || code == k->xbof_code)
		return irda_class_header(0, 0);
	k->xbof_code = code;
	return irda_class_header(0, code);
}

static int cls_send(struct usb_dongle *d, const struct usb_tx_frame *f, uint64_t now_us)
{
	struct irda_class *k = to_cls(d);
	struct wcursor w;

	(void)now_us;
	if (k->state != CLS_READY)
		return -EBUSY;
	if (f->len < 2 || f->len > IRDA_CLASS_FRAME_MAX)
		return f->len < 2 ? -EINVAL : -EMSGSIZE;
	wcursor_init(&w, k->tx, sizeof(k->tx));
	int n = irda_class_tx_frame(data_header(k, f), f, &w);
	if (n < 0)
		return n;
	d->tx_busy = true;
	submit_out(k, k->tx, (size_t)n);
	return 0;
}

static void cls_tick(struct usb_dongle *d, uint64_t now_us)
{
	struct irda_class *k = to_cls(d);

	if (now_us < d->deadline_us)
		return;
	d->deadline_us = USB_NO_DEADLINE;
	if (receiving(k) && !k->base.in_flight[IRDA_CLASS_TAG_RX])
		post_rx(k);
}

static int cls_close(struct usb_dongle *d, uint64_t now_us)
{
	struct irda_class *k = to_cls(d);

	(void)now_us;
	if (k->state == CLS_CLOSED || k->state == CLS_CLOSING)
		return k->state == CLS_CLOSED ? 0 : -EINPROGRESS;
	go(k, CLS_CLOSING, "close");
	d->deadline_us = USB_NO_DEADLINE;
	k->pending_speed = false;
	if (nothing_in_flight(k)) {
		finish_close(k);
		return 0;
	}
	usb_dongle_cancel_all(d);
	return 0;
}

static void cls_destroy(struct usb_dongle *d)
{
	free(d);
}

static int refuse_stir421x(const struct usb_id *id, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "irda-class: SigmaTel STIr421x (%04x:%04x) needs the vendor firmware "
		 "<bcdDevice>.sb (e.g. 42101001.sb) patched in at probe; irnet does not ship "
		 "or load it", id->vid, id->pid);
	return -ENOTSUP;
}

static int cls_create(const struct usb_dongle_config *cfg, const struct usb_id *id,
		      struct usb_dongle **out, char *err, size_t errlen)
{
	uint32_t quirks = id ? id->quirks : 0;

	if (quirks & IRDA_CLASS_STIR421X)
		return refuse_stir421x(id, err, errlen);
	if (!usb_endpoint_is(cfg->ep.bulk_in, true) || !usb_endpoint_is(cfg->ep.bulk_out, false)) {
		snprintf(err, errlen,
			 "irda-class: needs a bulk IN and a bulk OUT endpoint (given IN 0x%02x, OUT 0x%02x)",
			 cfg->ep.bulk_in, cfg->ep.bulk_out);
		return -EINVAL;
	}
	struct irda_class *k = calloc(1, sizeof(*k));
	if (!k) {
		snprintf(err, errlen, "irda-class: out of memory");
		return -ENOMEM;
	}
	k->state = CLS_CLOSED;
	k->quirks = quirks;
	*out = &k->base;
	return 0;
}

struct usb_dongle_qos irda_class_qos(const struct usb_dongle *d)
{
	return ((const struct irda_class *)d)->qos;
}

static bool cls_qos(const struct usb_dongle *d, struct usb_dongle_qos *out)
{
	const struct irda_class *k = (const struct irda_class *)d;

	/* zero until the descriptor came (and after close) */
	if (!k->qos.baud_bits)
		return false;
	*out = k->qos;
	return true;
}

static const struct usb_dongle_ops cls_ops = {
	.destroy = cls_destroy,
	.open = cls_open,
	.set_speed = cls_set_speed,
	.send = cls_send,
	.complete = cls_complete,
	.tick = cls_tick,
	.close = cls_close,
	.qos = cls_qos,
};

#define OLD_CLASS_QUIRKS (IRDA_CLASS_SPEED_BUG | IRDA_CLASS_NO_WINDOW)
#define STIR421X_QUIRKS (IRDA_CLASS_STIR421X | IRDA_CLASS_SPEED_BUG)

/* The IDs of digest 1.1; any other FE/02 interface matches by class. */
static const struct usb_id cls_ids[] = {
	{ 0x09c4, 0x0011, OLD_CLASS_QUIRKS },	/* ACTiSYS ACT-IR2000U */
	{ 0x4428, 0x0012, OLD_CLASS_QUIRKS },	/* IBM UltraPort */
	{ 0x050f, 0x0180, OLD_CLASS_QUIRKS },	/* KC Technology KC-180 */
	{ 0x08e9, 0x0100, OLD_CLASS_QUIRKS },	/* ESI-9685 */
	{ 0x066f, 0x4210, STIR421X_QUIRKS },	/* SigmaTel STIr4210 */
	{ 0x066f, 0x4220, STIR421X_QUIRKS },	/* SigmaTel STIr4220 */
	{ 0x066f, 0x4116, STIR421X_QUIRKS },	/* SigmaTel STIr4116 */
};

/* What the class can express; each device's own set comes from its
 * descriptor (irda_class_qos) and set_speed refuses the rest. */
const struct usb_family irda_class_family = {
	.name = "irda-class",
	.chip = "USB IrDA Bridge class",
	.ids = cls_ids,
	.n_ids = NELEMS(cls_ids),
	.iface_class = IRDA_CLASS_IFACE_CLASS,
	.iface_subclass = IRDA_CLASS_IFACE_SUBCLASS,
	.baud_bits = QOS_BAUD_MASK,
	.min_tat_bits = 0xFF,
	.create = cls_create,
	.ops = &cls_ops,
};
