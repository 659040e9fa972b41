/*
 * irdad: the IrDA daemon of one serial port.  It owns the port and its
 * dongle, runs the whole stack on it, and serves the local API
 * (docs/irdad-api.md) on a unix socket so that other programs share the
 * link: the pppd plugin, the AF_IRDA library, irdiscover, irspray.
 *
 * Configuration: irdad.conf(5) (irnet/daemon/irdad_config.h), every key
 * also an option of the same name that overrides the file.  Start-up
 * (hostcli): the port and its lock are opened as root, then the control
 * socket, then root is dropped and the system-call allow-list (with the
 * socket calls the API needs) installed.  SIGINT and SIGTERM end it:
 * every session ends, its connections are disconnected and its IAS
 * objects withdrawn, the lock is removed.  SIGHUP reads the file again
 * (all or nothing) and applies what a running daemon can.  SIGCHLD
 * collects the port opener if it ends: said once, and the port is
 * reopened unprivileged from then on.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "api_requests.h"
#include "api_server.h"
#include "hostcli.h"
#include "irdad_config.h"
#include "irnet_ep.h"
#include "ircomm_pty.h"
#include "cursor.h"
#include "path_watch.h"
#include "port_opener.h"
#include "stack.h"

#define EXIT_JOB HOSTCLI_EXIT_JOB
#define EXIT_USAGE HOSTCLI_EXIT_USAGE
#define CONFIG_DIR "/etc/irnet"
/* --stdio: how long the ended endpoint's last frames and the link's
 * disconnection may take before the exit; how often we look. */
#define STDIO_CLOSE_US 3000000u
#define STDIO_CLOSE_POLL_US 10000u
#define OPT_KEY_BASE 0x200        /* getopt codes of the config keys */
#define OPT_CONFIG 'c'
#define OPT_CHECK 0x300
#define OPT_NO_SECCOMP 0x301
#define OPT_STDIO 0x302
#define OPT_LISTEN 0x303
#define OPT_PEER 0x304
#define OPT_STATUS_FD 0x305
#define OPT_SERVICE 0x306
#define OPT_WIRE 0x307
#define OPT_CONNECT_TIMEOUT 0x308
#define OPT_LIST_DEVICES 0x309

struct irdad {
	struct irdad_config cfg;
	struct irdad_overrides ov;
	const char *config_path;    /* NULL: none (defaults and options only) */
	char config_buf[IRDAD_PATH_MAX];
	bool check_only;
	unsigned verbose;
	/* --stdio: one IrNET (or --service ircomm: IrCOMM) connection on
	 * standard input and output */
	bool stdio, stdio_listen, stdio_wire_set;
	struct irdad_endpoint stdio_ep;
	int status_fd;
	bool stdio_was_up, stdio_closing, stdio_disc_asked;
	uint64_t stdio_close_deadline;
	struct eloop_timer stdio_close;
	unsigned connect_timeout_s; /* 0: the endpoint's default */
	/* the [irnet] endpoints (and the --stdio one), the [ircomm] ones */
	struct irnet_ep *irnet[IRDAD_ENDPOINTS_MAX];
	size_t nirnet;
	struct ircomm_pty *ircomm[IRDAD_ENDPOINTS_MAX];
	size_t nircomm;
	struct hostcli h;
	struct stack *stk;
	struct api_server *srv;
	struct api_requests *ar;
	struct api_requests_config arc;
	struct eloop_timer discovery;
	/* the port going away and coming back ("When the port goes away"
	 * in docs/irdad.md) */
	struct port_opener *opener;  /* NULL: not started as root, or it ended */
	char opener_end[80];          /* how it ended ("" while it runs or if none) */
	struct path_watch *watch;
	struct eloop_timer port_lost;
	char port_why[400];
	char resolved[PATH_MAX];      /* where the device led when last open */
	bool port_gone;
	bool usb_watching;            /* a USB dongle's return is a hotplug event */
	int said_err;                 /* the reopen's failure last logged (-errno), 0: none */
	struct eloop_timer port_retry; /* a reopen that failed for another reason than absence */
	uint64_t retry_us;
	uint64_t unplugs, replugs;
	int syslog_fd;
	char errbuf[400];
};

/* The calls irdad makes once running beyond privdrop's list: serving
 * the API, and reading where an endpoint's pty link leads before it
 * removes it at exit. */
static const char *const api_calls[] = {
	"accept4", "accept", "recvmsg", "sendmsg", "recvfrom", "sendto",
	"socketpair", "shutdown", "getsockopt", "setsockopt", "readlink", "readlinkat",
	/* a stream connection's TCP pair on 127.0.0.1 (loopback_pair.h) */
	"socket", "bind", "listen", "connect", "getsockname",
	/* an endpoint a SIGHUP adds: its pty, its link, the watch on its slave */
	"openat", "symlinkat", "symlink", "renameat", "renameat2", "rename", "mkdirat", "mkdir",
	"inotify_init1", "inotify_add_watch", "inotify_rm_watch",
	/* the port reopened after it went away: the UUCP lock taken again
	 * (link, kill for a stale lock's owner), the opener asked (sendto,
	 * recvmsg) */
	"link", "linkat", "kill",
	/* the opener's end collected (SIGCHLD): glibc's waitpid is wait4 on
	 * x86_64 and aarch64, the waitpid call where there is one (i386),
	 * waitid where there is no wait4 (riscv32); names the architecture
	 * lacks are skipped */
	"wait4", "waitid", "waitpid",
};

static void usage(FILE *f)
{
	fputs("usage: irdad [-c FILE] [-D DEVICE] [--KEY VALUE ...] [--no-seccomp] [-v]\n"
	      "       irdad --check [-c FILE] [options]\n"
	      "       irdad --stdio -D DEVICE [--service irnet|ircomm] [--wire WIRE]\n"
	      "             [--listen] [--peer NICKNAME|0xADDRESS] [--status-fd N]\n"
	      "             [--connect-timeout S] [options]\n"
	      "The IrDA daemon of one serial port: runs the stack and serves the local API.\n"
	      "  -c, --config FILE     irdad.conf(5); default /etc/irnet/PORT.conf, else\n"
	      "                        /etc/irnet/irdad.conf, else none\n"
	      "  -D, --device DEVICE   the serial port (or pty), or a USB dongle: usb (the\n"
	      "                        first), usb:VID:PID, usb:BUS-PORT, usb:serial=S\n"
	      "  --check               print the configuration as it would run, and exit\n"
	      "  --stdio               one connection on standard input and output, then exit\n"
	      "                        (for pppd's pty option and the irnet.so plugin)\n"
	      "  --service SERVICE     --stdio: irnet (default: PPP in async HDLC over IrNET)\n"
	      "                        or ircomm (bytes over IrCOMM, a serial line to a phone;\n"
	      "                        a pty master's slave settings go as IrCOMM parameters)\n"
	      "  --wire WIRE           --stdio --service ircomm: auto (default), 9wire, 3wire,\n"
	      "                        3wire-raw\n"
	      "  --listen              --stdio: wait for a peer's call (default: call)\n"
	      "  --peer PEER           --stdio: call this nickname or 0xADDRESS (default: the\n"
	      "                        first station offering the service)\n"
	      "  --status-fd N         --stdio: status lines (listening, up, failed, down) on\n"
	      "                        descriptor N\n"
	      "  --connect-timeout S   --stdio, calling: keep looking for the peer for S\n"
	      "                        seconds, then fail (default: 3 discoveries; IrNET\n"
	      "                        also gives up at 20 s)\n"
	      "  --list-devices[=all]  list the USB IrDA dongles present (=all: every USB\n"
	      "                        device) with the usb:PORT names -D takes, and exit\n"
	      "  --no-seccomp          do not install the system-call allow-list\n"
	      "  -v, --verbose         log-level info (twice: debug)\n"
	      "Every key of irdad.conf(5) is also an option that overrides the file:\n"
	      "  --dongle --speed --min-turnaround --nickname --hints --ias-name --user\n"
	      "  --group --socket --socket-mode --lock-dir --seccomp --discovery-period\n"
	      "  --idle-timeout --log (syslog|stderr) --log-level --pcap\n"
	      "A port that goes away (a USB dongle unplugged) is waited for and reopened;\n"
	      "the ptys stay (irdad(8), Unplugging).\n"
	      "Exit: 0 ended by SIGINT or SIGTERM (or --check passed; --stdio: the connection\n"
	      "came up), 1 the port could not be opened or the socket failed (--stdio: or no\n"
	      "connection, or the port failed), 2 a usage or configuration error.\n", f);
}

