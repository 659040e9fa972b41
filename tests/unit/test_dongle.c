/*
 * test_dongle.c: the dongle registry, spec strings, the script executor
 * and the mock port's model of the wire (what serial_switch_speed is
 * timed against).
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
#include <stdio.h>

#include "dongle.h"
#include "mockport.h"

static void the_registry_has_every_irattach_name(void **state)
{
	/* irattach -d names and Linux IRTTY_IOCTDONGLE ids (digest 3.3) */
	static const struct {
		const char *name;
		int id;
	} want[] = {
		{ "none", -1 }, { "tekram", 0 }, { "esi", 1 }, { "actisys", 2 },
		{ "actisys+", 3 }, { "girbil", 4 }, { "litelink", 5 },
		{ "old_belkin", 7 }, { "mcp2120", 9 }, { "act200l", 10 },
		{ "ma600", 11 }, { "toim3232", 12 },
	};
	size_t n = sizeof(want) / sizeof(want[0]);
	assert_int_equal(dongle_driver_count(), n);
	for (size_t i = 0; i < n; i++) {
		const struct dongle_driver *drv = dongle_find(want[i].name);
		assert_non_null(drv);
		assert_ptr_equal(dongle_driver_at(i), drv);
		assert_string_equal(dongle_driver_name(drv), want[i].name);
		assert_int_equal(dongle_driver_linux_id(drv), want[i].id);
		assert_true(strlen(dongle_driver_description(drv)) > 5);
	}
	assert_null(dongle_driver_at(n));
	assert_null(dongle_find("Tekram"));
	assert_null(dongle_find(""));
}

static void options_help_lists_each_option(void **state)
{
	char buf[1024];
	assert_true(dongle_driver_options_help(dongle_find("tekram"), buf,
					       sizeof(buf)));
	assert_non_null(strstr(buf, "max=VALUE"));
	assert_non_null(strstr(buf, "code115200=VALUE"));
	assert_non_null(strstr(buf, "delay=VALUE"));
	assert_true(dongle_driver_options_help(dongle_find("esi"), buf,
					       sizeof(buf)));
	assert_non_null(strstr(buf, "max=VALUE"));
	assert_null(strstr(buf, "delay"));
	assert_false(dongle_driver_options_help(dongle_find("tekram"), buf, 20));
}

static void specs_set_options(void **state)
{
	struct dongle d;
	char err[200];
	assert_int_equal(dongle_init(&d, "tekram", err, sizeof(err)), 0);
	assert_string_equal(dongle_name(&d), "tekram");
	assert_int_equal(d.opt.delay_us, 150000);
	assert_int_equal(d.opt.tekram_pw115200, 0);
	assert_int_equal(dongle_init(&d, "tekram:delay=200000,code115200=0x10",
				     err, sizeof(err)), 0);
	assert_int_equal(d.opt.delay_us, 200000);
	assert_int_equal(d.opt.tekram_pw115200, 1);
	assert_int_equal(dongle_init(&d, "toim3232:delay=20ms", err, sizeof(err)), 0);
	assert_int_equal(d.opt.delay_us, 20000);
	assert_int_equal(dongle_init(&d, "litelink:polarity=netbsd", err,
				     sizeof(err)), 0);
	assert_int_equal(d.opt.litelink, LITELINK_NETBSD);
	assert_int_equal(dongle_init(&d, "none:max=19200", err, sizeof(err)), 0);
	assert_int_equal(dongle_rates(&d), DONGLE_RATE_2400 | DONGLE_RATE_9600 |
					   DONGLE_RATE_19200);
	assert_true(dongle_supports(&d, 19200));
	assert_false(dongle_supports(&d, 38400));
	assert_false(dongle_supports(&d, 12345));
}

