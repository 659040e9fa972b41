/*
 * sim.c: two IrLAP stations over the emulated wire, and N stations over
 * a broadcast medium, on a virtual clock.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "sir.h"

#define TX_BUF 8192
/* Steps at one virtual instant before the loop is declared stuck. */
#define STUCK_STEPS 100000
/* A stalled host's receive buffer (a tty's is 4 KiB; a pty's more). */
#define STALL_RX_BUF 65536

/* One station and its SIR codec, as either medium sees it. */
struct sim_port {
	void *owner;            /* struct sim or struct simnet */
	int index;
	bool net;
	struct irlap *st;
	struct sir_decoder *dec;
	uint64_t rx_at;         /* arrival time of the byte being decoded */
	uint8_t tx[TX_BUF];
};

struct sim {
	struct wire *wire;
	struct sim_port port[2];
	struct sim_app app;
	const struct logger *log;
	uint64_t now;
	bool capture;
	struct pcap_writer pw;
	struct sim_counters counters;
	double frame_loss;
	uint64_t rng;
	bool (*damage)(void *ctx, int station, const uint8_t *frame, size_t len);
	void *damage_ctx;
	uint32_t switch_delay_us[2];
	uint32_t switch_baud[2];       /* a late switch pending, or 0 */
	uint64_t switch_at[2];
	struct sim_stall {
		uint32_t gap_us, max_us;   /* 0: never stalls */
		bool on;
		uint64_t until;            /* the stall ends (on) */
		uint64_t next;             /* the next one starts (!on) */
		uint8_t *rx;               /* bytes that arrived meanwhile */
		size_t nrx;
	} stall[2];
};

/* A uniform draw in [0, 1) from the simulator's own generator. */
static double sim_uniform(struct sim *s)
{
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

/* A duration drawn uniformly in [0, max_us). */
static uint64_t draw_us(struct sim *s, uint32_t max_us)
{
	return (uint64_t)(sim_uniform(s) * max_us);
}

static const struct sim_app *port_app(const struct sim_port *p);
static void net_transmit(struct sim_port *p, const uint8_t *bytes, size_t n,
			 uint32_t speed_after);
static void net_set_speed(struct sim_port *p, uint32_t baud);

/* ---- what every station's ops do ---------------------------------------- */

static void port_deliver(void *ctx, const struct irlap_event *ev)
{
	struct sim_port *p = ctx;
	const struct sim_app *app = port_app(p);

	if (app->event)
		app->event(app->ctx, p->index, ev);
}

static size_t port_pull(void *ctx, uint8_t *buf, size_t max)
{
	struct sim_port *p = ctx;
	const struct sim_app *app = port_app(p);

	return app->pull ? app->pull(app->ctx, p->index, buf, max) : 0;
}

static int encode(struct sim_port *p, const uint8_t *frame, size_t len, uint32_t xbofs)
{
	struct wcursor w;

	if (xbofs > SIR_MAX_XBOFS)
		xbofs = SIR_MAX_XBOFS;
	wcursor_init(&w, p->tx, sizeof(p->tx));
	return sir_encode(&w, frame, len, xbofs);
}

static void wire_send_frame(void *ctx, const uint8_t *frame, size_t len,
			    const struct irlap_txinfo *tx)
{
	struct sim_port *p = ctx;
	struct sim *s = p->owner;
	int n = encode(p, frame, len, tx->xbofs);
	uint64_t done = s->now;

	if (n < 0) {
		log_msg(s->log, LOG_LEVEL_ERROR, "sim: station %d: frame of %zu bytes not encoded",
			p->index, len);
		return;
	}
	if (wire_speed(s->wire, p->index) != tx->baud)
		wire_set_speed(s->wire, p->index, tx->baud, s->now);
	/* Half-duplex: whatever was arriving is lost under our own signal. */
	sir_decoder_reset(p->dec);
	if (s->frame_loss > 0 && sim_uniform(s) < s->frame_loss) {
		/* The frame fades: its time on the line passes in silence. */
		memset(p->tx, SIR_XBOF, (size_t)n);
		s->counters.frames_lost[p->index]++;
	} else if (s->damage && s->damage(s->damage_ctx, p->index, frame, len)) {
		p->tx[n - 1 - (int)len / 2] ^= 0x08;
	}
	wire_transmit(s->wire, p->index, p->tx, (size_t)n, s->now, &done);
	if (tx->speed_after && s->switch_delay_us[p->index]) {
		uint64_t at = s->now + s->switch_delay_us[p->index];

		s->switch_baud[p->index] = tx->speed_after;
		s->switch_at[p->index] = at > done ? at : done;
	} else if (tx->speed_after) {
		wire_set_speed(s->wire, p->index, tx->speed_after, s->now);
	}
	s->counters.frames_sent[p->index]++;
	/* Stamped when the frame has left, as a receiver's are when it has
	 * arrived. */
	if (s->capture && p->index == 0)
		pcap_writer_frame(&s->pw, done, PCAP_DIR_TX, frame, len);
}

static void wire_port_speed(void *ctx, uint32_t baud)
{
	struct sim_port *p = ctx;
	struct sim *s = p->owner;

	wire_set_speed(s->wire, p->index, baud, s->now);
}

static void net_send_frame(void *ctx, const uint8_t *frame, size_t len,
			   const struct irlap_txinfo *tx)
{
	struct sim_port *p = ctx;
	int n = encode(p, frame, len, tx->xbofs);

	if (n >= 0)
		net_transmit(p, p->tx, (size_t)n, tx->speed_after);
}

static void net_port_speed(void *ctx, uint32_t baud)
{
	net_set_speed(ctx, baud);
}

static void on_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct sim_port *p = ctx;

	if (!p->net) {
		struct sim *s = p->owner;

		s->counters.frames_received[p->index]++;
		if (s->capture && p->index == 0)
			pcap_writer_frame(&s->pw, p->rx_at, PCAP_DIR_RX, frame, len);
	}
	irlap_input(p->st, frame, len, p->rx_at);
}

