/*
 * irdad_msg.h: the messages of irdad's local API (docs/irdad-api.md).
 *
 * Owns: the wire format of one control message (a header and
 * tag-length-value attributes, big-endian), the table of attribute kinds
 * and limits, the table of which attributes each message type takes, the
 * decoder that checks a received message against both, and a writer that
 * builds a message and checks it with the same decoder before it is sent.
 *
 * Does not own: sockets, descriptors passed with SCM_RIGHTS, sessions or
 * what a request does (the daemon and the client library do).  Sans-I/O:
 * bytes in, bytes out.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IRDAD_MSG_H
#define IRNET_IRDAD_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"

#define IRDAD_PROTO_VERSION 1
#define IRDAD_MSG_MAX 4096       /* bytes in one message, header included */
#define IRDAD_HDR_LEN 8
#define IRDAD_ATTRS_MAX 256      /* attributes at one level */

enum irdad_msg_type {
	/* requests, client -> irdad */
	IRDAD_MSG_HELLO = 1,
	IRDAD_MSG_DISCOVER = 2,
	IRDAD_MSG_IAS_QUERY = 3,
	IRDAD_MSG_IAS_ADD = 4,
	IRDAD_MSG_IAS_REMOVE = 5,
	IRDAD_MSG_LISTEN = 6,
	IRDAD_MSG_CONNECT = 7,
	IRDAD_MSG_CLOSE = 8,
	IRDAD_MSG_STATUS = 9,
	IRDAD_MSG_WATCH = 10,
	IRDAD_MSG_ATTACH = 11,    /* an IrNET endpoint on the client's descriptors */
	IRDAD_MSG_HINTS = 12,     /* hint bits this session adds to our discovery answers */
	/* replies and events, irdad -> client */
	IRDAD_MSG_OK = 64,
	IRDAD_MSG_ERROR = 65,
	IRDAD_MSG_HELLO_REPLY = 66,
	IRDAD_MSG_STATIONS = 67,
	IRDAD_MSG_IAS_RESULT = 68,
	IRDAD_MSG_LISTENING = 69,
	IRDAD_MSG_CONNECTION = 70,
	IRDAD_MSG_STATUS_REPLY = 71,
	IRDAD_MSG_DISCONNECTED = 72,
	IRDAD_MSG_STATION = 73,
};
#define IRDAD_MSG_REQ_LAST IRDAD_MSG_HINTS   /* requests are 1..this */

