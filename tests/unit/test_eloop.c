/*
 * test_eloop.c: the event loop: timer order, cancelling from callbacks,
 * fd readiness on a pipe, signals through the signalfd, termination.
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
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "eloop.h"

/* A record of which callbacks ran, in order. */
struct trace {
	char seen[32];
	size_t n;
	struct eloop_timer *victim;   /* a timer to cancel from a callback */
	int fd;
};

static void note(struct trace *tr, char c)
{
	if (tr->n < sizeof(tr->seen) - 1)
		tr->seen[tr->n++] = c;
}

struct tagged {
	struct trace *tr;
	char tag;
	struct eloop_timer timer;
};

static void tag_fired(struct eloop *loop, void *ctx)
{
	struct tagged *t = ctx;
	note(t->tr, t->tag);
}

static void run_until_idle(struct eloop *loop)
{
	assert_int_equal(eloop_run(loop), 0);
}

static void timers_fire_in_deadline_order(void **state)
{
	struct eloop *loop = eloop_new(NULL);
	assert_non_null(loop);
	struct trace tr = { 0 };
	struct tagged t[5];
	/* armed out of order; d and e share a deadline and keep arming order */
	const char tags[] = "cadeb";
	const uint64_t delays[] = { 3000, 1000, 4000, 4000, 2000 };
	uint64_t now = eloop_now_us();
	for (int i = 0; i < 5; i++) {
		t[i].tr = &tr;
		t[i].tag = tags[i];
		eloop_timer_init(&t[i].timer, tag_fired, &t[i]);
		eloop_timer_arm_at(loop, &t[i].timer, now + delays[i]);
	}
	run_until_idle(loop);
	assert_string_equal(tr.seen, "abcde");
	/* not before their deadline */
	assert_true(eloop_now_us() >= now + 4000);
	for (int i = 0; i < 5; i++)
		assert_false(eloop_timer_pending(&t[i].timer));
	eloop_free(loop);
}

static void rearming_moves_a_timer(void **state)
{
	struct eloop *loop = eloop_new(NULL);
	struct trace tr = { 0 };
	struct tagged a = { .tr = &tr, .tag = 'a' }, b = { .tr = &tr, .tag = 'b' };
	eloop_timer_init(&a.timer, tag_fired, &a);
	eloop_timer_init(&b.timer, tag_fired, &b);
	eloop_timer_arm_in(loop, &a.timer, 500);
	eloop_timer_arm_in(loop, &b.timer, 2000);
	eloop_timer_arm_in(loop, &a.timer, 4000);   /* moved behind b */
	run_until_idle(loop);
	assert_string_equal(tr.seen, "ba");
	eloop_free(loop);
}

static void cancel_victim(struct eloop *loop, void *ctx)
{
	struct tagged *t = ctx;
	note(t->tr, t->tag);
	eloop_timer_cancel(loop, t->tr->victim);
}

static void cancel_self_then_free(struct eloop *loop, void *ctx)
{
	struct tagged *t = ctx;
	note(t->tr, t->tag);
	/* cancelling a timer that just fired is a no-op; freeing it is
	 * allowed: the loop must not touch it again (ASan checks) */
	eloop_timer_cancel(loop, &t->timer);
	free(t);
}

static void cancel_inside_a_callback(void **state)
{
	struct eloop *loop = eloop_new(NULL);
	struct trace tr = { 0 };
	struct tagged a = { .tr = &tr, .tag = 'a' };
	struct tagged b = { .tr = &tr, .tag = 'b' };
	struct tagged c = { .tr = &tr, .tag = 'c' };
	struct tagged *d = calloc(1, sizeof(*d));
	assert_non_null(d);
	d->tr = &tr;
	d->tag = 'd';
	eloop_timer_init(&a.timer, cancel_victim, &a);
	eloop_timer_init(&b.timer, tag_fired, &b);
	eloop_timer_init(&c.timer, tag_fired, &c);
	eloop_timer_init(&d->timer, cancel_self_then_free, d);
	tr.victim = &b.timer;
	/* a and b are due at the same time: a runs first and cancels b even
	 * though b is already due in this pass */
	uint64_t at = eloop_now_us() + 1000;
	eloop_timer_arm_at(loop, &a.timer, at);
	eloop_timer_arm_at(loop, &b.timer, at);
	eloop_timer_arm_at(loop, &d->timer, at + 500);
	eloop_timer_arm_at(loop, &c.timer, at + 1000);
	run_until_idle(loop);
	assert_string_equal(tr.seen, "adc");
	assert_false(eloop_timer_pending(&b.timer));
	eloop_free(loop);
}

struct rearm {
	struct eloop_timer timer;
	int count;
	int fd_reads;
	int fds[2];
};

static void rearm_now(struct eloop *loop, void *ctx)
{
	struct rearm *r = ctx;
	if (++r->count < 3)
		eloop_timer_arm_at(loop, &r->timer, 0);   /* already past */
}

