/*
 * test_dongle_drivers.c: every dongle's line and byte sequences and their
 * timing, played on the recording mock port.
 *
 * The expectations are written here from the IrDA digest (section 3,
 * /work/shared/docs/irda-digest.md), not from the driver code: for each
 * dongle a builder of the expected reset and speed sequences and a table
 * of its codes, pulse counts or line levels per rate.  Each expected
 * event carries the least time that must have passed since the previous
 * one (on the mock's virtual clock), so pulse widths, settle times and
 * holds are checked as well as order and content.
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

/* --- expected sequences -------------------------------------------------------- */

struct ev {
	enum mock_op op;
	bool dtr, rts;
	uint32_t baud;
	uint8_t len;
	uint8_t b[12];
	uint32_t min_gap_us;   /* since the previous event */
	uint32_t max_gap_us;   /* 0: no upper bound */
};

struct expect {
	struct ev ev[96];
	size_t n;
	uint32_t pending;      /* least gap for the next event */
};

static struct ev *push(struct expect *e, enum mock_op op, uint32_t gap)
{
	assert_true(e->n < sizeof(e->ev) / sizeof(e->ev[0]));
	struct ev *v = &e->ev[e->n++];
	memset(v, 0, sizeof(*v));
	v->op = op;
	v->min_gap_us = gap > e->pending ? gap : e->pending;
	e->pending = 0;
	return v;
}

/* the next event comes at least us after the last one */
static void then(struct expect *e, uint32_t us)
{
	e->pending = us;
}

static void lines(struct expect *e, bool dtr, bool rts)
{
	struct ev *v = push(e, MOCK_SET_LINES, 0);
	v->dtr = dtr;
	v->rts = rts;
}

/* levels held for at least us */
static void hold(struct expect *e, bool dtr, bool rts, uint32_t us)
{
	lines(e, dtr, rts);
	then(e, us);
}

static void bytes_ev(struct expect *e, enum mock_op op, const uint8_t *b,
		     size_t n)
{
	struct ev *v = push(e, op, 0);
	assert_true(n <= sizeof(v->b));
	v->len = (uint8_t)n;
	memcpy(v->b, b, n);
}

static void write_bytes(struct expect *e, const uint8_t *b, size_t n)
{
	bytes_ev(e, MOCK_WRITE, b, n);
}

static void drain(struct expect *e)
{
	push(e, MOCK_DRAIN, 0);
}

static void uart(struct expect *e, uint32_t baud)
{
	push(e, MOCK_SET_SPEED, 0)->baud = baud;
}

static void flush(struct expect *e)
{
	push(e, MOCK_FLUSH_INPUT, 0);
}

static void echo_read(struct expect *e, const uint8_t *b, size_t n)
{
	bytes_ev(e, MOCK_READ, b, n);
}

/* Command mode: its levels for settle_us, the bytes, wait until sent, at
 * least hold_us, then the normal levels. */
static void command(struct expect *e, bool cmd_dtr, bool cmd_rts,
		    uint32_t settle_us, const uint8_t *b, size_t n,
		    uint32_t hold_us, bool dtr, bool rts)
{
	hold(e, cmd_dtr, cmd_rts, settle_us);
	write_bytes(e, b, n);
	drain(e);
	then(e, hold_us);
	lines(e, dtr, rts);
}

/* --- the digest, per dongle --------------------------------------------------------- */

/* A rate and what selects it: a control code, a pulse count, or line
 * levels (dtr << 1 | rts). */
struct rate_code {
	uint32_t baud;
	uint8_t code;
};

struct dongle_facts {
	const char *name;
	uint8_t rates;      /* QoS bits, digest table 3.3 */
	uint8_t mtt;
	uint32_t reset_baud;
	bool resets_before_speed;
	void (*power)(struct expect *e);
	void (*reset)(struct expect *e);
	void (*speed)(struct expect *e, uint8_t code);
	void (*close)(struct expect *e);
	const struct rate_code *codes;
	size_t ncodes;
};

static void power_lines_high(struct expect *e)
{
	hold(e, true, true, 50000);   /* 50 ms power settle (3.1) */
}

static void close_lines_low(struct expect *e)
{
	lines(e, false, false);
}

