/*
 * dongle.c: scripts, the step helpers drivers share, the registry, spec
 * strings, the generic speed-change sequence and the executor.  See
 * dongle.h and dongle_impl.h; the drivers are in dongle_NAME.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "dongle_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cursor.h"

static const struct {
	uint32_t baud;
	uint8_t bit;
} sir_rates[] = {
	{ 2400, DONGLE_RATE_2400 }, { 9600, DONGLE_RATE_9600 },
	{ 19200, DONGLE_RATE_19200 }, { 38400, DONGLE_RATE_38400 },
	{ 57600, DONGLE_RATE_57600 }, { 115200, DONGLE_RATE_115200 },
};

uint8_t dongle_rate_bit(uint32_t baud)
{
	for (size_t i = 0; i < DONGLE_ARRAY_SIZE(sir_rates); i++)
		if (sir_rates[i].baud == baud)
			return sir_rates[i].bit;
	return 0;
}

static void rates_text(uint8_t mask, char *buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < DONGLE_ARRAY_SIZE(sir_rates); i++) {
		if (!(mask & sir_rates[i].bit))
			continue;
		int n = snprintf(buf + used, cap - used, "%s%u", used ? " " : "",
				 sir_rates[i].baud);
		if (n < 0 || (size_t)n >= cap - used)
			return;
		used += (size_t)n;
	}
}

/* --- scripts ------------------------------------------------------------------ */

void dongle_script_init(struct dongle_script *s)
{
	memset(s, 0, sizeof(*s));
}

int script_fail(struct dongle_script *s, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->error, sizeof(s->error), fmt, ap);
	va_end(ap);
	return -err;
}

static int add(struct dongle_script *s, const struct dongle_step *st)
{
	if (s->n == DONGLE_SCRIPT_MAX)
		return script_fail(s, E2BIG, "dongle script longer than %d steps",
				   DONGLE_SCRIPT_MAX);
	s->steps[s->n++] = *st;
	return 0;
}

int script_lines(struct dongle_script *s, bool dtr, bool rts)
{
	return add(s, &(struct dongle_step){ .op = DSTEP_LINES, .dtr = dtr,
					     .rts = rts });
}

int script_wait(struct dongle_script *s, uint32_t us)
{
	return add(s, &(struct dongle_step){ .op = DSTEP_WAIT, .value = us });
}

int script_hold(struct dongle_script *s, bool dtr, bool rts, uint32_t us)
{
	int r = script_lines(s, dtr, rts);
	return r ? r : script_wait(s, us);
}

static int add_bytes(struct dongle_script *s, enum dongle_step_op op,
		     const uint8_t *bytes, size_t len, uint32_t value)
{
	struct dongle_step st = { .op = op, .value = value, .len = (uint8_t)len };
	if (len > DONGLE_STEP_BYTES)
		return script_fail(s, E2BIG, "dongle step of %zu bytes (at most %d)",
				   len, DONGLE_STEP_BYTES);
	memcpy(st.bytes, bytes, len);
	return add(s, &st);
}

int script_write(struct dongle_script *s, const uint8_t *bytes, size_t len)
{
	return add_bytes(s, DSTEP_WRITE, bytes, len, 0);
}

int script_expect(struct dongle_script *s, const uint8_t *bytes, size_t len,
		  uint32_t timeout_us)
{
	return add_bytes(s, DSTEP_EXPECT, bytes, len, timeout_us);
}

int script_drain(struct dongle_script *s)
{
	return add(s, &(struct dongle_step){ .op = DSTEP_DRAIN });
}

int script_uart(struct dongle_script *s, uint32_t baud)
{
	return add(s, &(struct dongle_step){ .op = DSTEP_SPEED, .value = baud });
}

int script_flush(struct dongle_script *s)
{
	return add(s, &(struct dongle_step){ .op = DSTEP_FLUSH });
}

int script_pulses(struct dongle_script *s, struct dongle_lines pulse,
		  struct dongle_lines rest, uint32_t width_us, unsigned count)
{
	int r = 0;
	for (unsigned i = 0; i < count && !r; i++) {
		r = script_hold(s, pulse.dtr, pulse.rts, width_us);
		if (!r)
			r = script_hold(s, rest.dtr, rest.rts, width_us);
	}
	return r;
}

