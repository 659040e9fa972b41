/*
 * dongle_act200l.c: ACTiSYS ACT-IR200L (Linux act200l-sir.c).
 *
 * Command mode (DTR,RTS) = (0,1), normal (1,1); every command byte is
 * (register << 4) | value.  Reset: (1,0) for 50 ms, then command mode,
 * 25 us, nine bytes (reg15 status; reg13 shadow on; reg21 clock-out off
 * and low-power oscillator; reg13 shadow off; reg7 ignore falling edge;
 * reg6 receive threshold; reg5 fixed 1.6 us pulse; reg4 both LEDs + BLKR;
 * reg0 TX and RX on), wait until sent, 15 ms, normal mode -> 9600.
 * Speed: command mode, 25 us, reg8 = low nibble of the divisor, reg9 =
 * high nibble, reg1 = load baud | wide pulse (0x15), 5 ms, normal mode.
 * Divisor + 1 = 230400 / rate.  Rates 9600-115200 as Linux offers (the
 * 2400 divisor exists but Linux never offered it).  MTT bits 0x03.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "dongle_impl.h"

#define ACT200L_REG8_DIVISOR_LOW  0x80
#define ACT200L_REG9_DIVISOR_HIGH 0x90
#define ACT200L_REG1_LOAD_WIDE    0x15

static const uint8_t act200l_init[] = {
	0xf0, 0xd1, 0x56, 0xd0, 0x74, 0x63, 0x51, 0x47, 0x03,
};

static const struct dongle_code act200l_divisors[] = {
	{ 9600, 0x17 }, { 19200, 0x0b }, { 38400, 0x05 }, { 57600, 0x03 },
	{ 115200, 0x01 },
};

static const struct dongle_command_mode act200l_mode = {
	.command = { .dtr = false, .rts = true },
	.normal = { .dtr = true, .rts = true },
	.settle_us = 25,
};

static int act200l_reset(const struct dongle *d, struct dongle_script *s)
{
	int r = script_hold(s, true, false, 50000);
	return r ? r : script_command(s, &act200l_mode, act200l_init,
				      sizeof(act200l_init), 15000);
}

static int act200l_speed(const struct dongle *d, uint32_t baud,
			 struct dongle_script *s)
{
	uint8_t div;
	int r = dongle_code_for(act200l_divisors,
				DONGLE_ARRAY_SIZE(act200l_divisors), baud, &div, s);
	if (r)
		return r;
	const uint8_t cmd[3] = {
		(uint8_t)(ACT200L_REG8_DIVISOR_LOW | (div & 0x0f)),
		(uint8_t)(ACT200L_REG9_DIVISOR_HIGH | (div >> 4)),
		ACT200L_REG1_LOAD_WIDE,
	};
	return script_command(s, &act200l_mode, cmd, sizeof(cmd), 5000);
}

const struct dongle_driver dongle_act200l = {
	.name = "act200l",
	.description = "ACTiSYS ACT-IR200L",
	.linux_id = 10,
	.rates = DONGLE_RATE_9600 | DONGLE_RATE_19200 | DONGLE_RATE_38400 |
		 DONGLE_RATE_57600 | DONGLE_RATE_115200,
	.mtt_bits = 0x03,
	.reset_baud = 9600,
	.line_powered = true,
	.reset = act200l_reset,
	.speed = act200l_speed,
};
