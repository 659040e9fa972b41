/*
 * table.c: the comparison report as text, CSV, Markdown and JSON.  See
 * table.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "table.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

/* ---- the output buffer ------------------------------------------------ */

void xs_out_init(struct xs_out *o)
{
	memset(o, 0, sizeof(*o));
}

void xs_out_free(struct xs_out *o)
{
	free(o->buf);
	xs_out_init(o);
}

const char *xs_out_str(const struct xs_out *o)
{
	return o->buf ? o->buf : "";
}

static bool out_reserve(struct xs_out *o, size_t more)
{
	if (o->failed)
		return false;
	if (o->len + more + 1 <= o->cap)
		return true;
	size_t cap = o->cap ? o->cap : 256;

	while (cap < o->len + more + 1)
		cap *= 2;
	char *b = realloc(o->buf, cap);

	if (!b) {
		o->failed = true;
		return false;
	}
	o->buf = b;
	o->cap = cap;
	return true;
}

bool xs_out_printf(struct xs_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->failed = true;
		return false;
	}
	if (!out_reserve(o, (size_t)n))
		return false;
	va_start(ap, fmt);
	vsnprintf(o->buf + o->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->len += (size_t)n;
	return true;
}

bool xs_out_repeat(struct xs_out *o, char c, size_t n)
{
	if (!out_reserve(o, n))
		return false;
	memset(o->buf + o->len, c, n);
	o->len += n;
	o->buf[o->len] = '\0';
	return true;
}

/* ---- units and number formats ----------------------------------------------- */

struct xs_rate_unit xs_rate_unit_for(double max_rate)
{
	static const struct xs_rate_unit units[] = {
		{ "B/s", 1.0 },
		{ "KiB/s", 1024.0 },
		{ "MiB/s", 1024.0 * 1024.0 },
		{ "GiB/s", 1024.0 * 1024.0 * 1024.0 },
		{ "TiB/s", 1024.0 * 1024.0 * 1024.0 * 1024.0 },
	};
	size_t i = 0;

	while (i + 1 < sizeof(units) / sizeof(units[0]) && max_rate >= units[i + 1].divisor)
		i++;
	return units[i];
}

struct xs_rate_unit xs_report_rate_unit(const struct xs_report *r)
{
	double max = 0.0;

	for (size_t i = 0; i < r->n; i++)
		max = fmax(max, r->cond[i].rate_s.max);
	return xs_rate_unit_for(max);
}

/* Decimals that show about 4 significant digits of the largest value in
 * a column, so that a column reads with one fixed format. */
static int decimals_for(double max)
{
	if (!(max > 0.0) || !isfinite(max))
		return 3;
	int d = 3 - (int)floor(log10(max));

	return d < 0 ? 0 : d > 9 ? 9 : d;
}

struct number_format {
	int time_dec, rate_dec;
	struct xs_rate_unit unit;
};

static struct number_format report_format(const struct xs_report *r)
{
	struct number_format f;
	double tmax = 0.0;

	f.unit = xs_report_rate_unit(r);
	for (size_t i = 0; i < r->n; i++)
		tmax = fmax(tmax, r->cond[i].time_s.max);
	f.time_dec = decimals_for(tmax);
	double rmax = 0.0;

	for (size_t i = 0; i < r->n; i++)
		rmax = fmax(rmax, r->cond[i].rate_s.max / f.unit.divisor);
	f.rate_dec = decimals_for(rmax);
	return f;
}

static size_t max_runs(const struct xs_report *r)
{
	size_t m = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->cond[i].n > m)
			m = r->cond[i].n;
	return m;
}

/* ---- the table as a grid of cells ------------------------------------------ */

#define CELL_MAX 64

/* Rows: labels, units, runs 1..N, Avg., Dev.  Columns: the row name, then
 * (Time, Rate) per condition. */
struct grid {
	size_t rows, cols;
	char (*cell)[CELL_MAX];
};