/* ACTiSYS 220L/220L+: DTR-low pulse resets; RTS-low pulses of >= 10 us
 * step 9600 -> 19200 -> 57600 -> 115200 -> 38400. */
static void actisys_reset(struct expect *e)
{
	hold(e, false, true, 10);
	hold(e, true, true, 10);
}

static void actisys_speed(struct expect *e, uint8_t pulses)
{
	for (unsigned i = 0; i < pulses; i++) {
		hold(e, true, false, 10);
		hold(e, true, true, 10);
	}
}

static const struct rate_code actisys_pulses[] = {
	{ 9600, 0 }, { 19200, 1 }, { 57600, 2 }, { 115200, 3 },
};
static const struct rate_code actisys_plus_pulses[] = {
	{ 9600, 0 }, { 19200, 1 }, { 57600, 2 }, { 115200, 3 }, { 38400, 4 },
};

/* Tekram: (0,1) ~1 ms, (1,1) >= 50 us; command mode (1,0) >= 7 us, byte,
 * sent, >= 150 ms (Linux default), (1,1) >= 50 us. */
static void tekram_reset(struct expect *e)
{
	hold(e, false, true, 1000);
	hold(e, true, true, 50);
}

static void tekram_speed(struct expect *e, uint8_t code)
{
	command(e, true, false, 7, &code, 1, 150000, true, true);
	then(e, 50);
}

static const struct rate_code tekram_codes[] = {
	{ 115200, 0x00 }, { 57600, 0x11 }, { 38400, 0x12 }, { 19200, 0x13 },
	{ 9600, 0x14 },
};

/* ESI JetEye: levels only.  Reset (0,0) then (0,1). */
static void esi_power(struct expect *e)
{
	hold(e, false, true, 50000);
}

static void esi_reset(struct expect *e)
{
	lines(e, false, false);
	lines(e, false, true);
}

static void esi_speed(struct expect *e, uint8_t levels)
{
	lines(e, levels & 2, levels & 1);
}

static const struct rate_code esi_levels[] = {
	{ 9600, 1 }, { 19200, 2 }, { 115200, 3 },
};

/* GIrBIL: (1,0) >= 5 ms, command mode (0,1) 20 ms, 0x03, 20 ms, (1,1);
 * speed: (0,1), ~25 us, baud code, 0x51, 100 ms, (1,1). */
static void girbil_reset(struct expect *e)
{
	static const uint8_t ctl1 = 0x03;
	hold(e, true, false, 5000);
	command(e, false, true, 20000, &ctl1, 1, 20000, true, true);
}

static void girbil_speed(struct expect *e, uint8_t code)
{
	const uint8_t cmd[2] = { code, 0x51 };
	command(e, false, true, 25, cmd, 2, 100000, true, true);
}

static const struct rate_code girbil_codes[] = {
	{ 9600, 0x32 }, { 19200, 0x33 }, { 38400, 0x34 }, { 57600, 0x35 },
	{ 115200, 0x36 },
};

/* LiteLink (Linux roles): RTS-low pulse resets to 115200, DTR-low pulses
 * (>= 15 us) step down 57600, 38400, 19200, 9600. */
static void litelink_reset(struct expect *e)
{
	hold(e, true, false, 15);
	hold(e, true, true, 15);
}

static void litelink_speed(struct expect *e, uint8_t pulses)
{
	for (unsigned i = 0; i < pulses; i++) {
		hold(e, false, true, 15);
		hold(e, true, true, 15);
	}
}

static const struct rate_code litelink_pulses[] = {
	{ 115200, 0 }, { 57600, 1 }, { 38400, 2 }, { 19200, 3 }, { 9600, 4 },
};

/* MCP2120: (1,1) 50 ms = reset, (0,0) >= 30 ms; speed: (1,0) 500 us,
 * [code, 0x11], 100 ms, (0,0).  Not line powered; close = (1,1). */
static void mcp2120_reset(struct expect *e)
{
	hold(e, true, true, 50000);
	hold(e, false, false, 30000);
}

static void mcp2120_speed(struct expect *e, uint8_t code)
{
	const uint8_t cmd[2] = { code, 0x11 };
	command(e, true, false, 500, cmd, 2, 100000, false, false);
}

static void mcp2120_close(struct expect *e)
{
	lines(e, true, true);
}

