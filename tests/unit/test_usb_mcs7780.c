/*
 * test_usb_mcs7780.c: the MCS7780 core against usb-irda-digest 2.3.
 *
 * The expectations are written here from the digest, not from the core:
 * setup packets as the digest writes them ("40 0E <value LE16> <reg LE16>
 * 00 00"), MODE values built from its register table (bits 7..5 per
 * speed, FIR bit, SIR16US|DRIVER|DTD|SIPEN), the derived open sequence
 * from an all-zero chip, its XID vectors for SIR, MIR and FIR, and its
 * RX rules.  The host is a recorder: each transfer the core submits is
 * checked in order and answered by the test.
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
#include "fcs32.h"
#include "mcs7780.h"
#include "usb_dongle.h"

#include "usb_rec.h"

/* IN 0x81, OUT 0x02: numbers differ, as on the FunctionFS device of the
 * digest's experiment, so a swapped clear-halt shows. */
static struct usb_dongle *new_core(struct rec *r, enum usb_clear_halt_mode mode)
{
	memset(r, 0, sizeof(*r));
	struct usb_dongle_config cfg = {
		.ep = { .bulk_in = 0x81, .bulk_out = 0x02, .in_max_packet = 64, .out_max_packet = 64 },
		.host = { on_submit, on_cancel, on_frame, on_event, r },
		.clear_halt = mode,
	};
	const struct usb_id *id = NULL;
	const struct usb_family *f = usb_family_match(0x9710, 0x7780, 0xFF, 0, &id);
	assert_non_null(f);
	struct usb_dongle *d;
	char err[128];
	assert_int_equal(usb_dongle_new(f, &cfg, id, &d, err, sizeof err), 0);
	return d;
}

/* --- expectations --------------------------------------------------------------- */

static void ack(struct usb_dongle *d)
{
	rec_complete(d, MCS7780_TAG_CTRL, USB_STATUS_OK, NULL, 0, 0);
}

/* digest: write `40 0E <value LE16> <reg LE16> 00 00` */
static void expect_write(struct rec *r, struct usb_dongle *d, unsigned reg, unsigned value)
{
	char hex[64];

	snprintf(hex, sizeof hex, "40 0E %02X %02X %02X 00 00 00", value & 0xFF, value >> 8, reg);
	rec_expect_setup(r, USB_XFER_CONTROL, MCS7780_TAG_CTRL, hex);
	ack(d);
}

/* digest: read `C0 0F 00 00 <reg LE16> 02 00`, 2 bytes LE back */
static void expect_read(struct rec *r, struct usb_dongle *d, unsigned reg, unsigned answer)
{
	char hex[64];
	uint8_t le[2] = { (uint8_t)(answer & 0xFF), (uint8_t)(answer >> 8) };

	snprintf(hex, sizeof hex, "C0 0F 00 00 %02X 00 02 00", reg);
	rec_expect_setup(r, USB_XFER_CONTROL, MCS7780_TAG_CTRL, hex);
	rec_complete(d, MCS7780_TAG_CTRL, USB_STATUS_OK, le, 2, 0);
}

static void expect_clear_halt(struct rec *r, struct usb_dongle *d, uint8_t ep)
{
	char hex[64];

	snprintf(hex, sizeof hex, "02 01 00 00 %02X 00 00 00", ep);
	rec_expect_setup(r, USB_XFER_CLEAR_HALT, MCS7780_TAG_CTRL, hex);
	assert_int_equal(r->xfer[r->next - 1].x.endpoint, ep);
	ack(d);
}

static void expect_rx_posted(struct rec *r)
{
	const struct rec_xfer *t = rec_take(r);

	assert_int_equal(t->x.type, USB_XFER_BULK);
	assert_int_equal(t->x.tag, MCS7780_TAG_RX);
	assert_int_equal(t->x.endpoint, 0x81);
	assert_int_equal(t->x.length, 4096);
}

/* The Vishay set-up from XCVR = x: |= MODE0|XCVR_CONF (0x0005) and
 * clear STFIR|MODE1 (0x0082), then clear MODE0, then clear XCVR_CONF. */
static void expect_vishay(struct rec *r, struct usb_dongle *d, unsigned x)
{
	expect_read(r, d, 2, x);
	x = (x | 0x0005) & ~0x0082u;
	expect_write(r, d, 2, x);
	x &= ~0x0001u;
	expect_write(r, d, 2, x);
	x &= ~0x0004u;
	expect_write(r, d, 2, x);
}

