/*
 * ircomm.h: IrCOMM cooked (3-wire and 9-wire) over TinyTP and 3-wire raw
 * over plain IrLMP, sans-I/O.
 *
 * Owns: the client's connection procedure (digest 7.3: IAS query of
 * IrDA:IrCOMM/Parameters, choice of the service type, IAS query of
 * IrDA:TinyTP:LsapSel, TinyTP connect with SAR off, initial parameters
 * in the first data PDU); the server (IAS object with Parameters and
 * LsapSel, TinyTP listener, one connection at a time, initial
 * parameters once the client's service type is known); on a connection
 * both ways: user data in cooked SDUs, our settings (data rate, data
 * format, flow control, XON/XOFF, ENQ/ACK) and line settings (DTE with
 * delta bits), the peer's settings and lines (DTE seen through the
 * null-modem emulation of digest 7.5, or DCE as sent), Poll answered
 * with our DTE.
 *
 * Does not own: framing and parameter formats (ircomm_param.h), TinyTP
 * (ttp.h), plain IrLMP connections (lmp_conn.h), IAS (ias.h), discovery
 * (the host finds daddr), a tty.  Centronics is out of scope.
 *
 * 3-wire raw (IRCOMM_SVC_3WIRE_RAW, digest 7.1): IrLMP without TinyTP,
 * no control channel, every byte user data, no credits.  A server that
 * offers it listens on a second LSAP, published as IrDA:IrLMP:LsapSel
 * in the same IrDA:IrCOMM object (Parameters lists 0x01); a raw
 * connection is open as soon as IrLMP confirms it (no service type is
 * sent).  A client takes raw when it asked for raw and the peer offers
 * it, and also, whatever it asked for, when the peer offers raw alone
 * or has an IrDA:IrCOMM object without Parameters (an IrLPT-style raw
 * server): then it asks for IrDA:IrLMP:LsapSel and connects with IrLMP.
 * On a raw connection set_params, set_lines and poll return -EOPNOTSUPP,
 * and the peer's settings and lines are never reported.  Flow control:
 * ircomm_write() takes what lmp_conn's send queue holds, which drains at
 * IrLAP's pace (so a writer is still held back by the link); a reader
 * that falls behind makes lmp_conn drop LM-PDUs (IrLMP cannot stop the
 * peer; lmp_get_stats counts them), since raw has no credits.
 *
 * Time: IAS and TinyTP need the current time to start, and the IAS
 * answer that moves the client on carries none; so a client that has
 * its answer makes ircomm_deadline() due at once and does the next step
 * from ircomm_tick(now).  A host calls ircomm_tick() when
 * ircomm_deadline() has passed, then re-reads irlmp_deadline().  The
 * server needs no ticks.
 *
 * Receive: SDUs are taken from TinyTP one at a time; control items are
 * acted on as the SDU is taken, its user data waits in the connection
 * until ircomm_read() has taken all of it before the next SDU is taken.
 * So a slow reader holds TinyTP credit back (back-pressure), and
 * settings stay in order with the data around them.  Malformed control
 * items are logged and dropped, the SDU's data still delivered; an SDU
 * whose clen runs past its end is dropped whole.
 *
 * Send: ircomm_write() takes what fits TinyTP's queue, in SDUs of one
 * PDU each (SAR is off), and returns how much it took; after a short
 * write an IRCOMM_EV_WRITABLE follows once there is room.  Settings
 * changes are merged into pending control items that ride in front of
 * the next data (or alone, at once if the queue has room).
 *
 * Events and handles: events may call any ircomm function on their
 * connection.  A connection handle is invalid after ircomm_disconnect()
 * returns (no event for it) or after its IRCOMM_EV_DISCONNECTED returns.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IRCOMM_H
#define IRNET_IRCOMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ias.h"
#include "ircomm_param.h"
#include "irlmp.h"
#include "lmp_conn.h"
#include "log.h"
#include "ttp.h"

#define IRCOMM_CLASS "IrDA:IrCOMM"
#define IRCOMM_ATTR_PARAMETERS "Parameters"
#define IRCOMM_ATTR_LSAP "IrDA:TinyTP:LsapSel"
#define IRCOMM_ATTR_LMP_LSAP "IrDA:IrLMP:LsapSel"   /* 3-wire raw */
/* The largest SDU we take (IrLAP's largest data size). */
#define IRCOMM_SDU_MAX 2048

struct ircomm;
struct ircomm_server;

enum ircomm_state {
	IRCOMM_QUERY_PARAMS,  /* client: IAS Parameters query */
	IRCOMM_QUERY_LSAP,    /* client: IAS LsapSel query */
	IRCOMM_CONNECTING,    /* client: TinyTP connect sent */
	IRCOMM_WAIT_SERVICE,  /* server: connected, waiting for the service type */
	IRCOMM_OPEN,
	IRCOMM_CLOSED,
};
const char *ircomm_state_name(enum ircomm_state s);

struct ircomm_config {
	/* Client: the service types we accept (3-wire raw is also taken
	 * when the peer offers nothing else); server: those we offer.
	 * IRCOMM_SVC_3WIRE_RAW, IRCOMM_SVC_3WIRE, IRCOMM_SVC_9WIRE. */
	uint8_t service_types;
	/* Our initial settings, sent once the service type is known. */
	uint32_t data_rate;      /* 9600 */
	uint8_t data_format;     /* 0x03: 8N1 */
	uint8_t flow_control;    /* 0x00 */
	uint8_t dte;             /* 9-wire: DTR|RTS (0x0C) */
	uint8_t port_type;       /* server's IAS port type: 0x01 (serial) */
	struct ttp_config ttp;   /* mode is forced to TTP_MODE_STREAM (no SAR) */
	const struct logger *log;
};
void ircomm_config_defaults(struct ircomm_config *cfg);

