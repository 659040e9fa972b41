/*
 * results.c: result sets in memory, their JSON form, the atomic write.
 * See results.h.
 *
 * Reading goes through json-c's tokener over a bounded buffer (the whole
 * file); every value is checked for type and range before it is used.
 * Writing is a streaming printer rather than a json-c tree: a million
 * imported runs would otherwise cost a million heap objects.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "results.h"

#include "array.h"
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XFER_FORMAT_VERSION 1

static void set_err(struct xfer_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct xfer_error *err, const char *fmt, ...)
{
	if (!err)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void xfer_set_init(struct xfer_set *set)
{
	memset(set, 0, sizeof(*set));
}

void xfer_set_free(struct xfer_set *set)
{
	free(set->label);
	free(set->source);
	free(set->tool);
	free(set->direction);
	free(set->runs);
	xfer_set_init(set);
}

static bool replace_string(char **slot, const char *value)
{
	char *copy = NULL;
	if (value) {
		copy = strdup(value);
		if (!copy)
			return false;
	}
	free(*slot);
	*slot = copy;
	return true;
}

bool xfer_set_set_label(struct xfer_set *set, const char *label)
{
	return replace_string(&set->label, label);
}

bool xfer_set_set_source(struct xfer_set *set, const char *source)
{
	return replace_string(&set->source, source);
}

bool xfer_set_set_tool(struct xfer_set *set, const char *tool)
{
	return replace_string(&set->tool, tool);
}

bool xfer_set_set_direction(struct xfer_set *set, const char *direction)
{
	return replace_string(&set->direction, direction);
}

bool xfer_set_add_run(struct xfer_set *set, const struct xfer_run *run)
{
	struct xfer_run *runs = array_grow(set->runs, &set->cap_runs, set->n_runs,
					   sizeof(*runs), 16);
	if (!runs)
		return false;
	set->runs = runs;
	set->runs[set->n_runs++] = *run;
	return true;
}

void xfer_sets_init(struct xfer_sets *sets)
{
	memset(sets, 0, sizeof(*sets));
}

void xfer_sets_free(struct xfer_sets *sets)
{
	for (size_t i = 0; i < sets->n; i++)
		xfer_set_free(&sets->sets[i]);
	free(sets->sets);
	xfer_sets_init(sets);
}

bool xfer_sets_take(struct xfer_sets *sets, struct xfer_set *set)
{
	struct xfer_set *grown = array_grow(sets->sets, &sets->cap, sets->n, sizeof(*grown), 4);
	if (!grown)
		return false;
	sets->sets = grown;
	sets->sets[sets->n++] = *set;
	xfer_set_init(set);
	return true;
}

struct xfer_set *xfer_sets_find(struct xfer_sets *sets, const char *label,
				const char *direction)
{
	for (size_t i = 0; i < sets->n; i++) {
		struct xfer_set *s = &sets->sets[i];
		bool same_label = (!s->label && !label) ||
				  (s->label && label && strcmp(s->label, label) == 0);
		bool same_dir = (!s->direction && !direction) ||
				(s->direction && direction &&
				 strcmp(s->direction, direction) == 0);
		if (same_label && same_dir)
			return s;
	}
	return NULL;
}

/* ---- reading ----------------------------------------------------------- */

/* Result files and tool outputs: a bound far above any real one, so that
 * a wrong argument (a disk image) fails clearly instead of eating memory. */
#define XFER_INPUT_MAX ((size_t)1 << 30)

bool xfer_read_whole_file(const char *path, char **data, size_t *len,
			  struct xfer_error *err)
{
	uint8_t *bytes;
	int rc = file_read_all(path, XFER_INPUT_MAX, &bytes, len);
	if (rc < 0) {
		set_err(err, "%s: %s", path, rc == -EFBIG ? "file too large (over 1 GiB)" : strerror(-rc));
		*data = NULL;
		return false;
	}
	*data = (char *)bytes;
	return true;
}

/* Context for error messages while walking the JSON tree. */
struct reader {
	const char *name;
	struct xfer_error *err;
};

