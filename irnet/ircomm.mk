# irnet/ircomm.mk: IrCOMM cooked (3-wire, 9-wire) over TinyTP.
irnet_lib_libirnet_la_SOURCES += \
	irnet/lib/ircomm_param.c irnet/lib/ircomm_param.h \
	irnet/lib/ircomm.c irnet/lib/ircomm.h

UNIT_TESTS += tests/unit/test_ircomm_param tests/unit/test_ircomm
tests_unit_test_ircomm_param_SOURCES = tests/unit/test_ircomm_param.c
tests_unit_test_ircomm_param_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ircomm_param_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)
tests_unit_test_ircomm_SOURCES = tests/unit/test_ircomm.c
tests_unit_test_ircomm_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ircomm_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

if ENABLE_FUZZING
FUZZERS += tests/fuzz/fuzz_ircomm_param
tests_fuzz_fuzz_ircomm_param_SOURCES = tests/fuzz/fuzz_ircomm_param.c
tests_fuzz_fuzz_ircomm_param_LDADD = irnet/lib/libirnet.la
tests_fuzz_fuzz_ircomm_param_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
endif