/* The decoder dropped a damaged frame or heard noise. */
static void on_damage(void *ctx)
{
	struct sim_port *p = ctx;

	irlap_frame_error(p->st, p->rx_at);
}

static int port_init(struct sim_port *p, void *owner, int index, bool net,
		     const struct irlap_config *cfg, const struct logger *log)
{
	struct sir_decoder_config dc = { .max_ifield = IRLAP_MAX_DATA, .on_frame = on_frame,
					 .on_media_busy = on_damage, .ctx = p, .log = log };
	struct irlap_ops ops = {
		.send_frame = net ? net_send_frame : wire_send_frame,
		.set_speed = net ? net_port_speed : wire_port_speed,
		.deliver = port_deliver,
		.pull = port_pull,
	};

	p->owner = owner;
	p->index = index;
	p->net = net;
	p->dec = sir_decoder_new(&dc);
	p->st = irlap_new(cfg, &ops, p);
	return p->dec && p->st ? 0 : -ENOMEM;
}

static void port_fini(struct sim_port *p)
{
	irlap_free(p->st);
	sir_decoder_free(p->dec);
}

/* ---- two stations on the wire ------------------------------------------- */

struct sim *sim_new(const struct sim_config *cfg, const struct irlap_config stations[2])
{
	struct sim *s = calloc(1, sizeof(*s));
	struct wire_config wc = cfg->wire;

	if (!s)
		return NULL;
	wc.baud[0] = wc.baud[1] = 9600;
	if (!wc.log)
		wc.log = cfg->log;
	s->wire = wire_new(&wc);
	s->app = cfg->app;
	s->log = cfg->log;
	s->frame_loss = cfg->frame_loss;
	s->damage = cfg->damage;
	s->damage_ctx = cfg->damage_ctx;
	memcpy(s->switch_delay_us, cfg->switch_delay_us, sizeof(s->switch_delay_us));
	s->rng = cfg->wire.seed ^ 0x5eed5eed5eedull;
	if (!s->wire) {
		free(s);
		return NULL;
	}
	for (int i = 0; i < 2; i++) {
		struct sim_stall *h = &s->stall[i];

		h->gap_us = cfg->stall_gap_us[i];
		h->max_us = cfg->stall_max_us[i];
		if (!h->gap_us)
			continue;
		h->next = draw_us(s, 2 * h->gap_us);
		h->rx = malloc(STALL_RX_BUF);
		if (!h->rx) {
			sim_free(s);
			return NULL;
		}
	}
	for (int i = 0; i < 2; i++) {
		if (port_init(&s->port[i], s, i, false, &stations[i], cfg->log) != 0) {
			sim_free(s);
			return NULL;
		}
	}
	if (cfg->pcap_sink) {
		s->capture = true;
		if (pcap_writer_init(&s->pw, cfg->pcap_sink, cfg->pcap_ctx, 0) != 0) {
			sim_free(s);
			return NULL;
		}
	}
	return s;
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	for (int i = 0; i < 2; i++) {
		port_fini(&s->port[i]);
		free(s->stall[i].rx);
	}
	wire_free(s->wire);
	free(s);
}

