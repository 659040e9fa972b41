/*
 * bench_irlap_ber.c: IrLAP payload efficiency under bit errors, in
 * virtual time over the emulated wire (so the figures are exact, not
 * timings): 115200 baud, default negotiation (2048-byte frames, window
 * 7), bit error rates 1e-6, 1e-5 and 1e-4, data both ways and one way.
 * Each figure is measured with the station's adaptation on (the
 * defaults, and the early poll, which suits the simulator) and with it
 * off (frames always 2 KB: `_fixed2k`), side by side in one run.  `_gobackn`: the receiver does not send SREJ (as a
 * Linux peer), so a loss costs the rest of the turn.
 *
 *   efficiency = payload bytes delivered in order (both directions)
 *                / line bytes the measured virtual time allowed
 *
 * Every byte delivered is checked against the sender's stream.  Each
 * figure is the mean over SEEDS runs of RUN_S virtual seconds of data
 * (0.69 MB of line time per run, 4.1 MB per figure).  Prints
 * `bench: irlap_efficiency_115200_ber<B>[_oneway][_fixed2k] VALUE ratio`
 * and `#` lines with the spread and where the time went.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irlap.h"
#include "sim.h"

#define BAUD 115200u
#define SEEDS 6
#define RUN_S 60
#define SEC 1000000ull

/* One direction's byte stream: byte i is a hash of (stream, i), so the
 * receiver checks without a copy. */
struct flow {
	uint64_t key;
	uint64_t tx_pos, rx_pos;
	bool bad;
};

static uint8_t stream_byte(uint64_t key, uint64_t i)
{
	uint64_t z = key + (i >> 3) * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (uint8_t)(z >> ((i & 7) * 8));
}

struct bench {
	struct sim *sim;
	struct flow flow[2]; /* flow[i]: sent by station i */
	bool sending[2];
	bool up[2];
	bool started;
	uint64_t t_start;
};

static void on_event(void *ctx, int st, const struct irlap_event *ev)
{
	struct bench *b = ctx;

	if (ev->type == IRLAP_EV_CONNECT_IND) {
		struct irlap_request r = { .type = IRLAP_REQ_ACCEPT };
		sim_request(b->sim, st, &r);
	} else if (ev->type == IRLAP_EV_CONNECT_CONF) {
		b->up[st] = true;
	} else if (ev->type == IRLAP_EV_DATA) {
		struct flow *f = &b->flow[!st];

		for (size_t i = 0; i < ev->len && !f->bad; i++)
			f->bad = ev->data[i] != stream_byte(f->key, f->rx_pos + i);
		f->rx_pos += ev->len;
	}
}

static size_t on_pull(void *ctx, int st, uint8_t *buf, size_t max)
{
	struct bench *b = ctx;
	struct flow *f = &b->flow[st];

	if (!b->sending[st])
		return 0;
	if (!b->started) {
		b->started = true;
		b->t_start = sim_now(b->sim);
	}
	for (size_t i = 0; i < max; i++)
		buf[i] = stream_byte(f->key, f->tx_pos + i);
	f->tx_pos += max;
	return max;
}

static bool up(void *ctx)
{
	struct bench *b = ctx;
	return b->up[0] && b->up[1];
}

struct result {
	double eff;
	uint64_t iframes, retx, f_timeouts, early_polls, srej_tx, payload;
	bool ok;
};

static struct result run_one(double ber, bool adapt, bool both, bool srej, uint64_t seed)
{
	struct bench b = { .sending = { true, both } };
	struct irlap_config st[2];
	struct sim_config cfg = { .app = { .event = on_event, .pull = on_pull, .ctx = &b } };
	struct irlap_request r = { .type = IRLAP_REQ_CONNECT, .daddr = 0x0b0b0002 };
	struct result res = { .ok = false };

