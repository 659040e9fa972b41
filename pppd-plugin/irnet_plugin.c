/*
 * irnet_plugin.c: irnet.so, the pppd plugin that carries PPP over IrNET
 * or IrCOMM (docs/pppd-plugin.md, man irnet(8)).
 *
 * A channel of its own: connect() locks the port, makes a pty, starts
 * `irdad --stdio` on the pty's master (the helper owns the port and runs
 * the IrDA stack, then drops privileges) and waits on a pipe for its
 * first status line; once the link is up it runs pppd's init and
 * connect scripts on the pty's slave, which it gives pppd as the
 * device, in the N_PPP line discipline like any serial line.  The
 * helper closes the master when the link ends, and pppd sees "Modem
 * hangup"; pppd closing the slave (or dying) ends the helper.
 *
 * This file is the only one that knows pppd (through pppd_compat.h);
 * the helper's command line and status lines are irnet_helper.c's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "pppd_compat.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "irnet_client.h"
#include "irnet_helper.h"
#include "port_name.h"
#include "usb_name.h"

#ifndef IRNET_IRDAD_PATH
#error "the build must define IRNET_IRDAD_PATH, the installed irdad"
#endif

const char pppd_version[] = IRNET_PPPD_VERSION;

/* --- options (pppd owns the strings: heap copies, NULL by default) --- */

static char device[MAXPATHLEN];
static char *device_value;           /* for pppd's option printer */
static char *opt_daemon;              /* irnet-daemon: a running irdad's socket */
static char *opt_dongle, *opt_pcap, *opt_user, *opt_name, *opt_nickname, *opt_helper;
static int opt_speed, opt_min_turnaround;
static int opt_discovery_timeout = IRNET_DISCOVERY_TIMEOUT_DEFAULT;
static bool opt_listen;
static bool opt_lock = 1, opt_ignored, opt_debug, opt_no_seccomp;
static enum irnet_mode opt_mode = IRNET_MODE_IRNET;
static uint32_t opt_daddr;

static struct channel irnet_channel;

static int set_device(char **argv)
{
	struct usb_name usb;
	char why[160];

	if (strlen(argv[0]) >= sizeof(device)) {
		option_error("irnet-device %.40s...: path too long", argv[0]);
		return 0;
	}
	/* a USB dongle's name (irnet-tools(7), "USB dongles"): checked now,
	 * found by the helper */
	if (irnet_port_is_usb(argv[0]) && usb_name_parse(argv[0], &usb, why, sizeof(why)) < 0) {
		option_error("irnet-device %s", why);
		return 0;
	}
	strlcpy(device, argv[0], sizeof(device));
	device_value = device;
	irnet_set_devnam(device);
	if (the_channel != &irnet_channel) {
		the_channel = &irnet_channel;
		irnet_set_modem(0);
	}
	return 1;
}

static int set_daemon(char **argv)
{
	free(opt_daemon);
	opt_daemon = strdup(argv[0]);
	if (!opt_daemon) {
		option_error("irnet-daemon: out of memory");
		return 0;
	}
	if (!device[0])
		irnet_set_devnam(opt_daemon);
	if (the_channel != &irnet_channel) {
		the_channel = &irnet_channel;
		irnet_set_modem(0);
	}
	return 1;
}

static int set_mode(char **argv)
{
	if (strcmp(argv[0], "irnet") == 0)
		opt_mode = IRNET_MODE_IRNET;
	else if (strcmp(argv[0], "ircomm") == 0)
		opt_mode = IRNET_MODE_IRCOMM;
	else {
		option_error("irnet-mode %s: expected irnet or ircomm", argv[0]);
		return 0;
	}
	return 1;
}

static int set_daddr(char **argv)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(argv[0], &end, 16);
	if (errno || end == argv[0] || *end || v == 0 || v > 0xffffffffUL ||
	    strncmp(argv[0], "0x", 2) != 0) {
		option_error("irnet-daddr %s: expected a device address 0x1 to 0xffffffff", argv[0]);
		return 0;
	}
	opt_daddr = (uint32_t)v;
	return 1;
}

/* Designated initializers: the struct gained fields over the versions. */
#define OPT(n, t, a, d, f) { .name = (n), .type = (t), .addr = (a), .description = (d), .flags = (f) }
#define OPT_INT(n, a, d, lo, hi) { .name = (n), .type = o_int, .addr = (a), .description = (d), \
				   .flags = OPT_LIMITS, .upper_limit = (hi), .lower_limit = (lo) }

