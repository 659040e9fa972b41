/*
 * test_irlap.c: one IrLAP station driven frame by frame, with the
 * frames it sends and the events it delivers checked against the
 * protocol (irda-digest.md section 4 and the vectors of section 11).
 * Two stations over the emulated wire are tested in test_sim.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "irlap.h"
#include "irlap_frame.h"
#include "irlap_vectors.h"
#include "log.h"
#include "test_support.h"
#include "sir.h"
#include "cursor.h"

#define OURS VEC_OURS
#define PEER VEC_PEER
#define MAX_SENT 256
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_EVENTS 64

struct sent {
	uint8_t frame[IRLAP_MAX_DATA + 16];
	size_t len;
	struct irlap_txinfo tx;
	uint64_t at;
};

struct event {
	enum irlap_ev_type type;
	enum irlap_reason reason;
	enum irlap_status status;
	uint8_t data[IRLAP_MAX_DATA];
	size_t len;
	size_t npeers;
	struct irlap_peer peers[IRLAP_MAX_PEERS];
	uint32_t daddr;
	bool primary;
	struct qos_result qos;
	uint64_t at;
};

struct h {
	struct irlap *st;
	uint64_t now;
	struct sent sent[MAX_SENT];
	size_t nsent;
	struct event ev[MAX_EVENTS];
	size_t nev;
	uint32_t speed;
	unsigned speed_calls;
	bool accept;              /* answer CONNECT_IND with ACCEPT */
	const uint8_t *pull_data; /* pull source */
	size_t pull_len, pull_pos;
	size_t pull_chunk;        /* nonzero: the source gives only whole chunks of this size */
	char log[8192];
	size_t log_len;
	struct logger logger;
};

static void on_send(void *ctx, const uint8_t *frame, size_t len, const struct irlap_txinfo *tx)
{
	struct h *h = ctx;
	struct sent *s;

	assert_true(h->nsent < MAX_SENT);
	s = &h->sent[h->nsent++];
	assert_true(len <= sizeof(s->frame));
	memcpy(s->frame, frame, len);
	s->len = len;
	s->tx = *tx;
	s->at = h->now;
}

static void on_speed(void *ctx, uint32_t baud)
{
	struct h *h = ctx;
	h->speed = baud;
	h->speed_calls++;
}

static void on_event(void *ctx, const struct irlap_event *ev)
{
	struct h *h = ctx;
	struct event *e;

	assert_true(h->nev < MAX_EVENTS);
	e = &h->ev[h->nev++];
	memset(e, 0, sizeof(*e));
	e->type = ev->type;
	e->reason = ev->reason;
	e->status = ev->status;
	e->daddr = ev->daddr;
	e->primary = ev->primary;
	e->at = h->now;
	if (ev->data && ev->len <= sizeof(e->data)) {
		memcpy(e->data, ev->data, ev->len);
		e->len = ev->len;
	}
	if (ev->peers) {
		e->npeers = ev->npeers;
		memcpy(e->peers, ev->peers, ev->npeers * sizeof(ev->peers[0]));
	}
	if (ev->peer) {
		e->npeers = 1;
		e->peers[0] = *ev->peer;
	}
	if (ev->qos)
		e->qos = *ev->qos;
	if (ev->type == IRLAP_EV_CONNECT_IND && h->accept) {
		struct irlap_request r = { .type = IRLAP_REQ_ACCEPT };
		assert_int_equal(irlap_request(h->st, &r, h->now), 0);
	}
}

static size_t on_pull(void *ctx, uint8_t *buf, size_t max)
{
	struct h *h = ctx;
	size_t n = h->pull_len - h->pull_pos;

	if (h->pull_chunk) {
		if (max < h->pull_chunk)
			return 0;
		max = h->pull_chunk;
	}
	if (n > max)
		n = max;
	memcpy(buf, h->pull_data + h->pull_pos, n);
	h->pull_pos += n;
	return n;
}

static void on_log(void *ctx, enum log_level level, const char *msg)
{
	struct h *h = ctx;
	int n = snprintf(h->log + h->log_len, sizeof(h->log) - h->log_len, "%s\n", msg);

	if (n > 0 && h->log_len + (size_t)n < sizeof(h->log))
		h->log_len += (size_t)n;
}

/* The data-transfer features under bit errors, on or off (docs/irnet-irlap.md). */
struct features {
	bool fixed_size, no_srej, no_early_poll;
};

static struct h *make_with(uint32_t daddr, uint64_t seed, uint32_t min_tat_us, bool with_pull,
			   struct features x)
{
	struct h *h = calloc(1, sizeof(*h));
	struct irlap_config cfg;
	struct irlap_ops ops = { .send_frame = on_send, .set_speed = on_speed,
				 .deliver = on_event, .pull = with_pull ? on_pull : NULL };

	assert_non_null(h);
	h->logger = (struct logger){ .sink = on_log, .ctx = h, .max = LOG_LEVEL_DEBUG };
	irlap_config_defaults(&cfg, 115200, min_tat_us);
	cfg.daddr = daddr;
	cfg.seed = seed;
	cfg.info = (struct irlap_discovery_info){ .hints = { 0x04 }, .nhints = 1, .nickname_len = 4 };
	memcpy(cfg.info.nickname, "test", 4);
	cfg.log = &h->logger;
	cfg.adapt_frame_size = !x.fixed_size;
	cfg.send_srej = !x.no_srej;
	cfg.repoll_quiet_us = x.no_early_poll ? 0 : IRLAP_REPOLL_QUIET_US;
	h->st = irlap_new(&cfg, &ops, h);
	assert_non_null(h->st);
	h->speed = 9600;
	h->accept = true;
	return h;
}

static struct h *make(uint32_t daddr, uint64_t seed, uint32_t min_tat_us, bool with_pull)
{
	return make_with(daddr, seed, min_tat_us, with_pull, (struct features){ 0 });
}

static void destroy(struct h *h)
{
	irlap_free(h->st);
	free(h);
}

static void input(struct h *h, const uint8_t *frame, size_t len)
{
	irlap_input(h->st, frame, len, h->now);
}

/* Runs timers until time t. */
static void run_until(struct h *h, uint64_t t)
{
	for (;;) {
		uint64_t d = irlap_deadline(h->st);
		if (d > t)
			break;
		if (d > h->now)
			h->now = d;
		irlap_tick(h->st, h->now);
	}
	h->now = t;
}

static const struct sent *last_sent(const struct h *h)
{
	assert_true(h->nsent > 0);
	return &h->sent[h->nsent - 1];
}

static const struct event *find_event(const struct h *h, enum irlap_ev_type t)
{
	for (size_t i = 0; i < h->nev; i++)
		if (h->ev[i].type == t)
			return &h->ev[i];
	return NULL;
}

static size_t count_events(const struct h *h, enum irlap_ev_type t)
{
	size_t n = 0;
	for (size_t i = 0; i < h->nev; i++)
		n += h->ev[i].type == t;
	return n;
}

static struct irlap_frame parse_sent(const struct sent *s)
{
	struct irlap_frame f;
	assert_int_equal(irlap_frame_parse(s->frame, s->len, &f), 0);
	return f;
}

static void xid_cmd(uint8_t *buf, size_t *len, uint32_t from, uint8_t slot, bool final,
		    bool new_addr)
{
	struct irlap_xid x = { .cmd = true, .saddr = from, .daddr = IRLAP_BROADCAST_DADDR,
			       .slots = 6, .slot = final ? 0xff : slot, .new_addr = new_addr,
			       .has_info = final };
	if (final) {
		x.info = (struct irlap_discovery_info){ .hints = { 0x84, 0x04 }, .nhints = 2,
							.nickname_len = 5 };
		memcpy(x.info.nickname, "Linux", 5);
	}
	*len = irlap_xid_build(buf, 64, &x);
}

/* ---- discovery --------------------------------------------------------- */

static void answers_discovery_once_in_its_chosen_slot(void **state)
{
	unsigned slot_seen[6] = { 0 };

	for (uint64_t seed = 1; seed <= 24; seed++) {
		struct h *h = make(PEER, seed, 1000, false);
		uint8_t buf[64];
		size_t len;
		int replied_at = -1;

		for (uint8_t s = 0; s < 6; s++) {
			size_t before = h->nsent;
			xid_cmd(buf, &len, OURS, s, false, false);
			input(h, buf, len);
			if (h->nsent > before) {
				struct irlap_frame f = parse_sent(last_sent(h));
				struct irlap_xid x;

				assert_int_equal(replied_at, -1); /* only one answer */
				assert_int_equal(f.type, IRLAP_F_XID_RSP);
				assert_int_equal(irlap_xid_parse(&f, &x), 0);
				assert_int_equal(x.slot, s);
				assert_int_equal(x.saddr, PEER);
				assert_int_equal(x.daddr, OURS);
				assert_true(x.has_info);
				assert_memory_equal(x.info.nickname, "test", 4);
				assert_int_equal(last_sent(h)->tx.baud, 9600);
				assert_int_equal(last_sent(h)->tx.xbofs, 12);
				replied_at = s;
			}
			assert_int_equal(irlap_get_state(h->st), IRLAP_REPLY);
			h->now += 90000;
		}
		assert_true(replied_at >= 0);
		slot_seen[replied_at]++;
		xid_cmd(buf, &len, OURS, 0, true, false);
		input(h, buf, len);
		assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
		const struct event *e = find_event(h, IRLAP_EV_DISCOVERED_BY);
		assert_non_null(e);
		assert_int_equal(e->daddr, OURS);
		assert_int_equal(e->peers[0].info.nhints, 2);
		assert_int_equal(e->peers[0].info.hints[1], 0x04);
		assert_memory_equal(e->peers[0].info.nickname, "Linux", 5);
		destroy(h);
	}
	/* The choice is random (from the seed): more than one slot used. */
	unsigned used = 0;
	for (int i = 0; i < 6; i++)
		used += slot_seen[i] > 0;
	assert_true(used >= 3);
}

