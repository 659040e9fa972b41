# irnet/daemon/: irdad, the daemon that runs the stack on one port and
# serves IrCOMM and IrNET endpoints and the local API (docs/irdad.md).
# Its configuration: irdad.conf(5) and the options that override it,
# parsed sans-I/O (irdad_config.c) and read by a small loader
# (irdad_config_file.c).
noinst_LTLIBRARIES += irnet/daemon/libirdad_config.la
irnet_daemon_libirdad_config_la_SOURCES = \
	irnet/daemon/irdad_config.c irnet/daemon/irdad_config.h \
	irnet/daemon/irdad_config_file.c
irnet_daemon_libirdad_config_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/irnet/usb \
	-I$(top_srcdir)/irnet/api
irnet_daemon_libirdad_config_la_LIBADD = irnet/api/libirdad_api.la irnet/libirnet.la
dist_man_MANS += man/irdad.conf.5
EXTRA_DIST += irnet/daemon/irdad.conf.example

UNIT_TESTS += tests/unit/test_irdad_config
tests_unit_test_irdad_config_SOURCES = tests/unit/test_irdad_config.c
tests_unit_test_irdad_config_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irdad_config_LDADD = irnet/daemon/libirdad_config.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_irdad_config
tests_fuzz_fuzz_irdad_config_SOURCES = tests/fuzz/fuzz_irdad_config.c
tests_fuzz_fuzz_irdad_config_LDADD = irnet/daemon/libirdad_config.la $(FUZZ_MAIN)
tests_fuzz_fuzz_irdad_config_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

# The API's side of the daemon (docs/irdad-api.md): sessions, requests,
# and the bridge from a TinyTP connection to the client's descriptor.
noinst_LTLIBRARIES += irnet/daemon/libirdad.la
irnet_daemon_libirdad_la_SOURCES = \
	irnet/daemon/conn_bridge.c irnet/daemon/conn_bridge.h \
	irnet/daemon/loopback_pair.c irnet/daemon/loopback_pair.h \
	irnet/daemon/api_server.c irnet/daemon/api_server.h \
	irnet/daemon/api_requests.c irnet/daemon/api_requests.h
# Endpoints (docs/irdad.md): IrNET, a pty or stdio speaking async HDLC <->
# IrNetv1; IrCOMM, a pty <-> IrCOMM.
irnet_daemon_libirdad_la_SOURCES += irnet/daemon/irnet_ep.c irnet/daemon/irnet_ep.h \
	irnet/daemon/status_line.c irnet/daemon/status_line.h \
	irnet/daemon/ircomm_pty.c irnet/daemon/ircomm_pty.h
# The privileged opener that lets irdad reopen its port after the drop.
irnet_daemon_libirdad_la_SOURCES += irnet/daemon/port_opener.c irnet/daemon/port_opener.h
irnet_daemon_libirdad_la_LIBADD = irnet/api/libirdad_api.la irnet/libirnet.la
# What the opener refuses to remove (a path swapped after the fork), under its filter.
UNIT_TESTS += tests/unit/test_port_opener
tests_unit_test_port_opener_SOURCES = tests/unit/test_port_opener.c
tests_unit_test_port_opener_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_port_opener_LDADD = irnet/daemon/libirdad.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_loopback_pair
tests_unit_test_loopback_pair_SOURCES = tests/unit/test_loopback_pair.c
tests_unit_test_loopback_pair_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_loopback_pair_LDADD = irnet/daemon/libirdad.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_conn_bridge
tests_unit_test_conn_bridge_SOURCES = tests/unit/test_conn_bridge.c tests/unit/stack_pair.c \
	tests/unit/stack_pair.h
tests_unit_test_conn_bridge_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_conn_bridge_LDADD = irnet/daemon/libirdad.la $(UNIT_LIBS)

