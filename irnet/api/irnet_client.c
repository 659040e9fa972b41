/*
 * irnet_client.c: a session with irdad over its control socket.
 *
 * Every call funnels into one receive loop (pump): it reads one message
 * at a time, checks it with the codec, and either returns it (the reply
 * with the seq we wait for, or the event we wait for), queues it (an
 * event nobody waits for yet), drops it (the late reply to a request that
 * timed out) or kills the session (anything else).  Descriptors travel
 * with the message that carries them and are closed wherever that
 * message is refused or dropped.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "irnet_client.h"
#include "port_name.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "fdpass.h"

#define ABANDONED_MAX 16  /* timed-out requests whose late reply is dropped */
#define ERRNO_MAX 4095    /* the largest errno value an ERROR may carry */

struct irnet_client {
	int fd;
	const struct logger *log;
	uint32_t next_seq;
	uint8_t req_type;         /* the request being built or awaited */
	uint32_t req_seq;
	int dead;                 /* 0, or the error every call now returns */
	char err[256];
	struct irnet_client_hello hello;
	uint32_t abandoned[ABANDONED_MAX]; /* 0: a free slot */
	size_t abandoned_next;    /* the slot to reuse when all are taken */
	struct irnet_event *events; /* queued events: [ev_head, ev_end) */
	size_t ev_head, ev_end, ev_cap;
	uint8_t tx[IRDAD_MSG_MAX];
	const int *tx_fds;        /* descriptors to send with the request (ATTACH) */
	size_t tx_nfds;
	uint8_t rxbuf[IRDAD_MSG_MAX];
	struct irdad_msg msg;     /* the last message received (into rxbuf) */
	struct fdpass_fds rx;         /* and the descriptors it brought */
};

/* What the receive loop waits for. */
enum want_kind { WANT_REPLY, WANT_CONNECTION, WANT_EVENT };

struct want {
	enum want_kind kind;
	uint32_t seq;             /* WANT_REPLY: the request's seq ... */
	uint8_t request, reply;   /* ... its type and the reply's */
	uint32_t listener_id;     /* WANT_CONNECTION */
	struct irnet_event *ev;   /* WANT_CONNECTION, WANT_EVENT: filled */
};

/* --- errors ---------------------------------------------------------- */

__attribute__((format(printf, 3, 0)))
static void vset_error(struct irnet_client *cl, int err, const char *fmt, va_list ap)
{
	vsnprintf(cl->err, sizeof(cl->err), fmt, ap);
	log_msg(cl->log, LOG_LEVEL_DEBUG, "irnet_client: %s (%s)", cl->err, strerror(-err));
}

/* A call failed; the session goes on.  Returns err (negative). */
__attribute__((format(printf, 3, 4)))
static int fail(struct irnet_client *cl, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset_error(cl, err, fmt, ap);
	va_end(ap);
	return err;
}

/* The session cannot go on: every later call returns err. */
__attribute__((format(printf, 3, 4)))
static int die(struct irnet_client *cl, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset_error(cl, err, fmt, ap);
	va_end(ap);
	log_msg(cl->log, LOG_LEVEL_DEBUG, "irnet_client: OPEN --%s--> DEAD", strerror(-err));
	cl->dead = err;
	return err;
}


/* The message just received is refused: its descriptors are closed and
 * the session dies. */
__attribute__((format(printf, 2, 3)))
static int refuse(struct irnet_client *cl, const char *fmt, ...)
{
	va_list ap;
	fdpass_close(&cl->rx);
	va_start(ap, fmt);
	vset_error(cl, -EBADMSG, fmt, ap);
	va_end(ap);
	log_msg(cl->log, LOG_LEVEL_DEBUG, "irnet_client: OPEN --bad message--> DEAD");
	cl->dead = -EBADMSG;
	return -EBADMSG;
}

static void copy_error(const char *text, char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", text);
}

/* --- time ------------------------------------------------------------ */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* -1: no deadline. */
static int64_t deadline_after(int timeout_ms)
{
	return timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
}

/* What is left until deadline, for poll(). */
static int remaining_ms(int64_t deadline)
{
	if (deadline < 0)
		return -1;
	int64_t left = deadline - now_ms();
	if (left <= 0)
		return 0;
	return left > INT_MAX ? INT_MAX : (int)left;
}

/* --- receiving ------------------------------------------------------- */

/* Reads one message without blocking: 1 (in cl->msg, cl->rx), -EAGAIN
 * when none is there, or the session's death. */
static int read_message(struct irnet_client *cl)
{
	int flags;
	ssize_t n = fdpass_recv(cl->fd, cl->rxbuf, sizeof(cl->rxbuf), &cl->rx, &flags);
	if (n == -EAGAIN)
		return -EAGAIN;
	if (n == -ECONNRESET)
		return die(cl, -ECONNRESET, "irdad closed the session");
	if (n < 0)
		return die(cl, (int)n, "reading the control socket: %s", strerror((int)-n));
	if (n == 0) {
		fdpass_close(&cl->rx);
		return die(cl, -ECONNRESET, "irdad closed the session");
	}
	if (flags & MSG_CTRUNC)
		return refuse(cl, "a message with more than %d descriptors", FDPASS_MAX);
	if (flags & MSG_TRUNC)
		return refuse(cl, "a message over %d bytes", IRDAD_MSG_MAX);
	char why[160];
	int rc = irdad_msg_decode(cl->rxbuf, (size_t)n, &cl->msg, why, sizeof(why));
	if (rc == -EPROTONOSUPPORT) {
		fdpass_close(&cl->rx);
		return die(cl, rc, "irdad speaks another version of the API (%s)", why);
	}
	if (rc < 0)
		return refuse(cl, "a malformed message from irdad: %s", why);
	log_msg(cl->log, LOG_LEVEL_DEBUG, "irnet_client: <- %s seq %u, %zu attributes, %zu fds",
		irdad_msg_type_name(cl->msg.type), cl->msg.seq, cl->msg.attrs.n, cl->rx.n);
	return 1;
}

