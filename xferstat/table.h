/*
 * table.h: the comparison report as text, CSV, Markdown and JSON.
 *
 * Owns: a growable text buffer (struct xs_out) that every renderer of
 * xferstat writes into, the classic comparison table (conditions as
 * (Time, Rate) column pairs, runs as rows, then Avg. and Dev.), the
 * statistics and verdicts under it, and the JSON form of a report.
 * Does not own: the numbers (compare.h), plots, or where the text goes:
 * the caller prints the buffer.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_TABLE_H
#define XFERSTAT_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "compare.h"

/* A NUL-terminated string that grows as text is appended.  Errors are
 * sticky, like the cursor's: after a failed allocation every append is a
 * no-op and xs_out_ok() is false. */
struct xs_out {
	char *buf;
	size_t len, cap;
	bool failed;
};

void xs_out_init(struct xs_out *o);
void xs_out_free(struct xs_out *o);
static inline bool xs_out_ok(const struct xs_out *o) { return !o->failed; }
/* The text so far ("" when empty, never NULL after init). */
const char *xs_out_str(const struct xs_out *o);
bool xs_out_printf(struct xs_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool xs_out_repeat(struct xs_out *o, char c, size_t n);

/* A unit for rates: the largest of B/s, KiB/s, MiB/s, GiB/s, TiB/s that
 * keeps `max_rate` at 1 or more. */
struct xs_rate_unit {
	const char *name;
	double divisor;
};
struct xs_rate_unit xs_rate_unit_for(double max_rate);
/* The unit that fits every per-run rate of the report. */
struct xs_rate_unit xs_report_rate_unit(const struct xs_report *r);

/* Each returns xs_out_ok(o). */
bool xs_render_text(const struct xs_report *r, struct xs_out *o);
bool xs_render_csv(const struct xs_report *r, struct xs_out *o);
bool xs_render_markdown(const struct xs_report *r, struct xs_out *o);
bool xs_render_json(const struct xs_report *r, struct xs_out *o);

#endif
