/*
 * usb_umockdev.c: the usbfs ioctls of a umockdev-emulated node as calls
 * on a USB device model.  See usb_umockdev.h.
 *
 * Every ioctl's data comes from umockdev_ioctl_data_resolve: umockdev
 * reads it from the client (over its socket when the client is another
 * process) into a local copy, and writes back what changed when the
 * ioctl completes.  A URB is resolved with its buffer at SUBMITURB and
 * kept; at REAPURB it is hung under the reap's argument with
 * umockdev_ioctl_data_set_ptr, so that the URB and its buffer are written
 * back then, and the client's pointer to it is what the reap returns.
 *
 * Clients are told apart by their UMockdevIoctlClient (one per open of
 * the node): a reap hands out only the client's own URBs, and a client
 * that opened the node before an unplug gets ENODEV for ever after, as
 * a kernel's usbfs gives an fd of a device that went away.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/usbdevice_fs.h>

#include "usb_umockdev.h"

#define MAX_URBS 32
#define SETUP_LEN 8
/* The key of a client's generation (g_object_set_data). */
#define GEN_KEY "irnet-usb-umockdev-generation"

struct urb_slot {
	UMockdevIoctlClient *client;	/* referenced; NULL: free slot */
	UMockdevIoctlData *urb;		/* the client's struct usbdevfs_urb, resolved */
	UMockdevIoctlData *buf;		/* its buffer, resolved (NULL when empty) */
	bool done;
};

struct usb_umockdev {
	pthread_mutex_t lock;
	UMockdevTestbed *testbed;
	UMockdevIoctlBase *handler;
	struct usb_model *model;	/* NULL while unplugged */
	/* Counts plug-ins from 1; a client belongs to the one it opened in. */
	uintptr_t generation;
	struct urb_slot urbs[MAX_URBS];
	/* The client holding the interface (CLAIMINTERFACE), ref'd, or NULL:
	 * another client's claim is refused with EBUSY, as usbfs refuses a
	 * second file's. */
	UMockdevIoctlClient *claimant;
	struct usb_umockdev_counters cnt;
	usb_umockdev_notify_fn notify;
	void *notify_ctx;
	int bus, address;
	char devnode[32];
	char syspath[64];
	char *record;	/* the umockdev-record text minus the descriptors */
};

static struct usbdevfs_urb *urb_of(const struct urb_slot *s)
{
	return (struct usbdevfs_urb *)s->urb->data;
}

static void slot_free(struct urb_slot *s)
{
	if (s->buf)
		g_object_unref(s->buf);
	if (s->urb)
		g_object_unref(s->urb);
	if (s->client)
		g_object_unref(s->client);
	*s = (struct urb_slot){ 0 };
}

static void slot_finish(struct urb_slot *s, int status, int actual)
{
	urb_of(s)->status = status;
	urb_of(s)->actual_length = actual;
	s->done = true;
}

/* A control URB: 8 setup bytes, then wLength bytes of data.  Returns
 * whether it finished (an IN the model has nothing for yet stays). */
static bool run_control(struct usb_umockdev *u, struct urb_slot *s)
{
	uint8_t *b = s->buf ? s->buf->data : NULL;
	size_t len = s->buf ? (size_t)s->buf->data_len : 0;
	uint16_t wlength;
	bool in;
	int r;

	if (len < SETUP_LEN) {
		slot_finish(s, -EINVAL, 0);
		return true;
	}
	wlength = (uint16_t)(b[6] | b[7] << 8);
	in = b[0] & 0x80;
	if ((size_t)wlength > len - SETUP_LEN) {
		slot_finish(s, -EINVAL, 0);
		return true;
	}
	r = usb_model_control(u->model, b, in ? NULL : b + SETUP_LEN, in ? b + SETUP_LEN : NULL,
			      in ? wlength : 0);
	if (r == -EAGAIN && in)
		return false; /* an IN with nothing yet stays in flight */
	slot_finish(s, r < 0 ? r : 0, r < 0 ? 0 : (in ? r : wlength));
	return true;
}

/* Runs a submitted URB against the model if it can finish now; returns
 * whether it was a bulk OUT the model took or a control transfer (which
 * may have changed the speed). */
static bool try_finish(struct usb_umockdev *u, struct urb_slot *s)
{
	struct usbdevfs_urb *urb = urb_of(s);
	uint8_t *b = s->buf ? s->buf->data : NULL;
	size_t len = s->buf ? (size_t)s->buf->data_len : 0;
	int r;

	if (s->done)
		return false;
	if (!u->model) {
		slot_finish(s, -ENODEV, 0);
		return false;
	}
	if (urb->type == USBDEVFS_URB_TYPE_CONTROL) {
		return run_control(u, s);
	}
	if (urb->endpoint & 0x80) {
		r = len ? usb_model_bulk_in(u->model, urb->endpoint, b, len) : -EINVAL;
		if (r == -EAGAIN)
			return false; /* stays in flight */
		slot_finish(s, r < 0 ? r : 0, r < 0 ? 0 : r);
		return false;
	}
	r = usb_model_bulk_out(u->model, urb->endpoint, b, len);
	slot_finish(s, r < 0 ? r : 0, r < 0 ? 0 : r);
	return r >= 0;
}

