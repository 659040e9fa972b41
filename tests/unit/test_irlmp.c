/*
 * test_irlmp.c: IrLMP, IAS and TinyTP without IrLAP: the digest's byte
 * vectors (11.4-11.6), the reference Linux capture's IAS and TinyTP
 * frames, and two IrLMP instances joined back to back (each one's
 * pull() feeding the other's IrLAP data events) for credits, SAR limits,
 * a peer that grants no credit, refusals and disconnects.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ias.h"
#include "irlap_frame.h"
#include "irlmp.h"
#include "pcap.h"
#include "pcap_file.h"
#include "ttp.h"
#include "test_support.h"

/* ---- vectors ------------------------------------------------------------ */

static void lmp_vectors(void **state)
{
	static const uint8_t conn[] = { 0x80, 0x10, 0x01, 0x00 };
	static const uint8_t conf[] = { 0x90, 0x00, 0x81, 0x00 };
	static const uint8_t disc[] = { 0x80, 0x10, 0x02, 0x01 };
	static const uint8_t ttpconn[] = { 0x92, 0x11, 0x01, 0x00, 0x90, 0x04, 0x01, 0x02, 0xff, 0xff };
	static const uint8_t data[] = { 0x12, 0x11, 0x00, 0xff, 0x03 };
	struct irlmp_pdu p;
	uint8_t buf[64];

	(void)state;
	assert_int_equal(irlmp_pdu_parse(conn, sizeof(conn), &p), 0);
	assert_true(p.control);
	assert_int_equal(p.dlsap, 0x00);
	assert_int_equal(p.slsap, 0x10);
	assert_int_equal(p.opcode, IRLMP_OP_CONNECT);
	assert_int_equal(p.len, 0);
	assert_int_equal(irlmp_pdu_build(buf, sizeof(buf), &p), sizeof(conn));
	assert_memory_equal(buf, conn, sizeof(conn));

	assert_int_equal(irlmp_pdu_parse(conf, sizeof(conf), &p), 0);
	assert_int_equal(p.dlsap, 0x10);
	assert_int_equal(p.slsap, 0x00);
	assert_int_equal(p.opcode, IRLMP_OP_CONNECT_CONF);

	assert_int_equal(irlmp_pdu_parse(disc, sizeof(disc), &p), 0);
	assert_int_equal(p.opcode, IRLMP_OP_DISCONNECT);
	assert_int_equal(p.param, IRLMP_REASON_USER);
	assert_int_equal(irlmp_pdu_build(buf, sizeof(buf), &p), sizeof(disc));
	assert_memory_equal(buf, disc, sizeof(disc));

	assert_int_equal(irlmp_pdu_parse(ttpconn, sizeof(ttpconn), &p), 0);
	assert_int_equal(p.dlsap, 0x12);
	assert_int_equal(p.slsap, 0x11);
	assert_int_equal(p.len, 6);
	assert_int_equal(irlmp_pdu_build(buf, sizeof(buf), &p), sizeof(ttpconn));
	assert_memory_equal(buf, ttpconn, sizeof(ttpconn));

	assert_int_equal(irlmp_pdu_parse(data, sizeof(data), &p), 0);
	assert_false(p.control);
	assert_int_equal(p.dlsap, 0x12);
	assert_int_equal(p.len, 3);

	/* malformed */
	assert_int_equal(irlmp_pdu_parse(conn, 1, &p), -EINVAL);
	assert_int_equal(irlmp_pdu_parse(conn, 3, &p), -EINVAL);
	assert_int_equal(irlmp_pdu_parse((const uint8_t[]){ 0x80, 0x90, 0x01, 0 }, 4, &p), -EINVAL);
	assert_int_equal(irlmp_pdu_parse((const uint8_t[]){ 0x80, 0x10, 0x07, 0 }, 4, &p), -EINVAL);
	assert_int_equal(irlmp_pdu_parse((const uint8_t[]){ 0x80, 0x10, 0x03, 0 }, 4, &p), -EINVAL);
	assert_int_equal(irlmp_pdu_parse((const uint8_t[]){ 0x80, 0x10, 0x03, 0, 1 }, 5, &p), 0);
}

static const uint8_t ias_req_irnet[] = {
	0x84, 0x07, 0x49, 0x72, 0x4E, 0x65, 0x74, 0x76, 0x31, 0x13, 0x49, 0x72, 0x44, 0x41, 0x3A,
	0x54, 0x69, 0x6E, 0x79, 0x54, 0x50, 0x3A, 0x4C, 0x73, 0x61, 0x70, 0x53, 0x65, 0x6C,
};
static const uint8_t ias_resp_int[] = { 0x84, 0x00, 0x00, 0x01, 0x12, 0x34, 0x01, 0x00, 0x00,
					0x00, 0x12 };
static const uint8_t ias_resp_noclass[] = { 0x84, 0x01, 0x00, 0x01, 0x12, 0x35, 0x00 };
static const uint8_t ias_req_ircomm[] = {
	0x84, 0x0B, 0x49, 0x72, 0x44, 0x41, 0x3A, 0x49, 0x72, 0x43, 0x4F, 0x4D, 0x4D, 0x0A,
	0x50, 0x61, 0x72, 0x61, 0x6D, 0x65, 0x74, 0x65, 0x72, 0x73,
};
static const uint8_t ias_resp_octets[] = { 0x84, 0x00, 0x00, 0x01, 0x00, 0x04, 0x02, 0x00, 0x06,
					   0x00, 0x01, 0x06, 0x01, 0x01, 0x01 };

