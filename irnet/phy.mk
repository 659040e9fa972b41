# irnet/phy.mk: SIR framing, FCS, captures, the emulated wire, irwire.

irnet_lib_libirnet_la_SOURCES += \
	irnet/lib/fcs.c irnet/lib/fcs.h \
	irnet/lib/sir.c irnet/lib/sir.h

noinst_HEADERS += tests/unit/sir_vectors.h

UNIT_TESTS += tests/unit/test_fcs tests/unit/test_sir
tests_unit_test_fcs_SOURCES = tests/unit/test_fcs.c
tests_unit_test_fcs_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_fcs_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)
tests_unit_test_sir_SOURCES = tests/unit/test_sir.c
tests_unit_test_sir_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sir_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

if ENABLE_FUZZING
FUZZERS += tests/fuzz/fuzz_sir
tests_fuzz_fuzz_sir_SOURCES = tests/fuzz/fuzz_sir.c tests/fuzz/fuzz_chunks.h
tests_fuzz_fuzz_sir_LDADD = irnet/lib/libirnet.la
tests_fuzz_fuzz_sir_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
endif

irnet_lib_libirnet_la_SOURCES += \
	irnet/lib/pcap.c irnet/lib/pcap.h \
	irnet/lib/pcap_file.c irnet/lib/pcap_file.h

UNIT_TESTS += tests/unit/test_pcap
tests_unit_test_pcap_SOURCES = tests/unit/test_pcap.c
tests_unit_test_pcap_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_pcap_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

if ENABLE_FUZZING
FUZZERS += tests/fuzz/fuzz_pcap
tests_fuzz_fuzz_pcap_SOURCES = tests/fuzz/fuzz_pcap.c
tests_fuzz_fuzz_pcap_LDADD = irnet/lib/libirnet.la
tests_fuzz_fuzz_pcap_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
endif

# tshark, an independent dissector, checks what the pcap writer makes.
check_PROGRAMS += tests/tshark-vectors
tests_tshark_vectors_SOURCES = tests/tshark-vectors.c
tests_tshark_vectors_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_tshark_vectors_LDADD = irnet/lib/libirnet.la
TESTS += tests/tshark-vectors.tap
EXTRA_DIST += tests/tshark-vectors.tap

irnet_lib_libirnet_la_SOURCES += irnet/lib/wire.c irnet/lib/wire.h

UNIT_TESTS += tests/unit/test_wire
tests_unit_test_wire_SOURCES = tests/unit/test_wire.c
tests_unit_test_wire_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_wire_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

bin_PROGRAMS += irnet/tools/irwire
irnet_tools_irwire_SOURCES = irnet/tools/irwire.c
irnet_tools_irwire_LDADD = irnet/lib/libirnet.la
# The man page is installed and linted (tests/man-lint.tap) like every
# page in man/.
dist_man_MANS += man/irwire.1
TESTS += tests/irwire.sh tests/irwire-latency.sh
EXTRA_DIST += tests/irwire.sh tests/irwire_rig.py

# make bench
BENCHMARKS += tests/bench/bench_sir
noinst_PROGRAMS += tests/bench/bench_sir
tests_bench_bench_sir_SOURCES = tests/bench/bench_sir.c tests/bench/bench_util.h
tests_bench_bench_sir_LDADD = irnet/lib/libirnet.la
