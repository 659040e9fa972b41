/*
 * stir4200.c: the SigmaTel STIr4200 core.  See stir4200.h; every number
 * here is from usb-irda-digest section 2.2.
 *
 * The chip is a byte pipe with a FIFO shared by both directions, so the
 * host runs the half duplex.  One function, advance(), decides the next
 * step from the core's state each time something happens (a request, a
 * completion, a tick): stop receiving, read the FIFO, wait (the
 * deadline), send the frame, run the speed writes, or receive again.
 * Each of those is a small function; the waits are deadlines, never
 * sleeps, and the one control transfer at a time is either a FIFO read
 * or a step of a short list of register writes (open, speed, FIFO clear).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "stir4200.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fcs32.h"
#include "sir.h"

/* --- framing ---------------------------------------------------------------- */

static bool is_fir(uint32_t baud)
{
	return baud == 4000000;
}

/* PDCLK (the baud divider) per speed, and MODE. */
static const struct { uint32_t baud; uint8_t pdclk; } dividers[] = {
	{ 2400, 0xDF }, { 9600, 0x77 }, { 19200, 0x3B }, { 38400, 0x1D },
	{ 57600, 0x13 }, { 115200, 0x09 }, { 4000000, 0x02 },
};

static bool pdclk_for(uint32_t baud, uint8_t *pdclk)
{
	for (size_t i = 0; i < sizeof(dividers) / sizeof(dividers[0]); i++)
		if (dividers[i].baud == baud) {
			*pdclk = dividers[i].pdclk;
			return true;
		}
	return false;
}

static uint8_t mode_for(uint32_t baud)
{
	if (is_fir(baud))
		return STIR4200_MODE_NRESET | STIR4200_MODE_FASTRX | STIR4200_MODE_FIR |
		       STIR4200_MODE_FFRSTEN;
	uint8_t mode = STIR4200_MODE_NRESET | STIR4200_MODE_FASTRX | STIR4200_MODE_SIR;
	return baud == 2400 ? (uint8_t)(mode | STIR4200_MODE_2400) : mode;
}

int stir4200_speed_writes(uint32_t baud, struct stir4200_reg_write out[STIR4200_SPEED_WRITES])
{
	uint8_t pdclk;
	const uint8_t power = (uint8_t)(STIR4200_TX_POWER << STIR4200_CTRL1_TXPOWER_SHIFT);

	if (!pdclk_for(baud, &pdclk))
		return -EINVAL;
	out[0] = (struct stir4200_reg_write){ STIR4200_REG_CTRL1, STIR4200_CTRL1_SRESET };
	out[1] = (struct stir4200_reg_write){ STIR4200_REG_DPLL, STIR4200_DPLL_MAGIC };
	out[2] = (struct stir4200_reg_write){ STIR4200_REG_PDCLK, pdclk };
	out[3] = (struct stir4200_reg_write){ STIR4200_REG_MODE, mode_for(baud) };
	out[4] = (struct stir4200_reg_write){ STIR4200_REG_CTRL1,
					      (uint8_t)(STIR4200_CTRL1_SDMODE | power) };
	out[5] = (struct stir4200_reg_write){ STIR4200_REG_CTRL1, power };
	out[6] = (struct stir4200_reg_write){
		STIR4200_REG_CTRL2,
		(uint8_t)(STIR4200_RX_SENSITIVITY << STIR4200_CTRL2_RXSENS_SHIFT),
	};
	return STIR4200_SPEED_WRITES;
}

/* The header's length is known once the body is written: reserve it,
 * then fill it in.  body() returns false when w ran out of room. */
static int with_header(struct wcursor *w, const uint8_t *frame, size_t len, size_t xbofs,
		       bool (*body)(struct wcursor *, const uint8_t *, size_t, size_t))
{
	uint8_t *hdr;

	if (len < SIR_MIN_FRAME)
		return -EINVAL;
	if (len > STIR4200_FRAME_MAX || xbofs > SIR_MAX_XBOFS)
		return -EMSGSIZE;
	size_t start = wcursor_len(w);
	if (!wcursor_reserve(w, STIR4200_HEADER_LEN, &hdr) || !body(w, frame, len, xbofs) ||
	    !wcursor_ok(w))
		return -ENOSPC;
	size_t n = wcursor_len(w) - start;	/* <= STIR4200_TX_MAX: fits 16 bits */
	size_t body_len = n - STIR4200_HEADER_LEN;
	hdr[0] = 0x55;
	hdr[1] = 0xAA;
	hdr[2] = (uint8_t)(body_len & 0xFF);
	hdr[3] = (uint8_t)(body_len >> 8);
	return (int)n;
}

