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

static void skip_space(struct cursor *c, size_t *line)
{
	uint8_t ch;
	while (cursor_peek_u8(c, &ch) && (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')) {
		cursor_u8(c, &ch);
		*line += ch == '\n';
	}
}

/* Parses the document at the cursor; NULL (with *why) if it does not. */
static json_object *parse_one(json_tokener *tok, struct cursor *c, size_t *line,
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
	for (size_t i = 0; i < used; i++)
		*line += p[i] == '\n';
	cursor_skip(c, used);
	return obj;
}

bool import_json_each(struct import_sink *sink, const char *data, size_t len,
		      void (*fn)(struct import_sink *sink, size_t lineno,
				 struct json_object *doc, void *ctx),
		      void *ctx)
{
	struct cursor c;
	size_t line = 1;
	cursor_init(&c, data, len);
	json_tokener *tok = json_tokener_new();
	if (!tok) {
		import_sink_error(sink, "out of memory");
		return false;
	}
	for (;;) {
		skip_space(&c, &line);
		if (cursor_at_end(&c))
			break;
		size_t start = line;
		const char *why = NULL;
		struct cursor here = c;
		json_object *obj = parse_one(tok, &c, &line, &why);
		if (!obj) {
			struct cursor first;
			cursor_line(&here, &first);
			import_sink_unrecognised(sink, start, why, &first);
			break;
		}
		fn(sink, start, obj, ctx);
		json_object_put(obj);
	}
	json_tokener_free(tok);
	return true;
}

int import_json_sniff(const char *data, size_t len)
{
	struct cursor c;
	size_t line = 1;
	const char *why;
	cursor_init(&c, data, len);
	skip_space(&c, &line);
	uint8_t ch;
	if (!cursor_peek_u8(&c, &ch) || ch != '{')
		return 0;
	json_tokener *tok = json_tokener_new();
	if (!tok)
		return 0;
	json_object *obj = parse_one(tok, &c, &line, &why);
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
