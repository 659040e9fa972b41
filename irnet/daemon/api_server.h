/*
 * api_server.h: irdad's control socket and its client sessions.
 *
 * Owns: the listening unix SOCK_SEQPACKET socket (created, bound and
 * given its group and mode while still root), one session per accepted
 * client with its credentials (SO_PEERCRED, logged), reading and
 * checking each message (irdad_msg_decode), sending replies and events
 * with an optional descriptor (SCM_RIGHTS), and the rules that keep one
 * client from hurting the others:
 *   - the first message must be HELLO; only request types are taken;
 *   - a malformed or oversized message, a descriptor sent with any
 *     request but ATTACH, more than FDPASS_MAX descriptors, or a reply we
 *     cannot send without blocking (a client that does not read) ends
 *     that session, with an ERROR naming why where it can still be sent;
 *   - descriptors are always closed unless the owner took them
 *     (api_session_take_fd, during its ATTACH request);
 *   - at most `burst` messages of one session are read per loop turn, so
 *     a flood cannot starve the link or the other sessions.
 *
 * Does not own: what a request does (the owner's `request` op answers it
 * with exactly one reply through api_session_send or api_session_error),
 * nor what a session holds (the owner frees that in `closed`).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_API_SERVER_H
#define IRNET_API_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "eloop.h"
#include "irdad_msg.h"
#include "log.h"

struct api_server;
struct api_session;

struct api_server_ops {
	/* A checked request (HELLO first).  Answer it exactly once. */
	void (*request)(void *ctx, struct api_session *s, const struct irdad_msg *m);
	/* The session is over: free what it held.  s is freed after. */
	void (*closed)(void *ctx, struct api_session *s);
};

struct api_server_config {
	const char *path;        /* the socket's path; its directory is created */
	mode_t mode;             /* of the socket (0660) */
	gid_t gid;               /* its group; (gid_t)-1: leave it */
	unsigned max_sessions;   /* more are refused at once (32) */
	unsigned burst;          /* messages of one session per loop turn (8) */
	const struct logger *log;
};

void api_server_config_defaults(struct api_server_config *cfg);

/* Creates the socket (removing a stale one at path) and starts
 * accepting.  Returns 0 and *out, or -errno with a message naming the
 * path in err. */
int api_server_open(struct eloop *loop, const struct api_server_config *cfg,
		    const struct api_server_ops *ops, void *ctx, struct api_server **out,
		    char *err, size_t errlen);
/* Ends every session (closed is called for each), closes the socket and
 * unlinks it. */
void api_server_free(struct api_server *srv);
/* The ops' context, when it exists only after the socket was opened. */
void api_server_set_ctx(struct api_server *srv, void *ctx);
unsigned api_server_sessions(const struct api_server *srv);

/* Sends one message built with irdad_write_*; with fd >= 0, that
 * descriptor goes along (the caller still owns and closes its copy).
 * Returns 0, or -errno after ending the session (do not use s then:
 * the end is deferred to the loop, so s stays valid until the current
 * callback returns). */
int api_session_send(struct api_session *s, const uint8_t *msg, size_t len, int fd);
/* Answers request seq with ERROR (err: a positive errno value). */
int api_session_error(struct api_session *s, uint32_t seq, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* During the request op: how many descriptors came with the request
 * (ATTACH only; 0 for any other), and taking one of them (the owner
 * then closes it; -1 if out of range or already taken).  The ones not
 * taken are closed when the op returns. */
size_t api_session_nfds(const struct api_session *s);
int api_session_take_fd(struct api_session *s, size_t i);
/* Ends the session from the loop (not at once); why goes to the log. */
void api_session_end(struct api_session *s, const char *why);
bool api_session_ending(const struct api_session *s);

/* The owner's per-session data. */
void api_session_set_data(struct api_session *s, void *data);
void *api_session_data(const struct api_session *s);
/* For logs: "session 3 (pppd, pid 1234 uid 0)". */
const char *api_session_name(const struct api_session *s);
void api_session_set_client(struct api_session *s, const char *client);
pid_t api_session_pid(const struct api_session *s);
uid_t api_session_uid(const struct api_session *s);
unsigned api_session_id(const struct api_session *s);

#endif