static void query_timer_returns_responder_to_ndm(void **state)
{
	struct h *h = make(PEER, 7, 1000, false);
	uint8_t buf[64];
	size_t len;

	xid_cmd(buf, &len, OURS, 0, false, false);
	input(h, buf, len);
	assert_int_equal(irlap_get_state(h->st), IRLAP_REPLY);
	/* (6 - 0) x 90 ms + 34 + 100 ms */
	assert_int_equal(irlap_deadline(h->st), 6 * 90000 + 134000);
	run_until(h, 10000000);
	assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
	destroy(h);
}

static void discovers_as_initiator(void **state)
{
	struct h *h = make(OURS, 3, 1000, false);
	struct irlap_request r = { .type = IRLAP_REQ_DISCOVER, .slots = 6 };
	struct irlap_xid x;
	uint8_t rsp[64];
	size_t n;

	assert_int_equal(irlap_request(h->st, &r, 0), 0);
	assert_int_equal(irlap_get_state(h->st), IRLAP_QUERY);
	assert_int_equal(h->nsent, 1);
	/* The digest's 11.2 XID command, byte for byte. */
	static const uint8_t xid0[] = { 0xff, 0x3f, 0x01, 0x78, 0x56, 0x34, 0x12, 0xff, 0xff,
					0xff, 0xff, 0x01, 0x00, 0x00 };
	assert_int_equal(h->sent[0].len, sizeof(xid0));
	assert_memory_equal(h->sent[0].frame, xid0, sizeof(xid0));
	/* Slot timer: 90 ms after the frame has left (32 bytes at 9600). */
	assert_int_equal(irlap_deadline(h->st), (30 * 10 * 1000000 + 9599) / 9600 + 90000);

	run_until(h, 250000); /* into slot 2 */
	assert_int_equal(h->nsent, 3);
	x = (struct irlap_xid){ .cmd = false, .saddr = PEER, .daddr = OURS, .slots = 6, .slot = 2,
				.has_info = true };
	x.info = (struct irlap_discovery_info){ .hints = { 0x82, 0x04 }, .nhints = 2, .nickname_len = 5 };
	memcpy(x.info.nickname, "Phone", 5);
	n = irlap_xid_build(rsp, sizeof(rsp), &x);
	input(h, rsp, n);
	/* A response for another initiator is not ours. */
	x.daddr = 0x01020304;
	x.saddr = 0x55555555;
	n = irlap_xid_build(rsp, sizeof(rsp), &x);
	input(h, rsp, n);
	run_until(h, 2000000);
	assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
	assert_int_equal(h->nsent, 7); /* 6 slots + final */
	struct irlap_frame f = parse_sent(&h->sent[6]);
	assert_int_equal(irlap_xid_parse(&f, &x), 0);
	assert_int_equal(x.slot, 0xff);
	assert_true(x.has_info);
	assert_memory_equal(x.info.nickname, "test", 4);
	const struct event *e = find_event(h, IRLAP_EV_DISCOVERY);
	assert_non_null(e);
	assert_int_equal(e->npeers, 1);
	assert_int_equal(e->peers[0].daddr, PEER);
	assert_int_equal(e->peers[0].info.nickname_len, 5);
	assert_memory_equal(e->peers[0].info.nickname, "Phone", 5);
	assert_int_equal(e->peers[0].info.hints[0], 0x82);
	destroy(h);
}

/* A DISCOVER made while ours runs is answered by the running round: no
 * second round after the final XID, and a connect made on the result is
 * taken at once (queued, the second round made it -EBUSY). */
static void discovery_request_during_ours_is_served_by_it(void **state)
{
	struct h *h = make(OURS, 3, 1000, false);
	struct irlap_request r = { .type = IRLAP_REQ_DISCOVER, .slots = 6 };
	struct irlap_request c = { .type = IRLAP_REQ_CONNECT, .daddr = PEER };

	(void)state;
	assert_int_equal(irlap_request(h->st, &r, 0), 0);
	run_until(h, 250000);
	assert_int_equal(irlap_get_state(h->st), IRLAP_QUERY);
	assert_int_equal(irlap_request(h->st, &r, 250000), 0);
	run_until(h, 2000000);
	assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
	assert_int_equal(h->nsent, 7); /* one round: 6 slots + final */
	assert_non_null(find_event(h, IRLAP_EV_DISCOVERY));
	run_until(h, 5000000);
	assert_int_equal(h->nsent, 7); /* and no second one later */
	assert_int_equal(irlap_request(h->st, &c, 5000000), 0);
	run_until(h, 5100000);
	assert_int_equal(irlap_get_state(h->st), IRLAP_SETUP);
	destroy(h);
}

/* irlap_set_hints: what the next discovery announces (irdad's HINTS). */
static void announces_the_hints_set_later(void **state)
{
	(void)state;
	struct h *h = make(OURS, 3, 1000, false);
	struct irlap_request r = { .type = IRLAP_REQ_DISCOVER, .slots = 6 };
	struct irlap_xid x;
	uint8_t got[2];

	assert_int_equal(irlap_get_hints(h->st, got), 1);
	assert_int_equal(got[0], 0x04);
	irlap_set_hints(h->st, (const uint8_t[]){ 0x84, 0x20 }, 2);
	assert_int_equal(irlap_get_hints(h->st, got), 2);
	assert_int_equal(got[0], 0x84);
	assert_int_equal(got[1], 0x20);
	irlap_set_hints(h->st, (const uint8_t[]){ 0x84, 0x20 }, 3); /* not taken */
	assert_int_equal(irlap_get_hints(h->st, got), 2);
	assert_int_equal(irlap_request(h->st, &r, 0), 0);
	run_until(h, 2000000);
	assert_int_equal(h->nsent, 7); /* 6 slots + the final one, with our info */
	struct irlap_frame f = parse_sent(&h->sent[6]);
	assert_int_equal(irlap_xid_parse(&f, &x), 0);
	assert_true(x.has_info);
	assert_int_equal(x.info.nhints, 2);
	assert_int_equal(x.info.hints[0], 0x84);
	assert_int_equal(x.info.hints[1], 0x20);
	/* back to one byte */
	irlap_set_hints(h->st, (const uint8_t[]){ 0x04 }, 1);
	assert_int_equal(irlap_get_hints(h->st, got), 1);
	assert_int_equal(got[0], 0x04);
	destroy(h);
}

static void address_conflict_runs_a_new_address_round(void **state)
{
	struct h *h = make(OURS, 3, 1000, false);
	struct h *r = make(PEER, 5, 1000, false);
	struct irlap_request req = { .type = IRLAP_REQ_DISCOVER, .slots = 6 };
	struct irlap_xid x = { .cmd = false, .saddr = PEER, .daddr = OURS, .slots = 6,
			       .has_info = true, .info = { .nhints = 1 } };
	uint8_t rsp[64];
	size_t n;

	assert_int_equal(irlap_request(h->st, &req, 0), 0);
	/* Two devices answer with the same address. */
	x.slot = 0;
	n = irlap_xid_build(rsp, sizeof(rsp), &x);
	input(h, rsp, n);
	run_until(h, 150000);
	x.slot = 1;
	n = irlap_xid_build(rsp, sizeof(rsp), &x);
	input(h, rsp, n);
	run_until(h, 800000);
	/* No result yet: a new round asking for new addresses began. */
	assert_null(find_event(h, IRLAP_EV_DISCOVERY));
	assert_int_equal(irlap_get_state(h->st), IRLAP_QUERY);
	struct irlap_frame f = parse_sent(last_sent(h));
	assert_int_equal(irlap_xid_parse(&f, &x), 0);
	assert_true(x.new_addr);
	assert_int_equal(x.slot, 0);
	/* A responder seeing the flag draws a new address and answers with it. */
	input(r, last_sent(h)->frame, last_sent(h)->len);
	const struct event *e = find_event(r, IRLAP_EV_ADDRESS_CHANGED);
	assert_non_null(e);
	assert_int_not_equal(e->daddr, PEER);
	assert_int_equal(irlap_get_daddr(r->st), e->daddr);
	run_until(h, 2000000);
	assert_non_null(find_event(h, IRLAP_EV_DISCOVERY));
	destroy(h);
	destroy(r);
}

/* ---- connection -------------------------------------------------------- */

static void connect_secondary(struct h *h)
{
	input(h, vec_snrm, sizeof(vec_snrm));
	assert_int_equal(irlap_get_state(h->st), IRLAP_NRM_S);
}

