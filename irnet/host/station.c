/*
 * station.c: one IrDA station on a serial port, in real time.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "cursor.h"
#include "irlap_frame.h"
#include "qos.h"
#include "sir.h"
#include "station.h"

/* Largest wrapped frame: 2 + 2048 bytes, every byte escaped, 163 XBOFs. */
#define TX_BUF_MAX 4400
/* A stalled write of one frame gives up after this long. */
#define WRITE_STALL_US 2000000u
#define READ_CHUNK 1024

struct station {
	struct eloop *loop;
	struct port *port;
	int fd;
	/* A line that carries whole frames instead of a port (framed.send
	 * NULL: none); see station_new_framed. */
	bool is_framed;
	struct station_frame_line framed;
	struct dongle dongle;
	struct station_app app;
	struct pcap_writer *pcap;
	const struct logger *log;
	uint32_t echo_margin_us;
	uint32_t read_coalesce_us;
	struct sir_decoder *dec;
	struct irlap *lap;
	struct eloop_timer timer;
	struct eloop_timer resume;  /* ends a read pause (reading is false) */
	uint64_t line_end_us;     /* our last frame has left the line by then */
	uint64_t tx_end_us;       /* line_end_us + echo margin: input before is ours */
	size_t last_rx_len;       /* the last good long frame, FCS included */
	bool reading;
	bool dead;
	bool detached;            /* no port (station_detach_port): frames go nowhere */
	struct station_counters cnt;
	uint8_t txbuf[TX_BUF_MAX];
};

