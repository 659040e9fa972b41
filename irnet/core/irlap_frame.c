/*
 * irlap_frame.c: IrLAP frame classification, I-field parsers, builders.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "irlap_frame.h"

#include <errno.h>
#include <stdio.h>

#include "cursor.h"

const char *irlap_ftype_name(enum irlap_ftype t)
{
	static const char *const names[] = {
		[IRLAP_F_I] = "I", [IRLAP_F_RR] = "RR", [IRLAP_F_RNR] = "RNR",
		[IRLAP_F_REJ] = "REJ", [IRLAP_F_SREJ] = "SREJ",
		[IRLAP_F_SNRM] = "SNRM", [IRLAP_F_RNRM] = "RNRM",
		[IRLAP_F_DISC] = "DISC", [IRLAP_F_RD] = "RD", [IRLAP_F_UA] = "UA",
		[IRLAP_F_FRMR] = "FRMR", [IRLAP_F_DM] = "DM",
		[IRLAP_F_XID_CMD] = "XID-cmd", [IRLAP_F_XID_RSP] = "XID-rsp",
		[IRLAP_F_TEST] = "TEST", [IRLAP_F_UI] = "UI",
		[IRLAP_F_UNKNOWN] = "unknown",
	};
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

static enum irlap_ftype classify_u(uint8_t c, bool cmd)
{
	switch (c & (uint8_t)~IRLAP_C_PF) {
	case IRLAP_C_SNRM: return cmd ? IRLAP_F_SNRM : IRLAP_F_RNRM;
	case IRLAP_C_DISC: return cmd ? IRLAP_F_DISC : IRLAP_F_RD;
	case IRLAP_C_UA: return cmd ? IRLAP_F_UNKNOWN : IRLAP_F_UA;
	case IRLAP_C_FRMR: return cmd ? IRLAP_F_UNKNOWN : IRLAP_F_FRMR;
	case IRLAP_C_DM: return cmd ? IRLAP_F_UNKNOWN : IRLAP_F_DM;
	case IRLAP_C_XID_CMD: return IRLAP_F_XID_CMD;
	case IRLAP_C_XID_RSP: return IRLAP_F_XID_RSP;
	case IRLAP_C_TEST: return IRLAP_F_TEST;
	case IRLAP_C_UI: return IRLAP_F_UI;
	default: return IRLAP_F_UNKNOWN;
	}
}

int irlap_frame_parse(const uint8_t *buf, size_t len, struct irlap_frame *f)
{
	struct cursor c;
	uint8_t a, ctl;

	cursor_init(&c, buf, len);
	if (!cursor_u8(&c, &a) || !cursor_u8(&c, &ctl))
		return -EINVAL;
	f->caddr = a >> 1;
	f->cmd = a & 1;
	f->control = ctl;
	f->pf = ctl & IRLAP_C_PF;
	f->ns = 0;
	f->nr = 0;
	f->info_len = cursor_remaining(&c);
	cursor_view(&c, f->info_len, &f->info);
	if (!(ctl & 0x01)) {
		f->type = IRLAP_F_I;
		f->ns = (ctl >> 1) & 7;
		f->nr = ctl >> 5;
	} else if (!(ctl & 0x02)) {
		static const enum irlap_ftype stypes[4] = {
			IRLAP_F_RR, IRLAP_F_RNR, IRLAP_F_REJ, IRLAP_F_SREJ,
		};
		f->type = stypes[(ctl >> 2) & 3];
		f->nr = ctl >> 5;
	} else {
		f->type = classify_u(ctl, f->cmd);
	}
	return 0;
}

uint8_t irlap_xid_slots_code(uint8_t slots)
{
	switch (slots) {
	case 1: return 0;
	case 6: return 1;
	case 16: return 3;
	default: return 2; /* 8 */
	}
}

uint8_t irlap_xid_slots_of_code(uint8_t code)
{
	static const uint8_t slots[4] = { 1, 6, 8, 16 };
	return slots[code & 3];
}

static bool parse_discovery_info(struct cursor *c, struct irlap_discovery_info *di)
{
	uint8_t h;
	size_t name_len;

	di->nhints = 0;
	di->hints[0] = di->hints[1] = 0;
	do {
		if (!cursor_u8(c, &h))
			return false;
		if (di->nhints < 2)
			di->hints[di->nhints++] = h;
	} while (h & 0x80);
	if (!cursor_u8(c, &di->charset))
		return false;
	name_len = cursor_remaining(c);
	if (name_len > IRLAP_NICKNAME_MAX)
		name_len = IRLAP_NICKNAME_MAX;
	di->nickname_len = (uint8_t)name_len;
	return cursor_copy(c, di->nickname, name_len);
}

