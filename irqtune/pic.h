/*
 * pic.h: the 1996 irqtune, for machines that still route interrupts
 * through the 8259 PIC.
 *
 * Owns: deciding from /proc/interrupts whether the 8259 is what delivers
 * interrupts (every numbered IRQ on "XT-PIC"), and the OCW2
 * "set priority" commands: 0xC0 | ((irq - 1) & 7) to port 0x20 (master)
 * or 0xA0 (slave) makes irq - 1 the lowest priority, so irq itself
 * becomes the highest and the rest follow in rotation.
 *
 * On an APIC machine the 8259 is masked and those priorities mean
 * nothing: the caller refuses, pointing to `irqtune apply`.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRQTUNE_PIC_H
#define IRQTUNE_PIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "procfs.h"
#include "sys.h"

#define IRQTUNE_PIC_MASTER_PORT 0x20
#define IRQTUNE_PIC_SLAVE_PORT 0xA0
#define IRQTUNE_PIC_DEFAULT_MASTER 3
#define IRQTUNE_PIC_DEFAULT_SLAVE 14

struct irqtune_pic_cmd {
	unsigned port;
	uint8_t value;
	int irq;	  /* the IRQ that becomes the highest */
	int order[8];	  /* the resulting priority order, highest first */
};

/* master 0..7, slave 8..15 or -1 for none; false with a message naming
 * the bad number. */
bool irqtune_pic_commands(int master, int slave,
			  struct irqtune_pic_cmd cmds[2], size_t *n,
			  char *err, size_t cap);

/* Whether the 8259 delivers interrupts here; if not, why (naming an IRQ,
 * irq itself when it is listed, and the controller that delivers it). */
bool irqtune_pic_in_use(const struct irqtune_interrupts *t, int irq,
			char *why, size_t cap);

int irqtune_pic_execute(const struct irqtune_sys *sys,
			const struct irqtune_pic_cmd *cmds, size_t n);

#endif
