/*
 * test_ppp_hdlc.c: RFC 1662 async HDLC framing (ppp_hdlc.h): vectors
 * worked out apart from the code, round trips at every chunking, damage,
 * aborts, shared and empty flags, the frame cap, the receive ACCM, a full
 * cursor, and IrNET's pass-through rule.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fcs.h"
#include "ppp_hdlc.h"

/* ---- vectors -------------------------------------------------------- */

/* The LCP Configure-Request of irda-digest.md 11.5 (id 1, magic
 * 0x12345678, PFC, ACFC). */
static const uint8_t lcp_frame[] = {
	0xFF, 0x03, 0xC0, 0x21, 0x01, 0x01, 0x00, 0x0E, 0x05, 0x06,
	0x12, 0x34, 0x56, 0x78, 0x07, 0x02, 0x08, 0x02,
};

/*
 * Worked out with this python3, which shares nothing with fcs.c (bitwise
 * CRC, no table):
 *
 *   def crc(d):
 *       c = 0xFFFF
 *       for b in d:
 *           c ^= b
 *           for _ in range(8):
 *               c = (c >> 1) ^ 0x8408 if c & 1 else c >> 1
 *       return c
 *   def enc(b, accm):
 *       o = bytearray([0x7e])
 *       for x in b:
 *           if x in (0x7d, 0x7e) or (x < 0x20 and accm >> x & 1):
 *               o += bytes([0x7d, x ^ 0x20])
 *           else:
 *               o.append(x)
 *       return o + b'\x7e'
 *   f = bytes.fromhex('ff03c021010100' '0e0506123456780702' '0802')
 *   fcs = crc(f) ^ 0xFFFF                   # 0x0ee6, sent e6 0e
 *   enc(f + bytes([fcs & 0xff, fcs >> 8]), 0xffffffff).hex(' ')
 */
static const uint8_t lcp_accm_all[] = {
	0x7E, 0xFF, 0x7D, 0x23, 0xC0, 0x21, 0x7D, 0x21, 0x7D, 0x21, 0x7D, 0x20,
	0x7D, 0x2E, 0x7D, 0x25, 0x7D, 0x26, 0x7D, 0x32, 0x34, 0x56, 0x78,
	0x7D, 0x27, 0x7D, 0x22, 0x7D, 0x28, 0x7D, 0x22, 0xE6, 0x7D, 0x2E, 0x7E,
};
/* the same with enc(..., 0) */
static const uint8_t lcp_accm_none[] = {
	0x7E, 0xFF, 0x03, 0xC0, 0x21, 0x01, 0x01, 0x00, 0x0E, 0x05, 0x06,
	0x12, 0x34, 0x56, 0x78, 0x07, 0x02, 0x08, 0x02, 0xE6, 0x0E, 0x7E,
};

/* IPCP Configure-Request (id 0x73, address 10.0.0.1) without FF 03
 * (ACFC), chosen with the python above so that its FCS is 0x7e7e: both
 * FCS bytes must be escaped.  enc(f + fcs, 0). */
static const uint8_t ipcp_frame[] = {
	0x80, 0x21, 0x01, 0x73, 0x00, 0x0A, 0x03, 0x06, 0x0A, 0x00, 0x00, 0x01,
};
static const uint8_t ipcp_accm_none[] = {
	0x7E, 0x80, 0x21, 0x01, 0x73, 0x00, 0x0A, 0x03, 0x06, 0x0A, 0x00, 0x00,
	0x01, 0x7D, 0x5E, 0x7D, 0x5E, 0x7E,
};

/* ---- a frame collector ---------------------------------------------- */

#define MAX_FRAMES 64
#define MAX_LEN 4096
struct collector {
	size_t count;
	size_t len[MAX_FRAMES];
	uint8_t frame[MAX_FRAMES][MAX_LEN];
	struct ppp_hdlc_decoder *reset_me;
};

static void on_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct collector *c = ctx;

	if (c->count < MAX_FRAMES) {
		assert_true(len <= MAX_LEN);
		memcpy(c->frame[c->count], frame, len);
		c->len[c->count] = len;
	}
	c->count++;
	if (c->reset_me)
		ppp_hdlc_decoder_reset(c->reset_me);
}

static struct collector *new_collector(void)
{
	struct collector *c = calloc(1, sizeof(*c));
	assert_non_null(c);
	return c;
}

static struct ppp_hdlc_decoder *decoder(struct collector *c, size_t max_frame,
					 uint32_t rx_accm, const struct logger *log)
{
	struct ppp_hdlc_decoder_config cfg = {
		.max_frame = max_frame, .rx_accm = rx_accm,
		.on_frame = on_frame, .ctx = c, .log = log,
	};
	struct ppp_hdlc_decoder *d = ppp_hdlc_decoder_new(&cfg);
	assert_non_null(d);
	return d;
}

static void assert_frame(const struct collector *c, size_t i, const uint8_t *f, size_t n)
{
	assert_true(i < c->count);
	assert_int_equal(c->len[i], n);
	assert_memory_equal(c->frame[i], f, n);
}

