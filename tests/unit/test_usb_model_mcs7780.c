/*
 * test_usb_model_mcs7780.c: the MCS7780 device model against the MCS7780
 * core, joined by a minimal in-process host (no libusb): the open
 * sequence the model sees, a frame each way through the chip's bulk
 * framing, a speed change, an unplug and a clean close.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>

#include "mcs7780.h"
#include "usb_dongle.h"
#include "usb_model.h"

#define PENDING 8

/* The in-process host: submitted transfers wait here until pump() runs
 * them against the model (never from inside the core's callbacks). */
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
 * (a bulk IN with nothing to give). */
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

static void bench_open(struct bench *b)
{
	struct usb_dongle_config cfg = {
		.ep = { .bulk_in = USB_MODEL_MCS7780_EP_IN, .bulk_out = USB_MODEL_MCS7780_EP_OUT,
			.in_max_packet = 64, .out_max_packet = 64 },
		.host = { bench_submit, bench_cancel, bench_frame, bench_event, b },
		.clear_halt = USB_CLEAR_HALT_SWAPPED,
	};
	char err[128];

	memset(b, 0, sizeof(*b));
	b->model = usb_model_mcs7780_new();
	assert_non_null(b->model);
	cfg.host.ctx = b;
	assert_int_equal(usb_dongle_new(&mcs7780_family, &cfg, NULL, &b->core, err, sizeof(err)), 0);
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

static const uint8_t xid[] = { 0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12,
			       0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00 };

static void open_sequence_as_the_digest_gives(void **state)
{
	static const struct usb_model_reg_write want[] = {
		{ 0, 0x0200 }, { 4, 0 }, { 0, 0x1622 }, { 2, 0x0005 },
		{ 2, 0x0004 }, { 2, 0x0000 }, { 2, 0x0008 }, { 0, 0x1622 },
	};
	struct bench b;
	const struct usb_model_reg_write *w;
	size_t n;

	(void)state;
	bench_open(&b);
	w = usb_model_mcs7780_writes(b.model, &n);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(w[i].reg, want[i].reg);
		assert_int_equal(w[i].value, want[i].value);
	}
	bench_close(&b);
}

static void frames_both_ways_and_speed(void **state)
{
	struct bench b;
	struct usb_tx_frame f = { .data = xid, .len = sizeof(xid) };
	static const uint8_t ua[] = { 0x01, 0x63, 0x7D, 0xC0, 0xC1, 0x42 };
	uint8_t got[64];
	int n;

	(void)state;
	bench_open(&b);
	assert_int_equal(usb_dongle_send(b.core, &f, 0), 0);
	pump(&b);
	assert_true(saw(&b, USB_EVENT_TX_DONE));
	n = usb_model_mcs7780_take_frame(b.model, got, sizeof(got));
	assert_int_equal(n, sizeof(xid));
	assert_memory_equal(got, xid, sizeof(xid));
	assert_int_equal(usb_model_mcs7780_take_frame(b.model, got, sizeof(got)), -EAGAIN);

	/* bytes that need escaping, so the model's wrapping is exercised */
	assert_int_equal(usb_model_mcs7780_inject_frame(b.model, ua, sizeof(ua)), 0);
	pump(&b);
	assert_int_equal(b.rx_frames, 1);
	assert_int_equal(b.rx_len, sizeof(ua));
	assert_memory_equal(b.rx, ua, sizeof(ua));

	assert_int_equal(usb_dongle_set_speed(b.core, 115200, 0), 0);
	pump(&b);
	assert_true(saw(&b, USB_EVENT_SPEED));
	assert_int_equal(usb_model_mcs7780_reg(b.model, MCS7780_REG_MODE),
			 mcs7780_mode_for_speed(0x1622, 115200));
	assert_int_equal(usb_model_mcs7780_bad_transfers(b.model), 0);
	bench_close(&b);
}

/* The speed the model reports follows MODE as the core sets it, at
 * every speed the core knows; a model fresh from reset reads 2400. */
static void speed_follows_mode(void **state)
{
	static const uint32_t bauds[] = { 2400, 19200, 38400, 57600, 115200,
					  576000, 1152000, 4000000, 9600 };
	struct usb_model *fresh = usb_model_mcs7780_new();
	struct bench b;

	(void)state;
	assert_non_null(fresh);
	assert_int_equal(usb_model_mcs7780_speed(fresh), 2400);
	usb_model_free(fresh);
	bench_open(&b);
	assert_int_equal(usb_model_mcs7780_speed(b.model), 9600);
	for (size_t i = 0; i < sizeof(bauds) / sizeof(bauds[0]); i++) {
		b.n_events = 0;
		assert_int_equal(usb_dongle_set_speed(b.core, bauds[i], 0), 0);
		pump(&b);
		assert_true(saw(&b, USB_EVENT_SPEED));
		assert_int_equal(usb_model_mcs7780_speed(b.model), bauds[i]);
	}
	bench_close(&b);
}

static void unplug_gives_gone_and_closes(void **state)
{
	struct bench b;

	(void)state;
	bench_open(&b);
	b.model->gone = true;
	/* the posted IN transfer now fails with -ENODEV */
	pump(&b);
	assert_true(saw(&b, USB_EVENT_GONE));
	bench_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_sequence_as_the_digest_gives),
		cmocka_unit_test(frames_both_ways_and_speed),
		cmocka_unit_test(speed_follows_mode),
		cmocka_unit_test(unplug_gives_gone_and_closes),
	};
	return cmocka_run_group_tests_name("usb_model_mcs7780", tests, NULL, NULL);
}
