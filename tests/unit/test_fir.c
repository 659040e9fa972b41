/*
 * test_fir.c: FIR 4PPM framing: the preamble, start and stop flag chips
 * of usb-irda-digest section 3, the XID's CRC-32 (64 4D 66 8B) and its
 * symbols (from an independent encoder), round trips at every size,
 * chunking, damage, abort, illegal symbols, oversize and re-sync.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fcs32.h"
#include "fir.h"

static const uint8_t xid[14] = { 0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12,
				 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00 };
/* The symbols of the 14 XID bytes and 64 4D 66 8B, two per byte. */
static const uint8_t xid_chips[36] = { 0x11, 0x11, 0x11, 0x18, 0x48, 0x88,
	0x82, 0x14, 0x24, 0x44, 0x84, 0x18, 0x28, 0x48, 0x11, 0x11, 0x11, 0x11,
	0x11, 0x11, 0x11, 0x11, 0x48, 0x88, 0x88, 0x88, 0x88, 0x88, 0x84, 0x24,
	0x41, 0x84, 0x24, 0x24, 0x12, 0x82 };

#define MAXF 8
struct coll {
	size_t count;
	size_t len[MAXF];
	uint8_t f[MAXF][FIR_MAX_FRAME];
};

static void on_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct coll *c = ctx;

	if (c->count < MAXF) {
		assert_true(len <= FIR_MAX_FRAME);
		memcpy(c->f[c->count], frame, len);
		c->len[c->count] = len;
	}
	c->count++;
}

static uint8_t rxbuf[FIR_MAX_FRAME + FIR_FCS_LEN];
static struct coll coll;

static struct fir_decoder dec(size_t max_frame)
{
	struct fir_decoder d;

	memset(&coll, 0, sizeof(coll));
	assert_int_equal(fir_decoder_init(&d, rxbuf, max_frame + FIR_FCS_LEN, on_frame, &coll), 0);
	return d;
}

static uint8_t xid_line[128];
static size_t xid_line_len;

static void setup_xid(void)
{
	long n = fir_encode(xid_line, sizeof(xid_line), xid, sizeof(xid));
	assert_true(n > 0);
	xid_line_len = (size_t)n;
}

static void test_crc32(void **state)
{
	(void)state;
	assert_int_equal(fcs32_compute("123456789", 9), 0xCBF43926u);
	assert_int_equal(fcs32_compute(xid, sizeof(xid)), 0x8B664D64u);
}

static void test_xid_chips(void **state)
{
	(void)state;
	setup_xid();
	assert_int_equal(xid_line_len, 32 + 4 + 36 + 4);
	assert_int_equal(fir_encoded_len(sizeof(xid)), xid_line_len);
	assert_int_equal(fir_air_chips(sizeof(xid)), 8 * xid_line_len);
	assert_int_equal(fir_air_chips(0), 320 + 64);
	for (int i = 0; i < 16; i++) {
		/* 1000 0000 1010 1000 */
		assert_int_equal(xid_line[2 * i], 0x80);
		assert_int_equal(xid_line[2 * i + 1], 0xA8);
	}
	/* 0000 1100 0000 1100 0110 0000 0110 0000 */
	assert_memory_equal(xid_line + 32, ((const uint8_t[]){ 0x0C, 0x0C, 0x60, 0x60 }), 4);
	assert_memory_equal(xid_line + 36, xid_chips, sizeof(xid_chips));
	/* the CRC bytes 64 4D 66 8B: 0x64 = pairs 0,1,2,1 -> 8 4 2 4 */
	assert_memory_equal(xid_line + 36 + 28, ((const uint8_t[]){ 0x84, 0x24 }), 2);
	/* 0000 1100 0000 1100 0000 0110 0000 0110 */
	assert_memory_equal(xid_line + 72, ((const uint8_t[]){ 0x0C, 0x0C, 0x06, 0x06 }), 4);
	assert_int_equal(fir_air_time_us(fir_air_chips(sizeof(xid))), 76);

	struct fir_decoder d = dec(FIR_MAX_FRAME);
	fir_decoder_feed(&d, xid_line, xid_line_len);
	assert_int_equal(coll.count, 1);
	assert_int_equal(coll.len[0], sizeof(xid));
	assert_memory_equal(coll.f[0], xid, sizeof(xid));
	assert_int_equal(fir_decoder_counters(&d)->chips, 8 * xid_line_len);
	assert_int_equal(fir_decoder_state(&d), FIR_RX_HUNT);
}

static void test_encode_errors(void **state)
{
	(void)state;
	uint8_t out[80];
	assert_int_equal(fir_encode(out, 75, xid, sizeof(xid)), -ENOSPC);
	assert_int_equal(fir_encode(out, sizeof(out), xid, FIR_MAX_FRAME + 1), -EINVAL);
	assert_int_equal(fir_encode(out, sizeof(out), NULL, 0), 40 + 8);
}

static uint32_t rng = 777;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static uint8_t big_out[2 * FIR_MAX_FRAME + 64];
static uint8_t frame_buf[FIR_MAX_FRAME];

