/*
 * bench_irlap.c: IrLAP payload efficiency over the emulated wire, in
 * virtual time (so the figures are exact, not timings): a bulk transfer
 * one way with default negotiation at 9600, 38400 and 115200 baud.
 *
 *   efficiency = payload bytes delivered / line bytes the elapsed
 *                emulated time allowed (baud / 10 per second)
 *
 * Prints `bench: irlap_efficiency_<baud> VALUE ratio`, and where the
 * rest of the line time went as `# ...` lines.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irlap.h"
#include "sim.h"

struct bench {
	struct sim *sim;
	uint8_t *data;
	size_t len, pos, got;
	bool up[2], bad;
	uint64_t t_first;
	uint64_t sent_before[2]; /* line bytes of discovery and set-up */
};

static void on_event(void *ctx, int st, const struct irlap_event *ev)
{
	struct bench *b = ctx;

	if (ev->type == IRLAP_EV_CONNECT_IND) {
		struct irlap_request r = { .type = IRLAP_REQ_ACCEPT };
		sim_request(b->sim, st, &r);
	} else if (ev->type == IRLAP_EV_CONNECT_CONF) {
		b->up[st] = true;
	} else if (ev->type == IRLAP_EV_DATA && st == 1) {
		if (b->got + ev->len > b->len || memcmp(b->data + b->got, ev->data, ev->len))
			b->bad = true;
		else
			b->got += ev->len;
	}
}

static size_t on_pull(void *ctx, int st, uint8_t *buf, size_t max)
{
	struct bench *b = ctx;
	size_t n = b->len - b->pos;

	if (st != 0)
		return 0;
	if (b->pos == 0 && n) {
		b->t_first = sim_now(b->sim);
		for (int i = 0; i < 2; i++)
			b->sent_before[i] = wire_counters(sim_wire(b->sim), i)->sent;
	}
	if (n > max)
		n = max;
	memcpy(buf, b->data + b->pos, n);
	b->pos += n;
	return n;
}

static bool up(void *ctx)
{
	struct bench *b = ctx;
	return b->up[0] && b->up[1];
}

static bool done(void *ctx)
{
	struct bench *b = ctx;
	return b->got == b->len || b->bad;
}

static int run(uint32_t baud, size_t len)
{
	struct bench b = { .len = len };
	struct irlap_config st[2];
	struct sim_config cfg = { .app = { .event = on_event, .pull = on_pull, .ctx = &b } };
	struct irlap_request r = { .type = IRLAP_REQ_CONNECT, .daddr = 0x0b0b0002 };
	uint64_t x = 88172645463325252ull, t;
	size_t escapes = 0;

	b.data = malloc(len);
	if (!b.data)
		return 1;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b.data[i] = (uint8_t)x;
		escapes += b.data[i] == 0xc0 || b.data[i] == 0xc1 || b.data[i] == 0x7d;
	}
	for (int i = 0; i < 2; i++) {
		/* Default negotiation: both offer up to this rate and need 1 ms
		 * of turnaround (what the wire's 200 us blind time allows). */
		irlap_config_defaults(&st[i], baud, 1000);
		/* The wire hands each byte over at its line time. */
		st[i].repoll_quiet_us = IRLAP_REPOLL_QUIET_US;
		st[i].daddr = 0x0b0b0001 + (uint32_t)i;
		st[i].seed = (uint64_t)i + 11;
	}
	cfg.wire.turnaround_us = 200;
	cfg.wire.seed = 1;
	b.sim = sim_new(&cfg, st);
	if (!b.sim || sim_request(b.sim, 0, &r) != 0 ||
	    !sim_run_while_not(b.sim, up, &b, 5000000)) {
		fprintf(stderr, "bench_irlap: no connection at %u baud\n", baud);
		return 1;
	}
	r.type = IRLAP_REQ_DATA_READY;
	sim_request(b.sim, 0, &r);
	if (!sim_run_while_not(b.sim, done, &b, sim_now(b.sim) + (uint64_t)len * 10 * 1000000 / baud * 3) ||
	    b.bad) {
		fprintf(stderr, "bench_irlap: transfer at %u baud did not complete intact\n", baud);
		return 1;
	}
	t = sim_now(b.sim) - b.t_first;
	{
		double line = (double)t * baud / 10.0 / 1e6;
		const struct irlap_stats *s0 = irlap_get_stats(sim_station(b.sim, 0));
		const struct irlap_stats *s1 = irlap_get_stats(sim_station(b.sim, 1));
		const struct qos_result *q = irlap_get_qos(sim_station(b.sim, 0));
		double sent0 = (double)(wire_counters(sim_wire(b.sim), 0)->sent - b.sent_before[0]);
		double sent1 = (double)(wire_counters(sim_wire(b.sim), 1)->sent - b.sent_before[1]);
		double frames = (double)s0->iframes_tx;
		/* The line's idle share; a hair below zero is rounding (the
		 * window starts when the first frame is handed over). */
		double idle = (line - sent0 - sent1) / line;

		printf("bench: irlap_efficiency_%u %.4f ratio\n", baud, (double)len / line);
		printf("# %u baud: %zu bytes in %.3f s virtual; data size %u, window %u, turn %u bytes\n",
		       baud, len, (double)t / 1e6, q->tx_data_size, q->tx_window, q->line_capacity);
		printf("#   line time share: payload %.4f, SIR escapes %.4f, frame headers/FCS/BOF/EOF %.4f,\n"
		       "#   XBOF padding+other sender bytes %.4f, receiver's RR frames %.4f, idle turnaround %.4f\n",
		       (double)len / line, (double)escapes / line, frames * 6 / line,
		       (sent0 - (double)len - (double)escapes - frames * 6) / line, sent1 / line,
		       idle > 0 ? idle : 0.0);
		printf("#   %llu I-frames (%llu sent again), %llu turns, %llu RR from the receiver\n",
		       (unsigned long long)s0->iframes_tx, (unsigned long long)s0->iframes_retx,
		       (unsigned long long)s0->turns, (unsigned long long)s1->turns);
	}
	sim_free(b.sim);
	free(b.data);
	return 0;
}

int main(void)
{
	static const struct {
		uint32_t baud;
		size_t len;
	} runs[] = {
		{ 9600, 256 * 1024 },
		{ 38400, 512 * 1024 },
		{ 115200, 1024 * 1024 },
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		rc |= run(runs[i].baud, runs[i].len);
	return rc;
}
