/*
 * irusb-emu: an emulated USB IrDA dongle (an MCS7780, or a USB IrDA
 * Bridge class device) for a real program, on an emulated IrDA medium.
 *
 * The dongle is a device model (irnet/sim/usb_model_*.c) behind
 * umockdev's usbfs emulation (irnet/sim/usb_umockdev.c) at
 * /dev/bus/usb/BBB/DDD.  The command runs as a child with umockdev's
 * preload and the testbed's UMOCKDEV_DIR, so that its libusb finds and
 * drives the model as it would the chip.  The model's optical side is
 * bridged to a serial port (normally one of irwire's ptys) as a SIR
 * transceiver would: each frame the host sent is SIR-wrapped and written
 * at the speed the chip was set to when it sent the frame; bytes read
 * from the port go through the SIR decoder, and good frames are queued
 * for the host.
 *
 * Threads: umockdev's worker thread runs the usbfs handler; right after
 * each bulk OUT (still on that thread, before any further ioctl can
 * change the speed) the frames are taken from the model with their
 * speeds, into a queue this thread drains.  The signals are blocked before the
 * testbed (and so its thread) exists, so that only the loop's signalfd
 * sees them.
 *
 * irusb-emu runs itself under the preload too (it re-executes itself
 * with it once): umockdev's uevent sender finds the device through
 * libudev, which sees the testbed's sysfs only under the preload, and
 * without uevents a program's libusb never learns of a replugged device.
 *
 * irwire echoes nothing back to the side that sends and models the
 * half-duplex blindness of the air itself, so nothing read from the port
 * is dropped here while a frame goes out.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cursor.h"
#include "eloop.h"
#include "irda_class.h"
#include "serial.h"
#include "sir.h"
#include "usb_model.h"
#include "usb_umockdev.h"

#define EXIT_JOB 1
#define EXIT_USAGE 2
#define PRELOAD "libumockdev-preload.so.0"
/* Set when irusb-emu re-executed itself under the preload. */
#define MARKER "IRUSB_EMU_PRELOADED"
/* 0xFF before each frame: what IrLAP puts before an NDM frame by default
 * (irlap.c), enough for a receiver to fall back into byte sync. */
#define XBOFS 12
#define FRAME_MAX (2 + SIR_MAX_IFIELD)
#define QUEUE 16

extern char **environ;

struct host_frame {
	uint32_t baud;	/* the chip's speed when it sent the frame */
	size_t len;	/* 0: no frame, only a speed change */
	uint8_t data[FRAME_MAX];
};

/* Which device model plays the dongle (--model). */
struct model_choice {
	bool stir4200, ksdazzle, kingsun, ks959;
	bool irda_class;	/* else the MCS7780 */
	uint16_t vid, pid;	/* the class device's ID */
	bool speed_bug;		/* its ID has the class core's SPEED_BUG quirk */
};

struct emu {
	struct eloop *loop;
	struct model_choice model;
	const char *port_path;
	struct port *port;
	int port_fd;
	bool verbose;
	bool start_unplugged;	/* --unplugged: SIGUSR2 plugs it in */
	int bus, address;
	/* the node as udev leaves it: Debian's default (root, 0664), or the
	 * group and mode a rule gives (--node-group, --node-mode) */
	gid_t node_gid;
	mode_t node_mode;
	UMockdevTestbed *testbed;
	struct usb_umockdev *usb;
	int wake_fd;	/* eventfd: umockdev's thread queued frames */

	/* Filled on umockdev's thread, drained here. */
	pthread_mutex_t qlock;
	struct host_frame q[QUEUE];
	unsigned qhead, qcount;
	uint64_t qdrops;
	uint32_t q_baud;	/* the speed of the last entry queued */

	/* The frame being written to the port. */
	uint8_t out[FRAME_MAX * 2 + XBOFS + 8];
	size_t out_off, out_len;
	bool writing;
	/* When the bytes written so far have left the emulated line: a
	 * speed switch waits for it (tcdrain on a pty returns at once). */
	uint64_t line_free_us;
	struct eloop_timer switch_timer;

