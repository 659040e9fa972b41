/*
 * cli_run.c: `xferstat run`: times repeated transfers of one or more
 * URLs, interleaved (A1 B1 A2 B2 ...) so that drift hits every condition
 * alike, and prints the Time and Rate of each run.
 *
 * Options before a URL apply to it: --label to that URL only; --get,
 * --put, --size and --pattern to it and the URLs after it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "compare.h"
#include "link.h"
#include "progress.h"
#include "results.h"
#include "run.h"
#include "table.h"

#define MAX_TARGETS 16

struct target {
	struct xfer_target xfer;
	char *label;
	char *shown_url;       /* without the password */
	size_t set;            /* index into the result sets */
};

struct run_cmd {
	struct target targets[MAX_TARGETS];
	size_t n_targets;
	unsigned long runs, warmup;
	double timeout;
	const char *iface;
	const char *output;
	int verbosity;
};

/* The program's one piece of global state: set by SIGINT, read by the
 * progress callback and the loop. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void usage(FILE *out)
{
	fputs("usage: xferstat run [-n N] [--warmup K] [--timeout S] [--iface IF] [-o OUT.json]\n"
	      "                    [--label L] [--get|--put] [--size SIZE] [--pattern P] URL\n"
	      "                    [[--label L] ... URL]...\n"
	      "Times N transfers of each URL (interleaved when there are several) and prints\n"
	      "the time and rate of each run; the data phase is timed apart from connect/login.\n"
	      "  -n, --runs N       runs per URL (default 5)\n"
	      "  -w, --warmup K     untimed runs first (default 0)\n"
	      "  -l, --label L      name of the next URL's condition (default: the URL)\n"
	      "  -g, --get          download (default)\n"
	      "  -p, --put          upload SIZE bytes of generated PATTERN data\n"
	      "  -s, --size SIZE    bytes to upload: 1048576, 64K, 10M (x1024), 10MB (x1000)\n"
	      "  -P, --pattern P    zero, random or text (default zero)\n"
	      "  -i, --iface IF     sample IF's counters around each run (link bytes, overhead)\n"
	      "  -t, --timeout S    give up on connect, a silent server or a stall after S s\n"
	      "                     (default 30)\n"
	      "  -o, --output F     write the results to F (atomically, after every run)\n"
	      "  -v, --verbose      report each run as it ends; -q: errors only\n",
	      out);
}

static void free_cmd(struct run_cmd *cmd)
{
	for (size_t i = 0; i < cmd->n_targets; i++) {
		free(cmd->targets[i].label);
		free(cmd->targets[i].shown_url);
	}
}

/* Parses the command line into cmd; returns an exit code or -1 to go on. */
static int parse_args(int argc, char **argv, struct run_cmd *cmd)
{
	static const struct option longopts[] = {
		{ "runs", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "label", required_argument, NULL, 'l' },
		{ "get", no_argument, NULL, 'g' },
		{ "put", no_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "pattern", required_argument, NULL, 'P' },
		{ "iface", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct xfer_target cur = { .pattern = XFER_PATTERN_ZERO };
	bool size_given = false, pattern_given = false;
	const char *label = NULL;
	int ch;
	cmd->runs = 5;
	cmd->timeout = 30;
	optind = 1;
	/* A leading "-" keeps URLs in place among the options. */
	while ((ch = getopt_long(argc, argv, "-n:w:l:gps:P:i:t:o:vqh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			if (!cli_parse_count(optarg, 1, 1000000, &cmd->runs)) {
				cli_error("run: bad -n '%s' (a count from 1)", optarg);
				return XFERSTAT_EXIT_USAGE;
			}
			break;
		case 'w':
			if (!cli_parse_count(optarg, 0, 1000000, &cmd->warmup)) {
				cli_error("run: bad --warmup '%s' (a count)", optarg);
				return XFERSTAT_EXIT_USAGE;
			}
			break;
		case 'l':
			label = optarg;
			break;
		case 'g':
			cur.put = false;
			break;
		case 'p':
			cur.put = true;
			break;
		case 's':
			if (!cli_parse_size(optarg, &cur.size)) {
				cli_error("run: bad --size '%s' (bytes, e.g. 1048576, 64K, 10M)", optarg);
				return XFERSTAT_EXIT_USAGE;
			}
			size_given = true;
			break;
		case 'P':
			if (!xfer_pattern_from_name(optarg, &cur.pattern)) {
				cli_error("run: bad --pattern '%s' (zero, random or text)", optarg);
				return XFERSTAT_EXIT_USAGE;
			}
			pattern_given = true;
			break;
		case 'i':
			cmd->iface = optarg;
			break;
		case 't':
			if (!cli_parse_seconds(optarg, &cmd->timeout)) {
				cli_error("run: bad --timeout '%s' (seconds > 0)", optarg);
				return XFERSTAT_EXIT_USAGE;
			}
			break;
		case 'o':
			cmd->output = optarg;
			break;
		case 'v':
			cmd->verbosity++;
			break;
		case 'q':
			cmd->verbosity = -1;
			break;
		case 'h':
			usage(stdout);
			return XFERSTAT_EXIT_OK;
		case 1: {
			if (cmd->n_targets == MAX_TARGETS) {
				cli_error("run: at most %d URLs", MAX_TARGETS);
				return XFERSTAT_EXIT_USAGE;
			}
			if (cur.put && !size_given) {
				cli_error("run: --put %s needs --size", optarg);
				return XFERSTAT_EXIT_USAGE;
			}
			if (!cur.put && (size_given || pattern_given)) {
				cli_error("run: --size and --pattern apply to --put only (%s is a get)", optarg);
				return XFERSTAT_EXIT_USAGE;
			}
			struct xfer_error err;
			int rc = xfer_url_check(optarg, &err);
			if (rc < 0) {
				cli_error("run: %s", err.msg);
				return XFERSTAT_EXIT_USAGE;
			}
			struct target *t = &cmd->targets[cmd->n_targets++];
			t->xfer = cur;
			t->xfer.url = optarg;
			t->shown_url = xfer_url_redacted(optarg);
			t->label = strdup(label ? label : t->shown_url ? t->shown_url : optarg);
			if (!t->shown_url || !t->label) {
				cli_error("run: out of memory");
				return XFERSTAT_EXIT_FAILED;
			}
			for (size_t i = 0; i + 1 < cmd->n_targets; i++) {
				if (strcmp(cmd->targets[i].label, t->label) == 0) {
					cli_error("run: label '%s' given to two URLs", t->label);
					return XFERSTAT_EXIT_USAGE;
				}
			}
			label = NULL;
			break;
		}
		default:
			usage(stderr);
			return XFERSTAT_EXIT_USAGE;
		}
	}
	if (cmd->n_targets == 0) {
		cli_error("run: no URL given");
		usage(stderr);
		return XFERSTAT_EXIT_USAGE;
	}
	if (label) {
		cli_error("run: --label %s is not followed by a URL", label);
		return XFERSTAT_EXIT_USAGE;
	}
	return -1;
}

static bool make_sets(struct run_cmd *cmd, struct xfer_sets *sets)
{
	for (size_t i = 0; i < cmd->n_targets; i++) {
		struct target *t = &cmd->targets[i];
		struct xfer_set set;
		xfer_set_init(&set);
		if (!xfer_set_set_label(&set, t->label) || !xfer_set_set_source(&set, t->shown_url) ||
		    !xfer_set_set_tool(&set, "xferstat") ||
		    !xfer_set_set_direction(&set, t->xfer.put ? "put" : "get") ||
		    !xfer_sets_take(sets, &set)) {
			xfer_set_free(&set);
			return false;
		}
		t->set = sets->n - 1;
	}
	return true;
}

static double kbps(const struct xfer_run *r)
{
	return (double)r->bytes / r->seconds / 1000;
}

static void print_table(const struct xfer_sets *sets, bool with_link)
{
	for (size_t i = 0; i < sets->n; i++) {
		const struct xfer_set *s = &sets->sets[i];
		bool same = s->source && strcmp(s->source, s->label) == 0;
		printf("%s%s%s%s (%s, %zu run%s)\n", i ? "\n" : "", s->label, same ? "" : ": ",
		       same ? "" : s->source ? s->source : "?", s->direction ? s->direction : "?",
		       s->n_runs, s->n_runs == 1 ? "" : "s");
		printf("%4s %12s %12s %14s %10s", "Run", "Bytes", "Time (s)", "Rate (kB/s)", "Setup (s)");
		if (with_link)
			printf(" %12s %9s %7s %8s %6s", "Link bytes", "Overhead", "Compr.", "Packets",
			       "Errors");
		putchar('\n');
		for (size_t j = 0; j < s->n_runs; j++) {
			const struct xfer_run *r = &s->runs[j];
			printf("%4zu %12llu %12.6f %14.2f %10.6f", j + 1, (unsigned long long)r->bytes,
			       r->seconds, kbps(r), r->setup_seconds);
			if (with_link && r->link.present) {
				bool put = s->direction && strcmp(s->direction, "put") == 0;
				uint64_t lb = xfer_link_payload_side(&r->link, put);
				uint64_t pk = put ? r->link.tx_packets : r->link.rx_packets;
				printf(" %12llu %9.4f %7.4f %8llu %6llu", (unsigned long long)lb,
				       r->bytes ? (double)lb / (double)r->bytes : 0,
				       lb ? (double)r->bytes / (double)lb : 0, (unsigned long long)pk,
				       (unsigned long long)(r->link.tx_errors + r->link.rx_errors));
			}
			putchar('\n');
		}
	}
	fflush(stdout);
}

/* The classic table with its Avg. and Dev. rows, and with several labels
 * the verdict of each against the first: the same report as `xferstat
 * compare` gives for the saved file. */
static void print_summary(const struct xfer_sets *sets)
{
	const struct xs_options opt = { XS_ALPHA_DEFAULT, false, false, XS_CI_AUTO };
	struct xs_report report;
	struct xs_out out;
	char err[256];

	for (size_t i = 0; i < sets->n; i++)
		if (sets->sets[i].n_runs == 0)
			return; /* interrupted before every label had a run */
	if (xs_report_build(&report, sets->sets, sets->n, &opt, err, sizeof(err)) != 0) {
		cli_error("run: no summary: %s", err);
		return;
	}
	xs_out_init(&out);
	if (xs_render_text(&report, &out))
		printf("\n%s", xs_out_str(&out));
	xs_out_free(&out);
	xs_report_free(&report);
	fflush(stdout);
}

static bool save(const struct run_cmd *cmd, const struct xfer_sets *sets)
{
	struct xfer_error err;
	if (!cmd->output || xfer_sets_save(sets, cmd->output, &err))
		return true;
	cli_error("run: %s", err.msg);
	return false;
}

/* One transfer of target t, recorded in its set unless it is a warmup.
 * Returns an exit code, or -1 to go on. */
static int one_run(struct run_cmd *cmd, struct target *t, unsigned k, bool warmup,
		   struct xfer_sets *sets, struct xfer_link_sampler *sampler,
		   struct progress *bar, const struct logger *log)
{
	unsigned total = (unsigned)(warmup ? cmd->warmup : cmd->runs);
	struct xfer_transfer_opts topts = {
		.timeout = cmd->timeout,
		.progress = progress_update,
		.progress_ctx = bar,
		.log = log,
	};
	struct xfer_link before = { 0 }, after = { 0 };
	struct xfer_error err;
	if (sampler && xfer_link_sample(sampler, &before, &err) < 0) {
		cli_error("run: %s", err.msg);
		return XFERSTAT_EXIT_FAILED;
	}
	progress_begin(bar, t->label, k, total, warmup);
	struct xfer_outcome out;
	bool ran = xfer_transfer(&t->xfer, &topts, &out);
	progress_end(bar);
	if (!ran) {
		cli_error("run: out of memory setting up the transfer");
		return XFERSTAT_EXIT_FAILED;
	}
	if (out.aborted || interrupted)
		return XFERSTAT_EXIT_INTERRUPTED;
	if (!out.ok) {
		bool named = strcmp(t->label, t->shown_url) != 0;
		cli_error("run: %s %s (%s%s%s%srun %u of %u): failed while %s: %s",
			  t->xfer.put ? "PUT" : "GET", t->shown_url, named ? "label " : "",
			  named ? t->label : "", named ? ", " : "", warmup ? "warmup " : "", k,
			  total, out.doing, out.message);
		return XFERSTAT_EXIT_FAILED;
	}
	if (sampler) {
		if (xfer_link_sample(sampler, &after, &err) < 0) {
			cli_error("run: %s", err.msg);
			return XFERSTAT_EXIT_FAILED;
		}
		xfer_link_delta(&before, &after, &out.run.link);
	}
	log_msg(log, LOG_LEVEL_INFO, "%s %s%u/%u: %llu bytes in %.6f s (%.2f kB/s), setup %.6f s",
		t->label, warmup ? "warmup " : "", k, total, (unsigned long long)out.run.bytes,
		out.run.seconds, kbps(&out.run), out.run.setup_seconds);
	if (warmup)
		return -1;
	if (!xfer_set_add_run(&sets->sets[t->set], &out.run)) {
		cli_error("run: out of memory");
		return XFERSTAT_EXIT_FAILED;
	}
	return save(cmd, sets) ? -1 : XFERSTAT_EXIT_FAILED;
}

static int run_all(struct run_cmd *cmd, struct xfer_sets *sets,
		   struct xfer_link_sampler *sampler, const struct logger *log)
{
	struct progress bar;
	progress_init(&bar, cmd->verbosity >= 0 && isatty(STDERR_FILENO), &interrupted);
	for (unsigned long round = 0; round < cmd->warmup + cmd->runs; round++) {
		bool warmup = round < cmd->warmup;
		unsigned k = (unsigned)(warmup ? round + 1 : round - cmd->warmup + 1);
		for (size_t i = 0; i < cmd->n_targets; i++) {
			if (interrupted)
				return XFERSTAT_EXIT_INTERRUPTED;
			int rc = one_run(cmd, &cmd->targets[i], k, warmup, sets, sampler, &bar, log);
			if (rc >= 0)
				return rc;
		}
	}
	return XFERSTAT_EXIT_OK;
}

int xferstat_cmd_run(int argc, char **argv)
{
	struct run_cmd cmd;
	memset(&cmd, 0, sizeof(cmd));
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		cli_error("run: libcurl failed to initialise");
		return XFERSTAT_EXIT_FAILED;
	}
	int rc = parse_args(argc, argv, &cmd);
	if (rc >= 0) {
		free_cmd(&cmd);
		curl_global_cleanup();
		return rc;
	}
	struct logger log;
	cli_logger_init(&log, cmd.verbosity);
	struct xfer_link_sampler *sampler = NULL;
	if (cmd.iface) {
		struct xfer_error err;
		if (xfer_link_sampler_open(&sampler, cmd.iface, &err) < 0) {
			cli_error("run: %s", err.msg);
			free_cmd(&cmd);
			curl_global_cleanup();
			return XFERSTAT_EXIT_USAGE;
		}
	}
	struct xfer_sets sets;
	xfer_sets_init(&sets);
	if (!make_sets(&cmd, &sets)) {
		cli_error("run: out of memory");
		rc = XFERSTAT_EXIT_FAILED;
		goto out;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = run_all(&cmd, &sets, sampler, &log);
	if (rc == XFERSTAT_EXIT_INTERRUPTED) {
		size_t done = 0;
		for (size_t i = 0; i < sets.n; i++)
			done += sets.sets[i].n_runs;
		cli_error("run: interrupted; keeping the %zu completed run%s%s%s", done,
			  done == 1 ? "" : "s", cmd.output ? " in " : "",
			  cmd.output ? cmd.output : "");
		if (!save(&cmd, &sets))
			rc = XFERSTAT_EXIT_FAILED;
	}
	if (cmd.verbosity >= 0)
		print_table(&sets, sampler != NULL);
	if (sets.n > 0)
		print_summary(&sets);
out:
	xfer_sets_free(&sets);
	xfer_link_sampler_close(sampler);
	free_cmd(&cmd);
	curl_global_cleanup();
	return rc;
}
