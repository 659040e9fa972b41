/*
 * array.h: growing a heap array one element at a time, with the size
 * arithmetic checked in one place.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_ARRAY_H
#define IRNET_ARRAY_H

#include <stddef.h>

/* Makes room for element number n (0-based) in items, an array of
 * *cap elements of elem_size bytes: when n == *cap the array doubles
 * (or starts at initial elements).  Returns the array to use from now
 * on, or NULL on overflow or allocation failure, in which case items
 * and *cap are unchanged and still valid. */
void *array_grow(void *items, size_t *cap, size_t n, size_t elem_size, size_t initial);

#endif
