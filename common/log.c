/*
 * log.c: the logger handed to library code.  See log.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "log.h"

#include <stdio.h>

#define LOG_LINE_MAX 512

int log_enabled(const struct logger *logger, enum log_level level)
{
	return logger && logger->sink && level <= logger->max;
}

void log_vmsg(const struct logger *logger, enum log_level level,
	      const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];
	if (!log_enabled(logger, level))
		return;
	size_t used = 0;
	if (logger->prefix) {
		int n = snprintf(line, sizeof(line), "%s: ", logger->prefix);
		used = n < 0 ? 0 : (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	}
	vsnprintf(line + used, sizeof(line) - used, fmt, ap);
	logger->sink(logger->ctx, level, line);
}

void log_msg(const struct logger *logger, enum log_level level,
	     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(logger, level, fmt, ap);
	va_end(ap);
}

const char *log_level_name(enum log_level level)
{
	switch (level) {
	case LOG_LEVEL_ERROR:
		return "error";
	case LOG_LEVEL_WARNING:
		return "warning";
	case LOG_LEVEL_INFO:
		return "info";
	case LOG_LEVEL_DEBUG:
		return "debug";
	}
	return "?";
}

void log_sink_stdio(void *ctx, enum log_level level, const char *msg)
{
	FILE *out = ctx ? ctx : stderr;
	fprintf(out, "%s: %s\n", log_level_name(level), msg);
}
