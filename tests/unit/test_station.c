/*
 * test_station.c: the real-time station host on pseudo-terminals, and
 * the privilege drop.
 *
 * Two stations, each on its own pty through serial_open, are joined by
 * the test, which copies bytes between the two masters: discovery from
 * one finds the other with its nickname and hints, through the real
 * serial, SIR and IrLAP code, in real time.  A pty that echoes every
 * byte checks the half-duplex drop.  The seccomp allow-list is
 * checked in forked children: an allowed call works, a forbidden one
 * kills the child with SIGSYS.
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
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "cursor.h"
#include "dongle.h"
#include "eloop.h"
#include "irlap.h"
#include "privdrop.h"
#include "serial.h"
#include "sir.h"
#include "station.h"
#include "test_support.h"

struct side {
	int master, slave;
	char path[128];
	struct port *port;
	struct station *st;
};

struct rig {
	struct eloop *loop;
	struct side s[2];
	struct eloop_timer limit;
	struct irlap_peer found[IRLAP_MAX_PEERS];
	size_t nfound;
	bool done, discovered_by;
};

static void relay(struct eloop *loop, int fd, void *ctx)
{
	struct rig *r = ctx;
	uint8_t buf[4096];
	int to = fd == r->s[0].master ? r->s[1].master : r->s[0].master;
	ssize_t n = read(fd, buf, sizeof(buf));

	(void)loop;
	if (n <= 0)
		return;
	/* The bytes take their line time (10 bits each at 9600) before the
	 * other side has them, as on a real link: the sender's echo
	 * window is computed from that.  Sleeping stalls the whole loop,
	 * which only delays both stations alike. */
	usleep((useconds_t)n * 1042u);
	assert_int_equal(write(to, buf, (size_t)n), n);
}

static void on_event_a(void *ctx, const struct irlap_event *ev)
{
	struct rig *r = ctx;

	if (ev->type != IRLAP_EV_DISCOVERY)
		return;
	if (!ev->failed && ev->npeers) {
		r->nfound = ev->npeers;
		memcpy(r->found, ev->peers, ev->npeers * sizeof(r->found[0]));
		r->done = true;
		if (r->discovered_by)
			eloop_terminate(r->loop);
	} else {
		station_request(r->s[0].st, &(struct irlap_request){
			.type = IRLAP_REQ_DISCOVER, .slots = 6 });
	}
}

static void on_event_b(void *ctx, const struct irlap_event *ev)
{
	struct rig *r = ctx;

	if (ev->type != IRLAP_EV_DISCOVERED_BY)
		return;
	/* The final XID that tells b it was found comes after a's result. */
	r->discovered_by = true;
	if (r->done)
		eloop_terminate(r->loop);
}

static void on_failed(void *ctx, int err, const char *msg)
{
	struct rig *r = ctx;

	(void)err;
	print_error("station failed: %s\n", msg);
	eloop_terminate(r->loop);
}

static void on_limit(struct eloop *loop, void *ctx)
{
	(void)ctx;
	eloop_terminate(loop);
}

static void open_side(struct rig *r, struct side *s, int idx, const char *nick,
		      uint8_t hint0, uint8_t hint1)
{
	struct serial_config sc;
	struct station_config cfg;
	char err[256];
	int rc;

	assert_int_equal(openpty(&s->master, &s->slave, s->path, NULL, NULL), 0);
	fcntl(s->master, F_SETFL, O_NONBLOCK);
	serial_config_init(&sc);
	sc.lock_dir = "";
	rc = serial_open(s->path, &sc, &s->port, err, sizeof(err));
	if (rc < 0)
		fail_msg("serial_open %s: %s", s->path, err);
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(dongle_init(&cfg.dongle, "none", err, sizeof(err)), 0);
	irlap_config_defaults(&cfg.lap, 115200, 1000);
	cfg.lap.seed = 17u + (uint64_t)idx;
	cfg.lap.info.hints[0] = hint0;
	cfg.lap.info.hints[1] = hint1;
	cfg.lap.info.nhints = hint1 ? 2 : 1;
	cfg.lap.info.nickname_len = (uint8_t)strlen(nick);
	memcpy(cfg.lap.info.nickname, nick, strlen(nick));
	if (getenv("STATION_DEBUG")) {
		static struct logger lg[2];

		lg[idx] = (struct logger){ .sink = log_sink_stdio, .ctx = stderr,
					   .max = LOG_LEVEL_DEBUG, .prefix = idx ? "b" : "a" };
		cfg.log = cfg.lap.log = &lg[idx];
	}
	cfg.app = (struct station_app){ .event = idx ? on_event_b : on_event_a,
					.failed = on_failed, .ctx = r };
	rc = station_new(r->loop, s->port, &cfg, &s->st, err, sizeof(err));
	if (rc < 0)
		fail_msg("station_new: %s", err);
	assert_int_equal(eloop_add_reader(r->loop, s->master, relay, r), 0);
}

