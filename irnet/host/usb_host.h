/*
 * usb_host.h: the libusb-1.0 host adapter for the USB dongle family
 * cores (irnet/usb/usb_dongle.h); the only libusb caller in the project.
 *
 * Owns: one libusb context bound to an eloop (libusb's fds registered
 * through libusb_get_pollfds and the pollfd notifiers, events handled
 * with a zero timeout when they are ready, libusb's own timeout on a loop
 * timer); per device: opening it (a libusb_device, bus/address or
 * VID:PID), finding the first bulk IN and OUT endpoints, detaching a
 * kernel driver (reattached at close and on every failure path),
 * claiming the interface, and running a family core: its submits become
 * asynchronous libusb transfers, its cancels libusb_cancel_transfer,
 * completions go back through usb_dongle_complete, its deadline is one
 * loop timer.  The handle is closed only after the core's CLOSED event,
 * from a loop timer, never inside a libusb callback.
 *
 * Does not own: the eloop (the caller's), IrLAP, which speed to use,
 * queueing frames (send when usb_host_can_send), hotplug.
 *
 * Callbacks to the caller (struct usb_host_up) never run inside the
 * core's callbacks: events are queued and delivered from a zero-delay
 * loop timer, so the caller may call usb_host_send, _set_speed or _close
 * from them.  The frame callback is the exception: it runs inside the
 * core's completion and must not call back into this device.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_USB_HOST_H
#define IRNET_USB_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "eloop.h"
#include "log.h"
#include "usb_dongle.h"
#include "usb_name.h"

struct libusb_context;
struct libusb_device;
struct usb_host_ctx;
struct usb_host_dev;

/* Creates a libusb context and registers its fds with loop.  Returns 0
 * or -errno. */
int usb_host_ctx_new(struct eloop *loop, const struct logger *log, struct usb_host_ctx **out);
/* Every device must have been freed first. */
void usb_host_ctx_free(struct usb_host_ctx *c);
struct libusb_context *usb_host_libusb(struct usb_host_ctx *c);

struct usb_host_up {
	/* A good frame (runs inside the core: do not call into this device). */
	void (*frame)(void *ctx, const struct usb_rx_frame *f);
	/* OPENED, SPEED, TX_DONE, MEDIA_BUSY, FAILED, GONE (then call
	 * usb_host_close), CLOSED (the handle is closed: usb_host_free). */
	void (*event)(void *ctx, enum usb_dongle_event ev, int err);
	void *ctx;
};

/* How to pick the device.  family NULL: the registry's match for the
 * device's IDs or interface class. */
struct usb_host_open_args {
	struct libusb_device *device;	/* if set, used as is */
	const struct usb_name *name;	/* if set (and no device): the first it names */
	int bus, address;		/* if > 0 (and no device) */
	uint16_t vid, pid;		/* otherwise the first with these IDs */
	const struct usb_family *family;
	enum usb_clear_halt_mode clear_halt;
	struct usb_host_up up;
};

/* One device present, as a listing shows it. */
struct usb_host_found {
	struct usb_dev_facts facts;
	char serial[USB_NAME_SERIAL_MAX];	/* "" if none or unreadable */
	char path[32];			/* /dev/bus/usb/BBB/DDD */
	char port[32];			/* 1-1.4, "" if unknown */
	const struct usb_family *family;	/* NULL: no family drives it */
	uint8_t iface_class, iface_subclass;	/* of its first interface */
	/* 1: a kernel driver holds its interface, 0: none, -errno: could
	 * not be told (-EACCES: no permission to open it) */
	int kernel_driver;
};

/* Every USB device present (irda_only: only those a family drives), at
 * most cap in out; *n gets how many there are.  The serial number and
 * the kernel driver need the device opened: they are read where it can
 * be.  Returns 0 or -errno. */
int usb_host_list(struct usb_host_ctx *c, bool irda_only, struct usb_host_found *out, size_t cap,
		  size_t *n);

/* Calls arrived(ctx) from the loop (a zero-delay timer, never inside
 * libusb) after any USB device appears, through libusb's hotplug events.
 * One watch per context; arrived NULL ends it.  Returns 0, or -ENOTSUP
 * where libusb has no hotplug (the caller polls). */
int usb_host_watch_arrivals(struct usb_host_ctx *c, void (*arrived)(void *ctx), void *ctx);

/* Opens, claims and creates the core, then starts its open sequence
 * (OPENED when done).  Returns 0 or -errno (-ENODEV: no such device,
 * -ENOTSUP: no family drives it, -ENOENT: no interface, -EACCES,
 * -EBUSY: another program has it). */
int usb_host_open(struct usb_host_ctx *c, const struct usb_host_open_args *a,
		  struct usb_host_dev **out);
bool usb_host_can_send(const struct usb_host_dev *d);
int usb_host_send(struct usb_host_dev *d, const struct usb_tx_frame *f);
int usb_host_set_speed(struct usb_host_dev *d, uint32_t baud);
/* Cancels everything; CLOSED once every transfer is back and the handle
 * is closed. */
int usb_host_close(struct usb_host_dev *d);
/* After CLOSED (or to abandon a device that never opened). */
void usb_host_free(struct usb_host_dev *d);
/* The open device as a listing shows it (its family the one driving it;
 * kernel_driver 1 if we detached one, to give back at close; no serial
 * number).  0, or -ENODEV once its handle is closed. */
int usb_host_describe(const struct usb_host_dev *d, struct usb_host_found *out);
const struct usb_endpoints *usb_host_endpoints(const struct usb_host_dev *d);
/* What the dongle can announce (usb_dongle_qos): after OPENED, the
 * device's own QoS where its family reads one. */
struct usb_dongle_qos usb_host_qos(const struct usb_host_dev *d);
/* Transfers submitted to libusb and not yet completed. */
unsigned usb_host_in_flight(const struct usb_host_dev *d);
bool usb_host_handle_closed(const struct usb_host_dev *d);
const struct usb_dongle_counters *usb_host_counters(const struct usb_host_dev *d);

#endif
