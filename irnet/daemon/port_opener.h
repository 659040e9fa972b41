/*
 * port_opener.h: a privileged helper that opens irdad's one serial port
 * again after root was dropped (privilege separation in the OpenBSD
 * style: the part that keeps root does one small thing).
 *
 * Owns: forking the helper while still root, the helper itself (it
 * closes every other descriptor, then answers each request on its
 * socket: 'o' opens the one device path it was given at the fork,
 * O_RDWR | O_NOCTTY | O_NONBLOCK, checks that it is a terminal character
 * device, and passes the descriptor back with SCM_RIGHTS, or the errno;
 * 'u' and an index removes one of the pty links it was given at the
 * fork, if that is still a symbolic link to the pty recorded for it
 * (port_opener_check_link), and answers the errno), its own seccomp
 * allow-list (privdrop_seccomp_only: only the calls of that loop, ioctl
 * TCGETS alone, open of an existing file read-write, lstat, readlink
 * and unlink for the links; nothing of the daemon's list), and the
 * daemon's side of the exchange (port_opener_open, usable as
 * serial_config.open_dev; port_opener_unlink).  The helper ends when the
 * daemon's end of the socket closes (the daemon exited, or
 * port_opener_free).
 *
 * Does not own: the UUCP lock, the termios, the dongle (serial_open does
 * those in the daemon, unprivileged), when to reopen (irdad), making the
 * links or deciding to remove them (the endpoints, which try unlink
 * themselves first), links made after the fork (a SIGHUP's new
 * endpoints: the daemon's own, unprivileged).  It never opens or
 * removes another path: a request carries no path, only a byte and an
 * index into the fixed list of the fork, so a daemon taken over after
 * the drop can at worst remove one of its own links early.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_PORT_OPENER_H
#define IRNET_PORT_OPENER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct port_opener;

/* A pty link the daemon made while root: the link's path and the pty
 * slave it leads to (the target it was made with). */
struct port_opener_link {
	const char *path;
	const char *target;
};

/* Forks the helper for device and the nlinks links (both copied by the
 * fork: the list is fixed from then on, which is why it is given here,
 * while the daemon is still root and trusted, and not by a request).
 * Call as root, before the drop and the seccomp filter (it needs fork).
 * With seccomp (false: irdad --no-seccomp, as under valgrind) the helper
 * loads its own filter before its first request; this waits for it to
 * say it did (at most 2 s).  Returns 0 and *out, or -errno with a
 * message in err (the helper is gone then); -E2BIG for more than
 * PORT_OPENER_LINKS_MAX links. */
#define PORT_OPENER_LINKS_MAX 255
int port_opener_start(const char *device, const struct port_opener_link *links, size_t nlinks,
		      bool seccomp, struct port_opener **out, char *err, size_t errlen);
/* Asks the helper to open the device; waits for its answer (at most
 * 2 s).  resolved is ignored (the helper opens its own path): the
 * signature is serial_config.open_dev's.  Returns the descriptor
 * (close-on-exec, non-blocking) or -errno: the helper's open error
 * (-ENOENT, -ENXIO, -EACCES...), -ENOTTY for something that is not a
 * terminal, -EPIPE if the helper is gone, -ETIMEDOUT. */
int port_opener_open(void *opener, const char *resolved);
/* Asks the helper to remove link number index of port_opener_start's
 * list (for a daemon whose own unlink was refused: the link's directory
 * is root's).  Waits for the answer (at most 2 s).  Returns 0, or -errno:
 * -EINVAL for an index not in the list, -ESTALE if the path is no longer
 * a symbolic link to the recorded pty (nothing removed), the helper's
 * lstat, readlink or unlink error (-ENOENT: gone already), -EPIPE if
 * the helper is gone, -ETIMEDOUT. */
int port_opener_unlink(struct port_opener *o, size_t index);
/* The helper's check before it removes a link (exposed for the tests):
 * 0 if path is a symbolic link (lstat, not followed) whose target
 * (readlink) is exactly target; -ESTALE if it is something else (a
 * regular file, a directory, a link elsewhere); -errno of lstat or
 * readlink otherwise. */
int port_opener_check_link(const char *path, const char *target);
/* The helper's process id (for the log and the tests). */
pid_t port_opener_pid(const struct port_opener *o);
/* Closes the daemon's end: the helper exits.  Never waits for it (the
 * host collects its children: irdad's SIGCHLD), so it also forgets a
 * helper that is gone already.  NULL is fine. */
void port_opener_free(struct port_opener *o);

#endif
