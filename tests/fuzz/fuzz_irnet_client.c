/*
 * fuzz_irnet_client.c: a client session fed arbitrary messages from its
 * daemon.  The input is a run of records (length u16 big-endian, a flags
 * byte, that many bytes), each sent as one SEQPACKET message, with a
 * descriptor attached when the flags say so (bit 0: one end of a stream
 * socketpair, bit 1: of a seqpacket one, bit 2: a second descriptor).
 * HELLO is answered first; then the session makes requests with a zero
 * timeout (so they read what is there and give up), accepts, and drains
 * its events.  Every failure must say why, and no descriptor may be left
 * open once the session is closed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "irdad_fake.h"
#include "irnet_client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RECORDS_MAX 64

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;
	if (!d)
		abort();
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void send_with_fds(int fd, const uint8_t *b, size_t len, uint8_t flags)
{
	int pair[2] = { -1, -1 };
	size_t n = 0;
	if (flags & 3) {
		if (socketpair(AF_UNIX, (flags & 1) ? SOCK_STREAM : SOCK_SEQPACKET, 0, pair) != 0)
			abort();
		n = (flags & 4) ? 2 : 1;
	}
	/* a full socket drops the rest of the input, which is fine */
	(void)irdad_fake_send(fd, b, len, pair, n, MSG_DONTWAIT);
	if (pair[0] >= 0) {
		close(pair[0]);
		close(pair[1]);
	}
}

static void hello_reply(int fd)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_HELLO_REPLY, 1);
	irdad_put_str(&wr, IRDAD_A_PORT, "ttyFUZZ");
	irdad_put_u32(&wr, IRDAD_A_ADDR, 1);
	irdad_put_bytes(&wr, IRDAD_A_NICKNAME, "fuzz", 4);
	irdad_put_u32(&wr, IRDAD_A_MAX_MSG, IRDAD_MSG_MAX);
	long n = irdad_write_end(&wr, NULL, 0);
	if (n < 0)
		abort();
	send_with_fds(fd, b, (size_t)n, 0);
}

static void check_failure(struct irnet_client *cl, int rc)
{
	if (rc < 0 && irnet_client_error(cl)[0] == '\0')
		abort(); /* every failure says why */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct irnet_status st;
	struct irnet_station stations[4];
	struct irnet_conn_info ci;
	struct irnet_event ev;
	struct irnet_client *cl = NULL;
	char err[256];
	size_t n;
	int sv[2], fd, rc;
	int fds0 = count_fds();

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		abort();
	hello_reply(sv[1]);
	if (irnet_client_attach(sv[0], "fuzz", 0, &cl, err, sizeof(err)) != 0)
		abort();

	for (int i = 0; i < RECORDS_MAX && size >= 3; i++) {
		size_t len = (size_t)data[0] << 8 | data[1];
		uint8_t flags = data[2];
		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		send_with_fds(sv[1], data, len, flags);
		data += len;
		size -= len;
	}

	check_failure(cl, irnet_client_status(cl, &st, 0));          /* seq 2 */
	check_failure(cl, irnet_client_discover(cl, true, stations, 4, &n, 0)); /* seq 3 */
	rc = irnet_client_accept(cl, 1, &fd, &ci, 0);
	check_failure(cl, rc);
	if (rc == 0)
		close(fd);
	while ((rc = irnet_client_next_event(cl, &ev)) == 1)
		if (ev.fd >= 0)
			close(ev.fd);
	check_failure(cl, rc);
	irnet_client_close(cl);
	close(sv[1]);
	if (count_fds() != fds0)
		abort(); /* a descriptor leaked */
	return 0;
}
