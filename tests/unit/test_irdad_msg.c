/*
 * test_irdad_msg.c: irdad's control messages: every type built and read
 * back, byte-exact header and attribute layout, and each way a message
 * can be malformed refused with the right error and a reason naming it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "irdad_msg.h"

/* --- helpers ------------------------------------------------------------- */

static long finish(struct irdad_writer *wr)
{
	char why[160];
	long n = irdad_write_end(wr, why, sizeof(why));
	if (n < 0)
		print_message("irdad_write_end: %s\n", why);
	return n;
}

static void decode_ok(const uint8_t *buf, long n, struct irdad_msg *m)
{
	char why[160] = "";
	assert_true(n > 0);
	int rc = irdad_msg_decode(buf, (size_t)n, m, why, sizeof(why));
	if (rc != 0)
		print_message("decode: %s\n", why);
	assert_int_equal(rc, 0);
}

/* A raw message, for the malformed cases: header fields, then bytes. */
struct raw {
	uint8_t b[IRDAD_MSG_MAX + 64];
	size_t n;
};

static void raw_header(struct raw *r, uint8_t version, uint8_t type, uint16_t flags)
{
	const uint8_t h[] = { version, type, (uint8_t)(flags >> 8), (uint8_t)flags, 0, 0, 0, 7 };
	memcpy(r->b, h, sizeof(h));
	r->n = sizeof(h);
}

