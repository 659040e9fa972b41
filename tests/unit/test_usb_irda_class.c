/*
 * test_usb_irda_class.c: the USB IrDA Bridge class core against
 * usb-irda-digest 2.1.
 *
 * The expectations are written here from the digest, not from the core:
 * the GET_CLASS_DESC setup `A1 06 00 00 <ifnum> 00 0C 00`, the synthetic
 * descriptor of digest 4.2 and others built here, the header test
 * vectors (0x32, 0x06, 0x89, 0x87, 0x00) and the speed and BOF code
 * lists, and the RX header (bit 7 media busy).  The host records each
 * transfer; the test checks them in order and answers.
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

#include "irda_class.h"
#include "usb_dongle.h"

#include "usb_rec.h"


/* digest 4.2's synthetic descriptor: every speed 2400..4M, all data
 * sizes, windows 1..7, min turnaround 10/5/1 ms, 0 extra BOFs */
static const uint8_t desc_42[] = {
	0x0C, 0x21, 0x00, 0x01, 0x3F, 0x7F, 0x07, 0xFF, 0x01, 0x80, 0x00, 0x00,
};
/* a SIR-only device: 2400..115200, 64/128 bytes, window 1, 1 ms only */
static const uint8_t desc_sir[] = {
	0x0C, 0x21, 0x00, 0x01, 0x03, 0x01, 0x04, 0x3F, 0x00, 0x04, 0x01, 0x00,
};

#define IFNUM 3

static struct usb_dongle *new_core_id(struct rec *r, uint16_t vid, uint16_t pid)
{
	memset(r, 0, sizeof(*r));
	struct usb_dongle_config cfg = {
		.ep = { .bulk_in = 0x81, .bulk_out = 0x02, .in_max_packet = 64, .out_max_packet = 64 },
		.host = { on_submit, on_cancel, on_frame, on_event, r },
		.interface = IFNUM,
	};
	const struct usb_id *id = NULL;
	const struct usb_family *f = usb_family_match(vid, pid, 0xFE, 0x02, &id);
	assert_non_null(f);
	assert_string_equal(f->name, "irda-class");
	struct usb_dongle *d;
	char err[160];
	assert_int_equal(usb_dongle_new(f, &cfg, id, &d, err, sizeof err), 0);
	return d;
}

static struct usb_dongle *new_core(struct rec *r)
{
	return new_core_id(r, 0x1234, 0x5678);
}

/* --- expectations --------------------------------------------------------------- */

/* The next transfer is a bulk OUT on 0x02 of exactly these bytes. */
static void expect_out(struct rec *r, const uint8_t *want, size_t n, bool zlp)
{
	const struct rec_xfer *t = rec_take(r);

	assert_int_equal(t->x.type, USB_XFER_BULK);
	assert_int_equal(t->x.tag, IRDA_CLASS_TAG_TX);
	assert_int_equal(t->x.endpoint, 0x02);
	assert_int_equal(t->x.length, n);
	assert_memory_equal(t->data, want, n < 256 ? n : 256);
	assert_int_equal(t->x.flags & USB_XFER_ZERO_PACKET, zlp ? USB_XFER_ZERO_PACKET : 0);
}

/* A header-only frame (a speed change), completed. */
static void expect_header_only(struct rec *r, struct usb_dongle *d, uint8_t hdr)
{
	expect_out(r, &hdr, 1, false);
	rec_complete(d, IRDA_CLASS_TAG_TX, USB_STATUS_OK, NULL, 1, 0);
}

static void expect_rx_posted(struct rec *r)
{
	const struct rec_xfer *t = rec_take(r);

	assert_int_equal(t->x.type, USB_XFER_BULK);
	assert_int_equal(t->x.tag, IRDA_CLASS_TAG_RX);
	assert_int_equal(t->x.endpoint, 0x81);
	assert_true(t->x.length >= 1 + 2 + 2048);
}

