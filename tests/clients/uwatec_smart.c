/*
 * uwatec_smart.c: the Uwatec Smart protocol's device side and the
 * Galileo's memory image (uwatec_smart.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "uwatec_smart.h"

#include <errno.h>
#include <string.h>

static const uint8_t dive_marker[4] = { 0xa5, 0xa5, 0x5a, 0x5a };

const char *uwatec_state_name(enum uwatec_state st)
{
	switch (st) {
	case UWATEC_WAIT_HELLO:
		return "WAIT_HELLO";
	case UWATEC_WAIT_SPEED:
		return "WAIT_SPEED";
	case UWATEC_READY:
		return "READY";
	}
	return "?";
}

void uwatec_session_init(struct uwatec_session *s, const struct uwatec_device *dev,
			 const struct logger *log)
{
	*s = (struct uwatec_session){ .state = UWATEC_WAIT_HELLO, .dev = dev, .log = log };
}

static void set_state(struct uwatec_session *s, enum uwatec_state to, const char *event)
{
	log_msg(s->log, LOG_LEVEL_DEBUG, "%s --%s--> %s", uwatec_state_name(s->state), event,
		uwatec_state_name(to));
	s->state = to;
}

/* The length of the command cmd starts (with cmd), 0 for none the state
 * takes. */
static size_t command_len(enum uwatec_state st, uint8_t cmd)
{
	switch (st) {
	case UWATEC_WAIT_HELLO:
		return cmd == UWATEC_CMD_HELLO ? 1 : 0;
	case UWATEC_WAIT_SPEED:
		return cmd == UWATEC_CMD_SPEED ? 5 : 0;
	case UWATEC_READY:
		switch (cmd) {
		case UWATEC_CMD_MODEL:
		case UWATEC_CMD_HARDWARE:
		case UWATEC_CMD_SOFTWARE:
		case UWATEC_CMD_SERIAL:
		case UWATEC_CMD_CLOCK:
			return 1;
		case UWATEC_CMD_SIZE:
		case UWATEC_CMD_DATA:
			return 9;
		default:
			return 0;
		}
	}
	return 0;
}

static void reply_u8(struct uwatec_reply *r, uint8_t v)
{
	r->head[0] = v;
	r->head_len = 1;
}

static void reply_le32(struct uwatec_reply *r, uint32_t v)
{
	struct wcursor w;
	wcursor_init(&w, r->head, sizeof(r->head));
	wcursor_le32(&w, v);
	r->head_len = wcursor_len(&w);
}

/* The dives newer than the command's timestamp: SIZE answers their size,
 * DATA that size + 4 and the dives. */
static int answer_memory(struct uwatec_session *s, const uint8_t *cmd, struct uwatec_reply *r)
{
	struct cursor c;
	uint32_t since, size;
	size_t off;

	cursor_init(&c, cmd + 1, UWATEC_CMD_MAX - 1);
	cursor_le32(&c, &since);
	int e = uwatec_memory_since(s->dev->memory, s->dev->memory_len, since, &off);
	if (e < 0) {
		log_msg(s->log, LOG_LEVEL_ERROR, "the memory image does not walk");
		return e;
	}
	size = (uint32_t)(s->dev->memory_len - off);
	log_msg(s->log, LOG_LEVEL_DEBUG, "%s since %u: %u bytes",
		cmd[0] == UWATEC_CMD_SIZE ? "size" : "data", (unsigned)since, (unsigned)size);
	if (cmd[0] == UWATEC_CMD_SIZE) {
		reply_le32(r, size);
		return 1;
	}
	/* nothing at all when there is nothing (the host asks SIZE first) */
	reply_le32(r, size ? size + 4 : 0);
	r->body = s->dev->memory + off;
	r->body_len = size;
	return 1;
}

static int answer(struct uwatec_session *s, const uint8_t *cmd, struct uwatec_reply *r)
{
	const struct uwatec_device *d = s->dev;

	*r = (struct uwatec_reply){ .cmd = cmd[0] };
	switch (cmd[0]) {
	case UWATEC_CMD_HELLO:
		set_state(s, UWATEC_WAIT_SPEED, "hello");
		reply_u8(r, UWATEC_OK);
		return 1;
	case UWATEC_CMD_SPEED:
		set_state(s, UWATEC_READY, "speed");
		reply_u8(r, UWATEC_OK);
		return 1;
	case UWATEC_CMD_MODEL:
		reply_u8(r, d->model);
		return 1;
	case UWATEC_CMD_HARDWARE:
		reply_u8(r, d->hardware);
		return 1;
	case UWATEC_CMD_SOFTWARE:
		reply_u8(r, d->software);
		return 1;
	case UWATEC_CMD_SERIAL:
		reply_le32(r, d->serial);
		return 1;
	case UWATEC_CMD_CLOCK:
		reply_le32(r, d->clock);
		return 1;
	default:
		return answer_memory(s, cmd, r);
	}
}

