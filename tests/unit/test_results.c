/*
 * test_results.c: the result-set model and its JSON file: round trips,
 * the atomic save, and every kind of bad file.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "results.h"

static char tmpdir[64];

static int setup_dir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_results.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char path[400];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	return rmdir(tmpdir);
}

static void path_in_tmp(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/%s", tmpdir, name);
}

static size_t files_in_tmp(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	size_t n = 0;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void make_sample(struct xfer_sets *sets)
{
	struct xfer_set a, b;
	xfer_set_init(&a);
	xfer_set_init(&b);
	assert_true(xfer_set_set_label(&a, "irqtune \"on\"\n\\ \x01 \xc3\xa9"));
	assert_true(xfer_set_set_source(&a, "ftp://127.0.0.1:2121/zero.bin"));
	assert_true(xfer_set_set_tool(&a, "xferstat"));
	assert_true(xfer_set_set_direction(&a, "get"));
	struct xfer_run r = { .bytes = 1048576, .seconds = 0.1, .setup_seconds = NAN };
	assert_true(xfer_set_add_run(&a, &r));
	r.bytes = UINT64_C(9223372036854775813);   /* above INT64_MAX */
	r.seconds = 1.0 / 3.0;
	r.setup_seconds = 2.5e-7;
	r.block_size = 65536;
	r.link = (struct xfer_link){ true, 1, 2, 3, 4, 5, 6, 7, UINT64_MAX };
	assert_true(xfer_set_add_run(&a, &r));
	assert_true(xfer_set_set_label(&b, "B"));
	r = (struct xfer_run){ .bytes = 5, .seconds = 1e-6, .setup_seconds = 0 };
	for (int i = 0; i < 100; i++)
		assert_true(xfer_set_add_run(&b, &r));
	assert_true(xfer_sets_take(sets, &a));
	assert_true(xfer_sets_take(sets, &b));
	assert_null(a.label);   /* moved out */
}

static void same_string(const char *x, const char *y)
{
	if (!x || !y)
		assert_ptr_equal(x, y);
	else
		assert_string_equal(x, y);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct xfer_sets out, in;
	struct xfer_error err = { "" };
	char path[128];
	xfer_sets_init(&out);
	xfer_sets_init(&in);
	make_sample(&out);
	path_in_tmp(path, sizeof(path), "r.json");
	assert_true(xfer_sets_save(&out, path, &err));
	assert_true(xfer_sets_load(&in, path, &err));
	assert_int_equal(in.n, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct xfer_set *a = &out.sets[i], *b = &in.sets[i];
		same_string(a->label, b->label);
		same_string(a->source, b->source);
		same_string(a->tool, b->tool);
		same_string(a->direction, b->direction);
		assert_int_equal(a->n_runs, b->n_runs);
		for (size_t j = 0; j < a->n_runs; j++) {
			const struct xfer_run *x = &a->runs[j], *y = &b->runs[j];
			assert_true(x->bytes == y->bytes);
			assert_true(x->seconds == y->seconds);   /* exact: shortest round trip */
			assert_true((isnan(x->setup_seconds) && isnan(y->setup_seconds)) ||
				    x->setup_seconds == y->setup_seconds);
			assert_true(x->block_size == y->block_size);
			assert_int_equal(x->link.present, y->link.present);
			assert_memory_equal(&x->link.tx_bytes, &y->link.tx_bytes, 8 * sizeof(uint64_t));
		}
	}
	xfer_sets_free(&out);
	xfer_sets_free(&in);
}

static void test_save_replaces_atomically(void **state)
{
	(void)state;
	struct xfer_sets sets;
	struct xfer_error err = { "" };
	char path[128];
	path_in_tmp(path, sizeof(path), "replace.json");
	write_file(path, "old content");
	size_t before = files_in_tmp();
	xfer_sets_init(&sets);
	make_sample(&sets);
	assert_true(xfer_sets_save(&sets, path, &err));
	/* No temporary file left beside it, and the old content is gone. */
	assert_int_equal(files_in_tmp(), before);
	struct xfer_sets back;
	xfer_sets_init(&back);
	assert_true(xfer_sets_load(&back, path, &err));
	assert_int_equal(back.n, 2);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	mode_t mask = umask(0);
	umask(mask);
	assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
	xfer_sets_free(&back);
	xfer_sets_free(&sets);
}

static void test_save_fails_cleanly(void **state)
{
	(void)state;
	struct xfer_sets sets;
	struct xfer_error err = { "" };
	char path[160];
	snprintf(path, sizeof(path), "%s/no/such/dir/x.json", tmpdir);
	xfer_sets_init(&sets);
	make_sample(&sets);
	assert_false(xfer_sets_save(&sets, path, &err));
	assert_non_null(strstr(err.msg, path));
	xfer_sets_free(&sets);
}

/* A device node or a symbolic link as the output: written through,
 * never replaced by a plain file (a root `-o /dev/null` must not turn
 * /dev/null into a file).  A private null device node stands in for
 * /dev/null; without root only the link is tested. */
static void test_save_special_files(void **state)
{
	(void)state;
	struct xfer_sets sets;
	struct xfer_error err = { "" };
	char dev[128], target[128], link[128];
	struct stat st;
	xfer_sets_init(&sets);
	make_sample(&sets);
	path_in_tmp(dev, sizeof(dev), "null");
	if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		assert_true(xfer_sets_save(&sets, dev, &err));
		assert_int_equal(lstat(dev, &st), 0);
		assert_true(S_ISCHR(st.st_mode));
		unlink(dev);
	}
	path_in_tmp(target, sizeof(target), "target.json");
	path_in_tmp(link, sizeof(link), "link.json");
	write_file(target, "old");
	assert_int_equal(symlink(target, link), 0);
	assert_true(xfer_sets_save(&sets, link, &err));
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	struct xfer_sets back;
	xfer_sets_init(&back);
	assert_true(xfer_sets_load(&back, target, &err));
	assert_int_equal(back.n, 2);
	xfer_sets_free(&back);
	assert_false(xfer_sets_save(&sets, tmpdir, &err));
	assert_non_null(strstr(err.msg, "is a directory"));
	xfer_sets_free(&sets);
}