static void ias_vectors(void **state)
{
	struct ias_request rq;
	struct ias_response rs;
	uint8_t buf[128];

	(void)state;
	assert_int_equal(ias_request_build(buf, sizeof(buf), "IrNetv1", "IrDA:TinyTP:LsapSel"),
			 sizeof(ias_req_irnet));
	assert_memory_equal(buf, ias_req_irnet, sizeof(ias_req_irnet));
	assert_int_equal(ias_request_build(buf, sizeof(buf), "IrDA:IrCOMM", "Parameters"),
			 sizeof(ias_req_ircomm));
	assert_memory_equal(buf, ias_req_ircomm, sizeof(ias_req_ircomm));
	assert_int_equal(ias_request_parse(ias_req_irnet, sizeof(ias_req_irnet), &rq), 0);
	assert_int_equal(rq.class_len, 7);
	assert_memory_equal(rq.class_name, "IrNetv1", 7);
	assert_int_equal(rq.attr_len, 19);

	assert_int_equal(ias_response_parse(ias_resp_int, sizeof(ias_resp_int), &rs), 0);
	assert_int_equal(rs.ret, IAS_SUCCESS);
	assert_int_equal(rs.count, 1);
	assert_int_equal(rs.object_id, 0x1234);
	assert_int_equal(rs.value.type, IAS_INTEGER);
	assert_int_equal(rs.value.integer, 0x12);
	assert_int_equal(ias_lsap_sel(&rs), 0x12);
	rs.value.integer = 0x70;
	assert_int_equal(ias_lsap_sel(&rs), -EINVAL);
	rs.value.integer = 0;
	assert_int_equal(ias_lsap_sel(&rs), -EINVAL);

	assert_int_equal(ias_response_parse(ias_resp_noclass, sizeof(ias_resp_noclass), &rs), 0);
	assert_int_equal(rs.ret, IAS_NO_SUCH_CLASS);
	assert_int_equal(ias_lsap_sel(&rs), -EINVAL);
	assert_int_equal(ias_response_parse(ias_resp_noclass, 2, &rs), 0); /* without the list */
	assert_int_equal(rs.ret, IAS_NO_SUCH_CLASS);

	assert_int_equal(ias_response_parse(ias_resp_octets, sizeof(ias_resp_octets), &rs), 0);
	assert_int_equal(rs.object_id, 4);
	assert_int_equal(rs.value.type, IAS_OCTETS);
	assert_int_equal(ias_lsap_sel(&rs), -EINVAL);
	assert_int_equal(rs.value.len, 6);
	assert_memory_equal(rs.value.bytes, ias_resp_octets + 9, 6);

	/* strings, several entries, and every way to be malformed */
	static const uint8_t str2[] = { 0x84, 0, 0, 2, 0, 1, 3, 0, 2, 'h', 'i', 0, 2, 0 };
	assert_int_equal(ias_response_parse(str2, sizeof(str2), &rs), 0);
	assert_int_equal(rs.count, 2);
	assert_int_equal(rs.value.type, IAS_STRING);
	assert_int_equal(rs.value.len, 2);
	assert_memory_equal(rs.value.bytes, "hi", 2);
	for (size_t n = 2; n < sizeof(str2); n++)
		assert_int_equal(ias_response_parse(str2, n, &rs), -EINVAL);
	assert_int_equal(ias_response_parse(ias_resp_int, 2, &rs), -EINVAL); /* success, no list */
	static const uint8_t badtype[] = { 0x84, 0, 0, 1, 0, 1, 7 };
	assert_int_equal(ias_response_parse(badtype, sizeof(badtype), &rs), -EINVAL);
	static const uint8_t trailing[] = { 0x84, 1, 0, 1, 0, 1, 0, 9 };
	assert_int_equal(ias_response_parse(trailing, sizeof(trailing), &rs), -EINVAL);
	static const uint8_t longoct[] = { 0x84, 0, 0, 1, 0, 1, 2, 0x04, 0x01 };
	assert_int_equal(ias_response_parse(longoct, sizeof(longoct), &rs), -EINVAL);
	assert_int_equal(ias_request_parse(ias_req_irnet, sizeof(ias_req_irnet) - 1, &rq), -EINVAL);
	assert_int_equal(ias_request_parse((const uint8_t[]){ 0x83 }, 1, &rq), -EOPNOTSUPP);
}

