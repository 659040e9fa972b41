/*
 * test_lmp_conn.c: plain IrLMP connections (irnet/core/lmp_conn.[ch]).
 * One IrLMP with a stub IrLAP: the peer's LM-PDUs go in as IrLAP data
 * and what we pull out is compared byte for byte with LM-PDUs written
 * here from the format (digest 5: C bit and DLSAP, SLSAP, opcode,
 * parameter; data PDUs are the two selectors and the user data).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "irlmp.h"
#include "lmp_conn.h"

#define PEER 0x50fbc8f3u
#define DATA_SIZE 64   /* IrLAP data size both ways: 62 bytes a message */

struct side {
	struct irlmp *lm;
	struct lmp_conn *c;
	struct lmp_listener *l;
	unsigned connected, disconnected, readable, writable;
	enum irlmp_reason reason;
	bool close_on_readable;
};

static int lap_req(void *ctx, const struct irlap_request *req)
{
	(void)ctx;
	(void)req;
	return 0;
}

static const struct irlmp_ops lap_ops = { lap_req };

static void on_lmp(void *ctx, const struct lmp_event *ev)
{
	struct side *s = ctx;

	switch (ev->type) {
	case LMP_EV_CONNECTED:
		s->c = ev->conn;
		s->connected++;
		break;
	case LMP_EV_READABLE:
		s->readable++;
		if (s->close_on_readable) {
			lmp_disconnect(ev->conn);
			s->c = NULL;
		}
		break;
	case LMP_EV_WRITABLE:
		s->writable++;
		break;
	case LMP_EV_DISCONNECTED:
		s->c = NULL;
		s->disconnected++;
		s->reason = ev->reason;
		break;
	}
}

static struct side *side_new(void)
{
	struct side *s = calloc(1, sizeof(*s));
	struct irlmp_config cfg;

	assert_non_null(s);
	irlmp_config_defaults(&cfg);
	s->lm = irlmp_new(&cfg, &lap_ops, s);
	assert_non_null(s->lm);
	return s;
}

static void side_link_up(struct side *s)
{
	struct qos_result q = { .tx_data_size = DATA_SIZE, .rx_data_size = DATA_SIZE };
	struct irlap_event ev = { .type = IRLAP_EV_CONNECT_CONF, .qos = &q, .daddr = PEER };

	irlmp_lap_event(s->lm, &ev, 0);
}

static void side_free(struct side *s)
{
	if (s->c)
		lmp_disconnect(s->c);
	lmp_listener_free(s->l);
	irlmp_free(s->lm);
	free(s);
}

static void feed(struct side *s, const uint8_t *pdu, size_t len)
{
	struct irlap_event ev = { .type = IRLAP_EV_DATA, .data = pdu, .len = len };

	irlmp_lap_event(s->lm, &ev, 0);
}

static void expect_pdu(struct side *s, const uint8_t *want, size_t len)
{
	uint8_t buf[DATA_SIZE];
	size_t n = irlmp_pull(s->lm, buf, sizeof(buf));

	assert_int_equal(n, len);
	assert_memory_equal(buf, want, len);
}

static void expect_nothing(struct side *s)
{
	uint8_t buf[DATA_SIZE];

	assert_int_equal(irlmp_pull(s->lm, buf, sizeof(buf)), 0);
}

/* Our connection 0x11 -> 0x12, confirmed by the peer. */
static struct side *connected_side(const struct lmp_config *cfg)
{
	static const uint8_t connect[] = { 0x92, 0x11, 0x01, 0x00 };
	static const uint8_t confirm[] = { 0x91, 0x12, 0x81, 0x00 };
	struct side *s = side_new();
	struct lmp_conn *c = lmp_connect(s->lm, PEER, 0x12, cfg, on_lmp, s, 0);

	assert_non_null(c);
	assert_false(lmp_is_connected(c));
	assert_int_equal(lmp_send(c, (const uint8_t *)"x", 1), -ENOTCONN);
	side_link_up(s);
	expect_pdu(s, connect, sizeof(connect)); /* no connect data */
	feed(s, confirm, sizeof(confirm));
	assert_int_equal(s->connected, 1);
	assert_ptr_equal(s->c, c);
	assert_true(lmp_is_connected(c));
	return s;
}

/* A message is one data PDU, boundaries kept; the size limit is IrLAP's
 * data size less the LM header, one byte more is refused. */
