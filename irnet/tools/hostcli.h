/*
 * hostcli.h: the command line and start-up every irnet host program
 * shares (irdiscover, irspray).
 *
 * Owns: the common long options (--dongle, --speed, --min-turnaround,
 * --nickname, --pcap, --user, --lock-dir, --no-seccomp, --verbose), their
 * checks and their usage lines; the logger; and the start-up in the order
 * the privilege model needs (docs/irnet-host.md): the station's
 * configuration is checked, the port and the capture file are opened
 * while still root, the event loop gets SIGINT/SIGTERM (they end it),
 * the port's UUCP lock is handed to the user we become (so the close can
 * remove it), then root is dropped and the system-call allow-list
 * installed.  Also whether a program works through irdad instead
 * (hostcli_daemon_session: --daemon, or -D's /run/irnet/PORT.sock).
 *
 * Does not own: a program's own options or its short letters (the device
 * is -D in both; irdiscover also takes its older -d, which in irspray is
 * irdaspray's unidirectional flag), nor what it does with the stack.
 *
 * Signals: the loop takes SIGINT and SIGTERM even when the program was
 * started with them ignored (eloop_add_signal resets SIG_IGN).
 *
 * This is program code: it prints its messages to stderr, prefixed with
 * the program's name, and returns the exit code to use.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_HOSTCLI_H
#define IRNET_HOSTCLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "eloop.h"
#include "log.h"
#include "pcap.h"
#include "serial.h"
#include "stack.h"
#include "usb_line.h"

#define HOSTCLI_EXIT_JOB 1
#define HOSTCLI_EXIT_USAGE 2

/* getopt_long codes of the common options (above any character). */
enum hostcli_opt {
	HOSTCLI_OPT_DONGLE = 0x100,
	HOSTCLI_OPT_SPEED,
	HOSTCLI_OPT_MIN_TAT,
	HOSTCLI_OPT_NICKNAME,
	HOSTCLI_OPT_PCAP,
	HOSTCLI_OPT_USER,
	HOSTCLI_OPT_LOCK_DIR,
	HOSTCLI_OPT_NO_SECCOMP,
	HOSTCLI_OPT_VERBOSE = 'v',
};

/* The entries for a program's struct option table. */
#define HOSTCLI_LONG_OPTIONS                                                  \
	{ "dongle", required_argument, NULL, HOSTCLI_OPT_DONGLE },            \
	{ "speed", required_argument, NULL, HOSTCLI_OPT_SPEED },              \
	{ "min-turnaround", required_argument, NULL, HOSTCLI_OPT_MIN_TAT },   \
	{ "nickname", required_argument, NULL, HOSTCLI_OPT_NICKNAME },        \
	{ "pcap", required_argument, NULL, HOSTCLI_OPT_PCAP },                \
	{ "user", required_argument, NULL, HOSTCLI_OPT_USER },                \
	{ "lock-dir", required_argument, NULL, HOSTCLI_OPT_LOCK_DIR },        \
	{ "no-seccomp", no_argument, NULL, HOSTCLI_OPT_NO_SECCOMP },          \
	{ "verbose", no_argument, NULL, HOSTCLI_OPT_VERBOSE }

struct hostcli {
	/* the options */
	const char *prog;
	const char *device, *dongle, *nickname, *pcap_path, *user, *lock_dir;
	uint32_t speed;
	long min_tat_us;          /* STATION_MIN_TAT_DONGLE: the dongle's */
	bool seccomp;
	unsigned verbose;
	/* what hostcli_start() made; hostcli_finish() undoes it */
	struct logger log;
	struct port *port;
	/* A USB dongle instead of the port (-D usb...): cfg->framed is its
	 * line.  port is NULL then. */
	struct usb_line *usb;
	/* Set by a daemon: a USB dongle not present at start is waited for
	 * (usb_absent: the line has none open yet) instead of an error. */
	bool usb_may_wait;
	bool usb_absent;
	struct eloop *loop;
	FILE *pcap_file;
	struct pcap_writer pcap;
	bool port_failed;         /* the port failed (said on stderr); the loop ended */
	/* The minimum turnaround hostcli_start settled on and why, in words:
	 * "10 us (irwire port)", "5 ms (dongle none)", "1 ms (--min-turnaround)". */
	char min_tat_said[80];
	/* How the user gives the turnaround, for min_tat_said (default
	 * "--min-turnaround"; irdad names its setting). */
	const char *min_tat_given_as;
	/* For a daemon (optional): runs in hostcli_start once the port and
	 * the loop exist, before root is dropped, to open what it serves
	 * (sockets, ptys).  Returns 0, or an exit code after saying why. */
	int (*before_drop)(struct hostcli *h, void *ctx);
	void *before_drop_ctx;
	/* System calls the program needs beyond privdrop's allow-list. */
	const char *const *seccomp_extra;
	size_t nseccomp_extra;
};

/* Defaults: dongle none, 115200, the port's or the dongle's turnaround
 * (see hostcli_start), user nobody, /var/lock, seccomp on. */
void hostcli_init(struct hostcli *h, const char *prog, const char *nickname);
/* Takes getopt_long's code c with its argument.  1: a common option,
 * taken; 0: not a common one; -1: a bad value (said on stderr). */
int hostcli_option(struct hostcli *h, int c, const char *arg);
/* The checks once all options are in: a device (device_flag names the
 * program's option for it), the nickname, the dongle and the rate.
 * 0, or -1 (said on stderr). */
int hostcli_check(const struct hostcli *h, const char *device_flag);
/* A minimum turnaround in words: "10 us", "5 ms". */
void hostcli_tat_text(uint32_t us, char *buf, size_t cap);
/* The usage lines of the common options. */
void hostcli_usage(FILE *f);

/* Fills cfg (station, IrLMP defaults; the program adds its callbacks,
 * hints, timeouts), opens the port and the capture file, makes the loop
 * (SIGINT and SIGTERM end it) and drops privileges.  A port failure
 * is said on stderr, sets port_failed and ends the loop.  The minimum
 * turnaround is the one given (--min-turnaround); else, on a pty that
 * irwire marked, the one irwire names (serial_irwire_min_tat); else the
 * dongle's.  It is logged at info level and kept in min_tat_said.
 * A device named as usb_name.h says ("usb", "usb:1-1", ...) is a USB
 * dongle: it is opened and brought up (usb_line.h) instead, cfg->framed
 * set to its line, the QoS cut to what the chip does at SIR and the
 * turnaround the chip's; --dongle does not apply.
 * Returns 0, or the exit code after saying why on stderr; call
 * hostcli_finish() either way. */
int hostcli_start(struct hostcli *h, struct stack_config *cfg);
struct irnet_client;

/*
 * Whether a program does its job through irdad instead of opening the
 * port: with daemon (--daemon SOCKET) always; else, unless no_daemon
 * (--no-daemon), when -D DEVICE names a port whose control socket
 * (/run/irnet/PORT.sock) exists and a session opens on it (irdad holds
 * the port then).  Returns 1 with *cl open and the socket's path in
 * where, 0 to open the port, or -1 after saying why on stderr (--daemon's
 * socket unusable).
 */
int hostcli_daemon_session(const struct hostcli *h, const char *daemon, bool no_daemon,
			   struct irnet_client **cl, char *where, size_t cap);

/* Frees the loop, closes the port and the capture.  Returns rc, or
 * HOSTCLI_EXIT_JOB if rc was 0 and the capture could not be completed. */
int hostcli_finish(struct hostcli *h, int rc);

#endif