/* The open sequence on a chip whose registers read 0: the digest's
 * "MODE 0x0200, MINRXPW 0, MODE 0x1622, XCVR 0x0005, 0x0004, 0x0000,
 * XCVR 0x0008, MODE 0x1622", with the reads it implies. */
static void open_from_zero(struct rec *r, struct usb_dongle *d)
{
	assert_int_equal(usb_dongle_open(d, 0), 0);
	expect_clear_halt(r, d, 0x81);
	expect_clear_halt(r, d, 0x02);
	expect_read(r, d, 0, 0x0000);
	expect_write(r, d, 0, 0x0200);
	expect_write(r, d, 4, 0x0000);
	expect_write(r, d, 0, 0x1622);
	expect_vishay(r, d, 0x0000);
	expect_write(r, d, 2, 0x0008);
	expect_write(r, d, 0, 0x1622);
	expect_rx_posted(r);
	rec_nothing_more(r);
	assert_true(saw_event(r, USB_EVENT_OPENED, 0));
	assert_true(usb_dongle_can_send(d));
}

/* --- the digest's speeds ------------------------------------------------------------- */

/* MODE bits 7..5 (0 2400 ... 7 1152000), FIR bit 0x0001 for 4 Mbit/s. */
struct speed_fact {
	uint32_t baud;
	unsigned bits;
	bool fir;
	int klass;	/* 0 SIR, 1 MIR, 2 FIR */
};

static const struct speed_fact speeds[] = {
	{ 2400, 0, false, 0 }, { 9600, 1, false, 0 }, { 19200, 2, false, 0 },
	{ 38400, 3, false, 0 }, { 57600, 4, false, 0 }, { 115200, 5, false, 0 },
	{ 576000, 6, false, 1 }, { 1152000, 7, false, 1 }, { 4000000, 0, true, 2 },
};

static const struct speed_fact *fact(uint32_t baud)
{
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].baud == baud)
			return &speeds[i];
	fail_msg("no fact for %u", baud);
	return NULL;
}

static unsigned mode_at(unsigned mode, const struct speed_fact *s)
{
	return (mode & ~0x00E1u) | (s->bits << 5) | (s->fir ? 0x0001u : 0);
}

/* The speed sequence from `from` to `to`, the chip answering MODE with
 * mode_read and XCVR with xcvr: poll RESV (answered idle), read MODE,
 * MINRXPW (0 for SIR, 5 for MIR/FIR) and the Vishay set-up only on a
 * change of class, MODE with the new speed, MODE again with RESET clear. */
static void change_speed(struct rec *r, struct usb_dongle *d, uint32_t from, uint32_t to,
			 unsigned mode_read, unsigned xcvr)
{
	const struct speed_fact *a = fact(from), *b = fact(to);
	unsigned mode = mode_at(mode_read, b);

	r->n_ev = 0;
	assert_int_equal(usb_dongle_set_speed(d, to, 0), 0);
	assert_false(usb_dongle_can_send(d));
	expect_read(r, d, 7, 0x0000);
	expect_read(r, d, 0, mode_read);
	if (a->klass != b->klass)
		expect_write(r, d, 4, b->klass == 0 ? 0 : 5);
	expect_write(r, d, 0, mode);
	if (a->klass != b->klass)
		expect_vishay(r, d, xcvr);
	expect_write(r, d, 0, mode & ~0x8000u);
	rec_nothing_more(r);
	assert_true(saw_event(r, USB_EVENT_SPEED, 0));
	assert_true(usb_dongle_can_send(d));
}

static void registry_knows_the_chip(void **state)
{
	(void)state;
	const struct usb_id *id = NULL;
	const struct usb_family *f = usb_family_match(0x9710, 0x7780, 0xFF, 0, &id);

	assert_non_null(f);
	assert_string_equal(f->name, "mcs7780");
	assert_non_null(id);
	assert_int_equal(id->vid, 0x9710);
	assert_ptr_equal(usb_family_by_name("mcs7780"), f);
	assert_null(usb_family_match(0x9710, 0x7781, 0xFF, 0, NULL));
	assert_null(usb_family_by_name("nonesuch"));
	/* 2400..115200, 576k, 1.152M, 4M; QoS min turnaround 0x07 (>= 1 ms) */
	assert_int_equal(f->baud_bits, 0x01FF);
	assert_int_equal(f->min_tat_bits, 0x07);
	size_t n;
	const struct usb_family *const *all = usb_families(&n);
	assert_true(n >= 1);
	assert_ptr_equal(all[0], f);
}

