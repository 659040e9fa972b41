/*
 * irsock_ias.c: IRLMP_IAS_SET and IRLMP_IAS_QUERY by a program that
 * declares Linux's AF_IRDA structures itself, with the layout programs
 * compiled against the kernel's <linux/irda.h> have (irda_ias_set: names
 * of 64 and 256 bytes, type at 320, value at 324, daddr at 1352, 1356
 * bytes), and nothing of irnet-tools: tests/irsock-ias.sh runs it under
 * irsock(1) on two irdad.
 *
 *   irsock_ias serve            a listener "IasAbi", attributes set in its
 *                               object and in "IasAbiInfo"; prints its
 *                               LSAP, then "serving", and waits for EOF
 *                               on stdin
 *   irsock_ias query NICK LSAP  finds NICK by IRLMP_ENUMDEVICES, queries
 *                               those attributes (daddr in the block, on
 *                               an unconnected socket) and irdad's own
 *
 * Prints "ok: ..." per check passed, or "FAIL: ..." and exits 1.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* --- the ABI, declared here from its numbers --- */
#ifndef AF_IRDA
#define AF_IRDA 23
#endif
#define SOL_IRLMP 266
#define IRLMP_ENUMDEVICES 1
#define IRLMP_IAS_SET 2
#define IRLMP_IAS_QUERY 3
#define LSAP_ANY 0xff
#define IAS_INTEGER 1
#define IAS_OCT_SEQ 2
#define IAS_STRING 3

struct sockaddr_irda {
	sa_family_t sir_family;
	unsigned char sir_lsap_sel;
	unsigned int sir_addr;
	char sir_name[25];
};

struct irda_device_info {
	unsigned int saddr;
	unsigned int daddr;
	char info[22];
	unsigned char charset;
	unsigned char hints[2];
};

struct irda_device_list {
	unsigned int len;
	struct irda_device_info dev[1];
};

struct irda_ias_set {
	char irda_class_name[64];
	char irda_attrib_name[256];
	unsigned int irda_attrib_type;
	union {
		unsigned int irda_attrib_int;
		struct {
			unsigned short len;
			unsigned char octet_seq[1024];
		} irda_attrib_octet_seq;
		struct {
			unsigned char len;
			unsigned char charset;
			unsigned char string[256];
		} irda_attrib_string;
	} attribute;
	unsigned int daddr;
};

_Static_assert(offsetof(struct irda_ias_set, irda_attrib_name) == 64, "attribute name at 64");
_Static_assert(offsetof(struct irda_ias_set, irda_attrib_type) == 320, "type at 320");
_Static_assert(offsetof(struct irda_ias_set, attribute) == 324, "value at 324");
_Static_assert(offsetof(struct irda_ias_set, daddr) == 1352, "daddr at 1352");
_Static_assert(sizeof(struct irda_ias_set) == 1356, "1356 bytes");
_Static_assert(sizeof(struct sockaddr_irda) == 36, "sockaddr_irda");
_Static_assert(sizeof(struct irda_device_info) == 36, "irda_device_info");

/* the size the old irsock wrongly expected: must be refused now */
#define OLD_WRONG_SIZE 1156

/* The attributes: names long enough that only the right offsets carry
 * them whole (the integer's name reaches past byte 60 of the block's
 * attribute field, which a 60-byte field would cut). */
static const char words_attr[] = "AbiWords";
static const char words_val[] = "sixty-four and two hundred fifty-six";
static const char info_class[] = "IasAbiInfo";
static const char long_attr[] = "AnAttributeNameOfFiftyNineCharactersToFillTheFieldsPastSixt";
static const unsigned int long_val = 0x1234abcdu;
static const char blob_attr[] = "Blob";
#define BLOB_LEN 48
_Static_assert(sizeof(long_attr) - 1 == 59, "the long name has 59 characters");

static void fail(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void check(int cond, const char *what)
{
	if (!cond) {
		printf("FAIL: %s\n", what);
		exit(1);
	}
	printf("ok: %s\n", what);
}

static void blob(unsigned char *b)
{
	for (int i = 0; i < BLOB_LEN; i++)
		b[i] = (unsigned char)(i * 7 + 3);
}

static void names(struct irda_ias_set *s, const char *cls, const char *attr)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->irda_class_name, sizeof(s->irda_class_name), "%s", cls);
	snprintf(s->irda_attrib_name, sizeof(s->irda_attrib_name), "%s", attr);
}

