/*
 * bench_ircomm_pty.c (make bench): IrCOMM pty to pty through two irdad
 * endpoints (ircomm_pty.h) on two real-time stacks in one process
 * (tests/unit/stack_pair.h: a relay that gives each byte its 115200
 * bit/s line time, 87 us).  A program writes into a's slave, another
 * reads b's; the time runs from the first write, once both endpoints
 * are connected, to the last byte read (checked).
 *
 * Prints, for 4096-byte writes and for 10-byte writes:
 *   bench: ircomm_pty_<case> RATIO ratio   (payload bytes/s / 11520, the
 *                                           raw 115200 line, 10 bits a byte)
 *   bench: ircomm_pty_<case>_rate B bytes/s
 * In-process, not irdad over irwire: irdad does not run endpoints yet
 * (docs/irdad.md, "IrCOMM endpoints", has the figures).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench_util.h"
#include "ircomm_pty.h"
#include "stack_pair.h"

#define RAW_LINE_BYTES_PER_S 11520.0

struct bench {
	struct stack_pair pair;
	struct ircomm_pty *ep[2];
	int fd[2];
	char dir[64], link[2][96];
	uint8_t *data;
	size_t goal, wsize, sent, got;
	bool started, bad, timed_out;
	double t0, t1;
	struct eloop_timer tick, limit;
};

static void on_event_a(void *ctx, const struct irlap_event *ev)
{
	struct bench *b = ctx;
	ircomm_pty_lap_event(b->ep[0], ev);
}

static void writer(struct eloop *loop, int fd, void *ctx)
{
	struct bench *b = ctx;
	(void)loop;

	while (b->sent < b->goal) {
		size_t n = b->goal - b->sent < b->wsize ? b->goal - b->sent : b->wsize;
		ssize_t w = write(fd, b->data + b->sent, n);
		if (w < 0 && errno == EAGAIN)
			return;
		if (w <= 0) {
			b->bad = true;
			break;
		}
		b->sent += (size_t)w;
	}
	eloop_remove_writer(b->pair.loop, fd);
}

static void reader(struct eloop *loop, int fd, void *ctx)
{
	struct bench *b = ctx;
	uint8_t buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (b->got + (size_t)n > b->goal || memcmp(buf, b->data + b->got, (size_t)n) != 0)
			b->bad = true;
		b->got += (size_t)n;
	}
	if (b->got >= b->goal) {
		b->t1 = bench_seconds();
		eloop_terminate(loop);
	}
}

static void on_tick(struct eloop *loop, void *ctx)
{
	struct bench *b = ctx;
	struct ircomm_pty_stats sa, sb;

	ircomm_pty_get_stats(b->ep[0], &sa);
	ircomm_pty_get_stats(b->ep[1], &sb);
	if (sa.state == IRCOMM_PTY_CONNECTED && sb.state == IRCOMM_PTY_CONNECTED) {
		b->started = true;
		b->t0 = bench_seconds();
		eloop_add_reader(loop, b->fd[1], reader, b);
		eloop_add_writer(loop, b->fd[0], writer, b);
		return;
	}
	eloop_timer_arm_in(loop, &b->tick, 5000);
}

static void on_limit(struct eloop *loop, void *ctx)
{
	struct bench *b = ctx;
	b->timed_out = true;
	eloop_terminate(loop);
}

/* Payload bytes per second, or a negative value if the run failed. */
static double run(size_t goal, size_t wsize)
{
	struct bench b;
	struct irdad_endpoint ep;
	char err[256];
	uint32_t seed = 7;
	double rate = -1;

	memset(&b, 0, sizeof(b));
	b.goal = goal;
	b.wsize = wsize;
	b.data = malloc(goal);
	if (!b.data)
		return -1;
	bench_random_bytes(b.data, goal, &seed);
	snprintf(b.dir, sizeof(b.dir), "/tmp/bench_ircomm_pty.XXXXXX");
	if (!mkdtemp(b.dir)) {
		free(b.data);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		memset(&ep, 0, sizeof(ep));
		ep.service = IRDAD_SVC_IRCOMM;
		snprintf(ep.name, sizeof(ep.name), "%c", 'a' + i);
		ep.role = i ? IRDAD_ROLE_LISTEN : IRDAD_ROLE_CALL;
		snprintf(b.link[i], sizeof(b.link[i]), "%s/%c", b.dir, 'a' + i);
		snprintf(ep.pty_link, sizeof(ep.pty_link), "%s", b.link[i]);
		if (ircomm_pty_open(&ep, NULL, &b.ep[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_ircomm_pty: %s\n", err);
			exit(1);
		}
	}
	stack_pair_open(&b.pair, on_event_a, &b);
	ircomm_pty_start(b.ep[1], b.pair.loop, b.pair.e[1].stk);
	ircomm_pty_start(b.ep[0], b.pair.loop, b.pair.e[0].stk);
	for (int i = 0; i < 2; i++) {
		b.fd[i] = open(b.link[i], O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (b.fd[i] < 0) {
			perror(b.link[i]);
			exit(1);
		}
	}
	eloop_timer_init(&b.tick, on_tick, &b);
	eloop_timer_arm_in(b.pair.loop, &b.tick, 5000);
	eloop_timer_init(&b.limit, on_limit, &b);
	eloop_timer_arm_in(b.pair.loop, &b.limit, 120000000);
	eloop_run(b.pair.loop);
	if (!b.timed_out && !b.bad && b.got == goal)
		rate = (double)goal / (b.t1 - b.t0);
	eloop_timer_cancel(b.pair.loop, &b.tick);
	eloop_timer_cancel(b.pair.loop, &b.limit);
	for (int i = 0; i < 2; i++) {
		eloop_remove_reader(b.pair.loop, b.fd[i]);
		eloop_remove_writer(b.pair.loop, b.fd[i]);
		close(b.fd[i]);
		ircomm_pty_free(b.ep[i]);
	}
	stack_pair_close(&b.pair);
	rmdir(b.dir);
	free(b.data);
	return rate;
}

int main(void)
{
	static const struct {
		const char *name;
		size_t goal, wsize;
	} cases[] = {
		{ "large", 96 * 1024, 4096 },
		{ "10byte", 48 * 1024, 10 },
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double r = run(cases[i].goal, cases[i].wsize);
		if (r < 0) {
			fprintf(stderr, "bench_ircomm_pty: %s: the transfer failed\n", cases[i].name);
			rc = 1;
			continue;
		}
		printf("bench: ircomm_pty_%s %.3f ratio\n", cases[i].name, r / RAW_LINE_BYTES_PER_S);
		printf("bench: ircomm_pty_%s_rate %.0f bytes/s\n", cases[i].name, r);
	}
	return rc;
}