/* "/dev/ttyUSB0" -> "ttyUSB0" */
static const char *port_name(const char *device)
{
	const char *slash = strrchr(device, '/');
	return slash ? slash + 1 : device;
}

static bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Without -c: the port's own file, else the common one, else none. */
static void default_config(struct irdad *d, const char *device)
{
	if (device) {
		int n = snprintf(d->config_buf, sizeof(d->config_buf), "%s/%s.conf", CONFIG_DIR,
				 port_name(device));
		if (n > 0 && (size_t)n < sizeof(d->config_buf) && file_exists(d->config_buf)) {
			d->config_path = d->config_buf;
			return;
		}
	}
	if (file_exists(IRDAD_CONFIG_PATH))
		d->config_path = IRDAD_CONFIG_PATH;
}

/* The options: one per configuration key, under the key's own name. */
static void build_options(struct option *lo)
{
	size_t n = 0;
	for (int k = 0; k < IRDAD_KEY_COUNT; k++)
		lo[n++] = (struct option){ irdad_key_name((enum irdad_key)k), required_argument, NULL,
					   OPT_KEY_BASE + k };
	lo[n++] = (struct option){ "config", required_argument, NULL, OPT_CONFIG };
	lo[n++] = (struct option){ "check", no_argument, NULL, OPT_CHECK };
	lo[n++] = (struct option){ "no-seccomp", no_argument, NULL, OPT_NO_SECCOMP };
	lo[n++] = (struct option){ "stdio", no_argument, NULL, OPT_STDIO };
	lo[n++] = (struct option){ "listen", no_argument, NULL, OPT_LISTEN };
	lo[n++] = (struct option){ "peer", required_argument, NULL, OPT_PEER };
	lo[n++] = (struct option){ "status-fd", required_argument, NULL, OPT_STATUS_FD };
	lo[n++] = (struct option){ "service", required_argument, NULL, OPT_SERVICE };
	lo[n++] = (struct option){ "wire", required_argument, NULL, OPT_WIRE };
	lo[n++] = (struct option){ "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT };
	lo[n++] = (struct option){ "list-devices", optional_argument, NULL, OPT_LIST_DEVICES };
	lo[n++] = (struct option){ "verbose", no_argument, NULL, 'v' };
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
}

static int override(struct irdad *d, const char *key, const char *value)
{
	if (irdad_overrides_add(&d->ov, key, value, d->errbuf, sizeof(d->errbuf)) < 0) {
		fprintf(stderr, "irdad: %s\n", d->errbuf);
		return -1;
	}
	return 0;
}

/* --peer: 0x and 8 hex digits, an address; anything else a nickname. */
static int parse_peer(const char *arg, struct irdad_peer *p)
{
	size_t n = strlen(arg);
	uint64_t v;

	if (n > 2 && arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X')) {
		char *end;
		errno = 0;
		v = strtoull(arg + 2, &end, 16);
		if (errno || *end || v == 0 || v > 0xffffffffu) {
			fprintf(stderr, "irdad: --peer %s: not a device address (0x1 to 0xffffffff)\n",
				arg);
			return -1;
		}
		*p = (struct irdad_peer){ .kind = IRDAD_PEER_ADDRESS, .address = (uint32_t)v };
		return 0;
	}
	if (n == 0 || n > IRDAD_NICKNAME_MAX) {
		fprintf(stderr, "irdad: --peer %s: a nickname is 1 to %d bytes\n", arg,
			IRDAD_NICKNAME_MAX);
		return -1;
	}
	*p = (struct irdad_peer){ .kind = IRDAD_PEER_NICKNAME };
	memcpy(p->nickname, arg, n);
	return 0;
}

static int parse_fd(const char *arg, int *fd)
{
	struct cursor c;
	uint64_t v;

	cursor_init(&c, arg, strlen(arg));
	if (!cursor_parse_u64(&c, &v) || !cursor_at_end(&c) || v < 3 || v > 1023) {
		fprintf(stderr, "irdad: --status-fd %s: a descriptor number from 3 to 1023\n", arg);
		return -1;
	}
	*fd = (int)v;
	return 0;
}

/* --service: irdad_service_name()'s names. */
static int parse_service(const char *arg, enum irdad_service *out)
{
	const enum irdad_service all[] = { IRDAD_SVC_IRNET, IRDAD_SVC_IRCOMM };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(arg, irdad_service_name(all[i])) == 0) {
			*out = all[i];
			return 0;
		}
	fprintf(stderr, "irdad: --service %s: irnet or ircomm\n", arg);
	return -1;
}

/* --wire: the [ircomm] key's values. */
static int parse_wire(const char *arg, enum irdad_wire *out)
{
	for (enum irdad_wire w = IRDAD_WIRE_AUTO; w <= IRDAD_WIRE_3_RAW; w++)
		if (strcmp(arg, irdad_wire_name(w)) == 0) {
			*out = w;
			return 0;
		}
	fprintf(stderr, "irdad: --wire %s: auto, 9wire, 3wire or 3wire-raw\n", arg);
	return -1;
}

static int parse_timeout(const char *arg, unsigned *seconds)
{
	struct cursor c;
	uint64_t v;

	cursor_init(&c, arg, strlen(arg));
	if (!cursor_parse_u64(&c, &v) || !cursor_at_end(&c) || v < 1 || v > 3600) {
		fprintf(stderr, "irdad: --connect-timeout %s: seconds from 1 to 3600\n", arg);
		return -1;
	}
	*seconds = (unsigned)v;
	return 0;
}

/* The highest speed of a QoS baud field, in words. */
static void top_speed_text(uint16_t bits, char *buf, size_t cap)
{
	static const uint32_t baud[] = { 2400, 9600, 19200, 38400, 57600, 115200,
					 576000, 1152000, 4000000 };
	uint32_t top = 0;

	for (size_t i = 0; i < sizeof(baud) / sizeof(baud[0]); i++)
		if (bits & (1u << i))
			top = baud[i];
	if (top >= 1000000)
		snprintf(buf, cap, "up to %u.%03u Mbit/s", top / 1000000, top / 1000 % 1000);
	else
		snprintf(buf, cap, "up to %u bit/s", top);
}

