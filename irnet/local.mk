# irnet/: the userspace IrDA stack, one folder per tier (docs/README.md):
#   irnet/core/    sans-I/O protocol cores (libirnet_core.la): sir, irlap,
#                  qos, irlmp, ias, ttp, ircomm, ppp_hdlc, pcap format
#   irnet/dongle/  serial dongle drivers (speed-change scripts)
#   irnet/usb/     USB dongle family cores (sans-I/O: transfers in and out)
#   irnet/host/    fds and clocks: eloop, serial port, lock, station,
#                  stack glue, privilege drop, capture files
#   irnet/sim/     emulated wire, two-station simulator, mock port
#   irnet/api/     irdad's local API: the control messages (sans-I/O)
#   irnet/daemon/  irdad: its configuration (irdad.conf, options)
#   irnet/tools/   the programs (irwire, irdiscover, irspray)
#   irnet/irsock/  libirsock.so (AF_IRDA over irdad) and irsock(1)
# A tier may use the tiers above it in this list, never one below; the
# cores use nothing but common/.  libirnet.la is the whole stack.
noinst_LTLIBRARIES += irnet/libirnet.la
irnet_libirnet_la_SOURCES =
irnet_libirnet_la_LIBADD = irnet/core/libirnet_core.la common/libcommon.la
# irnet/core/irlap_size.c weighs loss rates with exp/log/pow.
irnet_libirnet_la_LIBADD += -lm

include irnet/core/local.mk
include irnet/dongle/local.mk
include irnet/usb/local.mk
include irnet/host/local.mk
include irnet/sim/local.mk
include irnet/api/local.mk
include irnet/daemon/local.mk
include irnet/tools/local.mk
include irnet/irsock/local.mk
