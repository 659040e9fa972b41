/*
 * spray_xfer.h: irspray's transfer, apart from how its bytes move.
 *
 * Owns: the test pattern (a function of a byte's offset in its stream, so
 * a stream connection, which keeps no SDU boundaries, is checked alike),
 * what one stream counts (bytes each way, goals, times), the size of the
 * next write, the check of what arrived, the classes a sender looks up
 * and a listener offers, and the report lines.  Both ways of running
 * irspray use it: owning the port (TinyTP through the stack, irspray.c)
 * and through irdad (passed sockets, irspray_daemon.c).
 *
 * Does not own: connections, sockets or clocks (times come in).  Program
 * code: a mismatch and the report are printed (stderr and stdout).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_SPRAY_XFER_H
#define IRNET_SPRAY_XFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostcli.h"

#define SPRAY_MAX_SDU 4096
#define SPRAY_MAX_STREAMS 4
#define SPRAY_LSAP_ATTR "IrDA:TinyTP:LsapSel"
#define SPRAY_NCLASSES 4

/* What one stream (one connection, either end) has done. */
struct spray_counts {
	bool stream;                        /* TinyTP without SAR */
	bool echo;                          /* listener: echoing (not discarding) */
	uint64_t tx, rx, tx_goal, rx_goal;  /* bytes */
	uint64_t t_start, t_tx_end, t_rx_end;
};

struct irnet_client;

/* irspray's command line. */
struct spray_opts {
	struct hostcli h;      /* device, dongle, speed, ..., and what start-up made */
	uint64_t count, size;
	unsigned streams, timeout_s;
	bool unidir, listen, stream, mixed;
	const char *class_name;  /* --class: instead of the IrSpray class */
	const char *daemon;      /* --daemon SOCKET */
	bool no_daemon;          /* --no-daemon */
};

/* The listener's classes: [stream?][discard?]. */
extern const char *const spray_class[2][2];

static inline const char *spray_mode_name(bool stream)
{
	return stream ? "stream" : "SAR";
}

/* Stream i (from 0) of a sender: without SAR?  (--mixed alternates.) */
bool spray_stream_is_stream(const struct spray_opts *o, unsigned i);
/* The IAS class a sender looks up for a stream (or SAR) connection. */
const char *spray_class_for(const struct spray_opts *o, bool stream);
/* A sender's stream before it starts: its goals. */
void spray_counts_init(const struct spray_opts *o, struct spray_counts *c, bool stream);

/* Stream byte i: the same for every stream and both directions. */
uint8_t spray_byte(uint64_t i);
/* The next n bytes a sender writes at offset off. */
void spray_fill(uint8_t *buf, size_t n, uint64_t off);
/* The next write's length: -b size with SAR (one SDU); on a stream, the
 * rest of the current -b write, at most max bytes. */
size_t spray_next_write(const struct spray_counts *c, uint64_t size, size_t max);
/* n bytes arrived at now_us: checks them against the pattern (the first
 * mismatch of the run said on stderr, *bad set) and counts them. */
void spray_take(struct spray_counts *c, const uint8_t *buf, size_t n, uint64_t now_us,
		bool *bad);
/* A duration that is 0 when its end never came (no data). */
uint64_t spray_span_us(uint64_t start, uint64_t end);
/* "Transmitted 1000 bytes in 0.100 seconds (9.77 kbytes/s)" */
void spray_report(const char *what, uint64_t bytes, uint64_t us);
/* A listener's connection ended: what it took (and echoed). */
void spray_report_served(const struct spray_counts *c);
/* A sender's report: each stream, the total over span_us, the
 * efficiency against a line of baud, and "Min turnaround " tat (the
 * turnarounds the run had: they cost every turn of the line). */
void spray_summary(const struct spray_counts *c, unsigned n, bool unidir, uint64_t span_us,
		   uint32_t baud, const char *tat);
/* A sender's stream ended early: where it was, and why (in words). */
void spray_lost(const char *where, unsigned index, const struct spray_counts *c, bool accepted,
		bool unidir, const char *why);

/* The whole job through irdad (irspray_daemon.c): as a sender or, with
 * --listen, as the listener; where names the socket in messages.  Takes
 * cl.  Returns the exit code. */
int spray_daemon_run(const struct spray_opts *o, struct irnet_client *cl, const char *where);

#endif
