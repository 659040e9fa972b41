/*
 * plan.c: planning, carrying out and checking changes.  See plan.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "plan.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "procfs.h"

void irqtune_plan_free(struct irqtune_plan *plan)
{
	free(plan->v);
	memset(plan, 0, sizeof(*plan));
}

static long plan_find(const struct irqtune_plan *plan, enum irqtune_knob k,
		      const char *target)
{
	for (size_t i = 0; i < plan->n; i++)
		if (plan->v[i].e.knob == k &&
		    strcmp(plan->v[i].e.target, target) == 0)
			return (long)i;
	return -1;
}

static int plan_add(struct irqtune_plan *plan, enum irqtune_knob k,
		    const char *device, const char *target, const char *old,
		    const char *want, const struct logger *log)
{
	long at = plan_find(plan, k, target);
	if (at >= 0) {
		const struct irqtune_change *c = &plan->v[at];
		if (!irqtune_knob_same(k, c->e.value, want))
			log_msg(log, LOG_LEVEL_WARNING,
				"%s: %s %s is shared with %s, which sets it "
				"to %s; %s ignored", device,
				irqtune_knob_name(k), target, c->e.device,
				c->e.value, want);
		return 0;
	}
	void *nv = array_grow(plan->v, &plan->cap, plan->n, sizeof(*plan->v), 16);
	if (!nv)
		return -ENOMEM;
	plan->v = nv;
	struct irqtune_change *c = &plan->v[plan->n];
	memset(c, 0, sizeof(*c));
	c->e.knob = k;
	if (!irqtune_copy(c->e.device, sizeof(c->e.device), device) ||
	    !irqtune_copy(c->e.target, sizeof(c->e.target), target) ||
	    !irqtune_copy(c->e.value, sizeof(c->e.value), want) ||
	    !irqtune_copy(c->old, sizeof(c->old), old)) {
		log_msg(log, LOG_LEVEL_WARNING, "%s: %s %s: name too long, "
			"skipped", device, irqtune_knob_name(k), target);
		return 0;
	}
	c->noop = irqtune_knob_same(k, old, want);
	plan->n++;
	return 0;
}

static int plan_threads(const struct irqtune_snapshot *snap,
			const char *device, const struct irqtune_irqinfo *irq,
			const char *what, int prio, const struct logger *log,
			struct irqtune_plan *plan)
{
	char want[32], old[32];
	struct irqtune_sched s = { SCHED_FIFO, prio };
	if (irq->nthreads == 0) {
		if (!snap->threaded) {
			plan->unthreaded = true;
			log_msg(log, LOG_LEVEL_WARNING,
				"%s: %s %d has no thread: this kernel does "
				"not run IRQs in threads, so their priority "
				"cannot be set; boot with the kernel parameter "
				"threadirqs (add it to GRUB_CMDLINE_LINUX in "
				"/etc/default/grub, run update-grub, reboot) "
				"or use a PREEMPT_RT kernel", device, what,
				irq->irq);
		} else {
			log_msg(log, LOG_LEVEL_WARNING,
				"%s: %s %d has no thread now (an 8250 port "
				"requests its IRQ only while it is open): "
				"run irqtune apply while the port is in use",
				device, what, irq->irq);
		}
		return 0;
	}
	irqtune_sched_format(&s, want, sizeof(want));
	for (size_t i = 0; i < irq->nthreads; i++) {
		const struct irqtune_thread *t = &irq->threads[i];
		if (!t->sched_known) {
			log_msg(log, LOG_LEVEL_WARNING,
				"%s: cannot read the scheduling of %s (pid %d); "
				"left alone", device, t->comm, t->pid);
			continue;
		}
		irqtune_sched_format(&t->sched, old, sizeof(old));
		int rc = plan_add(plan, IRQTUNE_KNOB_SCHED, device, t->comm,
				  old, want, log);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int plan_attr(const char *device, const char *path, bool known,
		     long cur, int want, const char *name,
		     const struct logger *log, struct irqtune_plan *plan)
{
	char o[24], w[24];
	if (want < 0)
		return 0;
	if (!path[0]) {
		log_msg(log, LOG_LEVEL_INFO, "%s: has no %s; not set", device,
			name);
		return 0;
	}
	if (!known) {
		log_msg(log, LOG_LEVEL_WARNING, "%s: cannot read %s; left "
			"alone", path, name);
		return 0;
	}
	snprintf(o, sizeof(o), "%ld", cur);
	snprintf(w, sizeof(w), "%d", want);
	return plan_add(plan, IRQTUNE_KNOB_ATTR, device, path, o, w, log);
}

int irqtune_plan_port(const struct irqtune_snapshot *snap,
		      const struct irqtune_port *p,
		      const struct irqtune_settings *s,
		      const struct logger *log, struct irqtune_plan *plan)
{
	int rc = 0;
	if (s->prio > 0 && p->irq.irq >= 0)
		rc = plan_threads(snap, p->name, &p->irq, "IRQ", s->prio, log,
				  plan);
	for (size_t i = 0; rc == 0 && s->hc_prio > 0 && i < p->nhc; i++)
		rc = plan_threads(snap, p->name, &p->hc[i],
				  "USB host controller IRQ", s->hc_prio, log,
				  plan);
	if (rc == 0 && s->cpus[0] && strcmp(s->cpus, "keep") != 0) {
		if (p->irq.irq < 0) {
			log_msg(log, LOG_LEVEL_INFO, "%s: no IRQ of its own; "
				"cpus not set", p->name);
		} else if (!p->irq.affinity[0]) {
			log_msg(log, LOG_LEVEL_WARNING,
				"%s: cannot read /proc/irq/%d/smp_affinity_list;"
				" cpus left alone", p->name, p->irq.irq);
		} else {
			char target[16];
			snprintf(target, sizeof(target), "%d", p->irq.irq);
			rc = plan_add(plan, IRQTUNE_KNOB_AFFINITY, p->name,
				      target, p->irq.affinity, s->cpus, log);
		}
	}
	if (rc == 0)
		rc = plan_attr(p->name, p->rx_trig_path, p->rx_trig_known,
			       p->rx_trig, s->rx_trigger, "rx_trig_bytes", log,
			       plan);
	/* ftdi_sio uses, and reports, latency_timer 1 while low_latency is
	 * on: another value could not be read back (a second apply, after
	 * resume or hotplug, would fail and undo), and would do nothing. */
	bool low_after = s->low_latency >= 0 ? s->low_latency == 1
					     : p->low_latency_known && p->low_latency;
	if (rc == 0 && low_after && p->latency_path[0] && s->latency_timer > 1)
		log_msg(log, LOG_LEVEL_WARNING, "%s: latency_timer %d not set: "
			"with low_latency on, the driver uses and reports 1",
			p->name, s->latency_timer);
	else if (rc == 0)
		rc = plan_attr(p->name, p->latency_path, p->latency_known,
			       p->latency_timer, s->latency_timer,
			       "latency_timer", log, plan);
	if (rc == 0 && s->low_latency >= 0) {
		if (!p->low_latency_known)
			log_msg(log, LOG_LEVEL_WARNING,
				"%s: TIOCGSERIAL failed, low_latency left alone",
				p->devnode);
		else
			rc = plan_add(plan, IRQTUNE_KNOB_LOW_LATENCY, p->name,
				      p->devnode, p->low_latency ? "1" : "0",
				      s->low_latency ? "1" : "0", log);
	}
	return rc;
}