static uint64_t wall_us(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

static void capture(struct station *st, enum pcap_dir dir, const uint8_t *frame,
		    size_t len)
{
	if (st->pcap && pcap_writer_frame(st->pcap, wall_us(), dir, frame, len) < 0 &&
	    st->pcap->records == 0)
		log_msg(st->log, LOG_LEVEL_WARNING, "station: pcap capture failed");
}

static void fail(struct station *st, int err, const char *what)
{
	char msg[400];

	if (st->dead)
		return;
	st->dead = true;
	if (st->reading) {
		eloop_remove_reader(st->loop, st->fd);
		st->reading = false;
	}
	eloop_timer_cancel(st->loop, &st->timer);
	eloop_timer_cancel(st->loop, &st->resume);
	if (st->port && port_error(st->port)[0])
		snprintf(msg, sizeof(msg), "%s: %s", what, port_error(st->port));
	else
		snprintf(msg, sizeof(msg), "%s: %s", what, strerror(-err));
	/* a host that is told says it itself, once */
	log_msg(st->log, st->app.failed ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR, "station: %s", msg);
	if (st->app.failed)
		st->app.failed(st->app.ctx, err, msg);
}

static void rearm(struct station *st)
{
	uint64_t d;

	if (st->dead)
		return;
	d = irlap_deadline(st->lap);
	if (d == UINT64_MAX)
		eloop_timer_cancel(st->loop, &st->timer);
	else
		eloop_timer_arm_at(st->loop, &st->timer, d);
}

/* The speed change of digest 2.8/3.1: the dongle script drains the
 * port first, so the frame before the switch leaves at the old rate. */
static int switch_speed(struct station *st, uint32_t baud)
{
	struct dongle_script s;
	uint64_t took = 0;
	uint32_t from = st->port->baud;
	int r;

	if (from == baud)
		return 0;
	dongle_script_init(&s);
	r = dongle_set_speed(&st->dongle, from, baud, &s);
	if (r < 0) {
		port_fail(st->port, -r, "%s", s.error);
		return r;
	}
	r = dongle_run(st->port, &s, &took);
	if (r < 0)
		return r;
	/* What arrived at the old rate is garbage at the new one. */
	port_flush_input(st->port);
	sir_decoder_reset(st->dec);
	st->cnt.speed_switches++;
	st->cnt.last_switch_us = took;
	log_msg(st->log, LOG_LEVEL_DEBUG, "station: %u -> %u bps in %llu us", from,
		baud, (unsigned long long)took);
	return 0;
}

/* A framed line takes the frame whole: the chip frames it (and pads the
 * turnaround with the XBOFs asked for), switching speed before and after
 * as asked. */
static void send_framed(struct station *st, const uint8_t *frame, size_t len,
			const struct irlap_txinfo *tx)
{
	int r = st->framed.send(st->framed.ctx, frame, len, tx);

	if (r < 0) {
		fail(st, r, "send");
		return;
	}
	st->cnt.tx_frames++;
	st->cnt.tx_bytes += len;
	capture(st, PCAP_DIR_TX, frame, len);
}

static void lap_send_frame(void *ctx, const uint8_t *frame, size_t len,
			   const struct irlap_txinfo *tx)
{
	struct station *st = ctx;
	struct wcursor w;
	size_t xbofs = tx->xbofs > SIR_MAX_XBOFS ? SIR_MAX_XBOFS : tx->xbofs;
	uint64_t now;
	int n, r;

	if (st->dead)
		return;
	if (st->detached) {
		/* no port: the frame is lost, as in the air with nobody there */
		st->cnt.tx_lost++;
		return;
	}
	if (st->is_framed) {
		send_framed(st, frame, len, tx);
		return;
	}
	if (tx->baud && tx->baud != st->port->baud) {
		r = switch_speed(st, tx->baud);
		if (r < 0) {
			fail(st, r, "speed switch before a frame");
			return;
		}
	}
	wcursor_init(&w, st->txbuf, sizeof(st->txbuf));
	n = sir_encode(&w, frame, len, xbofs);
	if (n < 0) {
		log_msg(st->log, LOG_LEVEL_ERROR, "station: frame of %zu bytes not encoded", len);
		return;
	}
	/* Half-duplex: whatever was arriving is lost under our own signal. */
	sir_decoder_reset(st->dec);
	now = eloop_now_us();
	r = port_write_all(st->port, st->txbuf, (size_t)n, WRITE_STALL_US);
	if (r < 0) {
		fail(st, r, "write");
		return;
	}
	/* Frames of one turn are written back to back, faster than the
	 * line takes them: each starts where the one before ends. */
	if (st->line_end_us < now)
		st->line_end_us = now;
	st->line_end_us += sir_line_time_us(st->port->baud, (uint64_t)n);
	st->tx_end_us = st->line_end_us + st->echo_margin_us;
	st->cnt.tx_frames++;
	st->cnt.tx_bytes += (uint64_t)n;
	capture(st, PCAP_DIR_TX, frame, len);
	if (tx->speed_after) {
		/* tcdrain() can return while the frame is still on the line:
		 * a USB bridge's FIFO, a pty (whose reader paces the line).
		 * The frame cannot have left before its own line time, so
		 * wait for that too: switching early garbles its tail. */
		now = eloop_now_us();
		if (st->line_end_us > now)
			port_sleep_us(st->port, (uint32_t)(st->line_end_us - now));
		r = switch_speed(st, tx->speed_after);
		if (r < 0)
			fail(st, r, "speed switch after a frame");
		/* The frame is out: nothing more to drop. */
		st->line_end_us = st->tx_end_us = eloop_now_us();
	}
}

static void lap_set_speed(void *ctx, uint32_t baud)
{
	struct station *st = ctx;
	int r;

	if (st->dead || st->detached)
		return;
	if (st->is_framed) {
		r = st->framed.set_speed(st->framed.ctx, baud);
		if (r < 0)
			fail(st, r, "speed switch");
		return;
	}
	r = switch_speed(st, baud);
	if (r < 0)
		fail(st, r, "speed switch");
}

static void lap_deliver(void *ctx, const struct irlap_event *ev)
{
	struct station *st = ctx;

	if (st->app.event)
		st->app.event(st->app.ctx, ev);
}

static size_t lap_pull(void *ctx, uint8_t *buf, size_t max)
{
	struct station *st = ctx;

	return st->app.pull ? st->app.pull(st->app.ctx, buf, max) : 0;
}

static void on_frame(void *ctx, const uint8_t *frame, size_t len)
{
	struct station *st = ctx;

	st->cnt.rx_frames++;
	/* Only long frames predict long frames: an RR between two I-frames
	 * must not make the next I-frame's end unforeseen. */
	if (len + SIR_FCS_LEN >= STATION_READ_MIN_FRAME)
		st->last_rx_len = len + SIR_FCS_LEN;
	capture(st, PCAP_DIR_RX, frame, len);
	irlap_input(st->lap, frame, len, eloop_now_us());
}

static void on_media_busy(void *ctx)
{
	struct station *st = ctx;

	/* A damaged frame or noise: activity, and maybe a lost answer. */
	irlap_frame_error(st->lap, eloop_now_us());
}

static void on_timer(struct eloop *loop, void *ctx)
{
	struct station *st = ctx;

	(void)loop;
	irlap_tick(st->lap, eloop_now_us());
	rearm(st);
}

static bool has_signal(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != SIR_XBOF)
			return true;
	return false;
}

