/*
 * discover.c: hardware serial ports from sysfs through libudev.  See
 * discover.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "discover.h"

#include "array.h"
#include "cursor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *subsystem(struct udev_device *d)
{
	const char *s = udev_device_get_subsystem(d);
	return s ? s : "";
}

/* serial_core (kernel 6.5+) puts "serial-base" ctrl/port devices between
 * the TTY and the hardware; the hardware is the first other parent. */
static struct udev_device *uart_hardware(struct udev_device *tty)
{
	struct udev_device *d = udev_device_get_parent(tty);
	while (d && strcmp(subsystem(d), "serial-base") == 0)
		d = udev_device_get_parent(d);
	return d;
}

struct irq_list {
	struct irqtune_port *p;
};

static int add_msi_irq(void *arg, const char *name)
{
	struct irq_list *l = arg;
	long irq;
	if (l->p->nhc < IRQTUNE_MAX_HC_IRQS &&
	    irqtune_parse_long(name, strlen(name), 1, INT32_MAX, &irq))
		l->p->hc[l->p->nhc++].irq = (int)irq;
	return 0;
}

static int cmp_irqinfo(const void *a, const void *b)
{
	const struct irqtune_irqinfo *x = a, *y = b;
	return (x->irq > y->irq) - (x->irq < y->irq);
}

/* The host controller is the first parent of the USB device tree that is
 * not itself on the USB bus (a PCI function, a platform device). */
static void usb_host(const struct irqtune_sys *sys, struct udev_device *tty,
		     struct irqtune_port *p)
{
	struct udev_device *d =
		udev_device_get_parent_with_subsystem_devtype(tty, "usb",
							      "usb_device");
	while (d && strcmp(subsystem(d), "usb") == 0)
		d = udev_device_get_parent(d);
	if (!d || !irqtune_copy(p->hc_syspath, sizeof(p->hc_syspath),
			    udev_device_get_syspath(d)))
		return;
	irqtune_copy(p->hc_driver, sizeof(p->hc_driver), udev_device_get_driver(d));
	char path[IRQTUNE_PATH + 16];
	snprintf(path, sizeof(path), "%s/msi_irqs", p->hc_syspath);
	struct irq_list l = { p };
	sys->ops->list_dir(sys->ctx, path, add_msi_irq, &l);
	if (p->nhc == 0) {
		const char *irq = udev_device_get_sysattr_value(d, "irq");
		long v;
		if (irq && irqtune_parse_long(irq, strlen(irq), 1, INT32_MAX, &v))
			p->hc[p->nhc++].irq = (int)v;
	}
	qsort(p->hc, p->nhc, sizeof(p->hc[0]), cmp_irqinfo);
}

static void copy_props(struct udev_device *dev, struct irqtune_port *p)
{
	struct udev_list_entry *e;
	udev_list_entry_foreach(e, udev_device_get_properties_list_entry(dev))
	{
		const char *v = udev_list_entry_get_value(e);
		irqtune_port_set_prop(p, udev_list_entry_get_name(e),
				      v ? v : "");
	}
}

static void add_link(struct irqtune_port *p, const char *link, size_t len)
{
	if (p->nlinks < IRQTUNE_MAX_LINKS && len > 0 &&
	    len < sizeof(p->links[0])) {
		memcpy(p->links[p->nlinks], link, len);
		p->links[p->nlinks++][len] = '\0';
	}
}

/* The udev database's links; without one (a testbed, an initramfs with
 * a static /dev), the DEVLINKS property if the uevent carries it. */
static void copy_links(struct udev_device *dev, struct irqtune_port *p)
{
	struct udev_list_entry *e;
	udev_list_entry_foreach(e, udev_device_get_devlinks_list_entry(dev))
	{
		const char *l = udev_list_entry_get_name(e);
		add_link(p, l, strlen(l));
	}
	const char *prop = irqtune_port_prop(p, "DEVLINKS");
	if (p->nlinks > 0 || !prop)
		return;
	struct cursor c, word;
	cursor_init(&c, prop, strlen(prop));
	for (;;) {
		cursor_skip_blanks(&c);
		if (!cursor_word(&c, &word))
			break;
		const uint8_t *text;
		size_t n = cursor_remaining(&word);
		if (cursor_view(&word, n, &text))
			add_link(p, (const char *)text, n);
	}
}

static void set_attr_path(char *dst, size_t cap, struct udev_device *d,
			  const char *attr)
{
	dst[0] = '\0';
	if (d && udev_device_get_sysattr_value(d, attr))
		snprintf(dst, cap, "%s/%s", udev_device_get_syspath(d), attr);
}

/* Returns 1 when dev is a hardware serial port (p filled), 0 when it is
 * not, -errno on error. */
