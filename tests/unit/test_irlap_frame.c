/*
 * test_irlap_frame.c: IrLAP frame classification, parsers and builders
 * against the byte vectors of irda-digest.md section 11.
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

#include "irlap_frame.h"
#include "irlap_vectors.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define OURS VEC_OURS
#define PEER VEC_PEER

static void classifies_control_bytes(void **state)
{
	static const struct {
		uint8_t a, c;
		enum irlap_ftype type;
		bool cmd, pf;
		uint8_t caddr, ns, nr;
	} rows[] = {
		{ 0x5b, 0x11, IRLAP_F_RR, true, true, 0x2d, 0, 0 },
		{ 0x5a, 0x11, IRLAP_F_RR, false, true, 0x2d, 0, 0 },
		{ 0x11, 0x51, IRLAP_F_RR, true, true, 0x08, 0, 2 },
		{ 0x5b, 0x10, IRLAP_F_I, true, true, 0x2d, 0, 0 },
		{ 0x5a, 0x30, IRLAP_F_I, false, true, 0x2d, 0, 1 },
		{ 0x5b, 0x32, IRLAP_F_I, true, true, 0x2d, 1, 1 },
		{ 0x5a, 0x52, IRLAP_F_I, false, true, 0x2d, 1, 2 },
		{ 0x5b, 0x78, IRLAP_F_I, true, true, 0x2d, 4, 3 },
		{ 0x5b, 0x0e, IRLAP_F_I, true, false, 0x2d, 7, 0 },
		{ 0x5a, 0xb5, IRLAP_F_RNR, false, true, 0x2d, 0, 5 },
		{ 0x5a, 0x29, IRLAP_F_REJ, false, false, 0x2d, 0, 1 },
		{ 0x5a, 0xfd, IRLAP_F_SREJ, false, true, 0x2d, 0, 7 },
		{ 0xff, 0x93, IRLAP_F_SNRM, true, true, 0x7f, 0, 0 },
		{ 0x5a, 0x93, IRLAP_F_RNRM, false, true, 0x2d, 0, 0 },
		{ 0x5b, 0x53, IRLAP_F_DISC, true, true, 0x2d, 0, 0 },
		{ 0x5a, 0x53, IRLAP_F_RD, false, true, 0x2d, 0, 0 },
		{ 0x5a, 0x73, IRLAP_F_UA, false, true, 0x2d, 0, 0 },
		{ 0x5a, 0x97, IRLAP_F_FRMR, false, true, 0x2d, 0, 0 },
		{ 0x5a, 0x1f, IRLAP_F_DM, false, true, 0x2d, 0, 0 },
		{ 0x5a, 0x0f, IRLAP_F_DM, false, false, 0x2d, 0, 0 },
		{ 0xff, 0x3f, IRLAP_F_XID_CMD, true, true, 0x7f, 0, 0 },
		{ 0xfe, 0xbf, IRLAP_F_XID_RSP, false, true, 0x7f, 0, 0 },
		{ 0xff, 0xf3, IRLAP_F_TEST, true, true, 0x7f, 0, 0 },
		{ 0xff, 0x13, IRLAP_F_UI, true, true, 0x7f, 0, 0 },
		{ 0x5b, 0x03, IRLAP_F_UI, true, false, 0x2d, 0, 0 },
		{ 0x5b, 0x73, IRLAP_F_UNKNOWN, true, true, 0x2d, 0, 0 },  /* UA as a command */
		{ 0x5b, 0x1f, IRLAP_F_UNKNOWN, true, true, 0x2d, 0, 0 },  /* DM as a command */
		{ 0x5a, 0xc7, IRLAP_F_UNKNOWN, false, false, 0x2d, 0, 0 },
	};
	for (size_t i = 0; i < COUNT(rows); i++) {
		uint8_t buf[2] = { rows[i].a, rows[i].c };
		struct irlap_frame f;

		assert_int_equal(irlap_frame_parse(buf, 2, &f), 0);
		assert_int_equal(f.type, rows[i].type);
		assert_int_equal(f.cmd, rows[i].cmd);
		assert_int_equal(f.pf, rows[i].pf);
		assert_int_equal(f.caddr, rows[i].caddr);
		if (f.type == IRLAP_F_I)
			assert_int_equal(f.ns, rows[i].ns);
		if (f.type <= IRLAP_F_SREJ)
			assert_int_equal(f.nr, rows[i].nr);
		assert_int_equal(f.info_len, 0);
	}
}

