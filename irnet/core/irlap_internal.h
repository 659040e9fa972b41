/*
 * irlap_internal.h: the station's private state, shared by irlap.c
 * (connection, data transfer, timers) and irlap_discovery.c (XID).
 * Not for use outside libirnet's IrLAP files.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IRLAP_INTERNAL_H
#define IRNET_IRLAP_INTERNAL_H

#include "irlap.h"

enum irlap_timer {
	T_NONE,
	T_SLOT,    /* discovery slot (initiator) */
	T_QUERY,   /* discovery give-up (responder) */
	T_MEDIA,   /* a request waits for the medium to go quiet */
	T_BACKOFF, /* SNRM retry back-off */
	T_FINAL,   /* F-timer: waiting for F=1 (also SNRM, DISC, reset) */
	T_POLL,    /* P-timer: primary holds the token and has nothing to say */
	T_WD,      /* secondary watchdog: waiting for P=1 */
	T_CONN,    /* connect indication waiting for the user */
	T_SWITCH,  /* primary after UA: the peer is still switching its line */
};

struct irlap_buf {
	uint8_t *data;
	size_t len;
};

struct irlap_slot {
	uint16_t len;
	uint8_t data[IRLAP_MAX_DATA];
};

#define IRLAP_UI_QUEUE 4

/*
 * Frame-size adaptation (irlap_size.c): for each size class (64, 128,
 * ... bytes up to the negotiated data size) a count of the I-frames
 * whose fate we learnt and of those lost, both decayed as new fates
 * come in, so old conditions fade.
 */
#define IRLAP_SIZE_CLASSES 6
struct irlap_sizer {
	uint32_t size[IRLAP_SIZE_CLASSES]; /* I-field bytes of each class */
	unsigned nclass;
	double trials[IRLAP_SIZE_CLASSES];
	double lost[IRLAP_SIZE_CLASSES];
	double bytes[IRLAP_SIZE_CLASSES];  /* line bytes of those trials */
	unsigned cur;                      /* the class in use */
	unsigned win;                      /* new I-frames per turn at most */
};

/* What the choice of a size weighs, from the negotiated link. */
struct irlap_size_costs {
	uint32_t window;      /* I-frames per turn */
	uint32_t capacity;    /* line bytes per turn */
	uint32_t frame_bytes; /* per I-frame besides the I-field: BOF, A, C, FCS, EOF, BOFs */
	uint32_t turn_bytes;  /* per turn: padding both ways, the peer's answer */
	uint32_t lost_final_bytes; /* line time a lost final frame costs (the wait) */
	bool selective;       /* the peer asks for lost frames alone (SREJ) */
};

void irlap_sizer_reset(struct irlap_sizer *z, uint32_t max_size);
/* One I-frame of len I-field bytes arrived (lost = false) or not. */
void irlap_sizer_observe(struct irlap_sizer *z, uint32_t len, uint32_t line_bytes, bool lost);
/* Picks the class (and, with a go-back-N peer, the number of frames
 * per turn: z->win) with the best expected payload per line byte;
 * returns its size. */
uint32_t irlap_sizer_choose(struct irlap_sizer *z, const struct irlap_size_costs *c);
/* Whether a turn should end with a separate RR(P/F) rather than the P/F
 * bit on its last I-frame, of len I-field bytes: when, at the loss rate
 * seen, that frame is likely enough lost that the wait for a lost final
 * costs more than the extra frame. */
bool irlap_sizer_separate_final(const struct irlap_sizer *z, const struct irlap_size_costs *c,
				uint32_t len);

struct irlap {
	struct irlap_config cfg;
	struct irlap_ops ops;
	void *ctx;
	const struct logger *log;
	enum irlap_state state;
	uint64_t now;
	uint64_t rng;
	uint32_t daddr;
	uint32_t baud;            /* the rate our next frame goes out at */
	uint64_t tx_end;          /* when what we handed over will have left */
	enum irlap_timer timer;
	uint64_t timer_at;
	uint64_t media_busy_until;
	bool rx_in_frame;
	unsigned cb_depth;        /* inside a deliver() callback */
	bool kick;                /* a request asked to transmit from a callback */

	/* A discovery or connect request waiting for a quiet medium. */
	bool pending;
	struct irlap_request preq;
	uint64_t pending_since;

	/* Discovery, initiator side. */
	uint8_t slots, slot;
	bool new_addr_round;
	bool conflict;
	bool query_foreign;       /* heard something other than answers to us */
	struct irlap_peer peers[IRLAP_MAX_PEERS];
	size_t npeers;
	/* Discovery, responder side. */
	uint32_t query_saddr;
	uint8_t reply_slot;
	uint8_t last_slot;
	bool replied;

