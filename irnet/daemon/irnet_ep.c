/*
 * irnet_ep.c: an IrNET endpoint, TinyTP SDUs <-> async HDLC on a pty or
 * a pair of descriptors (see the header; docs/irdad.md "IrNET endpoints").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "irnet_ep.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pty.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "array.h"
#include "cursor.h"
#include "ias.h"
#include "status_line.h"
#include "ttp.h"

#define READ_CHUNK 4096

/* Frames from pppd that TinyTP could not take yet (lengths in len[]). */
struct held {
	uint8_t *buf;
	size_t used, cap;
	size_t *len;
	size_t n, at, ncap;
	size_t off;       /* bytes of buf already sent */
};

struct irnet_ep {
	char name[IRDAD_NAME_MAX + 1];
	enum irdad_role role;
	struct irdad_peer peer;
	bool reconnect;
	bool stdio;
	char link[IRDAD_PATH_MAX];
	char slave_path[64];
	dev_t slave_rdev;
	/* who removes the link when our unlink is refused (irdad's opener) */
	int (*remove_link)(void *ctx, size_t index);
	void *remove_ctx;
	size_t remove_index;
	int in_fd, out_fd;
	bool out_is_socket;
	struct status_line sl;
	const struct logger *log;
	struct irnet_ep_timing tm;
	void (*ended)(void *ctx, struct irnet_ep *e);
	void *ended_ctx;

	struct eloop *loop;
	struct stack *stk;
	enum irnet_ep_state state;
	bool started;
	bool reading, writing, slave_open;

	/* the connection */
	struct ttp *t;
	uint32_t daddr;
	struct ttp_listener *tl;
	int ias_obj;

	/* finding */
	struct ias_query *q;
	uint32_t cand[IRLAP_MAX_PEERS];
	size_t ncand, at_cand;
	unsigned discoveries;
	bool wait_discovery, wait_link_down;
	bool saw_not_offered, saw_no_answer;

	/* what the stack told us */
	struct irlap_peer log_[IRLAP_MAX_PEERS];
	size_t nlog;
	uint32_t link_peer;

	/* pppd -> peer */
	struct ppp_hdlc_decoder *dec;
	struct held held;
	/* peer -> pppd */
	struct ppp_hdlc_encoder enc;
	uint8_t *out;
	size_t out_len, out_off, out_cap;
	uint8_t *sdu;

	struct eloop_timer attempt, retry, watch, flush, end;
	uint64_t flush_deadline;
	struct irnet_ep_stats stats;
};

const char *irnet_ep_state_name(enum irnet_ep_state s)
{
	static const char *const names[] = {
		"WAITING", "LISTENING", "FINDING", "CONNECTING", "UP", "FLUSHING", "DOWN", "ENDED",
	};
	return names[s];
}

void irnet_ep_timing_defaults(struct irnet_ep_timing *t)
{
	*t = (struct irnet_ep_timing){
		.attempt_us = 20000000, .retry_us = 3000000, .drain_us = 5000000,
		.watch_us = 200000, .discoveries = 3,
	};
}

static void set_state(struct irnet_ep *e, enum irnet_ep_state to, const char *event)
{
	log_msg(e->log, LOG_LEVEL_DEBUG, "irnet %s: %s --%s--> %s", e->name,
		irnet_ep_state_name(e->state), event, irnet_ep_state_name(to));
	e->state = to;
}

static const struct irlap_peer *log_find(const struct irnet_ep *e, uint32_t daddr)
{
	for (size_t i = 0; i < e->nlog; i++)
		if (e->log_[i].daddr == daddr)
			return &e->log_[i];
	return NULL;
}

static void log_note(struct irnet_ep *e, const struct irlap_peer *p)
{
	struct irlap_peer *slot = (struct irlap_peer *)log_find(e, p->daddr);

	if (!slot && e->nlog < IRLAP_MAX_PEERS)
		slot = &e->log_[e->nlog++];
	if (slot)
		*slot = *p;
}

/* --- the channel's registrations ------------------------------------- */

static void on_readable(struct eloop *loop, int fd, void *ctx);
static void on_writable(struct eloop *loop, int fd, void *ctx);

static bool wants_read(const struct irnet_ep *e)
{
	if (e->in_fd < 0 || (!e->stdio && !e->slave_open) || e->held.n > e->held.at)
		return false;
	switch (e->state) {
	case IRNET_EP_UP:
		return true;
	case IRNET_EP_LISTENING:
	case IRNET_EP_DOWN:
		/* pppd's frames have nowhere to go: dropped, counted */
		return true;
	default:
		return false;
	}
}

/* Registers what the state asks for; a pty whose reader is off is looked
 * at by the watch timer, so that pppd's coming and going are seen. */
static void update_io(struct irnet_ep *e)
{
	bool r = e->started && wants_read(e);
	bool w = e->started && e->out_fd >= 0 && e->out_off < e->out_len &&
		 (e->stdio || e->slave_open);

	if (r != e->reading) {
		e->reading = r;
		if (r)
			eloop_add_reader(e->loop, e->in_fd, on_readable, e);
		else
			eloop_remove_reader(e->loop, e->in_fd);
	}
	if (w != e->writing) {
		e->writing = w;
		if (w)
			eloop_add_writer(e->loop, e->out_fd, on_writable, e);
		else
			eloop_remove_writer(e->loop, e->out_fd);
	}
	if (!e->stdio && e->started && !r && e->state != IRNET_EP_ENDED) {
		if (!eloop_timer_pending(&e->watch))
			eloop_timer_arm_in(e->loop, &e->watch, e->tm.watch_us);
	} else {
		eloop_timer_cancel(e->loop, &e->watch);
	}
}

