/*
 * plot.c: box and strip plots of run rates, and rate against block size,
 * drawn with cairo into PNG or SVG.  See plot.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cairo.h>
#include <cairo-svg.h>
#include <gsl/gsl_sort.h>

#include "table.h"

#define PANEL_W 900.0
#define PANEL_H 480.0
#define MARGIN_L 90.0
#define MARGIN_R 30.0
#define MARGIN_T 45.0
#define MARGIN_B 70.0

/* Colour per condition (a palette readable by most colour-blind
 * readers), cycling. */
static const double palette[][3] = {
	{ 0.00, 0.45, 0.70 }, { 0.90, 0.62, 0.00 }, { 0.00, 0.62, 0.45 },
	{ 0.80, 0.47, 0.65 }, { 0.34, 0.71, 0.91 }, { 0.84, 0.37, 0.00 },
	{ 0.50, 0.50, 0.50 }, { 0.94, 0.89, 0.26 },
};
#define N_COLOURS (sizeof(palette) / sizeof(palette[0]))

static void set_colour(cairo_t *cr, size_t i, double alpha)
{
	const double *c = palette[i % N_COLOURS];

	cairo_set_source_rgba(cr, c[0], c[1], c[2], alpha);
}

/* A plotting area and the value range it shows. */
struct frame {
	double x0, y0, w, h;    /* pixels, y0 at the top */
	double ylo, yhi;        /* value range, bottom to top */
	double xlo, xhi;        /* for the block-size panel: log2 sizes */
};

static double frame_y(const struct frame *f, double v)
{
	return f->y0 + f->h - (v - f->ylo) / (f->yhi - f->ylo) * f->h;
}

static double frame_x(const struct frame *f, double v)
{
	if (!(f->xhi > f->xlo))
		return f->x0 + f->w / 2;
	return f->x0 + (v - f->xlo) / (f->xhi - f->xlo) * f->w;
}

/* A tick step of 1, 2 or 5 times a power of ten giving about 6 ticks. */
static double tick_step(double range)
{
	double raw = range / 6.0, p = pow(10.0, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0) * p;
}

static void text_at(cairo_t *cr, double x, double y, const char *s, double align_x,
		    double align_y)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - e.x_advance * align_x, y + e.height * align_y);
	cairo_show_text(cr, s);
}

static void draw_y_axis(cairo_t *cr, const struct frame *f, double div, const char *title)
{
	double step = tick_step((f->yhi - f->ylo) / div) * div;
	char buf[32];

	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1.0);
	cairo_rectangle(cr, f->x0, f->y0, f->w, f->h);
	cairo_stroke(cr);
	cairo_set_font_size(cr, 12);
	for (double v = ceil(f->ylo / step) * step; v <= f->yhi; v += step) {
		double y = frame_y(f, v);

		cairo_set_source_rgba(cr, 0, 0, 0, 0.12);
		cairo_move_to(cr, f->x0, y);
		cairo_line_to(cr, f->x0 + f->w, y);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		snprintf(buf, sizeof(buf), "%g", v / div);
		text_at(cr, f->x0 - 6, y, buf, 1.0, 0.5);
	}
	cairo_set_font_size(cr, 15);
	text_at(cr, f->x0, f->y0 - 14, title, 0.0, 0.0);
}

/* ---- box and strip panel ------------------------------------------------ */

/* Whisker ends: the furthest runs within 1.5 IQR of the box (Tukey). */
static void whiskers(const struct xs_condition *c, double *lo, double *hi)
{
	double iqr = c->rate_s.q3 - c->rate_s.q1;
	double fence_lo = c->rate_s.q1 - 1.5 * iqr, fence_hi = c->rate_s.q3 + 1.5 * iqr;

	*lo = c->rate_s.q1;
	*hi = c->rate_s.q3;
	for (size_t k = 0; k < c->n; k++) {
		if (c->rate[k] >= fence_lo && c->rate[k] < *lo)
			*lo = c->rate[k];
		if (c->rate[k] <= fence_hi && c->rate[k] > *hi)
			*hi = c->rate[k];
	}
}

