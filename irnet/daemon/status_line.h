/*
 * status_line.h: the status lines of irdad --stdio and ATTACH
 * (docs/irdad.md, "Status lines"), shared by the IrNET (irnet_ep) and
 * IrCOMM (ircomm_pty) endpoints so that a parent (the pppd plugin) reads one
 * grammar whatever the service.
 *
 * Owns: the words of `failed WORD` and `down WORD` and how an IrLMP
 * disconnect reason maps onto them; the nickname of an `up` line quoted
 * and escaped; writing a line whole on the parent's descriptor (EINTR
 * retried; on a non-blocking one, an ATTACH client's, a line that does
 * not fit is dropped and logged, never waited for) and logging it at
 * info level.
 *
 * Does not own: when a line is written (the endpoints decide), the
 * descriptor (never closed here), the process.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_STATUS_LINE_H
#define IRNET_STATUS_LINE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "irlmp.h"
#include "log.h"

/* Why an attempt failed or a connection ended: the line's word. */
enum status_reason {
	STATUS_NO_PEER,        /* no station (or none matching) in range */
	STATUS_NOT_OFFERED,    /* stations answered, none offers the service */
	STATUS_REFUSED,        /* the peer refused the connection */
	STATUS_NO_ANSWER,      /* IAS or the connection timed out */
	STATUS_BUSY,           /* the link is up with another station, the medium busy */
	STATUS_LINK_LOST,
	STATUS_CLOSED_BY_PEER,
	STATUS_CLOSED,         /* our side (pppd, stdin) went */
	STATUS_DONGLE,
};
#define STATUS_REASON_COUNT (STATUS_DONGLE + 1)

/* "no-peer", "not-offered", ...; "?" out of range. */
const char *status_reason_word(enum status_reason r);
/* The word for a disconnect with IrLMP reason r, of a connection that was
 * up (was_up) or of an attempt. */
enum status_reason status_reason_of_lmp(enum irlmp_reason r, bool was_up);

/* Quotes nick (len bytes, not NUL-terminated) into buf: `"` and `\`
 * escaped with `\`, bytes outside printable ASCII as `\xHH`, so a line
 * never carries a control character.  buf gets "" (empty) if cap is too
 * small; 4 * len + 3 always fits. */
void status_line_quote_nick(char *buf, size_t cap, const uint8_t *nick, size_t len);

/* The longest line, "\n" included. */
#define STATUS_LINE_MAX 160

struct status_line {
	int fd;                    /* -1: logged only */
	const struct logger *log;
	char who[40];              /* the log lines' prefix: "irnet stdio" */
};

/* fd -1 for none; who is copied (truncated to fit). */
void status_line_init(struct status_line *s, const struct logger *log, const char *who);
void status_line_set_fd(struct status_line *s, int fd);
/* One line (without its "\n"), cut to STATUS_LINE_MAX - 1 bytes so that
 * with its "\n" it is STATUS_LINE_MAX at most. */
__attribute__((format(printf, 2, 3)))
void status_line_write(struct status_line *s, const char *fmt, ...);
/* `up 0xDDDDDDDD "NICK"` */
void status_line_up(struct status_line *s, uint32_t daddr, const uint8_t *nick, size_t len);
/* `failed WORD` (up false) or `down WORD` (up true). */
void status_line_end(struct status_line *s, bool was_up, enum status_reason r);

#endif