static const struct rate_code mcp2120_codes[] = {
	{ 9600, 0x87 }, { 19200, 0x8b }, { 38400, 0x85 }, { 57600, 0x83 },
	{ 115200, 0x81 },
};

/* ACT-IR200L: (1,0) 50 ms, command mode (0,1), 25 us, nine register
 * bytes, 15 ms, (1,1); speed: command mode, reg8/reg9 divisor, 0x15,
 * 5 ms, (1,1).  The codes here are the reg8 byte; reg9 is below. */
static void act200l_reset(struct expect *e)
{
	static const uint8_t init[9] = { 0xf0, 0xd1, 0x56, 0xd0, 0x74, 0x63,
					 0x51, 0x47, 0x03 };
	hold(e, true, false, 50000);
	command(e, false, true, 25, init, sizeof(init), 15000, true, true);
}

static void act200l_speed(struct expect *e, uint8_t reg8)
{
	/* divisors 0x17, 0x0b, 0x05, 0x03, 0x01: high nibble 1 only at 9600 */
	const uint8_t cmd[3] = { reg8, reg8 == 0x87 ? 0x91 : 0x90, 0x15 };
	command(e, false, true, 25, cmd, 3, 5000, true, true);
}

static const struct rate_code act200l_reg8[] = {
	{ 9600, 0x87 }, { 19200, 0x8b }, { 38400, 0x85 }, { 57600, 0x83 },
	{ 115200, 0x81 },
};

/* MA600: (0,1) 10 ms, (1,1) 10 ms; speed: (1,0) 1 ms, byte, >= 10 ms,
 * its echo, (1,1), 10 ms.  Input is flushed before the byte. */
static void ma600_reset(struct expect *e)
{
	hold(e, false, true, 10000);
	hold(e, true, true, 10000);
}

static void ma600_speed(struct expect *e, uint8_t code)
{
	hold(e, true, false, 1000);
	flush(e);
	write_bytes(e, &code, 1);
	drain(e);
	then(e, 10000);
	echo_read(e, &code, 1);
	hold(e, true, true, 10000);
}

static const struct rate_code ma600_codes[] = {
	{ 2400, 0x08 }, { 9600, 0x00 }, { 19200, 0x01 }, { 38400, 0x02 },
	{ 57600, 0x03 }, { 115200, 0x04 },
};

/* TOIM3232: power cycle (0,0) 50 ms, (1,1) 10 ms; speed: (1,0) >= 7 us,
 * byte, 150 ms, (1,1), ~50 us. */
static void toim3232_reset(struct expect *e)
{
	hold(e, false, false, 50000);
	hold(e, true, true, 10000);
}

static const struct rate_code toim3232_codes[] = {
	{ 115200, 0x00 }, { 57600, 0x11 }, { 38400, 0x12 }, { 19200, 0x13 },
	{ 9600, 0x16 }, { 2400, 0x1a },
};

static const struct rate_code only_9600[] = { { 9600, 0 } };
static const struct rate_code all_sir[] = {
	{ 2400, 0 }, { 9600, 0 }, { 19200, 0 }, { 38400, 0 }, { 57600, 0 },
	{ 115200, 0 },
};

#define CODES(t) t, sizeof(t) / sizeof((t)[0])

static const struct dongle_facts facts[] = {
	{ "none", 0x3f, 0x03, 9600, false, NULL, NULL, NULL, NULL, CODES(all_sir) },
	{ "tekram", 0x3e, 0x01, 9600, true, power_lines_high, tekram_reset,
	  tekram_speed, close_lines_low, CODES(tekram_codes) },
	{ "esi", 0x26, 0x01, 9600, false, esi_power, esi_reset, esi_speed,
	  close_lines_low, CODES(esi_levels) },
	{ "actisys", 0x36, 0x7f, 9600, true, power_lines_high, actisys_reset,
	  actisys_speed, close_lines_low, CODES(actisys_pulses) },
	{ "actisys+", 0x3e, 0x7f, 9600, true, power_lines_high, actisys_reset,
	  actisys_speed, close_lines_low, CODES(actisys_plus_pulses) },
	{ "girbil", 0x3e, 0x03, 9600, true, power_lines_high, girbil_reset,
	  girbil_speed, close_lines_low, CODES(girbil_codes) },
	{ "litelink", 0x3e, 0x7f, 115200, true, power_lines_high, litelink_reset,
	  litelink_speed, close_lines_low, CODES(litelink_pulses) },
	{ "old_belkin", 0x02, 0x01, 9600, false, power_lines_high, NULL, NULL,
	  close_lines_low, CODES(only_9600) },
	{ "mcp2120", 0x3e, 0x01, 9600, true, NULL, mcp2120_reset, mcp2120_speed,
	  mcp2120_close, CODES(mcp2120_codes) },
	{ "act200l", 0x3e, 0x03, 9600, true, power_lines_high, act200l_reset,
	  act200l_speed, close_lines_low, CODES(act200l_reg8) },
	{ "ma600", 0x3f, 0x01, 9600, true, power_lines_high, ma600_reset,
	  ma600_speed, close_lines_low, CODES(ma600_codes) },
	{ "toim3232", 0x3f, 0x01, 9600, true, power_lines_high, toim3232_reset,
	  tekram_speed, close_lines_low, CODES(toim3232_codes) },
};

