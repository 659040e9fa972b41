/*
 * irlmp.c: IrLMP LSAP multiplexer over one IrLAP link (see irlmp.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "irlmp.h"

#define MAX_CONNS 32
#define CTRL_SLOTS 32
#define CTRL_MAX (4 + IRLMP_MAX_CONNECT_DATA)
#define DYN_FIRST 0x11

struct irlmp_conn {
	struct irlmp *lm;
	enum irlmp_conn_state state;
	uint8_t lsel, rsel;
	uint64_t deadline;                /* connect watchdog, UINT64_MAX: none */
	bool deferred;                    /* irlmp_defer(): call ops->deferred */
	bool relinked;                    /* SETUP: the link was reopened for it once */
	const struct irlmp_user_ops *ops;
	void *ctx;
	const struct irlmp_conn *listener; /* CONNECT: who was asked */
	uint8_t cdata[IRLMP_MAX_CONNECT_DATA]; /* SETUP_PEND: connect user data */
	size_t clen;
};

struct ctrl_pdu {
	uint8_t buf[CTRL_MAX];
	size_t len;
};

struct irlmp {
	struct irlmp_config cfg;
	struct irlmp_ops ops;
	void *ctx;
	enum irlmp_lap_state lap;
	bool closing;         /* we asked IrLAP to disconnect */
	bool link_silent;     /* IrLAP: no activity (N1), and the peer not heard since */
	uint32_t daddr;       /* the link's peer */
	size_t max_data;
	uint64_t now, idle_deadline;
	uint8_t next_dyn;
	struct irlmp_conn conns[MAX_CONNS];
	size_t rr;            /* round-robin position for pull */
	/* The connection a pull was declined for (its next PDU did not fit
	 * max: see irlmp_user_ops.next_len); it is served first, with
	 * whatever room, on the next pull. */
	const struct irlmp_conn *held;
	struct ctrl_pdu ctrl[CTRL_SLOTS];
	size_t ctrl_head, ctrl_count;
	struct irlmp_stats stats;
};

static const char *const conn_state_names[] = {
	"FREE", "LISTEN", "SETUP_PEND", "SETUP", "CONNECT", "DATA_TRANSFER_READY",
};
static const char *const lap_state_names[] = { "LAP_STANDBY", "LAP_U_CONNECT", "LAP_ACTIVE" };

const char *irlmp_conn_state_name(enum irlmp_conn_state s)
{
	return (size_t)s < sizeof(conn_state_names) / sizeof(conn_state_names[0]) ?
		conn_state_names[s] : "?";
}

const char *irlmp_lap_state_name(enum irlmp_lap_state s)
{
	return (size_t)s < sizeof(lap_state_names) / sizeof(lap_state_names[0]) ?
		lap_state_names[s] : "?";
}

/* ---- PDUs ---------------------------------------------------------------- */

int irlmp_pdu_parse(const uint8_t *buf, size_t len, struct irlmp_pdu *out)
{
	struct cursor c;
	uint8_t b0, b1;

	cursor_init(&c, buf, len);
	memset(out, 0, sizeof(*out));
	if (!cursor_u8(&c, &b0) || !cursor_u8(&c, &b1) || (b1 & 0x80))
		return -EINVAL;
	out->control = (b0 & 0x80) != 0;
	out->dlsap = b0 & 0x7f;
	out->slsap = b1;
	if (out->control) {
		if (!cursor_u8(&c, &out->opcode) || !cursor_u8(&c, &out->param))
			return -EINVAL;
		switch (out->opcode) {
		case IRLMP_OP_CONNECT:
		case IRLMP_OP_CONNECT_CONF:
		case IRLMP_OP_DISCONNECT:
			break;
		case IRLMP_OP_ACCESS:
		case IRLMP_OP_ACCESS_CONF:
			/* exactly one mode byte */
			if (cursor_remaining(&c) != 1)
				return -EINVAL;
			break;
		default:
			return -EINVAL;
		}
	}
	out->len = cursor_remaining(&c);
	if (!cursor_view(&c, out->len, &out->data))
		return -EINVAL;
	return 0;
}

size_t irlmp_pdu_build(uint8_t *buf, size_t cap, const struct irlmp_pdu *pdu)
{
	struct wcursor w;

	wcursor_init(&w, buf, cap);
	wcursor_u8(&w, (uint8_t)((pdu->control ? 0x80 : 0) | (pdu->dlsap & 0x7f)));
	wcursor_u8(&w, pdu->slsap & 0x7f);
	if (pdu->control) {
		wcursor_u8(&w, pdu->opcode);
		wcursor_u8(&w, pdu->param);
	}
	if (pdu->len)
		wcursor_bytes(&w, pdu->data, pdu->len);
	return wcursor_ok(&w) ? wcursor_len(&w) : 0;
}