int script_command(struct dongle_script *s, const struct dongle_command_mode *m,
		   const uint8_t *bytes, size_t len, uint32_t hold_us)
{
	int r = script_hold(s, m->command.dtr, m->command.rts, m->settle_us);
	if (!r && m->echo)
		r = script_flush(s);
	if (!r)
		r = script_write(s, bytes, len);
	if (!r)
		r = script_drain(s);
	if (!r)
		r = script_wait(s, hold_us);
	if (!r && m->echo)
		r = script_expect(s, bytes, len, m->echo_timeout_us);
	if (!r)
		r = script_lines(s, m->normal.dtr, m->normal.rts);
	if (!r && m->after_us)
		r = script_wait(s, m->after_us);
	return r;
}

const struct dongle_command_mode dongle_rts_low_byte_mode = {
	.command = { .dtr = true, .rts = false },
	.normal = { .dtr = true, .rts = true },
	.settle_us = 7,
	.after_us = 50,
};

const char *const dongle_off_on[] = { "off", "on", NULL };

int dongle_code_for(const struct dongle_code *table, size_t n, uint32_t baud,
		    uint8_t *code, struct dongle_script *s)
{
	for (size_t i = 0; i < n; i++) {
		if (table[i].baud == baud) {
			*code = table[i].code;
			return 0;
		}
	}
	return script_fail(s, EINVAL, "no control code for %u baud", baud);
}

int dongle_command_code(const struct dongle *d, uint8_t code,
			struct dongle_script *s)
{
	const struct dongle_driver *drv = d->drv;
	const uint8_t bytes[2] = { code, drv->trailer };
	return script_command(s, drv->mode, bytes, drv->has_trailer ? 2 : 1,
			      drv->hold_us ? drv->hold_us : d->opt.delay_us);
}

static int speed_by_code(const struct dongle *d, uint32_t baud,
			 struct dongle_script *s)
{
	uint8_t code;
	int r = dongle_code_for(d->drv->codes, d->drv->ncodes, baud, &code, s);
	return r ? r : dongle_command_code(d, code, s);
}

static int reset_by_phases(const struct dongle_driver *drv,
			   struct dongle_script *s)
{
	int r = 0;
	for (size_t i = 0; i < drv->reset_nphases && !r; i++) {
		const struct dongle_phase *ph = &drv->reset_phases[i];
		r = ph->us ? script_hold(s, ph->lines.dtr, ph->lines.rts, ph->us) :
			     script_lines(s, ph->lines.dtr, ph->lines.rts);
	}
	return r;
}

void dongle_step_describe(const struct dongle_step *st, char *buf, size_t cap)
{
	char hex[3 * DONGLE_STEP_BYTES + 1] = "";
	for (size_t i = 0; i < st->len && i < DONGLE_STEP_BYTES; i++)
		snprintf(hex + 3 * i, sizeof(hex) - 3 * i, "%02x ", st->bytes[i]);
	if (hex[0])
		hex[strlen(hex) - 1] = '\0';   /* the last space */
	switch (st->op) {
	case DSTEP_LINES:
		snprintf(buf, cap, "lines DTR=%d RTS=%d", st->dtr, st->rts);
		break;
	case DSTEP_WAIT:
		snprintf(buf, cap, "wait %u us", st->value);
		break;
	case DSTEP_WRITE:
		snprintf(buf, cap, "write %s", hex);
		break;
	case DSTEP_DRAIN:
		snprintf(buf, cap, "drain");
		break;
	case DSTEP_SPEED:
		snprintf(buf, cap, "uart %u baud", st->value);
		break;
	case DSTEP_FLUSH:
		snprintf(buf, cap, "flush input");
		break;
	case DSTEP_EXPECT:
		snprintf(buf, cap, "expect %s within %u us", hex, st->value);
		break;
	default:
		snprintf(buf, cap, "step %d?", (int)st->op);
		break;
	}
}

uint64_t dongle_script_wait_us(const struct dongle_script *s)
{
	uint64_t total = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->steps[i].op == DSTEP_WAIT)
			total += s->steps[i].value;
	return total;
}

/* --- registry --------------------------------------------------------------- */

static const struct dongle_driver *const drivers[] = {
	&dongle_none, &dongle_tekram, &dongle_esi, &dongle_actisys,
	&dongle_actisys_plus, &dongle_girbil, &dongle_litelink,
	&dongle_old_belkin, &dongle_mcp2120, &dongle_act200l, &dongle_ma600,
	&dongle_toim3232,
};

size_t dongle_driver_count(void)
{
	return DONGLE_ARRAY_SIZE(drivers);
}

const struct dongle_driver *dongle_driver_at(size_t i)
{
	return i < DONGLE_ARRAY_SIZE(drivers) ? drivers[i] : NULL;
}

const struct dongle_driver *dongle_find(const char *name)
{
	for (size_t i = 0; i < DONGLE_ARRAY_SIZE(drivers); i++)
		if (strcmp(drivers[i]->name, name) == 0)
			return drivers[i];
	return NULL;
}

