/*
 * dongle_toim3232.c: Vishay/Temic TOIM3232 and TOIM4232 boards such as
 * the IRWave IR320ST-2 (Linux 4.x staging toim3232-sir.c).
 *
 * The board inverts RTS onto the chip's BR/D pin: (DTR,RTS) = (1,0) is
 * baud-programming mode, (1,1) data mode.  It has no RESET wire, so reset
 * is a power cycle: both lines low for 50 ms, both high for 10 ms ->
 * 9600.  Speed: programming mode, 7 us, one byte, wait until sent, hold
 * (Linux's module default 150 ms), data mode, 50 us.  The 0x10 bit is the
 * pulse-select bit as on the Tekram; 115200 is sent without it as Linux
 * does.  Rates 2400-115200, MTT bits 0x01.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>

#include "dongle_impl.h"

static const struct dongle_code toim3232_codes[] = {
	{ 2400, 0x1a }, { 9600, 0x16 }, { 19200, 0x13 }, { 38400, 0x12 },
	{ 57600, 0x11 }, { 115200, 0x00 },
};

static const struct dongle_option toim3232_options[] = {
	DONGLE_OPTION_DELAY,
	{ .key = NULL },
};

static const struct dongle_phase toim3232_reset[] = {
	{ { .dtr = false, .rts = false }, 50000 },
	{ { .dtr = true, .rts = true }, 10000 },
};

const struct dongle_driver dongle_toim3232 = {
	.name = "toim3232",
	.description = "Vishay TOIM3232/TOIM4232 (IRWave IR320ST-2)",
	.linux_id = 12,
	.rates = DONGLE_RATE_2400 | DONGLE_RATE_9600 | DONGLE_RATE_19200 |
		 DONGLE_RATE_38400 | DONGLE_RATE_57600 | DONGLE_RATE_115200,
	.mtt_bits = 0x01,
	.reset_baud = 9600,
	.line_powered = true,
	.options = toim3232_options,
	.reset_phases = toim3232_reset,
	.reset_nphases = DONGLE_ARRAY_SIZE(toim3232_reset),
	.codes = toim3232_codes,
	.ncodes = DONGLE_ARRAY_SIZE(toim3232_codes),
	.mode = &dongle_rts_low_byte_mode,   /* hold: the delay= option */
};