enum ircomm_ev_type {
	IRCOMM_EV_CONNECTED,    /* service type agreed; ircomm_write() works */
	IRCOMM_EV_READABLE,     /* ircomm_read() has data */
	IRCOMM_EV_WRITABLE,     /* after a short ircomm_write(): room again */
	IRCOMM_EV_PARAMS,       /* params: the peer's settings items of one SDU */
	IRCOMM_EV_LINES,        /* lines: the peer's lines as DCE bits, with deltas */
	IRCOMM_EV_DISCONNECTED, /* err or reason; the handle is freed after return */
};

struct ircomm_event {
	enum ircomm_ev_type type;
	struct ircomm *c;
	const struct ircomm_params *params;
	uint8_t lines;
	/* DISCONNECTED: err < 0 if the client procedure failed before
	 * TinyTP (-ENOENT: no IrCOMM service or attribute, -EPROTONOSUPPORT:
	 * no common service type, -EPROTO: not a serial port, -EINVAL:
	 * malformed answer, or the IAS client's -ETIMEDOUT/-ECONNRESET),
	 * or a service type the server does not offer (-EPROTONOSUPPORT);
	 * else 0 and reason is the LM disconnect reason. */
	int err;
	enum irlmp_reason reason;
};

typedef void (*ircomm_event_fn)(void *ctx, const struct ircomm_event *ev);

/* ---- client -------------------------------------------------------- */

/* Starts the procedure towards device daddr.  NULL on bad configuration
 * or if IAS cannot start. */
struct ircomm *ircomm_connect(struct irlmp *lm, uint32_t daddr, const struct ircomm_config *cfg,
			      ircomm_event_fn fn, void *ctx, uint64_t now_us);
uint64_t ircomm_deadline(const struct ircomm *c); /* UINT64_MAX: none */
void ircomm_tick(struct ircomm *c, uint64_t now_us);

/* ---- server -------------------------------------------------------- */

/* Listens on a fresh LSAP and publishes it in db.  While a client is
 * connected the IAS object is withdrawn (Linux does so, so that a
 * second client looks elsewhere) and a second connect is refused; it is
 * published again when the connection ends.  Connection events go to
 * fn.  NULL on bad configuration or no resources. */
struct ircomm_server *ircomm_server_new(struct irlmp *lm, struct ias_db *db,
					const struct ircomm_config *cfg, ircomm_event_fn fn,
					void *ctx);
/* Closes the connection (no event), withdraws the IAS object. */
void ircomm_server_free(struct ircomm_server *s);
uint8_t ircomm_server_lsap(const struct ircomm_server *s);
/* The IAS object id, -1 while withdrawn. */
int ircomm_server_ias_object(const struct ircomm_server *s);
struct ircomm *ircomm_server_conn(const struct ircomm_server *s);

/* ---- a connection ---------------------------------------------------- */

/* Bytes taken (0..len), or -ENOTCONN before IRCOMM_EV_CONNECTED.  With
 * len 0 it only pushes pending control items. */
long ircomm_write(struct ircomm *c, const uint8_t *buf, size_t len);
/* Bytes copied (0: nothing waiting). */
long ircomm_read(struct ircomm *c, uint8_t *buf, size_t cap);
/* Our DTR/RTS (IRCOMM_DTE_DTR | IRCOMM_DTE_RTS); the change goes out
 * with its delta bits.  -EOPNOTSUPP unless 9-wire, -ENOTCONN. */
int ircomm_set_lines(struct ircomm *c, uint8_t dte);
/* Sends the present items among data rate, data format, flow control,
 * XON/XOFF, ENQ/ACK, line status, break.  -EINVAL for any other
 * item, -ENOTCONN. */
int ircomm_set_params(struct ircomm *c, const struct ircomm_params *p);
/* Asks the peer for its line settings (9-wire). */
int ircomm_poll(struct ircomm *c);
/* Closes now; queued data is dropped (wait for ircomm_tx_pending()==0
 * to flush). */
void ircomm_disconnect(struct ircomm *c);

enum ircomm_state ircomm_get_state(const struct ircomm *c);
uint8_t ircomm_service_type(const struct ircomm *c);  /* 0 until known */
/* The peer's settings as last received (present: what it ever sent). */
const struct ircomm_params *ircomm_peer_params(const struct ircomm *c);
/* The peer's lines as DCE bits without deltas (0xF0 before it said
 * anything, as Linux assumes). */
uint8_t ircomm_peer_lines(const struct ircomm *c);
uint8_t ircomm_local_lines(const struct ircomm *c);
/* The most user data one SDU carries when no control items ride with
 * it (the negotiated PDU less TinyTP's and IrCOMM's header bytes); 0
 * before IRCOMM_EV_CONNECTED.  A host that reads its source in pieces of
 * this size makes full SDUs. */
size_t ircomm_max_write(const struct ircomm *c);
/* SDUs queued in TinyTP plus pending control items (0 or 1). */
size_t ircomm_tx_pending(const struct ircomm *c);

struct ircomm_stats {
	uint64_t sdus_rx, sdus_tx, bytes_rx, bytes_tx;
	uint64_t bad_sdus;       /* clen past the end: dropped whole */
	uint64_t bad_control;    /* truncated control lists dropped */
	uint64_t ignored_items;  /* unknown PI, PL mismatch, out of place */
	uint64_t polls_answered;
	uint64_t rx_dropped;     /* 3-wire raw: LM-PDUs dropped, the reader was behind */
};
/* (refreshes rx_dropped from the IrLMP connection below) */
const struct ircomm_stats *ircomm_get_stats(struct ircomm *c);

#endif
