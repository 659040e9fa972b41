/*
 * test_usb_kingsun.c: the KingSun cores (KS-959, Dazzle, KingSun/DonShine)
 * against usb-irda-digest 2.4 to 2.7.
 *
 * The expectations are the digest's: setup packets as it writes them,
 * its KS-959 masks, padded sizes and XID fragment, its 57600 speed
 * record, its Dazzle packets and its KingSun report.  Obfuscated receive
 * streams are built here from the digest's rule (b ^ k ^ 0x55, a filler
 * where k wraps), not with the core's functions.  The host is a
 * recorder: each transfer the core submits is checked in order and
 * answered by the test.
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

#include "fcs.h"
#include "kingsun.h"
#include "sir.h"
#include "usb_dongle.h"

#include "usb_rec.h"

#define INTR_IN 0x81
#define INTR_OUT 0x02

static struct usb_dongle *new_core(struct rec *r, uint16_t vid, uint16_t pid)
{
	memset(r, 0, sizeof(*r));
	struct usb_dongle_config cfg = {
		.ep = { .intr_in = INTR_IN, .intr_out = INTR_OUT, .in_max_packet = 8,
			.out_max_packet = 8 },
		.host = { on_submit, on_cancel, on_frame, on_event, r },
	};
	const struct usb_id *id = NULL;
	const struct usb_family *f = usb_family_match(vid, pid, 0xFF, 0, &id);
	assert_non_null(f);
	struct usb_dongle *d;
	char err[160];
	assert_int_equal(usb_dongle_new(f, &cfg, id, &d, err, sizeof err), 0);
	return d;
}

/* --- helpers -------------------------------------------------------------------- */


static const struct rec_xfer *take(struct rec *r)
{
	assert_true(r->next < r->n_xfers);
	return &r->xfer[r->next++];
}

static void nothing_more(const struct rec *r)
{
	assert_int_equal(r->next, r->n_xfers);
}

static void complete(struct usb_dongle *d, uint32_t tag, enum usb_status st, const uint8_t *data,
		     size_t n, uint64_t now)
{
	struct usb_completion c = { .tag = tag, .status = st, .data = data, .actual = n };
	usb_dongle_complete(d, &c, now);
}

static void expect_setup_bytes(const struct rec_xfer *t, const char *setup_hex)
{
	uint8_t want[8], got[8];

	assert_int_equal(rec_parse_hex(setup_hex, want, sizeof want), 8);
	assert_int_equal(t->x.type, USB_XFER_CONTROL);
	usb_setup_pack(&t->x.setup, got);
	if (memcmp(want, got, 8) != 0)
		fail_msg("setup %02x %02x %02x %02x %02x %02x %02x %02x, expected %s", got[0], got[1],
			 got[2], got[3], got[4], got[5], got[6], got[7], setup_hex);
}

/* The speed request `21 09 00 02 01 00 08 00` with its 8-byte record,
 * answered OK. */
static void expect_speed(struct rec *r, struct usb_dongle *d, const char *record_hex)
{
	uint8_t want[8];
	const struct rec_xfer *t = take(r);

	expect_setup_bytes(t, "21 09 00 02 01 00 08 00");
	assert_int_equal(t->x.tag, KINGSUN_TAG_CTRL);
	assert_int_equal(rec_parse_hex(record_hex, want, sizeof want), 8);
	assert_int_equal(t->x.length, 8);
	assert_non_null(t->x.data);
	assert_memory_equal(t->data, want, 8);
	complete(d, KINGSUN_TAG_CTRL, USB_STATUS_OK, NULL, 8, 0);
}

static void expect_ks959_poll(struct rec *r)
{
	const struct rec_xfer *t = take(r);

	expect_setup_bytes(t, "A1 01 00 02 00 00 00 08");
	assert_int_equal(t->x.tag, KINGSUN_TAG_RX);
	assert_int_equal(t->x.length, 2048);
	assert_null(t->x.data);
}

static void expect_interrupt_in(struct rec *r, size_t len)
{
	const struct rec_xfer *t = take(r);

	assert_int_equal(t->x.type, USB_XFER_INTERRUPT);
	assert_int_equal(t->x.tag, KINGSUN_TAG_RX);
	assert_int_equal(t->x.endpoint, INTR_IN);
	assert_int_equal(t->x.length, len);
	assert_null(t->x.data);
}

/* 9600 = 0x2580 */
static const char rec_9600[] = "80 25 00 00 03 00 00 00";

static struct usb_dongle *open_ks959(struct rec *r)
{
	struct usb_dongle *d = new_core(r, 0x07d0, 0x4959);

	assert_int_equal(usb_dongle_open(d, 0), 0);
	assert_false(usb_dongle_can_send(d));
	expect_speed(r, d, rec_9600);
	expect_ks959_poll(r);
	nothing_more(r);
	assert_true(saw_event(r, USB_EVENT_OPENED, 0));
	assert_true(usb_dongle_can_send(d));
	return d;
}

static struct usb_dongle *open_dazzle(struct rec *r)
{
	struct usb_dongle *d = new_core(r, 0x07d0, 0x4100);

