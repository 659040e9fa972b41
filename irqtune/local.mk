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
	irqtune/pic.h irqtune/pic.c \
	irqtune/run.h irqtune/run.c
irqtune_libirqtune_la_CFLAGS = $(AM_CFLAGS) $(UDEV_CFLAGS)
irqtune_libirqtune_la_LIBADD = common/libcommon.la $(UDEV_LIBS)

sbin_PROGRAMS += irqtune/irqtune
irqtune_irqtune_SOURCES = irqtune/irqtune.c irqtune/report.h irqtune/report.c
irqtune_irqtune_CFLAGS = $(AM_CFLAGS) $(UDEV_CFLAGS) $(JSONC_CFLAGS)
irqtune_irqtune_LDADD = irqtune/libirqtune.la $(JSONC_LIBS) $(UDEV_LIBS)

# Unit tests: the parsers, the policy, the state file, and apply/restore
# against an in-memory system (tests/unit/test_irqtune_fake.c).
IRQTUNE_UNIT_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/irqtune
IRQTUNE_UNIT_LDADD = irqtune/libirqtune.la $(UNIT_LIBS)
UNIT_TESTS += tests/unit/test_irqtune_procfs tests/unit/test_irqtune_conf \
	tests/unit/test_irqtune_state tests/unit/test_irqtune_plan
tests_unit_test_irqtune_procfs_SOURCES = tests/unit/test_irqtune_procfs.c
tests_unit_test_irqtune_procfs_CFLAGS = $(IRQTUNE_UNIT_CFLAGS)
tests_unit_test_irqtune_procfs_LDADD = $(IRQTUNE_UNIT_LDADD)
tests_unit_test_irqtune_conf_SOURCES = tests/unit/test_irqtune_conf.c
tests_unit_test_irqtune_conf_CFLAGS = $(IRQTUNE_UNIT_CFLAGS)
tests_unit_test_irqtune_conf_LDADD = $(IRQTUNE_UNIT_LDADD)
tests_unit_test_irqtune_state_SOURCES = tests/unit/test_irqtune_state.c
tests_unit_test_irqtune_state_CFLAGS = $(IRQTUNE_UNIT_CFLAGS)
tests_unit_test_irqtune_state_LDADD = $(IRQTUNE_UNIT_LDADD)
tests_unit_test_irqtune_plan_SOURCES = tests/unit/test_irqtune_plan.c \
	tests/unit/test_irqtune_fake.c tests/unit/test_irqtune_fake.h
tests_unit_test_irqtune_plan_CFLAGS = $(IRQTUNE_UNIT_CFLAGS)
tests_unit_test_irqtune_plan_LDADD = $(IRQTUNE_UNIT_LDADD)

# End-to-end CLI tests in a umockdev testbed (8250 + FTDI), /proc from
# tests/fixtures/irqtune.
TESTS += tests/irqtune-umockdev.tap
EXTRA_DIST += tests/irqtune-umockdev.tap tests/fixtures/irqtune

# Fuzzers: the config, the state file, the /proc and sysfs parsers.
FUZZERS += tests/fuzz/fuzz_irqtune_conf tests/fuzz/fuzz_irqtune_state \
	tests/fuzz/fuzz_irqtune_proc
tests_fuzz_fuzz_irqtune_conf_SOURCES = tests/fuzz/fuzz_irqtune_conf.c
tests_fuzz_fuzz_irqtune_conf_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/irqtune
tests_fuzz_fuzz_irqtune_conf_LDADD = irqtune/libirqtune.la $(FUZZ_MAIN)
tests_fuzz_fuzz_irqtune_conf_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_irqtune_state_SOURCES = tests/fuzz/fuzz_irqtune_state.c
tests_fuzz_fuzz_irqtune_state_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/irqtune
tests_fuzz_fuzz_irqtune_state_LDADD = irqtune/libirqtune.la $(FUZZ_MAIN)
tests_fuzz_fuzz_irqtune_state_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_irqtune_proc_SOURCES = tests/fuzz/fuzz_irqtune_proc.c
tests_fuzz_fuzz_irqtune_proc_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/irqtune
tests_fuzz_fuzz_irqtune_proc_LDADD = irqtune/libirqtune.la $(FUZZ_MAIN)
tests_fuzz_fuzz_irqtune_proc_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

# System integration: the boot unit, the per-device unit started by the
# udev rule, the unit that re-applies after resume, and an example policy.
irqtune_edit = $(SED) -e 's|@sbindir[@]|$(sbindir)|g'
irqtune_units = irqtune/irqtune.service irqtune/irqtune@.service \
	irqtune/irqtune-resume.service
$(irqtune_units): irqtune/%: $(srcdir)/irqtune/%.in Makefile
	$(AM_V_GEN)$(MKDIR_P) irqtune && $(irqtune_edit) $(srcdir)/irqtune/$*.in >$@.tmp && mv $@.tmp $@

systemdsystemunit_DATA += $(irqtune_units)
dist_udevrules_DATA += irqtune/60-irqtune.rules
irqtuneexampledir = $(docdir)/examples
dist_irqtuneexample_DATA = irqtune/irqtune.conf
CLEANFILES += $(irqtune_units)
EXTRA_DIST += $(irqtune_units:=.in)

# The man pages (tests/man-lint.tap lints every page in man/).
dist_man_MANS += man/irqtune.8 man/irqtune.conf.5
TESTS += tests/irqtune-units.tap
EXTRA_DIST += tests/irqtune-units.tap

# QEMU guests (generic kernel with threadirqs, PREEMPT_RT): the real
# irqtune on real 8250s and IRQ threads; see docs/irqtune.md.
TESTS += tests/irqtune-vm.sh
EXTRA_DIST += tests/irqtune-vm.sh tests/vm/guest/irqtune-apply.sh tests/vm/guest/proc-lib.sh

# A Debian 12 guest with systemd and udev (tests/vm/debian-image.sh) and
# irqtune from `make install DESTDIR`: boot order, hotplug, resume, stat.
if RUN_VM_TESTS
TESTS += tests/irqtune-boot.sh
endif
EXTRA_DIST += tests/irqtune-boot.sh tests/vm/guest/irqtune-boot.sh

# The guest half of the benchmark (tests/irqtune-bench.sh): a periodic
# SCHED_FIFO load and a timed serial sink.
noinst_PROGRAMS += irqtune/serial-bench
irqtune_serial_bench_SOURCES = irqtune/serial-bench.c
BENCHMARKS += tests/irqtune-bench.sh
EXTRA_DIST += tests/irqtune-bench.sh tests/vm/guest/irqtune-bench.sh
