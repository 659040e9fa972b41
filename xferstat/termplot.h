/*
 * termplot.h: a strip plot of the run rates for a terminal.
 *
 * Owns: drawing every condition of a report on one shared rate axis, one
 * row of marks per condition (a digit when several runs fall in one
 * column) and under it the mean, median and mean +- sample SD.  Does not
 * own: the numbers (compare.h) or deciding when to plot (the command).
 *
 *   Rate (KiB/s) of every run
 *          +-----------------------------------------------+
 *   I   x  |x x2 x  x                                      |
 *          | <--M-A-->                                     |
 *   II  +  |                             + +2  +   +       |
 *          |                              <--MA-->         |
 *          +-----------------------------------------------+
 *          9.64                                        14.09
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_TERMPLOT_H
#define XFERSTAT_TERMPLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "compare.h"
#include "table.h"

/* Narrowest and default total widths, in characters. */
#define XS_TERMPLOT_MIN_WIDTH 40
#define XS_TERMPLOT_WIDTH 74

/* Appends the plot, `width` characters wide (clamped to at least
 * XS_TERMPLOT_MIN_WIDTH).  Returns xs_out_ok(o). */
bool xs_termplot(const struct xs_report *r, size_t width, struct xs_out *o);

#endif
