/*
 * run.h: one timed transfer through libcurl, the engine of `xferstat run`.
 *
 * Owns the libcurl handle of a transfer, the generated upload data
 * (zero, random or text patterns, made on the fly: no temporary file)
 * and the split of the time into setup (connect, login, negotiation:
 * CURLINFO_PRETRANSFER_TIME_T) and data phase (TOTAL - PRETRANSFER), in
 * microseconds as libcurl gives them.  When data moved before the
 * pretransfer mark (file://, where STARTTRANSFER < PRETRANSFER), the
 * split is at STARTTRANSFER.  Does not own the loop over runs,
 * the progress display, the link counters or the output: cli_run.c does.
 * The caller calls curl_global_init() once.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_RUN_H
#define XFERSTAT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "results.h"

enum xfer_pattern {
	XFER_PATTERN_ZERO,
	XFER_PATTERN_RANDOM,  /* incompressible (xorshift), same bytes each run */
	XFER_PATTERN_TEXT,    /* printable words and lines: compresses well */
};

/* "zero", "random", "text". */
bool xfer_pattern_from_name(const char *name, enum xfer_pattern *out);
const char *xfer_pattern_name(enum xfer_pattern pattern);

/* Fills buf with bytes [offset, offset + len) of the pattern's stream.
 * The stream is a pure function of the offset, so data can be made in
 * any chunk size and checked afterwards. */
void xfer_pattern_fill(enum xfer_pattern pattern, uint64_t offset, uint8_t *buf, size_t len);

struct xfer_target {
	const char *url;
	bool put;                  /* upload size bytes of pattern */
	uint64_t size;
	enum xfer_pattern pattern;
};

/* Called about every few ms during the transfer with bytes moved so far
 * and the total if known (0 otherwise); return false to abort. */
typedef bool (*xfer_progress_fn)(void *ctx, uint64_t now, uint64_t total);

struct xfer_transfer_opts {
	double timeout;            /* connect, server reply and stall limit, s */
	xfer_progress_fn progress; /* may be NULL */
	void *progress_ctx;
	const struct logger *log;
};

struct xfer_outcome {
	bool ok;
	bool aborted;              /* the progress callback said stop */
	int curl_code;             /* CURLcode */
	struct xfer_run run;       /* valid when ok */
	const char *doing;         /* what was going on when it failed */
	char message[384];         /* curl's detailed error text and code */
};

/* Checks a URL before any run: syntax (libcurl's URL parser) and whether
 * this libcurl supports its scheme.  Returns 0, -EINVAL (bad URL) or
 * -EPROTONOSUPPORT, with a message naming the URL in err. */
int xfer_url_check(const char *url, struct xfer_error *err);
/* The URL without its password, for messages and result files; the
 * caller frees it.  NULL on ENOMEM. */
char *xfer_url_redacted(const char *url);

/* Runs one transfer.  Returns false only when the transfer could not be
 * set up at all (ENOMEM); a failed transfer returns true with
 * out->ok false and the reason in out. */
bool xfer_transfer(const struct xfer_target *target, const struct xfer_transfer_opts *opts,
		   struct xfer_outcome *out);

#endif
