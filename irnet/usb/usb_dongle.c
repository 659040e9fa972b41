/*
 * usb_dongle.c: the USB dongle registry, the generic calls and the
 * helpers the family cores share.  See usb_dongle.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "usb_dongle.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "irda_class.h"
#include "kingsun.h"
#include "mcs7780.h"
#include "stir4200.h"

static const struct usb_family *const registry[] = {
	&mcs7780_family,
	&stir4200_family,
	&irda_class_family,
	&ks959_family,
	&ksdazzle_family,
	&kingsun_family,
};

#define N_FAMILIES (sizeof(registry) / sizeof(registry[0]))

const struct usb_family *const *usb_families(size_t *n)
{
	*n = N_FAMILIES;
	return registry;
}

static const struct usb_id *find_id(const struct usb_family *f, uint16_t vid, uint16_t pid)
{
	for (size_t i = 0; i < f->n_ids; i++)
		if (f->ids[i].vid == vid && f->ids[i].pid == pid)
			return &f->ids[i];
	return NULL;
}

const struct usb_family *usb_family_match(uint16_t vid, uint16_t pid, uint8_t iface_class,
					  uint8_t iface_subclass, const struct usb_id **id)
{
	/* an ID match wins over a class match: STIr421x are class devices
	 * that need their own handling */
	for (size_t i = 0; i < N_FAMILIES; i++) {
		const struct usb_id *hit = find_id(registry[i], vid, pid);
		if (hit) {
			if (id)
				*id = hit;
			return registry[i];
		}
	}
	for (size_t i = 0; i < N_FAMILIES; i++) {
		const struct usb_family *f = registry[i];
		if (f->iface_class != 0 && f->iface_class == iface_class &&
		    f->iface_subclass == iface_subclass) {
			if (id)
				*id = NULL;
			return f;
		}
	}
	return NULL;
}

