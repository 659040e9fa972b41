/*
 * test_loopback_pair.c: the TCP pair irdad hands a stream connection
 * over with (loopback_pair.h), and the two ways the bridge ends it:
 *   - the pair: two connected TCP sockets on 127.0.0.1, each the other's
 *     peer (addresses compared), TCP_NODELAY and close-on-exec on both,
 *     bytes both ways; also when another process connected to the
 *     listener first (its connection is dropped);
 *   - a reset (what a link loss does): the other end reads every byte
 *     queued before it, then ECONNRESET once, then end of file; a write
 *     then fails with EPIPE;
 *   - a reset after a write error was not read: the write gets
 *     ECONNRESET once, then EPIPE, and the queued bytes are still read;
 *   - a FIN then a reset (an orderly disconnect): the bytes, end of file
 *     (no ECONNRESET), then EPIPE on a write.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "loopback_pair.h"

/* Waits until fd has something to read (or an error), at most 5 s: the
 * loopback delivers at once, this only keeps a broken kernel from
 * hanging the test. */
static void wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 5000), 1);
}

static void fill(uint8_t *buf, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(i * 7u + seed);
}

/* Reads exactly n bytes, checks them. */
static void read_exactly(int fd, size_t n, uint8_t seed)
{
	uint8_t want[8192], got[8192];
	size_t at = 0;

	assert_true(n <= sizeof(want));
	fill(want, n, seed);
	while (at < n) {
		wait_readable(fd);
		ssize_t r = read(fd, got + at, n - at);
		assert_true(r > 0);
		at += (size_t)r;
	}
	assert_memory_equal(got, want, n);
}

static void send_bytes(int fd, size_t n, uint8_t seed)
{
	uint8_t buf[8192];

	fill(buf, n, seed);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
}

static void addresses(int fd, struct sockaddr_in *self, struct sockaddr_in *peer)
{
	socklen_t len = sizeof(*self);
	assert_int_equal(getsockname(fd, (struct sockaddr *)self, &len), 0);
	assert_int_equal(len, sizeof(*self));
	len = sizeof(*peer);
	assert_int_equal(getpeername(fd, (struct sockaddr *)peer, &len), 0);
	assert_int_equal(len, sizeof(*peer));
}

/* Checks that sv is a pair as loopback_pair.h promises; returns the port
 * of the connecting end (sv[1]), network order. */
static in_port_t check_pair(const int sv[2])
{
	struct sockaddr_in self[2], peer[2];

	for (int i = 0; i < 2; i++) {
		int v = 0;
		socklen_t len = sizeof(v);
		addresses(sv[i], &self[i], &peer[i]);
		assert_int_equal(self[i].sin_family, AF_INET);
		assert_int_equal(ntohl(self[i].sin_addr.s_addr), INADDR_LOOPBACK);
		assert_int_equal(getsockopt(sv[i], IPPROTO_TCP, TCP_NODELAY, &v, &len), 0);
		assert_int_not_equal(v, 0);
		assert_int_not_equal(fcntl(sv[i], F_GETFD) & FD_CLOEXEC, 0);
	}
	/* each end's peer is the other end */
	assert_memory_equal(&self[0].sin_port, &peer[1].sin_port, sizeof(self[0].sin_port));
	assert_memory_equal(&self[1].sin_port, &peer[0].sin_port, sizeof(self[1].sin_port));
	send_bytes(sv[0], 3000, 1);
	read_exactly(sv[1], 3000, 1);
	send_bytes(sv[1], 5000, 2);
	read_exactly(sv[0], 5000, 2);
	return self[1].sin_port;
}

static void pair_is_connected(void **state)
{
	int sv[2];
	(void)state;

	assert_int_equal(loopback_pair(sv), 0);
	check_pair(sv);
	close(sv[0]);
	close(sv[1]);
}

/* Another local process connects to the listener before we do: its
 * connection is accepted first, dropped (it reads end of file), and the
 * pair is still ours. */
static void stranger_connected_first(void **state)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in stranger_self, stranger_peer;
	socklen_t len = sizeof(addr);
	int lis, stranger, sv[2];
	char b[4];
	(void)state;

	lis = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(lis >= 0);
	assert_int_equal(bind(lis, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(listen(lis, 1), 0);
	assert_int_equal(getsockname(lis, (struct sockaddr *)&addr, &len), 0);
	stranger = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(stranger >= 0);
	assert_int_equal(connect(stranger, (struct sockaddr *)&addr, sizeof(addr)), 0);
	addresses(stranger, &stranger_self, &stranger_peer);

	assert_int_equal(loopback_pair_through(lis, sv), 0);
	in_port_t ours = check_pair(sv);
	assert_int_not_equal(ours, stranger_self.sin_port);
	wait_readable(stranger);
	assert_int_equal(read(stranger, b, sizeof(b)), 0);
	close(stranger);
	close(lis);
	close(sv[0]);
	close(sv[1]);
}

static void reset_reads_data_then_econnreset(void **state)
{
	int sv[2];
	char b[16];
	(void)state;

	assert_int_equal(loopback_pair(sv), 0);
	send_bytes(sv[0], 7000, 3);
	assert_int_equal(loopback_pair_reset(sv[0]), 0);
	read_exactly(sv[1], 7000, 3);
	wait_readable(sv[1]);
	errno = 0;
	assert_int_equal(read(sv[1], b, sizeof(b)), -1);
	assert_int_equal(errno, ECONNRESET);
	assert_int_equal(read(sv[1], b, sizeof(b)), 0);
	errno = 0;
	assert_int_equal(send(sv[1], "x", 1, MSG_NOSIGNAL), -1);
	assert_int_equal(errno, EPIPE);
	close(sv[1]);
}

static void reset_then_write_first(void **state)
{
	int sv[2];
	char b[16];
	(void)state;

	assert_int_equal(loopback_pair(sv), 0);
	send_bytes(sv[0], 100, 4);
	assert_int_equal(loopback_pair_reset(sv[0]), 0);
	wait_readable(sv[1]);
	errno = 0;
	assert_int_equal(send(sv[1], "x", 1, MSG_NOSIGNAL), -1);
	assert_int_equal(errno, ECONNRESET);
	errno = 0;
	assert_int_equal(send(sv[1], "x", 1, MSG_NOSIGNAL), -1);
	assert_int_equal(errno, EPIPE);
	read_exactly(sv[1], 100, 4);
	assert_int_equal(read(sv[1], b, sizeof(b)), 0);
	close(sv[1]);
}

static void fin_then_reset_reads_eof(void **state)
{
	int sv[2];
	char b[16];
	(void)state;

	assert_int_equal(loopback_pair(sv), 0);
	send_bytes(sv[0], 4000, 5);
	assert_int_equal(shutdown(sv[0], SHUT_WR), 0);
	assert_int_equal(loopback_pair_reset(sv[0]), 0);
	read_exactly(sv[1], 4000, 5);
	wait_readable(sv[1]);
	assert_int_equal(read(sv[1], b, sizeof(b)), 0);
	errno = 0;
	assert_int_equal(send(sv[1], "x", 1, MSG_NOSIGNAL), -1);
	assert_int_equal(errno, EPIPE);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pair_is_connected),
		cmocka_unit_test(stranger_connected_first),
		cmocka_unit_test(reset_reads_data_then_econnreset),
		cmocka_unit_test(reset_then_write_first),
		cmocka_unit_test(fin_then_reset_reads_eof),
	};
	return cmocka_run_group_tests_name("loopback_pair", tests, NULL, NULL);
}