	assert_int_equal(usb_dongle_open(d, 0), 0);
	expect_speed(r, d, rec_9600);
	expect_interrupt_in(r, 2048);
	nothing_more(r);
	assert_true(saw_event(r, USB_EVENT_OPENED, 0));
	assert_true(usb_dongle_can_send(d));
	return d;
}

/* KingSun: no speed command, so open is only the interrupt IN of
 * exactly wMaxPacketSize. */
static struct usb_dongle *open_kingsun(struct rec *r)
{
	struct usb_dongle *d = new_core(r, 0x07c0, 0x4200);

	assert_int_equal(usb_dongle_open(d, 0), 0);
	expect_interrupt_in(r, 8);
	nothing_more(r);
	assert_true(saw_event(r, USB_EVENT_OPENED, 0));
	assert_true(usb_dongle_can_send(d));
	return d;
}

/* The digest's 14-byte XID command, and wrapped with 10 XBOFs (28 bytes). */
static const uint8_t xid[] = { 0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12,
			       0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00 };
static const char xid_wrapped[] = "FF FF FF FF FF FF FF FF FF FF C0 FF 3F 01 78 56 34 12 "
				  "FF FF FF FF 01 00 00 46 28 C1";

/* --- registry and create ---------------------------------------------------------- */

static void registry_knows_the_families(void **state)
{
	(void)state;
	static const struct {
		uint16_t vid, pid;
		const char *name;
		uint16_t baud_bits;
	} want[] = {
		{ 0x07d0, 0x4959, "ks959", 0x001F },	/* 2400..57600 */
		{ 0x07d0, 0x4100, "ksdazzle", 0x003F },	/* 2400..115200 */
		{ 0x07c0, 0x4200, "kingsun", 0x0002 },	/* 9600 */
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct usb_id *id = NULL;
		const struct usb_family *f = usb_family_match(want[i].vid, want[i].pid, 0xFF, 0, &id);
		assert_non_null(f);
		assert_string_equal(f->name, want[i].name);
		assert_non_null(f->chip);
		assert_non_null(id);
		assert_int_equal(id->pid, want[i].pid);
		assert_ptr_equal(usb_family_by_name(want[i].name), f);
		assert_int_equal(f->baud_bits, want[i].baud_bits);
		assert_int_equal(f->min_tat_bits, 0x07);
	}
	assert_null(usb_family_match(0x07d0, 0x4958, 0xFF, 0, NULL));
}

static void create_checks_endpoints(void **state)
{
	(void)state;
	struct rec r = { 0 };
	struct usb_dongle_config cfg = {
		.ep = { .bulk_in = 0x81, .bulk_out = 0x02, .in_max_packet = 8 },
		.host = { on_submit, on_cancel, on_frame, on_event, &r },
	};
	struct usb_dongle *d;
	char err[160] = "";
	const struct usb_family *fams[] = { &kingsun_family, &ksdazzle_family };

	for (size_t i = 0; i < 2; i++) {
		cfg.ep.intr_in = 0;
		cfg.ep.intr_out = 0;
		cfg.ep.in_max_packet = 8;
		assert_int_equal(usb_dongle_new(fams[i], &cfg, NULL, &d, err, sizeof err), -EINVAL);
		assert_null(d);
		assert_non_null(strstr(err, "interrupt IN"));
		cfg.ep.intr_in = 0x01;	/* an OUT address */
		cfg.ep.intr_out = 0x02;
		assert_int_equal(usb_dongle_new(fams[i], &cfg, NULL, &d, err, sizeof err), -EINVAL);
		cfg.ep.intr_in = 0x81;
		cfg.ep.in_max_packet = 1;
		assert_int_equal(usb_dongle_new(fams[i], &cfg, NULL, &d, err, sizeof err), -EINVAL);
		assert_non_null(strstr(err, "wMaxPacketSize"));
		cfg.ep.in_max_packet = 256;
		assert_int_equal(usb_dongle_new(fams[i], &cfg, NULL, &d, err, sizeof err), -EINVAL);
		cfg.ep.in_max_packet = 255;
		assert_int_equal(usb_dongle_new(fams[i], &cfg, NULL, &d, err, sizeof err), 0);
		usb_dongle_free(d);
	}
	/* the KS-959 needs no endpoint but the control pipe */
	memset(&cfg.ep, 0, sizeof(cfg.ep));
	assert_int_equal(usb_dongle_new(&ks959_family, &cfg, NULL, &d, err, sizeof err), 0);
	usb_dongle_free(d);
}

/* --- KS-959 --------------------------------------------------------------------------- */

static void ks959_masks_and_padding(void **state)
{
	(void)state;
	static const struct { size_t len; uint8_t mask; size_t padded; } v[] = {
		{ 1, 0x3A, 24 }, { 7, 0x34, 24 }, { 8, 0x64, 24 },
		{ 16, 0x20, 32 }, { 30, 0x33, 48 }, { 240, 0x20, 256 },
		{ 28, 0x3C, 48 },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (ks959_mask(v[i].len) != v[i].mask)
			fail_msg("mask(%zu) = 0x%02x, expected 0x%02x", v[i].len,
				 ks959_mask(v[i].len), v[i].mask);
		assert_int_equal(ks959_padded_len(v[i].len), v[i].padded);
	}
	uint8_t clear[241] = { 0 }, out[300];
	struct wcursor w;
	wcursor_init(&w, out, sizeof out);
	assert_int_equal(ks959_fragment(clear, 0, &w), -EINVAL);
	assert_int_equal(ks959_fragment(clear, 241, &w), -EINVAL);
	wcursor_init(&w, out, 255);
	assert_int_equal(ks959_fragment(clear, 240, &w), -ENOSPC);
	wcursor_init(&w, out, 256);
	assert_int_equal(ks959_fragment(clear, 240, &w), 256);
	assert_int_equal(out[0], 0x20);
	assert_int_equal(out[239], 0x20);
	assert_int_equal(out[240], 0x00);	/* padding is zero, not masked */
}

