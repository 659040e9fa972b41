/*
 * cursor.c: bounds-checked reader and writer.  See cursor.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "cursor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cursor_init(struct cursor *c, const void *data, size_t len)
{
	c->data = data;
	c->len = data ? len : 0;
	c->pos = 0;
	c->failed = false;
}

void cursor_fail(struct cursor *c)
{
	c->failed = true;
}

/* The single bounds check every read goes through. */
static const uint8_t *take(struct cursor *c, size_t n)
{
	if (c->failed || n > c->len - c->pos) {
		c->failed = true;
		return NULL;
	}
	const uint8_t *p = c->data + c->pos;
	c->pos += n;
	return p;
}

bool cursor_u8(struct cursor *c, uint8_t *out)
{
	const uint8_t *p = take(c, 1);
	*out = p ? p[0] : 0;
	return p != NULL;
}

bool cursor_be16(struct cursor *c, uint16_t *out)
{
	const uint8_t *p = take(c, 2);
	*out = p ? (uint16_t)(p[0] << 8 | p[1]) : 0;
	return p != NULL;
}

bool cursor_le16(struct cursor *c, uint16_t *out)
{
	const uint8_t *p = take(c, 2);
	*out = p ? (uint16_t)(p[1] << 8 | p[0]) : 0;
	return p != NULL;
}

bool cursor_be32(struct cursor *c, uint32_t *out)
{
	const uint8_t *p = take(c, 4);
	*out = p ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		   (uint32_t)p[2] << 8 | p[3] : 0;
	return p != NULL;
}

bool cursor_le32(struct cursor *c, uint32_t *out)
{
	const uint8_t *p = take(c, 4);
	*out = p ? (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
		   (uint32_t)p[1] << 8 | p[0] : 0;
	return p != NULL;
}

bool cursor_be_uint(struct cursor *c, size_t nbytes, uint64_t *out)
{
	*out = 0;
	if (nbytes == 0 || nbytes > 8) {
		c->failed = true;
		return false;
	}
	const uint8_t *p = take(c, nbytes);
	if (!p)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < nbytes; i++)
		v = v << 8 | p[i];
	*out = v;
	return true;
}

bool cursor_copy(struct cursor *c, void *out, size_t n)
{
	const uint8_t *p = take(c, n);
	if (!p) {
		if (n)
			memset(out, 0, n);
		return false;
	}
	if (n)
		memcpy(out, p, n);
	return true;
}

bool cursor_skip(struct cursor *c, size_t n)
{
	return take(c, n) != NULL;
}

bool cursor_view(struct cursor *c, size_t n, const uint8_t **out)
{
	*out = take(c, n);
	return *out != NULL;
}

bool cursor_sub(struct cursor *c, size_t n, struct cursor *sub)
{
	const uint8_t *p = take(c, n);
	cursor_init(sub, p, p ? n : 0);
	if (!p)
		sub->failed = true;
	return p != NULL;
}

bool cursor_peek_u8(const struct cursor *c, uint8_t *out)
{
	if (cursor_remaining(c) == 0) {
		*out = 0;
		return false;
	}
	*out = c->data[c->pos];
	return true;
}

bool cursor_line(struct cursor *c, struct cursor *line)
{
	size_t left = cursor_remaining(c);
	if (left == 0) {
		cursor_init(line, NULL, 0);
		return false;
	}
	const uint8_t *start = c->data + c->pos;
	const uint8_t *nl = memchr(start, '\n', left);
	size_t body = nl ? (size_t)(nl - start) : left;
	c->pos += nl ? body + 1 : body;
	if (body > 0 && start[body - 1] == '\r')
		body--;
	cursor_init(line, start, body);
	return true;
}

static bool is_blank(uint8_t ch)
{
	return ch == ' ' || ch == '\t';
}

size_t cursor_skip_blanks(struct cursor *c)
{
	size_t n = 0;
	while (cursor_remaining(c) > 0 && is_blank(c->data[c->pos])) {
		c->pos++;
		n++;
	}
	return n;
}

bool cursor_literal(struct cursor *c, const char *text)
{
	size_t n = strlen(text);
	if (n == 0)
		return true;
	if (cursor_remaining(c) < n || memcmp(c->data + c->pos, text, n) != 0)
		return false;
	c->pos += n;
	return true;
}

static bool is_digit(uint8_t ch)
{
	return ch >= '0' && ch <= '9';
}

