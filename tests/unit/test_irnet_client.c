/*
 * test_irnet_client.c: the client library against a fake irdad.
 *
 * The fake daemon is a forked child holding one end of a SOCK_SEQPACKET
 * socketpair (or accepting on a real socket for irnet_client_open).  It
 * plays a script: it checks each request it receives with the codec and
 * answers with scripted messages, passing real descriptors (one end of
 * another socketpair) so the tests check that data flows through them.
 * The child reports a failed check by its exit status, which every test
 * checks.  Descriptors are counted in /proc/self/fd of the test process
 * (the client's side only), before and after each refusal.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fdpass.h"
#include "irdad_fake.h"
#include "irnet_client.h"

#define OUR_ADDR 0x1234abcdu
#define ALPHA 0x11111111u
#define BETA 0x22222222u
#define TIMEOUT 5000 /* ms: a generous bound for answers that do come */

/* --- the fake daemon (runs in the child: no cmocka there) ---------------- */

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "fake irdad: line %d: %s\n", __LINE__, #cond); \
			_exit(3);                                                     \
		}                                                                     \
	} while (0)

/* One received request: its bytes and the decoded view into them. */
struct req {
	uint8_t buf[IRDAD_MSG_MAX];
	struct irdad_msg m;
};

static uint32_t d_recv(int fd, uint8_t type, struct req *r)
{
	char why[160];
	ssize_t n = recv(fd, r->buf, sizeof(r->buf), 0);
	CHECK(n > 0);
	if (irdad_msg_decode(r->buf, (size_t)n, &r->m, why, sizeof(why)) != 0) {
		fprintf(stderr, "fake irdad: %s\n", why);
		_exit(3);
	}
	if (r->m.type != type)
		fprintf(stderr, "fake irdad: got %s, wanted %s\n", irdad_msg_type_name(r->m.type),
			irdad_msg_type_name(type));
	CHECK(r->m.type == type);
	return r->m.seq;
}

/* The client ends the session: EOF. */
static void d_wait_eof(int fd)
{
	uint8_t b[IRDAD_MSG_MAX];
	CHECK(recv(fd, b, sizeof(b), 0) == 0);
}

static void d_send_raw(int fd, const void *buf, size_t len, const int *fds, size_t nfds)
{
	CHECK(irdad_fake_send(fd, buf, len, fds, nfds, 0));
}

/* Sends what wr holds, checked by the codec like a real daemon's. */
static void d_send(int fd, struct irdad_writer *wr, const int *fds, size_t nfds)
{
	char why[160];
	long n = irdad_write_end(wr, why, sizeof(why));
	if (n < 0)
		fprintf(stderr, "fake irdad: building: %s\n", why);
	CHECK(n > 0);
	d_send_raw(fd, wr->w.data, (size_t)n, fds, nfds);
}

/* Sends what wr holds without the codec's check: a malformed message. */
static void d_send_unchecked(int fd, struct irdad_writer *wr, const int *fds, size_t nfds)
{
	CHECK(wcursor_ok(&wr->w));
	d_send_raw(fd, wr->w.data, wcursor_len(&wr->w), fds, nfds);
}

static void d_ok(int fd, uint32_t seq)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_OK, seq);
	d_send(fd, &wr, NULL, 0);
}

static void d_error(int fd, uint32_t seq, uint32_t err, const char *text)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_ERROR, seq);
	irdad_put_u32(&wr, IRDAD_A_ERRNO, err);
	irdad_put_str(&wr, IRDAD_A_TEXT, text);
	d_send(fd, &wr, NULL, 0);
}

static void d_hello_reply(int fd, uint32_t seq)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_HELLO_REPLY, seq);
	irdad_put_str(&wr, IRDAD_A_PORT, "ttyUSB0");
	irdad_put_u32(&wr, IRDAD_A_ADDR, OUR_ADDR);
	irdad_put_bytes(&wr, IRDAD_A_NICKNAME, "irdad-test", 10);
	irdad_put_u32(&wr, IRDAD_A_MAX_MSG, IRDAD_MSG_MAX);
	d_send(fd, &wr, NULL, 0);
}

/* Answers HELLO, checking the client's name. */
static void d_hello(int fd, const char *client)
{
	struct req r;
	char name[40];
	uint32_t seq = d_recv(fd, IRDAD_MSG_HELLO, &r);
	CHECK(irdad_get_str(&r.m.attrs, IRDAD_A_CLIENT, name, sizeof(name)));
	CHECK(strcmp(name, client) == 0);
	d_hello_reply(fd, seq);
}

static void put_station(struct irdad_writer *wr, uint32_t addr, const char *nick, bool age)
{
	irdad_nest_begin(wr, IRDAD_A_STATION);
	irdad_put_u32(wr, IRDAD_A_ADDR, addr);
	irdad_put_u16(wr, IRDAD_A_HINTS, 0x8204);
	irdad_put_u8(wr, IRDAD_A_CHARSET, 0);
	irdad_put_bytes(wr, IRDAD_A_NICKNAME, nick, strlen(nick));
	if (age)
		irdad_put_u32(wr, IRDAD_A_AGE_MS, 1500);
	irdad_nest_end(wr);
}

static void d_station_event(int fd, uint32_t addr, const char *nick, bool present)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_STATION, 0);
	put_station(&wr, addr, nick, false);
	irdad_put_u8(&wr, IRDAD_A_PRESENT, present);
	d_send(fd, &wr, NULL, 0);
}

static void d_disconnected(int fd, uint32_t conn, uint8_t reason, const char *text)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_DISCONNECTED, 0);
	irdad_put_u32(&wr, IRDAD_A_CONN_ID, conn);
	irdad_put_u8(&wr, IRDAD_A_REASON, reason);
	if (text)
		irdad_put_str(&wr, IRDAD_A_TEXT, text);
	d_send(fd, &wr, NULL, 0);
}

static void d_stations(int fd, uint32_t seq, size_t n)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_STATIONS, seq);
	if (n > 0)
		put_station(&wr, ALPHA, "alpha", true);
	if (n > 1)
		put_station(&wr, BETA, "beta", false);
	d_send(fd, &wr, NULL, 0);
}

struct conn_desc {
	uint32_t conn_id, listener_id;
	uint8_t mode;
	uint32_t daddr;
	uint8_t lsap, peer_lsap;
	uint32_t peer_max_sdu, tx_max;
};

static void put_connection(struct irdad_writer *wr, const struct conn_desc *c)
{
	irdad_put_u32(wr, IRDAD_A_CONN_ID, c->conn_id);
	irdad_put_u32(wr, IRDAD_A_LISTENER_ID, c->listener_id);
	irdad_put_u8(wr, IRDAD_A_MODE, c->mode);
	irdad_put_u32(wr, IRDAD_A_DADDR, c->daddr);
	irdad_put_u8(wr, IRDAD_A_LSAP, c->lsap);
	irdad_put_u8(wr, IRDAD_A_PEER_LSAP, c->peer_lsap);
	irdad_put_u32(wr, IRDAD_A_PEER_MAX_SDU, c->peer_max_sdu);
	irdad_put_u32(wr, IRDAD_A_TX_MAX, c->tx_max);
}

/* Sends CONNECTION (seq 0 for a listener's) with the client's end of a
 * new socketpair of the mode's kind; returns the daemon's end. */
static int d_connection(int fd, uint32_t seq, const struct conn_desc *c)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	int sv[2];
	CHECK(socketpair(AF_UNIX, c->mode == IRDAD_MODE_STREAM ? SOCK_STREAM : SOCK_SEQPACKET, 0,
			 sv) == 0);
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_CONNECTION, seq);
	put_connection(&wr, c);
	d_send(fd, &wr, &sv[0], 1);
	close(sv[0]);
	return sv[1];
}

/* Runs fn(fd, arg) in a child as the daemon on one end of a socketpair;
 * returns the client's end. */
static int start_daemon(void (*fn)(int, int), int arg, pid_t *pid)
{
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	fflush(NULL);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		close(sv[0]);
		fn(sv[1], arg);
		_exit(0);
	}
	close(sv[1]);
	return sv[0];
}

