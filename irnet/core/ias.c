/*
 * ias.c: LM-IAS wire format, information base, server and client (see ias.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "ias.h"

#define MAX_OBJECTS 32
#define MAX_ATTRS 8
#define RESP_MAX 1100
/* The object id Linux puts in its error answers. */
#define ERROR_OBJECT_ID 0x1235

/* ---- wire format ----------------------------------------------------- */

static bool read_name(struct cursor *c, const uint8_t **p, size_t *len)
{
	uint8_t n;

	if (!cursor_u8(c, &n) || n > IAS_NAME_MAX || !cursor_view(c, n, p))
		return false;
	*len = n;
	return true;
}

int ias_request_parse(const uint8_t *buf, size_t len, struct ias_request *out)
{
	struct cursor c;

	memset(out, 0, sizeof(*out));
	cursor_init(&c, buf, len);
	if (!cursor_u8(&c, &out->control))
		return -EINVAL;
	if ((out->control & 0x3f) != IAS_OP_GET_VALUE_BY_CLASS || (out->control & IAS_ACK))
		return -EOPNOTSUPP;
	if (!read_name(&c, &out->class_name, &out->class_len) ||
	    !read_name(&c, &out->attr_name, &out->attr_len) || !cursor_at_end(&c))
		return -EINVAL;
	return 0;
}

size_t ias_request_build(uint8_t *buf, size_t cap, const char *class_name, const char *attr)
{
	struct wcursor w;
	size_t cl = strlen(class_name), al = strlen(attr);

	if (cl > IAS_NAME_MAX || al > IAS_NAME_MAX)
		return 0;
	wcursor_init(&w, buf, cap);
	wcursor_u8(&w, IAS_LST | IAS_OP_GET_VALUE_BY_CLASS);
	wcursor_u8(&w, (uint8_t)cl);
	wcursor_bytes(&w, class_name, cl);
	wcursor_u8(&w, (uint8_t)al);
	wcursor_bytes(&w, attr, al);
	return wcursor_ok(&w) ? wcursor_len(&w) : 0;
}

static bool read_value(struct cursor *c, struct ias_value *v)
{
	uint8_t t, n8;
	uint16_t n16;
	uint32_t i;

	memset(v, 0, sizeof(*v));
	if (!cursor_u8(c, &t))
		return false;
	v->type = (enum ias_type)t;
	switch (t) {
	case IAS_MISSING:
		return true;
	case IAS_INTEGER:
		if (!cursor_be32(c, &i))
			return false;
		v->integer = (int32_t)i;
		return true;
	case IAS_OCTETS:
		if (!cursor_be16(c, &n16) || n16 > IAS_OCTETS_MAX || !cursor_view(c, n16, &v->bytes))
			return false;
		v->len = n16;
		return true;
	case IAS_STRING:
		if (!cursor_u8(c, &v->charset) || !cursor_u8(c, &n8) || !cursor_view(c, n8, &v->bytes))
			return false;
		v->len = n8;
		return true;
	default:
		return false;
	}
}

int ias_response_parse(const uint8_t *buf, size_t len, struct ias_response *out)
{
	struct cursor c;
	uint16_t n;

	memset(out, 0, sizeof(*out));
	cursor_init(&c, buf, len);
	if (!cursor_u8(&c, &out->control) || !cursor_u8(&c, &out->ret))
		return -EINVAL;
	if ((out->control & 0x3f) != IAS_OP_GET_VALUE_BY_CLASS || (out->control & IAS_ACK))
		return -EINVAL;
	if (cursor_at_end(&c)) {
		/* Only errors may come without a list. */
		return out->ret == IAS_SUCCESS ? -EINVAL : 0;
	}
	if (!cursor_be16(&c, &n) || n == 0)
		return -EINVAL;
	for (uint16_t i = 0; i < n; i++) {
		uint16_t id;
		struct ias_value v;
		if (!cursor_be16(&c, &id) || !read_value(&c, &v))
			return -EINVAL;
		if (i == 0) {
			out->object_id = id;
			out->value = v;
		}
	}
	if (!cursor_at_end(&c))
		return -EINVAL;
	out->count = n;
	return 0;
}

int ias_lsap_sel(const struct ias_response *resp)
{
	if (resp->ret != IAS_SUCCESS || resp->count == 0 || resp->value.type != IAS_INTEGER ||
	    resp->value.integer < 0x01 || resp->value.integer > IRLMP_LSAP_MAX)
		return -EINVAL;
	return resp->value.integer;
}

