/*
 * test_irnet_ep.c: IrNET endpoints (irnet_ep.h) on two real-time stacks
 * (stack_pair.h).  The test plays pppd: it opens the pty slaves (or
 * holds the other end of a socketpair in stdio mode), writes PPP frames
 * in async HDLC and decodes what comes out.
 *   - frames_both_ways: a calling and a listening endpoint on ptys;
 *     random frames (1..1500 bytes, some made only of 7E, 7D and control
 *     characters) each way at once (the listener's "pppd" writes once
 *     its endpoint is up: a listener drops what pppd sends before a
 *     call), the caller's "pppd" with ACCM 0 (as after LCP), the
 *     listener's with every control character escaped,
 *     and damaged frames (bad FCS) mixed in: the good frames come out of
 *     the other slave identical and in order, the damaged ones are
 *     counted and dropped, and every control character pppd receives is
 *     escaped; the status lines say "up" with the peer's address and
 *     nickname; the caller's queue stalled its pty reads;
 *   - slow_pppd_stops_credit: the listener's "pppd" reads nothing until
 *     30 kB were sent: the endpoint stops taking SDUs, and then every
 *     frame arrives intact;
 *   - stdio_ends_with_eof: a calling endpoint on a socketpair; frames
 *     both ways, then EOF: "down closed" on its status descriptor, the
 *     ended hook, "down closed-by-peer" at the listener;
 *   - not_offered / no_peer: the status line of a call that cannot be
 *     made (a station without IrNetv1, a peer address nobody has);
 *   - reconnect: a caller with "reconnect yes" whose peer went away
 *     calls again by itself and carries frames on the same pty;
 *   - pppd_leaves: the caller's pppd closes the pty: "down closed", the
 *     listener listens again; a new pppd on the link makes it call;
 *   - port_fails: "failed dongle";
 *   - link_rules: a regular file at the link's path is refused, a stale
 *     symbolic link replaced, ours removed at free.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "irnet_ep.h"
#include "fake_pppd.h"
#include "ppp_hdlc.h"
#include "stack_pair.h"

#define MAX_FRAMES 64
#define FRAME_MAX 1500

struct rig {
	struct stack_pair pair;
	struct eloop *loop;
	struct irnet_ep *ep[2];
	struct fake_pppd pp[2];
	int status[2][2];        /* pipes: [side][read, write] */
	char dir[64];
	struct irnet_ep_timing tm;
	struct eloop_timer tick, limit;
	bool timed_out, ended[2];
	bool (*done)(struct rig *r);
	uint64_t t0;
	/* b's frames, written once b is up: a listener drops what pppd
	 * sends while nobody has called */
	const struct fake_frame *b_frames;
	size_t nb_frames;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static const struct logger *test_log(void)
{
	static struct logger lg = { .sink = log_sink_stdio, .max = LOG_LEVEL_DEBUG,
				    .prefix = "test" };
	lg.ctx = stderr;
	return getenv("IRNET_EP_DEBUG") ? &lg : NULL;
}

/* Random frames: sizes 1..FRAME_MAX (the first two 1 and FRAME_MAX),
 * every fourth made only of bytes that need escaping; every seventh
 * (if bad_too) a damaged one. */
static size_t make_frames(struct fake_frame *f, size_t n, bool bad_too, size_t fixed_len)
{
	static const uint8_t special[] = { 0x7e, 0x7d, 0x00, 0x11, 0x13, 0x1f, 0x20, 0x5e, 0x5d };
	for (size_t i = 0; i < n; i++) {
		size_t len = fixed_len ? fixed_len : i == 0 ? 1 : i == 1 ? FRAME_MAX :
			     1 + rnd() % FRAME_MAX;
		f[i].bad = bad_too && i % 7 == 3;
		if (f[i].bad)
			len = 10 + rnd() % 190;
		f[i].data = malloc(len);
		assert_non_null(f[i].data);
		f[i].len = len;
		for (size_t k = 0; k < len; k++) {
			if (f[i].bad)
				f[i].data[k] = (uint8_t)('A' + rnd() % 26);
			else if (i % 4 == 2)
				f[i].data[k] = special[rnd() % sizeof(special)];
			else
				f[i].data[k] = (uint8_t)rnd();
		}
	}
	return n;
}

