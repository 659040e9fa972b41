/*
 * usb_dongle.h: the shape every USB IrDA dongle core has (MCS7780,
 * STIr4200, the Bridge class, the KingSun family), and their registry.
 *
 * Owns: what a family core is told and what it answers.  A core is
 * sans-I/O, like the serial dongle drivers and the protocol cores: it
 * takes completed transfers (control, bulk or interrupt results with
 * their data and status), requests from IrLAP's side (open, send a frame,
 * change speed, close) and timer ticks, each with the current time, and
 * answers through its host's callbacks with transfers to submit, IrLAP
 * frames received, events (opened, speed changed, frame sent, failed,
 * gone) and its next deadline.  Each family says which USB IDs it drives
 * and which IrLAP speeds and minimum turnarounds its chip can do (QoS).
 *
 * Does not own: libusb, file descriptors, clocks or threads (the host
 * adapter, irnet/host/usb_host.[ch], is the only libusb caller);
 * finding the device, claiming its interface or detaching a kernel
 * driver; queueing more than one frame (the host holds frames while
 * usb_dongle_can_send() is false); IrLAP's choice of speed.  No core
 * calls back into itself from a callback, and a host must not call into
 * a core from inside one of its callbacks.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_USB_DONGLE_H
#define IRNET_USB_DONGLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"

#define USB_NO_DEADLINE UINT64_MAX

/* --- transfers ----------------------------------------------------------- */

enum usb_xfer_type {
	USB_XFER_CONTROL,
	USB_XFER_BULK,
	USB_XFER_INTERRUPT,
	/* CLEAR_FEATURE(ENDPOINT_HALT) on .endpoint.  The setup is filled
	 * in too (02 01 0000 <ep> 0000), but a host should use its library's
	 * clear-halt call (libusb_clear_halt), which also resets the host
	 * side's data toggle; it is an open-path request, never data path. */
	USB_XFER_CLEAR_HALT,
};

/* bmRequestType bits (USB 2.0 9.3). */
#define USB_DIR_IN 0x80u
#define USB_TYPE_STANDARD 0x00u
#define USB_TYPE_CLASS 0x20u
#define USB_TYPE_VENDOR 0x40u
#define USB_RECIP_DEVICE 0x00u
#define USB_RECIP_INTERFACE 0x01u
#define USB_RECIP_ENDPOINT 0x02u
#define USB_REQ_CLEAR_FEATURE 0x01u
#define USB_FEATURE_ENDPOINT_HALT 0x0000u

struct usb_setup {
	uint8_t request_type;	/* bmRequestType */
	uint8_t request;	/* bRequest */
	uint16_t value;		/* wValue */
	uint16_t index;		/* wIndex */
	uint16_t length;	/* wLength */
};

/* The 8 setup bytes as they go on the wire (little-endian fields). */
void usb_setup_pack(const struct usb_setup *s, uint8_t out[8]);

/* Ask for a zero-length packet after an OUT transfer whose length is a
 * multiple of the endpoint's packet size (LIBUSB_TRANSFER_ADD_ZERO_PACKET). */
#define USB_XFER_ZERO_PACKET 0x01u

/*
 * A transfer the core wants submitted.  tag names the core's slot; the
 * host gives it back in the completion and never has two transfers of
 * one tag in flight (a core does not ask for that).  For OUT transfers
 * data points at length bytes owned by the core, valid until that tag
 * completes; for IN transfers (endpoint & USB_DIR_IN, or a control
 * request whose request_type has USB_DIR_IN) length is how many bytes to
 * ask for and data is NULL.
 */
struct usb_xfer {
	enum usb_xfer_type type;
	uint32_t tag;
	uint8_t endpoint;	/* 0 for control */
	struct usb_setup setup;	/* control and clear-halt only */
	const uint8_t *data;
	size_t length;
	uint32_t timeout_ms;	/* 0: none */
	uint32_t flags;		/* USB_XFER_* */
};

