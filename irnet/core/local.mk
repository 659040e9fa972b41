# irnet/core/: the sans-I/O protocol cores (libirnet_core), one file per
# layer: SIR framing and FCS, the pcap format, IrLAP and its QoS, IrLMP,
# IAS, TinyTP, IrCOMM, PPP async HDLC.  The library is compiled with
# only common/ and irnet/core/ on the include path, so a core file that
# includes a host header does not build; tests/layering.tap checks that
# no core object calls an I/O, clock or process function.
noinst_LTLIBRARIES += irnet/core/libirnet_core.la
irnet_core_libirnet_core_la_CPPFLAGS = -include $(top_builddir)/config.h \
	-I$(top_srcdir)/common -I$(top_srcdir)/irnet/core
irnet_core_libirnet_core_la_SOURCES =
TESTS += tests/layering.tap

# --- SIR framing and FCS (docs/irnet-phy.md)
irnet_core_libirnet_core_la_SOURCES += \
	irnet/core/fcs.c irnet/core/fcs.h \
	irnet/core/sir.c irnet/core/sir.h
# CRC-32 for FIR frames (the USB family cores; FIR framing)
irnet_core_libirnet_core_la_SOURCES += irnet/core/fcs32.c irnet/core/fcs32.h

# --- MIR (bit-stuffed HDLC) and FIR (4PPM) framing (representation: mir.h, fir.h)
irnet_core_libirnet_core_la_SOURCES += \
	irnet/core/mir.c irnet/core/mir.h \
	irnet/core/fir.c irnet/core/fir.h

UNIT_TESTS += tests/unit/test_mir tests/unit/test_fir
tests_unit_test_mir_SOURCES = tests/unit/test_mir.c
tests_unit_test_mir_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_mir_LDADD = irnet/libirnet.la $(UNIT_LIBS)
tests_unit_test_fir_SOURCES = tests/unit/test_fir.c
tests_unit_test_fir_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_fir_LDADD = irnet/libirnet.la $(UNIT_LIBS)


noinst_HEADERS += tests/unit/sir_vectors.h

UNIT_TESTS += tests/unit/test_fcs tests/unit/test_sir
tests_unit_test_fcs_SOURCES = tests/unit/test_fcs.c
tests_unit_test_fcs_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_fcs_LDADD = irnet/libirnet.la $(UNIT_LIBS)
tests_unit_test_sir_SOURCES = tests/unit/test_sir.c
tests_unit_test_sir_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sir_LDADD = irnet/libirnet.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_sir
tests_fuzz_fuzz_sir_SOURCES = tests/fuzz/fuzz_sir.c tests/fuzz/fuzz_chunks.h
tests_fuzz_fuzz_sir_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_sir_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

# --- the pcap format (the file sink is host/pcap_file)
irnet_core_libirnet_core_la_SOURCES += \
	irnet/core/pcap.c irnet/core/pcap.h

UNIT_TESTS += tests/unit/test_pcap
tests_unit_test_pcap_SOURCES = tests/unit/test_pcap.c
tests_unit_test_pcap_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_pcap_LDADD = irnet/libirnet.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_pcap
tests_fuzz_fuzz_pcap_SOURCES = tests/fuzz/fuzz_pcap.c
tests_fuzz_fuzz_pcap_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_pcap_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

# tshark, an independent dissector, checks what the pcap writer makes.
check_PROGRAMS += tests/tshark-vectors
tests_tshark_vectors_SOURCES = tests/tshark-vectors.c
tests_tshark_vectors_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_tshark_vectors_LDADD = irnet/libirnet.la
TESTS += tests/tshark-vectors.tap
EXTRA_DIST += tests/tshark-vectors.tap

# make bench
BENCHMARKS += tests/bench/bench_sir
noinst_PROGRAMS += tests/bench/bench_sir
tests_bench_bench_sir_SOURCES = tests/bench/bench_sir.c tests/bench/bench_util.h
tests_bench_bench_sir_LDADD = irnet/libirnet.la

# --- IrLAP and its QoS negotiation (docs/irnet-irlap.md)
irnet_core_libirnet_core_la_SOURCES += \
	irnet/core/qos.c irnet/core/qos.h \
	irnet/core/irlap_frame.c irnet/core/irlap_frame.h \
	irnet/core/irlap.c irnet/core/irlap.h irnet/core/irlap_internal.h \
	irnet/core/irlap_discovery.c irnet/core/irlap_size.c

noinst_HEADERS += tests/unit/irlap_vectors.h

UNIT_TESTS += tests/unit/test_qos tests/unit/test_irlap_frame tests/unit/test_irlap
tests_unit_test_irlap_SOURCES = tests/unit/test_irlap.c
tests_unit_test_irlap_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irlap_LDADD = irnet/libirnet.la $(UNIT_LIBS)
tests_unit_test_qos_SOURCES = tests/unit/test_qos.c
tests_unit_test_qos_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_qos_LDADD = irnet/libirnet.la $(UNIT_LIBS)
tests_unit_test_irlap_frame_SOURCES = tests/unit/test_irlap_frame.c
tests_unit_test_irlap_frame_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irlap_frame_LDADD = irnet/libirnet.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_irlap_frame
tests_fuzz_fuzz_irlap_frame_SOURCES = tests/fuzz/fuzz_irlap_frame.c
tests_fuzz_fuzz_irlap_frame_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_irlap_frame_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
FUZZERS += tests/fuzz/fuzz_qos
tests_fuzz_fuzz_qos_SOURCES = tests/fuzz/fuzz_qos.c
tests_fuzz_fuzz_qos_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_qos_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
FUZZERS += tests/fuzz/fuzz_irlap_station
tests_fuzz_fuzz_irlap_station_SOURCES = tests/fuzz/fuzz_irlap_station.c
tests_fuzz_fuzz_irlap_station_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_irlap_station_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

