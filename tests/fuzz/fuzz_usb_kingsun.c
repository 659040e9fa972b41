/*
 * fuzz_usb_kingsun.c: the KingSun receive parsers on arbitrary input,
 * alone and through the cores.
 *
 * Alone: kingsun_report must give a count inside the report and the
 * endpoint's size, or refuse it; ks959_deobfuscate must match the
 * digest's rule (b ^ k ^ 0x55, k up before each byte, the byte at k's
 * wrap dropped) written out here, however the input is split.
 * Through a core (opened by an auto-answering host): every receive
 * transfer is answered by exactly one new one, nothing fails, and the
 * frames delivered are the ones a SIR decoder finds in the stream the
 * digest's rules give (KingSun: at most those, since stale repeats are
 * dropped); then the first frame is sent back and its pieces must
 * reassemble into the SIR-wrapped frame.
 *
 * Input: byte 0 picks the family (and the KingSun report size), byte 1
 * seeds how the rest is cut into transfers (KingSun: reports of exactly
 * the report size).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_chunks.h"
#include "kingsun.h"
#include "sir.h"
#include "usb_dongle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Frames as a count and a running hash of their lengths and bytes. */
struct frames {
	size_t n;
	uint64_t hash;
	uint8_t first[KINGSUN_FRAME_MAX];
	size_t first_len;
};

static void add_frame(struct frames *fr, const uint8_t *p, size_t len)
{
	if (len < 2 || len > KINGSUN_FRAME_MAX)
		abort();
	if (fr->n == 0) {
		memcpy(fr->first, p, len);
		fr->first_len = len;
	}
	fr->n++;
	fr->hash = (fr->hash ^ len) * 0x100000001B3ull;
	for (size_t i = 0; i < len; i++)
		fr->hash = (fr->hash ^ p[i]) * 0x100000001B3ull;
}

static void ref_frame(void *ctx, const uint8_t *p, size_t len)
{
	add_frame(ctx, p, len);
}

/* --- the host --- */

struct host {
	struct frames got;
	bool rx_posted, ctrl_pending, tx_pending;
	struct usb_xfer tx;
	uint8_t tx_data[KS959_PADDED_MAX + 8];
	uint8_t sent[KINGSUN_TX_MAX];	/* the TX pieces put back together */
	size_t sent_len;
	bool bad;
};

static void h_submit(void *ctx, const struct usb_xfer *x)
{
	struct host *h = ctx;

	switch (x->tag) {
	case KINGSUN_TAG_RX:
		if (h->rx_posted)
			abort();	/* two of one tag */
		h->rx_posted = true;
		break;
	case KINGSUN_TAG_CTRL:
		h->ctrl_pending = true;
		break;
	case KINGSUN_TAG_TX:
		h->tx = *x;
		h->tx_pending = true;
		break;
	default:
		abort();
	}
}

static void h_cancel(void *ctx, uint32_t tag)
{
	(void)ctx;
	(void)tag;
}

static void h_frame(void *ctx, const struct usb_rx_frame *f)
{
	struct host *h = ctx;

	add_frame(&h->got, f->data, f->len);
}

static void h_event(void *ctx, enum usb_dongle_event ev, int err)
{
	(void)ctx;
	(void)err;
	if (ev == USB_EVENT_FAILED || ev == USB_EVENT_GONE)
		abort();
}

/* --- the digest's rules, written out --- */

struct ref {
	uint8_t k;
	struct sir_decoder *sir;
	const uint8_t *last;
	size_t last_len;
};

static void ref_ks959(struct ref *r, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		r->k = (uint8_t)(r->k + 1);
		if (r->k == 0)
			continue;
		uint8_t c = (uint8_t)(b[i] ^ r->k ^ 0x55);
		sir_decoder_feed(r->sir, &c, 1);
	}
}

static void ref_kingsun(struct ref *r, const uint8_t *b, size_t n, size_t max)
{
	if (n == 0 || b[0] == 0 || b[0] >= max || b[0] > n - 1)
		return;
	sir_decoder_feed(r->sir, b + 1, b[0]);
}

/* --- pure parsers --- */

static void check_report(const uint8_t *b, size_t n, size_t max)
{
	struct cursor in;
	const uint8_t *p = NULL;

	cursor_init(&in, b, n);
	int rc = kingsun_report(&in, max, &p);
	bool valid = n > 0 && b[0] != 0 && b[0] < max && b[0] <= n - 1;
	if (valid != (rc > 0))
		abort();
	if (rc > 0 && ((size_t)rc != b[0] || p != b + 1))
		abort();
	if (rc <= 0 && rc != -ENODATA && rc != -EPROTO)
		abort();
}

/* The counter runs on across calls cut by small output buffers. */
static void check_deobfuscate(const uint8_t *b, size_t n)
{
	static uint8_t out[4096], ref[4096];
	uint8_t k = 0, kr = 0;
	size_t got = 0, want = 0;
	struct cursor in;

	if (n > sizeof out)
		n = sizeof out;
	cursor_init(&in, b, n);
	for (size_t cap = 1; cursor_remaining(&in) > 0; cap = cap % 7 + 1) {
		struct wcursor w;
		size_t before = cursor_remaining(&in);
		wcursor_init(&w, out + got, cap < sizeof out - got ? cap : sizeof out - got);
		got += ks959_deobfuscate(&k, &in, &w);
		if (cursor_remaining(&in) == before)
			abort();	/* room and input: it must move on */
	}
	for (size_t i = 0; i < n; i++) {
		kr = (uint8_t)(kr + 1);
		if (kr != 0)
			ref[want++] = (uint8_t)(b[i] ^ kr ^ 0x55);
	}
	if (got != want || k != kr || memcmp(out, ref, got) != 0)
		abort();
}

