/*
 * fake_pppd.c: the test's pppd (fake_pppd.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include "fake_pppd.h"

/* Says which frame came instead of the one expected: another expected
 * frame (duplicated or reordered), a piece of one (cut), or nothing known
 * (joined or corrupt), so that a failure under load can be diagnosed from
 * the log alone. */
static void report_mismatch(const struct fake_pppd *p, const uint8_t *f, size_t len)
{
	print_message("fake pppd: frame %zu of %zu: got %zu bytes, want %zu\n", p->got,
		      p->nexpect, len, p->got < p->nexpect ? p->expect[p->got].len : 0);
	for (size_t i = 0; i < p->nexpect; i++) {
		const struct fake_frame *x = &p->expect[i];
		if (x->len == len && memcmp(x->data, f, len) == 0)
			print_message("fake pppd:   it is expected frame %zu\n", i);
		else if (len < x->len && memcmp(x->data, f, len) == 0)
			print_message("fake pppd:   it is the head of expected frame %zu\n", i);
		else if (len < x->len && memcmp(x->data + x->len - len, f, len) == 0)
			print_message("fake pppd:   it is the tail of expected frame %zu\n", i);
		else if (len > x->len && memcmp(x->data, f, x->len) == 0)
			print_message("fake pppd:   it starts with expected frame %zu\n", i);
		if (getenv("FAKE_PPPD_LOCATE") && len >= 16)
			for (size_t o = 0; o + 16 <= x->len; o++) {
				if (memcmp(x->data + o, f, 16) == 0)
					print_message("fake pppd:   its head is at %zu of frame %zu\n", o, i);
				if (memcmp(x->data + o, f + len - 16, 16) == 0)
					print_message("fake pppd:   its end is at %zu of frame %zu\n", o + 16, i);
			}
	}
}

static void on_frame(void *ctx, const uint8_t *f, size_t len)
{
	struct fake_pppd *p = ctx;

	if (p->expect && (p->got >= p->nexpect || p->expect[p->got].len != len ||
			  memcmp(p->expect[p->got].data, f, len) != 0)) {
		p->mismatch = true;
		report_mismatch(p, f, len);
	}
	p->got++;
	p->bytes_got += len;
	p->last_frame_us = eloop_now_us();
}

void fake_pppd_setup(struct fake_pppd *p, struct eloop *loop, uint32_t accm)
{
	struct ppp_hdlc_decoder_config dc = { .max_frame = 4096, .on_frame = on_frame, .ctx = p };

	memset(p, 0, sizeof(*p));
	p->loop = loop;
	p->fd = -1;
	ppp_hdlc_encoder_init(&p->enc, accm);
	p->dec = ppp_hdlc_decoder_new(&dc);
	assert_non_null(p->dec);
}

static void on_writable(struct eloop *loop, int fd, void *ctx)
{
	(void)loop;
	(void)fd;
	fake_pppd_write(ctx);
}

void fake_pppd_write(struct fake_pppd *p)
{
	while (p->out_off < p->out_len) {
		ssize_t w = write(p->fd, p->out + p->out_off, p->out_len - p->out_off);
		if (w < 0 && errno == EAGAIN) {
			eloop_add_writer(p->loop, p->fd, on_writable, p);
			return;
		}
		assert_true(w > 0);
		p->out_off += (size_t)w;
	}
	eloop_remove_writer(p->loop, p->fd);
}

static void on_readable(struct eloop *loop, int fd, void *ctx)
{
	struct fake_pppd *p = ctx;
	uint8_t buf[4096];
	ssize_t n;
	(void)loop;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			p->raw_controls += buf[i] < 0x20;
		if (p->rec) {
			/* pppd's record format: type 2 (received), 16-bit
			 * big-endian count, the bytes */
			uint8_t hdr[3] = { 2, (uint8_t)(n >> 8), (uint8_t)n };
			assert_int_equal(fwrite(hdr, 1, 3, p->rec), 3);
			assert_int_equal(fwrite(buf, 1, (size_t)n, p->rec), (size_t)n);
		}
		ppp_hdlc_decoder_feed(p->dec, buf, (size_t)n);
	}
	if (n == 0) {
		p->eof = true;
		eloop_remove_reader(p->loop, fd);
	}
}

void fake_pppd_read_on(struct fake_pppd *p)
{
	p->reading = true;
	assert_int_equal(eloop_add_reader(p->loop, p->fd, on_readable, p), 0);
}

void fake_pppd_queue(struct fake_pppd *p, const struct fake_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t cap = ppp_hdlc_encoded_max(f[i].len);
		struct wcursor w;
		uint8_t *b = realloc(p->out, p->out_len + cap);
		assert_non_null(b);
		p->out = b;
		wcursor_init(&w, p->out + p->out_len, cap);
		int k = ppp_hdlc_encode(&p->enc, &w, f[i].data, f[i].len, 0);
		assert_true(k > 0);
		/* a letter changed: the FCS no longer matches */
		if (f[i].bad)
			p->out[p->out_len + 5] = p->out[p->out_len + 5] == 'A' ? 'B' : 'A';
		p->out_len += (size_t)k;
	}
}

void fake_pppd_start(struct fake_pppd *p, int fd, bool reading)
{
	p->fd = fd;
	assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
	if (reading)
		fake_pppd_read_on(p);
	fake_pppd_write(p);
}

void fake_pppd_free(struct fake_pppd *p)
{
	if (p->fd >= 0) {
		eloop_remove_reader(p->loop, p->fd);
		eloop_remove_writer(p->loop, p->fd);
		close(p->fd);
		p->fd = -1;
	}
	ppp_hdlc_decoder_free(p->dec);
	p->dec = NULL;
	free(p->out);
	p->out = NULL;
}

int fake_pppd_open_slave(const char *path)
{
	struct termios tio;
	int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);

	assert_true(fd >= 0);
	assert_int_equal(tcgetattr(fd, &tio), 0);
	cfmakeraw(&tio);
	assert_int_equal(tcsetattr(fd, TCSANOW, &tio), 0);
	return fd;
}
