/*
 * import.h: turns the output of other transfer tools into result sets.
 *
 * Owns format detection and the parsers for: BSD (tnftp), GNU (inetutils,
 * netkit) and lftp transfer summaries, curl -w lines and curl's
 * -w '%{json}', nuttcp (brief, -fparse and -v lines, -i intervals),
 * NetPIPE NPtcp (np.out and stdout), iperf3 --json, irspray/irdaspray,
 * CSV, plain lists of times, and hand-kept tables of repeated timings
 * (with a check of their Avg. and Dev. rows).  Does not own the file
 * format of the results (results.h) nor the statistics of `compare`.
 *
 * Records are found wherever they sit in a line for the tools whose
 * records start with words of their own (ftp, nuttcp, NetPIPE, irspray):
 * after a prompt, with text after them, several in one line.  Every
 * input line (or JSON document) ends up in exactly one of four counts: a
 * line with one or more runs, a line of the tool that carries no run
 * (its chatter, an interval line when whole-test figures are taken...:
 * "unused", logged at info level), a blank line, or an unrecognised line
 * (logged as a warning naming FILE:LINE:COLUMN).  Nothing is dropped
 * silently.
 *
 * Sessions: a file holding several runs of a tool one after the other
 * (NetPIPE sweeps, nuttcp -i or iperf3 tests taken by their intervals)
 * gives one set per session, labelled NAME#1, NAME#2 ... (a label given
 * in the options joins them).  A session cut short (a truncated last
 * record, nuttcp intervals without their totals) is reported and none of
 * its runs is imported.
 *
 * Headings: in a pasted mail a short line of prose with no run, followed
 * by runs ("Before the patch", "with CRC", "old:", "Test II"), starts a
 * set named by it; sessions under it are HEADING#1, HEADING#2 ...  A
 * label given in the options puts everything in one set; a separator
 * given in the options replaces the guess.  st->sets_made says which sets
 * a file gave and why.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_IMPORT_H
#define XFERSTAT_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "results.h"

enum xfer_format {
	XFER_FORMAT_AUTO = 0,
	XFER_FORMAT_FTP,        /* tnftp, inetutils/netkit ftp, lftp */
	XFER_FORMAT_CURL,       /* curl -w, see xferstat(1) */
	XFER_FORMAT_CURL_JSON,  /* curl -w '%{json}' */
	XFER_FORMAT_NUTTCP,
	XFER_FORMAT_NETPIPE,    /* NPtcp np.out or its stdout */
	XFER_FORMAT_IPERF3,     /* iperf3 --json */
	XFER_FORMAT_IRSPRAY,    /* irspray / irdaspray */
	XFER_FORMAT_CSV,        /* bytes,seconds[,label] */
	XFER_FORMAT_TIMES,      /* one time in seconds a line; needs size */
	XFER_FORMAT_TABLE,      /* a hand-kept table: Run, Time, Rate, Avg., Dev. */
	XFER_FORMAT_COUNT
};

/* "ftp", "curl", ... ; NULL for an out-of-range value. */
const char *xfer_format_name(enum xfer_format format);
/* Looks a name up (as printed by xfer_format_name, or "auto"). */
bool xfer_format_from_name(const char *name, enum xfer_format *out);

struct xfer_import_opts {
	enum xfer_format format;  /* XFER_FORMAT_AUTO: detect per file */
	const char *label;        /* NULL: the file's base name */
	uint64_t size;            /* bytes per run for "times"; 0 if not given */
	bool intervals;           /* nuttcp -i / iperf3 intervals become runs */
	/* A line starting with this text (after quote markers) starts a new
	 * set, named by the rest of the line; NULL: sets start at headings
	 * (short lines of prose followed by runs) unless label is given. */
	const char *separator;
};

struct xfer_import_stats {
	enum xfer_format format;  /* the format used (detected or given) */
	size_t lines;             /* lines (or JSON documents) read */
	size_t runs;              /* runs imported */
	size_t run_lines;         /* lines with at least one run */
	size_t unused;            /* lines recognised, but without a run */
	size_t unrecognised;      /* lines not recognised */
	size_t blank;             /* lines = run_lines + unused + unrecognised + blank */
	size_t broken;            /* records cut or changed inside lines with runs */
	size_t sessions;          /* sessions with runs (0 for formats without) */
	size_t dropped;           /* runs of sessions cut short, not imported */
	/* The table format's check of its Avg. and Dev. rows, one line of
	 * text each ("FILE:LINE:COL: ..."); free with xfer_import_stats_free. */
	char **checks;
	size_t n_checks;
	size_t checks_failed;     /* Avg./Dev. cells that match none of the statistics */
	/* The sets this file gave, and why each was made, one line of text
	 * each ("LABEL: N runs (the heading on line 3)"); freed with the rest. */
	char **sets_made;
	size_t n_sets_made;
	size_t headings;          /* sets started by a heading or a separator line */
};

void xfer_import_stats_free(struct xfer_import_stats *st);

/* Guesses the format of a file's content; XFER_FORMAT_AUTO if none fits.
 * "times" is a candidate only when opts->size is set. */
enum xfer_format xfer_import_detect(const char *data, size_t len,
				    const struct xfer_import_opts *opts);

/* Parses one file's content (name is used in messages and as the default
 * label) and merges its runs into *sets: into the set of the same label
 * and direction if there is one, else a new set.  Per-line reports go to
 * log.  Returns false, with err set and *sets untouched, when the input
 * cannot be parsed at all (unknown format, broken JSON, "times" without a
 * size) or memory runs out; a file with only unrecognised lines is not
 * an error here (see st->runs). */
bool xfer_import_buffer(struct xfer_sets *sets, const char *name,
			const char *data, size_t len,
			const struct xfer_import_opts *opts,
			struct xfer_import_stats *st, const struct logger *log,
			struct xfer_error *err);

#endif
