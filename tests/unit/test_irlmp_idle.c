/*
 * test_irlmp_idle.c: a peer's IrLMP connect that arrives while our idle
 * link is being closed (shared/data/linux-interop/
 * linux-connect-during-idle-close.pcap).  Our whole stack (IrLAP station
 * + IrLMP + IAS server) is driven on a virtual clock by a scripted peer
 * that speaks IrLAP frame by frame, so every ordering can be set up
 * exactly:
 *
 *  - secondary (the capture): the Linux primary did two IAS lookups, then
 *    polls (the capture's frames 2-17 byte for byte, at its times); its
 *    next frame, the IrLMP Connect to LSAP 0 (frame 18, `8f 9c 80 19 01
 *    00`), arrives 75 us after our idle timer fired (the capture), at the
 *    same instant in either order, or just before.  The link must stay,
 *    the connect be confirmed and the IAS query answered;
 *  - primary: the idle timer fires while our poll is out and the peer's
 *    answer carries a Connect;
 *  - the DISC (primary) or RD (secondary) already out: the link goes
 *    down cleanly, nothing half kept, and the next connection works.
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

#include "ias.h"
#include "irlap.h"
#include "irlap_frame.h"
#include "irlmp.h"
#include "log.h"

#define OUR_ADDR 0x6776d587u  /* the capture's device addresses */
#define PEER_ADDR 0x7071985du
#define CADDR 0x47
#define PEER_LSAP 0x19        /* Linux's IAS client selector in frame 18 */
#define MS 1000ull
#define SEC 1000000ull
#define MAX_OUT 256

struct out_frame {
	uint8_t b[IRLAP_MAX_DATA + 8];
	size_t len;
	uint64_t at;
};

struct rig {
	struct irlap *st;
	struct irlmp *lm;
	struct ias_db *db;
	struct ias_server *srv;
	uint64_t now;
	struct out_frame out[MAX_OUT];
	size_t nout, seen;
	/* the scripted peer: connection address, sequence numbers */
	uint8_t caddr;
	uint8_t pvs, pvr;
	bool peer_primary;
	unsigned links_up, links_down;
	enum irlap_reason down_reason;
	/* our IAS client (primary cases) */
	bool ias_done;
	int ias_ret;
};

/* ---- our stack, as a host joins it ------------------------------------ */

static void send_frame(void *ctx, const uint8_t *frame, size_t len, const struct irlap_txinfo *tx)
{
	struct rig *r = ctx;

	(void)tx;
	assert_true(r->nout < MAX_OUT);
	assert_true(len <= sizeof(r->out[0].b));
	memcpy(r->out[r->nout].b, frame, len);
	r->out[r->nout].len = len;
	r->out[r->nout].at = r->now;
	r->nout++;
}

static void deliver(void *ctx, const struct irlap_event *ev)
{
	struct rig *r = ctx;

	if (ev->type == IRLAP_EV_CONNECT_CONF)
		r->links_up++;
	if (ev->type == IRLAP_EV_DISCONNECT) {
		r->links_down++;
		r->down_reason = ev->reason;
	}
	irlmp_lap_event(r->lm, ev, r->now);
}

static size_t pull(void *ctx, uint8_t *buf, size_t max)
{
	struct rig *r = ctx;
	return irlmp_pull(r->lm, buf, max);
}

static int lap_request(void *ctx, const struct irlap_request *req)
{
	struct rig *r = ctx;
	return irlap_request(r->st, req, r->now);
}

static const struct irlap_ops lap_ops = { .send_frame = send_frame, .deliver = deliver,
					  .pull = pull };
static const struct irlmp_ops lmp_ops = { lap_request };

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));
	struct irlap_config cfg;
	struct irlmp_config lc;

	assert_non_null(r);
	irlap_config_defaults(&cfg, 115200, 1000);
	cfg.daddr = OUR_ADDR;
	cfg.seed = 3;
	irlmp_config_defaults(&lc);
	if (getenv("IDLE_TEST_LOG")) { /* debugging: the stack's log on stderr */
		static const struct logger log = { .sink = log_sink_stdio, .max = LOG_LEVEL_DEBUG };
		cfg.log = &log;
		lc.log = &log;
	}
	r->st = irlap_new(&cfg, &lap_ops, r);
	r->lm = irlmp_new(&lc, &lmp_ops, r);
	r->db = ias_db_new("irspray");
	r->srv = ias_server_new(r->lm, r->db, NULL);
	assert_non_null(r->st);
	assert_non_null(r->lm);
	assert_non_null(r->srv);
	return r;
}

static void rig_free(struct rig *r)
{
	ias_server_free(r->srv);
	irlmp_free(r->lm);
	ias_db_free(r->db);
	irlap_free(r->st);
	free(r);
}

/* Runs both protocol timers up to t; those due exactly at t only if
 * inclusive (so a frame can be made to arrive before them). */
static void advance(struct rig *r, uint64_t t, bool inclusive)
{
	for (int guard = 0; guard < 10000; guard++) {
		uint64_t d1 = irlap_deadline(r->st), d2 = irlmp_deadline(r->lm);
		uint64_t d = d1 < d2 ? d1 : d2;

		if (d > t || (!inclusive && d == t))
			break;
		if (d > r->now)
			r->now = d;
		if (irlap_deadline(r->st) <= r->now)
			irlap_tick(r->st, r->now);
		if (irlmp_deadline(r->lm) <= r->now)
			irlmp_tick(r->lm, r->now);
	}
	if (t > r->now)
		r->now = t;
}