	struct sir_decoder *dec;
	uint64_t frames_out, frames_in, frames_lost;

	pid_t child;
	int child_status;
	bool child_done;
};

/* The testbed's files readable by every user, as sysfs is, and the
 * device node with the owner and mode udev would give it: what an
 * unprivileged program (irdad after its drop) can open is what it could
 * on a real system.  0 or -errno (said). */
static int set_node_access(const struct emu *e)
{
	char *root = umockdev_testbed_get_root_dir(e->testbed);
	char node[PATH_MAX], sock[PATH_MAX];
	int r = 0;

	snprintf(node, sizeof(node), "%s/dev/bus/usb/%03d/%03d", root, e->bus, e->address);
	snprintf(sock, sizeof(sock), "%s/ioctl/dev/bus/usb/%03d/%03d", root, e->bus, e->address);
	/* the preload's socket for the node's ioctls is plumbing: whoever
	 * may open the node may reach it; and any user's libusb binds its
	 * uevent socket (umockdev's netlink) in the root, as anyone may
	 * listen to the kernel's uevents: sticky and writable, as /tmp */
	if (chmod(root, 01777) < 0 || chown(node, 0, e->node_gid) < 0 ||
	    chmod(node, e->node_mode) < 0 || chmod(sock, 0666) < 0) {
		r = -errno;
		fprintf(stderr, "irusb-emu: %s: cannot set its owner and mode: %s\n", node,
			strerror(errno));
	}
	g_free(root);
	return r;
}

static struct usb_model *new_model(const struct model_choice *mc)
{
	if (mc->stir4200)
		return usb_model_stir4200_new();
	if (mc->ksdazzle)
		return usb_model_ksdazzle_new();
	if (mc->kingsun)
		return usb_model_kingsun_new();
	if (mc->ks959)
		return usb_model_ks959_new();
	return mc->irda_class ? usb_model_irda_class_new(mc->vid, mc->pid, mc->speed_bug)
			      : usb_model_mcs7780_new();
}

static bool parse_hex16(const char *s, size_t len, uint16_t *out)
{
	unsigned v = 0;

	if (len != 4)
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		unsigned d = ch >= '0' && ch <= '9' ? (unsigned)(ch - '0')
			   : ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10)
			   : ch >= 'A' && ch <= 'F' ? (unsigned)(ch - 'A' + 10) : 16u;
		if (d > 15)
			return false;
		v = v * 16 + d;
	}
	*out = (uint16_t)v;
	return true;
}

/* mcs7780, stir4200, ksdazzle, kingsun, ks959, irda-class or
 * irda-class:VID:PID (four hex digits each). */
static bool parse_model(const char *s, struct model_choice *out)
{
	static const char class_prefix[] = "irda-class:";
	const struct usb_id *id = NULL;
	const char *colon;

	*out = (struct model_choice){ .vid = 0x09c4, .pid = 0x0011 };
	if (strcmp(s, "mcs7780") == 0)
		return true;
	out->stir4200 = strcmp(s, "stir4200") == 0;
	out->ksdazzle = strcmp(s, "ksdazzle") == 0;
	out->kingsun = strcmp(s, "kingsun") == 0;
	out->ks959 = strcmp(s, "ks959") == 0;
	if (out->stir4200 || out->ksdazzle || out->kingsun || out->ks959)
		return true;
	if (strcmp(s, "irda-class") != 0) {
		if (strncmp(s, class_prefix, sizeof(class_prefix) - 1) != 0)
			return false;
		s += sizeof(class_prefix) - 1;
		colon = strchr(s, ':');
		if (!colon || !parse_hex16(s, (size_t)(colon - s), &out->vid) ||
		    !parse_hex16(colon + 1, strlen(colon + 1), &out->pid))
			return false;
	}
	out->irda_class = true;
	usb_family_match(out->vid, out->pid, IRDA_CLASS_IFACE_CLASS, IRDA_CLASS_IFACE_SUBCLASS,
			 &id);
	out->speed_bug = id && (id->quirks & IRDA_CLASS_SPEED_BUG);
	return true;
}

