/*
 * test_serial.c: the real serial port on a pseudo-terminal pair, its
 * UUCP lock files, and the lock-file parser.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "dongle.h"
#include "mockport.h"
#include "serial.h"
#include "uucplock.h"

struct fixture {
	char dir[64];        /* a scratch lock directory */
	int master;
	char slave[64];      /* /dev/pts/N */
	char lockfile[PATH_MAX];
	struct serial_config cfg;
	char err[256];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_serial.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->master = posix_openpt(O_RDWR | O_NOCTTY);
	if (f->master < 0 || grantpt(f->master) < 0 || unlockpt(f->master) < 0 ||
	    ptsname_r(f->master, f->slave, sizeof(f->slave)) != 0)
		return -1;
	char name[64];
	if (!uucplock_name(f->slave, name, sizeof(name)))
		return -1;
	snprintf(f->lockfile, sizeof(f->lockfile), "%s/%s", f->dir, name);
	serial_config_init(&f->cfg);
	f->cfg.lock_dir = f->dir;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];
	close(f->master);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	int r = system(cmd);
	free(f);
	return r == 0 ? 0 : -1;
}

static struct port *open_ok(struct fixture *f)
{
	struct port *p = NULL;
	int r = serial_open(f->slave, &f->cfg, &p, f->err, sizeof(f->err));
	if (r != 0)
		print_error("serial_open: %s\n", f->err);
	assert_int_equal(r, 0);
	assert_non_null(p);
	return p;
}

static size_t slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? (size_t)n : 0;
}

static void opens_raw_8n1_and_restores(void **state)
{
	struct fixture *f = *state;
	/* the slave's settings before: a cooked terminal */
	int probe = open(f->slave, O_RDWR | O_NOCTTY);
	assert_true(probe >= 0);
	struct termios before, t;
	assert_int_equal(tcgetattr(probe, &before), 0);
	assert_true(before.c_lflag & ICANON);

	struct port *p = open_ok(f);
	assert_int_equal(tcgetattr(serial_fd(p), &t), 0);
	assert_int_equal(t.c_cflag & CSIZE, CS8);
	assert_false(t.c_cflag & (PARENB | CSTOPB | CRTSCTS));
	assert_true(t.c_cflag & CLOCAL);
	assert_true(t.c_cflag & CREAD);
	assert_false(t.c_lflag & (ICANON | ECHO | ISIG | IEXTEN));
	assert_false(t.c_iflag & (IXON | IXOFF | ICRNL | INLCR | ISTRIP));
	assert_false(t.c_oflag & OPOST);
	assert_int_equal(cfgetospeed(&t), B9600);
	assert_int_equal(p->baud, 9600);
	assert_true(fcntl(serial_fd(p), F_GETFL) & O_NONBLOCK);
	port_close(p);

	assert_int_equal(tcgetattr(probe, &t), 0);
	assert_int_equal(t.c_lflag, before.c_lflag);
	assert_int_equal(t.c_iflag, before.c_iflag);
	assert_int_equal(t.c_oflag, before.c_oflag);
	assert_int_equal(t.c_cflag, before.c_cflag);
	close(probe);
}

static void sets_and_reads_back_every_rate(void **state)
{
	struct fixture *f = *state;
	static const struct {
		uint32_t baud;
		speed_t code;
	} want[] = {
		{ 2400, B2400 }, { 9600, B9600 }, { 19200, B19200 },
		{ 38400, B38400 }, { 57600, B57600 }, { 115200, B115200 },
		{ 230400, B230400 }, { 576000, B576000 }, { 1152000, B1152000 },
		{ 4000000, B4000000 },
	};
	struct port *p = open_ok(f);
	struct termios t;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(port_set_speed(p, want[i].baud), 0);
		assert_int_equal(tcgetattr(serial_fd(p), &t), 0);
		assert_int_equal(cfgetospeed(&t), want[i].code);
		assert_int_equal(cfgetispeed(&t), want[i].code);
		assert_int_equal(p->baud, want[i].baud);
	}
	/* rejected with the device and the rate named; nothing changes */
	assert_int_equal(port_set_speed(p, 12345), -EINVAL);
	assert_non_null(strstr(port_error(p), f->slave));
	assert_non_null(strstr(port_error(p), "12345 baud is not a supported rate"));
	assert_int_equal(tcgetattr(serial_fd(p), &t), 0);
	assert_int_equal(cfgetospeed(&t), B4000000);
	assert_int_equal(p->baud, 4000000);
	port_close(p);
}

