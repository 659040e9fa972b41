/*
 * port.c: the port model, the /proc snapshot and inspection.  See port.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "port.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cursor.h"

void irqtune_ports_free(struct irqtune_ports *p)
{
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

/* serial_core's PORT_* numbers (include/uapi/linux/serial_core.h). */
static const struct {
	int type;
	const char *name;
} uart_names[] = {
	{ 1, "8250" },	     { 2, "16450" },	  { 3, "16550" },
	{ 4, "16550A" },     { 5, "Cirrus" },	  { 6, "16650" },
	{ 7, "16650V2" },    { 8, "16750" },	  { 9, "Startech" },
	{ 10, "16C950" },    { 11, "16654" },	  { 12, "16850" },
	{ 13, "RSA" },	     { 14, "NS16550A" },  { 15, "XScale" },
	{ 17, "Octeon" },    { 20, "Tegra" },	  { 22, "LPC3220" },
	{ 24, "XR17V35X" },  { 26, "Altera16550-F32" },
	{ 27, "Altera16550-F64" }, { 28, "Altera16550-F128" },
	{ 29, "RT2880" },    { 32, "AMBA" },	  { 62, "IMX" },
	{ 94, "MAX310X" },   { 108, "SC16IS7XX" }, { 121, "SUNIX" },
};

const char *irqtune_uart_name(int type)
{
	for (size_t i = 0; i < sizeof(uart_names) / sizeof(uart_names[0]); i++)
		if (uart_names[i].type == type)
			return uart_names[i].name;
	return NULL;
}

const char *irqtune_port_prop(const struct irqtune_port *p, const char *key)
{
	for (size_t i = 0; i < p->nprops; i++)
		if (strcmp(p->props[i].key, key) == 0)
			return p->props[i].value;
	return NULL;
}

bool irqtune_port_set_prop(struct irqtune_port *p, const char *key,
			   const char *value)
{
	struct irqtune_prop *slot = NULL;
	for (size_t i = 0; i < p->nprops && !slot; i++)
		if (strcmp(p->props[i].key, key) == 0)
			slot = &p->props[i];
	if (!slot) {
		if (p->nprops == IRQTUNE_MAX_PROPS)
			return false;
		slot = &p->props[p->nprops];
		if (!irqtune_copy(slot->key, sizeof(slot->key), key) ||
		    !irqtune_copy(slot->value, sizeof(slot->value), value))
			return false;
		p->nprops++;
		return true;
	}
	return irqtune_copy(slot->value, sizeof(slot->value), value);
}

bool irqtune_port_is(const struct irqtune_port *p, const char *name)
{
	if (strcmp(name, p->name) == 0 || strcmp(name, p->devnode) == 0)
		return true;
	for (size_t i = 0; i < p->nlinks; i++)
		if (strcmp(name, p->links[i]) == 0)
			return true;
	return false;
}

/* ---- the snapshot ---------------------------------------------------- */

struct scan {
	const struct irqtune_sys *sys;
	struct irqtune_snapshot *snap;
	size_t cap;
	int err;
};

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static void chomp(char *s, size_t len)
{
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' '))
		s[--len] = '\0';
}

/* IRQ threads are kernel threads: children of kthreadd (PID 2).  A user
 * process that renamed itself "irq/4-x" is not boosted. */
static int scan_pid(void *arg, const char *name)
{
	struct scan *s = arg;
	char path[64], comm[64], status[4096], cpus[8];
	size_t len;
	long pid;
	int irq, ppid;
	if (!all_digits(name) ||
	    !irqtune_parse_long(name, strlen(name), 1, INT32_MAX, &pid))
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (irqtune_read_file(s->sys, path, comm, sizeof(comm), &len) < 0)
		return 0; /* exited meanwhile */
	chomp(comm, len);
	if (!irqtune_thread_irq(comm, &irq))
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	if (irqtune_read_file(s->sys, path, status, sizeof(status), &len) < 0 ||
	    !irqtune_status_parse(status, len, &ppid, cpus, sizeof(cpus)) ||
	    ppid != 2)
		return 0;
	void *nv = array_grow(s->snap->threads, &s->cap, s->snap->nthreads, sizeof(*s->snap->threads), 32);
	if (!nv) {
		s->err = -ENOMEM;
		return -ENOMEM;
	}
	s->snap->threads = nv;
	struct irqtune_kthread *t = &s->snap->threads[s->snap->nthreads++];
	t->pid = (int)pid;
	t->irq = irq;
	irqtune_copy(t->comm, sizeof(t->comm), comm);
	return 0;
}

