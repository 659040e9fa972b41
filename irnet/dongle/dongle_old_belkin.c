/*
 * dongle_old_belkin.c: the old Belkin SmartBeam (also the Adaptec
 * Airport 1000/2000): powered from DTR/RTS, fixed at 9600 baud, no
 * control at all (Linux old_belkin-sir.c).  Any other rate is refused by
 * the rate mask.  MTT bits 0x01 (10 ms) as Linux.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "dongle_impl.h"

const struct dongle_driver dongle_old_belkin = {
	.name = "old_belkin",
	.description = "old Belkin SmartBeam / Adaptec Airport (9600 only)",
	.linux_id = 7,
	.rates = DONGLE_RATE_9600,
	.mtt_bits = 0x01,
	.reset_baud = 9600,
	.line_powered = true,
	.stateless = true,
};
