/*
 * test_ircomm_pty.c: two irdad IrCOMM endpoints (ircomm_pty.h) on two
 * real-time stacks in one process (stack_pair.h): a calls (peer any,
 * reconnect yes), b listens.  The test plays the programs on both
 * slaves, through the endpoints' symlinks, from the same loop:
 *   - 256 KiB of pseudo-random data each way at once, checked byte for
 *     byte, with the bytes inside the stacks bounded (about 45 s: the
 *     relay gives every byte its 115200 bit/s line time; with that time
 *     divided by 64, discovery found no station, so it stays real);
 *   - a's program sets 57600 bit/s, two stop bits and RTS/CTS and clears
 *     EXTPROC: b's endpoint reports that data rate, format 0x07 and flow
 *     0x0c; 38400 set later with EXTPROC still clear arrives too; b's
 *     program sets B0: a's endpoint sees the peer's CD drop, and rise
 *     again with 19200; b's program closes its slave: CD drops again;
 *     a's writes 1000 bytes and closes at once: they reach b's pty, then
 *     a hangs up and b listens again; a's opens again while the link
 *     idles: IrLAP refuses to discover, a calls its last peer directly;
 *   - the relay is cut for longer than the 3 s disconnect time: both see
 *     the link lost, a redials by itself while its program keeps the
 *     slave open, and data after it arrives intact;
 *   - 3-wire cooked when the listener offers only that, and when the
 *     caller asks only for it (8 KiB each way);
 *   - the pty link: a stale symlink is replaced, a regular file refused,
 *     the link removed at free; a 3wire-raw endpoint opens like the
 *     others (tests/irdad-ircomm-raw.sh runs it between two daemons).
 * On descriptors (ircomm_pty_open_fds, irdad --stdio --service ircomm),
 * a calling against a pty listener b:
 *   - fds_pty_master: a on a pty master (the test holds the slave): its
 *     "up" line, bytes both ways, 57600 on the slave reaching b as the
 *     data rate, B0 and back seen by b as our DTR, the slave's close:
 *     "down closed", the ended hook, b listens again;
 *   - fds_peer_hangs_up: a on a socketpair; b's program writes its last
 *     words and closes (b's DTR drops): they come out of a, then
 *     "down closed-by-peer" and a's descriptor is closed (EOF);
 *   - fds_failures: "failed not-offered" (b without IrCOMM), "failed
 *     no-peer" (a nickname nobody has; with a 4 s connect timeout, not
 *     before 4 s).
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
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "ircomm.h"
#include "ircomm_param.h"
#include "ircomm_pty.h"
#include "stack_pair.h"
#include "test_support.h"

#define CHUNK_MAX 3000
#define DATA_MAX (256 * 1024)  /* the most one program writes */
#define LAST_WORDS 1000        /* written just before a close */

enum scenario { BOTH_WAYS, SETTINGS_AND_CARRIER, RECONNECT };

/* A program on one slave. */
struct prog {
	int fd;
	size_t sent, got, goal_tx, goal_rx;
	size_t writes, blocked;
	bool bad;
};

struct rig {
	struct stack_pair pair;
	struct eloop *loop;
	enum scenario sc;
	char dir[64], link[2][96];
	struct ircomm_pty *ep[2];     /* a calls, b listens */
	struct prog pg[2];
	struct eloop_timer tick, limit;
	int phase;
	uint64_t until;
	bool timed_out;
	struct termios saved;
	uint64_t max_held;
	uint8_t *data[2];
};

/* Each program's bytes: pseudo-random, the same every run. */
static void make_data(struct rig *r)
{
	for (int i = 0; i < 2; i++) {
		uint64_t st = 0x1234567890abcdefu * (uint64_t)(i + 1);
		r->data[i] = malloc(DATA_MAX);
		assert_non_null(r->data[i]);
		for (size_t k = 0; k < DATA_MAX; k++)
			r->data[i][k] = (uint8_t)(test_uniform(&st) * 256.0);
	}
}

static void stats(struct rig *r, int i, struct ircomm_pty_stats *st)
{
	ircomm_pty_get_stats(r->ep[i], st);
}

static void prog_write(struct rig *r, struct prog *g);

static void on_prog_writable(struct eloop *loop, int fd, void *ctx)
{
	struct rig *r = ctx;
	(void)loop;
	prog_write(r, fd == r->pg[0].fd ? &r->pg[0] : &r->pg[1]);
}

