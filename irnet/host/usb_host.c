/*
 * usb_host.c: libusb-1.0 under the family cores; see usb_host.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libusb.h>

#include "usb_host.h"

#define USB_HOST_SLOTS 8
#define USB_HOST_EVENTS 16

struct usb_host_ctx {
	struct eloop *loop;
	const struct logger *log;
	libusb_context *usb;
	struct eloop_timer usb_timeout;	/* libusb's own next timeout */
	unsigned n_devs;
	/* usb_host_watch_arrivals */
	bool watching;
	libusb_hotplug_callback_handle hotplug;
	void (*arrived)(void *ctx);
	void *arrived_ctx;
	struct eloop_timer arrival;
};

/* One core tag's transfer.  A clear-halt or a failed submit has no
 * libusb transfer: its completion is deferred to the drain timer so that
 * the core is never called from inside its own submit callback. */
struct usb_host_slot {
	bool used;
	bool deferred;
	uint32_t tag;
	struct libusb_transfer *t;
	enum usb_status deferred_status;
	struct usb_host_dev *dev;
};

struct usb_host_dev {
	struct usb_host_ctx *c;
	libusb_device_handle *h;
	int iface;
	bool detached;		/* we detached a kernel driver: reattach it */
	bool claimed;
	bool closed;		/* handle closed after CLOSED */
	struct usb_endpoints ep;
	struct usb_dongle *core;
	struct usb_host_up up;
	struct usb_host_slot slot[USB_HOST_SLOTS];
	unsigned in_flight;
	struct eloop_timer deadline;	/* the core's */
	struct eloop_timer drain;	/* deferred completions and events */
	struct { enum usb_dongle_event ev; int err; } q[USB_HOST_EVENTS];
	unsigned q_head, q_len;
};

static int errno_of(int lu)
{
	switch (lu) {
	case LIBUSB_ERROR_IO: return -EIO;
	case LIBUSB_ERROR_INVALID_PARAM: return -EINVAL;
	case LIBUSB_ERROR_ACCESS: return -EACCES;
	case LIBUSB_ERROR_NO_DEVICE: return -ENODEV;
	case LIBUSB_ERROR_NOT_FOUND: return -ENOENT;
	case LIBUSB_ERROR_BUSY: return -EBUSY;
	case LIBUSB_ERROR_TIMEOUT: return -ETIMEDOUT;
	case LIBUSB_ERROR_OVERFLOW: return -EOVERFLOW;
	case LIBUSB_ERROR_PIPE: return -EPIPE;
	case LIBUSB_ERROR_INTERRUPTED: return -EINTR;
	case LIBUSB_ERROR_NO_MEM: return -ENOMEM;
	case LIBUSB_ERROR_NOT_SUPPORTED: return -ENOTSUP;
	default: return -EIO;
	}
}

static enum usb_status status_of(enum libusb_transfer_status s)
{
	switch (s) {
	case LIBUSB_TRANSFER_COMPLETED: return USB_STATUS_OK;
	case LIBUSB_TRANSFER_STALL: return USB_STATUS_STALL;
	case LIBUSB_TRANSFER_TIMED_OUT: return USB_STATUS_TIMEOUT;
	case LIBUSB_TRANSFER_CANCELLED: return USB_STATUS_CANCELLED;
	case LIBUSB_TRANSFER_NO_DEVICE: return USB_STATUS_NO_DEVICE;
	case LIBUSB_TRANSFER_OVERFLOW: return USB_STATUS_OVERFLOW;
	default: return USB_STATUS_ERROR;
	}
}

/* --- libusb's fds and timeout on the loop ---------------------------------- */