static void raw_bytes(struct raw *r, const void *p, size_t n)
{
	assert_true(r->n + n <= sizeof(r->b));
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void raw_attr(struct raw *r, uint16_t tag, const void *val, uint16_t len)
{
	const uint8_t h[] = { (uint8_t)(tag >> 8), (uint8_t)tag, (uint8_t)(len >> 8), (uint8_t)len };
	raw_bytes(r, h, sizeof(h));
	raw_bytes(r, val, len);
}

static void raw_u8(struct raw *r, uint16_t tag, uint8_t v) { raw_attr(r, tag, &v, 1); }

static void raw_u32(struct raw *r, uint16_t tag, uint32_t v)
{
	const uint8_t b[] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	raw_attr(r, tag, b, 4);
}

static void raw_str(struct raw *r, uint16_t tag, const char *s)
{
	raw_attr(r, tag, s, (uint16_t)strlen(s));
}

/* Decoding r must fail with err, and the reason must contain text. */
static void expect_bad(const struct raw *r, int err, const char *text)
{
	struct irdad_msg m;
	char why[200] = "";
	int rc = irdad_msg_decode(r->b, r->n, &m, why, sizeof(why));
	if (rc != err || !strstr(why, text))
		print_message("got %d \"%s\", wanted %d with \"%s\"\n", rc, why, err, text);
	assert_int_equal(rc, err);
	assert_non_null(strstr(why, text));
}

/* --- building and reading back ---------------------------------------- */

static void header_and_attribute_bytes(void **state)
{
	(void)state;
	uint8_t buf[64];
	struct irdad_writer wr;
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_IAS_REMOVE, 0x01020304);
	irdad_put_u32(&wr, IRDAD_A_OBJ_ID, 0xa0b0c0d0);
	static const uint8_t want[] = {
		0x01, 0x05, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, /* version, type, flags, seq */
		0x00, 0x0f, 0x00, 0x04, 0xa0, 0xb0, 0xc0, 0xd0, /* OBJ_ID (15), 4 bytes */
	};
	assert_int_equal(finish(&wr), sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
}

/* HINTS, byte for byte (type 12, HINTS 8 as a u16: the first hint byte
 * high), and without its one attribute. */
static void hints_bytes(void **state)
{
	(void)state;
	uint8_t buf[32];
	struct irdad_writer wr;
	struct irdad_msg m;
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_HINTS, 3);
	irdad_put_u16(&wr, IRDAD_A_HINTS, 0x8020);
	static const uint8_t want[] = {
		0x01, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, /* version 1, HINTS, seq 3 */
		0x00, 0x08, 0x00, 0x02, 0x80, 0x20,             /* HINTS (8): 0x80 0x20 */
	};
	assert_int_equal(finish(&wr), sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	decode_ok(buf, sizeof(want), &m);
	assert_int_equal(m.type, IRDAD_MSG_HINTS);
	assert_true(irdad_msg_is_request(m.type));
	assert_string_equal(irdad_msg_type_name(m.type), "HINTS");
	uint16_t h = 0;
	assert_true(irdad_get_u16(&m.attrs, IRDAD_A_HINTS, &h));
	assert_int_equal(h, 0x8020);

	struct raw r;
	raw_header(&r, 1, IRDAD_MSG_HINTS, 0);
	expect_bad(&r, -EBADMSG, "HINTS");
}

/* ATTACH and its OK, byte for byte: the wire format the pppd plugin's
 * client uses (type 11; SERVICE 43, ROLE 44, ENDPOINT_ID 45). */
static void attach_bytes(void **state)
{
	(void)state;
	uint8_t buf[64];
	struct irdad_writer wr;
	struct irdad_msg m;
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_ATTACH, 9);
	irdad_put_u8(&wr, IRDAD_A_SERVICE, IRDAD_ATTACH_IRNET);
	irdad_put_u8(&wr, IRDAD_A_ROLE, IRDAD_ATTACH_CALL);
	irdad_put_str(&wr, IRDAD_A_NICKNAME, "beta");
	irdad_put_u32(&wr, IRDAD_A_TIMEOUT_MS, 2000);
	static const uint8_t want[] = {
		0x01, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, /* version 1, ATTACH, seq 9 */
		0x00, 0x2b, 0x00, 0x01, 0x01,                   /* SERVICE (43): irnet */
		0x00, 0x2c, 0x00, 0x01, 0x00,                   /* ROLE (44): call */
		0x00, 0x04, 0x00, 0x04, 'b', 'e', 't', 'a',     /* NICKNAME (4) */
		0x00, 0x1b, 0x00, 0x04, 0x00, 0x00, 0x07, 0xd0, /* TIMEOUT_MS (27): 2000 */
	};
	assert_int_equal(finish(&wr), sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	decode_ok(buf, sizeof(want), &m);
	assert_int_equal(m.type, IRDAD_MSG_ATTACH);
	assert_true(irdad_msg_is_request(m.type));
	assert_string_equal(irdad_msg_type_name(m.type), "ATTACH");

	/* listening: SERVICE and ROLE only */
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_ATTACH, 10);
	irdad_put_u8(&wr, IRDAD_A_SERVICE, IRDAD_ATTACH_IRNET);
	irdad_put_u8(&wr, IRDAD_A_ROLE, IRDAD_ATTACH_LISTEN);
	static const uint8_t listen[] = {
		0x01, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a,
		0x00, 0x2b, 0x00, 0x01, 0x01, 0x00, 0x2c, 0x00, 0x01, 0x01,
	};
	assert_int_equal(finish(&wr), sizeof(listen));
	assert_memory_equal(buf, listen, sizeof(listen));

	/* the answer: OK with ENDPOINT_ID */
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_OK, 9);
	irdad_put_u32(&wr, IRDAD_A_ENDPOINT_ID, 0x11223344);
	static const uint8_t ok[] = {
		0x01, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09,
		0x00, 0x2d, 0x00, 0x04, 0x11, 0x22, 0x33, 0x44,
	};
	assert_int_equal(finish(&wr), sizeof(ok));
	assert_memory_equal(buf, ok, sizeof(ok));
	decode_ok(buf, sizeof(ok), &m);
	uint32_t id = 0;
	assert_true(irdad_get_u32(&m.attrs, IRDAD_A_ENDPOINT_ID, &id));
	assert_int_equal(id, 0x11223344);
	/* the replies keep their numbers after the new request */
	assert_string_equal(irdad_msg_type_name(IRDAD_MSG_OK), "OK");
	assert_string_equal(irdad_msg_type_name(IRDAD_MSG_STATION), "STATION");
	assert_false(irdad_msg_is_request(IRDAD_MSG_OK));
}

