/*
 * <linux/irda.h> of irnet-tools: the user interface of Linux's AF_IRDA
 * sockets (the address, the discovery list, the IAS option block, the
 * option numbers and the constants around them), for building AF_IRDA
 * programs on systems whose kernel headers no longer carry it.  The
 * programs then run under irsock(1), or linked with -lirsock
 * (`pkg-config --cflags --libs irsock`; man irsock, "Building AF_IRDA
 * software").
 *
 * Owns: the names, numbers, sizes and offsets programs compiled against
 * the kernel's header use (irnet/irsock/irsock_abi.h checks every size and
 * offset against the numbers of that ABI; docs/irsock.md lists them).
 * Plain C of any standard, and C++: no assertion in here.  Written from the ABI's facts for
 * irnet-tools, installed as $(includedir)/irnet-tools/linux/irda.h, so
 * that it never takes the place of a kernel header in /usr/include/linux.
 *
 * Does not own: what the calls do (libirsock, irnet/irsock/irsock.c).
 * The driver ioctls (SIOCSDONGLE...) are here so that old tools compile;
 * irsock has no IrDA network interface to apply them to.
 *
 * SPDX-License-Identifier: MIT
 */
/* the kernel's header guard, so that a program that tests it, or the
 * kernel's own header met first, finds the interface defined once */
#ifndef KERNEL_IRDA_H
#define KERNEL_IRDA_H

#include <linux/types.h>
#include <sys/socket.h>

#ifndef AF_IRDA
#define AF_IRDA 23
#endif
#ifndef PF_IRDA
#define PF_IRDA AF_IRDA
#endif

/* Hint bits, first byte */
#define HINT_PNP         0x01
#define HINT_PDA         0x02
#define HINT_COMPUTER    0x04
#define HINT_PRINTER     0x08
#define HINT_MODEM       0x10
#define HINT_FAX         0x20
#define HINT_LAN         0x40
#define HINT_EXTENSION   0x80   /* another hint byte follows */

/* Hint bits, second byte */
#define HINT_TELEPHONY   0x01
#define HINT_FILE_SERVER 0x02
#define HINT_COMM        0x04   /* IrCOMM */
#define HINT_MESSAGE     0x08
#define HINT_HTTP        0x10
#define HINT_OBEX        0x20

/* Character sets of nicknames and IAS strings (IrLMP) */
#define CS_ASCII         0x00
#define CS_ISO_8859_1    0x01
#define CS_ISO_8859_2    0x02
#define CS_ISO_8859_3    0x03
#define CS_ISO_8859_4    0x04
#define CS_ISO_8859_5    0x05
#define CS_ISO_8859_6    0x06
#define CS_ISO_8859_7    0x07
#define CS_ISO_8859_8    0x08
#define CS_ISO_8859_9    0x09
#define CS_UNICODE       0xff

/* Dongle types of SIOCSDONGLE (kernel drivers) */
typedef enum {
	IRDA_TEKRAM_DONGLE = 0,
	IRDA_ESI_DONGLE = 1,
	IRDA_ACTISYS_DONGLE = 2,
	IRDA_ACTISYS_PLUS_DONGLE = 3,
	IRDA_GIRBIL_DONGLE = 4,
	IRDA_LITELINK_DONGLE = 5,
	IRDA_AIRPORT_DONGLE = 6,
	IRDA_OLD_BELKIN_DONGLE = 7,
	IRDA_EP7211_IR = 8,
	IRDA_MCP2120_DONGLE = 9,
	IRDA_ACT200L_DONGLE = 10,
	IRDA_MA600_DONGLE = 11,
	IRDA_TOIM3232_DONGLE = 12,
	IRDA_EP7211_DONGLE = 13
} IRDA_DONGLE;

/* socket(AF_IRDA, SOCK_DGRAM, protocol) */
enum {
	IRDAPROTO_UNITDATA = 0,
	IRDAPROTO_ULTRA = 1,
	IRDAPROTO_MAX
};

/* Option levels: both are the one AF_IRDA level */
#define SOL_IRLMP 266
#define SOL_IRTTP 266

/* getsockopt/setsockopt names */
#define IRLMP_ENUMDEVICES    1    /* get: the discovery log (irda_device_list) */
#define IRLMP_IAS_SET        2    /* set: an attribute in our IAS (irda_ias_set) */
#define IRLMP_IAS_QUERY      3    /* get: an attribute of a peer's IAS */
#define IRLMP_HINTS_SET      4    /* set: hint bits we announce */
#define IRLMP_QOS_SET        5
#define IRLMP_QOS_GET        6
#define IRLMP_MAX_SDU_SIZE   7    /* get: the largest write */
#define IRLMP_IAS_GET        8    /* get: an attribute of our IAS */
#define IRLMP_IAS_DEL        9    /* set: remove an attribute */
#define IRLMP_HINT_MASK_SET  10   /* set: filter IRLMP_ENUMDEVICES by hints */
#define IRLMP_WAITDEVICE     11   /* get: wait for a new station */

#define IRTTP_MAX_SDU_SIZE IRLMP_MAX_SDU_SIZE