static char *grid_at(struct grid *g, size_t row, size_t col)
{
	return g->cell[row * g->cols + col];
}

static bool grid_init(struct grid *g, size_t rows, size_t cols)
{
	g->rows = rows;
	g->cols = cols;
	g->cell = calloc(rows * cols, CELL_MAX);
	return g->cell != NULL;
}

static bool report_has_outliers(const struct xs_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->cond[i].n_outliers)
			return true;
	return false;
}

/* Run k of every condition; an outlier's cells end in '*', the others in
 * a blank when the table has any outlier, so that columns stay aligned. */
static void fill_run_rows(struct grid *g, const struct xs_report *r,
			  const struct number_format *f, size_t nrows)
{
	bool marks = report_has_outliers(r);

	for (size_t k = 0; k < nrows; k++) {
		for (size_t i = 0; i < r->n; i++) {
			const struct xs_condition *c = &r->cond[i];

			if (k >= c->n)
				continue;       /* fewer runs: blank cells */
			const char *mark = c->outlier[k] ? "*" : marks ? " " : "";

			snprintf(grid_at(g, 2 + k, 1 + 2 * i), CELL_MAX, "%.*f%s", f->time_dec,
				 c->time[k], mark);
			snprintf(grid_at(g, 2 + k, 2 + 2 * i), CELL_MAX, "%.*f%s", f->rate_dec,
				 c->rate[k] / f->unit.divisor, mark);
		}
		snprintf(grid_at(g, 2 + k, 0), CELL_MAX, "%zu", k + 1);
	}
}

/* "Dev." is the sample SD; with --population the row says it is not. */
static const char *dev_row_name(const struct xs_report *r)
{
	return r->opt.dev_population ? "Dev.(pop.)" : "Dev.";
}

static void fill_summary_rows(struct grid *g, const struct xs_report *r,
			      const struct number_format *f, size_t avg_row)
{
	const char *pad = report_has_outliers(r) ? " " : "";

	bool pop = r->opt.dev_population;

	snprintf(grid_at(g, avg_row, 0), CELL_MAX, "Avg.");
	snprintf(grid_at(g, avg_row + 1, 0), CELL_MAX, "%s", dev_row_name(r));
	for (size_t i = 0; i < r->n; i++) {
		const struct xs_condition *c = &r->cond[i];
		size_t col = 1 + 2 * i;

		snprintf(grid_at(g, avg_row, col), CELL_MAX, "%.*f%s", f->time_dec,
			 c->time_s.mean, pad);
		snprintf(grid_at(g, avg_row, col + 1), CELL_MAX, "%.*f%s", f->rate_dec,
			 c->rate_mean / f->unit.divisor, pad);
		if (pop) {
			/* The population SD is defined for one run too (0). */
			snprintf(grid_at(g, avg_row + 1, col), CELL_MAX, "%.*f%s", f->time_dec,
				 c->time_s.sd_population, pad);
			snprintf(grid_at(g, avg_row + 1, col + 1), CELL_MAX, "%.*f%s", f->rate_dec,
				 c->rate_s.sd_population / f->unit.divisor, pad);
			continue;
		}
		if (!c->time_s.has_sd) {
			snprintf(grid_at(g, avg_row + 1, col), CELL_MAX, "n/a%s", pad);
			snprintf(grid_at(g, avg_row + 1, col + 1), CELL_MAX, "n/a%s", pad);
			continue;
		}
		snprintf(grid_at(g, avg_row + 1, col), CELL_MAX, "%.*f%s", f->time_dec,
			 c->time_s.sd, pad);
		snprintf(grid_at(g, avg_row + 1, col + 1), CELL_MAX, "%.*f%s", f->rate_dec,
			 c->rate_s.sd / f->unit.divisor, pad);
	}
}