/* How a transfer ended (libusb's transfer status, and a short control
 * reply is USB_STATUS_OK with a short .actual). */
enum usb_status {
	USB_STATUS_OK,
	USB_STATUS_STALL,
	USB_STATUS_TIMEOUT,
	USB_STATUS_CANCELLED,
	USB_STATUS_NO_DEVICE,
	USB_STATUS_OVERFLOW,
	USB_STATUS_ERROR,
};

struct usb_completion {
	uint32_t tag;
	enum usb_status status;
	const uint8_t *data;	/* IN: the bytes received (valid during the call) */
	size_t actual;		/* bytes moved */
};

const char *usb_status_name(enum usb_status s);
/* The negative errno a status means: 0, -EPIPE, -ETIMEDOUT, -ECANCELED,
 * -ENODEV, -EOVERFLOW, -EIO. */
int usb_status_errno(enum usb_status s);

/* --- frames and events ---------------------------------------------------- */

/* A frame for the air: address, control and information, no FCS. */
struct usb_tx_frame {
	const uint8_t *data;
	size_t len;
	uint32_t xbofs;		/* negotiated extra BOFs (SIR) */
	uint32_t mtt_us;	/* the peer's minimum turnaround before this frame */
};

/* A good frame received: A, C, I (FCS checked and removed). */
struct usb_rx_frame {
	const uint8_t *data;	/* valid during the call */
	size_t len;
	uint32_t baud;		/* the speed it came at */
	uint64_t time_us;	/* when its transfer completed */
};

enum usb_dongle_event {
	USB_EVENT_OPENED,	/* init sequence done, receiving at 9600 */
	USB_EVENT_SPEED,	/* the speed change asked for is done */
	USB_EVENT_TX_DONE,	/* the frame handed over left; another may be sent */
	USB_EVENT_MEDIA_BUSY,	/* something damaged was heard (IrLAP contention) */
	USB_EVENT_FAILED,	/* the core gave up: err says why; close it */
	USB_EVENT_GONE,		/* the device went away (-ENODEV); close it */
	USB_EVENT_CLOSED,	/* every transfer is back: the handle may be closed */
};

const char *usb_dongle_event_name(enum usb_dongle_event ev);

/* What the host hands a core.  The host owns the endpoints' discovery:
 * it fills in what the interface descriptor lists. */
struct usb_endpoints {
	uint8_t bulk_in, bulk_out;	/* 0: none */
	uint8_t intr_in, intr_out;
	uint16_t in_max_packet, out_max_packet;
};

struct usb_dongle_host {
	void (*submit)(void *ctx, const struct usb_xfer *x);
	/* Cancel the transfer of that tag; its completion (any status)
	 * still comes back through usb_dongle_complete. */
	void (*cancel)(void *ctx, uint32_t tag);
	void (*frame)(void *ctx, const struct usb_rx_frame *f);
	void (*event)(void *ctx, enum usb_dongle_event ev, int err);
	void *ctx;
};

struct usb_dongle_counters {
	uint64_t tx_frames;
	uint64_t rx_frames;
	uint64_t rx_empty;	/* IN transfers that carried nothing */
	uint64_t rx_fcs_errors;	/* -EBADMSG */
	uint64_t rx_malformed;	/* -EPROTO: runts, bad escapes, delimiters */
	uint64_t rx_oversize;	/* -EMSGSIZE */
	uint64_t xfer_errors;	/* transfers that ended in an error status */
};

/* How a family's open sequence clears its endpoints' halt. */
enum usb_clear_halt_mode {
	USB_CLEAR_HALT_ENDPOINTS,	/* the endpoints as they are (default) */
	/* MCS7780's Linux driver: each endpoint's number with the other
	 * direction (digest 2.3), for replaying the kernel's sequence
	 * against a device model */
	USB_CLEAR_HALT_SWAPPED,
	USB_CLEAR_HALT_NONE,
};