static int cmp_kthread(const void *a, const void *b)
{
	const struct irqtune_kthread *x = a, *y = b;
	if (x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* threadirqs on the command line, or /sys/kernel/realtime = 1. */
static void read_threading(const struct irqtune_sys *sys,
			   struct irqtune_snapshot *snap)
{
	char buf[4096];
	size_t len;
	long v;
	if (irqtune_read_file(sys, "/sys/kernel/realtime", buf, sizeof(buf),
			      &len) == 0 &&
	    irqtune_parse_long(buf, len, 0, 1, &v) && v == 1)
		snap->rt = true;
	if (irqtune_read_file(sys, "/proc/cmdline", buf, sizeof(buf), &len) ==
	    0) {
		struct cursor c, word;
		cursor_init(&c, buf, len);
		for (;;) {
			cursor_skip_blanks(&c);
			if (!cursor_word(&c, &word))
				break;
			if (cursor_equals(&word, "threadirqs") ||
			    cursor_equals(&word, "threadirqs\n"))
				snap->threaded = true;
		}
	}
	snap->threaded = snap->threaded || snap->rt;
}

int irqtune_snapshot_take(const struct irqtune_sys *sys,
			  const struct logger *log,
			  struct irqtune_snapshot *snap)
{
	memset(snap, 0, sizeof(*snap));
	size_t cap = 1 << 20, len, bad;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	int rc = irqtune_read_file(sys, "/proc/interrupts", buf, cap, &len);
	if (rc < 0) {
		log_msg(log, LOG_LEVEL_WARNING, "/proc/interrupts: %s",
			strerror(-rc));
	} else if (irqtune_interrupts_parse(buf, len, &snap->ints, &bad) < 0) {
		log_msg(log, LOG_LEVEL_WARNING,
			"/proc/interrupts:%zu: not understood; interrupt "
			"counts left out", bad);
		irqtune_interrupts_free(&snap->ints);
	} else {
		snap->ints_ok = true;
	}
	free(buf);
	read_threading(sys, snap);

	struct scan s = { .sys = sys, .snap = snap };
	rc = sys->ops->list_dir(sys->ctx, "/proc", scan_pid, &s);
	if (s.err)
		rc = s.err;
	if (rc < 0) {
		irqtune_snapshot_free(snap);
		return rc;
	}
	if (snap->nthreads)
		qsort(snap->threads, snap->nthreads, sizeof(*snap->threads),
		      cmp_kthread);
	return 0;
}

void irqtune_snapshot_free(struct irqtune_snapshot *snap)
{
	irqtune_interrupts_free(&snap->ints);
	free(snap->threads);
	snap->threads = NULL;
	snap->nthreads = 0;
}

/* ---- inspection ------------------------------------------------------ */

static void read_thread(const struct irqtune_sys *sys, int pid,
			struct irqtune_thread *t)
{
	char path[64], status[4096];
	size_t len;
	int ppid;
	t->sched_known = sys->ops->get_sched(sys->ctx, pid, &t->sched) == 0;
	t->cpus[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (irqtune_read_file(sys, path, status, sizeof(status), &len) == 0)
		irqtune_status_parse(status, len, &ppid, t->cpus,
				     sizeof(t->cpus));
}

void irqtune_inspect_irq(const struct irqtune_sys *sys,
			 const struct irqtune_snapshot *snap, int irq,
			 struct irqtune_irqinfo *out)
{
	char path[64], buf[256];
	size_t len;
	memset(out, 0, sizeof(*out));
	out->irq = irq;
	if (irq < 0)
		return;
	const struct irqtune_interrupt *line =
		snap->ints_ok ? irqtune_interrupts_find(&snap->ints, irq) : NULL;
	if (line) {
		out->counted = true;
		out->count = line->total;
		irqtune_copy(out->chip, sizeof(out->chip), line->chip);
	}
	snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq);
	if (irqtune_read_file(sys, path, buf, sizeof(buf), &len) == 0) {
		struct irqtune_cpuset set;
		if (irqtune_cpulist_parse(buf, len, &set))
			irqtune_cpulist_format(&set, out->affinity,
					       sizeof(out->affinity));
	}
	for (size_t i = 0; i < snap->nthreads; i++) {
		const struct irqtune_kthread *k = &snap->threads[i];
		if (k->irq != irq || out->nthreads == IRQTUNE_MAX_THREADS)
			continue;
		struct irqtune_thread *t = &out->threads[out->nthreads++];
		t->pid = k->pid;
		irqtune_copy(t->comm, sizeof(t->comm), k->comm);
		read_thread(sys, k->pid, t);
	}
}

static bool read_long(const struct irqtune_sys *sys, const char *path,
		      long *out)
{
	char buf[64];
	size_t len;
	return path[0] && irqtune_read_file(sys, path, buf, sizeof(buf), &len) == 0 &&
	       irqtune_parse_long(buf, len, 0, 1L << 30, out);
}

void irqtune_inspect_port(const struct irqtune_sys *sys,
			  const struct irqtune_snapshot *snap,
			  struct irqtune_port *p)
{
	irqtune_inspect_irq(sys, snap, p->irq.irq, &p->irq);
	for (size_t i = 0; i < p->nhc; i++)
		irqtune_inspect_irq(sys, snap, p->hc[i].irq, &p->hc[i]);
	p->rx_trig_known = read_long(sys, p->rx_trig_path, &p->rx_trig);
	p->latency_known = read_long(sys, p->latency_path, &p->latency_timer);
	p->low_latency_known = sys->ops->get_low_latency(
				       sys->ctx, p->devnode, &p->low_latency) == 0;
	p->icount_known = sys->ops->get_icount(sys->ctx, p->devnode,
					       &p->icount) == 0;
}
