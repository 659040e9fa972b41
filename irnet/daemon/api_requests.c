/*
 * api_requests.c: the local API's requests on the stack (api_requests.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "api_requests.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conn_bridge.h"
#include "station.h"
#include "loopback_pair.h"
#include "ias.h"
#include "irdad_config.h"
#include "irdad_msg.h"
#include "irnet_ep.h"
#include "lmp_conn.h"
#include "ttp.h"

#define LSAP_ATTR_TTP "IrDA:TinyTP:LsapSel"
#define LSAP_ATTR_LMP "IrDA:IrLMP:LsapSel"
/* The largest LM-PDU a peer can send: IrLAP's largest data size less the
 * LM header. */
#define LMP_RX_MAX (2048 - IRLMP_HEADER)
#define STATIONS_MAX IRLAP_MAX_PEERS
#define IAS_OBJECTS_MAX 16

struct ar_client;

/* A station seen by a discovery (ours or the peer's). */
struct station_entry {
	struct irlap_peer peer;
	uint64_t seen_us;
};

struct ar_listener {
	struct ar_listener *next;
	struct ar_client *cl;
	uint32_t id;
	enum irdad_mode mode;
	struct ttp_listener *tl;    /* stream, sar */
	struct lmp_listener *ll;    /* lmp */
	int ias_obj;                /* -1: none */
	unsigned backlog;
	uint32_t max_sdu;           /* SAR: the MaxSduSize we announce */
};

enum conn_state {
	CONN_FINDING,       /* asking IAS (one candidate station after another) */
	CONN_CONNECTING,    /* TinyTP or IrLMP connect sent */
	CONN_OPEN,          /* handed to the client, bridged */
	CONN_DEAD,          /* over: freed by the reaper */
};

struct ar_conn {
	struct ar_conn *next;
	struct ar_client *cl;
	uint32_t id, listener_id, seq;
	enum irdad_mode mode;
	enum conn_state state;
	struct ttp *t;              /* stream, sar */
	struct lmp_conn *lc;        /* lmp */
	struct ias_query *q;
	struct conn_bridge *bridge;
	uint32_t daddr;
	uint32_t max_sdu;           /* SAR: the MaxSduSize we announce */
	uint8_t peer_lsap;
	bool any_station;           /* CONNECT with DADDR 0: try each in the log */
	size_t candidate;           /* the next station of the log to ask */
	char class_name[IAS_NAME_MAX + 1];
	struct eloop_timer timeout;
};

/* An IrNET endpoint run on the client's descriptors (ATTACH). */
struct ar_endpoint {
	struct ar_endpoint *next;
	struct ar_client *cl;
	uint32_t id;
	struct irnet_ep *ep;        /* owns the channel descriptor */
	int status_fd;              /* ours to close */
};

struct ar_client {
	struct ar_client *next;
	struct api_requests *ar;
	struct api_session *s;      /* NULL once the session closed (gone_name says who) */
	char gone_name[96];
	struct ar_listener *listeners;
	struct ar_conn *conns;
	struct ar_endpoint *endpoints;
	int ias_objs[IAS_OBJECTS_MAX];
	unsigned nias;
	bool discover_waiting;
	uint32_t discover_seq;
	uint32_t watch;
	struct ias_query *query;    /* one IAS_QUERY at a time */
	uint32_t query_seq;
	uint16_t hints;             /* HINTS: bits this session adds (first byte high) */
};

struct api_requests {
	struct eloop *loop;
	struct stack *stk;
	struct api_requests_config cfg;
	struct ar_client *clients;
	struct station_entry stations[STATIONS_MAX];
	size_t nstations;
	bool discovering;
	uint32_t link_peer;         /* the peer while the link is up */
	/* HINTS: what the station announced before any session added bits */
	bool hints_added;
	uint8_t base_hints[2];
	size_t nbase_hints;
	uint32_t next_id;
	struct eloop_timer reaper;
	/* of the connections already freed (STATUS adds the live ones) */
	uint64_t rx_dropped, tx_oversize;
	uint64_t attached_total;    /* endpoints ever ATTACHed */
	/* the port: gone since port_gone_us, path waited for */
	bool port_gone;
	uint64_t port_gone_us;
	char port_path[256];
};

void api_requests_config_defaults(struct api_requests_config *cfg)
{
	*cfg = (struct api_requests_config){
		.port_name = "?", .nickname = "", .max_listeners = 8, .max_conns = 16, .max_connecting = 4,
		.max_ias_objects = IAS_OBJECTS_MAX, .max_sdu = 8192,
		.connect_timeout_us = 20000000, .drain_timeout_us = 10000000,
		.max_endpoints = 4,
	};
}

static struct irlmp *lmp(struct api_requests *ar)
{
	return stack_irlmp(ar->stk);
}

static const char *mode_name(enum irdad_mode m)
{
	return m == IRDAD_MODE_STREAM ? "stream" : m == IRDAD_MODE_SAR ? "sar" : "lmp";
}

/* The IAS attribute that names a service's LSAP in this mode. */
static const char *lsap_attr(enum irdad_mode m)
{
	return m == IRDAD_MODE_LMP ? LSAP_ATTR_LMP : LSAP_ATTR_TTP;
}

static void lmp_config_for(const struct api_requests *ar, struct lmp_config *lc)
{
	lmp_config_defaults(lc);
	lc->log = ar->cfg.log;
}

/* --- replies -------------------------------------------------------------- */

static void reply_ok(struct ar_client *cl, uint32_t seq, int obj_id)
{
	uint8_t buf[64];
	struct irdad_writer wr;

	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_OK, seq);
	if (obj_id >= 0)
		irdad_put_u32(&wr, IRDAD_A_OBJ_ID, (uint32_t)obj_id);
	long n = irdad_write_end(&wr, NULL, 0);
	if (n > 0)
		api_session_send(cl->s, buf, (size_t)n, -1);
}

static void put_station(struct irdad_writer *wr, const struct station_entry *e, uint64_t now)
{
	const struct irlap_discovery_info *in = &e->peer.info;
	uint16_t hints = (uint16_t)(in->hints[0] << 8 | (in->nhints > 1 ? in->hints[1] : 0));
	uint64_t age = (now - e->seen_us) / 1000;

	irdad_nest_begin(wr, IRDAD_A_STATION);
	irdad_put_u32(wr, IRDAD_A_ADDR, e->peer.daddr);
	irdad_put_u16(wr, IRDAD_A_HINTS, hints);
	irdad_put_u8(wr, IRDAD_A_CHARSET, in->charset);
	irdad_put_bytes(wr, IRDAD_A_NICKNAME, in->nickname, in->nickname_len);
	irdad_put_u32(wr, IRDAD_A_AGE_MS, age > UINT32_MAX ? UINT32_MAX : (uint32_t)age);
	irdad_nest_end(wr);
}

static void reply_stations(struct ar_client *cl, uint32_t seq)
{
	struct api_requests *ar = cl->ar;
	uint8_t buf[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	uint64_t now = stack_now(ar->stk);

	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_STATIONS, seq);
	for (size_t i = 0; i < ar->nstations; i++)
		put_station(&wr, &ar->stations[i], now);
	long n = irdad_write_end(&wr, NULL, 0);
	if (n > 0)
		api_session_send(cl->s, buf, (size_t)n, -1);
}

/* --- the station log ------------------------------------------------------- */

static void announce_station(struct api_requests *ar, const struct station_entry *e, bool present)
{
	uint8_t buf[256];
	struct irdad_writer wr;

	log_msg(ar->cfg.log, LOG_LEVEL_INFO, "station 0x%08x \"%.*s\" %s", e->peer.daddr,
		e->peer.info.nickname_len, (const char *)e->peer.info.nickname,
		present ? "in range" : "gone");
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_STATION, 0);
	put_station(&wr, e, stack_now(ar->stk));
	irdad_put_u8(&wr, IRDAD_A_PRESENT, present);
	long n = irdad_write_end(&wr, NULL, 0);
	for (struct ar_client *cl = ar->clients; cl && n > 0; cl = cl->next)
		if (cl->watch & IRDAD_WATCH_STATIONS)
			api_session_send(cl->s, buf, (size_t)n, -1);
}

static struct station_entry *find_station(struct api_requests *ar, uint32_t daddr)
{
	for (size_t i = 0; i < ar->nstations; i++)
		if (ar->stations[i].peer.daddr == daddr)
			return &ar->stations[i];
	return NULL;
}