/* digest: `A1 06 00 00 <ifnum> 00 0C 00`, 500 ms */
static void expect_get_desc(struct rec *r)
{
	uint8_t got[8], want[8] = { 0xA1, 0x06, 0x00, 0x00, IFNUM, 0x00, 0x0C, 0x00 };
	const struct rec_xfer *t = rec_take(r);

	assert_int_equal(t->x.type, USB_XFER_CONTROL);
	assert_int_equal(t->x.tag, IRDA_CLASS_TAG_CTRL);
	assert_int_equal(t->x.timeout_ms, 500);
	usb_setup_pack(&t->x.setup, got);
	assert_memory_equal(got, want, 8);
}

/* Open with desc: GET_CLASS_DESC, then 9600 + 12 BOFs = 0x32 (Linux's
 * first frame, [RUN]), then the IN transfer and OPENED. */
static void open_with(struct rec *r, struct usb_dongle *d, const uint8_t *desc, size_t n)
{
	assert_int_equal(usb_dongle_open(d, 0), 0);
	assert_false(usb_dongle_can_send(d));
	expect_get_desc(r);
	rec_complete(d, IRDA_CLASS_TAG_CTRL, USB_STATUS_OK, desc, n, 0);
	expect_header_only(r, d, 0x32);
	expect_rx_posted(r);
	rec_nothing_more(r);
	assert_true(saw_event(r, USB_EVENT_OPENED, 0));
	assert_int_equal(d->baud, 9600);
	assert_true(usb_dongle_can_send(d));
}

/* A core opened with digest 4.2's descriptor. */
static struct usb_dongle *opened_core(struct rec *r)
{
	struct usb_dongle *d = new_core(r);
	open_with(r, d, desc_42, sizeof desc_42);
	return d;
}

/* --- tests ------------------------------------------------------------------------ */

static void registry_matches_class_and_ids(void **state)
{
	const struct usb_id *id = (const void *)1;
	(void)state;
	const struct usb_family *f = usb_family_match(0xAAAA, 0xBBBB, 0xFE, 0x02, &id);
	assert_non_null(f);
	assert_string_equal(f->name, "irda-class");
	assert_null(id);
	assert_null(usb_family_match(0xAAAA, 0xBBBB, 0xFE, 0x01, NULL));
	static const uint16_t ids[][2] = {
		{ 0x09c4, 0x0011 }, { 0x4428, 0x0012 }, { 0x050f, 0x0180 }, { 0x08e9, 0x0100 },
		{ 0x066f, 0x4210 }, { 0x066f, 0x4220 }, { 0x066f, 0x4116 },
	};
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		f = usb_family_match(ids[i][0], ids[i][1], 0xFF, 0, &id);
		assert_ptr_equal(f, &irda_class_family);
		assert_non_null(id);
	}
	/* STIr4200 is not a class device (it has its own family); MCS7780
	 * keeps its own family */
	assert_string_equal(usb_family_match(0x066f, 0x4200, 0xFF, 0, NULL)->name, "stir4200");
	assert_string_equal(usb_family_match(0x9710, 0x7780, 0xFE, 0x02, NULL)->name, "mcs7780");
	assert_ptr_equal(usb_family_by_name("irda-class"), &irda_class_family);
}

static void stir421x_refused_naming_firmware(void **state)
{
	(void)state;
	struct usb_dongle_config cfg = {
		.ep = { .bulk_in = 0x81, .bulk_out = 0x02 },
		.host = { on_submit, on_cancel, on_frame, on_event, NULL },
	};
	const struct usb_id *id;
	const struct usb_family *f = usb_family_match(0x066f, 0x4210, 0xFE, 0x02, &id);
	struct usb_dongle *d = (void *)1;
	char err[200];
	assert_int_equal(usb_dongle_new(f, &cfg, id, &d, err, sizeof err), -ENOTSUP);
	assert_null(d);
	assert_non_null(strstr(err, "firmware"));
	assert_non_null(strstr(err, ".sb"));
	assert_non_null(strstr(err, "066f:4210"));
}

static void create_refuses_missing_endpoints(void **state)
{
	(void)state;
	struct usb_dongle_config cfg = {
		.ep = { .bulk_in = 0x01, .bulk_out = 0x02 },
		.host = { on_submit, on_cancel, on_frame, on_event, NULL },
	};
	struct usb_dongle *d;
	char err[160];
	assert_int_equal(usb_dongle_new(&irda_class_family, &cfg, NULL, &d, err, sizeof err),
			 -EINVAL);
	assert_non_null(strstr(err, "bulk IN"));
}

