/*
 * fuzz_cursor.c: drives every cursor read over arbitrary bytes, steered
 * by the input itself, so ASan sees any read outside the buffer.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_one(struct cursor *c, uint8_t op)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	double d;
	const uint8_t *view;
	struct cursor sub;
	char buf[16];

	switch (op % 14) {
	case 0: cursor_u8(c, &u8); break;
	case 1: cursor_be16(c, &u16); break;
	case 2: cursor_le32(c, &u32); break;
	case 3: cursor_be_uint(c, op % 10, &u64); break;
	case 4: cursor_view(c, op % 7, &view); break;
	case 5: if (cursor_u8(c, &u8)) cursor_sub(c, u8, &sub); break;
	case 6: cursor_line(c, &sub); cursor_to_cstr(&sub, buf, sizeof(buf)); break;
	case 7: cursor_parse_u64(c, &u64); break;
	case 8: cursor_parse_double(c, &d); break;
	case 9: cursor_word(c, &sub); break;
	case 10: cursor_skip_blanks(c); break;
	case 11: cursor_literal(c, "kbytes/s"); break;
	case 12: cursor_copy(c, buf, op % sizeof(buf)); break;
	default: cursor_skip(c, op % 5); break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c;
	/* The first bytes choose the operations, the rest is the input. */
	size_t nops = size < 16 ? size : 16;
	cursor_init(&c, data + nops, size - nops);
	for (size_t i = 0; i < nops && cursor_ok(&c); i++)
		read_one(&c, data[i]);
	return 0;
}
