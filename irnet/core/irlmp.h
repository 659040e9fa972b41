/*
 * irlmp.h: IrLMP (LM-MUX), sans-I/O: many LSAP connections over one
 * IrLAP link.
 *
 * Owns: the LM-PDU format (data, connect, connect confirm, disconnect,
 * access mode), binding of local LSAP selectors (fixed or allocated
 * from 0x11 upward), LSAP connection set-up and tear-down with reason
 * codes, demultiplexing by (local selector, peer selector), opening the
 * IrLAP link on the first LSAP connect and closing it after an idle
 * time once no LSAP connection is left, the LSAP connect watchdog.
 *
 * Does not own: the IrLAP station (the host joins it: every IrLAP event
 * goes to irlmp_lap_event(), IrLAP's pull() calls irlmp_pull(), and
 * IrLMP issues IrLAP requests through ops.lap_request), discovery (the
 * host finds the device address), what the LSAP data means (IAS,
 * TinyTP), the clock.
 *
 * Flow: everything IrLMP sends (control PDUs first, then LSAP data round
 * robin) leaves through irlmp_pull(), so it is ordered; a user with data
 * calls irlmp_data_ready() and is asked through its pull() for at most
 * max bytes of payload.  Events and pull() callbacks may call
 * irlmp_data_ready(), irlmp_disconnect(), irlmp_accept() but pull() must
 * not call anything that sends.  A connection handle is invalid after
 * irlmp_disconnect() returns or after its DISCONNECT event returns.
 *
 * Idle close: 2 s after the last LSAP connection the link is closed
 * (IrLAP DISCONNECT).  A connect, ours or the peer's, that comes before
 * IrLAP's DISC/RD is out withdraws it (IRLAP_REQ_CANCEL_DISCONNECT) and
 * the link stays; later, ours waits for the link to go down and reopens
 * it.  Our connect still unanswered when the peer closes the link is
 * sent again on a reopened link (once, within its deadline).
 *
 * Time: the host calls irlmp_tick() whenever irlmp_deadline() has passed
 * (check after every call into IrLMP).  Calls that take no time
 * (disconnect) arm the idle timer with deadline 0: the next tick starts
 * it at the tick's time.
 *
 * Unbound LSAP: a connect request for a selector nobody listens on gets
 * a disconnect PDU with reason 0x08 (no available LM-MUX client), the
 * spec's intent (digest 10.3, 13.10); a Linux peer stays silent, which
 * our own outgoing connects tolerate with the 5 s watchdog.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IRLMP_H
#define IRNET_IRLMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "irlap.h"
#include "log.h"

/* ---- LM-PDUs ----------------------------------------------------------- */

#define IRLMP_OP_CONNECT       0x01
#define IRLMP_OP_CONNECT_CONF  0x81
#define IRLMP_OP_DISCONNECT    0x02
#define IRLMP_OP_ACCESS        0x03
#define IRLMP_OP_ACCESS_CONF   0x83

#define IRLMP_LSAP_IAS     0x00
#define IRLMP_LSAP_MAX     0x6f
#define IRLMP_LSAP_ANY     0xff   /* bind: allocate one */
#define IRLMP_HEADER       2
#define IRLMP_MAX_CONNECT_DATA 53 /* user data in connect/disconnect PDUs */

enum irlmp_reason {
	IRLMP_REASON_USER = 0x01,
	IRLMP_REASON_LAP_DISCONNECT = 0x02,
	IRLMP_REASON_LAP_CONNECT_FAILED = 0x03,
	IRLMP_REASON_LAP_RESET = 0x04,
	IRLMP_REASON_LM_INITIATED = 0x05,
	IRLMP_REASON_DATA_ON_DISCONNECTED = 0x06,
	IRLMP_REASON_NO_RESPONSE = 0x07,
	IRLMP_REASON_NO_CLIENT = 0x08,
	IRLMP_REASON_HALF_OPEN = 0x09,
	IRLMP_REASON_BAD_SOURCE = 0x0a,
	IRLMP_REASON_UNSPECIFIED = 0xff,
};