static void sync_stack(struct irnet_ep *e)
{
	stack_sync(e->stk);
}

/* --- listening --------------------------------------------------------- */

static void on_ttp(void *ctx, const struct ttp_event *ev);

static void ttp_config_for(const struct irnet_ep *e, struct ttp_config *tc)
{
	ttp_config_defaults(tc);
	tc->mode = TTP_MODE_SAR; /* one PPP frame per SDU (digest 8) */
	tc->max_sdu = IRNET_EP_MAX_SDU;
	tc->log = e->log;
}

static int listen_start(struct irnet_ep *e)
{
	struct ttp_config tc;

	if (e->tl)
		return 0;
	ttp_config_for(e, &tc);
	e->tl = ttp_listen(stack_irlmp(e->stk), IRLMP_LSAP_ANY, &tc, on_ttp, e);
	if (!e->tl)
		return -EADDRINUSE;
	e->ias_obj = stack_register_lsap(e->stk, IRNET_EP_CLASS, IRNET_EP_ATTR,
					 ttp_listener_lsap(e->tl));
	if (e->ias_obj < 0) {
		int rc = e->ias_obj;
		ttp_listener_free(e->tl);
		e->tl = NULL;
		return rc;
	}
	log_msg(e->log, LOG_LEVEL_INFO, "irnet %s: %s on LSAP 0x%02x", e->name, IRNET_EP_CLASS,
		ttp_listener_lsap(e->tl));
	sync_stack(e);
	return 0;
}

/* Without a pppd to take a call, the service is withdrawn: a caller hears
 * "no such class" from IAS, as a Linux peer refused when no pppd waited
 * on /dev/irnet. */
static void listen_stop(struct irnet_ep *e)
{
	if (e->ias_obj >= 0)
		ias_db_remove_object(stack_ias(e->stk), e->ias_obj);
	e->ias_obj = -1;
	if (e->tl) {
		ttp_listener_free(e->tl);
		e->tl = NULL;
		sync_stack(e);
	}
}

/* --- ends --------------------------------------------------------------- */

static void find_start(struct irnet_ep *e);
static void pump_from_peer(struct irnet_ep *e);

static void end_for_good(struct irnet_ep *e, const char *event)
{
	set_state(e, IRNET_EP_ENDED, event);
	listen_stop(e);
	update_io(e);
	if (e->ended)
		eloop_timer_arm_in(e->loop, &e->end, 0);
}

static void cancel_attempt(struct irnet_ep *e)
{
	eloop_timer_cancel(e->loop, &e->attempt);
	if (e->q) {
		ias_query_cancel(e->q);
		e->q = NULL;
	}
	if (e->t) {
		ttp_disconnect(e->t);
		e->t = NULL;
	}
	e->wait_discovery = e->wait_link_down = false;
	sync_stack(e);
}

/* The state after a failure or an end: a listener listens again, a
 * caller waits (for pppd to leave, or to retry), stdio ends. */
static void after_connection(struct irnet_ep *e, const char *event)
{
	e->daddr = 0;
	if (e->stdio) {
		/* what the peer sent is written out first (pump_from_peer) */
		if (e->out_off < e->out_len) {
			set_state(e, IRNET_EP_FLUSHING, event);
			e->flush_deadline = eloop_now_us() + e->tm.drain_us;
			eloop_timer_arm_in(e->loop, &e->flush, e->tm.drain_us);
			update_io(e);
			return;
		}
		end_for_good(e, event);
		return;
	}
	if (!e->slave_open) {
		set_state(e, IRNET_EP_WAITING, event);
		listen_stop(e);
	} else if (e->role == IRDAD_ROLE_LISTEN) {
		set_state(e, IRNET_EP_LISTENING, event);
		listen_start(e);
	} else {
		set_state(e, IRNET_EP_DOWN, event);
		if (e->reconnect)
			eloop_timer_arm_in(e->loop, &e->retry, e->tm.retry_us);
	}
	update_io(e);
}

static void attempt_failed(struct irnet_ep *e, enum status_reason r)
{
	cancel_attempt(e);
	e->stats.failures++;
	status_line_end(&e->sl, false, r);
	after_connection(e, status_reason_word(r));
}

/* --- peer -> pppd -------------------------------------------------------- */

static void flush_out(struct irnet_ep *e);

/* Encodes one SDU onto the output buffer (grown as needed). */
static bool out_append(struct irnet_ep *e, const uint8_t *sdu, size_t n)
{
	struct wcursor w;
	size_t need = ppp_hdlc_encoded_max(n);

	if (e->out_off == e->out_len)
		e->out_off = e->out_len = 0;
	uint8_t *b = array_grow(e->out, &e->out_cap, e->out_len + need, 1,
				 ppp_hdlc_encoded_max(IRNET_EP_MAX_SDU));
	if (!b)
		return false;
	e->out = b;
	wcursor_init(&w, e->out + e->out_len, e->out_cap - e->out_len);
	int k = ppp_hdlc_encode(&e->enc, &w, sdu, n, 0);
	if (k <= 0)
		return false;
	e->out_len += (size_t)k;
	e->stats.frames_from_peer++;
	e->stats.bytes_from_peer += n;
	return true;
}

