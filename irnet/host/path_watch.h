/*
 * path_watch.h: waiting, without polling, for a device path to come back
 * (a USB-serial adapter plugged in again).
 *
 * Owns: one inotify descriptor in the event loop, watches on the
 * directory of a path and, when the path was a symlink, on the directory
 * of the device it led to; which names count (the path's last component
 * and the target's: created, moved in, attributes changed, as udev does
 * when it makes the node, then sets its owner and mode, then its
 * symlinks); and a rate limit: the callback runs from the loop at most
 * once per interval, events in between are folded into one call at the
 * interval's end.  Nothing runs while nothing happens in those
 * directories.
 *
 * Does not own: what is done when a name appears (the callback tries to
 * open the device; it may fail and wait for the next event), the loop.
 *
 * A directory that is not there (udev removes /dev/serial/by-id with its
 * last link) is waited for in its nearest existing ancestor; as the
 * levels are made again (IN_CREATE, IN_MOVED_TO), the watch walks back
 * down to the directory, still without polling, and a callback is due
 * when it gets there (the name may be in it already).  A directory
 * removed while watched (IN_IGNORED) makes the watch climb again.  Only
 * a level that exists and cannot be watched (not a directory, no
 * permission) ends the watch (an error at start, a warning later).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_PATH_WATCH_H
#define IRNET_PATH_WATCH_H

#include <stdint.h>
#include <stddef.h>

#include "eloop.h"
#include "log.h"

struct path_watch;
struct inotify_event;

/* Reads every event waiting on the inotify descriptor fd (non-blocking)
 * through the cursor and calls fn for each, with its name cut at the
 * first NUL (NULL when the event has none).  Shared by every inotify
 * user in the host: path_watch and ircomm_pty's slave open count. */
typedef void (*inotify_event_fn)(void *ctx, const struct inotify_event *ev, const char *name);
void inotify_read_events(int fd, inotify_event_fn fn, void *ctx);

typedef void (*path_watch_fn)(void *ctx);

/* The shortest time between two callbacks. */
#define PATH_WATCH_MIN_INTERVAL_US 1000000u

/* Makes the inotify descriptor and registers it with the loop.  Returns
 * 0 and *out, or -errno with a message in err. */
int path_watch_new(struct eloop *loop, const struct logger *log, path_watch_fn fn, void *ctx,
		   struct path_watch **out, char *err, size_t errlen);
/* Watches for path, and for target (the device path was resolved to
 * when it was last open; NULL or the same: none) to appear; a callback
 * is also due at once (subject to the rate limit), in case the device
 * came back before the watch was set.  A directory not there is waited
 * for (above).  Watches of an earlier start are removed first.  Returns
 * 0, or -errno with a message naming the directory in err (one that
 * exists and cannot be watched; nothing is watched then). */
int path_watch_start(struct path_watch *w, const char *path, const char *target, char *err,
		     size_t errlen);
/* No more callbacks until the next start. */
void path_watch_stop(struct path_watch *w);
/* Callbacks so far (for the log and the tests). */
uint64_t path_watch_calls(const struct path_watch *w);
void path_watch_free(struct path_watch *w);

#endif
