/*
 * station.h: the real-time host of one IrDA station.
 *
 * Owns: driving one IrLAP station (irlap.h) on a real serial port or a
 * pty (serial.h) from an event loop (eloop.h): bytes read from the port
 * go through the SIR decoder (sir.h) into irlap_input(); frames IrLAP
 * sends are SIR-encoded with the XBOFs its txinfo asks for and written
 * to the port; bytes heard while our own frame is on the line (the
 * dongle's echo, half-duplex, digest 2.6) are dropped; line activity and
 * the decoder's media-busy indications are fed to IrLAP's contention
 * sense; one eloop timer follows irlap_deadline(); the speed switch IrLAP
 * asks for (drain, dongle script, UART rate; digest 2.8) is played with
 * dongle_run(); optionally every frame sent and received goes to a pcap
 * writer.
 *
 * Does not own: the port (opened by the caller, possibly before dropping
 * privileges; closed by the caller after station_free), the loop, the
 * pcap writer's sink, or what the events mean: they go to the layer
 * above through struct station_app (a program today; IrLMP later, which
 * also supplies pull() for the data of the next I-frame).
 *
 * Writes are blocking per frame (port_write_all): a frame is at most
 * about 4 KB on the line, and IrLAP sends nothing else until it has left.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_STATION_H
#define IRNET_STATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dongle.h"
#include "eloop.h"
#include "irlap.h"
#include "log.h"
#include "pcap.h"
#include "serial.h"
#include "sir.h"

struct station;

/* The layer above. */
struct station_app {
	/* Every IrLAP event; may call station_request(). */
	void (*event)(void *ctx, const struct irlap_event *ev);
	/* Optional: data for the next I-frame (see irlap_ops.pull). */
	size_t (*pull)(void *ctx, uint8_t *buf, size_t max);
	/* The port failed (read error, hang-up, write or speed switch
	 * failure): err is -errno, msg names the device.  The station has
	 * stopped reading; the host should end. */
	void (*failed)(void *ctx, int err, const char *msg);
	void *ctx;
};

struct station_config {
	struct irlap_config lap;     /* irlap_config_defaults(), then edited */
	struct dongle dongle;        /* dongle_init() */
	struct station_app app;
	struct pcap_writer *pcap;    /* NULL: no capture */
	/* Extra time after our frame's computed end during which received
	 * bytes are still taken for our own echo.  At most the minimum
	 * turnaround we announce (lap.qos.min_tat): the peer may answer
	 * that soon, and its bytes must not be dropped as ours. */
	uint32_t echo_margin_us;
	const struct logger *log;
};

/* STATION_MIN_TAT_DONGLE: announce the dongle's own minimum turnaround. */
#define STATION_MIN_TAT_DONGLE (-1L)

/* Fills cfg for a station behind the dongle dongle_spec (dongle_init's
 * syntax) offering rates up to max_baud: irlap_config_defaults() with the
 * rates the dongle has, and the minimum turnaround min_tat_us (rounded up
 * to an IrLAP value, 0..10000) or, with STATION_MIN_TAT_DONGLE, the one
 * the dongle needs (Linux's per-dongle MTT bits, digest 3.3).  The echo
 * margin is that turnaround.  The caller fills lap.info, lap.seed, the
 * logs and app.  Returns 0, or -EINVAL with a message in err that names
 * the dongle or the rate. */
int station_config_init(struct station_config *cfg, const char *dongle_spec,
			uint32_t max_baud, long min_tat_us, char *err, size_t errlen);

struct station_counters {
	uint64_t rx_bytes;        /* bytes read from the port */
	uint64_t echo_dropped;    /* of those, dropped as heard while sending */
	uint64_t tx_frames, rx_frames;
	uint64_t tx_bytes;        /* line bytes written (XBOFs included) */
	uint64_t speed_switches;
	uint64_t last_switch_us;  /* how long the last switch took */
};

/* Powers the dongle up, brings the line to 9600 (contention rate), and
 * starts reading.  The port must come from serial_open (it needs an fd).
 * Returns 0 and *out, or -errno with a message in err. */
int station_new(struct eloop *loop, struct port *port,
		const struct station_config *cfg, struct station **out,
		char *err, size_t errlen);
/* Stops reading, runs the dongle's close script.  Does not close the
 * port. */
void station_free(struct station *st);

/* irlap_request() at the loop's current time; re-arms the timer. */
int station_request(struct station *st, const struct irlap_request *req);

struct irlap *station_irlap(struct station *st);
const struct station_counters *station_counters(const struct station *st);
const struct sir_counters *station_sir_counters(const struct station *st);

#endif
