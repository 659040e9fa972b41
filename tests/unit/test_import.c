/*
 * test_import.c: every importer against output captured from the real
 * tool (tests/fixtures/xferstat, see its README), plus detection,
 * malformed and truncated input.  Expected values are worked out from
 * the numbers printed in the fixtures, not from the parser.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "import_formats.h"
#include "results.h"

/* Collects log lines so tests can check what the user is told. */
struct collected {
	char text[16384];
	size_t len;
};

static void collect(void *ctx, enum log_level level, const char *msg)
{
	struct collected *c = ctx;
	int n = snprintf(c->text + c->len, sizeof(c->text) - c->len, "%s: %s\n",
			 log_level_name(level), msg);
	if (n > 0 && (size_t)n < sizeof(c->text) - c->len)
		c->len += (size_t)n;
}

struct outcome {
	struct xfer_sets sets;
	struct xfer_import_stats st;
	struct xfer_error err;
	struct collected log;
	bool ok;
};

static void import_text(struct outcome *o, const char *name, const char *data, size_t len,
			enum xfer_format format, bool intervals, uint64_t size)
{
	struct xfer_import_opts opts = { .format = format, .intervals = intervals, .size = size };
	struct logger log = { collect, &o->log, LOG_LEVEL_DEBUG, NULL };
	memset(o, 0, sizeof(*o));
	xfer_sets_init(&o->sets);
	o->ok = xfer_import_buffer(&o->sets, name, data, len, &opts, &o->st, &log, &o->err);
	/* Every line lands in exactly one count, however many runs it gave. */
	if (o->ok)
		assert_int_equal(o->st.lines, o->st.run_lines + o->st.unused + o->st.unrecognised +
					      o->st.blank);
}

static void import_labelled(struct outcome *o, const char *name, const char *data,
			    enum xfer_format format, bool intervals, uint64_t size,
			    const char *label)
{
	struct xfer_import_opts opts = { .format = format, .intervals = intervals, .size = size,
					 .label = label };
	struct logger log = { collect, &o->log, LOG_LEVEL_DEBUG, NULL };
	memset(o, 0, sizeof(*o));
	xfer_sets_init(&o->sets);
	o->ok = xfer_import_buffer(&o->sets, name, data, strlen(data), &opts, &o->st, &log,
				   &o->err);
}

/* The fixture's text, n times over, then the first `extra` bytes of it. */
static char *repeat_fixture(const char *file, int n, size_t extra, size_t *len_out)
{
	char path[512];
	char *data;
	size_t len;
	struct xfer_error err;
	snprintf(path, sizeof(path), "%s/%s", FIXTURES, file);
	if (!xfer_read_whole_file(path, &data, &len, &err))
		fail_msg("%s", err.msg);
	assert_true(extra <= len);
	char *out = malloc(len * (size_t)n + extra + 1);
	assert_non_null(out);
	for (int i = 0; i < n; i++)
		memcpy(out + len * (size_t)i, data, len);
	memcpy(out + len * (size_t)n, data, extra);
	out[len * (size_t)n + extra] = '\0';
	*len_out = len * (size_t)n + extra;
	free(data);
	return out;
}

static void import_fixture(struct outcome *o, const char *file, enum xfer_format format,
			   bool intervals, uint64_t size)
{
	char path[512];
	char *data;
	size_t len;
	struct xfer_error err;
	snprintf(path, sizeof(path), "%s/%s", FIXTURES, file);
	if (!xfer_read_whole_file(path, &data, &len, &err))
		fail_msg("%s", err.msg);
	import_text(o, file, data, len, format, intervals, size);
	free(data);
}

static void done(struct outcome *o)
{
	xfer_sets_free(&o->sets);
	xfer_import_stats_free(&o->st);
}

/* The check line of the table that starts with this position. */
static const char *check_at(const struct outcome *o, const char *where)
{
	for (size_t i = 0; i < o->st.n_checks; i++)
		if (strncmp(o->st.checks[i], where, strlen(where)) == 0)
			return o->st.checks[i];
	fail_msg("no check at %s", where);
	return NULL;
}

static void close_to(double got, double want)
{
	if (!(fabs(got - want) <= 1e-9 * fabs(want) + 1e-15))
		fail_msg("got %.17g, want %.17g", got, want);
}

static const struct xfer_run *run_at(struct outcome *o, size_t set, size_t i)
{
	assert_true(set < o->sets.n);
	assert_true(i < o->sets.sets[set].n_runs);
	return &o->sets.sets[set].runs[i];
}

static void test_tnftp(void **state)
{
	(void)state;
	struct outcome o;
	import_fixture(&o, "tnftp-get.txt", XFER_FORMAT_AUTO, false, 0);
	assert_true(o.ok);
	assert_int_equal(o.st.format, XFER_FORMAT_FTP);
	assert_int_equal(o.st.runs, 2);
	assert_int_equal(o.st.unrecognised, 0);
	assert_int_equal(o.st.unused, 16);
	assert_string_equal(o.sets.sets[0].direction, "get");
	assert_string_equal(o.sets.sets[0].label, "tnftp-get.txt");
	assert_string_equal(o.sets.sets[0].tool, "ftp");
	/* "1048576 bytes received in 00:00 (557.41 MiB/s)" */
	assert_true(run_at(&o, 0, 0)->bytes == 1048576);
	close_to(run_at(&o, 0, 0)->seconds, 1.0 / 557.41);
	close_to(run_at(&o, 0, 1)->seconds, 1.0 / 486.61);
	assert_true(isnan(run_at(&o, 0, 0)->setup_seconds));
	done(&o);
	import_fixture(&o, "tnftp-put.txt", XFER_FORMAT_FTP, false, 0);
	assert_int_equal(o.st.runs, 1);
	assert_string_equal(o.sets.sets[0].direction, "put");
	close_to(run_at(&o, 0, 0)->seconds, 100000.0 / (42.10 * 1048576));
	done(&o);
}

static void test_inetutils_ftp(void **state)
{
	(void)state;
	struct outcome o;
	import_fixture(&o, "inetutils-ftp-get.txt", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_FTP);
	assert_int_equal(o.st.runs, 2);
	assert_int_equal(o.st.unrecognised, 0);
	close_to(run_at(&o, 0, 0)->seconds, 0.000983);
	close_to(run_at(&o, 0, 1)->seconds, 0.00089);
	done(&o);
	import_fixture(&o, "inetutils-ftp-put.txt", XFER_FORMAT_AUTO, false, 0);
	assert_true(run_at(&o, 0, 0)->bytes == 100000);
	close_to(run_at(&o, 0, 0)->seconds, 0.000236);
	assert_string_equal(o.sets.sets[0].direction, "put");
	done(&o);
	/* netkit's wording */
	const char *netkit = "102400 bytes received in 1.23 secs (81.3 kB/s)\n";
	import_text(&o, "netkit", netkit, strlen(netkit), XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.runs, 1);
	close_to(run_at(&o, 0, 0)->seconds, 1.23);
	done(&o);
}