enum irdad_attr_tag {
	IRDAD_A_CLIENT = 1,       /* str: the client's name, for the log */
	IRDAD_A_PORT = 2,         /* str: the port's device name */
	IRDAD_A_ADDR = 3,         /* u32: our device address */
	IRDAD_A_NICKNAME = 4,     /* bytes: a nickname in its CHARSET */
	IRDAD_A_MAX_MSG = 5,      /* u32: the largest message irdad takes */
	IRDAD_A_FRESH = 6,        /* u8 0/1: discover now, not the last result */
	IRDAD_A_STATION = 7,      /* nest: one station in range */
	IRDAD_A_HINTS = 8,        /* u16: the discovery hint bits */
	IRDAD_A_CHARSET = 9,      /* u8: IrLMP character set */
	IRDAD_A_AGE_MS = 10,      /* u32: since the station was last seen */
	IRDAD_A_DADDR = 11,       /* u32: a peer's device address */
	IRDAD_A_CLASS = 12,       /* str: an IAS class name */
	IRDAD_A_ATTR = 13,        /* str: an IAS attribute name */
	IRDAD_A_IAS_VALUE = 14,   /* nest: one IAS query answer */
	IRDAD_A_OBJ_ID = 15,      /* u32: an IAS object */
	IRDAD_A_TYPE = 16,        /* u8: enum irdad_ias_type */
	IRDAD_A_INT = 17,         /* u32: an IAS integer */
	IRDAD_A_OCTETS = 18,      /* bytes: an IAS octet sequence */
	IRDAD_A_STRING = 19,      /* bytes: an IAS user string (in CHARSET) */
	IRDAD_A_IAS_ATTR = 20,    /* nest: one attribute to register */
	IRDAD_A_MODE = 21,        /* u8: enum irdad_mode */
	IRDAD_A_LSAP = 22,        /* u8: an LSAP selector */
	IRDAD_A_MAX_SDU = 23,     /* u32: the MaxSduSize we take (sar) */
	IRDAD_A_BACKLOG = 24,     /* u8: connections waiting for the client */
	IRDAD_A_LISTENER_ID = 25, /* u32 */
	IRDAD_A_CONN_ID = 26,     /* u32 */
	IRDAD_A_TIMEOUT_MS = 27,  /* u32 */
	IRDAD_A_LINK = 28,        /* u8: enum irdad_link */
	IRDAD_A_PEER = 29,        /* u32: the device address of the link's peer */
	IRDAD_A_COUNTER = 30,     /* nest: NAME and VALUE64 */
	IRDAD_A_VALUE64 = 31,     /* u64 */
	IRDAD_A_CONN = 32,        /* nest: one connection in STATUS */
	IRDAD_A_OWNER = 33,       /* str: who holds a connection */
	IRDAD_A_EVENTS = 34,      /* u32: IRDAD_WATCH_* bits */
	IRDAD_A_ERRNO = 35,       /* u32: a positive errno value */
	IRDAD_A_TEXT = 36,        /* str: a message for a person */
	IRDAD_A_REASON = 37,      /* u8: IrLMP's disconnect reason */
	IRDAD_A_PRESENT = 38,     /* u8 0/1: a station arrived or left */
	IRDAD_A_PEER_LSAP = 39,   /* u8 */
	IRDAD_A_PEER_MAX_SDU = 40,/* u32: the peer's MaxSduSize (0: stream) */
	IRDAD_A_TX_MAX = 41,      /* u32: the largest write sent as one unit */
	IRDAD_A_NAME = 42,        /* str: a counter or IAS attribute name */
	IRDAD_A_SERVICE = 43,     /* u8: enum irdad_attach_service */
	IRDAD_A_ROLE = 44,        /* u8: enum irdad_attach_role */
	IRDAD_A_ENDPOINT_ID = 45, /* u32: an ATTACHed endpoint */
	IRDAD_A_TAG_END           /* first unused tag */
};

enum irdad_mode {
	IRDAD_MODE_STREAM = 1,    /* TinyTP without SAR: a byte stream */
	IRDAD_MODE_SAR = 2,       /* TinyTP with MaxSduSize: SDUs kept */
	IRDAD_MODE_LMP = 3,       /* IrLMP without TinyTP */
};

/* ATTACH: what irdad runs on the passed descriptors, and how. */
enum irdad_attach_service {
	IRDAD_ATTACH_IRNET = 1,   /* PPP in async HDLC <-> IrNET (TinyTP SAR) */
	IRDAD_ATTACH_IRCOMM = 2,  /* reserved: answered EOPNOTSUPP for now */
};

enum irdad_attach_role {
	IRDAD_ATTACH_CALL = 0,    /* find the peer and call it */
	IRDAD_ATTACH_LISTEN = 1,  /* register the service and wait for a call */
};

/* The descriptors an ATTACH brings, in this order. */
#define IRDAD_ATTACH_FD_CHANNEL 0
#define IRDAD_ATTACH_FD_STATUS 1
#define IRDAD_ATTACH_NFDS 2

enum irdad_ias_type {
	IRDAD_IAS_MISSING = 0,
	IRDAD_IAS_INT = 1,
	IRDAD_IAS_OCTETS = 2,
	IRDAD_IAS_STRING = 3,
};

enum irdad_link {
	IRDAD_LINK_DOWN = 0,
	IRDAD_LINK_CONNECTING = 1,
	IRDAD_LINK_UP = 2,
};

