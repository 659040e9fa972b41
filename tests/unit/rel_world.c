/*
 * rel_world.c: see rel_world.h.
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

#include "fcs.h"
#include "rel_world.h"

#define STEP_US 20000ull
#define RECONNECT_US 2000000ull
#define SAR_MAX 1200          /* largest SDU we send */
static const uint32_t addr[2] = { 0x52454c01, 0x52454c02 };

const char *rel_svc_name(enum rel_svc s)
{
	static const char *const names[REL_NSVC] = { "ircomm", "irnet-sar", "ttp-stream" };
	return s < REL_NSVC ? names[s] : "?";
}

uint8_t rel_pattern(int dir, uint64_t pos)
{
	uint64_t x = ((uint64_t)(unsigned)dir << 56 ^ (pos / 8)) * 0x9e3779b97f4a7c15ull;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 32;
	return (uint8_t)(x >> (8 * (pos % 8)));
}

/* The direction key of the data an end sends. */
static int dir_of(const struct rel_end *e, bool sending)
{
	int sender = sending ? e->side : 1 - e->side;
	return (int)e->svc * 2 + sender;
}

uint64_t rel_world_now(const struct rel_world *w)
{
	return sim_now(w->sim);
}

/* ---- checked data ------------------------------------------------------ */

static void check_stream(struct rel_end *e, const uint8_t *buf, size_t n)
{
	int dir = dir_of(e, false);

	for (size_t k = 0; k < n; k++)
		if (buf[k] != rel_pattern(dir, e->rx_pos + k)) {
			e->corrupted++;
			if (e->w->cfg.on_corrupt)
				e->w->cfg.on_corrupt(e->w->cfg.frame_ctx, e, buf, n);
		}
	e->rx_pos += n;
	e->bytes_verified += n;
}

static size_t sar_len(uint64_t seq, size_t max)
{
	size_t len = REL_SAR_HDR + 1 + (size_t)((seq * 7919u) % SAR_MAX);
	return len < max ? len : max;
}

static void check_sar(struct rel_end *e, const uint8_t *buf, size_t n)
{
	int dir = dir_of(e, false);
	uint32_t seq;
	uint16_t len, fcs;
	bool bad = n < REL_SAR_HDR;

	if (!bad) {
		seq = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 |
		      (uint32_t)buf[3] << 24;
		len = (uint16_t)(buf[4] | buf[5] << 8);
		fcs = (uint16_t)(buf[6] | buf[7] << 8);
		bad = seq != e->rx_pos || len != n - REL_SAR_HDR ||
		      fcs != fcs_compute(buf + REL_SAR_HDR, len);
		for (size_t k = 0; !bad && k < len; k++)
			bad = buf[REL_SAR_HDR + k] != rel_pattern(dir, (uint64_t)seq << 16 | k);
		if (!bad)
			e->bytes_verified += len;
		e->rx_pos = (uint64_t)seq + 1;
	}
	if (bad) {
		e->corrupted++;
		if (e->w->cfg.on_corrupt)
			e->w->cfg.on_corrupt(e->w->cfg.frame_ctx, e, buf, n);
	} else
		e->sdus_verified++;
}

static void end_read(struct rel_end *e)
{
	uint8_t buf[4200];
	long n;

	if (!e->up)
		return;
	if (e->svc == REL_IRCOMM) {
		while (e->c && (n = ircomm_read(e->c, buf, sizeof(buf))) > 0)
			check_stream(e, buf, (size_t)n);
		return;
	}
	while (e->t && (n = ttp_recv(e->t, buf, sizeof(buf))) > 0) {
		if (e->svc == REL_SAR)
			check_sar(e, buf, (size_t)n);
		else
			check_stream(e, buf, (size_t)n);
	}
}

static void fill(uint8_t *buf, int dir, uint64_t pos, size_t n)
{
	for (size_t k = 0; k < n; k++)
		buf[k] = rel_pattern(dir, pos + k);
}