/* Waits for one message until deadline: 1, 0 (none in time) or death. */
static int recv_one(struct irnet_client *cl, int64_t deadline)
{
	for (;;) {
		if (cl->dead)
			return cl->dead;
		int wait = remaining_ms(deadline);
		struct pollfd p = { .fd = cl->fd, .events = POLLIN };
		int r = poll(&p, 1, wait);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return die(cl, -errno, "waiting on the control socket: %s", strerror(errno));
		if (r == 0)
			return 0;
		r = read_message(cl);
		if (r != -EAGAIN)
			return r;
		if (wait == 0)
			return 0;
	}
}

/* --- what messages say ----------------------------------------------- */

static void copy_bytes(const struct irdad_attrs *as, uint16_t tag, uint8_t *buf, size_t cap,
		       size_t *len)
{
	const uint8_t *val;
	size_t n;
	irdad_get_bytes(as, tag, &val, &n);
	if (n >= cap)
		n = cap - 1; /* the codec's limits fit our buffers; never overflow */
	if (n)
		memcpy(buf, val, n);
	buf[n] = 0;
	*len = n;
}

static void read_station(const struct irdad_attr *nest, struct irnet_station *st)
{
	struct irdad_attrs in;
	irdad_nest_open(nest, &in);
	memset(st, 0, sizeof(*st));
	irdad_get_u32(&in, IRDAD_A_ADDR, &st->addr);
	irdad_get_u16(&in, IRDAD_A_HINTS, &st->hints);
	irdad_get_u8(&in, IRDAD_A_CHARSET, &st->charset);
	copy_bytes(&in, IRDAD_A_NICKNAME, st->nickname, sizeof(st->nickname), &st->nickname_len);
	st->has_age = irdad_get_u32(&in, IRDAD_A_AGE_MS, &st->age_ms);
}

static void read_conn(const struct irdad_attrs *as, struct irnet_conn_info *ci)
{
	memset(ci, 0, sizeof(*ci));
	irdad_get_u32(as, IRDAD_A_CONN_ID, &ci->conn_id);
	irdad_get_u32(as, IRDAD_A_LISTENER_ID, &ci->listener_id);
	irdad_get_u8(as, IRDAD_A_MODE, &ci->mode);
	irdad_get_u32(as, IRDAD_A_DADDR, &ci->daddr);
	irdad_get_u8(as, IRDAD_A_LSAP, &ci->lsap);
	irdad_get_u8(as, IRDAD_A_PEER_LSAP, &ci->peer_lsap);
	irdad_get_u32(as, IRDAD_A_PEER_MAX_SDU, &ci->peer_max_sdu);
	irdad_get_u32(as, IRDAD_A_TX_MAX, &ci->tx_max);
}

static const char *mode_name(uint8_t mode)
{
	switch (mode) {
	case IRDAD_MODE_STREAM: return "stream";
	case IRDAD_MODE_SAR: return "sar";
	case IRDAD_MODE_LMP: return "lmp";
	}
	return "?";
}

static const char *socktype_name(int type)
{
	switch (type) {
	case SOCK_STREAM: return "SOCK_STREAM";
	case SOCK_SEQPACKET: return "SOCK_SEQPACKET";
	case SOCK_DGRAM: return "SOCK_DGRAM";
	}
	return "non-stream, non-packet";
}

/* The message just received must carry exactly want descriptors, and a
 * connection's must be the socket kind its mode promises. */
