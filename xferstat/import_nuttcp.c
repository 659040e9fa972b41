/*
 * import_nuttcp.c: nuttcp's reports.
 *
 *   brief:    1790.4375 MB /   1.00 sec = 15011.8925 Mbps 26 %TX 71 %RX 0 retrans 0.19 msRTT
 *   -i:        788.2500 MB /   0.50 sec = 13213.4883 Mbps     0 retrans
 *   -fparse:  megabytes=62.5000 real_seconds=0.04 rate_Mbps=14708.1861 tx_cpu=33 ...
 *   -fparse -i: megabytes=1323.7500 real_sec=0.50 rate_Mbps=22207.6405 retrans=0
 *   -v:       nuttcp-t: 1884.4608 MB in 1.00 real seconds = 1928630.95 KB/sec = 15799.3447 Mbps
 *
 * nuttcp's MB is 2^20 bytes and its Mbps 10^6 bit/s (checked against its
 * own figures).  It prints seconds with two decimals but the rate with
 * eight significant digits, so the time is taken from bytes and rate.
 * The summary carries the CPU figures (%TX, tx_cpu); interval lines do
 * not.  In -v output the transmitter's line (nuttcp-t) is the run and
 * the receiver's report of the same transfer is unused.
 *
 * In text a record ends after its last figure: the "N %TX N %RX N
 * retrans N msRTT" tail of the brief form, the key=value pairs of
 * -fparse, "Mbps" in -v.  With --intervals the totals line closes the
 * session of the intervals before it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "import_formats.h"

#include <math.h>

#define NUTTCP_MB 1048576.0

static bool finish(struct line_result *res, double mbytes, double secs, double mbps)
{
	uint64_t bytes;
	if (!(mbytes >= 0) || !text_bytes(mbytes * NUTTCP_MB, &bytes)) {
		line_unrecognised(res, "megabytes out of range");
		return false;
	}
	double seconds = secs;
	double derived;
	if (text_seconds_from_rate(bytes, mbps * 1e6 / 8, &derived))
		seconds = derived;
	line_run(res, bytes, seconds);
	return res->kind == LINE_RUN;
}

/* Whether a word of the rest of the line is present. */
static bool has_word(struct cursor c, const char *word)
{
	struct cursor w;
	for (;;) {
		cursor_skip_blanks(&c);
		if (!cursor_word(&c, &w))
			return false;
		if (cursor_equals(&w, word))
			return true;
	}
}

static void interval_or_summary(struct line_result *res, bool interval,
				const struct xfer_import_opts *opts)
{
	if (interval && !opts->intervals)
		line_unused(res, "interval line (use --intervals to take these as runs)");
	else if (!interval && opts->intervals)
		line_unused(res, "summary line (--intervals takes the interval lines)");
}

/* The key=value pairs after a -fparse record (tx_cpu=33 retrans=0 ...). */
static void skip_pairs(struct cursor *c)
{
	for (;;) {
		struct cursor t = *c;
		uint8_t ch;
		size_t n = 0;
		double v;
		cursor_skip_blanks(&t);
		while (cursor_peek_u8(&t, &ch) && ((ch >= 'a' && ch <= 'z') || ch == '_')) {
			cursor_u8(&t, &ch);
			n++;
		}
		if (n == 0 || !cursor_literal(&t, "=") || !cursor_parse_double(&t, &v))
			return;
		*c = t;
	}
}

/* The figures after the rate of a brief line ("26 %TX 71 %RX 0 retrans
 * 0.19 msRTT", UDP's "0 / 153 drop/pkt 0.00 %loss"); whether %TX (a
 * totals line) was among them. */
static bool skip_tail(struct cursor *c)
{
	static const char *const words[] = { "%TX", "%RX", "retrans", "msRTT", "drop/pkt",
					     "%loss", "host-retrans" };
	bool totals = false;
	for (;;) {
		struct cursor t = *c;
		double v;
		if (!text_double(&t, &v))
			return totals;
		if (text_word_is(&t, "/") && !text_double(&t, &v))
			return totals;
		size_t i = 0;
		while (i < sizeof(words) / sizeof(words[0]) && !text_word_is(&t, words[i]))
			i++;
		if (i == sizeof(words) / sizeof(words[0]))
			return totals;
		totals = totals || i == 0;
		*c = t;
	}
}

