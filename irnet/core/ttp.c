/*
 * ttp.c: TinyTP credit flow control and SAR over IrLMP (see ttp.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "ttp.h"

#define TTP_HEADER 1
#define TTP_M 0x80
#define TTP_P 0x80
#define RX_SLOTS (TTP_MAX_CREDIT + 1)

/* ---- wire format ----------------------------------------------------- */

int ttp_connect_parse(const uint8_t *buf, size_t len, struct ttp_connect_pdu *out)
{
	struct cursor c, params;
	uint8_t b0, plen;

	memset(out, 0, sizeof(*out));
	cursor_init(&c, buf, len);
	if (!cursor_u8(&c, &b0))
		return -EINVAL;
	out->credit = b0 & 0x7f;
	if (b0 & TTP_P) {
		if (!cursor_u8(&c, &plen) || !cursor_sub(&c, plen, &params))
			return -EINVAL;
		while (!cursor_at_end(&params)) {
			uint8_t pi, pl;
			uint64_t v;
			if (!cursor_u8(&params, &pi) || !cursor_u8(&params, &pl))
				return -EINVAL;
			if (pi != TTP_PI_MAX_SDU) {
				if (!cursor_skip(&params, pl))
					return -EINVAL;
				continue;
			}
			if (pl < 1 || pl > 4 || out->has_max_sdu || !cursor_be_uint(&params, pl, &v))
				return -EINVAL;
			out->has_max_sdu = true;
			out->max_sdu = (uint32_t)v;
		}
	}
	out->len = cursor_remaining(&c);
	if (!cursor_view(&c, out->len, &out->data))
		return -EINVAL;
	return 0;
}

size_t ttp_connect_build(uint8_t *buf, size_t cap, const struct ttp_connect_pdu *p)
{
	struct wcursor w;

	wcursor_init(&w, buf, cap);
	wcursor_u8(&w, (uint8_t)((p->has_max_sdu ? TTP_P : 0) | (p->credit & 0x7f)));
	if (p->has_max_sdu) {
		bool wide = p->max_sdu > 0xffff && p->max_sdu != UINT32_MAX;
		wcursor_u8(&w, wide ? 6 : 4);
		wcursor_u8(&w, TTP_PI_MAX_SDU);
		wcursor_u8(&w, wide ? 4 : 2);
		if (wide)
			wcursor_be32(&w, p->max_sdu);
		else
			wcursor_be16(&w, p->max_sdu > 0xffff ? 0xffff : (uint16_t)p->max_sdu);
	}
	if (p->len)
		wcursor_bytes(&w, p->data, p->len);
	return wcursor_ok(&w) ? wcursor_len(&w) : 0;
}

/* ---- connections --------------------------------------------------- */

struct sdu {
	uint8_t *data;
	size_t len;
	unsigned pdus;   /* rx: credit it took */
};

struct ttp {
	struct ttp_config cfg;
	struct irlmp_conn *conn;
	ttp_event_fn fn;
	void *ctx;
	bool connected;
	enum ttp_mode mode;     /* SAR only if we sent MaxSduSize */
	uint32_t peer_max_sdu;  /* 0: no SAR */
	unsigned send_credit;   /* PDUs we may send */
	unsigned remote_credit; /* PDUs the peer may send */
	unsigned give;          /* credit earned by the reader, not yet sent */
	bool stalled;
	bool want_writable;     /* ttp_send said -ENOBUFS: tell when there is room */
	/* tx */
	struct sdu *txq;
	size_t tx_head, tx_count, tx_off;
	/* rx */
	struct sdu rxq[RX_SLOTS];
	size_t rx_head, rx_count, rx_bytes;
	uint8_t *asm_buf;
	size_t asm_len, asm_cap;
	bool asm_discard;
	struct ttp_stats stats;
};

struct ttp_listener {
	struct ttp_config cfg;
	struct irlmp_conn *conn;
	ttp_event_fn fn;
	void *ctx;
	unsigned long refused;
};

void ttp_config_defaults(struct ttp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->rx_credit = 16;
	cfg->mode = TTP_MODE_SAR;
	cfg->max_sdu = 4096;
	cfg->tx_queue_max = 8;
}