static void note_station(struct api_requests *ar, const struct irlap_peer *p, uint64_t now)
{
	struct station_entry *e = find_station(ar, p->daddr);

	if (e) {
		e->peer = *p;
		e->seen_us = now;
		return;
	}
	if (ar->nstations == STATIONS_MAX)
		return;
	e = &ar->stations[ar->nstations++];
	*e = (struct station_entry){ .peer = *p, .seen_us = now };
	announce_station(ar, e, true);
}

/* A discovery of ours replaces the log: who did not answer is gone. */
static void discovery_result(struct api_requests *ar, const struct irlap_event *ev)
{
	uint64_t now = stack_now(ar->stk);

	for (size_t i = 0; i < ar->nstations;) {
		bool seen = false;
		for (size_t k = 0; k < ev->npeers; k++)
			seen = seen || ev->peers[k].daddr == ar->stations[i].peer.daddr;
		if (seen || ev->failed) {
			i++;
			continue;
		}
		announce_station(ar, &ar->stations[i], false);
		ar->stations[i] = ar->stations[--ar->nstations];
	}
	for (size_t k = 0; k < ev->npeers; k++)
		note_station(ar, &ev->peers[k], now);
}

/* --- connections ---------------------------------------------------------- */

static void conn_try_next(struct ar_conn *c);
static void send_disconnected(struct ar_conn *c, enum irlmp_reason reason, const char *text);

/* Disconnects the TinyTP or IrLMP connection not yet bridged. */
static void conn_drop_transport(struct ar_conn *c)
{
	if (c->t)
		ttp_disconnect(c->t);
	if (c->lc)
		lmp_disconnect(c->lc);
	c->t = NULL;
	c->lc = NULL;
}

/* The LSAP connection under c (NULL if none). */
static const struct irlmp_conn *conn_lsap(const struct ar_conn *c)
{
	/* once bridged, the bridge knows whether it is still there */
	const struct ttp *t = c->bridge ? conn_bridge_ttp(c->bridge) : c->t;
	const struct lmp_conn *lc = c->bridge ? conn_bridge_lmp(c->bridge) : c->lc;

	return t ? ttp_lmp_conn(t) : lc ? lmp_irlmp_conn(lc) : NULL;
}

/* Frees c's bridge, keeping its drop counts for STATUS. */
static void conn_drop_bridge(struct ar_conn *c)
{
	if (!c->bridge)
		return;
	const struct conn_bridge_stats *st = conn_bridge_get_stats(c->bridge);
	c->cl->ar->rx_dropped += st->rx_dropped;
	c->cl->ar->tx_oversize += st->tx_oversize;
	conn_bridge_free(c->bridge);
	c->bridge = NULL;
	c->t = NULL;
	c->lc = NULL;
}

/* The session's name for logs and STATUS, also after it closed. */
static const char *client_name(const struct ar_client *cl)
{
	return cl->s ? api_session_name(cl->s) : cl->gone_name;
}

static void conn_kill(struct ar_conn *c)
{
	if (c->state == CONN_DEAD)
		return;
	c->state = CONN_DEAD;
	eloop_timer_cancel(c->cl->ar->loop, &c->timeout);
	if (c->q) {
		ias_query_cancel(c->q);
		c->q = NULL;
	}
	eloop_timer_arm_in(c->cl->ar->loop, &c->cl->ar->reaper, 0);
}

/* A connect that did not happen: ERROR to its request. */
__attribute__((format(printf, 3, 4)))
static void conn_fail(struct ar_conn *c, int err, const char *fmt, ...)
{
	char text[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	conn_drop_transport(c);
	api_session_error(c->cl->s, c->seq, err, "%s", text);
	conn_kill(c);
	stack_sync(c->cl->ar->stk);
}

static void bridge_sync(void *ctx)
{
	struct ar_conn *c = ctx;
	stack_sync(c->cl->ar->stk);
}

static const char *reason_text(enum irlmp_reason r)
{
	switch (r) {
	case IRLMP_REASON_USER: return "closed by the peer";
	case IRLMP_REASON_LAP_DISCONNECT: return "the link went down";
	case IRLMP_REASON_LAP_CONNECT_FAILED: return "the link could not be opened";
	default: return "disconnected";
	}
}

static void bridge_closed(void *ctx, struct conn_bridge *b, bool by_peer, enum irlmp_reason reason)
{
	struct ar_conn *c = ctx;
	const struct conn_bridge_stats *st = conn_bridge_get_stats(b);
	log_msg(c->cl->ar->cfg.log, LOG_LEVEL_INFO,
		"%s: connection %u %s (%llu bytes to the client, %llu to the peer)",
		client_name(c->cl), (unsigned)c->id,
		by_peer ? reason_text(reason) : "closed by the client",
		(unsigned long long)st->bytes_from_peer, (unsigned long long)st->bytes_to_peer);
	if (by_peer && c->cl->s)
		send_disconnected(c, reason, reason_text(reason));
	c->t = NULL;
	c->lc = NULL;
	conn_kill(c);
}

static const struct conn_bridge_ops bridge_ops = { .sync = bridge_sync, .closed = bridge_closed };

static void send_disconnected(struct ar_conn *c, enum irlmp_reason reason, const char *text)
{
	uint8_t buf[256];
	struct irdad_writer wr;

	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_DISCONNECTED, 0);
	irdad_put_u32(&wr, IRDAD_A_CONN_ID, c->id);
	irdad_put_u8(&wr, IRDAD_A_REASON, (uint8_t)reason);
	irdad_put_str(&wr, IRDAD_A_TEXT, text);
	long n = irdad_write_end(&wr, NULL, 0);
	if (n > 0)
		api_session_send(c->cl->s, buf, (size_t)n, -1);
}

/* The connection is bridged: hand the client's end of the socketpair
 * over with CONNECTION. */
static void conn_hand_over(struct ar_conn *c, int client_fd, uint32_t peer_sdu, size_t tx_max)
{
	struct api_requests *ar = c->cl->ar;
	const struct irlmp_conn *lsap = conn_lsap(c);
	uint8_t buf[256];
	struct irdad_writer wr;

	c->state = CONN_OPEN;
	c->daddr = c->daddr ? c->daddr : ar->link_peer;
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_CONNECTION, c->seq);
	irdad_put_u32(&wr, IRDAD_A_CONN_ID, c->id);
	irdad_put_u32(&wr, IRDAD_A_LISTENER_ID, c->listener_id);
	irdad_put_u8(&wr, IRDAD_A_MODE, (uint8_t)c->mode);
	irdad_put_u32(&wr, IRDAD_A_DADDR, c->daddr);
	irdad_put_u8(&wr, IRDAD_A_LSAP, irlmp_conn_lsel(lsap));
	irdad_put_u8(&wr, IRDAD_A_PEER_LSAP, irlmp_conn_rsel(lsap));
	irdad_put_u32(&wr, IRDAD_A_PEER_MAX_SDU, peer_sdu);
	irdad_put_u32(&wr, IRDAD_A_TX_MAX, (uint32_t)tx_max);
	long n = irdad_write_end(&wr, NULL, 0);
	if (n > 0)
		api_session_send(c->cl->s, buf, (size_t)n, client_fd);
	close(client_fd);
	log_msg(ar->cfg.log, LOG_LEVEL_INFO,
		"%s: connection %u (%s) with 0x%08x LSAP 0x%02x, %zu bytes a write",
		client_name(c->cl), (unsigned)c->id, mode_name(c->mode), c->daddr,
		irlmp_conn_rsel(lsap), tx_max);
}

/* A socketpair of the given type for c: false (c failed) if none. */
static bool conn_socketpair(struct ar_conn *c, int type, int sv[2])
{
	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) == 0)
		return true;
	conn_fail(c, errno, "socketpair: %s", strerror(errno));
	return false;
}

/* A stream's descriptor pair: TCP on the loopback (a link loss can then
 * read as ECONNRESET, loopback_pair.h); where that fails (no loopback in
 * this network namespace), a unix socketpair, logged: the client then
 * reads end of file on a link loss.  *tcp says which. */
static bool conn_stream_pair(struct ar_conn *c, int sv[2], bool *tcp)
{
	int rc = loopback_pair(sv);

	*tcp = rc == 0;
	if (rc == 0)
		return true;
	log_msg(c->cl->ar->cfg.log, LOG_LEVEL_INFO,
		"connection %u: no TCP pair on 127.0.0.1 (%s): a unix socketpair, where a lost "
		"link reads as end of file", (unsigned)c->id, strerror(-rc));
	return conn_socketpair(c, SOCK_STREAM, sv);
}