static void end_daemon(pid_t pid)
{
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static struct irnet_client *attach(int fd)
{
	struct irnet_client *cl = NULL;
	char err[256];
	int rc = irnet_client_attach(fd, "test", TIMEOUT, &cl, err, sizeof(err));
	if (rc != 0)
		print_message("attach: %s\n", err);
	assert_int_equal(rc, 0);
	assert_non_null(cl);
	return cl;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;
	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void expect_error(struct irnet_client *cl, int rc, int want, const char *text)
{
	if (rc != want || !strstr(irnet_client_error(cl), text))
		print_message("got %d \"%s\", wanted %d with \"%s\"\n", rc, irnet_client_error(cl),
			      want, text);
	assert_int_equal(rc, want);
	assert_non_null(strstr(irnet_client_error(cl), text));
}

/* --- finding the socket ------------------------------------------------- */

static void socket_path_from_names(void **state)
{
	(void)state;
	char path[108], err[200];
	static const struct {
		const char *where, *path;
	} good[] = {
		{ "ttyUSB0", "/run/irnet/ttyUSB0.sock" },
		{ "/dev/ttyS1", "/run/irnet/ttyS1.sock" },
		{ "/tmp/x/irdad.sock", "/tmp/x/irdad.sock" },
		{ "./here.sock", "./here.sock" },
		/* USB dongles, named as irdad names their sockets */
		{ "usb", "/run/irnet/usb.sock" },
		{ "usb:1-1.4", "/run/irnet/usb-1-1.4.sock" },
		{ "usb:9710:7780", "/run/irnet/usb-9710-7780.sock" },
		{ "usb:serial=A/1 b", "/run/irnet/usb-serial-A-1-b.sock" },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(irnet_client_socket_path(good[i].where, path, sizeof(path), err,
							  sizeof(err)), 0);
		assert_string_equal(path, good[i].path);
	}
	static const struct {
		const char *where;
		int rc;
		const char *text;
	} bad[] = {
		{ "", -EINVAL, "no port" },
		{ "tty USB0", -EINVAL, "not a port name" },
		{ ".hidden", -EINVAL, "not a port name" },
		{ "/dev/", -EINVAL, "not a port name" },
		{ "ttyUSB0123456789012345678901234567890", -EINVAL, "not a port name" },
		{ "/dev/no/such/irnet-test-link", -ENOENT, "/dev/no/such/irnet-test-link" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = irnet_client_socket_path(bad[i].where, path, sizeof(path), err, sizeof(err));
		assert_int_equal(rc, bad[i].rc);
		assert_non_null(strstr(err, bad[i].text));
		assert_string_equal(path, "");
	}
	char longpath[200];
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	char big[256];
	assert_int_equal(irnet_client_socket_path(longpath, big, sizeof(big), err, sizeof(err)),
			 -ENAMETOOLONG);
}

/* The daemon on a real listening socket, for irnet_client_open(). */
static void daemon_listening(int lfd, int arg)
{
	(void)arg;
	int fd = accept(lfd, NULL, NULL);
	CHECK(fd >= 0);
	d_hello(fd, "opener");
	d_wait_eof(fd);
}

static void open_by_path(void **state)
{
	(void)state;
	char dir[] = "/tmp/irnet-client-XXXXXX";
	char path[108], err[256];
	struct irnet_client *cl = NULL;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ttyTEST.sock", dir);

	/* no daemon there yet: a clear error */
	assert_int_equal(irnet_client_open(path, "opener", &cl, err, sizeof(err)), -ENOENT);
	assert_null(cl);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "is irdad running"));

	int lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	assert_true(lfd >= 0);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		daemon_listening(lfd, 0);
		_exit(0);
	}
	close(lfd);
	int rc = irnet_client_open(path, "opener", &cl, err, sizeof(err));
	if (rc)
		print_message("open: %s\n", err);
	assert_int_equal(rc, 0);
	const struct irnet_client_hello *h = irnet_client_hello(cl);
	assert_string_equal(h->port, "ttyUSB0");
	assert_int_equal(h->addr, OUR_ADDR);
	assert_int_equal(h->nickname_len, 10);
	assert_string_equal((const char *)h->nickname, "irdad-test");
	assert_int_equal(h->max_msg, IRDAD_MSG_MAX);
	assert_true(irnet_client_usable(cl));
	irnet_client_close(cl);
	end_daemon(pid);
	unlink(path);
	rmdir(dir);
}

/* --- every request and its reply ---------------------------------------- */

/* Reads exactly n bytes from a stream. */
static void d_read_all(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (uint8_t *)buf + got, n - got);
		CHECK(r > 0);
		got += (size_t)r;
	}
}

static void d_ias_values(int fd, uint32_t seq)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_IAS_RESULT, seq);
	irdad_nest_begin(&wr, IRDAD_A_IAS_VALUE);
	irdad_put_u32(&wr, IRDAD_A_OBJ_ID, 7);
	irdad_put_u8(&wr, IRDAD_A_TYPE, IRDAD_IAS_INT);
	irdad_put_u32(&wr, IRDAD_A_INT, 9);
	irdad_nest_end(&wr);
	irdad_nest_begin(&wr, IRDAD_A_IAS_VALUE);
	irdad_put_u32(&wr, IRDAD_A_OBJ_ID, 8);
	irdad_put_u8(&wr, IRDAD_A_TYPE, IRDAD_IAS_STRING);
	irdad_put_bytes(&wr, IRDAD_A_STRING, "hi", 2);
	irdad_put_u8(&wr, IRDAD_A_CHARSET, 0);
	irdad_nest_end(&wr);
	irdad_nest_begin(&wr, IRDAD_A_IAS_VALUE);
	irdad_put_u32(&wr, IRDAD_A_OBJ_ID, 9);
	irdad_put_u8(&wr, IRDAD_A_TYPE, IRDAD_IAS_OCTETS);
	irdad_put_bytes(&wr, IRDAD_A_OCTETS, "\x01\x02\x03", 3);
	irdad_nest_end(&wr);
	d_send(fd, &wr, NULL, 0);
}

static void d_check_ias_add(const struct req *r)
{
	char s[64];
	struct irdad_attrs in;
	uint8_t type;
	uint32_t v;
	const uint8_t *bytes;
	size_t len;
	CHECK(irdad_get_str(&r->m.attrs, IRDAD_A_CLASS, s, sizeof(s)) && !strcmp(s, "MyService"));
	CHECK(irdad_count(&r->m.attrs, IRDAD_A_IAS_ATTR) == 2);
	irdad_nest_open(irdad_nth(&r->m.attrs, IRDAD_A_IAS_ATTR, 0), &in);
	CHECK(irdad_get_str(&in, IRDAD_A_NAME, s, sizeof(s)) && !strcmp(s, "IrDA:TinyTP:LsapSel"));
	CHECK(irdad_get_u8(&in, IRDAD_A_TYPE, &type) && type == IRDAD_IAS_INT);
	CHECK(irdad_get_u32(&in, IRDAD_A_INT, &v) && v == 0x12);
	irdad_nest_open(irdad_nth(&r->m.attrs, IRDAD_A_IAS_ATTR, 1), &in);
	CHECK(irdad_get_str(&in, IRDAD_A_NAME, s, sizeof(s)) && !strcmp(s, "Info"));
	CHECK(irdad_get_u8(&in, IRDAD_A_TYPE, &type) && type == IRDAD_IAS_STRING);
	CHECK(irdad_get_bytes(&in, IRDAD_A_STRING, &bytes, &len) && len == 4 &&
	      !memcmp(bytes, "test", 4));
}

/* What irdad names a session: longer than 32 bytes, within OWNER's 96. */
#define LONG_OWNER "session 12 (irspray --listen --daemon, pid 4194303 uid 65534)"