/* --- comparing the record with the expectation ------------------------------------- */

static void describe_call(const struct mock_call *c, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "%s", mock_op_name(c->op));
	if (c->op == MOCK_SET_LINES)
		snprintf(buf + n, cap - (size_t)n, " DTR=%d RTS=%d", c->dtr, c->rts);
	else if (c->op == MOCK_SET_SPEED)
		snprintf(buf + n, cap - (size_t)n, " %u", c->baud);
	else if (c->op == MOCK_WRITE || c->op == MOCK_READ)
		for (size_t i = 0; i < c->len && i < MOCK_CALL_BYTES; i++)
			n += snprintf(buf + n, cap - (size_t)n, " %02x", c->data[i]);
}

static void describe_ev(const struct ev *v, char *buf, size_t cap)
{
	struct mock_call c = { .op = v->op, .dtr = v->dtr, .rts = v->rts,
			       .baud = v->baud, .len = v->len };
	memcpy(c.data, v->b, v->len);
	describe_call(&c, buf, cap);
}

static void print_record(const struct port *p)
{
	char what[96];
	for (size_t i = 0; i < mockport_ncalls(p); i++) {
		const struct mock_call *c = mockport_call(p, i);
		describe_call(c, what, sizeof(what));
		print_message("#   %2zu t=%8llu %s\n", i,
			      (unsigned long long)c->t_us, what);
	}
}

static void check_record(const char *what, const struct port *p,
			 const struct expect *e)
{
	char got[96], want[96];
	size_t n = mockport_ncalls(p);
	for (size_t i = 0; i < e->n || i < n; i++) {
		const struct mock_call *c = mockport_call(p, i);
		const struct ev *v = i < e->n ? &e->ev[i] : NULL;
		if (!c || !v) {
			print_record(p);
			fail_msg("%s: %zu calls, expected %zu", what, n, e->n);
		}
		describe_call(c, got, sizeof(got));
		describe_ev(v, want, sizeof(want));
		bool same = c->op == v->op;
		if (same && v->op == MOCK_SET_LINES)
			same = c->dtr == v->dtr && c->rts == v->rts;
		if (same && v->op == MOCK_SET_SPEED)
			same = c->baud == v->baud;
		if (same && (v->op == MOCK_WRITE || v->op == MOCK_READ))
			same = c->len == v->len && memcmp(c->data, v->b, v->len) == 0;
		if (!same) {
			print_record(p);
			fail_msg("%s: call %zu is '%s', expected '%s'", what, i, got,
				 want);
		}
		uint64_t gap = i ? c->t_us - mockport_call(p, i - 1)->t_us : 0;
		if (gap < v->min_gap_us || (v->max_gap_us && gap > v->max_gap_us)) {
			print_record(p);
			fail_msg("%s: call %zu '%s' came %llu us after the previous, "
				 "expected at least %u%s", what, i, got,
				 (unsigned long long)gap, v->min_gap_us,
				 v->max_gap_us ? " and at most the stated bound" : "");
		}
	}
}

/* --- running scripts on the mock ---------------------------------------------------- */

typedef int (*build_fn)(const struct dongle *d, struct dongle_script *s);

static struct port *new_mock(void)
{
	struct port *p = mockport_new("/dev/mock0", NULL);
	assert_non_null(p);
	mockport_set_echo(p, true);   /* only the MA600 reads its echo */
	return p;
}