/* --list-devices: the USB IrDA dongles present (all: every USB device). */
static int list_devices(bool all)
{
	struct usb_line_listing found[64];
	struct eloop *loop = eloop_new(NULL);
	char err[200], speeds[40];
	size_t n = 0;
	int r;

	if (!loop) {
		fprintf(stderr, "irdad: out of memory\n");
		return EXIT_JOB;
	}
	r = usb_line_list(loop, all, found, sizeof(found) / sizeof(found[0]), &n, err,
			  sizeof(err));
	eloop_free(loop);
	if (r < 0) {
		fprintf(stderr, "irdad: --list-devices: %s\n", err);
		return EXIT_JOB;
	}
	if (n == 0)
		printf("no USB IrDA dongle present%s\n", all ? " (and no USB device)" : "");
	for (size_t i = 0; i < n && i < sizeof(found) / sizeof(found[0]); i++) {
		const struct usb_line_listing *f = &found[i];

		top_speed_text(f->baud_bits, speeds, sizeof(speeds));
		if (f->family)
			printf("usb:%-10s %s  %04x:%04x  %s (%s), %s", f->port[0] ? f->port : "?",
			       f->path, f->vid, f->pid, f->family, f->chip, speeds);
		else
			printf("usb:%-10s %s  %04x:%04x  not an IrDA dongle", f->port[0] ? f->port : "?",
			       f->path, f->vid, f->pid);
		printf("%s\n", f->kernel_driver == 1 ? ", held by a kernel driver (irdad detaches it)" :
		       f->kernel_driver == 0 ? ", free" : ", not openable by this user");
		if (f->serial[0])
			printf("    serial %s (usb:serial=%s)\n", f->serial, f->serial);
	}
	return 0;
}

static int parse(int argc, char **argv, struct irdad *d)
{
	/* the keys, 13 options, the terminator */
	struct option lo[IRDAD_KEY_COUNT + 14];
	const char *device = NULL;
	int c;

	build_options(lo);
	while ((c = getopt_long(argc, argv, "c:D:vh", lo, NULL)) != -1) {
		int rc = 0;
		if (c >= OPT_KEY_BASE && c < OPT_KEY_BASE + IRDAD_KEY_COUNT) {
			rc = override(d, irdad_key_name((enum irdad_key)(c - OPT_KEY_BASE)), optarg);
			if (c == OPT_KEY_BASE + IRDAD_KEY_DEVICE)
				device = optarg;
		} else {
			switch (c) {
			case OPT_CONFIG: d->config_path = optarg; break;
			case 'D':
				device = optarg;
				rc = override(d, "device", optarg);
				break;
			case OPT_CHECK: d->check_only = true; break;
			case OPT_NO_SECCOMP: rc = override(d, "seccomp", "no"); break;
			case OPT_STDIO: d->stdio = true; break;
			case OPT_LISTEN: d->stdio_listen = true; break;
			case OPT_PEER: rc = parse_peer(optarg, &d->stdio_ep.peer); break;
			case OPT_STATUS_FD: rc = parse_fd(optarg, &d->status_fd); break;
			case OPT_SERVICE: rc = parse_service(optarg, &d->stdio_ep.service); break;
			case OPT_WIRE:
				rc = parse_wire(optarg, &d->stdio_ep.wire);
				d->stdio_wire_set = true;
				break;
			case OPT_CONNECT_TIMEOUT: rc = parse_timeout(optarg, &d->connect_timeout_s); break;
			case 'v': d->verbose++; break;
			case OPT_LIST_DEVICES:
				if (optarg && strcmp(optarg, "all") != 0) {
					fprintf(stderr, "irdad: --list-devices=%s: only =all "
						"(every USB device) is known\n", optarg);
					return -1;
				}
				exit(list_devices(optarg != NULL));
			case 'h': usage(stdout); exit(0);
			default:
				usage(stderr);
				return -1;
			}
		}
		if (rc < 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "irdad: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!d->stdio && (d->stdio_listen || d->stdio_ep.peer.kind != IRDAD_PEER_ANY ||
			  d->status_fd >= 0 || d->stdio_ep.service != IRDAD_SVC_IRNET ||
			  d->stdio_wire_set || d->connect_timeout_s)) {
		fprintf(stderr, "irdad: --listen, --peer, --status-fd, --service, --wire and "
				"--connect-timeout go with --stdio\n");
		return -1;
	}
	if (d->stdio_wire_set && d->stdio_ep.service != IRDAD_SVC_IRCOMM) {
		fprintf(stderr, "irdad: --wire is IrCOMM's: it goes with --service ircomm\n");
		return -1;
	}
	d->stdio_ep.role = d->stdio_listen ? IRDAD_ROLE_LISTEN : IRDAD_ROLE_CALL;
	if (d->stdio_listen && d->stdio_ep.peer.kind != IRDAD_PEER_ANY) {
		fprintf(stderr, "irdad: --peer is for calling; a --listen endpoint takes any caller\n");
		return -1;
	}
	/* -v is log-level info, -vv debug, after any --log-level */
	if (d->verbose && override(d, "log-level", d->verbose > 1 ? "debug" : "info") < 0)
		return -1;
	if (!d->config_path)
		default_config(d, device);
	return 0;
}

/* --- logging to syslog ----------------------------------------------------- */

/* A datagram socket on /dev/log opened while still root, so the dropped
 * and filtered daemon only ever sends on it (syslog(3) would reconnect
 * with socket and connect, which the allow-list does not have).  A lost
 * line is lost; the daemon never blocks on its log. */
