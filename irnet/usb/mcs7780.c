/*
 * mcs7780.c: the MosChip MCS7780 core.  See mcs7780.h; every number here
 * is from usb-irda-digest section 2.3.
 *
 * The open and speed-change sequences are tables of register steps run
 * one control transfer at a time: a step reads a register into the
 * shadow copy, or changes the shadow and writes it.  The conditions
 * (MINRXPW and the transceiver only on a change of SIR/MIR/FIR class)
 * and the changes are small functions, so the tables read like the
 * digest's lists.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mcs7780.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fcs.h"
#include "fcs32.h"
#include "sir.h"

/* --- framing ---------------------------------------------------------------- */

enum mcs_class { MCS_SIR, MCS_MIR, MCS_FIR, MCS_NONE };

static enum mcs_class class_of(uint32_t baud)
{
	switch (baud) {
	case 2400: case 9600: case 19200: case 38400: case 57600: case 115200:
		return MCS_SIR;
	case 576000: case 1152000:
		return MCS_MIR;
	case 4000000:
		return MCS_FIR;
	default:
		return MCS_NONE;
	}
}

/* MODE bits 7..5 per speed (the register table); 4 Mbit/s has 0 there
 * and the FIR bit set.  The Linux driver indexes a 16-entry table by
 * (speed >> 8) & 15, which gives the same values for these speeds. */
static const struct { uint32_t baud; uint16_t bits; } speed_bits[] = {
	{ 2400, 0 }, { 9600, 1 }, { 19200, 2 }, { 38400, 3 }, { 57600, 4 },
	{ 115200, 5 }, { 576000, 6 }, { 1152000, 7 }, { 4000000, 0 },
};

uint16_t mcs7780_mode_for_speed(uint16_t mode, uint32_t baud)
{
	uint16_t bits = 0;

	for (size_t i = 0; i < sizeof(speed_bits) / sizeof(speed_bits[0]); i++)
		if (speed_bits[i].baud == baud)
			bits = speed_bits[i].bits;
	mode &= (uint16_t)~(MCS7780_MODE_FIR | MCS7780_MODE_SPEED_MASK);
	mode |= (uint16_t)(bits << MCS7780_MODE_SPEED_SHIFT);
	if (class_of(baud) == MCS_FIR)
		mode |= MCS7780_MODE_FIR;
	return mode;
}

static size_t sir_xbofs(uint32_t baud, const struct usb_tx_frame *f)
{
	size_t n = (size_t)f->xbofs + sir_mtt_padding(baud, f->mtt_us);

	return n > SIR_MAX_XBOFS ? SIR_MAX_XBOFS : n;
}

static bool put_body(enum mcs_class k, uint32_t baud, const struct usb_tx_frame *f,
		     struct wcursor *w)
{
	switch (k) {
	case MCS_SIR:
		return sir_encode(w, f->data, f->len, sir_xbofs(baud, f)) >= 0;
	case MCS_MIR:
		wcursor_bytes(w, f->data, f->len);
		return wcursor_le16(w, fcs_compute(f->data, f->len));
	case MCS_FIR:
		wcursor_bytes(w, f->data, f->len);
		return wcursor_le32(w, fcs32_compute(f->data, f->len));
	case MCS_NONE:
		break;
	}
	return false;
}

int mcs7780_tx_frame(uint32_t baud, const struct usb_tx_frame *f, struct wcursor *w)
{
	enum mcs_class k = class_of(baud);
	uint8_t *len_at;
	size_t start = wcursor_len(w);

	if (k == MCS_NONE || f->len < SIR_MIN_FRAME)
		return -EINVAL;
	if (f->len > MCS7780_FRAME_MAX)
		return -EMSGSIZE;
	if (!wcursor_reserve(w, 2, &len_at) || !put_body(k, baud, f, w) || !wcursor_ok(w))
		return -ENOSPC;
	size_t n = wcursor_len(w) - start;	/* < MCS7780_TX_MAX, fits 16 bits */
	len_at[0] = (uint8_t)(n & 0xFF);
	len_at[1] = (uint8_t)(n >> 8);
	return (int)n;
}