static void create_refuses_missing_endpoints(void **state)
{
	(void)state;
	struct rec r = { 0 };
	struct usb_dongle_config cfg = {
		.ep = { .bulk_in = 0x02, .bulk_out = 0x02 },	/* no IN endpoint */
		.host = { on_submit, on_cancel, on_frame, on_event, &r },
	};
	struct usb_dongle *d = (struct usb_dongle *)&r;
	char err[128] = "";

	assert_int_equal(usb_dongle_new(&mcs7780_family, &cfg, NULL, &d, err, sizeof err), -EINVAL);
	assert_null(d);
	assert_non_null(strstr(err, "bulk IN"));
	cfg.ep.bulk_in = 0x81;
	cfg.host.cancel = NULL;
	assert_int_equal(usb_dongle_new(&mcs7780_family, &cfg, NULL, &d, err, sizeof err), -EINVAL);
}

static void open_sequence_matches_the_digest(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = new_core(&r, USB_CLEAR_HALT_ENDPOINTS);

	open_from_zero(&r, d);
	assert_int_equal(usb_dongle_open(d, 0), -EALREADY);
	usb_dongle_free(d);
}

/* The open sequence keeps the bits it does not own: a chip that reads
 * MODE 0x8010 (RESET, PARITY) and XCVR 0x0400 (INVTX). */
static void open_keeps_other_bits(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = new_core(&r, USB_CLEAR_HALT_NONE);

	assert_int_equal(usb_dongle_open(d, 0), 0);
	expect_read(&r, d, 0, 0x8119);	/* RESET, PLLPWDN, PARITY, ASK, FIR */
	expect_write(&r, d, 0, 0x8319);
	expect_write(&r, d, 4, 0);
	/* FIR, BBTG/ASK, PLLPWDN cleared; SIR16US, DTD, SIPEN set; 9600 */
	expect_write(&r, d, 0, 0x9632);
	expect_vishay(&r, d, 0x0482);
	expect_write(&r, d, 2, 0x0408 | 0x0000);
	expect_write(&r, d, 0, 0x1632);
	expect_rx_posted(&r);
	rec_nothing_more(&r);
	usb_dongle_free(d);
}

/* Linux sent CLEAR_FEATURE(HALT) to (in & 0x0F) | OUT and (out & 0x0F) |
 * IN; the mode exists to replay that against a device model. */
static void clear_halt_swapped_as_linux(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = new_core(&r, USB_CLEAR_HALT_SWAPPED);

	assert_int_equal(usb_dongle_open(d, 0), 0);
	expect_clear_halt(&r, d, 0x01);
	expect_clear_halt(&r, d, 0x82);
	expect_read(&r, d, 0, 0);
	usb_dongle_free(d);
}

/* A stalled clear-halt is tolerated, a stalled vendor request is not. */
static void stalls_and_short_replies(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = new_core(&r, USB_CLEAR_HALT_ENDPOINTS);

	assert_int_equal(usb_dongle_open(d, 0), 0);
	rec_take(&r);
	rec_complete(d, MCS7780_TAG_CTRL, USB_STATUS_STALL, NULL, 0, 0);
	expect_clear_halt(&r, d, 0x02);
	rec_expect_setup(&r, USB_XFER_CONTROL, MCS7780_TAG_CTRL, "C0 0F 00 00 00 00 02 00");
	rec_complete(d, MCS7780_TAG_CTRL, USB_STATUS_OK, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_FAILED, -EPROTO));	/* 2 bytes expected, 0 came */
	rec_nothing_more(&r);
	usb_dongle_free(d);

	/* one byte, three bytes: both refused */
	for (size_t n = 1; n <= 3; n += 2) {
		d = new_core(&r, USB_CLEAR_HALT_NONE);
		uint8_t three[3] = { 0x22, 0x16, 0x00 };
		assert_int_equal(usb_dongle_open(d, 0), 0);
		rec_take(&r);
		rec_complete(d, MCS7780_TAG_CTRL, USB_STATUS_OK, three, n, 0);
		assert_true(saw_event(&r, USB_EVENT_FAILED, -EPROTO));
		rec_nothing_more(&r);
		usb_dongle_free(d);
	}

	d = new_core(&r, USB_CLEAR_HALT_NONE);
	assert_int_equal(usb_dongle_open(d, 0), 0);
	expect_read(&r, d, 0, 0);
	rec_take(&r);
	rec_complete(d, MCS7780_TAG_CTRL, USB_STATUS_STALL, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_FAILED, -EPIPE));
	assert_false(usb_dongle_can_send(d));
	rec_nothing_more(&r);
	/* close with nothing in flight is immediate */
	assert_int_equal(usb_dongle_close(d, 0), 0);
	assert_true(saw_event(&r, USB_EVENT_CLOSED, 0));
	usb_dongle_free(d);

	d = new_core(&r, USB_CLEAR_HALT_NONE);
	assert_int_equal(usb_dongle_open(d, 0), 0);
	rec_take(&r);
	rec_complete(d, MCS7780_TAG_CTRL, USB_STATUS_NO_DEVICE, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_GONE, -ENODEV));
	usb_dongle_free(d);
}

