/*
 * test_conn_bridge.c: TinyTP connections handed to "clients" as local
 * sockets through conn_bridge, on two real-time stacks (stack_pair.h).
 * Station a connects to b's listener; each end's TinyTP connection is
 * bridged to one end of a socketpair whose other end the test drives
 * from the same loop, as irdad's clients would:
 *   - stream mode: 48 KiB each way at once, in odd-sized writes, checked
 *     byte for byte; a's client closes and b's client reads EOF;
 *   - SAR mode: messages of 1..2000 bytes keep their boundaries;
 *   - a client that does not read while the peer sends and closes, and
 *     starts reading only once its socket is full and TinyTP holds the
 *     rest, loses nothing: it reads every byte, then EOF, then EPIPE on
 *     a write;
 *   - the stream cases again over a TCP loopback_pair, as irdad hands a
 *     stream over: the same bytes, EOF, EPIPE (the bridge waits for
 *     the client's kernel to acknowledge everything before its reset);
 *   - a plain IrLMP connection (lmp_conn, irdad's mode lmp): messages of
 *     1..2000 bytes keep their boundaries both ways, one LM-PDU each; a
 *     write one byte over TX_MAX is dropped and counted, the messages
 *     around it arrive.
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
#include <sys/socket.h>
#include <unistd.h>

#include "conn_bridge.h"
#include "loopback_pair.h"
#include "ias.h"
#include "lmp_conn.h"
#include "stack_pair.h"
#include "ttp.h"
#include "test_support.h"

#define CLASS "BridgeTest"
#define MAX_SDU 2048

enum scenario { BOTH_WAYS, SAR_BOUNDARIES, LATE_READER, LMP_MESSAGES };
#define OVERSIZE_AFTER 5   /* LMP: the oversized write follows this many messages */

/* One client: the test's end of a socketpair. */
struct client {
	int fd;
	size_t sent, got, goal_tx, goal_rx;
	size_t msgs_tx, msgs_rx;
	uint8_t seed;
	bool eof, bad, reading, closed;
	int err;                   /* a read's error, if one failed */
	bool oversize_sent;        /* LMP: the one write over TX_MAX went */
};

struct side {
	struct stack *stk;
	struct conn_bridge *bridge;
	struct client cl;
	bool gone;                 /* the bridge reported closed */
	bool by_peer;
};

struct rig {
	struct stack_pair pair;
	struct eloop *loop;
	enum scenario sc;
	struct side s[2];
	struct ttp_listener *tl;
	struct lmp_listener *ll;
	struct eloop_timer tick, limit;
	uint32_t peer;
	uint64_t late_start;
	bool timed_out;
	bool tcp;                  /* stream: a loopback_pair, as irdad hands over */
};

static uint8_t pattern(uint8_t seed, size_t i)
{
	return (uint8_t)((i * 131u) ^ (i >> 9) ^ seed);
}

/* SAR scenario: the length of message k. */
static size_t msg_len(size_t k)
{
	return 1 + (k * 397u) % 2000u;
}

static struct side *side_of(struct rig *r, struct ttp *t)
{
	for (int i = 0; i < 2; i++)
		if (r->s[i].bridge && conn_bridge_ttp(r->s[i].bridge) == t)
			return &r->s[i];
	return NULL;
}

static struct side *side_of_lmp(struct rig *r, struct lmp_conn *lc)
{
	for (int i = 0; i < 2; i++)
		if (r->s[i].bridge && conn_bridge_lmp(r->s[i].bridge) == lc)
			return &r->s[i];
	return NULL;
}

/* Message boundaries are kept (SAR, and IrLMP). */
static bool by_message(const struct rig *r)
{
	return r->sc == SAR_BOUNDARIES || r->sc == LMP_MESSAGES;
}

static void client_write(struct rig *r, struct client *c);
static void client_read(struct rig *r, struct client *c);