static void draw_box(cairo_t *cr, const struct frame *f, const struct xs_condition *c,
		     double cx, double bw, size_t colour)
{
	double wlo, whi;

	whiskers(c, &wlo, &whi);
	set_colour(cr, colour, 0.25);
	cairo_rectangle(cr, cx - bw / 2, frame_y(f, c->rate_s.q3), bw,
			frame_y(f, c->rate_s.q1) - frame_y(f, c->rate_s.q3));
	cairo_fill_preserve(cr);
	set_colour(cr, colour, 1.0);
	cairo_set_line_width(cr, 1.5);
	cairo_stroke(cr);
	cairo_move_to(cr, cx - bw / 2, frame_y(f, c->rate_s.median));
	cairo_line_to(cr, cx + bw / 2, frame_y(f, c->rate_s.median));
	cairo_set_line_width(cr, 3.0);
	cairo_stroke(cr);
	cairo_set_line_width(cr, 1.5);
	cairo_move_to(cr, cx, frame_y(f, c->rate_s.q3));
	cairo_line_to(cr, cx, frame_y(f, whi));
	cairo_move_to(cr, cx - bw / 4, frame_y(f, whi));
	cairo_line_to(cr, cx + bw / 4, frame_y(f, whi));
	cairo_move_to(cr, cx, frame_y(f, c->rate_s.q1));
	cairo_line_to(cr, cx, frame_y(f, wlo));
	cairo_move_to(cr, cx - bw / 4, frame_y(f, wlo));
	cairo_line_to(cr, cx + bw / 4, frame_y(f, wlo));
	cairo_stroke(cr);
}

/* Runs as dots, spread sideways by a low-discrepancy sequence so that
 * equal values stay visible and the picture is the same every time. */
static void draw_strip(cairo_t *cr, const struct frame *f, const struct xs_condition *c,
		       double cx, double bw, size_t colour)
{
	for (size_t k = 0; k < c->n; k++) {
		double jitter = fmod((double)k * 0.6180339887, 1.0) - 0.5;
		double x = cx + bw * 0.8 * jitter, y = frame_y(f, c->rate[k]);

		if (c->outlier[k])
			cairo_set_source_rgb(cr, 0.85, 0.0, 0.0);
		else
			cairo_set_source_rgba(cr, 0.1, 0.1, 0.1, 0.75);
		cairo_arc(cr, x, y, c->outlier[k] ? 4.0 : 3.0, 0, 2 * M_PI);
		cairo_fill(cr);
	}
	double y = frame_y(f, c->rate_mean);   /* the Avg. rate: a diamond */

	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_move_to(cr, cx + bw / 2 + 12, y);
	cairo_line_to(cr, cx + bw / 2 + 18, y - 6);
	cairo_line_to(cr, cx + bw / 2 + 24, y);
	cairo_line_to(cr, cx + bw / 2 + 18, y + 6);
	cairo_close_path(cr);
	cairo_fill(cr);
}

static void value_range(const struct xs_report *r, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < r->n; i++) {
		*lo = fmin(*lo, fmin(r->cond[i].rate_s.min, r->cond[i].rate_mean));
		*hi = fmax(*hi, fmax(r->cond[i].rate_s.max, r->cond[i].rate_mean));
	}
	double pad = (*hi - *lo) * 0.08;

	if (!(pad > 0.0))
		pad = fmax(fabs(*hi) * 0.05, 1.0);
	*lo = fmax(0.0, *lo - pad);
	*hi += pad;
}

static void draw_box_panel(cairo_t *cr, const struct xs_report *r, double top)
{
	struct xs_rate_unit unit = xs_report_rate_unit(r);
	struct frame f = { MARGIN_L, top + MARGIN_T, PANEL_W - MARGIN_L - MARGIN_R,
			   PANEL_H - MARGIN_T - MARGIN_B, 0, 0, 0, 0 };
	char title[96], label[96];

	value_range(r, &f.ylo, &f.yhi);
	snprintf(title, sizeof(title), "Rate per run (%s): box = quartiles, diamond = Avg., red = outlier",
		 unit.name);
	draw_y_axis(cr, &f, unit.divisor, title);
	double slot = f.w / (double)r->n, bw = fmin(70.0, slot * 0.45);

	for (size_t i = 0; i < r->n; i++) {
		double cx = f.x0 + slot * ((double)i + 0.5);

		draw_box(cr, &f, &r->cond[i], cx, bw, i);
		draw_strip(cr, &f, &r->cond[i], cx, bw, i);
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_set_font_size(cr, 13);
		text_at(cr, cx, f.y0 + f.h + 20, r->cond[i].label, 0.5, 0.0);
		snprintf(label, sizeof(label), "n = %zu", r->cond[i].n);
		cairo_set_font_size(cr, 11);
		text_at(cr, cx, f.y0 + f.h + 38, label, 0.5, 0.0);
	}
}

