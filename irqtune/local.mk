# irqtune/: serial interrupt tuning (irqtune(8), irqtune.conf(5)).
#
# libirqtune holds everything that decides (discovery, inspection, the
# policy, plans, the state file, the 8259); the program adds the command
# line and the output.  Tests link the library with their own
# struct irqtune_sys.
noinst_LTLIBRARIES += irqtune/libirqtune.la
irqtune_libirqtune_la_SOURCES = \
	irqtune/sys.h irqtune/sys_real.c \
	irqtune/procfs.h irqtune/procfs.c \
	irqtune/port.h irqtune/port.c \
	irqtune/discover.h irqtune/discover.c \
	irqtune/conf.h irqtune/conf.c \
	irqtune/state.h irqtune/state.c \
	irqtune/plan.h irqtune/plan.c \
	irqtune/pic.h irqtune/pic.c
irqtune_libirqtune_la_CFLAGS = $(AM_CFLAGS) $(UDEV_CFLAGS)
irqtune_libirqtune_la_LIBADD = common/libcommon.la $(UDEV_LIBS)

sbin_PROGRAMS += irqtune/irqtune
irqtune_irqtune_SOURCES = irqtune/irqtune.c irqtune/report.h irqtune/report.c
irqtune_irqtune_CFLAGS = $(AM_CFLAGS) $(UDEV_CFLAGS) $(JSONC_CFLAGS)
irqtune_irqtune_LDADD = irqtune/libirqtune.la $(JSONC_LIBS) $(UDEV_LIBS)
