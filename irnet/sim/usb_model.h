/*
 * usb_model.h: transport-independent USB device models, so that the
 * libusb host adapter and the dongle cores can be tested against an
 * emulated chip (in process, or behind umockdev's usbfs emulation).
 *
 * Owns: the device side of USB as calls: a setup packet (and its OUT
 * data) in, IN data or a stall out; a bulk OUT transfer in; a bulk IN
 * request answered with data when the model has some.  Each model also
 * gives its descriptors (device, then configuration with its interfaces
 * and endpoints, as the bytes usbfs' "descriptors" file holds), and an
 * "optical" side that every model shares: the IrLAP frames the host sent,
 * decoded from the chip's bulk framing, frames to deliver to the host,
 * and the speed the host set the chip to.  The MCS7780 model is in
 * usb_model_mcs7780.c, the USB IrDA Bridge class device in
 * usb_model_irda_class.c, the KS-959 in usb_model_ks959.c.
 *
 * Does not own: any transport (ioctls, libusb, file descriptors), clocks
 * or threads.  No global state.  Parsing of what the host sends goes
 * through struct cursor.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_USB_MODEL_H
#define IRNET_USB_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct usb_model;

/* A setup packet's fields (USB 2.0 9.3). */
struct usb_model_setup {
	uint8_t request_type, request;
	uint16_t value, index, length;
};

struct usb_model_ops {
	/* A control request other than CLEAR_FEATURE(ENDPOINT_HALT), which
	 * every model acknowledges on any endpoint (usb_model_control does);
	 * out: wLength bytes for an OUT request.  Writes at most in_cap reply
	 * bytes to in for an IN request.  Returns the bytes moved (0 for no
	 * data stage), -EAGAIN for an IN request with nothing yet (it stays
	 * pending, as a bulk IN does: the KS-959's receive poll), or -EPIPE
	 * to stall. */
	int (*control)(struct usb_model *m, const struct usb_model_setup *s, const uint8_t *out,
		       uint8_t *in, size_t in_cap);
	/* Returns len, or -EPIPE to stall the endpoint. */
	int (*bulk_out)(struct usb_model *m, uint8_t ep, const uint8_t *data, size_t len);
	/* Returns the bytes of the next IN packet(s) (<= cap), -EAGAIN when
	 * there is nothing yet, -EPIPE to stall. */
	int (*bulk_in)(struct usb_model *m, uint8_t ep, uint8_t *buf, size_t cap);
	/* The baud rate the host set the transceiver to. */
	uint32_t (*speed)(const struct usb_model *m);
	void (*destroy)(struct usb_model *m);
};

/* IrLAP frames (A, C, I; no FCS) waiting on one side of a model. */
#define USB_MODEL_FRAMES 8
#define USB_MODEL_FRAME_MAX 2100

struct usb_model_ring {
	uint8_t data[USB_MODEL_FRAMES][USB_MODEL_FRAME_MAX];
	size_t len[USB_MODEL_FRAMES];
	uint32_t baud[USB_MODEL_FRAMES];	/* the speed it went or goes out at */
	unsigned head, count;
};

/* Returns 0, -ENOBUFS when full or -EMSGSIZE. */
int usb_model_ring_push(struct usb_model_ring *r, const uint8_t *frame, size_t len,
			uint32_t baud);
/* The oldest frame, or NULL when empty; usb_model_ring_pop drops it. */
const uint8_t *usb_model_ring_peek(const struct usb_model_ring *r, size_t *len);
void usb_model_ring_pop(struct usb_model_ring *r);

struct usb_model {
	const struct usb_model_ops *ops;
	const char *name;
	const uint8_t *descriptors;	/* device descriptor, then configuration */
	size_t descriptors_len;
	/* When set, every call fails with -ENODEV (an unplugged device). */
	bool gone;
	/* The optical side: frames the host sent, frames for the host. */
	struct usb_model_ring from_host, to_host;
	/* Bulk OUT transfers the model could not decode, or sent at a speed
	 * it does not model. */
	uint64_t bad_transfers;
};

/* The raw receive stream of a chip that hands the host what it heard
 * as it was on the air: each frame for the host SIR-wrapped (BOF,
 * escaped frame and FCS, EOF), read in pieces of any size. */
struct usb_model_stream {
	uint8_t bytes[2 * USB_MODEL_FRAME_MAX + 8];
	size_t len, off;
};

/* Up to cap bytes of m's stream into buf: the rest of the frame being
 * handed up, or the next frame of m->to_host.  Returns the count, or
 * -EAGAIN when there is nothing to hear. */
int usb_model_stream_read(struct usb_model *m, struct usb_model_stream *s, uint8_t *buf,
			  size_t cap);

/* Fills in the generic part of a zeroed model. */
void usb_model_init(struct usb_model *m, const struct usb_model_ops *ops, const char *name,
		    const uint8_t *descriptors, size_t descriptors_len);
/* A SIR decoder (sir.h) whose good frames go into m's from_host ring at
 * the speed m is at then; a full ring counts a bad transfer.  For models
 * of chips the host hands SIR-wrapped bytes to.  Free it with
 * sir_decoder_free. */
struct sir_decoder *usb_model_sir_decoder_new(struct usb_model *m);
int usb_model_control(struct usb_model *m, const uint8_t setup[8], const uint8_t *out,
		      uint8_t *in, size_t in_cap);