static void conn_no_bridge(struct ar_conn *c, const int sv[2])
{
	close(sv[0]);
	close(sv[1]);
	conn_fail(c, ENOMEM, "%s", "out of memory");
}

/* A TinyTP connection is up: bridge it to a socketpair and hand the
 * other end to the client. */
static void conn_open(struct ar_conn *c, struct ttp *t)
{
	struct api_requests *ar = c->cl->ar;
	/* What TinyTP settled on: a SAR service reached by a stream caller
	 * runs that connection as a stream (ttp.h). */
	bool sar = ttp_mode(t) == TTP_MODE_SAR;
	struct conn_bridge_config bc = {
		.mode = sar ? CONN_BRIDGE_SAR : CONN_BRIDGE_STREAM,
		.tx_max = ttp_max_send(t),
		.rx_max = sar ? c->max_sdu : ttp_max_send(t),
		.drain_timeout_us = ar->cfg.drain_timeout_us,
		.log = ar->cfg.log,
	};
	int sv[2];

	c->t = t;
	eloop_timer_cancel(ar->loop, &c->timeout);
	if (sar ? !conn_socketpair(c, SOCK_SEQPACKET, sv) : !conn_stream_pair(c, sv, &bc.tcp))
		return;
	c->bridge = conn_bridge_new(ar->loop, t, sv[0], &bc, &bridge_ops, c);
	if (!c->bridge) {
		conn_no_bridge(c, sv);
		return;
	}
	c->mode = sar ? IRDAD_MODE_SAR : IRDAD_MODE_STREAM;
	conn_hand_over(c, sv[1], ttp_peer_max_sdu(t), bc.tx_max);
}

/* A plain IrLMP connection is up: one LM-PDU per SEQPACKET message. */
static void conn_open_lmp(struct ar_conn *c, struct lmp_conn *lc)
{
	struct api_requests *ar = c->cl->ar;
	struct conn_bridge_config bc = {
		.mode = CONN_BRIDGE_SAR,
		.tx_max = lmp_max_send(lc),
		.rx_max = LMP_RX_MAX,
		.drain_timeout_us = ar->cfg.drain_timeout_us,
		.log = ar->cfg.log,
	};
	int sv[2];

	c->lc = lc;
	eloop_timer_cancel(ar->loop, &c->timeout);
	if (!conn_socketpair(c, SOCK_SEQPACKET, sv))
		return;
	c->bridge = conn_bridge_new_lmp(ar->loop, lc, sv[0], &bc, &bridge_ops, c);
	if (!c->bridge) {
		conn_no_bridge(c, sv);
		return;
	}
	conn_hand_over(c, sv[1], 0, bc.tx_max);
}

static struct ar_conn *find_conn_by_ttp(struct ar_client *cl, const struct ttp *t)
{
	for (struct ar_conn *c = cl->conns; c; c = c->next)
		if (c->state != CONN_DEAD && c->t == t)
			return c;
	return NULL;
}

/* TinyTP events of a connection we opened. */
static void on_conn_ttp(void *ctx, const struct ttp_event *ev)
{
	struct ar_conn *c = ctx;

	if (c->state == CONN_OPEN) {
		conn_bridge_ttp_event(c->bridge, ev);
		return;
	}
	if (c->state != CONN_CONNECTING)
		return;
	if (ev->type == TTP_EV_CONNECTED) {
		conn_open(c, ev->ttp);
	} else if (ev->type == TTP_EV_DISCONNECTED) {
		c->t = NULL; /* freed by TinyTP after this event */
		conn_fail(c, ev->reason == IRLMP_REASON_USER ? ECONNREFUSED : EHOSTUNREACH,
			  "connect: %s", reason_text(ev->reason));
	}
}

/* Events of a plain IrLMP connection, ours or a listener's. */
static void on_conn_lmp(void *ctx, const struct lmp_event *ev)
{
	struct ar_conn *c = ctx;

	if (c->state == CONN_OPEN) {
		conn_bridge_lmp_event(c->bridge, ev);
		return;
	}
	if (c->state != CONN_CONNECTING)
		return;
	if (ev->type == LMP_EV_CONNECTED) {
		conn_open_lmp(c, ev->conn);
	} else if (ev->type == LMP_EV_DISCONNECTED) {
		c->lc = NULL; /* freed by lmp_conn after this event */
		conn_fail(c, ev->reason == IRLMP_REASON_USER ||
			     ev->reason == IRLMP_REASON_NO_CLIENT ? ECONNREFUSED : EHOSTUNREACH,
			  "connect: %s", reason_text(ev->reason));
	}
}

static void ttp_config_for(const struct api_requests *ar, enum irdad_mode mode,
			   uint32_t max_sdu, struct ttp_config *tc)
{
	ttp_config_defaults(tc);
	tc->mode = mode == IRDAD_MODE_SAR ? TTP_MODE_SAR : TTP_MODE_STREAM;
	if (mode == IRDAD_MODE_SAR)
		tc->max_sdu = max_sdu;
	tc->log = ar->cfg.log;
}

/* Connects to c->peer_lsap: TinyTP, or IrLMP alone in mode lmp. */
static void conn_start(struct ar_conn *c)
{
	struct api_requests *ar = c->cl->ar;

	c->state = CONN_CONNECTING;
	if (c->mode == IRDAD_MODE_LMP) {
		struct lmp_config lc;
		lmp_config_for(ar, &lc);
		c->lc = lmp_connect(lmp(ar), c->daddr, c->peer_lsap, &lc, on_conn_lmp, c,
				    stack_now(ar->stk));
		if (!c->lc)
			conn_fail(c, ENOMEM, "%s", "cannot open an IrLMP connection");
	} else {
		struct ttp_config tc;
		ttp_config_for(ar, c->mode, c->max_sdu, &tc);
		c->t = ttp_connect(lmp(ar), c->daddr, c->peer_lsap, &tc, on_conn_ttp, c,
				   stack_now(ar->stk));
		if (!c->t)
			conn_fail(c, ENOMEM, "%s", "cannot open a TinyTP connection");
	}
	stack_sync(ar->stk);
}

static void on_conn_ias(void *ctx, int ret, const struct ias_response *resp)
{
	struct ar_conn *c = ctx;
	int lsap = ret == IAS_SUCCESS ? ias_lsap_sel(resp) : -1;

	c->q = NULL;
	if (lsap > 0) {
		c->peer_lsap = (uint8_t)lsap;
		conn_start(c);
		return;
	}
	if (c->any_station) {
		conn_try_next(c);
		return;
	}
	if (ret < 0)
		conn_fail(c, EHOSTUNREACH, "IAS query: %s",
			  ret == -ETIMEDOUT ? "no answer" : "the link or the IAS connection went down");
	else
		conn_fail(c, ENOENT, "the station does not offer %s", c->class_name);
}

#define IAS_START_FAILED "cannot start an IAS query now (the link is busy or going down)"

static void conn_ask(struct ar_conn *c)
{
	struct api_requests *ar = c->cl->ar;

	c->q = ias_query_start(lmp(ar), c->daddr, c->class_name, lsap_attr(c->mode), on_conn_ias, c,
			       stack_now(ar->stk));
	/* NULL: IrLMP cannot open a connection now (the link is with another
	 * station, IrLAP is busy or taking the link down, no free selector;
	 * out of memory is the rare case): the station is not reachable now. */
	if (!c->q)
		conn_fail(c, EHOSTUNREACH, "%s", IAS_START_FAILED);
	stack_sync(ar->stk);
}

/* CONNECT to "any station": the next station of the log, in order. */
static void conn_try_next(struct ar_conn *c)
{
	struct api_requests *ar = c->cl->ar;

	if (c->candidate >= ar->nstations) {
		conn_fail(c, c->candidate ? ENOENT : EHOSTUNREACH, "%s",
			  c->candidate ? "no station in range offers the service" :
					 "no station in range");
		return;
	}
	c->daddr = ar->stations[c->candidate++].peer.daddr;
	conn_ask(c);
}

static void on_conn_timeout(struct eloop *loop, void *ctx)
{
	struct ar_conn *c = ctx;
	(void)loop;
	conn_fail(c, ETIMEDOUT, "%s", "connect: no connection in time");
}

