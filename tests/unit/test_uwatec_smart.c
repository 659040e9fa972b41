/*
 * test_uwatec_smart.c: the emulated dive computer's protocol core and
 * memory image (tests/clients/uwatec_smart.h).  The expected bytes are
 * written out here from the protocol's facts (command bytes, answer sizes,
 * header offsets), and the samples are decoded here by their codes, not
 * by the builder's own helpers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "uwatec_smart.h"

/* 2026-06-14 09:30:00 UTC, then a day and two days later */
#define T0 1781429400
static const struct uwatec_dive dives[3] = {
	{ .start = T0, .tz_quarters = 8, .minutes = 42, .max_depth_cm = 1840, .temp_dc = 212 },
	{ .start = T0 + 86400, .tz_quarters = 8, .minutes = 37, .max_depth_cm = 2536, .temp_dc = 198 },
	{ .start = T0 + 2 * 86400, .tz_quarters = -20, .minutes = 55, .max_depth_cm = 1212,
	  .temp_dc = 240 },
};

struct image {
	uint8_t mem[16384];
	size_t len;
	size_t at[3];
	struct uwatec_device dev;
};

static void build(struct image *im)
{
	struct wcursor w;

	wcursor_init(&w, im->mem, sizeof(im->mem));
	for (int i = 0; i < 3; i++) {
		im->at[i] = wcursor_len(&w);
		assert_true(uwatec_galileo_write_dive(&w, &dives[i]));
	}
	im->len = wcursor_len(&w);
	im->dev = (struct uwatec_device){ .model = 0x11, .hardware = 2, .software = 0x21,
					  .serial = 0x01020304, .clock = 0x0a0b0c0d,
					  .memory = im->mem, .memory_len = im->len };
}

