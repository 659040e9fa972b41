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
 * The UUCP lock file stays owned by root: an unprivileged process cannot
 * unlink it from the sticky lock directory, so after a drop it is left
 * behind at exit, as a stale lock that the next serial_open replaces (the
 * owner PID is dead).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_PRIVDROP_H
#define IRNET_PRIVDROP_H

#include <stdbool.h>
#include <stddef.h>

#include "log.h"

/* If the effective uid is 0, becomes user (a name or a number; NULL:
 * "nobody") with that user's primary group and no supplementary groups.
 * Otherwise does nothing and says so at debug level.  Returns 0, or
 * -errno with a message naming the user in err. */
int privdrop_user(const char *user, const struct logger *log, char *err, size_t errlen);

/* Installs the allow-list filter (sets no_new_privs).  Returns 0 or
 * -errno with a message in err. */
int privdrop_seccomp(const struct logger *log, char *err, size_t errlen);

#endif