static bool sir_body(struct wcursor *w, const uint8_t *frame, size_t len, size_t xbofs)
{
	return sir_encode(w, frame, len, xbofs) >= 0;
}

static bool fir_needs_escape(uint8_t b)
{
	return b == STIR4200_FIR_ESC || b == STIR4200_FIR_FLAG || b == STIR4200_FIR_PRE;
}

static void fir_put_escaped(struct wcursor *w, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (fir_needs_escape(p[i])) {
			wcursor_u8(w, STIR4200_FIR_ESC);
			wcursor_u8(w, (uint8_t)(p[i] ^ STIR4200_FIR_XOR));
		} else {
			wcursor_u8(w, p[i]);
		}
	}
}

static bool fir_body(struct wcursor *w, const uint8_t *frame, size_t len, size_t xbofs)
{
	uint32_t crc = fcs32_compute(frame, len);
	const uint8_t fcs[4] = {
		(uint8_t)(crc & 0xFF), (uint8_t)(crc >> 8),
		(uint8_t)(crc >> 16), (uint8_t)(crc >> 24),
	};

	(void)xbofs;	/* FIR has a preamble instead */
	wcursor_fill(w, STIR4200_FIR_PRE, STIR4200_FIR_PREAMBLE);
	wcursor_fill(w, STIR4200_FIR_FLAG, 2);
	fir_put_escaped(w, frame, len);
	fir_put_escaped(w, fcs, sizeof fcs);
	return wcursor_fill(w, STIR4200_FIR_FLAG, 2);
}

int stir4200_wrap_sir(const uint8_t *frame, size_t len, size_t xbofs, struct wcursor *w)
{
	return with_header(w, frame, len, xbofs, sir_body);
}

int stir4200_wrap_fir(const uint8_t *frame, size_t len, struct wcursor *w)
{
	return with_header(w, frame, len, 0, fir_body);
}

int stir4200_tx_frame(uint32_t baud, const struct usb_tx_frame *f, struct wcursor *w)
{
	uint8_t pdclk;

	if (!pdclk_for(baud, &pdclk))
		return -EINVAL;
	if (is_fir(baud))
		return stir4200_wrap_fir(f->data, f->len, w);
	size_t xbofs = f->xbofs > SIR_MAX_XBOFS ? SIR_MAX_XBOFS : f->xbofs;
	return stir4200_wrap_sir(f->data, f->len, xbofs, w);
}

/* --- the FIR decoder ---------------------------------------------------------- */

void stir4200_fir_rx_reset(struct stir4200_fir_rx *r)
{
	r->state = STIR4200_FIR_HUNT;
	r->len = 0;
}

const uint8_t *stir4200_fir_rx_frame(const struct stir4200_fir_rx *r)
{
	return r->buf;
}

/* A dropped frame: hunt for the next flag (or, when the byte that
 * ended it was a flag, start there). */
static int fir_drop(struct stir4200_fir_rx *r, int err, enum stir4200_fir_state to)
{
	r->state = to;
	r->len = 0;
	return err;
}

static int fir_store(struct stir4200_fir_rx *r, uint8_t b)
{
	if (r->len == sizeof(r->buf))
		return fir_drop(r, -EMSGSIZE, STIR4200_FIR_HUNT);
	r->buf[r->len++] = b;
	r->state = STIR4200_FIR_DATA;
	return 0;
}

/* The closing flag: the frame is its bytes less the CRC-32 (LE). */
static int fir_end(struct stir4200_fir_rx *r)
{
	size_t n = r->len;

	r->len = 0;
	r->state = STIR4200_FIR_FLAGS;	/* a second flag, or the next frame's */
	if (n < SIR_MIN_FRAME + STIR4200_FCS32_LEN)
		return -EPROTO;
	size_t body = n - STIR4200_FCS32_LEN;
	uint32_t got = (uint32_t)r->buf[body] | (uint32_t)r->buf[body + 1] << 8 |
		       (uint32_t)r->buf[body + 2] << 16 | (uint32_t)r->buf[body + 3] << 24;
	if (fcs32_compute(r->buf, body) != got)
		return -EBADMSG;
	return (int)body;
}

