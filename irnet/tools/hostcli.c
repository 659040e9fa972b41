/*
 * hostcli.c: the shared command line and start-up of the host programs
 * (see hostcli.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "cursor.h"
#include "dongle.h"
#include "hostcli.h"
#include "irnet_client.h"
#include "pcap_file.h"
#include "privdrop.h"
#include "qos.h"
#include "station.h"

void hostcli_init(struct hostcli *h, const char *prog, const char *nickname)
{
	*h = (struct hostcli){ .prog = prog, .dongle = "none", .nickname = nickname,
			       .speed = 115200, .min_tat_us = STATION_MIN_TAT_DONGLE,
			       .seccomp = true, .min_tat_given_as = "--min-turnaround" };
	h->log = (struct logger){ .sink = log_sink_stdio, .ctx = stderr, .prefix = prog,
				  .max = LOG_LEVEL_WARNING };
}

static bool number(const char *s, uint64_t hi, uint64_t *out)
{
	struct cursor c;

	cursor_init(&c, s, strlen(s));
	return cursor_parse_u64(&c, out) && cursor_at_end(&c) && *out <= hi;
}

int hostcli_option(struct hostcli *h, int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case HOSTCLI_OPT_DONGLE: h->dongle = arg; return 1;
	case HOSTCLI_OPT_NICKNAME: h->nickname = arg; return 1;
	case HOSTCLI_OPT_PCAP: h->pcap_path = arg; return 1;
	case HOSTCLI_OPT_USER: h->user = arg; return 1;
	case HOSTCLI_OPT_LOCK_DIR: h->lock_dir = arg; return 1;
	case HOSTCLI_OPT_NO_SECCOMP: h->seccomp = false; return 1;
	case HOSTCLI_OPT_VERBOSE: h->verbose++; return 1;
	case HOSTCLI_OPT_SPEED:
		if (!number(arg, 115200, &v) || dongle_rate_bit((uint32_t)v) == 0) {
			fprintf(stderr, "%s: --speed %s: not an IrDA SIR rate "
				"(2400, 9600, 19200, 38400, 57600, 115200)\n", h->prog, arg);
			return -1;
		}
		h->speed = (uint32_t)v;
		return 1;
	case HOSTCLI_OPT_MIN_TAT:
		if (!number(arg, 10000, &v)) {
			fprintf(stderr, "%s: --min-turnaround %s: must be 0..10000 microseconds\n",
				h->prog, arg);
			return -1;
		}
		h->min_tat_us = (long)v;
		return 1;
	default:
		return 0;
	}
}

int hostcli_check(const struct hostcli *h, const char *device_flag)
{
	struct dongle d;
	char err[256];

	if (!h->device) {
		fprintf(stderr, "%s: no device: use %s DEVICE\n", h->prog, device_flag);
		return -1;
	}
	if (strlen(h->nickname) > IRLAP_NICKNAME_MAX - 10) {
		fprintf(stderr, "%s: --nickname '%s': longer than %d bytes\n", h->prog,
			h->nickname, IRLAP_NICKNAME_MAX - 10);
		return -1;
	}
	if (dongle_init(&d, h->dongle, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: --dongle %s: %s\n", h->prog, h->dongle, err);
		return -1;
	}
	if (!dongle_supports(&d, h->speed)) {
		fprintf(stderr, "%s: --speed %u: dongle %s does not support it\n", h->prog,
			h->speed, dongle_name(&d));
		return -1;
	}
	return 0;
}

void hostcli_usage(FILE *f)
{
	fputs("  --dongle TYPE[:OPTS]  the IrDA dongle (default none)\n"
	      "  --speed BAUD          highest rate offered to a peer (default 115200)\n"
	      "  --min-turnaround US   the minimum turnaround we ask of the peer, 0..10000\n"
	      "                        microseconds (default: irwire's on its ptys, else\n"
	      "                        what the dongle needs)\n"
	      "  --nickname NAME       our nickname\n"
	      "  --pcap FILE           capture every frame sent and received\n"
	      "  --user USER           user to run as once the port is open (default nobody)\n"
	      "  --lock-dir DIR        UUCP lock directory (default /var/lock; \"\": none)\n"
	      "  --no-seccomp          do not install the system-call allow-list\n"
	      "  -v, --verbose         log the protocol to stderr (twice: debug)\n", f);
}

static void on_port_failed(void *ctx, int err, const char *msg)
{
	struct hostcli *h = ctx;

	(void)err;
	fprintf(stderr, "%s: %s\n", h->prog, msg);
	h->port_failed = true;
	eloop_terminate(h->loop);
}

static int station_setup(struct hostcli *h, struct stack_config *cfg)
{
	struct station_config *sc = &cfg->station;
	char err[256];

	memset(cfg, 0, sizeof(*cfg));
	if (station_config_init(sc, h->dongle, h->speed, h->min_tat_us, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", h->prog, err);
		return -1;
	}
	sc->lap.seed = eloop_now_us() ^ ((uint64_t)getpid() << 32);
	sc->lap.info.hints[0] = 0x04;   /* Computer */
	sc->lap.info.nhints = 1;
	sc->lap.info.nickname_len = (uint8_t)strlen(h->nickname);
	memcpy(sc->lap.info.nickname, h->nickname, sc->lap.info.nickname_len);
	sc->lap.log = &h->log;
	sc->log = &h->log;
	irlmp_config_defaults(&cfg->lmp);
	cfg->lmp.log = &h->log;
	cfg->failed = on_port_failed;
	cfg->failed_ctx = h;
	return 0;
}