/* Encodes with a fresh encoder into buf, asserting success. */
static size_t encode(uint32_t accm, const uint8_t *f, size_t n, unsigned flags,
		     uint8_t *buf, size_t cap)
{
	struct ppp_hdlc_encoder e;
	struct wcursor w;

	ppp_hdlc_encoder_init(&e, accm);
	wcursor_init(&w, buf, cap);
	int r = ppp_hdlc_encode(&e, &w, f, n, flags);
	assert_true(r > 0);
	assert_int_equal((size_t)r, wcursor_len(&w));
	assert_int_equal((size_t)r, ppp_hdlc_encoded_len(&e, f, n, flags));
	assert_true((size_t)r <= ppp_hdlc_encoded_max(n));
	return (size_t)r;
}

/* One piece of a test line: a frame to encode, or bytes as they are. */
#define RAW 0x100u
struct piece {
	const uint8_t *f;
	size_t n;
	unsigned flags;		/* ppp_hdlc_encode() flags, or RAW */
};

static size_t build_line(uint32_t accm, const struct piece *p, size_t count,
			 uint8_t *line, size_t cap)
{
	struct ppp_hdlc_encoder e;
	struct wcursor w;

	ppp_hdlc_encoder_init(&e, accm);
	wcursor_init(&w, line, cap);
	for (size_t i = 0; i < count; i++) {
		if (p[i].flags & RAW)
			assert_true(wcursor_bytes(&w, p[i].f, p[i].n));
		else
			assert_true(ppp_hdlc_encode(&e, &w, p[i].f, p[i].n, p[i].flags) > 0);
	}
	return wcursor_len(&w);
}

/* A new decoder, the collector emptied, fed the whole line. */
static struct ppp_hdlc_decoder *decode_line(struct collector *c, size_t max_frame,
					     uint32_t rx_accm, const uint8_t *line, size_t n)
{
	memset(c, 0, offsetof(struct collector, frame));
	struct ppp_hdlc_decoder *d = decoder(c, max_frame, rx_accm, NULL);
	ppp_hdlc_decoder_feed(d, line, n);
	return d;
}

static uint32_t rng_next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* ---- encoding ------------------------------------------------------- */

static void encodes_lcp_request_byte_for_byte(void **state)
{
	(void)state;
	uint8_t buf[128];

	size_t n = encode(PPP_HDLC_ACCM_ALL, lcp_frame, sizeof(lcp_frame), 0, buf, sizeof(buf));
	assert_int_equal(n, sizeof(lcp_accm_all));
	assert_memory_equal(buf, lcp_accm_all, n);

	n = encode(0, lcp_frame, sizeof(lcp_frame), 0, buf, sizeof(buf));
	assert_int_equal(n, sizeof(lcp_accm_none));
	assert_memory_equal(buf, lcp_accm_none, n);

	n = encode(0, ipcp_frame, sizeof(ipcp_frame), 0, buf, sizeof(buf));
	assert_int_equal(n, sizeof(ipcp_accm_none));
	assert_memory_equal(buf, ipcp_accm_none, n);

	/* without the opening flag: the same bytes minus the first */
	n = encode(0, ipcp_frame, sizeof(ipcp_frame), PPP_HDLC_ENC_NO_OPEN_FLAG,
		   buf, sizeof(buf));
	assert_int_equal(n, sizeof(ipcp_accm_none) - 1);
	assert_memory_equal(buf, ipcp_accm_none + 1, n);
}

/* The receiver's view: everything between the flags, unescaped, leaves
 * the good residue (a check that does not trust the vector above). */
static void encoded_fcs_leaves_the_good_residue(void **state)
{
	(void)state;
	uint8_t raw[64];
	size_t n = 0;

	for (size_t i = 1; i + 1 < sizeof(lcp_accm_all); i++) {
		uint8_t b = lcp_accm_all[i];
		if (b == 0x7D)
			b = lcp_accm_all[++i] ^ 0x20;
		raw[n++] = b;
	}
	assert_int_equal(n, sizeof(lcp_frame) + 2);
	assert_memory_equal(raw, lcp_frame, sizeof(lcp_frame));
	assert_true(fcs_check(raw, n));
	assert_int_equal(fcs_update(FCS_INIT, raw, n), FCS_GOOD_RESIDUE);
}

static void escapes_exactly_the_accm_and_both_specials(void **state)
{
	(void)state;
	uint8_t all[256];
	uint8_t buf[600];

	for (int i = 0; i < 256; i++)
		all[i] = (uint8_t)i;
	/* 0x00 and 0x13 (XOFF) only */
	uint32_t accm = 1u << 0 | 1u << 0x13;
	size_t n = encode(accm, all, sizeof(all), 0, buf, sizeof(buf));
	size_t esc = 0;
	for (size_t i = 1; i + 1 < n; i++) {
		uint8_t b = buf[i];
		assert_int_not_equal(b, 0x7E);
		if (b == 0x7D) {
			uint8_t v = buf[++i] ^ 0x20;
			if (i < 1 + 256 + esc)	/* in the frame part, not the FCS */
				assert_true(v == 0x00 || v == 0x13 || v == 0x7D || v == 0x7E);
			esc++;
		} else if (i < 1 + 256 + esc) {
			assert_false(b == 0x00 || b == 0x13);
		}
	}
	assert_true(esc >= 4);
	assert_int_equal(buf[0], 0x7E);
	assert_int_equal(buf[n - 1], 0x7E);
}

