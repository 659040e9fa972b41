/*
 * fuzz_ias.c: the IAS request and response parsers over arbitrary bytes;
 * the server's answer to any request must parse as a response.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ias.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ias_db *db;
	struct ias_request rq;
	struct ias_response rs;
	uint8_t out[2048];
	size_t n;

	if (!db) {
		struct ias_value v = { .type = IAS_INTEGER, .integer = 0x10 };
		db = ias_db_new("fuzz");
		int id = db ? ias_db_add_object(db, "IrNetv1") : -1;
		if (id < 0 || ias_db_add_attr(db, id, "IrDA:TinyTP:LsapSel", &v) != 0)
			abort();
	}
	if (ias_request_parse(data, size, &rq) == 0) {
		uint8_t again[256];
		char cls[IAS_NAME_MAX + 1], attr[IAS_NAME_MAX + 1];
		/* names without NULs rebuild to the same bytes */
		if (!memchr(rq.class_name, 0, rq.class_len) && !memchr(rq.attr_name, 0, rq.attr_len) &&
		    (data[0] & 0x80)) {
			memcpy(cls, rq.class_name, rq.class_len);
			cls[rq.class_len] = 0;
			memcpy(attr, rq.attr_name, rq.attr_len);
			attr[rq.attr_len] = 0;
			n = ias_request_build(again, sizeof(again), cls, attr);
			if (n != size || memcmp(again, data, size) != 0)
				abort();
		}
	}
	n = ias_db_answer(db, data, size, out, sizeof(out));
	if (size && ((data[0] & 0x3f) != IAS_OP_GET_VALUE_BY_CLASS || (data[0] & IAS_ACK))) {
		/* other operations: "unsupported", no list */
		if (n != 2 || out[1] != IAS_UNSUPPORTED)
			abort();
	} else if (n == 0 || ias_response_parse(out, n, &rs) != 0) {
		abort();
	}
	if (ias_response_parse(data, size, &rs) == 0 && rs.count &&
	    (rs.value.type == IAS_OCTETS || rs.value.type == IAS_STRING) && rs.value.len &&
	    (rs.value.bytes < data || rs.value.bytes + rs.value.len > data + size))
		abort();
	return 0;
}
