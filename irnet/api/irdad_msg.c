/*
 * irdad_msg.c: irdad's control messages, decoded and checked against two
 * tables: what each attribute is (kind and limits), and which attributes
 * each message type takes (docs/irdad-api.md).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "irdad_msg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum attr_kind { K_NONE, K_U8, K_U16, K_U32, K_U64, K_STR, K_BYTES, K_NEST };

enum nest_id { N_NONE, N_STATION, N_IAS_VALUE, N_IAS_ATTR, N_COUNTER, N_CONN };

/* What an attribute is.  For numbers lo..hi bound the value, for strings
 * and byte strings the length; a nest names its schema. */
struct attr_def {
	const char *name;
	enum attr_kind kind;
	uint64_t lo, hi;
	enum nest_id nest;
};

#define U8(n, l, h) { n, K_U8, l, h, N_NONE }
#define U16(n) { n, K_U16, 0, 0xffff, N_NONE }
#define U32(n) { n, K_U32, 0, 0xffffffffu, N_NONE }
#define U64(n) { n, K_U64, 0, UINT64_MAX, N_NONE }
#define STR(n, max) { n, K_STR, 1, max, N_NONE }
#define BYTES(n, min, max) { n, K_BYTES, min, max, N_NONE }
#define NEST(n, id) { n, K_NEST, 0, IRDAD_MSG_MAX, id }

static const struct attr_def attr_defs[IRDAD_A_TAG_END] = {
	[IRDAD_A_CLIENT] = STR("CLIENT", 32),
	[IRDAD_A_PORT] = STR("PORT", 32),
	[IRDAD_A_ADDR] = U32("ADDR"),
	[IRDAD_A_NICKNAME] = BYTES("NICKNAME", 0, 23),
	[IRDAD_A_MAX_MSG] = U32("MAX_MSG"),
	[IRDAD_A_FRESH] = U8("FRESH", 0, 1),
	[IRDAD_A_STATION] = NEST("STATION", N_STATION),
	[IRDAD_A_HINTS] = U16("HINTS"),
	[IRDAD_A_CHARSET] = U8("CHARSET", 0, 0xff),
	[IRDAD_A_AGE_MS] = U32("AGE_MS"),
	[IRDAD_A_DADDR] = U32("DADDR"),
	[IRDAD_A_CLASS] = STR("CLASS", 60),
	[IRDAD_A_ATTR] = STR("ATTR", 60),
	[IRDAD_A_IAS_VALUE] = NEST("IAS_VALUE", N_IAS_VALUE),
	[IRDAD_A_OBJ_ID] = U32("OBJ_ID"),
	[IRDAD_A_TYPE] = U8("TYPE", IRDAD_IAS_MISSING, IRDAD_IAS_STRING),
	[IRDAD_A_INT] = U32("INT"),
	/* IAS limits: an octet sequence up to 1024 bytes, a string 255 */
	[IRDAD_A_OCTETS] = BYTES("OCTETS", 0, 1024),
	[IRDAD_A_STRING] = BYTES("STRING", 0, 255),
	[IRDAD_A_IAS_ATTR] = NEST("IAS_ATTR", N_IAS_ATTR),
	[IRDAD_A_MODE] = U8("MODE", IRDAD_MODE_STREAM, IRDAD_MODE_LMP),
	/* 0 asks for any free selector; 0x70-0x7f are reserved, 0x7f is
	 * IrLMP's connectionless one */
	[IRDAD_A_LSAP] = U8("LSAP", 0x00, 0x6f),
	[IRDAD_A_MAX_SDU] = U32("MAX_SDU"),
	[IRDAD_A_BACKLOG] = U8("BACKLOG", 1, 32),
	[IRDAD_A_LISTENER_ID] = U32("LISTENER_ID"),
	[IRDAD_A_CONN_ID] = U32("CONN_ID"),
	[IRDAD_A_TIMEOUT_MS] = U32("TIMEOUT_MS"),
	[IRDAD_A_LINK] = U8("LINK", IRDAD_LINK_DOWN, IRDAD_LINK_UP),
	[IRDAD_A_PEER] = U32("PEER"),
	[IRDAD_A_COUNTER] = NEST("COUNTER", N_COUNTER),
	[IRDAD_A_VALUE64] = U64("VALUE64"),
	[IRDAD_A_CONN] = NEST("CONN", N_CONN),
	[IRDAD_A_OWNER] = STR("OWNER", 96),
	[IRDAD_A_EVENTS] = U32("EVENTS"),
	[IRDAD_A_ERRNO] = U32("ERRNO"),
	[IRDAD_A_TEXT] = STR("TEXT", 200),
	[IRDAD_A_REASON] = U8("REASON", 0, 0xff),
	[IRDAD_A_PRESENT] = U8("PRESENT", 0, 1),
	[IRDAD_A_PEER_LSAP] = U8("PEER_LSAP", 0x00, 0x6f),
	[IRDAD_A_PEER_MAX_SDU] = U32("PEER_MAX_SDU"),
	[IRDAD_A_TX_MAX] = U32("TX_MAX"),
	[IRDAD_A_NAME] = STR("NAME", 60),
	[IRDAD_A_SERVICE] = U8("SERVICE", IRDAD_ATTACH_IRNET, IRDAD_ATTACH_IRCOMM),
	[IRDAD_A_ROLE] = U8("ROLE", IRDAD_ATTACH_CALL, IRDAD_ATTACH_LISTEN),
	[IRDAD_A_ENDPOINT_ID] = U32("ENDPOINT_ID"),
};