/* A frame of the peer reaching us at t: our timers due at t run first
 * when timers_first, after it otherwise. */
static void peer_frame(struct rig *r, const uint8_t *f, size_t len, uint64_t t, bool timers_first)
{
	advance(r, t, timers_first);
	irlap_input(r->st, f, len, r->now);
	advance(r, t, true);
}

/* ---- the scripted peer ------------------------------------------------ */

static void peer_i(struct rig *r, const uint8_t *payload, size_t len, uint64_t t)
{
	uint8_t f[IRLAP_MAX_DATA + 8];
	size_t n = irlap_build_i(f, sizeof(f), r->caddr, r->peer_primary, r->pvs, r->pvr, true,
				 payload, len);

	assert_true(n > 0);
	r->pvs = (r->pvs + 1) & 7;
	peer_frame(r, f, n, t, true);
}

static void peer_rr(struct rig *r, uint64_t t)
{
	uint8_t f[8];
	size_t n = irlap_build_s(f, sizeof(f), r->caddr, r->peer_primary, IRLAP_S_RR, r->pvr, true);
	peer_frame(r, f, n, t, true);
}

static void peer_u(struct rig *r, uint8_t control, uint64_t t)
{
	uint8_t f[8];
	size_t n = irlap_build_u(f, sizeof(f), r->caddr, r->peer_primary, control, true, NULL, 0);
	peer_frame(r, f, n, t, true);
}

/* What we sent since the last look (there must be something, its last
 * frame with P/F): the last frame's type, and the I-frames, checked in
 * sequence (the peer acknowledges them), their LM-PDUs copied out. */
struct heard {
	enum irlap_ftype last;
	size_t n_i;
	uint8_t pdu[4][256];
	size_t pdu_len[4];
};

static void hear(struct rig *r, struct heard *h)
{
	memset(h, 0, sizeof(*h));
	h->last = IRLAP_F_UNKNOWN;
	assert_true(r->seen < r->nout); /* we answered */
	for (; r->seen < r->nout; r->seen++) {
		struct irlap_frame f;

		assert_int_equal(irlap_frame_parse(r->out[r->seen].b, r->out[r->seen].len, &f), 0);
		h->last = f.type;
		if (f.type == IRLAP_F_I) {
			assert_int_equal(f.ns, r->pvr);
			r->pvr = (r->pvr + 1) & 7;
			assert_true(h->n_i < 4 && f.info_len <= sizeof(h->pdu[0]));
			memcpy(h->pdu[h->n_i], f.info, f.info_len);
			h->pdu_len[h->n_i++] = f.info_len;
		}
		if (r->seen + 1 == r->nout)
			assert_true(f.pf);
	}
}

static const uint8_t connect_to_ias[] = { 0x80, PEER_LSAP, 0x01, 0x00 };
static const uint8_t confirm_from_ias[] = { 0x80 | PEER_LSAP, 0x00, 0x81, 0x00 };
static const uint8_t disconnect_ias[] = { 0x80, PEER_LSAP, 0x02, 0x01 };

static size_t ias_query_pdu(uint8_t *buf, size_t cap)
{
	size_t n;

	buf[0] = 0x00;      /* to LSAP 0 */
	buf[1] = PEER_LSAP;
	n = ias_request_build(buf + 2, cap - 2, "Device", "DeviceName");
	assert_true(n > 0);
	return n + 2;
}

/* Our IAS server's answer: Device.DeviceName = "irspray". */
static void check_ias_answer(const uint8_t *pdu, size_t len)
{
	struct ias_response rs;

	assert_true(len > 2);
	assert_int_equal(pdu[0], PEER_LSAP);
	assert_int_equal(pdu[1], 0x00);
	assert_int_equal(ias_response_parse(pdu + 2, len - 2, &rs), 0);
	assert_int_equal(rs.ret, IAS_SUCCESS);
	assert_int_equal(rs.value.type, IAS_STRING);
	assert_int_equal(rs.value.len, 7);
	assert_memory_equal(rs.value.bytes, "irspray", 7);
}

/* ---- secondary: the capture ------------------------------------------- */

/* The connected Linux primary does one IAS lookup: connect, confirm,
 * query, answer, disconnect.  Returns the time of our last answer (the
 * idle timer starts there). */
static uint64_t linux_ias_lookup(struct rig *r, uint64_t t)
{
	uint8_t q[128];
	size_t qn = ias_query_pdu(q, sizeof(q));
	struct heard h;

	peer_i(r, connect_to_ias, sizeof(connect_to_ias), t);
	hear(r, &h);
	assert_int_equal(h.n_i, 1);
	assert_int_equal(h.pdu_len[0], sizeof(confirm_from_ias));
	assert_memory_equal(h.pdu[0], confirm_from_ias, sizeof(confirm_from_ias));
	peer_i(r, q, qn, t + 10 * MS);
	hear(r, &h);
	assert_int_equal(h.n_i, 1);
	check_ias_answer(h.pdu[0], h.pdu_len[0]);
	peer_i(r, disconnect_ias, sizeof(disconnect_ias), t + 20 * MS);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_RR);
	return t + 20 * MS;
}

/* What Linux announces (the list of digest 11.3's SNRM). */
static const struct qos_bits linux_qos = { .baud = 0x3e, .max_tat = 0x01, .data_size = 0x3f,
					   .window = 0x7f, .add_bofs = 0xff, .min_tat = 0x03,
					   .link_disc = 0x07 };

