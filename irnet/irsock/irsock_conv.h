/*
 * irsock_conv.h: translations between irdad's local API and the AF_IRDA
 * ABI, for libirsock: the discovery log, IAS values, addresses, and the
 * errno values af_irda gave where irdad says it in its own words.
 *
 * Owns: pure conversions (no I/O, no state), so that they can be tested
 * alone.  Does not own: the calls (irsock.c) or the layouts
 * (irsock_abi.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRSOCK_CONV_H
#define IRSOCK_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "irnet_client.h"
#include "irsock_abi.h"

/* Whether a station passes a HINT_MASK_SET filter (mask as the kernel
 * kept it: the option's low 16 bits viewed as the two hint bytes). */
bool irsock_hints_match(uint16_t api_hints, uint16_t mask);

/*
 * Writes the discovery log into buf (cap bytes, the caller's optlen) as
 * the kernel did: the count of matching stations first, then as many
 * entries as fit.  Returns the bytes written (what optlen becomes), or
 * -EINVAL when cap cannot hold the count, -EAGAIN when no station
 * matches (what the kernel answered for an empty log).
 */
int irsock_fill_devices(void *buf, size_t cap, uint32_t saddr, const struct irnet_station *st,
			size_t n, uint16_t mask);

/* The first value of an IAS answer into an irda_ias_set's value fields;
 * -EINVAL for a value the ABI cannot carry (a missing one). */
int irsock_fill_ias_value(struct irda_ias_set *set, const struct irnet_ias_value *v);

/* An irda_ias_set's value as an attribute to register (name and bytes
 * point into set); -EINVAL for an unknown type or a length past its
 * field. */
int irsock_ias_attr_from_set(const struct irda_ias_set *set, struct irnet_ias_attr *attr);

/* A name field of the ABI (not always NUL-terminated) as a C string. */
void irsock_copy_name(char *dst, size_t dstcap, const char *src, size_t srccap);

/* An address for getsockname/getpeername. */
void irsock_make_addr(struct sockaddr_irda *sa, uint32_t addr, uint8_t lsap);

/* What connect() answers for irdad's error to a CONNECT (err negative,
 * text irdad's words): af_irda's errno, positive.  by_any: the request
 * named no device (irdad looked through its discovery log). */
int irsock_connect_errno(int err, const char *text, bool by_any);

/* What IRLMP_IAS_QUERY answers for irdad's error to an IAS_QUERY. */
int irsock_ias_errno(int err);

#endif