/* ---- rate against block size ------------------------------------------------- */

bool xs_plot_has_block_sizes(const struct xs_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < r->cond[i].n; k++)
			if (r->cond[i].block_size[k] > 0.0)
				return true;
	return false;
}

static void block_range(const struct xs_report *r, struct frame *f)
{
	f->xlo = INFINITY;
	f->xhi = -INFINITY;
	f->ylo = 0.0;
	f->yhi = 0.0;
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < r->cond[i].n; k++) {
			if (!(r->cond[i].block_size[k] > 0.0))
				continue;
			f->xlo = fmin(f->xlo, log2(r->cond[i].block_size[k]));
			f->xhi = fmax(f->xhi, log2(r->cond[i].block_size[k]));
			f->yhi = fmax(f->yhi, r->cond[i].rate[k]);
		}
	f->yhi = f->yhi > 0.0 ? f->yhi * 1.08 : 1.0;
}

static void size_label(double bytes, char *buf, size_t len)
{
	static const char *const suffix[] = { "", "K", "M", "G", "T" };
	size_t s = 0;

	while (s + 1 < sizeof(suffix) / sizeof(suffix[0]) && bytes >= 1024.0) {
		bytes /= 1024.0;
		s++;
	}
	snprintf(buf, len, "%g%s", bytes, suffix[s]);
}

static void draw_x_log2_axis(cairo_t *cr, const struct frame *f)
{
	double lo = ceil(f->xlo), hi = floor(f->xhi);
	double every = fmax(1.0, ceil((hi - lo + 1.0) / 12.0));
	char buf[32];

	cairo_set_font_size(cr, 12);
	for (double e = lo; e <= hi; e += every) {
		double x = frame_x(f, e);

		cairo_set_source_rgba(cr, 0, 0, 0, 0.12);
		cairo_move_to(cr, x, f->y0);
		cairo_line_to(cr, x, f->y0 + f->h);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		size_label(exp2(e), buf, sizeof(buf));
		text_at(cr, x, f->y0 + f->h + 18, buf, 0.5, 0.0);
	}
	text_at(cr, f->x0 + f->w / 2, f->y0 + f->h + 42, "block size (bytes, log scale)", 0.5, 0.0);
}

/* One condition: every run as a dot, and a line through the aggregate
 * rate (sum of bytes / sum of time) at each block size.  sizes has room
 * for c->n values. */
static void draw_block_curve(cairo_t *cr, const struct frame *f, const struct xs_condition *c,
			     size_t colour, double *sizes)
{
	size_t n = 0;

	set_colour(cr, colour, 1.0);
	for (size_t k = 0; k < c->n; k++) {
		if (!(c->block_size[k] > 0.0))
			continue;
		sizes[n++] = c->block_size[k];
		cairo_arc(cr, frame_x(f, log2(c->block_size[k])), frame_y(f, c->rate[k]), 2.5,
			  0, 2 * M_PI);
		cairo_fill(cr);
	}
	gsl_sort(sizes, 1, n);
	for (size_t j = 0; j < n; j++) {
		if (j > 0 && sizes[j] == sizes[j - 1])
			continue;
		double b = 0.0, t = 0.0;

		for (size_t k = 0; k < c->n; k++)
			if (c->block_size[k] == sizes[j]) {
				b += c->bytes[k];
				t += c->time[k];
			}
		cairo_line_to(cr, frame_x(f, log2(sizes[j])), frame_y(f, b / t));
	}
	cairo_set_line_width(cr, 2.0);
	cairo_stroke(cr);
}