/* A client's generation: the plug-in it opened the node in, set at its
 * first ioctl. */
static bool client_current(struct usb_umockdev *u, UMockdevIoctlClient *client)
{
	uintptr_t gen = (uintptr_t)g_object_get_data(G_OBJECT(client), GEN_KEY);

	if (!gen && u->model) {
		gen = u->generation;
		g_object_set_data(G_OBJECT(client), GEN_KEY, (gpointer)gen);
	}
	return u->model && gen == u->generation;
}

/* Slots of clients that closed the node without reaping. */
static void sweep_disconnected(struct usb_umockdev *u)
{
	for (size_t i = 0; i < MAX_URBS; i++)
		if (u->urbs[i].client && !umockdev_ioctl_client_get_connected(u->urbs[i].client))
			slot_free(&u->urbs[i]);
}

static void drop_claimant(struct usb_umockdev *u)
{
	if (u->claimant)
		g_object_unref(u->claimant);
	u->claimant = NULL;
}

/* One claim per device at a time (there is one interface): a claimant
 * that closed the node, or belongs to an unplugged device, has let go. */
static int claim(struct usb_umockdev *u, UMockdevIoctlClient *client)
{
	if (u->claimant && u->claimant != client &&
	    umockdev_ioctl_client_get_connected(u->claimant) && client_current(u, u->claimant))
		return EBUSY;
	if (u->claimant != client) {
		drop_claimant(u);
		u->claimant = g_object_ref(client);
	}
	return 0;
}

static void release(struct usb_umockdev *u, UMockdevIoctlClient *client)
{
	if (u->claimant == client)
		drop_claimant(u);
}

static struct urb_slot *free_slot(struct usb_umockdev *u)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < MAX_URBS; i++)
			if (!u->urbs[i].client)
				return &u->urbs[i];
		sweep_disconnected(u);
	}
	return NULL;
}

static void complete(UMockdevIoctlClient *client, int err)
{
	umockdev_ioctl_client_complete(client, err ? -1 : 0, err);
}

/* Returns whether the model took a bulk OUT. */
static bool submit(struct usb_umockdev *u, UMockdevIoctlClient *client, UMockdevIoctlData *arg)
{
	UMockdevIoctlData *urb = umockdev_ioctl_data_resolve(arg, 0, sizeof(struct usbdevfs_urb), NULL);
	struct usbdevfs_urb *d;
	struct urb_slot *s;
	bool out;

	if (!urb) {
		complete(client, EFAULT);
		return false;
	}
	g_object_ref(urb); /* the argument's reference goes when the ioctl completes */
	d = (struct usbdevfs_urb *)urb->data;
	s = d->buffer_length >= 0 ? free_slot(u) : NULL;
	if (!s) {
		g_object_unref(urb);
		if (d->buffer_length >= 0)
			u->cnt.refused++;
		complete(client, d->buffer_length < 0 ? EINVAL : ENOMEM);
		return false;
	}
	*s = (struct urb_slot){ .client = g_object_ref(client), .urb = urb };
	/* NULL for an empty buffer (umockdev resolves no null or empty one) */
	s->buf = umockdev_ioctl_data_resolve(urb, offsetof(struct usbdevfs_urb, buffer),
					     (gsize)d->buffer_length, NULL);
	if (s->buf)
		g_object_ref(s->buf);
	else if (d->buffer_length > 0) {
		slot_free(s);
		complete(client, EFAULT);
		return false;
	}
	u->cnt.submits++;
	out = try_finish(u, s);
	complete(client, 0);
	return out;
}

static void reap(struct usb_umockdev *u, UMockdevIoctlClient *client, UMockdevIoctlData *arg)
{
	for (size_t i = 0; i < MAX_URBS; i++) {
		struct urb_slot *s = &u->urbs[i];
		UMockdevIoctlData *ptr;

		if (s->client != client)
			continue;
		try_finish(u, s);
		if (!s->done)
			continue;
		ptr = umockdev_ioctl_data_resolve(arg, 0, sizeof(void *), NULL);
		if (!ptr) {
			complete(client, EFAULT);
			return;
		}
		/* the URB and its buffer are written back as this ioctl completes */
		umockdev_ioctl_data_set_ptr(ptr, 0, s->urb);
		slot_free(s);
		u->cnt.reaps++;
		complete(client, 0);
		return;
	}
	complete(client, u->model ? EAGAIN : ENODEV);
}