/* Takes SDUs while pppd keeps up: credit goes back to the peer only as
 * pppd reads (back-pressure). */
static void pump_from_peer(struct irnet_ep *e)
{
	bool stalled = false;

	while (e->t && e->state == IRNET_EP_UP) {
		/* one frame at a time: the pty's own buffer is the queue */
		if (e->out_off < e->out_len) {
			stalled = true;
			break;
		}
		long n = ttp_recv(e->t, e->sdu, IRNET_EP_MAX_SDU);
		if (n <= 0)
			break;
		if (!out_append(e, e->sdu, (size_t)n))
			log_msg(e->log, LOG_LEVEL_WARNING, "irnet %s: a %ld-byte frame lost (memory)",
				e->name, n);
		flush_out(e);
	}
	if (stalled)
		e->stats.stalls_local++;
	flush_out(e);
	update_io(e);
	sync_stack(e);
}

static void local_closed(struct irnet_ep *e, const char *why);

/* A socket is written with MSG_NOSIGNAL: a parent that went away is an
 * error here, not a SIGPIPE (a pipe still raises it: irdad ignores it). */
static ssize_t ep_write(struct irnet_ep *e, const uint8_t *buf, size_t n)
{
	if (e->out_is_socket)
		return send(e->out_fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	return write(e->out_fd, buf, n);
}

static void flush_out(struct irnet_ep *e)
{
	while (e->out_off < e->out_len) {
		ssize_t w = ep_write(e, e->out + e->out_off, e->out_len - e->out_off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w <= 0) {
			/* EIO: nobody has the slave open; EPIPE: the reader left */
			e->out_off = e->out_len = 0;
			local_closed(e, "write failed");
			return;
		}
		e->out_off += (size_t)w;
	}
	if (e->state == IRNET_EP_FLUSHING && e->stdio && !e->t)
		end_for_good(e, "drained");
}

/* --- pppd -> peer --------------------------------------------------------- */

static void held_reset(struct held *h)
{
	h->used = h->n = h->at = h->off = 0;
}

static bool held_add(struct held *h, const uint8_t *f, size_t n)
{
	if (h->at == h->n)
		held_reset(h);
	uint8_t *b = array_grow(h->buf, &h->cap, h->used + n, 1, 2 * READ_CHUNK);
	if (!b)
		return false;
	h->buf = b;
	size_t *l = array_grow(h->len, &h->ncap, h->n + 1, sizeof(*h->len), 16);
	if (!l)
		return false;
	h->len = l;
	memcpy(h->buf + h->used, f, n);
	h->used += n;
	h->len[h->n++] = n;
	return true;
}

/* 0 sent (or dropped for good), -ENOBUFS: TinyTP's queue is full. */
static int send_frame(struct irnet_ep *e, const uint8_t *f, size_t n)
{
	int rc = ttp_send(e->t, f, n);

	if (rc == -ENOBUFS)
		return rc;
	if (rc == -EMSGSIZE) {
		e->stats.frames_oversize++;
		log_msg(e->log, LOG_LEVEL_WARNING,
			"irnet %s: a %zu-byte frame from pppd over the peer's %zu: dropped", e->name,
			n, ttp_max_send(e->t));
	} else if (rc < 0) {
		e->stats.frames_dropped++;
	} else {
		e->stats.frames_to_peer++;
		e->stats.bytes_to_peer += n;
	}
	return 0;
}

/* Offers the held frames, oldest first. */
static bool held_push(struct irnet_ep *e)
{
	struct held *h = &e->held;

	while (h->at < h->n) {
		if (!e->t || e->state != IRNET_EP_UP) {
			e->stats.frames_dropped += h->n - h->at;
			held_reset(h);
			return true;
		}
		if (send_frame(e, h->buf + h->off, h->len[h->at]) == -ENOBUFS)
			return false;
		h->off += h->len[h->at++];
	}
	held_reset(h);
	return true;
}

static void on_frame(void *ctx, const uint8_t *f, size_t n)
{
	struct irnet_ep *e = ctx;

	if (e->state != IRNET_EP_UP || !e->t) {
		e->stats.frames_dropped++;
		return;
	}
	if (e->held.at < e->held.n || send_frame(e, f, n) == -ENOBUFS) {
		if (e->held.at == e->held.n)
			e->stats.stalls_peer++;
		if (!held_add(&e->held, f, n))
			e->stats.frames_dropped++;
	}
}

static void pump_to_peer(struct irnet_ep *e)
{
	uint8_t buf[READ_CHUNK];

	for (int i = 0; i < 16 && wants_read(e); i++) {
		ssize_t n = read(e->in_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			/* EOF, or EIO from a master whose slave was closed */
			local_closed(e, n == 0 ? "end of input" : "pppd closed the pty");
			return;
		}
		ppp_hdlc_decoder_feed(e->dec, buf, (size_t)n);
	}
	update_io(e);
	sync_stack(e);
}

/* pppd closed the pty (or stdin ended): what it sent goes out, then the
 * connection is closed. */
static void local_closed(struct irnet_ep *e, const char *why)
{
	if (!e->stdio) {
		e->slave_open = false;
		/* nothing of this session is for the next pppd */
		e->out_off = e->out_len = 0;
	}
	if (e->state == IRNET_EP_ENDED)
		return;
	if (e->state == IRNET_EP_FLUSHING) {
		if (e->stdio && !e->t)
			end_for_good(e, why); /* the rest for pppd has no reader */
		return;
	}
	if (e->state == IRNET_EP_UP) {
		set_state(e, IRNET_EP_FLUSHING, why);
		e->flush_deadline = eloop_now_us() + e->tm.drain_us;
		eloop_timer_arm_in(e->loop, &e->flush, 0);
		update_io(e);
		return;
	}
	eloop_timer_cancel(e->loop, &e->retry);
	if (e->state == IRNET_EP_FINDING || e->state == IRNET_EP_CONNECTING)
		cancel_attempt(e);
	if (e->stdio) {
		status_line_end(&e->sl, false, STATUS_CLOSED);
		end_for_good(e, why);
		return;
	}
	held_reset(&e->held);
	set_state(e, IRNET_EP_WAITING, why);
	listen_stop(e);
	update_io(e);
}

static void on_flush(struct eloop *loop, void *ctx)
{
	struct irnet_ep *e = ctx;

	if (e->state != IRNET_EP_FLUSHING)
		return;
	if (!e->t) {
		/* stdio, the peer gone: pppd did not read the rest in time */
		log_msg(e->log, LOG_LEVEL_INFO, "irnet %s: %zu bytes for pppd dropped", e->name,
			e->out_len - e->out_off);
		e->out_off = e->out_len = 0;
		end_for_good(e, "drain timeout");
		return;
	}
	if ((!held_push(e) || ttp_tx_pending(e->t) > 0) && eloop_now_us() < e->flush_deadline) {
		/* TinyTP has no event for "queue empty": look again shortly */
		eloop_timer_arm_in(loop, &e->flush, 10000);
		return;
	}
	ttp_disconnect(e->t);
	e->t = NULL;
	held_reset(&e->held);
	sync_stack(e);
	status_line_end(&e->sl, true, STATUS_CLOSED);
	after_connection(e, "flushed");
}

/* --- TinyTP ------------------------------------------------------------------ */

static void connection_up(struct irnet_ep *e, struct ttp *t, const char *event)
{
	const struct irlap_peer *p;

	eloop_timer_cancel(e->loop, &e->attempt);
	eloop_timer_cancel(e->loop, &e->retry);
	e->t = t;
	if (!e->daddr)
		e->daddr = e->link_peer;
	p = log_find(e, e->daddr);
	e->stats.connects++;
	set_state(e, IRNET_EP_UP, event);
	status_line_up(&e->sl, e->daddr, p ? p->info.nickname : NULL, p ? p->info.nickname_len : 0);
	log_msg(e->log, LOG_LEVEL_INFO, "irnet %s: PPP frames to %zu bytes", e->name,
		ttp_max_send(t));
	update_io(e);
	pump_from_peer(e);
	pump_to_peer(e);
}

static void connection_lost(struct irnet_ep *e, enum irlmp_reason reason)
{
	long n;
	enum status_reason r = status_reason_of_lmp(reason, true);

	/* keep what the peer sent before it went: pppd still gets it */
	while ((n = ttp_recv(e->t, e->sdu, IRNET_EP_MAX_SDU)) > 0)
		out_append(e, e->sdu, (size_t)n);
	e->t = NULL;
	if (e->held.at < e->held.n)
		e->stats.frames_dropped += e->held.n - e->held.at;
	held_reset(&e->held);
	status_line_end(&e->sl, true, r);
	after_connection(e, status_reason_word(r));
}

static void on_ttp(void *ctx, const struct ttp_event *ev)
{
	struct irnet_ep *e = ctx;

	if (ev->ttp != e->t) {
		/* a call on our listener */
		if (ev->type != TTP_EV_CONNECTED)
			return;
		if (e->state != IRNET_EP_LISTENING) {
			e->stats.refused++;
			log_msg(e->log, LOG_LEVEL_INFO, "irnet %s: a second call refused", e->name);
			ttp_disconnect(ev->ttp);
			sync_stack(e);
			return;
		}
		e->daddr = e->link_peer;
		connection_up(e, ev->ttp, "call");
		return;
	}
	switch (ev->type) {
	case TTP_EV_CONNECTED:
		if (e->state == IRNET_EP_CONNECTING)
			connection_up(e, ev->ttp, "connected");
		break;
	case TTP_EV_READABLE:
		if (e->state == IRNET_EP_UP && !e->writing)
			pump_from_peer(e);
		break;
	case TTP_EV_WRITABLE:
		if (e->state == IRNET_EP_UP && held_push(e))
			pump_to_peer(e);
		break;
	case TTP_EV_DISCONNECTED:
		if (e->state == IRNET_EP_CONNECTING) {
			e->t = NULL;
			attempt_failed(e, status_reason_of_lmp(ev->reason, false));
		} else if (e->state == IRNET_EP_UP) {
			connection_lost(e, ev->reason);
		} else if (e->state == IRNET_EP_FLUSHING) {
			e->t = NULL;
			status_line_end(&e->sl, true, status_reason_of_lmp(ev->reason, true));
			after_connection(e, "peer closed while flushing");
		}
		break;
	}
}

/* --- finding the peer ------------------------------------------------------ */

static bool peer_matches(const struct irnet_ep *e, const struct irlap_peer *p)
{
	switch (e->peer.kind) {
	case IRDAD_PEER_ADDRESS:
		return p->daddr == e->peer.address;
	case IRDAD_PEER_NICKNAME:
		return strlen(e->peer.nickname) == p->info.nickname_len &&
		       memcmp(e->peer.nickname, p->info.nickname, p->info.nickname_len) == 0;
	default:
		return true;
	}
}

static bool offers_lan(const struct irlap_peer *p)
{
	return (p->info.hints[0] & 0x40) != 0;
}

static void ask_next(struct irnet_ep *e);

static void connect_ttp(struct irnet_ep *e, uint8_t lsap)
{
	struct ttp_config tc;

	ttp_config_for(e, &tc);
	set_state(e, IRNET_EP_CONNECTING, "IAS answered");
	e->t = ttp_connect(stack_irlmp(e->stk), e->daddr, lsap, &tc, on_ttp, e, stack_now(e->stk));
	sync_stack(e);
	if (!e->t)
		attempt_failed(e, STATUS_BUSY); /* the link goes to another station */
}

static void on_ias(void *ctx, int ret, const struct ias_response *resp)
{
	struct irnet_ep *e = ctx;
	int lsap = ret == IAS_SUCCESS ? ias_lsap_sel(resp) : -1;

	e->q = NULL;
	if (lsap > 0) {
		connect_ttp(e, (uint8_t)lsap);
		return;
	}
	if (ret >= 0)
		e->saw_not_offered = true;
	else
		e->saw_no_answer = true;
	log_msg(e->log, LOG_LEVEL_INFO, "irnet %s: 0x%08x: %s", e->name, (unsigned)e->daddr,
		ret >= 0 ? "no " IRNET_EP_CLASS : "no IAS answer");
	ask_next(e);
}

static void ask_next(struct irnet_ep *e)
{
	if (e->at_cand >= e->ncand) {
		attempt_failed(e, e->saw_not_offered ? STATUS_NOT_OFFERED : STATUS_NO_ANSWER);
		return;
	}
	e->daddr = e->cand[e->at_cand++];
	e->q = ias_query_start(stack_irlmp(e->stk), e->daddr, IRNET_EP_CLASS, IRNET_EP_ATTR,
			       on_ias, e, stack_now(e->stk));
	sync_stack(e);
	if (!e->q)
		attempt_failed(e, STATUS_BUSY);
}

/* The candidates of a discovery (or the station the link is up with):
 * those the peer key allows, the ones announcing LAN access first. */
static void take_candidates(struct irnet_ep *e, const struct irlap_peer *peers, size_t n)
{
	e->ncand = e->at_cand = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++)
			if (peer_matches(e, &peers[i]) && offers_lan(&peers[i]) == (pass == 0))
				e->cand[e->ncand++] = peers[i].daddr;
}