void hostcli_tat_text(uint32_t us, char *buf, size_t cap)
{
	if (us >= 1000 && us % 1000 == 0)
		snprintf(buf, cap, "%u ms", us / 1000);
	else
		snprintf(buf, cap, "%u us", us);
}

/* The turnaround station_setup chose stands unless it was the dongle's
 * and the port turns out to be irwire's: irwire's receivers are no
 * dongle, and the 5 ms of dongle none would cost every turn of the line
 * (docs/irnet-host.md "Minimum turnaround").  Says what was chosen and
 * why in min_tat_said. */
static int choose_min_tat(struct hostcli *h, struct station_config *sc)
{
	const char *why = h->min_tat_given_as;
	char dongle_why[sizeof(h->min_tat_said) / 2], said[16];
	uint32_t us;
	int r;

	if (h->min_tat_us == STATION_MIN_TAT_DONGLE) {
		r = serial_irwire_min_tat(serial_fd(h->port), &us);
		if (r < 0) {
			fprintf(stderr, "%s: %s: %s\n", h->prog, h->device, strerror(-r));
			return -1;
		}
		if (r > 0 && station_config_set_min_tat(sc, us) == 0) {
			why = "irwire port";
		} else {
			snprintf(dongle_why, sizeof(dongle_why), "dongle %s",
				 dongle_name(&sc->dongle));
			why = dongle_why;
		}
	}
	hostcli_tat_text(station_config_min_tat_us(sc), said, sizeof(said));
	snprintf(h->min_tat_said, sizeof(h->min_tat_said), "%s (%s)", said, why);
	log_msg(&h->log, LOG_LEVEL_INFO, "%s: min turnaround %s", h->device, h->min_tat_said);
	return 0;
}

static void on_signal(struct eloop *loop, int signo, void *ctx)
{
	(void)signo;
	(void)ctx;
	eloop_terminate(loop);
}

/* The lock file goes to the user we become, so that the close can still
 * remove it from the sticky lock directory (privdrop.h). */
