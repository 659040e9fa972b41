/*
 * loopback_pair.h: a connected pair of TCP sockets on 127.0.0.1, the
 * descriptor irdad hands a client for a stream connection.
 *
 * Why not socketpair(AF_UNIX, SOCK_STREAM): a program holding an IrDA
 * stream socket whose link is lost must read every byte that arrived,
 * then ECONNRESET once, then end of file (docs/irsock.md), with nothing
 * of ours on the data path.  A unix stream socket has no way to say
 * "reset" to its reader; a TCP socket reset by its peer (close with
 * SO_LINGER {1, 0}) says exactly that, after the bytes already queued.
 *
 * Owns: building the pair safely.  A listener on 127.0.0.1, port 0,
 * backlog 1; our connect; accept; the accepted peer's address must be
 * our connecting socket's own (another local process may race to
 * connect first): anything else is dropped and we accept again (a few
 * times, then give up); the listener is closed before returning.  Both
 * ends get TCP_NODELAY (the bridge writes whole SDUs and wants them out
 * at once) and close-on-exec.
 *
 * Does not own: what goes through the pair, or how it ends
 * (conn_bridge.h: loopback_pair_reset ends it with a reset).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_LOOPBACK_PAIR_H
#define IRNET_LOOPBACK_PAIR_H

/* sv[0] is the accepted end (the daemon's), sv[1] the connecting end (the
 * client's).  0, or a negative errno (nothing left open). */
int loopback_pair(int sv[2]);

/* The same through lis, a listening TCP socket on 127.0.0.1 that the
 * caller made and keeps (loopback_pair makes one and closes it; the
 * tests pass one that a stranger has connected to first). */
int loopback_pair_through(int lis, int sv[2]);

/* Closes fd (one end of a pair) with a reset instead of a FIN: its peer
 * reads what it had queued, then ECONNRESET once.  Returns close's result. */
int loopback_pair_reset(int fd);

#endif
