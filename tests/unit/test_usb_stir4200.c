/*
 * test_usb_stir4200.c: the STIr4200 core against usb-irda-digest 2.2.
 *
 * The expectations are written here from the digest, not from the core:
 * setup packets in its notation (`40 03 <value> 00 <reg> 00 00 00`, the
 * FIFO read `C0 01 00 00 05 00 03 00`), the speed sequence as its
 * (reg,value) pairs with the PDCLK and MODE tables, its two XID vectors,
 * and its half-duplex rules (cancel RX, turnaround from the last RX,
 * FIFO polls spaced count * 8000 / speed ms, clear on growth, RX again
 * only once the FIFO is EMPTY or not DIR).  The host is a recorder: each
 * transfer the core submits is checked in order and answered here.
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
#include <stdio.h>
#include <stdlib.h>

#include "stir4200.h"
#include "usb_dongle.h"

#include "usb_rec.h"

enum { CTRL = STIR4200_TAG_CTRL, TX = STIR4200_TAG_TX, RX = STIR4200_TAG_RX };

/* The digest's 14-byte XID command. */
static const uint8_t xid[14] = {
	0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00,
};
#define XID_SIR "55 AA 12 00 C0 FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 46 28 C1"
#define XID_FIR "55 AA 26 00 " \
	"7F 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F " \
	"7E 7E FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 64 4D 66 8B 7E 7E"

/* The endpoints the host found are ignored: the chip's are fixed. */
static struct usb_dongle *new_core(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	struct usb_dongle_config cfg = {
		.ep = { .bulk_in = 0x82, .bulk_out = 0x01,
			.in_max_packet = 64, .out_max_packet = 64 },
		.host = { on_submit, on_cancel, on_frame, on_event, r },
	};
	const struct usb_id *id = NULL;
	const struct usb_family *f = usb_family_match(0x066F, 0x4200, 0xFF, 0, &id);
	assert_non_null(f);
	struct usb_dongle *d;
	char err[128];
	assert_int_equal(usb_dongle_new(f, &cfg, id, &d, err, sizeof err), 0);
	return d;
}

static void ack(struct usb_dongle *d, uint64_t now)
{
	rec_complete(d, CTRL, USB_STATUS_OK, NULL, 0, now);
}

/* digest: write one register `40 03 <value> 00 <reg> 00 00 00` */
static void expect_write(struct rec *r, struct usb_dongle *d, unsigned reg, unsigned value)
{
	char hex[64];

	snprintf(hex, sizeof hex, "40 03 %02X 00 %02X 00 00 00", value, reg);
	rec_expect_setup(r, USB_XFER_CONTROL, CTRL, hex);
	ack(d, 0);
}

static void expect_clear_halt(struct rec *r, struct usb_dongle *d, uint8_t ep)
{
	char hex[64];

	snprintf(hex, sizeof hex, "02 01 00 00 %02X 00 00 00", ep);
	rec_expect_setup(r, USB_XFER_CLEAR_HALT, CTRL, hex);
	assert_int_equal(r->xfer[r->next - 1].x.endpoint, ep);
	ack(d, 0);
}

/* digest: the FIFO read, answered FIFOCTL, LSB, MSB */
static void expect_fifo_read(struct rec *r, struct usb_dongle *d, uint8_t ctl, unsigned count,
			     uint64_t now)
{
	uint8_t answer[3] = { ctl, (uint8_t)(count & 0xFF), (uint8_t)(count >> 8) };

	rec_expect_setup(r, USB_XFER_CONTROL, CTRL, "C0 01 00 00 05 00 03 00");
	rec_complete(d, CTRL, USB_STATUS_OK, answer, sizeof answer, now);
}

static void expect_rx_posted(struct rec *r)
{
	const struct rec_xfer *t = rec_take(r);

	assert_int_equal(t->x.type, USB_XFER_BULK);
	assert_int_equal(t->x.tag, RX);
	assert_int_equal(t->x.endpoint, 0x82);
	assert_int_equal(t->x.length, 4096);
}

