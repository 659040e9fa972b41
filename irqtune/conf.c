/*
 * conf.c: irqtune.conf parsing, matching and layering.  See conf.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "conf.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cursor.h"
#include "procfs.h"

void irqtune_settings_init(struct irqtune_settings *s)
{
	s->prio = s->hc_prio = s->rx_trigger = s->low_latency =
		s->latency_timer = IRQTUNE_INHERIT;
	s->cpus[0] = '\0';
}

void irqtune_settings_defaults(struct irqtune_settings *s)
{
	s->prio = IRQTUNE_DEFAULT_PRIO;
	s->hc_prio = IRQTUNE_KEEP;
	s->rx_trigger = IRQTUNE_KEEP;
	s->low_latency = IRQTUNE_KEEP;
	s->latency_timer = IRQTUNE_DEFAULT_LATENCY_TIMER;
	snprintf(s->cpus, sizeof(s->cpus), "keep");
}

static void overlay_int(int *base, int top)
{
	if (top != IRQTUNE_INHERIT)
		*base = top;
}

void irqtune_settings_overlay(struct irqtune_settings *base,
			      const struct irqtune_settings *top)
{
	overlay_int(&base->prio, top->prio);
	overlay_int(&base->hc_prio, top->hc_prio);
	overlay_int(&base->rx_trigger, top->rx_trigger);
	overlay_int(&base->low_latency, top->low_latency);
	overlay_int(&base->latency_timer, top->latency_timer);
	if (top->cpus[0])
		memcpy(base->cpus, top->cpus, sizeof(base->cpus));
}

static bool parse_int_knob(int *dst, const char *key, const char *value,
			   long min, long max, char *err, size_t cap)
{
	long v;
	if (strcmp(value, "keep") == 0) {
		*dst = IRQTUNE_KEEP;
		return true;
	}
	if (!irqtune_parse_long(value, strlen(value), min, max, &v) ||
	    value[0] == ' ' || value[strlen(value) - 1] == '\n')
		return irqtune_fail(err, cap,
			       "%s: '%s' is not a number from %ld to %ld "
			       "or 'keep'", key, value, min, max);
	*dst = (int)v;
	return true;
}

bool irqtune_settings_set(struct irqtune_settings *s, const char *key,
			  const char *value, char *err, size_t errcap)
{
	if (strcmp(key, "prio") == 0)
		return parse_int_knob(&s->prio, key, value, 1, 99, err, errcap);
	if (strcmp(key, "hc_prio") == 0)
		return parse_int_knob(&s->hc_prio, key, value, 1, 99, err,
				      errcap);
	if (strcmp(key, "rx_trigger") == 0)
		return parse_int_knob(&s->rx_trigger, key, value, 1, 4096, err,
				      errcap);
	if (strcmp(key, "latency_timer") == 0)
		return parse_int_knob(&s->latency_timer, key, value, 0, 255,
				      err, errcap);
	if (strcmp(key, "low_latency") == 0) {
		static const char *const on[] = { "yes", "on", "1" };
		static const char *const off[] = { "no", "off", "0" };
		for (size_t i = 0; i < 3; i++) {
			if (strcmp(value, on[i]) == 0) {
				s->low_latency = 1;
				return true;
			}
			if (strcmp(value, off[i]) == 0) {
				s->low_latency = 0;
				return true;
			}
		}
		if (strcmp(value, "keep") == 0) {
			s->low_latency = IRQTUNE_KEEP;
			return true;
		}
		return irqtune_fail(err, errcap,
			       "low_latency: '%s' is not yes, no or keep",
			       value);
	}
	if (strcmp(key, "cpus") == 0) {
		struct irqtune_cpuset set;
		if (strcmp(value, "keep") == 0) {
			snprintf(s->cpus, sizeof(s->cpus), "keep");
			return true;
		}
		if (!irqtune_cpulist_parse(value, strlen(value), &set) ||
		    strchr(value, '\n') ||
		    !irqtune_cpulist_format(&set, s->cpus, sizeof(s->cpus)))
			return irqtune_fail(err, errcap,
				       "cpus: '%s' is not a CPU list such as "
				       "0-1,3 (or 'keep')", value);
		return true;
	}
	return irqtune_fail(err, errcap,
		       "unknown setting '%s' (known: prio, hc_prio, cpus, "
		       "rx_trigger, low_latency, latency_timer, match)", key);
}

void irqtune_conf_init(struct irqtune_conf *c)
{
	irqtune_settings_init(&c->global);
	c->rules = NULL;
	c->nrules = 0;
}

void irqtune_conf_free(struct irqtune_conf *c)
{
	free(c->rules);
	irqtune_conf_init(c);
}

/* A property name as udev writes them: capitals, digits, '_'. */
static bool valid_key(const char *k)
{
	if (strcmp(k, "name") == 0)
		return true;
	if (!*k)
		return false;
	for (; *k; k++)
		if (!((*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
		      *k == '_'))
			return false;
	return true;
}

/* "KEY=GLOB" */
static bool parse_cond(struct cursor word, struct irqtune_cond *out,
		       char *err, size_t cap)
{
	char text[sizeof(out->key) + sizeof(out->glob)];
	if (!cursor_to_cstr(&word, text, sizeof(text)))
		return irqtune_fail(err, cap, "match condition too long");
	char *eq = strchr(text, '=');
	if (!eq)
		return irqtune_fail(err, cap,
			       "match condition '%s' is not KEY=GLOB", text);
	*eq = '\0';
	if (!valid_key(text))
		return irqtune_fail(err, cap,
			       "match key '%s' is neither 'name' nor a udev "
			       "property name (such as ID_VENDOR_ID)", text);
	if (!eq[1])
		return irqtune_fail(err, cap, "match condition '%s=' has no "
			       "pattern", text);
	if (strlen(text) >= sizeof(out->key) ||
	    strlen(eq + 1) >= sizeof(out->glob))
		return irqtune_fail(err, cap, "match condition too long");
	snprintf(out->key, sizeof(out->key), "%s", text);
	snprintf(out->glob, sizeof(out->glob), "%s", eq + 1);
	return true;
}

/* The line without a '#' comment (at its start or after a blank). */
static struct cursor strip_comment(struct cursor line)
{
	size_t n = cursor_remaining(&line);
	const uint8_t *p = NULL;
	struct cursor probe = line;
	if (!cursor_view(&probe, n, &p))
		return line;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '#' && (i == 0 || p[i - 1] == ' ' || p[i - 1] == '\t')) {
			struct cursor out;
			cursor_sub(&line, i, &out);
			return out;
		}
	}
	return line;
}