static void count_read(struct eloop *loop, int fd, void *ctx)
{
	struct rearm *r = ctx;
	char c;
	assert_int_equal(read(fd, &c, 1), 1);
	r->fd_reads++;
	eloop_remove_reader(loop, fd);
}

static void a_past_deadline_rearm_waits_for_the_next_pass(void **state)
{
	struct eloop *loop = eloop_new(NULL);
	struct rearm r = { 0 };
	assert_int_equal(pipe(r.fds), 0);
	assert_int_equal(write(r.fds[1], "x", 1), 1);
	assert_int_equal(eloop_add_reader(loop, r.fds[0], count_read, &r), 0);
	eloop_timer_init(&r.timer, rearm_now, &r);
	eloop_timer_arm_at(loop, &r.timer, 0);
	/* first pass: the timer runs once (its re-arm waits), the fd is read */
	assert_int_equal(eloop_run_once(loop, 0), 2);
	assert_int_equal(r.count, 1);
	assert_int_equal(r.fd_reads, 1);
	assert_int_equal(eloop_run_once(loop, 0), 1);
	assert_int_equal(r.count, 2);
	run_until_idle(loop);
	assert_int_equal(r.count, 3);
	close(r.fds[0]);
	close(r.fds[1]);
	eloop_free(loop);
}

struct piperw {
	int fds[2];
	char got[16];
	size_t ngot;
	int writes;
	int eof;
};

static void pipe_readable(struct eloop *loop, int fd, void *ctx)
{
	struct piperw *p = ctx;
	ssize_t n = read(fd, p->got + p->ngot, sizeof(p->got) - 1 - p->ngot);
	if (n > 0) {
		p->ngot += (size_t)n;
		return;
	}
	p->eof = 1;
	assert_int_equal(eloop_remove_reader(loop, fd), 0);
}

static void pipe_writable(struct eloop *loop, int fd, void *ctx)
{
	struct piperw *p = ctx;
	static const char msg[] = "hello";
	assert_int_equal(write(fd, msg + p->writes, 1), 1);
	if (++p->writes == 5) {
		assert_int_equal(eloop_remove_writer(loop, fd), 0);
		close(fd);   /* the reader then sees the end */
	}
}

static void fd_readiness_on_a_pipe(void **state)
{
	struct eloop *loop = eloop_new(NULL);
	struct piperw p = { 0 };
	assert_int_equal(pipe(p.fds), 0);
	/* nothing to read yet: one bounded iteration runs nothing */
	assert_int_equal(eloop_add_reader(loop, p.fds[0], pipe_readable, &p), 0);
	assert_int_equal(eloop_run_once(loop, 1000), 0);
	assert_int_equal(p.ngot, 0);
	assert_int_equal(eloop_add_writer(loop, p.fds[1], pipe_writable, &p), 0);
	run_until_idle(loop);
	assert_string_equal(p.got, "hello");
	assert_int_equal(p.writes, 5);
	assert_int_equal(p.eof, 1);
	close(p.fds[0]);
	eloop_free(loop);
}

static void bad_registrations_are_refused(void **state)
{
	struct eloop *loop = eloop_new(NULL);
	assert_int_equal(eloop_add_reader(loop, -1, pipe_readable, NULL), -EINVAL);
	assert_int_equal(eloop_remove_reader(loop, 5), -ENOENT);
	assert_int_equal(eloop_remove_writer(loop, 5), -ENOENT);
	assert_int_equal(eloop_add_signal(loop, SIGKILL, NULL, NULL), -EINVAL);
	assert_int_equal(eloop_remove_signal(loop, SIGUSR2), -ENOENT);
	/* nothing registered: run returns at once */
	assert_int_equal(eloop_run(loop), 0);
	eloop_free(loop);
}

struct sigseen {
	int signo;
	int count;
	uint64_t ran_at;
};

static void on_signal(struct eloop *loop, int signo, void *ctx)
{
	struct sigseen *s = ctx;
	s->signo = signo;
	s->count++;
	eloop_terminate(loop);
}

static bool blocked(int signo)
{
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, signo) == 1;
}

static void a_raised_signal_reaches_its_callback(void **state)
{
	struct eloop *loop = eloop_new(NULL);
	struct sigseen s = { 0 };
	assert_false(blocked(SIGUSR1));
	assert_int_equal(eloop_add_signal(loop, SIGUSR1, on_signal, &s), 0);
	assert_true(blocked(SIGUSR1));
	/* delivered as a pending signal, read from the loop: the callback
	 * has not run when raise returns */
	assert_int_equal(raise(SIGUSR1), 0);
	assert_int_equal(s.count, 0);
	run_until_idle(loop);
	assert_int_equal(s.count, 1);
	assert_int_equal(s.signo, SIGUSR1);
	assert_int_equal(eloop_remove_signal(loop, SIGUSR1), 0);
	assert_false(blocked(SIGUSR1));
	eloop_free(loop);
}

