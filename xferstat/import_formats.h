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

/*
 * A line parser is called on the whole line (in_text false: the record
 * must fill the line, as the tool prints it) and, for the formats that
 * can be scanned (the ones whose records start with words of their own),
 * at every place in the line where a record could start (in_text true:
 * text may follow the record, and `end` says where it stopped).  A why
 * on an UNRECOGNISED result means a record started there but is cut or
 * changed; without one nothing of the format started there.
 */
struct line_result {
	enum line_kind kind;
	bool in_text;           /* set by the driver: text may follow the record */
	struct xfer_run run;
	const char *direction;  /* "get", "put" or NULL (static strings) */
	struct cursor label;    /* a label given on the line, else empty */
	const char *why;        /* for UNUSED; optional hint for UNRECOGNISED */
	size_t end;             /* bytes of the record (in_text), 0 if unknown */
	bool session_end;       /* this record closes its tool's session (nuttcp totals) */
};

typedef void (*line_parse_fn)(struct cursor line, const struct xfer_import_opts *opts,
			      struct line_result *res);

/* Where a message points: 1-based line and column (byte) of the input. */
struct import_pos {
	size_t line, col;
};

/* Where runs and notes go; implemented in import.c.  Each counts for the
 * line (or JSON document) being read; import_sink_next_item() closes it. */
struct import_sink;
bool import_sink_run(struct import_sink *sink, struct import_pos at, const struct xfer_run *run,
		     const char *direction, const struct cursor *label);
void import_sink_unused(struct import_sink *sink, struct import_pos at, const char *why);
void import_sink_unrecognised(struct import_sink *sink, struct import_pos at, const char *why,
			      const struct cursor *text);
void import_sink_error(struct import_sink *sink, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same, naming the place: "FILE:LINE:COL: ...". */
void import_sink_error_at(struct import_sink *sink, struct import_pos at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Ends the current session of the tool (iperf3: a test with its
 * intervals); the next run starts the next one. */
void import_sink_session_break(struct import_sink *sink);
/* A session cut short at `at` (a truncated document): reported, and its
 * runs are not imported. */
void import_sink_session_cut(struct import_sink *sink, struct import_pos at, const char *why);
/* Classifies the line or document just read by what it gave: a run, else
 * a line without a run, else an unrecognised one. */
void import_sink_next_item(struct import_sink *sink);

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

/* The hand-kept table (import_table.c): a whole-file format. */
bool import_table_doc(struct import_sink *sink, const char *data, size_t len,
		      const struct xfer_import_opts *opts);
bool import_table_sniff(const char *data, size_t len);
/* The sink's default label (the file's base name or --label). */
const char *import_sink_label(const struct import_sink *sink);
/* Counts an Avg. or Dev. cell that matches none of the statistics. */
void import_sink_check_failed(struct import_sink *sink);
bool import_sink_failed(const struct import_sink *sink);
/* Counts a blank line of a document format. */
void import_sink_blank(struct import_sink *sink);
/* Adds a line of the table check to the caller's report. */
void import_sink_check(struct import_sink *sink, struct import_pos at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

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
		      void (*fn)(struct import_sink *sink, struct import_pos at,
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
/* Where a record read up to c ends: in text (res->in_text) it may stop
 * anywhere, and res->end is set to the bytes read from line; else only
 * blanks may follow. */
bool text_record_end(struct line_result *res, const struct cursor *line, const struct cursor *c);
/* Skips blanks and consumes the literal; unlike text_word_is no blank
 * needs to follow (for words ending in a closing parenthesis). */
bool text_literal(struct cursor *c, const char *text);
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

/* Whether a line has the shape of a heading of the runs under it in a
 * pasted mail (a short line of prose: no prompt, command, path or option;
 * not a sentence ending in ",", "?" or "!"), with its text as the set's
 * name (without a final ":" or ".") in name (import_headings.c). */
bool text_heading(struct cursor line, char *name, size_t cap);

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