/* --- through the core --- */

struct run {
	struct usb_dongle *d;
	struct host *h;
	struct ref *r;
	int family;
	size_t max;
};

static void answer_ctrl(struct run *u)
{
	for (int guard = 0; u->h->ctrl_pending && guard < 4; guard++) {
		u->h->ctrl_pending = false;
		struct usb_completion c = { .tag = KINGSUN_TAG_CTRL, .status = USB_STATUS_OK };
		usb_dongle_complete(u->d, &c, 0);
	}
	if (u->h->ctrl_pending)
		abort();
}

static void one_transfer(void *ctx, const uint8_t *b, size_t n)
{
	struct run *u = ctx;

	if (!u->h->rx_posted)
		abort();
	u->h->rx_posted = false;
	uint8_t *copy = malloc(n ? n : 1);	/* exactly n bytes: ASan sees overreads */
	if (!copy)
		abort();
	memcpy(copy, b, n);
	struct usb_completion c = {
		.tag = KINGSUN_TAG_RX, .status = USB_STATUS_OK, .data = copy, .actual = n,
	};
	usb_dongle_complete(u->d, &c, 1);
	if (!u->h->rx_posted)
		abort();	/* the receive transfer is always resubmitted */
	switch (u->family) {
	case 0:
		ref_ks959(u->r, copy, n);
		break;
	case 1:
		sir_decoder_feed(u->r->sir, copy, n);
		break;
	default:
		ref_kingsun(u->r, copy, n, u->max);
		break;
	}
	free(copy);
}

/* Sends the frame and puts its pieces back together as the chip would. */
static void send_back(struct run *u, const uint8_t *frame, size_t len)
{
	struct host *h = u->h;
	struct usb_tx_frame f = { .data = frame, .len = len, .xbofs = 3 };
	uint8_t want[KINGSUN_TX_MAX];
	struct wcursor w;

	wcursor_init(&w, want, sizeof want);
	int n = kingsun_wrap(9600, &f, &w);
	if (n <= 0 || usb_dongle_send(u->d, &f, 0) != 0)
		abort();
	h->sent_len = 0;
	for (int guard = 0; h->tx_pending && guard < 1000; guard++) {
		h->tx_pending = false;
		const struct usb_xfer *x = &h->tx;
		size_t clear = 0;
		const uint8_t *p = x->data;
		if (u->family == 0) {
			clear = x->setup.value;
			if (clear == 0 || clear > KS959_FRAG_MAX || x->length != ks959_padded_len(clear))
				abort();
			uint8_t mask = ks959_mask(clear);
			for (size_t i = 0; i < clear; i++)
				h->sent[h->sent_len + i] = p[i] ^ mask;
			for (size_t i = clear; i < x->length; i++)
				if (p[i] != 0)
					abort();
		} else if (u->family == 1) {
			if (x->length != KSDAZZLE_PACKET || p[0] < 0xF9)
				abort();
			clear = (size_t)p[0] - 0xF8;
			memcpy(h->sent + h->sent_len, p + 1, clear);
		} else {
			clear = x->length;
			memcpy(h->sent + h->sent_len, p, clear);
		}
		if (h->sent_len + clear > sizeof h->sent)
			abort();
		h->sent_len += clear;
		struct usb_completion c = { .tag = KINGSUN_TAG_TX, .status = USB_STATUS_OK };
		usb_dongle_complete(u->d, &c, 0);
	}
	if (h->tx_pending || h->sent_len != (size_t)n || memcmp(h->sent, want, (size_t)n) != 0)
		abort();
	if (!usb_dongle_can_send(u->d))
		abort();
}

static const struct usb_family *const families[] = {
	&ks959_family, &ksdazzle_family, &kingsun_family,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	int family = data[0] % 3;
	size_t max = 2 + (size_t)(data[0] / 3) % 254;	/* 2..255 */
	uint32_t seed = 1u + data[1];
	const uint8_t *in = data + 2;
	size_t n = size - 2;

	check_report(in, n, max);
	check_deobfuscate(in, n);

	static struct host h;
	memset(&h, 0, sizeof h);
	struct frames want = { 0 };
	struct sir_decoder_config sc = { .on_frame = ref_frame, .ctx = &want };
	struct ref r = { .sir = sir_decoder_new(&sc) };
	struct usb_dongle_config cfg = {
		.ep = { .intr_in = 0x81, .intr_out = 0x02, .in_max_packet = (uint16_t)max },
		.host = { h_submit, h_cancel, h_frame, h_event, &h },
	};
	struct usb_dongle *d;
	char err[160];
	if (!r.sir || usb_dongle_new(families[family], &cfg, NULL, &d, err, sizeof err) < 0)
		abort();
	struct run u = { .d = d, .h = &h, .r = &r, .family = family, .max = max };
	if (usb_dongle_open(d, 0) != 0)
		abort();
	answer_ctrl(&u);
	if (!usb_dongle_can_send(d))
		abort();
	if (family == 2) {
		/* reports of exactly wMaxPacketSize, as the endpoint gives them */
		for (size_t at = 0; at < n; at += max)
			one_transfer(&u, in + at, n - at < max ? n - at : max);
	} else {
		fuzz_feed_chunks(in, n, seed, one_transfer, &u);
	}
	if (family == 2 ? h.got.n > want.n : (h.got.n != want.n || h.got.hash != want.hash))
		abort();
	if (usb_dongle_counters(d)->rx_frames != h.got.n)
		abort();
	if (h.got.n > 0)
		send_back(&u, h.got.first, h.got.first_len);
	sir_decoder_free(r.sir);
	usb_dongle_free(d);
	return 0;
}
