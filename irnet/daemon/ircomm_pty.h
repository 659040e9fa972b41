/*
 * ircomm_pty.h: one [ircomm NAME] endpoint of irdad: an IrCOMM
 * connection (ircomm.h, cooked 9-wire or 3-wire over TinyTP, or 3-wire
 * raw over plain IrLMP) joined to a pseudo-terminal whose slave programs
 * open as a serial line.
 *
 * Owns: the pty (openpty, raw termios, packet mode with EXTPROC), the
 * symlink ep->pty_link (a stale symlink is replaced, anything else is
 * refused; removed at free if it still points at our slave, through the
 * remover the daemon set if this process may no longer), watching
 * the slave being opened and closed by programs (inotify on the slave's
 * device node: IN_OPEN and IN_CLOSE_* counted, our own descriptor opened
 * before the watch is not counted); for a calling endpoint, finding the
 * peer (discovery, then by nickname, address, or the first station that
 * offers IrCOMM), the IrCOMM client, redialling after link loss with
 * `reconnect yes`; for a listening one, the IrCOMM server (its IAS
 * object withdrawn while connected); bytes both ways with back-pressure
 * (the master is read only while IrCOMM takes what was read, and an SDU
 * is taken from IrCOMM only once the previous one is in the pty); the
 * slave's termios sent as IrCOMM parameters (data rate, data format,
 * flow control) and its open/close and B0 as DTR; the peer's settings
 * and lines kept for the stats.
 *
 * Does not own: the loop, the stack, the configuration, when discovery
 * runs for other reasons (the daemon may discover periodically: every
 * result is offered here through ircomm_pty_lap_event).
 *
 * On descriptors (ircomm_pty_open_fds, irdad --stdio): the same
 * connection on a descriptor handed in instead of a pty made here (a pty
 * master's slave seen through packet mode, or plain bytes), one
 * connection, the status lines (status_line.h), the end told through a
 * hook.
 *
 * Life: ircomm_pty_open() while root (the pty and its link, possibly in
 * /dev), ircomm_pty_start() after the privilege drop, once.
 *
 * 3-wire raw (`wire 3wire-raw`, or a caller's fallback when the peer
 * offers nothing else): the pty's bytes are the LM-PDUs' data; no
 * settings or lines go either way (termios changes are not sent); the
 * master is read while the IrLMP send queue has room, which drains at
 * IrLAP's pace, so a writer is still held back by the link; but IrLMP
 * cannot stop the peer: a program that does not read makes the pty fill,
 * then lmp_conn's queue, then LM-PDUs are dropped (stats rx_dropped).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IRCOMM_PTY_H
#define IRNET_IRCOMM_PTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eloop.h"
#include "irdad_config.h"
#include "irlap.h"
#include "log.h"
#include "stack.h"

struct ircomm_pty;

enum ircomm_pty_state {
	IRCOMM_PTY_IDLE,        /* caller: no program wants a call; listener: not started */
	IRCOMM_PTY_LISTENING,   /* listener: IAS object published, waiting */
	IRCOMM_PTY_DISCOVERING, /* caller: discovery asked, waiting for its result */
	IRCOMM_PTY_CONNECTING,  /* caller: IAS queries and TinyTP connect */
	IRCOMM_PTY_CONNECTED,   /* data both ways */
	IRCOMM_PTY_HANGING_UP,  /* caller: DTR dropped, flushing before the disconnect */
	IRCOMM_PTY_WAIT_REDIAL, /* caller: the last attempt failed or the link was lost */
};
const char *ircomm_pty_state_name(enum ircomm_pty_state s);

struct ircomm_pty_stats {
	enum ircomm_pty_state state;
	unsigned slave_opens;       /* programs' open descriptions of the slave now */
	uint64_t bytes_to_peer, bytes_from_peer;
	uint64_t stalls_peer;       /* reading the master stopped: IrCOMM had no room */
	uint64_t stalls_slave;      /* taking SDUs stopped: the pty had no room */
	uint64_t connects;          /* connections made (both roles) */
	uint64_t link_losses;       /* connections the peer or the link ended */
	uint64_t params_sent;       /* settings changes sent (termios) */
	uint64_t params_received;   /* settings items received */
	uint64_t calls_without_discovery; /* IrLAP was busy: the known peer called directly */
	uint64_t rx_dropped;        /* 3-wire raw: LM-PDUs dropped, the program did not read */
	uint32_t peer;              /* device address of the current or last peer */
	uint8_t service;            /* IRCOMM_SVC_9WIRE, _3WIRE or _3WIRE_RAW; 0 unconnected */
	uint8_t local_lines;        /* our DTE bits (DTR, RTS) as last sent */
	uint8_t peer_lines;         /* the peer's lines as DCE bits; 0 unconnected */
	uint32_t peer_data_rate;    /* 0 until the peer said */
	uint8_t peer_data_format, peer_flow_control;
	uint32_t our_data_rate;     /* what we last sent */
	uint8_t our_data_format, our_flow_control;
};