static void messages_out(void **state)
{
	struct lmp_config cfg;
	uint8_t big[DATA_SIZE], pdu[DATA_SIZE];
	struct side *s;

	(void)state;
	lmp_config_defaults(&cfg);
	s = connected_side(&cfg);
	assert_int_equal(lmp_max_send(s->c), DATA_SIZE - 2);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(lmp_send(s->c, big, DATA_SIZE - 1), -EMSGSIZE);
	assert_int_equal(lmp_send(s->c, big, 0), -EMSGSIZE);
	assert_int_equal(lmp_send(s->c, (const uint8_t *)"abc", 3), 0);
	assert_int_equal(lmp_send(s->c, (const uint8_t *)"de", 2), 0);
	assert_int_equal(lmp_send(s->c, big, DATA_SIZE - 2), 0);
	assert_int_equal(lmp_tx_pending(s->c), 3);
	expect_pdu(s, (const uint8_t[]){ 0x12, 0x11, 'a', 'b', 'c' }, 5);
	expect_pdu(s, (const uint8_t[]){ 0x12, 0x11, 'd', 'e' }, 4);
	/* a frame with less room than the message: it waits, whole */
	assert_int_equal(irlmp_pull(s->lm, pdu, 40), 0);
	pdu[0] = 0x12;
	pdu[1] = 0x11;
	memcpy(pdu + 2, big, DATA_SIZE - 2);
	expect_pdu(s, pdu, DATA_SIZE);
	expect_nothing(s);
	assert_int_equal(lmp_get_stats(s->c)->msgs_tx, 3);
	assert_int_equal(lmp_get_stats(s->c)->bytes_tx, 5 + DATA_SIZE - 2);
	side_free(s);
}

/* The send queue is bounded; after -ENOBUFS one WRITABLE comes from the
 * tick once IrLAP took half of it. */
static void send_queue_bound(void **state)
{
	struct lmp_config cfg;
	struct side *s;
	uint8_t b = 0;

	(void)state;
	lmp_config_defaults(&cfg);
	cfg.tx_queue_max = 4;
	s = connected_side(&cfg);
	for (unsigned i = 0; i < 4; i++) {
		b = (uint8_t)i;
		assert_int_equal(lmp_send(s->c, &b, 1), 0);
	}
	b = 4;
	assert_int_equal(lmp_send(s->c, &b, 1), -ENOBUFS);
	assert_int_equal(lmp_get_stats(s->c)->tx_full, 1);
	expect_pdu(s, (const uint8_t[]){ 0x12, 0x11, 0 }, 3);
	irlmp_tick(s->lm, 1000);
	assert_int_equal(s->writable, 0); /* 3 left: more than half */
	expect_pdu(s, (const uint8_t[]){ 0x12, 0x11, 1 }, 3);
	assert_true(irlmp_deadline(s->lm) <= 1000); /* due at once */
	irlmp_tick(s->lm, 2000);
	assert_int_equal(s->writable, 1);
	irlmp_tick(s->lm, 3000);
	assert_int_equal(s->writable, 1); /* once per refusal */
	assert_int_equal(lmp_send(s->c, &b, 1), 0);
	expect_pdu(s, (const uint8_t[]){ 0x12, 0x11, 2 }, 3);
	expect_pdu(s, (const uint8_t[]){ 0x12, 0x11, 3 }, 3);
	expect_pdu(s, (const uint8_t[]){ 0x12, 0x11, 4 }, 3);
	expect_nothing(s);
	side_free(s);
}

/* Each data PDU is one message for the reader; with the receive queue
 * full further PDUs are dropped and counted, the queued ones kept in
 * order; an empty PDU is no message. */
