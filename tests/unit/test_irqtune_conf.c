/*
 * test_irqtune_conf.c: irqtune.conf parsing, errors, matching, layering.
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
#include <string.h>

#include "conf.h"

static int parse(const char *text, struct irqtune_conf *c, char *err,
		 size_t cap)
{
	err[0] = '\0';
	return irqtune_conf_parse(text, strlen(text), "t.conf", c, err, cap);
}

static struct irqtune_port uart_port(const char *name)
{
	struct irqtune_port p;
	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "%s", name);
	snprintf(p.devnode, sizeof(p.devnode), "/dev/%s", name);
	p.irq.irq = 4;
	p.uart_type = 4;
	irqtune_port_set_prop(&p, "DRIVER", "serial8250");
	return p;
}

static struct irqtune_port ftdi_port(void)
{
	struct irqtune_port p;
	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "ttyUSB0");
	snprintf(p.devnode, sizeof(p.devnode), "/dev/ttyUSB0");
	p.nlinks = 1;
	snprintf(p.links[0], sizeof(p.links[0]),
		 "/dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0");
	p.irq.irq = -1;
	p.bus = IRQTUNE_BUS_USB;
	irqtune_port_set_prop(&p, "DRIVER", "ftdi_sio");
	irqtune_port_set_prop(&p, "ID_VENDOR_ID", "0403");
	irqtune_port_set_prop(&p, "ID_PATH", "pci-0000:00:14.0-usb-0:2:1.0");
	return p;
}

static void full_example(void **state)
{
	static const char text[] =
		"# serial ports\n"
		"prio 85\n"
		"\n"
		"match name=ttyS*\n"
		"\tcpus 1\n"
		"\trx_trigger 1   # lowest FIFO trigger\n"
		"match ID_VENDOR_ID=0403 DRIVER=ftdi_sio\n"
		"  latency_timer 2\n"
		"  hc_prio 80\n"
		"  low_latency yes\n"
		"match name=/dev/serial/by-id/*A50285BI*\n"
		"  prio keep\n";
	struct irqtune_conf c;
	struct irqtune_settings s;
	char err[256];
	assert_int_equal(parse(text, &c, err, sizeof(err)), 0);
	assert_int_equal(c.nrules, 3);
	assert_int_equal(c.rules[1].nconds, 2);
	assert_int_equal(c.rules[1].line, 7);

	struct irqtune_port s0 = uart_port("ttyS0");
	irqtune_conf_resolve(&c, &s0, NULL, &s);
	assert_int_equal(s.prio, 85);
	assert_string_equal(s.cpus, "1");
	assert_int_equal(s.rx_trigger, 1);
	assert_int_equal(s.latency_timer, IRQTUNE_DEFAULT_LATENCY_TIMER);
	assert_int_equal(s.low_latency, IRQTUNE_KEEP);
	assert_int_equal(s.hc_prio, IRQTUNE_KEEP);

	struct irqtune_port u = ftdi_port();
	irqtune_conf_resolve(&c, &u, NULL, &s);
	assert_int_equal(s.prio, IRQTUNE_KEEP); /* the by-id rule, last */
	assert_int_equal(s.latency_timer, 2);
	assert_int_equal(s.hc_prio, 80);
	assert_int_equal(s.low_latency, 1);
	assert_string_equal(s.cpus, "keep");

	/* the command line wins over everything */
	struct irqtune_settings cli;
	irqtune_settings_init(&cli);
	assert_true(irqtune_settings_set(&cli, "prio", "70", err, sizeof(err)));
	assert_true(irqtune_settings_set(&cli, "cpus", "0,1", err, sizeof(err)));
	irqtune_conf_resolve(&c, &u, &cli, &s);
	assert_int_equal(s.prio, 70);
	assert_string_equal(s.cpus, "0-1");
	irqtune_conf_free(&c);
}

static void defaults_without_config(void **state)
{
	struct irqtune_settings s;
	struct irqtune_port p = uart_port("ttyS3");
	irqtune_conf_resolve(NULL, &p, NULL, &s);
	assert_int_equal(s.prio, 90);
	assert_int_equal(s.latency_timer, 1);
	assert_int_equal(s.rx_trigger, IRQTUNE_KEEP);
	assert_string_equal(s.cpus, "keep");
}

