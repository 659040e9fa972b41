/*
 * test_usb_stir421x.c: the STIr421x pieces (irnet/usb/stir421x.h): the
 * firmware file name, the .sb check on synthetic files (good ones and
 * each way a bad one can be wrong), the 3-byte header byte-exact (the
 * turnaround code table at its boundaries, the 128-not-512 rule and its
 * extra byte).  No real firmware is used: it is not redistributable.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "stir421x.h"

/* A synthetic .sb file: text, padding up to the 0x1A at mark_at, then
 * "STMP" and payload bytes. */
static size_t make_fw(uint8_t *buf, size_t cap, const char *version, size_t mark_at,
		      const char *after_mark, size_t payload)
{
	int n = snprintf((char *)buf, cap, "Product Version: %s\r\nSynthetic test file\r\n",
			 version);
	size_t len = (size_t)n, i;

	assert_true(n > 0 && len <= mark_at && mark_at + 1 + strlen(after_mark) + payload <= cap);
	memset(buf + len, ' ', mark_at - len);
	buf[mark_at] = 0x1a;
	len = mark_at + 1;
	memcpy(buf + len, after_mark, strlen(after_mark));
	len += strlen(after_mark);
	for (i = 0; i < payload; i++)
		buf[len++] = (uint8_t)(i * 7 + 3);
	return len;
}

static void matches_ids(void **state)
{
	(void)state;
	assert_true(stir421x_match(0x066f, 0x4210));
	assert_true(stir421x_match(0x066f, 0x4220));
	assert_true(stir421x_match(0x066f, 0x4116));
	assert_false(stir421x_match(0x066f, 0x4200));
	assert_false(stir421x_match(0x0670, 0x4210));
}

static void names_and_requests(void **state)
{
	char name[STIR421X_FW_NAME_MAX];
	uint8_t setup[8];

	(void)state;
	stir421x_fw_name(0x1001, name);
	assert_string_equal(name, "42101001.sb");
	stir421x_fw_name(0x1002, name);
	assert_string_equal(name, "42101002.sb");
	stir421x_fw_name(0x0100, name);
	assert_string_equal(name, "42100100.sb");
	stir421x_fw_request(setup);
	assert_memory_equal(setup, ((const uint8_t[]){ 0x40, 2, 0, 0, 0, 0, 0, 0 }), 8);
}

static void accepts_good_files(void **state)
{
	uint8_t fw[4096];
	const uint8_t *p;
	size_t plen, len;
	char err[160];

	(void)state;
	len = make_fw(fw, sizeof(fw), "1.0.1", 100, "STMP", 3000);
	assert_int_equal(stir421x_fw_check(fw, len, 0x1001, &p, &plen, err, sizeof(err)), 0);
	assert_ptr_equal(p, fw + 101);
	assert_int_equal(plen, 4 + 3000);
	assert_memory_equal(p, "STMP", 4);

	/* Leading zeros, a two-digit build, the mark on the last allowed byte. */
	len = make_fw(fw, sizeof(fw), "001.000.012", 511, "STMP", 0);
	assert_int_equal(stir421x_fw_check(fw, len, 0x1012, &p, &plen, err, sizeof(err)), 0);
	assert_int_equal(plen, 4);
	len = make_fw(fw, sizeof(fw), "0.1.0", 64, "STMP", 10);
	assert_int_equal(stir421x_fw_check(fw, len, 0x0100, &p, &plen, err, sizeof(err)), 0);
}

static void refuses_bad_files(void **state)
{
	uint8_t fw[4096];
	const uint8_t *p;
	size_t plen, len;
	char err[160];

	(void)state;
	/* Wrong version. */
	len = make_fw(fw, sizeof(fw), "1.0.2", 100, "STMP", 50);
	assert_int_equal(stir421x_fw_check(fw, len, 0x1001, &p, &plen, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "1.0.2"));
	assert_non_null(strstr(err, "1001"));
	assert_null(p);
	assert_int_equal(plen, 0);
	/* A version field too wide for its BCD digit. */
	len = make_fw(fw, sizeof(fw), "10.0.1", 100, "STMP", 50);
	assert_int_equal(stir421x_fw_check(fw, len, 0x1001, &p, &plen, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "version"));
	/* No 0x1A within 512 bytes (one at 512 is too late). */
	len = make_fw(fw, sizeof(fw), "1.0.1", 512, "STMP", 50);
	assert_int_equal(stir421x_fw_check(fw, len, 0x1001, &p, &plen, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "0x1A"));
	/* No STMP after the mark. */
	len = make_fw(fw, sizeof(fw), "1.0.1", 100, "STMQ", 50);
	assert_int_equal(stir421x_fw_check(fw, len, 0x1001, &p, &plen, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "STMP"));
	/* Truncated: in the middle of STMP, in the version, in the prefix, empty. */
	len = make_fw(fw, sizeof(fw), "1.0.1", 100, "STMP", 0);
	assert_int_equal(stir421x_fw_check(fw, len - 2, 0x1001, &p, &plen, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "STMP"));
	assert_int_equal(stir421x_fw_check(fw, 20, 0x1001, &p, &plen, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "version"));
	assert_int_equal(stir421x_fw_check(fw, 10, 0x1001, &p, &plen, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "Product Version"));
	assert_int_equal(stir421x_fw_check(fw, 0, 0x1001, &p, &plen, err, sizeof(err)), -EINVAL);
	/* Not a .sb file at all. */
	memcpy(fw, "product version: 1.0.1", 22);
	assert_int_equal(stir421x_fw_check(fw, 22, 0x1001, &p, &plen, err, sizeof(err)), -EINVAL);
}

