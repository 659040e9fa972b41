/*
 * main.c: xferstat(1): dispatches to the subcommands (commands.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

struct command {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "run", xferstat_cmd_run, "time repeated transfers of URLs (ftp, http, sftp, ...)" },
	{ "import", xferstat_cmd_import, "read results of ftp, curl, nuttcp, NetPIPE, iperf3, ..." },
	{ "compare", xferstat_cmd_compare, "say whether conditions differ (table, tests, verdict)" },
	{ "plot", xferstat_cmd_plot, "draw the rates of result sets to PNG or SVG" },
};

static void usage(FILE *out)
{
	fputs("usage: xferstat COMMAND [OPTION]... [ARG]...\n"
	      "Times repeated transfers, imports other tools' results, and says whether\n"
	      "two conditions really differ.\n\ncommands:\n", out);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("\n`xferstat COMMAND --help` describes each; see also xferstat(1).\n", out);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return XFERSTAT_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return XFERSTAT_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("xferstat (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return XFERSTAT_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].main(argc - 1, argv + 1);
	cli_error("unknown command '%s'", argv[1]);
	usage(stderr);
	return XFERSTAT_EXIT_USAGE;
}
