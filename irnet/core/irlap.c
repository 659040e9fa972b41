/*
 * irlap.c: the IrLAP station: state machines for connection, NRM data
 * transfer and disconnect, the turn builder, timers and requests.
 * Discovery lives in irlap_discovery.c.
 *
 * Each state has one input handler (handle_<state>) and the timer
 * handler dispatches on the state as well; every change of state goes
 * through irlap_set_state(), which logs `FROM --event--> TO`.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "irlap_internal.h"
#include "fcs.h"
#include "sir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NDM_BAUD 9600u
#define SNRM_BACKOFF_MIN_US 20000u
#define SNRM_BACKOFF_MAX_US 50000u
#define F_EXTENSION_US 300000u
#define LINK_LOST_BUSY_US 500000u
/* How long after a link a DISC for it is answered DM: a peer in PCLOSE
 * repeats it N3 times an F-timer apart (Linux: 3 x 500 ms), with some
 * margin; later, its address may be another link's. */
#define STALE_DISC_US 3000000u

static const char *const state_names[] = {
	[IRLAP_NDM] = "NDM", [IRLAP_QUERY] = "QUERY", [IRLAP_REPLY] = "REPLY",
	[IRLAP_CONN] = "CONN", [IRLAP_SETUP] = "SETUP", [IRLAP_XMIT_P] = "XMIT_P",
	[IRLAP_NRM_P] = "NRM_P", [IRLAP_PCLOSE] = "PCLOSE", [IRLAP_RESET] = "RESET",
	[IRLAP_NRM_S] = "NRM_S", [IRLAP_XMIT_S] = "XMIT_S", [IRLAP_SCLOSE] = "SCLOSE",
};

const char *irlap_state_name(enum irlap_state s)
{
	return (unsigned)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "?";
}

const char *irlap_reason_name(enum irlap_reason r)
{
	switch (r) {
	case IRLAP_REASON_USER: return "user request";
	case IRLAP_REASON_PEER: return "peer disconnect";
	case IRLAP_REASON_NO_RESPONSE: return "no response (link lost)";
	case IRLAP_REASON_RESET: return "reset failed";
	case IRLAP_REASON_NOT_FOUND: return "no device found";
	case IRLAP_REASON_MEDIA_BUSY: return "media busy";
	case IRLAP_REASON_REFUSED: return "refused";
	}
	return "?";
}

void irlap_config_defaults(struct irlap_config *cfg, uint32_t max_baud, uint32_t min_tat_us)
{
	memset(cfg, 0, sizeof(*cfg));
	/* 9600 up to max_baud, SIR rates only; 9600 is always there.
	 * Like Linux, 2400 is not offered by default. */
	cfg->qos.baud = (uint16_t)((qos_baud_mask_upto(max_baud) & 0x3e) | 0x02);
	cfg->qos.max_tat = 0x01;
	cfg->qos.data_size = 0x3f;
	cfg->qos.window = 0x7f;
	cfg->qos.add_bofs = 0xff;
	cfg->qos.min_tat = qos_min_tat_mask_for(min_tat_us);
	cfg->qos.link_disc = 0x07;
	cfg->info.hints[0] = 0x04; /* Computer */
	cfg->info.nhints = 1;
	cfg->slot_us = 90000;
	cfg->media_sense_us = 500000;
	cfg->media_wait_max_us = 3000000;
	cfg->ndm_xbofs = 12;
	cfg->n3 = 3;
	cfg->fast_poll_step_us = 50000;
	cfg->conn_timeout_us = 3000000;
	/* Linux switches 60 ms after handing its UA over where the driver
	 * cannot tell when it has left (USB bridges, digest 2.8), and msleep
	 * sleeps up to a timer tick more (4 ms at HZ=250). */
	cfg->peer_switch_us = 64000;
	cfg->min_fill = 32;
	cfg->tx_queue_max = 32;
	cfg->adapt_frame_size = true;
	cfg->send_srej = true;
	cfg->repoll_quiet_us = 0; /* see irlap.h: not for every host */
}

/* ---- plumbing shared with irlap_discovery.c ---------------------------- */

void irlap_set_state(struct irlap *st, enum irlap_state to, const char *event)
{
	if (log_enabled(st->log, LOG_LEVEL_DEBUG))
		log_msg(st->log, LOG_LEVEL_DEBUG, "%s --%s--> %s", irlap_state_name(st->state),
			event, irlap_state_name(to));
	st->state = to;
	/* A discovery or connect request that waited (REPLY, QUERY, CONN,
	 * a link, or the media timer taken by them: one timer slot) gets
	 * its turn in NDM, as the NDM row of the table says. */
	if (to == IRLAP_NDM && st->pending) {
		log_msg(st->log, LOG_LEVEL_DEBUG, "NDM --pending %s--> NDM (media sense)",
			st->preq.type == IRLAP_REQ_CONNECT ? "connect" : "discovery");
		st->pending_since = st->now;
		irlap_start_timer(st, T_MEDIA, st->now);
	}
}

void irlap_start_timer(struct irlap *st, enum irlap_timer t, uint64_t at)
{
	st->timer = t;
	st->timer_at = at;
}

void irlap_stop_timer(struct irlap *st)
{
	st->timer = T_NONE;
	st->timer_at = UINT64_MAX;
}

