/*
 * irnet_names.h: what the programs that show stations (irdiscover,
 * irdactl) print for a station's discovery information: the names of
 * the hint bits (the digest's table, section 4.2), of the character sets,
 * and a nickname's or IAS string's bytes as safe text.
 *
 * Owns: one table from hint bit to name, over the 16-bit form irdad's API
 * uses (IRDAD_A_HINTS: the first hint byte in the high 8 bits, the second
 * in the low 8; the extension bits 0x80 of each byte have no name).
 *
 * Does not own: the hint bytes on the air (irlap_frame) or the
 * configuration's spelling of them (irdad_config).  No I/O, no state.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_NAMES_H
#define IRNET_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct irnet_hint_name {
	uint16_t bit;             /* in the 16-bit form above */
	const char *name;         /* one word: "Computer", "FileServer" */
};

/* The named bits, in the digest's order (byte 1 bit 0 first). */
extern const struct irnet_hint_name irnet_hint_names[];
extern const size_t irnet_hint_names_n;

/* The 16-bit form of one or two hint bytes as they came in a frame. */
uint16_t irnet_hints_from_bytes(const uint8_t *bytes, size_t n);
/* The bit named name (case ignored, the first len bytes), or 0. */
uint16_t irnet_hint_by_name(const char *name, size_t len);

/* "ascii", "iso-8859-1".."iso-8859-9", "unicode" or "unknown". */
const char *irnet_charset_name(uint8_t charset);
/* Outside bytes (a nickname, an IAS string) as text: printable ASCII
 * kept, anything else and the backslash as \xNN; cut at a whole
 * character when buf is full.  Returns buf. */
char *irnet_bytes_text(const uint8_t *bytes, size_t n, char *buf, size_t cap);

#endif
