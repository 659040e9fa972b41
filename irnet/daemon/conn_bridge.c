/*
 * conn_bridge.c: one TinyTP connection <-> one local socket (see the
 * header for the rules of back-pressure and of the ends).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "conn_bridge.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "array.h"
#include "loopback_pair.h"

/* What the bridge needs of the connection under it: TinyTP or a plain
 * IrLMP connection, whose calls have the same shape. */
struct transport {
	int (*send)(void *t, const uint8_t *data, size_t len);
	long (*recv)(void *t, uint8_t *buf, size_t cap);
	size_t (*tx_pending)(const void *t);
	void (*disconnect)(void *t);
	uint64_t (*rx_dropped)(const void *t);  /* what it dropped on receive */
};

static int ttp_send_(void *t, const uint8_t *d, size_t n) { return ttp_send(t, d, n); }
static long ttp_recv_(void *t, uint8_t *b, size_t n) { return ttp_recv(t, b, n); }
static size_t ttp_pending_(const void *t) { return ttp_tx_pending(t); }
static void ttp_disconnect_(void *t) { ttp_disconnect(t); }
static uint64_t ttp_dropped_(const void *t)
{
	const struct ttp_stats *st = ttp_get_stats(t);
	return st->oversize_dropped + st->no_credit_dropped;
}
static const struct transport over_ttp = { ttp_send_, ttp_recv_, ttp_pending_, ttp_disconnect_,
					   ttp_dropped_ };

static int lmp_send_(void *t, const uint8_t *d, size_t n) { return lmp_send(t, d, n); }
static long lmp_recv_(void *t, uint8_t *b, size_t n) { return lmp_recv(t, b, n); }
static size_t lmp_pending_(const void *t) { return lmp_tx_pending(t); }
static void lmp_disconnect_(void *t) { lmp_disconnect(t); }
static uint64_t lmp_dropped_(const void *t) { return lmp_get_stats(t)->rx_dropped; }
static const struct transport over_lmp = { lmp_send_, lmp_recv_, lmp_pending_, lmp_disconnect_,
					   lmp_dropped_ };

enum bridge_state {
	BRIDGE_OPEN,       /* data both ways */
	BRIDGE_FLUSHING,   /* the client closed: TinyTP sends what it has, then disconnect */
	BRIDGE_DRAINING,   /* TinyTP closed: the client reads what is left, then EOF */
	BRIDGE_DELIVERING, /* TCP: all written; waiting for the client's kernel to take it */
	BRIDGE_CLOSED,     /* closed was called; the owner frees us */
};

static const char *state_name(enum bridge_state s)
{
	static const char *const names[] = { "OPEN", "FLUSHING", "DRAINING", "DELIVERING",
					     "CLOSED" };
	return names[s];
}

/* Bytes on their way to the client: one SDU at a time while open, all that
 * TinyTP still held when it closed. */
struct rx_queue {
	uint8_t *buf;
	size_t len, off, cap;
	/* SAR: the SDU boundaries in buf (lengths), so each goes out alone */
	size_t *sdu;
	size_t nsdu, sdu_at, sdu_cap;
};

struct conn_bridge {
	struct eloop *loop;
	const struct transport *tr;
	void *t;                    /* struct ttp or struct lmp_conn, NULL once gone */
	int fd;
	struct conn_bridge_config cfg;
	const struct conn_bridge_ops *ops;
	void *ctx;
	enum bridge_state state;
	bool reading, writing;      /* registered with the loop */
	bool peer_closed;
	enum irlmp_reason reason;
	uint8_t *tx_buf;            /* one read from the client, tx_max bytes */
	uint8_t *rx_scratch;        /* one SDU from TinyTP, rx_max bytes */
	size_t tx_held;             /* bytes in tx_buf TinyTP refused for now */
	struct rx_queue rx;
	struct eloop_timer timer;   /* flushing: poll the queue; draining: give up */
	uint64_t flush_deadline;    /* flushing: when to give up on the peer;
				     * draining, delivering: on the client */
	struct conn_bridge_stats stats;
};

static void on_readable(struct eloop *loop, int fd, void *ctx);
static void on_writable(struct eloop *loop, int fd, void *ctx);

/* The transport's receive drops, read while it is there to ask. */
static void note_drops(struct conn_bridge *b)
{
	if (b->t)
		b->stats.rx_dropped = b->tr->rx_dropped(b->t);
}

