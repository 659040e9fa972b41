/*
 * irsock.c: libirsock.so, AF_IRDA sockets for unmodified programs, on top
 * of irdad's local API (docs/irsock.md, docs/irdad-api.md).
 *
 * Owns: the interposed socket calls (socket, bind, listen, accept,
 * accept4, connect, getsockopt, setsockopt, getsockname, getpeername,
 * shutdown, close) and, per AF_IRDA descriptor, what the kernel kept in
 * its socket: the type, the bound name, the listener, the connection.
 * Every AF_IRDA socket is one irdad session (irnet_client); a connection
 * it accepts shares its listener's session.
 *
 * Does not own: the data path.  Once connected, the program's descriptor
 * IS the socket irdad passed (dup3 onto the program's number), so read,
 * write, send, recv, poll, select, epoll and fork need nothing from here.
 *
 * This is the one place in the tree with process-wide mutable state: an
 * interposition library has no caller to hand it a context.  It is one
 * struct (g), its table behind a mutex.  Nothing is printed except the
 * debug lines asked for with IRSOCK_DEBUG (through a struct logger).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "irnet_client.h"
#include "irsock_abi.h"
#include "irsock_conv.h"
#include "log.h"

#define EXPORT __attribute__((visibility("default")))

/* How long a control request may take (a fresh discovery is ~1 s, an
 * IAS query over a new link a few). */
#define REQ_TIMEOUT_MS 15000
/* connect(): irdad gives up first and says why. */
#define CONNECT_TIMEOUT_MS 20000
#define IAS_SET_MAX 16

enum ent_state { ST_NEW, ST_LISTENING, ST_CONNECTING, ST_CONNECTED, ST_FAILED };

static const char *const state_names[] = { "new", "listening", "connecting", "connected",
					   "failed" };

/* A pending connection read off a listener's session early. */
struct pending {
	int fd;
	struct irnet_conn_info ci;
};

/* One irdad session, shared by a listener and the connections it gave. */
struct sess {
	struct irnet_client *cl;
	pthread_mutex_t lock;     /* one call at a time on cl */
	int refs;                 /* under g.lock */
	struct pending pend[32];  /* connections not yet accepted */
	size_t npend;
	/* A listener's: one byte in this pipe per pending connection (its
	 * read end is the program's descriptor), and the thread that reads
	 * the control socket meanwhile, stopped through stop_w. */
	int ready_w, stop_w, watch_stop_r;
	bool watching;
	pid_t pid;                /* the process that opened it (fork copies it) */
	pthread_t watcher;
};

struct ias_rec {
	char class_name[IRSOCK_IAS_CLASS_MAX + 1];
	char attr[IRSOCK_IAS_ATTR_MAX + 1];
	uint32_t obj_id;
};

/* What the kernel kept in one AF_IRDA socket. */
struct ent {
	int refs;                 /* under g.lock: the table + calls running */
	bool closed;
	pthread_mutex_t lock;     /* the fields below */
	int type;                 /* SOCK_STREAM or SOCK_SEQPACKET */
	enum ent_state st;
	struct sess *s;
	bool bound;
	char name[IRSOCK_NAME_MAX];
	uint8_t bind_lsap;
	uint32_t listener_id;
	uint8_t lsap;             /* ours, once listening or connected */
	struct irnet_conn_info ci;
	uint32_t saddr;
	uint16_t mask;            /* HINT_MASK_SET */
	int err;                  /* a non-blocking connect's result */
	int wake_w;               /* ... the write end of the pipe its descriptor shows meanwhile */
	struct ias_rec ias[IAS_SET_MAX];
	size_t nias;
};

struct real_calls {
	int (*socket)(int, int, int);
	int (*bind)(int, const struct sockaddr *, socklen_t);
	int (*listen)(int, int);
	int (*accept4)(int, struct sockaddr *, socklen_t *, int);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	int (*getsockopt)(int, int, int, void *, socklen_t *);
	int (*setsockopt)(int, int, int, const void *, socklen_t);
	int (*getsockname)(int, struct sockaddr *, socklen_t *);
	int (*getpeername)(int, struct sockaddr *, socklen_t *);
	int (*shutdown)(int, int);
	int (*close)(int);
};

static struct {
	pthread_once_t once;
	pthread_mutex_t lock;     /* the table and every refs */
	struct ent **tab;
	size_t ntab;
	struct real_calls real;
	struct logger log;
	bool debug;
	bool hinted;
} g = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER };

/* --- set-up and the table ---------------------------------------------- */

static void *next_sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void init_once(void)
{
	g.real.socket = (int (*)(int, int, int))next_sym("socket");
	g.real.bind = (int (*)(int, const struct sockaddr *, socklen_t))next_sym("bind");
	g.real.listen = (int (*)(int, int))next_sym("listen");
	g.real.accept4 = (int (*)(int, struct sockaddr *, socklen_t *, int))next_sym("accept4");
	g.real.connect = (int (*)(int, const struct sockaddr *, socklen_t))next_sym("connect");
	g.real.getsockopt = (int (*)(int, int, int, void *, socklen_t *))next_sym("getsockopt");
	g.real.setsockopt = (int (*)(int, int, int, const void *, socklen_t))next_sym("setsockopt");
	g.real.getsockname = (int (*)(int, struct sockaddr *, socklen_t *))next_sym("getsockname");
	g.real.getpeername = (int (*)(int, struct sockaddr *, socklen_t *))next_sym("getpeername");
	g.real.shutdown = (int (*)(int, int))next_sym("shutdown");
	g.real.close = (int (*)(int))next_sym("close");

	const char *dbg = getenv("IRSOCK_DEBUG");
	g.debug = dbg && *dbg && strcmp(dbg, "0") != 0;
	g.log.sink = g.debug ? log_sink_stdio : NULL;
	g.log.ctx = stderr;
	g.log.max = LOG_LEVEL_DEBUG;
	g.log.prefix = "irsock";
}

static void init(void)
{
	pthread_once(&g.once, init_once);
}

