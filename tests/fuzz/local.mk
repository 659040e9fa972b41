# tests/fuzz/: libFuzzer harnesses, one per parser of outside data.  Built
# only with --enable-fuzzing (clang); `make check-fuzz` runs each one for
# FUZZ_SECONDS from its seed corpus in tests/fuzz/corpus/NAME.
EXTRA_DIST += tests/fuzz/corpus
if ENABLE_FUZZING
FUZZERS += tests/fuzz/fuzz_cursor
noinst_PROGRAMS += $(FUZZERS)
tests_fuzz_fuzz_cursor_SOURCES = tests/fuzz/fuzz_cursor.c
tests_fuzz_fuzz_cursor_LDADD = common/libcommon.la
tests_fuzz_fuzz_cursor_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
endif
