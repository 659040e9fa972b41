/*
 * import_table.c: a hand-kept table of repeated timings, the layout
 * people used to report them in mail and papers (and that `xferstat
 * compare` prints):
 *
 *                      I                       II
 *     Run    Time (s)   Rate (KiB/s)   Time (s)   Rate (KiB/s)
 *     1         10.10           9.90       7.30          13.70
 *     ...
 *     Avg.      10.12           9.88       7.35          13.61
 *     Dev.       0.24           0.23       0.19           0.35
 *
 * A header row names the conditions (separated by two blanks or more, a
 * tab or "|"), a row names the columns of each condition (Time, Rate,
 * Size, each with an optional unit in parentheses), then one numbered
 * row per run and optional Avg. and Dev. rows.  Cells are matched to
 * columns in order when a row is full, else by where they sit under the
 * column names.  The runs' bytes come from a Size column or --size.
 *
 * The Avg. and Dev. rows are then checked against the printed cells of
 * the runs: is the Avg. the mean (for a rate also the harmonic mean,
 * which is total bytes / total time for equal sizes), is the Dev. the
 * sample or the population SD, rounded or truncated to the digits
 * printed, or neither.  The statistics are computed here, on the printed
 * decimals (not with the statistics library of `compare`, which this
 * library does not link), in long double, and a value within 1e-9 of a
 * last-digit unit of a rounding boundary counts as matching it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "import_formats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_MAX_COLS 48
#define TABLE_SNIFF_LINES 50

enum col_kind { COL_RUN, COL_TIME, COL_RATE, COL_SIZE };

struct column {
	enum col_kind kind;
	double unit;            /* seconds, bytes/s or bytes per printed unit */
	char name[48];          /* as printed: "Time (s)" */
	size_t from, to;        /* columns of the line it spans (1-based, inclusive) */
};

/* A piece of a row between separators. */
struct token {
	struct cursor text;
	size_t from, to;
};

struct cell {
	bool present;
	double value;
	int decimals;           /* digits after the point; -1 with an exponent */
	size_t col;             /* where it starts in its line */
};

struct table {
	struct column cols[TABLE_MAX_COLS];
	size_t ncols;           /* data columns (without the run column) */
	size_t group;           /* columns per condition */
	size_t nconds;
	struct token names[TABLE_MAX_COLS];
	size_t nnames;
	bool have_names;
	/* Cells of the run rows, row-major, ncols a row. */
	struct cell *cells;
	size_t rows, cap_rows;
	size_t *row_line;
	struct cell avg[TABLE_MAX_COLS], dev[TABLE_MAX_COLS];
	size_t avg_line, dev_line;
	bool have_avg, have_dev;
	/* An Avg. or Dev. row with one value per condition (the author's
	 * deviation of the times only): the value of condition c is in
	 * avg[c * group] / dev[c * group], and may be any column's. */
	bool avg_per_set, dev_per_set;
	bool have_units_line;   /* units on the line under the column names */
};

static bool is_blank(uint8_t ch)
{
	return ch == ' ' || ch == '\t';
}

/* Splits a line into tokens at blanks and "|"; with wide, only at runs
 * of two blanks or more, tabs and "|" (condition names may hold a
 * blank). */
static size_t tokens(struct cursor line, bool wide, struct token *out, size_t max)
{
	size_t n = 0, base = line.pos;
	uint8_t ch;
	for (;;) {
		while (cursor_peek_u8(&line, &ch) && (is_blank(ch) || ch == '|'))
			cursor_u8(&line, &ch);
		if (cursor_at_end(&line))
			return n;
		struct cursor start = line;
		size_t len = 0, blanks = 0;
		while (cursor_peek_u8(&line, &ch) && ch != '|' && ch != '\t') {
			if (ch == ' ') {
				if (!wide || blanks == 1)
					break;
				blanks++;
			} else {
				len += blanks + 1;
				blanks = 0;
			}
			cursor_u8(&line, &ch);
		}
		if (n == max)
			return max + 1;
		cursor_sub(&start, len, &out[n].text);
		out[n].from = start.pos - len - base + 1;
		out[n].to = out[n].from + len - 1;
		n++;
	}
}

static bool token_is(const struct token *t, const char *const *words)
{
	for (; *words; words++)
		if (cursor_equals(&t->text, *words))
			return true;
	return false;
}

static const char *const run_words[] = { "Run", "run", "#", "No.", "No", "Count", "count",
					 "Nr.", "Nr", NULL };
static const char *const avg_words[] = { "Avg.", "Avg", "avg.", "avg", "Mean", "mean",
					 "Average", "average", NULL };
