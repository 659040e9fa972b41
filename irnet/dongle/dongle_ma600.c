/*
 * dongle_ma600.c: Mobile Action MA600 (Linux ma600-sir.c).
 *
 * Powered (1,1).  Reset: (0,1) 10 ms, (1,1) 10 ms -> 9600.  Speed:
 * command mode (1,0) for 1 ms, one control byte at 9600, then at least
 * 10 ms (Linux 15), during which the dongle echoes the byte back; the
 * echo is checked (Linux aborts on a mismatch, so do we), then (1,1) and
 * 10 ms.  Input is discarded before the byte so that only the echo is
 * compared.  Rates 2400-115200.  MTT bits 0x01 (10 ms; Linux's comment
 * says 1 ms would do, its code asks 10 ms, and so do we).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "dongle_impl.h"

static const struct dongle_code ma600_codes[] = {
	{ 2400, 0x08 }, { 9600, 0x00 }, { 19200, 0x01 }, { 38400, 0x02 },
	{ 57600, 0x03 }, { 115200, 0x04 },
};

static const struct dongle_command_mode ma600_mode = {
	.command = { .dtr = true, .rts = false },
	.normal = { .dtr = true, .rts = true },
	.settle_us = 1000,
	.after_us = 10000,
	.echo = true,
	/* beyond the 15 ms hold: the byte itself takes ~1 ms at 9600 */
	.echo_timeout_us = 20000,
};

static const struct dongle_phase ma600_reset[] = {
	{ { .dtr = false, .rts = true }, 10000 },
	{ { .dtr = true, .rts = true }, 10000 },
};

const struct dongle_driver dongle_ma600 = {
	.name = "ma600",
	.description = "Mobile Action MA600",
	.linux_id = 11,
	.rates = DONGLE_RATE_2400 | DONGLE_RATE_9600 | DONGLE_RATE_19200 |
		 DONGLE_RATE_38400 | DONGLE_RATE_57600 | DONGLE_RATE_115200,
	.mtt_bits = 0x01,
	.reset_baud = 9600,
	.line_powered = true,
	.reset_phases = ma600_reset,
	.reset_nphases = DONGLE_ARRAY_SIZE(ma600_reset),
	.codes = ma600_codes,
	.ncodes = DONGLE_ARRAY_SIZE(ma600_codes),
	.mode = &ma600_mode,
	.hold_us = 15000,
};
