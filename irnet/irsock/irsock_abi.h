/*
 * irsock_abi.h: the binary interface of Linux's AF_IRDA sockets, as
 * programs built against the old <linux/irda.h> use it: the address, the
 * discovery list, the IAS option block, the option numbers.
 *
 * Owns: the layouts (sizes and offsets are ABI, checked below) and the
 * numbers.  The names are ours (irsock_*), since only the layout is
 * shared with those programs; docs/irsock.md lists where each number and
 * size comes from.
 *
 * Does not own: what the calls do with them (irsock.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRSOCK_ABI_H
#define IRSOCK_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* The address family is in every libc (AF_IRDA, 23); the option levels
 * were only in the kernel's header. */
#define IRSOCK_AF 23
#define IRSOCK_SOL_IRLMP 266
#define IRSOCK_SOL_IRTTP 267

/* getsockopt/setsockopt names at IRSOCK_SOL_IRLMP */
enum irsock_opt {
	IRSOCK_OPT_ENUMDEVICES = 1,   /* get: the discovery log */
	IRSOCK_OPT_IAS_SET = 2,       /* set: an attribute in our IAS */
	IRSOCK_OPT_IAS_QUERY = 3,     /* get: an attribute of a peer's IAS */
	IRSOCK_OPT_HINTS_SET = 4,     /* set: the hints we advertise */
	IRSOCK_OPT_QOS_SET = 5,
	IRSOCK_OPT_QOS_GET = 6,
	IRSOCK_OPT_MAX_SDU_SIZE = 7,  /* get: the largest write */
	IRSOCK_OPT_IAS_GET = 8,       /* get: an attribute of our IAS */
	IRSOCK_OPT_IAS_DEL = 9,       /* set: remove an attribute we set */
	IRSOCK_OPT_HINT_MASK_SET = 10,/* set: filter ENUMDEVICES by hints */
	IRSOCK_OPT_WAITDEVICE = 11,   /* get: wait for a new station */
};

#define IRSOCK_ADDR_ANY 0xffffffffu   /* "any device" in sir_addr */
#define IRSOCK_LSAP_ANY 0xff          /* "any free selector" in bind */
#define IRSOCK_NAME_MAX 25            /* sir_name, NUL included */
#define IRSOCK_NICK_MAX 22            /* irda_device_info.info */
#define IRSOCK_IAS_CLASS_MAX 60
#define IRSOCK_IAS_ATTR_MAX 60
#define IRSOCK_IAS_OCTETS_MAX 1024
#define IRSOCK_IAS_STRING_MAX 256
/* the kernel refused larger discovery logs */
#define IRSOCK_DEVICES_MAX 2048

/* IAS value types (irda_attrib_type), the same numbers as IAS itself */
enum irsock_ias_type {
	IRSOCK_IAS_MISSING = 0,
	IRSOCK_IAS_INTEGER = 1,
	IRSOCK_IAS_OCTETS = 2,
	IRSOCK_IAS_STRING = 3,
};

/* struct sockaddr_irda */
struct irsock_sockaddr {
	sa_family_t family;            /* IRSOCK_AF */
	uint8_t lsap_sel;
	uint32_t addr;                 /* device address, host order */
	char name[IRSOCK_NAME_MAX];    /* IAS class ("OBEX"), or "" */
};

/* struct irda_device_info: one entry of the discovery log */
struct irsock_device_info {
	uint32_t saddr;                /* our address */
	uint32_t daddr;                /* the station's */
	char info[IRSOCK_NICK_MAX];    /* its nickname */
	uint8_t charset;
	uint8_t hints[2];              /* first two hint bytes, as sent */
};

/* struct irda_device_list: a count, then that many entries */
struct irsock_device_list {
	uint32_t len;
	struct irsock_device_info dev[1];
};

/* struct irda_ias_set */
struct irsock_ias_set {
	char class_name[IRSOCK_IAS_CLASS_MAX];
	char attrib_name[IRSOCK_IAS_ATTR_MAX];
	unsigned int attrib_type;      /* enum irsock_ias_type */
	union {
		unsigned int integer;
		struct {
			unsigned short len;
			uint8_t bytes[IRSOCK_IAS_OCTETS_MAX];
		} octets;
		struct {
			uint8_t len;
			uint8_t charset;
			uint8_t bytes[IRSOCK_IAS_STRING_MAX];
		} string;
	} attribute;
	uint32_t daddr;                /* IAS_QUERY on an unconnected socket */
};

/* The layouts programs were compiled with (x86-64 and every Linux ABI
 * with 4-byte aligned 32-bit integers): checked, not assumed. */
_Static_assert(sizeof(struct irsock_sockaddr) == 36, "sockaddr_irda is 36 bytes");
_Static_assert(offsetof(struct irsock_sockaddr, lsap_sel) == 2, "sir_lsap_sel at 2");
_Static_assert(offsetof(struct irsock_sockaddr, addr) == 4, "sir_addr at 4");
_Static_assert(offsetof(struct irsock_sockaddr, name) == 8, "sir_name at 8");
_Static_assert(sizeof(struct irsock_device_info) == 36, "irda_device_info is 36 bytes");
_Static_assert(offsetof(struct irsock_device_info, info) == 8, "info at 8");
_Static_assert(offsetof(struct irsock_device_info, charset) == 30, "charset at 30");
_Static_assert(offsetof(struct irsock_device_info, hints) == 31, "hints at 31");
_Static_assert(offsetof(struct irsock_device_list, dev) == 4, "dev[] at 4");
_Static_assert(offsetof(struct irsock_ias_set, attrib_type) == 120, "irda_attrib_type at 120");
_Static_assert(offsetof(struct irsock_ias_set, attribute) == 124, "attribute at 124");
_Static_assert(offsetof(struct irsock_ias_set, daddr) == 1152, "daddr at 1152");
_Static_assert(sizeof(struct irsock_ias_set) == 1156, "irda_ias_set is 1156 bytes");

#endif
