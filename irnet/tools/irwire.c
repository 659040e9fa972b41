/*
 * irwire: joins two pseudo-terminals through an emulated IrDA SIR link,
 * in real time.
 *
 * Each side is a pty pair: a process opens the slave as its serial port
 * (termios and all) and irwire holds the master.  Bytes a side writes are
 * read from its master no faster than the emulated line carries them and
 * handed to the in-process wire model (irnet/sim/wire.c: pacing at the
 * side's termios speed, speed mismatch, half-duplex, turnaround, bit
 * errors, drops, breaks); what the other side's emulated UART produces is
 * written to that side's master when it arrives.  The wire's virtual
 * clock is CLOCK_MONOTONIC in microseconds since start.
 *
 * Speeds: irwire keeps each slave open itself and reads the slave's
 * termios with tcgetattr() on that descriptor at every wake-up (on Linux
 * the master reports the same termios; both were checked).  A change is
 * applied to the wire from that moment.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cursor.h"
#include "serial.h"
#include "wire.h"

#define EXIT_JOB 1
#define EXIT_USAGE 2

/* Read a side's bytes only when its queue on the line is shorter than
 * this: the writer blocks once the pty's buffer is full, as on a slow
 * UART.  (tcdrain() on a pty returns at once on Linux, so it cannot tell
 * a process when its bytes have left; the stations wait the computed
 * line time before a speed switch.)  Long enough that a loaded machine
 * still has the bytes of a frame read before its writer, having waited
 * out the line time, switches speed; a lead of 4 ms left too little. */
#define TX_LEAD_US 50000
/* Batch deliveries: a UART driver hands bytes up in bursts too. */
#define RX_BATCH_US 1000
/* ...but the tail of a burst comes up when the line has been quiet this
 * many character times, as a 16550's receive-FIFO timeout does. */
#define RX_TIMEOUT_CHARS 4
#define OUTBUF 65536
#define MAX_BREAKS 64
#define MAX_UNPLUGS 64
/* The least minimum turnaround irwire names on its ptys (serial.h's
 * mark), whatever --turnaround-us says: 10 us is what the tests and
 * `make bench` have run the stations on irwire with (docs/irnet-host.md);
 * 0, which a receiver that is never blind would allow, has not been
 * exercised against every peer.  At 115200 it costs no padding. */
#define MARK_MIN_TAT_FLOOR_US 10u

struct side {
	char name;		/* 'a' or 'b' */
	int master, slave;
	char pts[PATH_MAX];
	const char *link;	/* symlink we made, or NULL */
	const char *link_path;	/* --link-X: made again at each replug */
	uint32_t baud;
	uint32_t mark_tat_us;	/* the minimum turnaround named in the pty's mark */
	uint8_t out[OUTBUF];	/* bytes the emulated UART produced, to write */
	size_t out_head, out_len;
	uint64_t overruns;	/* bytes lost because the process did not read */
	uint64_t unplugged_lost;	/* bytes for this side while it was unplugged */
	unsigned unplugs;
};

/* --unplug SIDE:AT_MS:LEN_MS: the side's pty goes away at at_us and a
 * new one comes at at_us + len_us. */
struct unplug {
	int side;
	uint64_t at_us, len_us;
	bool out, back;		/* done */
};

struct irwire {
	struct side side[2];
	struct wire *wire;
	struct timespec t0;
	uint64_t stats_interval_us;	/* 0: only at exit */
	bool low_latency;		/* every byte up at once, no FIFO timeout */
	struct unplug unplug[MAX_UNPLUGS];
	size_t nunplug;
};