static void d_status_reply(int fd, uint32_t seq)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_STATUS_REPLY, seq);
	irdad_put_u8(&wr, IRDAD_A_LINK, IRDAD_LINK_UP);
	irdad_put_u32(&wr, IRDAD_A_PEER, BETA);
	irdad_nest_begin(&wr, IRDAD_A_COUNTER);
	irdad_put_str(&wr, IRDAD_A_NAME, "frames_tx");
	irdad_put_u64(&wr, IRDAD_A_VALUE64, 123456789012ull);
	irdad_nest_end(&wr);
	irdad_nest_begin(&wr, IRDAD_A_COUNTER);
	irdad_put_str(&wr, IRDAD_A_NAME, "frames_rx");
	irdad_put_u64(&wr, IRDAD_A_VALUE64, 5);
	irdad_nest_end(&wr);
	irdad_nest_begin(&wr, IRDAD_A_CONN);
	irdad_put_u32(&wr, IRDAD_A_CONN_ID, 77);
	irdad_put_u8(&wr, IRDAD_A_MODE, IRDAD_MODE_STREAM);
	irdad_put_u32(&wr, IRDAD_A_DADDR, BETA);
	irdad_put_u8(&wr, IRDAD_A_LSAP, 0x13);
	irdad_put_u8(&wr, IRDAD_A_PEER_LSAP, 0x0a);
	irdad_put_str(&wr, IRDAD_A_OWNER, LONG_OWNER);
	irdad_nest_end(&wr);
	d_send(fd, &wr, NULL, 0);
}

static void daemon_every_request(int fd, int arg)
{
	(void)arg;
	struct req r;
	uint32_t seq, v;
	uint8_t u8;
	char s[64];

	d_hello(fd, "test");

	seq = d_recv(fd, IRDAD_MSG_DISCOVER, &r);
	CHECK(irdad_get_u8(&r.m.attrs, IRDAD_A_FRESH, &u8) && u8 == 1);
	d_stations(fd, seq, 2);

	seq = d_recv(fd, IRDAD_MSG_IAS_QUERY, &r);
	CHECK(irdad_get_u32(&r.m.attrs, IRDAD_A_DADDR, &v) && v == ALPHA);
	CHECK(irdad_get_str(&r.m.attrs, IRDAD_A_CLASS, s, sizeof(s)) && !strcmp(s, "IrDA:IrCOMM"));
	CHECK(irdad_get_str(&r.m.attrs, IRDAD_A_ATTR, s, sizeof(s)) &&
	      !strcmp(s, "IrDA:TinyTP:LsapSel"));
	d_ias_values(fd, seq);

	seq = d_recv(fd, IRDAD_MSG_IAS_ADD, &r);
	d_check_ias_add(&r);
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_OK, seq);
	irdad_put_u32(&wr, IRDAD_A_OBJ_ID, 42);
	d_send(fd, &wr, NULL, 0);

	seq = d_recv(fd, IRDAD_MSG_IAS_REMOVE, &r);
	CHECK(irdad_get_u32(&r.m.attrs, IRDAD_A_OBJ_ID, &v) && v == 42);
	d_ok(fd, seq);

	seq = d_recv(fd, IRDAD_MSG_LISTEN, &r);
	CHECK(irdad_get_u8(&r.m.attrs, IRDAD_A_MODE, &u8) && u8 == IRDAD_MODE_SAR);
	CHECK(!irdad_find(&r.m.attrs, IRDAD_A_LSAP));
	CHECK(irdad_get_u32(&r.m.attrs, IRDAD_A_MAX_SDU, &v) && v == 2048);
	CHECK(irdad_get_str(&r.m.attrs, IRDAD_A_CLASS, s, sizeof(s)) && !strcmp(s, "MyService"));
	CHECK(irdad_get_u8(&r.m.attrs, IRDAD_A_BACKLOG, &u8) && u8 == 4);
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_LISTENING, seq);
	irdad_put_u32(&wr, IRDAD_A_LISTENER_ID, 5);
	irdad_put_u8(&wr, IRDAD_A_LSAP, 0x12);
	d_send(fd, &wr, NULL, 0);

	/* a peer connects to the listener: two SDUs come, one goes back */
	const struct conn_desc in_conn = { 10, 5, IRDAD_MODE_SAR, ALPHA, 0x12, 0x21, 2048, 1024 };
	int data = d_connection(fd, 0, &in_conn);
	CHECK(write(data, "one", 3) == 3);
	CHECK(write(data, "second sdu", 10) == 10);
	char got[64];
	CHECK(read(data, got, sizeof(got)) == 4 && !memcmp(got, "pong", 4));
	close(data);

	seq = d_recv(fd, IRDAD_MSG_CONNECT, &r);
	CHECK(irdad_get_u32(&r.m.attrs, IRDAD_A_DADDR, &v) && v == BETA);
	CHECK(irdad_get_u8(&r.m.attrs, IRDAD_A_LSAP, &u8) && u8 == 0x0a);
	CHECK(!irdad_find(&r.m.attrs, IRDAD_A_CLASS));
	CHECK(irdad_get_u8(&r.m.attrs, IRDAD_A_MODE, &u8) && u8 == IRDAD_MODE_STREAM);
	CHECK(irdad_get_u32(&r.m.attrs, IRDAD_A_TIMEOUT_MS, &v) && v == 3000);
	const struct conn_desc out_conn = { 77, 0, IRDAD_MODE_STREAM, BETA, 0x13, 0x0a, 0, 1024 };
	data = d_connection(fd, seq, &out_conn);
	d_read_all(data, got, 4);
	CHECK(!memcmp(got, "ping", 4));
	CHECK(write(data, "PONG:ping", 9) == 9);
	close(data);

	seq = d_recv(fd, IRDAD_MSG_CLOSE, &r);
	CHECK(irdad_get_u32(&r.m.attrs, IRDAD_A_CONN_ID, &v) && v == 77);
	CHECK(!irdad_find(&r.m.attrs, IRDAD_A_LISTENER_ID));
	d_ok(fd, seq);
	seq = d_recv(fd, IRDAD_MSG_CLOSE, &r);
	CHECK(irdad_get_u32(&r.m.attrs, IRDAD_A_LISTENER_ID, &v) && v == 5);
	d_ok(fd, seq);

	seq = d_recv(fd, IRDAD_MSG_STATUS, &r);
	CHECK(r.m.attrs.n == 0);
	d_status_reply(fd, seq);

	seq = d_recv(fd, IRDAD_MSG_HINTS, &r);
	uint16_t hints = 0;
	CHECK(irdad_get_u16(&r.m.attrs, IRDAD_A_HINTS, &hints) && hints == 0x8020);
	d_ok(fd, seq);

	seq = d_recv(fd, IRDAD_MSG_WATCH, &r);
	CHECK(irdad_get_u32(&r.m.attrs, IRDAD_A_EVENTS, &v) && v == IRDAD_WATCH_STATIONS);
	d_ok(fd, seq);
	d_station_event(fd, BETA, "beta", true);

	/* by class, to the first station offering it, no timeout sent */
	seq = d_recv(fd, IRDAD_MSG_CONNECT, &r);
	CHECK(irdad_get_u32(&r.m.attrs, IRDAD_A_DADDR, &v) && v == 0);
	CHECK(!irdad_find(&r.m.attrs, IRDAD_A_LSAP));
	CHECK(irdad_get_str(&r.m.attrs, IRDAD_A_CLASS, s, sizeof(s)) && !strcmp(s, "IrDA:IrCOMM"));
	CHECK(irdad_get_u8(&r.m.attrs, IRDAD_A_MODE, &u8) && u8 == IRDAD_MODE_LMP);
	CHECK(!irdad_find(&r.m.attrs, IRDAD_A_TIMEOUT_MS));
	const struct conn_desc lmp_conn = { 78, 0, IRDAD_MODE_LMP, ALPHA, 0x14, 0x03, 0, 60 };
	data = d_connection(fd, seq, &lmp_conn);
	CHECK(write(data, "lm-pdu", 6) == 6);
	close(data);

	d_wait_eof(fd);
}