const struct usb_family *usb_family_by_name(const char *name)
{
	for (size_t i = 0; i < N_FAMILIES; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

int usb_dongle_new(const struct usb_family *f, const struct usb_dongle_config *cfg,
		   const struct usb_id *id, struct usb_dongle **out, char *err, size_t errlen)
{
	*out = NULL;
	if (!cfg->host.submit || !cfg->host.cancel || !cfg->host.frame || !cfg->host.event) {
		snprintf(err, errlen, "%s: the host must give submit, cancel, frame and event",
			 f->name);
		return -EINVAL;
	}
	int rc = f->create(cfg, id, out, err, errlen);
	if (rc < 0)
		return rc;
	(*out)->family = f;
	(*out)->cfg = *cfg;
	(*out)->deadline_us = USB_NO_DEADLINE;
	return 0;
}

void usb_dongle_free(struct usb_dongle *d)
{
	if (d)
		d->family->ops->destroy(d);
}

int usb_dongle_open(struct usb_dongle *d, uint64_t now_us)
{
	return d->family->ops->open(d, now_us);
}

int usb_dongle_set_speed(struct usb_dongle *d, uint32_t baud, uint64_t now_us)
{
	if (!(usb_baud_bit(baud) & d->family->baud_bits))
		return -EINVAL;
	return d->family->ops->set_speed(d, baud, now_us);
}

bool usb_dongle_can_send(const struct usb_dongle *d)
{
	return d->baud != 0 && !d->tx_busy;
}

int usb_dongle_send(struct usb_dongle *d, const struct usb_tx_frame *f, uint64_t now_us)
{
	if (!usb_dongle_can_send(d))
		return -EBUSY;
	return d->family->ops->send(d, f, now_us);
}

void usb_dongle_complete(struct usb_dongle *d, const struct usb_completion *c, uint64_t now_us)
{
	if (c->status != USB_STATUS_OK && c->status != USB_STATUS_CANCELLED)
		d->n.xfer_errors++;
	d->family->ops->complete(d, c, now_us);
}

void usb_dongle_tick(struct usb_dongle *d, uint64_t now_us)
{
	d->family->ops->tick(d, now_us);
}

uint64_t usb_dongle_deadline(const struct usb_dongle *d)
{
	return d->deadline_us;
}

int usb_dongle_close(struct usb_dongle *d, uint64_t now_us)
{
	return d->family->ops->close(d, now_us);
}

const struct usb_dongle_counters *usb_dongle_counters(const struct usb_dongle *d)
{
	return &d->n;
}

struct usb_dongle_qos usb_dongle_qos(const struct usb_dongle *d)
{
	struct usb_dongle_qos q = {
		.baud_bits = d->family->baud_bits,
		.min_tat_bits = d->family->min_tat_bits,
		.window_bits = 0x7F,
		.data_size_bits = 0x3F,
		.xbof_bits = 0xFF,
	};

	struct usb_dongle_qos own;

	if (d->family->ops->qos && d->family->ops->qos(d, &own))
		return own;
	return q;
}

/* --- helpers ------------------------------------------------------------------ */

void usb_setup_pack(const struct usb_setup *s, uint8_t out[8])
{
	out[0] = s->request_type;
	out[1] = s->request;
	out[2] = (uint8_t)(s->value & 0xFF);
	out[3] = (uint8_t)(s->value >> 8);
	out[4] = (uint8_t)(s->index & 0xFF);
	out[5] = (uint8_t)(s->index >> 8);
	out[6] = (uint8_t)(s->length & 0xFF);
	out[7] = (uint8_t)(s->length >> 8);
}

static const char *const status_names[] = {
	[USB_STATUS_OK] = "ok",
	[USB_STATUS_STALL] = "stall",
	[USB_STATUS_TIMEOUT] = "timeout",
	[USB_STATUS_CANCELLED] = "cancelled",
	[USB_STATUS_NO_DEVICE] = "no device",
	[USB_STATUS_OVERFLOW] = "overflow",
	[USB_STATUS_ERROR] = "error",
};

const char *usb_status_name(enum usb_status s)
{
	return (unsigned)s < sizeof(status_names) / sizeof(status_names[0]) ?
		status_names[s] : "?";
}

int usb_status_errno(enum usb_status s)
{
	switch (s) {
	case USB_STATUS_OK:
		return 0;
	case USB_STATUS_STALL:
		return -EPIPE;
	case USB_STATUS_TIMEOUT:
		return -ETIMEDOUT;
	case USB_STATUS_CANCELLED:
		return -ECANCELED;
	case USB_STATUS_NO_DEVICE:
		return -ENODEV;
	case USB_STATUS_OVERFLOW:
		return -EOVERFLOW;
	case USB_STATUS_ERROR:
		break;
	}
	return -EIO;
}

static const char *const event_names[] = {
	[USB_EVENT_OPENED] = "opened",
	[USB_EVENT_SPEED] = "speed",
	[USB_EVENT_TX_DONE] = "tx-done",
	[USB_EVENT_MEDIA_BUSY] = "media-busy",
	[USB_EVENT_FAILED] = "failed",
	[USB_EVENT_GONE] = "gone",
	[USB_EVENT_CLOSED] = "closed",
};

const char *usb_dongle_event_name(enum usb_dongle_event ev)
{
	return (unsigned)ev < sizeof(event_names) / sizeof(event_names[0]) ?
		event_names[ev] : "?";
}

/* IrLAP's baud table order (qos.h): bit n is the n-th entry. */
static const uint32_t baud_table[] = {
	2400, 9600, 19200, 38400, 57600, 115200, 576000, 1152000, 4000000,
};

uint16_t usb_baud_bit(uint32_t baud)
{
	for (size_t i = 0; i < sizeof(baud_table) / sizeof(baud_table[0]); i++)
		if (baud_table[i] == baud)
			return (uint16_t)(1u << i);
	return 0;
}

uint32_t usb_baud_of_bit(unsigned n)
{
	return n < sizeof(baud_table) / sizeof(baud_table[0]) ? baud_table[n] : 0;
}

struct usb_xfer usb_control_xfer(uint32_t tag, const struct usb_setup *s, uint32_t timeout_ms)
{
	struct usb_xfer x = {
		.type = USB_XFER_CONTROL,
		.tag = tag,
		.setup = *s,
		.length = s->length,
		.timeout_ms = timeout_ms,
	};
	return x;
}

struct usb_xfer usb_clear_halt_xfer(uint32_t tag, uint8_t ep)
{
	struct usb_xfer x = {
		.type = USB_XFER_CLEAR_HALT,
		.tag = tag,
		.endpoint = ep,
		.setup = {
			.request_type = USB_TYPE_STANDARD | USB_RECIP_ENDPOINT,
			.request = USB_REQ_CLEAR_FEATURE,
			.value = USB_FEATURE_ENDPOINT_HALT,
			.index = ep,
		},
	};
	return x;
}

uint8_t usb_clear_halt_target(const struct usb_endpoints *ep, enum usb_clear_halt_mode mode,
			      int which)
{
	uint8_t e = which == 0 ? ep->bulk_in : ep->bulk_out;

	switch (mode) {
	case USB_CLEAR_HALT_ENDPOINTS:
		return e;
	case USB_CLEAR_HALT_SWAPPED:
		return (uint8_t)((e & 0x0F) | ((e & USB_DIR_IN) ^ USB_DIR_IN));
	case USB_CLEAR_HALT_NONE:
		break;
	}
	return 0;
}

void usb_dongle_emit(struct usb_dongle *d, enum usb_dongle_event ev, int err)
{
	d->cfg.host.event(d->cfg.host.ctx, ev, err);
}

bool usb_endpoint_is(uint8_t ep, bool in)
{
	return ep != 0 && ((ep & USB_DIR_IN) != 0) == in;
}

void usb_dongle_rx_dropped(struct usb_dongle *d, int rc, size_t n)
{
	switch (rc) {
	case -ENODATA:
		d->n.rx_empty++;
		return;
	case -EBADMSG:
		d->n.rx_fcs_errors++;
		break;
	case -EMSGSIZE:
		d->n.rx_oversize++;
		break;
	default:
		d->n.rx_malformed++;
		break;
	}
	log_msg(d->cfg.log, LOG_LEVEL_DEBUG, "%s: %zu-byte transfer dropped: %s", d->family->name,
		n, strerror(-rc));
	usb_dongle_emit(d, USB_EVENT_MEDIA_BUSY, rc);
}

void usb_dongle_submit(struct usb_dongle *d, const struct usb_xfer *x)
{
	d->in_flight[x->tag] = true;
	d->cfg.host.submit(d->cfg.host.ctx, x);
}

bool usb_dongle_take(struct usb_dongle *d, uint32_t tag)
{
	if (tag >= USB_DONGLE_TAGS || !d->in_flight[tag]) {
		log_msg(d->cfg.log, LOG_LEVEL_WARNING, "%s: completion of tag %u not asked for",
			d->family->name, tag);
		return false;
	}
	d->in_flight[tag] = false;
	return true;
}

bool usb_dongle_idle(const struct usb_dongle *d)
{
	for (size_t i = 0; i < USB_DONGLE_TAGS; i++)
		if (d->in_flight[i])
			return false;
	return true;
}

void usb_dongle_cancel_all(struct usb_dongle *d)
{
	for (uint32_t tag = 0; tag < USB_DONGLE_TAGS; tag++)
		if (d->in_flight[tag])
			d->cfg.host.cancel(d->cfg.host.ctx, tag);
}

void usb_dongle_closed(struct usb_dongle *d)
{
	d->baud = 0;
	d->tx_busy = false;
	usb_dongle_emit(d, USB_EVENT_CLOSED, 0);
}

void usb_dongle_deliver(struct usb_dongle *d, const uint8_t *frame, size_t len, uint64_t now_us)
{
	struct usb_rx_frame f = { .data = frame, .len = len, .baud = d->baud, .time_us = now_us };

	d->n.rx_frames++;
	d->cfg.host.frame(d->cfg.host.ctx, &f);
}