static void prog_write(struct rig *r, struct prog *g)
{
	while (g->fd >= 0 && g->sent < g->goal_tx) {
		size_t n = 1 + (g->writes * 397u) % CHUNK_MAX;
		if (n > g->goal_tx - g->sent)
			n = g->goal_tx - g->sent;
		assert_true(g->sent + n <= DATA_MAX);
		ssize_t w = write(g->fd, r->data[g - r->pg] + g->sent, n);
		if (w < 0 && errno == EAGAIN) {
			g->blocked++;
			eloop_add_writer(r->loop, g->fd, on_prog_writable, r);
			return;
		}
		assert_true(w > 0);
		g->sent += (size_t)w;
		g->writes++;
	}
	if (g->fd >= 0)
		eloop_remove_writer(r->loop, g->fd);
}

static void on_prog_readable(struct eloop *loop, int fd, void *ctx)
{
	struct rig *r = ctx;
	int me = fd == r->pg[0].fd ? 0 : 1;
	struct prog *g = &r->pg[me];
	uint8_t buf[4096];
	ssize_t n;
	(void)loop;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (g->got + (size_t)n > DATA_MAX ||
		    memcmp(buf, r->data[1 - me] + g->got, (size_t)n) != 0)
			g->bad = true;
		g->got += (size_t)n;
	}
}

