/*
 * test_stack.c: two full stacks (IrLAP + IrLMP + IAS + TinyTP) over the
 * emulated wire on the virtual clock (sim.h): an IAS lookup of a
 * registered class, a TinyTP connect to the LSAP it returned, 1 MiB
 * each way verified byte for byte, two connections at once, disconnects
 * from either side in each reachable state, and the link closing after
 * the idle time.
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
#include "pcap_file.h"
#include "irlap.h"
#include "irlmp.h"
#include "sim.h"
#include "test_support.h"
#include "ttp.h"

#define SEC 1000000ull
#define STEP_US 20000
#define SDU 2000
#define MAX_FLOWS 2

static const uint32_t addr[2] = { 0x0a0b0c01, 0x0a0b0c02 };

/* One TinyTP connection end: sends a generated stream, checks what arrives. */
struct flow {
	struct ttp *t;
	bool connected, disconnected;
	enum irlmp_reason reason;
	size_t tx_goal, tx_done;
	size_t rx_done;
	uint64_t tx_seed, rx_seed;
	bool mismatch;
	bool reading;  /* the reader takes data */
};

struct stack {
	struct world *w;
	int idx;
	struct irlmp *lm;
	struct ias_db *db;
	struct ias_server *ias;
	struct ttp_listener *tl;
	struct flow flows[MAX_FLOWS];
	size_t nflows;
	bool link_up;
	unsigned link_downs;
	enum irlap_reason down_reason;
	uint64_t down_at;
};

struct world {
	struct sim *sim;
	struct stack st[2];
	int ias_ret;
	int32_t ias_value;
	bool ias_done;
};

static uint8_t gen(uint64_t seed, size_t i)
{
	uint64_t x = (seed + i / 8) * 0x9e3779b97f4a7c15ull;
	x ^= x >> 29;
	return (uint8_t)(x >> (8 * (i % 8)));
}

static void flow_read(struct flow *f)
{
	uint8_t buf[SDU + 16];
	long n;

	while (f->t && f->reading && (n = ttp_recv(f->t, buf, sizeof(buf))) > 0) {
		for (long k = 0; k < n; k++)
			if (buf[k] != gen(f->rx_seed, f->rx_done + (size_t)k))
				f->mismatch = true;
		f->rx_done += (size_t)n;
	}
}

static void flow_write(struct flow *f)
{
	uint8_t buf[SDU];

	while (f->t && f->connected && f->tx_done < f->tx_goal) {
		size_t n = f->tx_goal - f->tx_done < SDU ? f->tx_goal - f->tx_done : SDU;
		for (size_t k = 0; k < n; k++)
			buf[k] = gen(f->tx_seed, f->tx_done + k);
		if (ttp_send(f->t, buf, n) != 0)
			break;
		f->tx_done += n;
	}
}

static void ttp_event(void *ctx, const struct ttp_event *ev)
{
	struct stack *s = ctx;
	struct flow *f = NULL;

	for (size_t i = 0; i < s->nflows; i++)
		if (s->flows[i].t == ev->ttp)
			f = &s->flows[i];
	if (!f && ev->type == TTP_EV_CONNECTED && s->nflows < MAX_FLOWS) {
		/* incoming: streams are seeded by the connection's order */
		f = &s->flows[s->nflows];
		f->t = ev->ttp;
		f->reading = true;
		f->tx_seed = 1000 + s->nflows;
		f->rx_seed = 2000 + s->nflows;
		s->nflows++;
	}
	if (!f)
		return;
	switch (ev->type) {
	case TTP_EV_CONNECTED:
		f->connected = true;
		flow_write(f);
		break;
	case TTP_EV_READABLE:
		flow_read(f);
		break;
	case TTP_EV_WRITABLE:   /* the only refill: the queue drained to half */
		flow_write(f);
		break;
	case TTP_EV_DISCONNECTED:
		f->t = NULL;
		f->connected = false;
		f->disconnected = true;
		f->reason = ev->reason;
		break;
	}
}

static void sim_event(void *ctx, int st, const struct irlap_event *ev)
{
	struct world *w = ctx;
	struct stack *s = &w->st[st];

	if (ev->type == IRLAP_EV_CONNECT_CONF)
		s->link_up = true;
	if (ev->type == IRLAP_EV_DISCONNECT) {
		s->link_up = false;
		s->link_downs++;
		s->down_reason = ev->reason;
		s->down_at = sim_now(w->sim);
	}
	irlmp_lap_event(s->lm, ev, sim_now(w->sim));
}

