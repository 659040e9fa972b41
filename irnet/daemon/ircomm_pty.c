/*
 * ircomm_pty.c: an IrCOMM endpoint on a pseudo-terminal (see the header
 * and docs/irdad.md, "IrCOMM endpoints").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ircomm_pty.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "ircomm.h"
#include "path_watch.h"
#include "status_line.h"

/* Redial delays after a failed attempt or a lost link: 1 s, doubling. */
#define REDIAL_FIRST_US 1000000u
#define REDIAL_MAX_US 8000000u
/* A discovery whose result never came (the link was busy, ...). */
#define DISCOVERY_WATCHDOG_US 5000000u
/* Hanging up: how long queued data may take to leave, how often we look. */
#define HANGUP_FLUSH_US 2000000u
#define HANGUP_POLL_US 10000u
#define DISCOVERY_SLOTS 6
/* On descriptors: discoveries before "no-peer", how often a descriptor
 * not being read is looked at for a hang-up. */
#define FDS_DISCOVERIES 3
#define FDS_WATCH_US 200000u
/* Closing a pty master flushes what its slave has not read yet: after
 * the peer's last bytes, the program gets this long to read them. */
#define FDS_LINGER_US 500000u

struct ircomm_pty {
	struct irdad_endpoint ep;
	const struct logger *log;
	struct eloop *loop;
	struct stack *stk;
	int master, slave, inot;
	char slave_path[64];
	bool link_made, started;
	/* who removes the link when our unlink is refused (irdad's opener) */
	int (*remove_link)(void *ctx, size_t index);
	void *remove_ctx;
	size_t remove_index;
	enum ircomm_pty_state state;
	struct ircomm_server *srv;
	struct ircomm *c;            /* the connection, either role */
	uint64_t rx_dropped_done;    /* 3-wire raw drops of the connections gone */
	struct eloop_timer tick;     /* the IrCOMM client's deadline */
	struct eloop_timer timer;    /* discovery watchdog, redial, hang-up flush */
	uint64_t hangup_deadline, redial_us;
	bool dtr;                    /* a program has the slave open, speed not B0 */
	/* A program has the slave open: a caller's call follows this, not
	 * DTR, as /dev/ircomm did (B0 drops DTR towards the peer, the call
	 * stays: gammu sets B0 while it talks to the phone). */
	bool in_use;
	bool connected_since_dtr;
	bool reading, writing;       /* master registered with the loop */
	bool master_empty;           /* hanging up: the last read found nothing */
	uint32_t cand[IRLAP_MAX_PEERS];
	size_t ncand, cand_at;
	/* master -> IrCOMM: one read (packet mode: a status byte first) */
	uint8_t tx[1 + IRCOMM_SDU_MAX];
	size_t tx_len, tx_off;
	/* IrCOMM -> master: one read */
	uint8_t rx[IRCOMM_SDU_MAX];
	size_t rx_len, rx_off;
	struct ircomm_config srv_cfg; /* listener: what its initial parameters say */
	struct ircomm_pty_stats st;
	/* master is read (a status byte first in packet mode), out written,
	 * tio has the program's termios: master, the slave, or the same as
	 * master for a pty master handed in; -1 if none */
	int out, tio;
	bool pkt;
	/* ircomm_pty_open_fds: one connection on descriptors, then the end */
	bool on_fds;
	bool local_gone;             /* EOF, EIO or a failed write on the descriptors */
	bool ended, why_final, peer_cd_seen, drain_writing, lingering;
	enum status_reason why;      /* the word of the last status line */
	unsigned tries;              /* discoveries that found nobody */
	uint32_t link_peer;          /* the station the IrLAP link is up with */
	struct irlap_peer seen[IRLAP_MAX_PEERS]; /* the stations discovery saw */
	size_t nseen;
	struct status_line sl;
	void (*ended_fn)(void *ctx, struct ircomm_pty *p);
	void *ended_ctx;
	struct eloop_timer watch;    /* hang-up of a descriptor not being read */
	struct eloop_timer fds_timer; /* the peer's carrier lost; the drain's deadline */
	struct eloop_timer end;      /* ended_fn, from the loop */
	struct eloop_timer attempt;  /* calling: the connect timeout, if set */
	uint64_t attempt_us;
	uint8_t *drain;              /* the peer's last bytes, written before the end */
	size_t drain_len, drain_off;
};

static const char *const state_names[] = {
	"IDLE", "LISTENING", "DISCOVERING", "CONNECTING", "CONNECTED", "HANGING_UP", "WAIT_REDIAL",
};

const char *ircomm_pty_state_name(enum ircomm_pty_state s)
{
	return (unsigned)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "?";
}

static void set_state(struct ircomm_pty *p, enum ircomm_pty_state to, const char *event)
{
	log_msg(p->log, LOG_LEVEL_DEBUG, "ircomm %s: %s --%s--> %s", p->ep.name,
		ircomm_pty_state_name(p->state), event, ircomm_pty_state_name(to));
	p->state = to;
	p->st.state = to;
}

static bool is_caller(const struct ircomm_pty *p)
{
	return p->ep.role == IRDAD_ROLE_CALL;
}

/* ---- termios <-> IrCOMM parameters ------------------------------------ */

static const struct {
	speed_t speed;
	uint32_t rate;
} rates[] = {
	{ B50, 50 }, { B75, 75 }, { B110, 110 }, { B134, 134 }, { B150, 150 }, { B200, 200 },
	{ B300, 300 }, { B600, 600 }, { B1200, 1200 }, { B1800, 1800 }, { B2400, 2400 },
	{ B4800, 4800 }, { B9600, 9600 }, { B19200, 19200 }, { B38400, 38400 },
	{ B57600, 57600 }, { B115200, 115200 }, { B230400, 230400 }, { B460800, 460800 },
	{ B500000, 500000 }, { B576000, 576000 }, { B921600, 921600 }, { B1000000, 1000000 },
	{ B1152000, 1152000 }, { B1500000, 1500000 }, { B2000000, 2000000 },
	{ B2500000, 2500000 }, { B3000000, 3000000 }, { B3500000, 3500000 },
	{ B4000000, 4000000 },
};

uint32_t ircomm_pty_rate_of_speed(unsigned speed)
{
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i].speed == speed)
			return rates[i].rate;
	return 0;
}

uint8_t ircomm_pty_data_format(unsigned cflag)
{
	uint8_t f;

	switch (cflag & CSIZE) {
	case CS5: f = 0x00; break;
	case CS6: f = 0x01; break;
	case CS7: f = 0x02; break;
	default: f = 0x03; break;
	}
	if (cflag & CSTOPB)
		f |= 0x04;
	if (cflag & PARENB) {
		/* bits 5..4: 00 odd, 01 even, 10 mark, 11 space */
		unsigned type = (cflag & CMSPAR) ? ((cflag & PARODD) ? 2u : 3u)
						 : ((cflag & PARODD) ? 0u : 1u);
		f |= (uint8_t)(0x08 | type << 4);
	}
	return f;
}

uint8_t ircomm_pty_flow_control(unsigned cflag, unsigned iflag)
{
	uint8_t f = 0;

	if (iflag & IXOFF)
		f |= 0x01;   /* XON/XOFF on input: we send XOFF */
	if (iflag & IXON)
		f |= 0x02;   /* XON/XOFF on output: we obey XOFF */
	if (cflag & CRTSCTS)
		f |= 0x0c;   /* RTS/CTS both ways, as Linux's CRTSCTS means */
	return f;
}