/* Which attributes a message type or a nest takes, and how often. */
struct attr_use {
	uint16_t tag;
	uint8_t min, max;         /* occurrences */
};

#define REQ(t) { t, 1, 1 }
#define OPT(t) { t, 0, 1 }
#define REP(t, n) { t, 0, n }
#define USES_MAX 12

struct schema {
	const char *name;
	struct attr_use use[USES_MAX];
	/* A rule across attributes (one of two, a value matching a type). */
	bool (*check)(const struct irdad_attrs *as, char *why, size_t whylen);
};

static bool check_connect(const struct irdad_attrs *as, char *why, size_t whylen);
static bool check_close(const struct irdad_attrs *as, char *why, size_t whylen);
static bool check_ias_value(const struct irdad_attrs *as, char *why, size_t whylen);
static bool check_attach(const struct irdad_attrs *as, char *why, size_t whylen);

static const struct schema msg_schemas[] = {
	{ "HELLO", { OPT(IRDAD_A_CLIENT) }, NULL },
	{ "DISCOVER", { OPT(IRDAD_A_FRESH) }, NULL },
	{ "IAS_QUERY", { REQ(IRDAD_A_DADDR), REQ(IRDAD_A_CLASS), REQ(IRDAD_A_ATTR) }, NULL },
	{ "IAS_ADD", { REQ(IRDAD_A_CLASS), { IRDAD_A_IAS_ATTR, 1, 16 } }, NULL },
	{ "IAS_REMOVE", { REQ(IRDAD_A_OBJ_ID) }, NULL },
	{ "LISTEN",
	  { REQ(IRDAD_A_MODE), OPT(IRDAD_A_LSAP), OPT(IRDAD_A_MAX_SDU), OPT(IRDAD_A_CLASS),
	    OPT(IRDAD_A_BACKLOG) },
	  NULL },
	{ "CONNECT",
	  { REQ(IRDAD_A_DADDR), OPT(IRDAD_A_LSAP), OPT(IRDAD_A_CLASS), REQ(IRDAD_A_MODE),
	    OPT(IRDAD_A_MAX_SDU), OPT(IRDAD_A_TIMEOUT_MS) },
	  check_connect },
	{ "CLOSE", { OPT(IRDAD_A_LISTENER_ID), OPT(IRDAD_A_CONN_ID) }, check_close },
	{ "STATUS", { { 0, 0, 0 } }, NULL },
	{ "WATCH", { REQ(IRDAD_A_EVENTS) }, NULL },
	{ "ATTACH",
	  { REQ(IRDAD_A_SERVICE), REQ(IRDAD_A_ROLE), OPT(IRDAD_A_DADDR), OPT(IRDAD_A_NICKNAME),
	    OPT(IRDAD_A_TIMEOUT_MS) },
	  check_attach },
	{ "HINTS", { REQ(IRDAD_A_HINTS) }, NULL },
	/* replies and events: from IRDAD_MSG_OK on */
	{ "OK", { OPT(IRDAD_A_OBJ_ID), OPT(IRDAD_A_ENDPOINT_ID) }, NULL },
	{ "ERROR", { REQ(IRDAD_A_ERRNO), REQ(IRDAD_A_TEXT) }, NULL },
	{ "HELLO_REPLY",
	  { REQ(IRDAD_A_PORT), REQ(IRDAD_A_ADDR), REQ(IRDAD_A_NICKNAME), REQ(IRDAD_A_MAX_MSG) },
	  NULL },
	{ "STATIONS", { REP(IRDAD_A_STATION, 64) }, NULL },
	{ "IAS_RESULT", { REP(IRDAD_A_IAS_VALUE, 32) }, NULL },
	{ "LISTENING", { REQ(IRDAD_A_LISTENER_ID), REQ(IRDAD_A_LSAP) }, NULL },
	{ "CONNECTION",
	  { REQ(IRDAD_A_CONN_ID), REQ(IRDAD_A_LISTENER_ID), REQ(IRDAD_A_MODE), REQ(IRDAD_A_DADDR),
	    REQ(IRDAD_A_LSAP), REQ(IRDAD_A_PEER_LSAP), REQ(IRDAD_A_PEER_MAX_SDU),
	    REQ(IRDAD_A_TX_MAX) },
	  NULL },
	{ "STATUS_REPLY",
	  { REQ(IRDAD_A_LINK), OPT(IRDAD_A_PEER), REP(IRDAD_A_COUNTER, 128), REP(IRDAD_A_CONN, 64) },
	  NULL },
	{ "DISCONNECTED", { REQ(IRDAD_A_CONN_ID), REQ(IRDAD_A_REASON), OPT(IRDAD_A_TEXT) }, NULL },
	{ "STATION", { REQ(IRDAD_A_STATION), REQ(IRDAD_A_PRESENT) }, NULL },
};