static void rearm_usb_timeout(struct usb_host_ctx *c)
{
	struct timeval tv;
	int r = libusb_get_next_timeout(c->usb, &tv);

	if (r == 1)
		eloop_timer_arm_in(c->loop, &c->usb_timeout,
				   (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec);
	else
		eloop_timer_cancel(c->loop, &c->usb_timeout);
}

static void handle_usb_events(struct usb_host_ctx *c)
{
	struct timeval zero = { 0, 0 };
	int r = libusb_handle_events_timeout_completed(c->usb, &zero, NULL);

	if (r < 0)
		log_msg(c->log, LOG_LEVEL_WARNING, "usb: handle_events: %s", libusb_error_name(r));
	rearm_usb_timeout(c);
}

static void on_usb_fd(struct eloop *loop, int fd, void *ctx)
{
	(void)loop;
	(void)fd;
	handle_usb_events(ctx);
}

static void on_usb_timeout(struct eloop *loop, void *ctx)
{
	(void)loop;
	handle_usb_events(ctx);
}

static void watch_fd(struct usb_host_ctx *c, int fd, short events)
{
	int r = 0;

	if (events & POLLIN)
		r = eloop_add_reader(c->loop, fd, on_usb_fd, c);
	if (r == 0 && (events & POLLOUT))
		r = eloop_add_writer(c->loop, fd, on_usb_fd, c);
	if (r < 0)
		log_msg(c->log, LOG_LEVEL_ERROR, "usb: cannot watch fd %d: %d", fd, r);
}

static void on_pollfd_added(int fd, short events, void *ctx)
{
	watch_fd(ctx, fd, events);
}

static void on_pollfd_removed(int fd, void *ctx)
{
	struct usb_host_ctx *c = ctx;

	/* -ENOENT for the direction it was not watched in */
	(void)eloop_remove_reader(c->loop, fd);
	(void)eloop_remove_writer(c->loop, fd);
}

static int watch_existing_fds(struct usb_host_ctx *c)
{
	const struct libusb_pollfd **fds = libusb_get_pollfds(c->usb);

	if (!fds)
		return -ENOTSUP;
	for (size_t i = 0; fds[i]; i++)
		watch_fd(c, fds[i]->fd, fds[i]->events);
	libusb_free_pollfds(fds);
	return 0;
}

static void on_arrival_timer(struct eloop *loop, void *ctx)
{
	struct usb_host_ctx *c = ctx;

	(void)loop;
	if (c->arrived)
		c->arrived(c->arrived_ctx);
}

/* Inside libusb's event handling: only note it. */
static int LIBUSB_CALL on_hotplug(libusb_context *usb, libusb_device *dev,
				  libusb_hotplug_event ev, void *ctx)
{
	struct usb_host_ctx *c = ctx;

	(void)usb;
	(void)dev;
	(void)ev;
	eloop_timer_arm_in(c->loop, &c->arrival, 0);
	return 0;	/* stay registered */
}

int usb_host_watch_arrivals(struct usb_host_ctx *c, void (*arrived)(void *ctx), void *ctx)
{
	int r;

	if (c->watching) {
		libusb_hotplug_deregister_callback(c->usb, c->hotplug);
		c->watching = false;
	}
	eloop_timer_cancel(c->loop, &c->arrival);
	c->arrived = arrived;
	c->arrived_ctx = ctx;
	if (!arrived)
		return 0;
	if (!libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG))
		return -ENOTSUP;
	r = libusb_hotplug_register_callback(c->usb, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED, 0,
					     LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
					     LIBUSB_HOTPLUG_MATCH_ANY, on_hotplug, c, &c->hotplug);
	if (r < 0)
		return errno_of(r);
	c->watching = true;
	return 0;
}

int usb_host_ctx_new(struct eloop *loop, const struct logger *log, struct usb_host_ctx **out)
{
	struct usb_host_ctx *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	c->loop = loop;
	c->log = log;
	eloop_timer_init(&c->usb_timeout, on_usb_timeout, c);
	eloop_timer_init(&c->arrival, on_arrival_timer, c);
	r = libusb_init(&c->usb);
	if (r < 0) {
		log_msg(log, LOG_LEVEL_ERROR, "usb: libusb_init: %s", libusb_error_name(r));
		free(c);
		return errno_of(r);
	}
	/* notifiers first, then the fds already there: one may be seen
	 * twice, and registering a reader twice only replaces it */
	libusb_set_pollfd_notifiers(c->usb, on_pollfd_added, on_pollfd_removed, c);
	r = watch_existing_fds(c);
	if (r < 0) {
		log_msg(log, LOG_LEVEL_ERROR, "usb: libusb has no pollable fds");
		usb_host_ctx_free(c);
		return r;
	}
	*out = c;
	return 0;
}