/* The slave's settings now; false if tcgetattr failed.  *b0: speed B0. */
static bool slave_params(struct ircomm_pty *p, struct ircomm_params *out, bool *b0)
{
	struct termios t;

	memset(out, 0, sizeof(*out));
	*b0 = false;
	if (p->tio < 0)
		return false; /* plain bytes: no settings */
	if (tcgetattr(p->tio, &t) < 0) {
		log_msg(p->log, LOG_LEVEL_WARNING, "ircomm %s: tcgetattr %s: %s", p->ep.name,
			p->slave_path, strerror(errno));
		return false;
	}
	out->present = IRCOMM_P_DATA_RATE | IRCOMM_P_DATA_FORMAT | IRCOMM_P_FLOW_CONTROL;
	out->data_rate = ircomm_pty_rate_of_speed(cfgetospeed(&t));
	*b0 = cfgetospeed(&t) == B0;
	if (!out->data_rate) {
		/* B0 is a hang-up, not a rate: keep the last one */
		out->present &= ~(unsigned)IRCOMM_P_DATA_RATE;
	}
	out->data_format = ircomm_pty_data_format(t.c_cflag);
	out->flow_control = ircomm_pty_flow_control(t.c_cflag, t.c_iflag);
	return true;
}

static int make_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t) < 0)
		return -1;
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	/* EXTPROC: in packet mode the master hears of every tcsetattr */
	t.c_lflag |= EXTPROC;
	cfsetispeed(&t, B9600);
	cfsetospeed(&t, B9600);
	return tcsetattr(fd, TCSANOW, &t);
}

/* ---- the loop --------------------------------------------------------- */

static void on_master_readable(struct eloop *loop, int fd, void *ctx);
static void on_master_writable(struct eloop *loop, int fd, void *ctx);
static void on_ircomm(void *ctx, const struct ircomm_event *ev);
static void pump_to_peer(struct ircomm_pty *p);
/* on descriptors (the end of this file) */
static void fds_call_failed(struct ircomm_pty *p, const char *why);
static void fds_finish(struct ircomm_pty *p, const char *why);
static bool fds_disconnected(struct ircomm_pty *p, const struct ircomm_event *ev, bool was_up);
static void fds_connected(struct ircomm_pty *p);
static void fds_lines(struct ircomm_pty *p, uint8_t lines);
static bool fds_read_ended(struct ircomm_pty *p, ssize_t n);
static void fds_local_gone(struct ircomm_pty *p, const char *why);
static void fds_lap_event(struct ircomm_pty *p, const struct irlap_event *ev);
static void note_link_peer(struct ircomm_pty *p, const struct irlap_event *ev);
static void fds_stop(struct ircomm_pty *p);

static void want_read(struct ircomm_pty *p, bool on)
{
	if (on == p->reading)
		return;
	p->reading = on;
	if (on)
		eloop_add_reader(p->loop, p->master, on_master_readable, p);
	else
		eloop_remove_reader(p->loop, p->master);
}

static void want_write(struct ircomm_pty *p, bool on)
{
	if (on == p->writing)
		return;
	p->writing = on;
	if (on)
		eloop_add_writer(p->loop, p->out, on_master_writable, p);
	else
		eloop_remove_writer(p->loop, p->out);
}

/* After any call into the stack: IrLMP's timer and the client's. */
static void sync_stack(struct ircomm_pty *p)
{
	uint64_t d = p->c ? ircomm_deadline(p->c) : UINT64_MAX;

	if (d == UINT64_MAX)
		eloop_timer_cancel(p->loop, &p->tick);
	else
		eloop_timer_arm_at(p->loop, &p->tick, d);
	stack_sync(p->stk);
}

static void on_tick(struct eloop *loop, void *ctx)
{
	struct ircomm_pty *p = ctx;
	(void)loop;
	if (p->c)
		ircomm_tick(p->c, stack_now(p->stk));
	sync_stack(p);
}

/* ---- settings and lines out --------------------------------------------- */

static void send_params(struct ircomm_pty *p, const struct ircomm_params *now)
{
	struct ircomm_params d = { 0 };

	if ((now->present & IRCOMM_P_DATA_RATE) && now->data_rate != p->st.our_data_rate) {
		d.present |= IRCOMM_P_DATA_RATE;
		d.data_rate = now->data_rate;
	}
	if (now->data_format != p->st.our_data_format) {
		d.present |= IRCOMM_P_DATA_FORMAT;
		d.data_format = now->data_format;
	}
	if (now->flow_control != p->st.our_flow_control) {
		d.present |= IRCOMM_P_FLOW_CONTROL;
		d.flow_control = now->flow_control;
	}
	if (!d.present || ircomm_set_params(p->c, &d) < 0)
		return;
	p->st.params_sent++;
	if (d.present & IRCOMM_P_DATA_RATE)
		p->st.our_data_rate = d.data_rate;
	p->st.our_data_format = now->data_format;
	p->st.our_flow_control = now->flow_control;
	log_msg(p->log, LOG_LEVEL_INFO, "ircomm %s: sent data rate %u, format 0x%02x, flow 0x%02x",
		p->ep.name, (unsigned)p->st.our_data_rate, p->st.our_data_format,
		p->st.our_flow_control);
}

static void send_lines(struct ircomm_pty *p)
{
	uint8_t dte = (uint8_t)(IRCOMM_DTE_RTS | (p->dtr ? IRCOMM_DTE_DTR : 0));

	if (!p->c || p->st.service != IRCOMM_SVC_9WIRE || (p->st.local_lines & 0x0c) == dte)
		return;
	if (ircomm_set_lines(p->c, dte) == 0) {
		p->st.local_lines = dte;
		log_msg(p->log, LOG_LEVEL_INFO, "ircomm %s: DTR %s sent", p->ep.name,
			p->dtr ? "raised" : "dropped");
	}
}

/* ---- calling ------------------------------------------------------------ */

static void dial(struct ircomm_pty *p);

static void wait_redial(struct ircomm_pty *p, uint64_t delay_us, const char *why)
{
	set_state(p, IRCOMM_PTY_WAIT_REDIAL, why);
	eloop_timer_arm_in(p->loop, &p->timer, delay_us);
}

static void redial_later(struct ircomm_pty *p, const char *why)
{
	if (p->on_fds) {
		fds_call_failed(p, why);
		return;
	}
	p->ncand = p->cand_at = 0;
	wait_redial(p, p->redial_us, why);
	p->redial_us = p->redial_us * 2 > REDIAL_MAX_US ? REDIAL_MAX_US : p->redial_us * 2;
}

static void to_idle(struct ircomm_pty *p, const char *why)
{
	if (p->on_fds) {
		fds_finish(p, why);
		return;
	}
	eloop_timer_cancel(p->loop, &p->timer);
	p->ncand = p->cand_at = 0;
	set_state(p, IRCOMM_PTY_IDLE, why);
}

/* A caller calls while a program holds DTR up, until it got through
 * once, or for ever with `reconnect yes`. */
static bool wants_call(const struct ircomm_pty *p)
{
	return is_caller(p) && p->in_use && (!p->connected_since_dtr || p->ep.reconnect);
}

static void client_config(struct ircomm_pty *p, struct ircomm_config *ic)
{
	struct ircomm_params now;
	bool b0;

	ircomm_config_defaults(ic);
	ic->log = p->log;
	switch (p->ep.wire) {
	case IRDAD_WIRE_9: ic->service_types = IRCOMM_SVC_9WIRE; break;
	case IRDAD_WIRE_3: ic->service_types = IRCOMM_SVC_3WIRE; break;
	case IRDAD_WIRE_3_RAW: ic->service_types = IRCOMM_SVC_3WIRE_RAW; break;
	default: ic->service_types = IRCOMM_SVC_9WIRE | IRCOMM_SVC_3WIRE; break;
	}
	if (slave_params(p, &now, &b0)) {
		if (now.present & IRCOMM_P_DATA_RATE)
			ic->data_rate = now.data_rate;
		ic->data_format = now.data_format;
		ic->flow_control = now.flow_control;
	}
	ic->dte = (uint8_t)(IRCOMM_DTE_RTS | (p->dtr ? IRCOMM_DTE_DTR : 0));
}