static size_t sim_pull(void *ctx, int st, uint8_t *buf, size_t max)
{
	struct world *w = ctx;
	return irlmp_pull(w->st[st].lm, buf, max);
}

static int lap_request(void *ctx, const struct irlap_request *req)
{
	struct stack *s = ctx;
	return sim_request(s->w->sim, s->idx, req);
}

static const struct irlmp_ops lmp_ops = { lap_request };

static struct world *world_new_capture(FILE *capture)
{
	struct world *w = calloc(1, sizeof(*w));
	struct irlap_config st[2];
	struct sim_config cfg = { .app = { .event = sim_event, .pull = sim_pull } };
	struct irlmp_config lc;
	struct ttp_config tc;

	assert_non_null(w);
	cfg.app.ctx = w;
	cfg.wire.turnaround_us = 200;
	cfg.wire.seed = 42;
	if (capture) {
		cfg.pcap_sink = pcap_file_sink;
		cfg.pcap_ctx = capture;
	}
	irlmp_config_defaults(&lc);
	ttp_config_defaults(&tc);
	tc.max_sdu = SDU;
	for (int i = 0; i < 2; i++) {
		struct stack *s = &w->st[i];
		irlap_config_defaults(&st[i], 115200, 1000);
		st[i].daddr = addr[i];
		st[i].seed = 7 + (uint64_t)i;
		s->w = w;
		s->idx = i;
		s->lm = irlmp_new(&lc, &lmp_ops, s);
		s->db = ias_db_new(i ? "beta" : "alpha");
		s->ias = ias_server_new(s->lm, s->db, NULL);
		s->tl = ttp_listen(s->lm, IRLMP_LSAP_ANY, &tc, ttp_event, s);
		assert_non_null(s->lm);
		assert_non_null(s->ias);
		assert_non_null(s->tl);
		int id = ias_db_add_object(s->db, "IrNetv1");
		struct ias_value v = { .type = IAS_INTEGER, .integer = ttp_listener_lsap(s->tl) };
		assert_int_equal(ias_db_add_attr(s->db, id, "IrDA:TinyTP:LsapSel", &v), 0);
	}
	w->sim = sim_new(&cfg, st);
	assert_non_null(w->sim);
	return w;
}

static struct world *world_new(void)
{
	return world_new_capture(NULL);
}

static void world_free(struct world *w)
{
	for (int i = 0; i < 2; i++) {
		struct stack *s = &w->st[i];
		for (size_t k = 0; k < s->nflows; k++)
			if (s->flows[k].t)
				ttp_disconnect(s->flows[k].t);
		ttp_listener_free(s->tl);
		ias_server_free(s->ias);
		ias_db_free(s->db);
		irlmp_free(s->lm);
	}
	sim_free(w->sim);
	free(w);
}

/* Runs the stacks: the simulator in steps, IrLMP timers (which deliver
 * TinyTP's writable events), readers. */
static bool run(struct world *w, bool (*done)(struct world *), uint64_t limit_us)
{
	while (!done(w)) {
		uint64_t now = sim_now(w->sim), t = now + STEP_US;
		if (now >= limit_us)
			return false;
		for (int i = 0; i < 2; i++) {
			uint64_t d = irlmp_deadline(w->st[i].lm);
			if (d < t)
				t = d > now ? d : now + 1;
		}
		sim_run_until(w->sim, t);
		for (int i = 0; i < 2; i++) {
			struct stack *s = &w->st[i];
			if (irlmp_deadline(s->lm) <= sim_now(w->sim))
				irlmp_tick(s->lm, sim_now(w->sim));
			for (size_t k = 0; k < s->nflows; k++)
				flow_read(&s->flows[k]);
		}
	}
	return true;
}

static void on_ias(void *ctx, int ret, const struct ias_response *resp)
{
	struct world *w = ctx;

	w->ias_done = true;
	w->ias_ret = ret;
	if (ret == IAS_SUCCESS)
		w->ias_value = ias_lsap_sel(resp);
}

static bool ias_done(struct world *w) { return w->ias_done; }

static int lookup(struct world *w, const char *cls)
{
	w->ias_done = false;
	assert_non_null(ias_query_start(w->st[0].lm, addr[1], cls, "IrDA:TinyTP:LsapSel", on_ias,
					w, sim_now(w->sim)));
	assert_true(run(w, ias_done, sim_now(w->sim) + 10 * SEC));
	return w->ias_ret;
}

static struct flow *open_flow(struct world *w, int from, uint8_t lsap, size_t goal)
{
	struct stack *s = &w->st[from];
	struct flow *f = &s->flows[s->nflows];
	struct ttp_config tc;

