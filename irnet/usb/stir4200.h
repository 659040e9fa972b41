/*
 * stir4200.h: the SigmaTel STIr4200 USB IrDA dongle core (066f:4200),
 * sans-I/O.
 *
 * Owns: the chip's vendor control requests and registers, its open
 * sequence (CLEAR_HALT of the hard-coded bulk endpoints OUT 0x01 and IN
 * 0x82, then the speed sequence to 9600), its speed-change sequence
 * (seven single-register writes once the TX FIFO has drained), the bulk
 * framing both ways (usb-irda-digest 2.2): a `55 AA <len LE16>` header,
 * then at SIR the host's async wrapper and at 4 Mbit/s SigmaTel's FIR
 * byte format (0x7F preamble, 0x7E flags, 0x7D escapes, CRC-32), and the
 * RX byte stream whose frames may span transfers.  It also owns the half
 * duplex the chip leaves to its host: the IN transfer is cancelled
 * before a frame goes out, the peer's minimum turnaround is waited off
 * from the last IN transfer that carried bytes (a deadline, not a
 * sleep), the FIFO is polled before a later frame, before a speed change
 * and before receiving again, and cleared when its count grows.  The
 * framing functions and the FIR decoder are public so that tests, the
 * fuzzer and a device model can use them.
 *
 * Does not own: libusb (usb_dongle.h's host does the transfers), IrLAP's
 * choice of speed, the SIR decoder (irnet/core/sir.h) and the CRCs
 * (fcs.h, fcs32.h).  Not done: transmit power and receive sensitivity
 * other than the defaults (0 and 1), SIP pulses, the chip's 576k/1.152M
 * (the digest gives no MIR format for it).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_STIR4200_H
#define IRNET_STIR4200_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "usb_dongle.h"

#define STIR4200_VID 0x066Fu
#define STIR4200_PID 0x4200u

/* Vendor requests, device recipient. */
#define STIR4200_REQ_WRITE 0x03u	/* 40 03 <value> 00 <reg> 00 00 00 */
#define STIR4200_REQ_READ 0x01u		/* C0 01 00 00 <reg> 00 <count> 00 */
#define STIR4200_CTRL_TIMEOUT_MS 100u
#define STIR4200_TX_TIMEOUT_MS 200u

/* The bulk endpoints: fixed by the chip, not read from the descriptor. */
#define STIR4200_EP_OUT 0x01u
#define STIR4200_EP_IN 0x82u

enum stir4200_reg {
	STIR4200_REG_MODE = 1,
	STIR4200_REG_PDCLK = 2,
	STIR4200_REG_CTRL1 = 3,
	STIR4200_REG_CTRL2 = 4,
	STIR4200_REG_FIFOCTL = 5,
	STIR4200_REG_FIFOLSB = 6,
	STIR4200_REG_FIFOMSB = 7,
	STIR4200_REG_DPLL = 8,
	STIR4200_REG_IRDIG = 9,
	STIR4200_REG_TEST = 15,
};

/* MODE */
#define STIR4200_MODE_FIR 0x80u
#define STIR4200_MODE_SIR 0x20u
#define STIR4200_MODE_ASK 0x10u
#define STIR4200_MODE_FASTRX 0x08u
#define STIR4200_MODE_FFRSTEN 0x04u
#define STIR4200_MODE_NRESET 0x02u
#define STIR4200_MODE_2400 0x01u

/* CTRL1 */
#define STIR4200_CTRL1_SDMODE 0x80u
#define STIR4200_CTRL1_RXSLOW 0x40u
#define STIR4200_CTRL1_TXPWD 0x10u
#define STIR4200_CTRL1_RXPWD 0x08u
#define STIR4200_CTRL1_TXPOWER_SHIFT 1
#define STIR4200_CTRL1_SRESET 0x01u

/* CTRL2 */
#define STIR4200_CTRL2_RXSENS_SHIFT 5

/* FIFOCTL */
#define STIR4200_FIFOCTL_DIR 0x10u	/* transmitting */
#define STIR4200_FIFOCTL_CLR 0x08u
#define STIR4200_FIFOCTL_EMPTY 0x04u
/* FIFOMSB's part of the 13-bit count */
#define STIR4200_FIFOMSB_MASK 0x1Fu

/* The "undocumented magic" DPLL value of the speed sequence. */
#define STIR4200_DPLL_MAGIC 0x15u
#define STIR4200_TX_POWER 0u		/* the defaults */
#define STIR4200_RX_SENSITIVITY 1u

/* The speed sequence: this many single-register writes. */
#define STIR4200_SPEED_WRITES 7

/* The one bulk IN transfer kept posted. */
#define STIR4200_RX_LEN 4096u
/* Assumed FIFO size: the digest gives a 13-bit count but not the size;
 * a frame is sent when count + its length fits this, or the FIFO is
 * empty (docs/irnet-usb.md). */
