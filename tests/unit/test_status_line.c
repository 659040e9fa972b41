/*
 * test_status_line.c: irdad --stdio's status lines (status_line.h), the
 * grammar the pppd plugin parses (docs/irdad.md, "Status lines"):
 *   - the words, in the order of enum status_reason, and "?" past it;
 *   - IrLMP disconnect reasons onto words, for an attempt and for a
 *     connection that was up;
 *   - nicknames quoted: `"` and `\` escaped, control and non-ASCII bytes
 *     as \xHH, a buffer too small gives "";
 *   - the bytes written on a pipe: whole lines ending in "\n", a long
 *     line cut to STATUS_LINE_MAX bytes with its "\n", the longest
 *     nickname (32 bytes, all escaped) still whole; and the log line;
 *     on a full non-blocking pipe the line is dropped whole and logged.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "status_line.h"

static void words(void **state)
{
	static const char *const want[] = {
		"no-peer", "not-offered", "refused", "no-answer", "busy", "link-lost",
		"closed-by-peer", "closed", "dongle",
	};
	(void)state;
	assert_int_equal(STATUS_REASON_COUNT, sizeof(want) / sizeof(want[0]));
	for (int r = 0; r < STATUS_REASON_COUNT; r++)
		assert_string_equal(status_reason_word((enum status_reason)r), want[r]);
	assert_string_equal(status_reason_word((enum status_reason)STATUS_REASON_COUNT), "?");
}

static void lmp_reasons(void **state)
{
	static const struct {
		enum irlmp_reason r;
		const char *attempt, *up;
	} cases[] = {
		{ IRLMP_REASON_USER, "refused", "closed-by-peer" },
		{ IRLMP_REASON_NO_CLIENT, "not-offered", "closed-by-peer" },
		{ IRLMP_REASON_LAP_CONNECT_FAILED, "no-answer", "link-lost" },
		{ IRLMP_REASON_NO_RESPONSE, "no-answer", "link-lost" },
		{ IRLMP_REASON_LAP_DISCONNECT, "link-lost", "link-lost" },
		{ IRLMP_REASON_LAP_RESET, "link-lost", "link-lost" },
		{ IRLMP_REASON_UNSPECIFIED, "link-lost", "link-lost" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_string_equal(status_reason_word(status_reason_of_lmp(cases[i].r, false)),
				    cases[i].attempt);
		assert_string_equal(status_reason_word(status_reason_of_lmp(cases[i].r, true)),
				    cases[i].up);
	}
}

static void quoting(void **state)
{
	const uint8_t nick[] = { 'a', '"', 'b', '\\', 0x01, 0x7f, 0xff, ' ', 'z' };
	char buf[64];
	(void)state;

	status_line_quote_nick(buf, sizeof(buf), nick, sizeof(nick));
	assert_string_equal(buf, "\"a\\\"b\\\\\\x01\\x7f\\xff z\"");
	status_line_quote_nick(buf, sizeof(buf), NULL, 0);
	assert_string_equal(buf, "\"\"");
	/* 4 bytes quoted need 6 and the NUL: 6 is too small */
	status_line_quote_nick(buf, 6, (const uint8_t *)"beta", 4);
	assert_string_equal(buf, "");
	status_line_quote_nick(buf, 7, (const uint8_t *)"beta", 4);
	assert_string_equal(buf, "\"beta\"");
}

struct captured {
	char msg[512];
	int n;
};

static void sink(void *ctx, enum log_level level, const char *msg)
{
	struct captured *c = ctx;
	if (level <= LOG_LEVEL_INFO) {
		snprintf(c->msg, sizeof(c->msg), "%s", msg);
		c->n++;
	}
}

/* Everything the pipe holds now. */
static size_t drain(int fd, char *buf, size_t cap)
{
	size_t got = 0;
	ssize_t n;

	while (got < cap - 1 && (n = read(fd, buf + got, cap - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	return got;
}

static void lines_on_a_pipe(void **state)
{
	struct captured cap = { .n = 0 };
	struct logger log = { .sink = sink, .ctx = &cap, .max = LOG_LEVEL_DEBUG };
	struct status_line sl;
	int p[2];
	char buf[1024], longer[400];
	uint8_t nick[40];
	(void)state;

	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	status_line_init(&sl, &log, "ircomm stdio");
	status_line_write(&sl, "listening"); /* no descriptor yet: logged only */
	assert_int_equal(cap.n, 1);
	assert_string_equal(cap.msg, "ircomm stdio: listening");
	assert_int_equal(drain(p[0], buf, sizeof(buf)), 0);

	status_line_set_fd(&sl, p[1]);
	status_line_write(&sl, "listening");
	status_line_up(&sl, 0x0a1b2c3d, (const uint8_t *)"be\"ta", 5);
	status_line_end(&sl, false, STATUS_NOT_OFFERED);
	status_line_end(&sl, true, STATUS_CLOSED_BY_PEER);
	drain(p[0], buf, sizeof(buf));
	assert_string_equal(buf, "listening\n"
				 "up 0x0a1b2c3d \"be\\\"ta\"\n"
				 "failed not-offered\n"
				 "down closed-by-peer\n");
	assert_string_equal(cap.msg, "ircomm stdio: down closed-by-peer");

	/* the longest nickname, every byte escaped (and more: cut to 32) */
	memset(nick, 0xfe, sizeof(nick));
	status_line_up(&sl, 0xffffffff, nick, sizeof(nick));
	size_t n = drain(p[0], buf, sizeof(buf));
	assert_int_equal(n, strlen("up 0xffffffff \"\"\n") + 32 * 4);
	assert_memory_equal(buf, "up 0xffffffff \"\\xfe", 19);
	assert_memory_equal(buf + n - 6, "\\xfe\"\n", 6);

	/* a line longer than the limit: cut, still one line */
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	status_line_write(&sl, "down %s", longer);
	n = drain(p[0], buf, sizeof(buf));
	assert_int_equal(n, STATUS_LINE_MAX);
	assert_int_equal(buf[n - 1], '\n');
	assert_null(memchr(buf, '\n', n - 1));

	/* a full non-blocking pipe (an ATTACH client that does not read):
	 * the line is dropped whole, logged, and nothing waits */
	char fill[4096];
	memset(fill, 'f', sizeof(fill));
	while (write(p[1], fill, sizeof(fill)) > 0)
		;
	while (write(p[1], fill, 1) > 0)
		;
	status_line_end(&sl, true, STATUS_LINK_LOST);
	assert_non_null(strstr(cap.msg, "line \"down link-lost\" dropped"));
	while ((n = drain(p[0], buf, sizeof(buf))) > 0)
		assert_null(memchr(buf, 'd', n));
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(words),
		cmocka_unit_test(lmp_reasons),
		cmocka_unit_test(quoting),
		cmocka_unit_test(lines_on_a_pipe),
	};
	return cmocka_run_group_tests_name("status_line", tests, NULL, NULL);
}