/* Linux connects as primary: SNRM, our UA. */
static void peer_snrm(struct rig *r, uint64_t t)
{
	struct irlap_connect_info ci = { .saddr = PEER_ADDR, .daddr = OUR_ADDR, .ncaddr = CADDR,
					 .qos = linux_qos };
	uint8_t f[64];
	size_t n = irlap_snrm_build(f, sizeof(f), &ci);
	struct heard h;

	r->peer_primary = true;
	r->caddr = CADDR;
	r->pvs = r->pvr = 0;
	r->seen = r->nout;
	peer_frame(r, f, n, t, true);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_UA);
}

static void linux_connects(struct rig *r)
{
	struct heard h;

	peer_snrm(r, 10 * MS);
	peer_rr(r, 20 * MS);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_RR);
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_ACTIVE);
}

/* The capture from frame 1 to 17: after our RR(F) at 0, Linux polls at
 * these times; we answer each with RR(F) Nr=6 (`8e d1`). */
static const uint64_t poll_us[] = { 61505, 173819, 333920, 541937, 797650, 1110414, 1462044,
				    1878292 };
static const uint8_t frame_poll[] = { 0x8f, 0x91 };     /* frames 2, 4, ... 16 */
static const uint8_t frame_rr_f[] = { 0x8e, 0xd1 };     /* frames 1, 3, ... 17 */
static const uint8_t frame18[] = { 0x8f, 0x9c, 0x80, 0x19, 0x01, 0x00 };
static const uint8_t frame19_rd[] = { 0x8e, 0x53 };

enum order {
	CAPTURE,        /* 75 us after the idle timer fired */
	SAME_TICK_CONNECT_FIRST,
	SAME_TICK_TIMER_FIRST,
	JUST_BEFORE,    /* 1 us before the timer */
};

/* Up to frame 17 of the capture; returns when the idle timer fires. */
static uint64_t replay_to_frame17(struct rig *r)
{
	uint64_t t0, idle_at;

	linux_connects(r);
	linux_ias_lookup(r, 100 * MS);
	t0 = linux_ias_lookup(r, 200 * MS); /* frame 1: our RR(F), Vr 6, Vs 4 */
	assert_int_equal(r->pvs, 6);
	assert_int_equal(r->pvr, 4);
	assert_memory_equal(r->out[r->nout - 1].b, frame_rr_f, sizeof(frame_rr_f));
	idle_at = irlmp_deadline(r->lm);
	assert_int_equal(idle_at, t0 + 2 * SEC); /* LM_IDLE_TIMEOUT */
	for (size_t i = 0; i < sizeof(poll_us) / sizeof(poll_us[0]); i++) {
		peer_frame(r, frame_poll, sizeof(frame_poll), t0 + poll_us[i], true);
		assert_int_equal(r->nout, r->seen + 1);
		assert_int_equal(r->out[r->seen].len, sizeof(frame_rr_f));
		assert_memory_equal(r->out[r->seen].b, frame_rr_f, sizeof(frame_rr_f));
		r->seen++;
	}
	return idle_at;
}

static void connect_during_idle_close(enum order order)
{
	struct rig *r = rig_new();
	uint64_t idle_at = replay_to_frame17(r);
	uint64_t t18 = idle_at;
	bool timers_first = order != SAME_TICK_CONNECT_FIRST;
	uint8_t q[128];
	size_t qn = ias_query_pdu(q, sizeof(q));
	struct heard h;

	if (order == CAPTURE)
		t18 = idle_at + 75;
	else if (order == JUST_BEFORE)
		t18 = idle_at - 1;
	/* Frame 18 (the peer's Ns 6 / Nr 4 match our state byte for byte). */
	r->pvs = 7;
	peer_frame(r, frame18, sizeof(frame18), t18, timers_first);
	/* Not frame 19's RD: our connect confirm, I(F) Ns 4 Nr 7. */
	assert_false(r->out[r->seen].len == sizeof(frame19_rd) &&
		     memcmp(r->out[r->seen].b, frame19_rd, sizeof(frame19_rd)) == 0);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_I);
	assert_int_equal(h.n_i, 1);
	assert_memory_equal(h.pdu[0], confirm_from_ias, sizeof(confirm_from_ias));
	assert_int_equal(r->out[r->nout - 1].b[0], 0x8e);
	assert_int_equal(r->out[r->nout - 1].b[1], 0xf8); /* Nr 7, F, Ns 4 */
	assert_int_equal(irlap_get_state(r->st), IRLAP_NRM_S);
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_ACTIVE);
	assert_int_equal(irlmp_count(r->lm, false), 1);
	assert_int_equal(irlmp_deadline(r->lm), UINT64_MAX); /* no idle timer while in use */
	/* The IAS query is answered. */
	peer_i(r, q, qn, t18 + 10 * MS);
	hear(r, &h);
	assert_int_equal(h.n_i, 1);
	check_ias_answer(h.pdu[0], h.pdu_len[0]);
	/* The peer disconnects; the link stays the idle time again, then
	 * our next answer is RD, the peer's DISC closes it. */
	peer_i(r, disconnect_ias, sizeof(disconnect_ias), t18 + 20 * MS);
	hear(r, &h);
	assert_int_equal(irlmp_deadline(r->lm), t18 + 20 * MS + 2 * SEC);
	peer_rr(r, t18 + 20 * MS + 2 * SEC - 1);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_RR);
	peer_rr(r, t18 + 20 * MS + 2 * SEC + 50 * MS);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_RD);
	peer_u(r, IRLAP_C_DISC, t18 + 20 * MS + 2 * SEC + 60 * MS);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_UA);
	assert_int_equal(r->links_down, 1);
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_STANDBY);
	assert_int_equal(ias_server_answered(r->srv), 3); /* two lookups + this one */
	rig_free(r);
}

