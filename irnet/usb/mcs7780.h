/*
 * mcs7780.h: the MosChip MCS7780 USB IrDA dongle core (9710:7780: the
 * Scubapro/Uwatec adapter, IRwave 3902B500), sans-I/O.
 *
 * Owns: the chip's vendor control requests and registers, its open
 * sequence (MODE, MINRXPW and the Vishay transceiver set-up), its
 * speed-change sequence (wait for IRINTX to clear, MODE, MINRXPW,
 * transceiver again on a change of SIR/MIR/FIR class), and the bulk
 * framing both ways: a 2-byte length that counts itself, then at SIR
 * the host's async wrapper, at MIR the frame and CRC-16, at FIR the
 * frame and CRC-32 (usb-irda-digest 2.3).  The framing functions are
 * public so that tests, the fuzzer and a device model can use them.
 *
 * Does not own: libusb (usb_dongle.h's host does the transfers), which
 * endpoints the device has (the host reads the descriptor; this core uses
 * the first bulk IN and OUT it is given), IrLAP's choice of speed.  Left
 * for the high-speed issue: turnaround at MIR/FIR (frames go out at once;
 * at SIR the turnaround is XBOF padding), SIP pulses.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_MCS7780_H
#define IRNET_MCS7780_H

#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "usb_dongle.h"

#define MCS7780_VID 0x9710u
#define MCS7780_PID 0x7780u

/* Vendor requests, device recipient, 16-bit registers. */
#define MCS7780_REQ_WRITE 0x0Eu	/* 40 0E <value> <reg> 0000 */
#define MCS7780_REQ_READ 0x0Fu	/* C0 0F 0000 <reg> 0200: 2 bytes LE */
#define MCS7780_CTRL_TIMEOUT_MS 500u

enum mcs7780_reg {
	MCS7780_REG_MODE = 0,
	MCS7780_REG_XCVR = 2,
	MCS7780_REG_MINRXPW = 4,
	MCS7780_REG_RESV = 7,
};
#define MCS7780_NREGS 8

/* MODE */
#define MCS7780_MODE_FIR 0x0001u
#define MCS7780_MODE_SIR16US 0x0002u	/* 1.6 us SIR pulses */
#define MCS7780_MODE_BBTG 0x0004u	/* back-to-back */
#define MCS7780_MODE_ASK 0x0008u
#define MCS7780_MODE_PARITY 0x0010u
#define MCS7780_MODE_SPEED_SHIFT 5
#define MCS7780_MODE_SPEED_MASK 0x00E0u
#define MCS7780_MODE_PLLPWDN 0x0100u
#define MCS7780_MODE_DRIVER 0x0200u
#define MCS7780_MODE_DTD 0x0400u	/* the chip picks the direction */
#define MCS7780_MODE_DIR 0x0800u
#define MCS7780_MODE_SIPEN 0x1000u	/* automatic SIP pulses */
#define MCS7780_MODE_SENDSIP 0x2000u
#define MCS7780_MODE_CHGDIR 0x4000u
#define MCS7780_MODE_RESET 0x8000u

/* XCVR */
#define MCS7780_XCVR_MODE0 0x0001u
#define MCS7780_XCVR_STFIR 0x0002u
#define MCS7780_XCVR_CONF 0x0004u
#define MCS7780_XCVR_RXFAST 0x0008u
#define MCS7780_XCVR_MODE1 0x0080u

/* RESV */
#define MCS7780_RESV_IRINTX 0x0001u	/* still transmitting */
#define MCS7780_RESV_IRINRX 0x0002u

/* MINRXPW at MIR and FIR (0 at SIR). */
#define MCS7780_MINRXPW_FAST 5u
/* Reads of RESV before a speed change gives up waiting for IRINTX. */
#define MCS7780_IDLE_POLLS 100u
/* The one bulk IN transfer kept posted. */
#define MCS7780_RX_LEN 4096u
/* A frame's A + C + largest I-field, and its largest FCS (FIR). */
#define MCS7780_FRAME_MAX (2u + 2048u)
#define MCS7780_FCS_MAX 4u
/* A wrapped SIR frame of MCS7780_FRAME_MAX bytes with 163 XBOFs, and
 * the length field. */
#define MCS7780_TX_MAX (2u + 163u + 1u + 2u * (MCS7780_FRAME_MAX + 2u) + 1u)
/* After an IN transfer fails, the next one goes out this much later. */
#define MCS7780_RX_RETRY_US 10000u

/* Transfer tags. */
enum { MCS7780_TAG_CTRL = 1, MCS7780_TAG_TX = 2, MCS7780_TAG_RX = 3 };

extern const struct usb_family mcs7780_family;

/* MODE's speed field (and FIR bit) for baud, the rest of mode kept. */
uint16_t mcs7780_mode_for_speed(uint16_t mode, uint32_t baud);

/*
 * Appends the bulk OUT transfer for one frame at baud: length (LE,
 * counting its own 2 bytes), then at SIR the wrapped frame with
 * f->xbofs plus the padding for f->mtt_us at baud (at most 163 XBOFs in
 * all), at MIR the frame and its CRC-16, at FIR the frame and its CRC-32,
 * low byte first.  Returns the bytes written, -EINVAL for a frame shorter
 * than A + C or an unknown speed, -EMSGSIZE for one longer than
 * MCS7780_FRAME_MAX, -ENOSPC if w is too small.
 */
int mcs7780_tx_frame(uint32_t baud, const struct usb_tx_frame *f, struct wcursor *w);

/*
 * Parses one bulk IN transfer received at baud (one frame per transfer:
 * at SIR escaped, without BOF or EOF, with its CRC-16; at MIR the frame
 * and CRC-16; at FIR the frame and CRC-32) and writes the frame (A, C,
 * I) and its FCS to frame.  Returns the frame's length without the FCS,
 * or: -ENODATA for an empty transfer; -EPROTO for one too short to be a
 * frame, or at SIR a BOF or EOF inside it or a bad escape; -EBADMSG for
 * a bad FCS; -EMSGSIZE when the frame does not fit frame or is longer than
 * MCS7780_FRAME_MAX; -EINVAL for an
 * unknown speed.
 */
int mcs7780_rx_frame(uint32_t baud, struct cursor *in, struct wcursor *frame);

#endif
