/*
 * uucplock.h: UUCP-style (HDB) lock files for serial devices.
 *
 * Owns: creating, checking and removing LCK..NAME files in a lock
 * directory (/var/lock by default), the convention pppd, minicom, cu and
 * ModemManager-era tools agree on: the file holds the owner's PID as ten
 * ASCII characters, right-justified, and a newline.  A lock whose PID no
 * longer exists (kill(pid, 0) fails with ESRCH) is stale and taken over.
 *
 * Does not own: opening the device (serial.h) or TIOCEXCL.
 *
 * The lock file is outside data (any program may have written it), so
 * uucplock_parse() reads it through the cursor and is fuzzed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_UUCPLOCK_H
#define IRNET_UUCPLOCK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "log.h"

#define UUCPLOCK_DEFAULT_DIR "/var/lock"

struct uucplock {
	char path[PATH_MAX];
	pid_t pid;
	bool held;
};

/* The lock file name for a device path: "LCK.." and the path below /dev
 * with '/' turned into '_' (/dev/ttyUSB0 -> LCK..ttyUSB0, /dev/pts/3 ->
 * LCK..pts_3); a path outside /dev uses its last component.  Returns
 * false if it does not fit in cap or the name is empty. */
bool uucplock_name(const char *device, char *buf, size_t cap);

/* Parses a lock file's content: an ASCII decimal PID with optional
 * blanks around it and an optional newline (the HDB format), or the
 * legacy 4-byte binary PID (at most Linux's PID_MAX_LIMIT, 4194304, so
 * that four bytes of text are not taken for one).  Returns false for
 * anything else, including PID 0 and text values above INT_MAX. */
bool uucplock_parse(const void *data, size_t len, pid_t *pid);

/* Takes the lock for device in lock_dir (NULL: UUCPLOCK_DEFAULT_DIR) for
 * the calling process.  Returns 0, -EBUSY when a live process holds it
 * (err says "DEVICE is locked by PID N (FILE)"), or another -errno with a
 * message naming the file.  The lock is created atomically (written to a
 * temporary file, then link()ed into place). */
int uucplock_acquire(struct uucplock *lk, const char *lock_dir,
		     const char *device, const struct logger *log,
		     char *err, size_t errlen);

/* Gives the lock file to uid:gid (fchown), so that a process that drops
 * to that user can still unlink it from a sticky lock directory.  Only
 * while the file still names this process; does nothing (returns 0) for
 * a lock that is not held.  Returns 0, or -errno with a message naming
 * the file (-EBUSY: another process's lock is there now). */
int uucplock_chown(const struct uucplock *lk, uid_t uid, gid_t gid,
		   char *err, size_t errlen);

/* Removes the lock if it still names this process.  Safe to call on a
 * lock that is not held. */
void uucplock_release(struct uucplock *lk);

#endif
