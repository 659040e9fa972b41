/*
 * mockport.c: the recording port.  See mockport.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mockport.h"

#include "array.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RX_MAX 4096

struct mockport {
	struct port port;   /* first */
	struct mock_call *calls;
	size_t ncalls, cap;
	uint64_t now;
	uint64_t wire_busy_until;   /* when the last written byte has left */
	uint32_t drain_margin;
	bool dtr, rts;
	bool echo;
	uint8_t answer[MOCK_CALL_BYTES];
	size_t answer_len;
	bool answer_pending;
	int fail[MOCK_OP_COUNT];
	unsigned garbled;
	uint8_t rx[RX_MAX];
	size_t rx_len;
};

static struct mockport *mp_of(struct port *p)
{
	return (struct mockport *)p;
}

static const struct mockport *cmp_of(const struct port *p)
{
	return (const struct mockport *)p;
}

const char *mock_op_name(enum mock_op op)
{
	static const char *const names[MOCK_OP_COUNT] = {
		[MOCK_WRITE] = "write", [MOCK_READ] = "read",
		[MOCK_SET_SPEED] = "set_speed", [MOCK_SET_LINES] = "set_lines",
		[MOCK_GET_LINES] = "get_lines", [MOCK_DRAIN] = "drain",
		[MOCK_FLUSH_INPUT] = "flush_input",
	};
	return (unsigned)op < MOCK_OP_COUNT ? names[op] : "?";
}

/* Appends a call to the record with the current state filled in; NULL
 * if out of memory. */
static struct mock_call *record(struct mockport *m, enum mock_op op)
{
	struct mock_call *grown = array_grow(m->calls, &m->cap, m->ncalls, sizeof(*grown), 32);
	if (!grown)
		return NULL;
	m->calls = grown;
	struct mock_call *c = &m->calls[m->ncalls++];
	memset(c, 0, sizeof(*c));
	c->op = op;
	c->t_us = m->now;
	c->baud = m->port.baud;
	c->dtr = m->dtr;
	c->rts = m->rts;
	return c;
}

static void keep_bytes(struct mock_call *c, const void *data, size_t len)
{
	c->len = len;
	memcpy(c->data, data, len < MOCK_CALL_BYTES ? len : MOCK_CALL_BYTES);
}

/* Starts a call: records it, or fails it if a failure was injected.
 * Returns the record (or NULL with *r set to -errno). */
static struct mock_call *begin(struct mockport *m, enum mock_op op, int *r)
{
	struct mock_call *c = record(m, op);
	if (!c) {
		*r = port_fail(&m->port, ENOMEM, "%s: out of memory recording",
			       mock_op_name(op));
		return NULL;
	}
	if (m->fail[op]) {
		int err = m->fail[op];
		m->fail[op] = 0;
		c->result = port_fail(&m->port, err, "%s: injected failure: %s",
				      mock_op_name(op), strerror(err));
		*r = c->result;
		return NULL;
	}
	return c;
}

static uint64_t bytes_time_us(size_t n, uint32_t baud)
{
	/* 10 bit-times per byte (8N1), rounded up */
	return ((uint64_t)n * 10u * 1000000u + baud - 1) / baud;
}

static ssize_t mp_write(struct port *p, const void *buf, size_t len)
{
	struct mockport *m = mp_of(p);
	int r;
	struct mock_call *c = begin(m, MOCK_WRITE, &r);
	if (!c)
		return r;
	keep_bytes(c, buf, len);
	uint64_t start = m->wire_busy_until > m->now ? m->wire_busy_until : m->now;
	m->wire_busy_until = start + bytes_time_us(len, p->baud);
	if (m->answer_pending) {
		m->answer_pending = false;
		mockport_feed(p, m->answer, m->answer_len);
	} else if (m->echo) {
		mockport_feed(p, buf, len);
	}
	c->result = (int)len;
	return (ssize_t)len;
}

static ssize_t mp_read(struct port *p, void *buf, size_t len,
		       uint32_t timeout_us)
{
	struct mockport *m = mp_of(p);
	int r;
	struct mock_call *c = begin(m, MOCK_READ, &r);
	if (!c)
		return r;
	size_t n = len < m->rx_len ? len : m->rx_len;
	if (n == 0) {
		m->now += timeout_us;   /* nothing ever comes: a full timeout */
		return 0;
	}
	memcpy(buf, m->rx, n);
	memmove(m->rx, m->rx + n, m->rx_len - n);
	m->rx_len -= n;
	keep_bytes(c, buf, n);
	c->result = (int)n;
	return (ssize_t)n;
}