/* ---- information base ------------------------------------------------ */

struct ias_attr {
	char name[IAS_NAME_MAX + 1];
	struct ias_value value;
	uint8_t *copy;
};

struct ias_object {
	bool used;
	uint16_t id;
	char class_name[IAS_NAME_MAX + 1];
	struct ias_attr attrs[MAX_ATTRS];
	size_t nattrs;
};

struct ias_db {
	struct ias_object objects[MAX_OBJECTS];
	uint16_t next_id;
};

static struct ias_object *object_by_id(struct ias_db *db, int id)
{
	for (size_t i = 0; i < MAX_OBJECTS; i++)
		if (db->objects[i].used && db->objects[i].id == id)
			return &db->objects[i];
	return NULL;
}

struct ias_db *ias_db_new(const char *device_name)
{
	static const uint8_t lmp_support[3] = { 0x01, 0x00, 0x00 };
	struct ias_db *db = calloc(1, sizeof(*db));
	struct ias_value name = { .type = IAS_STRING, .charset = 0,
				  .bytes = (const uint8_t *)device_name };
	struct ias_value sup = { .type = IAS_OCTETS, .bytes = lmp_support, .len = 3 };
	int id;

	if (!db)
		return NULL;
	name.len = strlen(device_name);
	id = ias_db_add_object(db, "Device");
	if (id < 0 || ias_db_add_attr(db, id, "DeviceName", &name) < 0 ||
	    ias_db_add_attr(db, id, "IrLMPSupport", &sup) < 0) {
		ias_db_free(db);
		return NULL;
	}
	return db;
}

static void clear_object(struct ias_object *o)
{
	for (size_t i = 0; i < o->nattrs; i++)
		free(o->attrs[i].copy);
	memset(o, 0, sizeof(*o));
}

void ias_db_free(struct ias_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < MAX_OBJECTS; i++)
		clear_object(&db->objects[i]);
	free(db);
}

int ias_db_add_object(struct ias_db *db, const char *class_name)
{
	size_t n = strlen(class_name);

	if (n == 0 || n > IAS_NAME_MAX)
		return -EINVAL;
	for (size_t i = 0; i < MAX_OBJECTS; i++) {
		struct ias_object *o = &db->objects[i];
		if (o->used)
			continue;
		o->used = true;
		o->id = db->next_id++;
		memcpy(o->class_name, class_name, n + 1);
		return o->id;
	}
	return -ENOSPC;
}

int ias_db_remove_object(struct ias_db *db, int object_id)
{
	struct ias_object *o = object_by_id(db, object_id);

	if (!o)
		return -ENOENT;
	clear_object(o);
	return 0;
}

int ias_db_add_attr(struct ias_db *db, int object_id, const char *name,
		    const struct ias_value *value)
{
	struct ias_object *o = object_by_id(db, object_id);
	size_t n = strlen(name);
	struct ias_attr *a;

	if (!o)
		return -ENOENT;
	if (n == 0 || n > IAS_NAME_MAX ||
	    (value->type == IAS_OCTETS && value->len > IAS_OCTETS_MAX) ||
	    (value->type == IAS_STRING && value->len > IAS_STRING_MAX) ||
	    (unsigned)value->type > IAS_STRING)
		return -EINVAL;
	for (size_t i = 0; i < o->nattrs; i++)
		if (strcmp(o->attrs[i].name, name) == 0)
			return -EEXIST;
	if (o->nattrs == MAX_ATTRS)
		return -ENOSPC;
	a = &o->attrs[o->nattrs];
	a->value = *value;
	a->copy = NULL;
	if (value->len) {
		a->copy = malloc(value->len);
		if (!a->copy)
			return -ENOMEM;
		memcpy(a->copy, value->bytes, value->len);
	}
	a->value.bytes = a->copy;
	memcpy(a->name, name, n + 1);
	o->nattrs++;
	return 0;
}

static bool name_is(const char *s, const uint8_t *p, size_t n)
{
	return strlen(s) == n && memcmp(s, p, n) == 0;
}

static void write_value(struct wcursor *w, const struct ias_value *v)
{
	wcursor_u8(w, (uint8_t)v->type);
	switch (v->type) {
	case IAS_INTEGER:
		wcursor_be32(w, (uint32_t)v->integer);
		break;
	case IAS_OCTETS:
		wcursor_be16(w, (uint16_t)v->len);
		wcursor_bytes(w, v->bytes, v->len);
		break;
	case IAS_STRING:
		wcursor_u8(w, v->charset);
		wcursor_u8(w, (uint8_t)v->len);
		wcursor_bytes(w, v->bytes, v->len);
		break;
	default:
		break;
	}
}

