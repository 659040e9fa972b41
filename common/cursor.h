/*
 * cursor.h: the one bounds-checked reader and writer for outside data.
 *
 * Every parser in irnet-tools (IrDA frames from any device in infrared
 * range, tool output imported by xferstat, /proc and sysfs text read by
 * irqtune, config files) reads through a struct cursor and every frame
 * builder writes through a struct wcursor.  Neither ever touches memory
 * outside the buffer it was given.
 *
 * Errors are sticky: the first read past the end (or malformed number)
 * marks the cursor failed, that read and every later read return false
 * and give zeroed output, and cursor_ok() stays false.  A parser can
 * therefore read a whole header and check once, and a forgotten check
 * still cannot read out of bounds.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_CURSOR_H
#define IRNET_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cursor {
	const uint8_t *data;
	size_t len;
	size_t pos;
	bool failed;
};

void cursor_init(struct cursor *c, const void *data, size_t len);
static inline bool cursor_ok(const struct cursor *c) { return !c->failed; }
static inline size_t cursor_remaining(const struct cursor *c)
{
	return c->failed ? 0 : c->len - c->pos;
}
static inline bool cursor_at_end(const struct cursor *c)
{
	return cursor_remaining(c) == 0;
}
/* Marks the cursor failed (for a semantic error found by the caller). */
void cursor_fail(struct cursor *c);

/* Binary reads.  Each returns false (and zeroes *out) if the bytes are
 * not there. */
bool cursor_u8(struct cursor *c, uint8_t *out);
bool cursor_be16(struct cursor *c, uint16_t *out);
bool cursor_le16(struct cursor *c, uint16_t *out);
bool cursor_be32(struct cursor *c, uint32_t *out);
bool cursor_le32(struct cursor *c, uint32_t *out);
/* Big-endian unsigned integer of 1..8 bytes (IrDA parameter values). */
bool cursor_be_uint(struct cursor *c, size_t nbytes, uint64_t *out);
bool cursor_copy(struct cursor *c, void *out, size_t n);
bool cursor_skip(struct cursor *c, size_t n);
/* Borrows n bytes without copying: *out points into the buffer. */
bool cursor_view(struct cursor *c, size_t n, const uint8_t **out);
/* Splits off the next n bytes as their own cursor (a length-prefixed
 * field), advancing this one past them. */
bool cursor_sub(struct cursor *c, size_t n, struct cursor *sub);
/* Peeks at the next byte without consuming it. */
bool cursor_peek_u8(const struct cursor *c, uint8_t *out);

/* Text reads, for line-oriented formats. */

/* Takes the next line (without its "\n" or "\r\n") as a sub-cursor.
 * Returns false at the end of the input.  A last line without a newline
 * is still a line. */
bool cursor_line(struct cursor *c, struct cursor *line);
/* Skips spaces and tabs; returns how many were skipped. */
size_t cursor_skip_blanks(struct cursor *c);
/* Consumes the literal text if it is next (case-sensitive). */
bool cursor_literal(struct cursor *c, const char *text);
/* Parses a decimal unsigned integer (no sign, no spaces, overflow is an
 * error). */
bool cursor_parse_u64(struct cursor *c, uint64_t *out);
/* Parses 1 to max_digits hexadecimal digits (either case, no "0x"),
 * stopping at the first other byte or after max_digits (max_digits <= 16);
 * *ndigits gets how many.  No digit is an error. */
bool cursor_parse_hex(struct cursor *c, size_t max_digits, uint64_t *out, size_t *ndigits);
/* Parses a finite decimal floating-point number such as 12, 1.5, .5,
 * 1e-3 or -2.25.  Stops at the first character that cannot continue it. */
bool cursor_parse_double(struct cursor *c, double *out);
/* Takes the next run of characters up to a blank or the end. */
bool cursor_word(struct cursor *c, struct cursor *word);
/* Compares the remaining bytes with a C string. */
bool cursor_equals(const struct cursor *c, const char *text);
/* Copies the remaining bytes into a NUL-terminated buffer of size cap;
 * fails (without touching the cursor) if they do not fit. */
bool cursor_to_cstr(const struct cursor *c, char *buf, size_t cap);

/* The writer: fills a caller-owned buffer, never past its capacity. */
struct wcursor {
	uint8_t *data;
	size_t cap;
	size_t len;
	bool failed;
};

void wcursor_init(struct wcursor *w, void *buf, size_t cap);
static inline bool wcursor_ok(const struct wcursor *w) { return !w->failed; }
static inline size_t wcursor_len(const struct wcursor *w) { return w->len; }
static inline size_t wcursor_room(const struct wcursor *w)
{
	return w->failed ? 0 : w->cap - w->len;
}
bool wcursor_u8(struct wcursor *w, uint8_t v);
bool wcursor_be16(struct wcursor *w, uint16_t v);
bool wcursor_le16(struct wcursor *w, uint16_t v);
bool wcursor_be32(struct wcursor *w, uint32_t v);
bool wcursor_le32(struct wcursor *w, uint32_t v);
bool wcursor_bytes(struct wcursor *w, const void *src, size_t n);
bool wcursor_fill(struct wcursor *w, uint8_t v, size_t n);
/* Reserves n bytes to be filled in later (a length byte); *at receives
 * a pointer to them. */
bool wcursor_reserve(struct wcursor *w, size_t n, uint8_t **at);

#endif