static void capture_order(void **state) { (void)state; connect_during_idle_close(CAPTURE); }
static void same_tick_connect_first(void **state)
{
	(void)state;
	connect_during_idle_close(SAME_TICK_CONNECT_FIRST);
}
static void same_tick_timer_first(void **state)
{
	(void)state;
	connect_during_idle_close(SAME_TICK_TIMER_FIRST);
}
static void just_before_timer(void **state) { (void)state; connect_during_idle_close(JUST_BEFORE); }

/* The RD is already out (the poll before the connect came after the
 * timer): the link goes down as decided, the peer's late Connect is not
 * half taken, and the next connection is served normally. */
static void secondary_rd_already_out(void **state)
{
	struct rig *r = rig_new();
	uint64_t idle_at = replay_to_frame17(r);
	uint8_t q[128];
	size_t qn = ias_query_pdu(q, sizeof(q));
	struct heard h;

	(void)state;
	peer_rr(r, idle_at + 10);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_RD);
	assert_int_equal(irlap_get_state(r->st), IRLAP_SCLOSE);
	/* A peer that sends its Connect anyway: RD again, nothing taken. */
	peer_i(r, connect_to_ias, sizeof(connect_to_ias), idle_at + 20);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_RD);
	assert_int_equal(irlmp_count(r->lm, false), 0);
	peer_u(r, IRLAP_C_DISC, idle_at + 30 * MS);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_UA);
	assert_int_equal(r->links_down, 1);
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_STANDBY);
	assert_int_equal(irlmp_count(r->lm, false), 0);
	assert_int_equal(irlmp_count(r->lm, true), 1); /* the IAS server still listens */
	assert_int_equal(irlmp_deadline(r->lm), UINT64_MAX);
	/* Linux connects again: served. */
	peer_snrm(r, idle_at + 2 * SEC);
	peer_i(r, connect_to_ias, sizeof(connect_to_ias), idle_at + 2 * SEC + 10 * MS);
	hear(r, &h);
	assert_int_equal(h.n_i, 1);
	assert_memory_equal(h.pdu[0], confirm_from_ias, sizeof(confirm_from_ias));
	peer_i(r, q, qn, idle_at + 2 * SEC + 20 * MS);
	hear(r, &h);
	check_ias_answer(h.pdu[0], h.pdu_len[0]);
	rig_free(r);
}

/* ---- primary ----------------------------------------------------------- */

static void on_ias(void *ctx, int ret, const struct ias_response *resp)
{
	struct rig *r = ctx;

	(void)resp;
	r->ias_done = true;
	r->ias_ret = ret;
}

/* The peer's IAS base answers our query. */
static void peer_answers_query(struct rig *r, const struct heard *h, uint64_t t)
{
	struct ias_db *peer_db = ias_db_new("linuxpeer");
	uint8_t pdu[256];
	size_t n;

	assert_non_null(peer_db);
	assert_int_equal(h->n_i, 1);
	assert_true(h->pdu_len[0] > 2);
	pdu[0] = h->pdu[0][1];
	pdu[1] = h->pdu[0][0];
	n = ias_db_answer(peer_db, h->pdu[0] + 2, h->pdu_len[0] - 2, pdu + 2, sizeof(pdu) - 2);
	assert_true(n > 0);
	peer_i(r, pdu, n + 2, t);
	ias_db_free(peer_db);
}

/* We look up the peer's Device name as primary, the LSAP closes, the
 * peer answers our idle polls at once.  Returns our idle deadline. */
/* Our SNRM is out: the peer answers UA on the connection address we
 * chose and becomes our secondary. */
static void peer_answers_snrm(struct rig *r)
{
	struct irlap_connect_info ci = { .saddr = PEER_ADDR, .daddr = OUR_ADDR,
					 .qos = linux_qos };
	struct irlap_connect_info snrm;
	struct irlap_frame f;
	uint8_t ua[64];
	size_t n;

	assert_int_equal(r->nout, r->seen + 1);
	assert_int_equal(irlap_frame_parse(r->out[r->seen].b, r->out[r->seen].len, &f), 0);
	assert_int_equal(f.type, IRLAP_F_SNRM);
	assert_int_equal(irlap_snrm_parse(&f, &snrm), 0);
	r->seen = r->nout;
	r->caddr = snrm.ncaddr;
	r->peer_primary = false;
	r->pvs = r->pvr = 0;
	n = irlap_ua_connect_build(ua, sizeof(ua), r->caddr, &ci);
	peer_frame(r, ua, n, r->now + 20 * MS, true);
	/* Our first poll waits for the peer's speed switch (irnet-irlap.md):
	 * run our timers until it is out. */
	for (int guard = 0; guard < 100 && r->seen == r->nout; guard++)
		advance(r, irlap_deadline(r->st), true);
}

/* The peer has our IAS client's LSAP connect in h: it confirms it, then
 * answers the query, each gap_us after the last; the lookup succeeds. */