static void client_discover_and_ias(struct irnet_client *cl)
{
	struct irnet_station st[4];
	size_t n = 99;
	assert_int_equal(irnet_client_discover(cl, true, st, 4, &n, TIMEOUT), 0);
	assert_int_equal(n, 2);
	assert_int_equal(st[0].addr, ALPHA);
	assert_int_equal(st[0].hints, 0x8204);
	assert_string_equal((const char *)st[0].nickname, "alpha");
	assert_int_equal(st[0].nickname_len, 5);
	assert_true(st[0].has_age);
	assert_int_equal(st[0].age_ms, 1500);
	assert_int_equal(st[1].addr, BETA);
	assert_false(st[1].has_age);

	struct irnet_ias_value *vals = calloc(4, sizeof(*vals));
	assert_non_null(vals);
	assert_int_equal(irnet_client_ias_query(cl, ALPHA, "IrDA:IrCOMM", "IrDA:TinyTP:LsapSel",
						vals, 4, &n, TIMEOUT), 0);
	assert_int_equal(n, 3);
	assert_int_equal(vals[0].obj_id, 7);
	assert_int_equal(vals[0].type, IRDAD_IAS_INT);
	assert_int_equal(vals[0].integer, 9);
	assert_int_equal(vals[1].type, IRDAD_IAS_STRING);
	assert_int_equal(vals[1].len, 2);
	assert_string_equal((const char *)vals[1].bytes, "hi");
	assert_int_equal(vals[2].type, IRDAD_IAS_OCTETS);
	assert_int_equal(vals[2].len, 3);
	assert_memory_equal(vals[2].bytes, "\x01\x02\x03", 3);
	free(vals);

	const struct irnet_ias_attr attrs[] = {
		{ .name = "IrDA:TinyTP:LsapSel", .type = IRDAD_IAS_INT, .integer = 0x12 },
		{ .name = "Info", .type = IRDAD_IAS_STRING, .bytes = "test", .len = 4 },
	};
	uint32_t obj = 0;
	assert_int_equal(irnet_client_ias_add(cl, "MyService", attrs, 2, &obj, TIMEOUT), 0);
	assert_int_equal(obj, 42);
	assert_int_equal(irnet_client_ias_remove(cl, obj, TIMEOUT), 0);
}

static void client_listen_and_connect(struct irnet_client *cl)
{
	const struct irnet_listen_req lr = { .mode = IRDAD_MODE_SAR, .max_sdu = 2048,
					     .class_name = "MyService", .backlog = 4 };
	uint32_t listener = 0;
	uint8_t lsap = 0;
	int fd = -1;
	struct irnet_conn_info ci;
	char buf[64];
	assert_int_equal(irnet_client_listen(cl, &lr, &listener, &lsap, TIMEOUT), 0);
	assert_int_equal(listener, 5);
	assert_int_equal(lsap, 0x12);

	assert_int_equal(irnet_client_accept(cl, listener, &fd, &ci, TIMEOUT), 0);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(ci.conn_id, 10);
	assert_int_equal(ci.listener_id, 5);
	assert_int_equal(ci.mode, IRDAD_MODE_SAR);
	assert_int_equal(ci.daddr, ALPHA);
	assert_int_equal(ci.peer_lsap, 0x21);
	assert_int_equal(ci.peer_max_sdu, 2048);
	assert_int_equal(ci.tx_max, 1024);
	/* SDU boundaries kept: each read is one SDU */
	assert_int_equal(read(fd, buf, sizeof(buf)), 3);
	assert_memory_equal(buf, "one", 3);
	assert_int_equal(read(fd, buf, sizeof(buf)), 10);
	assert_memory_equal(buf, "second sdu", 10);
	assert_int_equal(write(fd, "pong", 4), 4);
	close(fd);

	const struct irnet_connect_req cr = { .daddr = BETA, .lsap = 0x0a,
					      .mode = IRDAD_MODE_STREAM };
	assert_int_equal(irnet_client_connect(cl, &cr, &fd, &ci, 3000), 0);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(ci.conn_id, 77);
	assert_int_equal(ci.listener_id, 0);
	assert_int_equal(ci.lsap, 0x13);
	assert_int_equal(ci.peer_lsap, 0x0a);
	assert_int_equal(ci.peer_max_sdu, 0);
	assert_int_equal(write(fd, "ping", 4), 4);
	size_t got = 0;
	while (got < 9) {
		ssize_t r = read(fd, buf + got, sizeof(buf) - got);
		assert_true(r > 0);
		got += (size_t)r;
	}
	assert_memory_equal(buf, "PONG:ping", 9);
	close(fd);
	assert_int_equal(irnet_client_close_conn(cl, 77, TIMEOUT), 0);
	assert_int_equal(irnet_client_close_listener(cl, listener, TIMEOUT), 0);
}

/* Counts the debug lines and remembers whether one was seen. */
struct log_seen {
	int lines;
	const char *want;
	bool seen;
};

static void log_sink_seen(void *ctx, enum log_level level, const char *msg)
{
	struct log_seen *ls = ctx;
	(void)level;
	ls->lines++;
	ls->seen |= strstr(msg, ls->want) != NULL;
}

static void every_request_answered(void **state)
{
	(void)state;
	pid_t pid;
	int fds0 = count_fds();
	struct irnet_client *cl = attach(start_daemon(daemon_every_request, 0, &pid));
	struct log_seen ls = { .want = "-> DISCOVER seq 2" };
	const struct logger log = { .sink = log_sink_seen, .ctx = &ls, .max = LOG_LEVEL_DEBUG };
	irnet_client_set_logger(cl, &log);

	client_discover_and_ias(cl);
	client_listen_and_connect(cl);

	struct irnet_status *st = calloc(1, sizeof(*st));
	uint64_t v = 0;
	assert_non_null(st);
	assert_int_equal(irnet_client_status(cl, st, TIMEOUT), 0);
	assert_int_equal(st->link, IRDAD_LINK_UP);
	assert_true(st->has_peer);
	assert_int_equal(st->peer, BETA);
	assert_int_equal(st->n_counters, 2);
	assert_true(irnet_status_counter(st, "frames_tx", &v));
	assert_int_equal(v, 123456789012ull);
	assert_false(irnet_status_counter(st, "nothing", &v));
	assert_int_equal(st->n_conns, 1);
	assert_int_equal(st->conns[0].conn_id, 77);
	assert_string_equal(st->conns[0].owner, LONG_OWNER);
	free(st);

	struct irnet_event ev;
	assert_int_equal(irnet_client_hints(cl, 0x8020, TIMEOUT), 0);
	assert_int_equal(irnet_client_watch(cl, IRDAD_WATCH_STATIONS, TIMEOUT), 0);
	assert_int_equal(irnet_client_wait_event(cl, &ev, TIMEOUT), 1);
	assert_int_equal(ev.type, IRNET_EVENT_STATION);
	assert_true(ev.present);
	assert_int_equal(ev.station.addr, BETA);
	assert_int_equal(ev.fd, -1);

	const struct irnet_connect_req cr = { .class_name = "IrDA:IrCOMM", .mode = IRDAD_MODE_LMP };
	struct irnet_conn_info ci;
	int fd = -1;
	char buf[16];
	assert_int_equal(irnet_client_connect(cl, &cr, &fd, &ci, -1), 0);
	assert_int_equal(ci.daddr, ALPHA);
	assert_int_equal(ci.tx_max, 60);
	assert_int_equal(read(fd, buf, sizeof(buf)), 6);
	assert_memory_equal(buf, "lm-pdu", 6);
	close(fd);

	assert_string_equal(irnet_client_error(cl), "");
	assert_int_equal(irnet_client_next_event(cl, &ev), 0);
	assert_true(ls.seen);
	assert_true(ls.lines >= 11 + 13); /* 11 requests sent, 13 messages received */
	irnet_client_close(cl);
	end_daemon(pid);
	assert_int_equal(count_fds(), fds0);
}

/* --- events while waiting ----------------------------------------------- */

static void daemon_interleaved(int fd, int arg)
{
	(void)arg;
	struct req r;
	d_hello(fd, "test");
	uint32_t seq = d_recv(fd, IRDAD_MSG_DISCOVER, &r);
	d_station_event(fd, ALPHA, "alpha", true);
	d_disconnected(fd, 9, 2, "link lost");
	const struct conn_desc c = { 10, 5, IRDAD_MODE_STREAM, ALPHA, 0x12, 0x21, 0, 1024 };
	int data = d_connection(fd, 0, &c);
	d_station_event(fd, ALPHA, "alpha", false);
	d_stations(fd, seq, 0);
	seq = d_recv(fd, IRDAD_MSG_STATUS, &r);
	d_disconnected(fd, 10, 1, NULL);
	d_status_reply(fd, seq);
	CHECK(write(data, "x", 1) == 1);
	close(data);
	d_wait_eof(fd);
}