static void usage(FILE *f)
{
	fputs("usage: irusb-emu --port PTY [--model M] [--bus N --address N] [-v] -- COMMAND [ARGS...]\n"
	      "Runs COMMAND with an emulated USB IrDA dongle (umockdev) whose infrared\n"
	      "side is the serial port PTY (normally one of irwire's ptys).\n"
	      "Exits with COMMAND's status (128+N if signal N ended it).\n"
	      "  --port PTY      the serial port the dongle's frames go out on and come in from\n"
	      "  --model M       mcs7780 (MosChip MCS7780, 9710:7780; the default), stir4200\n"
	      "                  (SigmaTel STIr4200, 066f:4200), ksdazzle (KingSun Dazzle,\n"
	      "                  07d0:4100), kingsun (KingSun/DonShine, 07c0:4200), ks959\n"
	      "                  (KingSun KS-959, 07d0:4959), irda-class (a USB IrDA Bridge\n"
	      "                  class device, as the ACTiSYS ACT-IR2000U, 09c4:0011) or\n"
	      "                  irda-class:VID:PID (a class device with that ID)\n"
	      "  --unplugged     start with the dongle unplugged (SIGUSR2 plugs it in)\n"
	      "  --bus N         USB bus number (1..127, default 1)\n"
	      "  --address N     USB device address (1..127, default 2)\n"
	      "  --node-group G  the group of the device node, as a udev rule gives it\n"
	      "                  (default root)\n"
	      "  --node-mode M   its mode, in octal (default 0664, Debian's without a rule)\n"
	      "  -v, --verbose   frames, speeds, unplug and replug on stderr\n"
	      "  -h, --help      this text\n"
	      "SIGINT and SIGTERM are passed on to COMMAND; SIGUSR1 unplugs the dongle,\n"
	      "SIGUSR2 plugs a fresh one back in.\n",
	      f);
}

