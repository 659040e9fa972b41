/*
 * fileio.h: reading a whole file into memory, bounded.
 *
 * For the programs' file inputs (captures, result files, config files):
 * the parsers then work on the buffer through a cursor.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_FILEIO_H
#define IRNET_FILEIO_H

#include <stddef.h>
#include <stdint.h>

/* Reads all of path ("-" is standard input) into a new buffer, with a
 * NUL byte after the data that len does not count (so text parsers may
 * rely on it).  Returns 0, or -errno: -EFBIG when the file holds more
 * than max_len bytes, -EISDIR for a directory.  *data is NULL on error;
 * free() it on success. */
int file_read_all(const char *path, size_t max_len, uint8_t **data, size_t *len);

#endif