static void descriptor_42_gives_its_qos(void **state)
{
	(void)state;
	struct cursor in;
	struct irda_class_desc desc;
	char why[96];
	cursor_init(&in, desc_42, sizeof desc_42);
	assert_int_equal(irda_class_parse_desc(&in, &desc, why, sizeof why), 0);
	assert_int_equal(desc.spec_revision, 0x0100);
	assert_int_equal(desc.data_sizes, 0x3F);
	assert_int_equal(desc.window_sizes, 0x7F);
	assert_int_equal(desc.min_tat, 0x07);
	assert_int_equal(desc.baud_rates, 0x01FF);
	assert_int_equal(desc.xbofs, 0x80);
	struct usb_dongle_qos q = irda_class_qos_of(&desc, 0);
	assert_int_equal(q.baud_bits, 0x01FF);
	assert_int_equal(q.min_tat_bits, 0x07);
	assert_int_equal(q.window_bits, 0x7F);
	assert_int_equal(q.data_size_bits, 0x3F);
	assert_int_equal(q.xbof_bits, 0x80);
	/* IUC_NO_WINDOW: window 1 */
	assert_int_equal(irda_class_qos_of(&desc, IRDA_CLASS_NO_WINDOW).window_bits, 0x01);
	/* Linux's 16 Mbit bit 9 is dropped: this stack has no such speed */
	desc.baud_rates = 0x03FF;
	assert_int_equal(irda_class_qos_of(&desc, 0).baud_bits, 0x01FF);
}

/* Each parsed from a heap copy of exactly its length, so a read past
 * it shows under the sanitizers. */
static void malformed_descriptors(void **state)
{
	(void)state;
	static const struct { const char *name; uint8_t b[13]; size_t n; const char *why; } t[] = {
		{ "empty", { 0 }, 0, "0 bytes" },
		{ "one byte", { 0x0C }, 1, "1 bytes" },
		{ "11 bytes", { 0x0C, 0x21, 0, 1, 0x3F, 0x7F, 7, 0xFF, 1, 0x80, 0 }, 11, "11 bytes" },
		{ "type 0x22", { 0x0C, 0x22, 0, 1, 0x3F, 0x7F, 7, 0xFF, 1, 0x80, 0, 0 }, 12, "type" },
		{ "bLength 11", { 0x0B, 0x21, 0, 1, 0x3F, 0x7F, 7, 0xFF, 1, 0x80, 0, 0 }, 12, "bLength" },
		{ "no 9600", { 0x0C, 0x21, 0, 1, 0x3F, 0x7F, 7, 0xFD, 1, 0x80, 0, 0 }, 12, "9600" },
		{ "no data size", { 0x0C, 0x21, 0, 1, 0x00, 0x7F, 7, 0xFF, 1, 0x80, 0, 0 }, 12, "data size" },
		{ "no window", { 0x0C, 0x21, 0, 1, 0x3F, 0x80, 7, 0xFF, 1, 0x80, 0, 0 }, 12, "window" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		uint8_t *copy = malloc(t[i].n ? t[i].n : 1);
		assert_non_null(copy);
		memcpy(copy, t[i].b, t[i].n);
		struct cursor in;
		struct irda_class_desc desc;
		char why[96] = "";
		cursor_init(&in, copy, t[i].n);
		int rc = irda_class_parse_desc(&in, &desc, why, sizeof why);
		if (rc != -EPROTO || !strstr(why, t[i].why))
			fail_msg("%s: rc %d, why '%s'", t[i].name, rc, why);
		free(copy);
	}
	/* a longer bLength (later revisions) is accepted */
	uint8_t longer[13] = { 0x0D, 0x21, 0, 1, 0x3F, 0x7F, 7, 0xFF, 1, 0x80, 0, 0, 0x55 };
	struct cursor in;
	struct irda_class_desc desc;
	char why[96];
	cursor_init(&in, longer, sizeof longer);
	assert_int_equal(irda_class_parse_desc(&in, &desc, why, sizeof why), 0);
}

static void open_sequence(void **state)
{
	struct rec r;
	(void)state;
	struct usb_dongle *d = opened_core(&r);
	struct usb_dongle_qos q = irda_class_qos(d);
	assert_int_equal(q.baud_bits, 0x01FF);
	assert_int_equal(q.min_tat_bits, 0x07);
	assert_int_equal(usb_dongle_open(d, 0), -EALREADY);
	usb_dongle_free(d);
}

static void open_refuses_bad_descriptor(void **state)
{
	struct rec r;
	(void)state;
	struct usb_dongle *d = new_core(&r);
	assert_int_equal(usb_dongle_open(d, 0), 0);
	expect_get_desc(&r);
	uint8_t *shortd = malloc(5);
	assert_non_null(shortd);
	memcpy(shortd, desc_42, 5);
	rec_complete(d, IRDA_CLASS_TAG_CTRL, USB_STATUS_OK, shortd, 5, 0);
	free(shortd);
	rec_nothing_more(&r);
	assert_true(saw_event(&r, USB_EVENT_FAILED, -EPROTO));
	assert_false(saw_event(&r, USB_EVENT_OPENED, 0));
	assert_int_equal(usb_dongle_close(d, 0), 0);
	assert_true(saw_event(&r, USB_EVENT_CLOSED, 0));
	usb_dongle_free(d);

	/* a stalled request (no class descriptor): failed, with -EPIPE */
	d = new_core(&r);
	assert_int_equal(usb_dongle_open(d, 0), 0);
	expect_get_desc(&r);
	rec_complete(d, IRDA_CLASS_TAG_CTRL, USB_STATUS_STALL, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_FAILED, -EPIPE));
	usb_dongle_free(d);
}