static struct ar_conn *conn_new(struct ar_client *cl, uint32_t seq, enum irdad_mode mode)
{
	struct ar_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cl = cl;
	c->id = ++cl->ar->next_id;
	c->seq = seq;
	c->mode = mode;
	eloop_timer_init(&c->timeout, on_conn_timeout, c);
	c->next = cl->conns;
	cl->conns = c;
	return c;
}

static unsigned count_conns(const struct ar_client *cl, bool connecting)
{
	unsigned n = 0;
	for (const struct ar_conn *c = cl->conns; c; c = c->next)
		n += c->state != CONN_DEAD && (connecting ? c->state != CONN_OPEN : true);
	return n;
}

/* --- listeners ------------------------------------------------------------ */

/* A new connection on l: its ar_conn, or NULL (limits, memory: the
 * caller refuses the connection). */
static struct ar_conn *listener_conn(struct ar_listener *l)
{
	struct ar_conn *c = NULL;
	unsigned active = 0;

	for (struct ar_conn *k = l->cl->conns; k; k = k->next)
		active += k->state == CONN_OPEN && k->listener_id == l->id;
	if (active >= l->backlog || count_conns(l->cl, false) >= l->cl->ar->cfg.max_conns ||
	    !(c = conn_new(l->cl, 0, l->mode))) {
		log_msg(l->cl->ar->cfg.log, LOG_LEVEL_WARNING,
			"%s: listener %u: a connection refused (limit)", api_session_name(l->cl->s),
			(unsigned)l->id);
		return NULL;
	}
	c->listener_id = l->id;
	c->max_sdu = l->max_sdu;
	c->daddr = l->cl->ar->link_peer;
	return c;
}

static void on_listener_ttp(void *ctx, const struct ttp_event *ev)
{
	struct ar_listener *l = ctx;
	struct ar_conn *c = find_conn_by_ttp(l->cl, ev->ttp);

	if (c) {
		if (c->state == CONN_OPEN)
			conn_bridge_ttp_event(c->bridge, ev);
		return;
	}
	if (ev->type != TTP_EV_CONNECTED)
		return;
	c = listener_conn(l);
	if (!c) {
		ttp_disconnect(ev->ttp);
		stack_sync(l->cl->ar->stk);
		return;
	}
	/* The connection's events go to it, not to the listener: a
	 * handed-over connection outlives its listener (CLOSE of the
	 * listener, the session's end), which is freed then. */
	ttp_set_handler(ev->ttp, on_conn_ttp, c);
	conn_open(c, ev->ttp);
}

/* A plain IrLMP listener: each connection's later events go straight to
 * its ar_conn (lmp_set_handler). */
static void on_listener_lmp(void *ctx, const struct lmp_event *ev)
{
	struct ar_listener *l = ctx;
	struct ar_conn *c;

	if (ev->type != LMP_EV_CONNECTED)
		return;
	c = listener_conn(l);
	if (!c) {
		lmp_disconnect(ev->conn);
		stack_sync(l->cl->ar->stk);
		return;
	}
	lmp_set_handler(ev->conn, on_conn_lmp, c);
	conn_open_lmp(c, ev->conn);
}

static void listener_free(struct api_requests *ar, struct ar_listener *l)
{
	if (l->tl)
		ttp_listener_free(l->tl);
	if (l->ll)
		lmp_listener_free(l->ll);
	if (l->ias_obj >= 0)
		ias_db_remove_object(stack_ias(ar->stk), l->ias_obj);
	free(l);
}

/* --- requests -------------------------------------------------------------- */

static void req_hello(struct ar_client *cl, const struct irdad_msg *m)
{
	struct api_requests *ar = cl->ar;
	char client[33];
	uint8_t buf[256];
	struct irdad_writer wr;

	if (irdad_get_str(&m->attrs, IRDAD_A_CLIENT, client, sizeof(client)))
		api_session_set_client(cl->s, client);
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_HELLO_REPLY, m->seq);
	irdad_put_str(&wr, IRDAD_A_PORT, ar->cfg.port_name);
	irdad_put_u32(&wr, IRDAD_A_ADDR, irlap_get_daddr(station_irlap(stack_station(ar->stk))));
	irdad_put_str(&wr, IRDAD_A_NICKNAME, ar->cfg.nickname);
	irdad_put_u32(&wr, IRDAD_A_MAX_MSG, IRDAD_MSG_MAX);
	long n = irdad_write_end(&wr, NULL, 0);
	if (n > 0)
		api_session_send(cl->s, buf, (size_t)n, -1);
}

static void req_discover(struct ar_client *cl, const struct irdad_msg *m)
{
	struct api_requests *ar = cl->ar;
	uint8_t fresh = 0;

	irdad_get_u8(&m->attrs, IRDAD_A_FRESH, &fresh);
	/* With the link up IrLAP cannot discover: the log is the answer. */
	if (!fresh || irlmp_get_lap_state(lmp(ar)) != IRLMP_LAP_STANDBY) {
		reply_stations(cl, m->seq);
		return;
	}
	if (cl->discover_waiting) {
		api_session_error(cl->s, m->seq, EBUSY, "a DISCOVER of this session is running");
		return;
	}
	if (!ar->discovering) {
		int rc = stack_lap_request(ar->stk, &(struct irlap_request){
			.type = IRLAP_REQ_DISCOVER, .slots = 6 });
		if (rc < 0) {
			reply_stations(cl, m->seq);
			return;
		}
		ar->discovering = true;
	}
	cl->discover_waiting = true;
	cl->discover_seq = m->seq;
}

static void on_query(void *ctx, int ret, const struct ias_response *resp)
{
	struct ar_client *cl = ctx;
	uint8_t buf[IRDAD_MSG_MAX];
	struct irdad_writer wr;

	cl->query = NULL;
	if (ret < 0) {
		api_session_error(cl->s, cl->query_seq, EHOSTUNREACH, "IAS query: %s",
				  ret == -ETIMEDOUT ? "no answer" : "the link went down");
		return;
	}
	if (ret != IAS_SUCCESS) {
		api_session_error(cl->s, cl->query_seq, ENOENT, "IAS: %s",
				  ret == IAS_NO_SUCH_CLASS ? "no such class" :
				  ret == IAS_NO_SUCH_ATTRIBUTE ? "no such attribute" : "refused");
		return;
	}
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_IAS_RESULT, cl->query_seq);
	if (resp->count > 0) {
		const struct ias_value *v = &resp->value;
		irdad_nest_begin(&wr, IRDAD_A_IAS_VALUE);
		irdad_put_u32(&wr, IRDAD_A_OBJ_ID, resp->object_id);
		irdad_put_u8(&wr, IRDAD_A_TYPE, (uint8_t)v->type);
		if (v->type == IAS_INTEGER)
			irdad_put_u32(&wr, IRDAD_A_INT, (uint32_t)v->integer);
		else if (v->type == IAS_OCTETS)
			irdad_put_bytes(&wr, IRDAD_A_OCTETS, v->bytes, v->len);
		else if (v->type == IAS_STRING) {
			irdad_put_u8(&wr, IRDAD_A_CHARSET, v->charset);
			irdad_put_bytes(&wr, IRDAD_A_STRING, v->bytes, v->len);
		}
		irdad_nest_end(&wr);
	}
	long n = irdad_write_end(&wr, NULL, 0);
	if (n > 0)
		api_session_send(cl->s, buf, (size_t)n, -1);
}

static void req_ias_query(struct ar_client *cl, const struct irdad_msg *m)
{
	struct api_requests *ar = cl->ar;
	char cls[IAS_NAME_MAX + 1], attr[IAS_NAME_MAX + 1];
	uint32_t daddr;

	if (cl->query) {
		api_session_error(cl->s, m->seq, EBUSY, "an IAS_QUERY of this session is running");
		return;
	}
	irdad_get_u32(&m->attrs, IRDAD_A_DADDR, &daddr);
	irdad_get_str(&m->attrs, IRDAD_A_CLASS, cls, sizeof(cls));
	irdad_get_str(&m->attrs, IRDAD_A_ATTR, attr, sizeof(attr));
	cl->query_seq = m->seq;
	cl->query = ias_query_start(lmp(ar), daddr, cls, attr, on_query, cl, stack_now(ar->stk));
	if (!cl->query)
		api_session_error(cl->s, m->seq, EHOSTUNREACH, IAS_START_FAILED);
	stack_sync(ar->stk);
}

