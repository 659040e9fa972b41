/*
 * serial.c: the port helpers and the real serial port.  See serial.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "serial.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cursor.h"
#include "uucplock.h"

/* How long port_write_all waits between tries when the port is full. */
#define WRITE_STALL_STEP_US 1000u

int port_fail(struct port *p, int err, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->error, sizeof(p->error), "%s: ", p->name);
	size_t used = n < 0 ? 0 : (size_t)n < sizeof(p->error) ? (size_t)n :
		      sizeof(p->error) - 1;
	va_start(ap, fmt);
	vsnprintf(p->error + used, sizeof(p->error) - used, fmt, ap);
	va_end(ap);
	log_msg(p->log, LOG_LEVEL_DEBUG, "%s", p->error);
	return -err;
}

int port_write_all(struct port *p, const void *buf, size_t len,
		   uint32_t timeout_us)
{
	const uint8_t *bytes = buf;
	size_t done = 0;
	uint32_t stalled = 0;
	while (done < len) {
		ssize_t n = port_write(p, bytes + done, len - done);
		if (n < 0)
			return (int)n;
		if (n > 0) {
			done += (size_t)n;
			stalled = 0;
			continue;
		}
		if (stalled >= timeout_us)
			return port_fail(p, ETIMEDOUT,
					 "output stalled for %u us with %zu of %zu bytes written",
					 stalled, done, len);
		port_sleep_us(p, WRITE_STALL_STEP_US);
		stalled += WRITE_STALL_STEP_US;
	}
	return 0;
}

int serial_switch_speed(struct port *p, uint32_t baud, uint64_t *took_us)
{
	uint64_t start = port_now_us(p);
	int r = port_drain(p);
	if (r == 0)
		r = port_set_speed(p, baud);
	if (took_us)
		*took_us = port_now_us(p) - start;
	if (r == 0)
		log_msg(p->log, LOG_LEVEL_DEBUG, "%s: switched to %u baud in %llu us",
			p->name, baud,
			(unsigned long long)(port_now_us(p) - start));
	return r;
}

/* --- rates --------------------------------------------------------------- */

static const struct {
	uint32_t baud;
	speed_t code;
} rates[] = {
	{ 1200, B1200 }, { 2400, B2400 }, { 4800, B4800 }, { 9600, B9600 },
	{ 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 },
	{ 115200, B115200 }, { 230400, B230400 }, { 460800, B460800 },
	{ 500000, B500000 }, { 576000, B576000 }, { 921600, B921600 },
	{ 1000000, B1000000 }, { 1152000, B1152000 }, { 1500000, B1500000 },
	{ 2000000, B2000000 }, { 2500000, B2500000 }, { 3000000, B3000000 },
	{ 3500000, B3500000 }, { 4000000, B4000000 },
};

static bool rate_code(uint32_t baud, speed_t *code)
{
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		if (rates[i].baud == baud) {
			*code = rates[i].code;
			return true;
		}
	}
	return false;
}

static uint32_t rate_of_code(speed_t code)
{
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i].code == code)
			return rates[i].baud;
	return 0;
}

bool serial_rate_supported(uint32_t baud)
{
	speed_t code;
	return rate_code(baud, &code);
}

const char *serial_rates_text(void)
{
	return "1200 2400 4800 9600 19200 38400 57600 115200 230400 460800 "
	       "500000 576000 921600 1000000 1152000 1500000 2000000 2500000 "
	       "3000000 3500000 4000000";
}

/* --- sysfs ---------------------------------------------------------------- */

bool serial_subsystem_is_usb(const void *link, size_t len)
{
	struct cursor c;
	char last[16];
	size_t n = 0;
	bool too_long = false;
	uint8_t ch;
	cursor_init(&c, link, len);
	while (cursor_u8(&c, &ch)) {
		if (ch == '/') {
			n = 0;
			too_long = false;
		} else if (n < sizeof(last) - 1) {
			last[n++] = (char)ch;
		} else {
			too_long = true;
		}
	}
	last[n] = '\0';
	return !too_long && (strcmp(last, "usb") == 0 ||
			     strcmp(last, "usb-serial") == 0);
}