static const char *const dev_words[] = { "Dev.", "Dev", "dev.", "dev", "SD", "S.D.", "sd",
					 "Std.dev.", "Stdev", "StDev", "Std.Dev.", "Dev.(pop.)",
					 NULL };

/* A unit "(KiB/s)" or "[s]" into its factor for the column kind; 0 if
 * unknown. */
static double unit_factor(enum col_kind kind, const struct cursor *u)
{
	static const struct {
		enum col_kind kind;
		const char *name;
		double factor;
	} units[] = {
		{ COL_TIME, "s", 1 }, { COL_TIME, "sec", 1 }, { COL_TIME, "secs", 1 },
		{ COL_TIME, "seconds", 1 }, { COL_TIME, "ms", 1e-3 }, { COL_TIME, "msec", 1e-3 },
		{ COL_TIME, "us", 1e-6 }, { COL_TIME, "usec", 1e-6 }, { COL_TIME, "min", 60 },
		{ COL_RATE, "B/s", 1 }, { COL_RATE, "bytes/s", 1 }, { COL_RATE, "bytes/sec", 1 },
		{ COL_RATE, "cps", 1 },
		{ COL_RATE, "kB/s", 1e3 }, { COL_RATE, "KB/s", 1e3 }, { COL_RATE, "K/s", 1e3 },
		{ COL_RATE, "MB/s", 1e6 }, { COL_RATE, "GB/s", 1e9 },
		{ COL_RATE, "KiB/s", 1024.0 }, { COL_RATE, "MiB/s", 1048576.0 },
		{ COL_RATE, "GiB/s", 1073741824.0 },
		{ COL_RATE, "bit/s", 0.125 }, { COL_RATE, "bps", 0.125 },
		{ COL_RATE, "kbit/s", 125 }, { COL_RATE, "kbps", 125 }, { COL_RATE, "Kbps", 125 },
		{ COL_RATE, "Mbit/s", 125000 }, { COL_RATE, "Mbps", 125000 },
		{ COL_SIZE, "B", 1 }, { COL_SIZE, "bytes", 1 }, { COL_SIZE, "kB", 1e3 },
		{ COL_SIZE, "KB", 1e3 }, { COL_SIZE, "MB", 1e6 }, { COL_SIZE, "KiB", 1024.0 },
		{ COL_SIZE, "MiB", 1048576.0 },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (units[i].kind == kind && cursor_equals(u, units[i].name))
			return units[i].factor;
	return 0;
}

/* The kind of a column name; false if it is none of them. */
static bool column_kind(const struct token *t, enum col_kind *kind)
{
	static const char *const time_words[] = { "Time", "time", "TIME", NULL };
	static const char *const rate_words[] = { "Rate", "rate", "RATE", "Speed", "speed",
						  "Throughput", "throughput", NULL };
	static const char *const size_words[] = { "Size", "size", "Bytes", "bytes", NULL };
	if (token_is(t, run_words))
		*kind = COL_RUN;
	else if (token_is(t, time_words))
		*kind = COL_TIME;
	else if (token_is(t, rate_words))
		*kind = COL_RATE;
	else if (token_is(t, size_words))
		*kind = COL_SIZE;
	else
		return false;
	return true;
}

/* "(unit)" or "[unit]": the unit inside, else false. */
static bool unit_token(const struct token *t, struct cursor *inside)
{
	struct cursor c = t->text;
	size_t n = cursor_remaining(&c);
	uint8_t open, close;
	if (n < 3 || !cursor_peek_u8(&c, &open) || (open != '(' && open != '['))
		return false;
	cursor_u8(&c, &open);
	if (!cursor_sub(&c, n - 2, inside) || !cursor_u8(&c, &close))
		return false;
	return close == (open == '(' ? ')' : ']');
}

/* "Time(s)" or "Rate[KB/s]": the name and the unit written on to it. */
static bool attached_unit(const struct token *t, struct token *name, struct token *unit)
{
	struct cursor c = t->text;
	size_t len = 0;
	uint8_t ch;
	while (cursor_peek_u8(&c, &ch) && ch != '(' && ch != '[') {
		cursor_u8(&c, &ch);
		len++;
	}
	if (len == 0 || cursor_at_end(&c))
		return false;
	struct cursor whole = t->text;
	cursor_sub(&whole, len, &name->text);
	name->from = t->from;
	name->to = t->from + len - 1;
	unit->text = whole;
	unit->from = t->from + len;
	unit->to = t->to;
	return true;
}

static const char unknown_unit[] = "unknown unit (s, ms, B/s, kB/s, KiB/s, Mbit/s, B, KiB ...)";

/* The column's printed name, from its first to its last byte in line. */
static void column_name(struct column *col, struct cursor line)
{
	struct cursor name;
	size_t len = col->to - col->from + 1;
	if (len >= sizeof(col->name))
		len = sizeof(col->name) - 1;
	cursor_skip(&line, col->from - 1);
	cursor_sub(&line, len, &name);
	cursor_to_cstr(&name, col->name, sizeof(col->name));
}

/* One column from tok[*i] (and the unit token after it, which *i then
 * passes).  NULL, or why not; "" when the token names no column. */
static const char *read_column(struct table *t, const struct token *tok, size_t n, size_t *i,
			       struct cursor line)
{
	enum col_kind kind;
	struct token head = tok[*i], unit_tok;
	struct cursor unit;
	bool attached = false;
	if (!column_kind(&head, &kind)) {
		if (!attached_unit(&tok[*i], &head, &unit_tok) || !column_kind(&head, &kind) ||
		    !unit_token(&unit_tok, &unit))
			return "";
		attached = true;
	}
	if (kind == COL_RUN)
		return *i != 0 || attached ? "a run column after the first" : NULL;
	if (t->ncols == TABLE_MAX_COLS)
		return "too many columns";
	struct column *col = &t->cols[t->ncols++];
	col->kind = kind;
	col->unit = 1;
	col->from = tok[*i].from;
	col->to = tok[*i].to;
	if (!attached && *i + 1 < n && unit_token(&tok[*i + 1], &unit)) {
		col->to = tok[*i + 1].to;
		(*i)++;
		attached = true;
	}
	if (attached) {
		col->unit = unit_factor(kind, &unit);
		if (col->unit == 0)
			return unknown_unit;
	}
	column_name(col, line);
	return NULL;
}

/* Reads a column row into t->cols.  Returns NULL when the line is one,
 * else why not (a static string), or "" when it is not a column row at
 * all. */
static const char *column_row(struct cursor line, struct table *t)
{
	struct token tok[TABLE_MAX_COLS * 2 + 2];
	size_t n = tokens(line, false, tok, sizeof(tok) / sizeof(tok[0]));
	bool any = false;
	t->ncols = 0;
	if (n > sizeof(tok) / sizeof(tok[0]))
		return "";
	for (size_t i = 0; i < n; i++) {
		const char *why = read_column(t, tok, n, &i, line);
		if (why)
			return why;
		any = any || (t->ncols > 0 && t->cols[t->ncols - 1].kind != COL_SIZE);
	}
	if (!any)
		return "";
	/* The columns repeat per condition: find the group. */
	size_t g = 1;
	while (g < t->ncols) {
		bool repeats = true;
		for (size_t i = g; i < t->ncols && repeats; i++)
			repeats = t->cols[i].kind == t->cols[i % g].kind;
		if (repeats && t->ncols % g == 0)
			break;
		g++;
	}
	for (size_t i = 0; i < g; i++)
		for (size_t j = i + 1; j < g; j++)
			if (t->cols[i].kind == t->cols[j].kind)
				return "a column named twice for one condition";
	t->group = g;
	t->nconds = t->ncols / g;
	return NULL;
}

/* Rules: lines of "-", "=", "+", "|", ":" and blanks. */
static bool rule_line(struct cursor line)
{
	uint8_t ch;
	bool any = false;
	while (cursor_u8(&line, &ch)) {
		if (ch != '-' && ch != '=' && ch != '+' && ch != '|' && ch != ':' && !is_blank(ch))
			return false;
		any = any || !is_blank(ch);
	}
	return any;
}

/* A printed number: its value and digits after the point. */
static bool read_cell(const struct token *t, struct cell *out)
{
	struct cursor c = t->text;
	size_t n = cursor_remaining(&c);
	uint8_t ch;
	/* xferstat marks outliers with a "*". */
	struct cursor last = c;
	if (n > 1 && cursor_skip(&last, n - 1) && cursor_peek_u8(&last, &ch) && ch == '*') {
		struct cursor whole = c;
		cursor_sub(&whole, n - 1, &c);
	}
	struct cursor num = c;
	double v;
	if (!cursor_parse_double(&num, &v) || !cursor_at_end(&num) || !isfinite(v))
		return false;
	int decimals = 0;
	bool point = false;
	while (cursor_u8(&c, &ch)) {
		if (ch == 'e' || ch == 'E') {
			decimals = -1;
			break;
		}
		if (point)
			decimals++;
		point = point || ch == '.';
	}
	out->present = true;
	out->value = v;
	out->decimals = decimals;
	out->col = t->from;
	return true;
}

static bool empty_cell(const struct token *t)
{
	static const char *const words[] = { "n/a", "N/A", "-", "--", "?", NULL };
	return token_is(t, words);
}

/* The cells of a row (tokens after its first) into cells[0..ncols-1]:
 * in order when there are ncols of them, else each under the column it
 * overlaps most (or ends nearest to).  NULL, or why not. */
static const char *row_cells(const struct table *t, const struct token *tok, size_t n,
			     struct cell *cells)
{
	memset(cells, 0, t->ncols * sizeof(*cells));
	if (n > t->ncols)
		return "more cells than columns";
	size_t next = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = i;
		if (n != t->ncols) {
			long best = -1;
			size_t best_dist = SIZE_MAX;
			for (size_t k = 0; k < t->ncols; k++) {
				const struct column *col = &t->cols[k];
				size_t lo = tok[i].from > col->from ? tok[i].from : col->from;
				size_t hi = tok[i].to < col->to ? tok[i].to : col->to;
				size_t dist = lo <= hi ? 0
					    : tok[i].to > col->to ? tok[i].to - col->to
					    : col->to - tok[i].to;
				if (dist < best_dist) {
					best_dist = dist;
					best = (long)k;
				}
			}
			j = (size_t)best;
		}
		if (j < next)
			return "cells do not line up under the columns";
		next = j + 1;
		if (empty_cell(&tok[i]))
			continue;
		if (!read_cell(&tok[i], &cells[j]))
			return "a cell is not a number";
	}
	return NULL;
}