static void end_write(struct rel_end *e)
{
	uint8_t buf[SAR_MAX + REL_SAR_HDR + 8];
	int dir = dir_of(e, true);

	if (!e->up)
		return;
	if (e->svc == REL_IRCOMM) {
		for (int i = 0; i < 4 && e->c; i++) {
			long r;
			fill(buf, dir, e->tx_pos, 1024);
			r = ircomm_write(e->c, buf, 1024);
			if (r <= 0)
				return;
			e->tx_pos += (uint64_t)r;
			e->bytes_tx += (uint64_t)r;
		}
		return;
	}
	for (int i = 0; i < 8 && e->t; i++) {
		size_t max = ttp_max_send(e->t), n;

		if (max == 0)
			return;
		if (e->svc == REL_STREAM) {
			n = max < 1024 ? max : 1024;
			fill(buf, dir, e->tx_pos, n);
			if (ttp_send(e->t, buf, n) != 0)
				return;
			e->tx_pos += n;
			e->bytes_tx += n;
			continue;
		}
		if (max <= REL_SAR_HDR)
			return;
		n = sar_len(e->tx_pos, max) - REL_SAR_HDR;
		for (size_t k = 0; k < n; k++)
			buf[REL_SAR_HDR + k] = rel_pattern(dir, e->tx_pos << 16 | k);
		uint16_t fcs = fcs_compute(buf + REL_SAR_HDR, n);
		uint32_t seq = (uint32_t)e->tx_pos;
		uint8_t hdr[REL_SAR_HDR] = { (uint8_t)seq, (uint8_t)(seq >> 8), (uint8_t)(seq >> 16),
					     (uint8_t)(seq >> 24), (uint8_t)n, (uint8_t)(n >> 8),
					     (uint8_t)fcs, (uint8_t)(fcs >> 8) };
		memcpy(buf, hdr, sizeof(hdr));
		if (ttp_send(e->t, buf, n + REL_SAR_HDR) != 0)
			return;
		e->tx_pos++;
		e->bytes_tx += n;
	}
}

static void end_up(struct rel_end *e)
{
	e->up = true;
	e->tx_pos = e->rx_pos = 0;
	e->connects++;
	end_write(e);
}

static void end_down(struct rel_end *e)
{
	struct rel_world *w = e->w;

	if (e->up)
		e->disconnects++;
	else
		e->failed++;
	e->up = false;
	e->c = NULL;
	e->t = NULL;
	if (e->side == 0)
		w->redial_at[e->svc] = sim_now(w->sim) + RECONNECT_US;
}

/* ---- events ------------------------------------------------------------ */

static void on_ircomm(void *ctx, const struct ircomm_event *ev)
{
	struct rel_end *e = ctx;

	if (e->side == 1 && !e->c && ev->type == IRCOMM_EV_CONNECTED && e->w->end[REL_IRCOMM][0].c)
		e->c = ev->c;   /* the server's new connection (our caller is calling) */
	if (ev->c != e->c)
		return;
	switch (ev->type) {
	case IRCOMM_EV_CONNECTED:
		end_up(e);
		break;
	case IRCOMM_EV_READABLE:
		end_read(e);
		break;
	case IRCOMM_EV_WRITABLE:
		end_write(e);
		break;
	case IRCOMM_EV_PARAMS:
	case IRCOMM_EV_LINES:
		break;
	case IRCOMM_EV_DISCONNECTED:
		if (getenv("REL_DEBUG"))
			fprintf(stderr, "%llu: ircomm side %d down err %d reason %d (up %d)\n",
				(unsigned long long)sim_now(e->w->sim), e->side, ev->err, (int)ev->reason, e->up);
		end_down(e);
		break;
	}
}

/* Whether a listener's new connection comes from station 0's caller of
 * this service (and not from someone else on the link: the hostile
 * test's attacker). */
static bool owned_by_caller(const struct rel_end *e, struct ttp *t)
{
	const struct ttp *caller = e->w->end[e->svc][0].t;

	return caller && irlmp_conn_lsel(ttp_lmp_conn(caller)) == irlmp_conn_rsel(ttp_lmp_conn(t));
}

static void on_ttp(void *ctx, const struct ttp_event *ev)
{
	struct rel_end *e = ctx;

	if (e->side == 1 && ev->type == TTP_EV_CONNECTED && !e->t && owned_by_caller(e, ev->ttp))
		e->t = ev->ttp;   /* a listener's new connection, from our caller */
	if (ev->ttp != e->t)
		return;           /* (the hostile test's own connections) */
	switch (ev->type) {
	case TTP_EV_CONNECTED:
		end_up(e);
		break;
	case TTP_EV_READABLE:
		end_read(e);
		break;
	case TTP_EV_WRITABLE:
		end_write(e);
		break;
	case TTP_EV_DISCONNECTED:
		if (getenv("REL_DEBUG"))
			fprintf(stderr, "%llu: %s side %d down reason %d (up %d)\n",
				(unsigned long long)sim_now(e->w->sim), rel_svc_name(e->svc), e->side,
				(int)ev->reason, e->up);
		end_down(e);
		break;
	}
}