static void ias_server_answers(void **state)
{
	struct ias_db *db = ias_db_new("irnet");
	struct ias_value v = { .type = IAS_INTEGER, .integer = 0x12 };
	struct ias_response rs;
	uint8_t buf[256];
	size_t n;
	int id;

	(void)state;
	assert_non_null(db);
	id = ias_db_add_object(db, "IrNetv1");
	assert_true(id > 0);
	assert_int_equal(ias_db_add_attr(db, id, "IrDA:TinyTP:LsapSel", &v), 0);
	assert_int_equal(ias_db_add_attr(db, id, "IrDA:TinyTP:LsapSel", &v), -EEXIST);

	n = ias_db_answer(db, ias_req_irnet, sizeof(ias_req_irnet), buf, sizeof(buf));
	assert_int_equal(ias_response_parse(buf, n, &rs), 0);
	assert_int_equal(rs.ret, IAS_SUCCESS);
	assert_int_equal(rs.object_id, id);
	assert_int_equal(rs.value.integer, 0x12);

	/* unknown class: exactly the Linux form but our object id 0x1235 */
	n = ias_db_answer(db, ias_req_ircomm, sizeof(ias_req_ircomm), buf, sizeof(buf));
	assert_int_equal(n, sizeof(ias_resp_noclass));
	assert_memory_equal(buf, ias_resp_noclass, n);

	uint8_t rq[64];
	size_t rl = ias_request_build(rq, sizeof(rq), "Device", "Nope");
	n = ias_db_answer(db, rq, rl, buf, sizeof(buf));
	assert_int_equal(ias_response_parse(buf, n, &rs), 0);
	assert_int_equal(rs.ret, IAS_NO_SUCH_ATTRIBUTE);
	assert_int_equal(rs.value.type, IAS_MISSING);

	rl = ias_request_build(rq, sizeof(rq), "Device", "DeviceName");
	n = ias_db_answer(db, rq, rl, buf, sizeof(buf));
	assert_int_equal(ias_response_parse(buf, n, &rs), 0);
	assert_int_equal(rs.value.type, IAS_STRING);
	assert_int_equal(rs.value.charset, 0);
	assert_memory_equal(rs.value.bytes, "irnet", 5);

	rl = ias_request_build(rq, sizeof(rq), "Device", "IrLMPSupport");
	n = ias_db_answer(db, rq, rl, buf, sizeof(buf));
	assert_int_equal(ias_response_parse(buf, n, &rs), 0);
	assert_int_equal(rs.value.type, IAS_OCTETS);
	assert_memory_equal(rs.value.bytes, "\x01\x00\x00", 3);

	/* unsupported opcode: 0xFF */
	n = ias_db_answer(db, (const uint8_t[]){ 0x82 }, 1, buf, sizeof(buf));
	assert_int_equal(n, 2);
	assert_int_equal(buf[0], 0x82);
	assert_int_equal(buf[1], IAS_UNSUPPORTED);

	/* two objects of one class: two entries */
	int id2 = ias_db_add_object(db, "IrNetv1");
	v.integer = 0x13;
	assert_int_equal(ias_db_add_attr(db, id2, "IrDA:TinyTP:LsapSel", &v), 0);
	n = ias_db_answer(db, ias_req_irnet, sizeof(ias_req_irnet), buf, sizeof(buf));
	assert_int_equal(ias_response_parse(buf, n, &rs), 0);
	assert_int_equal(rs.count, 2);
	assert_int_equal(ias_db_remove_object(db, id), 0);
	assert_int_equal(ias_db_remove_object(db, id), -ENOENT);
	n = ias_db_answer(db, ias_req_irnet, sizeof(ias_req_irnet), buf, sizeof(buf));
	assert_int_equal(ias_response_parse(buf, n, &rs), 0);
	assert_int_equal(rs.count, 1);
	assert_int_equal(rs.value.integer, 0x13);
	ias_db_free(db);
}

static void ttp_vectors(void **state)
{
	static const uint8_t c1[] = { 0x90, 0x04, 0x01, 0x02, 0xff, 0xff };
	static const uint8_t c2[] = { 0x90, 0x04, 0x01, 0x02, 0x08, 0x00 };
	static const uint8_t c3[] = { 0x10 };
	struct ttp_connect_pdu p;
	uint8_t buf[32];

	(void)state;
	assert_int_equal(ttp_connect_parse(c1, sizeof(c1), &p), 0);
	assert_int_equal(p.credit, 16);
	assert_true(p.has_max_sdu);
	assert_int_equal(p.max_sdu, 0xffff);
	assert_int_equal(ttp_connect_build(buf, sizeof(buf), &p), sizeof(c1));
	assert_memory_equal(buf, c1, sizeof(c1));
	p.max_sdu = UINT32_MAX; /* "unbounded" goes out as FF FF, like Linux */
	assert_int_equal(ttp_connect_build(buf, sizeof(buf), &p), sizeof(c1));
	assert_memory_equal(buf, c1, sizeof(c1));
	assert_int_equal(ttp_connect_parse(c2, sizeof(c2), &p), 0);
	assert_int_equal(p.max_sdu, 2048);
	assert_int_equal(ttp_connect_build(buf, sizeof(buf), &p), sizeof(c2));
	assert_memory_equal(buf, c2, sizeof(c2));
	assert_int_equal(ttp_connect_parse(c3, sizeof(c3), &p), 0);
	assert_false(p.has_max_sdu);
	assert_int_equal(p.credit, 16);
	assert_int_equal(ttp_connect_build(buf, sizeof(buf), &p), 1);
	assert_int_equal(buf[0], 0x10);

	/* PL 1..4, unknown PIs skipped, user data after the list */
	static const uint8_t c4[] = { 0x85, 0x08, 0x09, 0x01, 0x00, 0x01, 0x03, 0x01, 0x00, 0x00, 'u' };
	assert_int_equal(ttp_connect_parse(c4, sizeof(c4), &p), 0);
	assert_int_equal(p.credit, 5);
	assert_int_equal(p.max_sdu, 0x10000);
	assert_int_equal(p.len, 1);
	assert_int_equal(p.data[0], 'u');
	assert_int_equal(ttp_connect_build(buf, sizeof(buf), &p), 9);
	assert_memory_equal(buf, "\x85\x06\x01\x04\x00\x01\x00\x00u", 9);
	/* malformed */
	assert_int_equal(ttp_connect_parse(c1, 5, &p), -EINVAL);
	assert_int_equal(ttp_connect_parse((const uint8_t[]){ 0x90, 0x02, 0x01, 0x00 }, 4, &p), -EINVAL);
	assert_int_equal(ttp_connect_parse((const uint8_t[]){ 0x90, 0x03, 0x01, 0x05, 0 }, 5, &p), -EINVAL);
	assert_int_equal(ttp_connect_parse((const uint8_t[]){ 0x90 }, 1, &p), -EINVAL);
	assert_int_equal(ttp_connect_parse(NULL, 0, &p), -EINVAL);
}

/* ---- the reference capture -------------------------------------------- */

