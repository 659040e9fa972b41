/*
 * irlap_size.c: the I-field size of the I-frames a station pulls from
 * the layer above, chosen from the losses seen (docs/irnet-irlap.md,
 * "Data transfer under bit errors").
 *
 * Bit errors hit long frames harder: a frame of b line bytes survives a
 * bit error rate e with probability (1 - e)^(8b).  Short frames cost
 * their headers and, since a turn holds at most `window` frames, more
 * turns.  So for each size class (64, 128, ... up to the negotiated data
 * size) we keep how many frames of about that size went out and how
 * many were lost, decayed as new fates come in (old conditions fade
 * after a few dozen frames), and pick the class with the best expected
 * payload per line byte.  A class with few fates of its own borrows a
 * prediction from the per-byte loss rate of all classes together; its
 * own counts win as they grow.  Losses that do not depend on size (a
 * fade, a break) thus do not drive the size down for good: the smaller
 * classes, once tried, show no fewer losses and the large one wins
 * again.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "irlap_internal.h"

#include <math.h>
#include <string.h>

#define SIZE_MIN 64u
/* Each new fate weighs 1/MEMORY of what is remembered. */
#define MEMORY 64.0
/* Pseudo-fates: of the model's prediction in each class, and of
 * loss-free frames of the largest size a link starts with (one early
 * loss must not send a fresh link down to the smallest frames; they
 * fade like real fates). */
#define CLASS_PRIOR 2.0
#define START_PRIOR 4.0
#define MAX_LOSS 0.95
/* A new class must promise this much more than the current one. */
#define HYSTERESIS 1.001

void irlap_sizer_reset(struct irlap_sizer *z, uint32_t max_size)
{
	uint32_t s = SIZE_MIN;

	memset(z, 0, sizeof(*z));
	while (z->nclass < IRLAP_SIZE_CLASSES - 1 && s < max_size) {
		z->size[z->nclass++] = s;
		s *= 2;
	}
	z->size[z->nclass++] = max_size;
	z->cur = z->nclass - 1;
	z->win = 7;
	z->trials[z->cur] = START_PRIOR;
	z->bytes[z->cur] = START_PRIOR * (max_size + 6);
}

static unsigned class_of(const struct irlap_sizer *z, uint32_t len)
{
	unsigned c = 0;

	while (c + 1 < z->nclass && z->size[c + 1] <= len)
		c++;
	return c;
}

void irlap_sizer_observe(struct irlap_sizer *z, uint32_t len, uint32_t line_bytes, bool lost)
{
	const double keep = 1.0 - 1.0 / MEMORY;
	unsigned c = class_of(z, len);

	for (unsigned i = 0; i < z->nclass; i++) {
		z->trials[i] *= keep;
		z->lost[i] *= keep;
		z->bytes[i] *= keep;
	}
	z->trials[c] += 1.0;
	z->lost[c] += lost ? 1.0 : 0.0;
	z->bytes[c] += line_bytes;
}

/* Losses per line byte over all classes (Poisson: a frame of b bytes
 * survives with exp(-rate * b)). */
static double pooled_rate(const struct irlap_sizer *z)
{
	double n = 0.0, lost = 0.0, bytes = 0.0;
	double p;

	for (unsigned i = 0; i < z->nclass; i++) {
		n += z->trials[i];
		lost += z->lost[i];
		bytes += z->bytes[i];
	}
	if (n <= 0.0 || bytes <= 0.0)
		return 0.0;
	p = lost / n;
	if (p > MAX_LOSS)
		p = MAX_LOSS;
	return -log(1.0 - p) / (bytes / n);
}

static double class_loss(const struct irlap_sizer *z, unsigned c, double rate,
			 uint32_t frame_bytes)
{
	double model = 1.0 - exp(-rate * (z->size[c] + frame_bytes));
	double p = (z->lost[c] + CLASS_PRIOR * model) / (z->trials[c] + CLASS_PRIOR);

	return p > MAX_LOSS ? MAX_LOSS : p;
}

/* Expected payload per line byte in a turn of at most win frames of
 * class c. */
static double class_score(const struct irlap_sizer *z, unsigned c, unsigned win, double loss,
			  const struct irlap_size_costs *k)
{
	double frame = (double)z->size[c] + k->frame_bytes;
	double n = (double)k->capacity / frame;
	double s = 1.0 - loss, delivered, extra;

	if (n > win)
		n = win;
	if (n < 1.0)
		n = 1.0;
	/* Selective repeat loses only the lost frames; go-back-N also
	 * the rest of the turn after the first loss. */
	if (k->selective || s >= 1.0)
		delivered = n * s;
	else
		delivered = s * (1.0 - pow(s, n)) / (1.0 - s);
	/* A lost final frame costs the wait for the answer, unless a
	 * separate RR carries the P/F bit (which costs its own bytes). */
	extra = loss * k->lost_final_bytes;
	if (extra > k->frame_bytes)
		extra = k->frame_bytes;
	return (double)z->size[c] * delivered / (n * frame + k->turn_bytes + extra);
}

/* The best window for class c: the negotiated one with a peer that asks
 * for lost frames alone (more frames per turn only save turns); with a
 * go-back-N peer a loss also costs the rest of the turn, so fewer frames
 * per turn may pay. */
static double best_window(const struct irlap_sizer *z, unsigned c, double loss,
			  const struct irlap_size_costs *k, unsigned *win)
{
	double best = class_score(z, c, k->window, loss, k);

	*win = k->window;
	if (k->selective)
		return best;
	for (unsigned w = 1; w < k->window; w++) {
		double v = class_score(z, c, w, loss, k);
		if (v > best) {
			best = v;
			*win = w;
		}
	}
	return best;
}

uint32_t irlap_sizer_choose(struct irlap_sizer *z, const struct irlap_size_costs *k)
{
	double rate = pooled_rate(z);
	unsigned win, pick_win;
	double cur = best_window(z, z->cur, class_loss(z, z->cur, rate, k->frame_bytes), k,
				 &pick_win);
	double best = cur;
	unsigned pick = z->cur;
	unsigned cur_win = pick_win;

	for (unsigned c = 0; c < z->nclass; c++) {
		double v = best_window(z, c, class_loss(z, c, rate, k->frame_bytes), k, &win);

		if (v > best) {
			best = v;
			pick = c;
			pick_win = win;
		}
	}
	if (best > cur * HYSTERESIS) {
		z->cur = pick;
		z->win = pick_win;
	} else {
		z->win = cur_win;
	}
	return z->size[z->cur];
}

bool irlap_sizer_separate_final(const struct irlap_sizer *z, const struct irlap_size_costs *k,
				uint32_t len)
{
	double loss = 1.0 - exp(-pooled_rate(z) * (len + k->frame_bytes));

	return loss * k->lost_final_bytes > k->frame_bytes;
}
