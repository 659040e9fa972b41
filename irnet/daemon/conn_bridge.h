/*
 * conn_bridge.h: one TinyTP or plain IrLMP connection joined to one
 * local socket.
 *
 * irdad hands each connection to its client as a descriptor (one end of
 * a TCP loopback pair for a stream, of a socketpair otherwise,
 * docs/irdad-api.md); the bridge moves the bytes between the daemon's
 * end and the TinyTP connection, in both directions, with
 * back-pressure each way and nothing dropped:
 *   - socket -> TinyTP: the socket is read only while TinyTP's send
 *     queue has room (then TTP_EV_WRITABLE resumes it), so a writer
 *     blocks in its socket buffer when the peer is slow;
 *   - TinyTP -> socket: an SDU is taken from TinyTP only when the one
 *     before it is written, so a client that does not read stops the
 *     peer's credit.
 * In stream mode (SOCK_STREAM socket, TinyTP without SAR) a read takes
 * whatever the client wrote, up to one PDU, so small writes made within
 * one turn of the line go out together.  In SAR mode (SOCK_SEQPACKET) one
 * message is one SDU, both ways.
 *
 * Over a plain IrLMP connection (lmp_conn.h, conn_bridge_new_lmp; SAR
 * mode only) one message is one LM-PDU both ways, and the same rules
 * hold as far as IrLMP allows: the socket is read while lmp_conn's send
 * queue has room (it drains at the link's pace), and an LM-PDU is taken
 * from lmp_conn only when the one before is written; but IrLMP cannot
 * stop the peer, so while the client does not read, lmp_conn's receive
 * queue fills and then drops (counted in its stats).
 *
 * A message over tx_max (the peer's MaxSduSize, or one LM-PDU) is read
 * whole (MSG_TRUNC), dropped, logged with its size and the limit, and
 * counted (tx_oversize); the connection goes on.  A socketpair cannot
 * fail the client's write, so the limit is the client's to respect
 * (CONNECTION's TX_MAX).
 *
 * Ends: the client closing its end (EOF) flushes what it wrote, then
 * disconnects TinyTP; TinyTP disconnecting (the peer, the link) takes
 * what is still queued, writes it out as the client reads, then ends
 * the socket, so the client reads every byte and then the end:
 *   - a socketpair is shut down: end of file, then EPIPE on a write,
 *     whatever the reason;
 *   - a TCP loopback pair (cfg.tcp, loopback_pair.h) waits until the
 *     client's kernel has acknowledged every byte (a reset would discard
 *     the rest), then: the connection ended under us (IrLMP reason 0x02
 *     link lost, 0x03, 0x04 reset, 0x05, 0x07 IrLMP giving up): a reset
 *     alone: ECONNRESET once on the next read or write, then end of file
 *     and EPIPE; any other reason is the peer's disconnect (0x01 "user
 *     request", ...): a FIN, then a reset: end of file, then EPIPE on a
 *     write.
 * Either way the owner hears `closed` once, and frees the bridge.
 *
 * Does not own: the TinyTP connection's creation (the owner made it and
 * routes its events here with conn_bridge_ttp_event), the stack's
 * deadline (the owner's `sync` runs after the bridge called into TinyTP).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_CONN_BRIDGE_H
#define IRNET_CONN_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eloop.h"
#include "irlmp.h"
#include "lmp_conn.h"
#include "log.h"
#include "ttp.h"

struct conn_bridge;

enum conn_bridge_mode {
	CONN_BRIDGE_STREAM,   /* byte stream, boundaries not kept */
	CONN_BRIDGE_SAR,      /* one socket message per SDU */
};

struct conn_bridge_stats {
	uint64_t bytes_to_peer, bytes_from_peer;
	uint64_t sdus_to_peer, sdus_from_peer;
	uint64_t stalls_peer;    /* times reading the socket stopped for TinyTP */
	uint64_t stalls_client;  /* times TinyTP waited for the client to read */
	uint64_t tx_oversize;    /* client messages over tx_max, dropped */
	uint64_t delivery_waits; /* TCP: the end waited for the client's kernel to
				  * acknowledge what it held (0 or 1) */
	uint64_t rx_dropped;     /* the peer's data the layer below dropped (lmp_conn:
				  * receive queue full; TinyTP: oversize, no credit) */
};

struct conn_bridge_ops {
	/* After the bridge called into TinyTP (the owner re-arms the stack). */
	void (*sync)(void *ctx);
	/* The connection is over (once).  by_peer: TinyTP ended it (reason
	 * says why), else the client closed or the socket failed.  The owner
	 * frees the bridge, not from inside this call's caller's TinyTP event
	 * (use a deferred free: conn_bridge_free is safe from a timer). */
	void (*closed)(void *ctx, struct conn_bridge *b, bool by_peer, enum irlmp_reason reason);
};

struct conn_bridge_config {
	enum conn_bridge_mode mode;
	size_t tx_max;           /* largest SDU (or PDU in stream mode) we send */
	size_t rx_max;           /* largest SDU we take (our MaxSduSize or one PDU) */
	/* how long data of a closed end waits for the other to take it: the
	 * client to read what the peer sent, or the peer to take what the
	 * client wrote */
	uint64_t drain_timeout_us;
	/* fd is one end of a loopback_pair (TCP, stream mode): the bridge ends
	 * it with a reset, so that a link loss reads as ECONNRESET (see Ends) */
	bool tcp;
	const struct logger *log;
};

/* Takes fd (non-blocking is set here; the bridge closes it) and t (the
 * bridge disconnects it when the client closes).  NULL with errno. */
struct conn_bridge *conn_bridge_new(struct eloop *loop, struct ttp *t, int fd,
				    const struct conn_bridge_config *cfg,
				    const struct conn_bridge_ops *ops, void *ctx);
/* The same over a plain IrLMP connection (cfg->mode must be SAR: one
 * message per LM-PDU); the bridge disconnects lc when the client closes. */
struct conn_bridge *conn_bridge_new_lmp(struct eloop *loop, struct lmp_conn *lc, int fd,
					const struct conn_bridge_config *cfg,
					const struct conn_bridge_ops *ops, void *ctx);
/* The owner's TinyTP callback hands each event of this connection here. */
void conn_bridge_ttp_event(struct conn_bridge *b, const struct ttp_event *ev);
/* The owner's lmp_conn callback likewise. */
void conn_bridge_lmp_event(struct conn_bridge *b, const struct lmp_event *ev);
/* Stops everything: disconnects TinyTP if still up, closes the socket. */
void conn_bridge_free(struct conn_bridge *b);

/* The connection under the bridge (NULL once it is gone, or of the other kind). */
struct ttp *conn_bridge_ttp(const struct conn_bridge *b);
struct lmp_conn *conn_bridge_lmp(const struct conn_bridge *b);
/* (refreshes rx_dropped from the layer below) */
const struct conn_bridge_stats *conn_bridge_get_stats(struct conn_bridge *b);

#endif