static void peer_confirms_and_answers(struct rig *r, struct heard *h, uint64_t gap_us)
{
	uint8_t confirm[4];

	assert_int_equal(h->n_i, 1);
	assert_int_equal(h->pdu[0][2], IRLMP_OP_CONNECT);
	confirm[0] = (uint8_t)(0x80 | h->pdu[0][1]);
	confirm[1] = h->pdu[0][0] & 0x7f;
	confirm[2] = IRLMP_OP_CONNECT_CONF;
	confirm[3] = 0;
	peer_i(r, confirm, sizeof(confirm), r->now + gap_us);
	hear(r, h);
	peer_answers_query(r, h, r->now + gap_us);
	assert_true(r->ias_done);
	assert_int_equal(r->ias_ret, IAS_SUCCESS);
}

/* Our IAS client's LSAP connect reaches the peer (answering our polls
 * until it comes), which confirms and answers the query. */
static void peer_serves_our_lookup(struct rig *r)
{
	struct heard h;

	hear(r, &h);
	for (int guard = 0; guard < 3 && h.n_i == 0; guard++) {
		peer_rr(r, r->now + 1 * MS);
		hear(r, &h);
	}
	peer_confirms_and_answers(r, &h, 1 * MS);
}

/* We look up the peer's Device name as primary, the LSAP closes, the
 * peer answers our idle polls at once.  Returns our idle deadline. */
static uint64_t our_lookup(struct rig *r)
{
	struct heard h;

	r->now = 1 * SEC;
	assert_non_null(ias_query_start(r->lm, PEER_ADDR, "Device", "DeviceName", on_ias, r,
					r->now));
	advance(r, r->now, true);
	peer_answers_snrm(r);
	peer_serves_our_lookup(r);
	/* Our LSAP disconnect goes out in the next turn. */
	hear(r, &h);
	if (h.n_i == 0) {
		peer_rr(r, r->now + 1 * MS);
		hear(r, &h);
	}
	assert_int_equal(h.n_i, 1);
	assert_int_equal(h.pdu[0][2], IRLMP_OP_DISCONNECT);
	peer_rr(r, r->now + 1 * MS);
	advance(r, r->now, true);
	return irlmp_deadline(r->lm);
}

/* Answers our polls at once until one is out within 300 ms of the idle
 * deadline; returns with that poll unanswered. */
static void polls_until_near(struct rig *r, uint64_t idle_at)
{
	struct heard h;

	for (int guard = 0; guard < 1000; guard++) {
		if (r->seen == r->nout) {
			uint64_t d = irlap_deadline(r->st);

			assert_true(r->now < idle_at);
			advance(r, d < idle_at ? d : idle_at, true);
			continue;
		}
		hear(r, &h);
		assert_int_equal(h.last, IRLAP_F_RR);
		if (r->now + 300 * MS >= idle_at)
			return;
		peer_rr(r, r->now + 1 * MS);
	}
	fail_msg("no poll near the idle deadline");
}

static void primary_connect_in_poll_answer(void **state)
{
	struct rig *r = rig_new();
	uint64_t idle_at;
	uint8_t q[128];
	size_t qn = ias_query_pdu(q, sizeof(q));
	struct heard h;

	(void)state;
	idle_at = our_lookup(r);
	assert_true(idle_at < UINT64_MAX);
	polls_until_near(r, idle_at);
	assert_int_equal(irlap_get_state(r->st), IRLAP_NRM_P);
	/* The timer fires while our poll is out: the DISC waits for F. */
	advance(r, idle_at + 75, true);
	assert_int_equal(r->seen, r->nout);
	/* The peer's answer carries a Connect to our IAS. */
	peer_i(r, connect_to_ias, sizeof(connect_to_ias), idle_at + 75);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_I);
	assert_memory_equal(h.pdu[0], confirm_from_ias, sizeof(confirm_from_ias));
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_ACTIVE);
	assert_int_equal(r->links_down, 0);
	peer_i(r, q, qn, idle_at + 10 * MS);
	hear(r, &h);
	assert_int_equal(h.n_i, 1);
	check_ias_answer(h.pdu[0], h.pdu_len[0]);
	rig_free(r);
}

static void start_query(struct rig *r);
static void our_link_serves_query(struct rig *r, uint64_t t0);

/* At the deadline we hold the token and say DISC at once: the peer's
 * Connect, sent anyway, is not taken; UA ends the link cleanly. */
static void primary_disc_already_out(void **state)
{
	struct rig *r = rig_new();
	uint64_t idle_at;
	struct heard h;

	(void)state;
	idle_at = our_lookup(r);
	polls_until_near(r, idle_at);
	/* The peer answers every poll at once: at the deadline we hold the
	 * token, waiting to poll again. */
	peer_rr(r, r->now + 1 * MS);
	for (int guard = 0; guard < 100 && irlap_get_state(r->st) != IRLAP_PCLOSE; guard++) {
		uint64_t d1 = irlap_deadline(r->st), d2 = irlmp_deadline(r->lm);

		if (r->seen < r->nout) {
			hear(r, &h);
			peer_rr(r, r->now + 1 * MS);
			continue;
		}
		advance(r, d1 < d2 ? d1 : d2, true);
	}
	hear(r, &h);
	assert_int_equal(r->out[r->nout - 1].at, idle_at);
	assert_int_equal(h.last, IRLAP_F_DISC);
	assert_int_equal(irlap_get_state(r->st), IRLAP_PCLOSE);
	peer_i(r, connect_to_ias, sizeof(connect_to_ias), r->now + 1 * MS);
	assert_int_equal(irlmp_count(r->lm, false), 0);
	peer_u(r, IRLAP_C_UA, r->now + 1 * MS);
	assert_int_equal(r->links_down, 1);
	assert_int_equal(r->down_reason, IRLAP_REASON_USER);
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_STANDBY);
	assert_int_equal(irlmp_count(r->lm, false), 0);
	assert_int_equal(irlmp_count(r->lm, true), 1);
	/* The next lookup opens a new link at once. */
	r->ias_done = false;
	start_query(r);
	our_link_serves_query(r, r->now);
	rig_free(r);
}

