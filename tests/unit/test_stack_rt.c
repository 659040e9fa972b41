/*
 * test_stack_rt.c: two programs' stacks (stack.h: station + IrLMP + IAS)
 * on pseudo-terminals in real time.  Station a discovers b, asks b's IAS
 * for the LSAP of a class b registered, opens a TinyTP connection there,
 * and both ends send a generated stream that the other checks byte for
 * byte; then a closes and b sees the disconnect.  An IAS query for a
 * class b does not have answers "no such class".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "eloop.h"
#include "ias.h"
#include "stack.h"
#include "stack_pair.h"
#include "ttp.h"
#include "test_support.h"

#define TOTAL 24000u
#define CHUNK 1000u
#define CLASS "IrSpray"

struct end {
	struct stack *stk;
	struct ttp *t;
	bool connected, gone;
	size_t sent, got;
	uint8_t seed;
	bool bad;
};

struct rig {
	struct stack_pair pair;
	struct eloop *loop;
	struct end e[2];
	struct ttp_listener *tl;
	struct eloop_timer tick, limit;
	uint32_t peer;
	int missing_ret;
	int lsap;
	bool closing;
};

/* The byte at offset i of the stream seeded with seed. */
static uint8_t pattern(uint8_t seed, size_t i)
{
	return (uint8_t)((i * 131u) ^ (i >> 9) ^ seed);
}

static void end_write(struct end *e)
{
	uint8_t buf[CHUNK];

	while (e->t && e->connected && e->sent < TOTAL) {
		for (size_t k = 0; k < CHUNK; k++)
			buf[k] = pattern(e->seed, e->sent + k);
		if (ttp_send(e->t, buf, CHUNK) != 0)
			break;
		e->sent += CHUNK;
	}
}

static void end_read(struct end *e)
{
	uint8_t buf[CHUNK * 2];
	long n;

	while (e->t && (n = ttp_recv(e->t, buf, sizeof(buf))) > 0) {
		for (long k = 0; k < n; k++)
			if (buf[k] != pattern((uint8_t)(e->seed ^ 0xff), e->got + (size_t)k))
				e->bad = true;
		e->got += (size_t)n;
	}
}

static void on_ttp(void *ctx, const struct ttp_event *ev)
{
	struct end *e = ctx;

	switch (ev->type) {
	case TTP_EV_CONNECTED:
		e->t = ev->ttp;
		e->connected = true;
		end_write(e);
		break;
	case TTP_EV_READABLE:
		end_read(e);
		break;
	case TTP_EV_WRITABLE:   /* the only refill: the stack's deferred event */
		end_write(e);
		break;
	case TTP_EV_DISCONNECTED:
		e->t = NULL;
		e->connected = false;
		e->gone = true;
		break;
	}
}

static void on_ias(void *ctx, int ret, const struct ias_response *resp)
{
	struct rig *r = ctx;
	struct irlmp *lm = stack_irlmp(r->e[0].stk);
	struct ttp_config tc;

	r->lsap = ret == IAS_SUCCESS ? ias_lsap_sel(resp) : -1;
	if (r->lsap <= 0) {
		eloop_terminate(r->loop);
		return;
	}
	ttp_config_defaults(&tc);
	tc.max_sdu = CHUNK;
	r->e[0].t = ttp_connect(lm, r->peer, (uint8_t)r->lsap, &tc, on_ttp, &r->e[0],
				stack_now(r->e[0].stk));
	assert_non_null(r->e[0].t);
	stack_sync(r->e[0].stk);
}

static void on_missing(void *ctx, int ret, const struct ias_response *resp)
{
	struct rig *r = ctx;

	(void)resp;
	r->missing_ret = ret;
	assert_non_null(ias_query_start(stack_irlmp(r->e[0].stk), r->peer, CLASS,
					"IrDA:TinyTP:LsapSel", on_ias, r,
					stack_now(r->e[0].stk)));
	stack_sync(r->e[0].stk);
}

static void on_event_a(void *ctx, const struct irlap_event *ev)
{
	struct rig *r = ctx;

	if (ev->type != IRLAP_EV_DISCOVERY || r->peer)
		return;
	if (ev->failed || !ev->npeers) {
		stack_lap_request(r->e[0].stk, &(struct irlap_request){
			.type = IRLAP_REQ_DISCOVER, .slots = 6 });
		return;
	}
	r->peer = ev->peers[0].daddr;
	assert_non_null(ias_query_start(stack_irlmp(r->e[0].stk), r->peer, "NoSuchClass",
					"IrDA:TinyTP:LsapSel", on_missing, r,
					stack_now(r->e[0].stk)));
	stack_sync(r->e[0].stk);
}

/* a closes once everything arrived both ways. */
static void on_tick(struct eloop *loop, void *ctx)
{
	struct rig *r = ctx;

	if (!r->closing && r->e[0].got == TOTAL && r->e[1].got == TOTAL && r->e[0].t) {
		r->closing = true;
		ttp_disconnect(r->e[0].t);
		r->e[0].t = NULL;
		stack_sync(r->e[0].stk);
	}
	if (r->closing && r->e[1].gone) {
		eloop_terminate(loop);
		return;
	}
	eloop_timer_arm_in(loop, &r->tick, 10000);
}

static void on_limit(struct eloop *loop, void *ctx)
{
	(void)ctx;
	eloop_terminate(loop);
}

static void ias_and_tinytp_over_ptys(void **state)
{
	struct rig r;
	struct ttp_config tc;
	uint64_t t0;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.missing_ret = -1000;
	stack_pair_open(&r.pair, on_event_a, &r);
	r.loop = r.pair.loop;
	for (int i = 0; i < 2; i++) {
		r.e[i].stk = r.pair.e[i].stk;
		r.e[i].seed = i ? 0xa5 : 0x5a;
	}
	ttp_config_defaults(&tc);
	tc.max_sdu = CHUNK;
	r.tl = ttp_listen(stack_irlmp(r.e[1].stk), IRLMP_LSAP_ANY, &tc, on_ttp, &r.e[1]);
	assert_non_null(r.tl);
	assert_true(stack_register_lsap(r.e[1].stk, CLASS, NULL, ttp_listener_lsap(r.tl)) >= 0);
	eloop_timer_init(&r.tick, on_tick, &r);
	eloop_timer_arm_in(r.loop, &r.tick, 10000);
	eloop_timer_init(&r.limit, on_limit, &r);
	eloop_timer_arm_in(r.loop, &r.limit, test_ceiling_us(20000000));
	t0 = eloop_now_us();
	stack_pair_discover(&r.pair);
	assert_int_equal(eloop_run(r.loop), 0);
	print_message("IAS + TinyTP %u bytes each way: %llu ms\n", TOTAL,
		      (unsigned long long)((eloop_now_us() - t0) / 1000));
	assert_int_equal(r.missing_ret, IAS_NO_SUCH_CLASS);
	assert_int_equal(r.lsap, ttp_listener_lsap(r.tl));
	assert_int_equal(r.e[0].got, TOTAL);
	assert_int_equal(r.e[1].got, TOTAL);
	assert_false(r.e[0].bad);
	assert_false(r.e[1].bad);
	assert_true(r.e[1].gone);
	eloop_timer_cancel(r.loop, &r.tick);
	eloop_timer_cancel(r.loop, &r.limit);
	ttp_listener_free(r.tl);
	stack_pair_close(&r.pair);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ias_and_tinytp_over_ptys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