# --- IrLMP, IAS and TinyTP (docs/irnet-lmp.md)
irnet_core_libirnet_core_la_SOURCES += \
	irnet/core/irlmp.c irnet/core/irlmp.h \
	irnet/core/ias.c irnet/core/ias.h \
	irnet/core/ttp.c irnet/core/ttp.h \
	irnet/core/lmp_conn.c irnet/core/lmp_conn.h

UNIT_TESTS += tests/unit/test_irlmp tests/unit/test_stack
# Plain IrLMP connections (no TinyTP): messages, queue bounds, drops.
UNIT_TESTS += tests/unit/test_lmp_conn
tests_unit_test_lmp_conn_SOURCES = tests/unit/test_lmp_conn.c
tests_unit_test_lmp_conn_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_lmp_conn_LDADD = irnet/libirnet.la $(UNIT_LIBS)
tests_unit_test_irlmp_SOURCES = tests/unit/test_irlmp.c
tests_unit_test_irlmp_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irlmp_LDADD = irnet/libirnet.la $(UNIT_LIBS)
# TinyTP's stream / SAR negotiation against Linux's bytes (docs/irnet-lmp.md).
UNIT_TESTS += tests/unit/test_ttp
tests_unit_test_ttp_SOURCES = tests/unit/test_ttp.c
tests_unit_test_ttp_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ttp_LDADD = irnet/libirnet.la $(UNIT_LIBS)
tests_unit_test_stack_SOURCES = tests/unit/test_stack.c
tests_unit_test_stack_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_stack_LDADD = irnet/libirnet.la $(UNIT_LIBS)
# A peer's IrLMP connect during our idle close, replayed from the Linux capture.
UNIT_TESTS += tests/unit/test_irlmp_idle
tests_unit_test_irlmp_idle_SOURCES = tests/unit/test_irlmp_idle.c
tests_unit_test_irlmp_idle_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irlmp_idle_LDADD = irnet/libirnet.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_irlmp tests/fuzz/fuzz_ias tests/fuzz/fuzz_ttp
tests_fuzz_fuzz_irlmp_SOURCES = tests/fuzz/fuzz_irlmp.c
tests_fuzz_fuzz_irlmp_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_irlmp_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_ias_SOURCES = tests/fuzz/fuzz_ias.c
tests_fuzz_fuzz_ias_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_ias_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_ttp_SOURCES = tests/fuzz/fuzz_ttp.c
tests_fuzz_fuzz_ttp_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_ttp_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

# tshark dissects a simulated IAS + IrLMP + TinyTP session (test_stack --pcap).
TESTS += tests/irlmp-tshark.tap
EXTRA_DIST += tests/irlmp-tshark.tap

# --- IrCOMM cooked (3-wire, 9-wire) over TinyTP (docs/irnet-ircomm.md)
irnet_core_libirnet_core_la_SOURCES += \
	irnet/core/ircomm_param.c irnet/core/ircomm_param.h \
	irnet/core/ircomm.c irnet/core/ircomm.h

UNIT_TESTS += tests/unit/test_ircomm_param tests/unit/test_ircomm
tests_unit_test_ircomm_param_SOURCES = tests/unit/test_ircomm_param.c
tests_unit_test_ircomm_param_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ircomm_param_LDADD = irnet/libirnet.la $(UNIT_LIBS)
tests_unit_test_ircomm_SOURCES = tests/unit/test_ircomm.c
tests_unit_test_ircomm_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ircomm_LDADD = irnet/libirnet.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_ircomm_param
tests_fuzz_fuzz_ircomm_param_SOURCES = tests/fuzz/fuzz_ircomm_param.c
tests_fuzz_fuzz_ircomm_param_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_ircomm_param_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

# --- PPP in RFC 1662 async HDLC framing <-> bare IrNET frames (docs/irnet-ppp.md)
irnet_core_libirnet_core_la_SOURCES += irnet/core/ppp_hdlc.c irnet/core/ppp_hdlc.h

UNIT_TESTS += tests/unit/test_ppp_hdlc
tests_unit_test_ppp_hdlc_SOURCES = tests/unit/test_ppp_hdlc.c
tests_unit_test_ppp_hdlc_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ppp_hdlc_LDADD = irnet/libirnet.la $(UNIT_LIBS)

# pppdump -p (from the ppp package: pppd's own async HDLC reader, FCS
# checked) reads what the encoder writes.
check_PROGRAMS += tests/ppp-hdlc-record
tests_ppp_hdlc_record_SOURCES = tests/ppp-hdlc-record.c
tests_ppp_hdlc_record_LDADD = irnet/libirnet.la
TESTS += tests/ppp-hdlc-pppdump.tap

FUZZERS += tests/fuzz/fuzz_ppp_hdlc
tests_fuzz_fuzz_ppp_hdlc_SOURCES = tests/fuzz/fuzz_ppp_hdlc.c tests/fuzz/fuzz_chunks.h
tests_fuzz_fuzz_ppp_hdlc_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_ppp_hdlc_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

# make bench
BENCHMARKS += tests/bench/bench_ppp_hdlc
noinst_PROGRAMS += tests/bench/bench_ppp_hdlc
tests_bench_bench_ppp_hdlc_SOURCES = tests/bench/bench_ppp_hdlc.c tests/bench/bench_util.h
tests_bench_bench_ppp_hdlc_LDADD = irnet/libirnet.la
