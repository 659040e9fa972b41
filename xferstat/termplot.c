/*
 * termplot.c: a strip plot of the run rates for a terminal.  See
 * termplot.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "termplot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Marks of the conditions in turn; digits and '#' are counts, and
 * A, M, <, >, - draw the summary row, so none of those is a mark. */
static const char marks[] = "x+o*%@&=~^";
#define LABEL_MAX 16

struct axis {
	double lo, hi, div;
	size_t cols;            /* plot area, between the two '|' */
	size_t indent;          /* characters before the first '|' */
	size_t label_w;
};

static size_t axis_col(const struct axis *a, double v)
{
	if (!(a->hi > a->lo))
		return a->cols / 2;
	double x = round((v - a->lo) / (a->hi - a->lo) * (double)(a->cols - 1));

	return x < 0.0 ? 0 : x > (double)(a->cols - 1) ? a->cols - 1 : (size_t)x;
}

static struct axis axis_for(const struct xs_report *r, size_t width)
{
	struct axis a = { INFINITY, -INFINITY, 1.0, 0, 0, 0 };

	for (size_t i = 0; i < r->n; i++) {
		a.lo = fmin(a.lo, r->cond[i].rate_s.min);
		a.hi = fmax(a.hi, r->cond[i].rate_s.max);
		size_t len = strlen(r->cond[i].label);

		if (len > a.label_w)
			a.label_w = len > LABEL_MAX ? LABEL_MAX : len;
	}
	a.div = xs_report_rate_unit(r).divisor;
	a.indent = a.label_w + 5;       /* label, 2 blanks, mark, 2 blanks */
	if (width < XS_TERMPLOT_MIN_WIDTH)
		width = XS_TERMPLOT_MIN_WIDTH;
	a.cols = width - a.indent - 2;
	return a;
}

static void frame_line(struct xs_out *o, const struct axis *a)
{
	xs_out_repeat(o, ' ', a->indent);
	xs_out_printf(o, "+");
	xs_out_repeat(o, '-', a->cols);
	xs_out_printf(o, "+\n");
}

/* The scale under the frame: the lowest rate at its left corner, the
 * highest at its right. */
static void scale_line(struct xs_out *o, const struct axis *a)
{
	char lo[32], hi[32];
	int dec = a->hi - a->lo >= 100.0 * a->div ? 0 : a->hi - a->lo >= a->div ? 2 : 4;

	snprintf(lo, sizeof(lo), "%.*f", dec, a->lo / a->div);
	snprintf(hi, sizeof(hi), "%.*f", dec, a->hi / a->div);
	size_t room = a->cols + 2, used = strlen(lo) + strlen(hi);

	xs_out_repeat(o, ' ', a->indent);
	xs_out_printf(o, "%s", lo);
	xs_out_repeat(o, ' ', room > used ? room - used : 1);
	xs_out_printf(o, "%s\n", hi);
}

static char count_char(unsigned n, char mark)
{
	return n == 1 ? mark : n < 10 ? (char)('0' + n) : '#';
}

static bool mark_row(struct xs_out *o, const struct axis *a, const struct xs_condition *c,
		     char mark, char *line)
{
	unsigned *count = calloc(a->cols, sizeof(*count));

	if (!count)
		return false;
	for (size_t k = 0; k < c->n; k++)
		count[axis_col(a, c->rate[k])]++;
	for (size_t i = 0; i < a->cols; i++)
		line[i] = count[i] ? count_char(count[i], mark) : ' ';
	line[a->cols] = '\0';
	free(count);
	xs_out_printf(o, "%-*.*s  %c  |%s|\n", (int)a->label_w, LABEL_MAX, c->label, mark, line);
	return true;
}

static void summary_row(struct xs_out *o, const struct axis *a, const struct xs_condition *c,
			char *line)
{
	memset(line, ' ', a->cols);
	line[a->cols] = '\0';
	if (c->rate_s.has_sd) {
		size_t l = axis_col(a, c->rate_mean - c->rate_s.sd);
		size_t h = axis_col(a, c->rate_mean + c->rate_s.sd);

		memset(line + l, '-', h - l + 1);
		line[l] = '<';
		line[h] = '>';
	}
	line[axis_col(a, c->rate_s.median)] = 'M';
	line[axis_col(a, c->rate_mean)] = 'A';
	xs_out_repeat(o, ' ', a->indent);
	xs_out_printf(o, "|%s|\n", line);
}

bool xs_termplot(const struct xs_report *r, size_t width, struct xs_out *o)
{
	struct axis a = axis_for(r, width);
	char *line = malloc(a.cols + 1);

	if (!line || r->n == 0) {
		free(line);
		o->failed = o->failed || !line;
		return xs_out_ok(o);
	}
	xs_out_printf(o, "Rate (%s) of every run\n", xs_report_rate_unit(r).name);
	frame_line(o, &a);
	for (size_t i = 0; i < r->n; i++) {
		if (!mark_row(o, &a, &r->cond[i], marks[i % (sizeof(marks) - 1)], line))
			o->failed = true;
		summary_row(o, &a, &r->cond[i], line);
	}
	frame_line(o, &a);
	scale_line(o, &a);
	xs_out_printf(o, "%s, a digit: that many runs in one column, #: ten or more;\n"
		      "A: Avg. rate as in the table, M: median (under A when they meet),\n"
		      "<--->: Avg. -+ sample SD of the run rates.\n",
		      r->n == 1 ? "x: one run" : "x, +, ...: one run");
	free(line);
	return xs_out_ok(o);
}