static bool ignored(int signo)
{
	struct sigaction sa;
	assert_int_equal(sigaction(signo, NULL, &sa), 0);
	return sa.sa_handler == SIG_IGN;
}

/* A process started with the signal ignored (a shell script's background
 * job gets SIGINT so) still hears it through the loop, and gets its
 * disposition back when the loop lets go. */
static void an_inherited_sig_ign_is_undone(void **state)
{
	struct eloop *loop = eloop_new(NULL);
	struct sigseen s = { 0 };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	(void)state;
	sigemptyset(&ign.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &ign, NULL), 0);
	assert_int_equal(eloop_add_signal(loop, SIGUSR1, on_signal, &s), 0);
	assert_false(ignored(SIGUSR1));
	assert_true(blocked(SIGUSR1));
	assert_int_equal(raise(SIGUSR1), 0);
	run_until_idle(loop);
	assert_int_equal(s.count, 1);
	assert_int_equal(eloop_remove_signal(loop, SIGUSR1), 0);
	assert_true(ignored(SIGUSR1));
	assert_false(blocked(SIGUSR1));
	/* not ignored before: left alone */
	assert_int_equal(eloop_add_signal(loop, SIGUSR2, on_signal, &s), 0);
	assert_false(ignored(SIGUSR2));
	eloop_free(loop);
	assert_false(ignored(SIGUSR2));
	ign.sa_handler = SIG_DFL;
	assert_int_equal(sigaction(SIGUSR1, &ign, NULL), 0);
}

static void two_loops_keep_their_own_signals(void **state)
{
	struct eloop *a = eloop_new(NULL), *b = eloop_new(NULL);
	struct sigseen sa = { 0 }, sb = { 0 };
	assert_int_equal(eloop_add_signal(a, SIGUSR1, on_signal, &sa), 0);
	assert_int_equal(eloop_add_signal(b, SIGUSR2, on_signal, &sb), 0);
	assert_int_equal(raise(SIGUSR2), 0);
	assert_int_equal(eloop_run_once(a, 0), 0);
	assert_int_equal(sa.count, 0);
	run_until_idle(b);
	assert_int_equal(sb.count, 1);
	assert_int_equal(sb.signo, SIGUSR2);
	eloop_free(a);   /* frees its registrations: the signal is unblocked */
	assert_false(blocked(SIGUSR1));
	eloop_free(b);
	assert_false(blocked(SIGUSR2));
}

struct stopper {
	struct eloop_timer stop, later;
	int later_ran;
};

static void stop_now(struct eloop *loop, void *ctx)
{
	eloop_terminate(loop);
	assert_true(eloop_terminated(loop));
}

static void later_fired(struct eloop *loop, void *ctx)
{
	struct stopper *s = ctx;
	s->later_ran++;
}

static void terminate_stops_the_loop(void **state)
{
	struct eloop *loop = eloop_new(NULL);
	struct stopper s = { 0 };
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	/* a registered reader that never becomes ready: only terminate can
	 * end eloop_run */
	assert_int_equal(eloop_add_reader(loop, fds[0], pipe_readable, NULL), 0);
	eloop_timer_init(&s.stop, stop_now, &s);
	eloop_timer_init(&s.later, later_fired, &s);
	uint64_t at = eloop_now_us() + 2000;
	eloop_timer_arm_at(loop, &s.stop, at);
	eloop_timer_arm_at(loop, &s.later, at);   /* same pass, after stop */
	assert_int_equal(eloop_run(loop), 0);
	assert_int_equal(s.later_ran, 0);
	assert_true(eloop_timer_pending(&s.later));
	assert_false(eloop_terminated(loop));
	/* the loop can run again; the left-over timer then fires */
	eloop_timer_arm_in(loop, &s.stop, 3000);
	assert_int_equal(eloop_run(loop), 0);
	assert_int_equal(s.later_ran, 1);
	close(fds[0]);
	close(fds[1]);
	eloop_free(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(timers_fire_in_deadline_order),
		cmocka_unit_test(rearming_moves_a_timer),
		cmocka_unit_test(cancel_inside_a_callback),
		cmocka_unit_test(a_past_deadline_rearm_waits_for_the_next_pass),
		cmocka_unit_test(fd_readiness_on_a_pipe),
		cmocka_unit_test(bad_registrations_are_refused),
		cmocka_unit_test(a_raised_signal_reaches_its_callback),
		cmocka_unit_test(two_loops_keep_their_own_signals),
		cmocka_unit_test(an_inherited_sig_ign_is_undone),
		cmocka_unit_test(terminate_stops_the_loop),
	};
	return cmocka_run_group_tests_name("eloop", tests, NULL, NULL);
}