static void worst_case_size_is_exact(void **state)
{
	(void)state;
	uint8_t f[100];
	uint8_t buf[300];

	memset(f, 0x7E, sizeof(f));
	/* seven 0x7E have the FCS 0x071c (python above): both FCS bytes
	 * need escaping too, so this is the worst case exactly */
	assert_int_equal(fcs_compute(f, 7), 0x071C);
	size_t worst = encode(PPP_HDLC_ACCM_ALL, f, 7, 0, buf, sizeof(buf));
	assert_int_equal(worst, ppp_hdlc_encoded_max(7));
	assert_int_equal(worst, 20);
	assert_int_equal(ppp_hdlc_encoded_max(0), 6);
	assert_int_equal(ppp_hdlc_encoded_max(1500), 3006);
	/* and never more than the bound for any frame */
	size_t n = encode(PPP_HDLC_ACCM_ALL, f, sizeof(f), 0, buf, sizeof(buf));
	assert_true(n <= ppp_hdlc_encoded_max(sizeof(f)));
	assert_true(n >= 2 * sizeof(f) + 4);
}

static void full_cursor_gets_enospc_and_stays_unchanged(void **state)
{
	(void)state;
	struct ppp_hdlc_encoder e;
	struct wcursor w;
	uint8_t buf[64];
	size_t need = sizeof(lcp_accm_all);

	ppp_hdlc_encoder_init(&e, PPP_HDLC_ACCM_ALL);
	for (size_t cap = 0; cap < need; cap++) {
		memset(buf, 0xAA, sizeof(buf));
		wcursor_init(&w, buf, cap);
		assert_int_equal(ppp_hdlc_encode(&e, &w, lcp_frame, sizeof(lcp_frame), 0), -ENOSPC);
		assert_int_equal(wcursor_len(&w), 0);
		assert_true(wcursor_ok(&w));
		for (size_t i = 0; i < sizeof(buf); i++)
			assert_int_equal(buf[i], 0xAA);
	}
	/* after a frame already in the buffer: the first one stays whole */
	wcursor_init(&w, buf, need + need - 1);
	assert_int_equal(ppp_hdlc_encode(&e, &w, lcp_frame, sizeof(lcp_frame), 0), (int)need);
	assert_int_equal(ppp_hdlc_encode(&e, &w, lcp_frame, sizeof(lcp_frame), 0), -ENOSPC);
	assert_int_equal(wcursor_len(&w), need);
	assert_true(wcursor_ok(&w));
	assert_memory_equal(buf, lcp_accm_all, need);
	/* exactly enough room */
	wcursor_init(&w, buf, need);
	assert_int_equal(ppp_hdlc_encode(&e, &w, lcp_frame, sizeof(lcp_frame), 0), (int)need);
	assert_int_equal(wcursor_room(&w), 0);
	/* an empty frame is refused */
	wcursor_init(&w, buf, sizeof(buf));
	assert_int_equal(ppp_hdlc_encode(&e, &w, lcp_frame, 0, 0), -EINVAL);
	assert_int_equal(wcursor_len(&w), 0);
}

/* ---- round trips ---------------------------------------------------- */

#define RT_FRAMES 4
struct stream {
	uint8_t frame[RT_FRAMES][1600];
	size_t flen[RT_FRAMES];
	uint8_t line[RT_FRAMES * 3300];
	size_t llen;
};

/* Random frames (fixed seed), some with every byte special, joined with
 * and without shared flags. */
static void make_stream(struct stream *s, uint32_t *seed, uint32_t accm)
{
	struct ppp_hdlc_encoder e;
	struct wcursor w;

	ppp_hdlc_encoder_init(&e, accm);
	wcursor_init(&w, s->line, sizeof(s->line));
	for (size_t i = 0; i < RT_FRAMES; i++) {
		size_t n = 1 + rng_next(seed) % (i == 0 ? 8 : 1500);
		uint32_t kind = rng_next(seed) % 3;
		for (size_t k = 0; k < n; k++) {
			uint32_t r = rng_next(seed);
			static const uint8_t special[] = { 0x7D, 0x7E, 0x00, 0x11, 0x13, 0x1F, 0x20, 0xFF };
			s->frame[i][k] = kind == 0 ? (uint8_t)r : special[r % sizeof(special)];
		}
		s->flen[i] = n;
		unsigned flags = (i > 0 && (rng_next(seed) & 1)) ? PPP_HDLC_ENC_NO_OPEN_FLAG : 0;
		assert_true(ppp_hdlc_encode(&e, &w, s->frame[i], n, flags) > 0);
	}
	s->llen = wcursor_len(&w);
}

static void assert_stream_decoded(const struct collector *c, const struct stream *s,
				  struct ppp_hdlc_decoder *d)
{
	assert_int_equal(c->count, RT_FRAMES);
	for (size_t i = 0; i < RT_FRAMES; i++)
		assert_frame(c, i, s->frame[i], s->flen[i]);
	const struct ppp_hdlc_rx_counters *n = ppp_hdlc_decoder_counters(d);
	assert_int_equal(n->frames, RT_FRAMES);
	assert_int_equal(n->fcs_errors + n->aborts + n->too_long + n->runts +
			 n->accm_discards + n->escape_errors + n->hunt_discards, 0);
	assert_int_equal(n->bytes, s->llen);
}

