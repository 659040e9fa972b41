/*
 * rel_world.h: two whole stations on the emulated wire in virtual time,
 * every service open and carrying checked data both ways, for the
 * reliability tests (issue 16): tests/unit/test_soak.c (long faults) and
 * tests/unit/test_hostile.c (a hostile peer beside the legitimate one).
 *
 * Station 0 calls, station 1 listens.  Each has IrLAP (sim.h), IrLMP, an
 * IAS server; station 1 offers IrCOMM (ircomm_server, 9-wire), an IrNET-
 * like TinyTP SAR service and a TinyTP stream service.  Station 0 opens
 * the services chosen in the config and keeps them open: after a
 * reported disconnect it calls again RECONNECT_US later.
 *
 * Every byte delivered is checked, both directions:
 *  - streams (IrCOMM, TinyTP stream): byte i of a connection is
 *    rel_pattern(dir, i), so a duplicated, reordered, lost-inside or
 *    corrupted byte shows as a mismatch at its position;
 *  - SAR: each SDU carries its sequence number, its length and an FCS-16
 *    of its payload, and the payload is rel_pattern of the sequence
 *    number: SDUs must arrive whole, in order, each once.
 * A new connection starts again at position 0 / sequence 0; what was in
 * flight when a connection ended is lost, which is allowed only because
 * the disconnect was reported to both ends.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_TESTS_REL_WORLD_H
#define IRNET_TESTS_REL_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ias.h"
#include "ircomm.h"
#include "irlmp.h"
#include "sim.h"
#include "ttp.h"

enum rel_svc { REL_IRCOMM, REL_SAR, REL_STREAM, REL_NSVC };

struct rel_world;

/* One end of one service. */
struct rel_end {
	struct rel_world *w;
	enum rel_svc svc;
	int side;
	struct ircomm *c;        /* REL_IRCOMM */
	struct ttp *t;           /* REL_SAR, REL_STREAM */
	bool up;
	uint64_t tx_pos, rx_pos; /* bytes (streams) or SDUs (SAR) this connection */
	uint64_t bytes_tx, bytes_verified, corrupted, sdus_verified;
	uint64_t connects;
	uint64_t disconnects;    /* of connections that were up */
	uint64_t failed;         /* calls that ended before they were up */
};

struct rel_world_config {
	uint32_t baud;            /* both stations offer 9600 up to this */
	double ber, drop;         /* wire faults */
	/* Host stalls on both stations (sim.h's stall_gap_us): 0: none. */
	uint32_t stall_gap_us, stall_max_us;
	const struct wire_break *breaks;
	size_t n_breaks;
	uint64_t seed;
	bool services[REL_NSVC];  /* which ones station 0 opens */
	/* Optional: every frame a station sends (after the sim saw it). */
	void (*on_frame)(void *ctx, int station, const uint8_t *frame, size_t len);
	void *frame_ctx;
	/* Optional: a delivered byte or SDU failed its check (debugging). */
	void (*on_corrupt)(void *ctx, const struct rel_end *e, const uint8_t *buf, size_t n);
	const struct logger *log;
};

struct rel_world {
	struct rel_world_config cfg;
	struct sim *sim;
	struct irlmp *lm[2];
	struct ias_db *db[2];
	struct ias_server *ias[2];
	struct ircomm_server *ircomm_srv;
	struct ttp_listener *sar_l, *stream_l;
	struct rel_end end[REL_NSVC][2];
	uint64_t redial_at[REL_NSVC];
	uint64_t lap_connects, lap_disconnects, lap_resets;
	struct rel_lap_ctx { struct rel_world *w; int idx; } lap_ctx[2];
	/* cfg.log with each station's prefix ("s0", "s1"), for its layers */
	struct logger station_log[2];
};

struct rel_world *rel_world_new(const struct rel_world_config *cfg);
void rel_world_free(struct rel_world *w);
/* Runs the stations, their timers, the callers' redials and the checked
 * traffic until virtual time t_us. */
void rel_world_run_until(struct rel_world *w, uint64_t t_us);
uint64_t rel_world_now(const struct rel_world *w);
/* Sums over every service and both ends. */
uint64_t rel_world_verified(const struct rel_world *w);
uint64_t rel_world_corrupted(const struct rel_world *w);
const char *rel_svc_name(enum rel_svc s);
uint8_t rel_pattern(int dir, uint64_t pos);

/* The SAR SDU header: sequence (4), payload length (2), FCS-16 (2). */
#define REL_SAR_HDR 8

#endif