static void accepts_snrm_and_switches_speed_after_ua(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	struct irlap_frame f;
	struct irlap_connect_info ci;

	h->accept = false;
	input(h, vec_snrm, sizeof(vec_snrm));
	assert_int_equal(irlap_get_state(h->st), IRLAP_CONN);
	assert_non_null(find_event(h, IRLAP_EV_CONNECT_IND));
	assert_int_equal(h->nsent, 0);
	struct irlap_request acc = { .type = IRLAP_REQ_ACCEPT };
	assert_int_equal(irlap_request(h->st, &acc, h->now), 0);
	assert_int_equal(h->nsent, 1);
	f = parse_sent(&h->sent[0]);
	assert_int_equal(f.type, IRLAP_F_UA);
	assert_int_equal(h->sent[0].frame[0], 0x5a);
	assert_int_equal(h->sent[0].frame[1], 0x73);
	assert_int_equal(irlap_ua_parse(&f, &ci), 0);
	assert_int_equal(ci.saddr, PEER);
	assert_int_equal(ci.daddr, OURS);
	assert_int_equal(ci.qos.baud, 0x3e);
	assert_int_equal(ci.qos.min_tat, 0x07); /* 10, 5, 1 ms: we need 1 ms */
	/* UA at 9600, the switch to 115200 after it has left. */
	assert_int_equal(h->sent[0].tx.baud, 9600);
	assert_int_equal(h->sent[0].tx.speed_after, 115200);
	assert_int_equal(h->speed_calls, 0);
	assert_int_equal(irlap_get_state(h->st), IRLAP_NRM_S);
	assert_int_equal(irlap_get_baud(h->st), 115200);
	const struct event *e = find_event(h, IRLAP_EV_CONNECT_CONF);
	assert_non_null(e);
	assert_false(e->primary);
	assert_int_equal(e->qos.baud, 115200);
	assert_int_equal(e->qos.tx_min_tat_us, 5000);

	/* The first RR(P) at the new speed: RR(F) back, with 5 ms of padding. */
	static const uint8_t rr_p[] = { 0x5b, 0x11 };
	input(h, rr_p, 2);
	assert_int_equal(h->nsent, 2);
	assert_int_equal(h->sent[1].len, 2);
	assert_int_equal(h->sent[1].frame[0], 0x5a);
	assert_int_equal(h->sent[1].frame[1], 0x11);
	assert_int_equal(h->sent[1].tx.baud, 115200);
	assert_int_equal(h->sent[1].tx.xbofs, 58);
	assert_non_null(strstr(h->log, "NDM --SNRM--> CONN"));
	assert_non_null(strstr(h->log, "CONN --accept: UA--> NRM_S"));
	destroy(h);
}

static void ignores_snrm_not_for_us(void **state)
{
	struct h *h = make(0x01020304, 1, 1000, false);
	uint8_t buf[sizeof(vec_snrm)];

	input(h, vec_snrm, sizeof(vec_snrm)); /* for PEER, not us */
	input(h, vec_snrm, 2);                /* no I-field */
	memcpy(buf, vec_snrm, sizeof(buf));
	buf[6] = 0x04; buf[7] = 0x03; buf[8] = 0x02; buf[9] = 0x01;
	assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
	assert_int_equal(h->nsent, 0);
	assert_int_equal(h->nev, 0);
	/* For us, but the QoS list is cut: refused (DM), the user not asked. */
	input(h, buf, sizeof(buf) - 2);
	assert_int_equal(h->nsent, 1);
	assert_int_equal(parse_sent(&h->sent[0]).type, IRLAP_F_DM);
	assert_int_equal(h->nev, 0);
	input(h, buf, sizeof(buf));
	assert_int_equal(irlap_get_state(h->st), IRLAP_NRM_S);
	destroy(h);
}

static void rejecting_sends_dm(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	struct irlap_request rej = { .type = IRLAP_REQ_REJECT };

	h->accept = false;
	input(h, vec_snrm, sizeof(vec_snrm));
	assert_int_equal(irlap_request(h->st, &rej, h->now), 0);
	assert_int_equal(h->nsent, 1);
	assert_int_equal(h->sent[0].frame[0], 0x5a);
	assert_int_equal(h->sent[0].frame[1], 0x1f);
	assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
	destroy(h);
}

static uint8_t connect_primary(struct h *h)
{
	struct irlap_request r = { .type = IRLAP_REQ_CONNECT, .daddr = PEER };
	uint8_t ua[sizeof(vec_ua)];
	uint8_t caddr;

	assert_int_equal(irlap_request(h->st, &r, h->now), 0);
	assert_int_equal(irlap_get_state(h->st), IRLAP_SETUP);
	caddr = h->sent[h->nsent - 1].frame[10] >> 1;
	memcpy(ua, vec_ua, sizeof(ua));
	ua[0] = (uint8_t)(caddr << 1);
	h->now += 100000;
	input(h, ua, sizeof(ua));
	/* The first poll waits for the peer's speed switch: run to it. */
	if (irlap_get_state(h->st) == IRLAP_XMIT_P) {
		h->now = irlap_deadline(h->st);
		irlap_tick(h->st, h->now);
	}
	return caddr;
}

/* Line time of the UA of connect_primary() at 9600 with 12 XBOFs. */
static uint64_t ua_line_us(uint8_t caddr)
{
	uint8_t ua[sizeof(vec_ua)], buf[2 * sizeof(vec_ua) + 32];
	struct wcursor w;
	int n;

	memcpy(ua, vec_ua, sizeof(ua));
	ua[0] = (uint8_t)(caddr << 1);
	wcursor_init(&w, buf, sizeof(buf));
	n = sir_encode(&w, ua, sizeof(ua), 12);
	assert_true(n > 0);
	return sir_line_time_us(9600, (uint64_t)n);
}

static void connects_as_primary_with_digest_negotiation(void **state)
{
	struct h *h = make(OURS, 9, 5000, false);
	uint8_t caddr = connect_primary(h);
	struct irlap_frame f;
	struct irlap_connect_info ci;

	/* The SNRM is the digest's, except for the random connection address. */
	f = parse_sent(&h->sent[0]);
	assert_int_equal(f.type, IRLAP_F_SNRM);
	assert_int_equal(irlap_snrm_parse(&f, &ci), 0);
	assert_int_equal(h->sent[0].len, sizeof(vec_snrm));
	assert_memory_equal(h->sent[0].frame, vec_snrm, 10);
	assert_memory_equal(h->sent[0].frame + 11, vec_snrm + 11, sizeof(vec_snrm) - 11);
	assert_true(caddr >= 1 && caddr <= 0x7e);
	assert_int_equal(h->sent[0].tx.baud, 9600);

	/* UA: speed switched at once, RR(P) at 115200 after the peer's 5 ms
	 * and once a Linux peer can have switched: its BOF arrives 64 ms
	 * after the UA's first byte (60 ms + a 4 ms tick, digest 2.8) + 2
	 * byte times at 115200 (and no later than that, to the us). */
	assert_int_equal(h->speed, 115200);
	assert_int_equal(h->speed_calls, 1);
	assert_int_equal(h->nsent, 2);
	assert_int_equal(h->sent[1].frame[0], (uint8_t)(caddr << 1 | 1));
	assert_int_equal(h->sent[1].frame[1], 0x11);
	assert_int_equal(h->sent[1].tx.baud, 115200);
	assert_int_equal(h->sent[1].tx.xbofs, 58);
	{
		uint64_t ua_start = h->sent[0].at + 100000 - ua_line_us(caddr);
		uint64_t bof = h->sent[1].at + sir_line_time_us(115200, 58);
		uint64_t ready = ua_start + 64000 + sir_line_time_us(115200, 2);

		assert_true(bof >= ready);
		assert_true(bof <= ready + 1);
	}
	/* F-timer halved for the first poll. */
	assert_true(irlap_deadline(h->st) - h->now <= 250000 + 10000);
	const struct event *e = find_event(h, IRLAP_EV_CONNECT_CONF);
	assert_non_null(e);
	assert_true(e->primary);
	/* The 11.3 table. */
	assert_int_equal(e->qos.baud, 115200);
	assert_int_equal(e->qos.tx_window, 6);
	assert_int_equal(e->qos.rx_window, 7);
	assert_int_equal(e->qos.tx_data_size, 2048);
	assert_int_equal(e->qos.tx_add_bofs, 0);
	assert_int_equal(e->qos.tx_min_tat_us, 5000);
	assert_int_equal(e->qos.link_disc_ms, 12000);
	destroy(h);
}

/*
 * A peer's QoS list, table-driven, through a real station in both roles:
 * as secondary (the list in an SNRM: UA or DM) and as primary (the list
 * in the UA answering our SNRM: RR(P), or DISC and a REFUSED disconnect
 * once the secondary has answered it).  Each row replaces one parameter
 * of the Linux list (or appends an item) and says what must come out.
 * Our station: 9600..115200, 500 ms, 2048 x 7, any BOFs, 1 ms, 3/8/12 s.
 * Reserved bits are ignored, never turned into a value; a parameter with
 * nothing valid left, or a malformed list, refuses the connection.
 */
struct qos_row {
	const char *what;
	uint8_t item[6];     /* replaces the item with this PI (or is appended) */
	size_t item_len;
	bool append, empty;  /* append item / send no list at all */
	bool ok;
	uint32_t baud, data, window, bofs, mtt_us, max_tat_ms, disc_ms;
};

