/*
 * qos.c: IrLAP QoS parameter lists, bit tables and negotiation.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qos.h"

#include <errno.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const uint32_t baud_table[] = {
	2400, 9600, 19200, 38400, 57600, 115200, 576000, 1152000, 4000000, 16000000,
};
static const uint32_t max_tat_ms_table[] = { 500, 250, 100, 50, 25, 10, 5 };
static const uint32_t data_size_table[] = { 64, 128, 256, 512, 1024, 2048 };
static const uint32_t window_table[] = { 1, 2, 3, 4, 5, 6, 7 };
static const uint32_t add_bofs_table[] = { 48, 24, 12, 5, 3, 2, 1, 0 };
static const uint32_t min_tat_us_table[] = { 10000, 5000, 1000, 500, 100, 50, 10, 0 };
static const uint32_t link_disc_ms_table[] = {
	3000, 8000, 12000, 16000, 20000, 25000, 30000, 40000,
};
static const uint32_t threshold_ms_table[] = {
	0, 3000, 3000, 3000, 3000, 3000, 3000, 3000,
};

/* Line capacity in bytes per turn, by rate and maximum turnaround time
 * (columns follow max_tat_ms_table).  0 = combination not allowed. */
static const struct {
	uint32_t baud;
	uint32_t bytes[7];
} capacity_table[] = {
	{ 2400, { 100, 0, 0, 0, 0, 0, 0 } },
	{ 9600, { 400, 200, 80, 0, 0, 0, 0 } },
	{ 19200, { 800, 400, 160, 0, 0, 0, 0 } },
	{ 38400, { 1600, 800, 320, 0, 0, 0, 0 } },
	{ 57600, { 2360, 1180, 472, 0, 0, 0, 0 } },
	{ 115200, { 4800, 2400, 960, 480, 240, 96, 48 } },
	{ 576000, { 28800, 11520, 5760, 2880, 0, 0, 0 } },
	{ 1152000, { 57600, 28800, 11520, 5760, 0, 0, 0 } },
	{ 4000000, { 200000, 100000, 40000, 20000, 0, 0, 0 } },
};

/*
 * The bits each parameter defines (digest 4.4); the others are reserved
 * and ignored in negotiation: a peer's reserved bit is not a value.
 * Baud: byte 1 bits 0..7, byte 2 bits 0..1 (4 and 16 Mb/s), but 16 Mb/s
 * has no line-capacity entry, so it is never chosen either.  Max TAT:
 * bits 0..6.  Data size: bits 0..5.  Window: bits 0..6.  Additional
 * BOFs, min TAT and link disconnect use all eight.
 */
#define VALID_BAUD 0x01ffu
#define VALID_MAX_TAT 0x7fu
#define VALID_DATA_SIZE 0x3fu
#define VALID_WINDOW 0x7fu
#define VALID_BYTE 0xffu

static uint32_t table_value(const uint32_t *table, size_t n, unsigned bit)
{
	return bit < n ? table[bit] : 0;
}

uint32_t qos_baud_of_bit(unsigned bit)
{
	return table_value(baud_table, COUNT(baud_table), bit);
}

uint32_t qos_max_tat_ms_of_bit(unsigned bit)
{
	return table_value(max_tat_ms_table, COUNT(max_tat_ms_table), bit);
}

uint32_t qos_data_size_of_bit(unsigned bit)
{
	return table_value(data_size_table, COUNT(data_size_table), bit);
}

uint32_t qos_window_of_bit(unsigned bit)
{
	return table_value(window_table, COUNT(window_table), bit);
}

uint32_t qos_add_bofs_of_bit(unsigned bit)
{
	/* Bit 7 means "no additional BOFs"; out of range is not zero BOFs
	 * but an unknown value, so report the most conservative. */
	return bit < COUNT(add_bofs_table) ? add_bofs_table[bit] : add_bofs_table[0];
}

uint32_t qos_min_tat_us_of_bit(unsigned bit)
{
	return bit < COUNT(min_tat_us_table) ? min_tat_us_table[bit] : min_tat_us_table[0];
}