static bool has_control(struct cursor c)
{
	uint8_t b;
	while (cursor_u8(&c, &b))
		if ((b < 0x20 && b != '\t') || b == 0x7f)
			return true;
	return false;
}

static int parse_line(struct cursor line, size_t lineno,
		      struct irqtune_conf *out, size_t *cap, char *msg,
		      size_t msgcap)
{
	struct cursor word;
	char key[32], value[160];
	line = strip_comment(line);
	if (has_control(line)) {
		irqtune_fail(msg, msgcap, "control character in line");
		return -EINVAL;
	}
	cursor_skip_blanks(&line);
	if (!cursor_word(&line, &word))
		return 0; /* blank or comment */
	if (!cursor_to_cstr(&word, key, sizeof(key))) {
		irqtune_fail(msg, msgcap, "unknown setting (name too long)");
		return -EINVAL;
	}
	if (strcmp(key, "match") == 0) {
		void *nv = array_grow(out->rules, cap, out->nrules, sizeof(*out->rules), 8);
		if (!nv)
			return -ENOMEM;
		out->rules = nv;
		struct irqtune_rule *r = &out->rules[out->nrules];
		memset(r, 0, sizeof(*r));
		r->line = lineno;
		irqtune_settings_init(&r->set);
		for (;;) {
			cursor_skip_blanks(&line);
			if (!cursor_word(&line, &word))
				break;
			if (r->nconds == IRQTUNE_MAX_CONDS) {
				irqtune_fail(msg, msgcap, "more than %d conditions "
					"in one match", IRQTUNE_MAX_CONDS);
				return -EINVAL;
			}
			if (!parse_cond(word, &r->conds[r->nconds], msg, msgcap))
				return -EINVAL;
			r->nconds++;
		}
		if (r->nconds == 0) {
			irqtune_fail(msg, msgcap, "match needs at least one "
				"KEY=GLOB condition");
			return -EINVAL;
		}
		out->nrules++;
		return 0;
	}
	cursor_skip_blanks(&line);
	if (!cursor_word(&line, &word)) {
		irqtune_fail(msg, msgcap, "'%s' needs a value", key);
		return -EINVAL;
	}
	cursor_skip_blanks(&line);
	if (!cursor_at_end(&line)) {
		irqtune_fail(msg, msgcap, "'%s' takes one value", key);
		return -EINVAL;
	}
	if (!cursor_to_cstr(&word, value, sizeof(value))) {
		irqtune_fail(msg, msgcap, "value of '%s' too long", key);
		return -EINVAL;
	}
	struct irqtune_settings *s =
		out->nrules ? &out->rules[out->nrules - 1].set : &out->global;
	if (!irqtune_settings_set(s, key, value, msg, msgcap))
		return -EINVAL;
	return 0;
}