static void free_frames(struct fake_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i].data);
}

static int open_slave_of(struct irnet_ep *e)
{
	return fake_pppd_open_slave(irnet_ep_pty_path(e));
}

static void on_event_a(void *ctx, const struct irlap_event *ev)
{
	struct rig *r = ctx;
	if (r->ep[0])
		irnet_ep_lap_event(r->ep[0], ev);
}

static void on_tick(struct eloop *loop, void *ctx)
{
	struct rig *r = ctx;
	if (r->b_frames && r->ep[1] && irnet_ep_state(r->ep[1]) == IRNET_EP_UP) {
		fake_pppd_queue(&r->pp[1], r->b_frames, r->nb_frames);
		fake_pppd_write(&r->pp[1]);
		r->b_frames = NULL;
	}
	if (r->done(r)) {
		eloop_terminate(loop);
		return;
	}
	eloop_timer_arm_in(loop, &r->tick, 10000);
}

static void on_limit(struct eloop *loop, void *ctx)
{
	struct rig *r = ctx;
	r->timed_out = true;
	for (int i = 0; i < 2; i++)
		print_message("timeout: %c: state %s got %zu/%zu\n", 'a' + i,
			      r->ep[i] ? irnet_ep_state_name(irnet_ep_state(r->ep[i])) : "-",
			      r->pp[i].got, r->pp[i].nexpect);
	eloop_terminate(loop);
}

static void rig_open(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	stack_pair_open(&r->pair, on_event_a, r);
	r->loop = r->pair.loop;
	snprintf(r->dir, sizeof(r->dir), "/tmp/irnet_ep.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	irnet_ep_timing_defaults(&r->tm);
	r->tm.watch_us = 20000;
	r->tm.retry_us = 200000;
	r->tm.discoveries = 2;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pipe2(r->status[i], O_CLOEXEC | O_NONBLOCK), 0);
	}
	/* a's pppd sends with ACCM 0 (control characters raw, as after LCP
	 * agreed on it), b's escapes every control character */
	fake_pppd_setup(&r->pp[0], r->loop, 0);
	fake_pppd_setup(&r->pp[1], r->loop, PPP_HDLC_ACCM_ALL);
	eloop_timer_init(&r->tick, on_tick, r);
	eloop_timer_init(&r->limit, on_limit, r);
}

static void endpoint_config(struct rig *r, struct irdad_endpoint *ep, int side,
			    enum irdad_role role)
{
	memset(ep, 0, sizeof(*ep));
	ep->service = IRDAD_SVC_IRNET;
	snprintf(ep->name, sizeof(ep->name), "%c", 'a' + side);
	ep->role = role;
	snprintf(ep->pty_link, sizeof(ep->pty_link), "%s/%c/link", r->dir, 'a' + side);
}

static struct irnet_ep *open_pty_ep(struct rig *r, int side, const struct irdad_endpoint *ep)
{
	struct irnet_ep *e;
	char err[256];

	if (irnet_ep_open_pty(ep, test_log(), &e, err, sizeof(err)) < 0)
		fail_msg("irnet_ep_open_pty: %s", err);
	irnet_ep_set_status_fd(e, r->status[side][1]);
	irnet_ep_set_timing(e, &r->tm);
	return e;
}

static void on_ended(void *ctx, struct irnet_ep *e)
{
	struct rig *r = ctx;
	r->ended[e == r->ep[0] ? 0 : 1] = true;
}

static void start(struct rig *r, int side)
{
	char err[256];
	if (irnet_ep_start(r->ep[side], r->loop, r->pair.e[side].stk, err, sizeof(err)) < 0)
		fail_msg("irnet_ep_start: %s", err);
}

static void run(struct rig *r, bool (*done)(struct rig *r), uint64_t limit_us)
{
	r->done = done;
	r->t0 = eloop_now_us();
	eloop_timer_arm_in(r->loop, &r->tick, 10000);
	eloop_timer_arm_in(r->loop, &r->limit, limit_us);
	assert_int_equal(eloop_run(r->loop), 0);
	eloop_timer_cancel(r->loop, &r->tick);
	eloop_timer_cancel(r->loop, &r->limit);
}

