/*
 * run.h: the apply and restore sequences, around the state file.
 *
 * Owns the order that makes apply safe: lock the state file, record the
 * original value of every knob about to change (never overwriting a
 * value an earlier apply recorded), save the state atomically, and only
 * then write, with a read-back of each write and an undo of this run's
 * writes on the first failure.  Restore: lock, load, put back what was
 * recorded (best effort), forget what is back or gone, save.
 *
 * Does not own: discovery, the policy or any output.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRQTUNE_RUN_H
#define IRQTUNE_RUN_H

#include "log.h"
#include "plan.h"
#include "state.h"
#include "sys.h"

/* Adds the original value of each change of the plan that is not a
 * no-op and not recorded yet; *changed tells whether st grew. */
int irqtune_record_originals(const struct irqtune_plan *plan,
			     struct irqtune_state *st, bool *changed,
			     char *err, size_t cap);

/* Carries out a plan built by irqtune_plan_port.  Returns 0; -EINVAL if
 * the state file is damaged (message in err, nothing changed); another
 * -errno if the state cannot be saved (nothing changed) or a change
 * failed (this run's changes undone, logged). */
int irqtune_apply(const struct irqtune_sys *sys,
		  const struct irqtune_snapshot *snap,
		  struct irqtune_plan *plan, const char *state_path,
		  const struct logger *log, char *err, size_t cap);

/* Fills plan with what restore puts back (for the given devices, all if
 * ndev is 0) and, unless dry_run, puts it back.  Returns 0; -EINVAL if
 * the state file is damaged (err, nothing changed); another -errno if
 * some value could not be put back (it stays recorded). */
int irqtune_restore(const struct irqtune_sys *sys,
		    const struct irqtune_snapshot *snap, const char *state_path,
		    const char *const *devices, size_t ndev, bool dry_run,
		    const struct logger *log, struct irqtune_plan *plan,
		    char *err, size_t cap);

#endif