static int check_fds(struct irnet_client *cl, size_t want)
{
	const char *name = irdad_msg_type_name(cl->msg.type);
	if (cl->rx.n != want)
		return refuse(cl, "%s seq %u carried %zu descriptors, it takes %zu", name,
			      cl->msg.seq, cl->rx.n, want);
	if (cl->msg.type != IRDAD_MSG_CONNECTION)
		return 0;
	uint8_t mode = 0;
	irdad_get_u8(&cl->msg.attrs, IRDAD_A_MODE, &mode);
	int type = 0;
	socklen_t len = sizeof(type);
	if (getsockopt(cl->rx.fd[0], SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		return refuse(cl, "CONNECTION: its descriptor is not a socket (%s)",
			      strerror(errno));
	int expect = mode == IRDAD_MODE_STREAM ? SOCK_STREAM : SOCK_SEQPACKET;
	if (type != expect)
		return refuse(cl, "CONNECTION: a %s descriptor for mode %s, which takes %s",
			      socktype_name(type), mode_name(mode), socktype_name(expect));
	return 0;
}

/* --- the event queue --------------------------------------------------- */

static size_t queued(const struct irnet_client *cl)
{
	return cl->ev_end - cl->ev_head;
}

static int enqueue(struct irnet_client *cl, const struct irnet_event *ev)
{
	if (queued(cl) >= IRNET_CLIENT_EVENTS_MAX) {
		if (ev->fd >= 0)
			close(ev->fd);
		return die(cl, -ENOBUFS, "more than %d events not taken", IRNET_CLIENT_EVENTS_MAX);
	}
	if (cl->ev_end == cl->ev_cap && cl->ev_head > 0) {
		memmove(cl->events, cl->events + cl->ev_head, queued(cl) * sizeof(*cl->events));
		cl->ev_end -= cl->ev_head;
		cl->ev_head = 0;
	}
	if (cl->ev_end == cl->ev_cap) {
		struct irnet_event *grown =
			array_grow(cl->events, &cl->ev_cap, cl->ev_end, sizeof(*grown), 8);
		if (!grown) {
			if (ev->fd >= 0)
				close(ev->fd);
			return die(cl, -ENOMEM, "no memory to queue an event");
		}
		cl->events = grown;
	}
	cl->events[cl->ev_end++] = *ev;
	return 0;
}

static bool event_wanted(const struct want *w, const struct irnet_event *ev)
{
	if (w->kind == WANT_EVENT)
		return true;
	return w->kind == WANT_CONNECTION && ev->type == IRNET_EVENT_CONNECTION &&
	       ev->conn.listener_id == w->listener_id;
}

/* Takes the first queued event w wants, keeping the others in order. */
static bool take_queued(struct irnet_client *cl, const struct want *w)
{
	for (size_t i = cl->ev_head; i < cl->ev_end; i++) {
		if (!event_wanted(w, &cl->events[i]))
			continue;
		*w->ev = cl->events[i];
		if (i == cl->ev_head) { /* the oldest: no copying */
			cl->ev_head++;
		} else {
			memmove(cl->events + i, cl->events + i + 1,
				(cl->ev_end - i - 1) * sizeof(*cl->events));
			cl->ev_end--;
		}
		if (cl->ev_head == cl->ev_end)
			cl->ev_head = cl->ev_end = 0;
		return true;
	}
	return false;
}

/* --- dispatching what arrives ----------------------------------------- */

static int on_event(struct irnet_client *cl, const struct want *w)
{
	const struct irdad_msg *m = &cl->msg;
	struct irnet_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.fd = -1;
	int rc;
	switch (m->type) {
	case IRDAD_MSG_CONNECTION:
		ev.type = IRNET_EVENT_CONNECTION;
		read_conn(&m->attrs, &ev.conn);
		if (ev.conn.listener_id == 0)
			return refuse(cl, "CONNECTION seq 0 for no listener (LISTENER_ID 0)");
		if ((rc = check_fds(cl, 1)) < 0)
			return rc;
		ev.fd = cl->rx.fd[0];
		cl->rx.n = 0;
		break;
	case IRDAD_MSG_DISCONNECTED:
		ev.type = IRNET_EVENT_DISCONNECTED;
		irdad_get_u32(&m->attrs, IRDAD_A_CONN_ID, &ev.conn_id);
		irdad_get_u8(&m->attrs, IRDAD_A_REASON, &ev.reason);
		irdad_get_str(&m->attrs, IRDAD_A_TEXT, ev.text, sizeof(ev.text));
		break;
	case IRDAD_MSG_STATION: {
		uint8_t present = 0;
		ev.type = IRNET_EVENT_STATION;
		read_station(irdad_find(&m->attrs, IRDAD_A_STATION), &ev.station);
		irdad_get_u8(&m->attrs, IRDAD_A_PRESENT, &present);
		ev.present = present != 0;
		break;
	}
	default:
		return refuse(cl, "%s with seq 0: only events carry 0",
			      irdad_msg_type_name(m->type));
	}
	if (ev.type != IRNET_EVENT_CONNECTION && (rc = check_fds(cl, 0)) < 0)
		return rc;
	if (event_wanted(w, &ev)) {
		*w->ev = ev;
		return 1;
	}
	return enqueue(cl, &ev);
}

static int on_error_reply(struct irnet_client *cl, const struct want *w)
{
	uint32_t e = 0;
	char text[201];
	int rc = check_fds(cl, 0);
	if (rc < 0)
		return rc;
	irdad_get_u32(&cl->msg.attrs, IRDAD_A_ERRNO, &e);
	irdad_get_str(&cl->msg.attrs, IRDAD_A_TEXT, text, sizeof(text));
	if (e == 0 || e > ERRNO_MAX)
		return refuse(cl, "ERROR to %s: ERRNO %u is not an errno value",
			      irdad_msg_type_name(w->request), e);
	return fail(cl, -(int)e, "%s", text);
}

static int on_reply(struct irnet_client *cl, const struct want *w)
{
	const struct irdad_msg *m = &cl->msg;
	if (m->type == IRDAD_MSG_ERROR)
		return on_error_reply(cl, w);
	if (m->type != w->reply)
		return refuse(cl, "%s seq %u answered with %s, not %s",
			      irdad_msg_type_name(w->request), m->seq, irdad_msg_type_name(m->type),
			      irdad_msg_type_name(w->reply));
	int rc = check_fds(cl, m->type == IRDAD_MSG_CONNECTION ? 1 : 0);
	if (rc < 0)
		return rc;
	uint32_t listener = 0;
	if (m->type == IRDAD_MSG_CONNECTION &&
	    irdad_get_u32(&m->attrs, IRDAD_A_LISTENER_ID, &listener) && listener != 0)
		return refuse(cl, "CONNECTION answering CONNECT names listener %u", listener);
	return 1;
}

static bool forget_abandoned(struct irnet_client *cl, uint32_t seq)
{
	for (size_t i = 0; i < ABANDONED_MAX; i++) {
		if (cl->abandoned[i] == seq) {
			cl->abandoned[i] = 0;
			return true;
		}
	}
	return false;
}

static void abandon(struct irnet_client *cl, uint32_t seq)
{
	for (size_t i = 0; i < ABANDONED_MAX; i++) {
		if (cl->abandoned[i] == 0) {
			cl->abandoned[i] = seq;
			return;
		}
	}
	/* All taken: the oldest irdad never answered; forget one. */
	cl->abandoned[cl->abandoned_next] = seq;
	cl->abandoned_next = (cl->abandoned_next + 1) % ABANDONED_MAX;
}

/* One message arrived: 1 if it is what w waits for, 0 if it was queued or
 * dropped, or an error. */
static int dispatch(struct irnet_client *cl, const struct want *w)
{
	const struct irdad_msg *m = &cl->msg;
	if (irdad_msg_is_request(m->type))
		return refuse(cl, "irdad sent %s, a request", irdad_msg_type_name(m->type));
	if (m->seq == 0)
		return on_event(cl, w);
	if (m->type == IRDAD_MSG_DISCONNECTED || m->type == IRDAD_MSG_STATION)
		return refuse(cl, "%s with seq %u: events carry 0", irdad_msg_type_name(m->type),
			      m->seq);
	if (w->kind == WANT_REPLY && m->seq == w->seq)
		return on_reply(cl, w);
	if (forget_abandoned(cl, m->seq)) {
		log_msg(cl->log, LOG_LEVEL_DEBUG,
			"irnet_client: dropping the late %s seq %u (and %zu fds)",
			irdad_msg_type_name(m->type), m->seq, cl->rx.n);
		fdpass_close(&cl->rx);
		return 0;
	}
	return refuse(cl, "%s seq %u answers no request", irdad_msg_type_name(m->type), m->seq);
}

/* Reads until w is met (1), the deadline passes (0) or an error. */
static int pump(struct irnet_client *cl, const struct want *w, int64_t deadline)
{
	for (;;) {
		if (w->kind != WANT_REPLY && take_queued(cl, w))
			return 1;
		int rc = recv_one(cl, deadline);
		if (rc <= 0)
			return rc;
		rc = dispatch(cl, w);
		if (rc != 0)
			return rc;
	}
}

/* --- sending requests -------------------------------------------------- */

/* Starts a request: the session must be alive; takes the next seq. */
static int begin(struct irnet_client *cl, struct irdad_writer *wr, uint8_t type)
{
	if (cl->dead)
		return cl->dead;
	cl->err[0] = '\0';
	cl->req_type = type;
	cl->req_seq = cl->next_seq++;
	cl->tx_fds = NULL;
	cl->tx_nfds = 0;
	if (cl->next_seq == 0)
		cl->next_seq = 1; /* 0 is the events' */
	irdad_write_begin(wr, cl->tx, sizeof(cl->tx), type, cl->req_seq);
	return 0;
}

static int send_message(struct irnet_client *cl, size_t len, int64_t deadline)
{
	for (;;) {
		/* fdpass: MSG_NOSIGNAL | MSG_DONTWAIT, EINTR retried */
		int rc = fdpass_send_fds(cl->fd, cl->tx, len, cl->tx_fds, cl->tx_nfds);
		if (rc == 0)
			return 0;
		if (rc == -EMSGSIZE)
			return die(cl, -EIO, "sent part of a %zu-byte message", len);
		errno = -rc;
		if (errno == EPIPE || errno == ECONNRESET)
			return die(cl, -ECONNRESET, "irdad closed the session");
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return die(cl, -errno, "writing the control socket: %s", strerror(errno));
		struct pollfd p = { .fd = cl->fd, .events = POLLOUT };
		int r = poll(&p, 1, remaining_ms(deadline));
		if (r == 0)
			return fail(cl, -ETIMEDOUT, "the control socket stayed full");
		if (r < 0 && errno != EINTR)
			return die(cl, -errno, "waiting on the control socket: %s", strerror(errno));
	}
}

/* Finishes and sends the request in wr, then waits for its reply of type
 * reply (left in cl->msg and cl->rx) until deadline. */
static int call_until(struct irnet_client *cl, struct irdad_writer *wr, uint8_t reply,
		      int64_t deadline, int timeout_ms)
{
	uint8_t type = cl->req_type;
	uint32_t seq = cl->req_seq;
	const char *name = irdad_msg_type_name(type);
	char why[160];
	long len = irdad_write_end(wr, why, sizeof(why));
	if (len < 0)
		return fail(cl, len == -EMSGSIZE ? -EMSGSIZE : -EINVAL, "%s not sent: %s", name, why);
	if (cl->hello.max_msg && (unsigned long)len > cl->hello.max_msg)
		return fail(cl, -EMSGSIZE, "%s not sent: %ld bytes, irdad takes at most %u", name,
			    len, cl->hello.max_msg);
	int rc = send_message(cl, (size_t)len, deadline);
	if (rc < 0)
		return rc;
	log_msg(cl->log, LOG_LEVEL_DEBUG, "irnet_client: -> %s seq %u, %ld bytes", name, seq, len);
	struct want w = { .kind = WANT_REPLY, .seq = seq, .request = type, .reply = reply };
	rc = pump(cl, &w, deadline);
	if (rc == 0) {
		abandon(cl, seq);
		return fail(cl, -ETIMEDOUT, "no answer to %s within %d ms", name, timeout_ms);
	}
	return rc < 0 ? rc : 0;
}

static int call(struct irnet_client *cl, struct irdad_writer *wr, uint8_t reply, int timeout_ms)
{
	return call_until(cl, wr, reply, deadline_after(timeout_ms), timeout_ms);
}

static int missing_arg(struct irnet_client *cl, const char *what)
{
	if (cl->dead)
		return cl->dead;
	return fail(cl, -EINVAL, "%s missing", what);
}

/* --- opening and closing ------------------------------------------------ */

static bool port_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

int irnet_client_socket_path(const char *where, char *path, size_t cap, char *err,
			     size_t errlen)
{
	static const char dev[] = "/dev/";
	char resolved[PATH_MAX], usb_port[64];
	const char *port = where;
	size_t sun_cap = sizeof(((struct sockaddr_un *)0)->sun_path);
	if (cap && path)
		path[0] = '\0';
	if (!where || !*where) {
		copy_error("no port given", err, errlen);
		return -EINVAL;
	}
	if (irnet_port_is_usb(where)) {
		/* a USB dongle's name, its socket named as irdad names it */
		if (irnet_port_name(where, usb_port, sizeof(usb_port)) < 0) {
			if (err && errlen)
				snprintf(err, errlen, "%s: too long for a USB dongle's name", where);
			return -ENAMETOOLONG;
		}
		port = usb_port;
	} else if (strncmp(where, dev, strlen(dev)) == 0) {
		port = where + strlen(dev);
		if (strchr(port, '/')) { /* a link such as /dev/serial/by-id/... */
			if (!realpath(where, resolved)) {
				int e = errno;
				if (err && errlen)
					snprintf(err, errlen, "%s: %s", where, strerror(e));
				return -e;
			}
			port = resolved + strlen(dev);
			if (strncmp(resolved, dev, strlen(dev)) != 0 || strchr(port, '/')) {
				if (err && errlen)
					snprintf(err, errlen, "%s is %s, not a device in /dev",
						 where, resolved);
				return -EINVAL;
			}
		}
	} else if (strchr(where, '/')) {
		port = NULL; /* the socket's own path */
	}
	if (port) {
		size_t n = strlen(port);
		bool ok = n >= 1 && n <= 32 && port[0] != '.';
		for (size_t i = 0; ok && i < n; i++)
			ok = port_char(port[i]);
		if (!ok) {
			if (err && errlen)
				snprintf(err, errlen,
					 "\"%s\" is not a port name (1-32 of A-Z a-z 0-9 . _ -)",
					 port);
			return -EINVAL;
		}
	}
	int n = port ? snprintf(path, cap, "%s/%s.sock", IRNET_CLIENT_RUN_DIR, port)
		     : snprintf(path, cap, "%s", where);
	if (n < 0 || (size_t)n >= cap || (size_t)n >= sun_cap) {
		if (cap && path)
			path[0] = '\0';
		if (err && errlen)
			snprintf(err, errlen, "%s: the socket's path is too long", where);
		return -ENAMETOOLONG;
	}
	return 0;
}

static int hello(struct irnet_client *cl, const char *client_name, int timeout_ms)
{
	struct irdad_writer wr;
	int rc = begin(cl, &wr, IRDAD_MSG_HELLO);
	if (rc < 0)
		return rc;
	if (client_name && *client_name)
		irdad_put_str(&wr, IRDAD_A_CLIENT, client_name);
	rc = call(cl, &wr, IRDAD_MSG_HELLO_REPLY, timeout_ms);
	if (rc == -EPROTONOSUPPORT && !cl->dead) {
		char text[sizeof(cl->err)];
		snprintf(text, sizeof(text), "%s", cl->err);
		return die(cl, rc, "irdad refused API version %d: %s", IRDAD_PROTO_VERSION, text);
	}
	if (rc < 0)
		return rc;
	const struct irdad_attrs *as = &cl->msg.attrs;
	irdad_get_str(as, IRDAD_A_PORT, cl->hello.port, sizeof(cl->hello.port));
	irdad_get_u32(as, IRDAD_A_ADDR, &cl->hello.addr);
	copy_bytes(as, IRDAD_A_NICKNAME, cl->hello.nickname, sizeof(cl->hello.nickname),
		   &cl->hello.nickname_len);
	irdad_get_u32(as, IRDAD_A_MAX_MSG, &cl->hello.max_msg);
	if (cl->hello.max_msg < IRDAD_HDR_LEN)
		return die(cl, -EBADMSG, "HELLO: MAX_MSG %u is smaller than a header",
			   cl->hello.max_msg);
	return 0;
}

int irnet_client_attach(int fd, const char *client_name, int timeout_ms,
			struct irnet_client **out, char *err, size_t errlen)
{
	*out = NULL;
	struct irnet_client *cl = calloc(1, sizeof(*cl));
	if (!cl) {
		close(fd);
		copy_error("no memory for a session", err, errlen);
		return -ENOMEM;
	}
	cl->fd = fd;
	cl->next_seq = 1;
	int rc = hello(cl, client_name, timeout_ms);
	if (rc < 0) {
		copy_error(cl->err, err, errlen);
		irnet_client_close(cl);
		return rc;
	}
	copy_error("", err, errlen);
	*out = cl;
	return 0;
}

/* Connects fd to path, waiting through an interrupted connect. */
static int connect_unix(int fd, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	memcpy(sa.sun_path, path, strlen(path) + 1); /* fits: checked by the caller */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return 0;
	if (errno != EINTR && errno != EINPROGRESS)
		return -errno;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	while (poll(&p, 1, IRNET_CLIENT_HELLO_TIMEOUT_MS) < 0)
		if (errno != EINTR)
			return -errno;
	int soerr = 0;
	socklen_t len = sizeof(soerr);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
		return -errno;
	return -soerr;
}

int irnet_client_open(const char *where, const char *client_name, struct irnet_client **out,
		      char *err, size_t errlen)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char why[256];
	*out = NULL;
	int rc = irnet_client_socket_path(where, path, sizeof(path), err, errlen);
	if (rc < 0)
		return rc;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		if (err && errlen)
			snprintf(err, errlen, "a unix socket: %s", strerror(-rc));
		return rc;
	}
	rc = connect_unix(fd, path);
	if (rc < 0) {
		close(fd);
		if (err && errlen)
			snprintf(err, errlen, "%s: %s%s", path, strerror(-rc),
				 rc == -ENOENT || rc == -ECONNREFUSED
					 ? " (is irdad running on this port?)" : "");
		return rc;
	}
	rc = irnet_client_attach(fd, client_name, IRNET_CLIENT_HELLO_TIMEOUT_MS, out, why,
				 sizeof(why));
	if (rc < 0 && err && errlen)
		snprintf(err, errlen, "%s: %s", path, why);
	return rc;
}

