/*
 * linkup_sim.h: link set-up between two IrLAP stations on the emulated
 * wire, in virtual time, timed frame by frame from station 0's capture.
 * Station 0 discovers, asks for the link as soon as discovery reports
 * the peer (what irdiscover --connect and irspray do), and polls; station
 * 1 answers and accepts.  Shared by tests/unit/test_linkup.c (bounds
 * from the protocol's mandatory waits) and tests/bench/bench_linkup.c
 * (the figures of `make bench`).
 *
 * Times are virtual microseconds; frames sent are stamped when they have
 * left the line, frames received when they have arrived intact.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_TESTS_LINKUP_SIM_H
#define IRNET_TESTS_LINKUP_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "irlap.h"
#include "pcap.h"
#include "sim.h"

struct linkup_setup {
	uint32_t baud;             /* both offer 9600 up to this */
	uint32_t min_tat_us[2];    /* the turnaround each station asks of the other */
	uint8_t slots;             /* discovery slots */
	uint32_t peer_switch_us;   /* station 1 switches its UART this long after
				    * handing its UA over (0: as it leaves) */
	uint64_t seed;
	const struct logger *log;  /* may be NULL */
};

/* A frame as captured, kept for computing its line time. */
struct linkup_frame {
	uint64_t at;
	size_t len;
	uint8_t bytes[64];
};

struct linkup_result {
	bool ok;                  /* the link came up and answered at the new rate */
	uint64_t t_discover;      /* discovery requested */
	uint64_t t_connect;       /* connect requested (discovery reported the peer) */
	struct linkup_frame final_xid, snrm, ua, first_poll, first_answer;
	int peer_slot;            /* the discovery slot station 1 answered in */
	unsigned polls;           /* RR(P) sent before the first answer at the new rate */
	uint64_t f_timeouts;      /* station 0's F-timer expiries by then */
	struct qos_result q;      /* station 0's negotiated values */
};

struct linkup_run {
	struct sim *sim;
	struct linkup_result *res;
	uint8_t *cap;
	size_t cap_len, cap_room;
	bool failed;
};

static int linkup_sink(void *ctx, const uint8_t *bytes, size_t len)
{
	struct linkup_run *r = ctx;

	if (r->cap_len + len > r->cap_room) {
		size_t room = (r->cap_room + len) * 2;
		uint8_t *p = realloc(r->cap, room);

		if (!p) {
			r->failed = true;
			return -1;
		}
		r->cap = p;
		r->cap_room = room;
	}
	memcpy(r->cap + r->cap_len, bytes, len);
	r->cap_len += len;
	return 0;
}

static void linkup_event(void *ctx, int st, const struct irlap_event *ev)
{
	struct linkup_run *r = ctx;
	struct irlap_request req = { .type = IRLAP_REQ_ACCEPT };

	if (st == 1 && ev->type == IRLAP_EV_CONNECT_IND) {
		sim_request(r->sim, 1, &req);
	} else if (st == 0 && ev->type == IRLAP_EV_DISCOVERY && !r->res->t_connect) {
		if (ev->failed || ev->npeers != 1) {
			r->failed = true;
			return;
		}
		r->res->t_connect = sim_now(r->sim);
		req = (struct irlap_request){ .type = IRLAP_REQ_CONNECT, .daddr = ev->peers[0].daddr };
		if (sim_request(r->sim, 0, &req) != 0)
			r->failed = true;
	} else if (st == 0 && ev->type == IRLAP_EV_CONNECT_CONF) {
		r->res->q = *ev->qos;
	}
}

static void linkup_keep(struct linkup_frame *f, const struct pcap_record *rec)
{
	f->at = rec->ts_us;
	f->len = rec->frame_len < sizeof(f->bytes) ? rec->frame_len : sizeof(f->bytes);
	memcpy(f->bytes, rec->frame, f->len);
}

/* Finds the set-up frames in station 0's capture. */
static void linkup_parse(struct linkup_run *r)
{
	struct linkup_result *res = r->res;
	struct pcap_reader pr;
	struct pcap_record rec;

	if (pcap_reader_init(&pr, r->cap, r->cap_len) != 0)
		return;
	while (pcap_reader_next(&pr, &rec) == 1) {
		struct irlap_frame f;
		struct irlap_xid x;
		bool tx = rec.dir == PCAP_DIR_TX;

		if (irlap_frame_parse(rec.frame, rec.frame_len, &f) != 0)
			continue;
		if (!res->snrm.at) {
			if (tx && f.type == IRLAP_F_XID_CMD && irlap_xid_parse(&f, &x) == 0 &&
			    x.slot == IRLAP_XID_FINAL_SLOT)
				linkup_keep(&res->final_xid, &rec);
			else if (!tx && f.type == IRLAP_F_XID_RSP && irlap_xid_parse(&f, &x) == 0)
				res->peer_slot = x.slot;
			else if (tx && f.type == IRLAP_F_SNRM)
				linkup_keep(&res->snrm, &rec);
		} else if (!res->ua.at) {
			if (!tx && f.type == IRLAP_F_UA)
				linkup_keep(&res->ua, &rec);
		} else if (tx && f.type == IRLAP_F_RR && f.pf) {
			if (!res->polls++)
				linkup_keep(&res->first_poll, &rec);
		} else if (!tx && res->polls) {
			linkup_keep(&res->first_answer, &rec);
			res->ok = true;
			return;
		}
	}
}

/* Runs one set-up; res->ok says whether the link answered at the new
 * rate within a few seconds of the connect request. */
static bool linkup_sim(const struct linkup_setup *su, struct linkup_result *res)
{
	struct linkup_run r = { .res = res };
	struct irlap_config st[2];
	struct sim_config cfg = {
		.app = { .event = linkup_event, .ctx = &r },
		.pcap_sink = linkup_sink, .pcap_ctx = &r,
	};
	struct irlap_request req = { .type = IRLAP_REQ_DISCOVER, .slots = su->slots };

	memset(res, 0, sizeof(*res));
	res->peer_slot = -1;
	for (int i = 0; i < 2; i++) {
		irlap_config_defaults(&st[i], su->baud, su->min_tat_us[i]);
		st[i].daddr = 0x1e1e0001u + (uint32_t)i;
		st[i].seed = su->seed + (uint64_t)i;
		st[i].log = su->log;
	}
	cfg.log = su->log;
	cfg.wire.seed = su->seed;
	cfg.switch_delay_us[1] = su->peer_switch_us;
	r.sim = sim_new(&cfg, st);
	if (!r.sim)
		return false;
	/* Both have listened to a quiet medium for a while already. */
	sim_run_until(r.sim, st[0].media_sense_us);
	res->t_discover = sim_now(r.sim);
	if (sim_request(r.sim, 0, &req) == 0)
		sim_run_until(r.sim, res->t_discover + 5000000);
	res->f_timeouts = irlap_get_stats(sim_station(r.sim, 0))->f_timeouts;
	sim_free(r.sim);
	if (!r.failed)
		linkup_parse(&r);
	free(r.cap);
	return res->ok;
}

#endif