static void discover(struct irnet_ep *e)
{
	int rc;

	if (irlmp_get_lap_state(stack_irlmp(e->stk)) != IRLMP_LAP_STANDBY) {
		const struct irlap_peer *p = log_find(e, e->link_peer);
		struct irlap_peer only = { .daddr = e->link_peer };
		/* IrLAP cannot discover while a link is up: the peer must be
		 * the station at the other end, or we wait for the link to go */
		if (e->link_peer && (p || e->peer.kind != IRDAD_PEER_NICKNAME)) {
			take_candidates(e, p ? p : &only, 1);
			if (e->ncand) {
				ask_next(e);
				return;
			}
		}
		e->wait_link_down = true;
		return;
	}
	rc = stack_lap_request(e->stk, &(struct irlap_request){ .type = IRLAP_REQ_DISCOVER,
								 .slots = 6 });
	if (rc < 0 && rc != -EBUSY) {
		attempt_failed(e, STATUS_DONGLE);
		return;
	}
	/* -EBUSY: someone else's discovery or connect; its result will do */
	e->discoveries++;
	e->wait_discovery = true;
}

static void find_start(struct irnet_ep *e)
{
	e->discoveries = 0;
	e->saw_not_offered = e->saw_no_answer = false;
	e->daddr = 0;
	eloop_timer_arm_in(e->loop, &e->attempt, e->tm.attempt_us);
	discover(e);
}