int irlap_xid_parse(const struct irlap_frame *f, struct irlap_xid *x)
{
	struct cursor c;
	uint8_t format, flags;

	cursor_init(&c, f->info, f->info_len);
	x->cmd = f->type == IRLAP_F_XID_CMD;
	cursor_u8(&c, &format);
	cursor_le32(&c, &x->saddr);
	cursor_le32(&c, &x->daddr);
	cursor_u8(&c, &flags);
	cursor_u8(&c, &x->slot);
	cursor_u8(&c, &x->version);
	if (!cursor_ok(&c) || format != IRLAP_XID_FORMAT_DISCOVERY)
		return -EINVAL;
	x->slots = irlap_xid_slots_of_code(flags);
	x->new_addr = flags & IRLAP_XID_FLAG_NEW_ADDR;
	if (x->slot != IRLAP_XID_FINAL_SLOT && x->slot >= x->slots)
		return -EINVAL;
	x->has_info = !cursor_at_end(&c);
	if (x->has_info && !parse_discovery_info(&c, &x->info))
		return -EINVAL;
	if (!x->has_info)
		x->info = (struct irlap_discovery_info){ .nhints = 0 };
	return 0;
}

size_t irlap_xid_build(uint8_t *buf, size_t cap, const struct irlap_xid *x)
{
	struct wcursor w;
	uint8_t flags = irlap_xid_slots_code(x->slots);

	if (x->new_addr)
		flags |= IRLAP_XID_FLAG_NEW_ADDR;
	wcursor_init(&w, buf, cap);
	wcursor_u8(&w, x->cmd ? 0xff : 0xfe);
	wcursor_u8(&w, x->cmd ? IRLAP_C_XID_CMD | IRLAP_C_PF : IRLAP_C_XID_RSP | IRLAP_C_PF);
	wcursor_u8(&w, IRLAP_XID_FORMAT_DISCOVERY);
	wcursor_le32(&w, x->saddr);
	wcursor_le32(&w, x->daddr);
	wcursor_u8(&w, flags);
	wcursor_u8(&w, x->slot);
	wcursor_u8(&w, x->version);
	if (x->has_info) {
		const struct irlap_discovery_info *di = &x->info;
		uint8_t nh = di->nhints == 2 ? 2 : 1;

		/* The extension bit chains the hint bytes: set it on all but
		 * the last one, whatever the caller passed. */
		if (nh == 2) {
			wcursor_u8(&w, (uint8_t)(di->hints[0] | 0x80));
			wcursor_u8(&w, (uint8_t)(di->hints[1] & 0x7f));
		} else {
			wcursor_u8(&w, (uint8_t)(di->hints[0] & 0x7f));
		}
		wcursor_u8(&w, di->charset);
		wcursor_bytes(&w, di->nickname,
			      di->nickname_len <= IRLAP_NICKNAME_MAX ? di->nickname_len
								     : IRLAP_NICKNAME_MAX);
	}
	return wcursor_ok(&w) ? wcursor_len(&w) : 0;
}

static int parse_connect(const struct irlap_frame *f, struct irlap_connect_info *ci,
			 bool snrm)
{
	struct cursor c;
	uint8_t nca = 0;
	const uint8_t *list;
	size_t list_len;

	cursor_init(&c, f->info, f->info_len);
	cursor_le32(&c, &ci->saddr);
	cursor_le32(&c, &ci->daddr);
	if (snrm)
		cursor_u8(&c, &nca);
	if (!cursor_ok(&c))
		return -EINVAL;
	ci->ncaddr = snrm ? nca >> 1 : f->caddr;
	if (snrm && (ci->ncaddr == 0 || ci->ncaddr == IRLAP_BROADCAST))
		return -EINVAL;
	list_len = cursor_remaining(&c);
	cursor_view(&c, list_len, &list);
	/* The addresses are good: the station can still answer (refuse). */
	return qos_parse(list, list_len, &ci->qos, NULL) == 0 ? 0 : -EBADMSG;
}

int irlap_snrm_parse(const struct irlap_frame *f, struct irlap_connect_info *ci)
{
	return parse_connect(f, ci, true);
}

int irlap_ua_parse(const struct irlap_frame *f, struct irlap_connect_info *ci)
{
	return parse_connect(f, ci, false);
}

size_t irlap_snrm_build(uint8_t *buf, size_t cap, const struct irlap_connect_info *ci)
{
	struct wcursor w;

	wcursor_init(&w, buf, cap);
	wcursor_u8(&w, 0xff);
	wcursor_u8(&w, IRLAP_C_SNRM | IRLAP_C_PF);
	wcursor_le32(&w, ci->saddr);
	wcursor_le32(&w, ci->daddr);
	wcursor_u8(&w, (uint8_t)(ci->ncaddr << 1));
	qos_encode(&ci->qos, &w);
	return wcursor_ok(&w) ? wcursor_len(&w) : 0;
}

size_t irlap_ua_connect_build(uint8_t *buf, size_t cap, uint8_t caddr,
			      const struct irlap_connect_info *ci)
{
	struct wcursor w;

	wcursor_init(&w, buf, cap);
	wcursor_u8(&w, (uint8_t)(caddr << 1));
	wcursor_u8(&w, IRLAP_C_UA | IRLAP_C_PF);
	wcursor_le32(&w, ci->saddr);
	wcursor_le32(&w, ci->daddr);
	qos_encode(&ci->qos, &w);
	return wcursor_ok(&w) ? wcursor_len(&w) : 0;
}

