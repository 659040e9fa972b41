/*
 * sir_vectors.h: the wire-level test vectors of irda-digest.md section 11,
 * shared by the SIR, pcap and tshark tests.
 *
 * Each entry is an IrLAP frame (A, C, I-field; no FCS), the number of
 * XBOFs in front of it, and the complete SIR byte stream, both as hex
 * text exactly as the digest prints them.  Where the digest shows only
 * the SIR line, the frame was written out by hand from it (escapes
 * undone, FCS dropped), so encoding the frame and comparing with the SIR
 * line still checks something.  `dir` is who sends it in the digest's
 * story: 1 = our station (a command), 0 = the peer.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_TEST_SIR_VECTORS_H
#define IRNET_TEST_SIR_VECTORS_H

#include <stddef.h>
#include <stdint.h>

struct sir_vector {
	const char *name;
	const char *frame;
	unsigned xbofs;
	const char *sir;
	int ours;
};

static const struct sir_vector sir_vectors[] = {
	{ "XID cmd slot 0 (12 XBOFs)",
	  "FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00", 12,
	  "FF FF FF FF FF FF FF FF FF FF FF FF C0 FF 3F 01 78 56 34 12 FF FF FF FF 01 00 00 46 28 C1", 1 },
	{ "XID cmd slot 5",
	  "FF 3F 01 78 56 34 12 FF FF FF FF 01 05 00", 0,
	  "C0 FF 3F 01 78 56 34 12 FF FF FF FF 01 05 00 FE 56 C1", 1 },
	{ "XID final Linux",
	  "FF 3F 01 78 56 34 12 FF FF FF FF 01 FF 00 04 00 4C 69 6E 75 78", 0,
	  "C0 FF 3F 01 78 56 34 12 FF FF FF FF 01 FF 00 04 00 4C 69 6E 75 78 B4 D6 C1", 1 },
	{ "XID rsp slot 2 Phone",
	  "FE BF 01 DD CC BB AA 78 56 34 12 01 02 00 82 04 00 50 68 6F 6E 65", 0,
	  "C0 FE BF 01 DD CC BB AA 78 56 34 12 01 02 00 82 04 00 50 68 6F 6E 65 FF C2 C1", 0 },
	{ "SNRM",
	  "FF 93 78 56 34 12 DD CC BB AA 5A 01 01 3E 82 01 01 83 01 3F 84 01 7F 85 01 FF 86 01 03 08 01 07", 0,
	  "C0 FF 93 78 56 34 12 DD CC BB AA 5A 01 01 3E 82 01 01 83 01 3F 84 01 7F 85 01 FF 86 01 03 08 01 07 4B F1 C1", 1 },
	{ "UA with QoS",
	  "5A 73 DD CC BB AA 78 56 34 12 01 01 3E 82 01 01 83 01 3F 84 01 3F 85 01 80 86 01 02 08 01 FF", 0,
	  "C0 5A 73 DD CC BB AA 78 56 34 12 01 01 3E 82 01 01 83 01 3F 84 01 3F 85 01 80 86 01 02 08 01 FF 56 71 C1", 0 },
	{ "RR cmd P Nr0", "5B 11", 0, "C0 5B 11 10 39 C1", 1 },
	{ "RR rsp F Nr0", "5A 11", 0, "C0 5A 11 C8 20 C1", 0 },
	{ "LM connect to IAS", "5B 10 80 10 01 00", 0,
	  "C0 5B 10 80 10 01 00 A8 9F C1", 1 },
	{ "LM connect confirm", "5A 30 90 00 81 00", 0,
	  "C0 5A 30 90 00 81 00 EA 31 C1", 0 },
	{ "GetValueByClass IrNetv1",
	  "5B 32 00 10 84 07 49 72 4E 65 74 76 31 13 49 72 44 41 3A 54 69 6E 79 54 50 3A 4C 73 61 70 53 65 6C", 0,
	  "C0 5B 32 00 10 84 07 49 72 4E 65 74 76 31 13 49 72 44 41 3A 54 69 6E 79 54 50 3A 4C 73 61 70 53 65 6C 30 6B C1", 1 },
	{ "IAS result integer",
	  "5A 52 10 00 84 00 00 01 12 34 01 00 00 00 12", 0,
	  "C0 5A 52 10 00 84 00 00 01 12 34 01 00 00 00 12 69 D6 C1", 0 },
	{ "LM disconnect", "5B 54 80 10 02 01", 0,
	  "C0 5B 54 80 10 02 01 7B 48 C1", 1 },
	{ "IAS no such class", "5A 52 10 00 84 01 00 01 12 35 00", 0,
	  "C0 5A 52 10 00 84 01 00 01 12 35 00 23 89 C1", 0 },
	{ "TTP connect SAR", "5B 56 92 11 01 00 90 04 01 02 FF FF", 0,
	  "C0 5B 56 92 11 01 00 90 04 01 02 FF FF D6 CE C1", 1 },
	{ "TTP confirm", "5A 94 91 12 81 00 90 04 01 02 08 00", 0,
	  "C0 5A 94 91 12 81 00 90 04 01 02 08 00 4B E8 C1", 0 },
	{ "PPP LCP Configure-Request",
	  "5B 78 12 11 00 FF 03 C0 21 01 01 00 0E 05 06 12 34 56 78 07 02 08 02", 0,
	  "C0 5B 78 12 11 00 FF 03 7D E0 21 01 01 00 0E 05 06 12 34 56 78 07 02 08 02 13 93 C1", 1 },
	{ "GetValueByClass IrCOMM",
	  "5B 32 00 10 84 0B 49 72 44 41 3A 49 72 43 4F 4D 4D 0A 50 61 72 61 6D 65 74 65 72 73", 0,
	  "C0 5B 32 00 10 84 0B 49 72 44 41 3A 49 72 43 4F 4D 4D 0A 50 61 72 61 6D 65 74 65 72 73 A6 E4 C1", 1 },
	{ "IAS result octet sequence",
	  "5A 52 10 00 84 00 00 01 00 04 02 00 06 00 01 06 01 01 01", 0,
	  "C0 5A 52 10 00 84 00 00 01 00 04 02 00 06 00 01 06 01 01 01 5E 5F C1", 0 },
	{ "TTP connect no SAR", "5B 56 92 11 01 00 10", 0,
	  "C0 5B 56 92 11 01 00 10 7C 6D C1", 1 },
	{ "IrCOMM 9-wire parameters",
	  "5B 78 12 11 00 12 00 01 04 10 04 00 00 25 80 11 01 03 12 01 00 20 01 0C", 0,
	  "C0 5B 78 12 11 00 12 00 01 04 10 04 00 00 25 80 11 01 03 12 01 00 20 01 0C 1A A3 C1", 1 },
	{ "IrCOMM data AT", "5B 7A 12 11 00 00 41 54 0D", 0,
	  "C0 5B 7A 12 11 00 00 41 54 0D 46 58 C1", 1 },
	{ "DISC cmd", "5B 53", 0, "C0 5B 53 06 58 C1", 1 },
	{ "UA rsp", "5A 73", 0, "C0 5A 73 DC 60 C1", 0 },
	{ "DM rsp", "5A 1F", 0, "C0 5A 1F B6 C9 C1", 0 },
	{ "UI with C0 C1 7D", "FF 13 C0 C1 7D 20", 0,
	  "C0 FF 13 7D E0 7D E1 7D 5D 20 08 A9 C1", 1 },
	{ "RR with escaped FCS", "11 51", 0, "C0 11 51 02 7D E0 C1", 1 },
};

#define SIR_VECTOR_COUNT (sizeof(sir_vectors) / sizeof(sir_vectors[0]))

/* Parses "C0 5B 11" into bytes; returns the count, or 0 if it does not
 * fit or is not hex (a broken table is a test bug, so callers assert). */
static inline size_t sir_vector_hex(const char *text, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (const char *p = text; *p; p++) {
		int v;

		if (*p == ' ')
			continue;
		if (*p >= '0' && *p <= '9')
			v = *p - '0';
		else if (*p >= 'A' && *p <= 'F')
			v = *p - 'A' + 10;
		else
			return 0;
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n == cap)
			return 0;
		out[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	return hi < 0 ? n : 0;
}

#endif