static void connect_round_trip(void **state)
{
	(void)state;
	uint8_t buf[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	struct irdad_msg m;
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_CONNECT, 42);
	irdad_put_u32(&wr, IRDAD_A_DADDR, 0x12345678);
	irdad_put_str(&wr, IRDAD_A_CLASS, "IrDA:IrCOMM");
	irdad_put_u8(&wr, IRDAD_A_MODE, IRDAD_MODE_STREAM);
	irdad_put_u32(&wr, IRDAD_A_TIMEOUT_MS, 5000);
	decode_ok(buf, finish(&wr), &m);

	uint32_t daddr, timeout;
	uint8_t mode;
	char cls[61];
	assert_int_equal(m.type, IRDAD_MSG_CONNECT);
	assert_int_equal(m.seq, 42);
	assert_true(irdad_get_u32(&m.attrs, IRDAD_A_DADDR, &daddr));
	assert_int_equal(daddr, 0x12345678);
	assert_true(irdad_get_u8(&m.attrs, IRDAD_A_MODE, &mode));
	assert_int_equal(mode, IRDAD_MODE_STREAM);
	assert_true(irdad_get_str(&m.attrs, IRDAD_A_CLASS, cls, sizeof(cls)));
	assert_string_equal(cls, "IrDA:IrCOMM");
	assert_true(irdad_get_u32(&m.attrs, IRDAD_A_TIMEOUT_MS, &timeout));
	assert_int_equal(timeout, 5000);
	assert_false(irdad_get_u8(&m.attrs, IRDAD_A_LSAP, &mode));
	assert_true(irdad_msg_is_request(m.type));
	assert_string_equal(irdad_msg_type_name(m.type), "CONNECT");
}

static void put_station(struct irdad_writer *wr, uint32_t addr, const char *nick)
{
	irdad_nest_begin(wr, IRDAD_A_STATION);
	irdad_put_u32(wr, IRDAD_A_ADDR, addr);
	irdad_put_u16(wr, IRDAD_A_HINTS, 0x8204);
	irdad_put_u8(wr, IRDAD_A_CHARSET, 0);
	irdad_put_bytes(wr, IRDAD_A_NICKNAME, nick, strlen(nick));
	irdad_put_u32(wr, IRDAD_A_AGE_MS, 1500);
	irdad_nest_end(wr);
}

static void stations_nested(void **state)
{
	(void)state;
	uint8_t buf[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	struct irdad_msg m;
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_STATIONS, 3);
	put_station(&wr, 0x11111111, "phone");
	put_station(&wr, 0x22222222, "Linux");
	decode_ok(buf, finish(&wr), &m);
	assert_int_equal(irdad_count(&m.attrs, IRDAD_A_STATION), 2);

	struct irdad_attrs st;
	uint32_t addr;
	uint16_t hints;
	const uint8_t *nick;
	size_t nick_len;
	irdad_nest_open(irdad_nth(&m.attrs, IRDAD_A_STATION, 1), &st);
	assert_true(irdad_get_u32(&st, IRDAD_A_ADDR, &addr));
	assert_int_equal(addr, 0x22222222);
	assert_true(irdad_get_u16(&st, IRDAD_A_HINTS, &hints));
	assert_int_equal(hints, 0x8204);
	assert_true(irdad_get_bytes(&st, IRDAD_A_NICKNAME, &nick, &nick_len));
	assert_int_equal(nick_len, 5);
	assert_memory_equal(nick, "Linux", 5);
	assert_null(irdad_nth(&m.attrs, IRDAD_A_STATION, 2));
}

