/*
 * procfs.c: parsers for /proc and sysfs text.  See procfs.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "procfs.h"

#include <errno.h>
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cursor.h"

static bool is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static bool next_is_digit(const struct cursor *c)
{
	uint8_t b;
	return cursor_peek_u8(c, &b) && is_digit(b);
}

/* Copies the cursor's remaining bytes (blanks trimmed at both ends) into
 * a NUL-terminated buffer, cutting what does not fit. */
static void copy_trimmed(struct cursor c, char *buf, size_t cap)
{
	cursor_skip_blanks(&c);
	size_t n = cursor_remaining(&c);
	const uint8_t *p = NULL;
	if (!cursor_view(&c, n, &p))
		n = 0;
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n >= cap)
		n = cap - 1;
	if (n)
		memcpy(buf, p, n);
	buf[n] = '\0';
}

/* "4-edge      ttyS0" -> "4-edge ttyS0" */
static void squeeze_blanks(char *s)
{
	char *w = s;
	for (const char *r = s; *r; r++) {
		bool blank = *r == ' ' || *r == '\t';
		if (blank && w > s && w[-1] == ' ')
			continue;
		*w++ = blank ? ' ' : *r;
	}
	*w = '\0';
}

/* The header names one "CPUn" column per online CPU. */
static bool parse_header(struct cursor line, unsigned *ncpus)
{
	unsigned n = 0;
	struct cursor word;
	cursor_skip_blanks(&line);
	while (cursor_word(&line, &word)) {
		uint64_t id;
		if (!cursor_literal(&word, "CPU") ||
		    !cursor_parse_u64(&word, &id) || !cursor_at_end(&word))
			return false;
		n++;
		cursor_skip_blanks(&line);
	}
	*ncpus = n;
	return n > 0;
}

static int parse_irq_line(struct cursor line, unsigned ncpus,
			  struct irqtune_interrupt *out, bool *numbered)
{
	uint64_t irq;
	*numbered = false;
	cursor_skip_blanks(&line);
	if (!next_is_digit(&line))
		return 0; /* NMI:, LOC:, ERR: ... are not IRQ numbers */
	if (!cursor_parse_u64(&line, &irq) || !cursor_literal(&line, ":") ||
	    irq > INT32_MAX)
		return -EINVAL;
	*numbered = true;
	memset(out, 0, sizeof(*out));
	out->irq = (int)irq;
	for (unsigned i = 0; i < ncpus; i++) {
		uint64_t v;
		if (cursor_skip_blanks(&line) == 0 ||
		    !cursor_parse_u64(&line, &v))
			return -EINVAL;
		out->total = out->total + v < out->total ? UINT64_MAX
							 : out->total + v;
	}
	cursor_skip_blanks(&line);
	struct cursor chip;
	if (cursor_word(&line, &chip))
		copy_trimmed(chip, out->chip, sizeof(out->chip));
	copy_trimmed(line, out->desc, sizeof(out->desc));
	squeeze_blanks(out->desc);
	return 0;
}

int irqtune_interrupts_parse(const void *text, size_t len,
			     struct irqtune_interrupts *out, size_t *bad_line)
{
	struct cursor c, line;
	size_t lineno = 0, cap = 0;
	memset(out, 0, sizeof(*out));
	*bad_line = 0;
	cursor_init(&c, text, len);
	if (!cursor_line(&c, &line) || !parse_header(line, &out->ncpus)) {
		*bad_line = 1;
		return -EINVAL;
	}
	lineno = 1;
	while (cursor_line(&c, &line)) {
		struct irqtune_interrupt one;
		bool numbered;
		lineno++;
		if (parse_irq_line(line, out->ncpus, &one, &numbered) < 0) {
			*bad_line = lineno;
			return -EINVAL;
		}
		if (!numbered)
			continue;
		void *nv = array_grow(out->v, &cap, out->n, sizeof(*out->v), 32);
		if (!nv)
			return -ENOMEM;
		out->v = nv;
		out->v[out->n++] = one;
	}
	return 0;
}

void irqtune_interrupts_free(struct irqtune_interrupts *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

const struct irqtune_interrupt *
irqtune_interrupts_find(const struct irqtune_interrupts *t, int irq)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].irq == irq)
			return &t->v[i];
	return NULL;
}

bool irqtune_thread_irq(const char *comm, int *irq)
{
	struct cursor c;
	uint64_t n;
	cursor_init(&c, comm, strlen(comm));
	if (!cursor_literal(&c, "irq/") || !next_is_digit(&c) ||
	    !cursor_parse_u64(&c, &n) || n > INT32_MAX ||
	    !cursor_literal(&c, "-"))
		return false;
	*irq = (int)n;
	return true;
}

bool irqtune_status_parse(const void *text, size_t len, int *ppid,
			  char *cpus, size_t cap)
{
	struct cursor c, line;
	*ppid = -1;
	if (cap)
		cpus[0] = '\0';
	cursor_init(&c, text, len);
	while (cursor_line(&c, &line)) {
		if (cursor_literal(&line, "PPid:")) {
			uint64_t v;
			cursor_skip_blanks(&line);
			if (!cursor_parse_u64(&line, &v) || v > INT32_MAX)
				return false;
			*ppid = (int)v;
		} else if (cursor_literal(&line, "Cpus_allowed_list:")) {
			if (cap == 0)
				return false;
			copy_trimmed(line, cpus, cap);
		}
	}
	return true;
}

