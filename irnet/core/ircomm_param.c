/*
 * ircomm_param.c: IrCOMM cooked framing and PI/PL/PV control items.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cursor.h"
#include "ircomm_param.h"

/* One row per PI: its flag, the PL range it takes and its name. */
struct pi_spec {
	uint8_t pi;
	unsigned flag;
	uint8_t pl_min, pl_max;
	const char *name;
};

static const struct pi_spec pi_table[] = {
	{ IRCOMM_PI_SERVICE_TYPE, IRCOMM_P_SERVICE_TYPE, 1, 1, "service type" },
	{ IRCOMM_PI_PORT_TYPE, IRCOMM_P_PORT_TYPE, 1, 1, "port type" },
	{ IRCOMM_PI_PORT_NAME, IRCOMM_P_PORT_NAME, 0, IRCOMM_PORT_NAME_MAX, "port name" },
	{ IRCOMM_PI_DATA_RATE, IRCOMM_P_DATA_RATE, 4, 4, "data rate" },
	{ IRCOMM_PI_DATA_FORMAT, IRCOMM_P_DATA_FORMAT, 1, 1, "data format" },
	{ IRCOMM_PI_FLOW_CONTROL, IRCOMM_P_FLOW_CONTROL, 1, 1, "flow control" },
	{ IRCOMM_PI_XON_XOFF, IRCOMM_P_XON_XOFF, 2, 2, "XON/XOFF" },
	{ IRCOMM_PI_ENQ_ACK, IRCOMM_P_ENQ_ACK, 2, 2, "ENQ/ACK" },
	{ IRCOMM_PI_LINE_STATUS, IRCOMM_P_LINE_STATUS, 1, 1, "line status" },
	{ IRCOMM_PI_BREAK, IRCOMM_P_BREAK, 1, 1, "break" },
	{ IRCOMM_PI_DTE, IRCOMM_P_DTE, 1, 1, "DTE line settings" },
	{ IRCOMM_PI_DCE, IRCOMM_P_DCE, 1, 1, "DCE line settings" },
	{ IRCOMM_PI_POLL, IRCOMM_P_POLL, 0, 0, "poll line settings" },
};
#define PI_COUNT (sizeof(pi_table) / sizeof(pi_table[0]))

static const struct pi_spec *pi_find(uint8_t pi)
{
	for (size_t i = 0; i < PI_COUNT; i++)
		if (pi_table[i].pi == pi)
			return &pi_table[i];
	return NULL;
}

const char *ircomm_pi_name(uint8_t pi)
{
	const struct pi_spec *s = pi_find(pi);
	return s ? s->name : "unknown";
}

char *ircomm_data_format_describe(uint8_t format, char *buf, size_t cap)
{
	static const char parity_letter[] = { 'O', 'E', 'M', 'S' };
	unsigned type_bits = format & 0x30u, reserved = format & 0xc0u;
	char parity = (format & 0x08u) ? parity_letter[type_bits >> 4] : 'N';
	int n;

	if (cap == 0)
		return buf;
	n = snprintf(buf, cap, "%u%c%u", 5u + (format & 0x03u), parity,
		     (format & 0x04u) ? 2u : 1u);
	if (n > 0 && (size_t)n < cap && !(format & 0x08u) && type_bits)
		n += snprintf(buf + n, cap - (size_t)n,
			      " (parity type bits 0x%02x with parity off%s)", type_bits,
			      type_bits == 0x10u ? ", as Linux sends" : "");
	if (n > 0 && (size_t)n < cap && reserved)
		snprintf(buf + n, cap - (size_t)n, " (reserved bits 0x%02x set)", reserved);
	return buf;
}

int ircomm_sdu_split(const uint8_t *buf, size_t len, struct ircomm_sdu *out)
{
	struct cursor c;
	uint8_t clen;

	memset(out, 0, sizeof(*out));
	cursor_init(&c, buf, len);
	if (!cursor_u8(&c, &clen) || !cursor_view(&c, clen, &out->ctrl))
		return -EINVAL;
	out->clen = clen;
	out->len = cursor_remaining(&c);
	if (!cursor_view(&c, out->len, &out->data))
		return -EINVAL;
	return 0;
}