/* What the connection's initial parameters said, for send_params. */
static void note_initial(struct ircomm_pty *p, const struct ircomm_config *ic)
{
	p->st.our_data_rate = ic->data_rate;
	p->st.our_data_format = ic->data_format;
	p->st.our_flow_control = ic->flow_control;
	p->st.local_lines = ic->dte;
}

static void try_next(struct ircomm_pty *p)
{
	struct ircomm_config ic;

	while (p->cand_at < p->ncand) {
		uint32_t daddr = p->cand[p->cand_at++];

		client_config(p, &ic);
		p->c = ircomm_connect(stack_irlmp(p->stk), daddr, &ic, on_ircomm, p,
				      stack_now(p->stk));
		if (p->c) {
			note_initial(p, &ic);
			p->st.peer = daddr;
			log_msg(p->log, LOG_LEVEL_INFO, "ircomm %s: calling 0x%08x", p->ep.name,
				(unsigned)daddr);
			set_state(p, IRCOMM_PTY_CONNECTING, "candidate");
			sync_stack(p);
			return;
		}
	}
	redial_later(p, "no candidate left");
}

static bool hint_ircomm(const struct irlap_peer *peer)
{
	return peer->info.nhints == 2 && (peer->info.hints[1] & 0x04);
}

static bool peer_matches(const struct ircomm_pty *p, const struct irlap_peer *peer)
{
	const struct irdad_peer *want = &p->ep.peer;

	switch (want->kind) {
	case IRDAD_PEER_ADDRESS:
		return peer->daddr == want->address;
	case IRDAD_PEER_NICKNAME:
		return peer->info.nickname_len == strlen(want->nickname) &&
		       memcmp(peer->info.nickname, want->nickname, peer->info.nickname_len) == 0;
	default:
		return true;
	}
}

static void on_discovery(struct ircomm_pty *p, const struct irlap_event *ev)
{
	if (p->state != IRCOMM_PTY_DISCOVERING)
		return;
	eloop_timer_cancel(p->loop, &p->timer);
	p->ncand = p->cand_at = 0;
	/* "any": stations that announce IrCOMM first, then the others (a
	 * station need not set the hint to have the IAS object) */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; !ev->failed && i < ev->npeers; i++) {
			const struct irlap_peer *peer = &ev->peers[i];
			if (!peer_matches(p, peer) || hint_ircomm(peer) != (pass == 0))
				continue;
			if (p->ncand < IRLAP_MAX_PEERS)
				p->cand[p->ncand++] = peer->daddr;
		}
	if (!p->ncand) {
		log_msg(p->log, LOG_LEVEL_DEBUG, "ircomm %s: discovery: %s, %zu stations", p->ep.name,
			ev->failed ? "failed" : "done", ev->npeers);
		redial_later(p, ev->failed ? "discovery failed" : "peer not found");
		return;
	}
	try_next(p);
}

static void dial(struct ircomm_pty *p)
{
	int rc = stack_lap_request(p->stk, &(struct irlap_request){
		.type = IRLAP_REQ_DISCOVER, .slots = DISCOVERY_SLOTS });
	uint32_t known = p->ep.peer.kind == IRDAD_PEER_ADDRESS ? p->ep.peer.address : p->st.peer;

	if (rc == -EBUSY && known) {
		/* IrLAP discovers only without a link: one is up (idling after
		 * our last call, or held by another connection), or a discovery
		 * is under way.  IrLMP reaches the peer we know over that link. */
		p->st.calls_without_discovery++;
		p->ncand = 1;
		p->cand_at = 0;
		p->cand[0] = known;
		log_msg(p->log, LOG_LEVEL_DEBUG, "ircomm %s: IrLAP busy: calling 0x%08x directly",
			p->ep.name, (unsigned)known);
		try_next(p);
		return;
	}
	if (rc == -EBUSY) {
		/* someone else's discovery may be under way: take its result */
		set_state(p, IRCOMM_PTY_DISCOVERING, "discovery busy");
		eloop_timer_arm_in(p->loop, &p->timer, DISCOVERY_WATCHDOG_US);
		return;
	}
	if (rc < 0) {
		log_msg(p->log, LOG_LEVEL_DEBUG, "ircomm %s: discovery refused: %s", p->ep.name,
			strerror(-rc));
		redial_later(p, "discovery refused");
		return;
	}
	set_state(p, IRCOMM_PTY_DISCOVERING, "dial");
	eloop_timer_arm_in(p->loop, &p->timer, DISCOVERY_WATCHDOG_US);
}

/* Keeps the connection's receive drops (3-wire raw) before it goes. */
static void keep_drops(struct ircomm_pty *p)
{
	if (p->c)
		p->rx_dropped_done += ircomm_get_stats(p->c)->rx_dropped;
}

static void hang_up_now(struct ircomm_pty *p, const char *why)
{
	if (p->c) {
		keep_drops(p);
		ircomm_disconnect(p->c);
		p->c = NULL;
		p->st.service = 0;
		p->st.peer_lines = 0;
		want_read(p, false);
		sync_stack(p);
	}
	to_idle(p, why);
}

static void on_timer(struct eloop *loop, void *ctx)
{
	struct ircomm_pty *p = ctx;
	(void)loop;

	switch (p->state) {
	case IRCOMM_PTY_DISCOVERING:
		redial_later(p, "no discovery result");
		break;
	case IRCOMM_PTY_WAIT_REDIAL:
		if (!wants_call(p))
			to_idle(p, "nobody waits");
		else if (p->cand_at < p->ncand)
			try_next(p);
		else
			dial(p);
		break;
	case IRCOMM_PTY_HANGING_UP:
		if (p->c && (!p->master_empty || p->tx_off < p->tx_len || ircomm_tx_pending(p->c) > 0) &&
		    eloop_now_us() < p->hangup_deadline) {
			eloop_timer_arm_in(loop, &p->timer, HANGUP_POLL_US);
			break;
		}
		hang_up_now(p, "flushed");
		break;
	default:
		break;
	}
}

/* What the program wrote before it closed still goes out (for at most
 * HANGUP_FLUSH_US), then the connection is closed. */
static void start_hang_up(struct ircomm_pty *p, const char *why)
{
	p->master_empty = false;
	p->hangup_deadline = eloop_now_us() + HANGUP_FLUSH_US;
	set_state(p, IRCOMM_PTY_HANGING_UP, why);
	eloop_timer_arm_in(p->loop, &p->timer, HANGUP_POLL_US);
	pump_to_peer(p);
}

/* DTR follows "a program has the slave open and its speed is not B0",
 * and goes to the peer as a line state; a caller's call follows "a
 * program has the slave open" alone: it dials at the first open and
 * hangs up, after sending what was written, at the last close. */
