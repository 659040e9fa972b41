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
#include "usb_model_bench.h"

static void bench_open(struct bench *b)
{
	static const struct usb_endpoints ep = {
		.bulk_in = USB_MODEL_MCS7780_EP_IN, .bulk_out = USB_MODEL_MCS7780_EP_OUT,
		.in_max_packet = 64, .out_max_packet = 64,
	};

	bench_start(b, usb_model_mcs7780_new(), &mcs7780_family, NULL, &ep,
		    USB_CLEAR_HALT_SWAPPED);
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
	n = usb_model_take_frame(b.model, got, sizeof(got), NULL);
	assert_int_equal(n, sizeof(xid));
	assert_memory_equal(got, xid, sizeof(xid));
	assert_int_equal(usb_model_take_frame(b.model, got, sizeof(got), NULL), -EAGAIN);

	/* bytes that need escaping, so the model's wrapping is exercised */
	assert_int_equal(usb_model_inject_frame(b.model, ua, sizeof(ua)), 0);
	pump(&b);
	assert_int_equal(b.rx_frames, 1);
	assert_int_equal(b.rx_len, sizeof(ua));
	assert_memory_equal(b.rx, ua, sizeof(ua));

	assert_int_equal(usb_dongle_set_speed(b.core, 115200, 0), 0);
	pump(&b);
	assert_true(saw(&b, USB_EVENT_SPEED));
	assert_int_equal(usb_model_mcs7780_reg(b.model, MCS7780_REG_MODE),
			 mcs7780_mode_for_speed(0x1622, 115200));
	assert_int_equal(b.model->bad_transfers, 0);
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
	assert_int_equal(usb_model_speed(fresh), 2400);
	usb_model_free(fresh);
	bench_open(&b);
	assert_int_equal(usb_model_speed(b.model), 9600);
	for (size_t i = 0; i < sizeof(bauds) / sizeof(bauds[0]); i++) {
		b.n_events = 0;
		assert_int_equal(usb_dongle_set_speed(b.core, bauds[i], 0), 0);
		pump(&b);
		assert_true(saw(&b, USB_EVENT_SPEED));
		assert_int_equal(usb_model_speed(b.model), bauds[i]);
	}
	bench_close(&b);
}

static void unplug_gives_gone_and_closes(void **state)
{
	struct bench b;

	(void)state;
	bench_open(&b);
	bench_unplug_and_close(&b);
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
