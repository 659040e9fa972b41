/*
 * test_qos.c: IrLAP QoS lists, bit tables, negotiation rules and the
 * line-capacity limit (irda-digest.md 4.4 and 11.3).
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

#include "cursor.h"
#include "qos.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The QoS list of the 11.3 SNRM (Linux irtty, no dongle). */
static const uint8_t linux_list[] = {
	0x01, 0x01, 0x3e, 0x82, 0x01, 0x01, 0x83, 0x01, 0x3f, 0x84, 0x01, 0x7f,
	0x85, 0x01, 0xff, 0x86, 0x01, 0x03, 0x08, 0x01, 0x07,
};
/* The QoS list of the 11.3 UA (a Windows-98-like peer). */
static const uint8_t win_list[] = {
	0x01, 0x01, 0x3e, 0x82, 0x01, 0x01, 0x83, 0x01, 0x3f, 0x84, 0x01, 0x3f,
	0x85, 0x01, 0x80, 0x86, 0x01, 0x02, 0x08, 0x01, 0xff,
};

static void bit_tables_decode_every_entry(void **state)
{
	static const struct {
		uint32_t (*fn)(unsigned);
		uint32_t values[10];
		unsigned n;
	} rows[] = {
		{ qos_baud_of_bit, { 2400, 9600, 19200, 38400, 57600, 115200, 576000, 1152000, 4000000, 16000000 }, 10 },
		{ qos_max_tat_ms_of_bit, { 500, 250, 100, 50, 25, 10, 5 }, 7 },
		{ qos_data_size_of_bit, { 64, 128, 256, 512, 1024, 2048 }, 6 },
		{ qos_window_of_bit, { 1, 2, 3, 4, 5, 6, 7 }, 7 },
		{ qos_add_bofs_of_bit, { 48, 24, 12, 5, 3, 2, 1, 0 }, 8 },
		{ qos_min_tat_us_of_bit, { 10000, 5000, 1000, 500, 100, 50, 10, 0 }, 8 },
		{ qos_link_disc_ms_of_bit, { 3000, 8000, 12000, 16000, 20000, 25000, 30000, 40000 }, 8 },
		{ qos_threshold_ms_of_bit, { 0, 3000, 3000, 3000, 3000, 3000, 3000, 3000 }, 8 },
	};
	for (size_t r = 0; r < COUNT(rows); r++)
		for (unsigned b = 0; b < rows[r].n; b++)
			assert_int_equal(rows[r].fn(b), rows[r].values[b]);
	assert_int_equal(qos_baud_of_bit(10), 0);
	assert_int_equal(qos_data_size_of_bit(6), 0);
	assert_int_equal(qos_msb(0), 0);
	assert_int_equal(qos_msb(0x3e), 5);
	assert_int_equal(qos_msb(0x80), 7);
	assert_int_equal(qos_msb(0x201), 9);
}

static void masks_list_every_value_a_station_handles(void **state)
{
	assert_int_equal(qos_baud_mask_upto(115200), 0x3f);
	assert_int_equal(qos_baud_mask_upto(9600), 0x03);
	assert_int_equal(qos_min_tat_mask_for(5000), 0x03);   /* 10 and 5 ms */
	assert_int_equal(qos_min_tat_mask_for(10000), 0x01);
	assert_int_equal(qos_min_tat_mask_for(0), 0xff);
	assert_int_equal(qos_min_tat_mask_for(20000), 0x01); /* floor: 10 ms */
	assert_int_equal(qos_data_size_mask_upto(2048), 0x3f);
	assert_int_equal(qos_data_size_mask_upto(2042), 0x1f);
	assert_int_equal(qos_window_mask_upto(7), 0x7f);
	assert_int_equal(qos_window_mask_upto(1), 0x01);
	assert_int_equal(qos_baud_bit(115200), 5);
	assert_int_equal(qos_baud_bit(1234), -1);
}

static void encodes_in_linux_order(void **state)
{
	struct qos_bits q = {
		.baud = 0x3e, .max_tat = 0x01, .data_size = 0x3f, .window = 0x7f,
		.add_bofs = 0xff, .min_tat = 0x03, .link_disc = 0x07,
	};
	uint8_t buf[64];
	struct wcursor w;

	wcursor_init(&w, buf, sizeof(buf));
	assert_true(qos_encode(&q, &w));
	assert_int_equal(wcursor_len(&w), sizeof(linux_list));
	assert_memory_equal(buf, linux_list, sizeof(linux_list));

	/* A baud field beyond one byte takes PL 2, low byte first. */
	q.baud = 0x1ff;
	wcursor_init(&w, buf, sizeof(buf));
	assert_true(qos_encode(&q, &w));
	assert_int_equal(buf[0], 0x01);
	assert_int_equal(buf[1], 0x02);
	assert_int_equal(buf[2], 0xff);
	assert_int_equal(buf[3], 0x01);

	/* Too small a buffer fails instead of writing a partial list. */
	wcursor_init(&w, buf, 10);
	assert_false(qos_encode(&q, &w));
}