static void discard(struct usb_umockdev *u, UMockdevIoctlClient *client, UMockdevIoctlData *arg)
{
	/* the argument is the URB's address in the client, not a pointer to follow */
	gulong addr = (gulong) * (void **)arg->data;

	for (size_t i = 0; i < MAX_URBS; i++) {
		struct urb_slot *s = &u->urbs[i];

		if (s->client == client && !s->done && s->urb->client_addr == addr) {
			slot_finish(s, -ENOENT, 0);
			u->cnt.discards++;
			complete(client, 0);
			return;
		}
	}
	complete(client, EINVAL);
}

static void capabilities(UMockdevIoctlClient *client, UMockdevIoctlData *arg)
{
	UMockdevIoctlData *d = umockdev_ioctl_data_resolve(arg, 0, sizeof(guint32), NULL);

	if (d)
		*(guint32 *)d->data = USBDEVFS_CAP_ZERO_PACKET | USBDEVFS_CAP_NO_PACKET_SIZE_LIM;
	complete(client, d ? 0 : EFAULT);
}

static gboolean on_ioctl(UMockdevIoctlBase *handler, UMockdevIoctlClient *client, gpointer ctx)
{
	struct usb_umockdev *u = ctx;
	UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);
	gulong request = umockdev_ioctl_client_get_request(client);
	usb_umockdev_notify_fn notify = NULL;
	gboolean handled = TRUE;
	bool reap_call = request == USBDEVFS_REAPURB || request == USBDEVFS_REAPURBNDELAY;

	(void)handler;
	pthread_mutex_lock(&u->lock);
	/* an old client may still reap what it had in flight, as on usbfs */
	if (!client_current(u, client) && !reap_call) {
		u->cnt.stale++;
		complete(client, ENODEV);
		pthread_mutex_unlock(&u->lock);
		return TRUE;
	}
	switch (request) {
	case USBDEVFS_GET_CAPABILITIES:
		capabilities(client, arg);
		break;
	case USBDEVFS_CLAIMINTERFACE:
		complete(client, claim(u, client));
		break;
	case USBDEVFS_RELEASEINTERFACE:
		release(u, client);
		complete(client, 0);
		break;
	case USBDEVFS_CLEAR_HALT:
	case USBDEVFS_RESETEP:
	case USBDEVFS_RESET:
	case USBDEVFS_SETINTERFACE:
		complete(client, 0);
		break;
	case USBDEVFS_GETDRIVER: /* no kernel driver bound */
		complete(client, ENODATA);
		break;
	case USBDEVFS_SUBMITURB:
		if (submit(u, client, arg))
			notify = u->notify;
		break;
	case USBDEVFS_REAPURB: /* never blocks here: libusb reaps with NDELAY only */
	case USBDEVFS_REAPURBNDELAY:
		reap(u, client, arg);
		break;
	case USBDEVFS_DISCARDURB:
		discard(u, client, arg);
		break;
	default:
		handled = FALSE;
		break;
	}
	pthread_mutex_unlock(&u->lock);
	if (notify)
		notify(u->notify_ctx);
	return handled;
}

/* The device as umockdev-record writes it, with the model's descriptors. */
static int add_device(struct usb_umockdev *u)
{
	const struct usb_model *m = u->model;
	size_t n = strlen(u->record);
	char *text = malloc(n + 2 * m->descriptors_len + 2);
	gboolean ok;

	if (!text)
		return -ENOMEM;
	memcpy(text, u->record, n);
	for (size_t i = 0; i < m->descriptors_len; i++)
		snprintf(text + n + 2 * i, 3, "%02x", m->descriptors[i]);
	snprintf(text + n + 2 * m->descriptors_len, 2, "\n");
	ok = umockdev_testbed_add_from_string(u->testbed, text, NULL);
	free(text);
	return ok ? 0 : -EIO;
}

int usb_umockdev_new(UMockdevTestbed *testbed, int bus, int address, struct usb_model *model,
		     struct usb_umockdev **out)
{
	struct usb_umockdev *u;
	int r;