static void next_event_is(struct irnet_client *cl, enum irnet_event_type type, uint32_t id)
{
	struct irnet_event ev;
	assert_int_equal(irnet_client_next_event(cl, &ev), 1);
	assert_int_equal(ev.type, type);
	assert_int_equal(ev.fd, -1);
	if (type == IRNET_EVENT_DISCONNECTED)
		assert_int_equal(ev.conn_id, id);
	else
		assert_int_equal(ev.station.addr, id);
}

static void events_queued_in_order(void **state)
{
	(void)state;
	pid_t pid;
	int fds0 = count_fds();
	struct irnet_client *cl = attach(start_daemon(daemon_interleaved, 0, &pid));
	struct irnet_station st[2];
	struct irnet_status *status = calloc(1, sizeof(*status));
	struct irnet_conn_info ci;
	struct irnet_event ev;
	size_t n = 9;
	int fd = -1;
	char c;
	assert_non_null(status);

	assert_int_equal(irnet_client_discover(cl, false, st, 2, &n, TIMEOUT), 0);
	assert_int_equal(n, 0);
	assert_int_equal(irnet_client_queued(cl), 4);
	/* accept takes the queued connection out of the middle */
	assert_int_equal(irnet_client_accept(cl, 5, &fd, &ci, 0), 0);
	assert_int_equal(ci.conn_id, 10);
	assert_int_equal(irnet_client_queued(cl), 3);
	assert_int_equal(irnet_client_status(cl, status, TIMEOUT), 0);
	assert_int_equal(irnet_client_queued(cl), 4);
	assert_int_equal(read(fd, &c, 1), 1);
	assert_int_equal(c, 'x');
	close(fd);

	next_event_is(cl, IRNET_EVENT_STATION, ALPHA);
	next_event_is(cl, IRNET_EVENT_DISCONNECTED, 9);
	next_event_is(cl, IRNET_EVENT_STATION, ALPHA);
	next_event_is(cl, IRNET_EVENT_DISCONNECTED, 10);
	assert_int_equal(irnet_client_next_event(cl, &ev), 0);
	assert_int_equal(irnet_client_queued(cl), 0);
	struct pollfd p = { .fd = irnet_client_fd(cl), .events = POLLIN };
	assert_int_equal(poll(&p, 1, 0), 0);
	/* nothing more comes for the listener */
	expect_error(cl, irnet_client_accept(cl, 5, &fd, &ci, 50), -ETIMEDOUT, "listener 5");
	assert_int_equal(fd, -1);
	assert_true(irnet_client_usable(cl));

	free(status);
	irnet_client_close(cl);
	end_daemon(pid);
	assert_int_equal(count_fds(), fds0);
}

/* The event order and texts, checked separately from the queue above. */
static void daemon_event_details(int fd, int arg)
{
	(void)arg;
	d_hello(fd, "test");
	d_disconnected(fd, 9, 2, "link lost");
	d_station_event(fd, BETA, "beta", false);
	d_wait_eof(fd);
}

static void event_details(void **state)
{
	(void)state;
	pid_t pid;
	struct irnet_client *cl = attach(start_daemon(daemon_event_details, 0, &pid));
	struct irnet_event ev;
	assert_int_equal(irnet_client_wait_event(cl, &ev, TIMEOUT), 1);
	assert_int_equal(ev.type, IRNET_EVENT_DISCONNECTED);
	assert_int_equal(ev.reason, 2);
	assert_string_equal(ev.text, "link lost");
	assert_int_equal(irnet_client_wait_event(cl, &ev, TIMEOUT), 1);
	assert_int_equal(ev.type, IRNET_EVENT_STATION);
	assert_false(ev.present);
	assert_string_equal((const char *)ev.station.nickname, "beta");
	assert_int_equal(irnet_client_wait_event(cl, &ev, 20), 0);
	irnet_client_close(cl);
	end_daemon(pid);
}

/* Events nobody takes are bounded: one over the limit ends the session. */
static void daemon_flood(int fd, int arg)
{
	(void)arg;
	struct req r;
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	d_hello(fd, "test");
	uint32_t seq = d_recv(fd, IRDAD_MSG_STATUS, &r);
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_DISCONNECTED, 0);
	irdad_put_u32(&wr, IRDAD_A_CONN_ID, 1);
	irdad_put_u8(&wr, IRDAD_A_REASON, 1);
	long n = irdad_write_end(&wr, NULL, 0);
	CHECK(n > 0);
	/* the client stops reading at the limit: sends then fail, quietly */
	for (int i = 0; i <= IRNET_CLIENT_EVENTS_MAX; i++)
		if (send(fd, b, (size_t)n, MSG_NOSIGNAL) < 0)
			_exit(0);
	(void)seq; /* never answered: the client gives up first */
	d_wait_eof(fd);
}

static void event_queue_bounded(void **state)
{
	(void)state;
	pid_t pid;
	struct irnet_client *cl = attach(start_daemon(daemon_flood, 0, &pid));
	struct irnet_status *st = calloc(1, sizeof(*st));
	assert_non_null(st);
	expect_error(cl, irnet_client_status(cl, st, TIMEOUT), -ENOBUFS, "events not taken");
	assert_int_equal(irnet_client_queued(cl), IRNET_CLIENT_EVENTS_MAX);
	free(st);
	irnet_client_close(cl);
	end_daemon(pid);
}

/* --- errors ---------------------------------------------------------------- */

static void daemon_error_reply(int fd, int arg)
{
	(void)arg;
	struct req r;
	d_hello(fd, "test");
	uint32_t seq = d_recv(fd, IRDAD_MSG_IAS_QUERY, &r);
	d_error(fd, seq, ENOENT, "11111111 has no class Foo");
	/* the refused CONNECT is never sent: DISCOVER comes next */
	seq = d_recv(fd, IRDAD_MSG_DISCOVER, &r);
	d_stations(fd, seq, 1);
	d_wait_eof(fd);
}

static void error_reply(void **state)
{
	(void)state;
	pid_t pid;
	struct irnet_client *cl = attach(start_daemon(daemon_error_reply, 0, &pid));
	struct irnet_ias_value v;
	struct irnet_station st;
	size_t n = 7;
	int fd = 3;
	struct irnet_conn_info ci;

	int rc = irnet_client_ias_query(cl, ALPHA, "Foo", "Bar", &v, 1, &n, TIMEOUT);
	assert_int_equal(rc, -ENOENT);
	assert_string_equal(irnet_client_error(cl), "11111111 has no class Foo");
	assert_int_equal(n, 0);
	assert_true(irnet_client_usable(cl));

	/* a request that breaks the schema is refused before it is sent */
	const struct irnet_connect_req both = { .daddr = ALPHA, .lsap = 3, .class_name = "X",
						.mode = IRDAD_MODE_STREAM };
	expect_error(cl, irnet_client_connect(cl, &both, &fd, &ci, TIMEOUT), -EINVAL,
		     "LSAP or CLASS");
	assert_int_equal(fd, -1);
	expect_error(cl, irnet_client_ias_query(cl, ALPHA, NULL, "Bar", &v, 1, &n, TIMEOUT),
		     -EINVAL, "missing");
	assert_true(irnet_client_usable(cl));

	assert_int_equal(irnet_client_discover(cl, false, &st, 1, &n, TIMEOUT), 0);
	assert_int_equal(n, 1);
	assert_string_equal(irnet_client_error(cl), "");
	irnet_client_close(cl);
	end_daemon(pid);
}

/* --- ATTACH: two descriptors with the request ------------------------------ */

/* Receives a request with the descriptors it brought (fdpass, after a
 * blocking wait: fdpass_recv does not wait). */
