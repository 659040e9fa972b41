/*
 * fdpass.h: one message of irdad's control socket (SOCK_SEQPACKET) with
 * the descriptors that travel with it (SCM_RIGHTS), both ways.
 *
 * Owns: the recvmsg/sendmsg calls and their control buffers, so that the
 * daemon (api_server) and the client library (irnet_client) read and
 * write messages the same way: non-blocking, EINTR retried, received
 * descriptors close-on-exec, never SIGPIPE.
 *
 * Does not own: what a message means (irdad_msg.h) nor what is done with
 * the descriptors (the caller keeps or closes every one it got).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_FDPASS_H
#define IRNET_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

#define FDPASS_MAX 8   /* descriptors one message may bring; more: MSG_CTRUNC */

struct fdpass_fds {
	int fd[FDPASS_MAX];
	size_t n;
};

/* Receives one message into buf without blocking, and the descriptors
 * that came with it into fds (always, even when the message is then
 * refused: the caller closes them).  Returns its length, 0 when the peer
 * closed, or -errno (-EAGAIN: nothing there).  *flags gets recvmsg's
 * msg_flags (MSG_TRUNC: longer than cap; MSG_CTRUNC: more than
 * FDPASS_MAX descriptors, the rest closed by the kernel). */
ssize_t fdpass_recv(int sock, void *buf, size_t cap, struct fdpass_fds *fds, int *flags);
/* Sends one message without blocking; with fd >= 0 that descriptor goes
 * along (the caller keeps its copy).  0, or -errno (-EAGAIN: the peer's
 * buffer is full; -EMSGSIZE: sent short). */
int fdpass_send(int sock, const void *buf, size_t len, int fd);
/* The same with nfds (at most FDPASS_MAX) descriptors, in this order
 * (-EINVAL for more). */
int fdpass_send_fds(int sock, const void *buf, size_t len, const int *fds, size_t nfds);
/* Closes every descriptor in fds. */
void fdpass_close(struct fdpass_fds *fds);

#endif
