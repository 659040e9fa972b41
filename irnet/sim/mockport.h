/*
 * mockport.h: a port that records every call, on a virtual clock.
 *
 * Owns: an implementation of struct port (serial.h) for tests.  Each
 * call is recorded with the virtual time it was made at; sleep_us only
 * advances that clock.  It models the wire as far as timing goes: bytes
 * written take 10 bit-times each at the current rate, drain waits for
 * them (plus an optional USB-style margin), and a speed change while
 * bytes are still going out is counted (that would garble them on real
 * hardware).  The device side can send bytes (mockport_feed) or echo
 * whatever is written (as the MA600 does in command mode).
 *
 * Does not own: any expectation; tests compare the record with their
 * own tables.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_MOCKPORT_H
#define IRNET_MOCKPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serial.h"

enum mock_op {
	MOCK_WRITE,
	MOCK_READ,
	MOCK_SET_SPEED,
	MOCK_SET_LINES,
	MOCK_GET_LINES,
	MOCK_DRAIN,
	MOCK_FLUSH_INPUT,
	MOCK_OP_COUNT
};

#define MOCK_CALL_BYTES 16

struct mock_call {
	enum mock_op op;
	uint64_t t_us;       /* virtual time the call was made */
	uint32_t baud;       /* SET_SPEED: the new rate; else the current one */
	bool dtr, rts;       /* SET_LINES: the new levels; else the current */
	uint8_t data[MOCK_CALL_BYTES]; /* WRITE: bytes written; READ: read */
	size_t len;          /* their full count (data keeps the first 16) */
	int result;          /* what the call returned (0, count or -errno) */
};

/* A new mock at 9600 baud with DTR and RTS asserted, at virtual time 0.
 * NULL if out of memory. */
struct port *mockport_new(const char *name, const struct logger *log);

/* The record. */
size_t mockport_ncalls(const struct port *p);
const struct mock_call *mockport_call(const struct port *p, size_t i);
/* Forgets the record (the state and clock stay). */
void mockport_clear(struct port *p);

uint64_t mockport_now(const struct port *p);
/* Extra virtual wait added by every drain (a USB bridge's margin). */
void mockport_set_drain_margin(struct port *p, uint32_t us);
/* Bytes the device sends: returned by later reads. */
int mockport_feed(struct port *p, const void *data, size_t len);
/* Whether written bytes come back as input. */
void mockport_set_echo(struct port *p, bool echo);
/* The device's answer to the next write (instead of any echo): these
 * bytes arrive as input when that write happens.  At most 16 bytes. */
int mockport_answer_next_write(struct port *p, const void *data, size_t len);
/* The next call of op fails with -err (and records that). */
void mockport_fail_next(struct port *p, enum mock_op op, int err);
/* How many speed changes happened while written bytes were still on
 * the virtual wire. */
unsigned mockport_garbled_switches(const struct port *p);

const char *mock_op_name(enum mock_op op);

#endif