int irlap_frmr_parse(const struct irlap_frame *f, struct irlap_frmr *fr)
{
	struct cursor c;
	uint8_t b1, b2;

	cursor_init(&c, f->info, f->info_len);
	cursor_u8(&c, &fr->rejected_control);
	cursor_u8(&c, &b1);
	cursor_u8(&c, &b2);
	if (!cursor_ok(&c))
		return -EINVAL;
	fr->vs = (b1 >> 1) & 7;
	fr->rejected_cmd = b1 & 0x10;
	fr->vr = b1 >> 5;
	fr->wxyz = b2 & 0x0f;
	return 0;
}

size_t irlap_frmr_build(uint8_t *buf, size_t cap, uint8_t caddr,
			const struct irlap_frmr *fr)
{
	uint8_t info[3];

	info[0] = fr->rejected_control;
	info[1] = (uint8_t)((fr->vr & 7) << 5 | (fr->rejected_cmd ? 0x10 : 0) | (fr->vs & 7) << 1);
	info[2] = fr->wxyz & 0x0f;
	return irlap_build_u(buf, cap, caddr, false, IRLAP_C_FRMR, true, info, sizeof(info));
}

int irlap_test_ndm_parse(const struct irlap_frame *f, struct irlap_test_ndm *t)
{
	struct cursor c;

	cursor_init(&c, f->info, f->info_len);
	cursor_le32(&c, &t->saddr);
	cursor_le32(&c, &t->daddr);
	if (!cursor_ok(&c))
		return -EINVAL;
	t->len = cursor_remaining(&c);
	cursor_view(&c, t->len, &t->data);
	return 0;
}

size_t irlap_test_ndm_build(uint8_t *buf, size_t cap, bool cmd,
			    const struct irlap_test_ndm *t)
{
	struct wcursor w;

	wcursor_init(&w, buf, cap);
	wcursor_u8(&w, cmd ? 0xff : 0xfe);
	wcursor_u8(&w, IRLAP_C_TEST | IRLAP_C_PF);
	wcursor_le32(&w, t->saddr);
	wcursor_le32(&w, t->daddr);
	wcursor_bytes(&w, t->data, t->len);
	return wcursor_ok(&w) ? wcursor_len(&w) : 0;
}

static size_t build(uint8_t *buf, size_t cap, uint8_t caddr, bool cmd, uint8_t control,
		    const uint8_t *info, size_t len)
{
	struct wcursor w;

	wcursor_init(&w, buf, cap);
	wcursor_u8(&w, (uint8_t)((caddr & 0x7f) << 1 | (cmd ? 1 : 0)));
	wcursor_u8(&w, control);
	if (len)
		wcursor_bytes(&w, info, len);
	return wcursor_ok(&w) ? wcursor_len(&w) : 0;
}

size_t irlap_build_s(uint8_t *buf, size_t cap, uint8_t caddr, bool cmd,
		     uint8_t stype, uint8_t nr, bool pf)
{
	uint8_t c = (uint8_t)((nr & 7) << 5 | (pf ? IRLAP_C_PF : 0) | (stype & 0x0f));
	return build(buf, cap, caddr, cmd, c, NULL, 0);
}

size_t irlap_build_u(uint8_t *buf, size_t cap, uint8_t caddr, bool cmd,
		     uint8_t ucontrol, bool pf, const uint8_t *info, size_t len)
{
	uint8_t c = (uint8_t)(ucontrol | (pf ? IRLAP_C_PF : 0));
	return build(buf, cap, caddr, cmd, c, info, len);
}

size_t irlap_build_i(uint8_t *buf, size_t cap, uint8_t caddr, bool cmd,
		     uint8_t ns, uint8_t nr, bool pf, const uint8_t *info, size_t len)
{
	uint8_t c = (uint8_t)((nr & 7) << 5 | (pf ? IRLAP_C_PF : 0) | (ns & 7) << 1);
	return build(buf, cap, caddr, cmd, c, info, len);
}

const char *irlap_frame_describe(const struct irlap_frame *f, char *buf, size_t cap)
{
	const char *pf = f->pf ? (f->cmd ? " P" : " F") : "";

	switch (f->type) {
	case IRLAP_F_I:
		snprintf(buf, cap, "I %s ca=0x%02x ns=%u nr=%u%s len=%zu",
			 f->cmd ? "cmd" : "rsp", f->caddr, f->ns, f->nr, pf, f->info_len);
		break;
	case IRLAP_F_RR: case IRLAP_F_RNR: case IRLAP_F_REJ: case IRLAP_F_SREJ:
		snprintf(buf, cap, "%s %s ca=0x%02x nr=%u%s", irlap_ftype_name(f->type),
			 f->cmd ? "cmd" : "rsp", f->caddr, f->nr, pf);
		break;
	default:
		snprintf(buf, cap, "%s %s ca=0x%02x c=0x%02x%s len=%zu",
			 irlap_ftype_name(f->type), f->cmd ? "cmd" : "rsp", f->caddr,
			 f->control, pf, f->info_len);
		break;
	}
	return buf;
}