uint32_t station_read_pause_us(uint32_t baud, size_t frame_len, bool ends_turn,
			       size_t end_len, uint64_t now_us, uint64_t deadline_us,
			       uint32_t max_us)
{
	uint64_t pause = ends_turn ? max_us / STATION_READ_FINAL_SHARE : max_us;

	if (!pause || frame_len < STATION_READ_MIN_FRAME ||
	    sir_line_time_us(baud, frame_len) < pause)
		return 0;
	if (end_len) {
		if (end_len <= frame_len)
			return 0;
		if (sir_line_time_us(baud, end_len - frame_len) < pause)
			pause = sir_line_time_us(baud, end_len - frame_len);
	}
	if (deadline_us != UINT64_MAX) {
		uint64_t room = deadline_us > now_us + STATION_READ_GUARD_US ?
				deadline_us - now_us - STATION_READ_GUARD_US : 0;
		if (room < pause)
			pause = room;
	}
	return pause < STATION_READ_PAUSE_MIN_US ? 0 : (uint32_t)pause;
}

/* Where the frame being received will likely end (stored bytes, FCS
 * included): as long as the last long frame; just now if it is a little
 * longer already (its last bytes are escaped, or still in the UART);
 * else at the largest frame the peer may send us; 0 if unknown. */
static size_t likely_end(const struct station *st, size_t frame_len)
{
	const struct qos_result *q = irlap_get_qos(st->lap);
	size_t max = q ? SIR_MIN_FRAME + (size_t)q->rx_data_size + SIR_FCS_LEN : 0;

	if (st->last_rx_len > frame_len)
		return st->last_rx_len;
	if (st->last_rx_len && frame_len < st->last_rx_len + STATION_READ_MIN_FRAME)
		return frame_len;
	return max > frame_len ? max : 0;
}

/* Inside a long frame, the next burst of the UART only adds to it: leave
 * the port unread for a while so that one wake-up takes several bursts
 * (each wake-up, not each byte, is what costs CPU).  The P/F bit says
 * whether the frame ends the peer's turn (we answer it) or more of the
 * same turn follow (its end waits for nobody). */
static void maybe_pause(struct station *st, uint64_t now)
{
	size_t len = sir_decoder_frame_len(st->dec);
	struct irlap_frame f;
	bool ends_turn = irlap_frame_parse(sir_decoder_frame(st->dec), len, &f) == 0 && f.pf;
	uint32_t pause = station_read_pause_us(st->port->baud, len, ends_turn, likely_end(st, len),
					       now, irlap_deadline(st->lap), st->read_coalesce_us);

	if (!pause || !st->reading)
		return;
	eloop_remove_reader(st->loop, st->fd);
	st->reading = false;
	st->cnt.rx_pauses++;
	eloop_timer_arm_at(st->loop, &st->resume, now + pause);
}

static void on_readable(struct eloop *loop, int fd, void *ctx)
{
	struct station *st = ctx;
	uint8_t buf[READ_CHUNK];
	ssize_t n;
	uint64_t now;

	(void)loop;
	(void)fd;
	n = port_read(st->port, buf, sizeof(buf), 0);
	if (n < 0) {
		fail(st, (int)n, "read");
		return;
	}
	if (n == 0)
		return;
	now = eloop_now_us();
	st->cnt.rx_bytes += (uint64_t)n;
	st->cnt.rx_reads++;
	if (now < st->tx_end_us) {
		st->cnt.echo_dropped += (uint64_t)n;
		return;
	}
	sir_decoder_feed(st->dec, buf, (size_t)n);
	if (st->dead)
		return;
	if (has_signal(buf, (size_t)n) || sir_decoder_in_frame(st->dec))
		irlap_media_activity(st->lap, now, sir_decoder_in_frame(st->dec));
	rearm(st);
	if (sir_decoder_in_frame(st->dec))
		maybe_pause(st, now);
}

