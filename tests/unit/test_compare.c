/*
 * test_compare.c: Welch, Mann-Whitney, conditions, reports and their
 * renderings (xferstat/compare.c, table.c, termplot.c).
 *
 * Reference values marked "scipy" were computed once with scipy 1.10
 * (stats.ttest_ind(equal_var=False), stats.mannwhitneyu); the exact
 * Mann-Whitney distribution is also checked against brute-force
 * enumeration here.  tests/xferstat-stats-oracle.tap repeats such checks
 * over generated data with scipy and ministat at run time.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <dirent.h>
#include <unistd.h>

#include "compare.h"
#include "plot.h"
#include "table.h"
#include "termplot.h"

static void assert_close(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fabs(want)))
		fail_msg("got %.17g, want %.17g (rel. tolerance %g)", got, want, rel);
}

static void assert_contains(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("\"%s\" not found in:\n%s", part, text);
}

/* ---- building sets in memory ------------------------------------------- */

#define MAX_RUNS 1000

struct test_set {
	struct xfer_set set;
	struct xfer_run runs[MAX_RUNS];
};

static void make_set(struct test_set *t, const char *label, const double *seconds,
		     size_t n, uint64_t bytes)
{
	memset(t, 0, sizeof(*t));
	t->set.label = (char *)label;
	t->set.runs = t->runs;
	t->set.n_runs = t->set.cap_runs = n;
	for (size_t i = 0; i < n; i++) {
		t->runs[i].bytes = bytes;
		t->runs[i].seconds = seconds[i];
		t->runs[i].setup_seconds = NAN;
	}
}

static const double times_i[] = { 10.1, 10.4, 9.8, 10.0, 10.3 };
static const double times_ii[] = { 7.3, 7.5, 7.2, 7.6, 7.1, 7.4 };
static const double times_iii[] = { 9.6, 10.0, 9.7, 9.9, 9.5 };
static const struct xs_options default_opt = { XS_ALPHA_DEFAULT, false, false, XS_CI_AUTO };

/* Two or three conditions of 1000-byte transfers. */
static struct test_set *sets3(void)
{
	struct test_set *s = calloc(3, sizeof(*s));

	assert_non_null(s);
	make_set(&s[0], "I", times_i, 5, 1000);
	make_set(&s[1], "II", times_ii, 6, 1000);
	make_set(&s[2], "III", times_iii, 5, 1000);
	return s;
}

static struct xfer_set *plain(struct test_set *s, size_t n, struct xfer_set *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = s[i].set;
	return out;
}

