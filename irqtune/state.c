/*
 * state.c: the state file of original values.  See state.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "cursor.h"
#include "fileio.h"
#include "procfs.h"

#define STATE_MAGIC "irqtune-state 1"

static const char *const knob_names[] = {
	[IRQTUNE_KNOB_SCHED] = "sched",
	[IRQTUNE_KNOB_AFFINITY] = "affinity",
	[IRQTUNE_KNOB_ATTR] = "attr",
	[IRQTUNE_KNOB_LOW_LATENCY] = "low_latency",
};

const char *irqtune_knob_name(enum irqtune_knob k)
{
	return (unsigned)k < sizeof(knob_names) / sizeof(knob_names[0])
		       ? knob_names[k]
		       : "?";
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Only the attributes irqtune sets, only below /sys, never "..". */
static bool safe_path(const char *p, const char *prefix)
{
	return strncmp(p, prefix, strlen(prefix)) == 0 && !strstr(p, "/../") &&
	       !ends_with(p, "/..");
}

bool irqtune_entry_valid(const struct irqtune_entry *e, char *err, size_t cap)
{
	struct irqtune_sched s;
	struct irqtune_cpuset set;
	long v;
	int irq;
	if (!e->device[0] || strchr(e->device, '/'))
		return irqtune_fail(err, cap, "bad device name '%s'", e->device);
	switch (e->knob) {
	case IRQTUNE_KNOB_SCHED:
		if (!irqtune_thread_irq(e->target, &irq))
			return irqtune_fail(err, cap, "'%s' is not an IRQ thread name",
				    e->target);
		if (!irqtune_sched_parse(e->value, &s))
			return irqtune_fail(err, cap, "'%s' is not a scheduling value "
				    "such as fifo/50", e->value);
		return true;
	case IRQTUNE_KNOB_AFFINITY:
		if (!irqtune_parse_long(e->target, strlen(e->target), 0,
					INT32_MAX, &v) ||
		    strchr(e->target, ' '))
			return irqtune_fail(err, cap, "'%s' is not an IRQ number",
				    e->target);
		if (!irqtune_cpulist_parse(e->value, strlen(e->value), &set))
			return irqtune_fail(err, cap, "'%s' is not a CPU list", e->value);
		return true;
	case IRQTUNE_KNOB_ATTR:
		if (!safe_path(e->target, "/sys/") ||
		    !(ends_with(e->target, "/rx_trig_bytes") ||
		      ends_with(e->target, "/latency_timer")))
			return irqtune_fail(err, cap, "'%s' is not an rx_trig_bytes or "
				    "latency_timer attribute in /sys", e->target);
		if (!irqtune_parse_long(e->value, strlen(e->value), 0, 4096, &v) ||
		    strchr(e->value, ' '))
			return irqtune_fail(err, cap, "'%s' is not a number", e->value);
		return true;
	case IRQTUNE_KNOB_LOW_LATENCY:
		if (!safe_path(e->target, "/dev/"))
			return irqtune_fail(err, cap, "'%s' is not a /dev node", e->target);
		if (strcmp(e->value, "0") != 0 && strcmp(e->value, "1") != 0)
			return irqtune_fail(err, cap, "'%s' is not 0 or 1", e->value);
		return true;
	}
	return irqtune_fail(err, cap, "unknown knob");
}

/* Splits one tab-separated field of printable bytes off the line. */
static bool field(struct cursor *line, char *buf, size_t cap)
{
	size_t n = 0;
	struct cursor probe = *line;
	uint8_t b;
	while (cursor_peek_u8(&probe, &b) && b != '\t') {
		if (b < 0x20 || b == 0x7f)
			return false; /* no control bytes, no NUL */
		cursor_skip(&probe, 1);
		n++;
	}
	struct cursor f;
	if (n == 0 || !cursor_sub(line, n, &f) || !cursor_to_cstr(&f, buf, cap))
		return false;
	cursor_literal(line, "\t");
	return true;
}

static int parse_entry(struct cursor line, struct irqtune_entry *e, char *msg,
		       size_t cap)
{
	char kind[16];
	memset(e, 0, sizeof(*e));
	if (!field(&line, kind, sizeof(kind)) ||
	    !field(&line, e->device, sizeof(e->device)) ||
	    !field(&line, e->target, sizeof(e->target)) ||
	    !field(&line, e->value, sizeof(e->value)) || !cursor_at_end(&line))
		return irqtune_fail(msg, cap, "expected KNOB<tab>DEVICE<tab>TARGET"
			    "<tab>VALUE"), -EINVAL;
	size_t k;
	for (k = 0; k < sizeof(knob_names) / sizeof(knob_names[0]); k++)
		if (strcmp(kind, knob_names[k]) == 0)
			break;
	if (k == sizeof(knob_names) / sizeof(knob_names[0]))
		return irqtune_fail(msg, cap, "unknown knob '%s'", kind), -EINVAL;
	e->knob = (enum irqtune_knob)k;
	return irqtune_entry_valid(e, msg, cap) ? 0 : -EINVAL;
}

