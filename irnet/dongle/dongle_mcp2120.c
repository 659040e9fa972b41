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

static const struct dongle_phase mcp2120_reset[] = {
	{ { .dtr = true, .rts = true }, 50000 },
	{ { .dtr = false, .rts = false }, 50000 },
};

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
	.reset_phases = mcp2120_reset,
	.reset_nphases = DONGLE_ARRAY_SIZE(mcp2120_reset),
	.codes = mcp2120_codes,
	.ncodes = DONGLE_ARRAY_SIZE(mcp2120_codes),
	.mode = &mcp2120_mode,
	.has_trailer = true,
	.trailer = MCP2120_COMMIT,
	.hold_us = 100000,
	.close = mcp2120_close,
};
