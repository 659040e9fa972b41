/*
 * ircomm_param.h: IrCOMM's cooked framing and control parameters, as
 * pure functions (digest 7.2, 7.4, 7.5).
 *
 * Owns: splitting and building a cooked SDU (clen, control bytes, user
 * data); the PI/PL/PV control items and their struct form; the IAS
 * `Parameters` octet sequence of class IrDA:IrCOMM.
 *
 * Does not own: what a connection does with the parameters (ircomm.h),
 * TinyTP, IAS.
 *
 * Parsers read through the cursor and builders write through the
 * wcursor: nothing here reads or writes outside the buffer it is given.
 *
 * Malformed input, and what happens to it:
 *  - an SDU that is empty or whose clen runs past its end: -EINVAL from
 *    ircomm_sdu_split (the framing cannot say where the data starts, so
 *    the whole SDU is unusable);
 *  - a control list whose last item is cut short (PI without PL, or PL
 *    past the end): -EINVAL from ircomm_params_parse and *out zeroed:
 *    the whole list is dropped, nothing of it half-applied;
 *  - an item whose PL does not match its PI's size (e.g. data rate with
 *    PL 2, DTE with PL 0, a port name over 32 bytes): that item alone is
 *    rejected, i.e. skipped by its PL like an unknown PI, the field keeps
 *    "not present", and the rest of the list is used.  Such items and
 *    unknown PIs are counted in the (non-negative) return value.  Data
 *    rate must be exactly 4 bytes (the size the digest gives; accepting
 *    shorter big-endian forms would guess at peers we never saw);
 *  - an item repeated in one list: the last one wins.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IRCOMM_PARAM_H
#define IRNET_IRCOMM_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PI values (digest 7.5). */
#define IRCOMM_PI_SERVICE_TYPE 0x00
#define IRCOMM_PI_PORT_TYPE    0x01
#define IRCOMM_PI_PORT_NAME    0x02
#define IRCOMM_PI_DATA_RATE    0x10
#define IRCOMM_PI_DATA_FORMAT  0x11
#define IRCOMM_PI_FLOW_CONTROL 0x12
#define IRCOMM_PI_XON_XOFF     0x13
#define IRCOMM_PI_ENQ_ACK      0x14
#define IRCOMM_PI_LINE_STATUS  0x15
#define IRCOMM_PI_BREAK        0x16
#define IRCOMM_PI_DTE          0x20
#define IRCOMM_PI_DCE          0x21
#define IRCOMM_PI_POLL         0x22

/* Service type bits (digest 7.1). */
#define IRCOMM_SVC_3WIRE_RAW   0x01
#define IRCOMM_SVC_3WIRE       0x02
#define IRCOMM_SVC_9WIRE       0x04
#define IRCOMM_SVC_CENTRONICS  0x08

/* Port type: Linux publishes serial as 0x00, the spec reading (and
 * Wireshark) as bit 0x01; both are taken as serial. */
#define IRCOMM_PORT_SERIAL_LINUX 0x00
#define IRCOMM_PORT_SERIAL       0x01

/* DTE line settings (PI 0x20). */
#define IRCOMM_DTE_DELTA_DTR 0x01
#define IRCOMM_DTE_DELTA_RTS 0x02
#define IRCOMM_DTE_DTR       0x04
#define IRCOMM_DTE_RTS       0x08
/* DCE line settings (PI 0x21). */
#define IRCOMM_DCE_DELTA_CTS 0x01
#define IRCOMM_DCE_DELTA_DSR 0x02
#define IRCOMM_DCE_DELTA_RI  0x04
#define IRCOMM_DCE_DELTA_CD  0x08
#define IRCOMM_DCE_CTS       0x10
#define IRCOMM_DCE_DSR       0x20
#define IRCOMM_DCE_RI        0x40
#define IRCOMM_DCE_CD        0x80

#define IRCOMM_PORT_NAME_MAX 32