static void the_lock_file_holds_our_pid(void **state)
{
	struct fixture *f = *state;
	struct port *p = open_ok(f);
	char content[64], want[16];
	assert_int_equal(slurp(f->lockfile, content, sizeof(content)), 11);
	snprintf(want, sizeof(want), "%10d\n", (int)getpid());
	assert_string_equal(content, want);
	struct stat st;
	assert_int_equal(stat(f->lockfile, &st), 0);
	port_close(p);
	assert_int_equal(stat(f->lockfile, &st), -1);
	assert_int_equal(errno, ENOENT);
}

static void a_second_open_is_refused_by_pid(void **state)
{
	struct fixture *f = *state;
	struct port *p = open_ok(f), *q = NULL;
	char want[64];
	assert_int_equal(serial_open(f->slave, &f->cfg, &q, f->err, sizeof(f->err)),
			 -EBUSY);
	assert_null(q);
	snprintf(want, sizeof(want), "is locked by PID %d", (int)getpid());
	assert_non_null(strstr(f->err, want));
	assert_non_null(strstr(f->err, f->slave));
	/* the refused open did not remove the holder's lock */
	struct stat st;
	assert_int_equal(stat(f->lockfile, &st), 0);
	port_close(p);
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void a_stale_lock_is_taken_over(void **state)
{
	struct fixture *f = *state;
	/* a PID that existed and is gone */
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	char stale[16], content[64], want[16];
	int n = snprintf(stale, sizeof(stale), "%10d\n", (int)child);
	write_file(f->lockfile, stale, (size_t)n);

	struct port *p = open_ok(f);
	slurp(f->lockfile, content, sizeof(content));
	snprintf(want, sizeof(want), "%10d\n", (int)getpid());
	assert_string_equal(content, want);
	port_close(p);

	/* a lock file that is not a PID at all is taken over too */
	write_file(f->lockfile, "garbage\n", 8);
	p = open_ok(f);
	slurp(f->lockfile, content, sizeof(content));
	assert_string_equal(content, want);
	port_close(p);
}

/* serial_lock_chown: the lock goes to the given ids, and only our own. */
static void the_lock_is_handed_to_a_user(void **state)
{
	struct fixture *f = *state;
	struct port *p = open_ok(f);
	struct stat st;
	/* root may give it to anyone (the drop's target); others only to
	 * themselves, and to nobody else */
	uid_t uid = geteuid() == 0 ? 4242 : getuid();
	gid_t gid = geteuid() == 0 ? 4343 : getgid();
	assert_int_equal(serial_lock_chown(p, uid, gid), 0);
	assert_int_equal(stat(f->lockfile, &st), 0);
	assert_int_equal(st.st_uid, uid);
	assert_int_equal(st.st_gid, gid);
	if (geteuid() != 0) {
		assert_int_equal(serial_lock_chown(p, 0, 0), -EPERM);
		assert_non_null(strstr(port_error(p), f->lockfile));
		assert_non_null(strstr(port_error(p), "uid 0"));
		assert_int_equal(stat(f->lockfile, &st), 0);
		assert_int_equal(st.st_uid, uid);
	}
	/* the port still works and the close still removes the lock */
	assert_int_equal(port_write(p, "x", 1), 1);
	port_close(p);
	assert_int_equal(stat(f->lockfile, &st), -1);
	assert_int_equal(errno, ENOENT);
}

static void a_lock_not_ours_is_not_handed_over(void **state)
{
	struct fixture *f = *state;
	struct port *p = open_ok(f);
	struct stat before, after;
	char other[16], tmp[PATH_MAX + 8];
	/* another process took the lock over meanwhile (PID 1 is alive) */
	int n = snprintf(other, sizeof(other), "%10d\n", 1);
	assert_int_equal(stat(f->lockfile, &before), 0);
	write_file(f->lockfile, other, (size_t)n);
	assert_int_equal(serial_lock_chown(p, getuid() + 1, getgid() + 1), -EBUSY);
	assert_non_null(strstr(port_error(p), f->lockfile));
	assert_non_null(strstr(port_error(p), "no longer names PID"));
	assert_int_equal(stat(f->lockfile, &after), 0);
	assert_int_equal(after.st_uid, before.st_uid);
	/* a symlink put in its place is not followed: its target keeps its
	 * owner */
	snprintf(tmp, sizeof(tmp), "%s/target", f->dir);
	write_file(tmp, other, (size_t)n);
	assert_int_equal(unlink(f->lockfile), 0);
	assert_int_equal(symlink(tmp, f->lockfile), 0);
	assert_int_equal(serial_lock_chown(p, getuid() + 1, getgid() + 1), -ELOOP);
	assert_non_null(strstr(port_error(p), f->lockfile));
	assert_int_equal(stat(tmp, &after), 0);
	assert_int_equal(after.st_uid, getuid());
	port_close(p);
	/* the close left the foreign "lock" alone */
	assert_int_equal(lstat(f->lockfile, &after), 0);
}

static void no_lock_nothing_to_hand_over(void **state)
{
	struct fixture *f = *state;
	f->cfg.lock_dir = "";
	struct port *p = open_ok(f);
	assert_int_equal(serial_lock_chown(p, getuid() + 1, getgid() + 1), 0);
	port_close(p);
	struct port *m = mockport_new("mock", NULL);
	assert_non_null(m);
	assert_int_equal(serial_lock_chown(m, getuid() + 1, getgid() + 1), 0);
	port_close(m);
}

static void read_master(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		assert_int_equal(poll(&pfd, 1, 2000), 1);
		ssize_t n = read(fd, buf + got, len - got);
		assert_true(n > 0);
		got += (size_t)n;
	}
}