static void set_connected(struct ttp *t, bool on, const char *event)
{
	log_msg(t->cfg.log, LOG_LEVEL_DEBUG, "ttp %02x-%02x: %s --%s--> %s", irlmp_conn_lsel(t->conn),
		irlmp_conn_rsel(t->conn), t->connected ? "CONNECTED" : "SETUP", event,
		on ? "CONNECTED" : "CLOSED");
	t->connected = on;
}

static bool config_ok(const struct ttp_config *cfg)
{
	return cfg->rx_credit != 0 && cfg->rx_credit <= TTP_MAX_CREDIT && cfg->tx_queue_max != 0 &&
	       (cfg->mode == TTP_MODE_STREAM || (cfg->mode == TTP_MODE_SAR && cfg->max_sdu != 0));
}

static struct ttp *ttp_alloc(const struct ttp_config *cfg, enum ttp_mode mode, ttp_event_fn fn,
			     void *ctx)
{
	struct ttp *t;

	if (!config_ok(cfg))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->txq = calloc(cfg->tx_queue_max, sizeof(*t->txq));
	if (!t->txq) {
		free(t);
		return NULL;
	}
	t->cfg = *cfg;
	t->mode = mode;
	t->fn = fn;
	t->ctx = ctx;
	t->remote_credit = cfg->rx_credit;
	return t;
}

static void ttp_release(struct ttp *t)
{
	for (size_t i = 0; i < t->tx_count; i++)
		free(t->txq[(t->tx_head + i) % t->cfg.tx_queue_max].data);
	for (size_t i = 0; i < t->rx_count; i++)
		free(t->rxq[(t->rx_head + i) % RX_SLOTS].data);
	free(t->txq);
	free(t->asm_buf);
	free(t);
}

/* Our Connect or Confirm: MaxSduSize only for a SAR connection. */
static size_t own_connect_pdu(const struct ttp_config *cfg, enum ttp_mode mode, uint8_t *buf,
			      size_t cap)
{
	struct ttp_connect_pdu p = { .credit = cfg->rx_credit, .has_max_sdu = mode == TTP_MODE_SAR,
				     .max_sdu = cfg->max_sdu };
	return ttp_connect_build(buf, cap, &p);
}

static void emit(struct ttp *t, enum ttp_ev_type type, enum irlmp_reason reason)
{
	struct ttp_event ev = { .type = type, .ttp = t, .reason = reason };

	if (t->fn)
		t->fn(t->ctx, &ev);
}

static void take_peer_params(struct ttp *t, const struct ttp_connect_pdu *p)
{
	t->send_credit = p->credit;
	t->peer_max_sdu = p->has_max_sdu ? p->max_sdu : 0;
	if (t->mode == TTP_MODE_STREAM && t->peer_max_sdu)
		log_msg(t->cfg.log, LOG_LEVEL_DEBUG,
			"ttp: peer offers MaxSduSize %lu on a stream connection: not used",
			(unsigned long)t->peer_max_sdu);
}

/* Largest segment payload in one LM data PDU. */
static size_t seg_max(const struct ttp *t)
{
	size_t m = irlmp_max_data(irlmp_conn_owner(t->conn));
	return m > TTP_HEADER ? m - TTP_HEADER : 0;
}

static bool rx_push(struct ttp *t, uint8_t *data, size_t len, unsigned pdus)
{
	struct sdu *s;

	if (t->rx_count == RX_SLOTS)
		return false;
	s = &t->rxq[(t->rx_head + t->rx_count) % RX_SLOTS];
	s->data = data;
	s->len = len;
	s->pdus = pdus;
	t->rx_count++;
	t->rx_bytes += len;
	if (t->rx_bytes > t->stats.rx_bytes_max)
		t->stats.rx_bytes_max = t->rx_bytes;
	return true;
}

static void return_credit(struct ttp *t, unsigned n)
{
	t->give += n;
	if (t->remote_credit <= t->cfg.rx_credit / 2)
		irlmp_data_ready(t->conn);
}

/*
 * Credit for the segments of an SDU still being reassembled goes back at
 * once (the reassembly buffer is bounded by max_sdu); an SDU waiting for
 * the reader holds the credit of its last PDU until ttp_recv() takes it.
 * So at most rx_credit SDUs wait, and the peer can always finish one.
 */
