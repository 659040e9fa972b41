/*
 * test_sir.c: SIR wrapping and unwrapping against every vector of
 * irda-digest.md section 11, at every chunking, and with damage.
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
#include "sir.h"
#include "sir_vectors.h"

/* ---- a frame collector -------------------------------------------- */

#define MAX_FRAMES 8
struct collector {
	size_t count;
	size_t len[MAX_FRAMES];
	uint8_t frame[MAX_FRAMES][SIR_MAX_IFIELD + 2];
	size_t busy_calls;
	struct sir_decoder *reset_me;	/* reset from inside the callback */
};

static void on_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct collector *c = ctx;

	if (c->count < MAX_FRAMES) {
		assert_true(len <= sizeof(c->frame[0]));
		memcpy(c->frame[c->count], frame, len);
		c->len[c->count] = len;
	}
	c->count++;
	if (c->reset_me)
		sir_decoder_reset(c->reset_me);
}

static void on_busy(void *ctx)
{
	struct collector *c = ctx;
	c->busy_calls++;
}

static struct sir_decoder *decoder(struct collector *c, size_t max_ifield)
{
	memset(c, 0, sizeof(*c));
	struct sir_decoder_config cfg = {
		.max_ifield = max_ifield, .on_frame = on_frame,
		.on_media_busy = on_busy, .ctx = c,
	};
	struct sir_decoder *d = sir_decoder_new(&cfg);
	assert_non_null(d);
	return d;
}

struct vec {
	uint8_t frame[64];
	size_t flen;
	uint8_t sir[160];
	size_t slen;
};

static void load(size_t i, struct vec *v)
{
	v->flen = sir_vector_hex(sir_vectors[i].frame, v->frame, sizeof(v->frame));
	v->slen = sir_vector_hex(sir_vectors[i].sir, v->sir, sizeof(v->sir));
	assert_true(v->flen >= 2);
	assert_true(v->slen > v->flen);
}

static void assert_one_frame(const struct collector *c, const struct vec *v)
{
	assert_int_equal(c->count, 1);
	assert_int_equal(c->len[0], v->flen);
	assert_memory_equal(c->frame[0], v->frame, v->flen);
}

/* A fixed-seed generator for the random chunkings (xorshift32). */
static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* ---- encoding ------------------------------------------------------ */

static bool special(uint8_t b)
{
	return b == 0xC0 || b == 0xC1 || b == 0x7D;
}


static void encodes_every_digest_vector(void **state)
{
	assert_int_equal(SIR_VECTOR_COUNT, 27);
	for (size_t i = 0; i < SIR_VECTOR_COUNT; i++) {
		struct vec v;
		uint8_t out[200];
		struct wcursor w;

		load(i, &v);
		wcursor_init(&w, out, sizeof(out));
		int n = sir_encode(&w, v.frame, v.flen, sir_vectors[i].xbofs);
		if (n != (int)v.slen || memcmp(out, v.sir, v.slen) != 0)
			fail_msg("vector %zu (%s) encodes differently", i, sir_vectors[i].name);
		assert_true(v.slen <= sir_encoded_max(v.flen, sir_vectors[i].xbofs));
	}
}

static void worst_case_size_is_exact(void **state)
{
	assert_int_equal(sir_encoded_max(2 + 2048, 163), 4269);

	/* a frame of nothing but bytes that need escaping */
	static uint8_t frame[2 + 2048];
	static const uint8_t specials[] = { 0xC0, 0xC1, 0x7D };
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = specials[i % 3];
	uint16_t f = fcs_compute(frame, sizeof(frame));
	size_t plain_fcs = !special(f & 0xFF) + !special(f >> 8);
	size_t max = sir_encoded_max(sizeof(frame), 163);
	uint8_t *out = malloc(max);
	assert_non_null(out);
	struct wcursor w;
	wcursor_init(&w, out, max);
	int n = sir_encode(&w, frame, sizeof(frame), 163);
	assert_int_equal(n, (int)(max - plain_fcs));
	/* one byte less does not fit, and says so */
	wcursor_init(&w, out, (size_t)n - 1);
	assert_int_equal(sir_encode(&w, frame, sizeof(frame), 163), -ENOSPC);
	assert_false(wcursor_ok(&w));
	free(out);
}

static void refuses_frames_without_address_and_control(void **state)
{
	uint8_t out[16], one = 0xFF;
	struct wcursor w;

	wcursor_init(&w, out, sizeof(out));
	assert_int_equal(sir_encode(&w, &one, 1, 0), -EINVAL);
	assert_int_equal(wcursor_len(&w), 0);
}