static int classify(const struct irqtune_sys *sys, const struct logger *log,
		    struct udev_device *dev, struct irqtune_port *p)
{
	const char *name = udev_device_get_sysname(dev);
	if (!udev_device_get_parent(dev) || !name)
		return 0; /* virtual: tty0, ptmx, console ... */
	memset(p, 0, sizeof(*p));
	p->irq.irq = -1;
	p->uart_type = -1;
	if (!irqtune_copy(p->name, sizeof(p->name), name) ||
	    !irqtune_copy(p->syspath, sizeof(p->syspath),
		      udev_device_get_syspath(dev))) {
		log_msg(log, LOG_LEVEL_WARNING, "%s: name or path too long, "
			"skipped", name);
		return 0;
	}
	const char *node = udev_device_get_devnode(dev);
	if (node)
		irqtune_copy(p->devnode, sizeof(p->devnode), node);
	else
		snprintf(p->devnode, sizeof(p->devnode), "/dev/%s", name);

	const char *type = udev_device_get_sysattr_value(dev, "type");
	struct udev_device *usb_serial =
		udev_device_get_parent_with_subsystem_devtype(dev, "usb-serial",
							      NULL);
	struct udev_device *intf =
		udev_device_get_parent_with_subsystem_devtype(dev, "usb",
							      "usb_interface");
	long v;
	if (type) {
		if (!irqtune_parse_long(type, strlen(type), 0, 1 << 16, &v))
			return 0;
		if (v == 0) {
			log_msg(log, LOG_LEVEL_DEBUG,
				"%s: no UART present (type 0), skipped", name);
			return 0;
		}
		p->bus = IRQTUNE_BUS_UART;
		p->uart_type = (int)v;
		struct udev_device *hw = uart_hardware(dev);
		irqtune_copy(p->driver, sizeof(p->driver),
			 hw ? udev_device_get_driver(hw) : NULL);
		const char *irq = udev_device_get_sysattr_value(dev, "irq");
		if (irq && irqtune_parse_long(irq, strlen(irq), 1, INT32_MAX, &v))
			p->irq.irq = (int)v;
		set_attr_path(p->rx_trig_path, sizeof(p->rx_trig_path), dev,
			      "rx_trig_bytes");
	} else if (usb_serial || intf) {
		struct udev_device *drv = usb_serial ? usb_serial : intf;
		p->bus = IRQTUNE_BUS_USB;
		irqtune_copy(p->driver, sizeof(p->driver),
			 udev_device_get_driver(drv));
		set_attr_path(p->latency_path, sizeof(p->latency_path),
			      usb_serial, "latency_timer");
		usb_host(sys, dev, p);
	} else {
		log_msg(log, LOG_LEVEL_DEBUG,
			"%s: not a serial_core or USB serial port, skipped",
			name);
		return 0;
	}

	copy_props(dev, p);
	copy_links(dev, p);
	if (p->driver[0])
		irqtune_port_set_prop(p, "DRIVER", p->driver);
	struct udev_device *usbdev =
		udev_device_get_parent_with_subsystem_devtype(dev, "usb",
							      "usb_device");
	if (usbdev) {
		const char *vid = udev_device_get_sysattr_value(usbdev, "idVendor");
		const char *pid = udev_device_get_sysattr_value(usbdev, "idProduct");
		if (vid && !irqtune_port_prop(p, "ID_VENDOR_ID"))
			irqtune_port_set_prop(p, "ID_VENDOR_ID", vid);
		if (pid && !irqtune_port_prop(p, "ID_MODEL_ID"))
			irqtune_port_set_prop(p, "ID_MODEL_ID", pid);
	}
	return 1;
}

static int cmp_port(const void *a, const void *b)
{
	const struct irqtune_port *x = a, *y = b;
	return strverscmp(x->name, y->name);
}

int irqtune_discover(struct udev *udev, const struct irqtune_sys *sys,
		     const struct logger *log, struct irqtune_ports *out)
{
	int rc = 0;
	size_t cap = 0;
	memset(out, 0, sizeof(*out));
	struct udev_enumerate *en = udev_enumerate_new(udev);
	if (!en)
		return -ENOMEM;
	if (udev_enumerate_add_match_subsystem(en, "tty") < 0 ||
	    udev_enumerate_scan_devices(en) < 0) {
		udev_enumerate_unref(en);
		return -EIO;
	}
	struct udev_list_entry *e;
	udev_list_entry_foreach(e, udev_enumerate_get_list_entry(en))
	{
		struct udev_device *dev = udev_device_new_from_syspath(
			udev, udev_list_entry_get_name(e));
		if (!dev)
			continue;
		void *nv = array_grow(out->v, &cap, out->n, sizeof(*out->v), 8);
		if (!nv) {
			udev_device_unref(dev);
			rc = -ENOMEM;
			break;
		}
		out->v = nv;
		int found = classify(sys, log, dev, &out->v[out->n]);
		udev_device_unref(dev);
		if (found > 0)
			out->n++;
	}
	udev_enumerate_unref(en);
	if (rc < 0) {
		irqtune_ports_free(out);
		return rc;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_port);
	return 0;
}