static option_t irnet_options[] = {
	{ .name = "irnet-device", .type = o_special, .addr = (void *)set_device,
	  .description = "IrDA port: the serial device of the dongle",
	  .flags = OPT_DEVNAM | OPT_PRIVFIX | OPT_PRIV | OPT_A2STRVAL, .addr2 = &device_value },
	{ .name = "irnet-daemon", .type = o_special, .addr = (void *)set_daemon,
	  .description = "use the irdad serving this control socket",
	  .flags = OPT_DEVNAM | OPT_PRIVFIX | OPT_PRIV | OPT_A2STRVAL, .addr2 = &opt_daemon },
	OPT("irnet-dongle", o_string, &opt_dongle, "IrDA dongle type (irdad.conf(5))", OPT_PRIV),
	OPT_INT("irnet-speed", &opt_speed, "IrDA speed in bit/s", 2400, 4000000),
	OPT_INT("irnet-min-turnaround", &opt_min_turnaround,
		"IrDA minimum turnaround time in microseconds", 1, 10000),
	OPT("irnet-mode", o_special, (void *)set_mode, "irnet (PPP over IrNET) or ircomm", 0),
	OPT("irnet-name", o_string, &opt_name, "call the IrDA peer with this nickname", 0),
	OPT("irnet-daddr", o_special, (void *)set_daddr, "call the IrDA peer with this address", 0),
	OPT("irnet-listen", o_bool, &opt_listen, "answer a call instead of calling", 1),
	OPT_INT("irnet-discovery-timeout", &opt_discovery_timeout,
		"seconds to find and reach the peer", 1, IRNET_DISCOVERY_TIMEOUT_MAX),
	OPT("irnet-nickname", o_string, &opt_nickname, "our IrDA nickname", 0),
	OPT("irnet-pcap", o_string, &opt_pcap, "capture the IrDA frames in this file", OPT_PRIV),
	OPT("irnet-user", o_string, &opt_user, "user the helper runs as", OPT_PRIV),
	OPT("irnet-helper", o_string, &opt_helper, "the irdad program", OPT_PRIV),
	OPT("irnet-debug", o_bool, &opt_debug, "log every IrDA frame and state change", 1),
	OPT("irnet-no-seccomp", o_bool, &opt_no_seccomp,
	    "the helper installs no system-call allow-list", OPT_PRIV | 1),
	/* pppd's own, which live in the tty channel's table: once irnet-device
	 * switched the channel they would be unknown without these. */
	OPT("connect", o_string, &connect_script, "A program to set up a connection",
	    OPT_PRIVFIX | OPT_PRIO),
	OPT("disconnect", o_string, &disconnect_script, "Program to disconnect serial device",
	    OPT_PRIVFIX | OPT_PRIO),
	OPT("init", o_string, &initializer, "A chat script to initialize the modem",
	    OPT_PRIVFIX | OPT_PRIO),
	{ .name = NULL }
};

/* The serial-line words of pppd's tty channel that peers files carry,
 * known only while ours is the channel (pppd looks in the channel's
 * table after the plugins'): the lock is ours to take; the pty has no
 * modem lines or flow control for the others to act on. */
static option_t irnet_channel_options[] = {
	OPT("lock", o_bool, &opt_lock, "Lock the IrDA port (UUCP lock)", 1),
	OPT("nolock", o_bool, &opt_lock, "Don't lock the IrDA port", 0),
	OPT("local", o_bool, &opt_ignored, "Ignored: the channel has no modem lines", 1),
	OPT("modem", o_bool, &opt_ignored, "Ignored: the channel has no modem lines", 1),
	OPT("crtscts", o_bool, &opt_ignored, "Ignored: IrLAP does the flow control", 1),
	OPT("nocrtscts", o_bool, &opt_ignored, "Ignored: IrLAP does the flow control", 1),
	OPT("-crtscts", o_bool, &opt_ignored, "Ignored: IrLAP does the flow control", 1),
	{ .name = NULL }
};

/* --- the helper ------------------------------------------------------- */

static struct {
	int slave;              /* the pty slave pppd uses, -1 */
	int status;             /* read end of the helper's status pipe, -1 */
	pid_t pid;              /* the helper, 0 when gone */
	bool locked;            /* we hold the port's UUCP lock */
	struct irnet_client *daemon; /* the session with a running irdad, or NULL */
	char linebuf[256];
	size_t linelen;
} link_state = { .slave = -1, .status = -1 };

