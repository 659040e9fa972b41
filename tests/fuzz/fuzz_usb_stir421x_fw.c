/*
 * fuzz_usb_stir421x_fw.c: the STIr421x firmware check and 3-byte header
 * on arbitrary input.
 *
 * Input: bytes 0-1 are the bcdDevice (big-endian), the rest the .sb
 * file.  An accepted file's payload must lie inside the file, start with
 * "STMP" right after a 0x1A within the first 512 bytes (the first one),
 * and the file must start with "Product Version: "; a refused one must
 * give no payload and a message.  The same bytes are then unwrapped as a
 * received transfer and wrapped as a frame, and the wrap must give the
 * header, the frame and the extra byte exactly when the length is a
 * multiple of 128 but not of 512.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stir421x.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t wrapped[STIR421X_HEADER_LEN + 4096 + 1];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *fw, *p, *mark, *frame;
	size_t len, plen, flen, w;
	uint16_t bcd;
	char err[160];
	uint8_t cb;
	int rc;

	if (size < 2)
		return 0;
	bcd = (uint16_t)(data[0] << 8 | data[1]);
	fw = data + 2;
	len = size - 2;
	err[0] = '\0';
	rc = stir421x_fw_check(fw, len, bcd, &p, &plen, err, sizeof(err));
	if (rc == 0) {
		mark = memchr(fw, 0x1a, len < 512 ? len : 512);
		if (!mark || p != mark + 1 || plen != len - (size_t)(p - fw) || plen < 4 ||
		    memcmp(p, "STMP", 4) != 0 || len < 17 ||
		    memcmp(fw, "Product Version: ", 17) != 0)
			abort();
	} else if (rc != -EINVAL || p || plen || err[0] == '\0') {
		abort();
	}

	rc = stir421x_unwrap(fw, len, &cb, &frame, &flen);
	if (rc == 0 ? (cb != fw[0] || frame != fw + 3 || flen != len - 3) : len >= 3)
		abort();

	if (len > 4096)
		len = 4096;
	w = stir421x_wrap(wrapped, sizeof(wrapped), data[0], fw, len, (uint32_t)bcd * 3u);
	if (w != 3 + len + (stir421x_needs_pad(len) ? 1u : 0u) || wrapped[0] != data[0] ||
	    wrapped[1] != (stir421x_needs_pad(len) ? 1 : 0) ||
	    wrapped[2] != stir421x_turnaround_code((uint32_t)bcd * 3u) || wrapped[2] > 7 ||
	    (len && memcmp(wrapped + 3, fw, len) != 0))
		abort();
	return 0;
}
