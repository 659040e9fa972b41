/*
 * pcap.h: IrLAP captures in the classic pcap format, link type 144
 * (LINKTYPE_LINUX_IRDA), which tshark and Wireshark dissect.
 *
 * Owns: the byte layout of the file header and of each record (16-byte
 * Linux IrDA pseudo-header, then the IrLAP frame: A byte first, unescaped,
 * no BOF/EOF, no FCS); a writer that formats records and hands them to a
 * sink callback; a reader that parses a capture held in memory through
 * common/cursor.h and rejects anything malformed with a message naming
 * the record.
 *
 * Does not own: files.  The core never opens, reads or writes one; see
 * pcap_file.h for the thin host helpers that do.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_PCAP_H
#define IRNET_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"

#define PCAP_MAGIC_USEC 0xa1b2c3d4u
#define PCAP_MAGIC_NSEC 0xa1b23c4du
#define PCAP_VERSION_MAJOR 2
#define PCAP_VERSION_MINOR 4
#define PCAP_LINKTYPE_LINUX_IRDA 144
#define PCAP_FILE_HEADER_LEN 24
#define PCAP_RECORD_HEADER_LEN 16
#define PCAP_IRDA_HEADER_LEN 16
#define PCAP_ARPHRD_IRDA 783
#define PCAP_IRDA_PROTOCOL 0x0017
/* Enough for any IrLAP frame (2 + 2048) with its pseudo-header. */
#define PCAP_DEFAULT_SNAPLEN 65535u

/* Who sent the frame, as the pseudo-header's packet type says it. */
enum pcap_dir {
	PCAP_DIR_RX = 0,	/* received by the capturing station */
	PCAP_DIR_TX = 4,	/* sent by it */
};

/* ------------------------------------------------------------------ */
/* Writing                                                              */

/* Appends the 24-byte file header (little-endian, microseconds). */
bool pcap_format_file_header(struct wcursor *w, uint32_t snaplen);
/* Bytes one record takes: record header + pseudo-header + frame. */
size_t pcap_record_size(size_t frame_len);
/* Appends one record.  ts_us is the capture time in microseconds since
 * the Unix epoch (or any origin the host likes: tests use 0).  Frames
 * longer than snaplen - 16 are cut and their original length recorded.
 * Returns false if w has no room. */
bool pcap_format_record(struct wcursor *w, uint32_t snaplen, uint64_t ts_us,
			enum pcap_dir dir, const uint8_t *frame, size_t frame_len);

/* Where formatted bytes go: returns 0 or a negative errno. */
typedef int (*pcap_sink_fn)(void *ctx, const uint8_t *bytes, size_t len);

struct pcap_writer {
	pcap_sink_fn sink;
	void *ctx;
	uint32_t snaplen;
	uint64_t records;
	int error;		/* first sink error, sticky */
};

/* Sets the writer up and writes the file header through the sink.
 * snaplen 0 means PCAP_DEFAULT_SNAPLEN.  Returns 0 or the sink's error. */
int pcap_writer_init(struct pcap_writer *pw, pcap_sink_fn sink, void *ctx,
		     uint32_t snaplen);
/* Formats one record and hands it to the sink in two calls (the 32
 * header bytes, then the frame, cut to the snaplen), copying nothing.
 * After a sink error every call returns that error. */
int pcap_writer_frame(struct pcap_writer *pw, uint64_t ts_us, enum pcap_dir dir,
		      const uint8_t *frame, size_t frame_len);

/* ------------------------------------------------------------------ */
/* Reading                                                              */

struct pcap_record {
	uint64_t ts_us;		/* seconds * 10^6 + fraction */
	enum pcap_dir dir;
	uint16_t packet_type;	/* as stored: 0..3 read as RX, 4 as TX */
	const uint8_t *frame;	/* into the caller's buffer */
	size_t frame_len;	/* captured bytes after the pseudo-header */
	uint32_t orig_len;	/* frame length on the air (>= frame_len) */
	size_t index;		/* 1-based record number */
	size_t offset;		/* byte offset of the record header */
};

struct pcap_reader {
	struct cursor c;
	bool swapped;		/* file written big-endian */
	bool nsec;		/* nanosecond timestamps */
	uint32_t snaplen;
	uint32_t linktype;
	size_t records;		/* records returned so far */
	bool failed;
	char error[160];
};

/* Checks the file header of a capture held in data[0..len) (which must
 * outlive the reader).  Returns 0, or -EINVAL with the reason in
 * pr->error ("not a pcap file (magic 0x...)", "link type 1, not 144",
 * ...). */
int pcap_reader_init(struct pcap_reader *pr, const void *data, size_t len);
/* Returns 1 and fills rec, 0 at the clean end of the file, or -EINVAL
 * with pr->error naming the record ("record 12 at offset 345: ...").
 * Errors are sticky. */
int pcap_reader_next(struct pcap_reader *pr, struct pcap_record *rec);
const char *pcap_reader_error(const struct pcap_reader *pr);

#endif
