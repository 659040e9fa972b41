/*
 * irnet_ep.h: one IrNET endpoint of irdad: a TinyTP connection to a peer's
 * IrNET service (IAS class "IrNetv1"), joined to a local byte channel that
 * speaks PPP in RFC 1662 asynchronous HDLC framing, the way pppd's N_PPP
 * line discipline does on a tty.
 *
 * Owns: the channel (a pseudo-terminal whose slave pppd opens through the
 * symbolic link of the [irnet NAME] section, or a pair of descriptors
 * handed in: irdad --stdio's stdin and stdout); the framing both ways
 * through ppp_hdlc (frames from pppd decoded, FCS checked, bad ones
 * dropped and counted, one frame per TinyTP SDU; SDUs from the peer
 * encoded with every control character escaped); finding the peer
 * (discovery log, IAS, SAR TinyTP connect) or listening for it (IrNetv1
 * registered while a pppd is there to take a call); back-pressure both
 * ways; reconnection; when the status lines are written (their grammar and
 * writing: status_line.h; docs/irdad.md, "Status lines").
 *
 * Does not own: the stack, the loop, the port, privileges, the
 * configuration (irdad_config.h's struct irdad_endpoint is read, never
 * kept), when the process exits (stdio mode reports its end through the
 * ended hook; irdad decides).
 *
 * Life: irnet_ep_open_pty() or irnet_ep_open_fds() while still root (the
 * pty's link may be in /dev), the optional setters, then irnet_ep_start()
 * once privileges are dropped; irdad hands every IrLAP event of the stack
 * to irnet_ep_lap_event() and a port failure to irnet_ep_port_failed().
 * Once running, the module calls only read, write, send (a socket
 * channel), ppoll, close, fstat, fcntl, newfstatat and unlink (for the
 * link, at free; then also what the link's remover calls, irdad's port
 * opener exchange): privdrop's list and irdad's own additions (sendto).
 * irdad's ATTACH requests open stdio-mode endpoints on descriptors a
 * client passes, while running: irnet_ep_open_fds and irnet_ep_start
 * call nothing beyond that list.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IRNET_EP_H
#define IRNET_IRNET_EP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eloop.h"
#include "irdad_config.h"
#include "log.h"
#include "ppp_hdlc.h"
#include "stack.h"

#define IRNET_EP_CLASS "IrNetv1"
#define IRNET_EP_ATTR "IrDA:TinyTP:LsapSel"
/* The MaxSduSize we announce, which is also the largest PPP frame taken
 * from pppd (FCS not counted): above Linux IrNET's 2048-byte frames. */
#define IRNET_EP_MAX_SDU 4096

struct irnet_ep;

enum irnet_ep_state {
	IRNET_EP_WAITING,    /* pty: no pppd has the slave open */
	IRNET_EP_LISTENING,  /* IrNetv1 registered; pppd's frames are dropped */
	IRNET_EP_FINDING,    /* calling: discovery and IAS */
	IRNET_EP_CONNECTING, /* calling: TinyTP connect sent */
	IRNET_EP_UP,         /* frames both ways */
	IRNET_EP_FLUSHING,   /* pppd left: TinyTP sends what it holds, then disconnect */
	IRNET_EP_DOWN,       /* calling: failed or lost; pppd's frames are dropped */
	IRNET_EP_ENDED,      /* stdio: over for good */
};
const char *irnet_ep_state_name(enum irnet_ep_state s);

struct irnet_ep_stats {
	uint64_t frames_to_peer, bytes_to_peer;     /* PPP frames (SDUs) sent */
	uint64_t frames_from_peer, bytes_from_peer; /* SDUs written to pppd (frame bytes) */
	uint64_t frames_dropped;   /* from pppd with no connection to take them */
	uint64_t frames_oversize;  /* from pppd, over the peer's MaxSduSize */
	uint64_t stalls_peer;      /* reading pppd stopped: TinyTP's queue was full */
	uint64_t stalls_local;     /* taking SDUs stopped: pppd did not read */
	uint64_t connects;         /* connections up (either role) */
	uint64_t failures;         /* attempts that failed */
	uint64_t refused;          /* calls refused while busy */
};

