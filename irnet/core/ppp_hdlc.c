/*
 * ppp_hdlc.c: RFC 1662 async HDLC-like framing for PPP.  See ppp_hdlc.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ppp_hdlc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fcs.h"

/* The shortest frame worth delivering: one byte and the FCS. */
#define MIN_STORED (1 + PPP_HDLC_FCS_LEN)

/* ------------------------------------------------------------------ */
/* Encoding                                                             */

static void set_escape(struct ppp_hdlc_encoder *e, uint8_t b)
{
	e->escape[b >> 3] |= (uint8_t)(1u << (b & 7));
}

static inline bool escaped(const struct ppp_hdlc_encoder *e, uint8_t b)
{
	return (e->escape[b >> 3] >> (b & 7)) & 1u;
}

void ppp_hdlc_encoder_init(struct ppp_hdlc_encoder *e, uint32_t accm)
{
	memset(e, 0, sizeof(*e));
	e->accm = accm;
	for (unsigned b = 0; b < 32; b++)
		if (accm & (1u << b))
			set_escape(e, (uint8_t)b);
	set_escape(e, PPP_HDLC_ESC);
	set_escape(e, PPP_HDLC_FLAG);
}

size_t ppp_hdlc_encoded_max(size_t frame_len)
{
	return 2 * (frame_len + PPP_HDLC_FCS_LEN) + 2;
}

static size_t escaped_len(const struct ppp_hdlc_encoder *e, const uint8_t *p, size_t n)
{
	size_t len = n;

	for (size_t i = 0; i < n; i++)
		len += escaped(e, p[i]);
	return len;
}

static void fcs_bytes(const uint8_t *frame, size_t frame_len, uint8_t out[2])
{
	uint16_t fcs = fcs_compute(frame, frame_len);

	out[0] = (uint8_t)(fcs & 0xFF);	/* low byte first */
	out[1] = (uint8_t)(fcs >> 8);
}

size_t ppp_hdlc_encoded_len(const struct ppp_hdlc_encoder *e,
			    const uint8_t *frame, size_t frame_len,
			    unsigned flags)
{
	uint8_t fcs[2];

	fcs_bytes(frame, frame_len, fcs);
	return ((flags & PPP_HDLC_ENC_NO_OPEN_FLAG) ? 0 : 1) +
		escaped_len(e, frame, frame_len) + escaped_len(e, fcs, 2) + 1;
}

/* Writes into a region reserved in the wcursor, never past its end. */
struct region {
	uint8_t *at;
	size_t cap;
	size_t len;
};

static inline void put(struct region *r, uint8_t b)
{
	if (r->len < r->cap)
		r->at[r->len++] = b;
}

static inline void put_escaped(const struct ppp_hdlc_encoder *e, struct region *r, uint8_t b)
{
	if (escaped(e, b)) {
		put(r, PPP_HDLC_ESC);
		put(r, b ^ PPP_HDLC_ESC_XOR);
	} else {
		put(r, b);
	}
}

int ppp_hdlc_encode(const struct ppp_hdlc_encoder *e, struct wcursor *w,
		    const uint8_t *frame, size_t frame_len, unsigned flags)
{
	if (frame_len == 0)
		return -EINVAL;
	if (frame_len > (INT_MAX - 6) / 2)
		return -EMSGSIZE;
	uint8_t fcs[2];
	fcs_bytes(frame, frame_len, fcs);
	bool open_flag = !(flags & PPP_HDLC_ENC_NO_OPEN_FLAG);
	size_t n = (open_flag ? 1 : 0) + escaped_len(e, frame, frame_len) +
		escaped_len(e, fcs, 2) + 1;
	/* checked first so that a full cursor is left as it was */
	if (wcursor_room(w) < n)
		return -ENOSPC;
	struct region r = { .cap = n };
	if (!wcursor_reserve(w, n, &r.at))
		return -ENOSPC;
	if (open_flag)
		put(&r, PPP_HDLC_FLAG);
	for (size_t i = 0; i < frame_len; i++)
		put_escaped(e, &r, frame[i]);
	put_escaped(e, &r, fcs[0]);
	put_escaped(e, &r, fcs[1]);
	put(&r, PPP_HDLC_FLAG);
	return (int)r.len;
}

/* ------------------------------------------------------------------ */
/* Decoding                                                             */

struct ppp_hdlc_decoder {
	enum ppp_hdlc_rx_state state;
	uint8_t *buf;
	size_t cap;		/* max_frame + FCS */
	size_t len;
	uint16_t fcs;		/* running, over every stored byte */
	bool debug;		/* log transitions (set per feed call) */
	struct ppp_hdlc_rx_counters n;
	struct ppp_hdlc_decoder_config cfg;
};

