/*
 * fcs32.h: the IrDA FIR frame check sequence (CRC-32, as IEEE 802.3).
 *
 * Owns the CRC arithmetic only: the reflected polynomial 0xEDB88320,
 * initial value all ones, ones' complement of the result, sent low byte
 * first (usb-irda-digest section 3).  Where the FCS goes in a frame is the
 * framer's business (the USB family cores today; FIR framing later).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_FCS32_H
#define IRNET_FCS32_H

#include <stddef.h>
#include <stdint.h>

#define FCS32_INIT 0xFFFFFFFFu

/* Running CRC (no final complement): start from FCS32_INIT. */
uint32_t fcs32_update(uint32_t crc, const void *data, size_t len);

/* The FCS to transmit for data (complemented): 0xCBF43926 for
 * "123456789".  Send it low byte first. */
uint32_t fcs32_compute(const void *data, size_t len);

#endif