/* The digest's XID: setup `21 09 1C 00 00 00 30 00`, payload the 28
 * wrapped bytes XOR 0x3C (starting C3 C3), zeros to 48. */
static void ks959_sends_the_digest_fragment(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_ks959(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid, .xbofs = 10 };
	uint8_t wrapped[64], want[48] = { 0 };
	size_t n = rec_parse_hex(xid_wrapped, wrapped, sizeof wrapped);

	assert_int_equal(n, 28);
	for (size_t i = 0; i < n; i++)
		want[i] = wrapped[i] ^ 0x3C;
	assert_int_equal(want[0], 0xC3);
	assert_int_equal(want[1], 0xC3);
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	assert_false(usb_dongle_can_send(d));
	const struct rec_xfer *t = take(&r);
	expect_setup_bytes(t, "21 09 1C 00 00 00 30 00");
	assert_int_equal(t->x.tag, KINGSUN_TAG_TX);
	assert_int_equal(t->x.length, 48);
	assert_memory_equal(t->data, want, 48);
	nothing_more(&r);
	complete(d, KINGSUN_TAG_TX, USB_STATUS_OK, NULL, 48, 0);
	assert_true(saw_event(&r, USB_EVENT_TX_DONE, 0));
	assert_true(usb_dongle_can_send(d));
	assert_int_equal(usb_dongle_counters(d)->tx_frames, 1);
	usb_dongle_free(d);
}

/* A wrapped frame over 240 bytes goes in 240-byte fragments, each with
 * its own mask and padding, the next from the previous one's completion;
 * a speed change asked for meanwhile follows the last (57600: the
 * digest's record `00 E1 00 00 03 00 00 00`). */
static void ks959_fragments_then_speed(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_ks959(&r);
	uint8_t frame[500], wrapped[1100];
	memset(frame, 0x11, sizeof frame);
	frame[0] = 0x03;
	struct usb_tx_frame f = { .data = frame, .len = sizeof frame, .xbofs = 10 };
	struct wcursor w;
	wcursor_init(&w, wrapped, sizeof wrapped);
	int total = sir_encode(&w, frame, sizeof frame, 10);
	assert_true(total > 480);	/* three fragments */

	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	assert_int_equal(usb_dongle_set_speed(d, 57600, 0), 0);
	assert_int_equal(usb_dongle_set_speed(d, 19200, 0), -EBUSY);
	size_t off = 0;
	for (int i = 0; off < (size_t)total; i++) {
		size_t n = (size_t)total - off > 240 ? 240 : (size_t)total - off;
		size_t padded = ((n + 7) & ~(size_t)7) + 16;
		char hex[64];
		snprintf(hex, sizeof hex, "21 09 %02X %02X 00 00 %02X %02X", (unsigned)(n & 0xFF),
			 (unsigned)(n >> 8), (unsigned)(padded & 0xFF), (unsigned)(padded >> 8));
		const struct rec_xfer *t = take(&r);
		expect_setup_bytes(t, hex);
		assert_int_equal(t->x.tag, KINGSUN_TAG_TX);
		assert_int_equal(t->x.length, padded);
		uint8_t mask = ks959_mask(n);
		for (size_t j = 0; j < padded; j++)
			assert_int_equal(t->data[j], j < n ? wrapped[off + j] ^ mask : 0);
		nothing_more(&r);
		assert_false(saw_event(&r, USB_EVENT_TX_DONE, 0));
		off += n;
		complete(d, KINGSUN_TAG_TX, USB_STATUS_OK, NULL, padded, 0);
	}
	assert_true(saw_event(&r, USB_EVENT_TX_DONE, 0));
	assert_false(usb_dongle_can_send(d));
	assert_false(saw_event(&r, USB_EVENT_SPEED, 0));
	expect_speed(&r, d, "00 E1 00 00 03 00 00 00");
	assert_true(saw_event(&r, USB_EVENT_SPEED, 0));
	assert_true(usb_dongle_can_send(d));
	nothing_more(&r);
	/* frames now pad their turnaround at 57600 */
	struct usb_tx_frame g = { .data = xid, .len = sizeof xid, .mtt_us = 10000 };
	assert_int_equal(usb_dongle_send(d, &g, 0), 0);
	const struct rec_xfer *t = take(&r);
	assert_int_equal(t->x.setup.value, 58 + 18);	/* ceil(57600 * 0.01 / 10) = 58 XBOFs */
	usb_dongle_free(d);
}

