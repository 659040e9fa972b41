/*
 * loopback_pair.c: a TCP pair on 127.0.0.1 (see the header for why and
 * how it is checked).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "loopback_pair.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* How many strangers' connections we drop before giving up. */
enum { STRANGERS_MAX = 8 };

static bool same_address(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_family == b->sin_family && a->sin_port == b->sin_port &&
	       a->sin_addr.s_addr == b->sin_addr.s_addr;
}

static int local_address(int fd, struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);

	if (getsockname(fd, (struct sockaddr *)a, &len) < 0)
		return -errno;
	return len == sizeof(*a) && a->sin_family == AF_INET ? 0 : -EAFNOSUPPORT;
}

static int no_delay(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ? -errno : 0;
}

/* Accepts on lis until the connection from `from` comes (the listener is
 * ours alone after this: its backlog holds one, strangers are closed). */
static int accept_ours(int lis, const struct sockaddr_in *from)
{
	for (int i = 0; i <= STRANGERS_MAX; i++) {
		struct sockaddr_in peer;
		socklen_t len = sizeof(peer);
		int fd = accept4(lis, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return -errno;
		}
		if (len == sizeof(peer) && same_address(&peer, from))
			return fd;
		close(fd);
	}
	return -EADDRINUSE;
}

int loopback_pair_through(int lis, int sv[2])
{
	struct sockaddr_in addr, mine;
	int con = -1, acc = -1, rc;

	rc = local_address(lis, &addr);
	if (rc < 0)
		return rc;
	con = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (con < 0 || connect(con, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		rc = -errno;
		goto out;
	}
	rc = local_address(con, &mine);
	if (rc < 0)
		goto out;
	acc = accept_ours(lis, &mine);
	if (acc < 0) {
		rc = acc;
		goto out;
	}
	rc = no_delay(acc);
	if (rc == 0)
		rc = no_delay(con);
out:
	if (rc < 0) {
		if (con >= 0)
			close(con);
		if (acc >= 0)
			close(acc);
		return rc;
	}
	sv[0] = acc;
	sv[1] = con;
	return 0;
}

int loopback_pair(int sv[2])
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int lis, rc;

	lis = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lis < 0)
		return -errno;
	if (bind(lis, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(lis, 1) < 0)
		rc = -errno;
	else
		rc = loopback_pair_through(lis, sv);
	close(lis);
	return rc;
}

int loopback_pair_reset(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	/* without the option the close is still a close: the peer then reads
	 * end of file, which is the nearest thing */
	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	return close(fd);
}
