/*
 * tshark-vectors.c: writes every frame of irda-digest.md section 11 into a
 * pcap file with the project's writer (link type 144), one record per
 * vector in table order, 10 ms apart, for tests/tshark-vectors.tap.
 *
 * Usage: tshark-vectors FILE
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pcap.h"
#include "pcap_file.h"
#include "unit/sir_vectors.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: tshark-vectors FILE\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "wb");
	if (!f) {
		fprintf(stderr, "tshark-vectors: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	struct pcap_writer pw;
	int rc = pcap_writer_init(&pw, pcap_file_sink, f, 0);
	for (size_t i = 0; rc == 0 && i < SIR_VECTOR_COUNT; i++) {
		uint8_t frame[128];
		size_t n = sir_vector_hex(sir_vectors[i].frame, frame, sizeof(frame));
		if (n < 2) {
			fprintf(stderr, "tshark-vectors: vector %zu does not parse\n", i);
			fclose(f);
			return 1;
		}
		rc = pcap_writer_frame(&pw, 1000000 + i * 10000,
				       sir_vectors[i].ours ? PCAP_DIR_TX : PCAP_DIR_RX,
				       frame, n);
	}
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc < 0) {
		fprintf(stderr, "tshark-vectors: %s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	return 0;
}