static void every_speed_matches_the_digest(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		struct rec r;
		struct usb_dongle *d = new_core(&r, USB_CLEAR_HALT_ENDPOINTS);

		open_from_zero(&r, d);
		r.next = r.n_xfers;
		/* the chip reads back what was written at open */
		change_speed(&r, d, 9600, speeds[i].baud, 0x1622, 0x0008);
		/* and back to 9600 */
		unsigned mode = mode_at(0x1622, &speeds[i]);
		change_speed(&r, d, speeds[i].baud, 9600, mode, 0x0008);
		usb_dongle_free(d);
	}
}

/* The digest's example: 115200 -> 4 Mbit/s with MODE read as 0x1682:
 * MINRXPW=5, MODE=0x1603, the Vishay set-up, MODE=0x1603.  (By the
 * register table 0x1682 has 57600's bits, 115200 is 0x16A2; the result
 * is the same.)  Then FIR -> MIR -> SIR, each a class change. */
static void fir_example_and_class_changes(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = new_core(&r, USB_CLEAR_HALT_ENDPOINTS);

	open_from_zero(&r, d);
	change_speed(&r, d, 9600, 115200, 0x1622, 0x0008);
	assert_int_equal(usb_dongle_set_speed(d, 4000000, 0), 0);
	expect_read(&r, d, 7, 0);
	expect_read(&r, d, 0, 0x1682);
	expect_write(&r, d, 4, 5);
	expect_write(&r, d, 0, 0x1603);
	expect_vishay(&r, d, 0x0008);
	expect_write(&r, d, 0, 0x1603);
	rec_nothing_more(&r);
	change_speed(&r, d, 4000000, 1152000, 0x1603, 0x0008);
	change_speed(&r, d, 1152000, 576000, 0x16E2, 0x0008);
	change_speed(&r, d, 576000, 57600, 0x16C2, 0x0008);
	assert_int_equal(usb_dongle_set_speed(d, 12345, 0), -EINVAL);
	assert_int_equal(usb_dongle_set_speed(d, 16000000, 0), -EINVAL);
	usb_dongle_free(d);
}

/* IRINTX: RESV is read until it clears, at most 100 times. */
static void speed_change_waits_for_irintx(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = new_core(&r, USB_CLEAR_HALT_ENDPOINTS);

	open_from_zero(&r, d);
	assert_int_equal(usb_dongle_set_speed(d, 115200, 0), 0);
	expect_read(&r, d, 7, 0x0001);
	expect_read(&r, d, 7, 0x0003);
	expect_read(&r, d, 7, 0x0002);	/* IRINRX alone does not hold it */
	expect_read(&r, d, 0, 0x1622);
	expect_write(&r, d, 0, 0x16A2);
	expect_write(&r, d, 0, 0x16A2);
	rec_nothing_more(&r);

	assert_int_equal(usb_dongle_set_speed(d, 19200, 0), 0);
	assert_int_equal(usb_dongle_set_speed(d, 9600, 0), -EBUSY);
	for (int i = 0; i < 100; i++)
		expect_read(&r, d, 7, 0x0001);
	/* after 100 busy reads it goes on */
	expect_read(&r, d, 0, 0x16A2);
	expect_write(&r, d, 0, 0x1642);
	expect_write(&r, d, 0, 0x1642);
	rec_nothing_more(&r);
	usb_dongle_free(d);
}

/* --- TX ------------------------------------------------------------------------------- */

/* The digest's 14-byte XID command and its vectors. */
static const uint8_t xid[] = { 0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12,
			       0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00 };
static const char xid_sir[] =
	"14 00 C0 FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 46 28 C1";
