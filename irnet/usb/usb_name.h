/*
 * usb_name.h: the names users type for a USB IrDA dongle, wherever a
 * serial device is taken (-D, irnet-device, irdad's device):
 *
 *   usb               the first IrDA dongle present (a family drives it)
 *   usb:VID:PID       the first with these IDs (hexadecimal, 4 digits
 *                     at most each): usb:9710:7780
 *   usb:BUS-PORT[.PORT...]  the dongle in that physical port, as sysfs
 *                     names it (usb:1-1, usb:3-1.4.2): stable across a
 *                     replug into the same socket
 *   usb:serial=S      the one whose iSerialNumber string is S
 *
 * Owns: telling such a name from a device path, parsing it (every field
 * checked, a message naming the bad part), and whether a device's facts
 * match it.  A port path is at most USB_NAME_PORTS_MAX deep (USB allows
 * 7 tiers).
 *
 * Does not own: finding devices or reading their facts (the host
 * adapter, irnet/host/usb_host.h, lists them through libusb), or which
 * family drives a device (usb_dongle.h's registry).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_USB_NAME_H
#define IRNET_USB_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USB_NAME_PORTS_MAX 7
#define USB_NAME_SERIAL_MAX 128

enum usb_name_kind {
	USB_NAME_ANY,		/* "usb" */
	USB_NAME_IDS,		/* "usb:VID:PID" */
	USB_NAME_PORT,		/* "usb:BUS-PORT[.PORT]" */
	USB_NAME_SERIAL,	/* "usb:serial=S" */
};

struct usb_name {
	enum usb_name_kind kind;
	uint16_t vid, pid;
	uint8_t bus;
	uint8_t ports[USB_NAME_PORTS_MAX];
	size_t nports;
	char serial[USB_NAME_SERIAL_MAX];
};

/* What is known of one device present, for matching and listing. */
struct usb_dev_facts {
	uint16_t vid, pid;
	uint8_t bus, address;
	uint8_t ports[USB_NAME_PORTS_MAX];
	size_t nports;
	const char *serial;	/* NULL: none, or not read */
	bool irda;		/* a family of usb_dongle.h drives it */
};

/* Whether s is a USB name ("usb" or "usb:..."), not a device path. */
bool usb_name_is_usb(const char *s);
/* Parses s.  Returns 0, or -EINVAL with a message in err that quotes s
 * and says which part is wrong. */
int usb_name_parse(const char *s, struct usb_name *out, char *err, size_t errlen);
/* Whether the device f is the one n names.  Only IrDA dongles match
 * "usb"; the other forms name a device the user chose, IrDA or not (the
 * open then says that no family drives it). */
bool usb_name_matches(const struct usb_name *n, const struct usb_dev_facts *f);
/* The physical port as sysfs writes it ("1-1.4"); "" if unknown.
 * Returns the length, as snprintf does. */
int usb_port_path_text(uint8_t bus, const uint8_t *ports, size_t nports, char *buf, size_t cap);

#endif
