/*
 * fuzz_serial_sysfs.c: the classifier of a tty's sysfs subsystem link
 * (outside data read from /sys).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>

#include "serial.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	serial_subsystem_is_usb(data, size);
	return 0;
}