/* The pause is over: read what came meanwhile at once (it is there:
 * the pause was a few bursts long), then wait on the port again. */
static void on_resume(struct eloop *loop, void *ctx)
{
	struct station *st = ctx;
	int r;

	if (st->dead || st->detached || st->reading)
		return;
	r = eloop_add_reader(loop, st->fd, on_readable, st);
	if (r < 0) {
		fail(st, r, "event loop");
		return;
	}
	st->reading = true;
	on_readable(loop, st->fd, st);
}

static int run_script(struct station *st, int (*build)(const struct dongle *, struct dongle_script *),
		      const char *what, char *err, size_t errlen)
{
	struct dongle_script s;
	int r;

	dongle_script_init(&s);
	r = build(&st->dongle, &s);
	if (r < 0) {
		snprintf(err, errlen, "dongle %s: %s: %s", dongle_name(&st->dongle), what, s.error);
		return r;
	}
	r = dongle_run(st->port, &s, NULL);
	if (r < 0)
		snprintf(err, errlen, "dongle %s: %s: %s", dongle_name(&st->dongle), what,
			 port_error(st->port));
	return r;
}

static int to_contention_rate(const struct dongle *d, struct dongle_script *s)
{
	return dongle_set_speed(d, 0, 9600, s);
}

/* The turnaround we announce and the echo margin are one value: the
 * peer may answer that soon, so our echo cannot be waited for longer
 * (station.h, echo_margin_us). */
static void set_min_tat_bits(struct station_config *cfg, uint8_t mtt)
{
	cfg->lap.qos.min_tat = mtt;
	cfg->echo_margin_us = qos_min_tat_us_of_bit(qos_msb(mtt));
}

int station_config_init(struct station_config *cfg, const char *dongle_spec,
			uint32_t max_baud, long min_tat_us, char *err, size_t errlen)
{
	char why[200];

	memset(cfg, 0, sizeof(*cfg));
	if (dongle_init(&cfg->dongle, dongle_spec, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "dongle '%s': %s", dongle_spec, why);
		return -EINVAL;
	}
	if (!dongle_supports(&cfg->dongle, max_baud)) {
		snprintf(err, errlen, "%u bps: dongle %s does not support it", max_baud,
			 dongle_name(&cfg->dongle));
		return -EINVAL;
	}
	if (min_tat_us > 10000) {
		snprintf(err, errlen, "minimum turnaround %ld us: more than IrLAP's 10000",
			 min_tat_us);
		return -EINVAL;
	}
	irlap_config_defaults(&cfg->lap, max_baud, 0);
	set_min_tat_bits(cfg, min_tat_us < 0 ? dongle_mtt_bits(&cfg->dongle) :
					       qos_min_tat_mask_for((uint32_t)min_tat_us));
	cfg->lap.qos.baud &= (uint16_t)(dongle_rates(&cfg->dongle) | DONGLE_RATE_9600);
	cfg->read_coalesce_us = STATION_READ_COALESCE_US;
	return 0;
}

int station_config_set_min_tat(struct station_config *cfg, uint32_t min_tat_us)
{
	if (min_tat_us > 10000)
		return -EINVAL;
	set_min_tat_bits(cfg, qos_min_tat_mask_for(min_tat_us));
	return 0;
}

uint32_t station_config_min_tat_us(const struct station_config *cfg)
{
	return cfg->echo_margin_us;
}

/* The port as a station wants it: the dongle powered and at the
 * contention rate, nothing from before in it, read from the loop. */
