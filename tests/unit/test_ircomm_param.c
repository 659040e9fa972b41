/*
 * test_ircomm_param.c: IrCOMM cooked framing and control items against
 * the byte-exact vectors of digest 11.6 and 7.2, round trips, and every
 * malformed case (each truncation, PL not matching its PI, clen past
 * the end).
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

#include "ias.h"
#include "ircomm_param.h"

/* Digest 11.6: the IAS answer's octet sequence (port type 0x01). */
static const uint8_t ias_params[] = { 0x00, 0x01, 0x06, 0x01, 0x01, 0x01 };
/* Digest 11.6: the whole IAS answer it sits in (after the LM header). */
static const uint8_t ias_answer[] = { 0x84, 0x00, 0x00, 0x01, 0x00, 0x04, 0x02, 0x00, 0x06,
				      0x00, 0x01, 0x06, 0x01, 0x01, 0x01 };
/* Digest 11.6: the initial 9-wire parameters SDU (after the TTP byte). */
static const uint8_t initial_9wire[] = { 0x12, 0x00, 0x01, 0x04, 0x10, 0x04, 0x00, 0x00, 0x25,
					 0x80, 0x11, 0x01, 0x03, 0x12, 0x01, 0x00, 0x20, 0x01,
					 0x0c };
/* Digest 11.6: "AT\r" as user data. */
static const uint8_t at_sdu[] = { 0x00, 0x41, 0x54, 0x0d };

static void ias_parameters_vector(void **state)
{
	struct ias_response r;
	struct ircomm_params p;
	uint8_t buf[16];

	(void)state;
	assert_int_equal(ias_response_parse(ias_answer, sizeof(ias_answer), &r), 0);
	assert_int_equal(r.value.type, IAS_OCTETS);
	assert_int_equal(r.object_id, 0x0004);
	assert_int_equal(ircomm_ias_params_parse(r.value.bytes, r.value.len, &p), 0);
	assert_int_equal(p.present, IRCOMM_P_SERVICE_TYPE | IRCOMM_P_PORT_TYPE);
	assert_int_equal(p.service_type, IRCOMM_SVC_3WIRE | IRCOMM_SVC_9WIRE);
	assert_int_equal(p.port_type, 0x01);
	assert_int_equal(ircomm_ias_params_build(buf, sizeof(buf), 0x06, IRCOMM_PORT_SERIAL), 6);
	assert_memory_equal(buf, ias_params, 6);
	assert_int_equal(ircomm_best_service(p.service_type, 0x06), IRCOMM_SVC_9WIRE);
}

static void ias_parameters_port_types(void **state)
{
	const uint8_t linux_form[] = { 0x00, 0x01, 0x06, 0x01, 0x01, 0x00 };
	const uint8_t parallel[] = { 0x00, 0x01, 0x06, 0x01, 0x01, 0x02 };
	const uint8_t no_port[] = { 0x00, 0x01, 0x02 };
	const uint8_t no_service[] = { 0x01, 0x01, 0x00 };
	const uint8_t bad_pl[] = { 0x00, 0x02, 0x06, 0x00, 0x01, 0x01, 0x00 };
	struct ircomm_params p;
	uint8_t buf[8];

	(void)state;
	assert_int_equal(ircomm_ias_params_parse(linux_form, sizeof(linux_form), &p), 0);
	assert_int_equal(p.port_type, 0x00);
	assert_true(ircomm_port_is_serial(0x00));
	assert_true(ircomm_port_is_serial(0x01));
	assert_false(ircomm_port_is_serial(0x02));
	assert_int_equal(ircomm_ias_params_parse(parallel, sizeof(parallel), &p), -EPROTO);
	assert_int_equal(ircomm_ias_params_parse(no_port, sizeof(no_port), &p), 0);
	assert_int_equal(p.service_type, IRCOMM_SVC_3WIRE);
	assert_int_equal(ircomm_ias_params_parse(no_service, sizeof(no_service), &p), -EINVAL);
	/* service type with PL 2 is rejected: none is left */
	assert_int_equal(ircomm_ias_params_parse(bad_pl, sizeof(bad_pl), &p), -EINVAL);
	/* every cut: only the one between the items is a (shorter) list */
	for (size_t n = 0; n < sizeof(ias_params); n++)
		assert_int_equal(ircomm_ias_params_parse(ias_params, n, &p), n == 3 ? 0 : -EINVAL);
	for (size_t cap = 0; cap < 6; cap++)
		assert_int_equal(ircomm_ias_params_build(buf, cap, 0x06, 0x01), -ENOSPC);
}

