/*
 * import.c: the import driver: format table, detection, the line loop
 * and the sink that files runs into sets.  See import.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "import.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_formats.h"

/* How a format's output splits into sessions (runs of the tool one after
 * the other in one file). */
enum session_rule {
	SESSIONS_NONE,
	SESSIONS_BY_BLOCK,      /* NetPIPE: a block size not above the last starts a sweep */
	SESSIONS_BY_TOTALS,     /* nuttcp -i: the totals line closes the intervals before it */
	SESSIONS_BY_DOCUMENT,   /* iperf3: each test's intervals */
};

struct format_def {
	const char *name;
	const char *tool;       /* the set's "tool" */
	line_parse_fn line;     /* line formats */
	doc_parse_fn doc;       /* JSON formats */
	bool scan;              /* records are looked for anywhere in a line */
	enum session_rule sessions;
	bool sessions_of_intervals;     /* sessions only with --intervals */
};

static const struct format_def formats[XFER_FORMAT_COUNT] = {
	[XFER_FORMAT_AUTO] = { "auto", NULL, NULL, NULL, false, SESSIONS_NONE, false },
	[XFER_FORMAT_FTP] = { "ftp", "ftp", import_ftp_line, NULL, true, SESSIONS_NONE, false },
	[XFER_FORMAT_CURL] = { "curl", "curl", import_curl_line, NULL, false, SESSIONS_NONE, false },
	[XFER_FORMAT_CURL_JSON] = { "curl-json", "curl", NULL, import_curl_json_doc, false,
				    SESSIONS_NONE, false },
	[XFER_FORMAT_NUTTCP] = { "nuttcp", "nuttcp", import_nuttcp_line, NULL, true,
				 SESSIONS_BY_TOTALS, true },
	[XFER_FORMAT_NETPIPE] = { "netpipe", "NPtcp", import_netpipe_line, NULL, true,
				  SESSIONS_BY_BLOCK, false },
	[XFER_FORMAT_IPERF3] = { "iperf3", "iperf3", NULL, import_iperf3_doc, false,
				 SESSIONS_BY_DOCUMENT, true },
	[XFER_FORMAT_IRSPRAY] = { "irspray", "irspray", import_irspray_line, NULL, true,
				  SESSIONS_NONE, false },
	[XFER_FORMAT_CSV] = { "csv", "csv", import_csv_line, NULL, false, SESSIONS_NONE, false },
	[XFER_FORMAT_TIMES] = { "times", "times", import_times_line, NULL, false,
				SESSIONS_NONE, false },
	[XFER_FORMAT_TABLE] = { "table", "table", NULL, import_table_doc, false,
				SESSIONS_NONE, false },
};

const char *xfer_format_name(enum xfer_format format)
{
	return (unsigned)format < XFER_FORMAT_COUNT ? formats[format].name : NULL;
}

bool xfer_format_from_name(const char *name, enum xfer_format *out)
{
	for (unsigned i = 0; i < XFER_FORMAT_COUNT; i++) {
		if (strcmp(formats[i].name, name) == 0) {
			*out = (enum xfer_format)i;
			return true;
		}
	}
	return false;
}

static void free_lines(char ***lines, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free((*lines)[i]);
	free(*lines);
	*lines = NULL;
	*n = 0;
}

void xfer_import_stats_free(struct xfer_import_stats *st)
{
	free_lines(&st->checks, &st->n_checks);
	free_lines(&st->sets_made, &st->n_sets_made);
}

/* Appends a copy of text to a list of lines; false on ENOMEM. */
static bool add_line(char ***lines, size_t *n, const char *text)
{
	char **grown = realloc(*lines, (*n + 1) * sizeof(*grown));
	if (!grown)
		return false;
	*lines = grown;
	grown[*n] = strdup(text);
	if (!grown[*n])
		return false;
	(*n)++;
	return true;
}

/* ---- the sink ---------------------------------------------------------- */

/* A set the current session added runs to, and its run count before. */
struct session_mark {
	size_t set;
	size_t runs_before;
};

/* Where the label of the runs comes from. */
enum label_origin { ORIGIN_FILE, ORIGIN_OPTION, ORIGIN_HEADING, ORIGIN_SEPARATOR };

/* The file, or a heading in it, and the sets under it. */
struct base {
	char label[128];
	enum label_origin origin;
	size_t line;                     /* of the heading */
	size_t sessions;                 /* sessions under it that had runs */
};

/* A line that starts a new set if runs follow it. */
struct pending_heading {
	bool set;
	char name[128];
	size_t line;
	enum label_origin origin;
	bool has_warning;                /* the line's "not recognised" warning, held back */
	char warning[320];
};