static void lap_event(void *ctx, int st, const struct irlap_event *ev)
{
	struct rel_world *w = ctx;

	if (st == 0 && ev->type == IRLAP_EV_CONNECT_CONF)
		w->lap_connects++;
	else if (st == 0 && ev->type == IRLAP_EV_DISCONNECT)
		w->lap_disconnects++;
	if (getenv("REL_DEBUG") && ev->type == IRLAP_EV_DISCONNECT)
		fprintf(stderr, "%llu: station %d link down: %s\n",
			(unsigned long long)sim_now(w->sim), st, irlap_reason_name(ev->reason));
	else if (st == 0 && ev->type == IRLAP_EV_RESET)
		w->lap_resets++;
	irlmp_lap_event(w->lm[st], ev, sim_now(w->sim));
}

static size_t lap_pull(void *ctx, int st, uint8_t *buf, size_t max)
{
	struct rel_world *w = ctx;
	return irlmp_pull(w->lm[st], buf, max);
}

static int lap_request(void *ctx, const struct irlap_request *req)
{
	struct rel_lap_ctx *l = ctx;
	return sim_request(l->w->sim, l->idx, req);
}

static bool seen_frame(void *ctx, int station, const uint8_t *frame, size_t len)
{
	struct rel_world *w = ctx;

	if (w->cfg.on_frame)
		w->cfg.on_frame(w->cfg.frame_ctx, station, frame, len);
	return false;
}

static const struct irlmp_ops lmp_ops = { lap_request };

/* ---- the world --------------------------------------------------------- */

struct rel_world *rel_world_new(const struct rel_world_config *cfg)
{
	struct rel_world *w = calloc(1, sizeof(*w));
	struct irlap_config st[2];
	struct sim_config sc = { .app = { .event = lap_event, .pull = lap_pull } };
	struct irlmp_config lc;
	struct ircomm_config ic;
	struct ttp_config tc;

	assert_non_null(w);
	w->cfg = *cfg;
	sc.app.ctx = w;
	sc.damage = seen_frame;
	sc.damage_ctx = w;
	sc.wire.turnaround_us = 200;
	sc.wire.seed = cfg->seed;
	sc.wire.ber = cfg->ber;
	sc.wire.drop = cfg->drop;
	sc.wire.breaks = cfg->breaks;
	sc.wire.n_breaks = cfg->n_breaks;
	for (int i = 0; i < 2; i++) {
		sc.stall_gap_us[i] = cfg->stall_gap_us;
		sc.stall_max_us[i] = cfg->stall_max_us;
	}
	sc.log = cfg->log;
	irlmp_config_defaults(&lc);
	lc.log = cfg->log;
	for (int i = 0; i < 2; i++) {
		const struct logger *log = NULL;

		if (cfg->log) {
			w->station_log[i] = *cfg->log;
			w->station_log[i].prefix = i ? "s1" : "s0";
			log = &w->station_log[i];
		}
		lc.log = log;
		irlap_config_defaults(&st[i], cfg->baud, 1000);
		st[i].daddr = addr[i];
		st[i].seed = cfg->seed * 2 + (uint64_t)i;
		st[i].adapt_frame_size = true;
		st[i].send_srej = true;
		st[i].repoll_quiet_us = IRLAP_REPOLL_QUIET_US;
		st[i].log = log;
		w->lap_ctx[i].w = w;
		w->lap_ctx[i].idx = i;
		w->lm[i] = irlmp_new(&lc, &lmp_ops, &w->lap_ctx[i]);
		w->db[i] = ias_db_new(i ? "listener" : "caller");
		assert_non_null(w->lm[i]);
		assert_non_null(w->db[i]);
		w->ias[i] = ias_server_new(w->lm[i], w->db[i], cfg->log);
		assert_non_null(w->ias[i]);
		for (int s = 0; s < REL_NSVC; s++)
			w->end[s][i] = (struct rel_end){ .w = w, .svc = (enum rel_svc)s, .side = i };
	}
	ircomm_config_defaults(&ic);
	ic.service_types = IRCOMM_SVC_3WIRE | IRCOMM_SVC_9WIRE;
	ic.log = cfg->log;
	w->ircomm_srv = ircomm_server_new(w->lm[1], w->db[1], &ic, on_ircomm,
					  &w->end[REL_IRCOMM][1]);
	assert_non_null(w->ircomm_srv);
	ttp_config_defaults(&tc);
	tc.log = cfg->log;
	tc.mode = TTP_MODE_SAR;
	w->sar_l = ttp_listen(w->lm[1], IRLMP_LSAP_ANY, &tc, on_ttp, &w->end[REL_SAR][1]);
	tc.mode = TTP_MODE_STREAM;
	w->stream_l = ttp_listen(w->lm[1], IRLMP_LSAP_ANY, &tc, on_ttp, &w->end[REL_STREAM][1]);
	assert_non_null(w->sar_l);
	assert_non_null(w->stream_l);
	w->sim = sim_new(&sc, st);
	assert_non_null(w->sim);
	return w;
}