#define BASE true, 115200, 2048, 7, 0, 5000, 500, 12000
#define REFUSED false, 0, 0, 0, 0, 0, 0, 0
static const struct qos_row qos_rows[] = {
	{ "Linux list as is", { 0 }, 0, true, false, BASE },
	{ "baud: reserved bits 10-15", { 0x01, 0x02, 0x3e, 0xfc }, 4, false, false, BASE },
	{ "baud: only reserved bits", { 0x01, 0x02, 0x00, 0xfc }, 4, false, false, REFUSED },
	{ "baud: zero", { 0x01, 0x01, 0x00 }, 3, false, false, REFUSED },
	{ "baud: 2400 only, not common", { 0x01, 0x01, 0x01 }, 3, false, false, REFUSED },
	{ "baud: 4M and 16M only", { 0x01, 0x02, 0x00, 0x03 }, 4, false, false, REFUSED },
	{ "baud: 9600 only", { 0x01, 0x01, 0x02 }, 3, false, false, true,
	  9600, 256, 7, 0, 5000, 500, 12000 },
	{ "max TAT: reserved bit 7", { 0x82, 0x01, 0x81 }, 3, false, false, BASE },
	{ "max TAT: only bit 7", { 0x82, 0x01, 0x80 }, 3, false, false, REFUSED },
	{ "max TAT: zero", { 0x82, 0x01, 0x00 }, 3, false, false, REFUSED },
	{ "max TAT: 50 ms", { 0x82, 0x01, 0x0f }, 3, false, false, true,
	  115200, 256, 7, 0, 5000, 50, 12000 },
	{ "data size: reserved bits 6-7", { 0x83, 0x01, 0xff }, 3, false, false, BASE },
	{ "data size: only bits 6-7", { 0x83, 0x01, 0xc0 }, 3, false, false, REFUSED },
	{ "data size: zero", { 0x83, 0x01, 0x00 }, 3, false, false, REFUSED },
	{ "data size: 64 and bit 7", { 0x83, 0x01, 0x81 }, 3, false, false, true,
	  115200, 64, 7, 0, 5000, 500, 12000 },
	{ "window: 0xff (bit 7 reserved)", { 0x84, 0x01, 0xff }, 3, false, false, BASE },
	{ "window: only bit 7", { 0x84, 0x01, 0x80 }, 3, false, false, REFUSED },
	{ "window: zero", { 0x84, 0x01, 0x00 }, 3, false, false, REFUSED },
	{ "window: 1 and bit 7", { 0x84, 0x01, 0x81 }, 3, false, false, true,
	  115200, 2048, 1, 0, 5000, 500, 12000 },
	{ "add BOFs: zero", { 0x85, 0x01, 0x00 }, 3, false, false, REFUSED },
	{ "add BOFs: 48", { 0x85, 0x01, 0x01 }, 3, false, false, true,
	  115200, 2048, 7, 48, 5000, 500, 12000 },
	{ "add BOFs: 0 (bit 7)", { 0x85, 0x01, 0x80 }, 3, false, false, BASE },
	{ "min TAT: zero", { 0x86, 0x01, 0x00 }, 3, false, false, REFUSED },
	{ "min TAT: 0 ms (bit 7)", { 0x86, 0x01, 0x80 }, 3, false, false, true,
	  115200, 2048, 7, 0, 0, 500, 12000 },
	{ "link disc: zero", { 0x08, 0x01, 0x00 }, 3, false, false, REFUSED },
	{ "link disc: none common (16-40 s)", { 0x08, 0x01, 0xf8 }, 3, false, false, REFUSED },
	{ "link disc: all (12 s common)", { 0x08, 0x01, 0xff }, 3, false, false, BASE },
	{ "unknown PI skipped", { 0x99, 0x02, 0x01, 0x02 }, 4, true, false, BASE },
	{ "unknown type 1 PI, PL 0", { 0x8f, 0x00 }, 2, true, false, BASE },
	{ "window twice", { 0x84, 0x01, 0x01 }, 3, true, false, REFUSED },
	{ "window PL 0", { 0x84, 0x00 }, 2, false, false, REFUSED },
	{ "window PL 2", { 0x84, 0x02, 0x7f, 0x00 }, 4, false, false, REFUSED },
	{ "baud PL 3", { 0x01, 0x03, 0x3e, 0x00, 0x00 }, 5, false, false, REFUSED },
	{ "no list: the defaults", { 0 }, 0, false, true, true, 9600, 64, 1, 12, 10000, 500, 3000 },
};

/* The Linux list (vec_snrm's) with the row's change. */
static size_t qos_row_list(const struct qos_row *row, uint8_t *out)
{
	static const uint8_t *const list = vec_snrm + 11;
	const size_t list_len = sizeof(vec_snrm) - 11;
	size_t n = 0;

	if (row->empty)
		return 0;
	for (size_t i = 0; i < list_len; i += 2 + list[i + 1]) {
		const uint8_t *item = list + i;
		size_t len = 2 + (size_t)list[i + 1];

		if (!row->append && row->item_len && row->item[0] == item[0]) {
			item = row->item;
			len = row->item_len;
		}
		memcpy(out + n, item, len);
		n += len;
	}
	if (row->append) {
		memcpy(out + n, row->item, row->item_len);
		n += row->item_len;
	}
	return n;
}

static void check_row_result(const struct qos_row *row, const struct event *e)
{
	assert_non_null(e);
	assert_int_equal(e->qos.baud, row->baud);
	assert_int_equal(e->qos.tx_data_size, row->data);
	assert_int_equal(e->qos.tx_window, row->window);
	assert_int_equal(e->qos.tx_add_bofs, row->bofs);
	assert_int_equal(e->qos.tx_min_tat_us, row->mtt_us);
	assert_int_equal(e->qos.peer_max_tat_ms, row->max_tat_ms);
	assert_int_equal(e->qos.link_disc_ms, row->disc_ms);
}

static void peer_qos_lists_as_secondary(void **state)
{
	(void)state;
	for (size_t i = 0; i < COUNT(qos_rows); i++) {
		const struct qos_row *row = &qos_rows[i];
		struct h *h = make(PEER, 1, 1000, false);
		uint8_t snrm[64];
		size_t n;
		struct irlap_frame f;

		print_message("secondary: %s\n", row->what);
		memcpy(snrm, vec_snrm, 11);
		n = 11 + qos_row_list(row, snrm + 11);
		input(h, snrm, n);
		assert_int_equal(h->nsent, 1);
		f = parse_sent(&h->sent[0]);
		if (row->ok) {
			assert_int_equal(f.type, IRLAP_F_UA);
			assert_int_equal(irlap_get_state(h->st), IRLAP_NRM_S);
			check_row_result(row, find_event(h, IRLAP_EV_CONNECT_CONF));
		} else {
			/* DM, a response on the SNRM's connection address, at 9600 */
			assert_int_equal(f.type, IRLAP_F_DM);
			assert_int_equal(h->sent[0].frame[0], 0x5a);
			assert_int_equal(h->sent[0].tx.baud, 9600);
			assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
			assert_int_equal(h->nev, 0); /* the user is not asked */
			assert_non_null(strstr(h->log, "refused"));
		}
		destroy(h);
	}
}

static void peer_qos_lists_as_primary(void **state)
{
	(void)state;
	for (size_t i = 0; i < COUNT(qos_rows); i++) {
		const struct qos_row *row = &qos_rows[i];
		struct h *h = make(OURS, 9, 1000, false);
		struct irlap_request r = { .type = IRLAP_REQ_CONNECT, .daddr = PEER };
		uint8_t ua[64];
		size_t n;
		uint8_t caddr;
		struct irlap_frame f;
		const struct event *e;

		print_message("primary: %s\n", row->what);
		assert_int_equal(irlap_request(h->st, &r, h->now), 0);
		caddr = h->sent[0].frame[10] >> 1;
		memcpy(ua, vec_ua, 10);
		ua[0] = (uint8_t)(caddr << 1);
		n = 10 + qos_row_list(row, ua + 10);
		h->now += 100000;
		input(h, ua, n);
		/* the first poll (or the DISC) after the peer's speed switch */
		run_until(h, h->now + 100000);
		assert_int_equal(h->nsent, 2);
		f = parse_sent(&h->sent[1]);
		if (row->ok) {
			assert_int_equal(f.type, IRLAP_F_RR);
			assert_int_equal(irlap_get_state(h->st), IRLAP_NRM_P);
			check_row_result(row, find_event(h, IRLAP_EV_CONNECT_CONF));
			destroy(h);
			continue;
		}
		/* DISC at the rate the secondary switched to (the common one,
		 * else 9600), then its UA ends it: REFUSED, never connected. */
		assert_int_equal(f.type, IRLAP_F_DISC);
		assert_true(f.cmd);
		assert_int_equal(irlap_get_state(h->st), IRLAP_PCLOSE);
		assert_null(find_event(h, IRLAP_EV_CONNECT_CONF));
		assert_non_null(strstr(h->log, "refused"));
		ua[1] = 0x73;
		input(h, ua, 2);
		assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
		e = find_event(h, IRLAP_EV_DISCONNECT);
		assert_non_null(e);
		assert_int_equal(e->reason, IRLAP_REASON_REFUSED);
		assert_int_equal(h->speed, 9600);
		destroy(h);
	}
}

static void snrm_retries_then_no_device(void **state)
{
	struct h *h = make(OURS, 9, 1000, false);
	struct irlap_request r = { .type = IRLAP_REQ_CONNECT, .daddr = PEER };

	assert_int_equal(irlap_request(h->st, &r, 0), 0);
	run_until(h, 5000000);
	assert_int_equal(h->nsent, 3); /* N3 */
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(parse_sent(&h->sent[i]).type, IRLAP_F_SNRM);
	const struct event *e = find_event(h, IRLAP_EV_DISCONNECT);
	assert_non_null(e);
	assert_int_equal(e->reason, IRLAP_REASON_NOT_FOUND);
	assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
	destroy(h);
}

static void snrm_crossing_larger_address_wins(void **state)
{
	/* We (0x12345678) and PEER (larger) both send SNRM: we yield. */
	struct h *h = make(OURS, 9, 1000, false);
	struct irlap_request r = { .type = IRLAP_REQ_CONNECT, .daddr = PEER };
	static const uint8_t peer_snrm[] = {
		0xff, 0x93, 0xdd, 0xcc, 0xbb, 0xaa, 0x78, 0x56, 0x34, 0x12, 0x22,
		0x01, 0x01, 0x3e,
	};

	assert_int_equal(irlap_request(h->st, &r, 0), 0);
	input(h, peer_snrm, sizeof(peer_snrm));
	assert_int_equal(irlap_get_state(h->st), IRLAP_NRM_S);
	assert_int_equal(parse_sent(last_sent(h)).type, IRLAP_F_UA);
	assert_int_equal(last_sent(h)->frame[0], 0x22);
	destroy(h);

	/* The other way round the smaller one is ignored. */
	uint8_t to_big[sizeof(peer_snrm)];
	memcpy(to_big, peer_snrm, sizeof(to_big));
	to_big[6] = 0x00; to_big[7] = 0x00; to_big[8] = 0x00; to_big[9] = 0xf0;
	h = make(0xf0000000, 9, 1000, false);
	assert_int_equal(irlap_request(h->st, &r, 0), 0);
	input(h, to_big, sizeof(to_big));
	assert_int_equal(irlap_get_state(h->st), IRLAP_SETUP);
	destroy(h);
}