struct import_sink {
	const char *name;
	bool label_given;                /* --label: joins the sessions */
	/* Headings; the runs' default label is the last base's. */
	struct base *bases;
	size_t n_bases, cap_bases;
	bool find_headings;
	const char *separator;
	size_t separators;               /* separator lines without a name */
	struct pending_heading pending;
	bool hold_warning;               /* keep a line's warning until it is known */
	bool have_held;
	char held[320];
	char **reasons;                  /* why each set of sets was made */
	size_t n_reasons;
	const struct format_def *fmt;
	const struct logger *log;
	struct xfer_sets *sets;          /* this file's sets, merged at the end */
	struct xfer_import_stats *st;
	struct xfer_error *err;
	bool failed;
	/* What the current line (or document) gave. */
	size_t item_runs, item_unused, item_unrecognised;
	/* Sessions. */
	enum session_rule sessions;
	size_t session;                  /* number of the current one, from 1 */
	size_t session_runs;             /* its runs so far */
	uint64_t last_block;
	struct session_mark *marks;
	size_t n_marks, cap_marks;
};

void import_sink_error(struct import_sink *sink, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(sink->err->msg, sizeof(sink->err->msg), "%s: %s", sink->name, msg);
	sink->failed = true;
}

void import_sink_error_at(struct import_sink *sink, struct import_pos at, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(sink->err->msg, sizeof(sink->err->msg), "%s:%zu:%zu: %s", sink->name, at.line,
		 at.col, msg);
	sink->failed = true;
}

static const struct base *current_base(const struct import_sink *sink)
{
	return &sink->bases[sink->n_bases - 1];
}

const char *import_sink_label(const struct import_sink *sink)
{
	return current_base(sink)->label;
}

/* A growing array with room for element n (doubling, from 4): arr
 * itself or its new place; NULL, with arr untouched, on ENOMEM. */
static void *room_for_one(void *arr, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return arr;
	size_t grown_cap = *cap ? 2 * *cap : 4;
	void *grown = realloc(arr, grown_cap * size);
	if (grown)
		*cap = grown_cap;
	return grown;
}

/* Runs from now on go under this label. */
static bool begin_base(struct import_sink *sink, const char *label, enum label_origin origin,
		       size_t line)
{
	struct base *bases = room_for_one(sink->bases, &sink->cap_bases, sink->n_bases,
					  sizeof(*bases));
	if (!bases)
		return false;
	sink->bases = bases;
	struct base *b = &sink->bases[sink->n_bases++];
	snprintf(b->label, sizeof(b->label), "%s", label);
	b->origin = origin;
	b->line = line;
	b->sessions = 0;
	return true;
}

void import_sink_check_failed(struct import_sink *sink)
{
	sink->st->checks_failed++;
}

bool import_sink_failed(const struct import_sink *sink)
{
	return sink->failed;
}

void import_sink_blank(struct import_sink *sink)
{
	sink->st->blank++;
	sink->st->lines++;
}

void import_sink_check(struct import_sink *sink, struct import_pos at, const char *fmt, ...)
{
	char msg[400];
	char *line = NULL;
	va_list ap;
	int n = snprintf(msg, sizeof(msg), "%s:%zu:%zu: ", sink->name, at.line, at.col);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < sizeof(msg))
		vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	struct xfer_import_stats *st = sink->st;
	char **grown = realloc(st->checks, (st->n_checks + 1) * sizeof(*grown));
	if (grown) {
		st->checks = grown;
		line = strdup(msg);
	}
	if (!line) {
		import_sink_error(sink, "out of memory");
		return;
	}
	st->checks[st->n_checks++] = line;
}

/* The label of the set a run goes to: given on its line, else NAME#k in
 * a file of sessions, else the default. */
static const char *run_label(struct import_sink *sink, const struct cursor *label, char *buf,
			     size_t cap, struct import_pos at)
{
	if (label && cursor_remaining(label) > 0) {
		if (!cursor_to_cstr(label, buf, cap)) {
			import_sink_unrecognised(sink, at, "label longer than 127 bytes", NULL);
			return NULL;
		}
		return buf;
	}
	if (sink->sessions != SESSIONS_NONE && !sink->label_given) {
		snprintf(buf, cap, "%s#%zu", import_sink_label(sink), sink->session);
		return buf;
	}
	return import_sink_label(sink);
}

void import_sink_session_break(struct import_sink *sink)
{
	if (sink->session_runs == 0)
		return;
	sink->session++;
	sink->session_runs = 0;
	sink->n_marks = 0;
	sink->last_block = 0;
}

/* Remembers the run count of a set before the current session first
 * added to it, so that a session cut short can be taken back. */
