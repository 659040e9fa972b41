/*
 * test_cursor.c: the bounds-checked reader and writer.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cursor.h"

static void reads_integers_in_both_byte_orders(void **state)
{
	const uint8_t buf[] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x02, 0x03 };
	struct cursor c;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	cursor_init(&c, buf, sizeof(buf));
	assert_true(cursor_u8(&c, &u8));
	assert_int_equal(u8, 0x12);
	assert_true(cursor_be16(&c, &u16));
	assert_int_equal(u16, 0x3456);
	assert_true(cursor_le16(&c, &u16));
	assert_int_equal(u16, 0x9a78);
	assert_true(cursor_be32(&c, &u32));
	assert_int_equal(u32, 0xbcdef001);
	assert_true(cursor_be_uint(&c, 2, &u64));
	assert_int_equal(u64, 0x0203);
	assert_true(cursor_at_end(&c));
	assert_true(cursor_ok(&c));

	cursor_init(&c, buf, 4);
	assert_true(cursor_le32(&c, &u32));
	assert_int_equal(u32, 0x78563412);
}

static void a_short_read_fails_and_stays_failed(void **state)
{
	const uint8_t buf[] = { 1, 2, 3 };
	struct cursor c;
	uint32_t u32 = 0xdeadbeef;
	uint8_t u8 = 0xff;

	cursor_init(&c, buf, sizeof(buf));
	assert_false(cursor_be32(&c, &u32));
	assert_int_equal(u32, 0);           /* output zeroed */
	assert_false(cursor_ok(&c));
	assert_false(cursor_u8(&c, &u8));   /* sticky, though a byte is there */
	assert_int_equal(u8, 0);
	assert_int_equal(cursor_remaining(&c), 0);
}

static void huge_lengths_do_not_wrap(void **state)
{
	const uint8_t buf[] = { 1, 2, 3, 4 };
	struct cursor c, sub;
	const uint8_t *view;

	cursor_init(&c, buf, sizeof(buf));
	assert_true(cursor_skip(&c, 1));
	assert_false(cursor_skip(&c, SIZE_MAX));
	cursor_init(&c, buf, sizeof(buf));
	assert_false(cursor_view(&c, SIZE_MAX - 1, &view));
	assert_null(view);
	cursor_init(&c, buf, sizeof(buf));
	assert_false(cursor_sub(&c, 5, &sub));
	assert_false(cursor_ok(&sub));
	assert_int_equal(cursor_remaining(&sub), 0);
}

static void sub_cursors_confine_a_field(void **state)
{
	/* A length-prefixed field: the inner parser cannot read past it. */
	const uint8_t buf[] = { 2, 'h', 'i', 'X' };
	struct cursor c, field;
	uint8_t len, b;

	cursor_init(&c, buf, sizeof(buf));
	assert_true(cursor_u8(&c, &len));
	assert_true(cursor_sub(&c, len, &field));
	assert_true(cursor_equals(&field, "hi"));
	assert_true(cursor_skip(&field, 2));
	assert_false(cursor_u8(&field, &b));
	assert_true(cursor_ok(&c));
	assert_true(cursor_u8(&c, &b));
	assert_int_equal(b, 'X');
}

static void be_uint_rejects_bad_widths(void **state)
{
	const uint8_t buf[16] = { 0 };
	struct cursor c;
	uint64_t v;

	cursor_init(&c, buf, sizeof(buf));
	assert_false(cursor_be_uint(&c, 0, &v));
	cursor_init(&c, buf, sizeof(buf));
	assert_false(cursor_be_uint(&c, 9, &v));
	cursor_init(&c, buf, sizeof(buf));
	assert_true(cursor_be_uint(&c, 8, &v));
}

static void splits_lines_with_and_without_cr(void **state)
{
	const char *text = "one\r\ntwo\n\nlast";
	struct cursor c, line;
	const char *want[] = { "one", "two", "", "last" };

	cursor_init(&c, text, strlen(text));
	for (size_t i = 0; i < 4; i++) {
		assert_true(cursor_line(&c, &line));
		assert_true(cursor_equals(&line, want[i]));
	}
	assert_false(cursor_line(&c, &line));
}