/* Timings; irnet_ep_timing_defaults() gives the values in brackets. */
struct irnet_ep_timing {
	uint64_t attempt_us;     /* finding and connecting, in all [20 s] */
	uint64_t retry_us;       /* reconnect yes: wait before trying again [3 s] */
	uint64_t drain_us;       /* an end waits this long for the other to take data [5 s] */
	uint64_t watch_us;       /* pty: how often a closed slave is looked at [200 ms] */
	unsigned discoveries;    /* discoveries before "no-peer" [3] */
};
void irnet_ep_timing_defaults(struct irnet_ep_timing *t);

/* Makes the pty (raw, master non-blocking, slave closed so that its
 * opening and closing are seen) and the symbolic link ep->pty_link to the
 * slave, replacing an existing symbolic link but never anything else;
 * the link's directory is made (mode 0755) if missing.  Returns 0 and
 * *out, or -errno with a message naming the link in err. */
int irnet_ep_open_pty(const struct irdad_endpoint *ep, const struct logger *log,
		      struct irnet_ep **out, char *err, size_t errlen);
/* stdio mode: one connection, then the end.  in_fd and out_fd (may be the
 * same) are made non-blocking and closed by irnet_ep_free.  ep->pty_link
 * and ep->reconnect are not used. */
int irnet_ep_open_fds(const struct irdad_endpoint *ep, int in_fd, int out_fd,
		      const struct logger *log, struct irnet_ep **out, char *err, size_t errlen);

/* Before irnet_ep_start.  fd -1: none (the default).  Not closed here. */
void irnet_ep_set_status_fd(struct irnet_ep *e, int fd);
/* stdio mode: called once, from a timer, when the endpoint is ENDED (the
 * hook may free the endpoint). */
void irnet_ep_set_ended(struct irnet_ep *e, void (*ended)(void *ctx, struct irnet_ep *e),
			void *ctx);
void irnet_ep_set_timing(struct irnet_ep *e, const struct irnet_ep_timing *t);

/* Starts on the stack: a listener registers IrNetv1 (pty mode: once pppd
 * has opened the slave), a caller looks for its peer (pty mode: once pppd
 * has opened the slave).  Returns 0 or -errno with a message in err. */
int irnet_ep_start(struct irnet_ep *e, struct eloop *loop, struct stack *stk, char *err,
		   size_t errlen);
/* Every IrLAP event of the stack (discovery results find the peer). */
void irnet_ep_lap_event(struct irnet_ep *e, const struct irlap_event *ev);
/* The port or its dongle failed (stack_config.failed): whatever was
 * under way fails with reason "dongle". */
void irnet_ep_port_failed(struct irnet_ep *e);
/* The port is back after it went away (irdad reopened it): a calling
 * pty endpoint whose pppd still holds the slave calls at once, as when
 * pppd opened it, whatever `reconnect` says (the link was lost to the
 * unplug, not ended by the peer). */
void irnet_ep_port_back(struct irnet_ep *e);
/* Disconnects, withdraws IrNetv1, closes the channel, removes the link if
 * it still leads to this pty: unlink, and if that is refused (EACCES,
 * EPERM: made as root in a directory of root's, root dropped since) and
 * a remover is set, remove(ctx, index); a failure is logged. */
void irnet_ep_free(struct irnet_ep *e);
/* The remover of the link for irnet_ep_free (irdad: its port opener,
 * index the link's place in the opener's list).  remove returns 0 or
 * -errno.  NULL: none (the default). */
void irnet_ep_set_link_remover(struct irnet_ep *e, int (*remove)(void *ctx, size_t index),
			       void *ctx, size_t index);
/* The link this endpoint made (ep->pty_link), NULL if none (stdio). */
const char *irnet_ep_link(const struct irnet_ep *e);

enum irnet_ep_state irnet_ep_state(const struct irnet_ep *e);
const char *irnet_ep_name(const struct irnet_ep *e);
const char *irnet_ep_pty_path(const struct irnet_ep *e); /* the slave; "" in stdio mode */
uint32_t irnet_ep_peer(const struct irnet_ep *e);         /* 0 unless UP */
const struct irnet_ep_stats *irnet_ep_get_stats(const struct irnet_ep *e);
/* The decoder's counters for what came from pppd (fcs_errors, ...). */
const struct ppp_hdlc_rx_counters *irnet_ep_hdlc_counters(const struct irnet_ep *e);

#endif
