/*
 * test_wire.c: the emulated link: pacing, half-duplex and collisions,
 * turnaround, noise, drops, breaks, speed mismatch, determinism, and a
 * SIR frame carried end to end.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sir.h"
#include "wire.h"

#define CAP 200000

struct rxlog {
	size_t n[2];
	uint8_t byte[2][CAP];
	uint64_t at[2][CAP];
	uint64_t last_at;
	/* optional echo: side 1 answers each byte it gets */
	struct wire *echo;
};

static void on_byte(void *ctx, int side, uint8_t b, uint64_t at)
{
	struct rxlog *l = ctx;

	assert_true(at >= l->last_at);	/* time order across both sides */
	l->last_at = at;
	if (l->n[side] < CAP) {
		l->byte[side][l->n[side]] = b;
		l->at[side][l->n[side]] = at;
	}
	l->n[side]++;
	if (l->echo && side == 1) {
		uint8_t r = (uint8_t)~b;
		assert_int_equal(wire_transmit(l->echo, 1, &r, 1, at, NULL), 0);
	}
}

static struct rxlog *new_log(void)
{
	struct rxlog *l = calloc(1, sizeof(*l));
	assert_non_null(l);
	return l;
}

static struct wire *new_wire(uint32_t baud, uint32_t ta_us, double ber, double drop,
			     uint64_t seed)
{
	struct wire_config cfg = {
		.baud = { baud, baud }, .turnaround_us = ta_us,
		.ber = ber, .drop = drop, .seed = seed,
	};
	struct wire *w = wire_new(&cfg);
	assert_non_null(w);
	return w;
}

/* Runs the wire to quiet by stepping from event to event, then a while
 * longer so that the loss counters have classified every sent byte (they
 * count bytes whose time is past). */
static void run_events(struct wire *w, struct rxlog *l)
{
	uint64_t t, last = 0;
	while ((t = wire_next_event(w)) != WIRE_NEVER)
		wire_advance(w, last = t, on_byte, l);
	uint64_t idle = wire_tx_idle_at(w, 0) > wire_tx_idle_at(w, 1) ?
			wire_tx_idle_at(w, 0) : wire_tx_idle_at(w, 1);
	assert_int_equal(wire_advance(w, (idle > last ? idle : last) + 100000, on_byte, l), 0);
}

static void pattern(uint8_t *buf, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
}

/* ---- pacing ---------------------------------------------------------- */

static void bytes_take_ten_bit_times(void **state)
{
	struct wire *w = new_wire(9600, 0, 0, 0, 1);
	struct rxlog *l = new_log();
	uint8_t buf[100];
	uint64_t done;

	pattern(buf, sizeof(buf), 7);
	assert_int_equal(wire_next_event(w), WIRE_NEVER);
	assert_int_equal(wire_transmit(w, 0, buf, sizeof(buf), 0, &done), 0);
	/* 100 bytes * 10 bits / 9600 = 104166.7 us */
	assert_int_equal(done, 104167);
	assert_int_equal(wire_tx_idle_at(w, 0), 104167);
	assert_int_equal(wire_line_time_us(9600, 100), 104167);
	assert_int_equal(wire_next_event(w), 1042);

	/* nothing has arrived before the first byte is complete */
	assert_int_equal(wire_advance(w, 1041, on_byte, l), 0);
	assert_int_equal(wire_advance(w, 1042, on_byte, l), 1);
	run_events(w, l);
	assert_int_equal(l->n[1], 100);
	assert_int_equal(l->n[0], 0);
	assert_memory_equal(l->byte[1], buf, 100);
	for (size_t k = 0; k < 100; k++) {
		uint64_t ns = (k + 1) * 10000000000ull / 9600;
		assert_int_equal(l->at[1][k], (ns + 999) / 1000);
	}
	assert_int_equal(l->at[1][99], done);

	const struct wire_counters *c0 = wire_counters(w, 0), *c1 = wire_counters(w, 1);
	assert_int_equal(c0->sent, 100);
	assert_int_equal(c1->delivered, 100);
	assert_int_equal(c1->corrupted + c1->dropped + c1->lost_break + c1->lost_blind +
			 c1->speed_mismatch + c0->collisions, 0);
	wire_free(w);
	free(l);
}