static void ks959_refuses_fast_speeds(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_ks959(&r);

	assert_int_equal(usb_dongle_set_speed(d, 115200, 0), -EINVAL);	/* QoS cap */
	assert_int_equal(usb_dongle_set_speed(d, 4000000, 0), -EINVAL);
	assert_int_equal(usb_dongle_set_speed(d, 12345, 0), -EINVAL);
	nothing_more(&r);
	assert_int_equal(usb_dongle_set_speed(d, 2400, 0), 0);
	expect_speed(&r, d, "60 09 00 00 03 00 00 00");
	assert_true(saw_event(&r, USB_EVENT_SPEED, 0));
	/* no frame while a change is out; a stalled change fails the core */
	assert_int_equal(usb_dongle_set_speed(d, 38400, 0), 0);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };
	assert_int_equal(usb_dongle_send(d, &f, 0), -EBUSY);
	const struct rec_xfer *t = take(&r);
	expect_setup_bytes(t, "21 09 00 02 01 00 08 00");
	assert_memory_equal(t->data, "\x00\x96\x00\x00\x03\x00\x00\x00", 8);
	complete(d, KINGSUN_TAG_CTRL, USB_STATUS_STALL, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_FAILED, -EPIPE));
	assert_false(usb_dongle_can_send(d));
	assert_int_equal(usb_dongle_set_speed(d, 9600, 0), -ENOTCONN);
	nothing_more(&r);
	usb_dongle_free(d);

	/* not open yet */
	d = new_core(&r, 0x07d0, 0x4959);
	assert_int_equal(usb_dongle_set_speed(d, 9600, 0), -ENOTCONN);
	assert_int_equal(usb_dongle_send(d, &f, 0), -EBUSY);
	nothing_more(&r);
	usb_dongle_free(d);
}

static void ks959_deobfuscation_vector(void **state)
{
	(void)state;
	/* k from 0xFE: 0xFF decodes AA, 0x00 is the filler (BB dropped),
	 * 0x01 and 0x02 decode CC and DD */
	const uint8_t in[] = { 0xAA, 0xBB, 0xCC, 0xDD };
	uint8_t out[8];
	uint8_t k = 0xFE;
	struct cursor c;
	struct wcursor w;

	cursor_init(&c, in, sizeof in);
	wcursor_init(&w, out, sizeof out);
	assert_int_equal(ks959_deobfuscate(&k, &c, &w), 3);
	assert_int_equal(out[0], 0x00);
	assert_int_equal(out[1], 0x98);
	assert_int_equal(out[2], 0x8A);
	assert_int_equal(k, 0x02);
	/* a full output stops it with the rest of the input kept */
	k = 0;
	cursor_init(&c, in, sizeof in);
	wcursor_init(&w, out, 2);
	assert_int_equal(ks959_deobfuscate(&k, &c, &w), 2);
	assert_int_equal(cursor_remaining(&c), 2);
	assert_int_equal(k, 2);
}

/* Obfuscates clear as the digest says the dongle does: k goes up before
 * each byte, at the wrap a filler (0x95 decoded) goes in. */
static size_t obfuscate(uint8_t *k, const uint8_t *clear, size_t n, uint8_t *out)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		*k = (uint8_t)(*k + 1);
		if (*k == 0) {
			out[m++] = 0x95 ^ 0x55;
			*k = 1;
		}
		out[m++] = clear[i] ^ *k ^ 0x55;
	}
	return m;
}

/* Ten wrapped XIDs (280 bytes, so the counter wraps once) in three polls
 * cut anywhere: ten frames, the counter kept across polls and the filler
 * skipped; then a damaged frame is counted as an FCS error. */
static void ks959_receives_across_polls(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_ks959(&r);
	uint8_t one[28], clear[280], wire[300];
	assert_int_equal(rec_parse_hex(xid_wrapped, one, sizeof one), 28);
	for (size_t i = 0; i < 10; i++)
		memcpy(clear + 28 * i, one, 28);
	uint8_t k = 0;
	size_t n = obfuscate(&k, clear, sizeof clear, wire);
	assert_int_equal(n, 281);

	const size_t cuts[] = { 0, 100, 255, 281 };
	for (size_t i = 0; i + 1 < 4; i++) {
		complete(d, KINGSUN_TAG_RX, USB_STATUS_OK, wire + cuts[i], cuts[i + 1] - cuts[i],
			 1000 * (i + 1));
		expect_ks959_poll(&r);
	}
	assert_int_equal(r.n_frames, 10);
	assert_int_equal(r.frame_len, 14);
	assert_memory_equal(r.frame, xid, 14);
	assert_int_equal(r.frame_baud, 9600);
	const struct usb_dongle_counters *c = usb_dongle_counters(d);
	assert_int_equal(c->rx_frames, 10);
	assert_int_equal(c->rx_fcs_errors, 0);

	/* an empty poll, then a frame with one bit flipped */
	complete(d, KINGSUN_TAG_RX, USB_STATUS_OK, NULL, 0, 5000);
	expect_ks959_poll(&r);
	assert_int_equal(c->rx_empty, 1);
	one[20] ^= 0x01;
	n = obfuscate(&k, one, 28, wire);
	complete(d, KINGSUN_TAG_RX, USB_STATUS_OK, wire, n, 6000);
	expect_ks959_poll(&r);
	assert_int_equal(r.n_frames, 10);
	assert_int_equal(c->rx_fcs_errors, 1);
	assert_true(saw_event(&r, USB_EVENT_MEDIA_BUSY, -EBADMSG));
	usb_dongle_free(d);
}

