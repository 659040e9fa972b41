/*
 * dongle_girbil.c: Greenwich GIrBIL (Linux girbil-sir.c, NetBSD
 * irts_girbil).
 *
 * Command mode is (DTR,RTS) = (0,1), normal mode (1,1); the Linux comment
 * says the opposite, its code and NetBSD agree on DTR low.  Reset: (1,0)
 * 20 ms, command mode 20 ms, write control register 1 = TXEN|RXEN (0x03),
 * 20 ms, normal mode -> 9600.  Speed: command mode, 25 us, the baud
 * register byte then 0x51 (load), wait 100 ms, normal mode.  MTT bits
 * 0x03 (5 ms).
 *
 * Conflict: Linux's switch tests `case 34800` instead of 38400, so a
 * 38400 request there falls to the 9600 code and fails, although Linux
 * offers 38400 in its QoS.  That is a typo, not a property of the part:
 * the baud register has a 38400 code (0x34), so we offer and program
 * 38400.  If a unit misbehaves at 38400: "girbil:rate38400=off".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>

#include "dongle_impl.h"

#define GIRBIL_CONTROL1_TXEN_RXEN 0x03
#define GIRBIL_LOAD 0x51

static const struct dongle_code girbil_codes[] = {
	{ 9600, 0x32 }, { 19200, 0x33 }, { 38400, 0x34 }, { 57600, 0x35 },
	{ 115200, 0x36 },
};

static const struct dongle_command_mode girbil_reset_mode = {
	.command = { .dtr = false, .rts = true },
	.normal = { .dtr = true, .rts = true },
	.settle_us = 20000,
};

static const struct dongle_command_mode girbil_speed_mode = {
	.command = { .dtr = false, .rts = true },
	.normal = { .dtr = true, .rts = true },
	.settle_us = 25,
};

static const struct dongle_option girbil_options[] = {
	DONGLE_OPTION_RATE38400,
	{ .key = NULL },
};

static int girbil_reset(const struct dongle *d, struct dongle_script *s)
{
	static const uint8_t enable = GIRBIL_CONTROL1_TXEN_RXEN;
	int r = script_hold(s, true, false, 20000);
	return r ? r : script_command(s, &girbil_reset_mode, &enable, 1, 20000);
}

const struct dongle_driver dongle_girbil = {
	.name = "girbil",
	.description = "Greenwich GIrBIL",
	.linux_id = 4,
	.rates = DONGLE_RATE_9600 | DONGLE_RATE_19200 | DONGLE_RATE_38400 |
		 DONGLE_RATE_57600 | DONGLE_RATE_115200,
	.mtt_bits = 0x03,
	.reset_baud = 9600,
	.line_powered = true,
	.options = girbil_options,
	.reset = girbil_reset,
	.codes = girbil_codes,
	.ncodes = DONGLE_ARRAY_SIZE(girbil_codes),
	.mode = &girbil_speed_mode,
	.has_trailer = true,
	.trailer = GIRBIL_LOAD,
	.hold_us = 100000,
};
