/*
 * test_usb_model_ksdazzle.c: the KingSun Dazzle device model driven with
 * the digest's own transfers (usb-irda-digest 2.6): the 28-byte wrapped
 * XID in four 8-byte interrupt packets arriving on the optical side, the
 * speed request and its record, the receive stream in pieces of at most
 * 8 bytes, and what the model refuses.
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

#include "usb_model.h"

static const uint8_t xid[] = { 0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12,
			       0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00 };
/* digest 2.6: the XID wrapped with 10 XBOFs (28 bytes) in 7-byte pieces */
static const uint8_t packets[4][8] = {
	{ 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF },
	{ 0xFF, 0xFF, 0xFF, 0xFF, 0xC0, 0xFF, 0x3F, 0x01 },
	{ 0xFF, 0x78, 0x56, 0x34, 0x12, 0xFF, 0xFF, 0xFF },
	{ 0xFF, 0xFF, 0x01, 0x00, 0x00, 0x46, 0x28, 0xC1 },
};

static int set_speed(struct usb_model *m, uint32_t baud, uint8_t bits)
{
	static const uint8_t setup[8] = { 0x21, 0x09, 0x00, 0x02, 0x01, 0x00, 0x08, 0x00 };
	const uint8_t record[8] = { (uint8_t)baud, (uint8_t)(baud >> 8), (uint8_t)(baud >> 16),
				    (uint8_t)(baud >> 24), bits, 0, 0, 0 };

	return usb_model_control(m, setup, record, NULL, 0);
}

static void xid_in_four_packets(void **state)
{
	struct usb_model *m = usb_model_ksdazzle_new();
	uint8_t got[64];
	uint32_t baud = 0;

	(void)state;
	assert_non_null(m);
	assert_int_equal(usb_model_speed(m), 9600);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(usb_model_bulk_out(m, USB_MODEL_KSDAZZLE_EP_OUT, packets[i], 8), 8);
		/* the frame is whole only with its last piece */
		if (i < 3)
			assert_int_equal(usb_model_take_frame(m, got, sizeof(got), NULL), -EAGAIN);
	}
	assert_int_equal(usb_model_take_frame(m, got, sizeof(got), &baud), sizeof(xid));
	assert_memory_equal(got, xid, sizeof(xid));
	assert_int_equal(baud, 9600);
	assert_int_equal(m->bad_transfers, 0);
	usb_model_free(m);
}

static void speed_requests(void **state)
{
	struct usb_model *m = usb_model_ksdazzle_new();

	(void)state;
	/* digest 2.5/2.6: 57600 is 00 E1 00 00 03 00 00 00 */
	assert_int_equal(set_speed(m, 57600, 0x03), 0);
	assert_int_equal(usb_model_speed(m), 57600);
	assert_int_equal(set_speed(m, 115200, 0x03), 0);
	assert_int_equal(usb_model_speed(m), 115200);
	assert_int_equal(set_speed(m, 4000000, 0x03), -EPIPE);
	assert_int_equal(set_speed(m, 9600, 0x02), -EPIPE);
	assert_int_equal(set_speed(m, 12345, 0x03), -EPIPE);
	assert_int_equal(usb_model_speed(m), 115200);
	assert_int_equal(usb_model_ksdazzle_speed_requests(m), 2);
	usb_model_free(m);
}

static void rx_in_pieces_of_eight(void **state)
{
	static const uint8_t ua[] = { 0x01, 0x63, 0x7D, 0xC0, 0xC1, 0x42 };
	struct usb_model *m = usb_model_ksdazzle_new();
	uint8_t buf[64], all[64];
	size_t total = 0;
	int n;

	(void)state;
	assert_int_equal(usb_model_bulk_in(m, USB_MODEL_KSDAZZLE_EP_IN, buf, sizeof(buf)), -EAGAIN);
	assert_int_equal(usb_model_inject_frame(m, ua, sizeof(ua)), 0);
	while ((n = usb_model_bulk_in(m, USB_MODEL_KSDAZZLE_EP_IN, buf, sizeof(buf))) > 0) {
		assert_true(n <= 8);
		memcpy(all + total, buf, (size_t)n);
		total += (size_t)n;
	}
	assert_int_equal(n, -EAGAIN);
	/* BOF, 01 63, 7D 5D, 7D E0, 7D E1, 42, the FCS (two bytes, maybe
	 * escaped), EOF */
	assert_true(total >= 13);
	assert_int_equal(all[0], 0xC0);
	assert_int_equal(all[3], 0x7D);
	assert_int_equal(all[4], 0x5D);
	assert_int_equal(all[total - 1], 0xC1);
	usb_model_free(m);
}

static void refusals(void **state)
{
	struct usb_model *m = usb_model_ksdazzle_new();
	static const uint8_t empty_piece[8] = { 0xF8, 0xFF };
	static const uint8_t too_long[9] = { 0xFF };
	static const uint8_t unknown_req[8] = { 0xC0, 0x01, 0, 0, 0, 0, 1, 0 };
	uint8_t in[8];

	(void)state;
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_KSDAZZLE_EP_OUT, empty_piece, 8), 8);
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_KSDAZZLE_EP_OUT, too_long, 9), 9);
	assert_int_equal(m->bad_transfers, 2);
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_KSDAZZLE_EP_IN, packets[0], 8), -EPIPE);
	assert_int_equal(usb_model_control(m, unknown_req, NULL, in, sizeof(in)), -EPIPE);
	m->gone = true;
	assert_int_equal(usb_model_bulk_in(m, USB_MODEL_KSDAZZLE_EP_IN, in, sizeof(in)), -ENODEV);
	usb_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(xid_in_four_packets),
		cmocka_unit_test(speed_requests),
		cmocka_unit_test(rx_in_pieces_of_eight),
		cmocka_unit_test(refusals),
	};
	return cmocka_run_group_tests_name("usb_model_ksdazzle", tests, NULL, NULL);
}