static void say(const struct emu *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct emu *e, const char *fmt, ...)
{
	va_list ap;

	if (!e->verbose)
		return;
	va_start(ap, fmt);
	fputs("irusb-emu: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- host to air ------------------------------------------------------- */

/* On umockdev's thread, after a bulk OUT: each frame comes with the
 * speed the chip sent it at, and the chip's speed now tells of a change
 * with no frame after it. */
static void on_host_sent(void *ctx)
{
	struct emu *e = ctx;
	struct usb_model *m = usb_umockdev_lock(e->usb);
	uint64_t one = 1;

	pthread_mutex_lock(&e->qlock);
	while (m) {
		struct host_frame *f = &e->q[(e->qhead + e->qcount) % QUEUE];
		uint8_t spill[FRAME_MAX];
		int n;

		if (e->qcount == QUEUE) {
			n = usb_model_take_frame(m, spill, sizeof(spill), NULL);
			if (n == -EAGAIN)
				break;
			e->qdrops++;
			continue;
		}
		n = usb_model_take_frame(m, f->data, sizeof(f->data), &f->baud);
		if (n == -EAGAIN)
			break;
		if (n < 0) {
			e->qdrops++;
			continue;
		}
		f->len = (size_t)n;
		e->q_baud = f->baud;
		e->qcount++;
	}
	/* The speed changed with no frame after it (a secondary switching after
	 * its UA, waiting for the primary's first frame at the new speed):
	 * the port must receive at that speed too, as the chip does, once
	 * the bytes already written have had their line time. */
	if (m && e->qcount < QUEUE && usb_model_speed(m) != e->q_baud) {
		struct host_frame *f = &e->q[(e->qhead + e->qcount) % QUEUE];

		f->len = 0;
		f->baud = e->q_baud = usb_model_speed(m);
		e->qcount++;
	}
	pthread_mutex_unlock(&e->qlock);
	usb_umockdev_unlock(e->usb);
	if (write(e->wake_fd, &one, sizeof(one)) < 0) {
		/* the counter is already non-zero: the loop wakes anyway */
	}
}

static void pump(struct emu *e);

static void on_writable(struct eloop *loop, int fd, void *ctx)
{
	(void)loop;
	(void)fd;
	pump(ctx);
}

static void on_switch_time(struct eloop *loop, void *ctx)
{
	(void)loop;
	pump(ctx);
}

/* Takes the next queued frame into out, switching the port's speed first
 * (once the line is free).  Returns false when there is nothing to send
 * yet. */
static bool next_frame(struct emu *e)
{
	struct host_frame f;
	struct wcursor w;
	uint64_t now = eloop_now_us();
	int n;

	pthread_mutex_lock(&e->qlock);
	if (!e->qcount) {
		pthread_mutex_unlock(&e->qlock);
		return false;
	}
	f.baud = e->q[e->qhead].baud;
	if (f.baud != e->port->baud && now < e->line_free_us) {
		pthread_mutex_unlock(&e->qlock);
		eloop_timer_arm_at(e->loop, &e->switch_timer, e->line_free_us);
		return false;
	}
	f.len = e->q[e->qhead].len;
	memcpy(f.data, e->q[e->qhead].data, f.len);
	e->qhead = (e->qhead + 1) % QUEUE;
	e->qcount--;
	pthread_mutex_unlock(&e->qlock);

	if (f.baud != e->port->baud) {
		n = port_set_speed(e->port, f.baud);
		if (n < 0)
			fprintf(stderr, "irusb-emu: %s\n", port_error(e->port));
		else
			say(e, "%s: speed %u", e->port_path, (unsigned)f.baud);
	}
	if (!f.len) {
		e->out_off = e->out_len = 0;
		return true;
	}
	wcursor_init(&w, e->out, sizeof(e->out));
	n = sir_encode(&w, f.data, f.len, XBOFS);
	if (n < 0) {
		e->frames_lost++;
		return true;
	}
	e->out_off = 0;
	e->out_len = (size_t)n;
	e->frames_out++;
	say(e, "frame of %zu bytes to %s at %u", f.len, e->port_path, (unsigned)e->port->baud);
	return true;
}

static void set_writing(struct emu *e, bool on)
{
	if (on == e->writing)
		return;
	e->writing = on;
	if (on)
		eloop_add_writer(e->loop, e->port_fd, on_writable, e);
	else
		eloop_remove_writer(e->loop, e->port_fd);
}

/* Writes what the port takes; the rest when it is writable again. */
static void pump(struct emu *e)
{
	for (;;) {
		ssize_t n;
		uint64_t now;

		if (e->out_off == e->out_len && !next_frame(e))
			break;
		if (e->out_off == e->out_len)
			continue;
		n = port_write(e->port, e->out + e->out_off, e->out_len - e->out_off);
		if (n < 0) {
			fprintf(stderr, "irusb-emu: %s\n", port_error(e->port));
			e->out_off = e->out_len;
			e->frames_lost++;
			continue;
		}
		now = eloop_now_us();
		if (e->line_free_us < now)
			e->line_free_us = now;
		e->line_free_us += sir_line_time_us(e->port->baud, (uint64_t)n);
		e->out_off += (size_t)n;
		if (e->out_off < e->out_len) {
			set_writing(e, true);
			return;
		}
	}
	set_writing(e, false);
}

static void on_wake(struct eloop *loop, int fd, void *ctx)
{
	uint64_t v;

	(void)loop;
	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	pump(ctx);
}

/* ---- air to host ------------------------------------------------------- */

static void on_air_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct emu *e = ctx;
	struct usb_model *m = usb_umockdev_lock(e->usb);
	int r = m ? usb_model_inject_frame(m, frame, len) : -ENODEV;

	usb_umockdev_unlock(e->usb);
	if (r < 0) {
		e->frames_lost++;
		say(e, "frame of %zu bytes from %s lost: %s", len, e->port_path, strerror(-r));
		return;
	}
	e->frames_in++;
	say(e, "frame of %zu bytes from %s", len, e->port_path);
}

static void on_readable(struct eloop *loop, int fd, void *ctx)
{
	struct emu *e = ctx;
	uint8_t buf[4096];
	ssize_t n;

	while ((n = port_read(e->port, buf, sizeof(buf), 0)) > 0)
		sir_decoder_feed(e->dec, buf, (size_t)n);
	if (n < 0 && n != -EAGAIN) {
		/* irwire unplugged this side (EIO): the air is gone for good */
		fprintf(stderr, "irusb-emu: %s\n", port_error(e->port));
		eloop_remove_reader(loop, fd);
		set_writing(e, false);
	}
}

/* ---- signals and the child --------------------------------------------- */

static void on_signal(struct eloop *loop, int signo, void *ctx)
{
	struct emu *e = ctx;
	int r;

	switch (signo) {
	case SIGCHLD:
		if (waitpid(e->child, &e->child_status, WNOHANG) == e->child) {
			e->child_done = true;
			eloop_terminate(loop);
		}
		break;
	case SIGUSR1:
		r = usb_umockdev_unplug(e->usb);
		if (r < 0)
			say(e, "SIGUSR1: already unplugged");
		else
			say(e, "unplugged %s", usb_umockdev_devnode(e->usb));
		break;
	case SIGUSR2:
		r = usb_umockdev_replug(e->usb, new_model(&e->model));
		if (r == 0)
			r = set_node_access(e);
		if (r == -EBUSY)
			say(e, "SIGUSR2: already plugged in");
		else if (r < 0)
			fprintf(stderr, "irusb-emu: %s: cannot plug back in: %s\n",
				usb_umockdev_devnode(e->usb), strerror(-r));
		else
			say(e, "plugged %s back in", usb_umockdev_devnode(e->usb));
		break;
	default: /* SIGINT, SIGTERM: the child decides */
		kill(e->child, signo);
		break;
	}
}

/* Appends value to the variable key (sep between), in this process. */
static int env_append(const char *key, const char *value, const char *sep)
{
	const char *was = getenv(key);
	size_t n = (was ? strlen(was) + strlen(sep) : 0) + strlen(value) + 1;
	char *s = malloc(n);
	int r;

	if (!s)
		return -1;
	snprintf(s, n, "%s%s%s", was && *was ? was : "", was && *was ? sep : "", value);
	r = setenv(key, s, 1);
	free(s);
	return r;
}

static bool preloaded(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p && strstr(p, "libumockdev-preload");
}

/* Once, before any thread: the same program again with the preload.
 * Returns only if that cannot be done (then uevents are off). */
static void reexec_preloaded(char **argv)
{
	if (preloaded() || getenv(MARKER))
		return;
	if (env_append("LD_PRELOAD", PRELOAD, ":") < 0 || setenv(MARKER, "1", 1) < 0)
		return;
	/* an ASan build would refuse a preload ahead of its runtime; the
	 * preload only wraps libc calls */
	env_append("ASAN_OPTIONS", "verify_asan_link_order=0", ":");
	execv("/proc/self/exe", argv);
}

/* "KEY=" value: a new string, or NULL. */
static char *env_entry(const char *key, const char *before, const char *value)
{
	size_t n = strlen(key) + 1 + (before ? strlen(before) + 1 : 0) + strlen(value) + 1;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s=%s%s%s", key, before ? before : "", before ? ":" : "", value);
	return s;
}

/* The environment with umockdev's preload after any the caller has and
 * the testbed's directory. */
static char **child_env(const char *root)
{
	const char *preload = getenv("LD_PRELOAD");
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 3, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) && strncmp(environ[i], "UMOCKDEV_DIR=", 13) &&
		    strncmp(environ[i], MARKER "=", strlen(MARKER) + 1))
			env[k++] = environ[i];
	if (preloaded()) /* ours already, after what the caller had */
		env[k] = env_entry("LD_PRELOAD", NULL, preload);
	else
		env[k] = env_entry("LD_PRELOAD", preload && *preload ? preload : NULL, PRELOAD);
	env[k + 1] = env_entry("UMOCKDEV_DIR", NULL, root);
	if (!env[k] || !env[k + 1]) {
		free(env[k]);
		free(env[k + 1]);
		free(env);
		return NULL;
	}
	return env;
}

