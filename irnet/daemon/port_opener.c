/*
 * port_opener.c: the privileged opener of irdad's port (port_opener.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdpass.h"
#include "port_opener.h"
#include "privdrop.h"

#define ANSWER_TIMEOUT_MS 2000

struct port_opener {
	int sock;
	pid_t pid;
};

/* The requests: one byte, and for REQ_UNLINK the link's index. */
#define REQ_OPEN 'o'
#define REQ_UNLINK 'u'


/* Every descriptor but keep: the helper holds nothing of the daemon's
 * (the port, sockets, ptys, the signalfd). */
static void close_others(int keep)
{
	struct rlimit rl;
	int max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur :
									       65536;

	for (int fd = 0; fd < max; fd++)
		if (fd != keep)
			close(fd);
}

/* One answer: errno (0 on success) and the descriptor with it. */
static int32_t open_device(const char *device, int *fd)
{
	struct stat st;

	*fd = open(device, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0)
		return errno;
	if (fstat(*fd, &st) < 0 || !S_ISCHR(st.st_mode) || !isatty(*fd)) {
		close(*fd);
		*fd = -1;
		return ENOTTY;
	}
	return 0;
}

int port_opener_check_link(const char *path, const char *target)
{
	char now[4096];
	struct stat st;
	size_t len = strlen(target);
	ssize_t n;

	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISLNK(st.st_mode))
		return -ESTALE;
	n = readlink(path, now, sizeof(now));
	if (n < 0)
		return -errno;
	/* a target as long as the buffer may have been cut: not ours */
	if ((size_t)n != len || len >= sizeof(now) || memcmp(now, target, len) != 0)
		return -ESTALE;
	return 0;
}

/* One REQ_UNLINK: errno (0 on success).  The check and the unlink are
 * two steps, but the name cannot be swapped between them by the daemon:
 * it asks only because its own unlink was refused, and a directory that
 * refuses it an unlink (root's, or sticky with the link root's) refuses
 * it a rename over the link too.  unlink never follows the link. */
static int32_t unlink_link(const struct port_opener_link *links, size_t nlinks, size_t index)
{
	int r;

	if (index >= nlinks)
		return EINVAL;
	r = port_opener_check_link(links[index].path, links[index].target);
	if (r < 0)
		return -r;
	return unlink(links[index].path) < 0 ? errno : 0;
}

/* All the helper does once set up, as system calls: take a request
 * (recv: recvfrom), open the device (openat, read-write, nothing
 * created: privdrop's rule), check it (fstat: newfstatat or fstat;
 * isatty: ioctl TCGETS, the only ioctl), or check a link (lstat:
 * newfstatat or lstat; readlink or readlinkat) and remove it (unlink or
 * unlinkat, by architecture), answer (sendmsg), close it, exit; and
 * return from a signal handler's interruption. */
static const char *const opener_calls[] = {
	"recvfrom", "recv", "sendmsg", "fstat", "newfstatat", "statx", "close",
	"lstat", "readlink", "readlinkat", "unlink", "unlinkat",
	"rt_sigreturn", "restart_syscall", "exit", "exit_group",
};
static const unsigned long opener_ioctls[] = { TCGETS };

/* The filter, then one answer to the daemon waiting in
 * port_opener_start: 0, or the errno of a filter that could not be
 * loaded (the helper then exits: no unfiltered root helper). */
static void confine(int sock, bool seccomp)
{
	char err[160];
	int32_t e = 0;

	if (seccomp)
		e = -privdrop_seccomp_only(opener_calls, sizeof(opener_calls) / sizeof(opener_calls[0]),
					   opener_ioctls, 1, err, sizeof(err));
	if (fdpass_send(sock, &e, sizeof(e), -1) < 0 || e)
		_exit(1);
}