/* An Avg. or Dev. row of one value per condition (in a table of several
 * columns per condition): each into the first cell of its condition.
 * False if the row is not one. */
static bool per_set_cells(const struct table *t, const struct token *tok, size_t n,
			  struct cell *cells)
{
	if (t->group < 2 || n != t->nconds)
		return false;
	memset(cells, 0, t->ncols * sizeof(*cells));
	for (size_t c = 0; c < n; c++)
		if (!empty_cell(&tok[c]) && !read_cell(&tok[c], &cells[c * t->group]))
			return false;
	return true;
}

/* A line of units under the column names ("  (s)  (KB/s)  (s)  (KB/s)"),
 * one per column: NULL when it is one (the columns then have them), ""
 * when it is not, else why not. */
static const char *units_line(struct cursor line, struct table *t)
{
	struct token tok[TABLE_MAX_COLS + 1];
	struct cursor unit;
	double factor[TABLE_MAX_COLS];
	size_t n = tokens(line, false, tok, sizeof(tok) / sizeof(tok[0]));
	if (n == 0 || n > TABLE_MAX_COLS)
		return "";
	for (size_t i = 0; i < n; i++)
		if (!unit_token(&tok[i], &unit))
			return "";
	if (n != t->ncols)
		return "a line of units, but not one for each column";
	for (size_t i = 0; i < n; i++) {
		unit_token(&tok[i], &unit);
		factor[i] = unit_factor(t->cols[i].kind, &unit);
		if (factor[i] == 0)
			return unknown_unit;
	}
	for (size_t i = 0; i < n; i++) {
		struct column *col = &t->cols[i];
		char text[24];
		size_t len = strlen(col->name);
		t->cols[i].unit = factor[i];
		if (cursor_to_cstr(&tok[i].text, text, sizeof(text)) &&
		    len + 1 + strlen(text) < sizeof(col->name))
			snprintf(col->name + len, sizeof(col->name) - len, " %s", text);
	}
	return NULL;
}

