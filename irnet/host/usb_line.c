/*
 * usb_line.c: a USB IrDA dongle as a station's framed line; see
 * usb_line.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usb_host.h"
#include "usb_line.h"

/* Frames of one turn (a window of 7 and a final one) and the speed
 * switches around them, with room to spare. */
#define QUEUE_LEN 24
/* An IrLAP frame: A, C and at most 2048 bytes of information. */
#define FRAME_MAX 2050
/* The close lets queued frames out for at most this long. */
#define CLOSE_FLUSH_US 1000000u
#define CLOSE_WAIT_US 2000000u

enum item_kind { ITEM_FRAME, ITEM_SPEED };

struct item {
	enum item_kind kind;
	uint32_t baud;		/* ITEM_SPEED */
	uint32_t xbofs;		/* ITEM_FRAME */
	size_t len;
	uint8_t *data;		/* FRAME_MAX bytes, allocated with the line */
};

struct usb_line {
	struct eloop *loop;
	const struct logger *log;
	struct usb_host_ctx *ctx;
	struct usb_host_dev *dev;
	struct station *st;
	struct station_frame_line framed;
	struct usb_line_info info;
	char name[160];
	struct item q[QUEUE_LEN];
	size_t q_head, q_len;
	uint32_t queued_baud;	/* the speed once the queue has run */
	bool speed_pending;	/* a switch handed to the dongle, not yet done */
	bool opened, closed, failed;
	bool leaked;		/* a dongle's transfers never came back */
	int open_err;
};

static void line_failed(struct usb_line *l, int err, const char *what)
{
	char msg[300];

	if (l->failed)
		return;
	l->failed = true;
	snprintf(msg, sizeof(msg), "%s: %s", l->name, what);
	if (l->st)
		station_line_failed(l->st, err, msg);
	else
		log_msg(l->log, LOG_LEVEL_ERROR, "%s", msg);
}

/* Hands the dongle what it can take now, in queue order. */
static void pump(struct usb_line *l)
{
	while (l->q_len && !l->failed && l->opened) {
		struct item *it = &l->q[l->q_head];
		int r;

		if (l->speed_pending)
			return;
		if (it->kind == ITEM_SPEED) {
			r = usb_host_set_speed(l->dev, it->baud);
			if (r == -EBUSY)
				return;
			if (r < 0) {
				line_failed(l, r, "speed switch refused by the dongle");
				return;
			}
			l->speed_pending = true;
		} else {
			if (!usb_host_can_send(l->dev))
				return;
			r = usb_host_send(l->dev, &(struct usb_tx_frame){
				.data = it->data, .len = it->len, .xbofs = it->xbofs });
			if (r == -EBUSY)
				return;
			if (r < 0) {
				line_failed(l, r, "frame refused by the dongle");
				return;
			}
		}
		l->q_head = (l->q_head + 1) % QUEUE_LEN;
		l->q_len--;
	}
}

static struct item *queue_tail(struct usb_line *l)
{
	if (l->q_len == QUEUE_LEN)
		return NULL;
	return &l->q[(l->q_head + l->q_len++) % QUEUE_LEN];
}

static int queue_speed(struct usb_line *l, uint32_t baud)
{
	struct item *it;

	if (baud == l->queued_baud)
		return 0;
	it = queue_tail(l);
	if (!it)
		return -ENOBUFS;
	it->kind = ITEM_SPEED;
	it->baud = baud;
	l->queued_baud = baud;
	return 0;
}

static int line_send(void *ctx, const uint8_t *frame, size_t len, const struct irlap_txinfo *tx)
{
	struct usb_line *l = ctx;
	struct item *it;
	int r = 0;

	if (len > FRAME_MAX)
		return -EMSGSIZE;
	if (tx->baud)
		r = queue_speed(l, tx->baud);
	it = r == 0 ? queue_tail(l) : NULL;
	if (!it)
		return -ENOBUFS;
	it->kind = ITEM_FRAME;
	it->xbofs = tx->xbofs;
	it->len = len;
	memcpy(it->data, frame, len);
	if (tx->speed_after)
		r = queue_speed(l, tx->speed_after);
	pump(l);
	return r;
}

static int line_set_speed(void *ctx, uint32_t baud)
{
	struct usb_line *l = ctx;
	int r = queue_speed(l, baud);

	pump(l);
	return r;
}

static void line_bind(void *ctx, struct station *st)
{
	usb_line_bind(ctx, st);
}

static void on_frame(void *ctx, const struct usb_rx_frame *f)
{
	struct usb_line *l = ctx;

	if (l->st)
		station_line_frame(l->st, f->data, f->len);
}

