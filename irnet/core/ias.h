/*
 * ias.h: LM-IAS, the Information Access Service, sans-I/O.
 *
 * Owns: the GetValueByClass request and response formats (parsers read
 * through the cursor, builders write through the wcursor), the
 * information base (the Device object with DeviceName and IrLMPSupport,
 * and the objects services register), the server on LSAP 0 (one
 * request, one response per LSAP connection; several clients at once)
 * and a one-shot client (LSAP connect to 0, request, response,
 * disconnect).
 *
 * Does not own: the LSAP connections (irlmp.h), discovery.
 *
 * Only GetValueByClass is served (what every stack implements); other
 * opcodes get return code 0xFF (unsupported).  Errors are answered the
 * Linux way, with a one-entry list (object id, "missing" value) after the
 * return code, because Linux clients expect it and other clients ignore
 * it.  The client accepts both forms, only reads the list on success, and
 * reports the first entry.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IAS_H
#define IRNET_IAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "irlmp.h"
#include "log.h"

#define IAS_OP_GET_VALUE_BY_CLASS 0x04
#define IAS_LST 0x80
#define IAS_ACK 0x40
#define IAS_NAME_MAX 60
#define IAS_OCTETS_MAX 1024
#define IAS_STRING_MAX 255
#define IAS_QUERY_TIMEOUT_US 10000000ull /* answer watchdog after the LSAP connect */

enum ias_return {
	IAS_SUCCESS = 0x00,
	IAS_NO_SUCH_CLASS = 0x01,
	IAS_NO_SUCH_ATTRIBUTE = 0x02,
	IAS_LIST_TOO_LONG = 0x03,
	IAS_UNSUPPORTED = 0xff,
};

enum ias_type { IAS_MISSING = 0, IAS_INTEGER = 1, IAS_OCTETS = 2, IAS_STRING = 3 };

struct ias_value {
	enum ias_type type;
	int32_t integer;
	uint8_t charset;          /* STRING */
	const uint8_t *bytes;     /* OCTETS, STRING */
	size_t len;
};

/* ---- wire format ----------------------------------------------------- */

struct ias_request {
	uint8_t control;          /* LST | ACK | opcode */
	const uint8_t *class_name;
	size_t class_len;
	const uint8_t *attr_name;
	size_t attr_len;
};

struct ias_response {
	uint8_t control;
	uint8_t ret;              /* enum ias_return */
	size_t count;             /* list entries (0 if no list) */
	uint16_t object_id;       /* first entry */
	struct ias_value value;   /* first entry (views the input) */
};

/* 0, -EINVAL (malformed, names longer than 60, trailing bytes) or
 * -EOPNOTSUPP (well-formed header, not GetValueByClass: control filled). */
int ias_request_parse(const uint8_t *buf, size_t len, struct ias_request *out);
size_t ias_request_build(uint8_t *buf, size_t cap, const char *class_name, const char *attr);
/* Every entry is checked; values are bounded as the digest says. */
int ias_response_parse(const uint8_t *buf, size_t len, struct ias_response *out);

/* An LSAP selector from a successful answer: the first entry must be an
 * integer in 0x01..0x6F (anything else is not a usable selector).
 * Returns it, or -EINVAL. */
int ias_lsap_sel(const struct ias_response *resp);

/* ---- information base ------------------------------------------------ */

struct ias_db;

struct ias_db *ias_db_new(const char *device_name);
void ias_db_free(struct ias_db *db);
/* Adds an object of class_name; returns its id (>= 0) or -errno. */
int ias_db_add_object(struct ias_db *db, const char *class_name);
int ias_db_remove_object(struct ias_db *db, int object_id);
/* The value is copied. -EEXIST, -ENOENT, -EINVAL (bad lengths), -ENOMEM. */
int ias_db_add_attr(struct ias_db *db, int object_id, const char *name,
		    const struct ias_value *value);
/* The server's answer to one request (any opcode): response length, 0 if
 * cap is too small. */
size_t ias_db_answer(const struct ias_db *db, const uint8_t *req, size_t len, uint8_t *buf,
		     size_t cap);

/* ---- server and client on IrLMP ---------------------------------------- */

struct ias_server;
/* Listens on LSAP 0.  NULL if taken or no memory. */
struct ias_server *ias_server_new(struct irlmp *lm, const struct ias_db *db,
				  const struct logger *log);
void ias_server_free(struct ias_server *srv);
uint64_t ias_server_answered(const struct ias_server *srv);

/* Result of a query: ret is the return code, or (negative) -ETIMEDOUT
 * (LSAP connect or answer watchdog),
 * -ECONNRESET (LSAP disconnect or refusal), -EINVAL (malformed answer). */
typedef void (*ias_result_fn)(void *ctx, int ret, const struct ias_response *resp);

struct ias_query;
/* Asks device daddr for class/attr.  The query frees itself after calling
 * done once; ias_query_cancel() before that. */
struct ias_query *ias_query_start(struct irlmp *lm, uint32_t daddr, const char *class_name,
				  const char *attr, ias_result_fn done, void *ctx,
				  uint64_t now_us);
void ias_query_cancel(struct ias_query *q);

#endif