static void update_dtr(struct ircomm_pty *p)
{
	struct ircomm_params now;
	bool b0 = false;

	if (!slave_params(p, &now, &b0))
		b0 = false;
	bool in_use = p->st.slave_opens > 0;
	bool dtr = in_use && !b0;
	bool dtr_changed = dtr != p->dtr, use_changed = in_use != p->in_use;
	if (!dtr_changed && !use_changed)
		return;
	p->dtr = dtr;
	p->in_use = in_use;
	if (dtr_changed)
		log_msg(p->log, LOG_LEVEL_INFO, "ircomm %s: DTR %s (%u open, speed%s B0)",
			p->ep.name, dtr ? "up" : "down", p->st.slave_opens, b0 ? "" : " not");
	if (in_use && use_changed)
		p->connected_since_dtr = false;
	if (!p->started)
		return;
	if (!is_caller(p)) {
		send_lines(p);
		sync_stack(p);
		return;
	}
	switch (p->state) {
	case IRCOMM_PTY_IDLE:
		if (in_use) {
			p->redial_us = REDIAL_FIRST_US;
			dial(p);
		}
		break;
	case IRCOMM_PTY_CONNECTED:
		if (in_use) {
			send_lines(p); /* B0 or back: DTR only */
			sync_stack(p);
			break;
		}
		send_lines(p);
		start_hang_up(p, "last close");
		break;
	case IRCOMM_PTY_HANGING_UP:
		if (in_use) {
			eloop_timer_cancel(p->loop, &p->timer);
			send_lines(p);
			set_state(p, IRCOMM_PTY_CONNECTED, "opened again");
			pump_to_peer(p);
		}
		break;
	default:
		if (!in_use)
			hang_up_now(p, "last close");
		break;
	}
}

/* ---- the slave's opens and closes ---------------------------------------- */

static void count_open_close(void *ctx, const struct inotify_event *ev, const char *name)
{
	struct ircomm_pty *p = ctx;

	(void)name;
	if (ev->mask & IN_Q_OVERFLOW)
		log_msg(p->log, LOG_LEVEL_WARNING,
			"ircomm %s: open/close events lost; the count may be wrong", p->ep.name);
	if (ev->mask & IN_OPEN)
		p->st.slave_opens++;
	if ((ev->mask & IN_CLOSE) && p->st.slave_opens > 0)
		p->st.slave_opens--;
}

static void on_inotify(struct eloop *loop, int fd, void *ctx)
{
	struct ircomm_pty *p = ctx;
	unsigned prev = p->st.slave_opens;

	(void)loop;
	inotify_read_events(fd, count_open_close, p);
	if (p->st.slave_opens == 0 && prev > 0) {
		/* the next program starts from the same raw line */
		if (make_raw(p->slave) < 0)
			log_msg(p->log, LOG_LEVEL_WARNING, "ircomm %s: resetting %s: %s",
				p->ep.name, p->slave_path, strerror(errno));
	}
	if (p->st.slave_opens != prev)
		log_msg(p->log, LOG_LEVEL_DEBUG, "ircomm %s: %s open %u times", p->ep.name,
			p->slave_path, p->st.slave_opens);
	update_dtr(p);
}

/* ---- data: master -> IrCOMM ------------------------------------------- */

/* A program that cleared EXTPROC would stop the notifications: the one
 * for its change still came, so set it again (that makes one more). */
static void keep_extproc(struct ircomm_pty *p)
{
	struct termios t;

	if (p->tio < 0 || tcgetattr(p->tio, &t) < 0 || (t.c_lflag & EXTPROC))
		return;
	t.c_lflag |= EXTPROC;
	if (tcsetattr(p->tio, TCSANOW, &t) < 0)
		log_msg(p->log, LOG_LEVEL_WARNING, "ircomm %s: EXTPROC on %s: %s", p->ep.name,
			p->slave_path, strerror(errno));
	else
		log_msg(p->log, LOG_LEVEL_DEBUG, "ircomm %s: EXTPROC was clear on the line; set",
			p->ep.name);
}

static void on_status(struct ircomm_pty *p, uint8_t status)
{
	struct ircomm_params now;
	bool b0;

	if (!(status & TIOCPKT_IOCTL))
		return;
	keep_extproc(p);
	if (p->c && p->state == IRCOMM_PTY_CONNECTED && slave_params(p, &now, &b0))
		send_params(p, &now);
	update_dtr(p);
}

static void pump_to_peer(struct ircomm_pty *p)
{
	while (p->c && (p->state == IRCOMM_PTY_CONNECTED || p->state == IRCOMM_PTY_HANGING_UP)) {
		if (p->tx_off < p->tx_len) {
			long w = ircomm_write(p->c, p->tx + p->tx_off, p->tx_len - p->tx_off);
			if (w < 0) {
				want_read(p, false);
				break;
			}
			p->tx_off += (size_t)w;
			p->st.bytes_to_peer += (uint64_t)w;
			if (p->tx_off < p->tx_len) {
				/* IrCOMM's queue (TinyTP's credit) is full: IRCOMM_EV_WRITABLE resumes */
				p->st.stalls_peer++;
				want_read(p, false);
				break;
			}
		}
		/* one read per SDU: what the master has, up to a full SDU, so
		 * small writes made within a turn of the line travel together */
		size_t max = ircomm_max_write(p->c);
		if (max == 0 || max > IRCOMM_SDU_MAX)
			max = IRCOMM_SDU_MAX;
		size_t hdr = p->pkt ? 1 : 0;
		ssize_t n = read(p->master, p->tx + 1 - hdr, hdr + max);
		if (n < 0 && errno == EINTR)
			continue;
		if (p->on_fds && fds_read_ended(p, n))
			break;
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
				log_msg(p->log, LOG_LEVEL_WARNING, "ircomm %s: read master: %s",
					p->ep.name, strerror(errno));
			want_read(p, true);
			p->master_empty = true;
			break;
		}
		if (hdr && p->tx[0] != TIOCPKT_DATA) {
			on_status(p, p->tx[0]);
			continue;
		}
		p->tx_off = 1;
		p->tx_len = (size_t)n + 1 - hdr;
	}
	sync_stack(p);
}

static void on_master_readable(struct eloop *loop, int fd, void *ctx)
{
	(void)loop;
	(void)fd;
	pump_to_peer(ctx);
}

/* ---- data: IrCOMM -> master ------------------------------------------- */

static void pump_from_peer(struct ircomm_pty *p)
{
	for (;;) {
		if (p->rx_off < p->rx_len) {
			ssize_t w = write(p->out, p->rx + p->rx_off, p->rx_len - p->rx_off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				if (!p->writing)
					p->st.stalls_slave++;
				want_write(p, true);
				return;
			}
			if (w < 0) {
				log_msg(p->log, LOG_LEVEL_WARNING, "ircomm %s: write master: %s",
					p->ep.name, strerror(errno));
				p->rx_off = p->rx_len;
				if (p->on_fds) {
					want_write(p, false);
					fds_local_gone(p, "write failed");
					return;
				}
				break;
			}
			p->rx_off += (size_t)w;
			p->st.bytes_from_peer += (uint64_t)w;
			continue;
		}
		long n = p->c ? ircomm_read(p->c, p->rx, sizeof(p->rx)) : 0;
		if (n <= 0)
			break;
		p->rx_off = 0;
		p->rx_len = (size_t)n;
	}
	want_write(p, false);
	if (p->c)
		sync_stack(p);  /* the credit given back must go out */
}

static void on_master_writable(struct eloop *loop, int fd, void *ctx)
{
	(void)loop;
	(void)fd;
	pump_from_peer(ctx);
}

/* ---- IrCOMM events ---------------------------------------------------- */

/* The peer's settings as it sent them: the format decoded, and the raw
 * octet beside it (Linux's 8N1 is 0x13, not 0x03). */
static void log_peer_params(const struct ircomm_pty *p)
{
	char format[96];

	log_msg(p->log, LOG_LEVEL_INFO,
		"ircomm %s: peer's data rate %u, format %s (0x%02x), flow 0x%02x", p->ep.name,
		(unsigned)p->st.peer_data_rate,
		ircomm_data_format_describe(p->st.peer_data_format, format, sizeof(format)),
		p->st.peer_data_format, p->st.peer_flow_control);
}

