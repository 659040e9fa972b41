/*
 * ircomm.c: IrCOMM connections (client procedure, server): cooked over
 * TinyTP, 3-wire raw over plain IrLMP.  See ircomm.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ircomm.h"

#define COOKED (IRCOMM_SVC_3WIRE | IRCOMM_SVC_9WIRE)
#define RAW IRCOMM_SVC_3WIRE_RAW
#define LINES_DTE (IRCOMM_DTE_DTR | IRCOMM_DTE_RTS)
#define LINES_DCE (IRCOMM_DCE_CTS | IRCOMM_DCE_DSR | IRCOMM_DCE_RI | IRCOMM_DCE_CD)
/* Items a user may set and a peer may report as settings. */
#define SETTINGS (IRCOMM_P_DATA_RATE | IRCOMM_P_DATA_FORMAT | IRCOMM_P_FLOW_CONTROL | \
		  IRCOMM_P_XON_XOFF | IRCOMM_P_ENQ_ACK | IRCOMM_P_LINE_STATUS | IRCOMM_P_BREAK)
#define NINE_WIRE_ONLY (IRCOMM_P_DTE | IRCOMM_P_DCE | IRCOMM_P_POLL)
#define CTRL_MAX 64   /* every item once: well under this */

struct ircomm {
	struct ircomm_config cfg;
	ircomm_event_fn fn;
	void *ctx;
	enum ircomm_state state;
	struct ircomm_server *srv;   /* server side: the owner */
	bool is_server, announced;   /* a server's user knows it after CONNECTED */
	struct irlmp *lm;
	uint32_t daddr;
	struct ias_query *q;
	bool step_due;               /* client: next step waits for ircomm_tick */
	uint8_t lsap;
	struct ttp *t;               /* cooked */
	struct lmp_conn *lc;         /* 3-wire raw */
	uint8_t service;
	uint8_t dte;                 /* our lines, no deltas */
	uint8_t dce;                 /* the peer's lines, no deltas */
	struct ircomm_params peer;
	struct ircomm_params pend;   /* control items not yet queued */
	bool want_writable, pumping;
	unsigned reading;            /* ircomm_read calls on the stack */
	unsigned busy;               /* calls into us on the stack */
	bool dead;                   /* freed when busy drops to 0 */
	uint8_t sdu[IRCOMM_SDU_MAX];
	size_t rx_pos, rx_len;       /* user data of the current SDU */
	struct ircomm_stats stats;
};

struct ircomm_server {
	struct ircomm_config cfg;
	ircomm_event_fn fn;
	void *ctx;
	struct irlmp *lm;
	struct ias_db *db;
	struct ttp_listener *tl;     /* when cooked types are offered */
	struct lmp_listener *ll;     /* when 3-wire raw is */
	int object;
	struct ircomm *conn;
};

static const char *const state_names[] = {
	[IRCOMM_QUERY_PARAMS] = "QUERY_PARAMS", [IRCOMM_QUERY_LSAP] = "QUERY_LSAP",
	[IRCOMM_CONNECTING] = "CONNECTING", [IRCOMM_WAIT_SERVICE] = "WAIT_SERVICE",
	[IRCOMM_OPEN] = "OPEN", [IRCOMM_CLOSED] = "CLOSED",
};

const char *ircomm_state_name(enum ircomm_state s)
{
	return (unsigned)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "?";
}

void ircomm_config_defaults(struct ircomm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->service_types = COOKED;
	cfg->data_rate = 9600;
	cfg->data_format = 0x03;
	cfg->flow_control = 0x00;
	cfg->dte = LINES_DTE;
	cfg->port_type = IRCOMM_PORT_SERIAL;
	ttp_config_defaults(&cfg->ttp);
	cfg->ttp.mode = TTP_MODE_STREAM;
}

static bool config_ok(const struct ircomm_config *cfg)
{
	return cfg->service_types && !(cfg->service_types & ~(COOKED | RAW)) &&
	       !(cfg->dte & ~LINES_DTE);
}

static void set_state(struct ircomm *c, enum ircomm_state to, const char *event)
{
	log_msg(c->cfg.log, LOG_LEVEL_DEBUG, "ircomm %s: %s --%s--> %s",
		c->is_server ? "server" : "client", ircomm_state_name(c->state), event,
		ircomm_state_name(to));
	c->state = to;
}

/* ---- lifetime ----------------------------------------------------- */

static struct ircomm *conn_alloc(const struct ircomm_config *cfg, ircomm_event_fn fn, void *ctx)
{
	struct ircomm *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cfg = *cfg;
	c->cfg.ttp.mode = TTP_MODE_STREAM;
	c->cfg.ttp.log = cfg->ttp.log ? cfg->ttp.log : cfg->log;
	c->fn = fn;
	c->ctx = ctx;
	c->dte = cfg->dte;
	c->dce = LINES_DCE;
	return c;
}