static int add_ias_attr(struct ias_db *db, int obj, const struct irdad_attr *nest)
{
	struct irdad_attrs a;
	char name[IAS_NAME_MAX + 1];
	struct ias_value v = { 0 };
	uint8_t type = 0;
	uint32_t integer = 0;

	irdad_nest_open(nest, &a);
	irdad_get_str(&a, IRDAD_A_NAME, name, sizeof(name));
	irdad_get_u8(&a, IRDAD_A_TYPE, &type);
	v.type = (enum ias_type)type;
	if (irdad_get_u32(&a, IRDAD_A_INT, &integer))
		v.integer = (int32_t)integer;
	if (type == IRDAD_IAS_OCTETS)
		irdad_get_bytes(&a, IRDAD_A_OCTETS, &v.bytes, &v.len);
	if (type == IRDAD_IAS_STRING) {
		irdad_get_bytes(&a, IRDAD_A_STRING, &v.bytes, &v.len);
		irdad_get_u8(&a, IRDAD_A_CHARSET, &v.charset);
	}
	return ias_db_add_attr(db, obj, name, &v);
}

static void req_ias_add(struct ar_client *cl, const struct irdad_msg *m)
{
	struct ias_db *db = stack_ias(cl->ar->stk);
	char cls[IAS_NAME_MAX + 1];
	int obj, rc = 0;

	if (cl->nias >= cl->ar->cfg.max_ias_objects || cl->nias >= IAS_OBJECTS_MAX) {
		api_session_error(cl->s, m->seq, EBUSY, "%u IAS objects already", cl->nias);
		return;
	}
	irdad_get_str(&m->attrs, IRDAD_A_CLASS, cls, sizeof(cls));
	obj = ias_db_add_object(db, cls);
	for (size_t i = 0; obj >= 0 && rc == 0; i++) {
		const struct irdad_attr *a = irdad_nth(&m->attrs, IRDAD_A_IAS_ATTR, i);
		if (!a)
			break;
		rc = add_ias_attr(db, obj, a);
	}
	if (obj < 0 || rc < 0) {
		/* nothing half-registered */
		if (obj >= 0)
			ias_db_remove_object(db, obj);
		api_session_error(cl->s, m->seq, obj < 0 ? -obj : -rc, "IAS object %s: %s", cls,
				  strerror(obj < 0 ? -obj : -rc));
		return;
	}
	cl->ias_objs[cl->nias++] = obj;
	reply_ok(cl, m->seq, obj);
}

static void req_ias_remove(struct ar_client *cl, const struct irdad_msg *m)
{
	uint32_t obj;

	irdad_get_u32(&m->attrs, IRDAD_A_OBJ_ID, &obj);
	for (unsigned i = 0; i < cl->nias; i++) {
		if ((uint32_t)cl->ias_objs[i] != obj)
			continue;
		ias_db_remove_object(stack_ias(cl->ar->stk), cl->ias_objs[i]);
		cl->ias_objs[i] = cl->ias_objs[--cl->nias];
		reply_ok(cl, m->seq, -1);
		return;
	}
	api_session_error(cl->s, m->seq, ENOENT, "no IAS object %u of this session", (unsigned)obj);
}

/* The MaxSduSize a SAR connection announces: the client's, at most the
 * daemon's limit (which bounds the reassembly memory per connection). */
static uint32_t requested_max_sdu(const struct api_requests *ar, const struct irdad_msg *m)
{
	uint32_t v;

	if (!irdad_get_u32(&m->attrs, IRDAD_A_MAX_SDU, &v) || v == 0 || v > ar->cfg.max_sdu)
		v = ar->cfg.max_sdu;
	return v;
}

static void req_listen(struct ar_client *cl, const struct irdad_msg *m)
{
	struct api_requests *ar = cl->ar;
	struct ttp_config tc;
	uint8_t mode, lsap = 0, backlog;
	char cls[IAS_NAME_MAX + 1];
	unsigned n = 0;

	irdad_get_u8(&m->attrs, IRDAD_A_MODE, &mode);
	irdad_get_u8(&m->attrs, IRDAD_A_LSAP, &lsap);
	if (!irdad_get_u8(&m->attrs, IRDAD_A_BACKLOG, &backlog))
		backlog = 4;
	bool has_class = irdad_get_str(&m->attrs, IRDAD_A_CLASS, cls, sizeof(cls));
	for (struct ar_listener *l = cl->listeners; l; l = l->next)
		n++;
	if (n >= ar->cfg.max_listeners) {
		api_session_error(cl->s, m->seq, EBUSY, "%u listeners already", n);
		return;
	}
	struct ar_listener *l = calloc(1, sizeof(*l));
	if (!l) {
		api_session_error(cl->s, m->seq, ENOMEM, "out of memory");
		return;
	}
	*l = (struct ar_listener){ .cl = cl, .id = ++ar->next_id, .mode = (enum irdad_mode)mode,
				   .ias_obj = -1, .backlog = backlog,
				   .max_sdu = requested_max_sdu(ar, m) };
	if (l->mode == IRDAD_MODE_LMP) {
		struct lmp_config lc;
		lmp_config_for(ar, &lc);
		l->ll = lmp_listen(lmp(ar), lsap ? lsap : IRLMP_LSAP_ANY, &lc, on_listener_lmp, l);
	} else {
		ttp_config_for(ar, l->mode, l->max_sdu, &tc);
		l->tl = ttp_listen(lmp(ar), lsap ? lsap : IRLMP_LSAP_ANY, &tc, on_listener_ttp, l);
	}
	if (!l->tl && !l->ll) {
		free(l);
		api_session_error(cl->s, m->seq, EADDRINUSE, "LSAP 0x%02x is taken", lsap);
		return;
	}
	uint8_t sel = l->ll ? lmp_listener_lsap(l->ll) : ttp_listener_lsap(l->tl);
	if (has_class) {
		l->ias_obj = stack_register_lsap(ar->stk, cls, lsap_attr(l->mode), sel);
		if (l->ias_obj < 0) {
			int err = -l->ias_obj;
			l->ias_obj = -1;
			listener_free(ar, l);
			api_session_error(cl->s, m->seq, err, "IAS class %s: %s", cls, strerror(err));
			return;
		}
	}
	l->next = cl->listeners;
	cl->listeners = l;
	uint8_t buf[64];
	struct irdad_writer wr;
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_LISTENING, m->seq);
	irdad_put_u32(&wr, IRDAD_A_LISTENER_ID, l->id);
	irdad_put_u8(&wr, IRDAD_A_LSAP, sel);
	long len = irdad_write_end(&wr, NULL, 0);
	if (len > 0)
		api_session_send(cl->s, buf, (size_t)len, -1);
	log_msg(ar->cfg.log, LOG_LEVEL_INFO, "%s: listener %u (%s) on LSAP 0x%02x%s%s",
		api_session_name(cl->s), (unsigned)l->id, mode_name(l->mode), sel,
		has_class ? " as " : "", has_class ? cls : "");
}

static void req_connect(struct ar_client *cl, const struct irdad_msg *m)
{
	struct api_requests *ar = cl->ar;
	uint32_t daddr = 0, timeout_ms = 0;
	uint8_t mode = 0, lsap = 0;
	struct ar_conn *c;

	irdad_get_u32(&m->attrs, IRDAD_A_DADDR, &daddr);
	irdad_get_u8(&m->attrs, IRDAD_A_MODE, &mode);
	bool by_lsap = irdad_get_u8(&m->attrs, IRDAD_A_LSAP, &lsap);
	if (by_lsap && daddr == 0) {
		api_session_error(cl->s, m->seq, EINVAL, "an LSAP needs the station's DADDR");
		return;
	}
	if (count_conns(cl, true) >= ar->cfg.max_connecting ||
	    count_conns(cl, false) >= ar->cfg.max_conns) {
		api_session_error(cl->s, m->seq, EBUSY, "too many connections of this session");
		return;
	}
	c = conn_new(cl, m->seq, (enum irdad_mode)mode);
	if (!c) {
		api_session_error(cl->s, m->seq, ENOMEM, "out of memory");
		return;
	}
	c->daddr = daddr;
	c->max_sdu = requested_max_sdu(ar, m);
	if (!irdad_get_u32(&m->attrs, IRDAD_A_TIMEOUT_MS, &timeout_ms))
		timeout_ms = (uint32_t)(ar->cfg.connect_timeout_us / 1000);
	eloop_timer_arm_in(ar->loop, &c->timeout, (uint64_t)timeout_ms * 1000);
	c->state = CONN_FINDING;
	if (by_lsap) {
		c->peer_lsap = lsap;
		conn_start(c);
		return;
	}
	irdad_get_str(&m->attrs, IRDAD_A_CLASS, c->class_name, sizeof(c->class_name));
	c->any_station = daddr == 0;
	if (c->any_station)
		conn_try_next(c);
	else
		conn_ask(c);
}

