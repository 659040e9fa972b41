/*
 * station.h: the real-time host of one IrDA station.
 *
 * Two kinds of line: a serial port (below) and a line that carries
 * whole frames (struct station_frame_line: a USB dongle), on which
 * only the IrLAP glue applies.
 *
 * Owns: driving one IrLAP station (irlap.h) on a real serial port or a
 * pty (serial.h) from an event loop (eloop.h): bytes read from the port
 * (in a few bursts per read inside long frames: read coalescing, below)
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
	 * stopped reading; the host ends, or detaches the port from its
	 * loop (station_detach_port) and waits for it.  With this set the
	 * station logs the failure at debug level only: the host says it. */
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
	/* Read coalescing: inside a long frame the port is left unread
	 * for up to this long after each read (a quarter of it in a frame
	 * that ends the peer's turn), so that one read takes several of
	 * the UART's bursts (see station_read_pause_us).  0: read every
	 * burst.  station_config_init sets STATION_READ_COALESCE_US. */
	uint32_t read_coalesce_us;
	const struct logger *log;
};

/* The default read coalescing: 8 ms (92 bytes at 115200) inside a frame
 * that more frames of the same turn follow, whose end waits for nobody;
 * 2 ms (STATION_READ_FINAL_SHARE) inside a frame with the P/F bit, whose
 * end we answer: that is the latency it may add to a turn of the line.
 * Only inside frames at least STATION_READ_MIN_FRAME bytes and one pause
 * long: never in the short frames of link set-up (an XID is at most 41
 * bytes), polls and acknowledgements. */
#define STATION_READ_COALESCE_US 8000u
#define STATION_READ_FINAL_SHARE 4u
#define STATION_READ_MIN_FRAME 64u
/* A pause ends at least this long before the next IrLAP deadline, so
 * that a timer never fires on a frame that has arrived but is unread. */
#define STATION_READ_GUARD_US 1000u
/* Shorter pauses are not worth a timer. */
#define STATION_READ_PAUSE_MIN_US 500u

/* How long to leave the port unread after a read that ended inside a
 * frame of frame_len bytes (stored so far, FCS included) at baud: the
 * pause is max_us, or max_us / STATION_READ_FINAL_SHARE if the frame
 * ends the peer's turn (P/F set); 0 while the frame is shorter than
 * STATION_READ_MIN_FRAME or than that pause in line time; else that,
 * cut to the line time of the bytes up to end_len (where the frame
 * likely ends: the length of the last long frame, or the largest the
 * peer may send; 0: unknown; 0 pause if frame_len reached it) and to
 * end STATION_READ_GUARD_US before deadline_us (IrLAP's next deadline,
 * UINT64_MAX for none); 0 if that leaves less than
 * STATION_READ_PAUSE_MIN_US.  Pure: exposed for the unit test. */
uint32_t station_read_pause_us(uint32_t baud, size_t frame_len, bool ends_turn,
			       size_t end_len, uint64_t now_us, uint64_t deadline_us,
			       uint32_t max_us);

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
/* Replaces the minimum turnaround station_config_init chose (and the echo
 * margin with it) by min_tat_us, rounded up to an IrLAP value: for a
 * turnaround learnt once the port is open (irwire's mark, serial.h).
 * Returns 0, or -EINVAL above 10000. */
int station_config_set_min_tat(struct station_config *cfg, uint32_t min_tat_us);
/* The minimum turnaround cfg announces, in microseconds (the IrLAP value
 * its bits stand for: 10, 5000, ...). */
uint32_t station_config_min_tat_us(const struct station_config *cfg);

struct station_counters {
	uint64_t rx_bytes;        /* bytes read from the port */
	uint64_t rx_reads;        /* reads that returned bytes */
	uint64_t rx_pauses;       /* times reading paused inside a frame */
	uint64_t echo_dropped;    /* of those, dropped as heard while sending */
	uint64_t tx_frames, rx_frames;
	uint64_t tx_bytes;        /* line bytes written (XBOFs included) */
	uint64_t tx_lost;         /* frames IrLAP sent while the port was detached */
	uint64_t speed_switches;
	uint64_t last_switch_us;  /* how long the last switch took */
};