static struct ent *ent_get(int fd)
{
	struct ent *e = NULL;

	if (fd < 0)
		return NULL;
	pthread_mutex_lock(&g.lock);
	if ((size_t)fd < g.ntab && g.tab[fd]) {
		e = g.tab[fd];
		e->refs++;
	}
	pthread_mutex_unlock(&g.lock);
	return e;
}

/* Drops a reference; true when it was the last (then sess_finish()). */
static bool sess_unref_locked(struct sess *s)
{
	return --s->refs == 0;
}

/* Ends a session.  The connections it handed over are not ended with it:
 * irdad keeps each until its descriptor closes and its bridge has sent
 * what the program wrote (docs/irdad-api.md), as the kernel went on
 * sending after close(). */
static void sess_finish(struct sess *s)
{
	/* In a child made by fork() the watcher thread does not exist, and
	 * the connections are still the parent's: close our copies only. */
	bool owner = getpid() == s->pid;
	if (s->watching) {
		g.real.close(s->stop_w);   /* the watcher sees it hang up */
		if (owner)
			pthread_join(s->watcher, NULL);   /* it closes its end */
		else
			g.real.close(s->watch_stop_r);
		s->watching = false;
	}
	if (s->ready_w >= 0)
		g.real.close(s->ready_w);
	for (size_t i = 0; i < s->npend; i++)
		g.real.close(s->pend[i].fd);
	irnet_client_close(s->cl);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static void ent_put(struct ent *e)
{
	pthread_mutex_lock(&g.lock);
	bool last = --e->refs == 0;
	bool finish = last && e->s && sess_unref_locked(e->s);
	pthread_mutex_unlock(&g.lock);
	if (!last)
		return;
	if (e->wake_w >= 0)
		g.real.close(e->wake_w);
	if (finish)
		sess_finish(e->s);   /* irdad drops the session's listeners, IAS objects */
	pthread_mutex_destroy(&e->lock);
	free(e);
}

/* Puts e at fd (the table holds one reference). */
static int table_set(int fd, struct ent *e)
{
	int rc = 0;

	pthread_mutex_lock(&g.lock);
	if ((size_t)fd >= g.ntab) {
		size_t n = g.ntab ? g.ntab : 64;
		while (n <= (size_t)fd)
			n *= 2;
		struct ent **t = realloc(g.tab, n * sizeof(*t));
		if (!t) {
			rc = -ENOMEM;
			goto out;
		}
		memset(t + g.ntab, 0, (n - g.ntab) * sizeof(*t));
		g.tab = t;
		g.ntab = n;
	}
	g.tab[fd] = e;
	e->refs++;
out:
	pthread_mutex_unlock(&g.lock);
	return rc;
}

static struct ent *table_take(int fd)
{
	struct ent *e = NULL;

	pthread_mutex_lock(&g.lock);
	if (fd >= 0 && (size_t)fd < g.ntab) {
		e = g.tab[fd];
		g.tab[fd] = NULL;
	}
	pthread_mutex_unlock(&g.lock);
	return e;
}

static struct ent *ent_new(int type, struct sess *s)
{
	struct ent *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	pthread_mutex_init(&e->lock, NULL);
	e->refs = 1;              /* the caller's */
	e->type = type;
	e->s = s;
	e->mask = 0xffff;
	e->wake_w = -1;
	return e;
}

static void set_state(struct ent *e, int fd, enum ent_state st, const char *event)
{
	log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: %s --%s--> %s", fd, state_names[e->st], event,
		state_names[st]);
	e->st = st;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

static int unsupported(int fd, const char *call, int err)
{
	log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: %s is not supported (%s)", fd, call,
		strerror(err));
	return fail(err);
}

static bool fd_nonblocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl >= 0 && (fl & O_NONBLOCK);
}

/* --- the session --------------------------------------------------------- */

/* The control socket: IRSOCK_DAEMON (irsock --daemon), else the first
 * PORT.sock in /run/irnet. */
static int daemon_path(char *out, size_t cap)
{
	const char *env = getenv("IRSOCK_DAEMON");
	if (env && *env) {
		if ((size_t)snprintf(out, cap, "%s", env) >= cap)
			return -ENAMETOOLONG;
		return 0;
	}
	DIR *d = opendir(IRNET_CLIENT_RUN_DIR);
	if (!d)
		return -ENOENT;
	char best[256] = "";
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 6 || n >= sizeof(best) || strcmp(de->d_name + n - 5, ".sock") != 0)
			continue;
		if (!best[0] || strcmp(de->d_name, best) < 0)
			memcpy(best, de->d_name, n + 1);
	}
	closedir(d);
	if (!best[0])
		return -ENOENT;
	if ((size_t)snprintf(out, cap, "%s/%s", IRNET_CLIENT_RUN_DIR, best) >= cap)
		return -ENAMETOOLONG;
	return 0;
}

static struct sess *sess_open(void)
{
	char path[256], err[256] = "";
	struct irnet_client *cl = NULL;
	int rc = daemon_path(path, sizeof(path));