int irqtune_conf_parse(const void *text, size_t len, const char *file,
		       struct irqtune_conf *out, char *err, size_t errcap)
{
	struct cursor c, line;
	size_t lineno = 0, cap = 0;
	char msg[256];
	irqtune_conf_init(out);
	cursor_init(&c, text, len);
	while (cursor_line(&c, &line)) {
		lineno++;
		msg[0] = '\0';
		int rc = parse_line(line, lineno, out, &cap, msg, sizeof(msg));
		if (rc < 0) {
			snprintf(err, errcap, "%s:%zu: %s", file, lineno,
				 rc == -ENOMEM ? "out of memory" : msg);
			irqtune_conf_free(out);
			return rc;
		}
	}
	return 0;
}

static bool match_name(const char *glob, const struct irqtune_port *p)
{
	if (fnmatch(glob, p->name, 0) == 0 || fnmatch(glob, p->devnode, 0) == 0)
		return true;
	for (size_t i = 0; i < p->nlinks; i++)
		if (fnmatch(glob, p->links[i], 0) == 0)
			return true;
	return false;
}

bool irqtune_rule_matches(const struct irqtune_rule *r,
			  const struct irqtune_port *p)
{
	for (size_t i = 0; i < r->nconds; i++) {
		const struct irqtune_cond *c = &r->conds[i];
		if (strcmp(c->key, "name") == 0) {
			if (!match_name(c->glob, p))
				return false;
			continue;
		}
		const char *v = irqtune_port_prop(p, c->key);
		if (!v || fnmatch(c->glob, v, 0) != 0)
			return false;
	}
	return true;
}

void irqtune_conf_resolve(const struct irqtune_conf *c,
			  const struct irqtune_port *p,
			  const struct irqtune_settings *cli,
			  struct irqtune_settings *out)
{
	irqtune_settings_defaults(out);
	if (c) {
		irqtune_settings_overlay(out, &c->global);
		for (size_t i = 0; i < c->nrules; i++)
			if (irqtune_rule_matches(&c->rules[i], p))
				irqtune_settings_overlay(out, &c->rules[i].set);
	}
	if (cli)
		irqtune_settings_overlay(out, cli);
}
