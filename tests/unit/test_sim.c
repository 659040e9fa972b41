/*
 * test_sim.c: two IrLAP stations over the emulated wire on a virtual
 * clock (and several on a broadcast medium for discovery): discovery,
 * connection, 1 MiB transfers compared byte for byte at 9600 and 115200
 * with windows 1 and 7, one way and both ways, then with bit errors,
 * lost frames, link breaks and a busy receiver.
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
#include <math.h>

#include "irlap.h"
#include "sim.h"
#include "test_support.h"

#define SEC 1000000ull

static const uint32_t addr[2] = { 0x0a0b0c01, 0x0a0b0c02 };

struct side {
	uint8_t *tx;
	size_t tx_len, tx_pos;
	uint8_t *rx;
	size_t rx_len, rx_cap;
	bool overflow;
	bool connected;
	unsigned connects, disconnects;
	enum irlap_reason reason;
	unsigned no_activity, link_ok, remote_busy, remote_ready;
	struct irlap_peer found[IRLAP_MAX_PEERS];
	size_t nfound;
	bool discovery_done;
	struct irlap_peer found_by;
	bool was_found;
	unsigned addr_changes;
};

/* What station 0 puts on the wire, and which of its I-frames the test
 * damages (sim_config.damage). */
#define MAX_TRACE 65536
struct wire_trace {
	unsigned iframes;          /* I-frames station 0 sent */
	unsigned damage_nth;       /* nonzero: damage its nth I-frame */
	int damaged_ns;
	uint64_t lossy_until_us;   /* damage with a per-byte rate until then */
	double byte_loss;
	uint64_t rng;
	uint16_t len[MAX_TRACE];   /* I-field of each I-frame */
	uint8_t ns[MAX_TRACE];
	uint64_t at[MAX_TRACE];
};

struct app {
	struct sim *sim;
	struct simnet *net;
	struct side side[8];
	size_t rx_goal[2];
	struct wire_trace *trace;
};

static void on_event(void *ctx, int st, const struct irlap_event *ev)
{
	struct app *a = ctx;
	struct side *s = &a->side[st];

	switch (ev->type) {
	case IRLAP_EV_DATA:
		if (s->rx_len + ev->len > s->rx_cap) {
			s->overflow = true;
			break;
		}
		memcpy(s->rx + s->rx_len, ev->data, ev->len);
		s->rx_len += ev->len;
		break;
	case IRLAP_EV_CONNECT_IND: {
		struct irlap_request r = { .type = IRLAP_REQ_ACCEPT };
		if (a->sim)
			assert_int_equal(sim_request(a->sim, st, &r), 0);
		else
			assert_int_equal(simnet_request(a->net, st, &r), 0);
		break;
	}
	case IRLAP_EV_CONNECT_CONF:
		s->connected = true;
		s->connects++;
		break;
	case IRLAP_EV_DISCONNECT:
		s->connected = false;
		s->disconnects++;
		s->reason = ev->reason;
		break;
	case IRLAP_EV_STATUS:
		s->no_activity += ev->status == IRLAP_STATUS_NO_ACTIVITY;
		s->link_ok += ev->status == IRLAP_STATUS_LINK_OK;
		s->remote_busy += ev->status == IRLAP_STATUS_REMOTE_BUSY;
		s->remote_ready += ev->status == IRLAP_STATUS_REMOTE_READY;
		break;
	case IRLAP_EV_DISCOVERY:
		for (size_t i = 0; i < ev->npeers; i++) {
			bool known = false;
			for (size_t k = 0; k < s->nfound; k++)
				known |= s->found[k].daddr == ev->peers[i].daddr;
			if (!known && s->nfound < IRLAP_MAX_PEERS)
				s->found[s->nfound++] = ev->peers[i];
		}
		s->discovery_done = true;
		break;
	case IRLAP_EV_DISCOVERED_BY:
		s->found_by = *ev->peer;
		s->was_found = true;
		break;
	case IRLAP_EV_ADDRESS_CHANGED:
		s->addr_changes++;
		break;
	default:
		break;
	}
}

static size_t on_pull(void *ctx, int st, uint8_t *buf, size_t max)
{
	struct app *a = ctx;
	struct side *s = &a->side[st];
	size_t n = s->tx_len - s->tx_pos;

	if (n > max)
		n = max;
	memcpy(buf, s->tx + s->tx_pos, n);
	s->tx_pos += n;
	return n;
}