/* ---- helpers ------------------------------------------------------------- */

static void set_lap(struct irlmp *lm, enum irlmp_lap_state to, const char *event)
{
	log_msg(lm->cfg.log, LOG_LEVEL_DEBUG, "irlmp: %s --%s--> %s", irlmp_lap_state_name(lm->lap),
		event, irlmp_lap_state_name(to));
	lm->lap = to;
}

static void set_conn(struct irlmp_conn *c, enum irlmp_conn_state to, const char *event)
{
	log_msg(c->lm->cfg.log, LOG_LEVEL_DEBUG, "irlmp lsap %02x-%02x: %s --%s--> %s", c->lsel,
		c->rsel, irlmp_conn_state_name(c->state), event, irlmp_conn_state_name(to));
	c->state = to;
}

static int lap_req(struct irlmp *lm, enum irlap_req_type type, uint32_t daddr)
{
	struct irlap_request r = { .type = type, .daddr = daddr };
	int rc = lm->ops.lap_request(lm->ctx, &r);

	if (rc < 0 && type != IRLAP_REQ_DATA_READY)
		log_msg(lm->cfg.log, LOG_LEVEL_DEBUG, "irlmp: IrLAP request %d: %s", (int)type,
			strerror(-rc));
	return rc;
}

static int queue_ctrl(struct irlmp *lm, uint8_t dlsap, uint8_t slsap, uint8_t op, uint8_t param,
		      const uint8_t *data, size_t len)
{
	struct irlmp_pdu p = { .control = true, .dlsap = dlsap, .slsap = slsap, .opcode = op,
			       .param = param, .data = data, .len = len };
	struct ctrl_pdu *slot;

	if (lm->ctrl_count == CTRL_SLOTS)
		return -ENOBUFS;
	slot = &lm->ctrl[(lm->ctrl_head + lm->ctrl_count) % CTRL_SLOTS];
	slot->len = irlmp_pdu_build(slot->buf, sizeof(slot->buf), &p);
	if (!slot->len)
		return -EMSGSIZE;
	lm->ctrl_count++;
	if (lm->lap == IRLMP_LAP_ACTIVE)
		lap_req(lm, IRLAP_REQ_DATA_READY, 0);
	return 0;
}

static bool conn_active(const struct irlmp_conn *c)
{
	return c->state != IRLMP_CONN_FREE && c->state != IRLMP_CONN_LISTEN;
}

size_t irlmp_count(const struct irlmp *lm, bool listeners)
{
	size_t n = 0;

	for (size_t i = 0; i < MAX_CONNS; i++)
		if (listeners ? lm->conns[i].state == IRLMP_CONN_LISTEN : conn_active(&lm->conns[i]))
			n++;
	return n;
}

size_t irlmp_ctrl_pending(const struct irlmp *lm)
{
	return lm->ctrl_count;
}

/* The link is needed as long as an LSAP connection exists. */
static void check_idle(struct irlmp *lm)
{
	if (lm->lap == IRLMP_LAP_ACTIVE && !lm->closing && irlmp_count(lm, false) == 0) {
		/* Calls without a time (disconnect) arm the timer at 0:
		 * the host's next irlmp_tick() starts it at its time. */
		if (lm->idle_deadline == UINT64_MAX)
			lm->idle_deadline = 0;
	} else {
		lm->idle_deadline = UINT64_MAX;
	}
}

/*
 * A connect (ours or the peer's) needs the link: stop the idle timer
 * and, if its disconnect was already asked for, ask IrLAP to withdraw
 * it.  That works until the DISC (primary) or RD (secondary) is out;
 * after that the link goes down as asked and a connect of ours waits
 * for it (SETUP_PEND, see on_link_down).  True if the link stays.
 */
static bool keep_link(struct irlmp *lm, const char *event)
{
	int rc;

	lm->idle_deadline = UINT64_MAX;
	if (lm->lap != IRLMP_LAP_ACTIVE)
		return false;
	if (!lm->closing)
		return true;
	rc = lap_req(lm, IRLAP_REQ_CANCEL_DISCONNECT, 0);
	if (rc < 0) {
		log_msg(lm->cfg.log, LOG_LEVEL_DEBUG,
			"irlmp: %s (closing) --%s--> %s (closing: the disconnect is out)",
			irlmp_lap_state_name(lm->lap), event, irlmp_lap_state_name(lm->lap));
		return false;
	}
	lm->closing = false;
	log_msg(lm->cfg.log, LOG_LEVEL_DEBUG, "irlmp: %s (closing) --%s--> %s (disconnect withdrawn)",
		irlmp_lap_state_name(lm->lap), event, irlmp_lap_state_name(lm->lap));
	return true;
}

