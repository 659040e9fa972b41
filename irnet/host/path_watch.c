/*
 * path_watch.c: waiting for a device path to come back.  See path_watch.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "cursor.h"
#include "path_watch.h"

#define WATCH_MASK (IN_CREATE | IN_MOVED_TO | IN_ATTRIB)
#define NWATCH 2   /* the path's directory, the target's */

struct watch {
	int wd;                  /* -1: none */
	char dir[PATH_MAX];
	char name[NAME_MAX + 1];
};

struct path_watch {
	struct eloop *loop;
	const struct logger *log;
	path_watch_fn fn;
	void *ctx;
	int fd;
	bool active;
	struct watch w[NWATCH];
	struct eloop_timer due;
	uint64_t last_call_us;   /* 0: never */
	uint64_t calls;
};

/* "/a/b/c" -> "/a/b" and "c"; "c" -> "." and "c". */
static int split(const char *path, struct watch *w)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) : 1;
	const char *base = slash ? slash + 1 : path;

	if (!*base || strlen(base) > NAME_MAX || dlen >= sizeof(w->dir))
		return -EINVAL;
	if (!slash)
		memcpy(w->dir, ".", 2);
	else if (dlen == 0)
		memcpy(w->dir, "/", 2);
	else {
		memcpy(w->dir, path, dlen);
		w->dir[dlen] = '\0';
	}
	memcpy(w->name, base, strlen(base) + 1);
	return 0;
}

static void call_now(struct eloop *loop, void *ctx)
{
	struct path_watch *pw = ctx;

	(void)loop;
	if (!pw->active)
		return;
	pw->last_call_us = eloop_now_us();
	pw->calls++;
	pw->fn(pw->ctx);
}

/* A callback at once, or at the end of the interval since the last. */
static void due(struct path_watch *pw)
{
	uint64_t at = pw->last_call_us ? pw->last_call_us + PATH_WATCH_MIN_INTERVAL_US : 0;

	if (!eloop_timer_pending(&pw->due))
		eloop_timer_arm_at(pw->loop, &pw->due, at);
}

static void remove_watches(struct path_watch *pw)
{
	for (int i = 0; i < NWATCH; i++) {
		/* the second may share the first's descriptor (same directory) */
		if (pw->w[i].wd >= 0 && (i == 0 || pw->w[i].wd != pw->w[0].wd))
			inotify_rm_watch(pw->fd, pw->w[i].wd);
		pw->w[i].wd = -1;
	}
}

static void on_event(struct path_watch *pw, const struct inotify_event *ev, const char *name)
{
	bool ours = false;

	for (int i = 0; i < NWATCH; i++) {
		if (pw->w[i].wd != ev->wd)
			continue;
		if (ev->mask & IN_IGNORED) {
			log_msg(pw->log, LOG_LEVEL_WARNING,
				"%s: the directory went away: its names are no longer watched",
				pw->w[i].dir);
			pw->w[i].wd = -1;
			continue;
		}
		ours |= name && strcmp(name, pw->w[i].name) == 0;
	}
	if (ours) {
		log_msg(pw->log, LOG_LEVEL_DEBUG, "path watch: %s (mask 0x%x)", name,
			(unsigned)ev->mask);
		due(pw);
	}
}

static void on_readable(struct eloop *loop, int fd, void *ctx)
{
	struct path_watch *pw = ctx;
	uint8_t buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	(void)loop;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		struct cursor cur;
		struct inotify_event ev;
		const uint8_t *raw;

		cursor_init(&cur, buf, (size_t)n);
		while (cursor_copy(&cur, &ev, sizeof(ev)) && cursor_view(&cur, ev.len, &raw)) {
			char name[NAME_MAX + 1];
			size_t len = strnlen((const char *)raw, ev.len);

			if (ev.mask & IN_Q_OVERFLOW) {
				due(pw); /* something may have been missed: look */
				continue;
			}
			if (!pw->active)
				continue;
			if (len > NAME_MAX)
				len = NAME_MAX;
			memcpy(name, raw, len);
			name[len] = '\0';
			on_event(pw, &ev, len ? name : NULL);
		}
	}
}

int path_watch_new(struct eloop *loop, const struct logger *log, path_watch_fn fn, void *ctx,
		   struct path_watch **out, char *err, size_t errlen)
{
	struct path_watch *pw = calloc(1, sizeof(*pw));
	int r;

	*out = NULL;
	if (!pw) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pw->loop = loop;
	pw->log = log;
	pw->fn = fn;
	pw->ctx = ctx;
	for (int i = 0; i < NWATCH; i++)
		pw->w[i].wd = -1;
	eloop_timer_init(&pw->due, call_now, pw);
	pw->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (pw->fd < 0) {
		r = -errno;
		snprintf(err, errlen, "inotify: %s", strerror(errno));
		free(pw);
		return r;
	}
	r = eloop_add_reader(loop, pw->fd, on_readable, pw);
	if (r < 0) {
		snprintf(err, errlen, "event loop: %s", strerror(-r));
		close(pw->fd);
		free(pw);
		return r;
	}
	*out = pw;
	return 0;
}

static int add_watch(struct path_watch *pw, int i, const char *path, char *err, size_t errlen)
{
	if (split(path, &pw->w[i]) < 0) {
		snprintf(err, errlen, "%s: not a path to watch", path);
		return -EINVAL;
	}
	pw->w[i].wd = inotify_add_watch(pw->fd, pw->w[i].dir, WATCH_MASK);
	if (pw->w[i].wd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot watch: %s", pw->w[i].dir, strerror(e));
		return -e;
	}
	return 0;
}

int path_watch_start(struct path_watch *pw, const char *path, const char *target, char *err,
		     size_t errlen)
{
	int r;

	path_watch_stop(pw);
	r = add_watch(pw, 0, path, err, errlen);
	if (r == 0 && target && strcmp(target, path) != 0)
		r = add_watch(pw, 1, target, err, errlen);
	if (r < 0) {
		remove_watches(pw);
		return r;
	}
	pw->active = true;
	log_msg(pw->log, LOG_LEVEL_DEBUG, "path watch: %s in %s%s%s%s%s", pw->w[0].name,
		pw->w[0].dir, pw->w[1].wd >= 0 ? ", " : "", pw->w[1].wd >= 0 ? pw->w[1].name : "",
		pw->w[1].wd >= 0 ? " in " : "", pw->w[1].wd >= 0 ? pw->w[1].dir : "");
	due(pw);
	return 0;
}

void path_watch_stop(struct path_watch *pw)
{
	pw->active = false;
	eloop_timer_cancel(pw->loop, &pw->due);
	remove_watches(pw);
}

uint64_t path_watch_calls(const struct path_watch *pw)
{
	return pw->calls;
}

void path_watch_free(struct path_watch *pw)
{
	if (!pw)
		return;
	path_watch_stop(pw);
	eloop_remove_reader(pw->loop, pw->fd);
	close(pw->fd);
	free(pw);
}
