/*
 * ttp.h: TinyTP (IrTTP) on an IrLMP connection, sans-I/O.
 *
 * Owns: the TinyTP connect PDU (initial credit, the MaxSduSize
 * parameter) and data PDU header (M bit, delta credit); credit flow
 * control both ways; segmentation and reassembly; the bounded queues;
 * the choice between a byte stream and SAR at connect time.
 *
 * Does not own: the LSAP connection (irlmp.h), IAS lookups (ias.h).
 *
 * Stream or SAR (struct ttp_config.mode): the user of a connection
 * chooses, as an AF_IRDA socket does with SOCK_STREAM or SOCK_SEQPACKET.
 *
 *  - TTP_MODE_STREAM: no MaxSduSize in our Connect or Confirm (the
 *    connect PDU is the credit byte alone, 0x10 for 16).  No SAR: every
 *    PDU is an SDU of its own, so ttp_send() takes at most one PDU
 *    (ttp_max_send(): the negotiated IrLAP data size - 2 - 1) and never
 *    sets M, and ttp_recv() hands up each PDU as it came, ignoring M
 *    (Linux).  A byte-stream user (SOCK_STREAM) cuts its writes to
 *    ttp_max_send() and joins what it reads; IrCOMM frames each PDU.
 *  - TTP_MODE_SAR: MaxSduSize = max_sdu (1..0xFFFFFFFF; 0xFFFFFFFF goes
 *    out as FF FF, Linux's "unbounded") in our Connect or Confirm; SDUs
 *    are kept whole both ways (segmented with M as needed).
 *
 * What each side does with the other's choice (digest 6.2; Linux 6.1
 * af_irda and ircomm_ttp; docs/irnet-lmp.md):
 *
 *  caller sends         service STREAM            service SAR
 *  no MaxSduSize (or 0) Confirm without: stream   Confirm without: stream
 *  MaxSduSize N > 0     refused: LM disconnect    Confirm with ours: SAR
 *                       reason 0x01 (user)
 *
 * The answer never carries MaxSduSize when the Connect had none (a
 * Linux stream socket drops such a Confirm), so a SAR service reached
 * by a stream caller runs that connection as a stream (ttp_mode() says
 * so from TTP_EV_CONNECTED on).  Linux's stream listener ignores a SAR
 * Connect and lets the caller time out; we refuse at once.  A stream
 * caller whose Confirm carries MaxSduSize (not Linux, which never sends
 * one to it) keeps its stream: the peer's figure only says what it could
 * reassemble, and we never set M.  A SAR caller whose Confirm has no
 * MaxSduSize stays SAR for what it receives; what it sends must fit one
 * PDU.  IrCOMM runs as a stream (digest 7.3), IrNET with SAR (digest 8,
 * the reference capture: `01 02 FF FF` both ways).
 *
 * Memory is bounded both ways: ttp_send() takes at most tx_queue_max
 * SDUs (-ENOBUFS beyond, whatever the peer's credit), and the peer can
 * only send as many PDUs as we granted credit for; credit is given back
 * only as the application takes SDUs with ttp_recv(), so a slow reader is
 * back-pressure.  A reassembled SDU longer than our max_sdu is
 * discarded (counted), its credit returned.  An SDU longer than the
 * peer's MaxSduSize (or, without SAR at the peer, one PDU) is refused by
 * ttp_send with -EMSGSIZE.
 *
 * A sender whose ttp_send() got -ENOBUFS gets one TTP_EV_WRITABLE when
 * the queue has drained to half (or less) of tx_queue_max.  The queue
 * drains inside IrLAP's pull, where nothing may call back into the
 * stack, so the event comes from the next irlmp_tick(), which
 * irlmp_deadline() makes due at once: a host that follows
 * irlmp_deadline() after every call into the stack delivers it in its
 * next loop turn.  ttp_tx_pending() says how full the queue is.
 *
 * ttp_disconnect() discards SDUs not yet handed to IrLAP: wait for
 * ttp_tx_pending() == 0 first to flush.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_TTP_H
#define IRNET_TTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "irlmp.h"

#define TTP_PI_MAX_SDU 0x01
#define TTP_MAX_CREDIT 127
#define TTP_SAR_UNBOUND UINT32_MAX  /* MaxSduSize "unbounded" (sent as FF FF) */

/* ---- wire format ----------------------------------------------------- */

struct ttp_connect_pdu {
	uint8_t credit;
	bool has_max_sdu;
	uint32_t max_sdu;
	const uint8_t *data;   /* user data after the parameters */
	size_t len;
};

int ttp_connect_parse(const uint8_t *buf, size_t len, struct ttp_connect_pdu *out);
/* has_max_sdu: MaxSduSize sent with PL 2 if it fits 16 bits (values
 * above go out as FF FF, as Linux does), else PL 4. */
