/*
 * stats_commands.h: the `compare` and `plot` subcommands of xferstat(1).
 *
 * Command layer: these parse their options, load result files
 * (results.h), call the statistics library (compare.h, table.h,
 * termplot.h, plot.h) and print.  Each is a main() of its own: argv[0]
 * is the subcommand's name, the return value the exit code (0 success,
 * 1 the job failed, e.g. a write error, 2 usage or input error).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_STATS_COMMANDS_H
#define XFERSTAT_STATS_COMMANDS_H

int xferstat_cmd_compare(int argc, char **argv);
int xferstat_cmd_plot(int argc, char **argv);

#endif
