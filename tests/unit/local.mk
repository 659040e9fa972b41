# tests/unit/: cmocka unit tests, one group per program so that each
# prints a single TAP plan.  Also run under ASan+UBSan (make check-unit).
UNIT_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
UNIT_LIBS = $(CMOCKA_LIBS)

UNIT_TESTS += tests/unit/test_cursor
tests_unit_test_cursor_SOURCES = tests/unit/test_cursor.c
tests_unit_test_cursor_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_cursor_LDADD = common/libcommon.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_common
tests_unit_test_common_SOURCES = tests/unit/test_common.c
tests_unit_test_common_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_common_LDADD = common/libcommon.la $(UNIT_LIBS)

# Shared by several unit tests (the ASan-aware transfer size, the reference capture).
noinst_HEADERS += tests/unit/test_support.h
