/*
 * fuzz_dongle_spec.c: dongle spec strings ("tekram:delay=100ms,...")
 * from the command line or a config file, and the scripts they lead to.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dongle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[256];
	size_t n = size < sizeof(spec) - 1 ? size : sizeof(spec) - 1;
	memcpy(spec, data, n);
	spec[n] = '\0';
	struct dongle d;
	char err[200];
	if (dongle_init(&d, spec, err, sizeof(err)) != 0)
		return 0;
	/* whatever was accepted builds sane scripts for every rate it has */
	static const uint32_t rates[] = { 2400, 9600, 19200, 38400, 57600, 115200 };
	if (!dongle_supports(&d, 9600))
		abort();
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct dongle_script s;
		dongle_script_init(&s);
		int r = dongle_set_speed(&d, 9600, rates[i], &s);
		if ((r == 0) != dongle_supports(&d, rates[i]))
			abort();
		if (r == 0 && s.steps[s.n - 1].value != rates[i])
			abort();
	}
	return 0;
}