static bool mark_set(struct import_sink *sink, size_t set)
{
	for (size_t i = 0; i < sink->n_marks; i++)
		if (sink->marks[i].set == set)
			return true;
	struct session_mark *marks = room_for_one(sink->marks, &sink->cap_marks, sink->n_marks,
						  sizeof(*marks));
	if (!marks)
		return false;
	sink->marks = marks;
	sink->marks[sink->n_marks++] = (struct session_mark){ set, sink->sets->sets[set].n_runs };
	return true;
}

void import_sink_session_cut(struct import_sink *sink, struct import_pos at, const char *why)
{
	char label[160];
	if (sink->sessions == SESSIONS_NONE)
		return;
	const char *name = run_label(sink, NULL, label, sizeof(label), at);
	for (size_t i = 0; i < sink->n_marks; i++)
		sink->sets->sets[sink->marks[i].set].n_runs = sink->marks[i].runs_before;
	log_msg(sink->log, LOG_LEVEL_WARNING,
		"%s:%zu:%zu: session %s cut short (%s); not imported (%zu runs read before the cut)",
		sink->name,
		at.line, at.col, name, why, sink->session_runs);
	sink->st->runs -= sink->session_runs;
	sink->st->dropped += sink->session_runs;
	if (sink->session_runs > 0)
		sink->st->sessions--;
	sink->session_runs = 0;
	sink->n_marks = 0;
}

static const char *const session_words[] = {
	[SESSIONS_NONE] = "",
	[SESSIONS_BY_BLOCK] = "a message size not above the last starts a sweep",
	[SESSIONS_BY_TOTALS] = "each nuttcp command's intervals",
	[SESSIONS_BY_DOCUMENT] = "each iperf3 test",
};

/* Why the set a run starts is made: its own label, or the heading it is
 * under (or the file, or --label). */
static bool note_reason(struct import_sink *sink, const struct cursor *label, size_t line)
{
	const struct base *b = current_base(sink);
	char why[200];
	if (label && cursor_remaining(label) > 0)
		snprintf(why, sizeof(why), "named in the input, first run on line %zu", line);
	else if (b->origin == ORIGIN_HEADING)
		snprintf(why, sizeof(why), "named by the heading on line %zu", b->line);
	else if (b->origin == ORIGIN_SEPARATOR)
		snprintf(why, sizeof(why), "named by the separator on line %zu", b->line);
	else
		snprintf(why, sizeof(why), "%s", b->origin == ORIGIN_OPTION ? "named by --label"
									: "named after the file");
	return add_line(&sink->reasons, &sink->n_reasons, why);
}

static void release_held(struct import_sink *sink)
{
	if (sink->have_held)
		log_msg(sink->log, LOG_LEVEL_WARNING, "%s", sink->held);
	sink->have_held = false;
}

/* A heading not followed by runs is what it was: a line not recognised. */
static void release_pending(struct import_sink *sink)
{
	if (sink->pending.set && sink->pending.has_warning)
		log_msg(sink->log, LOG_LEVEL_WARNING, "%s", sink->pending.warning);
	sink->pending.set = false;
}

/* The first run after a heading: its set begins (not inside a nuttcp
 * command's intervals, which the heading cannot split). */
static bool confirm_heading(struct import_sink *sink)
{
	struct pending_heading *p = &sink->pending;
	if (sink->sessions == SESSIONS_BY_TOTALS && sink->session_runs > 0) {
		release_pending(sink);
		return true;
	}
	p->set = false;
	import_sink_session_break(sink);
	if (!begin_base(sink, p->name, p->origin, p->line)) {
		import_sink_error(sink, "out of memory");
		return false;
	}
	sink->session = 1;
	sink->session_runs = 0;
	sink->n_marks = 0;
	sink->last_block = 0;
	sink->st->headings++;
	if (p->origin == ORIGIN_HEADING) {
		sink->st->unrecognised--;       /* counted when its line was read */
		sink->st->unused++;
	}
	log_msg(sink->log, LOG_LEVEL_INFO, "%s:%zu:1: %s \"%s\": the runs after it are its set",
		sink->name, p->line, p->origin == ORIGIN_HEADING ? "heading" : "separator",
		p->name);
	return true;
}