/* Builds the report of the first n test sets; the build must succeed. */
static void report_of(struct xs_report *r, const struct test_set *s, size_t n,
		      const struct xs_options *opt)
{
	struct xfer_set in[16];
	char err[128];

	assert_true(n <= 16);
	for (size_t i = 0; i < n; i++)
		in[i] = s[i].set;
	if (xs_report_build(r, in, n, opt, err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

/* ---- Welch ------------------------------------------------------------- */

static void welch_matches_scipy(void **state)
{
	struct xs_welch w;

	assert_int_equal(xs_welch(times_i, 5, times_ii, 6, 0.95, &w), 0);
	assert_true(w.defined);
	/* scipy: ttest_ind(II, I, equal_var=False) */
	assert_close(w.t, -21.100615554745506, 1e-12);
	assert_close(w.p, 5.4236714950020566e-08, 1e-9);
	assert_close(w.df, 7.5577956229146634, 1e-12);
	assert_close(w.diff, 7.35 - 10.12, 1e-12);
	assert_close((w.ci_lo + w.ci_hi) / 2, w.diff, 1e-12);
	assert_true(w.ci_hi < 0.0);
}

static void welch_needs_two_runs_and_spread(void **state)
{
	const double one[] = { 5.0 }, flat_a[] = { 2, 2, 2 }, flat_b[] = { 3, 3 };
	struct xs_welch w;

	assert_int_equal(xs_welch(one, 1, times_i, 5, 0.95, &w), 0);
	assert_false(w.defined);
	assert_contains(w.why_undefined, "at least 2 runs");
	assert_true(isnan(w.p));
	assert_int_equal(xs_welch(flat_a, 3, flat_b, 2, 0.95, &w), 0);
	assert_false(w.defined);
	assert_contains(w.why_undefined, "no spread");
	assert_close(w.diff, 1.0, 0);
	assert_int_equal(xs_welch(one, 0, one, 1, 0.95, &w), -EINVAL);
}

/* ---- Mann-Whitney -------------------------------------------------------- */

static void mann_whitney_exact_small(void **state)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	struct xs_mann_whitney m;

	assert_int_equal(xs_mann_whitney(a, 3, b, 3, &m), 0);
	assert_int_equal(m.method, XS_MW_EXACT);
	assert_false(m.ties);
	assert_close(m.u, 9.0, 0);
	assert_close(m.p, 2.0 / 20.0, 1e-14);   /* 1 of C(6,3) orders, twice */
	assert_int_equal(xs_mann_whitney(b, 3, a, 3, &m), 0);
	assert_close(m.u, 0.0, 0);
	assert_close(m.p, 0.1, 1e-14);
}

static void mann_whitney_exact_matches_enumeration(void **state)
{
	enum { M = 4, N = 5, ALL = 9 };
	unsigned counts[M * N + 1] = { 0 }, total = 0;

	/* Every choice of M ranks out of 9 for sample a: U's null law. */
	for (unsigned mask = 0; mask < (1u << ALL); mask++) {
		if (__builtin_popcount(mask) != M)
			continue;
		unsigned u = 0;

		for (unsigned i = 0; i < ALL; i++)      /* pairs b > a */
			for (unsigned j = i + 1; j < ALL; j++)
				u += (mask >> i & 1) && !(mask >> j & 1);
		counts[u]++;
		total++;
	}
	for (unsigned mask = 0; mask < (1u << ALL); mask++) {
		if (__builtin_popcount(mask) != M)
			continue;
		double a[M], b[N];
		size_t na = 0, nb = 0;

		for (unsigned i = 0; i < ALL; i++) {
			if (mask >> i & 1)
				a[na++] = i;
			else
				b[nb++] = i;
		}
		struct xs_mann_whitney m;

		assert_int_equal(xs_mann_whitney(a, M, b, N, &m), 0);
		unsigned big = (unsigned)fmax(m.u, M * N - m.u), tail = 0;

		for (unsigned k = big; k <= M * N; k++)
			tail += counts[k];
		assert_close(m.p, fmin(1.0, 2.0 * tail / total), 1e-13);
	}
}

static void mann_whitney_ties_use_normal_approximation(void **state)
{
	const double x[] = { 1.5, 2.5, 2.5, 4, 5, 6 }, y[] = { 3, 3, 7, 8, 9, 9.5, 10 };
	struct xs_mann_whitney m;

	assert_int_equal(xs_mann_whitney(x, 6, y, 7, &m), 0);
	assert_true(m.ties);
	assert_int_equal(m.method, XS_MW_NORMAL);
	/* scipy: mannwhitneyu(y, x, method='asymptotic', use_continuity=True) */
	assert_close(m.u, 36.0, 0);
	assert_close(m.p, 0.03778837505022399, 1e-10);
}

static void mann_whitney_large_samples_use_normal_approximation(void **state)
{
	double a[30], b[25];
	struct xs_mann_whitney m;

	for (int i = 0; i < 30; i++)
		a[i] = 2 * i;
	for (int i = 0; i < 25; i++)
		b[i] = 2 * i + 1;
	assert_int_equal(xs_mann_whitney(a, 30, b, 25, &m), 0);
	assert_false(m.ties);
	assert_int_equal(m.method, XS_MW_NORMAL);
	assert_true(m.p > 0.05 && m.p <= 1.0);
}

static void mann_whitney_all_equal_is_undefined(void **state)
{
	const double a[] = { 4, 4, 4 }, b[] = { 4, 4 };
	struct xs_mann_whitney m;

	assert_int_equal(xs_mann_whitney(a, 3, b, 2, &m), 0);
	assert_false(m.defined);
	assert_true(isnan(m.p));
	assert_int_equal(xs_mann_whitney(a, 0, b, 2, &m), -EINVAL);
}

/* ---- reports --------------------------------------------------------------- */

static void report_says_faster_in_words(void **state)
{
	struct test_set *s = sets3();
	struct xs_report r;

	report_of(&r, s, 3, &default_opt);
	/* equal sizes: rate change = mean time I / mean time II - 1 = 37.7 % */
	assert_close(r.cmp[1].rate_change, 10.12 / 7.35 - 1.0, 1e-12);
	assert_true(r.cmp[1].proven);
	assert_string_equal(r.cmp[1].verdict, "II is 38 % faster than I "
			    "(rate, Welch p < 0.0001, Mann-Whitney p = 0.0043)");
	/* scipy: Welch p 0.0276 on the rates; Mann-Whitney has a tie (10.0):
	 * asymptotic p 0.0465 */
	assert_true(r.cmp[2].proven);
	assert_string_equal(r.cmp[2].verdict, "III is 3.9 % faster than I "
			    "(rate, Welch p = 0.028, Mann-Whitney p = 0.047)");
	xs_report_free(&r);
	free(s);
}

static void alpha_decides(void **state)
{
	struct test_set *s = sets3();
	struct xfer_set in[3];
	struct xs_options opt = { 0.01, false, false, XS_CI_AUTO };
	struct xs_report r;
	char err[128];

	report_of(&r, s, 3, &opt);
	assert_true(r.cmp[1].proven);
	assert_false(r.cmp[2].proven);
	assert_string_equal(r.cmp[2].verdict, "III against I: no difference proven "
			    "(rate, Welch p = 0.028, Mann-Whitney p = 0.047)");
	xs_report_free(&r);
	opt.alpha = 1.5;
	assert_int_equal(xs_report_build(&r, in, 3, &opt, err, sizeof(err)), -EINVAL);
	assert_contains(err, "alpha 1.5");
	free(s);
}

static void zero_time_run_is_rejected(void **state)
{
	const double bad[] = { 1.0, 2.0, 0.0 };
	struct test_set *s = sets3();
	struct xfer_set in[3];
	struct xs_report r;
	char err[128];

	make_set(&s[1], "II", bad, 3, 1000);
	assert_int_equal(xs_report_build(&r, plain(s, 3, in), 3, &default_opt, err, sizeof(err)),
			 -EINVAL);
	assert_contains(err, "set 'II', run 3");
	assert_null(r.cond);
	make_set(&s[1], "II", bad, 0, 1000);
	assert_int_equal(xs_report_build(&r, plain(s, 3, in), 3, &default_opt, err, sizeof(err)),
			 -EINVAL);
	assert_contains(err, "set 'II' has no runs");
	assert_int_equal(xs_report_build(&r, in, 0, &default_opt, err, sizeof(err)), -EINVAL);
	free(s);
}

static void single_run_condition(void **state)
{
	const double one[] = { 8.0 };
	struct test_set *s = sets3();
	struct xs_report r;
	struct xs_out o;

	make_set(&s[1], "solo", one, 1, 1000);
	report_of(&r, s, 2, &default_opt);
	assert_false(r.cond[1].time_s.has_sd);
	assert_false(r.cmp[1].proven);
	assert_string_equal(r.cmp[1].verdict,
			    "solo against I: not tested (at least 2 runs in each condition needed)");
	xs_out_init(&o);
	assert_true(xs_render_text(&r, &o));
	assert_contains(xs_out_str(&o), "SD undefined (1 run)");
	assert_null(strstr(xs_out_str(&o), "nan"));
	/* Dev. row: n/a for solo, numbers for I */
	const char *dev = strstr(xs_out_str(&o), "\nDev.");

	assert_non_null(dev);
	assert_true(strstr(dev, "n/a") < strchr(dev + 1, '\n'));
	xs_out_free(&o);
	xs_out_init(&o);
	assert_true(xs_render_json(&r, &o));
	json_object *root = json_tokener_parse(xs_out_str(&o)), *conds, *c1, *time;

	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "conditions", &conds));
	c1 = json_object_array_get_idx(conds, 1);
	assert_true(json_object_object_get_ex(c1, "time", &time));
	json_object *sd = (json_object *)1;

	assert_true(json_object_object_get_ex(time, "sd", &sd));
	assert_null(sd);                        /* JSON null, not 0 or NaN */
	json_object_put(root);
	xs_out_free(&o);
	xs_report_free(&r);
	free(s);
}

