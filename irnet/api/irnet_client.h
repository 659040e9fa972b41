/*
 * irnet_client.h: the client side of irdad's local API (docs/irdad-api.md),
 * for every program that uses IrDA through irdad: the pppd plugin, the
 * AF_IRDA preload library, irdiscover/irspray --daemon, irdactl.
 *
 * Owns: one session with one irdad (its SOCK_SEQPACKET control socket),
 * finding the socket from a port name, the HELLO exchange and what it
 * said, one blocking call per request type, each with a timeout, matching
 * every reply to its request by seq, queueing the events that arrive in
 * between (DISCONNECTED, STATION, CONNECTION for a listener) so none is
 * lost, and taking the connection descriptors passed with SCM_RIGHTS.
 *
 * Does not own: the stack, the connections' data (the passed descriptors
 * are plain sockets: read, write, poll and close them directly), or any
 * poll loop (irnet_client_fd() lets a program wait in its own).  It links
 * only the message codec (irdad_msg) and common/, so that the AF_IRDA
 * preload library can carry it into arbitrary programs.
 *
 * Errors: every call returns 0 (or a count) on success and a negative errno
 * value on failure, and irnet_client_error() says why in words.  An ERROR
 * reply from irdad becomes -its errno, with irdad's own text.  Nothing is
 * printed; the library logs only through the logger given with
 * irnet_client_set_logger().  A session whose control socket broke (irdad
 * closed it) or that received something malformed (a reply that does not
 * decode, a reply to no request, a descriptor where none belongs) is dead:
 * the call fails with -ECONNRESET, -EBADMSG or -EPROTONOSUPPORT (or
 * -ENOBUFS: more than IRNET_CLIENT_EVENTS_MAX events not taken), events
 * queued before are still delivered, then every call fails the same way,
 * and only irnet_client_close() is left.
 * An ERROR reply, a timeout or a request refused before it was sent
 * (-EINVAL) leave the session usable.
 *
 * Descriptors: every descriptor the library hands out is the caller's to
 * close, and has FD_CLOEXEC.  A descriptor that arrives where it does not
 * belong, or with a message that is refused, is closed before the call
 * returns; none is leaked on any error path.
 *
 * Threads and signals: no global state, so sessions are independent.  A
 * session is thread-compatible, not thread-safe: one call at a time on a
 * given session (use one session per thread, or a lock).  Calls retry
 * after EINTR and never raise SIGPIPE.
 *
 * Timeouts are in milliseconds; a negative one waits forever.  A request
 * whose reply did not come in time is abandoned: its reply, when it comes
 * later, is dropped (and a descriptor it carries closed, which ends that
 * connection), and the session goes on.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_CLIENT_H
#define IRNET_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "irdad_msg.h"
#include "log.h"

/* Where irdad puts PORT.sock. */
#define IRNET_CLIENT_RUN_DIR "/run/irnet"
/* How long irnet_client_open() waits for irdad's HELLO. */
#define IRNET_CLIENT_HELLO_TIMEOUT_MS 5000
/* Events kept for the caller; one more kills the session (-ENOBUFS). */
#define IRNET_CLIENT_EVENTS_MAX 1024
/* What the protocol's tables allow in one reply. */
#define IRNET_CLIENT_STATIONS_MAX 64
#define IRNET_CLIENT_IAS_VALUES_MAX 32
#define IRNET_CLIENT_COUNTERS_MAX 128
#define IRNET_CLIENT_CONNS_MAX 64

struct irnet_client;

/* What HELLO_REPLY said. */
struct irnet_client_hello {
	char port[33];            /* the port's device name, "ttyUSB0" */
	uint32_t addr;            /* our device address */
	uint8_t nickname[24];     /* our nickname's bytes, NUL after them */
	size_t nickname_len;
	uint32_t max_msg;         /* the largest message irdad takes */
};

/* One station in range. */
struct irnet_station {
	uint32_t addr;
	uint16_t hints;
	uint8_t charset;
	uint8_t nickname[24];     /* bytes in charset, NUL after them */
	size_t nickname_len;
	bool has_age;
	uint32_t age_ms;          /* since it was last seen, if has_age */
};

/* One value an IAS query found. */
struct irnet_ias_value {
	uint32_t obj_id;
	uint8_t type;             /* enum irdad_ias_type */
	uint32_t integer;         /* IRDAD_IAS_INT */
	uint8_t charset;          /* IRDAD_IAS_STRING */
	size_t len;               /* IRDAD_IAS_OCTETS and _STRING: bytes used */
	uint8_t bytes[1025];      /* ... NUL after them */
};

/* One attribute to register with irnet_client_ias_add(). */
struct irnet_ias_attr {
	const char *name;
	uint8_t type;             /* IRDAD_IAS_INT, _OCTETS or _STRING */
	uint32_t integer;
	const void *bytes;        /* octets or string bytes */
	size_t len;
	uint8_t charset;          /* for a string (0: ASCII) */
};