struct irlmp_pdu {
	bool control;
	uint8_t dlsap, slsap;    /* as the sender wrote them */
	uint8_t opcode, param;   /* control only */
	const uint8_t *data;     /* user data (views the input) */
	size_t len;
};

/* Parses one LM-PDU (the IrLAP I- or UI-field).  0, or -EINVAL (too
 * short, reserved bit set, unknown opcode, access mode without mode
 * byte, control data on an access-mode PDU). */
int irlmp_pdu_parse(const uint8_t *buf, size_t len, struct irlmp_pdu *out);
/* Builds one; returns the length or 0 if it does not fit cap. */
size_t irlmp_pdu_build(uint8_t *buf, size_t cap, const struct irlmp_pdu *pdu);

/* ---- the multiplexer --------------------------------------------------- */

struct irlmp;
struct irlmp_conn;

enum irlmp_ev_type {
	IRLMP_EV_CONNECT_IND,  /* on a listener: conn is new; answer irlmp_accept or irlmp_disconnect */
	IRLMP_EV_CONNECT_CONF, /* our connect was accepted: data = peer's user data */
	IRLMP_EV_DATA,         /* data/len */
	IRLMP_EV_DISCONNECT,   /* reason, data/len; conn is gone after return */
};

struct irlmp_event {
	enum irlmp_ev_type type;
	struct irlmp_conn *conn;
	const uint8_t *data;
	size_t len;
	enum irlmp_reason reason;
};

struct irlmp_user_ops {
	void (*event)(void *ctx, const struct irlmp_event *ev);
	/* Payload for the next LM data PDU, at most max bytes; 0: nothing. */
	size_t (*pull)(void *ctx, struct irlmp_conn *conn, uint8_t *buf, size_t max);
	/* Optional: the call irlmp_defer() asked for, from irlmp_tick(). */
	void (*deferred)(void *ctx, struct irlmp_conn *conn);
	/* Optional: the smallest payload the next pull can be (a user that
	 * cannot cut its data, e.g. TinyTP without SAR), 0 if it can take
	 * any size or has nothing.  When it is its turn and max is smaller,
	 * IrLMP answers IrLAP's pull with nothing once, keeping the turn for
	 * it: IrLAP then asks again with the whole room (its smaller,
	 * error-adapted size is a preference).  Without this, a user that
	 * can cut (SAR) would take every pull and starve the others. */
	size_t (*next_len)(void *ctx, struct irlmp_conn *conn);
};

struct irlmp_ops {
	/* An IrLAP request (the host passes it on with the current time). */
	int (*lap_request)(void *ctx, const struct irlap_request *req);
};

struct irlmp_config {
	uint64_t idle_timeout_us;    /* keep the link after the last LSAP closes (2 s) */
	uint64_t connect_timeout_us; /* LSAP connect watchdog (5 s) */
	const struct logger *log;
};
void irlmp_config_defaults(struct irlmp_config *cfg);

enum irlmp_lap_state { IRLMP_LAP_STANDBY, IRLMP_LAP_U_CONNECT, IRLMP_LAP_ACTIVE };
enum irlmp_conn_state {
	IRLMP_CONN_FREE,
	IRLMP_CONN_LISTEN,        /* a bound selector taking connects */
	IRLMP_CONN_SETUP_PEND,    /* our connect waits for the link */
	IRLMP_CONN_SETUP,         /* connect PDU sent, waiting for the confirm */
	IRLMP_CONN_CONNECT,       /* peer's connect waits for our user */
	IRLMP_CONN_DATA_TRANSFER_READY,
};
const char *irlmp_conn_state_name(enum irlmp_conn_state s);
const char *irlmp_lap_state_name(enum irlmp_lap_state s);