static void header_vectors(void **state)
{
	(void)state;
	/* digest 2.1 test vectors */
	assert_int_equal(irda_class_header(irda_class_speed_code(9600), irda_class_xbof_code(12)),
			 0x32);
	assert_int_equal(irda_class_header(irda_class_speed_code(115200), 0), 0x06);
	assert_int_equal(irda_class_header(irda_class_speed_code(4000000), irda_class_xbof_code(0)),
			 0x89);
	assert_int_equal(irda_class_header(irda_class_speed_code(576000), irda_class_xbof_code(0)),
			 0x87);
	assert_int_equal(irda_class_header(0, 0), 0x00);
	/* the speed codes: 1 2400 ... 9 4M; none for others */
	static const uint32_t speeds[] = {
		2400, 9600, 19200, 38400, 57600, 115200, 576000, 1152000, 4000000,
	};
	for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
		assert_int_equal(irda_class_speed_code(speeds[i]), i + 1);
	assert_int_equal(irda_class_speed_code(1200), 0);
	assert_int_equal(irda_class_speed_code(16000000), 0);
	/* the BOF codes: 1 = 48, 2 = 24, 3 = 12, 4 = 6, 5 = 3, 6 = 2, 7 = 1, 8 = 0;
	 * 5 maps with 6 (SPEC 0.9b); others round up */
	static const struct { uint32_t n; uint8_t code; } xb[] = {
		{ 48, 1 }, { 24, 2 }, { 12, 3 }, { 6, 4 }, { 5, 4 }, { 3, 5 }, { 2, 6 }, { 1, 7 },
		{ 0, 8 }, { 10, 3 }, { 28, 1 }, { 100, 1 }, { 13, 2 },
	};
	for (size_t i = 0; i < sizeof xb / sizeof xb[0]; i++)
		if (irda_class_xbof_code(xb[i].n) != xb[i].code)
			fail_msg("%u BOFs: code %u, expected %u", xb[i].n,
				 irda_class_xbof_code(xb[i].n), xb[i].code);
}

