/*
 * fuzz_irqtune_proc.c: the /proc and sysfs parsers of irqtune over
 * arbitrary bytes: /proc/interrupts (and the 8259 check on it),
 * /proc/PID/status, CPU lists (a parsed list must format and parse back
 * to the same set), thread names, scheduling values and integers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pic.h"
#include "procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Copies the input into a NUL-terminated buffer for the parsers that
 * take C strings. */
static char *cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct irqtune_interrupts t;
	struct irqtune_cpuset set, back;
	struct irqtune_sched sched;
	char buf[4200], why[256];
	size_t bad;
	int ppid, irq;
	long v;

	if (irqtune_interrupts_parse(data, size, &t, &bad) == 0)
		irqtune_pic_in_use(&t, 3, why, sizeof(why));
	irqtune_interrupts_free(&t);
	irqtune_status_parse(data, size, &ppid, buf, 64);
	if (irqtune_cpulist_parse(data, size, &set)) {
		if (!irqtune_cpulist_format(&set, buf, sizeof(buf)) ||
		    !irqtune_cpulist_parse(buf, strlen(buf), &back) ||
		    !irqtune_cpuset_equal(&set, &back))
			abort();
	}
	irqtune_parse_long(data, size, -100, 100000, &v);
	char *s = cstr(data, size);
	if (s) {
		irqtune_thread_irq(s, &irq);
		if (irqtune_sched_parse(s, &sched) &&
		    (!irqtune_sched_format(&sched, buf, sizeof(buf)) ||
		     strcmp(buf, s) != 0))
			abort();
		free(s);
	}
	return 0;
}
