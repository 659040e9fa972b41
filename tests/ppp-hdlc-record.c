/*
 * ppp-hdlc-record.c: writes what ppp_hdlc_encode() makes as a pppd
 * "record" file, for pppdump -p (pppd's own async HDLC reader) to read
 * back in tests/ppp-hdlc-pppdump.tap.
 *
 *   ppp-hdlc-record GOOD.rec WANT.txt BAD.rec
 *
 * GOOD.rec: the digest's LCP Configure-Request and 200 random frames
 * (fixed seed, 1..1500 bytes, every byte value, some made only of the
 * bytes that need escaping), encoded with the ACCMs 0xffffffff, 0 and
 * 0x000a0000, sometimes sharing one flag between frames, as "sent" data.
 * WANT.txt: each frame in hex, one a line.  BAD.rec: one frame whose
 * FCS is damaged, which pppdump must report.
 *
 * Record format (pppd's record option): a type byte, 1 for sent data,
 * then a 2-byte big-endian count and the bytes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ppp_hdlc.h"

#define FRAMES 200
#define LINE_CAP (FRAMES * 3010 + 100)

static const uint8_t lcp_frame[] = {
	0xFF, 0x03, 0xC0, 0x21, 0x01, 0x01, 0x00, 0x0E, 0x05, 0x06,
	0x12, 0x34, 0x56, 0x78, 0x07, 0x02, 0x08, 0x02,
};

static uint32_t next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static int write_record(const char *path, const uint8_t *line, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		perror(path);
		return -1;
	}
	for (size_t at = 0; at < n; ) {
		size_t k = n - at > 60000 ? 60000 : n - at;
		uint8_t hdr[3] = { 1, (uint8_t)(k >> 8), (uint8_t)k };
		if (fwrite(hdr, 1, 3, f) != 3 || fwrite(line + at, 1, k, f) != k)
			break;
		at += k;
	}
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "%s: write failed\n", path);
		return -1;
	}
	return 0;
}

static void put_hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, i ? " %02x" : "%02x", p[i]);
	fputc('\n', f);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s GOOD.rec WANT.txt BAD.rec\n", argv[0]);
		return 2;
	}
	uint8_t *line = malloc(LINE_CAP);
	FILE *want = fopen(argv[2], "w");
	if (!line || !want) {
		perror(argv[2]);
		return 1;
	}
	static const uint8_t special[] = { 0x7D, 0x7E, 0x00, 0x11, 0x13, 0x1F, 0x20, 0xFF, 0x03 };
	static const uint32_t accms[] = { PPP_HDLC_ACCM_ALL, 0, 0x000A0000 };
	struct ppp_hdlc_encoder enc[3];
	for (size_t i = 0; i < 3; i++)
		ppp_hdlc_encoder_init(&enc[i], accms[i]);
	struct wcursor w;
	wcursor_init(&w, line, LINE_CAP);
	uint32_t seed = 20261129;
	uint8_t frame[1500];

	if (ppp_hdlc_encode(&enc[0], &w, lcp_frame, sizeof(lcp_frame), 0) < 0)
		return 1;
	put_hex(want, lcp_frame, sizeof(lcp_frame));
	for (size_t i = 0; i < FRAMES; i++) {
		/* pppdump wants at least the 2 FCS bytes and 1 more... and
		 * treats frames of under 4 bytes specially: keep 4 or more */
		size_t n = 4 + next(&seed) % (sizeof(frame) - 3);
		bool only_special = next(&seed) % 4 == 0;
		for (size_t k = 0; k < n; k++) {
			uint32_t r = next(&seed);
			frame[k] = only_special ? special[r % sizeof(special)] : (uint8_t)r;
		}
		unsigned flags = next(&seed) % 2 ? PPP_HDLC_ENC_NO_OPEN_FLAG : 0;
		if (ppp_hdlc_encode(&enc[i % 3], &w, frame, n, flags) < 0) {
			fprintf(stderr, "encode failed\n");
			return 1;
		}
		put_hex(want, frame, n);
	}
	if (fclose(want) != 0 || write_record(argv[1], line, wcursor_len(&w)) < 0)
		return 1;

	/* one frame, the high FCS byte (just before the closing flag) damaged */
	wcursor_init(&w, line, LINE_CAP);
	int n = ppp_hdlc_encode(&enc[1], &w, lcp_frame, sizeof(lcp_frame), 0);
	if (n < 3)
		return 1;
	line[n - 2] ^= 0x01;
	if (write_record(argv[3], line, (size_t)n) < 0)
		return 1;
	free(line);
	return 0;
}
