/*
 * test_linkup.c: link set-up time in virtual time (two stations on the
 * emulated wire, tests/unit/linkup_sim.h).  From the connect request
 * made when discovery reports the peer to the peer's first frame at the
 * new rate, the link must come up within the sum of the line times of
 * the frames involved and the waits the protocol makes mandatory, for
 * every slot the peer may answer discovery in:
 *
 *   final XID (its rest) + SNRM + UA, all at 9600 with the NDM XBOFs,
 *   no media-sense wait (discovery has just listened to the medium),
 *   the first poll's frame start no later than the later of the UA's
 *   end + the peer's minimum turnaround and the peer's speed switch
 *   (Linux: 60 ms after handing its UA over + one 4 ms timer tick, + 2
 *   byte times for its UART to fall into step), then the poll and the
 *   answer (padded with our minimum turnaround) at the new rate.
 *
 * And the first poll is not lost when the peer switches with Linux's
 * delay: one RR(P), no F-timer expiry.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "cursor.h"
#include "linkup_sim.h"
#include "sir.h"

#define SLOTS 6
#define TAT_US 5000u
/* Digest 2.8: Linux switches a USB bridge 60 ms after handing the frame
 * over; msleep() may add a timer tick (4 ms at HZ=250). */
#define LINUX_SWITCH_US 60000u
#define LINUX_TICK_US 4000u

/* Line time of a captured frame sent with xbofs 0xFF in front. */
static uint64_t line_us(const struct linkup_frame *f, uint32_t xbofs, uint32_t baud)
{
	uint8_t buf[4 + 2 * (64 + 2) + 200];
	struct wcursor w;
	int n;

	wcursor_init(&w, buf, sizeof(buf));
	n = sir_encode(&w, f->bytes, f->len, xbofs);
	assert_true(n > 0);
	return sir_line_time_us(baud, (uint64_t)n);
}

/* The bound of the header comment, for one run. */
static uint64_t bound_us(const struct linkup_result *r)
{
	uint32_t baud = r->q.baud;
	uint32_t pad = (uint32_t)sir_mtt_padding(baud, TAT_US);
	uint64_t ua_end, ua_start, poll_bof;
	uint64_t t = r->t_connect;

	t += line_us(&r->final_xid, 12, 9600);
	t += line_us(&r->snrm, 12, 9600);
	ua_end = t + line_us(&r->ua, 12, 9600);
	ua_start = ua_end - line_us(&r->ua, 12, 9600);
	poll_bof = ua_end + TAT_US;
	if (ua_start + LINUX_SWITCH_US + LINUX_TICK_US + sir_line_time_us(baud, 2) > poll_bof)
		poll_bof = ua_start + LINUX_SWITCH_US + LINUX_TICK_US + sir_line_time_us(baud, 2);
	/* The poll without its padding, then the answer with it. */
	return poll_bof + line_us(&r->first_poll, 0, baud) + line_us(&r->first_answer, pad, baud) -
	       r->t_connect;
}

static void check_every_slot(uint32_t peer_switch_us)
{
	bool seen[SLOTS] = { false };
	unsigned nseen = 0;

	for (uint64_t seed = 1; seed < 200 && nseen < SLOTS; seed++) {
		struct linkup_setup su = { .baud = 115200, .min_tat_us = { TAT_US, TAT_US },
					   .slots = SLOTS, .peer_switch_us = peer_switch_us,
					   .seed = seed };
		struct linkup_result r;
		uint64_t took, bound;

		assert_true(linkup_sim(&su, &r));
		assert_int_equal(r.q.baud, 115200);
		assert_true(r.peer_slot >= 0 && r.peer_slot < SLOTS);
		if (seen[r.peer_slot])
			continue;
		seen[r.peer_slot] = true;
		nseen++;
		took = r.first_answer.at - r.t_connect;
		bound = bound_us(&r);
		print_message("# peer switch %u us, slot %d: link up in %llu us, bound %llu us "
			      "(SNRM left %llu us after the final XID)\n", peer_switch_us,
			      r.peer_slot, (unsigned long long)took, (unsigned long long)bound,
			      (unsigned long long)(r.snrm.at - r.final_xid.at));
		/* The line times are rounded up to the us each. */
		assert_true(took <= bound + 8);
		/* The first poll was answered: not lost to the speed switch. */
		assert_int_equal(r.polls, 1);
		assert_int_equal(r.f_timeouts, 0);
	}
	assert_int_equal(nseen, SLOTS);
}

/* A peer that switches as its UA leaves (this stack's station). */
static void link_up_peer_switches_at_once(void **state)
{
	(void)state;
	check_every_slot(0);
}

/* A peer that switches 60 ms after handing its UA over (Linux, USB). */
static void link_up_peer_switches_like_linux(void **state)
{
	(void)state;
	check_every_slot(LINUX_SWITCH_US);
}

/* Nothing to switch at 9600: the first poll goes after the minimum
 * turnaround only (the UA's XBOFs and the poll's padding). */
static void link_up_at_9600_waits_no_switch(void **state)
{
	struct linkup_setup su = { .baud = 9600, .min_tat_us = { TAT_US, TAT_US },
				   .slots = 1, .peer_switch_us = LINUX_SWITCH_US, .seed = 3 };
	struct linkup_result r;
	uint32_t pad = (uint32_t)sir_mtt_padding(9600, TAT_US);

	(void)state;
	assert_true(linkup_sim(&su, &r));
	assert_int_equal(r.q.baud, 9600);
	assert_int_equal(r.polls, 1);
	/* The poll left after its padding and itself, no later. */
	assert_true(r.first_poll.at - r.ua.at <= line_us(&r.first_poll, pad, 9600) +
						 sir_line_time_us(9600, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(link_up_peer_switches_at_once),
		cmocka_unit_test(link_up_peer_switches_like_linux),
		cmocka_unit_test(link_up_at_9600_waits_no_switch),
	};

	return cmocka_run_group_tests_name("linkup", tests, NULL, NULL);
}