/* The other way round: our connect is on its way when the peer, which
 * had already decided to close the idle link, sends DISC.  Our IrLMP
 * opens the link again (once, within the connect's deadline) and the
 * lookup completes instead of failing. */
static void our_connect_lost_to_peer_idle_close(void **state)
{
	struct rig *r = rig_new();
	struct heard h;
	uint64_t t0;

	(void)state;
	linux_connects(r);
	t0 = r->now;
	assert_non_null(ias_query_start(r->lm, PEER_ADDR, "Device", "DeviceName", on_ias, r,
					r->now));
	peer_rr(r, r->now + 50 * MS);
	hear(r, &h);
	assert_int_equal(h.n_i, 1);
	assert_int_equal(h.pdu[0][2], IRLMP_OP_CONNECT);
	/* The peer's disconnect was decided: DISC, not a confirm. */
	peer_u(r, IRLAP_C_DISC, r->now + 1 * MS);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_UA);
	assert_int_equal(r->links_down, 1);
	assert_int_equal(r->down_reason, IRLAP_REASON_PEER);
	assert_false(r->ias_done);
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_U_CONNECT);
	/* After the medium has been quiet: SNRM, and the lookup goes on. */
	advance(r, irlap_deadline(r->st), true);
	peer_answers_snrm(r);
	peer_serves_our_lookup(r);
	assert_true(r->now - t0 < 5 * SEC); /* within the connect watchdog */
	rig_free(r);
}


/*
 * tests/clients/libdivecomputer.sh, seen with irdad -v -v: we are
 * primary on an idle link whose peer has gone (it dropped the link while
 * the line was stopped) and our idle disconnect waits for an answer that
 * never comes.  A new connect withdraws that disconnect and is queued on
 * the dying link; when N2 ends it, the connect was never answered, so it
 * is made again on a new link (once, within its first deadline) instead
 * of failing with the old link.
 */
static void our_connect_on_a_link_in_recovery_relinks(void **state)
{
	struct rig *r = rig_new();
	uint64_t silent_from, asked_at;

	(void)state;
	our_lookup(r);
	silent_from = r->now;
	/* The peer is gone: nothing answers our polls (or the idle close). */
	while (r->now < silent_from + 9 * SEC && r->links_down == 0) {
		advance(r, irlap_deadline(r->st), true);
		r->seen = r->nout;
	}
	assert_int_equal(r->links_down, 0);
	asked_at = r->now;
	r->ias_done = false;
	assert_non_null(ias_query_start(r->lm, PEER_ADDR, "Device", "DeviceName", on_ias, r,
					r->now));
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_ACTIVE);
	for (int guard = 0; guard < 1000 && r->links_down == 0; guard++) {
		advance(r, irlap_deadline(r->st), true);
		r->seen = r->nout;
	}
	assert_int_equal(r->links_down, 1);
	assert_int_equal(r->down_reason, IRLAP_REASON_NO_RESPONSE);
	assert_false(r->ias_done);
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_U_CONNECT);
	/* The peer is back in range: our SNRM, its UA, the lookup. */
	for (int guard = 0; guard < 100 && r->seen == r->nout; guard++)
		advance(r, irlap_deadline(r->st), true);
	peer_answers_snrm(r);
	peer_serves_our_lookup(r);
	assert_true(r->now - asked_at < 5 * SEC); /* within the connect watchdog */
	rig_free(r);
}

/* ---- after the link ends: the next one at once -------------------------- */

/*
 * obex-after-peer-disc-run*.pcap (shared/data/linux-interop): Linux was
 * primary; both LSAPs disconnected at once, Linux polled for 2 s, then
 * its idle DISC reached us just as our own idle timer had fired (frame
 * 953), and we said UA.  Linux then discovered every 3.07 s (6 slots 92
 * ms apart, the final XID 105 ms after slot 5: frames 955-962).  Our
 * client's IAS query made then was refused ("cannot start an IAS query
 * now": IrLAP said -EBUSY while answering the discovery) or its SNRM
 * never went out ("no answer": the discovery's query timer took the
 * media timer's slot), and Linux's next SNRM got DM (IrLMP, still in
 * U_CONNECT, refused it).
 */
#define XID_GAP (92 * MS)

/* Linux's IAS lookup, both ends closing, its DISC 20 ms after our idle
 * timer fired (our RD not yet out), our UA.  Returns the UA's time. */
