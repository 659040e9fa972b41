/*
 * bench_irnet_client.c: what the client library's control path costs, on
 * a forked fake irdad that answers at once: a request's round trip
 * (STATUS), a CONNECT whose answer passes a descriptor, and taking queued
 * events.  These bound the library's share of a real request, which
 * the air then dominates (a discovery takes about a second).
 *
 * Prints `bench: NAME VALUE UNIT` lines; never fails on a timing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "irdad_fake.h"
#include "irnet_client.h"

#define ROUNDS 2000
#define EVENTS 1000

/* Sends what wr holds; false when it does not build or go. */
static bool send_built(int fd, struct irdad_writer *wr, const int *fds, size_t nfds)
{
	long n = irdad_write_end(wr, NULL, 0);
	return n > 0 && irdad_fake_send(fd, wr->w.data, (size_t)n, fds, nfds, 0);
}

static bool answer(int fd, const struct irdad_msg *m)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	int sv[2];
	bool ok;
	switch (m->type) {
	case IRDAD_MSG_HELLO:
		irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_HELLO_REPLY, m->seq);
		irdad_put_str(&wr, IRDAD_A_PORT, "ttyBENCH");
		irdad_put_u32(&wr, IRDAD_A_ADDR, 1);
		irdad_put_bytes(&wr, IRDAD_A_NICKNAME, "bench", 5);
		irdad_put_u32(&wr, IRDAD_A_MAX_MSG, IRDAD_MSG_MAX);
		return send_built(fd, &wr, NULL, 0);
	case IRDAD_MSG_STATUS:
		irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_STATUS_REPLY, m->seq);
		irdad_put_u8(&wr, IRDAD_A_LINK, IRDAD_LINK_UP);
		irdad_nest_begin(&wr, IRDAD_A_COUNTER);
		irdad_put_str(&wr, IRDAD_A_NAME, "frames_tx");
		irdad_put_u64(&wr, IRDAD_A_VALUE64, 12345);
		irdad_nest_end(&wr);
		return send_built(fd, &wr, NULL, 0);
	case IRDAD_MSG_CONNECT:
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			return false;
		irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_CONNECTION, m->seq);
		irdad_put_u32(&wr, IRDAD_A_CONN_ID, m->seq);
		irdad_put_u32(&wr, IRDAD_A_LISTENER_ID, 0);
		irdad_put_u8(&wr, IRDAD_A_MODE, IRDAD_MODE_STREAM);
		irdad_put_u32(&wr, IRDAD_A_DADDR, 2);
		irdad_put_u8(&wr, IRDAD_A_LSAP, 0x10);
		irdad_put_u8(&wr, IRDAD_A_PEER_LSAP, 0x0a);
		irdad_put_u32(&wr, IRDAD_A_PEER_MAX_SDU, 0);
		irdad_put_u32(&wr, IRDAD_A_TX_MAX, 1024);
		ok = send_built(fd, &wr, &sv[0], 1);
		close(sv[0]);
		close(sv[1]);
		return ok;
	case IRDAD_MSG_WATCH:
		irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_OK, m->seq);
		if (!send_built(fd, &wr, NULL, 0))
			return false;
		/* then a burst of station events */
		for (int i = 0; i < EVENTS; i++) {
			irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_STATION, 0);
			irdad_nest_begin(&wr, IRDAD_A_STATION);
			irdad_put_u32(&wr, IRDAD_A_ADDR, (uint32_t)i + 1);
			irdad_put_u16(&wr, IRDAD_A_HINTS, 0x8204);
			irdad_put_u8(&wr, IRDAD_A_CHARSET, 0);
			irdad_put_bytes(&wr, IRDAD_A_NICKNAME, "peer", 4);
			irdad_nest_end(&wr);
			irdad_put_u8(&wr, IRDAD_A_PRESENT, 1);
			if (!send_built(fd, &wr, NULL, 0))
				return false;
		}
		return true;
	default:
		return false;
	}
}

static void fake_irdad(int fd)
{
	static uint8_t buf[IRDAD_MSG_MAX];
	static struct irdad_msg m;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0)
			_exit(0);
		if (n < 0 || irdad_msg_decode(buf, (size_t)n, &m, NULL, 0) != 0 || !answer(fd, &m))
			_exit(1);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median and 99th percentile of n samples, in microseconds. */
static void report(const char *name, double *us, size_t n)
{
	qsort(us, n, sizeof(*us), cmp_double);
	printf("bench: %s_median %.1f us\n", name, us[n / 2]);
	printf("bench: %s_p99 %.1f us\n", name, us[n * 99 / 100]);
}

static int run(struct irnet_client *cl)
{
	static struct irnet_status st;
	static double us[ROUNDS];
	const struct irnet_connect_req req = { .daddr = 2, .lsap = 0x0a, .mode = IRDAD_MODE_STREAM };
	struct irnet_conn_info ci;
	struct irnet_event ev;
	int fd;

	for (int i = 0; i < ROUNDS; i++) {
		double t0 = bench_seconds();
		if (irnet_client_status(cl, &st, 5000) < 0)
			return 1;
		us[i] = (bench_seconds() - t0) * 1e6;
	}
	report("irnet_client_status_rtt", us, ROUNDS);

	for (int i = 0; i < ROUNDS; i++) {
		double t0 = bench_seconds();
		if (irnet_client_connect(cl, &req, &fd, &ci, 5000) < 0)
			return 1;
		us[i] = (bench_seconds() - t0) * 1e6;
		close(fd);
	}
	report("irnet_client_connect_with_fd_rtt", us, ROUNDS);

	/* WATCH's OK, then EVENTS events queued while the next STATUS waits */
	if (irnet_client_watch(cl, IRDAD_WATCH_STATIONS, 5000) < 0 ||
	    irnet_client_status(cl, &st, 5000) < 0)
		return 1;
	double t0 = bench_seconds();
	int got = 0;
	while (irnet_client_next_event(cl, &ev) == 1)
		got++;
	double dt = bench_seconds() - t0;
	if (got != EVENTS)
		return 1;
	printf("bench: irnet_client_next_event_queued %.2f us\n", dt * 1e6 / got);
	return 0;
}

int main(void)
{
	int sv[2];
	struct irnet_client *cl;
	char err[256];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return 1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(sv[0]);
		fake_irdad(sv[1]);
	}
	close(sv[1]);
	if (irnet_client_attach(sv[0], "bench", 5000, &cl, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_irnet_client: %s\n", err);
		return 1;
	}
	int rc = run(cl);
	if (rc)
		fprintf(stderr, "bench_irnet_client: %s\n", irnet_client_error(cl));
	irnet_client_close(cl);
	int status = 0;
	waitpid(pid, &status, 0);
	return rc || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}
