/*
 * usb_name.c: parsing and matching the USB dongle names (usb_name.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "usb_name.h"

#define PREFIX "usb:"
#define SERIAL_KEY "serial="

/* The digits of s[0..len) in base 10 or 16 as a number no larger than
 * max; false for an empty field, a non-digit or an overflow. */
static bool field_value(const char *s, size_t len, unsigned base, unsigned long max,
			unsigned long *out)
{
	unsigned long v = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		const char *digits = "0123456789abcdef";
		char c = s[i] >= 'A' && s[i] <= 'F' ? (char)(s[i] - 'A' + 'a') : s[i];
		const char *at = c ? strchr(digits, c) : NULL;
		unsigned d;

		if (!at || (unsigned)(at - digits) >= base)
			return false;
		d = (unsigned)(at - digits);
		if (v > (max - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

bool usb_name_is_usb(const char *s)
{
	return s && (strcmp(s, "usb") == 0 || strncmp(s, PREFIX, strlen(PREFIX)) == 0);
}

static int parse_ids(const char *name, const char *rest, struct usb_name *out, char *err,
		     size_t errlen)
{
	const char *colon = strchr(rest, ':');
	unsigned long vid, pid;

	if (!colon || !field_value(rest, (size_t)(colon - rest), 16, 0xffff, &vid) ||
	    !field_value(colon + 1, strlen(colon + 1), 16, 0xffff, &pid)) {
		snprintf(err, errlen, "%s: not a USB vendor and product ID pair "
			 "(usb:VID:PID, 4 hexadecimal digits each, as in usb:9710:7780)", name);
		return -EINVAL;
	}
	out->kind = USB_NAME_IDS;
	out->vid = (uint16_t)vid;
	out->pid = (uint16_t)pid;
	return 0;
}

static int parse_port(const char *name, const char *rest, struct usb_name *out, char *err,
		      size_t errlen)
{
	const char *dash = strchr(rest, '-');
	const char *p;
	unsigned long v;

	if (!dash || !field_value(rest, (size_t)(dash - rest), 10, 255, &v) || v == 0)
		goto bad;
	out->bus = (uint8_t)v;
	for (p = dash + 1;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);

		if (out->nports == USB_NAME_PORTS_MAX) {
			snprintf(err, errlen, "%s: a USB port path is at most %d ports deep", name,
				 USB_NAME_PORTS_MAX);
			return -EINVAL;
		}
		if (!field_value(p, len, 10, 255, &v) || v == 0)
			goto bad;
		out->ports[out->nports++] = (uint8_t)v;
		if (!dot)
			break;
		p = dot + 1;
	}
	out->kind = USB_NAME_PORT;
	return 0;
bad:
	snprintf(err, errlen, "%s: not a USB port (usb:BUS-PORT[.PORT...], numbers from 1, "
		 "as in usb:1-1 or usb:3-1.4; lsusb -t and irdad --list-devices show them)", name);
	return -EINVAL;
}

int usb_name_parse(const char *s, struct usb_name *out, char *err, size_t errlen)
{
	const char *rest;

	memset(out, 0, sizeof(*out));
	if (!usb_name_is_usb(s)) {
		snprintf(err, errlen, "%s: not a USB dongle name (usb, usb:VID:PID, "
			 "usb:BUS-PORT or usb:serial=S)", s ? s : "(none)");
		return -EINVAL;
	}
	if (strcmp(s, "usb") == 0) {
		out->kind = USB_NAME_ANY;
		return 0;
	}
	rest = s + strlen(PREFIX);
	if (strncmp(rest, SERIAL_KEY, strlen(SERIAL_KEY)) == 0) {
		rest += strlen(SERIAL_KEY);
		if (!*rest || strlen(rest) >= sizeof(out->serial)) {
			snprintf(err, errlen, "%s: the serial number must be 1 to %zu characters",
				 s, sizeof(out->serial) - 1);
			return -EINVAL;
		}
		memcpy(out->serial, rest, strlen(rest) + 1);
		out->kind = USB_NAME_SERIAL;
		return 0;
	}
	if (strchr(rest, ':'))
		return parse_ids(s, rest, out, err, errlen);
	if (strchr(rest, '-'))
		return parse_port(s, rest, out, err, errlen);
	snprintf(err, errlen, "%s: not a USB dongle name (usb, usb:VID:PID, usb:BUS-PORT or "
		 "usb:serial=S)", s);
	return -EINVAL;
}

bool usb_name_matches(const struct usb_name *n, const struct usb_dev_facts *f)
{
	switch (n->kind) {
	case USB_NAME_ANY:
		return f->irda;
	case USB_NAME_IDS:
		return f->vid == n->vid && f->pid == n->pid;
	case USB_NAME_PORT:
		return f->bus == n->bus && f->nports == n->nports &&
		       memcmp(f->ports, n->ports, n->nports) == 0;
	case USB_NAME_SERIAL:
		return f->serial && strcmp(f->serial, n->serial) == 0;
	}
	return false;
}

int usb_port_path_text(uint8_t bus, const uint8_t *ports, size_t nports, char *buf, size_t cap)
{
	int len, r;

	if (cap)
		buf[0] = '\0';
	if (nports == 0)
		return 0;
	len = snprintf(buf, cap, "%u-%u", bus, ports[0]);
	for (size_t i = 1; i < nports && len >= 0; i++) {
		r = snprintf(buf + ((size_t)len < cap ? (size_t)len : cap),
			     (size_t)len < cap ? cap - (size_t)len : 0, ".%u", ports[i]);
		len = r < 0 ? r : len + r;
	}
	return len;
}
