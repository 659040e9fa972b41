/*
 * test_usb_host.c: what of the libusb host adapter runs without a
 * device: the context on an eloop (libusb's fds registered and dropped
 * again), an event pass, and opening a device that is not there.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>

#include "eloop.h"
#include "usb_host.h"

static void context_on_a_loop(void **state)
{
	struct eloop *loop = eloop_new(NULL);
	struct usb_host_ctx *c = NULL;

	(void)state;
	assert_non_null(loop);
	assert_int_equal(usb_host_ctx_new(loop, NULL, &c), 0);
	assert_non_null(usb_host_libusb(c));
	/* nothing pending: a pass with no wait runs no libusb work */
	assert_true(eloop_run_once(loop, 0) >= 0);
	usb_host_ctx_free(c);
	eloop_free(loop);
}

static void absent_device_is_enodev(void **state)
{
	struct eloop *loop = eloop_new(NULL);
	struct usb_host_ctx *c = NULL;
	struct usb_host_dev *d = NULL;
	/* bus 255 address 255 is never a real device */
	struct usb_host_open_args a = { .bus = 255, .address = 255 };

	(void)state;
	assert_int_equal(usb_host_ctx_new(loop, NULL, &c), 0);
	assert_int_equal(usb_host_open(c, &a, &d), -ENODEV);
	assert_null(d);
	usb_host_ctx_free(c);
	eloop_free(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(context_on_a_loop),
		cmocka_unit_test(absent_device_is_enodev),
	};
	return cmocka_run_group_tests_name("usb_host", tests, NULL, NULL);
}
