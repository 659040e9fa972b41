/*
 * dongle_litelink.c: Parallax LiteLink (Linux litelink-sir.c, NetBSD
 * irts_litelink).
 *
 * Powered (1,1).  After a reset it runs at 115200, not 9600.  Each pulse
 * on the stepping line (low 25 us, high 25 us; the part needs >= 15 us)
 * moves one step down 115200 -> 57600 -> 38400 -> 19200 -> 9600.  MTT
 * bits 0x7F.
 *
 * Conflict (digest 3.2, 13.4): Linux resets with an RTS-low pulse and
 * steps with DTR-low pulses; NetBSD resets with DTR low and steps with
 * RTS-low pulses.  Unresolved without hardware.  We default to Linux's
 * roles, the driver that shipped with irattach and had the most users;
 * "litelink:polarity=netbsd" swaps them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>

#include "dongle_impl.h"

#define LITELINK_PULSE_US 25u

static const struct dongle_code litelink_pulses[] = {
	{ 115200, 0 }, { 57600, 1 }, { 38400, 2 }, { 19200, 3 }, { 9600, 4 },
};

static const char *const litelink_polarities[] = { "linux", "netbsd", NULL };

static const struct dongle_option litelink_options[] = {
	{ .key = "polarity", .kind = DOPT_CHOICE,
	  .help = "which line resets and which steps: linux (default: RTS "
		  "resets, DTR steps) or netbsd (the other way round)",
	  .offset = offsetof(struct dongle_options, litelink),
	  .choices = litelink_polarities },
	{ .key = NULL },
};

static const struct dongle_lines high = { .dtr = true, .rts = true };
static const struct dongle_lines rts_low = { .dtr = true, .rts = false };
static const struct dongle_lines dtr_low = { .dtr = false, .rts = true };

static int litelink_reset(const struct dongle *d, struct dongle_script *s)
{
	struct dongle_lines pulse = d->opt.litelink == LITELINK_NETBSD ?
				    dtr_low : rts_low;
	return script_pulses(s, pulse, high, LITELINK_PULSE_US, 1);
}

static int litelink_speed(const struct dongle *d, uint32_t baud,
			  struct dongle_script *s)
{
	struct dongle_lines pulse = d->opt.litelink == LITELINK_NETBSD ?
				    rts_low : dtr_low;
	uint8_t n;
	int r = dongle_code_for(litelink_pulses,
				DONGLE_ARRAY_SIZE(litelink_pulses), baud, &n, s);
	return r ? r : script_pulses(s, pulse, high, LITELINK_PULSE_US, n);
}

const struct dongle_driver dongle_litelink = {
	.name = "litelink",
	.description = "Parallax LiteLink",
	.linux_id = 5,
	.rates = DONGLE_RATE_9600 | DONGLE_RATE_19200 | DONGLE_RATE_38400 |
		 DONGLE_RATE_57600 | DONGLE_RATE_115200,
	.mtt_bits = 0x7f,
	.reset_baud = 115200,
	.line_powered = true,
	.options = litelink_options,
	.reset = litelink_reset,
	.speed = litelink_speed,
};