static void every_byte_passes_both_ways(void **state)
{
	struct fixture *f = *state;
	struct port *p = open_ok(f);
	uint8_t all[256], got[256];
	for (int i = 0; i < 256; i++)
		all[i] = (uint8_t)i;

	/* port -> master: no output processing (CR, LF, ...) */
	assert_int_equal(port_write_all(p, all, sizeof(all), 1000000), 0);
	assert_int_equal(port_drain(p), 0);
	read_master(f->master, got, sizeof(got));
	assert_memory_equal(got, all, sizeof(all));

	/* master -> port: no input processing (^C, XON/XOFF, CR) */
	assert_int_equal(write(f->master, all, sizeof(all)), (ssize_t)sizeof(all));
	size_t n = 0;
	while (n < sizeof(got)) {
		ssize_t r = port_read(p, got + n, sizeof(got) - n, 2000000);
		assert_true(r > 0);
		n += (size_t)r;
	}
	assert_memory_equal(got, all, sizeof(all));
	/* nothing more: a read times out with 0 */
	assert_int_equal(port_read(p, got, 1, 1000), 0);
	port_close(p);
}

static void modem_lines_on_a_pty_are_remembered(void **state)
{
	struct fixture *f = *state;
	struct port *p = open_ok(f);
	unsigned lines = 0;
	assert_false(serial_has_modem_lines(p));
	assert_int_equal(port_set_lines(p, true, false), 0);
	assert_int_equal(port_get_lines(p, &lines), 0);
	assert_int_equal(lines & (PORT_LINE_DTR | PORT_LINE_RTS), PORT_LINE_DTR);
	assert_int_equal(port_set_lines(p, false, true), 0);
	assert_int_equal(port_get_lines(p, &lines), 0);
	assert_int_equal(lines & (PORT_LINE_DTR | PORT_LINE_RTS), PORT_LINE_RTS);
	port_close(p);
}

