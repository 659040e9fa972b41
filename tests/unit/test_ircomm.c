/*
 * test_ircomm.c: IrCOMM between two full stacks (IrLAP + IrLMP + IAS +
 * TinyTP) on the emulated wire in virtual time (sim.h), the way
 * test_stack.c joins them: the client finds the server through IAS,
 * connects 9-wire, both sides see each other's initial settings, 64 KiB
 * go each way byte for byte, a DTR drop shows as DSR/RI/CD dropping on
 * the other side, Poll is answered, settings change both ways, a server
 * with only 3-wire makes the client fall back (no DTE sent), the IAS
 * object is withdrawn while connected, disconnects from either side,
 * and a raw TinyTP peer sends malformed control bytes.
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
#include "ircomm.h"
#include "irlap.h"
#include "irlmp.h"
#include "sim.h"
#include "ttp.h"

#define SEC 1000000ull
#define STEP_US 20000
#define KIB64 65536

static const uint32_t addr[2] = { 0x0a0b0c01, 0x0a0b0c02 };

/* What one end saw. */
struct side {
	struct ircomm *c;
	int connected, disconnected, writable;
	int err;
	enum irlmp_reason reason;
	unsigned lines_events, params_events;
	uint8_t last_lines;
	struct ircomm_params last_params;
	size_t tx_goal, tx_done, rx_done;
	uint64_t tx_seed, rx_seed;
	bool mismatch;
	uint8_t rx_copy[64];   /* the first bytes received */
};

struct world {
	struct sim *sim;
	struct irlmp *lm[2];
	struct ias_db *db[2];
	struct ias_server *ias[2];
	struct ircomm_server *srv;
	struct side cli, sv, cli2;
	/* the raw TinyTP peer of the malformed-input test */
	struct ttp *raw;
	bool raw_connected;
	unsigned mark;   /* an event count to wait past */
};

static uint8_t gen(uint64_t seed, size_t i)
{
	uint64_t x = (seed + i / 8) * 0x9e3779b97f4a7c15ull;
	x ^= x >> 29;
	return (uint8_t)(x >> (8 * (i % 8)));
}

static void side_write(struct side *s)
{
	uint8_t buf[3000];

	while (s->c && s->connected && s->tx_done < s->tx_goal) {
		size_t n = s->tx_goal - s->tx_done;
		long r;
		if (n > sizeof(buf))
			n = sizeof(buf);
		for (size_t k = 0; k < n; k++)
			buf[k] = gen(s->tx_seed, s->tx_done + k);
		r = ircomm_write(s->c, buf, n);
		assert_true(r >= 0);
		s->tx_done += (size_t)r;
		if ((size_t)r < n)
			break;   /* the WRITABLE event brings us back */
	}
}

static void side_read(struct side *s)
{
	uint8_t buf[700];
	long n;

	while (s->c && (n = ircomm_read(s->c, buf, sizeof(buf))) > 0) {
		for (long k = 0; k < n; k++) {
			size_t at = s->rx_done + (size_t)k;
			if (at < sizeof(s->rx_copy))
				s->rx_copy[at] = buf[k];
			if (s->rx_seed && buf[k] != gen(s->rx_seed, at))
				s->mismatch = true;
		}
		s->rx_done += (size_t)n;
	}
}

static void on_event(void *ctx, const struct ircomm_event *ev)
{
	struct side *s = ctx;

	if (!s->c)
		s->c = ev->c;  /* the server's new connection */
	assert_ptr_equal(s->c, ev->c);
	switch (ev->type) {
	case IRCOMM_EV_CONNECTED:
		s->connected++;
		side_write(s);
		break;
	case IRCOMM_EV_READABLE:
		side_read(s);
		break;
	case IRCOMM_EV_WRITABLE:
		s->writable++;
		side_write(s);
		break;
	case IRCOMM_EV_PARAMS:
		s->params_events++;
		s->last_params = *ev->params;
		break;
	case IRCOMM_EV_LINES:
		s->lines_events++;
		s->last_lines = ev->lines;
		break;
	case IRCOMM_EV_DISCONNECTED:
		s->disconnected++;
		s->err = ev->err;
		s->reason = ev->reason;
		s->c = NULL;
		break;
	}
}

static void sim_event(void *ctx, int st, const struct irlap_event *ev)
{
	struct world *w = ctx;
	irlmp_lap_event(w->lm[st], ev, sim_now(w->sim));
}

static size_t sim_pull(void *ctx, int st, uint8_t *buf, size_t max)
{
	struct world *w = ctx;
	return irlmp_pull(w->lm[st], buf, max);
}

struct lap_ctx {
	struct world *w;
	int idx;
};
static struct lap_ctx lap_ctx[2];

