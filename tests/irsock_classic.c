/*
 * irsock_classic.c: a program written against the classic Linux AF_IRDA
 * socket API, as programs of its time were, and nothing of irnet-tools
 * (no irnet header, no irnet library): tests/irsock-api.sh runs it under
 * irsock(1) and checks what it prints; tests/irdad-soak-rt.sh runs its
 * cycles mode.
 *
 *   irsock_classic serve                 echo servers, stream and seqpacket
 *   irsock_classic discover              IRLMP_ENUMDEVICES
 *   irsock_classic ias ADDR CLASS ATTR   IRLMP_IAS_QUERY
 *   irsock_classic echo stream|seq ADDR BYTES WRITE   an echo, checked
 *   irsock_classic refused ADDR          connects that must fail
 *   irsock_classic nonblock ADDR         non-blocking connect, both ends
 *   irsock_classic forkdup ADDR          the socket across fork and dup
 *   irsock_classic hold ADDR [soerror]   connects, then reads until the end
 *                                        (soerror: polls and asks SO_ERROR first)
 *   irsock_classic inflight ADDR BYTES FILE   writes BYTES, reads nothing until
 *                                        FILE exists, then reads to the end
 *   irsock_classic cycles ADDR SECONDS BYTES PAUSE_MS   connect, echo, close,
 *                                        again, for the soak (one line a cycle)
 *   irsock_classic nosock                socket(AF_IRDA) with no irdad
 *
 * Each prints one "ok: ..." line per check passed, or "FAIL: ..." and exits
 * 1; ADDR is hexadecimal (0x...) as discover prints it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* SOCK_NONBLOCK, clock_gettime under -std=c11 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* --- what <linux/irda.h> gave such programs (written from its published
 * numbers and layouts) --- */
#ifndef AF_IRDA
#define AF_IRDA 23
#endif
#define SOL_IRLMP 266
#define IRLMP_ENUMDEVICES 1
#define IRLMP_IAS_SET 2
#define IRLMP_IAS_QUERY 3
#define IRLMP_HINTS_SET 4
#define IRLMP_MAX_SDU_SIZE 7
#define IRLMP_IAS_DEL 9
#define IRLMP_HINT_MASK_SET 10
#define LSAP_ANY 0xff
#define IAS_INTEGER 1
#define IAS_OCT_SEQ 2
#define IAS_STRING 3
#define HINT_COMPUTER 0x04
#define HINT_EXTENSION 0x80
#define HINT_OBEX 0x20

struct sockaddr_irda {
	sa_family_t sir_family;
	unsigned char sir_lsap_sel;
	unsigned int sir_addr;
	char sir_name[25];
};

struct irda_device_info {
	unsigned int saddr;
	unsigned int daddr;
	char info[22];
	unsigned char charset;
	unsigned char hints[2];
};

struct irda_device_list {
	unsigned int len;
	struct irda_device_info dev[1];
};

/* the name fields are IAS_EXPORT_CLASSNAME (64) and IAS_EXPORT_ATTRIBNAME
 * (256) bytes, not the protocol's limits of 60 */
struct irda_ias_set {
	char irda_class_name[64];
	char irda_attrib_name[256];
	unsigned int irda_attrib_type;
	union {
		unsigned int irda_attrib_int;
		struct {
			unsigned short len;
			unsigned char octet_seq[1024];
		} irda_attrib_octet_seq;
		struct {
			unsigned char len;
			unsigned char charset;
			unsigned char string[256];
		} irda_attrib_string;
	} attribute;
	unsigned int daddr;
};
_Static_assert(sizeof(struct irda_ias_set) == 1356, "irda_ias_set as Linux laid it out");

/* --- helpers --- */

static void die(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void check(int cond, const char *what)
{
	if (!cond) {
		printf("FAIL: %s\n", what);
		exit(1);
	}
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned int parse_addr(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 16);
	if (*end || end == s) {
		printf("FAIL: %s: not a hexadecimal address\n", s);
		exit(2);
	}
	return (unsigned int)v;
}

static void make_addr(struct sockaddr_irda *sa, unsigned int daddr, const char *name,
		      unsigned char lsap)
{
	memset(sa, 0, sizeof(*sa));
	sa->sir_family = AF_IRDA;
	sa->sir_addr = daddr;
	sa->sir_lsap_sel = lsap;
	snprintf(sa->sir_name, sizeof(sa->sir_name), "%s", name);
}

/* The test pattern: byte i of a transfer. */
static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 7 + (i >> 8) + (i >> 16));
}