static uint32_t le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static unsigned le16_at(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

/* Feeds bytes; the answer expected for the one command they hold. */
static void expect_answer(struct uwatec_session *s, const uint8_t *cmd, size_t n,
			  const uint8_t *want, size_t want_len, size_t body_len)
{
	struct cursor in;
	struct uwatec_reply r;

	cursor_init(&in, cmd, n);
	assert_int_equal(uwatec_session_input(s, &in, &r), 1);
	assert_true(cursor_at_end(&in));
	assert_int_equal(r.cmd, cmd[0]);
	assert_int_equal(r.head_len, want_len);
	assert_memory_equal(r.head, want, want_len);
	assert_int_equal(r.body_len, body_len);
}

static void handshake(struct uwatec_session *s)
{
	static const uint8_t hello[] = { 0x1b }, speed[] = { 0x1c, 0x10, 0x27, 0, 0 }, ok[] = { 1 };
	expect_answer(s, hello, sizeof(hello), ok, 1, 0);
	expect_answer(s, speed, sizeof(speed), ok, 1, 0);
	assert_int_equal(s->state, UWATEC_READY);
}

static void answers_nothing_before_the_handshake(void **state)
{
	static struct image im;
	struct uwatec_session s;
	struct cursor in;
	struct uwatec_reply r;
	static const uint8_t early[] = { 0x10, 0x1c, 0x10, 0x27, 0, 0 };

	build(&im);
	uwatec_session_init(&s, &im.dev, NULL);
	cursor_init(&in, early, sizeof(early));
	/* the model command, then the second stage first: each byte refused */
	assert_int_equal(uwatec_session_input(&s, &in, &r), -EPROTO);
	assert_int_equal(uwatec_session_input(&s, &in, &r), -EPROTO);
	assert_int_equal(s.state, UWATEC_WAIT_HELLO);
	handshake(&s);
	static const uint8_t unknown[] = { 0x55 };
	cursor_init(&in, unknown, 1);
	assert_int_equal(uwatec_session_input(&s, &in, &r), -EPROTO);
	assert_int_equal(s.state, UWATEC_READY);
}

static void answers_the_identity_commands(void **state)
{
	static struct image im;
	struct uwatec_session s;

	build(&im);
	uwatec_session_init(&s, &im.dev, NULL);
	handshake(&s);
	expect_answer(&s, (const uint8_t[]){ 0x10 }, 1, (const uint8_t[]){ 0x11 }, 1, 0);
	expect_answer(&s, (const uint8_t[]){ 0x11 }, 1, (const uint8_t[]){ 0x02 }, 1, 0);
	expect_answer(&s, (const uint8_t[]){ 0x13 }, 1, (const uint8_t[]){ 0x21 }, 1, 0);
	expect_answer(&s, (const uint8_t[]){ 0x14 }, 1, (const uint8_t[]){ 4, 3, 2, 1 }, 4, 0);
	expect_answer(&s, (const uint8_t[]){ 0x1a }, 1, (const uint8_t[]){ 0x0d, 0x0c, 0x0b, 0x0a },
		      4, 0);
}

static void reads_commands_split_and_joined(void **state)
{
	static struct image im;
	struct uwatec_session s;
	struct cursor in;
	struct uwatec_reply r;
	/* SIZE since 0 in three pieces, then DATA and MODEL in one */
	static const uint8_t a[] = { 0xc6, 0 }, b[] = { 0, 0, 0, 0x10 }, c[] = { 0x27, 0, 0 };
	static const uint8_t d[] = { 0xc4, 0, 0, 0, 0, 0x10, 0x27, 0, 0, 0x10 };

	build(&im);
	uwatec_session_init(&s, &im.dev, NULL);
	handshake(&s);
	cursor_init(&in, a, sizeof(a));
	assert_int_equal(uwatec_session_input(&s, &in, &r), 0);
	cursor_init(&in, b, sizeof(b));
	assert_int_equal(uwatec_session_input(&s, &in, &r), 0);
	cursor_init(&in, c, sizeof(c));
	assert_int_equal(uwatec_session_input(&s, &in, &r), 1);
	assert_int_equal(r.cmd, 0xc6);
	assert_int_equal(r.head_len, 4);
	assert_int_equal(le32_at(r.head), im.len);
	assert_int_equal(r.body_len, 0);

	cursor_init(&in, d, sizeof(d));
	assert_int_equal(uwatec_session_input(&s, &in, &r), 1);
	assert_int_equal(r.cmd, 0xc4);
	assert_int_equal(le32_at(r.head), im.len + 4);
	assert_ptr_equal(r.body, im.mem);
	assert_int_equal(r.body_len, im.len);
	assert_int_equal(uwatec_session_input(&s, &in, &r), 1);
	assert_int_equal(r.cmd, 0x10);
	assert_int_equal(uwatec_session_input(&s, &in, &r), 0);
}

static void gives_only_the_dives_newer_than_the_timestamp(void **state)
{
	static struct image im;
	struct uwatec_session s;
	uint8_t cmd[9] = { 0xc6 };
	uint32_t ts = (uint32_t)((dives[1].start - 946684800) * 2);

	build(&im);
	uwatec_session_init(&s, &im.dev, NULL);
	handshake(&s);
	/* the second dive's timestamp: the third dive only */
	cmd[1] = (uint8_t)ts, cmd[2] = (uint8_t)(ts >> 8), cmd[3] = (uint8_t)(ts >> 16);
	cmd[4] = (uint8_t)(ts >> 24);
	uint32_t n = (uint32_t)(im.len - im.at[2]);
	uint8_t want[4] = { (uint8_t)n, (uint8_t)(n >> 8), 0, 0 };
	expect_answer(&s, cmd, 9, want, 4, 0);
	cmd[0] = 0xc4;
	n += 4;
	uint8_t want_total[4] = { (uint8_t)n, (uint8_t)(n >> 8), 0, 0 };
	expect_answer(&s, cmd, 9, want_total, 4, im.len - im.at[2]);

	/* newer than all: nothing, and DATA answers 0 */
	cmd[4] = 0xff;
	cmd[0] = 0xc6;
	expect_answer(&s, cmd, 9, (const uint8_t[]){ 0, 0, 0, 0 }, 4, 0);
	cmd[0] = 0xc4;
	expect_answer(&s, cmd, 9, (const uint8_t[]){ 0, 0, 0, 0 }, 4, 0);
}

/* The header's fields and the samples, decoded by their codes. */
static void writes_the_galileo_layout(void **state)
{
	static struct image im;

	build(&im);
	for (int i = 0; i < 3; i++) {
		const uint8_t *h = im.mem + im.at[i];
		size_t size = (i < 2 ? im.at[i + 1] : im.len) - im.at[i];
		const struct uwatec_dive *d = &dives[i];
		assert_memory_equal(h, ((const uint8_t[]){ 0xa5, 0xa5, 0x5a, 0x5a }), 4);
		assert_int_equal(le32_at(h + 4), size);
		assert_int_equal(le32_at(h + 8), (uint32_t)((d->start - 946684800) * 2));
		assert_int_equal((int8_t)h[16], d->tz_quarters);
		assert_int_equal(le16_at(h + 22), d->max_depth_cm);
		assert_int_equal(le16_at(h + 26), d->minutes);
		assert_int_equal(le16_at(h + 30), d->temp_dc);
		assert_int_equal(h[43] & 0x80, 0);           /* not a trimix header */
		assert_int_equal(le16_at(h + 44), 21);
		assert_int_equal(le32_at(h + 92), 0);        /* fresh water, open circuit */

		/* absolute temperature, absolute depth 0, then 7-bit deltas */
		const uint8_t *p = h + 152, *end = h + size;
		assert_int_equal(p[0], 0xf3);
		assert_int_equal((p[1] << 8) | p[2], d->temp_dc / 4);   /* 0.4 degrees */
		assert_int_equal(p[3], 0xf1);
		assert_int_equal((p[4] << 8) | p[5], 0);
		int depth = 0, max = 0, samples = 1;
		for (p += 6; p < end; p++, samples++) {
			assert_int_equal(*p & 0x80, 0);
			depth += (*p & 0x40) ? (*p & 0x7f) - 128 : *p;
			assert_true(depth >= 0);
			if (depth > max)
				max = depth;
		}
		assert_int_equal(samples, d->minutes * 15);
		assert_int_equal(max * 2, d->max_depth_cm);
		assert_int_equal(depth, 0);                   /* back at the surface */
	}
	size_t off;
	assert_int_equal(uwatec_memory_since(im.mem, im.len, 0, &off), 0);
	assert_int_equal(off, 0);
}

static void refuses_dives_it_cannot_write(void **state)
{
	struct uwatec_dive d = dives[0];
	uint8_t small[64];
	struct wcursor w;

	d.max_depth_cm = 1841;                               /* odd: the samples count 2 cm */
	assert_int_equal(uwatec_galileo_dive_size(&d), 0);
	d = dives[0];
	d.start = 946684799;                                 /* before 2000 */
	assert_int_equal(uwatec_galileo_dive_size(&d), 0);
	d = dives[0];
	d.minutes = 1;
	d.max_depth_cm = 4000;                               /* 40 m in 15 samples */
	assert_int_equal(uwatec_galileo_dive_size(&d), 0);
	wcursor_init(&w, small, sizeof(small));
	assert_false(uwatec_galileo_write_dive(&w, &dives[0]));
	assert_false(wcursor_ok(&w));
}

static void an_image_that_does_not_walk(void **state)
{
	static struct image im;
	size_t off;

	build(&im);
	assert_int_equal(uwatec_memory_since(im.mem, im.len - 1, 0, &off), -EBADMSG);
	im.mem[im.at[1]] = 0;
	assert_int_equal(uwatec_memory_since(im.mem, im.len, 0, &off), -EBADMSG);
	struct uwatec_session s;
	struct cursor in;
	struct uwatec_reply r;
	static const uint8_t size[] = { 0xc6, 0, 0, 0, 0, 0x10, 0x27, 0, 0 };
	uwatec_session_init(&s, &im.dev, NULL);
	handshake(&s);
	cursor_init(&in, size, sizeof(size));
	assert_int_equal(uwatec_session_input(&s, &in, &r), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(answers_nothing_before_the_handshake),
		cmocka_unit_test(answers_the_identity_commands),
		cmocka_unit_test(reads_commands_split_and_joined),
		cmocka_unit_test(gives_only_the_dives_newer_than_the_timestamp),
		cmocka_unit_test(writes_the_galileo_layout),
		cmocka_unit_test(refuses_dives_it_cannot_write),
		cmocka_unit_test(an_image_that_does_not_walk),
	};
	return cmocka_run_group_tests_name("uwatec_smart", tests, NULL, NULL);
}
