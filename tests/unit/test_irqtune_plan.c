/*
 * test_irqtune_plan.c: inspection, apply, restore and dry-run of irqtune
 * against an in-memory system (test_irqtune_fake.h): IRQ threads found
 * exactly, changes planned with old and new values, the state file
 * written before the first change and keeping the original values,
 * failures undone, restore returning every value.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "plan.h"
#include "port.h"
#include "run.h"
#include "test_irqtune_fake.h"

#define RX_PATH "/sys/devices/platform/serial8250/tty/ttyS0/rx_trig_bytes"
#define LT_PATH "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0/ttyUSB0/latency_timer"

struct world {
	struct fake_sys f;
	struct irqtune_sys sys;
	struct irqtune_port port[2]; /* ttyS0, ttyUSB0 */
	struct irqtune_snapshot snap;
	char dir[32];
	char state[64];
	char log[4096];
	struct logger logger;
};

static void collect(void *ctx, enum log_level level, const char *msg)
{
	struct world *w = ctx;
	size_t n = strlen(w->log);
	snprintf(w->log + n, sizeof(w->log) - n, "%s: %s\n",
		 log_level_name(level), msg);
}

static void build_system(struct world *w, bool threadirqs)
{
	struct fake_sys *f = &w->f;
	fake_init(f, &w->sys);
	fake_file(f, "/proc/interrupts",
		  "           CPU0       CPU1\n"
		  "  4:        120          3   IO-APIC   4-edge      ttyS0\n"
		  " 16:       1000       2000   IO-APIC  16-fasteoi   xhci_hcd\n"
		  "162:          9          1   PCI-MSI 524288-edge      iwlwifi\n");
	fake_file(f, "/proc/cmdline", threadirqs
		  ? "BOOT_IMAGE=/vmlinuz root=/dev/vda threadirqs quiet\n"
		  : "BOOT_IMAGE=/vmlinuz root=/dev/vda quiet\n");
	fake_file(f, "/proc/irq/4/smp_affinity_list", "0-1\n");
	fake_file(f, "/proc/irq/16/smp_affinity_list", "0-1\n");
	fake_file(f, "/proc/irq/162/smp_affinity_list", "1\n");
	fake_thread(f, 1, "systemd", 0, SCHED_OTHER, 0, "0-1");
	if (threadirqs) {
		fake_thread(f, 100, "irq/4-ttyS0", 2, SCHED_FIFO, 50, "0-1");
		fake_thread(f, 101, "irq/4-s-ttyS0", 2, SCHED_FIFO, 49, "0-1");
		fake_thread(f, 102, "irq/162-iwlwifi", 2, SCHED_FIFO, 50, "1");
		fake_thread(f, 104, "irq/16-xhci_hcd", 2, SCHED_FIFO, 50, "0-1");
	}
	/* a user process that calls itself an IRQ thread */
	fake_thread(f, 103, "irq/4-evil", 1234, SCHED_OTHER, 0, "0-1");
	fake_file(f, RX_PATH, "14\n")->clamp = 14;
	fake_file(f, LT_PATH, "16\n");
	fake_tty(f, "/dev/ttyS0", false)->ic.overrun = 3;
	fake_tty(f, "/dev/ttyUSB0", false);

	struct irqtune_port *p = &w->port[0];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "ttyS0");
	snprintf(p->devnode, sizeof(p->devnode), "/dev/ttyS0");
	snprintf(p->rx_trig_path, sizeof(p->rx_trig_path), RX_PATH);
	p->irq.irq = 4;
	p->uart_type = 4;
	p = &w->port[1];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "ttyUSB0");
	snprintf(p->devnode, sizeof(p->devnode), "/dev/ttyUSB0");
	snprintf(p->latency_path, sizeof(p->latency_path), LT_PATH);
	p->bus = IRQTUNE_BUS_USB;
	p->irq.irq = -1;
	p->uart_type = -1;
	p->nhc = 1;
	p->hc[0].irq = 16;
}

static void look(struct world *w)
{
	irqtune_snapshot_free(&w->snap);
	assert_int_equal(irqtune_snapshot_take(&w->sys, &w->logger, &w->snap), 0);
	for (int i = 0; i < 2; i++)
		irqtune_inspect_port(&w->sys, &w->snap, &w->port[i]);
}

