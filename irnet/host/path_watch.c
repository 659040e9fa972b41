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

#define WATCH_MASK (IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_ONLYDIR)
#define NWATCH 2   /* the path's directory, the target's */
/* Climbs and descents in one settle: more than any path has levels. */
#define SETTLE_MAX 64

/*
 * One name to wait for, in dir.  While dir exists, the watch is on dir;
 * while it does not (udev removes an empty /dev/serial/by-id), on its
 * nearest existing ancestor (at, a prefix of dir), for the next level
 * down (next) to be created, and so on down.
 */
struct watch {
	int wd;                  /* -1: none */
	char dir[PATH_MAX];
	char name[NAME_MAX + 1];
	char at[PATH_MAX];       /* the directory watched: dir or an ancestor */
	char next[NAME_MAX + 1]; /* at's entry on the way to dir; "": at is dir */
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

/* Drops watch i's descriptor unless the other watch shares it (the same
 * directory gives the same descriptor). */
static void drop_wd(struct path_watch *pw, int i)
{
	int wd = pw->w[i].wd;

	pw->w[i].wd = -1;
	if (wd < 0)
		return;
	for (int j = 0; j < NWATCH; j++)
		if (pw->w[j].wd == wd)
			return;
	inotify_rm_watch(pw->fd, wd);
}

static void remove_watches(struct path_watch *pw)
{
	for (int i = 0; i < NWATCH; i++)
		drop_wd(pw, i);
}

/* The parent of a (a prefix of dir): "/a/b" -> "/a", "/a" -> "/",
 * "a" -> "."; false at the top ("/" or "."). */
static bool climb(char *a)
{
	char *slash = strrchr(a, '/');

	if (strcmp(a, "/") == 0 || strcmp(a, ".") == 0)
		return false;
	if (!slash)
		memcpy(a, ".", 2);
	else if (slash == a)
		a[1] = '\0';
	else
		*slash = '\0';
	return true;
}

/* The entry of at (a proper prefix of dir) on the way to dir. */
static void next_level(const struct watch *w, char *next)
{
	size_t alen = strlen(w->at);
	const char *rest = w->dir;
	size_t n;

	if (strcmp(w->at, ".") == 0 && w->dir[0] != '/' && strncmp(w->dir, "./", 2) != 0)
		alen = 0;     /* "a/b" under "." */
	else if (w->at[alen - 1] != '/')
		alen++;       /* the slash after at */
	rest += alen;
	n = strcspn(rest, "/");
	if (n > NAME_MAX)
		n = NAME_MAX;
	memcpy(next, rest, n);
	next[n] = '\0';
}

/* Watches dir, or its nearest existing ancestor.  A level created while
 * we climbed is seen by the check after the watch is set (it would not
 * give an event): then once more from the top.  Returns 0, or -errno
 * with err (a directory that exists but cannot be watched). */
static int settle(struct path_watch *pw, int i, char *err, size_t errlen)
{
	struct watch *w = &pw->w[i];
	char next[NAME_MAX + 1] = "";
	char probe[PATH_MAX];

	drop_wd(pw, i);
	for (int round = 0; round < SETTLE_MAX; round++) {
		int wd = -1, e = ENOENT;

		memcpy(w->at, w->dir, strlen(w->dir) + 1);
		for (int up = 0; up < SETTLE_MAX; up++) {
			wd = inotify_add_watch(pw->fd, w->at, WATCH_MASK);
			e = errno;
			if (wd >= 0 || e != ENOENT || !climb(w->at))
				break;
		}
		if (wd < 0) {
			snprintf(err, errlen, "%s: cannot watch: %s", w->at, strerror(e));
			return -e;
		}
		w->wd = wd;
		if (strcmp(w->at, w->dir) == 0) {
			w->next[0] = '\0';
			return 0;
		}
		next_level(w, next);
		memcpy(w->next, next, strlen(next) + 1);
		if (snprintf(probe, sizeof(probe), "%s/%s", w->at, next) >= (int)sizeof(probe) ||
		    access(probe, F_OK) < 0)
			return 0;
		drop_wd(pw, i);   /* it appeared meanwhile: go down again */
	}
	snprintf(err, errlen, "%s: its directories keep changing", w->dir);
	return -EAGAIN;
}

static void log_where(struct path_watch *pw, int i, const char *why)
{
	const struct watch *w = &pw->w[i];

	if (w->next[0])
		log_msg(pw->log, LOG_LEVEL_WARNING,
			"%s: %s: waiting in %s for %s to be made", w->dir, why, w->at, w->next);
	else
		log_msg(pw->log, LOG_LEVEL_DEBUG, "path watch: %s: %s: watching it", w->dir, why);
}

/* Watch i's directory went away, or the level it waited for came: move
 * the watch; the device's name may be there already, so look. */
static void resettle(struct path_watch *pw, int i, const char *why)
{
	char err[PATH_MAX + 64];

	if (settle(pw, i, err, sizeof(err)) < 0) {
		log_msg(pw->log, LOG_LEVEL_WARNING, "%s: %s: no longer watched", err, why);
		return;
	}
	log_where(pw, i, why);
	if (!pw->w[i].next[0])
		due(pw);
}

static void on_event(struct path_watch *pw, const struct inotify_event *ev, const char *name)
{
	bool ours = false;

	for (int i = 0; i < NWATCH; i++) {
		struct watch *w = &pw->w[i];

		if (w->wd < 0 || w->wd != ev->wd)
			continue;
		if (ev->mask & IN_IGNORED) {
			w->wd = -1;   /* gone with its directory */
			resettle(pw, i, "the directory went away");
		} else if (w->next[0] && name && strcmp(name, w->next) == 0) {
			resettle(pw, i, "a directory on its way came back");
		} else if (!w->next[0]) {
			ours |= name && strcmp(name, w->name) == 0;
		}
	}
	if (ours) {
		log_msg(pw->log, LOG_LEVEL_DEBUG, "path watch: %s (mask 0x%x)", name,
			(unsigned)ev->mask);
		due(pw);
	}
}

void inotify_read_events(int fd, inotify_event_fn fn, void *ctx)
{
	uint8_t buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		struct cursor cur;
		struct inotify_event ev;
		const uint8_t *raw;

		cursor_init(&cur, buf, (size_t)n);
		while (cursor_copy(&cur, &ev, sizeof(ev)) && cursor_view(&cur, ev.len, &raw)) {
			char name[NAME_MAX + 1];
			size_t len = strnlen((const char *)raw, ev.len);

			if (len > NAME_MAX)
				len = NAME_MAX;
			memcpy(name, raw, len);
			name[len] = '\0';
			fn(ctx, &ev, len ? name : NULL);
		}
	}
}

static void on_one_event(void *ctx, const struct inotify_event *ev, const char *name)
{
	struct path_watch *pw = ctx;

	if (ev->mask & IN_Q_OVERFLOW) {
		due(pw); /* something may have been missed: look */
		return;
	}
	if (pw->active)
		on_event(pw, ev, name);
}

static void on_readable(struct eloop *loop, int fd, void *ctx)
{
	(void)loop;
	inotify_read_events(fd, on_one_event, ctx);
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
	int r;

	if (split(path, &pw->w[i]) < 0) {
		snprintf(err, errlen, "%s: not a path to watch", path);
		return -EINVAL;
	}
	r = settle(pw, i, err, errlen);
	if (r == 0 && pw->w[i].next[0])
		log_where(pw, i, "not there");
	return r;
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
		pw->w[0].at, pw->w[1].wd >= 0 ? ", " : "", pw->w[1].wd >= 0 ? pw->w[1].name : "",
		pw->w[1].wd >= 0 ? " in " : "", pw->w[1].wd >= 0 ? pw->w[1].at : "");
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