static bool table_grid(struct grid *g, const struct xs_report *r, const struct number_format *f)
{
	size_t nrows = max_runs(r);

	if (!grid_init(g, nrows + 4, 1 + 2 * r->n))
		return false;
	snprintf(grid_at(g, 1, 0), CELL_MAX, "Run");
	for (size_t i = 0; i < r->n; i++) {
		snprintf(grid_at(g, 0, 1 + 2 * i), CELL_MAX, "%s", r->cond[i].label);
		snprintf(grid_at(g, 1, 1 + 2 * i), CELL_MAX, "Time (s)");
		snprintf(grid_at(g, 1, 2 + 2 * i), CELL_MAX, "Rate (%s)", f->unit.name);
	}
	fill_run_rows(g, r, f, nrows);
	fill_summary_rows(g, r, f, nrows + 2);
	return true;
}

/* Column widths; a label spans its condition's two columns and widens
 * the rate column when it does not fit. */
static void grid_widths(struct grid *g, size_t *w, size_t sep)
{
	for (size_t c = 0; c < g->cols; c++) {
		w[c] = 0;
		for (size_t row = 1; row < g->rows; row++)
			if (strlen(grid_at(g, row, c)) > w[c])
				w[c] = strlen(grid_at(g, row, c));
	}
	for (size_t c = 1; c + 1 < g->cols; c += 2) {
		size_t need = strlen(grid_at(g, 0, c)), have = w[c] + sep + w[c + 1];

		if (need > have)
			w[c + 1] += need - have;
	}
}

static void text_label_row(struct xs_out *o, struct grid *g, const size_t *w)
{
	size_t pending = w[0];

	for (size_t c = 1; c + 1 < g->cols; c += 2) {
		size_t span = w[c] + 3 + w[c + 1], len = strlen(grid_at(g, 0, c));
		size_t left = (span - len + 1) / 2;

		xs_out_repeat(o, ' ', pending + 3 + left);
		xs_out_printf(o, "%s", grid_at(g, 0, c));
		pending = span - len - left;
	}
	xs_out_printf(o, "\n");
}

static void trim_blanks(struct xs_out *o)
{
	while (!o->failed && o->len > 0 && o->buf[o->len - 1] == ' ')
		o->buf[--o->len] = '\0';
}

static void text_rows(struct xs_out *o, struct grid *g, const size_t *w)
{
	for (size_t row = 1; row < g->rows; row++) {
		xs_out_printf(o, "%-*s", (int)w[0], grid_at(g, row, 0));
		for (size_t c = 1; c < g->cols; c++)
			xs_out_printf(o, "   %*s", (int)w[c], grid_at(g, row, c));
		trim_blanks(o);
		xs_out_printf(o, "\n");
	}
}

static void table_footnotes(struct xs_out *o, const struct xs_report *r, const char *bullet)
{
	size_t outliers = 0;

	for (size_t i = 0; i < r->n; i++)
		outliers += r->cond[i].n_outliers;
	xs_out_printf(o, "%sAvg. rate = %s.\n", bullet, r->opt.arith_rate ?
		      "arithmetic mean of the run rates (--arith-rate)" :
		      "total bytes / total time (the byte-weighted harmonic mean of the run rates)");
	if (r->opt.dev_population)
		xs_out_printf(o, "%sDev.(pop.) = population standard deviation (divisor n, as older "
			      "tables had it; --population); the sample SD is below.\n", bullet);
	else
		xs_out_printf(o, "%sDev. = sample standard deviation (divisor n-1); n/a for a single "
			      "run.\n", bullet);
	if (outliers)
		xs_out_printf(o, "%s* = outlier run (modified z-score |M| > %.1f in time or rate); "
			      "kept in every statistic.\n", bullet, XS_OUTLIER_Z);
}

/* ---- text ------------------------------------------------------------------- */

/* The method of an interval as the text says it. */
static const char *ci_words(const struct xs_interval *ci)
{
	if (ci->method == XS_CI_LOG && ci->t_below_zero)
		return "log; t went below 0";
	return xs_ci_method_name(ci->method);
}