static void capture_decodes(void **state)
{
	uint8_t *data;
	size_t len;
	struct pcap_reader pr;
	struct pcap_record r;
	int rc;
	bool saw_req = false, saw_resp = false, saw_ttp_conn = false, saw_ttp_conf = false;
	unsigned lmp_frames = 0, sdus = 0;
	uint8_t ias_peer = 0xff; /* (lsel, rsel) of the IAS connection */

	(void)state;
	assert_int_equal(load_reference_capture(&data, &len), 0);
	assert_int_equal(pcap_reader_init(&pr, data, len), 0);
	while ((rc = pcap_reader_next(&pr, &r)) == 1) {
		struct irlap_frame f;
		struct irlmp_pdu p;

		if (irlap_frame_parse(r.frame, r.frame_len, &f) != 0 || f.type != IRLAP_F_I)
			continue;
		assert_int_equal(irlmp_pdu_parse(f.info, f.info_len, &p), 0);
		lmp_frames++;
		if (p.control && p.opcode == IRLMP_OP_CONNECT && p.dlsap == 0)
			ias_peer = p.slsap;
		if (!p.control && p.dlsap == 0 && p.slsap == ias_peer) {
			struct ias_request rq;
			assert_int_equal(ias_request_parse(p.data, p.len, &rq), 0);
			assert_memory_equal(rq.class_name, "IrNetv1", 7);
			saw_req = true;
		} else if (!p.control && p.slsap == 0 && p.dlsap == ias_peer) {
			struct ias_response rs;
			assert_int_equal(ias_response_parse(p.data, p.len, &rs), 0);
			assert_int_equal(rs.ret, IAS_SUCCESS);
			assert_int_equal(rs.value.type, IAS_INTEGER);
			assert_int_equal(rs.value.integer, 16);
			saw_resp = true;
		} else if (p.control && p.dlsap != 0 && p.slsap != 0 &&
			   (p.opcode == IRLMP_OP_CONNECT || p.opcode == IRLMP_OP_CONNECT_CONF)) {
			struct ttp_connect_pdu t;
			assert_int_equal(ttp_connect_parse(p.data, p.len, &t), 0);
			assert_true(t.credit > 0);
			assert_true(t.has_max_sdu);
			if (p.opcode == IRLMP_OP_CONNECT)
				saw_ttp_conn = true;
			else
				saw_ttp_conf = true;
		} else if (!p.control && p.len >= 1 && (p.dlsap == 16 || p.dlsap == 19)) {
			if (!(p.data[0] & 0x80) && p.len > 1)
				sdus++;
		}
	}
	assert_int_equal(rc, 0);
	free(data);
	assert_true(lmp_frames > 0);
	assert_true(saw_req && saw_resp && saw_ttp_conn && saw_ttp_conf);
	assert_true(sdus > 0);
	print_message("capture: %u LM-PDUs, %u TTP SDUs\n", lmp_frames, sdus);
}

/* ---- two IrLMPs back to back ------------------------------------------ */

#define DA 0x11111111u
#define DB 0x22222222u

struct end {
	struct irlmp *lm;
	bool link_req, link_up, disc_req;
	unsigned ready;
	struct ttp *ttp;
	bool ttp_connected, ttp_disconnected;
	enum irlmp_reason reason;
	unsigned readable, writable;
	bool auto_read;
	uint8_t rx[70000];
	size_t rx_len;
	unsigned rx_sdus;
};

struct pair {
	struct end e[2];
	size_t data_size;
	uint64_t now;
	unsigned queries;
	int ias_ret;
	struct ias_response ias_resp;
	uint8_t ias_copy[64];
	struct ttp_listener *listener;
};

static int lap_req(void *ctx, const struct irlap_request *req)
{
	struct end *e = ctx;

	if (req->type == IRLAP_REQ_CONNECT)
		e->link_req = true;
	else if (req->type == IRLAP_REQ_DATA_READY)
		e->ready++;
	else if (req->type == IRLAP_REQ_DISCONNECT)
		e->disc_req = true;
	return 0;
}

static const struct irlmp_ops lap_ops = { lap_req };

static void pair_link_up(struct pair *p)
{
	struct qos_result q = { .tx_data_size = (uint32_t)p->data_size };
	struct irlap_event ev = { .type = IRLAP_EV_CONNECT_CONF, .qos = &q };

	for (int i = 0; i < 2; i++) {
		ev.daddr = i ? DA : DB;
		irlmp_lap_event(p->e[i].lm, &ev, p->now);
		p->e[i].link_up = true;
	}
}

/* Moves PDUs both ways until neither side has anything to send. */
static unsigned pump(struct pair *p)
{
	uint8_t buf[4096];
	unsigned moved = 0;
	bool any = true;

	while (any) {
		any = false;
		for (int i = 0; i < 2; i++) {
			size_t n;
			if (!p->e[i].link_up)
				continue;
			n = irlmp_pull(p->e[i].lm, buf, p->data_size);
			if (n) {
				struct irlap_event ev = { .type = IRLAP_EV_DATA, .data = buf, .len = n };
				assert_true(n <= p->data_size);
				irlmp_lap_event(p->e[!i].lm, &ev, p->now);
				any = true;
				moved++;
			}
		}
	}
	return moved;
}

