/*
 * test_hostile.c: a hostile peer (issue 16, point 1).  Station 1 of
 * rel_world.h runs the whole stack: IrLAP, IrLMP, IAS, the IrCOMM server,
 * an IrNET-like TinyTP SAR service and a TinyTP stream service; station 0
 * keeps a legitimate SAR and a stream connection to it, data both ways,
 * every byte checked.  Beside them, in the same virtual time, an attacker
 * hands station 1 HOSTILE_FRAMES frames (10^5 in `check`, 10^6 with
 * `make soak`) of random and state-violating content:
 *
 *  - IrLAP frames, given to irlap_input() as the SIR decoder would:
 *    random bytes, frames for other connection addresses, S-frames with
 *    an Nr that acknowledges nothing sent, I-frames with an Ns outside
 *    the receive window, I-frames in NDM, UA without SNRM, I-fields over
 *    the negotiated size, FRMR storms, XID floods from fresh addresses,
 *    TEST, undefined control bytes, and now and then a DISC on the live
 *    connection (which ends the link: the legitimate connections must
 *    report it, and come back);
 *  - above IrLAP, LM-PDUs handed to IrLMP as a link delivers them (a
 *    third party cannot put an I-frame in sequence; the attacker's
 *    payloads are what a peer's would be): PDUs for unconnected LSAPs,
 *    undefined LM control opcodes, TinyTP credit overflow, SAR SDUs over
 *    the announced MaxSduSize and SAR fragments that never end, IAS
 *    answers with absurd lengths and counts, IAS requests likewise,
 *    IrCOMM control parameters with wrong lengths;
 *  - PPP frames with a bad FCS into the async-HDLC decoder that an IrNET
 *    endpoint runs on pppd's side (IrNET frames on the air carry none).
 *
 * The attacker never uses the legitimate connections' LSAP pairs, nor an
 * in-window Ns or a valid Nr on the live link (its random frames avoid
 * the live connection address): nothing in IrDA authenticates a frame,
 * so those would be the peer's own as far as any stack can tell.
 *
 * Checked: no crash (ASan+UBSan in check-unit), the deadlines of station
 * 1's IrLAP and IrLMP always in the future and at most 60 s ahead; the
 * heap (the allocator wrapped, heap_count.h) bounded, its peak printed,
 * nothing left after the world is freed; each kind of frame met the
 * reaction it should (frames for other addresses, UA without SNRM, I in
 * NDM: no answer; oversize I-fields and the unknown: never delivered);
 * the legitimate connections never delivered a wrong byte, ended only
 * with a reported disconnect, and carry data again at the end.  The
 * table of kinds and reactions is printed, and `bench:` lines.  A wrong
 * delivery prints the attacker's last 32 strikes, and with HOSTILE_TRACE
 * set the stack's last 256 log lines (debug level: slow).
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
#include <time.h>
#include <cmocka.h>

#include "heap_count.h"
#include "ias.h"
#include "ircomm_param.h"
#include "irlap.h"
#include "irlap_frame.h"
#include "irlap_internal.h"   /* the attacker reads station 1's V(r), V(s), V(a) */
#include "irlmp.h"
#include "ppp_hdlc.h"
#include "rel_world.h"
#include "ttp.h"

#define SEC 1000000ull
#define ATTACK_GAP_US 200ull /* quiet between two of the attacker's frames */
#define NDM_BURST 40        /* frames the attacker sends while there is no link */
#define DISC_EVERY 25000    /* frames between two DISCs on the live link */

enum kind {
	K_RANDOM, K_OTHER_ADDR, K_WRONG_NR, K_WRONG_NS, K_I_NDM, K_UA_NO_SNRM, K_OVERSIZE_I,
	K_FRMR, K_XID_FLOOD, K_TEST, K_UNKNOWN_CTRL, K_DISC,
	K_LMP_UNCONNECTED, K_LMP_BAD_CTRL, K_TTP_CREDIT, K_SAR_OVERSIZE, K_SAR_ENDLESS,
	K_IAS_ANSWER, K_IAS_REQUEST, K_IRCOMM_PARAMS, K_PPP_BAD_FCS,
	K_N
};

static const char *const kind_name[K_N] = {
	"random bytes", "other address", "wrong Nr", "Ns outside window", "I in NDM",
	"UA without SNRM", "oversize I-field", "FRMR storm", "XID flood", "TEST",
	"undefined control", "DISC on live link", "LM-PDU unconnected", "LM bad control",
	"TTP credit overflow", "SAR over MaxSdu", "SAR never ends", "IAS answer absurd",
	"IAS request absurd", "IrCOMM bad params", "PPP bad FCS",
};

