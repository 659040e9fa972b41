/*
 * dongle_actisys.c: ACTiSYS IR-220L and IR-220L+ (Linux actisys-sir.c,
 * NetBSD irts_actisys).
 *
 * Powered by DTR and RTS (1,1); its capacitor needs the 50 ms power
 * settle.  Reset to 9600: DTR low for 10 us with RTS high.  Each RTS-low
 * pulse (10 us low, 10 us high) steps the rate one place along the cycle
 * 9600 -> 19200 -> 57600 -> 115200 -> 38400, so after a reset the number
 * of pulses selects the rate.  38400 exists only on the 220L+.  Both ask
 * for MTT bits 0x7F (down to 10 us).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "dongle_impl.h"

#define ACTISYS_PULSE_US 10u

static const struct dongle_code actisys_pulses[] = {
	{ 9600, 0 }, { 19200, 1 }, { 57600, 2 }, { 115200, 3 }, { 38400, 4 },
};

static const struct dongle_lines high = { .dtr = true, .rts = true };

/* one DTR-low pulse */
static const struct dongle_phase actisys_reset[] = {
	{ { .dtr = false, .rts = true }, ACTISYS_PULSE_US },
	{ { .dtr = true, .rts = true }, ACTISYS_PULSE_US },
};

static int actisys_speed(const struct dongle *d, uint32_t baud,
			 struct dongle_script *s)
{
	const struct dongle_lines rts_low = { .dtr = true, .rts = false };
	uint8_t n;
	int r = dongle_code_for(actisys_pulses,
				DONGLE_ARRAY_SIZE(actisys_pulses), baud, &n, s);
	return r ? r : script_pulses(s, rts_low, high, ACTISYS_PULSE_US, n);
}

#define ACTISYS_COMMON                                                  \
	.mtt_bits = 0x7f,                                               \
	.reset_baud = 9600,                                             \
	.line_powered = true,                                           \
	.reset_phases = actisys_reset,                                  \
	.reset_nphases = DONGLE_ARRAY_SIZE(actisys_reset),              \
	.speed = actisys_speed

const struct dongle_driver dongle_actisys = {
	.name = "actisys",
	.description = "ACTiSYS IR-220L",
	.linux_id = 2,
	.rates = DONGLE_RATE_9600 | DONGLE_RATE_19200 | DONGLE_RATE_57600 |
		 DONGLE_RATE_115200,
	ACTISYS_COMMON,
};

const struct dongle_driver dongle_actisys_plus = {
	.name = "actisys+",
	.description = "ACTiSYS IR-220L+",
	.linux_id = 3,
	.rates = DONGLE_RATE_9600 | DONGLE_RATE_19200 | DONGLE_RATE_38400 |
		 DONGLE_RATE_57600 | DONGLE_RATE_115200,
	ACTISYS_COMMON,
};
