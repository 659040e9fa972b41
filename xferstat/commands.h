/*
 * commands.h: the subcommands of xferstat(1), each a main() of its own:
 * argv[0] is the subcommand's name, the return value the exit code
 * (0 success, 1 the job failed, 2 usage or input error, 130 interrupted).
 *
 * run and import are in cli_run.c and cli_import.c; compare and plot
 * belong to the statistics part (compare.c, plot.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_COMMANDS_H
#define XFERSTAT_COMMANDS_H

int xferstat_cmd_run(int argc, char **argv);
int xferstat_cmd_import(int argc, char **argv);
int xferstat_cmd_compare(int argc, char **argv);
int xferstat_cmd_plot(int argc, char **argv);

#endif