/* The chip strips BOF and EOF and leaves the escapes (and the FCS). */
static int sir_unescape(struct cursor *in, struct wcursor *out)
{
	uint8_t b;

	while (cursor_remaining(in) > 0) {
		cursor_u8(in, &b);
		if (b == SIR_BOF || b == SIR_EOF)
			return -EPROTO;
		if (b == SIR_CE) {
			if (!cursor_u8(in, &b) || b == SIR_CE || b == SIR_BOF || b == SIR_EOF)
				return -EPROTO;
			b ^= SIR_ESC_XOR;
		}
		if (!wcursor_u8(out, b))
			return -EMSGSIZE;
	}
	return 0;
}

static int check_fcs16(struct wcursor *frame)
{
	size_t n = wcursor_len(frame);

	if (n < SIR_MIN_FRAME + SIR_FCS_LEN)
		return -EPROTO;
	if (!fcs_check(frame->data, n))
		return -EBADMSG;
	return (int)(n - SIR_FCS_LEN);
}

static int rx_fir(struct cursor *in, struct wcursor *frame)
{
	size_t n = cursor_remaining(in);
	const uint8_t *body;
	uint32_t fcs;

	if (n < SIR_MIN_FRAME + 4)
		return -EPROTO;
	if (n > wcursor_room(frame))
		return -EMSGSIZE;
	cursor_view(in, n - 4, &body);
	cursor_le32(in, &fcs);
	wcursor_bytes(frame, body, n - 4);
	wcursor_le32(frame, fcs);
	if (fcs32_compute(body, n - 4) != fcs)
		return -EBADMSG;
	return (int)(n - 4);
}

static int rx_body(uint32_t baud, struct cursor *in, struct wcursor *frame)
{
	enum mcs_class k = class_of(baud);
	size_t n = cursor_remaining(in);
	int rc;

	if (k == MCS_NONE)
		return -EINVAL;
	if (n == 0)
		return -ENODATA;
	switch (k) {
	case MCS_SIR:
		rc = sir_unescape(in, frame);
		return rc < 0 ? rc : check_fcs16(frame);
	case MCS_MIR: {
		const uint8_t *body;
		if (n > wcursor_room(frame))
			return -EMSGSIZE;
		cursor_view(in, n, &body);
		wcursor_bytes(frame, body, n);
		return check_fcs16(frame);
	}
	case MCS_FIR:
		return rx_fir(in, frame);
	case MCS_NONE:
		break;
	}
	return -EINVAL;
}

int mcs7780_rx_frame(uint32_t baud, struct cursor *in, struct wcursor *frame)
{
	int rc = rx_body(baud, in, frame);

	/* IrLAP's largest frame, whatever room the caller gave */
	return rc > (int)MCS7780_FRAME_MAX ? -EMSGSIZE : rc;
}

/* --- the core ---------------------------------------------------------------- */

enum mcs_state {
	MCS_CLOSED,
	MCS_OPENING,	/* the open sequence runs */
	MCS_READY,
	MCS_CHANGING,	/* the speed sequence runs (or waits for the frame in flight) */
	MCS_CLOSING,	/* waiting for cancelled transfers */
	MCS_FAILED,	/* gave up or the device went away: waiting for close */
};

static const char *const state_names[] = {
	[MCS_CLOSED] = "CLOSED", [MCS_OPENING] = "OPENING", [MCS_READY] = "READY",
	[MCS_CHANGING] = "CHANGING", [MCS_CLOSING] = "CLOSING", [MCS_FAILED] = "FAILED",
};

struct mcs7780;

enum mcs_op {
	OP_CLEAR_HALT,	/* reg: 0 the IN endpoint's, 1 the OUT endpoint's */
	OP_READ,	/* into the shadow */
	OP_WRITE,	/* apply() to the shadow, then write it */
	OP_WAIT_IDLE,	/* read RESV until IRINTX clears */
};

struct mcs_step {
	const char *name;
	enum mcs_op op;
	uint8_t reg;
	void (*apply)(struct mcs7780 *m);
	bool (*when)(const struct mcs7780 *m);	/* NULL: always */
};