static const char xid_mir[] = "12 00 FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 46 28";
static const char xid_fir[] = "14 00 FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 64 4D 66 8B";

static void expect_tx(uint32_t baud, const struct usb_tx_frame *f, const char *hex)
{
	uint8_t want[512], got[4400];
	size_t n = rec_parse_hex(hex, want, sizeof want);
	struct wcursor w;

	wcursor_init(&w, got, sizeof got);
	assert_int_equal(mcs7780_tx_frame(baud, f, &w), (int)n);
	assert_memory_equal(got, want, n);
}

static void tx_bytes_match_the_digest(void **state)
{
	(void)state;
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };

	expect_tx(9600, &f, xid_sir);
	expect_tx(115200, &f, xid_sir);
	expect_tx(576000, &f, xid_mir);
	expect_tx(1152000, &f, xid_mir);
	expect_tx(4000000, &f, xid_fir);
	/* XBOFs at MIR/FIR are the chip's business: ignored */
	f.xbofs = 10;
	f.mtt_us = 1000;
	expect_tx(4000000, &f, xid_fir);
	/* SIR: 10 XBOFs + 1 ms at 115200 = ceil(11.52) = 12 more: 22 */
	char hex[256];
	int at = snprintf(hex, sizeof hex, "2A 00");
	for (int i = 0; i < 22; i++)
		at += snprintf(hex + at, sizeof hex - (size_t)at, " FF");
	snprintf(hex + at, sizeof hex - (size_t)at, " %s", xid_sir + 6);
	expect_tx(115200, &f, hex);

	/* at most 163 XBOFs: length 0x14 + 163 */
	f.xbofs = 500;
	uint8_t got[4400];
	struct wcursor w;
	wcursor_init(&w, got, sizeof got);
	assert_int_equal(mcs7780_tx_frame(9600, &f, &w), 0x14 + 163);
	assert_int_equal(got[0], (0x14 + 163) & 0xFF);
	assert_int_equal(got[1], 0);
	assert_int_equal(got[2 + 163], 0xC0);

	/* an escaped byte: 7D 5D for 7D, the length counts the escape */
	const uint8_t esc[] = { 0xFF, 0x7D };
	struct usb_tx_frame e = { .data = esc, .len = sizeof esc };
	wcursor_init(&w, got, sizeof got);
	int n = mcs7780_tx_frame(9600, &e, &w);
	assert_true(n >= 8);
	assert_int_equal(got[0], n);
	assert_int_equal(got[3], 0xFF);
	assert_int_equal(got[4], 0x7D);
	assert_int_equal(got[5], 0x5D);

	/* refused: no A and C, too long, unknown speed, no room */
	struct usb_tx_frame one = { .data = xid, .len = 1 };
	wcursor_init(&w, got, sizeof got);
	assert_int_equal(mcs7780_tx_frame(9600, &one, &w), -EINVAL);
	assert_int_equal(mcs7780_tx_frame(12345, &f, &w), -EINVAL);
	static uint8_t big[2051];
	struct usb_tx_frame huge = { .data = big, .len = sizeof big };
	assert_int_equal(mcs7780_tx_frame(9600, &huge, &w), -EMSGSIZE);
	f.xbofs = 0;
	f.mtt_us = 0;
	wcursor_init(&w, got, 10);
	assert_int_equal(mcs7780_tx_frame(9600, &f, &w), -ENOSPC);
	/* the largest frame fits the core's buffer */
	huge.len = 2050;
	memset(big, 0xC0, sizeof big);	/* every byte escaped */
	static uint8_t tx[MCS7780_TX_MAX];
	wcursor_init(&w, tx, sizeof tx);
	huge.xbofs = 163;
	assert_true(mcs7780_tx_frame(9600, &huge, &w) > 0);
}

/* Through the core: one bulk OUT to 0x02 with the digest's bytes; a
 * speed change asked for meanwhile waits for that frame to complete. */