	*out = NULL;
	if (!model)
		return -ENOMEM;
	if (bus < 1 || bus > 127 || address < 1 || address > 127) {
		usb_model_free(model);
		return -EINVAL;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		usb_model_free(model);
		return -ENOMEM;
	}
	pthread_mutex_init(&u->lock, NULL);
	u->testbed = g_object_ref(testbed);
	u->model = model;
	u->generation = 1;
	u->bus = bus;
	u->address = address;
	snprintf(u->devnode, sizeof(u->devnode), "/dev/bus/usb/%03d/%03d", bus, address);
	snprintf(u->syspath, sizeof(u->syspath), "/sys/devices/pci0000:00/usb%d/%d-1", bus, bus);
	u->record = g_strdup_printf("P: %s\nN: %s\nE: SUBSYSTEM=usb\nE: DEVTYPE=usb_device\n"
				    "E: BUSNUM=%03d\nE: DEVNUM=%03d\nE: DEVNAME=%s\n"
				    "A: busnum=%d\\n\nA: devnum=%d\\n\nA: bConfigurationValue=1\\n\n"
				    "A: speed=12\\n\nH: descriptors=",
				    u->syspath + strlen("/sys"), u->devnode + strlen("/dev/"), bus,
				    address, u->devnode, bus, address);
	u->handler = umockdev_ioctl_base_new();
	g_signal_connect(u->handler, "handle-ioctl", G_CALLBACK(on_ioctl), u);
	/* before the device exists, so that no client sees it unhandled */
	if (!umockdev_testbed_attach_ioctl(testbed, u->devnode, u->handler, NULL)) {
		usb_umockdev_free(u);
		return -EIO;
	}
	r = add_device(u);
	if (r < 0) {
		usb_umockdev_free(u);
		return r;
	}
	*out = u;
	return 0;
}

void usb_umockdev_set_notify(struct usb_umockdev *u, usb_umockdev_notify_fn fn, void *ctx)
{
	pthread_mutex_lock(&u->lock);
	u->notify = fn;
	u->notify_ctx = ctx;
	pthread_mutex_unlock(&u->lock);
}

int usb_umockdev_unplug(struct usb_umockdev *u)
{
	pthread_mutex_lock(&u->lock);
	if (!u->model) {
		pthread_mutex_unlock(&u->lock);
		return -ENODEV;
	}
	usb_model_free(u->model);
	u->model = NULL;
	for (size_t i = 0; i < MAX_URBS; i++)
		if (u->urbs[i].client && !u->urbs[i].done)
			slot_finish(&u->urbs[i], -ENODEV, 0);
	pthread_mutex_unlock(&u->lock);
	/* The uevent needs the sysfs directory, so before the removal.  Its
	 * sender looks the device up through libudev, which finds it only
	 * under the preload: a testbed process without it (irusb-emu) sends
	 * none, and its clients see the unplug through their transfers. */
	if (umockdev_in_mock_environment())
		umockdev_testbed_uevent(u->testbed, u->syspath, "remove");
	umockdev_testbed_remove_device(u->testbed, u->syspath);
	return 0;
}

int usb_umockdev_replug(struct usb_umockdev *u, struct usb_model *model)
{
	int r;

	if (!model)
		return -ENOMEM;
	pthread_mutex_lock(&u->lock);
	if (u->model) {
		pthread_mutex_unlock(&u->lock);
		usb_model_free(model);
		return -EBUSY;
	}
	u->model = model;
	u->generation++;
	sweep_disconnected(u);
	pthread_mutex_unlock(&u->lock);
	r = add_device(u);
	if (r < 0) {
		pthread_mutex_lock(&u->lock);
		usb_model_free(u->model);
		u->model = NULL;
		pthread_mutex_unlock(&u->lock);
	}
	return r;
}

bool usb_umockdev_plugged(const struct usb_umockdev *u)
{
	struct usb_umockdev *w = (struct usb_umockdev *)u;
	bool plugged;

	pthread_mutex_lock(&w->lock);
	plugged = u->model != NULL;
	pthread_mutex_unlock(&w->lock);
	return plugged;
}

void usb_umockdev_free(struct usb_umockdev *u)
{
	if (!u)
		return;
	if (u->handler) {
		/* no handler call can start once it is detached */
		umockdev_testbed_detach_ioctl(u->testbed, u->devnode, NULL);
		g_object_unref(u->handler);
	}
	pthread_mutex_lock(&u->lock);
	drop_claimant(u);
	for (size_t i = 0; i < MAX_URBS; i++)
		slot_free(&u->urbs[i]);
	usb_model_free(u->model);
	u->model = NULL;
	pthread_mutex_unlock(&u->lock);
	g_object_unref(u->testbed);
	g_free(u->record);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

struct usb_model *usb_umockdev_lock(struct usb_umockdev *u)
{
	pthread_mutex_lock(&u->lock);
	return u->model;
}

void usb_umockdev_unlock(struct usb_umockdev *u)
{
	pthread_mutex_unlock(&u->lock);
}

struct usb_umockdev_counters usb_umockdev_counters(struct usb_umockdev *u)
{
	struct usb_umockdev_counters c;

	pthread_mutex_lock(&u->lock);
	c = u->cnt;
	pthread_mutex_unlock(&u->lock);
	return c;
}

const char *usb_umockdev_devnode(const struct usb_umockdev *u)
{
	return u->devnode;
}

const char *usb_umockdev_syspath(const struct usb_umockdev *u)
{
	return u->syspath;
}
