/*
 * import_irspray.c: irspray and irdaspray (the old IrDA throughput
 * testers of irda-utils):
 *
 *   Transmitted 102400 bytes in 9.87 seconds (10.13 kbytes/s)
 *   Received 102400 bytes in 9.91 seconds (10.09 kbytes/s)
 *
 * In text (a transcript pasted into mail, a console log) the record ends
 * after the rate's ")" or, without a rate, after "seconds".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "import_formats.h"

void import_irspray_line(struct cursor line, const struct xfer_import_opts *opts,
			 struct line_result *res)
{
	(void)opts;
	struct cursor c = line;
	uint64_t bytes;
	double seconds, rate;
	if (text_word_is(&c, "Transmitted"))
		res->direction = "put";
	else if (text_word_is(&c, "Received"))
		res->direction = "get";
	else {
		line_unrecognised(res, NULL);
		return;
	}
	if (!text_u64(&c, &bytes) || !text_word_is(&c, "bytes") || !text_word_is(&c, "in") ||
	    !text_double(&c, &seconds) || !text_word_is(&c, "seconds")) {
		line_unrecognised(res, "expected N bytes in S seconds");
		return;
	}
	/* The rate is optional: some builds stop after the time. */
	struct cursor r = c;
	cursor_skip_blanks(&r);
	if (cursor_literal(&r, "(")) {
		if (!text_double(&r, &rate) || !text_literal(&r, "kbytes/s)") ||
		    !text_record_end(res, &line, &r)) {
			line_unrecognised(res, "rate in parentheses cut or changed");
			return;
		}
	} else if (!text_record_end(res, &line, &c)) {
		line_unrecognised(res, "unexpected text after the time");
		return;
	}
	line_run(res, bytes, seconds);
}
