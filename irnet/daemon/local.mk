# irnet/daemon/: irdad, the daemon that owns one port (docs/irdad-api.md).
noinst_LTLIBRARIES += irnet/daemon/libirdad.la
irnet_daemon_libirdad_la_SOURCES = \
	irnet/daemon/conn_bridge.c irnet/daemon/conn_bridge.h \
	irnet/daemon/api_server.c irnet/daemon/api_server.h \
	irnet/daemon/api_requests.c irnet/daemon/api_requests.h
irnet_daemon_libirdad_la_LIBADD = irnet/api/libirdad_api.la irnet/libirnet.la

UNIT_TESTS += tests/unit/test_conn_bridge
tests_unit_test_conn_bridge_SOURCES = tests/unit/test_conn_bridge.c tests/unit/stack_pair.c \
	tests/unit/stack_pair.h
tests_unit_test_conn_bridge_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_conn_bridge_LDADD = irnet/daemon/libirdad.la $(UNIT_LIBS)