static void close_side(struct rig *r, struct side *s)
{
	eloop_remove_reader(r->loop, s->master);
	station_free(s->st);
	port_close(s->port);
	close(s->slave);
	close(s->master);
}

static void discovery_over_ptys(void **state)
{
	struct rig r;
	uint64_t t0;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.loop = eloop_new(NULL);
	assert_non_null(r.loop);
	open_side(&r, &r.s[0], 0, "alpha", 0x04, 0);
	open_side(&r, &r.s[1], 1, "beta", 0x84, 0x04);
	eloop_timer_init(&r.limit, on_limit, &r);
	eloop_timer_arm_in(r.loop, &r.limit, test_ceiling_us(8000000));
	t0 = eloop_now_us();
	assert_int_equal(station_request(r.s[0].st, &(struct irlap_request){
		.type = IRLAP_REQ_DISCOVER, .slots = 6 }), 0);
	assert_int_equal(eloop_run(r.loop), 0);
	assert_true(r.done);
	assert_true(r.discovered_by);
	assert_int_equal(r.nfound, 1);
	assert_int_equal(r.found[0].info.nickname_len, 4);
	assert_memory_equal(r.found[0].info.nickname, "beta", 4);
	assert_int_equal(r.found[0].info.nhints, 2);
	assert_int_equal(r.found[0].info.hints[0], 0x84);
	assert_int_equal(r.found[0].info.hints[1], 0x04);
	assert_int_equal(r.found[0].daddr, irlap_get_daddr(station_irlap(r.s[1].st)));
	/* Frames really went through the ports both ways. */
	assert_true(station_counters(r.s[0].st)->tx_frames >= 1);
	assert_true(station_counters(r.s[0].st)->rx_frames >= 1);
	assert_true(station_counters(r.s[1].st)->tx_frames >= 1);
	assert_int_equal(station_sir_counters(r.s[0].st)->fcs_errors, 0);
	print_message("discovery over ptys: %llu ms\n",
		      (unsigned long long)((eloop_now_us() - t0) / 1000));
	eloop_timer_cancel(r.loop, &r.limit);
	close_side(&r, &r.s[0]);
	close_side(&r, &r.s[1]);
	eloop_free(r.loop);
}

/* Half-duplex: a dongle hears its own transmission.  The "dongle" here
 * sends every byte straight back; the station must drop all of it and
 * never take its own XID for a peer's. */
struct echo_rig {
	struct eloop *loop;
	int master;
	bool discovery_done, heard_itself;
};

static void echo_back(struct eloop *loop, int fd, void *ctx)
{
	struct echo_rig *e = ctx;
	uint8_t buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));

	(void)loop;
	(void)e;
	if (n > 0)
		assert_int_equal(write(fd, buf, (size_t)n), n);
}

static void on_echo_event(void *ctx, const struct irlap_event *ev)
{
	struct echo_rig *e = ctx;

	if (ev->type == IRLAP_EV_DISCOVERED_BY)
		e->heard_itself = true;
	if (ev->type == IRLAP_EV_DISCOVERY) {
		e->discovery_done = true;
		eloop_terminate(e->loop);
	}
}