static void on_connected(struct ircomm_pty *p, struct ircomm *c)
{
	struct ircomm_params now;
	bool b0;

	p->c = c;
	if (!is_caller(p)) {
		note_initial(p, &p->srv_cfg);
		p->st.peer = p->link_peer; /* the caller's station */
	}
	p->st.connects++;
	p->st.service = ircomm_service_type(c);
	p->st.peer_lines = ircomm_peer_lines(c);
	p->redial_us = REDIAL_FIRST_US;
	p->connected_since_dtr = p->in_use;
	eloop_timer_cancel(p->loop, &p->timer);
	log_msg(p->log, LOG_LEVEL_INFO, "ircomm %s: connected to 0x%08x, %s", p->ep.name,
		(unsigned)p->st.peer,
		p->st.service == IRCOMM_SVC_9WIRE ? "9-wire" :
		p->st.service == IRCOMM_SVC_3WIRE ? "3-wire" : "3-wire raw (IrLMP, no settings)");
	set_state(p, IRCOMM_PTY_CONNECTED, "IrCOMM connected");
	if (p->on_fds)
		fds_connected(p);
	if (slave_params(p, &now, &b0))
		send_params(p, &now);
	send_lines(p);
	pump_to_peer(p);
	pump_from_peer(p);
}

static void on_disconnected(struct ircomm_pty *p, const struct ircomm_event *ev)
{
	bool was_up = p->state == IRCOMM_PTY_CONNECTED || p->state == IRCOMM_PTY_HANGING_UP;

	keep_drops(p);
	p->c = NULL;  /* freed after this event */
	p->st.service = 0;
	p->st.peer_lines = 0;
	want_read(p, false);
	eloop_timer_cancel(p->loop, &p->tick);
	if (was_up) {
		p->st.link_losses++;
		log_msg(p->log, LOG_LEVEL_INFO, "ircomm %s: connection lost (reason %d): carrier down",
			p->ep.name, (int)ev->reason);
	} else if (ev->err < 0) {
		log_msg(p->log, LOG_LEVEL_INFO, "ircomm %s: 0x%08x: %s", p->ep.name,
			(unsigned)p->st.peer, strerror(-ev->err));
	}
	if (p->on_fds && fds_disconnected(p, ev, was_up))
		return;
	if (!is_caller(p)) {
		set_state(p, IRCOMM_PTY_LISTENING, "disconnected");
		return;
	}
	if (!wants_call(p)) {
		to_idle(p, "disconnected");
		return;
	}
	if (!was_up && p->cand_at < p->ncand) {
		/* the next candidate, from the loop (not inside IrCOMM's event) */
		wait_redial(p, 0, "next candidate");
		return;
	}
	redial_later(p, was_up ? "link lost" : "call failed");
}

static void on_ircomm(void *ctx, const struct ircomm_event *ev)
{
	struct ircomm_pty *p = ctx;

	switch (ev->type) {
	case IRCOMM_EV_CONNECTED:
		on_connected(p, ev->c);
		break;
	case IRCOMM_EV_READABLE:
		if (!p->writing)
			pump_from_peer(p);
		break;
	case IRCOMM_EV_WRITABLE:
		/* pump_to_peer reads the master again once the held bytes went */
		pump_to_peer(p);
		break;
	case IRCOMM_EV_PARAMS: {
		const struct ircomm_params *q = ev->params;
		p->st.params_received++;
		if (q->present & IRCOMM_P_DATA_RATE)
			p->st.peer_data_rate = q->data_rate;
		if (q->present & IRCOMM_P_DATA_FORMAT)
			p->st.peer_data_format = q->data_format;
		if (q->present & IRCOMM_P_FLOW_CONTROL)
			p->st.peer_flow_control = q->flow_control;
		log_peer_params(p);
		break;
	}
	case IRCOMM_EV_LINES:
		if ((ev->lines ^ p->st.peer_lines) & IRCOMM_DCE_CD)
			log_msg(p->log, LOG_LEVEL_INFO, "ircomm %s: peer's carrier (CD) %s",
				p->ep.name, (ev->lines & IRCOMM_DCE_CD) ? "up" : "down");
		p->st.peer_lines = ev->lines & 0xf0;
		if (p->on_fds)
			fds_lines(p, ev->lines);
		break;
	case IRCOMM_EV_DISCONNECTED:
		on_disconnected(p, ev);
		break;
	}
}

/* ---- life ---------------------------------------------------------------- */

/* "SUBJECT: STEP: why" (STEP may be empty); -e. */
static int fail(char *err, size_t errlen, int e, const char *subject, const char *step)
{
	snprintf(err, errlen, "%s: %s%s%s", subject, step, *step ? ": " : "", strerror(e));
	return -e;
}

/* The link: a stale symlink is replaced, anything else is left alone. */
static int make_link(struct ircomm_pty *p, char *err, size_t errlen)
{
	const char *link = p->ep.pty_link;
	struct stat sb;

	if (lstat(link, &sb) == 0) {
		if (!S_ISLNK(sb.st_mode)) {
			snprintf(err, errlen, "%s: exists and is not a symbolic link", link);
			return -EEXIST;
		}
		if (unlink(link) < 0)
			return fail(err, errlen, errno, link, "removing the old link");
	}
	if (symlink(p->slave_path, link) < 0)
		return fail(err, errlen, errno, link, "");
	p->link_made = true;
	return 0;
}

static bool link_is_ours(const struct ircomm_pty *p)
{
	char target[sizeof(p->slave_path)];
	ssize_t n = readlink(p->ep.pty_link, target, sizeof(target) - 1);

	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, p->slave_path) == 0;
}

/* The link at the end, ours still: our own unlink first; refused (a
 * directory of root's, and we dropped root since we made it there), the
 * remover set by ircomm_pty_set_link_remover, which kept root.  Every
 * failure is logged with the path, since a link left behind leads
 * programs to a pty that is gone. */
static void remove_link(struct ircomm_pty *p)
{
	const char *link = p->ep.pty_link;
	int e, r;

	if (unlink(link) == 0)
		return;
	e = errno;
	if ((e != EACCES && e != EPERM) || !p->remove_link) {
		log_msg(p->log, LOG_LEVEL_WARNING, "ircomm %s: removing %s: %s", p->ep.name, link,
			strerror(e));
		return;
	}
	r = p->remove_link(p->remove_ctx, p->remove_index);
	if (r < 0)
		log_msg(p->log, LOG_LEVEL_WARNING,
			"ircomm %s: removing %s: %s, and the privileged helper could not either: %s",
			p->ep.name, link, strerror(e), strerror(-r));
	else
		log_msg(p->log, LOG_LEVEL_DEBUG,
			"ircomm %s: %s removed by the privileged helper (the directory is not ours)",
			p->ep.name, link);
}

void ircomm_pty_set_link_remover(struct ircomm_pty *p, int (*remove)(void *ctx, size_t index),
				 void *ctx, size_t index)
{
	p->remove_link = remove;
	p->remove_ctx = ctx;
	p->remove_index = index;
}

const char *ircomm_pty_link(const struct ircomm_pty *p)
{
	return p->link_made ? p->ep.pty_link : NULL;
}

int ircomm_pty_open(const struct irdad_endpoint *ep, const struct logger *log,
		    struct ircomm_pty **out, char *err, size_t errlen)
{
	struct ircomm_pty *p;
	int one = 1, rc;
	char subj[IRDAD_NAME_MAX + 16];

