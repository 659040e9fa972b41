/*
 * stats_commands.c: `xferstat compare` and `xferstat plot`.  See
 * stats_commands.h.  Program code: it prints; the modules it calls do
 * not.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "stats_commands.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "compare.h"
#include "plot.h"
#include "results.h"
#include "table.h"
#include "termplot.h"

enum { EXIT_DONE = 0, EXIT_JOB_FAILED = 1, EXIT_USAGE = 2 };

static void say(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "xferstat: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Loads one file and checks every set in it, so that a message names the
 * file; the sets are then moved into *all.  Returns an exit code. */
static int load_file(const char *cmd, const char *path, struct xfer_sets *all)
{
	struct xfer_sets one;
	struct xfer_error err;
	char why[256];
	int rc = EXIT_DONE;

	xfer_sets_init(&one);
	if (!xfer_sets_load(&one, path, &err)) {
		say(cmd, "%s", err.msg);
		return EXIT_USAGE;
	}
	if (one.n == 0) {
		say(cmd, "%s: no result set in the file", path);
		rc = EXIT_USAGE;
	}
	for (size_t i = 0; rc == EXIT_DONE && i < one.n; i++)
		if (xs_set_check(&one.sets[i], why, sizeof(why)) != 0) {
			say(cmd, "%s: %s", path, why);
			rc = EXIT_USAGE;
		}
	for (size_t i = 0; rc == EXIT_DONE && i < one.n; i++)
		if (!xfer_sets_take(all, &one.sets[i])) {
			say(cmd, "%s: out of memory", path);
			rc = EXIT_JOB_FAILED;
		}
	xfer_sets_free(&one);
	return rc;
}

/* Every file, in order; nothing is reported unless all of them load. */
static int load_files(const char *cmd, int n, char **paths, struct xfer_sets *all)
{
	int rc = EXIT_DONE;

	if (n == 0) {
		say(cmd, "no result file given (see xferstat %s --help)", cmd);
		return EXIT_USAGE;
	}
	for (int i = 0; rc == EXIT_DONE && i < n; i++)
		rc = load_file(cmd, paths[i], all);
	return rc;
}

static bool parse_alpha(const char *text, double *alpha)
{
	char *end;

	errno = 0;
	*alpha = strtod(text, &end);
	return errno == 0 && end != text && *end == '\0' && *alpha > 0.0 && *alpha < 1.0;
}

/* getopt_long's '?': an unknown option, or one of with_arg (the short
 * names of options taking an argument) given without one. */
static int bad_option(const char *cmd, char **argv, const char *with_arg)
{
	if (optopt && strchr(with_arg, optopt))
		say(cmd, "'%s' needs an argument", argv[optind - 1]);
	else if (optopt)
		say(cmd, "unknown option '-%c'", optopt);
	else
		say(cmd, "unknown option '%s'", argv[optind - 1]);
	say(cmd, "see xferstat %s --help", cmd);
	return EXIT_USAGE;
}

/* Prints the buffer; a write error (a full disk, a closed pipe) is a
 * failure of the job. */
static int emit(const char *cmd, const struct xs_out *o)
{
	if (!xs_out_ok(o)) {
		say(cmd, "out of memory");
		return EXIT_JOB_FAILED;
	}
	if (fputs(xs_out_str(o), stdout) == EOF || fflush(stdout) != 0) {
		say(cmd, "writing standard output: %s", strerror(errno));
		return EXIT_JOB_FAILED;
	}
	return EXIT_DONE;
}

static int build_report(const char *cmd, struct xs_report *r, const struct xfer_sets *sets,
			const struct xs_options *opt)
{
	char err[256];
	int rc = xs_report_build(r, sets->sets, sets->n, opt, err, sizeof(err));

	if (rc == 0)
		return EXIT_DONE;
	say(cmd, "%s", err);
	return rc == -ENOMEM ? EXIT_JOB_FAILED : EXIT_USAGE;
}