static void the_speed_switch_drains_then_reprograms(void **state)
{
	struct fixture *f = *state;
	f->cfg.usb = SERIAL_USB_YES;   /* default USB margin */
	struct port *p = open_ok(f);
	assert_true(serial_is_usb(p));
	assert_int_equal(serial_drain_margin_us(p), SERIAL_USB_DRAIN_MARGIN_US);
	uint64_t took = 0;
	assert_int_equal(port_write_all(p, "UA frame", 8, 1000000), 0);
	assert_int_equal(serial_switch_speed(p, 115200, &took), 0);
	assert_true(took >= SERIAL_USB_DRAIN_MARGIN_US);
	assert_int_equal(p->baud, 115200);
	uint8_t got[8];
	read_master(f->master, got, sizeof(got));
	assert_memory_equal(got, "UA frame", 8);
	/* a rate the tty cannot take: refused after the drain */
	assert_int_equal(serial_switch_speed(p, 100000, &took), -EINVAL);
	assert_int_equal(p->baud, 115200);
	port_close(p);

	f->cfg.usb = SERIAL_USB_AUTO;
	f->cfg.drain_margin_us = 2000;   /* chosen: wins over detection */
	p = open_ok(f);
	assert_int_equal(serial_drain_margin_us(p), 2000);
	port_close(p);
}

static void a_dongle_script_runs_with_real_sleeps(void **state)
{
	struct fixture *f = *state;
	struct port *p = open_ok(f);
	struct dongle d;
	struct dongle_script s;
	uint64_t took = 0;
	assert_int_equal(dongle_init(&d, "tekram:delay=2ms", f->err,
				     sizeof(f->err)), 0);
	dongle_script_init(&s);
	assert_int_equal(dongle_set_speed(&d, 9600, 38400, &s), 0);
	assert_int_equal(dongle_run(p, &s, &took), 0);
	/* real time: at least every wait of the script */
	assert_true(took >= dongle_script_wait_us(&s));
	struct termios t;
	assert_int_equal(tcgetattr(serial_fd(p), &t), 0);
	assert_int_equal(cfgetospeed(&t), B38400);
	/* the control byte went out on the line (0x12 = 38400) */
	uint8_t got;
	read_master(f->master, &got, 1);
	assert_int_equal(got, 0x12);
	port_close(p);
}

static void usb_bridges_are_detected_in_sysfs(void **state)
{
	struct fixture *f = *state;
	const char *name = strrchr(f->slave, '/') + 1;
	char path[PATH_MAX], cmd[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/sys/class/tty/%s/device", f->dir, name);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	assert_int_equal(system(cmd), 0);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/subsystem");
	assert_int_equal(symlink("../../../../../bus/usb-serial", path), 0);

	char root[128];
	snprintf(root, sizeof(root), "%s/sys", f->dir);
	f->cfg.sysfs_root = root;
	struct port *p = open_ok(f);
	assert_true(serial_is_usb(p));
	assert_int_equal(serial_drain_margin_us(p), SERIAL_USB_DRAIN_MARGIN_US);
	port_close(p);

	/* a platform UART (the 6.x serial-base bus): no margin */
	unlink(path);
	assert_int_equal(symlink("../../../../../bus/serial-base", path), 0);
	p = open_ok(f);
	assert_false(serial_is_usb(p));
	assert_int_equal(serial_drain_margin_us(p), 0);
	port_close(p);
}

