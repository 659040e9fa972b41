# pppd-plugin/: irnet.so, loaded by pppd $(PPPD_VERSION).  pppd refuses a
# plugin built for another version, so it installs into a directory named
# after the version (configure --with-pppd-plugin-dir overrides it).
pppdplugindir = $(PPPD_PLUGIN_DIR)

# irnet.so: pppd_compat.h is the only file that sees pppd's headers;
# irnet_helper.c (the helper's command line and status lines) has no
# pppd in it and is unit-tested on its own (tests/unit/test_irnet_helper).
pppdplugin_LTLIBRARIES = pppd-plugin/irnet.la
# usb_name.c (pure) checks a USB dongle's name as the option is read.
pppd_plugin_irnet_la_SOURCES = pppd-plugin/irnet_plugin.c pppd-plugin/pppd_compat.h \
	pppd-plugin/irnet_helper.c pppd-plugin/irnet_helper.h irnet/usb/usb_name.c
pppd_plugin_irnet_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/irnet/usb $(PPPD_CFLAGS) \
	-DIRNET_PPPD_API=$(PPPD_API) \
	-DIRNET_IRDAD_PATH='"$(sbindir)/irdad"'
# pppd looks up two symbols; the client library's (with common/) stay inside.
pppd_plugin_irnet_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^(plugin_init|pppd_version)$$'
pppd_plugin_irnet_la_LIBADD = irnet/api/libirnet_client.la

UNIT_TESTS += tests/unit/test_irnet_helper
tests_unit_test_irnet_helper_SOURCES = tests/unit/test_irnet_helper.c \
	pppd-plugin/irnet_helper.c pppd-plugin/irnet_helper.h
tests_unit_test_irnet_helper_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/pppd-plugin
tests_unit_test_irnet_helper_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irnet_helper_LDADD = common/libcommon.la $(UNIT_LIBS)

dist_man_MANS += man/irnet.8
# The example options file (irnet(8), FILES).
pppconfdir = $(sysconfdir)/ppp
dist_pppconf_DATA = pppd-plugin/options.irnet
EXTRA_DIST += tests/irnet_capture_compare.py