/* Ends the transport from our side. */
static void drop_transport(struct conn_bridge *b)
{
	if (!b->t)
		return;
	note_drops(b);
	b->tr->disconnect(b->t);
	b->t = NULL;
}

static void set_state(struct conn_bridge *b, enum bridge_state to, const char *event)
{
	log_msg(b->cfg.log, LOG_LEVEL_DEBUG, "bridge fd %d: %s --%s--> %s", b->fd,
		state_name(b->state), event, state_name(to));
	b->state = to;
}

static void want_read(struct conn_bridge *b, bool on)
{
	if (on == b->reading)
		return;
	b->reading = on;
	if (on)
		eloop_add_reader(b->loop, b->fd, on_readable, b);
	else
		eloop_remove_reader(b->loop, b->fd);
}

static void want_write(struct conn_bridge *b, bool on)
{
	if (on == b->writing)
		return;
	b->writing = on;
	if (on)
		eloop_add_writer(b->loop, b->fd, on_writable, b);
	else
		eloop_remove_writer(b->loop, b->fd);
}

/* The connection ended under us, not by the peer's disconnect PDU: the
 * link lost (0x02), not opened (0x03) or reset (0x04), IrLMP closing it
 * (0x05) or giving up on an unresponsive peer (0x07): what af_irda
 * reported as a reset rather than an end of file.  Any other reason is
 * one a peer's disconnect carries (0x01 "user request" from Linux; a
 * stranger's 0xff "unspecified" too): the peer ended it, end of file. */
static bool link_lost(const struct conn_bridge *b)
{
	if (!b->peer_closed)
		return false;
	switch (b->reason) {
	case IRLMP_REASON_LAP_DISCONNECT:
	case IRLMP_REASON_LAP_CONNECT_FAILED:
	case IRLMP_REASON_LAP_RESET:
	case IRLMP_REASON_LM_INITIATED:
	case IRLMP_REASON_NO_RESPONSE:
		return true;
	default:
		return false;
	}
}

/* Ends the client's socket.  A socketpair is shut down: the client reads
 * end of file, its writes fail with EPIPE.  A loopback pair is closed
 * with a reset: after a link loss straight away (the client reads its
 * bytes, then ECONNRESET once, then end of file); otherwise after a FIN
 * (end of file; the reset then makes the client's next write fail with
 * EPIPE, as on a socketpair, instead of vanishing into our closed end). */
static void end_socket(struct conn_bridge *b)
{
	if (!b->cfg.tcp) {
		shutdown(b->fd, SHUT_RDWR);
		return;
	}
	if (!link_lost(b))
		shutdown(b->fd, SHUT_WR);
	log_msg(b->cfg.log, LOG_LEVEL_DEBUG, "bridge fd %d: reset (%s)", b->fd,
		link_lost(b) ? "link lost" : "after end of file");
	loopback_pair_reset(b->fd);
	b->fd = -1;
}

static void finish(struct conn_bridge *b, const char *event)
{
	if (b->state == BRIDGE_CLOSED)
		return;
	set_state(b, BRIDGE_CLOSED, event);
	want_read(b, false);
	want_write(b, false);
	eloop_timer_cancel(b->loop, &b->timer);
	end_socket(b);
	b->ops->closed(b->ctx, b, b->peer_closed, b->reason);
}

/* TCP: a reset discards what the client's kernel has not acknowledged, so
 * the bridge waits until nothing is (or nobody is left to take it). */
static bool delivered(struct conn_bridge *b)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	int unacked = 0;

	if (getsockopt(b->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    (ti.tcpi_state != TCP_ESTABLISHED && ti.tcpi_state != TCP_CLOSE_WAIT))
		return true;
	return ioctl(b->fd, SIOCOUTQ, &unacked) < 0 || unacked == 0;
}

/* The client's socket has all that TinyTP left (or the client is gone). */
static void drained(struct conn_bridge *b)
{
	want_write(b, false);
	if (!b->cfg.tcp || delivered(b)) {
		finish(b, "drained");
		return;
	}
	set_state(b, BRIDGE_DELIVERING, "drained");
	b->stats.delivery_waits++;
	/* no event says "acknowledged": look again shortly */
	eloop_timer_arm_in(b->loop, &b->timer, 10000);
}

static void on_deliver_timer(struct conn_bridge *b)
{
	if (delivered(b)) {
		finish(b, "delivered");
		return;
	}
	if (eloop_now_us() >= b->flush_deadline) {
		log_msg(b->cfg.log, LOG_LEVEL_INFO,
			"bridge fd %d: the client left bytes unread; dropped", b->fd);
		finish(b, "drain timeout");
		return;
	}
	eloop_timer_arm_in(b->loop, &b->timer, 10000);
}

