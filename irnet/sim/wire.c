/*
 * wire.c: the emulated SIR link.  See wire.h for the model.
 *
 * Internally time is in nanoseconds so that byte and bit boundaries at
 * 115200 baud (8680.6 ns per bit) do not drift: byte k of a run started
 * at t0 begins at t0 + k * 10^10 / baud exactly (rounded down once).
 *
 * Each side keeps the bytes it has sent that a receiver may still look
 * at (a ring), the spans of its own transmissions (for its blind time and
 * collisions), and the history of its rate (what its UART samples with).
 * Receiving is computed lazily: wire_advance() runs the receiving UART
 * of each side over the line up to "now", and nothing before "now" can
 * change afterwards because new bytes never start in the past.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_US 1000ull
#define NS_PER_S 1000000000ull
#define MAX_BAUD 4000000u
#define INF UINT64_MAX

enum {
	WB_DROPPED = 1,		/* the line stays idle for this byte */
	WB_COLLIDED = 2,	/* overlapped the other side's transmission */
};

struct wire_byte {
	uint64_t start, end;	/* ns */
	uint32_t baud;
	uint8_t value;
	uint8_t flip;		/* data bits inverted by noise */
	uint8_t flags;
};

struct span {
	uint64_t start, end;	/* ns, [start, end) */
};

struct rate {
	uint64_t at;		/* ns */
	uint32_t baud;
};

/* A growable ring of T; the three kinds below share this code through
 * element size. */
struct ring {
	void *v;
	size_t elem, head, len, cap;
};

struct side {
	uint32_t baud;			/* for bytes queued from now on */
	uint64_t tx_idle;		/* ns: end of the last queued byte */
	uint64_t run_start;		/* ns: pacing origin of the current run */
	uint64_t run_count;		/* bytes queued in the current run */
	uint32_t run_baud;
	struct ring tx;			/* struct wire_byte */
	struct ring bursts;		/* struct span: own transmissions */
	uint32_t rx_base_baud;		/* rate before the first entry of rates */
	struct ring rates;		/* struct rate: rate changes */
	uint64_t rx_resume;		/* ns: the receiver looks from here */
	bool rx_seen_high;		/* a 1 seen since the last stop bit */
	uint64_t prng;
	struct wire_counters n;
};

struct wire {
	struct side side[2];
	uint64_t now;			/* ns: latest time the host gave */
	uint64_t turnaround;		/* ns */
	double ber, drop;
	struct span *breaks;		/* sorted, merged */
	size_t n_breaks;
	const struct logger *log;
};

/* ---- splitmix64 ------------------------------------------------------ */

static uint64_t prng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double prng_unit(uint64_t *s)
{
	return (double)(prng_next(s) >> 11) * 0x1.0p-53;
}

/* ---- rings ------------------------------------------------------------ */

static void *ring_at(const struct ring *r, size_t i)
{
	return (char *)r->v + ((r->head + i) % r->cap) * r->elem;
}

static int ring_push(struct ring *r, const void *item)
{
	if (r->len == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 64;
		char *nv = malloc(ncap * r->elem);
		if (!nv)
			return -ENOMEM;
		for (size_t i = 0; i < r->len; i++)
			memcpy(nv + i * r->elem, ring_at(r, i), r->elem);
		free(r->v);
		r->v = nv;
		r->head = 0;
		r->cap = ncap;
	}
	memcpy(ring_at(r, r->len), item, r->elem);
	r->len++;
	return 0;
}

static void ring_pop(struct ring *r)
{
	r->head = (r->head + 1) % r->cap;
	r->len--;
}

static struct wire_byte *byte_at(const struct side *s, size_t i)
{
	return ring_at(&s->tx, i);
}

static struct span *burst_at(const struct side *s, size_t i)
{
	return ring_at(&s->bursts, i);
}

/* ---- configuration ---------------------------------------------------- */