static void text_summary(struct xs_out *o, const struct xs_summary *s, const char *what,
			 const char *unit, double div, int dec, double mean,
			 const struct xs_interval *ci, const char *mean_note)
{
	xs_out_printf(o, "  %s: mean %.*f %s%s", what, dec, mean / div, unit, mean_note);
	if (ci->defined)
		xs_out_printf(o, ", 95%% CI [%.*f, %.*f] (%s)", dec, ci->lo / div, dec, ci->hi / div,
			      ci_words(ci));
	xs_out_printf(o, ", median %.*f, min %.*f, max %.*f\n", dec, s->median / div, dec,
		      s->min / div, dec, s->max / div);
	if (s->has_sd)
		xs_out_printf(o, "        SD %.*f (sample), %.*f (population)\n", dec, s->sd / div,
			      dec, s->sd_population / div);
	else
		xs_out_printf(o, "        SD undefined (1 run)\n");
}

static void text_condition(struct xs_out *o, const struct xs_condition *c,
			   const struct number_format *f)
{
	xs_out_printf(o, "%s: %zu run%s, %.0f byte%s", c->label, c->n, c->n == 1 ? "" : "s",
		      c->bytes_total, c->bytes_total == 1.0 ? "" : "s");
	if (c->n_outliers)
		xs_out_printf(o, ", %zu outlier%s", c->n_outliers, c->n_outliers == 1 ? "" : "s");
	xs_out_printf(o, "\n");
	text_summary(o, &c->time_s, "time", "s", 1.0, f->time_dec + 1, c->time_s.mean, &c->time_ci,
		     "");
	text_summary(o, &c->rate_s, "rate", f->unit.name, f->unit.divisor, f->rate_dec + 1,
		     c->rate_mean, &c->rate_ci,
		     c->arith_rate ? " (arithmetic)" : " (total bytes / total time)");
}

static void text_welch(struct xs_out *o, const struct xs_welch *w, const char *unit,
		       double div, int dec)
{
	char p[32];

	if (!w->defined) {
		xs_out_printf(o, "means differ by %+.*f %s; Welch's test undefined (%s)", dec,
			      w->diff / div, unit, w->why_undefined);
		return;
	}
	xs_format_p(w->p, true, p, sizeof(p));
	xs_out_printf(o, "means differ by %+.*f %s, 95%% CI [%+.*f, %+.*f]; Welch t = %.3f, df = %.1f, %s",
		      dec, w->diff / div, unit, dec, w->ci_lo / div, dec, w->ci_hi / div, w->t,
		      w->df, p);
}

static void text_mw(struct xs_out *o, const struct xs_mann_whitney *m)
{
	char p[32];

	xs_format_p(m->p, m->defined, p, sizeof(p));
	xs_out_printf(o, "; Mann-Whitney U = %g, %s (%s)\n", m->u, p, xs_mw_method_name(m->method));
}

static void text_comparison(struct xs_out *o, const struct xs_report *r, size_t i,
			    const struct number_format *f)
{
	const struct xs_comparison *c = &r->cmp[i];

	xs_out_printf(o, "%s\n  rate: run-rate ", c->verdict);
	text_welch(o, &c->rate_welch, f->unit.name, f->unit.divisor, f->rate_dec + 1);
	text_mw(o, &c->rate_mw);
	xs_out_printf(o, "  time: mean %.*f s against %.*f s (%+.1f %%), ", f->time_dec + 1,
		      r->cond[i].time_s.mean, f->time_dec + 1, r->cond[0].time_s.mean,
		      c->time_change * 100.0);
	text_welch(o, &c->time_welch, "s", 1.0, f->time_dec + 1);
	text_mw(o, &c->time_mw);
}

/* The grid of the report's table; on ENOMEM marks o failed. */
static bool report_grid(const struct xs_report *r, const struct number_format *f,
			struct grid *g, struct xs_out *o)
{
	if (table_grid(g, r, f))
		return true;
	o->failed = true;
	return false;
}

