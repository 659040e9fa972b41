/*
 * pcap_file.c: stdio glue for pcap.h.  See pcap_file.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "pcap_file.h"

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
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	*data = NULL;
	*len = 0;
	if (!f)
		return -errno;
	for (;;) {
		if (n == cap) {
			if (cap > max_len) {
				rc = -EFBIG;
				break;
			}
			size_t ncap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				rc = -EIO;
			break;
		}
	}
	fclose(f);
	if (rc == 0 && n > max_len)
		rc = -EFBIG;
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*data = buf;
	*len = n;
	return 0;
}