struct irlap *sim_station(struct sim *s, int station) { return s->port[station & 1].st; }
const struct wire *sim_wire(const struct sim *s) { return s->wire; }
const struct sim_counters *sim_counters(const struct sim *s) { return &s->counters; }
uint64_t sim_now(const struct sim *s) { return s->now; }

int sim_request(struct sim *s, int station, const struct irlap_request *req)
{
	return irlap_request(s->port[station & 1].st, req, s->now);
}

/* A byte the station's host reads: into its SIR decoder, and the line
 * activity IrLAP watches. */
static void port_take_byte(struct sim_port *p, uint8_t byte, uint64_t at_us)
{
	p->rx_at = at_us;
	sir_decoder_feed(p->dec, &byte, 1);
	if (byte != SIR_XBOF || sir_decoder_in_frame(p->dec))
		irlap_media_activity(p->st, at_us, sir_decoder_in_frame(p->dec));
}

/* ---- host stalls --------------------------------------------------------- */

static void stall_hold(struct sim *s, int i, uint8_t byte)
{
	struct sim_stall *h = &s->stall[i];

	if (h->nrx == STALL_RX_BUF) {
		s->counters.stall_bytes_lost[i]++;
		return;
	}
	h->rx[h->nrx++] = byte;
}

static void stall_begin(struct sim *s, int i)
{
	struct sim_stall *h = &s->stall[i];

	h->on = true;
	h->until = s->now + 1 + draw_us(s, h->max_us);
	s->counters.stalls[i]++;
	log_msg(s->log, LOG_LEVEL_DEBUG, "sim: station %d stalls for %llu us", i,
		(unsigned long long)(h->until - s->now));
}

/* What waited for the host: its timers, and the bytes read now. */
static void stall_end(struct sim *s, int i)
{
	struct sim_stall *h = &s->stall[i];
	struct sim_port *p = &s->port[i];
	bool timers_first = sim_uniform(s) < 0.5;

	h->on = false;
	h->next = s->now + 1 + draw_us(s, 2 * h->gap_us);
	if (timers_first && irlap_deadline(p->st) <= s->now)
		irlap_tick(p->st, s->now);
	for (size_t k = 0; k < h->nrx; k++)
		port_take_byte(p, h->rx[k], s->now);
	h->nrx = 0;
}

/* Starts and ends stalls due now. */
static void stall_update(struct sim *s)
{
	for (int i = 0; i < 2; i++) {
		struct sim_stall *h = &s->stall[i];

		if (!h->gap_us)
			continue;
		if (h->on && h->until <= s->now)
			stall_end(s, i);
		else if (!h->on && h->next <= s->now)
			stall_begin(s, i);
	}
}

/* The next moment station i's host does something of its own. */
static uint64_t station_deadline(const struct sim *s, int i)
{
	const struct sim_stall *h = &s->stall[i];
	uint64_t t = irlap_deadline(s->port[i].st);

	if (!h->gap_us)
		return t;
	if (h->on)
		return h->until;
	return t < h->next ? t : h->next;
}

bool sim_stalled(const struct sim *s, int station)
{
	return s->stall[station & 1].on;
}