bool import_sink_run(struct import_sink *sink, struct import_pos at, const struct xfer_run *run,
		     const char *direction, const struct cursor *label)
{
	char buf[160];
	if (sink->pending.set && !confirm_heading(sink))
		return false;
	if (sink->sessions == SESSIONS_BY_BLOCK) {
		if (run->block_size <= sink->last_block)
			import_sink_session_break(sink);
		sink->last_block = run->block_size;
	}
	const char *name = run_label(sink, label, buf, sizeof(buf), at);
	if (!name)
		return true;
	struct xfer_set *set = xfer_sets_find(sink->sets, name, direction);
	if (!set) {
		struct xfer_set fresh;
		xfer_set_init(&fresh);
		if (!xfer_set_set_label(&fresh, name) || !xfer_set_set_source(&fresh, sink->name) ||
		    !xfer_set_set_tool(&fresh, sink->fmt->tool) ||
		    !xfer_set_set_direction(&fresh, direction) || !xfer_sets_take(sink->sets, &fresh)) {
			xfer_set_free(&fresh);
			import_sink_error(sink, "out of memory");
			return false;
		}
		if (!note_reason(sink, label, at.line)) {
			import_sink_error(sink, "out of memory");
			return false;
		}
		set = &sink->sets->sets[sink->sets->n - 1];
	}
	if ((sink->sessions != SESSIONS_NONE &&
	     !mark_set(sink, (size_t)(set - sink->sets->sets))) ||
	    !xfer_set_add_run(set, run)) {
		import_sink_error(sink, "out of memory");
		return false;
	}
	if (sink->session_runs++ == 0 && sink->sessions != SESSIONS_NONE) {
		sink->st->sessions++;
		sink->bases[sink->n_bases - 1].sessions++;
	}
	sink->st->runs++;
	sink->item_runs++;
	if (log_enabled(sink->log, LOG_LEVEL_DEBUG))
		log_msg(sink->log, LOG_LEVEL_DEBUG, "%s:%zu:%zu: run of %llu bytes in %.6g s",
			sink->name, at.line, at.col, (unsigned long long)run->bytes, run->seconds);
	return true;
}

void import_sink_unused(struct import_sink *sink, struct import_pos at, const char *why)
{
	sink->item_unused++;
	log_msg(sink->log, LOG_LEVEL_INFO, "%s:%zu:%zu: no run: %s", sink->name, at.line, at.col,
		why);
}