static void server_lost_conn(struct ircomm_server *s);

/* Raw: what lmp_conn dropped for want of a reader (IrLMP cannot stop
 * the peer), read while the connection is there. */
static void note_drops(struct ircomm *c)
{
	if (c->lc)
		c->stats.rx_dropped = lmp_get_stats(c->lc)->rx_dropped;
}

/* Drops every tie to the layers below (no event). */
static void detach(struct ircomm *c)
{
	if (c->q) {
		ias_query_cancel(c->q);
		c->q = NULL;
	}
	if (c->t) {
		ttp_disconnect(c->t);
		c->t = NULL;
	}
	if (c->lc) {
		note_drops(c);
		lmp_disconnect(c->lc);
		c->lc = NULL;
	}
	if (c->srv) {
		struct ircomm_server *s = c->srv;
		c->srv = NULL;
		if (s->conn == c)
			server_lost_conn(s);
	}
}

static void enter(struct ircomm *c) { c->busy++; }

/* Returns false if c is gone (do not touch it). */
static bool leave(struct ircomm *c)
{
	if (--c->busy == 0 && c->dead) {
		free(c);
		return false;
	}
	return !c->dead;
}

static void release(struct ircomm *c)
{
	detach(c);
	c->dead = true;
}

static void emit(struct ircomm *c, struct ircomm_event *ev)
{
	ev->c = c;
	if (c->fn && !c->dead)
		c->fn(c->ctx, ev);
}

/* Ends the connection with an event (not asked for by our user). */
static void finish(struct ircomm *c, int err, enum irlmp_reason reason, const char *why)
{
	struct ircomm_event ev = { .type = IRCOMM_EV_DISCONNECTED, .err = err, .reason = reason };

	set_state(c, IRCOMM_CLOSED, why);
	detach(c);
	if (!c->is_server || c->announced)
		emit(c, &ev);
	c->dead = true;
}

/* ---- the connection below: TinyTP (cooked) or IrLMP (raw) ------------ */

static int link_send(struct ircomm *c, const uint8_t *data, size_t len)
{
	return c->t ? ttp_send(c->t, data, len) : lmp_send(c->lc, data, len);
}

static long link_recv(struct ircomm *c, uint8_t *buf, size_t cap)
{
	return c->t ? ttp_recv(c->t, buf, cap) : c->lc ? lmp_recv(c->lc, buf, cap) : 0;
}

static size_t link_pending(const struct ircomm *c)
{
	return c->t ? ttp_tx_pending(c->t) : c->lc ? lmp_tx_pending(c->lc) : 0;
}

/* ---- sending ------------------------------------------------------- */

/* Largest SDU the peer takes in one PDU (SAR off), clen included; raw:
 * one LM-PDU, all data. */
static size_t sdu_room(const struct ircomm *c)
{
	size_t m = c->t ? ttp_max_send(c->t) : lmp_max_send(c->lc);

	return m < IRCOMM_SDU_MAX ? m : IRCOMM_SDU_MAX;
}

/* Raw: up to one LM-PDU of data, no control channel. */
static long send_raw(struct ircomm *c, const uint8_t *data, size_t len)
{
	size_t room = sdu_room(c);
	int r;

	if (len > room)
		len = room;
	r = lmp_send(c->lc, data, len);
	if (r < 0)
		return r;
	c->stats.sdus_tx++;
	c->stats.bytes_tx += len;
	return (long)len;
}

/* Queues one SDU: the pending control items and up to len bytes of
 * data.  Returns the data bytes taken (the control went too), or
 * -ENOBUFS / another TinyTP error (nothing went). */
static long send_sdu(struct ircomm *c, const uint8_t *data, size_t len)
{
	uint8_t ctrl[CTRL_MAX], sdu[IRCOMM_SDU_MAX];
	int clen = 0, n;
	size_t room = sdu_room(c);

	if (c->lc)
		return send_raw(c, data, len);
	if (c->pend.present) {
		clen = ircomm_params_build(ctrl, sizeof(ctrl), &c->pend);
		if (clen < 0)
			return clen;
	}
	if (room <= (size_t)clen + 1)
		return -EMSGSIZE;
	if (len > room - 1 - (size_t)clen)
		len = room - 1 - (size_t)clen;
	n = ircomm_sdu_build(sdu, sizeof(sdu), ctrl, (size_t)clen, data, len);
	if (n < 0)
		return n;
	n = link_send(c, sdu, (size_t)n);
	if (n < 0)
		return n;
	if (clen)
		log_msg(c->cfg.log, LOG_LEVEL_DEBUG, "ircomm: sent %d control bytes", clen);
	memset(&c->pend, 0, sizeof(c->pend));
	c->stats.sdus_tx++;
	c->stats.bytes_tx += len;
	return (long)len;
}

