/*
 * test_irsock_conv.c: libirsock's translations between irdad's API and
 * the AF_IRDA ABI: the discovery list byte by byte at the offsets programs
 * read (independent of the structs), cut at optlen as the kernel cut it,
 * hint filtering, IAS values both ways, and the errno mapping.
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

#include "irsock_conv.h"

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static void stations(struct irnet_station *st)
{
	memset(st, 0, 3 * sizeof(*st));
	st[0].addr = 0x11223344;
	st[0].hints = 0x8404;   /* first byte 0x84 (computer, extension), then 0x04 */
	memcpy(st[0].nickname, "beta", 4);
	st[0].nickname_len = 4;
	st[1].addr = 0x55667788;
	st[1].hints = 0x0100;   /* PnP only */
	st[1].charset = 0xff;   /* Unicode */
	memcpy(st[1].nickname, "a nickname of 24 bytes!!", 24);
	st[1].nickname_len = 24;
	st[2].addr = 0x99aabbcc;
	st[2].hints = 0x2020;   /* first byte 0x20 (fax), then 0x20 (OBEX) */
}

static void test_devices_layout(void **state)
{
	(void)state;
	struct irnet_station st[3];
	uint8_t buf[4 + 3 * 36 + 8];
	stations(st);
	memset(buf, 0xee, sizeof(buf));
	int n = irsock_fill_devices(buf, sizeof(buf), 0xcafef00d, st, 3, 0xffff);
	assert_int_equal(n, 4 + 3 * 36);
	assert_int_equal(get_u32(buf), 3);
	/* entry 0 at 4: saddr, daddr, info[22], charset at 30, hints at 31 */
	assert_int_equal(get_u32(buf + 4), 0xcafef00d);
	assert_int_equal(get_u32(buf + 8), 0x11223344);
	assert_memory_equal(buf + 12, "beta\0\0", 6);
	assert_int_equal(buf[4 + 30], 0);
	assert_int_equal(buf[4 + 31], 0x84);
	assert_int_equal(buf[4 + 32], 0x04);
	/* entry 1 at 40: the nickname cut at 22 bytes, charset kept */
	assert_int_equal(get_u32(buf + 44), 0x55667788);
	assert_memory_equal(buf + 48, "a nickname of 24 bytes", 22);
	assert_int_equal(buf[40 + 30], 0xff);
	assert_int_equal(buf[40 + 31], 0x01);
	assert_int_equal(buf[40 + 32], 0x00);
	assert_int_equal(get_u32(buf + 76 + 4), 0x99aabbcc);
	/* nothing past the list */
	assert_int_equal(buf[4 + 3 * 36], 0xee);
}

static void test_devices_cut(void **state)
{
	(void)state;
	struct irnet_station st[3];
	uint8_t buf[64];
	stations(st);
	memset(buf, 0xee, sizeof(buf));
	/* room for the count and a bit more than one entry: the count says
	 * 3, the rest is cut where optlen ends */
	int n = irsock_fill_devices(buf, 50, 1, st, 3, 0xffff);
	assert_int_equal(n, 50);
	assert_int_equal(get_u32(buf), 3);
	assert_int_equal(get_u32(buf + 8), 0x11223344);
	assert_int_equal(get_u32(buf + 44), 0x55667788);
	assert_int_equal(buf[50], 0xee);
	n = irsock_fill_devices(buf, 4, 1, st, 3, 0xffff);
	assert_int_equal(n, 4);
	assert_int_equal(irsock_fill_devices(buf, 3, 1, st, 3, 0xffff), -EINVAL);
	assert_int_equal(irsock_fill_devices(buf, sizeof(buf), 1, st, 0, 0xffff), -EAGAIN);
}