static int open_syslog(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void log_sink_syslog(void *ctx, enum log_level level, const char *msg)
{
	static const int prio[] = { [LOG_LEVEL_ERROR] = LOG_ERR, [LOG_LEVEL_WARNING] = LOG_WARNING,
				    [LOG_LEVEL_INFO] = LOG_INFO, [LOG_LEVEL_DEBUG] = LOG_DEBUG };
	struct irdad *d = ctx;
	char line[600];
	int n = snprintf(line, sizeof(line), "<%d>irdad[%ld]: %s", LOG_DAEMON | prio[level],
			 (long)getpid(), msg);

	if (n > 0)
		send(d->syslog_fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1,
		     MSG_DONTWAIT | MSG_NOSIGNAL);
}

static enum log_level log_max(const struct irdad_config *cfg)
{
	return cfg->log_level;
}

/* --- the configuration onto the host ------------------------------------------- */

/* hostcli's options from the configuration (hostcli_start then opens the
 * port, the capture, the loop, and drops privileges as it says). */
static void configure_host(struct irdad *d)
{
	const struct irdad_config *cfg = &d->cfg;
	struct hostcli *h = &d->h;

	hostcli_init(h, "irdad", cfg->nickname);
	h->device = cfg->device;
	h->dongle = cfg->dongle;
	h->speed = cfg->speed;
	h->min_tat_us = cfg->min_tat_us == IRDAD_MIN_TAT_DONGLE ? STATION_MIN_TAT_DONGLE :
								    cfg->min_tat_us;
	h->min_tat_given_as = "min-turnaround";
	h->pcap_path = cfg->pcap[0] ? cfg->pcap : NULL;
	h->user = cfg->user;
	h->lock_dir = cfg->lock_dir;
	h->seccomp = cfg->seccomp;
	/* a daemon waits for a USB dongle not plugged in yet (--stdio: an
	 * error, as for a missing port) */
	h->usb_may_wait = !d->stdio;
	/* hostcli_start sets the logger's level from verbose */
	h->verbose = cfg->log_level >= LOG_LEVEL_DEBUG ? 2 : cfg->log_level >= LOG_LEVEL_INFO;
	if (cfg->log == IRDAD_LOG_SYSLOG && d->syslog_fd >= 0) {
		h->log.sink = log_sink_syslog;
		h->log.ctx = d;
		h->log.prefix = NULL;
	}
}

/* Where the device leads now (a symlink's target: irwire's link, a udev
 * link), to watch that name too while it is gone. */
static void remember_resolved(struct irdad *d)
{
	if (!realpath(d->cfg.device, d->resolved))
		d->resolved[0] = '\0';
}

/* The endpoints, made while still root (a pty's link may be in /dev). */
static int open_endpoints(struct irdad *d)
{
	for (size_t i = 0; i < d->cfg.nendpoints; i++) {
		const struct irdad_endpoint *ep = &d->cfg.ep[i];
		int rc = ep->service == IRDAD_SVC_IRNET ?
			irnet_ep_open_pty(ep, &d->h.log, &d->irnet[d->nirnet], d->errbuf,
					  sizeof(d->errbuf)) :
			ircomm_pty_open(ep, &d->h.log, &d->ircomm[d->nircomm], d->errbuf,
					sizeof(d->errbuf));
		if (rc < 0) {
			fprintf(stderr, "irdad: [%s %s]: %s\n", irdad_service_name(ep->service),
				ep->name, d->errbuf);
			return EXIT_JOB;
		}
		if (ep->service == IRDAD_SVC_IRNET)
			d->nirnet++;
		else
			d->nircomm++;
	}
	return 0;
}

/* The stdio endpoint ended, its IrLMP disconnect still queued.  Once
 * IrLMP has handed it to IrLAP (IrLAP pulls nothing after a DISCONNECT
 * request), the link is closed: IrLAP sends DISC when what it holds is
 * acknowledged, and the peer hears of the end now, with the reason,
 * instead of at its link timeout.  irdad exits at the link's
 * DISCONNECT event (on_lap_event), at STDIO_CLOSE_US at the latest. */
static void on_stdio_close(struct eloop *loop, void *ctx)
{
	struct irdad *d = ctx;

	if (irlmp_get_lap_state(stack_irlmp(d->stk)) == IRLMP_LAP_STANDBY ||
	    eloop_now_us() >= d->stdio_close_deadline) {
		eloop_terminate(loop);
		return;
	}
	if (!d->stdio_disc_asked && irlmp_ctrl_pending(stack_irlmp(d->stk)) == 0) {
		d->stdio_disc_asked = true;
		if (stack_lap_request(d->stk, &(struct irlap_request){
					  .type = IRLAP_REQ_DISCONNECT }) < 0) {
			eloop_terminate(loop);
			return;
		}
		stack_sync(d->stk);
	}
	eloop_timer_arm_in(loop, &d->stdio_close, STDIO_CLOSE_POLL_US);
}

static void stdio_end(struct irdad *d)
{
	if (d->stdio_closing)
		return;
	d->stdio_closing = true;
	d->stdio_close_deadline = eloop_now_us() + STDIO_CLOSE_US;
	on_stdio_close(d->h.loop, d);
}

static void on_stdio_ended(void *ctx, struct irnet_ep *e)
{
	(void)e;
	stdio_end(ctx);
}

static void on_stdio_ircomm_ended(void *ctx, struct ircomm_pty *p)
{
	(void)p;
	stdio_end(ctx);
}

/* --stdio: standard input and output are the one endpoint, IrNET or
 * (--service ircomm) IrCOMM. */
static int open_stdio(struct irdad *d)
{
	struct irdad_endpoint *ep = &d->stdio_ep;

	snprintf(ep->name, sizeof(ep->name), "stdio");
	/* The endpoint gets copies; 0 and 1 become /dev/null, so that
	 * nothing later opened lands on them when the endpoint closes its
	 * channel, and a stray write never reaches pppd (the sanitizers'
	 * runtime, for one, reopens closed standard descriptors at exit with
	 * calls the allow-list does not have). */
	int in = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	int out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (in < 0 || out < 0 || null < 0 || dup2(null, STDIN_FILENO) < 0 ||
	    dup2(null, STDOUT_FILENO) < 0) {
		fprintf(stderr, "irdad: --stdio: standard input or output: %s\n", strerror(errno));
		return EXIT_JOB;
	}
	close(null);
	if (ep->service == IRDAD_SVC_IRCOMM) {
		if (ircomm_pty_open_fds(ep, in, out, &d->h.log, &d->ircomm[0], d->errbuf,
					sizeof(d->errbuf)) < 0) {
			fprintf(stderr, "irdad: --stdio: %s\n", d->errbuf);
			return EXIT_JOB;
		}
		d->nircomm = 1;
		ircomm_pty_set_status_fd(d->ircomm[0], d->status_fd);
		ircomm_pty_set_ended(d->ircomm[0], on_stdio_ircomm_ended, d);
		if (d->connect_timeout_s)
			ircomm_pty_set_connect_timeout(d->ircomm[0],
						       (uint64_t)d->connect_timeout_s * 1000000u);
		return 0;
	}
	if (irnet_ep_open_fds(ep, in, out, &d->h.log, &d->irnet[0],
			      d->errbuf, sizeof(d->errbuf)) < 0) {
		fprintf(stderr, "irdad: --stdio: %s\n", d->errbuf);
		return EXIT_JOB;
	}
	d->nirnet = 1;
	irnet_ep_set_status_fd(d->irnet[0], d->status_fd);
	irnet_ep_set_ended(d->irnet[0], on_stdio_ended, d);
	if (d->connect_timeout_s) {
		/* The caller's bound (the pppd plugin's irnet-discovery-timeout):
		 * discover again and again until it runs out. */
		struct irnet_ep_timing tm;
		irnet_ep_timing_defaults(&tm);
		tm.attempt_us = (uint64_t)d->connect_timeout_s * 1000000u;
		tm.discoveries = UINT_MAX;
		irnet_ep_set_timing(d->irnet[0], &tm);
	}
	return 0;
}

/* --- the port opener's end ------------------------------------------------------ */

/* How a child ended, as waitpid's status says: "exited with status 1",
 * "was killed by signal SIGKILL (core dumped)". */
static void describe_end(int status, char *buf, size_t len)
{
	if (WIFEXITED(status)) {
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		const char *core = WCOREDUMP(status) ? " (core dumped)" : "";
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
		const char *abbrev = sigabbrev_np(sig);
#else
		const char *abbrev = NULL;
#endif
		if (abbrev)
			snprintf(buf, len, "was killed by signal SIG%s%s", abbrev, core);
		else
			snprintf(buf, len, "was killed by signal %d%s", sig, core);
	} else {
		snprintf(buf, len, "ended (wait status 0x%x)", (unsigned)status);
	}
}

/* The opener is gone (killed, crashed, its own filter's SIGSYS): said
 * once, and the reopen goes the unprivileged way from now on, as when
 * irdad was not started as root (on_port_watch with no opener). */
static void opener_ended(struct irdad *d, pid_t pid, int status)
{
	describe_end(status, d->opener_end, sizeof(d->opener_end));
	log_msg(&d->h.log, LOG_LEVEL_WARNING,
		"the port opener (PID %ld) %s: %s will be reopened as irdad's own user (%s) "
		"from now on, which needs access to it; restart irdad to have an opener again",
		(long)pid, d->opener_end, d->cfg.device, d->cfg.user);
	port_opener_free(d->opener);
	d->opener = NULL;
}

/* SIGCHLD: every child that ended is collected (signals coalesce), so
 * none stays a zombie.  The opener is the only child irdad makes. */
static void on_child(struct eloop *loop, int signo, void *ctx)
{
	struct irdad *d = ctx;
	int status;
	pid_t pid;

	(void)loop;
	(void)signo;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (d->opener && pid == port_opener_pid(d->opener)) {
			opener_ended(d, pid, status);
		} else {
			char how[80];
			describe_end(status, how, sizeof(how));
			log_msg(&d->h.log, LOG_LEVEL_DEBUG, "child PID %ld %s: collected", (long)pid,
				how);
		}
	}
	if (pid < 0 && errno != ECHILD)
		log_msg(&d->h.log, LOG_LEVEL_WARNING, "waitpid: %s", strerror(errno));
}

