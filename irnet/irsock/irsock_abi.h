/*
 * irsock_abi.h: the binary interface of Linux's AF_IRDA sockets, as
 * programs built against the old <linux/irda.h> use it, seen from
 * libirsock: the kit's header (linux/irda.h beside this file, the one
 * installed for those programs), the numbers under irsock's names, and
 * the protocol limits irsock keeps to.
 *
 * Owns: the check that the layouts and numbers are the ABI's (every size,
 * offset and number programs depend on, asserted below with the values of
 * the kernel's uapi header; docs/irsock.md lists them).  One set of
 * declarations, the installed one, so that irsock and the programs it
 * serves cannot drift apart.
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

/* quoted: the kit's header beside this file, never a system one */
#include "linux/irda.h"

#define IRSOCK_AF AF_IRDA
#define IRSOCK_SOL_IRLMP SOL_IRLMP
#define IRSOCK_SOL_IRTTP SOL_IRTTP

/* getsockopt/setsockopt names at IRSOCK_SOL_IRLMP */
enum irsock_opt {
	IRSOCK_OPT_ENUMDEVICES = IRLMP_ENUMDEVICES,
	IRSOCK_OPT_IAS_SET = IRLMP_IAS_SET,
	IRSOCK_OPT_IAS_QUERY = IRLMP_IAS_QUERY,
	IRSOCK_OPT_HINTS_SET = IRLMP_HINTS_SET,
	IRSOCK_OPT_QOS_SET = IRLMP_QOS_SET,
	IRSOCK_OPT_QOS_GET = IRLMP_QOS_GET,
	IRSOCK_OPT_MAX_SDU_SIZE = IRLMP_MAX_SDU_SIZE,
	IRSOCK_OPT_IAS_GET = IRLMP_IAS_GET,
	IRSOCK_OPT_IAS_DEL = IRLMP_IAS_DEL,
	IRSOCK_OPT_HINT_MASK_SET = IRLMP_HINT_MASK_SET,
	IRSOCK_OPT_WAITDEVICE = IRLMP_WAITDEVICE,
};

#define IRSOCK_ADDR_ANY 0xffffffffu   /* "any device" in sir_addr */
#define IRSOCK_LSAP_ANY LSAP_ANY      /* "any free selector" in bind */
#define IRSOCK_NAME_MAX 25            /* sir_name, NUL included */
#define IRSOCK_NICK_MAX 22            /* irda_device_info.info */
/* the names irsock passes to irdad: the protocol's limits, not the
 * (larger) fields of irda_ias_set */
#define IRSOCK_IAS_CLASS_MAX IAS_MAX_CLASSNAME
#define IRSOCK_IAS_ATTR_MAX IAS_MAX_ATTRIBNAME
#define IRSOCK_IAS_OCTETS_MAX IAS_MAX_OCTET_STRING
#define IRSOCK_IAS_STRING_MAX IAS_MAX_STRING
/* the kernel refused larger discovery logs */
#define IRSOCK_DEVICES_MAX 2048

/* IAS value types (irda_attrib_type), the same numbers as IAS itself */
enum irsock_ias_type {
	IRSOCK_IAS_MISSING = IAS_MISSING,
	IRSOCK_IAS_INTEGER = IAS_INTEGER,
	IRSOCK_IAS_OCTETS = IAS_OCT_SEQ,
	IRSOCK_IAS_STRING = IAS_STRING,
};

/* The numbers of the ABI (the kernel's uapi <linux/irda.h>), checked
 * against the kit's header, not assumed from it. */
_Static_assert(AF_IRDA == 23, "AF_IRDA is 23");
_Static_assert(SOL_IRLMP == 266 && SOL_IRTTP == 266, "SOL_IRLMP and SOL_IRTTP are both 266");
_Static_assert(IRLMP_ENUMDEVICES == 1 && IRLMP_IAS_SET == 2 && IRLMP_IAS_QUERY == 3 &&
		       IRLMP_HINTS_SET == 4 && IRLMP_QOS_SET == 5 && IRLMP_QOS_GET == 6 &&
		       IRLMP_MAX_SDU_SIZE == 7 && IRLMP_IAS_GET == 8 && IRLMP_IAS_DEL == 9 &&
		       IRLMP_HINT_MASK_SET == 10 && IRLMP_WAITDEVICE == 11 &&
		       IRTTP_MAX_SDU_SIZE == 7,
	       "SOL_IRLMP option numbers 1..11");
_Static_assert(IAS_MAX_STRING == 256 && IAS_MAX_OCTET_STRING == 1024 &&
		       IAS_MAX_CLASSNAME == 60 && IAS_MAX_ATTRIBNAME == 60 &&
		       IAS_MAX_ATTRIBNUMBER == 256,
	       "IAS limits");