/* One byte: a frame length, 0 to go on, or an error. */
static int fir_byte(struct stir4200_fir_rx *r, uint8_t b)
{
	switch (r->state) {
	case STIR4200_FIR_HUNT:
		if (b == STIR4200_FIR_FLAG)
			r->state = STIR4200_FIR_FLAGS;
		return 0;
	case STIR4200_FIR_FLAGS:
		if (b == STIR4200_FIR_FLAG)
			return 0;
		if (b == STIR4200_FIR_PRE) {	/* the next frame's preamble */
			r->state = STIR4200_FIR_HUNT;
			return 0;
		}
		if (b == STIR4200_FIR_ESC) {
			r->state = STIR4200_FIR_ESCAPE;
			return 0;
		}
		return fir_store(r, b);
	case STIR4200_FIR_DATA:
		if (b == STIR4200_FIR_FLAG)
			return fir_end(r);
		if (b == STIR4200_FIR_PRE)
			return fir_drop(r, -EPROTO, STIR4200_FIR_HUNT);
		if (b == STIR4200_FIR_ESC) {
			r->state = STIR4200_FIR_ESCAPE;
			return 0;
		}
		return fir_store(r, b);
	case STIR4200_FIR_ESCAPE:
		/* the sender escapes 7D/7E/7F to 5D/5E/5F: a raw marker here
		 * is damage; a flag may still open the next frame */
		if (b == STIR4200_FIR_FLAG)
			return fir_drop(r, -EPROTO, STIR4200_FIR_FLAGS);
		if (fir_needs_escape(b))
			return fir_drop(r, -EPROTO, STIR4200_FIR_HUNT);
		return fir_store(r, (uint8_t)(b ^ STIR4200_FIR_XOR));
	}
	return fir_drop(r, -EPROTO, STIR4200_FIR_HUNT);
}