static void expect_tx(struct rec *r, const char *hex)
{
	uint8_t want[256];
	size_t n = rec_parse_hex(hex, want, sizeof want);
	const struct rec_xfer *t = rec_take(r);

	assert_int_equal(t->x.type, USB_XFER_BULK);
	assert_int_equal(t->x.tag, TX);
	assert_int_equal(t->x.endpoint, 0x01);
	assert_int_equal(t->x.length, n);
	assert_memory_equal(t->data, want, n);
}

/* The RX transfer was cancelled (to send or change speed): hand it back. */
static void rx_cancelled(struct rec *r, struct usb_dongle *d, uint64_t now)
{
	assert_true(r->n_cancelled > 0);
	assert_int_equal(r->cancelled[r->n_cancelled - 1], RX);
	rec_complete(d, RX, USB_STATUS_CANCELLED, NULL, 0, now);
}

/* The digest's speed sequence: (3,01) (8,15) (2,PDCLK) (1,MODE) (3,80)
 * (3,00) (4,20). */
static void expect_speed_writes(struct rec *r, struct usb_dongle *d, unsigned pdclk,
				unsigned mode)
{
	expect_write(r, d, 3, 0x01);
	expect_write(r, d, 8, 0x15);
	expect_write(r, d, 2, pdclk);
	expect_write(r, d, 1, mode);
	expect_write(r, d, 3, 0x80);
	expect_write(r, d, 3, 0x00);
	expect_write(r, d, 4, 0x20);
}

/* Open: CLEAR_HALT of OUT 0x01 and IN 0x82, then the 9600 writes
 * (PDCLK 0x77, MODE 0x2A), then RX posted and OPENED. */
static void open_core(struct rec *r, struct usb_dongle *d)
{
	assert_int_equal(usb_dongle_open(d, 0), 0);
	assert_false(usb_dongle_can_send(d));
	expect_clear_halt(r, d, 0x01);
	expect_clear_halt(r, d, 0x82);
	expect_speed_writes(r, d, 0x77, 0x2A);
	expect_rx_posted(r);
	rec_nothing_more(r);
	assert_true(saw_event(r, USB_EVENT_OPENED, 0));
	assert_true(usb_dongle_can_send(d));
}

static struct usb_dongle *opened_core(struct rec *r)
{
	struct usb_dongle *d = new_core(r);

	open_core(r, d);
	return d;
}

/* From an idle, listening core: the RX transfer is cancelled first. */
static void change_speed(struct rec *r, struct usb_dongle *d, uint32_t baud, unsigned pdclk,
			 unsigned mode)
{
	r->n_ev = 0;
	assert_int_equal(usb_dongle_set_speed(d, baud, 0), 0);
	assert_false(usb_dongle_can_send(d));
	rec_nothing_more(r);
	rx_cancelled(r, d, 0);
	expect_speed_writes(r, d, pdclk, mode);
	expect_rx_posted(r);
	rec_nothing_more(r);
	assert_true(saw_event(r, USB_EVENT_SPEED, 0));
	assert_true(usb_dongle_can_send(d));
	assert_int_equal(d->baud, baud);
}

/* --- tests ------------------------------------------------------------------ */

static void registry_knows_the_chip(void **state)
{
	(void)state;
	const struct usb_id *id = NULL;
	const struct usb_family *f = usb_family_match(0x066F, 0x4200, 0xFF, 0, &id);

	assert_non_null(f);
	assert_string_equal(f->name, "stir4200");
	assert_string_equal(f->chip, "SigmaTel STIr4200");
	assert_non_null(id);
	assert_int_equal(id->pid, 0x4200);
	assert_ptr_equal(usb_family_by_name("stir4200"), f);
	/* 2400..115200 (bits 0..5) and 4M (bit 8); not 576k, 1.152M */
	assert_int_equal(f->baud_bits, 0x013F);
	assert_int_equal(f->min_tat_bits, 0x07);
	/* the STIr421x stay class devices */
	assert_string_equal(usb_family_match(0x066F, 0x4210, 0xFF, 0, NULL)->name, "irda-class");
}