static void round_trip_at_every_split_point(void **state)
{
	(void)state;
	static struct stream s;
	struct collector *c = new_collector();
	uint32_t seed = 0x2545F491u;
	static const uint32_t accms[] = { 0, PPP_HDLC_ACCM_ALL };

	for (size_t a = 0; a < 2; a++) {
		make_stream(&s, &seed, accms[a]);
		/* the first frames only, to keep the quadratic part short */
		size_t upto = s.llen < 800 ? s.llen : 800;
		for (size_t cut = 0; cut <= upto; cut++) {
			memset(c, 0, offsetof(struct collector, frame));
			struct ppp_hdlc_decoder *d = decoder(c, 1600, 0, NULL);
			ppp_hdlc_decoder_feed(d, s.line, cut);
			ppp_hdlc_decoder_feed(d, s.line + cut, s.llen - cut);
			assert_stream_decoded(c, &s, d);
			ppp_hdlc_decoder_free(d);
		}
	}
	free(c);
}

static void round_trip_at_random_chunkings(void **state)
{
	(void)state;
	static struct stream s;
	struct collector *c = new_collector();
	uint32_t seed = 0x9E3779B9u;
	static const uint32_t accms[] = { 0, PPP_HDLC_ACCM_ALL };

	for (size_t a = 0; a < 2; a++) {
		for (int run = 0; run < 50; run++) {
			make_stream(&s, &seed, accms[a]);
			memset(c, 0, offsetof(struct collector, frame));
			/* the receive ACCM may be anything when the sender
			 * escaped every control character */
			uint32_t rx = accms[a] == PPP_HDLC_ACCM_ALL ? rng_next(&seed) : 0;
			struct ppp_hdlc_decoder *d = decoder(c, 1600, rx, NULL);
			size_t at = 0;
			while (at < s.llen) {
				size_t k = 1 + rng_next(&seed) % (run % 2 ? 7 : 700);
				if (k > s.llen - at)
					k = s.llen - at;
				ppp_hdlc_decoder_feed(d, s.line + at, k);
				at += k;
			}
			assert_stream_decoded(c, &s, d);
			ppp_hdlc_decoder_free(d);
		}
	}
	free(c);
}

static void digest_lcp_frame_round_trip(void **state)
{
	(void)state;
	struct collector *c = new_collector();
	uint8_t buf[128];

	for (int a = 0; a < 2; a++) {
		memset(c, 0, offsetof(struct collector, frame));
		size_t n = encode(a ? PPP_HDLC_ACCM_ALL : 0, lcp_frame, sizeof(lcp_frame), 0,
				  buf, sizeof(buf));
		struct ppp_hdlc_decoder *d = decoder(c, 0, 0, NULL);
		for (size_t i = 0; i < n; i++)	/* byte by byte */
			ppp_hdlc_decoder_feed(d, buf + i, 1);
		assert_int_equal(c->count, 1);
		assert_frame(c, 0, lcp_frame, sizeof(lcp_frame));
		ppp_hdlc_decoder_free(d);
	}
	struct ppp_frame_info info;
	assert_int_equal(ppp_frame_parse(lcp_frame, sizeof(lcp_frame), &info), 0);
	assert_true(info.has_ac);
	assert_false(info.proto_compressed);
	assert_int_equal(info.protocol, 0xC021);
	assert_int_equal(info.header_len, 4);
	assert_false(info.lcp_rule_broken);
	free(c);
}

/* ---- damage --------------------------------------------------------- */

