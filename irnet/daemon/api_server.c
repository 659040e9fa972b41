/*
 * api_server.c: the control socket, its sessions, and the rules that
 * keep a misbehaving client to itself (api_server.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "api_server.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fdpass.h"


struct api_session {
	struct api_server *srv;
	struct api_session *next;
	int fd;
	unsigned id;
	struct ucred cred;
	bool hello, ending;
	struct fdpass_fds *fds;  /* the request's descriptors, while it is handled */
	void *data;
	char name[96];
};

struct api_server {
	struct eloop *loop;
	struct api_server_config cfg;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const struct api_server_ops *ops;
	void *ctx;
	int fd;
	struct api_session *sessions;
	unsigned nsessions, next_id;
	struct eloop_timer reaper;
	uint8_t buf[IRDAD_MSG_MAX + 1];
};

void api_server_config_defaults(struct api_server_config *cfg)
{
	*cfg = (struct api_server_config){
		.mode = 0660, .gid = (gid_t)-1, .max_sessions = 32, .burst = 8,
	};
}

static void name_session(struct api_session *s, const char *client)
{
	snprintf(s->name, sizeof(s->name), "session %u (%s%spid %ld uid %ld)", s->id,
		 client ? client : "", client ? ", " : "", (long)s->cred.pid, (long)s->cred.uid);
}

/* --- ending sessions -------------------------------------------------- */

void api_session_end(struct api_session *s, const char *why)
{
	if (s->ending)
		return;
	s->ending = true;
	log_msg(s->srv->cfg.log, LOG_LEVEL_INFO, "%s: ended: %s", s->name, why);
	eloop_remove_reader(s->srv->loop, s->fd);
	eloop_timer_arm_in(s->srv->loop, &s->srv->reaper, 0);
}

bool api_session_ending(const struct api_session *s)
{
	return s->ending;
}

static void free_session(struct api_server *srv, struct api_session *s)
{
	srv->ops->closed(srv->ctx, s);
	if (!s->ending)
		eloop_remove_reader(srv->loop, s->fd);
	close(s->fd);
	srv->nsessions--;
	free(s);
}

/* Frees the sessions that ended, from the loop: never inside a callback
 * that may still hold one. */
static void on_reaper(struct eloop *loop, void *ctx)
{
	struct api_server *srv = ctx;
	struct api_session **pp = &srv->sessions;

	(void)loop;
	while (*pp) {
		struct api_session *s = *pp;
		if (s->ending) {
			*pp = s->next;
			free_session(srv, s);
		} else {
			pp = &s->next;
		}
	}
}

/* --- sending ----------------------------------------------------------- */

int api_session_send(struct api_session *s, const uint8_t *msg, size_t len, int fd)
{
	if (s->ending)
		return -ECONNRESET;
	int rc = fdpass_send(s->fd, msg, len, fd);
	if (rc == 0)
		return 0;
	/* A client whose buffer is full does not read its replies: rather
	 * than queue without bound or block the daemon, its session ends. */
	api_session_end(s, rc == -EAGAIN ? "does not read its replies" : strerror(-rc));
	return rc;
}

int api_session_error(struct api_session *s, uint32_t seq, int err, const char *fmt, ...)
{
	uint8_t buf[IRDAD_MSG_MAX];
	char text[201];
	struct irdad_writer wr;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (!text[0])
		snprintf(text, sizeof(text), "%s", strerror(err));
	log_msg(s->srv->cfg.log, LOG_LEVEL_INFO, "%s: request %u refused: %s", s->name,
		(unsigned)seq, text);
	irdad_write_begin(&wr, buf, sizeof(buf), IRDAD_MSG_ERROR, seq);
	irdad_put_u32(&wr, IRDAD_A_ERRNO, (uint32_t)err);
	irdad_put_str(&wr, IRDAD_A_TEXT, text);
	long n = irdad_write_end(&wr, NULL, 0);
	return n < 0 ? (int)n : api_session_send(s, buf, (size_t)n, -1);
}

/* --- receiving ----------------------------------------------------------- */

/* Reads one message.  1: one in srv->buf (*len) with its descriptors in
 * *fds (the caller closes them), 0: none now, -1: the session ended. */
