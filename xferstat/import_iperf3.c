/*
 * import_iperf3.c: iperf3 --json.
 *
 * Without --intervals one test is one run: the receiver's total
 * (end.sum_received, or end.sum for UDP, or end.sum_sent when the
 * receiver's side is missing).  With --intervals every interval's sum
 * that is not in the omitted warm-up becomes a run, and each test of a
 * stream of several is a session of its own.  A client sends by
 * default (a "put"); with -R (start.test_start.reverse) it receives.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "import_formats.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static json_object *get(json_object *obj, const char *key)
{
	json_object *v = NULL;
	if (!obj || !json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, key, &v))
		return NULL;
	return v;
}

static bool number(json_object *v, double *out)
{
	if (!v || (!json_object_is_type(v, json_type_int) &&
		   !json_object_is_type(v, json_type_double)))
		return false;
	*out = json_object_get_double(v);
	return isfinite(*out);
}

/* A "sum" object {bytes, seconds} to a run; the why if not usable. */
static const char *sum_to_run(json_object *sum, struct xfer_run *run)
{
	double bytes, seconds;
	if (!number(get(sum, "bytes"), &bytes) || !number(get(sum, "seconds"), &seconds))
		return "sum without bytes and seconds";
	if (!text_bytes(bytes, &run->bytes))
		return "byte count out of range";
	if (run->bytes == 0)
		return "no bytes moved";
	if (!(seconds > 0))
		return "zero seconds";
	run->seconds = seconds;
	run->setup_seconds = NAN;
	return NULL;
}

static void one_test(struct import_sink *sink, struct import_pos at, json_object *doc, void *ctx)
{
	const struct xfer_import_opts *opts = ctx;
	import_sink_session_break(sink);    /* with --intervals each test is a session */
	json_object *err = get(doc, "error");
	if (err) {
		char why[200];
		snprintf(why, sizeof(why), "iperf3 reported an error: %s",
			 json_object_is_type(err, json_type_string) ? json_object_get_string(err) : "?");
		import_sink_unused(sink, at, why);
		return;
	}
	json_object *intervals = get(doc, "intervals"), *end = get(doc, "end");
	if (!json_object_is_type(doc, json_type_object) || (!intervals && !end)) {
		import_sink_unrecognised(sink, at, "JSON document without intervals or end", NULL);
		return;
	}
	double reverse = 0;
	number(get(get(get(doc, "start"), "test_start"), "reverse"), &reverse);
	const char *direction = reverse != 0 ? "get" : "put";
	struct xfer_run run;
	memset(&run, 0, sizeof(run));
	const char *why;
	if (opts->intervals) {
		size_t n = intervals && json_object_is_type(intervals, json_type_array)
				   ? json_object_array_length(intervals) : 0;
		if (n == 0)
			import_sink_unused(sink, at, "no intervals in this test");
		for (size_t i = 0; i < n; i++) {
			json_object *sum = get(json_object_array_get_idx(intervals, i), "sum");
			if (json_object_get_boolean(get(sum, "omitted"))) {
				import_sink_unused(sink, at, "omitted (warm-up) interval");
				continue;
			}
			why = sum_to_run(sum, &run);
			if (why)
				import_sink_unused(sink, at, why);
			else if (!import_sink_run(sink, at, &run, direction, NULL))
				return;
		}
		return;
	}
	json_object *sum = get(end, "sum_received");
	if (!sum)
		sum = get(end, "sum");
	if (!sum)
		sum = get(end, "sum_sent");
	if (!sum) {
		import_sink_unused(sink, at, "test has no end sums (interrupted?)");
		return;
	}
	why = sum_to_run(sum, &run);
	if (why)
		import_sink_unused(sink, at, why);
	else
		import_sink_run(sink, at, &run, direction, NULL);
}

bool import_iperf3_doc(struct import_sink *sink, const char *data, size_t len,
		       const struct xfer_import_opts *opts)
{
	return import_json_each(sink, data, len, one_test, (void *)opts);
}