/* The protocol's limits (IrLMP) */
#define IAS_MAX_STRING        256
#define IAS_MAX_OCTET_STRING  1024
#define IAS_MAX_CLASSNAME     60
#define IAS_MAX_ATTRIBNAME    60
#define IAS_MAX_ATTRIBNUMBER  256
/* The sizes of the name fields of struct irda_ias_set: not the limits
 * above, a NUL and padding beyond them */
#define IAS_EXPORT_CLASSNAME  64
#define IAS_EXPORT_ATTRIBNAME 256

/* irda_attrib_type */
#define IAS_MISSING 0
#define IAS_INTEGER 1
#define IAS_OCT_SEQ 2
#define IAS_STRING  3

#define LSAP_ANY 0xff   /* bind: any free selector */

struct sockaddr_irda {
	sa_family_t sir_family;   /* AF_IRDA */
	__u8 sir_lsap_sel;        /* LSAP selector, or LSAP_ANY */
	__u32 sir_addr;           /* device address (discovery's daddr) */
	char sir_name[25];        /* IAS class to look up ("OBEX"), or "" */
};

/* One station of the discovery log */
struct irda_device_info {
	__u32 saddr;              /* our address */
	__u32 daddr;              /* the station's */
	char info[22];            /* its nickname */
	__u8 charset;             /* of the nickname, CS_* */
	__u8 hints[2];            /* its first two hint bytes, as sent */
};

/* IRLMP_ENUMDEVICES: a count, then that many entries */
struct irda_device_list {
	__u32 len;
	struct irda_device_info dev[1];
};

/* IRLMP_IAS_SET, IRLMP_IAS_QUERY, IRLMP_IAS_GET, IRLMP_IAS_DEL */
struct irda_ias_set {
	char irda_class_name[IAS_EXPORT_CLASSNAME];
	char irda_attrib_name[IAS_EXPORT_ATTRIBNAME];
	unsigned int irda_attrib_type;            /* IAS_* */
	union {
		unsigned int irda_attrib_int;
		struct {
			unsigned short len;
			__u8 octet_seq[IAS_MAX_OCTET_STRING];
		} irda_attrib_octet_seq;
		struct {
			__u8 len;
			__u8 charset;
			__u8 string[IAS_MAX_STRING];
		} irda_attrib_string;
	} attribute;
	__u32 daddr;              /* IRLMP_IAS_QUERY on an unconnected socket */
};

/* Driver ioctls on an IrDA network interface */
#define SIOCSDONGLE    (0x89F0 + 0)   /* SIOCDEVPRIVATE + n */
#define SIOCGDONGLE    (0x89F0 + 1)
#define SIOCSBANDWIDTH (0x89F0 + 2)
#define SIOCSMEDIABUSY (0x89F0 + 3)
#define SIOCGMEDIABUSY (0x89F0 + 4)
#define SIOCGRECEIVING (0x89F0 + 5)
#define SIOCSMODE      (0x89F0 + 6)
#define SIOCGMODE      (0x89F0 + 7)
#define SIOCSDTRRTS    (0x89F0 + 8)
#define SIOCGQOS       (0x89F0 + 9)

#define IRNAMSIZ 16

struct if_irda_qos {
	unsigned long baudrate;
	unsigned short data_size;
	unsigned short window_size;
	unsigned short min_turn_time;
	unsigned short max_turn_time;
	unsigned char add_bofs;
	unsigned char link_disc;
};

struct if_irda_line {
	__u8 dtr;
	__u8 rts;
};

struct if_irda_req {
	union {
		char ifrn_name[IRNAMSIZ];   /* "irda0" */
	} ifr_ifrn;
	union {
		struct if_irda_line ifru_line;
		struct if_irda_qos ifru_qos;
		unsigned short ifru_flags;
		unsigned int ifru_receiving;
		unsigned int ifru_mode;
		unsigned int ifru_dongle;
	} ifr_ifru;
};

#define ifr_baudrate  ifr_ifru.ifru_qos.baudrate
#define ifr_receiving ifr_ifru.ifru_receiving
#define ifr_dongle    ifr_ifru.ifru_dongle
#define ifr_mode      ifr_ifru.ifru_mode
#define ifr_dtr       ifr_ifru.ifru_line.dtr
#define ifr_rts       ifr_ifru.ifru_line.rts

/* The generic netlink family of the IrDA stack (interface modes) */
#define IRDA_NL_NAME "irda"
#define IRDA_NL_VERSION 1

enum irda_nl_commands {
	IRDA_NL_CMD_UNSPEC,
	IRDA_NL_CMD_SET_MODE,
	IRDA_NL_CMD_GET_MODE,
	__IRDA_NL_CMD_AFTER_LAST
};
#define IRDA_NL_CMD_MAX (__IRDA_NL_CMD_AFTER_LAST - 1)

enum {
	IRDA_NL_ATTR_UNSPEC,
	IRDA_NL_ATTR_IFNAME,
	IRDA_NL_ATTR_MODE,
	__IRDA_NL_ATTR_AFTER_LAST
};
#define IRDA_NL_ATTR_MAX (__IRDA_NL_ATTR_AFTER_LAST - 1)

#define IRDA_MODE_PRIMARY   0x1
#define IRDA_MODE_SECONDARY 0x2
#define IRDA_MODE_MONITOR   0x4

#endif /* KERNEL_IRDA_H */