static void parses_and_round_trips(void **state)
{
	struct qos_bits q;
	unsigned have = 0;
	uint8_t buf[64];
	struct wcursor w;

	assert_int_equal(qos_parse(linux_list, sizeof(linux_list), &q, &have), 0);
	assert_int_equal(have, 0x7f);
	assert_int_equal(q.baud, 0x3e);
	assert_int_equal(q.max_tat, 0x01);
	assert_int_equal(q.data_size, 0x3f);
	assert_int_equal(q.window, 0x7f);
	assert_int_equal(q.add_bofs, 0xff);
	assert_int_equal(q.min_tat, 0x03);
	assert_int_equal(q.link_disc, 0x07);
	wcursor_init(&w, buf, sizeof(buf));
	assert_true(qos_encode(&q, &w));
	assert_memory_equal(buf, linux_list, sizeof(linux_list));
}

static void parse_accepts_what_peers_send(void **state)
{
	static const struct {
		const char *what;
		uint8_t list[16];
		size_t len;
		uint16_t baud;
		uint8_t window;
		unsigned have;
	} rows[] = {
		{ "baud PL 2 (Linux 2400..4M)", { 0x01, 0x02, 0xff, 0x01 }, 4, 0x1ff, 0x01, QOS_HAVE_BAUD },
		{ "baud PL 2 for exactly 0xff", { 0x01, 0x02, 0xff, 0x00 }, 4, 0xff, 0x01, QOS_HAVE_BAUD },
		{ "unknown PI skipped", { 0x99, 0x03, 1, 2, 3, 0x84, 0x01, 0x07 }, 8, 0x02, 0x07, QOS_HAVE_WINDOW },
		{ "unknown PI with PL 0", { 0x40, 0x00, 0x01, 0x01, 0x3e }, 5, 0x3e, 0x01, QOS_HAVE_BAUD },
		{ "empty list: defaults", { 0 }, 0, 0x02, 0x01, 0 },
	};
	for (size_t i = 0; i < COUNT(rows); i++) {
		struct qos_bits q;
		unsigned have = 0xdead;

		assert_int_equal(qos_parse(rows[i].list, rows[i].len, &q, &have), 0);
		assert_int_equal(q.baud, rows[i].baud);
		assert_int_equal(q.window, rows[i].window);
		assert_int_equal(have, rows[i].have);
	}
}

static void parse_rejects_malformed_lists(void **state)
{
	static const struct {
		const char *what;
		uint8_t list[8];
		size_t len;
	} rows[] = {
		{ "PI without PL", { 0x01 }, 1 },
		{ "PV shorter than PL", { 0x01, 0x02, 0x3e }, 3 },
		{ "unknown PI truncated", { 0x99, 0x05, 1, 2 }, 4 },
		{ "baud PL 0", { 0x01, 0x00 }, 2 },
		{ "baud PL 3", { 0x01, 0x03, 1, 2, 3 }, 5 },
		{ "window PL 2", { 0x84, 0x02, 0x7f, 0x00 }, 4 },
		{ "min TAT PL 0", { 0x86, 0x00 }, 2 },
		{ "duplicate window", { 0x84, 0x01, 0x01, 0x84, 0x01, 0x7f }, 6 },
	};
	for (size_t i = 0; i < COUNT(rows); i++) {
		struct qos_bits q;

		memset(&q, 0xaa, sizeof(q));
		assert_int_equal(qos_parse(rows[i].list, rows[i].len, &q, NULL), -EINVAL);
		assert_int_equal(q.window, 0xaa); /* nothing half-applied */
	}
}

static struct qos_bits bits(uint16_t baud, uint8_t tat, uint8_t data, uint8_t win,
			    uint8_t bofs, uint8_t mtt, uint8_t disc)
{
	return (struct qos_bits){ baud, tat, data, win, bofs, mtt, disc };
}