/* ---- data transfer, secondary side ------------------------------------ */

static size_t iframe(uint8_t *buf, uint8_t caddr, bool cmd, uint8_t ns, uint8_t nr, bool pf,
		     const char *text)
{
	return irlap_build_i(buf, 64, caddr, cmd, ns, nr, pf, (const uint8_t *)text, strlen(text));
}

static void delivers_in_order_and_acknowledges(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	uint8_t buf[64];
	size_t n;

	connect_secondary(h);
	size_t base = h->nsent;
	n = iframe(buf, 0x2d, true, 0, 0, false, "one");
	input(h, buf, n);
	n = iframe(buf, 0x2d, true, 1, 0, true, "two");
	input(h, buf, n);
	assert_int_equal(count_events(h, IRLAP_EV_DATA), 2);
	assert_int_equal(h->nsent, base + 1);
	struct irlap_frame f = parse_sent(last_sent(h));
	assert_int_equal(f.type, IRLAP_F_RR);
	assert_int_equal(f.nr, 2);
	assert_true(f.pf);
	assert_false(f.cmd);
	/* A lost frame: Ns 3 without 2 is dropped and Nr stays at 2. */
	n = iframe(buf, 0x2d, true, 3, 0, true, "four");
	input(h, buf, n);
	assert_int_equal(count_events(h, IRLAP_EV_DATA), 2);
	f = parse_sent(last_sent(h));
	assert_int_equal(f.type, IRLAP_F_RR);
	assert_int_equal(f.nr, 2);
	assert_int_equal(irlap_get_stats(h->st)->iframes_dropped, 1);
	destroy(h);
}

static void sends_window_and_retransmits_what_was_not_acked(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	static const uint8_t rr_p0[] = { 0x5b, 0x11 }; /* RR P nr=0 */
	static const uint8_t rr_p1[] = { 0x5b, 0x31 }; /* RR P nr=1 */
	static const uint8_t rr_p3[] = { 0x5b, 0x71 }; /* RR P nr=3 */
	const char *msgs[] = { "a", "bb", "ccc" };

	connect_secondary(h);
	for (int i = 0; i < 3; i++) {
		struct irlap_request r = { .type = IRLAP_REQ_DATA, .data = (const uint8_t *)msgs[i],
					   .len = strlen(msgs[i]) };
		assert_int_equal(irlap_request(h->st, &r, h->now), 0);
	}
	assert_int_equal(irlap_pending(h->st), 3);
	size_t base = h->nsent;
	input(h, rr_p0, 2);
	assert_int_equal(h->nsent, base + 3);
	for (int i = 0; i < 3; i++) {
		struct irlap_frame f = parse_sent(&h->sent[base + i]);
		assert_int_equal(f.type, IRLAP_F_I);
		assert_int_equal(f.ns, i);
		assert_int_equal(f.pf, i == 2);
		assert_int_equal(f.info_len, strlen(msgs[i]));
		/* Turnaround padding only before the first frame of the turn. */
		assert_int_equal(h->sent[base + i].tx.xbofs, i == 0 ? 58 : 0);
	}
	/* The primary got only the first: frames 1 and 2 go again. */
	base = h->nsent;
	input(h, rr_p1, 2);
	assert_int_equal(h->nsent, base + 2);
	assert_int_equal(parse_sent(&h->sent[base]).ns, 1);
	assert_int_equal(parse_sent(&h->sent[base + 1]).ns, 2);
	assert_true(parse_sent(&h->sent[base + 1]).pf);
	assert_int_equal(irlap_get_stats(h->st)->iframes_retx, 2);
	/* All acknowledged: nothing to send but RR(F). */
	base = h->nsent;
	input(h, rr_p3, 2);
	assert_int_equal(h->nsent, base + 1);
	assert_int_equal(parse_sent(last_sent(h)).type, IRLAP_F_RR);
	assert_int_equal(irlap_pending(h->st), 0);
	destroy(h);
}

static void srej_resends_only_the_named_frame(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	static const uint8_t rr_p0[] = { 0x5b, 0x11 };
	static const uint8_t srej_p1[] = { 0x5b, 0x3d }; /* SREJ P nr=1 */

	connect_secondary(h);
	for (int i = 0; i < 3; i++) {
		struct irlap_request r = { .type = IRLAP_REQ_DATA, .data = (const uint8_t *)"x", .len = 1 };
		assert_int_equal(irlap_request(h->st, &r, h->now), 0);
	}
	input(h, rr_p0, 2);
	size_t base = h->nsent;
	input(h, srej_p1, 2);
	assert_int_equal(h->nsent, base + 1);
	struct irlap_frame f = parse_sent(last_sent(h));
	assert_int_equal(f.type, IRLAP_F_I);
	assert_int_equal(f.ns, 1);
	assert_true(f.pf);
	destroy(h);
}

static void remote_busy_holds_data_until_rr(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	static const uint8_t rnr_p0[] = { 0x5b, 0x15 };
	static const uint8_t rr_p0[] = { 0x5b, 0x11 };
	struct irlap_request r = { .type = IRLAP_REQ_DATA, .data = (const uint8_t *)"data", .len = 4 };

	connect_secondary(h);
	assert_int_equal(irlap_request(h->st, &r, h->now), 0);
	size_t base = h->nsent;
	input(h, rnr_p0, 2);
	assert_int_equal(h->nsent, base + 1);
	assert_int_equal(parse_sent(last_sent(h)).type, IRLAP_F_RR);
	const struct event *e = find_event(h, IRLAP_EV_STATUS);
	assert_non_null(e);
	assert_int_equal(e->status, IRLAP_STATUS_REMOTE_BUSY);
	input(h, rr_p0, 2);
	assert_int_equal(parse_sent(last_sent(h)).type, IRLAP_F_I);
	assert_int_equal(h->ev[h->nev - 1].status, IRLAP_STATUS_REMOTE_READY);
	destroy(h);
}

static void local_busy_answers_rnr_and_drops_data(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	struct irlap_request busy = { .type = IRLAP_REQ_LOCAL_BUSY, .busy = true };
	uint8_t buf[64];
	size_t n;

	connect_secondary(h);
	assert_int_equal(irlap_request(h->st, &busy, h->now), 0);
	n = iframe(buf, 0x2d, true, 0, 0, true, "data");
	input(h, buf, n);
	assert_int_equal(count_events(h, IRLAP_EV_DATA), 0);
	struct irlap_frame f = parse_sent(last_sent(h));
	assert_int_equal(f.type, IRLAP_F_RNR);
	assert_int_equal(f.nr, 0);
	busy.busy = false;
	assert_int_equal(irlap_request(h->st, &busy, h->now), 0);
	input(h, buf, n);
	assert_int_equal(count_events(h, IRLAP_EV_DATA), 1);
	f = parse_sent(last_sent(h));
	assert_int_equal(f.type, IRLAP_F_RR);
	assert_int_equal(f.nr, 1);
	destroy(h);
}

static void disc_gets_ua_and_the_line_returns_to_9600(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	static const uint8_t disc[] = { 0x5b, 0x53 };

	connect_secondary(h);
	input(h, disc, 2);
	assert_int_equal(last_sent(h)->frame[0], 0x5a);
	assert_int_equal(last_sent(h)->frame[1], 0x73);
	assert_int_equal(last_sent(h)->tx.baud, 115200);
	assert_int_equal(last_sent(h)->tx.speed_after, 9600);
	assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
	assert_int_equal(irlap_get_baud(h->st), 9600);
	const struct event *e = find_event(h, IRLAP_EV_DISCONNECT);
	assert_non_null(e);
	assert_int_equal(e->reason, IRLAP_REASON_PEER);
	destroy(h);
}

static void secondary_disconnect_sends_rd(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	static const uint8_t rr_p0[] = { 0x5b, 0x11 };
	static const uint8_t disc[] = { 0x5b, 0x53 };
	struct irlap_request r = { .type = IRLAP_REQ_DISCONNECT };

	connect_secondary(h);
	assert_int_equal(irlap_request(h->st, &r, h->now), 0);
	input(h, rr_p0, 2);
	assert_int_equal(parse_sent(last_sent(h)).type, IRLAP_F_RD);
	assert_int_equal(irlap_get_state(h->st), IRLAP_SCLOSE);
	input(h, disc, 2);
	assert_int_equal(parse_sent(last_sent(h)).type, IRLAP_F_UA);
	assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
	destroy(h);
}

/* A disconnect the layer above withdraws before the RD is out leaves
 * the link as it was; once the RD is out it cannot be withdrawn. */
