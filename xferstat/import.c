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

void xfer_import_stats_free(struct xfer_import_stats *st)
{
	for (size_t i = 0; i < st->n_checks; i++)
		free(st->checks[i]);
	free(st->checks);
	st->checks = NULL;
	st->n_checks = 0;
}

/* ---- the sink ---------------------------------------------------------- */

/* A set the current session added runs to, and its run count before. */
struct session_mark {
	size_t set;
	size_t runs_before;
};

struct import_sink {
	const char *name;
	const char *label;               /* default label */
	bool label_given;                /* --label: joins the sessions */
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
	size_t sessions_seen;            /* sessions that had runs */
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

const char *import_sink_label(const struct import_sink *sink)
{
	return sink->label;
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
		snprintf(buf, cap, "%s#%zu", sink->label, sink->session);
		return buf;
	}
	return sink->label;
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
	if (sink->n_marks == sink->cap_marks) {
		size_t cap = sink->cap_marks ? 2 * sink->cap_marks : 4;
		struct session_mark *grown = realloc(sink->marks, cap * sizeof(*grown));
		if (!grown)
			return false;
		sink->marks = grown;
		sink->cap_marks = cap;
	}
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

bool import_sink_run(struct import_sink *sink, struct import_pos at, const struct xfer_run *run,
		     const char *direction, const struct cursor *label)
{
	char buf[160];
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
		sink->sessions_seen++;
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
	char shown[64] = "";
	sink->item_unrecognised++;
	if (text)
		excerpt(text, shown, sizeof(shown));
	log_msg(sink->log, LOG_LEVEL_WARNING, "%s:%zu:%zu: not recognised as %s output%s%s%s%s%s",
		sink->name, at.line, at.col, sink->fmt->name, why ? " (" : "", why ? why : "",
		why ? ")" : "", text ? ": " : "", shown);
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
		parse_line(sink, line, lineno, opts, &tail);
		import_sink_next_item(sink);
	}
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

/* A file of one session keeps the plain label: NAME#1 becomes NAME. */
static void single_session_label(struct import_sink *sink)
{
	char one[160];
	if (sink->sessions == SESSIONS_NONE || sink->label_given || sink->sessions_seen != 1)
		return;
	snprintf(one, sizeof(one), "%s#1", sink->label);
	for (size_t i = 0; i < sink->sets->n; i++) {
		struct xfer_set *set = &sink->sets->sets[i];
		if (strcmp(set->label, one) == 0 && !xfer_set_set_label(set, sink->label))
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
		.label = opts->label ? opts->label : base_name(name),
		.label_given = opts->label != NULL,
		.fmt = &formats[f],
		.log = log,
		.sets = &local,
		.st = st,
		.err = err,
		.sessions = formats[f].sessions_of_intervals && !opts->intervals ? SESSIONS_NONE
			    : formats[f].sessions,
		.session = 1,
	};
	if (formats[f].doc)
		formats[f].doc(&sink, data, len, opts);
	else
		parse_lines(&sink, data, len, opts);
	free(sink.marks);
	if (!sink.failed)
		single_session_label(&sink);
	if (!sink.failed && !merge(sets, &local)) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", name);
		sink.failed = true;
	}
	xfer_sets_free(&local);
	return !sink.failed;
}