	*out = NULL;
	snprintf(subj, sizeof(subj), "[ircomm %s]", ep->name);
	if (ep->service != IRDAD_SVC_IRCOMM) {
		snprintf(err, errlen, "%s: not an ircomm endpoint", ep->name);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "[ircomm %s]: out of memory", ep->name);
		return -ENOMEM;
	}
	p->ep = *ep;
	p->log = log;
	p->master = p->slave = p->inot = p->out = p->tio = -1;
	p->redial_us = REDIAL_FIRST_US;
	eloop_timer_init(&p->tick, on_tick, p);
	eloop_timer_init(&p->timer, on_timer, p);
	if (openpty(&p->master, &p->slave, NULL, NULL, NULL) < 0) {
		rc = fail(err, errlen, errno, subj, "openpty");
		goto out;
	}
	p->out = p->master;
	p->tio = p->slave;
	p->pkt = true;
	if (ptsname_r(p->master, p->slave_path, sizeof(p->slave_path)) != 0) {
		rc = fail(err, errlen, errno, subj, "ptsname");
		goto out;
	}
	if (fcntl(p->master, F_SETFD, FD_CLOEXEC) < 0 || fcntl(p->slave, F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(p->master, F_SETFL, O_NONBLOCK | O_RDWR) < 0 || make_raw(p->slave) < 0 ||
	    ioctl(p->master, TIOCPKT, &one) < 0) {
		rc = fail(err, errlen, errno, subj, "setting the pty up");
		goto out;
	}
	p->inot = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (p->inot < 0 || inotify_add_watch(p->inot, p->slave_path, IN_OPEN | IN_CLOSE) < 0) {
		rc = fail(err, errlen, errno, subj, "watching the slave");
		goto out;
	}
	rc = make_link(p, err, errlen);
	if (rc < 0)
		goto out;
	log_msg(log, LOG_LEVEL_INFO, "ircomm %s: %s -> %s", ep->name, ep->pty_link, p->slave_path);
	*out = p;
	return 0;
out:
	ircomm_pty_free(p);
	return rc;
}

int ircomm_pty_start(struct ircomm_pty *p, struct eloop *loop, struct stack *stk)
{
	if (p->started)
		return -EALREADY;
	p->loop = loop;
	p->stk = stk;

	int rc = p->on_fds ? 0 : eloop_add_reader(loop, p->inot, on_inotify, p);

	if (rc < 0)
		return rc;
	p->started = true;
	if (p->on_fds) {
		/* the descriptor is the one open of the line: DTR, a caller dials */
		p->st.slave_opens = 1;
		eloop_timer_arm_in(loop, &p->watch, FDS_WATCH_US);
		if (is_caller(p) && p->attempt_us)
			eloop_timer_arm_in(loop, &p->attempt, p->attempt_us);
		update_dtr(p);
	} else {
		/* a program may have opened the slave already: DTR, and a caller dials */
		on_inotify(loop, p->inot, p);
	}
	if (!is_caller(p)) {
		struct ircomm_config ic;
		client_config(p, &ic);
		if (p->ep.wire == IRDAD_WIRE_AUTO)
			ic.service_types = IRCOMM_SVC_9WIRE | IRCOMM_SVC_3WIRE;
		p->srv_cfg = ic;
		p->srv = ircomm_server_new(stack_irlmp(stk), stack_ias(stk), &ic, on_ircomm, p);
		if (!p->srv) {
			log_msg(p->log, LOG_LEVEL_ERROR, "ircomm %s: the IrCOMM server did not start",
				p->ep.name);
			return -ENOMEM;
		}
		set_state(p, IRCOMM_PTY_LISTENING, "start");
		if (p->on_fds)
			status_line_write(&p->sl, "listening");
		sync_stack(p);
	}
	return 0;
}

void ircomm_pty_port_back(struct ircomm_pty *p)
{
	if (!p->started || p->on_fds || !is_caller(p) || !p->in_use ||
	    (p->state != IRCOMM_PTY_IDLE && p->state != IRCOMM_PTY_WAIT_REDIAL))
		return;
	/* a call as at the program's first open */
	p->connected_since_dtr = false;
	p->redial_us = REDIAL_FIRST_US;
	p->ncand = p->cand_at = 0;
	wait_redial(p, 0, "port back");
}

void ircomm_pty_lap_event(struct ircomm_pty *p, const struct irlap_event *ev)
{
	note_link_peer(p, ev);
	if (p->started && p->on_fds)
		fds_lap_event(p, ev);
	if (!p->started || !is_caller(p))
		return;
	if (ev->type == IRLAP_EV_DISCOVERY) {
		on_discovery(p, ev);
		return;
	}
	/* an IAS answer that moved the client on arrives in an IrLAP event
	 * and makes ircomm_deadline() due at once: follow it */
	if (p->c && p->state == IRCOMM_PTY_CONNECTING) {
		uint64_t d = ircomm_deadline(p->c);
		if (d != UINT64_MAX)
			eloop_timer_arm_at(p->loop, &p->tick, d);
	}
}

void ircomm_pty_free(struct ircomm_pty *p)
{
	if (!p)
		return;
	if (p->loop) {
		eloop_timer_cancel(p->loop, &p->tick);
		eloop_timer_cancel(p->loop, &p->timer);
		want_read(p, false);
		want_write(p, false);
		if (p->started && p->inot >= 0)
			eloop_remove_reader(p->loop, p->inot);
		fds_stop(p);
	}
	if (p->srv) {
		/* closes its connection without an event */
		ircomm_server_free(p->srv);
		p->c = NULL;
	}
	if (p->c)
		ircomm_disconnect(p->c);
	if (p->stk)
		stack_sync(p->stk);
	if (p->link_made && link_is_ours(p))
		remove_link(p);
	if (p->inot >= 0)
		close(p->inot);
	if (p->slave >= 0)
		close(p->slave);
	if (p->out >= 0 && p->out != p->master)
		close(p->out);
	if (p->master >= 0)
		close(p->master);
	free(p->drain);
	free(p);
}

void ircomm_pty_get_stats(const struct ircomm_pty *p, struct ircomm_pty_stats *out)
{
	*out = p->st;
	out->rx_dropped = p->rx_dropped_done + (p->c ? ircomm_get_stats(p->c)->rx_dropped : 0);
}

const char *ircomm_pty_name(const struct ircomm_pty *p)
{
	return p->ep.name;
}

const char *ircomm_pty_slave_path(const struct ircomm_pty *p)
{
	return p->slave_path;
}

/* ---- on descriptors: irdad --stdio --service ircomm ----------------------- */

/* How telling an attempt's failure is: the most telling of the
 * candidates' is the line's word. */
static int attempt_rank(enum status_reason r)
{
	switch (r) {
	case STATUS_NO_PEER: return 0;
	case STATUS_NO_ANSWER: return 1;
	case STATUS_BUSY: return 2;
	case STATUS_NOT_OFFERED: return 3;
	default: return 4;
	}
}

/* final: the outcome is known (a side left); later causes do not change it. */
static void fds_note(struct ircomm_pty *p, enum status_reason r, bool final)
{
	if (p->why_final)
		return;
	if (final || attempt_rank(r) > attempt_rank(p->why))
		p->why = r;
	p->why_final = final;
}

static void fds_close(struct ircomm_pty *p)
{
	int off = 0;

	if (p->drain_writing)
		eloop_remove_writer(p->loop, p->out);
	p->drain_writing = false;
	want_read(p, false);
	want_write(p, false);
	eloop_timer_cancel(p->loop, &p->fds_timer);
	if (p->master < 0)
		return;
	/* the descriptions may be shared with the parent: as they came */
	if (p->pkt)
		ioctl(p->master, TIOCPKT, &off);
	if (p->out != p->master)
		close(p->out);
	close(p->master);
	p->master = p->out = p->tio = -1;
	/* the other end now reads EOF (EIO on a pty slave: pppd's "Modem
	 * hangup"); the parent hears of the end from the loop */
	eloop_timer_arm_in(p->loop, &p->end, 0);
}

static void fds_drain(struct ircomm_pty *p);

static void on_drain_writable(struct eloop *loop, int fd, void *ctx)
{
	(void)loop;
	(void)fd;
	fds_drain(ctx);
}