static void queued_bytes_leave_back_to_back(void **state)
{
	struct wire *w = new_wire(115200, 0, 0, 0, 1);
	struct rxlog *l = new_log();
	static uint8_t buf[20000];
	uint64_t done;

	pattern(buf, sizeof(buf), 3);
	/* the host writes in chunks, faster than the line */
	for (size_t i = 0; i < sizeof(buf); i += 1000) {
		assert_int_equal(wire_transmit(w, 0, buf + i, 1000, i / 100, &done), 0);
		wire_advance(w, i / 100, on_byte, l);
	}
	/* 20000 * 10 / 115200 s = 1736111.1 us */
	assert_int_equal(done, 1736112);
	run_events(w, l);
	assert_int_equal(l->n[1], sizeof(buf));
	assert_memory_equal(l->byte[1], buf, sizeof(buf));
	assert_int_equal(l->at[1][sizeof(buf) - 1], done);

	/* after an idle gap a new run starts when asked */
	assert_int_equal(wire_transmit(w, 0, buf, 1, 5000000, &done), 0);
	assert_int_equal(done, 5000000 + 87);
	wire_free(w);
	free(l);
}

static void result_does_not_depend_on_clock_steps(void **state)
{
	struct rxlog *a = new_log(), *b = new_log();
	uint8_t buf[300];
	pattern(buf, sizeof(buf), 11);

	for (int pass = 0; pass < 2; pass++) {
		struct rxlog *l = pass ? b : a;
		struct wire *w = new_wire(9600, 300, 2e-3, 0.01, 99);
		wire_set_speed(w, 1, 19200, 0);	/* and a mismatch */
		assert_int_equal(wire_transmit(w, 0, buf, 150, 0, NULL), 0);
		assert_int_equal(wire_transmit(w, 1, buf + 150, 150, 20000, NULL), 0);
		if (pass == 0) {
			wire_advance(w, 10000000, on_byte, l);
		} else {
			for (uint64_t t = 0; t <= 10000000; t += 37)
				wire_advance(w, t, on_byte, l);
		}
		wire_free(w);
	}
	assert_int_equal(a->n[0], b->n[0]);
	assert_int_equal(a->n[1], b->n[1]);
	assert_memory_equal(a->byte[0], b->byte[0], a->n[0]);
	assert_memory_equal(a->byte[1], b->byte[1], a->n[1]);
	assert_memory_equal(a->at[1], b->at[1], a->n[1] * sizeof(uint64_t));
	free(a);
	free(b);
}

/* ---- half-duplex -------------------------------------------------------- */

static void overlapping_transmissions_collide(void **state)
{
	struct wire *w = new_wire(9600, 0, 0, 0, 1);
	struct rxlog *l = new_log();
	uint8_t a[50], b[50];

	pattern(a, sizeof(a), 1);
	pattern(b, sizeof(b), 2);
	assert_int_equal(wire_transmit(w, 0, a, 50, 0, NULL), 0);
	wire_advance(w, 20000, on_byte, l);
	size_t before = l->n[1];
	assert_int_equal(before, 19);	/* 19 whole bytes by 20 ms */
	/* side 1 starts talking at 20 ms, over side 0's remaining 31 bytes */
	assert_int_equal(wire_transmit(w, 1, b, 50, 20000, NULL), 0);
	run_events(w, l);

	const struct wire_counters *c0 = wire_counters(w, 0), *c1 = wire_counters(w, 1);
	/* side 0's bytes 19..49 (the one in flight included) overlap side 1's
	 * first ~31 bytes */
	assert_int_equal(c0->collisions, 31);
	assert_true(c1->collisions >= 30 && c1->collisions <= 32);
	/* side 1 heard nothing of side 0 after it started sending */
	assert_int_equal(l->n[1], before);
	assert_memory_equal(l->byte[1], a, before);
	assert_int_equal(c1->lost_blind, 31);
	/* side 0 did not hear the start of side 1's frame, and what it got
	 * after its own transmission ended is not side 1's bytes in order */
	assert_true(l->n[0] < 50);
	assert_true(c0->lost_blind >= 30);
	bool same = l->n[0] <= 50 && memcmp(l->byte[0], b, l->n[0]) == 0;
	assert_false(same);
	wire_free(w);
	free(l);
}

