/*
 * test_pcap.c: the LINKTYPE_LINUX_IRDA writer and reader, the reference
 * Linux IrNET capture, and malformed files.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pcap.h"
#include "pcap_file.h"
#include "test_support.h"
#include "sir_vectors.h"

struct membuf {
	uint8_t data[16384];
	size_t len;
	int fail_after;		/* > 0: the n-th call fails */
	int calls;
};

static int mem_sink(void *ctx, const uint8_t *bytes, size_t len)
{
	struct membuf *m = ctx;

	if (m->fail_after > 0 && ++m->calls >= m->fail_after)
		return -ENOSPC;
	assert_true(m->len + len <= sizeof(m->data));
	memcpy(m->data + m->len, bytes, len);
	m->len += len;
	return 0;
}

static void writes_the_documented_layout(void **state)
{
	struct membuf m = { .len = 0 };
	struct pcap_writer pw;
	const uint8_t rr[] = { 0x5B, 0x11 };
	static const uint8_t want[] = {
		0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xff, 0xff, 0, 0, 144, 0, 0, 0,
		/* ts 1.000002 s, incl 18, orig 18 */
		1, 0, 0, 0, 2, 0, 0, 0, 18, 0, 0, 0, 18, 0, 0, 0,
		/* sent by us, ARPHRD 783, no address, protocol 0x0017 */
		0, 4, 0x03, 0x0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x17,
		0x5B, 0x11,
	};

	assert_int_equal(pcap_writer_init(&pw, mem_sink, &m, 0), 0);
	assert_int_equal(pcap_writer_frame(&pw, 1000002, PCAP_DIR_TX, rr, 2), 0);
	assert_int_equal(m.len, sizeof(want));
	assert_memory_equal(m.data, want, sizeof(want));
	assert_int_equal(pw.records, 1);
	assert_int_equal(pcap_record_size(2), 34);

	/* the buffer formatter gives the same bytes */
	uint8_t buf[64];
	struct wcursor w;
	wcursor_init(&w, buf, sizeof(buf));
	assert_true(pcap_format_file_header(&w, PCAP_DEFAULT_SNAPLEN));
	assert_true(pcap_format_record(&w, PCAP_DEFAULT_SNAPLEN, 1000002, PCAP_DIR_TX, rr, 2));
	assert_int_equal(wcursor_len(&w), sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	/* and says when it does not fit */
	wcursor_init(&w, buf, 40);
	assert_false(pcap_format_record(&w, PCAP_DEFAULT_SNAPLEN, 0, PCAP_DIR_RX, rr, 2) &&
		     pcap_format_record(&w, PCAP_DEFAULT_SNAPLEN, 0, PCAP_DIR_RX, rr, 2));
}

static void digest_frames_round_trip(void **state)
{
	struct membuf m = { .len = 0 };
	struct pcap_writer pw;
	uint8_t frames[SIR_VECTOR_COUNT][64];
	size_t lens[SIR_VECTOR_COUNT];

	assert_int_equal(pcap_writer_init(&pw, mem_sink, &m, 0), 0);
	for (size_t i = 0; i < SIR_VECTOR_COUNT; i++) {
		lens[i] = sir_vector_hex(sir_vectors[i].frame, frames[i], 64);
		assert_true(lens[i] >= 2);
		assert_int_equal(pcap_writer_frame(&pw, 1700000000000000ull + i * 12345,
						   sir_vectors[i].ours ? PCAP_DIR_TX : PCAP_DIR_RX,
						   frames[i], lens[i]), 0);
	}

	struct pcap_reader pr;
	struct pcap_record rec;
	assert_int_equal(pcap_reader_init(&pr, m.data, m.len), 0);
	assert_int_equal(pr.linktype, 144);
	for (size_t i = 0; i < SIR_VECTOR_COUNT; i++) {
		assert_int_equal(pcap_reader_next(&pr, &rec), 1);
		assert_int_equal(rec.index, i + 1);
		assert_int_equal(rec.ts_us, 1700000000000000ull + i * 12345);
		assert_int_equal(rec.dir, sir_vectors[i].ours ? PCAP_DIR_TX : PCAP_DIR_RX);
		assert_int_equal(rec.frame_len, lens[i]);
		assert_int_equal(rec.orig_len, lens[i]);
		assert_memory_equal(rec.frame, frames[i], lens[i]);
	}
	assert_int_equal(pcap_reader_next(&pr, &rec), 0);
	assert_int_equal(pcap_reader_next(&pr, &rec), 0);
	assert_string_equal(pcap_reader_error(&pr), "");
}

static void snaplen_cuts_long_frames(void **state)
{
	struct membuf m = { .len = 0 };
	struct pcap_writer pw;
	uint8_t frame[10] = { 0x5B, 0x10, 1, 2, 3, 4, 5, 6, 7, 8 };

	assert_int_equal(pcap_writer_init(&pw, mem_sink, &m, 20), 0);
	assert_int_equal(pcap_writer_frame(&pw, 5, PCAP_DIR_RX, frame, sizeof(frame)), 0);
	struct pcap_reader pr;
	struct pcap_record rec;
	assert_int_equal(pcap_reader_init(&pr, m.data, m.len), 0);
	assert_int_equal(pcap_reader_next(&pr, &rec), 1);
	assert_int_equal(rec.frame_len, 4);
	assert_int_equal(rec.orig_len, 10);
	assert_memory_equal(rec.frame, frame, 4);
	assert_int_equal(pcap_writer_init(&pw, mem_sink, &m, 17), -EINVAL);
}

static void sink_errors_are_sticky(void **state)
{
	struct membuf m = { .len = 0, .fail_after = 3 };
	struct pcap_writer pw;
	const uint8_t rr[] = { 0x5A, 0x11 };

	assert_int_equal(pcap_writer_init(&pw, mem_sink, &m, 0), 0);	/* call 1 */
	assert_int_equal(pcap_writer_frame(&pw, 0, PCAP_DIR_RX, rr, 2), -ENOSPC);
	m.fail_after = 0;
	assert_int_equal(pcap_writer_frame(&pw, 0, PCAP_DIR_RX, rr, 2), -ENOSPC);
	assert_int_equal(pw.records, 0);
}


static void reads_the_linux_irnet_capture(void **state)
{
	uint8_t *data;
	size_t len;
	int rc = pcap_file_load(reference_capture_path(), 1 << 24, &data, &len);
	if (rc != 0)
		fail_msg("cannot load %s: %s", reference_capture_path(), strerror(-rc));
	assert_int_equal(len, 163014);

	struct pcap_reader pr;
	struct pcap_record rec;
	assert_int_equal(pcap_reader_init(&pr, data, len), 0);
	assert_int_equal(pr.snaplen, 65535);
	size_t n = 0, tx = 0, rx = 0, longest = 0;
	uint64_t first_ts = 0, last_ts = 0, prev = 0;
	while ((rc = pcap_reader_next(&pr, &rec)) == 1) {
		if (n == 0) {
			first_ts = rec.ts_us;
			/* an XID command with P, broadcast, slot 0 */
			static const uint8_t xid[] = { 0xFF, 0x3F, 0x01, 0x2C, 0x85, 0xBA, 0xBD,
						       0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00 };
			assert_int_equal(rec.frame_len, sizeof(xid));
			assert_memory_equal(rec.frame, xid, sizeof(xid));
			assert_int_equal(rec.dir, PCAP_DIR_TX);
		}
		if (n == 3) {
			/* the peer's XID response */
			assert_int_equal(rec.dir, PCAP_DIR_RX);
			assert_int_equal(rec.frame[0], 0xFE);
			assert_int_equal(rec.frame[1] & ~0x10, 0xAF);
		}
		assert_true(rec.ts_us >= prev);
		prev = last_ts = rec.ts_us;
		assert_int_equal(rec.orig_len, rec.frame_len);
		assert_true(rec.frame_len >= 2);
		if (rec.frame_len > longest)
			longest = rec.frame_len;
		if (rec.dir == PCAP_DIR_TX)
			tx++;
		else
			rx++;
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 343);
	assert_int_equal(tx, 154);
	assert_int_equal(rx, 189);
	assert_int_equal(longest, 1506);
	assert_int_equal(first_ts, 8451900);
	assert_int_equal(last_ts, 22045400);
	free(data);
}

static void load_reports_missing_files(void **state)
{
	uint8_t *data;
	size_t len;
	assert_int_equal(pcap_file_load("/nonexistent/x.pcap", 100, &data, &len), -ENOENT);
	assert_int_equal(pcap_file_load(reference_capture_path(), 1000, &data, &len), -EFBIG);
	assert_null(data);
}

/* A small valid capture to damage: header + two records. */
static size_t good_file(uint8_t *buf, size_t cap)
{
	struct wcursor w;
	const uint8_t f1[] = { 0x5B, 0x11 }, f2[] = { 0x5A, 0x73, 1, 2, 3 };
	wcursor_init(&w, buf, cap);
	pcap_format_file_header(&w, 64);
	pcap_format_record(&w, 64, 10, PCAP_DIR_TX, f1, sizeof(f1));
	pcap_format_record(&w, 64, 20, PCAP_DIR_RX, f2, sizeof(f2));
	assert_true(wcursor_ok(&w));
	return wcursor_len(&w);
}

static void expect_error(const uint8_t *buf, size_t len, int ok_records, const char *needle)
{
	struct pcap_reader pr;
	struct pcap_record rec;
	int rc = pcap_reader_init(&pr, buf, len);
	int got = 0;
	while (rc == 0 && (rc = pcap_reader_next(&pr, &rec)) == 1)
		got++, rc = 0;
	if (rc != -EINVAL)
		fail_msg("no error for the case \"%s\"", needle);
	assert_int_equal(got, ok_records);
	if (!strstr(pcap_reader_error(&pr), needle))
		fail_msg("error \"%s\" does not mention \"%s\"", pcap_reader_error(&pr), needle);
	/* sticky */
	assert_int_equal(pcap_reader_next(&pr, &rec), -EINVAL);
	assert_null(rec.frame);
}

static void rejects_malformed_files(void **state)
{
	uint8_t good[256], bad[256];
	size_t n = good_file(good, sizeof(good));
	/* records: header 24, rec1 at 24 (16+18), rec2 at 58 (16+21), total 95 */
	assert_int_equal(n, 95);

	expect_error(good, 0, 0, "truncated file header (0 of 24");
	expect_error(good, 23, 0, "truncated file header (23 of 24");

	memcpy(bad, good, n);
	bad[0] = 0x0a;
	expect_error(bad, n, 0, "not a pcap file (magic 0xa1b2c30a)");

	memcpy(bad, good, n);
	bad[4] = 1;
	expect_error(bad, n, 0, "version 1.4");

	memcpy(bad, good, n);
	bad[20] = 1;
	expect_error(bad, n, 0, "link type 1, not 144");

	memcpy(bad, good, n);
	bad[16] = 8;	/* snaplen 8 */
	expect_error(bad, n, 0, "snaplen 8");

	/* a record longer than the snaplen (64): incl 65 */
	memcpy(bad, good, n);
	bad[58 + 8] = 65;
	bad[58 + 12] = 70;
	expect_error(bad, n, 1, "record 2 at offset 58: captured length 65 exceeds snaplen 64");

	/* truncated record: the last byte missing */
	expect_error(good, n - 1, 1, "record 2 at offset 58: truncated record (21 bytes captured, 20 left");
	/* truncated record header */
	expect_error(good, 58 + 7, 1, "record 2 at offset 58: truncated record header (7 of 16");

	memcpy(bad, good, n);
	bad[24 + 12] = 17;	/* orig 17 < incl 18 */
	expect_error(bad, n, 0, "record 1 at offset 24: captured length 18 exceeds original length 17");

	memcpy(bad, good, n);
	bad[24 + 8] = 3;	/* incl 3: no room for the pseudo-header */
	expect_error(bad, n, 0, "record 1 at offset 24: 3 bytes, too short");

	memcpy(bad, good, n);
	bad[24 + 7] = 0x40;	/* usec 0x40000000: far over 10^6 */
	expect_error(bad, n, 0, "timestamp fraction");

	memcpy(bad, good, n);
	bad[40 + 1] = 7;	/* packet type 7 */
	expect_error(bad, n, 0, "record 1 at offset 24: packet type 7");

	memcpy(bad, good, n);
	bad[58 + 16 + 3] = 0x10;	/* ARPHRD 784 */
	expect_error(bad, n, 1, "record 2 at offset 58: ARPHRD type 784");

	memcpy(bad, good, n);
	bad[40 + 5] = 9;	/* address length 9 */
	expect_error(bad, n, 0, "address length 9");

	memcpy(bad, good, n);
	bad[40 + 15] = 0x18;	/* protocol 0x0018 */
	expect_error(bad, n, 0, "protocol 0x0018");
}

static void reads_big_endian_files(void **state)
{
	uint8_t le[256], be[256];
	size_t n = good_file(le, sizeof(le));
	memcpy(be, le, n);
	/* swap the file header's fields and each record header's */
	static const size_t swap4[] = { 0, 8, 12, 16, 20, 24, 28, 32, 36, 58, 62, 66, 70 };
	for (size_t i = 0; i < sizeof(swap4) / sizeof(swap4[0]); i++)
		for (size_t k = 0; k < 4; k++)
			be[swap4[i] + k] = le[swap4[i] + 3 - k];
	be[4] = le[5], be[5] = le[4], be[6] = le[7], be[7] = le[6];

	struct pcap_reader pr;
	struct pcap_record rec;
	assert_int_equal(pcap_reader_init(&pr, be, n), 0);
	assert_true(pr.swapped);
	assert_int_equal(pcap_reader_next(&pr, &rec), 1);
	assert_int_equal(rec.ts_us, 10);
	assert_int_equal(rec.frame_len, 2);
	assert_int_equal(pcap_reader_next(&pr, &rec), 1);
	assert_int_equal(rec.ts_us, 20);
	assert_int_equal(rec.frame_len, 5);
	assert_int_equal(rec.dir, PCAP_DIR_RX);
	assert_int_equal(pcap_reader_next(&pr, &rec), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writes_the_documented_layout),
		cmocka_unit_test(digest_frames_round_trip),
		cmocka_unit_test(snaplen_cuts_long_frames),
		cmocka_unit_test(sink_errors_are_sticky),
		cmocka_unit_test(reads_the_linux_irnet_capture),
		cmocka_unit_test(load_reports_missing_files),
		cmocka_unit_test(rejects_malformed_files),
		cmocka_unit_test(reads_big_endian_files),
	};
	return cmocka_run_group_tests_name("pcap", tests, NULL, NULL);
}
