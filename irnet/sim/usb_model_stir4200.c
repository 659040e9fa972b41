/*
 * usb_model_stir4200.c: a SigmaTel STIr4200 as the host sees it over USB
 * (usb-irda-digest 2.2): 8-bit registers written one at a time by vendor
 * request 3 (`40 03 <value> 00 <reg> 00 00 00`) and read in runs by
 * request 1 (`C0 01 00 00 <reg> 00 <count> 00`); bulk OUT 0x01 taking
 * `55 AA <len LE16>` and the host's SIR-wrapped frame; bulk IN 0x82
 * giving the raw byte stream heard, here each frame SIR-wrapped as it
 * was on the air, cut wherever the host's transfer ends.
 *
 * The speed is what MODE and PDCLK say (the digest's table); the chip's
 * power-on state is not in the digest, so the model starts at 9600 SIR.
 * The TX FIFO holds what the optical side has not taken yet (counted as
 * its frames' bytes): FIFOCTL reads DIR while it holds anything, EMPTY
 * when not, and writing CLR empties it.  Only SIR is modelled on the
 * optical side: a transfer in FIR mode counts as bad.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "sir.h"
#include "usb_dongle.h"
#include "usb_model.h"

#define NREGS 16
#define REQ_WRITE_SINGLE 0x03u
#define REQ_READ_REG 0x01u

#define REG_MODE 1
#define REG_PDCLK 2
#define REG_FIFOCTL 5
#define REG_FIFOLSB 6
#define REG_FIFOMSB 7

#define MODE_FIR 0x80u
#define MODE_SIR 0x20u
#define MODE_2400 0x01u
#define FIFOCTL_DIR 0x10u
#define FIFOCTL_CLR 0x08u
#define FIFOCTL_EMPTY 0x04u

#define TX_MAGIC0 0x55u
#define TX_MAGIC1 0xAAu

struct stir_model {
	struct usb_model base;	/* first */
	uint8_t reg[NREGS];
	struct usb_model_reg_write writes[USB_MODEL_STIR4200_LOG];
	size_t n_writes;
	struct sir_decoder *sir;
	struct usb_model_stream rx;	/* what the chip heard, for the host */
};

/* 066f:4200, one vendor interface with bulk OUT 0x01 and bulk IN 0x82
 * (the numbers Linux hard-codes), 64-byte packets, full speed. */
static const uint8_t stir_descriptors[] = {
	18, 1, 0x10, 0x01, 0, 0, 0, 64, 0x6f, 0x06, 0x00, 0x42, 0x00, 0x01, 0, 0, 0, 1,
	9, 2, 32, 0, 1, 1, 0, 0x80, 50,
	9, 4, 0, 0, 2, 0xFF, 0, 0, 0,
	7, 5, USB_MODEL_STIR4200_EP_OUT, 2, 64, 0, 0,
	7, 5, USB_MODEL_STIR4200_EP_IN, 2, 64, 0, 0,
};

static struct stir_model *model_of(struct usb_model *m)
{
	return (struct stir_model *)m;
}

static const struct stir_model *const_model_of(const struct usb_model *m)
{
	return (const struct stir_model *)m;
}

/* What the TX FIFO holds: the frames the optical side has not taken. */
static unsigned fifo_count(const struct stir_model *sm)
{
	const struct usb_model_ring *r = &sm->base.from_host;
	unsigned n = 0;

	for (unsigned i = 0; i < r->count; i++)
		n += (unsigned)r->len[(r->head + i) % USB_MODEL_FRAMES];
	return n;
}

static uint8_t read_reg(const struct stir_model *sm, unsigned reg)
{
	unsigned count = fifo_count(sm);

	switch (reg) {
	case REG_FIFOCTL:
		return count ? FIFOCTL_DIR : FIFOCTL_EMPTY;
	case REG_FIFOLSB:
		return (uint8_t)(count & 0xFF);
	case REG_FIFOMSB:
		return (uint8_t)((count >> 8) & 0x1F);
	default:
		return sm->reg[reg];
	}
}

static void write_reg(struct stir_model *sm, unsigned reg, uint8_t value)
{
	if (sm->n_writes < USB_MODEL_STIR4200_LOG)
		sm->writes[sm->n_writes] = (struct usb_model_reg_write){ (uint16_t)reg, value };
	sm->n_writes++;
	sm->reg[reg] = value;
	/* CLR drops what the FIFO holds: frames not yet on the air */
	if (reg == REG_FIFOCTL && (value & FIFOCTL_CLR))
		while (sm->base.from_host.count)
			usb_model_ring_pop(&sm->base.from_host);
}

