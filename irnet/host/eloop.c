/*
 * eloop.c: the event loop.  See eloop.h.
 *
 * fds live in a small array searched by fd number (a host has a handful:
 * the serial port, a control socket, the signalfd); timers in a list kept
 * in deadline order (also a handful: IrLAP's deadline, a few host
 * timeouts).  ppoll gives the wait microsecond resolution, which matters
 * for IrLAP's turnaround times.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "eloop.h"

#include "array.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

struct fd_entry {
	int fd;
	eloop_fd_fn read_fn, write_fn;
	void *read_ctx, *write_ctx;
	/* registration sequence numbers: a callback registered after the
	 * poll set was built must not see that poll's results */
	uint64_t read_seq, write_seq;
};

struct signal_entry {
	eloop_signal_fn fn;
	void *ctx;
	bool was_blocked;
	bool was_ignored;   /* SIG_IGN before we took it: put back on removal */
};

struct eloop {
	const struct logger *log;
	struct fd_entry *fds;
	size_t nfds, fds_cap;
	struct pollfd *pfds;
	size_t pfds_cap;
	struct eloop_timer *timers;
	uint64_t seq;
	bool terminate;
	int sigfd;
	sigset_t sigmask;
	struct signal_entry signals[_NSIG];
};

uint64_t eloop_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

struct eloop *eloop_new(const struct logger *log)
{
	struct eloop *loop = calloc(1, sizeof(*loop));
	if (!loop)
		return NULL;
	loop->log = log;
	loop->sigfd = -1;
	sigemptyset(&loop->sigmask);
	return loop;
}

void eloop_free(struct eloop *loop)
{
	if (!loop)
		return;
	for (int s = 1; s < _NSIG; s++)
		if (loop->signals[s].fn)
			eloop_remove_signal(loop, s);
	if (loop->sigfd >= 0)
		close(loop->sigfd);
	free(loop->fds);
	free(loop->pfds);
	free(loop);
}

void eloop_terminate(struct eloop *loop)
{
	loop->terminate = true;
}

bool eloop_terminated(const struct eloop *loop)
{
	return loop->terminate;
}

/* --- file descriptors --------------------------------------------------- */

static struct fd_entry *find_fd(struct eloop *loop, int fd)
{
	for (size_t i = 0; i < loop->nfds; i++)
		if (loop->fds[i].fd == fd)
			return &loop->fds[i];
	return NULL;
}

static struct fd_entry *get_fd(struct eloop *loop, int fd)
{
	struct fd_entry *e = find_fd(loop, fd);
	if (e)
		return e;
	struct fd_entry *grown = array_grow(loop->fds, &loop->fds_cap, loop->nfds, sizeof(*grown), 8);
	if (!grown)
		return NULL;
	loop->fds = grown;
	e = &loop->fds[loop->nfds++];
	memset(e, 0, sizeof(*e));
	e->fd = fd;
	return e;
}

static void drop_if_unused(struct eloop *loop, struct fd_entry *e)
{
	if (e->read_fn || e->write_fn)
		return;
	*e = loop->fds[--loop->nfds];
}

static int add_fd(struct eloop *loop, int fd, bool write, eloop_fd_fn fn,
		  void *ctx)
{
	if (fd < 0 || !fn)
		return -EINVAL;
	struct fd_entry *e = get_fd(loop, fd);
	if (!e)
		return -ENOMEM;
	if (write) {
		e->write_fn = fn;
		e->write_ctx = ctx;
		e->write_seq = ++loop->seq;
	} else {
		e->read_fn = fn;
		e->read_ctx = ctx;
		e->read_seq = ++loop->seq;
	}
	return 0;
}

static int remove_fd(struct eloop *loop, int fd, bool write)
{
	struct fd_entry *e = find_fd(loop, fd);
	if (!e || !(write ? e->write_fn : e->read_fn))
		return -ENOENT;
	if (write)
		e->write_fn = NULL;
	else
		e->read_fn = NULL;
	drop_if_unused(loop, e);
	return 0;
}

int eloop_add_reader(struct eloop *loop, int fd, eloop_fd_fn fn, void *ctx)
{
	return add_fd(loop, fd, false, fn, ctx);
}

int eloop_remove_reader(struct eloop *loop, int fd)
{
	return remove_fd(loop, fd, false);
}

int eloop_add_writer(struct eloop *loop, int fd, eloop_fd_fn fn, void *ctx)
{
	return add_fd(loop, fd, true, fn, ctx);
}

int eloop_remove_writer(struct eloop *loop, int fd)
{
	return remove_fd(loop, fd, true);
}

/* --- timers ------------------------------------------------------------- */

