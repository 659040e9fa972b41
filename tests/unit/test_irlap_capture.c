/*
 * test_irlap_capture.c: conformance against a real Linux IrNET session
 * (tests/fixtures/linux-irnet-session.pcap, 343 IrLAP frames between
 * "alpha", packet type 4, and "beta", packet type 0).
 *
 *  - The frame parser decodes every frame, and every XID, SNRM and UA
 *    I-field in it.
 *  - A station replaying alpha's side (discovery initiator, secondary)
 *    accepts beta's frames in order, and one replaying beta's side
 *    (passive discovery, primary) accepts alpha's: nothing ignored, no
 *    FRMR, no reset, no disconnect, every I-frame payload delivered in
 *    order, and the replaying station sends the same payloads its
 *    original did (they are queued as data just before the token
 *    reaches it).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
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
#include "pcap.h"
#include "pcap_file.h"
#include "test_support.h"

#define ALPHA 0xbdba852cu /* wire 2c 85 ba bd */
#define BETA 0xffbbc905u  /* wire 05 c9 bb ff */
#define MAX_RECORDS 400
#define PAYLOAD_MAX (512 * 1024)

struct rec {
	uint64_t ts;
	bool from_alpha;
	uint8_t frame[2100];
	size_t len;
};

static struct rec recs[MAX_RECORDS];
static size_t nrecs;

static int load(void **state)
{
	uint8_t *data;
	size_t len;
	struct pcap_reader pr;
	struct pcap_record r;
	int rc;

	if (load_reference_capture(&data, &len) != 0) {
		fprintf(stderr, "cannot load %s\n", reference_capture_path());
		return -1;
	}
	if (pcap_reader_init(&pr, data, len) != 0) {
		free(data);
		return -1;
	}
	nrecs = 0;
	while ((rc = pcap_reader_next(&pr, &r)) == 1 && nrecs < MAX_RECORDS) {
		struct rec *x = &recs[nrecs++];
		x->ts = r.ts_us;
		x->from_alpha = r.dir == PCAP_DIR_TX;
		x->len = r.frame_len < sizeof(x->frame) ? r.frame_len : sizeof(x->frame);
		memcpy(x->frame, r.frame, x->len);
	}
	free(data);
	return rc == 0 ? 0 : -1;
}

static void parses_every_frame(void **state)
{
	unsigned count[IRLAP_F_UNKNOWN + 1] = { 0 };

	assert_int_equal(nrecs, 343);
	for (size_t i = 0; i < nrecs; i++) {
		struct irlap_frame f;
		struct irlap_xid x;
		struct irlap_connect_info ci;

		assert_int_equal(irlap_frame_parse(recs[i].frame, recs[i].len, &f), 0);
		assert_int_not_equal(f.type, IRLAP_F_UNKNOWN);
		count[f.type]++;
		/* Alpha is the secondary once connected: its frames are responses. */
		if (f.caddr != IRLAP_BROADCAST)
			assert_int_equal(f.cmd, !recs[i].from_alpha);
		switch (f.type) {
		case IRLAP_F_XID_CMD:
		case IRLAP_F_XID_RSP:
			assert_int_equal(irlap_xid_parse(&f, &x), 0);
			if (x.has_info)
				assert_true(x.info.nickname_len == 4 || x.info.nickname_len == 5);
			break;
		case IRLAP_F_SNRM:
			assert_int_equal(irlap_snrm_parse(&f, &ci), 0);
			assert_int_equal(ci.saddr, BETA);
			assert_int_equal(ci.daddr, ALPHA);
			assert_int_equal(ci.ncaddr, 0x63);
			assert_int_equal(ci.qos.baud, 0x3e);
			break;
		case IRLAP_F_UA:
			assert_int_equal(irlap_ua_parse(&f, &ci), 0);
			assert_int_equal(ci.saddr, ALPHA);
			assert_int_equal(ci.qos.window, 0x7f);
			break;
		default:
			break;
		}
	}
	assert_int_equal(count[IRLAP_F_XID_CMD], 7);
	assert_int_equal(count[IRLAP_F_XID_RSP], 1);
	assert_int_equal(count[IRLAP_F_SNRM], 1);
	assert_int_equal(count[IRLAP_F_UA], 1);
	assert_int_equal(count[IRLAP_F_I], 192);
	assert_int_equal(count[IRLAP_F_RR], 141);
}

