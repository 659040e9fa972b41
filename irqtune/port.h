/*
 * port.h: what irqtune knows about one hardware serial port.
 *
 * Owns: the port model (identity found by discovery, live values found
 * by inspection), the snapshot of IRQs and IRQ threads that inspection
 * reads from /proc, and inspection itself.
 *
 * Does not own: finding the ports (discover.h, libudev) or changing
 * anything (plan.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRQTUNE_PORT_H
#define IRQTUNE_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "procfs.h"
#include "sys.h"

#define IRQTUNE_MAX_THREADS 8
#define IRQTUNE_MAX_LINKS 8
#define IRQTUNE_MAX_PROPS 48
#define IRQTUNE_MAX_HC_IRQS 8
#define IRQTUNE_PATH 256

/* A kernel thread that serves an IRQ, as seen in /proc. */
struct irqtune_kthread {
	int pid;
	int irq;
	char comm[32];
};

/* One IRQ with its threads. */
struct irqtune_thread {
	int pid;
	char comm[32];
	bool sched_known;
	struct irqtune_sched sched;
	char cpus[64]; /* Cpus_allowed_list; "" if unknown */
};

struct irqtune_irqinfo {
	int irq; /* -1: none */
	bool counted;
	uint64_t count;
	char chip[40];
	char affinity[64]; /* /proc/irq/N/smp_affinity_list; "" if unknown */
	size_t nthreads;
	struct irqtune_thread threads[IRQTUNE_MAX_THREADS];
};

struct irqtune_prop {
	char key[32];
	char value[128];
};

enum irqtune_bus {
	IRQTUNE_BUS_UART, /* serial_core: 8250, PL011, imx ... */
	IRQTUNE_BUS_USB,  /* usb-serial (ftdi_sio, pl2303 ...) or cdc_acm */
};

struct irqtune_port {
	/* identity (discovery) */
	char name[32];			/* "ttyS0" */
	char devnode[64];		/* "/dev/ttyS0" */
	char syspath[IRQTUNE_PATH];
	size_t nlinks;
	char links[IRQTUNE_MAX_LINKS][IRQTUNE_PATH]; /* by-id, by-path */
	char driver[32];		/* "serial8250", "ftdi_sio" */
	enum irqtune_bus bus;
	int uart_type;			/* serial_core PORT_*; -1 for USB */
	char rx_trig_path[IRQTUNE_PATH + 16];	/* "" if none */
	char latency_path[IRQTUNE_PATH + 16];	/* "" if none */
	char hc_syspath[IRQTUNE_PATH];	/* USB host controller */
	char hc_driver[32];
	size_t nprops;
	struct irqtune_prop props[IRQTUNE_MAX_PROPS];

	/* the port's own IRQ (UART) and the host controller's (USB) */
	struct irqtune_irqinfo irq;
	size_t nhc;
	struct irqtune_irqinfo hc[IRQTUNE_MAX_HC_IRQS];

	/* live values (inspection) */
	bool rx_trig_known, latency_known, low_latency_known, icount_known;
	long rx_trig;
	long latency_timer;
	bool low_latency;
	struct irqtune_icount icount;
};

struct irqtune_ports {
	struct irqtune_port *v;
	size_t n;
};

void irqtune_ports_free(struct irqtune_ports *p);

/* The name of a serial_core PORT_* type ("16550A"), or NULL. */
const char *irqtune_uart_name(int type);

/* A property of the port (udev property, or DRIVER / ID_VENDOR_ID /
 * ID_MODEL_ID filled in from sysfs when udev has no database). */
const char *irqtune_port_prop(const struct irqtune_port *p, const char *key);
/* Adds or replaces a property; false if it does not fit. */
bool irqtune_port_set_prop(struct irqtune_port *p, const char *key,
			   const char *value);

/* Whether a name given by the user (kernel name, /dev node, by-id or
 * by-path link) designates this port. */
bool irqtune_port_is(const struct irqtune_port *p, const char *name);

/* What /proc says about IRQs and their threads, read once per run. */
struct irqtune_snapshot {
	struct irqtune_interrupts ints;
	bool ints_ok;
	struct irqtune_kthread *threads;
	size_t nthreads;
	bool threaded; /* booted with threadirqs, or a PREEMPT_RT kernel */
	bool rt;       /* PREEMPT_RT */
};

/* Reads /proc/interrupts, every kernel thread named irq/N-..., and
 * whether IRQs are forced into threads.  -errno when /proc cannot be
 * read; a malformed /proc/interrupts is logged and left out. */
int irqtune_snapshot_take(const struct irqtune_sys *sys,
			  const struct logger *log,
			  struct irqtune_snapshot *snap);
void irqtune_snapshot_free(struct irqtune_snapshot *snap);

/* Fills one IRQ (count, chip, affinity, threads with their scheduling
 * and CPUs) from the snapshot and the system. */
void irqtune_inspect_irq(const struct irqtune_sys *sys,
			 const struct irqtune_snapshot *snap, int irq,
			 struct irqtune_irqinfo *out);
/* Fills every live value of a port.  Values that cannot be read stay
 * "unknown"; a port that is not a TTY the serial ioctls accept (e.g.
 * under umockdev) simply has no low_latency and counters. */
void irqtune_inspect_port(const struct irqtune_sys *sys,
			  const struct irqtune_snapshot *snap,
			  struct irqtune_port *p);

#endif