/* Powers the dongle up, brings the line to 9600 (contention rate), and
 * starts reading.  The port must come from serial_open (it needs an fd).
 * Returns 0 and *out, or -errno with a message in err. */
int station_new(struct eloop *loop, struct port *port,
		const struct station_config *cfg, struct station **out,
		char *err, size_t errlen);
/*
 * A line that carries whole frames (a USB dongle: the chip does the
 * framing, the FCS and the turnaround padding), instead of a serial port.
 * The station hands it each frame IrLAP sends and each speed switch
 * IrLAP asks for; the line gives back what it receives through
 * station_line_frame, station_line_media_busy and station_line_failed.
 * Dongle scripts, echo dropping and read coalescing do not apply.
 */
struct station_frame_line {
	/* One frame (A, C, I; no FCS): at tx->baud first if that is not
	 * the line's speed, with tx->xbofs extra BOFs, then the switch to
	 * tx->speed_after if set, in that order.  The line queues what it
	 * cannot send yet.  0, or -errno (the station fails). */
	int (*send)(void *ctx, const uint8_t *frame, size_t len, const struct irlap_txinfo *tx);
	/* A switch now (after what is queued).  0, or -errno. */
	int (*set_speed)(void *ctx, uint32_t baud);
	/* Optional: the station the line reports to from now on (NULL at
	 * station_free and station_detach_port: none). */
	void (*bind)(void *ctx, struct station *st);
	void *ctx;
	const char *name;	/* for messages */
};

/* A station on a framed line that is open and at 9600 (the contention
 * rate).  cfg's dongle is unused.  Returns 0 and *out, or -errno with a
 * message in err. */
int station_new_framed(struct eloop *loop, const struct station_frame_line *line,
		       const struct station_config *cfg, struct station **out,
		       char *err, size_t errlen);
/* From the framed line: a good frame (A, C, I), something damaged heard
 * (contention), the line's failure (as a port's: app.failed is told). */
void station_line_frame(struct station *st, const uint8_t *frame, size_t len);
void station_line_media_busy(struct station *st);
void station_line_failed(struct station *st, int err, const char *msg);
/* A framed line again after station_detach_port (the dongle replugged,
 * open and at 9600).  0, or -EBUSY (not detached, or a serial station). */
int station_attach_line(struct station *st, const struct station_frame_line *line, char *err,
			size_t errlen);

/* Stops reading, runs the dongle's close script (not when detached, nor
 * on a framed line).  Does not close the port or the line. */
void station_free(struct station *st);

/*
 * The port went away (a USB adapter unplugged; the host saw its failed
 * callback and will close the port): the station stops reading it and
 * forgets it, IrLAP ends its link at once as a link loss
 * (irlap_port_lost: the layers above get the DISCONNECT), and runs on
 * with nothing on the line: its frames are lost (tx_lost), its timers
 * and requests work (a discovery finds nobody).  The caller closes the
 * port after this.  A no-op when already detached.
 */
void station_detach_port(struct station *st);
/* A port again (reopened by the host, from serial_open): the dongle is
 * powered and put at the contention rate as in station_new, and reading
 * starts.  IrLAP is in NDM or setting up a connection then, both at
 * 9600.  Returns 0, or -errno with a message in err (the station stays
 * detached; the caller closes the port). */
int station_attach_port(struct station *st, struct port *port, char *err, size_t errlen);
bool station_detached(const struct station *st);

/* irlap_request() at the loop's current time; re-arms the timer. */
int station_request(struct station *st, const struct irlap_request *req);

struct irlap *station_irlap(struct station *st);
const struct station_counters *station_counters(const struct station *st);
const struct sir_counters *station_sir_counters(const struct station *st);

#endif
