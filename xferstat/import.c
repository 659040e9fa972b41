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

struct format_def {
	const char *name;
	const char *tool;       /* the set's "tool" */
	line_parse_fn line;     /* line formats */
	doc_parse_fn doc;       /* JSON formats */
};

static const struct format_def formats[XFER_FORMAT_COUNT] = {
	[XFER_FORMAT_AUTO] = { "auto", NULL, NULL, NULL },
	[XFER_FORMAT_FTP] = { "ftp", "ftp", import_ftp_line, NULL },
	[XFER_FORMAT_CURL] = { "curl", "curl", import_curl_line, NULL },
	[XFER_FORMAT_CURL_JSON] = { "curl-json", "curl", NULL, import_curl_json_doc },
	[XFER_FORMAT_NUTTCP] = { "nuttcp", "nuttcp", import_nuttcp_line, NULL },
	[XFER_FORMAT_NETPIPE] = { "netpipe", "NPtcp", import_netpipe_line, NULL },
	[XFER_FORMAT_IPERF3] = { "iperf3", "iperf3", NULL, import_iperf3_doc },
	[XFER_FORMAT_IRSPRAY] = { "irspray", "irspray", import_irspray_line, NULL },
	[XFER_FORMAT_CSV] = { "csv", "csv", import_csv_line, NULL },
	[XFER_FORMAT_TIMES] = { "times", "times", import_times_line, NULL },
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

/* ---- the sink ---------------------------------------------------------- */

struct import_sink {
	const char *name;
	const char *label;               /* default label */
	const struct format_def *fmt;
	const struct logger *log;
	struct xfer_sets *sets;          /* this file's sets, merged at the end */
	struct xfer_import_stats *st;
	struct xfer_error *err;
	bool failed;
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

bool import_sink_run(struct import_sink *sink, size_t lineno, const struct xfer_run *run,
		     const char *direction, const struct cursor *label)
{
	char buf[128];
	const char *name = sink->label;
	if (label && cursor_remaining(label) > 0) {
		if (!cursor_to_cstr(label, buf, sizeof(buf))) {
			import_sink_unrecognised(sink, lineno, "label longer than 127 bytes", NULL);
			return true;
		}
		name = buf;
	}
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
	if (!xfer_set_add_run(set, run)) {
		import_sink_error(sink, "out of memory");
		return false;
	}
	sink->st->runs++;
	if (log_enabled(sink->log, LOG_LEVEL_DEBUG))
		log_msg(sink->log, LOG_LEVEL_DEBUG, "%s:%zu: run of %llu bytes in %.6g s", sink->name,
			lineno, (unsigned long long)run->bytes, run->seconds);
	return true;
}

void import_sink_unused(struct import_sink *sink, size_t lineno, const char *why)
{
	sink->st->unused++;
	log_msg(sink->log, LOG_LEVEL_INFO, "%s:%zu: no run: %s", sink->name, lineno, why);
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

void import_sink_unrecognised(struct import_sink *sink, size_t lineno, const char *why,
			      const struct cursor *text)
{
	char shown[64] = "";
	sink->st->unrecognised++;
	if (text)
		excerpt(text, shown, sizeof(shown));
	log_msg(sink->log, LOG_LEVEL_WARNING, "%s:%zu: not recognised as %s output%s%s%s%s%s",
		sink->name, lineno, sink->fmt->name, why ? " (" : "", why ? why : "",
		why ? ")" : "", text ? ": " : "", shown);
}

/* ---- line formats ------------------------------------------------------ */

static bool blank_line(struct cursor line)
{
	cursor_skip_blanks(&line);
	return cursor_at_end(&line);
}

static void classify(line_parse_fn fn, struct cursor line, const struct xfer_import_opts *opts,
		     struct line_result *res)
{
	memset(res, 0, sizeof(*res));
	res->run.setup_seconds = NAN;
	cursor_init(&res->label, NULL, 0);
	fn(line, opts, res);
}

static void parse_lines(struct import_sink *sink, const char *data, size_t len,
			const struct xfer_import_opts *opts)
{
	struct cursor c, line;
	size_t lineno = 0;
	cursor_init(&c, data, len);
	while (!sink->failed && cursor_line(&c, &line)) {
		lineno++;
		if (blank_line(line)) {
			sink->st->blank++;
			continue;
		}
		struct line_result res;
		classify(sink->fmt->line, line, opts, &res);
		switch (res.kind) {
		case LINE_RUN:
			import_sink_run(sink, lineno, &res.run, res.direction, &res.label);
			break;
		case LINE_UNUSED:
			import_sink_unused(sink, lineno, res.why);
			break;
		case LINE_UNRECOGNISED:
			import_sink_unrecognised(sink, lineno, res.why, &line);
			break;
		}
	}
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
			struct line_result a, b;
			classify(formats[f].line, line, &whole, &a);
			classify(formats[f].line, line, &parts, &b);
			if (a.kind == LINE_RUN || b.kind == LINE_RUN)
				runs++;
			else if (a.kind == LINE_UNUSED)
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
		struct xfer_set *t = xfer_sets_find(into, s->label, s->direction);
		if (t) {
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
		.fmt = &formats[f],
		.log = log,
		.sets = &local,
		.st = st,
		.err = err,
	};
	if (formats[f].doc)
		formats[f].doc(&sink, data, len, opts);
	else
		parse_lines(&sink, data, len, opts);
	st->lines = st->runs + st->unused + st->unrecognised + st->blank;
	if (!sink.failed && !merge(sets, &local)) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", name);
		sink.failed = true;
	}
	xfer_sets_free(&local);
	return !sink.failed;
}
