/*
 * test_fcs.c: CRC-16/X-25 against the digest's check values, and the
 * table against a bit-by-bit computation.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fcs.h"
#include "sir_vectors.h"

static void check_value_of_123456789(void **state)
{
	assert_int_equal(fcs_compute("123456789", 9), 0x906E);
}

static void good_frame_leaves_the_residue(void **state)
{
	const uint8_t msg[] = { '1', '2', '3', '4', '5', '6', '7', '8', '9', 0x6E, 0x90 };

	assert_int_equal(fcs_update(FCS_INIT, msg, sizeof(msg)), 0xF0B8);
	assert_true(fcs_check(msg, sizeof(msg)));
	uint8_t bad[sizeof(msg)];
	memcpy(bad, msg, sizeof(msg));
	bad[3] ^= 0x10;
	assert_false(fcs_check(bad, sizeof(bad)));
}

static void empty_input(void **state)
{
	const uint8_t fcs_bytes[] = { 0x00, 0x00 };

	assert_int_equal(fcs_compute("", 0), 0x0000);
	assert_int_equal(fcs_update(FCS_INIT, NULL, 0), 0xFFFF);
	assert_true(fcs_check(fcs_bytes, 2));
}

/* The reflected polynomial applied one bit at a time, independent of the
 * table. */
static uint16_t bitwise(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xFFFF;

	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc & 1) ? (uint16_t)((crc >> 1) ^ 0x8408) : (uint16_t)(crc >> 1);
	}
	return (uint16_t)~crc;
}

static void table_matches_bitwise_computation(void **state)
{
	assert_int_equal(fcs_table[0], 0x0000);
	assert_int_equal(fcs_table[1], 0x1189);
	assert_int_equal(fcs_table[2], 0x2312);
	assert_int_equal(fcs_table[3], 0x329B);
	assert_int_equal(fcs_table[255], 0x0F78);
	for (unsigned i = 0; i < 256; i++) {
		uint16_t c = (uint16_t)i;
		for (int b = 0; b < 8; b++)
			c = (c & 1) ? (uint16_t)((c >> 1) ^ 0x8408) : (uint16_t)(c >> 1);
		assert_int_equal(fcs_table[i], c);
	}
	uint8_t buf[300];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	for (size_t n = 0; n <= sizeof(buf); n += 13)
		assert_int_equal(fcs_compute(buf, n), bitwise(buf, n));
}

/* Every digest frame's FCS, as printed in its SIR line (the two bytes
 * before EOF, possibly escaped). */
static void digest_frames_have_the_printed_fcs(void **state)
{
	for (size_t i = 0; i < SIR_VECTOR_COUNT; i++) {
		uint8_t frame[64], sir[160];
		size_t fl = sir_vector_hex(sir_vectors[i].frame, frame, sizeof(frame));
		size_t sl = sir_vector_hex(sir_vectors[i].sir, sir, sizeof(sir));
		assert_true(fl >= 2 && sl > fl);
		/* undo the escapes between BOF and EOF: frame then FCS */
		uint8_t plain[128];
		size_t k = 0, pl = 0;
		while (sir[k] != 0xC0)
			k++;
		for (k++; k < sl - 1 && pl < sizeof(plain); k++) {
			if (sir[k] == 0x7D)
				plain[pl++] = sir[++k] ^ 0x20;
			else
				plain[pl++] = sir[k];
		}
		assert_int_equal(pl, fl + 2);
		assert_memory_equal(plain, frame, fl);
		uint8_t tail[2] = { plain[fl], plain[fl + 1] };
		uint16_t want = (uint16_t)(tail[0] | tail[1] << 8);
		assert_int_equal(fcs_compute(frame, fl), want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_value_of_123456789),
		cmocka_unit_test(good_frame_leaves_the_residue),
		cmocka_unit_test(empty_input),
		cmocka_unit_test(table_matches_bitwise_computation),
		cmocka_unit_test(digest_frames_have_the_printed_fcs),
	};
	return cmocka_run_group_tests_name("fcs", tests, NULL, NULL);
}