static const char *const state_names[] = {
	[PPP_HDLC_RX_HUNT] = "HUNT",
	[PPP_HDLC_RX_DATA] = "DATA",
	[PPP_HDLC_RX_ESCAPE] = "ESCAPE",
};

const char *ppp_hdlc_rx_state_name(enum ppp_hdlc_rx_state s)
{
	return (unsigned)s < sizeof(state_names) / sizeof(state_names[0]) ?
		state_names[s] : "?";
}

struct ppp_hdlc_decoder *ppp_hdlc_decoder_new(const struct ppp_hdlc_decoder_config *cfg)
{
	if (!cfg || !cfg->on_frame)
		return NULL;
	struct ppp_hdlc_decoder *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->cfg = *cfg;
	if (d->cfg.max_frame == 0)
		d->cfg.max_frame = PPP_HDLC_DEFAULT_MAX_FRAME;
	if (d->cfg.max_frame > SIZE_MAX - PPP_HDLC_FCS_LEN) {
		free(d);
		return NULL;
	}
	d->cap = d->cfg.max_frame + PPP_HDLC_FCS_LEN;
	d->buf = malloc(d->cap);
	if (!d->buf) {
		free(d);
		return NULL;
	}
	d->state = PPP_HDLC_RX_HUNT;
	return d;
}

void ppp_hdlc_decoder_free(struct ppp_hdlc_decoder *d)
{
	if (!d)
		return;
	free(d->buf);
	free(d);
}

/* Every state change, and every frame end (DATA -> DATA), is logged. */
static void go(struct ppp_hdlc_decoder *d, enum ppp_hdlc_rx_state to, const char *event)
{
	if (d->debug)
		log_msg(d->cfg.log, LOG_LEVEL_DEBUG, "ppp_hdlc: %s --%s--> %s",
			state_names[d->state], event, state_names[to]);
	d->state = to;
}

static void begin_frame(struct ppp_hdlc_decoder *d)
{
	d->len = 0;
	d->fcs = FCS_INIT;
}

static bool rx_accm_drops(const struct ppp_hdlc_decoder *d, uint8_t b)
{
	return b < 0x20 && ((d->cfg.rx_accm >> b) & 1u);
}

static void store(struct ppp_hdlc_decoder *d, uint8_t b)
{
	if (d->len == d->cap) {
		d->n.too_long++;
		go(d, PPP_HDLC_RX_HUNT, "too-long");
		return;
	}
	d->buf[d->len++] = b;
	d->fcs = fcs_update_byte(d->fcs, b);
	if (d->state != PPP_HDLC_RX_DATA)
		go(d, PPP_HDLC_RX_DATA, "byte");
}

/* A flag in DATA: the frame (if any) ends and the next one begins. */
static void end_frame(struct ppp_hdlc_decoder *d)
{
	size_t len = d->len;
	uint16_t residue = d->fcs;
	const char *event;

	begin_frame(d);
	if (len == 0) {
		d->n.empty++;
		event = "flag(empty)";
	} else if (len < MIN_STORED) {
		d->n.runts++;
		event = "flag(runt)";
	} else if (residue != FCS_GOOD_RESIDUE) {
		d->n.fcs_errors++;
		event = "flag(bad-fcs)";
	} else {
		d->n.frames++;
		event = "flag(frame)";
	}
	if (d->debug)
		log_msg(d->cfg.log, LOG_LEVEL_DEBUG,
			"ppp_hdlc: DATA --%s--> DATA (%zu bytes, residue 0x%04x)",
			event, len, residue);
	if (residue == FCS_GOOD_RESIDUE && len >= MIN_STORED)
		d->cfg.on_frame(d->cfg.ctx, d->buf, len - PPP_HDLC_FCS_LEN);
}

static void rx_hunt(struct ppp_hdlc_decoder *d, uint8_t b)
{
	if (b == PPP_HDLC_FLAG) {
		begin_frame(d);
		go(d, PPP_HDLC_RX_DATA, "flag");
	} else {
		d->n.hunt_discards++;
	}
}

static void rx_data(struct ppp_hdlc_decoder *d, uint8_t b)
{
	if (b == PPP_HDLC_FLAG)
		end_frame(d);
	else if (b == PPP_HDLC_ESC)
		go(d, PPP_HDLC_RX_ESCAPE, "escape");
	else if (rx_accm_drops(d, b))
		d->n.accm_discards++;
	else
		store(d, b);
}

