/*
 * test_usb_name.c: the USB dongle names (irnet/usb/usb_name.h): each
 * form parsed, each bad one refused with a message naming it, matching.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "usb_name.h"

static void tells_usb_names_from_paths(void **state)
{
	(void)state;
	assert_true(usb_name_is_usb("usb"));
	assert_true(usb_name_is_usb("usb:1-1"));
	assert_false(usb_name_is_usb("/dev/ttyUSB0"));
	assert_false(usb_name_is_usb("usbserial"));
	assert_false(usb_name_is_usb(NULL));
}

static void parses_each_form(void **state)
{
	struct usb_name n;
	char err[200];

	(void)state;
	assert_int_equal(usb_name_parse("usb", &n, err, sizeof(err)), 0);
	assert_int_equal(n.kind, USB_NAME_ANY);

	assert_int_equal(usb_name_parse("usb:9710:7780", &n, err, sizeof(err)), 0);
	assert_int_equal(n.kind, USB_NAME_IDS);
	assert_int_equal(n.vid, 0x9710);
	assert_int_equal(n.pid, 0x7780);
	assert_int_equal(usb_name_parse("usb:66F:4200", &n, err, sizeof(err)), 0);
	assert_int_equal(n.vid, 0x066f);

	assert_int_equal(usb_name_parse("usb:3-1.4.2", &n, err, sizeof(err)), 0);
	assert_int_equal(n.kind, USB_NAME_PORT);
	assert_int_equal(n.bus, 3);
	assert_int_equal(n.nports, 3);
	assert_memory_equal(n.ports, ((uint8_t[]){ 1, 4, 2 }), 3);

	assert_int_equal(usb_name_parse("usb:serial=A:B-1", &n, err, sizeof(err)), 0);
	assert_int_equal(n.kind, USB_NAME_SERIAL);
	assert_string_equal(n.serial, "A:B-1");
}

static void refuses_bad_names(void **state)
{
	static const char *const bad[] = {
		"usb:", "usb:9710", "usb:9710:", "usb::7780", "usb:19710:7780", "usb:97g0:7780",
		"usb:1-", "usb:-1", "usb:0-1", "usb:1-0", "usb:1-1.", "usb:1-1..2", "usb:256-1",
		"usb:1-1.2.3.4.5.6.7.8", "usb:serial=", "usb:1-+1", "usb:1- 1", "usb:x",
	};
	struct usb_name n;
	char err[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (usb_name_parse(bad[i], &n, err, sizeof(err)) != -EINVAL)
			fail_msg("%s was taken", bad[i]);
		if (strncmp(err, bad[i], strlen(bad[i])) != 0 || err[strlen(bad[i])] != ':')
			fail_msg("%s: the message does not name it: %s", bad[i], err);
	}
	assert_int_equal(usb_name_parse("/dev/ttyS0", &n, err, sizeof(err)), -EINVAL);
}

static void matches_devices(void **state)
{
	const struct usb_dev_facts mcs = { .vid = 0x9710, .pid = 0x7780, .bus = 1, .address = 5,
					   .ports = { 1, 4 }, .nports = 2, .serial = "X1",
					   .irda = true };
	const struct usb_dev_facts mouse = { .vid = 0x046d, .pid = 0xc077, .bus = 1,
					     .ports = { 2 }, .nports = 1 };
	struct usb_name n;
	char err[200];

	(void)state;
	assert_int_equal(usb_name_parse("usb", &n, err, sizeof(err)), 0);
	assert_true(usb_name_matches(&n, &mcs));
	assert_false(usb_name_matches(&n, &mouse));
	assert_int_equal(usb_name_parse("usb:9710:7780", &n, err, sizeof(err)), 0);
	assert_true(usb_name_matches(&n, &mcs));
	assert_false(usb_name_matches(&n, &mouse));
	assert_int_equal(usb_name_parse("usb:1-1.4", &n, err, sizeof(err)), 0);
	assert_true(usb_name_matches(&n, &mcs));
	assert_int_equal(usb_name_parse("usb:1-1", &n, err, sizeof(err)), 0);
	assert_false(usb_name_matches(&n, &mcs));
	assert_int_equal(usb_name_parse("usb:2-1.4", &n, err, sizeof(err)), 0);
	assert_false(usb_name_matches(&n, &mcs));
	assert_int_equal(usb_name_parse("usb:serial=X1", &n, err, sizeof(err)), 0);
	assert_true(usb_name_matches(&n, &mcs));
	assert_false(usb_name_matches(&n, &mouse));
}

static void writes_port_paths(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(usb_port_path_text(3, (const uint8_t[]){ 1, 4, 2 }, 3, buf, sizeof(buf)),
			 7);
	assert_string_equal(buf, "3-1.4.2");
	assert_int_equal(usb_port_path_text(1, NULL, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(usb_port_path_text(3, (const uint8_t[]){ 1, 4 }, 2, buf, 4), 5);
	assert_string_equal(buf, "3-1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tells_usb_names_from_paths),
		cmocka_unit_test(parses_each_form),
		cmocka_unit_test(refuses_bad_names),
		cmocka_unit_test(matches_devices),
		cmocka_unit_test(writes_port_paths),
	};
	return cmocka_run_group_tests_name("usb_name", tests, NULL, NULL);
}