/* The peer's last bytes, then the descriptors are closed (at the
 * deadline at the latest: fds_timer). */
static void fds_drain(struct ircomm_pty *p)
{
	while (p->drain_off < p->drain_len && p->out >= 0) {
		ssize_t w = write(p->out, p->drain + p->drain_off, p->drain_len - p->drain_off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!p->drain_writing && eloop_add_writer(p->loop, p->out, on_drain_writable,
								  p) == 0)
				p->drain_writing = true;
			return;
		}
		if (w <= 0)
			break;
		p->drain_off += (size_t)w;
		p->st.bytes_from_peer += (uint64_t)w;
	}
	if (p->pkt && !p->local_gone && p->drain_off == p->drain_len && !p->lingering) {
		p->lingering = true;
		eloop_timer_arm_in(p->loop, &p->fds_timer, FDS_LINGER_US);
		return;
	}
	fds_close(p);
}

static bool drain_add(struct ircomm_pty *p, const uint8_t *b, size_t n)
{
	uint8_t *d = realloc(p->drain, p->drain_len + n);

	if (!d)
		return false;
	p->drain = d;
	memcpy(p->drain + p->drain_len, b, n);
	p->drain_len += n;
	return true;
}

/* Keeps what is left of the SDU being written and, while connected,
 * what IrCOMM still holds (TinyTP's queue: at most the credit we gave). */
static void keep_rest(struct ircomm_pty *p)
{
	uint8_t buf[IRCOMM_SDU_MAX];
	long n;

	if (p->rx_off < p->rx_len && !drain_add(p, p->rx + p->rx_off, p->rx_len - p->rx_off))
		log_msg(p->log, LOG_LEVEL_WARNING, "ircomm %s: bytes from the peer lost (memory)",
			p->ep.name);
	p->rx_off = p->rx_len = 0;
	/* (no READABLE event comes from inside ircomm_read) */
	while (p->c && (n = ircomm_read(p->c, buf, sizeof(buf))) > 0)
		if (!drain_add(p, buf, (size_t)n))
			log_msg(p->log, LOG_LEVEL_WARNING, "ircomm %s: %ld bytes from the peer lost "
				"(memory)", p->ep.name, n);
}

/* The end (to_idle's place on descriptors): the status line, the peer's
 * last bytes, then the descriptors are closed and the parent told. */
static void fds_finish(struct ircomm_pty *p, const char *why)
{
	if (p->ended)
		return;
	p->ended = true;
	eloop_timer_cancel(p->loop, &p->timer);
	eloop_timer_cancel(p->loop, &p->watch);
	p->ncand = p->cand_at = 0;
	set_state(p, IRCOMM_PTY_IDLE, why);
	status_line_end(&p->sl, p->st.connects > 0, p->why);
	want_read(p, false); /* (hang_up_now and on_disconnected did already) */
	want_write(p, false);
	keep_rest(p);
	if (p->local_gone)
		p->drain_off = p->drain_len; /* nobody reads them */
	eloop_timer_arm_in(p->loop, &p->fds_timer, HANGUP_FLUSH_US);
	fds_drain(p);
}

/* A caller's attempt got nowhere (redial_later's place on descriptors):
 * another discovery while nobody was found, else the end. */
static void fds_call_failed(struct ircomm_pty *p, const char *why)
{
	bool had_candidates = p->ncand > 0;

	p->ncand = p->cand_at = 0;
	/* candidates, none of which IrCOMM could even start a call to: the
	 * link is up with another station */
	if (had_candidates && p->why == STATUS_NO_PEER)
		fds_note(p, STATUS_BUSY, false);
	p->tries++;
	/* with a connect timeout: discover again until it runs out */
	bool again = p->attempt_us ? eloop_timer_pending(&p->attempt) : p->tries < FDS_DISCOVERIES;
	if (!p->why_final && p->why == STATUS_NO_PEER && again) {
		wait_redial(p, 0, why);
		return;
	}
	hang_up_now(p, why);
}

/* Why a call to one candidate failed. */
static enum status_reason call_failure(const struct ircomm_event *ev)
{
	switch (ev->err) {
	case 0:
		return status_reason_of_lmp(ev->reason, false);
	case -ENOENT:          /* no IrCOMM object or attribute */
	case -EPROTONOSUPPORT: /* no service type in common */
	case -EPROTO:          /* not a serial port */
		return STATUS_NOT_OFFERED;
	default:
		return STATUS_NO_ANSWER;
	}
}

/* true: handled (the connection was up, or a listener's call that never
 * came up while the end is decided); false: the caller's next candidate. */
static bool fds_disconnected(struct ircomm_pty *p, const struct ircomm_event *ev, bool was_up)
{
	if (was_up) {
		fds_note(p, status_reason_of_lmp(ev->reason, true), true);
		keep_rest(p);
		fds_finish(p, "disconnected");
		return true;
	}
	if (!is_caller(p)) {
		if (!p->local_gone)
			return false; /* listens again */
		fds_finish(p, "disconnected");
		return true;
	}
	fds_note(p, call_failure(ev), false);
	return false;
}

static const struct irlap_peer *seen_find(const struct ircomm_pty *p, uint32_t daddr)
{
	for (size_t i = 0; i < p->nseen; i++)
		if (p->seen[i].daddr == daddr)
			return &p->seen[i];
	return NULL;
}

static void seen_note(struct ircomm_pty *p, const struct irlap_peer *peer)
{
	struct irlap_peer *slot = (struct irlap_peer *)seen_find(p, peer->daddr);

	if (!slot && p->nseen < IRLAP_MAX_PEERS)
		slot = &p->seen[p->nseen++];
	if (slot)
		*slot = *peer;
}

static void fds_connected(struct ircomm_pty *p)
{
	const struct irlap_peer *peer;

	eloop_timer_cancel(p->loop, &p->attempt);
	peer = seen_find(p, p->st.peer);
	status_line_up(&p->sl, p->st.peer, peer ? peer->info.nickname : NULL,
		       peer ? peer->info.nickname_len : 0);
	/* the program may have set B0 before: the master was not read */
	update_dtr(p);
}

/* The peer's carrier dropped (its DTR off, seen through the null modem,
 * or a DCE's CD): from the loop, not inside IrCOMM's event. */
static void fds_lines(struct ircomm_pty *p, uint8_t lines)
{
	if (lines & IRCOMM_DCE_CD) {
		p->peer_cd_seen = true;
		return;
	}
	/* only a drop: a line that was never up (a phone before CONNECT, a
	 * listener's pty nobody opened) is no hang-up */
	if (!p->peer_cd_seen || p->state != IRCOMM_PTY_CONNECTED || p->why_final)
		return;
	fds_note(p, STATUS_CLOSED_BY_PEER, true);
	eloop_timer_arm_in(p->loop, &p->fds_timer, 0);
}

static void on_fds_timer(struct eloop *loop, void *ctx)
{
	struct ircomm_pty *p = ctx;
	(void)loop;

	if (p->ended) {
		/* the drain's deadline: the rest for a program that does not read is dropped */
		if (p->drain_off < p->drain_len)
			log_msg(p->log, LOG_LEVEL_INFO, "ircomm %s: %zu bytes for the program dropped",
				p->ep.name, p->drain_len - p->drain_off);
		fds_close(p);
		return;
	}
	log_msg(p->log, LOG_LEVEL_INFO, "ircomm %s: the peer's carrier dropped: hanging up",
		p->ep.name);
	keep_rest(p);
	hang_up_now(p, "carrier lost");
}