#define IRDAD_WATCH_STATIONS 0x1u

struct irdad_attr {
	uint16_t tag;
	uint16_t len;
	const uint8_t *val;       /* into the message buffer */
};

/* The attributes of one level (a message, or one nest), in order. */
struct irdad_attrs {
	size_t n;
	struct irdad_attr a[IRDAD_ATTRS_MAX];
};

struct irdad_msg {
	uint8_t type;
	uint32_t seq;
	struct irdad_attrs attrs;
};

/*
 * Decodes and checks one message (the bytes of one SEQPACKET read).
 * The attributes point into buf, which must outlive *out.  Returns 0, or
 * -EPROTONOSUPPORT for another version, -EBADMSG for anything else
 * malformed, with the reason in why ("CONNECT: MODE: 7 is not 1-3").
 */
int irdad_msg_decode(const uint8_t *buf, size_t len, struct irdad_msg *out, char *why,
		     size_t whylen);
/* Opens a nest attribute (already checked by the decoder). */
void irdad_nest_open(const struct irdad_attr *nest, struct irdad_attrs *out);

/* Getters: the first attribute with tag at this level; false if absent. */
const struct irdad_attr *irdad_find(const struct irdad_attrs *as, uint16_t tag);
bool irdad_get_u8(const struct irdad_attrs *as, uint16_t tag, uint8_t *out);
bool irdad_get_u16(const struct irdad_attrs *as, uint16_t tag, uint16_t *out);
bool irdad_get_u32(const struct irdad_attrs *as, uint16_t tag, uint32_t *out);
bool irdad_get_u64(const struct irdad_attrs *as, uint16_t tag, uint64_t *out);
/* A string attribute as a C string; false if absent (buf is then ""). */
bool irdad_get_str(const struct irdad_attrs *as, uint16_t tag, char *buf, size_t cap);
bool irdad_get_bytes(const struct irdad_attrs *as, uint16_t tag, const uint8_t **val,
		     size_t *len);
/* The index-th attribute with tag (for the repeating ones), or NULL. */
const struct irdad_attr *irdad_nth(const struct irdad_attrs *as, uint16_t tag, size_t index);
size_t irdad_count(const struct irdad_attrs *as, uint16_t tag);

/*
 * Building a message: begin, put attributes (a nest between nest_begin
 * and nest_end), end.  Errors are sticky; end returns the length, or
 * -EMSGSIZE when it did not fit, or -EINVAL (with why) when the message
 * breaks the schema that irdad_msg_decode enforces.
 */
struct irdad_writer {
	struct wcursor w;
	uint8_t *nest_len;        /* the open nest's length field, or NULL */
	size_t nest_start;
};

void irdad_write_begin(struct irdad_writer *wr, uint8_t *buf, size_t cap, uint8_t type,
		       uint32_t seq);
void irdad_put_u8(struct irdad_writer *wr, uint16_t tag, uint8_t v);
void irdad_put_u16(struct irdad_writer *wr, uint16_t tag, uint16_t v);
void irdad_put_u32(struct irdad_writer *wr, uint16_t tag, uint32_t v);
void irdad_put_u64(struct irdad_writer *wr, uint16_t tag, uint64_t v);
void irdad_put_str(struct irdad_writer *wr, uint16_t tag, const char *s);
void irdad_put_bytes(struct irdad_writer *wr, uint16_t tag, const void *val, size_t len);
void irdad_nest_begin(struct irdad_writer *wr, uint16_t tag);
void irdad_nest_end(struct irdad_writer *wr);
long irdad_write_end(struct irdad_writer *wr, char *why, size_t whylen);

/* Names for logs and messages ("CONNECT", "MODE"); "?" when unknown. */
const char *irdad_msg_type_name(uint8_t type);
const char *irdad_attr_name(uint16_t tag);
/* True for the types a client sends (requests). */
bool irdad_msg_is_request(uint8_t type);

#endif
