/*
 * fileio.h: reading a whole file into memory, bounded; replacing a file
 * atomically.
 *
 * For the programs' file inputs (captures, result files, config files):
 * the parsers then work on the buffer through a cursor.  For their
 * outputs (result files, plots, irqtune's state file): a reader sees the
 * old content or the new, never part of either, even across a crash.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_FILEIO_H
#define IRNET_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Reads all of path ("-" is standard input) into a new buffer, with a
 * NUL byte after the data that len does not count (so text parsers may
 * rely on it).  Returns 0, or -errno: -EFBIG when the file holds more
 * than max_len bytes, -EISDIR for a directory.  *data is NULL on error;
 * free() it on success. */
int file_read_all(const char *path, size_t max_len, uint8_t **data, size_t *len);

/* Writes the new content to fd; returns 0 or -errno. */
typedef int (*file_fill_fn)(int fd, void *ctx);

/* Replaces path with what fill writes: a temporary file beside the
 * target (the target of a symbolic link, so the link survives), fsync,
 * rename, fsync of the directory.  A path that exists and is not a
 * regular file (/dev/null, a FIFO, a terminal) is written in place,
 * since a rename would replace the device node itself.  mode gives the
 * permissions of a new file (less the umask).  Returns 0 or -errno; on
 * error *step (if not NULL) names what failed ("creating a temporary
 * file", "writing", "replacing the file", ...) and nothing is replaced. */
int file_write_atomic(const char *path, mode_t mode, file_fill_fn fill, void *ctx,
		      const char **step);

/* A stdio stream writing to fd (which stays open after fclose) with a
 * large buffer, that starts the kernel's writeback of every few MB as it
 * goes, so that the fsync of file_write_atomic() waits only for the tail
 * of a big file instead of all of it.  NULL with errno set on failure. */
FILE *fd_output_stream(int fd);

/* Writes all n bytes, retrying short writes and EINTR; 0 or -errno. */
int fd_write_all(int fd, const void *data, size_t n);

#endif