/* Every frame a station sends: station 0's I-frames are traced, and
 * damaged as the test asks. */
static bool on_wire_frame(void *ctx, int station, const uint8_t *frame, size_t len)
{
	struct app *a = ctx;
	struct wire_trace *t = a->trace;
	struct irlap_frame f;
	bool damage = false;

	if (station != 0 || irlap_frame_parse(frame, len, &f) != 0 || f.type != IRLAP_F_I)
		return false;
	t->iframes++;
	if (t->damage_nth && t->iframes == t->damage_nth) {
		damage = true;
		t->damaged_ns = f.ns;
	}
	if (sim_now(a->sim) < t->lossy_until_us &&
	    test_uniform(&t->rng) > pow(1.0 - t->byte_loss, (double)len))
		damage = true;
	if (t->iframes <= MAX_TRACE) {
		t->len[t->iframes - 1] = (uint16_t)f.info_len;
		t->ns[t->iframes - 1] = f.ns;
		t->at[t->iframes - 1] = sim_now(a->sim);
	}
	return damage;
}

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)x;
	}
}

static void station_config(struct irlap_config *c, int i, uint32_t baud, uint32_t window)
{
	irlap_config_defaults(c, baud, 1000);
	/* The wire hands each byte over at its line time. */
	c->repoll_quiet_us = IRLAP_REPOLL_QUIET_US;
	c->daddr = addr[i];
	c->seed = 100 + (uint64_t)i;
	c->limits.max_tx_window = window;
	c->info.nhints = 2;
	c->info.hints[0] = 0x84;
	c->info.hints[1] = 0x04;
	c->info.nickname_len = 5;
	memcpy(c->info.nickname, i ? "beta!" : "alpha", 5);
}

struct scenario {
	uint32_t baud;
	uint32_t window;
	uint32_t data_size;  /* 0: negotiated (2048 at 115200) */
	bool fixed_size, no_srej; /* features under bit errors off */
	size_t bytes[2];    /* station 0 -> 1, station 1 -> 0 */
	double ber, drop, frame_loss;
	struct wire_break brk;
	uint64_t busy_at_rx; /* station 1 goes busy once it has this many bytes (0: never) */
	uint64_t busy_us;
};

static struct app *setup(const struct scenario *sc)
{
	struct app *a = calloc(1, sizeof(*a));
	struct irlap_config st[2];
	struct sim_config cfg = { .app = { .event = on_event, .pull = on_pull } };

	assert_non_null(a);
	cfg.app.ctx = a;
	a->trace = calloc(1, sizeof(*a->trace));
	assert_non_null(a->trace);
	cfg.damage = on_wire_frame;
	cfg.damage_ctx = a;
	cfg.wire.turnaround_us = 200;
	cfg.wire.ber = sc->ber;
	cfg.wire.drop = sc->drop;
	cfg.wire.seed = 42;
	cfg.frame_loss = sc->frame_loss;
	if (sc->brk.duration_us) {
		cfg.wire.breaks = &sc->brk;
		cfg.wire.n_breaks = 1;
	}
	for (int i = 0; i < 2; i++) {
		station_config(&st[i], i, sc->baud, sc->window);
		st[i].limits.max_tx_data_size = sc->data_size;
		st[i].adapt_frame_size = !sc->fixed_size;
		st[i].send_srej = !sc->no_srej;
		a->side[i].tx_len = sc->bytes[i];
		a->side[i].tx = malloc(sc->bytes[i] ? sc->bytes[i] : 1);
		fill(a->side[i].tx, sc->bytes[i], (uint64_t)i + 7);
		a->side[i].rx_cap = sc->bytes[!i];
		a->side[i].rx = malloc(a->side[i].rx_cap ? a->side[i].rx_cap : 1);
		a->rx_goal[i] = sc->bytes[!i];
	}
	a->sim = sim_new(&cfg, st);
	assert_non_null(a->sim);
	return a;
}

static void teardown(struct app *a)
{
	sim_free(a->sim);
	free(a->trace);
	for (int i = 0; i < 2; i++) {
		free(a->side[i].tx);
		free(a->side[i].rx);
	}
	free(a);
}