static void test_lftp(void **state)
{
	(void)state;
	struct outcome o;
	import_fixture(&o, "lftp-get.txt", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_FTP);
	assert_int_equal(o.st.runs, 3);
	assert_int_equal(o.st.unused, 1);   /* "Total 2 files transferred" */
	assert_null(o.sets.sets[0].direction);
	/* "1048576 bytes transferred in 2 seconds (619.9 KiB/s)" */
	close_to(run_at(&o, 0, 0)->seconds, 1048576.0 / (619.9 * 1024));
	close_to(run_at(&o, 0, 2)->seconds, 2097152.0 / (626.1 * 1024));
	done(&o);
	import_fixture(&o, "lftp-get-fast.txt", XFER_FORMAT_AUTO, false, 0);
	assert_true(o.ok);
	assert_int_equal(o.st.runs, 0);
	assert_int_equal(o.st.unused, 4);
	assert_non_null(strstr(o.log.text, "lftp-get-fast.txt:1:1: no run: lftp gives no time"));
	done(&o);
	import_fixture(&o, "lftp-put.txt", XFER_FORMAT_FTP, false, 0);
	close_to(run_at(&o, 0, 0)->seconds, 100000.0 / (19.5 * 1024));
	done(&o);
}

static void test_curl_w(void **state)
{
	(void)state;
	struct outcome o;
	import_fixture(&o, "curl-w.txt", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_CURL);
	assert_int_equal(o.st.runs, 7);
	assert_int_equal(o.sets.n, 2);   /* gets and the put apart */
	assert_string_equal(o.sets.sets[0].direction, "get");
	assert_int_equal(o.sets.sets[0].n_runs, 6);
	/* "1048576 0 0.011496 0.012587" */
	close_to(run_at(&o, 0, 0)->seconds, 0.012587 - 0.011496);
	close_to(run_at(&o, 0, 0)->setup_seconds, 0.011496);
	/* the slow login of the second URL stays out of the data phase:
	 * "1048576 0 1.002365 1.003494" */
	close_to(run_at(&o, 0, 1)->seconds, 1.003494 - 1.002365);
	assert_string_equal(o.sets.sets[1].direction, "put");
	assert_true(run_at(&o, 1, 0)->bytes == 100000);
	close_to(run_at(&o, 1, 0)->seconds, 0.077058 - 0.076537);
	done(&o);
	const char *two = "1048576 0.5\n10.5 1\n";
	import_text(&o, "short", two, strlen(two), XFER_FORMAT_CURL, false, 0);
	assert_int_equal(o.st.runs, 1);
	assert_int_equal(o.st.unrecognised, 1);
	close_to(run_at(&o, 0, 0)->seconds, 0.5);
	done(&o);
	const char *bad = "1048576 0 0.5 0.2\n1048576 0 0.5\n";
	import_text(&o, "bad", bad, strlen(bad), XFER_FORMAT_CURL, false, 0);
	assert_int_equal(o.st.runs, 0);
	assert_int_equal(o.st.unrecognised, 2);
	assert_non_null(strstr(o.log.text, "bad:1:1: not recognised as curl output (time_total is before"));
	done(&o);
}

static void test_curl_json(void **state)
{
	(void)state;
	struct outcome o;
	import_fixture(&o, "curl-json.txt", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_CURL_JSON);
	assert_int_equal(o.st.runs, 2);
	assert_int_equal(o.st.unused, 1);
	assert_non_null(strstr(o.log.text, "curl failed (exit code 78): The file does not exist"));
	/* time_pretransfer 0.006652, time_total 0.008409 in the first */
	close_to(run_at(&o, 0, 0)->seconds, 0.008409 - 0.006652);
	close_to(run_at(&o, 0, 0)->setup_seconds, 0.006652);
	done(&o);
}

static void test_nuttcp(void **state)
{
	(void)state;
	struct outcome o;
	import_fixture(&o, "nuttcp-brief.txt", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_NUTTCP);
	assert_int_equal(o.st.runs, 1);
	/* " 1790.4375 MB /   1.00 sec = 15011.8925 Mbps ..." */
	uint64_t bytes = (uint64_t)(1790.4375 * 1048576);
	assert_true(run_at(&o, 0, 0)->bytes == bytes);
	close_to(run_at(&o, 0, 0)->seconds, bytes * 8.0 / 15011.8925e6);
	assert_true(fabs(run_at(&o, 0, 0)->seconds - 1.00) < 0.005);
	done(&o);
	import_fixture(&o, "nuttcp-interval.txt", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.runs, 1);
	assert_int_equal(o.st.unused, 4);
	assert_true(run_at(&o, 0, 0)->bytes == (uint64_t)(3259.9375 * 1048576));
	done(&o);
	import_fixture(&o, "nuttcp-interval.txt", XFER_FORMAT_NUTTCP, true, 0);
	assert_int_equal(o.st.runs, 4);
	assert_int_equal(o.st.unused, 1);
	assert_true(run_at(&o, 0, 3)->bytes == (uint64_t)(850.0625 * 1048576));
	done(&o);
	import_fixture(&o, "nuttcp-parse.txt", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.runs, 1);
	assert_true(run_at(&o, 0, 0)->bytes == 65536000);   /* -n 1000 x 64 KiB */
	done(&o);
	import_fixture(&o, "nuttcp-parse-interval.txt", XFER_FORMAT_AUTO, true, 0);
	assert_int_equal(o.st.runs, 1);
	assert_true(run_at(&o, 0, 0)->bytes == (uint64_t)(1323.75 * 1048576));
	done(&o);
	import_fixture(&o, "nuttcp-verbose.txt", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.runs, 1);
	assert_int_equal(o.st.unrecognised, 0);
	close_to((double)run_at(&o, 0, 0)->bytes, llround(1884.4608 * 1048576));
	done(&o);
	import_fixture(&o, "nuttcp-udp.txt", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.runs, 1);
	assert_true(run_at(&o, 0, 0)->bytes == (uint64_t)llround(1.1953 * 1048576));
	done(&o);
	import_fixture(&o, "nuttcp-receive.txt", XFER_FORMAT_NUTTCP, false, 0);
	assert_int_equal(o.st.runs, 1);
	done(&o);
}

static void test_netpipe(void **state)
{
	(void)state;
	struct outcome o;
	import_fixture(&o, "np.out", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_NETPIPE);
	assert_int_equal(o.st.runs, 82);
	assert_int_equal(o.st.unrecognised, 0);
	/* "       1 0.577262   0.00001322" */
	assert_true(run_at(&o, 0, 0)->bytes == 1);
	assert_true(run_at(&o, 0, 0)->block_size == 1);
	close_to(run_at(&o, 0, 0)->seconds, 0.00001322);
	assert_true(run_at(&o, 0, 81)->block_size == run_at(&o, 0, 81)->bytes);
	done(&o);
	import_fixture(&o, "NPtcp-stdout.txt", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_NETPIPE);
	assert_int_equal(o.st.runs, 82);
	assert_int_equal(o.st.unused, 4);
	/* "  0:       1 bytes   7549 times -->      0.58 Mbps in      13.22 usec" */
	close_to(run_at(&o, 0, 0)->seconds, 13.22e-6);
	assert_true(run_at(&o, 0, 8)->block_size == 16);
	done(&o);
}