/* A connection as irdad handed it over, with its descriptor. */
struct irnet_conn_info {
	uint32_t conn_id;
	uint32_t listener_id;     /* 0 for a connection we asked for */
	uint8_t mode;             /* enum irdad_mode */
	uint32_t daddr;           /* the peer's device address */
	uint8_t lsap, peer_lsap;
	uint32_t peer_max_sdu;    /* the peer's MaxSduSize (0 in stream mode) */
	uint32_t tx_max;          /* the largest write sent as one SDU/LM-PDU */
};

struct irnet_listen_req {
	uint8_t mode;             /* enum irdad_mode */
	uint8_t lsap;             /* 0: any free selector */
	uint32_t max_sdu;         /* 0: not sent (irdad's default) */
	const char *class_name;   /* NULL: not registered in IAS */
	uint8_t backlog;          /* 0: not sent */
};

struct irnet_connect_req {
	uint32_t daddr;           /* 0: the first station that offers class_name */
	uint8_t lsap;             /* the peer's selector, or 0 and ... */
	const char *class_name;   /* ... the IAS class to look it up by */
	uint8_t mode;             /* enum irdad_mode */
	uint32_t max_sdu;         /* 0: not sent */
};

struct irnet_status_counter {
	char name[61];
	uint64_t value;
};

struct irnet_status_conn {
	uint32_t conn_id;
	uint8_t mode;
	uint32_t daddr;
	uint8_t lsap, peer_lsap;
	char owner[97];           /* "" when irdad did not say (OWNER: 96 bytes) */
};

struct irnet_status {
	uint8_t link;             /* enum irdad_link */
	bool has_peer;
	uint32_t peer;
	size_t n_counters;
	struct irnet_status_counter counters[IRNET_CLIENT_COUNTERS_MAX];
	size_t n_conns;
	struct irnet_status_conn conns[IRNET_CLIENT_CONNS_MAX];
};

enum irnet_event_type {
	IRNET_EVENT_CONNECTION = 1,   /* a listener's connection: fd, conn */
	IRNET_EVENT_DISCONNECTED = 2, /* conn_id, reason, text */
	IRNET_EVENT_STATION = 3,      /* station, present (after a WATCH) */
};

struct irnet_event {
	enum irnet_event_type type;
	int fd;                   /* CONNECTION: now the caller's; else -1 */
	struct irnet_conn_info conn;
	uint32_t conn_id;         /* DISCONNECTED */
	uint8_t reason;           /* DISCONNECTED: IrLMP's reason */
	char text[201];           /* DISCONNECTED: irdad's words, or "" */
	struct irnet_station station; /* STATION */
	bool present;             /* STATION: arrived (true) or left */
};

/*
 * The control socket's path for where: a port name ("ttyUSB0"), a device
 * ("/dev/ttyUSB0", or a link to one such as /dev/serial/by-id/...), both
 * giving IRNET_CLIENT_RUN_DIR/ttyUSB0.sock, or any other path with a '/'
 * (the socket itself).  Returns 0, -EINVAL for a name that is none of
 * these, -ENAMETOOLONG when the path does not fit a unix socket address.
 */
int irnet_client_socket_path(const char *where, char *path, size_t cap, char *err,
			     size_t errlen);

/*
 * Opens a session: connects to where's control socket, sends HELLO with
 * client_name (NULL: none; at most 32 bytes) and checks the reply.
 * Returns 0 with *out set, or a negative errno with the reason in err:
 * -ENOENT/-ECONNREFUSED (no irdad there), -EPROTONOSUPPORT (irdad speaks
 * another version of the API), -ETIMEDOUT, ...
 */
int irnet_client_open(const char *where, const char *client_name, struct irnet_client **out,
		      char *err, size_t errlen);
/* The same over a control socket already connected (socket activation,
 * tests).  Takes fd: on failure it is closed. */
int irnet_client_attach(int fd, const char *client_name, int timeout_ms,
			struct irnet_client **out, char *err, size_t errlen);
/* Ends the session (irdad then drops what it registered) and closes every
 * descriptor still queued in an event.  cl may be NULL. */
void irnet_client_close(struct irnet_client *cl);

/* Debug lines for each message sent and received.  log may be NULL;
 * it must outlive the session. */
void irnet_client_set_logger(struct irnet_client *cl, const struct logger *log);
const struct irnet_client_hello *irnet_client_hello(const struct irnet_client *cl);
/* Why the last call failed: irdad's text for an ERROR reply, the
 * library's otherwise; "" after a success. */
const char *irnet_client_error(const struct irnet_client *cl);
/* False once the session is dead (see above). */
bool irnet_client_usable(const struct irnet_client *cl);

/* Requests.  Each blocks until its reply, at most timeout_ms. */

/* Stations in range (fresh: run a discovery now).  Fills up to cap of
 * them and sets *n to how many irdad listed. */
int irnet_client_discover(struct irnet_client *cl, bool fresh, struct irnet_station *out,
			  size_t cap, size_t *n, int timeout_ms);