/* Every speed the descriptor lists: one header-only frame, SPEED after it. */
static void every_speed_change(void **state)
{
	struct rec r;
	(void)state;
	static const struct { uint32_t baud; uint8_t hdr; } t[] = {
		{ 2400, 0x01 }, { 19200, 0x03 }, { 38400, 0x04 }, { 57600, 0x05 },
		{ 115200, 0x06 }, { 576000, 0x07 }, { 1152000, 0x08 }, { 4000000, 0x89 },
		{ 9600, 0x02 },
	};
	struct usb_dongle *d = new_core(&r);
	open_with(&r, d, desc_42, sizeof desc_42);
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		size_t ev = r.n_ev;
		assert_int_equal(usb_dongle_set_speed(d, t[i].baud, 0), 0);
		assert_false(usb_dongle_can_send(d));
		assert_int_equal(usb_dongle_set_speed(d, t[i].baud, 0), -EBUSY);
		expect_header_only(&r, d, t[i].hdr);
		assert_int_equal(r.n_ev, ev + 1);
		assert_int_equal(r.ev[ev], USB_EVENT_SPEED);
		assert_int_equal(d->baud, t[i].baud);
		assert_true(usb_dongle_can_send(d));
	}
	rec_nothing_more(&r);
	usb_dongle_free(d);
}

static void speed_not_in_descriptor_refused(void **state)
{
	struct rec r;
	(void)state;
	struct usb_dongle *d = new_core(&r);
	open_with(&r, d, desc_sir, sizeof desc_sir);
	assert_int_equal(irda_class_qos(d).baud_bits, 0x003F);
	assert_int_equal(irda_class_qos(d).min_tat_bits, 0x04);
	assert_int_equal(usb_dongle_set_speed(d, 4000000, 0), -EINVAL);
	assert_int_equal(usb_dongle_set_speed(d, 576000, 0), -EINVAL);
	assert_int_equal(usb_dongle_set_speed(d, 115200, 0), 0);
	expect_header_only(&r, d, 0x06);
	usb_dongle_free(d);
}

static const uint8_t xid[] = {
	0xFF, 0x3F, 0x01, 0x35, 0x3F, 0xEB, 0x95, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00,
};

static void tx_bytes_and_zlp(void **state)
{
	struct rec r;
	(void)state;
	struct usb_dongle *d = opened_core(&r);
	/* the digest's [RUN] XID after open: header (12 BOFs kept: 0), no FCS.
	 * 10 BOFs (IrLAP's default) round up to 12, which the device has. */
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid, .xbofs = 10, .mtt_us = 0 };
	uint8_t want[2100];
	want[0] = 0x00;
	memcpy(want + 1, xid, sizeof xid);
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	assert_int_equal(usb_dongle_send(d, &f, 0), -EBUSY);
	expect_out(&r, want, 1 + sizeof xid, false);
	rec_complete(d, IRDA_CLASS_TAG_TX, USB_STATUS_OK, NULL, 15, 0);
	assert_true(saw_event(&r, USB_EVENT_TX_DONE, 0));
	assert_int_equal(usb_dongle_counters(d)->tx_frames, 1);

	/* a BOF change rides in the data header: 24 BOFs = code 2 */
	f.xbofs = 24;
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	want[0] = 0x20;
	expect_out(&r, want, 1 + sizeof xid, false);
	rec_complete(d, IRDA_CLASS_TAG_TX, USB_STATUS_OK, NULL, 15, 0);

	/* 63 bytes + header = 64 = wMaxPacketSize: ZLP; 127 + 1 too */
	static uint8_t big[2050];
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)i;
	static const struct { size_t len; bool zlp; } z[] = {
		{ 63, true }, { 64, false }, { 127, true }, { 2, false }, { 2050, false }, { 2047, true },
	};
	for (size_t i = 0; i < sizeof z / sizeof z[0]; i++) {
		struct usb_tx_frame g = { .data = big, .len = z[i].len, .xbofs = 24 };
		assert_int_equal(usb_dongle_send(d, &g, 0), 0);
		want[0] = 0x00;
		memcpy(want + 1, big, z[i].len);
		expect_out(&r, want, 1 + z[i].len, z[i].zlp);
		rec_complete(d, IRDA_CLASS_TAG_TX, USB_STATUS_OK, NULL, 1 + z[i].len, 0);
	}
	/* too short, too long */
	struct usb_tx_frame bad = { .data = big, .len = 1 };
	assert_int_equal(usb_dongle_send(d, &bad, 0), -EINVAL);
	bad.len = 2051;
	assert_int_equal(usb_dongle_send(d, &bad, 0), -EMSGSIZE);
	rec_nothing_more(&r);
	usb_dongle_free(d);
}