static uint32_t d_recv_fds(int fd, uint8_t type, struct req *r, struct fdpass_fds *fds)
{
	char why[160];
	int flags = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	CHECK(poll(&p, 1, TIMEOUT) == 1);
	ssize_t n = fdpass_recv(fd, r->buf, sizeof(r->buf), fds, &flags);
	CHECK(n > 0 && !(flags & (MSG_TRUNC | MSG_CTRUNC)));
	if (irdad_msg_decode(r->buf, (size_t)n, &r->m, why, sizeof(why)) != 0) {
		fprintf(stderr, "fake irdad: %s\n", why);
		_exit(3);
	}
	CHECK(r->m.type == type);
	return r->m.seq;
}

static void d_ok_endpoint(int fd, uint32_t seq, bool with_id)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_OK, seq);
	if (with_id)
		irdad_put_u32(&wr, IRDAD_A_ENDPOINT_ID, 7);
	d_send(fd, &wr, NULL, 0);
}

static void daemon_attach(int fd, int arg)
{
	(void)arg;
	struct req r;
	struct fdpass_fds fds;
	char nick[24];
	uint8_t u8 = 0xff;
	uint32_t u32 = 0;
	d_hello(fd, "test");

	/* a call by nickname with a timeout: both descriptors, in order */
	uint32_t seq = d_recv_fds(fd, IRDAD_MSG_ATTACH, &r, &fds);
	CHECK(fds.n == 2);
	CHECK(irdad_get_u8(&r.m.attrs, IRDAD_A_SERVICE, &u8) && u8 == IRDAD_ATTACH_IRNET);
	CHECK(irdad_get_u8(&r.m.attrs, IRDAD_A_ROLE, &u8) && u8 == IRDAD_ATTACH_CALL);
	CHECK(irdad_get_str(&r.m.attrs, IRDAD_A_NICKNAME, nick, sizeof(nick)));
	CHECK(strcmp(nick, "beta") == 0);
	CHECK(irdad_get_u32(&r.m.attrs, IRDAD_A_TIMEOUT_MS, &u32) && u32 == 2000);
	CHECK(!irdad_find(&r.m.attrs, IRDAD_A_DADDR));
	/* [0] the channel, both ways; [1] the status, written */
	CHECK(write(fds.fd[0], "\x7e\x01\x7e", 3) == 3);
	static const char up[] = "up 0x22222222 \"beta\"\n";
	CHECK(write(fds.fd[1], up, sizeof(up) - 1) == (ssize_t)sizeof(up) - 1);
	d_ok_endpoint(fd, seq, true);
	char in[8];
	CHECK(read(fds.fd[0], in, sizeof(in)) == 3 && memcmp(in, "\x7e\x02\x7e", 3) == 0);
	fdpass_close(&fds);

	/* a listener refused (the session's limit): the session goes on */
	seq = d_recv_fds(fd, IRDAD_MSG_ATTACH, &r, &fds);
	CHECK(fds.n == 2);
	CHECK(irdad_get_u8(&r.m.attrs, IRDAD_A_ROLE, &u8) && u8 == IRDAD_ATTACH_LISTEN);
	CHECK(!irdad_find(&r.m.attrs, IRDAD_A_NICKNAME) && !irdad_find(&r.m.attrs, IRDAD_A_DADDR) &&
	      !irdad_find(&r.m.attrs, IRDAD_A_TIMEOUT_MS));
	fdpass_close(&fds);
	d_error(fd, seq, EBUSY, "4 endpoints of this session already");

	/* a call by address */
	seq = d_recv_fds(fd, IRDAD_MSG_ATTACH, &r, &fds);
	CHECK(fds.n == 2);
	CHECK(irdad_get_u32(&r.m.attrs, IRDAD_A_DADDR, &u32) && u32 == BETA);
	fdpass_close(&fds);
	/* OK without ENDPOINT_ID: refused by the library */
	d_ok_endpoint(fd, seq, false);
	d_wait_eof(fd);
}

static void attach_endpoint(void **state)
{
	(void)state;
	int fds0 = count_fds();
	pid_t pid;
	struct irnet_client *cl = attach(start_daemon(daemon_attach, 0, &pid));
	int chan[2], status[2];
	uint32_t id = 99;
	char err[256];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, chan), 0);
	assert_int_equal(pipe2(status, O_CLOEXEC), 0);

	/* refused before sending: no descriptor, both peers named */
	struct irnet_attach_req req = { .service = IRDAD_ATTACH_IRNET, .role = IRDAD_ATTACH_CALL,
					.nickname = "beta", .timeout_ms = 2000 };
	int rc = irnet_client_attach_endpoint(cl, &req, -1, status[1], &id, err, sizeof(err));
	expect_error(cl, rc, -EBADF, "channel");
	assert_non_null(strstr(err, "channel"));
	assert_int_equal(id, 0);
	struct irnet_attach_req both = req;
	both.daddr = BETA;
	rc = irnet_client_attach_endpoint(cl, &both, chan[1], status[1], &id, err, sizeof(err));
	expect_error(cl, rc, -EINVAL, "DADDR or NICKNAME, not both");
	assert_true(irnet_client_usable(cl));

	rc = irnet_client_attach_endpoint(cl, &req, chan[1], status[1], &id, err, sizeof(err));
	if (rc)
		print_message("attach: %s\n", err);
	assert_int_equal(rc, 0);
	assert_int_equal(id, 7);
	/* the daemon's copies worked: its frame and its status line came */
	char buf[64];
	assert_int_equal(read(chan[0], buf, sizeof(buf)), 3);
	assert_memory_equal(buf, "\x7e\x01\x7e", 3);
	assert_int_equal(write(chan[0], "\x7e\x02\x7e", 3), 3);
	ssize_t n = read(status[0], buf, sizeof(buf));
	assert_int_equal(n, 21);
	assert_memory_equal(buf, "up 0x22222222 \"beta\"\n", 21);
	/* ours are still ours */
	assert_true(fcntl(chan[1], F_GETFD) >= 0 && fcntl(status[1], F_GETFD) >= 0);

	struct irnet_attach_req listen = { .service = IRDAD_ATTACH_IRNET,
					   .role = IRDAD_ATTACH_LISTEN };
	rc = irnet_client_attach_endpoint(cl, &listen, chan[1], status[1], &id, err, sizeof(err));
	expect_error(cl, rc, -EBUSY, "4 endpoints of this session already");
	assert_string_equal(err, "4 endpoints of this session already");
	assert_true(irnet_client_usable(cl));

	struct irnet_attach_req by_addr = { .service = IRDAD_ATTACH_IRNET,
					    .role = IRDAD_ATTACH_CALL, .daddr = BETA };
	rc = irnet_client_attach_endpoint(cl, &by_addr, chan[1], status[1], &id, err, sizeof(err));
	expect_error(cl, rc, -EBADMSG, "without ENDPOINT_ID");
	assert_false(irnet_client_usable(cl));
	irnet_client_close(cl);
	end_daemon(pid);
	close(chan[0]);
	close(chan[1]);
	close(status[0]);
	close(status[1]);
	assert_int_equal(count_fds(), fds0);
}

/* Malformed or misdirected answers: each a fresh session, each refused
 * with a reason, the session dead, no descriptor left behind. */
enum bad_case {
	BAD_OWNER,
	BAD_WRONG_TYPE,
	BAD_UNKNOWN_SEQ,
	BAD_REQUEST_TYPE,
	BAD_EVENT_SEQ,
	BAD_ERRNO,
	BAD_SHORT,
	BAD_OVERSIZED,
	BAD_FD_WITH_OK,
	BAD_FD_WITH_EVENT,
	BAD_CONNECTION_NO_FD,
	BAD_CONNECTION_TWO_FDS,
	BAD_CONNECTION_MANY_FDS,
	BAD_CONNECTION_SOCKTYPE,
	BAD_CONNECTION_NOT_A_SOCKET,
	BAD_CONNECTION_MODE,
	BAD_COUNT
};

