/*
 * port_name.c: a port's name in /run/irnet; see port_name.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "port_name.h"

#include <errno.h>
#include <string.h>

bool irnet_port_is_usb(const char *device)
{
	return strncmp(device, "usb", 3) == 0 && (device[3] == '\0' || device[3] == ':');
}

static bool file_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

int irnet_port_name(const char *device, char *out, size_t cap)
{
	const char *base = strrchr(device, '/');
	bool usb = irnet_port_is_usb(device);
	size_t n;

	/* a USB name may hold a '/' only inside a serial number */
	base = usb || !base ? device : base + 1;
	n = strlen(base);
	if (n == 0)
		return -EINVAL;
	if (n >= cap)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < n; i++)
		out[i] = usb && !file_name_char(base[i]) ? '-' : base[i];
	out[n] = '\0';
	return (int)n;
}