static void on_segment(struct ttp *t, bool more, const uint8_t *data, size_t len)
{
	bool sar = t->mode == TTP_MODE_SAR;

	/* A stream keeps every byte IrLAP delivered: a PDU is bounded by the
	 * frame size we announced. */
	if (sar && !t->asm_discard && t->asm_len + len > t->cfg.max_sdu) {
		t->asm_discard = true;
		t->stats.oversize_dropped++;
		log_msg(t->cfg.log, LOG_LEVEL_WARNING, "ttp: SDU over %lu bytes from the peer dropped",
			(unsigned long)t->cfg.max_sdu);
	}
	if (!t->asm_discard && len) {
		if (t->asm_len + len > t->asm_cap) {
			size_t cap = t->asm_len + len;
			uint8_t *nb = realloc(t->asm_buf, cap);
			if (!nb) {
				t->asm_discard = true;
			} else {
				t->asm_buf = nb;
				t->asm_cap = cap;
			}
		}
		if (!t->asm_discard) {
			memcpy(t->asm_buf + t->asm_len, data, len);
			t->asm_len += len;
		}
	}
	if (more && sar) {
		return_credit(t, 1);
		return;
	}
	if (t->asm_discard || !rx_push(t, t->asm_buf, t->asm_len, 1)) {
		t->asm_len = 0;
		t->asm_discard = false;
		return_credit(t, 1);
		return;
	}
	t->stats.sdus_rx++;
	t->asm_buf = NULL;
	t->asm_len = t->asm_cap = 0;
	emit(t, TTP_EV_READABLE, 0);
}

static void on_data(struct ttp *t, const uint8_t *buf, size_t len)
{
	uint8_t h;

	if (len < TTP_HEADER)
		return;
	h = buf[0];
	t->stats.pdus_rx++;
	if ((h & 0x7f) && t->send_credit + (h & 0x7f) > t->send_credit) {
		t->send_credit += h & 0x7f;
		if (t->tx_count)
			irlmp_data_ready(t->conn);
	}
	if (len == TTP_HEADER)
		return;
	if (t->remote_credit == 0) {
		t->stats.no_credit_dropped++;
		log_msg(t->cfg.log, LOG_LEVEL_WARNING, "ttp: data PDU without credit dropped");
		return;
	}
	t->remote_credit--;
	on_segment(t, (h & TTP_M) != 0, buf + 1, len - 1);
}

static void lmp_event(void *ctx, const struct irlmp_event *ev)
{
	struct ttp *t = ctx;
	struct ttp_connect_pdu p;

	switch (ev->type) {
	case IRLMP_EV_CONNECT_CONF:
		if (ttp_connect_parse(ev->data, ev->len, &p) < 0) {
			log_msg(t->cfg.log, LOG_LEVEL_WARNING, "ttp: malformed connect confirm");
			irlmp_disconnect(t->conn, IRLMP_REASON_UNSPECIFIED, NULL, 0);
			emit(t, TTP_EV_DISCONNECTED, IRLMP_REASON_UNSPECIFIED);
			ttp_release(t);
			return;
		}
		take_peer_params(t, &p);
		set_connected(t, true, t->mode == TTP_MODE_SAR ? "connect confirm (SAR)" :
								 "connect confirm (stream)");
		emit(t, TTP_EV_CONNECTED, 0);
		break;
	case IRLMP_EV_DATA:
		on_data(t, ev->data, ev->len);
		break;
	case IRLMP_EV_DISCONNECT:
		set_connected(t, false, "LM disconnect");
		emit(t, TTP_EV_DISCONNECTED, ev->reason);
		ttp_release(t);
		break;
	default:
		break;
	}
}

/* We may cut an SDU into segments: a SAR connection to a peer that
 * reassembles.  A stream connection never sets M (Linux's stream socket
 * would not expect it). */
static bool segmenting(const struct ttp *t)
{
	return t->mode == TTP_MODE_SAR && t->peer_max_sdu != 0;
}