static void turnaround_makes_the_receiver_blind(void **state)
{
	uint8_t a[10], b[10];
	pattern(a, sizeof(a), 5);
	pattern(b, sizeof(b), 6);

	/* ta 1 ms; side 1 answers the instant side 0's last byte is in */
	for (int wait = 0; wait < 2; wait++) {
		struct wire *w = new_wire(9600, 1000, 0, 0, 1);
		struct rxlog *l = new_log();
		uint64_t done;
		assert_int_equal(wire_transmit(w, 0, a, 10, 0, &done), 0);
		wire_advance(w, done, on_byte, l);
		assert_int_equal(l->n[1], 10);
		assert_int_equal(wire_transmit(w, 1, b, 10, done + (wait ? 1000 : 0), NULL), 0);
		run_events(w, l);
		const struct wire_counters *c0 = wire_counters(w, 0);
		if (wait) {
			/* answered after the turnaround: all heard */
			assert_int_equal(l->n[0], 10);
			assert_memory_equal(l->byte[0], b, 10);
			assert_int_equal(c0->lost_blind, 0);
		} else {
			/* the first byte falls in side 0's blind time */
			assert_int_equal(c0->lost_blind, 1);
			assert_true(c0->corrupted > 0 || l->n[0] < 10);
			assert_int_equal(wire_counters(w, 1)->collisions, 0);
		}
		wire_free(w);
		free(l);
	}

	/* with no turnaround time an immediate answer is heard whole */
	struct wire *w = new_wire(9600, 0, 0, 0, 1);
	struct rxlog *l = new_log();
	uint64_t done;
	assert_int_equal(wire_transmit(w, 0, a, 10, 0, &done), 0);
	wire_advance(w, done, on_byte, l);
	assert_int_equal(wire_transmit(w, 1, b, 10, done, NULL), 0);
	run_events(w, l);
	assert_int_equal(l->n[0], 10);
	assert_memory_equal(l->byte[0], b, 10);
	wire_free(w);
	free(l);
}

static void xbofs_resynchronise_after_blind_time(void **state)
{
	/* blind time ends mid-byte; 0xFF padding lets the UART fall into
	 * step before the frame, as min-turnaround padding does on air */
	struct wire *w = new_wire(9600, 1500, 0, 0, 1);
	struct rxlog *l = new_log();
	uint8_t a[4] = { 1, 2, 3, 4 }, b[12];
	uint64_t done;
	memset(b, 0xFF, 6);
	memcpy(b + 6, "\xC0\x5A\x11\xC8\x20\xC1", 6);
	assert_int_equal(wire_transmit(w, 0, a, 4, 0, &done), 0);
	wire_advance(w, done, on_byte, l);
	assert_int_equal(wire_transmit(w, 1, b, 12, done, NULL), 0);
	run_events(w, l);
	assert_true(l->n[0] >= 6);
	assert_memory_equal(l->byte[0] + l->n[0] - 6, b + 6, 6);
	wire_free(w);
	free(l);
}

/* ---- noise, drops, breaks ----------------------------------------------- */

static void bit_errors_match_the_rate(void **state)
{
	struct wire *w = new_wire(115200, 0, 1e-3, 0, 42);
	struct rxlog *l = new_log();
	static uint8_t buf[100000];
	pattern(buf, sizeof(buf), 9);
	assert_int_equal(wire_transmit(w, 0, buf, sizeof(buf), 0, NULL), 0);
	run_events(w, l);
	/* start and stop bits are never hit: every byte still arrives */
	assert_int_equal(l->n[1], sizeof(buf));
	size_t bad = 0, bits = 0;
	for (size_t i = 0; i < sizeof(buf); i++) {
		uint8_t x = l->byte[1][i] ^ buf[i];
		bad += x != 0;
		bits += (size_t)__builtin_popcount(x);
	}
	const struct wire_counters *c = wire_counters(w, 1);
	assert_int_equal(c->corrupted, bad);
	/* 800 000 bits at 1e-3: mean 800, sd ~28; generous bounds */
	assert_true(bits > 650 && bits < 950);
	assert_true(bad > 650 && bad < 950);
	wire_free(w);
	free(l);
}