	if (rc == 0) {
		char name[33];
		snprintf(name, sizeof(name), "%s", program_invocation_short_name);
		rc = irnet_client_open(path, name, &cl, err, sizeof(err));
	} else {
		snprintf(err, sizeof(err), "no control socket in %s and IRSOCK_DAEMON not set",
			 IRNET_CLIENT_RUN_DIR);
	}
	if (rc < 0) {
		if (g.debug && !g.hinted) {
			g.hinted = true;
			fprintf(stderr,
				"irsock: no irdad to talk to (%s): AF_IRDA sockets fail with "
				"EAFNOSUPPORT; start irdad, or give its socket with irsock --daemon\n",
				err);
		}
		return NULL;
	}
	struct sess *s = calloc(1, sizeof(*s));
	if (!s) {
		irnet_client_close(cl);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->cl = cl;
	s->refs = 1;
	s->ready_w = s->stop_w = -1;
	s->pid = getpid();
	irnet_client_set_logger(cl, &g.log);
	return s;
}

/* Takes the events read off the session so far: connections are kept
 * for accept (and the listener's descriptor made readable), the rest
 * (DISCONNECTED of connections handed over) dropped.  With wait_ms >= 0
 * it also reads the control socket, waiting that long.  Under s->lock;
 * returns the session's error, or 0. */
static int sess_drain_wait(struct sess *s, int wait_ms)
{
	struct irnet_event ev;
	int r;

	while ((wait_ms >= 0 || irnet_client_queued(s->cl) > 0) &&
	       (r = irnet_client_wait_event(s->cl, &ev, wait_ms < 0 ? 0 : wait_ms)) != 0) {
		if (r < 0)
			return r;
		wait_ms = wait_ms < 0 ? -1 : 0;
		if (ev.type == IRNET_EVENT_CONNECTION && ev.fd >= 0) {
			if (s->npend < sizeof(s->pend) / sizeof(s->pend[0]) && s->ready_w >= 0 &&
			    write(s->ready_w, "c", 1) == 1) {
				s->pend[s->npend].fd = ev.fd;
				s->pend[s->npend].ci = ev.conn;
				s->npend++;
			} else {
				g.real.close(ev.fd);   /* past the backlog: refused */
			}
		} else if (ev.fd >= 0) {
			g.real.close(ev.fd);
		}
	}
	return 0;
}

static void sess_drain(struct sess *s)
{
	sess_drain_wait(s, -1);
}

/* A listener's watcher: reads the control socket whenever irdad sends
 * something, so that a pending connection makes the program's
 * descriptor readable even while the program is not in a call. */
static void *watch_thread(void *arg)
{
	struct sess *s = arg;
	int cfd = irnet_client_fd(s->cl);
	int stop_r = s->watch_stop_r;
	for (;;) {
		struct pollfd p[2] = { { .fd = cfd, .events = POLLIN }, { .fd = stop_r, .events = POLLIN } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		pthread_mutex_lock(&s->lock);
		int r = sess_drain_wait(s, 0);
		pthread_mutex_unlock(&s->lock);
		if (r < 0) {
			/* irdad went away: a hang-up on the listener (accept
			 * then fails) */
			log_msg(&g.log, LOG_LEVEL_DEBUG, "listener session: %s",
				irnet_client_error(s->cl));
			pthread_mutex_lock(&s->lock);
			if (s->ready_w >= 0) {
				g.real.close(s->ready_w);
				s->ready_w = -1;
			}
			pthread_mutex_unlock(&s->lock);
			break;
		}
	}
	g.real.close(stop_r);
	return NULL;
}

/* --- socket ------------------------------------------------------------- */

EXPORT int socket(int domain, int type, int protocol)
{
	init();
	if (domain != IRSOCK_AF)
		return g.real.socket(domain, type, protocol);

	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct sess *s = sess_open();
	if (!s)
		return fail(EAFNOSUPPORT);   /* as a kernel without IrDA */
	if (base == SOCK_DGRAM || (base != SOCK_STREAM && base != SOCK_SEQPACKET)) {
		sess_finish(s);
		if (base == SOCK_DGRAM)
			return unsupported(-1, "socket(SOCK_DGRAM) (irdad's MODE lmp is not used yet)",
					   EPROTONOSUPPORT);
		return unsupported(-1, "socket() of this type", ESOCKTNOSUPPORT);
	}
	/* Until it connects, the program's descriptor is a copy of the
	 * session's control socket: readable when irdad sends something,
	 * which for a listener is a connection to accept. */
	int fd = fcntl(irnet_client_fd(s->cl), (type & SOCK_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
	struct ent *e = fd >= 0 ? ent_new(base, s) : NULL;
	if (!e || table_set(fd, e) < 0) {
		int err = fd < 0 ? errno : ENOMEM;
		if (fd >= 0)
			g.real.close(fd);
		sess_finish(s);
		free(e);
		return fail(err);
	}
	ent_put(e);   /* the table keeps it */
	if (type & SOCK_NONBLOCK)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: socket(AF_IRDA, %s)", fd,
		base == SOCK_STREAM ? "SOCK_STREAM" : "SOCK_SEQPACKET");
	return fd;
}

/* --- bind, listen, accept ----------------------------------------------- */

EXPORT int bind(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	init();
	struct ent *e = ent_get(fd);
	if (!e)
		return g.real.bind(fd, addr.__sockaddr__, len);

	int rc = 0;
	struct sockaddr_irda sa;
	pthread_mutex_lock(&e->lock);
	if (len != sizeof(sa) || !addr.__sockaddr__) {
		rc = EINVAL;
	} else if (e->st != ST_NEW || e->bound) {
		rc = EINVAL;
	} else {
		memcpy(&sa, addr.__sockaddr__, sizeof(sa));
		irsock_copy_name(e->name, sizeof(e->name), sa.sir_name, sizeof(sa.sir_name));
		e->bind_lsap = sa.sir_lsap_sel;
		e->bound = true;
		log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: bind(\"%s\", LSAP %#x)", fd, e->name,
			sa.sir_lsap_sel);
	}
	pthread_mutex_unlock(&e->lock);
	ent_put(e);
	return rc ? fail(rc) : 0;
}

/* What a bound name registers in IAS.  The kernel registered the name as
 * given, "" too, where no peer could find it by class; openobex binds ""
 * when its caller gave an empty service (obexftpd -i), meaning its
 * default, "OBEX" (docs/irsock.md). */
static const char *ias_class_for(const struct ent *e)
{
	if (!e->bound)
		return NULL;
	return e->name[0] ? e->name : "OBEX";
}

static int install(int fd, int datafd);

/* Sets up a listener's readiness pipe (onto fd) and its watcher; 0 or an
 * errno. */
static int start_watching(struct sess *s, int fd)
{
	int ready[2], stop[2];

	if (s->watching)
		return 0;
	if (pipe2(ready, O_CLOEXEC) < 0)
		return errno;
	if (pipe2(stop, O_CLOEXEC) < 0) {
		int err = errno;
		g.real.close(ready[0]);
		g.real.close(ready[1]);
		return err;
	}
	fcntl(ready[1], F_SETFL, O_NONBLOCK);
	int r = install(fd, ready[0]);
	if (r < 0) {
		g.real.close(ready[1]);
		g.real.close(stop[0]);
		g.real.close(stop[1]);
		return -r;
	}
	pthread_mutex_lock(&s->lock);
	s->ready_w = ready[1];
	s->stop_w = stop[1];
	s->watch_stop_r = stop[0];
	r = pthread_create(&s->watcher, NULL, watch_thread, s);
	s->watching = r == 0;
	pthread_mutex_unlock(&s->lock);
	if (r != 0) {
		g.real.close(stop[0]);
		g.real.close(stop[1]);
		s->stop_w = -1;
		return r;
	}
	return 0;
}

EXPORT int listen(int fd, int backlog)
{
	init();
	struct ent *e = ent_get(fd);
	if (!e)
		return g.real.listen(fd, backlog);

	int rc = 0;
	pthread_mutex_lock(&e->lock);
	if (e->st == ST_LISTENING)
		goto out;
	if (e->st != ST_NEW) {
		rc = EINVAL;
		goto out;
	}
	struct irnet_listen_req req = {
		.mode = e->type == SOCK_STREAM ? IRDAD_MODE_STREAM : IRDAD_MODE_SAR,
		.lsap = (e->bound && e->bind_lsap != IRSOCK_LSAP_ANY) ? e->bind_lsap : 0,
		.class_name = ias_class_for(e),
		.backlog = (uint8_t)(backlog < 1 ? 1 : backlog > 255 ? 255 : backlog),
	};
	/* The program's descriptor becomes the read end of a pipe holding a
	 * byte per pending connection, which a thread watching the control
	 * socket writes (see sess_drain_wait). */
	rc = start_watching(e->s, fd);
	if (rc)
		goto out;
	pthread_mutex_lock(&e->s->lock);
	int r = irnet_client_listen(e->s->cl, &req, &e->listener_id, &e->lsap, REQ_TIMEOUT_MS);
	if (r < 0)
		log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: listen: %s", fd,
			irnet_client_error(e->s->cl));
	else
		e->saddr = irnet_client_hello(e->s->cl)->addr;
	pthread_mutex_unlock(&e->s->lock);
	if (r < 0) {
		rc = -r;
		goto out;
	}
	set_state(e, fd, ST_LISTENING, "listen");
	log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: listening on LSAP %#x as \"%s\"", fd, e->lsap,
		req.class_name ? req.class_name : "");
out:
	pthread_mutex_unlock(&e->lock);
	ent_put(e);
	return rc ? fail(rc) : 0;
}

static void put_addr(__SOCKADDR_ARG addr, socklen_t *len, uint32_t a, uint8_t lsap)
{
	struct sockaddr_irda sa;

	if (!addr.__sockaddr__ || !len)
		return;
	irsock_make_addr(&sa, a, lsap);
	size_t n = *len < sizeof(sa) ? *len : sizeof(sa);
	memcpy(addr.__sockaddr__, &sa, n);
	*len = sizeof(sa);
}

EXPORT int accept4(int fd, __SOCKADDR_ARG addr, socklen_t *len, int flags)
{
	init();
	struct ent *e = ent_get(fd);
	if (!e)
		return g.real.accept4(fd, addr.__sockaddr__, len, flags);

	int rc = 0, cfd = -1;
	struct irnet_conn_info ci;
	struct sess *s = e->s;
	pthread_mutex_lock(&e->lock);
	bool listening = e->st == ST_LISTENING;
	int type = e->type;
	uint32_t saddr = e->saddr;
	pthread_mutex_unlock(&e->lock);
	if (!listening) {
		ent_put(e);
		return fail(EINVAL);
	}
	/* one byte in the readiness pipe per connection in s->pend */
	for (;;) {
		pthread_mutex_lock(&s->lock);
		if (s->npend > 0) {
			char b;
			cfd = s->pend[0].fd;
			ci = s->pend[0].ci;
			memmove(s->pend, s->pend + 1, --s->npend * sizeof(s->pend[0]));
			if (read(fd, &b, 1) != 1)
				log_msg(&g.log, LOG_LEVEL_WARNING, "fd %d: no readiness byte", fd);
			pthread_mutex_unlock(&s->lock);
			break;
		}
		bool dead = s->ready_w < 0;
		pthread_mutex_unlock(&s->lock);
		if (dead) {
			rc = ECONNABORTED;   /* irdad went away */
			break;
		}
		if (fd_nonblocking(fd)) {
			rc = EAGAIN;
			break;
		}
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, -1) < 0 && errno != EINTR) {
			rc = errno;
			break;
		}
	}
	if (rc) {
		ent_put(e);
		return fail(rc);
	}

	struct ent *c = ent_new(type, s);
	if (!c) {
		g.real.close(cfd);
		ent_put(e);
		return fail(ENOMEM);
	}
	pthread_mutex_lock(&g.lock);
	s->refs++;
	pthread_mutex_unlock(&g.lock);
	c->st = ST_CONNECTED;
	c->ci = ci;
	c->lsap = ci.lsap;
	c->saddr = saddr;
	if (!(flags & SOCK_CLOEXEC))
		fcntl(cfd, F_SETFD, 0);
	if (flags & SOCK_NONBLOCK)
		fcntl(cfd, F_SETFL, fcntl(cfd, F_GETFL) | O_NONBLOCK);
	if (table_set(cfd, c) < 0) {
		g.real.close(cfd);
		ent_put(c);   /* not in the table: this frees it */
		ent_put(e);
		return fail(ENOMEM);
	}
	ent_put(c);
	log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: accepted fd %d from %08x LSAP %#x (conn %u)", fd,
		cfd, ci.daddr, ci.peer_lsap, ci.conn_id);
	put_addr(addr, len, ci.daddr, ci.peer_lsap);
	ent_put(e);
	return cfd;
}

