/*
 * test_path_watch.c: waiting for a device path to come back (path_watch.h)
 * on real directories, in real time (about 6 s: the rate limit is 1 s).
 *
 *  - a start calls back at once (the device may be back already);
 *  - the path's name created as a symlink, or moved in by rename (as
 *    irwire and udev make links), calls back; another name in the same
 *    directory does not;
 *  - the target's name in its own directory calls back (a link that
 *    stays while its device node comes and goes);
 *  - two events within the interval make one call, not before the
 *    interval is over;
 *  - after a stop, nothing calls back.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eloop.h"
#include "path_watch.h"

struct fix {
	struct eloop *loop;
	struct path_watch *pw;
	char dir[64], dir2[80];
	uint64_t calls;
	uint64_t call_at[8];
};

static void on_call(void *ctx)
{
	struct fix *f = ctx;

	if (f->calls < 8)
		f->call_at[f->calls] = eloop_now_us();
	f->calls++;
}

/* Runs the loop for us microseconds. */
static void run_for(struct fix *f, uint64_t us)
{
	uint64_t end = eloop_now_us() + us;

	for (uint64_t now = eloop_now_us(); now < end; now = eloop_now_us())
		assert_true(eloop_run_once(f->loop, end - now) >= 0);
}

/* Runs the loop until the calls reach n, 3 s at most. */
static void run_until(struct fix *f, uint64_t n)
{
	uint64_t end = eloop_now_us() + 3000000u;

	while (f->calls < n && eloop_now_us() < end)
		assert_true(eloop_run_once(f->loop, 50000) >= 0);
	assert_int_equal(f->calls, n);
}

static void path(char *buf, size_t cap, const char *dir, const char *name)
{
	assert_true(snprintf(buf, cap, "%s/%s", dir, name) < (int)cap);
}

static void touch(const char *dir, const char *name)
{
	char p[128];
	FILE *fp;

	path(p, sizeof(p), dir, name);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fclose(fp);
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	char err[200];

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_path_watch.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	path(f->dir2, sizeof(f->dir2), f->dir, "pts");
	assert_int_equal(mkdir(f->dir2, 0755), 0);
	f->loop = eloop_new(NULL);
	assert_non_null(f->loop);
	assert_int_equal(path_watch_new(f->loop, NULL, on_call, f, &f->pw, err, sizeof(err)), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	char cmd[128];

	path_watch_free(f->pw);
	eloop_free(f->loop);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static void names_and_rate(void **state)
{
	struct fix *f = *state;
	char dev[128], tmp[128], target[128], err[200];

	path(dev, sizeof(dev), f->dir, "dev-a");
	path(tmp, sizeof(tmp), f->dir, "dev-a.tmp");
	path(target, sizeof(target), f->dir2, "7");
	assert_int_equal(path_watch_start(f->pw, dev, target, err, sizeof(err)), 0);
	run_until(f, 1);   /* at once */

	/* another name: nothing, even after the interval */
	touch(f->dir, "other");
	touch(f->dir2, "8");
	run_for(f, PATH_WATCH_MIN_INTERVAL_US + 300000u);
	assert_int_equal(f->calls, 1);

	/* the link made as irwire makes it: a symlink moved into place */
	assert_int_equal(symlink(target, tmp), 0);
	assert_int_equal(rename(tmp, dev), 0);
	run_until(f, 2);

	/* the target created, then its attributes changed, within the
	 * interval: one call, not before the interval is over */
	touch(f->dir2, "7");
	assert_int_equal(chmod(target, 0600), 0);
	run_until(f, 3);
	assert_true(f->call_at[2] - f->call_at[1] >= PATH_WATCH_MIN_INTERVAL_US);
	run_for(f, PATH_WATCH_MIN_INTERVAL_US + 300000u);
	assert_int_equal(f->calls, 3);
	assert_int_equal(path_watch_calls(f->pw), 3);

	/* stopped: the link made again calls nobody */
	path_watch_stop(f->pw);
	assert_int_equal(unlink(dev), 0);
	assert_int_equal(symlink(target, dev), 0);
	run_for(f, PATH_WATCH_MIN_INTERVAL_US + 300000u);
	assert_int_equal(f->calls, 3);
}

static void bad_directory(void **state)
{
	struct fix *f = *state;
	char err[200];

	assert_true(path_watch_start(f->pw, "/nonexistent-dir/ttyUSB0", NULL, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "/nonexistent-dir: cannot watch"));
	run_for(f, 200000u);
	assert_int_equal(f->calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(names_and_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_directory, setup, teardown),
	};
	return cmocka_run_group_tests_name("path_watch", tests, NULL, NULL);
}