static void release(struct irlmp_conn *c, const char *event)
{
	set_conn(c, IRLMP_CONN_FREE, event);
	c->ops = NULL;
	c->ctx = NULL;
	c->deadline = UINT64_MAX;
	check_idle(c->lm);
}

static void report_disconnect(struct irlmp_conn *c, enum irlmp_reason reason, const uint8_t *data,
			      size_t len, const char *event)
{
	struct irlmp_event ev = { .type = IRLMP_EV_DISCONNECT, .conn = c, .reason = reason,
				  .data = data, .len = len };
	const struct irlmp_user_ops *ops = c->ops;
	void *ctx = c->ctx;

	release(c, event);
	if (ops && ops->event)
		ops->event(ctx, &ev);
}

static struct irlmp_conn *alloc_conn(struct irlmp *lm)
{
	for (size_t i = 0; i < MAX_CONNS; i++)
		if (lm->conns[i].state == IRLMP_CONN_FREE) {
			struct irlmp_conn *c = &lm->conns[i];
			memset(c, 0, sizeof(*c));
			c->lm = lm;
			c->deadline = UINT64_MAX;
			return c;
		}
	return NULL;
}

static bool sel_used(const struct irlmp *lm, uint8_t sel)
{
	for (size_t i = 0; i < MAX_CONNS; i++)
		if (lm->conns[i].state != IRLMP_CONN_FREE && lm->conns[i].lsel == sel)
			return true;
	return false;
}

/* Dynamic selectors: sequential from 0x11, wrapping at 0x6f. */
static int alloc_sel(struct irlmp *lm)
{
	for (unsigned n = 0; n <= IRLMP_LSAP_MAX - DYN_FIRST; n++) {
		uint8_t sel = lm->next_dyn;
		lm->next_dyn = sel >= IRLMP_LSAP_MAX ? DYN_FIRST : (uint8_t)(sel + 1);
		if (!sel_used(lm, sel))
			return sel;
	}
	return -1;
}

static struct irlmp_conn *find_conn(struct irlmp *lm, uint8_t lsel, uint8_t rsel)
{
	for (size_t i = 0; i < MAX_CONNS; i++) {
		struct irlmp_conn *c = &lm->conns[i];
		if (conn_active(c) && c->lsel == lsel && c->rsel == rsel)
			return c;
	}
	return NULL;
}

static struct irlmp_conn *find_listener(struct irlmp *lm, uint8_t lsel)
{
	for (size_t i = 0; i < MAX_CONNS; i++)
		if (lm->conns[i].state == IRLMP_CONN_LISTEN && lm->conns[i].lsel == lsel)
			return &lm->conns[i];
	return NULL;
}

/* ---- life cycle ---------------------------------------------------------- */

void irlmp_config_defaults(struct irlmp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->idle_timeout_us = 2000000;
	cfg->connect_timeout_us = 5000000;
}

struct irlmp *irlmp_new(const struct irlmp_config *cfg, const struct irlmp_ops *ops, void *ctx)
{
	struct irlmp *lm;

	if (!cfg || !ops || !ops->lap_request)
		return NULL;
	lm = calloc(1, sizeof(*lm));
	if (!lm)
		return NULL;
	lm->cfg = *cfg;
	lm->ops = *ops;
	lm->ctx = ctx;
	lm->next_dyn = DYN_FIRST;
	lm->idle_deadline = UINT64_MAX;
	for (size_t i = 0; i < MAX_CONNS; i++)
		lm->conns[i].deadline = UINT64_MAX;
	return lm;
}

void irlmp_free(struct irlmp *lm)
{
	if (!lm)
		return;
	/* Owners of open connections learn that they are gone. */
	for (size_t i = 0; i < MAX_CONNS; i++)
		if (conn_active(&lm->conns[i]))
			report_disconnect(&lm->conns[i], IRLMP_REASON_LM_INITIATED, NULL, 0, "shutdown");
	free(lm);
}

/* ---- user requests ------------------------------------------------------- */

struct irlmp_conn *irlmp_listen(struct irlmp *lm, uint8_t sel, const struct irlmp_user_ops *ops,
				void *ctx)
{
	struct irlmp_conn *c;
	int s = sel;

	if (sel == IRLMP_LSAP_ANY)
		s = alloc_sel(lm);
	else if (sel > IRLMP_LSAP_MAX || sel_used(lm, sel))
		return NULL;
	if (s < 0 || !(c = alloc_conn(lm)))
		return NULL;
	c->lsel = (uint8_t)s;
	c->rsel = 0;
	c->ops = ops;
	c->ctx = ctx;
	set_conn(c, IRLMP_CONN_LISTEN, "bind");
	return c;
}