static bool get_opt_string(struct reader *r, json_object *obj, const char *key,
			   const char *where, char **out)
{
	json_object *v;
	*out = NULL;
	if (!json_object_object_get_ex(obj, key, &v) || json_object_is_type(v, json_type_null))
		return true;
	if (!json_object_is_type(v, json_type_string)) {
		set_err(r->err, "%s: %s.%s: not a string", r->name, where, key);
		return false;
	}
	*out = strdup(json_object_get_string(v));
	if (!*out) {
		set_err(r->err, "%s: out of memory", r->name);
		return false;
	}
	return true;
}

/* Finds a member that is not null: 1 found, 0 absent and optional, -1
 * absent and required (err set). */
static int member_of(struct reader *r, json_object *obj, const char *key,
		     const char *where, bool required, json_object **v)
{
	if (json_object_object_get_ex(obj, key, v) && !json_object_is_type(*v, json_type_null))
		return 1;
	if (!required)
		return 0;
	set_err(r->err, "%s: %s: \"%s\" missing", r->name, where, key);
	return -1;
}

/* A non-negative integer that fits in 64 bits; absent means 0 unless
 * required. */
static bool get_u64(struct reader *r, json_object *obj, const char *key,
		    const char *where, bool required, uint64_t *out)
{
	json_object *v;
	*out = 0;
	int found = member_of(r, obj, key, where, required, &v);
	if (found <= 0)
		return found == 0;
	if (json_object_is_type(v, json_type_int)) {
		/* json-c keeps big positive values as unsigned internally. */
		int64_t s = json_object_get_int64(v);
		if (s < 0) {
			set_err(r->err, "%s: %s.%s: negative", r->name, where, key);
			return false;
		}
		*out = s == INT64_MAX ? json_object_get_uint64(v) : (uint64_t)s;
		return true;
	}
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);
		if (isfinite(d) && d >= 0 && d < 18446744073709551616.0 && d == floor(d)) {
			*out = (uint64_t)d;
			return true;
		}
	}
	set_err(r->err, "%s: %s.%s: not a non-negative integer", r->name, where, key);
	return false;
}

static bool get_double(struct reader *r, json_object *obj, const char *key,
		       const char *where, bool required, double *out)
{
	json_object *v;
	*out = NAN;
	int found = member_of(r, obj, key, where, required, &v);
	if (found <= 0)
		return found == 0;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) {
		set_err(r->err, "%s: %s.%s: not a number", r->name, where, key);
		return false;
	}
	*out = json_object_get_double(v);
	if (!isfinite(*out) || *out < 0) {
		set_err(r->err, "%s: %s.%s: not a finite non-negative number", r->name, where, key);
		return false;
	}
	return true;
}

static bool read_link(struct reader *r, json_object *obj, const char *where,
		      struct xfer_link *link)
{
	static const struct {
		const char *key;
		size_t off;
	} fields[] = {
		{ "tx_bytes", offsetof(struct xfer_link, tx_bytes) },
		{ "rx_bytes", offsetof(struct xfer_link, rx_bytes) },
		{ "tx_packets", offsetof(struct xfer_link, tx_packets) },
		{ "rx_packets", offsetof(struct xfer_link, rx_packets) },
		{ "tx_errors", offsetof(struct xfer_link, tx_errors) },
		{ "rx_errors", offsetof(struct xfer_link, rx_errors) },
		{ "tx_dropped", offsetof(struct xfer_link, tx_dropped) },
		{ "rx_dropped", offsetof(struct xfer_link, rx_dropped) },
	};
	memset(link, 0, sizeof(*link));
	json_object *v;
	if (!json_object_object_get_ex(obj, "link", &v) || json_object_is_type(v, json_type_null))
		return true;
	char here[96];
	snprintf(here, sizeof(here), "%s.link", where);
	if (!json_object_is_type(v, json_type_object)) {
		set_err(r->err, "%s: %s: not an object", r->name, here);
		return false;
	}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		uint64_t value;
		if (!get_u64(r, v, fields[i].key, here, false, &value))
			return false;
		memcpy((char *)link + fields[i].off, &value, sizeof(value));
	}
	link->present = true;
	return true;
}

