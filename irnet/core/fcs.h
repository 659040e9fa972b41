/*
 * fcs.h: the IrDA SIR frame check sequence (CRC-16/X-25, as PPP/HDLC).
 *
 * Owns the CRC arithmetic only: polynomial x^16 + x^12 + x^5 + 1 processed
 * LSB first (0x8408 reflected form), initial value 0xFFFF, ones'
 * complement of the result sent low byte first.  A receiver running the
 * CRC (without the final complement) over data and both FCS bytes of a
 * good frame is left with FCS_GOOD_RESIDUE.  Framing (where the FCS goes,
 * escaping) is sir.h's business.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_FCS_H
#define IRNET_FCS_H

#include <stddef.h>
#include <stdint.h>

#define FCS_INIT 0xFFFFu
#define FCS_GOOD_RESIDUE 0xF0B8u

/* fcs_table[i]: the CRC register after shifting byte i through a zero
 * register, LSB first.  Exposed so per-byte loops can inline the update. */
extern const uint16_t fcs_table[256];

static inline uint16_t fcs_update_byte(uint16_t fcs, uint8_t byte)
{
	return (uint16_t)((fcs >> 8) ^ fcs_table[(fcs ^ byte) & 0xFF]);
}

/* Running CRC (no final complement): start from FCS_INIT. */
uint16_t fcs_update(uint16_t fcs, const void *data, size_t len);

/* The FCS value to transmit for data (complemented): 0x906E for
 * "123456789", 0x0000 for empty input.  Send it low byte first. */
uint16_t fcs_compute(const void *data, size_t len);

/* Whether data (frame followed by its two FCS bytes) leaves the good
 * residue. */
int fcs_check(const void *data, size_t len);

#endif
