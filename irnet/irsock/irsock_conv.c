/*
 * irsock_conv.c: irdad's API <-> AF_IRDA ABI translations (irsock_conv.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "irsock_conv.h"

#include <errno.h>
#include <string.h>

bool irsock_hints_match(uint16_t api_hints, uint16_t mask)
{
	/* the kernel compared the 16-bit view of the two hint bytes with
	 * the option's low 16 bits; so do we, byte by byte */
	uint8_t mb[2];
	memcpy(mb, &mask, sizeof(mb));
	uint8_t h0 = (uint8_t)(api_hints >> 8), h1 = (uint8_t)api_hints;
	return (h0 & mb[0]) || (h1 & mb[1]);
}

int irsock_fill_devices(void *buf, size_t cap, uint32_t saddr, const struct irnet_station *st,
			size_t n, uint16_t mask)
{
	const size_t head = offsetof(struct irda_device_list, dev);
	struct irda_device_info all[IRNET_CLIENT_STATIONS_MAX];
	uint32_t count = 0;

	if (cap < head)
		return -EINVAL;
	for (size_t i = 0; i < n && count < IRNET_CLIENT_STATIONS_MAX; i++) {
		if (!irsock_hints_match(st[i].hints, mask))
			continue;
		struct irda_device_info *d = &all[count++];
		memset(d, 0, sizeof(*d));
		d->saddr = saddr;
		d->daddr = st[i].addr;
		size_t nl = st[i].nickname_len < sizeof(d->info) ? st[i].nickname_len : sizeof(d->info);
		memcpy(d->info, st[i].nickname, nl);
		d->charset = st[i].charset;
		d->hints[0] = (uint8_t)(st[i].hints >> 8);
		d->hints[1] = (uint8_t)st[i].hints;
	}
	if (count == 0)
		return -EAGAIN;
	memcpy(buf, &count, sizeof(count));
	/* as the kernel: the whole list, cut at the caller's length */
	size_t total = head + (size_t)count * sizeof(all[0]);
	if (total > cap)
		total = cap;
	memcpy((uint8_t *)buf + head, all, total - head);
	return (int)total;
}

int irsock_fill_ias_value(struct irda_ias_set *set, const struct irnet_ias_value *v)
{
	memset(&set->attribute, 0, sizeof(set->attribute));
	switch (v->type) {
	case IRDAD_IAS_INT:
		set->attribute.irda_attrib_int = v->integer;
		break;
	case IRDAD_IAS_OCTETS: {
		size_t len = v->len < IRSOCK_IAS_OCTETS_MAX ? v->len : IRSOCK_IAS_OCTETS_MAX;
		set->attribute.irda_attrib_octet_seq.len = (unsigned short)len;
		memcpy(set->attribute.irda_attrib_octet_seq.octet_seq, v->bytes, len);
		break;
	}
	case IRDAD_IAS_STRING: {
		/* the kernel put a NUL after the string: room for it */
		size_t len = v->len < IRSOCK_IAS_STRING_MAX - 1 ? v->len : IRSOCK_IAS_STRING_MAX - 1;
		set->attribute.irda_attrib_string.len = (uint8_t)len;
		set->attribute.irda_attrib_string.charset = v->charset;
		memcpy(set->attribute.irda_attrib_string.string, v->bytes, len);
		break;
	}
	default:
		return -EINVAL;
	}
	set->irda_attrib_type = v->type;
	return 0;
}

int irsock_ias_attr_from_set(const struct irda_ias_set *set, struct irnet_ias_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	switch (set->irda_attrib_type) {
	case IRSOCK_IAS_INTEGER:
		attr->type = IRDAD_IAS_INT;
		attr->integer = set->attribute.irda_attrib_int;
		return 0;
	case IRSOCK_IAS_OCTETS:
		if (set->attribute.irda_attrib_octet_seq.len > IRSOCK_IAS_OCTETS_MAX)
			return -EINVAL;
		attr->type = IRDAD_IAS_OCTETS;
		attr->bytes = set->attribute.irda_attrib_octet_seq.octet_seq;
		attr->len = set->attribute.irda_attrib_octet_seq.len;
		return 0;
	case IRSOCK_IAS_STRING:
		attr->type = IRDAD_IAS_STRING;
		attr->bytes = set->attribute.irda_attrib_string.string;
		attr->len = set->attribute.irda_attrib_string.len;
		attr->charset = set->attribute.irda_attrib_string.charset;
		return 0;
	default:
		return -EINVAL;
	}
}

void irsock_copy_name(char *dst, size_t dstcap, const char *src, size_t srccap)
{
	size_t n = strnlen(src, srccap);
	if (n >= dstcap)
		n = dstcap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void irsock_make_addr(struct sockaddr_irda *sa, uint32_t addr, uint8_t lsap)
{
	memset(sa, 0, sizeof(*sa));
	sa->sir_family = IRSOCK_AF;
	sa->sir_lsap_sel = lsap;
	sa->sir_addr = addr;
}

int irsock_connect_errno(int err, const char *text, bool by_any)
{
	bool at_connect = text && strncmp(text, "connect:", 8) == 0;

	switch (-err) {
	case ENOENT:            /* IAS: the class or attribute is not there */
		return EADDRNOTAVAIL;
	case EHOSTUNREACH:
		if (at_connect)     /* the peer's IrLMP or the link said no */
			return ECONNRESET;
		/* "no station in range" (by_any) or the IAS query failed */
		return by_any && text && strstr(text, "no station") ? ENETUNREACH : EHOSTUNREACH;
	case ECONNREFUSED:      /* nobody at that LSAP: af_irda had no sk_err */
		return ECONNRESET;
	default:
		return -err;
	}
}

int irsock_ias_errno(int err)
{
	if (err == -ENOENT)
		return EADDRNOTAVAIL;
	if (err == -EINVAL || err == -ENOMEM)
		return -err;
	return EHOSTUNREACH;
}
