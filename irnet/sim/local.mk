# irnet/sim/: emulation, in process and on a virtual clock: the emulated
# wire, the two-station IrLAP simulator, and the mock serial port that
# records every call.  See docs/irnet-phy.md and docs/irnet-irlap.md.
irnet_libirnet_la_SOURCES += \
	irnet/sim/wire.c irnet/sim/wire.h \
	irnet/sim/sim.c irnet/sim/sim.h \
	irnet/sim/mockport.c irnet/sim/mockport.h

UNIT_TESTS += tests/unit/test_wire
tests_unit_test_wire_SOURCES = tests/unit/test_wire.c
tests_unit_test_wire_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_wire_LDADD = irnet/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_irlap_capture tests/unit/test_sim tests/unit/test_sim_faults
tests_unit_test_irlap_capture_SOURCES = tests/unit/test_irlap_capture.c
tests_unit_test_irlap_capture_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_irlap_capture_LDADD = irnet/libirnet.la $(UNIT_LIBS)
tests_unit_test_sim_SOURCES = tests/unit/test_sim.c
tests_unit_test_sim_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sim_LDADD = irnet/libirnet.la $(UNIT_LIBS)
tests_unit_test_sim_faults_SOURCES = tests/unit/test_sim.c
tests_unit_test_sim_faults_CFLAGS = $(UNIT_CFLAGS) -DSIM_FAULTS
tests_unit_test_sim_faults_LDADD = irnet/libirnet.la $(UNIT_LIBS)

# tshark checks a whole simulated session.
check_PROGRAMS += tests/irlap-session
tests_irlap_session_SOURCES = tests/irlap-session.c
tests_irlap_session_LDADD = irnet/libirnet.la
TESTS += tests/irlap-tshark.tap
EXTRA_DIST += tests/irlap-tshark.tap

BENCHMARKS += tests/bench/bench_irlap tests/bench/bench_irlap_ber
noinst_PROGRAMS += tests/bench/bench_irlap tests/bench/bench_irlap_ber
tests_bench_bench_irlap_SOURCES = tests/bench/bench_irlap.c
tests_bench_bench_irlap_LDADD = irnet/libirnet.la
tests_bench_bench_irlap_ber_SOURCES = tests/bench/bench_irlap_ber.c
tests_bench_bench_irlap_ber_LDADD = irnet/libirnet.la -lm

# Link set-up time (discovery, SNRM/UA, the first poll at the new rate)
# in virtual time: the scenario is shared by the test and the benchmark.
noinst_HEADERS += tests/unit/linkup_sim.h
BENCHMARKS += tests/bench/bench_linkup
noinst_PROGRAMS += tests/bench/bench_linkup
tests_bench_bench_linkup_SOURCES = tests/bench/bench_linkup.c
tests_bench_bench_linkup_LDADD = irnet/libirnet.la
UNIT_TESTS += tests/unit/test_linkup
tests_unit_test_linkup_SOURCES = tests/unit/test_linkup.c
tests_unit_test_linkup_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_linkup_LDADD = irnet/libirnet.la $(UNIT_LIBS)

# Reliability (issue 16, docs/reliability.md): two whole stations with
# every service open, checked data both ways (tests/unit/rel_world.c).
# test_soak: 30 virtual minutes of faults in `check`; `make soak
# SOAK_MINUTES=N` for longer.  test_hostile: a hostile peer's frames
# beside the legitimate traffic, heap counted by wrapping the allocator.
REL_WORLD_SOURCES = tests/unit/rel_world.c tests/unit/rel_world.h
UNIT_TESTS += tests/unit/test_soak
tests_unit_test_soak_SOURCES = tests/unit/test_soak.c $(REL_WORLD_SOURCES)
tests_unit_test_soak_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_soak_LDADD = irnet/libirnet.la $(UNIT_LIBS)

SOAK_MINUTES = 240
HOSTILE_FRAMES = 1000000
soak: tests/unit/test_soak tests/unit/test_hostile
	SOAK_MINUTES=$(SOAK_MINUTES) ./tests/unit/test_soak
	HOSTILE_FRAMES=$(HOSTILE_FRAMES) ./tests/unit/test_hostile