static void cpuset_add(struct irqtune_cpuset *s, unsigned cpu)
{
	s->bits[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

static bool cpuset_has(const struct irqtune_cpuset *s, unsigned cpu)
{
	return (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

bool irqtune_cpulist_parse(const void *text, size_t len,
			   struct irqtune_cpuset *out)
{
	struct cursor c;
	memset(out, 0, sizeof(*out));
	cursor_init(&c, text, len);
	cursor_skip_blanks(&c);
	for (;;) {
		uint64_t lo, hi;
		if (!cursor_parse_u64(&c, &lo))
			return false;
		hi = lo;
		if (cursor_literal(&c, "-") && !cursor_parse_u64(&c, &hi))
			return false;
		if (hi < lo || hi >= IRQTUNE_MAX_CPUS)
			return false;
		for (uint64_t i = lo; i <= hi; i++)
			cpuset_add(out, (unsigned)i);
		if (!cursor_literal(&c, ","))
			break;
	}
	cursor_skip_blanks(&c);
	cursor_literal(&c, "\n");
	return cursor_ok(&c) && cursor_at_end(&c);
}

bool irqtune_cpulist_format(const struct irqtune_cpuset *set, char *buf,
			    size_t cap)
{
	struct wcursor w;
	bool first = true;
	wcursor_init(&w, buf, cap);
	for (unsigned i = 0; i < IRQTUNE_MAX_CPUS; i++) {
		if (!cpuset_has(set, i))
			continue;
		unsigned j = i;
		while (j + 1 < IRQTUNE_MAX_CPUS && cpuset_has(set, j + 1))
			j++;
		char part[32];
		int n = j > i ? snprintf(part, sizeof(part), "%s%u-%u",
					 first ? "" : ",", i, j)
			      : snprintf(part, sizeof(part), "%s%u",
					 first ? "" : ",", i);
		wcursor_bytes(&w, part, (size_t)n);
		first = false;
		i = j;
	}
	return !first && wcursor_u8(&w, 0);
}

bool irqtune_cpuset_equal(const struct irqtune_cpuset *a,
			  const struct irqtune_cpuset *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

static const struct {
	const char *name;
	int policy;
	bool rt;
} policies[] = {
	{ "other", SCHED_OTHER, false }, { "fifo", SCHED_FIFO, true },
	{ "rr", SCHED_RR, true },	 { "batch", SCHED_BATCH, false },
	{ "idle", SCHED_IDLE, false },
};

const char *irqtune_policy_name(int policy)
{
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (policies[i].policy == policy)
			return policies[i].name;
	return NULL;
}

bool irqtune_sched_parse(const char *text, struct irqtune_sched *out)
{
	struct cursor c;
	uint64_t prio;
	cursor_init(&c, text, strlen(text));
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		struct cursor t = c;
		if (!cursor_literal(&t, policies[i].name) ||
		    !cursor_literal(&t, "/") || !cursor_parse_u64(&t, &prio) ||
		    !cursor_at_end(&t))
			continue;
		if (policies[i].rt ? prio < 1 || prio > 99 : prio != 0)
			return false;
		struct irqtune_sched s = { policies[i].policy, (int)prio };
		char canon[32];
		/* only the canonical spelling: "fifo/090" is not a value */
		if (!irqtune_sched_format(&s, canon, sizeof(canon)) ||
		    strcmp(canon, text) != 0)
			return false;
		*out = s;
		return true;
	}
	return false;
}

bool irqtune_sched_format(const struct irqtune_sched *s, char *buf,
			  size_t cap)
{
	const char *name = irqtune_policy_name(s->policy);
	int n = name ? snprintf(buf, cap, "%s/%d", name, s->prio)
		     : snprintf(buf, cap, "policy%d/%d", s->policy, s->prio);
	return n > 0 && (size_t)n < cap;
}

bool irqtune_parse_long(const void *text, size_t len, long min, long max,
			long *out)
{
	struct cursor c;
	uint64_t v;
	bool neg;
	cursor_init(&c, text, len);
	cursor_skip_blanks(&c);
	neg = cursor_literal(&c, "-");
	if (!cursor_parse_u64(&c, &v) || v > (uint64_t)LONG_MAX)
		return false;
	cursor_skip_blanks(&c);
	cursor_literal(&c, "\n");
	if (!cursor_at_end(&c))
		return false;
	long s = neg ? -(long)v : (long)v;
	if (s < min || s > max)
		return false;
	*out = s;
	return true;
}

bool irqtune_copy(char *dst, size_t cap, const char *src)
{
	size_t n = src ? strlen(src) : 0;
	bool fits = n < cap;
	if (cap == 0)
		return false;
	if (!fits)
		n = cap - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
	return fits;
}

bool irqtune_fail(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
	return false;
}