static void discovery_result(struct irnet_ep *e, const struct irlap_event *ev)
{
	if (!ev->failed) {
		e->nlog = 0;
		for (size_t i = 0; i < ev->npeers; i++)
			log_note(e, &ev->peers[i]);
	}
	if (e->state != IRNET_EP_FINDING || !e->wait_discovery)
		return;
	e->wait_discovery = false;
	take_candidates(e, ev->failed ? NULL : ev->peers, ev->failed ? 0 : ev->npeers);
	if (e->ncand) {
		ask_next(e);
		return;
	}
	if (e->discoveries < e->tm.discoveries) {
		discover(e);
		return;
	}
	attempt_failed(e, ev->failed && ev->reason == IRLAP_REASON_MEDIA_BUSY ? STATUS_BUSY : STATUS_NO_PEER);
}

static void on_attempt_timeout(struct eloop *loop, void *ctx)
{
	struct irnet_ep *e = ctx;
	(void)loop;
	if (e->state != IRNET_EP_FINDING && e->state != IRNET_EP_CONNECTING)
		return;
	attempt_failed(e, e->wait_link_down ? STATUS_BUSY :
			  e->state == IRNET_EP_FINDING && !e->ncand ? STATUS_NO_PEER : STATUS_NO_ANSWER);
}

static void call(struct irnet_ep *e, const char *event)
{
	set_state(e, IRNET_EP_FINDING, event);
	update_io(e);
	find_start(e);
}

