/*
 * lmp_conn.c: plain IrLMP connections with bounded queues (lmp_conn.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "lmp_conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct msg {
	uint8_t *data;
	size_t len;
};

/* A ring of at most cap messages. */
struct msgq {
	struct msg *m;
	size_t head, count, cap;
};

struct lmp_conn {
	struct lmp_config cfg;
	struct irlmp_conn *conn;
	lmp_event_fn fn;
	void *ctx;
	bool connected;
	bool want_writable;
	struct msgq tx, rx;
	struct lmp_stats stats;
};

struct lmp_listener {
	struct lmp_config cfg;
	struct irlmp_conn *conn;
	lmp_event_fn fn;
	void *ctx;
};

void lmp_config_defaults(struct lmp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->tx_queue_max = 8;
	cfg->rx_queue_max = 16;
}

static bool config_ok(const struct lmp_config *cfg)
{
	return cfg->tx_queue_max != 0 && cfg->rx_queue_max != 0;
}

/* --- queues ------------------------------------------------------------- */

static bool q_init(struct msgq *q, size_t cap)
{
	q->m = calloc(cap, sizeof(*q->m));
	q->cap = cap;
	return q->m != NULL;
}

static void q_clear(struct msgq *q)
{
	for (size_t i = 0; i < q->count; i++)
		free(q->m[(q->head + i) % q->cap].data);
	free(q->m);
	q->m = NULL;
	q->count = 0;
}

static struct msg *q_front(struct msgq *q)
{
	return q->count ? &q->m[q->head] : NULL;
}

static void q_pop(struct msgq *q)
{
	free(q->m[q->head].data);
	q->m[q->head].data = NULL;
	q->head = (q->head + 1) % q->cap;
	q->count--;
}

/* Copies data in; -ENOBUFS if full, -ENOMEM. */
static int q_push(struct msgq *q, const uint8_t *data, size_t len)
{
	struct msg *m;

	if (q->count == q->cap)
		return -ENOBUFS;
	m = &q->m[(q->head + q->count) % q->cap];
	m->data = malloc(len);
	if (!m->data)
		return -ENOMEM;
	memcpy(m->data, data, len);
	m->len = len;
	q->count++;
	return 0;
}

/* --- connections --------------------------------------------------------- */

static struct lmp_conn *conn_alloc(const struct lmp_config *cfg, lmp_event_fn fn, void *ctx)
{
	struct lmp_conn *c;

	if (!config_ok(cfg))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (!q_init(&c->tx, cfg->tx_queue_max) || !q_init(&c->rx, cfg->rx_queue_max)) {
		free(c->tx.m);
		free(c);
		return NULL;
	}
	c->cfg = *cfg;
	c->fn = fn;
	c->ctx = ctx;
	return c;
}

static void conn_release(struct lmp_conn *c)
{
	q_clear(&c->tx);
	q_clear(&c->rx);
	free(c);
}

static void set_connected(struct lmp_conn *c, bool on, const char *event)
{
	log_msg(c->cfg.log, LOG_LEVEL_DEBUG, "lmp %02x-%02x: %s --%s--> %s",
		irlmp_conn_lsel(c->conn), irlmp_conn_rsel(c->conn),
		c->connected ? "CONNECTED" : "SETUP", event, on ? "CONNECTED" : "CLOSED");
	c->connected = on;
}

/* Emits an event; nothing may touch c after it (the user may have
 * disconnected it). */
static void emit(struct lmp_conn *c, enum lmp_ev_type type, enum irlmp_reason reason)
{
	struct lmp_event ev = { .type = type, .conn = c, .reason = reason };

	if (c->fn)
		c->fn(c->ctx, &ev);
}

static void on_data(struct lmp_conn *c, const uint8_t *data, size_t len)
{
	int rc;

	if (!len)
		return;
	rc = q_push(&c->rx, data, len);
	if (rc < 0) {
		/* IrLMP cannot tell the peer to wait: drop it (IrLPT, SOCK_DGRAM) */
		c->stats.rx_dropped++;
		log_msg(c->cfg.log, LOG_LEVEL_DEBUG, "lmp %02x-%02x: %zu bytes dropped (%s)",
			irlmp_conn_lsel(c->conn), irlmp_conn_rsel(c->conn), len,
			rc == -ENOBUFS ? "the reader is behind" : "no memory");
		return;
	}
	c->stats.msgs_rx++;
	c->stats.bytes_rx += len;
	emit(c, LMP_EV_READABLE, 0);
}

static void lmp_event(void *ctx, const struct irlmp_event *ev)
{
	struct lmp_conn *c = ctx;

	switch (ev->type) {
	case IRLMP_EV_CONNECT_CONF:
		set_connected(c, true, "connect confirm");
		if (c->tx.count)
			irlmp_data_ready(c->conn);
		emit(c, LMP_EV_CONNECTED, 0);
		break;
	case IRLMP_EV_DATA:
		on_data(c, ev->data, ev->len);
		break;
	case IRLMP_EV_DISCONNECT:
		set_connected(c, false, "LM disconnect");
		emit(c, LMP_EV_DISCONNECTED, ev->reason);
		conn_release(c);
		break;
	default:
		break;
	}
}