/* How the intervals of the means were made. */
static void ci_footnote(struct xs_out *o, const struct xs_report *r)
{
	xs_out_printf(o, "\n95%% CI of a mean: t = Student t; log = mean * exp(+-t SE / mean), "
		      "never below 0; bootstrap = percentile of %d resamples (seed %u).\n",
		      XS_CI_RESAMPLES, XS_CI_SEED);
	if (r->opt.ci == XS_CI_AUTO)
		xs_out_printf(o, "The bootstrap for fewer than %d runs with |skewness| > %g, else t, "
			      "or log where t would go below 0 (--ci chooses).\n", XS_CI_SMALL_N,
			      XS_CI_SKEWED);
	else
		xs_out_printf(o, "--ci %s%s.\n", xs_ci_method_name(r->opt.ci),
			      r->opt.ci == XS_CI_T ? ", or log where t would go below 0" : "");
}

bool xs_render_text(const struct xs_report *r, struct xs_out *o)
{
	struct number_format f = report_format(r);
	struct grid g;

	if (!report_grid(r, &f, &g, o))
		return false;
	size_t *w = calloc(g.cols, sizeof(*w));

	if (w) {
		grid_widths(&g, w, 3);
		text_label_row(o, &g, w);
		text_rows(o, &g, w);
	} else {
		o->failed = true;
	}
	free(w);
	free(g.cell);
	table_footnotes(o, r, "");
	for (size_t i = 0; i < r->n; i++) {
		xs_out_printf(o, "\n");
		text_condition(o, &r->cond[i], &f);
	}
	ci_footnote(o, r);
	if (r->n > 1)
		xs_out_printf(o, "\nAgainst %s (Welch decides at alpha = %g; intervals are 95%%):\n",
			      r->cond[0].label, r->opt.alpha);
	for (size_t i = 1; i < r->n; i++)
		text_comparison(o, r, i, &f);
	return xs_out_ok(o);
}

/* ---- CSV -------------------------------------------------------------------- */

/* RFC 4180: a field with a comma, quote or line break is quoted, and its
 * quotes doubled. */
static void csv_field(struct xs_out *o, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		xs_out_printf(o, "%s", s);
		return;
	}
	xs_out_printf(o, "\"");
	for (; *s; s++)
		xs_out_printf(o, *s == '"' ? "\"\"" : "%c", *s);
	xs_out_printf(o, "\"");
}

static void csv_number(struct xs_out *o, bool present, double v)
{
	if (present && isfinite(v))
		xs_out_printf(o, ",%.12g", v);
	else
		xs_out_printf(o, ",");
}

bool xs_render_csv(const struct xs_report *r, struct xs_out *o)
{
	char head[CELL_MAX + 16];
	size_t nrows = max_runs(r);

	xs_out_printf(o, "run");
	for (size_t i = 0; i < r->n; i++) {
		snprintf(head, sizeof(head), "%s time (s)", r->cond[i].label);
		xs_out_printf(o, ",");
		csv_field(o, head);
		snprintf(head, sizeof(head), "%s rate (B/s)", r->cond[i].label);
		xs_out_printf(o, ",");
		csv_field(o, head);
	}
	xs_out_printf(o, "\n");
	for (size_t k = 0; k < nrows; k++) {
		xs_out_printf(o, "%zu", k + 1);
		for (size_t i = 0; i < r->n; i++) {
			csv_number(o, k < r->cond[i].n, k < r->cond[i].n ? r->cond[i].time[k] : 0);
			csv_number(o, k < r->cond[i].n, k < r->cond[i].n ? r->cond[i].rate[k] : 0);
		}
		xs_out_printf(o, "\n");
	}
	xs_out_printf(o, "Avg.");
	for (size_t i = 0; i < r->n; i++) {
		csv_number(o, true, r->cond[i].time_s.mean);
		csv_number(o, true, r->cond[i].rate_mean);
	}
	xs_out_printf(o, "\n%s", dev_row_name(r));
	for (size_t i = 0; i < r->n; i++) {
		const struct xs_condition *c = &r->cond[i];

		if (r->opt.dev_population) {
			csv_number(o, true, c->time_s.sd_population);
			csv_number(o, true, c->rate_s.sd_population);
		} else {
			csv_number(o, c->time_s.has_sd, c->time_s.sd);
			csv_number(o, c->rate_s.has_sd, c->rate_s.sd);
		}
	}
	xs_out_printf(o, "\n");
	return xs_out_ok(o);
}