static int lap_request(void *ctx, const struct irlap_request *req)
{
	struct lap_ctx *l = ctx;
	return sim_request(l->w->sim, l->idx, req);
}

static const struct irlmp_ops lmp_ops = { lap_request };

static void config(struct ircomm_config *cfg, uint8_t services)
{
	ircomm_config_defaults(cfg);
	cfg->service_types = services;
}

static struct world *world_new(uint8_t server_services)
{
	struct world *w = calloc(1, sizeof(*w));
	struct irlap_config st[2];
	struct sim_config cfg = { .app = { .event = sim_event, .pull = sim_pull } };
	struct irlmp_config lc;
	struct ircomm_config ic;

	assert_non_null(w);
	cfg.app.ctx = w;
	cfg.wire.turnaround_us = 200;
	cfg.wire.seed = 42;
	irlmp_config_defaults(&lc);
	for (int i = 0; i < 2; i++) {
		irlap_config_defaults(&st[i], 115200, 1000);
		st[i].daddr = addr[i];
		st[i].seed = 7 + (uint64_t)i;
		lap_ctx[i] = (struct lap_ctx){ w, i };
		w->lm[i] = irlmp_new(&lc, &lmp_ops, &lap_ctx[i]);
		w->db[i] = ias_db_new(i ? "server" : "client");
		w->ias[i] = ias_server_new(w->lm[i], w->db[i], NULL);
		assert_non_null(w->ias[i]);
	}
	/* the server's settings differ from the client's defaults, so that
	 * each side can tell the other's apart */
	config(&ic, server_services);
	ic.data_rate = 19200;
	ic.flow_control = 0x0c;
	if (server_services) {   /* 0: the test makes its own server */
		w->srv = ircomm_server_new(w->lm[1], w->db[1], &ic, on_event, &w->sv);
		assert_non_null(w->srv);
	}
	w->sim = sim_new(&cfg, st);
	assert_non_null(w->sim);
	return w;
}

static void world_free(struct world *w)
{
	if (w->cli.c)
		ircomm_disconnect(w->cli.c);
	if (w->cli2.c)
		ircomm_disconnect(w->cli2.c);
	if (w->raw)
		ttp_disconnect(w->raw);
	if (w->srv)
		ircomm_server_free(w->srv);
	for (int i = 0; i < 2; i++) {
		ias_server_free(w->ias[i]);
		ias_db_free(w->db[i]);
		irlmp_free(w->lm[i]);
	}
	sim_free(w->sim);
	free(w);
}

/* The host loop: the simulator in steps, IrLMP's timers, the client's
 * procedure steps, the readers. */
static bool run(struct world *w, bool (*done)(struct world *), uint64_t limit_us)
{
	while (!done(w)) {
		uint64_t now = sim_now(w->sim), t = now + STEP_US;
		if (now >= limit_us)
			return false;
		for (int i = 0; i < 2; i++) {
			uint64_t d = irlmp_deadline(w->lm[i]);
			if (d < t)
				t = d > now ? d : now + 1;
		}
		if ((w->cli.c && ircomm_deadline(w->cli.c) < t) ||
		    (w->cli2.c && ircomm_deadline(w->cli2.c) < t))
			t = now + 1;
		sim_run_until(w->sim, t);
		if (w->cli.c && ircomm_deadline(w->cli.c) <= sim_now(w->sim))
			ircomm_tick(w->cli.c, sim_now(w->sim));
		if (w->cli2.c && ircomm_deadline(w->cli2.c) <= sim_now(w->sim))
			ircomm_tick(w->cli2.c, sim_now(w->sim));
		for (int i = 0; i < 2; i++)
			if (irlmp_deadline(w->lm[i]) <= sim_now(w->sim))
				irlmp_tick(w->lm[i], sim_now(w->sim));
		side_read(&w->cli);
		side_read(&w->sv);
	}
	return true;
}

static bool both_connected(struct world *w)
{
	return w->cli.connected && w->sv.connected && w->cli.lines_events && w->cli.params_events &&
	       w->sv.params_events;
}
static bool client_gone(struct world *w) { return w->cli.disconnected > 0; }
static bool client2_gone(struct world *w) { return w->cli2.disconnected > 0; }
static bool transfers_done(struct world *w)
{
	return w->cli.rx_done >= w->sv.tx_goal && w->sv.rx_done >= w->cli.tx_goal &&
	       w->cli.tx_done == w->cli.tx_goal && w->sv.tx_done == w->sv.tx_goal;
}