static void type0_parameters_take_the_highest_common_value(void **state)
{
	static const struct {
		uint16_t own_baud, peer_baud;
		uint8_t own_disc, peer_disc;
		uint32_t baud, disc_ms, threshold_ms;
		int rc;
	} rows[] = {
		{ 0x3e, 0x3e, 0x07, 0xff, 115200, 12000, 3000, 0 },
		{ 0x3e, 0x02, 0x07, 0x07, 9600, 12000, 3000, 0 },
		{ 0x1e, 0x3e, 0x01, 0x07, 57600, 3000, 0, 0 },
		{ 0x0a, 0x06, 0x03, 0x06, 9600, 8000, 3000, 0 },
		{ 0x3f, 0x1ff, 0xff, 0xff, 115200, 40000, 3000, 0 },
		{ 0x3e, 0xfc3e, 0x07, 0x07, 115200, 12000, 3000, 0 }, /* reserved baud bits */
		/* nothing common: refused; the fallback is 9600, 3 s */
		{ 0x20, 0x10, 0x80, 0x01, 9600, 3000, 0, -EPROTO },
		{ 0x3e, 0xfc00, 0x07, 0x07, 9600, 12000, 3000, -EPROTO },
	};
	for (size_t i = 0; i < COUNT(rows); i++) {
		struct qos_bits own = bits(rows[i].own_baud, 1, 0x3f, 0x7f, 0xff, 0x03, rows[i].own_disc);
		struct qos_bits peer = bits(rows[i].peer_baud, 1, 0x3f, 0x7f, 0xff, 0x03, rows[i].peer_disc);
		struct qos_result a, b;

		assert_int_equal(qos_negotiate(&own, &peer, NULL, &a), rows[i].rc);
		assert_int_equal(qos_negotiate(&peer, &own, NULL, &b), rows[i].rc);
		assert_int_equal(a.baud, rows[i].baud);
		assert_int_equal(a.link_disc_ms, rows[i].disc_ms);
		assert_int_equal(a.threshold_ms, rows[i].threshold_ms);
		/* Type 0: both stations arrive at the same values. */
		assert_int_equal(b.baud, a.baud);
		assert_int_equal(b.link_disc_ms, a.link_disc_ms);
	}
}

static void type1_parameters_govern_traffic_towards_the_announcer(void **state)
{
	static const struct {
		uint8_t peer_data, peer_win, peer_bofs, peer_mtt;
		uint32_t tx_data, tx_win, tx_bofs, tx_mtt_us;
		int rc;
	} rows[] = {
		{ 0x3f, 0x7f, 0xff, 0x03, 2048, 7, 0, 5000, 0 },
		{ 0x01, 0x01, 0x01, 0x01, 64, 1, 48, 10000, 0 },
		{ 0x0f, 0x3f, 0x04, 0x07, 512, 6, 12, 1000, 0 },
		{ 0x1f, 0x07, 0x80, 0xff, 1024, 3, 0, 0, 0 },
		{ 0xff, 0xff, 0xff, 0xff, 2048, 7, 0, 0, 0 },   /* reserved bits ignored */
		{ 0xc1, 0x81, 0x01, 0x01, 64, 1, 48, 10000, 0 },
		/* empty fields: refused; the fallback is the most conservative */
		{ 0x00, 0x00, 0x00, 0x00, 64, 1, 48, 10000, -EPROTO },
		{ 0xc0, 0x80, 0x04, 0x01, 64, 1, 12, 10000, -EPROTO },
	};
	for (size_t i = 0; i < COUNT(rows); i++) {
		struct qos_bits own = bits(0x3e, 1, 0x01, 0x01, 0x01, 0x01, 0x07);
		struct qos_bits peer = bits(0x3e, 1, rows[i].peer_data, rows[i].peer_win,
					    rows[i].peer_bofs, rows[i].peer_mtt, 0x07);
		struct qos_result r;

		assert_int_equal(qos_negotiate(&own, &peer, NULL, &r), rows[i].rc);
		assert_int_equal(r.baud, 115200);
		assert_int_equal(r.tx_data_size, rows[i].tx_data);
		assert_int_equal(r.tx_window, rows[i].tx_win);
		assert_int_equal(r.tx_add_bofs, rows[i].tx_bofs);
		assert_int_equal(r.tx_min_tat_us, rows[i].tx_mtt_us);
		/* Our own announcement governs what the peer sends us. */
		assert_int_equal(r.rx_data_size, 64);
		assert_int_equal(r.rx_window, 1);
		assert_int_equal(r.rx_min_tat_us, 10000);
	}
}