static int read_one(struct api_session *s, size_t *len, struct fdpass_fds *fds)
{
	struct api_server *srv = s->srv;
	int flags;
	ssize_t n = fdpass_recv(s->fd, srv->buf, sizeof(srv->buf), fds, &flags);

	if (n == -EAGAIN)
		return 0;
	if (flags & MSG_CTRUNC) {
		fdpass_close(fds);
		api_session_end(s, "sent more than 8 descriptors");
		return -1;
	}
	if (n <= 0) {
		fdpass_close(fds);
		api_session_end(s, n == 0 ? "closed by the client" : strerror((int)-n));
		return -1;
	}
	if ((flags & MSG_TRUNC) || (size_t)n > IRDAD_MSG_MAX) {
		fdpass_close(fds);
		api_session_error(s, 0, EMSGSIZE, "a message over %d bytes", IRDAD_MSG_MAX);
		api_session_end(s, "sent a message over the size limit");
		return -1;
	}
	*len = (size_t)n;
	return 1;
}

/* Checks one message and hands it to the owner; false if the session
 * ended over it.  Descriptors go with ATTACH only (the owner takes the
 * ones it keeps); whatever is left is closed here, always. */
static bool take_message(struct api_session *s, size_t len, struct fdpass_fds *fds)
{
	struct api_server *srv = s->srv;
	struct irdad_msg *m = malloc(sizeof(*m));
	char why[200];
	bool ok = false;

	if (!m) {
		fdpass_close(fds);
		api_session_end(s, "out of memory");
		return false;
	}
	int rc = irdad_msg_decode(srv->buf, len, m, why, sizeof(why));
	if (rc < 0) {
		api_session_error(s, m->seq, -rc, "%s", why);
		api_session_end(s, "sent a malformed message");
	} else if (!irdad_msg_is_request(m->type)) {
		api_session_error(s, m->seq, EBADMSG, "%s is not a request",
				  irdad_msg_type_name(m->type));
		api_session_end(s, "sent a message that is not a request");
	} else if (!s->hello && m->type != IRDAD_MSG_HELLO) {
		api_session_error(s, m->seq, EPROTO, "HELLO first");
		api_session_end(s, "did not start with HELLO");
	} else if (fds->n && m->type != IRDAD_MSG_ATTACH) {
		api_session_error(s, m->seq, EBADMSG, "%s takes no descriptor",
				  irdad_msg_type_name(m->type));
		api_session_end(s, "sent a descriptor");
	} else {
		s->hello = true;
		s->fds = fds;
		srv->ops->request(srv->ctx, s, m);
		s->fds = NULL;
		ok = !s->ending;
	}
	for (size_t i = 0; i < fds->n; i++)
		if (fds->fd[i] >= 0)
			close(fds->fd[i]);
	fds->n = 0;
	free(m);
	return ok;
}

size_t api_session_nfds(const struct api_session *s)
{
	return s->fds ? s->fds->n : 0;
}

int api_session_take_fd(struct api_session *s, size_t i)
{
	if (!s->fds || i >= s->fds->n)
		return -1;
	int fd = s->fds->fd[i];
	s->fds->fd[i] = -1;
	return fd;
}

static void on_session_readable(struct eloop *loop, int fd, void *ctx)
{
	struct api_session *s = ctx;
	(void)loop;
	(void)fd;
	/* At most burst messages now; the loop comes back for the rest after
	 * the other descriptors had their turn. */
	for (unsigned i = 0; i < s->srv->cfg.burst && !s->ending; i++) {
		size_t len;
		struct fdpass_fds fds;
		if (read_one(s, &len, &fds) <= 0 || !take_message(s, len, &fds))
			return;
	}
}

static void on_accept(struct eloop *loop, int lfd, void *ctx)
{
	struct api_server *srv = ctx;
	socklen_t cl = sizeof(struct ucred);
	struct api_session *s;
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	if (srv->nsessions >= srv->cfg.max_sessions) {
		log_msg(srv->cfg.log, LOG_LEVEL_WARNING, "control socket: %u sessions, one refused",
			srv->nsessions);
		close(fd);
		return;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return;
	}
	s->srv = srv;
	s->fd = fd;
	s->id = ++srv->next_id;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &s->cred, &cl) < 0)
		s->cred = (struct ucred){ .pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1 };
	name_session(s, NULL);
	if (eloop_add_reader(loop, fd, on_session_readable, s) < 0) {
		close(fd);
		free(s);
		return;
	}
	s->next = srv->sessions;
	srv->sessions = s;
	srv->nsessions++;
	log_msg(srv->cfg.log, LOG_LEVEL_INFO, "%s: connected (gid %ld)", s->name,
		(long)s->cred.gid);
}