static void unwatch_all_fds(struct usb_host_ctx *c)
{
	const struct libusb_pollfd **fds = libusb_get_pollfds(c->usb);

	for (size_t i = 0; fds && fds[i]; i++)
		on_pollfd_removed(fds[i]->fd, c);
	libusb_free_pollfds(fds);
}

void usb_host_ctx_free(struct usb_host_ctx *c)
{
	if (!c)
		return;
	/* libusb_exit would call the removal notifier: drop it first and
	 * unregister the fds ourselves */
	usb_host_watch_arrivals(c, NULL, NULL);
	libusb_set_pollfd_notifiers(c->usb, NULL, NULL, NULL);
	unwatch_all_fds(c);
	eloop_timer_cancel(c->loop, &c->usb_timeout);
	libusb_exit(c->usb);
	free(c);
}

struct libusb_context *usb_host_libusb(struct usb_host_ctx *c)
{
	return c->usb;
}

/* --- the core's host callbacks --------------------------------------------- */

static void sync_deadline(struct usb_host_dev *d)
{
	uint64_t dl = d->core ? usb_dongle_deadline(d->core) : USB_NO_DEADLINE;

	if (dl == USB_NO_DEADLINE)
		eloop_timer_cancel(d->c->loop, &d->deadline);
	else
		eloop_timer_arm_at(d->c->loop, &d->deadline, dl);
}

static struct usb_host_slot *free_slot(struct usb_host_dev *d)
{
	for (size_t i = 0; i < USB_HOST_SLOTS; i++)
		if (!d->slot[i].used)
			return &d->slot[i];
	return NULL;
}

static struct usb_host_slot *slot_of(struct usb_host_dev *d, uint32_t tag)
{
	for (size_t i = 0; i < USB_HOST_SLOTS; i++)
		if (d->slot[i].used && d->slot[i].tag == tag)
			return &d->slot[i];
	return NULL;
}

static void release_slot(struct usb_host_slot *s)
{
	if (s->t) {
		free(s->t->buffer);
		libusb_free_transfer(s->t);
	}
	memset(s, 0, sizeof(*s));
}

static void defer_completion(struct usb_host_dev *d, struct usb_host_slot *s, enum usb_status st)
{
	s->deferred = true;
	s->deferred_status = st;
	eloop_timer_arm_in(d->c->loop, &d->drain, 0);
}

static void on_transfer_done(struct libusb_transfer *t)
{
	struct usb_host_slot *s = t->user_data;
	struct usb_host_dev *d = s->dev;
	bool control = t->type == LIBUSB_TRANSFER_TYPE_CONTROL;
	struct usb_completion comp = {
		.tag = s->tag,
		.status = status_of(t->status),
		.data = control ? libusb_control_transfer_get_data(t) : t->buffer,
		.actual = (size_t)t->actual_length,
	};

	/* the slot is free before the core runs: it may submit this tag again */
	s->t = NULL;
	release_slot(s);
	d->in_flight--;
	usb_dongle_complete(d->core, &comp, eloop_now_us());
	free(t->buffer);
	libusb_free_transfer(t);
	sync_deadline(d);
}

static bool xfer_is_in(const struct usb_xfer *x)
{
	if (x->type == USB_XFER_CONTROL)
		return (x->setup.request_type & USB_DIR_IN) != 0;
	return (x->endpoint & USB_DIR_IN) != 0;
}