static bool both_connected(void *ctx)
{
	struct app *a = ctx;
	return a->side[0].connected && a->side[1].connected;
}

static bool transfer_done(void *ctx)
{
	struct app *a = ctx;
	return a->side[0].rx_len >= a->rx_goal[0] && a->side[1].rx_len >= a->rx_goal[1];
}

static bool both_down(void *ctx)
{
	struct app *a = ctx;
	return !a->side[0].connected && !a->side[1].connected &&
	       irlap_get_state(sim_station(a->sim, 0)) == IRLAP_NDM &&
	       irlap_get_state(sim_station(a->sim, 1)) == IRLAP_NDM;
}

static void connect_pair(struct app *a)
{
	struct irlap_request r = { .type = IRLAP_REQ_CONNECT, .daddr = addr[1] };

	assert_int_equal(sim_request(a->sim, 0, &r), 0);
	assert_true(sim_run_while_not(a->sim, both_connected, a, sim_now(a->sim) + 5 * SEC));
	/* Data may start flowing as soon as the link is up. */
	r.type = IRLAP_REQ_DATA_READY;
	sim_request(a->sim, 0, &r);
}

static void check_received(const struct app *a)
{
	for (int i = 0; i < 2; i++) {
		const struct side *rx = &a->side[i];
		const struct side *tx = &a->side[!i];

		assert_false(rx->overflow);
		assert_int_equal(rx->rx_len, tx->tx_len);
		assert_memory_equal(rx->rx, tx->tx, tx->tx_len);
	}
}

static void disconnect_pair(struct app *a)
{
	struct irlap_request r = { .type = IRLAP_REQ_DISCONNECT };

	assert_int_equal(sim_request(a->sim, 0, &r), 0);
	assert_true(sim_run_while_not(a->sim, both_down, a, sim_now(a->sim) + 10 * SEC));
	assert_int_equal(a->side[0].reason, IRLAP_REASON_USER);
	assert_int_equal(a->side[1].reason, IRLAP_REASON_PEER);
	assert_int_equal(wire_speed(sim_wire(a->sim), 0), 9600);
	assert_int_equal(wire_speed(sim_wire(a->sim), 1), 9600);
}

/* Virtual-time budget for a transfer: the line time at a low efficiency
 * bound, so a stalled link fails instead of running forever. */
static uint64_t budget_us(const struct scenario *sc, double min_eff)
{
	double bytes = (double)(sc->bytes[0] + sc->bytes[1]);
	return (uint64_t)(bytes * 10.0 / sc->baud / min_eff * 1e6) + 60 * SEC;
}

static void run_transfer(const struct scenario *sc, double min_eff)
{
	struct app *a = setup(sc);
	uint64_t t0;

	connect_pair(a);
	t0 = sim_now(a->sim);
	assert_true(sim_run_while_not(a->sim, transfer_done, a, t0 + budget_us(sc, min_eff)));
	check_received(a);
	/* The line capacity bounds every turn (digest 4.4). */
	for (int i = 0; i < 2; i++) {
		const struct qos_result *q = irlap_get_qos(sim_station(a->sim, i));
		assert_non_null(q);
		assert_int_equal(q->baud, sc->baud);
		assert_true(irlap_get_stats(sim_station(a->sim, i))->max_turn_bytes <= q->line_capacity);
	}
	disconnect_pair(a);
	teardown(a);
}

#ifndef SIM_FAULTS
static void one_way(void **state, uint32_t baud, uint32_t window)
{
	struct scenario sc = { .baud = baud, .window = window, .bytes = { MIB, 0 } };
	run_transfer(&sc, 0.3);
}

static void both_ways(void **state, uint32_t baud, uint32_t window)
{
	struct scenario sc = { .baud = baud, .window = window, .bytes = { MIB, MIB } };
	run_transfer(&sc, 0.3);
}

static void mib_one_way_9600_w1(void **state) { one_way(state, 9600, 1); }
static void mib_one_way_9600_w7(void **state) { one_way(state, 9600, 7); }
static void mib_one_way_115200_w1(void **state) { one_way(state, 115200, 1); }
static void mib_one_way_115200_w7(void **state) { one_way(state, 115200, 7); }
static void mib_both_ways_9600_w1(void **state) { both_ways(state, 9600, 1); }
static void mib_both_ways_9600_w7(void **state) { both_ways(state, 9600, 7); }
static void mib_both_ways_115200_w1(void **state) { both_ways(state, 115200, 1); }
static void mib_both_ways_115200_w7(void **state) { both_ways(state, 115200, 7); }

