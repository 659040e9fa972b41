/*
 * run.c: one timed transfer through libcurl.  See run.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "run.h"

#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- patterns ---------------------------------------------------------- */

bool xfer_pattern_from_name(const char *name, enum xfer_pattern *out)
{
	static const char *const names[] = { "zero", "random", "text" };
	for (unsigned i = 0; i < 3; i++) {
		if (strcmp(name, names[i]) == 0) {
			*out = (enum xfer_pattern)i;
			return true;
		}
	}
	return false;
}

const char *xfer_pattern_name(enum xfer_pattern pattern)
{
	switch (pattern) {
	case XFER_PATTERN_ZERO: return "zero";
	case XFER_PATTERN_RANDOM: return "random";
	case XFER_PATTERN_TEXT: return "text";
	}
	return "?";
}

/* A stateless 64-bit mixer (splitmix64's finaliser): block i of the
 * random stream is mix(i), so any offset can be produced directly. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#define TEXT_LINE 64

/* Line k of the text stream: words drawn by mix(k), padded to 63
 * characters and a newline. */
static void text_line(uint64_t k, uint8_t line[TEXT_LINE])
{
	static const char *const words[] = {
		"the", "link", "frame", "serial", "infrared", "modem", "packet", "window",
		"speed", "byte", "retry", "station", "primary", "secondary", "data", "a",
		"of", "and", "to", "in", "is", "was", "for", "with", "transfer", "time",
	};
	size_t n = 0;
	uint64_t h = mix(k);
	while (n < TEXT_LINE - 1) {
		const char *w = words[h % (sizeof(words) / sizeof(words[0]))];
		h = mix(h);
		size_t wl = strlen(w);
		if (n + wl + 1 > TEXT_LINE - 1)
			break;
		if (n)
			line[n++] = ' ';
		memcpy(line + n, w, wl);
		n += wl;
	}
	while (n < TEXT_LINE - 1)
		line[n++] = ' ';
	line[TEXT_LINE - 1] = '\n';
}

void xfer_pattern_fill(enum xfer_pattern pattern, uint64_t offset, uint8_t *buf, size_t len)
{
	size_t done = 0;
	switch (pattern) {
	case XFER_PATTERN_ZERO:
		memset(buf, 0, len);
		return;
	case XFER_PATTERN_RANDOM:
		while (done < len) {
			uint64_t pos = offset + done;
			uint64_t v = mix(pos / 8);
			uint8_t bytes[8];
			for (int i = 0; i < 8; i++)
				bytes[i] = (uint8_t)(v >> (8 * i));
			size_t from = (size_t)(pos % 8);
			size_t n = 8 - from < len - done ? 8 - from : len - done;
			memcpy(buf + done, bytes + from, n);
			done += n;
		}
		return;
	case XFER_PATTERN_TEXT:
		while (done < len) {
			uint64_t pos = offset + done;
			uint8_t line[TEXT_LINE];
			text_line(pos / TEXT_LINE, line);
			size_t from = (size_t)(pos % TEXT_LINE);
			size_t n = TEXT_LINE - from < len - done ? TEXT_LINE - from : len - done;
			memcpy(buf + done, line + from, n);
			done += n;
		}
		return;
	}
}

/* ---- URLs -------------------------------------------------------------- */

static bool scheme_supported(const char *scheme)
{
	const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
	for (const char *const *p = info->protocols; p && *p; p++)
		if (strcasecmp(*p, scheme) == 0)
			return true;
	return false;
}

static void supported_list(char *buf, size_t cap)
{
	static const char *const wanted[] = { "ftp", "ftps", "sftp", "http", "https", "file", "tftp", "scp" };
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		if (!scheme_supported(wanted[i]))
			continue;
		int n = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", wanted[i]);
		if (n < 0 || (size_t)n >= cap - used)
			break;
		used += (size_t)n;
	}
}