/* The field of one parameter (QOS_HAVE_* flag). */
static uint16_t get_field(const struct qos_bits *q, unsigned flag)
{
	switch (flag) {
	case QOS_HAVE_BAUD: return q->baud;
	case QOS_HAVE_MAX_TAT: return q->max_tat;
	case QOS_HAVE_DATA_SIZE: return q->data_size;
	case QOS_HAVE_WINDOW: return q->window;
	case QOS_HAVE_ADD_BOFS: return q->add_bofs;
	case QOS_HAVE_MIN_TAT: return q->min_tat;
	default: return q->link_disc;
	}
}

static struct qos_bits with_field(struct qos_bits q, unsigned flag, uint16_t v)
{
	switch (flag) {
	case QOS_HAVE_BAUD: q.baud = v; break;
	case QOS_HAVE_MAX_TAT: q.max_tat = (uint8_t)v; break;
	case QOS_HAVE_DATA_SIZE: q.data_size = (uint8_t)v; break;
	case QOS_HAVE_WINDOW: q.window = (uint8_t)v; break;
	case QOS_HAVE_ADD_BOFS: q.add_bofs = (uint8_t)v; break;
	case QOS_HAVE_MIN_TAT: q.min_tat = (uint8_t)v; break;
	default: q.link_disc = (uint8_t)v; break;
	}
	return q;
}

/* Side 0: the peer announced x; side 1: we did. */
static int negotiate_side(int side, const struct qos_bits *base, const struct qos_bits *x,
			  struct qos_result *r)
{
	memset(r, 0, sizeof(*r));
	return side ? qos_negotiate(x, base, NULL, r) : qos_negotiate(base, x, NULL, r);
}

/*
 * Each parameter alone, announced by either side: its reserved bits
 * change nothing (the result equals that of the field without them),
 * and a field with no defined bit (only reserved ones, or zero) makes
 * the pair unusable for that parameter only.
 */
static void reserved_bits_ignored_and_empty_fields_refused(void **state)
{
	static const struct {
		unsigned flag;
		uint16_t reserved;  /* bits the parameter does not define */
	} params[] = {
		{ QOS_HAVE_BAUD, 0xfc00 }, { QOS_HAVE_MAX_TAT, 0x80 }, { QOS_HAVE_DATA_SIZE, 0xc0 },
		{ QOS_HAVE_WINDOW, 0x80 }, { QOS_HAVE_ADD_BOFS, 0x00 }, { QOS_HAVE_MIN_TAT, 0x00 },
		{ QOS_HAVE_LINK_DISC, 0x00 },
	};
	const struct qos_bits base = bits(0x3e, 0x01, 0x3f, 0x7f, 0xff, 0x07, 0x07);

	for (size_t i = 0; i < COUNT(params); i++) {
		unsigned flag = params[i].flag;
		uint16_t res = params[i].reserved;
		struct qos_bits with = with_field(base, flag, get_field(&base, flag) | res);
		struct qos_bits only = with_field(base, flag, res);
		struct qos_bits zero = with_field(base, flag, 0);

		for (int side = 0; side < 2; side++) {
			struct qos_result x, y;

			assert_int_equal(negotiate_side(side, &base, &with, &x), 0);
			assert_int_equal(negotiate_side(side, &base, &base, &y), 0);
			assert_memory_equal(&x, &y, sizeof(x));
			assert_true(x.tx_window >= 1 && x.rx_window >= 1);
			assert_true(x.tx_data_size >= 64 && x.rx_data_size >= 64);
			assert_int_equal(negotiate_side(side, &base, &only, &x), -EPROTO);
			assert_int_equal(negotiate_side(side, &base, &zero, &x), -EPROTO);
			assert_int_equal(side ? qos_unusable(&only, &base) : qos_unusable(&base, &only),
					 flag);
			assert_int_equal(side ? qos_unusable(&zero, &base) : qos_unusable(&base, &zero),
					 flag);
			/* The refused result is still sane (bit 0 or 9600). */
			assert_true(x.tx_window >= 1 && x.tx_data_size >= 64 && x.baud >= 9600);
		}
		assert_string_not_equal(qos_param_name(flag), "?");
	}
	assert_int_equal(qos_unusable(&base, &base), 0);
}

