/*
 * usb_model.h: transport-independent USB device models, so that the
 * libusb host adapter and the dongle cores can be tested against an
 * emulated chip (in process, or behind umockdev's usbfs emulation).
 *
 * Owns: the device side of USB as calls: a setup packet (and its OUT
 * data) in, IN data or a stall out; a bulk OUT transfer in; a bulk IN
 * request answered with data when the model has some.  Each model also
 * gives its descriptors (device, then configuration with its interfaces
 * and endpoints, as the bytes usbfs' "descriptors" file holds).  The
 * MCS7780 model (usb_model_mcs7780.c) adds an "optical" side: the IrLAP
 * frames the host sent, decoded from the chip's bulk framing, and frames
 * to deliver to the host.
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

struct usb_model_ops {
	/* setup: the 8 bytes; out: wLength bytes for an OUT request.  Writes
	 * at most in_cap reply bytes to in for an IN request.  Returns the
	 * bytes moved (0 for no data stage), or -EPIPE to stall. */
	int (*control)(struct usb_model *m, const uint8_t setup[8], const uint8_t *out,
		       uint8_t *in, size_t in_cap);
	/* Returns len, or -EPIPE to stall the endpoint. */
	int (*bulk_out)(struct usb_model *m, uint8_t ep, const uint8_t *data, size_t len);
	/* Returns the bytes of the next IN packet(s) (<= cap), -EAGAIN when
	 * there is nothing yet, -EPIPE to stall. */
	int (*bulk_in)(struct usb_model *m, uint8_t ep, uint8_t *buf, size_t cap);
	void (*destroy)(struct usb_model *m);
};

struct usb_model {
	const struct usb_model_ops *ops;
	const char *name;
	const uint8_t *descriptors;	/* device descriptor, then configuration */
	size_t descriptors_len;
	/* When set, every call fails with -ENODEV (an unplugged device). */
	bool gone;
};

int usb_model_control(struct usb_model *m, const uint8_t setup[8], const uint8_t *out,
		      uint8_t *in, size_t in_cap);
int usb_model_bulk_out(struct usb_model *m, uint8_t ep, const uint8_t *data, size_t len);
int usb_model_bulk_in(struct usb_model *m, uint8_t ep, uint8_t *buf, size_t cap);
void usb_model_free(struct usb_model *m);

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
/* The optical side, SIR only.  Takes the oldest frame the host sent
 * (A, C, I, FCS checked and removed) into buf; returns its length,
 * -EAGAIN if none, -EMSGSIZE if it does not fit. */
int usb_model_mcs7780_take_frame(struct usb_model *m, uint8_t *buf, size_t cap);
/* Queues a frame (A, C, I) for the host: delivered on its next bulk IN
 * as the chip does (escaped, FCS, no BOF/EOF).  Returns 0 or -errno. */
int usb_model_mcs7780_inject_frame(struct usb_model *m, const uint8_t *frame, size_t len);
/* The baud rate MODE sets (its speed field, or 4000000 with the FIR
 * bit): 2400 after reset, as MODE reads 0 then. */
uint32_t usb_model_mcs7780_speed(const struct usb_model *m);
/* Bulk OUT transfers the model could not decode. */
uint64_t usb_model_mcs7780_bad_transfers(const struct usb_model *m);

#endif
