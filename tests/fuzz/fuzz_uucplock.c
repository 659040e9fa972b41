/*
 * fuzz_uucplock.c: the UUCP lock-file parser over arbitrary file
 * content (any program can write /var/lock/LCK..*).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "uucplock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pid_t pid = 0;
	if (uucplock_parse(data, size, &pid) && pid <= 0)
		abort();   /* a parsed PID is always positive */
	return 0;
}
