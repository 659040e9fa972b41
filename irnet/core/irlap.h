/*
 * irlap.h: one IrLAP station, primary or secondary, sans-I/O.
 *
 * Owns: discovery (XID slots, both as initiator and responder),
 * connection set-up (SNRM/UA with QoS negotiation and the speed switch),
 * NRM data transfer (windows 1..7, the P/F token, RR/RNR/REJ/SREJ,
 * retransmission, local and remote busy, N1/N2 link supervision), reset,
 * disconnect (DISC/RD/UA/DM), FRMR, UI and TEST; the timers and retry
 * counts of IrLAP; the line-capacity budget of each turn.
 *
 * Does not own: bytes on the line (the host SIR-encodes the frames it is
 * handed, with the XBOF count the txinfo asks for), the clock (every
 * entry point takes the current time in microseconds), or what the data
 * means (the layer above: IrLMP, or a test).
 *
 * The host calls irlap_input() with every unwrapped frame (FCS checked
 * and removed), irlap_tick() when irlap_deadline() has passed, and
 * irlap_request() for what the layer above wants.  Callbacks in ops must
 * not call back into the station except irlap_request() from deliver()
 * (requests made there take effect when the outer call returns, as far
 * as they need to transmit).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IRLAP_H
#define IRNET_IRLAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "irlap_frame.h"
#include "log.h"
#include "qos.h"

struct irlap;

enum irlap_state {
	IRLAP_NDM,
	IRLAP_QUERY,
	IRLAP_REPLY,
	IRLAP_CONN,
	IRLAP_SETUP,
	IRLAP_XMIT_P,
	IRLAP_NRM_P,
	IRLAP_PCLOSE,
	IRLAP_RESET,
	IRLAP_NRM_S,
	IRLAP_XMIT_S,
	IRLAP_SCLOSE,
};
const char *irlap_state_name(enum irlap_state s);

struct irlap_config {
	uint32_t daddr;          /* own device address; 0: drawn from the PRNG */
	uint64_t seed;           /* PRNG seed: slots, addresses, back-off */
	struct irlap_discovery_info info; /* hints, charset, nickname we announce */
	/* What we announce in SNRM/UA (irlap_config_defaults fills it from
	 * the fields below; a host may then edit the bits directly). */
	struct qos_bits qos;
	struct qos_limits limits;
	uint32_t slot_us;        /* discovery slot timer */
	uint32_t media_sense_us; /* listen before talk in NDM */
	uint32_t media_wait_max_us; /* give up a request after this much busy medium */
	uint32_t ndm_xbofs;      /* 0xFF before every NDM frame */
	unsigned n3;             /* SNRM / DISC / reset retries */
	uint32_t fast_poll_step_us; /* idle poll interval growth */
	uint32_t conn_timeout_us;   /* how long a connect indication waits for the user */
	/* Primary after UA: the time the peer may take, from handing its UA
	 * to its UART, to listen at the new rate; the first poll reaches it
	 * no sooner (and no sooner than its minimum turnaround).  0: the
	 * minimum turnaround only. */
	uint32_t peer_switch_us;
	uint32_t min_fill;       /* smallest I-frame made to fill the rest of a turn */
	unsigned tx_queue_max;   /* queued DATA requests before -ENOBUFS */
	/* Data transfer under bit errors (docs/irnet-irlap.md, "errors"):
	 * size pulled I-frames to the losses seen, within the negotiated
	 * data size; */
	bool adapt_frame_size;
	/* keep I-frames that arrive after a lost one and ask for the lost
	 * one alone with SREJ; */
	bool send_srej;
	/* primary: when the peer's answer is known lost (nothing heard
	 * after our poll, or a damaged frame then a quiet line), poll again
	 * after this much quiet instead of waiting for the F-timer.  0 (the
	 * default): wait for the F-timer.  Only for a host that sees bytes
	 * when they arrive on the line, such as the simulator
	 * (IRLAP_REPOLL_QUIET_US): where reads lag the line (irwire reads
	 * 50 ms ahead, USB-serial latency timers, a relay that forwards in
	 * chunks) a late answer looks like a lost one, and a poll sent into
	 * it costs an F-timer. */
	uint32_t repoll_quiet_us;
	const struct logger *log;
};

/* The early poll's quiet time for hosts that see each byte when it
 * arrives (irlap_config.repoll_quiet_us). */
#define IRLAP_REPOLL_QUIET_US 10000u

/* Fills a config for a station that handles 9600 up to max_baud, needs
 * min_tat_us of silence before it can receive, and takes everything
 * else at the IrLAP defaults (6..16-slot discovery at 90 ms, 2048-byte
 * frames, window 7, no extra BOFs, 3/8/12 s link disconnect). */
