/*
 * import_csv.c: plain data.
 *
 *   csv:    bytes,seconds[,label]    (a header "bytes,seconds[,label]" and
 *                                     "#" comments are allowed)
 *   times:  seconds                  (one a line; bytes from --size)
 *
 * A label on a CSV line puts the run in the set of that label.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "import_formats.h"

static bool is_comment(struct cursor c)
{
	cursor_skip_blanks(&c);
	return cursor_literal(&c, "#");
}

static bool comma(struct cursor *c)
{
	cursor_skip_blanks(c);
	return cursor_literal(c, ",");
}

/* The label field: trimmed, optional double quotes. */
static bool label_field(struct cursor c, struct cursor *label)
{
	cursor_skip_blanks(&c);
	size_t n = cursor_remaining(&c);
	const uint8_t *p;
	if (!cursor_view(&c, n, &p))
		return false;
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
		p++;
		n -= 2;
	}
	for (size_t i = 0; i < n; i++)
		if (p[i] == '"' || p[i] == ',' || p[i] < 0x20)
			return false;
	cursor_init(label, n ? p : NULL, n);
	return n > 0;
}

void import_csv_line(struct cursor line, const struct xfer_import_opts *opts,
		     struct line_result *res)
{
	(void)opts;
	struct cursor c = line;
	uint64_t bytes;
	double seconds;
	if (is_comment(line)) {
		line_unused(res, "comment");
		return;
	}
	struct cursor h = line;
	cursor_skip_blanks(&h);
	if (cursor_literal(&h, "bytes") && comma(&h) && cursor_literal(&h, "seconds")) {
		struct cursor tail = h;
		if (text_rest_blank(&tail) || (comma(&tail) && cursor_literal(&tail, "label") &&
					       text_rest_blank(&tail))) {
			line_unused(res, "CSV header");
			return;
		}
	}
	if (!text_u64(&c, &bytes)) {
		line_unrecognised(res, NULL);
		return;
	}
	if (!comma(&c) || !text_double(&c, &seconds)) {
		line_unrecognised(res, "expected BYTES,SECONDS[,LABEL]");
		return;
	}
	if (!text_rest_blank(&c)) {
		if (!comma(&c) || !label_field(c, &res->label)) {
			line_unrecognised(res, "third field is not a label");
			return;
		}
	}
	line_run(res, bytes, seconds);
}

void import_times_line(struct cursor line, const struct xfer_import_opts *opts,
		       struct line_result *res)
{
	struct cursor c = line;
	double seconds;
	if (is_comment(line)) {
		line_unused(res, "comment");
		return;
	}
	if (!text_double(&c, &seconds) || !text_rest_blank(&c)) {
		line_unrecognised(res, NULL);
		return;
	}
	line_run(res, opts->size, seconds);
}