/* Our side left (the slave closed, end of input, a failed write). */
static void fds_local_gone(struct ircomm_pty *p, const char *why)
{
	if (p->local_gone || p->ended)
		return;
	p->local_gone = true;
	log_msg(p->log, LOG_LEVEL_INFO, "ircomm %s: %s", p->ep.name, why);
	fds_note(p, STATUS_CLOSED, true);
	eloop_timer_cancel(p->loop, &p->watch);
	p->st.slave_opens = 0;
	update_dtr(p); /* DTR down; a caller starts hanging up */
	if (p->state == IRCOMM_PTY_CONNECTED)
		start_hang_up(p, why); /* a listener too: one connection */
	else if (p->state != IRCOMM_PTY_HANGING_UP)
		hang_up_now(p, why);
}

/* After a read of the master: EOF or an error other than EAGAIN is our
 * side leaving (EIO: a pty's slave was closed by its last holder). */
static bool fds_read_ended(struct ircomm_pty *p, ssize_t n)
{
	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)))
		return false;
	p->master_empty = true;
	want_read(p, false);
	fds_local_gone(p, n == 0 ? "end of input" : "the other end closed");
	return true;
}

/* POLLHUP (a pty whose slave nobody holds, a pipe's writer gone),
 * POLLRDHUP (a socket's peer shut down), POLLERR. */
static bool hung_up(int fd)
{
	struct pollfd pf = { .fd = fd, .events = POLLRDHUP };
	struct timespec zero = { 0, 0 };

	if (ppoll(&pf, 1, &zero, NULL) <= 0)
		return false;
	return (pf.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)) != 0;
}

/* While the master is not read (no connection, or IrCOMM has no room),
 * its other end leaving is seen here. */
static void on_watch(struct eloop *loop, void *ctx)
{
	struct ircomm_pty *p = ctx;

	if (p->ended || p->local_gone)
		return;
	if (!p->reading && (hung_up(p->master) || (p->out != p->master && hung_up(p->out)))) {
		fds_local_gone(p, "the other end closed");
		return;
	}
	eloop_timer_arm_in(loop, &p->watch, FDS_WATCH_US);
}

/* The connect timeout ran out before a connection. */
static void on_attempt(struct eloop *loop, void *ctx)
{
	struct ircomm_pty *p = ctx;
	(void)loop;

	if (p->ended || p->state == IRCOMM_PTY_CONNECTED || p->state == IRCOMM_PTY_HANGING_UP)
		return;
	if (p->state == IRCOMM_PTY_CONNECTING)
		fds_note(p, STATUS_NO_ANSWER, false);
	hang_up_now(p, "connect timeout");
}

static void on_end(struct eloop *loop, void *ctx)
{
	struct ircomm_pty *p = ctx;
	(void)loop;
	if (p->ended_fn)
		p->ended_fn(p->ended_ctx, p);
}

static void fds_lap_event(struct ircomm_pty *p, const struct irlap_event *ev)
{
	switch (ev->type) {
	case IRLAP_EV_DISCOVERY:
		for (size_t i = 0; !ev->failed && i < ev->npeers; i++)
			seen_note(p, &ev->peers[i]);
		if (ev->failed && ev->reason == IRLAP_REASON_MEDIA_BUSY &&
		    p->state == IRCOMM_PTY_DISCOVERING)
			fds_note(p, STATUS_BUSY, false);
		break;
	case IRLAP_EV_DISCOVERED_BY:
		seen_note(p, ev->peer);
		break;
	default:
		break;
	}
}

/* The station the link is up with, in every mode: a listener names its
 * caller by it (IrCOMM's connect indication carries no address). */
static void note_link_peer(struct ircomm_pty *p, const struct irlap_event *ev)
{
	if (ev->type == IRLAP_EV_CONNECT_CONF || ev->type == IRLAP_EV_CONNECT_IND)
		p->link_peer = ev->daddr ? ev->daddr : ev->peer ? ev->peer->daddr : 0;
	else if (ev->type == IRLAP_EV_DISCONNECT)
		p->link_peer = 0;
}

static void fds_stop(struct ircomm_pty *p)
{
	if (!p->on_fds)
		return;
	if (p->drain_writing)
		eloop_remove_writer(p->loop, p->out);
	p->drain_writing = false;
	eloop_timer_cancel(p->loop, &p->watch);
	eloop_timer_cancel(p->loop, &p->fds_timer);
	eloop_timer_cancel(p->loop, &p->end);
	eloop_timer_cancel(p->loop, &p->attempt);
}

int ircomm_pty_open_fds(const struct irdad_endpoint *ep, int in_fd, int out_fd,
			const struct logger *log, struct ircomm_pty **out, char *err, size_t errlen)
{
	struct ircomm_pty *p;
	char who[sizeof(p->sl.who)];

	*out = NULL;
	if (ep->service != IRDAD_SVC_IRCOMM || in_fd < 0 || out_fd < 0) {
		snprintf(err, errlen, "ircomm %s: not an ircomm endpoint on two descriptors",
			 ep->name);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "ircomm %s: out of memory", ep->name);
		return -ENOMEM;
	}
	p->ep = *ep;
	p->ep.reconnect = false;
	p->ep.pty_link[0] = '\0';
	p->log = log;
	p->on_fds = true;
	p->slave = p->inot = p->tio = -1;
	p->master = in_fd;
	p->out = out_fd;
	p->redial_us = REDIAL_FIRST_US;
	p->why = STATUS_NO_PEER;
	snprintf(who, sizeof(who), "ircomm %s", ep->name);
	status_line_init(&p->sl, log, who);
	eloop_timer_init(&p->tick, on_tick, p);
	eloop_timer_init(&p->timer, on_timer, p);
	eloop_timer_init(&p->watch, on_watch, p);
	eloop_timer_init(&p->fds_timer, on_fds_timer, p);
	eloop_timer_init(&p->end, on_end, p);
	eloop_timer_init(&p->attempt, on_attempt, p);
	if (fcntl(in_fd, F_SETFL, fcntl(in_fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    fcntl(out_fd, F_SETFL, fcntl(out_fd, F_GETFL) | O_NONBLOCK) < 0) {
		int rc = fail(err, errlen, errno, who, "descriptors");
		p->master = p->out = -1; /* still the caller's */
		ircomm_pty_free(p);
		return rc;
	}
	/* A pty master (pppd's pty option, the plugin): its termios ioctls
	 * act on the slave, where the program sets its line; packet mode and
	 * EXTPROC tell us of each change, as on our own ptys. */
	if (ptsname_r(in_fd, p->slave_path, sizeof(p->slave_path)) == 0) {
		int one = 1;
		if (ioctl(in_fd, TIOCPKT, &one) < 0) {
			int rc = fail(err, errlen, errno, who, "packet mode");
			p->master = p->out = -1;
			ircomm_pty_free(p);
			return rc;
		}
		p->pkt = true;
		p->tio = in_fd;
		keep_extproc(p);
		log_msg(log, LOG_LEVEL_INFO, "ircomm %s: the program's line is %s", ep->name,
			p->slave_path);
	} else {
		p->slave_path[0] = '\0';
		log_msg(log, LOG_LEVEL_INFO, "ircomm %s: %s: plain bytes, no line settings",
			ep->name, isatty(in_fd) ? "a terminal that is not a pty master" :
						  "not a terminal");
	}
	*out = p;
	return 0;
}

void ircomm_pty_set_status_fd(struct ircomm_pty *p, int fd)
{
	status_line_set_fd(&p->sl, fd);
}

void ircomm_pty_set_connect_timeout(struct ircomm_pty *p, uint64_t us)
{
	p->attempt_us = us;
}

void ircomm_pty_set_ended(struct ircomm_pty *p, void (*ended)(void *ctx, struct ircomm_pty *p),
			  void *ctx)
{
	p->ended_fn = ended;
	p->ended_ctx = ctx;
}
