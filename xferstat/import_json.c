/*
 * import_json.c: walks the JSON documents of a file for the importers
 * of iperf3 --json and curl -w '%{json}'.  json-c does the parsing over a
 * bounded view taken from the cursor; the cursor tracks position and
 * line numbers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "import_formats.h"

#include <json-c/json.h>
#include <limits.h>

/* Line and column, kept up to date as the walk moves. */
struct where {
	size_t line;
	size_t line_start;      /* cursor position where the line begins */
};

static void count_newlines(struct where *w, const uint8_t *p, size_t n, size_t from)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == '\n') {
			w->line++;
			w->line_start = from + i + 1;
		}
}

static void skip_space(struct cursor *c, struct where *w)
{
	uint8_t ch;
	while (cursor_peek_u8(c, &ch) && (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')) {
		cursor_u8(c, &ch);
		if (ch == '\n') {
			w->line++;
			w->line_start = c->pos;
		}
	}
}

/* Parses the document at the cursor; NULL (with *why) if it does not. */
static json_object *parse_one(json_tokener *tok, struct cursor *c, struct where *w,
			      const char **why)
{
	size_t left = cursor_remaining(c);
	int chunk = left > INT_MAX ? INT_MAX : (int)left;
	struct cursor view = *c;
	const uint8_t *p;
	if (!cursor_view(&view, (size_t)chunk, &p))
		return NULL;
	json_tokener_reset(tok);
	json_object *obj = json_tokener_parse_ex(tok, (const char *)p, chunk);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);
	if (e == json_tokener_continue) {
		/* Numbers and literals at the very end need a terminator. */
		json_object_put(obj);
		obj = json_tokener_parse_ex(tok, " ", 1);
		e = obj ? json_tokener_success : json_tokener_get_error(tok);
		if (obj)
			used = (size_t)chunk;
	}
	if (!obj || e != json_tokener_success || used == 0 || used > (size_t)chunk) {
		json_object_put(obj);
		*why = e == json_tokener_continue ? "truncated JSON document"
						  : json_tokener_error_desc(e);
		return NULL;
	}
	count_newlines(w, p, used, c->pos);
	cursor_skip(c, used);
	return obj;
}

bool import_json_each(struct import_sink *sink, const char *data, size_t len,
		      void (*fn)(struct import_sink *sink, struct import_pos at,
				 struct json_object *doc, void *ctx),
		      void *ctx)
{
	struct cursor c;
	struct where w = { 1, 0 };
	cursor_init(&c, data, len);
	json_tokener *tok = json_tokener_new();
	if (!tok) {
		import_sink_error(sink, "out of memory");
		return false;
	}
	for (;;) {
		skip_space(&c, &w);
		if (cursor_at_end(&c))
			break;
		struct import_pos start = { w.line, c.pos - w.line_start + 1 };
		const char *why = NULL;
		struct cursor here = c;
		json_object *obj = parse_one(tok, &c, &w, &why);
		if (!obj) {
			struct cursor first;
			cursor_line(&here, &first);
			import_sink_unrecognised(sink, start, why, &first);
			import_sink_next_item(sink);
			/* The document is a session of its own (iperf3 -i). */
			import_sink_session_break(sink);
			import_sink_session_cut(sink, start, why);
			break;
		}
		fn(sink, start, obj, ctx);
		import_sink_next_item(sink);
		json_object_put(obj);
	}
	json_tokener_free(tok);
	return true;
}

int import_json_sniff(const char *data, size_t len)
{
	struct cursor c;
	struct where w = { 1, 0 };
	const char *why;
	cursor_init(&c, data, len);
	skip_space(&c, &w);
	uint8_t ch;
	if (!cursor_peek_u8(&c, &ch) || ch != '{')
		return 0;
	json_tokener *tok = json_tokener_new();
	if (!tok)
		return 0;
	json_object *obj = parse_one(tok, &c, &w, &why);
	json_tokener_free(tok);
	int kind = 0;
	if (obj && json_object_is_type(obj, json_type_object)) {
		if (json_object_object_get_ex(obj, "intervals", NULL) ||
		    (json_object_object_get_ex(obj, "start", NULL) &&
		     json_object_object_get_ex(obj, "end", NULL)))
			kind = 1;
		else if (json_object_object_get_ex(obj, "time_total", NULL))
			kind = 2;
	}
	json_object_put(obj);
	return kind;
}