/* A failed poll is retried 10 ms later from the tick; NO_DEVICE is GONE. */
static void ks959_poll_retry_and_gone(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_ks959(&r);

	complete(d, KINGSUN_TAG_RX, USB_STATUS_STALL, NULL, 0, 2000);
	nothing_more(&r);
	assert_int_equal(usb_dongle_deadline(d), 12000);
	usb_dongle_tick(d, 11999);
	nothing_more(&r);
	usb_dongle_tick(d, 12000);
	expect_ks959_poll(&r);
	assert_int_equal(usb_dongle_counters(d)->xfer_errors, 1);
	complete(d, KINGSUN_TAG_RX, USB_STATUS_NO_DEVICE, NULL, 0, 13000);
	assert_true(saw_event(&r, USB_EVENT_GONE, -ENODEV));
	nothing_more(&r);
	assert_int_equal(usb_dongle_close(d, 0), 0);
	assert_true(saw_event(&r, USB_EVENT_CLOSED, 0));
	usb_dongle_free(d);

	/* gone during the open's speed request; a stalled one fails */
	d = new_core(&r, 0x07d0, 0x4959);
	assert_int_equal(usb_dongle_open(d, 0), 0);
	take(&r);
	complete(d, KINGSUN_TAG_CTRL, USB_STATUS_NO_DEVICE, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_GONE, -ENODEV));
	assert_false(saw_event(&r, USB_EVENT_OPENED, 0));
	nothing_more(&r);
	usb_dongle_free(d);
	d = new_core(&r, 0x07d0, 0x4959);
	assert_int_equal(usb_dongle_open(d, 0), 0);
	take(&r);
	complete(d, KINGSUN_TAG_CTRL, USB_STATUS_STALL, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_FAILED, -EPIPE));
	assert_false(usb_dongle_can_send(d));
	usb_dongle_free(d);
}

/* Close cancels the poll and the fragment in flight; CLOSED when both
 * are back; a reopen starts the counter again from 0. */
static void ks959_close_and_reopen(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_ks959(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };
	uint8_t wire[8], k = 0;

	/* move the counter on */
	size_t n = obfuscate(&k, xid, 5, wire);
	complete(d, KINGSUN_TAG_RX, USB_STATUS_OK, wire, n, 0);
	expect_ks959_poll(&r);
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	take(&r);
	assert_int_equal(usb_dongle_close(d, 0), 0);
	assert_int_equal(r.n_cancelled, 2);
	assert_int_equal(usb_dongle_close(d, 0), -EINPROGRESS);
	complete(d, KINGSUN_TAG_TX, USB_STATUS_CANCELLED, NULL, 0, 0);
	assert_false(saw_event(&r, USB_EVENT_CLOSED, 0));
	assert_false(saw_event(&r, USB_EVENT_TX_DONE, -ECANCELED));
	complete(d, KINGSUN_TAG_RX, USB_STATUS_CANCELLED, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_CLOSED, 0));
	assert_false(usb_dongle_can_send(d));
	nothing_more(&r);

	r.n_ev = 0;
	r.n_xfers = r.next = 0;
	assert_int_equal(usb_dongle_open(d, 0), 0);
	expect_speed(&r, d, rec_9600);
	expect_ks959_poll(&r);
	uint8_t one[28];
	rec_parse_hex(xid_wrapped, one, sizeof one);
	uint8_t w2[40];
	k = 0;
	n = obfuscate(&k, one, 28, w2);
	complete(d, KINGSUN_TAG_RX, USB_STATUS_OK, w2, n, 0);
	assert_int_equal(r.n_frames, 1);
	usb_dongle_free(d);
}

/* --- Dazzle ------------------------------------------------------------------------------ */

static void expect_dazzle_packet(struct rec *r, struct usb_dongle *d, const char *hex)
{
	uint8_t want[8];
	const struct rec_xfer *t = take(r);

	assert_int_equal(rec_parse_hex(hex, want, sizeof want), 8);
	assert_int_equal(t->x.type, USB_XFER_INTERRUPT);
	assert_int_equal(t->x.tag, KINGSUN_TAG_TX);
	assert_int_equal(t->x.endpoint, INTR_OUT);
	assert_int_equal(t->x.length, 8);
	assert_memory_equal(t->data, want, 8);
	nothing_more(r);
	complete(d, KINGSUN_TAG_TX, USB_STATUS_OK, NULL, 8, 0);
}

/* The digest: the 28-byte wrapped XID in 4 packets, first
 * `FF FF FF FF FF FF FF FF`, last `FF FF 01 00 00 46 28 C1`; without
 * XBOFs 18 bytes: 7, 7 and 4, the last `FC 00 46 28 C1 00 00 00`. */
