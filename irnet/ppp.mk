# irnet/ppp.mk: PPP in RFC 1662 async HDLC framing <-> bare IrNET frames
# (the framing half of the future pppd plugin's helper).

irnet_lib_libirnet_la_SOURCES += irnet/lib/ppp_hdlc.c irnet/lib/ppp_hdlc.h

UNIT_TESTS += tests/unit/test_ppp_hdlc
tests_unit_test_ppp_hdlc_SOURCES = tests/unit/test_ppp_hdlc.c
tests_unit_test_ppp_hdlc_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ppp_hdlc_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)

# pppdump -p (from the ppp package: pppd's own async HDLC reader, FCS
# checked) reads what the encoder writes.
check_PROGRAMS += tests/ppp-hdlc-record
tests_ppp_hdlc_record_SOURCES = tests/ppp-hdlc-record.c
tests_ppp_hdlc_record_LDADD = irnet/lib/libirnet.la
TESTS += tests/ppp-hdlc-pppdump.tap

if ENABLE_FUZZING
FUZZERS += tests/fuzz/fuzz_ppp_hdlc
tests_fuzz_fuzz_ppp_hdlc_SOURCES = tests/fuzz/fuzz_ppp_hdlc.c tests/fuzz/fuzz_chunks.h
tests_fuzz_fuzz_ppp_hdlc_LDADD = irnet/lib/libirnet.la
tests_fuzz_fuzz_ppp_hdlc_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
endif

# make bench
BENCHMARKS += tests/bench/bench_ppp_hdlc
noinst_PROGRAMS += tests/bench/bench_ppp_hdlc
tests_bench_bench_ppp_hdlc_SOURCES = tests/bench/bench_ppp_hdlc.c tests/bench/bench_util.h
tests_bench_bench_ppp_hdlc_LDADD = irnet/lib/libirnet.la