EXPORT int accept(int fd, __SOCKADDR_ARG addr, socklen_t *len)
{
	return accept4(fd, addr, len, 0);
}

/* --- connect ------------------------------------------------------------ */

/* The program's descriptor becomes the connection's socket: same number,
 * same O_NONBLOCK and FD_CLOEXEC as the program gave it. */
static int install(int fd, int datafd)
{
	bool nb = fd_nonblocking(fd);
	int fdfl = fcntl(fd, F_GETFD);
	int rc = dup3(datafd, fd, (fdfl >= 0 && (fdfl & FD_CLOEXEC)) ? O_CLOEXEC : 0);
	int err = errno;
	g.real.close(datafd);
	if (rc < 0)
		return -err;
	if (nb)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

struct connect_job {
	struct ent *e;
	int fd;
	struct irnet_connect_req req;
	char class_name[IRSOCK_NAME_MAX];
	bool by_any;
};

/* One CONNECT on e's session; 0 with *datafd, or af_irda's errno. */
static int do_connect(struct connect_job *j, int *datafd, struct irnet_conn_info *ci)
{
	struct sess *s = j->e->s;

	pthread_mutex_lock(&s->lock);
	int r = irnet_client_connect(s->cl, &j->req, datafd, ci, CONNECT_TIMEOUT_MS);
	int err = 0;
	if (r < 0) {
		err = irsock_connect_errno(r, irnet_client_error(s->cl), j->by_any);
		log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: connect: %s (%s)", j->fd,
			irnet_client_error(s->cl), strerror(err));
	} else {
	}
	uint32_t saddr = irnet_client_hello(s->cl)->addr;
	sess_drain(s);
	pthread_mutex_unlock(&s->lock);
	j->e->saddr = saddr;
	return err;
}