void irnet_client_close(struct irnet_client *cl)
{
	if (!cl)
		return;
	for (size_t i = cl->ev_head; i < cl->ev_end; i++)
		if (cl->events[i].fd >= 0)
			close(cl->events[i].fd);
	fdpass_close(&cl->rx);
	free(cl->events);
	close(cl->fd);
	free(cl);
}

void irnet_client_set_logger(struct irnet_client *cl, const struct logger *log)
{
	cl->log = log;
}

const struct irnet_client_hello *irnet_client_hello(const struct irnet_client *cl)
{
	return &cl->hello;
}

const char *irnet_client_error(const struct irnet_client *cl)
{
	return cl->err;
}

bool irnet_client_usable(const struct irnet_client *cl)
{
	return cl->dead == 0;
}

int irnet_client_fd(const struct irnet_client *cl)
{
	return cl->fd;
}

size_t irnet_client_queued(const struct irnet_client *cl)
{
	return queued(cl);
}

/* --- requests ------------------------------------------------------------ */

int irnet_client_discover(struct irnet_client *cl, bool fresh, struct irnet_station *out,
			  size_t cap, size_t *n, int timeout_ms)
{
	struct irdad_writer wr;
	*n = 0;
	int rc = begin(cl, &wr, IRDAD_MSG_DISCOVER);
	if (rc < 0)
		return rc;
	irdad_put_u8(&wr, IRDAD_A_FRESH, fresh ? 1 : 0);
	rc = call(cl, &wr, IRDAD_MSG_STATIONS, timeout_ms);
	if (rc < 0)
		return rc;
	*n = irdad_count(&cl->msg.attrs, IRDAD_A_STATION);
	for (size_t i = 0; i < *n && i < cap; i++)
		read_station(irdad_nth(&cl->msg.attrs, IRDAD_A_STATION, i), &out[i]);
	return 0;
}