struct mcs7780 {
	struct usb_dongle base;		/* first: usb_dongle.c casts */
	enum mcs_state state;
	const struct mcs_step *seq;
	size_t seq_len, step;
	uint16_t reg[MCS7780_NREGS];	/* what was last read or written */
	uint32_t target;		/* the speed being set */
	unsigned polls;			/* RESV reads in this wait */
	bool pending_speed;		/* a change waits for the frame in flight */
	uint8_t tx[MCS7780_TX_MAX];
	uint8_t rx_frame[MCS7780_FRAME_MAX + MCS7780_FCS_MAX];
};

static struct mcs7780 *to_mcs(struct usb_dongle *d)
{
	return (struct mcs7780 *)d;
}

static void go(struct mcs7780 *m, enum mcs_state to, const char *event)
{
	log_msg(m->base.cfg.log, LOG_LEVEL_DEBUG, "mcs7780: %s --%s--> %s",
		state_names[m->state], event, state_names[to]);
	m->state = to;
}

/* --- the register steps --- */

static void set_driver(struct mcs7780 *m)
{
	m->reg[MCS7780_REG_MODE] |= MCS7780_MODE_DRIVER;
}

static void minrxpw_for_target(struct mcs7780 *m)
{
	m->reg[MCS7780_REG_MINRXPW] = class_of(m->target) == MCS_SIR ? 0 : MCS7780_MINRXPW_FAST;
}

static void mode_for_target(struct mcs7780 *m)
{
	m->reg[MCS7780_REG_MODE] = mcs7780_mode_for_speed(m->reg[MCS7780_REG_MODE], m->target);
}

/* Open: FIR off, 1.6 us pulses (Linux's sir_tweak=1), no back-to-back
 * or ASK, PLL powered, the chip picks the direction and sends SIPs. */
static void mode_sir_setup(struct mcs7780 *m)
{
	uint16_t *mode = &m->reg[MCS7780_REG_MODE];

	*mode &= (uint16_t)~(MCS7780_MODE_BBTG | MCS7780_MODE_ASK | MCS7780_MODE_PLLPWDN);
	*mode |= MCS7780_MODE_SIR16US | MCS7780_MODE_DTD | MCS7780_MODE_SIPEN;
	mode_for_target(m);
}

/* The Vishay transceiver set-up, the only one Linux got working. */
static void vishay_configure(struct mcs7780 *m)
{
	uint16_t *x = &m->reg[MCS7780_REG_XCVR];

	*x |= MCS7780_XCVR_MODE0 | MCS7780_XCVR_CONF;
	*x &= (uint16_t)~(MCS7780_XCVR_STFIR | MCS7780_XCVR_MODE1);
}

static void vishay_mode0_off(struct mcs7780 *m)
{
	m->reg[MCS7780_REG_XCVR] &= (uint16_t)~MCS7780_XCVR_MODE0;
}

static void vishay_conf_off(struct mcs7780 *m)
{
	m->reg[MCS7780_REG_XCVR] &= (uint16_t)~MCS7780_XCVR_CONF;
}

/* Linux's receive_mode=1. */
static void set_rxfast(struct mcs7780 *m)
{
	m->reg[MCS7780_REG_XCVR] |= MCS7780_XCVR_RXFAST;
}

static void clear_reset(struct mcs7780 *m)
{
	m->reg[MCS7780_REG_MODE] &= (uint16_t)~MCS7780_MODE_RESET;
}

static bool clears_halt(const struct mcs7780 *m)
{
	return m->base.cfg.clear_halt != USB_CLEAR_HALT_NONE;
}

static bool class_changes(const struct mcs7780 *m)
{
	return class_of(m->target) != class_of(m->base.baud);
}

#define VISHAY_STEPS(cond) \
	{ "read XCVR", OP_READ, MCS7780_REG_XCVR, NULL, cond }, \
	{ "XCVR |= MODE0|CONF, &= ~(STFIR|MODE1)", OP_WRITE, MCS7780_REG_XCVR, \
	  vishay_configure, cond }, \
	{ "XCVR &= ~MODE0", OP_WRITE, MCS7780_REG_XCVR, vishay_mode0_off, cond }, \
	{ "XCVR &= ~CONF", OP_WRITE, MCS7780_REG_XCVR, vishay_conf_off, cond }