static void req_close(struct ar_client *cl, const struct irdad_msg *m)
{
	uint32_t id;

	if (irdad_get_u32(&m->attrs, IRDAD_A_LISTENER_ID, &id)) {
		for (struct ar_listener **pp = &cl->listeners; *pp; pp = &(*pp)->next) {
			if ((*pp)->id != id)
				continue;
			struct ar_listener *l = *pp;
			*pp = l->next;
			listener_free(cl->ar, l);
			reply_ok(cl, m->seq, -1);
			return;
		}
	} else if (irdad_get_u32(&m->attrs, IRDAD_A_CONN_ID, &id)) {
		for (struct ar_conn *c = cl->conns; c; c = c->next) {
			if (c->id != id || c->state == CONN_DEAD)
				continue;
			if (c->state == CONN_OPEN) {
				conn_drop_bridge(c);
			} else {
				api_session_error(cl->s, c->seq, ECANCELED, "connect cancelled");
				conn_drop_transport(c);
			}
			conn_kill(c);
			stack_sync(cl->ar->stk);
			reply_ok(cl, m->seq, -1);
			return;
		}
	}
	api_session_error(cl->s, m->seq, ENOENT, "no such listener or connection (%u)",
			  (unsigned)id);
}


/* --- ATTACH: endpoints on the client's descriptors ------------------------------ */

static void endpoint_free(struct ar_endpoint *a)
{
	const struct irnet_ep_stats *st = irnet_ep_get_stats(a->ep);

	log_msg(a->cl->ar->cfg.log, LOG_LEVEL_INFO,
		"%s: endpoint %u freed: %llu connections, %llu frames to the peer, %llu from it",
		api_session_name(a->cl->s), (unsigned)a->id, (unsigned long long)st->connects,
		(unsigned long long)st->frames_to_peer, (unsigned long long)st->frames_from_peer);
	irnet_ep_free(a->ep); /* disconnects, closes the channel */
	if (a->status_fd >= 0)
		close(a->status_fd);
	free(a);
}

/* The endpoint is over (its channel ended, or its one connection): the
 * channel is closed now, so that pppd sees the hangup.  From the
 * endpoint's own timer, which allows freeing it. */
static void on_endpoint_ended(void *ctx, struct irnet_ep *e)
{
	struct ar_endpoint *a = ctx;
	(void)e;
	for (struct ar_endpoint **pp = &a->cl->endpoints; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	}
	endpoint_free(a);
}

static unsigned count_endpoints(const struct ar_client *cl)
{
	unsigned n = 0;
	for (const struct ar_endpoint *a = cl->endpoints; a; a = a->next)
		n++;
	return n;
}

/* The channel: a pty master (a character device) or a stream socket,
 * open for reading and writing; the status descriptor open for writing.
 * NULL, or why not. */
static const char *check_attach_fds(int chan, int status)
{
	struct stat st;
	int fl;

	if (fstat(chan, &st) < 0)
		return "the channel: fstat failed";
	if (S_ISSOCK(st.st_mode)) {
		int type = 0;
		socklen_t len = sizeof(type);
		if (getsockopt(chan, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM)
			return "the channel is a socket but not a stream socket";
	} else if (!S_ISCHR(st.st_mode)) {
		return "the channel is neither a pty master nor a stream socket";
	}
	fl = fcntl(chan, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) != O_RDWR)
		return "the channel is not open for reading and writing";
	fl = fcntl(status, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
		return "the status descriptor is not open for writing";
	if (fstat(status, &st) < 0 || S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))
		return "the status descriptor is not a pipe, socket or terminal";
	return NULL;
}

/* The endpoint's peer from ATTACH's DADDR or NICKNAME (EINVAL: why). */
static const char *attach_peer(const struct irdad_msg *m, struct irdad_peer *p)
{
	const uint8_t *nick;
	size_t len;

	*p = (struct irdad_peer){ .kind = IRDAD_PEER_ANY };
	if (irdad_get_u32(&m->attrs, IRDAD_A_DADDR, &p->address)) {
		p->kind = IRDAD_PEER_ADDRESS;
	} else if (irdad_get_bytes(&m->attrs, IRDAD_A_NICKNAME, &nick, &len)) {
		if (len > IRDAD_NICKNAME_MAX || memchr(nick, 0, len))
			return "NICKNAME: longer than an endpoint's peer takes, or with a NUL";
		p->kind = IRDAD_PEER_NICKNAME;
		memcpy(p->nickname, nick, len);
		p->nickname[len] = '\0';
	}
	return NULL;
}

static void req_attach(struct ar_client *cl, const struct irdad_msg *m)
{
	struct api_requests *ar = cl->ar;
	struct irdad_endpoint cfg = { .service = IRDAD_SVC_IRNET };
	uint8_t service = 0, role = 0;
	uint32_t timeout_ms = 0;
	size_t nfds = api_session_nfds(cl->s);
	const char *why;
	char err[200];

	irdad_get_u8(&m->attrs, IRDAD_A_SERVICE, &service);
	irdad_get_u8(&m->attrs, IRDAD_A_ROLE, &role);
	bool has_timeout = irdad_get_u32(&m->attrs, IRDAD_A_TIMEOUT_MS, &timeout_ms);
	/* the descriptors not taken are closed by api_server after this */
	if (nfds != IRDAD_ATTACH_NFDS) {
		api_session_error(cl->s, m->seq, EINVAL,
				  "ATTACH takes exactly 2 descriptors (the channel, the status), not %zu",
				  nfds);
		return;
	}
	if (service == IRDAD_ATTACH_IRCOMM) {
		api_session_error(cl->s, m->seq, EOPNOTSUPP, "ATTACH: IrCOMM is not served yet");
		return;
	}
	if (role == IRDAD_ATTACH_LISTEN &&
	    (irdad_find(&m->attrs, IRDAD_A_DADDR) || irdad_find(&m->attrs, IRDAD_A_NICKNAME) ||
	     has_timeout)) {
		api_session_error(cl->s, m->seq, EINVAL,
				  "ATTACH: DADDR, NICKNAME and TIMEOUT_MS are for calling");
		return;
	}
	why = attach_peer(m, &cfg.peer);
	if (why) {
		api_session_error(cl->s, m->seq, EINVAL, "ATTACH: %s", why);
		return;
	}
	if (count_endpoints(cl) >= ar->cfg.max_endpoints) {
		api_session_error(cl->s, m->seq, EBUSY, "%u endpoints of this session already",
				  count_endpoints(cl));
		return;
	}
	int chan = api_session_take_fd(cl->s, IRDAD_ATTACH_FD_CHANNEL);
	int status = api_session_take_fd(cl->s, IRDAD_ATTACH_FD_STATUS);
	why = check_attach_fds(chan, status);
	/* a status reader that does not read must never block the daemon:
	 * a line that does not fit is dropped and logged (irnet_ep) */
	if (!why && fcntl(status, F_SETFL, fcntl(status, F_GETFL) | O_NONBLOCK) < 0)
		why = "the status descriptor: cannot make it non-blocking";
	struct ar_endpoint *a = why ? NULL : calloc(1, sizeof(*a));
	if (!a) {
		close(chan);
		close(status);
		api_session_error(cl->s, m->seq, why ? EINVAL : ENOMEM, "ATTACH: %s",
				  why ? why : "out of memory");
		return;
	}
	a->cl = cl;
	a->id = ++ar->next_id;
	a->status_fd = status;
	cfg.role = role == IRDAD_ATTACH_LISTEN ? IRDAD_ROLE_LISTEN : IRDAD_ROLE_CALL;
	snprintf(cfg.name, sizeof(cfg.name), "attach%u", (unsigned)a->id);
	if (irnet_ep_open_fds(&cfg, chan, chan, ar->cfg.log, &a->ep, err, sizeof(err)) < 0) {
		close(chan);
		close(status);
		free(a);
		api_session_error(cl->s, m->seq, EINVAL, "ATTACH: %s", err);
		return;
	}
	irnet_ep_set_status_fd(a->ep, status);
	irnet_ep_set_ended(a->ep, on_endpoint_ended, a);
	if (has_timeout) {
		/* like irdad --connect-timeout: discover again and again until
		 * the caller's bound runs out */
		struct irnet_ep_timing tm;
		irnet_ep_timing_defaults(&tm);
		tm.attempt_us = (uint64_t)timeout_ms * 1000u;
		tm.discoveries = UINT_MAX;
		irnet_ep_set_timing(a->ep, &tm);
	}
	if (irnet_ep_start(a->ep, ar->loop, ar->stk, err, sizeof(err)) < 0) {
		endpoint_free(a);
		api_session_error(cl->s, m->seq, EADDRINUSE, "ATTACH: %s", err);
		return;
	}
	a->next = cl->endpoints;
	cl->endpoints = a;
	ar->attached_total++;
	log_msg(ar->cfg.log, LOG_LEVEL_INFO, "%s: endpoint %u: IrNET, %s, on descriptors %d and %d",
		api_session_name(cl->s), (unsigned)a->id,
		role == IRDAD_ATTACH_LISTEN ? "listening" : "calling", chan, status);
	uint8_t buf[64];
	struct irdad_writer wr;
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_OK, m->seq);
	irdad_put_u32(&wr, IRDAD_A_ENDPOINT_ID, a->id);
	long n = irdad_write_end(&wr, NULL, 0);
	if (n > 0)
		api_session_send(cl->s, buf, (size_t)n, -1);
}