static void dazzle_packets_match_the_digest(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_dazzle(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid, .xbofs = 10 };

	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	expect_dazzle_packet(&r, d, "FF FF FF FF FF FF FF FF");
	expect_dazzle_packet(&r, d, "FF FF FF FF C0 FF 3F 01");
	expect_dazzle_packet(&r, d, "FF 78 56 34 12 FF FF FF");
	assert_false(saw_event(&r, USB_EVENT_TX_DONE, 0));
	expect_dazzle_packet(&r, d, "FF FF 01 00 00 46 28 C1");
	assert_true(saw_event(&r, USB_EVENT_TX_DONE, 0));
	assert_true(usb_dongle_can_send(d));

	f.xbofs = 0;
	r.n_ev = 0;
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	expect_dazzle_packet(&r, d, "FF C0 FF 3F 01 78 56 34");
	expect_dazzle_packet(&r, d, "FF 12 FF FF FF FF 01 00");
	expect_dazzle_packet(&r, d, "FC 00 46 28 C1 00 00 00");
	assert_true(saw_event(&r, USB_EVENT_TX_DONE, 0));
	assert_int_equal(usb_dongle_counters(d)->tx_frames, 2);

	/* a packet lost ends the frame: TX_DONE with the error, no more packets */
	r.n_ev = 0;
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	take(&r);
	complete(d, KINGSUN_TAG_TX, USB_STATUS_TIMEOUT, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_TX_DONE, -ETIMEDOUT));
	nothing_more(&r);
	assert_true(usb_dongle_can_send(d));
	usb_dongle_free(d);
}

static void dazzle_speeds(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_dazzle(&r);

	assert_int_equal(usb_dongle_set_speed(d, 576000, 0), -EINVAL);
	assert_int_equal(usb_dongle_set_speed(d, 4000000, 0), -EINVAL);
	nothing_more(&r);
	assert_int_equal(usb_dongle_set_speed(d, 115200, 0), 0);
	assert_false(usb_dongle_can_send(d));
	expect_speed(&r, d, "00 C2 01 00 03 00 00 00");
	assert_true(saw_event(&r, USB_EVENT_SPEED, 0));
	assert_true(usb_dongle_can_send(d));
	/* TX gone */
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	take(&r);
	complete(d, KINGSUN_TAG_TX, USB_STATUS_NO_DEVICE, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_GONE, -ENODEV));
	nothing_more(&r);
	usb_dongle_free(d);
}

/* Raw stream bytes, 0..8 a read, cut anywhere. */
static void dazzle_receives(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_dazzle(&r);
	uint8_t one[28];
	rec_parse_hex(xid_wrapped, one, sizeof one);

	for (size_t off = 0; off < 28; off += 8) {
		size_t n = 28 - off < 8 ? 28 - off : 8;
		complete(d, KINGSUN_TAG_RX, USB_STATUS_OK, one + off, n, 700);
		expect_interrupt_in(&r, 2048);
	}
	assert_int_equal(r.n_frames, 1);
	assert_memory_equal(r.frame, xid, 14);
	complete(d, KINGSUN_TAG_RX, USB_STATUS_OK, one, 0, 800);
	expect_interrupt_in(&r, 2048);
	assert_int_equal(usb_dongle_counters(d)->rx_empty, 1);
	/* a frame cut by a BOF: malformed, media busy */
	complete(d, KINGSUN_TAG_RX, USB_STATUS_OK, one + 10, 5, 900);
	expect_interrupt_in(&r, 2048);
	complete(d, KINGSUN_TAG_RX, USB_STATUS_OK, one + 10, 18, 900);
	expect_interrupt_in(&r, 2048);
	assert_int_equal(r.n_frames, 2);
	assert_int_equal(usb_dongle_counters(d)->rx_malformed, 1);
	assert_true(saw_event(&r, USB_EVENT_MEDIA_BUSY, -EPROTO));
	usb_dongle_free(d);
}

/* --- KingSun 07c0:4200 ------------------------------------------------------------------- */

static int report(const char *hex, size_t max_packet, uint8_t *payload)
{
	uint8_t b[16];
	size_t n = rec_parse_hex(hex, b, sizeof b);
	uint8_t *copy = malloc(n ? n : 1);	/* exactly n bytes: ASan sees overreads */
	assert_non_null(copy);
	memcpy(copy, b, n);
	struct cursor in;
	const uint8_t *p = NULL;
	cursor_init(&in, copy, n);
	int rc = kingsun_report(&in, max_packet, &p);
	if (rc > 0)
		memcpy(payload, p, (size_t)rc);
	free(copy);
	return rc;
}

static void kingsun_report_parse(void **state)
{
	(void)state;
	uint8_t p[16];

	assert_int_equal(report("06 FF FF FF C0 01 04 AA", 8, p), 6);
	assert_memory_equal(p, "\xFF\xFF\xFF\xC0\x01\x04", 6);
	assert_int_equal(report("01 C1 00 00 00 00 00 00", 8, p), 1);
	assert_int_equal(p[0], 0xC1);
	assert_int_equal(report("07 01 02 03 04 05 06 07", 8, p), 7);
	assert_int_equal(report("", 8, p), -ENODATA);
	assert_int_equal(report("00 FF FF FF C0 01 04 AA", 8, p), -ENODATA);
	assert_int_equal(report("08 FF FF FF C0 01 04 AA", 8, p), -EPROTO);	/* > max - 1 */
	assert_int_equal(report("FF FF FF FF C0 01 04 AA", 8, p), -EPROTO);
	assert_int_equal(report("05 01 02", 8, p), -EPROTO);			/* past the transfer */
	assert_int_equal(report("03 01 02 03", 3, p), -EPROTO);		/* max 3: 1..2 */
	assert_int_equal(report("02 01 02", 3, p), 2);
}