static void flush_ctrl(struct ircomm *c)
{
	long r;

	if (!c->pend.present || !c->t || !ttp_is_connected(c->t))
		return;   /* raw has no control channel: nothing is pended there */
	r = send_sdu(c, NULL, 0);
	if (r == -ENOBUFS)
		c->want_writable = true;
	else if (r < 0)
		log_msg(c->cfg.log, LOG_LEVEL_WARNING, "ircomm: control items not sent (%ld)", r);
}

static void pend_dte(struct ircomm *c, uint8_t deltas)
{
	uint8_t old = (c->pend.present & IRCOMM_P_DTE) ? c->pend.dte : 0;

	c->pend.dte = (uint8_t)(c->dte | ((old | deltas) & (IRCOMM_DTE_DELTA_DTR | IRCOMM_DTE_DELTA_RTS)));
	c->pend.present |= IRCOMM_P_DTE;
}

/* Our settings, after the service type is known (digest 7.5). */
static void pend_initial(struct ircomm *c, bool with_service)
{
	if (with_service) {
		c->pend.service_type = c->service;
		c->pend.present |= IRCOMM_P_SERVICE_TYPE;
	}
	c->pend.data_rate = c->cfg.data_rate;
	c->pend.data_format = c->cfg.data_format;
	c->pend.flow_control = c->cfg.flow_control;
	c->pend.present |= IRCOMM_P_DATA_RATE | IRCOMM_P_DATA_FORMAT | IRCOMM_P_FLOW_CONTROL;
	if (c->service == IRCOMM_SVC_9WIRE)
		pend_dte(c, 0);
}

/* ---- receiving ----------------------------------------------------- */

static uint8_t null_modem(uint8_t dte)
{
	uint8_t dce = 0;

	if (dte & IRCOMM_DTE_DTR)
		dce |= IRCOMM_DCE_DSR | IRCOMM_DCE_RI | IRCOMM_DCE_CD;
	if (dte & IRCOMM_DTE_RTS)
		dce |= IRCOMM_DCE_CTS;
	if (dte & IRCOMM_DTE_DELTA_DTR)
		dce |= IRCOMM_DCE_DELTA_DSR | IRCOMM_DCE_DELTA_RI | IRCOMM_DCE_DELTA_CD;
	if (dte & IRCOMM_DTE_DELTA_RTS)
		dce |= IRCOMM_DCE_DELTA_CTS;
	return dce;
}

static void server_got_service(struct ircomm *c, uint8_t st)
{
	struct ircomm_event ev = { .type = IRCOMM_EV_CONNECTED };

	if (ircomm_best_service(st, c->cfg.service_types) != st) {
		log_msg(c->cfg.log, LOG_LEVEL_WARNING,
			"ircomm: client asks for service type 0x%02x, we offer 0x%02x", st,
			c->cfg.service_types);
		finish(c, -EPROTONOSUPPORT, IRLMP_REASON_USER, "service type not offered");
		return;
	}
	c->service = st;
	set_state(c, IRCOMM_OPEN, "service type");
	pend_initial(c, false);
	flush_ctrl(c);
	c->announced = true;
	emit(c, &ev);
}

