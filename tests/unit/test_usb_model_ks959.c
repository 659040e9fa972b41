/*
 * test_usb_model_ks959.c: the KingSun KS-959 device model driven with the
 * digest's own transfers (usb-irda-digest 2.5): the masks and padded
 * sizes for 1/7/8/16/30/240 clear bytes, the 28-byte wrapped XID in one
 * fragment (setup 21 09 1C 00 00 00 30 00, payload C3 C3 ...), the 57600
 * speed record, the receive polls obfuscated with the session-long
 * counter and its filler byte every 256th, what the model refuses; then
 * the real core (irnet/usb/kingsun.c) against it, frames both ways, one
 * sent in 240-byte fragments and more than 256 bytes received.
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

#include "cursor.h"
#include "kingsun.h"
#include "sir.h"
#include "usb_model_bench.h"

static const uint8_t xid[] = { 0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12,
			       0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00 };
/* the XID wrapped without XBOFs: BOF, frame, FCS 46 28, EOF */
static const uint8_t xid_wrapped[] = { 0xC0, 0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12, 0xFF,
				       0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00, 0x46, 0x28, 0xC1 };

/* digest 2.5: clear length, mask, padded payload */
static const struct {
	size_t len;
	uint8_t mask;
	uint16_t padded;
} vectors[] = {
	{ 1, 0x3A, 24 }, { 7, 0x34, 24 }, { 8, 0x64, 24 },
	{ 16, 0x20, 32 }, { 30, 0x33, 48 }, { 240, 0x20, 256 },
};

static const uint8_t poll_setup[8] = { 0xA1, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x08 };

/* One send fragment: n clear bytes XOR mask, zeros up to padded. */
static int send_fragment(struct usb_model *m, const uint8_t *clear, size_t n, uint8_t mask,
			 uint16_t padded)
{
	uint8_t setup[8] = { 0x21, 0x09, (uint8_t)n, (uint8_t)(n >> 8), 0, 0,
			     (uint8_t)padded, (uint8_t)(padded >> 8) };
	uint8_t payload[512] = { 0 };

	assert_true(n <= padded && padded <= sizeof(payload));
	for (size_t i = 0; i < n; i++)
		payload[i] = (uint8_t)(clear[i] ^ mask);
	return usb_model_control(m, setup, payload, NULL, 0);
}

static int set_speed(struct usb_model *m, uint32_t baud, uint8_t bits)
{
	static const uint8_t setup[8] = { 0x21, 0x09, 0x00, 0x02, 0x01, 0x00, 0x08, 0x00 };
	const uint8_t record[8] = { (uint8_t)baud, (uint8_t)(baud >> 8), (uint8_t)(baud >> 16),
				    (uint8_t)(baud >> 24), bits, 0, 0, 0 };

	return usb_model_control(m, setup, record, NULL, 0);
}

static void descriptors(void **state)
{
	struct usb_model *m = usb_model_ks959_new();

	(void)state;
	assert_non_null(m);
	/* device 07d0:4959; one configuration, one vendor interface with
	 * one interrupt IN endpoint */
	assert_true(m->descriptors_len == 18 + 9 + 9 + 7);
	assert_int_equal(m->descriptors[8] | m->descriptors[9] << 8, 0x07d0);
	assert_int_equal(m->descriptors[10] | m->descriptors[11] << 8, 0x4959);
	assert_int_equal(m->descriptors[18 + 2] | m->descriptors[18 + 3] << 8, 9 + 9 + 7);
	assert_int_equal(m->descriptors[27 + 4], 1);		/* bNumEndpoints */
	assert_int_equal(m->descriptors[27 + 5], 0xFF);		/* vendor class */
	assert_int_equal(m->descriptors[36 + 2], USB_MODEL_KS959_EP_IN);
	assert_int_equal(m->descriptors[36 + 3], 3);		/* interrupt */
	assert_int_equal(usb_model_speed(m), 9600);
	/* the dummy endpoint never answers */
	uint8_t buf[8];
	assert_int_equal(usb_model_bulk_in(m, USB_MODEL_KS959_EP_IN, buf, sizeof(buf)), -EAGAIN);
	usb_model_free(m);
}

/* For each vector length n: the XID wrapped with enough XBOFs to make a
 * whole number of n-byte fragments, each masked as the digest says. */