	ttp_config_defaults(&tc);
	tc.max_sdu = SDU;
	f->tx_goal = goal;
	f->reading = true;
	f->tx_seed = 2000 + s->nflows; /* what the listener's flow n expects */
	f->rx_seed = 1000 + s->nflows;
	f->t = ttp_connect(s->lm, addr[!from], lsap, &tc, ttp_event, s, sim_now(w->sim));
	assert_non_null(f->t);
	s->nflows++;
	return f;
}

static bool flows_done(struct world *w)
{
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < w->st[i].nflows; k++) {
			const struct flow *f = &w->st[i].flows[k];
			const struct stack *o = &w->st[!i];
			if (k >= o->nflows || f->tx_done < f->tx_goal ||
			    o->flows[k].rx_done < f->tx_goal || (f->t && ttp_tx_pending(f->t)))
				return false;
		}
	return true;
}

static bool all_closed(struct world *w)
{
	for (int i = 0; i < 2; i++) {
		if (irlmp_count(w->st[i].lm, false) != 0 || w->st[i].link_up)
			return false;
		if (irlap_get_state(sim_station(w->sim, i)) != IRLAP_NDM)
			return false;
		if (irlmp_get_lap_state(w->st[i].lm) != IRLMP_LAP_STANDBY)
			return false;
	}
	return true;
}

static void lookup_connect_and_transfer(void **state)
{
	struct world *w = world_new();
	struct flow *f;
	uint8_t lsap;
	uint64_t t0;

	(void)state;
	assert_int_equal(lookup(w, "IrNetv1"), IAS_SUCCESS);
	lsap = (uint8_t)w->ias_value;
	assert_int_equal(lsap, ttp_listener_lsap(w->st[1].tl));
	assert_int_equal(lookup(w, "NoSuchClass"), IAS_NO_SUCH_CLASS);

	f = open_flow(w, 0, lsap, MIB);
	w->st[1].flows[0].tx_goal = MIB; /* the server's flow sends as much back */
	t0 = sim_now(w->sim);
	assert_true(run(w, flows_done, t0 + 600 * SEC));
	assert_false(f->mismatch);
	assert_false(w->st[1].flows[0].mismatch);
	assert_int_equal(f->rx_done, MIB);
	assert_int_equal(w->st[1].flows[0].rx_done, MIB);
	print_message("2 x %d bytes in %.1f s virtual (%.0f B/s each way)\n", MIB,
		      (double)(sim_now(w->sim) - t0) / 1e6,
		      MIB / ((double)(sim_now(w->sim) - t0) / 1e6));
	/* memory stayed bounded by the credit window */
	assert_true(ttp_get_stats(f->t)->rx_bytes_max <= 16 * SDU);

	ttp_disconnect(f->t);
	f->t = NULL;
	assert_true(run(w, all_closed, sim_now(w->sim) + 10 * SEC));
	assert_true(w->st[1].flows[0].disconnected);
	assert_int_equal(w->st[1].flows[0].reason, IRLMP_REASON_USER);
	world_free(w);
}

static void two_connections_at_once(void **state)
{
	struct world *w = world_new();
	uint8_t lsap = ttp_listener_lsap(w->st[1].tl);
	struct flow *a, *b;

	(void)state;
	a = open_flow(w, 0, lsap, MIB / 8);
	b = open_flow(w, 0, lsap, MIB / 4);
	w->st[1].flows[0].tx_goal = MIB / 4;
	w->st[1].flows[1].tx_goal = MIB / 8;
	assert_true(run(w, flows_done, sim_now(w->sim) + 300 * SEC));
	assert_int_equal(w->st[1].nflows, 2);
	assert_false(a->mismatch || b->mismatch);
	assert_false(w->st[1].flows[0].mismatch || w->st[1].flows[1].mismatch);
	assert_int_equal(a->rx_done, MIB / 4);
	assert_int_equal(b->rx_done, MIB / 8);
	assert_int_equal(w->st[1].flows[0].rx_done, MIB / 8);
	assert_int_equal(w->st[1].flows[1].rx_done, MIB / 4);
	/* the server closes one, the client the other */
	ttp_disconnect(w->st[1].flows[0].t);
	w->st[1].flows[0].t = NULL;
	ttp_disconnect(b->t);
	b->t = NULL;
	assert_true(run(w, all_closed, sim_now(w->sim) + 10 * SEC));
	assert_true(a->disconnected);
	assert_true(w->st[1].flows[1].disconnected);
	world_free(w);
}

