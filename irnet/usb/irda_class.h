/*
 * irda_class.h: the USB IrDA Bridge class core (interface class 0xFE,
 * subclass 0x02: ACTiSYS ACT-IR2000U, IBM UltraPort, KC-180, ESI-9685
 * and any other class device), sans-I/O.
 *
 * Owns: the class-specific descriptor (GET_CLASS_DESC at open, parsed
 * and turned into the device's QoS), the 1-byte header both ways (OUT:
 * speed and extra-BOF codes; IN: media busy and current speed), speed
 * changes as header-only frames, one bare IrLAP frame per bulk transfer
 * (the device wraps: no BOF, escapes or FCS on USB) and the zero-length
 * packet that ends an OUT frame of a multiple of wMaxPacketSize
 * (usb-irda-digest 2.1).  The framing functions are public so that
 * tests, the fuzzer and a device model can use them.
 *
 * Does not own: libusb, SET_CONFIGURATION / SET_INTERFACE (the host's
 * claim), the optional interrupt IN pipe (not in the spec; ignored), the
 * class requests Receiving, Check Media Busy, Rate Sniff and Unicast
 * List (unused, as in Linux), minimum turnaround (the device enforces
 * it), and the STIr4210/4220/4116: they need SigmaTel's firmware, which
 * irnet cannot ship, so create refuses them with an error naming it (and
 * their 3-byte header is not implemented).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IRDA_CLASS_H
#define IRNET_IRDA_CLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "usb_dongle.h"

#define IRDA_CLASS_IFACE_CLASS 0xFEu
#define IRDA_CLASS_IFACE_SUBCLASS 0x02u

/* GET_CLASS_DESC: A1 06 0000 <interface> 0C00, 500 ms (digest 2.1). */
#define IRDA_CLASS_REQ_GET_DESC 0x06u
#define IRDA_CLASS_CTRL_TIMEOUT_MS 500u
#define IRDA_CLASS_DESC_LEN 12u
#define IRDA_CLASS_DESC_TYPE 0x21u

/* Per-ID quirks (usb_id.quirks). */
#define IRDA_CLASS_SPEED_BUG 0x01u	/* applies the header speed before the frame */
#define IRDA_CLASS_NO_WINDOW 0x02u	/* QoS window forced to 1 */
#define IRDA_CLASS_STIR421X 0x80u	/* needs SigmaTel firmware: refused */

/* OUT header: bits 3..0 speed code, bits 7..4 extra-BOF code; 0 = no change. */
#define IRDA_CLASS_HDR_SPEED_MASK 0x0Fu
#define IRDA_CLASS_HDR_XBOF_SHIFT 4
/* IN header: bit 7 media busy, bits 3..0 the current speed code. */
#define IRDA_CLASS_STATUS_MEDIA_BUSY 0x80u
#define IRDA_CLASS_HDR_LEN 1u

/* A + C + the largest I-field (bmDataSize bit 5, 2048 bytes). */
#define IRDA_CLASS_FRAME_MAX (2u + 2048u)
#define IRDA_CLASS_TX_MAX (IRDA_CLASS_HDR_LEN + IRDA_CLASS_FRAME_MAX)
/* The one bulk IN transfer kept posted (Linux's 2064-byte URB). */
#define IRDA_CLASS_RX_LEN 2064u
#define IRDA_CLASS_RX_RETRY_US 10000u

enum { IRDA_CLASS_TAG_CTRL = 1, IRDA_CLASS_TAG_TX = 2, IRDA_CLASS_TAG_RX = 3 };

/* The class descriptor's fields, as the device gave them. */
struct irda_class_desc {
	uint16_t spec_revision;		/* bcdSpecRevision */
	uint8_t data_sizes;		/* bmDataSize */
	uint8_t window_sizes;		/* bmWindowSize */
	uint8_t min_tat;		/* bmMinTurnaroundTime */
	uint16_t baud_rates;		/* wBaudRate */
	uint8_t xbofs;			/* bmAdditionalBOFs */
	uint8_t rate_sniff;		/* bIrdaRateSniff */
	uint8_t unicast_list;		/* bMaxUnicastList */
};

extern const struct usb_family irda_class_family;

/*
 * Parses a GET_CLASS_DESC reply.  Returns 0, or -EPROTO with why filled
 * for a reply shorter than 12 bytes or a bLength under 12, a type other
 * than 0x21, or a device that cannot do 9600 (IrLAP's start speed) or
 * has no data size or window bit.  Bytes past the 12 are ignored.
 */
int irda_class_parse_desc(struct cursor *in, struct irda_class_desc *out, char *why,
			  size_t whylen);
/* The QoS a descriptor gives, with the ID's quirks applied. */
struct usb_dongle_qos irda_class_qos_of(const struct irda_class_desc *desc, uint32_t quirks);
/* The QoS of an opened core (zeroes before the descriptor came). */
struct usb_dongle_qos irda_class_qos(const struct usb_dongle *d);

/* Header speed code for baud (2400 -> 1 ... 4000000 -> 9); 0 if none. */
uint8_t irda_class_speed_code(uint32_t baud);
/* Header BOF code for n extra BOFs (48 -> 1 ... 0 -> 8); a count the
 * code table lacks is rounded up to the next it has (more BOFs is
 * safe), above 48 gives 48's code. */
uint8_t irda_class_xbof_code(uint32_t n);
uint8_t irda_class_header(uint8_t speed_code, uint8_t xbof_code);
/* The other way, for device models: the speed of a header code (0 for
 * 0, "no change", and for codes past 4000000's), and the BOF count of a
 * BOF code (UINT32_MAX for 0, "no change", and codes past 8). */
uint32_t irda_class_speed_of_code(uint8_t code);
uint32_t irda_class_xbofs_of_code(uint8_t code);

/*
 * Appends the bulk OUT transfer for one frame: header, then A, C, I.
 * Returns the bytes written, -EINVAL for a frame shorter than A + C,
 * -EMSGSIZE for one longer than IRDA_CLASS_FRAME_MAX, -ENOSPC if w is
 * too small.
 */
int irda_class_tx_frame(uint8_t header, const struct usb_tx_frame *f, struct wcursor *w);

/* What one bulk IN transfer carried. */
struct irda_class_rx {
	uint8_t status;		/* the header byte */
	const uint8_t *frame;	/* A, C, I inside the transfer */
	size_t len;
};

/*
 * Parses one bulk IN transfer.  Returns the frame's length, or -ENODATA
 * for an empty transfer or one of only the header (out->status is set
 * for the latter), -EPROTO for a frame shorter than A + C, -EMSGSIZE for
 * one longer than IRDA_CLASS_FRAME_MAX.  No FCS: the device checked and
 * removed it.
 */
int irda_class_rx_frame(struct cursor *in, struct irda_class_rx *out);

#endif
