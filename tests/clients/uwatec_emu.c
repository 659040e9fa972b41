/*
 * uwatec_emu.c: an emulated Uwatec Galileo Sol on the far side of an IrDA
 * link, for tests/clients/libdivecomputer.sh.  It is a client of irdad
 * (whose station announces the Galileo's nickname: irdad --nickname):
 * a TinyTP stream listener on LSAP 1, where the real device listens,
 * speaking the Smart command protocol (uwatec_smart.h) with the dives
 * given on the command line in its memory.
 *
 *   uwatec_emu --daemon SOCKET [--serial N] [--pause-after BYTES
 *              [--pause-download N]] --dive START,TZ,MINUTES,DEPTH_CM[,TEMP_DC] ...
 *
 * START is UTC in seconds since 1970, TZ the device's UTC offset in
 * quarter hours, DEPTH_CM an even number of centimetres.  --pause-after:
 * the dive data of download N (1, the first, unless --pause-download)
 * stops after BYTES (the diver walks off with the computer): the emulator
 * then waits for that connection to end, and serves the next.
 * One line on stdout for each event ("listening", "connected", "sent",
 * "paused", "ended"); runs until killed.
 *
 * Exit status: 1 when irdad fails it, 2 for a usage error.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cursor.h"
#include "irnet_client.h"
#include "log.h"
#include "uwatec_smart.h"

#define DIVES_MAX 16
#define MEMORY_MAX (256u * 1024u)
#define API_TIMEOUT_MS 10000

struct emu {
	struct irnet_client *cl;
	struct uwatec_device dev;
	struct logger log;
	long pause_after;     /* -1: never */
	long pause_download;  /* which download pauses (from 1) */
	long downloads;       /* DATA commands answered */
	uint8_t memory[MEMORY_MAX];
};

static void usage(FILE *f)
{
	fprintf(f, "usage: uwatec_emu --daemon SOCKET [--serial N] [--pause-after BYTES\n"
		   "                  [--pause-download N]] [-v]\n"
		   "                  --dive START,TZ,MINUTES,DEPTH_CM[,TEMP_DC] ...\n");
}

/* A signed decimal of the option text, through the cursor. */
static bool parse_int(struct cursor *c, int64_t lo, int64_t hi, int64_t *out)
{
	bool neg = cursor_literal(c, "-");
	uint64_t v;

	if (!cursor_parse_u64(c, &v) || v > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return *out >= lo && *out <= hi;
}

static bool parse_dive(const char *arg, struct uwatec_dive *d)
{
	struct cursor c;
	int64_t start, tz, min, cm, temp = 180;

	cursor_init(&c, arg, strlen(arg));
	if (!parse_int(&c, UWATEC_EPOCH, INT64_MAX, &start) || !cursor_literal(&c, ",") ||
	    !parse_int(&c, -48, 56, &tz) || !cursor_literal(&c, ",") ||
	    !parse_int(&c, 1, 999, &min) || !cursor_literal(&c, ",") ||
	    !parse_int(&c, 0, 30000, &cm))
		return false;
	if (cursor_literal(&c, ",") && !parse_int(&c, -50, 400, &temp))
		return false;
	if (!cursor_at_end(&c))
		return false;
	*d = (struct uwatec_dive){ .start = start, .tz_quarters = (int8_t)tz,
				   .minutes = (uint16_t)min, .max_depth_cm = (uint16_t)cm,
				   .temp_dc = (int16_t)temp };
	return uwatec_galileo_dive_size(d) > 0;
}

static bool send_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

/* Waits until the peer's end is gone (after a pause). */
static void wait_end(int fd)
{
	uint8_t b[256];
	ssize_t k;

	while ((k = read(fd, b, sizeof(b))) > 0 || (k < 0 && errno == EINTR))
		;
	printf("ended: %s\n", k == 0 ? "end of file" : strerror(errno));
}

/* Sends r; false when the connection broke or the pause came. */
static bool send_reply(struct emu *e, int fd, const struct uwatec_reply *r)
{
	if (!send_all(fd, r->head, r->head_len)) {
		printf("ended: %s\n", strerror(errno));
		return false;
	}
	if (r->body_len == 0)
		return true;
	size_t n = r->body_len;
	if (++e->downloads == e->pause_download && e->pause_after >= 0 &&
	    (size_t)e->pause_after < n)
		n = (size_t)e->pause_after;
	if (!send_all(fd, r->body, n)) {
		printf("ended: %s\n", strerror(errno));
		return false;
	}
	if (n < r->body_len) {
		printf("paused: %zu of %zu bytes\n", n, r->body_len);
		wait_end(fd);
		return false;
	}
	printf("sent: %zu bytes\n", n);
	return true;
}

static void serve(struct emu *e, int fd)
{
	struct uwatec_session s;
	uint8_t buf[512];

	uwatec_session_init(&s, &e->dev, &e->log);
	for (;;) {
		ssize_t k = read(fd, buf, sizeof(buf));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			printf("ended: %s\n", k == 0 ? "end of file" : strerror(errno));
			return;
		}
		struct cursor in;
		struct uwatec_reply r;
		int got;
		cursor_init(&in, buf, (size_t)k);
		while ((got = uwatec_session_input(&s, &in, &r)) != 0) {
			if (got < 0)
				continue;
			printf("command 0x%02x\n", r.cmd);
			if (!send_reply(e, fd, &r))
				return;
		}
	}
}