static void local_limits_cap_what_we_send(void **state)
{
	struct qos_bits own = bits(0x3e, 1, 0x3f, 0x7f, 0xff, 0x03, 0x07);
	struct qos_limits lim = { .max_tx_data_size = 2042, .max_tx_window = 4 };
	struct qos_result r;

	qos_negotiate(&own, &own, &lim, &r);
	assert_int_equal(r.tx_data_size, 2042);
	assert_int_equal(r.tx_window, 4);
	assert_int_equal(r.rx_data_size, 2048);
	assert_int_equal(r.rx_window, 7);
}

static void line_capacity_table(void **state)
{
	static const struct {
		uint32_t baud, tat_ms, bytes;
	} rows[] = {
		{ 2400, 500, 100 }, { 9600, 500, 400 }, { 19200, 500, 800 },
		{ 38400, 500, 1600 }, { 57600, 500, 2360 }, { 115200, 500, 4800 },
		{ 9600, 250, 200 }, { 9600, 100, 80 }, { 9600, 50, 0 },
		{ 57600, 250, 1180 }, { 57600, 100, 472 },
		{ 115200, 250, 2400 }, { 115200, 100, 960 }, { 115200, 50, 480 },
		{ 115200, 25, 240 }, { 115200, 10, 96 }, { 115200, 5, 48 },
		{ 2400, 250, 0 }, { 1234, 500, 0 }, { 115200, 7, 0 },
	};
	for (size_t i = 0; i < COUNT(rows); i++)
		assert_int_equal(qos_line_capacity(rows[i].baud, rows[i].tat_ms), rows[i].bytes);
	assert_int_equal(qos_requested_capacity(7, 2048, 0, 58), 7 * 2054 + 58);
}

/*
 * The line-capacity rule at every SIR speed: a peer that accepts 2048
 * bytes x 7 with no extra BOFs and 5 ms turnaround, 500 ms max TAT.  The
 * data size drops until one frame plus overhead and padding fits the
 * turn; the turn (line_capacity) bounds data size x window.
 */
static void line_capacity_limits_data_size_at_every_sir_speed(void **state)
{
	static const struct {
		uint32_t baud, capacity, data, mtt_bytes;
	} rows[] = {
		{ 2400, 100, 64, 2 },
		{ 9600, 400, 256, 5 },
		{ 19200, 800, 512, 10 },
		{ 38400, 1600, 1024, 20 },
		{ 57600, 2360, 2048, 29 },
		{ 115200, 4800, 2048, 58 },
	};
	for (size_t i = 0; i < COUNT(rows); i++) {
		struct qos_bits own = bits((uint16_t)(1u << qos_baud_bit(rows[i].baud)), 1, 0x3f,
					   0x7f, 0xff, 0x03, 0x07);
		struct qos_result r;

		qos_negotiate(&own, &own, NULL, &r);
		assert_int_equal(r.baud, rows[i].baud);
		assert_int_equal(r.line_capacity, rows[i].capacity);
		assert_int_equal(r.tx_data_size, rows[i].data);
		assert_int_equal(qos_mtt_bytes(r.baud, r.tx_min_tat_us), rows[i].mtt_bytes);
		/* One frame of that size fits a turn; the next size up would not
		 * (except at the top of the table or the 64-byte floor). */
		assert_true(qos_requested_capacity(1, r.tx_data_size, r.tx_add_bofs, rows[i].mtt_bytes) <= r.line_capacity ||
			    r.tx_data_size == 64);
		if (r.tx_data_size < 2048 && r.tx_data_size > 64)
			assert_true(qos_requested_capacity(1, 2 * r.tx_data_size, r.tx_add_bofs, rows[i].mtt_bytes) > r.line_capacity);
		/* Below 115200 only 500 ms is allowed, whatever the peer said. */
		if (rows[i].baud < 115200) {
			struct qos_bits fast = own;
			fast.max_tat = 0x0f;
			qos_negotiate(&own, &fast, NULL, &r);
			assert_int_equal(r.peer_max_tat_ms, 500);
			assert_int_equal(r.line_capacity, rows[i].capacity);
		}
	}
}