static void test_iperf3(void **state)
{
	(void)state;
	struct outcome o;
	import_fixture(&o, "iperf3.json", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_IPERF3);
	assert_int_equal(o.st.runs, 1);
	assert_string_equal(o.sets.sets[0].direction, "put");
	/* end.sum_received: bytes 3539468288, seconds 2.003747 */
	assert_true(run_at(&o, 0, 0)->bytes == UINT64_C(3539468288));
	close_to(run_at(&o, 0, 0)->seconds, 2.003747);
	done(&o);
	import_fixture(&o, "iperf3.json", XFER_FORMAT_IPERF3, true, 0);
	assert_int_equal(o.st.runs, 4);
	assert_true(run_at(&o, 0, 0)->bytes == 888668160);
	close_to(run_at(&o, 0, 0)->seconds, 0.500141978263855);
	done(&o);
	/* -R, an error document, a truncated one, in one file */
	const char *more = "{\"start\":{\"test_start\":{\"reverse\":1}},\"intervals\":[],"
			   "\"end\":{\"sum_received\":{\"bytes\":1000,\"seconds\":2}}}\n"
			   "{\"start\":{},\"intervals\":[],\"end\":{},\"error\":\"unable to connect\"}\n"
			   "{\"start\":{},\"intervals\":[{\"sum\":{\"bytes\":";
	import_text(&o, "more.json", more, strlen(more), XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_IPERF3);
	assert_int_equal(o.st.runs, 1);
	assert_string_equal(o.sets.sets[0].direction, "get");
	assert_int_equal(o.st.unused, 1);
	assert_int_equal(o.st.unrecognised, 1);
	assert_non_null(strstr(o.log.text, "unable to connect"));
	assert_non_null(strstr(o.log.text, "more.json:3:1: not recognised as iperf3 output (truncated"));
	done(&o);
}

static void test_irspray(void **state)
{
	(void)state;
	struct outcome o;
	import_fixture(&o, "irspray.txt", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_IRSPRAY);
	assert_int_equal(o.st.runs, 3);
	assert_int_equal(o.sets.n, 2);
	assert_string_equal(o.sets.sets[0].direction, "put");
	assert_int_equal(o.sets.sets[0].n_runs, 2);
	close_to(run_at(&o, 1, 0)->seconds, 10.02);
	done(&o);
}

static void test_csv_and_times(void **state)
{
	(void)state;
	struct outcome o;
	import_fixture(&o, "data.csv", XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_CSV);
	assert_int_equal(o.st.runs, 4);
	assert_int_equal(o.st.unused, 1);
	assert_int_equal(o.sets.n, 2);
	assert_string_equal(o.sets.sets[0].label, "irqtune off");
	assert_string_equal(o.sets.sets[1].label, "irqtune on");
	assert_int_equal(o.sets.sets[1].n_runs, 2);
	close_to(run_at(&o, 1, 1)->seconds, 9.4);
	done(&o);
	import_fixture(&o, "times.txt", XFER_FORMAT_AUTO, false, 1048576);
	assert_int_equal(o.st.format, XFER_FORMAT_TIMES);
	assert_int_equal(o.st.runs, 3);
	assert_true(run_at(&o, 0, 2)->bytes == 1048576);
	done(&o);
	import_fixture(&o, "times.txt", XFER_FORMAT_TIMES, false, 0);
	assert_false(o.ok);
	assert_non_null(strstr(o.err.msg, "--size"));
	assert_int_equal(o.sets.n, 0);
	done(&o);
	import_fixture(&o, "times.txt", XFER_FORMAT_AUTO, false, 0);
	assert_false(o.ok);
	done(&o);
}

static void test_malformed_lines(void **state)
{
	(void)state;
	struct outcome o;
	const char *ftp = "1048576 bytes received in 00:00 (557.41 MiB/s)\n"
			  "1048576 bytes received in\n"
			  "1048576 bytes received in 1.5 fortnights (1 MiB/s)\n"
			  "1048576 bytes received in 00:00 (557.41 MiB/s) extra\n"
			  "18446744073709551616 bytes received in 1.0 seconds (1 B/s)\n"
			  "  \t \n"
			  "hello\n";
	import_text(&o, "cut.txt", ftp, strlen(ftp), XFER_FORMAT_FTP, false, 0);
	assert_true(o.ok);
	/* Text after a record is no longer a reason to reject it (line 4). */
	assert_int_equal(o.st.runs, 2);
	assert_int_equal(o.st.run_lines, 2);
	assert_int_equal(o.st.unrecognised, 4);
	assert_int_equal(o.st.blank, 1);
	assert_int_equal(o.st.lines, 7);
	assert_non_null(strstr(o.log.text, "cut.txt:2:1: not recognised as ftp output"));
	assert_non_null(strstr(o.log.text, "cut.txt:3:1: not recognised as ftp output (time is "
					   "neither seconds nor MM:SS)"));
	assert_non_null(strstr(o.log.text, "cut.txt:7:1: not recognised as ftp output: hello"));
	done(&o);
	const char *nut = " 1790.4375 MB /   1.00 sec = \n1790.4375 MB / 1.00 sec = 15011.8925 Mbits\n";
	import_text(&o, "n", nut, strlen(nut), XFER_FORMAT_NUTTCP, false, 0);
	assert_int_equal(o.st.runs, 0);
	assert_int_equal(o.st.unrecognised, 2);
	done(&o);
	const char *np = "  1 0.5\n  2 0.5 0.1 9\n 3: 4 bytes 5 times --> 1.0 Mbps in\n1.5 2\n";
	import_text(&o, "np", np, strlen(np), XFER_FORMAT_NETPIPE, false, 0);
	assert_int_equal(o.st.unrecognised, 4);
	done(&o);
	char longlabel[400];
	memset(longlabel, 'x', sizeof(longlabel));
	memcpy(longlabel, "10,1.0,", 7);
	longlabel[sizeof(longlabel) - 1] = '\0';
	const char *csv[] = { "-5,1.0", "100,abc", "100,1.0,a,b", "100;1.0", longlabel };
	for (size_t i = 0; i < sizeof(csv) / sizeof(csv[0]); i++) {
		import_text(&o, "c", csv[i], strlen(csv[i]), XFER_FORMAT_CSV, false, 0);
		assert_int_equal(o.st.runs, 0);
		assert_int_equal(o.st.unrecognised, 1);
		done(&o);
	}
	const char *irs = "Transmitted 100 bytes in 1.0 seconds (0.1 kbytes/s\nReceived x bytes\n";
	import_text(&o, "i", irs, strlen(irs), XFER_FORMAT_IRSPRAY, false, 0);
	assert_int_equal(o.st.unrecognised, 2);
	done(&o);
}

