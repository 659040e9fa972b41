# The test harness.  Every test is run by automake's parallel harness:
#  - unit tests are cmocka programs that print TAP, so each test case is
#    counted on its own (tap-driver.sh);
#  - .tap scripts print TAP too (one result per item they check);
#  - .sh scripts are whole tests: exit 0 pass, 1 fail, 77 skip (with the
#    reason on stdout), 99 hard error.
# bootstrap.sh adds up the :test-result: lines of every .trs file.

TEST_EXTENSIONS = .sh .tap

# Each driver runs under tests/timed-driver.sh, which leaves NAME.time
# beside NAME.trs: bootstrap.sh prints the slowest tests from them.
TIMED_DRIVER = $(SHELL) $(top_srcdir)/tests/timed-driver.sh
LOG_DRIVER = $(TIMED_DRIVER) env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
TAP_LOG_DRIVER = $(TIMED_DRIVER) env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
SH_LOG_DRIVER = $(TIMED_DRIVER) $(SHELL) $(top_srcdir)/build-aux/test-driver
TAP_LOG_COMPILER = $(SHELL)
SH_LOG_COMPILER = $(SHELL)

AM_TESTS_ENVIRONMENT = \
	CMOCKA_MESSAGE_OUTPUT=TAP; export CMOCKA_MESSAGE_OUTPUT; \
	top_srcdir='$(top_srcdir)'; export top_srcdir; \
	abs_top_srcdir='$(abs_top_srcdir)'; export abs_top_srcdir; \
	abs_top_builddir='$(abs_top_builddir)'; export abs_top_builddir; \
	MANDOC='$(MANDOC)'; export MANDOC; \
	TSHARK='$(TSHARK)'; export TSHARK; \
	PPPD='$(PPPD)'; export PPPD; \
	LINUX_UML='$(LINUX_UML)'; export LINUX_UML; \
	QEMU_X86='$(QEMU_X86)'; export QEMU_X86; \
	IRNET_REALTIME_TESTS='$(REALTIME_TESTS)'; export IRNET_REALTIME_TESTS; \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1; export UBSAN_OPTIONS; \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0; export ASAN_OPTIONS;

EXTRA_DIST += tests/lib.sh tests/timed-driver.sh tests/ceiling.sh tests/ceiling.py \
	tests/slowdown.sh tests/stress-check.sh

# `make check-unit`: the cmocka unit tests and the SANITIZER_TESTS
# scripts (the sanitizer build).
check-unit:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(UNIT_TESTS) $(SANITIZER_TESTS)'

# `make check-fuzz`: run every libFuzzer harness for FUZZ_SECONDS each,
# starting from its seed corpus in tests/fuzz/corpus/NAME.  Each run goes
# through automake's test-driver, so it leaves a .log and a .trs like any
# other test and bootstrap.sh counts it.
FUZZ_SECONDS = 10
check-fuzz: $(FUZZERS)
	@fail=0; for f in $(FUZZERS); do \
	  $(TIMED_DRIVER) $(SHELL) $(top_srcdir)/build-aux/test-driver --test-name "$$f" \
	    --log-file "$$f.fuzz.log" --trs-file "$$f.fuzz.trs" \
	    --color-tests no --enable-hard-errors yes --expect-failure no -- \
	    env FUZZ_SECONDS=$(FUZZ_SECONDS) top_srcdir='$(top_srcdir)' \
	    $(SHELL) $(top_srcdir)/tests/fuzz/run-fuzzer.sh "./$$f" || fail=1; \
	done; exit $$fail
EXTRA_DIST += tests/fuzz/run-fuzzer.sh
CLEANFILES += $(FUZZERS:=.fuzz.log) $(FUZZERS:=.fuzz.trs) $(FUZZERS:=.fuzz.time) $(TEST_LOGS:.log=.time)

# `make bench`: run every benchmark; they print `bench:` lines and never
# fail the build on a timing (only on a real error).
bench: $(BENCHMARKS)
	@set -e; for b in $(BENCHMARKS); do \
	  case $$b in *.sh) cmd="$(SHELL) $(srcdir)/$$b";; *) cmd="./$$b";; esac; \
	  echo "== $$b"; \
	  top_srcdir='$(top_srcdir)' abs_top_builddir='$(abs_top_builddir)' $$cmd; \
	done

# `make check-valgrind`: the real-time program tests with irwire, irdad
# and irspray under valgrind memcheck (tests/station-lib.sh: any error or
# definite leak fails the test; seccomp off there, valgrind needs it).
# Slow (minutes), so not part of `check`.
VALGRIND_TESTS = tests/irspray-irwire.sh tests/irdad-api.sh tests/irdad-ircomm.sh \
	tests/irdad-mixed.sh tests/irdad-unplug.sh tests/irdad-unplug-retry.sh
VALGRIND_CMD = valgrind --error-exitcode=97 --leak-check=full \
	--errors-for-leak-kinds=definite --show-leak-kinds=definite --track-fds=no
check-valgrind:
	IRNET_VALGRIND='$(VALGRIND_CMD)' $(MAKE) $(AM_MAKEFLAGS) check TESTS='$(VALGRIND_TESTS)'

.PHONY: check-unit check-fuzz check-valgrind bench

# Source-tree checks that need no build.
TESTS += tests/man-lint.tap tests/banned.tap

# The real-time soak (issue 16, docs/reliability.md): two irdad over irwire
# with bit errors and a pattern of short and long breaks, IrCOMM, IrNET and
# an AF_IRDA program under irsock at once, every delivered byte checked,
# each irdad's RSS and descriptors sampled.  `check` runs 2 minutes (about
# 2 min 5 s wall, a few CPU seconds in all); `make soak-rt MINUTES=N` runs N.
TESTS += tests/irdad-soak-rt.sh
EXTRA_DIST += tests/irdad_soak_rt.py
MINUTES = 10
soak-rt: irnet/tools/irdad irnet/tools/irwire irnet/irsock/irsock irnet/irsock/libirsock.la \
		tests/irsock_classic
	SOAK_RT_MINUTES=$(MINUTES) top_srcdir='$(top_srcdir)' \
	  abs_top_builddir='$(abs_top_builddir)' $(SHELL) $(top_srcdir)/tests/irdad-soak-rt.sh
.PHONY: soak-rt