/* Makes the pty (raw, packet mode, EXTPROC), the link ep->pty_link
 * (parent directories are not created) and the open/close watch.
 * Returns 0 and *out, or -errno with a message naming the path in err.
 * ep is copied. */
int ircomm_pty_open(const struct irdad_endpoint *ep, const struct logger *log,
		    struct ircomm_pty **out, char *err, size_t errlen);
/* irdad --stdio --service ircomm: one connection on descriptors handed
 * in, then the end (docs/irdad.md, "IrCOMM on standard input and
 * output").  in_fd is read, out_fd written (may be the same); both are
 * made non-blocking and are closed at the end (so that the other end sees
 * the hang-up) or by ircomm_pty_free.  When in_fd is a pty master, its
 * slave is the program's line: packet mode and EXTPROC on it, the
 * slave's termios sent as IrCOMM parameters, B0 drops DTR; otherwise
 * plain bytes.  The descriptor's holder is one open of the line: DTR is
 * up from the start, a caller calls at once (up to 3 discoveries), a
 * listener takes one call.  EOF or EIO on in_fd (the slave's last holder
 * closed it), a failed write, or a hang-up seen while not reading: what
 * was read goes to the peer (2 s at most), then the end.  The peer's
 * carrier dropping (CD down after it was up) or the connection closing:
 * the peer's last bytes are written (2 s at most), then the end.
 * ep->pty_link and ep->reconnect are not used.  Returns 0 and *out, or
 * -errno with a message in err (the descriptors are then the caller's). */
int ircomm_pty_open_fds(const struct irdad_endpoint *ep, int in_fd, int out_fd,
			const struct logger *log, struct ircomm_pty **out, char *err, size_t errlen);
/* Before ircomm_pty_start, on descriptors: status lines (docs/irdad.md,
 * "Status lines": listening, up, failed WORD, down WORD) on fd (not
 * closed here; -1: none), and the hook called once, from the loop, after
 * the end (it may free the endpoint). */
void ircomm_pty_set_status_fd(struct ircomm_pty *p, int fd);
/* Before ircomm_pty_start, on descriptors, calling: look for the peer
 * (discovering again while nobody is found) and reach it within us, then
 * fail ("failed no-peer", "failed no-answer" if a call was under way).
 * 0, the default: 3 discoveries, and IAS, TinyTP and IrLAP's own
 * timeouts. */
void ircomm_pty_set_connect_timeout(struct ircomm_pty *p, uint64_t us);
void ircomm_pty_set_ended(struct ircomm_pty *p, void (*ended)(void *ctx, struct ircomm_pty *p),
			  void *ctx);
/* Starts the endpoint on the loop and the stack: a listener registers
 * its IAS object; a caller dials once a program has the slave open.
 * 0 or -errno (-EALREADY the second time). */
int ircomm_pty_start(struct ircomm_pty *p, struct eloop *loop, struct stack *stk);
/* Every IrLAP event of the stack (after IrLMP saw it), required for a
 * calling endpoint: it takes its peer from DISCOVERY results, and follows
 * the IrCOMM client's deadline, which an IAS answer (arriving in a DATA
 * event) moves without a callback.  A listener ignores them. */
void ircomm_pty_lap_event(struct ircomm_pty *p, const struct irlap_event *ev);
/* The port is back after it went away (irdad reopened it): a calling
 * endpoint whose program still holds the slave calls at once, as at the
 * program's first open, whatever `reconnect` says (the connection was
 * lost to the unplug, not ended by the peer).  Others: nothing. */
void ircomm_pty_port_back(struct ircomm_pty *p);
/* Disconnects, closes the pty, removes the link if it is still ours:
 * unlink, and if that is refused (EACCES, EPERM: the link was made as
 * root in a directory of root's, and root was dropped since) and a
 * remover is set, remove(ctx, index); the outcome is logged. */
void ircomm_pty_free(struct ircomm_pty *p);
/* The remover of the link for ircomm_pty_free (irdad: its port opener,
 * index the link's place in the opener's list).  remove returns 0 or
 * -errno.  NULL: none (the default). */
void ircomm_pty_set_link_remover(struct ircomm_pty *p, int (*remove)(void *ctx, size_t index),
				 void *ctx, size_t index);
/* The link this endpoint made (ep->pty_link), NULL if none (on
 * descriptors). */
const char *ircomm_pty_link(const struct ircomm_pty *p);

void ircomm_pty_get_stats(const struct ircomm_pty *p, struct ircomm_pty_stats *out);
/* The slave's device path (/dev/pts/N). */
const char *ircomm_pty_slave_path(const struct ircomm_pty *p);
/* The endpoint's name (its [ircomm NAME] section). */
const char *ircomm_pty_name(const struct ircomm_pty *p);

/* termios <-> IrCOMM (exposed for tests): the bit rate of a speed_t
 * (0 for B0 or unknown), the data format and flow control bytes of
 * digest 7.5 for c_cflag/c_iflag. */
uint32_t ircomm_pty_rate_of_speed(unsigned speed);
uint8_t ircomm_pty_data_format(unsigned cflag);
uint8_t ircomm_pty_flow_control(unsigned cflag, unsigned iflag);

#endif