static void parses_numbers_strictly(void **state)
{
	struct cursor c;
	uint64_t u;
	double d;

	cursor_init(&c, "18446744073709551615 x", 22);
	assert_true(cursor_parse_u64(&c, &u));
	assert_true(u == UINT64_MAX);
	assert_int_equal(cursor_skip_blanks(&c), 1);
	assert_true(cursor_literal(&c, "x"));

	cursor_init(&c, "18446744073709551616", 20);
	assert_false(cursor_parse_u64(&c, &u));   /* overflow */

	cursor_init(&c, "abc", 3);
	assert_false(cursor_parse_u64(&c, &u));

	/* hex: both cases, stops at a non-digit or at the limit */
	size_t n;
	cursor_init(&c, "DeadBEEF7g", 10);
	assert_true(cursor_parse_hex(&c, 16, &u, &n));
	assert_true(u == 0xdeadbeef7ull);
	assert_int_equal(n, 9);
	assert_true(cursor_literal(&c, "g"));
	cursor_init(&c, "12345", 5);
	assert_true(cursor_parse_hex(&c, 2, &u, &n));
	assert_true(u == 0x12 && n == 2);
	assert_int_equal(cursor_remaining(&c), 3);
	cursor_init(&c, "ffffffffffffffff", 16);
	assert_true(cursor_parse_hex(&c, 16, &u, &n));
	assert_true(u == UINT64_MAX);
	cursor_init(&c, "x1", 2);
	assert_false(cursor_parse_hex(&c, 4, &u, &n));   /* no digit */
	assert_false(cursor_ok(&c));
	cursor_init(&c, "1", 1);
	assert_false(cursor_parse_hex(&c, 17, &u, &n));  /* more than 64 bits asked */

	cursor_init(&c, "-2.25e1s", 8);
	assert_true(cursor_parse_double(&c, &d));
	assert_true(d == -22.5);
	assert_true(cursor_literal(&c, "s"));

	cursor_init(&c, ".5", 2);
	assert_true(cursor_parse_double(&c, &d));
	assert_true(d == 0.5);

	cursor_init(&c, "1e", 2);                 /* exponent without digits */
	assert_true(cursor_parse_double(&c, &d));
	assert_true(d == 1.0);
	assert_int_equal(cursor_remaining(&c), 1);

	cursor_init(&c, "1e999", 5);              /* not finite */
	assert_false(cursor_parse_double(&c, &d));

	cursor_init(&c, "-.", 2);
	assert_false(cursor_parse_double(&c, &d));

	cursor_init(&c, NULL, 0);
	assert_false(cursor_parse_double(&c, &d));
}

static void splits_words_and_copies_strings(void **state)
{
	const char *text = "Transmitted 1000 bytes";
	struct cursor c, w;
	char buf[8];

	cursor_init(&c, text, strlen(text));
	assert_true(cursor_word(&c, &w));
	assert_true(cursor_equals(&w, "Transmitted"));
	assert_false(cursor_to_cstr(&w, buf, sizeof(buf)));   /* too long */
	cursor_skip_blanks(&c);
	assert_true(cursor_word(&c, &w));
	assert_true(cursor_to_cstr(&w, buf, sizeof(buf)));
	assert_string_equal(buf, "1000");
}

static void writer_stops_at_capacity(void **state)
{
	uint8_t buf[6];
	struct wcursor w;
	uint8_t *len_at;

	wcursor_init(&w, buf, sizeof(buf));
	assert_true(wcursor_reserve(&w, 1, &len_at));
	assert_true(wcursor_be16(&w, 0x0102));
	assert_true(wcursor_le16(&w, 0x0304));
	*len_at = 4;
	assert_true(wcursor_u8(&w, 0xaa));
	assert_false(wcursor_be16(&w, 0xffff));    /* one byte of room left */
	assert_false(wcursor_ok(&w));
	assert_false(wcursor_u8(&w, 0x55));        /* sticky */
	assert_int_equal(wcursor_len(&w), 6);
	const uint8_t want[] = { 4, 1, 2, 4, 3, 0xaa };
	assert_memory_equal(buf, want, sizeof(want));
}

static void writer_fills_and_copies(void **state)
{
	uint8_t buf[8] = { 0 };
	struct wcursor w;

	wcursor_init(&w, buf, sizeof(buf));
	assert_true(wcursor_fill(&w, 0xff, 3));
	assert_true(wcursor_bytes(&w, "ab", 2));
	assert_true(wcursor_be32(&w, 0) == false);  /* 3 left, 4 needed */
	wcursor_init(&w, buf, sizeof(buf));
	assert_true(wcursor_le32(&w, 0x04030201));
	assert_true(wcursor_be32(&w, 0x05060708));
	assert_int_equal(wcursor_room(&w), 0);
	const uint8_t want[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	assert_memory_equal(buf, want, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_integers_in_both_byte_orders),
		cmocka_unit_test(a_short_read_fails_and_stays_failed),
		cmocka_unit_test(huge_lengths_do_not_wrap),
		cmocka_unit_test(sub_cursors_confine_a_field),
		cmocka_unit_test(be_uint_rejects_bad_widths),
		cmocka_unit_test(splits_lines_with_and_without_cr),
		cmocka_unit_test(parses_numbers_strictly),
		cmocka_unit_test(splits_words_and_copies_strings),
		cmocka_unit_test(writer_stops_at_capacity),
		cmocka_unit_test(writer_fills_and_copies),
	};
	return cmocka_run_group_tests_name("cursor", tests, NULL, NULL);
}