uint32_t qos_link_disc_ms_of_bit(unsigned bit)
{
	return table_value(link_disc_ms_table, COUNT(link_disc_ms_table), bit);
}

uint32_t qos_threshold_ms_of_bit(unsigned bit)
{
	return table_value(threshold_ms_table, COUNT(threshold_ms_table), bit);
}

unsigned qos_msb(uint32_t field)
{
	unsigned bit = 0;

	while (field >>= 1)
		bit++;
	return bit;
}

int qos_baud_bit(uint32_t baud)
{
	for (size_t i = 0; i < COUNT(baud_table); i++)
		if (baud_table[i] == baud)
			return (int)i;
	return -1;
}

uint16_t qos_baud_mask_upto(uint32_t max_baud)
{
	uint16_t mask = 0;

	for (size_t i = 0; i < COUNT(baud_table); i++)
		if (baud_table[i] <= max_baud)
			mask |= (uint16_t)(1u << i);
	return mask;
}

uint8_t qos_min_tat_mask_for(uint32_t need_us)
{
	uint8_t mask = 0;

	for (size_t i = 0; i < COUNT(min_tat_us_table); i++)
		if (min_tat_us_table[i] >= need_us)
			mask |= (uint8_t)(1u << i);
	return mask ? mask : 0x01;
}

/* Bits of the table entries up to max (bit 0 if none: the smallest). */
static uint8_t mask_upto(const uint32_t *table, size_t n, uint32_t max)
{
	uint8_t mask = 0;

	for (size_t i = 0; i < n; i++)
		if (table[i] <= max)
			mask |= (uint8_t)(1u << i);
	return mask ? mask : 0x01;
}

uint8_t qos_data_size_mask_upto(uint32_t max_data)
{
	return mask_upto(data_size_table, COUNT(data_size_table), max_data);
}

uint8_t qos_window_mask_upto(uint32_t max_window)
{
	return mask_upto(window_table, COUNT(window_table), max_window);
}

void qos_defaults(struct qos_bits *q)
{
	q->baud = 0x02;      /* 9600 */
	q->max_tat = 0x01;   /* 500 ms */
	q->data_size = 0x01; /* 64 */
	q->window = 0x01;    /* 1 */
	q->add_bofs = 0x04;  /* 12 */
	q->min_tat = 0x01;   /* 10 ms */
	q->link_disc = 0x01; /* 3 s */
}

static bool put_item(struct wcursor *w, uint8_t pi, uint8_t pv)
{
	return wcursor_u8(w, pi) && wcursor_u8(w, 1) && wcursor_u8(w, pv);
}

bool qos_encode(const struct qos_bits *q, struct wcursor *w)
{
	bool ok;

	if (q->baud > 0xff)
		ok = wcursor_u8(w, QOS_PI_BAUD) && wcursor_u8(w, 2) &&
		     wcursor_u8(w, (uint8_t)(q->baud & 0xff)) &&
		     wcursor_u8(w, (uint8_t)(q->baud >> 8));
	else
		ok = put_item(w, QOS_PI_BAUD, (uint8_t)q->baud);
	return ok && put_item(w, QOS_PI_MAX_TAT, q->max_tat) &&
	       put_item(w, QOS_PI_DATA_SIZE, q->data_size) &&
	       put_item(w, QOS_PI_WINDOW, q->window) &&
	       put_item(w, QOS_PI_ADD_BOFS, q->add_bofs) &&
	       put_item(w, QOS_PI_MIN_TAT, q->min_tat) &&
	       put_item(w, QOS_PI_LINK_DISC, q->link_disc);
}