static void send_connect(struct irlmp_conn *c)
{
	struct irlmp *lm = c->lm;

	if (queue_ctrl(lm, c->rsel, c->lsel, IRLMP_OP_CONNECT, 0, c->cdata, c->clen) < 0) {
		report_disconnect(c, IRLMP_REASON_UNSPECIFIED, NULL, 0, "no room");
		return;
	}
	/* Counted from the link's coming up; a connect sent again on a
	 * reopened link keeps its first deadline. */
	if (!c->relinked)
		c->deadline = lm->now + lm->cfg.connect_timeout_us;
	set_conn(c, IRLMP_CONN_SETUP, "connect PDU");
}

struct irlmp_conn *irlmp_connect(struct irlmp *lm, uint32_t daddr, uint8_t dlsap,
				 const uint8_t *data, size_t len,
				 const struct irlmp_user_ops *ops, void *ctx, uint64_t now_us)
{
	struct irlmp_conn *c;
	int sel;

	lm->now = now_us;
	if (len > IRLMP_MAX_CONNECT_DATA || dlsap > IRLMP_LSAP_MAX)
		return NULL;
	if (lm->lap != IRLMP_LAP_STANDBY && lm->daddr != daddr)
		return NULL;
	sel = alloc_sel(lm);
	if (sel < 0 || !(c = alloc_conn(lm)))
		return NULL;
	c->lsel = (uint8_t)sel;
	c->rsel = dlsap;
	c->ops = ops;
	c->ctx = ctx;
	if (len)
		memcpy(c->cdata, data, len);
	c->clen = len;
	set_conn(c, IRLMP_CONN_SETUP_PEND, "connect request");
	c->deadline = now_us + lm->cfg.connect_timeout_us;
	if (keep_link(lm, "LSAP connect")) {
		send_connect(c);
	} else if (lm->lap == IRLMP_LAP_STANDBY) {
		lm->daddr = daddr;
		set_lap(lm, IRLMP_LAP_U_CONNECT, "LSAP connect");
		if (lap_req(lm, IRLAP_REQ_CONNECT, daddr) < 0) {
			/* IrLAP cannot start a connection now (busy): nothing is
			 * half done, the caller may retry. */
			release(c, "IrLAP refused the connect request");
			set_lap(lm, IRLMP_LAP_STANDBY, "IrLAP connect request failed");
			return NULL;
		}
	}
	return c;
}

int irlmp_accept(struct irlmp_conn *c, const uint8_t *data, size_t len,
		 const struct irlmp_user_ops *ops, void *ctx)
{
	int rc;

	if (c->state != IRLMP_CONN_CONNECT)
		return -EINVAL;
	if (len > IRLMP_MAX_CONNECT_DATA)
		return -EMSGSIZE;
	rc = queue_ctrl(c->lm, c->rsel, c->lsel, IRLMP_OP_CONNECT_CONF, 0, data, len);
	if (rc < 0)
		return rc;
	c->ops = ops;
	c->ctx = ctx;
	c->deadline = UINT64_MAX;
	set_conn(c, IRLMP_CONN_DATA_TRANSFER_READY, "accept");
	return 0;
}

int irlmp_disconnect(struct irlmp_conn *c, enum irlmp_reason reason, const uint8_t *data,
		     size_t len)
{
	if (c->state == IRLMP_CONN_FREE)
		return -EINVAL;
	if (len > IRLMP_MAX_CONNECT_DATA)
		len = IRLMP_MAX_CONNECT_DATA;
	/* Nothing went out yet for SETUP_PEND; a listener has no peer. */
	if (c->state == IRLMP_CONN_SETUP || c->state == IRLMP_CONN_CONNECT ||
	    c->state == IRLMP_CONN_DATA_TRANSFER_READY)
		queue_ctrl(c->lm, c->rsel, c->lsel, IRLMP_OP_DISCONNECT, (uint8_t)reason, data, len);
	release(c, "disconnect request");
	return 0;
}

int irlmp_set_watchdog(struct irlmp_conn *c, uint64_t timeout_us)
{
	if (c->state != IRLMP_CONN_DATA_TRANSFER_READY)
		return -EINVAL;
	c->deadline = timeout_us ? c->lm->now + timeout_us : UINT64_MAX;
	return 0;
}

void irlmp_data_ready(struct irlmp_conn *c)
{
	if (c->state == IRLMP_CONN_DATA_TRANSFER_READY && c->lm->lap == IRLMP_LAP_ACTIVE)
		lap_req(c->lm, IRLAP_REQ_DATA_READY, 0);
}

uint8_t irlmp_conn_lsel(const struct irlmp_conn *c) { return c->lsel; }
uint8_t irlmp_conn_rsel(const struct irlmp_conn *c) { return c->rsel; }
enum irlmp_conn_state irlmp_conn_state(const struct irlmp_conn *c) { return c->state; }
struct irlmp *irlmp_conn_owner(const struct irlmp_conn *c) { return c->lm; }
size_t irlmp_max_data(const struct irlmp *lm) { return lm->max_data; }
enum irlmp_lap_state irlmp_get_lap_state(const struct irlmp *lm) { return lm->lap; }
const struct irlmp_stats *irlmp_get_stats(const struct irlmp *lm) { return &lm->stats; }

