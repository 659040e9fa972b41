/*
 * pcap_file.h: the host side of pcap.h, for programs and tests: a sink
 * that appends to a stdio stream, and loading a whole capture file into
 * memory for the reader.  The only file I/O of the capture code lives
 * here, so pcap.c stays sans-I/O.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_PCAP_FILE_H
#define IRNET_PCAP_FILE_H

#include <stddef.h>
#include <stdint.h>

/* A pcap_sink_fn: ctx is a FILE * opened for writing.  Returns 0 or
 * -errno (-EIO if errno was not set). */
int pcap_file_sink(void *ctx, const uint8_t *bytes, size_t len);

/* Reads the whole file at path into a malloc'd buffer (*data, *len; the
 * caller frees *data).  Returns 0 or -errno; refuses files over max_len
 * bytes with -EFBIG. */
int pcap_file_load(const char *path, size_t max_len, uint8_t **data, size_t *len);

#endif