static bool sv_lines(struct world *w) { return w->sv.lines_events > w->mark; }
static bool cli_lines(struct world *w) { return w->cli.lines_events > w->mark; }
static bool sv_params(struct world *w) { return w->sv.params_events > w->mark; }
static bool cli_params(struct world *w) { return w->cli.params_events > w->mark; }
static bool sv_got_3(struct world *w) { return w->sv.rx_done >= 3; }
static bool cli_got_3(struct world *w) { return w->cli.rx_done >= 3; }
static bool sv_connected(struct world *w) { return w->sv.connected > 0; }
static bool sv_idle(struct world *w) { return !w->sv.c && ircomm_server_ias_object(w->srv) >= 0; }

static void client_start_side(struct world *w, struct side *s, uint8_t services)
{
	struct ircomm_config ic;

	config(&ic, services);
	ic.dte = IRCOMM_DTE_DTR;   /* RTS low at first: the server sees it */
	s->c = ircomm_connect(w->lm[0], addr[1], &ic, on_event, s, sim_now(w->sim));
	assert_non_null(s->c);
	assert_int_equal(ircomm_get_state(s->c), IRCOMM_QUERY_PARAMS);
}

static void client_start(struct world *w, uint8_t services)
{
	client_start_side(w, &w->cli, services);
}

static void nine_wire_session(void **state)
{
	struct world *w = world_new(IRCOMM_SVC_3WIRE | IRCOMM_SVC_9WIRE);
	const struct ircomm_params *pp;
	struct ircomm_params set = { .present = IRCOMM_P_DATA_RATE | IRCOMM_P_DATA_FORMAT,
				     .data_rate = 115200, .data_format = 0x1b };

	(void)state;
	assert_true(ircomm_server_ias_object(w->srv) >= 0);
	w->cli.tx_goal = w->sv.tx_goal = KIB64;
	w->cli.tx_seed = w->sv.rx_seed = 11;
	w->sv.tx_seed = w->cli.rx_seed = 22;
	client_start(w, IRCOMM_SVC_3WIRE | IRCOMM_SVC_9WIRE);
	assert_true(run(w, both_connected, 20 * SEC));
	assert_int_equal(ircomm_service_type(w->cli.c), IRCOMM_SVC_9WIRE);
	assert_int_equal(ircomm_service_type(w->sv.c), IRCOMM_SVC_9WIRE);
	assert_int_equal(ircomm_get_state(w->cli.c), IRCOMM_OPEN);
	/* the server saw the client's initial settings (Linux's set) ... */
	pp = ircomm_peer_params(w->sv.c);
	assert_true(pp->present & IRCOMM_P_DATA_RATE);
	assert_int_equal(pp->data_rate, 9600);
	assert_int_equal(pp->data_format, 0x03);
	assert_int_equal(pp->flow_control, 0x00);
	assert_int_equal(pp->dte, IRCOMM_DTE_DTR);
	/* ... with DTR alone seen through the null modem: DSR|RI|CD, no CTS */
	assert_int_equal(ircomm_peer_lines(w->sv.c),
			 IRCOMM_DCE_DSR | IRCOMM_DCE_RI | IRCOMM_DCE_CD);
	/* and the client the server's */
	pp = ircomm_peer_params(w->cli.c);
	assert_int_equal(pp->data_rate, 19200);
	assert_int_equal(pp->flow_control, 0x0c);
	assert_false(pp->present & IRCOMM_P_SERVICE_TYPE);
	assert_int_equal(pp->dte, IRCOMM_DTE_DTR | IRCOMM_DTE_RTS);
	assert_int_equal(w->cli.last_lines, 0xf0);
	/* the IAS object is withdrawn while a client is connected */
	assert_int_equal(ircomm_server_ias_object(w->srv), -1);

	/* 64 KiB each way, both at once */
	assert_true(run(w, transfers_done, 200 * SEC));
	assert_false(w->cli.mismatch);
	assert_false(w->sv.mismatch);
	assert_int_equal(w->cli.rx_done, KIB64);
	assert_int_equal(w->sv.rx_done, KIB64);
	assert_true(w->cli.writable > 0);   /* the queue filled and drained */

	/* the client raises RTS and drops DTR: CTS up, DSR/RI/CD down, with deltas */
	w->mark = w->sv.lines_events;
	assert_int_equal(ircomm_set_lines(w->cli.c, IRCOMM_DTE_RTS), 0);
	assert_int_equal(ircomm_local_lines(w->cli.c), IRCOMM_DTE_RTS);
	assert_true(run(w, sv_lines, sim_now(w->sim) + 5 * SEC));
	assert_int_equal(w->sv.last_lines, IRCOMM_DCE_CTS | IRCOMM_DCE_DELTA_CTS | IRCOMM_DCE_DELTA_DSR |
						    IRCOMM_DCE_DELTA_RI | IRCOMM_DCE_DELTA_CD);
	assert_int_equal(ircomm_peer_lines(w->sv.c), IRCOMM_DCE_CTS);
	assert_int_equal(ircomm_set_lines(w->cli.c, IRCOMM_DTE_RTS), 0); /* no change: nothing sent */

	/* the server drops both: the client sees all four lines go down */
	w->mark = w->cli.lines_events;
	assert_int_equal(ircomm_set_lines(w->sv.c, 0), 0);
	assert_true(run(w, cli_lines, sim_now(w->sim) + 5 * SEC));
	assert_int_equal(w->cli.last_lines, 0x0f);
	assert_int_equal(ircomm_peer_lines(w->cli.c), 0);

	/* Poll: the client answers with its lines, no deltas */
	w->mark = w->sv.lines_events;
	assert_int_equal(ircomm_poll(w->sv.c), 0);
	assert_true(run(w, sv_lines, sim_now(w->sim) + 5 * SEC));
	assert_int_equal(w->sv.last_lines, IRCOMM_DCE_CTS);
	assert_int_equal(ircomm_get_stats(w->cli.c)->polls_answered, 1);

	/* settings both ways */
	w->mark = w->sv.params_events;
	assert_int_equal(ircomm_set_params(w->cli.c, &set), 0);
	assert_true(run(w, sv_params, sim_now(w->sim) + 5 * SEC));
	assert_true(ircomm_params_equal(&w->sv.last_params, &set));
	assert_int_equal(ircomm_peer_params(w->sv.c)->data_rate, 115200);
	set.present = IRCOMM_P_XON_XOFF;
	set.xon = 0x11;
	set.xoff = 0x13;
	w->mark = w->cli.params_events;
	assert_int_equal(ircomm_set_params(w->sv.c, &set), 0);
	assert_true(run(w, cli_params, sim_now(w->sim) + 5 * SEC));
	assert_true(ircomm_params_equal(&w->cli.last_params, &set));
	set.present = IRCOMM_P_DTE;
	assert_int_equal(ircomm_set_params(w->sv.c, &set), -EINVAL);

	/* the client hangs up: the server's side ends, its IAS object returns */
	ircomm_disconnect(w->cli.c);
	w->cli.c = NULL;
	assert_true(run(w, sv_idle, sim_now(w->sim) + 10 * SEC));
	assert_int_equal(w->sv.disconnected, 1);
	assert_int_equal(w->sv.err, 0);
	assert_int_equal(w->sv.reason, IRLMP_REASON_USER);
	assert_int_equal(w->cli.disconnected, 0);   /* no event for our own disconnect */
	world_free(w);
}

