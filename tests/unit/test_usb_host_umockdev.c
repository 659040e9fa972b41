/*
 * test_usb_host_umockdev.c: the libusb host adapter (irnet/host/usb_host.c)
 * with the real libusb, against the MCS7780 device model
 * (irnet/sim/usb_model_mcs7780.c) behind umockdev's usbfs emulation.
 *
 * The transport: umockdev emulates /dev/bus/usb/001/002 and hands every
 * ioctl libusb makes on it to a handle-ioctl handler, on umockdev's own
 * thread (docs/irnet-usb.md).  The handler turns URBs into model calls:
 * a control URB (8 setup bytes, then the data) into usb_model_control, a
 * bulk OUT into usb_model_bulk_out, both finished at once; a bulk IN
 * stays in flight until the model has data for it (asked again at each
 * reap).  A discard finishes the URB with -ENOENT.  The model is locked:
 * the test's thread reads and feeds its optical side.
 *
 * The test process must run under umockdev's preload; it re-executes
 * itself under umockdev-wrapper when it is not, and skips (a TAP plan of
 * 0) when that is not installed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/usbdevice_fs.h>
#include <cmocka.h>
#include <umockdev.h>

#include "eloop.h"
#include "usb_host.h"
#include "mcs7780.h"
#include "test_support.h"
#include "usb_model.h"

#define BUS 1
#define ADDR 2
#define DEVNODE "/dev/bus/usb/001/002"
#define MAX_URBS 32

/* Appends verify_asan_link_order=0 to ASAN_OPTIONS. */
static void asan_link_order_off(void)
{
	const char *was = getenv("ASAN_OPTIONS");
	char *now = g_strdup_printf("%s%sverify_asan_link_order=0", was ? was : "",
				    was && *was ? ":" : "");

	setenv("ASAN_OPTIONS", now, 1);
	g_free(now);
}

/* ---- the transport: URBs to model calls, on umockdev's thread ---------- */

struct urb_slot {
	UMockdevIoctlData *urb;	/* the client's struct usbdevfs_urb, resolved */
	bool done;
};

struct transport {
	pthread_mutex_t lock;
	struct usb_model *model;
	struct urb_slot urbs[MAX_URBS];	/* submitted, not yet reaped */
	unsigned submits, reaps, discards, refused;
};

static struct usbdevfs_urb *urb_of(const struct urb_slot *s)
{
	return (struct usbdevfs_urb *)s->urb->data;
}

/* Runs a submitted URB against the model if it can finish now. */
static void try_finish(struct transport *t, struct urb_slot *s)
{
	struct usbdevfs_urb *u = urb_of(s);
	uint8_t *buf = u->buffer; /* the client's: umockdev's preload shares our address space */
	int r;

	if (s->done)
		return;
	if (u->type == USBDEVFS_URB_TYPE_CONTROL) {
		uint16_t wlength = (uint16_t)(buf[6] | buf[7] << 8);
		bool in = buf[0] & 0x80;

		r = usb_model_control(t->model, buf, in ? NULL : buf + 8, in ? buf + 8 : NULL,
				      in ? wlength : 0);
		u->actual_length = r < 0 ? 0 : (in ? r : wlength);
	} else if (u->endpoint & 0x80) {
		r = usb_model_bulk_in(t->model, u->endpoint, buf, (size_t)u->buffer_length);
		if (r == -EAGAIN)
			return; /* stays in flight */
		u->actual_length = r < 0 ? 0 : r;
	} else {
		r = usb_model_bulk_out(t->model, u->endpoint, buf, (size_t)u->buffer_length);
		u->actual_length = r < 0 ? 0 : r;
	}
	u->status = r < 0 ? r : 0;
	s->done = true;
}

static gboolean submit(struct transport *t, UMockdevIoctlClient *client, UMockdevIoctlData *arg)
{
	UMockdevIoctlData *urb = umockdev_ioctl_data_resolve(arg, 0, sizeof(struct usbdevfs_urb), NULL);
	UMockdevIoctlData *buf;
	struct usbdevfs_urb *u;

	if (!urb)
		return FALSE;
	u = (struct usbdevfs_urb *)urb->data;
	/* resolving the buffer makes umockdev check it is readable */
	buf = umockdev_ioctl_data_resolve(urb, offsetof(struct usbdevfs_urb, buffer),
					  (gsize)u->buffer_length, NULL);
	if (buf)
		umockdev_ioctl_data_unref(buf);
	for (size_t i = 0; i < MAX_URBS; i++)
		if (!t->urbs[i].urb) {
			t->urbs[i] = (struct urb_slot){ .urb = urb };
			t->submits++;
			try_finish(t, &t->urbs[i]);
			umockdev_ioctl_client_complete(client, 0, 0);
			return TRUE;
		}
	umockdev_ioctl_data_unref(urb);
	t->refused++;
	umockdev_ioctl_client_complete(client, -1, ENOMEM);
	return TRUE;
}