static void init_dongle(struct dongle *d, const char *spec)
{
	char err[200];
	int r = dongle_init(d, spec, err, sizeof(err));
	if (r)
		fail_msg("dongle_init(%s): %s", spec, err);
}

static void run_built(const char *what, struct port *p, struct dongle_script *s,
		      int build_result)
{
	if (build_result)
		fail_msg("%s: building the script failed: %s", what, s->error);
	int r = dongle_run(p, s, NULL);
	if (r)
		fail_msg("%s: %s", what, port_error(p));
}

static void expect_reset(struct expect *e, const struct dongle_facts *f)
{
	if (f->reset)
		f->reset(e);
	uart(e, f->reset_baud);
}

static void reset_sequences_match_the_digest(void **state)
{
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		const struct dongle_facts *f = &facts[i];
		struct dongle d;
		struct dongle_script s;
		struct expect e = { 0 };
		char what[64];
		init_dongle(&d, f->name);
		snprintf(what, sizeof(what), "%s reset", f->name);
		struct port *p = new_mock();
		dongle_script_init(&s);
		run_built(what, p, &s, dongle_reset(&d, &s));
		expect_reset(&e, f);
		check_record(what, p, &e);
		port_close(p);
	}
}

static void every_speed_matches_the_digest(void **state)
{
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		const struct dongle_facts *f = &facts[i];
		struct dongle d;
		init_dongle(&d, f->name);
		for (size_t k = 0; k < f->ncodes; k++) {
			struct dongle_script s;
			struct expect e = { 0 };
			uint32_t to = f->codes[k].baud;
			char what[64];
			snprintf(what, sizeof(what), "%s to %u", f->name, to);
			struct port *p = new_mock();
			dongle_script_init(&s);
			run_built(what, p, &s, dongle_set_speed(&d, 9600, to, &s));
			/* digest 3.1: drain, reset, UART at the reset rate, the
			 * dongle's steps, UART at the new rate */
			drain(&e);
			if (f->resets_before_speed)
				expect_reset(&e, f);
			if (f->speed)
				f->speed(&e, f->codes[k].code);
			uart(&e, to);
			check_record(what, p, &e);
			assert_int_equal(p->baud, to);
			port_close(p);
		}
	}
}

static void power_and_close_match_the_digest(void **state)
{
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		const struct dongle_facts *f = &facts[i];
		struct dongle d;
		struct dongle_script s;
		struct expect e = { 0 };
		char what[64];
		init_dongle(&d, f->name);
		struct port *p = new_mock();
		dongle_script_init(&s);
		/* the 50 ms settle shows as the gap before the close */
		int r = dongle_power_on(&d, &s);
		if (!r)
			r = dongle_close(&d, &s);
		snprintf(what, sizeof(what), "%s power/close", f->name);
		run_built(what, p, &s, r);
		if (f->power)
			f->power(&e);
		if (f->close)
			f->close(&e);
		check_record(what, p, &e);
		port_close(p);
	}
}

static void rates_and_turnaround_bits_match_the_digest(void **state)
{
	static const uint32_t sir[] = { 2400, 9600, 19200, 38400, 57600, 115200 };
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		const struct dongle_facts *f = &facts[i];
		struct dongle d;
		init_dongle(&d, f->name);
		assert_int_equal(dongle_rates(&d), f->rates);
		assert_int_equal(dongle_mtt_bits(&d), f->mtt);
		assert_int_equal(dongle_reset_baud(&d), f->reset_baud);
		/* every SIR rate outside the mask is refused, clearly */
		for (size_t k = 0; k < 6; k++) {
			if (f->rates & (1u << k))
				continue;
			struct dongle_script s;
			dongle_script_init(&s);
			assert_int_equal(dongle_set_speed(&d, 9600, sir[k], &s), -EINVAL);
			char want[64];
			snprintf(want, sizeof(want), "%s: %u baud is not supported",
				 f->name, sir[k]);
			if (!strstr(s.error, want))
				fail_msg("%s: error '%s' lacks '%s'", f->name, s.error,
					 want);
		}
	}
}

/* --- options that change sequences ------------------------------------------------- */