/* --- TinyTP -> client ------------------------------------------------- */

static bool rx_append(struct rx_queue *q, const uint8_t *data, size_t n, bool sar)
{
	if (q->off == q->len) {
		q->off = q->len = 0;
		q->nsdu = q->sdu_at = 0;
	}
	uint8_t *buf = array_grow(q->buf, &q->cap, q->len + n, 1, 4096);
	if (!buf)
		return false;
	q->buf = buf;
	if (sar) {
		size_t *sdu = array_grow(q->sdu, &q->sdu_cap, q->nsdu + 1, sizeof(*q->sdu), 16);
		if (!sdu)
			return false;
		q->sdu = sdu;
	}
	memcpy(q->buf + q->len, data, n);
	q->len += n;
	if (sar)
		q->sdu[q->nsdu++] = n;
	return true;
}

/* Writes what the queue holds; false when the client's buffer is full. */
static bool rx_flush(struct conn_bridge *b)
{
	struct rx_queue *q = &b->rx;
	bool sar = b->cfg.mode == CONN_BRIDGE_SAR;

	while (q->off < q->len) {
		size_t n = sar ? q->sdu[q->sdu_at] : q->len - q->off;
		ssize_t w = send(b->fd, q->buf + q->off, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return false;
		if (w < 0) {
			/* The client is gone: nobody will read the rest. */
			log_msg(b->cfg.log, LOG_LEVEL_DEBUG, "bridge fd %d: send: %s", b->fd,
				strerror(errno));
			q->off = q->len;
			want_read(b, false);
			return true;
		}
		q->off += (size_t)w;
		b->stats.bytes_from_peer += (uint64_t)w;
		if (sar) {
			/* a SEQPACKET send is all or nothing */
			q->sdu_at++;
			b->stats.sdus_from_peer++;
		}
	}
	return true;
}

/* Moves SDUs from TinyTP to the client while the client takes them. */
static void pump_from_peer(struct conn_bridge *b)
{
	while (b->t && rx_flush(b)) {
		long n = b->tr->recv(b->t, b->rx_scratch, b->cfg.rx_max);
		if (n <= 0) {
			if (n < 0)
				log_msg(b->cfg.log, LOG_LEVEL_WARNING,
					"bridge fd %d: an SDU over %zu bytes", b->fd, b->cfg.rx_max);
			break;
		}
		if (!rx_append(&b->rx, b->rx_scratch, (size_t)n, b->cfg.mode == CONN_BRIDGE_SAR))
			break;
	}
	note_drops(b);
	bool blocked = b->rx.off < b->rx.len;
	if (blocked && !b->writing)
		b->stats.stalls_client++;
	want_write(b, blocked);
}

/* TinyTP is going away: keep everything it still holds. */
static void take_all_from_peer(struct conn_bridge *b)
{
	long n;

	while ((n = b->tr->recv(b->t, b->rx_scratch, b->cfg.rx_max)) > 0)
		if (!rx_append(&b->rx, b->rx_scratch, (size_t)n, b->cfg.mode == CONN_BRIDGE_SAR))
			break;
}

/* --- client -> TinyTP ------------------------------------------------- */

/* Hands tx_buf's held bytes to TinyTP; false if it has no room. */
static bool tx_push(struct conn_bridge *b)
{
	if (!b->tx_held)
		return true;
	int rc = b->tr->send(b->t, b->tx_buf, b->tx_held);
	if (rc == -ENOBUFS)
		return false;
	if (rc < 0) {
		log_msg(b->cfg.log, LOG_LEVEL_WARNING, "bridge fd %d: %zu bytes not sent: %s",
			b->fd, b->tx_held, strerror(-rc));
	} else {
		b->stats.bytes_to_peer += b->tx_held;
		b->stats.sdus_to_peer++;
	}
	b->tx_held = 0;
	return true;
}

static void start_flushing(struct conn_bridge *b);

static void pump_to_peer(struct conn_bridge *b)
{
	while (b->state == BRIDGE_OPEN && b->t) {
		/* TinyTP announces room (TTP_EV_WRITABLE) only after it refused
		 * an SDU, so the bridge offers one and holds it when refused */
		if (!tx_push(b)) {
			if (b->reading)
				b->stats.stalls_peer++;
			want_read(b, false); /* TTP_EV_WRITABLE resumes */
			break;
		}
		/* SAR: MSG_TRUNC makes an oversized message show its real size
		 * (on a stream socket it would discard data instead) */
		int flags = MSG_DONTWAIT | (b->cfg.mode == CONN_BRIDGE_SAR ? MSG_TRUNC : 0);
		ssize_t n = recv(b->fd, b->tx_buf, b->cfg.tx_max, flags);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			want_read(b, true);
			break;
		}
		if (n <= 0) {
			start_flushing(b);
			break;
		}
		if ((size_t)n > b->cfg.tx_max) {
			/* SAR: over the peer's MaxSduSize; IrLMP: over one LM-PDU */
			log_msg(b->cfg.log, LOG_LEVEL_WARNING,
				"bridge fd %d: a %zd-byte write is over the %zu bytes one %s carries: "
				"dropped", b->fd, n, b->cfg.tx_max,
				b->tr == &over_lmp ? "LM-PDU" : "SDU");
			b->stats.tx_oversize++;
			continue;
		}
		b->tx_held = (size_t)n;
	}
	b->ops->sync(b->ctx);
}

