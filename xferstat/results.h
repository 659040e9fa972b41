/*
 * results.h: the data model of xferstat, shared by every subcommand.
 *
 * A *result set* is one condition: a label and the runs measured (or
 * imported) under it.  `xferstat run` and `xferstat import` produce one
 * result set per label and write it as JSON; `compare` and `plot` read
 * them back.  This module owns the in-memory form, its JSON form and the
 * atomic file write; it knows nothing of transfers or statistics.
 *
 * JSON form (one file holds one set, or an array of sets under "sets"):
 *   { "xferstat": 1,
 *     "sets": [ { "label": "I", "source": "ftp://host/file", "tool": "xferstat",
 *                 "direction": "get",
 *                 "runs": [ { "bytes": 102400, "seconds": 10.1,
 *                             "setup_seconds": 0.2, "block_size": 65536,
 *                             "link": { ... optional counters ... } } ] } ] }
 * "seconds" is the data phase only; "setup_seconds" (connect, login,
 * negotiation) is null when unknown; "block_size" (NetPIPE message size)
 * is written only when not 0, and "link" only when sampled.  Unknown keys are ignored on read so
 * that newer files stay readable.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_RESULTS_H
#define XFERSTAT_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Link counters sampled around one run (xferstat run --iface). */
struct xfer_link {
	bool present;
	uint64_t tx_bytes, rx_bytes;       /* on-link bytes during the run */
	uint64_t tx_packets, rx_packets;
	uint64_t tx_errors, rx_errors;
	uint64_t tx_dropped, rx_dropped;
};

struct xfer_run {
	uint64_t bytes;         /* payload bytes moved */
	double seconds;         /* data-phase time, > 0 */
	double setup_seconds;   /* connect/login time; NAN if unknown */
	uint64_t block_size;    /* NetPIPE message size; 0 if not applicable */
	struct xfer_link link;
};

struct xfer_set {
	char *label;            /* condition name, e.g. "I", "irqtune on" */
	char *source;           /* URL measured or file imported; may be NULL */
	char *tool;             /* "xferstat", "curl", "nuttcp", "iperf3" ... */
	char *direction;        /* "get", "put", or NULL */
	size_t n_runs;
	size_t cap_runs;
	struct xfer_run *runs;
};

/* Error text for the caller to print: names the file and what is wrong. */
struct xfer_error {
	char msg[256];
};

void xfer_set_init(struct xfer_set *set);
void xfer_set_free(struct xfer_set *set);
/* Copies the string (NULL allowed); returns false on allocation failure. */
bool xfer_set_set_label(struct xfer_set *set, const char *label);
bool xfer_set_set_source(struct xfer_set *set, const char *source);
bool xfer_set_set_tool(struct xfer_set *set, const char *tool);
bool xfer_set_set_direction(struct xfer_set *set, const char *direction);
/* Appends a copy of run; false on allocation failure. */
bool xfer_set_add_run(struct xfer_set *set, const struct xfer_run *run);

/* A list of sets, as held in one file or given on a command line. */
struct xfer_sets {
	size_t n;
	size_t cap;
	struct xfer_set *sets;
};

void xfer_sets_init(struct xfer_sets *sets);
void xfer_sets_free(struct xfer_sets *sets);
/* Moves *set into the list (set is re-initialised); false on ENOMEM. */
bool xfer_sets_take(struct xfer_sets *sets, struct xfer_set *set);

/* Reads every set in a JSON file and appends them to *sets.  On error
 * returns false, appends nothing, and fills err with "FILE: what". */
bool xfer_sets_load(struct xfer_sets *sets, const char *path, struct xfer_error *err);
/* Writes the sets to path atomically (temporary file in the same
 * directory, fsync, rename): a reader sees the old file or the new one,
 * never half of one.  path "-" writes to stdout.  (xferio:) An existing
 * path that is not a regular file (/dev/null, a FIFO) is written in
 * place, never replaced; a symbolic link's target is replaced, not the
 * link. */
bool xfer_sets_save(const struct xfer_sets *sets, const char *path, struct xfer_error *err);

/* Extensions (xferio): */
/* The set with this label and direction (either may be NULL), or NULL. */
struct xfer_set *xfer_sets_find(struct xfer_sets *sets, const char *label,
				const char *direction);
/* As xfer_sets_load, from a buffer; name is used in messages. */
bool xfer_sets_load_buffer(struct xfer_sets *sets, const char *name,
			   const char *data, size_t len, struct xfer_error *err);
/* Writes the JSON form to an open stream; false on a write error. */
bool xfer_sets_write(const struct xfer_sets *sets, FILE *f);
/* Reads a whole file ("-": standard input) into a malloc'd buffer. */
bool xfer_read_whole_file(const char *path, char **data, size_t *len,
			  struct xfer_error *err);

#endif
