# xferstat/: transfer timing and statistics (xferstat(1)).
#
# libxferio.la holds what has no user interface: the result model and
# its JSON form (results.c), the importers (import*.c), the transfer
# engine (run.c, libcurl) and the link counters (link.c, libnl-route).
# The program adds the subcommands.  stats.mk (the statistics part)
# appends its sources to xferstat_xferstat_SOURCES.
noinst_LTLIBRARIES += xferstat/libxferio.la
xferstat_libxferio_la_SOURCES = \
	xferstat/results.c xferstat/results.h \
	xferstat/import.c xferstat/import.h xferstat/import_formats.h \
	xferstat/import_text.c xferstat/import_json.c xferstat/import_headings.c \
	xferstat/import_ftp.c xferstat/import_curl.c xferstat/import_nuttcp.c \
	xferstat/import_netpipe.c xferstat/import_iperf3.c xferstat/import_irspray.c \
	xferstat/import_csv.c xferstat/import_table.c \
	xferstat/run.c xferstat/run.h \
	xferstat/link.c xferstat/link.h
xferstat_libxferio_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(CURL_CFLAGS) $(LIBNL_CFLAGS)
xferstat_libxferio_la_LIBADD = common/libcommon.la $(JSONC_LIBS) $(CURL_LIBS) $(LIBNL_LIBS) -lm

bin_PROGRAMS += xferstat/xferstat
xferstat_xferstat_SOURCES = \
	xferstat/main.c xferstat/commands.h \
	xferstat/cli.c xferstat/cli.h \
	xferstat/cli_import.c xferstat/cli_run.c \
	xferstat/progress.c xferstat/progress.h
xferstat_xferstat_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(CURL_CFLAGS) $(LIBNL_CFLAGS)
# libxferstats calls xfer_sets_load() from libxferio: link order matters.
xferstat_xferstat_LDADD = xferstat/libxferstats.la xferstat/libxferio.la common/libcommon.la

dist_man_MANS += man/xferstat.1
EXTRA_DIST += docs/xferstat-io.md

# Unit tests.
UNIT_TESTS += tests/unit/test_results tests/unit/test_import
tests_unit_test_results_SOURCES = tests/unit/test_results.c
tests_unit_test_results_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/xferstat
tests_unit_test_results_LDADD = xferstat/libxferio.la common/libcommon.la $(UNIT_LIBS)
tests_unit_test_import_SOURCES = tests/unit/test_import.c
tests_unit_test_import_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/xferstat \
	-DFIXTURES='"$(abs_top_srcdir)/tests/fixtures/xferstat"'
tests_unit_test_import_LDADD = xferstat/libxferio.la common/libcommon.la $(UNIT_LIBS)
EXTRA_DIST += tests/fixtures/xferstat

# Script tests (real tools and servers on loopback / own namespaces).
XFERSTAT_SCRIPT_TESTS = \
	tests/xferstat-cli.sh \
	tests/xferstat-import-table.sh \
	tests/xferstat-import-live.sh \
	tests/xferstat-run-vsftpd.sh \
	tests/xferstat-run-errors.sh \
	tests/xferstat-iface.sh
TESTS += $(XFERSTAT_SCRIPT_TESTS)
EXTRA_DIST += $(XFERSTAT_SCRIPT_TESTS) tests/xferstat-lib.sh

# Fuzzing: every importer and the result-file reader.
FUZZERS += tests/fuzz/fuzz_import
tests_fuzz_fuzz_import_SOURCES = tests/fuzz/fuzz_import.c
tests_fuzz_fuzz_import_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/xferstat
tests_fuzz_fuzz_import_LDADD = xferstat/libxferio.la common/libcommon.la $(FUZZ_MAIN)
tests_fuzz_fuzz_import_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

# Benchmarks.
BENCHMARKS += tests/bench/bench_xferstat_rate.sh tests/bench/bench_xferstat_import.sh
EXTRA_DIST += tests/bench/bench_xferstat_rate.sh tests/bench/bench_xferstat_import.sh

include xferstat/stats.mk