/* ---- compare ------------------------------------------------------------- */

enum compare_format { CMP_TEXT, CMP_JSON, CMP_CSV, CMP_MARKDOWN };

struct compare_args {
	enum compare_format format;
	int plot;               /* 1 --plot, 0 --no-plot, -1 when stdout is a terminal */
	struct xs_options opt;
};

static void compare_usage(FILE *out)
{
	fputs("usage: xferstat compare [--json|--csv|--markdown] [--alpha A] [--arith-rate]\n"
	      "                        [--population] [--ci METHOD] [--plot|--no-plot] FILE.json...\n"
	      "Prints the runs of every result set side by side (Time and Rate), their\n"
	      "statistics, and each set against the first: Welch's t-test, the Mann-Whitney\n"
	      "U test, and a verdict in words.\n"
	      "      --json        the whole report as JSON\n"
	      "      --csv         the table as CSV (seconds and bytes/s)\n"
	      "      --markdown    the table and verdicts as Markdown\n"
	      "  -a, --alpha A     level of the tests (default 0.05)\n"
	      "      --arith-rate  report the arithmetic mean of the run rates instead of\n"
	      "                    total bytes / total time (labelled as such)\n"
	      "      --population  the Dev. row is the population SD (divisor n), labelled\n"
	      "                    Dev.(pop.), to compare with old tables that used it\n"
	      "      --ci METHOD   95 % interval of the mean time and rate: auto (default: the\n"
	      "                    bootstrap for few skewed runs, else t), t, log or bootstrap;\n"
	      "                    never below 0 (t falls back to log), the method is named\n"
	      "      --plot        add a strip plot of the rates (text output; default\n"
	      "                    when standard output is a terminal); --no-plot: never\n"
	      "  -h, --help        this help\n", out);
}

static int compare_parse(int argc, char **argv, struct compare_args *a)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "csv", no_argument, NULL, 'C' },
		{ "markdown", no_argument, NULL, 'M' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "arith-rate", no_argument, NULL, 'R' },
		{ "population", no_argument, NULL, 'D' },
		{ "ci", required_argument, NULL, 'I' },
		{ "plot", no_argument, NULL, 'P' },
		{ "no-plot", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "a:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'J': a->format = CMP_JSON; break;
		case 'C': a->format = CMP_CSV; break;
		case 'M': a->format = CMP_MARKDOWN; break;
		case 'R': a->opt.arith_rate = true; break;
		case 'D': a->opt.dev_population = true; break;
		case 'I':
			if (!xs_ci_method_from_name(optarg, &a->opt.ci)) {
				say(argv[0], "--ci '%s': give auto, t, log or bootstrap", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'P': a->plot = 1; break;
		case 'N': a->plot = 0; break;
		case 'h': compare_usage(stdout); return -1;
		case 'a':
			if (!parse_alpha(optarg, &a->opt.alpha)) {
				say(argv[0], "--alpha '%s': give a number between 0 and 1, e.g. 0.05", optarg);
				return EXIT_USAGE;
			}
			break;
		default: return bad_option(argv[0], argv, "a");
		}
	}
	if (a->plot == 1 && (a->format == CMP_JSON || a->format == CMP_CSV)) {
		say(argv[0], "--plot goes with text or Markdown output, not --json or --csv");
		return EXIT_USAGE;
	}
	return EXIT_DONE;
}

static size_t terminal_width(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= XS_TERMPLOT_MIN_WIDTH)
		return ws.ws_col > 160 ? 160 : ws.ws_col;
	return XS_TERMPLOT_WIDTH;
}

static void compare_render(const struct xs_report *r, const struct compare_args *a,
			   struct xs_out *o)
{
	switch (a->format) {
	case CMP_JSON: xs_render_json(r, o); return;
	case CMP_CSV: xs_render_csv(r, o); return;
	case CMP_MARKDOWN: xs_render_markdown(r, o); break;
	case CMP_TEXT: xs_render_text(r, o); break;
	}
	bool tty = isatty(STDOUT_FILENO);