static void read_ias_value(const struct irdad_attr *nest, struct irnet_ias_value *v)
{
	struct irdad_attrs in;
	irdad_nest_open(nest, &in);
	memset(v, 0, sizeof(*v));
	irdad_get_u32(&in, IRDAD_A_OBJ_ID, &v->obj_id);
	irdad_get_u8(&in, IRDAD_A_TYPE, &v->type);
	irdad_get_u32(&in, IRDAD_A_INT, &v->integer);
	irdad_get_u8(&in, IRDAD_A_CHARSET, &v->charset);
	copy_bytes(&in, v->type == IRDAD_IAS_STRING ? IRDAD_A_STRING : IRDAD_A_OCTETS, v->bytes,
		   sizeof(v->bytes), &v->len);
}

int irnet_client_ias_query(struct irnet_client *cl, uint32_t daddr, const char *class_name,
			   const char *attr, struct irnet_ias_value *out, size_t cap, size_t *n,
			   int timeout_ms)
{
	struct irdad_writer wr;
	*n = 0;
	if (!class_name || !attr)
		return missing_arg(cl, "IAS_QUERY: a class and an attribute name");
	int rc = begin(cl, &wr, IRDAD_MSG_IAS_QUERY);
	if (rc < 0)
		return rc;
	irdad_put_u32(&wr, IRDAD_A_DADDR, daddr);
	irdad_put_str(&wr, IRDAD_A_CLASS, class_name);
	irdad_put_str(&wr, IRDAD_A_ATTR, attr);
	rc = call(cl, &wr, IRDAD_MSG_IAS_RESULT, timeout_ms);
	if (rc < 0)
		return rc;
	*n = irdad_count(&cl->msg.attrs, IRDAD_A_IAS_VALUE);
	for (size_t i = 0; i < *n && i < cap; i++)
		read_ias_value(irdad_nth(&cl->msg.attrs, IRDAD_A_IAS_VALUE, i), &out[i]);
	return 0;
}