static void test_hint_mask(void **state)
{
	(void)state;
	struct irnet_station st[3];
	uint8_t buf[200];
	stations(st);
	/* the mask as a program passes it: an int whose low bytes, in
	 * memory order, are the two hint bytes (0x04: computer in byte 0) */
	uint8_t mb[2] = { 0x04, 0x00 };
	uint16_t mask;
	memcpy(&mask, mb, sizeof(mask));
	int n = irsock_fill_devices(buf, sizeof(buf), 1, st, 3, mask);
	assert_int_equal(n, 4 + 36);
	assert_int_equal(get_u32(buf + 8), 0x11223344);
	/* OBEX, in the second byte */
	mb[0] = 0x00;
	mb[1] = 0x20;
	memcpy(&mask, mb, sizeof(mask));
	n = irsock_fill_devices(buf, sizeof(buf), 1, st, 3, mask);
	assert_int_equal(n, 4 + 36);
	assert_int_equal(get_u32(buf + 8), 0x99aabbcc);
	/* telephony (second byte, bit 1): nobody */
	mb[1] = 0x02;
	memcpy(&mask, mb, sizeof(mask));
	assert_int_equal(irsock_fill_devices(buf, sizeof(buf), 1, st, 3, mask), -EAGAIN);
	assert_true(irsock_hints_match(0x0001, 0xffff));
}

static void test_ias_values(void **state)
{
	(void)state;
	struct irda_ias_set set;
	struct irnet_ias_value v;
	uint8_t raw[sizeof(set)];

	memset(&v, 0, sizeof(v));
	v.type = IRDAD_IAS_INT;
	v.integer = 0x12345678;
	assert_int_equal(irsock_fill_ias_value(&set, &v), 0);
	memcpy(raw, &set, sizeof(set));
	assert_int_equal(get_u32(raw + 320), 1);
	assert_int_equal(get_u32(raw + 324), 0x12345678);

	v.type = IRDAD_IAS_STRING;
	v.charset = 1;
	v.len = 5;
	memcpy(v.bytes, "hello", 5);
	assert_int_equal(irsock_fill_ias_value(&set, &v), 0);
	memcpy(raw, &set, sizeof(set));
	assert_int_equal(get_u32(raw + 320), 3);
	assert_int_equal(raw[324], 5);   /* u8 len */
	assert_int_equal(raw[325], 1);   /* charset */
	assert_memory_equal(raw + 326, "hello", 6);   /* NUL after it */

	v.type = IRDAD_IAS_OCTETS;
	v.len = 1024;
	memset(v.bytes, 0x5a, 1024);
	assert_int_equal(irsock_fill_ias_value(&set, &v), 0);
	memcpy(raw, &set, sizeof(set));
	assert_int_equal(get_u32(raw + 320), 2);
	uint16_t len;
	memcpy(&len, raw + 324, 2);
	assert_int_equal(len, 1024);
	assert_int_equal(raw[326], 0x5a);
	assert_int_equal(raw[326 + 1023], 0x5a);

	v.type = IRDAD_IAS_MISSING;
	assert_int_equal(irsock_fill_ias_value(&set, &v), -EINVAL);
}

