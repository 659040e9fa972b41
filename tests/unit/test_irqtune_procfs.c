/*
 * test_irqtune_procfs.c: the /proc and sysfs parsers of irqtune, the
 * value formats, and the 8259 commands.
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
#include <string.h>

#include "pic.h"
#include "procfs.h"

static const char interrupts_2cpu[] =
	"           CPU0       CPU1       \n"
	"  0:         33          0   IO-APIC   2-edge      timer\n"
	"  3:          5          7   IO-APIC   3-edge      ttyS1\n"
	"  4:        120          3   IO-APIC   4-edge      ttyS0\n"
	" 16:       1000       2000   IO-APIC  16-fasteoi   xhci_hcd\n"
	"162:          9          1   PCI-MSI 524288-edge      iwlwifi\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"LOC:     123456     654321   Local timer interrupts\n"
	"ERR:          0\n"
	"MIS:          0\n";

static void interrupts_parse(void **state)
{
	struct irqtune_interrupts t;
	size_t bad;
	assert_int_equal(irqtune_interrupts_parse(interrupts_2cpu,
		strlen(interrupts_2cpu), &t, &bad), 0);
	assert_int_equal(t.ncpus, 2);
	assert_int_equal(t.n, 5);
	const struct irqtune_interrupt *i4 = irqtune_interrupts_find(&t, 4);
	assert_non_null(i4);
	assert_int_equal(i4->total, 123);
	assert_string_equal(i4->chip, "IO-APIC");
	assert_string_equal(i4->desc, "4-edge ttyS0");
	assert_int_equal(irqtune_interrupts_find(&t, 16)->total, 3000);
	assert_int_equal(irqtune_interrupts_find(&t, 162)->total, 10);
	assert_null(irqtune_interrupts_find(&t, 1));
	irqtune_interrupts_free(&t);
}

static void interrupts_errors(void **state)
{
	struct irqtune_interrupts t;
	size_t bad;
	static const char no_header[] = "  4: 1 IO-APIC x\n";
	static const char short_line[] = "  CPU0 CPU1\n  4: 1\n";
	static const char bad_label[] = "  CPU0\n 4x: 1 IO-APIC\n";
	assert_int_equal(irqtune_interrupts_parse(no_header, strlen(no_header),
						  &t, &bad), -EINVAL);
	assert_int_equal(bad, 1);
	irqtune_interrupts_free(&t);
	assert_int_equal(irqtune_interrupts_parse(short_line, strlen(short_line),
						  &t, &bad), -EINVAL);
	assert_int_equal(bad, 2);
	irqtune_interrupts_free(&t);
	assert_int_equal(irqtune_interrupts_parse(bad_label, strlen(bad_label),
						  &t, &bad), -EINVAL);
	assert_int_equal(bad, 2);
	irqtune_interrupts_free(&t);
	assert_int_equal(irqtune_interrupts_parse("", 0, &t, &bad), -EINVAL);
	irqtune_interrupts_free(&t);
}

/* rtirq's issue #14: IRQ 16 must not take irq/162-iwlwifi. */
static void thread_names(void **state)
{
	int irq = -1;
	assert_true(irqtune_thread_irq("irq/16-xhci_hcd", &irq));
	assert_int_equal(irq, 16);
	assert_true(irqtune_thread_irq("irq/162-iwlwifi", &irq));
	assert_int_equal(irq, 162);
	assert_true(irqtune_thread_irq("irq/4-s-ttyS0", &irq));
	assert_int_equal(irq, 4);
	assert_false(irqtune_thread_irq("irq/16", &irq));
	assert_false(irqtune_thread_irq("irq/-16-x", &irq));
	assert_false(irqtune_thread_irq("irq/x-16", &irq));
	assert_false(irqtune_thread_irq("kworker/16-x", &irq));
	assert_false(irqtune_thread_irq("irq/99999999999-x", &irq));
	assert_false(irqtune_thread_irq("", &irq));
}

static void status(void **state)
{
	static const char s[] = "Name:\tirq/4-ttyS0\nPPid:\t2\n"
				"Cpus_allowed_list:\t0-3\nvoluntary: 3\n";
	char cpus[16];
	int ppid;
	assert_true(irqtune_status_parse(s, strlen(s), &ppid, cpus, sizeof(cpus)));
	assert_int_equal(ppid, 2);
	assert_string_equal(cpus, "0-3");
	assert_true(irqtune_status_parse("x\n", 2, &ppid, cpus, sizeof(cpus)));
	assert_int_equal(ppid, -1);
	assert_string_equal(cpus, "");
	assert_false(irqtune_status_parse("PPid:\tx\n", 8, &ppid, cpus, sizeof(cpus)));
}

static void cpulists(void **state)
{
	struct irqtune_cpuset a, b;
	char buf[64];
	assert_true(irqtune_cpulist_parse("0,1,2,5,7-8\n", 12, &a));
	assert_true(irqtune_cpulist_format(&a, buf, sizeof(buf)));
	assert_string_equal(buf, "0-2,5,7-8");
	assert_true(irqtune_cpulist_parse("0-2,5,7,8", 9, &b));
	assert_true(irqtune_cpuset_equal(&a, &b));
	assert_true(irqtune_cpulist_parse("1023", 4, &a));
	assert_false(irqtune_cpulist_parse("1024", 4, &a));
	assert_false(irqtune_cpulist_parse("3-1", 3, &a));
	assert_false(irqtune_cpulist_parse("", 0, &a));
	assert_false(irqtune_cpulist_parse("1,", 2, &a));
	assert_false(irqtune_cpulist_parse("a", 1, &a));
	assert_true(irqtune_cpulist_parse("0-1023", 6, &a));
	assert_false(irqtune_cpulist_format(&a, buf, 4)); /* does not fit */
}