static void frames_shorter_than_two_bytes_are_rejected(void **state)
{
	struct irlap_frame f;
	const uint8_t one = 0x5b;

	assert_int_equal(irlap_frame_parse(NULL, 0, &f), -EINVAL);
	assert_int_equal(irlap_frame_parse(&one, 1, &f), -EINVAL);
}

static void builds_s_u_and_i_frames(void **state)
{
	static const uint8_t i_frame[] = { 0x5b, 0x32, 0x00, 0x10 };
	uint8_t buf[16];

	assert_int_equal(irlap_build_s(buf, sizeof(buf), 0x2d, true, IRLAP_S_RR, 0, true), 2);
	assert_int_equal(buf[0], 0x5b);
	assert_int_equal(buf[1], 0x11);
	assert_int_equal(irlap_build_s(buf, sizeof(buf), 0x08, true, IRLAP_S_RR, 2, true), 2);
	assert_int_equal(buf[0], 0x11);
	assert_int_equal(buf[1], 0x51);
	assert_int_equal(irlap_build_u(buf, sizeof(buf), 0x2d, true, IRLAP_C_DISC, true, NULL, 0), 2);
	assert_int_equal(buf[1], 0x53);
	assert_int_equal(irlap_build_u(buf, sizeof(buf), 0x2d, false, IRLAP_C_UA, true, NULL, 0), 2);
	assert_int_equal(buf[0], 0x5a);
	assert_int_equal(buf[1], 0x73);
	assert_int_equal(irlap_build_u(buf, sizeof(buf), 0x2d, false, IRLAP_C_DM, true, NULL, 0), 2);
	assert_int_equal(buf[1], 0x1f);
	assert_int_equal(irlap_build_i(buf, sizeof(buf), 0x2d, true, 1, 1, true, i_frame + 2, 2), 4);
	assert_memory_equal(buf, i_frame, 4);
	/* A buffer too small gives 0, never a partial frame. */
	assert_int_equal(irlap_build_i(buf, 3, 0x2d, true, 1, 1, true, i_frame + 2, 2), 0);
}

static void parses_digest_xid_vectors(void **state)
{
	struct irlap_frame f;
	struct irlap_xid x;

	assert_int_equal(irlap_frame_parse(vec_xid_slot0, sizeof(vec_xid_slot0), &f), 0);
	assert_int_equal(irlap_xid_parse(&f, &x), 0);
	assert_true(x.cmd);
	assert_int_equal(x.saddr, OURS);
	assert_int_equal(x.daddr, IRLAP_BROADCAST_DADDR);
	assert_int_equal(x.slots, 6);
	assert_int_equal(x.slot, 0);
	assert_false(x.has_info);
	assert_false(x.new_addr);

	assert_int_equal(irlap_frame_parse(vec_xid_final, sizeof(vec_xid_final), &f), 0);
	assert_int_equal(irlap_xid_parse(&f, &x), 0);
	assert_int_equal(x.slot, IRLAP_XID_FINAL_SLOT);
	assert_true(x.has_info);
	assert_int_equal(x.info.nhints, 1);
	assert_int_equal(x.info.hints[0], 0x04);
	assert_int_equal(x.info.charset, 0);
	assert_int_equal(x.info.nickname_len, 5);
	assert_memory_equal(x.info.nickname, "Linux", 5);

	assert_int_equal(irlap_frame_parse(vec_xid_rsp, sizeof(vec_xid_rsp), &f), 0);
	assert_int_equal(irlap_xid_parse(&f, &x), 0);
	assert_false(x.cmd);
	assert_int_equal(x.saddr, PEER);
	assert_int_equal(x.daddr, OURS);
	assert_int_equal(x.slot, 2);
	assert_int_equal(x.info.nhints, 2);
	assert_int_equal(x.info.hints[0], 0x82);
	assert_int_equal(x.info.hints[1], 0x04);
	assert_memory_equal(x.info.nickname, "Phone", 5);
}

