/*
 * fuzz_pcap.c: the capture reader over arbitrary bytes.  Every record it
 * returns must lie inside the input and respect the header's limits.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcap_reader pr;
	struct pcap_record rec;

	if (pcap_reader_init(&pr, data, size) != 0) {
		if (strlen(pcap_reader_error(&pr)) == 0)
			abort();
		return 0;
	}
	size_t n = 0;
	int rc;
	while ((rc = pcap_reader_next(&pr, &rec)) == 1) {
		n++;
		if (rec.index != n)
			abort();
		if (rec.frame_len > 0 &&
		    (rec.frame < data || rec.frame + rec.frame_len > data + size))
			abort();
		if (rec.frame_len + PCAP_IRDA_HEADER_LEN > pr.snaplen ||
		    rec.frame_len > rec.orig_len)
			abort();
		if (rec.dir != PCAP_DIR_RX && rec.dir != PCAP_DIR_TX)
			abort();
		/* touch every byte so ASan checks the bounds */
		volatile uint8_t sum = 0;
		for (size_t i = 0; i < rec.frame_len; i++)
			sum = (uint8_t)(sum + rec.frame[i]);
		(void)sum;
	}
	if (rc < 0 && strstr(pcap_reader_error(&pr), "record") == NULL)
		abort();
	return 0;
}