static void drops_remove_whole_bytes(void **state)
{
	struct wire *w = new_wire(57600, 0, 0, 0.1, 7);
	struct rxlog *l = new_log();
	static uint8_t buf[10000];
	pattern(buf, sizeof(buf), 10);
	assert_int_equal(wire_transmit(w, 0, buf, sizeof(buf), 0, NULL), 0);
	run_events(w, l);
	const struct wire_counters *c = wire_counters(w, 1);
	assert_true(c->dropped > 850 && c->dropped < 1150);
	assert_int_equal(l->n[1] + c->dropped, sizeof(buf));
	assert_int_equal(c->corrupted, 0);
	/* what arrives is the sent stream with holes, in order */
	size_t j = 0;
	for (size_t i = 0; i < l->n[1]; i++) {
		while (j < sizeof(buf) && buf[j] != l->byte[1][i])
			j++;
		assert_true(j < sizeof(buf));
		j++;
	}
	wire_free(w);
	free(l);
}

static void nothing_gets_through_a_break(void **state)
{
	struct wire_break br[] = { { 50000, 20000 }, { 200000, 0 } };
	struct wire_config cfg = {
		.baud = { 9600, 9600 }, .breaks = br, .n_breaks = 2, .seed = 1,
	};
	struct wire *w = wire_new(&cfg);
	assert_non_null(w);
	struct rxlog *l = new_log();
	uint8_t buf[100];
	pattern(buf, sizeof(buf), 12);
	assert_int_equal(wire_transmit(w, 0, buf, 100, 0, NULL), 0);
	run_events(w, l);
	const struct wire_counters *c = wire_counters(w, 1);
	/* bytes 47 (48.96..50.0 ms ends at 50.0: untouched? no: [48.96, 50.00)
	 * ends exactly at the start) to 67 overlap [50, 70) ms */
	assert_int_equal(c->lost_break, 20);
	assert_true(l->n[1] < 100);
	/* everything before the break arrived intact */
	assert_memory_equal(l->byte[1], buf, 48);
	assert_int_equal(c->delivered, l->n[1]);
	wire_free(w);
	free(l);
}

/* ---- speed ---------------------------------------------------------------- */

static void mismatched_speeds_garble(void **state)
{
	uint8_t buf[20];
	pattern(buf, sizeof(buf), 13);

	/* slow sender, fast receiver: more bytes than sent, all wrong */
	struct wire *w = new_wire(9600, 0, 0, 0, 1);
	struct rxlog *l = new_log();
	assert_int_equal(wire_set_speed(w, 1, 115200, 0), 0);
	assert_int_equal(wire_speed(w, 1), 115200);
	assert_int_equal(wire_transmit(w, 0, buf, 20, 0, NULL), 0);
	run_events(w, l);
	assert_true(l->n[1] > 20);
	assert_int_equal(wire_counters(w, 1)->corrupted, l->n[1]);
	assert_int_equal(wire_counters(w, 1)->speed_mismatch, 20);
	wire_free(w);
	free(l);

	/* fast sender, slow receiver: fewer bytes */
	w = new_wire(115200, 0, 0, 0, 1);
	l = new_log();
	assert_int_equal(wire_set_speed(w, 1, 9600, 0), 0);
	assert_int_equal(wire_transmit(w, 0, buf, 20, 0, NULL), 0);
	run_events(w, l);
	assert_true(l->n[1] >= 1 && l->n[1] < 20);
	assert_int_equal(wire_counters(w, 1)->corrupted, l->n[1]);
	wire_free(w);
	free(l);
}