static void on_client_readable(struct eloop *loop, int fd, void *ctx)
{
	struct rig *r = ctx;
	struct client *c = fd == r->s[0].cl.fd ? &r->s[0].cl : &r->s[1].cl;
	(void)loop;
	client_read(r, c);
}

static void on_client_writable(struct eloop *loop, int fd, void *ctx)
{
	struct rig *r = ctx;
	struct client *c = fd == r->s[0].cl.fd ? &r->s[0].cl : &r->s[1].cl;
	(void)loop;
	client_write(r, c);
}

static void client_write(struct rig *r, struct client *c)
{
	uint8_t buf[MAX_SDU];
	bool sar = by_message(r);

	while (c->sent < c->goal_tx) {
		if (r->sc == LMP_MESSAGES && c->msgs_tx == OVERSIZE_AFTER && !c->oversize_sent) {
			/* one byte over the largest LM-PDU: the bridge drops it */
			static uint8_t big[2048 - 2 + 1];
			memset(big, 0xee, sizeof(big));
			if (send(c->fd, big, sizeof(big), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
				eloop_add_writer(r->loop, c->fd, on_client_writable, r);
				return;
			}
			c->oversize_sent = true;
		}
		/* odd sizes in stream mode, so writes and PDUs never line up */
		size_t n = sar ? msg_len(c->msgs_tx) : 777;
		if (n > c->goal_tx - c->sent)
			n = c->goal_tx - c->sent;
		for (size_t k = 0; k < n; k++)
			buf[k] = pattern(c->seed, c->sent + k);
		ssize_t w = send(c->fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			eloop_add_writer(r->loop, c->fd, on_client_writable, r);
			return;
		}
		assert_true(w > 0);
		c->sent += (size_t)w;
		c->msgs_tx++;
	}
	eloop_remove_writer(r->loop, c->fd);
	if (r->sc == LATE_READER && c == &r->s[1].cl && !c->closed) {
		/* b's client wrote everything and hangs up at once */
		c->closed = true;
		eloop_remove_reader(r->loop, c->fd);
		close(c->fd);
		c->fd = -1;
	}
}

static void client_read(struct rig *r, struct client *c)
{
	uint8_t buf[MAX_SDU * 2];
	ssize_t n;

	while ((n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		if (by_message(r) && (size_t)n != msg_len(c->msgs_rx))
			c->bad = true;
		for (ssize_t k = 0; k < n; k++)
			if (buf[k] != pattern((uint8_t)(c->seed ^ 0xff), c->got + (size_t)k))
				c->bad = true;
		c->got += (size_t)n;
		c->msgs_rx++;
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
		c->eof = n == 0;
		c->err = n < 0 ? errno : 0;
		eloop_remove_reader(r->loop, c->fd);
	}
}

static void client_start(struct rig *r, struct side *sd, int fd, uint8_t seed)
{
	struct client *c = &sd->cl;
	int fl = fcntl(fd, F_GETFL);

	assert_int_equal(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
	c->fd = fd;
	c->seed = seed;
	/* the late reader (a) starts reading only once b's side is closed */
	c->reading = !(r->sc == LATE_READER && sd == &r->s[0]);
	if (c->reading)
		assert_int_equal(eloop_add_reader(r->loop, fd, on_client_readable, r), 0);
	client_write(r, c);
}

static void bridge_sync(void *ctx)
{
	struct side *sd = ctx;
	stack_sync(sd->stk);
}

static void bridge_closed(void *ctx, struct conn_bridge *b, bool by_peer, enum irlmp_reason reason)
{
	struct side *sd = ctx;
	(void)b;
	(void)reason;
	sd->gone = true;
	sd->by_peer = by_peer;
}

static const struct conn_bridge_ops bridge_ops = {
	.sync = bridge_sync,
	.closed = bridge_closed,
};

static void attach(struct rig *r, struct side *sd, struct ttp *t, uint8_t seed)
{
	bool sar = r->sc == SAR_BOUNDARIES;
	int sv[2];
	struct conn_bridge_config bc = {
		.mode = sar ? CONN_BRIDGE_SAR : CONN_BRIDGE_STREAM,
		.tx_max = ttp_max_send(t),
		.rx_max = sar ? MAX_SDU : ttp_max_send(t),
		.drain_timeout_us = 5000000,
	};

	if (r->tcp && !sar) {
		assert_int_equal(loopback_pair(sv), 0);
		bc.tcp = true;
	} else {
		assert_int_equal(socketpair(AF_UNIX, (sar ? SOCK_SEQPACKET : SOCK_STREAM) |
					    SOCK_CLOEXEC, 0, sv), 0);
	}
	if (r->sc == LATE_READER) {
		/* a small socket buffer, so the unread data backs up into TinyTP */
		int small = 4096;
		assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
		/* over TCP the client's receive buffer too, or the loopback's
		 * would take it all */
		if (bc.tcp)
			assert_int_equal(setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small,
						    sizeof(small)), 0);
	}
	sd->bridge = conn_bridge_new(r->loop, t, sv[0], &bc, &bridge_ops, sd);
	assert_non_null(sd->bridge);
	client_start(r, sd, sv[1], seed);
}

static void attach_lmp(struct rig *r, struct side *sd, struct lmp_conn *lc, uint8_t seed)
{
	int sv[2];
	struct conn_bridge_config bc = {
		.mode = CONN_BRIDGE_SAR,
		.tx_max = lmp_max_send(lc),
		.rx_max = MAX_SDU,
		.drain_timeout_us = 5000000,
	};

	assert_int_equal(lmp_max_send(lc), 2048 - 2);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	bc.mode = CONN_BRIDGE_STREAM;
	assert_null(conn_bridge_new_lmp(r->loop, lc, sv[0], &bc, &bridge_ops, sd));
	bc.mode = CONN_BRIDGE_SAR;
	sd->bridge = conn_bridge_new_lmp(r->loop, lc, sv[0], &bc, &bridge_ops, sd);
	assert_non_null(sd->bridge);
	assert_ptr_equal(conn_bridge_lmp(sd->bridge), lc);
	assert_null(conn_bridge_ttp(sd->bridge));
	client_start(r, sd, sv[1], seed);
}

static void on_lmp(void *ctx, const struct lmp_event *ev)
{
	struct rig *r = ctx;
	struct side *sd = side_of_lmp(r, ev->conn);

	if (!sd && ev->type == LMP_EV_CONNECTED) {
		bool is_a = irlmp_conn_owner(lmp_irlmp_conn(ev->conn)) == stack_irlmp(r->s[0].stk);
		sd = is_a ? &r->s[0] : &r->s[1];
		attach_lmp(r, sd, ev->conn, sd == &r->s[0] ? 0x5a : 0xa5);
		return;
	}
	if (sd)
		conn_bridge_lmp_event(sd->bridge, ev);
}

static void on_ttp(void *ctx, const struct ttp_event *ev)
{
	struct rig *r = ctx;
	struct side *sd = side_of(r, ev->ttp);

	if (!sd && ev->type == TTP_EV_CONNECTED) {
		/* a new connection, a's (it called) or b's (it listened) */
		bool is_a = irlmp_conn_owner(ttp_lmp_conn(ev->ttp)) == stack_irlmp(r->s[0].stk);
		sd = is_a ? &r->s[0] : &r->s[1];
		attach(r, sd, ev->ttp, sd == &r->s[0] ? 0x5a : 0xa5);
		return;
	}
	if (sd)
		conn_bridge_ttp_event(sd->bridge, ev);
}

static void on_ias(void *ctx, int ret, const struct ias_response *resp)
{
	struct rig *r = ctx;
	struct ttp_config tc;
	int lsap = ret == IAS_SUCCESS ? ias_lsap_sel(resp) : -1;

	assert_true(lsap > 0);
	if (r->sc == LMP_MESSAGES) {
		struct lmp_config lc;
		lmp_config_defaults(&lc);
		assert_non_null(lmp_connect(stack_irlmp(r->s[0].stk), r->peer, (uint8_t)lsap, &lc,
					    on_lmp, r, stack_now(r->s[0].stk)));
		stack_sync(r->s[0].stk);
		return;
	}
	ttp_config_defaults(&tc);
	tc.mode = r->sc == SAR_BOUNDARIES ? TTP_MODE_SAR : TTP_MODE_STREAM;
	tc.max_sdu = MAX_SDU;
	assert_non_null(ttp_connect(stack_irlmp(r->s[0].stk), r->peer, (uint8_t)lsap, &tc, on_ttp,
				    r, stack_now(r->s[0].stk)));
	stack_sync(r->s[0].stk);
}

static void on_event_a(void *ctx, const struct irlap_event *ev)
{
	struct rig *r = ctx;

	if (ev->type != IRLAP_EV_DISCOVERY || r->peer)
		return;
	if (ev->failed || !ev->npeers) {
		stack_pair_discover(&r->pair);
		return;
	}
	r->peer = ev->peers[0].daddr;
	assert_non_null(ias_query_start(stack_irlmp(r->s[0].stk), r->peer, CLASS,
					r->sc == LMP_MESSAGES ? "IrDA:IrLMP:LsapSel" :
								"IrDA:TinyTP:LsapSel",
					on_ias, r, stack_now(r->s[0].stk)));
	stack_sync(r->s[0].stk);
}

/* Drives the ends of each scenario and stops the loop when done. */
static void on_tick(struct eloop *loop, void *ctx)
{
	struct rig *r = ctx;
	struct client *a = &r->s[0].cl, *b = &r->s[1].cl;

	switch (r->sc) {
	case BOTH_WAYS:
	case SAR_BOUNDARIES:
	case LMP_MESSAGES:
		if (a->fd >= 0 && !a->closed && a->got == a->goal_rx && b->got == b->goal_rx &&
		    a->sent == a->goal_tx && a->goal_rx) {
			a->closed = true;
			eloop_remove_reader(loop, a->fd);
			close(a->fd);
			a->fd = -1;
		}
		if (a->closed && b->eof && r->s[0].gone && r->s[1].gone) {
			eloop_terminate(loop);
			return;
		}
		break;
	case LATE_READER:
		/* a's client starts reading 300 ms after its socket filled up
		 * and the bridge had to leave data in TinyTP (whose credit then
		 * holds the peer back): late enough to exercise the stall, not
		 * so late that b's flush gives up */
		if (b->closed && !r->late_start && r->s[0].bridge &&
		    conn_bridge_get_stats(r->s[0].bridge)->stalls_client > 0)
			r->late_start = eloop_now_us() + 300000;
		if (r->late_start && eloop_now_us() >= r->late_start && !a->reading && a->fd >= 0) {
			a->reading = true;
			assert_int_equal(eloop_add_reader(loop, a->fd, on_client_readable, r), 0);
		}
		if (a->eof) {
			eloop_terminate(loop);
			return;
		}
		/* the bridge is freed only after the client read it all */
		break;
	}
	eloop_timer_arm_in(loop, &r->tick, 10000);
}

static void on_limit(struct eloop *loop, void *ctx)
{
	struct rig *r = ctx;
	r->timed_out = true;
	for (int i = 0; i < 2; i++)
		print_message("timeout: %c: sent %zu/%zu got %zu/%zu eof %d gone %d bridge %p\n",
			      'a' + i, r->s[i].cl.sent, r->s[i].cl.goal_tx, r->s[i].cl.got,
			      r->s[i].cl.goal_rx, r->s[i].cl.eof, r->s[i].gone,
			      (void *)r->s[i].bridge);
	eloop_terminate(loop);
}

static void run(struct rig *r, enum scenario sc, bool tcp, size_t a_tx, size_t b_tx)
{
	struct ttp_config tc;

	memset(r, 0, sizeof(*r));
	r->sc = sc;
	r->tcp = tcp;
	stack_pair_open(&r->pair, on_event_a, r);
	r->loop = r->pair.loop;
	for (int i = 0; i < 2; i++) {
		r->s[i].stk = r->pair.e[i].stk;
		r->s[i].cl.fd = -1;
	}
	r->s[0].cl.goal_tx = r->s[1].cl.goal_rx = a_tx;
	r->s[1].cl.goal_tx = r->s[0].cl.goal_rx = b_tx;
	ttp_config_defaults(&tc);
	tc.mode = sc == SAR_BOUNDARIES ? TTP_MODE_SAR : TTP_MODE_STREAM;
	tc.max_sdu = MAX_SDU;
	if (sc == LMP_MESSAGES) {
		struct lmp_config lc;
		lmp_config_defaults(&lc);
		r->ll = lmp_listen(stack_irlmp(r->s[1].stk), IRLMP_LSAP_ANY, &lc, on_lmp, r);
		assert_non_null(r->ll);
		assert_true(stack_register_lsap(r->s[1].stk, CLASS, "IrDA:IrLMP:LsapSel",
						lmp_listener_lsap(r->ll)) >= 0);
	} else {
		r->tl = ttp_listen(stack_irlmp(r->s[1].stk), IRLMP_LSAP_ANY, &tc, on_ttp, r);
		assert_non_null(r->tl);
		assert_true(stack_register_lsap(r->s[1].stk, CLASS, NULL,
						ttp_listener_lsap(r->tl)) >= 0);
	}
	eloop_timer_init(&r->tick, on_tick, r);
	eloop_timer_arm_in(r->loop, &r->tick, 10000);
	eloop_timer_init(&r->limit, on_limit, r);
	eloop_timer_arm_in(r->loop, &r->limit, test_ceiling_us(20000000));
	stack_pair_discover(&r->pair);
	assert_int_equal(eloop_run(r->loop), 0);
	assert_false(r->timed_out);
}

static void finish(struct rig *r)
{
	eloop_timer_cancel(r->loop, &r->tick);
	eloop_timer_cancel(r->loop, &r->limit);
	for (int i = 0; i < 2; i++) {
		conn_bridge_free(r->s[i].bridge);
		if (r->s[i].cl.fd >= 0) {
			eloop_remove_reader(r->loop, r->s[i].cl.fd);
			eloop_remove_writer(r->loop, r->s[i].cl.fd);
			close(r->s[i].cl.fd);
		}
	}
	if (r->tl)
		ttp_listener_free(r->tl);
	lmp_listener_free(r->ll);
	stack_pair_close(&r->pair);
}

/* 48 KiB each way at once, 777-byte writes, then a's client closes: both
 * clients got every byte intact, and b read the end of file. */
static void run_both_ways(struct rig *r, bool tcp)
{
	run(r, BOTH_WAYS, tcp, 48 * 1024, 48 * 1024);
	assert_int_equal(r->s[1].cl.got, 48 * 1024);
	assert_int_equal(r->s[0].cl.got, 48 * 1024);
	assert_false(r->s[0].cl.bad);
	assert_false(r->s[1].cl.bad);
	assert_true(r->s[1].cl.eof);
}

static void stream_both_ways(void **state)
{
	struct rig r;
	(void)state;
	run_both_ways(&r, false);
	assert_true(r.s[1].by_peer);  /* b heard the disconnect from TinyTP */
	assert_false(r.s[0].by_peer); /* a's client closed */
	const struct conn_bridge_stats *st = conn_bridge_get_stats(r.s[0].bridge);
	assert_int_equal(st->bytes_to_peer, 48 * 1024);
	assert_int_equal(st->bytes_from_peer, 48 * 1024);
	/* 777-byte writes went out in fewer, larger PDUs than writes */
	print_message("a: %llu PDUs for %d writes of 777 bytes\n",
		      (unsigned long long)st->sdus_to_peer, (48 * 1024 + 776) / 777);
	finish(&r);
}

static void sar_keeps_boundaries(void **state)
{
	struct rig r;
	size_t total = 0, k = 0;
	(void)state;
	while (total + msg_len(k) <= 40000)
		total += msg_len(k++);
	run(&r, SAR_BOUNDARIES, false, total, total);
	assert_int_equal(r.s[1].cl.got, total);
	assert_int_equal(r.s[0].cl.got, total);
	assert_int_equal(r.s[1].cl.msgs_rx, k);
	assert_int_equal(r.s[0].cl.msgs_rx, k);
	assert_false(r.s[0].cl.bad);
	assert_false(r.s[1].cl.bad);
	finish(&r);
}

static void late_reader(bool tcp)
{
	struct rig r;
	run(&r, LATE_READER, tcp, 0, 60 * 1024);
	assert_int_equal(r.s[0].cl.got, 60 * 1024);
	assert_false(r.s[0].cl.bad);
	assert_int_equal(r.s[0].cl.err, 0);
	assert_true(r.s[0].cl.eof);
	assert_true(r.s[0].by_peer);
	const struct conn_bridge_stats *st = conn_bridge_get_stats(r.s[0].bridge);
	print_message("a's client stalled TinyTP %llu times\n", (unsigned long long)st->stalls_client);
	assert_true(st->stalls_client > 0);
	if (tcp)
		assert_int_equal(st->delivery_waits, 1);
	/* the peer ended it (IrLMP "user request"): after the end of file a
	 * write fails with EPIPE, over TCP too (the FIN then the reset) */
	errno = 0;
	assert_int_equal(send(r.s[0].cl.fd, "x", 1, MSG_NOSIGNAL), -1);
	assert_int_equal(errno, EPIPE);
	finish(&r);
}

static void late_reader_loses_nothing(void **state)
{
	(void)state;
	late_reader(false);
}

/* The same over a loopback_pair: the bridge waits for the client's kernel
 * to acknowledge every byte before it resets the connection (a reset
 * would discard them). */
static void late_reader_tcp(void **state)
{
	(void)state;
	late_reader(true);
}

static void stream_both_ways_tcp(void **state)
{
	struct rig r;
	(void)state;
	run_both_ways(&r, true);
	assert_int_equal(r.s[1].cl.err, 0);
	finish(&r);
}

static void lmp_messages(void **state)
{
	struct rig r;
	size_t total = 0, k = 0;
	(void)state;
	while (total + msg_len(k) <= 40000)
		total += msg_len(k++);
	run(&r, LMP_MESSAGES, false, total, total);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(r.s[i].cl.got, total);
		assert_int_equal(r.s[i].cl.msgs_rx, k);
		assert_false(r.s[i].cl.bad);
		const struct conn_bridge_stats *st = conn_bridge_get_stats(r.s[i].bridge);
		assert_int_equal(st->tx_oversize, 1);        /* each side wrote one */
		assert_int_equal(st->sdus_to_peer, k);       /* one LM-PDU a message */
		assert_int_equal(st->bytes_to_peer, total);
		assert_int_equal(st->rx_dropped, 0);         /* the readers kept up */
	}
	assert_true(r.s[1].cl.eof);
	assert_true(r.s[1].by_peer);
	assert_false(r.s[0].by_peer);
	finish(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stream_both_ways),
		cmocka_unit_test(sar_keeps_boundaries),
		cmocka_unit_test(late_reader_loses_nothing),
		cmocka_unit_test(stream_both_ways_tcp),
		cmocka_unit_test(late_reader_tcp),
		cmocka_unit_test(lmp_messages),
	};
	return cmocka_run_group_tests_name("conn_bridge", tests, NULL, NULL);
}
