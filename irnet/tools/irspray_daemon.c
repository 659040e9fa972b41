/*
 * irspray_daemon.c: irspray through irdad (--daemon): the connections
 * come from irdad's API as sockets (CONNECT by class as a sender, LISTEN
 * on the four IrSpray classes as the listener) and the transfer, its
 * checks and its report are spray_xfer's, as when irspray owns the port.
 *
 * Times: a sender's stream starts when irdad hands over its socket.  Its
 * transmit time ends when the peer is known to hold every byte: with the
 * echo, when the last byte came back; with -d, when irdad ends the
 * connection after the sender's shutdown (irdad flushes what was written
 * before it disconnects).  The efficiency line uses --speed, since irdad
 * does not say the rate the link settled on.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "eloop.h"
#include "irnet_client.h"
#include "spray_xfer.h"
#include "tool_signals.h"

#define NCONNS (SPRAY_MAX_STREAMS * 2)
#define REQUEST_TIMEOUT_MS 10000

/* One connection's socket, either end. */
struct dconn {
	int fd;                    /* -1: slot free */
	bool sar;                  /* one read is one SDU (SOCK_SEQPACKET) */
	bool shut, done;
	uint32_t conn_id;
	size_t tx_max;
	struct spray_counts c;
	uint8_t held[SPRAY_MAX_SDU];  /* listener: echo bytes waiting for room */
	size_t held_len, held_off;
	char why[240];             /* irdad's DISCONNECTED text, if it came */
};

struct dspray {
	const struct spray_opts *o;
	struct irnet_client *cl;
	const char *where;
	struct dconn c[NCONNS];
	uint32_t listener[SPRAY_NCLASSES];
	bool bad, failed;
	uint64_t t_first, t_last;
};