static int bring_up(struct station *st, char *err, size_t errlen)
{
	int r = run_script(st, dongle_power_on, "power on", err, errlen);

	if (r == 0)
		r = run_script(st, to_contention_rate, "9600 bps", err, errlen);
	if (r < 0)
		return r;
	port_flush_input(st->port);
	return 0;
}

static int start_reading(struct station *st, char *err, size_t errlen)
{
	int r = eloop_add_reader(st->loop, st->fd, on_readable, st);

	if (r < 0) {
		snprintf(err, errlen, "%s: event loop: %s", st->port->name, strerror(-r));
		return r;
	}
	st->reading = true;
	return 0;
}

static const struct irlap_ops lap_ops = {
	.send_frame = lap_send_frame,
	.set_speed = lap_set_speed,
	.deliver = lap_deliver,
	.pull = lap_pull,
};

static void station_destroy(struct station *st)
{
	irlap_free(st->lap);
	sir_decoder_free(st->dec);
	free(st);
}

/* The part of a station every line has: IrLAP, its timer, the SIR
 * decoder (idle on a framed line). */
static struct station *station_alloc(struct eloop *loop, const struct station_config *cfg,
				     char *err, size_t errlen)
{
	struct station *st = calloc(1, sizeof(*st));

	if (!st) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	st->loop = loop;
	st->fd = -1;
	st->dongle = cfg->dongle;
	st->app = cfg->app;
	st->pcap = cfg->pcap;
	st->log = cfg->log;
	st->echo_margin_us = cfg->echo_margin_us;
	st->read_coalesce_us = cfg->read_coalesce_us;
	eloop_timer_init(&st->timer, on_timer, st);
	eloop_timer_init(&st->resume, on_resume, st);
	st->dec = sir_decoder_new(&(struct sir_decoder_config){
		.on_frame = on_frame, .on_media_busy = on_media_busy, .ctx = st,
		.log = cfg->log,
	});
	st->lap = irlap_new(&cfg->lap, &lap_ops, st);
	if (!st->dec || !st->lap) {
		snprintf(err, errlen, "out of memory");
		station_destroy(st);
		return NULL;
	}
	return st;
}

/* The port as the station's line: the dongle brought up, reading from
 * the loop.  0, or -errno with a message (the station has no port then). */
static int take_port(struct station *st, struct port *port, char *err, size_t errlen)
{
	int r;

	if (serial_fd(port) < 0) {
		snprintf(err, errlen, "%s: not a serial port with a file descriptor", port->name);
		return -EINVAL;
	}
	st->port = port;
	st->fd = serial_fd(port);
	r = bring_up(st, err, errlen);
	if (r == 0)
		r = start_reading(st, err, errlen);
	if (r < 0) {
		st->port = NULL;
		st->fd = -1;
	}
	return r;
}

int station_new(struct eloop *loop, struct port *port,
		const struct station_config *cfg, struct station **out,
		char *err, size_t errlen)
{
	struct station *st;
	int r;

	*out = NULL;
	st = station_alloc(loop, cfg, err, errlen);
	if (!st)
		return -ENOMEM;
	r = take_port(st, port, err, errlen);
	if (r < 0) {
		station_destroy(st);
		return r;
	}
	rearm(st);
	*out = st;
	return 0;
}

int station_new_framed(struct eloop *loop, const struct station_frame_line *line,
		       const struct station_config *cfg, struct station **out,
		       char *err, size_t errlen)
{
	struct station *st;

	*out = NULL;
	if (!line->send || !line->set_speed) {
		snprintf(err, errlen, "%s: a framed line needs send and set_speed",
			 line->name ? line->name : "line");
		return -EINVAL;
	}
	st = station_alloc(loop, cfg, err, errlen);
	if (!st)
		return -ENOMEM;
	st->is_framed = true;
	st->framed = *line;
	if (line->bind)
		line->bind(line->ctx, st);
	rearm(st);
	*out = st;
	return 0;
}

void station_line_frame(struct station *st, const uint8_t *frame, size_t len)
{
	if (st->dead || st->detached)
		return;
	st->cnt.rx_bytes += len;
	on_frame(st, frame, len);
	rearm(st);
}

void station_line_media_busy(struct station *st)
{
	if (st->dead || st->detached)
		return;
	on_media_busy(st);
	rearm(st);
}