/* ---- discovery ----------------------------------------------------------- */

static bool discovery_done(void *ctx)
{
	struct app *a = ctx;
	return a->side[0].discovery_done;
}

static void discovers_one_peer_over_the_wire(void **state)
{
	struct scenario sc = { .baud = 115200, .window = 7 };
	struct app *a = setup(&sc);
	struct irlap_request r = { .type = IRLAP_REQ_DISCOVER, .slots = 6 };

	assert_int_equal(sim_request(a->sim, 0, &r), 0);
	assert_true(sim_run_while_not(a->sim, discovery_done, a, 5 * SEC));
	assert_int_equal(a->side[0].nfound, 1);
	assert_int_equal(a->side[0].found[0].daddr, addr[1]);
	assert_int_equal(a->side[0].found[0].info.nickname_len, 5);
	assert_memory_equal(a->side[0].found[0].info.nickname, "beta!", 5);
	assert_int_equal(a->side[0].found[0].info.nhints, 2);
	assert_int_equal(a->side[0].found[0].info.hints[1], 0x04);
	/* And the peer learnt ours from the final frame. */
	sim_run_until(a->sim, sim_now(a->sim) + SEC);
	assert_true(a->side[1].was_found);
	assert_int_equal(a->side[1].found_by.daddr, addr[0]);
	assert_memory_equal(a->side[1].found_by.info.nickname, "alpha", 5);
	/* A connection right after discovery, to the address it found. */
	r = (struct irlap_request){ .type = IRLAP_REQ_CONNECT, .daddr = a->side[0].found[0].daddr };
	assert_int_equal(sim_request(a->sim, 0, &r), 0);
	assert_true(sim_run_while_not(a->sim, both_connected, a, sim_now(a->sim) + 5 * SEC));
	teardown(a);
}

static struct app *make_net(size_t n, const uint32_t *addrs, uint64_t seed)
{
	struct app *a = calloc(1, sizeof(*a));
	struct irlap_config cfg[8];
	struct simnet_config nc = { .app = { .event = on_event, .pull = on_pull } };

	assert_non_null(a);
	nc.app.ctx = a;
	for (size_t i = 0; i < n; i++) {
		irlap_config_defaults(&cfg[i], 115200, 1000);
		cfg[i].daddr = addrs[i];
		cfg[i].seed = seed * 31 + i;
		cfg[i].info.nickname_len = (uint8_t)snprintf((char *)cfg[i].info.nickname,
							     IRLAP_NICKNAME_MAX, "dev%zu", i);
	}
	a->net = simnet_new(&nc, cfg, n);
	assert_non_null(a->net);
	return a;
}

static void discover_rounds(struct app *a, uint8_t slots, int rounds)
{
	struct irlap_request r = { .type = IRLAP_REQ_DISCOVER, .slots = slots };

	for (int i = 0; i < rounds; i++) {
		a->side[0].discovery_done = false;
		assert_int_equal(simnet_request(a->net, 0, &r), 0);
		simnet_run_until(a->net, simnet_now(a->net) + 3 * SEC);
		assert_true(a->side[0].discovery_done);
	}
}

static void discovers_several_peers_on_a_shared_medium(void **state)
{
	static const uint32_t addrs[] = { 0x100, 0x201, 0x302, 0x403, 0x504 };
	static const uint8_t slot_counts[] = { 6, 8, 16 };

	for (size_t k = 0; k < sizeof(slot_counts); k++) {
		struct app *a = make_net(5, addrs, k + 1);

		/* Responders choosing the same slot collide; periodic discovery
		 * (as Linux runs every 3 s) finds everyone within a few rounds. */
		discover_rounds(a, slot_counts[k], 4);
		assert_int_equal(a->side[0].nfound, 4);
		for (size_t i = 0; i < 4; i++) {
			const struct irlap_peer *p = &a->side[0].found[i];
			unsigned idx = (unsigned)(p->daddr >> 8) - 1;
			char name[16];
			assert_true(idx >= 1 && idx <= 4);
			snprintf(name, sizeof(name), "dev%u", idx);
			assert_int_equal(p->info.nickname_len, 4);
			assert_memory_equal(p->info.nickname, name, 4);
			assert_true(p->slot < slot_counts[k]);
		}
		for (size_t i = 1; i < 5; i++)
			assert_true(a->side[i].was_found);
		simnet_free(a->net);
		free(a);
	}
}