/* ---- Markdown ----------------------------------------------------------------- */

static void md_cell(struct xs_out *o, const char *s)
{
	xs_out_printf(o, " ");
	for (; *s; s++)
		xs_out_printf(o, *s == '|' ? "\\|" : "%c", *s);
	xs_out_printf(o, " |");
}

static void md_rows(struct xs_out *o, struct grid *g)
{
	char head[2 * CELL_MAX];

	xs_out_printf(o, "|");
	md_cell(o, grid_at(g, 1, 0));
	for (size_t c = 1; c < g->cols; c++) {
		snprintf(head, sizeof(head), "%s %s", grid_at(g, 0, c - (c + 1) % 2),
			 grid_at(g, 1, c));
		md_cell(o, head);
	}
	xs_out_printf(o, "\n|---|");
	for (size_t c = 1; c < g->cols; c++)
		xs_out_printf(o, "---:|");
	xs_out_printf(o, "\n");
	for (size_t row = 2; row < g->rows; row++) {
		xs_out_printf(o, "|");
		for (size_t c = 0; c < g->cols; c++)
			md_cell(o, grid_at(g, row, c));
		xs_out_printf(o, "\n");
	}
}

bool xs_render_markdown(const struct xs_report *r, struct xs_out *o)
{
	struct number_format f = report_format(r);
	struct grid g;

	if (!report_grid(r, &f, &g, o))
		return false;
	md_rows(o, &g);
	free(g.cell);
	xs_out_printf(o, "\n");
	table_footnotes(o, r, "- ");
	if (r->n > 1)
		xs_out_printf(o, "\n");
	for (size_t i = 1; i < r->n; i++)
		xs_out_printf(o, "- %s\n", r->cmp[i].verdict);
	return xs_out_ok(o);
}

/* ---- JSON ------------------------------------------------------------------------ */

static json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *jpair(bool present, double lo, double hi)
{
	if (!present || !isfinite(lo) || !isfinite(hi))
		return NULL;
	json_object *a = json_object_new_array();

	json_object_array_add(a, jnum(lo));
	json_object_array_add(a, jnum(hi));
	return a;
}

static json_object *json_summary(const struct xs_summary *s, double mean,
				 const struct xs_interval *ci)
{
	json_object *j = json_object_new_object();

	json_object_object_add(j, "mean", jnum(mean));
	json_object_object_add(j, "sd", s->has_sd ? jnum(s->sd) : NULL);
	json_object_object_add(j, "sd_population", jnum(s->sd_population));
	json_object_object_add(j, "median", jnum(s->median));
	json_object_object_add(j, "min", jnum(s->min));
	json_object_object_add(j, "max", jnum(s->max));
	json_object_object_add(j, "ci95", jpair(ci->defined, ci->lo, ci->hi));
	json_object_object_add(j, "ci95_method", ci->defined ?
			       json_object_new_string(xs_ci_method_name(ci->method)) : NULL);
	json_object_object_add(j, "ci95_t", jpair(ci->defined, ci->t_lo, ci->t_hi));
	return j;
}

static json_object *json_runs(const struct xs_condition *c)
{
	json_object *a = json_object_new_array();

	for (size_t k = 0; k < c->n; k++) {
		json_object *run = json_object_new_object();

		json_object_object_add(run, "bytes", jnum(c->bytes[k]));
		json_object_object_add(run, "time", jnum(c->time[k]));
		json_object_object_add(run, "rate", jnum(c->rate[k]));
		json_object_object_add(run, "outlier", json_object_new_boolean(c->outlier[k]));
		json_object_array_add(a, run);
	}
	return a;
}