static void three_wire_fallback(void **state)
{
	struct world *w = world_new(IRCOMM_SVC_3WIRE);

	(void)state;
	client_start(w, IRCOMM_SVC_3WIRE | IRCOMM_SVC_9WIRE);
	assert_true(run(w, sv_connected, 20 * SEC));
	assert_true(run(w, sv_params, sim_now(w->sim) + 5 * SEC));
	assert_int_equal(ircomm_service_type(w->cli.c), IRCOMM_SVC_3WIRE);
	assert_int_equal(ircomm_service_type(w->sv.c), IRCOMM_SVC_3WIRE);
	/* the settings came, no DTE: no line events, lines at Linux's default */
	assert_int_equal(ircomm_peer_params(w->sv.c)->data_rate, 9600);
	assert_false(ircomm_peer_params(w->sv.c)->present & IRCOMM_P_DTE);
	assert_int_equal(w->sv.lines_events, 0);
	assert_int_equal(ircomm_peer_lines(w->sv.c), 0xf0);
	assert_int_equal(ircomm_set_lines(w->cli.c, 0), -EOPNOTSUPP);
	assert_int_equal(ircomm_poll(w->sv.c), -EOPNOTSUPP);
	assert_int_equal(ircomm_write(w->cli.c, (const uint8_t *)"AT\r", 3), 3);
	assert_true(run(w, sv_got_3, sim_now(w->sim) + 5 * SEC));
	assert_memory_equal(w->sv.rx_copy, "AT\r", 3);
	assert_int_equal(ircomm_write(w->sv.c, (const uint8_t *)"OK\n", 3), 3);
	assert_true(run(w, cli_got_3, sim_now(w->sim) + 5 * SEC));
	assert_memory_equal(w->cli.rx_copy, "OK\n", 3);

	/* the server hangs up: the client's side ends */
	ircomm_disconnect(w->sv.c);
	w->sv.c = NULL;
	assert_true(run(w, client_gone, sim_now(w->sim) + 10 * SEC));
	assert_int_equal(w->cli.err, 0);
	assert_int_equal(w->cli.reason, IRLMP_REASON_USER);
	assert_true(ircomm_server_ias_object(w->srv) >= 0);
	world_free(w);
}

static bool raw_up_both(struct world *w) { return w->cli.connected && w->sv.connected; }

