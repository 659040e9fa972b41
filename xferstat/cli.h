/*
 * cli.h: what the subcommands of the xferstat program share: parsing of
 * sizes and counts given on the command line, and the stderr logger.
 * Program code: it may print; library modules do not use it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_CLI_H
#define XFERSTAT_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "log.h"

/* Exit codes (xferstat(1), EXIT STATUS). */
enum {
	XFERSTAT_EXIT_OK = 0,
	XFERSTAT_EXIT_FAILED = 1,
	XFERSTAT_EXIT_USAGE = 2,
	XFERSTAT_EXIT_INTERRUPTED = 130,
};

/* "1048576", "64k" or "64K" or "64KiB" (x1024), "10M", "1G", "100kB"
 * (x1000), "10MB", "1GB".  False if malformed, zero or too large. */
bool cli_parse_size(const char *text, uint64_t *out);
/* A decimal count within [min, max]. */
bool cli_parse_count(const char *text, unsigned long min, unsigned long max,
		     unsigned long *out);
/* Positive seconds, e.g. "2" or "0.5". */
bool cli_parse_seconds(const char *text, double *out);

/* A logger printing "xferstat: LEVEL: msg" on stderr; verbosity 0 shows
 * warnings and errors, 1 adds info, 2 adds debug; -1 errors only. */
void cli_logger_init(struct logger *log, int verbosity);
/* Prints "xferstat: msg" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