/* The text table: runs as rows, blank cells where a condition has fewer
 * runs, Avg. and Dev. rows, and the footnote on Dev. */
static void text_table_layout(void **state)
{
	struct test_set *s = sets3();
	struct xs_report r;
	struct xs_out o;

	report_of(&r, s, 2, &default_opt);
	xs_out_init(&o);
	assert_true(xs_render_text(&r, &o));
	const char *t = xs_out_str(&o);

	assert_contains(t, "Time (s)");
	assert_contains(t, "Rate (B/s)");
	/* 1000 B / 10.1 s = 99.0099 B/s; 1000 / 7.3 = 136.986; one decimal
	 * in every rate cell, for 4 digits of the largest (140.8) */
	assert_contains(t, "\n1         10.10         99.0       7.30        137.0\n");
	/* run 6: only II has it */
	assert_contains(t, "\n6                                  7.40        135.1\n");
	/* 5000 B / 50.6 s = 98.814; 6000 / 44.1 = 136.05 */
	assert_contains(t, "\nAvg.      10.12         98.8       7.35        136.1\n");
	assert_contains(t, "\nDev.       0.24          2.3       0.19          3.5\n");
	assert_contains(t, "Dev. = sample standard deviation");
	assert_contains(t, "Avg. rate = total bytes / total time");
	assert_contains(t, "II is 38 % faster than I");
	xs_out_free(&o);
	xs_report_free(&r);
	free(s);
}