static gboolean reap(struct transport *t, UMockdevIoctlClient *client, UMockdevIoctlData *arg)
{
	for (size_t i = 0; i < MAX_URBS; i++) {
		struct urb_slot *s = &t->urbs[i];
		UMockdevIoctlData *ptr;

		if (!s->urb)
			continue;
		try_finish(t, s);
		if (!s->done)
			continue;
		ptr = umockdev_ioctl_data_resolve(arg, 0, sizeof(void *), NULL);
		if (!ptr)
			return FALSE;
		umockdev_ioctl_data_set_ptr(ptr, 0, s->urb);
		umockdev_ioctl_data_unref(ptr);
		umockdev_ioctl_data_unref(s->urb);
		*s = (struct urb_slot){ 0 };
		t->reaps++;
		umockdev_ioctl_client_complete(client, 0, 0);
		return TRUE;
	}
	umockdev_ioctl_client_complete(client, -1, EAGAIN);
	return TRUE;
}

static gboolean discard(struct transport *t, UMockdevIoctlClient *client, UMockdevIoctlData *arg)
{
	gulong addr = (gulong) * (void **)arg->data;

	for (size_t i = 0; i < MAX_URBS; i++) {
		struct urb_slot *s = &t->urbs[i];

		if (s->urb && !s->done && s->urb->client_addr == addr) {
			urb_of(s)->status = -ENOENT;
			urb_of(s)->actual_length = 0;
			s->done = true;
			t->discards++;
			umockdev_ioctl_client_complete(client, 0, 0);
			return TRUE;
		}
	}
	umockdev_ioctl_client_complete(client, -1, EINVAL);
	return TRUE;
}

static gboolean on_ioctl(UMockdevIoctlBase *handler, UMockdevIoctlClient *client, gpointer ctx)
{
	struct transport *t = ctx;
	UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);
	gulong request = umockdev_ioctl_client_get_request(client);
	gboolean handled = TRUE;

	(void)handler;
	pthread_mutex_lock(&t->lock);
	switch (request) {
	case USBDEVFS_GET_CAPABILITIES: {
		UMockdevIoctlData *d = umockdev_ioctl_data_resolve(arg, 0, sizeof(guint32), NULL);
		if (d) {
			*(guint32 *)d->data = USBDEVFS_CAP_ZERO_PACKET | USBDEVFS_CAP_NO_PACKET_SIZE_LIM;
			umockdev_ioctl_data_unref(d);
		}
		umockdev_ioctl_client_complete(client, d ? 0 : -1, d ? 0 : EFAULT);
		break;
	}
	case USBDEVFS_CLAIMINTERFACE:
	case USBDEVFS_RELEASEINTERFACE:
	case USBDEVFS_CLEAR_HALT:
	case USBDEVFS_RESETEP:
	case USBDEVFS_SETINTERFACE:
		umockdev_ioctl_client_complete(client, 0, 0);
		break;
	case USBDEVFS_GETDRIVER: /* no kernel driver bound */
		umockdev_ioctl_client_complete(client, -1, ENODATA);
		break;
	case USBDEVFS_SUBMITURB:
		handled = submit(t, client, arg);
		break;
	case USBDEVFS_REAPURB:
	case USBDEVFS_REAPURBNDELAY:
		handled = reap(t, client, arg);
		break;
	case USBDEVFS_DISCARDURB:
		handled = discard(t, client, arg);
		break;
	default:
		handled = FALSE;
		break;
	}
	pthread_mutex_unlock(&t->lock);
	return handled;
}

/* ---- the testbed -------------------------------------------------------- */

struct rig {
	UMockdevTestbed *testbed;
	UMockdevIoctlBase *handler;
	struct transport t;
	struct eloop *loop;
	struct usb_host_ctx *ctx;
	struct usb_host_dev *dev;
	enum usb_dongle_event events[64];
	size_t n_events;
	uint8_t rx[2048];
	size_t rx_len;
	unsigned rx_frames;
};

static void on_frame(void *ctx, const struct usb_rx_frame *f)
{
	struct rig *r = ctx;

	if (f->len <= sizeof(r->rx)) {
		memcpy(r->rx, f->data, f->len);
		r->rx_len = f->len;
	}
	r->rx_frames++;
}