static void on_control(struct ircomm *c, const uint8_t *ctrl, size_t clen)
{
	struct ircomm_params p;
	struct ircomm_event ev = { 0 };
	int ignored = ircomm_params_parse(ctrl, clen, &p);
	unsigned settings;

	if (ignored < 0) {
		log_msg(c->cfg.log, LOG_LEVEL_WARNING,
			"ircomm: malformed control items (clen %zu, an item runs past the end) dropped",
			clen);
		c->stats.bad_control++;
		return;
	}
	if (ignored) {
		log_msg(c->cfg.log, LOG_LEVEL_INFO,
			"ircomm: %d control items ignored (unknown PI or wrong PL)", ignored);
		c->stats.ignored_items += (unsigned)ignored;
	}
	if (p.present & IRCOMM_P_SERVICE_TYPE) {
		if (c->state == IRCOMM_WAIT_SERVICE) {
			server_got_service(c, p.service_type);
			if (c->dead)
				return;
		} else {
			log_msg(c->cfg.log, LOG_LEVEL_INFO, "ircomm: service type 0x%02x in %s ignored",
				p.service_type, ircomm_state_name(c->state));
			c->stats.ignored_items++;
		}
	}
	if (c->service != IRCOMM_SVC_9WIRE && (p.present & NINE_WIRE_ONLY)) {
		log_msg(c->cfg.log, LOG_LEVEL_INFO, "ircomm: 9-wire items on a 3-wire link ignored");
		c->stats.ignored_items++;
		p.present &= ~(unsigned)NINE_WIRE_ONLY;
	}
	if (p.present & (IRCOMM_P_PORT_TYPE | IRCOMM_P_PORT_NAME)) {
		log_msg(c->cfg.log, LOG_LEVEL_DEBUG, "ircomm: IAS-only items on the control channel ignored");
		c->stats.ignored_items++;
	}
	settings = p.present & SETTINGS;
	if (settings) {
		struct ircomm_params only = p;
		only.present = settings;
		c->peer.data_rate = settings & IRCOMM_P_DATA_RATE ? p.data_rate : c->peer.data_rate;
		c->peer.data_format = settings & IRCOMM_P_DATA_FORMAT ? p.data_format : c->peer.data_format;
		c->peer.flow_control = settings & IRCOMM_P_FLOW_CONTROL ? p.flow_control : c->peer.flow_control;
		if (settings & IRCOMM_P_XON_XOFF) {
			c->peer.xon = p.xon;
			c->peer.xoff = p.xoff;
		}
		if (settings & IRCOMM_P_ENQ_ACK) {
			c->peer.enq = p.enq;
			c->peer.ack = p.ack;
		}
		c->peer.line_status = settings & IRCOMM_P_LINE_STATUS ? p.line_status : c->peer.line_status;
		c->peer.brk = settings & IRCOMM_P_BREAK ? p.brk : c->peer.brk;
		c->peer.present |= settings;
		ev.type = IRCOMM_EV_PARAMS;
		ev.params = &only;
		emit(c, &ev);
		if (c->dead)
			return;
	}
	if (p.present & (IRCOMM_P_DTE | IRCOMM_P_DCE)) {
		/* A DTE peer is seen through a null modem; a DCE peer as it says. */
		uint8_t lines = p.present & IRCOMM_P_DCE ? p.dce : null_modem(p.dte);
		c->peer.dte = p.present & IRCOMM_P_DTE ? p.dte : c->peer.dte;
		c->peer.dce = p.present & IRCOMM_P_DCE ? p.dce : c->peer.dce;
		c->peer.present |= p.present & (IRCOMM_P_DTE | IRCOMM_P_DCE);
		c->dce = lines & LINES_DCE;
		log_msg(c->cfg.log, LOG_LEVEL_DEBUG, "ircomm: peer lines 0x%02x", lines);
		memset(&ev, 0, sizeof(ev));
		ev.type = IRCOMM_EV_LINES;
		ev.lines = lines;
		emit(c, &ev);
		if (c->dead)
			return;
	}
	if (p.present & IRCOMM_P_POLL) {
		pend_dte(c, 0);
		c->stats.polls_answered++;
		flush_ctrl(c);
	}
}

/* Takes SDUs from TinyTP while no user data is waiting. */
static void pump(struct ircomm *c)
{
	/* An event of ours may call ircomm_read: the SDU buffer is in use. */
	if (c->pumping)
		return;
	c->pumping = true;
	while (!c->dead && (c->t || c->lc) && c->rx_pos == c->rx_len) {
		struct ircomm_sdu s;
		long n = link_recv(c, c->sdu, sizeof(c->sdu));

		if (n == 0)
			break;
		if (n < 0) {
			log_msg(c->cfg.log, LOG_LEVEL_ERROR, "ircomm: SDU over %d bytes", IRCOMM_SDU_MAX);
			finish(c, 0, IRLMP_REASON_USER, "SDU too long");
			break;
		}
		c->stats.sdus_rx++;
		if (c->lc) {
			/* raw: every byte is user data */
			s = (struct ircomm_sdu){ .data = c->sdu, .len = (size_t)n };
		} else if (ircomm_sdu_split(c->sdu, (size_t)n, &s) < 0) {
			log_msg(c->cfg.log, LOG_LEVEL_WARNING,
				"ircomm: SDU of %ld bytes with clen past its end dropped", n);
			c->stats.bad_sdus++;
			continue;
		}
		if (s.clen)
			on_control(c, s.ctrl, s.clen);
		if (c->dead || !s.len)
			continue;
		c->rx_len = (size_t)n;
		c->rx_pos = (size_t)n - s.len;
		if (!c->reading) {
			struct ircomm_event ev = { .type = IRCOMM_EV_READABLE };
			c->pumping = false;
			emit(c, &ev);
			c->pumping = true;
		}
	}
	c->pumping = false;
}

/* ---- events of the connection below ----------------------------------- */

/* Client: our connect was confirmed.  Cooked: the initial parameters go
 * first; raw has no control channel (digest 7.1). */
static void on_link_connected(struct ircomm *c)
{
	struct ircomm_event out = { .type = IRCOMM_EV_CONNECTED };

	set_state(c, IRCOMM_OPEN, c->lc ? "IrLMP connected (raw)" : "TinyTP connected");
	if (!c->lc) {
		pend_initial(c, true);
		flush_ctrl(c);
	}
	emit(c, &out);
}