static const struct {
	bool connect;             /* the client's request: CONNECT, else STATUS */
	const char *why;          /* in the client's error */
} bad_cases[BAD_COUNT] = {
	[BAD_OWNER] = { false, "CONN: OWNER: length 100 is not 1-96" },
	[BAD_WRONG_TYPE] = { false, "STATUS seq 2 answered with LISTENING" },
	[BAD_UNKNOWN_SEQ] = { false, "OK seq 99 answers no request" },
	[BAD_REQUEST_TYPE] = { false, "irdad sent HELLO, a request" },
	[BAD_EVENT_SEQ] = { false, "DISCONNECTED with seq 2: events carry 0" },
	[BAD_ERRNO] = { false, "ERRNO 0 is not an errno value" },
	[BAD_SHORT] = { false, "shorter than the 8-byte header" },
	[BAD_OVERSIZED] = { false, "over 4096 bytes" },
	[BAD_FD_WITH_OK] = { false, "STATUS_REPLY seq 2 carried 1 descriptors, it takes 0" },
	[BAD_FD_WITH_EVENT] = { false, "STATION seq 0 carried 1 descriptors, it takes 0" },
	[BAD_CONNECTION_NO_FD] = { true, "CONNECTION seq 2 carried 0 descriptors, it takes 1" },
	[BAD_CONNECTION_TWO_FDS] = { true, "CONNECTION seq 2 carried 2 descriptors, it takes 1" },
	[BAD_CONNECTION_MANY_FDS] = { true, "more than 8 descriptors" },
	[BAD_CONNECTION_SOCKTYPE] = { true, "a SOCK_DGRAM descriptor for mode stream" },
	[BAD_CONNECTION_NOT_A_SOCKET] = { true, "not a socket" },
	[BAD_CONNECTION_MODE] = { true, "mode sar to 22222222 LSAP 10, CONNECT asked for mode stream" },
};

/* Writes a STATUS_REPLY whose CONN OWNER is over its 96-byte limit. */
static void d_bad_owner(struct irdad_writer *wr)
{
	irdad_put_u8(wr, IRDAD_A_LINK, IRDAD_LINK_UP);
	irdad_nest_begin(wr, IRDAD_A_CONN);
	irdad_put_u32(wr, IRDAD_A_CONN_ID, 1);
	irdad_put_u8(wr, IRDAD_A_MODE, IRDAD_MODE_STREAM);
	irdad_put_u32(wr, IRDAD_A_DADDR, BETA);
	irdad_put_u8(wr, IRDAD_A_LSAP, 1);
	irdad_put_u8(wr, IRDAD_A_PEER_LSAP, 2);
	irdad_put_str(wr, IRDAD_A_OWNER, "0123456789012345678901234567890123456789"
						    "0123456789012345678901234567890123456789"
						    "01234567890123456789");
	irdad_nest_end(wr);
}

static void d_bad_connection(int fd, uint32_t seq, const int *fds, size_t nfds, uint8_t mode)
{
	uint8_t b[IRDAD_MSG_MAX];
	struct irdad_writer wr;
	const struct conn_desc c = { 1, 0, mode, BETA, 0x13, 0x0a, 0, 1024 };
	irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_CONNECTION, seq);
	put_connection(&wr, &c);
	d_send(fd, &wr, fds, nfds);
}

static void daemon_bad(int fd, int which)
{
	struct req r;
	uint8_t b[IRDAD_MSG_MAX + 16];
	struct irdad_writer wr;
	int sv[2], many[12];
	d_hello(fd, "test");
	uint32_t seq = d_recv(fd, bad_cases[which].connect ? IRDAD_MSG_CONNECT : IRDAD_MSG_STATUS,
			      &r);
	CHECK(seq == 2);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	switch ((enum bad_case)which) {
	case BAD_OWNER:
		irdad_write_begin(&wr, b, IRDAD_MSG_MAX, IRDAD_MSG_STATUS_REPLY, seq);
		d_bad_owner(&wr);
		d_send_unchecked(fd, &wr, NULL, 0);
		break;
	case BAD_WRONG_TYPE:
		irdad_write_begin(&wr, b, IRDAD_MSG_MAX, IRDAD_MSG_LISTENING, seq);
		irdad_put_u32(&wr, IRDAD_A_LISTENER_ID, 1);
		irdad_put_u8(&wr, IRDAD_A_LSAP, 1);
		d_send(fd, &wr, NULL, 0);
		break;
	case BAD_UNKNOWN_SEQ:
		d_ok(fd, 99);
		break;
	case BAD_REQUEST_TYPE:
		irdad_write_begin(&wr, b, IRDAD_MSG_MAX, IRDAD_MSG_HELLO, 0);
		d_send(fd, &wr, NULL, 0);
		break;
	case BAD_EVENT_SEQ:
		irdad_write_begin(&wr, b, IRDAD_MSG_MAX, IRDAD_MSG_DISCONNECTED, seq);
		irdad_put_u32(&wr, IRDAD_A_CONN_ID, 1);
		irdad_put_u8(&wr, IRDAD_A_REASON, 1);
		d_send(fd, &wr, NULL, 0);
		break;
	case BAD_ERRNO:
		d_error(fd, seq, 0, "no error at all");
		break;
	case BAD_SHORT:
		d_send_raw(fd, "\x01\x40\x00", 3, &sv[0], 1);
		break;
	case BAD_OVERSIZED:
		memset(b, 0, sizeof(b));
		b[0] = IRDAD_PROTO_VERSION;
		b[1] = IRDAD_MSG_OK;
		b[7] = (uint8_t)seq;
		d_send_raw(fd, b, IRDAD_MSG_MAX + 1, &sv[0], 1);
		break;
	case BAD_FD_WITH_OK:
		irdad_write_begin(&wr, b, IRDAD_MSG_MAX, IRDAD_MSG_STATUS_REPLY, seq);
		irdad_put_u8(&wr, IRDAD_A_LINK, IRDAD_LINK_DOWN);
		d_send(fd, &wr, &sv[0], 1);
		break;
	case BAD_FD_WITH_EVENT:
		irdad_write_begin(&wr, b, IRDAD_MSG_MAX, IRDAD_MSG_STATION, 0);
		put_station(&wr, ALPHA, "alpha", false);
		irdad_put_u8(&wr, IRDAD_A_PRESENT, 1);
		d_send(fd, &wr, &sv[0], 1);
		break;
	case BAD_CONNECTION_NO_FD:
		d_bad_connection(fd, seq, NULL, 0, IRDAD_MODE_STREAM);
		break;
	case BAD_CONNECTION_TWO_FDS:
		d_bad_connection(fd, seq, sv, 2, IRDAD_MODE_STREAM);
		break;
	case BAD_CONNECTION_MANY_FDS:
		for (size_t i = 0; i < 12; i++)
			many[i] = sv[i % 2];
		d_bad_connection(fd, seq, many, 12, IRDAD_MODE_STREAM);
		break;
	case BAD_CONNECTION_SOCKTYPE: {
		int dg[2];
		CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, dg) == 0);
		d_bad_connection(fd, seq, &dg[0], 1, IRDAD_MODE_STREAM);
		break;
	}
	case BAD_CONNECTION_NOT_A_SOCKET: {
		int pp[2];
		CHECK(pipe(pp) == 0);
		d_bad_connection(fd, seq, &pp[0], 1, IRDAD_MODE_STREAM);
		break;
	}
	case BAD_CONNECTION_MODE: {
		int sp[2];
		CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp) == 0);
		d_bad_connection(fd, seq, &sp[0], 1, IRDAD_MODE_SAR);
		break;
	}
	case BAD_COUNT:
		break;
	}
	d_wait_eof(fd);
}

static void malformed_replies_refused(void **state)
{
	(void)state;
	for (int i = 0; i < BAD_COUNT; i++) {
		pid_t pid;
		int fds0 = count_fds();
		struct irnet_client *cl = attach(start_daemon(daemon_bad, i, &pid));
		int fds1 = count_fds(), rc, fd = -1;
		struct irnet_status *st = calloc(1, sizeof(*st));
		struct irnet_conn_info ci;
		const struct irnet_connect_req cr = { .daddr = BETA, .lsap = 0x0a,
						      .mode = IRDAD_MODE_STREAM };
		assert_non_null(st);
		print_message("# case %d: %s\n", i, bad_cases[i].why);
		if (bad_cases[i].connect)
			rc = irnet_client_connect(cl, &cr, &fd, &ci, TIMEOUT);
		else
			rc = irnet_client_status(cl, st, TIMEOUT);
		expect_error(cl, rc, -EBADMSG, bad_cases[i].why);
		assert_int_equal(fd, -1);
		assert_false(irnet_client_usable(cl));
		/* every descriptor that came with the refused message is closed */
		assert_int_equal(count_fds(), fds1);
		/* the session stays dead, with its reason */
		expect_error(cl, irnet_client_status(cl, st, TIMEOUT), -EBADMSG,
			     bad_cases[i].why);
		free(st);
		irnet_client_close(cl);
		end_daemon(pid);
		assert_int_equal(count_fds(), fds0);
	}
}