static size_t build_pdu(struct ttp *t, uint8_t *buf, size_t max)
{
	struct sdu *s = t->tx_count ? &t->txq[t->tx_head] : NULL;
	unsigned credit = t->give > TTP_MAX_CREDIT ? TTP_MAX_CREDIT : t->give;
	size_t n;
	bool more;

	if (max <= TTP_HEADER)
		return 0;
	if (s && t->send_credit == 0 && !t->stalled) {
		t->stalled = true;
		t->stats.stalls++;
	}
	if (!s || t->send_credit == 0) {
		/* dataless: only to return credit the peer needs */
		if (!credit || t->remote_credit > t->cfg.rx_credit / 2)
			return 0;
		buf[0] = (uint8_t)credit;
		t->give -= credit;
		t->remote_credit += credit;
		t->stats.dataless_tx++;
		t->stats.pdus_tx++;
		return TTP_HEADER;
	}
	t->stalled = false;
	n = s->len - t->tx_off;
	if (n > max - TTP_HEADER)
		n = max - TTP_HEADER;
	more = t->tx_off + n < s->len;
	/* Without SAR (ours or the peer's) an SDU is one PDU: wait for room. */
	if (more && !segmenting(t))
		return 0;
	buf[0] = (uint8_t)((more ? TTP_M : 0) | credit);
	memcpy(buf + TTP_HEADER, s->data + t->tx_off, n);
	t->give -= credit;
	t->remote_credit += credit;
	t->send_credit--;
	t->stats.pdus_tx++;
	t->tx_off += n;
	if (!more) {
		free(s->data);
		s->data = NULL;
		t->tx_head = (t->tx_head + 1) % t->cfg.tx_queue_max;
		t->tx_count--;
		t->tx_off = 0;
		t->stats.sdus_tx++;
		/* Inside IrLAP's pull: the event has to wait for the tick. */
		if (t->want_writable && t->tx_count <= t->cfg.tx_queue_max / 2)
			irlmp_defer(t->conn);
	}
	return n + TTP_HEADER;
}

static size_t lmp_pull(void *ctx, struct irlmp_conn *conn, uint8_t *buf, size_t max)
{
	struct ttp *t = ctx;

	(void)conn;
	if (!t->connected)
		return 0;
	return build_pdu(t, buf, max);
}

static void lmp_deferred(void *ctx, struct irlmp_conn *conn)
{
	struct ttp *t = ctx;

	(void)conn;
	if (!t->want_writable || !t->connected)
		return;
	t->want_writable = false;
	emit(t, TTP_EV_WRITABLE, 0);
}

/* A PDU we cannot cut: the rest of the head SDU, when it may go. */
static size_t lmp_next_len(void *ctx, struct irlmp_conn *conn)
{
	const struct ttp *t = ctx;

	(void)conn;
	if (!t->connected || !t->tx_count || t->send_credit == 0 || segmenting(t))
		return 0;
	return TTP_HEADER + t->txq[t->tx_head].len - t->tx_off;
}

static const struct irlmp_user_ops ttp_lmp_ops = {
	.event = lmp_event, .pull = lmp_pull, .deferred = lmp_deferred,
	.next_len = lmp_next_len,
};

struct ttp *ttp_connect(struct irlmp *lm, uint32_t daddr, uint8_t dlsap,
			const struct ttp_config *cfg, ttp_event_fn fn, void *ctx, uint64_t now_us)
{
	uint8_t pdu[16];
	struct ttp *t = ttp_alloc(cfg, cfg->mode, fn, ctx);
	size_t n;

	if (!t)
		return NULL;
	n = own_connect_pdu(cfg, cfg->mode, pdu, sizeof(pdu));
	t->conn = irlmp_connect(lm, daddr, dlsap, pdu, n, &ttp_lmp_ops, t, now_us);
	if (!t->conn) {
		ttp_release(t);
		return NULL;
	}
	return t;
}

static void listener_event(void *ctx, const struct irlmp_event *ev)
{
	struct ttp_listener *l = ctx;
	struct ttp_connect_pdu p;
	uint8_t pdu[16];
	size_t n;
	struct ttp *t;
	bool peer_sar;

	if (ev->type != IRLMP_EV_CONNECT_IND)
		return;
	if (ttp_connect_parse(ev->data, ev->len, &p) < 0) {
		log_msg(l->cfg.log, LOG_LEVEL_WARNING, "ttp: malformed connect PDU refused");
		irlmp_disconnect(ev->conn, IRLMP_REASON_UNSPECIFIED, NULL, 0);
		return;
	}
	peer_sar = p.has_max_sdu && p.max_sdu != 0;
	if (l->cfg.mode == TTP_MODE_STREAM && peer_sar) {
		/* Linux's stream socket ignores it and lets the caller time
		 * out; the caller learns it now. */
		log_msg(l->cfg.log, LOG_LEVEL_INFO,
			"ttp %02x: connect with MaxSduSize %lu refused: a stream service",
			irlmp_conn_lsel(ev->conn), (unsigned long)p.max_sdu);
		l->refused++;
		irlmp_disconnect(ev->conn, IRLMP_REASON_USER, NULL, 0);
		return;
	}
	/* Never MaxSduSize in the Confirm when the Connect had none. */
	t = ttp_alloc(&l->cfg, peer_sar ? TTP_MODE_SAR : TTP_MODE_STREAM, l->fn, l->ctx);
	if (!t) {
		irlmp_disconnect(ev->conn, IRLMP_REASON_NO_CLIENT, NULL, 0);
		return;
	}
	t->conn = ev->conn;
	take_peer_params(t, &p);
	n = own_connect_pdu(&l->cfg, t->mode, pdu, sizeof(pdu));
	if (irlmp_accept(ev->conn, pdu, n, &ttp_lmp_ops, t) < 0) {
		irlmp_disconnect(ev->conn, IRLMP_REASON_UNSPECIFIED, NULL, 0);
		ttp_release(t);
		return;
	}
	set_connected(t, true, t->mode == TTP_MODE_SAR ? "connect PDU, accepted (SAR)" :
						       "connect PDU, accepted (stream)");
	emit(t, TTP_EV_CONNECTED, 0);
}