static int serve(void)
{
	struct sockaddr_irda sa;
	struct irda_ias_set s;

	int fd = socket(AF_IRDA, SOCK_STREAM, 0);
	if (fd < 0)
		fail("socket");
	memset(&sa, 0, sizeof(sa));
	sa.sir_family = AF_IRDA;
	sa.sir_lsap_sel = LSAP_ANY;
	snprintf(sa.sir_name, sizeof(sa.sir_name), "IasAbi");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fail("bind");
	if (listen(fd, 1) < 0)
		fail("listen");
	socklen_t len = sizeof(sa);
	if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		fail("getsockname");

	/* in the socket's own object (class ""), a string */
	names(&s, "", words_attr);
	s.irda_attrib_type = IAS_STRING;
	s.attribute.irda_attrib_string.len = (unsigned char)strlen(words_val);
	s.attribute.irda_attrib_string.charset = 1;   /* ISO-8859-1 */
	memcpy(s.attribute.irda_attrib_string.string, words_val, strlen(words_val));
	if (setsockopt(fd, SOL_IRLMP, IRLMP_IAS_SET, &s, sizeof(s)) < 0)
		fail("IRLMP_IAS_SET string");
	/* in another class, an integer with a long name */
	names(&s, info_class, long_attr);
	s.irda_attrib_type = IAS_INTEGER;
	s.attribute.irda_attrib_int = long_val;
	if (setsockopt(fd, SOL_IRLMP, IRLMP_IAS_SET, &s, sizeof(s)) < 0)
		fail("IRLMP_IAS_SET integer");
	/* and an octet sequence */
	names(&s, info_class, blob_attr);
	s.irda_attrib_type = IAS_OCT_SEQ;
	s.attribute.irda_attrib_octet_seq.len = BLOB_LEN;
	blob(s.attribute.irda_attrib_octet_seq.octet_seq);
	if (setsockopt(fd, SOL_IRLMP, IRLMP_IAS_SET, &s, sizeof(s)) < 0)
		fail("IRLMP_IAS_SET octets");
	/* the size of a block with 60-byte names is not the ABI's */
	names(&s, info_class, "Wrong");
	s.irda_attrib_type = IAS_INTEGER;
	errno = 0;
	check(setsockopt(fd, SOL_IRLMP, IRLMP_IAS_SET, &s, OLD_WRONG_SIZE) < 0 && errno == EINVAL,
	      "IRLMP_IAS_SET with optlen 1156: EINVAL");
	printf("listening: LSAP 0x%02x\n", sa.sir_lsap_sel);
	printf("serving\n");
	fflush(stdout);
	char c;
	while (read(0, &c, 1) > 0)
		;
	close(fd);
	return 0;
}

/* IRLMP_IAS_QUERY to daddr on a fresh, unconnected socket: 0 with the
 * answer in *s, or the errno. */
static int query(unsigned int daddr, const char *cls, const char *attr, struct irda_ias_set *s,
		 socklen_t size)
{
	int fd = socket(AF_IRDA, SOCK_STREAM, 0);
	if (fd < 0)
		fail("socket");
	names(s, cls, attr);
	s->daddr = daddr;
	socklen_t len = size;
	int r = getsockopt(fd, SOL_IRLMP, IRLMP_IAS_QUERY, s, &len) < 0 ? errno : 0;
	close(fd);
	return r;
}

static unsigned int find(const char *nick)
{
	unsigned char buf[sizeof(struct irda_device_list) + 7 * sizeof(struct irda_device_info)];
	struct irda_device_list *list = (struct irda_device_list *)buf;

	int fd = socket(AF_IRDA, SOCK_STREAM, 0);
	if (fd < 0)
		fail("socket");
	for (int tries = 0; tries < 5; tries++) {
		socklen_t len = sizeof(buf);
		if (getsockopt(fd, SOL_IRLMP, IRLMP_ENUMDEVICES, buf, &len) < 0) {
			if (errno == EAGAIN)
				continue;
			fail("IRLMP_ENUMDEVICES");
		}
		for (unsigned int i = 0; i < list->len && i < 8; i++) {
			if (strncmp(list->dev[i].info, nick, sizeof(list->dev[i].info)) == 0) {
				close(fd);
				return list->dev[i].daddr;
			}
		}
	}
	printf("FAIL: IRLMP_ENUMDEVICES: no station \"%s\"\n", nick);
	exit(1);
}