static void builds_digest_xid_vectors(void **state)
{
	struct irlap_xid x = {
		.cmd = true, .saddr = OURS, .daddr = IRLAP_BROADCAST_DADDR, .slots = 6, .slot = 0,
	};
	uint8_t buf[64];

	assert_int_equal(irlap_xid_build(buf, sizeof(buf), &x), sizeof(vec_xid_slot0));
	assert_memory_equal(buf, vec_xid_slot0, sizeof(vec_xid_slot0));

	x.slot = 0xff;
	x.has_info = true;
	x.info = (struct irlap_discovery_info){ .hints = { 0x04 }, .nhints = 1, .charset = 0,
						.nickname_len = 5 };
	memcpy(x.info.nickname, "Linux", 5);
	assert_int_equal(irlap_xid_build(buf, sizeof(buf), &x), sizeof(vec_xid_final));
	assert_memory_equal(buf, vec_xid_final, sizeof(vec_xid_final));

	x = (struct irlap_xid){ .cmd = false, .saddr = PEER, .daddr = OURS, .slots = 6, .slot = 2,
				.has_info = true };
	x.info = (struct irlap_discovery_info){ .hints = { 0x02, 0x04 }, .nhints = 2,
						.nickname_len = 5 };
	memcpy(x.info.nickname, "Phone", 5);
	assert_int_equal(irlap_xid_build(buf, sizeof(buf), &x), sizeof(vec_xid_rsp));
	assert_memory_equal(buf, vec_xid_rsp, sizeof(vec_xid_rsp)); /* extension bit added */
}

static void xid_slot_codes_and_bad_xids(void **state)
{
	static const uint8_t slots[] = { 1, 6, 8, 16 };
	struct irlap_frame f;
	struct irlap_xid x;
	uint8_t buf[32];

	for (size_t i = 0; i < COUNT(slots); i++) {
		assert_int_equal(irlap_xid_slots_of_code(irlap_xid_slots_code(slots[i])), slots[i]);
	}
	assert_int_equal(irlap_xid_slots_code(5), 2); /* others are carried as 8 */

	/* New-address flag round trip. */
	x = (struct irlap_xid){ .cmd = true, .saddr = 1, .daddr = IRLAP_BROADCAST_DADDR,
				.slots = 16, .slot = 15, .new_addr = true };
	size_t n = irlap_xid_build(buf, sizeof(buf), &x);
	assert_int_equal(buf[11], 0x07);
	assert_int_equal(irlap_frame_parse(buf, n, &f), 0);
	assert_int_equal(irlap_xid_parse(&f, &x), 0);
	assert_true(x.new_addr);
	assert_int_equal(x.slots, 16);

	/* Slot beyond the slot count, wrong format, truncated, hints never
	 * ending. */
	memcpy(buf, vec_xid_slot0, sizeof(vec_xid_slot0));
	buf[12] = 6;
	assert_int_equal(irlap_frame_parse(buf, sizeof(vec_xid_slot0), &f), 0);
	assert_int_equal(irlap_xid_parse(&f, &x), -EINVAL);
	buf[12] = 0;
	buf[2] = 0x02;
	assert_int_equal(irlap_xid_parse(&f, &x), -EINVAL);
	assert_int_equal(irlap_frame_parse(vec_xid_slot0, sizeof(vec_xid_slot0) - 1, &f), 0);
	assert_int_equal(irlap_xid_parse(&f, &x), -EINVAL);
	memcpy(buf, vec_xid_final, 16);
	buf[14] = 0x84;
	buf[15] = 0x80;
	assert_int_equal(irlap_frame_parse(buf, 16, &f), 0);
	assert_int_equal(irlap_xid_parse(&f, &x), -EINVAL);
}