/* ---- replay ------------------------------------------------------------- */

struct replay {
	struct irlap *st;
	bool as_alpha;
	uint8_t caddr;           /* ours, once known */
	uint8_t sent_payloads[PAYLOAD_MAX];
	size_t sent_len;
	uint8_t got[PAYLOAD_MAX];
	size_t got_len;
	unsigned frmr, resets, disconnects, connects;
	uint8_t next_queue_ns;   /* next Ns of ours to queue */
};

static void r_send(void *ctx, const uint8_t *frame, size_t len, const struct irlap_txinfo *tx)
{
	struct replay *r = ctx;
	struct irlap_frame f;

	assert_int_equal(irlap_frame_parse(frame, len, &f), 0);
	if (f.type == IRLAP_F_SNRM && len > 10)
		r->caddr = frame[10] >> 1;
	if (f.type == IRLAP_F_FRMR)
		r->frmr++;
	if (f.type == IRLAP_F_I) {
		assert_true(r->sent_len + f.info_len <= sizeof(r->sent_payloads));
		memcpy(r->sent_payloads + r->sent_len, f.info, f.info_len);
		r->sent_len += f.info_len;
	}
}

static void r_event(void *ctx, const struct irlap_event *ev)
{
	struct replay *r = ctx;

	switch (ev->type) {
	case IRLAP_EV_DATA:
		assert_true(r->got_len + ev->len <= sizeof(r->got));
		memcpy(r->got + r->got_len, ev->data, ev->len);
		r->got_len += ev->len;
		break;
	case IRLAP_EV_CONNECT_IND: {
		struct irlap_request a = { .type = IRLAP_REQ_ACCEPT };
		assert_int_equal(irlap_request(r->st, &a, 0), 0);
		break;
	}
	case IRLAP_EV_CONNECT_CONF: r->connects++; break;
	case IRLAP_EV_RESET: r->resets++; break;
	case IRLAP_EV_DISCONNECT: r->disconnects++; break;
	default: break;
	}
}

static bool ours(const struct replay *r, const struct rec *x)
{
	return x->from_alpha == r->as_alpha;
}

/* The token is about to reach us: queue the payloads of our original's
 * next turn (its frames up to the one with P/F), new Ns only. */
static void queue_our_turn(struct replay *r, size_t from, uint64_t now)
{
	for (size_t i = from; i < nrecs; i++) {
		struct irlap_frame f;

		if (!ours(r, &recs[i]))
			continue;
		assert_int_equal(irlap_frame_parse(recs[i].frame, recs[i].len, &f), 0);
		if (f.type == IRLAP_F_I && f.ns == r->next_queue_ns) {
			struct irlap_request q = { .type = IRLAP_REQ_DATA, .data = f.info,
						   .len = f.info_len };
			assert_int_equal(irlap_request(r->st, &q, now), 0);
			r->next_queue_ns = (r->next_queue_ns + 1) & 7;
		}
		if (f.pf)
			break;
	}
}

static uint64_t run_timers(struct replay *r, uint64_t now, uint64_t until)
{
	while (irlap_deadline(r->st) <= until) {
		if (irlap_deadline(r->st) > now)
			now = irlap_deadline(r->st);
		irlap_tick(r->st, now);
	}
	return until > now ? until : now;
}

