/*
 * fuzz_qos.c: a peer's QoS list (arbitrary bytes) parsed and negotiated
 * against our default announcement, in both roles (the peer's list as
 * the other side's, and as if it were ours).  A list we take survives
 * encode + parse unchanged; a negotiation that says yes never yields an
 * unusable value (window 1..7, data size 64..2048 within the turn, a
 * table rate both announced, turnaround and disconnect times from the
 * tables), and it says no exactly when qos_unusable() names a parameter.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "irlap.h"
#include "qos.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool in_table(uint32_t (*of_bit)(unsigned), unsigned n, uint32_t v)
{
	for (unsigned b = 0; b < n; b++)
		if (of_bit(b) == v)
			return true;
	return false;
}

static void check(const struct qos_bits *own, const struct qos_bits *peer)
{
	struct qos_result r;
	int rc = qos_negotiate(own, peer, NULL, &r);
	unsigned bad = qos_unusable(own, peer);

	if ((rc == 0) != (bad == 0))
		abort();
	/* Sane either way (a refusing station still uses the timers). */
	if (r.tx_window < 1 || r.tx_window > 7 || r.rx_window < 1 || r.rx_window > 7)
		abort();
	if (r.tx_data_size < 64 || r.tx_data_size > 2048 || r.rx_data_size < 64 ||
	    r.rx_data_size > 2048)
		abort();
	if (!in_table(qos_max_tat_ms_of_bit, 7, r.peer_max_tat_ms) ||
	    !in_table(qos_max_tat_ms_of_bit, 7, r.own_max_tat_ms) ||
	    !in_table(qos_min_tat_us_of_bit, 8, r.tx_min_tat_us) ||
	    !in_table(qos_add_bofs_of_bit, 8, r.tx_add_bofs) ||
	    !in_table(qos_link_disc_ms_of_bit, 8, r.link_disc_ms))
		abort();
	if (rc != 0)
		return;
	/* A rate both announced, and a turn that holds one frame. */
	if (qos_baud_bit(r.baud) < 0 || !(own->baud & peer->baud & (1u << qos_baud_bit(r.baud))))
		abort();
	if (r.line_capacity == 0)
		abort();
	if (r.tx_data_size > 64 &&
	    r.tx_data_size + 6 + r.tx_add_bofs + qos_mtt_bytes(r.baud, r.tx_min_tat_us) >
		    r.line_capacity)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct irlap_config cfg;
	struct qos_bits peer, again;
	uint8_t buf[64];
	struct wcursor w;

	if (qos_parse(data, size, &peer, NULL) != 0)
		return 0;
	wcursor_init(&w, buf, sizeof(buf));
	if (!qos_encode(&peer, &w) || qos_parse(buf, wcursor_len(&w), &again, NULL) != 0 ||
	    memcmp(&peer, &again, sizeof(peer)) != 0)
		abort();
	irlap_config_defaults(&cfg, 115200, 1000);
	check(&cfg.qos, &peer);
	check(&peer, &cfg.qos);
	return 0;
}