static void disconnect_withdrawn_until_rd_is_out(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	static const uint8_t rr_p0[] = { 0x5b, 0x11 };
	static const uint8_t disc[] = { 0x5b, 0x53 };
	struct irlap_request d = { .type = IRLAP_REQ_DISCONNECT };
	struct irlap_request c = { .type = IRLAP_REQ_CANCEL_DISCONNECT };

	(void)state;
	assert_int_equal(irlap_request(h->st, &c, h->now), -ENOTCONN);
	connect_secondary(h);
	assert_int_equal(irlap_request(h->st, &c, h->now), 0); /* nothing pending */
	assert_int_equal(irlap_request(h->st, &d, h->now), 0);
	assert_int_equal(irlap_request(h->st, &c, h->now), 0);
	input(h, rr_p0, 2);
	assert_int_equal(parse_sent(last_sent(h)).type, IRLAP_F_RR);
	assert_int_equal(irlap_get_state(h->st), IRLAP_NRM_S);
	assert_int_equal(count_events(h, IRLAP_EV_DISCONNECT), 0);
	assert_int_equal(irlap_request(h->st, &d, h->now), 0);
	input(h, rr_p0, 2);
	assert_int_equal(parse_sent(last_sent(h)).type, IRLAP_F_RD);
	assert_int_equal(irlap_request(h->st, &c, h->now), -EALREADY);
	assert_int_equal(irlap_get_state(h->st), IRLAP_SCLOSE);
	input(h, disc, 2);
	assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
	assert_int_equal(irlap_request(h->st, &c, h->now), -ENOTCONN);
	destroy(h);
}

static void other_addresses_and_empty_frames_are_ignored(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	static const uint8_t other[] = { 0x5d, 0x11 };   /* caddr 0x2e */
	static const uint8_t response[] = { 0x5a, 0x11 }; /* response, not a command */
	static const uint8_t one = 0x5b;

	connect_secondary(h);
	size_t base = h->nsent;
	input(h, other, 2);
	input(h, response, 2);
	assert_int_equal(irlap_input(h->st, &one, 1, h->now), -EINVAL);
	assert_int_equal(irlap_input(h->st, NULL, 0, h->now), -EINVAL);
	assert_int_equal(h->nsent, base);
	assert_int_equal(irlap_get_state(h->st), IRLAP_NRM_S);
	assert_int_equal(irlap_get_stats(h->st)->ignored, 2);
	destroy(h);
}

static void bad_frames_get_frmr(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	static const uint8_t unknown[] = { 0x5b, 0xd7 };  /* undefined U command, P */
	static const uint8_t bad_nr[] = { 0x5b, 0xb1 };   /* RR P nr=5, nothing sent */
	static const uint8_t reset[] = { 0x5b, 0x93 };    /* SNRM without I-field */
	struct irlap_frmr fr;

	connect_secondary(h);
	input(h, unknown, 2);
	struct irlap_frame f = parse_sent(last_sent(h));
	assert_int_equal(f.type, IRLAP_F_FRMR);
	assert_int_equal(irlap_frmr_parse(&f, &fr), 0);
	assert_int_equal(fr.wxyz, IRLAP_FRMR_W);
	assert_int_equal(fr.rejected_control, 0xd7);
	/* Reset clears it; then an invalid Nr gives Z. */
	input(h, reset, 2);
	assert_int_equal(parse_sent(last_sent(h)).type, IRLAP_F_UA);
	assert_non_null(find_event(h, IRLAP_EV_RESET));
	input(h, bad_nr, 2);
	f = parse_sent(last_sent(h));
	assert_int_equal(f.type, IRLAP_F_FRMR);
	assert_int_equal(irlap_frmr_parse(&f, &fr), 0);
	assert_int_equal(fr.wxyz, IRLAP_FRMR_Z);
	destroy(h);
}

static void test_frames_are_echoed(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);
	uint8_t buf[64];
	size_t n;
	struct irlap_test_ndm t = { .saddr = OURS, .daddr = PEER, .data = (const uint8_t *)"ping",
				    .len = 4 }, back;

	/* NDM form. */
	n = irlap_test_ndm_build(buf, sizeof(buf), true, &t);
	input(h, buf, n);
	struct irlap_frame f = parse_sent(last_sent(h));
	assert_int_equal(f.type, IRLAP_F_TEST);
	assert_false(f.cmd);
	assert_int_equal(irlap_test_ndm_parse(&f, &back), 0);
	assert_int_equal(back.saddr, PEER);
	assert_int_equal(back.daddr, OURS);
	assert_memory_equal(back.data, "ping", 4);
	/* NRM form. */
	connect_secondary(h);
	n = irlap_build_u(buf, sizeof(buf), 0x2d, true, IRLAP_C_TEST, true, (const uint8_t *)"pong", 4);
	input(h, buf, n);
	f = parse_sent(last_sent(h));
	assert_int_equal(f.type, IRLAP_F_TEST);
	assert_int_equal(f.caddr, 0x2d);
	assert_int_equal(f.info_len, 4);
	assert_memory_equal(f.info, "pong", 4);
	destroy(h);
}

static void ui_and_test_in_nrm(void **state)
{
	struct h *h = make(OURS, 9, 1000, false);
	struct h *s = make(PEER, 1, 1000, false);
	struct irlap_request t = { .type = IRLAP_REQ_TEST, .data = (const uint8_t *)"echo", .len = 4 };
	uint8_t caddr = connect_primary(h);
	uint8_t buf[64];
	size_t n;

	/* Secondary: a UI command with P is delivered and the token returned. */
	connect_secondary(s);
	n = irlap_build_u(buf, sizeof(buf), 0x2d, true, IRLAP_C_UI, true, (const uint8_t *)"ui!", 3);
	input(s, buf, n);
	const struct event *e = find_event(s, IRLAP_EV_UI);
	assert_non_null(e);
	assert_int_equal(e->len, 3);
	assert_memory_equal(e->data, "ui!", 3);
	assert_int_equal(parse_sent(last_sent(s)).type, IRLAP_F_RR);

	/* Primary: a TEST request goes out with the token, the answer is
	 * delivered. */
	assert_int_equal(irlap_request(h->st, &t, h->now), 0);
	uint8_t rr_f[2] = { (uint8_t)(caddr << 1), 0x11 };
	input(h, rr_f, 2);
	struct irlap_frame f = parse_sent(last_sent(h));
	assert_int_equal(f.type, IRLAP_F_TEST);
	assert_true(f.cmd && f.pf);
	assert_memory_equal(f.info, "echo", 4);
	n = irlap_build_u(buf, sizeof(buf), caddr, false, IRLAP_C_TEST, true, f.info, f.info_len);
	input(h, buf, n);
	e = find_event(h, IRLAP_EV_TEST);
	assert_non_null(e);
	assert_memory_equal(e->data, "echo", 4);
	assert_true(irlap_is_connected(h->st));
	destroy(h);
	destroy(s);
}

/* ---- primary: timers and supervision ----------------------------------- */

/* Runs 20 s with nobody answering; the link must be reported lost
 * (N2 = 12 s / 500 ms) between lo and hi microseconds after t0, and the
 * N1 warning (3 s / 500 ms) must have come about 3 s in. */
static void expect_link_loss(struct h *h, uint64_t t0, uint64_t lo, uint64_t hi)
{
	run_until(h, t0 + 20000000);
	const struct event *w = find_event(h, IRLAP_EV_STATUS);
	assert_non_null(w);
	assert_int_equal(w->status, IRLAP_STATUS_NO_ACTIVITY);
	assert_true(w->at - t0 >= 2500000 && w->at - t0 <= 3600000);
	const struct event *e = find_event(h, IRLAP_EV_DISCONNECT);
	assert_non_null(e);
	assert_int_equal(e->reason, IRLAP_REASON_NO_RESPONSE);
	assert_true(e->at - t0 >= lo && e->at - t0 <= hi);
	assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
}

static void primary_loses_link_after_n2(void **state)
{
	struct h *h = make(OURS, 9, 1000, false);

	connect_primary(h);
	expect_link_loss(h, h->now, 11500000, 12500000);
	assert_int_equal(irlap_get_stats(h->st)->f_timeouts, 24);
	assert_int_equal(h->speed, 9600);
	destroy(h);
}

static void secondary_watchdog_gives_up(void **state)
{
	struct h *h = make(PEER, 1, 1000, false);

	connect_secondary(h);
	expect_link_loss(h, h->now, 11500000, 12600000);
	assert_int_equal(irlap_get_stats(h->st)->wd_timeouts, 12);
	destroy(h);
}

/* The host's port went away: a link ends at once as a link loss, with
 * the line back at 9600 and nothing sent; without a link nothing
 * happens; afterwards the station connects again as usual. */
static void port_lost_ends_the_link_at_once(void **state)
{
	struct h *p = make(OURS, 9, 1000, false);
	struct h *s = make(PEER, 1, 1000, false);
	size_t sent;

	irlap_port_lost(s->st, s->now);       /* NDM: no event */
	assert_int_equal(s->nev, 0);
	assert_int_equal(irlap_get_state(s->st), IRLAP_NDM);

	connect_primary(p);
	connect_secondary(s);
	for (struct h *h = p; h; h = h == p ? s : NULL) {
		size_t nev = h->nev;
		sent = h->nsent;
		h->now += 1000;
		irlap_port_lost(h->st, h->now);
		assert_int_equal(h->nev, nev + 1);
		assert_int_equal(h->ev[nev].type, IRLAP_EV_DISCONNECT);
		assert_int_equal(h->ev[nev].reason, IRLAP_REASON_NO_RESPONSE);
		assert_int_equal(h->ev[nev].at, h->now);
		assert_int_equal(irlap_get_state(h->st), IRLAP_NDM);
		assert_int_equal(h->speed, 9600);
		assert_int_equal(h->nsent, sent);
		assert_non_null(strstr(h->log, "lost: the port is gone"));
		/* no timer of the old link is left to fire */
		run_until(h, h->now + 20000000);
		assert_int_equal(h->nev, nev + 1);
	}
	connect_secondary(s);                 /* a new link, as after any loss */
	destroy(p);
	destroy(s);
}