static void tx_vectors_match_the_digest(void **state)
{
	(void)state;
	uint8_t buf[STIR4200_TX_MAX], want[256];
	struct wcursor w;

	wcursor_init(&w, buf, sizeof buf);
	size_t n = rec_parse_hex(XID_SIR, want, sizeof want);
	assert_int_equal(stir4200_wrap_sir(xid, sizeof xid, 0, &w), (int)n);
	assert_memory_equal(buf, want, n);

	wcursor_init(&w, buf, sizeof buf);
	n = rec_parse_hex(XID_FIR, want, sizeof want);
	assert_int_equal(n, 42);	/* the digest: 42 bytes, header included */
	assert_int_equal(stir4200_wrap_fir(xid, sizeof xid, &w), (int)n);
	assert_memory_equal(buf, want, n);

	/* XBOFs count in the length; FIR escapes 7D 7E 7F as 7D 5D/5E/5F */
	wcursor_init(&w, buf, sizeof buf);
	assert_int_equal(stir4200_wrap_sir(xid, sizeof xid, 3, &w), 4 + 21);
	assert_memory_equal(buf, "\x55\xAA\x15\x00\xFF\xFF\xFF\xC0", 8);
	static const uint8_t marks[] = { 0x7D, 0x7E, 0x7F };
	wcursor_init(&w, buf, sizeof buf);
	int got = stir4200_wrap_fir(marks, sizeof marks, &w);
	assert_true(got > 4 + 18 + 6);
	assert_memory_equal(buf + 4 + 18, "\x7D\x5D\x7D\x5E\x7D\x5F", 6);

	/* the CRC is escaped too: 03 9E has CRC-32 0x7D43FF7F, wire 7F FF 43 7D */
	static const uint8_t ua[] = { 0x03, 0x9E };
	wcursor_init(&w, buf, sizeof buf);
	n = rec_parse_hex("55 AA 1C 00 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F 7F "
			  "7E 7E 03 9E 7D 5F FF 43 7D 5D 7E 7E", want, sizeof want);
	assert_int_equal(stir4200_wrap_fir(ua, sizeof ua, &w), (int)n);
	assert_memory_equal(buf, want, n);

	/* refusals */
	wcursor_init(&w, buf, sizeof buf);
	assert_int_equal(stir4200_wrap_sir(xid, 1, 0, &w), -EINVAL);
	static uint8_t big[STIR4200_FRAME_MAX + 1];
	assert_int_equal(stir4200_wrap_fir(big, sizeof big, &w), -EMSGSIZE);
	assert_int_equal(stir4200_wrap_sir(xid, sizeof xid, 164, &w), -EMSGSIZE);
	uint8_t small[10];
	wcursor_init(&w, small, sizeof small);
	assert_int_equal(stir4200_wrap_sir(xid, sizeof xid, 0, &w), -ENOSPC);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };
	wcursor_init(&w, buf, sizeof buf);
	assert_int_equal(stir4200_tx_frame(576000, &f, &w), -EINVAL);
}

static void open_sequence_matches_the_digest(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);

	assert_int_equal(d->baud, 9600);
	usb_dongle_free(d);
}

static void open_fails_on_a_clear_halt_error(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = new_core(&r);

	assert_int_equal(usb_dongle_open(d, 0), 0);
	expect_clear_halt(&r, d, 0x01);
	rec_expect_setup(&r, USB_XFER_CLEAR_HALT, CTRL, "02 01 00 00 82 00 00 00");
	rec_complete(d, CTRL, USB_STATUS_STALL, NULL, 0, 0);
	rec_nothing_more(&r);
	assert_true(saw_event(&r, USB_EVENT_FAILED, -EPIPE));
	assert_false(saw_event(&r, USB_EVENT_OPENED, 0));
	assert_int_equal(usb_dongle_close(d, 0), 0);
	assert_true(saw_event(&r, USB_EVENT_CLOSED, 0));
	usb_dongle_free(d);
}