const char *dongle_driver_name(const struct dongle_driver *drv)
{
	return drv->name;
}

const char *dongle_driver_description(const struct dongle_driver *drv)
{
	return drv->description;
}

int dongle_driver_linux_id(const struct dongle_driver *drv)
{
	return drv->linux_id;
}

/* --- options and spec strings ----------------------------------------------------- */

static const struct dongle_option max_option = {
	.key = "max",
	.help = "offer no rate above BAUD (2400..115200, default: all the dongle has)",
};

static bool help_line(const struct dongle_option *o, char *buf, size_t cap,
		      size_t *used)
{
	int n = snprintf(buf + *used, cap - *used, "%s=VALUE: %s\n", o->key,
			 o->help);
	if (n < 0 || (size_t)n >= cap - *used)
		return false;
	*used += (size_t)n;
	return true;
}

bool dongle_driver_options_help(const struct dongle_driver *drv, char *buf,
				size_t cap)
{
	size_t used = 0;
	if (cap)
		buf[0] = '\0';
	if (!help_line(&max_option, buf, cap, &used))
		return false;
	for (const struct dongle_option *o = drv->options; o && o->key; o++)
		if (!help_line(o, buf, cap, &used))
			return false;
	return true;
}

static void default_options(struct dongle_options *o)
{
	memset(o, 0, sizeof(*o));
	o->delay_us = 150000;   /* Linux tekram/toim3232 default */
	o->litelink = LITELINK_LINUX;
	o->rate38400 = 1;
}

/* Copies the next run of bytes up to one of stops (or the end) into buf;
 * false if it does not fit or holds a NUL. */
static bool take_token(struct cursor *c, const char *stops, char *buf,
		       size_t cap)
{
	size_t n = 0;
	uint8_t ch;
	while (cursor_peek_u8(c, &ch) && !strchr(stops, ch)) {
		if (ch == '\0' || n + 1 >= cap)
			return false;
		buf[n++] = (char)ch;
		cursor_u8(c, &ch);
	}
	buf[n] = '\0';
	return true;
}

static bool parse_number(const char *text, uint64_t *out)
{
	struct cursor c;
	cursor_init(&c, text, strlen(text));
	return cursor_parse_u64(&c, out) && cursor_at_end(&c);
}

/* Microseconds, optionally written with a unit: 150000, 150000us, 150ms. */
static bool parse_duration(const char *text, uint64_t *us)
{
	struct cursor c;
	uint64_t v;
	cursor_init(&c, text, strlen(text));
	if (!cursor_parse_u64(&c, &v))
		return false;
	if (cursor_literal(&c, "ms")) {
		if (v > UINT64_MAX / 1000)
			return false;
		v *= 1000;
	} else {
		cursor_literal(&c, "us");
	}
	*us = v;
	return cursor_at_end(&c);
}

static int apply_max(struct dongle_options *o, const char *value, char *err,
		     size_t errlen)
{
	uint64_t max;
	if (!parse_number(value, &max) || !dongle_rate_bit((uint32_t)max) ||
	    max > UINT32_MAX) {
		snprintf(err, errlen, "max=%s: not an IrDA SIR rate (2400 9600 "
			 "19200 38400 57600 115200)", value);
		return -EINVAL;
	}
	for (size_t i = 0; i < DONGLE_ARRAY_SIZE(sir_rates); i++)
		if (sir_rates[i].baud > max)
			o->rates_off |= sir_rates[i].bit;
	return 0;
}

static int apply_option(const struct dongle_driver *drv,
			struct dongle_options *o, const char *key,
			const char *value, char *err, size_t errlen)
{
	if (strcmp(key, max_option.key) == 0)
		return apply_max(o, value, err, errlen);
	const struct dongle_option *opt = drv->options;
	while (opt && opt->key && strcmp(opt->key, key) != 0)
		opt++;
	if (!opt || !opt->key) {
		char names[128] = "max";
		size_t used = 3;
		for (opt = drv->options; opt && opt->key; opt++) {
			int n = snprintf(names + used, sizeof(names) - used, " %s",
					 opt->key);
			if (n > 0 && (size_t)n < sizeof(names) - used)
				used += (size_t)n;
		}
		snprintf(err, errlen, "dongle %s has no option '%s' (options: %s)",
			 drv->name, key, names);
		return -EINVAL;
	}
	uint8_t *field = (uint8_t *)o + opt->offset;
	if (opt->kind == DOPT_MICROSECONDS) {
		uint64_t us;
		if (!parse_duration(value, &us) || us < opt->min || us > opt->max) {
			snprintf(err, errlen, "%s: %s=%s: expected %u..%u us (or NNms)",
				 drv->name, key, value, opt->min, opt->max);
			return -EINVAL;
		}
		uint32_t v = (uint32_t)us;
		memcpy(field, &v, sizeof(v));
		return 0;
	}
	for (uint8_t i = 0; opt->choices[i]; i++) {
		if (strcmp(opt->choices[i], value) == 0) {
			*field = i;
			return 0;
		}
	}
	char list[96] = "";
	size_t used = 0;
	for (size_t i = 0; opt->choices[i]; i++) {
		int n = snprintf(list + used, sizeof(list) - used, "%s%s",
				 i ? " " : "", opt->choices[i]);
		if (n > 0 && (size_t)n < sizeof(list) - used)
			used += (size_t)n;
	}
	snprintf(err, errlen, "%s: %s=%s: expected one of: %s", drv->name, key,
		 value, list);
	return -EINVAL;
}

