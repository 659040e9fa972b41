/*
 * fuzz_irdad_msg.c: irdad's control message decoder over arbitrary bytes.
 * A message it accepts is rebuilt attribute by attribute with the writer
 * (which checks it again) and must come out byte for byte the same, less
 * the unknown attributes the decoder skipped.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "irdad_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void copy_level(struct irdad_writer *wr, const struct irdad_attrs *as, int depth)
{
	for (size_t i = 0; i < as->n; i++) {
		const struct irdad_attr *a = &as->a[i];
		struct irdad_attrs inner;
		irdad_nest_open(a, &inner);
		/* a nest is an attribute whose value splits into known ones */
		if (depth == 0 && (a->tag == IRDAD_A_STATION || a->tag == IRDAD_A_IAS_VALUE ||
				   a->tag == IRDAD_A_IAS_ATTR || a->tag == IRDAD_A_COUNTER ||
				   a->tag == IRDAD_A_CONN)) {
			irdad_nest_begin(wr, a->tag);
			copy_level(wr, &inner, 1);
			irdad_nest_end(wr);
		} else {
			irdad_put_bytes(wr, a->tag, a->val, a->len);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct irdad_msg m, again;
	static uint8_t out[IRDAD_MSG_MAX];
	char why[200];
	if (irdad_msg_decode(data, size, &m, why, sizeof(why)) != 0) {
		if (!memchr(why, 0, sizeof(why)) || why[0] == '\0')
			abort(); /* every refusal says why */
		return 0;
	}
	struct irdad_writer wr;
	irdad_write_begin(&wr, out, sizeof(out), m.type, m.seq);
	copy_level(&wr, &m.attrs, 0);
	long n = irdad_write_end(&wr, why, sizeof(why));
	if (n < 0 || irdad_msg_decode(out, (size_t)n, &again, why, sizeof(why)) != 0)
		abort();
	if ((size_t)n == size && memcmp(out, data, size) != 0)
		abort();
	if ((size_t)n > size || again.attrs.n != m.attrs.n)
		abort();
	return 0;
}