static void three_hint_bytes_keep_two_and_find_the_charset(void **state)
{
	static const uint8_t frame[] = {
		0xfe, 0xbf, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 0x01, 0x00, 0x00,
		0x84, 0x84, 0x01, 0xff, 0x00, 'x',
	};
	struct irlap_frame f;
	struct irlap_xid x;

	assert_int_equal(irlap_frame_parse(frame, sizeof(frame), &f), 0);
	assert_int_equal(irlap_xid_parse(&f, &x), 0);
	assert_int_equal(x.info.nhints, 2);
	assert_int_equal(x.info.charset, 0xff);
	assert_int_equal(x.info.nickname_len, 2);
}

static void long_nicknames_are_cut(void **state)
{
	uint8_t frame[16 + 40];
	struct irlap_frame f;
	struct irlap_xid x;

	memcpy(frame, vec_xid_final, 16);
	memset(frame + 16, 'n', 40);
	assert_int_equal(irlap_frame_parse(frame, sizeof(frame), &f), 0);
	assert_int_equal(irlap_xid_parse(&f, &x), 0);
	assert_int_equal(x.info.nickname_len, IRLAP_NICKNAME_MAX);
}

static void snrm_and_ua_vectors(void **state)
{
	struct irlap_frame f;
	struct irlap_connect_info ci;
	uint8_t buf[64];

	assert_int_equal(irlap_frame_parse(vec_snrm, sizeof(vec_snrm), &f), 0);
	assert_int_equal(f.type, IRLAP_F_SNRM);
	assert_int_equal(irlap_snrm_parse(&f, &ci), 0);
	assert_int_equal(ci.saddr, OURS);
	assert_int_equal(ci.daddr, PEER);
	assert_int_equal(ci.ncaddr, 0x2d);
	assert_int_equal(ci.qos.baud, 0x3e);
	assert_int_equal(ci.qos.min_tat, 0x03);
	assert_int_equal(irlap_snrm_build(buf, sizeof(buf), &ci), sizeof(vec_snrm));
	assert_memory_equal(buf, vec_snrm, sizeof(vec_snrm));

	assert_int_equal(irlap_frame_parse(vec_ua, sizeof(vec_ua), &f), 0);
	assert_int_equal(f.type, IRLAP_F_UA);
	assert_int_equal(irlap_ua_parse(&f, &ci), 0);
	assert_int_equal(ci.saddr, PEER);
	assert_int_equal(ci.daddr, OURS);
	assert_int_equal(ci.qos.window, 0x3f);
	assert_int_equal(ci.qos.add_bofs, 0x80);
	assert_int_equal(ci.qos.link_disc, 0xff);
	assert_int_equal(irlap_ua_connect_build(buf, sizeof(buf), 0x2d, &ci), sizeof(vec_ua));
	assert_memory_equal(buf, vec_ua, sizeof(vec_ua));
}

static void bad_snrms_are_rejected(void **state)
{
	uint8_t buf[sizeof(vec_snrm)];
	struct irlap_frame f;
	struct irlap_connect_info ci;

	/* Connection address 0x00 and broadcast. */
	memcpy(buf, vec_snrm, sizeof(vec_snrm));
	buf[10] = 0x00;
	irlap_frame_parse(buf, sizeof(buf), &f);
	assert_int_equal(irlap_snrm_parse(&f, &ci), -EINVAL);
	buf[10] = 0xfe;
	assert_int_equal(irlap_snrm_parse(&f, &ci), -EINVAL);
	/* Too short for the addresses. */
	irlap_frame_parse(vec_snrm, 10, &f);
	assert_int_equal(irlap_snrm_parse(&f, &ci), -EINVAL);
	/* A QoS list cut in the middle of an item: the addresses are
	 * known (the station can refuse), the list is not taken. */
	irlap_frame_parse(vec_snrm, sizeof(vec_snrm) - 1, &f);
	memset(&ci, 0, sizeof(ci));
	assert_int_equal(irlap_snrm_parse(&f, &ci), -EBADMSG);
	assert_int_not_equal(ci.saddr, 0);
	assert_int_not_equal(ci.ncaddr, 0);
	/* The reset form has no I-field at all. */
	irlap_frame_parse(vec_snrm, 2, &f);
	assert_int_equal(irlap_snrm_parse(&f, &ci), -EINVAL);
}

