/*
 * fileio.c: see fileio.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
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