#define STIR4200_FIFO_SIZE 4096u
/* FIFO reads in one wait in which the count did not go down before the
 * FIFO is cleared anyway (a stuck FIFO must not wedge the link). */
#define STIR4200_FIFO_STUCK_POLLS 100u
/* After an IN transfer fails, the next one goes out this much later. */
#define STIR4200_RX_RETRY_US 10000u

/* A frame's A + C + largest I-field; FIR's CRC-32. */
#define STIR4200_FRAME_MAX (2u + 2048u)
#define STIR4200_FCS32_LEN 4u
#define STIR4200_HEADER_LEN 4u
#define STIR4200_FIR_PREAMBLE 16u	/* 0x7F bytes before the start flags */

/* FIR bytes */
#define STIR4200_FIR_FLAG 0x7Eu
#define STIR4200_FIR_ESC 0x7Du
#define STIR4200_FIR_PRE 0x7Fu
#define STIR4200_FIR_XOR 0x20u

/* The largest bulk OUT: a SIR frame of STIR4200_FRAME_MAX bytes, 163
 * XBOFs, every byte escaped (FIR's worst case, 4132 bytes, is smaller). */
#define STIR4200_TX_MAX (STIR4200_HEADER_LEN + 163u + 1u + 2u * (STIR4200_FRAME_MAX + 2u) + 1u)

/* Transfer tags. */
enum { STIR4200_TAG_CTRL = 1, STIR4200_TAG_TX = 2, STIR4200_TAG_RX = 3 };

extern const struct usb_family stir4200_family;

struct stir4200_reg_write {
	uint8_t reg, value;
};

/*
 * The speed sequence for baud: CTRL1 = SRESET, DPLL, PDCLK, MODE, CTRL1
 * = SDMODE|power, CTRL1 = power, CTRL2 = sensitivity.  Returns
 * STIR4200_SPEED_WRITES, or -EINVAL for a speed the chip is not driven
 * at (576k, 1.152M, anything else).
 */
int stir4200_speed_writes(uint32_t baud, struct stir4200_reg_write out[STIR4200_SPEED_WRITES]);

/* Appends `55 AA <len>` and the SIR-wrapped frame (xbofs 0xFF, BOF,
 * escaped frame and CRC-16, EOF).  Returns the bytes written, -EINVAL for
 * a frame shorter than A + C, -EMSGSIZE for one longer than
 * STIR4200_FRAME_MAX or more than 163 xbofs, -ENOSPC if w is too small. */
int stir4200_wrap_sir(const uint8_t *frame, size_t len, size_t xbofs, struct wcursor *w);

/* Appends `55 AA <len>`, 16 x 0x7F, 7E 7E, the frame and its CRC-32 (LE)
 * with 0x7D/0x7E/0x7F escaped (0x7D, byte ^ 0x20), 7E 7E.  Same returns. */
int stir4200_wrap_fir(const uint8_t *frame, size_t len, struct wcursor *w);

/* The bulk OUT transfer for f at baud: SIR with f->xbofs (capped at 163)
 * at 2400..115200, FIR at 4 Mbit/s; -EINVAL for another speed. */
int stir4200_tx_frame(uint32_t baud, const struct usb_tx_frame *f, struct wcursor *w);

/* --- the FIR byte-stream decoder --- */

enum stir4200_fir_state {
	STIR4200_FIR_HUNT,	/* outside a frame: waiting for a flag */
	STIR4200_FIR_FLAGS,	/* flag(s) seen, no data byte yet */
	STIR4200_FIR_DATA,	/* storing data bytes */
	STIR4200_FIR_ESCAPE,	/* 0x7D seen: the next byte is XORed with 0x20 */
};

struct stir4200_fir_rx {
	enum stir4200_fir_state state;
	size_t len;
	uint8_t buf[STIR4200_FRAME_MAX + STIR4200_FCS32_LEN];
};

void stir4200_fir_rx_reset(struct stir4200_fir_rx *r);

/*
 * Takes bytes from in, in any chunking, up to the end of a frame or an
 * error.  Returns the length of a good frame (A, C, I: at least 2; its
 * bytes at stir4200_fir_rx_frame(), valid until the next call), 0 once
 * in is used up with no frame finished, or for a frame dropped:
 * -EBADMSG bad CRC-32, -EPROTO a runt, a 0x7F inside the frame or a bad
 * escape, -EMSGSIZE longer than STIR4200_FRAME_MAX.  Call again until 0.
 */
int stir4200_fir_rx_feed(struct stir4200_fir_rx *r, struct cursor *in);
const uint8_t *stir4200_fir_rx_frame(const struct stir4200_fir_rx *r);

#endif
