/*
 * cli_import.c: `xferstat import`: reads other tools' output files and
 * writes one result file.  All files are parsed before anything is
 * written, so a bad file leaves the output untouched.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "import.h"
#include "results.h"

static void usage(FILE *out)
{
	fputs("usage: xferstat import [--format F] [--label L | --separator TEXT] [--size BYTES]\n"
	      "                       [--intervals] [--strict] [-v|-q] [-o OUT.json] FILE...\n"
	      "Reads transfer reports of other tools and writes them as xferstat results\n"
	      "(to OUT.json, or standard output).\n"
	      "  -f, --format F   ftp, curl, curl-json, nuttcp, netpipe, iperf3, irspray,\n"
	      "                   csv, times, table, or auto (default: detected per file)\n"
	      "  -l, --label L    put every run in the set L (default: each file's name, and\n"
	      "                   NAME#1, NAME#2... for a file of several sessions; CSV lines\n"
	      "                   may carry their own label, a table's header names its sets,\n"
	      "                   and a heading in a pasted mail, a short line of prose\n"
	      "                   followed by runs, starts a set named by it)\n"
	      "      --separator TEXT  a line starting with TEXT starts a new set, named by\n"
	      "                   the rest of the line (instead of guessing headings)\n"
	      "  -s, --size BYTES bytes of each run for a plain list of times or a table\n"
	      "  -i, --intervals  take nuttcp -i and iperf3 intervals as the runs\n"
	      "      --strict     fail (exit 2, write nothing) if any line is not recognised,\n"
	      "                   a record or session is cut short, or a table's Avg. or\n"
	      "                   Dev. cell matches none of the statistics of its runs\n"
	      "  -o, --output F   result file (written atomically); \"-\" is standard output\n"
	      "  -v, --verbose    also report lines that carry no run; twice: each run found\n"
	      "                   (FILE:LINE:COLUMN); -q: errors only\n",
	      out);
}

static void print_summary(const char *file, const struct xfer_import_stats *st)
{
	fprintf(stderr,
		"xferstat: %s: %s: %zu runs, %zu lines without a run, %zu not recognised, "
		"%zu blank", file, xfer_format_name(st->format), st->runs, st->unused,
		st->unrecognised, st->blank);
	if (st->sessions > 1)
		fprintf(stderr, ", %zu sessions", st->sessions);
	if (st->broken)
		fprintf(stderr, ", %zu records cut or changed", st->broken);
	if (st->dropped)
		fprintf(stderr, ", %zu runs of a session cut short left out", st->dropped);
	if (st->checks_failed)
		fprintf(stderr, ", %zu Avg./Dev. cells match no statistic", st->checks_failed);
	fputc('\n', stderr);
	/* Which sets, and why, when there is more than the file's one. */
	for (size_t i = 0; (st->n_sets_made > 1 || st->headings) && i < st->n_sets_made; i++)
		fprintf(stderr, "xferstat: %s: set %s\n", file, st->sets_made[i]);
}

int xferstat_cmd_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "label", required_argument, NULL, 'l' },
		{ "size", required_argument, NULL, 's' },
		{ "intervals", no_argument, NULL, 'i' },
		{ "strict", no_argument, NULL, 'S' },
		{ "separator", required_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct xfer_import_opts opts = { .format = XFER_FORMAT_AUTO };
	const char *output = "-";
	bool strict = false;
	int verbosity = 0, ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "f:l:s:io:vqh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			if (!xfer_format_from_name(optarg, &opts.format)) {
				cli_error("import: unknown format '%s' (see xferstat import --help)", optarg);
				return XFERSTAT_EXIT_USAGE;
			}
			break;
		case 'l':
			opts.label = optarg;
			break;
		case 's':
			if (!cli_parse_size(optarg, &opts.size)) {
				cli_error("import: bad --size '%s' (bytes, e.g. 1048576 or 1M)", optarg);
				return XFERSTAT_EXIT_USAGE;
			}
			break;
		case 'i':
			opts.intervals = true;
			break;
		case 'S':
			strict = true;
			break;
		case 'P':
			if (!*optarg) {
				cli_error("import: --separator needs a text that starts the lines");
				return XFERSTAT_EXIT_USAGE;
			}
			opts.separator = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'v':
			verbosity++;
			break;
		case 'q':
			verbosity = -1;
			break;
		case 'h':
			usage(stdout);
			return XFERSTAT_EXIT_OK;
		default:
			usage(stderr);
			return XFERSTAT_EXIT_USAGE;
		}
	}
	if (opts.label && opts.separator) {
		cli_error("import: --label puts every run in one set; --separator splits them: "
			  "give one of them");
		return XFERSTAT_EXIT_USAGE;
	}
	if (optind >= argc) {
		cli_error("import: no input file");
		usage(stderr);
		return XFERSTAT_EXIT_USAGE;
	}
	struct logger log;
	cli_logger_init(&log, verbosity);
	struct xfer_sets sets;
	xfer_sets_init(&sets);
	size_t runs = 0, faults = 0;
	int rc = XFERSTAT_EXIT_OK;
	for (int i = optind; i < argc; i++) {
		struct xfer_error err = { "" };
		struct xfer_import_stats st;
		char *data;
		size_t len;
		if (!xfer_read_whole_file(argv[i], &data, &len, &err)) {
			cli_error("import: %s", err.msg);
			rc = XFERSTAT_EXIT_USAGE;
			break;
		}
		bool ok = xfer_import_buffer(&sets, argv[i], data, len, &opts, &st, &log, &err);
		free(data);
		/* The table check is shown even when the import fails (no size). */
		for (size_t k = 0; verbosity >= 0 && k < st.n_checks; k++)
			fprintf(stderr, "xferstat: %s\n", st.checks[k]);
		if (ok && verbosity >= 0)
			print_summary(argv[i], &st);
		xfer_import_stats_free(&st);
		if (!ok) {
			cli_error("import: %s", err.msg);
			rc = XFERSTAT_EXIT_USAGE;
			break;
		}
		runs += st.runs;
		faults += st.unrecognised + st.broken + (st.dropped ? 1 : 0) + st.checks_failed;
	}
	if (rc == XFERSTAT_EXIT_OK && runs == 0) {
		cli_error("import: no run found in the input; nothing written (-v tells why for each line)");
		rc = XFERSTAT_EXIT_USAGE;
	}
	if (rc == XFERSTAT_EXIT_OK && strict && faults > 0) {
		cli_error("import: %zu lines, records, sessions or table cells not right (--strict); "
			  "nothing written", faults);
		rc = XFERSTAT_EXIT_USAGE;
	}
	if (rc == XFERSTAT_EXIT_OK) {
		struct xfer_error err = { "" };
		if (!xfer_sets_save(&sets, output, &err)) {
			cli_error("import: %s", err.msg);
			rc = XFERSTAT_EXIT_FAILED;
		}
	}
	xfer_sets_free(&sets);
	return rc;
}