/* --- the real port -------------------------------------------------------- */

struct serial_port {
	struct port port;   /* first: ops receive &port */
	int fd;
	struct termios saved;
	int saved_mctrl;
	int mctrl;          /* the output lines as last set (or shadowed) */
	bool have_lines;
	bool usb;
	uint32_t margin_us;
	struct uucplock lock;
};

static struct serial_port *sp_of(struct port *p)
{
	return (struct serial_port *)p;
}

static ssize_t sp_write(struct port *p, const void *buf, size_t len)
{
	ssize_t n = write(sp_of(p)->fd, buf, len);
	if (n >= 0)
		return n;
	if (errno == EAGAIN || errno == EINTR)
		return 0;
	return port_fail(p, errno, "write: %s", strerror(errno));
}

static ssize_t sp_read(struct port *p, void *buf, size_t len,
		       uint32_t timeout_us)
{
	struct serial_port *sp = sp_of(p);
	if (timeout_us) {
		struct pollfd pfd = { .fd = sp->fd, .events = POLLIN };
		struct timespec ts = {
			.tv_sec = timeout_us / 1000000u,
			.tv_nsec = (long)(timeout_us % 1000000u) * 1000,
		};
		int r = ppoll(&pfd, 1, &ts, NULL);
		if (r < 0 && errno != EINTR)
			return port_fail(p, errno, "poll: %s", strerror(errno));
		if (r <= 0)
			return 0;
	}
	ssize_t n = read(sp->fd, buf, len);
	/* A non-blocking tty with nothing to read says EAGAIN: end of file
	 * is a hang-up (a USB adapter's tty after its unplug). */
	if (n == 0 && len > 0)
		return port_fail(p, EIO, "read: end of file (hung up)");
	if (n >= 0)
		return n;
	if (errno == EAGAIN || errno == EINTR)
		return 0;
	return port_fail(p, errno, "read: %s", strerror(errno));
}

static int apply_speed(struct serial_port *sp, uint32_t baud)
{
	struct port *p = &sp->port;
	speed_t code;
	struct termios t;
	if (!rate_code(baud, &code))
		return port_fail(p, EINVAL,
				 "%u baud is not a supported rate (supported: %s)",
				 baud, serial_rates_text());
	if (tcgetattr(sp->fd, &t) < 0)
		return port_fail(p, errno, "tcgetattr: %s", strerror(errno));
	cfsetispeed(&t, code);
	cfsetospeed(&t, code);
	if (tcsetattr(sp->fd, TCSANOW, &t) < 0)
		return port_fail(p, errno, "setting %u baud: %s", baud,
				 strerror(errno));
	/* tcsetattr succeeds if any change took: read the rate back */
	if (tcgetattr(sp->fd, &t) < 0)
		return port_fail(p, errno, "tcgetattr: %s", strerror(errno));
	if (cfgetospeed(&t) != code || cfgetispeed(&t) != code)
		return port_fail(p, EIO, "%u baud did not stick (the tty reports %u)",
				 baud, rate_of_code(cfgetospeed(&t)));
	p->baud = baud;
	return 0;
}

static int sp_set_speed(struct port *p, uint32_t baud)
{
	return apply_speed(sp_of(p), baud);
}

static bool lines_unsupported(int err)
{
	return err == ENOTTY || err == EINVAL || err == ENOTSUP;
}

static void lose_modem_lines(struct serial_port *sp, const char *what, int err)
{
	if (sp->have_lines)
		log_msg(sp->port.log, LOG_LEVEL_DEBUG,
			"%s: no modem-line control (%s: %s); DTR/RTS are only "
			"remembered from now on (a pseudo-terminal?)",
			sp->port.name, what, strerror(err));
	sp->have_lines = false;
}

