# irnet/lmp.mk: IrLMP, IAS and TinyTP.
irnet_lib_libirnet_la_SOURCES += \
	irnet/lib/irlmp.c irnet/lib/irlmp.h \
	irnet/lib/ias.c irnet/lib/ias.h \
	irnet/lib/ttp.c irnet/lib/ttp.h

UNIT_TESTS += tests/unit/test_irlmp tests/unit/test_stack
tests_unit_test_irlmp_SOURCES = tests/unit/test_irlmp.c
tests_unit_test_irlmp_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irlmp_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)
# TinyTP's stream / SAR negotiation against Linux's bytes (docs/irnet-lmp.md).
UNIT_TESTS += tests/unit/test_ttp
tests_unit_test_ttp_SOURCES = tests/unit/test_ttp.c
tests_unit_test_ttp_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ttp_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)
tests_unit_test_stack_SOURCES = tests/unit/test_stack.c
tests_unit_test_stack_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_stack_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)
# A peer's IrLMP connect during our idle close, replayed from the Linux capture.
UNIT_TESTS += tests/unit/test_irlmp_idle
tests_unit_test_irlmp_idle_SOURCES = tests/unit/test_irlmp_idle.c
tests_unit_test_irlmp_idle_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irlmp_idle_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

if ENABLE_FUZZING
FUZZERS += tests/fuzz/fuzz_irlmp tests/fuzz/fuzz_ias tests/fuzz/fuzz_ttp
tests_fuzz_fuzz_irlmp_SOURCES = tests/fuzz/fuzz_irlmp.c
tests_fuzz_fuzz_irlmp_LDADD = irnet/lib/libirnet.la
tests_fuzz_fuzz_irlmp_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_ias_SOURCES = tests/fuzz/fuzz_ias.c
tests_fuzz_fuzz_ias_LDADD = irnet/lib/libirnet.la
tests_fuzz_fuzz_ias_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_ttp_SOURCES = tests/fuzz/fuzz_ttp.c
tests_fuzz_fuzz_ttp_LDADD = irnet/lib/libirnet.la
tests_fuzz_fuzz_ttp_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
endif

# tshark dissects a simulated IAS + IrLMP + TinyTP session (test_stack --pcap).
TESTS += tests/irlmp-tshark.tap
EXTRA_DIST += tests/irlmp-tshark.tap