/* ---- from the link ------------------------------------------------------- */

static void drop_all(struct irlmp *lm, enum irlmp_reason reason, const char *event)
{
	for (size_t i = 0; i < MAX_CONNS; i++)
		if (conn_active(&lm->conns[i]))
			report_disconnect(&lm->conns[i], reason, NULL, 0, event);
	lm->ctrl_count = 0;
}

static void on_connect_pdu(struct irlmp *lm, const struct irlmp_pdu *p)
{
	struct irlmp_conn *l = find_listener(lm, p->dlsap);
	struct irlmp_conn *c = find_conn(lm, p->dlsap, p->slsap);
	struct irlmp_event ev = { .type = IRLMP_EV_CONNECT_IND, .data = p->data, .len = p->len };

	if (c) {
		/* A repeated connect on a live connection: half open. */
		report_disconnect(c, IRLMP_REASON_HALF_OPEN, NULL, 0, "connect on open LSAP");
		queue_ctrl(lm, p->slsap, p->dlsap, IRLMP_OP_DISCONNECT, IRLMP_REASON_HALF_OPEN, NULL, 0);
		return;
	}
	if (!l || !(c = alloc_conn(lm))) {
		lm->stats.refused++;
		log_msg(lm->cfg.log, LOG_LEVEL_INFO, "irlmp: connect to LSAP %02x from %02x refused (%s)",
			p->dlsap, p->slsap, l ? "no free slot" : "nobody listens");
		queue_ctrl(lm, p->slsap, p->dlsap, IRLMP_OP_DISCONNECT, IRLMP_REASON_NO_CLIENT, NULL, 0);
		return;
	}
	c->lsel = p->dlsap;
	c->rsel = p->slsap;
	c->ops = l->ops;
	c->ctx = l->ctx;
	c->listener = l;
	c->deadline = UINT64_MAX;
	/* The peer wants the link we were about to close idle: keep it.
	 * If the disconnect is already out, IrLAP delivers nothing more
	 * and this connection ends with the link (reason 0x02). */
	keep_link(lm, "peer connect");
	set_conn(c, IRLMP_CONN_CONNECT, "connect PDU");
	ev.conn = c;
	if (c->ops && c->ops->event)
		c->ops->event(c->ctx, &ev);
	/* A user who neither accepted nor refused gets the incoming watchdog. */
	if (c->state == IRLMP_CONN_CONNECT)
		c->deadline = lm->now + 1000000;
}

static void on_control(struct irlmp *lm, const struct irlmp_pdu *p)
{
	struct irlmp_conn *c;

	switch (p->opcode) {
	case IRLMP_OP_CONNECT:
		on_connect_pdu(lm, p);
		return;
	case IRLMP_OP_ACCESS: {
		/* Multiplexed mode is what we do; exclusive mode is not offered. */
		uint8_t mode = p->data[0];
		uint8_t st = mode == 0x00 ? 0x00 : 0xff;
		queue_ctrl(lm, p->slsap, p->dlsap, IRLMP_OP_ACCESS_CONF, st, &mode, 1);
		return;
	}
	case IRLMP_OP_ACCESS_CONF:
		return;
	default:
		break;
	}
	c = find_conn(lm, p->dlsap, p->slsap);
	if (!c) {
		lm->stats.unknown_conn++;
		return;
	}
	if (p->opcode == IRLMP_OP_CONNECT_CONF) {
		struct irlmp_event ev = { .type = IRLMP_EV_CONNECT_CONF, .conn = c, .data = p->data,
					  .len = p->len };
		if (c->state != IRLMP_CONN_SETUP)
			return;
		c->deadline = UINT64_MAX;
		set_conn(c, IRLMP_CONN_DATA_TRANSFER_READY, "connect confirm PDU");
		if (c->ops && c->ops->event)
			c->ops->event(c->ctx, &ev);
	} else {
		report_disconnect(c, (enum irlmp_reason)p->param, p->data, p->len, "disconnect PDU");
	}
}

static void on_data(struct irlmp *lm, const struct irlmp_pdu *p)
{
	struct irlmp_conn *c = find_conn(lm, p->dlsap, p->slsap);
	struct irlmp_event ev = { .type = IRLMP_EV_DATA, .conn = c, .data = p->data, .len = p->len };

	if (!c || c->state != IRLMP_CONN_DATA_TRANSFER_READY) {
		lm->stats.unknown_conn++;
		/* Tell the peer its connection is gone (unless it is the
		 * pending side of a handshake, where data may overtake). */
		if (!c)
			queue_ctrl(lm, p->slsap, p->dlsap, IRLMP_OP_DISCONNECT,
				   IRLMP_REASON_DATA_ON_DISCONNECTED, NULL, 0);
		return;
	}
	if (c->ops && c->ops->event)
		c->ops->event(c->ctx, &ev);
}

