/*
 * state.h: the record of original values that `irqtune restore` puts
 * back (/run/irqtune/state).
 *
 * Owns: the entry model (a knob of a device and its original value), the
 * file format (one tab-separated entry per line, parsed through struct
 * cursor, every entry validated so a damaged file can never make
 * restore write outside the knobs irqtune owns), and loading, locking
 * and atomic saving of the file.
 *
 * The first apply records a knob's value before changing it; a later
 * apply never overwrites that record, so restore returns to the values
 * from before irqtune ever ran.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRQTUNE_STATE_H
#define IRQTUNE_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "port.h"

#define IRQTUNE_STATE_FILE "/run/irqtune/state"

enum irqtune_knob {
	IRQTUNE_KNOB_SCHED,	  /* target: thread name "irq/N-..." */
	IRQTUNE_KNOB_AFFINITY,	  /* target: IRQ number */
	IRQTUNE_KNOB_ATTR,	  /* target: sysfs attribute path */
	IRQTUNE_KNOB_LOW_LATENCY, /* target: /dev node */
};

struct irqtune_entry {
	enum irqtune_knob knob;
	char device[32];
	char target[IRQTUNE_PATH + 16];
	char value[64];
};

struct irqtune_state {
	struct irqtune_entry *v;
	size_t n, cap;
};

const char *irqtune_knob_name(enum irqtune_knob k);
/* Checks target and value for the knob; false with a message. */
bool irqtune_entry_valid(const struct irqtune_entry *e, char *err,
			 size_t cap);

/* Parses a state file; errors are "file:line: message" in err. */
int irqtune_state_parse(const void *text, size_t len, const char *file,
			struct irqtune_state *out, char *err, size_t cap);
/* The file's text, malloc'ed. */
int irqtune_state_format(const struct irqtune_state *s, char **text,
			 size_t *len);
void irqtune_state_free(struct irqtune_state *s);
int irqtune_state_add(struct irqtune_state *s, const struct irqtune_entry *e);
/* Index of the entry for this knob and target, or -1. */
long irqtune_state_find(const struct irqtune_state *s, enum irqtune_knob k,
			const char *target);
void irqtune_state_remove(struct irqtune_state *s, size_t i);

/* Takes an exclusive lock (PATH.lock, created with its directory) for
 * the whole read-modify-write; returns the lock fd or -errno. */
int irqtune_state_lock(const char *path);
void irqtune_state_unlock(int fd);
/* Loads the file; a missing file is an empty state.  -EINVAL with the
 * message in err for a damaged one. */
int irqtune_state_load(const char *path, struct irqtune_state *out,
		       char *err, size_t cap);
/* Writes PATH atomically (temporary file, fsync, rename, fsync of the
 * directory); an empty state removes the file. */
int irqtune_state_save(const char *path, const struct irqtune_state *s);

#endif
