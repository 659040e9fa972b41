/*
 * stack.c: station + IrLMP + IAS server glue (see stack.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "stack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stack {
	struct eloop *loop;
	struct station *st;
	struct irlmp *lm;
	struct ias_db *db;
	struct ias_server *ias;
	struct eloop_timer lmp_timer;
	void (*event)(void *ctx, const struct irlap_event *ev);
	void (*failed)(void *ctx, int err, const char *msg);
	void *ctx, *failed_ctx;
};

void stack_sync(struct stack *s)
{
	uint64_t d = irlmp_deadline(s->lm);

	if (d == UINT64_MAX)
		eloop_timer_cancel(s->loop, &s->lmp_timer);
	else
		eloop_timer_arm_at(s->loop, &s->lmp_timer, d);
}

uint64_t stack_now(const struct stack *s)
{
	(void)s;
	return eloop_now_us();
}

static void on_lmp_timer(struct eloop *loop, void *ctx)
{
	struct stack *s = ctx;

	(void)loop;
	irlmp_tick(s->lm, eloop_now_us());
	stack_sync(s);
}

static void on_event(void *ctx, const struct irlap_event *ev)
{
	struct stack *s = ctx;

	irlmp_lap_event(s->lm, ev, eloop_now_us());
	stack_sync(s);
	if (s->event)
		s->event(s->ctx, ev);
}

static size_t on_pull(void *ctx, uint8_t *buf, size_t max)
{
	struct stack *s = ctx;
	size_t n = irlmp_pull(s->lm, buf, max);

	/* A user may have asked for a deferred call (irlmp_defer). */
	stack_sync(s);
	return n;
}

static void on_failed(void *ctx, int err, const char *msg)
{
	struct stack *s = ctx;

	if (s->failed)
		s->failed(s->failed_ctx, err, msg);
}

static int lap_request(void *ctx, const struct irlap_request *req)
{
	struct stack *s = ctx;

	if (!s->st)
		return -ENOTCONN;
	return station_request(s->st, req);
}

static const struct irlmp_ops lmp_ops = { lap_request };

int stack_new(struct eloop *loop, struct port *port, const struct stack_config *cfg,
	      struct stack **out, char *err, size_t errlen)
{
	struct stack *s = calloc(1, sizeof(*s));
	struct station_config sc = cfg->station;
	char name[sizeof(cfg->station.lap.info.nickname) + 1];
	size_t nlen = cfg->station.lap.info.nickname_len;
	int rc;

	if (!s) {
		snprintf(err, errlen, "stack: out of memory");
		return -ENOMEM;
	}
	s->loop = loop;
	s->event = cfg->event;
	s->failed = cfg->failed;
	s->ctx = cfg->ctx;
	s->failed_ctx = cfg->failed_ctx ? cfg->failed_ctx : cfg->ctx;
	eloop_timer_init(&s->lmp_timer, on_lmp_timer, s);
	if (nlen >= sizeof(name))
		nlen = sizeof(name) - 1;
	memcpy(name, cfg->station.lap.info.nickname, nlen);
	name[nlen] = '\0';
	s->lm = irlmp_new(&cfg->lmp, &lmp_ops, s);
	s->db = s->lm ? ias_db_new(cfg->ias_name ? cfg->ias_name : name) : NULL;
	s->ias = s->db ? ias_server_new(s->lm, s->db, cfg->lmp.log) : NULL;
	if (!s->ias) {
		snprintf(err, errlen, "stack: cannot build IrLMP and the IAS server");
		stack_free(s);
		return -ENOMEM;
	}
	sc.app = (struct station_app){ .event = on_event, .pull = on_pull,
				       .failed = on_failed, .ctx = s };
	rc = cfg->framed ? station_new_framed(loop, cfg->framed, &sc, &s->st, err, errlen) :
			   station_new(loop, port, &sc, &s->st, err, errlen);
	if (rc < 0) {
		stack_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void stack_free(struct stack *s)
{
	if (!s)
		return;
	/* IrLMP first: its closing requests still reach the station. */
	ias_server_free(s->ias);
	irlmp_free(s->lm);
	ias_db_free(s->db);
	eloop_timer_cancel(s->loop, &s->lmp_timer);
	station_free(s->st);
	free(s);
}

int stack_lap_request(struct stack *s, const struct irlap_request *req)
{
	return station_request(s->st, req);
}

struct irlmp *stack_irlmp(struct stack *s)
{
	return s->lm;
}

struct ias_db *stack_ias(struct stack *s)
{
	return s->db;
}

struct station *stack_station(struct stack *s)
{
	return s->st;
}

int stack_register_lsap(struct stack *s, const char *class_name, const char *attr,
			uint8_t lsap)
{
	struct ias_value v = { .type = IAS_INTEGER, .integer = lsap };
	int id = ias_db_add_object(s->db, class_name);
	int rc;

	if (id < 0)
		return id;
	rc = ias_db_add_attr(s->db, id, attr ? attr : "IrDA:TinyTP:LsapSel", &v);
	if (rc < 0) {
		ias_db_remove_object(s->db, id);
		return rc;
	}
	return id;
}