static void speed_sequences_match_the_digest(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);

	/* the digest's example, then 115200 */
	change_speed(&r, d, 4000000, 0x02, 0x8E);
	change_speed(&r, d, 115200, 0x09, 0x2A);
	/* the rest of the PDCLK table; 2400's MODE has the 2400 bit */
	change_speed(&r, d, 2400, 0xDF, 0x2B);
	change_speed(&r, d, 19200, 0x3B, 0x2A);
	change_speed(&r, d, 38400, 0x1D, 0x2A);
	change_speed(&r, d, 57600, 0x13, 0x2A);
	change_speed(&r, d, 9600, 0x77, 0x2A);

	/* what the chip does not do */
	assert_int_equal(usb_dongle_set_speed(d, 576000, 0), -EINVAL);
	assert_int_equal(usb_dongle_set_speed(d, 1152000, 0), -EINVAL);
	assert_int_equal(stir4200_family.ops->set_speed(d, 576000, 0), -EINVAL);
	assert_int_equal(stir4200_family.ops->set_speed(d, 12345, 0), -EINVAL);
	rec_nothing_more(&r);

	struct stir4200_reg_write w[STIR4200_SPEED_WRITES];
	assert_int_equal(stir4200_speed_writes(1152000, w), -EINVAL);
	usb_dongle_free(d);
}

static void rx_sir_frame_split_over_two_transfers(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);
	uint8_t wire[64];
	/* the SIR vector's body after two XBOFs, split inside the frame */
	size_t n = rec_parse_hex("FF FF C0 FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 46 28 C1",
				 wire, sizeof wire);

	rec_complete(d, RX, USB_STATUS_OK, wire, 9, 100);
	assert_int_equal(r.n_frames, 0);
	expect_rx_posted(&r);
	rec_complete(d, RX, USB_STATUS_OK, wire + 9, n - 9, 200);
	assert_int_equal(r.n_frames, 1);
	assert_int_equal(r.frame_len, sizeof xid);
	assert_memory_equal(r.frame, xid, sizeof xid);
	assert_int_equal(r.frame_baud, 9600);
	expect_rx_posted(&r);

	/* an empty completion is normal: counted, posted again */
	rec_complete(d, RX, USB_STATUS_OK, NULL, 0, 300);
	expect_rx_posted(&r);
	rec_nothing_more(&r);
	const struct usb_dongle_counters *k = usb_dongle_counters(d);
	assert_int_equal(k->rx_frames, 1);
	assert_int_equal(k->rx_empty, 1);
	assert_int_equal(k->rx_fcs_errors + k->rx_malformed + k->rx_oversize, 0);
	usb_dongle_free(d);
}

static void rx_bad_crc_counted(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);
	uint8_t wire[64];
	/* the SIR vector with one data byte changed */
	size_t n = rec_parse_hex("C0 FF 3F 01 78 56 34 12 FF FF FF FF 01 00 01 46 28 C1", wire,
				 sizeof wire);

	rec_complete(d, RX, USB_STATUS_OK, wire, n, 100);
	assert_int_equal(r.n_frames, 0);
	assert_int_equal(usb_dongle_counters(d)->rx_fcs_errors, 1);
	assert_true(saw_event(&r, USB_EVENT_MEDIA_BUSY, -EBADMSG));
	expect_rx_posted(&r);

	/* the same at FIR: CRC-32 */
	change_speed(&r, d, 4000000, 0x02, 0x8E);
	n = rec_parse_hex("7F 7F 7E 7E FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 64 4D 66 8C 7E 7E",
			  wire, sizeof wire);
	rec_complete(d, RX, USB_STATUS_OK, wire, n, 200);
	assert_int_equal(r.n_frames, 0);
	assert_int_equal(usb_dongle_counters(d)->rx_fcs_errors, 2);
	/* a 0x7F inside a frame */
	n = rec_parse_hex("7E 7E FF 3F 7F 01 7E 7E", wire, sizeof wire);
	expect_rx_posted(&r);
	rec_complete(d, RX, USB_STATUS_OK, wire, n, 300);
	assert_int_equal(usb_dongle_counters(d)->rx_malformed, 1);
	assert_int_equal(r.n_frames, 0);
	usb_dongle_free(d);
}