static void address_conflict_is_resolved(void **state)
{
	/* Two devices share an address; the initiator asks for new ones. */
	static const uint32_t addrs[] = { 0x100, 0x777, 0x777 };
	bool resolved = false;

	for (uint64_t seed = 1; seed <= 4 && !resolved; seed++) {
		struct app *a = make_net(3, addrs, seed);

		discover_rounds(a, 8, 1);
		if (a->side[1].addr_changes && a->side[2].addr_changes) {
			resolved = true;
			assert_int_equal(a->side[0].nfound, 2);
			assert_int_not_equal(a->side[0].found[0].daddr, a->side[0].found[1].daddr);
			for (int i = 1; i <= 2; i++) {
				uint32_t now_addr = irlap_get_daddr(simnet_station(a->net, i));
				assert_int_not_equal(now_addr, 0x777);
				assert_true(a->side[0].found[0].daddr == now_addr ||
					    a->side[0].found[1].daddr == now_addr);
			}
		}
		simnet_free(a->net);
		free(a);
	}
	assert_true(resolved);
}

#else
static bool half_received(void *ctx)
{
	struct app *a = ctx;
	return a->side[1].rx_len >= a->side[1].rx_cap / 4;
}

static void mib_with_bit_errors(void **state)
{
	struct scenario sc = { .baud = 115200, .window = 7, .bytes = { MIB, MIB }, .ber = 1e-4 };
	run_transfer(&sc, 0.02);
}

static void mib_with_ten_percent_frames_lost(void **state)
{
	struct scenario sc = { .baud = 115200, .window = 7, .bytes = { MIB, MIB }, .frame_loss = 0.10 };
	struct app *a = setup(&sc);

	connect_pair(a);
	assert_true(sim_run_while_not(a->sim, transfer_done, a, sim_now(a->sim) + budget_us(&sc, 0.05)));
	check_received(a);
	assert_true(irlap_get_stats(sim_station(a->sim, 0))->iframes_retx > 0);
	disconnect_pair(a);
	teardown(a);
}

/* 1 MiB one way at BER 1e-4 with the defaults: every byte arrives in
 * order, and the stations did adapt (frames shrank on the wire, lost
 * frames were asked for with SREJ, lost answers polled for early). */
static void mib_one_way_with_bit_errors_adapts(void **state)
{
	struct scenario sc = { .baud = 115200, .window = 7, .bytes = { MIB, 0 }, .ber = 1e-4 };
	struct app *a = setup(&sc);
	const struct wire_trace *t = a->trace;
	size_t small = 0, n;

	connect_pair(a);
	assert_true(sim_run_while_not(a->sim, transfer_done, a, sim_now(a->sim) + budget_us(&sc, 0.2)));
	check_received(a);
	n = t->iframes < MAX_TRACE ? t->iframes : MAX_TRACE;
	assert_int_equal(t->len[0], 2048);
	for (size_t i = n / 2; i < n; i++)
		small += t->len[i] <= 512;
	assert_true(small > (n - n / 2) * 9 / 10);
	assert_true(irlap_get_stats(sim_station(a->sim, 1))->srej_tx > 0);
	assert_true(irlap_get_stats(sim_station(a->sim, 1))->iframes_held > 0);
	assert_true(irlap_get_stats(sim_station(a->sim, 0))->early_polls > 0);
	disconnect_pair(a);
	teardown(a);
}

/* One I-frame in the middle of a window damaged: returns how many
 * I-frames went again; the data must arrive intact either way. */