/* An IAS query to daddr; fills up to cap values, *n as above. */
int irnet_client_ias_query(struct irnet_client *cl, uint32_t daddr, const char *class_name,
			   const char *attr, struct irnet_ias_value *out, size_t cap, size_t *n,
			   int timeout_ms);
/* Registers an object of class_name with n attributes (1-16). */
int irnet_client_ias_add(struct irnet_client *cl, const char *class_name,
			 const struct irnet_ias_attr *attrs, size_t n, uint32_t *obj_id,
			 int timeout_ms);
int irnet_client_ias_remove(struct irnet_client *cl, uint32_t obj_id, int timeout_ms);
int irnet_client_listen(struct irnet_client *cl, const struct irnet_listen_req *req,
			uint32_t *listener_id, uint8_t *lsap, int timeout_ms);
/* Waits for the next connection to listener_id (one already queued is
 * taken first); *fd is then the caller's.  Other events are queued. */
int irnet_client_accept(struct irnet_client *cl, uint32_t listener_id, int *fd,
			struct irnet_conn_info *info, int timeout_ms);
/* Connects; *fd is then the caller's.  A timeout_ms >= 0 is also sent as
 * TIMEOUT_MS, so irdad gives up first and says why; the library waits
 * IRNET_CLIENT_CONNECT_GRACE_MS longer for that answer. */
#define IRNET_CLIENT_CONNECT_GRACE_MS 1000
int irnet_client_connect(struct irnet_client *cl, const struct irnet_connect_req *req, int *fd,
			 struct irnet_conn_info *info, int timeout_ms);
int irnet_client_close_listener(struct irnet_client *cl, uint32_t listener_id, int timeout_ms);
/* Closing the descriptor disconnects too; this is for one not held. */
int irnet_client_close_conn(struct irnet_client *cl, uint32_t conn_id, int timeout_ms);
int irnet_client_status(struct irnet_client *cl, struct irnet_status *st, int timeout_ms);
/* A counter of st by name; false if irdad did not report it. */
bool irnet_status_counter(const struct irnet_status *st, const char *name, uint64_t *value);
/* Asks for events (IRDAD_WATCH_* bits); they then come as events. */
int irnet_client_watch(struct irnet_client *cl, uint32_t events, int timeout_ms);
/* Adds hint bits (first hint byte high, as STATIONS gives them; 0: none)
 * to what irdad announces in discovery, for as long as this session
 * lives (HINTS); a later call replaces them. */
int irnet_client_hints(struct irnet_client *cl, uint16_t hints, int timeout_ms);

/*
 * ATTACH (docs/irdad-api.md, "ATTACH: endpoints on your descriptors"):
 * irdad runs an IrNET endpoint, exactly as irdad --stdio would, on two
 * descriptors of the caller's: chan_fd, the channel (a pty master or a
 * stream socket, open for reading and writing: PPP in async HDLC), and
 * status_fd, where the status lines go (written only; irdad makes it
 * non-blocking, and that flag is shared with the caller's copy).  The
 * kernel passes copies: the caller keeps its own and closes them when it
 * wants.  On success *endpoint_id is irdad's name for the endpoint; the
 * endpoint lives until its channel ends, its one connection ends, or this
 * session closes.  On failure the negative errno is returned and err (if
 * not NULL) gets the reason, as irnet_client_error() does.  The answer is
 * awaited IRNET_CLIENT_ATTACH_TIMEOUT_MS at most.
 */
struct irnet_attach_req {
	uint8_t service;          /* IRDAD_ATTACH_IRNET (IRCOMM: EOPNOTSUPP for now) */
	uint8_t role;             /* IRDAD_ATTACH_CALL or IRDAD_ATTACH_LISTEN */
	uint32_t daddr;           /* calling this station; 0: not sent */
	const char *nickname;     /* or the station of this nickname; NULL: not sent */
	uint32_t timeout_ms;      /* calling: look for the peer this long; 0: irdad's */
};
#define IRNET_CLIENT_ATTACH_TIMEOUT_MS 5000
int irnet_client_attach_endpoint(struct irnet_client *cl, const struct irnet_attach_req *req,
				 int chan_fd, int status_fd, uint32_t *endpoint_id, char *err,
				 size_t errlen);

/* Events. */

/* The control socket, for a caller's own poll loop (POLLIN).  Events may
 * already be queued without it being readable: drain
 * irnet_client_next_event() before sleeping. */
int irnet_client_fd(const struct irnet_client *cl);
/* Events queued and not yet taken. */
size_t irnet_client_queued(const struct irnet_client *cl);
/* Takes the oldest event without blocking: 1 with *ev set, 0 if there is
 * none, or a negative errno when the session died. */
int irnet_client_next_event(struct irnet_client *cl, struct irnet_event *ev);
/* The same, waiting up to timeout_ms for one (0 when none came). */
int irnet_client_wait_event(struct irnet_client *cl, struct irnet_event *ev, int timeout_ms);

#endif