static const struct schema nest_schemas[] = {
	[N_STATION] = { "STATION",
			{ REQ(IRDAD_A_ADDR), REQ(IRDAD_A_HINTS), REQ(IRDAD_A_CHARSET),
			  REQ(IRDAD_A_NICKNAME), OPT(IRDAD_A_AGE_MS) },
			NULL },
	[N_IAS_VALUE] = { "IAS_VALUE",
			  { REQ(IRDAD_A_OBJ_ID), REQ(IRDAD_A_TYPE), OPT(IRDAD_A_INT),
			    OPT(IRDAD_A_OCTETS), OPT(IRDAD_A_STRING), OPT(IRDAD_A_CHARSET) },
			  check_ias_value },
	[N_IAS_ATTR] = { "IAS_ATTR",
			 { REQ(IRDAD_A_NAME), REQ(IRDAD_A_TYPE), OPT(IRDAD_A_INT),
			   OPT(IRDAD_A_OCTETS), OPT(IRDAD_A_STRING), OPT(IRDAD_A_CHARSET) },
			 check_ias_value },
	[N_COUNTER] = { "COUNTER", { REQ(IRDAD_A_NAME), REQ(IRDAD_A_VALUE64) }, NULL },
	[N_CONN] = { "CONN",
		     { REQ(IRDAD_A_CONN_ID), REQ(IRDAD_A_MODE), REQ(IRDAD_A_DADDR),
		       REQ(IRDAD_A_LSAP), REQ(IRDAD_A_PEER_LSAP), OPT(IRDAD_A_OWNER) },
		     NULL },
};

static const struct schema *msg_schema(uint8_t type)
{
	if (type >= IRDAD_MSG_HELLO && type <= IRDAD_MSG_REQ_LAST)
		return &msg_schemas[type - IRDAD_MSG_HELLO];
	if (type >= IRDAD_MSG_OK && type <= IRDAD_MSG_STATION)
		return &msg_schemas[IRDAD_MSG_REQ_LAST + type - IRDAD_MSG_OK];
	return NULL;
}

const char *irdad_msg_type_name(uint8_t type)
{
	const struct schema *s = msg_schema(type);
	return s ? s->name : "?";
}

const char *irdad_attr_name(uint16_t tag)
{
	if (tag < IRDAD_A_TAG_END && attr_defs[tag].name)
		return attr_defs[tag].name;
	return "?";
}

