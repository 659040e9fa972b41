/*
 * irdad_fake.h: what the fake irdads of the client library's unit test,
 * fuzz harness and benchmark share (header only): sending one control
 * message with descriptors attached, as irdad does.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IRDAD_FAKE_H
#define IRNET_IRDAD_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#define IRDAD_FAKE_FDS_MAX 16

/* Sends buf[0..len) as one message on fd with nfds descriptors in one
 * SCM_RIGHTS control message; flags go to sendmsg (MSG_NOSIGNAL is
 * added).  True when the whole message went. */
static inline bool irdad_fake_send(int fd, const void *buf, size_t len, const int *fds,
				   size_t nfds, int flags)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * IRDAD_FAKE_FDS_MAX)];
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (nfds > IRDAD_FAKE_FDS_MAX)
		return false;
	if (nfds) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	return sendmsg(fd, &mh, flags | MSG_NOSIGNAL) == (ssize_t)len;
}

#endif