static void core_sends_then_changes_speed(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = new_core(&r, USB_CLEAR_HALT_ENDPOINTS);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };

	assert_int_equal(usb_dongle_send(d, &f, 0), -EBUSY);	/* not open */
	open_from_zero(&r, d);
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	assert_false(usb_dongle_can_send(d));
	assert_int_equal(usb_dongle_send(d, &f, 0), -EBUSY);
	const struct rec_xfer *t = rec_take(&r);
	uint8_t want[64];
	size_t n = rec_parse_hex(xid_sir, want, sizeof want);
	assert_int_equal(t->x.type, USB_XFER_BULK);
	assert_int_equal(t->x.tag, MCS7780_TAG_TX);
	assert_int_equal(t->x.endpoint, 0x02);
	assert_int_equal(t->x.length, n);
	assert_memory_equal(t->data, want, n);

	assert_int_equal(usb_dongle_set_speed(d, 57600, 0), 0);
	rec_nothing_more(&r);	/* nothing until the frame has left */
	rec_complete(d, MCS7780_TAG_TX, USB_STATUS_OK, NULL, n, 0);
	assert_true(saw_event(&r, USB_EVENT_TX_DONE, 0));
	assert_false(usb_dongle_can_send(d));
	expect_read(&r, d, 7, 0);
	expect_read(&r, d, 0, 0x1622);
	expect_write(&r, d, 0, 0x1682);
	expect_write(&r, d, 0, 0x1682);
	rec_nothing_more(&r);
	assert_true(saw_event(&r, USB_EVENT_SPEED, 0));
	assert_true(usb_dongle_can_send(d));
	assert_int_equal(usb_dongle_counters(d)->tx_frames, 1);

	/* a frame that failed still frees the slot */
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	rec_take(&r);
	rec_complete(d, MCS7780_TAG_TX, USB_STATUS_TIMEOUT, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_TX_DONE, -ETIMEDOUT));
	assert_true(usb_dongle_can_send(d));
	usb_dongle_free(d);
}

/* --- RX -------------------------------------------------------------------------------- */

/* Parses hex (at baud) from a heap copy of exactly its length, so that
 * ASan sees any read past the transfer. */
static int parse_rx(uint32_t baud, const uint8_t *bytes, size_t n, uint8_t *frame, size_t cap)
{
	uint8_t *copy = malloc(n ? n : 1);
	assert_non_null(copy);
	if (n)
		memcpy(copy, bytes, n);
	struct cursor in;
	struct wcursor out;
	cursor_init(&in, copy, n);
	wcursor_init(&out, frame, cap);
	int rc = mcs7780_rx_frame(baud, &in, &out);
	free(copy);
	return rc;
}

static int parse_rx_hex(uint32_t baud, const char *hex, uint8_t *frame, size_t cap)
{
	uint8_t b[64];
	size_t n = rec_parse_hex(hex, b, sizeof b);

	return parse_rx(baud, b, n, frame, cap);
}

static void rx_good_frames(void **state)
{
	(void)state;
	uint8_t frame[MCS7780_FRAME_MAX + MCS7780_FCS_MAX];

	/* SIR: the chip keeps escapes and FCS, drops BOF and EOF */
	assert_int_equal(parse_rx_hex(115200, xid_sir + 9, frame, sizeof frame), -EPROTO);
	char sir[80];
	snprintf(sir, sizeof sir, "%.47s", xid_sir + 9);	/* without the C1 */
	assert_int_equal(parse_rx_hex(115200, sir, frame, sizeof frame), 14);
	assert_memory_equal(frame, xid, 14);
	assert_int_equal(parse_rx_hex(576000, xid_mir + 6, frame, sizeof frame), 14);
	assert_memory_equal(frame, xid, 14);
	assert_int_equal(parse_rx_hex(4000000, xid_fir + 6, frame, sizeof frame), 14);
	assert_memory_equal(frame, xid, 14);

	/* escapes: a frame holding C0, C1 and 7D, FCS computed by fcs.c */
	uint8_t raw[] = { 0x03, 0x93, 0xC0, 0xC1, 0x7D, 0x00, 0, 0 };
	uint16_t fcs = fcs_compute(raw, 6);
	raw[6] = (uint8_t)(fcs & 0xFF);
	raw[7] = (uint8_t)(fcs >> 8);
	uint8_t wire[16];
	size_t n = 0;
	for (size_t i = 0; i < sizeof raw; i++) {
		if (raw[i] == 0xC0 || raw[i] == 0xC1 || raw[i] == 0x7D) {
			wire[n++] = 0x7D;
			wire[n++] = raw[i] ^ 0x20;
		} else {
			wire[n++] = raw[i];
		}
	}
	assert_int_equal(parse_rx(9600, wire, n, frame, sizeof frame), 6);
	assert_memory_equal(frame, raw, 6);
}