static void arith_rate_is_labelled(void **state)
{
	struct test_set *s = sets3();
	struct xs_options opt = { 0.05, true, false, XS_CI_AUTO };
	struct xs_report r;
	struct xs_out o;
	double sum = 0.0;

	report_of(&r, s, 2, &opt);
	for (int i = 0; i < 5; i++)
		sum += 1000.0 / times_i[i];
	assert_close(r.cond[0].rate_mean, sum / 5.0, 1e-14);
	xs_out_init(&o);
	assert_true(xs_render_text(&r, &o));
	assert_contains(xs_out_str(&o), "arithmetic mean of the run rates (--arith-rate)");
	xs_out_free(&o);
	xs_report_free(&r);
	free(s);
}

static void csv_and_markdown(void **state)
{
	struct test_set *s = sets3();
	struct xs_report r;
	struct xs_out o;

	s[0].set.label = "a, \"b\"";
	s[1].set.label = "x|y";
	report_of(&r, s, 2, &default_opt);
	xs_out_init(&o);
	assert_true(xs_render_csv(&r, &o));
	assert_contains(xs_out_str(&o), "run,\"a, \"\"b\"\" time (s)\",\"a, \"\"b\"\" rate (B/s)\",");
	assert_contains(xs_out_str(&o), "\n6,,,7.4,135.135135135\n");
	assert_contains(xs_out_str(&o), "\nAvg.,10.12,98.814229249,7.35,136.054421769\n");
	xs_out_free(&o);
	xs_out_init(&o);
	assert_true(xs_render_markdown(&r, &o));
	assert_contains(xs_out_str(&o), "| Run | a, \"b\" Time (s) |");
	assert_contains(xs_out_str(&o), "x\\|y Rate (B/s) |\n|---|---:|");
	assert_contains(xs_out_str(&o), "| 6 |  |  | 7.40 | 135.1 |");
	xs_out_free(&o);
	xs_report_free(&r);
	free(s);
}