static void test_binary_and_empty(void **state)
{
	(void)state;
	struct outcome o;
	const char bin[] = "\x00\x01\xff\n1048576\x00 bytes received in 1 secs (1 B/s)\n\x7f{";
	for (unsigned f = 1; f < XFER_FORMAT_COUNT; f++) {
		if (f == XFER_FORMAT_TABLE)
			continue;       /* no table in it: an error, below */
		import_text(&o, "bin", bin, sizeof(bin) - 1, (enum xfer_format)f, true, 10);
		assert_true(o.ok);
		assert_int_equal(o.st.runs, 0);
		done(&o);
	}
	import_text(&o, "bin", bin, sizeof(bin) - 1, XFER_FORMAT_TABLE, false, 10);
	assert_false(o.ok);
	assert_non_null(strstr(o.err.msg, "bin: no table found"));
	assert_int_equal(o.sets.n, 0);
	done(&o);
	import_text(&o, "bin", bin, sizeof(bin) - 1, XFER_FORMAT_AUTO, false, 10);
	assert_false(o.ok);
	assert_non_null(strstr(o.err.msg, "bin: no line matches"));
	done(&o);
	import_text(&o, "empty", "", 0, XFER_FORMAT_FTP, false, 0);
	assert_true(o.ok);
	assert_int_equal(o.st.lines, 0);
	done(&o);
}


/* Records after prompts and quote markers, with text after them, several
 * in a line, and a whole session on one line. */
static void test_records_in_text(void **state)
{
	(void)state;
	struct outcome o;
	const char *irs =
		"$ irdaspray -c 10 host Transmitted 102400 bytes in 9.87 seconds (10.13 kbytes/s) "
		"$ irdaspray -c 10 host\n"
		"> Transmitted 102400 bytes in 9.91 seconds (10.09 kbytes/s)Received 102400 bytes "
		"in 10.02 seconds (9.98 kbytes/s) bye\n"
		"# Transmitted 1000 bytes in 2 seconds (0.5 kbytes/s) Transmitted 102400 bytes in 9.9\n";
	import_text(&o, "irs", irs, strlen(irs), XFER_FORMAT_AUTO, false, 0);
	assert_true(o.ok);
	assert_int_equal(o.st.format, XFER_FORMAT_IRSPRAY);
	assert_int_equal(o.st.runs, 4);
	assert_int_equal(o.st.run_lines, 3);
	assert_int_equal(o.st.broken, 1);
	assert_string_equal(o.sets.sets[0].direction, "put");
	assert_int_equal(o.sets.sets[0].n_runs, 3);
	close_to(run_at(&o, 0, 0)->seconds, 9.87);
	close_to(run_at(&o, 0, 1)->seconds, 9.91);
	close_to(run_at(&o, 0, 2)->seconds, 2);
	close_to(run_at(&o, 1, 0)->seconds, 10.02);
	/* Each record says where it came from. */
	assert_non_null(strstr(o.log.text, "irs:1:24: run of 102400 bytes"));
	assert_non_null(strstr(o.log.text, "irs:2:3: run of 102400 bytes"));
	assert_non_null(strstr(o.log.text, "irs:2:60: run of 102400 bytes"));
	assert_non_null(strstr(o.log.text, "irs:3:54: irspray record cut or changed"));
	done(&o);

	/* An ftp session that lost its line breaks; prose about bytes is no
	 * record at all. */
	const char *ftp = "ftp> get a 1048576 bytes received in 1.50 seconds (682.7 KiB/s) "
			  "226 Transfer complete. ftp> get b 2097152 bytes received in 3.25 secs "
			  "(630.2 KiB/s) ftp> we sent 512 bytes to it ftp> bye\n";
	import_text(&o, "ftp", ftp, strlen(ftp), XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_FTP);
	assert_int_equal(o.st.runs, 2);
	assert_int_equal(o.st.broken, 0);
	close_to(run_at(&o, 0, 0)->seconds, 1.5);
	close_to(run_at(&o, 0, 1)->seconds, 3.25);
	done(&o);

	/* nuttcp: totals with their CPU tail, then the next one at once. */
	const char *nut = "> > 1790.4375 MB /   1.00 sec = 15011.8925 Mbps 26 %TX 71 %RX 0 retrans "
			  "0.19 msRTT 100.0000 MB / 2.00 sec = 400.0000 Mbps 3 %TX 5 %RX 0 retrans "
			  "0.20 msRTT$ exit\n";
	import_text(&o, "nut", nut, strlen(nut), XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_NUTTCP);
	assert_int_equal(o.st.runs, 2);
	/* 100 MB (2^20) at 400 Mbps (10^6 bit/s): 104857600 * 8 / 4e8 s. */
	close_to(run_at(&o, 0, 1)->seconds, 104857600.0 * 8 / 4e8);
	done(&o);

	/* NetPIPE's whole stdout on one line: all 82 sizes, one session. */
	size_t len;
	char *np = repeat_fixture("NPtcp-stdout.txt", 1, 0, &len);
	for (size_t i = 0; i < len; i++)
		if (np[i] == '\n')
			np[i] = ' ';
	import_text(&o, "np1", np, len, XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_NETPIPE);
	assert_int_equal(o.st.runs, 82);
	assert_int_equal(o.sets.n, 1);
	assert_string_equal(o.sets.sets[0].label, "np1");
	/* "  0:       1 bytes   7549 times -->      0.58 Mbps in      13.22 usec" */
	close_to(run_at(&o, 0, 0)->seconds, 13.22e-6);
	assert_true(run_at(&o, 0, 0)->block_size == 1);
	free(np);
	done(&o);
}