static void own_echo_is_dropped(void **state)
{
	struct echo_rig e;
	struct serial_config sc;
	struct station_config cfg;
	struct port *port;
	struct station *st;
	struct eloop_timer limit;
	char path[128], err[256];
	int slave;
	const struct station_counters *c;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.loop = eloop_new(NULL);
	assert_non_null(e.loop);
	assert_int_equal(openpty(&e.master, &slave, path, NULL, NULL), 0);
	fcntl(e.master, F_SETFL, O_NONBLOCK);
	serial_config_init(&sc);
	sc.lock_dir = "";
	if (serial_open(path, &sc, &port, err, sizeof(err)) < 0)
		fail_msg("serial_open %s: %s", path, err);
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(dongle_init(&cfg.dongle, "none", err, sizeof(err)), 0);
	irlap_config_defaults(&cfg.lap, 115200, 1000);
	cfg.lap.seed = 5;
	cfg.app = (struct station_app){ .event = on_echo_event, .failed = on_failed, .ctx = &e };
	cfg.echo_margin_us = 2000;
	if (station_new(e.loop, port, &cfg, &st, err, sizeof(err)) < 0)
		fail_msg("station_new: %s", err);
	assert_int_equal(eloop_add_reader(e.loop, e.master, echo_back, &e), 0);
	eloop_timer_init(&limit, on_limit, &e);
	eloop_timer_arm_in(e.loop, &limit, test_ceiling_us(4000000));
	assert_int_equal(station_request(st, &(struct irlap_request){
		.type = IRLAP_REQ_DISCOVER, .slots = 6 }), 0);
	assert_int_equal(eloop_run(e.loop), 0);
	assert_true(e.discovery_done);
	/* The final XID's echo comes back after the result: wait for it. */
	eloop_timer_arm_in(e.loop, &limit, test_ceiling_us(150000));
	assert_int_equal(eloop_run(e.loop), 0);
	assert_false(e.heard_itself);
	c = station_counters(st);
	/* 6 slots + the final XID, every byte of them echoed and dropped. */
	assert_int_equal(c->tx_frames, 7);
	assert_true(c->tx_bytes > 7 * 12);
	assert_int_equal(c->echo_dropped, c->tx_bytes);
	assert_int_equal(c->rx_frames, 0);
	assert_int_equal(station_sir_counters(st)->bytes, 0);
	eloop_timer_cancel(e.loop, &limit);
	eloop_remove_reader(e.loop, e.master);
	station_free(st);
	port_close(port);
	close(slave);
	close(e.master);
	eloop_free(e.loop);
}

/* The minimum turnaround announced: the dongle's, or the one asked for,
 * rounded up to an IrLAP value; the echo margin never exceeds it. */
static void config_turnaround(void **state)
{
	static const struct {
		const char *dongle;
		uint32_t baud;
		long ask_us;
		uint8_t mtt_bits;
		uint32_t margin_us;
		uint16_t baud_bits;
	} cases[] = {
		{ "none", 115200, STATION_MIN_TAT_DONGLE, 0x03, 5000, 0x3e },
		{ "tekram", 115200, STATION_MIN_TAT_DONGLE, 0x01, 10000, 0x3e },
		{ "actisys", 115200, STATION_MIN_TAT_DONGLE, 0x7f, 10, 0x36 },
		{ "old_belkin", 9600, STATION_MIN_TAT_DONGLE, 0x01, 10000, 0x02 },
		{ "none", 38400, STATION_MIN_TAT_DONGLE, 0x03, 5000, 0x0e },
		{ "none", 115200, 10, 0x7f, 10, 0x3e },
		{ "none", 115200, 0, 0xff, 0, 0x3e },
		{ "none", 115200, 700, 0x07, 1000, 0x3e },
		{ "tekram", 115200, 10000, 0x01, 10000, 0x3e },
	};
	struct station_config cfg;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (station_config_init(&cfg, cases[i].dongle, cases[i].baud, cases[i].ask_us, err,
					sizeof(err)) != 0)
			fail_msg("case %zu: %s", i, err);
		if (cfg.lap.qos.min_tat != cases[i].mtt_bits || cfg.echo_margin_us != cases[i].margin_us ||
		    cfg.lap.qos.baud != cases[i].baud_bits || cfg.read_coalesce_us != 8000)
			fail_msg("case %zu (%s, %ld us): min TAT bits 0x%02x margin %u baud 0x%03x", i,
				 cases[i].dongle, cases[i].ask_us, cfg.lap.qos.min_tat,
				 cfg.echo_margin_us, cfg.lap.qos.baud);
	}
	assert_int_equal(station_config_init(&cfg, "none", 115200, 10001, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "10001"));
	assert_int_equal(station_config_init(&cfg, "warp9", 115200, -1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "warp9"));
	assert_int_equal(station_config_init(&cfg, "old_belkin", 115200, -1, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "115200"));
	/* A turnaround learnt once the port is open (irwire's mark) replaces
	 * the dongle's, rounded up the same way, the echo margin with it;
	 * the rates stay the dongle's. */
	assert_int_equal(station_config_init(&cfg, "none", 115200, -1, err, sizeof(err)), 0);
	assert_int_equal(station_config_min_tat_us(&cfg), 5000);
	assert_int_equal(station_config_set_min_tat(&cfg, 10), 0);
	assert_int_equal(cfg.lap.qos.min_tat, 0x7f);
	assert_int_equal(cfg.echo_margin_us, 10);
	assert_int_equal(station_config_min_tat_us(&cfg), 10);
	assert_int_equal(cfg.lap.qos.baud, 0x3e);
	assert_int_equal(station_config_set_min_tat(&cfg, 700), 0);
	assert_int_equal(cfg.lap.qos.min_tat, 0x07);
	assert_int_equal(station_config_min_tat_us(&cfg), 1000);
	assert_int_equal(station_config_set_min_tat(&cfg, 10001), -EINVAL);
	assert_int_equal(station_config_min_tat_us(&cfg), 1000);
}