const char *wire_config_error(const struct wire_config *cfg)
{
	if (!cfg)
		return "no configuration";
	for (int i = 0; i < 2; i++)
		if (cfg->baud[i] > MAX_BAUD)
			return "baud rate over 4000000";
	if (!(cfg->ber >= 0.0 && cfg->ber <= 1.0))
		return "bit error rate is not a probability (0..1)";
	if (!(cfg->drop >= 0.0 && cfg->drop <= 1.0))
		return "drop rate is not a probability (0..1)";
	if (cfg->n_breaks && !cfg->breaks)
		return "break list missing";
	for (size_t i = 0; i < cfg->n_breaks; i++)
		if (cfg->breaks[i].start_us > UINT64_MAX / NS_PER_US / 2 ||
		    cfg->breaks[i].duration_us > UINT64_MAX / NS_PER_US / 2)
			return "link break too far in the future";
	return NULL;
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

struct wire *wire_new(const struct wire_config *cfg)
{
	if (wire_config_error(cfg)) {
		errno = EINVAL;
		return NULL;
	}
	struct wire *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->turnaround = (uint64_t)cfg->turnaround_us * NS_PER_US;
	w->ber = cfg->ber;
	w->drop = cfg->drop;
	w->log = cfg->log;
	if (cfg->n_breaks) {
		w->breaks = calloc(cfg->n_breaks, sizeof(*w->breaks));
		if (!w->breaks) {
			free(w);
			return NULL;
		}
		size_t n = 0;
		for (size_t i = 0; i < cfg->n_breaks; i++) {
			if (cfg->breaks[i].duration_us == 0)
				continue;
			w->breaks[n].start = cfg->breaks[i].start_us * NS_PER_US;
			w->breaks[n].end = w->breaks[n].start +
					   cfg->breaks[i].duration_us * NS_PER_US;
			n++;
		}
		qsort(w->breaks, n, sizeof(*w->breaks), cmp_span);
		/* merge overlapping outages */
		size_t m = 0;
		for (size_t i = 0; i < n; i++) {
			if (m && w->breaks[i].start <= w->breaks[m - 1].end) {
				if (w->breaks[i].end > w->breaks[m - 1].end)
					w->breaks[m - 1].end = w->breaks[i].end;
			} else {
				w->breaks[m++] = w->breaks[i];
			}
		}
		w->n_breaks = m;
	}
	uint64_t seed = cfg->seed;
	for (int i = 0; i < 2; i++) {
		struct side *s = &w->side[i];
		s->baud = cfg->baud[i] ? cfg->baud[i] : 9600;
		s->run_baud = s->baud;
		s->rx_base_baud = s->baud;
		s->rx_seen_high = true;
		s->tx.elem = sizeof(struct wire_byte);
		s->bursts.elem = sizeof(struct span);
		s->rates.elem = sizeof(struct rate);
		/* independent streams per side */
		s->prng = prng_next(&seed);
	}
	return w;
}

void wire_free(struct wire *w)
{
	if (!w)
		return;
	for (int i = 0; i < 2; i++) {
		free(w->side[i].tx.v);
		free(w->side[i].bursts.v);
		free(w->side[i].rates.v);
	}
	free(w->breaks);
	free(w);
}

static uint64_t to_ns(const struct wire *w, uint64_t us)
{
	uint64_t ns = us > INF / NS_PER_US ? INF - 1 : us * NS_PER_US;

	return ns < w->now ? w->now : ns;
}

static uint64_t to_us_ceil(uint64_t ns)
{
	return ns == INF ? WIRE_NEVER : (ns + NS_PER_US - 1) / NS_PER_US;
}

uint64_t wire_line_time_us(uint32_t baud, uint64_t n)
{
	if (baud == 0)
		return WIRE_NEVER;
	return (n * 10 * 1000000 + baud - 1) / baud;
}

/* ---- speed --------------------------------------------------------------- */

static bool bad_side(int side)
{
	return side != 0 && side != 1;
}

int wire_set_speed(struct wire *w, int side, uint32_t baud, uint64_t now_us)
{
	if (bad_side(side) || baud == 0 || baud > MAX_BAUD)
		return -EINVAL;
	struct side *s = &w->side[side];
	uint64_t now = to_ns(w, now_us);
	struct rate r = { .at = now, .baud = baud };

	if (baud == s->baud)
		return 0;
	/* a later change at the same instant replaces an earlier one */
	if (s->rates.len && ((struct rate *)ring_at(&s->rates, s->rates.len - 1))->at == now)
		((struct rate *)ring_at(&s->rates, s->rates.len - 1))->baud = baud;
	else if (ring_push(&s->rates, &r) < 0)
		return -ENOMEM;
	log_msg(w->log, LOG_LEVEL_DEBUG, "wire: side %d %u -> %u baud at %llu us", side,
		s->baud, baud, (unsigned long long)(now / NS_PER_US));
	s->baud = baud;
	return 0;
}

uint32_t wire_speed(const struct wire *w, int side)
{
	return bad_side(side) ? 0 : w->side[side].baud;
}

static uint32_t rx_baud(const struct side *s, uint64_t t)
{
	uint32_t b = s->rx_base_baud;

	for (size_t i = 0; i < s->rates.len; i++) {
		const struct rate *r = ring_at(&s->rates, i);
		if (r->at > t)
			break;
		b = r->baud;
	}
	return b;
}

/* ---- transmitting ---------------------------------------------------- */

static uint64_t byte_start(const struct side *s, uint64_t k)
{
	return s->run_start + k * 10 * NS_PER_S / s->run_baud;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Moves the pacing origin forward once a run is long, at a byte where
 * k * 10^10 / baud is exact, so k * 10^10 cannot overflow and no
 * rounding creeps in. */
static void rebase_run(struct side *s)
{
	uint64_t period = s->run_baud / gcd64(s->run_baud, 10 * NS_PER_S);

	if (s->run_count >= (1u << 20) && s->run_count % period == 0) {
		s->run_start = byte_start(s, s->run_count);
		s->run_count = 0;
	}
}

/* Marks the bytes of both sides that overlap in time; first..end of `s`
 * are the new ones. */
static void mark_collisions(struct wire *w, int side, size_t first)
{
	struct side *s = &w->side[side], *o = &w->side[!side];
	size_t j = 0;

	for (size_t i = first; i < s->tx.len; i++) {
		struct wire_byte *a = byte_at(s, i);
		while (j < o->tx.len && byte_at(o, j)->end <= a->start)
			j++;
		for (size_t k = j; k < o->tx.len; k++) {
			struct wire_byte *b = byte_at(o, k);
			if (b->start >= a->end)
				break;
			if (!(a->flags & WB_COLLIDED)) {
				a->flags |= WB_COLLIDED;
				s->n.collisions++;
			}
			if (!(b->flags & WB_COLLIDED)) {
				b->flags |= WB_COLLIDED;
				o->n.collisions++;
			}
		}
	}
}

int wire_transmit(struct wire *w, int side, const uint8_t *bytes, size_t n,
		  uint64_t now_us, uint64_t *done_us)
{
	if (bad_side(side))
		return -EINVAL;
	struct side *s = &w->side[side];
	uint64_t now = to_ns(w, now_us);

	if (n == 0) {
		if (done_us)
			*done_us = to_us_ceil(s->tx_idle > now ? s->tx_idle : now);
		return 0;
	}
	struct side saved = *s;	/* to undo a failed call: nothing half-queued */

	/* A new run when the line went idle or the rate changed. */
	if (s->tx_idle <= now || s->run_baud != s->baud) {
		s->run_start = s->tx_idle > now ? s->tx_idle : now;
		s->run_count = 0;
		s->run_baud = s->baud;
	}
	uint64_t start = byte_start(s, s->run_count);
	size_t first = s->tx.len;
	for (size_t i = 0; i < n; i++) {
		struct wire_byte b = {
			.start = byte_start(s, s->run_count),
			.end = byte_start(s, s->run_count + 1),
			.baud = s->run_baud,
			.value = bytes[i],
		};
		if (w->drop > 0 && prng_unit(&s->prng) < w->drop)
			b.flags |= WB_DROPPED;
		if (w->ber > 0)
			for (int bit = 0; bit < 8; bit++)
				if (prng_unit(&s->prng) < w->ber)
					b.flip |= (uint8_t)(1u << bit);
		if (ring_push(&s->tx, &b) < 0)
			goto nomem;
		s->run_count++;
		rebase_run(s);
	}
	uint64_t end = s->tx.len ? byte_at(s, s->tx.len - 1)->end : start;
	struct span *last = s->bursts.len ? burst_at(s, s->bursts.len - 1) : NULL;
	if (last && last->end == start) {
		last->end = end;
	} else {
		struct span sp = { start, end };
		if (ring_push(&s->bursts, &sp) < 0)
			goto nomem;
	}
	s->tx_idle = end;
	s->n.sent += n;
	uint64_t before = s->n.collisions;
	mark_collisions(w, side, first);
	if (s->n.collisions != before)
		log_msg(w->log, LOG_LEVEL_DEBUG, "wire: side %d collides (%llu bytes)", side,
			(unsigned long long)(s->n.collisions - before));
	if (done_us)
		*done_us = to_us_ceil(end);
	return 0;

nomem:
	/* keep the grown rings, restore everything else */
	saved.tx = s->tx;
	saved.tx.len = first;
	saved.bursts = s->bursts;
	saved.bursts.len = s->bursts.len;
	*s = saved;
	return -ENOMEM;
}

uint64_t wire_tx_idle_at(const struct wire *w, int side)
{
	return bad_side(side) ? 0 : to_us_ceil(w->side[side].tx_idle);
}

/* ---- the line, as seen by a receiver ------------------------------------ */

/* The first outage ending after t, or NULL. */
static const struct span *break_after(const struct wire *w, uint64_t t)
{
	/* The breaks are sorted and merged (wire_new), so their ends rise:
	 * a binary search, since this is asked for every bit the receiver
	 * samples (a linear scan made test_soak's time grow with the square
	 * of its length: 120 virtual minutes with 110 breaks at 115200 took
	 * 638 s of CPU where 15 minutes took 10 s). */
	size_t lo = 0, hi = w->n_breaks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->breaks[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->n_breaks ? &w->breaks[lo] : NULL;
}

/* Index of the first byte of s ending after t (s->tx.len if none). */
static size_t byte_after(const struct side *s, uint64_t t)
{
	size_t lo = 0, hi = s->tx.len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (byte_at(s, mid)->end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The level of the line from sender s at time t (1 = idle/mark), and
 * until when it stays so at least. */
static int line_at(const struct wire *w, const struct side *s, uint64_t t, uint64_t *until)
{
	const struct span *br = break_after(w, t);
	if (br && br->start <= t) {
		*until = br->end;
		return 1;
	}
	uint64_t next_break = br ? br->start : INF;
	size_t i = byte_after(s, t);
	if (i == s->tx.len) {
		*until = next_break;
		return 1;
	}
	const struct wire_byte *b = byte_at(s, i);
	if (b->start > t) {
		*until = min64(b->start, next_break);
		return 1;
	}
	if (b->flags & WB_DROPPED) {
		*until = min64(b->end, next_break);
		return 1;
	}
	/* bit k covers [start + k*T, start + (k+1)*T), the stop bit ends at end */
	uint64_t d = t - b->start;
	unsigned k = (unsigned)(d * b->baud / NS_PER_S);
	if (k > 9)
		k = 9;
	while (k > 0 && k * NS_PER_S / b->baud > d)
		k--;
	while (k < 9 && (k + 1) * NS_PER_S / b->baud <= d)
		k++;
	uint64_t bit_end = k == 9 ? b->end : b->start + (k + 1) * NS_PER_S / b->baud;
	*until = min64(bit_end, next_break);
	if (k == 0)
		return 0;
	if (k == 9)
		return 1;
	return ((b->value ^ b->flip) >> (k - 1)) & 1;
}

static int level(const struct wire *w, const struct side *s, uint64_t t)
{
	uint64_t until;

	return line_at(w, s, t, &until);
}

/* If r is blind at t (transmitting, or within the turnaround after),
 * when it sees again; else 0. */
static uint64_t blind_until(const struct wire *w, const struct side *r, uint64_t t)
{
	uint64_t until = 0;
	bool again = true;

	while (again) {
		again = false;
		for (size_t i = 0; i < r->bursts.len; i++) {
			const struct span *b = burst_at(r, i);
			uint64_t e = b->end + w->turnaround;
			uint64_t at = until ? until : t;
			if (b->start <= at && at < e) {
				until = e;
				again = true;
			}
		}
	}
	return until;
}

/* Start of r's first blind time that begins in (t, limit), or INF. */
static uint64_t blind_from(const struct side *r, uint64_t t, uint64_t limit)
{
	for (size_t i = 0; i < r->bursts.len; i++) {
		const struct span *b = burst_at(r, i);
		if (b->start > t && b->start < limit)
			return b->start;
	}
	return INF;
}

struct rx_step {
	bool found;
	uint8_t value;
	bool clean;
	uint64_t end;		/* ns: the byte is complete */
	uint64_t resume;	/* receiver state after this step */
	bool seen_high;
};

/* Runs the UART of side `to` over the line from the other side, from
 * where it stopped, until it completes a byte (found) or reaches limit
 * (ns).  Pure: the caller commits the resulting state. */
static struct rx_step receive(const struct wire *w, int to, uint64_t limit)
{
	const struct side *r = &w->side[to], *s = &w->side[!to];
	struct rx_step st = { .resume = r->rx_resume, .seen_high = r->rx_seen_high };
	uint64_t t = r->rx_resume;

	for (;;) {
		uint64_t b = blind_until(w, r, t);
		if (b) {
			/* re-armed mid-line: the next 0 counts as a start bit */
			t = b;
			st.seen_high = true;
		}
		if (t >= limit) {
			st.resume = limit;
			return st;
		}
		uint64_t until;
		int lv = line_at(w, s, t, &until);
		until = min64(until, blind_from(r, t, until));
		if (lv == 1 || !st.seen_high) {
			if (lv == 1)
				st.seen_high = true;
			if (until == INF) {
				st.resume = limit == INF ? t : limit;
				return st;
			}
			t = until;
			continue;
		}
		/* a falling edge at t: a start bit, for this receiver */
		uint32_t rb = rx_baud(r, t);
		uint64_t end = t + 10 * NS_PER_S / rb;
		/* The glitch test needs the line only up to the middle of the
		 * start bit, so it is made as soon as that is past, before
		 * the whole byte is: a receiver that has just switched to a
		 * faster rate can complete a later byte before this one would
		 * have ended, and a call limited to that byte's end must reach
		 * it as an unlimited one does (wire_next_event), or the host
		 * never gets past it.  (A glitch whose byte time our own
		 * transmission would cut short is skipped by half a bit like
		 * any other, not to the transmission's start.) */
		if (t + NS_PER_S / rb / 2 > limit) {
			st.resume = t;
			return st;
		}
		if (level(w, s, t + NS_PER_S / rb / 2) != 0 &&
		    blind_from(r, t, t + NS_PER_S / rb / 2) == INF) {
			/* a glitch shorter than half a bit: not a start bit */
			t += NS_PER_S / rb / 2;
			continue;
		}
		if (end > limit) {
			st.resume = t;
			return st;
		}
		uint64_t blind = blind_from(r, t, end);
		if (blind != INF) {
			/* our own transmission starts inside this byte: lost */
			t = blind;
			continue;
		}
		uint8_t v = 0;
		for (unsigned k = 1; k <= 8; k++)
			if (level(w, s, t + (2 * k + 1) * NS_PER_S / rb / 2))
				v |= (uint8_t)(1u << (k - 1));
		int stop = level(w, s, t + 19 * NS_PER_S / rb / 2);

		size_t i = byte_after(s, t);
		const struct wire_byte *sb = i < s->tx.len ? byte_at(s, i) : NULL;
		st.found = true;
		st.value = v;
		st.clean = sb && sb->start == t && sb->baud == rb && !sb->flip &&
			   sb->value == v && stop == 1;
		st.end = end;
		st.resume = t + 19 * NS_PER_S / rb / 2;
		st.seen_high = stop == 1;
		return st;
	}
}

uint64_t wire_next_event(const struct wire *w)
{
	uint64_t next = INF;

	for (int to = 0; to < 2; to++) {
		struct rx_step st = receive(w, to, INF);
		if (st.found)
			next = min64(next, st.end);
	}
	return to_us_ceil(next);
}

/* ---- bookkeeping ---------------------------------------------------------- */

static bool overlaps_break(const struct wire *w, uint64_t a, uint64_t b)
{
	const struct span *br = break_after(w, a);

	return br && br->start < b;
}

static bool overlaps_blind(const struct wire *w, const struct side *r, uint64_t a, uint64_t b)
{
	for (size_t i = 0; i < r->bursts.len; i++) {
		const struct span *sp = burst_at(r, i);
		if (sp->start < b && sp->end + w->turnaround > a)
			return true;
	}
	return false;
}

/* Forgets what no receiver or collision check can look at any more,
 * classifying each sent byte as it goes. */
static void retire(struct wire *w)
{
	for (int from = 0; from < 2; from++) {
		struct side *s = &w->side[from], *r = &w->side[!from];
		uint64_t horizon = min64(r->rx_resume, w->now);
		while (s->tx.len && byte_at(s, 0)->end <= horizon) {
			const struct wire_byte *b = byte_at(s, 0);
			if (b->flags & WB_DROPPED)
				r->n.dropped++;
			else if (overlaps_break(w, b->start, b->end))
				r->n.lost_break++;
			else if (overlaps_blind(w, r, b->start + NS_PER_S / b->baud / 2,
						b->end - NS_PER_S / b->baud / 2))
				/* deaf at some point between the middle of
				 * its start bit and the middle of its stop
				 * bit, where a UART samples it */
				r->n.lost_blind++;
			if (b->baud != rx_baud(r, b->start))
				r->n.speed_mismatch++;
			ring_pop(&s->tx);
		}
	}
	for (int i = 0; i < 2; i++) {
		struct side *r = &w->side[i], *s = &w->side[!i];
		/* r's bursts matter to bytes r still has to receive */
		uint64_t horizon = min64(r->rx_resume, w->now);
		if (s->tx.len)
			horizon = min64(horizon, byte_at(s, 0)->start);
		while (r->bursts.len > 1 && burst_at(r, 0)->end + w->turnaround <= horizon)
			ring_pop(&r->bursts);
		while (r->rates.len && ((struct rate *)ring_at(&r->rates, 0))->at <= horizon) {
			r->rx_base_baud = ((struct rate *)ring_at(&r->rates, 0))->baud;
			ring_pop(&r->rates);
		}
	}
}

size_t wire_advance(struct wire *w, uint64_t now_us, wire_rx_fn rx, void *ctx)
{
	uint64_t now = to_ns(w, now_us);
	size_t delivered = 0;

	w->now = now;
	for (;;) {
		struct rx_step st[2] = { receive(w, 0, now), receive(w, 1, now) };
		int to;
		if (st[0].found && (!st[1].found || st[0].end <= st[1].end))
			to = 0;
		else if (st[1].found)
			to = 1;
		else {
			for (int i = 0; i < 2; i++) {
				w->side[i].rx_resume = st[i].resume;
				w->side[i].rx_seen_high = st[i].seen_high;
			}
			break;
		}
		struct side *r = &w->side[to];
		r->rx_resume = st[to].resume;
		r->rx_seen_high = st[to].seen_high;
		r->n.delivered++;
		if (!st[to].clean)
			r->n.corrupted++;
		delivered++;
		if (rx)
			rx(ctx, to, st[to].value, to_us_ceil(st[to].end));
	}
	retire(w);
	return delivered;
}

const struct wire_counters *wire_counters(const struct wire *w, int side)
{
	return bad_side(side) ? NULL : &w->side[side].n;
}
