/*
 * eloop.h: the event loop of an irnet host process.
 *
 * Owns: waiting (ppoll) for file descriptors to become readable or
 * writable, monotonic timers with microsecond resolution, and signals,
 * which are read from a signalfd so that their callbacks run from the
 * loop like every other callback, never in signal context.
 *
 * Does not own: the file descriptors (the caller opens and closes them),
 * the timer objects (the caller embeds a struct eloop_timer wherever it
 * likes; arming one never allocates), or any protocol logic.
 *
 * There is no global state: every call takes a struct eloop *, so a test
 * can run several loops in one process.  A signal is delivered to the
 * loop that registered it; two loops of one process should not both
 * register the same signal (the first to read the signalfd gets it).
 *
 * Callbacks may register, unregister, arm and cancel anything, including
 * the callback's own fd or timer, and may free the memory of a timer they
 * cancelled or that just fired.  A timer re-armed from a timer callback
 * for a time already past runs in the next iteration, not in the same
 * pass, so a zero-delay timer cannot starve the file descriptors.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_ELOOP_H
#define IRNET_ELOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "log.h"

struct eloop;

typedef void (*eloop_fd_fn)(struct eloop *loop, int fd, void *ctx);
typedef void (*eloop_timer_fn)(struct eloop *loop, void *ctx);
typedef void (*eloop_signal_fn)(struct eloop *loop, int signo, void *ctx);

/* A timer: embed it in your own struct, eloop_timer_init() it once, arm
 * and cancel it as often as needed.  The fields are the loop's. */
struct eloop_timer {
	struct eloop_timer *next;
	uint64_t deadline_us;
	uint64_t armed_seq;
	eloop_timer_fn fn;
	void *ctx;
	bool pending;
};

/* Creates a loop; returns NULL with errno set on failure.  log may be
 * NULL. */
struct eloop *eloop_new(const struct logger *log);
/* Frees the loop, closes its signalfd and unblocks the signals it
 * blocked.  Registered fds are not closed. */
void eloop_free(struct eloop *loop);

/* The loop's clock: CLOCK_MONOTONIC in microseconds. */
uint64_t eloop_now_us(void);

/* fd readiness.  One reader and one writer per fd.  Registering a second
 * reader for the same fd replaces the first.  Return 0 or -errno
 * (-EINVAL for a negative fd, -ENOMEM, -ENOENT on removing what is not
 * registered).  A reader is also called on POLLHUP/POLLERR (so that its
 * read() sees the end or the error); a writer only if there is no reader. */
int eloop_add_reader(struct eloop *loop, int fd, eloop_fd_fn fn, void *ctx);
int eloop_remove_reader(struct eloop *loop, int fd);
int eloop_add_writer(struct eloop *loop, int fd, eloop_fd_fn fn, void *ctx);
int eloop_remove_writer(struct eloop *loop, int fd);

/* Timers.  Timers fire in deadline order; equal deadlines fire in the
 * order they were armed.  Arming a pending timer moves it. */
void eloop_timer_init(struct eloop_timer *t, eloop_timer_fn fn, void *ctx);
void eloop_timer_arm_at(struct eloop *loop, struct eloop_timer *t,
			uint64_t deadline_us);
void eloop_timer_arm_in(struct eloop *loop, struct eloop_timer *t,
			uint64_t delay_us);
/* Cancels a pending timer; a no-op for one that is not pending. */
void eloop_timer_cancel(struct eloop *loop, struct eloop_timer *t);
static inline bool eloop_timer_pending(const struct eloop_timer *t)
{
	return t->pending;
}

/* Signals: the signal is blocked in the calling thread and read from the
 * loop's signalfd.  A signal found ignored (SIG_IGN, as a shell's
 * background job inherits SIGINT) gets the default disposition first, so
 * that it is not discarded.  Returns 0 or -errno (-EINVAL for
 * SIGKILL/SIGSTOP or an invalid number).  Removing restores the signal's
 * disposition and blocked state as they were before eloop_add_signal. */
int eloop_add_signal(struct eloop *loop, int signo, eloop_signal_fn fn,
		     void *ctx);
int eloop_remove_signal(struct eloop *loop, int signo);

/* Runs until eloop_terminate() is called or nothing is left to wait for
 * (no fd, no pending timer, no signal).  Returns 0, or -errno if ppoll
 * itself fails. */
int eloop_run(struct eloop *loop);
/* One iteration: waits at most max_wait_us (UINT64_MAX: no limit other
 * than the next timer), then runs due timers and ready fds.  Returns the
 * number of callbacks run, or -errno. */
int eloop_run_once(struct eloop *loop, uint64_t max_wait_us);
/* Makes eloop_run (or eloop_run_once) return after the current callback;
 * callable from any callback (a signal callback typically).  eloop_run
 * clears the request when it returns, so the loop can be run again. */
void eloop_terminate(struct eloop *loop);
bool eloop_terminated(const struct eloop *loop);

#endif