/* ---- the check of Avg. and Dev. ---------------------------------------- */

struct stat3 {
	size_t n;
	long double mean, harmonic, sd_sample, sd_population;
};

/* Statistics of column k of condition c over the printed run cells; for
 * a rate also the byte-weighted harmonic mean (sizes from the size
 * column if there is one). */
static void column_stats(const struct table *t, size_t k, const struct xfer_import_opts *opts,
			 struct stat3 *s)
{
	long double sum = 0, wsum = 0, wdiv = 0;
	size_t size_col = t->ncols;
	for (size_t i = k - k % t->group; i < k - k % t->group + t->group; i++)
		if (t->cols[i].kind == COL_SIZE)
			size_col = i;
	memset(s, 0, sizeof(*s));
	for (size_t r = 0; r < t->rows; r++) {
		const struct cell *c = &t->cells[r * t->ncols + k];
		if (!c->present)
			continue;
		s->n++;
		sum += c->value;
		long double w = size_col < t->ncols && t->cells[r * t->ncols + size_col].present
					? t->cells[r * t->ncols + size_col].value
					: opts->size ? (long double)opts->size : 1;
		wsum += w;
		wdiv += c->value != 0 ? w / c->value : INFINITY;
	}
	if (s->n == 0)
		return;
	s->mean = sum / s->n;
	s->harmonic = wsum / wdiv;
	long double ss = 0;
	for (size_t r = 0; r < t->rows; r++) {
		const struct cell *c = &t->cells[r * t->ncols + k];
		if (c->present)
			ss += (c->value - s->mean) * (c->value - s->mean);
	}
	s->sd_population = sqrtl(ss / s->n);
	s->sd_sample = s->n > 1 ? sqrtl(ss / (s->n - 1)) : NAN;
}