static void on_link_writable(struct ircomm *c)
{
	struct ircomm_event out = { .type = IRCOMM_EV_WRITABLE };

	flush_ctrl(c);
	if (c->want_writable && !c->dead && c->state == IRCOMM_OPEN) {
		c->want_writable = false;
		emit(c, &out);
	}
}

static void conn_ttp_event(struct ircomm *c, const struct ttp_event *ev)
{
	switch (ev->type) {
	case TTP_EV_CONNECTED:
		on_link_connected(c);
		break;
	case TTP_EV_READABLE:
		pump(c);
		break;
	case TTP_EV_WRITABLE:
		on_link_writable(c);
		break;
	case TTP_EV_DISCONNECTED:
		c->t = NULL;  /* TinyTP frees it after we return */
		finish(c, 0, ev->reason, "TinyTP disconnected");
		break;
	}
}

static void conn_lmp_event(struct ircomm *c, const struct lmp_event *ev)
{
	switch (ev->type) {
	case LMP_EV_CONNECTED:
		on_link_connected(c);
		break;
	case LMP_EV_READABLE:
		pump(c);
		break;
	case LMP_EV_WRITABLE:
		on_link_writable(c);
		break;
	case LMP_EV_DISCONNECTED:
		note_drops(c);
		c->lc = NULL;  /* lmp_conn frees it after we return */
		finish(c, 0, ev->reason, "IrLMP disconnected");
		break;
	}
}

static void client_ttp_event(void *ctx, const struct ttp_event *ev)
{
	struct ircomm *c = ctx;

	enter(c);
	conn_ttp_event(c, ev);
	leave(c);
}

/* Events of a raw connection, ours or a server's (lmp_set_handler). */
static void raw_lmp_event(void *ctx, const struct lmp_event *ev)
{
	struct ircomm *c = ctx;

	enter(c);
	conn_lmp_event(c, ev);
	leave(c);
}

/* ---- client procedure ------------------------------------------------ */

static void on_lsap(void *ctx, int ret, const struct ias_response *resp)
{
	struct ircomm *c = ctx;
	int sel;

	enter(c);
	c->q = NULL;
	if (ret != IAS_SUCCESS) {
		finish(c, ret < 0 ? ret : -ENOENT, 0, "no LsapSel");
	} else if ((sel = ias_lsap_sel(resp)) < 0) {
		log_msg(c->cfg.log, LOG_LEVEL_WARNING, "ircomm: IAS LsapSel answer is not a selector");
		finish(c, -EINVAL, 0, "bad LsapSel");
	} else {
		c->lsap = (uint8_t)sel;
		c->step_due = true;
		log_msg(c->cfg.log, LOG_LEVEL_DEBUG, "ircomm: peer's IrCOMM on LSAP 0x%02x", sel);
	}
	leave(c);
}

/* The service type to use against a peer that offers these: the best
 * common one, or 3-wire raw when that is all the peer offers. */
static uint8_t client_service(const struct ircomm *c, uint8_t offered)
{
	uint8_t st = ircomm_best_service(offered, c->cfg.service_types);

	if (!st && (offered & RAW) &&
	    ((c->cfg.service_types & RAW) || !(offered & COOKED)))
		st = RAW;
	return st;
}

static const char *service_name(uint8_t st)
{
	return st == IRCOMM_SVC_9WIRE ? "9-wire" : st == IRCOMM_SVC_3WIRE ? "3-wire" : "3-wire raw";
}

static void on_params(void *ctx, int ret, const struct ias_response *resp)
{
	struct ircomm *c = ctx;
	struct ircomm_params p;
	int r = -EINVAL;

	enter(c);
	c->q = NULL;
	if (ret == IAS_NO_SUCH_ATTRIBUTE) {
		/* An IrCOMM object without Parameters: a raw-only (IrLPT-style)
		 * server publishes just IrDA:IrLMP:LsapSel. */
		log_msg(c->cfg.log, LOG_LEVEL_INFO,
			"ircomm: device %08x has no IrCOMM Parameters: trying 3-wire raw", c->daddr);
		c->service = RAW;
		c->step_due = true;
	} else if (ret != IAS_SUCCESS) {
		finish(c, ret < 0 ? ret : -ENOENT, 0, "no Parameters");
	} else if (resp->value.type != IAS_OCTETS ||
		   (r = ircomm_ias_params_parse(resp->value.bytes, resp->value.len, &p)) < 0) {
		log_msg(c->cfg.log, LOG_LEVEL_WARNING, "ircomm: IAS Parameters of device %08x unusable",
			c->daddr);
		finish(c, r, 0, "bad Parameters");
	} else if (!(c->service = client_service(c, p.service_type))) {
		log_msg(c->cfg.log, LOG_LEVEL_WARNING,
			"ircomm: device %08x offers service types 0x%02x, we take 0x%02x", c->daddr,
			p.service_type, c->cfg.service_types);
		finish(c, -EPROTONOSUPPORT, 0, "no common service type");
	} else {
		log_msg(c->cfg.log, LOG_LEVEL_INFO, "ircomm: peer offers 0x%02x, chose %s",
			p.service_type, service_name(c->service));
		c->step_due = true;
	}
	leave(c);
}