void irlap_config_defaults(struct irlap_config *cfg, uint32_t max_baud,
			   uint32_t min_tat_us);

struct irlap_txinfo {
	uint32_t baud;        /* send this frame at this rate */
	uint32_t xbofs;       /* 0xFF bytes before the BOF: additional BOFs + turnaround padding */
	uint32_t speed_after; /* nonzero: switch to this rate once the frame has left the UART */
};

/* A device seen by discovery. */
struct irlap_peer {
	uint32_t daddr;
	uint8_t slot;
	struct irlap_discovery_info info;
};
#define IRLAP_MAX_PEERS 16

enum irlap_reason {
	IRLAP_REASON_USER = 0,        /* we asked for it */
	IRLAP_REASON_PEER = 1,        /* the peer disconnected (DISC, RD, DM) */
	IRLAP_REASON_NO_RESPONSE = 2, /* link lost: N2 expired */
	IRLAP_REASON_RESET = 3,       /* a reset could not be completed */
	IRLAP_REASON_NOT_FOUND = 4,   /* connect: no answer after N3 SNRMs */
	IRLAP_REASON_MEDIA_BUSY = 5,  /* the medium never went quiet */
	IRLAP_REASON_REFUSED = 6,     /* connect: the peer answered DM */
};
const char *irlap_reason_name(enum irlap_reason r);

enum irlap_status {
	IRLAP_STATUS_NO_ACTIVITY,  /* N1 reached: link quality warning */
	IRLAP_STATUS_LINK_OK,      /* the peer answers again after a warning */
	IRLAP_STATUS_REMOTE_BUSY,  /* peer sent RNR */
	IRLAP_STATUS_REMOTE_READY, /* peer sent RR/I after RNR */
};

enum irlap_ev_type {
	IRLAP_EV_DISCOVERY,     /* our discovery ended: peers/npeers, or reason on failure */
	IRLAP_EV_DISCOVERED_BY, /* passive discovery: peer = the initiator */
	IRLAP_EV_ADDRESS_CHANGED, /* a discovery asked for new addresses: daddr */
	IRLAP_EV_CONNECT_IND,   /* SNRM for us: answer with ACCEPT or REJECT */
	IRLAP_EV_CONNECT_CONF,  /* link up: qos, primary */
	IRLAP_EV_DATA,          /* reliable data: data/len */
	IRLAP_EV_UI,            /* unreliable data: data/len */
	IRLAP_EV_TEST,          /* TEST response: data/len */
	IRLAP_EV_DISCONNECT,    /* link down: reason */
	IRLAP_EV_STATUS,        /* status */
	IRLAP_EV_RESET,         /* the link was reset; unacked data may be lost */
	IRLAP_EV_TX_READY,      /* the DATA queue has room again */
};

struct irlap_event {
	enum irlap_ev_type type;
	const struct irlap_peer *peers;  /* DISCOVERY */
	size_t npeers;
	const struct irlap_peer *peer;   /* DISCOVERED_BY, CONNECT_IND */
	const uint8_t *data;             /* DATA, UI, TEST: valid during the call */
	size_t len;
	uint32_t daddr;                  /* ADDRESS_CHANGED, CONNECT_*: the peer */
	enum irlap_reason reason;        /* DISCONNECT, failed DISCOVERY */
	bool failed;                     /* DISCOVERY */
	enum irlap_status status;        /* STATUS */
	const struct qos_result *qos;    /* CONNECT_CONF */
	bool primary;                    /* CONNECT_CONF */
};

struct irlap_ops {
	void (*send_frame)(void *ctx, const uint8_t *frame, size_t len,
			   const struct irlap_txinfo *tx);
	/* Switch the line now (the primary after UA or DISC/UA, any side
	 * after link loss). */
	void (*set_speed)(void *ctx, uint32_t baud);
	void (*deliver)(void *ctx, const struct irlap_event *ev);
	/* Optional: data for the next I-frame when the DATA queue is empty,
	 * at most max bytes (sized to fill the turn).  Returns the length,
	 * 0 for nothing.  Must not call into the station. */
	size_t (*pull)(void *ctx, uint8_t *buf, size_t max);
};

enum irlap_req_type {
	IRLAP_REQ_DISCOVER,   /* slots (1, 6, 8, 16), new_addr */
	IRLAP_REQ_CONNECT,    /* daddr */
	IRLAP_REQ_ACCEPT,     /* answer to CONNECT_IND */
	IRLAP_REQ_REJECT,
	IRLAP_REQ_DATA,       /* data/len: queued, sent in order, acknowledged */
	IRLAP_REQ_DATA_READY, /* the pull() source has data again */
	IRLAP_REQ_UI,         /* data/len: unreliable */
	IRLAP_REQ_TEST,       /* data/len, daddr in NDM */
	IRLAP_REQ_DISCONNECT, /* after queued data is acknowledged */
	IRLAP_REQ_LOCAL_BUSY, /* busy: true = we cannot take data (RNR) */
	/* Withdraws a DISCONNECT whose DISC (primary) or RD (secondary) has
	 * not gone out yet: the link stays.  0 (also when none was pending
	 * on a connected link), -EALREADY when the DISC/RD is out (the link
	 * goes down as asked), -ENOTCONN without a link. */
	IRLAP_REQ_CANCEL_DISCONNECT,
};