enum { MATCH_ROUNDED = 1, MATCH_TRUNCATED = 2 };

/* How x shows as the printed p with d decimals: rounded, truncated (both
 * when they agree), or neither (0). */
static int shows_as(long double x, double p, int d)
{
	if (d < 0 || !isfinite((double)x))
		return 0;
	long double u = powl(10, -d), slack = u * 1e-9L, pl = p;
	int m = 0;
	if (fabsl(x - pl) <= u / 2 + slack)
		m |= MATCH_ROUNDED;
	/* Truncation toward zero: p <= x < p + u for positive values (x at
	 * p + u itself, within the slack, shows as p + u). */
	if (pl >= 0 ? (x >= pl - slack && x < pl + u - slack) : (x <= pl + slack && x > pl - u + slack))
		m |= MATCH_TRUNCATED;
	return m;
}

static const char *match_words(int m)
{
	return m == (MATCH_ROUNDED | MATCH_TRUNCATED) ? "rounded or truncated alike"
	       : m == MATCH_ROUNDED ? "rounded" : "truncated";
}

/* The condition's name and the column's, for messages. */
static void cell_name(const struct table *t, size_t k, const char *fallback, const char *note,
		      char *buf, size_t cap)
{
	char cond[128];
	size_t c = k / t->group;
	if (t->have_names && !cursor_to_cstr(&t->names[c].text, cond, sizeof(cond)))
		snprintf(cond, sizeof(cond), "condition %zu", c + 1);
	snprintf(buf, cap, "%s of %s%s", t->cols[k].name, t->have_names ? cond : fallback, note);
}

/* Whether a printed Avg. a shows the mean (or, for a rate, the harmonic
 * mean) of s. */
static bool avg_matches(const struct table *t, size_t k, const struct stat3 *s,
			const struct cell *a)
{
	return shows_as(s->mean, a->value, a->decimals) ||
	       (t->cols[k].kind == COL_RATE && shows_as(s->harmonic, a->value, a->decimals));
}

static bool dev_matches(const struct stat3 *s, const struct cell *c)
{
	return (s->n > 1 && shows_as(s->sd_sample, c->value, c->decimals)) ||
	       shows_as(s->sd_population, c->value, c->decimals);
}

static void check_avg(struct import_sink *sink, const struct table *t, size_t k,
		      const struct cell *a, const char *note, const struct stat3 *s)
{
	char name[240];
	struct import_pos at = { t->avg_line, a->col };
	cell_name(t, k, import_sink_label(sink), note, name, sizeof(name));
	int d = a->decimals;
	int m = shows_as(s->mean, a->value, d);
	if (m) {
		import_sink_check(sink, at, "Avg. %s = %.*f: the mean of %zu runs, %.10Lg (%s)", name,
				  d, a->value, s->n, s->mean, match_words(m));
		return;
	}
	if (t->cols[k].kind == COL_RATE) {
		m = shows_as(s->harmonic, a->value, d);
		if (m) {
			import_sink_check(sink, at,
					  "Avg. %s = %.*f: the harmonic mean of %zu runs "
					  "(total bytes / total time), %.10Lg (%s); the mean is %.10Lg",
					  name, d, a->value, s->n, s->harmonic, match_words(m), s->mean);
			return;
		}
	}
	import_sink_check_failed(sink);
	import_sink_check(sink, at, "Avg. %s = %.*f: NOT the mean of %zu runs, %.10Lg%s%.10Lg "
			  "(to %d decimals, rounded or truncated)", name, d, a->value, s->n, s->mean,
			  t->cols[k].kind == COL_RATE ? ", nor their harmonic mean, " : "",
			  t->cols[k].kind == COL_RATE ? s->harmonic : s->mean, d);
}

