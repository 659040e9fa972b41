/*
 * sys.h: everything irqtune asks of the running system, behind one table
 * of functions.
 *
 * Owns: the interface (read and write a small file, list a directory,
 * get and set a thread's scheduling, the serial ioctls, an I/O port
 * write) and the real implementation (sys_real.c).  Tests hand in their
 * own table, so discovery, apply and restore run against fixtures
 * without root, without an 8250 and without threaded IRQs.
 *
 * Does not own: what the values mean (procfs.h parses them, plan.h
 * decides what to change).
 *
 * Paths are the system's own ("/proc/interrupts", "/sys/devices/...").
 * The real implementation can read "/proc" from another directory
 * (the test-only IRQTUNE_PROCFS variable of irqtune(8)); "/sys" is left
 * to umockdev in tests.
 *
 * Every function returns 0 or a negative errno value.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRQTUNE_SYS_H
#define IRQTUNE_SYS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A thread's scheduling class and static priority (SCHED_* values of
 * <sched.h>; prio is 0 for the non-real-time classes). */
struct irqtune_sched {
	int policy;
	int prio;
};

/* The TIOCGICOUNT counters irqtune reports. */
struct irqtune_icount {
	uint64_t rx, tx;
	uint64_t frame, overrun, parity, brk, buf_overrun;
};

typedef int (*irqtune_dir_fn)(void *arg, const char *name);

struct irqtune_sys_ops {
	/* Reads a whole small file into buf, NUL-terminated; *len gets the
	 * length without the NUL.  -EFBIG if it does not fit in cap - 1. */
	int (*read_file)(void *ctx, const char *path, char *buf, size_t cap,
			 size_t *len);
	/* Writes text to an existing file (sysfs, procfs) in one write. */
	int (*write_file)(void *ctx, const char *path, const char *text);
	/* Calls fn(arg, name) for every entry but "." and ".."; stops and
	 * returns fn's value when it is not 0. */
	int (*list_dir)(void *ctx, const char *path, irqtune_dir_fn fn,
			void *arg);
	int (*get_sched)(void *ctx, int pid, struct irqtune_sched *out);
	int (*set_sched)(void *ctx, int pid, const struct irqtune_sched *s);
	/* ASYNC_LOW_LATENCY through TIOCGSERIAL / TIOCSSERIAL. */
	int (*get_low_latency)(void *ctx, const char *devnode, bool *on);
	int (*set_low_latency)(void *ctx, const char *devnode, bool on);
	int (*get_icount)(void *ctx, const char *devnode,
			  struct irqtune_icount *out);
	/* One byte to an x86 I/O port (the 8259 PIC). */
	int (*port_out)(void *ctx, unsigned port, uint8_t value);
};

struct irqtune_sys {
	const struct irqtune_sys_ops *ops;
	void *ctx;
};

/* The real system.  proc_root NULL means "/proc". */
struct irqtune_sys_real {
	char proc_root[PATH_MAX];
};

/* Fills sys with the real implementation; -ENAMETOOLONG if proc_root
 * does not fit. */
int irqtune_sys_real_init(struct irqtune_sys *sys,
			  struct irqtune_sys_real *real, const char *proc_root);

/* Convenience wrappers. */
static inline int irqtune_read_file(const struct irqtune_sys *s,
				    const char *path, char *buf, size_t cap,
				    size_t *len)
{
	return s->ops->read_file(s->ctx, path, buf, cap, len);
}
static inline int irqtune_write_file(const struct irqtune_sys *s,
				     const char *path, const char *text)
{
	return s->ops->write_file(s->ctx, path, text);
}

#endif