static int fill_transfer(struct usb_host_dev *d, struct libusb_transfer *t,
			 const struct usb_xfer *x, struct usb_host_slot *s)
{
	bool in = xfer_is_in(x);
	size_t head = x->type == USB_XFER_CONTROL ? LIBUSB_CONTROL_SETUP_SIZE : 0;
	unsigned char *buf = malloc(head + x->length + 1);

	if (!buf || x->length > INT32_MAX)
		return free(buf), -ENOMEM;
	if (!in && x->length)
		memcpy(buf + head, x->data, x->length);
	if (x->type == USB_XFER_CONTROL) {
		usb_setup_pack(&x->setup, buf);
		libusb_fill_control_transfer(t, d->h, buf, on_transfer_done, s, x->timeout_ms);
	} else if (x->type == USB_XFER_BULK) {
		libusb_fill_bulk_transfer(t, d->h, x->endpoint, buf, (int)x->length,
					  on_transfer_done, s, x->timeout_ms);
	} else {
		libusb_fill_interrupt_transfer(t, d->h, x->endpoint, buf, (int)x->length,
					       on_transfer_done, s, x->timeout_ms);
	}
	if (x->flags & USB_XFER_ZERO_PACKET)
		t->flags |= LIBUSB_TRANSFER_ADD_ZERO_PACKET;
	return 0;
}

static enum usb_status submit_async(struct usb_host_dev *d, struct usb_host_slot *s,
				    const struct usb_xfer *x)
{
	struct libusb_transfer *t = libusb_alloc_transfer(0);
	int r;

	if (!t || fill_transfer(d, t, x, s) < 0) {
		libusb_free_transfer(t);
		return USB_STATUS_ERROR;
	}
	r = libusb_submit_transfer(t);
	if (r < 0) {
		log_msg(d->c->log, LOG_LEVEL_WARNING, "usb: submit tag %u: %s", (unsigned)x->tag,
			libusb_error_name(r));
		free(t->buffer);
		libusb_free_transfer(t);
		return r == LIBUSB_ERROR_NO_DEVICE ? USB_STATUS_NO_DEVICE : USB_STATUS_ERROR;
	}
	s->t = t;
	d->in_flight++;
	return USB_STATUS_OK;
}

static void core_submit(void *ctx, const struct usb_xfer *x)
{
	struct usb_host_dev *d = ctx;
	struct usb_host_slot *s = free_slot(d);
	enum usb_status st;
	int r;

	if (!s) {
		log_msg(d->c->log, LOG_LEVEL_ERROR, "usb: no free transfer slot for tag %u",
			(unsigned)x->tag);
		return;
	}
	s->used = true;
	s->tag = x->tag;
	s->dev = d;
	if (x->type == USB_XFER_CLEAR_HALT) {
		/* synchronous, but only ever part of the open sequence */
		r = libusb_clear_halt(d->h, x->endpoint);
		st = r == 0 ? USB_STATUS_OK
		     : r == LIBUSB_ERROR_NO_DEVICE ? USB_STATUS_NO_DEVICE
		     : r == LIBUSB_ERROR_PIPE ? USB_STATUS_STALL : USB_STATUS_ERROR;
		defer_completion(d, s, st);
		return;
	}
	st = submit_async(d, s, x);
	if (st != USB_STATUS_OK)
		defer_completion(d, s, st);
}

static void core_cancel(void *ctx, uint32_t tag)
{
	struct usb_host_dev *d = ctx;
	struct usb_host_slot *s = slot_of(d, tag);

	/* a deferred completion is already on its way back */
	if (s && s->t)
		(void)libusb_cancel_transfer(s->t);
}

static void core_frame(void *ctx, const struct usb_rx_frame *f)
{
	struct usb_host_dev *d = ctx;

	if (d->up.frame)
		d->up.frame(d->up.ctx, f);
}

static void core_event(void *ctx, enum usb_dongle_event ev, int err)
{
	struct usb_host_dev *d = ctx;

	if (d->q_len == USB_HOST_EVENTS) {
		log_msg(d->c->log, LOG_LEVEL_ERROR, "usb: event queue full, %s lost",
			usb_dongle_event_name(ev));
		return;
	}
	d->q[(d->q_head + d->q_len) % USB_HOST_EVENTS].ev = ev;
	d->q[(d->q_head + d->q_len) % USB_HOST_EVENTS].err = err;
	d->q_len++;
	eloop_timer_arm_in(d->c->loop, &d->drain, 0);
}

/* --- the device ------------------------------------------------------------- */