static int run_query(const char *nick, unsigned int lsap)
{
	struct irda_ias_set s;
	char what[200];
	unsigned int daddr = find(nick);
	printf("ok: IRLMP_ENUMDEVICES found \"%s\" at 0x%08x\n", nick, daddr);

	int r = query(daddr, "IasAbi", "IrDA:TinyTP:LsapSel", &s, sizeof(s));
	snprintf(what, sizeof(what), "IAS_QUERY IasAbi IrDA:TinyTP:LsapSel: integer %u (%s, type %u, %u)",
		 lsap, strerror(r), s.irda_attrib_type, s.attribute.irda_attrib_int);
	check(r == 0 && s.irda_attrib_type == IAS_INTEGER && s.attribute.irda_attrib_int == lsap,
	      what);

	r = query(daddr, "IasAbi", words_attr, &s, sizeof(s));
	snprintf(what, sizeof(what), "IAS_QUERY IasAbi %s: the string IAS_SET put, charset 1 (%s)",
		 words_attr, strerror(r));
	check(r == 0 && s.irda_attrib_type == IAS_STRING &&
		      s.attribute.irda_attrib_string.len == strlen(words_val) &&
		      s.attribute.irda_attrib_string.charset == 1 &&
		      memcmp(s.attribute.irda_attrib_string.string, words_val, strlen(words_val)) == 0,
	      what);

	r = query(daddr, info_class, long_attr, &s, sizeof(s));
	snprintf(what, sizeof(what), "IAS_QUERY %s (59-character name): integer 0x%08x (%s)",
		 info_class, long_val, strerror(r));
	check(r == 0 && s.irda_attrib_type == IAS_INTEGER && s.attribute.irda_attrib_int == long_val,
	      what);

	unsigned char want[BLOB_LEN];
	blob(want);
	r = query(daddr, info_class, blob_attr, &s, sizeof(s));
	snprintf(what, sizeof(what), "IAS_QUERY %s %s: %d octets (%s)", info_class, blob_attr,
		 BLOB_LEN, strerror(r));
	check(r == 0 && s.irda_attrib_type == IAS_OCT_SEQ &&
		      s.attribute.irda_attrib_octet_seq.len == BLOB_LEN &&
		      memcmp(s.attribute.irda_attrib_octet_seq.octet_seq, want, BLOB_LEN) == 0,
	      what);

	r = query(daddr, "Device", "DeviceName", &s, sizeof(s));
	snprintf(what, sizeof(what), "IAS_QUERY Device DeviceName: \"%s\" (%s)", nick, strerror(r));
	check(r == 0 && s.irda_attrib_type == IAS_STRING &&
		      s.attribute.irda_attrib_string.len == strlen(nick) &&
		      memcmp(s.attribute.irda_attrib_string.string, nick, strlen(nick)) == 0,
	      what);

	r = query(daddr, info_class, "Wrong", &s, sizeof(s));
	check(r == EADDRNOTAVAIL, "IAS_QUERY of the attribute refused at optlen 1156: EADDRNOTAVAIL");
	r = query(daddr, "NoSuchClass", "Foo", &s, sizeof(s));
	check(r == EADDRNOTAVAIL, "IAS_QUERY of a missing class: EADDRNOTAVAIL");
	r = query(daddr, "IasAbi", words_attr, &s, OLD_WRONG_SIZE);
	check(r == EINVAL, "IAS_QUERY with optlen 1156: EINVAL");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "serve") == 0)
		return serve();
	if (argc == 4 && strcmp(argv[1], "query") == 0)
		return run_query(argv[2], (unsigned int)strtoul(argv[3], NULL, 0));
	fprintf(stderr, "usage: irsock_ias serve | query NICK LSAP\n");
	return 2;
}