/* The server's IAS answer to GetValueByClass(IrDA:IrCOMM, attr). */
static int ias_ret(struct world *w, const char *attr, struct ias_response *r, uint8_t *buf,
		   size_t cap)
{
	uint8_t req[128];
	size_t n = ias_request_build(req, sizeof(req), IRCOMM_CLASS, attr);

	n = ias_db_answer(w->db[1], req, n, buf, cap);
	assert_int_equal(ias_response_parse(buf, n, r), 0);
	return r->ret;
}
static bool raw_connected_cli(struct world *w) { return w->cli.connected > 0; }

/* A server offering 3-wire raw alone (Parameters 0x01, IrDA:IrLMP:LsapSel,
 * no TinyTP attribute), a client that asked for 9-wire: it falls back to
 * raw; 64 KiB each way intact with WRITABLE refills, no control channel,
 * the IAS object withdrawn while connected, the hang-up seen. */
static void raw_fallback_session(void **state)
{
	struct world *w = world_new(IRCOMM_SVC_3WIRE_RAW);
	struct ircomm_params set = { .present = IRCOMM_P_DATA_RATE, .data_rate = 115200 };
	struct ias_response r;
	uint8_t buf[256];

	(void)state;
	assert_int_equal(ias_ret(w, IRCOMM_ATTR_LMP_LSAP, &r, buf, sizeof(buf)), IAS_SUCCESS);
	assert_int_equal(ias_lsap_sel(&r), ircomm_server_lsap(w->srv));
	assert_int_equal(ias_ret(w, IRCOMM_ATTR_PARAMETERS, &r, buf, sizeof(buf)), IAS_SUCCESS);
	assert_int_equal(r.value.len, 6);   /* service type 0x01, port type serial */
	assert_memory_equal(r.value.bytes, "\x00\x01\x01\x01\x01\x01", 6);
	assert_int_equal(ias_ret(w, IRCOMM_ATTR_LSAP, &r, buf, sizeof(buf)), IAS_NO_SUCH_ATTRIBUTE);
	w->cli.tx_goal = w->sv.tx_goal = KIB64;
	w->cli.tx_seed = w->sv.rx_seed = 31;
	w->sv.tx_seed = w->cli.rx_seed = 32;
	client_start(w, IRCOMM_SVC_9WIRE);
	assert_true(run(w, raw_up_both, 20 * SEC));
	assert_int_equal(ircomm_service_type(w->cli.c), IRCOMM_SVC_3WIRE_RAW);
	assert_int_equal(ircomm_service_type(w->sv.c), IRCOMM_SVC_3WIRE_RAW);
	assert_int_equal(ircomm_server_ias_object(w->srv), -1);
	/* one LM-PDU of data a write: the IrLAP data size less the LM header */
	assert_int_equal(ircomm_max_write(w->cli.c), 2048 - 2);
	assert_int_equal(ircomm_set_params(w->cli.c, &set), -EOPNOTSUPP);
	assert_int_equal(ircomm_set_lines(w->cli.c, 0), -EOPNOTSUPP);
	assert_int_equal(ircomm_poll(w->sv.c), -EOPNOTSUPP);
	assert_true(run(w, transfers_done, sim_now(w->sim) + 60 * SEC));
	assert_false(w->cli.mismatch);
	assert_false(w->sv.mismatch);
	assert_int_equal(w->cli.rx_done, KIB64);
	assert_int_equal(w->sv.rx_done, KIB64);
	assert_true(w->cli.writable > 0);   /* the send queue filled: refills came */
	assert_int_equal(w->cli.params_events + w->sv.params_events, 0);
	assert_int_equal(w->cli.lines_events + w->sv.lines_events, 0);
	assert_int_equal(ircomm_get_stats(w->sv.c)->bytes_rx, KIB64);

	ircomm_disconnect(w->sv.c);
	w->sv.c = NULL;
	assert_true(run(w, client_gone, sim_now(w->sim) + 10 * SEC));
	assert_int_equal(w->cli.err, 0);
	assert_int_equal(w->cli.reason, IRLMP_REASON_USER);
	assert_true(ircomm_server_ias_object(w->srv) >= 0);
	world_free(w);
}

/* A server offering all three: a client asking for raw gets raw, one
 * asking for cooked gets 9-wire. */
