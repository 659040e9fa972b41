/*
 * progress.c: the progress bar.  See progress.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_init(struct progress *p, bool enabled, volatile sig_atomic_t *stop)
{
	memset(p, 0, sizeof(*p));
	p->enabled = enabled;
	p->stop = stop;
}

void progress_begin(struct progress *p, const char *label, unsigned run, unsigned runs,
		    bool warmup)
{
	if (warmup)
		snprintf(p->what, sizeof(p->what), "%.40s warmup %u/%u", label, run, runs);
	else
		snprintf(p->what, sizeof(p->what), "%.40s %u/%u", label, run, runs);
	p->start = monotonic();
	p->last = 0;
}

bool progress_update(void *ctx, uint64_t now, uint64_t total)
{
	struct progress *p = ctx;
	if (p->stop && *p->stop)
		return false;
	if (!p->enabled)
		return true;
	double t = monotonic();
	if (t - p->last < 0.1)
		return true;
	p->last = t;
	double elapsed = t - p->start;
	double rate = elapsed > 0 ? (double)now / elapsed / 1000 : 0;
	char bar[31];
	int filled = total ? (int)((double)now * 30 / (double)total) : 0;
	if (filled > 30)
		filled = 30;
	memset(bar, '#', (size_t)filled);
	memset(bar + filled, '-', (size_t)(30 - filled));
	bar[30] = '\0';
	if (total)
		fprintf(stderr, "\r%s [%s] %3d%% %10.1f kB/s ", p->what, bar,
			(int)((double)now * 100 / (double)total), rate);
	else
		fprintf(stderr, "\r%s %12llu bytes %10.1f kB/s ", p->what,
			(unsigned long long)now, rate);
	fflush(stderr);
	p->drawn = true;
	return true;
}

void progress_end(struct progress *p)
{
	if (p->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->drawn = false;
	}
}
