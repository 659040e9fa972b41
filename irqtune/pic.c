/*
 * pic.c: OCW2 specific-priority commands for the 8259.  See pic.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "pic.h"

#include <stdio.h>
#include <string.h>

static void fill(struct irqtune_pic_cmd *c, unsigned port, int irq)
{
	int base = irq & ~7;
	c->port = port;
	c->irq = irq;
	c->value = (uint8_t)(0xC0 | ((irq - 1) & 7));
	for (int i = 0; i < 8; i++)
		c->order[i] = base + ((irq - base + i) & 7);
}

bool irqtune_pic_commands(int master, int slave,
			  struct irqtune_pic_cmd cmds[2], size_t *n,
			  char *err, size_t cap)
{
	*n = 0;
	if (master < 0 || master > 7) {
		snprintf(err, cap, "master IRQ %d is not on the master 8259 "
			 "(0-7)", master);
		return false;
	}
	if (slave != -1 && (slave < 8 || slave > 15)) {
		snprintf(err, cap, "slave IRQ %d is not on the slave 8259 "
			 "(8-15)", slave);
		return false;
	}
	fill(&cmds[(*n)++], IRQTUNE_PIC_MASTER_PORT, master);
	if (slave != -1)
		fill(&cmds[(*n)++], IRQTUNE_PIC_SLAVE_PORT, slave);
	return true;
}

static bool on_pic(const struct irqtune_interrupt *l)
{
	return strncmp(l->chip, "XT-PIC", 6) == 0;
}

bool irqtune_pic_in_use(const struct irqtune_interrupts *t, int irq,
			char *why, size_t cap)
{
	size_t pic = 0;
	const struct irqtune_interrupt *first = irqtune_interrupts_find(t, irq);
	for (size_t i = 0; i < t->n; i++) {
		const struct irqtune_interrupt *l =
			first && !on_pic(first) ? first : &t->v[i];
		if (on_pic(l)) {
			pic++;
			continue;
		}
		snprintf(why, cap, "IRQ %d (%s) is delivered by %s, not by the "
			 "8259 PIC (XT-PIC)", l->irq,
			 l->desc[0] ? l->desc : "no handler",
			 l->chip[0] ? l->chip : "an unnamed controller");
		return false;
	}
	if (pic == 0) {
		snprintf(why, cap, "/proc/interrupts lists no IRQ on the 8259 "
			 "PIC (XT-PIC)");
		return false;
	}
	return true;
}

int irqtune_pic_execute(const struct irqtune_sys *sys,
			const struct irqtune_pic_cmd *cmds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = sys->ops->port_out(sys->ctx, cmds[i].port,
					    cmds[i].value);
		if (rc < 0)
			return rc;
	}
	return 0;
}