static uint64_t replay_close(struct rig *r)
{
	uint64_t t0, idle_at;
	struct heard h;

	linux_connects(r);
	t0 = linux_ias_lookup(r, 100 * MS);
	idle_at = irlmp_deadline(r->lm);
	assert_int_equal(idle_at, t0 + 2 * SEC);
	peer_rr(r, t0 + SEC);
	hear(r, &h);
	advance(r, idle_at + 20 * MS, true); /* our disconnect waits for the token */
	assert_int_equal(irlap_get_state(r->st), IRLAP_NRM_S);
	peer_u(r, IRLAP_C_DISC, idle_at + 20 * MS);
	hear(r, &h);
	assert_int_equal(h.last, IRLAP_F_UA);
	assert_int_equal(irlap_get_state(r->st), IRLAP_NDM);
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_STANDBY);
	return r->now;
}

static void peer_xid(struct rig *r, uint8_t slot, uint64_t t)
{
	struct irlap_xid x = { .cmd = true, .saddr = PEER_ADDR, .daddr = IRLAP_BROADCAST_DADDR,
			       .slots = 6, .slot = slot };
	uint8_t f[64];
	size_t n;

	if (slot == IRLAP_XID_FINAL_SLOT) {
		x.has_info = true;
		x.info.nhints = 1;
		x.info.hints[0] = 0x04;
		x.info.nickname_len = 9;
		memcpy(x.info.nickname, "linuxpeer", 9);
	}
	n = irlap_xid_build(f, sizeof(f), &x);
	assert_true(n > 0);
	peer_frame(r, f, n, t, true);
	r->seen = r->nout; /* our XID answer, if any */
}

/* One discovery round of Linux's from t; before slot `at_slot` (6: before
 * the final XID) fn runs.  Returns the final XID's time. */
static uint64_t peer_discovery(struct rig *r, uint64_t t, unsigned at_slot,
			       void (*fn)(struct rig *))
{
	for (unsigned s = 0; s < 6; s++) {
		if (s == at_slot && fn)
			fn(r);
		peer_xid(r, (uint8_t)s, t + s * XID_GAP);
	}
	if (at_slot == 6 && fn)
		fn(r);
	peer_xid(r, IRLAP_XID_FINAL_SLOT, t + 5 * XID_GAP + 105 * MS);
	return r->now;
}

static void start_query(struct rig *r)
{
	assert_non_null(ias_query_start(r->lm, PEER_ADDR, "Device", "DeviceName", on_ias, r,
					r->now));
}

/* Our SNRM goes out (within 1 s of the round's end) and the lookup is
 * served on that link. */
static void our_link_serves_query(struct rig *r, uint64_t t0)
{
	for (int guard = 0; guard < 100 && r->seen == r->nout; guard++) {
		uint64_t d1 = irlap_deadline(r->st), d2 = irlmp_deadline(r->lm);
		assert_true((d1 < d2 ? d1 : d2) < UINT64_MAX);
		advance(r, d1 < d2 ? d1 : d2, true);
	}
	assert_true(r->now - t0 < SEC);
	peer_answers_snrm(r);
	peer_serves_our_lookup(r);
}

/* Run 2: the query is made while we answer Linux's discovery. */
static void relink_query_during_peer_discovery(void **state)
{
	struct rig *r = rig_new();
	uint64_t end;

	(void)state;
	end = peer_discovery(r, replay_close(r) + 3 * SEC, 2, start_query);
	our_link_serves_query(r, end);
	rig_free(r);
}

/* The query is made while the medium is still busy after the link (our
 * SNRM waits for the media timer) and Linux's discovery starts then:
 * the SNRM goes out after the round. */
static void relink_query_before_peer_discovery(void **state)
{
	struct rig *r = rig_new();
	uint64_t ua = replay_close(r), end;

	(void)state;
	advance(r, ua + 100 * MS, true);
	start_query(r);
	end = peer_discovery(r, ua + 300 * MS, 7, NULL);
	our_link_serves_query(r, end);
	rig_free(r);
}

/* Linux's SNRM comes while our connect still waits (the medium busy
 * after its final XID): UA, not DM, and our lookup goes out on its link
 * (run 1 answered that SNRM with DM). */
static void relink_peer_snrm_while_ours_waits(void **state)
{
	struct rig *r = rig_new();
	uint64_t end;
	struct heard h;

	(void)state;
	end = peer_discovery(r, replay_close(r) + 3 * SEC, 6, start_query);
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_U_CONNECT);
	peer_snrm(r, end + 50 * MS); /* asserts our UA */
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_ACTIVE);
	peer_rr(r, r->now + 20 * MS);
	hear(r, &h);
	peer_confirms_and_answers(r, &h, 10 * MS);
	/* IrLAP's own connect was taken by this link: no SNRM later. */
	advance(r, r->now + 2 * SEC, true);
	for (; r->seen < r->nout; r->seen++) {
		struct irlap_frame f;
		assert_int_equal(irlap_frame_parse(r->out[r->seen].b, r->out[r->seen].len, &f), 0);
		assert_int_not_equal(f.type, IRLAP_F_SNRM);
	}
	rig_free(r);
}

/*
 * A DISC crossing our UA: Linux's F-timer ran out while our UA to its
 * DISC was on its way, so it did not take the UA and stays in PCLOSE,
 * saying DISC again each F-timer (500 ms), N3 = 3 times, deaf to
 * anything but UA or DM, and only then gives up (irda-digest 7: PCLOSE).
 * Our lookup, made just after our UA, must not wait out those 2 s nor
 * be lost to the stale DISC: we answer it DM (we are in NDM: there is no
 * link), Linux leaves PCLOSE, and our SNRM is served at once.
 */
#define LINUX_F_TIMER (500 * MS)
#define LINUX_N3 3

