/*
 * kingsun.h: the KingSun USB IrDA dongle cores, sans-I/O: three families
 * that share one core because the chip only carries the host's SIR
 * stream (usb-irda-digest 2.4-2.7):
 *
 *   "ks959"     07d0:4959 KingSun KS-959: everything on the control pipe
 *               (obfuscated, padded send fragments; a receive poll whose
 *               bytes are de-obfuscated with a session-long counter; a
 *               speed request).
 *   "ksdazzle"  07d0:4100 KingSun "Dazzle": interrupt endpoints, the
 *               stream sent in 8-byte packets of up to 7 bytes, received
 *               raw; the KS-959's speed request.
 *   "kingsun"   07c0:4200 KingSun/DonShine: interrupt endpoints, a whole
 *               frame per interrupt OUT, counted receive reports; 9600 only.
 *
 * Owns: each family's transport (the framing functions below are public
 * so that tests, fuzzers and a device model can use them), the SIR
 * wrapping of each frame with its XBOFs and turnaround padding, the SIR
 * decoding of what comes back (FCS checked, errors counted), the speed
 * change after the frame in flight, open and close.
 *
 * Does not own: libusb, finding the endpoints (the host hands them over:
 * for KingSun and Dazzle the interrupt IN and OUT and the IN endpoint's
 * wMaxPacketSize in in_max_packet), IrLAP's choice of speed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_KINGSUN_H
#define IRNET_KINGSUN_H

#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "usb_dongle.h"

#define KS959_VID 0x07d0u
#define KS959_PID 0x4959u
#define KSDAZZLE_VID 0x07d0u
#define KSDAZZLE_PID 0x4100u
#define KINGSUN_VID 0x07c0u
#define KINGSUN_PID 0x4200u

/* Transfer tags (every family): the speed request, the frame's pieces,
 * the receive transfer (poll or interrupt IN). */
enum { KINGSUN_TAG_CTRL = 1, KINGSUN_TAG_TX = 2, KINGSUN_TAG_RX = 3 };

/* A frame's A + C + largest I-field. */
#define KINGSUN_FRAME_MAX (2u + 2048u)
/* That frame wrapped with 163 XBOFs, every byte escaped. */
#define KINGSUN_TX_MAX (163u + 1u + 2u * (KINGSUN_FRAME_MAX + 2u) + 1u)
/* After a receive transfer fails, the next one goes out this much later. */
#define KINGSUN_RX_RETRY_US 10000u
/* The speed request's timeout, and the margin over its line time each
 * piece of a frame is given (the digest has none: our choice). */
#define KINGSUN_CTRL_TIMEOUT_MS 500u

/* --- KS-959 (digest 2.5) --- */

/* Clear bytes in one send fragment, and its largest padded payload. */
#define KS959_FRAG_MAX 240u
#define KS959_PADDED_MAX 256u
/* The receive poll's wLength. */
#define KS959_RX_LEN 2048u

/* "wangshuofei19710"[(len & 0x0F) ^ 0x06] ^ 0x55. */
uint8_t ks959_mask(size_t len);
/* ((len + 7) & ~7) + 16. */
size_t ks959_padded_len(size_t len);
/* The fragment's setup: 21 09 <len LE16> 00 00 <padded LE16>. */
struct usb_setup ks959_fragment_setup(size_t len);
/* Appends one fragment's payload: the n clear bytes XOR ks959_mask(n),
 * zeros up to ks959_padded_len(n).  Returns the padded length, -EINVAL
 * for n of 0 or above KS959_FRAG_MAX, -ENOSPC if w has no room. */
int ks959_fragment(const uint8_t *clear, size_t n, struct wcursor *w);
/* The receive poll: A1 01 00 02 00 00 00 08. */
struct usb_setup ks959_poll_setup(void);
/*
 * De-obfuscates one poll's bytes into out: the 8-bit counter *k (kept
 * for the whole session, 0 at open) goes up before each byte; the byte
 * at which it wraps to 0 is filler and dropped, the others become
 * b ^ k ^ 0x55.  Stops when in is at its end or out is full (in then
 * keeps the rest, *k matching it); returns the bytes written.
 */
size_t ks959_deobfuscate(uint8_t *k, struct cursor *in, struct wcursor *out);

/* --- every family --- */

/* Appends the SIR-wrapped frame: f->xbofs plus the padding for
 * f->mtt_us at baud (at most 163 XBOFs in all), BOF, the escaped frame
 * and FCS, EOF (digest 2.7).  Returns the bytes written, -EINVAL for a
 * frame shorter than A + C, -EMSGSIZE for one longer than
 * KINGSUN_FRAME_MAX, -ENOSPC if w is too small. */
int kingsun_wrap(uint32_t baud, const struct usb_tx_frame *f, struct wcursor *w);

/* --- the speed request (KS-959 and Dazzle) --- */

/* 21 09 00 02 01 00 08 00. */
struct usb_setup kingsun_speed_setup(void);
/* Its 8 bytes: baud LE32, 0x03 (8 data bits), 0, 0, 0. */
void kingsun_speed_record(uint32_t baud, uint8_t out[8]);

/* --- Dazzle (digest 2.6) --- */

#define KSDAZZLE_PIECE_MAX 7u
#define KSDAZZLE_PACKET 8u
/* Interrupt IN length asked for (the device answers 0..8 bytes). */
#define KSDAZZLE_RX_LEN 2048u

/* Takes the next up to 7 bytes of in into out: 0xF8 + n, the n bytes,
 * zeros.  Returns n, 0 when in is at its end. */
size_t ksdazzle_packet(struct cursor *in, uint8_t out[KSDAZZLE_PACKET]);

/* --- KingSun 07c0:4200 (digest 2.4) --- */

/*
 * Parses one interrupt IN report of a max_packet-byte endpoint: byte 0
 * counts the valid bytes after it (1..max_packet - 1), the rest is
 * stale.  Sets *payload to them and returns the count; -ENODATA for an
 * empty transfer or a count of 0, -EPROTO for a count past max_packet - 1
 * or past the transfer (the dongle's "uninitialised" reports).
 */
int kingsun_report(struct cursor *in, size_t max_packet, const uint8_t **payload);

extern const struct usb_family ks959_family;
extern const struct usb_family ksdazzle_family;
extern const struct usb_family kingsun_family;

#endif