static void open_errors_name_the_device(void **state)
{
	struct fixture *f = *state;
	struct port *p = NULL;
	assert_int_equal(serial_open("/dev/ttyNOSUCH9", &f->cfg, &p, f->err,
				     sizeof(f->err)), -ENOENT);
	assert_non_null(strstr(f->err, "/dev/ttyNOSUCH9"));
	assert_null(p);

	/* not a tty; its lock must not be left behind */
	assert_int_equal(serial_open("/dev/null", &f->cfg, &p, f->err,
				     sizeof(f->err)), -ENOTTY);
	assert_non_null(strstr(f->err, "/dev/null: not a terminal"));
	char lock[PATH_MAX];
	struct stat st;
	snprintf(lock, sizeof(lock), "%s/LCK..null", f->dir);
	assert_int_equal(stat(lock, &st), -1);

	/* a lock directory that does not exist */
	f->cfg.lock_dir = "/nonexistent-lock-dir";
	assert_int_equal(serial_open(f->slave, &f->cfg, &p, f->err,
				     sizeof(f->err)), -ENOENT);
	assert_non_null(strstr(f->err, "/nonexistent-lock-dir/LTMP."));

	/* no lock file at all */
	f->cfg.lock_dir = "";
	p = open_ok(f);
	assert_int_equal(stat(f->lockfile, &st), -1);
	port_close(p);
}

/* irwire's mark (serial.h): read on the slave of a marked pty, through
 * serial_open too (the open must not clear it); nowhere else. */
static void irwire_marks_its_ptys_and_nothing_else(void **state)
{
	struct fixture *f = *state;
	uint32_t us = 12345;

	struct port *p = open_ok(f);
	assert_int_equal(serial_irwire_min_tat(serial_fd(p), &us), 0);   /* a plain pty */
	assert_int_equal(serial_irwire_mark(f->master, 700), 0);
	assert_int_equal(serial_irwire_min_tat(serial_fd(p), &us), 1);
	assert_int_equal(us, 700);
	port_close(p);
	p = open_ok(f);                           /* a later open sees it as well */
	us = 0;
	assert_int_equal(serial_irwire_min_tat(serial_fd(p), &us), 1);
	assert_int_equal(us, 700);
	/* the master is no slave, and /dev/null no pty */
	assert_int_equal(serial_irwire_min_tat(f->master, &us), 0);
	int null = open("/dev/null", O_RDWR);
	assert_true(null >= 0);
	assert_int_equal(serial_irwire_min_tat(null, &us), 0);
	close(null);
	/* more than IrLAP can ask for is its largest */
	assert_int_equal(serial_irwire_mark(serial_fd(p), 20000), 0);
	assert_int_equal(serial_irwire_min_tat(serial_fd(p), &us), 1);
	assert_int_equal(us, 10000);
	/* a mark of another version, or a terminal's own size, is no mark */
	struct winsize ws = { .ws_row = SERIAL_IRWIRE_MARK_ROWS, .ws_col = SERIAL_IRWIRE_MARK_COLS,
			      .ws_xpixel = SERIAL_IRWIRE_MARK_VERSION + 1, .ws_ypixel = 10 };
	assert_int_equal(ioctl(f->master, TIOCSWINSZ, &ws), 0);
	assert_int_equal(serial_irwire_min_tat(serial_fd(p), &us), 0);
	ws = (struct winsize){ .ws_row = 24, .ws_col = 80 };
	assert_int_equal(ioctl(f->master, TIOCSWINSZ, &ws), 0);
	assert_int_equal(serial_irwire_min_tat(serial_fd(p), &us), 0);
	port_close(p);
	assert_int_equal(serial_irwire_min_tat(-1, &us), -EBADF);
}

static void accessors_refuse_other_ports(void **state)
{
	struct port *m = mockport_new("mock", NULL);
	assert_non_null(m);
	assert_int_equal(serial_fd(m), -1);
	assert_false(serial_is_usb(m));
	port_close(m);
}

