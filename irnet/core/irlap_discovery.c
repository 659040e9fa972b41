/*
 * irlap_discovery.c: XID discovery, as initiator (QUERY) and responder
 * (REPLY), and the address-conflict rule.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "irlap_internal.h"

#include <string.h>

/* Linux: a final frame takes longer, and the responder adds slack. */
#define QUERY_FINAL_US 34000u
#define QUERY_SLACK_US 100000u
#define SMALL_BUSY_US 100000u

static void send_xid(struct irlap *st, bool cmd, uint32_t daddr, uint8_t slots,
		     uint8_t slot, bool new_addr, bool with_info)
{
	struct irlap_xid x = {
		.cmd = cmd, .saddr = st->daddr, .daddr = daddr, .slots = slots,
		.new_addr = new_addr, .slot = slot, .version = 0, .has_info = with_info,
	};
	size_t n;

	if (with_info)
		x.info = st->cfg.info;
	n = irlap_xid_build(st->frame, sizeof(st->frame), &x);
	if (n)
		irlap_send(st, st->frame, n, st->cfg.ndm_xbofs, 0);
}

void irlap_discovery_start(struct irlap *st, uint8_t slots, bool new_addr)
{
	st->slots = irlap_xid_slots_of_code(irlap_xid_slots_code(slots));
	st->slot = 0;
	st->new_addr_round = new_addr;
	st->conflict = false;
	st->query_foreign = false;
	st->npeers = 0;
	send_xid(st, true, IRLAP_BROADCAST_DADDR, st->slots, 0, new_addr, false);
	irlap_set_state(st, IRLAP_QUERY, "discover");
	irlap_start_timer(st, T_SLOT, st->tx_end + st->cfg.slot_us);
}

/* A discovery that found devices clears media busy (digest 4.3, as
 * Linux does after IrLAP 6.13.4): the station has listened through all
 * the slots and heard only the answers to its own XIDs, so the 500 ms
 * listen-before-talk (meant for a medium we have not been watching) need
 * not start again from the last answer.  Without this, a connect request
 * made as discovery ends waited out 500 ms from the answer: the SNRM
 * left 0 to 410 ms after the final XID, depending on the slot the peer
 * had drawn.  Anything else heard during the round (another
 * initiator, another link's frames) keeps the medium busy. */
static void end_media_busy(struct irlap *st)
{
	if (st->npeers == 0 || st->query_foreign || st->media_busy_until <= st->now)
		return;
	log_msg(st->log, LOG_LEVEL_DEBUG, "discovery: media busy cleared (%llu us early)",
		(unsigned long long)(st->media_busy_until - st->now));
	st->media_busy_until = st->now;
}

void irlap_discovery_slot_timer(struct irlap *st)
{
	struct irlap_event ev = { .type = IRLAP_EV_DISCOVERY };

	if (++st->slot < st->slots) {
		send_xid(st, true, IRLAP_BROADCAST_DADDR, st->slots, st->slot,
			 st->new_addr_round, false);
		irlap_start_timer(st, T_SLOT, st->tx_end + st->cfg.slot_us);
		return;
	}
	send_xid(st, true, IRLAP_BROADCAST_DADDR, st->slots, IRLAP_XID_FINAL_SLOT,
		 st->new_addr_round, true);
	irlap_stop_timer(st);
	if (st->conflict && !st->new_addr_round) {
		/* Two devices answered with one address: ask every responder
		 * for a fresh address and run the discovery again. */
		log_msg(st->log, LOG_LEVEL_INFO, "discovery: address conflict, new round");
		irlap_set_state(st, IRLAP_NDM, "final XID (conflict)");
		irlap_discovery_start(st, st->slots, true);
		return;
	}
	irlap_set_state(st, IRLAP_NDM, "final XID");
	end_media_busy(st);
	ev.peers = st->peers;
	ev.npeers = st->npeers;
	irlap_deliver(st, &ev);
}

void irlap_discovery_query_timer(struct irlap *st)
{
	irlap_stop_timer(st);
	irlap_set_state(st, IRLAP_NDM, "query timer");
}