static void status_counters_u64(void **state)
{
	(void)state;
	uint8_t buf[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	struct irdad_msg m;
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_STATUS_REPLY, 9);
	irdad_put_u8(&wr, IRDAD_A_LINK, IRDAD_LINK_UP);
	irdad_put_u32(&wr, IRDAD_A_PEER, 0xdeadbeef);
	irdad_nest_begin(&wr, IRDAD_A_COUNTER);
	irdad_put_str(&wr, IRDAD_A_NAME, "irlap.tx_frames");
	irdad_put_u64(&wr, IRDAD_A_VALUE64, 0x0102030405060708ull);
	irdad_nest_end(&wr);
	irdad_nest_begin(&wr, IRDAD_A_CONN);
	irdad_put_u32(&wr, IRDAD_A_CONN_ID, 7);
	irdad_put_u8(&wr, IRDAD_A_MODE, IRDAD_MODE_SAR);
	irdad_put_u32(&wr, IRDAD_A_DADDR, 0xdeadbeef);
	irdad_put_u8(&wr, IRDAD_A_LSAP, 0x12);
	irdad_put_u8(&wr, IRDAD_A_PEER_LSAP, 0x34);
	irdad_put_str(&wr, IRDAD_A_OWNER, "pppd[123]");
	irdad_nest_end(&wr);
	decode_ok(buf, finish(&wr), &m);

	struct irdad_attrs c;
	uint64_t v;
	char name[64];
	irdad_nest_open(irdad_find(&m.attrs, IRDAD_A_COUNTER), &c);
	assert_true(irdad_get_str(&c, IRDAD_A_NAME, name, sizeof(name)));
	assert_string_equal(name, "irlap.tx_frames");
	assert_true(irdad_get_u64(&c, IRDAD_A_VALUE64, &v));
	assert_true(v == 0x0102030405060708ull);
}

static void ias_values_by_type(void **state)
{
	(void)state;
	uint8_t buf[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	struct irdad_msg m;
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_IAS_RESULT, 5);
	irdad_nest_begin(&wr, IRDAD_A_IAS_VALUE);
	irdad_put_u32(&wr, IRDAD_A_OBJ_ID, 1);
	irdad_put_u8(&wr, IRDAD_A_TYPE, IRDAD_IAS_INT);
	irdad_put_u32(&wr, IRDAD_A_INT, 0x10);
	irdad_nest_end(&wr);
	irdad_nest_begin(&wr, IRDAD_A_IAS_VALUE);
	irdad_put_u32(&wr, IRDAD_A_OBJ_ID, 2);
	irdad_put_u8(&wr, IRDAD_A_TYPE, IRDAD_IAS_STRING);
	irdad_put_u8(&wr, IRDAD_A_CHARSET, 0);
	irdad_put_bytes(&wr, IRDAD_A_STRING, "Nokia", 5);
	irdad_nest_end(&wr);
	irdad_nest_begin(&wr, IRDAD_A_IAS_VALUE);
	irdad_put_u32(&wr, IRDAD_A_OBJ_ID, 3);
	irdad_put_u8(&wr, IRDAD_A_TYPE, IRDAD_IAS_MISSING);
	irdad_nest_end(&wr);
	decode_ok(buf, finish(&wr), &m);
	assert_int_equal(irdad_count(&m.attrs, IRDAD_A_IAS_VALUE), 3);

	/* a writer refuses to send what a reader would refuse */
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_IAS_RESULT, 5);
	irdad_nest_begin(&wr, IRDAD_A_IAS_VALUE);
	irdad_put_u32(&wr, IRDAD_A_OBJ_ID, 1);
	irdad_put_u8(&wr, IRDAD_A_TYPE, IRDAD_IAS_INT);
	irdad_put_bytes(&wr, IRDAD_A_OCTETS, "x", 1);
	irdad_nest_end(&wr);
	char why[160];
	assert_int_equal(irdad_write_end(&wr, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "TYPE 1 needs INT"));
}

static void writer_limits(void **state)
{
	(void)state;
	uint8_t buf[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	char why[160];
	/* 65 stations do not fit the schema's 64; 200 do not fit 4096 bytes */
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_STATIONS, 1);
	for (int i = 0; i < 200; i++)
		put_station(&wr, (uint32_t)i, "a-rather-long-nickname");
	assert_int_equal(irdad_write_end(&wr, why, sizeof(why)), -EMSGSIZE);

	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_STATIONS, 1);
	for (int i = 0; i < 65; i++)
		put_station(&wr, (uint32_t)i, "n");
	assert_int_equal(irdad_write_end(&wr, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "STATION 65 times (at most 64)"));

	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_STATIONS, 1);
	irdad_nest_begin(&wr, IRDAD_A_STATION);
	assert_int_equal(irdad_write_end(&wr, why, sizeof(why)), -EINVAL);

	/* a buffer smaller than the message */
	irdad_write_begin(&wr, buf, 10, IRDAD_MSG_IAS_REMOVE, 1);
	irdad_put_u32(&wr, IRDAD_A_OBJ_ID, 1);
	assert_int_equal(irdad_write_end(&wr, why, sizeof(why)), -EMSGSIZE);
}

