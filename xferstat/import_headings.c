/*
 * import_headings.c: whether a line of a pasted mail is shaped like a
 * heading of the runs under it ("Before the patch", "with CRC", "old:",
 * "Test II"): a short line of prose.  Whether it really is one (no run in
 * it, runs after it) is the driver's decision (import.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "import_formats.h"

#define HEADING_MAX_BYTES 60
#define HEADING_MAX_WORDS 8

static bool is_letter(uint8_t ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static bool is_blank(uint8_t ch)
{
	return ch == ' ' || ch == '\t';
}

/* Characters of prompts, commands, paths and markup, not of headings. */
static bool foreign_char(uint8_t ch)
{
	static const char foreign[] = "@$#=~/\\|<>{}[]\"`*";
	if (ch < 0x20 || ch >= 0x7f)
		return !is_blank(ch);
	for (const char *p = foreign; *p; p++)
		if (ch == (uint8_t)*p)
			return true;
	return false;
}

/* A command of a transcript without a prompt ("nuttcp -T 2 host"). */
static bool command_word(const struct cursor *word)
{
	static const char *const commands[] = {
		"curl", "wget", "ftp", "lftp", "tnftp", "nuttcp", "NPtcp", "iperf3", "iperf",
		"irspray", "irdaspray", "sudo", "ssh", "time", "cat", "xferstat", NULL,
	};
	for (const char *const *c = commands; *c; c++)
		if (cursor_equals(word, *c))
			return true;
	return false;
}

/* The bytes of the line's text (from s) up to its last non-blank, if
 * it has the shape of a heading; 0 if not. */
static size_t heading_length(struct cursor s)
{
	size_t len = 0, end = 0, words = 0;
	uint8_t ch, prev = ' ';
	while (cursor_u8(&s, &ch)) {
		len++;
		if (foreign_char(ch) || len > HEADING_MAX_BYTES)
			return 0;
		if (!is_blank(ch)) {
			if (is_blank(prev) && (++words > HEADING_MAX_WORDS || ch == '-'))
				return 0;
			end = len;
		}
		prev = ch;
	}
	return end;
}

bool text_heading(struct cursor line, char *name, size_t cap)
{
	uint8_t ch;
	cursor_skip_blanks(&line);
	if (!cursor_peek_u8(&line, &ch) || !is_letter(ch))
		return false;
	struct cursor first = line, word;
	if (!cursor_word(&first, &word) || command_word(&word))
		return false;
	size_t len = heading_length(line);
	struct cursor text, last;
	if (len == 0 || !cursor_sub(&line, len, &text))
		return false;
	last = text;
	cursor_skip(&last, len - 1);
	cursor_peek_u8(&last, &ch);
	if (ch == ',' || ch == '?' || ch == '!' || ch == ';')
		return false;     /* a sentence of the mail, not a heading */
	if (ch == ':' || ch == '.') {
		struct cursor whole = text;
		cursor_sub(&whole, len - 1, &text);
	}
	return cursor_to_cstr(&text, name, cap);
}