static void usage(FILE *f)
{
	fputs("usage: irwire [--link-a PATH] [--link-b PATH] [--ber X] [--drop P]\n"
	      "              [--turnaround-us N] [--break AT_MS:LEN_MS]... [--seed N]\n"
	      "              [--unplug SIDE:AT_MS:LEN_MS]... [--stats-interval S]\n"
	      "              [--low-latency]\n"
	      "Joins two pseudo-terminals through an emulated IrDA SIR link.\n"
	      "Prints \"a PTY\" and \"b PTY\" when ready; counters on exit (SIGINT, SIGTERM).\n"
	      "  --link-a PATH, --link-b PATH  symlink to side a's / b's pty (removed at exit)\n"
	      "  --ber X              bit error rate per data bit (0..1, default 0)\n"
	      "  --drop P             probability that a byte is lost (0..1, default 0)\n"
	      "  --turnaround-us N    receiver blind time after its own transmission (default 0);\n"
	      "                       the ptys tell the stations to ask for at least that\n"
	      "                       minimum turnaround (10 us when less)\n"
	      "  --break AT_MS:LEN_MS the link is down from AT_MS for LEN_MS (repeatable)\n"
	      "  --unplug SIDE:AT_MS:LEN_MS  side a or b is unplugged at AT_MS: its pty\n"
	      "                       master is closed (the program on the slave reads EIO,\n"
	      "                       poll says POLLHUP) and its link removed; after LEN_MS\n"
	      "                       a new pty and the link again, as a USB adapter\n"
	      "                       plugged back (repeatable; prints \"unplug a\" and\n"
	      "                       \"replug a PTY\")\n"
	      "  --seed N             seed for the error models (default 1)\n"
	      "  --low-latency        hand each byte up as soon as it has arrived (a 16550\n"
	      "                       with its receive trigger at 1 byte), not in bursts\n"
	      "  --stats-interval S   also print counters every S seconds\n"
	      "  --help               this text\n", f);
}

/* ---- options, read through the cursor -------------------------------- */

static bool parse_u64(const char *s, uint64_t *out)
{
	struct cursor c;

	cursor_init(&c, s, strlen(s));
	return cursor_parse_u64(&c, out) && cursor_at_end(&c);
}

static bool parse_prob(const char *s, double *out)
{
	struct cursor c;

	cursor_init(&c, s, strlen(s));
	return cursor_parse_double(&c, out) && cursor_at_end(&c) && *out >= 0 && *out <= 1;
}

static bool parse_break(const char *s, struct wire_break *b)
{
	struct cursor c;
	uint64_t at, len;

	cursor_init(&c, s, strlen(s));
	if (!cursor_parse_u64(&c, &at) || !cursor_literal(&c, ":") ||
	    !cursor_parse_u64(&c, &len) || !cursor_at_end(&c))
		return false;
	if (at > UINT64_MAX / 2000 || len > UINT64_MAX / 2000 || len == 0)
		return false;
	b->start_us = at * 1000;
	b->duration_us = len * 1000;
	return true;
}

static bool parse_unplug(const char *s, struct unplug *u)
{
	struct cursor c;
	uint64_t at, len;
	uint8_t side;

	cursor_init(&c, s, strlen(s));
	if (!cursor_u8(&c, &side) || (side != 'a' && side != 'b') || !cursor_literal(&c, ":") ||
	    !cursor_parse_u64(&c, &at) || !cursor_literal(&c, ":") ||
	    !cursor_parse_u64(&c, &len) || !cursor_at_end(&c))
		return false;
	if (at > UINT64_MAX / 2000 || len > UINT64_MAX / 2000 || len == 0)
		return false;
	*u = (struct unplug){ .side = side - 'a', .at_us = at * 1000, .len_us = len * 1000 };
	return true;
}

/* ---- time ----------------------------------------------------------------- */

static uint64_t now_us(const struct irwire *iw)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	int64_t s = t.tv_sec - iw->t0.tv_sec;
	int64_t ns = t.tv_nsec - iw->t0.tv_nsec;
	int64_t us = s * 1000000 + ns / 1000;
	return us < 0 ? 0 : (uint64_t)us;
}

/* ---- ptys ------------------------------------------------------------------ */

static const struct { speed_t code; uint32_t baud; } speeds[] = {
	{ B50, 50 }, { B75, 75 }, { B110, 110 }, { B134, 134 }, { B150, 150 },
	{ B200, 200 }, { B300, 300 }, { B600, 600 }, { B1200, 1200 },
	{ B1800, 1800 }, { B2400, 2400 }, { B4800, 4800 }, { B9600, 9600 },
	{ B19200, 19200 }, { B38400, 38400 }, { B57600, 57600 },
	{ B115200, 115200 }, { B230400, 230400 }, { B460800, 460800 },
	{ B500000, 500000 }, { B576000, 576000 }, { B921600, 921600 },
	{ B1000000, 1000000 }, { B1152000, 1152000 }, { B1500000, 1500000 },
	{ B2000000, 2000000 }, { B2500000, 2500000 }, { B3000000, 3000000 },
	{ B3500000, 3500000 }, { B4000000, 4000000 },
};