static void rx_escape(struct ppp_hdlc_decoder *d, uint8_t b)
{
	if (b == PPP_HDLC_FLAG) {
		/* the abort sequence; its flag still opens the next frame */
		d->n.aborts++;
		begin_frame(d);
		go(d, PPP_HDLC_RX_DATA, "abort");
	} else if (b == PPP_HDLC_ESC) {
		/* never sent: a byte was lost or damaged */
		d->n.escape_errors++;
		go(d, PPP_HDLC_RX_HUNT, "escape-escape");
	} else if (rx_accm_drops(d, b)) {
		/* removed before the escape applies (RFC 1662 4.2) */
		d->n.accm_discards++;
	} else {
		store(d, b ^ PPP_HDLC_ESC_XOR);
	}
}

void ppp_hdlc_decoder_feed(struct ppp_hdlc_decoder *d, const uint8_t *bytes, size_t n)
{
	d->debug = log_enabled(d->cfg.log, LOG_LEVEL_DEBUG);
	d->n.bytes += n;
	for (size_t i = 0; i < n; i++) {
		uint8_t b = bytes[i];

		switch (d->state) {
		case PPP_HDLC_RX_HUNT:
			rx_hunt(d, b);
			break;
		case PPP_HDLC_RX_DATA:
			/* the common case, kept short */
			if (b != PPP_HDLC_FLAG && b != PPP_HDLC_ESC &&
			    !rx_accm_drops(d, b) && d->len < d->cap) {
				d->buf[d->len++] = b;
				d->fcs = fcs_update_byte(d->fcs, b);
			} else {
				rx_data(d, b);
			}
			break;
		case PPP_HDLC_RX_ESCAPE:
			rx_escape(d, b);
			break;
		}
	}
}

void ppp_hdlc_decoder_reset(struct ppp_hdlc_decoder *d)
{
	d->debug = log_enabled(d->cfg.log, LOG_LEVEL_DEBUG);
	go(d, PPP_HDLC_RX_HUNT, "reset");
	d->len = 0;
}

enum ppp_hdlc_rx_state ppp_hdlc_decoder_state(const struct ppp_hdlc_decoder *d)
{
	return d->state;
}

const struct ppp_hdlc_rx_counters *ppp_hdlc_decoder_counters(const struct ppp_hdlc_decoder *d)
{
	return &d->n;
}

/* ------------------------------------------------------------------ */
/* Bare frames                                                          */

bool ppp_frame_has_ac(const uint8_t *frame, size_t len)
{
	return len >= 2 && frame[0] == PPP_ADDRESS_ALL && frame[1] == PPP_CONTROL_UI;
}

int ppp_frame_parse(const uint8_t *frame, size_t len, struct ppp_frame_info *out)
{
	struct cursor c;
	uint8_t b0 = 0, b1 = 0;

	memset(out, 0, sizeof(*out));
	cursor_init(&c, frame, len);
	if (!cursor_peek_u8(&c, &b0))
		return -EBADMSG;
	if (b0 == PPP_ADDRESS_ALL) {
		/* as RFC 1662 receivers do: a leading FF is the address */
		if (!cursor_skip(&c, 1) || !cursor_u8(&c, &b1) || b1 != PPP_CONTROL_UI)
			return -EBADMSG;
		out->has_ac = true;
	}
	if (!cursor_u8(&c, &b0))
		return -EBADMSG;
	if (b0 & 1u) {
		out->proto_compressed = true;
		out->protocol = b0;
	} else {
		if (!cursor_u8(&c, &b1) || !(b1 & 1u))
			return -EBADMSG;
		out->protocol = (uint16_t)(b0 << 8 | b1);
	}
	out->header_len = c.pos;
	uint8_t code = 0;
	if (out->protocol == PPP_PROTO_LCP && cursor_peek_u8(&c, &code) &&
	    code >= 1 && code <= 7)
		out->lcp_rule_broken = !out->has_ac || out->proto_compressed;
	return 0;
}

bool ppp_frame_equal_ignoring_ac(const uint8_t *a, size_t alen,
				 const uint8_t *b, size_t blen)
{
	struct cursor ca, cb;

	cursor_init(&ca, a, alen);
	cursor_init(&cb, b, blen);
	if (ppp_frame_has_ac(a, alen))
		cursor_skip(&ca, 2);
	if (ppp_frame_has_ac(b, blen))
		cursor_skip(&cb, 2);
	size_t n = cursor_remaining(&ca);
	const uint8_t *pa, *pb;
	if (n != cursor_remaining(&cb))
		return false;
	if (n == 0)
		return true;
	return cursor_view(&ca, n, &pa) && cursor_view(&cb, n, &pb) &&
		memcmp(pa, pb, n) == 0;
}