static const struct mcs_step open_steps[] = {
	{ "clear halt (IN)", OP_CLEAR_HALT, 0, NULL, clears_halt },
	{ "clear halt (OUT)", OP_CLEAR_HALT, 1, NULL, clears_halt },
	{ "read MODE", OP_READ, MCS7780_REG_MODE, NULL, NULL },
	{ "MODE |= DRIVER", OP_WRITE, MCS7780_REG_MODE, set_driver, NULL },
	{ "MINRXPW = 0", OP_WRITE, MCS7780_REG_MINRXPW, minrxpw_for_target, NULL },
	{ "MODE: SIR 9600", OP_WRITE, MCS7780_REG_MODE, mode_sir_setup, NULL },
	VISHAY_STEPS(NULL),
	{ "XCVR |= RXFAST", OP_WRITE, MCS7780_REG_XCVR, set_rxfast, NULL },
	{ "MODE &= ~RESET", OP_WRITE, MCS7780_REG_MODE, clear_reset, NULL },
};

static const struct mcs_step speed_steps[] = {
	{ "wait for IRINTX to clear", OP_WAIT_IDLE, MCS7780_REG_RESV, NULL, NULL },
	{ "read MODE", OP_READ, MCS7780_REG_MODE, NULL, NULL },
	{ "MINRXPW", OP_WRITE, MCS7780_REG_MINRXPW, minrxpw_for_target, class_changes },
	{ "MODE: speed", OP_WRITE, MCS7780_REG_MODE, mode_for_target, NULL },
	VISHAY_STEPS(class_changes),
	{ "MODE &= ~RESET", OP_WRITE, MCS7780_REG_MODE, clear_reset, NULL },
};

#define NSTEPS(t) (sizeof(t) / sizeof((t)[0]))

/* --- transfers --- */

static void submit(struct mcs7780 *m, const struct usb_xfer *x)
{
	usb_dongle_submit(&m->base, x);
}

static void read_reg(struct mcs7780 *m, uint8_t reg)
{
	struct usb_setup s = {
		.request_type = USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE,
		.request = MCS7780_REQ_READ, .index = reg, .length = 2,
	};
	struct usb_xfer x = usb_control_xfer(MCS7780_TAG_CTRL, &s, MCS7780_CTRL_TIMEOUT_MS);
	submit(m, &x);
}

static void write_reg(struct mcs7780 *m, uint8_t reg)
{
	struct usb_setup s = {
		.request_type = USB_TYPE_VENDOR | USB_RECIP_DEVICE,
		.request = MCS7780_REQ_WRITE, .value = m->reg[reg], .index = reg,
	};
	struct usb_xfer x = usb_control_xfer(MCS7780_TAG_CTRL, &s, MCS7780_CTRL_TIMEOUT_MS);
	submit(m, &x);
}

static void post_rx(struct mcs7780 *m)
{
	struct usb_xfer x = {
		.type = USB_XFER_BULK, .tag = MCS7780_TAG_RX,
		.endpoint = m->base.cfg.ep.bulk_in, .length = MCS7780_RX_LEN,
	};
	m->base.deadline_us = USB_NO_DEADLINE;
	submit(m, &x);
}

/* --- sequences --- */

static void fail(struct mcs7780 *m, int err, const char *why)
{
	if (m->state == MCS_FAILED || m->state == MCS_CLOSING || m->state == MCS_CLOSED)
		return;
	bool gone = err == -ENODEV;
	log_msg(m->base.cfg.log, gone ? LOG_LEVEL_INFO : LOG_LEVEL_ERROR, "mcs7780: %s: %s",
		why, gone ? "the device is gone" : strerror(-err));
	go(m, MCS_FAILED, gone ? "gone" : "error");
	m->base.deadline_us = USB_NO_DEADLINE;
	usb_dongle_emit(&m->base, gone ? USB_EVENT_GONE : USB_EVENT_FAILED, err);
}