static void run_speed(const char *spec, uint32_t to, struct port *p)
{
	struct dongle d;
	struct dongle_script s;
	init_dongle(&d, spec);
	dongle_script_init(&s);
	run_built(spec, p, &s, dongle_set_speed(&d, 9600, to, &s));
}

static void tekram_options_change_code_and_delay(void **state)
{
	struct port *p = new_mock();
	struct expect e = { 0 };
	run_speed("tekram:code115200=0x10,delay=100ms", 115200, p);
	drain(&e);
	expect_reset(&e, &facts[1]);
	hold(&e, true, false, 7);
	static const uint8_t pw = 0x10;
	write_bytes(&e, &pw, 1);
	drain(&e);
	lines(&e, true, true);
	/* 100 ms hold (+ 1 byte at 9600), not Linux's 150 */
	e.ev[e.n - 1].min_gap_us = 100000;
	e.ev[e.n - 1].max_gap_us = 110000;
	then(&e, 50);
	uart(&e, 115200);
	check_record("tekram options", p, &e);
	port_close(p);
}

static void litelink_netbsd_polarity_swaps_the_lines(void **state)
{
	struct port *p = new_mock();
	struct expect e = { 0 };
	run_speed("litelink:polarity=netbsd", 38400, p);
	drain(&e);
	hold(&e, false, true, 15);   /* DTR low resets */
	hold(&e, true, true, 15);
	uart(&e, 115200);
	for (int i = 0; i < 2; i++) {   /* two RTS-low steps to 38400 */
		hold(&e, true, false, 15);
		hold(&e, true, true, 15);
	}
	uart(&e, 38400);
	check_record("litelink netbsd", p, &e);
	port_close(p);
}

static void rate38400_off_drops_38400(void **state)
{
	struct dongle d;
	struct dongle_script s;
	init_dongle(&d, "girbil:rate38400=off");
	assert_int_equal(dongle_rates(&d), 0x36);
	dongle_script_init(&s);
	assert_int_equal(dongle_set_speed(&d, 9600, 38400, &s), -EINVAL);
	init_dongle(&d, "mcp2120:rate38400=off");
	assert_int_equal(dongle_rates(&d), 0x36);
	init_dongle(&d, "tekram:max=38400");
	assert_int_equal(dongle_rates(&d), 0x0e);
}

/* --- the MA600 echo --------------------------------------------------------------- */

static void ma600_fails_cleanly_on_a_wrong_echo(void **state)
{
	struct dongle d;
	struct dongle_script s;
	init_dongle(&d, "ma600");
	dongle_script_init(&s);
	assert_int_equal(dongle_set_speed(&d, 9600, 57600, &s), 0);

	struct port *p = mockport_new("/dev/ttyMA600", NULL);
	/* the dongle answers 0x7f to the 0x03 command */
	assert_int_equal(mockport_answer_next_write(p, "\x7f", 1), 0);
	int r = dongle_run(p, &s, NULL);
	assert_int_equal(r, -EIO);
	assert_non_null(strstr(port_error(p), "/dev/ttyMA600"));
	assert_non_null(strstr(port_error(p), "answered 0x7f"));
	assert_non_null(strstr(port_error(p), "echo 0x03"));
	/* it stopped there: never back to normal mode, UART not switched */
	assert_int_equal(p->baud, 9600);
	port_close(p);

	/* no echo at all: a timeout, named */
	p = mockport_new("/dev/ttyMA600", NULL);
	r = dongle_run(p, &s, NULL);
	assert_int_equal(r, -ETIMEDOUT);
	assert_non_null(strstr(port_error(p), "echoed 0 of 1 bytes"));
	assert_non_null(strstr(port_error(p), "dongle step"));
	port_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reset_sequences_match_the_digest),
		cmocka_unit_test(every_speed_matches_the_digest),
		cmocka_unit_test(power_and_close_match_the_digest),
		cmocka_unit_test(rates_and_turnaround_bits_match_the_digest),
		cmocka_unit_test(tekram_options_change_code_and_delay),
		cmocka_unit_test(litelink_netbsd_polarity_swaps_the_lines),
		cmocka_unit_test(rate38400_off_drops_38400),
		cmocka_unit_test(ma600_fails_cleanly_on_a_wrong_echo),
	};
	return cmocka_run_group_tests_name("dongle_drivers", tests, NULL, NULL);
}
