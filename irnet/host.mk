# irnet/host.mk: the real-time stack host and the user programs (irdiscover, irspray).
# See docs/irnet-host.md.
irnet_lib_libirnet_la_SOURCES += \
	irnet/lib/station.c irnet/lib/station.h \
	irnet/lib/privdrop.c irnet/lib/privdrop.h
# libseccomp needs no CFLAGS (pkg-config gives none); only the library.
irnet_lib_libirnet_la_LIBADD += $(SECCOMP_LIBS)

# The command line and start-up the host programs share (hostcli.h).
noinst_LTLIBRARIES += irnet/tools/libhostcli.la
irnet_tools_libhostcli_la_SOURCES = irnet/tools/hostcli.c irnet/tools/hostcli.h

bin_PROGRAMS += irnet/tools/irdiscover
irnet_tools_irdiscover_SOURCES = irnet/tools/irdiscover.c
irnet_tools_irdiscover_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
irnet_tools_irdiscover_LDADD = irnet/tools/libhostcli.la irnet/lib/libirnet.la $(JSONC_LIBS)
dist_man_MANS += man/irdiscover.1

UNIT_TESTS += tests/unit/test_station
tests_unit_test_station_SOURCES = tests/unit/test_station.c
tests_unit_test_station_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_station_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_privdrop
tests_unit_test_privdrop_SOURCES = tests/unit/test_privdrop.c
tests_unit_test_privdrop_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_privdrop_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

TESTS += tests/irdiscover-irwire.sh tests/hostcli-usage.sh
TESTS += tests/station-speed-switch.sh
EXTRA_DIST += tests/station-lib.sh

# The stack glue for programs (station + IrLMP + IAS; see docs/irnet-host.md).
irnet_lib_libirnet_la_SOURCES += irnet/lib/stack.c irnet/lib/stack.h
UNIT_TESTS += tests/unit/test_stack_rt
tests_unit_test_stack_rt_SOURCES = tests/unit/test_stack_rt.c
tests_unit_test_stack_rt_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_stack_rt_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

bin_PROGRAMS += irnet/tools/irspray
irnet_tools_irspray_SOURCES = irnet/tools/irspray.c
irnet_tools_irspray_LDADD = irnet/tools/libhostcli.la irnet/lib/libirnet.la
dist_man_MANS += man/irspray.1
TESTS += tests/irspray-irwire.sh

# The sanitizer build (make check-unit in build-asan/) runs the programs
# in real time too, with the seccomp filter on: a sanitizer report from
# either process fails the test (about 25 s at -j2).
SANITIZER_TESTS += tests/irdiscover-irwire.sh tests/irspray-irwire.sh \
	tests/station-speed-switch.sh

# `make bench`: irspray against the raw irwire line (tests/irspray-bench.sh).
BENCHMARKS += tests/irspray-bench.sh
EXTRA_DIST += tests/irspray-bench.sh
bench: irnet/tools/irspray irnet/tools/irwire

# `make bench`: link set-up time over irwire (tests/linkup-irwire-bench.sh).
BENCHMARKS += tests/linkup-irwire-bench.sh
EXTRA_DIST += tests/linkup-irwire-bench.sh
