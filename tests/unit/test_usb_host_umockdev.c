/*
 * test_usb_host_umockdev.c: the libusb host adapter (irnet/host/usb_host.c)
 * with the real libusb, against the MCS7780 device model
 * (irnet/sim/usb_model_mcs7780.c) behind umockdev's usbfs emulation.
 *
 * The transport is irnet/sim/usb_umockdev.c: umockdev emulates
 * /dev/bus/usb/001/002 and hands every ioctl libusb makes on it to that
 * module's handler, on umockdev's own thread (docs/irnet-usb.md); the
 * test's thread reads and feeds the model's optical side under the
 * module's lock.  Here the client is this same process.
 *
 * The test process must run under umockdev's preload; it re-executes
 * itself under umockdev-wrapper when it is not, and skips (a TAP plan of
 * 0) when that is not installed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <umockdev.h>

#include "eloop.h"
#include "usb_host.h"
#include "mcs7780.h"
#include "test_support.h"
#include "usb_model.h"
#include "usb_umockdev.h"

#define BUS 1
#define ADDR 2

/* Appends verify_asan_link_order=0 to ASAN_OPTIONS. */
static void asan_link_order_off(void)
{
	const char *was = getenv("ASAN_OPTIONS");
	char *now = g_strdup_printf("%s%sverify_asan_link_order=0", was ? was : "",
				    was && *was ? ":" : "");

	setenv("ASAN_OPTIONS", now, 1);
	g_free(now);
}

/* ---- the testbed -------------------------------------------------------- */

struct rig {
	UMockdevTestbed *testbed;
	struct usb_umockdev *emu;
	struct eloop *loop;
	struct usb_host_ctx *ctx;
	struct usb_host_dev *dev;
	struct usb_umockdev_counters cnt;	/* at rig_close */
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

static void rig_open(struct rig *r)
{
	struct usb_host_open_args a = { .bus = BUS, .address = ADDR,
					.clear_halt = USB_CLEAR_HALT_SWAPPED,
					.up = { on_frame, on_event, r } };
	enum usb_dongle_event opened = USB_EVENT_OPENED;

	memset(r, 0, sizeof(*r));
	r->testbed = umockdev_testbed_new();
	assert_int_equal(usb_umockdev_new(r->testbed, BUS, ADDR, usb_model_mcs7780_new(), &r->emu), 0);
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
	r->cnt = usb_umockdev_counters(r->emu);
	usb_umockdev_free(r->emu);
	g_object_unref(r->testbed);
}

/* ---- the cases ---------------------------------------------------------- */

static const uint8_t xid[] = { 0xFF, 0x3F, 0x01, 0x78, 0x56, 0x34, 0x12,
			       0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00 };

static bool frame_on_optical_side(struct rig *r, const void *arg)
{
	int *n = (int *)arg;

	*n = usb_model_take_frame(usb_umockdev_lock(r->emu), r->rx, sizeof(r->rx), NULL);
	usb_umockdev_unlock(r->emu);
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
	uint64_t bad;
	int n = 0;

	(void)state;
	rig_open(&r);
	usb_model_mcs7780_writes(usb_umockdev_lock(r.emu), &n_writes);
	usb_umockdev_unlock(r.emu);
	assert_int_equal(n_writes, 8); /* digest 2.3's open writes */
	assert_true(usb_host_can_send(r.dev));
	assert_int_equal(usb_host_send(r.dev, &tx), 0);
	assert_true(run_until(&r, frame_on_optical_side, &n));
	assert_int_equal(n, sizeof(xid));
	assert_memory_equal(r.rx, xid, sizeof(xid));
	n = usb_model_inject_frame(usb_umockdev_lock(r.emu), ua, sizeof(ua));
	usb_umockdev_unlock(r.emu);
	assert_int_equal(n, 0);
	assert_true(run_until(&r, frame_received, NULL));
	assert_int_equal(r.rx_len, sizeof(ua));
	assert_memory_equal(r.rx, ua, sizeof(ua));
	bad = usb_umockdev_lock(r.emu)->bad_transfers;
	usb_umockdev_unlock(r.emu);
	assert_int_equal(bad, 0);
	rig_close(&r);
	assert_true(r.cnt.discards >= 1); /* the IN that waited */
	assert_int_equal(r.cnt.refused, 0);
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
	mode = usb_model_mcs7780_reg(usb_umockdev_lock(r.emu), MCS7780_REG_MODE);
	usb_umockdev_unlock(r.emu);
	assert_int_equal(mode, mcs7780_mode_for_speed(0x1622, 115200));
	rig_close(&r);
}

/* The device unplugged (usb_umockdev_unplug: the model freed, the device
 * out of the testbed): the waiting IN fails with -ENODEV, the adapter
 * reports GONE, and closes cleanly. */
static void unplug_gives_gone(void **state)
{
	enum usb_dongle_event gone = USB_EVENT_GONE;
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_int_equal(usb_umockdev_unplug(r.emu), 0);
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