/* Several runs of a tool in one file: a set each; a cut one is left out. */
static void test_sessions(void **state)
{
	(void)state;
	struct outcome o;
	size_t len;
	char *np = repeat_fixture("NPtcp-stdout.txt", 2, 0, &len);
	import_text(&o, "np", np, len, XFER_FORMAT_AUTO, false, 0);
	assert_int_equal(o.st.sessions, 2);
	assert_int_equal(o.sets.n, 2);
	assert_string_equal(o.sets.sets[0].label, "np#1");
	assert_string_equal(o.sets.sets[1].label, "np#2");
	assert_int_equal(o.sets.sets[0].n_runs, 82);
	assert_int_equal(o.sets.sets[1].n_runs, 82);
	done(&o);
	free(np);
	/* A third sweep cut in its 17th line (at "18.6" of "18.67 Mbps"): the
	 * fixture's first 4 lines of chatter, then 16 sizes. */
	const char *cut = "  16:      45 bytes   4345 times -->     24.8";
	char *whole = repeat_fixture("NPtcp-stdout.txt", 2, 0, &len);
	char *three = malloc(len + 2048);
	assert_non_null(three);
	size_t first20 = 0, nl = 0;
	while (nl < 20)
		nl += whole[first20++] == '\n';
	memcpy(three, whole, len);
	memcpy(three + len, whole, first20);
	memcpy(three + len + first20, cut, strlen(cut) + 1);
	import_text(&o, "np3", three, strlen(three), XFER_FORMAT_NETPIPE, false, 0);
	assert_true(o.ok);
	assert_int_equal(o.st.runs, 164);
	assert_int_equal(o.st.dropped, 16);
	assert_int_equal(o.sets.n, 2);
	assert_non_null(strstr(o.log.text, "np3:193:3: session np3#3 cut short (NetPIPE progress "
					   "line cut or changed)"));
	done(&o);
	/* --label joins the sessions, and still leaves the cut one out. */
	import_labelled(&o, "np3", three, XFER_FORMAT_NETPIPE, false, 0, "sweeps");
	assert_int_equal(o.sets.n, 1);
	assert_string_equal(o.sets.sets[0].label, "sweeps");
	assert_int_equal(o.sets.sets[0].n_runs, 164);
	done(&o);
	free(three);
	free(whole);

	/* nuttcp -i, two commands, then a third without its totals. */
	char *nut = repeat_fixture("nuttcp-interval.txt", 2, 40, &len);
	import_text(&o, "nut", nut, len, XFER_FORMAT_NUTTCP, true, 0);
	assert_int_equal(o.sets.n, 2);
	assert_string_equal(o.sets.sets[1].label, "nut#2");
	assert_int_equal(o.sets.sets[1].n_runs, 4);
	assert_int_equal(o.st.dropped, 0);       /* 40 bytes: not a whole line */
	assert_int_equal(o.st.unrecognised, 1);
	assert_non_null(strstr(o.log.text, "session nut#3 cut short"));
	done(&o);
	/* Without --intervals each command is one run of one set. */
	import_text(&o, "nut", nut, len, XFER_FORMAT_NUTTCP, false, 0);
	assert_int_equal(o.sets.n, 1);
	assert_string_equal(o.sets.sets[0].label, "nut");
	assert_int_equal(o.sets.sets[0].n_runs, 2);
	done(&o);
	free(nut);

	/* An iperf3 stream of two tests, by intervals; a truncated third. */
	char *ip = repeat_fixture("iperf3.json", 2, 3000, &len);
	import_text(&o, "ip", ip, len, XFER_FORMAT_AUTO, true, 0);
	assert_int_equal(o.st.format, XFER_FORMAT_IPERF3);
	assert_int_equal(o.sets.n, 2);
	assert_string_equal(o.sets.sets[0].label, "ip#1");
	assert_int_equal(o.sets.sets[0].n_runs, 4);
	assert_int_equal(o.sets.sets[1].n_runs, 4);
	assert_non_null(strstr(o.log.text, "session ip#3 cut short (truncated JSON document)"));
	done(&o);
	free(ip);
}

/* A hand-kept table; the expected statistics come from Python's
 * statistics module (mean, stdev, pstdev, harmonic_mean):
 *   A time 808.75, 9.429563, 8.166241;  A rate 126.625, 1.459166, 1.263675,
 *   harmonic 126.612382;  B time 648.0, 7.549834, 6.164414;
 *   B rate 158.033333, 1.861003, 1.519503. */
static const char table_text[] =
	"Table 1: 100 KiB over IrDA, two dongles\n"
	"\n"
	"          A                          B\n"
	"Run   Time (ms)  Rate (kB/s)   Time (ms)  Rate (kB/s)\n"
	"1           812        126.1         640        160.0\n"
	"2           798        128.3         655        156.3\n"
	"3           805        127.2         649        157.8\n"
	"4           820        124.9\n"
	"Avg.     808.75       126.61       648.1       158.03\n"
	"Dev.       9.43         1.45        6.16          1.7\n"
	"(Dev. by hand)\n";

static void test_table(void **state)
{
	(void)state;
	struct outcome o;
	import_text(&o, "t", table_text, strlen(table_text), XFER_FORMAT_AUTO, false, 102400);
	assert_true(o.ok);
	assert_int_equal(o.st.format, XFER_FORMAT_TABLE);
	assert_int_equal(o.sets.n, 2);
	assert_string_equal(o.sets.sets[0].label, "A");
	assert_string_equal(o.sets.sets[1].label, "B");
	assert_int_equal(o.sets.sets[0].n_runs, 4);
	assert_int_equal(o.sets.sets[1].n_runs, 3);
	close_to(run_at(&o, 0, 3)->seconds, 0.820);
	close_to(run_at(&o, 1, 2)->seconds, 0.649);
	assert_true(run_at(&o, 1, 2)->bytes == 102400);
	assert_int_equal(o.st.run_lines, 4);
	assert_int_equal(o.st.blank, 1);
	assert_int_equal(o.st.unused, 6);
	assert_int_equal(o.st.n_checks, 8);
	assert_int_equal(o.st.checks_failed, 2);
	assert_non_null(strstr(check_at(&o, "t:9:10:"), "Avg. Time (ms) of A = 808.75: the mean of 4 "
						     "runs, 808.75 (rounded or truncated alike)"));
	assert_non_null(strstr(check_at(&o, "t:9:23:"), "the harmonic mean of 4 runs"));
	assert_non_null(strstr(check_at(&o, "t:9:23:"), "(rounded or truncated alike)"));
	assert_non_null(strstr(check_at(&o, "t:9:36:"), "Avg. Time (ms) of B = 648.1: NOT the mean"));
	assert_non_null(strstr(check_at(&o, "t:9:48:"), "the mean of 3 runs, 158.0333333"));
	assert_non_null(strstr(check_at(&o, "t:10:12:"), "the sample SD (divisor n-1) of 4 runs, "
						      "9.42956344 (rounded); not the population"));
	assert_non_null(strstr(check_at(&o, "t:10:25:"), "the sample SD (divisor n-1) of 4 runs, "
						      "1.459166429 (truncated)"));
	assert_non_null(strstr(check_at(&o, "t:10:37:"), "the population SD (divisor n) of 3 runs, "
						      "6.164414003 (rounded or truncated alike)"));
	assert_non_null(strstr(check_at(&o, "t:10:51:"), "NEITHER the sample SD, 1.861003314, nor "
						      "the population SD, 1.519502843"));
	done(&o);
	/* Without a size the runs cannot be imported, but the check stands. */
	import_text(&o, "t", table_text, strlen(table_text), XFER_FORMAT_TABLE, false, 0);
	assert_false(o.ok);
	assert_non_null(strstr(o.err.msg, "give --size"));
	assert_int_equal(o.sets.n, 0);
	assert_int_equal(o.st.n_checks, 8);
	done(&o);
	/* --label cannot name two conditions. */
	import_labelled(&o, "t", table_text, XFER_FORMAT_TABLE, false, 102400, "X");
	assert_false(o.ok);
	assert_non_null(strstr(o.err.msg, "t:4:1: --label names one condition"));
	done(&o);
	/* One condition without a header: a Size column, the file's name. */
	const char *one = "No.  Size (KiB)  Time (s)\n1.   100  10.1\n2.   200  20.5\n"
			  "Mean      150  15.30\nSD        70.71  7.35\n";
	import_text(&o, "one", one, strlen(one), XFER_FORMAT_AUTO, false, 0);
	assert_true(o.ok);
	assert_int_equal(o.sets.n, 1);
	assert_string_equal(o.sets.sets[0].label, "one");
	assert_true(run_at(&o, 0, 1)->bytes == 204800);
	close_to(run_at(&o, 0, 1)->seconds, 20.5);
	/* Time: mean 15.3; sample SD 7.353910524, population 5.2. */
	assert_non_null(strstr(check_at(&o, "one:4:"), "the mean of 2 runs, 15.3 (rounded or"));
	assert_non_null(strstr(check_at(&o, "one:5:"), "the sample SD (divisor n-1) of 2 runs, "
						    "7.353910524 (rounded or truncated alike)"));
	done(&o);
	/* An SD on a boundary: 7.30 7.40 7.35 s have a sample SD of exactly
	 * 0.05 (statistics.stdev), which truncates to 0.05, not to 0.04; the
	 * population SD is 0.0408248. */
	const char *edge = "Run  Time (s)\n1  7.30\n2  7.40\n3  7.35\nDev.  0.04\n";
	import_text(&o, "edge", edge, strlen(edge), XFER_FORMAT_TABLE, false, 10);
	assert_non_null(strstr(check_at(&o, "edge:5:7:"), "the population SD (divisor n) of 3 runs, "
						       "0.04082482905 (rounded or truncated alike); "
						       "not the sample SD, 0.05"));
	done(&o);
	/* Cells that do not line up, a row of words, more cells than columns. */
	const char *bad = "Run Time (s)\n1 2 3\n2 x\n";
	import_text(&o, "bad", bad, strlen(bad), XFER_FORMAT_TABLE, false, 10);
	assert_true(o.ok);
	assert_int_equal(o.st.runs, 0);
	assert_int_equal(o.st.unrecognised, 2);
	assert_non_null(strstr(o.log.text, "bad:2:1: not recognised as table output (more cells"));
	assert_non_null(strstr(o.log.text, "bad:3:1: not recognised as table output (a cell is not"));
	done(&o);
}