static int parse_options(const struct dongle_driver *drv, struct cursor *c,
			 struct dongle_options *o, const char *spec, char *err,
			 size_t errlen)
{
	char key[32], value[64];
	do {
		if (!take_token(c, "=,", key, sizeof(key)) || !key[0] ||
		    !cursor_literal(c, "=") ||
		    !take_token(c, ",", value, sizeof(value)) || !value[0]) {
			snprintf(err, errlen, "dongle spec '%s': expected "
				 "key=value options after ':'", spec);
			return -EINVAL;
		}
		int r = apply_option(drv, o, key, value, err, errlen);
		if (r)
			return r;
	} while (cursor_literal(c, ","));
	return 0;
}

int dongle_init(struct dongle *d, const char *spec, char *err, size_t errlen)
{
	struct cursor c;
	char name[32];
	cursor_init(&c, spec, strlen(spec));
	if (!take_token(&c, ":", name, sizeof(name)) || !name[0]) {
		snprintf(err, errlen, "dongle spec '%s': expected NAME[:key=value,...]",
			 spec);
		return -EINVAL;
	}
	const struct dongle_driver *drv = dongle_find(name);
	if (!drv) {
		char known[160] = "";
		size_t used = 0;
		for (size_t i = 0; i < DONGLE_ARRAY_SIZE(drivers); i++) {
			int n = snprintf(known + used, sizeof(known) - used, "%s%s",
					 i ? " " : "", drivers[i]->name);
			if (n > 0 && (size_t)n < sizeof(known) - used)
				used += (size_t)n;
		}
		snprintf(err, errlen, "unknown dongle '%s' (known: %s)", name, known);
		return -EINVAL;
	}
	struct dongle_options o;
	default_options(&o);
	if (cursor_literal(&c, ":")) {
		int r = parse_options(drv, &c, &o, spec, err, errlen);
		if (r)
			return r;
	}
	if (!o.rate38400)
		o.rates_off |= DONGLE_RATE_38400;
	if (!(drv->rates & ~o.rates_off & DONGLE_RATE_9600)) {
		snprintf(err, errlen, "dongle spec '%s': 9600 baud must stay "
			 "available (every IrDA station starts there)", spec);
		return -EINVAL;
	}
	d->drv = drv;
	d->opt = o;
	return 0;
}

const char *dongle_name(const struct dongle *d)
{
	return d->drv->name;
}

uint8_t dongle_rates(const struct dongle *d)
{
	return d->drv->rates & (uint8_t)~d->opt.rates_off;
}

bool dongle_supports(const struct dongle *d, uint32_t baud)
{
	uint8_t bit = dongle_rate_bit(baud);
	return bit && (dongle_rates(d) & bit);
}

uint8_t dongle_mtt_bits(const struct dongle *d)
{
	return d->drv->mtt_bits;
}

uint32_t dongle_reset_baud(const struct dongle *d)
{
	return d->drv->reset_baud;
}

/* --- the generic sequences ---------------------------------------------------- */

int dongle_power_on(const struct dongle *d, struct dongle_script *s)
{
	size_t before = s->n;
	int r = 0;
	if (d->drv->power_on)
		r = d->drv->power_on(d, s);
	else if (d->drv->line_powered)
		r = script_lines(s, true, true);
	if (!r && s->n > before)
		r = script_wait(s, DONGLE_POWER_SETTLE_US);
	return r;
}

int dongle_reset(const struct dongle *d, struct dongle_script *s)
{
	int r = d->drv->reset ? d->drv->reset(d, s) :
		reset_by_phases(d->drv, s);
	return r ? r : script_uart(s, d->drv->reset_baud);
}