static void on_event(void *ctx, enum usb_dongle_event ev, int err)
{
	struct usb_line *l = ctx;

	switch (ev) {
	case USB_EVENT_OPENED:
		l->opened = true;
		break;
	case USB_EVENT_SPEED:
		l->speed_pending = false;
		break;
	case USB_EVENT_TX_DONE:
		break;
	case USB_EVENT_MEDIA_BUSY:
		if (l->st)
			station_line_media_busy(l->st);
		break;
	case USB_EVENT_FAILED:
		l->open_err = err ? err : -EIO;
		line_failed(l, l->open_err, "the dongle failed");
		break;
	case USB_EVENT_GONE:
		l->open_err = -ENODEV;
		line_failed(l, -ENODEV, "the dongle went away (unplugged)");
		break;
	case USB_EVENT_CLOSED:
		l->closed = true;
		return;
	}
	pump(l);
}

/* What to do about an open that failed, in words. */
static void say_open_error(const char *name, int r, char *err, size_t errlen)
{
	switch (r) {
	case -ENODEV:
		snprintf(err, errlen, "%s: no such USB IrDA dongle present "
			 "(irdad --list-devices lists those there are)", name);
		break;
	case -EACCES:
		snprintf(err, errlen, "%s: permission denied: run as root, or install the "
			 "udev rule 60-irnet-usb.rules (the dongle to group plugdev) and join "
			 "that group", name);
		break;
	case -EBUSY:
		snprintf(err, errlen, "%s: another program has the dongle open "
			 "(an irdad already serving it?)", name);
		break;
	case -ENOTSUP:
		snprintf(err, errlen, "%s: not a USB IrDA dongle irnet-tools drives "
			 "(irdad --list-devices=all lists every USB device)", name);
		break;
	case -ETIMEDOUT:
		snprintf(err, errlen, "%s: the dongle did not finish its start-up in %u s",
			 name, USB_LINE_OPEN_TIMEOUT_US / 1000000u);
		break;
	default:
		snprintf(err, errlen, "%s: %s", name, strerror(-r));
		break;
	}
}

static void fill_info(struct usb_line *l)
{
	struct usb_host_found f;

	if (usb_host_describe(l->dev, &f) < 0)
		return;
	memcpy(l->info.path, f.path, sizeof(l->info.path));
	memcpy(l->info.port, f.port, sizeof(l->info.port));
	l->info.vid = f.facts.vid;
	l->info.pid = f.facts.pid;
	l->info.kernel_driver_detached = f.kernel_driver == 1;
	if (f.family) {
		struct usb_dongle_qos q = usb_host_qos(l->dev);

		l->info.family = f.family->name;
		l->info.chip = f.family->chip;
		l->info.baud_bits = q.baud_bits;
		l->info.min_tat_bits = q.min_tat_bits;
		l->info.window_bits = q.window_bits;
		l->info.data_size_bits = q.data_size_bits;
	}
}

static bool run_until(struct usb_line *l, bool (*done)(const struct usb_line *), uint64_t us);
static bool line_closed(const struct usb_line *l);

/* Closes the dongle (if open) and waits for its transfers; a dongle
 * whose transfers never come back is left allocated (their memory must
 * outlive them) and forgotten. */
static void release_dongle(struct usb_line *l)
{
	l->opened = false;
	l->q_len = 0;
	if (!l->dev)
		return;
	if (!l->closed && usb_host_close(l->dev) == 0 &&
	    !run_until(l, line_closed, CLOSE_WAIT_US)) {
		log_msg(l->log, LOG_LEVEL_WARNING, "%s: the dongle's transfers did not all come "
			"back at close", l->name);
		l->dev = NULL;
		l->leaked = true;
		return;
	}
	usb_host_free(l->dev);
	l->dev = NULL;
}

static void line_free(struct usb_line *l)
{
	release_dongle(l);
	/* a context with a device still in flight cannot be ended */
	if (!l->leaked)
		usb_host_ctx_free(l->ctx);
	for (size_t i = 0; i < QUEUE_LEN; i++)
		free(l->q[i].data);
	free(l);
}

static struct usb_line *line_alloc(struct eloop *loop, const char *name, const struct logger *log)
{
	struct usb_line *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->loop = loop;
	l->log = log;
	snprintf(l->name, sizeof(l->name), "%s", name);
	for (size_t i = 0; i < QUEUE_LEN; i++) {
		l->q[i].data = malloc(FRAME_MAX);
		if (!l->q[i].data) {
			line_free(l);
			return NULL;
		}
	}
	return l;
}

/* Runs the loop until done(l) or the time is up. */
static bool run_until(struct usb_line *l, bool (*done)(const struct usb_line *), uint64_t us)
{
	uint64_t end = eloop_now_us() + us;

	while (!done(l)) {
		uint64_t now = eloop_now_us();

		if (now >= end)
			return false;
		eloop_run_once(l->loop, end - now);
	}
	return true;
}

static bool open_ended(const struct usb_line *l) { return l->opened || l->failed; }
static bool queue_empty(const struct usb_line *l)
{
	return l->failed || (!l->q_len && !l->speed_pending);
}
static bool line_closed(const struct usb_line *l) { return l->closed; }

/* Opens the dongle l->name names and runs its init sequence.  0, or
 * -errno with the message in err (nothing left open). */
