/*
 * dongle_esi.c: Extended Systems JetEye PC ESI-9680.  The rate is the
 * level of DTR and RTS, nothing else: no control bytes, no delays
 * (Linux esi-sir.c, NetBSD irts_jeteye agree).  Only 9600, 19200 and
 * 115200 exist.  MTT bits 0x01 (10 ms).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>

#include "dongle_impl.h"

static const struct {
	uint32_t baud;
	struct dongle_lines lines;
} esi_levels[] = {
	{ 9600, { .dtr = false, .rts = true } },
	{ 19200, { .dtr = true, .rts = false } },
	{ 115200, { .dtr = true, .rts = true } },
};

static int esi_speed(const struct dongle *d, uint32_t baud,
		     struct dongle_script *s)
{
	for (size_t i = 0; i < DONGLE_ARRAY_SIZE(esi_levels); i++)
		if (esi_levels[i].baud == baud)
			return script_lines(s, esi_levels[i].lines.dtr,
					    esi_levels[i].lines.rts);
	return script_fail(s, EINVAL, "esi: no line levels for %u baud", baud);
}

/* Powered (by RTS) at the 9600 levels. */
static int esi_power_on(const struct dongle *d, struct dongle_script *s)
{
	return esi_speed(d, 9600, s);
}

/* Off, then the 9600 levels. */
static const struct dongle_phase esi_reset[] = {
	{ { .dtr = false, .rts = false }, 0 },
	{ { .dtr = false, .rts = true }, 0 },
};

const struct dongle_driver dongle_esi = {
	.name = "esi",
	.description = "Extended Systems JetEye PC ESI-9680",
	.linux_id = 1,
	.rates = DONGLE_RATE_9600 | DONGLE_RATE_19200 | DONGLE_RATE_115200,
	.mtt_bits = 0x01,
	.reset_baud = 9600,
	.line_powered = true,   /* close: both lines low */
	.stateless = true,
	.power_on = esi_power_on,
	.reset_phases = esi_reset,
	.reset_nphases = DONGLE_ARRAY_SIZE(esi_reset),
	.speed = esi_speed,
};
