/*
 * fir.h: IrDA FIR framing (4 Mbit/s, 4PPM): preamble, start flag, data
 * and CRC-32 as 4PPM symbols, stop flag (usb-irda-digest section 3).
 *
 * Owns: turning a frame (A, C, I-field; no FCS) into the chips on the air
 * and back, with an incremental decoder fed chips in chunks of any size.
 * Does not own the clock, chip timing recovery or what a frame means.
 *
 * Representation: one 4-chip symbol (500 ns, chips of 125 ns) per nibble,
 * the first chip on the air in the nibble's most significant bit; two
 * symbols per byte, the first in the high nibble.  So the preamble symbol
 * group 1000 0000 1010 1000 is the bytes 0x80 0xA8, the start flag is
 * 0C 0C 60 60 and the stop flag 0C 0C 06 06.  Each data byte goes LSB
 * first as four bit pairs, bits 1..0 first, then 3..2, 5..4, 7..6; a pair
 * of value v (0..3, bit 1 of the pair the higher) is the symbol with its
 * 1 chip at position v: 00 -> 1000 (0x8), 01 -> 0100 (0x4),
 * 10 -> 0010 (0x2), 11 -> 0001 (0x1).  A data byte thus takes two output
 * bytes: 0x1B (pairs 3, 2, 1, 0) is 0x12 0x48.
 *
 * A frame is: the preamble group 16 times, the start flag, the frame bytes
 * and their CRC-32 (fcs32.h, low byte first), the stop flag.  The chip
 * stream is taken to be symbol-aligned on nibbles (as the encoder makes
 * it); the decoder hunts a preamble group followed by the start flag,
 * reads data symbols until the stop flag, and reports anything else: two
 * 0000 symbols in a row abort the frame, any other symbol that is neither
 * data nor the expected stop-flag symbol is illegal and drops the frame.
 *
 * The decoder never allocates: it works in a buffer the caller gives it,
 * whose size sets the largest frame accepted (buffer size - 4 FCS bytes).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_FIR_H
#define IRNET_FIR_H

#include <stddef.h>
#include <stdint.h>

#define FIR_PREAMBLE_REPEAT 16
#define FIR_FCS_LEN 4
/* A, C and the largest I-field (2048). */
#define FIR_MAX_FRAME 2050
/* Chips per second at 4 Mbit/s (8 chips per microsecond). */
#define FIR_CHIP_RATE 8000000u

/* ---- encoding ----------------------------------------------------- */

/* Chips on the air for a frame of frame_len bytes: 16 preamble groups of
 * 16 chips, 32 chips of start flag, 16 per data and FCS byte, 32 of stop
 * flag: 320 + 16 * (frame_len + 4).  Independent of the data. */
uint64_t fir_air_chips(size_t frame_len);
/* Microseconds those chips take at 4 Mbit/s, rounded up. */
uint64_t fir_air_time_us(uint64_t chips);
/* Bytes fir_encode() writes: fir_air_chips() / 8. */
size_t fir_encoded_len(size_t frame_len);

/* Writes the chips of the frame into out[0..cap) and returns the bytes
 * written; -EINVAL if frame_len > FIR_MAX_FRAME, -ENOSPC if cap is too
 * small (nothing written then). */
long fir_encode(uint8_t *out, size_t cap, const uint8_t *frame, size_t frame_len);

/* ---- decoding ----------------------------------------------------- */

struct fir_counters {
	uint64_t chips;		/* chips fed */
	uint64_t frames;	/* good frames delivered */
	uint64_t crc_errors;	/* complete frames with a bad CRC-32 */
	uint64_t aborts;	/* frames cut by two 0000 symbols */
	uint64_t illegal;	/* frames dropped on an illegal symbol */
	uint64_t overflows;	/* frames longer than the buffer allows */
	uint64_t runts;		/* fewer than the 4 FCS bytes */
	uint64_t partial;	/* a symbol count not a multiple of 4 */
};

typedef void (*fir_frame_fn)(void *ctx, const uint8_t *frame, size_t len);

enum fir_rx_state {
	FIR_RX_HUNT,	/* looking for preamble + start flag */
	FIR_RX_DATA,	/* reading data symbols */
	FIR_RX_STOP,	/* inside what should be the stop flag */
};

/* Treat as opaque; public so it needs no allocation. */
struct fir_decoder {
	fir_frame_fn on_frame;
	void *ctx;
	uint8_t *buf;
	size_t cap;
	enum fir_rx_state state;
	uint64_t hist;		/* the last 16 symbols, newest in the low nibble */
	unsigned prev;		/* the previous symbol */
	unsigned stop_pos;	/* stop-flag symbols matched */
	size_t len;		/* whole bytes in buf */
	unsigned acc, accn;	/* the byte being assembled, in pairs */
	struct fir_counters cnt;
};

int fir_decoder_init(struct fir_decoder *d, uint8_t *buf, size_t buf_len,
		     fir_frame_fn on_frame, void *ctx);
/* Feeds n bytes (2n symbols). */
void fir_decoder_feed(struct fir_decoder *d, const uint8_t *bytes, size_t n);
void fir_decoder_reset(struct fir_decoder *d);
enum fir_rx_state fir_decoder_state(const struct fir_decoder *d);
const struct fir_counters *fir_decoder_counters(const struct fir_decoder *d);

#endif
