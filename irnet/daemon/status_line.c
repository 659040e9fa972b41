/*
 * status_line.c: irdad --stdio's status lines (see the header; the table
 * is in docs/irdad.md, "Status lines").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "status_line.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cursor.h"

const char *status_reason_word(enum status_reason r)
{
	static const char *const words[STATUS_REASON_COUNT] = {
		"no-peer", "not-offered", "refused", "no-answer", "busy", "link-lost",
		"closed-by-peer", "closed", "dongle",
	};
	return (unsigned)r < STATUS_REASON_COUNT ? words[r] : "?";
}

enum status_reason status_reason_of_lmp(enum irlmp_reason r, bool was_up)
{
	switch (r) {
	case IRLMP_REASON_USER:
		return was_up ? STATUS_CLOSED_BY_PEER : STATUS_REFUSED;
	case IRLMP_REASON_NO_CLIENT:
		return was_up ? STATUS_CLOSED_BY_PEER : STATUS_NOT_OFFERED;
	case IRLMP_REASON_LAP_CONNECT_FAILED:
	case IRLMP_REASON_NO_RESPONSE:
		return was_up ? STATUS_LINK_LOST : STATUS_NO_ANSWER;
	default:
		return STATUS_LINK_LOST;
	}
}

void status_line_quote_nick(char *buf, size_t cap, const uint8_t *nick, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	struct wcursor w;

	if (cap == 0)
		return;
	wcursor_init(&w, buf, cap - 1);
	wcursor_u8(&w, '"');
	for (size_t i = 0; i < len; i++) {
		uint8_t c = nick[i];
		if (c == '"' || c == '\\') {
			wcursor_u8(&w, '\\');
			wcursor_u8(&w, c);
		} else if (c < 0x20 || c > 0x7e) {
			uint8_t esc[4] = { '\\', 'x', (uint8_t)hex[c >> 4], (uint8_t)hex[c & 15] };
			wcursor_bytes(&w, esc, sizeof(esc));
		} else {
			wcursor_u8(&w, c);
		}
	}
	wcursor_u8(&w, '"');
	buf[wcursor_ok(&w) ? wcursor_len(&w) : 0] = '\0';
}

void status_line_init(struct status_line *s, const struct logger *log, const char *who)
{
	s->fd = -1;
	s->log = log;
	snprintf(s->who, sizeof(s->who), "%s", who);
}

void status_line_set_fd(struct status_line *s, int fd)
{
	s->fd = fd;
}

void status_line_write(struct status_line *s, const char *fmt, ...)
{
	char line[STATUS_LINE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* room for the "\n" in place of the NUL */
	if ((size_t)n > sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	line[n] = '\0';
	log_msg(s->log, LOG_LEVEL_INFO, "%s: %s", s->who, line);
	if (s->fd < 0)
		return;
	line[n++] = '\n';
	for (size_t off = 0; off < (size_t)n;) {
		ssize_t w = write(s->fd, line + off, (size_t)n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			/* a non-blocking status descriptor (ATTACH) whose reader
			 * does not read: the line is dropped, never waited for */
			log_msg(s->log, LOG_LEVEL_WARNING,
				"%s: status descriptor: %s: line \"%.*s\" %s", s->who,
				w < 0 ? strerror(errno) : "short write", n - 1, line,
				off ? "cut short" : "dropped");
			return;
		}
		off += (size_t)w;
	}
}

void status_line_up(struct status_line *s, uint32_t daddr, const uint8_t *nick, size_t len)
{
	char q[4 * IRLAP_NICKNAME_MAX + 3];

	if (len > IRLAP_NICKNAME_MAX)
		len = IRLAP_NICKNAME_MAX;
	status_line_quote_nick(q, sizeof(q), nick, len);
	status_line_write(s, "up 0x%08x %s", (unsigned)daddr, q);
}

void status_line_end(struct status_line *s, bool was_up, enum status_reason r)
{
	status_line_write(s, "%s %s", was_up ? "down" : "failed", status_reason_word(r));
}
