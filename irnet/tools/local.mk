# irnet/tools/: the programs users run (irwire, irdiscover, irspray), the
# command line and start-up they share (hostcli), and their tests.
# See docs/irnet-host.md.

# The command line and start-up the host programs share (hostcli.h).
noinst_LTLIBRARIES += irnet/tools/libhostcli.la
irnet_tools_libhostcli_la_SOURCES = irnet/tools/hostcli.c irnet/tools/hostcli.h
irnet_tools_libhostcli_la_LIBADD = irnet/api/libirnet_client.la

bin_PROGRAMS += irnet/tools/irdiscover
irnet_tools_irdiscover_SOURCES = irnet/tools/irdiscover.c
irnet_tools_irdiscover_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
irnet_tools_irdiscover_LDADD = irnet/tools/libhostcli.la irnet/libirnet.la $(JSONC_LIBS)
dist_man_MANS += man/irdiscover.1
TESTS += tests/irdiscover-irwire.sh tests/hostcli-usage.sh
TESTS += tests/station-speed-switch.sh
EXTRA_DIST += tests/station-lib.sh tests/usb-emu-lib.sh

bin_PROGRAMS += irnet/tools/irspray
irnet_tools_irspray_SOURCES = irnet/tools/irspray.c irnet/tools/spray_xfer.c \
	irnet/tools/spray_xfer.h irnet/tools/irspray_daemon.c irnet/tools/tool_signals.h
irnet_tools_irspray_LDADD = irnet/tools/libhostcli.la irnet/libirnet.la
dist_man_MANS += man/irspray.1
TESTS += tests/irspray-irwire.sh tests/irspray-turnaround.sh

# The sanitizer build (make check-unit in build-asan/) runs the programs
# in real time too, with the seccomp filter on: a sanitizer report from
# either process fails the test (about 25 s at -j2).
SANITIZER_TESTS += tests/irdiscover-irwire.sh tests/irspray-irwire.sh tests/irspray-turnaround.sh \
	tests/station-speed-switch.sh

# `make bench`: irspray against the raw irwire line (tests/irspray-bench.sh).
BENCHMARKS += tests/irspray-bench.sh
EXTRA_DIST += tests/irspray-bench.sh
bench: irnet/tools/irspray irnet/tools/irwire

# `make bench`: link set-up time over irwire (tests/linkup-irwire-bench.sh).
BENCHMARKS += tests/linkup-irwire-bench.sh
EXTRA_DIST += tests/linkup-irwire-bench.sh

bin_PROGRAMS += irnet/tools/irwire
irnet_tools_irwire_SOURCES = irnet/tools/irwire.c
irnet_tools_irwire_LDADD = irnet/libirnet.la
# The man page is installed and linted (tests/man-lint.tap) like every
# page in man/.
dist_man_MANS += man/irwire.1
TESTS += tests/irwire.sh tests/irwire-latency.sh
EXTRA_DIST += tests/irwire.sh tests/irwire_rig.py

# irusb-emu: an emulated MCS7780 USB dongle (umockdev) for a real program,
# its infrared side on a serial port such as irwire's (docs/irnet-usb.md).
if HAVE_UMOCKDEV
bin_PROGRAMS += irnet/tools/irusb-emu
irnet_tools_irusb_emu_SOURCES = irnet/tools/irusb-emu.c
irnet_tools_irusb_emu_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/irnet/usb $(UMOCKDEV_CFLAGS)
irnet_tools_irusb_emu_LDADD = irnet/sim/libirnet_usbumockdev.la irnet/libirnet.la \
	$(UMOCKDEV_LIBS) -lpthread
dist_man_MANS += man/irusb-emu.1
# The probe: a small libusb program through usb_host that sends one XID
# and prints the answer (tests/usb-emu.sh).
check_PROGRAMS += tests/usb_emu_probe
tests_usb_emu_probe_SOURCES = tests/usb_emu_probe.c
tests_usb_emu_probe_CPPFLAGS = $(USB_TEST_CPPFLAGS)
tests_usb_emu_probe_LDADD = irnet/libirnet.la
# `make bench`: the programs on the emulated dongle against the same on
# serial ptys: irspray's rate, the link's return after a replug, irdad's
# CPU (tests/usb-bench.sh).
BENCHMARKS += tests/usb-bench.sh
# (irusb-emu: built by make, a bench: rule cannot sit inside the if)
endif
EXTRA_DIST += tests/usb-bench.sh
TESTS += tests/usb-emu.sh tests/irdad-usb.sh tests/irdad-usb-models.sh tests/usb-families.tap
EXTRA_DIST += tests/usb-emu.sh tests/irdad-usb.sh tests/irdad-usb-models.sh tests/usb-families.tap
# In the sanitizer build too: irusb-emu, the probe and the stations under
# ASan+UBSan (irusb-emu turns the preload's link-order check off).
SANITIZER_TESTS += tests/usb-emu.sh tests/usb-families.tap