/* A program opens the slave through the endpoint's link, raw. */
static void prog_open(struct rig *r, int i)
{
	struct prog *g = &r->pg[i];
	struct termios t;

	g->fd = open(r->link[i], O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	assert_true(g->fd >= 0);
	assert_int_equal(tcgetattr(g->fd, &t), 0);
	cfmakeraw(&t);
	assert_int_equal(tcsetattr(g->fd, TCSANOW, &t), 0);
	assert_int_equal(eloop_add_reader(r->loop, g->fd, on_prog_readable, r), 0);
	prog_write(r, g);
}

static void prog_close(struct rig *r, int i)
{
	struct prog *g = &r->pg[i];

	if (g->fd < 0)
		return;
	eloop_remove_reader(r->loop, g->fd);
	eloop_remove_writer(r->loop, g->fd);
	close(g->fd);
	g->fd = -1;
}

static void add_goal(struct rig *r, size_t n)
{
	for (int i = 0; i < 2; i++) {
		r->pg[i].goal_tx += n;
		r->pg[1 - i].goal_rx += n;
	}
	prog_write(r, &r->pg[0]);
	prog_write(r, &r->pg[1]);
}

static bool all_got(const struct rig *r)
{
	return r->pg[0].got == r->pg[0].goal_rx && r->pg[1].got == r->pg[1].goal_rx;
}

static bool both_connected(struct rig *r)
{
	struct ircomm_pty_stats a, b;
	stats(r, 0, &a);
	stats(r, 1, &b);
	return a.state == IRCOMM_PTY_CONNECTED && b.state == IRCOMM_PTY_CONNECTED;
}

static void on_event_a(void *ctx, const struct irlap_event *ev)
{
	struct rig *r = ctx;
	if (getenv("IRCOMM_PTY_LOG"))
		print_message("%llu lap event %d npeers %zu failed %d\n", (unsigned long long)eloop_now_us(), (int)ev->type, ev->npeers, ev->failed);
	if (r->ep[0])
		ircomm_pty_lap_event(r->ep[0], ev);
}

static void set_speed(int fd, speed_t sp)
{
	struct termios t;

	assert_int_equal(tcgetattr(fd, &t), 0);
	cfsetospeed(&t, sp);
	cfsetispeed(&t, sp);
	assert_int_equal(tcsetattr(fd, TCSANOW, &t), 0);
}

/* Returns true when the scenario is over. */
static bool step_settings(struct rig *r)
{
	struct ircomm_pty_stats a, b;
	struct termios t;

	stats(r, 0, &a);
	stats(r, 1, &b);
	switch (r->phase) {
	case 0:
		if (!both_connected(r))
			return false;
		assert_int_equal(tcgetattr(r->pg[0].fd, &t), 0);
		cfsetospeed(&t, B57600);
		cfsetispeed(&t, B57600);
		/* a Linux pty keeps CS8 and no parity whatever is asked (its
		 * set_termios forces them): two stop bits and RTS/CTS do pass */
		t.c_cflag |= CSTOPB | CRTSCTS;
		/* and clears EXTPROC, which would stop the notifications */
		t.c_lflag &= ~(tcflag_t)EXTPROC;
		assert_int_equal(tcsetattr(r->pg[0].fd, TCSANOW, &t), 0);
		r->saved = t;
		r->phase++;
		return false;
	case 1:
		if (b.peer_data_rate != 57600)
			return false;
		assert_int_equal(b.peer_data_format, 0x07);   /* 8N2 */
		assert_int_equal(b.peer_flow_control, 0x0c);  /* RTS/CTS both ways */
		assert_int_equal(a.our_data_rate, 57600);
		/* a's endpoint set EXTPROC again: the next change is heard too,
		 * though the program's termios still lack it */
		cfsetospeed(&r->saved, B38400);
		cfsetispeed(&r->saved, B38400);
		assert_int_equal(tcsetattr(r->pg[0].fd, TCSANOW, &r->saved), 0);
		r->phase++;
		return false;
	case 2:
		if (b.peer_data_rate != 38400)
			return false;
		/* b's program has its slave open: a sees CD; now it hangs up with B0 */
		assert_true(a.peer_lines & IRCOMM_DCE_CD);
		set_speed(r->pg[1].fd, B0);
		r->phase++;
		return false;
	case 3:
		if (a.peer_lines & IRCOMM_DCE_CD)
			return false;
		/* only the lines changed: still connected, and B0 is no data rate */
		assert_int_equal(a.state, IRCOMM_PTY_CONNECTED);
		assert_int_equal(b.local_lines & IRCOMM_DTE_DTR, 0);
		assert_int_equal(a.peer_data_rate, 9600);
		set_speed(r->pg[1].fd, B19200);
		r->phase++;
		return false;
	case 4:
		if (!(a.peer_lines & IRCOMM_DCE_CD) || a.peer_data_rate != 19200)
			return false;
		/* the last program closes b's slave: DTR drops again */
		prog_close(r, 1);
		r->phase++;
		return false;
	case 5:
		if (a.peer_lines & IRCOMM_DCE_CD)
			return false;
		assert_int_equal(a.state, IRCOMM_PTY_CONNECTED);
		assert_int_equal(b.local_lines & IRCOMM_DTE_DTR, 0);
		/* a's program writes its last bytes and closes at once: a sends
		 * them, then hangs up; b listens again */
		assert_int_equal(write(r->pg[0].fd, r->data[0], LAST_WORDS), LAST_WORDS);
		prog_close(r, 0);
		r->phase++;
		return false;
	case 6:
		if (a.state != IRCOMM_PTY_IDLE || b.state != IRCOMM_PTY_LISTENING)
			return false;
		/* a's program opens again while the link still idles (60 s
		 * here): IrLAP refuses a discovery, a calls its last peer */
		assert_int_equal(a.calls_without_discovery, 0);
		prog_open(r, 0);
		r->phase++;
		return false;
	default:
		return both_connected(r) && a.connects == 2;
	}
}

static bool step_reconnect(struct rig *r)
{
	struct ircomm_pty_stats a, b;

	stats(r, 0, &a);
	stats(r, 1, &b);
	switch (r->phase) {
	case 0:
		if (!all_got(r))
			return false;
		r->pair.cut = true;
		r->until = eloop_now_us() + 4500000;
		r->phase++;
		return false;
	case 1:
		/* at least 4.5 s, and until both ends saw the link go (a loaded
		 * machine may take longer than the 3 s: no timing is asserted) */
		if (eloop_now_us() < r->until || a.link_losses < 1 || b.link_losses < 1)
			return false;
		r->pair.cut = false;
		r->phase++;
		return false;
	case 2:
		if (a.connects < 2 || !both_connected(r))
			return false;
		add_goal(r, 32 * 1024);
		r->phase++;
		return false;
	default:
		return all_got(r);
	}
}

static void on_tick(struct eloop *loop, void *ctx)
{
	struct rig *r = ctx;
	bool done;

	switch (r->sc) {
	case BOTH_WAYS:
		/* what the stacks hold between one endpoint's master and the
		 * other's: TinyTP's queue, the frames in flight, the SDU being
		 * written out */
		for (int i = 0; i < 2; i++) {
			struct ircomm_pty_stats from, to;
			stats(r, i, &from);
			stats(r, 1 - i, &to);
			uint64_t held = from.bytes_to_peer - to.bytes_from_peer;
			if (held > r->max_held)
				r->max_held = held;
		}
		done = all_got(r);
		break;
	case SETTINGS_AND_CARRIER:
		done = step_settings(r);
		break;
	default:
		done = step_reconnect(r);
		break;
	}
	if (done)
		eloop_terminate(loop);
	else
		eloop_timer_arm_in(loop, &r->tick, 10000);
}

static void on_limit(struct eloop *loop, void *ctx)
{
	struct rig *r = ctx;
	r->timed_out = true;
	for (int i = 0; i < 2; i++) {
		struct ircomm_pty_stats st;
		stats(r, i, &st);
		print_message("timeout: %c: phase %d state %s sent %zu/%zu got %zu/%zu connects %llu\n",
			      'a' + i, r->phase, ircomm_pty_state_name(st.state), r->pg[i].sent,
			      r->pg[i].goal_tx, r->pg[i].got, r->pg[i].goal_rx,
			      (unsigned long long)st.connects);
	}
	eloop_terminate(loop);
}

/* IRCOMM_PTY_LOG=1 in the environment shows the endpoints' log. */
static const struct logger *test_log(void)
{
	static const struct logger log = { .sink = log_sink_stdio, .max = LOG_LEVEL_DEBUG };
	return getenv("IRCOMM_PTY_LOG") ? &log : NULL;
}

static void make_ep(struct irdad_endpoint *ep, const char *name, enum irdad_role role,
		    const char *link)
{
	memset(ep, 0, sizeof(*ep));
	ep->service = IRDAD_SVC_IRCOMM;
	snprintf(ep->name, sizeof(ep->name), "%s", name);
	ep->role = role;
	ep->reconnect = role == IRDAD_ROLE_CALL;
	snprintf(ep->pty_link, sizeof(ep->pty_link), "%s", link);
}

/* wire[0]: the caller's, wire[1]: the listener's (NULL: auto both). */
static void run_wires(struct rig *r, enum scenario sc, size_t each_way, uint64_t limit_us,
		      const enum irdad_wire *wire)
{
	struct stack_pair_opts o = { .link_disc = 0x01 };  /* 3 s */
	struct irdad_endpoint ep;
	char err[256];

	/* the link outlives a's hang-up there (see step_settings) */
	if (sc == SETTINGS_AND_CARRIER)
		o.idle_timeout_us = 60000000;

	memset(r, 0, sizeof(*r));
	r->sc = sc;
	make_data(r);
	snprintf(r->dir, sizeof(r->dir), "/tmp/test_ircomm_pty.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	for (int i = 0; i < 2; i++) {
		snprintf(r->link[i], sizeof(r->link[i]), "%s/%c", r->dir, 'a' + i);
		make_ep(&ep, i ? "b" : "a", i ? IRDAD_ROLE_LISTEN : IRDAD_ROLE_CALL, r->link[i]);
		ep.wire = wire ? wire[i] : IRDAD_WIRE_AUTO;
		if (ircomm_pty_open(&ep, test_log(), &r->ep[i], err, sizeof(err)) < 0)
			fail_msg("ircomm_pty_open: %s", err);
		r->pg[i].fd = -1;
	}
	stack_pair_open_opts(&r->pair, &o, on_event_a, r);
	r->loop = r->pair.loop;
	/* the listener first: b's IAS object is there when a looks */
	assert_int_equal(ircomm_pty_start(r->ep[1], r->loop, r->pair.e[1].stk), 0);
	assert_int_equal(ircomm_pty_start(r->ep[0], r->loop, r->pair.e[0].stk), 0);
	assert_int_equal(ircomm_pty_start(r->ep[0], r->loop, r->pair.e[0].stk), -EALREADY);
	for (int i = 0; i < 2; i++) {
		r->pg[i].goal_tx = r->pg[1 - i].goal_rx = each_way;
		prog_open(r, i);  /* a's open makes it call */
	}
	eloop_timer_init(&r->tick, on_tick, r);
	eloop_timer_arm_in(r->loop, &r->tick, 10000);
	eloop_timer_init(&r->limit, on_limit, r);
	eloop_timer_arm_in(r->loop, &r->limit, test_ceiling_us(limit_us));
	assert_int_equal(eloop_run(r->loop), 0);
	assert_false(r->timed_out);
}

static void run(struct rig *r, enum scenario sc, size_t each_way, uint64_t limit_us)
{
	run_wires(r, sc, each_way, limit_us, NULL);
}

static void finish(struct rig *r)
{
	eloop_timer_cancel(r->loop, &r->tick);
	eloop_timer_cancel(r->loop, &r->limit);
	for (int i = 0; i < 2; i++) {
		prog_close(r, i);
		ircomm_pty_free(r->ep[i]);
		/* the link went with the endpoint */
		struct stat sb;
		assert_int_equal(lstat(r->link[i], &sb), -1);
	}
	stack_pair_close(&r->pair);
	assert_int_equal(rmdir(r->dir), 0);
	free(r->data[0]);
	free(r->data[1]);
}

static void both_ways(void **state)
{
	struct rig r;
	struct ircomm_pty_stats a, b;
	(void)state;

	run(&r, BOTH_WAYS, 256 * 1024, 60000000);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(r.pg[i].got, 256 * 1024);
		assert_false(r.pg[i].bad);
	}
	stats(&r, 0, &a);
	stats(&r, 1, &b);
	assert_int_equal(a.bytes_to_peer, 256 * 1024);
	assert_int_equal(a.bytes_from_peer, 256 * 1024);
	assert_int_equal(b.bytes_to_peer, 256 * 1024);
	assert_int_equal(a.service, IRCOMM_SVC_9WIRE);  /* auto both sides: 9-wire */
	assert_int_equal(a.connects, 1);
	assert_int_equal(b.connects, 1);
	assert_int_equal(a.slave_opens, 1);
	print_message("stalls: a peer %llu slave %llu, b peer %llu slave %llu; writers blocked "
		      "%zu and %zu times; at most %llu bytes inside the stacks\n",
		      (unsigned long long)a.stalls_peer, (unsigned long long)a.stalls_slave,
		      (unsigned long long)b.stalls_peer, (unsigned long long)b.stalls_slave,
		      r.pg[0].blocked, r.pg[1].blocked, (unsigned long long)r.max_held);
	/* the writers were held back in their ptys, and what the endpoints
	 * let into the stacks stays within TinyTP's queue (8 SDUs), the
	 * peer's credit (16) and one SDU being written out: never the 256 KiB */
	assert_true(r.pg[0].blocked > 0 && r.pg[1].blocked > 0);
	assert_true(r.max_held > 0);
	assert_true(r.max_held <= (8 + 16 + 1) * IRCOMM_SDU_MAX);
	finish(&r);
}