/* The status lines written so far on side's descriptor. */
static void status_text(struct rig *r, int side, char *buf, size_t cap)
{
	ssize_t n = read(r->status[side][0], buf, cap - 1);
	buf[n > 0 ? n : 0] = '\0';
}

static uint32_t addr_of(struct rig *r, int side)
{
	return irlap_get_daddr(station_irlap(stack_station(r->pair.e[side].stk)));
}

static void rig_close(struct rig *r)
{
	char cmd[256];

	for (int i = 0; i < 2; i++) {
		irnet_ep_free(r->ep[i]);
		r->ep[i] = NULL;
		fake_pppd_free(&r->pp[i]);
		close(r->status[i][0]);
		close(r->status[i][1]);
	}
	stack_pair_close(&r->pair);
	/* the endpoints removed their links at free: the directories are
	 * empty, or rmdir fails */
	snprintf(cmd, sizeof(cmd), "rmdir %s/a %s/b 2>/dev/null; rmdir %s", r->dir, r->dir,
		 r->dir);
	assert_int_equal(system(cmd), 0);
}

/* --- frames both ways over ptys ------------------------------------------ */

/* With IRNET_EP_RECORD=DIR (tests/irnet-ep-pppdump.tap), what each
 * "pppd" reads goes to DIR/SIDE.rec for pppdump, and the frames it must
 * find, in hex one a line, to DIR/SIDE.want. */
static void record_open(struct fake_pppd *p, char side)
{
	const char *dir = getenv("IRNET_EP_RECORD");
	char path[512];
	FILE *want;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%c.rec", dir, side);
	p->rec = fopen(path, "wb");
	assert_non_null(p->rec);
	snprintf(path, sizeof(path), "%s/%c.want", dir, side);
	want = fopen(path, "w");
	assert_non_null(want);
	for (size_t i = 0; i < p->nexpect; i++)
		for (size_t k = 0; k < p->expect[i].len; k++)
			fprintf(want, k + 1 < p->expect[i].len ? "%02x " : "%02x\n",
				p->expect[i].data[k]);
	assert_int_equal(fclose(want), 0);
}

static void record_close(struct fake_pppd *p)
{
	if (p->rec)
		assert_int_equal(fclose(p->rec), 0);
	p->rec = NULL;
}

static bool both_received(struct rig *r)
{
	return r->pp[0].got >= r->pp[0].nexpect && r->pp[1].got >= r->pp[1].nexpect;
}

static size_t good_only(const struct fake_frame *all, size_t n, struct fake_frame *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!all[i].bad)
			out[k++] = all[i];
	return k;
}

static void pty_pair(struct rig *r, bool reconnect)
{
	struct irdad_endpoint ep;

	endpoint_config(r, &ep, 1, IRDAD_ROLE_LISTEN);
	r->ep[1] = open_pty_ep(r, 1, &ep);
	endpoint_config(r, &ep, 0, IRDAD_ROLE_CALL);
	ep.reconnect = reconnect;
	r->ep[0] = open_pty_ep(r, 0, &ep);
}

