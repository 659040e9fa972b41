/*
 * stack_pair.c: two stacks on relayed pseudo-terminals in one loop
 * (stack_pair.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include "dongle.h"
#include "stack_pair.h"

static void relay(struct eloop *loop, int fd, void *ctx)
{
	struct stack_pair *p = ctx;
	int from = fd == p->e[0].master ? 0 : 1;
	struct termios tio;
	uint8_t buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));
	speed_t sp;

	(void)loop;
	if (n <= 0 || p->cut)
		return;
	/* Each byte takes its line time at the sender's UART rate. */
	assert_int_equal(tcgetattr(p->e[from].slave, &tio), 0);
	sp = cfgetospeed(&tio);
	usleep((useconds_t)n * (sp == B115200 ? 87u : 1042u));
	assert_int_equal(write(p->e[1 - from].master, buf, (size_t)n), n);
}

static void on_failed(void *ctx, int err, const char *msg)
{
	(void)ctx;
	(void)err;
	fail_msg("stack failed: %s", msg);
}

static void open_end(struct stack_pair *p, const struct stack_pair_opts *o, int idx,
		     const char *nick,
		     void (*event)(void *ctx, const struct irlap_event *ev), void *ctx)
{
	struct stack_pair_end *e = &p->e[idx];
	struct serial_config sc;
	struct stack_config cfg;
	char err[256];

	assert_int_equal(openpty(&e->master, &e->slave, e->path, NULL, NULL), 0);
	fcntl(e->master, F_SETFL, O_NONBLOCK);
	serial_config_init(&sc);
	sc.lock_dir = "";
	if (serial_open(e->path, &sc, &e->port, err, sizeof(err)) < 0)
		fail_msg("serial_open %s: %s", e->path, err);
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(dongle_init(&cfg.station.dongle, "none", err, sizeof(err)), 0);
	irlap_config_defaults(&cfg.station.lap, 115200, 1000);
	cfg.station.lap.seed = 29u + (uint64_t)idx;
	if (o && o->link_disc)
		cfg.station.lap.qos.link_disc = o->link_disc;
	cfg.station.lap.info.nickname_len = (uint8_t)strlen(nick);
	memcpy(cfg.station.lap.info.nickname, nick, strlen(nick));
	irlmp_config_defaults(&cfg.lmp);
	if (o && o->idle_timeout_us)
		cfg.lmp.idle_timeout_us = o->idle_timeout_us;
	cfg.event = event;
	cfg.failed = on_failed;
	cfg.ctx = ctx;
	if (stack_new(p->loop, e->port, &cfg, &e->stk, err, sizeof(err)) < 0)
		fail_msg("stack_new: %s", err);
	assert_int_equal(eloop_add_reader(p->loop, e->master, relay, p), 0);
}

void stack_pair_open_opts(struct stack_pair *p, const struct stack_pair_opts *o,
			  void (*event_a)(void *ctx, const struct irlap_event *ev), void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->loop = eloop_new(NULL);
	assert_non_null(p->loop);
	open_end(p, o, 0, "alpha", event_a, ctx);
	open_end(p, o, 1, "beta", NULL, NULL);
}

void stack_pair_open(struct stack_pair *p, void (*event_a)(void *ctx, const struct irlap_event *ev),
		     void *ctx)
{
	stack_pair_open_opts(p, NULL, event_a, ctx);
}

void stack_pair_discover(struct stack_pair *p)
{
	assert_int_equal(stack_lap_request(p->e[0].stk, &(struct irlap_request){
		.type = IRLAP_REQ_DISCOVER, .slots = 6 }), 0);
}

void stack_pair_close(struct stack_pair *p)
{
	for (int i = 0; i < 2; i++) {
		struct stack_pair_end *e = &p->e[i];

		eloop_remove_reader(p->loop, e->master);
		stack_free(e->stk);
		port_close(e->port);
		close(e->slave);
		close(e->master);
	}
	eloop_free(p->loop);
}