static json_object *json_condition(const struct xs_condition *c)
{
	json_object *j = json_object_new_object();
	json_object *rate = json_summary(&c->rate_s, c->rate_mean, &c->rate_ci);

	json_object_object_add(rate, "mean_kind", json_object_new_string(
		c->arith_rate ? "arithmetic mean of run rates" : "total bytes / total time"));
	json_object_object_add(j, "label", json_object_new_string(c->label));
	json_object_object_add(j, "n", json_object_new_uint64(c->n));
	json_object_object_add(j, "bytes", jnum(c->bytes_total));
	json_object_object_add(j, "time", json_summary(&c->time_s, c->time_s.mean, &c->time_ci));
	json_object_object_add(j, "rate", rate);
	json_object_object_add(j, "runs", json_runs(c));
	return j;
}

/* The tests of one quantity, flat into j. */
static void json_tests(json_object *j, const struct xs_welch *w, const struct xs_mann_whitney *m)
{
	json_object_object_add(j, "diff", jnum(w->diff));
	json_object_object_add(j, "ci95", jpair(w->defined, w->ci_lo, w->ci_hi));
	json_object_object_add(j, "welch_t", w->defined ? jnum(w->t) : NULL);
	json_object_object_add(j, "welch_df", w->defined ? jnum(w->df) : NULL);
	json_object_object_add(j, "welch_p", w->defined ? jnum(w->p) : NULL);
	json_object_object_add(j, "mw_u", jnum(m->u));
	json_object_object_add(j, "mw_p", m->defined ? jnum(m->p) : NULL);
	json_object_object_add(j, "mw_method", json_object_new_string(
		m->method == XS_MW_EXACT ? "exact" : "asymptotic"));
}

static json_object *json_comparison(const struct xs_report *r, size_t i)
{
	const struct xs_comparison *c = &r->cmp[i];
	json_object *j = json_object_new_object(), *t = json_object_new_object();

	json_object_object_add(j, "label", json_object_new_string(r->cond[i].label));
	json_object_object_add(j, "against", json_object_new_string(r->cond[0].label));
	json_object_object_add(j, "quantity", json_object_new_string("rate"));
	json_tests(j, &c->rate_welch, &c->rate_mw);
	json_object_object_add(j, "change", jnum(c->rate_change));
	json_object_object_add(j, "proven", json_object_new_boolean(c->proven));
	json_object_object_add(j, "verdict", json_object_new_string(c->verdict));
	json_tests(t, &c->time_welch, &c->time_mw);
	json_object_object_add(t, "change", jnum(c->time_change));
	json_object_object_add(j, "time", t);
	return j;
}

bool xs_render_json(const struct xs_report *r, struct xs_out *o)
{
	json_object *root = json_object_new_object();
	json_object *conds = json_object_new_array(), *cmps = json_object_new_array();

	json_object_object_add(root, "xferstat_compare", json_object_new_int(1));
	json_object_object_add(root, "alpha", json_object_new_double(r->opt.alpha));
	json_object_object_add(root, "ci_level", json_object_new_double(XS_CI_LEVEL));
	json_object_object_add(root, "dev_row", json_object_new_string(
		r->opt.dev_population ? "sd_population" : "sd"));
	for (size_t i = 0; i < r->n; i++)
		json_object_array_add(conds, json_condition(&r->cond[i]));
	for (size_t i = 1; i < r->n; i++)
		json_object_array_add(cmps, json_comparison(r, i));
	json_object_object_add(root, "conditions", conds);
	json_object_object_add(root, "comparisons", cmps);
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_SPACED);

	if (text)
		xs_out_printf(o, "%s\n", text);
	else
		o->failed = true;
	json_object_put(root);
	return xs_out_ok(o);
}