uint32_t irlap_random(struct irlap *st)
{
	/* splitmix64: small, good enough for slots and back-off, and
	 * reproducible from the configured seed. */
	uint64_t z = (st->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

uint32_t irlap_new_daddr(struct irlap *st)
{
	uint32_t a;

	do
		a = irlap_random(st);
	while (a == 0 || a == IRLAP_BROADCAST_DADDR || a == st->daddr);
	return a;
}

static bool needs_escape(uint8_t b)
{
	return b == 0xc0 || b == 0xc1 || b == 0x7d;
}

static uint32_t escaped_len(const uint8_t *p, size_t len)
{
	uint32_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += needs_escape(p[i]) ? 2 : 1;
	return n;
}

/* Bytes this frame occupies on the line: XBOFs, BOF, escaped A..I,
 * FCS, EOF (the FCS taken unescaped: it is unknown here). */
static uint32_t line_bytes(const uint8_t *frame, size_t len, uint32_t xbofs)
{
	return xbofs + 4 + escaped_len(frame, len);
}

void irlap_send(struct irlap *st, const uint8_t *frame, size_t len, uint32_t xbofs,
		uint32_t speed_after)
{
	struct irlap_txinfo tx = { .baud = st->baud, .xbofs = xbofs, .speed_after = speed_after };
	uint64_t start = st->tx_end > st->now ? st->tx_end : st->now;

	if (log_enabled(st->log, LOG_LEVEL_DEBUG)) {
		struct irlap_frame f;
		char line[96];

		if (irlap_frame_parse(frame, len, &f) == 0)
			log_msg(st->log, LOG_LEVEL_DEBUG, "tx %s",
				irlap_frame_describe(&f, line, sizeof(line)));
	}
	st->tx_end = start + sir_line_time_us(st->baud, line_bytes(frame, len, xbofs));
	st->stats.frames_tx++;
	/* What the peer sends after this is a new burst (see take_iframe). */
	st->rx_anchored = false;
	st->ops.send_frame(st->ctx, frame, len, &tx);
	if (speed_after)
		st->baud = speed_after;
}

void irlap_deliver(struct irlap *st, const struct irlap_event *ev)
{
	if (!st->ops.deliver)
		return;
	st->cb_depth++;
	st->ops.deliver(st->ctx, ev);
	st->cb_depth--;
}

/* ---- small helpers ----------------------------------------------------- */

static void set_line_speed(struct irlap *st, uint32_t baud)
{
	if (st->baud == baud)
		return;
	st->baud = baud;
	if (st->ops.set_speed)
		st->ops.set_speed(st->ctx, baud);
}

static uint32_t turn_padding(const struct irlap *st)
{
	return st->q.tx_add_bofs + qos_mtt_bytes(st->baud, st->q.tx_min_tat_us);
}

static void send_s(struct irlap *st, uint8_t stype, bool pf, uint32_t xbofs)
{
	size_t n = irlap_build_s(st->frame, sizeof(st->frame), st->caddr, st->primary, stype,
				 st->vr, pf);
	if (stype == IRLAP_S_RNR)
		st->stats.rnr_tx++;
	irlap_send(st, st->frame, n, xbofs, 0);
}

static void send_u(struct irlap *st, uint8_t control, const uint8_t *info, size_t len,
		   uint32_t xbofs, uint32_t speed_after)
{
	size_t n = irlap_build_u(st->frame, sizeof(st->frame), st->caddr, st->primary, control,
				 true, info, len);
	if (n)
		irlap_send(st, st->frame, n, xbofs, speed_after);
}

static void free_buf(struct irlap_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
}

static void flush_queues(struct irlap *st)
{
	while (st->qlen) {
		free_buf(&st->queue[st->qhead]);
		st->qhead = (st->qhead + 1) % st->cfg.tx_queue_max;
		st->qlen--;
	}
	for (size_t i = 0; i < st->nui; i++)
		free_buf(&st->ui[i]);
	st->nui = 0;
	free_buf(&st->test);
	st->test_pending = false;
}

static void reset_sequence(struct irlap *st)
{
	st->vs = st->vr = st->va = 0;
	st->remote_busy = false;
	st->srej = -1;
	st->frmr_pending = false;
	st->reset_wanted = false;
	st->peer_sent_data = false;
	st->idle_polls = 0;
	st->frame_size = st->q.tx_data_size;
	st->frame_window = st->q.tx_window;
	irlap_sizer_reset(&st->sizer, st->q.tx_data_size);
	st->last_turn_n = 0;
	st->peer_srej = false;
	st->srej_unanswered = 0;
	st->srej_off = false;
	st->srej_probe = false;
	st->rx_held = 0;
	st->rx_anchored = false;
	st->rx_count = 0;
	st->turns_len = 0;
	st->turns_done_nr = 0;
	st->early_polled = false;
	st->final_was_srej = false;
	st->answer_delay_us = 0;
	st->heard_since_poll = true; /* nothing to time until watch_answer() */
}

/* Back to NDM after a connection (or a failed attempt). */
/* Each link's end, once, with its cause and what it carried, as its
 * start was logged ("connected to ..."). */
static void log_link_end(struct irlap *st, const char *event, enum irlap_reason reason)
{
	uint64_t up_ms = (st->now - st->link.since_us) / 1000;

	if (!st->link.up)
		return;
	st->link.up = false;
	log_msg(st->log, LOG_LEVEL_INFO,
		"link to 0x%08x down: %s (%s) after %llu.%03llu s, %llu bytes sent, %llu received",
		st->peer_daddr, event, irlap_reason_name(reason),
		(unsigned long long)(up_ms / 1000), (unsigned long long)(up_ms % 1000),
		(unsigned long long)(st->stats.payload_tx - st->link.payload_tx0),
		(unsigned long long)(st->stats.payload_rx - st->link.payload_rx0));
}

static void to_ndm(struct irlap *st, const char *event, bool report, enum irlap_reason reason)
{
	struct irlap_event ev = { .type = IRLAP_EV_DISCONNECT, .reason = reason,
				  .daddr = st->peer_daddr };

	log_link_end(st, event, reason);
	irlap_stop_timer(st);
	irlap_set_state(st, IRLAP_NDM, event);
	set_line_speed(st, NDM_BAUD);
	flush_queues(st);
	reset_sequence(st);
	st->disc_pending = false;
	st->local_busy = false;
	st->warned = false;
	st->caddr = IRLAP_BROADCAST;
	st->media_busy_until = st->now + st->cfg.media_sense_us;
	if (report)
		irlap_deliver(st, &ev);
}

static void link_lost(struct irlap *st, const char *event)
{
	log_msg(st->log, LOG_LEVEL_WARNING, "link to 0x%08x lost", st->peer_daddr);
	to_ndm(st, event, true, IRLAP_REASON_NO_RESPONSE);
	if (st->media_busy_until < st->now + LINK_LOST_BUSY_US)
		st->media_busy_until = st->now + LINK_LOST_BUSY_US;
}

static void status(struct irlap *st, enum irlap_status s)
{
	struct irlap_event ev = { .type = IRLAP_EV_STATUS, .status = s };
	irlap_deliver(st, &ev);
}

/* Nr acknowledges frames va..nr-1; valid if va <= nr <= vs (mod 8). */
static bool nr_valid(const struct irlap *st, uint8_t nr)
{
	return ((nr - st->va) & 7) <= ((st->vs - st->va) & 7);
}

static void note_peer_busy(struct irlap *st, bool busy)
{
	if (busy == st->remote_busy)
		return;
	st->remote_busy = busy;
	if (busy)
		st->stats.rnr_rx++;
	status(st, busy ? IRLAP_STATUS_REMOTE_BUSY : IRLAP_STATUS_REMOTE_READY);
}

static void peer_answered(struct irlap *st)
{
	st->retry = 0;
	st->f_extended = false;
	if (st->warned) {
		st->warned = false;
		status(st, IRLAP_STATUS_LINK_OK);
	}
}

/* ---- the turn ---------------------------------------------------------- */

/* Next payload for an I-frame of at most room bytes: queued DATA first
 * (in order: a queued frame that does not fit ends the turn), then the
 * pull source, asked for at most pull_room bytes (the adapted size).
 * A source with nothing that small (an SDU TinyTP may not segment, an
 * IrLMP control PDU) is asked again with the whole room: the adapted
 * size is a preference, not a limit that could stall the link. */
static size_t next_payload(struct irlap *st, uint8_t *buf, size_t room, size_t pull_room,
			   bool *tx_ready)
{
	if (st->qlen) {
		struct irlap_buf *b = &st->queue[st->qhead];
		size_t n = b->len;

		if (n > room)
			return 0;
		memcpy(buf, b->data, n);
		free_buf(b);
		st->qhead = (st->qhead + 1) % st->cfg.tx_queue_max;
		st->qlen--;
		if (st->queue_was_full && st->qlen <= st->cfg.tx_queue_max / 2) {
			st->queue_was_full = false;
			*tx_ready = true;
		}
		return n;
	}
	if (st->ops.pull && !st->disc_pending) {
		size_t max = room < pull_room ? room : pull_room;
		size_t n = st->ops.pull(st->ctx, buf, max);

		if (n == 0 && max < room) {
			max = room;
			n = st->ops.pull(st->ctx, buf, max);
		}
		return n <= max ? n : 0;
	}
	return 0;
}

enum item_kind { ITEM_UI, ITEM_I };
struct turn_item {
	enum item_kind kind;
	uint8_t idx; /* UI queue index or Ns */
};

struct turn {
	struct turn_item items[IRLAP_UI_QUEUE + 8];
	unsigned n;
	uint32_t used;       /* line bytes so far, escapes counted */
	uint32_t used_plain; /* the digest's formula: no escapes */
};

static void turn_add(struct turn *t, enum item_kind kind, uint8_t idx, const uint8_t *data,
		     size_t len, uint32_t bofs)
{
	t->items[t->n++] = (struct turn_item){ kind, idx };
	t->used += escaped_len(data, len) + 6 + bofs;
	t->used_plain += (uint32_t)len + 6 + bofs;
}

/* Unacknowledged I-frames go again (the peer had the token since: what
 * it did not acknowledge is lost), or only the one an SREJ names.
 * Returns false if the turn could not hold them all (then no new frame
 * may follow: it would arrive out of sequence). */
static bool plan_retransmissions(struct irlap *st, struct turn *t, uint32_t bofs)
{
	if (st->srej >= 0) {
		uint8_t ns = (uint8_t)st->srej;
		turn_add(t, ITEM_I, ns, st->win[ns].data, st->win[ns].len, bofs);
		st->stats.iframes_retx++;
		return true;
	}
	for (uint8_t ns = st->va; ns != st->vs; ns = (ns + 1) & 7) {
		uint32_t c = escaped_len(st->win[ns].data, st->win[ns].len) + 6 + bofs;

		if (t->n && t->used + c > st->q.line_capacity)
			return false;
		turn_add(t, ITEM_I, ns, st->win[ns].data, st->win[ns].len, bofs);
		st->stats.iframes_retx++;
	}
	return true;
}

/* New I-frames while the window and the line capacity allow; the last
 * one is sized to fill what is left of the turn. */
static void plan_new_frames(struct irlap *st, struct turn *t, uint32_t bofs, bool *tx_ready)
{
	uint32_t cap = st->q.line_capacity;
	uint32_t data_size = st->q.tx_data_size;
	uint32_t pull_size = st->frame_size ? st->frame_size : data_size;
	uint32_t min_fill = st->cfg.min_fill < pull_size ? st->cfg.min_fill : pull_size;
	uint32_t window = st->q.tx_window;

	/* With a go-back-N peer under losses, fewer frames per turn may pay
	 * (see irlap_size.c); the negotiated window otherwise. */
	if (st->frame_window && st->frame_window < window)
		window = st->frame_window;
	while (((st->vs - st->va) & 7) < window) {
		uint32_t room = data_size;
		uint8_t *buf = st->win[st->vs].data;
		size_t n;

		if (t->n) {
			room = cap > t->used + 6 + bofs ? cap - t->used - 6 - bofs : 0;
			if (room > data_size)
				room = data_size;
			if (room < min_fill)
				break;
		}
		n = next_payload(st, buf, room, pull_size, tx_ready);
		if (!n)
			break;
		st->win[st->vs].len = (uint16_t)n;
		turn_add(t, ITEM_I, st->vs, buf, n, bofs);
		st->stats.payload_tx += n;
		st->vs = (st->vs + 1) & 7;
	}
}

/* ---- the turns the peer may still act on ---------------------------- */

/* We end a turn (P or F) carrying Nr = Vr.  A full list merges the new
 * turn into its newest entry: a lower Nr than the truth only keeps
 * fewer frames. */
static void note_turn_sent(struct irlap *st)
{
	struct irlap_turn_nr *last;

	if (st->turns_len) {
		last = &st->turns_out[(st->turns_head + st->turns_len - 1) & 7];
		if (last->nr == st->rx_count || st->turns_len == 8) {
			last->count++;
			return;
		}
	}
	st->turns_out[(st->turns_head + st->turns_len) & 7] =
		(struct irlap_turn_nr){ .nr = st->rx_count, .count = 1 };
	st->turns_len++;
}

static void drop_oldest_turn(struct irlap *st)
{
	st->turns_done_nr = st->turns_out[st->turns_head].nr;
	st->turns_head = (st->turns_head + 1) & 7;
	st->turns_len--;
}

/* The peer's P/F frame answers one of our turns, the oldest still open
 * or a later one: the peer takes them in order, so no answer to the
 * oldest can follow. */
static void note_peer_final(struct irlap *st)
{
	if (!st->turns_len || --st->turns_out[st->turns_head].count)
		return;
	drop_oldest_turn(st);
}

/* Frame rx_count - 1 came: the peer's window started above the Nr of
 * any turn 7 or more below it, so those turns are done. */
static void prune_turns(struct irlap *st)
{
	while (st->turns_len && st->turns_out[st->turns_head].nr + 7 < st->rx_count)
		drop_oldest_turn(st);
}

/* Whether an I-frame d (1..7) above Vr may be an old copy: the peer
 * sends from a window that starts at the Nr it last heard, no lower
 * than our oldest open turn's (with none open, the last one answered);
 * below Vr, down to there, are frames already delivered whose Ns lie 8
 * on.  As primary this is exact: a secondary answers only polls it
 * heard, in order.  As secondary a primary that resends on its F-timer
 * (Linux) can make us retire a turn it never heard, but what it resends
 * then comes after the quiet that ends a burst and holds no frame in
 * sequence, so nothing in it is anchored (may_hold). */
static bool may_be_old_copy(const struct irlap *st, unsigned d)
{
	uint64_t floor = st->turns_len ? st->turns_out[st->turns_head].nr : st->turns_done_nr;

	return st->rx_count + d >= floor + 8;
}

static void send_items(struct irlap *st, const struct turn *t, uint32_t pad, uint32_t bofs,
		       bool final_in_items)
{
	for (unsigned i = 0; i < t->n; i++) {
		bool last = final_in_items && i + 1 == t->n;
		uint32_t xb = bofs + (i == 0 ? pad : 0);
		size_t n;

		if (t->items[i].kind == ITEM_UI) {
			const struct irlap_buf *b = &st->ui[t->items[i].idx];
			n = irlap_build_u(st->frame, sizeof(st->frame), st->caddr, st->primary,
					  IRLAP_C_UI, last, b->data, b->len);
		} else {
			const struct irlap_slot *s = &st->win[t->items[i].idx];
			n = irlap_build_i(st->frame, sizeof(st->frame), st->caddr, st->primary,
					  t->items[i].idx, st->vr, last, s->data, s->len);
			st->stats.iframes_tx++;
		}
		if (last)
			note_turn_sent(st);
		irlap_send(st, st->frame, n, xb, 0);
	}
}

static void drop_sent_ui(struct irlap *st, const struct turn *t)
{
	size_t sent = 0;

	for (unsigned i = 0; i < t->n; i++)
		if (t->items[i].kind == ITEM_UI)
			sent++;
	for (size_t i = 0; i < sent; i++)
		free_buf(&st->ui[i]);
	memmove(st->ui, st->ui + sent, (st->nui - sent) * sizeof(st->ui[0]));
	st->nui -= sent;
}

/* ---- data transfer under bit errors ------------------------------------ */

static uint32_t bytes_in_us(const struct irlap *st, uint64_t us)
{
	return (uint32_t)(us * st->baud / 10000000u);
}

/* How long a primary waits, after its poll left, for the first sign of
 * an answer before taking the poll as lost: the quiet time, plus the
 * padding the peer puts before its answer (0xFF bytes are no sign), or
 * twice the longest recent answer delay for a slow peer. */
static uint64_t answer_wait_us(const struct irlap *st)
{
	uint32_t pad = qos_mtt_bytes(st->baud, st->q.rx_min_tat_us) + st->q.tx_add_bofs;
	uint64_t w = st->cfg.repoll_quiet_us + sir_line_time_us(st->baud, pad);

	return 2ull * st->answer_delay_us > w ? 2ull * st->answer_delay_us : w;
}

static struct irlap_size_costs size_costs(const struct irlap *st)
{
	uint32_t bofs = st->q.tx_add_bofs;
	uint32_t lost_final_us = st->cfg.repoll_quiet_us ? (uint32_t)answer_wait_us(st) : st->f_us;

	return (struct irlap_size_costs){
		.window = st->q.tx_window,
		.capacity = st->q.line_capacity,
		.frame_bytes = 6 + bofs,
		.turn_bytes = qos_mtt_bytes(st->baud, st->q.tx_min_tat_us) +
			      qos_mtt_bytes(st->baud, st->q.rx_min_tat_us) + 6 + bofs,
		.lost_final_bytes = bytes_in_us(st, lost_final_us),
		.selective = st->peer_srej,
	};
}

/*
 * The peer has answered our last turn: its Nr says which of that turn's
 * I-frames arrived.  In the order sent, acknowledged frames arrived; the
 * first one not acknowledged, if it is the one the peer expects next,
 * was lost; what follows it is unknown (dropped after the loss, or held
 * by a peer that asks with SREJ), so it is not counted.  Then the size
 * for new frames is chosen again.
 */
static void adapt_frame_size(struct irlap *st)
{
	uint8_t pending = (st->vs - st->va) & 7;
	uint32_t bofs = st->q.tx_add_bofs;
	struct irlap_size_costs costs;
	uint32_t size;

	if (!st->cfg.adapt_frame_size || st->remote_busy) {
		st->last_turn_n = 0;
		return;
	}
	for (unsigned i = 0; i < st->last_turn_n; i++) {
		uint8_t ns = st->last_turn[i];
		uint32_t len = st->win[ns].len;
		bool acked = ((ns - st->va) & 7) >= pending;

		if (!acked && ns != st->va)
			break;
		irlap_sizer_observe(&st->sizer, len, len + 6 + bofs, !acked);
		if (!acked)
			break;
	}
	st->last_turn_n = 0;
	costs = size_costs(st);
	size = irlap_sizer_choose(&st->sizer, &costs);
	if (size != st->frame_size || st->sizer.win != st->frame_window) {
		log_msg(st->log, LOG_LEVEL_DEBUG, "I-frames %u x %u -> %u x %u", st->frame_window,
			st->frame_size, st->sizer.win, size);
		st->frame_size = size;
		st->frame_window = st->sizer.win;
		st->stats.size_changes++;
	}
}

/* The Ns of what the peer sends next in this burst lie in
 * [lo, lo + span) (see may_hold). */
static void anchor_burst(struct irlap *st, uint8_t lo, uint8_t span)
{
	st->rx_anchored = true;
	st->rx_anchor = lo;
	st->rx_span = span;
}

/* Whether we keep I-frames after a lost one and ask for it with SREJ. */
static bool srej_enabled(const struct irlap *st)
{
	return st->cfg.send_srej && !st->srej_off;
}

/* The S-frame that ends a turn without I-frames to carry P/F, or that
 * must end it whatever: RNR when we are busy, SREJ when we hold frames
 * after a lost one (asking for that one alone), else RR. */
static uint8_t final_stype(const struct irlap *st)
{
	if (st->local_busy)
		return IRLAP_S_RNR;
	if (st->rx_held && srej_enabled(st))
		return IRLAP_S_SREJ;
	return IRLAP_S_RR;
}

/* Whether the P/F bit goes on a separate S-frame after the I-frames:
 * RNR or SREJ must be said; a lone RR is worth its bytes when the last
 * I-frame, of len bytes, is likely lost (then the peer, or we, would
 * wait). */
static bool separate_final(const struct irlap *st, uint32_t len)
{
	struct irlap_size_costs costs;

	if (final_stype(st) != IRLAP_S_RR)
		return true;
	if (!st->cfg.adapt_frame_size)
		return false;
	costs = size_costs(st);
	return irlap_sizer_separate_final(&st->sizer, &costs, len);
}

static void note_final(struct irlap *st, uint8_t stype)
{
	st->final_was_srej = stype == IRLAP_S_SREJ;
	if (stype == IRLAP_S_SREJ)
		st->stats.srej_tx++;
	else if (stype == IRLAP_S_RNR)
		st->stats.rnr_tx++;
}

/* A poll or final S-frame alone (nothing else in the turn). */
static void send_final_s(struct irlap *st, uint32_t xbofs)
{
	uint8_t stype = final_stype(st);
	size_t n = irlap_build_s(st->frame, sizeof(st->frame), st->caddr, st->primary, stype,
				 st->vr, true);

	note_final(st, stype);
	note_turn_sent(st);
	irlap_send(st, st->frame, n, xbofs, 0);
}

static void record_turn(struct irlap *st, const struct turn *t)
{
	st->last_turn_n = 0;
	for (unsigned i = 0; i < t->n; i++)
		if (t->items[i].kind == ITEM_I)
			st->last_turn[st->last_turn_n++] = t->items[i].idx;
}

/*
 * Builds and sends one turn: queued UI frames, the I-frames to send
 * again, then new ones while the window and the line capacity allow.
 * The last frame carries P (primary) or F (secondary), or a separate
 * S-frame does (RNR in local busy, SREJ when a frame is missing, RR
 * when the last I-frame is likely lost; its bytes are kept from the
 * turn's budget).  A turn without frames is a single RR, or nothing at
 * all unless allow_empty.  Returns the number of frames sent.
 */
static unsigned send_turn(struct irlap *st, bool allow_empty)
{
	struct turn t = { .n = 0 };
	uint32_t bofs = st->q.tx_add_bofs;
	uint32_t pad = qos_mtt_bytes(st->baud, st->q.tx_min_tat_us);
	bool tx_ready = false;
	bool separate;
	uint8_t stype = final_stype(st);

	t.used = t.used_plain = pad;
	adapt_frame_size(st);
	/* Room for a separate final frame is kept if the frames planned
	 * are likely to need one; whether it goes depends on the last. */
	separate = separate_final(st, st->frame_size);
	if (separate) {
		t.used += 6 + bofs;
		t.used_plain += 6 + bofs;
	}
	for (size_t i = 0; i < st->nui && i < st->q.tx_window; i++)
		turn_add(&t, ITEM_UI, (uint8_t)i, st->ui[i].data, st->ui[i].len, bofs);
	if (!st->remote_busy && !st->frmr_pending) {
		if (plan_retransmissions(st, &t, bofs))
			plan_new_frames(st, &t, bofs, &tx_ready);
	}
	st->srej = -1;
	if (t.n == 0 && !allow_empty && stype == IRLAP_S_RR)
		return 0;
	if (t.n == 0 && !separate) {
		t.used_plain += 6 + bofs;
		separate = true;
	} else if (t.n && separate && stype == IRLAP_S_RR) {
		const struct turn_item *last = &t.items[t.n - 1];
		uint32_t len = last->kind == ITEM_I ? st->win[last->idx].len : st->ui[last->idx].len;

		if (!separate_final(st, len)) {
			separate = false;
			t.used_plain -= 6 + bofs;
		}
	}
	record_turn(st, &t);
	send_items(st, &t, pad, bofs, !separate);
	if (separate)
		send_final_s(st, bofs + (t.n ? 0 : pad));
	else
		st->final_was_srej = false;
	drop_sent_ui(st, &t);
	st->stats.turns++;
	if (t.used_plain > st->stats.max_turn_bytes)
		st->stats.max_turn_bytes = t.used_plain;
	if (tx_ready) {
		struct irlap_event ev = { .type = IRLAP_EV_TX_READY };
		irlap_deliver(st, &ev);
	}
	return t.n ? t.n : 1;
}

/* ---- primary ----------------------------------------------------------- */

static void start_f_timer(struct irlap *st, uint32_t us)
{
	st->f_deadline = st->tx_end + us;
	irlap_start_timer(st, T_FINAL, st->f_deadline);
}

/*
 * Early poll (primary, NRM_P).  The F-timer covers the longest turn the
 * peer may take, but some answers are known lost long before: nothing
 * at all was heard after our poll (the poll was lost: the peer answers
 * within its turnaround), or a damaged frame was the last thing heard
 * and the line has stayed quiet since (the peer's turn is over and its
 * final frame was the damaged one).  Then we poll again after
 * repoll_quiet_us of quiet instead of waiting out the F-timer.  This is
 * the F-timer's own action, done earlier, so a wrong guess cannot
 * break the protocol: a peer still talking misses our RR(P) (and we
 * maybe its last frame), and the F-timer then runs as before.  The
 * poll carries no I-frame, so the peer's Ns stay unambiguous.  Once per
 * answer, and without counting towards N1/N2 (link supervision keeps
 * its timing).
 */
static void arm_final_watch(struct irlap *st)
{
	uint64_t at = st->f_deadline;

	if (st->cfg.repoll_quiet_us && !st->early_polled && st->state == IRLAP_NRM_P) {
		uint64_t early = UINT64_MAX;

		if (!st->heard_since_poll)
			early = st->poll_end + answer_wait_us(st);
		else if (st->damaged)
			early = st->rx_heard_at + st->cfg.repoll_quiet_us;
		if (early <= st->now) /* never a timer that fires again at once */
			early = st->now + st->cfg.repoll_quiet_us;
		if (early < at)
			at = early;
	}
	irlap_start_timer(st, T_FINAL, at);
}

/* Our poll has just been handed over: watch for its answer.  Its
 * I-frames should lie in [Vr, Vr + W), but the burst that comes next may
 * be a late answer to an earlier poll that we repeated (the peer heard
 * both, answered the first slowly): old frames, whose Ns lie in that
 * range too, 8 numbers on.  Kept, they would be delivered a lap later
 * in place of new ones (tests/unit/test_irlap
 * stale_answer_to_repeated_poll).  So nothing is kept before a frame
 * of this burst came in sequence (take_iframe anchors it then): losing
 * the first frame of an answer costs the go-back-N resend, never data. */
static void watch_answer(struct irlap *st)
{
	st->rx_anchored = false;
	st->poll_end = st->tx_end;
	st->heard_since_poll = false;
	st->damaged = false;
	arm_final_watch(st);
}

/* Something of the peer was heard: a frame, a damaged one, line
 * activity.  A long quiet before it ends the burst (see may_hold). */
static void note_heard(struct irlap *st, uint64_t now)
{
	uint64_t gap = sir_line_time_us(st->baud, 32);

	if (gap < 5000)
		gap = 5000;
	/* A secondary answers only our poll (the primary's anchor holds
	 * however long it takes); a primary may start a new burst after
	 * a quiet line. */
	if (!st->primary && now > st->rx_heard_at + gap)
		st->rx_anchored = false;
	if (now > st->rx_heard_at)
		st->rx_heard_at = now;
	if (st->state == IRLAP_NRM_P && !st->heard_since_poll && now >= st->poll_end) {
		/* The peer's answer delay: a maximum that forgets slowly. */
		uint64_t d = now - st->poll_end;
		uint32_t decayed = st->answer_delay_us - st->answer_delay_us / 16;

		st->answer_delay_us = d > decayed ? (uint32_t)(d < st->f_us ? d : st->f_us) : decayed;
		st->heard_since_poll = true;
	}
}

static void poll_again(struct irlap *st)
{
	send_final_s(st, turn_padding(st));
	start_f_timer(st, st->f_us);
	watch_answer(st);
}

/* Our poll got no answer.  A peer that ignores SREJ (or answers it in
 * a form we ignore) would leave every poll that is an SREJ unanswered,
 * and we keep polling with SREJ while we hold frames: after three in a
 * row we try RR.  If that is answered, RR it is for the rest of the
 * connection; if not, the line is to blame and SREJ comes back. */
static void note_unanswered_poll(struct irlap *st)
{
	if (st->srej_probe && !st->final_was_srej) {
		st->srej_probe = false;
		st->srej_off = false;
		st->srej_unanswered = 0;
		return;
	}
	if (!st->final_was_srej || st->srej_off)
		return;
	if (++st->srej_unanswered >= 3) {
		st->srej_off = true;
		st->srej_probe = true;
	}
}

/* The peer answered our poll. */
static void note_answered_poll(struct irlap *st)
{
	st->early_polled = false;
	if (st->final_was_srej)
		st->srej_unanswered = 0;
	if (st->srej_probe) {
		st->srej_probe = false;
		log_msg(st->log, LOG_LEVEL_WARNING,
			"link to 0x%08x: SREJ not answered, asking with RR from now on",
			st->peer_daddr);
	}
}

/* The F-timer slot fired before the F-timer proper: the watch. */
static void on_final_watch(struct irlap *st)
{
	bool lost_poll = !st->heard_since_poll && st->now >= st->poll_end + answer_wait_us(st);
	bool lost_final = st->heard_since_poll && st->damaged &&
			  st->now >= st->rx_heard_at + st->cfg.repoll_quiet_us;

	if (st->early_polled || !(lost_poll || lost_final)) {
		arm_final_watch(st);
		return;
	}
	st->early_polled = true;
	st->stats.early_polls++;
	log_msg(st->log, LOG_LEVEL_DEBUG, "NRM_P --%s--> NRM_P (poll again)",
		lost_poll ? "no answer" : "final damaged");
	note_unanswered_poll(st);
	poll_again(st);
}

static void send_snrm(struct irlap *st)
{
	struct irlap_connect_info ci = { .saddr = st->daddr, .daddr = st->peer_daddr,
					 .ncaddr = st->caddr, .qos = st->cfg.qos };
	size_t n = irlap_snrm_build(st->frame, sizeof(st->frame), &ci);

	irlap_send(st, st->frame, n, st->cfg.ndm_xbofs, 0);
	start_f_timer(st, st->f_us);
}

static void start_reset(struct irlap *st, const char *event)
{
	log_msg(st->log, LOG_LEVEL_WARNING, "link to 0x%08x: reset (%s)", st->peer_daddr, event);
	send_u(st, IRLAP_C_SNRM, NULL, 0, turn_padding(st), 0);
	st->retry = 0;
	irlap_set_state(st, IRLAP_RESET, event);
	start_f_timer(st, st->f_us);
}

static bool all_acked(const struct irlap *st)
{
	return st->qlen == 0 && st->va == st->vs && st->nui == 0;
}

/* The primary holds the token: say something now, or, with nothing to
 * send and nothing heard, wait for the P-timer (the first idle poll
 * goes at once, later ones at growing intervals up to the P-timer). */
static void primary_turn(struct irlap *st, bool poll_expired)
{
	bool must_answer = poll_expired || st->peer_sent_data || st->idle_polls == 0;
	unsigned sent;
	uint64_t iframes = st->stats.iframes_tx;

	if (st->disc_pending && all_acked(st)) {
		send_u(st, IRLAP_C_DISC, NULL, 0, turn_padding(st), 0);
		st->retry = 0;
		st->close_reason = IRLAP_REASON_USER;
		irlap_set_state(st, IRLAP_PCLOSE, "disconnect");
		start_f_timer(st, st->f_us);
		return;
	}
	if (st->reset_wanted) {
		start_reset(st, "reset");
		return;
	}
	if (st->test_pending) {
		send_u(st, IRLAP_C_TEST, st->test.data, st->test.len, turn_padding(st), 0);
		free_buf(&st->test);
		st->test_pending = false;
		irlap_set_state(st, IRLAP_NRM_P, "TEST(P)");
		start_f_timer(st, st->f_us);
		return;
	}
	sent = send_turn(st, must_answer);
	if (!sent) {
		uint64_t wait = (uint64_t)st->idle_polls * st->cfg.fast_poll_step_us;

		if (wait > st->p_us)
			wait = st->p_us;
		if (st->idle_polls < 1000)
			st->idle_polls++;
		irlap_start_timer(st, T_POLL, st->now + wait);
		return;
	}
	if (st->stats.iframes_tx != iframes || st->peer_sent_data)
		st->idle_polls = 0;
	else if (st->idle_polls < 1000)
		st->idle_polls++;
	irlap_set_state(st, IRLAP_NRM_P, st->stats.iframes_tx != iframes ? "I(P)" : "RR(P)");
	start_f_timer(st, st->f_us);
	watch_answer(st);
}

/* Something a pull source or a request may have made sendable. */
static void kick_primary(struct irlap *st)
{
	/* Not while the peer switches speed after the UA: the first poll
	 * comes first (first_poll_at). */
	if (st->state != IRLAP_XMIT_P || st->timer == T_SWITCH)
		return;
	if (st->cb_depth) {
		st->kick = true;
		return;
	}
	st->idle_polls = 0;
	primary_turn(st, true);
}

/* Common NRM bookkeeping for an I or S frame; false if Nr is invalid. */
static bool take_nr(struct irlap *st, uint8_t nr)
{
	if (!nr_valid(st, nr))
		return false;
	st->va = nr;
	return true;
}

static void deliver_iframe(struct irlap *st, const uint8_t *data, size_t len)
{
	struct irlap_event ev = { .type = IRLAP_EV_DATA, .data = data, .len = len };

	st->rx_count++;
	prune_turns(st);
	st->vr = (st->vr + 1) & 7;
	st->stats.iframes_rx++;
	st->stats.payload_rx += len;
	irlap_deliver(st, &ev);
}

/*
 * Whether an I-frame that is not the next expected one may be kept for
 * later (SREJ).  With a window of 7 and 8 sequence numbers its Ns alone
 * cannot tell a new frame from an old one sent again by a peer that did
 * not hear our last Nr.  What is known: the Ns the rest of the peer's
 * burst can carry lie in [rx_lo, rx_lo + rx_span) (mod 8):
 *  - after our poll (primary) nothing is known: the secondary answers a
 *    poll, but maybe an earlier one that we repeated (watch_answer);
 *  - after an I-frame taken in sequence (either role): a peer sends a
 *    burst in increasing Ns order within its window, so what follows
 *    lies in [Ns + 1, Ns + W).
 * Within that range, a frame below our Vr is a copy of one we have, one
 * above is new, past a lost one.  A burst ends when we transmit, with
 * the P/F frame, or after a quiet line (a primary sends again without
 * hearing us only after its F-timer, hundreds of ms).
 */
static bool may_hold(const struct irlap *st, uint8_t ns, size_t len)
{
	unsigned d = (ns - st->rx_anchor) & 7;
	unsigned e = (st->vr - st->rx_anchor) & 7;

	return srej_enabled(st) && st->rx_anchored && d > e && d < st->rx_span &&
	       !may_be_old_copy(st, (ns - st->vr) & 7) && len <= IRLAP_MAX_DATA;
}

static void take_iframe(struct irlap *st, const struct irlap_frame *f)
{
	st->peer_sent_data = true;
	if (st->local_busy) {
		st->stats.iframes_dropped++;
		return;
	}
	if (f->ns == st->vr) {
		st->rx_held &= (uint8_t)~(1u << f->ns);
		anchor_burst(st, (f->ns + 1) & 7, (uint8_t)(st->q.rx_window - 1));
		deliver_iframe(st, f->info, f->info_len);
		/* Frames kept after this one follow it now. */
		while (!st->local_busy && (st->rx_held & (1u << st->vr))) {
			struct irlap_slot *h = &st->rxwin[st->vr];

			st->rx_held &= (uint8_t)~(1u << st->vr);
			deliver_iframe(st, h->data, h->len);
		}
		return;
	}
	if (may_hold(st, f->ns, f->info_len)) {
		memcpy(st->rxwin[f->ns].data, f->info, f->info_len);
		st->rxwin[f->ns].len = (uint16_t)f->info_len;
		st->rx_held |= (uint8_t)(1u << f->ns);
		st->stats.iframes_held++;
		return;
	}
	st->stats.iframes_dropped++;
}

/* I and S frames in NRM, either role: Nr, the peer's busy state, an
 * SREJ, the I-frame's data.  False (nothing taken) if Nr is invalid. */
static bool take_numbered(struct irlap *st, const struct irlap_frame *f)
{
	if (!take_nr(st, f->nr))
		return false;
	note_peer_busy(st, f->type == IRLAP_F_RNR);
	if (f->type == IRLAP_F_SREJ) {
		/* Nr names the one frame to send again; those after it
		 * arrived (or will be asked for by a later Nr). */
		st->stats.srej_rx++;
		st->peer_srej = true;
		if (st->va != st->vs)
			st->srej = st->va;
	}
	if (f->type == IRLAP_F_I)
		take_iframe(st, f);
	if (f->pf) {
		st->rx_anchored = false; /* the peer's turn ends */
		note_peer_final(st);
	}
	return true;
}

/* UI data, or the answer to our TEST, up to the user. */
static void deliver_unnumbered(struct irlap *st, const struct irlap_frame *f)
{
	struct irlap_event ev = { .type = f->type == IRLAP_F_UI ? IRLAP_EV_UI : IRLAP_EV_TEST,
				  .data = f->info, .len = f->info_len };
	irlap_deliver(st, &ev);
}

static void handle_nrm_p(struct irlap *st, const struct irlap_frame *f)
{
	st->damaged = false;
	switch (f->type) {
	case IRLAP_F_I:
	case IRLAP_F_RR:
	case IRLAP_F_REJ:
	case IRLAP_F_RNR:
	case IRLAP_F_SREJ:
		if (!take_numbered(st, f))
			goto invalid_nr;
		break;
	case IRLAP_F_UI:
	case IRLAP_F_TEST:
		deliver_unnumbered(st, f);
		break;
	case IRLAP_F_FRMR:
		st->stats.resets++;
		start_reset(st, "FRMR");
		return;
	case IRLAP_F_RNRM:
		start_reset(st, "RNRM");
		return;
	case IRLAP_F_RD:
		send_u(st, IRLAP_C_DISC, NULL, 0, turn_padding(st), 0);
		st->retry = 0;
		st->close_reason = IRLAP_REASON_PEER;
		irlap_set_state(st, IRLAP_PCLOSE, "RD");
		start_f_timer(st, st->f_us);
		return;
	case IRLAP_F_DM:
		to_ndm(st, "DM", true, IRLAP_REASON_PEER);
		return;
	default:
		st->stats.ignored++;
		return;
	}
	if (!f->pf) {
		/* The secondary is still talking: give it the rest of a turn. */
		start_f_timer(st, st->f_us);
		return;
	}
	peer_answered(st);
	note_answered_poll(st);
	irlap_set_state(st, IRLAP_XMIT_P, f->type == IRLAP_F_I ? "I(F)" : "S(F)");
	primary_turn(st, false);
	st->peer_sent_data = false;
	return;

invalid_nr:
	if (f->pf)
		start_reset(st, "invalid Nr");
	else
		st->reset_wanted = true;
}

/* ---- secondary --------------------------------------------------------- */

static void send_frmr(struct irlap *st)
{
	size_t n = irlap_frmr_build(st->frame, sizeof(st->frame), st->caddr, &st->frmr);

	st->stats.frmr_tx++;
	irlap_send(st, st->frame, n, turn_padding(st), 0);
}

static void set_frmr(struct irlap *st, const struct irlap_frame *f, uint8_t wxyz)
{
	if (st->frmr_pending)
		return;
	st->frmr = (struct irlap_frmr){ .rejected_control = f->control, .vs = st->vs,
					.vr = st->vr, .rejected_cmd = f->cmd, .wxyz = wxyz };
	st->frmr_pending = true;
	log_msg(st->log, LOG_LEVEL_WARNING, "frame rejected (control 0x%02x, wxyz 0x%x)",
		f->control, wxyz);
}

static void secondary_turn(struct irlap *st, const char *event)
{
	irlap_set_state(st, IRLAP_XMIT_S, event);
	if (st->disc_pending && all_acked(st)) {
		send_u(st, IRLAP_C_DISC, NULL, 0, turn_padding(st), 0); /* RD */
		irlap_set_state(st, IRLAP_SCLOSE, "RD(F)");
		irlap_start_timer(st, T_WD, st->tx_end + st->wd_us);
		return;
	}
	if (st->frmr_pending)
		send_frmr(st);
	else
		send_turn(st, true);
	st->peer_sent_data = false;
	irlap_set_state(st, IRLAP_NRM_S, "F sent");
	irlap_start_timer(st, T_WD, st->tx_end + st->wd_us);
}

static void secondary_reset(struct irlap *st)
{
	struct irlap_event ev = { .type = IRLAP_EV_RESET };

	send_u(st, IRLAP_C_UA, NULL, 0, turn_padding(st), 0);
	reset_sequence(st);
	st->stats.resets++;
	irlap_set_state(st, IRLAP_NRM_S, "SNRM (reset)");
	irlap_start_timer(st, T_WD, st->tx_end + st->wd_us);
	irlap_deliver(st, &ev);
}

static void handle_ndm(struct irlap *st, const struct irlap_frame *f);

static int snrm_for_us(struct irlap *st, const struct irlap_frame *f,
		       struct irlap_connect_info *ci, const char **why);

/* A fresh connect while we thought the link was up: the primary lost it
 * (its link timeout ran out before ours, or it was restarted).  Drop ours
 * and treat the SNRM as in NDM. */
static void secondary_new_connection(struct irlap *st, const struct irlap_frame *f)
{
	to_ndm(st, "SNRM (new connection)", true, IRLAP_REASON_PEER);
	st->media_busy_until = st->now;
	handle_ndm(st, f);
}

/* A connect SNRM on the broadcast address (a new link, not ours) while we
 * are secondary: taken only from the station we are linked to, the one
 * whose loss of the link it shows; another's is left alone (we are busy,
 * and it will see no answer). */
static bool secondary_snrm_from_our_peer(struct irlap *st, const struct irlap_frame *f)
{
	struct irlap_connect_info ci;

	if (f->type != IRLAP_F_SNRM || f->caddr != IRLAP_BROADCAST || !f->cmd)
		return false;
	return snrm_for_us(st, f, &ci, NULL) != -EINVAL && ci.saddr == st->peer_daddr;
}

static void handle_nrm_s(struct irlap *st, const struct irlap_frame *f)
{
	irlap_start_timer(st, T_WD, st->now + st->wd_us);
	peer_answered(st);
	switch (f->type) {
	case IRLAP_F_I:
	case IRLAP_F_RR:
	case IRLAP_F_RNR:
	case IRLAP_F_REJ:
	case IRLAP_F_SREJ:
		if (f->type == IRLAP_F_I && f->info_len > st->q.rx_data_size)
			set_frmr(st, f, IRLAP_FRMR_Y);
		else if (f->type != IRLAP_F_I && f->info_len)
			set_frmr(st, f, IRLAP_FRMR_X);
		else if (!take_numbered(st, f))
			set_frmr(st, f, IRLAP_FRMR_Z);
		break;
	case IRLAP_F_UI:
		deliver_unnumbered(st, f);
		break;
	case IRLAP_F_SNRM:
		if (f->info_len == 0) {
			secondary_reset(st);
			return;
		}
		secondary_new_connection(st, f);
		return;
	case IRLAP_F_DISC:
		send_u(st, IRLAP_C_UA, NULL, 0, turn_padding(st), st->baud != NDM_BAUD ? NDM_BAUD : 0);
		st->ended_caddr = st->caddr; /* the UA may be lost: answer_stale_disc */
		st->ended_at = st->now;
		to_ndm(st, "DISC", true, IRLAP_REASON_PEER);
		return;
	case IRLAP_F_TEST:
		if (f->pf) {
			send_u(st, IRLAP_C_TEST, f->info, f->info_len, turn_padding(st), 0);
			irlap_start_timer(st, T_WD, st->tx_end + st->wd_us);
			return;
		}
		break;
	case IRLAP_F_XID_CMD:
		/* Another station discovering; not for our link. */
		st->stats.ignored++;
		return;
	default:
		set_frmr(st, f, IRLAP_FRMR_W);
		break;
	}
	if (f->pf)
		secondary_turn(st, f->type == IRLAP_F_I ? "I(P)" : "S(P)");
}

static void handle_sclose(struct irlap *st, const struct irlap_frame *f)
{
	if (f->type == IRLAP_F_DISC) {
		send_u(st, IRLAP_C_UA, NULL, 0, turn_padding(st), st->baud != NDM_BAUD ? NDM_BAUD : 0);
		to_ndm(st, "DISC", true, IRLAP_REASON_USER);
		return;
	}
	if (f->pf) {
		send_u(st, IRLAP_C_DISC, NULL, 0, turn_padding(st), 0); /* RD again */
		irlap_start_timer(st, T_WD, st->tx_end + st->wd_us);
	}
}

/* ---- connection set-up -------------------------------------------------- */

/* 0, or -EPROTO for a list that leaves a parameter nothing valid (the
 * timers and padding are then set from its conservative fallbacks). */
static int apply_negotiation(struct irlap *st, const struct qos_bits *peer)
{
	int rc = qos_negotiate(&st->cfg.qos, peer, &st->cfg.limits, &st->q);

	st->f_us = st->q.own_max_tat_ms * 1000;
	st->p_us = st->q.peer_max_tat_ms * 1000;
	st->wd_us = 2 * st->f_us;
	st->n2 = st->q.link_disc_ms * 1000 / st->f_us;
	st->n1 = st->q.threshold_ms * 1000 / st->f_us;
	if (st->n2 < 2)
		st->n2 = 2;
	reset_sequence(st);
	st->retry = 0;
	st->warned = false;
	if (rc < 0)
		return rc;
	st->link.up = true;
	st->link.since_us = st->now;
	st->link.payload_tx0 = st->stats.payload_tx;
	st->link.payload_rx0 = st->stats.payload_rx;
	log_msg(st->log, LOG_LEVEL_INFO,
		"connected to 0x%08x as %s: %u baud, tx %u x %u bytes, rx %u x %u, "
		"turn %u bytes, min TAT tx %u us rx %u us, disconnect %u ms",
		st->peer_daddr, st->primary ? "primary" : "secondary", st->q.baud,
		st->q.tx_window, st->q.tx_data_size, st->q.rx_window, st->q.rx_data_size,
		st->q.line_capacity, st->q.tx_min_tat_us, st->q.rx_min_tat_us, st->q.link_disc_ms);
	return 0;
}

/* A connect frame's QoS list (parse_rc from its parser): 0 if it can be
 * negotiated, else -EPROTO with *why naming what is wrong (the first
 * parameter with nothing valid) and, for a malformed list, the defaults
 * in ci->qos, so that a refusal has sane values to work with. */
static int check_qos(const struct irlap *st, struct irlap_connect_info *ci, int parse_rc,
		     const char **why)
{
	unsigned bad;
	const char *what = "malformed parameter list";

	if (parse_rc) {
		qos_defaults(&ci->qos);
	} else {
		bad = qos_unusable(&st->cfg.qos, &ci->qos);
		if (!bad)
			return 0;
		what = qos_param_name(bad & (0u - bad));
	}
	if (why)
		*why = what;
	return -EPROTO;
}

static void connect_confirm(struct irlap *st)
{
	struct irlap_event ev = { .type = IRLAP_EV_CONNECT_CONF, .qos = &st->q,
				  .primary = st->primary, .daddr = st->peer_daddr };
	irlap_deliver(st, &ev);
}

/* Secondary: answer SNRM with UA at 9600, then switch. */
static void accept_snrm(struct irlap *st, const struct irlap_connect_info *ci, bool confirm)
{
	struct irlap_connect_info ua = { .saddr = st->daddr, .daddr = ci->saddr,
					 .qos = st->cfg.qos };
	size_t n;

	st->primary = false;
	st->peer_daddr = ci->saddr;
	st->caddr = ci->ncaddr;
	if (st->pending && st->preq.type == IRLAP_REQ_CONNECT && st->preq.daddr == ci->saddr) {
		/* Our own connect to this peer was waiting: this link is it. */
		st->pending = false;
		log_msg(st->log, LOG_LEVEL_DEBUG, "%s --SNRM from the peer we wait for--> %s "
			"(pending connect taken)", irlap_state_name(st->state),
			irlap_state_name(st->state));
	}
	apply_negotiation(st, &ci->qos);
	n = irlap_ua_connect_build(st->frame, sizeof(st->frame), st->caddr, &ua);
	irlap_send(st, st->frame, n, st->cfg.ndm_xbofs,
		   st->q.baud != st->baud ? st->q.baud : 0);
	irlap_set_state(st, IRLAP_NRM_S, "accept: UA");
	irlap_start_timer(st, T_WD, st->tx_end + st->wd_us);
	if (confirm)
		connect_confirm(st);
}

/* Whether an SNRM asks us for a connection: 0 yes; -EPROTO yes, but its
 * QoS list is malformed or leaves a parameter nothing valid (*why, if
 * why is not NULL, says which); -EINVAL not for us or no connect form. */
static int snrm_for_us(struct irlap *st, const struct irlap_frame *f,
		       struct irlap_connect_info *ci, const char **why)
{
	int rc;

	if (f->info_len == 0)
		return -EINVAL; /* Linux too ignores an SNRM without I-field in NDM */
	rc = irlap_snrm_parse(f, ci);
	if ((rc != 0 && rc != -EBADMSG) || ci->daddr != st->daddr)
		return -EINVAL;
	return check_qos(st, ci, rc, why);
}

/* The same for the UA that answers our SNRM. */
static int ua_for_us(struct irlap *st, const struct irlap_frame *f,
		     struct irlap_connect_info *ci, const char **why)
{
	int rc = f->caddr == st->caddr ? irlap_ua_parse(f, ci) : -EINVAL;

	if ((rc != 0 && rc != -EBADMSG) || ci->saddr != st->peer_daddr || ci->daddr != st->daddr)
		return -EINVAL;
	return check_qos(st, ci, rc, why);
}

/* An SNRM we cannot negotiate is refused like one the user rejects: DM
 * at 9600 on its connection address, back to NDM (the peer reports the
 * refusal; a Linux primary would otherwise retry N3 times for nothing). */
static void refuse_snrm(struct irlap *st, const struct irlap_connect_info *ci, const char *why)
{
	log_msg(st->log, LOG_LEVEL_WARNING, "SNRM from 0x%08x refused: %s", ci->saddr, why);
	st->primary = false; /* DM is a response */
	st->caddr = ci->ncaddr;
	send_u(st, IRLAP_C_DM, NULL, 0, st->cfg.ndm_xbofs, 0);
	to_ndm(st, "SNRM (QoS unusable): DM", false, IRLAP_REASON_REFUSED);
}

/* A UA we cannot negotiate: the secondary believes the link is up, at
 * the rate it computed (the same as ours when the rates have one in
 * common, else 9600 is the best guess), so we switch there and close it
 * with the ordinary DISC procedure; the user hears REFUSED at the end. */
static void refuse_ua(struct irlap *st, const struct qos_bits *peer, const char *why)
{
	log_msg(st->log, LOG_LEVEL_WARNING, "UA from 0x%08x refused: %s", st->peer_daddr, why);
	apply_negotiation(st, peer);
	set_line_speed(st, st->q.baud);
	send_u(st, IRLAP_C_DISC, NULL, 0, turn_padding(st), 0);
	st->retry = 0;
	st->close_reason = IRLAP_REASON_REFUSED;
	irlap_set_state(st, IRLAP_PCLOSE, "UA (QoS unusable): DISC");
	start_f_timer(st, st->f_us);
}

/* NDM: an SNRM for us is put to the user (CONN), or refused. */
static void ndm_snrm(struct irlap *st, const struct irlap_frame *f)
{
	struct irlap_connect_info ci;
	struct irlap_peer peer;
	struct irlap_event ev = { .type = IRLAP_EV_CONNECT_IND, .peer = &peer };
	const char *why = NULL;
	int rc = snrm_for_us(st, f, &ci, &why);

	if (rc == -EPROTO) {
		refuse_snrm(st, &ci, why);
		return;
	}
	if (rc) {
		st->stats.ignored++;
		return;
	}
	st->primary = false; /* a reject's DM is a response too */
	st->peer_daddr = ci.saddr;
	st->caddr = ci.ncaddr;
	st->pending_snrm = ci;
	irlap_set_state(st, IRLAP_CONN, "SNRM");
	irlap_start_timer(st, T_CONN, st->now + st->cfg.conn_timeout_us);
	peer = (struct irlap_peer){ .daddr = ci.saddr };
	ev.daddr = ci.saddr;
	irlap_deliver(st, &ev);
}

/*
 * A DISC for the link that ended last, heard in NDM or while we set up
 * the next: the peer did not take our UA (its F-timer ran out as the UA
 * was on its way) and repeats the DISC until it hears UA or DM, deaf to
 * anything else meanwhile (PCLOSE: N3 times, an F-timer apart; Linux's
 * 3 x 500 ms), so our SNRM would go unanswered for seconds.  DM says
 * there is no link: the peer is in NDM at once.  True if f was one.
 */
static bool answer_stale_disc(struct irlap *st, const struct irlap_frame *f)
{
	uint8_t dm[8];
	size_t n;

	if (f->type != IRLAP_F_DISC || !f->cmd || st->ended_caddr == IRLAP_BROADCAST ||
	    f->caddr != st->ended_caddr || st->now - st->ended_at > STALE_DISC_US)
		return false;
	n = irlap_build_u(dm, sizeof(dm), f->caddr, false, IRLAP_C_DM, true, NULL, 0);
	log_msg(st->log, LOG_LEVEL_INFO,
		"DISC again for the link that ended %llu ms ago (connection address 0x%02x: "
		"our UA was lost): DM", (unsigned long long)((st->now - st->ended_at) / 1000),
		f->caddr);
	irlap_send(st, dm, n, st->cfg.ndm_xbofs, 0);
	return true;
}

static void handle_ndm(struct irlap *st, const struct irlap_frame *f)
{
	struct irlap_event ev = { 0 };
	struct irlap_test_ndm t;

	switch (f->type) {
	case IRLAP_F_XID_CMD:
	case IRLAP_F_XID_RSP:
		irlap_discovery_input(st, f);
		return;
	case IRLAP_F_SNRM:
		ndm_snrm(st, f);
		return;
	case IRLAP_F_TEST:
		if (f->caddr != IRLAP_BROADCAST || irlap_test_ndm_parse(f, &t) != 0) {
			st->stats.ignored++;
			return;
		}
		if (f->cmd && (t.daddr == st->daddr || t.daddr == IRLAP_BROADCAST_DADDR)) {
			struct irlap_test_ndm r = { .saddr = st->daddr, .daddr = t.saddr,
						    .data = t.data, .len = t.len };
			size_t n = irlap_test_ndm_build(st->frame, sizeof(st->frame), false, &r);
			if (n)
				irlap_send(st, st->frame, n, st->cfg.ndm_xbofs, 0);
		} else if (!f->cmd && t.daddr == st->daddr) {
			ev.type = IRLAP_EV_TEST;
			ev.data = t.data;
			ev.len = t.len;
			ev.daddr = t.saddr;
			irlap_deliver(st, &ev);
		} else {
			st->stats.ignored++;
		}
		return;
	case IRLAP_F_DISC:
		if (!answer_stale_disc(st, f))
			st->stats.ignored++;
		return;
	case IRLAP_F_UI:
		if (f->caddr != IRLAP_BROADCAST) {
			st->stats.ignored++;
			return;
		}
		ev.type = IRLAP_EV_UI;
		ev.data = f->info;
		ev.len = f->info_len;
		irlap_deliver(st, &ev);
		return;
	default:
		st->stats.ignored++;
		return;
	}
}

static void handle_query(struct irlap *st, const struct irlap_frame *f)
{
	if (f->type == IRLAP_F_XID_RSP || f->type == IRLAP_F_XID_CMD) {
		irlap_discovery_input(st, f);
	} else {
		st->stats.ignored++;
		st->query_foreign = true; /* another link is talking */
	}
}

static void handle_reply(struct irlap *st, const struct irlap_frame *f)
{
	/* Anything but XID is handled as in NDM (a connect may follow a
	 * discovery at once). */
	if (f->type != IRLAP_F_XID_CMD && f->type != IRLAP_F_XID_RSP) {
		irlap_stop_timer(st);
		irlap_set_state(st, IRLAP_NDM, irlap_ftype_name(f->type));
		handle_ndm(st, f);
		return;
	}
	irlap_discovery_input(st, f);
}

static void handle_conn(struct irlap *st, const struct irlap_frame *f)
{
	/* Waiting for the user; a repeated SNRM changes nothing. */
	st->stats.ignored++;
}

/* Primary after UA: the first poll, at the new rate with half the
 * F-timer, so that a failed switch shows quickly. */
static void first_poll(struct irlap *st)
{
	send_s(st, IRLAP_S_RR, true, turn_padding(st));
	irlap_set_state(st, IRLAP_NRM_P, "RR(P)");
	start_f_timer(st, st->f_us / 2);
}

/* When the first poll after the UA ua may be handed over.  The peer
 * switches its line only once its UA has left its UART, and how soon
 * after that is up to its host: Linux waits until its driver reports
 * the UA sent, or, where the driver cannot tell (USB bridges), a fixed
 * 60 ms from handing the UA over (digest 2.8), which a 9600 UA of some
 * 47 line bytes (49 ms) nearly fills.  IrLAP itself only asks for the
 * peer's minimum turnaround (digest 4.5), but a poll whose frame arrives
 * while the peer still listens at 9600 is lost, and the half F-timer
 * (250 ms) passes before the next.  So the poll's BOF reaches the peer
 * peer_switch_us after the UA's first byte (its line time, escaped FCS
 * included, counted back from its arrival, with our NDM XBOF count:
 * Linux's 12), plus two byte
 * times for its UART to fall into step on the XBOFs; the turnaround
 * padding in front of the poll counts towards the wait. */
static uint64_t first_poll_at(const struct irlap *st, const struct irlap_frame *ua)
{
	uint8_t ac[2] = { (uint8_t)(ua->caddr << 1), ua->control };
	uint16_t fcs = (uint16_t)~fcs_update(fcs_update(FCS_INIT, ac, 2), ua->info, ua->info_len);
	uint8_t fcs_bytes[2] = { (uint8_t)fcs, (uint8_t)(fcs >> 8) };
	uint64_t ua_line = sir_line_time_us(NDM_BAUD, escaped_len(ac, 2) +
					    escaped_len(ua->info, ua->info_len) +
					    escaped_len(fcs_bytes, 2) + 2 + st->cfg.ndm_xbofs);
	uint64_t pad = sir_line_time_us(st->baud, turn_padding(st));
	uint64_t bof_at;

	if (st->baud == NDM_BAUD || !st->cfg.peer_switch_us)
		return st->now;
	bof_at = st->now - (ua_line < st->now ? ua_line : st->now) + st->cfg.peer_switch_us +
		 sir_line_time_us(st->baud, 2);
	return bof_at > st->now + pad ? bof_at - pad : st->now;
}

static void handle_setup(struct irlap *st, const struct irlap_frame *f)
{
	struct irlap_connect_info ci;
	const char *why = NULL;
	uint64_t at;
	int rc;

	switch (f->type) {
	case IRLAP_F_UA:
		rc = ua_for_us(st, f, &ci, &why);
		if (rc == -EPROTO) {
			refuse_ua(st, &ci.qos, why);
			return;
		}
		if (rc) {
			st->stats.ignored++;
			return;
		}
		apply_negotiation(st, &ci.qos);
		set_line_speed(st, st->q.baud);
		irlap_set_state(st, IRLAP_XMIT_P, "UA");
		at = first_poll_at(st, f);
		if (at > st->now) {
			log_msg(st->log, LOG_LEVEL_DEBUG, "first poll in %llu us: the peer switches "
				"to %u bps", (unsigned long long)(at - st->now), st->q.baud);
			irlap_start_timer(st, T_SWITCH, at);
		} else {
			first_poll(st);
		}
		connect_confirm(st);
		return;
	case IRLAP_F_SNRM:
		/* Both sent SNRM: the one with the larger address wins. */
		if (snrm_for_us(st, f, &ci, NULL) == 0 && ci.saddr > st->daddr) {
			irlap_stop_timer(st);
			accept_snrm(st, &ci, true);
		} else {
			st->stats.ignored++;
		}
		return;
	case IRLAP_F_DM:
		if (f->caddr == st->caddr || f->caddr == IRLAP_BROADCAST) {
			to_ndm(st, "DM", true, IRLAP_REASON_REFUSED);
			return;
		}
		break;
	case IRLAP_F_DISC:
		if (!answer_stale_disc(st, f))
			to_ndm(st, "DISC", true, IRLAP_REASON_PEER);
		return;
	default:
		break;
	}
	st->stats.ignored++;
}

static void handle_pclose(struct irlap *st, const struct irlap_frame *f)
{
	if (f->type == IRLAP_F_UA || f->type == IRLAP_F_DM)
		to_ndm(st, irlap_ftype_name(f->type), true, st->close_reason);
	else
		st->stats.ignored++;
}

static void handle_reset(struct irlap *st, const struct irlap_frame *f)
{
	struct irlap_event ev = { .type = IRLAP_EV_RESET };

	switch (f->type) {
	case IRLAP_F_UA:
		reset_sequence(st);
		st->stats.resets++;
		peer_answered(st);
		irlap_set_state(st, IRLAP_XMIT_P, "UA");
		irlap_deliver(st, &ev);
		primary_turn(st, true);
		return;
	case IRLAP_F_DM:
	case IRLAP_F_RD:
		to_ndm(st, irlap_ftype_name(f->type), true, IRLAP_REASON_PEER);
		return;
	default:
		st->stats.ignored++;
		return;
	}
}

/* ---- input dispatch ---------------------------------------------------- */

/* Whether a frame is addressed to this station's link at all. */
static bool for_our_link(const struct irlap *st, const struct irlap_frame *f)
{
	if (f->caddr != st->caddr)
		return false;
	/* Primary takes responses, secondary commands. */
	return f->cmd != st->primary;
}

static void run_kick(struct irlap *st)
{
	if (st->kick && !st->cb_depth) {
		st->kick = false;
		kick_primary(st);
	}
}

int irlap_input(struct irlap *st, const uint8_t *frame, size_t len, uint64_t now_us)
{
	struct irlap_frame f;

	st->now = now_us;
	st->rx_in_frame = false;
	if (irlap_frame_parse(frame, len, &f) != 0)
		return -EINVAL; /* too short: dropped silently */
	st->stats.frames_rx++;
	note_heard(st, now_us);
	if (log_enabled(st->log, LOG_LEVEL_DEBUG)) {
		char line[96];
		log_msg(st->log, LOG_LEVEL_DEBUG, "rx %s (%s)",
			irlap_frame_describe(&f, line, sizeof(line)), irlap_state_name(st->state));
	}
	if (st->media_busy_until < now_us + st->cfg.media_sense_us &&
	    (st->state == IRLAP_NDM || st->state == IRLAP_REPLY))
		st->media_busy_until = now_us + st->cfg.media_sense_us;

	switch (st->state) {
	case IRLAP_NDM: handle_ndm(st, &f); break;
	case IRLAP_QUERY: handle_query(st, &f); break;
	case IRLAP_REPLY: handle_reply(st, &f); break;
	case IRLAP_CONN: handle_conn(st, &f); break;
	case IRLAP_SETUP: handle_setup(st, &f); break;
	case IRLAP_XMIT_P:
	case IRLAP_XMIT_S:
		/* We hold the token: nobody should be talking. */
		st->stats.ignored++;
		break;
	case IRLAP_NRM_P:
	case IRLAP_PCLOSE:
	case IRLAP_RESET:
	case IRLAP_NRM_S:
	case IRLAP_SCLOSE:
		if (st->state == IRLAP_NRM_S && secondary_snrm_from_our_peer(st, &f)) {
			secondary_new_connection(st, &f);
			break;
		}
		if (!for_our_link(st, &f)) {
			st->stats.ignored++;
			break;
		}
		if (st->state == IRLAP_NRM_P)
			handle_nrm_p(st, &f);
		else if (st->state == IRLAP_PCLOSE)
			handle_pclose(st, &f);
		else if (st->state == IRLAP_RESET)
			handle_reset(st, &f);
		else if (st->state == IRLAP_NRM_S)
			handle_nrm_s(st, &f);
		else
			handle_sclose(st, &f);
		break;
	}
	run_kick(st);
	return 0;
}

void irlap_media_activity(struct irlap *st, uint64_t now_us, bool in_frame)
{
	st->now = now_us;
	st->rx_in_frame = in_frame;
	if (st->media_busy_until < now_us + st->cfg.media_sense_us)
		st->media_busy_until = now_us + st->cfg.media_sense_us;
	note_heard(st, now_us);
}

void irlap_frame_error(struct irlap *st, uint64_t now_us)
{
	irlap_media_activity(st, now_us, false);
	st->stats.frame_errors++;
	if (st->state == IRLAP_NRM_P && st->timer == T_FINAL) {
		st->damaged = true;
		arm_final_watch(st);
	}
}

uint32_t irlap_get_frame_size(const struct irlap *st)
{
	return st->frame_size ? st->frame_size : st->q.tx_data_size;
}

/* ---- timers ------------------------------------------------------------ */

static void start_pending(struct irlap *st);

static void on_final(struct irlap *st)
{
	switch (st->state) {
	case IRLAP_SETUP:
		if (++st->retry < st->cfg.n3) {
			uint32_t span = SNRM_BACKOFF_MAX_US - SNRM_BACKOFF_MIN_US;
			irlap_start_timer(st, T_BACKOFF, st->now + SNRM_BACKOFF_MIN_US +
								  irlap_random(st) % span);
		} else {
			to_ndm(st, "F-timer x N3", true, IRLAP_REASON_NOT_FOUND);
		}
		return;
	case IRLAP_NRM_P:
		if (st->now < st->f_deadline) {
			on_final_watch(st);
			return;
		}
		if (st->rx_in_frame && !st->f_extended) {
			st->f_extended = true;
			st->f_deadline = st->now + F_EXTENSION_US;
			irlap_start_timer(st, T_FINAL, st->f_deadline);
			return;
		}
		st->stats.f_timeouts++;
		st->retry++;
		if (st->retry >= st->n2) {
			link_lost(st, "F-timer x N2");
			return;
		}
		if (st->n1 && st->retry == st->n1 && !st->warned) {
			st->warned = true;
			status(st, IRLAP_STATUS_NO_ACTIVITY);
		}
		note_unanswered_poll(st);
		poll_again(st);
		return;
	case IRLAP_PCLOSE:
		if (++st->retry < st->cfg.n3) {
			send_u(st, IRLAP_C_DISC, NULL, 0, turn_padding(st), 0);
			start_f_timer(st, st->f_us);
		} else {
			to_ndm(st, "F-timer x N3", true, st->close_reason);
		}
		return;
	case IRLAP_RESET:
		if (++st->retry < st->cfg.n3) {
			send_u(st, IRLAP_C_SNRM, NULL, 0, turn_padding(st), 0);
			start_f_timer(st, st->f_us);
		} else {
			to_ndm(st, "F-timer x N3", true, IRLAP_REASON_RESET);
		}
		return;
	default:
		irlap_stop_timer(st);
		return;
	}
}

static void on_wd(struct irlap *st)
{
	if (st->state == IRLAP_SCLOSE) {
		to_ndm(st, "WD-timer", true, IRLAP_REASON_USER);
		return;
	}
	st->stats.wd_timeouts++;
	st->retry++;
	if (st->retry >= (st->n2 + 1) / 2) {
		link_lost(st, "WD-timer x N2/2");
		return;
	}
	if (st->n1 && st->retry == (st->n1 + 1) / 2 && !st->warned) {
		st->warned = true;
		status(st, IRLAP_STATUS_NO_ACTIVITY);
	}
	irlap_start_timer(st, T_WD, st->now + st->wd_us);
}

static void on_timer(struct irlap *st)
{
	enum irlap_timer t = st->timer;

	irlap_stop_timer(st);
	switch (t) {
	case T_SLOT:
		irlap_discovery_slot_timer(st);
		break;
	case T_QUERY:
		irlap_discovery_query_timer(st);
		break;
	case T_MEDIA:
		start_pending(st);
		break;
	case T_BACKOFF:
		if (st->state == IRLAP_SETUP)
			send_snrm(st);
		break;
	case T_FINAL:
		on_final(st);
		break;
	case T_POLL:
		if (st->state == IRLAP_XMIT_P)
			primary_turn(st, true);
		break;
	case T_WD:
		on_wd(st);
		break;
	case T_SWITCH:
		if (st->state == IRLAP_XMIT_P)
			first_poll(st);
		break;
	case T_CONN:
		if (st->state == IRLAP_CONN)
			to_ndm(st, "no answer from user", false, IRLAP_REASON_USER);
		break;
	case T_NONE:
		break;
	}
}

void irlap_tick(struct irlap *st, uint64_t now_us)
{
	st->now = now_us;
	/* Several timers may have come due if the host was late. */
	for (int guard = 0; guard < 64 && st->timer != T_NONE && st->timer_at <= now_us; guard++)
		on_timer(st);
	run_kick(st);
}

uint64_t irlap_deadline(const struct irlap *st)
{
	if (st->kick)
		return st->now;
	return st->timer == T_NONE ? UINT64_MAX : st->timer_at;
}

void irlap_port_lost(struct irlap *st, uint64_t now_us)
{
	st->now = now_us;
	switch (st->state) {
	case IRLAP_NDM:
	case IRLAP_QUERY:
	case IRLAP_REPLY:
		/* no link; a discovery under way ends by its own timers */
		return;
	default:
		log_msg(st->log, LOG_LEVEL_WARNING, "link to 0x%08x lost: the port is gone",
			st->peer_daddr);
		to_ndm(st, "port lost", true, IRLAP_REASON_NO_RESPONSE);
		run_kick(st);
		return;
	}
}

/* ---- requests ---------------------------------------------------------- */

/* Discovery and connect wait for a quiet medium (listen before talk). */
static void start_pending(struct irlap *st)
{
	struct irlap_request *r = &st->preq;

	if (!st->pending || st->state != IRLAP_NDM)
		return;
	if (st->media_busy_until > st->now) {
		if (st->now - st->pending_since >= st->cfg.media_wait_max_us) {
			struct irlap_event ev = { .reason = IRLAP_REASON_MEDIA_BUSY };

			st->pending = false;
			ev.type = r->type == IRLAP_REQ_DISCOVER ? IRLAP_EV_DISCOVERY : IRLAP_EV_DISCONNECT;
			ev.failed = true;
			irlap_deliver(st, &ev);
			return;
		}
		irlap_start_timer(st, T_MEDIA, st->media_busy_until);
		return;
	}
	st->pending = false;
	if (r->type == IRLAP_REQ_DISCOVER) {
		irlap_discovery_start(st, r->slots, r->new_addr);
		return;
	}
	st->primary = true;
	st->peer_daddr = r->daddr;
	do /* not the last link's: its DISC may still be about (answer_stale_disc) */
		st->caddr = (uint8_t)(1 + irlap_random(st) % 0x7e);
	while (st->caddr == st->ended_caddr);
	st->retry = 0;
	st->f_us = 500000;
	irlap_set_state(st, IRLAP_SETUP, "connect");
	send_snrm(st);
}

static int queue_copy(struct irlap_buf *b, const uint8_t *data, size_t len)
{
	b->data = malloc(len ? len : 1);
	if (!b->data)
		return -ENOMEM;
	if (len)
		memcpy(b->data, data, len);
	b->len = len;
	return 0;
}

static int request_data(struct irlap *st, const struct irlap_request *req)
{
	struct irlap_buf *b;
	int rc;

	if (!irlap_is_connected(st))
		return -ENOTCONN;
	if (req->len > st->q.tx_data_size || req->len == 0)
		return req->len ? -EMSGSIZE : -EINVAL;
	if (st->disc_pending)
		return -ENOTCONN;
	if (st->qlen == st->cfg.tx_queue_max) {
		st->queue_was_full = true;
		return -ENOBUFS;
	}
	b = &st->queue[(st->qhead + st->qlen) % st->cfg.tx_queue_max];
	rc = queue_copy(b, req->data, req->len);
	if (rc)
		return rc;
	st->qlen++;
	kick_primary(st);
	return 0;
}

static int request_ui(struct irlap *st, const struct irlap_request *req)
{
	if (st->state == IRLAP_NDM) {
		size_t n;

		if (req->len > 64 - IRLAP_HEADER_LEN || st->media_busy_until > st->now)
			return req->len > 64 - IRLAP_HEADER_LEN ? -EMSGSIZE : -EBUSY;
		n = irlap_build_u(st->frame, sizeof(st->frame), IRLAP_BROADCAST, true, IRLAP_C_UI,
				  true, req->data, req->len);
		irlap_send(st, st->frame, n, st->cfg.ndm_xbofs, 0);
		return 0;
	}
	if (!irlap_is_connected(st))
		return -EBUSY;
	if (req->len > st->q.tx_data_size)
		return -EMSGSIZE;
	if (st->nui == IRLAP_UI_QUEUE)
		return -ENOBUFS;
	if (queue_copy(&st->ui[st->nui], req->data, req->len))
		return -ENOMEM;
	st->nui++;
	kick_primary(st);
	return 0;
}

static int request_test(struct irlap *st, const struct irlap_request *req)
{
	if (st->state == IRLAP_NDM) {
		struct irlap_test_ndm t = { .saddr = st->daddr, .daddr = req->daddr,
					    .data = req->data, .len = req->len };
		size_t n = irlap_test_ndm_build(st->frame, sizeof(st->frame), true, &t);

		if (!n || req->len > 64)
			return -EMSGSIZE;
		irlap_send(st, st->frame, n, st->cfg.ndm_xbofs, 0);
		return 0;
	}
	if (!irlap_is_connected(st) || !st->primary)
		return -EBUSY;
	if (req->len > st->q.tx_data_size)
		return -EMSGSIZE;
	if (st->test_pending)
		return -ENOBUFS;
	if (queue_copy(&st->test, req->data, req->len))
		return -ENOMEM;
	st->test_pending = true;
	kick_primary(st);
	return 0;
}

static int request_accept(struct irlap *st, bool accept)
{
	if (st->state != IRLAP_CONN)
		return -EBUSY;
	irlap_stop_timer(st);
	if (accept) {
		accept_snrm(st, &st->pending_snrm, true);
		return 0;
	}
	send_u(st, IRLAP_C_DM, NULL, 0, st->cfg.ndm_xbofs, 0);
	to_ndm(st, "reject: DM", false, IRLAP_REASON_REFUSED);
	return 0;
}

static int request_disconnect(struct irlap *st)
{
	switch (st->state) {
	case IRLAP_CONN:
		return request_accept(st, false);
	case IRLAP_SETUP:
		to_ndm(st, "disconnect", true, IRLAP_REASON_USER);
		return 0;
	case IRLAP_XMIT_P:
	case IRLAP_NRM_P:
	case IRLAP_NRM_S:
	case IRLAP_XMIT_S:
	case IRLAP_RESET:
		st->disc_pending = true;
		kick_primary(st);
		return 0;
	case IRLAP_NDM:
	case IRLAP_REPLY:
	case IRLAP_QUERY:
		if (st->pending && st->preq.type == IRLAP_REQ_CONNECT) {
			st->pending = false;
			if (st->state == IRLAP_NDM) /* else the timer is the discovery's */
				irlap_stop_timer(st);
			return 0;
		}
		return -ENOTCONN;
	default:
		return -ENOTCONN;
	}
}

/* The layer above changed its mind (a connect came in while it was
 * closing an idle link): as long as the DISC/RD is not out, nothing has
 * told the peer and the link simply stays. */
static int request_cancel_disconnect(struct irlap *st)
{
	if (st->state == IRLAP_PCLOSE || st->state == IRLAP_SCLOSE)
		return -EALREADY;
	if (!irlap_is_connected(st))
		return -ENOTCONN;
	if (st->disc_pending) {
		st->disc_pending = false;
		irlap_set_state(st, st->state, "disconnect withdrawn");
	}
	return 0;
}

/* Discovery and connect requests are taken in NDM, and kept for NDM
 * while a discovery (ours or a peer's) runs. */
static bool may_queue(const struct irlap *st)
{
	return st->state == IRLAP_NDM || st->state == IRLAP_REPLY || st->state == IRLAP_QUERY;
}

int irlap_request(struct irlap *st, const struct irlap_request *req, uint64_t now_us)
{
	int rc = -EINVAL;

	if (!st->cb_depth)
		st->now = now_us;
	switch (req->type) {
	case IRLAP_REQ_DISCOVER:
	case IRLAP_REQ_CONNECT:
		/* Answering or running a discovery does not refuse: the request
		 * waits for NDM (irlap_set_state). */
		if (!may_queue(st) || st->pending)
			return -EBUSY;
		if (req->type == IRLAP_REQ_DISCOVER && st->state == IRLAP_QUERY) {
			/* Our own discovery runs: its result, delivered on its
			 * final XID, answers this request too.  Queued, it would
			 * run a second round and hold every connect made on the
			 * first one's result (-EBUSY). */
			log_msg(st->log, LOG_LEVEL_DEBUG, "QUERY --discovery request--> QUERY "
				"(served by the running discovery)");
			return 0;
		}
		if (req->type == IRLAP_REQ_CONNECT &&
		    (req->daddr == 0 || req->daddr == IRLAP_BROADCAST_DADDR))
			return -EINVAL;
		st->preq = *req;
		st->preq.data = NULL;
		st->pending = true;
		st->pending_since = st->now;
		if (st->state != IRLAP_NDM) {
			log_msg(st->log, LOG_LEVEL_DEBUG, "%s --%s request--> %s (waits for NDM)",
				irlap_state_name(st->state),
				req->type == IRLAP_REQ_CONNECT ? "connect" : "discovery",
				irlap_state_name(st->state));
			return 0;
		}
		if (st->cb_depth) {
			irlap_start_timer(st, T_MEDIA, st->now);
			return 0;
		}
		start_pending(st);
		return 0;
	case IRLAP_REQ_ACCEPT:
		rc = request_accept(st, true);
		break;
	case IRLAP_REQ_REJECT:
		rc = request_accept(st, false);
		break;
	case IRLAP_REQ_DATA:
		rc = request_data(st, req);
		break;
	case IRLAP_REQ_DATA_READY:
		kick_primary(st);
		rc = 0;
		break;
	case IRLAP_REQ_UI:
		rc = request_ui(st, req);
		break;
	case IRLAP_REQ_TEST:
		rc = request_test(st, req);
		break;
	case IRLAP_REQ_DISCONNECT:
		rc = request_disconnect(st);
		break;
	case IRLAP_REQ_CANCEL_DISCONNECT:
		rc = request_cancel_disconnect(st);
		break;
	case IRLAP_REQ_LOCAL_BUSY:
		if (!irlap_is_connected(st))
			return -ENOTCONN;
		st->local_busy = req->busy;
		if (!req->busy)
			kick_primary(st);
		rc = 0;
		break;
	}
	run_kick(st);
	return rc;
}

/* ---- life cycle and getters -------------------------------------------- */

struct irlap *irlap_new(const struct irlap_config *cfg, const struct irlap_ops *ops, void *ctx)
{
	struct irlap *st;

	if (!cfg || !ops || !ops->send_frame)
		return NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->cfg = *cfg;
	if (!st->cfg.tx_queue_max)
		st->cfg.tx_queue_max = 32;
	if (!st->cfg.slot_us)
		st->cfg.slot_us = 90000;
	if (!st->cfg.n3)
		st->cfg.n3 = 3;
	st->queue = calloc(st->cfg.tx_queue_max, sizeof(*st->queue));
	if (!st->queue) {
		free(st);
		return NULL;
	}
	st->ops = *ops;
	st->ctx = ctx;
	st->log = cfg->log;
	st->rng = cfg->seed;
	st->daddr = cfg->daddr;
	if (st->daddr == 0 || st->daddr == IRLAP_BROADCAST_DADDR)
		st->daddr = irlap_new_daddr(st);
	st->baud = NDM_BAUD;
	st->state = IRLAP_NDM;
	st->caddr = IRLAP_BROADCAST;
	st->ended_caddr = IRLAP_BROADCAST;
	st->srej = -1;
	st->f_us = 500000;
	st->wd_us = 1000000;
	st->p_us = 500000;
	st->n2 = 24;
	irlap_stop_timer(st);
	return st;
}

void irlap_free(struct irlap *st)
{
	if (!st)
		return;
	flush_queues(st);
	free(st->queue);
	free(st);
}

enum irlap_state irlap_get_state(const struct irlap *st) { return st->state; }
uint32_t irlap_get_daddr(const struct irlap *st) { return st->daddr; }
uint32_t irlap_get_baud(const struct irlap *st) { return st->baud; }

bool irlap_is_connected(const struct irlap *st)
{
	switch (st->state) {
	case IRLAP_XMIT_P:
	case IRLAP_NRM_P:
	case IRLAP_RESET:
	case IRLAP_NRM_S:
	case IRLAP_XMIT_S:
		return true;
	default:
		return false;
	}
}

const struct qos_result *irlap_get_qos(const struct irlap *st)
{
	return irlap_is_connected(st) ? &st->q : NULL;
}

const struct irlap_stats *irlap_get_stats(const struct irlap *st) { return &st->stats; }

size_t irlap_get_hints(const struct irlap *st, uint8_t out[2])
{
	out[0] = st->cfg.info.hints[0];
	out[1] = st->cfg.info.nhints > 1 ? st->cfg.info.hints[1] : 0;
	return st->cfg.info.nhints;
}

void irlap_set_hints(struct irlap *st, const uint8_t *hints, size_t n)
{
	if (n < 1 || n > 2)
		return;
	st->cfg.info.hints[0] = hints[0];
	st->cfg.info.hints[1] = n > 1 ? hints[1] : 0;
	st->cfg.info.nhints = (uint8_t)n;
	log_msg(st->log, LOG_LEVEL_DEBUG, "irlap: hints now %02x %02x (%zu bytes)", hints[0],
		n > 1 ? hints[1] : 0, n);
}

size_t irlap_pending(const struct irlap *st)
{
	return st->qlen + (size_t)((st->vs - st->va) & 7);
}