static void on_retry(struct eloop *loop, void *ctx)
{
	struct irnet_ep *e = ctx;
	(void)loop;
	if (e->state == IRNET_EP_DOWN && (e->stdio || e->slave_open))
		call(e, "retry");
}

void irnet_ep_lap_event(struct irnet_ep *e, const struct irlap_event *ev)
{
	if (!e->started)
		return;
	switch (ev->type) {
	case IRLAP_EV_DISCOVERY:
		discovery_result(e, ev);
		break;
	case IRLAP_EV_DISCOVERED_BY:
		log_note(e, ev->peer);
		break;
	case IRLAP_EV_CONNECT_CONF:
	case IRLAP_EV_CONNECT_IND:
		e->link_peer = ev->daddr ? ev->daddr : ev->peer ? ev->peer->daddr : 0;
		if (e->state == IRNET_EP_FINDING && e->wait_link_down && !e->q) {
			e->wait_link_down = false;
			discover(e); /* the link may be to our peer */
		}
		break;
	case IRLAP_EV_DISCONNECT:
		e->link_peer = 0;
		if (e->state == IRNET_EP_FINDING && e->wait_link_down) {
			e->wait_link_down = false;
			discover(e);
		}
		break;
	default:
		break;
	}
}

void irnet_ep_port_back(struct irnet_ep *e)
{
	if (!e->started || e->stdio || e->role != IRDAD_ROLE_CALL || !e->slave_open ||
	    e->state != IRNET_EP_DOWN)
		return;
	eloop_timer_cancel(e->loop, &e->retry);
	call(e, "port back");
}

void irnet_ep_port_failed(struct irnet_ep *e)
{
	if (!e->started)
		return;
	switch (e->state) {
	case IRNET_EP_FINDING:
	case IRNET_EP_CONNECTING:
		attempt_failed(e, STATUS_DONGLE);
		break;
	case IRNET_EP_UP:
	case IRNET_EP_FLUSHING:
		if (e->t) {
			ttp_disconnect(e->t);
			e->t = NULL;
			sync_stack(e);
		}
		status_line_end(&e->sl, true, STATUS_DONGLE);
		after_connection(e, "port failed");
		break;
	default:
		if (e->stdio && e->state != IRNET_EP_ENDED) {
			status_line_end(&e->sl, false, STATUS_DONGLE);
			end_for_good(e, "port failed");
		}
		break;
	}
}

/* --- the pty and the loop's callbacks -------------------------------------- */

/* Whether pppd (anyone) has the slave open: the master reports POLLHUP
 * while nobody does. */
static bool slave_is_open(const struct irnet_ep *e)
{
	struct pollfd p = { .fd = e->in_fd, .events = POLLIN };
	struct timespec zero = { 0, 0 };

	if (ppoll(&p, 1, &zero, NULL) < 0)
		return false;
	return !(p.revents & POLLHUP);
}

static void pppd_arrived(struct irnet_ep *e)
{
	e->slave_open = true;
	ppp_hdlc_decoder_reset(e->dec);
	log_msg(e->log, LOG_LEVEL_INFO, "irnet %s: %s opened", e->name, e->slave_path);
	if (e->role == IRDAD_ROLE_LISTEN) {
		set_state(e, IRNET_EP_LISTENING, "pty opened");
		if (listen_start(e) < 0)
			log_msg(e->log, LOG_LEVEL_ERROR, "irnet %s: cannot listen", e->name);
		update_io(e);
	} else {
		call(e, "pty opened");
	}
}

static void on_watch(struct eloop *loop, void *ctx)
{
	struct irnet_ep *e = ctx;
	bool open = slave_is_open(e);
	(void)loop;

	if (open && !e->slave_open && e->state == IRNET_EP_WAITING)
		pppd_arrived(e);
	else if (!open && e->slave_open)
		local_closed(e, "pppd closed the pty");
	update_io(e);
	if (!e->reading && e->state != IRNET_EP_ENDED && !eloop_timer_pending(&e->watch))
		eloop_timer_arm_in(e->loop, &e->watch, e->tm.watch_us);
}

static void on_end(struct eloop *loop, void *ctx)
{
	struct irnet_ep *e = ctx;
	(void)loop;
	if (e->ended)
		e->ended(e->ended_ctx, e);
}

static void on_readable(struct eloop *loop, int fd, void *ctx)
{
	(void)loop;
	(void)fd;
	pump_to_peer(ctx);
}

static void on_writable(struct eloop *loop, int fd, void *ctx)
{
	struct irnet_ep *e = ctx;
	(void)loop;
	(void)fd;
	flush_out(e);
	if (e->state == IRNET_EP_UP)
		pump_from_peer(e);
	else
		update_io(e);
}