static void ttp_ev(void *ctx, const struct ttp_event *ev)
{
	struct end *e = ctx;

	switch (ev->type) {
	case TTP_EV_CONNECTED:
		e->ttp = ev->ttp;
		e->ttp_connected = true;
		break;
	case TTP_EV_READABLE:
		e->readable++;
		while (e->auto_read) {
			long n = ttp_recv(ev->ttp, e->rx + e->rx_len, sizeof(e->rx) - e->rx_len);
			if (n <= 0)
				break;
			e->rx_len += (size_t)n;
			e->rx_sdus++;
		}
		break;
	case TTP_EV_WRITABLE:
		e->writable++;
		break;
	case TTP_EV_DISCONNECTED:
		e->ttp = NULL;
		e->ttp_connected = false;
		e->ttp_disconnected = true;
		e->reason = ev->reason;
		break;
	}
}

static struct pair *pair_new(size_t data_size, const struct ttp_config *srv_cfg)
{
	struct pair *p = calloc(1, sizeof(*p));
	struct irlmp_config cfg;

	irlmp_config_defaults(&cfg);
	p->data_size = data_size;
	for (int i = 0; i < 2; i++) {
		p->e[i].lm = irlmp_new(&cfg, &lap_ops, &p->e[i]);
		assert_non_null(p->e[i].lm);
	}
	if (srv_cfg) {
		p->listener = ttp_listen(p->e[1].lm, 0x20, srv_cfg, ttp_ev, &p->e[1]);
		assert_non_null(p->listener);
	}
	return p;
}

static void pair_free(struct pair *p)
{
	for (int i = 0; i < 2; i++)
		if (p->e[i].ttp)
			ttp_disconnect(p->e[i].ttp);
	ttp_listener_free(p->listener);
	for (int i = 0; i < 2; i++)
		irlmp_free(p->e[i].lm);
	free(p);
}

static struct pair *ttp_pair(size_t data_size, const struct ttp_config *ccfg,
			     const struct ttp_config *scfg)
{
	struct pair *p = pair_new(data_size, scfg);
	struct ttp *t = ttp_connect(p->e[0].lm, DB, 0x20, ccfg, ttp_ev, &p->e[0], 0);

	assert_non_null(t);
	assert_true(p->e[0].link_req);
	assert_int_equal(irlmp_get_lap_state(p->e[0].lm), IRLMP_LAP_U_CONNECT);
	pair_link_up(p);
	pump(p);
	assert_true(p->e[0].ttp_connected);
	assert_true(p->e[1].ttp_connected);
	assert_ptr_equal(p->e[0].ttp, t);
	return p;
}