static void short_max_turnaround_shrinks_the_turn_at_115200(void **state)
{
	static const struct {
		uint8_t tat_bits;
		uint32_t tat_ms, capacity, data;
	} rows[] = {
		{ 0x01, 500, 4800, 2048 },
		{ 0x03, 250, 2400, 2048 },
		{ 0x07, 100, 960, 512 },
		{ 0x0f, 50, 480, 256 },
		{ 0x1f, 25, 240, 128 },
		{ 0x3f, 10, 96, 64 },
		{ 0x7f, 5, 48, 64 },
	};
	for (size_t i = 0; i < COUNT(rows); i++) {
		struct qos_bits own = bits(0x3e, 1, 0x3f, 0x7f, 0xff, 0xff, 0x07);
		struct qos_bits peer = bits(0x3e, rows[i].tat_bits, 0x3f, 0x7f, 0xff, 0xff, 0x07);
		struct qos_result r;

		qos_negotiate(&own, &peer, NULL, &r);
		assert_int_equal(r.peer_max_tat_ms, rows[i].tat_ms);
		assert_int_equal(r.line_capacity, rows[i].capacity);
		assert_int_equal(r.tx_data_size, rows[i].data);
	}
}

static void mtt_padding_rounds_up(void **state)
{
	static const struct {
		uint32_t baud, us, bytes;
	} rows[] = {
		{ 9600, 10000, 10 }, { 9600, 5000, 5 }, { 9600, 1000, 1 },
		{ 19200, 10000, 20 }, { 38400, 5000, 20 }, { 57600, 1000, 6 },
		{ 115200, 10000, 116 }, { 115200, 5000, 58 }, { 115200, 1000, 12 },
		{ 115200, 500, 6 }, { 115200, 50, 1 }, { 115200, 0, 0 }, { 2400, 10000, 3 },
	};
	for (size_t i = 0; i < COUNT(rows); i++)
		assert_int_equal(qos_mtt_bytes(rows[i].baud, rows[i].us), rows[i].bytes);
}

/* irda-digest.md 11.3: our SNRM (Linux list) against the UA of a
 * Windows-98-like peer. */
static void digest_11_3_negotiated_result(void **state)
{
	struct qos_bits ours, theirs;
	struct qos_result r;

	assert_int_equal(qos_parse(linux_list, sizeof(linux_list), &ours, NULL), 0);
	assert_int_equal(qos_parse(win_list, sizeof(win_list), &theirs, NULL), 0);
	qos_negotiate(&ours, &theirs, NULL, &r);
	assert_int_equal(r.baud, 115200);
	assert_int_equal(r.link_disc_ms, 12000);
	assert_int_equal(r.threshold_ms, 3000);
	assert_int_equal(r.tx_data_size, 2048);
	assert_int_equal(r.rx_data_size, 2048);
	assert_int_equal(r.tx_window, 6);
	assert_int_equal(r.rx_window, 7);
	assert_int_equal(r.tx_add_bofs, 0);
	assert_int_equal(r.tx_min_tat_us, 5000);
	assert_int_equal(r.rx_min_tat_us, 5000);
	assert_int_equal(r.peer_max_tat_ms, 500);
	assert_int_equal(r.own_max_tat_ms, 500);
	assert_int_equal(r.line_capacity, 4800);

	/* Linux would clamp its data size to 2042. */
	struct qos_limits lim = { .max_tx_data_size = 2042 };
	qos_negotiate(&ours, &theirs, &lim, &r);
	assert_int_equal(r.tx_data_size, 2042);

	/* And the peer's side of the same exchange. */
	qos_negotiate(&theirs, &ours, NULL, &r);
	assert_int_equal(r.baud, 115200);
	assert_int_equal(r.tx_window, 7);
	assert_int_equal(r.rx_window, 6);
	assert_int_equal(r.tx_min_tat_us, 5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bit_tables_decode_every_entry),
		cmocka_unit_test(masks_list_every_value_a_station_handles),
		cmocka_unit_test(encodes_in_linux_order),
		cmocka_unit_test(parses_and_round_trips),
		cmocka_unit_test(parse_accepts_what_peers_send),
		cmocka_unit_test(parse_rejects_malformed_lists),
		cmocka_unit_test(type0_parameters_take_the_highest_common_value),
		cmocka_unit_test(type1_parameters_govern_traffic_towards_the_announcer),
		cmocka_unit_test(reserved_bits_ignored_and_empty_fields_refused),
		cmocka_unit_test(local_limits_cap_what_we_send),
		cmocka_unit_test(line_capacity_table),
		cmocka_unit_test(line_capacity_limits_data_size_at_every_sir_speed),
		cmocka_unit_test(short_max_turnaround_shrinks_the_turn_at_115200),
		cmocka_unit_test(mtt_padding_rounds_up),
		cmocka_unit_test(digest_11_3_negotiated_result),
	};
	return cmocka_run_group_tests_name("qos", tests, NULL, NULL);
}