static void fir_decoder(void **state)
{
	(void)state;
	uint8_t buf[STIR4200_TX_MAX];
	struct wcursor w;
	struct stir4200_fir_rx rx;
	struct cursor in;
	static const uint8_t marks[] = { 0xFF, 0x03, 0x7D, 0x7E, 0x7F, 0x5D };

	/* round trip, one byte at a time: nothing until the closing flag */
	wcursor_init(&w, buf, sizeof buf);
	int n = stir4200_wrap_fir(marks, sizeof marks, &w);
	assert_true(n > 4);
	stir4200_fir_rx_reset(&rx);
	for (int i = 4; i < n; i++) {
		cursor_init(&in, buf + i, 1);
		int rc = stir4200_fir_rx_feed(&rx, &in);
		if (rc > 0) {
			assert_int_equal(i, n - 2);	/* the first closing flag */
			assert_int_equal(rc, sizeof marks);
			assert_memory_equal(stir4200_fir_rx_frame(&rx), marks, sizeof marks);
		} else {
			assert_int_equal(rc, 0);
		}
	}
	/* the XID vector twice in one transfer: two frames */
	uint8_t two[128];
	size_t len = rec_parse_hex(XID_FIR, two, sizeof two) - 4;
	memmove(two, two + 4, len);
	memcpy(two + len, two, len);
	cursor_init(&in, two, 2 * len);
	stir4200_fir_rx_reset(&rx);
	assert_int_equal(stir4200_fir_rx_feed(&rx, &in), sizeof xid);
	assert_memory_equal(stir4200_fir_rx_frame(&rx), xid, sizeof xid);
	assert_int_equal(stir4200_fir_rx_feed(&rx, &in), sizeof xid);
	assert_int_equal(stir4200_fir_rx_feed(&rx, &in), 0);

	/* errors, each followed by a good frame that still arrives */
	static const struct { const char *hex; int rc; } bad[] = {
		{ "7E 7E FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 64 4D 66 8B 7F", -EPROTO },
		{ "7E 7E FF 3F 01 02 03 7E", -EPROTO },		/* runt: 6 bytes < A C + CRC */
		{ "7E 7E FF 3F 7D 7E", -EPROTO },		/* escape then flag */
		{ "7E 7E FF 3F 7D 7D 00 00 00 00 00", -EPROTO },
		{ "7E FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 64 4D 66 8B 8B 7E", -EBADMSG },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint8_t b[128];
		size_t m = rec_parse_hex(bad[i].hex, b, sizeof b);
		stir4200_fir_rx_reset(&rx);
		cursor_init(&in, b, m);
		assert_int_equal(stir4200_fir_rx_feed(&rx, &in), bad[i].rc);
		cursor_init(&in, two, len);
		int rc;
		while ((rc = stir4200_fir_rx_feed(&rx, &in)) < 0)
			;
		assert_int_equal(rc, sizeof xid);
	}
	/* longer than A + C + 2048 + CRC */
	static uint8_t huge[STIR4200_FRAME_MAX + 16];
	memset(huge, 0x11, sizeof huge);
	huge[0] = 0x7E;
	stir4200_fir_rx_reset(&rx);
	cursor_init(&in, huge, sizeof huge);
	assert_int_equal(stir4200_fir_rx_feed(&rx, &in), -EMSGSIZE);
	assert_int_equal(stir4200_fir_rx_feed(&rx, &in), 0);
}

static void rx_fir_through_the_core(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);
	uint8_t wire[128];
	size_t n = rec_parse_hex(XID_FIR, wire, sizeof wire);

	change_speed(&r, d, 4000000, 0x02, 0x8E);
	/* the wire bytes less the TX header, split in the preamble and in
	 * the data */
	rec_complete(d, RX, USB_STATUS_OK, wire + 4, 10, 100);
	expect_rx_posted(&r);
	rec_complete(d, RX, USB_STATUS_OK, wire + 14, 20, 200);
	expect_rx_posted(&r);
	assert_int_equal(r.n_frames, 0);
	rec_complete(d, RX, USB_STATUS_OK, wire + 34, n - 34, 300);
	assert_int_equal(r.n_frames, 1);
	assert_int_equal(r.frame_len, sizeof xid);
	assert_memory_equal(r.frame, xid, sizeof xid);
	assert_int_equal(r.frame_baud, 4000000);
	expect_rx_posted(&r);
	rec_nothing_more(&r);

	/* a frame sent at FIR is the digest's FIR vector */
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid, .xbofs = 10 };
	assert_int_equal(usb_dongle_send(d, &f, 400), 0);
	rx_cancelled(&r, d, 400);
	expect_tx(&r, XID_FIR);
	usb_dongle_free(d);
}

