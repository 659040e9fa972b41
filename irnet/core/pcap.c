/*
 * pcap.c: pcap records for LINKTYPE_LINUX_IRDA.  See pcap.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "pcap.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The largest snaplen accepted when reading (libpcap's own maximum). */
#define PCAP_MAX_SNAPLEN 262144u
#define HDRS_LEN (PCAP_RECORD_HEADER_LEN + PCAP_IRDA_HEADER_LEN)

bool pcap_format_file_header(struct wcursor *w, uint32_t snaplen)
{
	wcursor_le32(w, PCAP_MAGIC_USEC);
	wcursor_le16(w, PCAP_VERSION_MAJOR);
	wcursor_le16(w, PCAP_VERSION_MINOR);
	wcursor_le32(w, 0);		/* thiszone: UTC */
	wcursor_le32(w, 0);		/* sigfigs */
	wcursor_le32(w, snaplen);
	return wcursor_le32(w, PCAP_LINKTYPE_LINUX_IRDA);
}

size_t pcap_record_size(size_t frame_len)
{
	return HDRS_LEN + frame_len;
}

/* The captured part of a frame: what fits in the snaplen. */
static size_t captured(uint32_t snaplen, size_t frame_len)
{
	size_t room = snaplen > PCAP_IRDA_HEADER_LEN ? snaplen - PCAP_IRDA_HEADER_LEN : 0;
	return frame_len < room ? frame_len : room;
}

static void format_headers(struct wcursor *w, uint32_t snaplen, uint64_t ts_us,
			   enum pcap_dir dir, size_t frame_len)
{
	size_t cap = captured(snaplen, frame_len);
	uint64_t orig = PCAP_IRDA_HEADER_LEN + (uint64_t)frame_len;

	wcursor_le32(w, (uint32_t)(ts_us / 1000000));
	wcursor_le32(w, (uint32_t)(ts_us % 1000000));
	wcursor_le32(w, (uint32_t)(PCAP_IRDA_HEADER_LEN + cap));
	wcursor_le32(w, orig > UINT32_MAX ? UINT32_MAX : (uint32_t)orig);
	/* the Linux IrDA pseudo-header is big-endian */
	wcursor_be16(w, (uint16_t)dir);
	wcursor_be16(w, PCAP_ARPHRD_IRDA);
	wcursor_be16(w, 0);		/* no link-layer address */
	wcursor_fill(w, 0, 8);
	wcursor_be16(w, PCAP_IRDA_PROTOCOL);
}

bool pcap_format_record(struct wcursor *w, uint32_t snaplen, uint64_t ts_us,
			enum pcap_dir dir, const uint8_t *frame, size_t frame_len)
{
	format_headers(w, snaplen, ts_us, dir, frame_len);
	return wcursor_bytes(w, frame, captured(snaplen, frame_len));
}

int pcap_writer_init(struct pcap_writer *pw, pcap_sink_fn sink, void *ctx,
		     uint32_t snaplen)
{
	uint8_t hdr[PCAP_FILE_HEADER_LEN];
	struct wcursor w;

	memset(pw, 0, sizeof(*pw));
	pw->sink = sink;
	pw->ctx = ctx;
	pw->snaplen = snaplen ? snaplen : PCAP_DEFAULT_SNAPLEN;
	if (!sink || pw->snaplen < PCAP_IRDA_HEADER_LEN + 2)
		return pw->error = -EINVAL;
	wcursor_init(&w, hdr, sizeof(hdr));
	pcap_format_file_header(&w, pw->snaplen);
	int rc = sink(ctx, hdr, wcursor_len(&w));
	if (rc < 0)
		pw->error = rc;
	return rc < 0 ? rc : 0;
}

int pcap_writer_frame(struct pcap_writer *pw, uint64_t ts_us, enum pcap_dir dir,
		      const uint8_t *frame, size_t frame_len)
{
	uint8_t hdr[HDRS_LEN];
	struct wcursor w;

	if (pw->error)
		return pw->error;
	wcursor_init(&w, hdr, sizeof(hdr));
	format_headers(&w, pw->snaplen, ts_us, dir, frame_len);
	int rc = pw->sink(pw->ctx, hdr, wcursor_len(&w));
	size_t cap = captured(pw->snaplen, frame_len);
	if (rc >= 0 && cap > 0)
		rc = pw->sink(pw->ctx, frame, cap);
	if (rc < 0)
		return pw->error = rc;
	pw->records++;
	return 0;
}

/* ------------------------------------------------------------------ */

__attribute__((format(printf, 2, 3)))
static int fail(struct pcap_reader *pr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pr->error, sizeof(pr->error), fmt, ap);
	va_end(ap);
	pr->failed = true;
	cursor_fail(&pr->c);
	return -EINVAL;
}

static uint32_t rd32(struct pcap_reader *pr, struct cursor *c)
{
	uint32_t v;

	if (pr->swapped)
		cursor_be32(c, &v);
	else
		cursor_le32(c, &v);
	return v;
}

static uint16_t rd16(struct pcap_reader *pr, struct cursor *c)
{
	uint16_t v;

	if (pr->swapped)
		cursor_be16(c, &v);
	else
		cursor_le16(c, &v);
	return v;
}