int stir4200_fir_rx_feed(struct stir4200_fir_rx *r, struct cursor *in)
{
	uint8_t b;

	while (cursor_u8(in, &b)) {
		int rc = fir_byte(r, b);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* --- the core ----------------------------------------------------------------- */

enum stir_state {
	STIR_CLOSED,
	STIR_OPENING,	/* clear halts and the 9600 writes run */
	STIR_READY,
	STIR_CLOSING,	/* waiting for cancelled transfers */
	STIR_FAILED,	/* gave up or the device went away: waiting for close */
};

static const char *const state_names[] = {
	[STIR_CLOSED] = "CLOSED", [STIR_OPENING] = "OPENING", [STIR_READY] = "READY",
	[STIR_CLOSING] = "CLOSING", [STIR_FAILED] = "FAILED",
};

/* What the control transfer in flight is. */
enum stir_ctrl {
	CTRL_NONE,
	CTRL_FIFO_READ,
	CTRL_OPEN,	/* a step of the open list */
	CTRL_SPEED,	/* a step of the speed list */
	CTRL_CLEAR,	/* a step of the FIFO clear */
};

/* What a FIFO reading must show before the next step. */
enum stir_need {
	NEED_ROOM,	/* a frame: it fits, or the FIFO is empty */
	NEED_EMPTY,	/* a speed change: drained */
	NEED_QUIET,	/* receiving again: empty or not transmitting */
};

struct stir_op {
	bool clear_halt;	/* else a register write */
	uint8_t ep;
	struct stir4200_reg_write w;
};

/* Open: two clear halts and the speed writes. */
#define STIR_SEQ_MAX (2 + STIR4200_SPEED_WRITES)

struct stir4200 {
	struct usb_dongle base;		/* first: usb_dongle.c casts */
	enum stir_state state;
	enum stir_ctrl ctrl;
	struct stir_op seq[STIR_SEQ_MAX];
	size_t seq_len, step;
	uint32_t target;		/* the speed being set */
	bool speed_pending;		/* a change waits for its turn */
	bool have_frame;		/* tx[] holds a frame not yet handed to the chip */
	size_t tx_len;
	uint32_t mtt_us;		/* the frame's turnaround */
	bool rx_cancelling;		/* the IN transfer was cancelled to send */
	uint64_t last_rx_us;		/* the last IN transfer that carried bytes */
	bool heard;			/* last_rx_us is valid */
	uint64_t rx_retry_at;		/* no IN transfer before this */
	/* the FIFO: dirty once a frame went out, until a read shows it empty */
	bool fifo_dirty, fifo_fresh, prev_valid;
	uint8_t fifoctl;
	uint16_t count, prev_count;
	unsigned stuck;			/* reads without the count going down */
	uint64_t poll_at;		/* no FIFO read before this */
	uint64_t now_us;		/* the time of the bytes being fed */
	struct sir_decoder *sir;
	struct stir4200_fir_rx fir;
	uint8_t tx[STIR4200_TX_MAX];
};

static struct stir4200 *to_stir(struct usb_dongle *d)
{
	return (struct stir4200 *)d;
}

static void go(struct stir4200 *s, enum stir_state to, const char *event)
{
	log_msg(s->base.cfg.log, LOG_LEVEL_DEBUG, "stir4200: %s --%s--> %s",
		state_names[s->state], event, state_names[to]);
	s->state = to;
}

static void fail(struct stir4200 *s, int err, const char *why)
{
	if (s->state == STIR_FAILED || s->state == STIR_CLOSING || s->state == STIR_CLOSED)
		return;
	bool gone = err == -ENODEV;
	log_msg(s->base.cfg.log, gone ? LOG_LEVEL_INFO : LOG_LEVEL_ERROR, "stir4200: %s: %s",
		why, gone ? "the device is gone" : strerror(-err));
	go(s, STIR_FAILED, gone ? "gone" : "error");
	s->base.deadline_us = USB_NO_DEADLINE;
	usb_dongle_emit(&s->base, gone ? USB_EVENT_GONE : USB_EVENT_FAILED, err);
}

/* --- transfers --- */

static void submit(struct stir4200 *s, const struct usb_xfer *x)
{
	usb_dongle_submit(&s->base, x);
}

static bool busy(const struct stir4200 *s, uint32_t tag)
{
	return s->base.in_flight[tag];
}

static void write_reg(struct stir4200 *s, const struct stir4200_reg_write *w)
{
	struct usb_setup st = {
		.request_type = USB_TYPE_VENDOR | USB_RECIP_DEVICE,
		.request = STIR4200_REQ_WRITE, .value = w->value, .index = w->reg,
	};
	struct usb_xfer x = usb_control_xfer(STIR4200_TAG_CTRL, &st, STIR4200_CTRL_TIMEOUT_MS);
	submit(s, &x);
}

/* FIFOCTL, FIFOLSB, FIFOMSB in one read. */
static void read_fifo(struct stir4200 *s)
{
	struct usb_setup st = {
		.request_type = USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE,
		.request = STIR4200_REQ_READ, .index = STIR4200_REG_FIFOCTL, .length = 3,
	};
	struct usb_xfer x = usb_control_xfer(STIR4200_TAG_CTRL, &st, STIR4200_CTRL_TIMEOUT_MS);
	s->ctrl = CTRL_FIFO_READ;
	submit(s, &x);
}

static void post_rx(struct stir4200 *s)
{
	struct usb_xfer x = {
		.type = USB_XFER_BULK, .tag = STIR4200_TAG_RX,
		.endpoint = STIR4200_EP_IN, .length = STIR4200_RX_LEN,
	};
	submit(s, &x);
}

static void send_frame(struct stir4200 *s)
{
	struct usb_xfer x = {
		.type = USB_XFER_BULK, .tag = STIR4200_TAG_TX, .endpoint = STIR4200_EP_OUT,
		.data = s->tx, .length = s->tx_len, .timeout_ms = STIR4200_TX_TIMEOUT_MS,
	};
	s->have_frame = false;
	/* the frame is in the FIFO now: read it again before what follows */
	s->fifo_dirty = true;
	s->fifo_fresh = false;
	s->prev_valid = false;
	s->stuck = 0;
	submit(s, &x);
}

/* --- register lists --- */

static const char *op_name(const struct stir_op *op)
{
	return op->clear_halt ? (op->ep & USB_DIR_IN ? "clear halt of IN 0x82" :
				 "clear halt of OUT 0x01") : "register write";
}

static void run_op(struct stir4200 *s)
{
	const struct stir_op *op = &s->seq[s->step];

	log_msg(s->base.cfg.log, LOG_LEVEL_DEBUG, "stir4200: step %zu/%zu: %s reg %u = 0x%02x",
		s->step + 1, s->seq_len, op_name(op), op->w.reg, op->w.value);
	if (op->clear_halt) {
		struct usb_xfer x = usb_clear_halt_xfer(STIR4200_TAG_CTRL, op->ep);
		submit(s, &x);
	} else {
		write_reg(s, &op->w);
	}
}

static void start_list(struct stir4200 *s, enum stir_ctrl kind)
{
	s->ctrl = kind;
	s->step = 0;
	run_op(s);
}

static void add_write(struct stir4200 *s, uint8_t reg, uint8_t value)
{
	s->seq[s->seq_len++] = (struct stir_op){ .w = { reg, value } };
}

static void add_speed_writes(struct stir4200 *s, uint32_t baud)
{
	struct stir4200_reg_write w[STIR4200_SPEED_WRITES];

	if (stir4200_speed_writes(baud, w) < 0)	/* set_speed checked it */
		return;
	for (size_t i = 0; i < STIR4200_SPEED_WRITES; i++)
		add_write(s, w[i].reg, w[i].value);
}

static void start_speed_writes(struct stir4200 *s)
{
	s->seq_len = 0;
	add_speed_writes(s, s->target);
	start_list(s, CTRL_SPEED);
}

/* The count grew between two reads: the chip is confused; CLR, then
 * back to 0. */
static void start_fifo_clear(struct stir4200 *s, const char *why)
{
	log_msg(s->base.cfg.log, LOG_LEVEL_WARNING, "stir4200: FIFO count %u %s; clearing it",
		s->count, why);
	s->seq_len = 0;
	add_write(s, STIR4200_REG_FIFOCTL, STIR4200_FIFOCTL_CLR);
	add_write(s, STIR4200_REG_FIFOCTL, 0);
	start_list(s, CTRL_CLEAR);
}

/* --- the FIFO --- */

static bool fifo_empty(const struct stir4200 *s)
{
	return (s->fifoctl & STIR4200_FIFOCTL_EMPTY) != 0;
}

static bool fifo_satisfies(const struct stir4200 *s, enum stir_need need)
{
	switch (need) {
	case NEED_ROOM:
		return fifo_empty(s) ||
		       s->count + (s->tx_len - STIR4200_HEADER_LEN) <= STIR4200_FIFO_SIZE;
	case NEED_EMPTY:
		return fifo_empty(s);
	case NEED_QUIET:
		return fifo_empty(s) || !(s->fifoctl & STIR4200_FIFOCTL_DIR);
	}
	return false;
}

/* The time the FIFO's bytes take to leave: count * 8000 / speed ms, at
 * least 1 ms (the host's timers are no finer than that anyway). */
static uint64_t drain_us(const struct stir4200 *s)
{
	uint64_t ms = (uint64_t)s->count * 8000u / (s->base.baud ? s->base.baud : 9600u);

	return (ms ? ms : 1) * 1000u;
}

/* Whether the FIFO lets need go ahead; if not, a read is in flight or
 * the deadline is set for the next one. */
static bool fifo_ready_for(struct stir4200 *s, enum stir_need need, uint64_t now_us)
{
	if (!s->fifo_dirty)
		return true;
	if (s->fifo_fresh) {
		if (fifo_satisfies(s, need))
			return true;
		s->fifo_fresh = false;
		if (s->stuck >= STIR4200_FIFO_STUCK_POLLS) {
			start_fifo_clear(s, "does not go down");
			return false;
		}
		s->poll_at = now_us + drain_us(s);
	}
	if (now_us < s->poll_at) {
		s->base.deadline_us = s->poll_at;
		return false;
	}
	read_fifo(s);
	return false;
}

static bool take_fifo(struct stir4200 *s, const struct usb_completion *c)
{
	struct cursor in;
	uint8_t ctl, lsb, msb;

	cursor_init(&in, c->data, c->actual);
	if (!cursor_u8(&in, &ctl) || !cursor_u8(&in, &lsb) || !cursor_u8(&in, &msb) ||
	    !cursor_at_end(&in)) {
		log_msg(s->base.cfg.log, LOG_LEVEL_ERROR,
			"stir4200: FIFO read answered %zu bytes, not 3", c->actual);
		return false;
	}
	s->fifoctl = ctl;
	s->count = (uint16_t)(lsb | (msb & STIR4200_FIFOMSB_MASK) << 8);
	return true;
}

static void advance(struct stir4200 *s, uint64_t now_us);

static void fifo_read_done(struct stir4200 *s, uint64_t now_us)
{
	bool grew = s->prev_valid && s->count > s->prev_count;

	s->stuck = s->prev_valid && s->count >= s->prev_count ? s->stuck + 1 : 0;
	s->prev_count = s->count;
	s->prev_valid = true;
	if (grew) {
		start_fifo_clear(s, "grew");
		return;
	}
	s->fifo_fresh = true;
	if (fifo_empty(s))
		s->fifo_dirty = false;
	advance(s, now_us);
}

static void fifo_cleared(struct stir4200 *s, uint64_t now_us)
{
	s->fifo_dirty = false;
	s->fifo_fresh = false;
	s->prev_valid = false;
	s->stuck = 0;
	advance(s, now_us);
}

/* --- receiving --- */

static void sir_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct stir4200 *s = ctx;

	usb_dongle_deliver(&s->base, frame, len, s->now_us);
}

static void reset_decoders(struct stir4200 *s)
{
	sir_decoder_reset(s->sir);
	stir4200_fir_rx_reset(&s->fir);
}

static size_t count_drops(struct stir4200 *s, int rc, uint64_t n, size_t bytes)
{
	for (uint64_t i = 0; i < n; i++)
		usb_dongle_rx_dropped(&s->base, rc, bytes);
	return (size_t)n;
}

/* The SIR decoder counts its own drops: they are mapped onto the core's
 * counters (and each reported as media busy) by difference. */
static void feed_sir(struct stir4200 *s, const uint8_t *p, size_t n)
{
	struct sir_counters was = *sir_decoder_counters(s->sir);

	sir_decoder_feed(s->sir, p, n);
	const struct sir_counters *k = sir_decoder_counters(s->sir);
	size_t drops = count_drops(s, -EBADMSG, k->fcs_errors - was.fcs_errors, n);
	drops += count_drops(s, -EMSGSIZE, k->overflows - was.overflows, n);
	drops += count_drops(s, -EPROTO, (k->aborts - was.aborts) + (k->runts - was.runts), n);
	/* noise between frames is media busy too, but no dropped frame */
	if (sir_decoder_take_media_busy(s->sir) && drops == 0)
		usb_dongle_emit(&s->base, USB_EVENT_MEDIA_BUSY, 0);
}

static void feed_fir(struct stir4200 *s, const uint8_t *p, size_t n)
{
	struct cursor in;
	int rc;

	cursor_init(&in, p, n);
	while ((rc = stir4200_fir_rx_feed(&s->fir, &in)) != 0) {
		if (rc > 0)
			usb_dongle_deliver(&s->base, stir4200_fir_rx_frame(&s->fir), (size_t)rc,
					   s->now_us);
		else
			usb_dongle_rx_dropped(&s->base, rc, n);
	}
}

static void feed(struct stir4200 *s, const struct usb_completion *c, uint64_t now_us)
{
	if (c->actual == 0) {
		usb_dongle_rx_dropped(&s->base, -ENODATA, 0);	/* normal: nothing heard */
		return;
	}
	s->now_us = now_us;
	s->last_rx_us = now_us;
	s->heard = true;
	if (is_fir(s->base.baud))
		feed_fir(s, c->data, c->actual);
	else
		feed_sir(s, c->data, c->actual);
}

static void rx_done(struct stir4200 *s, const struct usb_completion *c, uint64_t now_us)
{
	bool for_tx = s->rx_cancelling;

	s->rx_cancelling = false;
	if (s->state != STIR_READY)
		return;
	switch (c->status) {
	case USB_STATUS_OK:
	case USB_STATUS_CANCELLED:	/* may still carry what came before the cancel */
		if (c->status == USB_STATUS_OK || c->actual > 0)
			feed(s, c, now_us);
		break;
	case USB_STATUS_NO_DEVICE:
		fail(s, -ENODEV, "receiving");
		return;
	default:
		log_msg(s->base.cfg.log, LOG_LEVEL_WARNING,
			"stir4200: receive transfer ended: %s; again in %u us",
			usb_status_name(c->status), STIR4200_RX_RETRY_US);
		s->rx_retry_at = now_us + STIR4200_RX_RETRY_US;
		break;
	}
	/* what was half heard before our own transmission cannot end well */
	if (for_tx)
		reset_decoders(s);
	advance(s, now_us);
}

/* --- the half duplex --- */

/* Before a frame or a speed change: the IN transfer back, the FIFO
 * as need says, the turnaround (frames only). */
static void prepare_tx(struct stir4200 *s, uint64_t now_us)
{
	if (busy(s, STIR4200_TAG_RX)) {
		if (!s->rx_cancelling) {
			s->rx_cancelling = true;
			s->base.cfg.host.cancel(s->base.cfg.host.ctx, STIR4200_TAG_RX);
		}
		return;
	}
	if (!fifo_ready_for(s, s->have_frame ? NEED_ROOM : NEED_EMPTY, now_us))
		return;
	if (!s->have_frame) {
		start_speed_writes(s);
		return;
	}
	uint64_t tat_at = s->heard ? s->last_rx_us + s->mtt_us : 0;
	if (now_us < tat_at) {
		s->base.deadline_us = tat_at;
		return;
	}
	send_frame(s);
}

static void restart_rx(struct stir4200 *s, uint64_t now_us)
{
	if (busy(s, STIR4200_TAG_RX))
		return;
	if (now_us < s->rx_retry_at) {
		s->base.deadline_us = s->rx_retry_at;
		return;
	}
	/* "otherwise chip gets confused" */
	if (fifo_ready_for(s, NEED_QUIET, now_us))
		post_rx(s);
}

/* The next step from the state: called after every request, completion
 * and tick.  One control transfer and one bulk OUT at a time. */
static void advance(struct stir4200 *s, uint64_t now_us)
{
	s->base.deadline_us = USB_NO_DEADLINE;
	if (s->state != STIR_READY || busy(s, STIR4200_TAG_CTRL) || busy(s, STIR4200_TAG_TX))
		return;
	if (s->have_frame || s->speed_pending)
		prepare_tx(s, now_us);
	else
		restart_rx(s, now_us);
}

/* --- completions --- */

static void list_done(struct stir4200 *s, uint64_t now_us)
{
	enum stir_ctrl kind = s->ctrl;

	s->ctrl = CTRL_NONE;
	switch (kind) {
	case CTRL_OPEN:
	case CTRL_SPEED:
		s->base.baud = s->target;
		s->speed_pending = false;
		s->base.tx_busy = false;
		s->fifo_dirty = false;	/* drained before, reset by SRESET */
		reset_decoders(s);
		go(s, STIR_READY, kind == CTRL_OPEN ? "open sequence done" : "speed sequence done");
		advance(s, now_us);
		usb_dongle_emit(&s->base, kind == CTRL_OPEN ? USB_EVENT_OPENED : USB_EVENT_SPEED,
				0);
		break;
	case CTRL_CLEAR:
		fifo_cleared(s, now_us);
		break;
	case CTRL_NONE:
	case CTRL_FIFO_READ:
		break;
	}
}

static void control_done(struct stir4200 *s, const struct usb_completion *c, uint64_t now_us)
{
	if (s->state != STIR_READY && s->state != STIR_OPENING)
		return;
	if (s->ctrl == CTRL_FIFO_READ) {
		s->ctrl = CTRL_NONE;
		if (c->status != USB_STATUS_OK)
			fail(s, usb_status_errno(c->status), "reading the FIFO");
		else if (!take_fifo(s, c))
			fail(s, -EPROTO, "reading the FIFO");
		else
			fifo_read_done(s, now_us);
		return;
	}
	if (c->status != USB_STATUS_OK) {
		/* the open's clear halts too: the digest's ifup fails on them */
		fail(s, usb_status_errno(c->status), op_name(&s->seq[s->step]));
		return;
	}
	if (++s->step < s->seq_len)
		run_op(s);
	else
		list_done(s, now_us);
}

static void tx_done(struct stir4200 *s, const struct usb_completion *c, uint64_t now_us)
{
	int err = usb_status_errno(c->status);

	if (c->status == USB_STATUS_NO_DEVICE) {
		fail(s, err, "sending a frame");
		return;
	}
	if (err == 0)
		s->base.n.tx_frames++;
	else
		log_msg(s->base.cfg.log, LOG_LEVEL_WARNING, "stir4200: frame lost: %s",
			usb_status_name(c->status));
	if (s->state != STIR_READY)
		return;
	s->base.tx_busy = s->speed_pending;
	s->poll_at = now_us;	/* read the FIFO at once */
	advance(s, now_us);
	usb_dongle_emit(&s->base, USB_EVENT_TX_DONE, err);
}

static void finish_close(struct stir4200 *s)
{
	go(s, STIR_CLOSED, "all transfers back");
	usb_dongle_closed(&s->base);
}

/* --- usb_dongle_ops --- */

static void stir_complete(struct usb_dongle *d, const struct usb_completion *c, uint64_t now_us)
{
	struct stir4200 *s = to_stir(d);

	if (!usb_dongle_take(d, c->tag))
		return;
	if (s->state == STIR_CLOSING) {
		if (usb_dongle_idle(d))
			finish_close(s);
		return;
	}
	switch (c->tag) {
	case STIR4200_TAG_CTRL:
		control_done(s, c, now_us);
		break;
	case STIR4200_TAG_TX:
		tx_done(s, c, now_us);
		break;
	default:
		rx_done(s, c, now_us);
		break;
	}
}

static void reset_link_state(struct stir4200 *s)
{
	s->ctrl = CTRL_NONE;
	s->speed_pending = false;
	s->have_frame = false;
	s->rx_cancelling = false;
	s->heard = false;
	s->rx_retry_at = 0;
	s->fifo_dirty = false;
	s->fifo_fresh = false;
	s->prev_valid = false;
	s->stuck = 0;
	s->poll_at = 0;
	reset_decoders(s);
}

static int stir_open(struct usb_dongle *d, uint64_t now_us)
{
	struct stir4200 *s = to_stir(d);

	(void)now_us;
	if (s->state != STIR_CLOSED)
		return -EALREADY;
	reset_link_state(s);
	go(s, STIR_OPENING, "open");
	s->target = 9600;
	d->tx_busy = true;
	s->seq_len = 0;
	s->seq[s->seq_len++] = (struct stir_op){ .clear_halt = true, .ep = STIR4200_EP_OUT };
	s->seq[s->seq_len++] = (struct stir_op){ .clear_halt = true, .ep = STIR4200_EP_IN };
	add_speed_writes(s, s->target);
	start_list(s, CTRL_OPEN);
	return 0;
}

static int stir_set_speed(struct usb_dongle *d, uint32_t baud, uint64_t now_us)
{
	struct stir4200 *s = to_stir(d);
	struct stir4200_reg_write w[STIR4200_SPEED_WRITES];

	if (stir4200_speed_writes(baud, w) < 0)
		return -EINVAL;
	if (s->speed_pending)
		return -EBUSY;
	if (s->state != STIR_READY)
		return -ENOTCONN;
	s->target = baud;
	s->speed_pending = true;
	d->tx_busy = true;
	/* a frame handed over first goes first, at the old speed */
	advance(s, now_us);
	return 0;
}

static int stir_send(struct usb_dongle *d, const struct usb_tx_frame *f, uint64_t now_us)
{
	struct stir4200 *s = to_stir(d);
	struct wcursor w;

	if (s->state != STIR_READY || s->have_frame || s->speed_pending)
		return -EBUSY;
	wcursor_init(&w, s->tx, sizeof(s->tx));
	int n = stir4200_tx_frame(d->baud, f, &w);
	if (n < 0)
		return n;
	s->tx_len = (size_t)n;
	s->mtt_us = f->mtt_us;
	s->have_frame = true;
	d->tx_busy = true;
	advance(s, now_us);
	return 0;
}

static void stir_tick(struct usb_dongle *d, uint64_t now_us)
{
	if (now_us < d->deadline_us)
		return;
	advance(to_stir(d), now_us);
}

static int stir_close(struct usb_dongle *d, uint64_t now_us)
{
	struct stir4200 *s = to_stir(d);

	(void)now_us;
	if (s->state == STIR_CLOSED || s->state == STIR_CLOSING)
		return s->state == STIR_CLOSED ? 0 : -EINPROGRESS;
	go(s, STIR_CLOSING, "close");
	d->deadline_us = USB_NO_DEADLINE;
	reset_link_state(s);
	if (usb_dongle_idle(d)) {
		finish_close(s);
		return 0;
	}
	usb_dongle_cancel_all(d);
	return 0;
}

static void stir_destroy(struct usb_dongle *d)
{
	struct stir4200 *s = to_stir(d);

	sir_decoder_free(s->sir);
	free(s);
}

static int stir_create(const struct usb_dongle_config *cfg, const struct usb_id *id,
		       struct usb_dongle **out, char *err, size_t errlen)
{
	(void)id;
	/* the endpoints are the chip's, whatever the host found */
	if ((cfg->ep.bulk_in && cfg->ep.bulk_in != STIR4200_EP_IN) ||
	    (cfg->ep.bulk_out && cfg->ep.bulk_out != STIR4200_EP_OUT))
		log_msg(cfg->log, LOG_LEVEL_WARNING,
			"stir4200: the descriptor lists IN 0x%02x, OUT 0x%02x; "
			"using IN 0x%02x, OUT 0x%02x",
			cfg->ep.bulk_in, cfg->ep.bulk_out, STIR4200_EP_IN, STIR4200_EP_OUT);
	struct stir4200 *s = calloc(1, sizeof(*s));
	if (s) {
		struct sir_decoder_config sc = { .on_frame = sir_frame, .ctx = s, .log = cfg->log };
		s->sir = sir_decoder_new(&sc);
	}
	if (!s || !s->sir) {
		free(s);
		snprintf(err, errlen, "stir4200: out of memory");
		return -ENOMEM;
	}
	stir4200_fir_rx_reset(&s->fir);
	s->state = STIR_CLOSED;
	*out = &s->base;
	return 0;
}

static const struct usb_dongle_ops stir_ops = {
	.destroy = stir_destroy,
	.open = stir_open,
	.set_speed = stir_set_speed,
	.send = stir_send,
	.complete = stir_complete,
	.tick = stir_tick,
	.close = stir_close,
};

static const struct usb_id stir_ids[] = {
	{ STIR4200_VID, STIR4200_PID, 0 },
};

/* 2400..115200 and 4M (bits 0..5 and 8: no MIR); at least 1 ms
 * turnaround (QoS bits 0x07: 10, 5 and 1 ms), as the digest says the
 * chip announces. */
const struct usb_family stir4200_family = {
	.name = "stir4200",
	.chip = "SigmaTel STIr4200",
	.ids = stir_ids,
	.n_ids = sizeof(stir_ids) / sizeof(stir_ids[0]),
	.baud_bits = 0x013F,
	.min_tat_bits = 0x07,
	.create = stir_create,
	.ops = &stir_ops,
};
