/*
 * test_usb_model_stir4200.c: the STIr4200 device model driven with the
 * digest's own transfers (usb-irda-digest 2.2), byte for byte: its
 * descriptors, register writes and reads, the speed MODE and PDCLK set,
 * the digest's SIR TX vector arriving on the optical side, the TX FIFO
 * the host polls (DIR and a count while the frame is not on the air,
 * EMPTY after, CLR emptying it), the receive stream cut at any transfer
 * size, and what the model refuses.
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

#include "stir4200.h"
#include "usb_model_bench.h"

static const uint8_t xid[] = { 0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12,
			       0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00 };
/* digest 2.2: the XID wrapped at SIR with 0 XBOFs, behind 55 AA len */
static const uint8_t xid_tx[] = { 0x55, 0xAA, 0x12, 0x00, 0xC0, 0xFF, 0x3F, 0x01, 0x78, 0x56,
				  0x34, 0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00, 0x46,
				  0x28, 0xC1 };

static int write_reg(struct usb_model *m, uint8_t reg, uint8_t value)
{
	const uint8_t setup[8] = { 0x40, 0x03, value, 0, reg, 0, 0, 0 };

	return usb_model_control(m, setup, NULL, NULL, 0);
}

/* digest 2.2: C0 01 00 00 05 00 03 00, FIFOCTL, LSB, MSB & 0x1F */
static void read_fifo(struct usb_model *m, uint8_t out[3])
{
	static const uint8_t setup[8] = { 0xC0, 0x01, 0, 0, 0x05, 0, 0x03, 0 };

	assert_int_equal(usb_model_control(m, setup, NULL, out, 3), 3);
}

/* The digest's speed sequence: CTRL1=01, DPLL=15, PDCLK, MODE,
 * CTRL1=80, CTRL1=00, CTRL2=20. */
static void set_speed(struct usb_model *m, uint8_t pdclk, uint8_t mode)
{
	const uint8_t seq[][2] = { { 3, 0x01 }, { 8, 0x15 }, { 2, pdclk }, { 1, mode },
				   { 3, 0x80 }, { 3, 0x00 }, { 4, 0x20 } };

	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
		assert_int_equal(write_reg(m, seq[i][0], seq[i][1]), 0);
}

static void descriptors_and_start(void **state)
{
	struct usb_model *m = usb_model_stir4200_new();

	(void)state;
	assert_non_null(m);
	assert_int_equal(m->descriptors[8], 0x6f);
	assert_int_equal(m->descriptors[9], 0x06);
	assert_int_equal(m->descriptors[10], 0x00);
	assert_int_equal(m->descriptors[11], 0x42);
	/* the endpoints Linux hard-codes: OUT 1, IN 2 */
	assert_int_equal(m->descriptors[18 + 9 + 9 + 2], 0x01);
	assert_int_equal(m->descriptors[18 + 9 + 9 + 7 + 2], 0x82);
	assert_int_equal(usb_model_speed(m), 9600);
	usb_model_free(m);
}

static void speed_follows_mode_and_pdclk(void **state)
{
	static const struct {
		uint8_t pdclk, mode;
		uint32_t baud;
	} table[] = { { 0xDF, 0x2B, 2400 },  { 0x3B, 0x2A, 19200 },  { 0x1D, 0x2A, 38400 },
		      { 0x13, 0x2A, 57600 }, { 0x09, 0x2A, 115200 }, { 0x02, 0x8E, 4000000 },
		      { 0x77, 0x2A, 9600 } };
	struct usb_model *m = usb_model_stir4200_new();
	const struct usb_model_reg_write *w;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		set_speed(m, table[i].pdclk, table[i].mode);
		assert_int_equal(usb_model_speed(m), table[i].baud);
	}
	/* the digest's 4 Mbit/s example, as the model logged it */
	usb_model_stir4200_forget_writes(m);
	set_speed(m, 0x02, 0x8E);
	w = usb_model_stir4200_writes(m, &n);
	assert_int_equal(n, 7);
	assert_int_equal(w[2].reg, 2);
	assert_int_equal(w[2].value, 0x02);
	assert_int_equal(w[3].reg, 1);
	assert_int_equal(w[3].value, 0x8E);
	/* a divider the table lacks is no speed */
	set_speed(m, 0x10, 0x2A);
	assert_int_equal(usb_model_speed(m), 0);
	usb_model_free(m);
}

