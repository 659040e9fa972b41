/*
 * test_usb_model_irda_class.c: the USB IrDA Bridge class device model
 * against the class core, joined by the in-process host of
 * usb_model_bench.h: the class descriptor read and turned into QoS, the
 * open header, frames both ways, speed changes as header-only frames,
 * when a header's speed takes effect (after the frame, or before it on a
 * speed-bug device), what the model refuses, and an unplug.
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

#include "irda_class.h"
#include "usb_model_bench.h"

/* Not in the class core's ID table: matched by interface class alone. */
#define GENERIC_VID 0x1209u
#define GENERIC_PID 0x7e57u
#define ACTISYS_VID 0x09c4u
#define ACTISYS_PID 0x0011u

static const struct usb_endpoints class_ep = {
	.bulk_in = USB_MODEL_IRDA_CLASS_EP_IN, .bulk_out = USB_MODEL_IRDA_CLASS_EP_OUT,
	.intr_in = USB_MODEL_IRDA_CLASS_EP_INTR, .in_max_packet = 64, .out_max_packet = 64,
};

static void bench_open_id(struct bench *b, uint16_t vid, uint16_t pid)
{
	const struct usb_id *id = NULL;
	const struct usb_family *f =
		usb_family_match(vid, pid, IRDA_CLASS_IFACE_CLASS, IRDA_CLASS_IFACE_SUBCLASS, &id);
	bool speed_bug = id && (id->quirks & IRDA_CLASS_SPEED_BUG);

	assert_ptr_equal(f, &irda_class_family);
	bench_start(b, usb_model_irda_class_new(vid, pid, speed_bug), f, id, &class_ep,
		    USB_CLEAR_HALT_ENDPOINTS);
}

static const uint8_t xid[] = { 0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12,
			       0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00 };

static void descriptor_read_into_qos(void **state)
{
	struct bench b, quirky;
	struct usb_dongle_qos q;

	(void)state;
	bench_open_id(&b, GENERIC_VID, GENERIC_PID);
	assert_int_equal(usb_model_irda_class_desc_reads(b.model), 1);
	q = irda_class_qos(b.core);
	assert_int_equal(q.baud_bits, 0x01FF);
	assert_int_equal(q.window_bits, 0x7F);
	assert_int_equal(q.data_size_bits, 0x3F);
	assert_int_equal(q.min_tat_bits, 0x04);
	/* open leaves the device at 9600 with 12 BOFs, set by the core */
	assert_int_equal(usb_model_speed(b.model), 9600);
	assert_int_equal(usb_model_irda_class_xbofs(b.model), 12);
	bench_close(&b);

	/* the ACTiSYS ID carries NO_WINDOW: one frame per window, and the
	 * generic query a host uses gives the device's QoS */
	bench_open_id(&quirky, ACTISYS_VID, ACTISYS_PID);
	assert_int_equal(irda_class_qos(quirky.core).window_bits, 0x01);
	assert_int_equal(usb_dongle_qos(quirky.core).window_bits, 0x01);
	assert_int_equal(usb_dongle_qos(quirky.core).baud_bits, 0x01FF);
	assert_int_equal(usb_dongle_qos(quirky.core).min_tat_bits, 0x04);
	bench_close(&quirky);
}

static void frames_both_ways(void **state)
{
	struct bench b;
	struct usb_tx_frame f = { .data = xid, .len = sizeof(xid) };
	static const uint8_t ua[] = { 0x01, 0x63, 0x7D, 0xC0, 0xC1, 0x42 };
	uint8_t got[64];
	uint32_t baud = 0;
	int n;

	(void)state;
	bench_open_id(&b, GENERIC_VID, GENERIC_PID);
	assert_int_equal(usb_dongle_send(b.core, &f, 0), 0);
	pump(&b);
	assert_true(saw(&b, USB_EVENT_TX_DONE));
	n = usb_model_take_frame(b.model, got, sizeof(got), &baud);
	assert_int_equal(n, sizeof(xid));
	assert_memory_equal(got, xid, sizeof(xid));
	assert_int_equal(baud, 9600);
	assert_int_equal(usb_model_take_frame(b.model, got, sizeof(got), NULL), -EAGAIN);

	/* the device hands up the bare frame: no escaping for the host */
	assert_int_equal(usb_model_inject_frame(b.model, ua, sizeof(ua)), 0);
	pump(&b);
	assert_int_equal(b.rx_frames, 1);
	assert_int_equal(b.rx_len, sizeof(ua));
	assert_memory_equal(b.rx, ua, sizeof(ua));
	assert_int_equal(b.model->bad_transfers, 0);
	bench_close(&b);
}

/* Every SIR speed the core sets reaches the device as a header-only
 * frame, and a frame after it goes out at the new speed. */
