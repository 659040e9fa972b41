/*
 * plot.h: plots of a comparison report as PNG or SVG files (cairo).
 *
 * Owns: a box and strip plot of the run rates per condition (box from
 * the first to the third quartile, median line, whiskers to the furthest
 * run within 1.5 IQR, every run as a dot, outliers by the modified
 * z-score in red, the Avg. rate as a diamond) and, when any run has a
 * block size (NetPIPE), a second panel of rate against block size (log2
 * axis) with one curve per condition through the aggregate rate at each
 * size.  The file is written atomically (temporary file, fsync, rename).
 * Does not own: the numbers (compare.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_PLOT_H
#define XFERSTAT_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "compare.h"

enum xs_plot_format {
	XS_PLOT_PNG,
	XS_PLOT_SVG,
};

/* The format named by the file's extension (.png or .svg, any case).
 * Returns false for anything else. */
bool xs_plot_format_for(const char *path, enum xs_plot_format *out);

/* Whether the report has runs with a block size (the second panel). */
bool xs_plot_has_block_sizes(const struct xs_report *r);

/* Draws the report into path.  Returns 0, or a negative errno value with
 * err saying what failed and naming the file. */
int xs_plot_write(const struct xs_report *r, const char *path, char *err, size_t errlen);

#endif