static bool read_run(struct reader *r, json_object *obj, const char *where,
		     struct xfer_run *run)
{
	if (!json_object_is_type(obj, json_type_object)) {
		set_err(r->err, "%s: %s: not an object", r->name, where);
		return false;
	}
	memset(run, 0, sizeof(*run));
	if (!get_u64(r, obj, "bytes", where, true, &run->bytes) ||
	    !get_double(r, obj, "seconds", where, true, &run->seconds) ||
	    !get_double(r, obj, "setup_seconds", where, false, &run->setup_seconds) ||
	    !get_u64(r, obj, "block_size", where, false, &run->block_size) ||
	    !read_link(r, obj, where, &run->link))
		return false;
	if (!(run->seconds > 0)) {
		set_err(r->err, "%s: %s.seconds: must be greater than 0", r->name, where);
		return false;
	}
	return true;
}

static bool read_set(struct reader *r, json_object *obj, const char *where,
		     struct xfer_set *set)
{
	if (!json_object_is_type(obj, json_type_object)) {
		set_err(r->err, "%s: %s: not an object", r->name, where);
		return false;
	}
	if (!get_opt_string(r, obj, "label", where, &set->label) ||
	    !get_opt_string(r, obj, "source", where, &set->source) ||
	    !get_opt_string(r, obj, "tool", where, &set->tool) ||
	    !get_opt_string(r, obj, "direction", where, &set->direction))
		return false;
	json_object *runs;
	if (!json_object_object_get_ex(obj, "runs", &runs) ||
	    !json_object_is_type(runs, json_type_array)) {
		set_err(r->err, "%s: %s: \"runs\" missing or not an array", r->name, where);
		return false;
	}
	size_t n = json_object_array_length(runs);
	for (size_t i = 0; i < n; i++) {
		char here[64];
		snprintf(here, sizeof(here), "%s.runs[%zu]", where, i);
		struct xfer_run run;
		if (!read_run(r, json_object_array_get_idx(runs, i), here, &run))
			return false;
		if (!xfer_set_add_run(set, &run)) {
			set_err(r->err, "%s: out of memory", r->name);
			return false;
		}
	}
	return true;
}

static bool read_document(struct reader *r, json_object *root, struct xfer_sets *tmp)
{
	if (!json_object_is_type(root, json_type_object)) {
		set_err(r->err, "%s: not a JSON object", r->name);
		return false;
	}
	json_object *version;
	if (json_object_object_get_ex(root, "xferstat", &version)) {
		if (!json_object_is_type(version, json_type_int) ||
		    json_object_get_int64(version) != XFER_FORMAT_VERSION) {
			set_err(r->err, "%s: \"xferstat\": unsupported format version (this program reads %d)",
				r->name, XFER_FORMAT_VERSION);
			return false;
		}
	}
	json_object *list;
	bool ok = true;
	if (json_object_object_get_ex(root, "sets", &list)) {
		if (!json_object_is_type(list, json_type_array)) {
			set_err(r->err, "%s: \"sets\": not an array", r->name);
			return false;
		}
		size_t n = json_object_array_length(list);
		for (size_t i = 0; i < n && ok; i++) {
			char where[32];
			snprintf(where, sizeof(where), "sets[%zu]", i);
			struct xfer_set set;
			xfer_set_init(&set);
			ok = read_set(r, json_object_array_get_idx(list, i), where, &set);
			if (ok && !xfer_sets_take(tmp, &set)) {
				set_err(r->err, "%s: out of memory", r->name);
				ok = false;
			}
			xfer_set_free(&set);
		}
		return ok;
	}
	if (json_object_object_get_ex(root, "runs", &list)) {
		struct xfer_set set;
		xfer_set_init(&set);
		ok = read_set(r, root, "set", &set);
		if (ok && !xfer_sets_take(tmp, &set)) {
			set_err(r->err, "%s: out of memory", r->name);
			ok = false;
		}
		xfer_set_free(&set);
		return ok;
	}
	set_err(r->err, "%s: neither \"sets\" nor \"runs\": not an xferstat result file", r->name);
	return false;
}

/* Line number (1-based) of byte offset off, for parse error messages. */
static size_t line_of(const char *data, size_t off)
{
	size_t line = 1;
	for (size_t i = 0; i < off; i++)
		line += data[i] == '\n';
	return line;
}