static void masks_and_padding(void **state)
{
	(void)state;
	for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
		struct usb_model *m = usb_model_ks959_new();
		size_t n = vectors[v].len;
		size_t total = (sizeof(xid_wrapped) + n - 1) / n * n;
		uint8_t stream[512], got[32];

		assert_int_equal(usb_model_ks959_mask(n), vectors[v].mask);
		assert_int_equal(usb_model_ks959_padded(n), vectors[v].padded);
		memset(stream, 0xFF, total - sizeof(xid_wrapped));
		memcpy(stream + total - sizeof(xid_wrapped), xid_wrapped, sizeof(xid_wrapped));
		/* the padded size and nothing else is taken */
		assert_int_equal(send_fragment(m, stream, n, vectors[v].mask,
					       (uint16_t)(vectors[v].padded + 8)),
				 -EPIPE);
		assert_int_equal(send_fragment(m, stream, n, vectors[v].mask,
					       (uint16_t)(vectors[v].padded - 8)),
				 -EPIPE);
		for (size_t off = 0; off < total; off += n)
			assert_int_equal(send_fragment(m, stream + off, n, vectors[v].mask,
						       vectors[v].padded),
					 vectors[v].padded);
		assert_int_equal(usb_model_take_frame(m, got, sizeof(got), NULL), sizeof(xid));
		assert_memory_equal(got, xid, sizeof(xid));
		assert_int_equal(m->bad_transfers, 0);
		usb_model_free(m);
	}
}

static void the_digest_xid_fragment(void **state)
{
	/* 21 09 1C 00 00 00 30 00: 28 clear bytes in 48 */
	static const uint8_t setup[8] = { 0x21, 0x09, 0x1C, 0x00, 0x00, 0x00, 0x30, 0x00 };
	struct usb_model *m = usb_model_ks959_new();
	uint8_t payload[48] = { 0 }, got[32];
	uint32_t baud = 0;

	(void)state;
	memset(payload, 0xFF, 10);
	memcpy(payload + 10, xid_wrapped, sizeof(xid_wrapped));
	for (size_t i = 0; i < 28; i++)
		payload[i] ^= 0x3C;
	assert_int_equal(payload[0], 0xC3);
	assert_int_equal(payload[1], 0xC3);
	assert_int_equal(usb_model_control(m, setup, payload, NULL, 0), 48);
	assert_int_equal(usb_model_take_frame(m, got, sizeof(got), &baud), sizeof(xid));
	assert_memory_equal(got, xid, sizeof(xid));
	assert_int_equal(baud, 9600);
	/* the same fragment with another mask is not the XID */
	for (size_t i = 0; i < 28; i++)
		payload[i] ^= 0x3C ^ 0x3A;
	assert_int_equal(usb_model_control(m, setup, payload, NULL, 0), 48);
	assert_int_equal(usb_model_take_frame(m, got, sizeof(got), NULL), -EAGAIN);
	usb_model_free(m);
}

static void speed_requests(void **state)
{
	static const uint8_t setup[8] = { 0x21, 0x09, 0x00, 0x02, 0x01, 0x00, 0x08, 0x00 };
	static const uint8_t rec57600[8] = { 0x00, 0xE1, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00 };
	struct usb_model *m = usb_model_ks959_new();

	(void)state;
	assert_int_equal(usb_model_control(m, setup, rec57600, NULL, 0), 0);
	assert_int_equal(usb_model_speed(m), 57600);
	assert_int_equal(set_speed(m, 19200, 0x03), 0);
	assert_int_equal(usb_model_speed(m), 19200);
	assert_int_equal(set_speed(m, 4000000, 0x03), -EPIPE);
	assert_int_equal(set_speed(m, 9600, 0x02), -EPIPE);
	assert_int_equal(set_speed(m, 12345, 0x03), -EPIPE);
	assert_int_equal(usb_model_speed(m), 19200);
	assert_int_equal(usb_model_ks959_speed_requests(m), 2);
	usb_model_free(m);
}

/* The digest's receive rule, written here: k goes up before each byte,
 * the byte at which it wraps to 0 is skipped, the others are
 * b ^ k ^ 0x55.  Returns the clear bytes; *fillers counts those
 * skipped, each checked to be 0x95 once decoded. */
static size_t deobfuscate(uint8_t *k, const uint8_t *raw, size_t n, uint8_t *out,
			  unsigned *fillers)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		*k = (uint8_t)(*k + 1);
		if (*k == 0) {
			assert_int_equal(raw[i] ^ 0x55, 0x95);
			(*fillers)++;
			continue;
		}
		out[len++] = (uint8_t)(raw[i] ^ *k ^ 0x55);
	}
	return len;
}

struct heard {
	uint8_t frames[8][512];
	size_t len[8];
	size_t n;
};