int pcap_reader_init(struct pcap_reader *pr, const void *data, size_t len)
{
	uint32_t magic;

	memset(pr, 0, sizeof(*pr));
	cursor_init(&pr->c, data, len);
	if (len < PCAP_FILE_HEADER_LEN)
		return fail(pr, "truncated file header (%zu of %d bytes)",
			    len, PCAP_FILE_HEADER_LEN);
	cursor_le32(&pr->c, &magic);
	switch (magic) {
	case PCAP_MAGIC_USEC:
		break;
	case PCAP_MAGIC_NSEC:
		pr->nsec = true;
		break;
	case 0xd4c3b2a1u:
		pr->swapped = true;
		break;
	case 0x4d3cb2a1u:
		pr->swapped = pr->nsec = true;
		break;
	default:
		return fail(pr, "not a pcap file (magic 0x%08x)", magic);
	}
	uint16_t major = rd16(pr, &pr->c), minor = rd16(pr, &pr->c);
	if (major != PCAP_VERSION_MAJOR || minor != PCAP_VERSION_MINOR)
		return fail(pr, "pcap version %u.%u, not 2.4", major, minor);
	cursor_skip(&pr->c, 8);		/* thiszone, sigfigs */
	pr->snaplen = rd32(pr, &pr->c);
	pr->linktype = rd32(pr, &pr->c);
	if (pr->snaplen < PCAP_IRDA_HEADER_LEN || pr->snaplen > PCAP_MAX_SNAPLEN)
		return fail(pr, "snaplen %u out of range (%d..%u)", pr->snaplen,
			    PCAP_IRDA_HEADER_LEN, PCAP_MAX_SNAPLEN);
	if (pr->linktype != PCAP_LINKTYPE_LINUX_IRDA)
		return fail(pr, "link type %u, not %d (LINUX_IRDA)", pr->linktype,
			    PCAP_LINKTYPE_LINUX_IRDA);
	return 0;
}

int pcap_reader_next(struct pcap_reader *pr, struct pcap_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	if (pr->failed)
		return -EINVAL;
	size_t offset = pr->c.pos;
	size_t index = pr->records + 1;
	size_t left = cursor_remaining(&pr->c);
	if (left == 0)
		return 0;
	if (left < PCAP_RECORD_HEADER_LEN)
		return fail(pr, "record %zu at offset %zu: truncated record header "
			    "(%zu of %d bytes)", index, offset, left, PCAP_RECORD_HEADER_LEN);

	uint32_t sec = rd32(pr, &pr->c), frac = rd32(pr, &pr->c);
	uint32_t incl = rd32(pr, &pr->c), orig = rd32(pr, &pr->c);
	if (frac >= (pr->nsec ? 1000000000u : 1000000u))
		return fail(pr, "record %zu at offset %zu: timestamp fraction %u out of range",
			    index, offset, frac);
	if (incl > pr->snaplen)
		return fail(pr, "record %zu at offset %zu: captured length %u exceeds "
			    "snaplen %u", index, offset, incl, pr->snaplen);
	if (incl > orig)
		return fail(pr, "record %zu at offset %zu: captured length %u exceeds "
			    "original length %u", index, offset, incl, orig);
	if (incl < PCAP_IRDA_HEADER_LEN)
		return fail(pr, "record %zu at offset %zu: %u bytes, too short for the "
			    "%d-byte IrDA header", index, offset, incl, PCAP_IRDA_HEADER_LEN);
	struct cursor body;
	if (!cursor_sub(&pr->c, incl, &body))
		return fail(pr, "record %zu at offset %zu: truncated record (%u bytes "
			    "captured, %zu left in the file)", index, offset, incl,
			    left - PCAP_RECORD_HEADER_LEN);

	uint16_t ptype, arphrd, alen, proto;
	cursor_be16(&body, &ptype);
	cursor_be16(&body, &arphrd);
	cursor_be16(&body, &alen);
	cursor_skip(&body, 8);
	cursor_be16(&body, &proto);
	if (ptype > PCAP_DIR_TX)
		return fail(pr, "record %zu at offset %zu: packet type %u unknown",
			    index, offset, ptype);
	if (arphrd != PCAP_ARPHRD_IRDA)
		return fail(pr, "record %zu at offset %zu: ARPHRD type %u, not %d (IrDA)",
			    index, offset, arphrd, PCAP_ARPHRD_IRDA);
	if (alen > 8)
		return fail(pr, "record %zu at offset %zu: address length %u over 8",
			    index, offset, alen);
	if (proto != PCAP_IRDA_PROTOCOL)
		return fail(pr, "record %zu at offset %zu: protocol 0x%04x, not 0x%04x",
			    index, offset, proto, PCAP_IRDA_PROTOCOL);

	rec->frame_len = cursor_remaining(&body);
	cursor_view(&body, rec->frame_len, &rec->frame);
	rec->orig_len = orig - PCAP_IRDA_HEADER_LEN;
	rec->packet_type = ptype;
	rec->dir = ptype == PCAP_DIR_TX ? PCAP_DIR_TX : PCAP_DIR_RX;
	rec->ts_us = (uint64_t)sec * 1000000 + (pr->nsec ? frac / 1000 : frac);
	rec->index = index;
	rec->offset = offset;
	pr->records = index;
	return 1;
}

const char *pcap_reader_error(const struct pcap_reader *pr)
{
	return pr->failed ? pr->error : "";
}