static void put_counter(struct irdad_writer *wr, const char *name, uint64_t v)
{
	irdad_nest_begin(wr, IRDAD_A_COUNTER);
	irdad_put_str(wr, IRDAD_A_NAME, name);
	irdad_put_u64(wr, IRDAD_A_VALUE64, v);
	irdad_nest_end(wr);
}

void api_requests_port_state(struct api_requests *ar, bool gone, const char *path)
{
	ar->port_gone = gone;
	ar->port_gone_us = eloop_now_us();
	snprintf(ar->port_path, sizeof(ar->port_path), "%s", gone && path ? path : "");
}

/* STATUS's last attributes: the port there, or gone for how long and
 * which path is waited for. */
static void put_port_state(const struct api_requests *ar, struct irdad_writer *wr)
{
	uint64_t ms;

	if (!ar->port_gone) {
		irdad_put_u8(wr, IRDAD_A_PORT_STATE, IRDAD_PORT_UP);
		return;
	}
	ms = (eloop_now_us() - ar->port_gone_us) / 1000;
	irdad_put_u8(wr, IRDAD_A_PORT_STATE, IRDAD_PORT_GONE);
	irdad_put_u32(wr, IRDAD_A_PORT_GONE_MS, ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms);
	if (ar->port_path[0])
		irdad_put_str(wr, IRDAD_A_PORT_PATH, ar->port_path);
}

static void req_status(struct ar_client *cl, const struct irdad_msg *m)
{
	struct api_requests *ar = cl->ar;
	const struct irlap_stats *ls = irlap_get_stats(station_irlap(stack_station(ar->stk)));
	const struct irlmp_stats *ms = irlmp_get_stats(lmp(ar));
	enum irlmp_lap_state lap = irlmp_get_lap_state(lmp(ar));
	uint8_t buf[IRDAD_MSG_MAX];
	struct irdad_writer wr;

	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_STATUS_REPLY, m->seq);
	irdad_put_u8(&wr, IRDAD_A_LINK, lap == IRLMP_LAP_ACTIVE ? IRDAD_LINK_UP :
				   lap == IRLMP_LAP_U_CONNECT ? IRDAD_LINK_CONNECTING :
								IRDAD_LINK_DOWN);
	if (lap == IRLMP_LAP_ACTIVE)
		irdad_put_u32(&wr, IRDAD_A_PEER, ar->link_peer);
	put_counter(&wr, "irlap.frames_tx", ls->frames_tx);
	put_counter(&wr, "irlap.frames_rx", ls->frames_rx);
	put_counter(&wr, "irlap.iframes_tx", ls->iframes_tx);
	put_counter(&wr, "irlap.iframes_retx", ls->iframes_retx);
	put_counter(&wr, "irlap.iframes_rx", ls->iframes_rx);
	put_counter(&wr, "irlap.payload_tx", ls->payload_tx);
	put_counter(&wr, "irlap.payload_rx", ls->payload_rx);
	put_counter(&wr, "irlap.f_timeouts", ls->f_timeouts);
	put_counter(&wr, "irlap.resets", ls->resets);
	put_counter(&wr, "irlmp.pdus_tx", ms->pdus_tx);
	put_counter(&wr, "irlmp.pdus_rx", ms->pdus_rx);
	put_counter(&wr, "irlmp.bad_pdus", ms->bad_pdus);
	put_counter(&wr, "stations", ar->nstations);
	uint64_t rx_dropped = ar->rx_dropped, tx_oversize = ar->tx_oversize;
	for (struct ar_client *k = ar->clients; k; k = k->next) {
		for (struct ar_conn *c = k->conns; c; c = c->next) {
			if (!c->bridge)
				continue;
			rx_dropped += conn_bridge_get_stats(c->bridge)->rx_dropped;
			tx_oversize += conn_bridge_get_stats(c->bridge)->tx_oversize;
		}
	}
	put_counter(&wr, "conn.rx_dropped", rx_dropped);
	put_counter(&wr, "conn.tx_oversize", tx_oversize);
	uint64_t attached = 0, attached_up = 0;
	for (struct ar_client *k = ar->clients; k; k = k->next) {
		for (struct ar_endpoint *a = k->endpoints; a; a = a->next) {
			attached++;
			attached_up += irnet_ep_state(a->ep) == IRNET_EP_UP;
		}
	}
	put_counter(&wr, "attach.endpoints", attached);
	put_counter(&wr, "attach.up", attached_up);
	put_counter(&wr, "attach.total", ar->attached_total);
	for (struct ar_client *k = ar->clients; k; k = k->next) {
		for (struct ar_conn *c = k->conns; c; c = c->next) {
			const struct irlmp_conn *lsap = c->state == CONN_OPEN ? conn_lsap(c) : NULL;
			if (!lsap)
				continue;
			irdad_nest_begin(&wr, IRDAD_A_CONN);
			irdad_put_u32(&wr, IRDAD_A_CONN_ID, c->id);
			irdad_put_u8(&wr, IRDAD_A_MODE, (uint8_t)c->mode);
			irdad_put_u32(&wr, IRDAD_A_DADDR, c->daddr);
			irdad_put_u8(&wr, IRDAD_A_LSAP, irlmp_conn_lsel(lsap));
			irdad_put_u8(&wr, IRDAD_A_PEER_LSAP, irlmp_conn_rsel(lsap));
			irdad_put_str(&wr, IRDAD_A_OWNER, client_name(k));
			irdad_nest_end(&wr);
		}
	}
	put_port_state(ar, &wr);
	char why[160];
	long n = irdad_write_end(&wr, why, sizeof(why));
	if (n > 0)
		api_session_send(cl->s, buf, (size_t)n, -1);
	else
		api_session_error(cl->s, m->seq, (int)-n, "status: %s", why);
}

static void req_watch(struct ar_client *cl, const struct irdad_msg *m)
{
	irdad_get_u32(&m->attrs, IRDAD_A_EVENTS, &cl->watch);
	reply_ok(cl, m->seq, -1);
}

/* --- HINTS: bits sessions add to what the station announces -------------------- */

/* The station announces its own hints OR-ed with every live session's,
 * from the next XID on; once no session adds any, its own again. */
static void apply_hints(struct api_requests *ar)
{
	struct irlap *lap = station_irlap(stack_station(ar->stk));
	uint16_t added = 0;
	uint8_t h[2];
	size_t n;

	for (const struct ar_client *cl = ar->clients; cl; cl = cl->next)
		if (cl->s)
			added |= cl->hints;
	if (!ar->hints_added) {
		if (!added)
			return;
		ar->nbase_hints = irlap_get_hints(lap, ar->base_hints);
	}
	h[0] = ar->base_hints[0];
	h[1] = ar->nbase_hints > 1 ? ar->base_hints[1] : 0;
	n = ar->nbase_hints;
	if (added) {
		h[0] |= (uint8_t)(added >> 8);
		h[1] |= (uint8_t)added;
		n = h[1] ? 2 : 1;
		if (n == 2)
			h[0] |= 0x80; /* the extension bit: a second byte follows */
	}
	irlap_set_hints(lap, h, n);
	ar->hints_added = added != 0;
	log_msg(ar->cfg.log, LOG_LEVEL_INFO, "discovery hints now %02x%s%02x%s", h[0],
		n > 1 ? " " : "", n > 1 ? h[1] : 0, added ? " (with the sessions')" : "");
}