static int setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	snprintf(w->dir, sizeof(w->dir), "/tmp/irqtune-plan-XXXXXX");
	if (!mkdtemp(w->dir))
		return -1;
	snprintf(w->state, sizeof(w->state), "%s/state", w->dir);
	w->logger = (struct logger){ collect, w, LOG_LEVEL_DEBUG, NULL };
	build_system(w, true);
	w->f.state_path = w->state;
	look(w);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;
	char cmd[96];
	irqtune_snapshot_free(&w->snap);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", w->dir);
	int rc = system(cmd);
	free(w);
	return rc == 0 ? 0 : -1;
}

static struct irqtune_settings settings(int prio, const char *cpus, int rx,
					int low, int lt, int hc)
{
	struct irqtune_settings s;
	char err[128];
	irqtune_settings_defaults(&s);
	s.prio = prio;
	s.rx_trigger = rx;
	s.low_latency = low;
	s.latency_timer = lt;
	s.hc_prio = hc;
	if (cpus && !irqtune_settings_set(&s, "cpus", cpus, err, sizeof(err)))
		fail_msg("%s", err);
	return s;
}

static void make_plan(struct world *w, const struct irqtune_settings *s,
		      struct irqtune_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	for (int i = 0; i < 2; i++)
		assert_int_equal(irqtune_plan_port(&w->snap, &w->port[i], s,
						   &w->logger, plan), 0);
}

static void plan_text(const struct irqtune_plan *plan, char *buf, size_t cap)
{
	buf[0] = '\0';
	for (size_t i = 0; i < plan->n; i++) {
		char line[512];
		size_t n = strlen(buf);
		irqtune_change_describe(&plan->v[i], line, sizeof(line));
		snprintf(buf + n, cap - n, "%s\n", line);
	}
}

/* Runs restore (all devices when ndev is 0) and returns its status; the
 * plan it made is freed unless kept. */
static int restore(struct world *w, const char **devs, size_t ndev, bool dry,
		   size_t *planned)
{
	struct irqtune_plan plan;
	char err[512];
	memset(&plan, 0, sizeof(plan));
	int rc = irqtune_restore(&w->sys, &w->snap, w->state, devs, ndev, dry,
				 &w->logger, &plan, err, sizeof(err));
	if (planned)
		*planned = plan.n;
	irqtune_plan_free(&plan);
	return rc;
}

/* Plans settings s for both ports and applies them. */
static int apply(struct world *w, const struct irqtune_settings *s, char *err,
		 size_t cap)
{
	struct irqtune_plan plan;
	make_plan(w, s, &plan);
	int rc = irqtune_apply(&w->sys, &w->snap, &plan, w->state, &w->logger,
			       err, cap);
	irqtune_plan_free(&plan);
	return rc;
}

static int prio_of(struct world *w, int pid)
{
	return fake_sched(&w->f, pid)->sched.prio;
}

static void inspection(void **state)
{
	struct world *w = *state;
	const struct irqtune_port *s0 = &w->port[0], *u = &w->port[1];
	/* kernel threads named irq/N-: not the user process, not PID 1 */
	assert_int_equal(w->snap.nthreads, 4);
	assert_true(w->snap.threaded);
	assert_int_equal(s0->irq.nthreads, 2);
	assert_string_equal(s0->irq.threads[0].comm, "irq/4-ttyS0");
	assert_int_equal(s0->irq.threads[0].sched.prio, 50);
	assert_string_equal(s0->irq.threads[1].comm, "irq/4-s-ttyS0");
	assert_string_equal(s0->irq.threads[1].cpus, "0-1");
	assert_int_equal(s0->irq.count, 123);
	assert_string_equal(s0->irq.chip, "IO-APIC");
	assert_string_equal(s0->irq.affinity, "0-1");
	assert_true(s0->rx_trig_known);
	assert_int_equal(s0->rx_trig, 14);
	assert_true(s0->icount_known);
	assert_int_equal(s0->icount.overrun, 3);
	assert_false(s0->latency_known);
	/* IRQ 16 takes irq/16-xhci_hcd and never irq/162-iwlwifi */
	assert_int_equal(u->hc[0].nthreads, 1);
	assert_string_equal(u->hc[0].threads[0].comm, "irq/16-xhci_hcd");
	assert_int_equal(u->hc[0].count, 3000);
	assert_true(u->latency_known);
	assert_int_equal(u->latency_timer, 16);
}