/* A frame waits for the turnaround from the last RX that carried bytes:
 * a deadline, then the bulk OUT from the tick. */
static void send_waits_for_the_turnaround(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);
	static const uint8_t ff[] = { 0xFF, 0xFF };

	rec_complete(d, RX, USB_STATUS_OK, ff, sizeof ff, 5000);
	expect_rx_posted(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid, .mtt_us = 1000 };
	assert_int_equal(usb_dongle_send(d, &f, 5100), 0);
	assert_false(usb_dongle_can_send(d));
	rec_nothing_more(&r);	/* the cancel only */
	rx_cancelled(&r, d, 5200);
	rec_nothing_more(&r);
	assert_int_equal(usb_dongle_counters(d)->rx_empty, 0);	/* a cancel is not a poll */
	assert_int_equal(usb_dongle_deadline(d), 6000);
	usb_dongle_tick(d, 5999);
	rec_nothing_more(&r);
	usb_dongle_tick(d, 6000);
	expect_tx(&r, XID_SIR);
	rec_nothing_more(&r);
	usb_dongle_free(d);
}

/* Polls are at least 1 ms apart: 10 * 8000 / 115200 ms rounds to 0. */
static void fifo_polls_at_least_1_ms_apart(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };

	change_speed(&r, d, 115200, 0x09, 0x2A);
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	rx_cancelled(&r, d, 0);
	expect_tx(&r, XID_SIR);
	rec_complete(d, TX, USB_STATUS_OK, NULL, 0, 100);
	expect_fifo_read(&r, d, 0x10, 10, 200);
	rec_nothing_more(&r);
	assert_int_equal(usb_dongle_deadline(d), 1200);
	/* then 600, more than before */
	usb_dongle_tick(d, 1200);
	expect_fifo_read(&r, d, 0x10, 600, 1300);
	expect_write(&r, d, 5, 0x08);	/* it grew: cleared */
	expect_write(&r, d, 5, 0x00);
	expect_rx_posted(&r);
	usb_dongle_free(d);
}

/* Half a frame heard before our own frame is dropped, not joined to
 * what comes after. */
static void partial_frame_dropped_when_sending(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);
	uint8_t wire[64];
	size_t n = rec_parse_hex("C0 FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 46 28 C1", wire,
				 sizeof wire);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };

	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	rec_complete(d, RX, USB_STATUS_CANCELLED, wire, 5, 10);	/* bytes before the cancel */
	expect_tx(&r, XID_SIR);
	rec_complete(d, TX, USB_STATUS_OK, NULL, 0, 100);
	expect_fifo_read(&r, d, 0x04, 0, 200);
	expect_rx_posted(&r);
	rec_complete(d, RX, USB_STATUS_OK, wire + 5, n - 5, 300);
	assert_int_equal(r.n_frames, 0);
	/* and a whole frame still arrives */
	expect_rx_posted(&r);
	rec_complete(d, RX, USB_STATUS_OK, wire, n, 400);
	assert_int_equal(r.n_frames, 1);
	usb_dongle_free(d);
}

/* The digest's half duplex: a FIFO read after each frame; the second
 * frame goes out once the FIFO has room; RX only once it is EMPTY. */
