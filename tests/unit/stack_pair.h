/*
 * stack_pair.h: two programs' stacks (stack.h) joined in one process and
 * one event loop, for real-time unit tests: each stack runs on a
 * pseudo-terminal, and a relay copies the bytes between the two masters
 * after each byte's line time at the sender's rate.  Station a is
 * e[0], b is e[1].
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_TEST_STACK_PAIR_H
#define IRNET_TEST_STACK_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "eloop.h"
#include "stack.h"

struct stack_pair_end {
	int master, slave;
	char path[128];
	struct port *port;
	struct stack *stk;
};

struct stack_pair {
	struct eloop *loop;
	struct stack_pair_end e[2];
	/* The relay drops every byte while set: a link broken for a while
	 * (the stations' N2 runs out after the negotiated disconnect time). */
	bool cut;
};

struct stack_pair_opts {
	uint8_t link_disc;           /* QoS disconnect-time bits offered; 0: default */
	uint64_t idle_timeout_us;    /* IrLMP's link idle timeout; 0: default */
};

/* Makes the loop and both stacks (nicknames "alpha" and "beta");
 * event_a gets station a's IrLAP events with ctx.  A stack failure fails
 * the test. */
void stack_pair_open(struct stack_pair *p, void (*event_a)(void *ctx, const struct irlap_event *ev),
		     void *ctx);
/* The same with options (NULL: the defaults). */
void stack_pair_open_opts(struct stack_pair *p, const struct stack_pair_opts *o,
			  void (*event_a)(void *ctx, const struct irlap_event *ev), void *ctx);
/* Station a discovers (6 slots). */
void stack_pair_discover(struct stack_pair *p);
void stack_pair_close(struct stack_pair *p);

#endif