static void speed_change_waits_for_frame(void **state)
{
	struct rec r;
	(void)state;
	struct usb_dongle *d = opened_core(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid, .xbofs = 12 };
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	assert_int_equal(usb_dongle_set_speed(d, 115200, 0), 0);
	uint8_t want[16] = { 0x00 };
	memcpy(want + 1, xid, sizeof xid);
	expect_out(&r, want, 15, false);
	rec_nothing_more(&r);	/* the speed frame waits */
	rec_complete(d, IRDA_CLASS_TAG_TX, USB_STATUS_OK, NULL, 15, 0);
	assert_false(usb_dongle_can_send(d));
	expect_header_only(&r, d, 0x06);
	assert_true(saw_event(&r, USB_EVENT_SPEED, 0));
	assert_int_equal(d->baud, 115200);
	/* at 4 Mbit the header carries 0 BOFs and data frames no BOF code */
	assert_int_equal(usb_dongle_set_speed(d, 4000000, 0), 0);
	expect_header_only(&r, d, 0x89);
	f.xbofs = 48;
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	expect_out(&r, want, 15, false);
	usb_dongle_free(d);
}

static void rx_good_frames(void **state)
{
	struct rec r;
	(void)state;
	struct usb_dongle *d = opened_core(&r);
	uint8_t in[16] = { 0x02 };	/* 9600, not busy */
	memcpy(in + 1, xid, sizeof xid);
	rec_complete(d, IRDA_CLASS_TAG_RX, USB_STATUS_OK, in, 15, 77);
	assert_int_equal(r.n_frames, 1);
	assert_int_equal(r.frame_len, sizeof xid);
	assert_memory_equal(r.frame, xid, sizeof xid);
	assert_int_equal(r.frame_baud, 9600);
	assert_false(saw_event(&r, USB_EVENT_MEDIA_BUSY, 0));
	expect_rx_posted(&r);
	/* media busy on a frame and on a header-only status transfer */
	in[0] = 0x82;
	rec_complete(d, IRDA_CLASS_TAG_RX, USB_STATUS_OK, in, 15, 78);
	assert_int_equal(r.n_frames, 2);
	assert_true(saw_event(&r, USB_EVENT_MEDIA_BUSY, 0));
	expect_rx_posted(&r);
	r.n_ev = 0;
	rec_complete(d, IRDA_CLASS_TAG_RX, USB_STATUS_OK, in, 1, 79);
	assert_int_equal(r.n_frames, 2);
	assert_true(saw_event(&r, USB_EVENT_MEDIA_BUSY, 0));
	assert_int_equal(usb_dongle_counters(d)->rx_empty, 1);
	expect_rx_posted(&r);
	/* a failed IN transfer goes out again 10 ms later */
	rec_complete(d, IRDA_CLASS_TAG_RX, USB_STATUS_ERROR, NULL, 0, 1000);
	rec_nothing_more(&r);
	assert_int_equal(usb_dongle_deadline(d), 11000);
	usb_dongle_tick(d, 10999);
	rec_nothing_more(&r);
	usb_dongle_tick(d, 11000);
	expect_rx_posted(&r);
	usb_dongle_free(d);
}

