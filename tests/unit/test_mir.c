/*
 * test_mir.c: MIR bit-stuffed framing: vectors computed by an independent
 * bit-list encoder (the XID of irda-digest section 11, whose CRC-16 0x2846
 * is the digest's), stuffing of 0xFF and 0x7E data, round trips at every
 * size, chunking, damage, abort, oversize and re-sync.
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

#include "fcs.h"
#include "mir.h"

static const uint8_t xid[14] = { 0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12,
				 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00 };
/* Two flags, the XID, FCS 46 28, flag: 160 bits. */
static const uint8_t xid_mir[] = { 0x7E, 0x7E, 0xDF, 0xF7, 0x04, 0xE0, 0x59,
	0xD1, 0x48, 0x7C, 0xDF, 0xF7, 0x7D, 0xDF, 0x01, 0x00, 0x00, 0x46, 0x28, 0x7E };
/* FF FF FF: a 0 after every five 1s (69 bits). */
static const uint8_t ff_mir[] = { 0x7E, 0x7E, 0xDF, 0xF7, 0x7D, 0xDF, 0x10, 0xDE, 0x0F };
/* 7E 7E in the data: no flag pattern survives (59 bits). */
static const uint8_t x7e_mir[] = { 0x7E, 0x7E, 0xBE, 0x7C, 0xA9, 0x7D, 0xF7, 0x03 };

#define MAXF 8
struct coll {
	size_t count;
	size_t len[MAXF];
	uint8_t f[MAXF][MIR_MAX_FRAME];
};

static void on_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct coll *c = ctx;

	if (c->count < MAXF) {
		assert_true(len <= MIR_MAX_FRAME);
		memcpy(c->f[c->count], frame, len);
		c->len[c->count] = len;
	}
	c->count++;
}

static uint8_t rxbuf[MIR_MAX_FRAME + MIR_FCS_LEN];
static struct coll coll;

static struct mir_decoder dec(size_t max_frame)
{
	struct mir_decoder d;

	memset(&coll, 0, sizeof(coll));
	assert_int_equal(mir_decoder_init(&d, rxbuf, max_frame + MIR_FCS_LEN, on_frame, &coll), 0);
	return d;
}

static void check_vector(const uint8_t *frame, size_t len, const uint8_t *want,
			 size_t want_len, long want_bits)
{
	uint8_t out[64];
	long bits = mir_encode(out, sizeof(out), frame, len, 2);

	assert_int_equal(bits, want_bits);
	assert_int_equal((size_t)(bits + 7) / 8, want_len);
	assert_memory_equal(out, want, want_len);
	assert_int_equal(mir_air_bits(frame, len, 2), (size_t)want_bits);
	assert_true(mir_encoded_max_bits(len, 2) >= (size_t)want_bits);

	struct mir_decoder d = dec(MIR_MAX_FRAME);
	mir_decoder_feed(&d, want, want_len);
	assert_int_equal(coll.count, 1);
	assert_int_equal(coll.len[0], len);
	assert_memory_equal(coll.f[0], frame, len);
	assert_int_equal(mir_decoder_counters(&d)->frames, 1);
}

static void test_vectors(void **state)
{
	(void)state;
	assert_int_equal(fcs_compute(xid, sizeof(xid)), 0x2846);
	check_vector(xid, sizeof(xid), xid_mir, sizeof(xid_mir), 160);
	static const uint8_t ff[3] = { 0xFF, 0xFF, 0xFF };
	check_vector(ff, 3, ff_mir, sizeof(ff_mir), 69);
	static const uint8_t x7e[2] = { 0x7E, 0x7E };
	check_vector(x7e, 2, x7e_mir, sizeof(x7e_mir), 59);
}