static void on_link_up(struct irlmp *lm, const struct irlap_event *ev)
{
	lm->daddr = ev->daddr;
	lm->max_data = ev->qos && ev->qos->tx_data_size > IRLMP_HEADER ?
		ev->qos->tx_data_size - IRLMP_HEADER : 0;
	lm->closing = false;
	lm->link_silent = false;
	set_lap(lm, IRLMP_LAP_ACTIVE, "IrLAP connect confirm");
	for (size_t i = 0; i < MAX_CONNS; i++)
		if (lm->conns[i].state == IRLMP_CONN_SETUP_PEND)
			send_connect(&lm->conns[i]);
	check_idle(lm);
}

static void on_link_down(struct irlmp *lm, const struct irlap_event *ev)
{
	bool was_up = lm->lap == IRLMP_LAP_ACTIVE && !lm->closing;
	bool was_silent = lm->link_silent;
	bool retry = false;

	set_lap(lm, IRLMP_LAP_STANDBY, irlap_reason_name(ev->reason));
	lm->closing = false;
	lm->link_silent = false;
	lm->max_data = 0;
	lm->idle_deadline = UINT64_MAX;
	lm->ctrl_count = 0;
	for (size_t i = 0; i < MAX_CONNS; i++) {
		struct irlmp_conn *c = &lm->conns[i];
		if (!conn_active(c))
			continue;
		/* A connect made while we were closing the idle link waits
		 * for it to go down and opens it again. */
		if (c->state == IRLMP_CONN_SETUP_PEND && !was_up &&
		    ev->reason == IRLAP_REASON_USER) {
			retry = true;
			continue;
		}
		/* Our connect was on its way, unanswered, when the link
		 * ended: the peer closed it (its idle close), or it was
		 * already dead and N2 ran out (the peer dropped it while the
		 * line was stopped; the connect withdrew our idle close and
		 * was queued on it).  Nothing of the connect survives on the
		 * peer's side either: open the link again, once, within the
		 * connect's first deadline. */
		if (c->state == IRLMP_CONN_SETUP && was_up && !c->relinked &&
		    (ev->reason == IRLAP_REASON_PEER || ev->reason == IRLAP_REASON_NO_RESPONSE)) {
			c->relinked = true;
			/* Its watchdog was put off while the link was silent
			 * (tick_watchdogs) and may be about to run out: the new
			 * link gets a connect's whole time. */
			if (was_silent)
				c->deadline = lm->now + lm->cfg.connect_timeout_us;
			set_conn(c, IRLMP_CONN_SETUP_PEND, ev->reason == IRLAP_REASON_PEER ?
				 "peer closed the link" : "link lost before the confirm");
			retry = true;
			continue;
		}
		/* Connections made while closing (a peer's connect the
		 * disconnect could no longer wait for) lose a link that was
		 * up: 0x02, as for any connection; only ours that never saw
		 * the link failed to establish it. */
		report_disconnect(c, was_up || c->state != IRLMP_CONN_SETUP_PEND ?
				  IRLMP_REASON_LAP_DISCONNECT : IRLMP_REASON_LAP_CONNECT_FAILED,
				  NULL, 0, "IrLAP disconnect");
	}
	if (retry) {
		set_lap(lm, IRLMP_LAP_U_CONNECT, "pending LSAP connect");
		if (lap_req(lm, IRLAP_REQ_CONNECT, lm->daddr) < 0) {
			set_lap(lm, IRLMP_LAP_STANDBY, "IrLAP connect request failed");
			for (size_t i = 0; i < MAX_CONNS; i++)
				if (conn_active(&lm->conns[i]))
					report_disconnect(&lm->conns[i], IRLMP_REASON_LAP_CONNECT_FAILED,
							  NULL, 0, "IrLAP connect request failed");
		}
	}
}

/*
 * The peer asks for the link.  In STANDBY we take it; in U_CONNECT our
 * own IrLAP connect to the same station is still waiting for a quiet
 * medium (or for a discovery to end): the peer's link is the one we
 * asked for, and our SETUP_PEND connects go out on it (IrLAP drops its
 * pending connect when it accepts).  Anything else (a link up, or our
 * connect to another station) is refused: DM.
 */