static int run(struct emu *e, const char *where)
{
	char err[256];
	struct irnet_listen_req req = { .mode = IRDAD_MODE_STREAM, .lsap = 1 };
	uint32_t listener;
	uint8_t lsap;

	if (irnet_client_open(where, "uwatec_emu", &e->cl, err, sizeof(err)) < 0) {
		fprintf(stderr, "uwatec_emu: %s: %s\n", where, err);
		return 1;
	}
	if (irnet_client_listen(e->cl, &req, &listener, &lsap, API_TIMEOUT_MS) < 0) {
		fprintf(stderr, "uwatec_emu: LISTEN on LSAP 1: %s\n", irnet_client_error(e->cl));
		return 1;
	}
	printf("listening: LSAP 0x%02x, %zu bytes of dives\n", lsap, e->dev.memory_len);
	for (;;) {
		int fd;
		struct irnet_conn_info ci;
		if (irnet_client_accept(e->cl, listener, &fd, &ci, -1) < 0) {
			fprintf(stderr, "uwatec_emu: accept: %s\n", irnet_client_error(e->cl));
			return 1;
		}
		printf("connected: 0x%08" PRIx32 "\n", ci.daddr);
		serve(e, fd);
		close(fd);
	}
}

int main(int argc, char **argv)
{
	static struct emu e;
	static const struct option opts[] = {
		{ "daemon", required_argument, NULL, 'd' },
		{ "dive", required_argument, NULL, 'D' },
		{ "serial", required_argument, NULL, 's' },
		{ "pause-after", required_argument, NULL, 'p' },
		{ "pause-download", required_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *where = NULL;
	struct uwatec_dive dives[DIVES_MAX];
	size_t ndives = 0;
	int64_t v;
	int o;

	e.dev = (struct uwatec_device){ .model = UWATEC_MODEL_GALILEO_SOL, .hardware = 0x02,
					.software = 0x21, .serial = 123456 };
	e.pause_after = -1;
	e.pause_download = 1;
	e.log = (struct logger){ .sink = log_sink_stdio, .ctx = stderr, .max = LOG_LEVEL_WARNING,
				 .prefix = "uwatec_emu" };
	while ((o = getopt_long(argc, argv, "d:D:s:p:P:vh", opts, NULL)) != -1) {
		struct cursor c;
		if (o == 's' || o == 'p' || o == 'P') {
			cursor_init(&c, optarg, strlen(optarg));
			if (!parse_int(&c, o == 'P', o == 's' ? UINT32_MAX : MEMORY_MAX, &v) ||
			    !cursor_at_end(&c)) {
				fprintf(stderr, "uwatec_emu: -%c %s: not a number in range\n", o,
					optarg);
				return 2;
			}
		}
		switch (o) {
		case 'd':
			where = optarg;
			break;
		case 'D':
			if (ndives == DIVES_MAX || !parse_dive(optarg, &dives[ndives])) {
				fprintf(stderr, "uwatec_emu: --dive %s: not START,TZ,MINUTES,DEPTH_CM[,TEMP_DC] "
						"of a dive that can be written (at most %d)\n",
					optarg, DIVES_MAX);
				return 2;
			}
			ndives++;
			break;
		case 's':
			e.dev.serial = (uint32_t)v;
			break;
		case 'p':
			e.pause_after = (long)v;
			break;
		case 'P':
			e.pause_download = (long)v;
			break;
		case 'v':
			e.log.max = LOG_LEVEL_DEBUG;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!where || optind != argc) {
		usage(stderr);
		return 2;
	}
	struct wcursor w;
	wcursor_init(&w, e.memory, sizeof(e.memory));
	for (size_t i = 0; i < ndives; i++)
		if (!uwatec_galileo_write_dive(&w, &dives[i])) {
			fprintf(stderr, "uwatec_emu: the dives do not fit in %u bytes\n", MEMORY_MAX);
			return 2;
		}
	e.dev.memory = e.memory;
	e.dev.memory_len = wcursor_len(&w);
	/* the device's clock: a day after the last dive */
	e.dev.clock = ndives ? uwatec_timestamp(dives[ndives - 1].start + 86400) : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	int rc = run(&e, where);
	irnet_client_close(e.cl);
	return rc;
}
