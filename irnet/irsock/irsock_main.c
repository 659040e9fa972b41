/*
 * irsock_main.c: irsock [--daemon SOCKET] [--debug] PROGRAM [ARG]...
 * runs PROGRAM with libirsock.so preloaded (docs/irsock.md, irsock(1)).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef IRSOCK_LIBRARY
#define IRSOCK_LIBRARY "libirsock.so"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: irsock [--daemon SOCKET] [--debug] PROGRAM [ARG]...\n"
		"Runs PROGRAM with AF_IRDA sockets served by irdad (libirsock.so preloaded).\n"
		"  -d, --daemon SOCKET  irdad's control socket, or a port name (default: the\n"
		"                       first /run/irnet/PORT.sock)\n"
		"  -v, --debug          the library's debug lines on standard error\n"
		"  -h, --help           this text\n"
		"The library: $IRSOCK_LIBRARY, else %s\n",
		IRSOCK_LIBRARY);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "daemon", required_argument, NULL, 'd' },
		{ "debug", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	/* '+': options end at PROGRAM, whose own options are its own */
	while ((c = getopt_long(argc, argv, "+d:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!*optarg) {
				fprintf(stderr, "irsock: --daemon: empty socket name\n");
				return 2;
			}
			if (setenv("IRSOCK_DAEMON", optarg, 1) < 0)
				return 1;
			break;
		case 'v':
			if (setenv("IRSOCK_DEBUG", "1", 1) < 0)
				return 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "irsock: no PROGRAM given\n");
		usage(stderr);
		return 2;
	}

	const char *lib = getenv("IRSOCK_LIBRARY");
	if (!lib || !*lib)
		lib = IRSOCK_LIBRARY;
	if (access(lib, R_OK) < 0) {
		fprintf(stderr, "irsock: %s: %s\n", lib, strerror(errno));
		return 1;
	}
	/* ours first, then whatever the caller preloaded */
	const char *old = getenv("LD_PRELOAD");
	size_t n = strlen(lib) + (old ? strlen(old) + 1 : 0) + 1;
	char *pre = malloc(n);
	if (!pre)
		return 1;
	snprintf(pre, n, "%s%s%s", lib, old && *old ? " " : "", old ? old : "");
	if (setenv("LD_PRELOAD", pre, 1) < 0)
		return 1;
	free(pre);
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "irsock: %s: %s\n", argv[optind], strerror(errno));
	return 1;
}