bool irdad_msg_is_request(uint8_t type)
{
	return type >= IRDAD_MSG_HELLO && type <= IRDAD_MSG_REQ_LAST;
}

static const struct attr_def *attr_def(uint16_t tag)
{
	if (tag < IRDAD_A_TAG_END && attr_defs[tag].kind != K_NONE)
		return &attr_defs[tag];
	return NULL;
}

/* --- decoding --------------------------------------------------------- */

/* why gets "WHERE: text"; always returns false for a one-line failure. */
__attribute__((format(printf, 4, 5)))
static bool fail(char *why, size_t whylen, const char *where, const char *fmt, ...)
{
	if (!why || whylen == 0)
		return false;
	int n = snprintf(why, whylen, "%s: ", where);
	if (n >= 0 && (size_t)n < whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why + n, whylen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

static uint64_t be_value(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static bool check_value(const struct irdad_attr *a, const struct attr_def *d, const char *where,
			char *why, size_t whylen)
{
	static const size_t widths[] = { [K_U8] = 1, [K_U16] = 2, [K_U32] = 4, [K_U64] = 8 };
	switch (d->kind) {
	case K_U8:
	case K_U16:
	case K_U32:
	case K_U64: {
		if (a->len != widths[d->kind])
			return fail(why, whylen, where, "%s: length %u, not %zu", d->name,
				    a->len, widths[d->kind]);
		uint64_t v = be_value(a->val, a->len);
		if (v < d->lo || v > d->hi)
			return fail(why, whylen, where, "%s: %llu is not %llu-%llu", d->name,
				    (unsigned long long)v, (unsigned long long)d->lo,
				    (unsigned long long)d->hi);
		return true;
	}
	case K_STR:
	case K_BYTES:
		if (d->kind == K_STR && memchr(a->val, 0, a->len))
			return fail(why, whylen, where, "%s: a NUL inside the string", d->name);
		if (a->len < d->lo || a->len > d->hi)
			return fail(why, whylen, where, "%s: length %u is not %llu-%llu",
				    d->name, a->len, (unsigned long long)d->lo,
				    (unsigned long long)d->hi);
		return true;
	case K_NEST:
	case K_NONE:
		break;
	}
	return true;
}

/* Splits a run of attributes into as (unknown tags are skipped). */
static bool split_attrs(struct cursor *c, struct irdad_attrs *as, const char *where, char *why,
			size_t whylen)
{
	as->n = 0;
	while (!cursor_at_end(c)) {
		uint16_t tag = 0, len = 0;
		const uint8_t *val = NULL;
		if (!cursor_be16(c, &tag) || !cursor_be16(c, &len))
			return fail(why, whylen, where, "an attribute header cut short");
		size_t left = cursor_remaining(c);
		if (!cursor_view(c, len, &val))
			return fail(why, whylen, where, "%s: %u bytes announced, %zu left",
				    irdad_attr_name(tag), len, left);
		if (!attr_def(tag))
			continue; /* a newer peer's optional field */
		if (as->n == IRDAD_ATTRS_MAX)
			return fail(why, whylen, where, "more than %d attributes",
				    IRDAD_ATTRS_MAX);
		as->a[as->n++] = (struct irdad_attr){ .tag = tag, .len = len, .val = val };
	}
	return true;
}

static bool check_level(const struct irdad_attrs *as, const struct schema *s, char *why,
			size_t whylen);

static bool check_nest(const struct irdad_attr *a, const struct attr_def *d, const char *where,
		       char *why, size_t whylen)
{
	struct irdad_attrs inner;
	struct cursor c;
	cursor_init(&c, a->val, a->len);
	char inner_where[64];
	snprintf(inner_where, sizeof(inner_where), "%s: %s", where, d->name);
	if (!split_attrs(&c, &inner, inner_where, why, whylen))
		return false;
	return check_level(&inner, &nest_schemas[d->nest], why, whylen);
}

static const struct attr_use *find_use(const struct schema *s, uint16_t tag)
{
	for (size_t i = 0; i < USES_MAX && s->use[i].tag; i++)
		if (s->use[i].tag == tag)
			return &s->use[i];
	return NULL;
}

/* Checks one level: every attribute allowed, valid and not too often,
 * every required one there, and the schema's own rule. */
static bool check_level(const struct irdad_attrs *as, const struct schema *s, char *why,
			size_t whylen)
{
	for (size_t i = 0; i < as->n; i++) {
		const struct irdad_attr *a = &as->a[i];
		const struct attr_def *d = attr_def(a->tag);
		const struct attr_use *u = find_use(s, a->tag);
		if (!u)
			return fail(why, whylen, s->name, "%s does not belong here", d->name);
		if (!check_value(a, d, s->name, why, whylen))
			return false;
		/* no nest schema takes a nest: one level deep at most */
		if (d->kind == K_NEST && !check_nest(a, d, s->name, why, whylen))
			return false;
	}
	for (size_t i = 0; i < USES_MAX && s->use[i].tag; i++) {
		const struct attr_use *u = &s->use[i];
		size_t n = irdad_count(as, u->tag);
		if (n < u->min)
			return fail(why, whylen, s->name, "%s missing", irdad_attr_name(u->tag));
		if (n > u->max)
			return fail(why, whylen, s->name, "%s %zu times (at most %u)",
				    irdad_attr_name(u->tag), n, u->max);
	}
	return s->check ? s->check(as, why, whylen) : true;
}

static bool check_connect(const struct irdad_attrs *as, char *why, size_t whylen)
{
	bool lsap = irdad_find(as, IRDAD_A_LSAP), cls = irdad_find(as, IRDAD_A_CLASS);
	uint8_t sel = 0;
	if (lsap == cls)
		return fail(why, whylen, "CONNECT", "needs LSAP or CLASS, one of them");
	if (lsap && irdad_get_u8(as, IRDAD_A_LSAP, &sel) && sel == 0)
		return fail(why, whylen, "CONNECT", "LSAP 0 is IAS, not a service");
	return true;
}

static bool check_close(const struct irdad_attrs *as, char *why, size_t whylen)
{
	if ((irdad_find(as, IRDAD_A_LISTENER_ID) != NULL) == (irdad_find(as, IRDAD_A_CONN_ID) != NULL))
		return fail(why, whylen, "CLOSE", "needs LISTENER_ID or CONN_ID, one of them");
	return true;
}

/* ATTACH names its peer by address or by nickname, not both; neither is
 * empty (leave the attribute out for "the first station offering it"). */
static bool check_attach(const struct irdad_attrs *as, char *why, size_t whylen)
{
	const struct irdad_attr *nick = irdad_find(as, IRDAD_A_NICKNAME);
	uint32_t v = 0;

	if (nick && irdad_find(as, IRDAD_A_DADDR))
		return fail(why, whylen, "ATTACH", "DADDR or NICKNAME, not both");
	if (nick && nick->len == 0)
		return fail(why, whylen, "ATTACH", "an empty NICKNAME");
	if (irdad_get_u32(as, IRDAD_A_DADDR, &v) && v == 0)
		return fail(why, whylen, "ATTACH", "DADDR 0 (leave it out for any station)");
	if (irdad_get_u32(as, IRDAD_A_TIMEOUT_MS, &v) && v == 0)
		return fail(why, whylen, "ATTACH", "TIMEOUT_MS 0");
	return true;
}

/* An IAS value carries exactly the attribute its TYPE names. */
static bool check_ias_value(const struct irdad_attrs *as, char *why, size_t whylen)
{
	static const uint16_t value_tag[] = {
		[IRDAD_IAS_MISSING] = 0,
		[IRDAD_IAS_INT] = IRDAD_A_INT,
		[IRDAD_IAS_OCTETS] = IRDAD_A_OCTETS,
		[IRDAD_IAS_STRING] = IRDAD_A_STRING,
	};
	static const uint16_t value_tags[] = { IRDAD_A_INT, IRDAD_A_OCTETS, IRDAD_A_STRING };
	uint8_t type = 0;
	irdad_get_u8(as, IRDAD_A_TYPE, &type);
	for (size_t i = 0; i < sizeof(value_tags) / sizeof(value_tags[0]); i++) {
		bool want = value_tags[i] == value_tag[type];
		if (want != (irdad_find(as, value_tags[i]) != NULL))
			return fail(why, whylen, "IAS value", "TYPE %u %s %s", type,
				    want ? "needs" : "does not take",
				    irdad_attr_name(value_tags[i]));
	}
	if ((type == IRDAD_IAS_STRING) != (irdad_find(as, IRDAD_A_CHARSET) != NULL))
		return fail(why, whylen, "IAS value", "CHARSET goes with a STRING, only");
	return true;
}

int irdad_msg_decode(const uint8_t *buf, size_t len, struct irdad_msg *out, char *why,
		     size_t whylen)
{
	struct cursor c;
	uint8_t version = 0;
	uint16_t flags = 0;
	if (why && whylen)
		why[0] = '\0';
	out->type = 0;
	out->seq = 0;
	out->attrs.n = 0;
	if (len > IRDAD_MSG_MAX) {
		fail(why, whylen, "message", "%zu bytes, over the limit of %d", len, IRDAD_MSG_MAX);
		return -EBADMSG;
	}
	cursor_init(&c, buf, len);
	cursor_u8(&c, &version);
	cursor_u8(&c, &out->type);
	cursor_be16(&c, &flags);
	cursor_be32(&c, &out->seq);
	if (!cursor_ok(&c)) {
		fail(why, whylen, "message", "%zu bytes, shorter than the %d-byte header", len,
		     IRDAD_HDR_LEN);
		return -EBADMSG;
	}
	if (version != IRDAD_PROTO_VERSION) {
		fail(why, whylen, "message", "version %u, this is version %d", version,
		     IRDAD_PROTO_VERSION);
		return -EPROTONOSUPPORT;
	}
	const struct schema *s = msg_schema(out->type);
	if (!s) {
		fail(why, whylen, "message", "unknown type %u", out->type);
		return -EBADMSG;
	}
	if (flags != 0) {
		fail(why, whylen, s->name, "flags 0x%04x, must be 0", flags);
		return -EBADMSG;
	}
	if (!split_attrs(&c, &out->attrs, s->name, why, whylen) ||
	    !check_level(&out->attrs, s, why, whylen))
		return -EBADMSG;
	return 0;
}

void irdad_nest_open(const struct irdad_attr *nest, struct irdad_attrs *out)
{
	struct cursor c;
	cursor_init(&c, nest->val, nest->len);
	if (!split_attrs(&c, out, "nest", NULL, 0))
		out->n = 0;
}

/* --- getters ---------------------------------------------------------- */

const struct irdad_attr *irdad_nth(const struct irdad_attrs *as, uint16_t tag, size_t index)
{
	for (size_t i = 0; i < as->n; i++)
		if (as->a[i].tag == tag && index-- == 0)
			return &as->a[i];
	return NULL;
}

const struct irdad_attr *irdad_find(const struct irdad_attrs *as, uint16_t tag)
{
	return irdad_nth(as, tag, 0);
}

size_t irdad_count(const struct irdad_attrs *as, uint16_t tag)
{
	size_t n = 0;
	for (size_t i = 0; i < as->n; i++)
		n += as->a[i].tag == tag;
	return n;
}

static bool get_uint(const struct irdad_attrs *as, uint16_t tag, size_t width, uint64_t *out)
{
	const struct irdad_attr *a = irdad_find(as, tag);
	*out = 0;
	if (!a || a->len != width)
		return false;
	*out = be_value(a->val, width);
	return true;
}

bool irdad_get_u8(const struct irdad_attrs *as, uint16_t tag, uint8_t *out)
{
	uint64_t v;
	bool ok = get_uint(as, tag, 1, &v);
	*out = (uint8_t)v;
	return ok;
}

bool irdad_get_u16(const struct irdad_attrs *as, uint16_t tag, uint16_t *out)
{
	uint64_t v;
	bool ok = get_uint(as, tag, 2, &v);
	*out = (uint16_t)v;
	return ok;
}

bool irdad_get_u32(const struct irdad_attrs *as, uint16_t tag, uint32_t *out)
{
	uint64_t v;
	bool ok = get_uint(as, tag, 4, &v);
	*out = (uint32_t)v;
	return ok;
}

bool irdad_get_u64(const struct irdad_attrs *as, uint16_t tag, uint64_t *out)
{
	return get_uint(as, tag, 8, out);
}

bool irdad_get_bytes(const struct irdad_attrs *as, uint16_t tag, const uint8_t **val,
		     size_t *len)
{
	const struct irdad_attr *a = irdad_find(as, tag);
	*val = a ? a->val : NULL;
	*len = a ? a->len : 0;
	return a != NULL;
}

bool irdad_get_str(const struct irdad_attrs *as, uint16_t tag, char *buf, size_t cap)
{
	const struct irdad_attr *a = irdad_find(as, tag);
	if (cap == 0)
		return false;
	buf[0] = '\0';
	if (!a || a->len >= cap)
		return false;
	memcpy(buf, a->val, a->len);
	buf[a->len] = '\0';
	return true;
}

/* --- writing ---------------------------------------------------------- */

void irdad_write_begin(struct irdad_writer *wr, uint8_t *buf, size_t cap, uint8_t type,
		       uint32_t seq)
{
	wcursor_init(&wr->w, buf, cap > IRDAD_MSG_MAX ? IRDAD_MSG_MAX : cap);
	wr->nest_len = NULL;
	wr->nest_start = 0;
	wcursor_u8(&wr->w, IRDAD_PROTO_VERSION);
	wcursor_u8(&wr->w, type);
	wcursor_be16(&wr->w, 0);
	wcursor_be32(&wr->w, seq);
}

static void put_header(struct irdad_writer *wr, uint16_t tag, size_t len)
{
	if (len > UINT16_MAX) {
		wr->w.failed = true;
		return;
	}
	wcursor_be16(&wr->w, tag);
	wcursor_be16(&wr->w, (uint16_t)len);
}

void irdad_put_bytes(struct irdad_writer *wr, uint16_t tag, const void *val, size_t len)
{
	put_header(wr, tag, len);
	wcursor_bytes(&wr->w, val, len);
}

void irdad_put_u8(struct irdad_writer *wr, uint16_t tag, uint8_t v)
{
	put_header(wr, tag, 1);
	wcursor_u8(&wr->w, v);
}

void irdad_put_u16(struct irdad_writer *wr, uint16_t tag, uint16_t v)
{
	put_header(wr, tag, 2);
	wcursor_be16(&wr->w, v);
}

void irdad_put_u32(struct irdad_writer *wr, uint16_t tag, uint32_t v)
{
	put_header(wr, tag, 4);
	wcursor_be32(&wr->w, v);
}

void irdad_put_u64(struct irdad_writer *wr, uint16_t tag, uint64_t v)
{
	put_header(wr, tag, 8);
	wcursor_be32(&wr->w, (uint32_t)(v >> 32));
	wcursor_be32(&wr->w, (uint32_t)v);
}

void irdad_put_str(struct irdad_writer *wr, uint16_t tag, const char *s)
{
	irdad_put_bytes(wr, tag, s, strlen(s));
}

void irdad_nest_begin(struct irdad_writer *wr, uint16_t tag)
{
	if (wr->nest_len) {
		wr->w.failed = true; /* one level only */
		return;
	}
	wcursor_be16(&wr->w, tag);
	if (wcursor_reserve(&wr->w, 2, &wr->nest_len))
		wr->nest_start = wcursor_len(&wr->w);
	else
		wr->nest_len = NULL;
}

void irdad_nest_end(struct irdad_writer *wr)
{
	if (!wr->nest_len) {
		wr->w.failed = true;
		return;
	}
	size_t len = wcursor_len(&wr->w) - wr->nest_start;
	wr->nest_len[0] = (uint8_t)(len >> 8);
	wr->nest_len[1] = (uint8_t)len;
	wr->nest_len = NULL;
}

long irdad_write_end(struct irdad_writer *wr, char *why, size_t whylen)
{
	if (!wcursor_ok(&wr->w) || wr->nest_len) {
		fail(why, whylen, "message", wr->nest_len ? "a nest left open" : "over %d bytes",
		     IRDAD_MSG_MAX);
		return wr->nest_len ? -EINVAL : -EMSGSIZE;
	}
	/* What we send passes the checks we apply to what we receive. */
	struct irdad_msg decoded;
	if (irdad_msg_decode(wr->w.data, wcursor_len(&wr->w), &decoded, why, whylen) < 0)
		return -EINVAL;
	return (long)wcursor_len(&wr->w);
}
