/*
 * import_formats.h: what the importers of each tool share with the
 * driver (import.c).  Internal to xferstat; see import.h for the API.
 *
 * A line format is a function that classifies one line (a cursor over
 * it, without its newline) and, for a run, fills it in.  A document
 * format (JSON) walks the whole buffer and reports through the sink.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_IMPORT_FORMATS_H
#define XFERSTAT_IMPORT_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "import.h"

enum line_kind {
	LINE_UNRECOGNISED,
	LINE_RUN,
	LINE_UNUSED,   /* the tool's line, but no run in it: why says what */
};

struct line_result {
	enum line_kind kind;
	struct xfer_run run;
	const char *direction;  /* "get", "put" or NULL (static strings) */
	struct cursor label;    /* a label given on the line, else empty */
	const char *why;        /* for UNUSED; optional hint for UNRECOGNISED */
};

typedef void (*line_parse_fn)(struct cursor line, const struct xfer_import_opts *opts,
			      struct line_result *res);

/* Where runs and notes go; implemented in import.c. */
struct import_sink;
bool import_sink_run(struct import_sink *sink, size_t lineno, const struct xfer_run *run,
		     const char *direction, const struct cursor *label);
void import_sink_unused(struct import_sink *sink, size_t lineno, const char *why);
void import_sink_unrecognised(struct import_sink *sink, size_t lineno, const char *why,
			      const struct cursor *text);
void import_sink_error(struct import_sink *sink, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Document formats: false on a hard error (already reported through
 * import_sink_error). */
typedef bool (*doc_parse_fn)(struct import_sink *sink, const char *data, size_t len,
			     const struct xfer_import_opts *opts);

/* Line formats. */
void import_ftp_line(struct cursor line, const struct xfer_import_opts *opts,
		     struct line_result *res);
void import_curl_line(struct cursor line, const struct xfer_import_opts *opts,
		      struct line_result *res);
void import_nuttcp_line(struct cursor line, const struct xfer_import_opts *opts,
			struct line_result *res);
void import_netpipe_line(struct cursor line, const struct xfer_import_opts *opts,
			 struct line_result *res);
void import_irspray_line(struct cursor line, const struct xfer_import_opts *opts,
			 struct line_result *res);
void import_csv_line(struct cursor line, const struct xfer_import_opts *opts,
		     struct line_result *res);
void import_times_line(struct cursor line, const struct xfer_import_opts *opts,
		       struct line_result *res);

/* Document formats (import_json.c walks concatenated JSON documents). */
bool import_iperf3_doc(struct import_sink *sink, const char *data, size_t len,
		       const struct xfer_import_opts *opts);
bool import_curl_json_doc(struct import_sink *sink, const char *data, size_t len,
			  const struct xfer_import_opts *opts);
/* Calls fn for each JSON document in data (several may follow each
 * other, as curl and shell redirections append them), with the line it
 * starts on.  A document that does not parse is reported as an
 * unrecognised line and ends the walk; false only on ENOMEM. */
struct json_object;
bool import_json_each(struct import_sink *sink, const char *data, size_t len,
		      void (*fn)(struct import_sink *sink, size_t lineno,
				 struct json_object *doc, void *ctx),
		      void *ctx);
/* Whether the first JSON document in data looks like iperf3 --json (1),
 * curl's %{json} (2), or neither (0). */
int import_json_sniff(const char *data, size_t len);

/* Text helpers (import_text.c). */

/* Skips blanks, then consumes the literal and requires a blank or the
 * end after it (a whole word). */
bool text_word_is(struct cursor *c, const char *word);
/* Skips blanks and parses a number / unsigned integer. */
bool text_double(struct cursor *c, double *out);
bool text_u64(struct cursor *c, uint64_t *out);
/* The same, but the number must end at a blank or the end of the line
 * ("10.5" is not the integer 10). */
bool text_u64_word(struct cursor *c, uint64_t *out);
bool text_double_word(struct cursor *c, double *out);
/* Only blanks are left. */
bool text_rest_blank(const struct cursor *c);
/* Bytes per second of a rate unit such as "KiB/s", "kB/s", "Mbytes/s",
 * "Kbytes/sec", "B/s"; 0 if unknown.  The word is whole (no ")"). */
double text_rate_unit(const struct cursor *word);
/* Sets a run's times from a byte count and a rate in bytes/s (for tools
 * that print coarse times but precise rates); false if unusable. */
bool text_seconds_from_rate(uint64_t bytes, double bytes_per_sec, double *seconds);
/* Whether v is a whole number k of microseconds (as printed with six
 * decimals), with k. */
bool text_micro(double v, int64_t *k);
/* Rounds a non-negative double of bytes to an integer; false if it does
 * not fit. */
bool text_bytes(double value, uint64_t *out);

/* A run of bytes in seconds, or an unused line when either is zero. */
void line_run(struct line_result *res, uint64_t bytes, double seconds);

static inline void line_unused(struct line_result *res, const char *why)
{
	res->kind = LINE_UNUSED;
	res->why = why;
}

static inline void line_unrecognised(struct line_result *res, const char *why)
{
	res->kind = LINE_UNRECOGNISED;
	res->why = why;
}

#endif
