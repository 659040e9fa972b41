/*
 * report.c: printing ports.  See report.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <json-c/json.h>

#include "conf.h"

static void text_irq(FILE *out, const char *label,
		     const struct irqtune_irqinfo *irq)
{
	fprintf(out, "  %s %d", label, irq->irq);
	if (irq->counted)
		fprintf(out, ": %s, %" PRIu64 " interrupts", irq->chip,
			irq->count);
	fprintf(out, ", cpus %s\n", irq->affinity[0] ? irq->affinity : "?");
	if (irq->nthreads == 0)
		fprintf(out, "    no IRQ thread\n");
	for (size_t i = 0; i < irq->nthreads; i++) {
		const struct irqtune_thread *t = &irq->threads[i];
		char s[32] = "?";
		if (t->sched_known)
			irqtune_sched_format(&t->sched, s, sizeof(s));
		fprintf(out, "    thread %s pid %d %s cpus %s\n", t->comm,
			t->pid, s, t->cpus[0] ? t->cpus : "?");
	}
}

void irqtune_report_text(FILE *out, const struct irqtune_ports *ports)
{
	for (size_t i = 0; i < ports->n; i++) {
		const struct irqtune_port *p = &ports->v[i];
		const char *uart = irqtune_uart_name(p->uart_type);
		fprintf(out, "%s %s driver %s", p->name, p->devnode,
			p->driver[0] ? p->driver : "?");
		if (p->bus == IRQTUNE_BUS_UART)
			fprintf(out, " uart %s", uart ? uart : "?");
		else
			fprintf(out, " usb");
		fputc('\n', out);
		for (size_t l = 0; l < p->nlinks; l++)
			fprintf(out, "  link %s\n", p->links[l]);
		if (p->irq.irq >= 0)
			text_irq(out, "IRQ", &p->irq);
		if (p->hc_syspath[0])
			fprintf(out, "  host controller %s driver %s\n",
				p->hc_syspath, p->hc_driver[0] ? p->hc_driver : "?");
		for (size_t h = 0; h < p->nhc; h++)
			text_irq(out, "host controller IRQ", &p->hc[h]);
		if (p->rx_trig_known)
			fprintf(out, "  rx_trig_bytes %ld\n", p->rx_trig);
		if (p->latency_known)
			fprintf(out, "  latency_timer %ld ms\n", p->latency_timer);
		if (p->low_latency_known)
			fprintf(out, "  low_latency %s\n",
				p->low_latency ? "on" : "off");
		if (p->icount_known)
			fprintf(out, "  errors overrun %" PRIu64 " buf_overrun %"
				PRIu64 " frame %" PRIu64 " parity %" PRIu64
				" brk %" PRIu64 "\n", p->icount.overrun,
				p->icount.buf_overrun, p->icount.frame,
				p->icount.parity, p->icount.brk);
	}
}

/* json-c objects are reference counted; adding to a parent takes the
 * reference, so only the root is put. */