static void sequence_done(struct mcs7780 *m)
{
	m->base.baud = m->target;
	m->base.tx_busy = false;
	m->seq = NULL;
	if (m->state == MCS_OPENING) {
		go(m, MCS_READY, "open sequence done");
		post_rx(m);
		usb_dongle_emit(&m->base, USB_EVENT_OPENED, 0);
	} else {
		go(m, MCS_READY, "speed sequence done");
		usb_dongle_emit(&m->base, USB_EVENT_SPEED, 0);
	}
}

/* Issues the current step's transfer, skipping steps that do not apply. */
static void run_step(struct mcs7780 *m)
{
	while (m->step < m->seq_len && m->seq[m->step].when && !m->seq[m->step].when(m))
		m->step++;
	if (m->step == m->seq_len) {
		sequence_done(m);
		return;
	}
	const struct mcs_step *s = &m->seq[m->step];
	log_msg(m->base.cfg.log, LOG_LEVEL_DEBUG, "mcs7780: step %zu/%zu: %s",
		m->step + 1, m->seq_len, s->name);
	switch (s->op) {
	case OP_CLEAR_HALT: {
		uint8_t ep = usb_clear_halt_target(&m->base.cfg.ep, m->base.cfg.clear_halt, s->reg);
		struct usb_xfer x = usb_clear_halt_xfer(MCS7780_TAG_CTRL, ep);
		submit(m, &x);
		break;
	}
	case OP_READ:
	case OP_WAIT_IDLE:
		read_reg(m, s->reg);
		break;
	case OP_WRITE:
		s->apply(m);
		write_reg(m, s->reg);
		break;
	}
}

static void start_sequence(struct mcs7780 *m, const struct mcs_step *seq, size_t n)
{
	m->seq = seq;
	m->seq_len = n;
	m->step = 0;
	m->polls = 0;
	run_step(m);
}

/* A register read must answer exactly two bytes. */
static bool take_reg(struct mcs7780 *m, uint8_t reg, const struct usb_completion *c)
{
	struct cursor in;
	uint16_t v;

	cursor_init(&in, c->data, c->actual);
	if (!cursor_le16(&in, &v) || !cursor_at_end(&in)) {
		log_msg(m->base.cfg.log, LOG_LEVEL_ERROR,
			"mcs7780: register %u read answered %zu bytes, not 2", reg, c->actual);
		return false;
	}
	m->reg[reg] = v;
	return true;
}

/* Whether the step is finished (false: WAIT_IDLE reads again). */
static bool step_result(struct mcs7780 *m, const struct mcs_step *s,
			const struct usb_completion *c)
{
	if (s->op == OP_READ || s->op == OP_WAIT_IDLE) {
		if (!take_reg(m, s->reg, c)) {
			fail(m, -EPROTO, s->name);
			return false;
		}
	}
	if (s->op != OP_WAIT_IDLE || !(m->reg[MCS7780_REG_RESV] & MCS7780_RESV_IRINTX))
		return true;
	if (++m->polls < MCS7780_IDLE_POLLS) {
		read_reg(m, s->reg);
		return false;
	}
	/* the frame was handed over long ago: a stuck bit must not wedge
	 * the link, so change speed anyway */
	log_msg(m->base.cfg.log, LOG_LEVEL_WARNING,
		"mcs7780: still transmitting after %u reads of RESV; changing speed anyway",
		m->polls);
	return true;
}

static void control_done(struct mcs7780 *m, const struct usb_completion *c)
{
	if (!m->seq || m->state == MCS_FAILED)
		return;
	const struct mcs_step *s = &m->seq[m->step];
	if (c->status != USB_STATUS_OK) {
		/* the halt clear is a precaution (a configured device's
		 * endpoints are not halted); a stall there is not fatal */
		if (!(s->op == OP_CLEAR_HALT && c->status == USB_STATUS_STALL)) {
			fail(m, usb_status_errno(c->status), s->name);
			return;
		}
		log_msg(m->base.cfg.log, LOG_LEVEL_WARNING, "mcs7780: %s: stalled; going on",
			s->name);
	} else if (!step_result(m, s, c)) {
		return;
	}
	m->step++;
	run_step(m);
}

