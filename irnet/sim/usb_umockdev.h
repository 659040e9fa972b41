/*
 * usb_umockdev.h: a USB device model (usb_model.h) behind umockdev's
 * usbfs emulation, so that a real libusb program, in this process or in
 * another one run under umockdev's preload, opens and drives the model
 * as a device at /dev/bus/usb/BBB/DDD.
 *
 * Owns: the device in the testbed (its sysfs attributes, descriptors and
 * node, added as umockdev-record would describe it, with the physical
 * port B-1), a handle-ioctl handler that turns usbfs ioctls into model
 * calls (a control or bulk OUT URB finished at once, a bulk IN kept in
 * flight until the model has data, looked at again at each reap; a
 * discard finishes it with -ENOENT), unplug (the model gone, pending URBs
 * finished with -ENODEV, the device removed) and replug (a new model, the
 * device added again), and the lock around the model.  The handler runs
 * on umockdev's own thread: every access to the model from elsewhere goes
 * through usb_umockdev_lock/unlock.
 *
 * Never dereferences a pointer of the client: the URB and its buffer are
 * resolved at SUBMITURB (umockdev copies them over from the client), the
 * results go into those copies, and umockdev writes them back when the
 * REAPURB that hands the URB over completes (docs/irnet-usb.md).
 *
 * Does not own: the testbed (the caller's, created before any thread
 * whose signal mask matters: umockdev starts its worker thread then), the
 * model's behaviour, the client's environment, any event loop.  Built only
 * when configure finds umockdev.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_USB_UMOCKDEV_H
#define IRNET_USB_UMOCKDEV_H

#include <stdint.h>
#include <umockdev.h>

#include "usb_model.h"

struct usb_umockdev;

/* What the handler did, for tests and -v. */
struct usb_umockdev_counters {
	uint64_t submits, reaps, discards;
	uint64_t refused;	/* SUBMITURB with no free slot */
	uint64_t stale;		/* ioctls from a client of an unplugged device */
};

/* Called on umockdev's thread, without the lock held, after the model
 * took a bulk OUT transfer (so a frame may wait on its optical side) or
 * ran a control transfer (which may have changed its speed). */
typedef void (*usb_umockdev_notify_fn)(void *ctx);

/* Adds the device for model (taken over, freed by usb_umockdev_free even
 * on failure) at bus/address (1..127 each) to testbed and attaches the
 * handler to its node.  Returns 0, -EINVAL for a bad bus or address,
 * -ENOMEM, or -EIO when umockdev refuses the device. */
int usb_umockdev_new(UMockdevTestbed *testbed, int bus, int address, struct usb_model *model,
		     struct usb_umockdev **out);
/* Takes no reference: fn runs until usb_umockdev_free. */
void usb_umockdev_set_notify(struct usb_umockdev *u, usb_umockdev_notify_fn fn, void *ctx);
/* The device unplugged: the model is freed, URBs in flight finish with
 * -ENODEV, further ioctls of its clients fail with ENODEV, a "remove"
 * uevent is sent (only when this process runs under umockdev's preload:
 * the sender finds the device through libudev) and the device leaves the
 * testbed.  -ENODEV if it is already unplugged. */
int usb_umockdev_unplug(struct usb_umockdev *u);
/* Plugged back with a new model (taken over, freed on failure): the
 * device is added again (umockdev sends the "add" uevent, which reaches
 * clients only when this process runs under the preload); clients must
 * open it again.  -EBUSY if it is plugged in. */
int usb_umockdev_replug(struct usb_umockdev *u, struct usb_model *model);
bool usb_umockdev_plugged(const struct usb_umockdev *u);
/* Frees the model and the handler; the testbed stays. */
void usb_umockdev_free(struct usb_umockdev *u);

/* The model, locked against umockdev's thread, or NULL (still locked:
 * call unlock) while unplugged. */
struct usb_model *usb_umockdev_lock(struct usb_umockdev *u);
void usb_umockdev_unlock(struct usb_umockdev *u);
/* A copy, taken under the lock. */
struct usb_umockdev_counters usb_umockdev_counters(struct usb_umockdev *u);
/* The device's node, e.g. "/dev/bus/usb/001/002", and its sysfs path,
 * e.g. "/sys/devices/pci0000:00/usb1/1-1". */
const char *usb_umockdev_devnode(const struct usb_umockdev *u);
const char *usb_umockdev_syspath(const struct usb_umockdev *u);

#endif
