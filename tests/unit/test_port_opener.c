/*
 * test_port_opener.c: the port opener's removal of irdad's pty links
 * (port_opener.h), which it does as root for a daemon that dropped it.
 * What matters is what it refuses: a compromised daemon names a link
 * only by its index in the list fixed at the fork, and the helper
 * removes it only while it is still a symbolic link to the recorded pty.
 *  - port_opener_check_link: a link to the target passes; a regular file,
 *    a directory, a link elsewhere (also to a longer or shorter name) are
 *    -ESTALE; a missing path is -ENOENT;
 *  - through a real helper under its own seccomp filter (no root needed:
 *    the links are in a directory of ours): a link still ours is removed;
 *    one replaced by a regular file or by a link to another file is
 *    refused with -ESTALE and left as it is; a second removal is -ENOENT;
 *    an index beyond the list is -EINVAL; the helper survives all of it
 *    (none of its calls is outside its filter) and still answers an open.
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
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "port_opener.h"

/* A temporary directory and names in it. */
struct dir {
	char path[64];
	char name[6][96];
};

static int make_dir(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	snprintf(d->path, sizeof(d->path), "/tmp/test_port_opener.XXXXXX");
	assert_non_null(mkdtemp(d->path));
	for (size_t i = 0; i < 6; i++)
		snprintf(d->name[i], sizeof(d->name[i]), "%s/n%zu", d->path, i);
	*state = d;
	return 0;
}

static int remove_dir(void **state)
{
	struct dir *d = *state;

	for (size_t i = 0; i < 6; i++) {
		unlink(d->name[i]);
		rmdir(d->name[i]);
	}
	rmdir(d->path);
	free(d);
	return 0;
}

static void write_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
}

static void check_link_refuses_what_is_not_the_link(void **state)
{
	struct dir *d = *state;

	assert_int_equal(symlink("/dev/pts/7", d->name[0]), 0);
	assert_int_equal(port_opener_check_link(d->name[0], "/dev/pts/7"), 0);
	/* a link elsewhere, also to a name that only begins or ends alike */
	assert_int_equal(port_opener_check_link(d->name[0], "/dev/pts/70"), -ESTALE);
	assert_int_equal(port_opener_check_link(d->name[0], "/dev/pts/"), -ESTALE);
	assert_int_equal(port_opener_check_link(d->name[0], "/etc/shadow"), -ESTALE);
	write_file(d->name[1]);
	assert_int_equal(port_opener_check_link(d->name[1], "/dev/pts/7"), -ESTALE);
	assert_int_equal(mkdir(d->name[2], 0755), 0);
	assert_int_equal(port_opener_check_link(d->name[2], "/dev/pts/7"), -ESTALE);
	assert_int_equal(port_opener_check_link(d->name[3], "/dev/pts/7"), -ENOENT);
}

static void helper_removes_only_its_own_links(void **state)
{
	struct dir *d = *state;
	/* targets need not exist: the helper compares the link's text */
	struct port_opener_link links[4] = {
		{ d->name[0], "/dev/pts/100" },
		{ d->name[1], "/dev/pts/101" },
		{ d->name[2], "/dev/pts/102" },
		{ d->name[3], "/dev/pts/103" },
	};
	struct port_opener *o;
	char err[200], target[64];
	struct stat st;
	int status;
	ssize_t n;

	for (size_t i = 0; i < 4; i++)
		assert_int_equal(symlink(links[i].target, links[i].path), 0);
	assert_int_equal(port_opener_start("/dev/null", links, 4, true, &o, err, sizeof(err)), 0);
	/* after the fork, the daemon (now untrusted) swaps two of them */
	assert_int_equal(unlink(d->name[1]), 0);
	write_file(d->name[1]);
	assert_int_equal(unlink(d->name[2]), 0);
	assert_int_equal(symlink(d->name[4], d->name[2]), 0);
	write_file(d->name[4]);

	assert_int_equal(port_opener_unlink(o, 0), 0);
	assert_int_equal(lstat(d->name[0], &st), -1);
	assert_int_equal(errno, ENOENT);

	assert_int_equal(port_opener_unlink(o, 1), -ESTALE);
	assert_int_equal(lstat(d->name[1], &st), 0);
	assert_true(S_ISREG(st.st_mode));

	assert_int_equal(port_opener_unlink(o, 2), -ESTALE);
	assert_int_equal(lstat(d->name[2], &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	n = readlink(d->name[2], target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, d->name[4]);
	assert_int_equal(stat(d->name[4], &st), 0); /* what it led to is untouched */

	assert_int_equal(port_opener_unlink(o, 3), 0);
	assert_int_equal(port_opener_unlink(o, 3), -ENOENT);
	assert_int_equal(port_opener_unlink(o, 4), -EINVAL);
	assert_int_equal(port_opener_unlink(o, 254), -EINVAL);
	assert_int_equal(port_opener_unlink(o, 100000), -EINVAL);

	/* alive, still under its filter's limits, and still an opener */
	assert_int_equal(waitpid(port_opener_pid(o), &status, WNOHANG), 0);
	assert_int_equal(port_opener_open(o, NULL), -ENOTTY);
	pid_t pid = port_opener_pid(o);
	port_opener_free(o);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void too_many_links_are_refused_at_the_start(void **state)
{
	static struct port_opener_link links[PORT_OPENER_LINKS_MAX + 1];
	struct port_opener *o = (struct port_opener *)&o;
	char err[200];

	(void)state;
	assert_int_equal(port_opener_start("/dev/null", links, PORT_OPENER_LINKS_MAX + 1, true,
					   &o, err, sizeof(err)),
			 -E2BIG);
	assert_null(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(check_link_refuses_what_is_not_the_link, make_dir,
						remove_dir),
		cmocka_unit_test_setup_teardown(helper_removes_only_its_own_links, make_dir,
						remove_dir),
		cmocka_unit_test(too_many_links_are_refused_at_the_start),
	};

	return cmocka_run_group_tests_name("port_opener", tests, NULL, NULL);
}