/* Data format octets as logged: the bit layout of PI 0x11, and the
 * octet Linux sends for 8N1 (0x13: its even-parity type bit set with
 * parity off) reported as 8N1 with the stray bit named. */
static void data_format_described(void **state)
{
	static const struct { uint8_t octet; const char *text; } cases[] = {
		{ 0x03, "8N1" },
		{ 0x00, "5N1" },
		{ 0x06, "7N2" },
		{ 0x0b, "8O1" },
		{ 0x1a, "7E1" },
		{ 0x2b, "8M1" },
		{ 0x3f, "8S2" },
		{ 0x13, "8N1 (parity type bits 0x10 with parity off, as Linux sends)" },
		{ 0x23, "8N1 (parity type bits 0x20 with parity off)" },
		{ 0x43, "8N1 (reserved bits 0x40 set)" },
	};
	char buf[96], tiny[3];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(ircomm_data_format_describe(cases[i].octet, buf, sizeof(buf)),
				    cases[i].text);
	/* cut to the buffer, terminated */
	assert_string_equal(ircomm_data_format_describe(0x13, tiny, sizeof(tiny)), "8N");
}

static void best_service(void **state)
{
	(void)state;
	assert_int_equal(ircomm_best_service(0x06, 0x06), IRCOMM_SVC_9WIRE);
	assert_int_equal(ircomm_best_service(0x02, 0x06), IRCOMM_SVC_3WIRE);
	assert_int_equal(ircomm_best_service(0x06, 0x02), IRCOMM_SVC_3WIRE);
	assert_int_equal(ircomm_best_service(0x0f, 0x04), IRCOMM_SVC_9WIRE);
	assert_int_equal(ircomm_best_service(0x09, 0x06), 0);  /* raw and Centronics only */
	assert_int_equal(ircomm_best_service(0x04, 0x02), 0);
}

static void initial_parameters_vector(void **state)
{
	struct ircomm_sdu s;
	struct ircomm_params p, want = {
		.present = IRCOMM_P_SERVICE_TYPE | IRCOMM_P_DATA_RATE | IRCOMM_P_DATA_FORMAT |
			   IRCOMM_P_FLOW_CONTROL | IRCOMM_P_DTE,
		.service_type = IRCOMM_SVC_9WIRE, .data_rate = 9600, .data_format = 0x03,
		.flow_control = 0x00, .dte = IRCOMM_DTE_DTR | IRCOMM_DTE_RTS,
	};
	uint8_t ctrl[32], sdu[64];
	int n;

	(void)state;
	assert_int_equal(ircomm_sdu_split(initial_9wire, sizeof(initial_9wire), &s), 0);
	assert_int_equal(s.clen, 0x12);
	assert_int_equal(s.len, 0);
	assert_int_equal(ircomm_params_parse(s.ctrl, s.clen, &p), 0);
	assert_true(ircomm_params_equal(&p, &want));
	assert_int_equal(p.data_rate, 9600);
	n = ircomm_params_build(ctrl, sizeof(ctrl), &want);
	assert_int_equal(n, 0x12);
	n = ircomm_sdu_build(sdu, sizeof(sdu), ctrl, (size_t)n, NULL, 0);
	assert_int_equal(n, sizeof(initial_9wire));
	assert_memory_equal(sdu, initial_9wire, sizeof(initial_9wire));
}

static void user_data_vector(void **state)
{
	struct ircomm_sdu s;
	uint8_t sdu[8];

	(void)state;
	assert_int_equal(ircomm_sdu_split(at_sdu, sizeof(at_sdu), &s), 0);
	assert_int_equal(s.clen, 0);
	assert_int_equal(s.len, 3);
	assert_memory_equal(s.data, "AT\r", 3);
	assert_int_equal(ircomm_sdu_build(sdu, sizeof(sdu), NULL, 0, (const uint8_t *)"AT\r", 3), 4);
	assert_memory_equal(sdu, at_sdu, sizeof(at_sdu));
	for (size_t cap = 0; cap < 4; cap++)
		assert_int_equal(ircomm_sdu_build(sdu, cap, NULL, 0, (const uint8_t *)"AT\r", 3),
				 -ENOSPC);
}

