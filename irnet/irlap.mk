# irnet/irlap.mk: IrLAP and its QoS negotiation, and the in-process
# two-station simulator that joins IrLAP stations over the emulated wire.
irnet_lib_libirnet_la_SOURCES += \
	irnet/lib/qos.c irnet/lib/qos.h \
	irnet/lib/irlap_frame.c irnet/lib/irlap_frame.h \
	irnet/lib/irlap.c irnet/lib/irlap.h irnet/lib/irlap_internal.h \
	irnet/lib/irlap_discovery.c irnet/lib/irlap_size.c
# irlap_size.c weighs loss rates with exp/log.
irnet_lib_libirnet_la_LIBADD += -lm

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

# The simulator needs the phy modules (sir, wire, pcap).
irnet_lib_libirnet_la_SOURCES += irnet/lib/sim.c irnet/lib/sim.h

UNIT_TESTS += tests/unit/test_irlap_capture tests/unit/test_sim tests/unit/test_sim_faults
tests_unit_test_irlap_capture_SOURCES = tests/unit/test_irlap_capture.c
tests_unit_test_irlap_capture_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irlap_capture_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)
tests_unit_test_sim_SOURCES = tests/unit/test_sim.c
tests_unit_test_sim_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sim_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)
tests_unit_test_sim_faults_SOURCES = tests/unit/test_sim.c
tests_unit_test_sim_faults_CFLAGS = $(UNIT_CFLAGS) -DSIM_FAULTS
tests_unit_test_sim_faults_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

# tshark checks a whole simulated session.
check_PROGRAMS += tests/irlap-session
tests_irlap_session_SOURCES = tests/irlap-session.c
tests_irlap_session_LDADD = irnet/lib/libirnet.la
TESTS += tests/irlap-tshark.tap
EXTRA_DIST += tests/irlap-tshark.tap

BENCHMARKS += tests/bench/bench_irlap tests/bench/bench_irlap_ber
noinst_PROGRAMS += tests/bench/bench_irlap tests/bench/bench_irlap_ber
tests_bench_bench_irlap_SOURCES = tests/bench/bench_irlap.c
tests_bench_bench_irlap_LDADD = irnet/lib/libirnet.la
tests_bench_bench_irlap_ber_SOURCES = tests/bench/bench_irlap_ber.c
tests_bench_bench_irlap_ber_LDADD = irnet/lib/libirnet.la -lm
