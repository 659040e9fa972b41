/*
 * port_name.h: the name a port's irdad goes by in /run/irnet (its
 * control socket PORT.sock), shared by irdad, which names its socket so,
 * and its clients (irdactl -s PORT, irsock --daemon PORT, the pppd
 * plugin), which find it so.
 *
 * A serial port is named by its device path's last component (ttyUSB0);
 * a USB dongle by its name (irnet-tools(7), "USB dongles") with every
 * character a file name should not carry as '-': usb:1-1 is usb-1-1,
 * usb:9710:7780 is usb-9710-7780, usb:serial=A1 is usb-serial-A1.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_PORT_NAME_H
#define IRNET_PORT_NAME_H

#include <stdbool.h>
#include <stddef.h>

/* Whether device is a USB dongle's name ("usb" or "usb:..."). */
bool irnet_port_is_usb(const char *device);
/* The port name of device into out.  Returns its length, or -EINVAL for
 * an empty name or a path ending in '/', -ENAMETOOLONG if it does not
 * fit in cap. */
int irnet_port_name(const char *device, char *out, size_t cap);

#endif