/* Loads text as a file named "t.json"; returns whether it loaded, with
 * the message in err, and checks that a failure appends nothing. */
static bool load_text(const char *text, struct xfer_error *err, size_t *n_sets)
{
	struct xfer_sets sets;
	xfer_sets_init(&sets);
	struct xfer_set keep;
	xfer_set_init(&keep);
	assert_true(xfer_set_set_label(&keep, "kept"));
	assert_true(xfer_sets_take(&sets, &keep));
	err->msg[0] = '\0';
	bool ok = xfer_sets_load_buffer(&sets, "t.json", text, strlen(text), err);
	if (!ok) {
		assert_int_equal(sets.n, 1);
		assert_string_equal(sets.sets[0].label, "kept");
		assert_true(strncmp(err->msg, "t.json", 6) == 0);
	}
	*n_sets = sets.n - 1;
	xfer_sets_free(&sets);
	return ok;
}

static void expect_error(const char *text, const char *fragment)
{
	struct xfer_error err;
	size_t n;
	assert_false(load_text(text, &err, &n));
	if (!strstr(err.msg, fragment))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, fragment);
}

static void test_bad_files(void **state)
{
	(void)state;
	expect_error("", "truncated");
	expect_error("{\"xferstat\":1,\"sets\":[{\"label\":\"a\",\"runs\":[{\"bytes\":1,", "truncated");
	expect_error("[1,2]", "not a JSON object");
	expect_error("{\"xferstat\":2,\"sets\":[]}", "version");
	expect_error("{\"xferstat\":1}", "neither");
	expect_error("{\"sets\":{}}", "\"sets\": not an array");
	expect_error("{\"sets\":[{\"label\":\"a\"}]}", "sets[0]: \"runs\" missing");
	expect_error("{\"sets\":[{\"label\":7,\"runs\":[]}]}", "sets[0].label: not a string");
	expect_error("{\"sets\":[{\"runs\":[{\"seconds\":1}]}]}", "sets[0].runs[0]: \"bytes\" missing");
	expect_error("{\"sets\":[{\"runs\":[{\"bytes\":-1,\"seconds\":1}]}]}", "runs[0].bytes: negative");
	expect_error("{\"sets\":[{\"runs\":[{\"bytes\":1.5,\"seconds\":1}]}]}", "not a non-negative integer");
	expect_error("{\"sets\":[{\"runs\":[{\"bytes\":1,\"seconds\":\"1\"}]}]}", "seconds: not a number");
	expect_error("{\"sets\":[{\"runs\":[{\"bytes\":1,\"seconds\":0}]}]}", "greater than 0");
	expect_error("{\"sets\":[{\"runs\":[{\"bytes\":1,\"seconds\":1,\"setup_seconds\":-1}]}]}",
		     "setup_seconds");
	expect_error("{\"sets\":[{\"runs\":[{\"bytes\":1,\"seconds\":1,\"link\":3}]}]}", "link: not an object");
	expect_error("{\"sets\":[{\"runs\":[1]}]}", "runs[0]: not an object");
	expect_error("{\"sets\":[]}\n\n garbage", "t.json:3: text after");
	expect_error("{\"sets\":[]\n,,}", "t.json:2: not valid JSON");
	/* The second set is bad: the first must not be appended either. */
	expect_error("{\"sets\":[{\"runs\":[]},{\"runs\":[{\"bytes\":1}]}]}", "sets[1].runs[0]");
}

static void test_good_variants(void **state)
{
	(void)state;
	struct xfer_error err;
	size_t n;
	/* One set at the top level; unknown keys ignored; null strings. */
	assert_true(load_text("{\"label\":\"x\",\"future\":[1],\"runs\":[{\"bytes\":10,"
			      "\"seconds\":2,\"setup_seconds\":null,\"extra\":{}}]}",
			      &err, &n));
	assert_int_equal(n, 1);
	assert_true(load_text("{\"xferstat\":1,\"sets\":[]}\n", &err, &n));
	assert_int_equal(n, 0);
	/* 2^64-1 bytes still fits. */
	assert_true(load_text("{\"runs\":[{\"bytes\":18446744073709551615,\"seconds\":1}]}", &err, &n));
}

static void test_find_and_missing_file(void **state)
{
	(void)state;
	struct xfer_sets sets;
	struct xfer_error err = { "" };
	xfer_sets_init(&sets);
	make_sample(&sets);
	assert_ptr_equal(xfer_sets_find(&sets, "B", NULL), &sets.sets[1]);
	assert_null(xfer_sets_find(&sets, "B", "get"));
	assert_null(xfer_sets_find(&sets, "nope", NULL));
	assert_false(xfer_sets_load(&sets, "/nonexistent/r.json", &err));
	assert_non_null(strstr(err.msg, "/nonexistent/r.json"));
	assert_int_equal(sets.n, 2);
	xfer_sets_free(&sets);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_save_replaces_atomically),
		cmocka_unit_test(test_save_fails_cleanly),
		cmocka_unit_test(test_save_special_files),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_good_variants),
		cmocka_unit_test(test_find_and_missing_file),
	};
	return cmocka_run_group_tests_name("xferstat results", tests, setup_dir, remove_dir);
}
