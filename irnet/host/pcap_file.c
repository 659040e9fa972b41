/*
 * pcap_file.c: stdio glue for pcap.h.  See pcap_file.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "pcap_file.h"

#include "fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int pcap_file_sink(void *ctx, const uint8_t *bytes, size_t len)
{
	FILE *f = ctx;

	errno = 0;
	if (fwrite(bytes, 1, len, f) != len)
		return errno ? -errno : -EIO;
	return 0;
}

int pcap_file_load(const char *path, size_t max_len, uint8_t **data, size_t *len)
{
	return file_read_all(path, max_len, data, len);
}