static bool wanted_device(const char *dev, const char *const *devices,
			  size_t ndev)
{
	if (ndev == 0)
		return true;
	for (size_t i = 0; i < ndev; i++)
		if (strcmp(devices[i], dev) == 0)
			return true;
	return false;
}

int irqtune_plan_restore(const struct irqtune_sys *sys,
			 const struct irqtune_snapshot *snap,
			 const struct irqtune_state *st,
			 const char *const *devices, size_t ndev,
			 const struct logger *log, struct irqtune_plan *plan,
			 bool *gone)
{
	/* Newest first, the reverse of the order apply recorded and made
	 * the changes: knobs can be coupled (ftdi_sio reads latency_timer
	 * as 1 while low_latency is on), so undoing the later one first
	 * lets the earlier one read back what restore writes. */
	for (size_t i = st->n; i-- > 0;) {
		const struct irqtune_entry *e = &st->v[i];
		char cur[64];
		gone[i] = false;
		if (!wanted_device(e->device, devices, ndev))
			continue;
		int rc = irqtune_knob_read(sys, snap, e->knob, e->target, cur,
					   sizeof(cur));
		if (rc == -ENOENT || rc == -ESRCH || rc == -ENODEV) {
			log_msg(log, LOG_LEVEL_INFO,
				"%s: %s %s is gone; nothing to restore",
				e->device, irqtune_knob_name(e->knob), e->target);
			gone[i] = true;
			continue;
		}
		if (rc < 0) {
			log_msg(log, LOG_LEVEL_WARNING,
				"%s: cannot read %s %s (%s); kept for a later "
				"restore", e->device, irqtune_knob_name(e->knob),
				e->target, strerror(-rc));
			continue;
		}
		rc = plan_add(plan, e->knob, e->device, e->target, cur,
			      e->value, log);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

void irqtune_change_describe(const struct irqtune_change *c, char *buf,
			     size_t cap)
{
	const struct irqtune_entry *e = &c->e;
	char what[IRQTUNE_PATH + 32];
	switch (e->knob) {
	case IRQTUNE_KNOB_SCHED:
		snprintf(what, sizeof(what), "%s priority", e->target);
		break;
	case IRQTUNE_KNOB_AFFINITY:
		snprintf(what, sizeof(what), "IRQ %s affinity", e->target);
		break;
	case IRQTUNE_KNOB_ATTR:
		snprintf(what, sizeof(what), "%s", base_name(e->target));
		break;
	case IRQTUNE_KNOB_LOW_LATENCY:
		snprintf(what, sizeof(what), "low_latency");
		break;
	}
	if (c->noop)
		snprintf(buf, cap, "%s: %s %s (unchanged)", e->device, what,
			 e->value);
	else
		snprintf(buf, cap, "%s: %s %s -> %s", e->device, what,
			 c->old[0] ? c->old : "?", e->value);
}

/* ---- knobs ------------------------------------------------------------ */

static const struct irqtune_kthread *
thread_named(const struct irqtune_snapshot *snap, const char *comm,
	     size_t *from)
{
	for (size_t i = *from; i < snap->nthreads; i++) {
		if (strcmp(snap->threads[i].comm, comm) == 0) {
			*from = i + 1;
			return &snap->threads[i];
		}
	}
	return NULL;
}

static int affinity_path(const char *target, char *buf, size_t cap)
{
	long irq;
	if (!irqtune_parse_long(target, strlen(target), 0, INT32_MAX, &irq))
		return -EINVAL;
	snprintf(buf, cap, "/proc/irq/%ld/smp_affinity_list", irq);
	return 0;
}

int irqtune_knob_read(const struct irqtune_sys *sys,
		      const struct irqtune_snapshot *snap,
		      enum irqtune_knob k, const char *target, char *out,
		      size_t cap)
{
	char buf[256], path[64];
	size_t len, from = 0;
	long v;
	int rc;
	const struct irqtune_kthread *t;
	struct irqtune_sched s;
	struct irqtune_cpuset set;
	bool on;
	switch (k) {
	case IRQTUNE_KNOB_SCHED:
		t = thread_named(snap, target, &from);
		if (!t)
			return -ESRCH;
		rc = sys->ops->get_sched(sys->ctx, t->pid, &s);
		if (rc < 0)
			return rc;
		return irqtune_sched_format(&s, out, cap) ? 0 : -EOVERFLOW;
	case IRQTUNE_KNOB_AFFINITY:
		rc = affinity_path(target, path, sizeof(path));
		if (rc == 0)
			rc = irqtune_read_file(sys, path, buf, sizeof(buf), &len);
		if (rc < 0)
			return rc;
		if (!irqtune_cpulist_parse(buf, len, &set))
			return -EINVAL;
		return irqtune_cpulist_format(&set, out, cap) ? 0 : -EOVERFLOW;
	case IRQTUNE_KNOB_ATTR:
		rc = irqtune_read_file(sys, target, buf, sizeof(buf), &len);
		if (rc < 0)
			return rc;
		if (!irqtune_parse_long(buf, len, 0, 1L << 30, &v))
			return -EINVAL;
		snprintf(out, cap, "%ld", v);
		return 0;
	case IRQTUNE_KNOB_LOW_LATENCY:
		rc = sys->ops->get_low_latency(sys->ctx, target, &on);
		if (rc < 0)
			return rc;
		snprintf(out, cap, "%d", on ? 1 : 0);
		return 0;
	}
	return -EINVAL;
}

int irqtune_knob_write(const struct irqtune_sys *sys,
		       const struct irqtune_snapshot *snap,
		       enum irqtune_knob k, const char *target,
		       const char *value)
{
	char path[64];
	size_t from = 0;
	int rc, found = 0;
	const struct irqtune_kthread *t;
	struct irqtune_sched s;
	switch (k) {
	case IRQTUNE_KNOB_SCHED:
		if (!irqtune_sched_parse(value, &s))
			return -EINVAL;
		while ((t = thread_named(snap, target, &from)) != NULL) {
			rc = sys->ops->set_sched(sys->ctx, t->pid, &s);
			if (rc < 0)
				return rc;
			found++;
		}
		return found ? 0 : -ESRCH;
	case IRQTUNE_KNOB_AFFINITY:
		rc = affinity_path(target, path, sizeof(path));
		return rc < 0 ? rc : irqtune_write_file(sys, path, value);
	case IRQTUNE_KNOB_ATTR:
		return irqtune_write_file(sys, target, value);
	case IRQTUNE_KNOB_LOW_LATENCY:
		return sys->ops->set_low_latency(sys->ctx, target,
						 strcmp(value, "1") == 0);
	}
	return -EINVAL;
}

bool irqtune_knob_same(enum irqtune_knob k, const char *a, const char *b)
{
	struct irqtune_sched sa, sb;
	struct irqtune_cpuset ca, cb;
	long la, lb;
	switch (k) {
	case IRQTUNE_KNOB_SCHED:
		return irqtune_sched_parse(a, &sa) &&
		       irqtune_sched_parse(b, &sb) && sa.policy == sb.policy &&
		       sa.prio == sb.prio;
	case IRQTUNE_KNOB_AFFINITY:
		return irqtune_cpulist_parse(a, strlen(a), &ca) &&
		       irqtune_cpulist_parse(b, strlen(b), &cb) &&
		       irqtune_cpuset_equal(&ca, &cb);
	case IRQTUNE_KNOB_ATTR:
	case IRQTUNE_KNOB_LOW_LATENCY:
		return irqtune_parse_long(a, strlen(a), 0, 1L << 30, &la) &&
		       irqtune_parse_long(b, strlen(b), 0, 1L << 30, &lb) &&
		       la == lb;
	}
	return false;
}

/* Writes one change and reads it back. */
static int carry_out(const struct irqtune_sys *sys,
		     const struct irqtune_snapshot *snap,
		     const struct irqtune_change *c, const char *value,
		     const struct logger *log)
{
	char back[64], what[IRQTUNE_PATH + 160];
	int rc = irqtune_knob_write(sys, snap, c->e.knob, c->e.target, value);
	irqtune_change_describe(c, what, sizeof(what));
	if (rc < 0) {
		log_msg(log, LOG_LEVEL_ERROR, "%s: writing %s failed: %s", what,
			value, strerror(-rc));
		return rc;
	}
	rc = irqtune_knob_read(sys, snap, c->e.knob, c->e.target, back,
			       sizeof(back));
	if (rc < 0) {
		log_msg(log, LOG_LEVEL_ERROR, "%s: reading it back failed: %s",
			what, strerror(-rc));
		return rc;
	}
	if (!irqtune_knob_same(c->e.knob, back, value)) {
		log_msg(log, LOG_LEVEL_ERROR,
			"%s: wrote %s but it reads back %s", what, value, back);
		return -EIO;
	}
	return 0;
}

int irqtune_plan_execute(const struct irqtune_sys *sys,
			 const struct irqtune_snapshot *snap,
			 struct irqtune_plan *plan, enum irqtune_exec_mode mode,
			 const struct logger *log)
{
	int first = 0;
	for (size_t i = 0; i < plan->n; i++) {
		struct irqtune_change *c = &plan->v[i];
		if (c->noop)
			continue;
		int rc = carry_out(sys, snap, c, c->e.value, log);
		if (rc == 0) {
			c->done = true;
			continue;
		}
		if (!first)
			first = rc;
		if (mode == IRQTUNE_EXEC_BEST_EFFORT)
			continue;
		/* Undo this run's writes, newest first, and the failed one
		 * too (it may have half-happened: a thread set of two). */
		for (size_t j = i + 1; j-- > 0;) {
			struct irqtune_change *u = &plan->v[j];
			if ((!u->done && j != i) || !u->old[0])
				continue;
			if (carry_out(sys, snap, u, u->old, log) == 0)
				log_msg(log, LOG_LEVEL_WARNING,
					"%s: %s %s put back to %s", u->e.device,
					irqtune_knob_name(u->e.knob),
					u->e.target, u->old);
			u->done = false;
		}
		return first;
	}
	return first;
}