static uint64_t resent_after_one_damaged_frame(bool srej)
{
	struct scenario sc = { .baud = 115200, .window = 7, .bytes = { 64 * 1024, 0 },
			       .data_size = 512, .fixed_size = true, .no_srej = !srej };
	struct app *a = setup(&sc);
	const struct wire_trace *t = a->trace;
	uint64_t retx;

	a->trace->damage_nth = 10; /* the third of the second window */
	connect_pair(a);
	assert_true(sim_run_while_not(a->sim, transfer_done, a, sim_now(a->sim) + budget_us(&sc, 0.3)));
	check_received(a);
	retx = irlap_get_stats(sim_station(a->sim, 0))->iframes_retx;
	assert_int_equal(t->len[0], 512);
	if (srej) {
		/* Windows of 7: the second is frames 7..13.  The damaged
		 * frame went again right after it, alone: the frame after it
		 * is a new one. */
		assert_int_equal(t->ns[14], t->damaged_ns);
		assert_int_equal(t->ns[15], (t->ns[13] + 1) & 7);
		assert_int_equal(t->iframes, 64 * 1024 / 512 + 1);
		assert_int_equal(irlap_get_stats(sim_station(a->sim, 1))->srej_tx, 1);
	}
	disconnect_pair(a);
	teardown(a);
	return retx;
}

static void single_damaged_frame_is_resent_alone(void **state)
{
	assert_int_equal(resent_after_one_damaged_frame(true), 1);
	/* Mutant check: without SREJ the rest of the window goes again. */
	assert_true(resent_after_one_damaged_frame(false) >= 4);
}

/* Station 0's frames meet losses that grow with their length (as bit
 * errors at 1e-4) for 20 s, then a clean line: returns the share of
 * I-frames of at most 512 bytes in the last 5 s of the lossy period
 * (the station tries a larger size now and then, to see whether the
 * line got better) and the largest I-field of the last 5 s. */
static void sizes_on_the_wire(bool adapt, double *lossy_small, size_t *clean_max)
{
	/* More than 80 s of the line can carry, in every build (MIB is
	 * smaller under ASan). */
	struct scenario sc = { .baud = 115200, .window = 7, .bytes = { 2 * 1024 * 1024, 0 },
			       .fixed_size = !adapt };
	struct app *a = setup(&sc);
	const struct wire_trace *t = a->trace;
	uint64_t t0;
	size_t n;

	connect_pair(a);
	t0 = sim_now(a->sim);
	a->trace->lossy_until_us = t0 + 20 * SEC;
	a->trace->byte_loss = 8e-4;
	a->trace->rng = 3;
	sim_run_until(a->sim, t0 + 80 * SEC);
	n = t->iframes < MAX_TRACE ? t->iframes : MAX_TRACE;
	size_t lossy = 0, small = 0;

	*clean_max = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t at = t->at[i] - t0;
		if (at >= 15 * SEC && at < 20 * SEC) {
			lossy++;
			small += t->len[i] <= 512;
		}
		if (at >= 75 * SEC && t->len[i] > *clean_max)
			*clean_max = t->len[i];
	}
	assert_true(lossy > 0);
	*lossy_small = (double)small / (double)lossy;
	/* What arrived is the sender's data, in order. */
	assert_false(a->side[1].overflow);
	assert_true(a->side[1].rx_len > 0);
	assert_memory_equal(a->side[1].rx, a->side[0].tx, a->side[1].rx_len);
	teardown(a);
}

static void frame_size_follows_the_losses_on_the_wire(void **state)
{
	double small;
	size_t clean;

	sizes_on_the_wire(true, &small, &clean);
	assert_true(small >= 0.9);
	assert_int_equal(clean, 2048);
	/* Mutant check: without adaptation 2 KB frames all along (and the
	 * short last frame of each turn). */
	sizes_on_the_wire(false, &small, &clean);
	assert_true(small < 0.5);
}

static void short_link_break_recovers(void **state)
{
	/* 5 s without a line: past the 3 s warning, inside the 12 s limit. */
	struct scenario sc = { .baud = 115200, .window = 7, .bytes = { MIB, MIB },
			       .brk = { .start_us = 20 * SEC, .duration_us = 5 * SEC } };
	struct app *a = setup(&sc);

	connect_pair(a);
	assert_true(sim_run_while_not(a->sim, transfer_done, a, sim_now(a->sim) + budget_us(&sc, 0.3)));
	check_received(a);
	assert_int_equal(a->side[0].disconnects, 0);
	assert_int_equal(a->side[1].disconnects, 0);
	assert_true(a->side[0].no_activity >= 1);
	assert_true(a->side[0].link_ok >= 1);
	disconnect_pair(a);
	teardown(a);
}