static int sp_set_lines(struct port *p, bool dtr, bool rts)
{
	struct serial_port *sp = sp_of(p);
	int v = (sp->mctrl & ~(TIOCM_DTR | TIOCM_RTS)) |
		(dtr ? TIOCM_DTR : 0) | (rts ? TIOCM_RTS : 0);
	if (sp->have_lines && ioctl(sp->fd, TIOCMSET, &v) < 0) {
		if (!lines_unsupported(errno))
			return port_fail(p, errno, "setting DTR=%d RTS=%d: %s",
					 dtr, rts, strerror(errno));
		lose_modem_lines(sp, "TIOCMSET", errno);
	}
	sp->mctrl = v;
	return 0;
}

static int sp_get_lines(struct port *p, unsigned *lines)
{
	struct serial_port *sp = sp_of(p);
	int v = sp->mctrl;
	if (sp->have_lines && ioctl(sp->fd, TIOCMGET, &v) < 0) {
		if (!lines_unsupported(errno))
			return port_fail(p, errno, "reading modem lines: %s",
					 strerror(errno));
		lose_modem_lines(sp, "TIOCMGET", errno);
		v = sp->mctrl;
	}
	*lines = (v & TIOCM_DTR ? PORT_LINE_DTR : 0) |
		 (v & TIOCM_RTS ? PORT_LINE_RTS : 0) |
		 (v & TIOCM_CTS ? PORT_LINE_CTS : 0) |
		 (v & TIOCM_DSR ? PORT_LINE_DSR : 0) |
		 (v & TIOCM_CAR ? PORT_LINE_DCD : 0) |
		 (v & TIOCM_RNG ? PORT_LINE_RI : 0);
	return 0;
}

static void sp_sleep_us(struct port *p, uint32_t us)
{
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(us / 1000000u);
	until.tv_nsec += (long)(us % 1000000u) * 1000;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
		;
}

static uint64_t sp_now_us(struct port *p)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int sp_drain(struct port *p)
{
	struct serial_port *sp = sp_of(p);
	int r;
	while ((r = tcdrain(sp->fd)) < 0 && errno == EINTR)
		;
	if (r < 0)
		return port_fail(p, errno, "tcdrain: %s", strerror(errno));
	if (sp->margin_us)
		sp_sleep_us(p, sp->margin_us);
	return 0;
}

static int sp_flush_input(struct port *p)
{
	if (tcflush(sp_of(p)->fd, TCIFLUSH) < 0)
		return port_fail(p, errno, "tcflush: %s", strerror(errno));
	return 0;
}

/* A device that went away (unplugged, hung up) cannot be restored:
 * no warning for that. */
static enum log_level restore_level(int err)
{
	return err == EIO || err == ENODEV || err == ENXIO ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARNING;
}

static void sp_close(struct port *p)
{
	struct serial_port *sp = sp_of(p);
	tcflush(sp->fd, TCIOFLUSH);
	if (tcsetattr(sp->fd, TCSANOW, &sp->saved) < 0)
		log_msg(p->log, restore_level(errno), "%s: restoring termios: %s",
			p->name, strerror(errno));
	if (sp->have_lines && ioctl(sp->fd, TIOCMSET, &sp->saved_mctrl) < 0)
		log_msg(p->log, restore_level(errno), "%s: restoring modem lines: %s",
			p->name, strerror(errno));
	ioctl(sp->fd, TIOCNXCL);
	close(sp->fd);
	uucplock_release(&sp->lock);
	free(sp);
}

static const struct port_ops serial_ops = {
	.write = sp_write,
	.read = sp_read,
	.set_speed = sp_set_speed,
	.set_lines = sp_set_lines,
	.get_lines = sp_get_lines,
	.drain = sp_drain,
	.flush_input = sp_flush_input,
	.sleep_us = sp_sleep_us,
	.now_us = sp_now_us,
	.close = sp_close,
};

void serial_config_init(struct serial_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->baud = 9600;
	cfg->usb = SERIAL_USB_AUTO;
	cfg->drain_margin_us = UINT32_MAX;
}