struct ircomm *ircomm_connect(struct irlmp *lm, uint32_t daddr, const struct ircomm_config *cfg,
			      ircomm_event_fn fn, void *ctx, uint64_t now_us)
{
	struct ircomm *c;

	if (!config_ok(cfg))
		return NULL;
	c = conn_alloc(cfg, fn, ctx);
	if (!c)
		return NULL;
	c->lm = lm;
	c->daddr = daddr;
	c->state = IRCOMM_QUERY_PARAMS;
	c->q = ias_query_start(lm, daddr, IRCOMM_CLASS, IRCOMM_ATTR_PARAMETERS, on_params, c, now_us);
	if (!c->q) {
		free(c);
		return NULL;
	}
	log_msg(c->cfg.log, LOG_LEVEL_DEBUG, "ircomm client: --connect--> QUERY_PARAMS");
	return c;
}

uint64_t ircomm_deadline(const struct ircomm *c)
{
	return c->step_due ? 0 : UINT64_MAX;
}

void ircomm_tick(struct ircomm *c, uint64_t now_us)
{
	if (!c->step_due)
		return;
	enter(c);
	c->step_due = false;
	if (c->state == IRCOMM_QUERY_PARAMS) {
		c->q = ias_query_start(c->lm, c->daddr, IRCOMM_CLASS,
				       c->service == RAW ? IRCOMM_ATTR_LMP_LSAP : IRCOMM_ATTR_LSAP,
				       on_lsap, c, now_us);
		if (c->q)
			set_state(c, IRCOMM_QUERY_LSAP, "Parameters answer");
		else
			finish(c, -ENOMEM, 0, "IAS query failed to start");
	} else if (c->state == IRCOMM_QUERY_LSAP && c->service == RAW) {
		struct lmp_config lc;
		lmp_config_defaults(&lc);
		lc.log = c->cfg.ttp.log;
		c->lc = lmp_connect(c->lm, c->daddr, c->lsap, &lc, raw_lmp_event, c, now_us);
		if (c->lc)
			set_state(c, IRCOMM_CONNECTING, "IrLMP LsapSel answer");
		else
			finish(c, -ENOMEM, 0, "IrLMP connect failed to start");
	} else if (c->state == IRCOMM_QUERY_LSAP) {
		c->t = ttp_connect(c->lm, c->daddr, c->lsap, &c->cfg.ttp, client_ttp_event, c, now_us);
		if (c->t)
			set_state(c, IRCOMM_CONNECTING, "LsapSel answer");
		else
			finish(c, -ENOMEM, 0, "TinyTP connect failed to start");
	}
	leave(c);
}

/* ---- server ----------------------------------------------------------- */

static int publish(struct ircomm_server *s)
{
	uint8_t params[16];
	int n = ircomm_ias_params_build(params, sizeof(params), s->cfg.service_types,
					s->cfg.port_type);
	struct ias_value pv = { .type = IAS_OCTETS, .bytes = params, .len = (size_t)(n > 0 ? n : 0) };
	struct ias_value lv = { .type = IAS_INTEGER };
	int id, r;

	if (n < 0)
		return n;
	id = ias_db_add_object(s->db, IRCOMM_CLASS);
	if (id < 0)
		return id;
	r = ias_db_add_attr(s->db, id, IRCOMM_ATTR_PARAMETERS, &pv);
	if (r == 0 && s->tl) {
		lv.integer = ttp_listener_lsap(s->tl);
		r = ias_db_add_attr(s->db, id, IRCOMM_ATTR_LSAP, &lv);
	}
	if (r == 0 && s->ll) {
		lv.integer = lmp_listener_lsap(s->ll);
		r = ias_db_add_attr(s->db, id, IRCOMM_ATTR_LMP_LSAP, &lv);
	}
	if (r < 0) {
		ias_db_remove_object(s->db, id);
		return r;
	}
	s->object = id;
	return 0;
}

static void withdraw(struct ircomm_server *s)
{
	if (s->object >= 0)
		ias_db_remove_object(s->db, s->object);
	s->object = -1;
}

static void server_lost_conn(struct ircomm_server *s)
{
	int r;

	s->conn = NULL;
	r = publish(s);
	if (r < 0)
		log_msg(s->cfg.log, LOG_LEVEL_ERROR, "ircomm server: IAS object not restored (%d)", r);
}