static int hex_digit_value(uint8_t ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

bool cursor_parse_hex(struct cursor *c, size_t max_digits, uint64_t *out, size_t *ndigits)
{
	uint64_t v = 0;
	size_t n = 0;
	int d;

	*out = 0;
	*ndigits = 0;
	if (c->failed || max_digits == 0 || max_digits > 16) {
		c->failed = true;
		return false;
	}
	while (n < max_digits && cursor_remaining(c) > 0 &&
	       (d = hex_digit_value(c->data[c->pos])) >= 0) {
		v = v << 4 | (uint64_t)d;
		c->pos++;
		n++;
	}
	if (n == 0) {
		c->failed = true;
		return false;
	}
	*out = v;
	*ndigits = n;
	return true;
}

bool cursor_parse_u64(struct cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	size_t digits = 0;
	*out = 0;
	while (cursor_remaining(c) > 0 && is_digit(c->data[c->pos])) {
		unsigned d = c->data[c->pos] - '0';
		if (v > (UINT64_MAX - d) / 10) {
			c->failed = true;
			return false;
		}
		v = v * 10 + d;
		c->pos++;
		digits++;
	}
	if (digits == 0) {
		c->failed = true;
		return false;
	}
	*out = v;
	return true;
}

/* Length of the longest prefix of buf that has the shape of a decimal
 * floating-point number; 0 if none.  Done by hand so that strtod() only
 * ever sees a bounded, NUL-terminated copy. */
static size_t number_shape(const uint8_t *buf, size_t len)
{
	size_t i = 0, mant = 0;
	if (i < len && (buf[i] == '-' || buf[i] == '+'))
		i++;
	while (i < len && is_digit(buf[i]))
		i++, mant++;
	if (i < len && buf[i] == '.') {
		i++;
		while (i < len && is_digit(buf[i]))
			i++, mant++;
	}
	if (mant == 0)
		return 0;
	if (i < len && (buf[i] == 'e' || buf[i] == 'E')) {
		size_t j = i + 1, exp = 0;
		if (j < len && (buf[j] == '-' || buf[j] == '+'))
			j++;
		while (j < len && is_digit(buf[j]))
			j++, exp++;
		if (exp > 0)
			i = j;
	}
	return i;
}

bool cursor_parse_double(struct cursor *c, double *out)
{
	char tmp[64];
	*out = 0;
	size_t left = cursor_remaining(c);
	size_t n = left ? number_shape(c->data + c->pos, left) : 0;
	if (n == 0 || n >= sizeof(tmp)) {
		c->failed = true;
		return false;
	}
	memcpy(tmp, c->data + c->pos, n);
	tmp[n] = '\0';
	char *end = NULL;
	double v = strtod(tmp, &end);
	if (end != tmp + n || !isfinite(v)) {
		c->failed = true;
		return false;
	}
	c->pos += n;
	*out = v;
	return true;
}

bool cursor_word(struct cursor *c, struct cursor *word)
{
	size_t start = c->pos, n = 0;
	while (cursor_remaining(c) > 0 && !is_blank(c->data[c->pos])) {
		c->pos++;
		n++;
	}
	cursor_init(word, n ? c->data + start : NULL, n);
	return n > 0;
}

bool cursor_equals(const struct cursor *c, const char *text)
{
	size_t n = strlen(text);
	return cursor_remaining(c) == n &&
	       (n == 0 || memcmp(c->data + c->pos, text, n) == 0);
}

bool cursor_to_cstr(const struct cursor *c, char *buf, size_t cap)
{
	size_t n = cursor_remaining(c);
	if (cap == 0 || n >= cap)
		return false;
	if (n)
		memcpy(buf, c->data + c->pos, n);
	buf[n] = '\0';
	return true;
}

void wcursor_init(struct wcursor *w, void *buf, size_t cap)
{
	w->data = buf;
	w->cap = buf ? cap : 0;
	w->len = 0;
	w->failed = false;
}

/* The single bounds check every write goes through. */
static uint8_t *room(struct wcursor *w, size_t n)
{
	if (w->failed || n > w->cap - w->len) {
		w->failed = true;
		return NULL;
	}
	uint8_t *p = w->data + w->len;
	w->len += n;
	return p;
}

bool wcursor_u8(struct wcursor *w, uint8_t v)
{
	uint8_t *p = room(w, 1);
	if (p)
		p[0] = v;
	return p != NULL;
}

bool wcursor_be16(struct wcursor *w, uint16_t v)
{
	uint8_t *p = room(w, 2);
	if (p) {
		p[0] = (uint8_t)(v >> 8);
		p[1] = (uint8_t)v;
	}
	return p != NULL;
}

bool wcursor_le16(struct wcursor *w, uint16_t v)
{
	uint8_t *p = room(w, 2);
	if (p) {
		p[0] = (uint8_t)v;
		p[1] = (uint8_t)(v >> 8);
	}
	return p != NULL;
}

bool wcursor_be32(struct wcursor *w, uint32_t v)
{
	uint8_t *p = room(w, 4);
	if (p) {
		p[0] = (uint8_t)(v >> 24);
		p[1] = (uint8_t)(v >> 16);
		p[2] = (uint8_t)(v >> 8);
		p[3] = (uint8_t)v;
	}
	return p != NULL;
}

bool wcursor_le32(struct wcursor *w, uint32_t v)
{
	uint8_t *p = room(w, 4);
	if (p) {
		p[0] = (uint8_t)v;
		p[1] = (uint8_t)(v >> 8);
		p[2] = (uint8_t)(v >> 16);
		p[3] = (uint8_t)(v >> 24);
	}
	return p != NULL;
}

bool wcursor_bytes(struct wcursor *w, const void *src, size_t n)
{
	uint8_t *p = room(w, n);
	if (p && n)
		memcpy(p, src, n);
	return p != NULL;
}

bool wcursor_fill(struct wcursor *w, uint8_t v, size_t n)
{
	uint8_t *p = room(w, n);
	if (p && n)
		memset(p, v, n);
	return p != NULL;
}

bool wcursor_reserve(struct wcursor *w, size_t n, uint8_t **at)
{
	*at = room(w, n);
	return *at != NULL;
}