/* --- malformed input ---------------------------------------------------- */

static void bad_header(void **state)
{
	(void)state;
	struct raw r;
	raw_header(&r, 1, IRDAD_MSG_STATUS, 0);
	r.n = 7;
	expect_bad(&r, -EBADMSG, "shorter than the 8-byte header");
	raw_header(&r, 2, IRDAD_MSG_STATUS, 0);
	expect_bad(&r, -EPROTONOSUPPORT, "version 2");
	raw_header(&r, 1, 13, 0);
	expect_bad(&r, -EBADMSG, "unknown type 13");
	raw_header(&r, 1, 0, 0);
	expect_bad(&r, -EBADMSG, "unknown type 0");
	raw_header(&r, 1, IRDAD_MSG_STATUS, 0x8000);
	expect_bad(&r, -EBADMSG, "STATUS: flags 0x8000");
	raw_header(&r, 1, IRDAD_MSG_STATUS, 0);
	r.n = IRDAD_MSG_MAX + 1;
	expect_bad(&r, -EBADMSG, "over the limit of 4096");
}

static void bad_attribute_framing(void **state)
{
	(void)state;
	struct raw r;
	raw_header(&r, 1, IRDAD_MSG_HELLO, 0);
	raw_bytes(&r, "\x00\x01\x00", 3);
	expect_bad(&r, -EBADMSG, "HELLO: an attribute header cut short");
	raw_header(&r, 1, IRDAD_MSG_HELLO, 0);
	raw_bytes(&r, "\x00\x01\x00\x09" "abc", 7);
	expect_bad(&r, -EBADMSG, "HELLO: CLIENT: 9 bytes announced, 3 left");
	/* an unknown tag is skipped, not refused */
	raw_header(&r, 1, IRDAD_MSG_HELLO, 0);
	raw_attr(&r, 999, "future", 6);
	raw_str(&r, IRDAD_A_CLIENT, "pppd");
	struct irdad_msg m;
	assert_int_equal(irdad_msg_decode(r.b, r.n, &m, NULL, 0), 0);
	assert_int_equal(m.attrs.n, 1);
}

struct bad_case {
	const char *name;
	void (*build)(struct raw *r);
	const char *reason;
};

