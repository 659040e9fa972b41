# irnet/port.mk: the event loop, the serial port, the dongle drivers.
# See docs/irnet-port.md.
irnet_lib_libirnet_la_SOURCES += \
	irnet/lib/eloop.c irnet/lib/eloop.h

UNIT_TESTS += tests/unit/test_eloop
tests_unit_test_eloop_SOURCES = tests/unit/test_eloop.c
tests_unit_test_eloop_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_eloop_LDADD = irnet/lib/libirnet.la $(UNIT_LIBS)