/* Maps a one-byte PI to where its value goes; NULL for unknown PIs. */
static uint8_t *one_byte_field(struct qos_bits *q, uint8_t pi, unsigned *flag)
{
	switch (pi) {
	case QOS_PI_MAX_TAT: *flag = QOS_HAVE_MAX_TAT; return &q->max_tat;
	case QOS_PI_DATA_SIZE: *flag = QOS_HAVE_DATA_SIZE; return &q->data_size;
	case QOS_PI_WINDOW: *flag = QOS_HAVE_WINDOW; return &q->window;
	case QOS_PI_ADD_BOFS: *flag = QOS_HAVE_ADD_BOFS; return &q->add_bofs;
	case QOS_PI_MIN_TAT: *flag = QOS_HAVE_MIN_TAT; return &q->min_tat;
	case QOS_PI_LINK_DISC: *flag = QOS_HAVE_LINK_DISC; return &q->link_disc;
	default: return NULL;
	}
}

int qos_parse(const uint8_t *list, size_t len, struct qos_bits *out,
	      unsigned *have)
{
	struct qos_bits q;
	struct cursor c, pv;
	unsigned seen = 0;

	qos_defaults(&q);
	cursor_init(&c, list, len);
	while (!cursor_at_end(&c)) {
		uint8_t pi, pl, lo, hi;
		unsigned flag = 0;
		uint8_t *field;

		if (!cursor_u8(&c, &pi) || !cursor_u8(&c, &pl) ||
		    !cursor_sub(&c, pl, &pv))
			return -EINVAL;
		if (pi == QOS_PI_BAUD) {
			if (seen & QOS_HAVE_BAUD || (pl != 1 && pl != 2))
				return -EINVAL;
			cursor_u8(&pv, &lo);
			hi = 0;
			if (pl == 2)
				cursor_u8(&pv, &hi);
			q.baud = (uint16_t)(lo | hi << 8);
			seen |= QOS_HAVE_BAUD;
			continue;
		}
		field = one_byte_field(&q, pi, &flag);
		if (!field)
			continue; /* unknown PI: skipped by its length */
		if (seen & flag || pl != 1)
			return -EINVAL;
		cursor_u8(&pv, field);
		seen |= flag;
	}
	*out = q;
	if (have)
		*have = seen;
	return 0;
}

uint32_t qos_line_capacity(uint32_t baud, uint32_t max_tat_ms)
{
	for (size_t i = 0; i < COUNT(capacity_table); i++) {
		if (capacity_table[i].baud != baud)
			continue;
		for (size_t j = 0; j < COUNT(max_tat_ms_table); j++)
			if (max_tat_ms_table[j] == max_tat_ms)
				return capacity_table[i].bytes[j];
		return 0;
	}
	return 0;
}

uint32_t qos_requested_capacity(uint32_t window, uint32_t data_size,
				uint32_t add_bofs, uint32_t mtt_bytes)
{
	return window * (data_size + 6 + add_bofs) + mtt_bytes;
}