static void server_ttp_event(void *ctx, const struct ttp_event *ev)
{
	struct ircomm_server *s = ctx;
	struct ircomm *c = s->conn;

	if (c && c->t == ev->ttp) {
		enter(c);
		conn_ttp_event(c, ev);
		leave(c);
		return;
	}
	if (ev->type != TTP_EV_CONNECTED)
		return;
	if (c) {
		log_msg(s->cfg.log, LOG_LEVEL_INFO, "ircomm server: busy, second connection refused");
		ttp_disconnect(ev->ttp);
		return;
	}
	c = conn_alloc(&s->cfg, s->fn, s->ctx);
	if (!c) {
		ttp_disconnect(ev->ttp);
		return;
	}
	c->srv = s;
	c->is_server = true;
	c->t = ev->ttp;
	c->lm = s->lm;
	c->state = IRCOMM_CLOSED;
	s->conn = c;
	withdraw(s);
	set_state(c, IRCOMM_WAIT_SERVICE, "TinyTP connect");
}

/* A 3-wire raw connection to the server: open at once (no service type
 * is sent without a control channel). */
static void server_lmp_event(void *ctx, const struct lmp_event *ev)
{
	struct ircomm_server *s = ctx;
	struct ircomm_event out = { .type = IRCOMM_EV_CONNECTED };
	struct ircomm *c;

	if (ev->type != LMP_EV_CONNECTED)
		return;
	if (s->conn) {
		log_msg(s->cfg.log, LOG_LEVEL_INFO, "ircomm server: busy, second connection refused");
		lmp_disconnect(ev->conn);
		return;
	}
	c = conn_alloc(&s->cfg, s->fn, s->ctx);
	if (!c) {
		lmp_disconnect(ev->conn);
		return;
	}
	c->srv = s;
	c->is_server = true;
	c->lc = ev->conn;
	c->lm = s->lm;
	c->service = RAW;
	c->state = IRCOMM_CLOSED;
	lmp_set_handler(ev->conn, raw_lmp_event, c);
	s->conn = c;
	withdraw(s);
	set_state(c, IRCOMM_OPEN, "IrLMP connect (raw)");
	c->announced = true;
	enter(c);
	emit(c, &out);
	leave(c);
}

struct ircomm_server *ircomm_server_new(struct irlmp *lm, struct ias_db *db,
					const struct ircomm_config *cfg, ircomm_event_fn fn,
					void *ctx)
{
	struct ircomm_server *s;
	struct ttp_config tc;

	if (!config_ok(cfg))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = *cfg;
	s->fn = fn;
	s->ctx = ctx;
	s->lm = lm;
	s->db = db;
	s->object = -1;
	tc = cfg->ttp;
	tc.mode = TTP_MODE_STREAM;
	tc.log = tc.log ? tc.log : cfg->log;
	if (cfg->service_types & COOKED)
		s->tl = ttp_listen(lm, IRLMP_LSAP_ANY, &tc, server_ttp_event, s);
	if (cfg->service_types & RAW) {
		struct lmp_config lc;
		lmp_config_defaults(&lc);
		lc.log = tc.log;
		s->ll = lmp_listen(lm, IRLMP_LSAP_ANY, &lc, server_lmp_event, s);
	}
	if (((cfg->service_types & COOKED) && !s->tl) || ((cfg->service_types & RAW) && !s->ll) ||
	    publish(s) < 0) {
		ttp_listener_free(s->tl);
		lmp_listener_free(s->ll);
		free(s);
		return NULL;
	}
	log_msg(cfg->log, LOG_LEVEL_INFO, "ircomm server: LSAP 0x%02x, service types 0x%02x",
		ircomm_server_lsap(s), cfg->service_types);
	return s;
}

void ircomm_server_free(struct ircomm_server *s)
{
	if (!s)
		return;
	if (s->conn)
		ircomm_disconnect(s->conn);
	withdraw(s);
	ttp_listener_free(s->tl);
	lmp_listener_free(s->ll);
	free(s);
}

uint8_t ircomm_server_lsap(const struct ircomm_server *s)
{
	return s->tl ? ttp_listener_lsap(s->tl) : lmp_listener_lsap(s->ll);
}
int ircomm_server_ias_object(const struct ircomm_server *s) { return s->object; }
struct ircomm *ircomm_server_conn(const struct ircomm_server *s) { return s->conn; }

/* ---- the user's calls ------------------------------------------------ */

long ircomm_write(struct ircomm *c, const uint8_t *buf, size_t len)
{
	size_t taken = 0;
	long r = 0;

	if (c->state != IRCOMM_OPEN)
		return -ENOTCONN;
	enter(c);
	if (len == 0)
		flush_ctrl(c);
	while (taken < len) {
		r = send_sdu(c, buf + taken, len - taken);
		if (r < 0)
			break;
		taken += (size_t)r;
	}
	if (r == -ENOBUFS)
		c->want_writable = true;
	else if (r < 0)
		log_msg(c->cfg.log, LOG_LEVEL_WARNING, "ircomm: write stopped (%ld)", r);
	leave(c);
	return taken || r >= 0 || r == -ENOBUFS ? (long)taken : r;
}