static void raw_when_asked(void **state)
{
	uint8_t all = IRCOMM_SVC_3WIRE_RAW | IRCOMM_SVC_3WIRE | IRCOMM_SVC_9WIRE;
	struct world *w = world_new(all);

	(void)state;
	client_start(w, IRCOMM_SVC_3WIRE_RAW);
	assert_true(run(w, raw_up_both, 20 * SEC));
	assert_int_equal(ircomm_service_type(w->sv.c), IRCOMM_SVC_3WIRE_RAW);
	assert_int_equal(ircomm_write(w->cli.c, (const uint8_t *)"AT\r", 3), 3);
	assert_true(run(w, sv_got_3, sim_now(w->sim) + 5 * SEC));
	assert_memory_equal(w->sv.rx_copy, "AT\r", 3);
	ircomm_disconnect(w->cli.c);
	w->cli.c = NULL;
	assert_true(run(w, sv_idle, sim_now(w->sim) + 10 * SEC));
	world_free(w);

	w = world_new(all);
	client_start(w, IRCOMM_SVC_3WIRE | IRCOMM_SVC_9WIRE);
	assert_true(run(w, both_connected, 20 * SEC));
	assert_int_equal(ircomm_service_type(w->sv.c), IRCOMM_SVC_9WIRE);
	world_free(w);
}

static struct lmp_conn *bare_conn;
static void bare_event(void *ctx, const struct lmp_event *ev)
{
	(void)ctx;
	if (ev->type == LMP_EV_CONNECTED)
		bare_conn = ev->conn;
	else if (ev->type == LMP_EV_DISCONNECTED)
		bare_conn = NULL;
}
static bool bare_got(struct world *w) { (void)w; return bare_conn && lmp_rx_pending(bare_conn); }

/* An IrLPT-style raw server: an IrDA:IrCOMM object with IrDA:IrLMP:LsapSel
 * and no Parameters.  A 9-wire client takes raw; its bytes arrive as
 * they are, without a clen byte. */
static void raw_without_parameters(void **state)
{
	struct world *w = world_new(0);
	struct lmp_config lc;
	struct lmp_listener *l;
	struct ias_value v = { .type = IAS_INTEGER };
	uint8_t buf[16];
	int obj;

	(void)state;
	lmp_config_defaults(&lc);
	l = lmp_listen(w->lm[1], IRLMP_LSAP_ANY, &lc, bare_event, NULL);
	assert_non_null(l);
	v.integer = lmp_listener_lsap(l);
	obj = ias_db_add_object(w->db[1], IRCOMM_CLASS);
	assert_true(obj >= 0);
	assert_int_equal(ias_db_add_attr(w->db[1], obj, IRCOMM_ATTR_LMP_LSAP, &v), 0);
	client_start(w, IRCOMM_SVC_9WIRE);
	assert_true(run(w, raw_connected_cli, 20 * SEC));
	assert_int_equal(ircomm_service_type(w->cli.c), IRCOMM_SVC_3WIRE_RAW);
	assert_int_equal(ircomm_write(w->cli.c, (const uint8_t *)"hello", 5), 5);
	assert_true(run(w, bare_got, sim_now(w->sim) + 5 * SEC));
	assert_int_equal(lmp_recv(bare_conn, buf, sizeof(buf)), 5);
	assert_memory_equal(buf, "hello", 5);
	lmp_disconnect(bare_conn);
	bare_conn = NULL;
	assert_true(run(w, client_gone, sim_now(w->sim) + 10 * SEC));
	lmp_listener_free(l);
	world_free(w);
}

static void no_common_service(void **state)
{
	struct world *w = world_new(IRCOMM_SVC_3WIRE);

	(void)state;
	client_start(w, IRCOMM_SVC_9WIRE);
	assert_true(run(w, client_gone, 20 * SEC));
	assert_int_equal(w->cli.err, -EPROTONOSUPPORT);
	assert_int_equal(w->sv.connected, 0);
	world_free(w);
}

static void no_ircomm_and_busy(void **state)
{
	struct world *w = world_new(IRCOMM_SVC_9WIRE);

	(void)state;
	/* the server stops publishing: no such class */
	ircomm_server_free(w->srv);
	w->srv = NULL;
	client_start(w, IRCOMM_SVC_9WIRE);
	assert_true(run(w, client_gone, 20 * SEC));
	assert_int_equal(w->cli.err, -ENOENT);
	{
		struct ircomm_config ic;
		config(&ic, IRCOMM_SVC_9WIRE);
		w->srv = ircomm_server_new(w->lm[1], w->db[1], &ic, on_event, &w->sv);
		assert_non_null(w->srv);
	}
	/* one client connects; a second finds no IAS object while it is */
	memset(&w->cli, 0, sizeof(w->cli));
	client_start(w, IRCOMM_SVC_9WIRE);
	assert_true(run(w, both_connected, sim_now(w->sim) + 20 * SEC));
	client_start_side(w, &w->cli2, IRCOMM_SVC_9WIRE);
	assert_true(run(w, client2_gone, sim_now(w->sim) + 20 * SEC));
	assert_int_equal(w->cli2.err, -ENOENT);
	assert_int_equal(w->sv.connected, 1);
	/* both close at once */
	ircomm_disconnect(w->sv.c);
	w->sv.c = NULL;
	ircomm_disconnect(w->cli.c);
	w->cli.c = NULL;
	assert_true(run(w, sv_idle, sim_now(w->sim) + 10 * SEC));
	world_free(w);
}

