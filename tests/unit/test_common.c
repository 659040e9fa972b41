/*
 * test_common.c: growing arrays and reading whole files (common/).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "array.h"
#include "fileio.h"

static void array_grows_by_doubling_and_keeps_content(void **state)
{
	int *v = NULL;
	size_t cap = 0;
	for (int i = 0; i < 100; i++) {
		int *grown = array_grow(v, &cap, (size_t)i, sizeof(*v), 4);
		assert_non_null(grown);
		v = grown;
		v[i] = i * 3;
	}
	assert_int_equal(cap, 128);   /* 4, 8, ..., 128 */
	for (int i = 0; i < 100; i++)
		assert_int_equal(v[i], i * 3);
	free(v);
}

static void array_refuses_overflowing_sizes(void **state)
{
	char *v = malloc(4);
	size_t cap = 4;
	assert_null(array_grow(v, &cap, 4, SIZE_MAX / 4, 4));
	assert_int_equal(cap, 4);     /* unchanged, v still valid */
	cap = SIZE_MAX / 2 + 1;
	assert_null(array_grow(v, &cap, cap, 1, 4));
	free(v);
}

static char *temp_file_with(const char *content, size_t len)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/test_common.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	close(fd);
	return path;
}

static void reads_a_whole_file_with_a_terminating_nul(void **state)
{
	char *path = temp_file_with("abc\ndef", 7);
	uint8_t *data;
	size_t len;
	assert_int_equal(file_read_all(path, 100, &data, &len), 0);
	assert_int_equal(len, 7);
	assert_memory_equal(data, "abc\ndef", 8);
	free(data);
	unlink(path);
}

static void refuses_files_over_the_limit_and_directories(void **state)
{
	char *path = temp_file_with("0123456789", 10);
	uint8_t *data = (uint8_t *)"x";
	size_t len = 99;
	assert_int_equal(file_read_all(path, 9, &data, &len), -EFBIG);
	assert_null(data);
	assert_int_equal(len, 0);
	assert_int_equal(file_read_all(path, 10, &data, &len), 0);
	free(data);
	unlink(path);
	assert_int_equal(file_read_all("/", 10, &data, &len), -EISDIR);
	assert_int_equal(file_read_all("/nonexistent/file", 10, &data, &len), -ENOENT);
}

static void reads_files_that_stat_cannot_size(void **state)
{
	/* /proc files report size 0 but have content */
	uint8_t *data;
	size_t len;
	assert_int_equal(file_read_all("/proc/self/status", 1 << 20, &data, &len), 0);
	assert_true(len > 0);
	assert_non_null(strstr((char *)data, "Pid:"));
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(array_grows_by_doubling_and_keeps_content),
		cmocka_unit_test(array_refuses_overflowing_sizes),
		cmocka_unit_test(reads_a_whole_file_with_a_terminating_nul),
		cmocka_unit_test(refuses_files_over_the_limit_and_directories),
		cmocka_unit_test(reads_files_that_stat_cannot_size),
	};
	return cmocka_run_group_tests_name("common", tests, NULL, NULL);
}