static void json_has_every_field(void **state)
{
	struct test_set *s = sets3();
	struct xs_report r;
	struct xs_out o;
	json_object *root, *conds, *cmps, *c0, *rate, *ci, *runs, *cmp, *v;

	report_of(&r, s, 2, &default_opt);
	xs_out_init(&o);
	assert_true(xs_render_json(&r, &o));
	root = json_tokener_parse(xs_out_str(&o));
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "conditions", &conds));
	c0 = json_object_array_get_idx(conds, 0);
	assert_true(json_object_object_get_ex(c0, "n", &v));
	assert_int_equal(json_object_get_int(v), 5);
	assert_true(json_object_object_get_ex(c0, "bytes", &v));
	assert_close(json_object_get_double(v), 5000.0, 0);
	assert_true(json_object_object_get_ex(c0, "rate", &rate));
	assert_true(json_object_object_get_ex(rate, "mean", &v));
	assert_close(json_object_get_double(v), 5000.0 / 50.6, 1e-15);
	static const char *const keys[] = { "sd", "sd_population", "median", "min", "max" };

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		assert_true(json_object_object_get_ex(rate, keys[k], &v));
		assert_true(json_object_is_type(v, json_type_double));
	}
	assert_true(json_object_object_get_ex(rate, "ci95", &ci));
	assert_int_equal(json_object_array_length(ci), 2);
	assert_true(json_object_object_get_ex(c0, "runs", &runs));
	assert_int_equal(json_object_array_length(runs), 5);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(runs, 0), "outlier", &v));
	assert_true(json_object_object_get_ex(root, "comparisons", &cmps));
	assert_int_equal(json_object_array_length(cmps), 1);
	cmp = json_object_array_get_idx(cmps, 0);
	static const char *const ckeys[] = { "diff", "ci95", "welch_t", "welch_df", "welch_p",
					     "mw_u", "mw_p", "mw_method", "verdict", "time" };

	for (size_t k = 0; k < sizeof(ckeys) / sizeof(ckeys[0]); k++) {
		assert_true(json_object_object_get_ex(cmp, ckeys[k], &v));
		assert_non_null(v);
	}
	assert_true(json_object_object_get_ex(cmp, "mw_method", &v));
	assert_string_equal(json_object_get_string(v), "exact");
	json_object_put(root);
	xs_out_free(&o);
	xs_report_free(&r);
	free(s);
}

/* Each run appears in the strip plot exactly once: marks plus digits add
 * up to the run count of the condition. */
static void termplot_counts_every_run(void **state)
{
	struct test_set *s = sets3();
	struct xs_report r;
	struct xs_out o;

	report_of(&r, s, 3, &default_opt);
	xs_out_init(&o);
	assert_true(xs_termplot(&r, 74, &o));
	const char *marks = "x+o";

	for (size_t i = 0; i < 3; i++) {
		char head[32];

		snprintf(head, sizeof(head), "\n%-3s  %c  |", r.cond[i].label, marks[i]);
		const char *row = strstr(xs_out_str(&o), head);

		assert_non_null(row);
		row += strlen(head);
		size_t runs = 0, width = 0;

		for (; *row != '|'; row++, width++)
			runs += *row == marks[i] ? 1 : (*row >= '2' && *row <= '9') ? (size_t)(*row - '0') : 0;
		assert_int_equal(runs, r.cond[i].n);
		assert_int_equal(width, 74 - 8 - 2);
	}
	xs_out_free(&o);
	xs_report_free(&r);
	free(s);
}