static void give_back_interface(struct usb_host_dev *d)
{
	if (d->claimed)
		(void)libusb_release_interface(d->h, d->iface);
	d->claimed = false;
	if (d->detached) {
		int r = libusb_attach_kernel_driver(d->h, d->iface);
		if (r < 0 && r != LIBUSB_ERROR_NO_DEVICE)
			log_msg(d->c->log, LOG_LEVEL_WARNING, "usb: reattaching the kernel driver: %s",
				libusb_error_name(r));
	}
	d->detached = false;
}

static void close_handle(struct usb_host_dev *d)
{
	if (!d->h)
		return;
	give_back_interface(d);
	libusb_close(d->h);
	d->h = NULL;
	d->closed = true;
}

static void deliver_deferred_completions(struct usb_host_dev *d)
{
	for (size_t i = 0; i < USB_HOST_SLOTS; i++) {
		struct usb_host_slot *s = &d->slot[i];
		struct usb_completion comp;

		if (!s->used || !s->deferred)
			continue;
		comp = (struct usb_completion){ .tag = s->tag, .status = s->deferred_status };
		release_slot(s);
		usb_dongle_complete(d->core, &comp, eloop_now_us());
	}
}

static void deliver_events(struct usb_host_dev *d)
{
	while (d->q_len) {
		enum usb_dongle_event ev = d->q[d->q_head].ev;
		int err = d->q[d->q_head].err;

		d->q_head = (d->q_head + 1) % USB_HOST_EVENTS;
		d->q_len--;
		if (ev == USB_EVENT_CLOSED)
			close_handle(d);	/* from a timer: outside libusb's callbacks */
		if (d->up.event)
			d->up.event(d->up.ctx, ev, err);
		if (ev == USB_EVENT_CLOSED)
			return;		/* the caller may have freed d */
	}
}

static void on_drain(struct eloop *loop, void *ctx)
{
	struct usb_host_dev *d = ctx;

	(void)loop;
	deliver_deferred_completions(d);
	sync_deadline(d);
	deliver_events(d);
}

static void on_deadline(struct eloop *loop, void *ctx)
{
	struct usb_host_dev *d = ctx;

	(void)loop;
	usb_dongle_tick(d->core, eloop_now_us());
	sync_deadline(d);
}

/* The class of the device's first interface (0/0 if it has none). */
static void first_interface_class(libusb_device *dev, uint8_t *cls, uint8_t *subcls)
{
	struct libusb_config_descriptor *cfg;

	*cls = *subcls = 0;
	if (libusb_get_config_descriptor(dev, 0, &cfg) < 0)
		return;
	if (cfg->bNumInterfaces > 0 && cfg->interface[0].num_altsetting > 0) {
		*cls = cfg->interface[0].altsetting[0].bInterfaceClass;
		*subcls = cfg->interface[0].altsetting[0].bInterfaceSubClass;
	}
	libusb_free_config_descriptor(cfg);
}

/* What can be read off dev without opening it. */
static int read_facts(libusb_device *dev, struct usb_host_found *f)
{
	struct libusb_device_descriptor dd;
	int n = libusb_get_device_descriptor(dev, &dd);
	const struct usb_id *id;

	memset(f, 0, sizeof(*f));
	if (n < 0)
		return errno_of(n);
	f->facts.vid = dd.idVendor;
	f->facts.pid = dd.idProduct;
	f->facts.bus = libusb_get_bus_number(dev);
	f->facts.address = libusb_get_device_address(dev);
	n = libusb_get_port_numbers(dev, f->facts.ports, USB_NAME_PORTS_MAX);
	f->facts.nports = n > 0 ? (size_t)n : 0;
	usb_port_path_text(f->facts.bus, f->facts.ports, f->facts.nports, f->port, sizeof(f->port));
	snprintf(f->path, sizeof(f->path), "/dev/bus/usb/%03u/%03u", f->facts.bus,
		 f->facts.address);
	first_interface_class(dev, &f->iface_class, &f->iface_subclass);
	f->family = usb_family_match(f->facts.vid, f->facts.pid, f->iface_class,
				     f->iface_subclass, &id);
	f->facts.irda = f->family != NULL;
	f->kernel_driver = -EACCES;
	return 0;
}