static void fill_settings(struct irnet_settings *s)
{
	*s = (struct irnet_settings){
		.helper = opt_helper ? opt_helper : IRNET_IRDAD_PATH,
		.device = device[0] ? device : NULL,
		.daemon = opt_daemon,
		.dongle = opt_dongle, .pcap = opt_pcap, .user = opt_user,
		.nickname = opt_nickname,
		.speed = (unsigned)opt_speed, .min_turnaround_us = (unsigned)opt_min_turnaround,
		.mode = opt_mode, .peer_name = opt_name, .peer_daddr = opt_daddr,
		.listen = opt_listen, .discovery_timeout_s = (unsigned)opt_discovery_timeout,
		.status_fd = 3, .log_to_stderr = log_to_fd >= 0, .debug = opt_debug,
		.no_seccomp = opt_no_seccomp,
	};
}

static void irnet_check_options(void)
{
	struct irnet_settings s;
	char why[200];

	fill_settings(&s);
	if (!irnet_settings_check(&s, why, sizeof(why))) {
		option_error("%s", why);
		exit(EXIT_OPTION_ERROR);
	}
	if (opt_name && (strlen(opt_name) == 0 || strlen(opt_name) > IRNET_NICKNAME_MAX)) {
		option_error("irnet-name %s: a nickname is 1 to %d bytes", opt_name,
			     IRNET_NICKNAME_MAX);
		exit(EXIT_OPTION_ERROR);
	}
}

/* The helper's child side: its descriptors, then exec.  Never returns. */
static void exec_helper(const struct irnet_argv *av, int status_w)
{
	sigset_t none;

	/* 0 and 1 are the master (safe_fork), 2 pppd's log; the status pipe
	 * goes to 3 (dup2 clears close-on-exec). */
	if (status_w != 3 && (dup2(status_w, 3) < 0 || close(status_w) < 0))
		_exit(127);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* Its own session: a terminal's ^C or pppd's kill of its process
	 * group around scripts is not for it; it ends when the pty does. */
	setsid();
	execv(av->argv[0], av->argv);
	dprintf(2, "irnet: cannot run the helper %s: %s\n", av->argv[0], strerror(errno));
	_exit(127);
}

/* Waits up to grace_ms for the helper to end by itself, then SIGTERM, up
 * to 3 s more, then SIGKILL.  Returns its wait status (0 if it is not
 * our child: after pppd detached, init is its parent and reaps it).
 * pppd is not asked to reap it (record_child): a detaching pppd would
 * wait for a child it no longer has. */
