/*
 * stir421x.h: the SigmaTel STIr4210/4220/4116 pieces of the USB IrDA
 * Bridge class core, sans-I/O (usb-irda-digest 1.1 and 2.1 "STIr4210/
 * 4220/4116 specifics").
 *
 * These chips are class FE/02 devices with two differences: a 3-byte
 * header on every bulk transfer, both directions, and a firmware patch
 * that the host downloads at probe from a vendor file (not part of any
 * driver and not redistributable: the user supplies it).
 *
 * Owns: the firmware file's name (from bcdDevice) and its check (the
 * "Product Version: " text, the BCD-packed version against bcdDevice,
 * the payload after the first 0x1A within the first 512 bytes and its
 * "STMP" start), the 1023-byte piece size, and the 3-byte header (the
 * turnaround code table, the 128-not-512 length rule with its extra
 * byte).  All pure functions: no file is read here.
 *
 * Does not own: reading the file (the host does, and hands the bytes
 * over), submitting the transfers, the rest of the class protocol
 * (irda_class.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_STIR421X_H
#define IRNET_STIR421X_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STIR421X_VID 0x066fu
#define STIR421X_PID_4210 0x4210u
#define STIR421X_PID_4220 0x4220u
#define STIR421X_PID_4116 0x4116u

/* Header bytes in each bulk transfer, both directions. */
#define STIR421X_HEADER_LEN 3u
/* The firmware's 0x1A must lie within this many bytes of the start. */
#define STIR421X_FW_MARK_WITHIN 512u
/* Bulk OUT piece size of the download and the pause between pieces. */
#define STIR421X_FW_PIECE 1023u
#define STIR421X_FW_PIECE_GAP_US 10000u
/* Wait after the patch vendor request. */
#define STIR421X_FW_REQUEST_WAIT_US 10000u
/* Receive transfers kept in flight (the class default is 2). */
#define STIR421X_RX_TRANSFERS 4u
/* "NNNNNNNN.sb" and its terminator. */
#define STIR421X_FW_NAME_MAX 12u
/* Where the file is looked for unless the user says otherwise. */
#define STIR421X_FW_DEFAULT_DIR "/lib/firmware"

/* True for the three STIr421x IDs. */
bool stir421x_match(uint16_t vid, uint16_t pid);

/* The setup packet of the patch vendor request: 40 02 00 00 00 00 00 00. */
void stir421x_fw_request(uint8_t setup[8]);

/* Writes the firmware file name for bcdDevice ("4210" and bcdDevice in
 * four hex digits, ".sb": 42101001.sb for 0x1001) into name (at least
 * STIR421X_FW_NAME_MAX bytes). */
void stir421x_fw_name(uint16_t bcd_device, char name[STIR421X_FW_NAME_MAX]);

/* Checks a .sb file's bytes against the device's bcdDevice.  The file
 * must start with "Product Version: " and a dotted version major.minor.
 * build of decimal digits (leading zeros allowed) which, packed as four
 * BCD digits (major, minor, build's tens and units), equals bcd_device;
 * the first 0x1A byte must lie within the first 512 bytes and be
 * followed by "STMP", where the payload starts; it runs to the end of
 * the file.  On success returns 0 and sets *payload and *payload_len
 * (pointing into fw); on failure returns -EINVAL and writes what is
 * wrong to err. */
int stir421x_fw_check(const uint8_t *fw, size_t len, uint16_t bcd_device,
		      const uint8_t **payload, size_t *payload_len,
		      char *err, size_t errlen);

/* The turnaround code of byte 2 for a minimum turnaround in
 * microseconds: 0 -> 0, <=10 -> 1, <=50 -> 2, <=100 -> 3, <=500 -> 4,
 * <=1000 -> 5, <=5000 -> 6, more -> 7. */
uint8_t stir421x_turnaround_code(uint32_t min_turn_us);

/* True when a frame of len bytes needs byte 1 set and one extra byte
 * appended: a multiple of 128 that is not one of 512. */
bool stir421x_needs_pad(size_t len);

/* Writes the 3-byte header: byte 0 the class header byte (the caller
 * gives speed and BOFs together), byte 1 the 128-not-512 flag for
 * frame_len, byte 2 the turnaround code. */
void stir421x_header(uint8_t out[STIR421X_HEADER_LEN], uint8_t class_byte,
		     size_t frame_len, uint32_t min_turn_us);

/* Builds a whole bulk OUT transfer: header, frame, and the extra byte
 * when the rule asks for it.  Returns the length, or 0 if out (cap
 * bytes) is too small. */
size_t stir421x_wrap(uint8_t *out, size_t cap, uint8_t class_byte,
		     const uint8_t *frame, size_t frame_len, uint32_t min_turn_us);

/* Splits a received bulk IN transfer: the class header byte (byte 0) and
 * the frame after the 3 header bytes.  Returns -EINVAL when shorter than
 * the header. */
int stir421x_unwrap(const uint8_t *in, size_t len, uint8_t *class_byte,
		    const uint8_t **frame, size_t *frame_len);

#endif
