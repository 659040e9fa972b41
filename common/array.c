/*
 * array.c: see array.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "array.h"

#include <stdint.h>
#include <stdlib.h>

void *array_grow(void *items, size_t *cap, size_t n, size_t elem_size, size_t initial)
{
	if (n < *cap && items)
		return items;
	size_t want = *cap ? *cap : initial ? initial : 1;
	while (want <= n) {
		if (want > SIZE_MAX / 2)
			return NULL;
		want *= 2;
	}
	if (elem_size == 0 || want > SIZE_MAX / elem_size)
		return NULL;
	void *grown = realloc(items, want * elem_size);
	if (!grown)
		return NULL;
	*cap = want;
	return grown;
}
