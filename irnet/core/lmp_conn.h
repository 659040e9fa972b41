/*
 * lmp_conn.h: a plain IrLMP connection (no TinyTP) with bounded queues,
 * sans-I/O: what IrLPT, IrCOMM 3-wire raw and Linux's SOCK_DGRAM
 * AF_IRDA sockets run on.
 *
 * Owns: listening on an LSAP and accepting every connect (no connect
 * data either way), connecting, one LM data PDU per message both ways
 * (boundaries kept), a bounded send queue that IrLAP drains through
 * IrLMP's pull, a bounded receive queue, and what happens when one is
 * full.
 *
 * Does not own: the LSAP multiplexer (irlmp.h), IAS (the user registers
 * IrDA:IrLMP:LsapSel itself), the clock.
 *
 * IrLMP has no flow control of its own:
 *  - Send: lmp_send() takes at most tx_queue_max messages (-ENOBUFS
 *    beyond); the queue drains as fast as IrLAP's window lets frames go
 *    out, so a sender is held back by the link, not by the peer's user.
 *    After -ENOBUFS one LMP_EV_WRITABLE follows once the queue is down to
 *    half, from the next irlmp_tick() (the queue drains inside IrLAP's
 *    pull, where nothing may call back: irlmp_defer, as TinyTP does).
 *    A message is at most lmp_max_send() bytes (IrLAP's negotiated data
 *    size less the 2-byte LM header); larger ones get -EMSGSIZE, as
 *    Linux's IrLMP sockets refuse them.
 *  - Receive: a PDU that arrives while rx_queue_max are waiting for the
 *    reader is dropped and counted (stats.rx_dropped), as Linux's IrLPT
 *    and SOCK_DGRAM did: nothing tells the peer to stop.  Empty data
 *    PDUs are ignored.
 *
 * Events: LMP_EV_CONNECTED (our connect was confirmed; on a listener, a
 * connection was accepted: the event carries the new handle),
 * LMP_EV_READABLE (lmp_recv() has a message), LMP_EV_WRITABLE,
 * LMP_EV_DISCONNECTED (reason; the handle is freed after the event
 * returns).  Events may call any lmp_* function on their connection.  A
 * handle is invalid after lmp_disconnect() returns.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_LMP_CONN_H
#define IRNET_LMP_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "irlmp.h"
#include "log.h"

struct lmp_conn;
struct lmp_listener;

struct lmp_config {
	unsigned tx_queue_max;   /* messages lmp_send() holds (8) */
	unsigned rx_queue_max;   /* messages kept for the reader, then drops (16) */
	const struct logger *log;
};
void lmp_config_defaults(struct lmp_config *cfg);

enum lmp_ev_type {
	LMP_EV_CONNECTED,
	LMP_EV_READABLE,
	LMP_EV_WRITABLE,
	LMP_EV_DISCONNECTED,
};

struct lmp_event {
	enum lmp_ev_type type;
	struct lmp_conn *conn;
	enum irlmp_reason reason;   /* DISCONNECTED */
};

typedef void (*lmp_event_fn)(void *ctx, const struct lmp_event *ev);

/* Listens on sel (IRLMP_LSAP_ANY: allocated).  Connections are accepted
 * and reported to fn with LMP_EV_CONNECTED.  NULL: bad config, selector
 * taken, no memory. */
struct lmp_listener *lmp_listen(struct irlmp *lm, uint8_t sel, const struct lmp_config *cfg,
				lmp_event_fn fn, void *ctx);
uint8_t lmp_listener_lsap(const struct lmp_listener *l);
/* Stops listening; connections it accepted go on. */
void lmp_listener_free(struct lmp_listener *l);
/* Sends the events of c to fn/ctx from now on (e.g. a connection a
 * listener accepted, inside its LMP_EV_CONNECTED). */
void lmp_set_handler(struct lmp_conn *c, lmp_event_fn fn, void *ctx);

struct lmp_conn *lmp_connect(struct irlmp *lm, uint32_t daddr, uint8_t dlsap,
			     const struct lmp_config *cfg, lmp_event_fn fn, void *ctx,
			     uint64_t now_us);
/* Queues one message (copied).  -EMSGSIZE (empty or over
 * lmp_max_send()), -ENOBUFS (queue full), -ENOTCONN, -ENOMEM. */
int lmp_send(struct lmp_conn *c, const uint8_t *msg, size_t len);
/* Takes the oldest message: its length, 0 if none, -EMSGSIZE if cap is
 * too small (it stays). */
long lmp_recv(struct lmp_conn *c, uint8_t *buf, size_t cap);
/* Closes (reason 0x01); queued messages are dropped (wait for
 * lmp_tx_pending() == 0 to flush). */
void lmp_disconnect(struct lmp_conn *c);

bool lmp_is_connected(const struct lmp_conn *c);
/* Largest message: the negotiated IrLAP data size less IrLMP's header. */
size_t lmp_max_send(const struct lmp_conn *c);
size_t lmp_tx_pending(const struct lmp_conn *c);
size_t lmp_rx_pending(const struct lmp_conn *c);
struct irlmp_conn *lmp_irlmp_conn(const struct lmp_conn *c);

struct lmp_stats {
	uint64_t msgs_tx, msgs_rx, bytes_tx, bytes_rx;
	uint64_t rx_dropped;     /* arrived with the receive queue full */
	uint64_t tx_full;        /* lmp_send() refused with -ENOBUFS */
};
const struct lmp_stats *lmp_get_stats(const struct lmp_conn *c);

#endif
