/*
 * import_text.c: small word and number readers shared by the line
 * importers, all on top of struct cursor.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "import_formats.h"

#include <math.h>
#include <string.h>

static bool at_word_end(const struct cursor *c)
{
	uint8_t ch;
	if (!cursor_peek_u8(c, &ch))
		return true;
	return ch == ' ' || ch == '\t';
}

bool text_word_is(struct cursor *c, const char *word)
{
	struct cursor try = *c;
	cursor_skip_blanks(&try);
	if (!cursor_literal(&try, word) || !at_word_end(&try))
		return false;
	*c = try;
	return true;
}

static bool is_digit(uint8_t ch)
{
	return ch >= '0' && ch <= '9';
}

/* The common case of a decimal number, without strtod: at most 15
 * significant digits and a power of ten within 10^+-22, where m / 10^k
 * (or m * 10^k) in double arithmetic is already correctly rounded
 * (Clinger's fast path), hence equal to what strtod gives.  Anything
 * else returns false without moving the cursor, and the caller falls back
 * to cursor_parse_double, whose rules of shape this follows. */
static bool fast_decimal(struct cursor *c, double *out)
{
	static const double pow10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	struct cursor t = *c;
	uint8_t ch;
	bool neg = false;
	uint64_t m = 0;
	int sig = 0, scale = 0, mant = 0;
	size_t shape = 0;
	if (cursor_peek_u8(&t, &ch) && (ch == '-' || ch == '+')) {
		neg = ch == '-';
		cursor_u8(&t, &ch);
		shape++;
	}
	for (int part = 0; part < 2; part++) {
		while (cursor_peek_u8(&t, &ch) && is_digit(ch)) {
			cursor_u8(&t, &ch);
			shape++;
			mant++;
			if (m == 0 && ch == '0') {
				scale -= part;   /* leading zeros after the point */
				continue;
			}
			if (++sig > 15)
				return false;
			m = m * 10 + (uint64_t)(ch - '0');
			scale -= part;
		}
		if (part == 0) {
			if (!cursor_peek_u8(&t, &ch) || ch != '.')
				break;
			cursor_u8(&t, &ch);
			shape++;
		}
	}
	if (mant == 0 || shape >= 64)
		return false;
	if (cursor_peek_u8(&t, &ch) && (ch == 'e' || ch == 'E'))
		return false;   /* exponents: leave them to strtod */
	double v = (double)m;
	if (scale < -22)
		return false;
	v = scale < 0 ? v / pow10[-scale] : v;
	*out = neg ? -v : v;
	*c = t;
	return true;
}

bool text_double(struct cursor *c, double *out)
{
	struct cursor try = *c;
	cursor_skip_blanks(&try);
	if (fast_decimal(&try, out)) {
		*c = try;
		return true;
	}
	if (!cursor_parse_double(&try, out))
		return false;
	*c = try;
	return true;
}

bool text_u64(struct cursor *c, uint64_t *out)
{
	struct cursor try = *c;
	cursor_skip_blanks(&try);
	if (!cursor_parse_u64(&try, out))
		return false;
	*c = try;
	return true;
}

bool text_u64_word(struct cursor *c, uint64_t *out)
{
	struct cursor try = *c;
	if (!text_u64(&try, out) || !at_word_end(&try))
		return false;
	*c = try;
	return true;
}

bool text_double_word(struct cursor *c, double *out)
{
	struct cursor try = *c;
	if (!text_double(&try, out) || !at_word_end(&try))
		return false;
	*c = try;
	return true;
}

bool text_rest_blank(const struct cursor *c)
{
	struct cursor try = *c;
	cursor_skip_blanks(&try);
	return cursor_ok(&try) && cursor_at_end(&try);
}

double text_rate_unit(const struct cursor *word)
{
	static const struct {
		const char *name;
		double factor;
	} units[] = {
		{ "B/s", 1 },
		{ "bytes/s", 1 },
		{ "bytes/sec", 1 },
		{ "KiB/s", 1024.0 },
		{ "MiB/s", 1048576.0 },
		{ "GiB/s", 1073741824.0 },
		{ "TiB/s", 1099511627776.0 },
		/* netkit and inetutils divide by 1024 while writing "k"/"K". */
		{ "kB/s", 1024.0 },
		{ "KB/s", 1024.0 },
		{ "MB/s", 1048576.0 },
		{ "GB/s", 1073741824.0 },
		{ "Kbytes/s", 1024.0 },
		{ "Kbytes/sec", 1024.0 },
		{ "kbytes/s", 1024.0 },
		{ "kbytes/sec", 1024.0 },
		{ "Mbytes/s", 1048576.0 },
		{ "Mbytes/sec", 1048576.0 },
		{ "Gbytes/s", 1073741824.0 },
		{ "Gbytes/sec", 1073741824.0 },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (cursor_equals(word, units[i].name))
			return units[i].factor;
	return 0;
}

bool text_seconds_from_rate(uint64_t bytes, double bytes_per_sec, double *seconds)
{
	if (!(bytes_per_sec > 0) || bytes == 0)
		return false;
	double s = (double)bytes / bytes_per_sec;
	if (!isfinite(s) || !(s > 0))
		return false;
	*seconds = s;
	return true;
}

bool text_micro(double v, int64_t *k)
{
	if (!isfinite(v) || fabs(v) >= 9e9)
		return false;
	double scaled = v * 1e6;
	*k = (int64_t)(scaled < 0 ? scaled - 0.5 : scaled + 0.5);
	return (double)*k / 1e6 == v;
}

bool text_bytes(double value, uint64_t *out)
{
	if (!isfinite(value) || value < 0 || value >= 18446744073709549568.0)
		return false;
	*out = (uint64_t)(value + 0.5);
	return true;
}

void line_run(struct line_result *res, uint64_t bytes, double seconds)
{
	if (bytes == 0 || !(seconds > 0)) {
		line_unused(res, bytes == 0 ? "no bytes moved" : "zero time");
		return;
	}
	res->kind = LINE_RUN;
	res->run.bytes = bytes;
	res->run.seconds = seconds;
}

bool text_record_end(struct line_result *res, const struct cursor *line, const struct cursor *c)
{
	if (res->in_text) {
		res->end = c->pos - line->pos;
		return cursor_ok(c);
	}
	return text_rest_blank(c);
}

bool text_literal(struct cursor *c, const char *text)
{
	struct cursor try = *c;
	cursor_skip_blanks(&try);
	if (!cursor_literal(&try, text))
		return false;
	*c = try;
	return true;
}