static const struct irlmp_user_ops listener_ops = { .event = listener_event };

struct ttp_listener *ttp_listen(struct irlmp *lm, uint8_t sel, const struct ttp_config *cfg,
				ttp_event_fn fn, void *ctx)
{
	struct ttp_listener *l;

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

uint8_t ttp_listener_lsap(const struct ttp_listener *l)
{
	return irlmp_conn_lsel(l->conn);
}

unsigned long ttp_listener_refused(const struct ttp_listener *l)
{
	return l->refused;
}

void ttp_set_handler(struct ttp *t, ttp_event_fn fn, void *ctx)
{
	t->fn = fn;
	t->ctx = ctx;
}

void ttp_listener_free(struct ttp_listener *l)
{
	if (!l)
		return;
	irlmp_disconnect(l->conn, IRLMP_REASON_USER, NULL, 0);
	free(l);
}

int ttp_send(struct ttp *t, const uint8_t *sdu, size_t len)
{
	size_t limit;
	struct sdu *s;

	if (!t->connected)
		return -ENOTCONN;
	limit = ttp_max_send(t);
	if (len > limit || len == 0)
		return -EMSGSIZE;
	if (t->tx_count == t->cfg.tx_queue_max) {
		t->want_writable = true;
		return -ENOBUFS;
	}
	s = &t->txq[(t->tx_head + t->tx_count) % t->cfg.tx_queue_max];
	s->data = malloc(len);
	if (!s->data)
		return -ENOMEM;
	memcpy(s->data, sdu, len);
	s->len = len;
	t->tx_count++;
	irlmp_data_ready(t->conn);
	return 0;
}

long ttp_recv(struct ttp *t, uint8_t *buf, size_t cap)
{
	struct sdu *s;
	size_t n;

	if (!t->rx_count)
		return 0;
	s = &t->rxq[t->rx_head];
	if (s->len > cap)
		return -EMSGSIZE;
	n = s->len;
	if (n)
		memcpy(buf, s->data, n);
	free(s->data);
	s->data = NULL;
	t->rx_head = (t->rx_head + 1) % RX_SLOTS;
	t->rx_count--;
	t->rx_bytes -= n;
	return_credit(t, s->pdus);
	return (long)n;
}

void ttp_disconnect(struct ttp *t)
{
	irlmp_disconnect(t->conn, IRLMP_REASON_USER, NULL, 0);
	ttp_release(t);
}

bool ttp_is_connected(const struct ttp *t) { return t->connected; }
enum ttp_mode ttp_mode(const struct ttp *t) { return t->mode; }

size_t ttp_max_send(const struct ttp *t)
{
	size_t one = seg_max(t);

	if (segmenting(t))
		return t->peer_max_sdu;
	return t->peer_max_sdu && t->peer_max_sdu < one ? t->peer_max_sdu : one;
}
size_t ttp_tx_pending(const struct ttp *t) { return t->tx_count; }
uint32_t ttp_peer_max_sdu(const struct ttp *t) { return t->peer_max_sdu; }
unsigned ttp_send_credit(const struct ttp *t) { return t->send_credit; }
struct irlmp_conn *ttp_lmp_conn(const struct ttp *t) { return t->conn; }
const struct ttp_stats *ttp_get_stats(const struct ttp *t) { return &t->stats; }