static void rx_malformed_transfers_are_refused(void **state)
{
	(void)state;
	uint8_t frame[MCS7780_FRAME_MAX + MCS7780_FCS_MAX];
	static const struct {
		uint32_t baud;
		const char *hex;
		int rc;
	} bad[] = {
		{ 9600, "", -ENODATA },
		{ 4000000, "", -ENODATA },
		{ 9600, "FF 3F 01", -EPROTO },				/* under A, C, FCS */
		{ 9600, "7D", -EPROTO },				/* CE at the end */
		{ 9600, "FF 3F 7D 7D 46 28", -EPROTO },			/* CE CE */
		{ 9600, "FF 3F 7D C1 46 28", -EPROTO },			/* CE EOF */
		{ 9600, "FF 3F C0 01 46 28", -EPROTO },			/* BOF inside */
		{ 9600, "FF 3F 01 C1 46 28", -EPROTO },			/* EOF inside */
		{ 9600, "FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 46 29", -EBADMSG },
		{ 1152000, "FF 3F 01", -EPROTO },
		{ 1152000, "FF 3F 01 78 56 34 12 FF FF FF FF 01 00 01 46 28", -EBADMSG },
		{ 4000000, "FF 3F 64 4D 66", -EPROTO },			/* under A, C, CRC-32 */
		{ 4000000, "FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 64 4D 66 8C", -EBADMSG },
		{ 4000000, "FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 46 28", -EBADMSG },
		{ 12345, "FF 3F 01 46 28", -EINVAL },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse_rx_hex(bad[i].baud, bad[i].hex, frame, sizeof frame);
		if (rc != bad[i].rc)
			fail_msg("%u \"%s\": %d, expected %d", bad[i].baud, bad[i].hex, rc, bad[i].rc);
	}
	/* too long for the frame buffer, at each class */
	static uint8_t big[MCS7780_RX_LEN];
	memset(big, 0x55, sizeof big);
	assert_int_equal(parse_rx(9600, big, sizeof big, frame, sizeof frame), -EMSGSIZE);
	assert_int_equal(parse_rx(576000, big, sizeof big, frame, sizeof frame), -EMSGSIZE);
	assert_int_equal(parse_rx(4000000, big, sizeof big, frame, sizeof frame), -EMSGSIZE);
	/* a buffer exactly the frame + FCS is enough; one byte less is not */
	assert_int_equal(parse_rx_hex(4000000, xid_fir + 6, frame, 18), 14);
	assert_int_equal(parse_rx_hex(4000000, xid_fir + 6, frame, 17), -EMSGSIZE);
	assert_int_equal(parse_rx_hex(576000, xid_mir + 6, frame, 15), -EMSGSIZE);
}

/* Through the core: frames delivered at the current speed, bad ones
 * counted and reported as media busy, the IN transfer always re-posted;
 * a failed IN transfer is retried 10 ms later from the tick. */
static void core_receives(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = new_core(&r, USB_CLEAR_HALT_ENDPOINTS);
	uint8_t b[64];

	open_from_zero(&r, d);
	size_t n = rec_parse_hex(xid_sir + 9, b, sizeof b) - 1;
	rec_complete(d, MCS7780_TAG_RX, USB_STATUS_OK, b, n, 1234);
	assert_int_equal(r.n_frames, 1);
	assert_int_equal(r.frame_len, 14);
	assert_memory_equal(r.frame, xid, 14);
	assert_int_equal(r.frame_baud, 9600);
	expect_rx_posted(&r);

	rec_complete(d, MCS7780_TAG_RX, USB_STATUS_OK, b, 0, 1300);
	expect_rx_posted(&r);
	b[3] ^= 1;
	rec_complete(d, MCS7780_TAG_RX, USB_STATUS_OK, b, n, 1400);
	assert_true(saw_event(&r, USB_EVENT_MEDIA_BUSY, -EBADMSG));
	expect_rx_posted(&r);
	rec_complete(d, MCS7780_TAG_RX, USB_STATUS_OK, b, 3, 1500);
	assert_true(saw_event(&r, USB_EVENT_MEDIA_BUSY, -EPROTO));
	expect_rx_posted(&r);
	const struct usb_dongle_counters *c = usb_dongle_counters(d);
	assert_int_equal(c->rx_frames, 1);
	assert_int_equal(c->rx_empty, 1);
	assert_int_equal(c->rx_fcs_errors, 1);
	assert_int_equal(c->rx_malformed, 1);
	assert_int_equal(r.n_frames, 1);

	/* an error: no new transfer now, one 10 ms later */
	assert_int_equal(usb_dongle_deadline(d), USB_NO_DEADLINE);
	rec_complete(d, MCS7780_TAG_RX, USB_STATUS_ERROR, NULL, 0, 2000);
	assert_int_equal(usb_dongle_deadline(d), 12000);
	usb_dongle_tick(d, 11999);
	rec_nothing_more(&r);
	usb_dongle_tick(d, 12000);
	expect_rx_posted(&r);
	assert_int_equal(usb_dongle_deadline(d), USB_NO_DEADLINE);
	assert_int_equal(c->xfer_errors, 1);

	/* a completion nobody asked for is ignored */
	rec_complete(d, MCS7780_TAG_TX, USB_STATUS_OK, NULL, 0, 2100);
	rec_complete(d, 99, USB_STATUS_OK, NULL, 0, 2100);
	rec_nothing_more(&r);

	/* the device goes away */
	rec_complete(d, MCS7780_TAG_RX, USB_STATUS_NO_DEVICE, NULL, 0, 3000);
	assert_true(saw_event(&r, USB_EVENT_GONE, -ENODEV));
	rec_nothing_more(&r);
	usb_dongle_free(d);
}

