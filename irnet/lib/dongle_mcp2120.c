/*
 * dongle_mcp2120.c: Microchip MCP2120 (Linux mcp2120-sir.c).
 *
 * Unlike the others, RTS high holds the chip in reset and the normal
 * (data) mode is both lines LOW.  Reset: (1,1) 50 ms, then (0,0) and
 * 50 ms (the part needs >= 30 ms; Linux waits 50) -> 9600.  Speed: DTR
 * high is command mode, (1,0), 500 us, two bytes [rate code, 0x11
 * commit], wait until sent, 100 ms, back to (0,0).  Close leaves it held
 * in reset (1,1).  MTT bits 0x01 (10 ms).
 *
 * Conflict: as in girbil-sir.c, Linux's switch has `case 34800`, so its
 * 38400 request fails; the 38400 code 0x85 exists, so we offer it.
 * "mcp2120:rate38400=off" drops it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>

#include "dongle_impl.h"

#define MCP2120_COMMIT 0x11

static const struct dongle_code mcp2120_codes[] = {
	{ 9600, 0x87 }, { 19200, 0x8b }, { 38400, 0x85 }, { 57600, 0x83 },
	{ 115200, 0x81 },
};

static const struct dongle_command_mode mcp2120_mode = {
	.command = { .dtr = true, .rts = false },
	.normal = { .dtr = false, .rts = false },
	.settle_us = 500,
};

static const struct dongle_option mcp2120_options[] = {
	DONGLE_OPTION_RATE38400,
	{ .key = NULL },
};

static int mcp2120_reset(const struct dongle *d, struct dongle_script *s)
{
	int r = script_hold(s, true, true, 50000);
	return r ? r : script_hold(s, false, false, 50000);
}

static int mcp2120_speed(const struct dongle *d, uint32_t baud,
			 struct dongle_script *s)
{
	uint8_t cmd[2] = { 0, MCP2120_COMMIT };
	int r = dongle_code_for(mcp2120_codes, DONGLE_ARRAY_SIZE(mcp2120_codes),
				baud, &cmd[0], s);
	return r ? r : script_command(s, &mcp2120_mode, cmd, 2, 100000);
}

static int mcp2120_close(const struct dongle *d, struct dongle_script *s)
{
	return script_lines(s, true, true);
}

const struct dongle_driver dongle_mcp2120 = {
	.name = "mcp2120",
	.description = "Microchip MCP2120",
	.linux_id = 9,
	.rates = DONGLE_RATE_9600 | DONGLE_RATE_19200 | DONGLE_RATE_38400 |
		 DONGLE_RATE_57600 | DONGLE_RATE_115200,
	.mtt_bits = 0x01,
	.reset_baud = 9600,
	.options = mcp2120_options,
	.reset = mcp2120_reset,
	.speed = mcp2120_speed,
	.close = mcp2120_close,
};