static int give_lock(struct hostcli *h)
{
	char err[256];
	uid_t uid;
	gid_t gid;

	if (privdrop_lookup(h->user, &uid, &gid, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", h->prog, err);
		return -1;
	}
	if (serial_lock_chown(h->port, uid, gid) < 0) {
		fprintf(stderr, "%s: %s\n", h->prog, port_error(h->port));
		return -1;
	}
	return 0;
}

/* The SIR rates: what a USB dongle is driven at until the stack frames
 * MIR and FIR (the high-speed issue). */
#define USB_SIR_BAUD_BITS 0x003Fu
/* The group 60-irnet-usb.rules gives the dongles' nodes. */
#define USB_RULE_GROUP "plugdev"

/* -D usb...: the dongle opened and at 9600, the station's QoS what its
 * chip does, the turnaround the chip's unless one was given. */
static int open_usb(struct hostcli *h, struct stack_config *cfg)
{
	const struct usb_line_info *info;
	struct station_config *sc = &cfg->station;
	char err[400], said[16];
	int r;

	if (strcmp(h->dongle, "none") != 0) {
		fprintf(stderr, "%s: --dongle %s: a USB dongle (%s) needs none: its chip is the "
			"transceiver\n", h->prog, h->dongle, h->device);
		return HOSTCLI_EXIT_USAGE;
	}
	r = usb_line_new(h->loop, h->device, &h->log, &h->usb, err, sizeof(err));
	if (r == 0 && (r = usb_line_reopen(h->usb, err, sizeof(err))) == -ENODEV &&
	    h->usb_may_wait) {
		/* the daemon waits for it: the station starts without one */
		h->usb_absent = true;
		r = 0;
	}
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", h->prog, err);
		return r == -EINVAL || r == -ENODEV ? HOSTCLI_EXIT_USAGE : HOSTCLI_EXIT_JOB;
	}
	info = usb_line_info(h->usb);
	cfg->framed = usb_line_framed(h->usb);
	/* SIR at most until the high-speed framing; what the device cannot
	 * do is cut when it is known (not for a dongle yet to come) */
	sc->lap.qos.baud &= (uint16_t)(h->usb_absent ? USB_SIR_BAUD_BITS
						      : info->baud_bits & USB_SIR_BAUD_BITS);
	sc->lap.qos.baud |= 0x0002u; /* 9600 */
	/* a device that takes fewer frames per window, or shorter ones,
	 * than IrLAP's maxima says so (the Bridge class descriptor); one
	 * frame of 64 bytes is always left */
	if (!h->usb_absent) {
		sc->lap.qos.window &= (uint8_t)(info->window_bits | 0x01u);
		sc->lap.qos.data_size &= (uint8_t)(info->data_size_bits | 0x01u);
	}
	if (h->min_tat_us == STATION_MIN_TAT_DONGLE && info->min_tat_bits)
		(void)station_config_set_min_tat(
			sc, qos_min_tat_us_of_bit(qos_msb(info->min_tat_bits)));
	hostcli_tat_text(station_config_min_tat_us(sc), said, sizeof(said));
	snprintf(h->min_tat_said, sizeof(h->min_tat_said), "%s (%s)", said,
		 h->min_tat_us != STATION_MIN_TAT_DONGLE ? h->min_tat_given_as :
		 info->family ? info->family : "the default: no dongle yet");
	log_msg(&h->log, LOG_LEVEL_INFO, "%s: min turnaround %s", h->device, h->min_tat_said);
	return 0;
}

static int open_serial(struct hostcli *h, struct stack_config *cfg)
{
	struct serial_config ser;
	char err[400];
	int r;

	serial_config_init(&ser);
	ser.lock_dir = h->lock_dir;
	ser.log = &h->log;
	r = serial_open(h->device, &ser, &h->port, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", h->prog, err);
		return r == -ENOENT || r == -ENOTTY ? HOSTCLI_EXIT_USAGE : HOSTCLI_EXIT_JOB;
	}
	return choose_min_tat(h, &cfg->station) < 0 ? HOSTCLI_EXIT_JOB : 0;
}

/* The group a udev rule gave the dongle's node, kept once root is
 * dropped so that a replugged dongle (a new node, the same rule) can be
 * opened again; 0 (none kept) when it is root's, which is said. */
static gid_t usb_node_group(struct hostcli *h)
{
	const struct usb_line_info *info = usb_line_info(h->usb);
	const struct group *gr;
	struct stat st;

	if (geteuid() != 0)
		return 0;
	if (h->usb_absent) {
		/* no node yet: the group 60-irnet-usb.rules gives it */
		gr = getgrnam(USB_RULE_GROUP);
		return gr ? gr->gr_gid : 0;
	}
	if (stat(info->path, &st) < 0)
		return 0;
	if (st.st_gid == 0 || !(st.st_mode & S_IRGRP) || !(st.st_mode & S_IWGRP)) {
		/* only a daemon reopens */
		log_msg(&h->log, h->before_drop ? LOG_LEVEL_WARNING : LOG_LEVEL_DEBUG,
			"%s: %s is root's alone: once unplugged, the dongle cannot be reopened "
			"by user %s (install the udev rule 60-irnet-usb.rules, which gives it "
			"to group plugdev)", h->device, info->path, h->user ? h->user : "nobody");
		return 0;
	}
	return st.st_gid;
}

