/*
 * dongle_none.c: no dongle: a UART whose transceiver needs no control
 * (a built-in SIR port, or a plain IR transceiver module).  Only the UART
 * rate changes.
 *
 * Rates: all SIR rates including 2400.  Linux's irtty-sir alone dropped
 * 2400 from its QoS (digest 3.2); NetBSD's irts_none keeps every rate,
 * and nothing in a plain UART path prevents 2400, so we offer it (use
 * "none:max=..." or IrLAP's own limits to narrow).  MTT bits 0x03 (5 ms)
 * as Linux's irtty-sir default.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "dongle_impl.h"

const struct dongle_driver dongle_none = {
	.name = "none",
	.description = "no dongle: built-in SIR UART or uncontrolled transceiver",
	.linux_id = -1,
	.rates = DONGLE_RATE_2400 | DONGLE_RATE_9600 | DONGLE_RATE_19200 |
		 DONGLE_RATE_38400 | DONGLE_RATE_57600 | DONGLE_RATE_115200,
	.mtt_bits = 0x03,
	.reset_baud = 9600,
	.stateless = true,
};