/* A connected socket, or -1 with errno set (the socket closed). */
static int try_connect(int type, unsigned int daddr, const char *name)
{
	struct sockaddr_irda sa;
	int fd = socket(AF_IRDA, type, 0);
	if (fd < 0)
		die("socket");
	make_addr(&sa, daddr, name, LSAP_ANY);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static int connect_to(int type, unsigned int daddr, const char *name)
{
	int fd = try_connect(type, daddr, name);
	if (fd < 0) {
		printf("FAIL: connect to %08x \"%s\": %s\n", daddr, name, strerror(errno));
		exit(1);
	}
	return fd;
}

/* --- serve --- */

static int listener(int type, const char *name)
{
	struct sockaddr_irda sa;
	int fd = socket(AF_IRDA, type, 0);
	if (fd < 0)
		die("socket");
	unsigned char hints[4] = { HINT_EXTENSION, HINT_OBEX, 0, 0 };
	if (setsockopt(fd, SOL_IRLMP, IRLMP_HINTS_SET, hints, sizeof(hints)) < 0)
		die("IRLMP_HINTS_SET");
	make_addr(&sa, 0, name, LSAP_ANY);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("bind");
	if (listen(fd, 4) < 0)
		die("listen");
	socklen_t len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		die("getsockname");
	check(len == sizeof(sa) && sa.sir_family == AF_IRDA && sa.sir_lsap_sel >= 1 &&
		      sa.sir_lsap_sel < 0x70,
	      "getsockname of a listener: AF_IRDA and an LSAP");
	printf("listening: %s on LSAP 0x%02x\n", name, sa.sir_lsap_sel);
	return fd;
}

static _Noreturn void serve(void)
{
	enum { MAXC = 16 };
	struct pollfd p[2 + MAXC];
	int type[2 + MAXC];
	int n = 2;

	p[0].fd = listener(SOCK_STREAM, "IrsockStream");
	type[0] = SOCK_STREAM;
	p[1].fd = listener(SOCK_SEQPACKET, "IrsockSeq");
	type[1] = SOCK_SEQPACKET;

	/* an attribute of the stream listener's own object ("" class), and
	 * one in a class of its own, then one set and deleted */
	struct irda_ias_set ias;
	memset(&ias, 0, sizeof(ias));
	snprintf(ias.irda_attrib_name, sizeof(ias.irda_attrib_name), "IrsockWords");
	ias.irda_attrib_type = IAS_STRING;
	ias.attribute.irda_attrib_string.len = 5;
	memcpy(ias.attribute.irda_attrib_string.string, "hello", 5);
	if (setsockopt(p[0].fd, SOL_IRLMP, IRLMP_IAS_SET, &ias, sizeof(ias)) < 0)
		die("IRLMP_IAS_SET (string)");
	memset(&ias, 0, sizeof(ias));
	snprintf(ias.irda_class_name, sizeof(ias.irda_class_name), "IrsockInfo");
	snprintf(ias.irda_attrib_name, sizeof(ias.irda_attrib_name), "Answer");
	ias.irda_attrib_type = IAS_INTEGER;
	ias.attribute.irda_attrib_int = 42;
	if (setsockopt(p[0].fd, SOL_IRLMP, IRLMP_IAS_SET, &ias, sizeof(ias)) < 0)
		die("IRLMP_IAS_SET (integer)");
	snprintf(ias.irda_attrib_name, sizeof(ias.irda_attrib_name), "Gone");
	if (setsockopt(p[0].fd, SOL_IRLMP, IRLMP_IAS_SET, &ias, sizeof(ias)) < 0)
		die("IRLMP_IAS_SET (Gone)");
	if (setsockopt(p[0].fd, SOL_IRLMP, IRLMP_IAS_DEL, &ias, sizeof(ias)) < 0)
		die("IRLMP_IAS_DEL");
	check(setsockopt(p[0].fd, SOL_IRLMP, IRLMP_IAS_DEL, &ias, sizeof(ias)) < 0 &&
		      errno == EINVAL,
	      "IRLMP_IAS_DEL of an attribute no longer there: EINVAL");
	printf("serving\n");
	fflush(stdout);

	static unsigned char buf[65536];
	for (;;) {
		for (int i = 0; i < n; i++)
			p[i].events = POLLIN;
		if (poll(p, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		for (int i = 0; i < n; i++) {
			if (!p[i].revents)
				continue;
			if (i < 2) {
				struct sockaddr_irda peer;
				socklen_t len = sizeof(peer);
				/* accept on the stream listener, accept4 with
				 * SOCK_CLOEXEC on the seqpacket one */
				int c = i ? accept4(p[i].fd, (struct sockaddr *)&peer, &len,
						    SOCK_CLOEXEC) :
					    accept(p[i].fd, (struct sockaddr *)&peer, &len);
				if (c < 0)
					die("accept");
				check(((fcntl(c, F_GETFD) & FD_CLOEXEC) != 0) == (i != 0),
				      "accept4's SOCK_CLOEXEC (and none from accept)");
				check(len == sizeof(peer) && peer.sir_family == AF_IRDA,
				      "accept's address");
				printf("accepted %s from %08x\n", i ? "seqpacket" : "stream",
				       peer.sir_addr);
				fflush(stdout);
				if (n < 2 + MAXC) {
					p[n].fd = c;
					type[n] = type[i];
					n++;
				} else {
					close(c);
				}
				continue;
			}
			ssize_t r = read(p[i].fd, buf, sizeof(buf));
			if (r <= 0) {
				printf("connection %s: %s\n", r == 0 ? "EOF" : "error",
				       r == 0 ? "" : strerror(errno));
				fflush(stdout);
				close(p[i].fd);
				p[i] = p[n - 1];
				type[i] = type[n - 1];
				n--;
				i--;
				continue;
			}
			/* one write per message keeps a seqpacket's boundaries */
			for (ssize_t off = 0; off < r;) {
				ssize_t w = write(p[i].fd, buf + off, (size_t)(r - off));
				if (w < 0)
					break;
				off += w;
			}
		}
	}
}

/* --- client commands --- */

static int discover(void)
{
	int fd = socket(AF_IRDA, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	/* a filter that keeps computers (what irdad advertises) */
	int mask = HINT_COMPUTER;
	if (setsockopt(fd, SOL_IRLMP, IRLMP_HINT_MASK_SET, &mask, sizeof(mask)) < 0)
		die("IRLMP_HINT_MASK_SET");
	unsigned char buf[sizeof(struct irda_device_list) + 7 * sizeof(struct irda_device_info)];
	struct irda_device_list *list = (struct irda_device_list *)buf;
	socklen_t len;
	int tries = 0;
	for (;;) {
		len = sizeof(buf);
		if (getsockopt(fd, SOL_IRLMP, IRLMP_ENUMDEVICES, buf, &len) == 0)
			break;
		if (errno != EAGAIN || ++tries == 5)
			die("IRLMP_ENUMDEVICES");
		sleep(1);
	}
	check(list->len >= 1, "ENUMDEVICES: a station");
	check(len == 4 + list->len * sizeof(struct irda_device_info),
	      "ENUMDEVICES: optlen is the list's length");
	for (unsigned i = 0; i < list->len; i++) {
		struct irda_device_info *d = &list->dev[i];
		printf("device 0x%08x \"%.22s\" hints %02x%02x charset %u saddr 0x%08x\n",
		       d->daddr, d->info, d->hints[0], d->hints[1], d->charset, d->saddr);
	}
	/* a buffer for the count only: the kernel wrote the count and cut
	 * the list */
	len = 4;
	memset(buf, 0, sizeof(buf));
	if (getsockopt(fd, SOL_IRLMP, IRLMP_ENUMDEVICES, buf, &len) < 0)
		die("IRLMP_ENUMDEVICES with room for the count only");
	check(len == 4 && list->len >= 1, "ENUMDEVICES cut at optlen, count still written");
	len = 2;
	check(getsockopt(fd, SOL_IRLMP, IRLMP_ENUMDEVICES, buf, &len) < 0 && errno == EINVAL,
	      "ENUMDEVICES with no room for the count: EINVAL");
	/* a filter nobody matches: "no device", EAGAIN */
	mask = 0x0100;   /* second hint byte, bit 0: telephony */
	if (setsockopt(fd, SOL_IRLMP, IRLMP_HINT_MASK_SET, &mask, sizeof(mask)) < 0)
		die("IRLMP_HINT_MASK_SET");
	len = sizeof(buf);
	check(getsockopt(fd, SOL_IRLMP, IRLMP_ENUMDEVICES, buf, &len) < 0 && errno == EAGAIN,
	      "ENUMDEVICES with a filter no station matches: EAGAIN");
	printf("ok: discovery\n");
	close(fd);
	return 0;
}

static int ias(unsigned int daddr, const char *cls, const char *attr)
{
	struct irda_ias_set q;
	int fd = socket(AF_IRDA, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	memset(&q, 0, sizeof(q));
	snprintf(q.irda_class_name, sizeof(q.irda_class_name), "%s", cls);
	snprintf(q.irda_attrib_name, sizeof(q.irda_attrib_name), "%s", attr);
	q.daddr = daddr;
	socklen_t len = sizeof(q);
	if (getsockopt(fd, SOL_IRLMP, IRLMP_IAS_QUERY, &q, &len) < 0) {
		printf("ias %s %s: %s\n", cls, attr, strerror(errno));
		close(fd);
		return 0;
	}
	switch (q.irda_attrib_type) {
	case IAS_INTEGER:
		printf("ias %s %s: integer %u\n", cls, attr, q.attribute.irda_attrib_int);
		break;
	case IAS_STRING:
		printf("ias %s %s: string \"%.*s\" charset %u\n", cls, attr,
		       q.attribute.irda_attrib_string.len,
		       (const char *)q.attribute.irda_attrib_string.string,
		       q.attribute.irda_attrib_string.charset);
		break;
	case IAS_OCT_SEQ:
		printf("ias %s %s: %u octets\n", cls, attr, q.attribute.irda_attrib_octet_seq.len);
		break;
	default:
		printf("ias %s %s: type %u\n", cls, attr, q.irda_attrib_type);
	}
	close(fd);
	return 0;
}

/* How an echo transfer ended, and where. */
enum xfer_end { XFER_DONE, XFER_CUT, XFER_WRONG };

struct xfer {
	size_t sent, got, msgs;
	char why[160]; /* XFER_CUT, XFER_WRONG: what happened */
};

/* Sends total bytes of the pattern in writes of wsize (a message each
 * with seqpacket, their sizes cycling so that boundaries show) and reads
 * the echo back in one poll loop, checking every byte.  out holds wsize
 * bytes, in 65536.  The end of the connection, an error or timeout_ms
 * without progress is XFER_CUT; a wrong byte (or a seqpacket message
 * sent in part) is XFER_WRONG. */
static enum xfer_end echo_xfer(int fd, int seq, size_t total, size_t wsize, int timeout_ms,
			       unsigned char *out, unsigned char *in, struct xfer *x)
{
	memset(x, 0, sizeof(*x));
	while (x->got < total) {
		struct pollfd p = { .fd = fd, .events = POLLIN | (x->sent < total ? POLLOUT : 0) };
		if (poll(&p, 1, timeout_ms) <= 0) {
			snprintf(x->why, sizeof(x->why), "%d s without progress: sent %zu got %zu msgs %zu",
				 timeout_ms / 1000, x->sent, x->got, x->msgs);
			return XFER_CUT;
		}
		if ((p.revents & POLLOUT) && x->sent < total) {
			size_t n = seq ? 1 + (x->msgs * 997) % wsize : wsize;
			if (n > total - x->sent)
				n = total - x->sent;
			for (size_t i = 0; i < n; i++)
				out[i] = pattern(x->sent + i);
			ssize_t w = send(fd, out, n, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (w < 0 && errno != EAGAIN) {
				snprintf(x->why, sizeof(x->why), "send: %s", strerror(errno));
				return XFER_CUT;
			}
			if (w > 0) {
				if (seq && (size_t)w != n) {
					snprintf(x->why, sizeof(x->why),
						 "seqpacket: a %zu-byte message sent as %zd", n, w);
					return XFER_WRONG;
				}
				x->sent += (size_t)w;
				x->msgs++;
			}
		}
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t r = recv(fd, in, 65536, MSG_DONTWAIT);
			if (r == 0) {
				snprintf(x->why, sizeof(x->why), "EOF after %zu of %zu bytes", x->got, total);
				return XFER_CUT;
			}
			if (r < 0 && errno != EAGAIN) {
				snprintf(x->why, sizeof(x->why), "recv: %s", strerror(errno));
				return XFER_CUT;
			}
			for (ssize_t i = 0; i < r; i++)
				if (in[i] != pattern(x->got + (size_t)i)) {
					snprintf(x->why, sizeof(x->why), "byte %zu is %02x, not %02x",
						 x->got + (size_t)i, in[i], pattern(x->got + (size_t)i));
					return XFER_WRONG;
				}
			if (r > 0)
				x->got += (size_t)r;
		}
	}
	return XFER_DONE;
}

/* An echo on one connection, every byte and, with seqpacket, every
 * message's size checked. */
static int echo(const char *kind, unsigned int daddr, size_t total, size_t wsize)
{
	int seq = strcmp(kind, "seq") == 0;
	int fd = connect_to(seq ? SOCK_SEQPACKET : SOCK_STREAM, daddr,
			    seq ? "IrsockSeq" : "IrsockStream");
	struct sockaddr_irda peer;
	socklen_t len = sizeof(peer);
	if (getpeername(fd, (struct sockaddr *)&peer, &len) < 0)
		die("getpeername");
	check(peer.sir_family == AF_IRDA && peer.sir_addr == daddr, "getpeername: the peer");
	int sdu = 0;
	len = sizeof(sdu);
	if (getsockopt(fd, SOL_IRLMP, IRLMP_MAX_SDU_SIZE, &sdu, &len) < 0)
		die("IRLMP_MAX_SDU_SIZE");
	printf("connected: peer LSAP 0x%02x, IRLMP_MAX_SDU_SIZE %d\n", peer.sir_lsap_sel, sdu);
	check(sdu > 0, "IRLMP_MAX_SDU_SIZE of a connection");
	if (seq && wsize > (size_t)sdu)
		wsize = (size_t)sdu;

	unsigned char *out = malloc(wsize > (size_t)sdu ? wsize : (size_t)sdu), *in = malloc(65536);
	double t0 = now_s();
	if (!out || !in)
		die("malloc");
	struct xfer x;
	if (echo_xfer(fd, seq, total, wsize, 30000, out, in, &x) != XFER_DONE) {
		printf("FAIL: %s\n", x.why);
		return 1;
	}
	double dt = now_s() - t0;
	/* seqpacket boundaries: a second pass of single messages, each read
	 * back alone with its own size */
	if (seq) {
		for (size_t k = 1; k <= 3; k++) {
			size_t n = k * (size_t)sdu / 3;
			for (size_t i = 0; i < n; i++)
				out[i] = (unsigned char)(k + i);
			if (send(fd, out, n, MSG_NOSIGNAL) != (ssize_t)n)
				die("send (boundaries)");
			ssize_t r = recv(fd, in, 65536, 0);
			if (r != (ssize_t)n || memcmp(in, out, n) != 0) {
				size_t at = 0;
				while (r == (ssize_t)n && at < n && in[at] == out[at])
					at++;
				printf("FAIL: seqpacket: a %zu-byte message read back as %zd bytes%s"
				       " (first difference at %zu: %02x, not %02x)\n",
				       n, r, r == (ssize_t)n ? " that differ" : "", at, in[at], out[at]);
				return 1;
			}
		}
	}
	printf("ok: %s echo of %zu bytes in %zu-byte writes, every byte checked, %.3f s, "
	       "%.0f bytes/s each way\n",
	       kind, total, wsize, dt, (double)total / dt);
	free(out);
	free(in);
	close(fd);
	return 0;
}

/* The real-time soak's client (tests/irdad-soak-rt.sh): for the given
 * time, connect, echo bytes (every one checked), close, pause, again.
 * A connect that fails or a connection cut (the link lost) is reported
 * and the next cycle starts; a wrong byte ends the program (exit 1).
 * One line per cycle, its start and end on CLOCK_MONOTONIC, for the
 * driver to set against the breaks of the link. */
static int cycles(unsigned int daddr, double seconds, size_t total, unsigned pause_ms)
{
	unsigned char *out = malloc(1024), *in = malloc(65536);
	unsigned n_ok = 0, n_cut = 0, n_failed = 0;
	size_t verified = 0;
	double t_end = now_s() + seconds;
	struct timespec pause = { .tv_sec = pause_ms / 1000,
				  .tv_nsec = (long)(pause_ms % 1000) * 1000000L };
	if (!out || !in)
		die("malloc");
	for (unsigned n = 1; now_s() < t_end; n++) {
		double t0 = now_s();
		int fd = try_connect(SOCK_STREAM, daddr, "IrsockStream");
		if (fd < 0) {
			printf("cycle %u %.3f %.3f connect-failed 0: %s\n", n, t0, now_s(),
			       strerror(errno));
			n_failed++;
		} else {
			struct xfer x;
			enum xfer_end e = echo_xfer(fd, 0, total, 1024, 30000, out, in, &x);
			close(fd);
			verified += x.got;
			if (e == XFER_WRONG) {
				printf("cycle %u %.3f %.3f wrong %zu: %s\n", n, t0, now_s(), x.got, x.why);
				printf("FAIL: cycle %u: %s\n", n, x.why);
				return 1;
			}
			if (e == XFER_DONE)
				n_ok++;
			else
				n_cut++;
			printf("cycle %u %.3f %.3f %s %zu%s%s\n", n, t0, now_s(),
			       e == XFER_DONE ? "ok" : "cut", x.got, e == XFER_DONE ? "" : ": ",
			       e == XFER_DONE ? "" : x.why);
		}
		nanosleep(&pause, NULL);
	}
	printf("cycles: ok %u cut %u connect-failed %u bytes-verified %zu\n", n_ok, n_cut, n_failed,
	       verified);
	free(out);
	free(in);
	return 0;
}

static void expect_connect_error(unsigned int daddr, const char *name, unsigned char lsap,
				 int want, const char *what)
{
	struct sockaddr_irda sa;
	int fd = socket(AF_IRDA, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	make_addr(&sa, daddr, name, lsap);
	int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	int err = errno;
	if (rc == 0 || err != want) {
		printf("FAIL: %s: %s, not %s\n", what, rc == 0 ? "connected" : strerror(err),
		       strerror(want));
		exit(1);
	}
	printf("ok: %s: %s\n", what, strerror(err));
	close(fd);
}

static int refused(unsigned int daddr)
{
	expect_connect_error(daddr, "NoSuchService", LSAP_ANY, EADDRNOTAVAIL,
			     "a class the peer does not have");
	/* an LSAP nobody listens on: the peer's IrLMP refuses; af_irda had no
	 * error of its own for it and answered ECONNRESET */
	expect_connect_error(daddr, "", 0x6e, ECONNRESET, "an LSAP nobody listens on");
	expect_connect_error(0, "NoSuchService", LSAP_ANY, EADDRNOTAVAIL,
			     "any station, a class nobody has");
	struct sockaddr_irda sa;
	int fd = socket(AF_IRDA, SOCK_STREAM, 0);
	make_addr(&sa, daddr, "IrsockStream", LSAP_ANY);
	check(connect(fd, (struct sockaddr *)&sa, 8) < 0 && errno == EINVAL,
	      "connect with a short address: EINVAL");
	check(getpeername(fd, (struct sockaddr *)&sa, &(socklen_t){ sizeof(sa) }) < 0 &&
		      errno == ENOTCONN,
	      "getpeername before connect: ENOTCONN");
	close(fd);
	fd = socket(AF_IRDA, SOCK_DGRAM, 0);
	check(fd < 0 && errno == EPROTONOSUPPORT, "SOCK_DGRAM: EPROTONOSUPPORT");
	printf("ok: refusals\n");
	return 0;
}

/* Non-blocking connect: EINPROGRESS, then poll, then SO_ERROR. */
static int nb_connect(unsigned int daddr, const char *name, int want, int cloexec)
{
	struct sockaddr_irda sa;
	int fd = socket(AF_IRDA, SOCK_STREAM | SOCK_NONBLOCK | cloexec, 0);
	if (fd < 0)
		die("socket");
	make_addr(&sa, daddr, name, LSAP_ANY);
	int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	check(rc < 0 && errno == EINPROGRESS, "non-blocking connect: EINPROGRESS");
	check(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno == EALREADY,
	      "connect again meanwhile: EALREADY");
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	double t0 = now_s();
	rc = poll(&p, 1, 30000);
	check(rc == 1, "poll sees the connect end");
	int err = -1;
	socklen_t len = sizeof(err);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		die("SO_ERROR");
	if (err != want) {
		printf("FAIL: non-blocking connect to \"%s\": SO_ERROR %s, not %s\n", name,
		       strerror(err), strerror(want));
		exit(1);
	}
	printf("ok: non-blocking connect to \"%s\": poll after %.2f s, SO_ERROR %s, "
	       "O_NONBLOCK and FD_CLOEXEC as asked\n",
	       name, now_s() - t0, want ? strerror(err) : "0");
	/* the flags the program asked for, on whatever the descriptor is now */
	check((fcntl(fd, F_GETFL) & O_NONBLOCK) != 0, "O_NONBLOCK kept");
	check(((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0) == (cloexec != 0),
	      "FD_CLOEXEC as SOCK_CLOEXEC asked");
	if (want == 0) {
		check(p.revents & POLLOUT, "POLLOUT once connected");
		check(write(fd, "ping", 4) == 4, "write after a non-blocking connect");
		p.events = POLLIN;
		check(poll(&p, 1, 20000) == 1, "the echo comes");
		char b[8];
		check(read(fd, b, sizeof(b)) == 4 && memcmp(b, "ping", 4) == 0, "the echo");
		check(read(fd, b, sizeof(b)) < 0 && errno == EAGAIN, "non-blocking read: EAGAIN");
	}
	close(fd);
	return 0;
}

static int nonblock(unsigned int daddr)
{
	nb_connect(daddr, "IrsockStream", 0, SOCK_CLOEXEC);
	nb_connect(daddr, "NoSuchService", EADDRNOTAVAIL, 0);
	return 0;
}

static const char *outcome(ssize_t r, int err)
{
	return r == 0 ? "EOF" : r < 0 ? strerror(err) : "data";
}

/* Connects, checks one echo, then reads until the connection ends: how
 * it ended is the line printed ("end: EOF" or "end: ERROR"), then what a
 * second read, a write and a second write give. */
static int hold(unsigned int daddr, int soerror)
{
	int fd = connect_to(SOCK_STREAM, daddr, "IrsockStream");
	char b[64];
	/* the descriptor is a TCP socket underneath: the library must still
	 * answer as an AF_IRDA one */
	int v = 0;
	socklen_t len = sizeof(v);
	check(getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) == 0 && v == AF_IRDA,
	      "connected stream: SO_DOMAIN is AF_IRDA");
	len = sizeof(v);
	check(getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len) == 0 && v == SOCK_STREAM,
	      "connected stream: SO_TYPE is SOCK_STREAM");
	struct sockaddr_irda me;
	len = sizeof(me);
	check(getsockname(fd, (struct sockaddr *)&me, &len) == 0 && len == sizeof(me) &&
		      me.sir_family == AF_IRDA,
	      "connected stream: getsockname is AF_IRDA");
	len = sizeof(v);
	check(getsockopt(fd, IPPROTO_TCP, 1 /* TCP_NODELAY */, &v, &len) < 0 &&
		      errno == ENOPROTOOPT,
	      "connected stream: a TCP option is ENOPROTOOPT, as on af_irda");
	printf("ok: a connected stream answers as AF_IRDA (SO_DOMAIN, SO_TYPE, getsockname, "
	       "TCP options)\n");
	check(write(fd, "hold", 4) == 4, "write");
	size_t got = 0;
	while (got < 4) {
		ssize_t r = read(fd, b + got, sizeof(b) - got);
		if (r <= 0)
			die("read of the echo");
		got += (size_t)r;
	}
	printf("holding\n");
	fflush(stdout);
	double t0 = now_s();
	if (soerror) {
		/* as non-blocking programs do: poll, then ask SO_ERROR */
		struct pollfd p = { .fd = fd, .events = POLLIN };
		while (poll(&p, 1, -1) < 0)
			if (errno != EINTR)
				die("poll");
		int e = 0;
		len = sizeof(e);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
			die("SO_ERROR");
		printf("SO_ERROR: %s\n", e ? strerror(e) : "0");
	}
	ssize_t r = read(fd, b, sizeof(b));
	int err = errno;
	printf("end: %s after %.1f s\n", outcome(r, err), now_s() - t0);
	r = read(fd, b, sizeof(b));
	err = errno;
	printf("read again: %s\n", outcome(r, err));
	r = write(fd, "x", 1);
	err = errno;
	printf("write after: %s\n", r < 0 ? strerror(err) : "written");
	r = write(fd, "x", 1);
	err = errno;
	printf("write again: %s\n", r < 0 ? strerror(err) : "written");
	close(fd);
	return 0;
}

/* Data in flight at a link loss: BYTES written and echoed but not read,
 * so that the echo waits in our socket; once FILE exists (the test
 * creates it when irdad has seen the link go), everything is read: the
 * bytes must be the echo's first ones, then ECONNRESET, then EOF.  (A
 * receive buffer shrunk with SO_RCVBUF after the connect would keep part
 * of the echo in irdad's end instead; but the loopback then drops what
 * the window it had already offered lets in, and TCP's retransmission
 * backs off beyond irdad's drain timeout while the link timeout runs:
 * tests/unit/test_conn_bridge covers that wait, with a short stall.) */
static int inflight(unsigned int daddr, size_t total, const char *flag)
{
	int fd = connect_to(SOCK_STREAM, daddr, "IrsockStream");
	unsigned char *buf = malloc(total);
	if (!buf)
		die("malloc");
	for (size_t i = 0; i < total; i++)
		buf[i] = pattern(i);
	for (size_t off = 0; off < total;) {
		ssize_t w = write(fd, buf + off, total - off);
		if (w < 0)
			die("write");
		off += (size_t)w;
	}
	/* settled: what our socket holds has not changed for 2 s */
	int queued = -1, last = -2;
	while (queued != last || queued <= 0) {
		last = queued;
		sleep(2);
		if (ioctl(fd, FIONREAD, &queued) < 0)
			die("FIONREAD");
	}
	printf("holding: %d bytes queued\n", queued);
	fflush(stdout);
	/* bounded, so that a test that failed meanwhile leaves nothing behind */
	for (int waited = 0; access(flag, F_OK) != 0; waited++) {
		if (waited > 1200) {
			printf("FAIL: %s did not appear in 120 s\n", flag);
			return 1;
		}
		usleep(100000);
	}
	size_t got = 0;
	ssize_t r;
	while ((r = read(fd, buf, total)) > 0) {
		for (ssize_t i = 0; i < r; i++)
			if (buf[i] != pattern(got + (size_t)i)) {
				printf("FAIL: byte %zu is %02x, not %02x\n", got + (size_t)i, buf[i],
				       pattern(got + (size_t)i));
				return 1;
			}
		got += (size_t)r;
	}
	int err = errno;
	printf("read: %zu bytes of the echo, intact, then %s\n", got, outcome(r, err));
	r = read(fd, buf, total);
	err = errno;
	printf("read again: %s\n", outcome(r, err));
	free(buf);
	close(fd);
	return 0;
}

/* Reads exactly n bytes (the echo of what was written). */
static void read_n(int fd, char *buf, size_t n, const char *what)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0) {
			printf("FAIL: %s: %s\n", what, r == 0 ? "EOF" : strerror(errno));
			exit(1);
		}
		got += (size_t)r;
	}
}

/* fork: a child writes on the inherited socket and exits (closing its
 * copies); the parent reads the echo and goes on.  dup: the parent
 * closes its original descriptor and goes on with a duplicate. */
static int forkdup(unsigned int daddr)
{
	int fd = connect_to(SOCK_STREAM, daddr, "IrsockStream");
	char b[16];
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (write(fd, "child", 5) != 5)
			_exit(1);
		close(fd);
		exit(0);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("the child");
	read_n(fd, b, 5, "the echo of the child's write");
	check(memcmp(b, "child", 5) == 0, "the echo of the child's write");
	printf("ok: fork: the child wrote on the inherited socket and exited; the parent read the echo\n");
	int d = dup(fd);
	if (d < 0)
		die("dup");
	close(fd);
	check(write(d, "dup", 3) == 3, "write on the duplicate");
	/* select, then epoll, on the descriptor: no interposition needed */
	fd_set rd;
	FD_ZERO(&rd);
	FD_SET(d, &rd);
	struct timeval tv = { .tv_sec = 20 };
	check(select(d + 1, &rd, NULL, NULL, &tv) == 1 && FD_ISSET(d, &rd), "select sees the echo");
	read_n(d, b, 3, "the echo on the duplicate");
	check(memcmp(b, "dup", 3) == 0, "the echo on the duplicate");
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = d }, out;
	check(ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, d, &ev) == 0, "epoll_ctl");
	check(write(d, "epoll", 5) == 5, "write");
	check(epoll_wait(ep, &out, 1, 20000) == 1 && out.data.fd == d, "epoll sees the echo");
	read_n(d, b, 5, "the echo seen by epoll");
	check(memcmp(b, "epoll", 5) == 0, "the echo seen by epoll");
	close(ep);
	struct sockaddr_irda peer;
	socklen_t len = sizeof(peer);
	check(getpeername(d, (struct sockaddr *)&peer, &len) == 0 && peer.sir_addr == daddr,
	      "getpeername on the duplicate");
	printf("ok: dup: the original closed, the duplicate goes on (and is still AF_IRDA); "
	       "select and epoll on it\n");
	close(d);
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "serve") == 0)
		serve();
	if (argc == 2 && strcmp(argv[1], "discover") == 0)
		return discover();
	if (argc == 5 && strcmp(argv[1], "ias") == 0)
		return ias(parse_addr(argv[2]), argv[3], argv[4]);
	if (argc == 6 && strcmp(argv[1], "echo") == 0)
		return echo(argv[2], parse_addr(argv[3]), strtoul(argv[4], NULL, 10),
			    strtoul(argv[5], NULL, 10));
	if (argc == 3 && strcmp(argv[1], "refused") == 0)
		return refused(parse_addr(argv[2]));
	if (argc == 3 && strcmp(argv[1], "nonblock") == 0)
		return nonblock(parse_addr(argv[2]));
	if (argc == 3 && strcmp(argv[1], "forkdup") == 0)
		return forkdup(parse_addr(argv[2]));
	if (argc == 3 && strcmp(argv[1], "hold") == 0)
		return hold(parse_addr(argv[2]), 0);
	if (argc == 4 && strcmp(argv[1], "hold") == 0 && strcmp(argv[3], "soerror") == 0)
		return hold(parse_addr(argv[2]), 1);
	if (argc == 5 && strcmp(argv[1], "inflight") == 0)
		return inflight(parse_addr(argv[2]), strtoul(argv[3], NULL, 10), argv[4]);
	if (argc == 6 && strcmp(argv[1], "cycles") == 0)
		return cycles(parse_addr(argv[2]), strtod(argv[3], NULL), strtoul(argv[4], NULL, 10),
			      (unsigned)strtoul(argv[5], NULL, 10));
	if (argc == 2 && strcmp(argv[1], "nosock") == 0) {
		int fd = socket(AF_IRDA, SOCK_STREAM, 0);
		check(fd < 0 && errno == EAFNOSUPPORT, "socket(AF_IRDA) with no irdad: EAFNOSUPPORT");
		printf("ok: no irdad: EAFNOSUPPORT\n");
		return 0;
	}
	fprintf(stderr, "usage: irsock_classic serve|discover|ias|echo|refused|nonblock|forkdup|hold|inflight|cycles|nosock ...\n");
	return 2;
}