static size_t error_answer(uint8_t *buf, size_t cap, uint8_t ret, bool with_list)
{
	struct wcursor w;

	wcursor_init(&w, buf, cap);
	wcursor_u8(&w, IAS_LST | IAS_OP_GET_VALUE_BY_CLASS);
	wcursor_u8(&w, ret);
	if (with_list) {
		wcursor_be16(&w, 1);
		wcursor_be16(&w, ERROR_OBJECT_ID);
		wcursor_u8(&w, IAS_MISSING);
	}
	return wcursor_ok(&w) ? wcursor_len(&w) : 0;
}

size_t ias_db_answer(const struct ias_db *db, const uint8_t *req, size_t len, uint8_t *buf,
		     size_t cap)
{
	struct ias_request r;
	struct wcursor w;
	bool class_found = false;
	uint16_t count = 0;
	uint8_t *count_at;
	int rc = ias_request_parse(req, len, &r);

	if (rc == -EOPNOTSUPP) {
		wcursor_init(&w, buf, cap);
		wcursor_u8(&w, (uint8_t)(IAS_LST | (r.control & 0x3f)));
		wcursor_u8(&w, IAS_UNSUPPORTED);
		return wcursor_ok(&w) ? wcursor_len(&w) : 0;
	}
	if (rc < 0)
		return error_answer(buf, cap, IAS_NO_SUCH_CLASS, true);
	wcursor_init(&w, buf, cap);
	wcursor_u8(&w, IAS_LST | IAS_OP_GET_VALUE_BY_CLASS);
	wcursor_u8(&w, IAS_SUCCESS);
	if (!wcursor_reserve(&w, 2, &count_at))
		return 0;
	for (size_t i = 0; i < MAX_OBJECTS; i++) {
		const struct ias_object *o = &db->objects[i];
		if (!o->used || !name_is(o->class_name, r.class_name, r.class_len))
			continue;
		class_found = true;
		for (size_t k = 0; k < o->nattrs; k++) {
			if (!name_is(o->attrs[k].name, r.attr_name, r.attr_len))
				continue;
			wcursor_be16(&w, o->id);
			write_value(&w, &o->attrs[k].value);
			count++;
		}
	}
	if (!class_found)
		return error_answer(buf, cap, IAS_NO_SUCH_CLASS, true);
	if (!count)
		return error_answer(buf, cap, IAS_NO_SUCH_ATTRIBUTE, true);
	if (!wcursor_ok(&w))
		return error_answer(buf, cap, IAS_LIST_TOO_LONG, false);
	count_at[0] = (uint8_t)(count >> 8);
	count_at[1] = (uint8_t)count;
	return wcursor_len(&w);
}

/* ---- server ------------------------------------------------------------ */

struct ias_session {
	struct ias_server *srv;
	struct irlmp_conn *conn;
	uint8_t resp[RESP_MAX];
	size_t len, sent;
	bool used;
};

#define MAX_SESSIONS 8

struct ias_server {
	struct irlmp *lm;
	const struct ias_db *db;
	const struct logger *log;
	struct irlmp_conn *listener;
	struct ias_session sessions[MAX_SESSIONS];
	uint64_t answered;
};

static void session_event(void *ctx, const struct irlmp_event *ev)
{
	struct ias_session *s = ctx;

	switch (ev->type) {
	case IRLMP_EV_DATA:
		if (s->len) /* one request at a time; a second one is ignored */
			return;
		s->len = ias_db_answer(s->srv->db, ev->data, ev->len, s->resp, sizeof(s->resp));
		s->sent = 0;
		s->srv->answered++;
		irlmp_data_ready(s->conn);
		break;
	case IRLMP_EV_DISCONNECT:
		s->used = false;
		break;
	default:
		break;
	}
}

static size_t session_pull(void *ctx, struct irlmp_conn *conn, uint8_t *buf, size_t max)
{
	struct ias_session *s = ctx;

	(void)conn;
	if (!s->len || s->sent || s->len > max)
		return 0;
	memcpy(buf, s->resp, s->len);
	s->sent = s->len;
	/* ready for the next request on the same connection */
	s->len = 0;
	return s->sent;
}

static const struct irlmp_user_ops session_ops = { .event = session_event, .pull = session_pull };