/* A printable excerpt of an offending line. */
static void excerpt(const struct cursor *text, char *buf, size_t cap)
{
	struct cursor c = *text;
	size_t n = 0;
	uint8_t ch;
	while (n + 4 < cap && cursor_u8(&c, &ch))
		buf[n++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	if (cursor_remaining(&c) > 0 && n + 4 <= cap) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
}

void import_sink_unrecognised(struct import_sink *sink, struct import_pos at, const char *why,
			      const struct cursor *text)
{
	char shown[64] = "", msg[sizeof(sink->held)];
	sink->item_unrecognised++;
	if (text)
		excerpt(text, shown, sizeof(shown));
	snprintf(msg, sizeof(msg), "%s:%zu:%zu: not recognised as %s output%s%s%s%s%s",
		 sink->name, at.line, at.col, sink->fmt->name, why ? " (" : "", why ? why : "",
		 why ? ")" : "", text ? ": " : "", shown);
	if (!sink->hold_warning) {
		log_msg(sink->log, LOG_LEVEL_WARNING, "%s", msg);
		return;
	}
	release_held(sink);     /* a second one in the line: the first is told now */
	memcpy(sink->held, msg, sizeof(msg));
	sink->have_held = true;
}

void import_sink_next_item(struct import_sink *sink)
{
	struct xfer_import_stats *st = sink->st;
	if (sink->item_runs)
		st->run_lines++;
	else if (sink->item_unused || !sink->item_unrecognised)
		st->unused++;
	else
		st->unrecognised++;
	st->lines++;
	sink->item_runs = sink->item_unused = sink->item_unrecognised = 0;
}

/* ---- line formats ------------------------------------------------------ */

static bool blank_line(struct cursor line)
{
	cursor_skip_blanks(&line);
	return cursor_at_end(&line);
}

static void classify(line_parse_fn fn, struct cursor line, const struct xfer_import_opts *opts,
		     bool in_text, struct line_result *res)
{
	memset(res, 0, sizeof(*res));
	res->in_text = in_text;
	res->run.setup_seconds = NAN;
	cursor_init(&res->label, NULL, 0);
	fn(line, opts, res);
}

/* Bytes of blanks and quote markers (">", "> > ") before a line's text. */
static size_t quote_prefix(struct cursor line)
{
	size_t off = 0;
	uint8_t ch;
	for (;;) {
		off += cursor_skip_blanks(&line);
		if (!cursor_peek_u8(&line, &ch) || ch != '>')
			return off;
		cursor_u8(&line, &ch);
		off++;
	}
}

static bool is_alnum(uint8_t ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* Records cut or changed in one line, reported once the line is read. */
#define BROKEN_KEPT 4
struct broken {
	size_t n;
	struct {
		size_t col;
		const char *why;
	} at[BROKEN_KEPT];
};

/* What the whole-line parse and the scan of one line found. */
struct line_scan {
	size_t runs;
	size_t last_run_end;    /* column after the last run */
	bool unused;
	size_t unused_col;
	const char *unused_why;
	struct broken broken;
};

static void file_result(struct import_sink *sink, struct import_pos at,
			const struct line_result *res)
{
	import_sink_run(sink, at, &res->run, res->direction, &res->label);
	if (res->session_end)
		import_sink_session_break(sink);
}

/* Advances s to the next place in a line where a record could start: a
 * letter or digit not preceded by one (nor by a '.', inside a number).
 * False at the end of the line. */
static bool next_start(struct cursor *s, uint8_t *prev)
{
	uint8_t ch;
	while (cursor_peek_u8(s, &ch)) {
		if (is_alnum(ch) && !is_alnum(*prev) && *prev != '.')
			return true;
		cursor_u8(s, prev);
	}
	return false;
}

/* Moves past a record found at s (or one byte when its end is unknown). */
static void past_record(struct cursor *s, uint8_t *prev, const struct line_result *res)
{
	if (res->end > 0) {
		cursor_skip(s, res->end);
		*prev = ' ';   /* a record may follow at once (a lost line break) */
	} else {
		cursor_u8(s, prev);
	}
}

/* Looks for records at every place in the line where one could start. */
static void scan_line(struct import_sink *sink, struct cursor line, size_t lineno,
		      const struct xfer_import_opts *opts, struct line_scan *ls)
{
	struct cursor s = line;
	uint8_t prev = ' ';
	while (!sink->failed && next_start(&s, &prev)) {
		size_t col = s.pos - line.pos + 1;
		struct line_result res;
		classify(sink->fmt->line, s, opts, true, &res);
		struct import_pos at = { lineno, col };
		if (res.kind == LINE_RUN) {
			file_result(sink, at, &res);
			ls->runs++;
			ls->last_run_end = col + res.end;
		} else if (res.kind == LINE_UNUSED && res.end > 0) {
			if (!ls->unused) {
				ls->unused_col = col;
				ls->unused_why = res.why;
			}
			ls->unused = true;
			if (res.session_end)
				import_sink_session_break(sink);
		} else if (res.kind == LINE_UNRECOGNISED && res.why) {
			struct broken *b = &ls->broken;
			if (b->n < BROKEN_KEPT) {
				b->at[b->n].col = col;
				b->at[b->n].why = res.why;
			}
			b->n++;
		}
		past_record(&s, &prev, &res);
	}
}

/* For detection: the runs of a line (whole, or found in it), and whether
 * the format knows the line without a run in it. */
static size_t count_runs(const struct format_def *f, struct cursor line,
			 const struct xfer_import_opts *opts, bool *unused)
{
	struct cursor text = line;
	struct line_result res;
	cursor_skip(&text, quote_prefix(line));
	classify(f->line, text, opts, false, &res);
	*unused = res.kind == LINE_UNUSED;
	if (res.kind == LINE_RUN || !f->scan)
		return res.kind == LINE_RUN;
	size_t runs = 0;
	uint8_t prev = ' ';
	while (next_start(&text, &prev)) {
		classify(f->line, text, opts, true, &res);
		runs += res.kind == LINE_RUN;
		past_record(&text, &prev, &res);
	}
	return runs;
}

/* Whether the line ends in a record cut or changed (nothing good after
 * it): at the end of a file, a session cut short. */
struct tail {
	bool broken;
	struct import_pos at;
	const char *why;
};

static void parse_line(struct import_sink *sink, struct cursor line, size_t lineno,
		       const struct xfer_import_opts *opts, struct tail *tail)
{
	size_t off = quote_prefix(line);
	struct cursor text = line;
	cursor_skip(&text, off);
	struct import_pos at = { lineno, off + 1 };
	struct line_result res;
	bool more = false;      /* a record at the start, and text after it */
	tail->broken = false;
	if (sink->fmt->scan) {
		/* The common case: one record that fills the line. */
		classify(sink->fmt->line, text, opts, true, &res);
		struct cursor rest = text;
		if (res.end > 0 && res.kind != LINE_UNRECOGNISED && cursor_skip(&rest, res.end) &&
		    text_rest_blank(&rest)) {
			if (res.kind == LINE_RUN) {
				file_result(sink, at, &res);
			} else {
				import_sink_unused(sink, at, res.why);
				if (res.session_end)
					import_sink_session_break(sink);
			}
			return;
		}
		more = res.kind == LINE_RUN;
	}
	/* Forms looked for only as whole lines (NetPIPE's np.out). */
	classify(sink->fmt->line, text, opts, false, &res);
	if (res.kind == LINE_RUN && !more) {
		file_result(sink, at, &res);
		return;
	}
	if (!sink->fmt->scan) {
		if (res.kind == LINE_UNUSED)
			import_sink_unused(sink, at, res.why);
		else
			import_sink_unrecognised(sink, at, res.why, &text);
		tail->broken = res.why != NULL && res.kind == LINE_UNRECOGNISED;
		tail->at = at;
		tail->why = res.why;
		return;
	}
	struct line_scan ls;
	memset(&ls, 0, sizeof(ls));
	scan_line(sink, line, lineno, opts, &ls);
	const struct broken *b = &ls.broken;
	size_t kept = b->n < BROKEN_KEPT ? b->n : BROKEN_KEPT;
	if (kept > 0 && b->at[kept - 1].col >= ls.last_run_end) {
		tail->broken = true;
		tail->at = (struct import_pos){ lineno, b->at[kept - 1].col };
		tail->why = b->at[kept - 1].why;
	}
	if (ls.runs > 0) {
		for (size_t i = 0; i < kept; i++)
			log_msg(sink->log, LOG_LEVEL_WARNING, "%s:%zu:%zu: %s record cut or changed (%s)",
				sink->name, lineno, b->at[i].col, sink->fmt->name, b->at[i].why);
		if (b->n > kept)
			log_msg(sink->log, LOG_LEVEL_WARNING,
				"%s:%zu:%zu: and %zu more records cut or changed after this one",
				sink->name, lineno, b->at[kept - 1].col, b->n - kept);
		sink->st->broken += b->n;
		return;
	}
	if (res.kind == LINE_UNUSED) {
		import_sink_unused(sink, at, res.why);
	} else if (ls.unused) {
		import_sink_unused(sink, (struct import_pos){ lineno, ls.unused_col }, ls.unused_why);
	} else if (kept > 0) {
		struct cursor from = line;
		cursor_skip(&from, b->at[0].col - 1);
		import_sink_unrecognised(sink, (struct import_pos){ lineno, b->at[0].col },
					 b->at[0].why, &from);
	} else {
		import_sink_unrecognised(sink, at, res.why, &text);
		if (res.why) {
			tail->broken = true;
			tail->at = at;
			tail->why = res.why;
		}
	}
}

/* The text of a line after its quote markers. */
static struct cursor unquoted(struct cursor line)
{
	cursor_skip(&line, quote_prefix(line));
	return line;
}

/* Bytes up to the last non-blank. */
static size_t trimmed_length(struct cursor c)
{
	size_t len = 0, n = 0;
	uint8_t ch;
	while (cursor_u8(&c, &ch)) {
		n++;
		if (ch != ' ' && ch != '\t')
			len = n;
	}
	return len;
}

/* A line starting with --separator: the next runs are a set named by
 * the rest of the line (or FILE#k when nothing follows). */
static bool separator_line(struct import_sink *sink, struct cursor line, size_t lineno)
{
	struct cursor text = unquoted(line);
	struct pending_heading *p = &sink->pending;
	if (!sink->separator || !cursor_literal(&text, sink->separator))
		return false;
	release_pending(sink);
	cursor_skip_blanks(&text);
	size_t len = trimmed_length(text);
	struct cursor name;
	if (len >= sizeof(p->name))
		len = sizeof(p->name) - 1;
	cursor_sub(&text, len, &name);
	if (len == 0)
		snprintf(p->name, sizeof(p->name), "%.100s#%zu", sink->bases[0].label,
			 ++sink->separators);
	else
		cursor_to_cstr(&name, p->name, sizeof(p->name));
	p->set = true;
	p->line = lineno;
	p->origin = ORIGIN_SEPARATOR;
	p->has_warning = false;
	import_sink_unused(sink, (struct import_pos){ lineno, 1 },
			   "a separator of sets (--separator): the runs after it are a set");
	return true;
}

/* After a line shaped like a heading is read: if it gave nothing but a
 * "not recognised", it is the heading of the runs that follow, if any. */
static void note_heading(struct import_sink *sink, bool shaped, const char *name,
			 size_t lineno, bool broken)
{
	struct pending_heading *p = &sink->pending;
	if (!shaped || sink->item_runs || sink->item_unused || !sink->item_unrecognised ||
	    broken) {
		release_held(sink);
		return;
	}
	release_pending(sink);
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->set = true;
	p->line = lineno;
	p->origin = ORIGIN_HEADING;
	p->has_warning = sink->have_held;
	memcpy(p->warning, sink->held, sizeof(p->warning));
	sink->have_held = false;
}

static void parse_lines(struct import_sink *sink, const char *data, size_t len,
			const struct xfer_import_opts *opts)
{
	struct cursor c, line;
	size_t lineno = 0;
	struct tail tail = { false, { 0, 0 }, NULL };
	cursor_init(&c, data, len);
	while (!sink->failed && cursor_line(&c, &line)) {
		lineno++;
		if (blank_line(line)) {
			sink->st->blank++;
			sink->st->lines++;
			continue;
		}
		if (separator_line(sink, line, lineno)) {
			import_sink_next_item(sink);
			continue;
		}
		char name[sizeof(sink->pending.name)];
		bool shaped = sink->find_headings && text_heading(unquoted(line), name, sizeof(name));
		sink->hold_warning = shaped;
		parse_line(sink, line, lineno, opts, &tail);
		sink->hold_warning = false;
		note_heading(sink, shaped, name, lineno, tail.broken);
		import_sink_next_item(sink);
	}
	release_pending(sink);
	release_held(sink);
	if (sink->failed || sink->sessions == SESSIONS_NONE)
		return;
	if (tail.broken)
		import_sink_session_cut(sink, tail.at, tail.why);
	else if (sink->sessions == SESSIONS_BY_TOTALS && sink->session_runs > 0)
		import_sink_session_cut(sink, (struct import_pos){ lineno, 1 },
					"intervals without the totals line that ends them");
}

/* ---- detection --------------------------------------------------------- */

/* "#" comments, which several formats allow, are no evidence of any. */
static bool comment_line(struct cursor line)
{
	cursor_skip_blanks(&line);
	return cursor_literal(&line, "#");
}

#define DETECT_LINES 200

enum xfer_format xfer_import_detect(const char *data, size_t len,
				    const struct xfer_import_opts *opts)
{
	int json = import_json_sniff(data, len);
	if (json == 1)
		return XFER_FORMAT_IPERF3;
	if (json == 2)
		return XFER_FORMAT_CURL_JSON;
	if (import_table_sniff(data, len))
		return XFER_FORMAT_TABLE;
	/* Score: lines that are runs with or without --intervals; lines the
	 * format knows but that carry no run only break a tie at zero runs
	 * (a file of lftp's sub-second lines), so that the user is told
	 * why there is no run rather than that nothing was recognised. */
	struct xfer_import_opts whole = *opts, parts = *opts;
	whole.intervals = false;
	parts.intervals = true;
	if (whole.size == 0)
		whole.size = parts.size = 1;
	size_t best_runs = 0, best_unused = 0;
	enum xfer_format best = XFER_FORMAT_AUTO;
	for (unsigned f = 1; f < XFER_FORMAT_COUNT; f++) {
		if (!formats[f].line || (f == XFER_FORMAT_TIMES && opts->size == 0))
			continue;
		struct cursor c, line;
		size_t seen = 0, runs = 0, unused = 0;
		cursor_init(&c, data, len);
		while (seen < DETECT_LINES && cursor_line(&c, &line)) {
			if (blank_line(line) || comment_line(line))
				continue;
			seen++;
			bool a_unused, b_unused;
			size_t a = count_runs(&formats[f], line, &whole, &a_unused);
			size_t b = count_runs(&formats[f], line, &parts, &b_unused);
			if (a || b)
				runs += a > b ? a : b;
			else if (a_unused)
				unused++;
		}
		/* Ties go to the earlier, more specific format. */
		if (runs > best_runs || (best_runs == 0 && runs == 0 && unused > best_unused)) {
			best_runs = runs;
			best_unused = unused;
			best = (enum xfer_format)f;
		}
	}
	return best;
}

/* ---- the entry point --------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* A file (or heading) of one session keeps the plain label: NAME#1
 * becomes NAME. */
static void single_session_label(struct import_sink *sink)
{
	char one[160];
	if (sink->sessions == SESSIONS_NONE || sink->label_given)
		return;
	for (size_t b = 0; b < sink->n_bases; b++) {
		if (sink->bases[b].sessions != 1)
			continue;
		snprintf(one, sizeof(one), "%s#1", sink->bases[b].label);
		for (size_t i = 0; i < sink->sets->n; i++) {
			struct xfer_set *set = &sink->sets->sets[i];
			if (strcmp(set->label, one) == 0 &&
			    !xfer_set_set_label(set, sink->bases[b].label))
				import_sink_error(sink, "out of memory");
		}
	}
}

/* The caller's list of the sets made, and why. */
static void report_sets(struct import_sink *sink)
{
	char line[400];
	for (size_t i = 0; i < sink->sets->n && i < sink->n_reasons; i++) {
		const struct xfer_set *set = &sink->sets->sets[i];
		if (set->n_runs == 0)
			continue;       /* all its runs were in a session cut short */
		/* NAME#k: one of several sessions under the same name. */
		bool session = sink->sessions != SESSIONS_NONE && !sink->label_given &&
			       strchr(set->label, '#');
		snprintf(line, sizeof(line), "\"%s\"%s%s%s: %zu run%s, %s%s%s%s", set->label,
			 set->direction ? " (" : "", set->direction ? set->direction : "",
			 set->direction ? ")" : "", set->n_runs, set->n_runs == 1 ? "" : "s",
			 sink->reasons[i], session ? "; one of its sessions (" : "",
			 session ? session_words[sink->sessions] : "", session ? ")" : "");
		if (!add_line(&sink->st->sets_made, &sink->st->n_sets_made, line))
			import_sink_error(sink, "out of memory");
	}
}

/* Moves this file's sets into the caller's, merging equal label and
 * direction; all or nothing. */
static bool merge(struct xfer_sets *into, struct xfer_sets *from)
{
	size_t need = 0;
	for (size_t i = 0; i < from->n; i++) {
		struct xfer_set *s = &from->sets[i];
		struct xfer_set *t = xfer_sets_find(into, s->label, s->direction);
		if (t) {
			/* Reserve room first so that no append can fail later. */
			size_t total = t->n_runs + s->n_runs;
			if (total > t->cap_runs) {
				struct xfer_run *grown = realloc(t->runs, total * sizeof(*grown));
				if (!grown)
					return false;
				t->runs = grown;
				t->cap_runs = total;
			}
		} else {
			need++;
		}
	}
	if (into->n + need > into->cap) {
		size_t cap = into->n + need;
		struct xfer_set *grown = realloc(into->sets, cap * sizeof(*grown));
		if (!grown)
			return false;
		into->sets = grown;
		into->cap = cap;
	}
	for (size_t i = 0; i < from->n; i++) {
		struct xfer_set *s = &from->sets[i];
		struct xfer_set *t = s->n_runs ? xfer_sets_find(into, s->label, s->direction) : NULL;
		if (s->n_runs == 0) {
			xfer_set_free(s);   /* all its runs were in a session cut short */
		} else if (t) {
			memcpy(t->runs + t->n_runs, s->runs, s->n_runs * sizeof(*s->runs));
			t->n_runs += s->n_runs;
			xfer_set_free(s);
		} else {
			xfer_sets_take(into, s);
		}
	}
	from->n = 0;
	return true;
}

bool xfer_import_buffer(struct xfer_sets *sets, const char *name,
			const char *data, size_t len,
			const struct xfer_import_opts *opts,
			struct xfer_import_stats *st, const struct logger *log,
			struct xfer_error *err)
{
	memset(st, 0, sizeof(*st));
	enum xfer_format f = opts->format;
	if ((unsigned)f >= XFER_FORMAT_COUNT) {
		snprintf(err->msg, sizeof(err->msg), "%s: unknown format", name);
		return false;
	}
	if (f == XFER_FORMAT_TIMES && opts->size == 0) {
		snprintf(err->msg, sizeof(err->msg),
			 "%s: a list of times needs --size BYTES (the bytes of each run)", name);
		return false;
	}
	if (f == XFER_FORMAT_AUTO) {
		f = xfer_import_detect(data, len, opts);
		if (f == XFER_FORMAT_AUTO) {
			snprintf(err->msg, sizeof(err->msg),
				 "%s: no line matches any known format%s (give --format)", name,
				 opts->size ? "" : "; a list of times needs --size");
			return false;
		}
		log_msg(log, LOG_LEVEL_INFO, "%s: detected format %s", name, formats[f].name);
	}
	st->format = f;
	struct xfer_sets local;
	xfer_sets_init(&local);
	struct import_sink sink = {
		.name = name,
		.label_given = opts->label != NULL,
		.find_headings = !opts->label && !opts->separator && formats[f].line,
		.separator = opts->label ? NULL : opts->separator,
		.fmt = &formats[f],
		.log = log,
		.sets = &local,
		.st = st,
		.err = err,
		.sessions = formats[f].sessions_of_intervals && !opts->intervals ? SESSIONS_NONE
			    : formats[f].sessions,
		.session = 1,
	};
	if (!begin_base(&sink, opts->label ? opts->label : base_name(name),
			opts->label ? ORIGIN_OPTION : ORIGIN_FILE, 0)) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", name);
		return false;
	}
	if (formats[f].doc)
		formats[f].doc(&sink, data, len, opts);
	else
		parse_lines(&sink, data, len, opts);
	free(sink.marks);
	if (!sink.failed)
		single_session_label(&sink);
	if (!sink.failed)
		report_sets(&sink);
	free(sink.bases);
	free_lines(&sink.reasons, &sink.n_reasons);
	if (!sink.failed && !merge(sets, &local)) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", name);
		sink.failed = true;
	}
	xfer_sets_free(&local);
	return !sink.failed;
}