static void classifies_sysfs_subsystems(void **state)
{
	static const struct {
		const char *link;
		bool usb;
	} cases[] = {
		{ "../../../../bus/usb-serial", true },
		{ "../../../../../../bus/usb", true },
		{ "usb", true },
		{ "../../../bus/serial-base", false },
		{ "../../bus/platform", false },
		{ "../../bus/pnp", false },
		{ "../usb/x", false },
		{ "../../bus/usb-serial-but-much-longer", false },
		{ "../../bus/", false },
		{ "", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(serial_subsystem_is_usb(cases[i].link,
							 strlen(cases[i].link)),
				 cases[i].usb);
	/* not NUL-terminated: only len bytes count */
	assert_true(serial_subsystem_is_usb("bus/usbXXXX", 7));
}

static void names_lock_files(void **state)
{
	char buf[64];
	assert_true(uucplock_name("/dev/ttyUSB0", buf, sizeof(buf)));
	assert_string_equal(buf, "LCK..ttyUSB0");
	assert_true(uucplock_name("/dev/pts/3", buf, sizeof(buf)));
	assert_string_equal(buf, "LCK..pts_3");
	assert_true(uucplock_name("/home/x/ttyFAKE", buf, sizeof(buf)));
	assert_string_equal(buf, "LCK..ttyFAKE");
	assert_true(uucplock_name("ttyS0", buf, sizeof(buf)));
	assert_string_equal(buf, "LCK..ttyS0");
	assert_false(uucplock_name("/dev/", buf, sizeof(buf)));
	assert_false(uucplock_name("/dev/ttyUSB0", buf, 12));
}

static void parses_lock_contents(void **state)
{
	static const struct {
		const char *text;
		pid_t pid;   /* 0: rejected */
	} cases[] = {
		{ "      1234\n", 1234 }, { "1234", 1234 }, { " 42 \r\n", 42 },
		{ "\t7\n", 7 }, { "2147483647\n", 2147483647 },
		{ "0\n", 0 }, { "", 0 }, { "\n", 0 }, { "abc\n", 0 },
		{ "12 34\n", 0 }, { "12\n\n", 0 }, { "-5\n", 0 },
		{ "2147483648\n", 0 }, { "99999999999999999999999\n", 0 },
		{ "12x\n", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pid_t pid = -1;
		bool ok = uucplock_parse(cases[i].text, strlen(cases[i].text), &pid);
		if (ok != (cases[i].pid != 0))
			fail_msg("'%s': parse %s", cases[i].text,
				 ok ? "accepted" : "rejected");
		if (ok)
			assert_int_equal(pid, cases[i].pid);
	}
	/* the legacy binary form: one native int */
	int32_t bin = 4321;
	pid_t pid;
	assert_true(uucplock_parse(&bin, sizeof(bin), &pid));
	assert_int_equal(pid, 4321);
	bin = -1;
	assert_false(uucplock_parse(&bin, sizeof(bin), &pid));
	bin = 4194305;
	assert_false(uucplock_parse(&bin, sizeof(bin), &pid));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(opens_raw_8n1_and_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(sets_and_reads_back_every_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(the_lock_file_holds_our_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(a_second_open_is_refused_by_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(a_stale_lock_is_taken_over, setup, teardown),
		cmocka_unit_test_setup_teardown(the_lock_is_handed_to_a_user, setup, teardown),
		cmocka_unit_test_setup_teardown(a_lock_not_ours_is_not_handed_over, setup, teardown),
		cmocka_unit_test_setup_teardown(no_lock_nothing_to_hand_over, setup, teardown),
		cmocka_unit_test_setup_teardown(every_byte_passes_both_ways, setup, teardown),
		cmocka_unit_test_setup_teardown(modem_lines_on_a_pty_are_remembered, setup, teardown),
		cmocka_unit_test_setup_teardown(the_speed_switch_drains_then_reprograms, setup, teardown),
		cmocka_unit_test_setup_teardown(a_dongle_script_runs_with_real_sleeps, setup, teardown),
		cmocka_unit_test_setup_teardown(usb_bridges_are_detected_in_sysfs, setup, teardown),
		cmocka_unit_test_setup_teardown(open_errors_name_the_device, setup, teardown),
		cmocka_unit_test_setup_teardown(irwire_marks_its_ptys_and_nothing_else, setup,
						teardown),
		cmocka_unit_test(accessors_refuse_other_ports),
		cmocka_unit_test(classifies_sysfs_subsystems),
		cmocka_unit_test(names_lock_files),
		cmocka_unit_test(parses_lock_contents),
	};
	return cmocka_run_group_tests_name("serial", tests, NULL, NULL);
}
