# irnet/api/: irdad's local API (docs/irdad-api.md): the control messages'
# codec, shared by the daemon and its clients.  Sans-I/O.
noinst_LTLIBRARIES += irnet/api/libirdad_api.la
irnet_api_libirdad_api_la_SOURCES = irnet/api/irdad_msg.c irnet/api/irdad_msg.h
irnet_api_libirdad_api_la_LIBADD = common/libcommon.la

UNIT_TESTS += tests/unit/test_irdad_msg
tests_unit_test_irdad_msg_SOURCES = tests/unit/test_irdad_msg.c
tests_unit_test_irdad_msg_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irdad_msg_LDADD = irnet/api/libirdad_api.la $(UNIT_LIBS)

if ENABLE_FUZZING
FUZZERS += tests/fuzz/fuzz_irdad_msg
tests_fuzz_fuzz_irdad_msg_SOURCES = tests/fuzz/fuzz_irdad_msg.c
tests_fuzz_fuzz_irdad_msg_LDADD = irnet/api/libirdad_api.la
tests_fuzz_fuzz_irdad_msg_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
endif