/* The check lines of one line of a table (whatever its column) hold
 * this text. */
static void check_on_line(const struct outcome *o, const char *name, size_t line,
			  const char *want)
{
	char where[64];
	snprintf(where, sizeof(where), "%s:%zu:", name, line);
	for (size_t i = 0; i < o->st.n_checks; i++)
		if (strncmp(o->st.checks[i], where, strlen(where)) == 0 &&
		    strstr(o->st.checks[i], want))
			return;
	fail_msg("no check on %s says \"%s\"", where, want);
}

/* The text with every run of blanks inside a line (not before its first
 * word) replaced by the next of `gaps`, in turn. */
static char *respace(const char *text, const char *const *gaps, size_t ngaps)
{
	size_t cap = strlen(text) * 5 + 1, n = 0, g = 0;
	char *out = malloc(cap);
	bool line_start = true;
	assert_non_null(out);
	for (const char *p = text; *p;) {
		if ((*p == ' ' || *p == '\t') && !line_start) {
			while (*p == ' ' || *p == '\t')
				p++;
			const char *gap = gaps[g++ % ngaps];
			memcpy(out + n, gap, strlen(gap));
			n += strlen(gap);
			continue;
		}
		line_start = *p == '\n';
		out[n++] = *p++;
	}
	out[n] = '\0';
	return out;
}

/* The mail's table (tests/fixtures/xferstat/table-mail.txt), whatever
 * its spacing: three sets named by roman numerals, a "Count" column,
 * Time Rate per set, rules, an Avg. per column and a Dev. per set (of
 * the times).  Statistics from Python's statistics module: times of I
 * stdev 0.2037154879, pstdev 0.1822086716; II 0.1273970172; III
 * 0.2134713095; rates of I mean 102.54. */
static void check_mail_table(const char *name, const char *text)
{
	struct outcome o;
	import_text(&o, name, text, strlen(text), XFER_FORMAT_TABLE, false, 1048576);
	assert_true(o.ok);
	assert_int_equal(o.sets.n, 3);
	assert_string_equal(o.sets.sets[0].label, "I");
	assert_string_equal(o.sets.sets[1].label, "II");
	assert_string_equal(o.sets.sets[2].label, "III");
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(o.sets.sets[i].n_runs, 5);
	close_to(run_at(&o, 0, 3)->seconds, 10.51);
	close_to(run_at(&o, 1, 0)->seconds, 7.31);
	close_to(run_at(&o, 2, 2)->seconds, 12.40);
	assert_true(run_at(&o, 2, 2)->bytes == 1048576);
	assert_int_equal(o.st.n_checks, 9);
	assert_int_equal(o.st.checks_failed, 0);
	check_on_line(&o, name, 12, "Avg. Time of I = 10.23: the mean of 5 runs, 10.23 ");
	check_on_line(&o, name, 12, "Avg. Rate of I = 102.5: the mean of 5 runs, 102.54 ");
	check_on_line(&o, name, 12, "Avg. Time of III = 12.10: the mean of 5 runs, 12.098 ");
	check_on_line(&o, name, 13, "Dev. Time of I (one value for the set: that of this "
				    "column) = 0.20: the sample SD (divisor n-1) of 5 runs, "
				    "0.2037154879");
	check_on_line(&o, name, 13, "Dev. Time of II (one value for the set: that of this "
				    "column) = 0.13: the sample SD (divisor n-1) of 5 runs, "
				    "0.1273970172");
	check_on_line(&o, name, 13, "Dev. Time of III (one value for the set: that of this "
				    "column) = 0.21: the sample SD (divisor n-1) of 5 runs, "
				    "0.2134713095");
	done(&o);
}

static char *read_fixture(const char *file)
{
	size_t len;
	return repeat_fixture(file, 1, 0, &len);
}

/* A table fixture of 1 MiB runs, detected, with its sets, runs and
 * check lines counted. */
static void import_table_fixture(struct outcome *o, const char *file, const char *name,
				 size_t sets, size_t runs, size_t checks, size_t failed)
{
	char *text = read_fixture(file);
	import_text(o, name, text, strlen(text), XFER_FORMAT_AUTO, false, 1048576);
	free(text);
	assert_true(o->ok);
	assert_int_equal(o->st.format, XFER_FORMAT_TABLE);
	assert_int_equal(o->sets.n, sets);
	assert_int_equal(o->st.runs, runs);
	assert_int_equal(o->st.n_checks, checks);
	assert_int_equal(o->st.checks_failed, failed);
}

