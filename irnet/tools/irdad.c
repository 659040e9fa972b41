/*
 * irdad: the IrDA daemon of one serial port.  It owns the port and its
 * dongle, runs the whole stack on it, and serves the local API
 * (docs/irdad-api.md) on a unix socket so that other programs share the
 * link: the pppd plugin, the AF_IRDA library, irdiscover, irspray.
 *
 * Start-up (hostcli): the port and its lock are opened as root, then the
 * control socket, then root is dropped and the system-call allow-list
 * (with the socket calls the API needs) installed.  SIGINT and SIGTERM
 * end it: every session ends, its connections are disconnected and its
 * IAS objects withdrawn, the lock is removed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_requests.h"
#include "api_server.h"
#include "hostcli.h"
#include "stack.h"

#define EXIT_JOB HOSTCLI_EXIT_JOB
#define EXIT_USAGE HOSTCLI_EXIT_USAGE
#define SOCKET_DIR "/run/irnet"

struct irdad_opts {
	struct hostcli h;
	const char *socket_path;    /* NULL: SOCKET_DIR/PORT.sock */
	const char *group;          /* of the socket; NULL: the daemon's */
	char socket_buf[108];
	char nickname[23];
};

struct irdad {
	struct irdad_opts o;
	struct stack *stk;
	struct api_server *srv;
	struct api_requests *ar;
	struct api_requests_config arc;
	char errbuf[400];
};

/* The calls serving the API takes once running (privdrop.h). */
static const char *const api_calls[] = {
	"accept4", "accept", "recvmsg", "sendmsg", "recvfrom", "sendto",
	"socketpair", "shutdown", "getsockopt", "setsockopt",
};

static void usage(FILE *f)
{
	fputs("usage: irdad -D DEVICE [--socket PATH] [--group GROUP] [options]\n"
	      "The IrDA daemon of one serial port: runs the stack and serves the local API.\n"
	      "  -D, --device DEVICE   the serial port (or pty)\n"
	      "  --socket PATH         the control socket (default /run/irnet/PORT.sock)\n"
	      "  --group GROUP         the socket's group (mode 0660; default: root's)\n", f);
	hostcli_usage(f);
	fputs("Exit: 0 ended by SIGINT or SIGTERM, 1 the port or the socket failed, 2 usage.\n",
	      f);
}

/* "/dev/ttyUSB0" -> "ttyUSB0" */
static const char *port_name(const char *device)
{
	const char *slash = strrchr(device, '/');
	return slash ? slash + 1 : device;
}

static int parse(int argc, char **argv, struct irdad_opts *o)
{
	static const struct option lo[] = {
		HOSTCLI_LONG_OPTIONS,
		{ "device", required_argument, NULL, 'D' },
		{ "socket", required_argument, NULL, 'S' },
		{ "group", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	if (gethostname(o->nickname, sizeof(o->nickname) - 1) < 0 || !o->nickname[0])
		snprintf(o->nickname, sizeof(o->nickname), "irdad");
	hostcli_init(&o->h, "irdad", o->nickname);
	while ((c = getopt_long(argc, argv, "D:vh", lo, NULL)) != -1) {
		int taken = hostcli_option(&o->h, c, optarg);

		if (taken < 0)
			return -1;
		if (taken)
			continue;
		switch (c) {
		case 'D': o->h.device = optarg; break;
		case 'S': o->socket_path = optarg; break;
		case 'G': o->group = optarg; break;
		case 'h': usage(stdout); exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "irdad: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (hostcli_check(&o->h, "-D") < 0)
		return -1;
	if (!o->socket_path) {
		int n = snprintf(o->socket_buf, sizeof(o->socket_buf), "%s/%s.sock", SOCKET_DIR,
				 port_name(o->h.device));
		if (n < 0 || (size_t)n >= sizeof(o->socket_buf)) {
			fprintf(stderr, "irdad: -D %s: the name is too long for a socket path\n",
				o->h.device);
			return -1;
		}
		o->socket_path = o->socket_buf;
	}
	return 0;
}

static void on_lap_event(void *ctx, const struct irlap_event *ev)
{
	struct irdad *d = ctx;
	if (d->ar)
		api_requests_lap_event(d->ar, ev);
}

/* Opens the control socket while still root (hostcli's before_drop). */
static int open_socket(struct hostcli *h, void *ctx)
{
	struct irdad *d = ctx;
	struct api_server_config sc;
	int rc;

	api_server_config_defaults(&sc);
	sc.path = d->o.socket_path;
	sc.log = &h->log;
	if (d->o.group) {
		struct group *gr = getgrnam(d->o.group);
		if (!gr) {
			fprintf(stderr, "irdad: --group %s: no such group\n", d->o.group);
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
	return 0;
}

int main(int argc, char **argv)
{
	static struct irdad d;
	struct stack_config cfg;
	int rc;

	if (parse(argc, argv, &d.o) < 0)
		return EXIT_USAGE;
	d.o.h.before_drop = open_socket;
	d.o.h.before_drop_ctx = &d;
	d.o.h.seccomp_extra = api_calls;
	d.o.h.nseccomp_extra = sizeof(api_calls) / sizeof(api_calls[0]);
	/* The server needs the request handler as its context, and the
	 * handler the stack: the server is opened first (as root), the
	 * handler bound to it once the stack exists. */
	rc = hostcli_start(&d.o.h, &cfg);
	if (rc)
		goto out;
	rc = EXIT_JOB;
	cfg.event = on_lap_event;
	cfg.ctx = &d;
	if (stack_new(d.o.h.loop, d.o.h.port, &cfg, &d.stk, d.errbuf, sizeof(d.errbuf)) < 0) {
		fprintf(stderr, "irdad: %s\n", d.errbuf);
		goto out;
	}
	api_requests_config_defaults(&d.arc);
	d.arc.port_name = port_name(d.o.h.device);
	d.arc.nickname = d.o.h.nickname;
	d.arc.log = &d.o.h.log;
	d.ar = api_requests_new(d.o.h.loop, d.stk, &d.arc);
	if (!d.ar) {
		fprintf(stderr, "irdad: out of memory\n");
		goto out;
	}
	api_server_set_ctx(d.srv, d.ar);
	log_msg(&d.o.h.log, LOG_LEVEL_INFO, "serving %s on %s as \"%s\"", d.o.h.device,
		d.o.socket_path, d.o.h.nickname);
	rc = eloop_run(d.o.h.loop);
	if (rc < 0) {
		fprintf(stderr, "irdad: event loop: %s\n", strerror(-rc));
		rc = EXIT_JOB;
	} else {
		rc = d.o.h.port_failed ? EXIT_JOB : 0;
	}
out:
	api_server_free(d.srv);
	api_requests_free(d.ar);
	stack_free(d.stk);
	return hostcli_finish(&d.o.h, rc);
}