static void sched_values(void **state)
{
	struct irqtune_sched s;
	char buf[32];
	assert_true(irqtune_sched_parse("fifo/90", &s));
	assert_int_equal(s.policy, SCHED_FIFO);
	assert_int_equal(s.prio, 90);
	assert_true(irqtune_sched_parse("other/0", &s));
	assert_int_equal(s.policy, SCHED_OTHER);
	assert_false(irqtune_sched_parse("fifo/0", &s));
	assert_false(irqtune_sched_parse("fifo/100", &s));
	assert_false(irqtune_sched_parse("other/5", &s));
	assert_false(irqtune_sched_parse("fifo/90x", &s));
	assert_false(irqtune_sched_parse("deadline/1", &s));
	assert_false(irqtune_sched_parse("fifo/090", &s)); /* found by fuzzing */
	s.policy = SCHED_RR;
	s.prio = 7;
	assert_true(irqtune_sched_format(&s, buf, sizeof(buf)));
	assert_string_equal(buf, "rr/7");
}

static void longs(void **state)
{
	long v;
	assert_true(irqtune_parse_long("14\n", 3, 0, 100, &v));
	assert_int_equal(v, 14);
	assert_false(irqtune_parse_long("14\n\n", 4, 0, 100, &v));
	assert_false(irqtune_parse_long("101", 3, 0, 100, &v));
	assert_false(irqtune_parse_long("", 0, 0, 100, &v));
	assert_true(irqtune_parse_long("-3", 2, -5, 5, &v));
	assert_int_equal(v, -3);
}

/* The 1996 bytes: IRQ 3 highest on the master is 0xC2, IRQ 14 highest on
 * the slave is 0xC5. */
static void pic_commands(void **state)
{
	struct irqtune_pic_cmd c[2];
	size_t n;
	char err[128];
	assert_true(irqtune_pic_commands(3, 14, c, &n, err, sizeof(err)));
	assert_int_equal(n, 2);
	assert_int_equal(c[0].port, 0x20);
	assert_int_equal(c[0].value, 0xC2);
	assert_int_equal(c[0].order[0], 3);
	assert_int_equal(c[0].order[7], 2);
	assert_int_equal(c[1].port, 0xA0);
	assert_int_equal(c[1].value, 0xC5);
	assert_int_equal(c[1].order[0], 14);
	assert_int_equal(c[1].order[2], 8);
	assert_true(irqtune_pic_commands(0, -1, c, &n, err, sizeof(err)));
	assert_int_equal(n, 1);
	assert_int_equal(c[0].value, 0xC7);
	assert_true(irqtune_pic_commands(7, 8, c, &n, err, sizeof(err)));
	assert_int_equal(c[1].value, 0xC7);
	assert_false(irqtune_pic_commands(8, -1, c, &n, err, sizeof(err)));
	assert_non_null(strstr(err, "master IRQ 8"));
	assert_false(irqtune_pic_commands(3, 7, c, &n, err, sizeof(err)));
	assert_non_null(strstr(err, "slave IRQ 7"));
}

static void pic_detection(void **state)
{
	static const char xtpic[] =
		"           CPU0\n"
		"  0:      12345    XT-PIC  timer\n"
		"  2:          0    XT-PIC  cascade\n"
		"  3:         77    XT-PIC  serial\n";
	struct irqtune_interrupts t;
	size_t bad;
	char why[256];
	assert_int_equal(irqtune_interrupts_parse(xtpic, strlen(xtpic), &t, &bad), 0);
	assert_true(irqtune_pic_in_use(&t, 3, why, sizeof(why)));
	irqtune_interrupts_free(&t);
	assert_int_equal(irqtune_interrupts_parse(interrupts_2cpu,
		strlen(interrupts_2cpu), &t, &bad), 0);
	assert_false(irqtune_pic_in_use(&t, 3, why, sizeof(why)));
	assert_non_null(strstr(why, "IRQ 3 (3-edge ttyS1) is delivered by IO-APIC"));
	irqtune_interrupts_free(&t);
	static const char none[] = "  CPU0\nNMI: 0 x\n";
	assert_int_equal(irqtune_interrupts_parse(none, strlen(none), &t, &bad), 0);
	assert_false(irqtune_pic_in_use(&t, 3, why, sizeof(why)));
	assert_non_null(strstr(why, "no IRQ on the 8259"));
	irqtune_interrupts_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interrupts_parse),
		cmocka_unit_test(interrupts_errors),
		cmocka_unit_test(thread_names),
		cmocka_unit_test(status),
		cmocka_unit_test(cpulists),
		cmocka_unit_test(sched_values),
		cmocka_unit_test(longs),
		cmocka_unit_test(pic_commands),
		cmocka_unit_test(pic_detection),
	};
	return cmocka_run_group_tests_name("irqtune_procfs", tests, NULL, NULL);
}