static void settings_and_carrier(void **state)
{
	struct rig r;
	struct ircomm_pty_stats a, b;
	(void)state;

	run(&r, SETTINGS_AND_CARRIER, 0, 30000000);
	stats(&r, 0, &a);
	stats(&r, 1, &b);
	assert_int_equal(a.slave_opens, 1);  /* opened again at the end */
	assert_int_equal(b.slave_opens, 0);
	assert_int_equal(a.connects, 2);
	assert_int_equal(a.calls_without_discovery, 1);
	assert_int_equal(a.params_sent, 2);
	/* 19200 after B0 (B0 alone sends no rate), 9600 when the last close
	 * reset the line to raw 9600 */
	assert_int_equal(b.params_sent, 2);
	assert_int_equal(b.link_losses, 1);  /* a hung up */
	/* after the bytes written just before the close (in b's pty now) */
	assert_int_equal(a.bytes_to_peer, LAST_WORDS);
	assert_int_equal(b.bytes_from_peer, LAST_WORDS);
	assert_int_equal(a.link_losses, 0);
	finish(&r);
}

static void reconnect_after_link_loss(void **state)
{
	struct rig r;
	struct ircomm_pty_stats a;
	(void)state;

	run(&r, RECONNECT, 16 * 1024, 60000000);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(r.pg[i].got, 48 * 1024);
		assert_false(r.pg[i].bad);
	}
	stats(&r, 0, &a);
	assert_int_equal(a.connects, 2);
	assert_int_equal(a.link_losses, 1);
	finish(&r);
}