static void long_link_break_ends_the_link_on_both_sides(void **state)
{
	struct scenario sc = { .baud = 115200, .window = 7, .bytes = { MIB, MIB },
			       .brk = { .start_us = 20 * SEC, .duration_us = 30 * SEC } };
	struct app *a = setup(&sc);

	connect_pair(a);
	assert_true(sim_run_while_not(a->sim, both_down, a, 60 * SEC));
	for (int i = 0; i < 2; i++) {
		assert_int_equal(a->side[i].disconnects, 1);
		assert_int_equal(a->side[i].reason, IRLAP_REASON_NO_RESPONSE);
		assert_true(a->side[i].rx_len < MIB);
	}
	/* Both dropped within a few seconds of the 12 s limit. */
	assert_true(sim_now(a->sim) < 20 * SEC + 15 * SEC);
	/* Nothing hangs: the stations idle in NDM with no timers running. */
	sim_run_until(a->sim, 120 * SEC);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(irlap_get_state(sim_station(a->sim, i)), IRLAP_NDM);
		assert_int_equal(irlap_deadline(sim_station(a->sim, i)), UINT64_MAX);
	}
	teardown(a);
}

static void busy_receiver_for_five_seconds(void **state)
{
	struct scenario sc = { .baud = 115200, .window = 7, .bytes = { MIB, 0 } };
	struct app *a = setup(&sc);
	struct irlap_request busy = { .type = IRLAP_REQ_LOCAL_BUSY, .busy = true };
	size_t at_busy;

	connect_pair(a);
	assert_true(sim_run_while_not(a->sim, half_received, a, sim_now(a->sim) + 100 * SEC));
	assert_int_equal(sim_request(a->sim, 1, &busy), 0);
	at_busy = a->side[1].rx_len;
	uint64_t t_busy = sim_now(a->sim);
	sim_run_until(a->sim, t_busy + 5 * SEC);
	/* Nothing was taken while busy, and the link stayed up. */
	assert_int_equal(a->side[1].rx_len, at_busy);
	assert_true(a->side[0].connected && a->side[1].connected);
	assert_int_equal(a->side[0].remote_busy, 1);
	busy.busy = false;
	assert_int_equal(sim_request(a->sim, 1, &busy), 0);
	assert_true(sim_run_while_not(a->sim, transfer_done, a, sim_now(a->sim) + 200 * SEC));
	assert_int_equal(a->side[0].remote_ready, 1);
	check_received(a);
	disconnect_pair(a);
	teardown(a);
}

#endif

/* Built twice (SIM_FAULTS chooses the group) so that the two halves
 * run in parallel under `make -j`. */
int main(void)
{
#ifndef SIM_FAULTS
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(discovers_one_peer_over_the_wire),
		cmocka_unit_test(discovers_several_peers_on_a_shared_medium),
		cmocka_unit_test(address_conflict_is_resolved),
		cmocka_unit_test(mib_one_way_9600_w1),
		cmocka_unit_test(mib_one_way_9600_w7),
		cmocka_unit_test(mib_one_way_115200_w1),
		cmocka_unit_test(mib_one_way_115200_w7),
		cmocka_unit_test(mib_both_ways_9600_w1),
		cmocka_unit_test(mib_both_ways_9600_w7),
		cmocka_unit_test(mib_both_ways_115200_w1),
		cmocka_unit_test(mib_both_ways_115200_w7),
	};
#define GROUP "sim"
#else
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mib_with_bit_errors),
		cmocka_unit_test(mib_one_way_with_bit_errors_adapts),
		cmocka_unit_test(single_damaged_frame_is_resent_alone),
		cmocka_unit_test(frame_size_follows_the_losses_on_the_wire),
		cmocka_unit_test(mib_with_ten_percent_frames_lost),
		cmocka_unit_test(short_link_break_recovers),
		cmocka_unit_test(long_link_break_ends_the_link_on_both_sides),
		cmocka_unit_test(busy_receiver_for_five_seconds),
	};
#define GROUP "sim_faults"
#endif
	if (getenv("SIM_TEST_FILTER"))
		cmocka_set_test_filter(getenv("SIM_TEST_FILTER"));
	return cmocka_run_group_tests_name(GROUP, tests, NULL, NULL);
}
