# irnet/usb/: one sans-I/O core per USB IrDA dongle family and the shape
# they share (usb_dongle.h; docs/irnet-usb.md).  Like the protocol cores
# they are compiled with only common/, irnet/core/ and irnet/usb/ on the
# include path, so a family core cannot reach a host header (libusb
# included); tests/layering.tap checks the calls their objects make.
noinst_LTLIBRARIES += irnet/usb/libirnet_usb.la
irnet_usb_libirnet_usb_la_CPPFLAGS = -include $(top_builddir)/config.h \
	-I$(top_srcdir)/common -I$(top_srcdir)/irnet/core -I$(top_srcdir)/irnet/usb
irnet_usb_libirnet_usb_la_SOURCES = \
	irnet/usb/usb_dongle.c irnet/usb/usb_dongle.h \
	irnet/usb/mcs7780.c irnet/usb/mcs7780.h \
	irnet/usb/stir4200.c irnet/usb/stir4200.h \
	irnet/usb/irda_class.c irnet/usb/irda_class.h \
	irnet/usb/kingsun.c irnet/usb/kingsun.h \
	irnet/usb/stir421x.c irnet/usb/stir421x.h \
	irnet/usb/usb_name.c irnet/usb/usb_name.h
irnet_libirnet_la_LIBADD += irnet/usb/libirnet_usb.la

USB_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/irnet/usb

UNIT_TESTS += tests/unit/test_usb_mcs7780
tests_unit_test_usb_mcs7780_SOURCES = tests/unit/test_usb_mcs7780.c tests/unit/usb_rec.h
tests_unit_test_usb_mcs7780_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_unit_test_usb_mcs7780_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_mcs7780_LDADD = irnet/libirnet.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_usb_mcs7780
tests_fuzz_fuzz_usb_mcs7780_SOURCES = tests/fuzz/fuzz_usb_mcs7780.c
tests_fuzz_fuzz_usb_mcs7780_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_fuzz_fuzz_usb_mcs7780_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_usb_mcs7780_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

UNIT_TESTS += tests/unit/test_usb_stir4200
tests_unit_test_usb_stir4200_SOURCES = tests/unit/test_usb_stir4200.c tests/unit/usb_rec.h
tests_unit_test_usb_stir4200_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_unit_test_usb_stir4200_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_stir4200_LDADD = irnet/libirnet.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_usb_stir4200
tests_fuzz_fuzz_usb_stir4200_SOURCES = tests/fuzz/fuzz_usb_stir4200.c
tests_fuzz_fuzz_usb_stir4200_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_fuzz_fuzz_usb_stir4200_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_usb_stir4200_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

FUZZERS += tests/fuzz/fuzz_usb_stir4200_duplex
tests_fuzz_fuzz_usb_stir4200_duplex_SOURCES = tests/fuzz/fuzz_usb_stir4200_duplex.c
tests_fuzz_fuzz_usb_stir4200_duplex_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_fuzz_fuzz_usb_stir4200_duplex_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_usb_stir4200_duplex_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

UNIT_TESTS += tests/unit/test_usb_irda_class
tests_unit_test_usb_irda_class_SOURCES = tests/unit/test_usb_irda_class.c tests/unit/usb_rec.h
tests_unit_test_usb_irda_class_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_unit_test_usb_irda_class_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_irda_class_LDADD = irnet/libirnet.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_usb_irda_class
tests_fuzz_fuzz_usb_irda_class_SOURCES = tests/fuzz/fuzz_usb_irda_class.c
tests_fuzz_fuzz_usb_irda_class_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_fuzz_fuzz_usb_irda_class_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_usb_irda_class_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

UNIT_TESTS += tests/unit/test_usb_name
tests_unit_test_usb_name_SOURCES = tests/unit/test_usb_name.c
tests_unit_test_usb_name_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_unit_test_usb_name_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_name_LDADD = irnet/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_usb_kingsun
tests_unit_test_usb_kingsun_SOURCES = tests/unit/test_usb_kingsun.c tests/unit/usb_rec.h
tests_unit_test_usb_kingsun_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_unit_test_usb_kingsun_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_kingsun_LDADD = irnet/libirnet.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_usb_kingsun
tests_fuzz_fuzz_usb_kingsun_SOURCES = tests/fuzz/fuzz_usb_kingsun.c
tests_fuzz_fuzz_usb_kingsun_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_fuzz_fuzz_usb_kingsun_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_usb_kingsun_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

UNIT_TESTS += tests/unit/test_usb_stir421x
tests_unit_test_usb_stir421x_SOURCES = tests/unit/test_usb_stir421x.c
tests_unit_test_usb_stir421x_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_unit_test_usb_stir421x_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_stir421x_LDADD = irnet/libirnet.la $(UNIT_LIBS)

FUZZERS += tests/fuzz/fuzz_usb_stir421x_fw
tests_fuzz_fuzz_usb_stir421x_fw_SOURCES = tests/fuzz/fuzz_usb_stir421x_fw.c
tests_fuzz_fuzz_usb_stir421x_fw_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_fuzz_fuzz_usb_stir421x_fw_LDADD = irnet/libirnet.la $(FUZZ_MAIN)
tests_fuzz_fuzz_usb_stir421x_fw_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
