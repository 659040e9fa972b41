/*
 * fuzz_ircomm_param.c: IrCOMM's cooked SDU splitter and PI/PL/PV parser
 * over arbitrary bytes.  Invariants: the split views stay inside the
 * input and rebuild to it byte for byte; an accepted control list
 * rebuilds to a list that parses to the same values with nothing
 * ignored, and building that again gives the same bytes (parse -> build
 * -> parse is stable); the IAS Parameters parser never accepts a list
 * without a service type.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ircomm_param.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_list(const uint8_t *buf, size_t len)
{
	struct ircomm_params p, q;
	uint8_t out[512], again[512];
	int n, m;

	if (ircomm_params_parse(buf, len, &p) < 0)
		return;
	n = ircomm_params_build(out, sizeof(out), &p);
	if (n < 0)
		abort();
	if (ircomm_params_parse(out, (size_t)n, &q) != 0 || !ircomm_params_equal(&p, &q))
		abort();
	m = ircomm_params_build(again, sizeof(again), &q);
	if (m != n || memcmp(out, again, (size_t)n) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ircomm_sdu s;
	struct ircomm_params p;
	uint8_t rebuilt[512];

	if (ircomm_sdu_split(data, size, &s) == 0) {
		if (1 + s.clen + s.len != size || s.ctrl != data + 1 || s.data != data + 1 + s.clen)
			abort();
		if (size <= sizeof(rebuilt)) {
			int n = ircomm_sdu_build(rebuilt, sizeof(rebuilt), s.ctrl, s.clen, s.data, s.len);
			if (n < 0 || (size_t)n != size || memcmp(rebuilt, data, size) != 0)
				abort();
		}
		check_list(s.ctrl, s.clen);
	}
	/* the same bytes as a bare list (the IAS value has no clen) */
	check_list(data, size);
	if (ircomm_ias_params_parse(data, size, &p) == 0 && !(p.present & IRCOMM_P_SERVICE_TYPE))
		abort();
	return 0;
}