	/* Connection. */
	bool primary;
	uint32_t peer_daddr;
	uint8_t caddr;
	struct irlap_connect_info pending_snrm; /* in CONN: the SNRM to answer */
	struct qos_result q;
	unsigned retry;
	unsigned n1, n2;
	bool warned;
	bool f_extended;
	uint32_t f_us, wd_us, p_us;
	unsigned idle_polls;
	bool peer_sent_data;
	enum irlap_reason close_reason;

	uint32_t frame_size;      /* current size for new I-frames (adapts to losses) */
	uint32_t frame_window;    /* and the most new I-frames outstanding */
	struct irlap_sizer sizer;
	uint8_t last_turn[8];     /* Ns of the I-frames of our last turn, in order */
	unsigned last_turn_n;     /* (their fate is learnt from the peer's answer) */
	bool peer_srej;           /* the peer has sent SREJ: it keeps frames after a loss */
	uint8_t vs, vr, va;
	bool remote_busy, local_busy;
	int srej;                 /* Nr of an SREJ to honour, or -1 */
	unsigned srej_unanswered; /* our SREJ polls in a row that got no answer */
	bool srej_off;            /* the peer does not seem to answer SREJ */
	bool srej_probe;          /* ... unless our RR poll goes unanswered too */

	/* Receiving: I-frames that arrived after a lost one, by Ns. */
	struct irlap_slot rxwin[8];
	uint8_t rx_held;          /* bit per Ns held in rxwin */
	bool rx_anchored;         /* the Ns of this burst are known to lie in */
	uint8_t rx_anchor;        /* [rx_anchor, rx_anchor + rx_span) */
	uint8_t rx_span;
	uint64_t rx_heard_at;     /* last line activity or frame heard */
	/* The turns (P or F) we sent that the peer may still act on, oldest
	 * first, by the Nr they carried, counted without wrapping (rx_count
	 * when sent); each the peer's P/F frame retires one.  The peer's
	 * I-frames come from a window that starts no lower than the oldest
	 * Nr: with the frames it has delivered, which Ns can be an old copy
	 * (see may_hold). */
	uint64_t rx_count;        /* I-frames delivered: Vr without the wrap */
	struct irlap_turn_nr {
		uint64_t nr;
		unsigned count;   /* turns with this Nr */
	} turns_out[8];
	unsigned turns_head, turns_len;
	uint64_t turns_done_nr;   /* the Nr of the last turn retired */

	/* Primary waiting for the final frame (early poll). */
	uint64_t f_deadline;      /* the F-timer proper */
	uint64_t poll_end;        /* when our poll left */
	bool heard_since_poll;
	bool damaged;             /* a damaged frame since the last good one */
	bool early_polled;        /* once per answer */
	bool final_was_srej;      /* our last poll was an SREJ */
	uint32_t answer_delay_us; /* the peer's answer delay (decaying max) */
	bool disc_pending;
	bool frmr_pending;
	struct irlap_frmr frmr;
	bool reset_wanted;
	struct irlap_buf test;    /* a TEST request waiting for the token */
	bool test_pending;
	struct irlap_buf *queue;  /* DATA requests, a ring */
	size_t qhead, qlen;
	bool queue_was_full;
	struct irlap_buf ui[IRLAP_UI_QUEUE];
	size_t nui;

	struct irlap_slot win[8]; /* sent I-frames by Ns, until acknowledged */
	uint8_t frame[IRLAP_MAX_DATA + 64];
	struct irlap_stats stats;
	/* The link now up (for the one line that logs its end): when it
	 * came up and the payload counters then. */
	struct {
		bool up;
		uint64_t since_us, payload_tx0, payload_rx0;
	} link;
	/* The last link the peer ended with DISC (we answered UA): its
	 * connection address and when, so that a DISC the peer repeats for
	 * it (our UA was lost) is answered, and our next link does not take
	 * the same address. */
	uint8_t ended_caddr;      /* IRLAP_BROADCAST: none */
	uint64_t ended_at;
};

/* irlap.c */
void irlap_set_state(struct irlap *st, enum irlap_state to, const char *event);
void irlap_start_timer(struct irlap *st, enum irlap_timer t, uint64_t at);
void irlap_stop_timer(struct irlap *st);
void irlap_send(struct irlap *st, const uint8_t *frame, size_t len, uint32_t xbofs,
		uint32_t speed_after);
void irlap_deliver(struct irlap *st, const struct irlap_event *ev);
uint32_t irlap_random(struct irlap *st);
uint32_t irlap_new_daddr(struct irlap *st);

/* irlap_discovery.c */
void irlap_discovery_start(struct irlap *st, uint8_t slots, bool new_addr);
void irlap_discovery_slot_timer(struct irlap *st);
void irlap_discovery_query_timer(struct irlap *st);
/* An XID frame in NDM, QUERY or REPLY. */
void irlap_discovery_input(struct irlap *st, const struct irlap_frame *f);

#endif