/* The opener's remover for an endpoint's link (ircomm_pty and irnet_ep
 * call it when their own unlink is refused).  Through d, not the opener
 * itself: the opener may be gone by then (opener_ended). */
static int remove_link_by_opener(void *ctx, size_t index)
{
	struct irdad *d = ctx;

	return d->opener ? port_opener_unlink(d->opener, index) : -EPIPE;
}

/* Forks the port opener with the endpoints' links (made already, as
 * root) and gives each endpoint its index in that list. */
static int start_opener(struct irdad *d)
{
	struct port_opener_link links[IRDAD_ENDPOINTS_MAX];
	size_t n = 0;
	int rc;

	/* SIGCHLD taken before the fork: an opener that dies at once is
	 * collected too, and an inherited SIG_IGN (which would let the
	 * kernel reap it unseen) becomes the default */
	rc = eloop_add_signal(d->h.loop, SIGCHLD, on_child, d);
	if (rc < 0) {
		fprintf(stderr, "irdad: SIGCHLD: %s\n", strerror(-rc));
		return EXIT_JOB;
	}
	for (size_t i = 0; i < d->nircomm && n < IRDAD_ENDPOINTS_MAX; i++) {
		const char *link = ircomm_pty_link(d->ircomm[i]);
		if (!link)
			continue;
		ircomm_pty_set_link_remover(d->ircomm[i], remove_link_by_opener, d, n);
		links[n++] = (struct port_opener_link){ link, ircomm_pty_slave_path(d->ircomm[i]) };
	}
	for (size_t i = 0; i < d->nirnet && n < IRDAD_ENDPOINTS_MAX; i++) {
		const char *link = irnet_ep_link(d->irnet[i]);
		if (!link)
			continue;
		irnet_ep_set_link_remover(d->irnet[i], remove_link_by_opener, d, n);
		links[n++] = (struct port_opener_link){ link, irnet_ep_pty_path(d->irnet[i]) };
	}
	if (port_opener_start(d->cfg.device, links, n, d->h.seccomp, &d->opener, d->errbuf,
			      sizeof(d->errbuf)) < 0) {
		fprintf(stderr, "irdad: %s\n", d->errbuf);
		return EXIT_JOB;
	}
	log_msg(&d->h.log, LOG_LEVEL_INFO, "port opener (PID %ld) keeps root to reopen %s%s",
		(long)port_opener_pid(d->opener), d->cfg.device,
		n ? " and to remove the pty links at the end" : "");
	return 0;
}

/* What irdad serves, opened while still root (hostcli's before_drop): the
 * control socket and the endpoints; in --stdio mode only that one. */
static int open_served(struct hostcli *h, void *ctx)
{
	struct irdad *d = ctx;
	struct api_server_config sc;
	int rc;

	h->log.max = log_max(&d->cfg);
	if (d->stdio)
		return open_stdio(d);
	remember_resolved(d);
	api_server_config_defaults(&sc);
	sc.path = d->cfg.socket;
	sc.mode = (mode_t)d->cfg.socket_mode;
	sc.log = &h->log;
	if (d->cfg.group[0]) {
		struct group *gr = getgrnam(d->cfg.group);
		if (!gr) {
			fprintf(stderr, "irdad: group %s: no such group\n", d->cfg.group);
			return EXIT_USAGE;
		}
		sc.gid = gr->gr_gid;
	}
	rc = api_server_open(h->loop, &sc, &api_requests_server_ops, NULL, &d->srv, d->errbuf,
			     sizeof(d->errbuf));
	if (rc < 0) {
		fprintf(stderr, "irdad: %s\n", d->errbuf);
		return EXIT_JOB;
	}
	rc = open_endpoints(d);
	if (rc)
		return rc;
	/* root now, not later: the opener keeps it to reopen the port and
	 * to remove the links just made; forked after them, so that it is
	 * given their fixed list (a request names a link by its index) */
	if (geteuid() == 0)
		return start_opener(d);
	return 0;
}

static int start_endpoints(struct irdad *d)
{
	for (size_t i = 0; i < d->nirnet; i++) {
		if (irnet_ep_start(d->irnet[i], d->h.loop, d->stk, d->errbuf, sizeof(d->errbuf)) < 0) {
			fprintf(stderr, "irdad: [irnet %s]: %s\n", irnet_ep_name(d->irnet[i]),
				d->errbuf);
			return EXIT_JOB;
		}
	}
	for (size_t i = 0; i < d->nircomm; i++) {
		int rc = ircomm_pty_start(d->ircomm[i], d->h.loop, d->stk);
		if (rc < 0) {
			fprintf(stderr, "irdad: [ircomm]: %s\n", strerror(-rc));
			return EXIT_JOB;
		}
	}
	return 0;
}

static void free_endpoints(struct irdad *d)
{
	for (size_t i = 0; i < d->nircomm; i++) {
		struct ircomm_pty_stats st;
		ircomm_pty_get_stats(d->ircomm[i], &st);
		log_msg(&d->h.log, LOG_LEVEL_INFO,
			"[ircomm %s]: %llu connections, %llu bytes to the peer, %llu from it, %llu LM-PDUs dropped (3-wire raw, not read)",
			ircomm_pty_name(d->ircomm[i]), (unsigned long long)st.connects,
			(unsigned long long)st.bytes_to_peer, (unsigned long long)st.bytes_from_peer,
			(unsigned long long)st.rx_dropped);
		ircomm_pty_free(d->ircomm[i]);
	}
	d->nircomm = 0;
	for (size_t i = 0; i < d->nirnet; i++) {
		const struct irnet_ep_stats *st = irnet_ep_get_stats(d->irnet[i]);
		const struct ppp_hdlc_rx_counters *hc = irnet_ep_hdlc_counters(d->irnet[i]);
		log_msg(&d->h.log, LOG_LEVEL_INFO,
			"[irnet %s]: %llu connections, %llu frames to the peer, %llu from it, "
			"%llu from pppd dropped with a bad FCS",
			irnet_ep_name(d->irnet[i]), (unsigned long long)st->connects,
			(unsigned long long)st->frames_to_peer,
			(unsigned long long)st->frames_from_peer,
			(unsigned long long)hc->fcs_errors);
		irnet_ep_free(d->irnet[i]);
	}
	d->nirnet = 0;
}

/* --- running ----------------------------------------------------------------- */

static void on_lap_event(void *ctx, const struct irlap_event *ev)
{
	struct irdad *d = ctx;
	if (d->ar)
		api_requests_lap_event(d->ar, ev);
	for (size_t i = 0; i < d->nirnet; i++)
		irnet_ep_lap_event(d->irnet[i], ev);
	for (size_t i = 0; i < d->nircomm; i++)
		ircomm_pty_lap_event(d->ircomm[i], ev);
	if (d->stdio_closing && ev->type == IRLAP_EV_DISCONNECT)
		eloop_terminate(d->h.loop);
}

/* --- the port going away and coming back -------------------------------- */

/* A reopen that failed for another reason than the device's absence
 * (its lock held by someone else, EBUSY, EACCES until udev has set the
 * node's mode): inotify may say nothing more, so try again after 1 s,
 * then 2, 4... up to 30 s.  Each distinct error is logged once, not
 * every try. */