static void on_event(void *ctx, enum usb_dongle_event ev, int err)
{
	struct rig *r = ctx;

	(void)err;
	if (r->n_events < sizeof(r->events) / sizeof(r->events[0]))
		r->events[r->n_events++] = ev;
}

static bool saw(const struct rig *r, enum usb_dongle_event ev)
{
	for (size_t i = 0; i < r->n_events; i++)
		if (r->events[i] == ev)
			return true;
	return false;
}

/* Runs the loop until cond holds; the ceiling (10 s on an idle machine,
 * scaled by IRNET_TEST_SLOWDOWN) only bounds a failure: each step here
 * takes milliseconds. */
static bool run_until(struct rig *r, bool (*cond)(struct rig *, const void *), const void *arg)
{
	uint64_t give_up = eloop_now_us() + test_ceiling_us(10ull * 1000000);

	while (!cond(r, arg)) {
		if (eloop_now_us() > give_up)
			return false;
		eloop_run_once(r->loop, 10000);
	}
	return true;
}

static bool event_seen(struct rig *r, const void *arg)
{
	return saw(r, *(const enum usb_dongle_event *)arg);
}

static char *descriptors_hex(const struct usb_model *m)
{
	char *hex = malloc(m->descriptors_len * 2 + 1);

	assert_non_null(hex);
	for (size_t i = 0; i < m->descriptors_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", m->descriptors[i]);
	return hex;
}

static void rig_open(struct rig *r)
{
	struct usb_host_open_args a = { .bus = BUS, .address = ADDR,
					.clear_halt = USB_CLEAR_HALT_SWAPPED,
					.up = { on_frame, on_event, r } };
	enum usb_dongle_event opened = USB_EVENT_OPENED;
	char *hex, *dev;

	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->t.lock, NULL);
	r->t.model = usb_model_mcs7780_new();
	assert_non_null(r->t.model);
	r->testbed = umockdev_testbed_new();
	r->handler = umockdev_ioctl_base_new();
	g_signal_connect(r->handler, "handle-ioctl", G_CALLBACK(on_ioctl), &r->t);
	/* before the device exists, so libusb never sees it unhandled */
	assert_true(umockdev_testbed_attach_ioctl(r->testbed, DEVNODE, r->handler, NULL));
	hex = descriptors_hex(r->t.model);
	dev = g_strdup_printf("P: /devices/pci0000:00/usb1/1-1\nN: bus/usb/001/002\n"
			      "E: SUBSYSTEM=usb\nE: DEVTYPE=usb_device\nE: BUSNUM=001\n"
			      "E: DEVNUM=002\nE: DEVNAME=" DEVNODE "\n"
			      "A: busnum=1\\n\nA: devnum=2\\n\nA: bConfigurationValue=1\\n\n"
			      "A: speed=12\\n\nH: descriptors=%s\n", hex);
	assert_true(umockdev_testbed_add_from_string(r->testbed, dev, NULL));
	g_free(dev);
	free(hex);
	r->loop = eloop_new(NULL);
	assert_non_null(r->loop);
	assert_int_equal(usb_host_ctx_new(r->loop, NULL, &r->ctx), 0);
	assert_int_equal(usb_host_open(r->ctx, &a, &r->dev), 0);
	assert_true(run_until(r, event_seen, &opened));
}

static void rig_close(struct rig *r)
{
	enum usb_dongle_event closed = USB_EVENT_CLOSED;

	assert_int_equal(usb_host_close(r->dev), 0);
	assert_true(run_until(r, event_seen, &closed));
	assert_int_equal(usb_host_in_flight(r->dev), 0);
	usb_host_free(r->dev);
	usb_host_ctx_free(r->ctx);
	eloop_free(r->loop);
	g_object_unref(r->handler);
	g_object_unref(r->testbed);
	for (size_t i = 0; i < MAX_URBS; i++)
		if (r->t.urbs[i].urb)
			umockdev_ioctl_data_unref(r->t.urbs[i].urb);
	usb_model_free(r->t.model);
	pthread_mutex_destroy(&r->t.lock);
}

/* ---- the cases ---------------------------------------------------------- */

static const uint8_t xid[] = { 0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12,
			       0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00 };

static bool frame_on_optical_side(struct rig *r, const void *arg)
{
	int *n = (int *)arg;

	pthread_mutex_lock(&r->t.lock);
	*n = usb_model_mcs7780_take_frame(r->t.model, r->rx, sizeof(r->rx));
	pthread_mutex_unlock(&r->t.lock);
	return *n != -EAGAIN;
}