/* --- life ---------------------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	int e = errno ? errno : EINVAL;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}

static int ep_new(const struct irdad_endpoint *ep, const struct logger *log,
		  struct irnet_ep **out)
{
	struct irnet_ep *e = calloc(1, sizeof(*e));
	struct ppp_hdlc_decoder_config dc = { .max_frame = IRNET_EP_MAX_SDU, .log = log };

	if (!e)
		return -ENOMEM;
	snprintf(e->name, sizeof(e->name), "%s", ep->name);
	e->role = ep->role;
	e->peer = ep->peer;
	e->reconnect = ep->reconnect;
	e->in_fd = e->out_fd = -1;
	e->ias_obj = -1;
	e->log = log;
	char who[sizeof(e->sl.who)];
	snprintf(who, sizeof(who), "irnet %s", ep->name);
	status_line_init(&e->sl, log, who);
	irnet_ep_timing_defaults(&e->tm);
	/* Every control character escaped towards pppd: its receive ACCM is
	 * negotiated with the peer, end to end, out of our sight, and an
	 * escaped byte is accepted whatever the map (docs/irdad.md). */
	ppp_hdlc_encoder_init(&e->enc, PPP_HDLC_ACCM_ALL);
	dc.on_frame = on_frame;
	dc.ctx = e;
	e->dec = ppp_hdlc_decoder_new(&dc);
	e->sdu = malloc(IRNET_EP_MAX_SDU);
	if (!e->dec || !e->sdu) {
		ppp_hdlc_decoder_free(e->dec);
		free(e->sdu);
		free(e);
		return -ENOMEM;
	}
	eloop_timer_init(&e->attempt, on_attempt_timeout, e);
	eloop_timer_init(&e->retry, on_retry, e);
	eloop_timer_init(&e->watch, on_watch, e);
	eloop_timer_init(&e->flush, on_flush, e);
	eloop_timer_init(&e->end, on_end, e);
	*out = e;
	return 0;
}

/* Points path at target: an existing symbolic link is replaced (through
 * a temporary link and rename, so the path is never missing), anything
 * else is left alone. */
static int make_link(const char *target, const char *path, char *err, size_t errlen)
{
	char tmp[IRDAD_PATH_MAX + 16], dir[IRDAD_PATH_MAX];
	struct stat st;
	const char *slash = strrchr(path, '/');

	errno = 0;
	if (path[0] != '/' || !slash[1] || (size_t)(slash - path) >= sizeof(dir))
		return fail(err, errlen, "%s: not an absolute path to a file", path);
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (dir[0] && mkdir(dir, 0755) < 0 && errno != EEXIST)
		return fail(err, errlen, "%s: cannot make the directory: %s", dir, strerror(errno));
	if (lstat(path, &st) == 0 && !S_ISLNK(st.st_mode)) {
		errno = EEXIST;
		return fail(err, errlen, "%s: exists and is not a symbolic link; not replaced", path);
	}
	snprintf(tmp, sizeof(tmp), "%s.%ld~", path, (long)getpid());
	unlink(tmp);
	if (symlink(target, tmp) < 0)
		return fail(err, errlen, "%s: cannot make the link: %s", tmp, strerror(errno));
	if (rename(tmp, path) < 0) {
		int saved = errno;
		unlink(tmp);
		errno = saved;
		return fail(err, errlen, "%s: cannot make the link: %s", path, strerror(errno));
	}
	return 0;
}

int irnet_ep_open_pty(const struct irdad_endpoint *ep, const struct logger *log,
		      struct irnet_ep **out, char *err, size_t errlen)
{
	struct irnet_ep *e;
	struct termios tio;
	struct stat st;
	int master, slave, rc;

	if (ep->service != IRDAD_SVC_IRNET || !ep->pty_link[0]) {
		snprintf(err, errlen, "%s: not an irnet endpoint with a pty", ep->name);
		return -EINVAL;
	}
	rc = ep_new(ep, log, &e);
	if (rc < 0) {
		snprintf(err, errlen, "irnet %s: out of memory", ep->name);
		return rc;
	}
	errno = 0;
	if (openpty(&master, &slave, NULL, NULL, NULL) < 0) {
		rc = fail(err, errlen, "irnet %s: openpty: %s", ep->name, strerror(errno));
		irnet_ep_free(e);
		return rc;
	}
	/* raw both ways: the bytes are HDLC, nothing may be translated
	 * before pppd sets its own modes */
	if (tcgetattr(slave, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(slave, TCSANOW, &tio);
	}
	snprintf(e->slave_path, sizeof(e->slave_path), "%s", ptsname(master));
	if (fstat(slave, &st) == 0)
		e->slave_rdev = st.st_rdev;
	close(slave);
	e->in_fd = e->out_fd = master;
	if (fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK) < 0 ||
	    fcntl(master, F_SETFD, FD_CLOEXEC) < 0) {
		rc = fail(err, errlen, "irnet %s: pty: %s", ep->name, strerror(errno));
		irnet_ep_free(e);
		return rc;
	}
	snprintf(e->link, sizeof(e->link), "%s", ep->pty_link);
	rc = make_link(e->slave_path, e->link, err, errlen);
	if (rc < 0) {
		e->link[0] = '\0';
		irnet_ep_free(e);
		return rc;
	}
	log_msg(log, LOG_LEVEL_INFO, "irnet %s: %s -> %s", e->name, e->link, e->slave_path);
	*out = e;
	return 0;
}