#define REOPEN_RETRY_FIRST_US 1000000u
#define REOPEN_RETRY_MAX_US 30000000u

static void reopen_failed(struct irdad *d, int r, const char *err)
{
	if (r != d->said_err && r == -EACCES && !d->opener) {
		/* why the reopen is unprivileged: no root at start (the user
		 * irdad was started as), or the opener gone since (the user
		 * irdad dropped to) */
		bool lost = d->opener_end[0] != '\0';
		char why[256];
		if (lost)
			snprintf(why, sizeof(why), "irdad's port opener %s, so it reopens the port "
				 "as its own user (%s)", d->opener_end, d->cfg.user);
		else
			snprintf(why, sizeof(why), "irdad was not started as root, so it reopens "
				 "the port as its own user");
		log_msg(&d->h.log, LOG_LEVEL_ERROR,
			"%s: %s: give that user access to %s (group dialout, or a udev rule), or %s",
			err, why, d->cfg.device,
			lost ? "restart irdad as root (a new opener then reopens the port)" :
			       "start irdad as root (its opener then reopens the port)");
	} else if (r != d->said_err && r != -ENOENT && r != -ENODEV) {
		log_msg(&d->h.log, LOG_LEVEL_WARNING, "%s is there but cannot be reopened (%s): "
			"trying again", d->cfg.device, err);
	} else {
		log_msg(&d->h.log, LOG_LEVEL_DEBUG, "not back yet: %s", err);
	}
	if (r == -ENOENT)
		return;    /* absent: its name appearing is an inotify event */
	d->said_err = r;
	if (!eloop_timer_pending(&d->port_retry)) {
		eloop_timer_arm_in(d->h.loop, &d->port_retry, d->retry_us);
		log_msg(&d->h.log, LOG_LEVEL_DEBUG, "next reopen in %llu ms at the latest",
			(unsigned long long)(d->retry_us / 1000));
		d->retry_us = d->retry_us * 2 > REOPEN_RETRY_MAX_US ? REOPEN_RETRY_MAX_US :
			      d->retry_us * 2;
	}
}

/* The reopen's state for the next absence. */
static void reopen_reset(struct irdad *d)
{
	eloop_timer_cancel(d->h.loop, &d->port_retry);
	d->retry_us = REOPEN_RETRY_FIRST_US;
	d->said_err = 0;
}

/* The path watch says a watched name appeared or changed, or the retry
 * timer ran out: try the port with the settings of the start (the lock,
 * the speed the station sets, the dongle's power-on script). */
/* The port (or the USB dongle) is open again and the station has it:
 * the services resume. */
static void port_back(struct irdad *d)
{
	d->port_gone = false;
	reopen_reset(d);
	if (d->ar)
		api_requests_port_state(d->ar, false, NULL);
	d->replugs++;
	if (d->h.usb) {
		const struct usb_line_info *in = usb_line_info(d->h.usb);
		snprintf(d->resolved, sizeof(d->resolved), "%s in port %s", in->path,
			 in->port[0] ? in->port : "?");
	} else {
		path_watch_stop(d->watch);
		remember_resolved(d);
	}
	log_msg(&d->h.log, LOG_LEVEL_WARNING, "%s is back (%s): reopened, %s%s%s, "
		"services resumed (unplugged %llu times, back %llu)", d->cfg.device,
		d->resolved[0] ? d->resolved : "?", d->h.usb ? "its chip set up" : "dongle ",
		d->h.usb ? "" : d->cfg.dongle, d->h.usb ? "" : " powered",
		(unsigned long long)d->unplugs, (unsigned long long)d->replugs);
	for (size_t i = 0; i < d->nircomm; i++)
		ircomm_pty_port_back(d->ircomm[i]);
	for (size_t i = 0; i < d->nirnet; i++)
		irnet_ep_port_back(d->irnet[i]);
	stack_sync(d->stk);
}

/* A USB device appeared, or the retry timer ran out: the dongle again? */
static void usb_reopen(struct irdad *d)
{
	char err[400];
	int r = usb_line_reopen(d->h.usb, err, sizeof(err));

	if (r == 0)
		r = station_attach_line(stack_station(d->stk), usb_line_framed(d->h.usb), err,
					sizeof(err));
	if (r < 0) {
		usb_line_release(d->h.usb);
		/* absent, with hotplug: the next arrival tries again */
		reopen_failed(d, r == -ENODEV && d->usb_watching ? -ENOENT : r, err);
		return;
	}
	usb_line_watch(d->h.usb, NULL, NULL);
	d->usb_watching = false;
	port_back(d);
}

static void on_port_watch(void *ctx)
{
	struct irdad *d = ctx;
	struct serial_config ser;
	struct port *port;
	char err[400];
	int r;

	if (!d->port_gone)
		return;
	if (d->h.usb) {
		usb_reopen(d);
		return;
	}
	serial_config_init(&ser);
	ser.lock_dir = d->h.lock_dir;
	ser.log = &d->h.log;
	if (d->opener) {
		ser.open_dev = port_opener_open;
		ser.open_ctx = d->opener;
	}
	r = serial_open(d->cfg.device, &ser, &port, err, sizeof(err));
	if (r < 0) {
		reopen_failed(d, r, err);
		return;
	}
	r = station_attach_port(stack_station(d->stk), port, err, sizeof(err));
	if (r < 0) {
		port_close(port);
		reopen_failed(d, r == -ENOENT ? -ENODEV : r, err);
		return;
	}
	d->h.port = port;
	port_back(d);
}

static void on_usb_arrival(void *ctx)
{
	struct irdad *d = ctx;

	log_msg(&d->h.log, LOG_LEVEL_DEBUG, "a USB device arrived: is it %s?", d->cfg.device);
	on_port_watch(ctx);
}

static void on_port_retry(struct eloop *loop, void *ctx)
{
	(void)loop;
	on_port_watch(ctx);
}

/* The USB line stays, its dongle closed: an arrival (libusb hotplug)
 * or, without hotplug, the retry timer opens one. */
static void usb_wait_arrival(struct irdad *d)
{
	usb_line_release(d->h.usb);
	d->usb_watching = usb_line_watch(d->h.usb, on_usb_arrival, d) == 0;
	log_msg(&d->h.log, LOG_LEVEL_DEBUG, "%s: waiting for it %s", d->cfg.device,
		d->usb_watching ? "to arrive (libusb hotplug)" : "(no hotplug: retrying)");
	if (!d->usb_watching)
		eloop_timer_arm_in(d->h.loop, &d->port_retry, d->retry_us);
}

/* irdad started before its USB dongle was plugged in: the services are
 * up, the station has no line until the dongle comes. */
static void usb_absent_at_start(struct irdad *d)
{
	d->port_gone = true;
	reopen_reset(d);
	if (d->ar)
		api_requests_port_state(d->ar, true, d->cfg.device);
	log_msg(&d->h.log, LOG_LEVEL_WARNING, "%s: no such dongle present yet: waiting for it "
		"to be plugged in", d->cfg.device);
	station_detach_port(stack_station(d->stk));
	usb_wait_arrival(d);
}

/* From the loop, not inside the station's failure (which may come from
 * inside IrLAP): the link is ended for every service, the port closed
 * (its lock released), its path watched.  The ptys stay. */