static void req_hints(struct ar_client *cl, const struct irdad_msg *m)
{
	uint16_t h = 0;

	irdad_get_u16(&m->attrs, IRDAD_A_HINTS, &h);
	if (h & 0x0080) {
		api_session_error(cl->s, m->seq, EINVAL,
				  "HINTS: 0x%04x asks for a third hint byte, which irdad does not "
				  "announce", (unsigned)h);
		return;
	}
	/* the first byte's extension bit is ours to set (when a second follows) */
	cl->hints = h & 0x7f7f;
	log_msg(cl->ar->cfg.log, LOG_LEVEL_INFO, "%s: adds discovery hints 0x%04x",
		client_name(cl), (unsigned)cl->hints);
	apply_hints(cl->ar);
	reply_ok(cl, m->seq, -1);
}

/* --- sessions ----------------------------------------------------------------- */

static struct ar_client *client_of(struct api_requests *ar, struct api_session *s)
{
	struct ar_client *cl = api_session_data(s);

	if (cl)
		return cl;
	cl = calloc(1, sizeof(*cl));
	if (!cl)
		return NULL;
	cl->ar = ar;
	cl->s = s;
	cl->next = ar->clients;
	ar->clients = cl;
	api_session_set_data(s, cl);
	return cl;
}

static void on_request(void *ctx, struct api_session *s, const struct irdad_msg *m)
{
	struct api_requests *ar = ctx;
	struct ar_client *cl = client_of(ar, s);

	if (!cl) {
		api_session_end(s, "out of memory");
		return;
	}
	switch (m->type) {
	case IRDAD_MSG_HELLO: req_hello(cl, m); break;
	case IRDAD_MSG_DISCOVER: req_discover(cl, m); break;
	case IRDAD_MSG_IAS_QUERY: req_ias_query(cl, m); break;
	case IRDAD_MSG_IAS_ADD: req_ias_add(cl, m); break;
	case IRDAD_MSG_IAS_REMOVE: req_ias_remove(cl, m); break;
	case IRDAD_MSG_LISTEN: req_listen(cl, m); break;
	case IRDAD_MSG_CONNECT: req_connect(cl, m); break;
	case IRDAD_MSG_CLOSE: req_close(cl, m); break;
	case IRDAD_MSG_STATUS: req_status(cl, m); break;
	case IRDAD_MSG_WATCH: req_watch(cl, m); break;
	case IRDAD_MSG_ATTACH: req_attach(cl, m); break;
	case IRDAD_MSG_HINTS: req_hints(cl, m); break;
	default:
		api_session_error(s, m->seq, EBADMSG, "%s is not a request",
				  irdad_msg_type_name(m->type));
	}
}

static void free_conn(struct ar_conn *c)
{
	eloop_timer_cancel(c->cl->ar->loop, &c->timeout);
	if (c->q)
		ias_query_cancel(c->q);
	if (c->bridge)
		conn_drop_bridge(c);
	else
		conn_drop_transport(c);
	free(c);
}

static void unlink_client(struct api_requests *ar, struct ar_client *cl)
{
	for (struct ar_client **pp = &ar->clients; *pp; pp = &(*pp)->next) {
		if (*pp == cl) {
			*pp = cl->next;
			break;
		}
	}
}

/* Frees the connections that ended (never inside their own callbacks). */
static void on_reaper(struct eloop *loop, void *ctx)
{
	struct api_requests *ar = ctx;
	(void)loop;
	for (struct ar_client *cl = ar->clients, *next; cl; cl = next) {
		next = cl->next;
		for (struct ar_conn **pp = &cl->conns; *pp;) {
			struct ar_conn *c = *pp;
			if (c->state != CONN_DEAD) {
				pp = &c->next;
				continue;
			}
			*pp = c->next;
			free_conn(c);
		}
		if (!cl->s && !cl->conns) { /* its session closed, its last connection ended */
			unlink_client(ar, cl);
			free(cl);
		}
	}
	stack_sync(ar->stk);
}

/* The session ended: what it registered goes (IAS objects, listeners,
 * connections not handed over yet, attached endpoints).  Connections
 * handed over stay: the client holds their descriptors, which may
 * outlive the control socket (a program that closes it first, or
 * exits with data still queued), and each ends when its descriptor
 * closes or its peer leaves; the client record stays until then. */
static void on_session_closed(void *ctx, struct api_session *s)
{
	struct api_requests *ar = ctx;
	struct ar_client *cl = api_session_data(s);

	if (!cl)
		return;
	for (struct ar_conn **pp = &cl->conns; *pp;) {
		struct ar_conn *c = *pp;
		if (c->state == CONN_OPEN) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		free_conn(c);
	}
	while (cl->endpoints) {
		struct ar_endpoint *a = cl->endpoints;
		cl->endpoints = a->next;
		endpoint_free(a);
	}
	while (cl->listeners) {
		struct ar_listener *l = cl->listeners;
		cl->listeners = l->next;
		listener_free(ar, l);
	}
	for (unsigned i = 0; i < cl->nias; i++)
		ias_db_remove_object(stack_ias(ar->stk), cl->ias_objs[i]);
	cl->nias = 0;
	if (cl->query)
		ias_query_cancel(cl->query);
	cl->query = NULL;
	if (cl->hints) {
		cl->hints = 0;
		apply_hints(ar);
	}
	if (cl->conns) {
		snprintf(cl->gone_name, sizeof(cl->gone_name), "%s (gone)", api_session_name(s));
		log_msg(ar->cfg.log, LOG_LEVEL_INFO, "%s: its open connections go on until "
			"their descriptors close", cl->gone_name);
		cl->s = NULL;
		cl->watch = 0;
		cl->discover_waiting = false;
	} else {
		unlink_client(ar, cl);
		free(cl);
	}
	stack_sync(ar->stk);
}

const struct api_server_ops api_requests_server_ops = {
	.request = on_request,
	.closed = on_session_closed,
};

void api_requests_lap_event(struct api_requests *ar, const struct irlap_event *ev)
{
	/* the attached endpoints find their peers in the same discoveries */
	for (struct ar_client *cl = ar->clients; cl; cl = cl->next)
		for (struct ar_endpoint *a = cl->endpoints; a; a = a->next)
			irnet_ep_lap_event(a->ep, ev);
	switch (ev->type) {
	case IRLAP_EV_DISCOVERY:
		ar->discovering = false;
		discovery_result(ar, ev);
		for (struct ar_client *cl = ar->clients; cl; cl = cl->next) {
			if (!cl->discover_waiting)
				continue;
			cl->discover_waiting = false;
			reply_stations(cl, cl->discover_seq);
		}
		/* CONNECTs to "any station" that waited for a log */
		break;
	case IRLAP_EV_DISCOVERED_BY:
		note_station(ar, ev->peer, stack_now(ar->stk));
		break;
	case IRLAP_EV_CONNECT_CONF:
	case IRLAP_EV_CONNECT_IND:
		ar->link_peer = ev->daddr ? ev->daddr : ev->peer ? ev->peer->daddr : 0;
		break;
	case IRLAP_EV_DISCONNECT:
		ar->link_peer = 0;
		break;
	default:
		break;
	}
}

struct api_requests *api_requests_new(struct eloop *loop, struct stack *stk,
				      const struct api_requests_config *cfg)
{
	struct api_requests *ar = calloc(1, sizeof(*ar));

	if (!ar)
		return NULL;
	ar->loop = loop;
	ar->stk = stk;
	ar->cfg = *cfg;
	eloop_timer_init(&ar->reaper, on_reaper, ar);
	return ar;
}

void api_requests_free(struct api_requests *ar)
{
	if (!ar)
		return;
	eloop_timer_cancel(ar->loop, &ar->reaper);
	/* What the closed sessions left running (api_server_free ended them all). */
	while (ar->clients) {
		struct ar_client *cl = ar->clients;
		ar->clients = cl->next;
		while (cl->conns) {
			struct ar_conn *c = cl->conns;
			cl->conns = c->next;
			free_conn(c);
		}
		free(cl);
	}
	free(ar);
}