static void turnaround_code_boundaries(void **state)
{
	static const struct {
		uint32_t us;
		uint8_t code;
	} v[] = {
		{ 0, 0 },     { 1, 1 },	    { 10, 1 },	  { 11, 2 },	{ 50, 2 },
		{ 51, 3 },    { 100, 3 },   { 101, 4 },	  { 500, 4 },	{ 501, 5 },
		{ 1000, 5 },  { 1001, 6 },  { 5000, 6 },  { 5001, 7 },	{ 10000, 7 },
		{ UINT32_MAX, 7 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(stir421x_turnaround_code(v[i].us), v[i].code);
}

static void wraps_byte_exact(void **state)
{
	uint8_t frame[2100], out[2200];
	const uint8_t *f;
	size_t i, flen;
	uint8_t cb;

	(void)state;
	for (i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)i;
	/* A 3-byte XID-sized frame: no extra byte; 0x15 as the class byte. */
	assert_int_equal(stir421x_wrap(out, sizeof(out), 0x15, frame, 3, 500), 6);
	assert_memory_equal(out, ((const uint8_t[]){ 0x15, 0, 4, 0, 1, 2 }), 6);
	/* 128: flag and one extra byte. */
	assert_int_equal(stir421x_wrap(out, sizeof(out), 0x00, frame, 128, 0), 3 + 128 + 1);
	assert_memory_equal(out, ((const uint8_t[]){ 0x00, 1, 0 }), 3);
	assert_memory_equal(out + 3, frame, 128);
	assert_int_equal(out[3 + 128], 0);
	/* 127, 129, 512, 1024: none; 384, 640, 1920: flagged. */
	assert_int_equal(stir421x_wrap(out, sizeof(out), 0, frame, 127, 10), 130);
	assert_int_equal(out[1], 0);
	assert_int_equal(out[2], 1);
	assert_int_equal(stir421x_wrap(out, sizeof(out), 0, frame, 129, 0), 132);
	assert_int_equal(out[1], 0);
	assert_int_equal(stir421x_wrap(out, sizeof(out), 0, frame, 512, 0), 515);
	assert_int_equal(out[1], 0);
	assert_int_equal(stir421x_wrap(out, sizeof(out), 0, frame, 1024, 0), 1027);
	assert_int_equal(out[1], 0);
	assert_int_equal(stir421x_wrap(out, sizeof(out), 0, frame, 384, 0), 388);
	assert_int_equal(out[1], 1);
	assert_int_equal(stir421x_wrap(out, sizeof(out), 0, frame, 640, 0), 644);
	assert_int_equal(out[1], 1);
	assert_int_equal(stir421x_wrap(out, sizeof(out), 0, frame, 1920, 0), 1924);
	assert_int_equal(out[1], 1);
	assert_false(stir421x_needs_pad(0));
	/* Too small a buffer: exactly enough works, one less does not. */
	assert_int_equal(stir421x_wrap(out, 132, 0, frame, 128, 0), 132);
	assert_int_equal(stir421x_wrap(out, 131, 0, frame, 128, 0), 0);
	assert_int_equal(stir421x_wrap(out, 2, 0, frame, 0, 0), 0);

	/* Receive: the class byte and the frame after 3 bytes. */
	assert_int_equal(stir421x_unwrap(((const uint8_t[]){ 0x20, 0, 0, 0xff, 0x3f }), 5, &cb,
					 &f, &flen),
			 0);
	assert_int_equal(cb, 0x20);
	assert_int_equal(flen, 2);
	assert_int_equal(f[0], 0xff);
	assert_int_equal(stir421x_unwrap(((const uint8_t[]){ 0x20, 0 }), 2, &cb, &f, &flen),
			 -EINVAL);
	assert_int_equal(flen, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matches_ids),
		cmocka_unit_test(names_and_requests),
		cmocka_unit_test(accepts_good_files),
		cmocka_unit_test(refuses_bad_files),
		cmocka_unit_test(turnaround_code_boundaries),
		cmocka_unit_test(wraps_byte_exact),
	};
	return cmocka_run_group_tests_name("usb_stir421x", tests, NULL, NULL);
}