struct usb_dongle_config {
	struct usb_endpoints ep;
	struct usb_dongle_host host;
	enum usb_clear_halt_mode clear_halt;
	/* bInterfaceNumber of the claimed interface: the wIndex of class
	 * requests (the Bridge class's GET_CLASS_DESC) */
	uint8_t interface;
	const struct logger *log;	/* may be NULL */
};

/* --- families ------------------------------------------------------------- */

struct usb_id {
	uint16_t vid, pid;
	uint32_t quirks;	/* the family's own flags for this ID */
};

struct usb_dongle;

/* The IrLAP QoS bit fields a dongle can announce (IrLAP's layout:
 * qos.h): its family's, or once open what the device itself says (the
 * Bridge class descriptor, with the ID's quirks). */
struct usb_dongle_qos {
	uint16_t baud_bits;
	uint8_t min_tat_bits;
	uint8_t window_bits;
	uint8_t data_size_bits;
	uint8_t xbof_bits;
};

struct usb_dongle_ops {
	void (*destroy)(struct usb_dongle *d);
	int (*open)(struct usb_dongle *d, uint64_t now_us);
	int (*set_speed)(struct usb_dongle *d, uint32_t baud, uint64_t now_us);
	int (*send)(struct usb_dongle *d, const struct usb_tx_frame *f, uint64_t now_us);
	void (*complete)(struct usb_dongle *d, const struct usb_completion *c, uint64_t now_us);
	void (*tick)(struct usb_dongle *d, uint64_t now_us);
	int (*close)(struct usb_dongle *d, uint64_t now_us);
	/* Optional: the device's own QoS once known; false before (and for
	 * a family whose QoS is fixed), when the family's is used. */
	bool (*qos)(const struct usb_dongle *d, struct usb_dongle_qos *out);
};

struct usb_family {
	const char *name;		/* "mcs7780" */
	const char *chip;		/* "MosChip MCS7780" */
	const struct usb_id *ids;
	size_t n_ids;
	/* interface class/subclass it drives whatever the ID (Bridge class
	 * FE/02); 0/0: IDs only */
	uint8_t iface_class, iface_subclass;
	uint16_t baud_bits;		/* IrLAP QoS baud bits the chip does */
	uint8_t min_tat_bits;		/* QoS minimum-turnaround bits it needs */
	/* Allocates the core; on failure returns -errno with err filled. */
	int (*create)(const struct usb_dongle_config *cfg, const struct usb_id *id,
		      struct usb_dongle **out, char *err, size_t errlen);
	const struct usb_dongle_ops *ops;
};

/* Tags a core may use: 0 .. USB_DONGLE_TAGS - 1. */
#define USB_DONGLE_TAGS 4

/* The part of every core the generic calls use; a family's state embeds
 * it first. */
struct usb_dongle {
	const struct usb_family *family;
	struct usb_dongle_config cfg;
	uint64_t deadline_us;		/* USB_NO_DEADLINE when nothing is timed */
	uint32_t baud;			/* the speed the chip is at (0 before open) */
	bool tx_busy;			/* a frame or a speed change is in progress */
	bool in_flight[USB_DONGLE_TAGS];	/* per tag, kept by usb_dongle_submit */
	struct usb_dongle_counters n;
};

/* The family driving vid:pid, or one matching the interface class;
 * *id gets the matched entry (NULL for a class match).  NULL if none. */
const struct usb_family *usb_family_match(uint16_t vid, uint16_t pid, uint8_t iface_class,
					  uint8_t iface_subclass, const struct usb_id **id);
const struct usb_family *usb_family_by_name(const char *name);
/* The registry, for listings: *n gets the count. */
const struct usb_family *const *usb_families(size_t *n);

int usb_dongle_new(const struct usb_family *f, const struct usb_dongle_config *cfg,
		   const struct usb_id *id, struct usb_dongle **out, char *err, size_t errlen);
void usb_dongle_free(struct usb_dongle *d);