static void connected(struct ent *e, int fd, const struct irnet_conn_info *ci)
{
	e->ci = *ci;
	e->lsap = ci->lsap;
	set_state(e, fd, ST_CONNECTED, "connected");
	log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: connected to %08x LSAP %#x (conn %u, %s)", fd,
		ci->daddr, ci->peer_lsap, ci->conn_id,
		ci->mode == IRDAD_MODE_STREAM ? "stream" : "sar");
}

static void *connect_thread(void *arg)
{
	struct connect_job *j = arg;
	struct ent *e = j->e;
	struct irnet_conn_info ci;
	int datafd = -1;
	int err = do_connect(j, &datafd, &ci);

	pthread_mutex_lock(&e->lock);
	if (e->closed) {
		if (datafd >= 0)
			g.real.close(datafd);
	} else if (err == 0) {
		int r = install(j->fd, datafd);
		if (r < 0) {
			e->err = -r;
			set_state(e, j->fd, ST_FAILED, "failed");
		} else {
			connected(e, j->fd, &ci);
		}
	} else {
		e->err = err;
		set_state(e, j->fd, ST_FAILED, "failed");
	}
	/* Wakes a poll() waiting on that pipe: it looks at the
	 * descriptor again and finds the connection (POLLOUT), or the
	 * pipe's hang-up when the connect failed. */
	if (e->wake_w >= 0) {
		g.real.close(e->wake_w);
		e->wake_w = -1;
	}
	pthread_mutex_unlock(&e->lock);
	ent_put(e);
	free(j);
	return NULL;
}

/* Non-blocking connect: the program's descriptor becomes a pipe's read
 * end that never gets data (not readable, not writable) until a thread's
 * CONNECT ends. */
static int start_nonblocking(struct ent *e, int fd, struct connect_job *j)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return errno;
	int r = install(fd, p[0]);
	if (r < 0) {
		g.real.close(p[1]);
		return -r;
	}
	e->wake_w = p[1];
	e->err = 0;
	set_state(e, fd, ST_CONNECTING, "connect");
	pthread_mutex_lock(&g.lock);
	e->refs++;
	pthread_mutex_unlock(&g.lock);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_t t;
	r = pthread_create(&t, &at, connect_thread, j);
	pthread_attr_destroy(&at);
	if (r != 0) {
		ent_put(e);
		e->err = r;
		set_state(e, fd, ST_FAILED, "failed");
		g.real.close(e->wake_w);
		e->wake_w = -1;
		free(j);
	}
	return EINPROGRESS;
}

EXPORT int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	init();
	struct ent *e = ent_get(fd);
	if (!e)
		return g.real.connect(fd, addr.__sockaddr__, len);

	int rc = 0;
	struct sockaddr_irda sa;
	pthread_mutex_lock(&e->lock);
	switch (e->st) {
	case ST_CONNECTED:
		rc = EISCONN;
		goto out;
	case ST_CONNECTING:
		rc = EALREADY;
		goto out;
	case ST_LISTENING:
		rc = EINVAL;
		goto out;
	case ST_FAILED:
		if (e->err) {     /* the result not yet taken with SO_ERROR */
			rc = e->err;
			e->err = 0;
			goto out;
		}
		break;
	case ST_NEW:
		break;
	}
	if (len != sizeof(sa) || !addr.__sockaddr__) {
		rc = EINVAL;
		goto out;
	}
	memcpy(&sa, addr.__sockaddr__, sizeof(sa));
	struct connect_job *j = calloc(1, sizeof(*j));
	if (!j) {
		rc = ENOMEM;
		goto out;
	}
	j->e = e;
	j->fd = fd;
	irsock_copy_name(j->class_name, sizeof(j->class_name), sa.sir_name, sizeof(sa.sir_name));
	j->by_any = sa.sir_addr == 0 || sa.sir_addr == IRSOCK_ADDR_ANY;
	j->req.daddr = j->by_any ? 0 : sa.sir_addr;
	j->req.mode = e->type == SOCK_STREAM ? IRDAD_MODE_STREAM : IRDAD_MODE_SAR;
	if (j->class_name[0] || sa.sir_lsap_sel >= 0x70 || j->by_any) {
		if (!j->class_name[0]) {   /* af_irda looked for "" and found nothing */
			free(j);
			rc = EADDRNOTAVAIL;
			goto out;
		}
		j->req.class_name = j->class_name;
	} else {
		j->req.lsap = sa.sir_lsap_sel;
	}
	log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: connect(%08x, \"%s\", LSAP %#x)%s", fd,
		j->req.daddr, j->class_name, sa.sir_lsap_sel, fd_nonblocking(fd) ? " non-blocking" : "");
	if (fd_nonblocking(fd)) {
		rc = start_nonblocking(e, fd, j);
		goto out;
	}
	/* Blocking: the entry stays locked; a second thread's call on the
	 * same socket waits, as on a kernel socket being connected. */
	struct irnet_conn_info ci;
	int datafd = -1;
	rc = do_connect(j, &datafd, &ci);
	if (rc == 0) {
		int r = install(fd, datafd);
		if (r < 0)
			rc = -r;
		else
			connected(e, fd, &ci);
	}
	free(j);