static void a_speed_switch_after_drain_is_clean(void **state)
{
	struct wire *w = new_wire(9600, 0, 0, 0, 1);
	struct rxlog *l = new_log();
	uint8_t buf[64];
	uint64_t done;
	pattern(buf, sizeof(buf), 14);

	assert_int_equal(wire_transmit(w, 0, buf, 32, 0, &done), 0);
	/* a switch before the drain leaves queued bytes at the old rate */
	assert_int_equal(wire_set_speed(w, 0, 115200, 1000), 0);
	wire_advance(w, done, on_byte, l);
	assert_int_equal(wire_set_speed(w, 1, 115200, done), 0);
	assert_int_equal(wire_transmit(w, 0, buf + 32, 32, done, &done), 0);
	run_events(w, l);
	assert_int_equal(l->n[1], 64);
	assert_memory_equal(l->byte[1], buf, 64);
	assert_int_equal(wire_counters(w, 1)->corrupted, 0);
	/* the last 32 bytes took 32 * 10 / 115200 s */
	assert_int_equal(l->at[1][63] - l->at[1][31], wire_line_time_us(115200, 32));
	wire_free(w);
	free(l);
}

/* ---- determinism, API, end to end ------------------------------------ */

static void same_seed_same_output(void **state)
{
	struct wire_break br[] = { { 30000, 5000 } };
	struct rxlog *l[3];
	static uint8_t buf[3000];
	pattern(buf, sizeof(buf), 15);
	for (int i = 0; i < 3; i++) {
		struct wire_config cfg = {
			.baud = { 38400, 38400 }, .turnaround_us = 200, .ber = 1e-2,
			.drop = 0.02, .seed = i == 2 ? 1235 : 1234, .breaks = br, .n_breaks = 1,
		};
		struct wire *w = wire_new(&cfg);
		assert_non_null(w);
		l[i] = new_log();
		assert_int_equal(wire_transmit(w, 0, buf, 2000, 0, NULL), 0);
		assert_int_equal(wire_transmit(w, 1, buf + 2000, 1000, 400000, NULL), 0);
		run_events(w, l[i]);
		wire_free(w);
	}
	assert_int_equal(l[0]->n[1], l[1]->n[1]);
	assert_memory_equal(l[0]->byte[1], l[1]->byte[1], l[0]->n[1]);
	assert_memory_equal(l[0]->byte[0], l[1]->byte[0], l[0]->n[0]);
	assert_memory_equal(l[0]->at[1], l[1]->at[1], l[0]->n[1] * sizeof(uint64_t));
	bool differs = l[0]->n[1] != l[2]->n[1] ||
		       memcmp(l[0]->byte[1], l[2]->byte[1], l[0]->n[1]) != 0;
	assert_true(differs);
	for (int i = 0; i < 3; i++)
		free(l[i]);
}

static void rejects_bad_configuration(void **state)
{
	struct wire_config cfg = { .ber = 1.5 };
	errno = 0;
	assert_null(wire_new(&cfg));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(wire_config_error(&cfg), "bit error rate"));
	cfg.ber = 0;
	cfg.drop = -0.1;
	assert_non_null(strstr(wire_config_error(&cfg), "drop rate"));
	cfg.drop = 0;
	cfg.n_breaks = 1;
	assert_non_null(wire_config_error(&cfg));
	cfg.n_breaks = 0;
	assert_null(wire_config_error(&cfg));

	struct wire *w = wire_new(&cfg);
	assert_non_null(w);
	assert_int_equal(wire_speed(w, 0), 9600);
	assert_int_equal(wire_set_speed(w, 2, 9600, 0), -EINVAL);
	assert_int_equal(wire_set_speed(w, 0, 0, 0), -EINVAL);
	assert_int_equal(wire_transmit(w, -1, (const uint8_t *)"x", 1, 0, NULL), -EINVAL);
	assert_null(wire_counters(w, 3));
	uint64_t done;
	assert_int_equal(wire_transmit(w, 0, NULL, 0, 5, &done), 0);
	assert_int_equal(done, 5);
	wire_free(w);
	wire_free(NULL);
}