static void on_link_indication(struct irlmp *lm, const struct irlap_event *ev)
{
	if (lm->lap == IRLMP_LAP_STANDBY) {
		set_lap(lm, IRLMP_LAP_U_CONNECT, "IrLAP connect indication");
		lm->daddr = ev->daddr;
		lap_req(lm, IRLAP_REQ_ACCEPT, 0);
	} else if (lm->lap == IRLMP_LAP_U_CONNECT && lm->daddr == ev->daddr) {
		set_lap(lm, IRLMP_LAP_U_CONNECT, "IrLAP connect indication (crosses ours)");
		lap_req(lm, IRLAP_REQ_ACCEPT, 0);
	} else {
		log_msg(lm->cfg.log, LOG_LEVEL_DEBUG, "irlmp: %s --IrLAP connect indication--> %s "
			"(refused)", irlmp_lap_state_name(lm->lap), irlmp_lap_state_name(lm->lap));
		lap_req(lm, IRLAP_REQ_REJECT, 0);
	}
}

/* The link's health, for the connect watchdog (tick_watchdogs). */
static void on_link_status(struct irlmp *lm, enum irlap_status status)
{
	bool silent = status == IRLAP_STATUS_NO_ACTIVITY;

	if (status != IRLAP_STATUS_NO_ACTIVITY && status != IRLAP_STATUS_LINK_OK)
		return;
	if (silent != lm->link_silent)
		log_msg(lm->cfg.log, LOG_LEVEL_DEBUG, "irlmp: %s --%s--> %s", irlmp_lap_state_name(lm->lap),
			silent ? "link silent" : "link answers again", irlmp_lap_state_name(lm->lap));
	lm->link_silent = silent;
}

void irlmp_lap_event(struct irlmp *lm, const struct irlap_event *ev, uint64_t now_us)
{
	struct irlmp_pdu p;

	lm->now = now_us;
	switch (ev->type) {
	case IRLAP_EV_CONNECT_IND:
		on_link_indication(lm, ev);
		break;
	case IRLAP_EV_CONNECT_CONF:
		on_link_up(lm, ev);
		break;
	case IRLAP_EV_DISCONNECT:
		on_link_down(lm, ev);
		break;
	case IRLAP_EV_RESET:
		/* Unacknowledged PDUs may be lost: no LSAP connection can
		 * trust its stream any more. */
		drop_all(lm, IRLMP_REASON_LAP_RESET, "IrLAP reset");
		check_idle(lm);
		break;
	case IRLAP_EV_DATA:
		lm->stats.pdus_rx++;
		if (irlmp_pdu_parse(ev->data, ev->len, &p) < 0) {
			lm->stats.bad_pdus++;
			log_msg(lm->cfg.log, LOG_LEVEL_WARNING, "irlmp: malformed LM-PDU (%zu bytes) dropped",
				ev->len);
			break;
		}
		if (p.control)
			on_control(lm, &p);
		else
			on_data(lm, &p);
		break;
	case IRLAP_EV_TX_READY:
		if (lm->lap == IRLMP_LAP_ACTIVE)
			lap_req(lm, IRLAP_REQ_DATA_READY, 0);
		break;
	case IRLAP_EV_STATUS:
		on_link_status(lm, ev->status);
		break;
	default:
		break;
	}
}

/* ---- to the link --------------------------------------------------------- */

size_t irlmp_pull(struct irlmp *lm, uint8_t *buf, size_t max)
{
	if (lm->lap != IRLMP_LAP_ACTIVE)
		return 0;
	if (lm->ctrl_count) {
		struct ctrl_pdu *p = &lm->ctrl[lm->ctrl_head];
		if (p->len > max)
			return 0;
		memcpy(buf, p->buf, p->len);
		lm->ctrl_head = (lm->ctrl_head + 1) % CTRL_SLOTS;
		lm->ctrl_count--;
		lm->stats.pdus_tx++;
		return p->len;
	}
	if (max <= IRLMP_HEADER)
		return 0;
	for (size_t k = 0; k < MAX_CONNS; k++) {
		struct irlmp_conn *c = &lm->conns[(lm->rr + k) % MAX_CONNS];
		size_t n;

		if (c->state != IRLMP_CONN_DATA_TRANSFER_READY || !c->ops || !c->ops->pull)
			continue;
		if (lm->held == c) {
			lm->held = NULL;
		} else if (c->ops->next_len &&
			   c->ops->next_len(c->ctx, c) > max - IRLMP_HEADER) {
			/* its turn, too small a pull: keep the turn (once) */
			lm->held = c;
			lm->rr = (lm->rr + k) % MAX_CONNS;
			return 0;
		}
		n = c->ops->pull(c->ctx, c, buf + IRLMP_HEADER, max - IRLMP_HEADER);
		if (n == 0)
			continue;
		buf[0] = c->rsel & 0x7f;
		buf[1] = c->lsel & 0x7f;
		lm->rr = (lm->rr + k + 1) % MAX_CONNS;
		lm->stats.pdus_tx++;
		return n + IRLMP_HEADER;
	}
	return 0;
}

