/*
 * dongle_tekram.c: Tekram IrMate IR-210B (Linux tekram-sir.c, NetBSD
 * irts_tekram).
 *
 * Reset (Linux): DTR low for 1 ms with RTS high, then both high and 50 us
 * -> 9600.  Speed: command mode (DTR=1, RTS=0), 7 us, one control byte at
 * the current rate, wait until sent, hold (default 150 ms), normal mode
 * and 50 us.  The byte is a rate code with the PW (pulse select) bit
 * 0x10.  MTT bits 0x01 (10 ms).  Rates 9600-115200 (2400's 0x18 is only
 * in NetBSD and not offered).
 *
 * Conflict (digest 3.2, 13.5): for 115200 Linux sends 0x00 (PW clear),
 * NetBSD 0x10.  We follow Linux: it is the driver most IR-210B users ran
 * (irattach -d tekram) and at 115200 the 3/16-bit pulse (1.63 us) and
 * the fixed 1.6 us pulse that PW selects are the same width, so both
 * codes should work.  Override: "tekram:code115200=0x10".
 * The hold after the byte is Linux's tekram_delay (150 ms; NetBSD uses
 * 100 ms): "tekram:delay=100ms" (1..500 ms, Linux's clamp).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>

#include "dongle_impl.h"

static const struct dongle_code tekram_codes[] = {
	{ 9600, 0x14 }, { 19200, 0x13 }, { 38400, 0x12 }, { 57600, 0x11 },
	{ 115200, 0x00 },
};

#define TEKRAM_PW 0x10

static const char *const tekram_pw_choices[] = { "0x00", "0x10", NULL };

static const struct dongle_option tekram_options[] = {
	{ .key = "code115200", .kind = DOPT_CHOICE,
	  .help = "control byte for 115200: 0x00 (Linux, default) or 0x10 (NetBSD)",
	  .offset = offsetof(struct dongle_options, tekram_pw115200),
	  .choices = tekram_pw_choices },
	DONGLE_OPTION_DELAY,
	{ .key = NULL },
};

static const struct dongle_phase tekram_reset[] = {
	{ { .dtr = false, .rts = true }, 1000 },
	{ { .dtr = true, .rts = true }, 50 },
};

static int tekram_speed(const struct dongle *d, uint32_t baud,
			struct dongle_script *s)
{
	uint8_t code;
	int r = dongle_code_for(tekram_codes, DONGLE_ARRAY_SIZE(tekram_codes),
				baud, &code, s);
	if (r)
		return r;
	if (baud == 115200 && d->opt.tekram_pw115200)
		code |= TEKRAM_PW;
	return dongle_command_code(d, code, s);
}

const struct dongle_driver dongle_tekram = {
	.name = "tekram",
	.description = "Tekram IrMate IR-210B",
	.linux_id = 0,
	.rates = DONGLE_RATE_9600 | DONGLE_RATE_19200 | DONGLE_RATE_38400 |
		 DONGLE_RATE_57600 | DONGLE_RATE_115200,
	.mtt_bits = 0x01,
	.reset_baud = 9600,
	.line_powered = true,
	.options = tekram_options,
	.reset_phases = tekram_reset,
	.reset_nphases = DONGLE_ARRAY_SIZE(tekram_reset),
	.speed = tekram_speed,
	.mode = &dongle_rts_low_byte_mode,   /* hold: the delay= option */
};
