/*
 * import_netpipe.c: NetPIPE's NPtcp.
 *
 *   np.out:  "       1 0.577262   0.00001322"   bytes, Mbps, seconds
 *   stdout:  "  0:       1 bytes   7549 times -->      0.58 Mbps in      13.22 usec"
 *
 * Each line is one message size: a run of that many bytes (block_size
 * too) in the measured one-way time.  The time is what NetPIPE measured;
 * its Mbps (2^20 bit/s) is not used.
 *
 * In text only the stdout form is looked for (np.out's bare numbers would
 * match any figures); it ends after "usec".  Each sweep (its block sizes
 * growing from the first) is a session of its own.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "import_formats.h"

static void run_of(struct line_result *res, uint64_t bytes, double seconds)
{
	line_run(res, bytes, seconds);
	res->run.block_size = bytes;
}

static bool is_chatter(struct cursor c)
{
	static const char *const starts[] = {
		"Send and receive buffers are", "(A bug in Linux doubles", "Now starting the main loop",
		"Sending output to", "Latency:", "Sync Time:", "Now starting main loop",
	};
	cursor_skip_blanks(&c);
	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		struct cursor t = c;
		if (cursor_literal(&t, starts[i]))
			return true;
	}
	return false;
}

void import_netpipe_line(struct cursor line, const struct xfer_import_opts *opts,
			 struct line_result *res)
{
	(void)opts;
	struct cursor c = line, cols = line;
	uint64_t n, bytes, times;
	double mbps, t;
	if (!res->in_text && text_u64_word(&cols, &n)) {
		/* np.out */
		if (!text_double_word(&cols, &mbps) || !text_double_word(&cols, &t) ||
		    !text_rest_blank(&cols)) {
			line_unrecognised(res, "expected BYTES MBPS SECONDS");
			return;
		}
		run_of(res, n, t);
		return;
	}
	if (!text_u64(&c, &n) || !cursor_literal(&c, ":")) {
		if (!res->in_text && is_chatter(line))
			line_unused(res, "NetPIPE progress message");
		else
			line_unrecognised(res, NULL);
		return;
	}
	if (!text_u64(&c, &bytes) || !text_word_is(&c, "bytes")) {
		/* In text "12:34" is a clock, not a NetPIPE line cut short. */
		line_unrecognised(res, res->in_text ? NULL : "NetPIPE progress line cut or changed");
		return;
	}
	if (!text_u64(&c, &times) ||
	    !text_word_is(&c, "times") || !text_word_is(&c, "-->") ||
	    !text_double(&c, &mbps) || !text_word_is(&c, "Mbps") ||
	    !text_word_is(&c, "in") || !text_double(&c, &t) ||
	    !text_literal(&c, "usec") || !text_record_end(res, &line, &c)) {
		line_unrecognised(res, "NetPIPE progress line cut or changed");
		return;
	}
	run_of(res, bytes, t / 1e6);
}
