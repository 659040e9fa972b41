/*
 * uucplock.c: UUCP-style lock files.  See uucplock.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "uucplock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cursor.h"

/* Enough for every format we accept plus some blanks; a longer file is
 * not a lock file we understand. */
#define LOCK_CONTENT_MAX 64
#define TAKEOVER_ATTEMPTS 3
/* Linux's PID_MAX_LIMIT: a binary lock above it is text, not a PID
 * (four ASCII bytes such as "abc\n" would otherwise read as one). */
#define BINARY_PID_MAX 4194304

bool uucplock_name(const char *device, char *buf, size_t cap)
{
	const char *name = device;
	if (strncmp(device, "/dev/", 5) == 0) {
		name = device + 5;
	} else {
		const char *slash = strrchr(device, '/');
		if (slash)
			name = slash + 1;
	}
	size_t len = strlen(name);
	if (len == 0 || 5 + len + 1 > cap)
		return false;
	memcpy(buf, "LCK..", 5);
	for (size_t i = 0; i < len; i++)
		buf[5 + i] = name[i] == '/' ? '_' : name[i];
	buf[5 + len] = '\0';
	return true;
}

static bool parse_ascii(struct cursor *c, pid_t *pid)
{
	uint64_t v;
	cursor_skip_blanks(c);
	if (!cursor_parse_u64(c, &v))
		return false;
	cursor_skip_blanks(c);
	/* at most one line end */
	if (!cursor_literal(c, "\r\n"))
		cursor_literal(c, "\n");
	if (!cursor_ok(c) || !cursor_at_end(c) || v == 0 || v > INT_MAX)
		return false;
	*pid = (pid_t)v;
	return true;
}

bool uucplock_parse(const void *data, size_t len, pid_t *pid)
{
	struct cursor c;
	cursor_init(&c, data, len);
	if (parse_ascii(&c, pid))
		return true;
	/* the old binary format: one native int */
	int32_t bin;
	cursor_init(&c, data, len);
	if (len != sizeof(bin) || !cursor_copy(&c, &bin, sizeof(bin)) ||
	    bin <= 0 || bin > BINARY_PID_MAX)
		return false;
	*pid = (pid_t)bin;
	return true;
}

/* Reads a lock file; returns its length, or -errno. */
static ssize_t read_lock(const char *path, uint8_t *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, cap);
	int e = errno;
	close(fd);
	return n < 0 ? -e : n;
}

/* Whether a lock file's content (n bytes, or -errno) names pid. */
static bool names_pid(const uint8_t *buf, ssize_t n, size_t cap, pid_t pid)
{
	pid_t owner;
	return n > 0 && (size_t)n < cap && uucplock_parse(buf, (size_t)n, &owner) &&
	       owner == pid;
}

static bool process_alive(pid_t pid)
{
	/* EPERM: it exists but belongs to another user */
	return kill(pid, 0) == 0 || errno == EPERM;
}

static int write_temp(const char *tmp, pid_t pid, char *err, size_t errlen)
{
	char content[16];
	int len = snprintf(content, sizeof(content), "%10d\n", (int)pid);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot create lock file %s: %s", tmp,
			 strerror(e));
		return -e;
	}
	ssize_t n = write(fd, content, (size_t)len);
	int e = n < 0 ? errno : EIO;
	if (close(fd) < 0 && n == len) {
		n = -1;
		e = errno;
	}
	if (n != len) {
		snprintf(err, errlen, "cannot write lock file %s: %s", tmp,
			 strerror(e));
		unlink(tmp);
		return -e;
	}
	return 0;
}

/* One look at an existing lock: -EBUSY if it is live, 0 if it was stale
 * and is gone now (try again), another -errno on failure. */
