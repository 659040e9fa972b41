/*
 * test_support.h: what several unit tests need alike (header only).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_TEST_SUPPORT_H
#define IRNET_TEST_SUPPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pcap_file.h"

/*
 * Bulk transfers move 1 MiB each way.  Under AddressSanitizer (the
 * sanitizer build runs every unit test again, several times slower) the
 * same scenarios move a quarter of that.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(TEST_UNDER_ASAN)
#define MIB (256 * 1024)
#else
#define MIB (1024 * 1024)
#endif

/*
 * A real-time test's time limit: us on an idle machine, multiplied by
 * IRNET_TEST_SLOWDOWN (tests/ceiling.sh: a positive number, 1 when unset
 * or not a number; bootstrap.sh check measures it), so that a test that
 * waits for events does not fail because the machine is busy.
 */
static inline uint64_t test_ceiling_us(uint64_t us)
{
	const char *text = getenv("IRNET_TEST_SLOWDOWN");
	char *end = NULL;
	double factor = text && *text ? strtod(text, &end) : 1.0;

	if (!(factor > 0.0) || (end && *end != '\0') || factor > 1000.0)
		factor = 1.0;
	return (uint64_t)((double)us * factor);
}

/* A uniform draw in [0, 1) from a splitmix64 generator in *state: the
 * tests' own reproducible randomness (losses chosen by a test). */
static inline double test_uniform(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

/* The real Linux IrNET session in tests/fixtures (343 IrLAP frames),
 * found through the abs_top_srcdir or top_srcdir the harness exports. */
static inline const char *reference_capture_path(void)
{
	static char path[4096];
	const char *top = getenv("abs_top_srcdir");
	if (!top)
		top = getenv("top_srcdir");
	snprintf(path, sizeof(path), "%s/tests/fixtures/linux-irnet-session.pcap", top ? top : "..");
	return path;
}

/* Loads it into a new buffer (free() it); 0 or -errno. */
static inline int load_reference_capture(uint8_t **data, size_t *len)
{
	return pcap_file_load(reference_capture_path(), 1 << 24, data, len);
}

#endif