static void tick_watchdogs(struct irlmp *lm, uint64_t now_us)
{
	for (size_t i = 0; i < MAX_CONNS; i++) {
		struct irlmp_conn *c = &lm->conns[i];
		if (!conn_active(c) || c->deadline > now_us)
			continue;
		/* Our connect waits on a link whose peer has gone silent (out
		 * of range, or it dropped the link by its own timeout): the
		 * link either answers again or ends within its disconnect
		 * time, and then the connect is made on a new one
		 * (on_link_down).  Failing it now would refuse what a new link
		 * a few seconds later would carry. */
		if (c->state == IRLMP_CONN_SETUP && lm->lap == IRLMP_LAP_ACTIVE && lm->link_silent) {
			c->deadline = now_us + lm->cfg.connect_timeout_us;
			log_msg(lm->cfg.log, LOG_LEVEL_DEBUG, "irlmp lsap %02x-%02x: SETUP --watchdog--> "
				"SETUP (put off: the link is silent)", c->lsel, c->rsel);
			continue;
		}
		if (c->state == IRLMP_CONN_CONNECT) {
			irlmp_disconnect(c, IRLMP_REASON_NO_RESPONSE, NULL, 0);
			continue;
		}
		/* The peer may hold its end: tell it (a Linux peer silent on
		 * an unbound LSAP ignores this too). */
		if (c->state == IRLMP_CONN_SETUP || c->state == IRLMP_CONN_DATA_TRANSFER_READY)
			queue_ctrl(lm, c->rsel, c->lsel, IRLMP_OP_DISCONNECT, IRLMP_REASON_NO_RESPONSE,
				   NULL, 0);
		report_disconnect(c, IRLMP_REASON_NO_RESPONSE, NULL, 0, "watchdog");
	}
}

void irlmp_defer(struct irlmp_conn *c)
{
	if (conn_active(c))
		c->deferred = true;
}

/* Each call may close connections (its own or others): look again. */
static void run_deferred(struct irlmp *lm)
{
	for (size_t i = 0; i < MAX_CONNS; i++) {
		struct irlmp_conn *c = &lm->conns[i];

		if (!conn_active(c) || !c->deferred)
			continue;
		c->deferred = false;
		if (c->ops && c->ops->deferred)
			c->ops->deferred(c->ctx, c);
	}
}

void irlmp_tick(struct irlmp *lm, uint64_t now_us)
{
	lm->now = now_us;
	run_deferred(lm);
	tick_watchdogs(lm, now_us);
	if (lm->idle_deadline == 0) {
		lm->idle_deadline = now_us + lm->cfg.idle_timeout_us;
		return;
	}
	if (lm->idle_deadline <= now_us && lm->lap == IRLMP_LAP_ACTIVE && !lm->closing) {
		lm->idle_deadline = UINT64_MAX;
		lm->closing = true;
		log_msg(lm->cfg.log, LOG_LEVEL_DEBUG, "irlmp: %s --idle timeout--> closing link",
			irlmp_lap_state_name(lm->lap));
		lap_req(lm, IRLAP_REQ_DISCONNECT, 0);
	}
}

uint64_t irlmp_deadline(const struct irlmp *lm)
{
	uint64_t d = lm->idle_deadline;

	for (size_t i = 0; i < MAX_CONNS; i++) {
		if (!conn_active(&lm->conns[i]))
			continue;
		if (lm->conns[i].deferred && lm->now < d)
			d = lm->now;
		if (lm->conns[i].deadline < d)
			d = lm->conns[i].deadline;
	}
	return d;
}

const char *irlmp_reason_name(enum irlmp_reason r)
{
	switch (r) {
	case IRLMP_REASON_USER: return "user request";
	case IRLMP_REASON_LAP_DISCONNECT: return "unexpected IrLAP disconnect";
	case IRLMP_REASON_LAP_CONNECT_FAILED: return "IrLAP connection failed";
	case IRLMP_REASON_LAP_RESET: return "IrLAP reset";
	case IRLMP_REASON_LM_INITIATED: return "link management disconnect";
	case IRLMP_REASON_DATA_ON_DISCONNECTED: return "data on a disconnected LSAP";
	case IRLMP_REASON_NO_RESPONSE: return "no response";
	case IRLMP_REASON_NO_CLIENT: return "no available LM-MUX client";
	case IRLMP_REASON_HALF_OPEN: return "connection half open";
	case IRLMP_REASON_BAD_SOURCE: return "illegal source address";
	case IRLMP_REASON_UNSPECIFIED: return "unspecified";
	}
	return "?";
}

void irlmp_set_idle_timeout(struct irlmp *lm, uint64_t timeout_us)
{
	lm->cfg.idle_timeout_us = timeout_us;
}