/* The read pause's rule, value by value: line times are 10 bits a byte,
 * rounded up (115200: 64 bytes take 5556 us, 92 take 7987 us, 93 take
 * 8073 us; 9600: 3 bytes take 3125 us). */
static void read_pause_rule(void **state)
{
	static const struct {
		uint32_t baud;
		size_t len;
		bool ends_turn;
		size_t end;
		uint64_t deadline;
		uint32_t max, want;
	} cases[] = {
		{ 115200, 63, false, 0, UINT64_MAX, 4000, 0 },     /* short */
		{ 115200, 64, false, 0, UINT64_MAX, 4000, 4000 },
		{ 115200, 92, false, 0, UINT64_MAX, 8000, 0 },     /* 7987 us < 8000 */
		{ 115200, 93, false, 0, UINT64_MAX, 8000, 8000 },
		{ 115200, 200, false, 0, UINT64_MAX, 0, 0 },       /* coalescing off */
		{ 115200, 64, true, 0, UINT64_MAX, 8000, 2000 },   /* ends the turn: a quarter */
		{ 115200, 63, true, 0, UINT64_MAX, 8000, 0 },
		{ 115200, 200, true, 0, UINT64_MAX, 1600, 0 },     /* 400 us: not worth it */
		{ 115200, 200, false, 223, UINT64_MAX, 8000, 1997 }, /* 23 bytes left */
		{ 115200, 200, false, 250, UINT64_MAX, 8000, 4341 }, /* 50 bytes left */
		{ 115200, 200, true, 250, UINT64_MAX, 8000, 2000 },
		{ 115200, 200, false, 205, UINT64_MAX, 8000, 0 },  /* 435 us: not worth it */
		{ 115200, 200, false, 200, UINT64_MAX, 8000, 0 },  /* at its end */
		{ 115200, 200, false, 150, UINT64_MAX, 8000, 0 },  /* past it */
		{ 115200, 200, false, 0, 1003000, 8000, 2000 },    /* 1 ms before the deadline */
		{ 115200, 200, false, 0, 1001400, 8000, 0 },       /* 400 us: not worth it */
		{ 115200, 200, false, 0, 999000, 8000, 0 },        /* deadline passed */
		{ 115200, 200, false, 223, 1002500, 8000, 1500 },  /* the smaller cut wins */
		{ 9600, 63, false, 0, UINT64_MAX, 8000, 0 },       /* 65.6 ms, but short */
		{ 9600, 64, false, 0, UINT64_MAX, 8000, 8000 },
		{ 9600, 64, false, 67, UINT64_MAX, 8000, 3125 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t got = station_read_pause_us(cases[i].baud, cases[i].len, cases[i].ends_turn,
						     cases[i].end, 1000000, cases[i].deadline,
						     cases[i].max);
		if (got != cases[i].want)
			fail_msg("case %zu: pause %u us, want %u", i, got, cases[i].want);
	}
}

static void fail_on_port_error(void *ctx, int err, const char *msg)
{
	(void)ctx;
	(void)err;
	fail_msg("station failed: %s", msg);
}

/* Writes bytes to the master side of a station's pty. */
static void put(int master, const uint8_t *b, size_t n)
{
	assert_int_equal(write(master, b, n), (ssize_t)n);
}

/* Runs the loop until *count reaches want (2 s at most). */
static void run_until(struct eloop *loop, const uint64_t *count, uint64_t want)
{
	uint64_t until = eloop_now_us() + 2000000;

	while (*count < want && eloop_now_us() < until)
		assert_true(eloop_run_once(loop, 10000) >= 0);
	if (*count < want)
		fail_msg("counter at %llu, want %llu", (unsigned long long)*count,
			 (unsigned long long)want);
}

/* Read coalescing on a real pty: a long frame whose first part came
 * makes the station stop reading for a while; the rest, written then,
 * completes the frame intact; a short frame never pauses.  The frames
 * (UI, to a connection address nobody has) are ignored by IrLAP: the
 * station's counters and the decoder's say what was received. */
static void long_frame_read_in_pauses(void **state)
{
	struct serial_config sc;
	struct station_config cfg;
	struct port *port;
	struct station *st;
	struct eloop *loop = eloop_new(NULL);
	uint8_t frame[600], wire[1400];
	char path[128], err[256];
	int master, slave, n, m;
	struct wcursor w;
	const struct station_counters *c;

	(void)state;
	assert_non_null(loop);
	assert_int_equal(openpty(&master, &slave, path, NULL, NULL), 0);
	serial_config_init(&sc);
	sc.lock_dir = "";
	if (serial_open(path, &sc, &port, err, sizeof(err)) < 0)
		fail_msg("serial_open %s: %s", path, err);
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(dongle_init(&cfg.dongle, "none", err, sizeof(err)), 0);
	irlap_config_defaults(&cfg.lap, 115200, 1000);
	cfg.lap.seed = 9;
	cfg.app = (struct station_app){ .failed = fail_on_port_error };
	cfg.read_coalesce_us = STATION_READ_COALESCE_US;
	if (station_new(loop, port, &cfg, &st, err, sizeof(err)) < 0)
		fail_msg("station_new: %s", err);
	c = station_counters(st);

	frame[0] = 0x54 << 1 | 1;
	frame[1] = 0x03;	/* UI, no P: more frames would follow */
	for (size_t i = 2; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 7u);	/* includes C0, C1, 7D: escaped */
	wcursor_init(&w, wire, sizeof(wire));
	n = sir_encode(&w, frame, sizeof(frame), 0);
	assert_true(n > (int)sizeof(frame) + 4);

	/* 300 bytes: inside the frame and past 64 bytes and 8 ms of line
	 * time at 9600 (the station's contention rate): a pause (8 ms). */
	put(master, wire, 300);
	run_until(loop, &c->rx_pauses, 1);
	assert_int_equal(c->rx_frames, 0);
	put(master, wire + 300, (size_t)n - 300);
	run_until(loop, &c->rx_frames, 1);
	assert_int_equal(c->rx_bytes, (uint64_t)n);
	assert_int_equal(station_sir_counters(st)->bytes, (uint64_t)n);
	assert_int_equal(station_sir_counters(st)->fcs_errors, 0);
	assert_int_equal(station_sir_counters(st)->aborts, 0);
	assert_true(c->rx_pauses >= 1);

	/* A 40-byte frame in two halves, the loop run in between: no pause. */
	uint64_t pauses = c->rx_pauses;
	wcursor_init(&w, wire, sizeof(wire));
	m = sir_encode(&w, frame, 40, 0);
	assert_true(m > 40);
	put(master, wire, (size_t)m / 2);
	run_until(loop, &c->rx_bytes, (uint64_t)n + (uint64_t)m / 2);
	assert_int_equal(eloop_run_once(loop, 20000) >= 0, 1);
	put(master, wire + m / 2, (size_t)m - (size_t)m / 2);
	run_until(loop, &c->rx_frames, 2);
	assert_int_equal(c->rx_pauses, pauses);
	assert_int_equal(station_sir_counters(st)->fcs_errors, 0);

	station_free(st);
	port_close(port);
	close(slave);
	close(master);
	eloop_free(loop);
}

static void not_a_serial_port(void **state)
{
	struct eloop *loop = eloop_new(NULL);
	struct port fake = { .name = "fake0" };
	struct station_config cfg;
	struct station *st = (struct station *)&fake;
	char err[128];

	(void)state;
	assert_non_null(loop);
	memset(&cfg, 0, sizeof(cfg));
	irlap_config_defaults(&cfg.lap, 9600, 1000);
	/* serial_fd() is -1 for anything serial_open did not make. */
	assert_int_equal(station_new(loop, &fake, &cfg, &st, err, sizeof(err)), -EINVAL);
	assert_null(st);
	assert_non_null(strstr(err, "fake0"));
	eloop_free(loop);
}

/* Runs fn in a child; returns its wait status. */
static int in_child(void (*fn)(void))
{
	pid_t pid = fork();
	int status = 0;

	assert_true(pid >= 0);
	if (pid == 0) {
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void child_allowed(void)
{
	char err[200];
	int p[2];

	if (pipe(p) < 0 || privdrop_seccomp(NULL, err, sizeof(err)) < 0)
		_exit(3);
	if (write(p[1], "x", 1) != 1)
		_exit(4);
	_exit(0);
}

static void child_forbidden(void)
{
	char err[200];

	if (privdrop_seccomp(NULL, err, sizeof(err)) < 0)
		_exit(3);
	/* A running host never opens sockets. */
	(void)socket(AF_INET, SOCK_STREAM, 0);
	_exit(5);
}

static void child_open_write(void)
{
	char err[200];
	int fd;

	if (privdrop_seccomp(NULL, err, sizeof(err)) < 0)
		_exit(3);
	/* Reading a file is allowed (the lock file is read back)... */
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0)
		_exit(4);
	close(fd);
	/* ...opening one for writing is not. */
	(void)open("/dev/null", O_WRONLY);
	_exit(5);
}

static void seccomp_allows_and_kills(void **state)
{
	int st;

	(void)state;
	st = in_child(child_allowed);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	st = in_child(child_forbidden);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
	st = in_child(child_open_write);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}

static void child_drop(void)
{
	char err[200];
	uid_t r, e, s;

	if (privdrop_user("nobody", NULL, err, sizeof(err)) < 0)
		_exit(3);
	if (getresuid(&r, &e, &s) < 0 || r == 0 || e == 0 || s == 0)
		_exit(4);
	if (setuid(0) == 0 || getgroups(0, NULL) != 0)
		_exit(5);
	_exit(0);
}

static void privdrop_to_nobody(void **state)
{
	char err[200];
	int st;

	(void)state;
	if (geteuid() != 0) {
		/* Not root: nothing to drop, and it says so without failing. */
		assert_int_equal(privdrop_user("nobody", NULL, err, sizeof(err)), 0);
		skip();
	}
	st = in_child(child_drop);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* A name that does not exist is named in the message. */
	assert_int_equal(privdrop_user("no-such-user-xyz", NULL, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no-such-user-xyz"));
	assert_int_equal(privdrop_user("root", NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(geteuid(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(discovery_over_ptys),
		cmocka_unit_test(own_echo_is_dropped),
		cmocka_unit_test(config_turnaround),
		cmocka_unit_test(read_pause_rule),
		cmocka_unit_test(long_frame_read_in_pauses),
		cmocka_unit_test(not_a_serial_port),
		cmocka_unit_test(seccomp_allows_and_kills),
		cmocka_unit_test(privdrop_to_nobody),
	};

	return cmocka_run_group_tests_name("station", tests, NULL, NULL);
}
