/*
 * usb_model.c: the generic calls of the USB device models; see
 * usb_model.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <string.h>

#include "cursor.h"
#include "sir.h"
#include "usb_model.h"

void usb_model_init(struct usb_model *m, const struct usb_model_ops *ops, const char *name,
		    const uint8_t *descriptors, size_t descriptors_len)
{
	m->ops = ops;
	m->name = name;
	m->descriptors = descriptors;
	m->descriptors_len = descriptors_len;
}

static void on_sir_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct usb_model *m = ctx;

	if (usb_model_ring_push(&m->from_host, frame, len, usb_model_speed(m)) < 0)
		m->bad_transfers++;
}

struct sir_decoder *usb_model_sir_decoder_new(struct usb_model *m)
{
	struct sir_decoder_config cfg = { .on_frame = on_sir_frame, .ctx = m };

	return sir_decoder_new(&cfg);
}

/* bmRequestType "standard, to an endpoint", CLEAR_FEATURE, ENDPOINT_HALT */
#define CLEAR_HALT_TYPE 0x02u
#define CLEAR_FEATURE 0x01u
#define ENDPOINT_HALT 0x0000u

/* The next frame for the host, wrapped as it was heard, into s. */
static bool stream_next_frame(struct usb_model *m, struct usb_model_stream *s)
{
	size_t len = 0;
	const uint8_t *frame = usb_model_ring_peek(&m->to_host, &len);
	struct wcursor w;
	int n;

	if (!frame)
		return false;
	wcursor_init(&w, s->bytes, sizeof(s->bytes));
	n = sir_encode(&w, frame, len, 0);
	usb_model_ring_pop(&m->to_host);
	if (n < 0) {
		m->bad_transfers++;
		return false;
	}
	s->len = (size_t)n;
	s->off = 0;
	return true;
}

int usb_model_stream_read(struct usb_model *m, struct usb_model_stream *s, uint8_t *buf,
			  size_t cap)
{
	size_t n;

	if (s->off == s->len && !stream_next_frame(m, s))
		return -EAGAIN;
	n = s->len - s->off;
	n = n < cap ? n : cap;
	memcpy(buf, s->bytes + s->off, n);
	s->off += n;
	return (int)n;
}

int usb_model_control(struct usb_model *m, const uint8_t setup[8], const uint8_t *out,
		      uint8_t *in, size_t in_cap)
{
	struct usb_model_setup s = { 0 };
	struct cursor c;

	if (m->gone)
		return -ENODEV;
	cursor_init(&c, setup, 8);
	cursor_u8(&c, &s.request_type);
	cursor_u8(&c, &s.request);
	cursor_le16(&c, &s.value);
	cursor_le16(&c, &s.index);
	cursor_le16(&c, &s.length);
	if (!cursor_ok(&c))
		return -EPIPE;
	/* acknowledged on any endpoint, so that Linux's swapped clear-halts
	 * of the MCS7780 (digest 2.3) succeed too */
	if (s.request_type == CLEAR_HALT_TYPE && s.request == CLEAR_FEATURE &&
	    s.value == ENDPOINT_HALT)
		return 0;
	return m->ops->control(m, &s, out, in, in_cap);
}

int usb_model_bulk_out(struct usb_model *m, uint8_t ep, const uint8_t *data, size_t len)
{
	return m->gone ? -ENODEV : m->ops->bulk_out(m, ep, data, len);
}

int usb_model_bulk_in(struct usb_model *m, uint8_t ep, uint8_t *buf, size_t cap)
{
	return m->gone ? -ENODEV : m->ops->bulk_in(m, ep, buf, cap);
}

void usb_model_free(struct usb_model *m)
{
	if (m)
		m->ops->destroy(m);
}

int usb_model_ring_push(struct usb_model_ring *r, const uint8_t *frame, size_t len,
			uint32_t baud)
{
	unsigned slot;

	if (r->count == USB_MODEL_FRAMES)
		return -ENOBUFS;
	if (len > USB_MODEL_FRAME_MAX)
		return -EMSGSIZE;
	slot = (r->head + r->count) % USB_MODEL_FRAMES;
	memcpy(r->data[slot], frame, len);
	r->len[slot] = len;
	r->baud[slot] = baud;
	r->count++;
	return 0;
}

const uint8_t *usb_model_ring_peek(const struct usb_model_ring *r, size_t *len)
{
	if (!r->count)
		return NULL;
	*len = r->len[r->head];
	return r->data[r->head];
}

void usb_model_ring_pop(struct usb_model_ring *r)
{
	if (!r->count)
		return;
	r->head = (r->head + 1) % USB_MODEL_FRAMES;
	r->count--;
}

int usb_model_take_frame(struct usb_model *m, uint8_t *buf, size_t cap, uint32_t *baud)
{
	size_t len = 0;
	const uint8_t *frame = usb_model_ring_peek(&m->from_host, &len);

	if (!frame)
		return -EAGAIN;
	if (len > cap)
		return -EMSGSIZE;
	memcpy(buf, frame, len);
	if (baud)
		*baud = m->from_host.baud[m->from_host.head];
	usb_model_ring_pop(&m->from_host);
	return (int)len;
}

int usb_model_inject_frame(struct usb_model *m, const uint8_t *frame, size_t len)
{
	return usb_model_ring_push(&m->to_host, frame, len, usb_model_speed(m));
}

uint32_t usb_model_speed(const struct usb_model *m)
{
	return m->ops->speed(m);
}
