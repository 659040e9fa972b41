/*
 * ppp_hdlc.h: PPP in RFC 1662 asynchronous HDLC-like framing <-> the bare
 * PPP frames IrNET carries, one per TinyTP SDU.
 *
 * Owns: the encoder (bare frame -> opening flag, escaped frame and FCS-16,
 * closing flag, escaping per a transmit ACCM), the streaming decoder
 * (bytes in any chunking -> good frames, FCS checked and stripped, with
 * counters for everything it throws away), and small read-only helpers
 * that look at the start of a bare frame (address/control, protocol).
 *
 * Does not own: the pty or the TinyTP connection (the helper process moves
 * the bytes), LCP negotiation (pppd and the peer do it end to end), the
 * CRC arithmetic (fcs.h).  Frames pass through unchanged in both
 * directions: address/control and protocol field compression (ACFC, PFC)
 * are negotiated between the two PPP peers, and the kernel IrNET put
 * exactly the frame pppd gave it into each SDU, so this module never adds
 * or removes FF 03 or widens a protocol field.  The decoder allocates its
 * buffer once, in ppp_hdlc_decoder_new(), and never blocks.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_PPP_HDLC_H
#define IRNET_PPP_HDLC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "log.h"

#define PPP_HDLC_FLAG 0x7E	/* frame delimiter */
#define PPP_HDLC_ESC 0x7D	/* control escape */
#define PPP_HDLC_ESC_XOR 0x20	/* escaped byte = byte ^ PPP_HDLC_ESC_XOR */
#define PPP_HDLC_FCS_LEN 2
/* The ACCM before LCP has negotiated one: every control character. */
#define PPP_HDLC_ACCM_ALL 0xFFFFFFFFu
/* Default cap on a received frame (address to end of information, FCS
 * not counted): a whole TinyTP SDU of the size Linux IrNET peers use. */
#define PPP_HDLC_DEFAULT_MAX_FRAME 2048

/* ------------------------------------------------------------------ */
/* Encoding                                                             */

/* Flags for ppp_hdlc_encode(). */
enum {
	/* Leave out the opening flag: only when the byte written just
	 * before is the closing flag of the previous frame (back-to-back
	 * frames in one write share it).  The default sends it. */
	PPP_HDLC_ENC_NO_OPEN_FLAG = 1u << 0,
};

struct ppp_hdlc_encoder {
	uint32_t accm;		/* bit n set: escape the byte n (0x00..0x1F) */
	uint8_t escape[32];	/* all 256 bytes: bit set = escape it */
};

/* Sets up an encoder for a transmit ACCM.  0x7D and 0x7E are always
 * escaped.  PPP_HDLC_ACCM_ALL is always safe to send. */
void ppp_hdlc_encoder_init(struct ppp_hdlc_encoder *e, uint32_t accm);

/* Worst case for a frame of frame_len bytes: both flags, every frame and
 * FCS byte escaped: 2 * (frame_len + 2) + 2. */
size_t ppp_hdlc_encoded_max(size_t frame_len);

/* The exact encoded size of this frame with these flags. */
size_t ppp_hdlc_encoded_len(const struct ppp_hdlc_encoder *e,
			    const uint8_t *frame, size_t frame_len,
			    unsigned flags);

/* Appends the framed frame to w: flag (unless PPP_HDLC_ENC_NO_OPEN_FLAG),
 * the escaped frame, its escaped FCS (complemented, low byte first), the
 * closing flag.  Returns the number of bytes written; -EINVAL for an
 * empty frame; -EMSGSIZE if the result would not fit an int; -ENOSPC if
 * w has not room for all of it, in which case nothing was written and w
 * is unchanged (the host can flush and retry). */
int ppp_hdlc_encode(const struct ppp_hdlc_encoder *e, struct wcursor *w,
		    const uint8_t *frame, size_t frame_len, unsigned flags);

/* ------------------------------------------------------------------ */
/* Decoding                                                             */

enum ppp_hdlc_rx_state {
	PPP_HDLC_RX_HUNT,	/* discarding until a flag (start, after an error) */
	PPP_HDLC_RX_DATA,	/* after a flag: storing frame bytes */
	PPP_HDLC_RX_ESCAPE,	/* control escape seen: next byte ^ 0x20 */
};