void station_line_failed(struct station *st, int err, const char *msg)
{
	if (st->detached)
		return;
	fail(st, err, msg);
}

void station_free(struct station *st)
{
	struct dongle_script s;

	if (!st)
		return;
	if (st->reading)
		eloop_remove_reader(st->loop, st->fd);
	eloop_timer_cancel(st->loop, &st->timer);
	eloop_timer_cancel(st->loop, &st->resume);
	/* The last frame (a final XID, a UA) must leave before the port
	 * is closed and its output flushed.  A framed line's owner lets
	 * its frames out before it closes it. */
	if (st->is_framed && !st->detached && st->framed.bind)
		st->framed.bind(st->framed.ctx, NULL);
	if (st->detached || st->is_framed) {
		station_destroy(st);
		return;
	}
	if (!st->dead) {
		uint64_t now;

		if (port_drain(st->port) < 0)
			log_msg(st->log, LOG_LEVEL_WARNING, "station: drain: %s",
				port_error(st->port));
		/* tcdrain() returns early on ptys and USB bridges (see the
		 * speed switch): closing restores termios and may flush. */
		now = eloop_now_us();
		if (st->line_end_us > now)
			port_sleep_us(st->port, (uint32_t)(st->line_end_us - now));
	}
	dongle_script_init(&s);
	if (dongle_close(&st->dongle, &s) == 0 && dongle_run(st->port, &s, NULL) < 0)
		log_msg(st->log, LOG_LEVEL_WARNING, "station: dongle close: %s",
			port_error(st->port));
	station_destroy(st);
}

int station_request(struct station *st, const struct irlap_request *req)
{
	int r;

	if (st->dead)
		return -EIO;
	r = irlap_request(st->lap, req, eloop_now_us());
	rearm(st);
	return r;
}

void station_detach_port(struct station *st)
{
	if (st->detached)
		return;
	if (st->reading)
		eloop_remove_reader(st->loop, st->fd);
	st->reading = false;
	eloop_timer_cancel(st->loop, &st->resume);
	st->port = NULL;
	st->fd = -1;
	if (st->is_framed && st->framed.bind)
		st->framed.bind(st->framed.ctx, NULL);
	memset(&st->framed, 0, sizeof(st->framed));
	st->dead = false;
	st->detached = true;
	st->line_end_us = st->tx_end_us = 0;
	sir_decoder_reset(st->dec);
	log_msg(st->log, LOG_LEVEL_DEBUG, "station: ATTACHED --port lost--> DETACHED");
	irlap_port_lost(st->lap, eloop_now_us());
	rearm(st);
}

int station_attach_port(struct station *st, struct port *port, char *err, size_t errlen)
{
	int r;

	if (!st->detached || st->is_framed) {
		snprintf(err, errlen, st->is_framed ? "the station runs on a framed line" :
			 "the station still has a port");
		return -EBUSY;
	}
	r = take_port(st, port, err, errlen);
	if (r < 0)
		return r;
	st->detached = false;
	sir_decoder_reset(st->dec);
	log_msg(st->log, LOG_LEVEL_DEBUG, "station: DETACHED --port back--> ATTACHED");
	rearm(st);
	return 0;
}

int station_attach_line(struct station *st, const struct station_frame_line *line, char *err,
			size_t errlen)
{
	if (!st->detached || !st->is_framed) {
		snprintf(err, errlen, st->detached ? "the station runs on a serial port" :
			 "the station still has a line");
		return -EBUSY;
	}
	st->framed = *line;
	if (line->bind)
		line->bind(line->ctx, st);
	st->detached = false;
	log_msg(st->log, LOG_LEVEL_DEBUG, "station: DETACHED --line back--> ATTACHED");
	rearm(st);
	return 0;
}

bool station_detached(const struct station *st) { return st->detached; }

struct irlap *station_irlap(struct station *st) { return st->lap; }

const struct station_counters *station_counters(const struct station *st)
{
	return &st->cnt;
}

const struct sir_counters *station_sir_counters(const struct station *st)
{
	return sir_decoder_counters(st->dec);
}