	for (int i = 0; i < 2; i++) {
		irlap_config_defaults(&st[i], BAUD, 1000);
		st[i].daddr = 0x0b0b0001 + (uint32_t)i;
		st[i].seed = seed * 2 + (uint64_t)i;
#ifndef OLD
		st[i].adapt_frame_size = adapt;
		st[i].send_srej = srej;
		/* The wire hands each byte over at its line time. */
		st[i].repoll_quiet_us = IRLAP_REPOLL_QUIET_US;
#endif
		b.flow[i].key = seed * 0x1000193 + (uint64_t)i;
	}
	cfg.wire.turnaround_us = 200;
	cfg.wire.ber = ber;
	cfg.wire.seed = seed;
	b.sim = sim_new(&cfg, st);
	/* The measurement starts with the first data pulled, once the link
	 * is up. */
	if (!b.sim || sim_request(b.sim, 0, &r) != 0 || !sim_run_while_not(b.sim, up, &b, 5 * SEC)) {
		fprintf(stderr, "bench_irlap_ber: no connection (seed %llu)\n",
			(unsigned long long)seed);
		sim_free(b.sim);
		return res;
	}
	r.type = IRLAP_REQ_DATA_READY;
	sim_request(b.sim, 0, &r);
	sim_run_until(b.sim, sim_now(b.sim) + RUN_S * SEC);
	if (b.flow[0].bad || b.flow[1].bad || !b.started) {
		fprintf(stderr, "bench_irlap_ber: data %s (ber %g, seed %llu)\n",
			b.started ? "corrupted" : "never sent", ber, (unsigned long long)seed);
		sim_free(b.sim);
		return res;
	}
	{
		uint64_t t = sim_now(b.sim) - b.t_start;
		double line = (double)t * BAUD / 10.0 / 1e6;

		res.payload = b.flow[0].rx_pos + b.flow[1].rx_pos;
		res.eff = (double)res.payload / line;
	}
	for (int i = 0; i < 2; i++) {
		const struct irlap_stats *s = irlap_get_stats(sim_station(b.sim, i));
		res.iframes += s->iframes_tx;
		res.retx += s->iframes_retx;
		res.f_timeouts += s->f_timeouts;
#ifndef OLD
		res.early_polls += s->early_polls;
		res.srej_tx += s->srej_tx;
#endif
	}
	res.ok = true;
	sim_free(b.sim);
	return res;
}

static int run(double ber, const char *ber_name, bool both, bool adapt, bool srej)
{
	struct result sum = { .ok = true };
	double e[SEEDS], mean = 0, var = 0;

	for (uint64_t s = 0; s < SEEDS; s++) {
		struct result r = run_one(ber, adapt, both, srej, s + 1);

		if (!r.ok)
			return 1;
		e[s] = r.eff;
		mean += r.eff / SEEDS;
		sum.iframes += r.iframes;
		sum.retx += r.retx;
		sum.f_timeouts += r.f_timeouts;
		sum.early_polls += r.early_polls;
		sum.srej_tx += r.srej_tx;
		sum.payload += r.payload;
	}
	for (int s = 0; s < SEEDS; s++)
		var += (e[s] - mean) * (e[s] - mean) / (SEEDS - 1);
	printf("bench: irlap_efficiency_%u_ber%s%s%s%s %.4f ratio\n", BAUD, ber_name,
	       both ? "" : "_oneway", srej ? "" : "_gobackn", adapt ? "" : "_fixed2k", mean);
	printf("#   %d x %d s: sd %.4f; %llu payload bytes, %llu I-frames (mean %.0f bytes), "
	       "%llu sent again, %llu SREJ, %llu F-timeouts, %llu early polls\n",
	       SEEDS, RUN_S, sqrt(var), (unsigned long long)sum.payload,
	       (unsigned long long)sum.iframes,
	       sum.iframes ? (double)sum.payload / (double)(sum.iframes - sum.retx) : 0.0,
	       (unsigned long long)sum.retx, (unsigned long long)sum.srej_tx,
	       (unsigned long long)sum.f_timeouts, (unsigned long long)sum.early_polls);
	fflush(stdout);
	return 0;
}

int main(void)
{
	static const struct {
		double ber;
		const char *name;
	} bers[] = { { 1e-6, "1e-6" }, { 1e-5, "1e-5" }, { 1e-4, "1e-4" } };
	int rc = 0;

	for (size_t i = 0; i < sizeof(bers) / sizeof(bers[0]); i++)
		for (int both = 1; both >= 0; both--)
			for (int adapt = 1; adapt >= 0; adapt--)
				rc |= run(bers[i].ber, bers[i].name, both, adapt, true);
	/* Against a receiver like Linux's, at the two rates that matter. */
	for (size_t i = 1; i < sizeof(bers) / sizeof(bers[0]); i++)
		for (int adapt = 1; adapt >= 0; adapt--)
			rc |= run(bers[i].ber, bers[i].name, false, adapt, false);
	return rc;
}