/* --- a daemon that hangs, one that goes away ------------------------------ */

static void daemon_slow(int fd, int arg)
{
	(void)arg;
	struct req r;
	d_hello(fd, "test");
	uint32_t status_seq = d_recv(fd, IRDAD_MSG_STATUS, &r);
	uint32_t connect_seq = d_recv(fd, IRDAD_MSG_CONNECT, &r);
	/* the client gave up on both; answers come late, then the third */
	uint32_t seq = d_recv(fd, IRDAD_MSG_DISCOVER, &r);
	const struct conn_desc c = { 77, 0, IRDAD_MODE_STREAM, BETA, 0x13, 0x0a, 0, 1024 };
	close(d_connection(fd, connect_seq, &c));
	d_status_reply(fd, status_seq);
	d_stations(fd, seq, 2);
	/* a second late answer to the same request answers nothing */
	d_recv(fd, IRDAD_MSG_WATCH, &r);
	d_status_reply(fd, status_seq);
	d_wait_eof(fd);
}

static void timeouts_and_late_replies(void **state)
{
	(void)state;
	pid_t pid;
	struct irnet_client *cl = attach(start_daemon(daemon_slow, 0, &pid));
	struct irnet_status *st = calloc(1, sizeof(*st));
	struct irnet_station sts[2];
	struct irnet_conn_info ci;
	size_t n = 0;
	int fd = 5;
	assert_non_null(st);
	int fds0 = count_fds();

	int64_t t0 = mono_ms();
	expect_error(cl, irnet_client_status(cl, st, 200), -ETIMEDOUT, "no answer to STATUS");
	assert_true(mono_ms() - t0 >= 200);
	assert_true(irnet_client_usable(cl));

	const struct irnet_connect_req cr = { .daddr = BETA, .lsap = 0x0a,
					      .mode = IRDAD_MODE_STREAM };
	t0 = mono_ms();
	expect_error(cl, irnet_client_connect(cl, &cr, &fd, &ci, 0), -ETIMEDOUT,
		     "no answer to CONNECT");
	/* CONNECT waits for irdad's own timeout plus the grace */
	assert_true(mono_ms() - t0 >= IRNET_CLIENT_CONNECT_GRACE_MS);
	assert_int_equal(fd, -1);

	/* both late replies are dropped (the descriptor closed), the third is ours */
	assert_int_equal(irnet_client_discover(cl, true, sts, 2, &n, TIMEOUT), 0);
	assert_int_equal(n, 2);
	assert_int_equal(count_fds(), fds0);
	assert_int_equal(irnet_client_queued(cl), 0);
	expect_error(cl, irnet_client_watch(cl, 1, TIMEOUT), -EBADMSG,
		     "STATUS_REPLY seq 2 answers no request");
	free(st);
	irnet_client_close(cl);
	end_daemon(pid);
}

static void daemon_silent_hello(int fd, int arg)
{
	(void)arg;
	struct req r;
	d_recv(fd, IRDAD_MSG_HELLO, &r);
	d_wait_eof(fd);
}

static void hello_timeout(void **state)
{
	(void)state;
	pid_t pid;
	int fds0 = count_fds();
	struct irnet_client *cl = NULL;
	char err[200];
	int fd = start_daemon(daemon_silent_hello, 0, &pid);
	assert_int_equal(irnet_client_attach(fd, "test", 100, &cl, err, sizeof(err)), -ETIMEDOUT);
	assert_null(cl);
	assert_non_null(strstr(err, "no answer to HELLO within 100 ms"));
	end_daemon(pid);
	assert_int_equal(count_fds(), fds0);
}

static void daemon_goes_away(int fd, int arg)
{
	struct req r;
	d_hello(fd, "test");
	d_recv(fd, IRDAD_MSG_DISCOVER, &r);
	if (arg)
		d_disconnected(fd, 4, 1, "irdad stopping");
	/* exits without answering: the socket closes */
}

static void daemon_closes_mid_request(void **state)
{
	(void)state;
	for (int with_event = 0; with_event < 2; with_event++) {
		pid_t pid;
		struct irnet_client *cl = attach(start_daemon(daemon_goes_away, with_event, &pid));
		struct irnet_station st;
		struct irnet_event ev;
		size_t n;
		expect_error(cl, irnet_client_discover(cl, true, &st, 1, &n, TIMEOUT), -ECONNRESET,
			     "irdad closed the session");
		assert_false(irnet_client_usable(cl));
		/* an event that came before the end is still delivered */
		if (with_event) {
			assert_int_equal(irnet_client_next_event(cl, &ev), 1);
			assert_int_equal(ev.type, IRNET_EVENT_DISCONNECTED);
			assert_string_equal(ev.text, "irdad stopping");
		}
		assert_int_equal(irnet_client_next_event(cl, &ev), -ECONNRESET);
		assert_int_equal(irnet_client_watch(cl, 1, TIMEOUT), -ECONNRESET);
		irnet_client_close(cl);
		end_daemon(pid);
	}
}

/* --- versions ---------------------------------------------------------------- */

static void daemon_other_version(int fd, int arg)
{
	struct req r;
	uint32_t seq = d_recv(fd, IRDAD_MSG_HELLO, &r);
	if (arg == 0) {
		/* a version-2 daemon answers in its own version */
		uint8_t b[IRDAD_MSG_MAX];
		struct irdad_writer wr;
		irdad_write_begin(&wr, b, sizeof(b), IRDAD_MSG_HELLO_REPLY, seq);
		irdad_put_str(&wr, IRDAD_A_PORT, "ttyUSB0");
		irdad_put_u32(&wr, IRDAD_A_ADDR, OUR_ADDR);
		irdad_put_bytes(&wr, IRDAD_A_NICKNAME, "x", 1);
		irdad_put_u32(&wr, IRDAD_A_MAX_MSG, IRDAD_MSG_MAX);
		b[0] = 2;
		d_send_unchecked(fd, &wr, NULL, 0);
	} else {
		d_error(fd, seq, EPROTONOSUPPORT, "this irdad speaks version 2 only");
	}
	d_wait_eof(fd);
}

static void version_mismatch(void **state)
{
	(void)state;
	static const char *const want[] = { "version 2, this is version 1",
					    "refused API version 1: this irdad speaks version 2 only" };
	for (int i = 0; i < 2; i++) {
		pid_t pid;
		struct irnet_client *cl = NULL;
		char err[256];
		int fds0 = count_fds();
		int fd = start_daemon(daemon_other_version, i, &pid);
		int rc = irnet_client_attach(fd, "test", TIMEOUT, &cl, err, sizeof(err));
		if (!strstr(err, want[i]))
			print_message("got \"%s\"\n", err);
		assert_int_equal(rc, -EPROTONOSUPPORT);
		assert_null(cl);
		assert_non_null(strstr(err, want[i]));
		end_daemon(pid);
		assert_int_equal(count_fds(), fds0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(socket_path_from_names),
		cmocka_unit_test(open_by_path),
		cmocka_unit_test(every_request_answered),
		cmocka_unit_test(events_queued_in_order),
		cmocka_unit_test(event_details),
		cmocka_unit_test(event_queue_bounded),
		cmocka_unit_test(error_reply),
		cmocka_unit_test(attach_endpoint),
		cmocka_unit_test(malformed_replies_refused),
		cmocka_unit_test(timeouts_and_late_replies),
		cmocka_unit_test(hello_timeout),
		cmocka_unit_test(daemon_closes_mid_request),
		cmocka_unit_test(version_mismatch),
	};
	return cmocka_run_group_tests_name("irnet_client", tests, NULL, NULL);
}