static int check_existing(const char *path, const char *device,
			  const struct logger *log, char *err, size_t errlen)
{
	uint8_t buf[LOCK_CONTENT_MAX];
	ssize_t n = read_lock(path, buf, sizeof(buf));
	if (n == -ENOENT)
		return 0;   /* removed meanwhile */
	if (n < 0) {
		snprintf(err, errlen, "%s: cannot read lock file %s: %s",
			 device, path, strerror((int)-n));
		return (int)n;
	}
	pid_t owner;
	bool valid = (size_t)n < sizeof(buf) &&
		     uucplock_parse(buf, (size_t)n, &owner);
	if (valid && process_alive(owner)) {
		snprintf(err, errlen, "%s is locked by PID %d (%s)", device,
			 (int)owner, path);
		return -EBUSY;
	}
	if (valid)
		log_msg(log, LOG_LEVEL_INFO,
			"%s: removing stale lock %s of PID %d, which no longer exists",
			device, path, (int)owner);
	else
		log_msg(log, LOG_LEVEL_WARNING,
			"%s: removing lock %s: its content is not a PID",
			device, path);
	if (unlink(path) < 0 && errno != ENOENT) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot remove stale lock %s: %s",
			 device, path, strerror(e));
		return -e;
	}
	return 0;
}

int uucplock_acquire(struct uucplock *lk, const char *lock_dir,
		     const char *device, const struct logger *log,
		     char *err, size_t errlen)
{
	char name[NAME_MAX + 1], tmp[PATH_MAX];
	memset(lk, 0, sizeof(*lk));
	if (!lock_dir)
		lock_dir = UUCPLOCK_DEFAULT_DIR;
	lk->pid = getpid();
	if (!uucplock_name(device, name, sizeof(name))) {
		snprintf(err, errlen, "%s: no lock file name for this device",
			 device);
		return -EINVAL;
	}
	int len = snprintf(lk->path, sizeof(lk->path), "%s/%s", lock_dir, name);
	int tlen = snprintf(tmp, sizeof(tmp), "%s/LTMP.%d", lock_dir,
			    (int)lk->pid);
	if (len < 0 || (size_t)len >= sizeof(lk->path) || tlen < 0 ||
	    (size_t)tlen >= sizeof(tmp)) {
		snprintf(err, errlen, "%s: lock directory path too long", device);
		return -ENAMETOOLONG;
	}
	unlink(tmp);   /* left over from a crashed earlier run of this PID */
	int r = write_temp(tmp, lk->pid, err, errlen);
	if (r < 0)
		return r;
	r = -EBUSY;
	for (int attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt++) {
		if (link(tmp, lk->path) == 0) {
			r = 0;
			break;
		}
		if (errno != EEXIST) {
			r = -errno;
			snprintf(err, errlen, "%s: cannot create lock file %s: %s",
				 device, lk->path, strerror(-r));
			break;
		}
		r = check_existing(lk->path, device, log, err, errlen);
		if (r < 0)
			break;
		r = -EBUSY;
		snprintf(err, errlen, "%s: lock file %s keeps reappearing",
			 device, lk->path);
	}
	unlink(tmp);
	if (r == 0) {
		lk->held = true;
		log_msg(log, LOG_LEVEL_DEBUG, "%s: locked with %s", device,
			lk->path);
	}
	return r;
}

int uucplock_chown(const struct uucplock *lk, uid_t uid, gid_t gid,
		   char *err, size_t errlen)
{
	if (!lk->held)
		return 0;
	/* the descriptor pins the file that was checked: a symlink or a
	 * lock put in its place meanwhile is never the one changed */
	int fd = open(lk->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot open lock file %s: %s", lk->path,
			 strerror(e));
		return -e;
	}
	uint8_t buf[LOCK_CONTENT_MAX];
	ssize_t n = read(fd, buf, sizeof(buf));
	int r = 0;
	if (n < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot read lock file %s: %s", lk->path,
			 strerror(-r));
	} else if (!names_pid(buf, n, sizeof(buf), lk->pid)) {
		r = -EBUSY;
		snprintf(err, errlen, "lock file %s no longer names PID %d",
			 lk->path, (int)lk->pid);
	} else if (fchown(fd, uid, gid) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot give lock file %s to uid %u gid %u: %s",
			 lk->path, (unsigned)uid, (unsigned)gid, strerror(-r));
	}
	close(fd);
	return r;
}

void uucplock_release(struct uucplock *lk)
{
	if (!lk->held)
		return;
	uint8_t buf[LOCK_CONTENT_MAX];
	ssize_t n = read_lock(lk->path, buf, sizeof(buf));
	/* never remove a lock another process took over meanwhile */
	if (names_pid(buf, n, sizeof(buf), lk->pid))
		unlink(lk->path);
	lk->held = false;
}
