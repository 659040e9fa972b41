/*
 * irlap_frame.h: IrLAP frames as bytes: classify and parse what arrives,
 * build what goes out.
 *
 * Owns: the address and control bytes (I, S and U formats, modulo 8),
 * the I-fields of XID (discovery), SNRM and UA (connection, with the QoS
 * list parsed by qos.c), FRMR, and TEST in its NDM form.  A frame here
 * is what SIR unwrapping leaves: A, C, I-field; no BOF/EOF, no FCS.
 *
 * Does not own: what a station does with a frame (irlap.c), SIR
 * framing, FCS, pacing.
 *
 * Every parser reads through struct cursor; builders write through
 * struct wcursor and return the frame length, or 0 if the buffer was too
 * small.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IRLAP_FRAME_H
#define IRNET_IRLAP_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qos.h"

#define IRLAP_BROADCAST 0x7f            /* 7-bit broadcast connection address */
#define IRLAP_BROADCAST_DADDR 0xffffffffu
#define IRLAP_MAX_DATA 2048             /* largest I-field IrLAP negotiates */
#define IRLAP_HEADER_LEN 2              /* A + C */
#define IRLAP_NICKNAME_MAX 32           /* longer nicknames are cut */

enum irlap_ftype {
	IRLAP_F_I,
	IRLAP_F_RR,
	IRLAP_F_RNR,
	IRLAP_F_REJ,
	IRLAP_F_SREJ,
	IRLAP_F_SNRM,     /* command */
	IRLAP_F_RNRM,     /* response, same code as SNRM */
	IRLAP_F_DISC,     /* command */
	IRLAP_F_RD,       /* response, same code as DISC */
	IRLAP_F_UA,
	IRLAP_F_FRMR,
	IRLAP_F_DM,
	IRLAP_F_XID_CMD,
	IRLAP_F_XID_RSP,
	IRLAP_F_TEST,
	IRLAP_F_UI,
	IRLAP_F_UNKNOWN,  /* a control byte IrLAP does not define */
};

const char *irlap_ftype_name(enum irlap_ftype t);

/* Control bytes with P/F = 0 (U-frames) and S-frame type bits. */
enum {
	IRLAP_C_SNRM = 0x83,
	IRLAP_C_DISC = 0x43,
	IRLAP_C_UA = 0x63,
	IRLAP_C_FRMR = 0x87,
	IRLAP_C_DM = 0x0f,
	IRLAP_C_XID_CMD = 0x2f,
	IRLAP_C_XID_RSP = 0xaf,
	IRLAP_C_TEST = 0xe3,
	IRLAP_C_UI = 0x03,
	IRLAP_C_PF = 0x10,
	IRLAP_S_RR = 0x01,
	IRLAP_S_RNR = 0x05,
	IRLAP_S_REJ = 0x09,
	IRLAP_S_SREJ = 0x0d,
};

/* A classified frame.  info points into the caller's buffer. */
struct irlap_frame {
	uint8_t caddr;          /* 7-bit connection address */
	bool cmd;               /* C/R bit: command (primary/initiator) */
	uint8_t control;
	enum irlap_ftype type;
	bool pf;
	uint8_t ns, nr;         /* meaningful for I (ns, nr) and S (nr) */
	const uint8_t *info;
	size_t info_len;
};

/* Classifies a frame.  -EINVAL for frames shorter than A + C (they carry
 * nothing IrLAP can use and are dropped silently by the station).  An
 * unknown control byte is not an error: type IRLAP_F_UNKNOWN. */
int irlap_frame_parse(const uint8_t *buf, size_t len, struct irlap_frame *f);

/* Discovery information carried by XID frames. */
struct irlap_discovery_info {
	uint8_t hints[2];       /* hints[1] valid when nhints == 2 */
	uint8_t nhints;         /* 1 or 2 (further chained bytes are skipped) */
	uint8_t charset;
	uint8_t nickname_len;
	uint8_t nickname[IRLAP_NICKNAME_MAX]; /* not NUL-terminated */
};

#define IRLAP_XID_FORMAT_DISCOVERY 0x01
#define IRLAP_XID_FLAG_NEW_ADDR 0x04
#define IRLAP_XID_FINAL_SLOT 0xff

