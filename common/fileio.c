/*
 * fileio.c: see fileio.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"

/* size_hint: the expected size (a regular file's st_size), so that the
 * common case reads into one allocation. */
static int read_fd(int fd, size_t max_len, size_t size_hint, uint8_t **data, size_t *len)
{
	uint8_t *buf = NULL;
	size_t cap = 0, used = 0;
	size_t initial = size_hint && size_hint < max_len ? size_hint + 1 : 65536;

	for (;;) {
		/* +1 keeps room for the terminating NUL */
		uint8_t *grown = array_grow(buf, &cap, used + 1, 1, initial);
		if (!grown) {
			free(buf);
			return -ENOMEM;
		}
		buf = grown;
		ssize_t n = read(fd, buf + used, cap - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;
			free(buf);
			return err;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max_len) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[used] = '\0';
	*data = buf;
	*len = used;
	return 0;
}

int file_read_all(const char *path, size_t max_len, uint8_t **data, size_t *len)
{
	struct stat st;
	*data = NULL;
	*len = 0;
	if (strcmp(path, "-") == 0)
		return read_fd(STDIN_FILENO, max_len, 0, data, len);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = fstat(fd, &st) < 0 ? -errno : S_ISDIR(st.st_mode) ? -EISDIR : 0;
	if (rc == 0)
		rc = read_fd(fd, max_len, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, data, len);
	close(fd);
	return rc;
}

/* Start writeback after this many bytes: large enough to be cheap, small
 * enough that the disk works while the program is still producing. */
#define WRITEBACK_CHUNK ((off_t)8 << 20)

struct output_stream {
	int fd;
	off_t written;      /* bytes written through the stream */
	off_t flushed;      /* writeback started up to here */
};

static ssize_t output_stream_write(void *cookie, const char *buf, size_t n)
{
	struct output_stream *o = cookie;
	int rc = fd_write_all(o->fd, buf, n);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	o->written += (off_t)n;
	if (o->written - o->flushed >= WRITEBACK_CHUNK) {
		/* Asynchronous and advisory: a failure here changes nothing,
		 * fsync still makes the file durable. */
		sync_file_range(o->fd, o->flushed, o->written - o->flushed, SYNC_FILE_RANGE_WRITE);
		o->flushed = o->written;
	}
	return (ssize_t)n;
}

static int output_stream_close(void *cookie)
{
	free(cookie);
	return 0;
}

FILE *fd_output_stream(int fd)
{
	struct output_stream *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->fd = fd;
	const cookie_io_functions_t io = { .write = output_stream_write, .close = output_stream_close };
	FILE *f = fopencookie(o, "w", io);
	if (!f) {
		free(o);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	return f;
}

int fd_write_all(int fd, const void *data, size_t n)
{
	const uint8_t *p = data;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_in_place(const char *path, file_fill_fn fill, void *ctx, const char **step)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		*step = "opening";
		return -errno;
	}
	int rc = fill(fd, ctx);
	if (rc < 0)
		*step = "writing";
	if (close(fd) < 0 && rc == 0) {
		*step = "writing";
		rc = -errno;
	}
	return rc;
}

/* fsync of the directory holding path, so the rename itself is durable.
 * Best effort: some file systems refuse fsync on directories. */
static void sync_parent_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
	} else {
		size_t n = slash == path ? 1 : (size_t)(slash - path);
		if (n >= sizeof(dir))
			return;
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
}

static int replace_by_rename(const char *target, mode_t mode, file_fill_fn fill, void *ctx,
			     const char **step)
{
	char tmp[PATH_MAX];
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", target) >= sizeof(tmp)) {
		*step = "naming a temporary file";
		return -ENAMETOOLONG;
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		*step = "creating a temporary file beside it";
		return -errno;
	}
	/* mkstemp creates 0600; give the file the mode asked for. */
	mode_t mask = umask(0);
	umask(mask);
	int rc = fchmod(fd, mode & ~mask) < 0 ? -errno : 0;
	if (rc < 0)
		*step = "setting the mode of the temporary file";
	if (rc == 0 && (rc = fill(fd, ctx)) < 0)
		*step = "writing";
	if (rc == 0 && fsync(fd) < 0) {
		*step = "writing";
		rc = -errno;
	}
	if (close(fd) < 0 && rc == 0) {
		*step = "writing";
		rc = -errno;
	}
	if (rc == 0 && rename(tmp, target) < 0) {
		*step = "replacing the file";
		rc = -errno;
	}
	if (rc < 0) {
		unlink(tmp);
		return rc;
	}
	sync_parent_dir(target);
	return 0;
}

int file_write_atomic(const char *path, mode_t mode, file_fill_fn fill, void *ctx,
		      const char **step)
{
	const char *unused;
	struct stat st;
	if (!step)
		step = &unused;
	*step = NULL;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			*step = "opening";
			return -EISDIR;
		}
		if (!S_ISREG(st.st_mode))
			return write_in_place(path, fill, ctx, step);
	}
	/* A symbolic link keeps pointing where it did: replace its target. */
	char *real = realpath(path, NULL);
	int rc = replace_by_rename(real ? real : path, mode, fill, ctx, step);
	free(real);
	return rc;
}