static void messages_in_and_drops(void **state)
{
	struct lmp_config cfg;
	struct side *s;
	uint8_t pdu[8] = { 0x11, 0x12 }, buf[DATA_SIZE];

	(void)state;
	lmp_config_defaults(&cfg);
	cfg.rx_queue_max = 3;
	s = connected_side(&cfg);
	feed(s, pdu, 2); /* no data */
	assert_int_equal(s->readable, 0);
	for (uint8_t i = 0; i < 5; i++) {
		memset(pdu + 2, 'a' + i, i + 1);
		feed(s, pdu, 2 + (size_t)i + 1);
	}
	assert_int_equal(s->readable, 3);
	assert_int_equal(lmp_rx_pending(s->c), 3);
	assert_int_equal(lmp_get_stats(s->c)->rx_dropped, 2);
	assert_int_equal(lmp_recv(s->c, buf, 1), 1);
	assert_int_equal(buf[0], 'a');
	assert_int_equal(lmp_recv(s->c, buf, 1), -EMSGSIZE); /* "bb" stays */
	assert_int_equal(lmp_recv(s->c, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "bb", 2);
	/* room again: the next PDU is kept */
	memset(pdu + 2, 'z', 4);
	feed(s, pdu, 6);
	assert_int_equal(lmp_recv(s->c, buf, sizeof(buf)), 3);
	assert_memory_equal(buf, "ccc", 3);
	assert_int_equal(lmp_recv(s->c, buf, sizeof(buf)), 4);
	assert_memory_equal(buf, "zzzz", 4);
	assert_int_equal(lmp_recv(s->c, buf, sizeof(buf)), 0);
	assert_int_equal(lmp_get_stats(s->c)->msgs_rx, 4);
	assert_int_equal(lmp_get_stats(s->c)->rx_dropped, 2);
	side_free(s);
}

/* A listener accepts with a bare confirm (connect data ignored), the
 * handler can be moved, the peer's disconnect reason reaches the user. */
static void listener_and_ends(void **state)
{
	static const uint8_t connect[] = { 0x93, 0x1a, 0x01, 0x00, 0x42, 0x43 };
	static const uint8_t confirm[] = { 0x9a, 0x13, 0x81, 0x00 };
	static const uint8_t data[] = { 0x13, 0x1a, 'h', 'i' };
	static const uint8_t disc[] = { 0x93, 0x1a, 0x02, 0x07 };
	struct lmp_config cfg;
	struct side *s = side_new(), *other = side_new();
	uint8_t buf[8];

	(void)state;
	lmp_config_defaults(&cfg);
	s->l = lmp_listen(s->lm, 0x13, &cfg, on_lmp, s);
	assert_non_null(s->l);
	assert_int_equal(lmp_listener_lsap(s->l), 0x13);
	assert_null(lmp_listen(s->lm, 0x13, &cfg, on_lmp, s)); /* taken */
	side_link_up(s);
	feed(s, connect, sizeof(connect));
	assert_int_equal(s->connected, 1);
	assert_non_null(s->c);
	expect_pdu(s, confirm, sizeof(confirm));
	assert_int_equal(irlmp_conn_rsel(lmp_irlmp_conn(s->c)), 0x1a);
	lmp_set_handler(s->c, on_lmp, other);
	feed(s, data, sizeof(data));
	assert_int_equal(s->readable, 0);
	assert_int_equal(other->readable, 1);
	assert_int_equal(lmp_recv(s->c, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "hi", 2);
	feed(s, disc, sizeof(disc));
	assert_int_equal(other->disconnected, 1);
	assert_int_equal(other->reason, IRLMP_REASON_NO_RESPONSE);
	s->c = NULL;
	side_free(other);
	side_free(s);
}

/* Our disconnect goes out with reason 0x01 after the data already
 * pulled; one from inside READABLE is safe. */
static void our_disconnect(void **state)
{
	static const uint8_t disc[] = { 0x92, 0x11, 0x02, 0x01 };
	struct lmp_config cfg;
	struct side *s;

	(void)state;
	lmp_config_defaults(&cfg);
	s = connected_side(&cfg);
	assert_int_equal(lmp_send(s->c, (const uint8_t *)"q", 1), 0);
	expect_pdu(s, (const uint8_t[]){ 0x12, 0x11, 'q' }, 3);
	assert_int_equal(lmp_send(s->c, (const uint8_t *)"r", 1), 0);
	lmp_disconnect(s->c); /* "r" is dropped */
	s->c = NULL;
	expect_pdu(s, disc, sizeof(disc));
	expect_nothing(s);
	assert_int_equal(s->disconnected, 0); /* no event for our own */
	side_free(s);

	s = connected_side(&cfg);
	s->close_on_readable = true;
	feed(s, (const uint8_t[]){ 0x11, 0x12, 'x' }, 3);
	assert_int_equal(s->readable, 1);
	assert_null(s->c);
	expect_pdu(s, disc, sizeof(disc));
	side_free(s);
}

static void bad_configs(void **state)
{
	struct lmp_config cfg;
	struct side *s = side_new();

	(void)state;
	lmp_config_defaults(&cfg);
	cfg.tx_queue_max = 0;
	assert_null(lmp_connect(s->lm, PEER, 0x12, &cfg, on_lmp, s, 0));
	lmp_config_defaults(&cfg);
	cfg.rx_queue_max = 0;
	assert_null(lmp_listen(s->lm, 0x12, &cfg, on_lmp, s));
	assert_int_equal(irlmp_count(s->lm, true), 0);
	side_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(messages_out),
		cmocka_unit_test(send_queue_bound),
		cmocka_unit_test(messages_in_and_drops),
		cmocka_unit_test(listener_and_ends),
		cmocka_unit_test(our_disconnect),
		cmocka_unit_test(bad_configs),
	};

	return cmocka_run_group_tests_name("lmp_conn", tests, NULL, NULL);
}