int irqtune_state_parse(const void *text, size_t len, const char *file,
			struct irqtune_state *out, char *err, size_t cap)
{
	struct cursor c, line;
	size_t lineno = 0;
	bool seen_magic = false;
	char msg[IRQTUNE_PATH + 128];
	memset(out, 0, sizeof(*out));
	cursor_init(&c, text, len);
	while (cursor_line(&c, &line)) {
		struct irqtune_entry e;
		uint8_t first;
		lineno++;
		if (!cursor_peek_u8(&line, &first) || first == '#')
			continue;
		if (!seen_magic) {
			seen_magic = true;
			if (!cursor_equals(&line, STATE_MAGIC)) {
				snprintf(err, cap, "%s:%zu: not an irqtune "
					 "state file (no '%s' header)", file,
					 lineno, STATE_MAGIC);
				irqtune_state_free(out);
				return -EINVAL;
			}
			continue;
		}
		msg[0] = '\0';
		int rc = parse_entry(line, &e, msg, sizeof(msg));
		if (rc == 0 && irqtune_state_find(out, e.knob, e.target) >= 0) {
			snprintf(msg, sizeof(msg), "%s %s recorded twice",
				 knob_names[e.knob], e.target);
			rc = -EINVAL;
		}
		if (rc == 0)
			rc = irqtune_state_add(out, &e);
		if (rc < 0) {
			snprintf(err, cap, "%s:%zu: %s", file, lineno,
				 rc == -ENOMEM ? "out of memory" : msg);
			irqtune_state_free(out);
			return rc;
		}
	}
	return 0;
}

int irqtune_state_format(const struct irqtune_state *s, char **text,
			 size_t *len)
{
	size_t cap = 128 + s->n * (sizeof(struct irqtune_entry) + 8);
	char *buf = malloc(cap);
	struct wcursor w;
	if (!buf)
		return -ENOMEM;
	wcursor_init(&w, buf, cap);
	static const char head[] =
		STATE_MAGIC "\n# original values, put back by `irqtune "
			    "restore`; do not edit\n";
	wcursor_bytes(&w, head, sizeof(head) - 1);
	for (size_t i = 0; i < s->n; i++) {
		const struct irqtune_entry *e = &s->v[i];
		char line[sizeof(*e) + 16];
		int n = snprintf(line, sizeof(line), "%s\t%s\t%s\t%s\n",
				 knob_names[e->knob], e->device, e->target,
				 e->value);
		if (n > 0)
			wcursor_bytes(&w, line, (size_t)n);
	}
	if (!wcursor_ok(&w)) {
		free(buf);
		return -EOVERFLOW;
	}
	*text = buf;
	*len = wcursor_len(&w);
	return 0;
}

void irqtune_state_free(struct irqtune_state *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int irqtune_state_add(struct irqtune_state *s, const struct irqtune_entry *e)
{
	void *nv = array_grow(s->v, &s->cap, s->n, sizeof(*s->v), 16);
	if (!nv)
		return -ENOMEM;
	s->v = nv;
	s->v[s->n++] = *e;
	return 0;
}

long irqtune_state_find(const struct irqtune_state *s, enum irqtune_knob k,
			const char *target)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].knob == k && strcmp(s->v[i].target, target) == 0)
			return (long)i;
	return -1;
}

void irqtune_state_remove(struct irqtune_state *s, size_t i)
{
	if (i >= s->n)
		return;
	memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof(*s->v));
	s->n--;
}

static int dir_of(const char *path, char *dir, size_t cap)
{
	char tmp[PATH_MAX];
	int n = snprintf(tmp, sizeof(tmp), "%s", path);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	n = snprintf(dir, cap, "%s", dirname(tmp));
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

int irqtune_state_lock(const char *path)
{
	char dir[PATH_MAX], lock[PATH_MAX];
	int rc = dir_of(path, dir, sizeof(dir));
	if (rc < 0)
		return rc;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	int n = snprintf(lock, sizeof(lock), "%s.lock", path);
	if (n < 0 || (size_t)n >= sizeof(lock))
		return -ENAMETOOLONG;
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			rc = -errno;
			close(fd);
			return rc;
		}
	}
	return fd;
}

void irqtune_state_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* A state file holds one line per changed value: far below this. */
#define STATE_FILE_MAX (1u << 24)

int irqtune_state_load(const char *path, struct irqtune_state *out, char *err,
		       size_t cap)
{
	uint8_t *buf;
	size_t len;
	memset(out, 0, sizeof(*out));
	int rc = file_read_all(path, STATE_FILE_MAX, &buf, &len);
	if (rc == -ENOENT)
		return 0;  /* nothing applied yet */
	if (rc < 0) {
		snprintf(err, cap, "%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = irqtune_state_parse(buf, len, path, out, err, cap);
	free(buf);
	return rc;
}


struct state_text {
	const char *text;
	size_t len;
};

static int fill_with_text(int fd, void *ctx)
{
	const struct state_text *t = ctx;
	return fd_write_all(fd, t->text, t->len);
}

int irqtune_state_save(const char *path, const struct irqtune_state *s)
{
	if (s->n == 0)
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	struct state_text t;
	char *text;
	int rc = irqtune_state_format(s, &text, &t.len);
	if (rc < 0)
		return rc;
	t.text = text;
	/* 0600: the file records system settings that only root restores. */
	rc = file_write_atomic(path, 0600, fill_with_text, &t, NULL);
	free(text);
	return rc;
}