static void kingsun_sends_whole_frames(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_kingsun(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid, .xbofs = 10 };
	uint8_t want[28];
	rec_parse_hex(xid_wrapped, want, sizeof want);

	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	const struct rec_xfer *t = take(&r);
	assert_int_equal(t->x.type, USB_XFER_INTERRUPT);
	assert_int_equal(t->x.tag, KINGSUN_TAG_TX);
	assert_int_equal(t->x.endpoint, INTR_OUT);
	assert_int_equal(t->x.length, 28);
	assert_memory_equal(t->data, want, 28);
	nothing_more(&r);
	complete(d, KINGSUN_TAG_TX, USB_STATUS_OK, NULL, 28, 0);
	assert_true(saw_event(&r, USB_EVENT_TX_DONE, 0));

	/* turnaround: 10 XBOFs + 10 ms at 9600 (10 bytes) = 20; capped at 163 */
	f.mtt_us = 10000;
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	t = take(&r);
	assert_int_equal(t->x.length, 38);
	assert_int_equal(t->data[19], 0xFF);
	assert_int_equal(t->data[20], 0xC0);
	complete(d, KINGSUN_TAG_TX, USB_STATUS_OK, NULL, 38, 0);
	f.xbofs = 1000;
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	t = take(&r);
	assert_int_equal(t->x.length, 163 + 18);
	complete(d, KINGSUN_TAG_TX, USB_STATUS_OK, NULL, 0, 0);

	/* refused: no A and C; too long */
	struct usb_tx_frame one = { .data = xid, .len = 1 };
	assert_int_equal(usb_dongle_send(d, &one, 0), -EINVAL);
	static uint8_t big[2051];
	struct usb_tx_frame huge = { .data = big, .len = sizeof big };
	assert_int_equal(usb_dongle_send(d, &huge, 0), -EMSGSIZE);
	assert_true(usb_dongle_can_send(d));
	/* the largest frame, every byte escaped, fits */
	memset(big, 0x7D, sizeof big);
	huge.len = 2050;
	huge.xbofs = 163;
	assert_int_equal(usb_dongle_send(d, &huge, 0), 0);
	usb_dongle_free(d);
}

/* 9600 only: other speeds are refused, 9600 itself is done at once (or
 * after the frame in flight). */
static void kingsun_speed(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_kingsun(&r);

	assert_int_equal(usb_dongle_set_speed(d, 2400, 0), -EINVAL);
	assert_int_equal(usb_dongle_set_speed(d, 19200, 0), -EINVAL);
	assert_int_equal(usb_dongle_set_speed(d, 115200, 0), -EINVAL);
	assert_int_equal(usb_dongle_set_speed(d, 9600, 0), 0);
	assert_true(saw_event(&r, USB_EVENT_SPEED, 0));
	assert_true(usb_dongle_can_send(d));
	nothing_more(&r);
	r.n_ev = 0;
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	take(&r);
	assert_int_equal(usb_dongle_set_speed(d, 9600, 0), 0);
	assert_false(saw_event(&r, USB_EVENT_SPEED, 0));
	complete(d, KINGSUN_TAG_TX, USB_STATUS_OK, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_TX_DONE, 0));
	assert_true(saw_event(&r, USB_EVENT_SPEED, 0));
	assert_true(usb_dongle_can_send(d));
	nothing_more(&r);
	usb_dongle_free(d);
}

static void kingsun_feed(struct rec *r, struct usb_dongle *d, const char *hex)
{
	uint8_t b[8];
	size_t n = rec_parse_hex(hex, b, sizeof b);

	complete(d, KINGSUN_TAG_RX, USB_STATUS_OK, b, n, 500);
	expect_interrupt_in(r, 8);
}

/* Reports with a count and stale tail bytes; uninitialised reports
 * discarded without media busy; a repeated report holding a delimiter
 * (the dongle does not clear its buffer) never gives a second frame. */
