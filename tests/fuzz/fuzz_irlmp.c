/*
 * fuzz_irlmp.c: the LM-PDU parser (a PDU we accept must rebuild to the
 * same bytes), then the same input cut into frames (a length byte before
 * each) fed to a multiplexer with the IAS server, a TinyTP listener and
 * a plain IrLMP listener (lmp_conn, echoing what it reads) on a live
 * link, everything it sends parsed again.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "ias.h"
#include "irlmp.h"
#include "lmp_conn.h"
#include "ttp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int lap_request(void *ctx, const struct irlap_request *req)
{
	(void)ctx;
	(void)req;
	return 0;
}

/* The plain IrLMP user: sends back what it reads (its queues bound it). */
static void on_lmp(void *ctx, const struct lmp_event *ev)
{
	uint8_t msg[256];
	long n;

	(void)ctx;
	if (ev->type == LMP_EV_READABLE || ev->type == LMP_EV_WRITABLE) {
		while ((n = lmp_recv(ev->conn, msg, sizeof(msg))) > 0)
			if (lmp_send(ev->conn, msg, (size_t)n) == -ENOBUFS)
				break;
	}
}

static void drain(struct irlmp *lm)
{
	uint8_t out[256];
	struct irlmp_pdu p;
	size_t n;
	int guard = 0;

	while ((n = irlmp_pull(lm, out, sizeof(out))) > 0) {
		if (n > sizeof(out) || irlmp_pdu_parse(out, n, &p) != 0 || ++guard > 10000)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct irlmp_ops ops = { lap_request };
	struct irlmp_pdu p;
	uint8_t buf[4096];
	struct irlmp_config cfg;
	struct irlmp *lm;
	struct ias_db *db;
	struct ias_server *srv;
	struct ttp_listener *tl;
	struct lmp_listener *ll;
	struct lmp_config lc;
	struct ttp_config tc;
	struct qos_result q = { .tx_data_size = 256 };
	struct irlap_event up = { .type = IRLAP_EV_CONNECT_CONF, .qos = &q, .daddr = 1 };
	struct cursor c;
	uint64_t now = 0;

	if (irlmp_pdu_parse(data, size, &p) == 0) {
		size_t n = irlmp_pdu_build(buf, sizeof(buf), &p);
		if (size <= sizeof(buf) && (n != size || memcmp(buf, data, size) != 0))
			abort();
	}

	irlmp_config_defaults(&cfg);
	ttp_config_defaults(&tc);
	lm = irlmp_new(&cfg, &ops, NULL);
	db = ias_db_new("fuzz");
	srv = ias_server_new(lm, db, NULL);
	tl = ttp_listen(lm, 0x10, &tc, NULL, NULL);
	lmp_config_defaults(&lc);
	ll = lmp_listen(lm, 0x11, &lc, on_lmp, NULL);
	if (!lm || !db || !srv || !tl || !ll)
		abort();
	irlmp_lap_event(lm, &up, now);
	cursor_init(&c, data, size);
	for (;;) {
		uint8_t len;
		const uint8_t *frame;
		struct irlap_event ev = { .type = IRLAP_EV_DATA };
		if (!cursor_u8(&c, &len) || !cursor_view(&c, len, &frame))
			break;
		ev.data = frame;
		ev.len = len;
		irlmp_lap_event(lm, &ev, now);
		drain(lm);
		now += 300000;
		if (irlmp_deadline(lm) <= now)
			irlmp_tick(lm, now);
	}
	ttp_listener_free(tl);
	lmp_listener_free(ll);
	ias_server_free(srv);
	ias_db_free(db);
	irlmp_free(lm);
	return 0;
}