static int open_dongle(struct usb_line *l, char *err, size_t errlen)
{
	struct usb_name n;
	int r = usb_name_parse(l->name, &n, err, errlen);

	if (r < 0)
		return r;
	l->opened = l->closed = l->failed = false;
	l->speed_pending = false;
	l->q_len = 0;
	l->open_err = 0;
	r = usb_host_open(l->ctx, &(struct usb_host_open_args){
		.name = &n, .up = { on_frame, on_event, l } }, &l->dev);
	if (r == 0 && !run_until(l, open_ended, USB_LINE_OPEN_TIMEOUT_US))
		r = -ETIMEDOUT;
	if (r == 0 && l->failed)
		r = l->open_err;
	if (r < 0) {
		say_open_error(l->name, r, err, errlen);
		release_dongle(l);
		return r;
	}
	l->queued_baud = 9600;
	fill_info(l);
	log_msg(l->log, LOG_LEVEL_INFO, "%s: %s %04x:%04x (%s) in port %s, at 9600 bps", l->name,
		l->info.path, l->info.vid, l->info.pid, l->info.chip ? l->info.chip : "?",
		l->info.port[0] ? l->info.port : "?");
	return 0;
}

int usb_line_new(struct eloop *loop, const char *name, const struct logger *log,
		 struct usb_line **out, char *err, size_t errlen)
{
	struct usb_name n;
	struct usb_line *l;
	int r;

	*out = NULL;
	r = usb_name_parse(name, &n, err, errlen);
	if (r < 0)
		return r;
	l = line_alloc(loop, name, log);
	if (!l) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	r = usb_host_ctx_new(loop, log, &l->ctx);
	if (r < 0) {
		snprintf(err, errlen, "%s: libusb: %s", name, strerror(-r));
		line_free(l);
		return r;
	}
	l->framed = (struct station_frame_line){ .send = line_send, .set_speed = line_set_speed,
						 .bind = line_bind, .ctx = l, .name = l->name };
	*out = l;
	return 0;
}

int usb_line_open(struct eloop *loop, const char *name, const struct logger *log,
		  struct usb_line **out, char *err, size_t errlen)
{
	int r = usb_line_new(loop, name, log, out, err, errlen);

	if (r == 0 && (r = open_dongle(*out, err, errlen)) < 0) {
		line_free(*out);
		*out = NULL;
	}
	return r;
}

int usb_line_reopen(struct usb_line *l, char *err, size_t errlen)
{
	if (l->dev) {
		snprintf(err, errlen, "%s: still open", l->name);
		return -EBUSY;
	}
	return open_dongle(l, err, errlen);
}

void usb_line_release(struct usb_line *l)
{
	release_dongle(l);
	memset(&l->info, 0, sizeof(l->info));
}

int usb_line_watch(struct usb_line *l, void (*arrived)(void *ctx), void *ctx)
{
	return usb_host_watch_arrivals(l->ctx, arrived, ctx);
}

bool usb_line_is_usb_name(const char *name) { return usb_name_is_usb(name); }

const struct station_frame_line *usb_line_framed(struct usb_line *l) { return &l->framed; }

void usb_line_bind(struct usb_line *l, struct station *st) { l->st = st; }

const struct usb_line_info *usb_line_info(const struct usb_line *l) { return &l->info; }

void usb_line_close(struct usb_line *l)
{
	if (!l)
		return;
	l->st = NULL;
	if (l->dev && !run_until(l, queue_empty, CLOSE_FLUSH_US))
		log_msg(l->log, LOG_LEVEL_WARNING, "%s: %zu frames not sent at close", l->name,
			l->q_len);
	usb_line_watch(l, NULL, NULL);
	line_free(l);
}

int usb_line_list(struct eloop *loop, bool all, struct usb_line_listing *out, size_t cap,
		  size_t *n, char *err, size_t errlen)
{
	struct usb_host_ctx *ctx;
	struct usb_host_found *found = cap ? calloc(cap, sizeof(*found)) : NULL;
	int r;

	*n = 0;
	if (cap && !found) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = usb_host_ctx_new(loop, NULL, &ctx);
	if (r == 0) {
		r = usb_host_list(ctx, !all, found, cap, n);
		usb_host_ctx_free(ctx);
	}
	if (r < 0) {
		snprintf(err, errlen, "USB: %s", strerror(-r));
		free(found);
		return r;
	}
	for (size_t i = 0; i < *n && i < cap; i++) {
		struct usb_line_listing *o = &out[i];
		const struct usb_host_found *f = &found[i];

		memset(o, 0, sizeof(*o));
		memcpy(o->path, f->path, sizeof(o->path));
		memcpy(o->port, f->port, sizeof(o->port));
		o->vid = f->facts.vid;
		o->pid = f->facts.pid;
		snprintf(o->serial, sizeof(o->serial), "%s", f->serial);
		o->kernel_driver = f->kernel_driver;
		if (f->family) {
			o->family = f->family->name;
			o->chip = f->family->chip;
			o->baud_bits = f->family->baud_bits;
		}
	}
	free(found);
	return 0;
}