/* key=value for a fixed key, then a blank or the end. */
static bool kv(struct cursor *c, const char *key, double *out)
{
	struct cursor t = *c;
	cursor_skip_blanks(&t);
	if (!cursor_literal(&t, key) || !cursor_literal(&t, "=") || !cursor_parse_double(&t, out))
		return false;
	*c = t;
	return true;
}

static void parse_line(struct cursor line, const struct xfer_import_opts *opts,
		       struct line_result *res)
{
	struct cursor c = line;
	double mb, secs, mbps;
	cursor_skip_blanks(&c);
	if (kv(&c, "megabytes", &mb)) {
		bool interval;
		if (kv(&c, "real_seconds", &secs))
			interval = false;
		else if (kv(&c, "real_sec", &secs))
			interval = true;
		else {
			line_unrecognised(res, "megabytes= without real_seconds=");
			return;
		}
		if (!kv(&c, "rate_Mbps", &mbps)) {
			line_unrecognised(res, "no rate_Mbps=");
			return;
		}
		skip_pairs(&c);
		text_record_end(res, &line, &c);
		res->session_end = !interval;
		interval_or_summary(res, interval, opts);
		if (res->kind == LINE_UNRECOGNISED)
			finish(res, mb, secs, mbps);
		return;
	}
	struct cursor v = c, vr = c;
	bool transmitter = cursor_literal(&v, "nuttcp-t:");
	if (transmitter || cursor_literal(&vr, "nuttcp-r:")) {
		struct cursor d = transmitter ? v : vr;
		if (text_double(&d, &mb) && text_word_is(&d, "MB") && text_word_is(&d, "in") &&
		    text_double(&d, &secs) && text_word_is(&d, "real") &&
		    text_word_is(&d, "seconds")) {
			/* "= N KB/sec = N Mbps" */
			struct cursor r = d;
			double kbs;
			if (!text_word_is(&r, "=") || !text_double(&r, &kbs) ||
			    !text_word_is(&r, "KB/sec") || !text_word_is(&r, "=") ||
			    !text_double(&r, &mbps) || !text_word_is(&r, "Mbps")) {
				line_unrecognised(res, "nuttcp -v total without its rates");
				return;
			}
			text_record_end(res, &line, &r);
			res->session_end = true;
			if (!transmitter) {
				line_unused(res, "receiver's report of the transfer (nuttcp-t line is the run)");
				return;
			}
			if (opts->intervals) {
				line_unused(res, "summary line (--intervals takes the interval lines)");
				return;
			}
			finish(res, mb, secs, mbps);
			return;
		}
		line_unused(res, "nuttcp -v detail");
		return;
	}
	if (!text_double(&c, &mb) || !text_word_is(&c, "MB")) {
		line_unrecognised(res, NULL);
		return;
	}
	if (!text_word_is(&c, "/") || !text_double(&c, &secs) || !text_word_is(&c, "sec") ||
	    !text_word_is(&c, "=") || !text_double(&c, &mbps) || !text_word_is(&c, "Mbps")) {
		line_unrecognised(res, "expected MB / SECONDS sec = RATE Mbps");
		return;
	}
	bool interval;
	if (res->in_text) {
		interval = !skip_tail(&c);
		text_record_end(res, &line, &c);
	} else {
		interval = !has_word(c, "%TX");
	}
	res->session_end = !interval;
	interval_or_summary(res, interval, opts);
	if (res->kind == LINE_UNRECOGNISED)
		finish(res, mb, secs, mbps);
}

void import_nuttcp_line(struct cursor line, const struct xfer_import_opts *opts,
			struct line_result *res)
{
	parse_line(line, opts, res);
}