static bool detect_usb(const char *resolved, const char *sysfs_root)
{
	const char *name = strrchr(resolved, '/');
	name = name ? name + 1 : resolved;
	char path[PATH_MAX], link[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/class/tty/%s/device/subsystem",
			 sysfs_root ? sysfs_root : "/sys", name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return false;
	ssize_t len = readlink(path, link, sizeof(link));
	return len > 0 && serial_subsystem_is_usb(link, (size_t)len);
}

static int make_raw(struct serial_port *sp, uint32_t baud)
{
	struct termios t = sp->saved;
	cfmakeraw(&t);
	t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS | HUPCL);
	t.c_cflag |= CS8 | CREAD | CLOCAL;
	t.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(sp->fd, TCSANOW, &t) < 0)
		return port_fail(&sp->port, errno, "setting raw mode: %s",
				 strerror(errno));
	return apply_speed(sp, baud);
}

static void setup_lines(struct serial_port *sp)
{
	sp->have_lines = true;
	if (ioctl(sp->fd, TIOCMGET, &sp->saved_mctrl) < 0) {
		/* ptys have no modem lines: DTR/RTS start out as asserted,
		 * which is what a real tty shows after open too */
		lose_modem_lines(sp, "TIOCMGET", errno);
		sp->saved_mctrl = TIOCM_DTR | TIOCM_RTS;
	}
	sp->mctrl = sp->saved_mctrl;
}

static int open_locked(struct serial_port *sp, const char *resolved,
		       const struct serial_config *cfg)
{
	struct port *p = &sp->port;
	if (cfg->open_dev) {
		sp->fd = cfg->open_dev(cfg->open_ctx, resolved);
		if (sp->fd < 0)
			return port_fail(p, -sp->fd, "cannot open: %s", strerror(-sp->fd));
	} else {
		sp->fd = open(resolved, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (sp->fd < 0)
			return port_fail(p, errno, "cannot open: %s", strerror(errno));
	}
	if (!isatty(sp->fd)) {
		port_fail(p, ENOTTY, "not a terminal device");
		close(sp->fd);
		return -ENOTTY;
	}
	if (ioctl(sp->fd, TIOCEXCL) < 0)
		log_msg(p->log, LOG_LEVEL_WARNING, "%s: TIOCEXCL: %s", p->name,
			strerror(errno));
	int r = -EIO;
	if (tcgetattr(sp->fd, &sp->saved) < 0) {
		r = port_fail(p, errno, "tcgetattr: %s", strerror(errno));
	} else {
		setup_lines(sp);
		r = make_raw(sp, cfg->baud ? cfg->baud : 9600);
		if (r < 0)
			tcsetattr(sp->fd, TCSANOW, &sp->saved);
	}
	if (r < 0) {
		ioctl(sp->fd, TIOCNXCL);
		close(sp->fd);
		return r;
	}
	tcflush(sp->fd, TCIOFLUSH);   /* nothing from before our time */
	return 0;
}

int serial_open(const char *device, const struct serial_config *cfg,
		struct port **out, char *err, size_t errlen)
{
	struct serial_config defaults;
	if (!cfg) {
		serial_config_init(&defaults);
		cfg = &defaults;
	}
	char resolved[PATH_MAX];
	if (!realpath(device, resolved)) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot open: %s", device, strerror(e));
		return -e;
	}
	struct serial_port *sp = calloc(1, sizeof(*sp));
	if (!sp) {
		snprintf(err, errlen, "%s: out of memory", device);
		return -ENOMEM;
	}
	struct port *p = &sp->port;
	p->ops = &serial_ops;
	p->log = cfg->log;
	snprintf(p->name, sizeof(p->name), "%s", device);
	if (!cfg->lock_dir || cfg->lock_dir[0]) {
		int r = uucplock_acquire(&sp->lock, cfg->lock_dir, resolved,
					 cfg->log, err, errlen);
		if (r < 0) {
			free(sp);
			return r;
		}
	}
	int r = open_locked(sp, resolved, cfg);
	if (r < 0) {
		snprintf(err, errlen, "%s", p->error);
		uucplock_release(&sp->lock);
		free(sp);
		return r;
	}
	sp->usb = cfg->usb == SERIAL_USB_YES ||
		  (cfg->usb == SERIAL_USB_AUTO && detect_usb(resolved, cfg->sysfs_root));
	sp->margin_us = cfg->drain_margin_us != UINT32_MAX ? cfg->drain_margin_us :
			sp->usb ? SERIAL_USB_DRAIN_MARGIN_US : 0;
	log_msg(p->log, LOG_LEVEL_DEBUG,
		"%s: open at %u baud, raw 8N1, %s, drain margin %u us%s",
		device, p->baud, sp->usb ? "USB bridge" : "not USB",
		sp->margin_us, sp->have_lines ? "" : ", no modem lines");
	*out = p;
	return 0;
}