static void every_single_bit_flip_is_rejected(void **state)
{
	(void)state;
	struct collector *c = new_collector();
	uint8_t a[200], line[2 * 420];
	uint32_t seed = 77;
	static const uint32_t accms[] = { 0, PPP_HDLC_ACCM_ALL };

	for (size_t k = 0; k < sizeof(a); k++)
		a[k] = (uint8_t)rng_next(&seed);
	a[5] = 0x7E;
	a[9] = 0x7D;
	a[11] = 0x11;
	for (size_t ai = 0; ai < 2; ai++) {
		/* with ACCM_ALL sent, the receiver may drop unescaped control
		 * characters: a flip that makes one is a lost byte */
		uint32_t rx = accms[ai];
		size_t na = encode(accms[ai], a, 60, 0, line, sizeof(line));
		size_t nb = encode(accms[ai], lcp_frame, sizeof(lcp_frame), 0,
				   line + na, sizeof(line) - na);
		for (size_t bit = 0; bit < na * 8; bit++) {
			line[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			struct ppp_hdlc_decoder *d = decode_line(c, 0, rx, line, na + nb);
			line[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			/* frame A is never delivered, damaged or cut; B is */
			for (size_t i = 0; i < c->count; i++)
				assert_true(c->len[i] != 60 || memcmp(c->frame[i], a, 60) != 0);
			assert_int_equal(c->count, 1);
			assert_frame(c, 0, lcp_frame, sizeof(lcp_frame));
			ppp_hdlc_decoder_free(d);
		}
	}
	free(c);
}

/* Junk or damage, then the LCP frame: exactly the LCP frame comes out
 * and the counters are exactly want (bytes and frames aside). */
static struct ppp_hdlc_decoder *after_prefix(struct collector *c, const uint8_t *prefix,
					      size_t plen, unsigned lcp_flags,
					      struct ppp_hdlc_rx_counters want)
{
	uint8_t line[256];
	const struct piece p[] = {
		{ prefix, plen, RAW },
		{ lcp_frame, sizeof(lcp_frame), lcp_flags },
	};
	size_t n = build_line(PPP_HDLC_ACCM_ALL, p, 2, line, sizeof(line));
	struct ppp_hdlc_decoder *d = decode_line(c, 0, 0, line, n);
	assert_int_equal(c->count, 1);
	assert_frame(c, 0, lcp_frame, sizeof(lcp_frame));
	want.bytes = n;
	want.frames = 1;
	assert_memory_equal(ppp_hdlc_decoder_counters(d), &want, sizeof(want));
	return d;
}

static void abort_sequence_drops_the_frame_and_its_flag_opens_the_next(void **state)
{
	(void)state;
	struct collector *c = new_collector();
	static const uint8_t partial[] = { 0x7E, 0xFF, 0x03, 0xC0, 0x21, 0x7D, 0x7E };
	/* the abort's 7E is the only flag in front of the next frame */
	struct ppp_hdlc_decoder *d = after_prefix(c, partial, sizeof(partial),
		PPP_HDLC_ENC_NO_OPEN_FLAG, (struct ppp_hdlc_rx_counters){ .aborts = 1 });
	/* an abort right after a flag (nothing stored) is still an abort */
	static const uint8_t bare_abort[] = { 0x7E, 0x7D, 0x7E };
	ppp_hdlc_decoder_feed(d, bare_abort, sizeof(bare_abort));
	assert_int_equal(ppp_hdlc_decoder_counters(d)->aborts, 2);
	assert_int_equal(ppp_hdlc_decoder_state(d), PPP_HDLC_RX_DATA);
	ppp_hdlc_decoder_free(d);
	free(c);
}

static void escape_escape_is_dropped_until_the_next_flag(void **state)
{
	(void)state;
	struct collector *c = new_collector();
	static const uint8_t bad[] = { 0x7E, 0xFF, 0x7D, 0x7D, 0x41, 0x42, 0x7E };
	ppp_hdlc_decoder_free(after_prefix(c, bad, sizeof(bad), PPP_HDLC_ENC_NO_OPEN_FLAG,
		(struct ppp_hdlc_rx_counters){ .escape_errors = 1, .hunt_discards = 2 }));
	free(c);
}

static void back_to_back_frames_share_one_flag(void **state)
{
	(void)state;
	struct collector *c = new_collector();
	uint8_t line[256];
	const struct piece p[] = {
		{ lcp_frame, sizeof(lcp_frame), 0 },
		{ ipcp_frame, sizeof(ipcp_frame), PPP_HDLC_ENC_NO_OPEN_FLAG },
		{ lcp_frame, sizeof(lcp_frame), PPP_HDLC_ENC_NO_OPEN_FLAG },
	};
	size_t n = build_line(0, p, 3, line, sizeof(line));
	size_t flags = 0;
	for (size_t i = 0; i < n; i++)
		flags += line[i] == 0x7E;
	assert_int_equal(flags, 4);
	struct ppp_hdlc_decoder *d = decode_line(c, 0, 0, line, n);
	assert_int_equal(c->count, 3);
	for (size_t i = 0; i < 3; i++)
		assert_frame(c, i, p[i].f, p[i].n);
	assert_int_equal(ppp_hdlc_decoder_counters(d)->empty, 0);
	ppp_hdlc_decoder_free(d);
	free(c);
}

static void empty_frames_and_runts_are_counted_not_delivered(void **state)
{
	(void)state;
	struct collector *c = new_collector();
	uint8_t line[16];
	/* noise before the first flag, three empty frames, runts of one and
	 * two bytes, then the LCP frame (its own opening flag makes one more
	 * empty frame) */
	static const uint8_t head[] = {
		0x41, 0x42, 0x7E, 0x7E, 0x7E, 0x7E, 0x55, 0x7E, 0x55, 0x7D, 0x5E, 0x7E,
	};
	ppp_hdlc_decoder_free(after_prefix(c, head, sizeof(head), 0,
		(struct ppp_hdlc_rx_counters){ .hunt_discards = 2, .empty = 4, .runts = 2 }));

	/* the shortest good frame: one byte and its FCS */
	static const uint8_t one[] = { 0x21 };
	size_t n = encode(0, one, 1, 0, line, sizeof(line));
	struct ppp_hdlc_decoder *d = decode_line(c, 0, 0, line, n);
	assert_int_equal(c->count, 1);
	assert_frame(c, 0, one, 1);
	ppp_hdlc_decoder_free(d);
	free(c);
}

static void too_long_frame_is_dropped_then_the_next_decodes(void **state)
{
	(void)state;
	struct collector *c = new_collector();
	uint8_t f[40], line[256];

	for (size_t i = 0; i < sizeof(f); i++)
		f[i] = (uint8_t)(0x30 + i);
	const struct piece p[] = {
		{ f, 17, 0 },			/* one too many */
		{ f, 16, PPP_HDLC_ENC_NO_OPEN_FLAG },
		{ f, 40, PPP_HDLC_ENC_NO_OPEN_FLAG },
		{ f + 1, 3, PPP_HDLC_ENC_NO_OPEN_FLAG },
	};
	size_t n = build_line(0, p, 4, line, sizeof(line));
	struct ppp_hdlc_decoder *d = decode_line(c, 16, 0, line, n);
	assert_int_equal(c->count, 2);
	assert_frame(c, 0, f, 16);
	assert_frame(c, 1, f + 1, 3);
	assert_int_equal(ppp_hdlc_decoder_counters(d)->too_long, 2);
	assert_int_equal(ppp_hdlc_decoder_counters(d)->fcs_errors, 0);
	ppp_hdlc_decoder_free(d);

	/* a flagless flood never grows anything: counted, then recovery */
	static const uint8_t flag = 0x7E;
	d = decode_line(c, 16, 0, &flag, 1);
	for (int i = 0; i < 1000; i++)
		ppp_hdlc_decoder_feed(d, f, sizeof(f));
	assert_int_equal(ppp_hdlc_decoder_state(d), PPP_HDLC_RX_HUNT);
	assert_int_equal(ppp_hdlc_decoder_counters(d)->too_long, 1);
	n = encode(0, lcp_frame, 4, 0, line, sizeof(line));
	ppp_hdlc_decoder_feed(d, line, n);
	assert_int_equal(c->count, 1);
	assert_frame(c, 0, lcp_frame, 4);
	ppp_hdlc_decoder_free(d);
	free(c);
}

static void receive_accm_removes_inserted_control_characters(void **state)
{
	(void)state;
	struct collector *c = new_collector();
	uint8_t clean[64], line[128];
	/* XON 0x11 and XOFF 0x13, as a modem with software flow control
	 * might insert them */
	const uint32_t xonxoff = 1u << 0x11 | 1u << 0x13;

	/* sent with an ACCM escaping them, so the frame's own 0x11 and 0x13
	 * travel as 7D 31 and 7D 33 and survive the receive ACCM */
	static const uint8_t f[] = { 0xFF, 0x03, 0x00, 0x21, 0x45, 0x11, 0x13, 0x00, 0x01 };
	size_t n = encode(xonxoff, f, sizeof(f), 0, clean, sizeof(clean));
	/* insert XON after the opening flag, XOFF between an escape and its
	 * byte, XON just before the closing flag */
	size_t m = 0, inserted = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == n - 1) {
			line[m++] = 0x11;
			inserted++;
		}
		line[m++] = clean[i];
		if (i == 0 || clean[i] == 0x7D) {
			line[m++] = i == 0 ? 0x11 : 0x13;
			inserted++;
		}
	}
	struct ppp_hdlc_decoder *d = decode_line(c, 0, xonxoff, line, m);
	assert_int_equal(c->count, 1);
	assert_frame(c, 0, f, sizeof(f));
	assert_int_equal(ppp_hdlc_decoder_counters(d)->accm_discards, inserted);
	assert_true(inserted >= 4);
	ppp_hdlc_decoder_free(d);

	/* without them in the receive ACCM, the inserted bytes are data and
	 * the FCS catches them */
	d = decode_line(c, 0, 0, line, m);
	assert_int_equal(c->count, 0);
	assert_int_equal(ppp_hdlc_decoder_counters(d)->accm_discards, 0);
	ppp_hdlc_decoder_free(d);

	/* a receive ACCM of all control characters with a sender that did not
	 * escape them loses real data: why the helper's rx ACCM is 0 */
	n = encode(0, f, sizeof(f), 0, clean, sizeof(clean));
	size_t controls = 0;
	for (size_t i = 0; i < n; i++)
		controls += clean[i] < 0x20;
	assert_true(controls >= 6);
	d = decode_line(c, 0, PPP_HDLC_ACCM_ALL, clean, n);
	assert_int_equal(c->count, 0);
	assert_int_equal(ppp_hdlc_decoder_counters(d)->accm_discards, controls);
	ppp_hdlc_decoder_free(d);
	free(c);
}