static void turnaround_padding_rounds_up(void **state)
{
	static const struct { uint32_t baud, mtt, want; } t[] = {
		{ 9600, 10000, 10 }, { 9600, 5000, 5 }, { 9600, 1000, 1 },
		{ 9600, 500, 1 }, { 9600, 0, 0 },
		{ 19200, 10000, 20 }, { 19200, 1000, 2 },
		{ 38400, 500, 2 }, { 57600, 5000, 29 }, { 57600, 100, 1 },
		{ 115200, 10000, 116 }, { 115200, 5000, 58 }, { 115200, 1000, 12 },
		{ 115200, 500, 6 }, { 115200, 50, 1 }, { 2400, 10000, 3 },
		{ 2400, 1000, 1 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t got = sir_mtt_padding(t[i].baud, t[i].mtt);
		if (got != t[i].want)
			fail_msg("%u baud %u us: %zu, want %u", t[i].baud, t[i].mtt, got, t[i].want);
		/* never less silence than asked */
		assert_true((uint64_t)got * 10 * 1000000 >= (uint64_t)t[i].mtt * t[i].baud);
	}
	assert_int_equal(sir_line_time_us(9600, 1), 1042);
	assert_int_equal(sir_line_time_us(115200, 1), 87);
	assert_int_equal(sir_line_time_us(2400, 1), 4167);
	/* rounded once: a full turn of 4741 bytes at 115200 is 411545.1 us */
	assert_int_equal(sir_line_time_us(115200, 4741), 411546);
	assert_int_equal(sir_line_time_us(115200, 0), 0);
}

/* ---- decoding ------------------------------------------------------ */

static void decode_in_chunks(struct sir_decoder *d, const uint8_t *p, size_t n,
			     const size_t *cuts, size_t ncuts)
{
	size_t at = 0;
	for (size_t i = 0; i < ncuts; i++) {
		sir_decoder_feed(d, p + at, cuts[i] - at);
		at = cuts[i];
	}
	sir_decoder_feed(d, p + at, n - at);
}

static void decodes_every_vector_at_every_split(void **state)
{
	for (size_t i = 0; i < SIR_VECTOR_COUNT; i++) {
		struct vec v;
		struct collector c;
		load(i, &v);
		for (size_t cut = 0; cut <= v.slen; cut++) {
			struct sir_decoder *d = decoder(&c, 0);
			decode_in_chunks(d, v.sir, v.slen, &cut, 1);
			assert_one_frame(&c, &v);
			const struct sir_counters *n = sir_decoder_counters(d);
			assert_int_equal(n->frames, 1);
			assert_int_equal(n->fcs_errors + n->aborts + n->overflows + n->runts + n->noise, 0);
			assert_int_equal(n->bytes, v.slen);
			assert_false(sir_decoder_take_media_busy(d));
			assert_int_equal(sir_decoder_state(d), SIR_RX_OUTSIDE);
			sir_decoder_free(d);
		}
	}
}

static void decodes_every_vector_byte_by_byte_and_randomly(void **state)
{
	uint32_t seed = 0x1badcafe;

	for (size_t i = 0; i < SIR_VECTOR_COUNT; i++) {
		struct vec v;
		struct collector c;
		load(i, &v);

		size_t cuts[160];
		for (size_t k = 1; k < v.slen; k++)
			cuts[k - 1] = k;
		struct sir_decoder *d = decoder(&c, 0);
		decode_in_chunks(d, v.sir, v.slen, cuts, v.slen - 1);
		assert_one_frame(&c, &v);
		sir_decoder_free(d);

		for (int round = 0; round < 50; round++) {
			size_t ncuts = 0, at = 0;
			while (at < v.slen) {
				at += 1 + rnd(&seed) % 7;
				if (at < v.slen)
					cuts[ncuts++] = at;
			}
			d = decoder(&c, 0);
			decode_in_chunks(d, v.sir, v.slen, cuts, ncuts);
			assert_one_frame(&c, &v);
			sir_decoder_free(d);
		}
	}
}

static void all_vectors_back_to_back_in_one_stream(void **state)
{
	static uint8_t stream[4096];
	size_t n = 0;
	struct collector c;
	struct sir_decoder *d = decoder(&c, 0);
	size_t delivered = 0;

	for (size_t i = 0; i < SIR_VECTOR_COUNT; i++) {
		struct vec v;
		load(i, &v);
		memcpy(stream + n, v.sir, v.slen);
		n += v.slen;
	}
	/* feed in 5-byte chunks and check the frames one by one */
	size_t at = 0;
	size_t vi = 0;
	while (at < n) {
		size_t k = n - at < 5 ? n - at : 5;
		sir_decoder_feed(d, stream + at, k);
		at += k;
		while (c.count > 0) {
			struct vec v;
			load(vi++, &v);
			assert_int_equal(c.count, 1);
			assert_int_equal(c.len[0], v.flen);
			assert_memory_equal(c.frame[0], v.frame, v.flen);
			c.count = 0;
			delivered++;
		}
	}
	assert_int_equal(delivered, SIR_VECTOR_COUNT);
	assert_int_equal(sir_decoder_counters(d)->frames, SIR_VECTOR_COUNT);
	sir_decoder_free(d);
}

static void every_single_bit_flip_is_caught(void **state)
{
	for (size_t i = 0; i < SIR_VECTOR_COUNT; i++) {
		struct vec v;
		load(i, &v);
		size_t bof = 0;
		while (v.sir[bof] != 0xC0)
			bof++;
		for (size_t pos = 0; pos < v.slen; pos++) {
			for (int bit = 0; bit < 8; bit++) {
				struct collector c;
				struct sir_decoder *d = decoder(&c, 0);
				uint8_t bad[160];
				memcpy(bad, v.sir, v.slen);
				bad[pos] ^= (uint8_t)(1u << bit);
				sir_decoder_feed(d, bad, v.slen);
				const struct sir_counters *n = sir_decoder_counters(d);
				if (pos < bof) {
					/* a damaged XBOF is noise before the frame */
					assert_one_frame(&c, &v);
					assert_int_equal(n->noise, 1);
				} else if (pos > bof && pos < v.slen - 1 &&
					   !special(v.sir[pos]) && !special(bad[pos])) {
					assert_int_equal(c.count, 0);
					assert_int_equal(n->fcs_errors, 1);
				} else {
					/* BOF, EOF or an escape damaged: never a frame */
					assert_int_equal(c.count, 0);
					assert_true(n->fcs_errors + n->aborts + n->runts + n->noise > 0 ||
						    sir_decoder_in_frame(d));
				}
				if (c.count == 0)
					assert_true(sir_decoder_take_media_busy(d) ||
						    sir_decoder_in_frame(d));
				sir_decoder_free(d);
			}
		}
	}
}

static void truncated_frames_are_not_delivered_and_resync(void **state)
{
	struct vec a, b;
	load(4, &a);	/* SNRM */
	load(7, &b);	/* RR rsp */
	for (size_t cut = 0; cut < a.slen; cut++) {
		struct collector c;
		struct sir_decoder *d = decoder(&c, 0);
		sir_decoder_feed(d, a.sir, cut);
		assert_int_equal(c.count, 0);
		/* the next frame's BOF aborts the partial one and is received */
		sir_decoder_feed(d, b.sir, b.slen);
		assert_one_frame(&c, &b);
		const struct sir_counters *n = sir_decoder_counters(d);
		/* a lone BOF is followed by another BOF: allowed, no abort */
		assert_int_equal(n->aborts, cut > 1 ? 1 : 0);
		assert_int_equal(n->aborts > 0, sir_decoder_take_media_busy(d));
		sir_decoder_free(d);
	}
}

static void bof_in_the_middle_aborts_and_resyncs(void **state)
{
	struct vec a, b;
	load(10, &a);	/* GetValueByClass */
	load(22, &b);	/* DISC */
	uint8_t s[200];
	size_t half = a.slen / 2;
	memcpy(s, a.sir, half);
	memcpy(s + half, b.sir, b.slen);
	memcpy(s + half + b.slen, a.sir, a.slen);

	struct collector c;
	struct sir_decoder *d = decoder(&c, 0);
	sir_decoder_feed(d, s, half + b.slen + a.slen);
	assert_int_equal(c.count, 2);
	assert_int_equal(c.len[0], b.flen);
	assert_memory_equal(c.frame[0], b.frame, b.flen);
	assert_int_equal(c.len[1], a.flen);
	assert_memory_equal(c.frame[1], a.frame, a.flen);
	assert_int_equal(sir_decoder_counters(d)->aborts, 1);
	assert_int_equal(c.busy_calls, 1);
	sir_decoder_free(d);
}

static void encode_ifield(size_t ilen, uint8_t *out, size_t cap, size_t *outlen)
{
	uint8_t frame[2 + 64];
	frame[0] = 0x5B;
	frame[1] = 0x10;
	for (size_t i = 0; i < ilen; i++)
		frame[2 + i] = (uint8_t)(0xBE + i);	/* includes C0 C1 */
	struct wcursor w;
	wcursor_init(&w, out, cap);
	assert_true(sir_encode(&w, frame, 2 + ilen, 0) > 0);
	*outlen = wcursor_len(&w);
}

static void frames_over_the_cap_overflow(void **state)
{
	uint8_t s[200];
	size_t n;
	struct collector c;
	struct sir_decoder *d = decoder(&c, 8);

	encode_ifield(9, s, sizeof(s), &n);
	sir_decoder_feed(d, s, n);
	assert_int_equal(c.count, 0);
	assert_int_equal(sir_decoder_counters(d)->overflows, 1);
	assert_true(sir_decoder_take_media_busy(d));

	encode_ifield(8, s, sizeof(s), &n);
	sir_decoder_feed(d, s, n);
	assert_int_equal(c.count, 1);
	assert_int_equal(c.len[0], 10);
	assert_int_equal(sir_decoder_counters(d)->overflows, 1);

	/* a huge run without BOF/EOF never grows the buffer */
	uint8_t junk[5000];
	memset(junk, 0x55, sizeof(junk));
	junk[0] = 0xC0;
	sir_decoder_feed(d, junk, sizeof(junk));
	assert_int_equal(sir_decoder_counters(d)->overflows, 2);
	sir_decoder_free(d);
}

static void short_frames_are_runts(void **state)
{
	/* empty, 1 byte, A+FCS with a good FCS, FCS only (good residue) */
	uint8_t one[] = { 0xC0, 0xC1 };
	uint8_t two[] = { 0xC0, 0x5B, 0xC1 };
	uint8_t fcs_only[] = { 0xC0, 0x00, 0x00, 0xC1 };
	uint8_t a_fcs[6] = { 0xC0, 0x5B };
	uint16_t f = fcs_compute(a_fcs + 1, 1);
	a_fcs[2] = f & 0xFF;
	a_fcs[3] = f >> 8;
	assert_false(special(a_fcs[2]) || special(a_fcs[3]));
	a_fcs[4] = 0xC1;

	struct collector c;
	struct sir_decoder *d = decoder(&c, 0);
	sir_decoder_feed(d, one, sizeof(one));
	sir_decoder_feed(d, two, sizeof(two));
	sir_decoder_feed(d, fcs_only, sizeof(fcs_only));
	sir_decoder_feed(d, a_fcs, 5);
	assert_int_equal(c.count, 0);
	assert_int_equal(sir_decoder_counters(d)->runts, 4);
	assert_int_equal(sir_decoder_counters(d)->fcs_errors, 0);
	sir_decoder_free(d);
}

static void noise_outside_frames_raises_media_busy(void **state)
{
	struct collector c;
	struct sir_decoder *d = decoder(&c, 0);
	uint8_t idle[] = { 0xFF, 0xFF, 0xFF };
	uint8_t noise[] = { 0x12, 0xC1, 0x7D, 0xFF };

	sir_decoder_feed(d, idle, sizeof(idle));
	assert_false(sir_decoder_take_media_busy(d));
	assert_int_equal(c.busy_calls, 0);
	sir_decoder_feed(d, noise, sizeof(noise));
	assert_int_equal(sir_decoder_counters(d)->noise, 3);
	assert_int_equal(sir_decoder_counters(d)->media_busy, 3);
	assert_int_equal(c.busy_calls, 3);
	assert_true(sir_decoder_take_media_busy(d));
	assert_false(sir_decoder_take_media_busy(d));	/* cleared */

	/* a frame in progress is visible to the contention logic */
	uint8_t start[] = { 0xC0, 0xC0, 0x5B };
	sir_decoder_feed(d, start, 2);
	assert_int_equal(sir_decoder_state(d), SIR_RX_BEGIN);
	assert_true(sir_decoder_in_frame(d));
	sir_decoder_feed(d, start + 2, 1);
	assert_int_equal(sir_decoder_state(d), SIR_RX_INSIDE);
	sir_decoder_reset(d);
	assert_false(sir_decoder_in_frame(d));
	assert_int_equal(c.count, 0);
	sir_decoder_free(d);
}

static void escape_sequences(void **state)
{
	struct collector c;
	struct sir_decoder *d = decoder(&c, 0);
	/* CE CE is never sent: abort */
	uint8_t cece[] = { 0xC0, 0x5B, 0x7D, 0x7D, 0x11, 0xC1 };
	sir_decoder_feed(d, cece, sizeof(cece));
	assert_int_equal(c.count, 0);
	assert_int_equal(sir_decoder_counters(d)->aborts, 1);
	/* CE right after BOF escapes the address byte */
	uint8_t frame[] = { 0xC0, 0x11 };
	uint8_t s[32];
	struct wcursor w;
	wcursor_init(&w, s, sizeof(s));
	assert_true(sir_encode(&w, frame, 2, 0) > 0);
	assert_int_equal(s[1], 0x7D);
	assert_int_equal(s[2], 0xE0);
	sir_decoder_feed(d, s, wcursor_len(&w));
	assert_int_equal(c.count, 1);
	assert_int_equal(c.frame[0][0], 0xC0);
	/* EOF after a dangling CE: aborted even though the FCS of what
	 * was stored (5B 11 + 10 39) is good */
	uint8_t dangling[] = { 0xC0, 0x5B, 0x11, 0x10, 0x39, 0x7D, 0xC1 };
	sir_decoder_feed(d, dangling, sizeof(dangling));
	assert_int_equal(c.count, 1);
	assert_int_equal(sir_decoder_counters(d)->aborts, 2);
	assert_int_equal(sir_decoder_counters(d)->fcs_errors, 0);
	assert_int_equal(sir_decoder_state(d), SIR_RX_OUTSIDE);
	sir_decoder_free(d);
}

/* The frame being received, as the station's read pause sees it:
 * unescaped bytes stored so far, none between frames. */
static void partial_frame_is_visible(void **state)
{
	struct collector c;
	struct sir_decoder *d = decoder(&c, 0);
	/* XBOF, BOF, A 0x55, C escaped (7D E0 = C0), 0x01, CE pending */
	uint8_t part[] = { 0xFF, 0xC0, 0x55, 0x7D, 0xE0, 0x01, 0x7D };

	(void)state;
	assert_int_equal(sir_decoder_frame_len(d), 0);
	sir_decoder_feed(d, part, 2);
	assert_int_equal(sir_decoder_frame_len(d), 0);	/* BOF only */
	sir_decoder_feed(d, part + 2, sizeof(part) - 2);
	assert_int_equal(sir_decoder_frame_len(d), 3);
	assert_memory_equal(sir_decoder_frame(d), "\x55\xC0\x01", 3);
	sir_decoder_reset(d);
	assert_int_equal(sir_decoder_frame_len(d), 0);
	sir_decoder_free(d);
}

static void callback_may_reset_the_decoder(void **state)
{
	struct vec a;
	load(6, &a);
	struct collector c;
	struct sir_decoder *d = decoder(&c, 0);
	c.reset_me = d;
	uint8_t two[64];
	memcpy(two, a.sir, a.slen);
	memcpy(two + a.slen, a.sir, a.slen);
	sir_decoder_feed(d, two, 2 * a.slen);
	assert_int_equal(c.count, 2);
	sir_decoder_free(d);
}

static void rejects_a_config_without_callback(void **state)
{
	struct sir_decoder_config cfg = { 0 };
	assert_null(sir_decoder_new(&cfg));
	assert_null(sir_decoder_new(NULL));
	sir_decoder_free(NULL);
	assert_string_equal(sir_rx_state_name(SIR_RX_ESCAPE), "ESCAPE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(encodes_every_digest_vector),
		cmocka_unit_test(worst_case_size_is_exact),
		cmocka_unit_test(refuses_frames_without_address_and_control),
		cmocka_unit_test(turnaround_padding_rounds_up),
		cmocka_unit_test(decodes_every_vector_at_every_split),
		cmocka_unit_test(decodes_every_vector_byte_by_byte_and_randomly),
		cmocka_unit_test(all_vectors_back_to_back_in_one_stream),
		cmocka_unit_test(every_single_bit_flip_is_caught),
		cmocka_unit_test(truncated_frames_are_not_delivered_and_resync),
		cmocka_unit_test(bof_in_the_middle_aborts_and_resyncs),
		cmocka_unit_test(frames_over_the_cap_overflow),
		cmocka_unit_test(short_frames_are_runts),
		cmocka_unit_test(noise_outside_frames_raises_media_busy),
		cmocka_unit_test(escape_sequences),
		cmocka_unit_test(partial_frame_is_visible),
		cmocka_unit_test(callback_may_reset_the_decoder),
		cmocka_unit_test(rejects_a_config_without_callback),
	};
	return cmocka_run_group_tests_name("sir", tests, NULL, NULL);
}