static void frames_both_ways(void **state)
{
	struct rig r;
	struct fake_frame fa[MAX_FRAMES], fb[MAX_FRAMES], ga[MAX_FRAMES], gb[MAX_FRAMES];
	size_t na = make_frames(fa, 28, true, 0), nb = make_frames(fb, 20, false, 0);
	char text[512], want[128];
	struct stat st;
	(void)state;

	rig_open(&r);
	pty_pair(&r, false);
	/* the links lead to the slaves */
	snprintf(want, sizeof(want), "%s/a/link", r.dir);
	assert_int_equal(stat(want, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	r.pp[1].expect = ga;
	r.pp[1].nexpect = good_only(fa, na, ga);
	r.pp[0].expect = gb;
	r.pp[0].nexpect = good_only(fb, nb, gb);
	fake_pppd_queue(&r.pp[0], fa, na);
	r.b_frames = fb;
	r.nb_frames = nb;
	record_open(&r.pp[0], 'a');
	record_open(&r.pp[1], 'b');
	fake_pppd_start(&r.pp[1], open_slave_of(r.ep[1]), true);
	fake_pppd_start(&r.pp[0], open_slave_of(r.ep[0]), true);
	start(&r, 1);
	start(&r, 0);
	run(&r, both_received, 30000000);
	record_close(&r.pp[0]);
	record_close(&r.pp[1]);
	print_message("%zu + %zu frames in %.1f s\n", r.pp[1].got, r.pp[0].got,
		      (double)(eloop_now_us() - r.t0) / 1e6);
	assert_false(r.timed_out);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(r.pp[i].got, r.pp[i].nexpect);
		assert_false(r.pp[i].mismatch);
		/* the endpoint escapes every control character towards pppd */
		assert_int_equal(r.pp[i].raw_controls, 0);
		assert_int_equal(irnet_ep_state(r.ep[i]), IRNET_EP_UP);
	}
	const struct ppp_hdlc_rx_counters *hc = irnet_ep_hdlc_counters(r.ep[0]);
	assert_int_equal(hc->fcs_errors, na - r.pp[1].nexpect);
	assert_int_equal(hc->frames, r.pp[1].nexpect);
	const struct irnet_ep_stats *sa = irnet_ep_get_stats(r.ep[0]);
	const struct irnet_ep_stats *sb = irnet_ep_get_stats(r.ep[1]);
	assert_int_equal(sa->frames_to_peer, r.pp[1].nexpect);
	assert_int_equal(sb->frames_to_peer, r.pp[0].nexpect);
	assert_int_equal(sa->frames_from_peer, r.pp[0].nexpect);
	assert_int_equal(irnet_ep_hdlc_counters(r.ep[1])->fcs_errors, 0);
	/* a's pppd wrote everything at once: TinyTP's queue stopped the reads */
	print_message("a: %llu stalls on TinyTP\n", (unsigned long long)sa->stalls_peer);
	assert_true(sa->stalls_peer > 0);
	assert_int_equal(irnet_ep_peer(r.ep[0]), addr_of(&r, 1));
	status_text(&r, 0, text, sizeof(text));
	snprintf(want, sizeof(want), "up 0x%08x \"beta\"\n", (unsigned)addr_of(&r, 1));
	assert_string_equal(text, want);
	status_text(&r, 1, text, sizeof(text));
	assert_int_equal(strncmp(text, "up 0x", 5), 0);
	assert_int_equal(strlen(text), strlen("up 0x12345678 \"\"\n"));
	rig_close(&r);
	free_frames(fa, na);
	free_frames(fb, nb);
}

/* --- a pppd that does not read ------------------------------------------------- */

static bool b_received(struct rig *r)
{
	struct fake_pppd *p = &r->pp[1];
	/* b's pppd starts reading once its endpoint stopped taking SDUs */
	if (!p->reading && irnet_ep_get_stats(r->ep[1])->stalls_local > 0 &&
	    irnet_ep_get_stats(r->ep[0])->stalls_peer > 0)
		fake_pppd_read_on(p);
	return p->got >= p->nexpect;
}

static void slow_pppd_stops_credit(void **state)
{
	struct rig r;
	struct fake_frame fa[MAX_FRAMES];
	size_t na = make_frames(fa, 40, false, 1000);
	(void)state;

	rig_open(&r);
	pty_pair(&r, false);
	r.pp[1].expect = fa;
	r.pp[1].nexpect = na;
	fake_pppd_queue(&r.pp[0], fa, na);
	fake_pppd_start(&r.pp[1], open_slave_of(r.ep[1]), false);
	fake_pppd_start(&r.pp[0], open_slave_of(r.ep[0]), true);
	start(&r, 1);
	start(&r, 0);
	run(&r, b_received, 30000000);
	assert_false(r.timed_out);
	const struct irnet_ep_stats *sb = irnet_ep_get_stats(r.ep[1]);
	print_message("b: %llu stalls on pppd, a: %llu on TinyTP\n",
		      (unsigned long long)sb->stalls_local,
		      (unsigned long long)irnet_ep_get_stats(r.ep[0])->stalls_peer);
	assert_true(sb->stalls_local > 0);
	assert_int_equal(r.pp[1].got, na);
	assert_false(r.pp[1].mismatch);
	rig_close(&r);
	free_frames(fa, na);
}

/* --- stdio ------------------------------------------------------------------------- */

static struct irnet_ep *open_stdio_ep(struct rig *r, const struct irdad_endpoint *ep, int *peer_fd)
{
	struct irnet_ep *e;
	char err[256];
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	if (irnet_ep_open_fds(ep, sv[0], sv[0], test_log(), &e, err, sizeof(err)) < 0)
		fail_msg("irnet_ep_open_fds: %s", err);
	irnet_ep_set_status_fd(e, r->status[0][1]);
	irnet_ep_set_timing(e, &r->tm);
	irnet_ep_set_ended(e, on_ended, r);
	assert_int_equal(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
	*peer_fd = sv[1];
	return e;
}

static bool stdio_exchanged(struct rig *r)
{
	return both_received(r);
}

static bool a_ended_b_listening(struct rig *r)
{
	return r->ended[0] && irnet_ep_state(r->ep[1]) == IRNET_EP_LISTENING;
}

static void stdio_ends_with_eof(void **state)
{
	struct rig r;
	struct irdad_endpoint ep;
	struct fake_frame fa[MAX_FRAMES], fb[MAX_FRAMES];
	size_t na = make_frames(fa, 8, false, 0), nb = make_frames(fb, 8, false, 0);
	char text[512], want[256];
	int fd;
	(void)state;

	rig_open(&r);
	endpoint_config(&r, &ep, 1, IRDAD_ROLE_LISTEN);
	r.ep[1] = open_pty_ep(&r, 1, &ep);
	endpoint_config(&r, &ep, 0, IRDAD_ROLE_CALL);
	ep.pty_link[0] = '\0';
	r.ep[0] = open_stdio_ep(&r, &ep, &fd);
	assert_string_equal(irnet_ep_pty_path(r.ep[0]), "");
	r.pp[1].expect = fa;
	r.pp[1].nexpect = na;
	r.pp[0].expect = fb;
	r.pp[0].nexpect = nb;
	fake_pppd_queue(&r.pp[0], fa, na);
	r.b_frames = fb;
	r.nb_frames = nb;
	fake_pppd_start(&r.pp[1], open_slave_of(r.ep[1]), true);
	fake_pppd_start(&r.pp[0], fd, true);
	start(&r, 1);
	start(&r, 0);
	run(&r, stdio_exchanged, 30000000);
	assert_false(r.timed_out);
	assert_false(r.pp[0].mismatch);
	assert_false(r.pp[1].mismatch);
	/* pppd (the test) hangs up: the endpoint ends, the listener listens */
	eloop_remove_reader(r.loop, fd);
	close(fd);
	r.pp[0].fd = -1;
	run(&r, a_ended_b_listening, 10000000);
	assert_false(r.timed_out);
	assert_int_equal(irnet_ep_state(r.ep[0]), IRNET_EP_ENDED);
	status_text(&r, 0, text, sizeof(text));
	snprintf(want, sizeof(want), "up 0x%08x \"beta\"\ndown closed\n", (unsigned)addr_of(&r, 1));
	assert_string_equal(text, want);
	status_text(&r, 1, text, sizeof(text));
	assert_non_null(strstr(text, "\ndown closed-by-peer\n"));
	rig_close(&r);
	free_frames(fa, na);
	free_frames(fb, nb);
}

/* --- calls that cannot be made --------------------------------------------------- */

static bool a_ended(struct rig *r)
{
	return r->ended[0];
}

static void failed_call(struct irdad_peer peer, bool b_has_pppd, const char *line)
{
	struct rig r;
	struct irdad_endpoint ep;
	char text[256];
	int fd, slave = -1;

	rig_open(&r);
	endpoint_config(&r, &ep, 1, IRDAD_ROLE_LISTEN);
	r.ep[1] = open_pty_ep(&r, 1, &ep);
	endpoint_config(&r, &ep, 0, IRDAD_ROLE_CALL);
	ep.peer = peer;
	r.ep[0] = open_stdio_ep(&r, &ep, &fd);
	if (b_has_pppd)
		slave = open_slave_of(r.ep[1]);
	start(&r, 1);
	start(&r, 0);
	run(&r, a_ended, 30000000);
	assert_false(r.timed_out);
	status_text(&r, 0, text, sizeof(text));
	assert_string_equal(text, line);
	assert_int_equal(irnet_ep_get_stats(r.ep[0])->failures, 1);
	print_message("\"%.*s\" after %.1f s\n", (int)strlen(line) - 1, line,
		      (double)(eloop_now_us() - r.t0) / 1e6);
	close(fd);
	if (slave >= 0)
		close(slave);
	rig_close(&r);
}

/* beta is in range, but no pppd waits on its pty: IrNetv1 is not there */
static void not_offered(void **state)
{
	(void)state;
	failed_call((struct irdad_peer){ .kind = IRDAD_PEER_ANY }, false, "failed not-offered\n");
}

static void no_peer(void **state)
{
	(void)state;
	failed_call((struct irdad_peer){ .kind = IRDAD_PEER_ADDRESS, .address = 0x12345678 }, true,
		    "failed no-peer\n");
}

static void by_nickname(void **state)
{
	struct irdad_peer p = { .kind = IRDAD_PEER_NICKNAME };
	(void)state;
	snprintf(p.nickname, sizeof(p.nickname), "gamma");
	failed_call(p, true, "failed no-peer\n");
}

/* --- reconnect yes ------------------------------------------------------------------- */

static bool a_up(struct rig *r)
{
	return irnet_ep_state(r->ep[0]) == IRNET_EP_UP;
}

static bool a_down(struct rig *r)
{
	return irnet_ep_state(r->ep[0]) != IRNET_EP_UP;
}

static void reconnect(void **state)
{
	struct rig r;
	struct irdad_endpoint ep;
	struct fake_frame fa[MAX_FRAMES];
	size_t na = make_frames(fa, 4, false, 0);
	char text[512], want[256];
	(void)state;

	rig_open(&r);
	pty_pair(&r, true);
	int slave_b = open_slave_of(r.ep[1]);
	fake_pppd_start(&r.pp[0], open_slave_of(r.ep[0]), true);
	start(&r, 1);
	start(&r, 0);
	run(&r, a_up, 20000000);
	assert_false(r.timed_out);
	/* b's endpoint goes away (irdad reloaded without it, say) */
	irnet_ep_free(r.ep[1]);
	close(slave_b);
	run(&r, a_down, 10000000);
	assert_false(r.timed_out);
	/* and comes back: a calls again by itself, on the same pty */
	endpoint_config(&r, &ep, 1, IRDAD_ROLE_LISTEN);
	r.ep[1] = open_pty_ep(&r, 1, &ep);
	r.pp[1].expect = fa;
	r.pp[1].nexpect = na;
	fake_pppd_start(&r.pp[1], open_slave_of(r.ep[1]), true);
	start(&r, 1);
	run(&r, a_up, 20000000);
	assert_false(r.timed_out);
	fake_pppd_queue(&r.pp[0], fa, na);
	fake_pppd_write(&r.pp[0]);
	run(&r, b_received, 20000000);
	assert_false(r.timed_out);
	assert_false(r.pp[1].mismatch);
	status_text(&r, 0, text, sizeof(text));
	snprintf(want, sizeof(want), "up 0x%08x \"beta\"\ndown closed-by-peer\nup 0x%08x \"beta\"\n",
		 (unsigned)addr_of(&r, 1), (unsigned)addr_of(&r, 1));
	assert_string_equal(text, want);
	assert_int_equal(irnet_ep_get_stats(r.ep[0])->connects, 2);
	rig_close(&r);
	free_frames(fa, na);
}


/* --- pppd leaves and comes back ---------------------------------------------- */

static bool a_waiting_b_listening(struct rig *r)
{
	return irnet_ep_state(r->ep[0]) == IRNET_EP_WAITING &&
	       irnet_ep_state(r->ep[1]) == IRNET_EP_LISTENING;
}

/* The caller's pppd closes the pty: the connection is closed (the
 * listener hears it), the caller waits; a new pppd on the same link
 * makes it call again. */
static void pppd_leaves(void **state)
{
	struct rig r;
	char text[512], want[256];
	(void)state;

	rig_open(&r);
	pty_pair(&r, false);
	int slave_b = open_slave_of(r.ep[1]);
	int slave_a = open_slave_of(r.ep[0]);
	start(&r, 1);
	start(&r, 0);
	run(&r, a_up, 20000000);
	assert_false(r.timed_out);
	close(slave_a);
	run(&r, a_waiting_b_listening, 10000000);
	assert_false(r.timed_out);
	/* pppd comes back through the link */
	snprintf(want, sizeof(want), "%s/a/link", r.dir);
	slave_a = fake_pppd_open_slave(want);
	run(&r, a_up, 20000000);
	assert_false(r.timed_out);
	status_text(&r, 0, text, sizeof(text));
	snprintf(want, sizeof(want), "up 0x%08x \"beta\"\ndown closed\nup 0x%08x \"beta\"\n",
		 (unsigned)addr_of(&r, 1), (unsigned)addr_of(&r, 1));
	assert_string_equal(text, want);
	status_text(&r, 1, text, sizeof(text));
	assert_non_null(strstr(text, "\ndown closed-by-peer\nup 0x"));
	close(slave_a);
	close(slave_b);
	rig_close(&r);
}

/* The port fails while a stdio caller looks for its peer. */
static void port_fails(void **state)
{
	struct rig r;
	struct irdad_endpoint ep;
	char text[256];
	int fd;
	(void)state;

	rig_open(&r);
	endpoint_config(&r, &ep, 0, IRDAD_ROLE_CALL);
	r.ep[0] = open_stdio_ep(&r, &ep, &fd);
	start(&r, 0);
	assert_int_equal(irnet_ep_state(r.ep[0]), IRNET_EP_FINDING);
	irnet_ep_port_failed(r.ep[0]);
	run(&r, a_ended, 5000000);
	assert_false(r.timed_out);
	status_text(&r, 0, text, sizeof(text));
	assert_string_equal(text, "failed dongle\n");
	close(fd);
	rig_close(&r);
}

/* --- the link's rules --------------------------------------------------------------- */

static void link_rules(void **state)
{
	struct irdad_endpoint ep = { .service = IRDAD_SVC_IRNET, .name = "x" };
	char dir[] = "/tmp/irnet_ep_link.XXXXXX", err[256], target[64];
	struct irnet_ep *e;
	struct stat st;
	int fd;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(ep.pty_link, sizeof(ep.pty_link), "%s/x", dir);
	/* a regular file is never replaced */
	fd = open(ep.pty_link, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(irnet_ep_open_pty(&ep, NULL, &e, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "is not a symbolic link; not replaced"));
	assert_non_null(strstr(err, ep.pty_link));
	assert_int_equal(lstat(ep.pty_link, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(unlink(ep.pty_link), 0);
	/* a stale link is */
	assert_int_equal(symlink("/nonexistent/pts", ep.pty_link), 0);
	assert_int_equal(irnet_ep_open_pty(&ep, NULL, &e, err, sizeof(err)), 0);
	ssize_t n = readlink(ep.pty_link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, irnet_ep_pty_path(e));
	/* and ours is removed at free */
	irnet_ep_free(e);
	assert_int_equal(lstat(ep.pty_link, &st), -1);
	/* a relative path */
	snprintf(ep.pty_link, sizeof(ep.pty_link), "irnet/x");
	assert_int_equal(irnet_ep_open_pty(&ep, NULL, &e, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "irnet/x: not an absolute path to a file");
	/* not an irnet endpoint */
	ep.service = IRDAD_SVC_IRCOMM;
	assert_int_equal(irnet_ep_open_pty(&ep, NULL, &e, err, sizeof(err)), -EINVAL);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frames_both_ways),
		cmocka_unit_test(slow_pppd_stops_credit),
		cmocka_unit_test(stdio_ends_with_eof),
		cmocka_unit_test(not_offered),
		cmocka_unit_test(no_peer),
		cmocka_unit_test(by_nickname),
		cmocka_unit_test(reconnect),
		cmocka_unit_test(pppd_leaves),
		cmocka_unit_test(port_fails),
		cmocka_unit_test(link_rules),
	};
	const struct CMUnitTest record[] = { cmocka_unit_test(frames_both_ways) };

	/* IRNET_EP_ONLY=NAME runs the cases matching NAME (a cmocka
	 * pattern), e.g. to repeat one under load */
	if (getenv("IRNET_EP_ONLY"))
		cmocka_set_test_filter(getenv("IRNET_EP_ONLY"));
	/* the pppdump check needs the first test alone */
	if (getenv("IRNET_EP_RECORD"))
		return cmocka_run_group_tests_name("irnet_ep_record", record, NULL, NULL);
	return cmocka_run_group_tests_name("irnet_ep", tests, NULL, NULL);
}
