/*
 * port_opener.h: a privileged helper that opens irdad's one serial port
 * again after root was dropped (privilege separation in the OpenBSD
 * style: the part that keeps root does one small thing).
 *
 * Owns: forking the helper while still root, the helper itself (it
 * closes every other descriptor, then answers each one-byte request on
 * its socket by opening the one device path it was given at the fork,
 * O_RDWR | O_NOCTTY | O_NONBLOCK, checking that it is a terminal
 * character device, and passing the descriptor back with SCM_RIGHTS, or
 * the errno), its own seccomp allow-list (privdrop_seccomp_only: only
 * the calls of that loop, ioctl TCGETS alone, open of an existing file
 * read-write; nothing of the daemon's list), and the daemon's side of the exchange (port_opener_open,
 * usable as serial_config.open_dev).  The helper ends when the daemon's
 * end of the socket closes (the daemon exited, or port_opener_free).
 *
 * Does not own: the UUCP lock, the termios, the dongle (serial_open does
 * those in the daemon, unprivileged), when to reopen (irdad).  It never
 * opens another path: the request carries no path, only a byte.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_PORT_OPENER_H
#define IRNET_PORT_OPENER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct port_opener;

/* Forks the helper for device (copied).  Call as root, before the
 * drop and the seccomp filter (it needs fork).  With seccomp (false:
 * irdad --no-seccomp, as under valgrind) the helper loads its own filter
 * before its first request; this waits for it to say it did (at most
 * 2 s).  Returns 0 and *out, or -errno with a message in err (the
 * helper is gone then). */
int port_opener_start(const char *device, bool seccomp, struct port_opener **out, char *err,
		      size_t errlen);
/* Asks the helper to open the device; waits for its answer (at most
 * 2 s).  resolved is ignored (the helper opens its own path): the
 * signature is serial_config.open_dev's.  Returns the descriptor
 * (close-on-exec, non-blocking) or -errno: the helper's open error
 * (-ENOENT, -ENXIO, -EACCES...), -ENOTTY for something that is not a
 * terminal, -EPIPE if the helper is gone, -ETIMEDOUT. */
int port_opener_open(void *opener, const char *resolved);
/* The helper's process id (for the log and the tests). */
pid_t port_opener_pid(const struct port_opener *o);
/* Closes the daemon's end: the helper exits.  Never waits for it (the
 * host collects its children: irdad's SIGCHLD), so it also forgets a
 * helper that is gone already.  NULL is fine. */
void port_opener_free(struct port_opener *o);

#endif