static void put_ias_attr(struct irdad_writer *wr, const struct irnet_ias_attr *a)
{
	irdad_nest_begin(wr, IRDAD_A_IAS_ATTR);
	irdad_put_str(wr, IRDAD_A_NAME, a->name);
	irdad_put_u8(wr, IRDAD_A_TYPE, a->type);
	switch (a->type) {
	case IRDAD_IAS_INT:
		irdad_put_u32(wr, IRDAD_A_INT, a->integer);
		break;
	case IRDAD_IAS_OCTETS:
		irdad_put_bytes(wr, IRDAD_A_OCTETS, a->bytes, a->len);
		break;
	case IRDAD_IAS_STRING:
		irdad_put_bytes(wr, IRDAD_A_STRING, a->bytes, a->len);
		irdad_put_u8(wr, IRDAD_A_CHARSET, a->charset);
		break;
	default:
		break; /* the writer's check names what is missing */
	}
	irdad_nest_end(wr);
}

int irnet_client_ias_add(struct irnet_client *cl, const char *class_name,
			 const struct irnet_ias_attr *attrs, size_t n, uint32_t *obj_id,
			 int timeout_ms)
{
	struct irdad_writer wr;
	*obj_id = 0;
	if (!class_name)
		return missing_arg(cl, "IAS_ADD: a class name");
	for (size_t i = 0; i < n; i++)
		if (!attrs[i].name || (attrs[i].len && !attrs[i].bytes))
			return missing_arg(cl, "IAS_ADD: an attribute's name or bytes");
	int rc = begin(cl, &wr, IRDAD_MSG_IAS_ADD);
	if (rc < 0)
		return rc;
	irdad_put_str(&wr, IRDAD_A_CLASS, class_name);
	for (size_t i = 0; i < n; i++)
		put_ias_attr(&wr, &attrs[i]);
	rc = call(cl, &wr, IRDAD_MSG_OK, timeout_ms);
	if (rc < 0)
		return rc;
	if (!irdad_get_u32(&cl->msg.attrs, IRDAD_A_OBJ_ID, obj_id))
		return refuse(cl, "OK to IAS_ADD seq %u without OBJ_ID", cl->msg.seq);
	return 0;
}