static void free_env(char **env)
{
	size_t k = 0;

	if (!env)
		return;
	while (env[k + 2])
		k++;
	free(env[k]);
	free(env[k + 1]);
	free(env);
}

static int spawn(struct emu *e, char **argv, const sigset_t *mask)
{
	char *root = umockdev_testbed_get_root_dir(e->testbed);
	char **env = child_env(root);
	posix_spawnattr_t attr;
	sigset_t dfl;
	int r;

	g_free(root);
	if (!env)
		return ENOMEM;
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGUSR1);
	sigaddset(&dfl, SIGUSR2);
	sigaddset(&dfl, SIGCHLD);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&attr, mask);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	r = posix_spawnp(&e->child, argv[0], NULL, &attr, argv, env);
	posix_spawnattr_destroy(&attr);
	free_env(env);
	return r;
}

static bool parse_num(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = (int)v;
	return true;
}

/* A group name or number. */
static int parse_group(const char *s, gid_t *out)
{
	struct group gr, *res = NULL;
	char buf[1024];
	int n;

	if (parse_num(s, 0, 65535, &n)) {
		*out = (gid_t)n;
		return 0;
	}
	if (getgrnam_r(s, &gr, buf, sizeof(buf), &res) != 0 || !res)
		return -ENOENT;
	*out = res->gr_gid;
	return 0;
}