# System integration: the per-port unit started by the udev rule for a
# port tagged IRNET_IRDA=1 (man irdad.8).
irdad_edit = $(SED) -e 's|@sbindir[@]|$(sbindir)|g'
irnet/daemon/system/irdad@.service: $(srcdir)/irnet/daemon/system/irdad@.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) irnet/daemon/system && $(irdad_edit) $(srcdir)/irnet/daemon/system/irdad@.service.in >$@.tmp && mv $@.tmp $@
systemdsystemunit_DATA += irnet/daemon/system/irdad@.service
dist_udevrules_DATA += irnet/daemon/system/61-irdad.rules
CLEANFILES += irnet/daemon/system/irdad@.service
EXTRA_DIST += irnet/daemon/system/irdad@.service.in
# USB dongles: their nodes to group plugdev, and irdad-usb@PORT on request
irnet/daemon/system/irdad-usb@.service: $(srcdir)/irnet/daemon/system/irdad-usb@.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) irnet/daemon/system && $(irdad_edit) $(srcdir)/irnet/daemon/system/irdad-usb@.service.in >$@.tmp && mv $@.tmp $@
systemdsystemunit_DATA += irnet/daemon/system/irdad-usb@.service
dist_udevrules_DATA += irnet/daemon/system/60-irnet-usb.rules
CLEANFILES += irnet/daemon/system/irdad-usb@.service
EXTRA_DIST += irnet/daemon/system/irdad-usb@.service.in
TESTS += tests/irdad-units.tap tests/udev-usb-rule.sh

UNIT_TESTS += tests/unit/test_irnet_ep
tests_unit_test_irnet_ep_SOURCES = tests/unit/test_irnet_ep.c tests/unit/stack_pair.c \
	tests/unit/stack_pair.h tests/unit/fake_pppd.c tests/unit/fake_pppd.h
tests_unit_test_irnet_ep_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irnet_ep_LDADD = irnet/daemon/libirdad.la $(UNIT_LIBS)
# pppdump -p reads what the endpoints write on their ptys
TESTS += tests/irnet-ep-pppdump.tap
EXTRA_DIST += tests/irnet-ep-pppdump.tap tests/pppdump-lib.sh

# PPP payload rate endpoint to endpoint against the raw line (in process)
BENCHMARKS += tests/bench/bench_irnet_ep
noinst_PROGRAMS += tests/bench/bench_irnet_ep
tests_bench_bench_irnet_ep_SOURCES = tests/bench/bench_irnet_ep.c tests/bench/bench_util.h \
	tests/unit/stack_pair.c tests/unit/stack_pair.h tests/unit/fake_pppd.c tests/unit/fake_pppd.h
tests_bench_bench_irnet_ep_CFLAGS = $(UNIT_CFLAGS)
tests_bench_bench_irnet_ep_LDADD = irnet/daemon/libirdad.la $(UNIT_LIBS)

# irdad --stdio's status lines (status_line.c), shared by both endpoints.
UNIT_TESTS += tests/unit/test_status_line
tests_unit_test_status_line_SOURCES = tests/unit/test_status_line.c
tests_unit_test_status_line_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_status_line_LDADD = irnet/daemon/libirdad.la $(UNIT_LIBS)

# An [ircomm] endpoint on a pty (ircomm_pty.c), two of them on stack_pair.
UNIT_TESTS += tests/unit/test_ircomm_pty
tests_unit_test_ircomm_pty_SOURCES = tests/unit/test_ircomm_pty.c tests/unit/stack_pair.c \
	tests/unit/stack_pair.h
tests_unit_test_ircomm_pty_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ircomm_pty_LDADD = irnet/daemon/libirdad.la $(UNIT_LIBS)

# `make bench`: IrCOMM pty to pty, in process (tests/bench/bench_ircomm_pty.c).
BENCHMARKS += tests/bench/bench_ircomm_pty
noinst_PROGRAMS += tests/bench/bench_ircomm_pty
tests_bench_bench_ircomm_pty_SOURCES = tests/bench/bench_ircomm_pty.c tests/bench/bench_util.h \
	tests/unit/stack_pair.c tests/unit/stack_pair.h
tests_bench_bench_ircomm_pty_CFLAGS = $(UNIT_CFLAGS)
tests_bench_bench_ircomm_pty_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit
tests_bench_bench_ircomm_pty_LDADD = irnet/daemon/libirdad.la $(UNIT_LIBS)
