/*
 * qos.h: IrLAP quality-of-service parameters and their negotiation.
 *
 * Owns: the PI/PL/PV parameter list carried in SNRM and UA I-fields
 * (encode, and a strict parser of outside data), the meaning of every
 * bit of the seven IrLAP parameters, the negotiation rules (type 0
 * parameters: the highest value common to both stations; type 1: each
 * station's announcement governs the traffic sent *to* it), and the
 * line-capacity rule that bounds what one station may send in one turn.
 *
 * Does not own: when negotiation happens or what the station does with
 * the result (irlap.c), nor how bytes reach the line (sir, wire).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_QOS_H
#define IRNET_QOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"

/* Parameter identifiers (PI).  Bit 7 set = type 1 (per station). */
enum qos_pi {
	QOS_PI_BAUD = 0x01,
	QOS_PI_MAX_TAT = 0x82,
	QOS_PI_DATA_SIZE = 0x83,
	QOS_PI_WINDOW = 0x84,
	QOS_PI_ADD_BOFS = 0x85,
	QOS_PI_MIN_TAT = 0x86,
	QOS_PI_LINK_DISC = 0x08,
};

/*
 * What one station announces: one bit field per parameter, every value
 * it can handle set (bit n = the n-th entry of that parameter's table).
 */
struct qos_bits {
	uint16_t baud;      /* bit 0 2400 ... bit 7 1152000, bit 8 4M, bit 9 16M */
	uint8_t max_tat;    /* bit 0 500 ms ... bit 6 5 ms */
	uint8_t data_size;  /* bit 0 64 ... bit 5 2048 */
	uint8_t window;     /* bit 0 1 ... bit 6 7 */
	uint8_t add_bofs;   /* bit 0 48 ... bit 7 0 */
	uint8_t min_tat;    /* bit 0 10 ms ... bit 7 0 */
	uint8_t link_disc;  /* bit 0 3 s ... bit 7 40 s */
};

/* Which parameters a parsed list actually carried. */
enum {
	QOS_HAVE_BAUD = 1u << 0,
	QOS_HAVE_MAX_TAT = 1u << 1,
	QOS_HAVE_DATA_SIZE = 1u << 2,
	QOS_HAVE_WINDOW = 1u << 3,
	QOS_HAVE_ADD_BOFS = 1u << 4,
	QOS_HAVE_MIN_TAT = 1u << 5,
	QOS_HAVE_LINK_DISC = 1u << 6,
};

/* The values in use before and without negotiation (NDM, contention):
 * 9600 baud, 500 ms, 64 bytes, window 1, 12 additional BOFs (what Linux
 * sends in NDM), 10 ms minimum turnaround (the safe value when unsure),
 * 3 s link disconnect. */
void qos_defaults(struct qos_bits *q);

/*
 * Appends the parameter list (Linux order 01 82 83 84 85 86 08; the baud
 * field takes two bytes only when it needs them).  Returns false if the
 * writer ran out of room.
 */
bool qos_encode(const struct qos_bits *q, struct wcursor *w);

/*
 * Parses a parameter list.  Parameters missing from the list keep the
 * qos_defaults() value; unknown PIs are skipped by their length.  A list
 * is rejected (-EINVAL, *out untouched) when an item is truncated, when a
 * known parameter has a length it cannot have (baud 1 or 2 bytes, the
 * others 1 byte), or when a known parameter appears twice.  *have (may be
 * NULL) receives the QOS_HAVE_* mask.
 */
int qos_parse(const uint8_t *list, size_t len, struct qos_bits *out,
	      unsigned *have);

/* Decoded values of the bit tables.  Each takes a bit index; an index
 * outside the table yields 0. */
uint32_t qos_baud_of_bit(unsigned bit);
uint32_t qos_max_tat_ms_of_bit(unsigned bit);
uint32_t qos_data_size_of_bit(unsigned bit);
uint32_t qos_window_of_bit(unsigned bit);
uint32_t qos_add_bofs_of_bit(unsigned bit);
uint32_t qos_min_tat_us_of_bit(unsigned bit);
uint32_t qos_link_disc_ms_of_bit(unsigned bit);
uint32_t qos_threshold_ms_of_bit(unsigned bit);

