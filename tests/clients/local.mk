# tests/clients/: AF_IRDA programs users run, built and run against the
# project (issue 26): the development kit installed and linked directly
# (irsock-kit.sh), libdivecomputer's dctool downloading from an emulated
# Uwatec Galileo Sol (libdivecomputer.sh).

# The emulated dive computer: the Smart protocol's device side
# (uwatec_smart.c, sans-I/O) on a TinyTP listener of irdad's API.
noinst_LTLIBRARIES += tests/clients/libuwatec_smart.la
tests_clients_libuwatec_smart_la_SOURCES = tests/clients/uwatec_smart.c tests/clients/uwatec_smart.h
tests_clients_libuwatec_smart_la_LIBADD = common/libcommon.la

check_PROGRAMS += tests/clients/uwatec_emu
tests_clients_uwatec_emu_SOURCES = tests/clients/uwatec_emu.c
tests_clients_uwatec_emu_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/clients
tests_clients_uwatec_emu_LDADD = tests/clients/libuwatec_smart.la irnet/api/libirnet_client.la

UNIT_TESTS += tests/unit/test_uwatec_smart
tests_unit_test_uwatec_smart_SOURCES = tests/unit/test_uwatec_smart.c
tests_unit_test_uwatec_smart_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/clients
tests_unit_test_uwatec_smart_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_uwatec_smart_LDADD = tests/clients/libuwatec_smart.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_uwatec_smart
tests_fuzz_fuzz_uwatec_smart_SOURCES = tests/fuzz/fuzz_uwatec_smart.c
tests_fuzz_fuzz_uwatec_smart_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/clients
tests_fuzz_fuzz_uwatec_smart_LDADD = tests/clients/libuwatec_smart.la $(FUZZ_MAIN)
tests_fuzz_fuzz_uwatec_smart_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

# Over two irdad on irwire in real time (tests/station-lib.sh): the kit
# installed with DESTDIR and a program linked with it (about 5 s).
TESTS += tests/clients/irsock-kit.sh
EXTRA_DIST += tests/clients/kit-lib.sh tests/clients/irsock_kit_probe.c
clean-local: clean-local-clients
clean-local-clients:
	rm -rf tests/clients/irsock-kit-kit tests/clients/libdivecomputer-kit \
		tests/clients/libdivecomputer-0.9.0 tests/clients/libdivecomputer-inst
.PHONY: clean-local-clients

# dctool of libdivecomputer 0.9.0, unmodified, built against the kit and
# run under irsock against the emulator (about 40 s, and 3 min more when
# libdivecomputer is built: once per build tree and header).
TESTS += tests/clients/libdivecomputer.sh