/* A raw TinyTP peer (not our client) sends what a broken IrCOMM would. */
static void raw_event(void *ctx, const struct ttp_event *ev)
{
	struct world *w = ctx;

	if (ev->type == TTP_EV_CONNECTED)
		w->raw_connected = true;
	if (ev->type == TTP_EV_DISCONNECTED) {
		w->raw = NULL;
		w->raw_connected = false;
	}
}

static bool raw_up(struct world *w) { return w->raw_connected && w->sv.connected; }
static bool sv_got(struct world *w) { return w->sv.rx_done >= w->mark; }
static bool raw_down(struct world *w) { return !w->raw && !w->sv.c; }
static bool raw_connected_fn(struct world *w) { return w->raw_connected; }

static void raw_send(struct world *w, const uint8_t *sdu, size_t len)
{
	assert_int_equal(ttp_send(w->raw, sdu, len), 0);
}

/* Opens the raw TinyTP peer to the server and sends it a service type. */
static void raw_open(struct world *w, uint8_t service_type)
{
	struct ttp_config tc;
	const uint8_t service[] = { 0x03, IRCOMM_PI_SERVICE_TYPE, 0x01, service_type };

	ttp_config_defaults(&tc);
	tc.mode = TTP_MODE_STREAM;
	w->raw = ttp_connect(w->lm[0], addr[1], ircomm_server_lsap(w->srv), &tc, raw_event, w,
			     sim_now(w->sim));
	assert_non_null(w->raw);
	assert_true(run(w, raw_connected_fn, 20 * SEC));
	raw_send(w, service, sizeof(service));
}

static void malformed_control(void **state)
{
	struct world *w = world_new(IRCOMM_SVC_9WIRE);
	/* clen 4 holding a cut item (data rate PL 4, 2 bytes), then data */
	const uint8_t cut[] = { 0x04, 0x10, 0x04, 0x00, 0x00, 'a', 'b', 'c' };
	/* clen 9 past the end of a 5-byte SDU: dropped whole */
	const uint8_t past[] = { 0x09, 0x20, 0x01, 0x0c, 'X' };
	/* DTE with PL 2 (rejected), an unknown PI, a good format, data */
	const uint8_t badpl[] = { 0x09, 0x20, 0x02, 0x0c, 0x00, 0x7e, 0x00, 0x11, 0x01, 0x02, 'd' };
	const struct ircomm_stats *st;

	(void)state;
	raw_open(w, IRCOMM_SVC_9WIRE);
	assert_true(run(w, raw_up, sim_now(w->sim) + 5 * SEC));
	assert_int_equal(ircomm_service_type(w->sv.c), IRCOMM_SVC_9WIRE);
	raw_send(w, cut, sizeof(cut));
	raw_send(w, past, sizeof(past));
	raw_send(w, badpl, sizeof(badpl));
	w->mark = 4;
	assert_true(run(w, sv_got, sim_now(w->sim) + 5 * SEC));
	assert_memory_equal(w->sv.rx_copy, "abcd", 4);
	assert_int_equal(w->sv.rx_done, 4);
	st = ircomm_get_stats(w->sv.c);
	assert_int_equal(st->bad_control, 1);
	assert_int_equal(st->bad_sdus, 1);
	assert_int_equal(st->ignored_items, 2);
	assert_int_equal(ircomm_peer_params(w->sv.c)->data_format, 0x02);
	assert_false(ircomm_peer_params(w->sv.c)->present & (IRCOMM_P_DTE | IRCOMM_P_DATA_RATE));
	assert_int_equal(w->sv.lines_events, 0);
	/* the connection lives on; the peer hangs up */
	assert_int_equal(ircomm_get_state(w->sv.c), IRCOMM_OPEN);
	ttp_disconnect(w->raw);
	w->raw = NULL;
	assert_true(run(w, raw_down, sim_now(w->sim) + 10 * SEC));
	world_free(w);
}

static void unoffered_service_refused(void **state)
{
	struct world *w = world_new(IRCOMM_SVC_3WIRE);

	(void)state;
	raw_open(w, IRCOMM_SVC_9WIRE);
	assert_true(run(w, raw_down, sim_now(w->sim) + 10 * SEC));
	assert_int_equal(w->sv.connected, 0);
	assert_int_equal(w->sv.disconnected, 0); /* never connected: no event */
	assert_true(ircomm_server_ias_object(w->srv) >= 0);
	world_free(w);
}

/* A Linux-like server (raw TinyTP, port type 0x00): what our client
 * sends first must be digest 11.6's initial 9-wire parameters exactly. */
