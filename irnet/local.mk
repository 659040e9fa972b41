# irnet/: the userspace IrDA stack.
#   irnet/lib/    libirnet: the sans-I/O protocol cores, the event loop,
#                 the serial port, the emulated wire
#   irnet/tools/  the programs users run (irwire, irdiscover, irspray ...)
# Each layer group keeps its rules in its own fragment and appends its
# sources to libirnet.
noinst_LTLIBRARIES += irnet/lib/libirnet.la
irnet_lib_libirnet_la_SOURCES =
irnet_lib_libirnet_la_LIBADD = common/libcommon.la

include irnet/phy.mk
include irnet/irlap.mk
include irnet/port.mk
include irnet/lmp.mk
include irnet/host.mk
include irnet/ircomm.mk
include irnet/ppp.mk