struct irlap_xid {
	bool cmd;
	uint32_t saddr, daddr;  /* device addresses, wire little-endian */
	uint8_t slots;          /* 1, 6, 8 or 16 */
	bool new_addr;          /* flags bit 2: generate a new address */
	uint8_t slot;           /* 0..slots-1, or 0xff for the final frame */
	uint8_t version;
	bool has_info;
	struct irlap_discovery_info info;
};

/* Parses the I-field of an XID frame (cmd taken from the frame).
 * -EINVAL for a wrong format identifier, a truncated header, hint bytes
 * that never end or a slot number beyond the slot count. */
int irlap_xid_parse(const struct irlap_frame *f, struct irlap_xid *x);
size_t irlap_xid_build(uint8_t *buf, size_t cap, const struct irlap_xid *x);
/* Slot count <-> flags bits 1..0 (other counts are carried as 8). */
uint8_t irlap_xid_slots_code(uint8_t slots);
uint8_t irlap_xid_slots_of_code(uint8_t code);

/* SNRM (connect form) and UA (connect form) I-fields. */
struct irlap_connect_info {
	uint32_t saddr, daddr;
	uint8_t ncaddr;         /* SNRM only: 7-bit new connection address */
	struct qos_bits qos;
};

/* Parses the I-field of an SNRM with an I-field (ncaddr taken from the
 * address-shaped byte: bits 7..1).  -EINVAL if too short for the
 * addresses, or the new address is 0x00 or broadcast; -EBADMSG if the
 * addresses (and ncaddr) are good but the QoS list is malformed (qos_parse):
 * ci holds the addresses, not the QoS. */
int irlap_snrm_parse(const struct irlap_frame *f, struct irlap_connect_info *ci);
int irlap_ua_parse(const struct irlap_frame *f, struct irlap_connect_info *ci);
size_t irlap_snrm_build(uint8_t *buf, size_t cap, const struct irlap_connect_info *ci);
size_t irlap_ua_connect_build(uint8_t *buf, size_t cap, uint8_t caddr,
			      const struct irlap_connect_info *ci);

/* FRMR I-field. */
enum {
	IRLAP_FRMR_W = 0x01, /* control field undefined */
	IRLAP_FRMR_X = 0x02, /* I-field not permitted */
	IRLAP_FRMR_Y = 0x04, /* I-field too long */
	IRLAP_FRMR_Z = 0x08, /* invalid Nr */
};
struct irlap_frmr {
	uint8_t rejected_control;
	uint8_t vs, vr;
	bool rejected_cmd;
	uint8_t wxyz;
};
int irlap_frmr_parse(const struct irlap_frame *f, struct irlap_frmr *fr);
size_t irlap_frmr_build(uint8_t *buf, size_t cap, uint8_t caddr,
			const struct irlap_frmr *fr);

/* TEST in NDM: src(4) dst(4) data. */
struct irlap_test_ndm {
	uint32_t saddr, daddr;
	const uint8_t *data;
	size_t len;
};
int irlap_test_ndm_parse(const struct irlap_frame *f, struct irlap_test_ndm *t);
size_t irlap_test_ndm_build(uint8_t *buf, size_t cap, bool cmd,
			    const struct irlap_test_ndm *t);

/* Frames with no I-field or a plain one. */
size_t irlap_build_s(uint8_t *buf, size_t cap, uint8_t caddr, bool cmd,
		     uint8_t stype, uint8_t nr, bool pf);
size_t irlap_build_u(uint8_t *buf, size_t cap, uint8_t caddr, bool cmd,
		     uint8_t ucontrol, bool pf, const uint8_t *info, size_t len);
size_t irlap_build_i(uint8_t *buf, size_t cap, uint8_t caddr, bool cmd,
		     uint8_t ns, uint8_t nr, bool pf, const uint8_t *info, size_t len);

/* Writes a one-line description ("I cmd ca=0x2d ns=1 nr=2 P len=12") for
 * logs; returns buf. */
const char *irlap_frame_describe(const struct irlap_frame *f, char *buf, size_t cap);

#endif