static int parse_mode(const char *s, mode_t *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 8);
	if (errno || end == s || *end || v < 0 || v > 0777)
		return -EINVAL;
	*out = (mode_t)v;
	return 0;
}

static int setup(struct emu *e)
{
	struct sir_decoder_config dc = { .on_frame = on_air_frame, .ctx = e };
	struct serial_config sc;
	char err[256];
	int r;

	serial_config_init(&sc);
	sc.lock_dir = ""; /* the transceiver's line, not a port anyone else should claim */
	r = serial_open(e->port_path, &sc, &e->port, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "irusb-emu: %s\n", err);
		return -1;
	}
	e->port_fd = serial_fd(e->port);
	e->q_baud = e->port->baud;
	e->dec = sir_decoder_new(&dc);
	e->loop = eloop_new(NULL);
	e->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!e->dec || !e->loop || e->wake_fd < 0) {
		fprintf(stderr, "irusb-emu: %s\n", strerror(errno ? errno : ENOMEM));
		return -1;
	}
	eloop_timer_init(&e->switch_timer, on_switch_time, e);
	e->testbed = umockdev_testbed_new();
	r = usb_umockdev_new(e->testbed, e->bus, e->address, new_model(&e->model), &e->usb);
	if (r < 0) {
		fprintf(stderr, "irusb-emu: /dev/bus/usb/%03d/%03d: cannot emulate the device: %s\n",
			e->bus, e->address, strerror(-r));
		return -1;
	}
	usb_umockdev_set_notify(e->usb, on_host_sent, e);
	if (e->start_unplugged)
		(void)usb_umockdev_unplug(e->usb);
	if (eloop_add_reader(e->loop, e->port_fd, on_readable, e) < 0 ||
	    eloop_add_reader(e->loop, e->wake_fd, on_wake, e) < 0) {
		fprintf(stderr, "irusb-emu: event loop: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void teardown(struct emu *e)
{
	if (e->usb)
		usb_umockdev_free(e->usb);
	if (e->testbed)
		g_object_unref(e->testbed);
	if (e->loop)
		eloop_free(e->loop);
	if (e->wake_fd >= 0)
		close(e->wake_fd);
	sir_decoder_free(e->dec);
	port_close(e->port);
	pthread_mutex_destroy(&e->qlock);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "model", required_argument, NULL, 'M' },
		{ "unplugged", no_argument, NULL, 'U' },
		{ "bus", required_argument, NULL, 'b' },
		{ "address", required_argument, NULL, 'a' },
		{ "node-group", required_argument, NULL, 'g' },
		{ "node-mode", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const int signals[] = { SIGCHLD, SIGINT, SIGTERM, SIGUSR1, SIGUSR2 };
	struct emu e = { .bus = 1, .address = 2, .node_mode = 0664, .port_fd = -1, .wake_fd = -1 };
	char chip[64];
	sigset_t block, was;
	int c, r, rc = EXIT_JOB;

	pthread_mutex_init(&e.qlock, NULL);
	while ((c = getopt_long(argc, argv, "+p:M:b:a:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			e.port_path = optarg;
			break;
		case 'U':
			e.start_unplugged = true;
			break;
		case 'M':
			if (!parse_model(optarg, &e.model)) {
				fprintf(stderr, "irusb-emu: --model %s: not mcs7780, stir4200, ksdazzle, "
						"kingsun, ks959, irda-class or irda-class:VID:PID (four hex "
						"digits each)\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'b':
		case 'a':
			if (!parse_num(optarg, 1, 127, c == 'b' ? &e.bus : &e.address)) {
				fprintf(stderr, "irusb-emu: --%s %s: not a number from 1 to 127\n",
					c == 'b' ? "bus" : "address", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'g':
			if (parse_group(optarg, &e.node_gid) < 0) {
				fprintf(stderr, "irusb-emu: --node-group %s: no such group\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'm':
			if (parse_mode(optarg, &e.node_mode) < 0) {
				fprintf(stderr, "irusb-emu: --node-mode %s: an octal mode from 0 to 0777\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'v':
			e.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!e.port_path || optind >= argc) {
		fprintf(stderr, "irusb-emu: %s\n", !e.port_path ? "--port PTY is required"
								 : "no COMMAND given");
		usage(stderr);
		return EXIT_USAGE;
	}

	reexec_preloaded(argv);
	/* Before the testbed: its worker thread inherits the mask. */
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaddset(&block, signals[i]);
	pthread_sigmask(SIG_BLOCK, &block, &was);
	if (setup(&e) < 0 || (!e.start_unplugged && set_node_access(&e) < 0))
		goto out;
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (eloop_add_signal(e.loop, signals[i], on_signal, &e) < 0) {
			fprintf(stderr, "irusb-emu: signal %d: cannot be handled\n", signals[i]);
			goto out;
		}
	r = spawn(&e, argv + optind, &was);
	if (r) {
		fprintf(stderr, "irusb-emu: %s: %s\n", argv[optind], strerror(r));
		goto out;
	}
	if (e.model.irda_class)
		snprintf(chip, sizeof(chip), "Bridge class device %04x:%04x%s", e.model.vid,
			 e.model.pid, e.model.speed_bug ? " (speed bug)" : "");
	else
		snprintf(chip, sizeof(chip), "%s",
			 e.model.stir4200   ? "STIr4200"
			 : e.model.ksdazzle ? "KingSun Dazzle"
			 : e.model.kingsun  ? "KingSun/DonShine"
			 : e.model.ks959    ? "KingSun KS-959"
					    : "MCS7780");
	say(&e, "%s at %s (port %d-1), air on %s; running %s (pid %d)", chip,
	    usb_umockdev_devnode(e.usb), e.bus, e.port_path, argv[optind], (int)e.child);
	while (!e.child_done)
		if (eloop_run(e.loop) < 0) {
			fprintf(stderr, "irusb-emu: event loop: %s\n", strerror(errno));
			kill(e.child, SIGTERM);
			waitpid(e.child, &e.child_status, 0);
			e.child_done = true;
		}
	if (WIFEXITED(e.child_status))
		rc = WEXITSTATUS(e.child_status);
	else if (WIFSIGNALED(e.child_status))
		rc = 128 + WTERMSIG(e.child_status);
	pthread_mutex_lock(&e.qlock);
	say(&e, "%s exited (%d); %llu frames to %s, %llu from it, %llu lost", argv[optind], rc,
	    (unsigned long long)e.frames_out, e.port_path, (unsigned long long)e.frames_in,
	    (unsigned long long)(e.frames_lost + e.qdrops));
	pthread_mutex_unlock(&e.qlock);
out:
	teardown(&e);
	return rc;
}