static void frmr_round_trip(void **state)
{
	struct irlap_frmr in = { .rejected_control = 0x5c, .vs = 3, .vr = 6, .rejected_cmd = true,
				 .wxyz = IRLAP_FRMR_Z }, out;
	struct irlap_frame f;
	uint8_t buf[8];
	size_t n = irlap_frmr_build(buf, sizeof(buf), 0x2d, &in);

	assert_int_equal(n, 5);
	assert_int_equal(buf[0], 0x5a);
	assert_int_equal(buf[1], 0x97);
	assert_int_equal(buf[2], 0x5c);
	assert_int_equal(buf[3], 6 << 5 | 0x10 | 3 << 1);
	assert_int_equal(buf[4], 0x08);
	assert_int_equal(irlap_frame_parse(buf, n, &f), 0);
	assert_int_equal(irlap_frmr_parse(&f, &out), 0);
	assert_int_equal(out.rejected_control, 0x5c);
	assert_int_equal(out.vs, 3);
	assert_int_equal(out.vr, 6);
	assert_true(out.rejected_cmd);
	assert_int_equal(out.wxyz, IRLAP_FRMR_Z);
	assert_int_equal(irlap_frame_parse(buf, 4, &f), 0);
	assert_int_equal(irlap_frmr_parse(&f, &out), -EINVAL);
}

static void test_frame_round_trip(void **state)
{
	static const uint8_t data[] = { 0xc0, 0xc1, 0x7d };
	struct irlap_test_ndm t = { .saddr = OURS, .daddr = IRLAP_BROADCAST_DADDR, .data = data,
				    .len = sizeof(data) }, out;
	struct irlap_frame f;
	uint8_t buf[32];
	size_t n = irlap_test_ndm_build(buf, sizeof(buf), true, &t);

	assert_int_equal(n, 2 + 8 + 3);
	assert_int_equal(buf[0], 0xff);
	assert_int_equal(buf[1], 0xf3);
	assert_int_equal(irlap_frame_parse(buf, n, &f), 0);
	assert_int_equal(f.type, IRLAP_F_TEST);
	assert_int_equal(irlap_test_ndm_parse(&f, &out), 0);
	assert_int_equal(out.saddr, OURS);
	assert_int_equal(out.len, 3);
	assert_memory_equal(out.data, data, 3);
	assert_int_equal(irlap_frame_parse(buf, 9, &f), 0);
	assert_int_equal(irlap_test_ndm_parse(&f, &out), -EINVAL);
}

static void describes_frames_for_logs(void **state)
{
	static const uint8_t i_frame[] = { 0x5b, 0x32, 0x00, 0x10 };
	struct irlap_frame f;
	char buf[64];

	irlap_frame_parse(i_frame, sizeof(i_frame), &f);
	assert_string_equal(irlap_frame_describe(&f, buf, sizeof(buf)),
			    "I cmd ca=0x2d ns=1 nr=1 P len=2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(classifies_control_bytes),
		cmocka_unit_test(frames_shorter_than_two_bytes_are_rejected),
		cmocka_unit_test(builds_s_u_and_i_frames),
		cmocka_unit_test(parses_digest_xid_vectors),
		cmocka_unit_test(builds_digest_xid_vectors),
		cmocka_unit_test(xid_slot_codes_and_bad_xids),
		cmocka_unit_test(three_hint_bytes_keep_two_and_find_the_charset),
		cmocka_unit_test(long_nicknames_are_cut),
		cmocka_unit_test(snrm_and_ua_vectors),
		cmocka_unit_test(bad_snrms_are_rejected),
		cmocka_unit_test(frmr_round_trip),
		cmocka_unit_test(test_frame_round_trip),
		cmocka_unit_test(describes_frames_for_logs),
	};
	return cmocka_run_group_tests_name("irlap_frame", tests, NULL, NULL);
}