static void dconn_close(struct dconn *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

static int nonblocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* DISCONNECTED events give a lost stream its reason; a listener's
 * CONNECTION is taken by the caller (listener). */
static void note_disconnect(struct dspray *ds, const struct irnet_event *ev)
{
	for (size_t i = 0; i < NCONNS; i++)
		if (ds->c[i].fd >= 0 && ds->c[i].conn_id == ev->conn_id)
			snprintf(ds->c[i].why, sizeof(ds->c[i].why), "IrLMP reason 0x%02x%s%s",
				 ev->reason, ev->text[0] ? ": " : "", ev->text);
}

/* Echo side: the held bytes go back (a whole SDU with SAR, what fits on a
 * stream).  False while some wait for room. */
static bool send_held(struct dconn *d)
{
	while (d->held_off < d->held_len) {
		ssize_t w = send(d->fd, d->held + d->held_off, d->held_len - d->held_off,
				 MSG_NOSIGNAL);

		if (w < 0)
			return false;
		d->held_off += (size_t)w;
		d->c.tx += (uint64_t)w;
	}
	d->held_len = d->held_off = 0;
	return true;
}

/* Reads what is there.  Returns 1 at EOF (or a failed socket), 0 otherwise. */
static int dconn_read(struct dspray *ds, struct dconn *d)
{
	uint8_t buf[SPRAY_MAX_SDU + 1];

	while (d->held_len == 0) {
		ssize_t n = recv(d->fd, buf, d->sar ? sizeof(buf) : SPRAY_MAX_SDU, 0);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : 1;
		if (n == 0)
			return 1;
		if ((size_t)n > SPRAY_MAX_SDU) {
			fprintf(stderr, "irspray: an SDU larger than %d bytes arrived\n",
				SPRAY_MAX_SDU);
			ds->bad = true;
			n = SPRAY_MAX_SDU;
		}
		spray_take(&d->c, buf, (size_t)n, eloop_now_us(), &ds->bad);
		if (d->c.echo) {
			memcpy(d->held, buf, (size_t)n);
			d->held_len = (size_t)n;
			d->held_off = 0;
			send_held(d);
		}
	}
	return 0;
}

/* Sender: writes while the socket takes them; -d: then shuts down. */
static void dconn_write(struct dspray *ds, struct dconn *d)
{
	uint8_t buf[SPRAY_MAX_SDU];

	while (d->c.tx < d->c.tx_goal) {
		size_t n = spray_next_write(&d->c, ds->o->size, SPRAY_MAX_SDU);
		ssize_t w;

		spray_fill(buf, n, d->c.tx);
		w = send(d->fd, buf, n, MSG_NOSIGNAL);
		if (w < 0)
			return;
		d->c.tx += (uint64_t)w;
	}
	if (ds->o->unidir && !d->shut) {
		shutdown(d->fd, SHUT_WR);
		d->shut = true;
	}
}

/* Drains the control socket's events; CONNECTION ones go to take(). */
static int drain_events(struct dspray *ds, void (*take)(struct dspray *, struct irnet_event *))
{
	struct irnet_event ev;
	int r;

	while ((r = irnet_client_next_event(ds->cl, &ev)) == 1) {
		if (ev.type == IRNET_EVENT_DISCONNECTED)
			note_disconnect(ds, &ev);
		else if (ev.type == IRNET_EVENT_CONNECTION && take)
			take(ds, &ev);
		else if (ev.fd >= 0)
			close(ev.fd);
	}
	if (r < 0)
		fprintf(stderr, "irspray: %s: %s\n", ds->where, irnet_client_error(ds->cl));
	return r;
}

static int open_stream(struct dspray *ds, unsigned i)
{
	const struct spray_opts *o = ds->o;
	bool stream = spray_stream_is_stream(o, i);
	struct irnet_connect_req req = {
		.class_name = spray_class_for(o, stream),
		.mode = stream ? IRDAD_MODE_STREAM : IRDAD_MODE_SAR,
		.max_sdu = stream ? 0 : SPRAY_MAX_SDU,
	};
	struct irnet_conn_info ci;
	struct dconn *d = &ds->c[i];
	int fd;

	if (irnet_client_connect(ds->cl, &req, &fd, &ci, (int)o->timeout_s * 1000) < 0) {
		fprintf(stderr, "irspray: %s: stream %u: connect to %s (%s): %s\n", ds->where,
			i + 1, req.class_name, spray_mode_name(stream), irnet_client_error(ds->cl));
		return -1;
	}
	d->fd = fd;
	d->conn_id = ci.conn_id;
	d->sar = ci.mode != IRDAD_MODE_STREAM;
	d->tx_max = ci.tx_max;
	spray_counts_init(o, &d->c, ci.mode == IRDAD_MODE_STREAM);
	d->c.t_start = eloop_now_us();
	if (!ds->t_first)
		ds->t_first = d->c.t_start;
	if (d->sar && o->size > ci.tx_max) {
		fprintf(stderr, "irspray: %s: -b %llu: the peer takes SDUs of at most %u bytes\n",
			ds->where, (unsigned long long)o->size, (unsigned)ci.tx_max);
		return -1;
	}
	if (nonblocking(fd) < 0) {
		fprintf(stderr, "irspray: %s: O_NONBLOCK: %s\n", ds->where, strerror(errno));
		return -1;
	}
	if (d->c.tx_goal == 0)
		d->c.t_tx_end = d->c.t_start;
	return 0;
}

/* A sender's stream is finished when the peer holds it all (see top). */
static void sender_progress(struct dspray *ds, struct dconn *d, bool eof)
{
	const struct spray_opts *o = ds->o;
	uint64_t now = eloop_now_us();

	if (!o->unidir && d->c.rx >= d->c.rx_goal && d->c.tx == d->c.tx_goal) {
		d->c.t_tx_end = now;
		d->done = true;
	} else if (o->unidir && d->c.tx == d->c.tx_goal && (eof || d->c.tx_goal == 0)) {
		d->c.t_tx_end = now;
		d->done = true;
	} else if (eof) {
		drain_events(ds, NULL);
		spray_lost(ds->where, (unsigned)(d - ds->c) + 1, &d->c, true, o->unidir,
			   d->why[0] ? d->why : "irdad ended the connection");
		ds->failed = true;
	}
	if (d->done) {
		ds->t_last = now;
		dconn_close(d);
	}
}

static int run_sender(struct dspray *ds)
{
	const struct spray_opts *o = ds->o;
	uint64_t deadline = eloop_now_us() + (uint64_t)o->timeout_s * 1000000u;

	/* irdad connects "any station" among those its last discovery
	 * found: discover first, as irspray owning the port does. */
	for (;;) {
		struct irnet_station st[1];
		size_t found = 0;
		uint64_t now = eloop_now_us();

		if (now >= deadline) {
			fprintf(stderr, "irspray: %s: no station in range within %u s\n", ds->where,
				o->timeout_s);
			return 1;
		}
		if (irnet_client_discover(ds->cl, true, st, 1, &found,
					  (int)((deadline - now) / 1000) + 1) < 0) {
			fprintf(stderr, "irspray: %s: discovery: %s\n", ds->where,
				irnet_client_error(ds->cl));
			return 1;
		}
		if (found)
			break;
	}
	for (unsigned i = 0; i < o->streams; i++)
		if (open_stream(ds, i) < 0)
			return 1;
	for (;;) {
		struct pollfd p[NCONNS + 1];
		struct dconn *which[NCONNS];
		size_t n = 0;
		uint64_t now = eloop_now_us();

		for (unsigned i = 0; i < o->streams; i++) {
			struct dconn *d = &ds->c[i];

			if (d->fd >= 0 && !d->done && d->c.tx_goal == 0)
				sender_progress(ds, d, false);
			if (d->fd < 0 || d->done)
				continue;
			which[n] = d;
			p[n++] = (struct pollfd){ .fd = d->fd, .events = (short)(POLLIN |
				(d->c.tx < d->c.tx_goal ? POLLOUT : 0)) };
		}
		if (ds->failed)
			return 1;
		if (n == 0)
			break;
		if (now >= deadline) {
			fprintf(stderr, "irspray: %s: not done within %u s\n", ds->where,
				o->timeout_s);
			return 1;
		}
		p[n] = (struct pollfd){ .fd = irnet_client_fd(ds->cl), .events = POLLIN };
		if (poll(p, n + 1, (int)((deadline - now) / 1000 + 1)) < 0 && errno != EINTR)
			return 1;
		for (size_t k = 0; k < n; k++) {
			struct dconn *d = which[k];
			bool eof = false;

			if (p[k].revents & POLLOUT)
				dconn_write(ds, d);
			if (p[k].revents & (POLLIN | POLLHUP | POLLERR))
				eof = dconn_read(ds, d) == 1;
			sender_progress(ds, d, eof);
		}
		if (p[n].revents && drain_events(ds, NULL) < 0)
			return 1;
	}
	{
		struct spray_counts c[SPRAY_MAX_STREAMS];

		for (unsigned i = 0; i < o->streams; i++)
			c[i] = ds->c[i].c;
		/* irdad chose it and logs it; the session does not say it */
		spray_summary(c, o->streams, o->unidir, ds->t_last - ds->t_first, o->h.speed,
			      "irdad's (its log says which)");
	}
	return ds->bad ? 1 : 0;
}

/* A listener's new connection (its class says echo or discard). */
static void take_connection(struct dspray *ds, struct irnet_event *ev)
{
	size_t which = SPRAY_NCLASSES;
	struct dconn *d = NULL;

	for (size_t i = 0; i < SPRAY_NCLASSES; i++)
		if (ds->listener[i] == ev->conn.listener_id)
			which = i;
	for (size_t i = 0; i < NCONNS && !d; i++)
		if (ds->c[i].fd < 0)
			d = &ds->c[i];
	if (!d || which == SPRAY_NCLASSES || nonblocking(ev->fd) < 0) {
		close(ev->fd);
		return;
	}
	*d = (struct dconn){ .fd = ev->fd, .conn_id = ev->conn.conn_id,
			     .sar = ev->conn.mode != IRDAD_MODE_STREAM, .tx_max = ev->conn.tx_max };
	d->c.echo = (which & 1) == 0;
	d->c.stream = ev->conn.mode == IRDAD_MODE_STREAM;
	d->c.t_start = eloop_now_us();
	if (ds->o->h.verbose)
		fprintf(stderr, "irspray: connection (%s, %s)\n", d->c.echo ? "echo" : "discard",
			spray_mode_name(d->c.stream));
}

static int run_listener(struct dspray *ds)
{
	const struct irnet_client_hello *h = irnet_client_hello(ds->cl);
	int sfd = tool_signals_fd(), rc = 1;

	if (sfd < 0) {
		fprintf(stderr, "irspray: signalfd: %s\n", strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < SPRAY_NCLASSES; i++) {
		bool stream = i / 2;
		struct irnet_listen_req req = {
			.mode = stream ? IRDAD_MODE_STREAM : IRDAD_MODE_SAR,
			.max_sdu = stream ? 0 : SPRAY_MAX_SDU,
			.class_name = spray_class[i / 2][i % 2],
		};
		uint8_t lsap;

		if (irnet_client_listen(ds->cl, &req, &ds->listener[i], &lsap,
					REQUEST_TIMEOUT_MS) < 0) {
			fprintf(stderr, "irspray: %s: cannot set up the %s listener: %s\n", ds->where,
				req.class_name, irnet_client_error(ds->cl));
			close(sfd);
			return 1;
		}
	}
	printf("listening on %s as %.*s\n", ds->where, (int)h->nickname_len,
	       (const char *)h->nickname);
	fflush(stdout);
	for (;;) {
		struct pollfd p[NCONNS + 2];
		struct dconn *which[NCONNS];
		size_t n = 0;

		if (drain_events(ds, take_connection) < 0)
			break;
		for (size_t i = 0; i < NCONNS; i++) {
			struct dconn *d = &ds->c[i];

			if (d->fd < 0)
				continue;
			which[n] = d;
			p[n++] = (struct pollfd){ .fd = d->fd,
				.events = d->held_len ? POLLOUT : POLLIN };
		}
		p[n] = (struct pollfd){ .fd = irnet_client_fd(ds->cl), .events = POLLIN };
		p[n + 1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (poll(p, n + 2, -1) < 0 && errno != EINTR)
			break;
		if (p[n + 1].revents) {
			rc = 0;
			break;
		}
		for (size_t k = 0; k < n; k++) {
			struct dconn *d = which[k];
			bool ended = false;

			if (d->held_len) {
				/* Waiting to echo: only room (or the end) matters. */
				ended = !send_held(d) && errno != EAGAIN && errno != EINTR;
			} else if (p[k].revents & (POLLIN | POLLHUP | POLLERR)) {
				ended = dconn_read(ds, d) == 1;
			}
			if (ended) {
				spray_report_served(&d->c);
				dconn_close(d);
			}
		}
	}
	for (size_t i = 0; i < NCONNS; i++)
		dconn_close(&ds->c[i]);
	close(sfd);
	return rc == 0 && !ds->bad ? 0 : 1;
}

int spray_daemon_run(const struct spray_opts *o, struct irnet_client *cl, const char *where)
{
	static struct dspray ds;
	int rc;

	ds = (struct dspray){ .o = o, .cl = cl, .where = where };
	for (size_t i = 0; i < NCONNS; i++)
		ds.c[i].fd = -1;
	rc = o->listen ? run_listener(&ds) : run_sender(&ds);
	for (size_t i = 0; i < NCONNS; i++)
		dconn_close(&ds.c[i]);
	if (ds.bad)
		fprintf(stderr, "irspray: %s: the data did not arrive intact\n", where);
	irnet_client_close(cl);
	return rc;
}