static void check_dev(struct import_sink *sink, const struct table *t, size_t k,
		      const struct cell *c, const char *note, const struct stat3 *s)
{
	char name[240], sample[80];
	struct import_pos at = { t->dev_line, c->col };
	cell_name(t, k, import_sink_label(sink), note, name, sizeof(name));
	int d = c->decimals;
	int ms = s->n > 1 ? shows_as(s->sd_sample, c->value, d) : 0;
	int mp = shows_as(s->sd_population, c->value, d);
	if (s->n > 1)
		snprintf(sample, sizeof(sample), "%.10Lg", s->sd_sample);
	else
		snprintf(sample, sizeof(sample), "undefined (1 run)");
	if (ms && mp)
		import_sink_check(sink, at, "Dev. %s = %.*f: both the sample SD, %s (%s), and the "
				  "population SD, %.10Lg (%s)", name, d, c->value, sample,
				  match_words(ms), s->sd_population, match_words(mp));
	else if (ms)
		import_sink_check(sink, at, "Dev. %s = %.*f: the sample SD (divisor n-1) of %zu runs, "
				  "%s (%s); not the population SD, %.10Lg", name, d, c->value, s->n,
				  sample, match_words(ms), s->sd_population);
	else if (mp)
		import_sink_check(sink, at, "Dev. %s = %.*f: the population SD (divisor n) of %zu "
				  "runs, %.10Lg (%s); not the sample SD, %s", name, d, c->value, s->n,
				  s->sd_population, match_words(mp), sample);
	else {
		import_sink_check_failed(sink);
		import_sink_check(sink, at, "Dev. %s = %.*f: NEITHER the sample SD, %s, nor the "
				  "population SD, %.10Lg, of %zu runs (to %d decimals, rounded or "
				  "truncated)", name, d, c->value, sample, s->sd_population, s->n, d);
	}
}

/* A row with one value per condition: each value is checked against
 * the columns of its condition in turn, and reported for the first it
 * matches (else for the first column, as matching none). */
static void check_per_set(struct import_sink *sink, const struct table *t, bool avg,
			  const struct xfer_import_opts *opts)
{
	const struct cell *row = avg ? t->avg : t->dev;
	for (size_t c = 0; c < t->nconds; c++) {
		const struct cell *cell = &row[c * t->group];
		size_t first = SIZE_MAX, k;
		struct stat3 s;
		if (!cell->present || cell->decimals < 0)
			continue;
		for (k = c * t->group; k < (c + 1) * t->group; k++) {
			if (t->cols[k].kind == COL_SIZE)
				continue;
			column_stats(t, k, opts, &s);
			if (s.n == 0)
				continue;
			if (first == SIZE_MAX)
				first = k;
			if (avg ? avg_matches(t, k, &s, cell) : dev_matches(&s, cell))
				break;
		}
		if (first == SIZE_MAX)
			continue;
		const char *note = " (one value for the set: that of this column)";
		if (k == (c + 1) * t->group) {
			k = first;
			note = " (one value for the set; it matches none of its columns)";
		}
		column_stats(t, k, opts, &s);
		if (avg)
			check_avg(sink, t, k, cell, note, &s);
		else
			check_dev(sink, t, k, cell, note, &s);
	}
}

static void check_table(struct import_sink *sink, const struct table *t,
			const struct xfer_import_opts *opts)
{
	if (t->have_avg && t->avg_per_set)
		check_per_set(sink, t, true, opts);
	for (size_t k = 0; k < t->ncols; k++) {
		bool has_avg = t->have_avg && !t->avg_per_set && t->avg[k].present;
		bool has_dev = t->have_dev && !t->dev_per_set && t->dev[k].present;
		if (t->cols[k].kind == COL_SIZE || (!has_avg && !has_dev))
			continue;
		struct stat3 s;
		column_stats(t, k, opts, &s);
		if (s.n == 0)
			continue;
		if (has_avg && t->avg[k].decimals >= 0)
			check_avg(sink, t, k, &t->avg[k], "", &s);
		if (has_dev && t->dev[k].decimals >= 0)
			check_dev(sink, t, k, &t->dev[k], "", &s);
	}
	if (t->have_dev && t->dev_per_set)
		check_per_set(sink, t, false, opts);
}

/* ---- the walk ------------------------------------------------------------ */

static bool add_row(struct table *t, size_t lineno, struct cell **row)
{
	if (t->rows == t->cap_rows) {
		size_t cap = t->cap_rows ? 2 * t->cap_rows : 16;
		struct cell *cells = realloc(t->cells, cap * t->ncols * sizeof(*cells));
		if (!cells)
			return false;
		t->cells = cells;
		size_t *lines = realloc(t->row_line, cap * sizeof(*lines));
		if (!lines)
			return false;
		t->row_line = lines;
		t->cap_rows = cap;
	}
	t->row_line[t->rows] = lineno;
	*row = &t->cells[t->rows++ * t->ncols];
	return true;
}