static void tx_vector_and_the_fifo(void **state)
{
	struct usb_model *m = usb_model_stir4200_new();
	uint8_t got[64], fifo[3];
	uint32_t baud = 0;

	(void)state;
	read_fifo(m, fifo);
	assert_int_equal(fifo[0], 0x04);	/* EMPTY */
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_STIR4200_EP_OUT, xid_tx, sizeof(xid_tx)),
			 sizeof(xid_tx));
	/* not yet on the air: the host sees the FIFO transmitting */
	read_fifo(m, fifo);
	assert_int_equal(fifo[0], 0x10);	/* DIR */
	assert_int_equal(fifo[1] | (fifo[2] << 8), sizeof(xid));
	assert_int_equal(usb_model_take_frame(m, got, sizeof(got), &baud), sizeof(xid));
	assert_memory_equal(got, xid, sizeof(xid));
	assert_int_equal(baud, 9600);
	read_fifo(m, fifo);
	assert_int_equal(fifo[0], 0x04);
	assert_int_equal(fifo[1], 0);
	assert_int_equal(fifo[2], 0);

	/* FIFOCTL=08 then 00 drops what was not sent */
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_STIR4200_EP_OUT, xid_tx, sizeof(xid_tx)),
			 sizeof(xid_tx));
	assert_int_equal(write_reg(m, 5, 0x08), 0);
	assert_int_equal(write_reg(m, 5, 0x00), 0);
	assert_int_equal(usb_model_take_frame(m, got, sizeof(got), NULL), -EAGAIN);
	assert_int_equal(m->bad_transfers, 0);
	usb_model_free(m);
}

/* The chip hands up the raw stream: here BOF, the escaped frame and its
 * FCS, EOF, cut wherever the host's transfer ends. */
static void rx_stream_cut_anywhere(void **state)
{
	static const uint8_t ua[] = { 0x01, 0x63, 0x7D, 0xC0, 0xC1, 0x42 };
	/* 7D C0 C1 escaped as 7D 5D, 7D E0, 7D E1; FCS of ua LE */
	uint8_t want[32], got[32];
	size_t want_len = 0, got_len = 0;
	struct usb_model *m = usb_model_stir4200_new();
	int n;

	(void)state;
	/* what a whole-frame read gives is the reference */
	assert_int_equal(usb_model_inject_frame(m, ua, sizeof(ua)), 0);
	n = usb_model_bulk_in(m, USB_MODEL_STIR4200_EP_IN, want, sizeof(want));
	assert_true(n > (int)sizeof(ua) + 4);
	want_len = (size_t)n;
	assert_int_equal(want[0], 0xC0);
	assert_int_equal(want[want_len - 1], 0xC1);
	assert_int_equal(want[3], 0x7D);
	assert_int_equal(want[4], 0x5D);
	assert_int_equal(usb_model_bulk_in(m, USB_MODEL_STIR4200_EP_IN, got, sizeof(got)), -EAGAIN);
	/* the same bytes in 5-byte transfers */
	assert_int_equal(usb_model_inject_frame(m, ua, sizeof(ua)), 0);
	while ((n = usb_model_bulk_in(m, USB_MODEL_STIR4200_EP_IN, got + got_len, 5)) > 0) {
		assert_true(n <= 5);
		got_len += (size_t)n;
	}
	assert_int_equal(n, -EAGAIN);
	assert_int_equal(got_len, want_len);
	assert_memory_equal(got, want, want_len);
	usb_model_free(m);
}