int hostcli_start(struct hostcli *h, struct stack_config *cfg)
{
	char err[400];
	int r;

	h->log.max = h->verbose >= 2 ? LOG_LEVEL_DEBUG :
		     h->verbose ? LOG_LEVEL_INFO : LOG_LEVEL_WARNING;
	if (station_setup(h, cfg) < 0)
		return HOSTCLI_EXIT_USAGE;
	h->loop = eloop_new(&h->log);
	if (!h->loop || eloop_add_signal(h->loop, SIGINT, on_signal, h) < 0 ||
	    eloop_add_signal(h->loop, SIGTERM, on_signal, h) < 0) {
		fprintf(stderr, "%s: event loop: %s\n", h->prog, strerror(errno));
		return HOSTCLI_EXIT_JOB;
	}
	r = usb_line_is_usb_name(h->device) ? open_usb(h, cfg) : open_serial(h, cfg);
	if (r)
		return r;
	if (h->pcap_path) {
		h->pcap_file = fopen(h->pcap_path, "wb");
		if (!h->pcap_file || pcap_writer_init(&h->pcap, pcap_file_sink, h->pcap_file, 0) < 0) {
			fprintf(stderr, "%s: --pcap %s: %s\n", h->prog, h->pcap_path, strerror(errno));
			return HOSTCLI_EXIT_JOB;
		}
		cfg->station.pcap = &h->pcap;
	}
	if (h->before_drop && (r = h->before_drop(h, h->before_drop_ctx)) != 0)
		return r;
	if (geteuid() == 0 && h->port && give_lock(h) < 0)
		return HOSTCLI_EXIT_JOB;
	if (privdrop_user_keeping(h->user, h->usb ? usb_node_group(h) : 0, &h->log, err,
				  sizeof(err)) < 0 ||
	    (h->seccomp && privdrop_seccomp_with(&h->log, h->seccomp_extra, h->nseccomp_extra, err,
						 sizeof(err)) < 0)) {
		fprintf(stderr, "%s: %s\n", h->prog, err);
		return HOSTCLI_EXIT_JOB;
	}
	return 0;
}

int hostcli_finish(struct hostcli *h, int rc)
{
	port_close(h->port);
	h->port = NULL;
	usb_line_close(h->usb);
	h->usb = NULL;
	if (h->loop)
		eloop_free(h->loop);
	h->loop = NULL;
	if (h->pcap_file && fclose(h->pcap_file) != 0 && rc == 0) {
		fprintf(stderr, "%s: --pcap %s: %s\n", h->prog, h->pcap_path, strerror(errno));
		rc = HOSTCLI_EXIT_JOB;
	}
	h->pcap_file = NULL;
	return rc;
}

int hostcli_daemon_session(const struct hostcli *h, const char *daemon, bool no_daemon,
			   struct irnet_client **cl, char *where, size_t cap)
{
	const char *target = daemon ? daemon : h->device;
	char err[512];
	struct stat st;

	*cl = NULL;
	if (no_daemon || !target)
		return 0;
	/* A --daemon name without a slash is a socket in the current directory,
	 * not a port name. */
	if (daemon && !strchr(daemon, '/')) {
		if (snprintf(where, cap, "./%s", daemon) >= (int)cap) {
			fprintf(stderr, "%s: --daemon %s: too long\n", h->prog, daemon);
			return -1;
		}
	} else if (irnet_client_socket_path(target, where, cap, err, sizeof(err)) < 0) {
		if (!daemon)
			return 0;
		fprintf(stderr, "%s: --daemon %s: %s\n", h->prog, daemon, err);
		return -1;
	}
	if (!daemon && (stat(where, &st) < 0 || !S_ISSOCK(st.st_mode)))
		return 0;
	if (irnet_client_open(where, h->prog, cl, err, sizeof(err)) < 0) {
		if (!daemon) {
			if (h->verbose)
				fprintf(stderr, "%s: %s: no irdad (%s): opening the port\n", h->prog,
					where, err);
			return 0;
		}
		fprintf(stderr, "%s: cannot reach irdad: %s\n", h->prog, err);
		return -1;
	}
	if (h->verbose)
		fprintf(stderr, "%s: through irdad at %s\n", h->prog, where);
	return 1;
}