int ircomm_sdu_build(uint8_t *buf, size_t cap, const uint8_t *ctrl, size_t clen,
		     const uint8_t *data, size_t len)
{
	struct wcursor w;

	if (clen > 255)
		return -EINVAL;
	wcursor_init(&w, buf, cap);
	wcursor_u8(&w, (uint8_t)clen);
	if (clen)
		wcursor_bytes(&w, ctrl, clen);
	if (len)
		wcursor_bytes(&w, data, len);
	if (!wcursor_ok(&w) || wcursor_len(&w) > (size_t)INT32_MAX)
		return -ENOSPC;
	return (int)wcursor_len(&w);
}

/* Stores one item whose PL already matched its spec. */
static void take_item(struct ircomm_params *p, const struct pi_spec *s, struct cursor *v)
{
	switch (s->pi) {
	case IRCOMM_PI_SERVICE_TYPE: cursor_u8(v, &p->service_type); break;
	case IRCOMM_PI_PORT_TYPE: cursor_u8(v, &p->port_type); break;
	case IRCOMM_PI_PORT_NAME:
		p->port_name_len = (uint8_t)cursor_remaining(v);
		memset(p->port_name, 0, sizeof(p->port_name));
		cursor_copy(v, p->port_name, p->port_name_len);
		break;
	case IRCOMM_PI_DATA_RATE: cursor_be32(v, &p->data_rate); break;
	case IRCOMM_PI_DATA_FORMAT: cursor_u8(v, &p->data_format); break;
	case IRCOMM_PI_FLOW_CONTROL: cursor_u8(v, &p->flow_control); break;
	case IRCOMM_PI_XON_XOFF: cursor_u8(v, &p->xon); cursor_u8(v, &p->xoff); break;
	case IRCOMM_PI_ENQ_ACK: cursor_u8(v, &p->enq); cursor_u8(v, &p->ack); break;
	case IRCOMM_PI_LINE_STATUS: cursor_u8(v, &p->line_status); break;
	case IRCOMM_PI_BREAK: cursor_u8(v, &p->brk); break;
	case IRCOMM_PI_DTE: cursor_u8(v, &p->dte); break;
	case IRCOMM_PI_DCE: cursor_u8(v, &p->dce); break;
	default: break; /* POLL: no value */
	}
	p->present |= s->flag;
}

int ircomm_params_parse(const uint8_t *buf, size_t len, struct ircomm_params *out)
{
	struct ircomm_params p;
	struct cursor c;
	int ignored = 0;

	memset(&p, 0, sizeof(p));
	cursor_init(&c, buf, len);
	while (!cursor_at_end(&c)) {
		uint8_t pi, pl;
		struct cursor v;
		const struct pi_spec *s;

		if (!cursor_u8(&c, &pi) || !cursor_u8(&c, &pl) || !cursor_sub(&c, pl, &v)) {
			memset(out, 0, sizeof(*out));
			return -EINVAL;
		}
		s = pi_find(pi);
		if (!s || pl < s->pl_min || pl > s->pl_max) {
			ignored++;
			continue;
		}
		take_item(&p, s, &v);
	}
	*out = p;
	return ignored;
}

static void put_item(struct wcursor *w, const struct ircomm_params *p, const struct pi_spec *s)
{
	uint8_t pl = s->pi == IRCOMM_PI_PORT_NAME ? p->port_name_len : s->pl_min;

	wcursor_u8(w, s->pi);
	wcursor_u8(w, pl);
	switch (s->pi) {
	case IRCOMM_PI_SERVICE_TYPE: wcursor_u8(w, p->service_type); break;
	case IRCOMM_PI_PORT_TYPE: wcursor_u8(w, p->port_type); break;
	case IRCOMM_PI_PORT_NAME: wcursor_bytes(w, p->port_name, pl); break;
	case IRCOMM_PI_DATA_RATE: wcursor_be32(w, p->data_rate); break;
	case IRCOMM_PI_DATA_FORMAT: wcursor_u8(w, p->data_format); break;
	case IRCOMM_PI_FLOW_CONTROL: wcursor_u8(w, p->flow_control); break;
	case IRCOMM_PI_XON_XOFF: wcursor_u8(w, p->xon); wcursor_u8(w, p->xoff); break;
	case IRCOMM_PI_ENQ_ACK: wcursor_u8(w, p->enq); wcursor_u8(w, p->ack); break;
	case IRCOMM_PI_LINE_STATUS: wcursor_u8(w, p->line_status); break;
	case IRCOMM_PI_BREAK: wcursor_u8(w, p->brk); break;
	case IRCOMM_PI_DTE: wcursor_u8(w, p->dte); break;
	case IRCOMM_PI_DCE: wcursor_u8(w, p->dce); break;
	default: break;
	}
}