static int stir_control(struct usb_model *m, const struct usb_model_setup *s,
			const uint8_t *out, uint8_t *in, size_t in_cap)
{
	struct stir_model *sm = model_of(m);
	uint8_t type = s->request_type, req = s->request;
	uint16_t value = s->value, index = s->index, length = s->length;

	(void)out;
	if (type == USB_TYPE_VENDOR && req == REQ_WRITE_SINGLE && length == 0 &&
	    index < NREGS && value <= 0xFF) {
		write_reg(sm, index, (uint8_t)value);
		return 0;
	}
	if (type == (USB_DIR_IN | USB_TYPE_VENDOR) && req == REQ_READ_REG && value == 0 &&
	    length >= 1 && index + (size_t)length <= NREGS) {
		size_t n = length < in_cap ? length : in_cap;

		for (size_t i = 0; i < n; i++)
			in[i] = read_reg(sm, index + (unsigned)i);
		return (int)n;
	}
	return -EPIPE;
}

/* MODE and PDCLK as the digest's speed table sets them; 0 for a pair
 * it does not list. */
static uint32_t stir_speed(const struct usb_model *m)
{
	static const struct {
		uint8_t pdclk;
		uint32_t baud;
	} sir[] = { { 0x77, 9600 }, { 0x3B, 19200 }, { 0x1D, 38400 },
		    { 0x13, 57600 }, { 0x09, 115200 } };
	const struct stir_model *sm = const_model_of(m);
	uint8_t mode = sm->reg[REG_MODE], pdclk = sm->reg[REG_PDCLK];

	if (mode & MODE_FIR)
		return pdclk == 0x02 ? 4000000 : 0;
	if (!(mode & MODE_SIR))
		return 0;
	if (mode & MODE_2400)
		return pdclk == 0xDF ? 2400 : 0;
	for (size_t i = 0; i < sizeof(sir) / sizeof(sir[0]); i++)
		if (sir[i].pdclk == pdclk)
			return sir[i].baud;
	return 0;
}

static int stir_bulk_out(struct usb_model *m, uint8_t ep, const uint8_t *data, size_t len)
{
	struct stir_model *sm = model_of(m);
	struct cursor c;
	uint8_t m0 = 0, m1 = 0;
	uint16_t body_len = 0;
	const uint8_t *body;
	uint32_t baud = stir_speed(m);

	if (ep != USB_MODEL_STIR4200_EP_OUT)
		return -EPIPE;
	cursor_init(&c, data, len);
	cursor_u8(&c, &m0);
	cursor_u8(&c, &m1);
	cursor_le16(&c, &body_len);
	if (!cursor_ok(&c) || m0 != TX_MAGIC0 || m1 != TX_MAGIC1 ||
	    body_len != cursor_remaining(&c) || baud == 0 || baud > 115200 ||
	    !cursor_view(&c, body_len, &body)) {
		m->bad_transfers++;
		return (int)len;
	}
	sir_decoder_reset(sm->sir);
	sir_decoder_feed(sm->sir, body, body_len);
	return (int)len;
}

static int stir_bulk_in(struct usb_model *m, uint8_t ep, uint8_t *buf, size_t cap)
{
	if (ep != USB_MODEL_STIR4200_EP_IN)
		return -EPIPE;
	return usb_model_stream_read(m, &model_of(m)->rx, buf, cap);
}

static void stir_destroy(struct usb_model *m)
{
	struct stir_model *sm = model_of(m);

	sir_decoder_free(sm->sir);
	free(sm);
}

static const struct usb_model_ops stir_model_ops = {
	.control = stir_control,
	.bulk_out = stir_bulk_out,
	.bulk_in = stir_bulk_in,
	.speed = stir_speed,
	.destroy = stir_destroy,
};

struct usb_model *usb_model_stir4200_new(void)
{
	struct stir_model *sm = calloc(1, sizeof(*sm));

	if (!sm)
		return NULL;
	usb_model_init(&sm->base, &stir_model_ops, "stir4200", stir_descriptors,
		       sizeof(stir_descriptors));
	sm->sir = usb_model_sir_decoder_new(&sm->base);
	if (!sm->sir) {
		free(sm);
		return NULL;
	}
	sm->reg[REG_MODE] = 0x2A;
	sm->reg[REG_PDCLK] = 0x77;
	return &sm->base;
}

uint8_t usb_model_stir4200_reg(const struct usb_model *m, unsigned reg)
{
	return reg < NREGS ? read_reg(const_model_of(m), reg) : 0;
}

const struct usb_model_reg_write *usb_model_stir4200_writes(const struct usb_model *m, size_t *n)
{
	const struct stir_model *sm = const_model_of(m);

	*n = sm->n_writes < USB_MODEL_STIR4200_LOG ? sm->n_writes : USB_MODEL_STIR4200_LOG;
	return sm->writes;
}

void usb_model_stir4200_forget_writes(struct usb_model *m)
{
	model_of(m)->n_writes = 0;
}