static void primary_fills_the_turn_within_line_capacity(void **state)
{
	struct h *h = make(OURS, 9, 1000, true);
	static uint8_t data[20000];
	uint8_t caddr;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	h->pull_data = data;
	h->pull_len = sizeof(data);
	caddr = connect_primary(h);
	/* RR(F) from the secondary: the primary's turn follows. */
	uint8_t rr_f[2] = { (uint8_t)(caddr << 1), 0x11 };
	size_t base = h->nsent;
	h->now += 10000;
	input(h, rr_f, 2);
	size_t nframes = h->nsent - base;
	size_t turn = 0, line = 0, payload = 0;
	for (size_t i = base; i < h->nsent; i++) {
		struct irlap_frame f = parse_sent(&h->sent[i]);
		assert_int_equal(f.type, IRLAP_F_I);
		assert_int_equal(f.pf, i + 1 == h->nsent);
		turn += h->sent[i].len + 4 + h->sent[i].tx.xbofs;
		line += h->sent[i].len + 4 + h->sent[i].tx.xbofs;
		for (size_t k = 0; k < h->sent[i].len; k++)
			line += h->sent[i].frame[k] == 0xc0 || h->sent[i].frame[k] == 0xc1 ||
				h->sent[i].frame[k] == 0x7d;
		payload += f.info_len;
	}
	/* Two full 2048-byte frames and a shorter third that fills the turn. */
	assert_int_equal(nframes, 3);
	assert_int_equal(parse_sent(&h->sent[base]).info_len, 2048);
	assert_int_equal(parse_sent(&h->sent[base + 1]).info_len, 2048);
	/* The digest's formula (no escapes) stays within the line capacity
	 * and the turn is full; with escapes it still fits 500 ms. */
	assert_true(turn <= 4800);
	assert_true(turn >= 4800 - 64);
	assert_true(line <= 5760);
	assert_int_equal(payload, h->pull_pos);
	assert_true(irlap_get_stats(h->st)->max_turn_bytes <= 4800);
	destroy(h);
}

/* ---- data transfer under bit errors ------------------------------------ */

/* Feeds the secondary I-frames 0, 2, 3(P) (1 lost), then 1(P) again;
 * returns how many frames were delivered in the end, and checks the
 * answers: SREJ(1) then RR(4) with SREJ on, RR(1) then RR(2) without. */
static size_t receive_around_a_lost_frame(bool srej)
{
	struct h *h = make_with(PEER, 1, 1000, false, (struct features){ .no_srej = !srej });
	static const char *const text[] = { "zero", "one", "two", "three" };
	uint8_t buf[64];
	struct irlap_frame f;
	size_t n, got;

	connect_secondary(h);
	n = iframe(buf, 0x2d, true, 0, 0, false, text[0]);
	input(h, buf, n);
	n = iframe(buf, 0x2d, true, 2, 0, false, text[2]);
	input(h, buf, n);
	n = iframe(buf, 0x2d, true, 3, 0, true, text[3]);
	input(h, buf, n);
	assert_int_equal(count_events(h, IRLAP_EV_DATA), 1);
	f = parse_sent(last_sent(h));
	assert_int_equal(f.type, srej ? IRLAP_F_SREJ : IRLAP_F_RR);
	assert_int_equal(f.nr, 1);
	assert_true(f.pf);
	assert_false(f.cmd);
	/* The primary sends the named frame alone. */
	n = iframe(buf, 0x2d, true, 1, 0, true, text[1]);
	input(h, buf, n);
	got = count_events(h, IRLAP_EV_DATA);
	for (size_t i = 0, k = 0; i < h->nev; i++) {
		if (h->ev[i].type != IRLAP_EV_DATA)
			continue;
		assert_int_equal(h->ev[i].len, strlen(text[k]));
		assert_memory_equal(h->ev[i].data, text[k], h->ev[i].len);
		k++;
	}
	f = parse_sent(last_sent(h));
	assert_int_equal(f.type, IRLAP_F_RR);
	assert_int_equal(f.nr, got);
	assert_int_equal(irlap_get_stats(h->st)->srej_tx, srej ? 1 : 0);
	assert_int_equal(irlap_get_stats(h->st)->iframes_held, srej ? 2 : 0);
	destroy(h);
	return got;
}

static void srej_keeps_frames_after_a_lost_one(void **state)
{
	assert_int_equal(receive_around_a_lost_frame(true), 4);
	/* Mutant check: without SREJ frames 2 and 3 were dropped. */
	assert_int_equal(receive_around_a_lost_frame(false), 2);
}

static void old_frames_sent_again_are_not_kept(void **state)
{
	/* A secondary took 0..5 in sequence; the poll (6) was lost.  A
	 * Linux primary sends 0..6 again after its F-timer: 0..5 are old,
	 * though 0..4 look like 8..12 after an anchor at 5.  The quiet line
	 * before them ends the burst, so they are not kept. */
	struct h *h = make(PEER, 1, 1000, false);
	char text[8][4];
	uint8_t buf[64];
	size_t n;

	connect_secondary(h);
	for (uint8_t i = 0; i < 7; i++)
		snprintf(text[i], sizeof(text[i]), "f%u", i);
	for (uint8_t i = 0; i < 6; i++) {
		n = iframe(buf, 0x2d, true, i, 0, false, text[i]);
		input(h, buf, n);
		h->now += 1000;
	}
	assert_int_equal(count_events(h, IRLAP_EV_DATA), 6);
	h->now += 500000;
	for (uint8_t i = 0; i < 7; i++) {
		n = iframe(buf, 0x2d, true, i, 0, i == 6, text[i]);
		input(h, buf, n);
		h->now += 1000;
	}
	assert_int_equal(count_events(h, IRLAP_EV_DATA), 7);
	assert_memory_equal(h->ev[h->nev - 1].data, "f6", 2);
	assert_int_equal(irlap_get_stats(h->st)->iframes_held, 0);
	struct irlap_frame f = parse_sent(last_sent(h));
	assert_int_equal(f.type, IRLAP_F_RR);
	assert_int_equal(f.nr, 7);
	destroy(h);
}

/* Deterministic losses that grow with the frame: a frame of len bytes
 * is lost with probability len / 2500 (at most 0.9). */
static bool size_loss(uint64_t *rng, size_t len)
{
	double p = (double)len / 2500.0;

	return test_uniform(rng) < (p > 0.9 ? 0.9 : p);
}

/* The test plays a go-back-N secondary (as Linux) for a primary that
 * pulls data: each turn, frames are lost (lossy) or not, and the answer
 * is RR(F) with the Nr of the first one missing.  Returns the largest
 * new I-field of the turn. */
static size_t play_turn(struct h *h, uint8_t caddr, uint8_t *vr, bool lossy, uint64_t *rng)
{
	size_t largest = 0;
	uint8_t rr[2];

	for (size_t i = 0; i < h->nsent; i++) {
		struct irlap_frame f = parse_sent(&h->sent[i]);

		if (f.type != IRLAP_F_I)
			continue;
		if (f.info_len > largest)
			largest = f.info_len;
		if (f.ns == *vr && !(lossy && size_loss(rng, f.info_len)))
			*vr = (*vr + 1) & 7;
	}
	h->nsent = 0;
	rr[0] = (uint8_t)(caddr << 1);
	rr[1] = (uint8_t)(*vr << 5 | 0x11);
	h->now += 400000;
	input(h, rr, 2);
	return largest;
}

/* 60 lossy turns then 150 clean ones: the largest I-field of the last
 * 10 lossy turns and of the last 10 clean ones. */
static void sizes_under_losses(bool adapt, size_t *lossy_max, size_t *clean_max)
{
	struct h *h = make_with(OURS, 9, 1000, true, (struct features){ .fixed_size = !adapt });
	static uint8_t data[1 << 20];
	uint64_t rng = 5;
	uint8_t caddr, vr = 0;

	h->pull_data = data;
	h->pull_len = sizeof(data);
	caddr = connect_primary(h);
	h->nsent = 0;
	*lossy_max = *clean_max = 0;
	for (int t = 0; t < 210; t++) {
		size_t m = play_turn(h, caddr, &vr, t < 60, &rng);

		if (t >= 50 && t < 60 && m > *lossy_max)
			*lossy_max = m;
		if (t >= 200 && m > *clean_max)
			*clean_max = m;

	}
	assert_true(irlap_is_connected(h->st));
	assert_int_equal(irlap_get_stats(h->st)->size_changes > 0, adapt);
	destroy(h);
}

static void frame_size_shrinks_after_losses_and_grows_back(void **state)
{
	size_t lossy, clean;

	sizes_under_losses(true, &lossy, &clean);
	assert_true(lossy <= 512);
	assert_int_equal(clean, 2048);
	/* Mutant check: without adaptation the frames stay at 2 KB. */
	sizes_under_losses(false, &lossy, &clean);
	assert_int_equal(lossy, 2048);
}

static void unsegmentable_data_goes_at_full_size(void **state)
{
	/* A source that cannot cut its data small (a TinyTP SDU without
	 * SAR) still gets it out after the frames were made small. */
	struct h *h = make(OURS, 9, 1000, true);
	static uint8_t data[1 << 20];
	uint64_t rng = 5;
	uint8_t caddr, vr = 0;
	size_t big = 0;

	h->pull_data = data;
	h->pull_len = sizeof(data);
	caddr = connect_primary(h);
	h->nsent = 0;
	for (int t = 0; t < 60; t++)
		play_turn(h, caddr, &vr, true, &rng);
	assert_true(irlap_get_frame_size(h->st) <= 512);
	h->pull_chunk = 1500;
	for (int t = 0; t < 5; t++)
		big += play_turn(h, caddr, &vr, false, &rng) == 1500;
	assert_true(big >= 4);
	destroy(h);
}

