# tests/fuzz/: libFuzzer harnesses, one per parser of outside data.  Built
# only with --enable-fuzzing (clang); `make check-fuzz` runs each one for
# FUZZ_SECONDS from its seed corpus in tests/fuzz/corpus/NAME.
EXTRA_DIST += tests/fuzz/corpus
#
# Without --enable-fuzzing the same harnesses are built for `make check`
# with tests/fuzz/replay_main.c as their main() (FUZZ_MAIN, added to each
# harness's LDADD): tests/fuzz-replay.sh runs every file of every corpus
# directory, the kept crashers included, through its harness, under
# ASan+UBSan in the sanitizer build.  `make fuzz FUZZ_SECONDS=N`
# (build-clang) fuzzes each harness longer and minimises the corpus in
# the source tree (tests/fuzz/fuzz-long.sh).
if ENABLE_FUZZING
noinst_PROGRAMS += $(FUZZERS)
FUZZ_MAIN =
else
check_PROGRAMS += $(FUZZERS)
noinst_LTLIBRARIES += tests/fuzz/libfuzz_replay.la
tests_fuzz_libfuzz_replay_la_SOURCES = tests/fuzz/replay_main.c
FUZZ_MAIN = tests/fuzz/libfuzz_replay.la
endif
FUZZERS += tests/fuzz/fuzz_cursor
tests_fuzz_fuzz_cursor_SOURCES = tests/fuzz/fuzz_cursor.c
tests_fuzz_fuzz_cursor_LDADD = common/libcommon.la $(FUZZ_MAIN)
tests_fuzz_fuzz_cursor_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

TESTS += tests/fuzz-replay.sh
SANITIZER_TESTS += tests/fuzz-replay.sh
EXTRA_DIST += tests/fuzz/fuzz-long.sh
fuzz: $(FUZZERS)
if ENABLE_FUZZING
	top_srcdir='$(top_srcdir)' FUZZ_SECONDS=$(FUZZ_SECONDS) \
	  $(SHELL) $(top_srcdir)/tests/fuzz/fuzz-long.sh $(FUZZERS)
else
	@echo "make fuzz: configure with --enable-fuzzing CC=clang (build-clang)"; exit 2
endif
.PHONY: fuzz