/* 3-wire cooked: when the listener offers only that, and when the caller
 * asks only for it; data passes, and DTR has no parameter to go out in. */
static void three_wire(void **state)
{
	static const enum irdad_wire cases[][2] = {
		{ IRDAD_WIRE_AUTO, IRDAD_WIRE_3 },
		{ IRDAD_WIRE_3, IRDAD_WIRE_AUTO },
	};
	(void)state;

	for (size_t k = 0; k < 2; k++) {
		struct rig r;
		struct ircomm_pty_stats a, b;

		run_wires(&r, BOTH_WAYS, 8 * 1024, 30000000, cases[k]);
		stats(&r, 0, &a);
		stats(&r, 1, &b);
		assert_int_equal(a.service, IRCOMM_SVC_3WIRE);
		assert_int_equal(b.service, IRCOMM_SVC_3WIRE);
		for (int i = 0; i < 2; i++) {
			assert_int_equal(r.pg[i].got, 8 * 1024);
			assert_false(r.pg[i].bad);
		}
		finish(&r);
	}
}

static void link_rules(void **state)
{
	struct irdad_endpoint ep;
	struct ircomm_pty *p;
	char dir[] = "/tmp/test_ircomm_pty.XXXXXX", link[96], target[128], err[256];
	struct stat sb;
	ssize_t n;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/x", dir);
	make_ep(&ep, "x", IRDAD_ROLE_LISTEN, link);
	/* a stale link is replaced */
	assert_int_equal(symlink("/dev/pts/nonexistent", link), 0);
	assert_int_equal(ircomm_pty_open(&ep, NULL, &p, err, sizeof(err)), 0);
	n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, ircomm_pty_slave_path(p));
	ircomm_pty_free(p);
	assert_int_equal(lstat(link, &sb), -1);
	/* a regular file is not */
	int fd = open(link, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(ircomm_pty_open(&ep, NULL, &p, err, sizeof(err)), -EEXIST);
	assert_null(p);
	assert_non_null(strstr(err, "exists and is not a symbolic link"));
	assert_int_equal(lstat(link, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(unlink(link), 0);
	/* 3-wire raw is an endpoint like the others (it used to be refused) */
	ep.wire = IRDAD_WIRE_3_RAW;
	assert_int_equal(ircomm_pty_open(&ep, NULL, &p, err, sizeof(err)), 0);
	assert_int_equal(lstat(link, &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	ircomm_pty_free(p);
	assert_int_equal(lstat(link, &sb), -1);
	assert_int_equal(rmdir(dir), 0);
}

static void termios_mapping(void **state)
{
	(void)state;
	assert_int_equal(ircomm_pty_rate_of_speed(B9600), 9600);
	assert_int_equal(ircomm_pty_rate_of_speed(B115200), 115200);
	assert_int_equal(ircomm_pty_rate_of_speed(B0), 0);
	/* digest 7.5: 8N1 = 0x03; 7E1: 0x02 | parity 0x08 | even 0x10 */
	assert_int_equal(ircomm_pty_data_format(CS8), 0x03);
	assert_int_equal(ircomm_pty_data_format(CS7 | PARENB), 0x1a);
	assert_int_equal(ircomm_pty_data_format(CS8 | PARENB | PARODD | CSTOPB), 0x0f);
	assert_int_equal(ircomm_pty_data_format(CS5 | PARENB | CMSPAR | PARODD), 0x28);
	assert_int_equal(ircomm_pty_flow_control(CRTSCTS, 0), 0x0c);
	assert_int_equal(ircomm_pty_flow_control(0, IXON | IXOFF), 0x03);
	assert_int_equal(ircomm_pty_flow_control(0, 0), 0x00);
}

/* ---- on descriptors (ircomm_pty_open_fds: irdad --stdio) ----------------- */

struct fds_rig {
	struct stack_pair pair;
	struct eloop *loop;
	struct ircomm_pty *a, *b;     /* a on descriptors, calling; b a pty listener */
	char dir[64], link[96];
	int st[2];                    /* a's status lines: read st[0] */
	char lines[512];
	size_t nlines;
	int ended;
};

static void fds_event_a(void *ctx, const struct irlap_event *ev)
{
	struct fds_rig *r = ctx;
	if (r->a)
		ircomm_pty_lap_event(r->a, ev);
}

static void fds_ended(void *ctx, struct ircomm_pty *p)
{
	struct fds_rig *r = ctx;
	(void)p;
	r->ended++;
}

/* Runs the loop until cond(r) or 20 s. */
static void fds_wait(struct fds_rig *r, bool (*cond)(struct fds_rig *r), const char *what)
{
	uint64_t deadline = eloop_now_us() + 20000000;

	while (!cond(r)) {
		if (eloop_now_us() > deadline)
			fail_msg("waited 20 s for %s; status lines: %s", what, r->lines);
		eloop_run_once(r->loop, 10000);
		ssize_t n = read(r->st[0], r->lines + r->nlines, sizeof(r->lines) - 1 - r->nlines);
		if (n > 0)
			r->nlines += (size_t)n;
		r->lines[r->nlines] = '\0';
	}
}

/* b listens on a pty of its own (its program, the test, has it open when
 * prog_b >= 0 is asked for); a is opened on in/out and calls peer. */
static void fds_open(struct fds_rig *r, int in, int out, const struct irdad_peer *peer,
		     bool with_b)
{
	struct irdad_endpoint ep;
	char err[256];

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "/tmp/test_ircomm_pty.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	snprintf(r->link, sizeof(r->link), "%s/b", r->dir);
	assert_int_equal(pipe2(r->st, O_NONBLOCK | O_CLOEXEC), 0);
	if (with_b) {
		make_ep(&ep, "b", IRDAD_ROLE_LISTEN, r->link);
		if (ircomm_pty_open(&ep, test_log(), &r->b, err, sizeof(err)) < 0)
			fail_msg("ircomm_pty_open: %s", err);
	}
	make_ep(&ep, "stdio", IRDAD_ROLE_CALL, "");
	ep.peer = *peer;
	if (ircomm_pty_open_fds(&ep, in, out, test_log(), &r->a, err, sizeof(err)) < 0)
		fail_msg("ircomm_pty_open_fds: %s", err);
	ircomm_pty_set_status_fd(r->a, r->st[1]);
	ircomm_pty_set_ended(r->a, fds_ended, r);
	stack_pair_open(&r->pair, fds_event_a, r);
	r->loop = r->pair.loop;
	if (r->b)
		assert_int_equal(ircomm_pty_start(r->b, r->loop, r->pair.e[1].stk), 0);
}

static void fds_start(struct fds_rig *r)
{
	assert_int_equal(ircomm_pty_start(r->a, r->loop, r->pair.e[0].stk), 0);
}

static void fds_close(struct fds_rig *r)
{
	ircomm_pty_free(r->a);
	ircomm_pty_free(r->b);
	stack_pair_close(&r->pair);
	close(r->st[0]);
	close(r->st[1]);
	assert_int_equal(rmdir(r->dir), 0);
}

static bool has_line_end(struct fds_rig *r, int nth)
{
	int n = 0;
	for (size_t i = 0; i < r->nlines; i++)
		n += r->lines[i] == '\n';
	return n >= nth;
}
static bool one_line(struct fds_rig *r) { return has_line_end(r, 1); }
static bool fds_is_ended(struct fds_rig *r) { return r->ended > 0; }

static struct ircomm_pty_stats b_stats(struct fds_rig *r)
{
	struct ircomm_pty_stats st;
	ircomm_pty_get_stats(r->b, &st);
	return st;
}
static bool b_connected(struct fds_rig *r) { return b_stats(r).state == IRCOMM_PTY_CONNECTED; }
static bool b_rate_57600(struct fds_rig *r) { return b_stats(r).peer_data_rate == 57600; }
static bool b_dtr_seen_down(struct fds_rig *r) { return !(b_stats(r).peer_lines & IRCOMM_DCE_CD); }
static bool b_dtr_seen_up(struct fds_rig *r) { return (b_stats(r).peer_lines & IRCOMM_DCE_CD) != 0; }
static bool b_listening(struct fds_rig *r) { return b_stats(r).state == IRCOMM_PTY_LISTENING; }

/* Reads fd (non-blocking) while the loop runs until want arrived. */
static void fds_expect(struct fds_rig *r, int fd, const char *want)
{
	char got[256];
	size_t n = 0, len = strlen(want);
	uint64_t deadline = eloop_now_us() + 20000000;

	while (n < len && eloop_now_us() < deadline) {
		eloop_run_once(r->loop, 10000);
		ssize_t k = read(fd, got + n, len - n);
		if (k > 0)
			n += (size_t)k;
	}
	assert_int_equal(n, len);
	assert_memory_equal(got, want, len);
}

/* a on a pty master, as pppd's pty option or the plugin give it: the
 * status line, bytes both ways, the slave's speed and B0 reaching b, the
 * slave's close: "down closed", the ended hook, b listens again. */
static void fds_pty_master(void **state)
{
	struct fds_rig r;
	struct irdad_peer any = { .kind = IRDAD_PEER_ANY };
	int m, s, bfd;
	struct termios t;
	(void)state;

	assert_int_equal(openpty(&m, &s, NULL, NULL, NULL), 0);
	assert_int_equal(tcgetattr(s, &t), 0);
	cfmakeraw(&t);
	assert_int_equal(tcsetattr(s, TCSANOW, &t), 0);
	assert_int_equal(fcntl(s, F_SETFL, O_NONBLOCK), 0);
	fds_open(&r, m, m, &any, true);
	bfd = open(r.link, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	assert_true(bfd >= 0);
	assert_int_equal(tcgetattr(bfd, &t), 0);
	cfmakeraw(&t);
	assert_int_equal(tcsetattr(bfd, TCSANOW, &t), 0);
	fds_start(&r);
	fds_wait(&r, one_line, "the up line");
	assert_memory_equal(r.lines, "up 0x", 5);
	fds_wait(&r, b_connected, "b connected");
	assert_int_equal(write(s, "ATZ\r", 4), 4);
	fds_expect(&r, bfd, "ATZ\r");
	assert_int_equal(write(bfd, "\r\nOK\r\n", 6), 6);
	fds_expect(&r, s, "\r\nOK\r\n");
	set_speed(s, B57600);
	fds_wait(&r, b_rate_57600, "57600 at b");
	set_speed(s, B0);
	fds_wait(&r, b_dtr_seen_down, "b seeing our DTR drop");
	set_speed(s, B57600);
	fds_wait(&r, b_dtr_seen_up, "b seeing our DTR again");
	assert_int_equal(r.ended, 0);
	close(s);
	fds_wait(&r, fds_is_ended, "the end");
	assert_string_equal(strchr(r.lines, '\n') + 1, "down closed\n");
	fds_wait(&r, b_listening, "b listening again");
	assert_int_equal(b_stats(&r).link_losses, 1);
	close(bfd);
	fds_close(&r);
}

/* a on a socketpair (plain bytes), b's program says its last words and
 * closes: b's DTR drops, a reads them out, says "down closed-by-peer"
 * and closes its descriptor (the test's end reads EOF). */
static void fds_peer_hangs_up(void **state)
{
	struct fds_rig r;
	struct irdad_peer any = { .kind = IRDAD_PEER_ANY };
	int sp[2], bfd;
	struct termios t;
	char buf[64];
	(void)state;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	assert_int_equal(fcntl(sp[0], F_SETFL, O_NONBLOCK), 0);
	fds_open(&r, sp[1], sp[1], &any, true);
	bfd = open(r.link, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	assert_true(bfd >= 0);
	assert_int_equal(tcgetattr(bfd, &t), 0);
	cfmakeraw(&t);
	assert_int_equal(tcsetattr(bfd, TCSANOW, &t), 0);
	fds_start(&r);
	fds_wait(&r, b_connected, "b connected");
	fds_wait(&r, b_dtr_seen_up, "b's line up");
	assert_int_equal(write(sp[0], "ATD*99#\r", 8), 8);
	fds_expect(&r, bfd, "ATD*99#\r");
	assert_int_equal(write(bfd, "NO CARRIER\r\n", 12), 12);
	close(bfd);
	fds_expect(&r, sp[0], "NO CARRIER\r\n");
	fds_wait(&r, fds_is_ended, "the end");
	assert_string_equal(strchr(r.lines, '\n') + 1, "down closed-by-peer\n");
	assert_int_equal(read(sp[0], buf, sizeof(buf)), 0);  /* closed: EOF */
	close(sp[0]);
	fds_close(&r);
}

/* The calls that cannot be made: b has no IrCOMM; nobody has the name
 * (3 discoveries, or as long as a connect timeout allows). */
static void fds_failures(void **state)
{
	static const struct {
		struct irdad_peer peer;
		uint64_t timeout_us;
		const char *line;
	} cases[] = {
		{ { .kind = IRDAD_PEER_ANY }, 0, "failed not-offered\n" },
		{ { .kind = IRDAD_PEER_NICKNAME, .nickname = "nobody" }, 0, "failed no-peer\n" },
		{ { .kind = IRDAD_PEER_NICKNAME, .nickname = "nobody" }, 4000000, "failed no-peer\n" },
	};
	(void)state;

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct fds_rig r;
		int sp[2];
		struct ircomm_pty_stats st;

		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
		fds_open(&r, sp[1], sp[1], &cases[k].peer, false);
		ircomm_pty_set_connect_timeout(r.a, cases[k].timeout_us);
		uint64_t t0 = eloop_now_us();
		fds_start(&r);
		fds_wait(&r, fds_is_ended, "the end");
		assert_string_equal(r.lines, cases[k].line);
		/* a lower bound (without the timeout it ends after about 2 s) */
		if (cases[k].timeout_us)
			assert_true(eloop_now_us() - t0 >= cases[k].timeout_us);
		ircomm_pty_get_stats(r.a, &st);
		assert_int_equal(st.connects, 0);
		close(sp[0]);
		fds_close(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(termios_mapping),
		cmocka_unit_test(link_rules),
		cmocka_unit_test(both_ways),
		cmocka_unit_test(three_wire),
		cmocka_unit_test(settings_and_carrier),
		cmocka_unit_test(reconnect_after_link_loss),
		cmocka_unit_test(fds_pty_master),
		cmocka_unit_test(fds_peer_hangs_up),
		cmocka_unit_test(fds_failures),
	};
	/* TEST_FILTER=name runs one case */
	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return cmocka_run_group_tests_name("ircomm_pty", tests, NULL, NULL);
}