struct ppp_hdlc_rx_counters {
	uint64_t bytes;		/* bytes fed */
	uint64_t frames;	/* good frames delivered */
	uint64_t fcs_errors;	/* frames with a bad FCS */
	uint64_t aborts;	/* frames ended by the abort sequence 7D 7E */
	uint64_t escape_errors;	/* 7D 7D: frame dropped, hunt for a flag */
	uint64_t too_long;	/* frames over max_frame, dropped */
	uint64_t runts;		/* frames shorter than FCS + 1 byte */
	uint64_t empty;		/* nothing between two flags (ignored) */
	uint64_t accm_discards;	/* control characters the rx ACCM removed */
	uint64_t hunt_discards;	/* bytes thrown away while hunting */
};

/* A good frame, FCS removed, exactly as sent (FF 03 and protocol field
 * untouched).  The bytes are valid only during the call.  The host may
 * call ppp_hdlc_decoder_reset() from here. */
typedef void (*ppp_hdlc_frame_fn)(void *ctx, const uint8_t *frame, size_t len);

struct ppp_hdlc_decoder_config {
	size_t max_frame;	/* cap, FCS not counted; 0: PPP_HDLC_DEFAULT_MAX_FRAME */
	/* Receive ACCM: bytes 0x00..0x1F with their bit set are removed when
	 * received unescaped (line equipment may insert them).  0 keeps them
	 * all, which is what the IrNET helper wants on a pty: see
	 * docs/irnet-ppp.md. */
	uint32_t rx_accm;
	ppp_hdlc_frame_fn on_frame;	/* required */
	void *ctx;
	const struct logger *log;	/* may be NULL */
};

struct ppp_hdlc_decoder;

/* Allocates the decoder and its frame buffer (max_frame + FCS).  Returns
 * NULL on allocation failure or if on_frame is NULL. */
struct ppp_hdlc_decoder *ppp_hdlc_decoder_new(const struct ppp_hdlc_decoder_config *cfg);
void ppp_hdlc_decoder_free(struct ppp_hdlc_decoder *d);

/* Feeds n received bytes, in any chunking; frames are delivered as their
 * closing flag arrives. */
void ppp_hdlc_decoder_feed(struct ppp_hdlc_decoder *d, const uint8_t *bytes, size_t n);

/* Forgets any partial frame and hunts for a flag again (-> HUNT).
 * Counters are kept. */
void ppp_hdlc_decoder_reset(struct ppp_hdlc_decoder *d);

enum ppp_hdlc_rx_state ppp_hdlc_decoder_state(const struct ppp_hdlc_decoder *d);
const char *ppp_hdlc_rx_state_name(enum ppp_hdlc_rx_state s);
const struct ppp_hdlc_rx_counters *ppp_hdlc_decoder_counters(const struct ppp_hdlc_decoder *d);

/* ------------------------------------------------------------------ */
/* Looking at a bare frame (IrNET, irda-digest.md section 8)            */

#define PPP_ADDRESS_ALL 0xFF	/* all-stations address */
#define PPP_CONTROL_UI 0x03	/* unnumbered information */
#define PPP_PROTO_LCP 0xC021

struct ppp_frame_info {
	bool has_ac;		/* starts with FF 03 */
	bool proto_compressed;	/* 1-byte protocol field (PFC) */
	uint16_t protocol;
	size_t header_len;	/* A/C (0 or 2) + protocol (1 or 2) */
	/* LCP Configure-Request .. Code-Reject (codes 1-7) must be sent
	 * with FF 03 and a 2-byte protocol field (RFC 1661/1662); set when
	 * this frame is one of them without. */
	bool lcp_rule_broken;
};

/* Whether the frame starts with the address/control bytes FF 03. */
bool ppp_frame_has_ac(const uint8_t *frame, size_t len);

/* Reads the address/control and protocol fields through a cursor.
 * Returns 0, or -EBADMSG if the frame is too short for them, starts with
 * FF but not FF 03, or the protocol field is malformed (its last byte
 * must be odd, the first of two bytes even). */
int ppp_frame_parse(const uint8_t *frame, size_t len, struct ppp_frame_info *out);

/* Compares two frames as PPP peers see them: a leading FF 03 is ignored
 * on either side (the same packet with and without ACFC). */
bool ppp_frame_equal_ignoring_ac(const uint8_t *a, size_t alen,
				 const uint8_t *b, size_t blen);

#endif