static void on_port_lost(struct eloop *loop, void *ctx)
{
	struct irdad *d = ctx;
	char err[400];

	d->unplugs++;
	d->port_gone = true;
	reopen_reset(d);
	if (d->ar)
		api_requests_port_state(d->ar, true, d->cfg.device);
	log_msg(&d->h.log, LOG_LEVEL_WARNING, "%s went away (%s): links ended, ptys kept; "
		"waiting for it to come back", d->cfg.device, d->port_why);
	station_detach_port(stack_station(d->stk));
	stack_sync(d->stk);
	if (d->h.usb) {
		usb_wait_arrival(d);
		return;
	}
	port_close(d->h.port);
	d->h.port = NULL;
	if (path_watch_start(d->watch, d->cfg.device, d->resolved[0] ? d->resolved : NULL, err,
			     sizeof(err)) < 0) {
		log_msg(&d->h.log, LOG_LEVEL_ERROR, "%s: irdad cannot see %s come back: exiting",
			err, d->cfg.device);
		d->h.port_failed = true;
		eloop_terminate(loop);
	}
}

/* The station's failure (read error or end of file, a hang-up, a failed
 * write or speed switch): said once, handled from the loop. */
static void on_port_failed(void *ctx, int err, const char *msg)
{
	struct irdad *d = ctx;

	(void)err;
	snprintf(d->port_why, sizeof(d->port_why), "%s", msg);
	eloop_timer_arm_in(d->h.loop, &d->port_lost, 0);
}

/* Periodic discovery (discovery-period): only while no link is up, as
 * the kernel did; the station log reports arrivals and departures. */
static void on_discovery_timer(struct eloop *loop, void *ctx)
{
	struct irdad *d = ctx;

	if (!d->port_gone && irlmp_get_lap_state(stack_irlmp(d->stk)) == IRLMP_LAP_STANDBY)
		stack_lap_request(d->stk, &(struct irlap_request){ .type = IRLAP_REQ_DISCOVER,
								   .slots = 6 });
	if (d->cfg.discovery_ms)
		eloop_timer_arm_in(loop, &d->discovery, (uint64_t)d->cfg.discovery_ms * 1000);
}

/* What a running daemon takes from a new configuration. */
static void apply_runtime(struct irdad *d)
{
	irlmp_set_idle_timeout(stack_irlmp(d->stk), (uint64_t)d->cfg.idle_ms * 1000);
	d->h.log.max = log_max(&d->cfg);
	eloop_timer_cancel(d->h.loop, &d->discovery);
	if (d->cfg.discovery_ms)
		eloop_timer_arm_in(d->h.loop, &d->discovery, 0);
}

/* --- SIGHUP: the service list ------------------------------------------ */

/* The running endpoint of this service and name, or NULL. */
static void *running_endpoint(struct irdad *d, const struct irdad_endpoint *ep)
{
	if (ep->service == IRDAD_SVC_IRNET) {
		for (size_t i = 0; i < d->nirnet; i++)
			if (strcmp(irnet_ep_name(d->irnet[i]), ep->name) == 0)
				return d->irnet[i];
	} else {
		for (size_t i = 0; i < d->nircomm; i++)
			if (strcmp(ircomm_pty_name(d->ircomm[i]), ep->name) == 0)
				return d->ircomm[i];
	}
	return NULL;
}

/* Opens and starts one endpoint of the new list, unprivileged: its pty
 * is ours to make, its link only where this user may write.  NULL (and
 * the reason logged) if not. */
static void *open_running(struct irdad *d, const struct irdad_endpoint *ep)
{
	struct irnet_ep *ie = NULL;
	struct ircomm_pty *cp = NULL;
	int rc;

	if (ep->service == IRDAD_SVC_IRNET) {
		rc = irnet_ep_open_pty(ep, &d->h.log, &ie, d->errbuf, sizeof(d->errbuf));
		if (rc == 0 && irnet_ep_start(ie, d->h.loop, d->stk, d->errbuf, sizeof(d->errbuf)) < 0) {
			irnet_ep_free(ie);
			rc = -1;
		}
	} else {
		rc = ircomm_pty_open(ep, &d->h.log, &cp, d->errbuf, sizeof(d->errbuf));
		if (rc == 0 && (rc = ircomm_pty_start(cp, d->h.loop, d->stk)) < 0) {
			snprintf(d->errbuf, sizeof(d->errbuf), "start: %s", strerror(-rc));
			ircomm_pty_free(cp);
		}
	}
	if (rc < 0) {
		log_msg(&d->h.log, LOG_LEVEL_ERROR, "SIGHUP: [%s %s]: %s", irdad_service_name(ep->service),
			ep->name, d->errbuf);
		return NULL;
	}
	return ep->service == IRDAD_SVC_IRNET ? (void *)ie : (void *)cp;
}

/* Frees an old endpoint; says so when the new list no longer has it. */
static void stop_running(struct irdad *d, enum irdad_service svc, void *obj, const char *name)
{
	bool listed = false;
	for (size_t i = 0; i < d->cfg.nendpoints; i++)
		listed |= d->cfg.ep[i].service == svc && strcmp(d->cfg.ep[i].name, name) == 0;
	if (!listed)
		log_msg(&d->h.log, LOG_LEVEL_INFO, "SIGHUP: [%s %s] stopped", irdad_service_name(svc),
			name);
	if (svc == IRDAD_SVC_IRNET)
		irnet_ep_free(obj);
	else
		ircomm_pty_free(obj);
}

/*
 * Applies the new service list: a kept endpoint runs on untouched; an
 * added one is opened and started; a changed one is replaced by a new
 * one (opened first, so that if that fails the old one runs on); one no
 * longer listed is stopped.  Its pty link is then removed if this user
 * may (else left, leading nowhere, until the next start replaces it).
 */
static void reload_endpoints(struct irdad *d, const struct irdad_config_diff *diff)
{
	struct irnet_ep *irnet[IRDAD_ENDPOINTS_MAX];
	struct ircomm_pty *ircomm[IRDAD_ENDPOINTS_MAX];
	size_t nirnet = 0, nircomm = 0;

	for (size_t i = 0; i < d->cfg.nendpoints; i++) {
		const struct irdad_endpoint *ep = &d->cfg.ep[i];
		void *obj = running_endpoint(d, ep);
		if (diff->new_ep[i] != IRDAD_EP_KEPT || !obj) {
			void *fresh = open_running(d, ep);
			if (fresh) {
				log_msg(&d->h.log, LOG_LEVEL_INFO, "SIGHUP: [%s %s] %s",
					irdad_service_name(ep->service), ep->name,
					obj ? "restarted with its new settings" : "started");
				obj = fresh; /* the old one is freed below with the unlisted */
			} else if (obj) {
				log_msg(&d->h.log, LOG_LEVEL_WARNING, "SIGHUP: [%s %s] runs on with "
					"its old settings until irdad restarts",
					irdad_service_name(ep->service), ep->name);
			}
		}
		if (!obj)
			continue;
		if (ep->service == IRDAD_SVC_IRNET)
			irnet[nirnet++] = obj;
		else
			ircomm[nircomm++] = obj;
	}
	/* the old ones that did not make it into the new arrays: no longer
	 * listed, or replaced by a new one */
	for (size_t k = 0; k < d->nirnet; k++) {
		bool kept = false;
		for (size_t j = 0; j < nirnet; j++)
			kept |= irnet[j] == d->irnet[k];
		if (!kept)
			stop_running(d, IRDAD_SVC_IRNET, d->irnet[k], irnet_ep_name(d->irnet[k]));
	}
	for (size_t k = 0; k < d->nircomm; k++) {
		bool kept = false;
		for (size_t j = 0; j < nircomm; j++)
			kept |= ircomm[j] == d->ircomm[k];
		if (!kept)
			stop_running(d, IRDAD_SVC_IRCOMM, d->ircomm[k], ircomm_pty_name(d->ircomm[k]));
	}
	memcpy(d->irnet, irnet, nirnet * sizeof(irnet[0]));
	d->nirnet = nirnet;
	memcpy(d->ircomm, ircomm, nircomm * sizeof(ircomm[0]));
	d->nircomm = nircomm;
}