bool xfer_sets_load_buffer(struct xfer_sets *sets, const char *name,
			   const char *data, size_t len, struct xfer_error *err)
{
	struct reader r = { name, err };
	if (len > INT_MAX) {
		set_err(err, "%s: file too large for the JSON reader", name);
		return false;
	}
	json_tokener *tok = json_tokener_new();
	if (!tok) {
		set_err(err, "%s: out of memory", name);
		return false;
	}
	json_object *root = json_tokener_parse_ex(tok, data, (int)len);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_continue) {
		/* The whole file was given: a pending value is a truncated file. */
		json_object_put(root);
		root = json_tokener_parse_ex(tok, "", 1);
		jerr = root ? json_tokener_success : json_tokener_get_error(tok);
		if (jerr == json_tokener_continue || jerr == json_tokener_error_parse_eof) {
			set_err(err, "%s: truncated JSON (ends inside a value)", name);
			json_object_put(root);
			json_tokener_free(tok);
			return false;
		}
	}
	if (!root || jerr != json_tokener_success) {
		size_t at = json_tokener_get_parse_end(tok);
		set_err(err, "%s:%zu: not valid JSON: %s", name, line_of(data, at < len ? at : len),
			json_tokener_error_desc(jerr != json_tokener_success ? jerr
						: json_tokener_error_parse_unexpected));
		json_object_put(root);
		json_tokener_free(tok);
		return false;
	}
	size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	for (size_t i = end; i < len; i++) {
		char ch = data[i];
		if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t' && ch != '\0') {
			set_err(err, "%s:%zu: text after the JSON document", name, line_of(data, i));
			json_object_put(root);
			return false;
		}
	}
	struct xfer_sets tmp;
	xfer_sets_init(&tmp);
	bool ok = read_document(&r, root, &tmp);
	json_object_put(root);
	for (size_t i = 0; ok && i < tmp.n; i++) {
		if (!xfer_sets_take(sets, &tmp.sets[i])) {
			/* Undo what was appended: nothing half-applied. */
			while (i-- > 0)
				xfer_set_free(&sets->sets[--sets->n]);
			set_err(err, "%s: out of memory", name);
			ok = false;
		}
	}
	xfer_sets_free(&tmp);
	return ok;
}

bool xfer_sets_load(struct xfer_sets *sets, const char *path, struct xfer_error *err)
{
	char *data;
	size_t len;
	if (!xfer_read_whole_file(path, &data, &len, err))
		return false;
	bool ok = xfer_sets_load_buffer(sets, path, data, len, err);
	free(data);
	return ok;
}

/* ---- writing ----------------------------------------------------------- */

static void put_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* A small line buffer: runs are formatted by hand and written with one
 * fwrite, as printf of a million runs costs more than parsing them. */
struct line_buf {
	char text[512];
	size_t len;
};

static void lb_str(struct line_buf *b, const char *s)
{
	size_t n = strlen(s);
	if (n > sizeof(b->text) - b->len)
		n = sizeof(b->text) - b->len;
	memcpy(b->text + b->len, s, n);
	b->len += n;
}

static void lb_u64(struct line_buf *b, uint64_t v)
{
	char digits[24];
	size_t n = 0;
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && b->len < sizeof(b->text))
		b->text[b->len++] = digits[--n];
}

/* Doubles are written so that they read back as exactly the same value.
 * Measured times and rates are mostly whole numbers of microseconds (or
 * milli-, nanoseconds): when v is k / 10^d exactly as a double division
 * gives it, the decimal k / 10^d is what strtod maps back to v (both are
 * the correctly rounded value of the same rational), so it is printed
 * with integer arithmetic.  Anything else: the shorter of %.15g and
 * %.17g that reads back exactly. */