static size_t lmp_pull(void *ctx, struct irlmp_conn *conn, uint8_t *buf, size_t max)
{
	struct lmp_conn *c = ctx;
	struct msg *m = q_front(&c->tx);
	size_t n;

	(void)conn;
	if (!c->connected || !m || m->len > max)
		return 0;   /* a message waits for a frame with room for all of it */
	n = m->len;
	memcpy(buf, m->data, n);
	q_pop(&c->tx);
	c->stats.msgs_tx++;
	c->stats.bytes_tx += n;
	/* Inside IrLAP's pull: the event has to wait for the tick. */
	if (c->want_writable && c->tx.count <= c->cfg.tx_queue_max / 2)
		irlmp_defer(c->conn);
	return n;
}

static void lmp_deferred(void *ctx, struct irlmp_conn *conn)
{
	struct lmp_conn *c = ctx;

	(void)conn;
	if (!c->want_writable || !c->connected)
		return;
	c->want_writable = false;
	emit(c, LMP_EV_WRITABLE, 0);
}

static const struct irlmp_user_ops conn_ops = {
	.event = lmp_event, .pull = lmp_pull, .deferred = lmp_deferred,
};

struct lmp_conn *lmp_connect(struct irlmp *lm, uint32_t daddr, uint8_t dlsap,
			     const struct lmp_config *cfg, lmp_event_fn fn, void *ctx,
			     uint64_t now_us)
{
	struct lmp_conn *c = conn_alloc(cfg, fn, ctx);

	if (!c)
		return NULL;
	c->conn = irlmp_connect(lm, daddr, dlsap, NULL, 0, &conn_ops, c, now_us);
	if (!c->conn) {
		conn_release(c);
		return NULL;
	}
	log_msg(cfg->log, LOG_LEVEL_DEBUG, "lmp %02x-%02x: --connect--> SETUP",
		irlmp_conn_lsel(c->conn), dlsap);
	return c;
}

/* --- listeners ------------------------------------------------------------ */

static void listener_event(void *ctx, const struct irlmp_event *ev)
{
	struct lmp_listener *l = ctx;
	struct lmp_conn *c;

	if (ev->type != IRLMP_EV_CONNECT_IND)
		return;
	if (ev->len)
		log_msg(l->cfg.log, LOG_LEVEL_DEBUG, "lmp %02x: %zu bytes of connect data ignored",
			irlmp_conn_lsel(ev->conn), ev->len);
	c = conn_alloc(&l->cfg, l->fn, l->ctx);
	if (!c) {
		irlmp_disconnect(ev->conn, IRLMP_REASON_NO_CLIENT, NULL, 0);
		return;
	}
	c->conn = ev->conn;
	if (irlmp_accept(ev->conn, NULL, 0, &conn_ops, c) < 0) {
		irlmp_disconnect(ev->conn, IRLMP_REASON_UNSPECIFIED, NULL, 0);
		conn_release(c);
		return;
	}
	set_connected(c, true, "connect, accepted");
	emit(c, LMP_EV_CONNECTED, 0);
}

static const struct irlmp_user_ops listener_ops = { .event = listener_event };

struct lmp_listener *lmp_listen(struct irlmp *lm, uint8_t sel, const struct lmp_config *cfg,
				lmp_event_fn fn, void *ctx)
{
	struct lmp_listener *l;

	if (!config_ok(cfg))
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->cfg = *cfg;
	l->fn = fn;
	l->ctx = ctx;
	l->conn = irlmp_listen(lm, sel, &listener_ops, l);
	if (!l->conn) {
		free(l);
		return NULL;
	}
	return l;
}

uint8_t lmp_listener_lsap(const struct lmp_listener *l)
{
	return irlmp_conn_lsel(l->conn);
}

void lmp_listener_free(struct lmp_listener *l)
{
	if (!l)
		return;
	irlmp_disconnect(l->conn, IRLMP_REASON_USER, NULL, 0);
	free(l);
}

void lmp_set_handler(struct lmp_conn *c, lmp_event_fn fn, void *ctx)
{
	c->fn = fn;
	c->ctx = ctx;
}

/* --- the user's calls ---------------------------------------------------- */

int lmp_send(struct lmp_conn *c, const uint8_t *msg, size_t len)
{
	int rc;

	if (!c->connected)
		return -ENOTCONN;
	if (len == 0 || len > lmp_max_send(c))
		return -EMSGSIZE;
	rc = q_push(&c->tx, msg, len);
	if (rc == -ENOBUFS) {
		c->want_writable = true;
		c->stats.tx_full++;
	}
	if (rc < 0)
		return rc;
	irlmp_data_ready(c->conn);
	return 0;
}

long lmp_recv(struct lmp_conn *c, uint8_t *buf, size_t cap)
{
	struct msg *m = q_front(&c->rx);
	size_t n;

	if (!m)
		return 0;
	if (m->len > cap)
		return -EMSGSIZE;
	n = m->len;
	memcpy(buf, m->data, n);
	q_pop(&c->rx);
	return (long)n;
}

void lmp_disconnect(struct lmp_conn *c)
{
	irlmp_disconnect(c->conn, IRLMP_REASON_USER, NULL, 0);
	conn_release(c);
}

bool lmp_is_connected(const struct lmp_conn *c) { return c->connected; }

size_t lmp_max_send(const struct lmp_conn *c)
{
	return irlmp_max_data(irlmp_conn_owner(c->conn));
}

size_t lmp_tx_pending(const struct lmp_conn *c) { return c->tx.count; }
size_t lmp_rx_pending(const struct lmp_conn *c) { return c->rx.count; }
struct irlmp_conn *lmp_irlmp_conn(const struct lmp_conn *c) { return c->conn; }
const struct lmp_stats *lmp_get_stats(const struct lmp_conn *c) { return &c->stats; }