static void on_flush_timer(struct eloop *loop, void *ctx);

/* The client closed its end: send what it wrote, then disconnect. */
static void start_flushing(struct conn_bridge *b)
{
	want_read(b, false);
	set_state(b, BRIDGE_FLUSHING, "client closed");
	b->flush_deadline = eloop_now_us() + b->cfg.drain_timeout_us;
	on_flush_timer(b->loop, b);
}

static void on_flush_timer(struct eloop *loop, void *ctx)
{
	struct conn_bridge *b = ctx;

	if (b->state != BRIDGE_FLUSHING)
		return;
	if (b->t && (!tx_push(b) || b->tr->tx_pending(b->t) > 0)) {
		if (eloop_now_us() < b->flush_deadline) {
			/* TinyTP has no event for "queue empty": look again shortly */
			eloop_timer_arm_in(loop, &b->timer, 10000);
			return;
		}
		log_msg(b->cfg.log, LOG_LEVEL_INFO,
			"bridge fd %d: the peer took no data for %llu ms; %zu SDUs dropped", b->fd,
			(unsigned long long)(b->cfg.drain_timeout_us / 1000), b->tr->tx_pending(b->t));
	}
	if (b->t) {
		drop_transport(b);
		b->ops->sync(b->ctx);
	}
	finish(b, "flushed");
}

/* --- the ends and the loop's callbacks -------------------------------- */

static void on_drain_timeout(struct conn_bridge *b)
{
	log_msg(b->cfg.log, LOG_LEVEL_INFO,
		"bridge fd %d: the client left %zu bytes unread; dropped", b->fd,
		b->rx.len - b->rx.off);
	finish(b, "drain timeout");
}

static void on_timer(struct eloop *loop, void *ctx)
{
	struct conn_bridge *b = ctx;

	if (b->state == BRIDGE_DRAINING)
		on_drain_timeout(b);
	else if (b->state == BRIDGE_DELIVERING)
		on_deliver_timer(b);
	else
		on_flush_timer(loop, ctx);
}

static void on_readable(struct eloop *loop, int fd, void *ctx)
{
	(void)loop;
	(void)fd;
	pump_to_peer(ctx);
}

static void on_writable(struct eloop *loop, int fd, void *ctx)
{
	struct conn_bridge *b = ctx;
	(void)loop;
	(void)fd;
	if (b->state == BRIDGE_DRAINING) {
		if (rx_flush(b))
			drained(b);
		return;
	}
	pump_from_peer(b);
	b->ops->sync(b->ctx);
}

enum tr_event { TR_READABLE, TR_WRITABLE, TR_DISCONNECTED };

