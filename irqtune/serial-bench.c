/*
 * serial-bench.c: the two guest-side halves of the irqtune benchmark
 * (tests/irqtune-bench.sh, "the 1996 experiment in modern form").
 *
 *   serial-bench load CPU PRIO DUTY% PERIOD_US SECONDS
 *       a periodic SCHED_FIFO load pinned to CPU: busy for DUTY% of each
 *       period, asleep for the rest, until SECONDS have passed or SIGTERM
 *   serial-bench sink DEVICE BYTES TIMEOUT_S
 *       opens DEVICE raw at 115200, writes "READY\n" (the host starts
 *       sending when it sees it), reads BYTES and prints
 *       "bytes=N us=T overrun=O" (T: first byte to last byte, O: the
 *       TIOCGICOUNT overrun and buf_overrun counts during the run)
 *
 * Program code for a benchmark inside a VM: it prints, and the load is a
 * deliberate busy loop bounded in time.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/serial.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long arg_long(const char *s, long min, long max, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max) {
		fprintf(stderr, "serial-bench: %s '%s' is not a number from "
			"%ld to %ld\n", what, s, min, max);
		exit(2);
	}
	return v;
}

static int load(char **argv)
{
	long cpu = arg_long(argv[0], 0, 1023, "CPU");
	long prio = arg_long(argv[1], 1, 99, "PRIO");
	long duty = arg_long(argv[2], 1, 99, "DUTY");
	long period_us = arg_long(argv[3], 100, 10000000, "PERIOD_US");
	long seconds = arg_long(argv[4], 1, 3600, "SECONDS");
	cpu_set_t set;
	struct sched_param sp = { .sched_priority = (int)prio };
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0 ||
	    sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		perror("serial-bench: load");
		return 1;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	long long period = period_us * 1000LL, busy = period * duty / 100;
	long long end = now_ns() + seconds * 1000000000LL;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop && now_ns() < end) {
		long long t0 = (long long)next.tv_sec * 1000000000LL + next.tv_nsec;
		while (now_ns() < t0 + busy && !stop)
			;
		long long t1 = t0 + period;
		next.tv_sec = (time_t)(t1 / 1000000000LL);
		next.tv_nsec = (long)(t1 % 1000000000LL);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR && !stop)
			;
	}
	return 0;
}

static int sink(char **argv)
{
	const char *dev = argv[0];
	long want = arg_long(argv[1], 1, 1 << 24, "BYTES");
	long timeout_s = arg_long(argv[2], 1, 3600, "TIMEOUT_S");
	int fd = open(dev, O_RDWR | O_NOCTTY | O_NONBLOCK);
	struct termios tio;
	struct serial_icounter_struct ic0, ic1;
	if (fd < 0 || tcgetattr(fd, &tio) < 0) {
		fprintf(stderr, "serial-bench: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	cfmakeraw(&tio);
	cfsetspeed(&tio, B115200);
	tio.c_cflag |= CLOCAL | CREAD;
	if (tcsetattr(fd, TCSANOW, &tio) < 0 || tcflush(fd, TCIFLUSH) < 0) {
		fprintf(stderr, "serial-bench: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	memset(&ic0, 0, sizeof(ic0));
	memset(&ic1, 0, sizeof(ic1));
	ioctl(fd, TIOCGICOUNT, &ic0);
	if (write(fd, "READY\n", 6) != 6) {
		fprintf(stderr, "serial-bench: %s: write: %s\n", dev, strerror(errno));
		return 1;
	}
	long got = 0;
	long long first = 0, last = 0, deadline = now_ns() + timeout_s * 1000000000LL;
	char buf[4096];
	while (got < want) {
		long long left = (deadline - now_ns()) / 1000000;
		if (left <= 0)
			break;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			last = now_ns();
			if (!got)
				first = last;
			got += n;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			break;
		}
	}
	ioctl(fd, TIOCGICOUNT, &ic1);
	printf("bytes=%ld us=%lld overrun=%d\n", got, (last - first) / 1000,
	       (ic1.overrun - ic0.overrun) + (ic1.buf_overrun - ic0.buf_overrun));
	close(fd);
	return got == want ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 7 && strcmp(argv[1], "load") == 0)
		return load(argv + 2);
	if (argc == 5 && strcmp(argv[1], "sink") == 0)
		return sink(argv + 2);
	fprintf(stderr, "usage: serial-bench load CPU PRIO DUTY%% PERIOD_US SECONDS\n"
			"       serial-bench sink DEVICE BYTES TIMEOUT_S\n");
	return 2;
}