/* Starts the init sequence; USB_EVENT_OPENED when done. */
int usb_dongle_open(struct usb_dongle *d, uint64_t now_us);
/* Changes speed after the frame in progress (if any) has left;
 * USB_EVENT_SPEED when done.  -EINVAL for a speed the chip cannot do,
 * -EBUSY while another change is pending. */
int usb_dongle_set_speed(struct usb_dongle *d, uint32_t baud, uint64_t now_us);
/* Whether a frame may be sent now. */
bool usb_dongle_can_send(const struct usb_dongle *d);
/* Sends one frame at the current speed; -EBUSY unless can_send. */
int usb_dongle_send(struct usb_dongle *d, const struct usb_tx_frame *f, uint64_t now_us);
void usb_dongle_complete(struct usb_dongle *d, const struct usb_completion *c, uint64_t now_us);
/* Called at or after the deadline. */
void usb_dongle_tick(struct usb_dongle *d, uint64_t now_us);
uint64_t usb_dongle_deadline(const struct usb_dongle *d);
/* Cancels what is in flight; USB_EVENT_CLOSED once all of it is back. */
int usb_dongle_close(struct usb_dongle *d, uint64_t now_us);
const struct usb_dongle_counters *usb_dongle_counters(const struct usb_dongle *d);
/* What this dongle can announce: the device's own QoS where the family
 * reads one and it has come, else the family's baud and turnaround bits
 * with every window, data size and BOF count. */
struct usb_dongle_qos usb_dongle_qos(const struct usb_dongle *d);

/* --- helpers for the family cores ----------------------------------------- */

/* The IrLAP QoS baud bit of a speed (2400 -> bit 0 ... 4000000 -> bit 8),
 * 0 if IrDA has no such speed. */
uint16_t usb_baud_bit(uint32_t baud);
/* The speed of QoS baud bit number n (0 -> 2400 ... 8 -> 4000000), 0
 * past the table. */
uint32_t usb_baud_of_bit(unsigned n);
/* A control transfer with no data stage or an IN data stage. */
struct usb_xfer usb_control_xfer(uint32_t tag, const struct usb_setup *s, uint32_t timeout_ms);
/* The clear-halt request for endpoint ep. */
struct usb_xfer usb_clear_halt_xfer(uint32_t tag, uint8_t ep);
/* The endpoint the clear-halt of step 0 (ep_in) or 1 (ep_out) goes to
 * under mode; 0 when the mode clears nothing. */
uint8_t usb_clear_halt_target(const struct usb_endpoints *ep, enum usb_clear_halt_mode mode,
			      int which);
void usb_dongle_emit(struct usb_dongle *d, enum usb_dongle_event ev, int err);
/* Submits x through the host and marks its tag in flight. */
void usb_dongle_submit(struct usb_dongle *d, const struct usb_xfer *x);
/* Marks c's tag back; false (logged) for a tag not in flight. */
bool usb_dongle_take(struct usb_dongle *d, uint32_t tag);
/* Whether no transfer is in flight. */
bool usb_dongle_idle(const struct usb_dongle *d);
/* Asks the host to cancel every transfer in flight. */
void usb_dongle_cancel_all(struct usb_dongle *d);
/* Every transfer is back after a close: speed 0, USB_EVENT_CLOSED. */
void usb_dongle_closed(struct usb_dongle *d);
/* Hands a good frame to the host and counts it. */
void usb_dongle_deliver(struct usb_dongle *d, const uint8_t *frame, size_t len, uint64_t now_us);
/* Whether ep is a real endpoint of that direction (IN: true). */
bool usb_endpoint_is(uint8_t ep, bool in);
/* An IN transfer of n bytes the family's parser refused with rc: counts
 * it (-ENODATA empty, -EBADMSG FCS, -EMSGSIZE oversize, else malformed)
 * and, unless it was empty, reports USB_EVENT_MEDIA_BUSY with rc (a
 * damaged frame means something is on the air). */
void usb_dongle_rx_dropped(struct usb_dongle *d, int rc, size_t n);

#endif