static void replay(bool as_alpha)
{
	struct replay *r = calloc(1, sizeof(*r));
	struct irlap_config cfg;
	struct irlap_ops ops = { .send_frame = r_send, .deliver = r_event };
	uint8_t *expect_sent = malloc(PAYLOAD_MAX), *expect_got = malloc(PAYLOAD_MAX);
	size_t expect_sent_len = 0, expect_got_len = 0;
	uint8_t ns_seen[2] = { 0, 0 };
	uint64_t now = recs[0].ts - 1000;

	assert_non_null(r);
	assert_non_null(expect_sent);
	assert_non_null(expect_got);
	r->as_alpha = as_alpha;
	irlap_config_defaults(&cfg, 115200, 1000);
	cfg.daddr = as_alpha ? ALPHA : BETA;
	cfg.seed = 5;
	r->st = irlap_new(&cfg, &ops, r);
	assert_non_null(r->st);

	/* What each side sent for the first time, in order. */
	for (size_t i = 0; i < nrecs; i++) {
		struct irlap_frame f;
		int side = ours(r, &recs[i]) ? 0 : 1;

		irlap_frame_parse(recs[i].frame, recs[i].len, &f);
		if (f.type != IRLAP_F_I || f.ns != ns_seen[side])
			continue;
		ns_seen[side] = (ns_seen[side] + 1) & 7;
		assert_true(expect_sent_len + expect_got_len + f.info_len <= PAYLOAD_MAX);
		if (side == 0) {
			memcpy(expect_sent + expect_sent_len, f.info, f.info_len);
			expect_sent_len += f.info_len;
		} else {
			memcpy(expect_got + expect_got_len, f.info, f.info_len);
			expect_got_len += f.info_len;
		}
	}

	if (as_alpha) {
		struct irlap_request d = { .type = IRLAP_REQ_DISCOVER, .slots = 6 };
		assert_int_equal(irlap_request(r->st, &d, now), 0);
	}
	for (size_t i = 0; i < nrecs; i++) {
		struct rec *x = &recs[i];
		struct irlap_frame f;
		uint8_t frame[2100];
		uint64_t ignored;

		if (ours(r, x)) {
			irlap_frame_parse(x->frame, x->len, &f);
			if (f.type == IRLAP_F_SNRM) {
				/* Beta's SNRM: ours comes from a connect request. */
				struct irlap_request c = { .type = IRLAP_REQ_CONNECT, .daddr = ALPHA };
				now = run_timers(r, now, x->ts > now ? x->ts : now);
				assert_int_equal(irlap_request(r->st, &c, now), 0);
				assert_int_equal(irlap_get_state(r->st), IRLAP_SETUP);
			}
			continue;
		}
		memcpy(frame, x->frame, x->len);
		irlap_frame_parse(frame, x->len, &f);
		if (!as_alpha && f.caddr != IRLAP_BROADCAST) {
			/* Our connection address is our own choice: carry alpha's
			 * frames over to it; and feed them once we wait for them. */
			frame[0] = (uint8_t)(r->caddr << 1 | (frame[0] & 1));
			for (int k = 0; k < 2000 && irlap_get_state(r->st) == IRLAP_XMIT_P; k++)
				now = run_timers(r, now, irlap_deadline(r->st));
			now += 2000;
		} else {
			now = run_timers(r, now, x->ts > now ? x->ts : now);
		}
		if (f.pf && f.caddr != IRLAP_BROADCAST)
			queue_our_turn(r, i + 1, now);
		ignored = irlap_get_stats(r->st)->ignored;
		assert_int_equal(irlap_input(r->st, frame, x->len, now), 0);
		if (irlap_get_stats(r->st)->ignored != ignored) {
			char line[96];
			fail_msg("record %zu (%s) ignored in state %s", i + 1,
				 irlap_frame_describe(&f, line, sizeof(line)),
				 irlap_state_name(irlap_get_state(r->st)));
		}
	}
	assert_int_equal(r->connects, 1);
	assert_int_equal(r->frmr, 0);
	assert_int_equal(r->resets, 0);
	assert_int_equal(r->disconnects, 0);
	assert_true(irlap_is_connected(r->st));
	assert_true(expect_got_len > 1000);
	assert_int_equal(r->got_len, expect_got_len);
	assert_memory_equal(r->got, expect_got, expect_got_len);
	assert_int_equal(r->sent_len, expect_sent_len);
	assert_memory_equal(r->sent_payloads, expect_sent, expect_sent_len);
	irlap_free(r->st);
	free(r);
	free(expect_sent);
	free(expect_got);
}

static void replays_alpha_side(void **state) { replay(true); }
static void replays_beta_side(void **state) { replay(false); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_every_frame),
		cmocka_unit_test(replays_alpha_side),
		cmocka_unit_test(replays_beta_side),
	};
	return cmocka_run_group_tests_name("irlap_capture", tests, load, NULL);
}
