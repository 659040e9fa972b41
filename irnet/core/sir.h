/*
 * sir.h: the IrDA SIR asynchronous wrapper (IrPHY framing over a UART).
 *
 * Owns: turning an IrLAP frame (A, C, I-field; no FCS) into the bytes a
 * UART sends (XBOF padding, BOF, escaped data and FCS, EOF), and the
 * reverse: an incremental receive state machine that takes UART bytes in
 * chunks of any size, checks the FCS and hands complete frames to its
 * host, with error counters and the "media busy" indication IrLAP needs
 * for contention.  Also the minimum-turnaround padding arithmetic.
 *
 * Does not own: the UART, its speed, timing, or what a frame means.  The
 * decoder never allocates after sir_decoder_new() and never blocks.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_SIR_H
#define IRNET_SIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "log.h"

#define SIR_XBOF 0xFF		/* filler before BOF */
#define SIR_BOF 0xC0		/* beginning of frame */
#define SIR_EOF 0xC1		/* end of frame */
#define SIR_CE 0x7D		/* control escape */
#define SIR_ESC_XOR 0x20	/* escaped byte = byte ^ SIR_ESC_XOR */

/* Largest IrLAP data size (I-field) a station can negotiate. */
#define SIR_MAX_IFIELD 2048
/* Linux's cap on XBOFs in front of one frame (115 + 48). */
#define SIR_MAX_XBOFS 163

/* ------------------------------------------------------------------ */
/* Encoding                                                             */

/* Worst-case wrapped size of a frame of frame_len bytes (A..I) with
 * xbofs leading 0xFF: every data and FCS byte escaped.  For a 2048-byte
 * I-field and 163 XBOFs: 4269. */
size_t sir_encoded_max(size_t frame_len, size_t xbofs);

/* Appends the wrapped frame to w: xbofs x 0xFF, BOF, the escaped frame
 * and FCS (low byte first), EOF.  Returns the number of bytes written,
 * -EINVAL if frame_len < 2 (no A and C), -ENOSPC if w has no room (then
 * w is marked failed; what was written so far is garbage). */
int sir_encode(struct wcursor *w, const uint8_t *frame, size_t frame_len,
	       size_t xbofs);

/* 0xFF bytes that fill mtt_us of silence at baud (10 bit-times per
 * byte), rounded up: ceil(baud * mtt_us / 10^7).  E.g. 58 for 5 ms at
 * 115200, 10 for 10 ms at 9600. */
size_t sir_mtt_padding(uint32_t baud, uint32_t mtt_us);

/* Microseconds n bytes occupy the line at baud (10 bit-times each),
 * rounded up once for the total: per-byte rounding (87 us instead of
 * 86.8 at 115200) would put the end of a 4.7 KB turn 0.9 ms late.
 * UINT64_MAX for a baud of 0. */
uint64_t sir_line_time_us(uint32_t baud, uint64_t n);

/* A and C bytes: the shortest frame IrLAP can use; the FCS's bytes. */
#define SIR_MIN_FRAME 2
#define SIR_FCS_LEN 2

/* ------------------------------------------------------------------ */
/* Decoding                                                             */

enum sir_rx_state {
	SIR_RX_OUTSIDE,	/* between frames: hunting for a BOF */
	SIR_RX_BEGIN,	/* BOF seen, no data byte yet */
	SIR_RX_INSIDE,	/* storing data bytes */
	SIR_RX_ESCAPE,	/* CE seen: the next byte is XORed with 0x20 */
};

struct sir_counters {
	uint64_t bytes;		/* bytes fed */
	uint64_t frames;	/* good frames delivered */
	uint64_t fcs_errors;	/* complete frames with a bad FCS */
	uint64_t aborts;	/* frames cut by a BOF, or CE CE, CE EOF */
	uint64_t overflows;	/* frames longer than the configured cap */
	uint64_t runts;		/* frames shorter than A+C after the FCS */
	uint64_t noise;		/* non-0xFF bytes outside a frame */
	uint64_t media_busy;	/* media-busy indications raised */
};

/* A good frame: A, C and I-field, FCS removed.  The bytes are valid only
 * during the call.  The host may call sir_decoder_reset() from here. */
typedef void (*sir_frame_fn)(void *ctx, const uint8_t *frame, size_t len);
/* Optional: called on each media-busy indication (noise outside a frame,
 * a bad FCS, an aborted, overflowing or runt frame). */
typedef void (*sir_media_busy_fn)(void *ctx);

struct sir_decoder_config {
	size_t max_ifield;		/* cap on the I-field; 0: SIR_MAX_IFIELD */
	sir_frame_fn on_frame;		/* required */
	sir_media_busy_fn on_media_busy; /* may be NULL */
	void *ctx;
	const struct logger *log;	/* may be NULL */
};

struct sir_decoder;

/* Allocates the decoder and its frame buffer (A + C + max_ifield + FCS).
 * Returns NULL on allocation failure or if on_frame is NULL. */
struct sir_decoder *sir_decoder_new(const struct sir_decoder_config *cfg);
void sir_decoder_free(struct sir_decoder *d);

/* Feeds n received bytes, in any chunking: frames are delivered as their
 * EOF arrives. */
void sir_decoder_feed(struct sir_decoder *d, const uint8_t *bytes, size_t n);

/* Forgets any partial frame (-> OUTSIDE), e.g. to discard what was heard
 * during our own transmission (half-duplex).  Counters are kept. */
void sir_decoder_reset(struct sir_decoder *d);

enum sir_rx_state sir_decoder_state(const struct sir_decoder *d);
const char *sir_rx_state_name(enum sir_rx_state s);
/* Whether a frame is being received (BOF seen, no EOF yet). */
bool sir_decoder_in_frame(const struct sir_decoder *d);
/* Bytes of the frame being received stored so far (unescaped, FCS
 * included); 0 between frames. */
size_t sir_decoder_frame_len(const struct sir_decoder *d);
/* Those bytes (A, C, ...), valid until the next feed or reset. */
const uint8_t *sir_decoder_frame(const struct sir_decoder *d);
const struct sir_counters *sir_decoder_counters(const struct sir_decoder *d);

/* The media-busy flag: set on every indication, cleared only by this
 * call, which returns whether it was set (IrLAP's contention check:
 * "has anything been heard since I last looked?"). */
bool sir_decoder_take_media_busy(struct sir_decoder *d);

#endif
