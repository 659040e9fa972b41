/*
 * import_curl.c: curl's -w output, in the line form xferstat documents
 * and in curl's own -w '%{json}' form.
 *
 * Line form (xferstat(1), IMPORT FORMATS), one transfer a line:
 *   curl -w '%{size_download} %{size_upload} %{time_pretransfer} %{time_total}\n'
 * The data phase is time_total - time_pretransfer and the setup time is
 * time_pretransfer, as `xferstat run` measures them.  The short form
 *   curl -w '%{size_download} %{time_total}\n'
 * is accepted too; its time then includes connect and login.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "import_formats.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void fill(struct line_result *res, double down, double up, double pre, double total)
{
	uint64_t bytes;
	bool put = up > down;
	if (!text_bytes(put ? up : down, &bytes)) {
		line_unrecognised(res, "byte count out of range");
		return;
	}
	if (total < pre) {
		line_unrecognised(res, "time_total is before time_pretransfer");
		return;
	}
	if (bytes == 0) {
		line_unused(res, "no bytes moved");
		return;
	}
	/* Both times are in microseconds: their difference is exact in
	 * microseconds too, not a float subtraction's neighbour of it. */
	int64_t kp, kt;
	double data = isnan(pre) ? total
		    : text_micro(pre, &kp) && text_micro(total, &kt) ? (double)(kt - kp) / 1e6
		    : total - pre;
	if (!(data > 0)) {
		line_unused(res, "no data phase (time_total equals time_pretransfer)");
		return;
	}
	res->kind = LINE_RUN;
	res->direction = put ? "put" : "get";
	res->run.bytes = bytes;
	res->run.seconds = data;
	res->run.setup_seconds = pre;
}

void import_curl_line(struct cursor line, const struct xfer_import_opts *opts,
		      struct line_result *res)
{
	(void)opts;
	uint64_t down, up;
	double a, b;
	struct cursor c = line;
	if (!text_u64_word(&c, &down)) {
		line_unrecognised(res, NULL);
		return;
	}
	struct cursor two = c;
	if (text_double(&two, &a) && text_rest_blank(&two)) {
		/* Short form: size_download time_total. */
		fill(res, (double)down, 0, NAN, a);
		return;
	}
	if (!text_u64_word(&c, &up) || !text_double_word(&c, &a) || !text_double_word(&c, &b) ||
	    !text_rest_blank(&c)) {
		line_unrecognised(res, "expected SIZE_DOWNLOAD SIZE_UPLOAD TIME_PRETRANSFER TIME_TOTAL");
		return;
	}
	fill(res, (double)down, (double)up, a, b);
}

/* A numeric member of a curl JSON object, or NAN. */
static double member(json_object *obj, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(obj, key, &v))
		return NAN;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return NAN;
	double d = json_object_get_double(v);
	return isfinite(d) && d >= 0 ? d : NAN;
}

/* One document of curl -w '%{json}'. */
static void one_transfer(struct import_sink *sink, struct import_pos at, json_object *obj)
{
	struct line_result res;
	memset(&res, 0, sizeof(res));
	res.run.setup_seconds = NAN;
	json_object *v;
	if (!json_object_is_type(obj, json_type_object)) {
		import_sink_unrecognised(sink, at, "JSON value is not an object", NULL);
		return;
	}
	if (json_object_object_get_ex(obj, "exitcode", &v) && json_object_get_int(v) != 0) {
		char why[200];
		json_object *msg = NULL;
		json_object_object_get_ex(obj, "errormsg", &msg);
		snprintf(why, sizeof(why), "curl failed (exit code %d): %s",
			 json_object_get_int(v),
			 msg && json_object_is_type(msg, json_type_string)
				 ? json_object_get_string(msg) : "no message");
		import_sink_unused(sink, at, why);
		return;
	}
	double down = member(obj, "size_download"), up = member(obj, "size_upload");
	double pre = member(obj, "time_pretransfer"), total = member(obj, "time_total");
	if (isnan(down) || isnan(up) || isnan(total)) {
		import_sink_unrecognised(sink, at,
					 "JSON object lacks size_download, size_upload or time_total", NULL);
		return;
	}
	fill(&res, down, up, pre, total);
	if (res.kind == LINE_RUN)
		import_sink_run(sink, at, &res.run, res.direction, NULL);
	else if (res.kind == LINE_UNUSED)
		import_sink_unused(sink, at, res.why);
	else
		import_sink_unrecognised(sink, at, res.why, NULL);
}

static void curl_doc(struct import_sink *sink, struct import_pos at, json_object *obj, void *ctx)
{
	(void)ctx;
	one_transfer(sink, at, obj);
}

bool import_curl_json_doc(struct import_sink *sink, const char *data, size_t len,
			  const struct xfer_import_opts *opts)
{
	(void)opts;
	return import_json_each(sink, data, len, curl_doc, NULL);
}