static void b_width(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_IAS_REMOVE, 0);
	raw_attr(r, IRDAD_A_OBJ_ID, "\x00\x00\x01", 3);
}
static void b_mode_range(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_LISTEN, 0);
	raw_u8(r, IRDAD_A_MODE, 7);
}
static void b_lsap_reserved(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_LISTEN, 0);
	raw_u8(r, IRDAD_A_MODE, IRDAD_MODE_SAR);
	raw_u8(r, IRDAD_A_LSAP, 0x70);
}
static void b_nul(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_HELLO, 0);
	raw_attr(r, IRDAD_A_CLIENT, "pp\0d", 4);
}
static void b_long_class(struct raw *r)
{
	char cls[62];
	memset(cls, 'c', 61);
	cls[61] = '\0';
	raw_header(r, 1, IRDAD_MSG_IAS_QUERY, 0);
	raw_u32(r, IRDAD_A_DADDR, 1);
	raw_str(r, IRDAD_A_CLASS, cls);
	raw_str(r, IRDAD_A_ATTR, "IrDA:TinyTP:LsapSel");
}
static void b_empty_str(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_HELLO, 0);
	raw_attr(r, IRDAD_A_CLIENT, "", 0);
}
static void b_missing(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_IAS_QUERY, 0);
	raw_u32(r, IRDAD_A_DADDR, 1);
	raw_str(r, IRDAD_A_CLASS, "IrNetv1");
}
static void b_twice(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_LISTEN, 0);
	raw_u8(r, IRDAD_A_MODE, 1);
	raw_u8(r, IRDAD_A_MODE, 2);
}
static void b_foreign(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_HELLO, 0);
	raw_u8(r, IRDAD_A_MODE, 1);
}
static void b_connect_both(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_CONNECT, 0);
	raw_u32(r, IRDAD_A_DADDR, 0);
	raw_u8(r, IRDAD_A_LSAP, 5);
	raw_str(r, IRDAD_A_CLASS, "IrNetv1");
	raw_u8(r, IRDAD_A_MODE, 2);
}
static void b_connect_neither(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_CONNECT, 0);
	raw_u32(r, IRDAD_A_DADDR, 0);
	raw_u8(r, IRDAD_A_MODE, 2);
}
static void b_connect_ias(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_CONNECT, 0);
	raw_u32(r, IRDAD_A_DADDR, 0);
	raw_u8(r, IRDAD_A_LSAP, 0);
	raw_u8(r, IRDAD_A_MODE, 2);
}
static void b_close_both(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_CLOSE, 0);
	raw_u32(r, IRDAD_A_LISTENER_ID, 1);
	raw_u32(r, IRDAD_A_CONN_ID, 1);
}
static void b_nest_deep(struct raw *r)
{
	/* a STATION inside a STATION: the inner one is not allowed there */
	struct raw inner;
	inner.n = 0;
	raw_attr(&inner, IRDAD_A_STATION, "", 0);
	raw_header(r, 1, IRDAD_MSG_STATIONS, 0);
	raw_attr(r, IRDAD_A_STATION, inner.b, (uint16_t)inner.n);
}
static void b_nest_cut(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_STATIONS, 0);
	raw_attr(r, IRDAD_A_STATION, "\x00\x03\x00\x04\x01", 5);
}
static void b_nest_missing(struct raw *r)
{
	struct raw inner;
	inner.n = 0;
	raw_u32(&inner, IRDAD_A_ADDR, 1);
	raw_header(r, 1, IRDAD_MSG_STATIONS, 0);
	raw_attr(r, IRDAD_A_STATION, inner.b, (uint16_t)inner.n);
}
static void b_nest_as_leaf(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_CONNECTION, 0);
	raw_u32(r, IRDAD_A_STATION, 1);
}
static void b_charset_alone(struct raw *r)
{
	struct raw inner;
	inner.n = 0;
	raw_str(&inner, IRDAD_A_NAME, "IrDA:TinyTP:LsapSel");
	raw_u8(&inner, IRDAD_A_TYPE, IRDAD_IAS_INT);
	raw_u32(&inner, IRDAD_A_INT, 9);
	raw_u8(&inner, IRDAD_A_CHARSET, 0);
	raw_header(r, 1, IRDAD_MSG_IAS_ADD, 0);
	raw_str(r, IRDAD_A_CLASS, "Mine");
	raw_attr(r, IRDAD_A_IAS_ATTR, inner.b, (uint16_t)inner.n);
}
static void b_too_many(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_STATUS_REPLY, 0);
	for (int i = 0; i < IRDAD_ATTRS_MAX + 1; i++)
		raw_u8(r, IRDAD_A_LINK, 0);
}

static void b_attach_head(struct raw *r, uint8_t service, uint8_t role)
{
	raw_header(r, 1, IRDAD_MSG_ATTACH, 0);
	raw_u8(r, IRDAD_A_SERVICE, service);
	raw_u8(r, IRDAD_A_ROLE, role);
}
static void b_attach_both(struct raw *r)
{
	b_attach_head(r, 1, 0);
	raw_u32(r, IRDAD_A_DADDR, 0x1234);
	raw_str(r, IRDAD_A_NICKNAME, "beta");
}
static void b_attach_empty_nick(struct raw *r)
{
	b_attach_head(r, 1, 0);
	raw_attr(r, IRDAD_A_NICKNAME, "", 0);
}
static void b_attach_daddr0(struct raw *r)
{
	b_attach_head(r, 1, 0);
	raw_u32(r, IRDAD_A_DADDR, 0);
}
static void b_attach_timeout0(struct raw *r)
{
	b_attach_head(r, 1, 0);
	raw_u32(r, IRDAD_A_TIMEOUT_MS, 0);
}
static void b_attach_service(struct raw *r) { b_attach_head(r, 3, 0); }
static void b_attach_role(struct raw *r) { b_attach_head(r, 1, 2); }
static void b_attach_no_role(struct raw *r)
{
	raw_header(r, 1, IRDAD_MSG_ATTACH, 0);
	raw_u8(r, IRDAD_A_SERVICE, 1);
}
static void b_attach_mode(struct raw *r)
{
	b_attach_head(r, 1, 0);
	raw_u8(r, IRDAD_A_MODE, 2);
}

