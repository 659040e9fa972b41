/*
 * fuzz_irlap_frame.c: the IrLAP frame classifier and every I-field
 * parser (XID, SNRM, UA, FRMR, TEST) plus the QoS list parser, over
 * arbitrary bytes.  Parsed results are rebuilt and parsed again: a frame
 * we accept must survive our own builder unchanged in meaning.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "irlap_frame.h"
#include "qos.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_xid(const struct irlap_frame *f)
{
	struct irlap_xid x, y;
	struct irlap_frame g;
	uint8_t buf[64];
	size_t n;

	if (irlap_xid_parse(f, &x) != 0)
		return;
	n = irlap_xid_build(buf, sizeof(buf), &x);
	if (!n || irlap_frame_parse(buf, n, &g) != 0 || irlap_xid_parse(&g, &y) != 0)
		abort();
	if (y.saddr != x.saddr || y.slot != x.slot || y.slots != x.slots ||
	    y.has_info != x.has_info || y.info.nickname_len != x.info.nickname_len)
		abort();
}

static void check_connect(const struct irlap_frame *f)
{
	struct irlap_connect_info ci, cj;
	struct irlap_frame g;
	uint8_t buf[64];
	size_t n;
	int rc = f->type == IRLAP_F_SNRM ? irlap_snrm_parse(f, &ci) : irlap_ua_parse(f, &ci);

	if (rc != 0)
		return;
	n = f->type == IRLAP_F_SNRM ? irlap_snrm_build(buf, sizeof(buf), &ci)
				    : irlap_ua_connect_build(buf, sizeof(buf), f->caddr, &ci);
	if (!n || irlap_frame_parse(buf, n, &g) != 0)
		abort();
	rc = f->type == IRLAP_F_SNRM ? irlap_snrm_parse(&g, &cj) : irlap_ua_parse(&g, &cj);
	if (rc != 0 || memcmp(&ci.qos, &cj.qos, sizeof(ci.qos)) != 0 || ci.saddr != cj.saddr)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct irlap_frame f;
	struct qos_bits q;
	struct irlap_frmr fr;
	struct irlap_test_ndm t;
	char line[96];

	qos_parse(data, size, &q, NULL);
	if (irlap_frame_parse(data, size, &f) != 0)
		return 0;
	irlap_frame_describe(&f, line, sizeof(line));
	switch (f.type) {
	case IRLAP_F_XID_CMD:
	case IRLAP_F_XID_RSP:
		check_xid(&f);
		break;
	case IRLAP_F_SNRM:
	case IRLAP_F_UA:
		check_connect(&f);
		break;
	case IRLAP_F_FRMR:
		irlap_frmr_parse(&f, &fr);
		break;
	case IRLAP_F_TEST:
		if (irlap_test_ndm_parse(&f, &t) == 0 && t.len > f.info_len)
			abort();
		break;
	default:
		break;
	}
	return 0;
}