/* The primary sends a turn, then hears: nothing (answer 0), or one good
 * I-frame without F then a damaged frame (answer 1).  Returns when its
 * next poll went out, after the end of its turn. */
static uint64_t repoll_delay(bool early, int answer)
{
	struct h *h = make_with(OURS, 9, 1000, true, (struct features){ .no_early_poll = !early });
	static uint8_t data[4096];
	uint8_t caddr, buf[64];
	uint64_t end;
	size_t n;

	h->pull_data = data;
	h->pull_len = sizeof(data);
	caddr = connect_primary(h);
	uint8_t rr_f[2] = { (uint8_t)(caddr << 1), 0x11 };
	h->now += 10000;
	h->nsent = 0;
	input(h, rr_f, 2);
	assert_int_equal(h->nsent, 2);
	assert_true(parse_sent(last_sent(h)).pf);
	/* The turn's frames leave back to back from now. */
	end = h->now;
	for (size_t i = 0; i < h->nsent; i++)
		end += (h->sent[i].len + 4 + h->sent[i].tx.xbofs) * 10 * 1000000ull / 115200 + 1;
	h->nsent = 0;
	if (answer == 1) {
		h->now = end + 2000;
		n = iframe(buf, caddr, false, 0, 1, false, "partial");
		input(h, buf, n);
		h->now += 1000;
		irlap_frame_error(h->st, h->now);
	}
	run_until(h, end + 2000000);
	assert_true(h->nsent >= 1);
	struct irlap_frame f = parse_sent(&h->sent[0]);
	assert_int_equal(f.type, IRLAP_F_RR);
	assert_true(f.pf);
	uint64_t at = h->sent[0].at - end;
	assert_int_equal(irlap_get_stats(h->st)->early_polls, early ? 1 : 0);
	destroy(h);
	return at;
}

static void polls_again_when_the_answer_is_known_lost(void **state)
{
	/* Nothing heard: the poll went again after 10 ms of quiet (+ the
	 * 1 ms the secondary pads with), not after the 500 ms F-timer. */
	uint64_t d = repoll_delay(true, 0);
	assert_true(d >= 10000 && d <= 13000);
	/* The final frame damaged, then quiet: 10 ms after it. */
	d = repoll_delay(true, 1);
	assert_true(d >= 13000 && d <= 14000);
	/* Mutant check: without the early poll only the F-timer. */
	assert_true(repoll_delay(false, 0) >= 500000);
	assert_true(repoll_delay(false, 1) >= 500000);
}

/* A primary holds frame 2 after a lost 1 and polls with SREJ; nobody
 * answers for 1.2 s.  Then either its RR poll is answered (a peer deaf
 * to SREJ) or nothing is (a dead line). */
static void srej_polls_unanswered(bool answer)
{
	struct h *h = make(OURS, 9, 1000, false);
	uint8_t caddr = connect_primary(h);
	uint8_t buf[64];
	size_t n;
	static const enum irlap_ftype want[] = { IRLAP_F_SREJ, IRLAP_F_SREJ, IRLAP_F_SREJ,
						 IRLAP_F_RR, IRLAP_F_SREJ };

	h->now += 10000;
	n = iframe(buf, caddr, false, 0, 0, false, "a");
	input(h, buf, n);
	n = iframe(buf, caddr, false, 2, 0, true, "c");
	input(h, buf, n);
	uint64_t t0 = h->now;
	/* The poll, the early poll and two F-timer polls: SREJ three times,
	 * then RR to see whether SREJ is what goes unheard. */
	size_t first = h->nsent - 1;
	run_until(h, t0 + 1200000);
	assert_int_equal(h->nsent - first, 4);
	for (size_t i = 0; i < 4; i++) {
		struct irlap_frame f = parse_sent(&h->sent[first + i]);
		assert_int_equal(f.type, want[i]);
		assert_int_equal(f.nr, 1);
		assert_true(f.pf);
	}
	if (answer) {
		/* RR is answered: SREJ it was; RR from now on. */
		uint8_t rr_f[2] = { (uint8_t)(caddr << 1), 0x11 };
		input(h, rr_f, 2);
		assert_int_equal(parse_sent(last_sent(h)).type, IRLAP_F_RR);
		assert_non_null(strstr(h->log, "SREJ not answered"));
	} else {
		/* RR goes unanswered too: the line is dead, SREJ comes back. */
		run_until(h, t0 + 1700000);
		assert_int_equal(h->nsent - first, 5);
		assert_int_equal(parse_sent(last_sent(h)).type, want[4]);
		assert_null(strstr(h->log, "SREJ not answered"));
	}
	destroy(h);
}

static void srej_gives_way_to_rr_when_the_peer_ignores_it(void **state)
{
	srej_polls_unanswered(true);
	srej_polls_unanswered(false);
}

/* ---- a late answer to a repeated poll ---------------------------------- */

/* The secondary answers one frame (ns, F) per poll. */
static void answer(struct h *h, uint8_t caddr, uint8_t ns, bool f, const char *text)
{
	uint8_t buf[64];
	size_t n = iframe(buf, caddr, false, ns, 0, f, text);

	input(h, buf, n);
}

static void late_answer_is_not_kept(void **state)
{
	/* Our poll's F-timer fired and we polled again; the secondary heard
	 * both polls and answered the first late (a busy machine, a full-
	 * duplex wire).  Its answer to the second repeats frames 0..2 after
	 * we took them and polled with Nr=3: their Ns look new, 8 on.  Kept,
	 * they came out a lap later in place of frames 0 and 1 of the next
	 * lap (test_irnet_ep's PPP frames cut and mixed under load). */
	static const char *const want[] = { "a0", "a1", "a2", "b3", "b4",
					    "b5", "b6", "b7", "c0", "c1" };
	struct h *h = make(OURS, 9, 5000, false);
	uint8_t caddr = connect_primary(h);
	size_t k = 0;
	(void)state;

	run_until(h, h->now + 600000); /* the poll repeated */
	for (int copy = 0; copy < 2; copy++) {
		answer(h, caddr, 0, false, "a0");
		answer(h, caddr, 1, false, "a1");
		answer(h, caddr, 2, true, "a2");
		run_until(h, h->now + 20000); /* our next poll: Nr=3 */
	}
	for (uint8_t i = 3; i < 10; i++) {
		answer(h, caddr, i & 7, true, want[i]);
		run_until(h, h->now + 20000);
	}
	for (size_t i = 0; i < h->nev; i++) {
		if (h->ev[i].type != IRLAP_EV_DATA)
			continue;
		assert_true(k < 10);
		assert_int_equal(h->ev[i].len, 2);
		assert_memory_equal(h->ev[i].data, want[k], 2);
		k++;
	}
	assert_int_equal(k, 10);
	assert_int_equal(irlap_get_stats(h->st)->iframes_held, 0);
	destroy(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(answers_discovery_once_in_its_chosen_slot),
		cmocka_unit_test(query_timer_returns_responder_to_ndm),
		cmocka_unit_test(discovers_as_initiator),
		cmocka_unit_test(discovery_request_during_ours_is_served_by_it),
		cmocka_unit_test(announces_the_hints_set_later),
		cmocka_unit_test(address_conflict_runs_a_new_address_round),
		cmocka_unit_test(accepts_snrm_and_switches_speed_after_ua),
		cmocka_unit_test(ignores_snrm_not_for_us),
		cmocka_unit_test(rejecting_sends_dm),
		cmocka_unit_test(connects_as_primary_with_digest_negotiation),
		cmocka_unit_test(peer_qos_lists_as_secondary),
		cmocka_unit_test(peer_qos_lists_as_primary),
		cmocka_unit_test(snrm_retries_then_no_device),
		cmocka_unit_test(snrm_crossing_larger_address_wins),
		cmocka_unit_test(delivers_in_order_and_acknowledges),
		cmocka_unit_test(sends_window_and_retransmits_what_was_not_acked),
		cmocka_unit_test(srej_resends_only_the_named_frame),
		cmocka_unit_test(remote_busy_holds_data_until_rr),
		cmocka_unit_test(local_busy_answers_rnr_and_drops_data),
		cmocka_unit_test(disc_gets_ua_and_the_line_returns_to_9600),
		cmocka_unit_test(secondary_disconnect_sends_rd),
		cmocka_unit_test(disconnect_withdrawn_until_rd_is_out),
		cmocka_unit_test(other_addresses_and_empty_frames_are_ignored),
		cmocka_unit_test(bad_frames_get_frmr),
		cmocka_unit_test(test_frames_are_echoed),
		cmocka_unit_test(ui_and_test_in_nrm),
		cmocka_unit_test(primary_loses_link_after_n2),
		cmocka_unit_test(secondary_watchdog_gives_up),
		cmocka_unit_test(port_lost_ends_the_link_at_once),
		cmocka_unit_test(primary_fills_the_turn_within_line_capacity),
		cmocka_unit_test(srej_keeps_frames_after_a_lost_one),
		cmocka_unit_test(old_frames_sent_again_are_not_kept),
		cmocka_unit_test(frame_size_shrinks_after_losses_and_grows_back),
		cmocka_unit_test(unsegmentable_data_goes_at_full_size),
		cmocka_unit_test(polls_again_when_the_answer_is_known_lost),
		cmocka_unit_test(srej_gives_way_to_rr_when_the_peer_ignores_it),
		cmocka_unit_test(late_answer_is_not_kept),
	};
	return cmocka_run_group_tests_name("irlap", tests, NULL, NULL);
}