struct irlmp *irlmp_new(const struct irlmp_config *cfg, const struct irlmp_ops *ops, void *ctx);
/* Open connections get their DISCONNECT event (reason 0x05) first;
 * listeners must have been closed by their owners. */
void irlmp_free(struct irlmp *lm);

/* Host glue. */
void irlmp_lap_event(struct irlmp *lm, const struct irlap_event *ev, uint64_t now_us);
size_t irlmp_pull(struct irlmp *lm, uint8_t *buf, size_t max);
void irlmp_tick(struct irlmp *lm, uint64_t now_us);
uint64_t irlmp_deadline(const struct irlmp *lm);

/* Listens on sel (IRLMP_LSAP_ANY: allocate).  NULL if taken or full. */
struct irlmp_conn *irlmp_listen(struct irlmp *lm, uint8_t sel, const struct irlmp_user_ops *ops,
				void *ctx);
/* Opens an LSAP connection from a fresh local selector to dlsap at
 * device daddr (the link is opened if needed).  NULL if no selector or
 * slot is free, the link goes to another device, or data is too long. */
struct irlmp_conn *irlmp_connect(struct irlmp *lm, uint32_t daddr, uint8_t dlsap,
				 const uint8_t *data, size_t len,
				 const struct irlmp_user_ops *ops, void *ctx, uint64_t now_us);
/* Accepts a CONNECT_IND; ops/ctx take over the connection. */
int irlmp_accept(struct irlmp_conn *c, const uint8_t *data, size_t len,
		 const struct irlmp_user_ops *ops, void *ctx);
/* Closes a connection (a disconnect PDU follows the data already
 * pulled) or a listener.  The handle is invalid afterwards. */
int irlmp_disconnect(struct irlmp_conn *c, enum irlmp_reason reason, const uint8_t *data,
		     size_t len);
void irlmp_data_ready(struct irlmp_conn *c);
/* Asks for one call of the user's deferred op from the next irlmp_tick(),
 * which irlmp_deadline() makes due at once.  For what a user learns
 * inside pull() (IrLAP is sending: nothing may be asked of it there) and
 * must tell its own user later, e.g. TinyTP's "writable". */
void irlmp_defer(struct irlmp_conn *c);
/* A connected LSAP's own watchdog (0: off), counted from the time of the
 * last call into IrLMP that carried one (e.g. the event being handled):
 * when it expires the connection ends with reason 0x07 both ways. */
int irlmp_set_watchdog(struct irlmp_conn *c, uint64_t timeout_us);

uint8_t irlmp_conn_lsel(const struct irlmp_conn *c);
uint8_t irlmp_conn_rsel(const struct irlmp_conn *c);
enum irlmp_conn_state irlmp_conn_state(const struct irlmp_conn *c);
struct irlmp *irlmp_conn_owner(const struct irlmp_conn *c);
/* Largest LSAP payload in one PDU (negotiated IrLAP data size - 2). */
size_t irlmp_max_data(const struct irlmp *lm);
/* A new idle timeout (a daemon's reload); counts from the next time the
 * link falls idle. */
void irlmp_set_idle_timeout(struct irlmp *lm, uint64_t timeout_us);
enum irlmp_lap_state irlmp_get_lap_state(const struct irlmp *lm);
/* "user request", "no available LM-MUX client", ... (digest 5.2). */
const char *irlmp_reason_name(enum irlmp_reason r);
/* LSAP connections and listeners in use. */
size_t irlmp_count(const struct irlmp *lm, bool listeners);
/* Control PDUs (connects, disconnects, ...) queued for IrLAP's next
 * pull: a host that wants a disconnect to leave before it closes the
 * link waits for 0 (IrLAP pulls nothing once its DISCONNECT is asked). */
size_t irlmp_ctrl_pending(const struct irlmp *lm);

struct irlmp_stats {
	uint64_t pdus_rx, pdus_tx, bad_pdus, refused, unknown_conn;
};
const struct irlmp_stats *irlmp_get_stats(const struct irlmp *lm);

#endif