# irdad: the daemon of one port (docs/irdad-api.md).
sbin_PROGRAMS += irnet/tools/irdad
irnet_tools_irdad_SOURCES = irnet/tools/irdad.c
irnet_tools_irdad_LDADD = irnet/tools/libhostcli.la irnet/daemon/libirdad.la \
	irnet/daemon/libirdad_config.la
dist_man_MANS += man/irdad.8
# Two daemons over irwire, their API driven by an independent Python
# implementation of docs/irdad-api.md; also under ASan (a leak or an
# error in the daemon fails it).
TESTS += tests/irdad-api.sh tests/irdad-reload.sh tests/irdad-irnet.sh tests/irdad-ircomm.sh \
	tests/irdad-mixed.sh
# the port unplugged and plugged back under a stream (docs/irdad.md)
TESTS += tests/irdad-unplug.sh
# a replugged port that is there but cannot be reopened (a lock): retried;
# in the sanitizer build too (8 s: the opener's own filter under ASan)
TESTS += tests/irdad-unplug-retry.sh
SANITIZER_TESTS += tests/irdad-unplug-retry.sh
# the port opener killed: irdad collects it, says so, reopens unprivileged;
# in the sanitizer build too (the SIGCHLD path under ASan's runtime)
TESTS += tests/irdad-opener-exit.sh
SANITIZER_TESTS += tests/irdad-opener-exit.sh
# the pty links in a directory of root's: removed at the end by the opener;
# in the sanitizer build too (the opener's unlink under ASan's runtime)
TESTS += tests/irdad-ptylink.sh
SANITIZER_TESTS += tests/irdad-ptylink.sh
EXTRA_DIST += tests/irdad_unplug_test.py
EXTRA_DIST += tests/irdad_client.py tests/irdad_api_test.py tests/irdad_irnet_test.py \
	tests/irdad_ircomm_test.py tests/phone_emu.py tests/irdad_mixed_test.py
SANITIZER_TESTS += tests/irdad-api.sh tests/irdad-reload.sh tests/irdad-irnet.sh
# ATTACH: an IrNET endpoint inside irdad on a client's descriptors (the
# pppd plugin's way when irdad already owns the port).
TESTS += tests/irdad-attach.sh
EXTRA_DIST += tests/irdad_attach_test.py
SANITIZER_TESTS += tests/irdad-attach.sh
# MODE lmp (plain IrLMP) between two daemons, and its capture in tshark.
TESTS += tests/irdad-lmp.sh
EXTRA_DIST += tests/irdad_lmp_test.py
SANITIZER_TESTS += tests/irdad-lmp.sh
# A lookup made right after a link ended, while the peer discovers (issue 23).
TESTS += tests/irdad-relink.sh
EXTRA_DIST += tests/irdad_relink_test.py
# IrCOMM 3-wire raw pty to pty between two daemons, and the 9-wire fallback.
TESTS += tests/irdad-ircomm-raw.sh
# irdad --stdio --service ircomm (the pppd plugin's IrCOMM helper) against
# an [ircomm] listener, and two helpers on socketpairs (about 46 s); under
# ASan too.
TESTS += tests/irdad-ircomm-stdio.sh
EXTRA_DIST += tests/irdad_ircomm_stdio_test.py
SANITIZER_TESTS += tests/irdad-ircomm-stdio.sh
# make bench: how soon the listening end of an --stdio pair exits after the
# caller's end (IrNET and IrCOMM), about 10 s.
BENCHMARKS += tests/irdad-stdio-end-bench.sh
EXTRA_DIST += tests/irdad-stdio-end-bench.sh

# irdactl: irdad's state through its API; only the client library.
bin_PROGRAMS += irnet/tools/irdactl
irnet_tools_irdactl_SOURCES = irnet/tools/irdactl.c irnet/tools/tool_signals.h
irnet_tools_irdactl_CPPFLAGS = -include $(top_builddir)/config.h \
	-I$(top_srcdir)/common -I$(top_srcdir)/irnet/api
irnet_tools_irdactl_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
irnet_tools_irdactl_LDADD = irnet/api/libirnet_client.la $(JSONC_LIBS)
dist_man_MANS += man/irdactl.1
# irdactl, irdiscover --daemon and irspray --daemon against two irdad over
# irwire (about 40 s); under ASan too.
TESTS += tests/irdad-tools.sh
SANITIZER_TESTS += tests/irdad-tools.sh
EXTRA_DIST += tests/irdad-tools.sh

# `make bench`: irspray through irdad against irspray owning the port, and
# irdad's CPU per MiB (tests/irdad-bench.sh).
BENCHMARKS += tests/irdad-bench.sh tests/irdad-endpoints-bench.sh
EXTRA_DIST += tests/irdad-bench.sh tests/irdad-endpoints-bench.sh
# Not run by make: attaches perf or strace to the irdad of irdad-bench's
# stream case (docs/irdad.md, "Where irdad's CPU goes").
EXTRA_DIST += tests/irdad-profile.sh
bench: irnet/tools/irspray irnet/tools/irwire irnet/tools/irdad