/* A request with one u32 attribute answered by OK. */
static int simple_request(struct irnet_client *cl, uint8_t type, uint16_t tag, uint32_t value,
			  int timeout_ms)
{
	struct irdad_writer wr;
	int rc = begin(cl, &wr, type);
	if (rc < 0)
		return rc;
	irdad_put_u32(&wr, tag, value);
	return call(cl, &wr, IRDAD_MSG_OK, timeout_ms);
}

int irnet_client_ias_remove(struct irnet_client *cl, uint32_t obj_id, int timeout_ms)
{
	return simple_request(cl, IRDAD_MSG_IAS_REMOVE, IRDAD_A_OBJ_ID, obj_id, timeout_ms);
}

int irnet_client_close_listener(struct irnet_client *cl, uint32_t listener_id, int timeout_ms)
{
	return simple_request(cl, IRDAD_MSG_CLOSE, IRDAD_A_LISTENER_ID, listener_id, timeout_ms);
}

int irnet_client_close_conn(struct irnet_client *cl, uint32_t conn_id, int timeout_ms)
{
	return simple_request(cl, IRDAD_MSG_CLOSE, IRDAD_A_CONN_ID, conn_id, timeout_ms);
}

int irnet_client_watch(struct irnet_client *cl, uint32_t events, int timeout_ms)
{
	return simple_request(cl, IRDAD_MSG_WATCH, IRDAD_A_EVENTS, events, timeout_ms);
}

int irnet_client_hints(struct irnet_client *cl, uint16_t hints, int timeout_ms)
{
	struct irdad_writer wr;
	int rc = begin(cl, &wr, IRDAD_MSG_HINTS);
	if (rc < 0)
		return rc;
	irdad_put_u16(&wr, IRDAD_A_HINTS, hints);
	return call(cl, &wr, IRDAD_MSG_OK, timeout_ms);
}

int irnet_client_listen(struct irnet_client *cl, const struct irnet_listen_req *req,
			uint32_t *listener_id, uint8_t *lsap, int timeout_ms)
{
	struct irdad_writer wr;
	*listener_id = 0;
	*lsap = 0;
	int rc = begin(cl, &wr, IRDAD_MSG_LISTEN);
	if (rc < 0)
		return rc;
	irdad_put_u8(&wr, IRDAD_A_MODE, req->mode);
	if (req->lsap)
		irdad_put_u8(&wr, IRDAD_A_LSAP, req->lsap);
	if (req->max_sdu)
		irdad_put_u32(&wr, IRDAD_A_MAX_SDU, req->max_sdu);
	if (req->class_name)
		irdad_put_str(&wr, IRDAD_A_CLASS, req->class_name);
	if (req->backlog)
		irdad_put_u8(&wr, IRDAD_A_BACKLOG, req->backlog);
	rc = call(cl, &wr, IRDAD_MSG_LISTENING, timeout_ms);
	if (rc < 0)
		return rc;
	irdad_get_u32(&cl->msg.attrs, IRDAD_A_LISTENER_ID, listener_id);
	irdad_get_u8(&cl->msg.attrs, IRDAD_A_LSAP, lsap);
	return 0;
}

int irnet_client_accept(struct irnet_client *cl, uint32_t listener_id, int *fd,
			struct irnet_conn_info *info, int timeout_ms)
{
	struct irnet_event ev;
	struct want w = { .kind = WANT_CONNECTION, .listener_id = listener_id, .ev = &ev };
	*fd = -1;
	if (!cl->dead)
		cl->err[0] = '\0';
	if (!take_queued(cl, &w)) {
		if (cl->dead)
			return cl->dead;
		int rc = pump(cl, &w, deadline_after(timeout_ms));
		if (rc == 0)
			return fail(cl, -ETIMEDOUT, "no connection to listener %u within %d ms",
				    listener_id, timeout_ms);
		if (rc < 0)
			return rc;
	}
	*fd = ev.fd;
	*info = ev.conn;
	return 0;
}

int irnet_client_connect(struct irnet_client *cl, const struct irnet_connect_req *req, int *fd,
			 struct irnet_conn_info *info, int timeout_ms)
{
	struct irdad_writer wr;
	*fd = -1;
	int rc = begin(cl, &wr, IRDAD_MSG_CONNECT);
	if (rc < 0)
		return rc;
	irdad_put_u32(&wr, IRDAD_A_DADDR, req->daddr);
	if (req->lsap)
		irdad_put_u8(&wr, IRDAD_A_LSAP, req->lsap);
	if (req->class_name)
		irdad_put_str(&wr, IRDAD_A_CLASS, req->class_name);
	irdad_put_u8(&wr, IRDAD_A_MODE, req->mode);
	if (req->max_sdu)
		irdad_put_u32(&wr, IRDAD_A_MAX_SDU, req->max_sdu);
	int64_t deadline = -1;
	if (timeout_ms >= 0) {
		irdad_put_u32(&wr, IRDAD_A_TIMEOUT_MS, (uint32_t)timeout_ms);
		deadline = now_ms() + timeout_ms + IRNET_CLIENT_CONNECT_GRACE_MS;
	}
	rc = call_until(cl, &wr, IRDAD_MSG_CONNECTION, deadline, timeout_ms);
	if (rc < 0)
		return rc;
	read_conn(&cl->msg.attrs, info);
	if (info->mode != req->mode || (req->daddr && info->daddr != req->daddr) ||
	    (req->lsap && info->peer_lsap != req->lsap))
		return refuse(cl, "CONNECTION seq %u: mode %s to %08x LSAP %u, "
			      "CONNECT asked for mode %s to %08x LSAP %u", cl->msg.seq,
			      mode_name(info->mode), info->daddr, info->peer_lsap,
			      mode_name(req->mode), req->daddr, req->lsap);
	*fd = cl->rx.fd[0];
	cl->rx.n = 0;
	return 0;
}