static void bad_specs_are_refused_by_name(void **state)
{
	static const struct {
		const char *spec;
		const char *says;
	} cases[] = {
		{ "", "expected NAME" },
		{ ":delay=5", "expected NAME" },
		{ "irda2000", "unknown dongle 'irda2000' (known: none tekram" },
		{ "tekram:", "expected key=value" },
		{ "tekram:delay", "expected key=value" },
		{ "tekram:delay=", "expected key=value" },
		{ "tekram:=5", "expected key=value" },
		{ "tekram:delay=100000,", "expected key=value" },
		{ "tekram:polarity=linux", "tekram has no option 'polarity' (options: max code115200 delay)" },
		{ "tekram:delay=999", "tekram: delay=999: expected 1000..500000 us" },
		{ "tekram:delay=501ms", "delay=501ms" },
		{ "tekram:delay=12s", "delay=12s" },
		{ "tekram:delay=99999999999999999999999", "delay=" },
		{ "tekram:code115200=16", "code115200=16: expected one of: 0x00 0x10" },
		{ "litelink:polarity=bsd", "expected one of: linux netbsd" },
		{ "none:max=12345", "max=12345: not an IrDA SIR rate" },
		{ "none:max=4294967297", "not an IrDA SIR rate" },
		{ "none:max=2400", "9600 baud must stay available" },
		{ "esi:rate38400=off", "esi has no option 'rate38400'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dongle d = { 0 };
		char err[200] = "";
		int r = dongle_init(&d, cases[i].spec, err, sizeof(err));
		if (r != -EINVAL || !strstr(err, cases[i].says))
			fail_msg("'%s': got %d '%s', expected -EINVAL '%s'",
				 cases[i].spec, r, err, cases[i].says);
		/* nothing half-applied */
		assert_null(d.drv);
	}
}

static void unknown_rates_are_refused_clearly(void **state)
{
	struct dongle d;
	struct dongle_script s;
	char err[200];
	assert_int_equal(dongle_init(&d, "tekram", err, sizeof(err)), 0);
	dongle_script_init(&s);
	assert_int_equal(dongle_set_speed(&d, 9600, 12345, &s), -EINVAL);
	assert_non_null(strstr(s.error, "12345 baud is not an IrDA SIR rate "
				  "(supported: 9600 19200 38400 57600 115200)"));
	assert_int_equal(s.n, 0);   /* nothing half-built */
	assert_int_equal(dongle_set_speed(&d, 2400, 9600, &s), -EINVAL);
	assert_non_null(strstr(s.error, "2400 baud is not supported"));
	/* old Belkin: 9600 only */
	assert_int_equal(dongle_init(&d, "old_belkin", err, sizeof(err)), 0);
	assert_int_equal(dongle_set_speed(&d, 9600, 115200, &s), -EINVAL);
	assert_string_equal(s.error, "old_belkin: 115200 baud is not supported "
				     "by this dongle (supported: 9600)");
	assert_int_equal(dongle_set_speed(&d, 0, 9600, &s), 0);
}

static void scripts_describe_their_steps(void **state)
{
	struct dongle d;
	struct dongle_script s;
	char err[200], what[96];
	assert_int_equal(dongle_init(&d, "girbil", err, sizeof(err)), 0);
	dongle_script_init(&s);
	assert_int_equal(dongle_set_speed(&d, 9600, 57600, &s), 0);
	dongle_step_describe(&s.steps[0], what, sizeof(what));
	assert_string_equal(what, "drain");
	dongle_step_describe(&s.steps[1], what, sizeof(what));
	assert_string_equal(what, "lines DTR=1 RTS=0");
	dongle_step_describe(&s.steps[2], what, sizeof(what));
	assert_string_equal(what, "wait 20000 us");
	dongle_step_describe(&s.steps[s.n - 1], what, sizeof(what));
	assert_string_equal(what, "uart 57600 baud");
	bool saw_write = false;
	for (size_t i = 0; i < s.n; i++) {
		dongle_step_describe(&s.steps[i], what, sizeof(what));
		saw_write |= strcmp(what, "write 35 51") == 0;
	}
	assert_true(saw_write);
	/* reset 20+20+20 ms, speed 25 us + 100 ms */
	assert_int_equal(dongle_script_wait_us(&s), 160025);
}

static void scripts_have_a_bound(void **state)
{
	struct dongle d;
	struct dongle_script s;
	char err[200];
	assert_int_equal(dongle_init(&d, "litelink", err, sizeof(err)), 0);
	dongle_script_init(&s);
	/* litelink to 9600: 1 + 4 pulses of 4 steps each, plus 3 */
	int r = 0;
	int rounds = 0;
	while (!r) {
		r = dongle_set_speed(&d, 9600, 9600, &s);
		rounds++;
	}
	assert_int_equal(r, -E2BIG);
	assert_true(rounds >= 2);
	assert_int_equal(s.n, DONGLE_SCRIPT_MAX);
	assert_non_null(strstr(s.error, "longer than"));
}

static void the_executor_names_the_failing_step(void **state)
{
	struct dongle d;
	struct dongle_script s;
	char err[200];
	assert_int_equal(dongle_init(&d, "mcp2120", err, sizeof(err)), 0);
	dongle_script_init(&s);
	assert_int_equal(dongle_set_speed(&d, 9600, 115200, &s), 0);
	struct port *p = mockport_new("/dev/ttyS9", NULL);
	mockport_fail_next(p, MOCK_WRITE, EIO);
	assert_int_equal(dongle_run(p, &s, NULL), -EIO);
	assert_non_null(strstr(port_error(p), "/dev/ttyS9: write: injected failure"));
	assert_non_null(strstr(port_error(p), "(dongle step 9 of 13: write 81 11)"));
	/* the device name appears once, not twice */
	const char *first = strstr(port_error(p), "/dev/ttyS9");
	assert_null(strstr(first + 1, "/dev/ttyS9"));
	/* the run stopped at the failure: the UART was never switched */
	assert_int_equal(p->baud, 9600);
	port_close(p);
}

static void the_executor_runs_in_virtual_time_on_the_mock(void **state)
{
	/* the same script, played on the mock, takes at least its waits
	 * plus the bytes' time on the wire */
	struct dongle d;
	struct dongle_script s;
	char err[200];
	uint64_t took = 0;
	assert_int_equal(dongle_init(&d, "tekram:delay=10ms", err, sizeof(err)), 0);
	dongle_script_init(&s);
	assert_int_equal(dongle_set_speed(&d, 9600, 19200, &s), 0);
	struct port *p = mockport_new("mock", NULL);
	assert_int_equal(dongle_run(p, &s, &took), 0);
	/* waits: 1000 + 50 + 7 + 10000 + 50; one byte at 9600: 1042 us */
	assert_int_equal(dongle_script_wait_us(&s), 11107);
	assert_int_equal(took, 11107 + 1042);
	assert_int_equal(mockport_now(p), took);
	port_close(p);
}

static void the_mock_models_the_wire(void **state)
{
	struct port *p = mockport_new("mock", NULL);
	uint8_t frame[30] = { 0 };
	/* a speed change while bytes are still going out garbles them */
	assert_int_equal(port_write(p, frame, sizeof(frame)), 30);
	assert_int_equal(port_set_speed(p, 115200), 0);
	assert_int_equal(mockport_garbled_switches(p), 1);

	/* serial_switch_speed drains first: 30 bytes at 115200 = 2605 us */
	uint64_t took = 0;
	assert_int_equal(port_write(p, frame, sizeof(frame)), 30);
	uint64_t t0 = mockport_now(p);
	assert_int_equal(serial_switch_speed(p, 9600, &took), 0);
	assert_int_equal(mockport_garbled_switches(p), 1);
	assert_true(took >= 2605);   /* includes the rest of the first frame */
	assert_int_equal(mockport_now(p) - t0, took);

	/* a USB-style margin shows in the switch time */
	mockport_set_drain_margin(p, 60000);
	assert_int_equal(port_write(p, frame, 30), 30);   /* 31.25 ms at 9600 */
	assert_int_equal(serial_switch_speed(p, 57600, &took), 0);
	assert_int_equal(took, 31250 + 60000);
	assert_int_equal(p->baud, 57600);

	/* unsupported UART rates are refused by the mock too */
	assert_int_equal(port_set_speed(p, 12345), -EINVAL);
	assert_int_equal(p->baud, 57600);
	port_close(p);
}

static void the_mock_reads_what_the_device_sends(void **state)
{
	struct port *p = mockport_new("mock", NULL);
	uint8_t buf[8];
	assert_int_equal(mockport_feed(p, "abc", 3), 0);
	assert_int_equal(port_read(p, buf, 2, 0), 2);
	assert_memory_equal(buf, "ab", 2);
	assert_int_equal(port_flush_input(p), 0);
	uint64_t t = mockport_now(p);
	assert_int_equal(port_read(p, buf, 2, 5000), 0);   /* a full timeout */
	assert_int_equal(mockport_now(p), t + 5000);
	mockport_set_echo(p, true);
	assert_int_equal(port_write(p, "xy", 2), 2);
	assert_int_equal(port_read(p, buf, 8, 0), 2);
	assert_memory_equal(buf, "xy", 2);
	unsigned lines;
	assert_int_equal(port_set_lines(p, false, true), 0);
	assert_int_equal(port_get_lines(p, &lines), 0);
	assert_int_equal(lines, PORT_LINE_RTS);
	const struct mock_call *c = mockport_call(p, mockport_ncalls(p) - 2);
	assert_int_equal(c->op, MOCK_SET_LINES);
	assert_false(c->dtr);
	assert_true(c->rts);
	mockport_clear(p);
	assert_int_equal(mockport_ncalls(p), 0);
	assert_null(mockport_call(p, 0));
	port_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_registry_has_every_irattach_name),
		cmocka_unit_test(options_help_lists_each_option),
		cmocka_unit_test(specs_set_options),
		cmocka_unit_test(bad_specs_are_refused_by_name),
		cmocka_unit_test(unknown_rates_are_refused_clearly),
		cmocka_unit_test(scripts_describe_their_steps),
		cmocka_unit_test(scripts_have_a_bound),
		cmocka_unit_test(the_executor_names_the_failing_step),
		cmocka_unit_test(the_executor_runs_in_virtual_time_on_the_mock),
		cmocka_unit_test(the_mock_models_the_wire),
		cmocka_unit_test(the_mock_reads_what_the_device_sends),
	};
	return cmocka_run_group_tests_name("dongle", tests, NULL, NULL);
}
