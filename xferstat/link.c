/*
 * link.c: interface counters through libnl-route.  See link.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "link.h"

#include <errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct xfer_link_sampler {
	struct nl_sock *sock;
	char ifname[64];
};

/* libnl errors are its own numbers; map the usual ones back. */
static int to_errno(int nlerr)
{
	switch (-nlerr) {
	case NLE_NODEV:
	case NLE_OBJ_NOTFOUND:
		return -ENODEV;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	default:
		return -EIO;
	}
}

int xfer_link_sampler_open(struct xfer_link_sampler **out, const char *ifname,
			   struct xfer_error *err)
{
	*out = NULL;
	struct xfer_link_sampler *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err->msg, sizeof(err->msg), "--iface %s: out of memory", ifname);
		return -ENOMEM;
	}
	if (strlen(ifname) >= sizeof(s->ifname)) {
		snprintf(err->msg, sizeof(err->msg), "--iface %s: name too long", ifname);
		free(s);
		return -EINVAL;
	}
	memcpy(s->ifname, ifname, strlen(ifname) + 1);
	s->sock = nl_socket_alloc();
	int rc = s->sock ? nl_connect(s->sock, NETLINK_ROUTE) : -NLE_NOMEM;
	if (rc < 0) {
		snprintf(err->msg, sizeof(err->msg), "--iface %s: cannot open a netlink socket: %s",
			 ifname, nl_geterror(rc));
		xfer_link_sampler_close(s);
		return to_errno(rc);
	}
	struct xfer_link probe;
	rc = xfer_link_sample(s, &probe, err);
	if (rc < 0) {
		xfer_link_sampler_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

void xfer_link_sampler_close(struct xfer_link_sampler *s)
{
	if (!s)
		return;
	if (s->sock)
		nl_socket_free(s->sock);
	free(s);
}

int xfer_link_sample(struct xfer_link_sampler *s, struct xfer_link *now,
		     struct xfer_error *err)
{
	struct rtnl_link *link = NULL;
	memset(now, 0, sizeof(*now));
	int rc = rtnl_link_get_kernel(s->sock, 0, s->ifname, &link);
	if (rc < 0) {
		snprintf(err->msg, sizeof(err->msg), "--iface %s: %s", s->ifname,
			 -rc == NLE_NODEV || -rc == NLE_OBJ_NOTFOUND ? "no such interface"
								     : nl_geterror(rc));
		return to_errno(rc);
	}
	now->tx_bytes = rtnl_link_get_stat(link, RTNL_LINK_TX_BYTES);
	now->rx_bytes = rtnl_link_get_stat(link, RTNL_LINK_RX_BYTES);
	now->tx_packets = rtnl_link_get_stat(link, RTNL_LINK_TX_PACKETS);
	now->rx_packets = rtnl_link_get_stat(link, RTNL_LINK_RX_PACKETS);
	now->tx_errors = rtnl_link_get_stat(link, RTNL_LINK_TX_ERRORS);
	now->rx_errors = rtnl_link_get_stat(link, RTNL_LINK_RX_ERRORS);
	now->tx_dropped = rtnl_link_get_stat(link, RTNL_LINK_TX_DROPPED);
	now->rx_dropped = rtnl_link_get_stat(link, RTNL_LINK_RX_DROPPED);
	now->present = true;
	rtnl_link_put(link);
	return 0;
}

static uint64_t sub(uint64_t after, uint64_t before)
{
	return after >= before ? after - before : 0;
}

void xfer_link_delta(const struct xfer_link *before, const struct xfer_link *after,
		     struct xfer_link *delta)
{
	delta->present = before->present && after->present;
	delta->tx_bytes = sub(after->tx_bytes, before->tx_bytes);
	delta->rx_bytes = sub(after->rx_bytes, before->rx_bytes);
	delta->tx_packets = sub(after->tx_packets, before->tx_packets);
	delta->rx_packets = sub(after->rx_packets, before->rx_packets);
	delta->tx_errors = sub(after->tx_errors, before->tx_errors);
	delta->rx_errors = sub(after->rx_errors, before->rx_errors);
	delta->tx_dropped = sub(after->tx_dropped, before->tx_dropped);
	delta->rx_dropped = sub(after->rx_dropped, before->rx_dropped);
}

uint64_t xfer_link_payload_side(const struct xfer_link *delta, bool put)
{
	return put ? delta->tx_bytes : delta->rx_bytes;
}