int ircomm_params_build(uint8_t *buf, size_t cap, const struct ircomm_params *p)
{
	struct wcursor w;

	if ((p->present & IRCOMM_P_PORT_NAME) && p->port_name_len > IRCOMM_PORT_NAME_MAX)
		return -EINVAL;
	wcursor_init(&w, buf, cap);
	for (size_t i = 0; i < PI_COUNT; i++)
		if (p->present & pi_table[i].flag)
			put_item(&w, p, &pi_table[i]);
	if (!wcursor_ok(&w) || wcursor_len(&w) > (size_t)INT32_MAX)
		return -ENOSPC;
	return (int)wcursor_len(&w);
}

bool ircomm_params_equal(const struct ircomm_params *a, const struct ircomm_params *b)
{
	unsigned m = a->present;

	if (a->present != b->present)
		return false;
#define SAME(flag, expr) if ((m & (flag)) && !(expr)) return false
	SAME(IRCOMM_P_SERVICE_TYPE, a->service_type == b->service_type);
	SAME(IRCOMM_P_PORT_TYPE, a->port_type == b->port_type);
	SAME(IRCOMM_P_PORT_NAME, a->port_name_len == b->port_name_len &&
		 memcmp(a->port_name, b->port_name, a->port_name_len) == 0);
	SAME(IRCOMM_P_DATA_RATE, a->data_rate == b->data_rate);
	SAME(IRCOMM_P_DATA_FORMAT, a->data_format == b->data_format);
	SAME(IRCOMM_P_FLOW_CONTROL, a->flow_control == b->flow_control);
	SAME(IRCOMM_P_XON_XOFF, a->xon == b->xon && a->xoff == b->xoff);
	SAME(IRCOMM_P_ENQ_ACK, a->enq == b->enq && a->ack == b->ack);
	SAME(IRCOMM_P_LINE_STATUS, a->line_status == b->line_status);
	SAME(IRCOMM_P_BREAK, a->brk == b->brk);
	SAME(IRCOMM_P_DTE, a->dte == b->dte);
	SAME(IRCOMM_P_DCE, a->dce == b->dce);
#undef SAME
	return true;
}

bool ircomm_port_is_serial(uint8_t port_type)
{
	return port_type == IRCOMM_PORT_SERIAL_LINUX || port_type == IRCOMM_PORT_SERIAL;
}

int ircomm_ias_params_parse(const uint8_t *buf, size_t len, struct ircomm_params *out)
{
	if (ircomm_params_parse(buf, len, out) < 0)
		return -EINVAL;
	if (!(out->present & IRCOMM_P_SERVICE_TYPE))
		return -EINVAL;
	if ((out->present & IRCOMM_P_PORT_TYPE) && !ircomm_port_is_serial(out->port_type))
		return -EPROTO;
	return 0;
}

int ircomm_ias_params_build(uint8_t *buf, size_t cap, uint8_t service_types, uint8_t port_type)
{
	struct ircomm_params p = {
		.present = IRCOMM_P_SERVICE_TYPE | IRCOMM_P_PORT_TYPE,
		.service_type = service_types,
		.port_type = port_type,
	};
	return ircomm_params_build(buf, cap, &p);
}

uint8_t ircomm_best_service(uint8_t offered, uint8_t wanted)
{
	uint8_t common = offered & wanted;

	if (common & IRCOMM_SVC_9WIRE)
		return IRCOMM_SVC_9WIRE;
	if (common & IRCOMM_SVC_3WIRE)
		return IRCOMM_SVC_3WIRE;
	return 0;
}