static const struct bad_case bad_cases[] = {
	{ "ATTACH with DADDR and NICKNAME", b_attach_both, "ATTACH: DADDR or NICKNAME, not both" },
	{ "ATTACH with an empty NICKNAME", b_attach_empty_nick, "ATTACH: an empty NICKNAME" },
	{ "ATTACH to DADDR 0", b_attach_daddr0, "ATTACH: DADDR 0" },
	{ "ATTACH with TIMEOUT_MS 0", b_attach_timeout0, "ATTACH: TIMEOUT_MS 0" },
	{ "ATTACH SERVICE 3", b_attach_service, "ATTACH: SERVICE: 3 is not 1-2" },
	{ "ATTACH ROLE 2", b_attach_role, "ATTACH: ROLE: 2 is not 0-1" },
	{ "ATTACH without ROLE", b_attach_no_role, "ATTACH: ROLE missing" },
	{ "ATTACH with a MODE", b_attach_mode, "ATTACH: MODE does not belong here" },
	{ "a u32 of 3 bytes", b_width, "IAS_REMOVE: OBJ_ID: length 3, not 4" },
	{ "MODE out of range", b_mode_range, "LISTEN: MODE: 7 is not 1-3" },
	{ "a reserved LSAP", b_lsap_reserved, "LISTEN: LSAP: 112 is not 0-111" },
	{ "a NUL in a string", b_nul, "HELLO: CLIENT: a NUL inside the string" },
	{ "a class name of 61 bytes", b_long_class, "IAS_QUERY: CLASS: length 61 is not 1-60" },
	{ "an empty string", b_empty_str, "HELLO: CLIENT: length 0 is not 1-32" },
	{ "a required attribute missing", b_missing, "IAS_QUERY: ATTR missing" },
	{ "an attribute twice", b_twice, "LISTEN: MODE 2 times (at most 1)" },
	{ "an attribute of another message", b_foreign, "HELLO: MODE does not belong here" },
	{ "CONNECT with LSAP and CLASS", b_connect_both, "CONNECT: needs LSAP or CLASS" },
	{ "CONNECT with neither", b_connect_neither, "CONNECT: needs LSAP or CLASS" },
	{ "CONNECT to IAS's LSAP", b_connect_ias, "CONNECT: LSAP 0 is IAS" },
	{ "CLOSE with both ids", b_close_both, "CLOSE: needs LISTENER_ID or CONN_ID" },
	{ "a nest in a nest", b_nest_deep, "STATION: STATION does not belong here" },
	{ "a nest cut short", b_nest_cut, "STATIONS: STATION: ADDR: 4 bytes announced, 1 left" },
	{ "a nest missing a field", b_nest_missing, "STATION: HINTS missing" },
	{ "a nest tag used as a leaf", b_nest_as_leaf, "CONNECTION: STATION does not belong here" },
	{ "CHARSET beside an INT", b_charset_alone, "IAS value: CHARSET goes with a STRING" },
	{ "more attributes than the limit", b_too_many, "more than 256 attributes" },
};

static void malformed_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct raw r;
		print_message("case: %s\n", bad_cases[i].name);
		bad_cases[i].build(&r);
		expect_bad(&r, -EBADMSG, bad_cases[i].reason);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_and_attribute_bytes),
		cmocka_unit_test(hints_bytes),
		cmocka_unit_test(attach_bytes),
		cmocka_unit_test(connect_round_trip),
		cmocka_unit_test(stations_nested),
		cmocka_unit_test(status_counters_u64),
		cmocka_unit_test(ias_values_by_type),
		cmocka_unit_test(writer_limits),
		cmocka_unit_test(bad_header),
		cmocka_unit_test(bad_attribute_framing),
		cmocka_unit_test(malformed_table),
	};
	return cmocka_run_group_tests_name("irdad_msg", tests, NULL, NULL);
}