static void on_hup(struct eloop *loop, int signo, void *ctx)
{
	struct irdad *d = ctx;
	struct irdad_config_diff diff;
	(void)loop;
	(void)signo;

	if (!d->config_path) {
		log_msg(&d->h.log, LOG_LEVEL_INFO, "SIGHUP: no configuration file to read");
		return;
	}
	if (irdad_config_reload(&d->cfg, d->config_path, &d->ov, &diff, d->errbuf,
				sizeof(d->errbuf)) < 0) {
		log_msg(&d->h.log, LOG_LEVEL_ERROR, "SIGHUP: %s; the running configuration stays",
			d->errbuf);
		return;
	}
	apply_runtime(d);
	for (int k = 0; k < IRDAD_KEY_COUNT; k++)
		if (diff.keys_kept & (1u << k))
			log_msg(&d->h.log, LOG_LEVEL_WARNING,
				"SIGHUP: %s changed: it takes effect at the next start",
				irdad_key_name((enum irdad_key)k));
	reload_endpoints(d, &diff);
	log_msg(&d->h.log, LOG_LEVEL_INFO,
		"SIGHUP: %s read again: %zu endpoints added, %zu changed, %zu removed",
		d->config_path, diff.added, diff.changed, diff.removed);
}

static int check_config(const struct irdad *d)
{
	static char out[IRDAD_CONFIG_FILE_MAX];
	long n = irdad_config_write(&d->cfg, out, sizeof(out));

	if (n < 0)
		return EXIT_JOB;
	printf("# %s\n", d->config_path ? d->config_path : "(no file: defaults and options)");
	fwrite(out, 1, (size_t)n, stdout);
	return 0;
}

static int run(struct irdad *d)
{
	struct stack_config scfg;
	uint8_t hints[2];
	int rc;

	configure_host(d);
	d->h.before_drop = open_served;
	d->h.before_drop_ctx = d;
	d->h.seccomp_extra = api_calls;
	d->h.nseccomp_extra = sizeof(api_calls) / sizeof(api_calls[0]);
	rc = hostcli_start(&d->h, &scfg);
	if (rc)
		return rc;
	d->h.log.max = log_max(&d->cfg);
	scfg.station.lap.info.nhints = (uint8_t)irdad_config_hint_bytes(&d->cfg, hints);
	memcpy(scfg.station.lap.info.hints, hints, sizeof(hints));
	scfg.lmp.idle_timeout_us = (uint64_t)d->cfg.idle_ms * 1000;
	scfg.ias_name = d->cfg.ias_name;
	scfg.event = on_lap_event;
	scfg.ctx = d;
	if (!d->stdio) {
		/* a port that goes away is waited for (--stdio: the end) */
		scfg.failed = on_port_failed;
		scfg.failed_ctx = d;
	}
	if (stack_new(d->h.loop, d->h.port, &scfg, &d->stk, d->errbuf, sizeof(d->errbuf)) < 0) {
		fprintf(stderr, "irdad: %s\n", d->errbuf);
		return EXIT_JOB;
	}
	if (!d->stdio) {
		api_requests_config_defaults(&d->arc);
		d->arc.port_name = port_name(d->cfg.device);
		d->arc.nickname = d->cfg.nickname;
		d->arc.log = &d->h.log;
		d->ar = api_requests_new(d->h.loop, d->stk, &d->arc);
		if (!d->ar || eloop_add_signal(d->h.loop, SIGHUP, on_hup, d) < 0) {
			fprintf(stderr, "irdad: out of memory\n");
			return EXIT_JOB;
		}
		api_server_set_ctx(d->srv, d->ar);
		eloop_timer_init(&d->port_lost, on_port_lost, d);
		eloop_timer_init(&d->port_retry, on_port_retry, d);
		if (path_watch_new(d->h.loop, &d->h.log, on_port_watch, d, &d->watch, d->errbuf,
				   sizeof(d->errbuf)) < 0) {
			fprintf(stderr, "irdad: %s\n", d->errbuf);
			return EXIT_JOB;
		}
	}
	eloop_timer_init(&d->stdio_close, on_stdio_close, d);
	rc = start_endpoints(d);
	if (rc)
		return rc;
	eloop_timer_init(&d->discovery, on_discovery_timer, d);
	if (d->h.usb_absent)
		usb_absent_at_start(d);
	apply_runtime(d);
	log_msg(&d->h.log, LOG_LEVEL_INFO, "serving %s on %s as \"%s\"%s%s", d->cfg.device,
		d->stdio ? "standard input and output" : d->cfg.socket, d->cfg.nickname,
		d->config_path ? ", configured by " : "", d->config_path ? d->config_path : "");
	rc = eloop_run(d->h.loop);
	if (rc < 0) {
		fprintf(stderr, "irdad: event loop: %s\n", strerror(-rc));
		return EXIT_JOB;
	}
	if (d->stdio) {
		struct ircomm_pty_stats st;
		if (d->nircomm) {
			ircomm_pty_get_stats(d->ircomm[0], &st);
			d->stdio_was_up = st.connects > 0;
		} else {
			d->stdio_was_up = irnet_ep_get_stats(d->irnet[0])->connects > 0;
		}
		return d->stdio_was_up && !d->h.port_failed ? 0 : EXIT_JOB;
	}
	return d->h.port_failed ? EXIT_JOB : 0;
}

int main(int argc, char **argv)
{
	static struct irdad d;
	int rc;

	d.syslog_fd = -1;
	d.status_fd = -1;
	d.stdio_ep.service = IRDAD_SVC_IRNET; /* --stdio's default */
	/* a pppd or a status reader that went away must not kill us */
	signal(SIGPIPE, SIG_IGN);
	if (parse(argc, argv, &d) < 0)
		return EXIT_USAGE;
	if (irdad_config_load(d.config_path, &d.ov, &d.cfg, d.errbuf, sizeof(d.errbuf)) < 0) {
		fprintf(stderr, "irdad: %s\n", d.errbuf);
		return EXIT_USAGE;
	}
	if (d.check_only)
		return check_config(&d);
	if (d.cfg.log == IRDAD_LOG_SYSLOG)
		d.syslog_fd = open_syslog();
	rc = run(&d);
	if (d.h.loop) {
		eloop_timer_cancel(d.h.loop, &d.discovery);
		eloop_timer_cancel(d.h.loop, &d.stdio_close);
		eloop_timer_cancel(d.h.loop, &d.port_lost);
		eloop_timer_cancel(d.h.loop, &d.port_retry);
	}
	if (d.unplugs)
		log_msg(&d.h.log, LOG_LEVEL_INFO, "%s went away %llu times and came back %llu times",
			d.cfg.device, (unsigned long long)d.unplugs, (unsigned long long)d.replugs);
	path_watch_free(d.watch);
	api_server_free(d.srv);
	api_requests_free(d.ar);
	/* the endpoints before the opener: it removes the links they may
	 * no longer remove themselves */
	free_endpoints(&d);
	port_opener_free(d.opener);
	stack_free(d.stk);
	rc = hostcli_finish(&d.h, rc);
	if (d.syslog_fd >= 0)
		close(d.syslog_fd);
	return rc;
}