/* ---- IrNET: frames pass through unchanged --------------------------- */

static void frames_pass_through_unchanged_both_ways(void **state)
{
	(void)state;
	struct collector *c = new_collector();
	uint8_t line[256];
	/* what pppd may hand over after LCP: with and without FF 03, with a
	 * 2-byte and a 1-byte (PFC) protocol field */
	static const uint8_t ip_full[] = { 0xFF, 0x03, 0x00, 0x21, 0x45, 0x00, 0x00, 0x14 };
	static const uint8_t ip_acfc[] = { 0x00, 0x21, 0x45, 0x00, 0x00, 0x14 };
	static const uint8_t ip_pfc[] = { 0xFF, 0x03, 0x21, 0x45, 0x00, 0x00, 0x14 };
	static const uint8_t ip_both[] = { 0x21, 0x45, 0x00, 0x00, 0x14 };
	const struct { const uint8_t *f; size_t n; bool ac, pfc; } v[] = {
		{ ip_full, sizeof(ip_full), true, false },
		{ ip_acfc, sizeof(ip_acfc), false, false },
		{ ip_pfc, sizeof(ip_pfc), true, true },
		{ ip_both, sizeof(ip_both), false, true },
		{ lcp_frame, sizeof(lcp_frame), true, false },
		{ ipcp_frame, sizeof(ipcp_frame), false, false },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		/* IrNET -> pty: the SDU framed; the receiver's unescaped bytes
		 * between the flags are the SDU and its FCS, nothing added */
		size_t n = encode(PPP_HDLC_ACCM_ALL, v[i].f, v[i].n, 0, line, sizeof(line));
		uint8_t raw[64];
		size_t r = 0;
		for (size_t k = 1; k + 1 < n; k++)
			raw[r++] = line[k] == 0x7D ? line[++k] ^ 0x20 : line[k];
		assert_int_equal(r, v[i].n + 2);
		assert_memory_equal(raw, v[i].f, v[i].n);
		/* pty -> IrNET: the decoded frame is the SDU, byte for byte */
		struct ppp_hdlc_decoder *d = decode_line(c, 0, 0, line, n);
		assert_int_equal(c->count, 1);
		assert_frame(c, 0, v[i].f, v[i].n);
		ppp_hdlc_decoder_free(d);

		assert_int_equal(ppp_frame_has_ac(v[i].f, v[i].n), v[i].ac);
		struct ppp_frame_info info;
		assert_int_equal(ppp_frame_parse(v[i].f, v[i].n, &info), 0);
		assert_int_equal(info.has_ac, v[i].ac);
		assert_int_equal(info.proto_compressed, v[i].pfc);
		assert_int_equal(info.header_len, (v[i].ac ? 2u : 0u) + (v[i].pfc ? 1u : 2u));
	}
	/* the same packet with and without ACFC compares equal ... */
	assert_true(ppp_frame_equal_ignoring_ac(ip_full, sizeof(ip_full), ip_acfc, sizeof(ip_acfc)));
	assert_true(ppp_frame_equal_ignoring_ac(ip_acfc, sizeof(ip_acfc), ip_full, sizeof(ip_full)));
	assert_true(ppp_frame_equal_ignoring_ac(ip_pfc, sizeof(ip_pfc), ip_both, sizeof(ip_both)));
	/* ... but PFC changes the bytes, and so does anything else */
	assert_false(ppp_frame_equal_ignoring_ac(ip_full, sizeof(ip_full), ip_pfc, sizeof(ip_pfc)));
	assert_false(ppp_frame_equal_ignoring_ac(ip_full, sizeof(ip_full), ip_full, sizeof(ip_full) - 1));
	static const uint8_t only_ac[] = { 0xFF, 0x03 };
	assert_true(ppp_frame_equal_ignoring_ac(only_ac, 2, only_ac, 0));
	free(c);
}