/* What needs the device open: its serial number and whether a kernel
 * driver holds its first interface.  Best effort: left unknown where
 * the device cannot be opened. */
static void read_open_facts(libusb_device *dev, uint8_t serial_index, struct usb_host_found *f)
{
	libusb_device_handle *h;
	int r = libusb_open(dev, &h);

	if (r < 0) {
		f->kernel_driver = errno_of(r);
		return;
	}
	if (serial_index &&
	    libusb_get_string_descriptor_ascii(h, serial_index, (unsigned char *)f->serial,
					       (int)sizeof(f->serial)) > 0)
		f->facts.serial = f->serial;
	r = libusb_kernel_driver_active(h, 0);
	f->kernel_driver = r < 0 ? errno_of(r) : r;
	libusb_close(h);
}

static uint8_t serial_index_of(libusb_device *dev)
{
	struct libusb_device_descriptor dd;

	return libusb_get_device_descriptor(dev, &dd) < 0 ? 0 : dd.iSerialNumber;
}

int usb_host_list(struct usb_host_ctx *c, bool irda_only, struct usb_host_found *out, size_t cap,
		  size_t *n)
{
	libusb_device **list;
	ssize_t count = libusb_get_device_list(c->usb, &list);

	*n = 0;
	if (count < 0)
		return errno_of((int)count);
	for (ssize_t i = 0; i < count; i++) {
		struct usb_host_found f;

		if (read_facts(list[i], &f) < 0 || (irda_only && !f.facts.irda))
			continue;
		if (*n < cap) {
			read_open_facts(list[i], serial_index_of(list[i]), &f);
			out[*n] = f;
			if (f.facts.serial)
				out[*n].facts.serial = out[*n].serial;
		}
		(*n)++;
	}
	libusb_free_device_list(list, 1);
	return 0;
}

static bool device_matches(libusb_device *dev, const struct usb_host_open_args *a)
{
	struct libusb_device_descriptor dd;

	if (a->name) {
		struct usb_host_found f;

		if (read_facts(dev, &f) < 0)
			return false;
		if (a->name->kind == USB_NAME_SERIAL)
			read_open_facts(dev, serial_index_of(dev), &f);
		return usb_name_matches(a->name, &f.facts);
	}
	if (a->bus > 0)
		return libusb_get_bus_number(dev) == a->bus &&
		       libusb_get_device_address(dev) == a->address;
	if (libusb_get_device_descriptor(dev, &dd) < 0)
		return false;
	return dd.idVendor == a->vid && dd.idProduct == a->pid;
}

static int open_handle(struct usb_host_ctx *c, const struct usb_host_open_args *a,
		       libusb_device_handle **h)
{
	libusb_device **list;
	ssize_t n;
	int r = LIBUSB_ERROR_NO_DEVICE;

	if (a->device)
		return errno_of(libusb_open(a->device, h));
	n = libusb_get_device_list(c->usb, &list);
	if (n < 0)
		return errno_of((int)n);
	for (ssize_t i = 0; i < n; i++) {
		if (device_matches(list[i], a)) {
			r = libusb_open(list[i], h);
			break;
		}
	}
	libusb_free_device_list(list, 1);
	return r < 0 ? errno_of(r) : 0;
}

/* The first interface with a bulk IN or OUT endpoint: its first bulk IN
 * and first bulk OUT. */