/* The side's termios output speed, or 0 if unknown or B0 (hang up). */
static uint32_t termios_baud(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t) < 0)
		return 0;
	speed_t code = cfgetospeed(&t);
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].code == code)
			return speeds[i].baud;
	return 0;
}

static int open_side(struct side *s)
{
	s->master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (s->master < 0 || grantpt(s->master) < 0 || unlockpt(s->master) < 0 ||
	    ptsname_r(s->master, s->pts, sizeof(s->pts)) != 0) {
		fprintf(stderr, "irwire: side %c: cannot create a pty: %s\n", s->name,
			strerror(errno));
		return -1;
	}
	/* Keep the slave open: the master then never sees a hang-up while
	 * the user's process reopens the port, and we can read its termios. */
	s->slave = open(s->pts, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s->slave < 0) {
		fprintf(stderr, "irwire: side %c: %s: %s\n", s->name, s->pts, strerror(errno));
		return -1;
	}
	/* A serial port, not a terminal: raw, 9600 (the IrDA contention
	 * rate) until the user's process says otherwise. */
	struct termios t;
	if (tcgetattr(s->slave, &t) == 0) {
		cfmakeraw(&t);
		cfsetspeed(&t, B9600);
		tcsetattr(s->slave, TCSANOW, &t);
	}
	s->baud = termios_baud(s->slave);
	if (s->baud == 0)
		s->baud = 9600;
	/* Tell the stations that this pty is ours and what turnaround our
	 * receivers need, so that they do not default to a dongle's. */
	int r = serial_irwire_mark(s->slave, s->mark_tat_us);
	if (r < 0) {
		fprintf(stderr, "irwire: side %c: %s: cannot mark the pty: %s\n", s->name,
			s->pts, strerror(-r));
		return -1;
	}
	return 0;
}

/* Points link at the pty, replacing whatever was there atomically. */
static int make_link(struct side *s, const char *link)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s.irwire-%ld", link, (long)getpid()) >= (int)sizeof(tmp)) {
		fprintf(stderr, "irwire: --link-%c %s: path too long\n", s->name, link);
		return -1;
	}
	unlink(tmp);
	if (symlink(s->pts, tmp) < 0 || rename(tmp, link) < 0) {
		fprintf(stderr, "irwire: --link-%c %s: %s\n", s->name, link, strerror(errno));
		unlink(tmp);
		return -1;
	}
	s->link = link;
	return 0;
}

static void remove_link(struct side *s)
{
	char target[PATH_MAX];

	if (!s->link)
		return;
	/* only if it is still ours */
	ssize_t n = readlink(s->link, target, sizeof(target) - 1);
	if (n >= 0) {
		target[n] = '\0';
		if (strcmp(target, s->pts) == 0)
			unlink(s->link);
	}
	s->link = NULL;
}

/* ---- data path ------------------------------------------------------------ */

static void on_byte(void *ctx, int to, uint8_t b, uint64_t at_us)
{
	struct side *s = &((struct irwire *)ctx)->side[to];

	if (s->master < 0) {
		s->unplugged_lost++;
		return;
	}
	if (s->out_len == OUTBUF) {
		s->overruns++;
		return;
	}
	s->out[(s->out_head + s->out_len) % OUTBUF] = b;
	s->out_len++;
}

/* Writes what the side's UART produced to its master. */
static int flush_side(struct side *s)
{
	while (s->out_len) {
		size_t n = s->out_len;
		if (s->out_head + n > OUTBUF)
			n = OUTBUF - s->out_head;
		ssize_t w = write(s->master, s->out + s->out_head, n);
		if (w < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			fprintf(stderr, "irwire: side %c: write: %s\n", s->name, strerror(errno));
			return -1;
		}
		s->out_head = (s->out_head + (size_t)w) % OUTBUF;
		s->out_len -= (size_t)w;
	}
	return 0;
}