static void on_heard(void *ctx, const uint8_t *frame, size_t len)
{
	struct heard *h = ctx;

	assert_true(h->n < 8 && len <= sizeof(h->frames[0]));
	memcpy(h->frames[h->n], frame, len);
	h->len[h->n++] = len;
}

static void rx_polls_and_the_filler(void **state)
{
	static const uint8_t ua[] = { 0x01, 0x63, 0x7D, 0xC0, 0xC1, 0x42 };
	struct usb_model *m = usb_model_ks959_new();
	struct heard h = { .n = 0 };
	struct sir_decoder_config cfg = { .on_frame = on_heard, .ctx = &h };
	struct sir_decoder *sir = sir_decoder_new(&cfg);
	uint8_t raw[2048], clear[2048], big[200];
	uint8_t k = 0;
	unsigned fillers = 0;
	size_t total = 0;
	int r;

	(void)state;
	assert_non_null(sir);
	/* nothing heard: the poll stays pending */
	assert_int_equal(usb_model_control(m, poll_setup, NULL, raw, sizeof(raw)), -EAGAIN);
	assert_int_equal(usb_model_inject_frame(m, ua, sizeof(ua)), 0);
	r = usb_model_control(m, poll_setup, NULL, raw, sizeof(raw));
	assert_true(r >= 13);
	/* the BOF, with k = 1 */
	assert_int_equal(raw[0], 0xC0 ^ 0x01 ^ 0x55);
	total += (size_t)r;
	sir_decoder_feed(sir, clear, deobfuscate(&k, raw, (size_t)r, clear, &fillers));
	assert_int_equal(h.n, 1);
	assert_int_equal(h.len[0], sizeof(ua));
	assert_memory_equal(h.frames[0], ua, sizeof(ua));
	/* two 200-byte I-fields: past 256 stream bytes, the filler comes
	 * at the 256th byte of the session, in small polls */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7u + 1u);
	big[0] = 0x01;
	big[1] = 0x10;
	assert_int_equal(usb_model_inject_frame(m, big, sizeof(big)), 0);
	big[2] = 0xAA;
	assert_int_equal(usb_model_inject_frame(m, big, sizeof(big)), 0);
	while ((r = usb_model_control(m, poll_setup, NULL, raw, 37)) > 0) {
		assert_true(r <= 37);
		for (int i = 0; i < r; i++)
			if ((total + (size_t)i + 1) % 256 == 0)
				assert_int_equal(raw[i], 0x95 ^ 0x55); /* k is 0 there */
		total += (size_t)r;
		sir_decoder_feed(sir, clear, deobfuscate(&k, raw, (size_t)r, clear, &fillers));
	}
	assert_int_equal(r, -EAGAIN);
	assert_true(total > 256);
	assert_int_equal(fillers, total / 256);
	assert_int_equal(usb_model_ks959_fillers(m), fillers);
	assert_int_equal(h.n, 3);
	assert_int_equal(h.len[2], sizeof(big));
	assert_memory_equal(h.frames[2], big, sizeof(big));
	big[2] = (uint8_t)(2 * 7 + 1);
	assert_memory_equal(h.frames[1], big, sizeof(big));
	sir_decoder_free(sir);
	usb_model_free(m);
}

static void refusals(void **state)
{
	struct usb_model *m = usb_model_ks959_new();
	static const uint8_t unknown_req[8] = { 0xC0, 0x01, 0, 0, 0, 0, 1, 0 };
	static const uint8_t bad_poll[8] = { 0xA1, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x04 };
	static const uint8_t bad_index[8] = { 0x21, 0x09, 0x01, 0x00, 0x01, 0x00, 24, 0 };
	static const uint8_t get_as_set[8] = { 0x21, 0x01, 0x01, 0x00, 0x00, 0x00, 24, 0 };
	uint8_t payload[264] = { 0 }, in[8];

	(void)state;
	/* clear lengths of 0 and 241, a wrong index or request, a poll of
	 * another wLength, any other request: all stall */
	assert_int_equal(send_fragment(m, payload, 0, 0, 16), -EPIPE);
	assert_int_equal(send_fragment(m, payload, 241, 0, 264), -EPIPE);
	assert_int_equal(usb_model_control(m, bad_index, payload, NULL, 0), -EPIPE);
	assert_int_equal(usb_model_control(m, get_as_set, payload, NULL, 0), -EPIPE);
	assert_int_equal(usb_model_control(m, bad_poll, NULL, in, sizeof(in)), -EPIPE);
	assert_int_equal(usb_model_control(m, unknown_req, NULL, in, sizeof(in)), -EPIPE);
	assert_int_equal(usb_model_bulk_out(m, 0x02, payload, 8), -EPIPE);
	assert_int_equal(usb_model_bulk_in(m, 0x82, in, sizeof(in)), -EPIPE);
	/* padding that is not zeros is taken, and counted */
	assert_int_equal(m->bad_transfers, 0);
	payload[20] = 1;
	{
		static const uint8_t setup[8] = { 0x21, 0x09, 8, 0, 0, 0, 24, 0 };

		assert_int_equal(usb_model_control(m, setup, payload, NULL, 0), 24);
	}
	assert_int_equal(m->bad_transfers, 1);
	m->gone = true;
	assert_int_equal(usb_model_control(m, poll_setup, NULL, in, sizeof(in)), -ENODEV);
	usb_model_free(m);
}