static void test_round_trips(void **state)
{
	(void)state;
	for (size_t len = 0; len <= FIR_MAX_FRAME; len += (len < 40 ? 1 : 89 + len % 5)) {
		for (size_t i = 0; i < len; i++)
			frame_buf[i] = (uint8_t)rnd();
		long n = fir_encode(big_out, sizeof(big_out), frame_buf, len);
		assert_int_equal(n, (long)fir_encoded_len(len));
		assert_int_equal(fir_air_chips(len), 8 * (uint64_t)n);

		struct fir_decoder d = dec(FIR_MAX_FRAME);
		fir_decoder_feed(&d, big_out, (size_t)n);
		assert_int_equal(coll.count, 1);
		assert_int_equal(coll.len[0], len);
		assert_memory_equal(coll.f[0], frame_buf, len);

		d = dec(FIR_MAX_FRAME);
		for (long i = 0; i < n; i++)
			fir_decoder_feed(&d, big_out + i, 1);
		assert_int_equal(coll.count, 1);
		assert_int_equal(coll.len[0], len);
		assert_memory_equal(coll.f[0], frame_buf, len);
	}
}

static void test_damage(void **state)
{
	(void)state;
	setup_xid();
	uint8_t line[128];

	/* A data symbol moved to another legal position: CRC error. */
	memcpy(line, xid_line, xid_line_len);
	line[40] = (uint8_t)((line[40] & 0x0F) | (line[40] & 0xF0) >> 1) ;
	assert_int_not_equal(line[40], xid_line[40]);
	struct fir_decoder d = dec(FIR_MAX_FRAME);
	fir_decoder_feed(&d, line, xid_line_len);
	assert_int_equal(fir_decoder_counters(&d)->crc_errors, 1);
	assert_int_equal(coll.count, 0);

	/* One chip flipped in the data: an illegal symbol. */
	memcpy(line, xid_line, xid_line_len);
	line[50] ^= 0x20;
	d = dec(FIR_MAX_FRAME);
	fir_decoder_feed(&d, line, xid_line_len);
	assert_int_equal(fir_decoder_counters(&d)->illegal, 1);
	assert_int_equal(coll.count, 0);

	/* Two 0000 symbols: abort. */
	memcpy(line, xid_line, xid_line_len);
	line[45] = 0x00;
	d = dec(FIR_MAX_FRAME);
	fir_decoder_feed(&d, line, xid_line_len);
	assert_int_equal(fir_decoder_counters(&d)->aborts, 1);
	assert_int_equal(coll.count, 0);

	/* A damaged stop flag. */
	memcpy(line, xid_line, xid_line_len);
	line[74] = 0x07;
	d = dec(FIR_MAX_FRAME);
	fir_decoder_feed(&d, line, xid_line_len);
	assert_int_equal(fir_decoder_counters(&d)->illegal, 1);
	assert_int_equal(coll.count, 0);

	/* One data symbol missing (a nibble shifted out): partial byte. */
	memcpy(line, xid_line, 36);
	line[36] = (uint8_t)(xid_line[36] << 4 | xid_line[37] >> 4);
	for (size_t i = 37; i < xid_line_len - 1; i++)
		line[i] = (uint8_t)(xid_line[i] << 4 | xid_line[i + 1] >> 4);
	line[xid_line_len - 1] = (uint8_t)(xid_line[xid_line_len - 1] << 4 | 0x8);
	d = dec(FIR_MAX_FRAME);
	fir_decoder_feed(&d, line, xid_line_len);
	assert_int_equal(fir_decoder_counters(&d)->partial, 1);
	assert_int_equal(coll.count, 0);
}

static void test_start_needs_preamble(void **state)
{
	(void)state;
	setup_xid();
	struct fir_decoder d = dec(FIR_MAX_FRAME);
	fir_decoder_feed(&d, xid_line + 32, xid_line_len - 32);
	assert_int_equal(coll.count, 0);
	assert_int_equal(fir_decoder_state(&d), FIR_RX_HUNT);
	/* one group of preamble is enough */
	d = dec(FIR_MAX_FRAME);
	fir_decoder_feed(&d, xid_line + 30, xid_line_len - 30);
	assert_int_equal(coll.count, 1);
}

static void test_resync_and_oversize(void **state)
{
	(void)state;
	setup_xid();
	uint8_t line[512];
	size_t n = 0;
	uint8_t two[2] = { 0x5A, 0xA5 };

	/* half a frame, garbage, the XID, a 2-byte frame */
	memcpy(line, xid_line, 50);
	n = 50;
	for (int i = 0; i < 20; i++)
		line[n++] = (uint8_t)(rnd() | 0x11);
	memcpy(line + n, xid_line, xid_line_len);
	n += xid_line_len;
	n += (size_t)fir_encode(line + n, sizeof(line) - n, two, 2);

	struct fir_decoder d = dec(FIR_MAX_FRAME);
	fir_decoder_feed(&d, line, n);
	assert_int_equal(coll.count, 2);
	assert_int_equal(coll.len[0], sizeof(xid));
	assert_memory_equal(coll.f[0], xid, sizeof(xid));
	assert_int_equal(coll.len[1], 2);
	assert_memory_equal(coll.f[1], two, 2);
	assert_int_equal(fir_decoder_counters(&d)->frames, 2);

	/* cap 13: the XID overflows, the 2-byte frame passes */
	d = dec(13);
	fir_decoder_feed(&d, line + 70, n - 70);
	assert_int_equal(fir_decoder_counters(&d)->overflows, 1);
	assert_int_equal(coll.count, 1);
	assert_int_equal(coll.len[0], 2);

	/* reset mid-frame */
	d = dec(FIR_MAX_FRAME);
	fir_decoder_feed(&d, xid_line, 50);
	fir_decoder_reset(&d);
	fir_decoder_feed(&d, xid_line + 50, xid_line_len - 50);
	assert_int_equal(coll.count, 0);

	assert_int_equal(fir_decoder_init(&d, rxbuf, 3, on_frame, &coll), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32),
		cmocka_unit_test(test_xid_chips),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_start_needs_preamble),
		cmocka_unit_test(test_resync_and_oversize),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