static void lb_double(struct line_buf *b, double v)
{
	static const double scales[] = { 1, 1e3, 1e6, 1e9 };
	static const unsigned places[] = { 0, 3, 6, 9 };
	if (!isfinite(v)) {
		lb_str(b, "null");
		return;
	}
	double mag = fabs(v);
	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
		double scaled = mag * scales[i];
		if (!(scaled < 9007199254740992.0))
			break;
		uint64_t k = (uint64_t)(scaled + 0.5);
		if ((double)k / scales[i] != mag)
			continue;
		if (v < 0)
			lb_str(b, "-");
		uint64_t div = 1;
		for (unsigned p = 0; p < places[i]; p++)
			div *= 10;
		lb_u64(b, k / div);
		uint64_t frac = k % div;
		if (frac) {
			char digits[12];
			unsigned n = places[i];
			while (frac % 10 == 0) {
				frac /= 10;
				n--;
			}
			digits[n] = '\0';
			for (unsigned p = n; p > 0; p--) {
				digits[p - 1] = (char)('0' + frac % 10);
				frac /= 10;
			}
			lb_str(b, ".");
			lb_str(b, digits);
		}
		return;
	}
	char buf[40];
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	lb_str(b, buf);
}

static void put_run(FILE *f, const struct xfer_run *run)
{
	struct line_buf b = { .len = 0 };
	lb_str(&b, "{\"bytes\":");
	lb_u64(&b, run->bytes);
	lb_str(&b, ",\"seconds\":");
	lb_double(&b, run->seconds);
	lb_str(&b, ",\"setup_seconds\":");
	lb_double(&b, run->setup_seconds);
	if (run->block_size) { /* only NetPIPE-style runs have one: keep big files small */
		lb_str(&b, ",\"block_size\":");
		lb_u64(&b, run->block_size);
	}
	if (run->link.present) {
		static const char *const keys[] = {
			"tx_bytes", "rx_bytes", "tx_packets", "rx_packets",
			"tx_errors", "rx_errors", "tx_dropped", "rx_dropped",
		};
		const struct xfer_link *l = &run->link;
		const uint64_t values[] = {
			l->tx_bytes, l->rx_bytes, l->tx_packets, l->rx_packets,
			l->tx_errors, l->rx_errors, l->tx_dropped, l->rx_dropped,
		};
		for (size_t i = 0; i < 8; i++) {
			lb_str(&b, i ? ",\"" : ",\"link\":{\"");
			lb_str(&b, keys[i]);
			lb_str(&b, "\":");
			lb_u64(&b, values[i]);
		}
		lb_str(&b, "}");
	}
	lb_str(&b, "}");
	fwrite(b.text, 1, b.len, f);
}

bool xfer_sets_write(const struct xfer_sets *sets, FILE *f)
{
	fprintf(f, "{\"xferstat\":%d,\"sets\":[", XFER_FORMAT_VERSION);
	for (size_t i = 0; i < sets->n; i++) {
		const struct xfer_set *s = &sets->sets[i];
		fputs(i ? ",\n{\"label\":" : "\n{\"label\":", f);
		put_string(f, s->label);
		fputs(",\"source\":", f);
		put_string(f, s->source);
		fputs(",\"tool\":", f);
		put_string(f, s->tool);
		fputs(",\"direction\":", f);
		put_string(f, s->direction);
		fputs(",\"runs\":[", f);
		for (size_t j = 0; j < s->n_runs; j++) {
			fputs(j ? ",\n " : "\n ", f);
			put_run(f, &s->runs[j]);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	return !ferror(f);
}

/* Writes the sets through a stdio stream on a duplicate of fd (the
 * caller closes fd itself). */
static int fill_with_sets(int fd, void *ctx)
{
	const struct xfer_sets *sets = ctx;
	FILE *f = fd_output_stream(fd);
	if (!f)
		return -errno;
	errno = 0;
	bool ok = xfer_sets_write(sets, f) && fflush(f) == 0;
	int rc = ok ? 0 : errno ? -errno : -EIO;
	fclose(f);
	return rc;
}

bool xfer_sets_save(const struct xfer_sets *sets, const char *path, struct xfer_error *err)
{
	if (strcmp(path, "-") == 0) {
		if (!xfer_sets_write(sets, stdout) || fflush(stdout) != 0) {
			set_err(err, "standard output: %s", strerror(errno));
			return false;
		}
		return true;
	}
	const char *step;
	int rc = file_write_atomic(path, 0666, fill_with_sets, (void *)sets, &step);
	if (rc == -EISDIR)
		set_err(err, "%s: is a directory", path);
	else if (rc < 0)
		set_err(err, "%s: %s failed: %s", path, step, strerror(-rc));
	return rc == 0;
}

/* Temporary file beside the target, fsync, rename, fsync the directory. */