/* Each parsed from a heap copy of exactly its length. */
static void rx_malformed_transfers(void **state)
{
	(void)state;
	static uint8_t big[2052];
	static const struct { const char *name; size_t n; int rc; } t[] = {
		{ "empty", 0, -ENODATA },
		{ "header only", 1, -ENODATA },
		{ "one byte frame", 2, -EPROTO },
		{ "largest frame", 1 + 2050, 2050 },
		{ "one byte over", 1 + 2051, -EMSGSIZE },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		uint8_t *copy = malloc(t[i].n ? t[i].n : 1);
		assert_non_null(copy);
		memcpy(copy, big, t[i].n);
		struct cursor in;
		struct irda_class_rx rx;
		cursor_init(&in, copy, t[i].n);
		int rc = irda_class_rx_frame(&in, &rx);
		if (rc != t[i].rc)
			fail_msg("%s: %d, expected %d", t[i].name, rc, t[i].rc);
		free(copy);
	}
	/* through the core: counted, and MEDIA_BUSY with the error */
	struct rec r;
	struct usb_dongle *d = new_core(&r);
	open_with(&r, d, desc_42, sizeof desc_42);
	rec_complete(d, IRDA_CLASS_TAG_RX, USB_STATUS_OK, big, 2, 0);
	assert_int_equal(usb_dongle_counters(d)->rx_malformed, 1);
	assert_true(saw_event(&r, USB_EVENT_MEDIA_BUSY, -EPROTO));
	expect_rx_posted(&r);
	rec_complete(d, IRDA_CLASS_TAG_RX, USB_STATUS_OK, big, sizeof big, 0);
	assert_int_equal(usb_dongle_counters(d)->rx_oversize, 1);
	expect_rx_posted(&r);
	rec_complete(d, IRDA_CLASS_TAG_RX, USB_STATUS_OK, big, 0, 0);
	assert_int_equal(usb_dongle_counters(d)->rx_empty, 1);
	assert_int_equal(r.n_frames, 0);
	usb_dongle_free(d);
}

static void close_waits_for_cancelled_transfers(void **state)
{
	struct rec r;
	(void)state;
	struct usb_dongle *d = opened_core(&r);
	struct usb_tx_frame f = { .data = xid, .len = sizeof xid, .xbofs = 12 };
	assert_int_equal(usb_dongle_send(d, &f, 0), 0);
	assert_int_equal(usb_dongle_close(d, 0), 0);
	assert_int_equal(r.n_cancelled, 2);
	assert_false(saw_event(&r, USB_EVENT_CLOSED, 0));
	assert_int_equal(usb_dongle_close(d, 0), -EINPROGRESS);
	rec_complete(d, IRDA_CLASS_TAG_TX, USB_STATUS_CANCELLED, NULL, 0, 0);
	assert_false(saw_event(&r, USB_EVENT_CLOSED, 0));
	rec_complete(d, IRDA_CLASS_TAG_RX, USB_STATUS_CANCELLED, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_CLOSED, 0));
	assert_int_equal(d->baud, 0);
	assert_int_equal(usb_dongle_close(d, 0), 0);
	/* it opens again */
	r.next = r.n_xfers;
	r.n_ev = 0;
	open_with(&r, d, desc_42, sizeof desc_42);
	usb_dongle_free(d);
}

static void device_gone(void **state)
{
	struct rec r;
	(void)state;
	struct usb_dongle *d = opened_core(&r);
	rec_complete(d, IRDA_CLASS_TAG_RX, USB_STATUS_NO_DEVICE, NULL, 0, 0);
	assert_true(saw_event(&r, USB_EVENT_GONE, -ENODEV));
	assert_int_equal(usb_dongle_close(d, 0), 0);
	assert_true(saw_event(&r, USB_EVENT_CLOSED, 0));
	usb_dongle_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry_matches_class_and_ids),
		cmocka_unit_test(stir421x_refused_naming_firmware),
		cmocka_unit_test(create_refuses_missing_endpoints),
		cmocka_unit_test(descriptor_42_gives_its_qos),
		cmocka_unit_test(malformed_descriptors),
		cmocka_unit_test(open_sequence),
		cmocka_unit_test(open_refuses_bad_descriptor),
		cmocka_unit_test(header_vectors),
		cmocka_unit_test(every_speed_change),
		cmocka_unit_test(speed_not_in_descriptor_refused),
		cmocka_unit_test(tx_bytes_and_zlp),
		cmocka_unit_test(speed_change_waits_for_frame),
		cmocka_unit_test(rx_good_frames),
		cmocka_unit_test(rx_malformed_transfers),
		cmocka_unit_test(close_waits_for_cancelled_transfers),
		cmocka_unit_test(device_gone),
	};
	return cmocka_run_group_tests_name("usb_irda_class", tests, NULL, NULL);
}
