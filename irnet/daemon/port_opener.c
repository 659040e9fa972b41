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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdpass.h"
#include "port_opener.h"

#define ANSWER_TIMEOUT_MS 2000

struct port_opener {
	int sock;
	pid_t pid;
};

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

static _Noreturn void helper(int sock, const char *device)
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
	for (;;) {
		char req;
		int fd;
		ssize_t n = recv(sock, &req, 1, 0);

		if (n == 0)
			_exit(0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		int32_t e = open_device(device, &fd);
		if (fdpass_send(sock, &e, sizeof(e), fd) < 0)
			_exit(1);
		if (fd >= 0)
			close(fd);
	}
}

int port_opener_start(const char *device, struct port_opener **out, char *err, size_t errlen)
{
	int sv[2];
	struct port_opener *o = calloc(1, sizeof(*o));

	*out = NULL;
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
	/* the path is copied by fork itself: the child's memory */
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
		helper(sv[1], device);
	close(sv[1]);
	o->sock = sv[0];
	*out = o;
	return 0;
}

int port_opener_open(void *opener, const char *resolved)
{
	struct port_opener *o = opener;
	struct pollfd pfd = { .fd = o->sock, .events = POLLIN };
	struct fdpass_fds fds;
	int32_t e;
	int flags = 0, r;
	ssize_t n;

	(void)resolved;
	if (send(o->sock, "o", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
		return errno == EAGAIN ? -ETIMEDOUT : -EPIPE;
	while ((r = poll(&pfd, 1, ANSWER_TIMEOUT_MS)) < 0 && errno == EINTR)
		;
	if (r == 0)
		return -ETIMEDOUT;
	n = fdpass_recv(o->sock, &e, sizeof(e), &fds, &flags);
	if (n <= 0)
		return n == 0 || n == -EAGAIN ? -EPIPE : (int)n;
	if (n != (ssize_t)sizeof(e) || (e == 0) != (fds.n == 1) || e < 0) {
		fdpass_close(&fds);
		return -EPROTO;
	}
	if (e)
		return -e;
	return fds.fd[0];
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