struct raw_server {
	struct ttp *t;
	uint8_t first[64];
	long first_len;
	char log[8192];
	size_t log_len;
};

static void raw_server_event(void *ctx, const struct ttp_event *ev)
{
	struct raw_server *r = ctx;

	if (ev->type == TTP_EV_CONNECTED)
		r->t = ev->ttp;
	if (ev->type == TTP_EV_READABLE && !r->first_len)
		r->first_len = ttp_recv(ev->ttp, r->first, sizeof(r->first));
	if (ev->type == TTP_EV_DISCONNECTED)
		r->t = NULL;
}

static void collect_log(void *ctx, enum log_level level, const char *msg)
{
	struct raw_server *r = ctx;
	int n = snprintf(r->log + r->log_len, sizeof(r->log) - r->log_len, "%s\n", msg);

	(void)level;
	if (n > 0 && (size_t)n < sizeof(r->log) - r->log_len)
		r->log_len += (size_t)n;
}

static struct raw_server *the_raw_server;
static bool raw_server_got(struct world *w) { (void)w; return the_raw_server->first_len != 0; }

static void client_first_sdu_is_linux_vector(void **state)
{
	static const uint8_t want[] = { 0x12, 0x00, 0x01, 0x04, 0x10, 0x04, 0x00, 0x00, 0x25, 0x80,
					0x11, 0x01, 0x03, 0x12, 0x01, 0x00, 0x20, 0x01, 0x0c };
	static const uint8_t linux_params[] = { 0x00, 0x01, 0x06, 0x01, 0x01, 0x00 };
	struct world *w = world_new(IRCOMM_SVC_9WIRE);
	struct raw_server rs = { 0 };
	struct logger log = { .sink = collect_log, .ctx = &rs, .max = LOG_LEVEL_DEBUG };
	struct ttp_config tc;
	struct ttp_listener *tl;
	struct ircomm_config ic;
	int id;

	(void)state;
	the_raw_server = &rs;
	ircomm_server_free(w->srv);   /* replaced by the raw one */
	w->srv = NULL;
	ttp_config_defaults(&tc);
	tc.mode = TTP_MODE_STREAM;
	tl = ttp_listen(w->lm[1], IRLMP_LSAP_ANY, &tc, raw_server_event, &rs);
	assert_non_null(tl);
	id = ias_db_add_object(w->db[1], IRCOMM_CLASS);
	assert_true(id >= 0);
	assert_int_equal(ias_db_add_attr(w->db[1], id, IRCOMM_ATTR_PARAMETERS,
					 &(struct ias_value){ .type = IAS_OCTETS, .bytes = linux_params,
							      .len = sizeof(linux_params) }), 0);
	assert_int_equal(ias_db_add_attr(w->db[1], id, IRCOMM_ATTR_LSAP,
					 &(struct ias_value){ .type = IAS_INTEGER,
							      .integer = ttp_listener_lsap(tl) }), 0);
	ircomm_config_defaults(&ic);
	ic.log = &log;
	w->cli.c = ircomm_connect(w->lm[0], addr[1], &ic, on_event, &w->cli, sim_now(w->sim));
	assert_non_null(w->cli.c);
	assert_true(run(w, raw_server_got, 20 * SEC));
	assert_int_equal(rs.first_len, sizeof(want));
	assert_memory_equal(rs.first, want, sizeof(want));
	assert_int_equal(w->cli.connected, 1);
	/* every step of the procedure was logged as a transition */
	assert_non_null(strstr(rs.log, "ircomm client: QUERY_PARAMS --Parameters answer--> QUERY_LSAP"));
	assert_non_null(strstr(rs.log, "ircomm client: QUERY_LSAP --LsapSel answer--> CONNECTING"));
	assert_non_null(strstr(rs.log, "ircomm client: CONNECTING --TinyTP connected--> OPEN"));
	ircomm_disconnect(w->cli.c);
	w->cli.c = NULL;
	assert_non_null(strstr(rs.log, "ircomm client: OPEN --user disconnect--> CLOSED"));
	if (rs.t)
		ttp_disconnect(rs.t);
	ttp_listener_free(tl);
	world_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nine_wire_session),
		cmocka_unit_test(three_wire_fallback),
		cmocka_unit_test(raw_fallback_session),
		cmocka_unit_test(raw_when_asked),
		cmocka_unit_test(raw_without_parameters),
		cmocka_unit_test(no_common_service),
		cmocka_unit_test(no_ircomm_and_busy),
		cmocka_unit_test(malformed_control),
		cmocka_unit_test(unoffered_service_refused),
		cmocka_unit_test(client_first_sdu_is_linux_vector),
	};
	return cmocka_run_group_tests_name("ircomm", tests, NULL, NULL);
}
