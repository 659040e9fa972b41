/*
 * usb_line.h: a USB IrDA dongle as a station's framed line
 * (station.h's struct station_frame_line), for the programs that take a
 * device name: the names of usb_name.h ("usb", "usb:9710:7780",
 * "usb:1-1", "usb:serial=S") are found, opened and brought up through the
 * libusb host adapter (usb_host.h).
 *
 * Owns: one libusb context and one dongle per line; the open, waited for
 * at start-up (the dongle's init sequence, bounded); the frames and speed
 * switches IrLAP hands the station, queued in order while the dongle
 * cannot take them (a core holds one frame; IrLAP sends a window's worth
 * in one turn); what the dongle reports, turned into the station's
 * station_line_* calls (a frame, something damaged heard, the dongle
 * gone or failed); the close, which lets the queued frames out first
 * (bounded) and gives a detached kernel driver back.
 *
 * Does not own: the station (the caller binds it), the loop, what to do
 * when the dongle goes away (the station's app is told, as for a port).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_USB_LINE_H
#define IRNET_USB_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eloop.h"
#include "log.h"
#include "station.h"

struct usb_line;

/* The opened dongle, in words, for messages and listings. */
struct usb_line_info {
	char path[32];		/* /dev/bus/usb/001/002 */
	char port[32];		/* 1-1, "" if unknown */
	uint16_t vid, pid;
	const char *family;	/* "mcs7780" */
	const char *chip;	/* "MosChip MCS7780" */
	/* What it can announce, IrLAP QoS bits: the family's, or the
	 * device's own (the Bridge class descriptor) */
	uint16_t baud_bits;
	uint8_t min_tat_bits;	/* the turnaround it needs */
	uint8_t window_bits, data_size_bits;
	bool kernel_driver_detached;
};

/* Whether name is a USB dongle name ("usb", "usb:..."), not a path. */
bool usb_line_is_usb_name(const char *name);

/* How long usb_line_open waits for the dongle's init sequence. */
#define USB_LINE_OPEN_TIMEOUT_US 5000000u

/* Finds the dongle name names, opens it and runs its init sequence
 * (the loop runs meanwhile).  Returns 0 and *out, or -errno with a
 * message in err that names the device and says what to do: -ENODEV
 * (none present), -EACCES (the group or udev rule), -EBUSY (another
 * program has it), -ENOTSUP (no family drives it), -EINVAL (a bad name),
 * -ETIMEDOUT (the init sequence never ended). */
int usb_line_open(struct eloop *loop, const char *name, const struct logger *log,
		  struct usb_line **out, char *err, size_t errlen);
/* The line of name with no dongle open yet (usb_line_reopen opens one):
 * for a daemon that waits for its dongle to be plugged in.  Its info is
 * empty until then.  0, or -EINVAL (a bad name) or -ENOMEM, with err. */
int usb_line_new(struct eloop *loop, const char *name, const struct logger *log,
		 struct usb_line **out, char *err, size_t errlen);
/* After the dongle went away (the station detached): closes what is
 * left of it; the line keeps its name and its libusb context. */
void usb_line_release(struct usb_line *l);
/* Opens the dongle the line's name names again, as usb_line_open did
 * (the station is attached again by the caller).  0, or -errno as
 * usb_line_open's, with a message in err. */
int usb_line_reopen(struct usb_line *l, char *err, size_t errlen);
/* Calls arrived(ctx) from the loop whenever a USB device appears (libusb
 * hotplug), to try usb_line_reopen; arrived NULL ends it.  0, or
 * -ENOTSUP without hotplug (the caller retries on a timer). */
int usb_line_watch(struct usb_line *l, void (*arrived)(void *ctx), void *ctx);

/* The line to give station_new_framed (or stack_config.framed). */
const struct station_frame_line *usb_line_framed(struct usb_line *l);
/* Where received frames and the dongle's news go from now on. */
void usb_line_bind(struct usb_line *l, struct station *st);
const struct usb_line_info *usb_line_info(const struct usb_line *l);
/* Lets the queued frames out (bounded), closes the dongle, gives a
 * detached kernel driver back and frees everything.  Runs the loop. */
void usb_line_close(struct usb_line *l);

/* The IrDA dongles present (every USB device with all), at most cap
 * of them in out; *n gets the count.  0 or -errno. */
struct usb_line_listing {
	char path[32];
	char port[32];
	uint16_t vid, pid;
	char serial[128];
	const char *family, *chip;	/* NULL: no family drives it */
	uint16_t baud_bits;
	/* 1: a kernel driver holds it, 0: none, -errno: unknown */
	int kernel_driver;
};
int usb_line_list(struct eloop *loop, bool all, struct usb_line_listing *out, size_t cap,
		  size_t *n, char *err, size_t errlen);

#endif
