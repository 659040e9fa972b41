/*
 * irnet_names.c: station information as names and text (see irnet_names.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "irnet_names.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const struct irnet_hint_name irnet_hint_names[] = {
	{ 0x0100, "PnP" }, { 0x0200, "PDA" }, { 0x0400, "Computer" },
	{ 0x0800, "Printer" }, { 0x1000, "Modem" }, { 0x2000, "Fax" },
	{ 0x4000, "LAN" },
	{ 0x0001, "Telephony" }, { 0x0002, "FileServer" }, { 0x0004, "IrCOMM" },
	{ 0x0008, "Message" }, { 0x0010, "HTTP" }, { 0x0020, "OBEX" },
};
const size_t irnet_hint_names_n = sizeof(irnet_hint_names) / sizeof(irnet_hint_names[0]);

uint16_t irnet_hints_from_bytes(const uint8_t *bytes, size_t n)
{
	return (uint16_t)((n > 0 ? bytes[0] << 8 : 0) | (n > 1 ? bytes[1] : 0));
}

uint16_t irnet_hint_by_name(const char *name, size_t len)
{
	for (size_t i = 0; i < irnet_hint_names_n; i++)
		if (strlen(irnet_hint_names[i].name) == len &&
		    strncasecmp(irnet_hint_names[i].name, name, len) == 0)
			return irnet_hint_names[i].bit;
	return 0;
}

const char *irnet_charset_name(uint8_t cs)
{
	static const char *const iso[] = { "iso-8859-1", "iso-8859-2", "iso-8859-3",
		"iso-8859-4", "iso-8859-5", "iso-8859-6", "iso-8859-7", "iso-8859-8",
		"iso-8859-9" };

	if (cs == 0)
		return "ascii";
	if (cs <= 9)
		return iso[cs - 1];
	return cs == 0xff ? "unicode" : "unknown";
}

char *irnet_bytes_text(const uint8_t *bytes, size_t n, char *buf, size_t cap)
{
	size_t o = 0;

	if (cap == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		uint8_t ch = bytes[i];
		int w = (ch >= 0x20 && ch < 0x7f && ch != '\\') ?
			snprintf(buf + o, cap - o, "%c", ch) :
			snprintf(buf + o, cap - o, "\\x%02x", ch);

		if (w < 0 || (size_t)w >= cap - o) {
			buf[o] = '\0';
			break;
		}
		o += (size_t)w;
	}
	return buf;
}
