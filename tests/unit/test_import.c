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
	assert_non_null(strstr(o.log.text, "lftp-get-fast.txt:1: no run: lftp gives no time"));
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
	assert_non_null(strstr(o.log.text, "bad:1: not recognised as curl output (time_total is before"));
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
	assert_non_null(strstr(o.log.text, "more.json:3: not recognised as iperf3 output (truncated"));
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
	assert_int_equal(o.st.runs, 1);
	assert_int_equal(o.st.unrecognised, 5);
	assert_int_equal(o.st.blank, 1);
	assert_int_equal(o.st.lines, 7);
	assert_non_null(strstr(o.log.text, "cut.txt:2: not recognised as ftp output"));
	assert_non_null(strstr(o.log.text, "cut.txt:7: not recognised as ftp output: hello"));
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
		import_text(&o, "bin", bin, sizeof(bin) - 1, (enum xfer_format)f, true, 10);
		assert_true(o.ok);
		assert_int_equal(o.st.runs, 0);
		done(&o);
	}
	import_text(&o, "bin", bin, sizeof(bin) - 1, XFER_FORMAT_AUTO, false, 10);
	assert_false(o.ok);
	assert_non_null(strstr(o.err.msg, "bin: no line matches"));
	done(&o);
	import_text(&o, "empty", "", 0, XFER_FORMAT_FTP, false, 0);
	assert_true(o.ok);
	assert_int_equal(o.st.lines, 0);
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
	assert_true(xfer_import_buffer(&sets, "b", "3,3\n", 4, &opts, &st, NULL, &err));
	assert_int_equal(sets.n, 1);
	assert_int_equal(sets.sets[0].n_runs, 3);
	assert_true(sets.sets[0].runs[2].bytes == 3);
	/* A failing file adds nothing. */
	opts.format = XFER_FORMAT_TIMES;
	assert_false(xfer_import_buffer(&sets, "c", "1\n", 2, &opts, &st, NULL, &err));
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
		cmocka_unit_test(test_merge_and_labels),
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_number_parsing),
	};
	return cmocka_run_group_tests_name("xferstat import", tests, NULL, NULL);
}
