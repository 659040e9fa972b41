/*
 * api_requests.h: irdad's local API requests carried out on the stack.
 *
 * Owns: what each request of docs/irdad-api.md does on one stack (the
 * station log from discoveries, IAS queries and the IAS objects clients
 * register, TinyTP listeners and connections), the per-session state
 * that holds them (freed when the session ends), and handing each
 * connection to its client as a descriptor through conn_bridge.
 *
 * Does not own: the control socket and its sessions (api_server.h), the
 * stack (the daemon made it; this module hears its IrLAP events through
 * api_requests_lap_event), the endpoints irdad itself serves (ptys).
 * ATTACHed endpoints (IrNET on the client's descriptors) are irnet_ep's
 * in stdio mode; this module only holds them per session, passes them the
 * IrLAP events and frees them when they end or their session does.
 *
 * Limits per session keep one client from starving the rest: listeners,
 * connections, connects in progress, IAS objects and attached endpoints
 * are each bounded
 * (EBUSY past them).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_API_REQUESTS_H
#define IRNET_API_REQUESTS_H

#include <stddef.h>
#include <stdint.h>

#include "api_server.h"
#include "eloop.h"
#include "irlap.h"
#include "log.h"
#include "stack.h"

struct api_requests;

struct api_requests_config {
	const char *port_name;       /* for HELLO ("ttyUSB0") */
	const char *nickname;        /* ours, for HELLO */
	unsigned max_listeners, max_conns, max_connecting, max_ias_objects; /* per session */
	unsigned max_endpoints;      /* ATTACHed endpoints per session (4) */
	uint32_t max_sdu;            /* the MaxSduSize a SAR connection takes */
	uint64_t connect_timeout_us; /* default when the request gives none */
	uint64_t drain_timeout_us;   /* see conn_bridge_config */
	const struct logger *log;
};

void api_requests_config_defaults(struct api_requests_config *cfg);

struct api_requests *api_requests_new(struct eloop *loop, struct stack *stk,
				      const struct api_requests_config *cfg);
void api_requests_free(struct api_requests *ar);

/* The api_server_ops to open the control socket with (ctx: ar). */
extern const struct api_server_ops api_requests_server_ops;

/* The daemon's IrLAP event hook (stack_config.event) passes every event
 * here: discoveries feed the station log and the waiting DISCOVERs. */
void api_requests_lap_event(struct api_requests *ar, const struct irlap_event *ev);

/* The port went away (gone: since now, its device path waited for) or
 * is back: STATUS says so (PORT_STATE, PORT_GONE_MS, PORT_PATH). */
void api_requests_port_state(struct api_requests *ar, bool gone, const char *path);

#endif