static void frame_parse_rejects_malformed_headers(void **state)
{
	(void)state;
	struct ppp_frame_info info;
	static const uint8_t ff[] = { 0xFF };
	static const uint8_t ff04[] = { 0xFF, 0x04, 0xC0, 0x21 };
	static const uint8_t even[] = { 0x00 };
	static const uint8_t even_even[] = { 0x00, 0x20 };
	static const uint8_t ac_only[] = { 0xFF, 0x03 };
	static const uint8_t ac_even[] = { 0xFF, 0x03, 0xC0 };

	assert_int_equal(ppp_frame_parse(ff, 0, &info), -EBADMSG);
	assert_int_equal(ppp_frame_parse(ff, sizeof(ff), &info), -EBADMSG);
	assert_int_equal(ppp_frame_parse(ff04, sizeof(ff04), &info), -EBADMSG);
	assert_int_equal(ppp_frame_parse(even, sizeof(even), &info), -EBADMSG);
	assert_int_equal(ppp_frame_parse(even_even, sizeof(even_even), &info), -EBADMSG);
	assert_int_equal(ppp_frame_parse(ac_only, sizeof(ac_only), &info), -EBADMSG);
	assert_int_equal(ppp_frame_parse(ac_even, sizeof(ac_even), &info), -EBADMSG);
	assert_false(ppp_frame_has_ac(ff, sizeof(ff)));
	assert_false(ppp_frame_has_ac(ff04, sizeof(ff04)));

	/* LCP Configure-Request without FF 03: passed on, but flagged */
	assert_int_equal(ppp_frame_parse(lcp_frame + 2, sizeof(lcp_frame) - 2, &info), 0);
	assert_int_equal(info.protocol, PPP_PROTO_LCP);
	assert_true(info.lcp_rule_broken);
	/* LCP Echo-Request (code 9) may be compressed */
	static const uint8_t echo[] = { 0xC0, 0x21, 0x09, 0x01, 0x00, 0x08, 0, 0, 0, 0 };
	assert_int_equal(ppp_frame_parse(echo, sizeof(echo), &info), 0);
	assert_false(info.lcp_rule_broken);
}

/* ---- host interface --------------------------------------------------- */

struct log_capture {
	char text[8192];
	size_t len;
};

static void capture(void *ctx, enum log_level level, const char *msg)
{
	struct log_capture *lc = ctx;
	assert_int_equal(level, LOG_LEVEL_DEBUG);
	int r = snprintf(lc->text + lc->len, sizeof(lc->text) - lc->len, "%s\n", msg);
	if (r > 0 && (size_t)r < sizeof(lc->text) - lc->len)
		lc->len += (size_t)r;
}