static void fifo_polls_before_the_second_frame(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };

	assert_int_equal(usb_dongle_send(d, &f, 1000), 0);
	rx_cancelled(&r, d, 1000);
	expect_tx(&r, XID_SIR);	/* the first frame: the FIFO was idle */
	rec_complete(d, TX, USB_STATUS_OK, NULL, 0, 2000);
	assert_true(saw_event(&r, USB_EVENT_TX_DONE, 0));
	assert_true(usb_dongle_can_send(d));
	assert_int_equal(usb_dongle_send(d, &f, 2000), 0);

	/* 4090 bytes in: a 18-byte frame does not fit 4096; the next read
	 * after 4090 * 8000 / 9600 = 3408 ms */
	expect_fifo_read(&r, d, 0x10, 4090, 3000);
	rec_nothing_more(&r);
	assert_int_equal(usb_dongle_deadline(d), 3000 + 3408000u);
	usb_dongle_tick(d, 3000 + 3407999u);
	rec_nothing_more(&r);
	usb_dongle_tick(d, 3000 + 3408000u);
	/* 4078 + 18 fits */
	expect_fifo_read(&r, d, 0x10, 4078, 3340000);
	expect_tx(&r, XID_SIR);	/* room now; still no RX in between */
	rec_nothing_more(&r);
	rec_complete(d, TX, USB_STATUS_OK, NULL, 0, 3350000);

	/* nothing queued: RX only once the FIFO is EMPTY (or not DIR) */
	expect_fifo_read(&r, d, 0x10, 50, 3350000);
	rec_nothing_more(&r);
	assert_int_equal(usb_dongle_deadline(d), 3350000 + 41000u);	/* 50 * 8000 / 9600 ms */
	usb_dongle_tick(d, 3391000);
	expect_fifo_read(&r, d, 0x10, 20, 3391000);
	rec_nothing_more(&r);
	usb_dongle_tick(d, usb_dongle_deadline(d));	/* 20 * 8000 / 9600 = 16 ms */
	expect_fifo_read(&r, d, 0x04, 0, 3410000);
	expect_rx_posted(&r);
	rec_nothing_more(&r);
	assert_int_equal(usb_dongle_counters(d)->tx_frames, 2);
	usb_dongle_free(d);
}

static void rx_restarts_when_not_dir(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };

	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	rx_cancelled(&r, d, 0);
	expect_tx(&r, XID_SIR);
	rec_complete(d, TX, USB_STATUS_OK, NULL, 0, 10);
	expect_fifo_read(&r, d, 0x00, 3, 20);	/* not EMPTY, but not DIR either */
	expect_rx_posted(&r);
	rec_nothing_more(&r);
	usb_dongle_free(d);
}

static void fifo_cleared_when_the_count_grows(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };

	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	rx_cancelled(&r, d, 0);
	expect_tx(&r, XID_SIR);
	rec_complete(d, TX, USB_STATUS_OK, NULL, 0, 10);
	expect_fifo_read(&r, d, 0x10, 50, 20);
	usb_dongle_tick(d, usb_dongle_deadline(d));
	expect_fifo_read(&r, d, 0x10, 60, 50000);
	expect_write(&r, d, 5, 0x08);
	expect_write(&r, d, 5, 0x00);
	expect_rx_posted(&r);	/* cleared: empty */
	rec_nothing_more(&r);
	usb_dongle_free(d);
}

/* A speed change asked for while a frame is out: the frame first, the
 * FIFO drained, then the writes. */
static void speed_change_after_the_fifo_drained(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };

	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	rx_cancelled(&r, d, 0);
	expect_tx(&r, XID_SIR);
	assert_int_equal(usb_dongle_set_speed(d, 115200, 0), 0);
	assert_int_equal(usb_dongle_set_speed(d, 57600, 0), -EBUSY);
	rec_nothing_more(&r);
	rec_complete(d, TX, USB_STATUS_OK, NULL, 0, 10);
	assert_true(saw_event(&r, USB_EVENT_TX_DONE, 0));
	assert_false(usb_dongle_can_send(d));
	expect_fifo_read(&r, d, 0x00, 5, 20);	/* not DIR is not drained */
	rec_nothing_more(&r);
	usb_dongle_tick(d, usb_dongle_deadline(d));
	expect_fifo_read(&r, d, 0x04, 0, 2000);
	expect_speed_writes(&r, d, 0x09, 0x2A);
	expect_rx_posted(&r);
	rec_nothing_more(&r);
	assert_true(saw_event(&r, USB_EVENT_SPEED, 0));
	assert_int_equal(d->baud, 115200);
	usb_dongle_free(d);
}

