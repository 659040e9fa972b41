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

bool text_double(struct cursor *c, double *out)
{
	struct cursor try = *c;
	cursor_skip_blanks(&try);
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

bool text_bytes(double value, uint64_t *out)
{
	if (!isfinite(value) || value < 0 || value >= 18446744073709549568.0)
		return false;
	*out = (uint64_t)(value + 0.5);
	return true;
}
