# irnet/host/: what touches file descriptors and clocks: the event loop,
# the serial port and its lock, capture files, the real-time station,
# the stack glue for programs, the privilege drop.  See docs/irnet-port.md
# and docs/irnet-host.md.
irnet_libirnet_la_SOURCES += \
	irnet/host/eloop.c irnet/host/eloop.h \
	irnet/host/uucplock.c irnet/host/uucplock.h \
	irnet/host/serial.c irnet/host/serial.h \
	irnet/host/pcap_file.c irnet/host/pcap_file.h \
	irnet/host/station.c irnet/host/station.h \
	irnet/host/privdrop.c irnet/host/privdrop.h \
	irnet/host/path_watch.c irnet/host/path_watch.h
# libseccomp needs no CFLAGS (pkg-config gives none); only the library.
irnet_libirnet_la_LIBADD += $(SECCOMP_LIBS)

UNIT_TESTS += tests/unit/test_eloop
tests_unit_test_eloop_SOURCES = tests/unit/test_eloop.c
tests_unit_test_eloop_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_eloop_LDADD = irnet/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_serial
tests_unit_test_serial_SOURCES = tests/unit/test_serial.c
tests_unit_test_serial_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_serial_LDADD = irnet/libirnet.la $(UNIT_LIBS)

# Parsers of outside data in the port layer: lock files, sysfs links.
FUZZERS += tests/fuzz/fuzz_uucplock tests/fuzz/fuzz_serial_sysfs
tests_fuzz_fuzz_uucplock_SOURCES = tests/fuzz/fuzz_uucplock.c
tests_fuzz_fuzz_uucplock_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_uucplock_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_serial_sysfs_SOURCES = tests/fuzz/fuzz_serial_sysfs.c
tests_fuzz_fuzz_serial_sysfs_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_serial_sysfs_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

BENCHMARKS += tests/bench/bench_port
noinst_PROGRAMS += tests/bench/bench_port
tests_bench_bench_port_SOURCES = tests/bench/bench_port.c
tests_bench_bench_port_LDADD = irnet/libirnet.la

UNIT_TESTS += tests/unit/test_station
tests_unit_test_station_SOURCES = tests/unit/test_station.c
tests_unit_test_station_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_station_LDADD = irnet/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_path_watch
tests_unit_test_path_watch_SOURCES = tests/unit/test_path_watch.c
tests_unit_test_path_watch_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_path_watch_LDADD = irnet/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_privdrop
tests_unit_test_privdrop_SOURCES = tests/unit/test_privdrop.c
tests_unit_test_privdrop_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_privdrop_LDADD = irnet/libirnet.la $(UNIT_LIBS)

# The stack glue for programs (station + IrLMP + IAS; see docs/irnet-host.md).
irnet_libirnet_la_SOURCES += irnet/host/stack.c irnet/host/stack.h
UNIT_TESTS += tests/unit/test_stack_rt
tests_unit_test_stack_rt_SOURCES = tests/unit/test_stack_rt.c tests/unit/stack_pair.c \
	tests/unit/stack_pair.h
tests_unit_test_stack_rt_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_stack_rt_LDADD = irnet/libirnet.la $(UNIT_LIBS)


# The libusb host adapter for the USB dongle cores (docs/irnet-usb.md):
# the project's only libusb caller, in its own convenience library so
# that libusb's and irnet/usb's include paths reach nothing else.
noinst_LTLIBRARIES += irnet/host/libirnet_usbhost.la
irnet_host_libirnet_usbhost_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/irnet/usb
irnet_host_libirnet_usbhost_la_CFLAGS = $(AM_CFLAGS) $(LIBUSB_CFLAGS)
irnet_host_libirnet_usbhost_la_SOURCES = irnet/host/usb_host.c irnet/host/usb_host.h \
	irnet/host/usb_line.c irnet/host/usb_line.h
irnet_libirnet_la_LIBADD += irnet/host/libirnet_usbhost.la $(LIBUSB_LIBS)

UNIT_TESTS += tests/unit/test_usb_host
tests_unit_test_usb_host_SOURCES = tests/unit/test_usb_host.c
tests_unit_test_usb_host_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/irnet/usb
tests_unit_test_usb_host_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_host_LDADD = irnet/libirnet.la $(UNIT_LIBS)
# The adapter with the real libusb against the MCS7780 device model behind
# umockdev's usbfs emulation (the test re-executes itself under
# umockdev-wrapper).
if HAVE_UMOCKDEV
UNIT_TESTS += tests/unit/test_usb_host_umockdev
tests_unit_test_usb_host_umockdev_SOURCES = tests/unit/test_usb_host_umockdev.c
tests_unit_test_usb_host_umockdev_CPPFLAGS = $(USB_TEST_CPPFLAGS) $(UMOCKDEV_CFLAGS)
tests_unit_test_usb_host_umockdev_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_host_umockdev_LDADD = irnet/sim/libirnet_usbumockdev.la irnet/libirnet.la \
	$(UMOCKDEV_LIBS) $(UNIT_LIBS) -lpthread
endif