static int check_rate(const struct dongle *d, uint32_t baud, const char *what,
		      struct dongle_script *s)
{
	char list[64];
	if (dongle_supports(d, baud))
		return 0;
	rates_text(dongle_rates(d), list, sizeof(list));
	if (!dongle_rate_bit(baud))
		return script_fail(s, EINVAL, "%s: %s rate %u baud is not an "
				   "IrDA SIR rate (supported: %s)", d->drv->name,
				   what, baud, list);
	return script_fail(s, EINVAL, "%s: %u baud is not supported by this "
			   "dongle (supported: %s)", d->drv->name, baud, list);
}

int dongle_set_speed(const struct dongle *d, uint32_t from, uint32_t to,
		     struct dongle_script *s)
{
	int r = check_rate(d, to, "requested", s);
	if (!r && from)
		r = check_rate(d, from, "current", s);
	if (r)
		return r;
	r = script_drain(s);
	if (!r && !d->drv->stateless)
		r = dongle_reset(d, s);
	if (!r && d->drv->speed)
		r = d->drv->speed(d, to, s);
	else if (!r && d->drv->codes)
		r = speed_by_code(d, to, s);
	return r ? r : script_uart(s, to);
}

int dongle_close(const struct dongle *d, struct dongle_script *s)
{
	if (d->drv->close)
		return d->drv->close(d, s);
	return d->drv->line_powered ? script_lines(s, false, false) : 0;
}

/* --- the executor ---------------------------------------------------------------- */

static int expect_bytes(struct port *p, const struct dongle_step *st)
{
	uint8_t got[DONGLE_STEP_BYTES];
	size_t n = 0;
	uint64_t deadline = port_now_us(p) + st->value;
	while (n < st->len) {
		uint64_t now = port_now_us(p);
		uint32_t left = now < deadline ? (uint32_t)(deadline - now) : 0;
		ssize_t r = port_read(p, got + n, st->len - n, left);
		if (r < 0)
			return (int)r;
		n += (size_t)r;
		if (r == 0 && port_now_us(p) >= deadline)
			break;
	}
	if (n < st->len)
		return port_fail(p, ETIMEDOUT, "the dongle echoed %zu of %u bytes "
				 "within %u us", n, st->len, st->value);
	for (size_t i = 0; i < n; i++)
		if (got[i] != st->bytes[i])
			return port_fail(p, EIO, "the dongle answered 0x%02x where "
					 "its echo 0x%02x was expected", got[i],
					 st->bytes[i]);
	return 0;
}

static int run_step(struct port *p, const struct dongle_step *st)
{
	switch (st->op) {
	case DSTEP_LINES:
		return port_set_lines(p, st->dtr, st->rts);
	case DSTEP_WAIT:
		port_sleep_us(p, st->value);
		return 0;
	case DSTEP_WRITE:
		/* a few bytes into an idle port: a stall is a dead port */
		return port_write_all(p, st->bytes, st->len, 1000000);
	case DSTEP_DRAIN:
		return port_drain(p);
	case DSTEP_SPEED:
		return port_set_speed(p, st->value);
	case DSTEP_FLUSH:
		return port_flush_input(p);
	case DSTEP_EXPECT:
		return expect_bytes(p, st);
	}
	return port_fail(p, EINVAL, "unknown dongle step %d", (int)st->op);
}

int dongle_run(struct port *p, const struct dongle_script *s, uint64_t *took_us)
{
	uint64_t start = port_now_us(p);
	char what[96];
	int r = 0;
	for (size_t i = 0; i < s->n && !r; i++) {
		const struct dongle_step *st = &s->steps[i];
		if (log_enabled(p->log, LOG_LEVEL_DEBUG)) {
			dongle_step_describe(st, what, sizeof(what));
			log_msg(p->log, LOG_LEVEL_DEBUG, "%s: dongle step %zu/%zu: %s",
				p->name, i + 1, s->n, what);
		}
		r = run_step(p, st);
		if (r) {
			/* keep the port's reason, add which step failed */
			char reason[sizeof(p->error)];
			size_t skip = strlen(p->name) + 2;
			snprintf(reason, sizeof(reason), "%s",
				 strncmp(p->error, p->name, skip - 2) == 0 &&
				 strlen(p->error) >= skip ? p->error + skip : p->error);
			dongle_step_describe(st, what, sizeof(what));
			port_fail(p, -r, "%s (dongle step %zu of %zu: %s)", reason,
				  i + 1, s->n, what);
		}
	}
	if (took_us)
		*took_us = port_now_us(p) - start;
	return r;
}
