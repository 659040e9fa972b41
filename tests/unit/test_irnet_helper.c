/*
 * test_irnet_helper.c: irnet.so's contract with its helper, without
 * pppd: the exact command line for calling and listening settings, the
 * settings that do not go together, every status line irdad writes
 * (docs/irdad.md, "Status lines") parsed to exact values, lines that are
 * not status lines refused, and the message and exit class of each
 * failure word.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "irnet_helper.h"

static struct irnet_settings calling(void)
{
	return (struct irnet_settings){
		.helper = "/usr/sbin/irdad", .device = "/dev/ttyUSB0",
		.mode = IRNET_MODE_IRNET, .discovery_timeout_s = 20, .status_fd = 3,
		.log_to_stderr = true,
	};
}

/* The argv as one string, arguments joined by '|'. */
static const char *joined(const struct irnet_argv *av, char *buf, size_t cap)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; av->argv[i]; i++) {
		int w = snprintf(buf + n, cap - n, "%s%s", i ? "|" : "", av->argv[i]);
		assert_true(w > 0 && (size_t)w < cap - n);
		n += (size_t)w;
	}
	return buf;
}

static void test_argv_calling_default(void **state)
{
	(void)state;
	struct irnet_settings s = calling();
	struct irnet_argv av;
	char buf[1024];

	assert_true(irnet_helper_argv(&s, &av));
	assert_string_equal(joined(&av, buf, sizeof(buf)),
			    "/usr/sbin/irdad|--stdio|--device|/dev/ttyUSB0|--connect-timeout|20|"
			    "--status-fd|3|--lock-dir|none|--log|stderr|-v");
	assert_null(av.argv[av.argc]);
}

static void test_argv_every_option(void **state)
{
	(void)state;
	struct irnet_settings s = calling();
	struct irnet_argv av;
	char buf[1024];

	s.mode = IRNET_MODE_IRCOMM;
	s.peer_daddr = 0x1a2b3c4d;
	s.dongle = "actisys+";
	s.speed = 115200;
	s.min_turnaround_us = 1000;
	s.nickname = "alpha";
	s.pcap = "/tmp/x.pcap";
	s.user = "irnet";
	s.log_to_stderr = false;
	s.debug = true;
	s.no_seccomp = true;
	s.discovery_timeout_s = 7;
	assert_true(irnet_helper_argv(&s, &av));
	assert_string_equal(joined(&av, buf, sizeof(buf)),
			    "/usr/sbin/irdad|--stdio|--device|/dev/ttyUSB0|--service|ircomm|"
			    "--peer|0x1a2b3c4d|--connect-timeout|7|--status-fd|3|--lock-dir|none|"
			    "--log|syslog|--dongle|actisys+|--speed|115200|--min-turnaround|1000|"
			    "--nickname|alpha|--pcap|/tmp/x.pcap|--user|irnet|--no-seccomp|-vv");
}

static void test_argv_listen_by_name(void **state)
{
	(void)state;
	struct irnet_settings s = calling();
	struct irnet_argv av;
	char buf[1024];

	s.listen = true;
	assert_true(irnet_helper_argv(&s, &av));
	assert_string_equal(joined(&av, buf, sizeof(buf)),
			    "/usr/sbin/irdad|--stdio|--device|/dev/ttyUSB0|--listen|--status-fd|3|"
			    "--lock-dir|none|--log|stderr|-v");
	s = calling();
	s.peer_name = "Nokia 6310i";
	assert_true(irnet_helper_argv(&s, &av));
	assert_string_equal(av.argv[4], "--peer");
	assert_string_equal(av.argv[5], "Nokia 6310i");
}

static void test_argv_too_long(void **state)
{
	(void)state;
	static char path[3000];
	struct irnet_settings s = calling();
	struct irnet_argv av;

	memset(path, 'a', sizeof(path) - 1);
	s.pcap = path;
	assert_false(irnet_helper_argv(&s, &av));
}

static void test_settings_check(void **state)
{
	(void)state;
	struct irnet_settings s = calling();
	char why[200];

	assert_true(irnet_settings_check(&s, why, sizeof(why)));
	s.device = NULL;
	assert_false(irnet_settings_check(&s, why, sizeof(why)));
	assert_non_null(strstr(why, "irnet-device"));
	s = calling();
	s.listen = true;
	s.peer_name = "beta";
	assert_false(irnet_settings_check(&s, why, sizeof(why)));
	assert_non_null(strstr(why, "irnet-listen"));
	s = calling();
	s.peer_name = "beta";
	s.peer_daddr = 1;
	assert_false(irnet_settings_check(&s, why, sizeof(why)));
	assert_non_null(strstr(why, "not both"));
	s = calling();
	s.discovery_timeout_s = 0;
	assert_false(irnet_settings_check(&s, why, sizeof(why)));
	s.discovery_timeout_s = IRNET_DISCOVERY_TIMEOUT_MAX + 1;
	assert_false(irnet_settings_check(&s, why, sizeof(why)));
	assert_non_null(strstr(why, "irnet-discovery-timeout"));
}