int uwatec_session_input(struct uwatec_session *s, struct cursor *in, struct uwatec_reply *r)
{
	uint8_t b;

	while (cursor_u8(in, &b)) {
		if (s->npending == 0 && command_len(s->state, b) == 0) {
			log_msg(s->log, LOG_LEVEL_WARNING, "command 0x%02x in %s: not answered", b,
				uwatec_state_name(s->state));
			return -EPROTO;
		}
		s->pending[s->npending++] = b;
		if (s->npending == command_len(s->state, s->pending[0])) {
			s->npending = 0;
			return answer(s, s->pending, r);
		}
	}
	return 0;
}

/* ---- the memory image ----------------------------------------------- */

uint32_t uwatec_timestamp(int64_t unix_time)
{
	return (uint32_t)((unix_time - UWATEC_EPOCH) * 2);
}

/* Depth in samples' units (2 cm) at sample i of n: down at most 60 units
 * a sample, up at most 30, the bottom at max. */
static unsigned depth_at(unsigned i, unsigned n, unsigned max)
{
	unsigned down = 60 * i, up = 30 * (n - 1 - i);
	unsigned v = down < up ? down : up;
	return v < max ? v : max;
}

static unsigned sample_count(const struct uwatec_dive *d)
{
	return (unsigned)d->minutes * 60 / UWATEC_SAMPLE_S;
}

size_t uwatec_galileo_dive_size(const struct uwatec_dive *d)
{
	unsigned n = sample_count(d), max = d->max_depth_cm / 2;

	if (d->start < UWATEC_EPOCH || n < 2 || d->max_depth_cm % 2 ||
	    (d->start - UWATEC_EPOCH) * 2 > UINT32_MAX)
		return 0;
	/* the bottom must be reached: some sample at max on both slopes */
	if ((max + 59) / 60 + (max + 29) / 30 > n - 1)
		return 0;
	/* the header, an absolute temperature and depth, then one byte each */
	return UWATEC_GALILEO_HEADER + 3 + 3 + (n - 1);
}

static void put_le16_at(uint8_t *h, size_t at, uint16_t v)
{
	struct wcursor w;
	wcursor_init(&w, h + at, 2);
	wcursor_le16(&w, v);
}

bool uwatec_galileo_write_dive(struct wcursor *w, const struct uwatec_dive *d)
{
	size_t size = uwatec_galileo_dive_size(d);
	uint8_t h[UWATEC_GALILEO_HEADER] = { 0 };
	struct wcursor hw;
	unsigned n = sample_count(d), max = d->max_depth_cm / 2;

	if (size == 0 || wcursor_room(w) < size) {
		w->failed = true;
		return false;
	}
	wcursor_init(&hw, h, sizeof(h));
	wcursor_bytes(&hw, dive_marker, sizeof(dive_marker));
	wcursor_le32(&hw, (uint32_t)size);
	wcursor_le32(&hw, uwatec_timestamp(d->start));
	h[16] = (uint8_t)d->tz_quarters;
	/* fresh water (no salinity bit in the settings at 92): cm */
	put_le16_at(h, 22, d->max_depth_cm);
	put_le16_at(h, 26, d->minutes);
	put_le16_at(h, 28, (uint16_t)d->temp_dc);   /* maximum */
	put_le16_at(h, 30, (uint16_t)d->temp_dc);   /* minimum */
	put_le16_at(h, 32, (uint16_t)d->temp_dc);   /* at the surface */
	put_le16_at(h, 44, 21);                     /* first gas: air */
	wcursor_bytes(w, h, sizeof(h));

	/* samples: temperature (0.4 degrees) and depth, absolute, first */
	uint16_t t = (uint16_t)(d->temp_dc / 4);
	wcursor_u8(w, 0xf3);
	wcursor_be16(w, t);
	wcursor_u8(w, 0xf1);
	wcursor_be16(w, 0);
	for (unsigned i = 1; i < n; i++) {
		int delta = (int)depth_at(i, n, max) - (int)depth_at(i - 1, n, max);
		wcursor_u8(w, (uint8_t)(delta & 0x7f));    /* 0ddd dddd: a delta */
	}
	return wcursor_ok(w);
}

int uwatec_memory_since(const uint8_t *mem, size_t len, uint32_t since, size_t *offset)
{
	struct cursor c;

	cursor_init(&c, mem, len);
	*offset = len;
	while (!cursor_at_end(&c)) {
		size_t at = c.pos;
		uint8_t marker[4];
		uint32_t size, ts;
		if (!cursor_copy(&c, marker, sizeof(marker)) || memcmp(marker, dive_marker, 4) ||
		    !cursor_le32(&c, &size) || !cursor_le32(&c, &ts) || size < 12 ||
		    !cursor_skip(&c, size - 12))
			return -EBADMSG;
		if (ts > since && *offset == len)
			*offset = at;
	}
	return 0;
}
