/*
 * test_irqtune_state.c: the state file: format, validation of every
 * entry, atomic save and load.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state.h"

static const char good[] =
	"irqtune-state 1\n"
	"# comment\n"
	"sched\tttyS0\tirq/4-ttyS0\tfifo/50\n"
	"affinity\tttyS0\t4\t0-1\n"
	"attr\tttyS0\t/sys/devices/platform/serial8250/tty/ttyS0/rx_trig_bytes\t14\n"
	"attr\tttyUSB0\t/sys/bus/usb-serial/devices/ttyUSB0/latency_timer\t16\n"
	"low_latency\tttyS0\t/dev/ttyS0\t0\n";

static void parse_and_format(void **state)
{
	struct irqtune_state st;
	char err[256], *text;
	size_t len;
	assert_int_equal(irqtune_state_parse(good, strlen(good), "s", &st, err,
					     sizeof(err)), 0);
	assert_int_equal(st.n, 5);
	assert_int_equal(st.v[0].knob, IRQTUNE_KNOB_SCHED);
	assert_string_equal(st.v[0].target, "irq/4-ttyS0");
	assert_string_equal(st.v[0].value, "fifo/50");
	assert_int_equal(irqtune_state_find(&st, IRQTUNE_KNOB_AFFINITY, "4"), 1);
	assert_int_equal(irqtune_state_find(&st, IRQTUNE_KNOB_SCHED, "4"), -1);
	assert_int_equal(irqtune_state_format(&st, &text, &len), 0);
	struct irqtune_state again;
	assert_int_equal(irqtune_state_parse(text, len, "s", &again, err,
					     sizeof(err)), 0);
	assert_int_equal(again.n, 5);
	assert_memory_equal(again.v, st.v, 5 * sizeof(st.v[0]));
	irqtune_state_remove(&again, 0);
	assert_int_equal(again.n, 4);
	assert_int_equal(again.v[0].knob, IRQTUNE_KNOB_AFFINITY);
	free(text);
	irqtune_state_free(&st);
	irqtune_state_free(&again);
}

static void rejects_damage(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "sched\tttyS0\tirq/4-ttyS0\tfifo/50\n", "s:1: not an irqtune state file" },
		{ "irqtune-state 1\nsched\tttyS0\tirq/4-ttyS0\n", "s:2: expected KNOB" },
		{ "irqtune-state 1\nnice\tttyS0\tx\t1\n", "s:2: unknown knob 'nice'" },
		{ "irqtune-state 1\nsched\tttyS0\tkworker/0\tfifo/50\n", "s:2: 'kworker/0' is not an IRQ thread" },
		{ "irqtune-state 1\nsched\tttyS0\tirq/4-x\tfifo/500\n", "s:2: 'fifo/500' is not a scheduling" },
		{ "irqtune-state 1\nattr\tttyS0\t/etc/shadow\t1\n", "s:2: '/etc/shadow' is not an rx_trig_bytes" },
		{ "irqtune-state 1\nattr\tttyS0\t/sys/../etc/rx_trig_bytes\t1\n", "s:2: '/sys/../etc/rx_trig_bytes'" },
		{ "irqtune-state 1\nattr\tttyS0\t/sys/x/rx_trig_bytes\tlots\n", "s:2: 'lots' is not a number" },
		{ "irqtune-state 1\nlow_latency\tttyS0\t/tmp/x\t1\n", "s:2: '/tmp/x' is not a /dev node" },
		{ "irqtune-state 1\nlow_latency\tttyS0\t/dev/ttyS0\t2\n", "s:2: '2' is not 0 or 1" },
		{ "irqtune-state 1\naffinity\tttyS0\tfour\t0\n", "s:2: 'four' is not an IRQ number" },
		{ "irqtune-state 1\naffinity\ttty/S0\t4\t0\n", "s:2: bad device name" },
		{ "irqtune-state 1\naffinity\tttyS0\t4\t0\naffinity\tttyS1\t4\t1\n", "s:3: affinity 4 recorded twice" },
		{ "irqtune-state 1\naffinity\tttyS0\t4\t0\tmore\n", "s:2: expected KNOB" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct irqtune_state st;
		char err[512] = "";
		size_t len = strlen(bad[i].text);
		assert_int_equal(irqtune_state_parse(bad[i].text, len,
						     "s", &st, err, sizeof(err)),
				 -EINVAL);
		if (strncmp(err, bad[i].msg, strlen(bad[i].msg)) != 0)
			fail_msg("case %zu: got '%s', want '%s...'", i, err, bad[i].msg);
		assert_int_equal(st.n, 0);
		irqtune_state_free(&st);
	}
}

/* Found by fuzzing: a NUL inside a field made a device name that did
 * not survive formatting. */
static void rejects_nul_in_field(void **state)
{
	static const char text[] = "irqtune-state 1\naffinity\tt\0S0\t4\t0\n";
	struct irqtune_state st;
	char err[256] = "";
	assert_int_equal(irqtune_state_parse(text, sizeof(text) - 1, "s", &st,
					     err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "s:2: expected KNOB"));
	irqtune_state_free(&st);
}

static void save_load_lock(void **state)
{
	char dir[] = "/tmp/irqtune-state-XXXXXX", path[128], err[256];
	struct irqtune_state st, back;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run/state", dir);
	int lock = irqtune_state_lock(path); /* creates run/ */
	assert_true(lock >= 0);
	assert_int_equal(irqtune_state_load(path, &back, err, sizeof(err)), 0);
	assert_int_equal(back.n, 0); /* missing file: empty */
	assert_int_equal(irqtune_state_parse(good, strlen(good), "s", &st, err,
					     sizeof(err)), 0);
	assert_int_equal(irqtune_state_save(path, &st), 0);
	assert_int_equal(irqtune_state_load(path, &back, err, sizeof(err)), 0);
	assert_int_equal(back.n, st.n);
	irqtune_state_free(&back);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	/* an empty state removes the file */
	st.n = 0;
	assert_int_equal(irqtune_state_save(path, &st), 0);
	assert_int_equal(stat(path, &sb), -1);
	irqtune_state_free(&st);
	/* a damaged file is reported with its name and line */
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("irqtune-state 1\nbogus\n", f);
	fclose(f);
	assert_int_equal(irqtune_state_load(path, &back, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/run/state:2: expected KNOB"));
	irqtune_state_free(&back);
	irqtune_state_unlock(lock);
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_and_format),
		cmocka_unit_test(rejects_damage),
		cmocka_unit_test(rejects_nul_in_field),
		cmocka_unit_test(save_load_lock),
	};
	return cmocka_run_group_tests_name("irqtune_state", tests, NULL, NULL);
}
