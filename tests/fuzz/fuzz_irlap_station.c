/*
 * fuzz_irlap_station.c: arbitrary frames, at arbitrary times, into a
 * connected IrLAP station (primary or secondary), with data queued both
 * ways.  Checks that it never crashes, never builds an invalid frame,
 * never holds more than a window of unacknowledged frames, and never
 * hangs: afterwards its timers run down to a quiet state within bounded
 * work.
 *
 * Input: byte 0 chooses the role and options; then records of
 * [delay in ms][length][frame bytes], the frame's address byte rewritten
 * to the link's connection address when byte 0 says so (so most frames
 * reach the state machine instead of being ignored).  A record of length
 * 0 is a damaged frame the host reports (irlap_frame_error).  The early
 * poll is on, so its watch is fuzzed too.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "irlap.h"
#include "irlap_frame.h"
#include "../unit/irlap_vectors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OURS VEC_OURS
#define PEER VEC_PEER

struct ctx {
	uint8_t caddr;
	bool have_caddr;
	unsigned sent;
	size_t pulled;
};

static void on_send(void *c, const uint8_t *frame, size_t len, const struct irlap_txinfo *tx)
{
	struct ctx *x = c;
	struct irlap_frame f;

	/* Every frame we build must parse back and fit IrLAP's limits. */
	if (irlap_frame_parse(frame, len, &f) != 0 || len > IRLAP_MAX_DATA + 16 + 2)
		abort();
	if (tx->baud != 9600 && tx->baud != 115200)
		abort();
	if (f.type == IRLAP_F_SNRM && len > 10) {
		x->caddr = frame[10] >> 1;
		x->have_caddr = true;
	}
	x->sent++;
}

static void on_event(void *c, const struct irlap_event *ev)
{
	if (ev->type == IRLAP_EV_DATA && ev->len > IRLAP_MAX_DATA)
		abort();
}

static size_t on_pull(void *c, uint8_t *buf, size_t max)
{
	struct ctx *x = c;
	size_t n = max < 100 ? max : 100;

	if (x->pulled > 20000)
		return 0;
	memset(buf, 0x7d, n);
	x->pulled += n;
	return n;
}

static const uint8_t ua[] = {
	0x00, 0x73, 0xdd, 0xcc, 0xbb, 0xaa, 0x78, 0x56, 0x34, 0x12,
	0x01, 0x01, 0x3e, 0x84, 0x01, 0x07,
};

static void check(struct irlap *st)
{
	const struct qos_result *q = irlap_get_qos(st);

	if (irlap_get_state(st) > IRLAP_SCLOSE)
		abort();
	if (q && irlap_pending(st) > 7 + 32)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx x = { 0 };
	struct irlap_config cfg;
	struct irlap_ops ops = { .send_frame = on_send, .deliver = on_event, .pull = on_pull };
	struct irlap *st;
	uint64_t now = 0;
	uint8_t opts, frame[300];
	bool primary, patch;
	size_t pos = 1;

	if (size < 1)
		return 0;
	opts = data[0];
	primary = opts & 1;
	patch = opts & 2;
	irlap_config_defaults(&cfg, 115200, 1000);
	cfg.daddr = primary ? OURS : PEER;
	cfg.seed = opts;
	cfg.limits.max_tx_window = 1 + (opts >> 5);
	cfg.repoll_quiet_us = IRLAP_REPOLL_QUIET_US;
	st = irlap_new(&cfg, &ops, &x);
	if (!st)
		return 0;
	if (primary) {
		struct irlap_request r = { .type = IRLAP_REQ_CONNECT, .daddr = PEER };
		uint8_t u[sizeof(ua)];

		irlap_request(st, &r, now);
		memcpy(u, ua, sizeof(u));
		u[0] = (uint8_t)(x.caddr << 1);
		now += 60000;
		irlap_input(st, u, sizeof(u), now);
	} else {
		struct irlap_request r = { .type = IRLAP_REQ_ACCEPT };
		irlap_input(st, vec_snrm, sizeof(vec_snrm), now);
		irlap_request(st, &r, now);
		x.caddr = 0x2d;
	}
	if (opts & 4) {
		struct irlap_request r = { .type = IRLAP_REQ_DATA, .data = frame, .len = 40 };
		memset(frame, 0xc0, 40);
		for (int i = 0; i < 10; i++)
			irlap_request(st, &r, now);
	}
	if (opts & 8) {
		struct irlap_request r = { .type = IRLAP_REQ_LOCAL_BUSY, .busy = true };
		irlap_request(st, &r, now);
	}
	check(st);
	while (pos + 2 <= size) {
		size_t len = data[pos + 1];
		uint64_t until = now + (uint64_t)data[pos] * 1000;

		pos += 2;
		if (len > size - pos)
			len = size - pos;
		memcpy(frame, data + pos, len);
		pos += len;
		if (patch && len > 0)
			frame[0] = (uint8_t)(x.caddr << 1 | (frame[0] & 1));
		while (irlap_deadline(st) <= until) {
			now = irlap_deadline(st) > now ? irlap_deadline(st) : now;
			irlap_tick(st, now);
			check(st);
		}
		now = until;
		if (len)
			irlap_input(st, frame, len, now);
		else
			irlap_frame_error(st, now);
		check(st);
		if (opts & 16) {
			struct irlap_request r = { .type = IRLAP_REQ_DISCONNECT };
			irlap_request(st, &r, now);
		}
	}
	/* No hang: with nobody answering, every state winds down to NDM
	 * (N2 x F at most 40 s, then nothing more to do). */
	for (unsigned steps = 0; irlap_deadline(st) != UINT64_MAX; steps++) {
		if (steps > 2000 || irlap_deadline(st) > now + 120000000ull)
			abort();
		now = irlap_deadline(st) > now ? irlap_deadline(st) : now;
		irlap_tick(st, now);
		check(st);
	}
	if (irlap_get_state(st) != IRLAP_NDM)
		abort();
	irlap_free(st);
	return 0;
}
