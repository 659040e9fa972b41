# xferstat/stats.mk: statistics, comparison and plots (docs/xferstat-stats.md).
#
# libxferstats.la holds the statistics, the renderers and the compare and
# plot subcommands; xferstat/xferstat links it.  Its modules never print.
noinst_LTLIBRARIES += xferstat/libxferstats.la
xferstat_libxferstats_la_SOURCES = \
	xferstat/results.h \
	xferstat/stats.c xferstat/stats.h \
	xferstat/interval.c xferstat/interval.h \
	xferstat/compare.c xferstat/compare.h \
	xferstat/table.c xferstat/table.h \
	xferstat/termplot.c xferstat/termplot.h \
	xferstat/plot.c xferstat/plot.h \
	xferstat/stats_commands.c xferstat/stats_commands.h
xferstat_libxferstats_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) $(JSONC_CFLAGS) $(CAIRO_CFLAGS)
xferstat_libxferstats_la_LIBADD = $(GSL_LIBS) $(JSONC_LIBS) $(CAIRO_LIBS) -lm

XFERSTATS_TEST_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/xferstat $(GSL_CFLAGS) $(JSONC_CFLAGS) $(CAIRO_CFLAGS)
XFERSTATS_TEST_LIBS = xferstat/libxferstats.la common/libcommon.la $(UNIT_LIBS) $(CAIRO_LIBS) $(JSONC_LIBS) -lfontconfig

UNIT_TESTS += tests/unit/test_stats tests/unit/test_compare
tests_unit_test_stats_SOURCES = tests/unit/test_stats.c
tests_unit_test_stats_CFLAGS = $(XFERSTATS_TEST_CFLAGS)
tests_unit_test_stats_LDADD = $(XFERSTATS_TEST_LIBS)
tests_unit_test_compare_SOURCES = tests/unit/test_compare.c
tests_unit_test_compare_CFLAGS = $(XFERSTATS_TEST_CFLAGS)
tests_unit_test_compare_LDADD = $(XFERSTATS_TEST_LIBS)

# The oracle tests: the library against ministat and scipy over generated
# data.  xferstat-stats-driver feeds the library numbers from stdin
# (test-only; see docs/xferstat-stats.md).
check_PROGRAMS += tests/xferstat-stats-driver
tests_xferstat_stats_driver_SOURCES = tests/xferstat-stats-driver.c
tests_xferstat_stats_driver_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/xferstat
tests_xferstat_stats_driver_LDADD = xferstat/libxferstats.la common/libcommon.la
TESTS += tests/xferstat-stats-oracle.tap
EXTRA_DIST += tests/xferstat-stats-oracle.tap
TESTS += tests/xferstat-stats-cli.tap
EXTRA_DIST += tests/xferstat-stats-cli.tap
BENCHMARKS += tests/xferstat-stats-bench.sh
EXTRA_DIST += tests/xferstat-stats-bench.sh
# make bench runs the script through the test-only driver: build it first.
tests/xferstat-stats-bench.sh: tests/xferstat-stats-driver$(EXEEXT)