static void on_transport_event(struct conn_bridge *b, enum tr_event type,
			       enum irlmp_reason reason)
{
	if (b->state == BRIDGE_CLOSED)
		return;
	switch (type) {
	case TR_READABLE:
		if (!b->writing) {
			pump_from_peer(b);
			b->ops->sync(b->ctx); /* the credit we gave back must go out */
		}
		break;
	case TR_WRITABLE:
		if (b->state == BRIDGE_OPEN)
			pump_to_peer(b);
		break;
	case TR_DISCONNECTED:
		b->peer_closed = true;
		b->reason = reason;
		take_all_from_peer(b);
		note_drops(b);
		log_msg(b->cfg.log, LOG_LEVEL_INFO,
			"bridge fd %d: %s (IrLMP reason 0x%02x), %zu bytes still for the client",
			b->fd, link_lost(b) ? "connection lost" : "the peer disconnected",
			(unsigned)reason, b->rx.len - b->rx.off);
		b->t = NULL; /* the layer below frees it after this event */
		want_read(b, false);
		if (b->state == BRIDGE_FLUSHING) {
			finish(b, "peer closed while flushing");
			return;
		}
		set_state(b, BRIDGE_DRAINING, link_lost(b) ? "link lost" : "peer closed");
		b->flush_deadline = eloop_now_us() + b->cfg.drain_timeout_us;
		if (rx_flush(b)) {
			drained(b);
			return;
		}
		want_write(b, true);
		eloop_timer_arm_in(b->loop, &b->timer, b->cfg.drain_timeout_us);
		break;
	}
}

void conn_bridge_ttp_event(struct conn_bridge *b, const struct ttp_event *ev)
{
	if (ev->type == TTP_EV_READABLE)
		on_transport_event(b, TR_READABLE, 0);
	else if (ev->type == TTP_EV_WRITABLE)
		on_transport_event(b, TR_WRITABLE, 0);
	else if (ev->type == TTP_EV_DISCONNECTED)
		on_transport_event(b, TR_DISCONNECTED, ev->reason);
}

void conn_bridge_lmp_event(struct conn_bridge *b, const struct lmp_event *ev)
{
	if (ev->type == LMP_EV_READABLE)
		on_transport_event(b, TR_READABLE, 0);
	else if (ev->type == LMP_EV_WRITABLE)
		on_transport_event(b, TR_WRITABLE, 0);
	else if (ev->type == LMP_EV_DISCONNECTED)
		on_transport_event(b, TR_DISCONNECTED, ev->reason);
}

static struct conn_bridge *bridge_new(struct eloop *loop, const struct transport *tr, void *t,
				      int fd, const struct conn_bridge_config *cfg,
				      const struct conn_bridge_ops *ops, void *ctx)
{
	struct conn_bridge *b;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return NULL;
	if (cfg->tx_max == 0 || cfg->rx_max == 0) {
		errno = EINVAL;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->tx_buf = malloc(cfg->tx_max);
	b->rx_scratch = malloc(cfg->rx_max);
	if (!b->tx_buf || !b->rx_scratch) {
		free(b->tx_buf);
		free(b->rx_scratch);
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	b->loop = loop;
	b->tr = tr;
	b->t = t;
	b->fd = fd;
	b->cfg = *cfg;
	b->ops = ops;
	b->ctx = ctx;
	eloop_timer_init(&b->timer, on_timer, b);
	want_read(b, true);
	return b;
}

struct conn_bridge *conn_bridge_new(struct eloop *loop, struct ttp *t, int fd,
				    const struct conn_bridge_config *cfg,
				    const struct conn_bridge_ops *ops, void *ctx)
{
	return bridge_new(loop, &over_ttp, t, fd, cfg, ops, ctx);
}

struct conn_bridge *conn_bridge_new_lmp(struct eloop *loop, struct lmp_conn *lc, int fd,
					const struct conn_bridge_config *cfg,
					const struct conn_bridge_ops *ops, void *ctx)
{
	if (cfg->mode != CONN_BRIDGE_SAR) {
		errno = EINVAL;   /* IrLMP keeps boundaries: a SEQPACKET socket */
		return NULL;
	}
	return bridge_new(loop, &over_lmp, lc, fd, cfg, ops, ctx);
}

void conn_bridge_free(struct conn_bridge *b)
{
	if (!b)
		return;
	want_read(b, false);
	want_write(b, false);
	eloop_timer_cancel(b->loop, &b->timer);
	drop_transport(b);
	if (b->fd >= 0)
		close(b->fd);
	free(b->rx.buf);
	free(b->rx.sdu);
	free(b->tx_buf);
	free(b->rx_scratch);
	free(b);
}

struct ttp *conn_bridge_ttp(const struct conn_bridge *b)
{
	return b->tr == &over_ttp ? b->t : NULL;
}

struct lmp_conn *conn_bridge_lmp(const struct conn_bridge *b)
{
	return b->tr == &over_lmp ? b->t : NULL;
}

const struct conn_bridge_stats *conn_bridge_get_stats(struct conn_bridge *b)
{
	note_drops(b); /* the layer below drops without telling (lmp_conn) */
	return &b->stats;
}