static bool frame_received(struct rig *r, const void *arg)
{
	(void)arg;
	return r->rx_frames > 0;
}

/* The open sequence through real libusb, a frame out to the optical
 * side, a frame in from it, the close with the IN transfer discarded. */
static void frames_both_ways(void **state)
{
	static const uint8_t ua[] = { 0xFF, 0x63, 0xC0, 0x7D, 0xC1 }; /* bytes that need escapes */
	struct usb_tx_frame tx = { .data = xid, .len = sizeof(xid) };
	struct rig r;
	size_t n_writes;
	int n = 0;

	(void)state;
	rig_open(&r);
	usb_model_mcs7780_writes(r.t.model, &n_writes);
	assert_int_equal(n_writes, 8); /* digest 2.3's open writes */
	assert_true(usb_host_can_send(r.dev));
	assert_int_equal(usb_host_send(r.dev, &tx), 0);
	assert_true(run_until(&r, frame_on_optical_side, &n));
	assert_int_equal(n, sizeof(xid));
	assert_memory_equal(r.rx, xid, sizeof(xid));
	pthread_mutex_lock(&r.t.lock);
	assert_int_equal(usb_model_mcs7780_inject_frame(r.t.model, ua, sizeof(ua)), 0);
	pthread_mutex_unlock(&r.t.lock);
	assert_true(run_until(&r, frame_received, NULL));
	assert_int_equal(r.rx_len, sizeof(ua));
	assert_memory_equal(r.rx, ua, sizeof(ua));
	assert_int_equal(usb_model_mcs7780_bad_transfers(r.t.model), 0);
	rig_close(&r);
	assert_true(r.t.discards >= 1); /* the IN that waited */
	assert_int_equal(r.t.refused, 0);
}

/* A speed change through libusb's control transfers lands in MODE. */
static void speed_change_reaches_the_chip(void **state)
{
	enum usb_dongle_event speed = USB_EVENT_SPEED;
	struct rig r;
	uint16_t mode;

	(void)state;
	rig_open(&r);
	assert_int_equal(usb_host_set_speed(r.dev, 115200), 0);
	assert_true(run_until(&r, event_seen, &speed));
	pthread_mutex_lock(&r.t.lock);
	mode = usb_model_mcs7780_reg(r.t.model, MCS7780_REG_MODE);
	pthread_mutex_unlock(&r.t.lock);
	assert_int_equal(mode, mcs7780_mode_for_speed(0x1622, 115200));
	rig_close(&r);
}

/* The device unplugged: the waiting IN fails with -ENODEV when it is
 * next looked at, the adapter reports GONE, and closes cleanly. */
static void unplug_gives_gone(void **state)
{
	enum usb_dongle_event gone = USB_EVENT_GONE;
	struct rig r;

	(void)state;
	rig_open(&r);
	pthread_mutex_lock(&r.t.lock);
	r.t.model->gone = true;
	pthread_mutex_unlock(&r.t.lock);
	assert_true(run_until(&r, event_seen, &gone));
	rig_close(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frames_both_ways),
		cmocka_unit_test(speed_change_reaches_the_chip),
		cmocka_unit_test(unplug_gives_gone),
	};

	(void)argc;
	/* umockdev_in_mock_environment() is true only once a testbed
	 * exists, so the preload is looked for in LD_PRELOAD; the marker
	 * stops a second exec if the wrapper did not set it. */
	const char *preload = getenv("LD_PRELOAD");

	if (!preload || !strstr(preload, "libumockdev-preload")) {
		char *wrapped[] = { "umockdev-wrapper", argv[0], NULL };

		if (getenv("IRNET_UMOCKDEV_WRAPPED")) {
			fprintf(stderr, "test_usb_host_umockdev: umockdev-wrapper set no preload\n");
			return 99;
		}
		setenv("IRNET_UMOCKDEV_WRAPPED", "1", 1);
		/* under ASan the preload comes before its runtime, which is
		 * harmless here (the preload wraps libc calls only) */
		asan_link_order_off();
		execvp(wrapped[0], wrapped);
		/* run by tap-driver.sh (CMOCKA_MESSAGE_OUTPUT=TAP): a plan of 0 */
		printf("1..0 # SKIP umockdev-wrapper: %s\n", strerror(errno));
		return 0;
	}
	return cmocka_run_group_tests_name("usb_host_umockdev", tests, NULL, NULL);
}
