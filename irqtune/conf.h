/*
 * conf.h: the policy: /etc/irqtune.conf (irqtune.conf(5)) and the
 * settings a port ends up with.
 *
 * Owns: the settings model (each knob is a value, "keep" = leave it
 * alone, or "inherit" = not said here), the built-in defaults, the
 * config parser (through struct cursor; errors as "file:line: message"),
 * rule matching, and layering: defaults < global settings < every
 * matching rule in file order < command-line options.
 *
 * Does not own: reading the file, or applying anything (plan.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRQTUNE_CONF_H
#define IRQTUNE_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "port.h"

#define IRQTUNE_INHERIT (-2) /* not said at this layer */
#define IRQTUNE_KEEP (-1)    /* leave the current value alone */

/* The built-in defaults (justified in irqtune.conf(5)). */
#define IRQTUNE_DEFAULT_PRIO 90
#define IRQTUNE_DEFAULT_LATENCY_TIMER 1

struct irqtune_settings {
	int prio;	   /* FIFO priority of the port's IRQ thread(s) */
	int hc_prio;	   /* FIFO priority of the USB host controller's */
	int rx_trigger;	   /* rx_trig_bytes */
	int low_latency;   /* 0 or 1 */
	int latency_timer; /* ms, USB serial */
	char cpus[64];	   /* IRQ affinity: canonical CPU list, "keep", or "" */
};

/* Every knob INHERIT. */
void irqtune_settings_init(struct irqtune_settings *s);
/* The built-in defaults: prio 90, latency_timer 1, the rest KEEP. */
void irqtune_settings_defaults(struct irqtune_settings *s);
/* Copies every knob of top that is not INHERIT onto base. */
void irqtune_settings_overlay(struct irqtune_settings *base,
			      const struct irqtune_settings *top);
/* Sets one knob by name ("prio", "hc_prio", "rx_trigger", "low_latency",
 * "latency_timer", "cpus") from its text; on error writes a message
 * naming the value into err and returns false. */
bool irqtune_settings_set(struct irqtune_settings *s, const char *key,
			  const char *value, char *err, size_t errcap);

#define IRQTUNE_MAX_CONDS 8

/* "KEY=GLOB": KEY is "name" (matched against the kernel name, the /dev
 * node and every by-id/by-path link) or a udev property name. */
struct irqtune_cond {
	char key[32];
	char glob[160];
};

struct irqtune_rule {
	size_t line;
	size_t nconds;
	struct irqtune_cond conds[IRQTUNE_MAX_CONDS];
	struct irqtune_settings set;
};

struct irqtune_conf {
	struct irqtune_settings global;
	struct irqtune_rule *rules;
	size_t nrules;
};

/* Parses a whole config.  On error returns -EINVAL (or -ENOMEM) with
 * "file:line: message" in err; out is then empty but must still be
 * freed. */
int irqtune_conf_parse(const void *text, size_t len, const char *file,
		       struct irqtune_conf *out, char *err, size_t errcap);
void irqtune_conf_init(struct irqtune_conf *c);
void irqtune_conf_free(struct irqtune_conf *c);

bool irqtune_rule_matches(const struct irqtune_rule *r,
			  const struct irqtune_port *p);
/* defaults, then the config's global settings, then each matching
 * rule, then cli (may be NULL). */
void irqtune_conf_resolve(const struct irqtune_conf *c,
			  const struct irqtune_port *p,
			  const struct irqtune_settings *cli,
			  struct irqtune_settings *out);

#endif
