/*
 * import_ftp.c: the summary line that command-line FTP clients print
 * after each transfer.
 *
 *   tnftp (BSD):      1048576 bytes received in 00:00 (557.41 MiB/s)
 *   inetutils (GNU):  1048576 bytes received in 0.000983 seconds (1.02e+03 Mbytes/s)
 *   netkit (GNU):     102400 bytes received in 1.23 secs (81.3 kB/s)
 *   lftp:             1048576 bytes transferred in 2 seconds (619.9 KiB/s)
 *                     1048576 bytes transferred           (under 1 s: no time)
 *
 * A time given in decimal seconds is used as is.  tnftp prints a clock
 * (MM:SS or HH:MM:SS) and lftp whole seconds, so for them the time is
 * derived from the bytes and the printed rate, which has 4-5 significant
 * digits.  The rest of an ftp session transcript (server replies,
 * "Connected to", "local: ... remote: ...") is recognised as unused.
 * In text (the driver's scan of a line) the record ends after the rate.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "import_formats.h"

/* Reads "(RATE UNIT)" to bytes per second; 0 if absent or malformed.
 * The unit ends at the ")" (which may be followed by "," or, in text,
 * by anything). */
static double read_rate(struct cursor *c)
{
	double value, unit;
	struct cursor try = *c;
	cursor_skip_blanks(&try);
	if (!cursor_literal(&try, "(") || !text_double(&try, &value))
		return 0;
	cursor_skip_blanks(&try);
	struct cursor start = try;
	size_t n = 0;
	uint8_t ch;
	while (cursor_peek_u8(&try, &ch) && ch != ')' && ch != ' ' && ch != '\t') {
		cursor_u8(&try, &ch);
		n++;
	}
	if (n == 0 || !cursor_literal(&try, ")"))
		return 0;
	struct cursor unit_word;
	cursor_sub(&start, n, &unit_word);
	unit = text_rate_unit(&unit_word);
	if (unit == 0 || !(value > 0))
		return 0;
	*c = try;
	return value * unit;
}

/* "MM:SS" or "HH:MM:SS" (tnftp); whole seconds into *out. */
static bool read_clock(struct cursor *c, double *out)
{
	struct cursor try = *c;
	uint64_t parts[3];
	size_t n = 0;
	cursor_skip_blanks(&try);
	do {
		if (n == 3 || !cursor_parse_u64(&try, &parts[n]) || parts[n] > 1000000)
			return false;
		n++;
	} while (cursor_literal(&try, ":"));
	if (n < 2 || parts[n - 1] >= 60)
		return false;
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s = s * 60 + (double)parts[i];
	*out = s;
	*c = try;
	return true;
}

/* Lines of an ftp session that are not summaries. */
static bool is_transcript(const struct cursor *line)
{
	static const char *const starts[] = {
		"Connected to ", "local: ", "Remote system type", "Using binary mode",
		"Using ascii mode", "ftp> ", "Name (", "Password:", "Interactive mode",
		"Total ", "Trying ", "Passive mode ", "Verbose mode",
	};
	struct cursor c = *line;
	cursor_skip_blanks(&c);
	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		struct cursor t = c;
		if (cursor_literal(&t, starts[i]))
			return true;
	}
	/* A server reply: three digits, then a blank, "-" or the end. */
	uint8_t d[4];
	struct cursor t = c;
	if (!cursor_copy(&t, d, 3))
		return false;
	for (size_t i = 0; i < 3; i++)
		if (d[i] < '0' || d[i] > '9')
			return false;
	if (cursor_at_end(&t))
		return true;
	cursor_u8(&t, &d[3]);
	return d[3] == ' ' || d[3] == '-';
}

void import_ftp_line(struct cursor line, const struct xfer_import_opts *opts,
		     struct line_result *res)
{
	(void)opts;
	struct cursor c = line;
	uint64_t bytes;
	if (!text_u64(&c, &bytes) ||
	    !(text_word_is(&c, "bytes") || text_word_is(&c, "byte"))) {
		if (is_transcript(&line))
			line_unused(res, "ftp session transcript");
		else
			line_unrecognised(res, NULL);
		return;
	}
	bool lftp = false;
	if (text_word_is(&c, "received"))
		res->direction = "get";
	else if (text_word_is(&c, "sent"))
		res->direction = "put";
	else if (text_word_is(&c, "transferred"))
		lftp = true;
	else {
		/* In text, "N bytes" alone is prose, not a record cut short. */
		line_unrecognised(res, res->in_text ? NULL
				  : "byte count without received/sent/transferred");
		return;
	}
	struct cursor in = c;
	if (lftp && (text_rest_blank(&c) || (res->in_text && !text_word_is(&in, "in")))) {
		text_record_end(res, &line, &c);
		line_unused(res, "lftp gives no time for transfers under 1 s");
		return;
	}
	if (!text_word_is(&c, "in")) {
		line_unrecognised(res, "no \"in TIME\" after the byte count");
		return;
	}
	double seconds = 0, rate = 0;
	bool exact = false;
	struct cursor after_num = c;
	if (read_clock(&c, &seconds)) {
		exact = false;
	} else if (text_double(&after_num, &seconds) &&
		   (text_word_is(&after_num, "seconds") || text_word_is(&after_num, "secs") ||
		    text_word_is(&after_num, "sec") || text_word_is(&after_num, "second"))) {
		c = after_num;
		/* lftp prints whole seconds; the ftp clients a decimal value. */
		exact = !lftp;
	} else {
		line_unrecognised(res, "time is neither seconds nor MM:SS");
		return;
	}
	rate = read_rate(&c);
	if (!text_record_end(res, &line, &c)) {
		line_unrecognised(res, "unexpected text after the summary");
		return;
	}
	if (bytes == 0) {
		line_unused(res, "no bytes moved");
		return;
	}
	if (!exact) {
		double derived;
		if (text_seconds_from_rate(bytes, rate, &derived))
			seconds = derived;
	}
	if (!(seconds > 0)) {
		line_unused(res, "time is zero: too fast for the tool's clock");
		return;
	}
	res->kind = LINE_RUN;
	res->run.bytes = bytes;
	res->run.seconds = seconds;
}
