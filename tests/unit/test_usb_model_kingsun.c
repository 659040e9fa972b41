/*
 * test_usb_model_kingsun.c: the KingSun/DonShine device model driven with
 * the digest's transfers (usb-irda-digest 2.4): a whole wrapped frame per
 * interrupt OUT arriving on the optical side, 8-byte receive reports (a
 * count, then that many stream bytes), each read twice as the dongle's
 * buffer repeats it, and no speed or vendor request.
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
/* the XID wrapped with 3 XBOFs: FF FF FF, BOF, frame, FCS 46 28, EOF */
static const uint8_t xid_wrapped[] = { 0xFF, 0xFF, 0xFF, 0xC0, 0xFF, 0x3F, 0x01, 0x78, 0x56,
				       0x34, 0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00,
				       0x46, 0x28, 0xC1 };

static void frame_out_whole(void **state)
{
	struct usb_model *m = usb_model_kingsun_new();
	uint8_t got[32];
	uint32_t baud = 0;

	(void)state;
	assert_non_null(m);
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_KINGSUN_EP_OUT, xid_wrapped,
					    sizeof(xid_wrapped)),
			 sizeof(xid_wrapped));
	assert_int_equal(usb_model_take_frame(m, got, sizeof(got), &baud), sizeof(xid));
	assert_memory_equal(got, xid, sizeof(xid));
	assert_int_equal(baud, 9600);
	usb_model_free(m);
}

static void reports_in_and_their_repeats(void **state)
{
	static const uint8_t ua[] = { 0x01, 0x63, 0x7D, 0xC0, 0xC1, 0x42 };
	struct usb_model *m = usb_model_kingsun_new();
	uint8_t r1[8], r2[8], stream[64];
	size_t total = 0;
	int n;

	(void)state;
	assert_int_equal(usb_model_bulk_in(m, USB_MODEL_KINGSUN_EP_IN, r1, sizeof(r1)), -EAGAIN);
	assert_int_equal(usb_model_inject_frame(m, ua, sizeof(ua)), 0);
	/* new reports while the stream has bytes; then the last one once
	 * more (the dongle does not clear its buffer), then nothing */
	while ((n = usb_model_bulk_in(m, USB_MODEL_KINGSUN_EP_IN, r2, sizeof(r2))) > 0) {
		assert_int_equal(n, 8);
		if (total && memcmp(r1, r2, 8) == 0)
			break;
		assert_true(r2[0] >= 1 && r2[0] <= 7);
		memcpy(stream + total, r2 + 1, r2[0]);
		total += r2[0];
		memcpy(r1, r2, 8);
	}
	assert_true(n > 0);
	assert_int_equal(usb_model_kingsun_repeats(m), 1);
	assert_int_equal(usb_model_bulk_in(m, USB_MODEL_KINGSUN_EP_IN, r2, sizeof(r2)), -EAGAIN);
	assert_true(total >= 13);
	assert_int_equal(stream[0], 0xC0);
	assert_int_equal(stream[3], 0x7D);
	assert_int_equal(stream[4], 0x5D);
	assert_int_equal(stream[total - 1], 0xC1);
	usb_model_free(m);
}

static void refusals(void **state)
{
	struct usb_model *m = usb_model_kingsun_new();
	static const uint8_t speed_req[8] = { 0x21, 0x09, 0x00, 0x02, 0x01, 0x00, 0x08, 0x00 };
	static const uint8_t record[8] = { 0x00, 0xE1, 0x00, 0x00, 0x03, 0, 0, 0 };
	uint8_t in[8];

	(void)state;
	assert_int_equal(usb_model_control(m, speed_req, record, NULL, 0), -EPIPE);
	assert_int_equal(usb_model_speed(m), 9600);
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_KINGSUN_EP_IN, xid_wrapped, 4), -EPIPE);
	assert_int_equal(usb_model_bulk_in(m, USB_MODEL_KINGSUN_EP_IN, in, 4), -EOVERFLOW);
	m->gone = true;
	assert_int_equal(usb_model_bulk_in(m, USB_MODEL_KINGSUN_EP_IN, in, sizeof(in)), -ENODEV);
	usb_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frame_out_whole),
		cmocka_unit_test(reports_in_and_their_repeats),
		cmocka_unit_test(refusals),
	};
	return cmocka_run_group_tests_name("usb_model_kingsun", tests, NULL, NULL);
}