/* The runs of one row, a run per condition with a time or a rate. */
static bool row_runs(struct import_sink *sink, const struct table *t, const struct cell *row,
		     size_t lineno, const struct xfer_import_opts *opts, struct import_pos *no_size)
{
	for (size_t c = 0; c < t->nconds; c++) {
		const struct cell *time = NULL, *rate = NULL, *size = NULL;
		const struct column *tc = NULL, *rc = NULL, *sc = NULL;
		for (size_t i = c * t->group; i < (c + 1) * t->group; i++) {
			if (!row[i].present)
				continue;
			if (t->cols[i].kind == COL_TIME)
				time = &row[i], tc = &t->cols[i];
			else if (t->cols[i].kind == COL_RATE)
				rate = &row[i], rc = &t->cols[i];
			else
				size = &row[i], sc = &t->cols[i];
		}
		if (!time && !rate)
			continue;
		struct import_pos at = { lineno, (time ? time : rate)->col };
		struct line_result res;
		memset(&res, 0, sizeof(res));
		uint64_t bytes = opts->size;
		if (size && !text_bytes(size->value * sc->unit, &bytes)) {
			import_sink_unrecognised(sink, at, "size out of range", NULL);
			continue;
		}
		if (bytes == 0) {
			if (no_size->line == 0)
				*no_size = at;
			continue;
		}
		double seconds = time ? time->value * tc->unit : 0;
		if (!time && !text_seconds_from_rate(bytes, rate->value * rc->unit, &seconds))
			seconds = 0;
		line_run(&res, bytes, seconds);
		if (res.kind != LINE_RUN) {
			import_sink_unused(sink, at, res.why);
			continue;
		}
		res.run.setup_seconds = NAN;
		struct cursor label;
		if (t->have_names)
			label = t->names[c].text;
		else
			cursor_init(&label, NULL, 0);
		if (!import_sink_run(sink, at, &res.run, NULL, &label))
			return false;
	}
	return true;
}

enum table_state { BEFORE, IN_TABLE };

/* The names of the conditions, from the line above the column names:
 * split at wide gaps, or at every blank if that gives the right count.
 * False (with the error set) when they cannot be told. */
static bool condition_names(struct import_sink *sink, struct table *t, const struct cursor *head,
			    size_t head_line, struct import_pos at,
			    const struct xfer_import_opts *opts)
{
	if (opts->label && t->nconds > 1) {
		import_sink_error_at(sink, at, "--label names one condition; this table has %zu, "
				     "named by its header row", t->nconds);
		return false;
	}
	if (opts->label || (!head && t->nconds == 1))
		return true;
	if (!head) {
		import_sink_error_at(sink, at, "a table of %zu conditions needs a header row "
				     "naming them right above its column names", t->nconds);
		return false;
	}
	t->nnames = tokens(*head, true, t->names, TABLE_MAX_COLS);
	if (t->nnames != t->nconds)
		t->nnames = tokens(*head, false, t->names, TABLE_MAX_COLS);
	if (t->nnames != t->nconds) {
		if (t->nconds == 1)
			return true;    /* a caption, not a header: the file's name labels it */
		import_sink_error_at(sink, (struct import_pos){ head_line, 1 },
				     "the header row does not name the %zu conditions of %zu columns "
				     "each found on line %zu", t->nconds, t->group, at.line);
		return false;
	}
	t->have_names = true;
	return true;
}

/* A line starting with a run number ("1", "1.", "1:"), an Avg. or a
 * Dev. row; false for anything else. */