out:
	pthread_mutex_unlock(&e->lock);
	ent_put(e);
	return rc ? fail(rc) : 0;
}

/* --- socket options -------------------------------------------------------- */

static int opt_enumdevices(struct ent *e, void *val, socklen_t *len)
{
	struct irnet_station st[IRNET_CLIENT_STATIONS_MAX];
	size_t n = 0;
	struct sess *s = e->s;

	if (!val || !len)
		return EFAULT;
	pthread_mutex_lock(&s->lock);
	/* The kernel answered from its discovery log; irdad's last result
	 * is that log, and an empty one asks for a discovery now. */
	int r = irnet_client_discover(s->cl, false, st, IRNET_CLIENT_STATIONS_MAX, &n,
				      REQ_TIMEOUT_MS);
	if (r >= 0 && n == 0)
		r = irnet_client_discover(s->cl, true, st, IRNET_CLIENT_STATIONS_MAX, &n,
					  REQ_TIMEOUT_MS);
	uint32_t saddr = irnet_client_hello(s->cl)->addr;
	sess_drain(s);
	pthread_mutex_unlock(&s->lock);
	if (r < 0)
		return EAGAIN;
	if (n > IRNET_CLIENT_STATIONS_MAX)
		n = IRNET_CLIENT_STATIONS_MAX;
	r = irsock_fill_devices(val, *len, saddr, st, n, e->mask);
	log_msg(&g.log, LOG_LEVEL_DEBUG, "IRLMP_ENUMDEVICES (%u bytes): %zu station(s), %d",
		(unsigned)*len, n, r);
	if (r < 0)
		return -r;
	*len = (socklen_t)r;
	return 0;
}

static int opt_ias_query(struct ent *e, void *val, socklen_t *len)
{
	struct irda_ias_set set;
	char cls[IRSOCK_IAS_CLASS_MAX + 1], attr[IRSOCK_IAS_ATTR_MAX + 1];
	struct irnet_ias_value v;
	size_t n = 0;

	if (!val || !len || *len != sizeof(set))
		return EINVAL;
	memcpy(&set, val, sizeof(set));
	uint32_t daddr = e->st == ST_CONNECTED ? e->ci.daddr : set.daddr;
	if (daddr == 0 || daddr == IRSOCK_ADDR_ANY)
		return EINVAL;
	irsock_copy_name(cls, sizeof(cls), set.irda_class_name, sizeof(set.irda_class_name));
	irsock_copy_name(attr, sizeof(attr), set.irda_attrib_name, sizeof(set.irda_attrib_name));
	pthread_mutex_lock(&e->s->lock);
	int r = irnet_client_ias_query(e->s->cl, daddr, cls, attr, &v, 1, &n, REQ_TIMEOUT_MS);
	if (r < 0)
		log_msg(&g.log, LOG_LEVEL_DEBUG, "IRLMP_IAS_QUERY %08x \"%s\" \"%s\": %s", daddr,
			cls, attr, irnet_client_error(e->s->cl));
	sess_drain(e->s);
	pthread_mutex_unlock(&e->s->lock);
	if (r < 0)
		return irsock_ias_errno(r);
	if (n == 0)
		return EADDRNOTAVAIL;
	if (irsock_fill_ias_value(&set, &v) < 0)
		return EINVAL;
	memcpy(val, &set, sizeof(set));
	log_msg(&g.log, LOG_LEVEL_DEBUG, "IRLMP_IAS_QUERY %08x \"%s\" \"%s\": type %u", daddr, cls,
		attr, set.irda_attrib_type);
	return 0;
}

static int opt_int(void *val, socklen_t *len, int v)
{
	if (!val || !len || *len < sizeof(int))
		return EINVAL;
	memcpy(val, &v, sizeof(v));
	*len = sizeof(int);
	return 0;
}

static int irlmp_getsockopt(struct ent *e, int fd, int name, void *val, socklen_t *len)
{
	switch (name) {
	case IRSOCK_OPT_ENUMDEVICES:
		return opt_enumdevices(e, val, len);
	case IRSOCK_OPT_IAS_QUERY:
		return opt_ias_query(e, val, len);
	case IRSOCK_OPT_MAX_SDU_SIZE: {
		/* af_irda's max_data_size: the peer's MaxSduSize with SAR,
		 * the largest segment without; 0 before a connection */
		uint32_t v = 0;
		if (e->st == ST_CONNECTED)
			v = e->type == SOCK_SEQPACKET && e->ci.peer_max_sdu ? e->ci.peer_max_sdu :
									     e->ci.tx_max;
		return opt_int(val, len, (int)v);
	}
	default:
		unsupported(fd, "getsockopt(SOL_IRLMP) of this option", ENOPROTOOPT);
		return ENOPROTOOPT;
	}
}