/* --- the socket ---------------------------------------------------------- */

/* A socket file at path with nobody accepting on it is stale. */
static int clear_stale(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, rc;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a socket", path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, path, strlen(path));
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	if (rc == 0) {
		snprintf(err, errlen, "%s: another irdad is serving this port", path);
		return -EADDRINUSE;
	}
	return unlink(path) < 0 ? -errno : 0;
}

static int make_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int api_server_open(struct eloop *loop, const struct api_server_config *cfg,
		    const struct api_server_ops *ops, void *ctx, struct api_server **out,
		    char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct api_server *srv;
	int rc;

	*out = NULL;
	if (!cfg->path || !cfg->path[0] || strlen(cfg->path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "control socket path '%s': empty or too long",
			 cfg->path ? cfg->path : "");
		return -ENAMETOOLONG;
	}
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->loop = loop;
	srv->cfg = *cfg;
	srv->ops = ops;
	srv->ctx = ctx;
	snprintf(srv->path, sizeof(srv->path), "%s", cfg->path);
	srv->cfg.path = srv->path;
	eloop_timer_init(&srv->reaper, on_reaper, srv);
	err[0] = '\0';
	rc = make_dir(srv->path);
	if (rc == 0)
		rc = clear_stale(srv->path, err, errlen);
	srv->fd = rc < 0 ? -1 : socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (rc == 0 && srv->fd < 0)
		rc = -errno;
	memcpy(sa.sun_path, srv->path, strlen(srv->path));
	if (rc == 0 && bind(srv->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		rc = -errno;
	if (rc == 0 && cfg->gid != (gid_t)-1 && chown(srv->path, (uid_t)-1, cfg->gid) < 0)
		rc = -errno;
	if (rc == 0 && chmod(srv->path, cfg->mode) < 0)
		rc = -errno;
	if (rc == 0 && listen(srv->fd, 16) < 0)
		rc = -errno;
	if (rc == 0)
		rc = eloop_add_reader(loop, srv->fd, on_accept, srv);
	if (rc < 0) {
		if (!err[0])
			snprintf(err, errlen, "control socket %s: %s", srv->path, strerror(-rc));
		if (srv->fd >= 0) {
			close(srv->fd);
			unlink(srv->path);
		}
		free(srv);
		return rc;
	}
	log_msg(cfg->log, LOG_LEVEL_INFO, "control socket %s (mode %03o)", srv->path,
		(unsigned)cfg->mode);
	*out = srv;
	return 0;
}

void api_server_free(struct api_server *srv)
{
	if (!srv)
		return;
	while (srv->sessions) {
		struct api_session *s = srv->sessions;
		srv->sessions = s->next;
		free_session(srv, s);
	}
	eloop_timer_cancel(srv->loop, &srv->reaper);
	eloop_remove_reader(srv->loop, srv->fd);
	close(srv->fd);
	unlink(srv->path);
	free(srv);
}

void api_server_set_ctx(struct api_server *srv, void *ctx)
{
	srv->ctx = ctx;
}

unsigned api_server_sessions(const struct api_server *srv)
{
	return srv->nsessions;
}

/* --- session accessors ------------------------------------------------ */

void api_session_set_data(struct api_session *s, void *data) { s->data = data; }
void *api_session_data(const struct api_session *s) { return s->data; }
const char *api_session_name(const struct api_session *s) { return s->name; }
void api_session_set_client(struct api_session *s, const char *client) { name_session(s, client); }
pid_t api_session_pid(const struct api_session *s) { return s->cred.pid; }
uid_t api_session_uid(const struct api_session *s) { return s->cred.uid; }
unsigned api_session_id(const struct api_session *s) { return s->id; }
