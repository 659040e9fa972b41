/*
 * cli.c: shared command-line helpers of xferstat.  See cli.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cursor.h"

bool cli_parse_size(const char *text, uint64_t *out)
{
	static const struct {
		const char *suffix;
		uint64_t factor;
	} suffixes[] = {
		{ "", 1 }, { "k", 1024 }, { "K", 1024 }, { "KiB", 1024 },
		{ "M", 1048576 }, { "MiB", 1048576 }, { "G", 1073741824 }, { "GiB", 1073741824 },
		{ "kB", 1000 }, { "KB", 1000 }, { "MB", 1000000 }, { "GB", 1000000000 },
	};
	struct cursor c;
	uint64_t value;
	cursor_init(&c, text, strlen(text));
	if (!cursor_parse_u64(&c, &value) || value == 0)
		return false;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if (!cursor_equals(&c, suffixes[i].suffix))
			continue;
		if (value > UINT64_MAX / suffixes[i].factor)
			return false;
		*out = value * suffixes[i].factor;
		return true;
	}
	return false;
}

bool cli_parse_count(const char *text, unsigned long min, unsigned long max,
		     unsigned long *out)
{
	struct cursor c;
	uint64_t value;
	cursor_init(&c, text, strlen(text));
	if (!cursor_parse_u64(&c, &value) || !cursor_at_end(&c) || value < min || value > max)
		return false;
	*out = (unsigned long)value;
	return true;
}

bool cli_parse_seconds(const char *text, double *out)
{
	struct cursor c;
	cursor_init(&c, text, strlen(text));
	return cursor_parse_double(&c, out) && cursor_at_end(&c) && *out > 0 && *out < 1e7;
}

static void stderr_sink(void *ctx, enum log_level level, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "xferstat: %s%s%s\n", level <= LOG_LEVEL_WARNING ? log_level_name(level) : "",
		level <= LOG_LEVEL_WARNING ? ": " : "", msg);
}

void cli_logger_init(struct logger *log, int verbosity)
{
	log->sink = stderr_sink;
	log->ctx = NULL;
	log->prefix = NULL;
	log->max = verbosity < 0 ? LOG_LEVEL_ERROR
		 : verbosity == 0 ? LOG_LEVEL_WARNING
		 : verbosity == 1 ? LOG_LEVEL_INFO : LOG_LEVEL_DEBUG;
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	fputs("xferstat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