/* No six 1s in a row between the opening flags and the closing flag. */
static void test_no_flag_inside(void **state)
{
	(void)state;
	uint8_t frame[64], out[128];

	memset(frame, 0xFF, sizeof(frame));
	long bits = mir_encode(out, sizeof(out), frame, sizeof(frame), 2);
	assert_true(bits > 0);
	unsigned run = 0;
	for (long i = 16; i < bits - 8; i++) {
		if ((out[i / 8] >> (i % 8)) & 1)
			run++;
		else
			run = 0;
		assert_true(run <= 5);
	}
	/* 512 + 16 FCS bits, 5 per stuffed 0 while the run of 1s lasts. */
	assert_true((size_t)bits > 16 + 512 + 16 + 8 + 512 / 5 - 1);
}

static void test_encode_errors(void **state)
{
	(void)state;
	uint8_t out[16];

	assert_int_equal(mir_encode(out, sizeof(out), xid, 2, 1), -EINVAL);
	assert_int_equal(mir_encode(out, sizeof(out), xid, sizeof(xid), 2), -ENOSPC);
	assert_int_equal(mir_encode(out, sizeof(out), xid, MIR_MAX_FRAME + 1, 2), -EINVAL);
	/* More flags: 8 bits each. */
	uint8_t big[64];
	assert_int_equal(mir_encode(big, sizeof(big), xid, sizeof(xid), 5), 160 + 24);
	assert_memory_equal(big, ((const uint8_t[]){ 0x7E, 0x7E, 0x7E, 0x7E, 0x7E }), 5);
	assert_int_equal(mir_air_time_us(1152000, 1152), 1000);
	assert_int_equal(mir_air_time_us(576000, 577), 1002);
}

static uint32_t rng = 12345;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static uint8_t big_out[MIR_MAX_FRAME * 2 + 64];
static uint8_t frame_buf[MIR_MAX_FRAME];

static void test_round_trips(void **state)
{
	(void)state;
	for (size_t len = 0; len <= MIR_MAX_FRAME; len += (len < 40 ? 1 : 97 + len % 7)) {
		for (size_t i = 0; i < len; i++)
			frame_buf[i] = (uint8_t)(len % 3 == 0 ? 0xFF : rnd());
		unsigned nflags = 2 + len % 3;
		long bits = mir_encode(big_out, sizeof(big_out), frame_buf, len, nflags);
		assert_true(bits > 0);
		assert_int_equal(mir_air_bits(frame_buf, len, nflags), (size_t)bits);
		assert_true((size_t)bits <= mir_encoded_max_bits(len, nflags));
		size_t nbytes = ((size_t)bits + 7) / 8;

		/* all at once */
		struct mir_decoder d = dec(MIR_MAX_FRAME);
		mir_decoder_feed(&d, big_out, nbytes);
		assert_int_equal(coll.count, 1);
		assert_int_equal(coll.len[0], len);
		assert_memory_equal(coll.f[0], frame_buf, len);

		/* one byte at a time, then bit by bit */
		d = dec(MIR_MAX_FRAME);
		for (size_t i = 0; i < nbytes; i++)
			mir_decoder_feed(&d, big_out + i, 1);
		assert_int_equal(coll.count, 1);
		assert_int_equal(coll.len[0], len);
		assert_memory_equal(coll.f[0], frame_buf, len);
		d = dec(MIR_MAX_FRAME);
		for (long i = 0; i < bits; i++) {
			uint8_t b = (uint8_t)((big_out[i / 8] >> (i % 8)) & 1);
			mir_decoder_feed_bits(&d, &b, 1);
		}
		assert_int_equal(coll.count, 1);
		assert_int_equal(coll.len[0], len);
		assert_int_equal(mir_decoder_counters(&d)->bits, (uint64_t)bits);
	}
}

