/*
 * import.h: turns the output of other transfer tools into result sets.
 *
 * Owns format detection and the parsers for: BSD (tnftp), GNU (inetutils,
 * netkit) and lftp transfer summaries, curl -w lines and curl's
 * -w '%{json}', nuttcp (brief, -fparse and -v lines, -i intervals),
 * NetPIPE NPtcp (np.out and stdout), iperf3 --json, irspray/irdaspray,
 * CSV and plain lists of times.  Does not own the file format of the
 * results (results.h) nor any statistics.
 *
 * Every input line ends up in exactly one of four counts: a run, a line
 * of the tool that carries no run (its chatter, an interval line when
 * whole-test figures are taken...: "unused", logged at info level), a
 * blank line, or an unrecognised line (logged as a warning naming
 * FILE:LINE).  Nothing is dropped silently.
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
};

struct xfer_import_stats {
	enum xfer_format format;  /* the format used (detected or given) */
	size_t lines;             /* lines (or JSON documents) read */
	size_t runs;
	size_t unused;            /* recognised, but carry no run */
	size_t unrecognised;
	size_t blank;
};

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