uint32_t qos_mtt_bytes(uint32_t baud, uint32_t mtt_us)
{
	uint64_t bits = (uint64_t)baud * mtt_us;

	return (uint32_t)((bits + 9999999) / 10000000);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* The largest table data size below data (64 at the bottom). */
static uint32_t next_smaller_data_size(uint32_t data)
{
	uint32_t best = data_size_table[0];

	for (size_t i = 0; i < COUNT(data_size_table); i++)
		if (data_size_table[i] < data)
			best = data_size_table[i];
	return best;
}

unsigned qos_unusable(const struct qos_bits *own, const struct qos_bits *peer)
{
	unsigned bad = 0;

	/* Type 0: a value both handle. */
	if (!(own->baud & peer->baud & VALID_BAUD))
		bad |= QOS_HAVE_BAUD;
	if (!(own->link_disc & peer->link_disc & VALID_BYTE))
		bad |= QOS_HAVE_LINK_DISC;
	/* Type 1: each side's own announcement must name a value. */
	if (!(own->max_tat & VALID_MAX_TAT) || !(peer->max_tat & VALID_MAX_TAT))
		bad |= QOS_HAVE_MAX_TAT;
	if (!(own->data_size & VALID_DATA_SIZE) || !(peer->data_size & VALID_DATA_SIZE))
		bad |= QOS_HAVE_DATA_SIZE;
	if (!(own->window & VALID_WINDOW) || !(peer->window & VALID_WINDOW))
		bad |= QOS_HAVE_WINDOW;
	if (!own->add_bofs || !peer->add_bofs)
		bad |= QOS_HAVE_ADD_BOFS;
	if (!own->min_tat || !peer->min_tat)
		bad |= QOS_HAVE_MIN_TAT;
	return bad;
}

const char *qos_param_name(unsigned have_flag)
{
	switch (have_flag) {
	case QOS_HAVE_BAUD: return "baud rate";
	case QOS_HAVE_MAX_TAT: return "maximum turnaround time";
	case QOS_HAVE_DATA_SIZE: return "data size";
	case QOS_HAVE_WINDOW: return "window size";
	case QOS_HAVE_ADD_BOFS: return "additional BOFs";
	case QOS_HAVE_MIN_TAT: return "minimum turnaround time";
	case QOS_HAVE_LINK_DISC: return "link disconnect time";
	default: return "?";
	}
}

int qos_negotiate(const struct qos_bits *own, const struct qos_bits *peer,
		  const struct qos_limits *limits, struct qos_result *out)
{
	uint32_t common_baud = (uint32_t)(own->baud & peer->baud & VALID_BAUD);
	unsigned disc_bit = qos_msb((uint32_t)(own->link_disc & peer->link_disc));
	uint32_t max_data = limits && limits->max_tx_data_size ? limits->max_tx_data_size : 2048;
	uint32_t max_window = limits && limits->max_tx_window ? limits->max_tx_window : 7;
	uint32_t data, overhead;

	/* An empty field falls to bit 0 (qos_msb), the most conservative
	 * value, so that *out is usable even for a refused list. */
	out->baud = common_baud ? qos_baud_of_bit(qos_msb(common_baud)) : 9600;
	out->link_disc_ms = qos_link_disc_ms_of_bit(disc_bit);
	out->threshold_ms = qos_threshold_ms_of_bit(disc_bit);

	out->tx_window = min_u32(qos_window_of_bit(qos_msb(peer->window & VALID_WINDOW)),
				 max_window);
	out->tx_add_bofs = qos_add_bofs_of_bit(qos_msb(peer->add_bofs));
	out->tx_min_tat_us = qos_min_tat_us_of_bit(qos_msb(peer->min_tat));
	out->peer_max_tat_ms = qos_max_tat_ms_of_bit(qos_msb(peer->max_tat & VALID_MAX_TAT));
	out->own_max_tat_ms = qos_max_tat_ms_of_bit(qos_msb(own->max_tat & VALID_MAX_TAT));
	if (out->baud < 115200) {
		out->peer_max_tat_ms = 500;
		out->own_max_tat_ms = 500;
	}
	out->line_capacity = qos_line_capacity(out->baud, out->peer_max_tat_ms);
	if (!out->line_capacity) { /* a pairing the table forbids: be safe */
		out->peer_max_tat_ms = 500;
		out->line_capacity = qos_line_capacity(out->baud, 500);
	}

	/* Largest announced data size within the local cap, then halve
	 * until one frame with its overhead and the turnaround padding
	 * fits a turn (64 is the floor: a turn always carries a frame). */
	data = qos_data_size_of_bit(qos_msb(peer->data_size & VALID_DATA_SIZE));
	data = min_u32(data, max_data);
	if (data < 64)
		data = 64;
	overhead = 6 + out->tx_add_bofs + qos_mtt_bytes(out->baud, out->tx_min_tat_us);
	while (data > 64 && data + overhead > out->line_capacity)
		data = next_smaller_data_size(data);
	out->tx_data_size = data;

	out->rx_data_size = qos_data_size_of_bit(qos_msb(own->data_size & VALID_DATA_SIZE));
	out->rx_window = qos_window_of_bit(qos_msb(own->window & VALID_WINDOW));
	out->rx_min_tat_us = qos_min_tat_us_of_bit(qos_msb(own->min_tat));
	return qos_unusable(own, peer) ? -EPROTO : 0;
}