static void test_flipped_bit(void **state)
{
	(void)state;
	uint8_t out[64];
	/* Any single flip between the flags loses the frame. */
	for (unsigned bit = 16; bit < 150; bit += 7) {
		memcpy(out, xid_mir, sizeof(xid_mir));
		out[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		struct mir_decoder d = dec(MIR_MAX_FRAME);
		mir_decoder_feed(&d, out, sizeof(xid_mir));
		const struct mir_counters *c = mir_decoder_counters(&d);
		assert_int_equal(coll.count, 0);
		assert_int_equal(c->frames, 0);
		assert_true(c->fcs_errors + c->misaligned + c->aborts + c->runts >= 1);
	}
	/* A flip that keeps the bit count: the FCS's low byte (no stuffing
	 * near it) is the aligned byte 17. */
	memcpy(out, xid_mir, sizeof(xid_mir));
	out[17] ^= 0x01;	/* low FCS bit: 0x46 -> 0x47 */
	struct mir_decoder d = dec(MIR_MAX_FRAME);
	mir_decoder_feed(&d, out, sizeof(xid_mir));
	assert_int_equal(mir_decoder_counters(&d)->fcs_errors, 1);
	assert_int_equal(coll.count, 0);
}

static void test_abort_and_resync(void **state)
{
	(void)state;
	uint8_t line[128];
	size_t n = 0;

	/* Half a frame, eight 1s (abort), garbage, then a good frame. */
	memcpy(line + n, xid_mir, 10);
	n += 10;
	line[n++] = 0xFF;
	line[n++] = 0x5A;
	line[n++] = 0x33;
	memcpy(line + n, xid_mir, sizeof(xid_mir));
	n += sizeof(xid_mir);
	/* and the FF FF FF frame right after, sharing no flag */
	memcpy(line + n, ff_mir, sizeof(ff_mir));
	n += sizeof(ff_mir);

	struct mir_decoder d = dec(MIR_MAX_FRAME);
	mir_decoder_feed(&d, line, n);
	const struct mir_counters *c = mir_decoder_counters(&d);
	assert_int_equal(c->aborts, 1);
	assert_int_equal(c->frames, 2);
	assert_int_equal(coll.count, 2);
	assert_int_equal(coll.len[0], sizeof(xid));
	assert_memory_equal(coll.f[0], xid, sizeof(xid));
	assert_int_equal(coll.len[1], 3);
	assert_int_equal(mir_decoder_state(&d), MIR_RX_FRAME);

	/* reset mid-frame drops it silently */
	d = dec(MIR_MAX_FRAME);
	mir_decoder_feed(&d, xid_mir, 10);
	mir_decoder_reset(&d);
	mir_decoder_feed(&d, xid_mir + 10, sizeof(xid_mir) - 10);
	assert_int_equal(coll.count, 0);
	assert_int_equal(mir_decoder_state(&d), MIR_RX_FRAME);
}

static void test_oversize(void **state)
{
	(void)state;
	uint8_t line[64];
	size_t n = 0;

	struct mir_decoder d = dec(13);	/* XID is 14 */
	memcpy(line, xid_mir, sizeof(xid_mir));
	n = sizeof(xid_mir);
	memcpy(line + n, ff_mir, sizeof(ff_mir));
	n += sizeof(ff_mir);
	mir_decoder_feed(&d, line, n);
	assert_int_equal(mir_decoder_counters(&d)->overflows, 1);
	assert_int_equal(coll.count, 1);
	assert_int_equal(coll.len[0], 3);

	d = dec(14);		/* exactly fits */
	mir_decoder_feed(&d, xid_mir, sizeof(xid_mir));
	assert_int_equal(coll.count, 1);
	assert_int_equal(mir_decoder_counters(&d)->overflows, 0);

	assert_int_equal(mir_decoder_init(&d, rxbuf, 1, on_frame, &coll), -EINVAL);
	assert_int_equal(mir_decoder_init(&d, rxbuf, 10, NULL, &coll), -EINVAL);
}

static void test_runt(void **state)
{
	(void)state;
	/* flag, one data byte 0x00, flag: 8 bits between flags -> runt */
	static const uint8_t line[] = { 0x7E, 0x7E, 0x00, 0x7E };
	struct mir_decoder d = dec(MIR_MAX_FRAME);
	mir_decoder_feed(&d, line, sizeof(line));
	assert_int_equal(mir_decoder_counters(&d)->runts, 1);
	assert_int_equal(coll.count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_no_flag_inside),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_flipped_bit),
		cmocka_unit_test(test_abort_and_resync),
		cmocka_unit_test(test_oversize),
		cmocka_unit_test(test_runt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
