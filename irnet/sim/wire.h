/*
 * wire.h: the emulated IrDA SIR link, in process, on a virtual clock.
 *
 * Owns: the physics between two UARTs, side 0 and side 1, each with its
 * own baud rate.  Bytes queued by a side leave back to back, 10 bit-times
 * each (start bit, 8 data bits LSB first, stop bit) at the rate that side
 * had when it queued them.  The receiving UART is modelled bit by bit: it
 * waits for a falling edge (start bit), samples the middle of each of its
 * own bit-times at its own rate and produces a byte after the stop bit.
 * Everything else follows from that line model:
 *
 *  - speed mismatch: a receiver at another rate samples the wrong places
 *    and produces the wrong number of bytes with the wrong values (a 115200
 *    receiver on a 9600 sender makes one byte, mostly 0x00 or 0xFF-ish
 *    with framing errors, per 1-to-0 transition of the line: about 2.8 per
 *    random byte; a 9600 receiver on a 115200 sender makes about one
 *    byte per 12 sent);
 *  - half-duplex: a side is blind while it transmits and for
 *    turnaround_us after its transmission ends; a byte whose reception
 *    overlaps that time is lost.  When the blind time ends in the middle
 *    of a byte, the receiver takes the next 0 bit as a start bit and
 *    produces garbage until it falls back into step (idle 0xFF bytes
 *    resynchronise it, which is why XBOFs work).  Transmissions that
 *    overlap in time are collisions: counted on both sides, and neither
 *    side hears the overlapping part;
 *  - bit errors: each of the 8 data bits of every byte on the line flips
 *    with probability ber (start and stop bits are left alone, so noise
 *    does not also cost byte sync: a simplification);
 *  - drops: each byte vanishes (the line stays idle for it) with
 *    probability drop;
 *  - link breaks: during [start_us, start_us + duration_us) the line is
 *    idle whatever is sent.
 *
 * Randomness comes from a splitmix64 generator per sending side, seeded
 * from cfg.seed and drawn when bytes are queued, so the same seed and the
 * same calls give the same bytes at the same times, however finely the
 * host steps the clock.  No global state; two wires never interact.
 *
 * Does not own: framing (sir.h) or any protocol; file descriptors; real
 * time.  The host owns the clock and passes "now" (microseconds, any
 * origin, never decreasing) into every call.  A typical host loop:
 *
 *	for (;;) {
 *		uint64_t t = min(wire_next_event(w), my_next_timer);
 *		wire_advance(w, t, on_byte, ctx);   // on_byte feeds a decoder
 *		... run timers due at t; wire_transmit(w, side, buf, n, t, &done);
 *	}
 *
 * Times passed to wire_transmit() or wire_set_speed() earlier than the
 * latest wire_advance() are taken as that time (the past is settled).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_WIRE_H
#define IRNET_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"

#define WIRE_NEVER UINT64_MAX

/* A scheduled outage of the link, in the host's microseconds. */
struct wire_break {
	uint64_t start_us;
	uint64_t duration_us;
};

struct wire_config {
	uint32_t baud[2];		/* initial rate per side; 0 means 9600 */
	uint32_t turnaround_us;		/* receiver blind time after own TX */
	double ber;			/* per data bit, 0 <= ber <= 1 */
	double drop;			/* per byte, 0 <= drop <= 1 */
	uint64_t seed;
	const struct wire_break *breaks; /* copied by wire_new; any order */
	size_t n_breaks;
	const struct logger *log;	/* may be NULL */
};

/* Per side.  Loss counters classify the bytes sent *to* this side (one
 * reason each, in the order dropped, break, blind); delivered and
 * corrupted count what this side's UART produced, which after garbling
 * need not add up with them.  A sent byte is classified once its time is
 * past (after a wire_advance() beyond its end). */
struct wire_counters {
	uint64_t sent;		/* bytes this side transmitted */
	uint64_t collisions;	/* of those, overlapping the other side's TX */
	uint64_t delivered;	/* bytes this side's UART produced */
	uint64_t corrupted;	/* of those, not an exact copy of a sent byte */
	uint64_t dropped;	/* sent to us, removed by the drop rate */
	uint64_t lost_break;	/* sent to us during a link break */
	uint64_t lost_blind;	/* sent to us while we transmitted or turned
				 * round (deaf between its middle of start
				 * bit and middle of stop bit) */
	uint64_t speed_mismatch; /* sent to us at a rate other than ours */
};

struct wire;

/* Why cfg is unusable ("ber 1.5 is not a probability", ...) or NULL. */
const char *wire_config_error(const struct wire_config *cfg);
/* NULL with errno EINVAL (see wire_config_error) or ENOMEM. */
struct wire *wire_new(const struct wire_config *cfg);
void wire_free(struct wire *w);

/* Sets a side's UART rate from now on: for bytes it queues later and for
 * what it receives from now on (bytes already queued keep their rate, as
 * in a UART FIFO being drained before the switch).  -EINVAL for a rate of
 * 0 or over 4 Mbit/s, or a side other than 0 or 1. */
int wire_set_speed(struct wire *w, int side, uint32_t baud, uint64_t now_us);
uint32_t wire_speed(const struct wire *w, int side);

/* Queues n bytes from side, starting at now or when its previous bytes
 * have left, whichever is later.  *done_us (may be NULL) receives when
 * the last one has left the line: where tcdrain() would return.
 * Returns 0, -EINVAL (bad side) or -ENOMEM. */
int wire_transmit(struct wire *w, int side, const uint8_t *bytes, size_t n,
		  uint64_t now_us, uint64_t *done_us);
/* When side's queued bytes will all have left (<= now: idle). */
uint64_t wire_tx_idle_at(const struct wire *w, int side);

/* The earliest time a byte can be delivered, WIRE_NEVER if nothing is
 * on its way.  A receiver starting to transmit may cancel it, so after
 * advancing there the host simply asks again. */
uint64_t wire_next_event(const struct wire *w);

/* A byte produced by side's UART at at_us (<= the now of the call). */
typedef void (*wire_rx_fn)(void *ctx, int side, uint8_t byte, uint64_t at_us);

/* Delivers, in time order across both sides, every byte whose reception
 * completes by now_us.  The callback may call wire_transmit() and
 * wire_set_speed() (at now_us).  Returns the number of bytes delivered. */
size_t wire_advance(struct wire *w, uint64_t now_us, wire_rx_fn rx, void *ctx);

const struct wire_counters *wire_counters(const struct wire *w, int side);

/* Microseconds n bytes occupy the line at baud (rounded up). */
uint64_t wire_line_time_us(uint32_t baud, uint64_t n);

#endif
