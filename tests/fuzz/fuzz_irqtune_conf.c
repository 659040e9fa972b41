/*
 * fuzz_irqtune_conf.c: irqtune.conf parsing, then matching every rule
 * against a port, over arbitrary bytes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct irqtune_conf c;
	struct irqtune_settings s;
	struct irqtune_port p;
	char err[256];
	memset(&p, 0, sizeof(p));
	memcpy(p.name, "ttyS0", 6);
	memcpy(p.devnode, "/dev/ttyS0", 11);
	p.nlinks = 1;
	memcpy(p.links[0], "/dev/serial/by-path/platform-serial8250", 40);
	irqtune_port_set_prop(&p, "DRIVER", "serial8250");
	irqtune_port_set_prop(&p, "ID_PATH", "platform-serial8250");
	if (irqtune_conf_parse(data, size, "fuzz.conf", &c, err, sizeof(err)) == 0)
		irqtune_conf_resolve(&c, &p, NULL, &s);
	irqtune_conf_free(&c);
	return 0;
}
