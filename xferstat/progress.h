/*
 * progress.h: the progress bar of `xferstat run`, drawn on stderr only
 * when stderr is a terminal, at most ten times a second.  Program code.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_PROGRESS_H
#define XFERSTAT_PROGRESS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct progress {
	bool enabled;
	bool drawn;
	double start;             /* monotonic seconds */
	double last;
	char what[64];            /* "A 3/10" */
	volatile sig_atomic_t *stop;   /* set by the SIGINT handler */
};

/* enabled: draw at all (stderr is a tty); stop: abort when *stop != 0. */
void progress_init(struct progress *p, bool enabled, volatile sig_atomic_t *stop);
void progress_begin(struct progress *p, const char *label, unsigned run, unsigned runs,
		    bool warmup);
/* An xfer_progress_fn: redraws, and returns false once *stop is set. */
bool progress_update(void *ctx, uint64_t now, uint64_t total);
/* Erases the bar so that normal output follows on a clean line. */
void progress_end(struct progress *p);

#endif