int usb_model_bulk_out(struct usb_model *m, uint8_t ep, const uint8_t *data, size_t len);
int usb_model_bulk_in(struct usb_model *m, uint8_t ep, uint8_t *buf, size_t cap);
void usb_model_free(struct usb_model *m);

/* The optical side, SIR only.  Takes the oldest frame the host sent
 * (A, C, I, FCS checked and removed) into buf, and the speed the chip
 * sent it at into *baud (may be NULL); returns its length, -EAGAIN if
 * none, -EMSGSIZE if it does not fit. */
int usb_model_take_frame(struct usb_model *m, uint8_t *buf, size_t cap, uint32_t *baud);
/* Queues a frame (A, C, I) for the host, delivered on its next bulk IN
 * in the chip's framing.  Returns 0 or -errno. */
int usb_model_inject_frame(struct usb_model *m, const uint8_t *frame, size_t len);
uint32_t usb_model_speed(const struct usb_model *m);

/* --- MCS7780 -------------------------------------------------------------- */

#define USB_MODEL_MCS7780_EP_IN 0x81u
#define USB_MODEL_MCS7780_EP_OUT 0x01u	/* same number as IN (digest 2.3) */
#define USB_MODEL_MCS7780_LOG 64

/* A register write the model saw, in order. */
struct usb_model_reg_write {
	uint16_t reg, value;
};

struct usb_model *usb_model_mcs7780_new(void);
uint16_t usb_model_mcs7780_reg(const struct usb_model *m, unsigned reg);
/* The writes seen so far (at most USB_MODEL_MCS7780_LOG kept); *n gets
 * the count. */
const struct usb_model_reg_write *usb_model_mcs7780_writes(const struct usb_model *m, size_t *n);
/* Its speed (usb_model_speed) is the one MODE sets (its speed field, or
 * 4000000 with the FIR bit): 2400 after reset, as MODE reads 0 then.
 * Frames for the host go up as the chip does: escaped, FCS, no BOF/EOF. */

/* --- SigmaTel STIr4200 ------------------------------------------------------ */

#define USB_MODEL_STIR4200_EP_OUT 0x01u
#define USB_MODEL_STIR4200_EP_IN 0x82u
#define USB_MODEL_STIR4200_LOG 64

/* 066f:4200 at 9600 SIR; its speed follows MODE and PDCLK. */
struct usb_model *usb_model_stir4200_new(void);
/* A register as the host would read it (FIFOCTL, FIFOLSB and FIFOMSB
 * from the TX FIFO's state). */
uint8_t usb_model_stir4200_reg(const struct usb_model *m, unsigned reg);
/* The register writes seen (at most USB_MODEL_STIR4200_LOG kept), and a
 * fresh start of that log. */
const struct usb_model_reg_write *usb_model_stir4200_writes(const struct usb_model *m, size_t *n);
void usb_model_stir4200_forget_writes(struct usb_model *m);

/* --- KingSun Dazzle ---------------------------------------------------------- */

#define USB_MODEL_KSDAZZLE_EP_IN 0x81u
#define USB_MODEL_KSDAZZLE_EP_OUT 0x02u

/* 07d0:4100 at 9600; its speed follows the host's speed requests. */
struct usb_model *usb_model_ksdazzle_new(void);
/* Speed requests taken. */
uint64_t usb_model_ksdazzle_speed_requests(const struct usb_model *m);

/* --- KingSun/DonShine ---------------------------------------------------------- */

#define USB_MODEL_KINGSUN_EP_IN 0x81u
#define USB_MODEL_KINGSUN_EP_OUT 0x02u

/* 07c0:4200, 9600 only; each 8-byte report is read twice (the dongle's
 * stale buffer) before it waits for more. */
struct usb_model *usb_model_kingsun_new(void);
/* Reports read a second time. */
uint64_t usb_model_kingsun_repeats(const struct usb_model *m);

/* --- KingSun KS-959 ------------------------------------------------------------ */

#define USB_MODEL_KS959_EP_IN 0x81u	/* a dummy: never answers */

/* 07d0:4959 at 9600, everything on the control pipe; its speed follows
 * the host's speed requests. */
struct usb_model *usb_model_ks959_new(void);
/* The send mask for a fragment of len clear bytes, and its padded
 * payload length (digest 2.5). */
uint8_t usb_model_ks959_mask(size_t len);
size_t usb_model_ks959_padded(size_t len);
/* Speed requests taken, and filler bytes sent (one where k wraps). */
uint64_t usb_model_ks959_speed_requests(const struct usb_model *m);
uint64_t usb_model_ks959_fillers(const struct usb_model *m);

/* --- USB IrDA Bridge class ------------------------------------------------- */

#define USB_MODEL_IRDA_CLASS_EP_IN 0x81u
#define USB_MODEL_IRDA_CLASS_EP_OUT 0x02u
#define USB_MODEL_IRDA_CLASS_EP_INTR 0x83u	/* present, never used */

/* A class device with that ID; speed_bug: the header's speed applies
 * before the frame it rides on (IUC_SPEED_BUG), else after.  It starts
 * at 9600 with 12 extra BOFs; its speed (usb_model_speed) follows the
 * headers. */
struct usb_model *usb_model_irda_class_new(uint16_t vid, uint16_t pid, bool speed_bug);
/* The extra-BOF count the headers set. */
uint32_t usb_model_irda_class_xbofs(const struct usb_model *m);
/* GET_CLASS_DESC requests answered. */
uint64_t usb_model_irda_class_desc_reads(const struct usb_model *m);

#endif
