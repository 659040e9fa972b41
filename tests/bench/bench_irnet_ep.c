/*
 * bench_irnet_ep.c: PPP over IrNET endpoint to endpoint, in real time on
 * the stack_pair rig (two stacks in one process, their ptys joined by a
 * relay that holds each byte for its line time at 115200 bit/s: 87 us).
 * The calling endpoint's "pppd" writes 1500-byte frames of random bytes
 * in async HDLC (ACCM 0, as after LCP) as fast as the pty takes them;
 * the listening endpoint's "pppd" decodes them; then the same the other
 * way (_back: listener to caller, on a new pair).  The figure is the PPP
 * frame bytes delivered per second, from the first frame's arrival to
 * the last's, against the raw line (115200 bit/s of 10-bit characters:
 * 11520 bytes/s); the rig's relay itself caps it at 1e6/87 = 11494 B/s.
 * In process: not yet between two processes on a real line.  The relay
 * sleeps for each chunk it moves (up to 4096 bytes, 0.36 s) with the
 * whole loop, so the arrival times are known to that much: 80 frames
 * (about 10 s) keep the error within a few per cent; run it a few times.
 *
 * Prints `bench: NAME VALUE UNIT`; never fails on a timing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../unit/fake_pppd.h"
#include "../unit/stack_pair.h"
#include "bench_util.h"
#include "irnet_ep.h"

#define FRAMES 80
#define FRAME_LEN 1500
#define LINE_BYTES_PER_S 11520.0

struct bench {
	struct stack_pair pair;
	struct irnet_ep *ep[2];
	struct fake_pppd pp[2];
	struct eloop_timer tick;
	uint64_t start_us, first_us;
	size_t first_bytes;
	int from, to;                 /* the sending and receiving side */
	const struct fake_frame *f;   /* what from's pppd sends once up */
};

static void on_event_a(void *ctx, const struct irlap_event *ev)
{
	struct bench *b = ctx;
	if (b->ep[0])
		irnet_ep_lap_event(b->ep[0], ev);
}

static void on_tick(struct eloop *loop, void *ctx)
{
	struct bench *b = ctx;
	struct fake_pppd *rx = &b->pp[b->to];

	/* a listener drops what pppd sends before a call: write once up */
	if (b->f && irnet_ep_state(b->ep[b->from]) == IRNET_EP_UP) {
		fake_pppd_queue(&b->pp[b->from], b->f, FRAMES);
		fake_pppd_write(&b->pp[b->from]);
		b->f = NULL;
	}
	if (!b->first_us && rx->got) {
		b->first_us = rx->last_frame_us;
		b->first_bytes = (size_t)rx->bytes_got;
	}
	if (rx->got >= FRAMES || eloop_now_us() - b->start_us > 60000000) {
		eloop_terminate(loop);
		return;
	}
	eloop_timer_arm_in(loop, &b->tick, 2000);
}

static struct irnet_ep *open_ep(const char *dir, int side, enum irdad_role role)
{
	struct irdad_endpoint ep = { .service = IRDAD_SVC_IRNET, .role = role };
	struct irnet_ep *e;
	char err[256];

	snprintf(ep.name, sizeof(ep.name), "%c", 'a' + side);
	snprintf(ep.pty_link, sizeof(ep.pty_link), "%s/%c", dir, 'a' + side);
	if (irnet_ep_open_pty(&ep, NULL, &e, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	return e;
}

/* from 0: the caller's pppd sends to the listener's; from 1: back. */
static void run(int from)
{
	struct bench b;
	struct fake_frame f[FRAMES];
	char dir[] = "/tmp/bench_irnet_ep.XXXXXX", err[256];
	uint32_t seed = 1500;
	const char *name = from == 0 ? "irnet_ep_ppp_payload" : "irnet_ep_ppp_payload_back";

	memset(&b, 0, sizeof(b));
	b.from = from;
	b.to = 1 - from;
	assert_non_null(mkdtemp(dir));
	stack_pair_open(&b.pair, on_event_a, &b);
	b.ep[1] = open_ep(dir, 1, IRDAD_ROLE_LISTEN);
	b.ep[0] = open_ep(dir, 0, IRDAD_ROLE_CALL);
	for (int i = 0; i < FRAMES; i++) {
		f[i] = (struct fake_frame){ .data = malloc(FRAME_LEN), .len = FRAME_LEN };
		assert_non_null(f[i].data);
		bench_random_bytes(f[i].data, FRAME_LEN, &seed);
	}
	fake_pppd_setup(&b.pp[0], b.pair.loop, 0);
	fake_pppd_setup(&b.pp[1], b.pair.loop, 0);
	b.pp[b.to].expect = f;
	b.pp[b.to].nexpect = FRAMES;
	b.f = f;
	fake_pppd_start(&b.pp[1], fake_pppd_open_slave(irnet_ep_pty_path(b.ep[1])), true);
	fake_pppd_start(&b.pp[0], fake_pppd_open_slave(irnet_ep_pty_path(b.ep[0])), true);
	for (int i = 1; i >= 0; i--)
		if (irnet_ep_start(b.ep[i], b.pair.loop, b.pair.e[i].stk, err, sizeof(err)) < 0)
			fail_msg("%s", err);
	b.start_us = eloop_now_us();
	eloop_timer_init(&b.tick, on_tick, &b);
	eloop_timer_arm_in(b.pair.loop, &b.tick, 2000);
	assert_int_equal(eloop_run(b.pair.loop), 0);
	eloop_timer_cancel(b.pair.loop, &b.tick);

	struct fake_pppd *rx = &b.pp[b.to];
	assert_int_equal(rx->got, FRAMES);
	assert_false(rx->mismatch);
	double s = (double)(rx->last_frame_us - b.first_us) / 1e6;
	double rate = (double)(rx->bytes_got - b.first_bytes) / s;
	printf("bench: %s_rate %.0f B/s\n", name, rate);
	printf("bench: %s_ratio %.3f of the raw line\n", name, rate / LINE_BYTES_PER_S);

	for (int i = 0; i < 2; i++) {
		irnet_ep_free(b.ep[i]);
		fake_pppd_free(&b.pp[i]);
	}
	stack_pair_close(&b.pair);
	for (int i = 0; i < FRAMES; i++)
		free(f[i].data);
	rmdir(dir);
}

static void endpoint_to_endpoint(void **state)
{
	(void)state;
	printf("bench: irnet_ep_frames %d x %d bytes\n", FRAMES, FRAME_LEN);
	printf("bench: irnet_ep_rig_relay_cap %.3f of the raw line\n",
	       1e6 / 87.0 / LINE_BYTES_PER_S);
	run(0);
	run(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(endpoint_to_endpoint) };
	return cmocka_run_group_tests_name("bench_irnet_ep", tests, NULL, NULL);
}