static void test_ias_attr_from_set(void **state)
{
	(void)state;
	struct irda_ias_set set;
	struct irnet_ias_attr a;

	memset(&set, 0, sizeof(set));
	set.irda_attrib_type = IRSOCK_IAS_STRING;
	set.attribute.irda_attrib_string.len = 3;
	set.attribute.irda_attrib_string.charset = 0;
	memcpy(set.attribute.irda_attrib_string.string, "abc", 3);
	assert_int_equal(irsock_ias_attr_from_set(&set, &a), 0);
	assert_int_equal(a.type, IRDAD_IAS_STRING);
	assert_int_equal(a.len, 3);
	assert_memory_equal(a.bytes, "abc", 3);
	set.irda_attrib_type = IRSOCK_IAS_OCTETS;
	set.attribute.irda_attrib_octet_seq.len = 1025;
	assert_int_equal(irsock_ias_attr_from_set(&set, &a), -EINVAL);
	set.irda_attrib_type = IRSOCK_IAS_INTEGER;
	set.attribute.irda_attrib_int = 7;
	assert_int_equal(irsock_ias_attr_from_set(&set, &a), 0);
	assert_int_equal(a.type, IRDAD_IAS_INT);
	assert_int_equal(a.integer, 7);
	set.irda_attrib_type = 9;
	assert_int_equal(irsock_ias_attr_from_set(&set, &a), -EINVAL);

	/* a block as a program compiled against the ABI fills it, by offset:
	 * class at 0, attribute name at 64, type at 320, an octet sequence's
	 * u16 length at 324 and its bytes from 326, daddr at 1352 */
	uint8_t raw[1356];
	assert_int_equal(sizeof(set), sizeof(raw));
	memset(raw, 0, sizeof(raw));
	memcpy(raw, "Cls", 3);
	memcpy(raw + 64, "Attr", 4);
	uint32_t type = IAS_OCT_SEQ, daddr = 0xa1b2c3d4;
	uint16_t olen = 4;
	memcpy(raw + 320, &type, 4);
	memcpy(raw + 324, &olen, 2);
	memcpy(raw + 326, "\x01\x02\x03\x04", 4);
	memcpy(raw + 1352, &daddr, 4);
	memcpy(&set, raw, sizeof(set));
	assert_string_equal(set.irda_class_name, "Cls");
	assert_string_equal(set.irda_attrib_name, "Attr");
	assert_int_equal(set.daddr, 0xa1b2c3d4);
	assert_int_equal(irsock_ias_attr_from_set(&set, &a), 0);
	assert_int_equal(a.type, IRDAD_IAS_OCTETS);
	assert_int_equal(a.len, 4);
	assert_memory_equal(a.bytes, "\x01\x02\x03\x04", 4);
	assert_ptr_equal(a.bytes, (const uint8_t *)&set + 326);
}

static void test_errno_mapping(void **state)
{
	(void)state;
	assert_int_equal(irsock_connect_errno(-ENOENT, "the station does not offer X", false),
			 EADDRNOTAVAIL);
	assert_int_equal(irsock_connect_errno(-ENOENT, "no station in range offers the service",
					      true),
			 EADDRNOTAVAIL);
	assert_int_equal(irsock_connect_errno(-EHOSTUNREACH, "no station in range", true),
			 ENETUNREACH);
	assert_int_equal(irsock_connect_errno(-EHOSTUNREACH, "IAS query: no answer", false),
			 EHOSTUNREACH);
	assert_int_equal(irsock_connect_errno(-EHOSTUNREACH, "connect: the link went down", false),
			 ECONNRESET);
	assert_int_equal(irsock_connect_errno(-ECONNREFUSED, "connect: refused", false),
			 ECONNRESET);
	assert_int_equal(irsock_connect_errno(-ETIMEDOUT, "connect: no connection in time", false),
			 ETIMEDOUT);
	assert_int_equal(irsock_ias_errno(-ENOENT), EADDRNOTAVAIL);
	assert_int_equal(irsock_ias_errno(-ETIMEDOUT), EHOSTUNREACH);
	assert_int_equal(irsock_ias_errno(-EHOSTUNREACH), EHOSTUNREACH);
}

static void test_names(void **state)
{
	(void)state;
	char out[8];
	const char name[4] = { 'O', 'B', 'E', 'X' };   /* no NUL */
	irsock_copy_name(out, sizeof(out), name, sizeof(name));
	assert_string_equal(out, "OBEX");
	irsock_copy_name(out, 3, name, sizeof(name));
	assert_string_equal(out, "OB");
	struct sockaddr_irda sa;
	irsock_make_addr(&sa, 0x01020304, 0x12);
	uint8_t raw[sizeof(sa)];
	memcpy(raw, &sa, sizeof(sa));
	assert_int_equal(raw[2], 0x12);
	assert_int_equal(get_u32(raw + 4), 0x01020304);
	assert_int_equal(raw[8], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices_layout),
		cmocka_unit_test(test_devices_cut),
		cmocka_unit_test(test_hint_mask),
		cmocka_unit_test(test_ias_values),
		cmocka_unit_test(test_ias_attr_from_set),
		cmocka_unit_test(test_errno_mapping),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests_name("irsock_conv", tests, NULL, NULL);
}