static void against_the_core(void **state)
{
	static const struct usb_endpoints ep = { 0 };
	static const uint8_t ua[] = { 0x01, 0x63, 0x7D, 0xC0, 0xC1, 0x42 };
	uint8_t big[400], got[512];
	struct usb_tx_frame f = { .data = xid, .len = sizeof(xid) };
	struct bench b;
	uint32_t baud = 0;

	(void)state;
	bench_start(&b, usb_model_ks959_new(), &ks959_family, NULL, &ep, USB_CLEAR_HALT_NONE);
	/* open: 9600, then the poll waiting on the model */
	assert_int_equal(usb_model_speed(b.model), 9600);
	assert_int_equal(usb_model_ks959_speed_requests(b.model), 1);
	assert_int_equal(b.n_pending, 1);

	assert_int_equal(usb_dongle_send(b.core, &f, 0), 0);
	pump(&b);
	assert_true(saw(&b, USB_EVENT_TX_DONE));
	assert_int_equal(usb_model_take_frame(b.model, got, sizeof(got), &baud), sizeof(xid));
	assert_memory_equal(got, xid, sizeof(xid));
	assert_int_equal(baud, 9600);

	assert_int_equal(usb_model_inject_frame(b.model, ua, sizeof(ua)), 0);
	pump(&b);
	assert_int_equal(b.rx_frames, 1);
	assert_int_equal(b.rx_len, sizeof(ua));
	assert_memory_equal(b.rx, ua, sizeof(ua));

	b.n_events = 0;
	assert_int_equal(usb_dongle_set_speed(b.core, 57600, 0), 0);
	pump(&b);
	usb_dongle_tick(b.core, UINT64_C(1) << 32);
	pump(&b);
	assert_true(saw(&b, USB_EVENT_SPEED));
	assert_int_equal(usb_model_speed(b.model), 57600);

	/* a 400-byte frame: more than one 240-byte fragment each way, and
	 * past the receive counter's wrap */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 13u + 5u);
	big[0] = 0x01;
	big[1] = 0x10;
	f = (struct usb_tx_frame){ .data = big, .len = sizeof(big) };
	b.n_events = 0;
	assert_int_equal(usb_dongle_send(b.core, &f, 0), 0);
	pump(&b);
	assert_true(saw(&b, USB_EVENT_TX_DONE));
	assert_int_equal(usb_model_take_frame(b.model, got, sizeof(got), &baud), sizeof(big));
	assert_memory_equal(got, big, sizeof(big));
	assert_int_equal(baud, 57600);

	assert_int_equal(usb_model_inject_frame(b.model, big, sizeof(big)), 0);
	pump(&b);
	assert_int_equal(b.rx_frames, 2);
	assert_int_equal(b.rx_len, sizeof(big));
	assert_memory_equal(b.rx, big, sizeof(big));
	assert_true(usb_model_ks959_fillers(b.model) >= 1);
	big[5] ^= 0x5A;
	assert_int_equal(usb_model_inject_frame(b.model, big, sizeof(big)), 0);
	pump(&b);
	assert_int_equal(b.rx_frames, 3);
	assert_memory_equal(b.rx, big, sizeof(big));
	assert_true(usb_model_ks959_fillers(b.model) >= 3);
	assert_int_equal(b.model->bad_transfers, 0);
	bench_unplug_and_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(descriptors),
		cmocka_unit_test(masks_and_padding),
		cmocka_unit_test(the_digest_xid_fragment),
		cmocka_unit_test(speed_requests),
		cmocka_unit_test(rx_polls_and_the_filler),
		cmocka_unit_test(refusals),
		cmocka_unit_test(against_the_core),
	};
	return cmocka_run_group_tests_name("usb_model_ks959", tests, NULL, NULL);
}