int xfer_url_check(const char *url, struct xfer_error *err)
{
	CURLU *h = curl_url();
	char *scheme = NULL;
	int rc = 0;
	if (!h) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", url);
		return -ENOMEM;
	}
	/* Parse any scheme, so that an unsupported one is told apart from a
	 * malformed URL. */
	CURLUcode uc = curl_url_set(h, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);
	if (uc != CURLUE_OK) {
		snprintf(err->msg, sizeof(err->msg), "'%s' is not a valid URL: %s", url,
			 curl_url_strerror(uc));
		rc = -EINVAL;
	} else if (curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK) {
		snprintf(err->msg, sizeof(err->msg), "'%s': no scheme (write ftp://HOST/PATH)", url);
		rc = -EINVAL;
	} else if (!scheme_supported(scheme)) {
		char list[128];
		supported_list(list, sizeof(list));
		snprintf(err->msg, sizeof(err->msg),
			 "'%s': scheme '%s' is not supported by this libcurl (%s); it offers: %s",
			 url, scheme, curl_version_info(CURLVERSION_NOW)->version, list);
		rc = -EPROTONOSUPPORT;
	}
	curl_free(scheme);
	curl_url_cleanup(h);
	return rc;
}

char *xfer_url_redacted(const char *url)
{
	CURLU *h = curl_url();
	char *out = NULL, *copy = NULL;
	if (h && curl_url_set(h, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK &&
	    curl_url_set(h, CURLUPART_PASSWORD, NULL, 0) == CURLUE_OK &&
	    curl_url_get(h, CURLUPART_URL, &out, 0) == CURLUE_OK)
		copy = strdup(out);
	else if (!h || curl_url_set(h, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK)
		copy = strdup(url);   /* not a URL at all: nothing to hide */
	curl_free(out);
	curl_url_cleanup(h);
	return copy;
}

/* ---- the transfer ------------------------------------------------------ */

struct transfer_state {
	const struct xfer_target *target;
	const struct xfer_transfer_opts *opts;
	uint64_t sent;        /* upload: bytes handed to libcurl */
	uint64_t received;    /* download: bytes libcurl handed us */
	bool aborted;
};

static size_t on_write(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct transfer_state *st = ctx;
	(void)data;
	st->received += (uint64_t)size * nmemb;
	return size * nmemb;
}

static size_t on_read(char *buf, size_t size, size_t nitems, void *ctx)
{
	struct transfer_state *st = ctx;
	uint64_t left = st->target->size - st->sent;
	size_t room = size * nitems;
	size_t n = left < room ? (size_t)left : room;
	xfer_pattern_fill(st->target->pattern, st->sent, (uint8_t *)buf, n);
	st->sent += n;
	return n;
}

static int on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	struct transfer_state *st = ctx;
	if (!st->opts->progress)
		return 0;
	uint64_t now = (uint64_t)(st->target->put ? ulnow : dlnow);
	uint64_t total = (uint64_t)(st->target->put ? ultotal : dltotal);
	if (!st->opts->progress(st->opts->progress_ctx, now, total)) {
		st->aborted = true;
		return 1;
	}
	return 0;
}

/* What the transfer was doing when it stopped, from how far its clock
 * got. */
static const char *phase_of(CURL *h, CURLcode code)
{
	curl_off_t connect = 0, pre = 0, start = 0;
	curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connect);
	curl_easy_getinfo(h, CURLINFO_PRETRANSFER_TIME_T, &pre);
	curl_easy_getinfo(h, CURLINFO_STARTTRANSFER_TIME_T, &start);
	if (code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_RESOLVE_PROXY)
		return "resolving the host name";
	if (connect == 0)
		return "connecting to the server";
	if (code == CURLE_LOGIN_DENIED)
		return "logging in";
	if (pre == 0)
		return "logging in and setting up the transfer";
	if (start == 0)
		return "waiting for the transfer to start";
	return "transferring data";
}

#define SET(opt, val) ok = ok && curl_easy_setopt(h, opt, val) == CURLE_OK