int irnet_ep_open_fds(const struct irdad_endpoint *ep, int in_fd, int out_fd,
		      const struct logger *log, struct irnet_ep **out, char *err, size_t errlen)
{
	struct irnet_ep *e;
	struct stat st;
	int rc;

	if (in_fd < 0 || out_fd < 0) {
		snprintf(err, errlen, "irnet %s: no descriptor", ep->name);
		return -EBADF;
	}
	rc = ep_new(ep, log, &e);
	if (rc < 0) {
		snprintf(err, errlen, "irnet %s: out of memory", ep->name);
		return rc;
	}
	e->stdio = true;
	e->reconnect = false;
	e->in_fd = in_fd;
	e->out_fd = out_fd;
	e->out_is_socket = fstat(out_fd, &st) == 0 && S_ISSOCK(st.st_mode);
	errno = 0;
	if (fcntl(in_fd, F_SETFL, fcntl(in_fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    fcntl(out_fd, F_SETFL, fcntl(out_fd, F_GETFL) | O_NONBLOCK) < 0) {
		rc = fail(err, errlen, "irnet %s: descriptors: %s", ep->name, strerror(errno));
		e->in_fd = e->out_fd = -1; /* the caller's still */
		irnet_ep_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

void irnet_ep_set_status_fd(struct irnet_ep *e, int fd)
{
	status_line_set_fd(&e->sl, fd);
}

void irnet_ep_set_ended(struct irnet_ep *e, void (*ended)(void *ctx, struct irnet_ep *e),
			void *ctx)
{
	e->ended = ended;
	e->ended_ctx = ctx;
}

void irnet_ep_set_timing(struct irnet_ep *e, const struct irnet_ep_timing *t)
{
	e->tm = *t;
}

int irnet_ep_start(struct irnet_ep *e, struct eloop *loop, struct stack *stk, char *err,
		   size_t errlen)
{
	int rc;

	if (e->started) {
		snprintf(err, errlen, "irnet %s: started twice", e->name);
		return -EALREADY;
	}
	e->loop = loop;
	e->stk = stk;
	e->started = true;
	e->state = IRNET_EP_WAITING;
	if (!e->stdio) {
		if (slave_is_open(e))
			pppd_arrived(e);
		update_io(e);
		return 0;
	}
	if (e->role == IRDAD_ROLE_CALL) {
		call(e, "start");
		return 0;
	}
	rc = listen_start(e);
	if (rc < 0) {
		snprintf(err, errlen, "irnet %s: cannot register %s: %s", e->name, IRNET_EP_CLASS,
			 strerror(-rc));
		return rc;
	}
	set_state(e, IRNET_EP_LISTENING, "start");
	status_line_write(&e->sl, "listening");
	update_io(e);
	return 0;
}

/* Our own unlink first; refused (a directory of root's, and we dropped
 * root since we made the link there), the remover set by
 * irnet_ep_set_link_remover, which kept root.  Every failure is logged
 * with the path: a link left behind leads pppd to a pty that is gone. */
static void remove_link(struct irnet_ep *e)
{
	int err, r;

	if (unlink(e->link) == 0)
		return;
	err = errno;
	if ((err != EACCES && err != EPERM) || !e->remove_link) {
		log_msg(e->log, LOG_LEVEL_WARNING, "irnet %s: removing %s: %s", e->name, e->link,
			strerror(err));
		return;
	}
	r = e->remove_link(e->remove_ctx, e->remove_index);
	if (r < 0)
		log_msg(e->log, LOG_LEVEL_WARNING,
			"irnet %s: removing %s: %s, and the privileged helper could not either: %s",
			e->name, e->link, strerror(err), strerror(-r));
	else
		log_msg(e->log, LOG_LEVEL_DEBUG,
			"irnet %s: %s removed by the privileged helper (the directory is not ours)",
			e->name, e->link);
}

void irnet_ep_set_link_remover(struct irnet_ep *e, int (*remove)(void *ctx, size_t index),
			       void *ctx, size_t index)
{
	e->remove_link = remove;
	e->remove_ctx = ctx;
	e->remove_index = index;
}

const char *irnet_ep_link(const struct irnet_ep *e)
{
	return e->link[0] ? e->link : NULL;
}

void irnet_ep_free(struct irnet_ep *e)
{
	struct stat st;

	if (!e)
		return;
	if (e->started) {
		cancel_attempt(e);
		if (e->t) {
			ttp_disconnect(e->t);
			e->t = NULL;
		}
		listen_stop(e);
		e->started = false;
		update_io(e);
		eloop_timer_cancel(e->loop, &e->retry);
		eloop_timer_cancel(e->loop, &e->watch);
		eloop_timer_cancel(e->loop, &e->flush);
		eloop_timer_cancel(e->loop, &e->end);
		sync_stack(e);
	}
	/* the link, if it still leads to our pty (a later irdad may have
	 * replaced it); a dropped process may not be allowed: then the
	 * remover, or else the next start replaces it */
	if (e->link[0] && stat(e->link, &st) == 0 && st.st_rdev == e->slave_rdev)
		remove_link(e);
	if (e->in_fd >= 0)
		close(e->in_fd);
	if (e->out_fd >= 0 && e->out_fd != e->in_fd)
		close(e->out_fd);
	ppp_hdlc_decoder_free(e->dec);
	free(e->held.buf);
	free(e->held.len);
	free(e->out);
	free(e->sdu);
	free(e);
}

enum irnet_ep_state irnet_ep_state(const struct irnet_ep *e)
{
	return e->state;
}

const char *irnet_ep_name(const struct irnet_ep *e)
{
	return e->name;
}

const char *irnet_ep_pty_path(const struct irnet_ep *e)
{
	return e->slave_path;
}

uint32_t irnet_ep_peer(const struct irnet_ep *e)
{
	return e->state == IRNET_EP_UP ? e->daddr : 0;
}

const struct irnet_ep_stats *irnet_ep_get_stats(const struct irnet_ep *e)
{
	return &e->stats;
}

const struct ppp_hdlc_rx_counters *irnet_ep_hdlc_counters(const struct irnet_ep *e)
{
	return ppp_hdlc_decoder_counters(e->dec);
}