static void scan_interface(const struct libusb_interface_descriptor *alt, struct usb_endpoints *ep)
{
	for (int e = 0; e < alt->bNumEndpoints; e++) {
		const struct libusb_endpoint_descriptor *ed = &alt->endpoint[e];
		int type = ed->bmAttributes & LIBUSB_TRANSFER_TYPE_MASK;
		bool in = (ed->bEndpointAddress & LIBUSB_ENDPOINT_IN) != 0;

		if (type == LIBUSB_TRANSFER_TYPE_BULK && in && !ep->bulk_in) {
			ep->bulk_in = ed->bEndpointAddress;
			ep->in_max_packet = ed->wMaxPacketSize;
		} else if (type == LIBUSB_TRANSFER_TYPE_BULK && !in && !ep->bulk_out) {
			ep->bulk_out = ed->bEndpointAddress;
			ep->out_max_packet = ed->wMaxPacketSize;
		} else if (type == LIBUSB_TRANSFER_TYPE_INTERRUPT && in && !ep->intr_in) {
			ep->intr_in = ed->bEndpointAddress;
			if (!ep->bulk_in)
				ep->in_max_packet = ed->wMaxPacketSize;
		} else if (type == LIBUSB_TRANSFER_TYPE_INTERRUPT && !in && !ep->intr_out) {
			ep->intr_out = ed->bEndpointAddress;
			if (!ep->bulk_out)
				ep->out_max_packet = ed->wMaxPacketSize;
		}
	}
}

static void take_interface(struct usb_host_dev *d, const struct libusb_interface_descriptor *alt,
			   uint8_t *cls, uint8_t *subcls)
{
	d->iface = alt->bInterfaceNumber;
	*cls = alt->bInterfaceClass;
	*subcls = alt->bInterfaceSubClass;
}

static int find_endpoints(struct usb_host_dev *d, uint8_t *cls, uint8_t *subcls)
{
	struct libusb_config_descriptor *cfg;
	int r = libusb_get_active_config_descriptor(libusb_get_device(d->h), &cfg);

	if (r < 0)
		return errno_of(r);
	r = -ENOENT;
	/* the first interface with bulk or interrupt endpoints (the KingSun
	 * and Dazzle have interrupt ones only) */
	for (int i = 0; i < cfg->bNumInterfaces && r < 0; i++) {
		const struct libusb_interface_descriptor *alt;

		if (cfg->interface[i].num_altsetting < 1)
			continue;
		alt = &cfg->interface[i].altsetting[0];
		memset(&d->ep, 0, sizeof(d->ep));
		scan_interface(alt, &d->ep);
		if (d->ep.bulk_in || d->ep.bulk_out || d->ep.intr_in || d->ep.intr_out) {
			take_interface(d, alt, cls, subcls);
			r = 0;
		}
	}
	/* else the first interface: a family that moves everything on the
	 * control pipe (the KS-959) checks that it needs nothing more */
	if (r < 0 && cfg->bNumInterfaces >= 1 && cfg->interface[0].num_altsetting >= 1) {
		memset(&d->ep, 0, sizeof(d->ep));
		take_interface(d, &cfg->interface[0].altsetting[0], cls, subcls);
		r = 0;
	}
	libusb_free_config_descriptor(cfg);
	return r;
}

static int claim(struct usb_host_dev *d)
{
	int r = libusb_kernel_driver_active(d->h, d->iface);

	if (r == 1) {
		r = libusb_detach_kernel_driver(d->h, d->iface);
		if (r < 0)
			return errno_of(r);
		d->detached = true;
	}
	/* 0, or NOT_SUPPORTED where the platform cannot tell */
	r = libusb_claim_interface(d->h, d->iface);
	if (r < 0)
		return errno_of(r);
	d->claimed = true;
	return 0;
}

static int create_core(struct usb_host_dev *d, const struct usb_host_open_args *a, uint8_t cls,
		       uint8_t subcls)
{
	struct libusb_device_descriptor dd;
	const struct usb_id *id = NULL;
	const struct usb_family *f = a->family;
	struct usb_dongle_config cfg = {
		.ep = d->ep,
		.host = { core_submit, core_cancel, core_frame, core_event, d },
		.clear_halt = a->clear_halt,
		.log = d->c->log,
	};
	char err[128] = "";
	int r = libusb_get_device_descriptor(libusb_get_device(d->h), &dd);

	if (r < 0)
		return errno_of(r);
	if (!f)
		f = usb_family_match(dd.idVendor, dd.idProduct, cls, subcls, &id);
	if (!f)
		return -ENOTSUP;
	r = usb_dongle_new(f, &cfg, id, &d->core, err, sizeof(err));
	if (r < 0)
		log_msg(d->c->log, LOG_LEVEL_ERROR, "usb: %s: %s", f->name, err);
	return r;
}

