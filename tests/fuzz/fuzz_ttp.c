/*
 * fuzz_ttp.c: the TinyTP connect PDU parser (accepted PDUs rebuild to an
 * equal meaning), then a TinyTP connection fed arbitrary data PDUs
 * (header byte + segment, a length byte before each) with a reader that
 * sometimes reads: reassembly and credit must stay within bounds.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "irlmp.h"
#include "ttp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct reader {
	struct ttp *t;
	bool reading;
};

static int lap_request(void *ctx, const struct irlap_request *req)
{
	(void)ctx;
	(void)req;
	return 0;
}

static void on_ttp(void *ctx, const struct ttp_event *ev)
{
	struct reader *r = ctx;

	if (ev->type == TTP_EV_CONNECTED)
		r->t = ev->ttp;
	else if (ev->type == TTP_EV_DISCONNECTED)
		r->t = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct irlmp_ops ops = { lap_request };
	struct ttp_connect_pdu p, p2;
	uint8_t buf[512];
	struct irlmp_config cfg;
	struct ttp_config tc;
	struct irlmp *lm;
	struct ttp_listener *tl;
	struct reader r = { 0 };
	struct qos_result q = { .tx_data_size = 64 };
	struct irlap_event ev = { .type = IRLAP_EV_CONNECT_CONF, .qos = &q, .daddr = 1 };
	static const uint8_t conn[] = { 0x90, 0x11, 0x01, 0x00, 0x83, 0x04, 0x01, 0x02, 0x01, 0x00 };
	/* odd first byte: a stream listener and a Connect without SAR */
	static const uint8_t conn_stream[] = { 0x90, 0x11, 0x01, 0x00, 0x04 };
	bool stream = size && (data[0] & 1);
	struct cursor c;

	if (ttp_connect_parse(data, size, &p) == 0) {
		size_t n = ttp_connect_build(buf, sizeof(buf), &p);
		if (n && (ttp_connect_parse(buf, n, &p2) != 0 || p2.credit != p.credit ||
			  p2.has_max_sdu != p.has_max_sdu || p2.len != p.len ||
			  (p.max_sdu <= 0xffff && p2.max_sdu != p.max_sdu)))
			abort();
	}

	irlmp_config_defaults(&cfg);
	ttp_config_defaults(&tc);
	tc.max_sdu = 300;
	tc.rx_credit = 4;
	tc.mode = stream ? TTP_MODE_STREAM : TTP_MODE_SAR;
	lm = irlmp_new(&cfg, &ops, NULL);
	tl = ttp_listen(lm, 0x10, &tc, on_ttp, &r);
	if (!lm || !tl)
		abort();
	irlmp_lap_event(lm, &ev, 0);
	ev.type = IRLAP_EV_DATA;
	ev.data = stream ? conn_stream : conn;
	ev.len = stream ? sizeof(conn_stream) : sizeof(conn);
	irlmp_lap_event(lm, &ev, 0);
	if (!r.t || ttp_mode(r.t) != tc.mode)
		abort();
	/* the confirm: the credit byte alone on a stream */
	if (irlmp_pull(lm, buf, sizeof(buf)) != (stream ? 5u : 10u))
		abort();
	cursor_init(&c, data, size);
	for (;;) {
		uint8_t len, pdu[260];
		const uint8_t *seg;
		if (!cursor_u8(&c, &len) || !cursor_view(&c, len & 0x7f, &seg))
			break;
		pdu[0] = 0x10;
		pdu[1] = 0x11;
		memcpy(pdu + 2, seg, len & 0x7f);
		ev.data = pdu;
		ev.len = 2 + (len & 0x7f);
		irlmp_lap_event(lm, &ev, 0);
		if (!r.t)
			break;
		if (len & 0x80) {
			long n = ttp_recv(r.t, buf, sizeof(buf));
			if (n < 0 || n > 300)
				abort();
			if (n > 0)
				ttp_send(r.t, buf, (size_t)n > 60 ? 60 : (size_t)n);
		}
		if (ttp_get_stats(r.t)->rx_bytes_max > 4 * 300)
			abort();
		while (irlmp_pull(lm, buf, 64) > 0)
			;
		/* deferred calls (TinyTP's writable event) */
		if (irlmp_deadline(lm) == 0)
			irlmp_tick(lm, 0);
		if (!r.t)
			break;
	}
	if (r.t)
		ttp_disconnect(r.t);
	ttp_listener_free(tl);
	irlmp_free(lm);
	return 0;
}
