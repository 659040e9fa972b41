/*
 * usb_model_bench.h: a minimal in-process USB host (no libusb) joining a
 * dongle core to a device model, for the model tests: submitted
 * transfers wait until pump() runs them against the model, never from
 * inside the core's callbacks; frames and events are recorded.
 * Included by one test file each (static functions).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_TEST_USB_MODEL_BENCH_H
#define IRNET_TEST_USB_MODEL_BENCH_H

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "usb_dongle.h"
#include "usb_model.h"

#define PENDING 8

struct bench {
	struct usb_model *model;
	struct usb_dongle *core;
	struct usb_xfer pending[PENDING];
	uint8_t out_copy[PENDING][4200];
	bool cancelled[PENDING];
	size_t n_pending;
	enum usb_dongle_event events[32];
	size_t n_events;
	uint8_t rx[2100];
	size_t rx_len;
	size_t rx_frames;
};

static void bench_submit(void *ctx, const struct usb_xfer *x)
{
	struct bench *b = ctx;

	assert_true(b->n_pending < PENDING);
	b->pending[b->n_pending] = *x;
	if (x->data && x->length) {
		assert_true(x->length <= sizeof(b->out_copy[0]));
		memcpy(b->out_copy[b->n_pending], x->data, x->length);
		b->pending[b->n_pending].data = b->out_copy[b->n_pending];
	}
	b->cancelled[b->n_pending] = false;
	b->n_pending++;
}

static void bench_cancel(void *ctx, uint32_t tag)
{
	struct bench *b = ctx;

	for (size_t i = 0; i < b->n_pending; i++)
		if (b->pending[i].tag == tag)
			b->cancelled[i] = true;
}

static void bench_frame(void *ctx, const struct usb_rx_frame *f)
{
	struct bench *b = ctx;

	assert_true(f->len <= sizeof(b->rx));
	memcpy(b->rx, f->data, f->len);
	b->rx_len = f->len;
	b->rx_frames++;
}

static void bench_event(void *ctx, enum usb_dongle_event ev, int err)
{
	struct bench *b = ctx;

	(void)err;
	assert_true(b->n_events < 32);
	b->events[b->n_events++] = ev;
}

static enum usb_status status_of(int r)
{
	return r == -ENODEV ? USB_STATUS_NO_DEVICE : r == -EPIPE ? USB_STATUS_STALL
		: r < 0 ? USB_STATUS_ERROR : USB_STATUS_OK;
}

/* Runs one pending transfer against the model; false if it must wait
 * (a bulk or control IN with nothing to give). */
static bool run_one(struct bench *b, const struct usb_xfer *x, bool cancelled,
		    struct usb_completion *c, uint8_t *buf, size_t cap)
{
	uint8_t setup[8];
	int r;

	*c = (struct usb_completion){ .tag = x->tag, .data = buf };
	if (cancelled) {
		c->status = USB_STATUS_CANCELLED;
		return true;
	}
	if (x->type == USB_XFER_CONTROL || x->type == USB_XFER_CLEAR_HALT) {
		usb_setup_pack(&x->setup, setup);
		r = usb_model_control(b->model, setup, x->data, buf, cap);
		if (r == -EAGAIN && (x->setup.request_type & USB_DIR_IN))
			return false;	/* an IN the model has nothing for yet */
	} else if (x->endpoint & USB_DIR_IN) {
		r = usb_model_bulk_in(b->model, x->endpoint, buf, x->length < cap ? x->length : cap);
		if (r == -EAGAIN)
			return false;
	} else {
		r = usb_model_bulk_out(b->model, x->endpoint, x->data, x->length);
	}
	c->status = status_of(r);
	c->actual = r > 0 ? (size_t)r : 0;
	return true;
}

/* Completes whatever can complete, until nothing moves. */
static void pump(struct bench *b)
{
	bool moved = true;

	while (moved) {
		moved = false;
		for (size_t i = 0; i < b->n_pending; i++) {
			struct usb_xfer x = b->pending[i];
			bool cancelled = b->cancelled[i];
			struct usb_completion c;
			uint8_t buf[4200];

			if (!run_one(b, &x, cancelled, &c, buf, sizeof(buf)))
				continue;
			memmove(&b->pending[i], &b->pending[i + 1],
				(b->n_pending - i - 1) * sizeof(b->pending[0]));
			memmove(&b->cancelled[i], &b->cancelled[i + 1],
				(b->n_pending - i - 1) * sizeof(b->cancelled[0]));
			memmove(b->out_copy[i], b->out_copy[i + 1],
				(b->n_pending - i - 1) * sizeof(b->out_copy[0]));
			for (size_t j = i; j + 1 < b->n_pending; j++)
				if (b->pending[j].data)
					b->pending[j].data = b->out_copy[j];
			b->n_pending--;
			usb_dongle_complete(b->core, &c, 0);
			moved = true;
			break;
		}
	}
}

static bool saw(const struct bench *b, enum usb_dongle_event ev)
{
	for (size_t i = 0; i < b->n_events; i++)
		if (b->events[i] == ev)
			return true;
	return false;
}

/* Creates the family's core on the model (which the bench then owns)
 * and runs its open sequence to OPENED. */
static void bench_start(struct bench *b, struct usb_model *model, const struct usb_family *family,
			const struct usb_id *id, const struct usb_endpoints *ep,
			enum usb_clear_halt_mode clear_halt)
{
	struct usb_dongle_config cfg = {
		.ep = *ep,
		.host = { bench_submit, bench_cancel, bench_frame, bench_event, b },
		.clear_halt = clear_halt,
	};
	char err[128];

	memset(b, 0, sizeof(*b));
	b->model = model;
	assert_non_null(b->model);
	cfg.host.ctx = b;
	assert_int_equal(usb_dongle_new(family, &cfg, id, &b->core, err, sizeof(err)), 0);
	assert_int_equal(usb_dongle_open(b->core, 0), 0);
	pump(b);
	assert_true(saw(b, USB_EVENT_OPENED));
}

static void bench_close(struct bench *b)
{
	assert_int_equal(usb_dongle_close(b->core, 0), 0);
	pump(b);
	assert_true(saw(b, USB_EVENT_CLOSED));
	assert_int_equal(b->n_pending, 0);
	usb_dongle_free(b->core);
	usb_model_free(b->model);
}

/* An unplug of an open bench: the posted IN transfer fails with -ENODEV,
 * the core says GONE, and it still closes cleanly. */
static void bench_unplug_and_close(struct bench *b)
{
	b->model->gone = true;
	pump(b);
	assert_true(saw(b, USB_EVENT_GONE));
	bench_close(b);
}

#endif
