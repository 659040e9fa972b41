/*
 * test_irqtune_fake.c: the in-memory system.  See test_irqtune_fake.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "test_irqtune_fake.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void note_change(struct fake_sys *f)
{
	struct stat st;
	f->changes++;
	if (f->state_path && stat(f->state_path, &st) != 0)
		f->changes_before_state++;
}

struct fake_file *fake_find(struct fake_sys *f, const char *path)
{
	for (size_t i = 0; i < FAKE_MAX_FILES; i++)
		if (f->files[i].used && strcmp(f->files[i].path, path) == 0)
			return &f->files[i];
	return NULL;
}

struct fake_file *fake_file(struct fake_sys *f, const char *path,
			    const char *text)
{
	struct fake_file *x = fake_find(f, path);
	for (size_t i = 0; !x && i < FAKE_MAX_FILES; i++)
		if (!f->files[i].used)
			x = &f->files[i];
	if (!x)
		abort();
	memset(x, 0, sizeof(*x));
	x->used = true;
	snprintf(x->path, sizeof(x->path), "%s", path);
	snprintf(x->text, sizeof(x->text), "%s", text);
	return x;
}

void fake_remove(struct fake_sys *f, const char *path)
{
	struct fake_file *x = fake_find(f, path);
	if (x)
		x->used = false;
}

const char *fake_text(struct fake_sys *f, const char *path)
{
	struct fake_file *x = fake_find(f, path);
	return x ? x->text : NULL;
}

struct fake_thread *fake_sched(struct fake_sys *f, int pid)
{
	for (size_t i = 0; i < FAKE_MAX_THREADS; i++)
		if (f->threads[i].used && f->threads[i].pid == pid)
			return &f->threads[i];
	return NULL;
}

struct fake_thread *fake_thread(struct fake_sys *f, int pid, const char *comm,
				int ppid, int policy, int prio,
				const char *cpus)
{
	char path[64], text[256];
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	snprintf(text, sizeof(text), "%s\n", comm);
	fake_file(f, path, text);
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	snprintf(text, sizeof(text),
		 "Name:\t%s\nState:\tS (sleeping)\nPid:\t%d\nPPid:\t%d\n"
		 "Cpus_allowed:\tff\nCpus_allowed_list:\t%s\n", comm, pid,
		 ppid, cpus);
	fake_file(f, path, text);
	struct fake_thread *t = fake_sched(f, pid);
	for (size_t i = 0; !t && i < FAKE_MAX_THREADS; i++)
		if (!f->threads[i].used)
			t = &f->threads[i];
	if (!t)
		abort();
	memset(t, 0, sizeof(*t));
	t->used = true;
	t->pid = pid;
	t->sched.policy = policy;
	t->sched.prio = prio;
	return t;
}

void fake_kill(struct fake_sys *f, int pid)
{
	char path[64];
	struct fake_thread *t = fake_sched(f, pid);
	if (t)
		t->used = false;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fake_remove(f, path);
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fake_remove(f, path);
}

struct fake_tty *fake_tty(struct fake_sys *f, const char *devnode, bool low)
{
	for (size_t i = 0; i < 4; i++) {
		struct fake_tty *t = &f->ttys[i];
		if (t->used)
			continue;
		t->used = true;
		snprintf(t->devnode, sizeof(t->devnode), "%s", devnode);
		t->low_latency = low;
		return t;
	}
	abort();
}

static struct fake_tty *tty_of(struct fake_sys *f, const char *devnode)
{
	for (size_t i = 0; i < 4; i++)
		if (f->ttys[i].used && strcmp(f->ttys[i].devnode, devnode) == 0)
			return &f->ttys[i];
	return NULL;
}

static int f_read(void *ctx, const char *path, char *buf, size_t cap,
		  size_t *len)
{
	struct fake_file *x = fake_find(ctx, path);
	*len = 0;
	if (!x)
		return -ENOENT;
	const struct fake_tty *low = x->low_tty ? tty_of(ctx, x->low_tty) : NULL;
	const char *text = low && low->low_latency ? "1\n" : x->text;
	size_t n = strlen(text);
	if (n + 1 > cap)
		return -EFBIG;
	memcpy(buf, text, n + 1);
	*len = n;
	return 0;
}

static int f_write(void *ctx, const char *path, const char *text)
{
	struct fake_sys *f = ctx;
	struct fake_file *x = fake_find(f, path);
	if (!x)
		return -ENOENT;
	if (x->write_err)
		return x->write_err;
	note_change(f);
	x->writes++;
	long v = strtol(text, NULL, 10);
	if (x->clamp > 0 && v > x->clamp)
		snprintf(x->text, sizeof(x->text), "%ld\n", x->clamp);
	else
		snprintf(x->text, sizeof(x->text), "%s\n", text);
	return 0;
}

static int f_list(void *ctx, const char *path, irqtune_dir_fn fn, void *arg)
{
	struct fake_sys *f = ctx;
	char seen[FAKE_MAX_FILES][64];
	size_t nseen = 0, plen = strlen(path);
	bool any = false;
	for (size_t i = 0; i < FAKE_MAX_FILES; i++) {
		const struct fake_file *x = &f->files[i];
		if (!x->used || strncmp(x->path, path, plen) != 0 ||
		    x->path[plen] != '/')
			continue;
		any = true;
		const char *name = x->path + plen + 1;
		size_t n = strcspn(name, "/");
		char one[64];
		snprintf(one, sizeof(one), "%.*s", (int)n, name);
		bool dup = false;
		for (size_t k = 0; k < nseen && !dup; k++)
			dup = strcmp(seen[k], one) == 0;
		if (dup)
			continue;
		memcpy(seen[nseen++], one, sizeof(one));
		int rc = fn(arg, one);
		if (rc)
			return rc;
	}
	return any ? 0 : -ENOENT;
}

static int f_get_sched(void *ctx, int pid, struct irqtune_sched *out)
{
	struct fake_thread *t = fake_sched(ctx, pid);
	if (!t)
		return -ESRCH;
	*out = t->sched;
	return 0;
}

static int f_set_sched(void *ctx, int pid, const struct irqtune_sched *s)
{
	struct fake_sys *f = ctx;
	struct fake_thread *t = fake_sched(f, pid);
	if (!t)
		return -ESRCH;
	if (t->set_err)
		return t->set_err;
	note_change(f);
	t->sched = *s;
	return 0;
}

static int f_get_low(void *ctx, const char *devnode, bool *on)
{
	struct fake_tty *t = tty_of(ctx, devnode);
	if (!t)
		return -ENOENT;
	if (t->err)
		return t->err;
	*on = t->low_latency;
	return 0;
}

static int f_set_low(void *ctx, const char *devnode, bool on)
{
	struct fake_sys *f = ctx;
	struct fake_tty *t = tty_of(f, devnode);
	if (!t)
		return -ENOENT;
	if (t->err)
		return t->err;
	note_change(f);
	t->low_latency = on;
	return 0;
}

static int f_icount(void *ctx, const char *devnode, struct irqtune_icount *out)
{
	struct fake_tty *t = tty_of(ctx, devnode);
	if (!t)
		return -ENOENT;
	if (t->err)
		return t->err;
	*out = t->ic;
	return 0;
}

static int f_port_out(void *ctx, unsigned port, uint8_t value)
{
	struct fake_sys *f = ctx;
	if (f->nport == 4)
		return -ENOSPC;
	note_change(f);
	f->port[f->nport] = port;
	f->value[f->nport++] = value;
	return 0;
}

static const struct irqtune_sys_ops fake_ops = {
	.read_file = f_read,
	.write_file = f_write,
	.list_dir = f_list,
	.get_sched = f_get_sched,
	.set_sched = f_set_sched,
	.get_low_latency = f_get_low,
	.set_low_latency = f_set_low,
	.get_icount = f_icount,
	.port_out = f_port_out,
};

void fake_init(struct fake_sys *f, struct irqtune_sys *sys)
{
	memset(f, 0, sizeof(*f));
	sys->ops = &fake_ops;
	sys->ctx = f;
}