static void device_gone(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);

	rec_complete(d, RX, USB_STATUS_NO_DEVICE, NULL, 0, 10);
	assert_true(saw_event(&r, USB_EVENT_GONE, -ENODEV));
	assert_false(saw_event(&r, USB_EVENT_FAILED, -ENODEV));
	rec_nothing_more(&r);
	assert_int_equal(usb_dongle_counters(d)->xfer_errors, 1);
	assert_int_equal(usb_dongle_close(d, 20), 0);
	assert_true(saw_event(&r, USB_EVENT_CLOSED, 0));
	usb_dongle_free(d);

	/* during open, and on a FIFO read */
	d = new_core(&r);
	assert_int_equal(usb_dongle_open(d, 0), 0);
	rec_take(&r);
	rec_complete(d, CTRL, USB_STATUS_NO_DEVICE, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_GONE, -ENODEV));
	usb_dongle_free(d);
	d = opened_core(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	rx_cancelled(&r, d, 0);
	expect_tx(&r, XID_SIR);
	rec_complete(d, TX, USB_STATUS_OK, NULL, 0, 10);
	rec_take(&r);
	uint8_t short_reply[2] = { 0x04, 0x00 };
	rec_complete(d, CTRL, USB_STATUS_OK, short_reply, 2, 20);
	assert_true(saw_event(&r, USB_EVENT_FAILED, -EPROTO));
	usb_dongle_free(d);
}

static void rx_error_retried_from_the_tick(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);

	rec_complete(d, RX, USB_STATUS_ERROR, NULL, 0, 1000);
	rec_nothing_more(&r);
	assert_int_equal(usb_dongle_deadline(d), 1000 + STIR4200_RX_RETRY_US);
	usb_dongle_tick(d, 1000 + STIR4200_RX_RETRY_US);
	expect_rx_posted(&r);
	assert_int_equal(usb_dongle_counters(d)->xfer_errors, 1);
	usb_dongle_free(d);
}

static void close_waits_for_cancelled_transfers(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = opened_core(&r);

	assert_int_equal(usb_dongle_close(d, 0), 0);
	assert_int_equal(r.n_cancelled, 1);
	assert_int_equal(r.cancelled[0], RX);
	assert_false(saw_event(&r, USB_EVENT_CLOSED, 0));
	assert_int_equal(usb_dongle_close(d, 0), -EINPROGRESS);
	rec_complete(d, RX, USB_STATUS_CANCELLED, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_CLOSED, 0));
	assert_int_equal(d->baud, 0);
	assert_int_equal(usb_dongle_close(d, 0), 0);
	/* and open again */
	r.next = r.n_xfers;
	r.n_ev = 0;
	open_core(&r, d);
	usb_dongle_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry_knows_the_chip),
		cmocka_unit_test(tx_vectors_match_the_digest),
		cmocka_unit_test(open_sequence_matches_the_digest),
		cmocka_unit_test(open_fails_on_a_clear_halt_error),
		cmocka_unit_test(speed_sequences_match_the_digest),
		cmocka_unit_test(rx_sir_frame_split_over_two_transfers),
		cmocka_unit_test(rx_bad_crc_counted),
		cmocka_unit_test(fir_decoder),
		cmocka_unit_test(rx_fir_through_the_core),
		cmocka_unit_test(send_waits_for_the_turnaround),
		cmocka_unit_test(fifo_polls_before_the_second_frame),
		cmocka_unit_test(fifo_polls_at_least_1_ms_apart),
		cmocka_unit_test(partial_frame_dropped_when_sending),
		cmocka_unit_test(rx_restarts_when_not_dir),
		cmocka_unit_test(fifo_cleared_when_the_count_grows),
		cmocka_unit_test(speed_change_after_the_fifo_drained),
		cmocka_unit_test(device_gone),
		cmocka_unit_test(rx_error_retried_from_the_tick),
		cmocka_unit_test(close_waits_for_cancelled_transfers),
	};
	return cmocka_run_group_tests_name("usb_stir4200", tests, NULL, NULL);
}