int irnet_client_status(struct irnet_client *cl, struct irnet_status *st, int timeout_ms)
{
	struct irdad_writer wr;
	memset(st, 0, sizeof(*st));
	int rc = begin(cl, &wr, IRDAD_MSG_STATUS);
	if (rc < 0)
		return rc;
	rc = call(cl, &wr, IRDAD_MSG_STATUS_REPLY, timeout_ms);
	if (rc < 0)
		return rc;
	const struct irdad_attrs *as = &cl->msg.attrs;
	struct irdad_attrs in;
	irdad_get_u8(as, IRDAD_A_LINK, &st->link);
	st->has_peer = irdad_get_u32(as, IRDAD_A_PEER, &st->peer);
	st->has_port_state = irdad_get_u8(as, IRDAD_A_PORT_STATE, &st->port_state);
	irdad_get_u32(as, IRDAD_A_PORT_GONE_MS, &st->port_gone_ms);
	irdad_get_str(as, IRDAD_A_PORT_PATH, st->port_path, sizeof(st->port_path));
	for (size_t i = 0; i < as->n; i++) {
		const struct irdad_attr *a = &as->a[i];
		if (a->tag == IRDAD_A_COUNTER && st->n_counters < IRNET_CLIENT_COUNTERS_MAX) {
			struct irnet_status_counter *c = &st->counters[st->n_counters++];
			irdad_nest_open(a, &in);
			irdad_get_str(&in, IRDAD_A_NAME, c->name, sizeof(c->name));
			irdad_get_u64(&in, IRDAD_A_VALUE64, &c->value);
		} else if (a->tag == IRDAD_A_CONN && st->n_conns < IRNET_CLIENT_CONNS_MAX) {
			struct irnet_status_conn *c = &st->conns[st->n_conns++];
			irdad_nest_open(a, &in);
			irdad_get_u32(&in, IRDAD_A_CONN_ID, &c->conn_id);
			irdad_get_u8(&in, IRDAD_A_MODE, &c->mode);
			irdad_get_u32(&in, IRDAD_A_DADDR, &c->daddr);
			irdad_get_u8(&in, IRDAD_A_LSAP, &c->lsap);
			irdad_get_u8(&in, IRDAD_A_PEER_LSAP, &c->peer_lsap);
			irdad_get_str(&in, IRDAD_A_OWNER, c->owner, sizeof(c->owner));
		}
	}
	return 0;
}

bool irnet_status_counter(const struct irnet_status *st, const char *name, uint64_t *value)
{
	for (size_t i = 0; i < st->n_counters; i++) {
		if (strcmp(st->counters[i].name, name) == 0) {
			*value = st->counters[i].value;
			return true;
		}
	}
	return false;
}

/* --- events ------------------------------------------------------------ */

int irnet_client_wait_event(struct irnet_client *cl, struct irnet_event *ev, int timeout_ms)
{
	struct want w = { .kind = WANT_EVENT, .ev = ev };
	memset(ev, 0, sizeof(*ev));
	ev->fd = -1;
	/* What was queued before the session died is still delivered. */
	if (take_queued(cl, &w))
		return 1;
	if (cl->dead)
		return cl->dead;
	return pump(cl, &w, deadline_after(timeout_ms));
}

int irnet_client_next_event(struct irnet_client *cl, struct irnet_event *ev)
{
	return irnet_client_wait_event(cl, ev, 0);
}

int irnet_client_attach_endpoint(struct irnet_client *cl, const struct irnet_attach_req *req,
				 int chan_fd, int status_fd, uint32_t *endpoint_id, char *err,
				 size_t errlen)
{
	struct irdad_writer wr;
	const int fds[IRDAD_ATTACH_NFDS] = { [IRDAD_ATTACH_FD_CHANNEL] = chan_fd,
					     [IRDAD_ATTACH_FD_STATUS] = status_fd };
	*endpoint_id = 0;
	int rc = begin(cl, &wr, IRDAD_MSG_ATTACH);
	if (rc == 0 && (chan_fd < 0 || status_fd < 0))
		rc = fail(cl, -EBADF, "ATTACH not sent: %s descriptor %d",
			  chan_fd < 0 ? "channel" : "status", chan_fd < 0 ? chan_fd : status_fd);
	if (rc == 0) {
		irdad_put_u8(&wr, IRDAD_A_SERVICE, req->service);
		irdad_put_u8(&wr, IRDAD_A_ROLE, req->role);
		if (req->daddr)
			irdad_put_u32(&wr, IRDAD_A_DADDR, req->daddr);
		if (req->nickname)
			irdad_put_str(&wr, IRDAD_A_NICKNAME, req->nickname);
		if (req->timeout_ms)
			irdad_put_u32(&wr, IRDAD_A_TIMEOUT_MS, req->timeout_ms);
		/* the kernel passes copies: the caller keeps and closes its own */
		cl->tx_fds = fds;
		cl->tx_nfds = IRDAD_ATTACH_NFDS;
		rc = call(cl, &wr, IRDAD_MSG_OK, IRNET_CLIENT_ATTACH_TIMEOUT_MS);
		cl->tx_fds = NULL;
		cl->tx_nfds = 0;
	}
	if (rc == 0 && !irdad_get_u32(&cl->msg.attrs, IRDAD_A_ENDPOINT_ID, endpoint_id))
		rc = refuse(cl, "OK to ATTACH seq %u without ENDPOINT_ID", cl->msg.seq);
	if (rc < 0)
		copy_error(cl->err, err, errlen);
	return rc;
}