void rel_world_free(struct rel_world *w)
{
	struct rel_end *e = &w->end[REL_IRCOMM][0];

	if (e->c)
		ircomm_disconnect(e->c);
	for (int s = REL_SAR; s < REL_NSVC; s++)
		if (w->end[s][0].t)
			ttp_disconnect(w->end[s][0].t);
	ircomm_server_free(w->ircomm_srv);
	ttp_listener_free(w->sar_l);
	ttp_listener_free(w->stream_l);
	for (int i = 0; i < 2; i++) {
		ias_server_free(w->ias[i]);
		ias_db_free(w->db[i]);
		irlmp_free(w->lm[i]);
	}
	sim_free(w->sim);
	free(w);
}

/* Station 0 calls a service that is down and due. */
static void redial(struct rel_world *w, enum rel_svc s)
{
	struct rel_end *e = &w->end[s][0];
	uint64_t now = sim_now(w->sim), before = e->failed;
	struct ttp_config tc;
	struct ircomm_config ic;

	/* station 1's address as a discovery would report it now (an XID
	 * with the new-address flag makes it draw another) */
	uint32_t peer = irlap_get_daddr(sim_station(w->sim, 1));

	if (!w->cfg.services[s] || e->up || e->c || e->t || w->redial_at[s] > now)
		return;
	w->redial_at[s] = now + RECONNECT_US;  /* again, if this one fails at once */
	if (s == REL_IRCOMM) {
		struct ircomm *c;

		ircomm_config_defaults(&ic);
		ic.service_types = IRCOMM_SVC_3WIRE | IRCOMM_SVC_9WIRE;
		ic.log = w->cfg.log;
		c = ircomm_connect(w->lm[0], peer, &ic, on_ircomm, e, now);
		if (e->failed == before)
			e->c = c;
		return;
	}
	ttp_config_defaults(&tc);
	tc.log = w->cfg.log;
	tc.mode = s == REL_SAR ? TTP_MODE_SAR : TTP_MODE_STREAM;
	struct ttp *t = ttp_connect(w->lm[0], peer,
				    ttp_listener_lsap(s == REL_SAR ? w->sar_l : w->stream_l), &tc,
				    on_ttp, e, now);
	if (e->failed == before)
		e->t = t;
}

void rel_world_run_until(struct rel_world *w, uint64_t t_us)
{
	while (sim_now(w->sim) < t_us) {
		uint64_t now = sim_now(w->sim), t = now + STEP_US;

		if (t > t_us)
			t = t_us;
		for (int i = 0; i < 2; i++) {
			uint64_t d = irlmp_deadline(w->lm[i]);

			if (sim_stalled(w->sim, i))
				continue; /* its layers wait; the next step is soon */
			if (d < t)
				t = d > now ? d : now + 1;
			for (int s = 0; s < REL_NSVC; s++) {
				struct rel_end *e = &w->end[s][i];
				if (s == REL_IRCOMM && e->c && ircomm_deadline(e->c) < t)
					t = ircomm_deadline(e->c) > now ? ircomm_deadline(e->c) : now + 1;
			}
		}
		sim_run_until(w->sim, t);
		now = sim_now(w->sim);
		for (int i = 0; i < 2; i++) {
			struct rel_end *e = &w->end[REL_IRCOMM][i];
			/* a stalled host runs none of its layers */
			if (sim_stalled(w->sim, i))
				continue;
			if (e->c && ircomm_deadline(e->c) <= now)
				ircomm_tick(e->c, now);
			if (irlmp_deadline(w->lm[i]) <= now)
				irlmp_tick(w->lm[i], now);
		}
		for (int s = 0; s < REL_NSVC; s++) {
			if (!sim_stalled(w->sim, 0))
				redial(w, (enum rel_svc)s);
			for (int i = 0; i < 2; i++) {
				if (sim_stalled(w->sim, i))
					continue;
				end_read(&w->end[s][i]);
				end_write(&w->end[s][i]);
			}
		}
	}
}

uint64_t rel_world_verified(const struct rel_world *w)
{
	uint64_t n = 0;

	for (int s = 0; s < REL_NSVC; s++)
		n += w->end[s][0].bytes_verified + w->end[s][1].bytes_verified;
	return n;
}

uint64_t rel_world_corrupted(const struct rel_world *w)
{
	uint64_t n = 0;

	for (int s = 0; s < REL_NSVC; s++)
		n += w->end[s][0].corrupted + w->end[s][1].corrupted;
	return n;
}