static void test_table_shapes(void **state)
{
	(void)state;
	struct outcome o;
	char *mail = read_fixture("table-mail.txt");
	check_mail_table("mail", mail);
	/* The same table respaced: wider, tabs, mixed gaps. */
	static const char *const wide[] = { "   " }, *const tab[] = { "\t" },
				 *const mixed[] = { " ", "  ", "\t", "    ", " \t " };
	char *v;
	v = respace(mail, wide, 1);
	check_mail_table("wide", v);
	free(v);
	v = respace(mail, tab, 1);
	check_mail_table("tab", v);
	free(v);
	v = respace(mail, mixed, 5);
	check_mail_table("mixed", v);
	free(v);
	free(mail);
	/* It is found without --format too. */
	import_table_fixture(&o, "table-mail.txt", "m", 3, 15, 9, 0);
	done(&o);

	/* Tabs, units in brackets, no rules, a comment after it; the Dev.
	 * per set is the population SD of I's times (0.1822086716), of II's
	 * rates (2.138223562) and, for III, 1.7 is none (times 0.2134713095
	 * and 0.1909345438, rates 1.488959368 and 1.331765745). */
	import_table_fixture(&o, "table-tabs.txt", "tabs", 3, 15, 9, 1);
	assert_string_equal(o.sets.sets[2].label, "III");
	check_on_line(&o, "tabs", 8, "Avg. Rate [kB/s] of II = 141.6: the mean of 5 runs");
	check_on_line(&o, "tabs", 9, "Dev. Time [s] of I (one value for the set: that of this "
				     "column) = 0.18: the population SD (divisor n) of 5 runs, "
				     "0.1822086716");
	check_on_line(&o, "tabs", 9, "Dev. Rate [kB/s] of II (one value for the set: that of this "
				     "column) = 2.14: the population SD (divisor n) of 5 runs, "
				     "2.138223562");
	check_on_line(&o, "tabs", 9, "Dev. Time [s] of III (one value for the set; it matches none "
				     "of its columns) = 1.7: NEITHER");
	assert_int_equal(o.st.unused, 5);     /* names, columns, Avg., Dev., the comment */
	done(&o);

	/* Two-line header (units under the names), names with a blank, no
	 * rule; Avg. rates are harmonic means (100.0982584, 84.64303400),
	 * Dev. population SDs (0.1822086716, 1.779978, 0.1909345438,
	 * 1.328256). */
	import_table_fixture(&o, "table-twoline.txt", "two", 2, 10, 8, 0);
	assert_string_equal(o.sets.sets[0].label, "old driver");
	assert_string_equal(o.sets.sets[1].label, "new driver");
	close_to(run_at(&o, 1, 4)->seconds, 11.95);
	check_on_line(&o, "two", 11, "Avg. Rate (KiB/s) of old driver = 100.10: the harmonic mean");
	check_on_line(&o, "two", 11, "Avg. Rate (KiB/s) of new driver = 84.64: the harmonic mean");
	check_on_line(&o, "two", 12, "Dev. Time (s) of old driver = 0.18: the population SD");
	check_on_line(&o, "two", 12, "Dev. Rate (KiB/s) of new driver = 1.33: the population SD");
	done(&o);
	/* A line of units that does not fit the columns is reported. */
	const char *short_units = "  A  B\nRun  Time  Rate  Time  Rate\n  (s)  (s)\n1 1 2 3 4\n";
	import_text(&o, "su", short_units, strlen(short_units), XFER_FORMAT_TABLE, false, 10);
	assert_non_null(strstr(o.log.text, "su:3:3: not recognised as table output (a line of "
					   "units, but not one for each column)"));
	done(&o);

	/* Units written on to the names, a rule of "=", one condition, a
	 * trailing remark: Avg. rate the harmonic mean 141.5674278, Dev.
	 * sample SDs 0.1273970172 and 2.390606618. */
	import_table_fixture(&o, "table-attached.txt", "att", 1, 5, 4, 0);
	assert_string_equal(o.sets.sets[0].label, "att");
	check_on_line(&o, "att", 9, "Avg. Rate[kB/s] of att = 141.57: the harmonic mean");
	check_on_line(&o, "att", 10, "Dev. Time(s) of att = 0.127: the sample SD");
	check_on_line(&o, "att", 10, "Dev. Rate[kB/s] of att = 2.39: the sample SD");
	done(&o);
}

static void import_opts(struct outcome *o, const char *name, const char *data,
			const struct xfer_import_opts *opts)
{
	struct logger log = { collect, &o->log, LOG_LEVEL_DEBUG, NULL };
	memset(o, 0, sizeof(*o));
	xfer_sets_init(&o->sets);
	o->ok = xfer_import_buffer(&o->sets, name, data, strlen(data), opts, &o->st, &log, &o->err);
	if (o->ok)
		assert_int_equal(o->st.lines, o->st.run_lines + o->st.unused + o->st.unrecognised +
					      o->st.blank);
}

/* The sets of an outcome as "LABEL:RUNS LABEL:RUNS". */
static void assert_sets(const struct outcome *o, const char *want)
{
	char got[512] = "";
	size_t n = 0;
	for (size_t i = 0; i < o->sets.n; i++)
		n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%s:%zu", i ? " " : "",
				      o->sets.sets[i].label, o->sets.sets[i].n_runs);
	assert_string_equal(got, want);
}

static bool made(const struct outcome *o, const char *line)
{
	for (size_t i = 0; i < o->st.n_sets_made; i++)
		if (strcmp(o->st.sets_made[i], line) == 0)
			return true;
	return false;
}

/* Conditions under headings in a pasted mail (tests/fixtures/xferstat/
 * mail-*.txt, written for issue 28). */