static void fill(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

static void credits_stall_and_resume(void **state)
{
	struct ttp_config c;
	struct pair *p;
	uint8_t sdu[100];

	(void)state;
	ttp_config_defaults(&c);
	c.rx_credit = 3;
	c.tx_queue_max = 10;
	p = ttp_pair(64, &c, &c);
	assert_int_equal(ttp_send_credit(p->e[0].ttp), 3);
	/* 6 SDUs of 50 bytes = 6 PDUs: 3 go, then the sender stalls */
	for (unsigned i = 0; i < 6; i++) {
		fill(sdu, 50, i);
		assert_int_equal(ttp_send(p->e[0].ttp, sdu, 50), 0);
	}
	pump(p);
	assert_int_equal(p->e[1].readable, 3);
	assert_int_equal(ttp_send_credit(p->e[0].ttp), 0);
	assert_int_equal(ttp_tx_pending(p->e[0].ttp), 3);
	assert_true(ttp_get_stats(p->e[0].ttp)->stalls >= 1);
	/* the reader takes its time: nothing moves until it reads */
	assert_int_equal(pump(p), 0);
	/* reading one SDU is not enough to cross the threshold (3/2 = 1) */
	uint8_t out[100];
	assert_int_equal(ttp_recv(p->e[1].ttp, out, sizeof(out)), 50);
	fill(sdu, 50, 0);
	assert_memory_equal(out, sdu, 50);
	/* remote credit 0 <= 1: a dataless PDU returns the credit */
	pump(p);
	assert_int_equal(ttp_get_stats(p->e[1].ttp)->dataless_tx, 1);
	assert_int_equal(p->e[1].readable, 4);
	/* reader drains: the rest follows */
	p->e[1].auto_read = true;
	for (;;) {
		long n = ttp_recv(p->e[1].ttp, out, sizeof(out));
		if (n <= 0)
			break;
		pump(p);
	}
	pump(p);
	assert_int_equal(ttp_tx_pending(p->e[0].ttp), 0);
	assert_int_equal(ttp_get_stats(p->e[1].ttp)->sdus_rx, 6);
	/* data from the other side carries credit back in its header too */
	assert_int_equal(ttp_send(p->e[1].ttp, sdu, 10), 0);
	pump(p);
	assert_true(ttp_get_stats(p->e[1].ttp)->rx_bytes_max <= 3 * 50);
	pair_free(p);
}

static void sar_limits(void **state)
{
	struct ttp_config c, s;
	struct pair *p;
	static uint8_t sdu[5001];

	(void)state;
	ttp_config_defaults(&c);
	ttp_config_defaults(&s);
	s.max_sdu = 5000;
	p = ttp_pair(64, &c, &s);
	p->e[1].auto_read = true;
	assert_int_equal(ttp_peer_max_sdu(p->e[0].ttp), 5000);
	fill(sdu, sizeof(sdu), 3);
	assert_int_equal(ttp_send(p->e[0].ttp, sdu, 5001), -EMSGSIZE);
	assert_int_equal(ttp_send(p->e[0].ttp, sdu, 5000), 0);
	for (int i = 0; i < 200 && ttp_tx_pending(p->e[0].ttp); i++)
		pump(p);
	assert_int_equal(p->e[1].rx_sdus, 1);
	assert_int_equal(p->e[1].rx_len, 5000);
	assert_memory_equal(p->e[1].rx, sdu, 5000);
	/* 5000 bytes in 61-byte segments: 82 PDUs */
	assert_int_equal(ttp_get_stats(p->e[1].ttp)->pdus_rx, 82 + 0);
	/* server side: client announced 4096 */
	assert_int_equal(ttp_send(p->e[1].ttp, sdu, 4097), -EMSGSIZE);
	assert_int_equal(ttp_send(p->e[1].ttp, sdu, 4096), 0);
	p->e[0].auto_read = true;
	for (int i = 0; i < 200 && ttp_tx_pending(p->e[1].ttp); i++)
		pump(p);
	assert_int_equal(p->e[0].rx_len, 4096);
	assert_memory_equal(p->e[0].rx, sdu, 4096);
	pair_free(p);

	/* without SAR: an SDU is one PDU (data size 64 - 2 - 1 = 61) */
	c.mode = TTP_MODE_STREAM;
	s.mode = TTP_MODE_STREAM;
	p = ttp_pair(64, &c, &s);
	p->e[1].auto_read = true;
	assert_int_equal(ttp_peer_max_sdu(p->e[0].ttp), 0);
	assert_int_equal(ttp_send(p->e[0].ttp, sdu, 62), -EMSGSIZE);
	assert_int_equal(ttp_send(p->e[0].ttp, sdu, 61), 0);
	pump(p);
	assert_int_equal(p->e[1].rx_len, 61);
	pair_free(p);
}

/* A peer that ignores our MaxSduSize gets its SDU dropped, its credit
 * returned; the next SDU arrives. */
static void oversize_from_peer_dropped(void **state)
{
	struct ttp_config c, s;
	struct pair *p;
	uint8_t pdu[64] = { 0 };
	struct irlap_event ev = { .type = IRLAP_EV_DATA, .data = pdu };
	uint8_t lsel;

	(void)state;
	ttp_config_defaults(&c);
	ttp_config_defaults(&s);
	s.max_sdu = 100;
	p = ttp_pair(64, &c, &s);
	p->e[1].auto_read = true;
	assert_int_equal(ttp_send(p->e[0].ttp, pdu, 101), -EMSGSIZE);
	lsel = irlmp_conn_lsel(ttp_lmp_conn(p->e[0].ttp));
	pdu[0] = 0x20;
	pdu[1] = lsel;
	/* 61 + 61 bytes with M, then 1: 123 > 100 */
	for (int i = 0; i < 3; i++) {
		pdu[2] = i < 2 ? 0x80 : 0x00;
		ev.len = i < 2 ? 64 : 4;
		irlmp_lap_event(p->e[1].lm, &ev, 0);
	}
	assert_int_equal(ttp_get_stats(p->e[1].ttp)->oversize_dropped, 1);
	assert_int_equal(p->e[1].rx_sdus, 0);
	/* exactly 100 in two segments passes */
	pdu[2] = 0x80;
	ev.len = 64;
	irlmp_lap_event(p->e[1].lm, &ev, 0);
	pdu[2] = 0x00;
	ev.len = 3 + 39;
	irlmp_lap_event(p->e[1].lm, &ev, 0);
	assert_int_equal(p->e[1].rx_sdus, 1);
	assert_int_equal(p->e[1].rx_len, 100);
	/* all five PDUs' credit goes back with the server's next data */
	assert_int_equal(ttp_send(p->e[1].ttp, pdu, 10), 0);
	p->e[0].auto_read = true;
	pump(p);
	assert_int_equal(p->e[0].rx_len, 10);
	assert_int_equal(ttp_send_credit(p->e[0].ttp), 16 + 5);
	pair_free(p);
}

static void zero_credit_peer(void **state)
{
	struct ttp_config c;
	struct pair *p = pair_new(64, NULL);
	struct ttp *t;
	uint8_t buf[64], sdu[40] = { 0 };
	struct irlmp_pdu pdu;
	size_t n;

	(void)state;
	ttp_config_defaults(&c);
	c.tx_queue_max = 4;
	/* the peer is raw IrLMP: we answer the TTP connect by hand with credit 0 */
	t = ttp_connect(p->e[0].lm, DB, 0x30, &c, ttp_ev, &p->e[0], 0);
	assert_non_null(t);
	pair_link_up(p);
	n = irlmp_pull(p->e[0].lm, buf, sizeof(buf));
	assert_int_equal(irlmp_pdu_parse(buf, n, &pdu), 0);
	assert_int_equal(pdu.opcode, IRLMP_OP_CONNECT);
	uint8_t conf[] = { 0x80 | pdu.slsap, 0x30, 0x81, 0x00, 0x80, 0x04, 0x01, 0x02, 0x08, 0x00 };
	struct irlap_event ev = { .type = IRLAP_EV_DATA, .data = conf, .len = sizeof(conf) };
	irlmp_lap_event(p->e[0].lm, &ev, 0);
	assert_true(p->e[0].ttp_connected);
	assert_int_equal(ttp_send_credit(t), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ttp_send(t, sdu, sizeof(sdu)), 0);
	assert_int_equal(ttp_send(t, sdu, sizeof(sdu)), -ENOBUFS);
	for (int i = 0; i < 50; i++)
		assert_int_equal(irlmp_pull(p->e[0].lm, buf, sizeof(buf)), 0);
	assert_int_equal(ttp_tx_pending(t), 4);
	assert_int_equal(ttp_get_stats(t)->stalls, 1);
	/* a dataless credit of 2 lets two through */
	uint8_t credit[] = { pdu.slsap, 0x30, 0x02 };
	ev.data = credit;
	ev.len = 3;
	irlmp_lap_event(p->e[0].lm, &ev, 0);
	assert_true(irlmp_pull(p->e[0].lm, buf, sizeof(buf)) > 0);
	assert_true(irlmp_pull(p->e[0].lm, buf, sizeof(buf)) > 0);
	assert_int_equal(irlmp_pull(p->e[0].lm, buf, sizeof(buf)), 0);
	assert_int_equal(ttp_tx_pending(t), 2);
	/* The queue is down to half after the -ENOBUFS: writable, but not
	 * from inside the pull; IrLMP's deadline is due at once, and the
	 * tick says it, once. */
	assert_int_equal(p->e[0].writable, 0);
	assert_int_equal(irlmp_deadline(p->e[0].lm), 0);
	irlmp_tick(p->e[0].lm, 0);
	assert_int_equal(p->e[0].writable, 1);
	assert_int_equal(irlmp_deadline(p->e[0].lm), UINT64_MAX);
	irlmp_tick(p->e[0].lm, 0);
	assert_int_equal(p->e[0].writable, 1);
	/* disconnect works while stalled: one disconnect PDU goes out */
	ttp_disconnect(t);
	p->e[0].ttp = NULL;
	n = irlmp_pull(p->e[0].lm, buf, sizeof(buf));
	assert_int_equal(irlmp_pdu_parse(buf, n, &pdu), 0);
	assert_true(pdu.control);
	assert_int_equal(pdu.opcode, IRLMP_OP_DISCONNECT);
	assert_int_equal(pdu.param, IRLMP_REASON_USER);
	assert_int_equal(irlmp_count(p->e[0].lm, false), 0);
	/* the link goes after the idle time, counted from the next tick */
	assert_int_equal(irlmp_deadline(p->e[0].lm), 0);
	irlmp_tick(p->e[0].lm, 0);
	assert_int_equal(irlmp_deadline(p->e[0].lm), 2000000);
	irlmp_tick(p->e[0].lm, 1999999);
	assert_false(p->e[0].disc_req);
	irlmp_tick(p->e[0].lm, 2000000);
	assert_true(p->e[0].disc_req);
	pair_free(p);
}

static void unbound_lsap_refused(void **state)
{
	struct pair *p = pair_new(64, NULL);
	struct ttp_config c;
	struct ttp *t;

	(void)state;
	ttp_config_defaults(&c);
	t = ttp_connect(p->e[0].lm, DB, 0x42, &c, ttp_ev, &p->e[0], 0);
	assert_non_null(t);
	pair_link_up(p);
	pump(p);
	assert_true(p->e[0].ttp_disconnected);
	assert_int_equal(p->e[0].reason, IRLMP_REASON_NO_CLIENT);
	assert_int_equal(irlmp_get_stats(p->e[1].lm)->refused, 1);
	pair_free(p);
}

static int busy_lap(void *ctx, const struct irlap_request *req)
{
	(void)ctx;
	return req->type == IRLAP_REQ_CONNECT ? -EBUSY : 0;
}

static void lap_refuses_connect(void **state)
{
	static const struct irlmp_ops busy = { busy_lap };
	struct irlmp_config cfg;
	struct irlmp *lm;
	struct ttp_config c;

	(void)state;
	irlmp_config_defaults(&cfg);
	ttp_config_defaults(&c);
	lm = irlmp_new(&cfg, &busy, NULL);
	assert_null(ttp_connect(lm, DB, 0x20, &c, ttp_ev, NULL, 0));
	assert_int_equal(irlmp_get_lap_state(lm), IRLMP_LAP_STANDBY);
	assert_int_equal(irlmp_count(lm, false), 0);
	assert_int_equal(irlmp_deadline(lm), UINT64_MAX);
	irlmp_free(lm);
}

static void connect_watchdog(void **state)
{
	struct pair *p = pair_new(64, NULL);
	struct ttp_config c;

	(void)state;
	ttp_config_defaults(&c);
	assert_non_null(ttp_connect(p->e[0].lm, DB, 0x42, &c, ttp_ev, &p->e[0], 0));
	pair_link_up(p);
	/* silent peer (Linux): nothing is pumped */
	assert_int_equal(irlmp_deadline(p->e[0].lm), 5000000);
	irlmp_tick(p->e[0].lm, 5000000);
	assert_true(p->e[0].ttp_disconnected);
	assert_int_equal(p->e[0].reason, IRLMP_REASON_NO_RESPONSE);
	/* link idle from now */
	assert_int_equal(irlmp_deadline(p->e[0].lm), 7000000);
	pair_free(p);
}

static void ias_result(void *ctx, int ret, const struct ias_response *resp)
{
	struct pair *p = ctx;

	p->queries++;
	p->ias_ret = ret;
	if (resp)
		p->ias_resp = *resp;
}

static void ias_over_lmp(void **state)
{
	struct pair *p = pair_new(64, NULL);
	struct ias_db *db = ias_db_new("beta");
	struct ias_server *srv = ias_server_new(p->e[1].lm, db, NULL);
	struct ias_value v = { .type = IAS_INTEGER, .integer = 0x20 };
	int id = ias_db_add_object(db, "IrNetv1");

	(void)state;
	assert_int_equal(ias_db_add_attr(db, id, "IrDA:TinyTP:LsapSel", &v), 0);
	assert_null(ias_server_new(p->e[1].lm, db, NULL)); /* LSAP 0 taken */
	assert_non_null(ias_query_start(p->e[0].lm, DB, "IrNetv1", "IrDA:TinyTP:LsapSel",
					ias_result, p, 0));
	assert_non_null(ias_query_start(p->e[0].lm, DB, "Nope", "IrDA:TinyTP:LsapSel", ias_result,
					p, 0));
	pair_link_up(p);
	pump(p);
	assert_int_equal(p->queries, 2);
	assert_int_equal(p->ias_ret, IAS_NO_SUCH_CLASS);
	assert_int_equal(ias_server_answered(srv), 2);
	/* both LSAP connections are gone on both sides */
	assert_int_equal(irlmp_count(p->e[0].lm, false), 0);
	assert_int_equal(irlmp_count(p->e[1].lm, false), 0);
	assert_non_null(ias_query_start(p->e[0].lm, DB, "IrNetv1", "IrDA:TinyTP:LsapSel",
					ias_result, p, 0));
	pump(p);
	assert_int_equal(p->ias_ret, IAS_SUCCESS);
	assert_int_equal(p->ias_resp.value.type, IAS_INTEGER);
	assert_int_equal(p->ias_resp.value.integer, 0x20);
	/* access mode: multiplexed confirmed, exclusive unsupported */
	uint8_t am[] = { 0x80, 0x11, 0x03, 0x00, 0x01 };
	struct irlap_event ev = { .type = IRLAP_EV_DATA, .data = am, .len = sizeof(am) };
	uint8_t buf[16];
	struct irlmp_pdu pdu;
	irlmp_lap_event(p->e[1].lm, &ev, 0);
	size_t n = irlmp_pull(p->e[1].lm, buf, sizeof(buf));
	assert_int_equal(irlmp_pdu_parse(buf, n, &pdu), 0);
	assert_int_equal(pdu.opcode, IRLMP_OP_ACCESS_CONF);
	assert_int_equal(pdu.param, 0xff);
	ias_server_free(srv);
	ias_db_free(db);
	pair_free(p);
}

/* A server that accepts and never answers: the query ends after 10 s and
 * both LSAP ends are closed. */
static void ias_answer_watchdog(void **state)
{
	struct pair *p = pair_new(64, NULL);
	uint8_t buf[64];
	size_t n;
	struct irlmp_pdu pdu;

	(void)state;
	assert_non_null(ias_query_start(p->e[0].lm, DB, "IrNetv1", "IrDA:TinyTP:LsapSel",
					ias_result, p, 0));
	pair_link_up(p);
	/* the peer's IrLMP answers the connect by hand, then says nothing */
	n = irlmp_pull(p->e[0].lm, buf, sizeof(buf));
	assert_int_equal(irlmp_pdu_parse(buf, n, &pdu), 0);
	uint8_t conf[] = { 0x80 | pdu.slsap, 0x00, 0x81, 0x00 };
	struct irlap_event ev = { .type = IRLAP_EV_DATA, .data = conf, .len = sizeof(conf) };
	irlmp_lap_event(p->e[0].lm, &ev, 1000);
	n = irlmp_pull(p->e[0].lm, buf, sizeof(buf)); /* the request */
	assert_int_equal(irlmp_pdu_parse(buf, n, &pdu), 0);
	assert_false(pdu.control);
	assert_int_equal(irlmp_deadline(p->e[0].lm), 1000 + IAS_QUERY_TIMEOUT_US);
	irlmp_tick(p->e[0].lm, 1000 + IAS_QUERY_TIMEOUT_US - 1);
	assert_int_equal(p->queries, 0);
	irlmp_tick(p->e[0].lm, 1000 + IAS_QUERY_TIMEOUT_US);
	assert_int_equal(p->queries, 1);
	assert_int_equal(p->ias_ret, -ETIMEDOUT);
	n = irlmp_pull(p->e[0].lm, buf, sizeof(buf));
	assert_int_equal(irlmp_pdu_parse(buf, n, &pdu), 0);
	assert_int_equal(pdu.opcode, IRLMP_OP_DISCONNECT);
	assert_int_equal(pdu.param, IRLMP_REASON_NO_RESPONSE);
	assert_int_equal(irlmp_count(p->e[0].lm, false), 0);
	pair_free(p);
}

static void link_loss_ends_everything(void **state)
{
	struct ttp_config c;
	struct pair *p;
	struct irlap_event ev = { .type = IRLAP_EV_DISCONNECT, .reason = IRLAP_REASON_NO_RESPONSE };

	(void)state;
	ttp_config_defaults(&c);
	p = ttp_pair(64, &c, &c);
	irlmp_lap_event(p->e[0].lm, &ev, 0);
	irlmp_lap_event(p->e[1].lm, &ev, 0);
	assert_true(p->e[0].ttp_disconnected);
	assert_true(p->e[1].ttp_disconnected);
	assert_int_equal(p->e[0].reason, IRLMP_REASON_LAP_DISCONNECT);
	assert_int_equal(irlmp_get_lap_state(p->e[0].lm), IRLMP_LAP_STANDBY);
	assert_int_equal(irlmp_deadline(p->e[0].lm), UINT64_MAX);
	pair_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lmp_vectors),
		cmocka_unit_test(ias_vectors),
		cmocka_unit_test(ias_server_answers),
		cmocka_unit_test(ttp_vectors),
		cmocka_unit_test(capture_decodes),
		cmocka_unit_test(credits_stall_and_resume),
		cmocka_unit_test(sar_limits),
		cmocka_unit_test(oversize_from_peer_dropped),
		cmocka_unit_test(zero_credit_peer),
		cmocka_unit_test(unbound_lsap_refused),
		cmocka_unit_test(connect_watchdog),
		cmocka_unit_test(lap_refuses_connect),
		cmocka_unit_test(ias_over_lmp),
		cmocka_unit_test(ias_answer_watchdog),
		cmocka_unit_test(link_loss_ends_everything),
	};
	return cmocka_run_group_tests_name("irlmp", tests, NULL, NULL);
}