_Static_assert(IAS_EXPORT_CLASSNAME == 64 && IAS_EXPORT_ATTRIBNAME == 256,
	       "irda_ias_set's name fields are 64 and 256 bytes");
_Static_assert(IAS_MISSING == 0 && IAS_INTEGER == 1 && IAS_OCT_SEQ == 2 && IAS_STRING == 3,
	       "IAS types");
_Static_assert(LSAP_ANY == 0xff, "LSAP_ANY");
_Static_assert(IRDAPROTO_UNITDATA == 0 && IRDAPROTO_ULTRA == 1, "IRDAPROTO_*");
_Static_assert(HINT_PNP == 0x01 && HINT_PDA == 0x02 && HINT_COMPUTER == 0x04 &&
		       HINT_PRINTER == 0x08 && HINT_MODEM == 0x10 && HINT_FAX == 0x20 &&
		       HINT_LAN == 0x40 && HINT_EXTENSION == 0x80,
	       "first hint byte");
_Static_assert(HINT_TELEPHONY == 0x01 && HINT_FILE_SERVER == 0x02 && HINT_COMM == 0x04 &&
		       HINT_MESSAGE == 0x08 && HINT_HTTP == 0x10 && HINT_OBEX == 0x20,
	       "second hint byte");
_Static_assert(CS_ASCII == 0 && CS_ISO_8859_1 == 1 && CS_ISO_8859_9 == 9 && CS_UNICODE == 0xff,
	       "character sets");
_Static_assert(IRDA_TEKRAM_DONGLE == 0 && IRDA_MCP2120_DONGLE == 9 &&
		       IRDA_EP7211_DONGLE == 13,
	       "dongle numbers");
_Static_assert(SIOCSDONGLE == 0x89f0 && SIOCGQOS == 0x89f9, "SIOCDEVPRIVATE + 0..9");
_Static_assert(IRNAMSIZ == 16 && IRDA_NL_CMD_MAX == 2 && IRDA_NL_ATTR_MAX == 2 &&
		       IRDA_MODE_MONITOR == 4,
	       "interface and netlink numbers");

/* The layouts programs were compiled with (x86-64 and every Linux ABI
 * with 4-byte aligned 32-bit integers). */
_Static_assert(sizeof(struct sockaddr_irda) == 36, "sockaddr_irda is 36 bytes");
_Static_assert(offsetof(struct sockaddr_irda, sir_lsap_sel) == 2, "sir_lsap_sel at 2");
_Static_assert(offsetof(struct sockaddr_irda, sir_addr) == 4, "sir_addr at 4");
_Static_assert(offsetof(struct sockaddr_irda, sir_name) == 8, "sir_name at 8");
_Static_assert(sizeof(((struct sockaddr_irda *)0)->sir_name) == IRSOCK_NAME_MAX, "sir_name[25]");
_Static_assert(sizeof(struct irda_device_info) == 36, "irda_device_info is 36 bytes");
_Static_assert(offsetof(struct irda_device_info, daddr) == 4, "daddr at 4");
_Static_assert(offsetof(struct irda_device_info, info) == 8, "info at 8");
_Static_assert(sizeof(((struct irda_device_info *)0)->info) == IRSOCK_NICK_MAX, "info[22]");
_Static_assert(offsetof(struct irda_device_info, charset) == 30, "charset at 30");
_Static_assert(offsetof(struct irda_device_info, hints) == 31, "hints at 31");
_Static_assert(offsetof(struct irda_device_list, dev) == 4, "dev[] at 4");
_Static_assert(sizeof(struct irda_device_list) == 40, "irda_device_list is 40 bytes");
_Static_assert(offsetof(struct irda_ias_set, irda_attrib_name) == 64, "irda_attrib_name at 64");
_Static_assert(offsetof(struct irda_ias_set, irda_attrib_type) == 320, "irda_attrib_type at 320");
_Static_assert(offsetof(struct irda_ias_set, attribute) == 324, "attribute at 324");
_Static_assert(offsetof(struct irda_ias_set, attribute.irda_attrib_octet_seq.octet_seq) == 326,
	       "octet_seq at 326");
_Static_assert(offsetof(struct irda_ias_set, attribute.irda_attrib_string.charset) == 325,
	       "string charset at 325");
_Static_assert(offsetof(struct irda_ias_set, attribute.irda_attrib_string.string) == 326,
	       "string at 326");
_Static_assert(offsetof(struct irda_ias_set, daddr) == 1352, "daddr at 1352");
_Static_assert(sizeof(struct irda_ias_set) == 1356, "irda_ias_set is 1356 bytes");

#endif