static void test_headings(void **state)
{
	(void)state;
	struct outcome o;
	struct xfer_import_opts opts = { .format = XFER_FORMAT_AUTO };
	char *text = read_fixture("mail-nuttcp.txt");
	/* "Before the patch", an -i command and a plain one, "After the
	 * patch", the same: each command one run, the headings name sets. */
	import_opts(&o, "mail", text, &opts);
	assert_true(o.ok);
	assert_int_equal(o.st.format, XFER_FORMAT_NUTTCP);
	assert_sets(&o, "Before the patch:2 After the patch:2");
	assert_true(run_at(&o, 0, 0)->bytes == (uint64_t)(3259.9375 * 1048576));
	assert_true(run_at(&o, 1, 0)->bytes == (uint64_t)(3359.9375 * 1048576));
	assert_int_equal(o.st.headings, 2);
	/* Greeting, remark, four prompts, "Cheers," and "Bob" stay unknown. */
	assert_int_equal(o.st.unrecognised, 8);
	assert_true(made(&o, "\"Before the patch\": 2 runs, named by the heading on line 5"));
	assert_true(made(&o, "\"After the patch\": 2 runs, named by the heading on line 16"));
	assert_non_null(strstr(o.log.text, "mail:5:1: heading \"Before the patch\": the runs after "
					   "it are its set"));
	assert_null(strstr(o.log.text, "output: Before the patch"));
	assert_non_null(strstr(o.log.text, "mail:28:1: not recognised as nuttcp output: Bob"));
	done(&o);
	/* With the intervals, each command's intervals are a session. */
	opts.intervals = true;
	import_opts(&o, "mail", text, &opts);
	assert_sets(&o, "Before the patch:4 After the patch:4");
	done(&o);
	/* --label joins everything, as before. */
	opts.intervals = false;
	opts.label = "all";
	import_opts(&o, "mail", text, &opts);
	assert_sets(&o, "all:4");
	assert_int_equal(o.st.headings, 0);
	assert_int_equal(o.st.unrecognised, 10);
	done(&o);
	free(text);
	opts.label = NULL;

	/* Quoted, "with X" / "without X", a question that is no heading. */
	text = read_fixture("mail-irspray.txt");
	import_opts(&o, "q", text, &opts);
	assert_sets(&o, "with CRC offload:3 without CRC offload:2");
	assert_true(made(&o, "\"with CRC offload\" (put): 3 runs, named by the heading on line 3"));
	done(&o);
	free(text);

	/* "Test I" ... in an ftp transcript; a separator instead. */
	text = read_fixture("mail-ftp.txt");
	import_opts(&o, "ftp", text, &opts);
	assert_sets(&o, "Test I:2 Test II:2 Test III:1");
	close_to(run_at(&o, 1, 1)->seconds, 1048576 / (609.90 * 1024));
	done(&o);
	opts.separator = "Test";
	import_opts(&o, "ftp", text, &opts);
	assert_sets(&o, "I:2 II:2 III:1");
	assert_true(made(&o, "\"III\" (get): 1 run, named by the separator on line 13"));
	done(&o);
	opts.separator = NULL;
	free(text);

	/* "old:" / "new:" over curl -w lines. */
	text = read_fixture("mail-old-new.txt");
	import_opts(&o, "on", text, &opts);
	assert_sets(&o, "old:2 new:3");
	done(&o);
	free(text);

	/* Sessions under headings: NetPIPE sweeps, numbered per heading. */
	size_t len;
	char *np = repeat_fixture("NPtcp-stdout.txt", 2, 0, &len);
	size_t cap = 2 * len + 64;
	char *two = malloc(cap);
	assert_non_null(two);
	snprintf(two, cap, "Before\n%sAfter\n%s", np, np);
	import_opts(&o, "np", two, &opts);
	assert_sets(&o, "Before#1:82 Before#2:82 After#1:82 After#2:82");
	assert_true(made(&o, "\"After#2\": 82 runs, named by the heading on line 174; one of its "
			     "sessions (a message size not above the last starts a sweep)"));
	done(&o);
	free(two);
	free(np);

	/* Prose inside a command's intervals does not split them. */
	const char *inside = "  788.2500 MB /   0.50 sec = 13213.4883 Mbps     0 retrans\n"
			     "a pause here\n"
			     "  838.9375 MB /   0.50 sec = 14070.9832 Mbps     0 retrans\n"
			     " 3259.9375 MB /   2.00 sec = 13669.9223 Mbps 36 %TX 60 %RX 0 retrans\n";
	opts.intervals = true;
	import_opts(&o, "in", inside, &opts);
	assert_sets(&o, "in:2");
	assert_int_equal(o.st.headings, 0);
	assert_non_null(strstr(o.log.text, "in:2:1: not recognised as nuttcp output: a pause here"));
	done(&o);
}

static void test_merge_and_labels(void **state)
{
	(void)state;
	struct xfer_sets sets;
	struct xfer_import_stats st;
	struct xfer_error err;
	struct xfer_import_opts opts = { .format = XFER_FORMAT_CSV, .label = "L" };
	xfer_sets_init(&sets);
	assert_true(xfer_import_buffer(&sets, "a", "1,1\n2,2\n", 8, &opts, &st, NULL, &err));
	xfer_import_stats_free(&st);
	assert_true(xfer_import_buffer(&sets, "b", "3,3\n", 4, &opts, &st, NULL, &err));
	xfer_import_stats_free(&st);
	assert_int_equal(sets.n, 1);
	assert_int_equal(sets.sets[0].n_runs, 3);
	assert_true(sets.sets[0].runs[2].bytes == 3);
	/* A failing file adds nothing. */
	opts.format = XFER_FORMAT_TIMES;
	assert_false(xfer_import_buffer(&sets, "c", "1\n", 2, &opts, &st, NULL, &err));
	xfer_import_stats_free(&st);
	assert_int_equal(sets.sets[0].n_runs, 3);
	xfer_sets_free(&sets);
}

static void test_format_names(void **state)
{
	(void)state;
	enum xfer_format f;
	for (unsigned i = 0; i < XFER_FORMAT_COUNT; i++) {
		assert_true(xfer_format_from_name(xfer_format_name((enum xfer_format)i), &f));
		assert_int_equal(f, i);
	}
	assert_false(xfer_format_from_name("ttcp", &f));
	assert_null(xfer_format_name(XFER_FORMAT_COUNT));
}

/* text_double's strtod-free path gives exactly what strtod gives. */
static void test_number_parsing(void **state)
{
	(void)state;
	static const char *const fixed[] = {
		"0", "-0", "1", "0.1", ".5", "5.", "-2.25", "+7", "123456789012345",
		"1234567890123456", "0.000000000000000000000001", "99999999999999.9",
		"1e-3", "2.5E+2", "1e", "1.5e-", "3.14159265358979", "0.30000000000000004",
		"12345678901234567890", "000000000000000000001.5",
	};
	char buf[64];
	uint64_t state_rng = 12345;
	for (size_t i = 0; i < 20000 + sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (i < sizeof(fixed) / sizeof(fixed[0])) {
			snprintf(buf, sizeof(buf), "%s", fixed[i]);
		} else {
			state_rng = state_rng * 6364136223846793005ULL + 1442695040888963407ULL;
			unsigned ip = (unsigned)(state_rng >> 40) % 100000;
			unsigned fp = (unsigned)(state_rng >> 20) % 1000000;
			unsigned w = (unsigned)(state_rng >> 8) % 7;
			snprintf(buf, sizeof(buf), "%u.%0*u", ip, (int)w, fp % (w ? 1000000 : 1));
		}
		struct cursor c;
		double got, want;
		cursor_init(&c, buf, strlen(buf));
		bool ok = text_double(&c, &got);
		struct cursor ref;
		cursor_init(&ref, buf, strlen(buf));
		bool ref_ok = cursor_parse_double(&ref, &want);
		assert_int_equal(ok, ref_ok);
		if (ok) {
			if (memcmp(&got, &want, sizeof(got)) != 0)
				fail_msg("%s: got %.17g, strtod %.17g", buf, got, want);
			assert_int_equal(c.pos, ref.pos);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tnftp),
		cmocka_unit_test(test_inetutils_ftp),
		cmocka_unit_test(test_lftp),
		cmocka_unit_test(test_curl_w),
		cmocka_unit_test(test_curl_json),
		cmocka_unit_test(test_nuttcp),
		cmocka_unit_test(test_netpipe),
		cmocka_unit_test(test_iperf3),
		cmocka_unit_test(test_irspray),
		cmocka_unit_test(test_csv_and_times),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_binary_and_empty),
		cmocka_unit_test(test_records_in_text),
		cmocka_unit_test(test_sessions),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_shapes),
		cmocka_unit_test(test_headings),
		cmocka_unit_test(test_merge_and_labels),
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_number_parsing),
	};
	return cmocka_run_group_tests_name("xferstat import", tests, NULL, NULL);
}
