# irnet/dongle/: one driver per serial IrDA dongle, each a script builder
# run by the executor in dongle.c over a struct port.  See docs/irnet-port.md.
irnet_libirnet_la_SOURCES += \
	irnet/dongle/dongle.c irnet/dongle/dongle.h irnet/dongle/dongle_impl.h \
	irnet/dongle/dongle_none.c irnet/dongle/dongle_tekram.c \
	irnet/dongle/dongle_esi.c irnet/dongle/dongle_actisys.c \
	irnet/dongle/dongle_girbil.c irnet/dongle/dongle_litelink.c \
	irnet/dongle/dongle_old_belkin.c irnet/dongle/dongle_mcp2120.c \
	irnet/dongle/dongle_act200l.c irnet/dongle/dongle_ma600.c \
	irnet/dongle/dongle_toim3232.c

UNIT_TESTS += tests/unit/test_dongle_drivers
tests_unit_test_dongle_drivers_SOURCES = tests/unit/test_dongle_drivers.c
tests_unit_test_dongle_drivers_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_dongle_drivers_LDADD = irnet/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_dongle
tests_unit_test_dongle_SOURCES = tests/unit/test_dongle.c
tests_unit_test_dongle_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_dongle_LDADD = irnet/libirnet.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_dongle_spec
tests_fuzz_fuzz_dongle_spec_SOURCES = tests/fuzz/fuzz_dongle_spec.c
tests_fuzz_fuzz_dongle_spec_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_dongle_spec_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