/* In a block-size sweep, a run is judged among runs of its own size:
 * here every size is tight except one far run at 1024. */
static void outliers_are_judged_per_block_size(void **state)
{
	struct test_set *s = calloc(1, sizeof(*s));
	static const double t[] = { 1.00, 1.01, 0.99, 1.00, 2.00, 2.02, 1.98, 2.00, 6.0 };
	struct xs_report r;

	assert_non_null(s);
	make_set(s, "sweep", t, 9, 1000);
	for (int i = 0; i < 9; i++)
		s->runs[i].block_size = i < 4 ? 512 : 1024;
	report_of(&r, s, 1, &default_opt);
	assert_int_equal(r.cond[0].n_outliers, 1);
	assert_true(r.cond[0].outlier[8]);
	xs_report_free(&r);
	/* pooled, the two sizes make a wide spread (median 2, MAD 0.99) and
	 * M(6 s) = 0.6745 * 4 / 0.99 = 2.7: the far run hides */
	for (int i = 0; i < 9; i++)
		s->runs[i].block_size = 0;
	report_of(&r, s, 1, &default_opt);
	assert_int_equal(r.cond[0].n_outliers, 0);
	xs_report_free(&r);
	free(s);
}

static bool temp_files_left(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	assert_non_null(d);
	while ((e = readdir(d)))
		found = found || strstr(e->d_name, ".tmp");
	closedir(d);
	return found;
}

static void plot_files(void **state)
{
	struct test_set *s = sets3();
	struct xs_report r;
	char err[256], dir[] = "/tmp/test_plotXXXXXX", png[64], svg[64], bad[64];
	unsigned char head[8];

	assert_non_null(mkdtemp(dir));
	snprintf(png, sizeof(png), "%s/a.PNG", dir);
	snprintf(svg, sizeof(svg), "%s/a.svg", dir);
	snprintf(bad, sizeof(bad), "%s/a.gif", dir);
	for (int i = 0; i < 5; i++)
		s[2].runs[i].block_size = 1u << (4 * i);        /* the second panel */
	report_of(&r, s, 3, &default_opt);
	assert_true(xs_plot_has_block_sizes(&r));
	assert_int_equal(xs_plot_write(&r, png, err, sizeof(err)), 0);
	cairo_surface_t *img = cairo_image_surface_create_from_png(png);

	assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_width(img), 900);
	assert_int_equal(cairo_image_surface_get_height(img), 960);
	cairo_surface_destroy(img);
	assert_int_equal(xs_plot_write(&r, svg, err, sizeof(err)), 0);
	FILE *f = fopen(svg, "rb");

	assert_non_null(f);
	assert_int_equal(fread(head, 1, 5, f), 5);
	fclose(f);
	assert_memory_equal(head, "<?xml", 5);
	assert_int_equal(xs_plot_write(&r, bad, err, sizeof(err)), -EINVAL);
	assert_contains(err, "a.gif: unknown plot format");
	assert_false(temp_files_left(dir));
	unlink(png);
	unlink(svg);
	rmdir(dir);
	snprintf(png, sizeof(png), "%s/a.png", dir);    /* the directory is gone */
	assert_true(xs_plot_write(&r, png, err, sizeof(err)) < 0);
	assert_contains(err, png);
	xs_report_free(&r);
	free(s);
	cairo_debug_reset_static_data();        /* cairo's and fontconfig's caches, for LSan */
	FcFini();
}