static bool client_connected(struct world *w) { return w->st[0].flows[0].connected; }
static bool server_has_data(struct world *w)
{
	return w->st[1].nflows && w->st[1].flows[0].rx_done >= 20 * SDU;
}
static bool client_stalled(struct world *w)
{
	const struct flow *f = &w->st[0].flows[0];
	return f->t && ttp_send_credit(f->t) == 0 && ttp_tx_pending(f->t) > 0;
}

/* side: who disconnects (0 client, 1 server); when: 0 while the LSAP
 * connect is on its way, 1 with data in flight, 2 while stalled. */
static void disconnect_case(int side, int when)
{
	struct world *w = world_new();
	uint8_t lsap = ttp_listener_lsap(w->st[1].tl);
	struct flow *f = open_flow(w, 0, lsap, 4 * MIB);
	struct flow *peer;
	uint64_t t;

	if (when == 0) {
		/* the IrLAP link is not up yet: only the client can act */
		ttp_disconnect(f->t);
		f->t = NULL;
		assert_true(run(w, all_closed, sim_now(w->sim) + 10 * SEC));
		assert_int_equal(w->st[1].nflows, 0);
		world_free(w);
		return;
	}
	assert_true(run(w, client_connected, sim_now(w->sim) + 5 * SEC));
	if (when == 1) {
		assert_true(run(w, server_has_data, sim_now(w->sim) + 30 * SEC));
	} else {
		w->st[1].flows[0].reading = false;
		assert_true(run(w, client_stalled, sim_now(w->sim) + 30 * SEC));
	}
	peer = &w->st[1].flows[0];
	if (side == 0) {
		ttp_disconnect(f->t);
		f->t = NULL;
	} else {
		ttp_disconnect(peer->t);
		peer->t = NULL;
	}
	t = sim_now(w->sim);
	assert_true(run(w, all_closed, t + 10 * SEC));
	if (side == 0)
		assert_true(peer->disconnected);
	else
		assert_true(f->disconnected);
	assert_int_equal(side == 0 ? peer->reason : f->reason, IRLMP_REASON_USER);
	assert_false(f->mismatch || peer->mismatch);
	/* the link closed after the 2 s idle time, not before */
	print_message("link down after %.3f s: %s / %s\n", (double)(w->st[0].down_at - t) / 1e6,
		      irlap_reason_name(w->st[0].down_reason), irlap_reason_name(w->st[1].down_reason));
	assert_true(sim_now(w->sim) - t >= 2 * SEC);
	assert_int_equal(w->st[0].link_downs, 1);
	world_free(w);
}

static void disconnect_while_connecting(void **state) { (void)state; disconnect_case(0, 0); }
static void client_disconnects_in_flight(void **state) { (void)state; disconnect_case(0, 1); }
static void server_disconnects_in_flight(void **state) { (void)state; disconnect_case(1, 1); }
static void client_disconnects_stalled(void **state) { (void)state; disconnect_case(0, 2); }
static void server_disconnects_stalled(void **state) { (void)state; disconnect_case(1, 2); }

/* For tests/irlmp-tshark.tap: one whole session (IAS lookup, TinyTP
 * connect, 20 KiB each way, disconnect, idle link close) as pcap. */
static int capture_session(const char *path)
{
	FILE *out = fopen(path, "wb");
	struct world *w;
	struct flow *f;

	if (!out) {
		perror(path);
		return 1;
	}
	w = world_new_capture(out);
	assert_int_equal(lookup(w, "IrNetv1"), IAS_SUCCESS);
	f = open_flow(w, 0, (uint8_t)w->ias_value, 20 * 1024);
	w->st[1].flows[0].tx_goal = 20 * 1024;
	assert_true(run(w, flows_done, sim_now(w->sim) + 60 * SEC));
	assert_false(f->mismatch || w->st[1].flows[0].mismatch);
	ttp_disconnect(f->t);
	f->t = NULL;
	assert_true(run(w, all_closed, sim_now(w->sim) + 10 * SEC));
	world_free(w);
	return fclose(out) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--pcap") == 0)
		return capture_session(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: test_stack [--pcap OUT.pcap]\n");
		return 2;
	}
	{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lookup_connect_and_transfer),
		cmocka_unit_test(two_connections_at_once),
		cmocka_unit_test(disconnect_while_connecting),
		cmocka_unit_test(client_disconnects_in_flight),
		cmocka_unit_test(server_disconnects_in_flight),
		cmocka_unit_test(client_disconnects_stalled),
		cmocka_unit_test(server_disconnects_stalled),
	};
	return cmocka_run_group_tests_name("stack", tests, NULL, NULL);
	}
}