	if (a->plot == 1 || (a->plot == -1 && tty && a->format == CMP_TEXT)) {
		xs_out_printf(o, a->format == CMP_MARKDOWN ? "\n```\n" : "\n");
		xs_termplot(r, tty ? terminal_width() : XS_TERMPLOT_WIDTH, o);
		if (a->format == CMP_MARKDOWN)
			xs_out_printf(o, "```\n");
	}
}

int xferstat_cmd_compare(int argc, char **argv)
{
	struct compare_args a = { CMP_TEXT, -1, { XS_ALPHA_DEFAULT, false, false, XS_CI_AUTO } };
	struct xfer_sets sets;
	struct xs_report r;
	struct xs_out o;
	int rc = compare_parse(argc, argv, &a);

	if (rc != EXIT_DONE)
		return rc < 0 ? EXIT_DONE : rc;
	xfer_sets_init(&sets);
	rc = load_files(argv[0], argc - optind, argv + optind, &sets);
	if (rc == EXIT_DONE)
		rc = build_report(argv[0], &r, &sets, &a.opt);
	if (rc == EXIT_DONE) {
		xs_out_init(&o);
		compare_render(&r, &a, &o);
		rc = emit(argv[0], &o);
		xs_out_free(&o);
		xs_report_free(&r);
	}
	xfer_sets_free(&sets);
	return rc;
}

/* ---- plot --------------------------------------------------------------- */

static void plot_usage(FILE *out)
{
	fputs("usage: xferstat plot [--arith-rate] -o FILE.png|FILE.svg FILE.json...\n"
	      "Draws the run rates of every result set (box and strip plot) and, when runs\n"
	      "have a block size (NetPIPE), rate against block size.\n"
	      "  -o, --output F    the picture; its extension (.png, .svg) picks the format\n"
	      "      --arith-rate  mark the arithmetic mean of the run rates instead of\n"
	      "                    total bytes / total time\n"
	      "  -h, --help        this help\n", out);
}

static int plot_parse(int argc, char **argv, const char **output, struct xs_options *opt)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "arith-rate", no_argument, NULL, 'R' },
		{ "population", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum xs_plot_format fmt;
	int ch;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o': *output = optarg; break;
		case 'R': opt->arith_rate = true; break;
		case 'h': plot_usage(stdout); return -1;
		default: return bad_option(argv[0], argv, "o");
		}
	}
	if (!*output) {
		say(argv[0], "no picture named: give -o FILE.png or -o FILE.svg");
		return EXIT_USAGE;
	}
	if (!xs_plot_format_for(*output, &fmt)) {
		say(argv[0], "%s: unknown picture format (name it .png or .svg)", *output);
		return EXIT_USAGE;
	}
	return EXIT_DONE;
}

int xferstat_cmd_plot(int argc, char **argv)
{
	struct xs_options opt = { XS_ALPHA_DEFAULT, false, false, XS_CI_AUTO };
	const char *output = NULL;
	struct xfer_sets sets;
	struct xs_report r;
	char err[512];
	int rc = plot_parse(argc, argv, &output, &opt);

	if (rc != EXIT_DONE)
		return rc < 0 ? EXIT_DONE : rc;
	xfer_sets_init(&sets);
	rc = load_files(argv[0], argc - optind, argv + optind, &sets);
	if (rc == EXIT_DONE)
		rc = build_report(argv[0], &r, &sets, &opt);
	if (rc == EXIT_DONE) {
		if (xs_plot_write(&r, output, err, sizeof(err)) != 0) {
			say(argv[0], "%s", err);
			rc = EXIT_JOB_FAILED;
		}
		xs_report_free(&r);
	}
	xfer_sets_free(&sets);
	return rc;
}
