# irnet/irlap.mk: IrLAP and its QoS negotiation, and the in-process
# two-station simulator that joins IrLAP stations over the emulated wire.
irnet_lib_libirnet_la_SOURCES += \
	irnet/lib/qos.c irnet/lib/qos.h \
	irnet/lib/irlap_frame.c irnet/lib/irlap_frame.h \
	irnet/lib/irlap.c irnet/lib/irlap.h irnet/lib/irlap_internal.h \
	irnet/lib/irlap_discovery.c

noinst_HEADERS += tests/unit/irlap_vectors.h

UNIT_TESTS += tests/unit/test_qos tests/unit/test_irlap_frame tests/unit/test_irlap
tests_unit_test_irlap_SOURCES = tests/unit/test_irlap.c
tests_unit_test_irlap_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irlap_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)
tests_unit_test_qos_SOURCES = tests/unit/test_qos.c
tests_unit_test_qos_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_qos_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)
tests_unit_test_irlap_frame_SOURCES = tests/unit/test_irlap_frame.c
tests_unit_test_irlap_frame_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irlap_frame_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

if ENABLE_FUZZING
FUZZERS += tests/fuzz/fuzz_irlap_frame
tests_fuzz_fuzz_irlap_frame_SOURCES = tests/fuzz/fuzz_irlap_frame.c
tests_fuzz_fuzz_irlap_frame_LDADD = irnet/lib/libirnet.la
tests_fuzz_fuzz_irlap_frame_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
FUZZERS += tests/fuzz/fuzz_irlap_station
tests_fuzz_fuzz_irlap_station_SOURCES = tests/fuzz/fuzz_irlap_station.c
tests_fuzz_fuzz_irlap_station_LDADD = irnet/lib/libirnet.la
tests_fuzz_fuzz_irlap_station_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
endif