static void ten_sets_of_a_thousand_runs(void **state)
{
	struct test_set *s = calloc(10, sizeof(*s));
	double t[MAX_RUNS];
	char label[10][8];
	struct xs_report r;
	struct xs_out o;

	assert_non_null(s);
	for (int k = 0; k < 10; k++) {
		for (int i = 0; i < MAX_RUNS; i++)
			t[i] = 10.0 + k * 0.01 + (double)((i * 7919 + k * 104729) % 1000) / 1000.0;
		snprintf(label[k], sizeof(label[k]), "c%d", k);
		make_set(&s[k], label[k], t, MAX_RUNS, 1 << 20);
	}
	report_of(&r, s, 10, &default_opt);
	assert_int_equal(r.cmp[9].rate_mw.method, XS_MW_NORMAL);
	xs_out_init(&o);
	assert_true(xs_render_text(&r, &o) && xs_render_json(&r, &o) && xs_termplot(&r, 74, &o));
	xs_out_free(&o);
	xs_report_free(&r);
	free(s);
}

/* file:// runs with a stall (issue 28): the report names the bootstrap
 * for both means, prints no negative bound, and --ci t says log. */
static void file_runs_get_a_positive_interval(void **state)
{
	const double t[] = { 0.00021, 0.00019, 0.00020, 0.00022, 0.0041, 0.00020, 0.00018 };
	struct test_set *s = sets3();
	struct xs_report r;
	struct xs_out o;
	struct xs_options opt = default_opt;

	(void)state;
	make_set(&s[0], "file", t, 7, 1048576);
	report_of(&r, s, 1, &opt);
	assert_int_equal(r.cond[0].time_ci.method, XS_CI_BOOTSTRAP);
	assert_int_equal(r.cond[0].rate_ci.method, XS_CI_BOOTSTRAP);
	assert_true(r.cond[0].time_ci.lo > 0.0 && r.cond[0].rate_ci.lo > 0.0);
	xs_out_init(&o);
	assert_true(xs_render_text(&r, &o));
	assert_contains(xs_out_str(&o), "time: mean 0.0007571 s, 95% CI [0.000");
	assert_contains(xs_out_str(&o), "] (bootstrap), median");
	assert_null(strstr(xs_out_str(&o), "[-"));
	xs_out_free(&o);
	xs_out_init(&o);
	assert_true(xs_render_json(&r, &o));
	assert_contains(xs_out_str(&o), "\"ci95_method\": \"bootstrap\"");
	xs_out_free(&o);
	xs_report_free(&r);
	opt.ci = XS_CI_T;
	report_of(&r, s, 1, &opt);
	assert_int_equal(r.cond[0].time_ci.method, XS_CI_LOG);
	xs_out_init(&o);
	assert_true(xs_render_text(&r, &o));
	assert_contains(xs_out_str(&o), "(log; t went below 0)");
	assert_null(strstr(xs_out_str(&o), "[-"));
	xs_out_free(&o);
	xs_report_free(&r);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(welch_matches_scipy),
		cmocka_unit_test(welch_needs_two_runs_and_spread),
		cmocka_unit_test(mann_whitney_exact_small),
		cmocka_unit_test(mann_whitney_exact_matches_enumeration),
		cmocka_unit_test(mann_whitney_ties_use_normal_approximation),
		cmocka_unit_test(mann_whitney_large_samples_use_normal_approximation),
		cmocka_unit_test(mann_whitney_all_equal_is_undefined),
		cmocka_unit_test(report_says_faster_in_words),
		cmocka_unit_test(alpha_decides),
		cmocka_unit_test(zero_time_run_is_rejected),
		cmocka_unit_test(single_run_condition),
		cmocka_unit_test(text_table_layout),
		cmocka_unit_test(arith_rate_is_labelled),
		cmocka_unit_test(csv_and_markdown),
		cmocka_unit_test(json_has_every_field),
		cmocka_unit_test(termplot_counts_every_run),
		cmocka_unit_test(outliers_are_judged_per_block_size),
		cmocka_unit_test(plot_files),
		cmocka_unit_test(ten_sets_of_a_thousand_runs),
		cmocka_unit_test(file_runs_get_a_positive_interval),
	};

	return cmocka_run_group_tests_name("xferstat comparison", tests, NULL, NULL);
}
