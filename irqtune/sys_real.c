/*
 * sys_real.c: the real system behind struct irqtune_sys.  See sys.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/serial.h>
#include <linux/tty_flags.h>
#if defined(__x86_64__) || defined(__i386__)
#include <sys/io.h>
#endif

/* Maps "/proc/..." below proc_root when one is set. */
static int map_path(const struct irqtune_sys_real *r, const char *path,
		    char *out, size_t cap)
{
	int n;
	if (r->proc_root[0] && strncmp(path, "/proc", 5) == 0 &&
	    (path[5] == '/' || path[5] == '\0'))
		n = snprintf(out, cap, "%s%s", r->proc_root, path + 5);
	else
		n = snprintf(out, cap, "%s", path);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

static int real_read_file(void *ctx, const char *path, char *buf, size_t cap,
			  size_t *len)
{
	char p[PATH_MAX];
	int rc = map_path(ctx, path, p, sizeof(p));
	*len = 0;
	if (cap)
		buf[0] = '\0';
	if (rc)
		return rc;
	if (cap < 2)
		return -EFBIG;
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t got = 0;
	for (;;) {
		ssize_t n = read(fd, buf + got, cap - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got == cap - 1) {
			char extra;
			ssize_t m = read(fd, &extra, 1);
			if (m > 0)
				rc = -EFBIG;
			break;
		}
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return rc;
}

static int real_write_file(void *ctx, const char *path, const char *text)
{
	char p[PATH_MAX];
	int rc = map_path(ctx, path, p, sizeof(p));
	if (rc)
		return rc;
	int fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	ssize_t n;
	do
		n = write(fd, text, len);
	while (n < 0 && errno == EINTR);
	rc = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

static int real_list_dir(void *ctx, const char *path, irqtune_dir_fn fn,
			 void *arg)
{
	char p[PATH_MAX];
	int rc = map_path(ctx, path, p, sizeof(p));
	if (rc)
		return rc;
	DIR *d = opendir(p);
	if (!d)
		return -errno;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		rc = fn(arg, e->d_name);
		if (rc)
			break;
	}
	closedir(d);
	return rc;
}

static int real_get_sched(void *ctx, int pid, struct irqtune_sched *out)
{
	struct sched_param sp;
	int policy = sched_getscheduler(pid);
	if (policy < 0 || sched_getparam(pid, &sp) < 0)
		return -errno;
	out->policy = policy & ~SCHED_RESET_ON_FORK;
	out->prio = sp.sched_priority;
	return 0;
}

static int real_set_sched(void *ctx, int pid, const struct irqtune_sched *s)
{
	struct sched_param sp = { .sched_priority = s->prio };
	return sched_setscheduler(pid, s->policy, &sp) < 0 ? -errno : 0;
}

/* Serial ioctls open the node without becoming its controlling tty and
 * without waiting for carrier. */
static int open_tty(const char *devnode)
{
	int fd = open(devnode, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int real_get_low_latency(void *ctx, const char *devnode, bool *on)
{
	struct serial_struct ss;
	int fd = open_tty(devnode), rc = 0;
	if (fd < 0)
		return fd;
	memset(&ss, 0, sizeof(ss));
	if (ioctl(fd, TIOCGSERIAL, &ss) < 0)
		rc = -errno;
	else
		*on = (ss.flags & ASYNC_LOW_LATENCY) != 0;
	close(fd);
	return rc;
}

static int real_set_low_latency(void *ctx, const char *devnode, bool on)
{
	struct serial_struct ss;
	int fd = open_tty(devnode), rc = 0;
	if (fd < 0)
		return fd;
	memset(&ss, 0, sizeof(ss));
	if (ioctl(fd, TIOCGSERIAL, &ss) < 0) {
		rc = -errno;
	} else {
		if (on)
			ss.flags |= ASYNC_LOW_LATENCY;
		else
			ss.flags &= ~ASYNC_LOW_LATENCY;
		if (ioctl(fd, TIOCSSERIAL, &ss) < 0)
			rc = -errno;
	}
	close(fd);
	return rc;
}

static int real_get_icount(void *ctx, const char *devnode,
			   struct irqtune_icount *out)
{
	struct serial_icounter_struct ic;
	int fd = open_tty(devnode), rc = 0;
	if (fd < 0)
		return fd;
	memset(&ic, 0, sizeof(ic));
	if (ioctl(fd, TIOCGICOUNT, &ic) < 0) {
		rc = -errno;
	} else {
		out->rx = (uint32_t)ic.rx;
		out->tx = (uint32_t)ic.tx;
		out->frame = (uint32_t)ic.frame;
		out->overrun = (uint32_t)ic.overrun;
		out->parity = (uint32_t)ic.parity;
		out->brk = (uint32_t)ic.brk;
		out->buf_overrun = (uint32_t)ic.buf_overrun;
	}
	close(fd);
	return rc;
}

static int real_port_out(void *ctx, unsigned port, uint8_t value)
{
#if defined(__x86_64__) || defined(__i386__)
	if (port > 0xffff)
		return -EINVAL;
	if (ioperm(port, 1, 1) < 0)
		return -errno;
	outb(value, (unsigned short)port);
	ioperm(port, 1, 0);
	return 0;
#else
	return -ENOSYS;
#endif
}

static const struct irqtune_sys_ops real_ops = {
	.read_file = real_read_file,
	.write_file = real_write_file,
	.list_dir = real_list_dir,
	.get_sched = real_get_sched,
	.set_sched = real_set_sched,
	.get_low_latency = real_get_low_latency,
	.set_low_latency = real_set_low_latency,
	.get_icount = real_get_icount,
	.port_out = real_port_out,
};

int irqtune_sys_real_init(struct irqtune_sys *sys,
			  struct irqtune_sys_real *real, const char *proc_root)
{
	real->proc_root[0] = '\0';
	if (proc_root) {
		int n = snprintf(real->proc_root, sizeof(real->proc_root),
				 "%s", proc_root);
		if (n < 0 || (size_t)n >= sizeof(real->proc_root))
			return -ENAMETOOLONG;
	}
	sys->ops = &real_ops;
	sys->ctx = real;
	return 0;
}
