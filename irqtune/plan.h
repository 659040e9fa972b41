/*
 * plan.h: what apply and restore change, decided before anything is
 * touched, then carried out and checked.
 *
 * Owns: turning a port's settings (conf.h) or the recorded originals
 * (state.h) into a list of changes "knob: old -> new"; reading and
 * writing each knob through struct irqtune_sys; carrying a plan out
 * with a read-back check of every write; and for apply, undoing this
 * run's writes when one fails, so that nothing is left half-applied.
 *
 * Does not own: output, the state file's storage, or discovery.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRQTUNE_PLAN_H
#define IRQTUNE_PLAN_H

#include "conf.h"
#include "log.h"
#include "port.h"
#include "state.h"
#include "sys.h"

struct irqtune_change {
	struct irqtune_entry e; /* knob, device, target; e.value = new */
	char old[64];		/* the value before ("" if unknown) */
	bool noop;		/* already at the new value */
	bool done;		/* written and verified by this run */
};

struct irqtune_plan {
	struct irqtune_change *v;
	size_t n, cap;
	/* set while building: a priority was asked for an IRQ with no
	 * thread, on a kernel without forced IRQ threading */
	bool unthreaded;
};

void irqtune_plan_free(struct irqtune_plan *plan);

/* Adds the changes that bring port p to settings s.  Knobs the port
 * lacks are logged and left out; a knob already in the plan (a shared
 * IRQ, a shared USB host controller) is planned once.  -ENOMEM only. */
int irqtune_plan_port(const struct irqtune_snapshot *snap,
		      const struct irqtune_port *p,
		      const struct irqtune_settings *s,
		      const struct logger *log, struct irqtune_plan *plan);

/* Adds the changes that put back the recorded entries (only those of
 * the given devices when ndev > 0), newest entry first.  Entries whose target is gone (an
 * unplugged adapter, a thread that ended when its port was closed) are
 * logged, and their index is marked in gone[] (sized st->n) so the
 * caller can drop them. */
int irqtune_plan_restore(const struct irqtune_sys *sys,
			 const struct irqtune_snapshot *snap,
			 const struct irqtune_state *st,
			 const char *const *devices, size_t ndev,
			 const struct logger *log, struct irqtune_plan *plan,
			 bool *gone);

/* "ttyS0: irq/4-ttyS0 priority fifo/50 -> fifo/90" */
void irqtune_change_describe(const struct irqtune_change *c, char *buf,
			     size_t cap);

/* Current value of a knob, in the state file's format. */
int irqtune_knob_read(const struct irqtune_sys *sys,
		      const struct irqtune_snapshot *snap,
		      enum irqtune_knob k, const char *target, char *out,
		      size_t cap);
int irqtune_knob_write(const struct irqtune_sys *sys,
		       const struct irqtune_snapshot *snap,
		       enum irqtune_knob k, const char *target,
		       const char *value);
/* Whether two values of a knob mean the same ("0,1" and "0-1"). */
bool irqtune_knob_same(enum irqtune_knob k, const char *a, const char *b);

enum irqtune_exec_mode {
	IRQTUNE_EXEC_ATOMIC,	 /* stop at the first failure, undo */
	IRQTUNE_EXEC_BEST_EFFORT /* go on past failures (restore) */
};

/* Writes every change that is not a no-op, reads it back, marks it
 * done.  Returns 0, or the first error (after undoing in ATOMIC mode);
 * each failure is logged naming the device, knob and values. */
int irqtune_plan_execute(const struct irqtune_sys *sys,
			 const struct irqtune_snapshot *snap,
			 struct irqtune_plan *plan, enum irqtune_exec_mode mode,
			 const struct logger *log);

#endif
