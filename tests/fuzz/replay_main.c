/*
 * replay_main.c: the main() of a libFuzzer harness in a build without
 * libFuzzer (gcc, or the sanitizer build): runs LLVMFuzzerTestOneInput
 * once on each file named on the command line, as a libFuzzer binary
 * does when given files.  tests/fuzz-replay.sh uses it in `make check`
 * to replay every corpus input and every kept crasher
 * (tests/fuzz/corpus/NAME/) through its harness.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define REPLAY_MAX (4u << 20)   /* larger inputs are not corpus material */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path, uint8_t *buf)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return -1;
	}
	n = fread(buf, 1, REPLAY_MAX, f);
	if (ferror(f) || !feof(f)) {
		fprintf(stderr, "%s: unreadable or over %u bytes\n", path, REPLAY_MAX);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t *buf = malloc(REPLAY_MAX + 1);
	int bad = 0;

	if (!buf)
		return 1;
	for (int i = 1; i < argc; i++)
		if (replay(argv[i], buf) != 0)
			bad = 1;
	free(buf);
	printf("replayed %d inputs\n", argc - 1 - bad);
	return bad;
}