static void speed_changes(void **state)
{
	static const uint32_t bauds[] = { 2400, 19200, 38400, 57600, 115200, 9600 };
	struct bench b;
	struct usb_tx_frame f = { .data = xid, .len = sizeof(xid) };
	uint8_t got[64];
	uint32_t baud = 0;

	(void)state;
	bench_open_id(&b, GENERIC_VID, GENERIC_PID);
	for (size_t i = 0; i < sizeof(bauds) / sizeof(bauds[0]); i++) {
		b.n_events = 0;
		assert_int_equal(usb_dongle_set_speed(b.core, bauds[i], 0), 0);
		pump(&b);
		assert_true(saw(&b, USB_EVENT_SPEED));
		assert_int_equal(usb_model_speed(b.model), bauds[i]);
		assert_int_equal(usb_model_take_frame(b.model, got, sizeof(got), NULL), -EAGAIN);
		assert_int_equal(usb_dongle_send(b.core, &f, 0), 0);
		pump(&b);
		assert_int_equal(usb_model_take_frame(b.model, got, sizeof(got), &baud),
				 sizeof(xid));
		assert_int_equal(baud, bauds[i]);
	}
	assert_int_equal(b.model->bad_transfers, 0);
	bench_close(&b);
}

/* A header on a data frame, written as Linux writes its first frame:
 * a spec device sends the frame at the old speed and switches after; a
 * speed-bug device switches first. */
static void header_speed_after_or_before_the_frame(void **state)
{
	uint8_t out[1 + sizeof(xid)];
	uint8_t got[64];
	uint32_t baud = 0;

	(void)state;
	out[0] = irda_class_header(irda_class_speed_code(115200), irda_class_xbof_code(3));
	memcpy(out + 1, xid, sizeof(xid));
	for (int bug = 0; bug <= 1; bug++) {
		struct usb_model *m = usb_model_irda_class_new(GENERIC_VID, GENERIC_PID, bug);

		assert_non_null(m);
		assert_int_equal(usb_model_bulk_out(m, USB_MODEL_IRDA_CLASS_EP_OUT, out,
						    sizeof(out)),
				 sizeof(out));
		assert_int_equal(usb_model_take_frame(m, got, sizeof(got), &baud), sizeof(xid));
		assert_int_equal(baud, bug ? 115200 : 9600);
		assert_int_equal(usb_model_speed(m), 115200);
		assert_int_equal(usb_model_irda_class_xbofs(m), 3);
		usb_model_free(m);
	}
}

/* What the model does not take: a runt frame, a frame above SIR (not
 * modelled on the optical side), a request it does not know, a frame on
 * the wrong endpoint. */
static void refusals(void **state)
{
	struct usb_model *m = usb_model_irda_class_new(GENERIC_VID, GENERIC_PID, false);
	static const uint8_t runt[] = { 0x00, 0xFF };
	static const uint8_t to_fir[] = { 0x89 };
	static const uint8_t unknown_req[8] = { 0xA1, 0x03, 0, 0, 0, 0, 1, 0 };
	uint8_t frame[1 + sizeof(xid)] = { 0x00 };
	uint8_t in[16];

	(void)state;
	assert_non_null(m);
	memcpy(frame + 1, xid, sizeof(xid));
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_IRDA_CLASS_EP_OUT, runt, sizeof(runt)),
			 sizeof(runt));
	assert_int_equal(m->bad_transfers, 1);
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_IRDA_CLASS_EP_OUT, to_fir, 1), 1);
	assert_int_equal(usb_model_speed(m), 4000000);
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_IRDA_CLASS_EP_OUT, frame, sizeof(frame)),
			 sizeof(frame));
	assert_int_equal(m->bad_transfers, 2);
	assert_int_equal(usb_model_take_frame(m, in, sizeof(in), NULL), -EAGAIN);
	assert_int_equal(usb_model_control(m, unknown_req, NULL, in, sizeof(in)), -EPIPE);
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_IRDA_CLASS_EP_IN, frame, sizeof(frame)),
			 -EPIPE);
	usb_model_free(m);
}

static void unplug_gives_gone_and_closes(void **state)
{
	struct bench b;

	(void)state;
	bench_open_id(&b, GENERIC_VID, GENERIC_PID);
	bench_unplug_and_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(descriptor_read_into_qos),
		cmocka_unit_test(frames_both_ways),
		cmocka_unit_test(speed_changes),
		cmocka_unit_test(header_speed_after_or_before_the_frame),
		cmocka_unit_test(refusals),
		cmocka_unit_test(unplug_gives_gone_and_closes),
	};
	return cmocka_run_group_tests_name("usb_model_irda_class", tests, NULL, NULL);
}
