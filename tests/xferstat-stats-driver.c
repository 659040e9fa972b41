/*
 * xferstat-stats-driver.c: test-only front end of libxferstats.
 *
 * Reads runs from stdin, one per line: "LABEL BYTES SECONDS [BLOCK_SIZE]" (conditions
 * in order of first appearance), builds the result sets in memory and
 * prints the compare report exactly as the library renders it.  The
 * oracle tests (tests/xferstat-stats-oracle.tap) drive the statistics
 * through it with generated data, independently of the JSON file reader
 * of results.c.  Not installed.
 *
 *   xferstat-stats-driver [--json|--csv|--markdown|--text|--plot]
 *                         [--alpha A] [--arith-rate] [--width N]
 *                         [-o FILE.png|FILE.svg]
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "cursor.h"
#include "plot.h"
#include "table.h"
#include "termplot.h"

#define MAX_SETS 32
#define LABEL_CAP 64

struct sets {
	size_t n;
	struct xfer_set set[MAX_SETS];
};

static struct xfer_set *set_for(struct sets *s, const char *label)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->set[i].label, label) == 0)
			return &s->set[i];
	if (s->n == MAX_SETS)
		return NULL;
	struct xfer_set *set = &s->set[s->n++];

	memset(set, 0, sizeof(*set));
	set->label = strdup(label);
	return set->label ? set : NULL;
}

static bool add_run(struct xfer_set *set, uint64_t bytes, double seconds, uint64_t block)
{
	if (set->n_runs == set->cap_runs) {
		size_t cap = set->cap_runs ? 2 * set->cap_runs : 16;
		struct xfer_run *r = realloc(set->runs, cap * sizeof(*r));

		if (!r)
			return false;
		set->runs = r;
		set->cap_runs = cap;
	}
	struct xfer_run *run = &set->runs[set->n_runs++];

	memset(run, 0, sizeof(*run));
	run->bytes = bytes;
	run->seconds = seconds;
	run->block_size = block;
	return true;
}

/* One line: LABEL BYTES SECONDS [BLOCK_SIZE].  Blank lines are skipped. */
static bool parse_line(struct cursor *line, struct sets *s)
{
	struct cursor word;
	char label[LABEL_CAP];
	uint64_t bytes, block = 0;
	double seconds;

	cursor_skip_blanks(line);
	if (cursor_at_end(line))
		return true;
	if (!cursor_word(line, &word) || !cursor_to_cstr(&word, label, sizeof(label)))
		return false;
	cursor_skip_blanks(line);
	if (!cursor_parse_u64(line, &bytes))
		return false;
	cursor_skip_blanks(line);
	if (!cursor_parse_double(line, &seconds))
		return false;
	cursor_skip_blanks(line);
	if (!cursor_at_end(line) && !cursor_parse_u64(line, &block))
		return false;
	cursor_skip_blanks(line);
	struct xfer_set *set = set_for(s, label);

	return cursor_at_end(line) && set && add_run(set, bytes, seconds, block);
}

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		char *b = realloc(buf, cap *= 2);

		if (!b)
			free(buf);
		buf = b;
	}
	*len = n;
	return buf;
}

static int read_sets(struct sets *s)
{
	size_t len, lineno = 0;
	char *buf = read_all(stdin, &len);
	struct cursor c, line;

	if (!buf)
		return -ENOMEM;
	cursor_init(&c, buf, len);
	while (cursor_line(&c, &line)) {
		lineno++;
		if (!parse_line(&line, s)) {
			fprintf(stderr, "stdin:%zu: expected LABEL BYTES SECONDS [BLOCK_SIZE]\n", lineno);
			free(buf);
			return -EINVAL;
		}
	}
	free(buf);
	return 0;
}

static void free_sets(struct sets *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->set[i].label);
		free(s->set[i].runs);
	}
}

enum format { F_JSON, F_CSV, F_MARKDOWN, F_TEXT, F_PLOT };

static bool parse_args(int argc, char **argv, enum format *f, struct xs_options *opt,
		       size_t *width, const char **plot)
{
	for (int i = 1; i < argc; i++) {
		char *end;

		if (strcmp(argv[i], "--json") == 0)
			*f = F_JSON;
		else if (strcmp(argv[i], "--csv") == 0)
			*f = F_CSV;
		else if (strcmp(argv[i], "--markdown") == 0)
			*f = F_MARKDOWN;
		else if (strcmp(argv[i], "--text") == 0)
			*f = F_TEXT;
		else if (strcmp(argv[i], "--plot") == 0)
			*f = F_PLOT;
		else if (strcmp(argv[i], "--arith-rate") == 0)
			opt->arith_rate = true;
		else if (strcmp(argv[i], "--alpha") == 0 && i + 1 < argc)
			opt->alpha = strtod(argv[++i], &end);
		else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			*plot = argv[++i];
		else if (strcmp(argv[i], "--width") == 0 && i + 1 < argc)
			*width = strtoul(argv[++i], &end, 10);
		else
			return false;
	}
	return true;
}

static bool render(const struct xs_report *r, enum format f, size_t width, struct xs_out *o)
{
	switch (f) {
	case F_JSON: return xs_render_json(r, o);
	case F_CSV: return xs_render_csv(r, o);
	case F_MARKDOWN: return xs_render_markdown(r, o);
	case F_TEXT: return xs_render_text(r, o);
	case F_PLOT: return xs_termplot(r, width, o);
	}
	return false;
}

int main(int argc, char **argv)
{
	struct xs_options opt = { XS_ALPHA_DEFAULT, false, false, XS_CI_AUTO };
	enum format f = F_JSON;
	size_t width = XS_TERMPLOT_WIDTH;
	struct sets s = { 0 };
	struct xs_report r;
	struct xs_out o;
	char err[256];
	int rc = 0;

	const char *plot = NULL;

	if (!parse_args(argc, argv, &f, &opt, &width, &plot)) {
		fprintf(stderr, "usage: %s [--json|--csv|--markdown|--text|--plot] "
			"[--alpha A] [--arith-rate] [--width N] [-o FILE.png|.svg] < runs\n", argv[0]);
		return 2;
	}
	if (read_sets(&s) != 0) {
		free_sets(&s);
		return 2;
	}
	if (xs_report_build(&r, s.set, s.n, &opt, err, sizeof(err)) != 0) {
		fprintf(stderr, "stdin: %s\n", err);
		free_sets(&s);
		return 2;
	}
	xs_out_init(&o);
	if (plot && xs_plot_write(&r, plot, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		rc = 1;
	} else if (render(&r, f, width, &o))
		fputs(xs_out_str(&o), stdout);
	else
		rc = 1;
	xs_out_free(&o);
	xs_report_free(&r);
	free_sets(&s);
	return rc;
}