static void dry_run_plans_without_touching(void **state)
{
	struct world *w = *state;
	struct irqtune_plan plan;
	char text[4096];
	struct irqtune_settings s = settings(90, "1", 1, 1, 1, 85);
	make_plan(w, &s, &plan);
	plan_text(&plan, text, sizeof(text));
	assert_string_equal(text,
		"ttyS0: irq/4-ttyS0 priority fifo/50 -> fifo/90\n"
		"ttyS0: irq/4-s-ttyS0 priority fifo/49 -> fifo/90\n"
		"ttyS0: IRQ 4 affinity 0-1 -> 1\n"
		"ttyS0: rx_trig_bytes 14 -> 1\n"
		"ttyS0: low_latency 0 -> 1\n"
		"ttyUSB0: irq/16-xhci_hcd priority fifo/50 -> fifo/85\n"
		"ttyUSB0: latency_timer 16 -> 1\n"
		"ttyUSB0: low_latency 0 -> 1\n");
	assert_int_equal(w->f.changes, 0);
	irqtune_plan_free(&plan);
	/* a knob already at its value is planned as unchanged */
	s = settings(50, NULL, 14, IRQTUNE_KEEP, IRQTUNE_KEEP, IRQTUNE_KEEP);
	make_plan(w, &s, &plan);
	plan_text(&plan, text, sizeof(text));
	assert_string_equal(text,
		"ttyS0: irq/4-ttyS0 priority fifo/50 (unchanged)\n"
		"ttyS0: irq/4-s-ttyS0 priority fifo/49 -> fifo/50\n"
		"ttyS0: rx_trig_bytes 14 (unchanged)\n");
	irqtune_plan_free(&plan);
}

static void apply_records_then_changes_and_restore_returns(void **state)
{
	struct world *w = *state;
	char err[512];
	struct irqtune_settings s = settings(90, "1", 1, 1, 1, 85);
	assert_int_equal(apply(w, &s, err, sizeof(err)), 0);
	assert_int_equal(w->f.changes, 8);
	assert_int_equal(w->f.changes_before_state, 0);
	assert_int_equal(prio_of(w, 100), 90);
	assert_int_equal(prio_of(w, 101), 90);
	assert_int_equal(fake_sched(&w->f, 100)->sched.policy, SCHED_FIFO);
	assert_int_equal(prio_of(w, 104), 85);
	assert_int_equal(prio_of(w, 102), 50); /* irq/162 untouched */
	assert_int_equal(fake_sched(&w->f, 103)->sched.policy, SCHED_OTHER);
	assert_string_equal(fake_text(&w->f, "/proc/irq/4/smp_affinity_list"), "1\n");
	assert_string_equal(fake_text(&w->f, RX_PATH), "1\n");
	assert_string_equal(fake_text(&w->f, LT_PATH), "1\n");
	assert_true(w->f.ttys[0].low_latency);
	assert_true(w->f.ttys[1].low_latency);

	/* a second apply with other values keeps the originals */
	look(w);
	s = settings(95, "0", 4, 1, 2, 85);
	assert_int_equal(apply(w, &s, err, sizeof(err)), 0);
	assert_int_equal(prio_of(w, 100), 95);
	assert_string_equal(fake_text(&w->f, RX_PATH), "4\n");

	struct irqtune_state st;
	assert_int_equal(irqtune_state_load(w->state, &st, err, sizeof(err)), 0);
	long i = irqtune_state_find(&st, IRQTUNE_KNOB_SCHED, "irq/4-ttyS0");
	assert_true(i >= 0);
	assert_string_equal(st.v[i].value, "fifo/50");
	i = irqtune_state_find(&st, IRQTUNE_KNOB_SCHED, "irq/4-s-ttyS0");
	assert_string_equal(st.v[i].value, "fifo/49");
	i = irqtune_state_find(&st, IRQTUNE_KNOB_ATTR, RX_PATH);
	assert_string_equal(st.v[i].value, "14");
	i = irqtune_state_find(&st, IRQTUNE_KNOB_AFFINITY, "4");
	assert_string_equal(st.v[i].value, "0-1");
	assert_int_equal(st.n, 8);
	irqtune_state_free(&st);

	/* restore: every value exactly as before, and the record is gone */
	look(w);
	assert_int_equal(restore(w, NULL, 0, false, NULL), 0);
	assert_int_equal(prio_of(w, 100), 50);
	assert_int_equal(prio_of(w, 101), 49);
	assert_int_equal(prio_of(w, 104), 50);
	assert_string_equal(fake_text(&w->f, "/proc/irq/4/smp_affinity_list"), "0-1\n");
	assert_string_equal(fake_text(&w->f, RX_PATH), "14\n");
	assert_string_equal(fake_text(&w->f, LT_PATH), "16\n");
	assert_false(w->f.ttys[0].low_latency);
	assert_false(w->f.ttys[1].low_latency);
	struct stat sb;
	assert_int_equal(stat(w->state, &sb), -1);
}

