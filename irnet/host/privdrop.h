/*
 * privdrop.h: giving up root after the port is open, and a seccomp
 * allow-list for the running stack.
 *
 * Owns: switching a process started as root to an unprivileged user
 * (supplementary groups cleared, setresgid then setresuid, then checked:
 * setuid(0) must fail and no id may still be 0), and a libseccomp filter
 * that lets through only the system calls an irnet host makes once it is
 * running (reading and writing descriptors it already holds, poll,
 * timers, signals via signalfd, termios/modem-line ioctls, memory, exit).
 * Anything else kills the process (SIGSYS).
 *
 * Does not own: opening anything.  Everything the host needs (the serial
 * port, the pcap file, the signalfd of the loop) must be open before.
 *
 * The UUCP lock file is created by root in the sticky lock directory,
 * where only its owner may unlink it.  So that the dropped process can
 * still remove it when it closes the port, a program hands the file to
 * the target user before the drop (serial_lock_chown), and the filter
 * allows unlink/unlinkat.  The trade-off: the lock can then also be
 * removed or rewritten by any other process of that user (and, through
 * a hijacked process, any file that user may unlink could go), against
 * a stale lock left behind at every exit.  A lock directory the user
 * cannot write to still keeps the lock (the next serial_open replaces
 * it: its PID is dead).  The sequence, once everything is open:
 *
 *	if (geteuid() == 0) {
 *		privdrop_lookup(user, &uid, &gid, err, n);
 *		serial_lock_chown(port, uid, gid);
 *	}
 *	privdrop_user(user, log, err, n);
 *	privdrop_seccomp(log, err, n);
 *
 * Sanitizer builds (ASan/UBSan, configure --enable-sanitizers): the
 * runtimes make calls of their own (LeakSanitizer's tracer at exit,
 * symbolizing a report), so the filter lets those through too, and only
 * there (PRIVDROP_SANITIZER_BUILD; the list and the reasons are in
 * privdrop.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_PRIVDROP_H
#define IRNET_PRIVDROP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "log.h"

/* 1 when this code is compiled with AddressSanitizer or UBSan (gcc
 * announces only ASan, which --enable-sanitizers always includes; clang
 * answers __has_feature for both). */
#if defined(__SANITIZE_ADDRESS__)
#define PRIVDROP_SANITIZER_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define PRIVDROP_SANITIZER_BUILD 1
#endif
#endif
#ifndef PRIVDROP_SANITIZER_BUILD
#define PRIVDROP_SANITIZER_BUILD 0
#endif

/* The uid and gid privdrop_user(user) switches to (user: a name or a
 * number; NULL: "nobody"), for handing files to that user before the
 * drop.  Returns 0, or -ENOENT with a message naming the user in err. */
int privdrop_lookup(const char *user, uid_t *uid, gid_t *gid, char *err, size_t errlen);

/* If the effective uid is 0, becomes user (a name or a number; NULL:
 * "nobody") with that user's primary group and no supplementary groups.
 * Otherwise does nothing and says so at debug level.  Returns 0, or
 * -errno with a message naming the user in err. */
int privdrop_user(const char *user, const struct logger *log, char *err, size_t errlen);
/* The same, keeping keep_gid (if not 0) as the one supplementary group:
 * the group a udev rule gave a USB dongle's node, so that the dongle can
 * be reopened after a replug (usb_line.h). */
int privdrop_user_keeping(const char *user, gid_t keep_gid, const struct logger *log, char *err,
			  size_t errlen);

/* Installs the allow-list filter (sets no_new_privs; in a sanitizer
 * build also the runtime's calls).  Returns 0 or -errno with a message
 * in err. */
int privdrop_seccomp(const struct logger *log, char *err, size_t errlen);
/* The same, with the n calls in extra allowed too (a daemon's socket
 * calls: accept4, recvmsg, sendmsg, ...). */
int privdrop_seccomp_with(const struct logger *log, const char *const *extra, size_t n,
			  char *err, size_t errlen);
/* A filter of its own for a small privileged helper (port_opener.h):
 * none of the host's list, only the n calls, ioctl with the nioctl
 * requests in ioctls, and open/openat of an existing file for reading
 * and writing (no O_CREAT, O_TRUNC or O_APPEND); in a sanitizer build
 * also the runtime's calls.  Anything else kills the process.  Logs
 * nothing (the helper has no log).  Returns 0 or -errno with a message
 * in err. */
int privdrop_seccomp_only(const char *const *calls, size_t n, const unsigned long *ioctls,
			  size_t nioctl, char *err, size_t errlen);

#endif