struct irlap_request {
	enum irlap_req_type type;
	uint8_t slots;
	bool new_addr;
	uint32_t daddr;
	const uint8_t *data;
	size_t len;
	bool busy;
};

struct irlap_stats {
	uint64_t frames_tx, frames_rx;
	uint64_t iframes_tx, iframes_retx, iframes_rx, iframes_dropped;
	uint64_t payload_tx, payload_rx;  /* I-frame bytes, first sends / in-order deliveries */
	uint64_t turns;                   /* times we passed the token */
	uint64_t max_turn_bytes;          /* largest turn, in line bytes (incl. XBOFs) */
	uint64_t f_timeouts, wd_timeouts;
	uint64_t rnr_tx, rnr_rx, frmr_tx, resets;
	uint64_t ignored;                 /* frames not for us or out of place */
	uint64_t frame_errors;            /* damaged frames the host reported */
	uint64_t srej_tx, srej_rx;
	uint64_t iframes_held;            /* kept after a lost frame (delivered later) */
	uint64_t early_polls;             /* polls sent before the F-timer: answer known lost */
	uint64_t size_changes;            /* the pulled I-frame size was changed */
};

struct irlap *irlap_new(const struct irlap_config *cfg, const struct irlap_ops *ops,
			void *ctx);
void irlap_free(struct irlap *st);

/* A received frame (A, C, I-field; FCS checked and removed).  Frames
 * shorter than 2 bytes are dropped silently.  Returns 0, or -EINVAL for
 * a frame it could not use (it is ignored; the station stays as it was
 * or reacts as IrLAP says, e.g. with FRMR). */
int irlap_input(struct irlap *st, const uint8_t *frame, size_t len, uint64_t now_us);
/* The host saw line activity (bytes of a frame arriving): feeds the
 * media-busy sense and the F-timer's one extension while a frame is
 * still arriving. */
void irlap_media_activity(struct irlap *st, uint64_t now_us, bool in_frame);
/* The host's decoder dropped a damaged frame (bad FCS, aborted, too
 * long, too short) or heard noise between frames: counts as activity,
 * and tells a primary waiting for the peer's final frame that it may
 * have been lost (see repoll_quiet_us). */
void irlap_frame_error(struct irlap *st, uint64_t now_us);
/* The I-field size new pulled I-frames get now (adapted to losses). */
uint32_t irlap_get_frame_size(const struct irlap *st);
/* The hint bytes we announce in discovery (our XID frames): read, and
 * replaced from now on (n is 1 or 2; the caller sets hints[0]'s extension
 * bit when there are 2).  Returns how many were written to out. */
size_t irlap_get_hints(const struct irlap *st, uint8_t out[2]);
void irlap_set_hints(struct irlap *st, const uint8_t *hints, size_t n);
/* Returns 0 or a negative errno: -EBUSY (not in a state that takes this
 * request), -ENOTCONN, -EMSGSIZE (longer than the negotiated data size),
 * -ENOBUFS (DATA queue full), -EINVAL. */
int irlap_request(struct irlap *st, const struct irlap_request *req, uint64_t now_us);
void irlap_tick(struct irlap *st, uint64_t now_us);
/* The host lost its port (a USB adapter unplugged): a link, or a
 * connection being set up, ends at once as a link loss (DISCONNECT,
 * IRLAP_REASON_NO_RESPONSE) with the queues flushed, instead of after
 * the link-disconnect threshold; in NDM, QUERY and REPLY nothing
 * happens (a discovery ends by its timers, finding nobody). */
void irlap_port_lost(struct irlap *st, uint64_t now_us);
/* The next time irlap_tick() has work; UINT64_MAX if none. */
uint64_t irlap_deadline(const struct irlap *st);

enum irlap_state irlap_get_state(const struct irlap *st);
uint32_t irlap_get_daddr(const struct irlap *st);
uint32_t irlap_get_baud(const struct irlap *st);
bool irlap_is_connected(const struct irlap *st);
/* Negotiated values; NULL unless connected. */
const struct qos_result *irlap_get_qos(const struct irlap *st);
const struct irlap_stats *irlap_get_stats(const struct irlap *st);
/* Frames accepted but not yet acknowledged by the peer, plus queued. */
size_t irlap_pending(const struct irlap *st);

#endif