static json_object *jstr(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static json_object *json_irq(const struct irqtune_irqinfo *irq)
{
	json_object *o = json_object_new_object(), *th = json_object_new_array();
	json_object_object_add(o, "irq", json_object_new_int(irq->irq));
	json_object_object_add(o, "chip", jstr(irq->counted ? irq->chip : NULL));
	json_object_object_add(o, "interrupts",
			       irq->counted ? json_object_new_uint64(irq->count)
					    : NULL);
	json_object_object_add(o, "affinity", jstr(irq->affinity));
	for (size_t i = 0; i < irq->nthreads; i++) {
		const struct irqtune_thread *t = &irq->threads[i];
		json_object *j = json_object_new_object();
		json_object_object_add(j, "pid", json_object_new_int(t->pid));
		json_object_object_add(j, "name", json_object_new_string(t->comm));
		json_object_object_add(j, "policy",
			t->sched_known ? jstr(irqtune_policy_name(t->sched.policy))
				       : NULL);
		json_object_object_add(j, "priority",
			t->sched_known ? json_object_new_int(t->sched.prio) : NULL);
		json_object_object_add(j, "cpus", jstr(t->cpus));
		json_object_array_add(th, j);
	}
	json_object_object_add(o, "threads", th);
	return o;
}

static json_object *json_port(const struct irqtune_port *p)
{
	json_object *o = json_object_new_object(), *a;
	json_object_object_add(o, "name", json_object_new_string(p->name));
	json_object_object_add(o, "devnode", json_object_new_string(p->devnode));
	json_object_object_add(o, "syspath", json_object_new_string(p->syspath));
	a = json_object_new_array();
	for (size_t i = 0; i < p->nlinks; i++)
		json_object_array_add(a, json_object_new_string(p->links[i]));
	json_object_object_add(o, "links", a);
	json_object_object_add(o, "driver", jstr(p->driver));
	json_object_object_add(o, "bus", json_object_new_string(
		p->bus == IRQTUNE_BUS_UART ? "uart" : "usb"));
	json_object_object_add(o, "uart_type", p->uart_type >= 0
		? json_object_new_int(p->uart_type) : NULL);
	json_object_object_add(o, "uart", jstr(irqtune_uart_name(p->uart_type)));
	json_object_object_add(o, "irq", p->irq.irq >= 0 ? json_irq(&p->irq) : NULL);
	json_object_object_add(o, "rx_trig_bytes", p->rx_trig_known
		? json_object_new_int64(p->rx_trig) : NULL);
	json_object_object_add(o, "latency_timer", p->latency_known
		? json_object_new_int64(p->latency_timer) : NULL);
	json_object_object_add(o, "low_latency", p->low_latency_known
		? json_object_new_boolean(p->low_latency) : NULL);
	if (p->icount_known) {
		json_object *c = json_object_new_object();
		json_object_object_add(c, "rx", json_object_new_uint64(p->icount.rx));
		json_object_object_add(c, "tx", json_object_new_uint64(p->icount.tx));
		json_object_object_add(c, "overrun", json_object_new_uint64(p->icount.overrun));
		json_object_object_add(c, "buf_overrun", json_object_new_uint64(p->icount.buf_overrun));
		json_object_object_add(c, "frame", json_object_new_uint64(p->icount.frame));
		json_object_object_add(c, "parity", json_object_new_uint64(p->icount.parity));
		json_object_object_add(c, "brk", json_object_new_uint64(p->icount.brk));
		json_object_object_add(o, "counters", c);
	} else {
		json_object_object_add(o, "counters", NULL);
	}
	if (p->bus == IRQTUNE_BUS_USB) {
		json_object *hc = json_object_new_object(), *irqs = json_object_new_array();
		json_object_object_add(hc, "syspath", jstr(p->hc_syspath));
		json_object_object_add(hc, "driver", jstr(p->hc_driver));
		for (size_t i = 0; i < p->nhc; i++)
			json_object_array_add(irqs, json_irq(&p->hc[i]));
		json_object_object_add(hc, "irqs", irqs);
		json_object_object_add(o, "usb_host", hc);
	}
	a = json_object_new_object();
	for (size_t i = 0; i < p->nprops; i++)
		json_object_object_add(a, p->props[i].key,
				       json_object_new_string(p->props[i].value));
	json_object_object_add(o, "properties", a);
	return o;
}

int irqtune_report_json(FILE *out, const struct irqtune_ports *ports,
			const struct irqtune_snapshot *snap)
{
	json_object *root = json_object_new_object(), *arr = json_object_new_array();
	if (!root || !arr)
		return -ENOMEM;
	json_object_object_add(root, "threaded_irqs",
			       json_object_new_boolean(snap->threaded));
	json_object_object_add(root, "preempt_rt", json_object_new_boolean(snap->rt));
	for (size_t i = 0; i < ports->n; i++)
		json_object_array_add(arr, json_port(&ports->v[i]));
	json_object_object_add(root, "ports", arr);
	fprintf(out, "%s\n", json_object_to_json_string_ext(root,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return 0;
}

void irqtune_report_stat_header(FILE *out)
{
	fprintf(out, "%-10s %5s %12s %10s %8s %11s %6s %6s %6s\n", "PORT", "IRQ",
		"INTERRUPTS", "PER_SEC", "OVERRUN", "BUF_OVERRUN", "FRAME",
		"PARITY", "BRK");
}

static uint64_t irq_total(const struct irqtune_port *p, bool *known)
{
	uint64_t sum = 0;
	*known = false;
	if (p->irq.irq >= 0) {
		*known = p->irq.counted;
		return p->irq.count;
	}
	for (size_t i = 0; i < p->nhc; i++) {
		*known = *known || p->hc[i].counted;
		sum += p->hc[i].count;
	}
	return sum;
}

void irqtune_report_stat(FILE *out, const struct irqtune_port *p,
			 const struct irqtune_port *before, double seconds)
{
	bool known, known0;
	uint64_t now = irq_total(p, &known), then = irq_total(before, &known0);
	char irq[16], rate[24], c[5][24];
	if (p->irq.irq >= 0)
		snprintf(irq, sizeof(irq), "%d", p->irq.irq);
	else if (p->nhc)
		snprintf(irq, sizeof(irq), "hc%d", p->hc[0].irq);
	else
		snprintf(irq, sizeof(irq), "-");
	if (known && known0 && seconds > 0 && now >= then)
		snprintf(rate, sizeof(rate), "%.1f", (double)(now - then) / seconds);
	else
		snprintf(rate, sizeof(rate), "-");
	const uint64_t v[5] = { p->icount.overrun, p->icount.buf_overrun,
				p->icount.frame, p->icount.parity, p->icount.brk };
	for (int i = 0; i < 5; i++) {
		if (p->icount_known)
			snprintf(c[i], sizeof(c[i]), "%" PRIu64, v[i]);
		else
			snprintf(c[i], sizeof(c[i]), "-");
	}
	char total[24];
	if (known)
		snprintf(total, sizeof(total), "%" PRIu64, now);
	else
		snprintf(total, sizeof(total), "-");
	fprintf(out, "%-10s %5s %12s %10s %8s %11s %6s %6s %6s\n", p->name, irq,
		total, rate, c[0], c[1], c[2], c[3], c[4]);
}