static void callback_may_answer_inside_advance(void **state)
{
	struct wire *w = new_wire(115200, 0, 0, 0, 1);
	struct rxlog *l = new_log();
	uint8_t buf[5] = { 1, 2, 3, 4, 5 };
	l->echo = w;
	assert_int_equal(wire_transmit(w, 0, buf, 5, 0, NULL), 0);
	run_events(w, l);
	/* side 1 answers each byte at once, so it is sending (deaf) during
	 * every second byte of side 0: it hears bytes 1, 3 and 5 */
	assert_int_equal(l->n[1], 3);
	assert_int_equal(l->byte[1][0], 1);
	assert_int_equal(l->byte[1][1], 3);
	assert_int_equal(l->byte[1][2], 5);
	assert_int_equal(wire_counters(w, 1)->collisions, 2);
	assert_int_equal(wire_counters(w, 1)->lost_blind, 2);
	/* side 0 hears only the answer sent after it went quiet */
	assert_int_equal(l->n[0], 1);
	assert_int_equal(l->byte[0][0], (uint8_t)~5);
	wire_free(w);
	free(l);
}

struct frames {
	size_t n;
	uint8_t last[64];
	size_t last_len;
	struct sir_decoder *d;
};

static void got_frame(void *ctx, const uint8_t *f, size_t n)
{
	struct frames *fr = ctx;
	fr->n++;
	fr->last_len = n < sizeof(fr->last) ? n : sizeof(fr->last);
	memcpy(fr->last, f, fr->last_len);
}

static void feed_decoder(void *ctx, int side, uint8_t b, uint64_t at)
{
	struct frames *fr = ctx;
	if (side == 1)
		sir_decoder_feed(fr->d, &b, 1);
}

static void sir_frames_cross_the_wire(void **state)
{
	static const uint8_t snrm[] = { 0xFF, 0x93, 0x78, 0x56, 0x34, 0x12, 0xDD, 0xCC,
					0xBB, 0xAA, 0x5A, 0x01, 0x01, 0x3E };
	struct frames fr = { 0 };
	struct sir_decoder_config dc = { .on_frame = got_frame, .ctx = &fr };
	fr.d = sir_decoder_new(&dc);
	assert_non_null(fr.d);
	uint8_t line[128];
	struct wcursor wc;
	wcursor_init(&wc, line, sizeof(line));
	assert_true(sir_encode(&wc, snrm, sizeof(snrm), 10) > 0);

	struct wire *w = new_wire(9600, 0, 0, 0, 1);
	assert_int_equal(wire_transmit(w, 0, line, wcursor_len(&wc), 0, NULL), 0);
	uint64_t t;
	while ((t = wire_next_event(w)) != WIRE_NEVER)
		wire_advance(w, t, feed_decoder, &fr);
	assert_int_equal(fr.n, 1);
	assert_int_equal(fr.last_len, sizeof(snrm));
	assert_memory_equal(fr.last, snrm, sizeof(snrm));

	/* the same frame at the wrong speed: nothing, and media busy */
	assert_int_equal(wire_set_speed(w, 1, 115200, 1000000), 0);
	assert_int_equal(wire_transmit(w, 0, line, wcursor_len(&wc), 1000000, NULL), 0);
	while ((t = wire_next_event(w)) != WIRE_NEVER)
		wire_advance(w, t, feed_decoder, &fr);
	assert_int_equal(fr.n, 1);
	assert_true(sir_decoder_take_media_busy(fr.d));
	wire_free(w);
	sir_decoder_free(fr.d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bytes_take_ten_bit_times),
		cmocka_unit_test(queued_bytes_leave_back_to_back),
		cmocka_unit_test(result_does_not_depend_on_clock_steps),
		cmocka_unit_test(overlapping_transmissions_collide),
		cmocka_unit_test(turnaround_makes_the_receiver_blind),
		cmocka_unit_test(xbofs_resynchronise_after_blind_time),
		cmocka_unit_test(bit_errors_match_the_rate),
		cmocka_unit_test(drops_remove_whole_bytes),
		cmocka_unit_test(nothing_gets_through_a_break),
		cmocka_unit_test(mismatched_speeds_garble),
		cmocka_unit_test(a_speed_switch_after_drain_is_clean),
		cmocka_unit_test(same_seed_same_output),
		cmocka_unit_test(rejects_bad_configuration),
		cmocka_unit_test(callback_may_answer_inside_advance),
		cmocka_unit_test(sir_frames_cross_the_wire),
	};
	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