/* Index of the most significant set bit; 0 for an empty field (the most
 * conservative value, as for a buggy peer that announces nothing). */
unsigned qos_msb(uint32_t field);

/* The bit field with every value the station can handle for a given
 * need: all baud rates up to max_baud; min turnaround times of at least
 * need_us; data sizes up to max_data; windows up to max_window. */
uint16_t qos_baud_mask_upto(uint32_t max_baud);
uint8_t qos_min_tat_mask_for(uint32_t need_us);
uint8_t qos_data_size_mask_upto(uint32_t max_data);
uint8_t qos_window_mask_upto(uint32_t max_window);
/* The bit for exactly this value, or -1 if the table has no such entry. */
int qos_baud_bit(uint32_t baud);

/*
 * Line capacity: the most bytes a station may send in one turn at this
 * rate when its peer's maximum turnaround time is max_tat_ms (the IrLAP
 * table; 0 where the table forbids the combination).
 */
uint32_t qos_line_capacity(uint32_t baud, uint32_t max_tat_ms);

/* The turn a window of whole frames asks for:
 * window x (data_size + 6 + add_bofs) + min-turnaround padding bytes. */
uint32_t qos_requested_capacity(uint32_t window, uint32_t data_size,
				uint32_t add_bofs, uint32_t mtt_bytes);

/* Padding bytes that produce mtt_us of silence at baud (10 bit-times per
 * byte), rounded up as the WCE table does. */
uint32_t qos_mtt_bytes(uint32_t baud, uint32_t mtt_us);

/* What a station uses after negotiation. */
struct qos_result {
	uint32_t baud;            /* both directions (type 0) */
	uint32_t link_disc_ms;    /* type 0: no-response time before giving up */
	uint32_t threshold_ms;    /* type 0: no-response time before warning */
	/* Traffic we send: governed by the peer's announcement. */
	uint32_t tx_data_size;    /* after the local cap and the line-capacity rule */
	uint32_t tx_window;       /* after the local cap */
	uint32_t tx_add_bofs;     /* extra 0xFF before each frame we send */
	uint32_t tx_min_tat_us;   /* silence the peer needs before our frame */
	uint32_t peer_max_tat_ms; /* bounds our turn (P-timer, line capacity) */
	uint32_t line_capacity;   /* bytes per turn we may send */
	/* Traffic the peer sends us: governed by our announcement. */
	uint32_t rx_data_size;
	uint32_t rx_window;
	uint32_t rx_min_tat_us;
	uint32_t own_max_tat_ms;  /* bounds the peer's turn (our F-timer) */
};

/* Local limits applied on top of the peer's announcement. */
struct qos_limits {
	uint32_t max_tx_data_size; /* 0: no limit (2048) */
	uint32_t max_tx_window;    /* 0: no limit (7) */
};

/*
 * Negotiates: own = what this station announced, peer = what the peer
 * announced.  Reserved bits (baud above bit 9, max TAT bit 7, data size
 * bits 6-7, window bit 7) are ignored.  Type 0 parameters take the
 * highest common bit.  Below 115200 the peer's maximum turnaround is
 * taken as 500 ms (the only value allowed there).  The line-capacity
 * rule then lowers the data size until one frame plus its overhead and
 * the turnaround padding fits a turn; the window stays, and a turn is
 * limited to line_capacity bytes.
 *
 * Returns 0, or -EPROTO when a parameter leaves nothing valid (see
 * qos_unusable): the connection must then be refused.  *out is filled
 * either way, empty fields taken at their most conservative value (bit
 * 0; 9600 baud), so a refusing station still has sane timers and
 * padding for its DM or DISC.
 */
int qos_negotiate(const struct qos_bits *own, const struct qos_bits *peer,
		  const struct qos_limits *limits, struct qos_result *out);

/*
 * The parameters (QOS_HAVE_* mask) that leave nothing valid: a type 0
 * parameter (baud, link disconnect) with no common defined bit, a
 * type 1 parameter whose announcement (ours or the peer's) has no
 * defined bit set.  0 when the pair can be negotiated.
 */
unsigned qos_unusable(const struct qos_bits *own, const struct qos_bits *peer);
/* "window size" etc. for one QOS_HAVE_* flag (logs). */
const char *qos_param_name(unsigned have_flag);

#endif