static void kingsun_receives(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_kingsun(&r);
	const struct usb_dongle_counters *c = usb_dongle_counters(d);

	kingsun_feed(&r, d, "00 AA AA AA AA AA AA AA");
	kingsun_feed(&r, d, "09 AA AA AA AA AA AA AA");
	assert_int_equal(c->rx_empty, 2);
	kingsun_feed(&r, d, "07 FF FF FF FF FF FF FF");
	kingsun_feed(&r, d, "06 FF FF FF C0 FF 3F AA");
	kingsun_feed(&r, d, "06 FF FF FF C0 FF 3F AA");	/* stale: dropped */
	kingsun_feed(&r, d, "07 01 78 56 34 12 FF FF");
	kingsun_feed(&r, d, "07 FF FF 01 00 00 46 28");
	kingsun_feed(&r, d, "01 C1 00 00 00 00 00 00");
	assert_int_equal(r.n_frames, 1);
	assert_memory_equal(r.frame, xid, 14);
	kingsun_feed(&r, d, "01 C1 00 00 00 00 00 00");	/* stale end */
	kingsun_feed(&r, d, "01 C1 00 00 00 00 00 00");
	assert_int_equal(r.n_frames, 1);
	assert_int_equal(c->rx_empty, 5);
	assert_false(saw_event(&r, USB_EVENT_MEDIA_BUSY, -EPROTO));
	assert_int_equal(c->rx_malformed, 0);

	/* a whole short frame in one report, repeated: delivered once */
	uint8_t ac[2] = { 0xFF, 0x93 };
	uint16_t fcs = fcs_compute(ac, 2);
	char hex[64];
	snprintf(hex, sizeof hex, "06 C0 FF 93 %02X %02X C1 00", fcs & 0xFF, fcs >> 8);
	assert_true((fcs & 0xFF) != 0x7D && (fcs & 0xFF) < 0xC0 && (fcs >> 8) != 0x7D &&
		    (fcs >> 8) < 0xC0);	/* no escape needed */
	kingsun_feed(&r, d, hex);
	kingsun_feed(&r, d, hex);
	kingsun_feed(&r, d, hex);
	assert_int_equal(r.n_frames, 2);
	assert_int_equal(r.frame_len, 2);
	/* the same frame again after other bytes is a new frame */
	kingsun_feed(&r, d, "03 FF FF FF 00 00 00 00");
	kingsun_feed(&r, d, hex);
	assert_int_equal(r.n_frames, 3);
	assert_int_equal(c->rx_frames, 3);
	usb_dongle_free(d);
}

static void kingsun_gone_and_close(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = open_kingsun(&r);

	assert_int_equal(usb_dongle_close(d, 0), 0);
	assert_int_equal(r.n_cancelled, 1);
	assert_int_equal(r.cancelled[0], KINGSUN_TAG_RX);
	complete(d, KINGSUN_TAG_RX, USB_STATUS_CANCELLED, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_CLOSED, 0));
	nothing_more(&r);

	r.n_ev = 0;
	assert_int_equal(usb_dongle_open(d, 0), 0);
	expect_interrupt_in(&r, 8);
	assert_int_equal(usb_dongle_open(d, 0), -EALREADY);
	complete(d, KINGSUN_TAG_RX, USB_STATUS_NO_DEVICE, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_GONE, -ENODEV));
	assert_false(usb_dongle_can_send(d));
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };
	assert_int_equal(usb_dongle_send(d, &f, 0), -EBUSY);
	nothing_more(&r);
	assert_int_equal(usb_dongle_close(d, 0), 0);
	assert_true(saw_event(&r, USB_EVENT_CLOSED, 0));
	usb_dongle_free(d);
}

static void helpers(void **state)
{
	(void)state;
	uint8_t rec[8];
	struct usb_setup s = kingsun_speed_setup();
	uint8_t b[8];

	kingsun_speed_record(57600, rec);
	assert_memory_equal(rec, "\x00\xE1\x00\x00\x03\x00\x00\x00", 8);
	usb_setup_pack(&s, b);
	assert_memory_equal(b, "\x21\x09\x00\x02\x01\x00\x08\x00", 8);
	s = ks959_poll_setup();
	usb_setup_pack(&s, b);
	assert_memory_equal(b, "\xA1\x01\x00\x02\x00\x00\x00\x08", 8);
	s = ks959_fragment_setup(240);
	usb_setup_pack(&s, b);
	assert_memory_equal(b, "\x21\x09\xF0\x00\x00\x00\x00\x01", 8);
	struct cursor in;
	uint8_t pkt[8];
	cursor_init(&in, "", 0);
	assert_int_equal(ksdazzle_packet(&in, pkt), 0);
	cursor_init(&in, "\x01", 1);
	assert_int_equal(ksdazzle_packet(&in, pkt), 1);
	assert_memory_equal(pkt, "\xF9\x01\x00\x00\x00\x00\x00\x00", 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry_knows_the_families),
		cmocka_unit_test(create_checks_endpoints),
		cmocka_unit_test(ks959_masks_and_padding),
		cmocka_unit_test(ks959_sends_the_digest_fragment),
		cmocka_unit_test(ks959_fragments_then_speed),
		cmocka_unit_test(ks959_refuses_fast_speeds),
		cmocka_unit_test(ks959_deobfuscation_vector),
		cmocka_unit_test(ks959_receives_across_polls),
		cmocka_unit_test(ks959_poll_retry_and_gone),
		cmocka_unit_test(ks959_close_and_reopen),
		cmocka_unit_test(dazzle_packets_match_the_digest),
		cmocka_unit_test(dazzle_speeds),
		cmocka_unit_test(dazzle_receives),
		cmocka_unit_test(kingsun_report_parse),
		cmocka_unit_test(kingsun_sends_whole_frames),
		cmocka_unit_test(kingsun_speed),
		cmocka_unit_test(kingsun_receives),
		cmocka_unit_test(kingsun_gone_and_close),
		cmocka_unit_test(helpers),
	};
	return cmocka_run_group_tests_name("usb_kingsun", tests, NULL, NULL);
}
