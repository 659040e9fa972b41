# irnet/irsock/: AF_IRDA for unmodified programs (docs/irsock.md):
# libirsock.so, preloaded, implements the socket calls over irdad's local
# API, and the wrapper irsock(1) preloads it.
#
# The library goes into arbitrary programs, so it carries its own copy of
# the client library and the codec, compiled here without the sanitizer
# flags (an ASan-instrumented preload library cannot load into a program
# that is not), with hidden symbols except the calls it interposes.
pkglib_LTLIBRARIES = irnet/irsock/libirsock.la
irnet_irsock_libirsock_la_SOURCES = irnet/irsock/irsock.c irnet/irsock/irsock_abi.h irnet/irsock/linux/irda.h \
	irnet/irsock/irsock_conv.c irnet/irsock/irsock_conv.h \
	irnet/api/irnet_client.c irnet/api/irnet_client.h \
	irnet/api/irdad_msg.c irnet/api/irdad_msg.h irnet/api/fdpass.c irnet/api/fdpass.h \
	irnet/api/port_name.c irnet/api/port_name.h \
	common/cursor.c common/cursor.h common/log.c common/log.h \
	common/array.c common/array.h
irnet_irsock_libirsock_la_CPPFLAGS = -include $(top_builddir)/config.h \
	-I$(top_srcdir)/common -I$(top_srcdir)/irnet/api -I$(top_srcdir)/irnet/irsock
# (not $(AM_CFLAGS): that carries the sanitizer flags, see above)
irnet_irsock_libirsock_la_CFLAGS = $(IRNET_CFLAGS) -fvisibility=hidden -pthread
irnet_irsock_libirsock_la_LDFLAGS = -module -avoid-version -shared -no-undefined -pthread
irnet_irsock_libirsock_la_LIBADD = -ldl

# The development kit (man irsock, "Building AF_IRDA software"): the
# header as $(includedir)/irnet-tools/linux/irda.h (never in
# /usr/include/linux, which linux-libc-dev owns) and irsock.pc, whose
# --cflags put that directory on the include path and whose --libs link
# libirsock.so for builders who want no preload.  irsock.pc is made at
# make time, so it names the directories make installs into; they are
# written relative to ${prefix} where they lie below it, so that
# `pkg-config --define-variable=prefix=DIR` finds a copy installed with
# DESTDIR (tests/clients/irsock-kit.sh).
irsockincludedir = $(includedir)/irnet-tools/linux
irsockinclude_HEADERS = irnet/irsock/linux/irda.h
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = irnet/irsock/irsock.pc
EXTRA_DIST += irnet/irsock/irsock.pc.in
CLEANFILES += irnet/irsock/irsock.pc
irnet/irsock/irsock.pc: $(srcdir)/irnet/irsock/irsock.pc.in Makefile
	$(AM_V_GEN)rel() { case "$$1" in "$(prefix)"/*) printf '%s' "\$${prefix}$${1#"$(prefix)"}";; *) printf '%s' "$$1";; esac; }; \
	$(MKDIR_P) irnet/irsock && \
	$(SED) -e 's|@prefix[@]|$(prefix)|g' \
		-e "s|@includedir[@]|$$(rel '$(includedir)')|g" \
		-e "s|@pkglibdir[@]|$$(rel '$(pkglibdir)')|g" \
		-e 's|@VERSION[@]|$(VERSION)|g' \
		$(srcdir)/irnet/irsock/irsock.pc.in >$@.tmp && mv $@.tmp $@

bin_PROGRAMS += irnet/irsock/irsock
irnet_irsock_irsock_SOURCES = irnet/irsock/irsock_main.c
irnet_irsock_irsock_CPPFLAGS = $(AM_CPPFLAGS) -DIRSOCK_LIBRARY='"$(pkglibdir)/libirsock.so"'

# The classic-API test program (tests/irsock-api.sh): it includes nothing
# of the tree, and is built without the sanitizer flags, since it runs
# with libirsock.so preloaded.
noinst_PROGRAMS += tests/irsock_classic
tests_irsock_classic_SOURCES = tests/irsock_classic.c
tests_irsock_classic_CPPFLAGS =
tests_irsock_classic_CFLAGS = $(IRNET_CFLAGS)
tests_irsock_classic_LDFLAGS =

# IAS through irsock by a program with Linux's irda_ias_set layout
# declared by itself (tests/irsock-ias.sh), built like irsock_classic.
noinst_PROGRAMS += tests/irsock_ias
tests_irsock_ias_SOURCES = tests/irsock_ias.c
tests_irsock_ias_CPPFLAGS =
tests_irsock_ias_CFLAGS = $(IRNET_CFLAGS)
tests_irsock_ias_LDFLAGS =

# Over two irdad on irwire in real time (about 40 s and 60 s).
TESTS += tests/irsock-api.sh tests/irsock-ircp.sh tests/irsock-ias.sh
# the 1 MiB echo of the issue: about 200 s of real time, little CPU
TESTS += tests/irsock-echo.sh
EXTRA_DIST += tests/irsock-lib.sh
EXTRA_DIST += tests/irsock_obex_check.py

dist_man_MANS += man/irsock.1

# make bench: irsock against irspray owning the port, and ircp's rate
BENCHMARKS += tests/irsock-bench.sh
EXTRA_DIST += tests/irsock-bench.sh

UNIT_TESTS += tests/unit/test_irsock_conv
tests_unit_test_irsock_conv_SOURCES = tests/unit/test_irsock_conv.c irnet/irsock/irsock_conv.c
tests_unit_test_irsock_conv_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/irnet/irsock
tests_unit_test_irsock_conv_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irsock_conv_LDADD = $(UNIT_LIBS)
