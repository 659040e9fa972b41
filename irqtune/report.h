/*
 * report.h: how the irqtune program prints ports (list, list --json,
 * stat).  Program code: it writes to the FILE it is given.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRQTUNE_REPORT_H
#define IRQTUNE_REPORT_H

#include <stdio.h>

#include "port.h"

void irqtune_report_text(FILE *out, const struct irqtune_ports *ports);
/* Returns 0 or -ENOMEM. */
int irqtune_report_json(FILE *out, const struct irqtune_ports *ports,
			const struct irqtune_snapshot *snap);

/* One stat line per port: interrupts since the previous sample and the
 * rate over `seconds`, and the error counters. */
void irqtune_report_stat_header(FILE *out);
void irqtune_report_stat(FILE *out, const struct irqtune_port *p,
			 const struct irqtune_port *before, double seconds);

#endif