static void start_speed_change(struct mcs7780 *m)
{
	m->pending_speed = false;
	start_sequence(m, speed_steps, NSTEPS(speed_steps));
}

static void tx_done(struct mcs7780 *m, const struct usb_completion *c)
{
	int err = usb_status_errno(c->status);

	if (c->status == USB_STATUS_NO_DEVICE) {
		fail(m, err, "sending a frame");
		return;
	}
	if (err == 0)
		m->base.n.tx_frames++;
	else if (c->status != USB_STATUS_CANCELLED)
		log_msg(m->base.cfg.log, LOG_LEVEL_WARNING, "mcs7780: frame lost: %s",
			usb_status_name(c->status));
	if (m->state != MCS_READY && m->state != MCS_CHANGING)
		return;
	if (m->pending_speed)
		start_speed_change(m);
	else
		m->base.tx_busy = false;
	usb_dongle_emit(&m->base, USB_EVENT_TX_DONE, err);
}

static void deliver(struct mcs7780 *m, const struct usb_completion *c, uint64_t now_us)
{
	struct cursor in;
	struct wcursor out;

	cursor_init(&in, c->data, c->actual);
	wcursor_init(&out, m->rx_frame, sizeof(m->rx_frame));
	int rc = mcs7780_rx_frame(m->base.baud, &in, &out);
	if (rc < 0) {
		usb_dongle_rx_dropped(&m->base, rc, c->actual);
		return;
	}
	usb_dongle_deliver(&m->base, m->rx_frame, (size_t)rc, now_us);
}

static bool receiving(const struct mcs7780 *m)
{
	return m->state == MCS_READY || m->state == MCS_CHANGING;
}

static void rx_done(struct mcs7780 *m, const struct usb_completion *c, uint64_t now_us)
{
	if (!receiving(m))
		return;
	switch (c->status) {
	case USB_STATUS_OK:
		deliver(m, c, now_us);
		post_rx(m);
		break;
	case USB_STATUS_NO_DEVICE:
		fail(m, -ENODEV, "receiving");
		break;
	case USB_STATUS_CANCELLED:
		break;
	default:
		log_msg(m->base.cfg.log, LOG_LEVEL_WARNING,
			"mcs7780: receive transfer ended: %s; again in %u us",
			usb_status_name(c->status), MCS7780_RX_RETRY_US);
		m->base.deadline_us = now_us + MCS7780_RX_RETRY_US;
		break;
	}
}

static bool nothing_in_flight(const struct mcs7780 *m)
{
	return usb_dongle_idle(&m->base);
}

static void finish_close(struct mcs7780 *m)
{
	go(m, MCS_CLOSED, "all transfers back");
	usb_dongle_closed(&m->base);
}

/* --- usb_dongle_ops --- */

static void mcs_complete(struct usb_dongle *d, const struct usb_completion *c, uint64_t now_us)
{
	struct mcs7780 *m = to_mcs(d);

	if (!usb_dongle_take(d, c->tag))
		return;
	if (m->state == MCS_CLOSING) {
		if (nothing_in_flight(m))
			finish_close(m);
		return;
	}
	switch (c->tag) {
	case MCS7780_TAG_CTRL:
		control_done(m, c);
		break;
	case MCS7780_TAG_TX:
		tx_done(m, c);
		break;
	default:
		rx_done(m, c, now_us);
		break;
	}
}

static int mcs_open(struct usb_dongle *d, uint64_t now_us)
{
	struct mcs7780 *m = to_mcs(d);

	(void)now_us;
	if (m->state != MCS_CLOSED)
		return -EALREADY;
	go(m, MCS_OPENING, "open");
	m->target = 9600;
	m->base.tx_busy = true;
	start_sequence(m, open_steps, NSTEPS(open_steps));
	return 0;
}