/* ftdi_sio reports latency_timer as 1 while low_latency is on: restore
 * must put low_latency back before it reads back latency_timer (undo in
 * the reverse order of apply), or it sees 1 where it wrote 16. */
static void restore_undoes_coupled_knobs_in_reverse(void **state)
{
	struct world *w = *state;
	char err[512];
	fake_find(&w->f, LT_PATH)->low_tty = "/dev/ttyUSB0";
	struct irqtune_settings s = settings(90, NULL, IRQTUNE_KEEP, 1, 1,
					     IRQTUNE_KEEP);
	assert_int_equal(apply(w, &s, err, sizeof(err)), 0);
	assert_true(w->f.ttys[1].low_latency);
	assert_string_equal(fake_text(&w->f, LT_PATH), "1\n");
	look(w);
	assert_int_equal(restore(w, NULL, 0, false, NULL), 0);
	assert_false(w->f.ttys[1].low_latency);
	assert_string_equal(fake_text(&w->f, LT_PATH), "16\n");
	struct stat sb;
	assert_int_equal(stat(w->state, &sb), -1);
}

/* low_latency on makes ftdi_sio use and report latency_timer 1: a
 * policy asking for both another latency_timer and low_latency sets
 * low_latency only and says so; applied twice (boot, then hotplug or
 * resume), the second apply must not fail on the read-back. */
static void latency_timer_yields_to_low_latency(void **state)
{
	struct world *w = *state;
	char err[512];
	fake_find(&w->f, LT_PATH)->low_tty = "/dev/ttyUSB0";
	struct irqtune_settings s = settings(90, NULL, IRQTUNE_KEEP, 1, 4,
					     IRQTUNE_KEEP);
	assert_int_equal(apply(w, &s, err, sizeof(err)), 0);
	assert_true(w->f.ttys[1].low_latency);
	assert_string_equal(fake_text(&w->f, LT_PATH), "16\n");
	assert_non_null(strstr(w->log, "ttyUSB0: latency_timer 4 not set: "
				       "with low_latency on"));
	look(w);
	assert_int_equal(apply(w, &s, err, sizeof(err)), 0);
	/* low_latency kept as it is (on): the same */
	s.low_latency = IRQTUNE_KEEP;
	look(w);
	assert_int_equal(apply(w, &s, err, sizeof(err)), 0);
	assert_string_equal(fake_text(&w->f, LT_PATH), "16\n");
	look(w);
	assert_int_equal(restore(w, NULL, 0, false, NULL), 0);
	assert_false(w->f.ttys[1].low_latency);
}

static void failure_undoes_this_run(void **state)
{
	struct world *w = *state;
	char err[512];
	struct irqtune_settings s = settings(90, "1", 1, 1, 1, IRQTUNE_KEEP);
	fake_find(&w->f, "/proc/irq/4/smp_affinity_list")->write_err = -EIO;
	assert_int_equal(apply(w, &s, err, sizeof(err)), -EIO);
	assert_int_equal(prio_of(w, 100), 50);
	assert_int_equal(prio_of(w, 101), 49);
	assert_string_equal(fake_text(&w->f, RX_PATH), "14\n");
	assert_false(w->f.ttys[0].low_latency);
	assert_non_null(strstr(w->log, "ttyS0: IRQ 4 affinity 0-1 -> 1: writing 1 failed"));
	assert_non_null(strstr(w->log, "irq/4-ttyS0 put back to fifo/50"));
}