static bool table_row(struct import_sink *sink, struct table *t, struct cursor line,
		      size_t lineno, const struct xfer_import_opts *opts, struct import_pos *no_size)
{
	struct token tok[TABLE_MAX_COLS + 2];
	size_t n = tokens(line, false, tok, sizeof(tok) / sizeof(tok[0]));
	if (n == 0 || n > sizeof(tok) / sizeof(tok[0]))
		return false;
	struct import_pos at = { lineno, tok[0].from };
	bool avg = token_is(&tok[0], avg_words), dev = token_is(&tok[0], dev_words);
	struct cursor num = tok[0].text;
	uint64_t run = 0;
	if (!avg && !dev) {
		if (!cursor_parse_u64(&num, &run) ||
		    !(cursor_at_end(&num) || cursor_literal(&num, ".") || cursor_literal(&num, ":")) ||
		    !cursor_at_end(&num))
			return false;
	}
	struct cell cells[TABLE_MAX_COLS];
	bool per_set = (avg || dev) && per_set_cells(t, tok + 1, n - 1, cells);
	const char *why = per_set ? NULL : row_cells(t, tok + 1, n - 1, cells);
	if (why) {
		if (avg || dev)
			return false;   /* a footnote such as "Avg. rate = total bytes / total time" */
		import_sink_unrecognised(sink, at, why, &line);
		return true;
	}
	if (avg || dev) {
		memcpy(avg ? t->avg : t->dev, cells, t->ncols * sizeof(*cells));
		*(avg ? &t->avg_line : &t->dev_line) = lineno;
		*(avg ? &t->have_avg : &t->have_dev) = true;
		*(avg ? &t->avg_per_set : &t->dev_per_set) = per_set;
		import_sink_unused(sink, at, avg ? "the table's Avg. row (checked against the runs)"
						 : "the table's Dev. row (checked against the runs)");
		return true;
	}
	struct cell *row;
	if (!add_row(t, lineno, &row)) {
		import_sink_error(sink, "out of memory");
		return true;
	}
	memcpy(row, cells, t->ncols * sizeof(*cells));
	row_runs(sink, t, row, lineno, opts, no_size);
	return true;
}

/* The units line of a two-line header, reported; false if the line is
 * not one. */
static bool units_line_at(struct import_sink *sink, struct table *t, struct cursor line,
			  struct import_pos at)
{
	const char *why = units_line(line, t);
	if (why && !*why)
		return false;
	if (why)
		import_sink_unrecognised(sink, at, why, &line);
	else
		import_sink_unused(sink, at, "the units of the table's columns");
	return true;
}

bool import_table_sniff(const char *data, size_t len)
{
	struct cursor c, line;
	struct table *t = calloc(1, sizeof(*t));
	size_t seen = 0;
	bool found = false;
	if (!t)
		return false;
	cursor_init(&c, data, len);
	while (!found && seen < TABLE_SNIFF_LINES && cursor_line(&c, &line)) {
		struct cursor b = line;
		cursor_skip_blanks(&b);
		if (cursor_at_end(&b))
			continue;
		seen++;
		found = column_row(line, t) == NULL;
	}
	free(t);
	return found;
}

bool import_table_doc(struct import_sink *sink, const char *data, size_t len,
		      const struct xfer_import_opts *opts)
{
	struct table *t = calloc(1, sizeof(*t));
	struct cursor c, line, prev;
	size_t lineno = 0, prev_lineno = 0;
	enum table_state state = BEFORE;
	struct import_pos no_size = { 0, 0 };
	bool have_prev = false;
	if (!t) {
		import_sink_error(sink, "out of memory");
		return false;
	}
	cursor_init(&c, data, len);
	cursor_init(&prev, NULL, 0);
	while (cursor_line(&c, &line)) {
		lineno++;
		struct cursor b = line;
		struct import_pos at = { lineno, cursor_skip_blanks(&b) + 1 };
		if (cursor_at_end(&b)) {
			import_sink_blank(sink);
			have_prev = false;      /* a header row sits right above the column names */
			continue;
		}
		if (rule_line(line)) {
			import_sink_unused(sink, at, "a rule of the table");
		} else if (state == BEFORE) {
			const char *why = column_row(line, t);
			if (why && *why) {
				import_sink_unrecognised(sink, at, why, &line);
			} else if (why) {
				import_sink_unused(sink, at, "text before the table");
				prev = line;
				prev_lineno = lineno;
				have_prev = true;
			} else {
				state = IN_TABLE;
				import_sink_unused(sink, at, "the table's column names");
				if (!condition_names(sink, t, have_prev ? &prev : NULL, prev_lineno, at,
						     opts)) {
					import_sink_next_item(sink);
					break;
				}
			}
		} else if (t->rows == 0 && !t->have_units_line && units_line_at(sink, t, line, at)) {
			t->have_units_line = true;
		} else if (!table_row(sink, t, line, lineno, opts, &no_size)) {
			import_sink_unused(sink, at, "text after the table");
		}
		import_sink_next_item(sink);
	}
	if (state == BEFORE && !import_sink_failed(sink))
		import_sink_error(sink, "no table found: no row names Time or Rate columns "
				  "(e.g. \"Run  Time (s)  Rate (KiB/s)\")");
	check_table(sink, t, opts);
	if (no_size.line)
		import_sink_error_at(sink, no_size, "the table gives no size of the runs: give "
				     "--size BYTES (or a Size column)");
	free(t->cells);
	free(t->row_line);
	free(t);
	return true;
}