static void every_transition_is_logged_at_debug(void **state)
{
	(void)state;
	struct collector *c = new_collector();
	struct log_capture lc = { .len = 0 };
	struct logger log = { .sink = capture, .ctx = &lc, .max = LOG_LEVEL_DEBUG };
	static const uint8_t line[] = {
		0x55, 0x7E, 0x41, 0x7D, 0x7E,		/* abort */
		0x41, 0x7D, 0x7D, 0x7E,			/* escape error, hunt */
		0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x7E, /* too long (cap 3) */
		0x7D, 0x61, 0x7E,			/* runt */
	};
	struct ppp_hdlc_decoder *d = decoder(c, 3, 0, &log);
	ppp_hdlc_decoder_feed(d, line, sizeof(line));
	ppp_hdlc_decoder_reset(d);
	static const char *const want[] = {
		"ppp_hdlc: HUNT --flag--> DATA\n",
		"ppp_hdlc: DATA --escape--> ESCAPE\n",
		"ppp_hdlc: ESCAPE --abort--> DATA\n",
		"ppp_hdlc: ESCAPE --escape-escape--> HUNT\n",
		"ppp_hdlc: DATA --too-long--> HUNT\n",
		"ppp_hdlc: ESCAPE --byte--> DATA\n",
		"ppp_hdlc: DATA --flag(runt)--> DATA (1 bytes",
		"ppp_hdlc: DATA --reset--> HUNT\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!strstr(lc.text, want[i]))
			fail_msg("missing \"%s\" in:\n%s", want[i], lc.text);
	}
	assert_int_equal(ppp_hdlc_decoder_state(d), PPP_HDLC_RX_HUNT);
	assert_string_equal(ppp_hdlc_rx_state_name(PPP_HDLC_RX_ESCAPE), "ESCAPE");
	assert_string_equal(ppp_hdlc_rx_state_name((enum ppp_hdlc_rx_state)9), "?");
	ppp_hdlc_decoder_free(d);

	/* no logger, or a quieter one: nothing is formatted, same result */
	lc.len = 0;
	lc.text[0] = '\0';
	log.max = LOG_LEVEL_INFO;
	d = decoder(c, 3, 0, &log);
	ppp_hdlc_decoder_feed(d, line, sizeof(line));
	assert_int_equal(lc.len, 0);
	ppp_hdlc_decoder_free(d);
	free(c);
}

static void reset_from_the_callback_drops_the_rest(void **state)
{
	(void)state;
	struct collector *c = new_collector();
	uint8_t line[256];
	const struct piece p[] = {
		{ lcp_frame, sizeof(lcp_frame), 0 },
		/* shares the flag: after a reset it is not seen */
		{ ipcp_frame, sizeof(ipcp_frame), PPP_HDLC_ENC_NO_OPEN_FLAG },
		{ ipcp_frame, sizeof(ipcp_frame), 0 },
	};
	size_t n = build_line(0, p, 3, line, sizeof(line));
	struct ppp_hdlc_decoder *d = decoder(c, 0, 0, NULL);
	c->reset_me = d;
	ppp_hdlc_decoder_feed(d, line, n);
	/* the first frame resets the decoder, so the second is thrown away
	 * while hunting; its closing flag ends the hunt and the third
	 * decodes (and resets again) */
	assert_int_equal(c->count, 2);
	assert_frame(c, 0, lcp_frame, sizeof(lcp_frame));
	assert_frame(c, 1, ipcp_frame, sizeof(ipcp_frame));
	assert_int_equal(ppp_hdlc_decoder_counters(d)->hunt_discards, sizeof(ipcp_accm_none) - 2);
	assert_null(ppp_hdlc_decoder_new(&(struct ppp_hdlc_decoder_config){ .on_frame = NULL }));
	assert_null(ppp_hdlc_decoder_new(NULL));
	ppp_hdlc_decoder_free(NULL);
	ppp_hdlc_decoder_free(d);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(encodes_lcp_request_byte_for_byte),
		cmocka_unit_test(encoded_fcs_leaves_the_good_residue),
		cmocka_unit_test(escapes_exactly_the_accm_and_both_specials),
		cmocka_unit_test(worst_case_size_is_exact),
		cmocka_unit_test(full_cursor_gets_enospc_and_stays_unchanged),
		cmocka_unit_test(round_trip_at_every_split_point),
		cmocka_unit_test(round_trip_at_random_chunkings),
		cmocka_unit_test(digest_lcp_frame_round_trip),
		cmocka_unit_test(every_single_bit_flip_is_rejected),
		cmocka_unit_test(abort_sequence_drops_the_frame_and_its_flag_opens_the_next),
		cmocka_unit_test(escape_escape_is_dropped_until_the_next_flag),
		cmocka_unit_test(back_to_back_frames_share_one_flag),
		cmocka_unit_test(empty_frames_and_runts_are_counted_not_delivered),
		cmocka_unit_test(too_long_frame_is_dropped_then_the_next_decodes),
		cmocka_unit_test(receive_accm_removes_inserted_control_characters),
		cmocka_unit_test(frames_pass_through_unchanged_both_ways),
		cmocka_unit_test(frame_parse_rejects_malformed_headers),
		cmocka_unit_test(every_transition_is_logged_at_debug),
		cmocka_unit_test(reset_from_the_callback_drops_the_rest),
	};
	return cmocka_run_group_tests_name("ppp_hdlc", tests, NULL, NULL);
}
