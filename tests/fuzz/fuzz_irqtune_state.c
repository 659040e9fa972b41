/*
 * fuzz_irqtune_state.c: the state file parser over arbitrary bytes; a
 * parsed state must format and parse back to the same entries.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct irqtune_state st, back;
	char err[512], *text;
	size_t len;
	if (irqtune_state_parse(data, size, "fuzz", &st, err, sizeof(err)) != 0)
		return 0;
	if (irqtune_state_format(&st, &text, &len) == 0) {
		if (irqtune_state_parse(text, len, "again", &back, err,
					sizeof(err)) != 0 ||
		    back.n != st.n ||
		    (st.n && memcmp(back.v, st.v, st.n * sizeof(*st.v)) != 0))
			abort();
		irqtune_state_free(&back);
		free(text);
	}
	irqtune_state_free(&st);
	return 0;
}
