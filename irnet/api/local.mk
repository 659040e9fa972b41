# irnet/api/: irdad's local API (docs/irdad-api.md), shared by the daemon
# and its clients: the control messages' codec (sans-I/O) and fdpass (one
# message with its descriptors on the SEQPACKET socket).
noinst_LTLIBRARIES += irnet/api/libirdad_api.la
irnet_api_libirdad_api_la_SOURCES = irnet/api/irdad_msg.c irnet/api/irdad_msg.h \
	irnet/api/fdpass.c irnet/api/fdpass.h irnet/api/port_name.c irnet/api/port_name.h
irnet_api_libirdad_api_la_LIBADD = common/libcommon.la

UNIT_TESTS += tests/unit/test_irdad_msg
tests_unit_test_irdad_msg_SOURCES = tests/unit/test_irdad_msg.c
tests_unit_test_irdad_msg_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irdad_msg_LDADD = irnet/api/libirdad_api.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_irdad_msg
tests_fuzz_fuzz_irdad_msg_SOURCES = tests/fuzz/fuzz_irdad_msg.c
tests_fuzz_fuzz_irdad_msg_LDADD = irnet/api/libirdad_api.la $(FUZZ_MAIN)
tests_fuzz_fuzz_irdad_msg_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

# The client library (irnet_client.h): a session with irdad, for every
# program that uses the stack through irdad.  It carries the codec and
# links nothing of the stack: it is compiled with only common/ and
# irnet/api/ on the include path, since the AF_IRDA preload library puts
# it into arbitrary programs.
noinst_LTLIBRARIES += irnet/api/libirnet_client.la
irnet_api_libirnet_client_la_CPPFLAGS = -include $(top_builddir)/config.h \
	-I$(top_srcdir)/common -I$(top_srcdir)/irnet/api
irnet_api_libirnet_client_la_SOURCES = irnet/api/irnet_client.c irnet/api/irnet_client.h \
	irnet/api/irnet_names.c irnet/api/irnet_names.h
# (libirdad_api.la carries common/)
irnet_api_libirnet_client_la_LIBADD = irnet/api/libirdad_api.la

UNIT_TESTS += tests/unit/test_irnet_client
tests_unit_test_irnet_client_SOURCES = tests/unit/test_irnet_client.c tests/unit/irdad_fake.h
tests_unit_test_irnet_client_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irnet_client_LDADD = irnet/api/libirnet_client.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_irnet_client
tests_fuzz_fuzz_irnet_client_SOURCES = tests/fuzz/fuzz_irnet_client.c tests/unit/irdad_fake.h
tests_fuzz_fuzz_irnet_client_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit
tests_fuzz_fuzz_irnet_client_LDADD = irnet/api/libirnet_client.la $(FUZZ_MAIN)
tests_fuzz_fuzz_irnet_client_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

# make bench: the control path's round trips through the client library
BENCHMARKS += tests/bench/bench_irnet_client
noinst_PROGRAMS += tests/bench/bench_irnet_client
tests_bench_bench_irnet_client_SOURCES = tests/bench/bench_irnet_client.c tests/bench/bench_util.h \
	tests/unit/irdad_fake.h
tests_bench_bench_irnet_client_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit
tests_bench_bench_irnet_client_LDADD = irnet/api/libirnet_client.la