/* Linux in PCLOSE from disc_at: runs our side until it has heard UA or
 * DM from us (or its N3 resends are spent); frames of ours before that
 * are lost on it.  Returns the time it left PCLOSE, and whether we made
 * it leave in *answered. */
static uint64_t linux_in_pclose(struct rig *r, uint64_t disc_at, bool *answered)
{
	uint64_t next = disc_at + LINUX_F_TIMER;
	unsigned resent = 0;

	*answered = false;
	for (int guard = 0; guard < 1000; guard++) {
		uint64_t d1 = irlap_deadline(r->st), d2 = irlmp_deadline(r->lm);
		uint64_t d = d1 < d2 ? d1 : d2;

		for (; r->seen < r->nout; r->seen++) {
			struct irlap_frame f;

			assert_int_equal(irlap_frame_parse(r->out[r->seen].b, r->out[r->seen].len,
							   &f), 0);
			if (f.type == IRLAP_F_UA || f.type == IRLAP_F_DM) {
				assert_int_equal(f.caddr, CADDR); /* the old link's */
				r->seen++;
				*answered = true;
				return r->now;
			}
		}
		if (next > d) {
			advance(r, d, true);
			continue;
		}
		if (resent == LINUX_N3) {
			advance(r, next, true);
			return next;
		}
		peer_u(r, IRLAP_C_DISC, next);
		resent++;
		next += LINUX_F_TIMER;
	}
	fail_msg("Linux's PCLOSE never ended");
	return 0;
}

static void relink_after_disc_crossing_our_ua(void **state)
{
	struct rig *r = rig_new();
	uint64_t ua = replay_close(r), left;
	bool answered;

	(void)state;
	r->seen = r->nout; /* the UA Linux did not take */
	advance(r, ua + 100 * MS, true);
	start_query(r);
	left = linux_in_pclose(r, ua, &answered);
	assert_true(answered);
	assert_true(left < ua + LINUX_F_TIMER + 100 * MS); /* its first resend */
	assert_false(r->ias_done);
	our_link_serves_query(r, left);
	rig_free(r);
}

/* The peer's link timeout, we being secondary: the primary went out of
 * range (it may already have dropped the link) and polls no more.  A
 * lookup made meanwhile cannot go out (we may not speak unpolled), and
 * the link takes its disconnect time (12 s here) to end, longer than the
 * connect watchdog (5 s): the lookup waits, and when our WD-timer ends
 * the link it is made on a new one, with our SNRM, at once. */
static void relink_after_peer_link_timeout(void **state)
{
	struct rig *r = rig_new();
	uint64_t asked_at, down_at;

	(void)state;
	linux_connects(r);
	linux_ias_lookup(r, 100 * MS);
	advance(r, r->now + 1 * SEC, true);
	asked_at = r->now;
	start_query(r);
	for (int guard = 0; guard < 1000 && r->links_down == 0; guard++) {
		advance(r, irlap_deadline(r->st), true);
		r->seen = r->nout; /* our answers, to nobody */
	}
	assert_int_equal(r->links_down, 1);
	assert_int_equal(r->down_reason, IRLAP_REASON_NO_RESPONSE);
	assert_false(r->ias_done);
	down_at = r->now;
	assert_true(down_at - asked_at > 5 * SEC);
	for (int guard = 0; guard < 100 && r->seen == r->nout; guard++)
		advance(r, irlap_deadline(r->st), true);
	peer_answers_snrm(r);
	peer_serves_our_lookup(r);
	assert_true(r->now - down_at < SEC);
	rig_free(r);
}

/* The peer's link timeout the other way: the primary dropped the link
 * (its WD ran out first) and connects again with a fresh SNRM while we
 * still hold the old one.  We take the new link at once (UA), and the
 * lookup we had queued on the old one goes out on it. */
static void peer_snrm_after_its_link_timeout(void **state)
{
	struct rig *r = rig_new();
	struct heard h;

	(void)state;
	linux_connects(r);
	linux_ias_lookup(r, 100 * MS);
	advance(r, r->now + 1 * SEC, true);
	start_query(r);
	r->seen = r->nout;
	peer_snrm(r, r->now + 500 * MS); /* asserts our UA */
	assert_int_equal(r->links_down, 1);
	assert_int_equal(irlmp_get_lap_state(r->lm), IRLMP_LAP_ACTIVE);
	peer_rr(r, r->now + 20 * MS);
	hear(r, &h);
	peer_confirms_and_answers(r, &h, 10 * MS);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(capture_order),
		cmocka_unit_test(same_tick_connect_first),
		cmocka_unit_test(same_tick_timer_first),
		cmocka_unit_test(just_before_timer),
		cmocka_unit_test(secondary_rd_already_out),
		cmocka_unit_test(primary_connect_in_poll_answer),
		cmocka_unit_test(primary_disc_already_out),
		cmocka_unit_test(our_connect_lost_to_peer_idle_close),
		cmocka_unit_test(our_connect_on_a_link_in_recovery_relinks),
		cmocka_unit_test(relink_query_during_peer_discovery),
		cmocka_unit_test(relink_query_before_peer_discovery),
		cmocka_unit_test(relink_peer_snrm_while_ours_waits),
		cmocka_unit_test(relink_after_disc_crossing_our_ua),
		cmocka_unit_test(relink_after_peer_link_timeout),
		cmocka_unit_test(peer_snrm_after_its_link_timeout),
	};
	return cmocka_run_group_tests_name("irlmp_idle", tests, NULL, NULL);
}