static bool parse(const char *line, struct irnet_status_line *st)
{
	return irnet_status_parse(line, strlen(line), st);
}

static void test_status_lines(void **state)
{
	(void)state;
	struct irnet_status_line st;

	assert_true(parse("listening", &st));
	assert_int_equal(st.kind, IRNET_STATUS_LISTENING);
	assert_true(parse("up 0x0000beef \"beta\"", &st));
	assert_int_equal(st.kind, IRNET_STATUS_UP);
	assert_int_equal(st.daddr, 0xbeef);
	assert_string_equal(st.nickname, "beta");
	assert_int_equal(st.nickname_len, 4);
	assert_true(parse("up 0xDEADbeef \"\"", &st));
	assert_int_equal(st.daddr, 0xdeadbeef);
	assert_int_equal(st.nickname_len, 0);
	assert_true(parse("up 0x00000001 \"a\\\"b\\\\c\\x01\\xff\"", &st));
	assert_int_equal(st.nickname_len, 7);
	assert_memory_equal(st.nickname, "a\"b\\c\x01\xff", 7);
	char shown[32];
	irnet_printable_name(&st, shown, sizeof(shown));
	assert_string_equal(shown, "a\"b\\c??");
	irnet_printable_name(&st, shown, 3);
	assert_string_equal(shown, "a\"");
	assert_true(parse("failed not-offered", &st));
	assert_int_equal(st.kind, IRNET_STATUS_FAILED);
	assert_string_equal(st.word, "not-offered");
	assert_true(parse("down link-lost", &st));
	assert_int_equal(st.kind, IRNET_STATUS_DOWN);
	assert_string_equal(st.word, "link-lost");
}

static void test_not_status_lines(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", "listening ", "up", "up 0xbeef \"b\"", "up 0x0000beeg \"b\"",
		"up 0x0000beef beta", "up 0x0000beef \"beta", "up 0x0000beef \"b\" x",
		"up 0x0000beef \"\\q\"", "up 0x0000beef \"\\x4\"", "up 0x0000beef \"\\x4g\"",
		"failed", "failed ", "failed No-Peer", "failed no peer", "down",
		"down closed\r", "hello",
		"failed aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	struct irnet_status_line st;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &st))
			fail_msg("accepted \"%s\"", bad[i]);
	}
	/* A NUL inside the line is not the end of it. */
	assert_false(irnet_status_parse("listening\0x", 11, &st));
	/* A nickname longer than any IrLMP nickname can be escaped. */
	char line[600] = "up 0x00000001 \"";
	size_t n = strlen(line);
	for (int i = 0; i < 100; i++, n += 4)
		memcpy(line + n, "\\x41", 4);
	memcpy(line + n, "\"", 2);
	assert_false(parse(line, &st));
}

static void test_failure_texts(void **state)
{
	(void)state;
	enum irnet_exit_class cls;

	assert_non_null(strstr(irnet_failure_text("no-peer", &cls), "no IrDA peer"));
	assert_int_equal(cls, IRNET_EXIT_CONNECT_FAILED);
	assert_non_null(strstr(irnet_failure_text("not-offered", &cls), "do not offer"));
	assert_int_equal(cls, IRNET_EXIT_CONNECT_FAILED);
	assert_non_null(strstr(irnet_failure_text("dongle", &cls), "dongle"));
	assert_int_equal(cls, IRNET_EXIT_OPEN_FAILED);
	assert_non_null(strstr(irnet_failure_text("something-new", &cls), "does not know"));
	assert_int_equal(cls, IRNET_EXIT_CONNECT_FAILED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_calling_default),
		cmocka_unit_test(test_argv_every_option),
		cmocka_unit_test(test_argv_listen_by_name),
		cmocka_unit_test(test_argv_too_long),
		cmocka_unit_test(test_settings_check),
		cmocka_unit_test(test_status_lines),
		cmocka_unit_test(test_not_status_lines),
		cmocka_unit_test(test_failure_texts),
	};
	return cmocka_run_group_tests_name("irnet_helper", tests, NULL, NULL);
}
