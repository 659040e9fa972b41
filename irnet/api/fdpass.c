/*
 * fdpass.c: one control message with its descriptors (fdpass.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fdpass.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void take_fds(struct msghdr *mh, struct fdpass_fds *fds)
{
	fds->n = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (fds->n < FDPASS_MAX)
				fds->fd[fds->n++] = fd;
			else
				close(fd); /* cannot happen with our buffer; never leak */
		}
	}
}

ssize_t fdpass_recv(int sock, void *buf, size_t cap, struct fdpass_fds *fds, int *flags)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * FDPASS_MAX)];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf) };
	ssize_t n;

	fds->n = 0;
	*flags = 0;
	do
		n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC | MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	take_fds(&mh, fds);
	*flags = mh.msg_flags;
	return n;
}

int fdpass_send_fds(int sock, const void *buf, size_t len, const int *fds, size_t nfds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * FDPASS_MAX)];
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds > FDPASS_MAX)
		return -EINVAL;
	if (nfds > 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do
		n = sendmsg(sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

int fdpass_send(int sock, const void *buf, size_t len, int fd)
{
	return fdpass_send_fds(sock, buf, len, &fd, fd >= 0 ? 1 : 0);
}

void fdpass_close(struct fdpass_fds *fds)
{
	for (size_t i = 0; i < fds->n; i++)
		close(fds->fd[i]);
	fds->n = 0;
}
