# irnet/port.mk: the event loop, the serial port, the dongle drivers.
# See docs/irnet-port.md.
irnet_lib_libirnet_la_SOURCES += \
	irnet/lib/eloop.c irnet/lib/eloop.h \
	irnet/lib/uucplock.c irnet/lib/uucplock.h \
	irnet/lib/serial.c irnet/lib/serial.h \
	irnet/lib/mockport.c irnet/lib/mockport.h \
	irnet/lib/dongle.c irnet/lib/dongle.h irnet/lib/dongle_impl.h \
	irnet/lib/dongle_none.c irnet/lib/dongle_tekram.c \
	irnet/lib/dongle_esi.c irnet/lib/dongle_actisys.c \
	irnet/lib/dongle_girbil.c irnet/lib/dongle_litelink.c \
	irnet/lib/dongle_old_belkin.c irnet/lib/dongle_mcp2120.c \
	irnet/lib/dongle_act200l.c irnet/lib/dongle_ma600.c \
	irnet/lib/dongle_toim3232.c

UNIT_TESTS += tests/unit/test_eloop
tests_unit_test_eloop_SOURCES = tests/unit/test_eloop.c
tests_unit_test_eloop_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_eloop_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_serial
tests_unit_test_serial_SOURCES = tests/unit/test_serial.c
tests_unit_test_serial_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_serial_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_dongle_drivers
tests_unit_test_dongle_drivers_SOURCES = tests/unit/test_dongle_drivers.c
tests_unit_test_dongle_drivers_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_dongle_drivers_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_dongle
tests_unit_test_dongle_SOURCES = tests/unit/test_dongle.c
tests_unit_test_dongle_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_dongle_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

# Parsers of outside data in the port layer: lock files, dongle specs,
# sysfs links.
if ENABLE_FUZZING
FUZZERS += tests/fuzz/fuzz_uucplock tests/fuzz/fuzz_dongle_spec \
	tests/fuzz/fuzz_serial_sysfs
tests_fuzz_fuzz_uucplock_SOURCES = tests/fuzz/fuzz_uucplock.c
tests_fuzz_fuzz_uucplock_LDADD = irnet/lib/libirnet.la
tests_fuzz_fuzz_uucplock_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_dongle_spec_SOURCES = tests/fuzz/fuzz_dongle_spec.c
tests_fuzz_fuzz_dongle_spec_LDADD = irnet/lib/libirnet.la
tests_fuzz_fuzz_dongle_spec_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_serial_sysfs_SOURCES = tests/fuzz/fuzz_serial_sysfs.c
tests_fuzz_fuzz_serial_sysfs_LDADD = irnet/lib/libirnet.la
tests_fuzz_fuzz_serial_sysfs_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
endif

BENCHMARKS += tests/bench/bench_port
noinst_PROGRAMS += tests/bench/bench_port
tests_bench_bench_port_SOURCES = tests/bench/bench_port.c
tests_bench_bench_port_LDADD = irnet/lib/libirnet.la
