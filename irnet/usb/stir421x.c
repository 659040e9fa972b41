/*
 * stir421x.c: the STIr4210/4220/4116 firmware check and 3-byte header
 * (stir421x.h; usb-irda-digest 2.1).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cursor.h"
#include "stir421x.h"

#define FW_PREFIX "Product Version: "

bool stir421x_match(uint16_t vid, uint16_t pid)
{
	return vid == STIR421X_VID &&
	       (pid == STIR421X_PID_4210 || pid == STIR421X_PID_4220 ||
		pid == STIR421X_PID_4116);
}

void stir421x_fw_request(uint8_t setup[8])
{
	memset(setup, 0, 8);
	setup[0] = 0x40;
	setup[1] = 0x02;
}

void stir421x_fw_name(uint16_t bcd_device, char name[STIR421X_FW_NAME_MAX])
{
	static const char hex[] = "0123456789abcdef";
	static const char head[] = "4210";
	size_t i;

	memcpy(name, head, 4);
	for (i = 0; i < 4; i++)
		name[4 + i] = hex[(bcd_device >> (12 - 4 * i)) & 0xf];
	memcpy(name + 8, ".sb", 4);
}

/* One decimal field of the version; false if there is no digit or it
 * does not fit. */
static bool version_field(struct cursor *c, uint64_t *out)
{
	return cursor_parse_u64(c, out) && *out <= 99;
}

int stir421x_fw_check(const uint8_t *fw, size_t len, uint16_t bcd_device,
		      const uint8_t **payload, size_t *payload_len,
		      char *err, size_t errlen)
{
	struct cursor c;
	uint64_t major, minor, build;
	uint16_t version;
	const uint8_t *mark;
	size_t scan, at;

	*payload = NULL;
	*payload_len = 0;
	cursor_init(&c, fw, len);
	if (!cursor_literal(&c, FW_PREFIX)) {
		snprintf(err, errlen, "does not start with \"%s\"", FW_PREFIX);
		return -EINVAL;
	}
	if (!version_field(&c, &major) || !cursor_literal(&c, ".") ||
	    !version_field(&c, &minor) || !cursor_literal(&c, ".") ||
	    !version_field(&c, &build) || major > 9 || minor > 9) {
		snprintf(err, errlen, "no version major.minor.build after \"%s\"",
			 FW_PREFIX);
		return -EINVAL;
	}
	version = (uint16_t)((major << 12) | (minor << 8) | ((build / 10) << 4) |
			     (build % 10));
	if (version != bcd_device) {
		snprintf(err, errlen,
			 "version %u.%u.%u is for bcdDevice %04x, the device has %04x",
			 (unsigned)major, (unsigned)minor, (unsigned)build,
			 (unsigned)version, (unsigned)bcd_device);
		return -EINVAL;
	}
	scan = len < STIR421X_FW_MARK_WITHIN ? len : STIR421X_FW_MARK_WITHIN;
	mark = memchr(fw, 0x1a, scan);
	if (!mark) {
		snprintf(err, errlen, "no 0x1A byte within the first %u bytes",
			 STIR421X_FW_MARK_WITHIN);
		return -EINVAL;
	}
	at = (size_t)(mark - fw) + 1;
	cursor_init(&c, fw + at, len - at);
	if (!cursor_literal(&c, "STMP")) {
		snprintf(err, errlen, "no \"STMP\" after the 0x1A byte at offset %zu",
			 at - 1);
		return -EINVAL;
	}
	*payload = fw + at;
	*payload_len = len - at;
	return 0;
}

uint8_t stir421x_turnaround_code(uint32_t min_turn_us)
{
	static const uint32_t limit[] = { 0, 10, 50, 100, 500, 1000, 5000 };
	uint8_t code;

	for (code = 0; code < sizeof(limit) / sizeof(limit[0]); code++)
		if (min_turn_us <= limit[code])
			return code;
	return 7;
}

bool stir421x_needs_pad(size_t len)
{
	return len % 128 == 0 && len % 512 != 0;
}

void stir421x_header(uint8_t out[STIR421X_HEADER_LEN], uint8_t class_byte,
		     size_t frame_len, uint32_t min_turn_us)
{
	out[0] = class_byte;
	out[1] = stir421x_needs_pad(frame_len) ? 1 : 0;
	out[2] = stir421x_turnaround_code(min_turn_us);
}

size_t stir421x_wrap(uint8_t *out, size_t cap, uint8_t class_byte,
		     const uint8_t *frame, size_t frame_len, uint32_t min_turn_us)
{
	size_t pad = stir421x_needs_pad(frame_len) ? 1 : 0;
	size_t total = STIR421X_HEADER_LEN + frame_len + pad;

	if (frame_len > cap || cap - frame_len < STIR421X_HEADER_LEN + pad)
		return 0;
	stir421x_header(out, class_byte, frame_len, min_turn_us);
	if (frame_len)
		memcpy(out + STIR421X_HEADER_LEN, frame, frame_len);
	if (pad)
		out[STIR421X_HEADER_LEN + frame_len] = 0;
	return total;
}

int stir421x_unwrap(const uint8_t *in, size_t len, uint8_t *class_byte,
		    const uint8_t **frame, size_t *frame_len)
{
	if (len < STIR421X_HEADER_LEN) {
		*class_byte = 0;
		*frame = NULL;
		*frame_len = 0;
		return -EINVAL;
	}
	*class_byte = in[0];
	*frame = in + STIR421X_HEADER_LEN;
	*frame_len = len - STIR421X_HEADER_LEN;
	return 0;
}