/* What station 1 did about one frame. */
enum reaction {
	R_NOTHING,     /* no frame, no counter moved */
	R_IGNORED,     /* IrLAP counted it ignored / IrLMP dropped it */
	R_S_FRAME,     /* RR, RNR, REJ, SREJ or I: the turn answered */
	R_FRMR,
	R_U_ANSWER,    /* UA, DM or RD */
	R_XID,         /* an XID answer */
	R_RESET,       /* the link was reset */
	R_LINK_DOWN,
	R_LMP_ANSWER,  /* IrLMP answered (disconnect, refusal) or a user took it */
	R_HDLC_DROP,   /* the HDLC decoder dropped it */
	R_N
};

static const char *const reaction_name[R_N] = {
	"nothing", "ignored", "RR/REJ/I", "FRMR", "UA/DM/RD", "XID", "reset", "link down",
	"LMP/user", "dropped",
};

struct attack {
	struct rel_world *w;
	uint64_t rng;
	uint64_t sent[K_N];
	uint64_t seen[K_N][R_N];
	/* station 1's frames during one injection */
	bool injecting;
	unsigned out_s, out_frmr, out_u, out_xid;
	/* checks */
	uint64_t answered_wrongly;   /* a frame that must get no answer got one */
	uint64_t delivered_wrongly;  /* an oversize I-field reached IrLMP */
	uint64_t deadline_bad;
	struct ppp_hdlc_decoder *hdlc;
	uint64_t hdlc_frames;
	uint64_t frames;
	unsigned ndm_burst;
	/* HOSTILE_TRACE: the stack's last log lines, for that report */
	char trace[256][160];
	unsigned ntrace;
	/* the last strikes, for the report of a corrupted delivery */
	struct { enum kind k; uint64_t at, frame; uint8_t head[8]; size_t n; } last[32];
};