static int open_device(struct usb_host_dev *d, const struct usb_host_open_args *a)
{
	uint8_t cls = 0, subcls = 0;
	int r = open_handle(d->c, a, &d->h);

	if (r < 0)
		return r;
	r = find_endpoints(d, &cls, &subcls);
	if (r == 0)
		r = claim(d);
	if (r == 0)
		r = create_core(d, a, cls, subcls);
	if (r == 0)
		r = usb_dongle_open(d->core, eloop_now_us());
	return r;
}

int usb_host_open(struct usb_host_ctx *c, const struct usb_host_open_args *a,
		  struct usb_host_dev **out)
{
	struct usb_host_dev *d = calloc(1, sizeof(*d));
	int r;

	if (!d)
		return -ENOMEM;
	d->c = c;
	d->up = a->up;
	eloop_timer_init(&d->deadline, on_deadline, d);
	eloop_timer_init(&d->drain, on_drain, d);
	r = open_device(d, a);
	if (r < 0) {
		log_msg(c->log, LOG_LEVEL_DEBUG, "usb: open: %s", strerror(-r));
		/* nothing was submitted if the core never started; if it
		 * did, usb_dongle_open failed before submitting */
		usb_host_free(d);
		return r;
	}
	c->n_devs++;
	sync_deadline(d);
	*out = d;
	return 0;
}

bool usb_host_can_send(const struct usb_host_dev *d)
{
	return d->core && !d->closed && usb_dongle_can_send(d->core);
}

int usb_host_send(struct usb_host_dev *d, const struct usb_tx_frame *f)
{
	int r = usb_dongle_send(d->core, f, eloop_now_us());

	sync_deadline(d);
	return r;
}

int usb_host_set_speed(struct usb_host_dev *d, uint32_t baud)
{
	int r = usb_dongle_set_speed(d->core, baud, eloop_now_us());

	sync_deadline(d);
	return r;
}

int usb_host_close(struct usb_host_dev *d)
{
	int r = usb_dongle_close(d->core, eloop_now_us());

	sync_deadline(d);
	return r;
}

void usb_host_free(struct usb_host_dev *d)
{
	if (!d)
		return;
	/* after CLOSED nothing is in flight; a transfer still in libusb
	 * here would be a caller's bug, and its memory must stay */
	if (d->in_flight)
		log_msg(d->c->log, LOG_LEVEL_ERROR, "usb: freeing with %u transfers in flight",
			d->in_flight);
	eloop_timer_cancel(d->c->loop, &d->deadline);
	eloop_timer_cancel(d->c->loop, &d->drain);
	for (size_t i = 0; i < USB_HOST_SLOTS; i++)
		if (d->slot[i].used && !d->slot[i].t)
			release_slot(&d->slot[i]);
	close_handle(d);
	if (d->core)
		usb_dongle_free(d->core);
	if (d->c->n_devs && !d->in_flight)
		d->c->n_devs--;
	if (!d->in_flight)
		free(d);
}

int usb_host_describe(const struct usb_host_dev *d, struct usb_host_found *out)
{
	int r;

	if (!d->h)
		return -ENODEV;
	r = read_facts(libusb_get_device(d->h), out);
	if (r == 0 && d->core)
		out->family = d->core->family;
	out->kernel_driver = d->detached;
	return r;
}

struct usb_dongle_qos usb_host_qos(const struct usb_host_dev *d)
{
	return usb_dongle_qos(d->core);
}

const struct usb_endpoints *usb_host_endpoints(const struct usb_host_dev *d)
{
	return &d->ep;
}

unsigned usb_host_in_flight(const struct usb_host_dev *d)
{
	return d->in_flight;
}

bool usb_host_handle_closed(const struct usb_host_dev *d)
{
	return d->closed;
}

const struct usb_dongle_counters *usb_host_counters(const struct usb_host_dev *d)
{
	return usb_dongle_counters(d->core);
}