/* The accessors answer for real ports only (not for the mock). */
static const struct serial_port *real(const struct port *p)
{
	return p && p->ops == &serial_ops ? (const struct serial_port *)p : NULL;
}

int serial_fd(const struct port *p)
{
	return real(p) ? real(p)->fd : -1;
}

uint32_t serial_drain_margin_us(const struct port *p)
{
	return real(p) ? real(p)->margin_us : 0;
}

bool serial_is_usb(const struct port *p)
{
	return real(p) && real(p)->usb;
}

bool serial_has_modem_lines(const struct port *p)
{
	return real(p) && real(p)->have_lines;
}

int serial_lock_chown(struct port *p, uid_t uid, gid_t gid)
{
	const struct serial_port *sp = real(p);
	char err[sizeof(p->error)];
	if (!sp)
		return 0;
	int r = uucplock_chown(&sp->lock, uid, gid, err, sizeof(err));
	if (r < 0)
		port_fail(p, -r, "%s", err);
	return r;
}

/* Linux's Unix98 pty slaves (UNIX98_PTY_SLAVE_MAJOR and the 7 majors
 * after it, Documentation/admin-guide/devices.txt): the only devices
 * whose window size is read as irwire's mark. */
#define PTY_SLAVE_MAJOR_FIRST 136u
#define PTY_SLAVE_MAJOR_LAST 143u
/* The largest minimum turnaround IrLAP can ask for (QoS PI 0x86). */
#define IRLAP_MIN_TAT_MAX_US 10000u

int serial_irwire_mark(int fd, uint32_t min_tat_us)
{
	struct winsize ws = {
		.ws_row = SERIAL_IRWIRE_MARK_ROWS,
		.ws_col = SERIAL_IRWIRE_MARK_COLS,
		.ws_xpixel = SERIAL_IRWIRE_MARK_VERSION,
		.ws_ypixel = (unsigned short)(min_tat_us > IRLAP_MIN_TAT_MAX_US ?
					      IRLAP_MIN_TAT_MAX_US : min_tat_us),
	};

	return ioctl(fd, TIOCSWINSZ, &ws) < 0 ? -errno : 0;
}

int serial_irwire_min_tat(int fd, uint32_t *min_tat_us)
{
	struct winsize ws;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) < PTY_SLAVE_MAJOR_FIRST ||
	    major(st.st_rdev) > PTY_SLAVE_MAJOR_LAST)
		return 0;
	/* A pty always answers TIOCGWINSZ; a failure means no mark. */
	if (ioctl(fd, TIOCGWINSZ, &ws) < 0 || ws.ws_row != SERIAL_IRWIRE_MARK_ROWS ||
	    ws.ws_col != SERIAL_IRWIRE_MARK_COLS || ws.ws_xpixel != SERIAL_IRWIRE_MARK_VERSION)
		return 0;
	*min_tat_us = ws.ws_ypixel > IRLAP_MIN_TAT_MAX_US ? IRLAP_MIN_TAT_MAX_US : ws.ws_ypixel;
	return 1;
}