EXPORT int getsockopt(int fd, int level, int name, void *restrict val, socklen_t *restrict len)
{
	init();
	struct ent *e = ent_get(fd);
	if (!e)
		return g.real.getsockopt(fd, level, name, val, len);

	int rc;
	pthread_mutex_lock(&e->lock);
	if (level == IRSOCK_SOL_IRLMP) {
		rc = irlmp_getsockopt(e, fd, name, val, len);
	} else if (level == SOL_SOCKET && name == SO_ERROR && e->st == ST_CONNECTED) {
		/* the connection's own socket holds its errors (a reset after a
		 * lost link: ECONNRESET, taken once, as af_irda's sk->err) */
		pthread_mutex_unlock(&e->lock);
		ent_put(e);
		return g.real.getsockopt(fd, level, name, val, len);
	} else if (level == SOL_SOCKET && name == SO_ERROR) {
		rc = opt_int(val, len, e->st == ST_FAILED ? e->err : 0);
		if (rc == 0 && e->st == ST_FAILED) {
			e->err = 0;
			set_state(e, fd, ST_NEW, "SO_ERROR");
		}
	} else if (level == SOL_SOCKET && name == SO_TYPE) {
		rc = opt_int(val, len, e->type);
	} else if (level == SOL_SOCKET && name == SO_DOMAIN) {
		rc = opt_int(val, len, IRSOCK_AF);
	} else if (level == SOL_SOCKET && name == SO_PROTOCOL) {
		rc = opt_int(val, len, 0);
	} else if (level == SOL_SOCKET) {
		pthread_mutex_unlock(&e->lock);
		ent_put(e);
		return g.real.getsockopt(fd, level, name, val, len);
	} else {
		rc = ENOPROTOOPT;   /* af_irda knew nothing but SOL_IRLMP */
		unsupported(fd, "getsockopt() at this level", rc);
	}
	pthread_mutex_unlock(&e->lock);
	ent_put(e);
	return rc ? fail(rc) : 0;
}

static int opt_ias_set(struct ent *e, int fd, const void *val, socklen_t len)
{
	struct irda_ias_set set;
	struct irnet_ias_attr a;
	char cls[IRSOCK_IAS_CLASS_MAX + 1], attr[IRSOCK_IAS_ATTR_MAX + 1];

	if (!val || len != sizeof(set))
		return EINVAL;
	memcpy(&set, val, sizeof(set));
	irsock_copy_name(cls, sizeof(cls), set.irda_class_name, sizeof(set.irda_class_name));
	irsock_copy_name(attr, sizeof(attr), set.irda_attrib_name, sizeof(set.irda_attrib_name));
	if (!cls[0]) {   /* "": the object of the socket's own bind */
		const char *own = ias_class_for(e);
		if (!own)
			return EINVAL;
		snprintf(cls, sizeof(cls), "%s", own);
	}
	if (irsock_ias_attr_from_set(&set, &a) < 0 || e->nias >= IAS_SET_MAX)
		return EINVAL;
	a.name = attr;
	uint32_t obj = 0;
	pthread_mutex_lock(&e->s->lock);
	int r = irnet_client_ias_add(e->s->cl, cls, &a, 1, &obj, REQ_TIMEOUT_MS);
	if (r < 0)
		log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: IRLMP_IAS_SET \"%s\" \"%s\": %s", fd, cls,
			attr, irnet_client_error(e->s->cl));
	sess_drain(e->s);
	pthread_mutex_unlock(&e->s->lock);
	if (r < 0)
		return -r;
	struct ias_rec *rec = &e->ias[e->nias++];
	snprintf(rec->class_name, sizeof(rec->class_name), "%s", cls);
	snprintf(rec->attr, sizeof(rec->attr), "%s", attr);
	rec->obj_id = obj;
	log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: IRLMP_IAS_SET \"%s\" \"%s\" (object %u)", fd, cls,
		attr, obj);
	return 0;
}

static int opt_ias_del(struct ent *e, int fd, const void *val, socklen_t len)
{
	struct irda_ias_set set;
	char cls[IRSOCK_IAS_CLASS_MAX + 1], attr[IRSOCK_IAS_ATTR_MAX + 1];

	if (!val || len != sizeof(set))
		return EINVAL;
	memcpy(&set, val, sizeof(set));
	irsock_copy_name(cls, sizeof(cls), set.irda_class_name, sizeof(set.irda_class_name));
	irsock_copy_name(attr, sizeof(attr), set.irda_attrib_name, sizeof(set.irda_attrib_name));
	if (!cls[0] && ias_class_for(e))
		snprintf(cls, sizeof(cls), "%s", ias_class_for(e));
	for (size_t i = 0; i < e->nias; i++) {
		if (strcmp(e->ias[i].class_name, cls) != 0 || strcmp(e->ias[i].attr, attr) != 0)
			continue;
		pthread_mutex_lock(&e->s->lock);
		int r = irnet_client_ias_remove(e->s->cl, e->ias[i].obj_id, REQ_TIMEOUT_MS);
		sess_drain(e->s);
		pthread_mutex_unlock(&e->s->lock);
		if (r < 0)
			return -r;
		e->ias[i] = e->ias[--e->nias];
		log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: IRLMP_IAS_DEL \"%s\" \"%s\"", fd, cls,
			attr);
		return 0;
	}
	return EINVAL;   /* as the kernel for an object or attribute it lacks */
}

/* The kernel took the option's first two bytes in memory as the first
 * and second hint bytes (a u16 in host order, as its IRLMP_ENUMDEVICES
 * gives them back); irdad adds them to its own for as long as the
 * socket's session lives. */
static int opt_hints_set(struct ent *e, int fd, const void *val)
{
	uint8_t b[2];

	memcpy(b, val, sizeof(b));
	/* a third byte (b[1]'s extension bit) is not announced: drop the bit */
	uint16_t hints = (uint16_t)((b[0] << 8 | b[1]) & 0xff7f);
	pthread_mutex_lock(&e->s->lock);
	int r = irnet_client_hints(e->s->cl, hints, REQ_TIMEOUT_MS);
	sess_drain(e->s);
	pthread_mutex_unlock(&e->s->lock);
	log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: IRLMP_HINTS_SET %02x %02x: %s", fd, b[0], b[1],
		r < 0 ? strerror(-r) : "irdad adds them");
	return r < 0 ? -r : 0;
}