static void control_and_data_share(void **state)
{
	const uint8_t ctrl[] = { 0x20, 0x01, 0x09 };
	uint8_t sdu[16];
	struct ircomm_sdu s;
	struct ircomm_params p;
	int n;

	(void)state;
	n = ircomm_sdu_build(sdu, sizeof(sdu), ctrl, sizeof(ctrl), (const uint8_t *)"hi", 2);
	assert_int_equal(n, 6);
	assert_int_equal(sdu[0], 3);
	assert_int_equal(ircomm_sdu_split(sdu, (size_t)n, &s), 0);
	assert_int_equal(s.clen, 3);
	assert_int_equal(s.len, 2);
	assert_memory_equal(s.data, "hi", 2);
	assert_int_equal(ircomm_params_parse(s.ctrl, s.clen, &p), 0);
	assert_int_equal(p.present, IRCOMM_P_DTE);
	assert_int_equal(p.dte, IRCOMM_DTE_DELTA_DTR | IRCOMM_DTE_RTS);
	assert_int_equal(ircomm_sdu_build(sdu, sizeof(sdu), ctrl, 256, NULL, 0), -EINVAL);
}

static void clen_past_end(void **state)
{
	struct ircomm_sdu s;
	uint8_t sdu[32] = { 0 };

	(void)state;
	assert_int_equal(ircomm_sdu_split(sdu, 0, &s), -EINVAL);
	/* every cut of the initial parameters SDU runs clen past the end */
	for (size_t n = 1; n < sizeof(initial_9wire); n++)
		assert_int_equal(ircomm_sdu_split(initial_9wire, n, &s), -EINVAL);
	memset(sdu, 0, sizeof(sdu));
	sdu[0] = 0xff;
	assert_int_equal(ircomm_sdu_split(sdu, sizeof(sdu), &s), -EINVAL);
	sdu[0] = 31;   /* exactly to the end: control only */
	assert_int_equal(ircomm_sdu_split(sdu, sizeof(sdu), &s), 0);
	assert_int_equal(s.clen, 31);
	assert_int_equal(s.len, 0);
}

static void truncated_lists(void **state)
{
	const uint8_t *ctrl = initial_9wire + 1;
	size_t clen = sizeof(initial_9wire) - 1;
	struct ircomm_params p;
	/* the cuts that fall between items are well-formed shorter lists */
	const size_t whole[] = { 0, 3, 9, 12, 15, 18 };

	(void)state;
	for (size_t n = 0; n <= clen; n++) {
		bool ok = false;
		for (size_t k = 0; k < sizeof(whole) / sizeof(whole[0]); k++)
			ok |= whole[k] == n;
		memset(&p, 0xaa, sizeof(p));
		int r = ircomm_params_parse(ctrl, n, &p);
		if (ok) {
			assert_int_equal(r, 0);
		} else {
			assert_int_equal(r, -EINVAL);
			assert_int_equal(p.present, 0);   /* nothing half-applied */
		}
	}
}

static void pl_mismatch_rejected(void **state)
{
	/* data rate PL 2, DTE PL 0, then a good data format */
	const uint8_t list[] = { 0x10, 0x02, 0x25, 0x80, 0x20, 0x00, 0x11, 0x01, 0x03 };
	/* poll with a value, XON/XOFF with one byte, then a good DCE */
	const uint8_t list2[] = { 0x22, 0x01, 0x00, 0x13, 0x01, 0x11, 0x21, 0x01, 0xf0 };
	/* port name of 33 bytes, then port name of 4 */
	uint8_t list3[2 + 33 + 6];
	struct ircomm_params p;

	(void)state;
	assert_int_equal(ircomm_params_parse(list, sizeof(list), &p), 2);
	assert_int_equal(p.present, IRCOMM_P_DATA_FORMAT);
	assert_int_equal(p.data_format, 0x03);
	assert_int_equal(ircomm_params_parse(list2, sizeof(list2), &p), 2);
	assert_int_equal(p.present, IRCOMM_P_DCE);
	assert_int_equal(p.dce, 0xf0);
	memset(list3, 'x', sizeof(list3));
	list3[0] = IRCOMM_PI_PORT_NAME;
	list3[1] = 33;
	list3[35] = IRCOMM_PI_PORT_NAME;
	list3[36] = 4;
	memcpy(list3 + 37, "COM1", 4);
	assert_int_equal(ircomm_params_parse(list3, sizeof(list3), &p), 1);
	assert_int_equal(p.present, IRCOMM_P_PORT_NAME);
	assert_int_equal(p.port_name_len, 4);
	assert_memory_equal(p.port_name, "COM1", 4);
}