static void matching(void **state)
{
	struct irqtune_conf c;
	char err[256];
	struct irqtune_port s1 = uart_port("ttyS1"), s10 = uart_port("ttyS10");
	struct irqtune_port u = ftdi_port();
	assert_int_equal(parse("match name=ttyS1\nmatch name=/dev/ttyS1?\n"
			       "match ID_PATH=pci-*-usb-0:2:*\n"
			       "match NOPE=*\nmatch DRIVER=serial8250 name=ttyS1*\n",
			       &c, err, sizeof(err)), 0);
	assert_true(irqtune_rule_matches(&c.rules[0], &s1));
	assert_false(irqtune_rule_matches(&c.rules[0], &s10));
	assert_false(irqtune_rule_matches(&c.rules[1], &s1));
	assert_true(irqtune_rule_matches(&c.rules[1], &s10));
	assert_true(irqtune_rule_matches(&c.rules[2], &u));
	assert_false(irqtune_rule_matches(&c.rules[2], &s1));
	assert_false(irqtune_rule_matches(&c.rules[3], &u)); /* absent property */
	assert_true(irqtune_rule_matches(&c.rules[4], &s10));
	assert_false(irqtune_rule_matches(&c.rules[4], &u));
	irqtune_conf_free(&c);
}

struct bad {
	const char *text;
	const char *msg;
};

static void errors_name_file_and_line(void **state)
{
	static const struct bad bad[] = {
		{ "prio 90\nprio 100\n", "t.conf:2: prio: '100' is not a number from 1 to 99" },
		{ "\n\nfrobnicate 1\n", "t.conf:3: unknown setting 'frobnicate'" },
		{ "match\n", "t.conf:1: match needs at least one KEY=GLOB" },
		{ "match name\n", "t.conf:1: match condition 'name' is not KEY=GLOB" },
		{ "match vendor=0403\n", "t.conf:1: match key 'vendor' is neither" },
		{ "match name=\n", "t.conf:1: match condition 'name=' has no pattern" },
		{ "cpus 3-1\n", "t.conf:1: cpus: '3-1' is not a CPU list" },
		{ "low_latency maybe\n", "t.conf:1: low_latency: 'maybe' is not yes, no or keep" },
		{ "prio\n", "t.conf:1: 'prio' needs a value" },
		{ "prio 90 91\n", "t.conf:1: 'prio' takes one value" },
		{ "latency_timer 256\n", "t.conf:1: latency_timer: '256' is not a number from 0 to 255" },
		{ "rx_trigger 0\n", "t.conf:1: rx_trigger: '0' is not a number" },
		{ "prio 9\x01\n", "t.conf:1: control character" },
		{ "match a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9\n", "" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct irqtune_conf c;
		char err[256];
		assert_int_equal(parse(bad[i].text, &c, err, sizeof(err)), -EINVAL);
		if (strncmp(err, bad[i].msg, strlen(bad[i].msg)) != 0)
			fail_msg("case %zu: got '%s', want '%s...'", i, err,
				 bad[i].msg);
		assert_int_equal(c.nrules, 0); /* nothing kept */
		irqtune_conf_free(&c);
	}
}

static void comments_and_blanks(void **state)
{
	struct irqtune_conf c;
	char err[256];
	assert_int_equal(parse("  # only a comment\r\n\t\nprio 50#not-a-comment\n",
			       &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'50#not-a-comment'"));
	irqtune_conf_free(&c);
	assert_int_equal(parse("prio 50 # a comment\r\nmatch name=ttyS#1\n",
			       &c, err, sizeof(err)), 0);
	assert_int_equal(c.global.prio, 50);
	assert_string_equal(c.rules[0].conds[0].glob, "ttyS#1");
	irqtune_conf_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_example),
		cmocka_unit_test(defaults_without_config),
		cmocka_unit_test(matching),
		cmocka_unit_test(errors_name_file_and_line),
		cmocka_unit_test(comments_and_blanks),
	};
	return cmocka_run_group_tests_name("irqtune_conf", tests, NULL, NULL);
}
