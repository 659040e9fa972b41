/*
 * run.c: apply and restore around the state file.  See run.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int irqtune_record_originals(const struct irqtune_plan *plan,
			     struct irqtune_state *st, bool *changed,
			     char *err, size_t cap)
{
	*changed = false;
	for (size_t i = 0; i < plan->n; i++) {
		const struct irqtune_change *ch = &plan->v[i];
		if (ch->noop || irqtune_state_find(st, ch->e.knob, ch->e.target) >= 0)
			continue;
		struct irqtune_entry e = ch->e;
		char why[IRQTUNE_PATH + 64];
		irqtune_copy(e.value, sizeof(e.value), ch->old);
		if (!irqtune_entry_valid(&e, why, sizeof(why))) {
			snprintf(err, cap, "%s: cannot record the original "
				 "value: %s", e.device, why);
			return -EINVAL;
		}
		if (irqtune_state_add(st, &e) < 0)
			return -ENOMEM;
		*changed = true;
	}
	return 0;
}

static void state_error(const char *path, int rc, char *err, size_t cap)
{
	snprintf(err, cap, "%s: %s", path, strerror(-rc));
}

int irqtune_apply(const struct irqtune_sys *sys,
		  const struct irqtune_snapshot *snap,
		  struct irqtune_plan *plan, const char *state_path,
		  const struct logger *log, char *err, size_t cap)
{
	struct irqtune_state st;
	bool changed;
	int lock = irqtune_state_lock(state_path);
	if (lock < 0) {
		state_error(state_path, lock, err, cap);
		return lock;
	}
	int rc = irqtune_state_load(state_path, &st, err, cap);
	if (rc == 0) {
		rc = irqtune_record_originals(plan, &st, &changed, err, cap);
		if (rc == -EINVAL)
			rc = -EPROTO; /* not the file's fault */
	}
	if (rc == 0 && changed) {
		rc = irqtune_state_save(state_path, &st);
		if (rc < 0)
			state_error(state_path, rc, err, cap);
	}
	if (rc == 0) {
		rc = irqtune_plan_execute(sys, snap, plan, IRQTUNE_EXEC_ATOMIC,
					  log);
		if (rc < 0)
			snprintf(err, cap, "apply failed; this run's changes "
				 "were undone");
	}
	irqtune_state_free(&st);
	irqtune_state_unlock(lock);
	return rc;
}

/* Drops the entries that are back (or whose target is gone). */
static void forget_restored(struct irqtune_state *st,
			    const struct irqtune_plan *plan, const bool *gone)
{
	for (size_t i = st->n; i-- > 0;) {
		bool drop = gone[i];
		for (size_t j = 0; j < plan->n && !drop; j++) {
			const struct irqtune_change *ch = &plan->v[j];
			drop = (ch->done || ch->noop) &&
			       ch->e.knob == st->v[i].knob &&
			       strcmp(ch->e.target, st->v[i].target) == 0;
		}
		if (drop)
			irqtune_state_remove(st, i);
	}
}

int irqtune_restore(const struct irqtune_sys *sys,
		    const struct irqtune_snapshot *snap, const char *state_path,
		    const char *const *devices, size_t ndev, bool dry_run,
		    const struct logger *log, struct irqtune_plan *plan,
		    char *err, size_t cap)
{
	struct irqtune_state st;
	bool *gone = NULL;
	int lock = irqtune_state_lock(state_path);
	if (lock < 0) {
		state_error(state_path, lock, err, cap);
		return lock;
	}
	int rc = irqtune_state_load(state_path, &st, err, cap);
	if (rc == 0 && st.n > 0) {
		gone = calloc(st.n, sizeof(*gone));
		rc = gone ? irqtune_plan_restore(sys, snap, &st, devices, ndev,
						 log, plan, gone)
			  : -ENOMEM;
	}
	if (rc == 0 && st.n > 0 && !dry_run) {
		rc = irqtune_plan_execute(sys, snap, plan,
					  IRQTUNE_EXEC_BEST_EFFORT, log);
		if (rc < 0)
			snprintf(err, cap, "some values could not be put back; "
				 "they stay recorded in %s", state_path);
		forget_restored(&st, plan, gone);
		int s = irqtune_state_save(state_path, &st);
		if (s < 0 && rc == 0) {
			state_error(state_path, s, err, cap);
			rc = s;
		}
	}
	free(gone);
	irqtune_state_free(&st);
	irqtune_state_unlock(lock);
	return rc;
}