static int stop_helper(int grace_ms)
{
	int wstatus = 0;
	pid_t pid = link_state.pid;

	if (pid <= 0)
		return 0;
	for (int waited = 0;; waited += 50) {
		pid_t r = waitpid(pid, &wstatus, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (waited == grace_ms)
			kill(pid, SIGTERM);
		if (waited == grace_ms + 3000) {
			warn("irnet: the helper (pid %d) did not end: killed", (int)pid);
			kill(pid, SIGKILL);
		}
		poll(NULL, 0, 50);
	}
	link_state.pid = 0;
	return wstatus;
}

/* pppd detached (its pid changed): the lock is rewritten for it. */
static void on_pid_change(void *arg, int pid)
{
	(void)arg;
	if (link_state.locked)
		relock(pid);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Reads what the helper wrote; *line gets the next whole line, if any.
 * 1 a line, 0 none yet, -1 the pipe closed. */
static int next_line(struct irnet_status_line *st, bool *parsed)
{
	char *nl;

	for (;;) {
		nl = memchr(link_state.linebuf, '\n', link_state.linelen);
		if (nl) {
			size_t n = (size_t)(nl - link_state.linebuf);
			*parsed = irnet_status_parse(link_state.linebuf, n, st);
			if (!*parsed)
				warn("irnet: helper said \"%.*s\"", (int)n, link_state.linebuf);
			memmove(link_state.linebuf, nl + 1, link_state.linelen - n - 1);
			link_state.linelen -= n + 1;
			return 1;
		}
		if (link_state.linelen == sizeof(link_state.linebuf))
			link_state.linelen = 0; /* a line longer than any status line */
		ssize_t r = read(link_state.status, link_state.linebuf + link_state.linelen,
				 sizeof(link_state.linebuf) - link_state.linelen);
		if (r > 0) {
			link_state.linelen += (size_t)r;
			continue;
		}
		if (r == 0)
			return -1;
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	}
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A helper that ended before the link came up: say why. */
static void report_helper_exit(const char *helper)
{
	int wstatus = stop_helper(0);

	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127) {
		error("irnet: the helper %s could not be started", helper);
		irnet_set_status(EXIT_PTYCMD_FAILED);
	} else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 2) {
		error("irnet: the helper %s refused the settings (its message is above)", helper);
		irnet_set_status(EXIT_OPTION_ERROR);
	} else if (WIFEXITED(wstatus)) {
		error("irnet: the helper %s could not open %s (exit status %d; see above)", helper,
		      device, WEXITSTATUS(wstatus));
		irnet_set_status(EXIT_OPEN_FAILED);
	} else {
		error("irnet: the helper %s was killed by signal %d", helper,
		      WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0);
		irnet_set_status(EXIT_PTYCMD_FAILED);
	}
}

/* Waits for `up` (true) or a failure (false, status set and logged). */
static bool wait_for_up(const struct irnet_settings *s, struct irnet_status_line *st)
{
	long long deadline = now_ms() + (long long)s->discovery_timeout_s * 1000 + 10000;
	bool parsed;

	for (;;) {
		int r = next_line(st, &parsed);
		if (r < 0) {
			if (link_state.pid > 0) {
				report_helper_exit(s->helper);
			} else {
				error("irnet: irdad ended the endpoint before the link came up");
				irnet_set_status(EXIT_CONNECT_FAILED);
			}
			return false;
		}
		if (r > 0 && parsed) {
			if (st->kind == IRNET_STATUS_UP)
				return true;
			if (st->kind == IRNET_STATUS_LISTENING) {
				info("irnet: listening for a call on %s", device);
				continue;
			}
			enum irnet_exit_class cls;
			const char *text = irnet_failure_text(st->word, &cls);
			error("irnet: %s (%s)", text, st->word);
			irnet_set_status(cls == IRNET_EXIT_OPEN_FAILED ? EXIT_OPEN_FAILED
								       : EXIT_CONNECT_FAILED);
			return false;
		}
		if (r > 0)
			continue;
		if (irnet_got_sigterm() || irnet_got_sighup()) {
			notice("irnet: signal received while waiting for the link");
			irnet_set_status(EXIT_USER_REQUEST);
			return false;
		}
		if (!s->listen && now_ms() > deadline) {
			error("irnet: the helper gave no answer within %u s",
			      s->discovery_timeout_s + 10);
			irnet_set_status(EXIT_CONNECT_FAILED);
			return false;
		}
		struct pollfd pfd = { .fd = link_state.status, .events = POLLIN };
		poll(&pfd, 1, 250); /* signals interrupt it; the flags are checked above */
	}
}

static void export_peer(const struct irnet_status_line *st)
{
	char daddr[16], name[4 * IRNET_NICKNAME_MAX + 1], devname[64];

	snprintf(daddr, sizeof(daddr), "0x%08x", (unsigned)st->daddr);
	irnet_printable_name(st, name, sizeof(name));
	irnet_setenv("IRDA_DADDR", daddr);
	irnet_setenv("IRDA_NAME", name);
	irnet_setenv("IRDA_MODE", opt_mode == IRNET_MODE_IRCOMM ? "ircomm" : "irnet");
	snprintf(devname, sizeof(devname), "%s %s", opt_mode == IRNET_MODE_IRCOMM ? "ircomm" :
			 "irnet", daddr);
	irnet_set_pppdevnam(devname);
	notice("irnet: %s link up with %s \"%s\" on %s",
	       opt_mode == IRNET_MODE_IRCOMM ? "IrCOMM" : "IrNET", daddr, name, device);
}

/* One of pppd's scripts on the slave, as tty.c runs them on a serial
 * line; a failure sets exit_status and logs pppd's own words. */
static bool run_script(char *cmd, const char *failed, int exit_status, const char *done)
{
	if (!cmd || !cmd[0])
		return true;
	if (device_script(cmd, link_state.slave, link_state.slave, 0) < 0 || irnet_got_sigterm()) {
		error("%s", failed);
		irnet_set_status(exit_status);
		return false;
	}
	info("irnet: %s", done);
	return true;
}

static bool run_scripts(void)
{
	return run_script(initializer, "Initializer script failed", EXIT_INIT_FAILED,
			  "init script done") &&
	       run_script(connect_script, "Connect script failed", EXIT_CONNECT_FAILED,
			  "connect script done");
}

static void irnet_cleanup(void);

/* The channel: a pty (the slave stays ours for pppd) and the status
 * pipe (its read end stays ours).  *master and *status_w are for the
 * endpoint's side.  false: logged, status set. */
static bool make_channel(int *master, int *status_w, char *slave_name)
{
	int pipefd[2];

	if (!get_pty(master, &link_state.slave, slave_name, 0)) {
		error("irnet: no pseudo-terminal for the channel: %m");
		irnet_set_status(EXIT_FATAL_ERROR);
		return false;
	}
	set_up_tty(link_state.slave, 1);
	if (pipe2(pipefd, O_CLOEXEC) < 0 || fcntl(pipefd[0], F_SETFL, O_NONBLOCK) < 0) {
		error("irnet: pipe: %m");
		irnet_set_status(EXIT_FATAL_ERROR);
		return false;
	}
	link_state.status = pipefd[0];
	link_state.linelen = 0;
	*status_w = pipefd[1];
	return true;
}

/* The port is ours: lock it, check it opens, start irdad --stdio on
 * the channel.  A USB dongle has no UUCP lock and no node to try here:
 * the helper finds it by name, and libusb's claim of its interface is
 * what keeps a second program off it. */
static bool start_helper(const struct irnet_settings *s)
{
	struct irnet_argv av;
	int master = -1, status_w = -1, errfd;
	char slave_name[64];
	bool ok = false;

	if (!irnet_helper_argv(s, &av)) {
		error("irnet: the helper's command line is too long");
		irnet_set_status(EXIT_OPTION_ERROR);
		return false;
	}
	bool usb = irnet_port_is_usb(device);

	if (opt_lock && !usb) {
		if (lock(device) < 0) { /* pppd says who holds it */
			irnet_set_status(EXIT_LOCK_FAILED);
			return false;
		}
		link_state.locked = true;
	}
	int probe = usb ? -1 : open(device, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (!usb && probe < 0) {
		error("irnet: %s: %m", device);
		irnet_set_status(EXIT_OPEN_FAILED);
		return false;
	}
	close_fd(&probe);
	if (!make_channel(&master, &status_w, slave_name))
		goto out;
	errfd = log_to_fd >= 0 ? log_to_fd : open("/dev/null", O_WRONLY | O_CLOEXEC);
	dbglog("irnet: starting %s for %s on %s", av.argv[0], device, slave_name);
	pid_t pid = irnet_safe_fork(master, master, errfd);
	if (pid == 0)
		exec_helper(&av, status_w);
	if (errfd != log_to_fd)
		close(errfd);
	if (pid < 0) {
		error("irnet: fork: %m");
		irnet_set_status(EXIT_FATAL_ERROR);
		goto out;
	}
	link_state.pid = pid;
	ok = true;
out:
	close_fd(&master);
	close_fd(&status_w);
	return ok;
}

/* The control socket of the irdad serving the port, if one is running
 * (its socket is there): /run/irnet/PORT.sock. */
static const char *running_daemon(char *buf, size_t cap)
{
	struct stat st;
	char base[MAXPATHLEN];

	if (opt_daemon)
		return opt_daemon;
	if (!device[0] || irnet_port_name(device, base, sizeof(base)) < 0)
		return NULL;
	if ((size_t)snprintf(buf, cap, "%s/%s.sock", IRNET_CLIENT_RUN_DIR, base) >= cap ||
	    stat(buf, &st) < 0 || !S_ISSOCK(st.st_mode))
		return NULL;
	return buf;
}

/* irdad owns the port: it runs the endpoint on our channel (ATTACH).
 * 1 attached, 0 no irdad answers there (the caller may own the port
 * itself), -1 failed (logged, status set). */
static int attach_to_daemon(const struct irnet_settings *s, const char *socket_path)
{
	struct irnet_client *cl;
	char err[256], slave_name[64];
	int master = -1, status_w = -1, rc;
	uint32_t id;

	rc = irnet_client_open(socket_path, "irnet.so", &cl, err, sizeof(err));
	if (rc < 0) {
		if (!opt_daemon && (rc == -ECONNREFUSED || rc == -ENOENT))
			return 0; /* a socket left by an irdad that is gone */
		error("irnet: irdad at %s: %s", socket_path, err);
		irnet_set_status(EXIT_OPEN_FAILED);
		return -1;
	}
	link_state.daemon = cl;
	if (s->mode == IRNET_MODE_IRCOMM) {
		error("irnet: irdad at %s runs IrNET endpoints for clients, not IrCOMM yet: "
		      "give irdad an [ircomm] section and use its pty instead", socket_path);
		irnet_set_status(EXIT_OPEN_FAILED);
		return -1;
	}
	if (!make_channel(&master, &status_w, slave_name))
		goto fail;
	struct irnet_attach_req req = {
		.service = IRDAD_ATTACH_IRNET,
		.role = s->listen ? IRDAD_ATTACH_LISTEN : IRDAD_ATTACH_CALL,
		.daddr = s->peer_daddr,
		.nickname = s->peer_name,
		.timeout_ms = s->listen ? 0 : s->discovery_timeout_s * 1000u,
	};
	rc = irnet_client_attach_endpoint(cl, &req, master, status_w, &id, err, sizeof(err));
	if (rc < 0) {
		error("irnet: irdad at %s refused the endpoint: %s", socket_path, err);
		irnet_set_status(rc == -EINVAL ? EXIT_OPTION_ERROR : EXIT_OPEN_FAILED);
		goto fail;
	}
	info("irnet: irdad at %s serves the link (endpoint %u on %s)", socket_path,
	     (unsigned)id, slave_name);
	close_fd(&master);
	close_fd(&status_w);
	return 1;
fail:
	close_fd(&master);
	close_fd(&status_w);
	return -1;
}

static int irnet_connect(void)
{
	struct irnet_settings s;
	struct irnet_status_line st;
	char path[128];
	const char *socket_path;
	int rc = 0;

	fill_settings(&s);
	socket_path = running_daemon(path, sizeof(path));
	if (socket_path)
		rc = attach_to_daemon(&s, socket_path);
	if (rc < 0 || (rc == 0 && !start_helper(&s)))
		goto fail;
	if (!wait_for_up(&s, &st))
		goto fail;
	export_peer(&st);
	if (!run_scripts())
		goto fail;
	return link_state.slave;

fail:
	irnet_cleanup();
	return -1;
}

/* After the link: any last status line says why it ended. */
static void log_end(void)
{
	struct irnet_status_line st;
	bool parsed;

	if (link_state.status < 0)
		return;
	while (next_line(&st, &parsed) > 0)
		if (parsed && st.kind == IRNET_STATUS_DOWN)
			notice("irnet: the link ended (%s)", st.word);
}

static void irnet_disconnect(void)
{
	if (disconnect_script && disconnect_script[0] && link_state.pid > 0 &&
	    link_state.slave >= 0) {
		if (device_script(disconnect_script, link_state.slave, link_state.slave, 0) < 0)
			warn("Disconnect script failed");
		else
			info("irnet: disconnect script done");
	}
	log_end();
}

/* After every attempt, good or bad, and at exit. */
static void irnet_cleanup(void)
{
	/* Closing the slave ends the helper: it gives the peer what TinyTP
	 * still holds (at most 5 s), disconnects and exits. */
	close_fd(&link_state.slave);
	stop_helper(6000);
	log_end();
	close_fd(&link_state.status);
	irnet_client_close(link_state.daemon);
	link_state.daemon = NULL;
	if (link_state.locked) {
		unlock();
		link_state.locked = false;
	}
}

/* In every child pppd forks (scripts, the helper): our descriptors are
 * not theirs, or the pty would never hang up. */
static void irnet_close(void)
{
	close_fd(&link_state.slave);
	close_fd(&link_state.status);
	if (link_state.daemon) /* the session's socket, not the session */
		close(irnet_client_fd(link_state.daemon));
}

static struct channel irnet_channel = {
	.options = irnet_channel_options,
	.process_extra_options = NULL,
	.check_options = irnet_check_options,
	.connect = irnet_connect,
	.disconnect = irnet_disconnect,
	.establish_ppp = tty_establish_ppp,
	.disestablish_ppp = tty_disestablish_ppp,
	.send_config = tty_send_config,
	.recv_config = tty_recv_config,
	.cleanup = irnet_cleanup,
	.close = irnet_close,
};

void plugin_init(void); /* pppd looks it up by name */

void plugin_init(void)
{
	irnet_add_options(irnet_options);
	irnet_add_pidchange(on_pid_change);
	info("irnet plugin %s for pppd %s", PACKAGE_VERSION, IRNET_PPPD_VERSION);
}
