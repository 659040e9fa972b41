/*
 * log.h: how library code reports what it does without printing.
 *
 * Library code (protocol cores, parsers, the statistics) never writes to
 * stderr and never exits.  It logs through a struct logger that its host
 * hands in: a daemon sends lines to stderr or syslog, a test collects
 * them, and a NULL logger discards them.  There is no global logger, so
 * two stacks in one process (the emulated-wire tests) log apart.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_LOG_H
#define IRNET_LOG_H

#include <stdarg.h>

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARNING,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

typedef void (*log_sink_fn)(void *ctx, enum log_level level, const char *msg);

struct logger {
	log_sink_fn sink;   /* NULL: discard everything */
	void *ctx;
	enum log_level max; /* messages above this level are dropped */
	const char *prefix; /* e.g. "irlap[a]"; may be NULL */
};

/* Formats into a bounded buffer (long messages are cut, never overflow)
 * and hands the line to the sink.  logger may be NULL. */
void log_msg(const struct logger *logger, enum log_level level,
	     const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void log_vmsg(const struct logger *logger, enum log_level level,
	      const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
/* Whether a message at this level would reach the sink (to skip costly
 * formatting). */
int log_enabled(const struct logger *logger, enum log_level level);

const char *log_level_name(enum log_level level);

/* A sink for programs: writes "prefix: LEVEL: msg\n" to the FILE * given
 * as ctx. */
void log_sink_stdio(void *ctx, enum log_level level, const char *msg);

#endif
