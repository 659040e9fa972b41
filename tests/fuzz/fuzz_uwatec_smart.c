/*
 * fuzz_uwatec_smart.c: the emulated dive computer's command reader
 * (tests/clients/uwatec_smart.h) over arbitrary bytes, as a peer could
 * send them: every answer is at most 4 bytes of head and a body inside
 * the memory image, and every byte is consumed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "uwatec_smart.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t mem[4096];
	static size_t mem_len;
	static const struct uwatec_dive dives[2] = {
		{ .start = 1781429400, .minutes = 20, .max_depth_cm = 1000, .temp_dc = 200 },
		{ .start = 1781515800, .tz_quarters = -4, .minutes = 25, .max_depth_cm = 800 },
	};
	if (mem_len == 0) {
		struct wcursor w;
		wcursor_init(&w, mem, sizeof(mem));
		if (!uwatec_galileo_write_dive(&w, &dives[0]) || !uwatec_galileo_write_dive(&w, &dives[1]))
			abort();
		mem_len = wcursor_len(&w);
	}
	const struct uwatec_device dev = { .model = UWATEC_MODEL_GALILEO_SOL, .serial = 1,
					   .memory = mem, .memory_len = mem_len };
	struct uwatec_session s;
	struct cursor in;
	struct uwatec_reply r;

	uwatec_session_init(&s, &dev, NULL);
	cursor_init(&in, data, size);
	while (!cursor_at_end(&in)) {
		int got = uwatec_session_input(&s, &in, &r);
		if (got < 0)
			continue;
		if (got == 0)
			break;
		if (r.head_len > sizeof(r.head) ||
		    (r.body_len && (r.body < mem || r.body + r.body_len > mem + mem_len)))
			abort();
	}
	if (!cursor_at_end(&in))
		abort();
	return 0;
}
