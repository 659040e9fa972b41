/*
 * irsock_kit_probe.c: an AF_IRDA program as a user writes one, built by
 * tests/clients/irsock-kit.sh against the installed kit only
 * (`pkg-config --cflags --libs irsock`: <linux/irda.h> of irnet-tools,
 * linked with libirsock, no LD_PRELOAD) and nothing else of the tree.
 *
 *   irsock_kit_probe NICKNAME   finds NICKNAME by IRLMP_ENUMDEVICES and
 *                               asks its IAS for Device/DeviceName
 *
 * Prints "ok: ..." per step, or "FAIL: ..." and exits 1.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/irda.h>

#define DEVICES 8

static int fail(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned char buf[sizeof(struct irda_device_list) +
			  (DEVICES - 1) * sizeof(struct irda_device_info)];
	struct irda_device_list *list = (struct irda_device_list *)buf;
	struct irda_ias_set ias;
	socklen_t len = sizeof(buf);
	unsigned i;

	if (argc != 2) {
		fprintf(stderr, "usage: irsock_kit_probe NICKNAME\n");
		return 2;
	}
	int fd = socket(AF_IRDA, SOCK_STREAM, 0);
	if (fd < 0)
		return fail("socket(AF_IRDA)");
	printf("ok: socket(AF_IRDA, SOCK_STREAM)\n");
	/* a station answers the first discovery on an idle line, but two
	 * discoveries can collide: as libdivecomputer, try a few times */
	for (i = 0; i < 5; i++) {
		len = sizeof(buf);
		if (getsockopt(fd, SOL_IRLMP, IRLMP_ENUMDEVICES, buf, &len) == 0 && list->len > 0)
			break;
		if (errno != EAGAIN)
			return fail("IRLMP_ENUMDEVICES");
	}
	if (i == 5)
		return fail("IRLMP_ENUMDEVICES (nobody, five times)");
	for (i = 0; i < list->len && i < DEVICES; i++)
		if (strncmp(list->dev[i].info, argv[1], sizeof(list->dev[i].info)) == 0)
			break;
	if (i == list->len || i == DEVICES) {
		printf("FAIL: %s is not among the %u stations listed\n", argv[1], list->len);
		return 1;
	}
	printf("ok: IRLMP_ENUMDEVICES: \"%s\" at 0x%08x\n", list->dev[i].info, list->dev[i].daddr);

	memset(&ias, 0, sizeof(ias));
	snprintf(ias.irda_class_name, sizeof(ias.irda_class_name), "Device");
	snprintf(ias.irda_attrib_name, sizeof(ias.irda_attrib_name), "DeviceName");
	ias.daddr = list->dev[i].daddr;
	len = sizeof(ias);
	if (getsockopt(fd, SOL_IRLMP, IRLMP_IAS_QUERY, &ias, &len) < 0)
		return fail("IRLMP_IAS_QUERY Device DeviceName");
	if (ias.irda_attrib_type != IAS_STRING ||
	    ias.attribute.irda_attrib_string.len != strlen(argv[1]) ||
	    memcmp(ias.attribute.irda_attrib_string.string, argv[1], strlen(argv[1])) != 0) {
		printf("FAIL: IRLMP_IAS_QUERY: type %u, %u bytes, not the string \"%s\"\n",
		       ias.irda_attrib_type, ias.attribute.irda_attrib_string.len, argv[1]);
		return 1;
	}
	printf("ok: IRLMP_IAS_QUERY Device DeviceName: \"%s\" (%zu-byte irda_ias_set)\n", argv[1],
	       sizeof(ias));
	close(fd);
	return 0;
}