size_t ttp_connect_build(uint8_t *buf, size_t cap, const struct ttp_connect_pdu *p);

/* ---- connections --------------------------------------------------- */

struct ttp;
struct ttp_listener;

/* See the top of this file. */
enum ttp_mode {
	TTP_MODE_STREAM, /* no MaxSduSize sent: a byte stream (SOCK_STREAM, IrCOMM) */
	TTP_MODE_SAR,    /* MaxSduSize sent: SDUs kept whole (SOCK_SEQPACKET, IrNET) */
};

struct ttp_config {
	uint8_t rx_credit;     /* credit we grant at connect and keep the peer at (16) */
	enum ttp_mode mode;    /* TTP_MODE_SAR */
	uint32_t max_sdu;      /* SAR: largest SDU we take, sent as MaxSduSize (4096);
				* 0 is invalid with SAR; unused in stream mode */
	unsigned tx_queue_max; /* SDUs accepted by ttp_send before -ENOBUFS (8) */
	const struct logger *log;
};
void ttp_config_defaults(struct ttp_config *cfg);

enum ttp_ev_type {
	TTP_EV_CONNECTED,    /* both sides know each other's parameters */
	TTP_EV_READABLE,     /* ttp_recv() has an SDU */
	TTP_EV_WRITABLE,     /* after -ENOBUFS: ttp_send() has room again */
	TTP_EV_DISCONNECTED, /* reason; the handle is freed after return */
};

struct ttp_event {
	enum ttp_ev_type type;
	struct ttp *ttp;
	enum irlmp_reason reason;
};

typedef void (*ttp_event_fn)(void *ctx, const struct ttp_event *ev);

/* Listens on LSAP sel (IRLMP_LSAP_ANY: allocated; see ttp_listener_lsap).
 * Incoming connections are accepted (a SAR Connect to a stream
 * listener is refused, see above); events for each go to fn.  NULL for
 * a bad config (credit 0 or over 127, SAR with max_sdu 0, no queue). */
struct ttp_listener *ttp_listen(struct irlmp *lm, uint8_t sel, const struct ttp_config *cfg,
				ttp_event_fn fn, void *ctx);
uint8_t ttp_listener_lsap(const struct ttp_listener *l);
/* SAR Connects this stream listener refused. */
unsigned long ttp_listener_refused(const struct ttp_listener *l);
/* Stops listening; connections it accepted go on (their events still go
 * to the listener's fn/ctx unless ttp_set_handler moved them). */
void ttp_listener_free(struct ttp_listener *l);
/* Sends the events of t to fn/ctx from now on: a connection a listener
 * accepted (inside its TTP_EV_CONNECTED) whose owner may outlive the
 * listener's context. */
void ttp_set_handler(struct ttp *t, ttp_event_fn fn, void *ctx);

struct ttp *ttp_connect(struct irlmp *lm, uint32_t daddr, uint8_t dlsap,
			const struct ttp_config *cfg, ttp_event_fn fn, void *ctx, uint64_t now_us);
/* Queues one SDU (copied).  -EMSGSIZE (empty, or over ttp_max_send()),
 * -ENOBUFS, -ENOTCONN. */
int ttp_send(struct ttp *t, const uint8_t *sdu, size_t len);
/* The largest SDU ttp_send() takes: with SAR at both ends the peer's
 * MaxSduSize, else one PDU (less if the peer's MaxSduSize is smaller). */
size_t ttp_max_send(const struct ttp *t);
/* Takes the oldest received SDU (a PDU, without SAR): its length, 0 if
 * none, -EMSGSIZE if cap is too small (the SDU stays). */
long ttp_recv(struct ttp *t, uint8_t *buf, size_t cap);
void ttp_disconnect(struct ttp *t);

bool ttp_is_connected(const struct ttp *t);
/* The connection's mode: SAR only if we sent MaxSduSize. */
enum ttp_mode ttp_mode(const struct ttp *t);
size_t ttp_tx_pending(const struct ttp *t);  /* SDUs not fully handed to IrLMP */
uint32_t ttp_peer_max_sdu(const struct ttp *t);  /* the peer's MaxSduSize, 0: none */
unsigned ttp_send_credit(const struct ttp *t); /* credit the peer gave us */
struct irlmp_conn *ttp_lmp_conn(const struct ttp *t);

struct ttp_stats {
	uint64_t sdus_tx, sdus_rx, pdus_tx, pdus_rx, dataless_tx, stalls;
	uint64_t oversize_dropped, no_credit_dropped;
	size_t rx_bytes_max;   /* most bytes held for the reader at once */
};
const struct ttp_stats *ttp_get_stats(const struct ttp *t);

#endif