void eloop_timer_init(struct eloop_timer *t, eloop_timer_fn fn, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->ctx = ctx;
}

void eloop_timer_cancel(struct eloop *loop, struct eloop_timer *t)
{
	if (!t->pending)
		return;
	for (struct eloop_timer **pp = &loop->timers; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	t->next = NULL;
	t->pending = false;
}

void eloop_timer_arm_at(struct eloop *loop, struct eloop_timer *t,
			uint64_t deadline_us)
{
	eloop_timer_cancel(loop, t);
	t->deadline_us = deadline_us;
	t->armed_seq = ++loop->seq;
	t->pending = true;
	/* after every timer due at the same time or earlier: equal
	 * deadlines fire in arming order */
	struct eloop_timer **pp = &loop->timers;
	while (*pp && (*pp)->deadline_us <= deadline_us)
		pp = &(*pp)->next;
	t->next = *pp;
	*pp = t;
}

void eloop_timer_arm_in(struct eloop *loop, struct eloop_timer *t,
			uint64_t delay_us)
{
	eloop_timer_arm_at(loop, t, eloop_now_us() + delay_us);
}

static int run_timers(struct eloop *loop)
{
	uint64_t pass_seq = loop->seq;
	uint64_t now = eloop_now_us();
	int ran = 0;
	while (!loop->terminate) {
		struct eloop_timer *t = loop->timers;
		if (!t || t->deadline_us > now || t->armed_seq > pass_seq)
			break;
		loop->timers = t->next;
		t->next = NULL;
		t->pending = false;
		ran++;
		/* t may be freed by its callback: not touched after this */
		t->fn(loop, t->ctx);
	}
	return ran;
}

/* --- signals ------------------------------------------------------------ */

static void read_signals(struct eloop *loop, int fd, void *ctx)
{
	struct signalfd_siginfo si;
	ssize_t n;
	while ((n = read(fd, &si, sizeof(si))) == (ssize_t)sizeof(si)) {
		int signo = (int)si.ssi_signo;
		if (signo <= 0 || signo >= _NSIG || !loop->signals[signo].fn) {
			log_msg(loop->log, LOG_LEVEL_DEBUG,
				"eloop: signal %d read but not registered", signo);
			continue;
		}
		log_msg(loop->log, LOG_LEVEL_DEBUG, "eloop: signal %d", signo);
		loop->signals[signo].fn(loop, signo, loop->signals[signo].ctx);
		if (loop->terminate)
			break;
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		log_msg(loop->log, LOG_LEVEL_WARNING,
			"eloop: reading the signalfd: %s", strerror(errno));
}

/* Puts a signal back as eloop_add_signal found it: ignored again first
 * (a pending one is then dropped), then unblocked. */
static void restore_signal(int signo, bool was_blocked, bool was_ignored)
{
	if (was_ignored) {
		struct sigaction ign = { .sa_handler = SIG_IGN };
		sigemptyset(&ign.sa_mask);
		sigaction(signo, &ign, NULL);
	}
	if (!was_blocked) {
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, signo);
		pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	}
}

int eloop_add_signal(struct eloop *loop, int signo, eloop_signal_fn fn,
		     void *ctx)
{
	if (signo <= 0 || signo >= _NSIG || signo == SIGKILL ||
	    signo == SIGSTOP || !fn)
		return -EINVAL;
	if (loop->signals[signo].fn) {
		loop->signals[signo].fn = fn;
		loop->signals[signo].ctx = ctx;
		return 0;
	}
	sigset_t one, old;
	sigemptyset(&one);
	sigaddset(&one, signo);
	int err = pthread_sigmask(SIG_BLOCK, &one, &old);
	if (err)
		return -err;
	/* An inherited SIG_IGN (a shell's background job gets SIGINT and
	 * SIGQUIT ignored) would let the kernel discard the signal: POSIX
	 * leaves that open for a blocked signal, and any that came before the
	 * block were lost.  The loop takes the signal, so it gets the default
	 * disposition (never acted on while blocked). */
	bool ignored = false;
	struct sigaction sa;
	if (sigaction(signo, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigemptyset(&dfl.sa_mask);
		if (sigaction(signo, &dfl, NULL) < 0) {
			err = errno;
			if (!sigismember(&old, signo))
				pthread_sigmask(SIG_UNBLOCK, &one, NULL);
			return -err;
		}
		ignored = true;
		log_msg(loop->log, LOG_LEVEL_DEBUG, "eloop: signal %d was ignored: default now", signo);
	}
	sigset_t mask = loop->sigmask;
	sigaddset(&mask, signo);
	int fd = signalfd(loop->sigfd, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	int r = fd < 0 ? -errno : 0;
	if (r == 0 && loop->sigfd < 0) {
		r = eloop_add_reader(loop, fd, read_signals, NULL);
		if (r < 0)
			close(fd);
		else
			loop->sigfd = fd;
	}
	if (r < 0) {
		restore_signal(signo, sigismember(&old, signo) == 1, ignored);
		return r;
	}
	loop->sigmask = mask;
	loop->signals[signo] = (struct signal_entry){
		.fn = fn, .ctx = ctx, .was_blocked = sigismember(&old, signo) == 1,
		.was_ignored = ignored,
	};
	return 0;
}

int eloop_remove_signal(struct eloop *loop, int signo)
{
	if (signo <= 0 || signo >= _NSIG || !loop->signals[signo].fn)
		return -ENOENT;
	sigdelset(&loop->sigmask, signo);
	if (signalfd(loop->sigfd, &loop->sigmask, SFD_NONBLOCK | SFD_CLOEXEC) < 0)
		return -errno;
	restore_signal(signo, loop->signals[signo].was_blocked, loop->signals[signo].was_ignored);
	loop->signals[signo].fn = NULL;
	if (sigisemptyset(&loop->sigmask)) {
		eloop_remove_reader(loop, loop->sigfd);
		close(loop->sigfd);
		loop->sigfd = -1;
	}
	return 0;
}

/* --- the loop ----------------------------------------------------------- */

static int build_pollset(struct eloop *loop)
{
	if (loop->pfds_cap < loop->nfds) {
		struct pollfd *grown = realloc(loop->pfds,
					       loop->nfds * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		loop->pfds = grown;
		loop->pfds_cap = loop->nfds;
	}
	for (size_t i = 0; i < loop->nfds; i++) {
		const struct fd_entry *e = &loop->fds[i];
		loop->pfds[i] = (struct pollfd){
			.fd = e->fd,
			.events = (short)((e->read_fn ? POLLIN : 0) |
					  (e->write_fn ? POLLOUT : 0)),
		};
	}
	return (int)loop->nfds;
}

/* Calls the callbacks for one poll result.  The entry is looked up again
 * because an earlier callback may have removed or replaced it. */
static int dispatch_fd(struct eloop *loop, const struct pollfd *p,
		       uint64_t poll_seq)
{
	int ran = 0;
	short rev = p->revents;
	if (!rev)
		return 0;
	struct fd_entry *e = find_fd(loop, p->fd);
	if (e && e->read_fn && e->read_seq <= poll_seq &&
	    (rev & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) {
		ran++;
		e->read_fn(loop, p->fd, e->read_ctx);
		if (loop->terminate)
			return ran;
		e = find_fd(loop, p->fd);
	}
	bool no_reader = !e || !e->read_fn;
	if (e && e->write_fn && e->write_seq <= poll_seq &&
	    ((rev & POLLOUT) || (no_reader && (rev & (POLLHUP | POLLERR))))) {
		ran++;
		e->write_fn(loop, p->fd, e->write_ctx);
	}
	if (rev & POLLNVAL)
		log_msg(loop->log, LOG_LEVEL_WARNING,
			"eloop: fd %d is registered but not open", p->fd);
	return ran;
}

int eloop_run_once(struct eloop *loop, uint64_t max_wait_us)
{
	int n = build_pollset(loop);
	if (n < 0)
		return n;
	uint64_t wait = max_wait_us;
	if (loop->timers) {
		uint64_t now = eloop_now_us();
		uint64_t due = loop->timers->deadline_us;
		uint64_t until = due > now ? due - now : 0;
		if (until < wait)
			wait = until;
	}
	struct timespec ts, *tsp = NULL;
	if (wait != UINT64_MAX) {
		ts.tv_sec = (time_t)(wait / 1000000u);
		ts.tv_nsec = (long)(wait % 1000000u) * 1000;
		tsp = &ts;
	}
	uint64_t poll_seq = loop->seq;
	int ready = ppoll(loop->pfds, (nfds_t)n, tsp, NULL);
	if (ready < 0)
		return errno == EINTR ? 0 : -errno;
	int ran = run_timers(loop);
	for (int i = 0; i < n && ready > 0 && !loop->terminate; i++) {
		if (loop->pfds[i].revents)
			ready--;
		ran += dispatch_fd(loop, &loop->pfds[i], poll_seq);
	}
	return ran;
}

int eloop_run(struct eloop *loop)
{
	int r = 0;
	while (!loop->terminate && (loop->nfds || loop->timers)) {
		r = eloop_run_once(loop, UINT64_MAX);
		if (r < 0)
			break;
	}
	loop->terminate = false;
	return r < 0 ? r : 0;
}