static void read_back_is_checked(void **state)
{
	struct world *w = *state;
	char err[512];
	/* the UART has no 16-byte trigger: it reads back 14 */
	struct irqtune_settings s = settings(90, NULL, 16, IRQTUNE_KEEP,
					     IRQTUNE_KEEP, IRQTUNE_KEEP);
	fake_file(&w->f, RX_PATH, "8\n")->clamp = 14;
	look(w);
	assert_int_equal(apply(w, &s, err, sizeof(err)), -EIO);
	assert_non_null(strstr(w->log, "ttyS0: rx_trig_bytes 8 -> 16: wrote 16 but it reads back 14"));
	assert_string_equal(fake_text(&w->f, RX_PATH), "8\n");
	assert_int_equal(prio_of(w, 100), 50);
}

static void unthreaded_kernel_warns(void **state)
{
	struct world *w = *state;
	struct irqtune_plan plan;
	build_system(w, false);
	look(w);
	assert_false(w->snap.threaded);
	struct irqtune_settings s = settings(90, NULL, IRQTUNE_KEEP,
					     IRQTUNE_KEEP, IRQTUNE_KEEP, 90);
	make_plan(w, &s, &plan);
	assert_true(plan.unthreaded);
	assert_int_equal(plan.n, 0);
	assert_non_null(strstr(w->log, "ttyUSB0: USB host controller IRQ 16 has no thread"));
	assert_non_null(strstr(w->log, "ttyS0: IRQ 4 has no thread: this kernel does not run IRQs in threads"));
	assert_non_null(strstr(w->log, "threadirqs"));
	irqtune_plan_free(&plan);
}

static void restore_after_port_closed_and_by_device(void **state)
{
	struct world *w = *state;
	char err[512];
	const char *only_usb[] = { "ttyUSB0" };
	struct irqtune_settings s = settings(90, NULL, IRQTUNE_KEEP,
					     IRQTUNE_KEEP, 1, 85);
	assert_int_equal(apply(w, &s, err, sizeof(err)), 0);
	/* ttyUSB0 only: ttyS0 keeps its boost */
	look(w);
	assert_int_equal(restore(w, only_usb, 1, false, NULL), 0);
	assert_string_equal(fake_text(&w->f, LT_PATH), "16\n");
	assert_int_equal(prio_of(w, 104), 50);
	assert_int_equal(prio_of(w, 100), 90);
	/* the port was closed: its secondary thread ended */
	fake_kill(&w->f, 101);
	look(w);
	size_t before = w->f.changes, planned;
	assert_int_equal(restore(w, NULL, 0, true, &planned), 0);
	assert_int_equal(w->f.changes, before); /* dry run */
	assert_int_equal(planned, 1);
	assert_int_equal(restore(w, NULL, 0, false, NULL), 0);
	assert_int_equal(prio_of(w, 100), 50);
	assert_non_null(strstr(w->log, "irq/4-s-ttyS0 is gone"));
	struct stat sb;
	assert_int_equal(stat(w->state, &sb), -1);
}

static void damaged_state_changes_nothing(void **state)
{
	struct world *w = *state;
	char err[512];
	FILE *f = fopen(w->state, "w");
	assert_non_null(f);
	fputs("irqtune-state 1\nattr\tttyS0\t/etc/passwd\t1\n", f);
	fclose(f);
	struct irqtune_settings s = settings(90, "1", 1, 1, 1, 85);
	assert_int_equal(apply(w, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/state:2: '/etc/passwd'"));
	assert_int_equal(w->f.changes, 0);
	assert_int_equal(restore(w, NULL, 0, false, NULL), -EINVAL);
	assert_int_equal(w->f.changes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(inspection, setup, teardown),
		cmocka_unit_test_setup_teardown(dry_run_plans_without_touching, setup, teardown),
		cmocka_unit_test_setup_teardown(apply_records_then_changes_and_restore_returns, setup, teardown),
		cmocka_unit_test_setup_teardown(failure_undoes_this_run, setup, teardown),
		cmocka_unit_test_setup_teardown(read_back_is_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(unthreaded_kernel_warns, setup, teardown),
		cmocka_unit_test_setup_teardown(restore_after_port_closed_and_by_device, setup, teardown),
		cmocka_unit_test_setup_teardown(restore_undoes_coupled_knobs_in_reverse, setup, teardown),
		cmocka_unit_test_setup_teardown(latency_timer_yields_to_low_latency, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_state_changes_nothing, setup, teardown),
	};
	return cmocka_run_group_tests_name("irqtune_plan", tests, NULL, NULL);
}