static void record_response(struct irlap *st, const struct irlap_xid *x)
{
	for (size_t i = 0; i < st->npeers; i++) {
		if (st->peers[i].daddr != x->saddr)
			continue;
		/* One responder answers once per round: a second answer from
		 * the same address is another device with that address. */
		st->conflict = true;
		return;
	}
	if (st->npeers == IRLAP_MAX_PEERS)
		return;
	st->peers[st->npeers] = (struct irlap_peer){ .daddr = x->saddr, .slot = x->slot,
						     .info = x->info };
	st->npeers++;
}

static void passive_discovery(struct irlap *st, const struct irlap_xid *x)
{
	struct irlap_peer peer = { .daddr = x->saddr, .slot = x->slot, .info = x->info };
	struct irlap_event ev = { .type = IRLAP_EV_DISCOVERED_BY, .peer = &peer,
				  .daddr = x->saddr };

	/* A connect request usually follows: stay quiet a moment. */
	if (st->media_busy_until < st->now + SMALL_BUSY_US)
		st->media_busy_until = st->now + SMALL_BUSY_US;
	irlap_deliver(st, &ev);
}

/* First XID command of a round: choose a slot, maybe answer at once. */
static void begin_reply(struct irlap *st, const struct irlap_xid *x)
{
	uint8_t left = (uint8_t)(x->slots - x->slot);

	if (x->new_addr) {
		struct irlap_event ev = { .type = IRLAP_EV_ADDRESS_CHANGED };

		st->daddr = irlap_new_daddr(st);
		ev.daddr = st->daddr;
		log_msg(st->log, LOG_LEVEL_INFO, "discovery: new device address 0x%08x",
			st->daddr);
		irlap_deliver(st, &ev);
	}
	st->query_saddr = x->saddr;
	st->reply_slot = (uint8_t)(x->slot + irlap_random(st) % left);
	st->replied = false;
	irlap_set_state(st, IRLAP_REPLY, "XID-cmd");
	irlap_start_timer(st, T_QUERY, st->now + (uint64_t)left * st->cfg.slot_us +
					       QUERY_FINAL_US + QUERY_SLACK_US);
}

static void maybe_reply(struct irlap *st, const struct irlap_xid *x)
{
	if (st->replied || x->slot < st->reply_slot)
		return;
	send_xid(st, false, x->saddr, x->slots, st->reply_slot, false, true);
	st->replied = true;
}

void irlap_discovery_input(struct irlap *st, const struct irlap_frame *f)
{
	struct irlap_xid x;

	if (irlap_xid_parse(f, &x) != 0) {
		log_msg(st->log, LOG_LEVEL_DEBUG, "XID: malformed I-field ignored");
		st->stats.ignored++;
		st->query_foreign = true;
		return;
	}
	if (!x.cmd) {
		if (st->state == IRLAP_QUERY && x.daddr == st->daddr) {
			record_response(st, &x);
		} else {
			st->stats.ignored++;
			st->query_foreign = true;
		}
		return;
	}
	if (x.daddr != IRLAP_BROADCAST_DADDR && x.daddr != st->daddr) {
		st->stats.ignored++;
		st->query_foreign = true;
		return;
	}
	if (st->state == IRLAP_QUERY) {
		/* Someone else is discovering at the same time as we are. */
		st->stats.ignored++;
		st->query_foreign = true;
		return;
	}
	if (x.slot == IRLAP_XID_FINAL_SLOT) {
		if (st->state == IRLAP_REPLY) {
			irlap_stop_timer(st);
			irlap_set_state(st, IRLAP_NDM, "final XID");
		}
		passive_discovery(st, &x);
		return;
	}
	/* A new round: in NDM, or from another initiator, or slots going
	 * backwards (the initiator started over). */
	if (st->state == IRLAP_NDM || x.saddr != st->query_saddr || x.slot < st->last_slot)
		begin_reply(st, &x);
	else
		irlap_start_timer(st, T_QUERY, st->now + (uint64_t)(x.slots - x.slot) * st->cfg.slot_us +
						       QUERY_FINAL_US + QUERY_SLACK_US);
	st->last_slot = x.slot;
	maybe_reply(st, &x);
}