static _Noreturn void helper(int sock, const char *device, const struct port_opener_link *links,
			     size_t nlinks, bool seccomp)
{
	sigset_t none;

	close_others(sock);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* a reload for the daemon's process group is not for us; the
	 * daemon's death is */
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	prctl(PR_SET_NAME, "irdad-opener");
	confine(sock, seccomp);
	for (;;) {
		unsigned char req[2];
		int fd = -1;
		int32_t e;
		ssize_t n = recv(sock, req, sizeof(req), 0);

		if (n == 0)
			_exit(0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (n == 1 && req[0] == REQ_OPEN)
			e = open_device(device, &fd);
		else if (n == 2 && req[0] == REQ_UNLINK)
			e = unlink_link(links, nlinks, req[1]);
		else
			e = EPROTO;  /* answered all the same: the daemon is not left waiting */
		if (fdpass_send(sock, &e, sizeof(e), fd) < 0)
			_exit(1);
		if (fd >= 0)
			close(fd);
	}
}

/* The helper's first word: its filter is in place (0) or not (errno). */
static int await_confined(struct port_opener *o, char *err, size_t errlen)
{
	struct pollfd pfd = { .fd = o->sock, .events = POLLIN };
	struct fdpass_fds fds;
	int32_t e = 0;
	int flags = 0, r;
	ssize_t n;

	while ((r = poll(&pfd, 1, ANSWER_TIMEOUT_MS)) < 0 && errno == EINTR)
		;
	n = r > 0 ? fdpass_recv(o->sock, &e, sizeof(e), &fds, &flags) : -ETIMEDOUT;
	if (n > 0)
		fdpass_close(&fds);
	if (n != (ssize_t)sizeof(e) || e) {
		snprintf(err, errlen, "port opener: its seccomp filter: %s",
			 n == (ssize_t)sizeof(e) ? strerror(e) : n < 0 ? strerror((int)-n) :
			 "no answer");
		return n == (ssize_t)sizeof(e) ? -e : n < 0 ? (int)n : -EPIPE;
	}
	return 0;
}

int port_opener_start(const char *device, const struct port_opener_link *links, size_t nlinks,
		      bool seccomp, struct port_opener **out, char *err, size_t errlen)
{
	int sv[2];
	struct port_opener *o;

	*out = NULL;
	/* an index travels as one byte */
	if (nlinks > PORT_OPENER_LINKS_MAX) {
		snprintf(err, errlen, "port opener: %zu pty links, at most %d", nlinks,
			 PORT_OPENER_LINKS_MAX);
		return -E2BIG;
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		snprintf(err, errlen, "port opener: out of memory");
		return -ENOMEM;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		int e = errno;
		snprintf(err, errlen, "port opener: socketpair: %s", strerror(e));
		free(o);
		return -e;
	}
	/* the path and the links are copied by fork itself: the child's
	 * memory, which the daemon cannot change afterwards */
	o->pid = fork();
	if (o->pid < 0) {
		int e = errno;
		snprintf(err, errlen, "port opener: fork: %s", strerror(e));
		close(sv[0]);
		close(sv[1]);
		free(o);
		return -e;
	}
	if (o->pid == 0)
		helper(sv[1], device, links, nlinks, seccomp);
	close(sv[1]);
	o->sock = sv[0];
	int r = await_confined(o, err, errlen);
	if (r < 0) {
		/* the helper exits when its end of the socket is all there is */
		port_opener_free(o);
		return r;
	}
	*out = o;
	return 0;
}

/* Sends one request and takes its answer: the errno, and the descriptor
 * passed with it (-1 if none). */
static int ask(struct port_opener *o, const void *req, size_t len, int32_t *e, int *fd)
{
	struct pollfd pfd = { .fd = o->sock, .events = POLLIN };
	struct fdpass_fds fds;
	int flags = 0, r;
	ssize_t n;

	*fd = -1;
	if (send(o->sock, req, len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)len)
		return errno == EAGAIN ? -ETIMEDOUT : -EPIPE;
	while ((r = poll(&pfd, 1, ANSWER_TIMEOUT_MS)) < 0 && errno == EINTR)
		;
	if (r == 0)
		return -ETIMEDOUT;
	n = fdpass_recv(o->sock, e, sizeof(*e), &fds, &flags);
	if (n <= 0)
		return n == 0 || n == -EAGAIN ? -EPIPE : (int)n;
	if (n != (ssize_t)sizeof(*e) || fds.n > 1 || (*e != 0 && fds.n) || *e < 0) {
		fdpass_close(&fds);
		return -EPROTO;
	}
	if (fds.n == 1)
		*fd = fds.fd[0];
	return 0;
}

int port_opener_open(void *opener, const char *resolved)
{
	const char req = REQ_OPEN;
	int32_t e;
	int fd, r;

	(void)resolved;
	r = ask(opener, &req, 1, &e, &fd);
	if (r < 0)
		return r;
	if (e)
		return -e;
	if (fd < 0)
		return -EPROTO;
	return fd;
}

int port_opener_unlink(struct port_opener *o, size_t index)
{
	unsigned char req[2] = { REQ_UNLINK, 0 };
	int32_t e;
	int fd, r;

	if (index >= PORT_OPENER_LINKS_MAX)
		return -EINVAL;
	req[1] = (unsigned char)index;
	r = ask(o, req, sizeof(req), &e, &fd);
	if (r < 0)
		return r;
	if (fd >= 0) {
		/* an answer with a descriptor is not one to this request */
		close(fd);
		return -EPROTO;
	}
	return -e;
}

pid_t port_opener_pid(const struct port_opener *o)
{
	return o ? o->pid : -1;
}

void port_opener_free(struct port_opener *o)
{
	if (!o)
		return;
	close(o->sock);
	free(o);
}