long ircomm_read(struct ircomm *c, uint8_t *buf, size_t cap)
{
	size_t done = 0;

	enter(c);
	c->reading++;
	pump(c);
	while (!c->dead && done < cap && c->rx_pos < c->rx_len) {
		size_t n = c->rx_len - c->rx_pos;
		if (n > cap - done)
			n = cap - done;
		memcpy(buf + done, c->sdu + c->rx_pos, n);
		c->rx_pos += n;
		done += n;
		pump(c);
	}
	c->reading--;
	c->stats.bytes_rx += done;
	leave(c);
	return (long)done;
}

int ircomm_set_lines(struct ircomm *c, uint8_t dte)
{
	uint8_t lines = dte & LINES_DTE, deltas = 0;

	if (c->state != IRCOMM_OPEN)
		return -ENOTCONN;
	if (c->service != IRCOMM_SVC_9WIRE)
		return -EOPNOTSUPP;
	if ((lines ^ c->dte) & IRCOMM_DTE_DTR)
		deltas |= IRCOMM_DTE_DELTA_DTR;
	if ((lines ^ c->dte) & IRCOMM_DTE_RTS)
		deltas |= IRCOMM_DTE_DELTA_RTS;
	if (!deltas)
		return 0;
	log_msg(c->cfg.log, LOG_LEVEL_DEBUG, "ircomm: our lines 0x%02x -> 0x%02x", c->dte, lines);
	c->dte = lines;
	pend_dte(c, deltas);
	enter(c);
	flush_ctrl(c);
	leave(c);
	return 0;
}

int ircomm_set_params(struct ircomm *c, const struct ircomm_params *p)
{
	if (c->state != IRCOMM_OPEN)
		return -ENOTCONN;
	if (p->present & ~(unsigned)SETTINGS)
		return -EINVAL;
	if (c->service == RAW)
		return -EOPNOTSUPP;   /* no control channel */
	if (p->present & IRCOMM_P_DATA_RATE)
		c->pend.data_rate = c->cfg.data_rate = p->data_rate;
	if (p->present & IRCOMM_P_DATA_FORMAT)
		c->pend.data_format = c->cfg.data_format = p->data_format;
	if (p->present & IRCOMM_P_FLOW_CONTROL)
		c->pend.flow_control = c->cfg.flow_control = p->flow_control;
	if (p->present & IRCOMM_P_XON_XOFF) {
		c->pend.xon = p->xon;
		c->pend.xoff = p->xoff;
	}
	if (p->present & IRCOMM_P_ENQ_ACK) {
		c->pend.enq = p->enq;
		c->pend.ack = p->ack;
	}
	if (p->present & IRCOMM_P_LINE_STATUS)
		c->pend.line_status = p->line_status;
	if (p->present & IRCOMM_P_BREAK)
		c->pend.brk = p->brk;
	c->pend.present |= p->present;
	enter(c);
	flush_ctrl(c);
	leave(c);
	return 0;
}

int ircomm_poll(struct ircomm *c)
{
	if (c->state != IRCOMM_OPEN)
		return -ENOTCONN;
	if (c->service != IRCOMM_SVC_9WIRE)
		return -EOPNOTSUPP;
	c->pend.present |= IRCOMM_P_POLL;
	enter(c);
	flush_ctrl(c);
	leave(c);
	return 0;
}

void ircomm_disconnect(struct ircomm *c)
{
	if (c->dead)
		return;
	set_state(c, IRCOMM_CLOSED, "user disconnect");
	enter(c);
	release(c);
	leave(c);
}

enum ircomm_state ircomm_get_state(const struct ircomm *c) { return c->state; }
uint8_t ircomm_service_type(const struct ircomm *c) { return c->service; }
const struct ircomm_params *ircomm_peer_params(const struct ircomm *c) { return &c->peer; }
uint8_t ircomm_peer_lines(const struct ircomm *c) { return c->dce; }
uint8_t ircomm_local_lines(const struct ircomm *c) { return c->dte; }
const struct ircomm_stats *ircomm_get_stats(struct ircomm *c)
{
	note_drops(c);
	return &c->stats;
}

size_t ircomm_max_write(const struct ircomm *c)
{
	if (c->state != IRCOMM_OPEN || !(c->t || c->lc))
		return 0;
	return c->lc ? sdu_room(c) : sdu_room(c) - 1;
}

size_t ircomm_tx_pending(const struct ircomm *c)
{
	return link_pending(c) + (c->pend.present ? 1 : 0);
}