.PHONY: soak

UNIT_TESTS += tests/unit/test_hostile
tests_unit_test_hostile_SOURCES = tests/unit/test_hostile.c $(REL_WORLD_SOURCES) \
	tests/unit/heap_count.c tests/unit/heap_count.h
tests_unit_test_hostile_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_hostile_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=malloc -Wl,--wrap=calloc \
	-Wl,--wrap=realloc -Wl,--wrap=free
tests_unit_test_hostile_LDADD = irnet/libirnet.la $(UNIT_LIBS)

# USB device models (docs/irnet-usb.md): the MCS7780 and a Bridge class
# device behind setup packets and bulk transfers, with an optical side,
# for the host adapter's tests and irusb-emu.
irnet_libirnet_la_SOURCES += irnet/sim/usb_model.c irnet/sim/usb_model.h
noinst_LTLIBRARIES += irnet/sim/libirnet_usbmodel.la
irnet_sim_libirnet_usbmodel_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/irnet/usb
irnet_sim_libirnet_usbmodel_la_SOURCES = irnet/sim/usb_model_mcs7780.c \
	irnet/sim/usb_model_irda_class.c irnet/sim/usb_model_stir4200.c \
	irnet/sim/usb_model_ksdazzle.c irnet/sim/usb_model_kingsun.c \
	irnet/sim/usb_model_ks959.c
irnet_libirnet_la_LIBADD += irnet/sim/libirnet_usbmodel.la

UNIT_TESTS += tests/unit/test_usb_model_mcs7780
tests_unit_test_usb_model_mcs7780_SOURCES = tests/unit/test_usb_model_mcs7780.c \
	tests/unit/usb_model_bench.h
tests_unit_test_usb_model_mcs7780_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_unit_test_usb_model_mcs7780_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_model_mcs7780_LDADD = irnet/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_usb_model_irda_class
tests_unit_test_usb_model_irda_class_SOURCES = tests/unit/test_usb_model_irda_class.c \
	tests/unit/usb_model_bench.h
tests_unit_test_usb_model_irda_class_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_unit_test_usb_model_irda_class_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_model_irda_class_LDADD = irnet/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_usb_model_stir4200
tests_unit_test_usb_model_stir4200_SOURCES = tests/unit/test_usb_model_stir4200.c \
	tests/unit/usb_model_bench.h
tests_unit_test_usb_model_stir4200_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_unit_test_usb_model_stir4200_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_model_stir4200_LDADD = irnet/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_usb_model_ks959
tests_unit_test_usb_model_ks959_SOURCES = tests/unit/test_usb_model_ks959.c \
	tests/unit/usb_model_bench.h
tests_unit_test_usb_model_ks959_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_unit_test_usb_model_ks959_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_model_ks959_LDADD = irnet/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_usb_model_ksdazzle
tests_unit_test_usb_model_ksdazzle_SOURCES = tests/unit/test_usb_model_ksdazzle.c
tests_unit_test_usb_model_ksdazzle_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_unit_test_usb_model_ksdazzle_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_model_ksdazzle_LDADD = irnet/libirnet.la $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_usb_model_kingsun
tests_unit_test_usb_model_kingsun_SOURCES = tests/unit/test_usb_model_kingsun.c
tests_unit_test_usb_model_kingsun_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_unit_test_usb_model_kingsun_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usb_model_kingsun_LDADD = irnet/libirnet.la $(UNIT_LIBS)

# The model behind umockdev's usbfs emulation (usb_umockdev.h), for the
# host adapter's test and irusb-emu; its own library, so that umockdev's
# and GLib's flags reach nothing else.
if HAVE_UMOCKDEV
noinst_LTLIBRARIES += irnet/sim/libirnet_usbumockdev.la
irnet_sim_libirnet_usbumockdev_la_CPPFLAGS = $(AM_CPPFLAGS) $(UMOCKDEV_CFLAGS)
irnet_sim_libirnet_usbumockdev_la_SOURCES = irnet/sim/usb_umockdev.c irnet/sim/usb_umockdev.h
irnet_sim_libirnet_usbumockdev_la_LIBADD = $(UMOCKDEV_LIBS) -lpthread
endif