static void listener_event(void *ctx, const struct irlmp_event *ev)
{
	struct ias_server *srv = ctx;

	if (ev->type != IRLMP_EV_CONNECT_IND)
		return;
	for (size_t i = 0; i < MAX_SESSIONS; i++) {
		struct ias_session *s = &srv->sessions[i];
		if (s->used)
			continue;
		memset(s, 0, sizeof(*s));
		s->used = true;
		s->srv = srv;
		s->conn = ev->conn;
		if (irlmp_accept(ev->conn, NULL, 0, &session_ops, s) < 0)
			s->used = false;
		return;
	}
	log_msg(srv->log, LOG_LEVEL_WARNING, "ias: too many clients; connect refused");
	irlmp_disconnect(ev->conn, IRLMP_REASON_NO_CLIENT, NULL, 0);
}

static const struct irlmp_user_ops listener_ops = { .event = listener_event };

struct ias_server *ias_server_new(struct irlmp *lm, const struct ias_db *db,
				  const struct logger *log)
{
	struct ias_server *srv = calloc(1, sizeof(*srv));

	if (!srv)
		return NULL;
	srv->lm = lm;
	srv->db = db;
	srv->log = log;
	srv->listener = irlmp_listen(lm, IRLMP_LSAP_IAS, &listener_ops, srv);
	if (!srv->listener) {
		free(srv);
		return NULL;
	}
	return srv;
}

void ias_server_free(struct ias_server *srv)
{
	if (!srv)
		return;
	for (size_t i = 0; i < MAX_SESSIONS; i++)
		if (srv->sessions[i].used)
			irlmp_disconnect(srv->sessions[i].conn, IRLMP_REASON_USER, NULL, 0);
	irlmp_disconnect(srv->listener, IRLMP_REASON_USER, NULL, 0);
	free(srv);
}

uint64_t ias_server_answered(const struct ias_server *srv)
{
	return srv->answered;
}

/* ---- client ------------------------------------------------------------ */

struct ias_query {
	struct irlmp_conn *conn;
	uint8_t req[2 + 2 * IAS_NAME_MAX + 2];
	size_t len;
	bool sent;
	ias_result_fn done;
	void *ctx;
};

static void query_finish(struct ias_query *q, int ret, const struct ias_response *resp)
{
	ias_result_fn done = q->done;
	void *ctx = q->ctx;

	free(q);
	done(ctx, ret, resp);
}

static void query_event(void *ctx, const struct irlmp_event *ev)
{
	struct ias_query *q = ctx;
	struct ias_response resp;

	switch (ev->type) {
	case IRLMP_EV_CONNECT_CONF:
		/* Linux gives an IAS operation 10 s. */
		irlmp_set_watchdog(q->conn, IAS_QUERY_TIMEOUT_US);
		irlmp_data_ready(q->conn);
		break;
	case IRLMP_EV_DATA:
		irlmp_disconnect(q->conn, IRLMP_REASON_USER, NULL, 0);
		if (ias_response_parse(ev->data, ev->len, &resp) < 0)
			query_finish(q, -EINVAL, NULL);
		else
			query_finish(q, resp.ret, &resp);
		break;
	case IRLMP_EV_DISCONNECT:
		query_finish(q, ev->reason == IRLMP_REASON_NO_RESPONSE ? -ETIMEDOUT : -ECONNRESET,
			     NULL);
		break;
	default:
		break;
	}
}

static size_t query_pull(void *ctx, struct irlmp_conn *conn, uint8_t *buf, size_t max)
{
	struct ias_query *q = ctx;

	(void)conn;
	if (q->sent || q->len > max)
		return 0;
	memcpy(buf, q->req, q->len);
	q->sent = true;
	return q->len;
}

static const struct irlmp_user_ops query_ops = { .event = query_event, .pull = query_pull };

struct ias_query *ias_query_start(struct irlmp *lm, uint32_t daddr, const char *class_name,
				  const char *attr, ias_result_fn done, void *ctx,
				  uint64_t now_us)
{
	struct ias_query *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->len = ias_request_build(q->req, sizeof(q->req), class_name, attr);
	q->done = done;
	q->ctx = ctx;
	if (!q->len || !(q->conn = irlmp_connect(lm, daddr, IRLMP_LSAP_IAS, NULL, 0, &query_ops, q,
						 now_us))) {
		free(q);
		return NULL;
	}
	return q;
}

void ias_query_cancel(struct ias_query *q)
{
	irlmp_disconnect(q->conn, IRLMP_REASON_USER, NULL, 0);
	free(q);
}