static void on_wire_byte(void *ctx, int side, uint8_t byte, uint64_t at_us)
{
	struct sim *s = ctx;
	struct sim_port *p = &s->port[side & 1];

	if (at_us > s->now)
		s->now = at_us;
	if (s->stall[side & 1].on) {
		stall_hold(s, side & 1, byte);
		return;
	}
	port_take_byte(p, byte, at_us);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* One step of the event loop; false when the next event is beyond
 * limit (the clock is then at limit). */
static bool sim_step(struct sim *s, uint64_t limit)
{
	uint64_t t = wire_next_event(s->wire);

	for (int i = 0; i < 2; i++) {
		t = min_u64(t, station_deadline(s, i));
		if (s->switch_baud[i])
			t = min_u64(t, s->switch_at[i]);
	}
	if (t > limit) {
		wire_advance(s->wire, limit, on_wire_byte, s);
		s->now = limit;
		return false;
	}
	if (t < s->now)
		t = s->now;
	s->now = t;
	s->counters.events++;
	wire_advance(s->wire, t, on_wire_byte, s);
	s->now = t;
	for (int i = 0; i < 2; i++) {
		if (s->switch_baud[i] && s->switch_at[i] <= s->now) {
			wire_set_speed(s->wire, i, s->switch_baud[i], s->now);
			s->switch_baud[i] = 0;
		}
	}
	stall_update(s);
	for (int i = 0; i < 2; i++)
		if (!s->stall[i].on && irlap_deadline(s->port[i].st) <= s->now)
			irlap_tick(s->port[i].st, s->now);
	return true;
}

static bool never(void *ctx)
{
	return false;
}

bool sim_run_while_not(struct sim *s, bool (*done)(void *ctx), void *ctx, uint64_t limit_us)
{
	uint64_t last = s->now;
	unsigned same = 0;

	while (!done(ctx)) {
		if (!sim_step(s, limit_us))
			return done(ctx);
		if (s->now == last) {
			if (++same > STUCK_STEPS) {
				log_msg(s->log, LOG_LEVEL_ERROR, "sim: stuck at %llu us",
					(unsigned long long)s->now);
				return false;
			}
		} else {
			last = s->now;
			same = 0;
		}
	}
	return true;
}

void sim_run_until(struct sim *s, uint64_t t_us)
{
	sim_run_while_not(s, never, NULL, t_us);
}

/* ---- N stations on a broadcast medium ----------------------------------- */

struct net_tx {
	int from;
	uint64_t start, end;
	uint32_t baud;
	bool collided, delivered;
	uint8_t *bytes;
	size_t n;
};

struct simnet {
	struct sim_port *port;
	uint32_t *speed;
	uint64_t *busy_until;
	size_t n;
	struct sim_app app;
	const struct logger *log;
	uint64_t now;
	struct net_tx *txs;
	size_t ntx, captx;
	uint64_t collisions;
};

static const struct sim_app *port_app(const struct sim_port *p)
{
	return p->net ? &((const struct simnet *)p->owner)->app : &((const struct sim *)p->owner)->app;
}

static bool overlaps(const struct net_tx *a, const struct net_tx *b)
{
	return a->start < b->end && b->start < a->end;
}

static void net_transmit(struct sim_port *p, const uint8_t *bytes, size_t n, uint32_t speed_after)
{
	struct simnet *net = p->owner;
	int i = p->index;
	struct net_tx tx = { .from = i, .baud = net->speed[i], .n = n };

	if (net->ntx == net->captx) {
		size_t cap = net->captx ? 2 * net->captx : 16;
		struct net_tx *grown = realloc(net->txs, cap * sizeof(*grown));
		if (!grown)
			return;
		net->txs = grown;
		net->captx = cap;
	}
	tx.bytes = malloc(n);
	if (!tx.bytes)
		return;
	memcpy(tx.bytes, bytes, n);
	tx.start = net->busy_until[i] > net->now ? net->busy_until[i] : net->now;
	tx.end = tx.start + wire_line_time_us(tx.baud, n);
	net->busy_until[i] = tx.end;
	for (size_t k = 0; k < net->ntx; k++) {
		struct net_tx *o = &net->txs[k];
		if (o->from != i && overlaps(o, &tx)) {
			o->collided = true;
			tx.collided = true;
		}
	}
	sir_decoder_reset(p->dec);
	net->txs[net->ntx++] = tx;
	if (speed_after)
		net->speed[i] = speed_after;
}

static void net_set_speed(struct sim_port *p, uint32_t baud)
{
	struct simnet *net = p->owner;
	net->speed[p->index] = baud;
}

static bool was_transmitting(const struct simnet *net, int station, const struct net_tx *tx)
{
	for (size_t k = 0; k < net->ntx; k++)
		if (net->txs[k].from == station && overlaps(&net->txs[k], tx))
			return true;
	return false;
}

/* Delivers transmission idx to every station that can hear it.  Works
 * on a copy: stations answering from inside the decoder may grow the
 * table (the bytes stay put until net_prune). */
static void net_deliver(struct simnet *net, size_t idx)
{
	struct net_tx tx = net->txs[idx];

	net->txs[idx].delivered = true;
	if (tx.collided) {
		net->collisions++;
		return;
	}
	for (size_t k = 0; k < net->n; k++) {
		struct sim_port *p = &net->port[k];

		if ((int)k == tx.from || net->speed[k] != tx.baud || was_transmitting(net, (int)k, &tx))
			continue;
		p->rx_at = tx.end;
		irlap_media_activity(p->st, tx.end, false);
		sir_decoder_feed(p->dec, tx.bytes, tx.n);
	}
}

/* Forgets transmissions that can no longer overlap anything. */
static void net_prune(struct simnet *net)
{
	size_t keep = 0;

	for (size_t k = 0; k < net->ntx; k++) {
		struct net_tx *tx = &net->txs[k];
		if (tx->delivered && tx->end + 2000000 < net->now) {
			free(tx->bytes);
			continue;
		}
		net->txs[keep++] = *tx;
	}
	net->ntx = keep;
}

struct simnet *simnet_new(const struct simnet_config *cfg, const struct irlap_config *stations,
			  size_t n)
{
	struct simnet *net = calloc(1, sizeof(*net));

	if (!net)
		return NULL;
	net->n = n;
	net->app = cfg->app;
	net->log = cfg->log;
	net->port = calloc(n, sizeof(*net->port));
	net->speed = calloc(n, sizeof(*net->speed));
	net->busy_until = calloc(n, sizeof(*net->busy_until));
	if (!net->port || !net->speed || !net->busy_until) {
		simnet_free(net);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		net->speed[i] = 9600;
		if (port_init(&net->port[i], net, (int)i, true, &stations[i], cfg->log) != 0) {
			simnet_free(net);
			return NULL;
		}
	}
	return net;
}

void simnet_free(struct simnet *net)
{
	if (!net)
		return;
	if (net->port)
		for (size_t i = 0; i < net->n; i++)
			port_fini(&net->port[i]);
	for (size_t k = 0; k < net->ntx; k++)
		free(net->txs[k].bytes);
	free(net->txs);
	free(net->port);
	free(net->speed);
	free(net->busy_until);
	free(net);
}

struct irlap *simnet_station(struct simnet *net, int station) { return net->port[station].st; }
uint64_t simnet_now(const struct simnet *net) { return net->now; }
uint64_t simnet_collisions(const struct simnet *net) { return net->collisions; }

int simnet_request(struct simnet *net, int station, const struct irlap_request *req)
{
	return irlap_request(net->port[station].st, req, net->now);
}

void simnet_run_until(struct simnet *net, uint64_t t_us)
{
	unsigned same = 0;

	for (;;) {
		uint64_t t = UINT64_MAX;
		size_t next = SIZE_MAX;

		for (size_t k = 0; k < net->ntx; k++)
			if (!net->txs[k].delivered && net->txs[k].end < t) {
				t = net->txs[k].end;
				next = k;
			}
		for (size_t i = 0; i < net->n; i++)
			t = min_u64(t, irlap_deadline(net->port[i].st));
		if (t > t_us)
			break;
		if (t <= net->now && ++same > STUCK_STEPS)
			break;
		if (t > net->now) {
			same = 0;
			net->now = t;
		}
		if (next != SIZE_MAX && net->txs[next].end == t)
			net_deliver(net, next);
		for (size_t i = 0; i < net->n; i++)
			if (irlap_deadline(net->port[i].st) <= net->now)
				irlap_tick(net->port[i].st, net->now);
		net_prune(net);
	}
	net->now = t_us;
}
