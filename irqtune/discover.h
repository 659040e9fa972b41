/*
 * discover.h: finds the TTYs backed by real serial hardware, with libudev.
 *
 * Owns: walking the "tty" subsystem and each port's parents in sysfs to
 * learn its device node and links, driver, UART type, IRQ, tunable
 * attributes, and for USB adapters the host controller and its IRQs.
 * Works from sysfs alone when udev has no database (an initramfs, a
 * container): udev properties are then simply absent, and DRIVER,
 * ID_VENDOR_ID and ID_MODEL_ID are read from sysfs instead.
 *
 * Skipped: virtual TTYs (no parent device), 8250 slots with no UART
 * (type 0, "unknown"), and TTYs that are neither serial_core ports nor
 * USB serial/ACM.
 *
 * Does not own: live values (port.h) or changes (plan.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRQTUNE_DISCOVER_H
#define IRQTUNE_DISCOVER_H

#include <libudev.h>

#include "log.h"
#include "port.h"
#include "sys.h"

/* Fills out with every hardware serial port, sorted by name (ttyS2
 * before ttyS10).  sys is used to list a PCI function's msi_irqs.
 * Returns 0 or -errno. */
int irqtune_discover(struct udev *udev, const struct irqtune_sys *sys,
		     const struct logger *log, struct irqtune_ports *out);

#endif