/* Close cancels what is in flight and says CLOSED once it is all back. */
static void close_waits_for_cancelled_transfers(void **state)
{
	(void)state;
	struct rec r;
	struct usb_dongle *d = new_core(&r, USB_CLEAR_HALT_ENDPOINTS);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid };

	open_from_zero(&r, d);
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	rec_take(&r);
	assert_int_equal(usb_dongle_close(d, 0), 0);
	assert_int_equal(r.n_cancelled, 2);
	assert_int_equal(usb_dongle_close(d, 0), -EINPROGRESS);
	rec_complete(d, MCS7780_TAG_RX, USB_STATUS_CANCELLED, NULL, 0, 0);
	assert_false(saw_event(&r, USB_EVENT_CLOSED, 0));
	rec_complete(d, MCS7780_TAG_TX, USB_STATUS_CANCELLED, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_CLOSED, 0));
	rec_nothing_more(&r);
	assert_false(usb_dongle_can_send(d));
	/* and it opens again */
	r.n_ev = 0;
	r.n_xfers = r.next = 0;
	open_from_zero(&r, d);
	usb_dongle_free(d);
}

static void helpers(void **state)
{
	(void)state;
	/* CRC-32 check value and the digest's XID CRC */
	assert_int_equal(fcs32_compute("123456789", 9), 0xCBF43926u);
	assert_int_equal(fcs32_compute(xid, sizeof xid), 0x8B664D64u);
	assert_int_equal(usb_baud_bit(2400), 0x001);
	assert_int_equal(usb_baud_bit(4000000), 0x100);
	assert_int_equal(usb_baud_bit(1200), 0);
	assert_int_equal(usb_status_errno(USB_STATUS_STALL), -EPIPE);
	assert_int_equal(usb_status_errno(USB_STATUS_NO_DEVICE), -ENODEV);
	assert_string_equal(usb_status_name(USB_STATUS_TIMEOUT), "timeout");
	assert_string_equal(usb_dongle_event_name(USB_EVENT_GONE), "gone");
	assert_int_equal(mcs7780_mode_for_speed(0xFFFF, 4000000), 0xFF1F);
	assert_int_equal(mcs7780_mode_for_speed(0x0001, 1152000), 0x00E0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry_knows_the_chip),
		cmocka_unit_test(create_refuses_missing_endpoints),
		cmocka_unit_test(open_sequence_matches_the_digest),
		cmocka_unit_test(open_keeps_other_bits),
		cmocka_unit_test(clear_halt_swapped_as_linux),
		cmocka_unit_test(stalls_and_short_replies),
		cmocka_unit_test(every_speed_matches_the_digest),
		cmocka_unit_test(fir_example_and_class_changes),
		cmocka_unit_test(speed_change_waits_for_irintx),
		cmocka_unit_test(tx_bytes_match_the_digest),
		cmocka_unit_test(core_sends_then_changes_speed),
		cmocka_unit_test(rx_good_frames),
		cmocka_unit_test(rx_malformed_transfers_are_refused),
		cmocka_unit_test(core_receives),
		cmocka_unit_test(close_waits_for_cancelled_transfers),
		cmocka_unit_test(helpers),
	};
	return cmocka_run_group_tests_name("usb_mcs7780", tests, NULL, NULL);
}
