/*
 * link.h: a network interface's counters, read through libnl-route
 * (rtnl_link) before and after each run of `xferstat run --iface IF`.
 *
 * Owns the netlink socket and the difference of two samples; knows
 * nothing of transfers.  The overhead (link bytes / payload bytes) and
 * compression ratio (payload / link bytes) are computed from a delta
 * and the payload by the caller.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_LINK_H
#define XFERSTAT_LINK_H

#include <stdint.h>

#include "results.h"

struct xfer_link_sampler;

/* Opens a netlink route socket and checks that ifname exists.  Returns
 * 0, -ENODEV (no such interface), or another negative errno; err names
 * the interface. */
int xfer_link_sampler_open(struct xfer_link_sampler **out, const char *ifname,
			   struct xfer_error *err);
void xfer_link_sampler_close(struct xfer_link_sampler *s);

/* Absolute counters of the interface now (present set). */
int xfer_link_sample(struct xfer_link_sampler *s, struct xfer_link *now,
		     struct xfer_error *err);

/* after - before, counter by counter (a counter that went backwards, as
 * when the interface was recreated, gives 0). */
void xfer_link_delta(const struct xfer_link *before, const struct xfer_link *after,
		     struct xfer_link *delta);

/* The link bytes that carried a transfer in that direction: received
 * bytes for a get, sent bytes for a put. */
uint64_t xfer_link_payload_side(const struct xfer_link *delta, bool put);

#endif