bool xfer_transfer(const struct xfer_target *target, const struct xfer_transfer_opts *opts,
		   struct xfer_outcome *out)
{
	memset(out, 0, sizeof(*out));
	out->run.setup_seconds = NAN;
	CURL *h = curl_easy_init();
	if (!h)
		return false;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct transfer_state st = { .target = target, .opts = opts };
	long timeout_ms = (long)(opts->timeout * 1000);
	long timeout_s = (long)ceil(opts->timeout);
	bool ok = true;
	SET(CURLOPT_URL, target->url);
	SET(CURLOPT_ERRORBUFFER, errbuf);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_FAILONERROR, 1L);
	SET(CURLOPT_FRESH_CONNECT, 1L);   /* every run pays its own login */
	SET(CURLOPT_FORBID_REUSE, 1L);
	SET(CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	SET(CURLOPT_SERVER_RESPONSE_TIMEOUT, timeout_s);
	SET(CURLOPT_LOW_SPEED_LIMIT, 1L);  /* a stall of timeout s ends it */
	SET(CURLOPT_LOW_SPEED_TIME, timeout_s);
	/* Large buffers, as the curl tool uses, so that fast links are not
	 * held back by per-callback overhead. */
	SET(CURLOPT_BUFFERSIZE, 512L * 1024);
	SET(CURLOPT_UPLOAD_BUFFERSIZE, 512L * 1024);
	SET(CURLOPT_NOPROGRESS, 0L);
	SET(CURLOPT_XFERINFOFUNCTION, on_progress);
	SET(CURLOPT_XFERINFODATA, &st);
	SET(CURLOPT_WRITEFUNCTION, on_write);
	SET(CURLOPT_WRITEDATA, &st);
	if (target->put) {
		SET(CURLOPT_UPLOAD, 1L);
		SET(CURLOPT_READFUNCTION, on_read);
		SET(CURLOPT_READDATA, &st);
		SET(CURLOPT_INFILESIZE_LARGE, (curl_off_t)target->size);
	}
	if (!ok) {
		curl_easy_cleanup(h);
		return false;
	}
	CURLcode code = curl_easy_perform(h);
	out->curl_code = (int)code;
	if (code != CURLE_OK) {
		out->aborted = st.aborted;
		out->doing = phase_of(h, code);
		snprintf(out->message, sizeof(out->message), "%s (curl error %d: %s)",
			 errbuf[0] ? errbuf : curl_easy_strerror(code), (int)code,
			 curl_easy_strerror(code));
		curl_easy_cleanup(h);
		return true;
	}
	curl_off_t pre = 0, start = 0, total = 0, bytes = 0;
	curl_easy_getinfo(h, CURLINFO_PRETRANSFER_TIME_T, &pre);
	curl_easy_getinfo(h, CURLINFO_STARTTRANSFER_TIME_T, &start);
	curl_easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &total);
	/* file:// moves its data inside libcurl's "do" phase, before the
	 * pretransfer mark: there the data phase starts at start-transfer. */
	if (start < pre)
		pre = start;
	curl_easy_getinfo(h, target->put ? CURLINFO_SIZE_UPLOAD_T : CURLINFO_SIZE_DOWNLOAD_T, &bytes);
	curl_easy_cleanup(h);
	uint64_t moved = target->put ? st.sent : st.received;
	if ((uint64_t)bytes != moved)
		log_msg(opts->log, LOG_LEVEL_WARNING,
			"%s: libcurl counted %lld bytes, xferstat %llu", target->url,
			(long long)bytes, (unsigned long long)moved);
	if (target->put && moved != target->size) {
		out->doing = "transferring data";
		snprintf(out->message, sizeof(out->message),
			 "upload ended after %llu of %llu bytes",
			 (unsigned long long)moved, (unsigned long long)target->size);
		return true;
	}
	/* libcurl's clock has microsecond resolution: a data phase below
	 * it counts as one microsecond. */
	curl_off_t data = total - pre;
	out->run.bytes = moved;
	out->run.seconds = (data > 0 ? (double)data : 1.0) / 1e6;
	out->run.setup_seconds = (double)pre / 1e6;
	out->ok = true;
	return true;
}
