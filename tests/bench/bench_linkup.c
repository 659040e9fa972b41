/*
 * bench_linkup.c: how long a link takes to come up, in virtual time (so
 * the figures are exact, not timings), on the emulated wire at 115200:
 * from the connect request (made when a 6-slot discovery reports the
 * peer) to the first frame the peer sends at the new rate (data can
 * flow from then on).
 *
 * Prints `bench: link_up_ms_virtual N ms` (the mean over the slot the
 * peer answers discovery in, see report()) for a peer that switches its
 * UART as its UA leaves (this stack), `bench: link_up_ms_virtual_linux N
 * ms` for one that switches 60 ms after handing its UA over (Linux on a
 * USB bridge, digest 2.8), and the breakdown as `bench:` lines too.
 * Both stations ask for a 5 ms minimum turnaround (the "none" dongle).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

#include "../unit/linkup_sim.h"

static double ms(uint64_t us)
{
	return (double)us / 1000.0;
}

/* The pieces of one set-up, in ms: link-up, then the breakdown. */
enum { LINK_UP, DISCOVERY, TO_SNRM, SNRM_UA, UA_DATA, NPIECES };
static const char *const piece_names[NPIECES] = {
	NULL, "discovery_ms", "connect_to_snrm_ms", "snrm_to_ua_ms", "ua_to_data_ms",
};

/* The responder's slot decides how long ago the medium was last heard
 * when discovery ends, so every slot is run once (the first seed that
 * draws it) and the figures are the mean over the slots; the worst slot
 * is printed too. */
static int report(const char *name, uint32_t peer_switch_us)
{
	enum { SLOTS = 6 };
	double sum[NPIECES] = { 0 }, worst = 0;
	bool seen[SLOTS] = { false };
	unsigned nseen = 0, polls = 0;

	for (uint64_t seed = 1; seed < 200 && nseen < SLOTS; seed++) {
		struct linkup_setup su = { .baud = 115200, .min_tat_us = { 5000, 5000 },
					   .slots = SLOTS, .peer_switch_us = peer_switch_us,
					   .seed = seed };
		struct linkup_result r;
		double piece[NPIECES];

		if (!linkup_sim(&su, &r)) {
			fprintf(stderr, "bench_linkup: %s: the link did not come up (seed %llu)\n",
				name, (unsigned long long)seed);
			return 1;
		}
		if (r.peer_slot < 0 || r.peer_slot >= SLOTS || seen[r.peer_slot])
			continue;
		seen[r.peer_slot] = true;
		nseen++;
		piece[LINK_UP] = ms(r.first_answer.at - r.t_connect);
		piece[DISCOVERY] = ms(r.t_connect - r.t_discover);
		piece[TO_SNRM] = ms(r.snrm.at - r.t_connect);
		piece[SNRM_UA] = ms(r.ua.at - r.snrm.at);
		piece[UA_DATA] = ms(r.first_answer.at - r.ua.at);
		for (int i = 0; i < NPIECES; i++)
			sum[i] += piece[i];
		if (piece[LINK_UP] > worst)
			worst = piece[LINK_UP];
		polls += r.polls;
		printf("# %s, answer in slot %d: link up %.1f ms (SNRM left %.1f ms after the "
		       "final XID, %u RR(P) before the first answer)\n", name, r.peer_slot,
		       piece[LINK_UP], ms(r.snrm.at - r.final_xid.at), r.polls);
	}
	if (nseen < SLOTS) {
		fprintf(stderr, "bench_linkup: %s: only %u of %d slots drawn\n", name, nseen, SLOTS);
		return 1;
	}
	printf("bench: link_up_ms_%s %.1f ms\n", name, sum[LINK_UP] / SLOTS);
	printf("bench: link_up_ms_%s_worst %.1f ms\n", name, worst);
	for (int i = 1; i < NPIECES; i++)
		printf("bench: link_up_%s_%s %.1f ms\n", name, piece_names[i], sum[i] / SLOTS);
	printf("bench: link_up_%s_polls %.2f frames\n", name, (double)polls / SLOTS);
	return 0;
}

int main(void)
{
	int rc = report("virtual", 0);

	return report("virtual_linux", 60000) | rc;
}