static bool draw_block_panel(cairo_t *cr, const struct xs_report *r, double top)
{
	struct xs_rate_unit unit = xs_report_rate_unit(r);
	struct frame f = { MARGIN_L, top + MARGIN_T, PANEL_W - MARGIN_L - MARGIN_R,
			   PANEL_H - MARGIN_T - MARGIN_B, 0, 0, 0, 0 };
	char title[64];
	size_t most = 0;

	block_range(r, &f);
	snprintf(title, sizeof(title), "Rate (%s) against block size", unit.name);
	draw_y_axis(cr, &f, unit.divisor, title);
	draw_x_log2_axis(cr, &f);
	for (size_t i = 0; i < r->n; i++)
		most = r->cond[i].n > most ? r->cond[i].n : most;
	double *sizes = malloc(most * sizeof(double));

	if (!sizes)
		return false;
	for (size_t i = 0; i < r->n; i++) {
		draw_block_curve(cr, &f, &r->cond[i], i, sizes);
		set_colour(cr, i, 1.0);
		cairo_rectangle(cr, f.x0 + 12, f.y0 + 12 + 18.0 * (double)i, 14, 10);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_set_font_size(cr, 12);
		text_at(cr, f.x0 + 32, f.y0 + 12 + 18.0 * (double)i, r->cond[i].label, 0.0, 0.85);
	}
	free(sizes);
	return true;
}

/* ---- files -------------------------------------------------------------------- */

bool xs_plot_format_for(const char *path, enum xs_plot_format *out)
{
	const char *dot = strrchr(path, '.');

	if (dot && strcasecmp(dot, ".png") == 0)
		*out = XS_PLOT_PNG;
	else if (dot && strcasecmp(dot, ".svg") == 0)
		*out = XS_PLOT_SVG;
	else
		return false;
	return true;
}

static cairo_status_t write_fd(void *closure, const unsigned char *data, unsigned int len)
{
	int fd = *(int *)closure;

	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return CAIRO_STATUS_WRITE_ERROR;
		data += n;
		len -= (unsigned int)n;
	}
	return CAIRO_STATUS_SUCCESS;
}

static bool draw_all(cairo_surface_t *s, const struct xs_report *r)
{
	cairo_t *cr = cairo_create(s);
	bool ok;

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	draw_box_panel(cr, r, 0.0);
	ok = !xs_plot_has_block_sizes(r) || draw_block_panel(cr, r, PANEL_H);
	ok = ok && cairo_status(cr) == CAIRO_STATUS_SUCCESS;
	cairo_destroy(cr);
	return ok;
}

/* Renders into the open file fd; returns a cairo status. */
static cairo_status_t render_to_fd(const struct xs_report *r, enum xs_plot_format fmt, int *fd)
{
	double h = xs_plot_has_block_sizes(r) ? 2 * PANEL_H : PANEL_H;
	cairo_surface_t *s = fmt == XS_PLOT_SVG ?
		cairo_svg_surface_create_for_stream(write_fd, fd, PANEL_W, h) :
		cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)PANEL_W, (int)h);
	cairo_status_t st = cairo_surface_status(s);

	if (st == CAIRO_STATUS_SUCCESS && !draw_all(s, r))
		st = CAIRO_STATUS_NO_MEMORY;
	if (st == CAIRO_STATUS_SUCCESS && fmt == XS_PLOT_PNG)
		st = cairo_surface_write_to_png_stream(s, write_fd, fd);
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	return st;
}

int xs_plot_write(const struct xs_report *r, const char *path, char *err, size_t errlen)
{
	enum xs_plot_format fmt;
	char tmp[4096];
	int fd;

	if (!xs_plot_format_for(path, &fmt)) {
		snprintf(err, errlen, "%s: unknown plot format (use .png or .svg)", path);
		return -EINVAL;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot create %s: %s", path, tmp, strerror(e));
		return -e;
	}
	cairo_status_t st = render_to_fd(r, fmt, &fd);
	int rc = st == CAIRO_STATUS_SUCCESS ? 0 : -EIO;

	if (rc == 0 && fsync(fd) != 0)
		rc = -errno;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0) {
		snprintf(err, errlen, "%s: %s", path, st != CAIRO_STATUS_SUCCESS ?
			 cairo_status_to_string(st) : strerror(-rc));
		unlink(tmp);
	}
	return rc;
}