static int mcs_set_speed(struct usb_dongle *d, uint32_t baud, uint64_t now_us)
{
	struct mcs7780 *m = to_mcs(d);

	(void)now_us;
	if (m->state == MCS_CHANGING)
		return -EBUSY;
	if (m->state != MCS_READY)
		return -ENOTCONN;
	m->target = baud;
	go(m, MCS_CHANGING, "set speed");
	if (m->base.in_flight[MCS7780_TAG_TX]) {
		m->pending_speed = true;	/* after the frame: the chip has it at the old speed */
		return 0;
	}
	m->base.tx_busy = true;
	start_speed_change(m);
	return 0;
}

static int mcs_send(struct usb_dongle *d, const struct usb_tx_frame *f, uint64_t now_us)
{
	struct mcs7780 *m = to_mcs(d);
	struct wcursor w;

	(void)now_us;
	if (m->state != MCS_READY)
		return -EBUSY;
	wcursor_init(&w, m->tx, sizeof(m->tx));
	int n = mcs7780_tx_frame(d->baud, f, &w);
	if (n < 0)
		return n;
	struct usb_xfer x = {
		.type = USB_XFER_BULK, .tag = MCS7780_TAG_TX, .endpoint = d->cfg.ep.bulk_out,
		.data = m->tx, .length = (size_t)n,
	};
	d->tx_busy = true;
	submit(m, &x);
	return 0;
}

static void mcs_tick(struct usb_dongle *d, uint64_t now_us)
{
	struct mcs7780 *m = to_mcs(d);

	if (now_us < d->deadline_us)
		return;
	d->deadline_us = USB_NO_DEADLINE;
	if (receiving(m) && !m->base.in_flight[MCS7780_TAG_RX])
		post_rx(m);
}

static int mcs_close(struct usb_dongle *d, uint64_t now_us)
{
	struct mcs7780 *m = to_mcs(d);

	(void)now_us;
	if (m->state == MCS_CLOSED || m->state == MCS_CLOSING)
		return m->state == MCS_CLOSED ? 0 : -EINPROGRESS;
	go(m, MCS_CLOSING, "close");
	d->deadline_us = USB_NO_DEADLINE;
	m->seq = NULL;
	m->pending_speed = false;
	if (nothing_in_flight(m)) {
		finish_close(m);
		return 0;
	}
	usb_dongle_cancel_all(d);
	return 0;
}

static void mcs_destroy(struct usb_dongle *d)
{
	free(d);
}

static int mcs_create(const struct usb_dongle_config *cfg, const struct usb_id *id,
		      struct usb_dongle **out, char *err, size_t errlen)
{
	(void)id;
	if (!usb_endpoint_is(cfg->ep.bulk_in, true) || !usb_endpoint_is(cfg->ep.bulk_out, false)) {
		snprintf(err, errlen,
			 "mcs7780: needs a bulk IN and a bulk OUT endpoint (given IN 0x%02x, OUT 0x%02x)",
			 cfg->ep.bulk_in, cfg->ep.bulk_out);
		return -EINVAL;
	}
	struct mcs7780 *m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "mcs7780: out of memory");
		return -ENOMEM;
	}
	m->state = MCS_CLOSED;
	*out = &m->base;
	return 0;
}

static const struct usb_dongle_ops mcs_ops = {
	.destroy = mcs_destroy,
	.open = mcs_open,
	.set_speed = mcs_set_speed,
	.send = mcs_send,
	.complete = mcs_complete,
	.tick = mcs_tick,
	.close = mcs_close,
};

static const struct usb_id mcs_ids[] = {
	{ MCS7780_VID, MCS7780_PID, 0 },
};

/* 2400..115200, 576k, 1.152M, 4M; at least 1 ms turnaround (the chip's
 * QoS bits 0x07: 10, 5 and 1 ms). */
const struct usb_family mcs7780_family = {
	.name = "mcs7780",
	.chip = "MosChip MCS7780",
	.ids = mcs_ids,
	.n_ids = NSTEPS(mcs_ids),
	.baud_bits = 0x01FF,
	.min_tat_bits = 0x07,
	.create = mcs_create,
	.ops = &mcs_ops,
};