/* Reads what fits in the lead window from the side's master onto the line. */
static int read_side(struct irwire *iw, int i, uint64_t now)
{
	struct side *s = &iw->side[i];
	uint8_t buf[4096];
	uint64_t room = (uint64_t)TX_LEAD_US * s->baud / 10000000;
	size_t max = room < 1 ? 1 : room > sizeof(buf) ? sizeof(buf) : (size_t)room;

	ssize_t n = read(s->master, buf, max);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR || errno == EIO)
			return 0;
		fprintf(stderr, "irwire: side %c: read: %s\n", s->name, strerror(errno));
		return -1;
	}
	if (n > 0 && wire_transmit(iw->wire, i, buf, (size_t)n, now, NULL) < 0) {
		fprintf(stderr, "irwire: side %c: out of memory\n", s->name);
		return -1;
	}
	return 0;
}

static void refresh_speeds(struct irwire *iw, uint64_t now)
{
	for (int i = 0; i < 2; i++) {
		struct side *s = &iw->side[i];
		if (s->slave < 0)
			continue;
		uint32_t b = termios_baud(s->slave);
		if (b && b != s->baud && wire_set_speed(iw->wire, i, b, now) == 0)
			s->baud = b;
	}
}

static void print_stats(const struct irwire *iw, const char *when)
{
	for (int i = 0; i < 2; i++) {
		const struct wire_counters *c = wire_counters(iw->wire, i);
		printf("%s %c: baud=%u sent=%llu delivered=%llu corrupted=%llu dropped=%llu "
		       "lost_break=%llu lost_blind=%llu collisions=%llu speed_mismatch=%llu "
		       "overruns=%llu unplugs=%u unplugged_lost=%llu\n", when, iw->side[i].name, iw->side[i].baud,
		       (unsigned long long)c->sent, (unsigned long long)c->delivered,
		       (unsigned long long)c->corrupted, (unsigned long long)c->dropped,
		       (unsigned long long)c->lost_break, (unsigned long long)c->lost_blind,
		       (unsigned long long)c->collisions, (unsigned long long)c->speed_mismatch,
		       (unsigned long long)iw->side[i].overruns, iw->side[i].unplugs,
		       (unsigned long long)iw->side[i].unplugged_lost);
	}
	fflush(stdout);
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* When the last byte on the line now has arrived and the receiver's
 * FIFO timeout has passed. */
static uint64_t burst_tail(const struct irwire *iw)
{
	uint64_t tail = 0;

	for (int i = 0; i < 2; i++) {
		uint64_t t = wire_tx_idle_at(iw->wire, i) +
			     wire_line_time_us(wire_speed(iw->wire, 1 - i), RX_TIMEOUT_CHARS);
		if (t > tail)
			tail = t;
	}
	return tail;
}

static void close_side(struct side *s)
{
	remove_link(s);
	if (s->master >= 0)
		close(s->master);
	if (s->slave >= 0)
		close(s->slave);
	s->master = s->slave = -1;
}

/* Unplugs and replugs due by now; returns when the next one is due. */
static int run_unplugs(struct irwire *iw, uint64_t now, uint64_t *next)
{
	*next = WIRE_NEVER;
	for (size_t k = 0; k < iw->nunplug; k++) {
		struct unplug *u = &iw->unplug[k];
		struct side *s = &iw->side[u->side];

		if (!u->out && now >= u->at_us) {
			u->out = true;
			if (s->master >= 0) {
				/* the link first: a program that sees the hang-up
				 * and looks finds the device gone */
				close_side(s);
				s->out_head = s->out_len = 0;
				s->unplugs++;
				printf("unplug %c\n", s->name);
				fflush(stdout);
			}
		}
		if (u->out && !u->back && now >= u->at_us + u->len_us) {
			u->back = true;
			if (s->master < 0) {
				if (open_side(s) < 0 ||
				    (s->link_path && make_link(s, s->link_path) < 0))
					return -1;
				wire_set_speed(iw->wire, u->side, s->baud, now);
				printf("replug %c %s\n", s->name, s->pts);
				fflush(stdout);
			}
		}
		if (!u->out)
			*next = min64(*next, u->at_us);
		else if (!u->back)
			*next = min64(*next, u->at_us + u->len_us);
	}
	return 0;
}

static int run(struct irwire *iw, int sigfd)
{
	uint64_t next_stats = iw->stats_interval_us ? iw->stats_interval_us : WIRE_NEVER;

	for (;;) {
		uint64_t now = now_us(iw), next_unplug;
		if (run_unplugs(iw, now, &next_unplug) < 0)
			return EXIT_JOB;
		refresh_speeds(iw, now);
		wire_advance(iw->wire, now, on_byte, iw);
		for (int i = 0; i < 2; i++)
			if (iw->side[i].master >= 0 && flush_side(&iw->side[i]) < 0)
				return EXIT_JOB;
		if (now >= next_stats) {
			print_stats(iw, "stats");
			next_stats += iw->stats_interval_us;
		}

		struct pollfd pfd[5];
		int idx[2] = { -1, -1 };
		nfds_t n = 0;
		uint64_t wake = min64(next_stats, next_unplug);
		pfd[n++] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
		for (int i = 0; i < 2; i++) {
			struct side *s = &iw->side[i];
			short ev = 0;
			if (s->master < 0)
				continue;
			uint64_t idle = wire_tx_idle_at(iw->wire, i);
			if (idle <= now + TX_LEAD_US)
				ev |= POLLIN;
			else
				wake = min64(wake, idle - TX_LEAD_US);
			if (s->out_len)
				ev |= POLLOUT;
			if (ev) {
				idx[i] = (int)n;
				pfd[n++] = (struct pollfd){ .fd = s->master, .events = ev };
			}
		}
		uint64_t ev = wire_next_event(iw->wire);
		if (ev != WIRE_NEVER) {
			uint64_t batch = ev > now + RX_BATCH_US ? ev : now + RX_BATCH_US;
			uint64_t tail = burst_tail(iw);
			wake = min64(wake, iw->low_latency ? ev :
					   min64(batch, tail > ev ? tail : ev));
		}

		struct timespec ts, *tp = NULL;
		if (wake != WIRE_NEVER) {
			uint64_t d = wake > now ? wake - now : 0;
			ts.tv_sec = (time_t)(d / 1000000);
			ts.tv_nsec = (long)(d % 1000000) * 1000;
			tp = &ts;
		}
		if (ppoll(pfd, n, tp, NULL) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "irwire: poll: %s\n", strerror(errno));
			return EXIT_JOB;
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				return 0;
		}
		now = now_us(iw);
		refresh_speeds(iw, now);
		for (int i = 0; i < 2; i++)
			if (idx[i] >= 0 && (pfd[idx[i]].revents & (POLLIN | POLLHUP)) &&
			    read_side(iw, i, now) < 0)
				return EXIT_JOB;
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "link-a", required_argument, NULL, 'a' },
		{ "link-b", required_argument, NULL, 'b' },
		{ "ber", required_argument, NULL, 'e' },
		{ "drop", required_argument, NULL, 'd' },
		{ "turnaround-us", required_argument, NULL, 't' },
		{ "break", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ "unplug", required_argument, NULL, 'u' },
		{ "stats-interval", required_argument, NULL, 'i' },
		{ "low-latency", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct irwire iw;
	static struct wire_break breaks[MAX_BREAKS];
	struct wire_config cfg = { .seed = 1 };
	const char *link[2] = { NULL, NULL };
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
		case 'b':
			link[c - 'a'] = optarg;
			break;
		case 'e':
			if (!parse_prob(optarg, &cfg.ber)) {
				fprintf(stderr, "irwire: --ber %s: not a probability (0..1)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd':
			if (!parse_prob(optarg, &cfg.drop)) {
				fprintf(stderr, "irwire: --drop %s: not a probability (0..1)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			if (!parse_u64(optarg, &v) || v > 10000000) {
				fprintf(stderr, "irwire: --turnaround-us %s: not a number of "
					"microseconds up to 10000000\n", optarg);
				return EXIT_USAGE;
			}
			cfg.turnaround_us = (uint32_t)v;
			break;
		case 'k':
			if (cfg.n_breaks == MAX_BREAKS) {
				fprintf(stderr, "irwire: --break %s: more than %d breaks\n",
					optarg, MAX_BREAKS);
				return EXIT_USAGE;
			}
			if (!parse_break(optarg, &breaks[cfg.n_breaks])) {
				fprintf(stderr, "irwire: --break %s: expected AT_MS:LEN_MS "
					"(LEN_MS > 0)\n", optarg);
				return EXIT_USAGE;
			}
			cfg.n_breaks++;
			break;
		case 'u':
			if (iw.nunplug == MAX_UNPLUGS) {
				fprintf(stderr, "irwire: --unplug %s: more than %d unplugs\n",
					optarg, MAX_UNPLUGS);
				return EXIT_USAGE;
			}
			if (!parse_unplug(optarg, &iw.unplug[iw.nunplug])) {
				fprintf(stderr, "irwire: --unplug %s: expected SIDE:AT_MS:LEN_MS "
					"(SIDE a or b, LEN_MS > 0)\n", optarg);
				return EXIT_USAGE;
			}
			iw.nunplug++;
			break;
		case 's':
			if (!parse_u64(optarg, &cfg.seed)) {
				fprintf(stderr, "irwire: --seed %s: not an unsigned integer\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'L':
			iw.low_latency = true;
			break;
		case 'i':
			if (!parse_u64(optarg, &v) || v == 0 || v > 86400) {
				fprintf(stderr, "irwire: --stats-interval %s: not a number of "
					"seconds (1..86400)\n", optarg);
				return EXIT_USAGE;
			}
			iw.stats_interval_us = v * 1000000;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "irwire: unexpected argument: %s\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	cfg.breaks = breaks;

	/* Signals are read from a descriptor in the loop, never handled in
	 * signal context. */
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	/* A shell starts background jobs with SIGINT ignored, and an ignored
	 * signal is discarded, blocked or not: restore the default action
	 * (harmless while blocked) so that signalfd sees it. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	/* The line's clock is in microseconds: the default 50 us of timer
	 * slack would add up to that much to every delivery. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	int sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sigfd < 0) {
		fprintf(stderr, "irwire: signalfd: %s\n", strerror(errno));
		return EXIT_JOB;
	}

	int rc = EXIT_JOB;
	iw.side[0].name = 'a';
	iw.side[1].name = 'b';
	iw.side[0].master = iw.side[0].slave = iw.side[1].master = iw.side[1].slave = -1;
	for (int i = 0; i < 2; i++) {
		iw.side[i].link_path = link[i];
		/* a receiver blind for the turnaround needs at least that */
		iw.side[i].mark_tat_us = cfg.turnaround_us > MARK_MIN_TAT_FLOOR_US ?
					 cfg.turnaround_us : MARK_MIN_TAT_FLOOR_US;
	}
	for (int i = 0; i < 2; i++)
		if (open_side(&iw.side[i]) < 0 ||
		    (link[i] && make_link(&iw.side[i], link[i]) < 0))
			goto out;
	cfg.baud[0] = iw.side[0].baud;
	cfg.baud[1] = iw.side[1].baud;
	clock_gettime(CLOCK_MONOTONIC, &iw.t0);
	iw.wire = wire_new(&cfg);
	if (!iw.wire) {
		const char *why = wire_config_error(&cfg);
		fprintf(stderr, "irwire: %s\n", why ? why : strerror(errno));
		rc = why ? EXIT_USAGE : EXIT_JOB;
		goto out;
	}
	printf("a %s\nb %s\n", iw.side[0].pts, iw.side[1].pts);
	fflush(stdout);

	rc = run(&iw, sigfd);
	/* deliver what has arrived by now, then report */
	wire_advance(iw.wire, now_us(&iw), on_byte, &iw);
	for (int i = 0; i < 2; i++)
		if (iw.side[i].master >= 0)
			flush_side(&iw.side[i]);
	print_stats(&iw, "total");
out:
	for (int i = 0; i < 2; i++)
		close_side(&iw.side[i]);
	wire_free(iw.wire);
	close(sigfd);
	return rc;
}
