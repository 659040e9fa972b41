/*
 * mir.h: IrDA MIR framing (0.576 and 1.152 Mbit/s): HDLC flags, bit
 * stuffing and the CRC-16 FCS, as a bit stream (usb-irda-digest section 3).
 *
 * Owns: turning a frame (A, C, I-field; no FCS) into the bits on the air
 * and back, with an incremental decoder fed those bits in chunks of any
 * size.  Does not own the RZ pulse shape, the clock, or what a frame means.
 *
 * Representation: the bit stream is packed into bytes, first bit on the
 * air in bit 0 (the LSB) of byte 0, the ninth in bit 0 of byte 1, and so
 * on.  Data and FCS bytes go LSB first, so an unstuffed run of data bytes
 * packs to itself; a flag 0x7E (01111110) is the byte 0x7E when aligned.
 * An encoded frame is: nflags (>= 2) flags, the frame bytes then the FCS
 * (CRC-16 as SIR, low byte first) with a 0 inserted after every five
 * consecutive 1s, one closing flag; the unused high bits of the last
 * byte are 0 (a receiver ignores fewer than 8 bits between two flags).
 * Seven or more 1s in a row abort the frame being received.
 *
 * The decoder never allocates: it works in a buffer the caller gives it,
 * whose size sets the largest frame accepted (buffer size - 2 FCS bytes).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_MIR_H
#define IRNET_MIR_H

#include <stddef.h>
#include <stdint.h>

#define MIR_FLAG 0x7E
#define MIR_MIN_FLAGS 2
#define MIR_FCS_LEN 2
/* A, C and the largest I-field (2048). */
#define MIR_MAX_FRAME 2050

/* ---- encoding ----------------------------------------------------- */

/* Upper bound on the bits mir_encode() produces for frame_len bytes:
 * every 5th bit of data and FCS stuffed. */
size_t mir_encoded_max_bits(size_t frame_len, unsigned nflags);
/* Bytes to hold that many bits. */
size_t mir_encoded_max_bytes(size_t frame_len, unsigned nflags);

/* Exact number of bits this frame occupies on the air (flags, stuffed
 * data and FCS, closing flag): what mir_encode() returns. */
size_t mir_air_bits(const uint8_t *frame, size_t frame_len, unsigned nflags);

/* Air time in microseconds of nbits at baud (576000 or 1152000), rounded
 * up; UINT64_MAX for baud 0. */
uint64_t mir_air_time_us(uint32_t baud, uint64_t nbits);

/* Writes the encoded frame into out[0..cap) (zeroing the bytes it uses)
 * and returns its length in bits; -EINVAL for nflags < 2 or frame_len >
 * MIR_MAX_FRAME, -ENOSPC if cap is too small (out is then garbage). */
long mir_encode(uint8_t *out, size_t cap, const uint8_t *frame,
		size_t frame_len, unsigned nflags);

/* ---- decoding ----------------------------------------------------- */

struct mir_counters {
	uint64_t bits;		/* bits fed */
	uint64_t frames;	/* good frames delivered */
	uint64_t fcs_errors;	/* complete frames with a bad FCS */
	uint64_t aborts;	/* frames cut by 7+ ones */
	uint64_t overflows;	/* frames longer than the buffer allows */
	uint64_t runts;		/* fewer than the 2 FCS bytes between flags */
	uint64_t misaligned;	/* a bit count between flags not a multiple of 8 */
};

/* A good frame, FCS removed; the bytes are valid during the call only. */
typedef void (*mir_frame_fn)(void *ctx, const uint8_t *frame, size_t len);

enum mir_rx_state {
	MIR_RX_HUNT,	/* looking for a flag */
	MIR_RX_FRAME,	/* a flag seen: collecting bits */
};

/* Treat as opaque; public so it needs no allocation. */
struct mir_decoder {
	mir_frame_fn on_frame;
	void *ctx;
	uint8_t *buf;
	size_t cap;		/* bytes of buf */
	enum mir_rx_state state;
	unsigned ones;		/* consecutive 1s not yet stored */
	uint64_t nbits;		/* bits stored since the flag */
	size_t len;		/* whole bytes in buf */
	unsigned acc, accn;	/* the byte being assembled */
	struct mir_counters cnt;
};

/* Sets d up over buf[0..buf_len): frames up to buf_len - 2 bytes are
 * accepted.  -EINVAL if on_frame is NULL or buf_len < 2. */
int mir_decoder_init(struct mir_decoder *d, uint8_t *buf, size_t buf_len,
		     mir_frame_fn on_frame, void *ctx);
/* Feeds nbits bits from bytes (packed as above, from bit 0 of bytes[0]). */
void mir_decoder_feed_bits(struct mir_decoder *d, const uint8_t *bytes, size_t nbits);
/* Feeds n whole bytes (8n bits). */
void mir_decoder_feed(struct mir_decoder *d, const uint8_t *bytes, size_t n);
/* Forgets any partial frame (back to HUNT); counters are kept. */
void mir_decoder_reset(struct mir_decoder *d);
enum mir_rx_state mir_decoder_state(const struct mir_decoder *d);
const struct mir_counters *mir_decoder_counters(const struct mir_decoder *d);

#endif