static void refusals(void **state)
{
	struct usb_model *m = usb_model_stir4200_new();
	uint8_t bad[sizeof(xid_tx)];
	static const uint8_t unknown_req[8] = { 0x40, 0x02, 0, 0, 0, 0, 0, 0 };
	static const uint8_t reg_past_end[8] = { 0x40, 0x03, 0x01, 0, 0x10, 0, 0, 0 };
	static const uint8_t read_past_end[8] = { 0xC0, 0x01, 0, 0, 0x0E, 0, 0x03, 0 };
	uint8_t in[8];

	(void)state;
	memcpy(bad, xid_tx, sizeof(bad));
	bad[0] = 0x56;	/* not 55 AA */
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_STIR4200_EP_OUT, bad, sizeof(bad)),
			 sizeof(bad));
	memcpy(bad, xid_tx, sizeof(bad));
	bad[2] = 0x13;	/* a length that is not the rest */
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_STIR4200_EP_OUT, bad, sizeof(bad)),
			 sizeof(bad));
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_STIR4200_EP_OUT, xid_tx, 3), 3);
	assert_int_equal(m->bad_transfers, 3);
	/* at FIR the optical side is not modelled */
	set_speed(m, 0x02, 0x8E);
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_STIR4200_EP_OUT, xid_tx, sizeof(xid_tx)),
			 sizeof(xid_tx));
	assert_int_equal(m->bad_transfers, 4);
	assert_int_equal(usb_model_take_frame(m, in, sizeof(in), NULL), -EAGAIN);
	assert_int_equal(usb_model_control(m, unknown_req, NULL, in, sizeof(in)), -EPIPE);
	assert_int_equal(usb_model_control(m, reg_past_end, NULL, in, sizeof(in)), -EPIPE);
	assert_int_equal(usb_model_control(m, read_past_end, NULL, in, sizeof(in)), -EPIPE);
	assert_int_equal(usb_model_bulk_out(m, USB_MODEL_STIR4200_EP_IN, xid_tx, sizeof(xid_tx)),
			 -EPIPE);
	m->gone = true;
	assert_int_equal(usb_model_bulk_in(m, USB_MODEL_STIR4200_EP_IN, in, sizeof(in)), -ENODEV);
	usb_model_free(m);
}

/* The model against the STIr4200 core (written apart from it, from the
 * same digest) through the in-process host: the open the model sees, a
 * frame each way with the FIFO polled between them, a speed change, and
 * an unplug. */
static void against_the_core(void **state)
{
	static const struct usb_endpoints ep = {
		.bulk_in = USB_MODEL_STIR4200_EP_IN, .bulk_out = USB_MODEL_STIR4200_EP_OUT,
		.in_max_packet = 64, .out_max_packet = 64,
	};
	static const uint8_t ua[] = { 0x01, 0x63, 0x7D, 0xC0, 0xC1, 0x42 };
	struct usb_tx_frame f = { .data = xid, .len = sizeof(xid) };
	const struct usb_model_reg_write *w;
	struct bench b;
	uint8_t got[64];
	size_t n;

	(void)state;
	bench_start(&b, usb_model_stir4200_new(), &stir4200_family, NULL, &ep,
		    USB_CLEAR_HALT_ENDPOINTS);
	/* open: the 9600 sequence, PDCLK 0x77 and MODE 0x2A in the middle */
	w = usb_model_stir4200_writes(b.model, &n);
	assert_int_equal(n, 7);
	assert_int_equal(w[2].reg, 2);
	assert_int_equal(w[2].value, 0x77);
	assert_int_equal(w[3].reg, 1);
	assert_int_equal(w[3].value, 0x2A);
	assert_int_equal(usb_model_speed(b.model), 9600);

	for (int i = 0; i < 2; i++) {
		b.n_events = 0;
		assert_int_equal(usb_dongle_send(b.core, &f, 0), 0);
		pump(&b);
		assert_int_equal(usb_model_take_frame(b.model, got, sizeof(got), NULL), sizeof(xid));
		assert_memory_equal(got, xid, sizeof(xid));
		/* the core reads the FIFO (now empty) and goes on */
		usb_dongle_tick(b.core, UINT64_C(1) << 32);
		pump(&b);
		assert_true(saw(&b, USB_EVENT_TX_DONE));
	}
	assert_int_equal(usb_model_inject_frame(b.model, ua, sizeof(ua)), 0);
	usb_dongle_tick(b.core, UINT64_C(1) << 33);
	pump(&b);
	assert_int_equal(b.rx_frames, 1);
	assert_int_equal(b.rx_len, sizeof(ua));
	assert_memory_equal(b.rx, ua, sizeof(ua));

	b.n_events = 0;
	assert_int_equal(usb_dongle_set_speed(b.core, 115200, UINT64_C(1) << 34), 0);
	pump(&b);
	usb_dongle_tick(b.core, UINT64_C(1) << 35);
	pump(&b);
	assert_true(saw(&b, USB_EVENT_SPEED));
	assert_int_equal(usb_model_speed(b.model), 115200);
	assert_int_equal(b.model->bad_transfers, 0);
	bench_unplug_and_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(descriptors_and_start),
		cmocka_unit_test(speed_follows_mode_and_pdclk),
		cmocka_unit_test(tx_vector_and_the_fifo),
		cmocka_unit_test(rx_stream_cut_anywhere),
		cmocka_unit_test(refusals),
		cmocka_unit_test(against_the_core),
	};
	return cmocka_run_group_tests_name("usb_model_stir4200", tests, NULL, NULL);
}
