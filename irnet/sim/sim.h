/*
 * sim.h: IrLAP stations joined in one process, on a virtual clock.
 *
 * Owns: the event loop that joins each station's SIR encoder, SIR
 * decoder and IrLAP station to a medium and advances virtual time to
 * the next thing that happens (a byte arriving, a station's timer);
 * optional capture of the session as pcap (link type 144).
 *
 * Two media:
 *  - struct sim: two stations on the emulated wire (wire.h) with all its
 *    physics: pacing at 10 bit-times per byte at each side's rate,
 *    half-duplex blindness and turnaround, bit errors, dropped bytes,
 *    link breaks, speed mismatch.  This is what the transfer tests use.
 *  - struct simnet: N stations on a shared broadcast medium at frame
 *    granularity (every frame reaches every other station after its line
 *    time; frames that overlap in time destroy each other; a station
 *    hears nothing while it transmits), for discovery with several
 *    devices in range, which a two-sided wire cannot show.
 *
 * Does not own: the stations' protocol (irlap.c), the line physics
 * (wire.c), SIR framing (sir.c), pcap layout (pcap.c).  What the layer
 * above does with events and where data comes from is the caller's
 * struct sim_app.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_SIM_H
#define IRNET_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "irlap.h"
#include "log.h"
#include "pcap.h"
#include "wire.h"

/* The layer above each station. */
struct sim_app {
	/* Every event a station delivers (may call sim_request). */
	void (*event)(void *ctx, int station, const struct irlap_event *ev);
	/* Data for the next I-frame, at most max bytes (NULL: none). */
	size_t (*pull)(void *ctx, int station, uint8_t *buf, size_t max);
	void *ctx;
};

struct sim_config {
	struct wire_config wire;      /* physics; wire.baud is ignored (9600) */
	struct sim_app app;
	/* Probability that a frame vanishes on its way (the line carries
	 * idle bytes for its duration instead), on top of the wire's
	 * per-byte physics.  Drawn per frame from wire.seed. */
	double frame_loss;
	/* Optional, for tests that lose chosen frames: asked for every
	 * frame a station sends; true damages it on the line (one bit of
	 * its middle byte flips, so the receiver's decoder drops it as a
	 * damaged frame, as after a bit error). */
	bool (*damage)(void *ctx, int station, const uint8_t *frame, size_t len);
	void *damage_ctx;
	/* A station that switches its line late after a frame that asks for
	 * it (txinfo.speed_after: the secondary's UA): its UART changes rate
	 * this long after the frame was handed over, but not before the
	 * frame has left.  0: as the frame is handed over (an ideal host).
	 * Linux waits a fixed 60 ms where the driver cannot tell when the
	 * frame has left (USB bridges, digest 2.8). */
	uint32_t switch_delay_us[2];
	/* Host stalls: a busy machine, whose scheduler runs something else
	 * for a while.  Station i's host stops for up to stall_max_us[i],
	 * about every stall_gap_us[i] (both drawn uniformly from the seed);
	 * meanwhile the bytes that arrive wait in its receive buffer (its
	 * UART still sends what it was given) and its timers do not fire.
	 * On waking it handles the two in an order drawn each time, as an
	 * event loop that finds a timer due and a readable port at once may.
	 * 0: a host that never stalls. */
	uint32_t stall_gap_us[2], stall_max_us[2];
	/* Optional capture, from station 0's point of view: what it sends
	 * (packet type 4) and what it receives intact (0). */
	pcap_sink_fn pcap_sink;
	void *pcap_ctx;
	const struct logger *log;
};

struct sim_counters {
	uint64_t frames_sent[2];
	uint64_t frames_received[2];  /* intact frames that reached the station */
	uint64_t frames_lost[2];      /* frame_loss victims, by sender */
	uint64_t stalls[2];           /* host stalls, by station */
	uint64_t stall_bytes_lost[2]; /* arrived while stalled, receive buffer full */
	uint64_t events;              /* loop iterations */
};

struct sim;

/* stations[0] and stations[1] configure the two stations (their ops
 * are the simulator's).  NULL on bad configuration or no memory. */
struct sim *sim_new(const struct sim_config *cfg, const struct irlap_config stations[2]);
void sim_free(struct sim *s);

struct irlap *sim_station(struct sim *s, int station);
const struct wire *sim_wire(const struct sim *s);
const struct sim_counters *sim_counters(const struct sim *s);
uint64_t sim_now(const struct sim *s);

/* Whether station's host is stalled now (see stall_gap_us): the layers
 * above should not run either. */
bool sim_stalled(const struct sim *s, int station);

/* irlap_request() at the current virtual time. */
int sim_request(struct sim *s, int station, const struct irlap_request *req);

/* Runs until virtual time t (or until nothing can happen any more:
 * then the clock jumps to t). */
void sim_run_until(struct sim *s, uint64_t t_us);
/* Runs until done(ctx) is true (checked after every step) or virtual
 * time limit_us; returns whether done() became true. */
bool sim_run_while_not(struct sim *s, bool (*done)(void *ctx), void *ctx, uint64_t limit_us);

/* ---- N stations on a broadcast medium -------------------------------- */

struct simnet_config {
	struct sim_app app;
	const struct logger *log;
};

struct simnet;

struct simnet *simnet_new(const struct simnet_config *cfg, const struct irlap_config *stations,
			  size_t n);
void simnet_free(struct simnet *net);
struct irlap *simnet_station(struct simnet *net, int station);
uint64_t simnet_now(const struct simnet *net);
int simnet_request(struct simnet *net, int station, const struct irlap_request *req);
void simnet_run_until(struct simnet *net, uint64_t t_us);
/* Frames lost to collisions so far. */
uint64_t simnet_collisions(const struct simnet *net);

#endif