static int mp_set_speed(struct port *p, uint32_t baud)
{
	struct mockport *m = mp_of(p);
	int r;
	struct mock_call *c = begin(m, MOCK_SET_SPEED, &r);
	if (!c)
		return r;
	c->baud = baud;
	if (!serial_rate_supported(baud))
		return c->result = port_fail(p, EINVAL,
					     "%u baud is not a supported rate", baud);
	if (m->wire_busy_until > m->now)
		m->garbled++;
	p->baud = baud;
	return 0;
}

static int mp_set_lines(struct port *p, bool dtr, bool rts)
{
	struct mockport *m = mp_of(p);
	int r;
	struct mock_call *c = begin(m, MOCK_SET_LINES, &r);
	if (!c)
		return r;
	c->dtr = m->dtr = dtr;
	c->rts = m->rts = rts;
	return 0;
}

static int mp_get_lines(struct port *p, unsigned *lines)
{
	struct mockport *m = mp_of(p);
	int r;
	if (!begin(m, MOCK_GET_LINES, &r))
		return r;
	*lines = (m->dtr ? PORT_LINE_DTR : 0) | (m->rts ? PORT_LINE_RTS : 0);
	return 0;
}

static int mp_drain(struct port *p)
{
	struct mockport *m = mp_of(p);
	int r;
	if (!begin(m, MOCK_DRAIN, &r))
		return r;
	if (m->wire_busy_until > m->now)
		m->now = m->wire_busy_until;
	m->now += m->drain_margin;
	return 0;
}

static int mp_flush_input(struct port *p)
{
	struct mockport *m = mp_of(p);
	int r;
	if (!begin(m, MOCK_FLUSH_INPUT, &r))
		return r;
	m->rx_len = 0;
	return 0;
}

static void mp_sleep_us(struct port *p, uint32_t us)
{
	mp_of(p)->now += us;
}

static uint64_t mp_now_us(struct port *p)
{
	return mp_of(p)->now;
}

static void mp_close(struct port *p)
{
	struct mockport *m = mp_of(p);
	free(m->calls);
	free(m);
}

static const struct port_ops mock_ops = {
	.write = mp_write,
	.read = mp_read,
	.set_speed = mp_set_speed,
	.set_lines = mp_set_lines,
	.get_lines = mp_get_lines,
	.drain = mp_drain,
	.flush_input = mp_flush_input,
	.sleep_us = mp_sleep_us,
	.now_us = mp_now_us,
	.close = mp_close,
};

struct port *mockport_new(const char *name, const struct logger *log)
{
	struct mockport *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->port.ops = &mock_ops;
	m->port.log = log;
	m->port.baud = 9600;
	m->dtr = m->rts = true;
	snprintf(m->port.name, sizeof(m->port.name), "%s", name ? name : "mock");
	return &m->port;
}

size_t mockport_ncalls(const struct port *p)
{
	return cmp_of(p)->ncalls;
}

const struct mock_call *mockport_call(const struct port *p, size_t i)
{
	return i < cmp_of(p)->ncalls ? &cmp_of(p)->calls[i] : NULL;
}

void mockport_clear(struct port *p)
{
	mp_of(p)->ncalls = 0;
}

uint64_t mockport_now(const struct port *p)
{
	return cmp_of(p)->now;
}

void mockport_set_drain_margin(struct port *p, uint32_t us)
{
	mp_of(p)->drain_margin = us;
}

int mockport_feed(struct port *p, const void *data, size_t len)
{
	struct mockport *m = mp_of(p);
	if (len > RX_MAX - m->rx_len)
		return -ENOBUFS;
	memcpy(m->rx + m->rx_len, data, len);
	m->rx_len += len;
	return 0;
}

void mockport_set_echo(struct port *p, bool echo)
{
	mp_of(p)->echo = echo;
}

int mockport_answer_next_write(struct port *p, const void *data, size_t len)
{
	struct mockport *m = mp_of(p);
	if (len > sizeof(m->answer))
		return -EINVAL;
	memcpy(m->answer, data, len);
	m->answer_len = len;
	m->answer_pending = true;
	return 0;
}

void mockport_fail_next(struct port *p, enum mock_op op, int err)
{
	if ((unsigned)op < MOCK_OP_COUNT)
		mp_of(p)->fail[op] = err;
}

unsigned mockport_garbled_switches(const struct port *p)
{
	return cmp_of(p)->garbled;
}