static int irlmp_setsockopt(struct ent *e, int fd, int name, const void *val, socklen_t len)
{
	int opt;

	switch (name) {
	case IRSOCK_OPT_IAS_SET:
		return opt_ias_set(e, fd, val, len);
	case IRSOCK_OPT_IAS_DEL:
		return opt_ias_del(e, fd, val, len);
	case IRSOCK_OPT_HINTS_SET:
		if (!val || len < sizeof(int))
			return EINVAL;
		return opt_hints_set(e, fd, val);
	case IRSOCK_OPT_HINT_MASK_SET:
		if (!val || len < sizeof(int))
			return EINVAL;
		memcpy(&opt, val, sizeof(opt));
		e->mask = (uint16_t)(opt & 0x7f7f);
		if (!e->mask)
			e->mask = 0xffff;
		log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: IRLMP_HINT_MASK_SET %#06x", fd, e->mask);
		return 0;
	default:
		unsupported(fd, "setsockopt(SOL_IRLMP) of this option", ENOPROTOOPT);
		return ENOPROTOOPT;
	}
}

EXPORT int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	init();
	struct ent *e = ent_get(fd);
	if (!e)
		return g.real.setsockopt(fd, level, name, val, len);

	int rc;
	if (level == SOL_SOCKET) {
		/* buffers, timeouts: the descriptor's own business */
		ent_put(e);
		return g.real.setsockopt(fd, level, name, val, len);
	}
	pthread_mutex_lock(&e->lock);
	if (level == IRSOCK_SOL_IRLMP) {
		rc = irlmp_setsockopt(e, fd, name, val, len);
	} else {
		rc = ENOPROTOOPT;
		unsupported(fd, "setsockopt() at this level", rc);
	}
	pthread_mutex_unlock(&e->lock);
	ent_put(e);
	return rc ? fail(rc) : 0;
}

/* --- names, shutdown, close --------------------------------------------- */

EXPORT int getsockname(int fd, __SOCKADDR_ARG addr, socklen_t *len)
{
	init();
	struct ent *e = ent_get(fd);
	if (!e)
		return g.real.getsockname(fd, addr.__sockaddr__, len);
	pthread_mutex_lock(&e->lock);
	put_addr(addr, len, e->saddr, e->lsap);
	pthread_mutex_unlock(&e->lock);
	ent_put(e);
	return 0;
}

EXPORT int getpeername(int fd, __SOCKADDR_ARG addr, socklen_t *len)
{
	init();
	struct ent *e = ent_get(fd);
	if (!e)
		return g.real.getpeername(fd, addr.__sockaddr__, len);
	int rc = 0;
	pthread_mutex_lock(&e->lock);
	if (e->st != ST_CONNECTED)
		rc = ENOTCONN;
	else
		put_addr(addr, len, e->ci.daddr, e->ci.peer_lsap);
	pthread_mutex_unlock(&e->lock);
	ent_put(e);
	return rc ? fail(rc) : 0;
}

EXPORT int shutdown(int fd, int how)
{
	init();
	struct ent *e = ent_get(fd);
	if (!e)
		return g.real.shutdown(fd, how);
	pthread_mutex_lock(&e->lock);
	bool conn = e->st == ST_CONNECTED;
	pthread_mutex_unlock(&e->lock);
	ent_put(e);
	/* a connected descriptor is the connection's socket: shutting it
	 * down is the kernel's; anything else is not a connection yet (and
	 * must not shut the control socket behind it down) */
	return conn ? g.real.shutdown(fd, how) : fail(ENOTCONN);
}

/* Another descriptor of this process open on the same socket as fd (a
 * dup the program made), or -1.  Only for a connected fd: before that,
 * the library holds copies of what the descriptor is. */
static int find_alias(int fd)
{
	struct stat me;
	if (fstat(fd, &me) < 0)
		return -1;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	int found = -1;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long n = strtol(de->d_name, &end, 10);
		if (*end || end == de->d_name || n == fd || n == dirfd(d))
			continue;
		struct stat st;
		if (fstat((int)n, &st) == 0 && st.st_dev == me.st_dev && st.st_ino == me.st_ino) {
			found = (int)n;
			break;
		}
	}
	closedir(d);
	return found;
}

EXPORT int close(int fd)
{
	init();
	struct ent *e = table_take(fd);
	if (!e)
		return g.real.close(fd);

	/* A dup of the socket stays open: the entry (and the session behind
	 * the connection) moves to it. */
	pthread_mutex_lock(&e->lock);
	bool conn = e->st == ST_CONNECTED;
	pthread_mutex_unlock(&e->lock);
	int alias = conn ? find_alias(fd) : -1;
	bool moved = false;
	if (alias >= 0) {
		pthread_mutex_lock(&g.lock);
		if ((size_t)alias < g.ntab && !g.tab[alias]) {
			g.tab[alias] = e;
			moved = true;
		}
		pthread_mutex_unlock(&g.lock);
	}
	if (moved) {
		log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: close; the socket lives on as fd %d", fd,
			alias);
		return g.real.close(fd);
	}
	pthread_mutex_lock(&e->lock);
	e->closed = true;
	log_msg(&g.log, LOG_LEVEL_DEBUG, "fd %d: close (%s)", fd, state_names[e->st]);
	pthread_mutex_unlock(&e->lock);
	/* the descriptor first: irdad then sends what is left and
	 * disconnects, which the session's end waits for */
	int rc = g.real.close(fd);
	int err = errno;
	ent_put(e);
	errno = err;
	return rc;
}

/* exit() with AF_IRDA sockets open: close them as close() does, so that
 * what the program wrote still goes out (the kernel's sockets did). */
__attribute__((destructor)) static void close_all(void)
{
	if (!g.real.close)
		return;
	for (;;) {
		int fd = -1;
		pthread_mutex_lock(&g.lock);
		for (size_t i = 0; i < g.ntab && fd < 0; i++)
			if (g.tab[i])
				fd = (int)i;
		pthread_mutex_unlock(&g.lock);
		if (fd < 0)
			break;
		close(fd);
	}
}
