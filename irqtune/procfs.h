/*
 * procfs.h: parsers for the kernel text irqtune reads, and the small
 * value formats irqtune writes back.
 *
 * Owns: /proc/interrupts, the PPid and Cpus_allowed_list fields of
 * /proc/PID/status, IRQ thread names ("irq/N-name"), CPU lists
 * ("0-3,8"), scheduling values ("fifo/90") and single integers from
 * sysfs.  Every parser reads through struct cursor and fails on
 * malformed input instead of guessing.
 *
 * Does not own: reading the files (sys.h) or deciding anything.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRQTUNE_PROCFS_H
#define IRQTUNE_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys.h"

/* One numbered line of /proc/interrupts. */
struct irqtune_interrupt {
	int irq;
	uint64_t total;   /* sum over every CPU column */
	char chip[40];    /* "IO-APIC", "XT-PIC", "PCI-MSIX-0000:00:14.0" */
	char desc[128];   /* the rest: hwirq, trigger, action names */
};

struct irqtune_interrupts {
	struct irqtune_interrupt *v;
	size_t n;
	unsigned ncpus;
};

/* Parses the whole file.  Returns 0, -EINVAL (with *bad_line set to the
 * 1-based line at fault) or -ENOMEM.  Free with irqtune_interrupts_free
 * in every case. */
int irqtune_interrupts_parse(const void *text, size_t len,
			     struct irqtune_interrupts *out, size_t *bad_line);
void irqtune_interrupts_free(struct irqtune_interrupts *t);
const struct irqtune_interrupt *
irqtune_interrupts_find(const struct irqtune_interrupts *t, int irq);

/* Whether comm names the thread of IRQ n: "irq/" n "-" exactly, so that
 * irq/16- never matches irq/162-.  *irq gets n. */
bool irqtune_thread_irq(const char *comm, int *irq);

/* Reads PPid and Cpus_allowed_list from /proc/PID/status text.  Either
 * output may be missing in the text: *ppid is then -1 and cpus "". */
bool irqtune_status_parse(const void *text, size_t len, int *ppid,
			  char *cpus, size_t cap);

#define IRQTUNE_MAX_CPUS 1024
struct irqtune_cpuset {
	uint64_t bits[IRQTUNE_MAX_CPUS / 64];
};

/* "0-3,8,10-11" (trailing blanks and newline allowed); an empty list, a
 * reversed range or a CPU past IRQTUNE_MAX_CPUS is an error. */
bool irqtune_cpulist_parse(const void *text, size_t len,
			   struct irqtune_cpuset *out);
/* The kernel's canonical form: ranges of 2+ CPUs as "a-b". */
bool irqtune_cpulist_format(const struct irqtune_cpuset *set, char *buf,
			    size_t cap);
bool irqtune_cpuset_equal(const struct irqtune_cpuset *a,
			  const struct irqtune_cpuset *b);

/* "fifo/90", "rr/10", "other/0", "batch/0", "idle/0". */
bool irqtune_sched_parse(const char *text, struct irqtune_sched *out);
bool irqtune_sched_format(const struct irqtune_sched *s, char *buf,
			  size_t cap);
const char *irqtune_policy_name(int policy);

/* One decimal integer in [min, max], surrounding blanks and one trailing
 * newline allowed (a sysfs attribute). */
bool irqtune_parse_long(const void *text, size_t len, long min, long max,
			long *out);

/* Copies a C string (NULL counts as "") into dst; false, with dst cut
 * and terminated, if it does not fit. */
bool irqtune_copy(char *dst, size_t cap, const char *src);

/* snprintf into err, then return false: for "return irqtune_fail(...)"
 * in validators that explain why. */
bool irqtune_fail(char *err, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