/* Which fields of struct ircomm_params hold a value. */
enum ircomm_param_flag {
	IRCOMM_P_SERVICE_TYPE = 1u << 0,
	IRCOMM_P_PORT_TYPE = 1u << 1,
	IRCOMM_P_PORT_NAME = 1u << 2,
	IRCOMM_P_DATA_RATE = 1u << 3,
	IRCOMM_P_DATA_FORMAT = 1u << 4,
	IRCOMM_P_FLOW_CONTROL = 1u << 5,
	IRCOMM_P_XON_XOFF = 1u << 6,
	IRCOMM_P_ENQ_ACK = 1u << 7,
	IRCOMM_P_LINE_STATUS = 1u << 8,
	IRCOMM_P_BREAK = 1u << 9,
	IRCOMM_P_DTE = 1u << 10,
	IRCOMM_P_DCE = 1u << 11,
	IRCOMM_P_POLL = 1u << 12,
};
#define IRCOMM_P_ALL 0x1fffu

struct ircomm_params {
	unsigned present;          /* enum ircomm_param_flag bits */
	uint8_t service_type, port_type;
	uint8_t port_name[IRCOMM_PORT_NAME_MAX];
	uint8_t port_name_len;
	uint32_t data_rate;        /* bits per second */
	uint8_t data_format, flow_control;
	uint8_t xon, xoff, enq, ack;
	uint8_t line_status, brk, dte, dce;
	/* POLL has no value: its flag is all. */
};

/* ---- cooked SDU ---------------------------------------------------- */

struct ircomm_sdu {
	const uint8_t *ctrl;  /* control items (views the input) */
	size_t clen;
	const uint8_t *data;  /* user data (views the input) */
	size_t len;
};

/* 0, or -EINVAL (empty SDU, clen past the end). */
int ircomm_sdu_split(const uint8_t *buf, size_t len, struct ircomm_sdu *out);
/* clen byte, control bytes, data.  Length, or -EINVAL (clen > 255),
 * -ENOSPC (does not fit cap). */
int ircomm_sdu_build(uint8_t *buf, size_t cap, const uint8_t *ctrl, size_t clen,
		     const uint8_t *data, size_t len);

/* ---- control items --------------------------------------------------- */

/* Parses a PI/PL/PV list (the control bytes of an SDU, or the IAS
 * Parameters value).  Returns the number of items ignored (unknown PI or
 * PL not matching the PI, see above), or -EINVAL (truncated; *out
 * zeroed). */
int ircomm_params_parse(const uint8_t *buf, size_t len, struct ircomm_params *out);
/* Writes every present item, in ascending PI order.  Length, or -ENOSPC
 * or -EINVAL (port_name_len over 32). */
int ircomm_params_build(uint8_t *buf, size_t cap, const struct ircomm_params *p);
/* Whether the present items and their values are the same. */
bool ircomm_params_equal(const struct ircomm_params *a, const struct ircomm_params *b);
/* The PI's name ("data rate"), for logs; "unknown" otherwise. */
const char *ircomm_pi_name(uint8_t pi);

/*
 * A data format octet (PI 0x11: bits 1..0 character length 5..8, bit 2
 * two stop bits, bit 3 parity on, bits 5..4 its type: odd, even, mark,
 * space) as a log reads it: "8N1", "7E1", "8M2" ...  With parity off,
 * set type bits are reported, not hidden: Linux's IrCOMM sends 0x13 for
 * 8N1 (its even-parity bit is set whenever odd parity is off), which
 * reads "8N1 (parity type bits 0x10 with parity off, as Linux sends)".
 * Bits 7..6 (reserved) likewise.  Writes at most cap bytes, always
 * terminated when cap > 0; returns buf.
 */
char *ircomm_data_format_describe(uint8_t format, char *buf, size_t cap);

/* ---- IAS Parameters (digest 7.2) ---------------------------------- */

/* Parses the octet sequence: it must carry a service type; a port type,
 * if there, must be serial (0x00 or 0x01), anything else is -EPROTO.
 * Returns 0, -EINVAL (malformed or no service type) or -EPROTO. */
int ircomm_ias_params_parse(const uint8_t *buf, size_t len, struct ircomm_params *out);
/* `00 01 <service_types> 01 01 <port_type>`: length or -ENOSPC. */
int ircomm_ias_params_build(uint8_t *buf, size_t cap, uint8_t service_types, uint8_t port_type);
bool ircomm_port_is_serial(uint8_t port_type);

/* The best cooked service type in offered & wanted: 9-wire, else
 * 3-wire, else 0 (raw 3-wire and Centronics are not handled). */
uint8_t ircomm_best_service(uint8_t offered, uint8_t wanted);

#endif