static void unknown_pi_skipped(void **state)
{
	const uint8_t list[] = { 0x7f, 0x03, 1, 2, 3, 0x15, 0x01, 0x04, 0x30, 0x00, 0x22, 0x00 };
	struct ircomm_params p;

	(void)state;
	assert_int_equal(ircomm_params_parse(list, sizeof(list), &p), 2);
	assert_int_equal(p.present, IRCOMM_P_LINE_STATUS | IRCOMM_P_POLL);
	assert_int_equal(p.line_status, 0x04);
	assert_string_equal(ircomm_pi_name(0x7f), "unknown");
	assert_string_equal(ircomm_pi_name(IRCOMM_PI_DATA_RATE), "data rate");
}

static void round_trip_every_item(void **state)
{
	struct ircomm_params p = {
		.present = IRCOMM_P_ALL,
		.service_type = 0x04, .port_type = 0x01, .port_name_len = 4,
		.data_rate = 115200, .data_format = 0x1b, .flow_control = 0x0c,
		.xon = 0x11, .xoff = 0x13, .enq = 0x05, .ack = 0x06,
		.line_status = 0x0e, .brk = 0x01, .dte = 0x0f, .dce = 0xff,
	};
	const uint8_t want[] = { 0x00, 0x01, 0x04, 0x01, 0x01, 0x01, 0x02, 0x04, 'C', 'O', 'M', '1',
				 0x10, 0x04, 0x00, 0x01, 0xc2, 0x00, 0x11, 0x01, 0x1b, 0x12, 0x01,
				 0x0c, 0x13, 0x02, 0x11, 0x13, 0x14, 0x02, 0x05, 0x06, 0x15, 0x01,
				 0x0e, 0x16, 0x01, 0x01, 0x20, 0x01, 0x0f, 0x21, 0x01, 0xff, 0x22,
				 0x00 };
	struct ircomm_params q;
	uint8_t buf[64];
	int n;

	(void)state;
	memcpy(p.port_name, "COM1", 4);
	n = ircomm_params_build(buf, sizeof(buf), &p);
	assert_int_equal(n, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(ircomm_params_parse(buf, (size_t)n, &q), 0);
	assert_true(ircomm_params_equal(&p, &q));
	q.data_rate = 9600;
	assert_false(ircomm_params_equal(&p, &q));
	for (int cap = 0; cap < n; cap++)
		assert_int_equal(ircomm_params_build(buf, (size_t)cap, &p), -ENOSPC);
	p.port_name_len = 33;
	assert_int_equal(ircomm_params_build(buf, sizeof(buf), &p), -EINVAL);
	/* nothing present: empty list */
	memset(&p, 0, sizeof(p));
	assert_int_equal(ircomm_params_build(buf, sizeof(buf), &p), 0);
}

static void last_item_wins(void **state)
{
	const uint8_t list[] = { 0x11, 0x01, 0x02, 0x11, 0x01, 0x03 };
	struct ircomm_params p;

	(void)state;
	assert_int_equal(ircomm_params_parse(list, sizeof(list), &p), 0);
	assert_int_equal(p.data_format, 0x03);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ias_parameters_vector),
		cmocka_unit_test(ias_parameters_port_types),
		cmocka_unit_test(best_service),
		cmocka_unit_test(data_format_described),
		cmocka_unit_test(initial_parameters_vector),
		cmocka_unit_test(user_data_vector),
		cmocka_unit_test(control_and_data_share),
		cmocka_unit_test(clen_past_end),
		cmocka_unit_test(truncated_lists),
		cmocka_unit_test(pl_mismatch_rejected),
		cmocka_unit_test(unknown_pi_skipped),
		cmocka_unit_test(round_trip_every_item),
		cmocka_unit_test(last_item_wins),
	};
	return cmocka_run_group_tests_name("ircomm_param", tests, NULL, NULL);
}