static uint64_t rnd(struct attack *a)
{
	uint64_t z = (a->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned below(struct attack *a, unsigned n)
{
	return (unsigned)(rnd(a) % n);
}

static void fill_random(struct attack *a, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)rnd(a);
}

static void on_frame(void *ctx, int station, const uint8_t *frame, size_t len)
{
	struct attack *a = ctx;
	struct irlap_frame f;

	if (station != 1 || !a->injecting || irlap_frame_parse(frame, len, &f) != 0)
		return;
	switch (f.type) {
	case IRLAP_F_RR: case IRLAP_F_RNR: case IRLAP_F_REJ: case IRLAP_F_SREJ: case IRLAP_F_I:
		a->out_s++;
		break;
	case IRLAP_F_FRMR:
		a->out_frmr++;
		break;
	case IRLAP_F_UA: case IRLAP_F_DM: case IRLAP_F_RD:
		a->out_u++;
		break;
	case IRLAP_F_XID_RSP:
		a->out_xid++;
		break;
	default:
		break;
	}
}

static struct irlap *st1(struct attack *a)
{
	return sim_station(a->w->sim, 1);
}

/* ---- LSAPs the attacker may use ----------------------------------------- */

static bool legit_lsel(struct attack *a, uint8_t sel)
{
	for (int s = REL_SAR; s < REL_NSVC; s++) {
		struct ttp *t = a->w->end[s][0].t;
		if (t && irlmp_conn_lsel(ttp_lmp_conn(t)) == sel)
			return true;
	}
	return false;
}

/* A source selector of the attacker's: never a legitimate caller's. */
static uint8_t evil_slsap(struct attack *a)
{
	uint8_t sel;

	do
		sel = (uint8_t)(0x40 + below(a, 0x30));
	while (legit_lsel(a, sel));
	return sel;
}

/* ---- IrLAP-level frames ------------------------------------------------- */

static size_t build_irlap(struct attack *a, enum kind k, uint8_t *b, size_t cap)
{
	struct irlap *st = st1(a);
	uint8_t ca = st->caddr, info[64];
	bool pf = below(a, 10) == 0;
	size_t n;

	switch (k) {
	case K_RANDOM:
		/* Not on the live connection address: one such frame in
		 * about 4000 would be an I- or S-frame with an Ns in the
		 * receive window or an Nr that acknowledges unsent-to-us
		 * frames, which no station can tell from the peer's own
		 * (the 10^6 run met one: a kept I-frame took the place of
		 * the peer's, whose real one was then a duplicate). */
		n = 1 + below(a, 64);
		fill_random(a, b, n);
		if ((b[0] >> 1) == ca)
			b[0] ^= 0x02;
		return n;
	case K_OTHER_ADDR: {
		uint8_t other;
		/* Nor the address of the link the peer just closed: a DISC
		 * there is its repeat, which we answer (answer_stale_disc). */
		do
			other = (uint8_t)below(a, 0x7f);
		while (other == ca || other == st->ended_caddr);
		fill_random(a, info, 16);
		switch (below(a, 4)) {
		case 0: return irlap_build_s(b, cap, other, true, IRLAP_S_RR, (uint8_t)below(a, 8), true);
		case 1: return irlap_build_i(b, cap, other, true, (uint8_t)below(a, 8),
					     (uint8_t)below(a, 8), true, info, 16);
		case 2: return irlap_build_u(b, cap, other, true, IRLAP_C_DISC, true, NULL, 0);
		default: return irlap_build_u(b, cap, other, true, IRLAP_C_SNRM, true, NULL, 0);
		}
	}
	case K_WRONG_NR: {
		/* an Nr outside V(a)..V(s): acknowledges frames never sent */
		unsigned span = (st->vs - st->va) & 7u, off;
		if (span == 7)
			return 0;
		off = span + 1 + below(a, 7 - span);
		return irlap_build_s(b, cap, ca, true, below(a, 2) ? IRLAP_S_RR : IRLAP_S_REJ,
				     (uint8_t)((st->va + off) & 7u), pf);
	}
	case K_WRONG_NS:
		/* V(r) - 1: outside any receive window (a duplicate) */
		fill_random(a, info, 8);
		info[0] = evil_slsap(a) | 0x00;
		info[1] = evil_slsap(a);
		return irlap_build_i(b, cap, ca, true, (uint8_t)((st->vr + 7) & 7u), st->va, pf,
				     info, 8);
	case K_I_NDM:
		fill_random(a, info, 32);
		return irlap_build_i(b, cap, (uint8_t)below(a, 0x80), true, (uint8_t)below(a, 8),
				     (uint8_t)below(a, 8), true, info, 32);
	case K_UA_NO_SNRM: {
		struct irlap_connect_info ci = { .saddr = (uint32_t)rnd(a), .daddr = st->daddr };
		qos_defaults(&ci.qos);
		return irlap_ua_connect_build(b, cap, (uint8_t)below(a, 0x7f), &ci);
	}
	case K_OVERSIZE_I: {
		/* in sequence, so that only the size stops it */
		size_t len = st->q.rx_data_size + 1 + below(a, 800);
		uint8_t *big = malloc(len);
		assert_non_null(big);
		fill_random(a, big, len);
		big[0] = evil_slsap(a);
		big[1] = evil_slsap(a);
		n = irlap_build_i(b, cap, ca, true, st->vr, st->va, true, big, len);
		free(big);
		return n;
	}
	case K_FRMR: {
		struct irlap_frmr fr = { .rejected_control = (uint8_t)rnd(a),
					 .vs = (uint8_t)below(a, 8), .vr = (uint8_t)below(a, 8),
					 .wxyz = (uint8_t)below(a, 16) };
		n = irlap_frmr_build(b, cap, ca, &fr);
		if (n)
			b[0] |= 0x01;   /* as a command: the primary's C/R */
		return n;
	}
	case K_XID_FLOOD: {
		static const uint8_t slots[] = { 1, 6, 8, 16 };
		struct irlap_xid x = { .cmd = true, .saddr = (uint32_t)rnd(a) | 1u,
				       .daddr = IRLAP_BROADCAST_DADDR,
				       .slots = slots[below(a, 4)], .new_addr = below(a, 4) == 0 };
		x.slot = below(a, 8) == 0 ? IRLAP_XID_FINAL_SLOT : (uint8_t)below(a, x.slots);
		x.has_info = x.slot == IRLAP_XID_FINAL_SLOT;
		x.info.nhints = 1;
		x.info.nickname_len = (uint8_t)below(a, IRLAP_NICKNAME_MAX);
		fill_random(a, x.info.nickname, x.info.nickname_len);
		return irlap_xid_build(b, cap, &x);
	}
	case K_TEST:
		fill_random(a, info, 40);
		return irlap_build_u(b, cap, below(a, 2) ? ca : IRLAP_BROADCAST, true, IRLAP_C_TEST,
				     true, info, 1 + below(a, 40));
	case K_UNKNOWN_CTRL: {
		static const uint8_t undefined[] = { 0x07, 0x17, 0x1b, 0x27, 0x2b, 0x33, 0x37, 0x3b,
						     0x47, 0x4b, 0x57, 0x5b, 0x67, 0x6b, 0x77, 0x7b };
		b[0] = (uint8_t)(ca << 1 | 1);
		b[1] = undefined[below(a, sizeof(undefined))];
		fill_random(a, b + 2, 6);
		return 8;
	}
	case K_DISC:
		return irlap_build_u(b, cap, ca, true, IRLAP_C_DISC, true, NULL, 0);
	default:
		return 0;
	}
}

/* ---- above IrLAP ---------------------------------------------------------- */

static void lmp_in(struct attack *a, const uint8_t *pdu, size_t len)
{
	struct irlap_event ev = { .type = IRLAP_EV_DATA, .data = pdu, .len = len };

	irlmp_lap_event(a->w->lm[1], &ev, rel_world_now(a->w));
}

static size_t lmp_data(uint8_t *b, uint8_t dlsap, uint8_t slsap, const uint8_t *d, size_t n)
{
	b[0] = dlsap & 0x7f;
	b[1] = slsap & 0x7f;
	memcpy(b + 2, d, n);
	return n + 2;
}

/* The attacker's own TinyTP connection to one of station 1's LSAPs: a
 * Connect (with MaxSduSize if sar), then the PDUs that follow. */
static uint8_t open_evil(struct attack *a, uint8_t dlsap, bool sar)
{
	uint8_t pdu[32];
	uint8_t s = evil_slsap(a);
	struct ttp_connect_pdu cp = { .credit = 1, .has_max_sdu = sar, .max_sdu = 4096 };
	size_t n = ttp_connect_build(pdu + 4, sizeof(pdu) - 4, &cp);

	pdu[0] = (uint8_t)(0x80 | dlsap);
	pdu[1] = s;
	pdu[2] = IRLMP_OP_CONNECT;
	pdu[3] = 0;
	lmp_in(a, pdu, n + 4);
	return s;
}

static void upper(struct attack *a, enum kind k)
{
	static uint8_t b[2100], d[2048];
	uint8_t sar = ttp_listener_lsap(a->w->sar_l);
	uint8_t ircomm = ircomm_server_lsap(a->w->ircomm_srv);
	uint8_t s;
	size_t n;

	switch (k) {
	case K_LMP_UNCONNECTED:
		fill_random(a, d, 64);
		lmp_in(a, b, lmp_data(b, (uint8_t)(0x01 + below(a, 0x6f)), evil_slsap(a), d,
				      below(a, 64)));
		break;
	case K_LMP_BAD_CTRL:
		fill_random(a, d, 8);
		b[0] = (uint8_t)(0x80 | below(a, 0x70));
		b[1] = evil_slsap(a);
		b[2] = (uint8_t)rnd(a);   /* mostly undefined opcodes, reserved A bit */
		memcpy(b + 3, d, 8);
		lmp_in(a, b, 3 + below(a, 9));
		break;
	case K_TTP_CREDIT:
		s = open_evil(a, sar, true);
		for (int i = 0; i < 6; i++) {
			d[0] = 0x7f;   /* the most credit, again and again: past 127 */
			fill_random(a, d + 1, 10);
			lmp_in(a, b, lmp_data(b, sar, s, d, 1 + below(a, 11)));
		}
		break;
	case K_SAR_OVERSIZE:
		s = open_evil(a, sar, true);
		/* 3 x 1900 with M set: past the 4096 we announced */
		for (int i = 0; i < 4; i++) {
			d[0] = (uint8_t)((i < 3 ? 0x80 : 0) | 1);
			memset(d + 1, 0xa5, 1900);
			lmp_in(a, b, lmp_data(b, sar, s, d, 1901));
		}
		break;
	case K_SAR_ENDLESS:
		s = open_evil(a, sar, true);
		for (int i = 0; i < 8; i++) {
			d[0] = 0x80 | 1;   /* M, never cleared */
			fill_random(a, d + 1, 600);
			lmp_in(a, b, lmp_data(b, sar, s, d, 601));
		}
		break;
	case K_IAS_ANSWER:
		/* GetValueByClass answers to whatever listens, with lengths
		 * and counts that lie */
		d[0] = IAS_LST | IAS_OP_GET_VALUE_BY_CLASS;
		d[1] = 0;                                  /* success */
		d[2] = (uint8_t)rnd(a);                    /* list length */
		d[3] = (uint8_t)rnd(a);
		fill_random(a, d + 4, 40);
		d[6] = (uint8_t)(1 + below(a, 3));         /* integer, octets, string */
		n = 4 + below(a, 40);
		lmp_in(a, b, lmp_data(b, (uint8_t)(0x01 + below(a, 0x20)), IRLMP_LSAP_IAS, d, n));
		break;
	case K_IAS_REQUEST:
		s = evil_slsap(a);
		b[0] = 0x80;          /* LM connect to IAS */
		b[1] = s;
		b[2] = IRLMP_OP_CONNECT;
		b[3] = 0;
		lmp_in(a, b, 4);
		d[0] = IAS_LST | IAS_OP_GET_VALUE_BY_CLASS;
		d[1] = (uint8_t)rnd(a);                    /* class name length: up to 255 */
		fill_random(a, d + 2, 80);
		lmp_in(a, b, lmp_data(b, IRLMP_LSAP_IAS, s, d, 2 + below(a, 80)));
		break;
	case K_IRCOMM_PARAMS: {
		static const uint8_t pis[] = { IRCOMM_PI_SERVICE_TYPE, IRCOMM_PI_DATA_RATE,
					       IRCOMM_PI_DATA_FORMAT, IRCOMM_PI_FLOW_CONTROL,
					       IRCOMM_PI_DTE, IRCOMM_PI_LINE_STATUS, IRCOMM_PI_POLL,
					       IRCOMM_PI_PORT_NAME };
		size_t at;

		s = open_evil(a, ircomm, false);
		for (int i = 0; i < 3; i++) {
			d[0] = 1;                              /* TinyTP credit */
			at = 2;
			while (at < 30) {
				d[at++] = pis[below(a, sizeof(pis))];
				d[at++] = (uint8_t)below(a, 8); /* PL, rarely the right one */
				fill_random(a, d + at, 3);
				at += below(a, 4);
			}
			d[1] = (uint8_t)(below(a, 4) ? at - 2 : 200);  /* clen, or past the end */
			lmp_in(a, b, lmp_data(b, ircomm, s, d, at + below(a, 4)));
		}
		break;
	}
	default:
		break;
	}
}

/* A PPP frame as pppd would write it, its FCS wrong. */
static void ppp_bad_fcs(struct attack *a)
{
	static uint8_t frame[300], enc[700];
	struct ppp_hdlc_encoder e;
	struct wcursor w;
	size_t n = 8 + below(a, 200);

	frame[0] = PPP_ADDRESS_ALL;
	frame[1] = PPP_CONTROL_UI;
	fill_random(a, frame + 2, n - 2);
	ppp_hdlc_encoder_init(&e, 0xffffffffu);
	wcursor_init(&w, enc, sizeof(enc));
	assert_true(ppp_hdlc_encode(&e, &w, frame, n, 0) > 0);
	/* flip a bit of the payload: the FCS no longer matches (bytes 2..,
	 * escaped or not, are payload when the flip stays clear of 7D/7E) */
	for (size_t i = 3; i < w.len - 4; i++)
		if (enc[i] != 0x7d && enc[i] != 0x7e && (enc[i] ^ 0x01) != 0x7d &&
		    (enc[i] ^ 0x01) != 0x7e && enc[i - 1] != 0x7d) {
			enc[i] ^= 0x01;
			break;
		}
	ppp_hdlc_decoder_feed(a->hdlc, enc, w.len);
}

static void hdlc_frame(void *ctx, const uint8_t *f, size_t len)
{
	struct attack *a = ctx;

	(void)f;
	(void)len;
	a->hdlc_frames++;
}

/* ---- one strike ---------------------------------------------------------- */

static enum kind choose(struct attack *a)
{
	static const enum kind link_kinds[] = {
		K_RANDOM, K_OTHER_ADDR, K_WRONG_NR, K_WRONG_NS, K_UA_NO_SNRM, K_OVERSIZE_I,
		K_FRMR, K_XID_FLOOD, K_TEST, K_UNKNOWN_CTRL, K_LMP_UNCONNECTED, K_LMP_BAD_CTRL,
		K_TTP_CREDIT, K_SAR_OVERSIZE, K_SAR_ENDLESS, K_IAS_ANSWER, K_IAS_REQUEST,
		K_IRCOMM_PARAMS, K_PPP_BAD_FCS,
	};
	static const enum kind ndm_kinds[] = {
		K_RANDOM, K_OTHER_ADDR, K_I_NDM, K_UA_NO_SNRM, K_XID_FLOOD, K_TEST, K_PPP_BAD_FCS,
	};
	enum irlap_state s = irlap_get_state(st1(a));
	enum kind k;

	if (a->frames && a->frames % DISC_EVERY == 0 && irlap_is_connected(st1(a)))
		return K_DISC;
	if (s == IRLAP_NDM)
		return ndm_kinds[below(a, sizeof(ndm_kinds) / sizeof(ndm_kinds[0]))];
	if (!irlap_is_connected(st1(a)))
		return below(a, 2) ? K_RANDOM : K_OTHER_ADDR;
	k = link_kinds[below(a, sizeof(link_kinds) / sizeof(link_kinds[0]))];
	/* what makes station 1 send FRMR costs the legitimate link a reset
	 * (the primary resets, IrLMP ends its connections): less often */
	if ((k == K_WRONG_NR || k == K_WRONG_NS || k == K_OVERSIZE_I || k == K_UNKNOWN_CTRL) &&
	    below(a, 10) != 0)
		k = below(a, 2) ? K_RANDOM : K_OTHER_ADDR;
	return k;
}

static bool is_lap_kind(enum kind k)
{
	return k <= K_DISC;
}

/* One frame (or one burst) of the attacker; returns how many bytes it
 * occupied the line for (0: nothing on the air). */
static size_t strike(struct attack *a)
{
	static uint8_t frame[IRLAP_MAX_DATA + 1024];
	enum kind k = choose(a);
	struct irlap *st = st1(a);
	struct irlap_stats ls = *irlap_get_stats(st);
	struct irlmp_stats ms = *irlmp_get_stats(a->w->lm[1]);
	uint64_t hdlc_frames = a->hdlc_frames;
	struct ppp_hdlc_rx_counters hc = *ppp_hdlc_decoder_counters(a->hdlc);
	enum reaction r;
	size_t n = 0;
	bool was_ndm = irlap_get_state(st) == IRLAP_NDM, was_conn = irlap_is_connected(st);

	size_t line = 0;

	a->out_s = a->out_frmr = a->out_u = a->out_xid = 0;
	a->injecting = true;
	if (k == K_PPP_BAD_FCS) {
		ppp_bad_fcs(a);
	} else if (is_lap_kind(k)) {
		unsigned times = k == K_FRMR ? 8 : 1;
		n = build_irlap(a, k, frame, sizeof(frame));
		if (n == 0)
			k = K_RANDOM, n = build_irlap(a, k, frame, sizeof(frame));
		for (unsigned i = 0; i < times; i++)
			irlap_input(st, frame, n, rel_world_now(a->w));
		line = times * (n + 5);   /* BOF, FCS, EOF */
	} else {
		line = 64 * 6;              /* a burst of I-frames, about */
		upper(a, k);
	}
	a->injecting = false;
	{
		unsigned i = (unsigned)(a->frames % 32);
		a->last[i].k = k;
		a->last[i].at = rel_world_now(a->w);
		a->last[i].frame = a->frames;
		a->last[i].n = n;
		memcpy(a->last[i].head, frame, 8);
	}
	a->sent[k]++;
	a->frames++;

	const struct irlap_stats *ls2 = irlap_get_stats(st);
	const struct irlmp_stats *ms2 = irlmp_get_stats(a->w->lm[1]);
	const struct ppp_hdlc_rx_counters *hc2 = ppp_hdlc_decoder_counters(a->hdlc);
	if (was_conn && !irlap_is_connected(st))
		r = R_LINK_DOWN;
	else if (ls2->resets != ls.resets)
		r = R_RESET;
	else if (a->out_frmr || ls2->frmr_tx != ls.frmr_tx)
		r = R_FRMR;
	else if (a->out_u)
		r = R_U_ANSWER;
	else if (a->out_xid)
		r = R_XID;
	else if (a->out_s)
		r = R_S_FRAME;
	else if (hc2->fcs_errors != hc.fcs_errors || hc2->runts != hc.runts ||
		 hc2->too_long != hc.too_long || hc2->escape_errors != hc.escape_errors)
		r = R_HDLC_DROP;
	else if (ms2->pdus_tx != ms.pdus_tx || ms2->refused != ms.refused ||
		 ms2->unknown_conn != ms.unknown_conn || ms2->pdus_rx != ms.pdus_rx)
		r = ms2->bad_pdus != ms.bad_pdus ? R_IGNORED : R_LMP_ANSWER;
	else if (ls2->ignored != ls.ignored || ls2->frame_errors != ls.frame_errors ||
		 ls2->iframes_dropped != ls.iframes_dropped)
		r = R_IGNORED;
	else
		r = R_NOTHING;
	a->seen[k][r]++;

	/* Frames that must never be answered */
	if ((k == K_OTHER_ADDR || (k == K_UA_NO_SNRM && was_ndm) || (k == K_I_NDM && was_ndm)) &&
	    (a->out_s || a->out_frmr || a->out_u || a->out_xid))
		a->answered_wrongly++;
	/* An I-field over the negotiated size, or out of the window, never
	 * reaches IrLMP */
	if ((k == K_OVERSIZE_I || k == K_WRONG_NS) && ms2->pdus_rx != ms.pdus_rx)
		a->delivered_wrongly++;
	/* the decoder never passes a frame with a bad FCS */
	if (k == K_PPP_BAD_FCS && a->hdlc_frames != hdlc_frames)
		a->delivered_wrongly++;
	return line;
}

static void trace_sink(void *ctx, enum log_level level, const char *msg)
{
	struct attack *a = ctx;

	(void)level;
	snprintf(a->trace[a->ntrace++ % 256], sizeof(a->trace[0]), "%llu %s",
		 a->w ? (unsigned long long)rel_world_now(a->w) : 0ull, msg);
}

static void on_corrupt(void *ctx, const struct rel_end *e, const uint8_t *buf, size_t n)
{
	struct attack *a = ctx;

	for (unsigned i = 0; i < 256 && a->ntrace >= 256 - i; i++)
		fprintf(stderr, "  log: %s\n", a->trace[(a->ntrace + i) % 256]);

	fprintf(stderr, "corrupt at %llu: %s side %d rx_pos %llu, %zu bytes:",
		(unsigned long long)rel_world_now(a->w), rel_svc_name(e->svc), e->side,
		(unsigned long long)e->rx_pos, n);
	for (size_t i = 0; i < n && i < 16; i++)
		fprintf(stderr, " %02x", buf[i]);
	fprintf(stderr, "\n");
	for (unsigned j = 0; j < 32; j++) {
		unsigned i = (unsigned)((a->frames + j) % 32);
		fprintf(stderr, "  frame %llu at %llu %s len %zu:", (unsigned long long)a->last[i].frame,
			(unsigned long long)a->last[i].at, kind_name[a->last[i].k], a->last[i].n);
		for (int b = 0; b < 8; b++)
			fprintf(stderr, " %02x", a->last[i].head[b]);
		fprintf(stderr, "\n");
	}
}

static void check_deadlines(struct attack *a)
{
	uint64_t now = rel_world_now(a->w);
	uint64_t d[2] = { irlap_deadline(st1(a)), irlmp_deadline(a->w->lm[1]) };

	for (int i = 0; i < 2; i++)
		if (d[i] != UINT64_MAX && (d[i] < now || d[i] - now > 60 * SEC))
			a->deadline_bad++;
}

static uint64_t hostile_frames(void)
{
	const char *s = getenv("HOSTILE_FRAMES");
	char *end;
	unsigned long long n;

	if (!s || !*s)
		return 100000;
	n = strtoull(s, &end, 10);
	if (*end || n < 1000 || n > 100000000ull) {
		fprintf(stderr, "HOSTILE_FRAMES=%s: a whole number, 1000 to 10^8\n", s);
		exit(2);
	}
	return n;
}

static void hostile_peer(void **state)
{
	struct heap_count h0 = heap_count_get(), h;
	struct attack *a = calloc(1, sizeof(*a));
	struct rel_world_config cfg = {
		.baud = 115200, .seed = 2016, .services = { false, true, true },
		.on_frame = on_frame, .on_corrupt = on_corrupt,
	};
	struct ppp_hdlc_decoder_config hcfg = { .on_frame = hdlc_frame };
	uint64_t goal = hostile_frames(), verified_before, at_end[REL_NSVC][2];
	struct timespec t0, t1;
	double wall;

	(void)state;
	assert_non_null(a);
	a->rng = 16;
	cfg.frame_ctx = a;
	struct logger trace = { .sink = trace_sink, .ctx = a, .max = LOG_LEVEL_DEBUG };
	if (getenv("HOSTILE_TRACE"))
		cfg.log = &trace;
	hcfg.ctx = a;
	a->hdlc = ppp_hdlc_decoder_new(&hcfg);
	assert_non_null(a->hdlc);
	a->w = rel_world_new(&cfg);
	/* the legitimate connections come up first */
	rel_world_run_until(a->w, 5 * SEC);
	assert_true(a->w->end[REL_SAR][0].up && a->w->end[REL_STREAM][0].up);
	heap_count_reset_peak();

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* The attacker's frames take their time on the line at station 1's
	 * rate, and station 1 hears nothing while it sends (half duplex):
	 * the attacker strikes when station 1's transmitter is idle. */
	while (a->frames < goal) {
		uint64_t now = rel_world_now(a->w);
		uint64_t idle = wire_tx_idle_at(sim_wire(a->w->sim), 1);
		size_t line;

		if (idle > now)
			rel_world_run_until(a->w, idle);
		/* Without a link, a burst, then quiet until the link is back
		 * (at most 20 s): a flood that never stops keeps everyone
		 * off the medium (listen before talk), and it is the attacks
		 * on a live link that matter most. */
		if (!irlap_is_connected(st1(a)) && ++a->ndm_burst > NDM_BURST) {
			uint64_t until = rel_world_now(a->w) + 20 * SEC;
			while (!irlap_is_connected(st1(a)) && rel_world_now(a->w) < until) {
				rel_world_run_until(a->w, rel_world_now(a->w) + 100000);
				check_deadlines(a);
			}
			a->ndm_burst = 0;
			continue;
		}
		if (irlap_is_connected(st1(a)))
			a->ndm_burst = 0;
		line = strike(a);
		rel_world_run_until(a->w, rel_world_now(a->w) + ATTACK_GAP_US +
					  wire_line_time_us(irlap_get_baud(st1(a)), line));
		check_deadlines(a);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	h = heap_count_get();

	/* after the attack: the services come back and carry data */
	verified_before = rel_world_verified(a->w);
	rel_world_run_until(a->w, rel_world_now(a->w) + 20 * SEC);
	for (int s = 0; s < REL_NSVC; s++)
		for (int i = 0; i < 2; i++)
			at_end[s][i] = a->w->end[s][i].bytes_verified;
	rel_world_run_until(a->w, rel_world_now(a->w) + 10 * SEC);

	printf("# %-20s %9s", "kind", "sent");
	for (int r = 0; r < R_N; r++)
		printf(" %9s", reaction_name[r]);
	printf("\n");
	for (int k = 0; k < K_N; k++) {
		printf("# %-20s %9llu", kind_name[k], (unsigned long long)a->sent[k]);
		for (int r = 0; r < R_N; r++)
			printf(" %9llu", (unsigned long long)a->seen[k][r]);
		printf("\n");
	}
	for (int s = REL_SAR; s < REL_NSVC; s++) {
		struct rel_end *c = &a->w->end[s][0], *v = &a->w->end[s][1];
		printf("# legitimate %-10s connects %llu/%llu disconnects %llu/%llu failed calls %llu "
		       "verified %llu/%llu bytes corrupted %llu/%llu\n", rel_svc_name(s),
		       (unsigned long long)c->connects, (unsigned long long)v->connects,
		       (unsigned long long)c->disconnects, (unsigned long long)v->disconnects,
		       (unsigned long long)c->failed,
		       (unsigned long long)c->bytes_verified, (unsigned long long)v->bytes_verified,
		       (unsigned long long)c->corrupted, (unsigned long long)v->corrupted);
	}
	printf("bench: hostile_frames %llu frames\n", (unsigned long long)a->frames);
	printf("bench: hostile_wall %.1f s\n", wall);
	printf("bench: hostile_virtual %.0f s\n", (double)rel_world_now(a->w) / SEC);
	printf("bench: hostile_heap_peak %lld bytes\n", (long long)h.peak_bytes);
	printf("bench: hostile_heap_peak_blocks %lld blocks\n", (long long)h.peak_blocks);
	printf("bench: hostile_heap_at_end %lld bytes\n", (long long)h.bytes);
	printf("bench: hostile_link_disconnects %llu links\n",
	       (unsigned long long)a->w->lap_disconnects);
	printf("bench: hostile_legit_bytes_verified %llu bytes\n",
	       (unsigned long long)rel_world_verified(a->w));
	printf("bench: hostile_legit_bytes_corrupted %llu bytes\n",
	       (unsigned long long)rel_world_corrupted(a->w));

	assert_int_equal(a->frames, goal);
	assert_int_equal(a->answered_wrongly, 0);
	assert_int_equal(a->delivered_wrongly, 0);
	assert_int_equal(a->deadline_bad, 0);
	assert_int_equal(rel_world_corrupted(a->w), 0);
	/* bounded: a few MiB whatever the number of frames */
	assert_true(h.peak_bytes - h0.bytes < 8 * 1024 * 1024);
	for (int s = REL_SAR; s < REL_NSVC; s++) {
		struct rel_end *c = &a->w->end[s][0], *v = &a->w->end[s][1];
		/* every connection that came up at either end is up now or
		 * reported its end there */
		assert_int_equal(c->connects - c->disconnects, 1);
		assert_int_equal(v->connects - v->disconnects, 1);
		assert_true(c->up && v->up);
		assert_true(c->bytes_verified > at_end[s][0]);
		assert_true(v->bytes_verified > at_end[s][1]);
	}
	assert_true(rel_world_verified(a->w) > verified_before);
	/* every kind was tried */
	for (int k = 0; k < K_N; k++)
		assert_true(a->sent[k] > 0);

	rel_world_free(a->w);
	ppp_hdlc_decoder_free(a->hdlc);
	free(a);
	/* nothing left behind */
	h = heap_count_get();
	printf("bench: hostile_heap_left %lld blocks\n", (long long)(h.blocks - h0.blocks));
	assert_int_equal(h.blocks, h0.blocks);
	assert_int_equal(h.bytes, h0.bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hostile_peer),
	};
	return cmocka_run_group_tests_name("hostile", tests, NULL, NULL);
}
